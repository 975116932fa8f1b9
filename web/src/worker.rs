//! The Web Worker that runs the core off the page's thread, and the page's handle on it.
//!
//! Messages (plain JS objects; the report travels as JSON text):
//!
//! | page → worker | |
//! |---|---|
//! | `{type: "load", gen, files: [[path, Uint8Array]…], continueOnly, nowMs}` | a laid-out case folder |
//! | `{type: "assemble", gen, api}` | assemble it (`api`: `null` = the model's own) |
//! | `{type: "catalog"}` | pi 0.85.1's model catalog, for the model picker |
//!
//! | worker → page | |
//! |---|---|
//! | `{type: "ready", builtinTools}` | the worker is listening |
//! | `{type: "progress", gen, api, stage}` | what it is doing now |
//! | `{type: "report", gen, api, json, ms, memoryBytes}` | `report::assembly_json(..).to_json()` |
//! | `{type: "catalog", json}` | `[{ref, name, api, reasoning}]` |
//!
//! The worker is loaded by `www/worker.js` (a module worker; the CSP allows `worker-src 'self'`).
//! A crash (a panic aborts the wasm instance) reaches the page as an `error` event; the page
//! reports it and starts a new worker.

use std::cell::RefCell;
use std::rc::Rc;

use ctxlens::case::CaseFiles;
use ctxlens::js::{Object, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::state::{inputs_of, Laid, LayOptions};

fn get(o: &JsValue, k: &str) -> JsValue {
    js_sys::Reflect::get(o, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED)
}

fn set(o: &js_sys::Object, k: &str, v: impl Into<JsValue>) {
    let _ = js_sys::Reflect::set(o, &JsValue::from_str(k), &v.into());
}

fn opt_str(v: Option<&str>) -> JsValue {
    v.map(JsValue::from_str).unwrap_or(JsValue::NULL)
}

/// A message from the worker, as the page sees it.
#[derive(Clone, Debug, PartialEq)]
pub enum FromWorker {
    Ready { builtin_tools: Vec<String> },
    Progress { gen: u64, api: Option<String>, stage: String },
    Report { gen: u64, api: Option<String>, json: Rc<String>, ms: f64, memory_bytes: f64 },
    Catalog { json: Rc<String> },
    /// The worker died (a bug in the core); it is restarted.
    Crashed { message: String },
}

impl FromWorker {
    fn from_js(data: &JsValue) -> Option<FromWorker> {
        let s = |k: &str| get(data, k).as_string();
        let gen = get(data, "gen").as_f64().unwrap_or(0.0) as u64;
        Some(match s("type")?.as_str() {
            "ready" => FromWorker::Ready {
                builtin_tools: s("builtinTools").and_then(|t| ctxlens::js::parse(&t).ok()).and_then(|v| v.as_array().map(|a| a.iter().filter_map(|x| x.as_str().map(String::from)).collect())).unwrap_or_default(),
            },
            "progress" => FromWorker::Progress { gen, api: s("api"), stage: s("stage").unwrap_or_default() },
            "report" => FromWorker::Report {
                gen,
                api: s("api"),
                json: Rc::new(s("json").unwrap_or_default()),
                ms: get(data, "ms").as_f64().unwrap_or(0.0),
                memory_bytes: get(data, "memoryBytes").as_f64().unwrap_or(0.0),
            },
            "catalog" => FromWorker::Catalog { json: Rc::new(s("json").unwrap_or_default()) },
            _ => return None,
        })
    }
}

/// The page's handle on the worker.
pub struct WorkerLink {
    worker: web_sys::Worker,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

impl Drop for WorkerLink {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}

impl WorkerLink {
    /// Starts `worker.js` (beside the page); `on_message` gets everything it says.
    pub fn start(on_message: Rc<dyn Fn(FromWorker)>) -> Result<WorkerLink, String> {
        let opts = web_sys::WorkerOptions::new();
        opts.set_type(web_sys::WorkerType::Module);
        let worker = web_sys::Worker::new_with_options("./worker.js", &opts).map_err(|e| format!("could not start the worker: {e:?}"))?;
        let cb = on_message.clone();
        let on_msg = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
            if let Some(m) = FromWorker::from_js(&e.data()) {
                cb(m);
            }
        });
        let cb = on_message;
        let on_err = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
            e.prevent_default();
            let message = get(&e, "message").as_string().unwrap_or_else(|| "the worker stopped".into());
            cb(FromWorker::Crashed { message });
        });
        worker.set_onmessage(Some(on_msg.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_err.as_ref().unchecked_ref()));
        Ok(WorkerLink { worker, _on_message: on_msg, _on_error: on_err })
    }

    /// Sends a laid-out scenario (the file bytes are transferred, not copied twice).
    pub fn load(&self, gen: u64, laid: &Laid) {
        let msg = js_sys::Object::new();
        let files = js_sys::Array::new();
        let transfer = js_sys::Array::new();
        for (path, bytes) in &laid.files {
            let arr = js_sys::Uint8Array::from(bytes.as_slice());
            transfer.push(&arr.buffer());
            files.push(&js_sys::Array::of2(&JsValue::from_str(path), &arr));
        }
        set(&msg, "type", "load");
        set(&msg, "gen", gen as f64);
        set(&msg, "files", files);
        set(&msg, "continueOnly", laid.continue_only);
        set(&msg, "nowMs", laid.now_ms.map(JsValue::from_f64).unwrap_or(JsValue::NULL));
        if let Err(e) = self.worker.post_message_with_transfer(&msg, &transfer) {
            web_sys::console::error_2(&"ctxlens: could not send the scenario to the worker".into(), &e);
        }
    }

    pub fn assemble(&self, gen: u64, api: Option<&str>) {
        let msg = js_sys::Object::new();
        set(&msg, "type", "assemble");
        set(&msg, "gen", gen as f64);
        set(&msg, "api", opt_str(api));
        let _ = self.worker.post_message(&msg);
    }

    pub fn catalog(&self) {
        let msg = js_sys::Object::new();
        set(&msg, "type", "catalog");
        let _ = self.worker.post_message(&msg);
    }
}

// ---------------------------------------------------------------------------------------------
// The worker side.

struct Loaded {
    gen: u64,
    files: CaseFiles,
    opts: LayOptions,
}

fn post(scope: &web_sys::DedicatedWorkerGlobalScope, msg: &js_sys::Object) {
    let _ = scope.post_message(msg);
}

fn progress(scope: &web_sys::DedicatedWorkerGlobalScope, gen: u64, api: Option<&str>, stage: &str) {
    let m = js_sys::Object::new();
    set(&m, "type", "progress");
    set(&m, "gen", gen as f64);
    set(&m, "api", opt_str(api));
    set(&m, "stage", stage);
    post(scope, &m);
}

fn mb(bytes: usize) -> String {
    format!("{:.1} MB", bytes as f64 / 1_048_576.0)
}

fn memory_bytes() -> f64 {
    wasm_bindgen::memory().dyn_into::<js_sys::WebAssembly::Memory>().map(|m| get(&m.buffer(), "byteLength").as_f64().unwrap_or(0.0)).unwrap_or(0.0)
}

fn handle(scope: &web_sys::DedicatedWorkerGlobalScope, loaded: &RefCell<Option<Loaded>>, data: JsValue) {
    let gen = get(&data, "gen").as_f64().unwrap_or(0.0) as u64;
    match get(&data, "type").as_string().as_deref() {
        Some("load") => {
            let mut files = CaseFiles::new();
            let arr: js_sys::Array = get(&data, "files").dyn_into().unwrap_or_default();
            for pair in arr.iter() {
                let pair: js_sys::Array = pair.dyn_into().unwrap_or_default();
                let (Some(path), Ok(bytes)) = (pair.get(0).as_string(), pair.get(1).dyn_into::<js_sys::Uint8Array>()) else { continue };
                files.insert(path, bytes.to_vec());
            }
            let opts = LayOptions { continue_only: get(&data, "continueOnly").as_bool().unwrap_or(false), now_ms: get(&data, "nowMs").as_f64() };
            *loaded.borrow_mut() = Some(Loaded { gen, files, opts });
        }
        Some("assemble") => {
            let api = get(&data, "api").as_string();
            let guard = loaded.borrow();
            let Some(l) = guard.as_ref().filter(|l| l.gen == gen) else { return };
            let start = js_sys::Date::now();
            let session = l.files.get("session.jsonl").map(Vec::len).unwrap_or(0);
            let total: usize = l.files.values().map(Vec::len).sum();
            progress(scope, gen, api.as_deref(), &format!("laying out {} files ({})", l.files.len(), mb(total)));
            let (inputs, notes) = inputs_of(&l.files, l.opts, api.as_deref());
            let what = if session > 0 { format!("parsing a {} session and assembling", mb(session)) } else { "assembling".into() };
            progress(scope, gen, api.as_deref(), &what);
            let mut assembly = ctxlens::assemble(&inputs);
            drop(inputs);
            // Problems reading the case come first: they explain the rest.
            let mut diags = notes;
            diags.append(&mut assembly.diagnostics);
            assembly.diagnostics = diags;
            progress(scope, gen, api.as_deref(), "writing the report");
            let json = ctxlens::report::assembly_json(&assembly).to_json();
            drop(assembly);
            let m = js_sys::Object::new();
            set(&m, "type", "report");
            set(&m, "gen", gen as f64);
            set(&m, "api", opt_str(api.as_deref()));
            set(&m, "json", json.as_str());
            set(&m, "ms", js_sys::Date::now() - start);
            set(&m, "memoryBytes", memory_bytes());
            post(scope, &m);
        }
        Some("catalog") => {
            let models: Vec<Value> = ctxlens::data::catalog()
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|m| {
                            let r = format!("{}/{}", m.get_str("provider")?, m.get_str("id")?);
                            Some(
                                Object::new()
                                    .with("ref", r)
                                    .with("name", m.get_str("name").unwrap_or(""))
                                    .with("api", m.get_str("api").unwrap_or(""))
                                    .with("reasoning", m.get("reasoning").is_some_and(Value::truthy))
                                    .into(),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            let m = js_sys::Object::new();
            set(&m, "type", "catalog");
            set(&m, "json", Value::Array(models).to_json().as_str());
            post(scope, &m);
        }
        _ => {}
    }
}

/// The worker's entry point: listen, then say so.
pub fn run() {
    let Ok(scope) = js_sys::global().dyn_into::<web_sys::DedicatedWorkerGlobalScope>() else {
        web_sys::console::error_1(&"ctxlens-worker must run in a dedicated worker".into());
        return;
    };
    let loaded: Rc<RefCell<Option<Loaded>>> = Rc::new(RefCell::new(None));
    let s = scope.clone();
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| handle(&s, &loaded, e.data()));
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let tools: Vec<Value> = ctxlens::data::tools().as_array().map(|a| a.iter().filter_map(|t| t.get_str("name").map(Value::str)).collect()).unwrap_or_default();
    let m = js_sys::Object::new();
    set(&m, "type", "ready");
    set(&m, "builtinTools", Value::Array(tools).to_json().as_str());
    post(&scope, &m);
}

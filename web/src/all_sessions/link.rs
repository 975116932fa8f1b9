//! The messages between the page and the worker that reads a sessions folder, both ways, in
//! one place: what each side sends is made and read here ([`ToJob`], [`FromJob`]), and the
//! page's handle on that worker ([`JobLink`]).

use std::rc::Rc;

use gloo_events::EventListener;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use ctxlens::analysis::ledger::GroupBy;

use crate::worker::{get, opt_str, set};

/// How the report groups and filters the calls (`ctxlens usage --by --since --until`).
#[derive(Clone, Debug, PartialEq)]
pub struct Grouping {
    pub by: GroupBy,
    /// UTC days, `YYYY-MM-DD` (or none).
    pub since: Option<String>,
    pub until: Option<String>,
}

impl Default for Grouping {
    fn default() -> Self {
        Grouping {
            by: GroupBy::Day,
            since: None,
            until: None,
        }
    }
}

impl Grouping {
    fn put(&self, m: &js_sys::Object) {
        set(m, "by", self.by.as_str());
        set(m, "since", opt_str(self.since.as_deref()));
        set(m, "until", opt_str(self.until.as_deref()));
    }

    fn read(m: &JsValue) -> Grouping {
        let day = |k: &str| {
            get(m, k)
                .as_string()
                .filter(|d| ctxlens::analysis::ledger::valid_date(d))
        };
        Grouping {
            by: get(m, "by")
                .as_string()
                .and_then(|b| GroupBy::parse(&b))
                .unwrap_or(GroupBy::Day),
            since: day("since"),
            until: day("until"),
        }
    }
}

/// What the page asks of the worker.
#[derive(Debug)]
pub enum ToJob {
    /// Read these session files (their paths below the chosen folder, and the browser's
    /// handles: the worker reads one file at a time), in this order; `job` names the run.
    Start {
        job: u64,
        files: Vec<(String, web_sys::File)>,
        grouping: Grouping,
    },
    /// The report again, grouped another way (at once, mid-run too).
    Regroup(Grouping),
    /// Stop after the call being rebuilt; what was read stays in the report.
    Cancel,
}

impl ToJob {
    pub fn to_js(&self) -> js_sys::Object {
        let m = js_sys::Object::new();
        match self {
            ToJob::Start {
                job,
                files,
                grouping,
            } => {
                set(&m, "type", "usageStart");
                set(&m, "job", *job as f64);
                let list = js_sys::Array::new();
                for (path, file) in files {
                    list.push(&js_sys::Array::of2(&JsValue::from_str(path), file));
                }
                set(&m, "files", list);
                grouping.put(&m);
            }
            ToJob::Regroup(g) => {
                set(&m, "type", "usageRegroup");
                g.put(&m);
            }
            ToJob::Cancel => set(&m, "type", "usageCancel"),
        }
        m
    }

    pub fn from_js(m: &JsValue) -> Option<ToJob> {
        match get(m, "type").as_string()?.as_str() {
            "usageStart" => {
                let list: js_sys::Array = get(m, "files").dyn_into().ok()?;
                let files = list
                    .iter()
                    .filter_map(|pair| {
                        let pair: js_sys::Array = pair.dyn_into().ok()?;
                        Some((pair.get(0).as_string()?, pair.get(1).dyn_into().ok()?))
                    })
                    .collect();
                Some(ToJob::Start {
                    job: get(m, "job").as_f64().unwrap_or(0.0) as u64,
                    files,
                    grouping: Grouping::read(m),
                })
            }
            "usageRegroup" => Some(ToJob::Regroup(Grouping::read(m))),
            "usageCancel" => Some(ToJob::Cancel),
            _ => None,
        }
    }
}

/// Where a run is.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Progress {
    /// Files done, of `files`.
    pub files_done: usize,
    pub files: usize,
    /// The file being read, and its calls rebuilt so far of its calls.
    pub file: String,
    pub calls_done: usize,
    pub calls: usize,
    /// What is happening (reading, rebuilding, fetching a release's data).
    pub stage: String,
    /// The worker's wasm memory (bytes): it never shrinks, so this is its peak so far.
    pub memory: f64,
}

/// What the worker says.
#[derive(Clone, Debug, PartialEq)]
pub enum FromJob {
    Progress {
        job: u64,
        progress: Progress,
    },
    /// The report so far (`ctxlens usage --json`'s), with notes on how it was made; `done`
    /// once every file is read (or the run was cancelled: `cancelled`).
    Report {
        job: u64,
        json: String,
        notes: Vec<String>,
        done: bool,
        cancelled: bool,
        /// [`Progress::memory`] when it was sent.
        memory: f64,
    },
}

impl FromJob {
    pub fn to_js(&self) -> js_sys::Object {
        let m = js_sys::Object::new();
        match self {
            FromJob::Progress { job, progress: p } => {
                set(&m, "type", "usageProgress");
                set(&m, "job", *job as f64);
                set(&m, "filesDone", p.files_done as f64);
                set(&m, "files", p.files as f64);
                set(&m, "file", p.file.as_str());
                set(&m, "callsDone", p.calls_done as f64);
                set(&m, "calls", p.calls as f64);
                set(&m, "stage", p.stage.as_str());
                set(&m, "memory", p.memory);
            }
            FromJob::Report {
                job,
                json,
                notes,
                done,
                cancelled,
                memory,
            } => {
                set(&m, "type", "usageReport");
                set(&m, "memory", *memory);
                set(&m, "job", *job as f64);
                set(&m, "json", json.as_str());
                let list: js_sys::Array = notes.iter().map(|n| JsValue::from_str(n)).collect();
                set(&m, "notes", list);
                set(&m, "done", *done);
                set(&m, "cancelled", *cancelled);
            }
        }
        m
    }

    pub fn from_js(m: &JsValue) -> Option<FromJob> {
        let n = |k: &str| get(m, k).as_f64().unwrap_or(0.0) as usize;
        let s = |k: &str| get(m, k).as_string().unwrap_or_default();
        let job = get(m, "job").as_f64().unwrap_or(0.0) as u64;
        match get(m, "type").as_string()?.as_str() {
            "usageProgress" => Some(FromJob::Progress {
                job,
                progress: Progress {
                    files_done: n("filesDone"),
                    files: n("files"),
                    file: s("file"),
                    calls_done: n("callsDone"),
                    calls: n("calls"),
                    stage: s("stage"),
                    memory: get(m, "memory").as_f64().unwrap_or(0.0),
                },
            }),
            "usageReport" => Some(FromJob::Report {
                job,
                json: s("json"),
                notes: js_sys::Array::from(&get(m, "notes"))
                    .iter()
                    .filter_map(|x| x.as_string())
                    .collect(),
                done: get(m, "done").as_bool().unwrap_or(false),
                cancelled: get(m, "cancelled").as_bool().unwrap_or(false),
                memory: get(m, "memory").as_f64().unwrap_or(0.0),
            }),
            _ => None,
        }
    }
}

/// The page's handle on its own worker for a sessions folder (another instance of the
/// worker script, so the request on screen stays responsive while a folder is read). What is
/// sent before the worker says it is ready waits for it.
pub struct JobLink {
    worker: web_sys::Worker,
    /// `None` once the worker is ready.
    waiting: Rc<std::cell::RefCell<Option<Vec<js_sys::Object>>>>,
    _listeners: [EventListener; 2],
}

impl Drop for JobLink {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}

impl JobLink {
    /// Starts the worker; `on_message` gets what it says, `on_crash` why it stopped.
    pub fn start(
        on_message: Rc<dyn Fn(FromJob)>,
        on_crash: Rc<dyn Fn(String)>,
    ) -> Result<JobLink, String> {
        let opts = web_sys::WorkerOptions::new();
        opts.set_type(web_sys::WorkerType::Module);
        let worker = web_sys::Worker::new_with_options("./worker.js", &opts)
            .map_err(|e| format!("could not start the worker: {e:?}"))?;
        let waiting: Rc<std::cell::RefCell<Option<Vec<js_sys::Object>>>> =
            Rc::new(std::cell::RefCell::new(Some(Vec::new())));
        let (w, queue) = (worker.clone(), waiting.clone());
        let on_msg = EventListener::new(&worker, "message", move |e| {
            let Some(data) = e.dyn_ref::<web_sys::MessageEvent>().map(|e| e.data()) else {
                return;
            };
            if get(&data, "type").as_string().as_deref() == Some("ready") {
                for m in queue.borrow_mut().take().unwrap_or_default() {
                    let _ = w.post_message(&m);
                }
            } else if let Some(m) = FromJob::from_js(&data) {
                on_message(m);
            }
        });
        let opts = gloo_events::EventListenerOptions::enable_prevent_default();
        let on_err = EventListener::new_with_options(&worker, "error", opts, move |e| {
            e.prevent_default();
            on_crash(
                get(e, "message")
                    .as_string()
                    .unwrap_or_else(|| "the worker stopped".into()),
            );
        });
        Ok(JobLink {
            worker,
            waiting,
            _listeners: [on_msg, on_err],
        })
    }

    pub fn send(&self, m: &ToJob) {
        let m = m.to_js();
        if let Some(queue) = self.waiting.borrow_mut().as_mut() {
            queue.push(m);
            return;
        }
        if let Err(e) = self.worker.post_message(&m) {
            web_sys::console::error_2(&"ctxlens: could not reach the worker".into(), &e);
        }
    }
}

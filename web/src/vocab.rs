//! Token vocabularies in the worker. Each vocabulary is its own same-origin wasm module,
//! `tokenizers/<name>.wasm` (built from `ctxlens-tokens` with one vocabulary each; copied into
//! the build by Trunk's post_build hook), fetched the first time a report on screen needs it —
//! only that one, once per page — and instantiated with `WebAssembly` (no imports).
//!
//! The module's ABI: an exported `memory`; `ctx_alloc(len) -> ptr`, `ctx_free(ptr, len)`,
//! `ctx_count(ptr, len) -> tokens` of the UTF-8 text at `ptr` (`0xFFFFFFFF` when it is not
//! UTF-8), `ctx_name(out, cap) -> len` (the vocabulary's name, written at `out`).
//! [`Counter`] is the core's [`TokenCounter`] over those exports.
//!
//! A module remembers the count of every text it counted (by a hash of the text and its
//! length): the same texts recur in every protocol's request, in a what-if's and in the calls
//! rebuilt, and are counted once. [`Recorder`] is the counter that only looks there and lists
//! what is not yet counted, so the worker can count those in slices of time
//! (`worker::count_missing`) and answer the page between them.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

use ctxlens::tokens::{TokenCounter, TokenizerInfo};
use js_sys::{Function, Object, Promise, Reflect, Uint8Array, WebAssembly};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The module's path, relative to the worker's script (beside the page: same origin).
pub fn asset_path(name: &str) -> String {
    format!("tokenizers/{name}.wasm")
}

/// A vocabulary's name for people (`qwen2` → `Qwen`), for "loading the Qwen vocabulary…".
pub fn label(name: &str) -> String {
    match name {
        "o200k_base" => "OpenAI o200k_base".into(),
        "cl100k_base" => "OpenAI cl100k_base".into(),
        "qwen2" => "Qwen".into(),
        "deepseek_v3" => "DeepSeek V3".into(),
        "llama3" => "Llama 3".into(),
        "mistral_v3" => "Mistral (Tekken)".into(),
        "kimi_k2" => "Kimi K2".into(),
        "glm4" => "GLM-4".into(),
        "glm5" => "GLM-5".into(),
        "minimax_m2" => "MiniMax M2".into(),
        "gemma3" => "Gemma 3".into(),
        other => other.into(),
    }
}

fn js_err(e: JsValue) -> String {
    e.as_string()
        .or_else(|| {
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| format!("{e:?}"))
}

fn get(o: &JsValue, k: &str) -> JsValue {
    Reflect::get(o, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED)
}

fn method(o: &JsValue, k: &str) -> Result<Function, String> {
    get(o, k)
        .dyn_into::<Function>()
        .map_err(|_| format!("no `{k}`"))
}

/// An export's `i32` result as the `u32` the ABI means.
fn as_u32(v: &JsValue) -> Option<u32> {
    v.as_f64().map(|x| x as i64 as u32)
}

/// One instantiated vocabulary module.
pub struct VocabModule {
    pub name: String,
    /// The module's size in bytes, as fetched.
    pub bytes: u32,
    memory: WebAssembly::Memory,
    alloc: Function,
    free: Function,
    count: Function,
    /// Counts already made: a text's key ([`key`]) → its tokens.
    memo: RefCell<HashMap<Key, u32>>,
}

/// A text as the memo knows it: a 64-bit hash of its bytes and its length. Two texts of the same
/// length whose hashes collide would share a count: for a million texts, a chance of about one
/// in thirty million.
type Key = (u64, usize);

/// The memo holds at most this many counts (then it starts again: a bound on its memory).
const MEMO_ENTRIES: usize = 1 << 21;

fn key(text: &str) -> Key {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    (h.finish(), text.len())
}

impl VocabModule {
    /// Fetches `tokenizers/<name>.wasm` (streamed: `progress(loaded, total)` as bytes come;
    /// `total` from `Content-Length`, when the server says it), compiles and instantiates it and
    /// checks that it is the vocabulary asked for. The error says what failed, for the page.
    pub async fn load(
        scope: &web_sys::DedicatedWorkerGlobalScope,
        name: &str,
        progress: &dyn Fn(f64, Option<f64>),
    ) -> Result<VocabModule, String> {
        let path = asset_path(name);
        let r = JsFuture::from(scope.fetch_with_str(&path))
            .await
            .map_err(|e| format!("{path} could not be fetched ({})", js_err(e)))?;
        let status = get(&r, "status").as_f64().unwrap_or(0.0);
        if get(&r, "ok").as_bool() != Some(true) {
            return Err(if status == 404.0 {
                format!("{path} is not part of this build (HTTP 404)")
            } else {
                format!("{path}: HTTP {status}")
            });
        }
        let headers = get(&r, "headers");
        let total = method(&headers, "get")
            .ok()
            .and_then(|f| f.call1(&headers, &"content-length".into()).ok())
            .and_then(|v| v.as_string())
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|n| *n > 0.0);
        // The body, chunk by chunk, so the page can show how far it got.
        let body = get(&r, "body");
        let mut chunks: Vec<Uint8Array> = Vec::new();
        let mut loaded: u32 = 0;
        progress(0.0, total);
        let read_err = |e: JsValue| format!("{path}: the download stopped ({})", js_err(e));
        if body.is_object() {
            let reader = method(&body, "getReader")?.call0(&body).map_err(read_err)?;
            let read = method(&reader, "read")?;
            loop {
                let p: Promise = read
                    .call0(&reader)
                    .map_err(read_err)?
                    .dyn_into()
                    .map_err(read_err)?;
                let step = JsFuture::from(p).await.map_err(read_err)?;
                if get(&step, "done").as_bool() == Some(true) {
                    break;
                }
                let Ok(chunk) = get(&step, "value").dyn_into::<Uint8Array>() else {
                    return Err(format!(
                        "{path}: the download sent something that is not bytes"
                    ));
                };
                loaded = loaded.saturating_add(chunk.length());
                chunks.push(chunk);
                progress(loaded as f64, total);
            }
        } else {
            // No streamed body (an old engine): the whole of it at once.
            let buf = JsFuture::from(
                method(&r, "arrayBuffer")?
                    .call0(&r)
                    .map_err(read_err)?
                    .dyn_into::<Promise>()
                    .map_err(read_err)?,
            )
            .await
            .map_err(read_err)?;
            let chunk = Uint8Array::new(&buf);
            loaded = chunk.length();
            chunks.push(chunk);
            progress(loaded as f64, total);
        }
        let all = Uint8Array::new_with_length(loaded);
        let mut at = 0;
        for c in &chunks {
            all.set(c, at);
            at += c.length();
        }
        drop(chunks);
        let bad = |e: JsValue| format!("{path} is not a usable vocabulary module ({})", js_err(e));
        let module: WebAssembly::Module = JsFuture::from(WebAssembly::compile(&all))
            .await
            .map_err(bad)?
            .dyn_into()
            .map_err(bad)?;
        let instance: WebAssembly::Instance =
            JsFuture::from(WebAssembly::instantiate_module(&module, &Object::new()))
                .await
                .map_err(bad)?
                .dyn_into()
                .map_err(bad)?;
        let exports: JsValue = instance.exports().into();
        let missing = |e: String| format!("{path} is not a vocabulary module: {e}");
        let memory = get(&exports, "memory")
            .dyn_into::<WebAssembly::Memory>()
            .map_err(|_| missing("no exported `memory`".into()))?;
        let m = VocabModule {
            name: name.to_string(),
            bytes: loaded,
            memory,
            alloc: method(&exports, "ctx_alloc").map_err(missing)?,
            free: method(&exports, "ctx_free").map_err(missing)?,
            count: method(&exports, "ctx_count").map_err(missing)?,
            memo: RefCell::new(HashMap::new()),
        };
        let theirs = m.own_name(&method(&exports, "ctx_name").map_err(missing)?)?;
        if theirs != name {
            return Err(format!(
                "{path} holds the vocabulary `{theirs}`, not `{name}`"
            ));
        }
        Ok(m)
    }

    fn buffer(&self) -> JsValue {
        self.memory.buffer()
    }

    fn alloc(&self, len: u32) -> Result<u32, String> {
        let ptr = self
            .alloc
            .call1(&JsValue::NULL, &JsValue::from_f64(len as f64))
            .map_err(js_err)
            .and_then(|v| as_u32(&v).ok_or_else(|| "ctx_alloc gave no address".to_string()))?;
        if ptr == 0 {
            return Err(format!(
                "the {} vocabulary has no memory left for a text of {len} bytes",
                self.name
            ));
        }
        Ok(ptr)
    }

    fn release(&self, ptr: u32, len: u32) {
        let _ = self.free.call2(
            &JsValue::NULL,
            &JsValue::from_f64(ptr as f64),
            &JsValue::from_f64(len as f64),
        );
    }

    /// The name the module says it holds (`ctx_name`).
    fn own_name(&self, ctx_name: &Function) -> Result<String, String> {
        let mut cap = 64u32;
        for _ in 0..2 {
            let out = self.alloc(cap)?;
            let n = ctx_name
                .call2(
                    &JsValue::NULL,
                    &JsValue::from_f64(out as f64),
                    &JsValue::from_f64(cap as f64),
                )
                .map_err(js_err)
                .map(|v| as_u32(&v).unwrap_or(0));
            let text = n.as_ref().ok().filter(|n| **n <= cap).map(|n| {
                Uint8Array::new_with_byte_offset_and_length(&self.buffer(), out, *n).to_vec()
            });
            self.release(out, cap);
            match (n?, text) {
                (_, Some(bytes)) => {
                    return String::from_utf8(bytes)
                        .map_err(|_| "its name is not UTF-8 text".to_string())
                }
                (n, None) => cap = n,
            }
        }
        Err("its name does not fit".into())
    }

    /// The tokens of one text, encoded on its own: remembered, or counted now and remembered.
    pub fn count_one(&self, text: &str) -> Result<usize, String> {
        let k = key(text);
        if let Some(n) = self.memo.borrow().get(&k) {
            return Ok(*n as usize);
        }
        let n = self.encode_count(text)?;
        let mut memo = self.memo.borrow_mut();
        if memo.len() >= MEMO_ENTRIES {
            memo.clear();
        }
        memo.insert(k, n as u32);
        Ok(n)
    }

    /// What the core's statistics name this vocabulary by.
    fn info(&self, exact: bool) -> TokenizerInfo {
        TokenizerInfo {
            name: self.name.clone(),
            exact,
        }
    }

    /// The count of `text` when it was counted before.
    pub fn remembered(&self, text: &str) -> Option<usize> {
        self.memo.borrow().get(&key(text)).map(|n| *n as usize)
    }

    /// The tokens of one text, encoded on its own by the module.
    fn encode_count(&self, text: &str) -> Result<usize, String> {
        if text.is_empty() {
            return Ok(0);
        }
        let len = u32::try_from(text.len()).map_err(|_| "a text over 4 GB".to_string())?;
        let ptr = self.alloc(len)?;
        Uint8Array::new_with_byte_offset_and_length(&self.buffer(), ptr, len)
            .copy_from(text.as_bytes());
        let n = self
            .count
            .call2(
                &JsValue::NULL,
                &JsValue::from_f64(ptr as f64),
                &JsValue::from_f64(len as f64),
            )
            .map_err(|e| {
                format!(
                    "the {} vocabulary failed on a text: {}",
                    self.name,
                    js_err(e)
                )
            });
        self.release(ptr, len);
        match as_u32(&n?) {
            Some(u32::MAX) | None => Err(format!(
                "the {} vocabulary could not read a text (not UTF-8)",
                self.name
            )),
            Some(n) => Ok(n as usize),
        }
    }
}

/// The core's [`TokenCounter`] over a [`VocabModule`]; `progress(done)` (0–1, by bytes) is
/// called now and then while it counts.
pub struct Counter<'a> {
    pub module: &'a VocabModule,
    pub exact: bool,
    pub progress: &'a dyn Fn(f64),
    /// What it counted so far: milliseconds spent in `count`, texts' UTF-8 bytes, tokens.
    pub spent_ms: f64,
    pub bytes: usize,
    pub tokens: usize,
}

impl<'a> Counter<'a> {
    pub fn new(module: &'a VocabModule, exact: bool, progress: &'a dyn Fn(f64)) -> Counter<'a> {
        Counter {
            module,
            exact,
            progress,
            spent_ms: 0.0,
            bytes: 0,
            tokens: 0,
        }
    }
}

impl TokenCounter for Counter<'_> {
    fn info(&self) -> TokenizerInfo {
        self.module.info(self.exact)
    }

    fn count(&mut self, texts: &[&str]) -> Result<Vec<usize>, String> {
        let total: usize = texts.iter().map(|t| t.len()).sum::<usize>().max(1);
        let mut seen = 0usize;
        let mut done = 0usize;
        let start = js_sys::Date::now();
        let mut last = start;
        let mut out = Vec::with_capacity(texts.len());
        for t in texts {
            seen += t.len();
            // What was counted before is not counted again, nor in the figures of this count.
            if let Some(n) = self.module.remembered(t) {
                out.push(n);
                continue;
            }
            let n = self.module.count_one(t)?;
            out.push(n);
            self.tokens += n;
            done += t.len();
            let now = js_sys::Date::now();
            if now - last > 100.0 {
                (self.progress)(seen as f64 / total as f64);
                last = now;
            }
        }
        self.bytes += done;
        self.spent_ms += js_sys::Date::now() - start;
        Ok(out)
    }
}

/// The core's [`TokenCounter`] over a loaded [`VocabModule`] it shares, counting at once (a
/// sessions folder's run, which yields between calls).
pub struct SharedCounter {
    pub module: std::rc::Rc<VocabModule>,
    pub exact: bool,
}

impl TokenCounter for SharedCounter {
    fn info(&self) -> TokenizerInfo {
        self.module.info(self.exact)
    }

    fn count(&mut self, texts: &[&str]) -> Result<Vec<usize>, String> {
        texts.iter().map(|t| self.module.count_one(t)).collect()
    }
}

/// A [`TokenCounter`] that counts nothing: it answers what `module` remembers (0 for the rest)
/// and lists the texts it does not know, once each, for the worker to count in slices of time.
/// When it lists nothing, its pass is the count (every text was remembered).
pub struct Recorder<'a> {
    pub module: &'a VocabModule,
    pub exact: bool,
    /// The texts not yet counted, in the order they were asked for.
    pub missing: Vec<String>,
    seen: HashSet<Key>,
}

impl<'a> Recorder<'a> {
    pub fn new(module: &'a VocabModule, exact: bool) -> Recorder<'a> {
        Recorder {
            module,
            exact,
            missing: Vec::new(),
            seen: HashSet::new(),
        }
    }
}

impl TokenCounter for Recorder<'_> {
    fn info(&self) -> TokenizerInfo {
        self.module.info(self.exact)
    }

    fn count(&mut self, texts: &[&str]) -> Result<Vec<usize>, String> {
        Ok(texts
            .iter()
            .map(|t| match self.module.remembered(t) {
                Some(n) => n,
                None => {
                    if !t.is_empty() && self.seen.insert(key(t)) {
                        self.missing.push(t.to_string());
                    }
                    0
                }
            })
            .collect())
    }
}

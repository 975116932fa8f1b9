//! The app's iframe mode and URL parameters: `index.html?embed=1&case=…&view=…`.
//!
//! The query chooses the files (same-origin URLs, fetched here), the model, thinking level,
//! prompt, protocol, view and stage; `embed=1` drops the header and side panels so the page fits
//! its frame. The view state still goes into the hash as the shell writes it (with the query
//! kept), and on a reload a non-empty hash wins over the query's view parameters, so deep links
//! survive.
//!
//! | parameter | |
//! |---|---|
//! | `embed=1` | no header or settings: the chosen view fills the frame, with a link to the full app |
//! | `case=URL` | a case manifest (`{"files": ["case.json", ...]}`, paths relative to it): a whole case |
//! | `session=URL` | a session (.jsonl); with `case`, it replaces the case's session |
//! | `tools=URL` | a tool set (tools.json or any shape the drop zone takes) |
//! | `context=URL[=folder],…` | AGENTS.md / CLAUDE.md files and the folder (relative to the cwd, or `~/.pi/agent`) each stands for |
//! | `model=`, `thinking=`, `prompt=` | pi's `--model`, `--thinking`, the next prompt |
//! | `protocol=API` | the protocol on screen |
//! | `view=` | a view (`overview`, `request`, `findings`, … or the element's `stats`, `body`, `compare`, `stage`) |
//! | `stage=` | a stage id (`convert-messages`) or its 0-based index |
//! | `whatif=SPEC,…` | the What-if view's changes (`tool:bash,skill:NAME`, `ctxlens whatif`'s specs) |
//!
//! Nothing from another origin is fetched: such a URL is refused with a diagnostic.

use ctxlens::js::{Object, Value};
use ctxlens::trace::StageId;
use ctxlens::Api;
use ctxlens::Diagnostic;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use yew::prelude::*;

use crate::state::{Scenario, ViewState};

#[wasm_bindgen]
extern "C" {
    /// The global `fetch(url, init)`.
    #[wasm_bindgen(js_name = fetch)]
    fn fetch_with_init(url: &str, init: &JsValue) -> js_sys::Promise;
}

/// The query parameters of the page.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params {
    pub embed: bool,
    pub case: Option<String>,
    pub session: Option<String>,
    pub tools: Option<String>,
    /// (URL, folder) pairs.
    pub context: Vec<(String, String)>,
    pub model: Option<String>,
    pub thinking: Option<String>,
    pub prompt: Option<String>,
    pub protocol: Option<String>,
    pub view: Option<String>,
    pub stage: Option<String>,
    pub whatif: Vec<String>,
}

fn decode(s: &str) -> String {
    let s = s.replace('+', " ");
    js_sys::decode_uri_component(&s)
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or(s)
}

impl Params {
    /// Parses a query string (`?a=b&c=d`).
    pub fn parse(search: &str) -> Params {
        let mut p = Params::default();
        for pair in search
            .trim_start_matches('?')
            .split('&')
            .filter(|s| !s.is_empty())
        {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let v = decode(v).trim().to_string();
            let some = || (!v.is_empty()).then(|| v.clone());
            match k {
                "embed" => p.embed = v == "1" || v == "true",
                "case" => p.case = some(),
                "session" | "src" => p.session = some(),
                "tools" => p.tools = some(),
                "context" => {
                    p.context = v
                        .split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(|item| match item.split_once('=') {
                            Some((u, f)) => (u.trim().to_string(), f.trim().to_string()),
                            None => (item.to_string(), String::new()),
                        })
                        .collect()
                }
                "model" => p.model = some(),
                "thinking" => p.thinking = some(),
                "prompt" => p.prompt = Some(v.clone()),
                "protocol" | "api" => p.protocol = some(),
                "view" => p.view = some(),
                "stage" => p.stage = some(),
                "whatif" => {
                    p.whatif = v
                        .split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect()
                }
                _ => {}
            }
        }
        p
    }

    /// Whether the query names any file.
    pub fn has_files(&self) -> bool {
        self.case.is_some()
            || self.session.is_some()
            || self.tools.is_some()
            || !self.context.is_empty()
    }

    /// The view state the query asks for.
    pub fn view_state(&self) -> ViewState {
        let mut v = ViewState {
            api: self.protocol.clone().filter(|a| a.parse::<Api>().is_ok()),
            ..Default::default()
        };
        if let Some(view) = &self.view {
            let (key, compare) = match view.as_str() {
                "stats" => ("overview", false),
                "body" => ("request", false),
                "compare" => ("protocols", true),
                "stage" => ("overview", false),
                other => (other, false),
            };
            v.view = Some(key.to_string());
            v.compare = compare;
        }
        if !self.whatif.is_empty() {
            v.whatif = self.whatif.clone();
            v.view.get_or_insert_with(|| "whatif".into());
        }
        if let Some(stage) = &self.stage {
            v.stage = StageId::ALL
                .iter()
                .position(|s| s.key() == stage)
                .or_else(|| stage.parse().ok())
                .unwrap_or(0);
        }
        v
    }
}

fn location() -> Option<web_sys::Location> {
    web_sys::window().map(|w| w.location())
}

/// The page's query parameters.
pub fn params() -> Params {
    Params::parse(&location().and_then(|l| l.search().ok()).unwrap_or_default())
}

/// Whether the page runs in its iframe mode (`embed=1`).
pub fn active() -> bool {
    params().embed
}

/// The view state to start with: the hash's when it says anything (a deep link, a reload), else
/// the query's.
pub fn initial_view(hash: &str) -> ViewState {
    let from_hash = ViewState::from_hash(hash);
    if from_hash != ViewState::default() {
        return from_hash;
    }
    params().view_state()
}

/// The scenario to start with when the query names files: an empty one while they load (not
/// the demo, which would flash first).
pub fn initial_scenario() -> Option<Scenario> {
    params().has_files().then(|| Scenario {
        name: "loading…".into(),
        ..Default::default()
    })
}

/// A same-origin URL resolved against `base`, or why not.
fn same_origin(what: &str, url: &str, base: &str) -> Result<String, String> {
    let origin = location().and_then(|l| l.origin().ok()).unwrap_or_default();
    let u = web_sys::Url::new_with_base(url, base)
        .map_err(|_| format!("{what}: {url:?} is not a URL"))?;
    if u.origin() != origin {
        return Err(format!("{what}: {} is another origin — ctxlens only loads files from this page's origin ({origin})", u.origin()));
    }
    Ok(u.href())
}

fn js_error(e: JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "failed".into())
}

/// Starts fetching a URL (`mode: "same-origin"`: the browser refuses anything else, redirects
/// included); the request is in flight when this returns.
fn start_fetch(url: &str) -> js_sys::Promise {
    let init = js_sys::Object::new();
    let set = |k: &str, v: &str| {
        js_sys::Reflect::set(&init, &JsValue::from_str(k), &JsValue::from_str(v))
    };
    let _ = set("mode", "same-origin");
    let _ = set("credentials", "same-origin");
    fetch_with_init(url, &init)
}

/// The bytes of a fetch started by [`start_fetch`].
async fn bytes_of(url: &str, request: js_sys::Promise) -> Result<Vec<u8>, String> {
    let resp = JsFuture::from(request)
        .await
        .map_err(|e| format!("{url}: {}", js_error(e)))?;
    let get =
        |k: &str| js_sys::Reflect::get(&resp, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED);
    if get("ok").as_bool() != Some(true) {
        return Err(format!(
            "{url}: HTTP {}",
            get("status").as_f64().unwrap_or(0.0)
        ));
    }
    let f: js_sys::Function = get("arrayBuffer")
        .dyn_into()
        .map_err(|_| format!("{url}: not a response"))?;
    let p: js_sys::Promise = f
        .call0(&resp)
        .map_err(js_error)?
        .dyn_into()
        .map_err(|_| format!("{url}: not a response"))?;
    let buf = JsFuture::from(p)
        .await
        .map_err(|e| format!("{url}: {}", js_error(e)))?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}

async fn fetch_bytes(url: &str) -> Result<Vec<u8>, String> {
    bytes_of(url, start_fetch(url)).await
}

fn base_name(url: &str) -> String {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    decode(path.rsplit('/').next().unwrap_or(path))
}

/// The case manifest's file list.
fn manifest_files(bytes: &[u8]) -> Result<Vec<String>, String> {
    let v = ctxlens::js::parse(&String::from_utf8_lossy(bytes))
        .map_err(|e| format!("case: not a case manifest ({e})"))?;
    let list = match &v {
        Value::Array(a) => a,
        Value::Object(o) => o
            .get("files")
            .and_then(Value::as_array)
            .ok_or("case: the manifest has no \"files\" list")?,
        _ => return Err("case: the manifest must be {\"files\": [\"case.json\", ...]}".into()),
    };
    let mut out = Vec::new();
    for f in list {
        let f = f
            .as_str()
            .ok_or("case: the manifest's files must be paths")?;
        if f.starts_with('/') || f.split('/').any(|s| s == "..") || f.contains(':') {
            return Err(format!("case: {f:?} is not a path inside the case folder"));
        }
        out.push(f.to_string());
    }
    Ok(out)
}

fn header_of(session: &[u8]) -> Option<Value> {
    let text = String::from_utf8_lossy(session);
    let first = text.lines().find(|l| !l.trim().is_empty())?;
    ctxlens::js::parse(first)
        .ok()
        .filter(|v| v.get_str("type") == Some("session"))
}

/// A session's own case skeleton (env.json around its cwd). A page has no key: the scenario asks
/// for the core's placeholder key ([`crate::state::Overrides::placeholder_key`]).
fn skeleton(session: Option<&[u8]>) -> Vec<(String, Vec<u8>)> {
    let header = session.and_then(header_of);
    let cwd = header
        .as_ref()
        .and_then(|h| h.get_str("cwd"))
        .unwrap_or("/home/user/project")
        .to_string();
    let segs: Vec<&str> = cwd.split('/').collect();
    let home = match segs.as_slice() {
        ["", "home" | "Users", name, ..] if !name.is_empty() => format!("/{}/{}", segs[1], name),
        ["", "root", ..] => "/root".into(),
        _ => "/home/user".into(),
    };
    let case = Object::new().with(
        "about",
        "Made by the ctxlens iframe mode from its URL parameters",
    );
    let env = Object::new()
        .with("root", "/")
        .with("home", home.as_str())
        .with("agentDir", format!("{home}/.pi/agent"))
        .with("cwd", cwd.as_str())
        .with("args", Value::Array(Vec::new()));
    vec![
        (
            "embed/case.json".into(),
            Value::Object(case).to_json_pretty(1).into_bytes(),
        ),
        (
            "embed/expected/env.json".into(),
            Value::Object(env).to_json_pretty(2).into_bytes(),
        ),
    ]
}

/// Fetches what the query names and makes the scenario of it. Problems (another origin, HTTP
/// errors, a bad manifest) are the scenario's diagnostics.
pub async fn load(p: Params) -> Scenario {
    let base = location().and_then(|l| l.href().ok()).unwrap_or_default();
    let mut notes: Vec<Diagnostic> = Vec::new();
    let mut note =
        |e: String| notes.push(Diagnostic::error("URL parameters", None, e).skipping("that file"));
    let fetch = |what: &'static str, url: String| {
        let base = base.clone();
        async move {
            let abs = same_origin(what, &url, &base)?;
            fetch_bytes(&abs).await.map(|b| (abs, b))
        }
    };

    // The case (manifest, then its files).
    let mut case_files: Vec<(String, Vec<u8>)> = Vec::new();
    if let Some(url) = p.case.clone() {
        match fetch("case", url).await {
            Ok((abs, bytes)) => match manifest_files(&bytes) {
                Ok(list) => {
                    // Every request in flight first, then each awaited.
                    let mut started = Vec::new();
                    for rel in list {
                        match same_origin("case", &rel, &abs) {
                            Ok(u) => {
                                let request = start_fetch(&u);
                                started.push((rel, u, request));
                            }
                            Err(e) => note(e),
                        }
                    }
                    for (rel, u, request) in started {
                        match bytes_of(&u, request).await {
                            Ok(b) => case_files.push((format!("case/{rel}"), b)),
                            Err(e) => note(e),
                        }
                    }
                }
                Err(e) => note(e),
            },
            Err(e) => note(e),
        }
    }
    let mut loose: Vec<(String, Vec<u8>)> = Vec::new();
    let mut session: Option<Vec<u8>> = None;
    if let Some(url) = p.session.clone() {
        match fetch("session", url).await {
            Ok((abs, b)) => {
                let mut name = base_name(&abs);
                if !name.ends_with(".jsonl") {
                    name.push_str(".jsonl");
                }
                session = Some(b.clone());
                loose.push((name, b));
            }
            Err(e) => note(e),
        }
    }
    if let Some(url) = p.tools.clone() {
        match fetch("tools", url).await {
            Ok((abs, b)) => {
                let mut name = base_name(&abs);
                if !name.ends_with(".json") {
                    name = "tools.json".into();
                }
                loose.push((name, b));
            }
            Err(e) => note(e),
        }
    }
    for (url, folder) in p.context.clone() {
        match fetch("context", url).await {
            Ok((abs, b)) => {
                let name = base_name(&abs);
                let folder = folder.trim_matches('/');
                // The recognizer lays `x/<below>/NAME` at cwd/<below>, and `…/.pi/agent/NAME` in the agent dir.
                let path = match folder {
                    "" | "." => format!("context/{name}"),
                    f if f == "~" || f.starts_with("~/") => format!(
                        "context/{}/{name}",
                        f.trim_start_matches('~').trim_start_matches('/')
                    ),
                    f => format!("context/{f}/{name}"),
                };
                loose.push((path, b));
            }
            Err(e) => note(e),
        }
    }

    let now = js_sys::Date::now();
    let mut sc = Scenario::default();
    if !case_files.is_empty() {
        sc.add_files(case_files, Vec::new(), now);
    } else if p.session.is_some() {
        sc.add_files(skeleton(session.as_deref()), Vec::new(), now);
    }
    if !loose.is_empty() {
        sc.add_files(loose, Vec::new(), now);
    }
    sc.name = p
        .case
        .clone()
        .or_else(|| p.session.clone())
        .map(|u| base_name(&u))
        .unwrap_or_else(|| "embedded".into());
    sc.overrides.model = p.model.clone();
    sc.overrides.thinking = p.thinking.clone();
    sc.overrides.prompt = p.prompt.clone();
    sc.overrides.placeholder_key = true;
    if let Some(a) = p.protocol.as_ref().filter(|a| a.parse::<Api>().is_err()) {
        note(format!(
            "protocol: {a:?} is not one of {}",
            Api::ALL.map(Api::as_str).join(", ")
        ));
    }
    sc.notes.extend(notes);
    sc
}

/// Starts loading what the query names (once, on start); `done` gets the scenario. Also puts
/// the iframe mode's styles on the page.
pub fn start(done: Callback<Scenario>) {
    let p = params();
    if p.embed {
        install_style();
    }
    if p.has_files() {
        wasm_bindgen_futures::spawn_local(async move { done.emit(load(p).await) });
    }
}

fn install_style() {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    if doc.get_element_by_id("ctxlens-embed-style").is_some() {
        return;
    }
    if let (Ok(style), Some(head)) = (doc.create_element("style"), doc.head()) {
        style.set_id("ctxlens-embed-style");
        style.set_text_content(Some(include_str!("embed.css")));
        let _ = head.append_child(&style);
    }
    if let Some(html) = doc.document_element() {
        let class = html.class_name();
        html.set_class_name(format!("{class} ctxlens-embed").trim());
    }
}

/// The full app's URL for this page: the same query without `embed`, the same hash.
fn full_app_url() -> String {
    let Some(l) = location() else {
        return "index.html".into();
    };
    let search = l.search().unwrap_or_default();
    let kept: Vec<&str> = search
        .trim_start_matches('?')
        .split('&')
        .filter(|s| !s.is_empty() && !s.starts_with("embed=") && *s != "embed")
        .collect();
    let q = if kept.is_empty() {
        String::new()
    } else {
        format!("?{}", kept.join("&"))
    };
    format!(
        "{}{q}{}",
        l.pathname().unwrap_or_default(),
        l.hash().unwrap_or_default()
    )
}

#[derive(Properties, PartialEq)]
pub struct EmbedBarProps {
    /// The scenario's name.
    pub name: AttrValue,
    /// The protocol on screen.
    pub api: AttrValue,
}

/// The iframe mode's only chrome: what is on screen and a link to the full app.
#[function_component]
pub fn EmbedBar(p: &EmbedBarProps) -> Html {
    // Re-read on every render: the hash changes as the user moves around.
    let href = full_app_url();
    html! {
        <div class="embed-bar" data-testid="embed-bar">
            <strong>{"ctxlens"}</strong>
            <span class="embed-name" title="what is loaded: a session and its files">{p.name.clone()}</span>
            <span class="embed-api" data-testid="embed-api">{p.api.clone()}</span>
            <a href={href} target="_blank" rel="noopener" data-testid="embed-open">{"Open the full app ↗"}</a>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifests() {
        assert_eq!(
            manifest_files(br#"{"files":["case.json","expected/env.json"]}"#).unwrap(),
            ["case.json", "expected/env.json"]
        );
        assert_eq!(manifest_files(br#"["case.json"]"#).unwrap(), ["case.json"]);
        assert!(manifest_files(br#"{"files":["../x"]}"#).is_err());
        assert!(manifest_files(br#"{"files":["/etc/passwd"]}"#).is_err());
        assert!(manifest_files(br#"{"files":["https://evil.test/x"]}"#).is_err());
        assert!(manifest_files(b"nope").is_err());
    }

    #[test]
    fn skeleton_lays_out_around_the_session() {
        let s = br#"{"type":"session","version":3,"id":"s","timestamp":"2026-11-01T00:00:00.000Z","cwd":"/home/ann/proj"}
{"type":"model_change","id":"a1","parentId":null,"timestamp":"2026-11-01T00:00:00.000Z","provider":"anthropic","modelId":"claude-sonnet-4-5"}
{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-11-01T00:00:01.000Z","message":{"role":"user","content":"hello","timestamp":1761955201000}}
"#;
        let files = skeleton(Some(s));
        let env = ctxlens::js::parse(&String::from_utf8_lossy(&files[1].1)).unwrap();
        assert_eq!(env.get_str("cwd"), Some("/home/ann/proj"));
        assert_eq!(env.get_str("home"), Some("/home/ann"));
        // No key in the files: the scenario asks for the core's placeholder key, so a session on
        // a catalog provider gives its request, and a model chosen by the URL too.
        for model in [None, Some("google/gemini-2.5-pro")] {
            let mut files = files.clone();
            files.push(("embed/session.jsonl".into(), s.to_vec()));
            let mut sc = Scenario::default();
            sc.add_files(files, Vec::new(), 0.0);
            sc.overrides.model = model.map(String::from);
            sc.overrides.prompt = Some("hi".into());
            let build = |sc: &Scenario| {
                let laid = sc.lay_out();
                let (inputs, _) =
                    crate::state::inputs_of(&laid.files, crate::state::LayOptions::of(&laid), None);
                let a = ctxlens::assemble(&inputs);
                a.request
            };
            assert!(build(&sc).is_none(), "{model:?}: no key, no request");
            sc.overrides.placeholder_key = true;
            let r = build(&sc).unwrap_or_else(|| panic!("{model:?}: a request"));
            let host = if model.is_some() {
                "generativelanguage"
            } else {
                "api.anthropic.com"
            };
            assert!(r.url.contains(host), "{model:?}: {}", r.url);
        }
    }
}

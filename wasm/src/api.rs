//! The binding's pure layer: what crosses the boundary is JSON text (options in, the result's
//! metadata out), the session text, and one byte buffer holding every file. No wasm types here,
//! so it is unit-tested natively; `lib.rs` only wraps these functions for wasm-bindgen.
//!
//! Errors returned here (`Err(String)`) are misuse of the API — the JS wrapper turns them into a
//! thrown `Error`. Problems in the user's input are never errors: they come back as diagnostics.

use ctxlens::AssemblyStats;
use std::collections::BTreeMap;
use std::rc::Rc;

use ctxlens::analysis::stats::Stats;
use ctxlens::analysis::whatif::Change;
use ctxlens::calls::CallRef;
use ctxlens::case::{inputs_for_call, CaseFiles};
use ctxlens::js::path::join_path;
use ctxlens::js::{self, utf16_len, Object, Value};
use ctxlens::report::api_types;
use ctxlens::report::wire::Wire;
use ctxlens::session;
use ctxlens::tokens::{TokenCounter, TokenizerInfo, Vocabulary};
use ctxlens::{Api, Pi, PiVersion};
use ctxlens::{Assembly, Diagnostic, Inputs, SourceText, VirtualFs};

/// The result of one assembly: the metadata as JSON text and the body (the body is kept apart
/// so a 40 MB body is not escaped into, and parsed back out of, the JSON).
#[derive(Clone, Debug)]
pub struct Output {
    pub meta: String,
    pub body: Option<String>,
}

fn opts(json: &str) -> Result<Object, String> {
    match js::parse(json) {
        Ok(Value::Object(o)) => Ok(o),
        Ok(_) => Err("options must be a JSON object".into()),
        Err(e) => Err(format!("options are not valid JSON: {e}")),
    }
}

fn opt_str(o: &Object, key: &str) -> Result<Option<String>, String> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.to_string())),
        Some(_) => Err(format!("`{key}` must be a string")),
    }
}

fn opt_f64(o: &Object, key: &str) -> Result<Option<f64>, String> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) if n.is_finite() => Ok(Some(*n)),
        Some(_) => Err(format!("`{key}` must be a finite number")),
    }
}

/// `call`: a call's 1-based index on the active branch (a number), an assistant entry id, or
/// `"next"` (a string).
fn opt_call(o: &Object) -> Result<Option<CallRef>, String> {
    match o.get("call") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) if n.fract() == 0.0 && *n >= 1.0 && *n <= 9.0e15 => {
            Ok(Some(CallRef::Index(*n as usize)))
        }
        Some(Value::Number(_)) => {
            Err("`call` must be a whole number from 1, an entry id or \"next\"".into())
        }
        Some(Value::String(s)) if s.as_str() == "next" => Ok(Some(CallRef::Next)),
        Some(Value::String(s)) if !s.is_empty() => Ok(Some(CallRef::Entry(s.to_string()))),
        Some(_) => Err("`call` must be a whole number from 1, an entry id or \"next\"".into()),
    }
}

/// A protocol option (`api`, `compareWith`): one of the nine.
fn opt_api_named(o: &Object, key: &str) -> Result<Option<Api>, String> {
    opt_str(o, key)?
        .map(|a| {
            a.parse().map_err(|_| {
                format!(
                    "`{key}` must be one of {}; got {a:?}",
                    Api::ALL.map(Api::as_str).join(", ")
                )
            })
        })
        .transpose()
}

/// `piVersion`: the pi release to rebuild (`"1.6.0"`); absent: detected.
fn opt_pi(o: &Object) -> Result<Option<PiVersion>, String> {
    opt_str(o, "piVersion")?
        .map(|v| v.parse::<PiVersion>().map_err(|e| e.to_string()))
        .transpose()
}

fn opt_api(o: &Object) -> Result<Option<Api>, String> {
    opt_api_named(o, "api")
}

/// Splits `blob` into files by the `files` list `[[path, byteLength], ...]` of the options.
fn split_files<'b>(o: &Object, blob: &'b [u8]) -> Result<Vec<(String, &'b [u8])>, String> {
    let list = match o.get("files") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(a)) => a,
        Some(_) => return Err("`files` must be a list of [path, byteLength]".into()),
    };
    let mut out = Vec::with_capacity(list.len());
    let mut at = 0usize;
    for item in list {
        let pair = item.as_array().filter(|p| p.len() == 2);
        let (path, len) = match pair.map(|p| (&p[0], &p[1])) {
            Some((Value::String(path), Value::Number(n))) if *n >= 0.0 && n.fract() == 0.0 => {
                (path, *n as usize)
            }
            _ => return Err("`files` must be a list of [path, byteLength]".into()),
        };
        let end = at
            .checked_add(len)
            .filter(|&e| e <= blob.len())
            .ok_or_else(|| {
                format!("file {path:?}: the byte buffer is shorter than the lengths say")
            })?;
        out.push((path.to_string(), &blob[at..end]));
        at = end;
    }
    if at != blob.len() {
        return Err("the byte buffer is longer than the file lengths say".into());
    }
    Ok(out)
}

/// `assemble(options)`: the options of the JS API (already checked and normalized by the JS
/// wrapper), the session text, and the files' bytes.
pub fn assemble(
    options_json: &str,
    session: Option<ctxlens::js::Str>,
    blob: &[u8],
    tokens: Option<&mut dyn Vocabularies>,
) -> Result<Output, String> {
    let o = opts(options_json)?;
    let inputs = inputs_of_options(&o, session, blob)?;
    run_options(None, &o, inputs, tokens)
}

/// `assemble`'s options made [`Inputs`].
fn inputs_of_options(
    o: &Object,
    session: Option<ctxlens::js::Str>,
    blob: &[u8],
) -> Result<Inputs, String> {
    let d = Inputs::default();
    let home = opt_str(o, "home")?.unwrap_or(d.home.clone());
    let agent_dir = opt_str(o, "agentDir")?.unwrap_or_else(|| join_path(&home, ".pi/agent"));
    let mut files = VirtualFs::new();
    for (path, bytes) in split_files(o, blob)? {
        if !path.starts_with('/') {
            return Err(format!("file paths must be absolute (POSIX); got {path:?}"));
        }
        files.insert(&path, bytes);
    }
    if let Some(models) = opt_str(o, "models")? {
        files.insert(&join_path(&agent_dir, "models.json"), models);
    }
    let args = match o.get("args") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| {
                v.as_str()
                    .map(String::from)
                    .ok_or("`args` must be a list of strings")
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("`args` must be a list of strings".into()),
    };
    let mut env = BTreeMap::new();
    match o.get("env") {
        None | Some(Value::Null) => {}
        Some(Value::Object(e)) => {
            for (k, v) in e.iter() {
                let v = v
                    .as_str()
                    .ok_or_else(|| format!("`env.{k}` must be a string"))?;
                env.insert(k.to_string(), v.to_string());
            }
        }
        Some(_) => return Err("`env` must be an object of strings".into()),
    }
    let session_name = opt_str(o, "sessionPath")?.unwrap_or_else(|| "session.jsonl".into());
    let mut args = args;
    let mut host_diagnostics = Vec::new();
    let extension_tools =
        opt_str(o, "tools")?.map(|text| tool_set_option(text, &mut args, &mut host_diagnostics));
    let inputs = Inputs {
        session: session.map(|text| SourceText {
            name: session_name,
            text,
        }),
        files,
        cwd: opt_str(o, "cwd")?.unwrap_or(d.cwd),
        pi_package_dir: opt_str(o, "piPackageDir")?.unwrap_or(d.pi_package_dir),
        model: opt_str(o, "model")?,
        thinking: opt_str(o, "thinking")?,
        running_pi: opt_bool(o, "runningPi")?,
        args,
        env,
        extension_tools,
        npm_global_root: opt_str(o, "npmGlobalRoot")?,
        prompt: opt_str(o, "prompt")?,
        now_ms: opt_f64(o, "now")?.unwrap_or(0.0),
        system_now_ms: opt_f64(o, "systemNow")?,
        api: opt_api(o)?,
        pi: opt_pi(o)?,
        captured_pi: None,
        installed_pi: None,
        host_diagnostics,
        call: opt_call(o)?,
        session_id: opt_str(o, "sessionId")?,
        user_agent: opt_str(o, "userAgent")?,
        placeholder_key: opt_bool(o, "placeholderKey")?,
        home,
        agent_dir,
    };
    Ok(inputs)
}

/// A workspace: `createWorkspace`'s inputs, read once; the engine that keeps each stage's
/// result for the next call (`ctxlens::Workspace`: the session parsed once, its release
/// detection, the session file per release, the assemblies with their statistics); and the
/// results it has given (the last [`WORKSPACE_KEPT`], by the overrides that made them; never
/// with tokens, whose counts depend on the vocabularies loaded at the time).
struct Workspace {
    inputs: Inputs,
    engine: Rc<ctxlens::Workspace>,
    kept: Vec<(String, Output)>,
}

/// How many results a workspace keeps: the nine protocols.
const WORKSPACE_KEPT: usize = 9;

thread_local! {
    static WORKSPACES: std::cell::RefCell<Vec<Option<Workspace>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `createWorkspace(options)`: the inputs made once; the workspace's handle.
pub fn workspace_new(
    options_json: &str,
    session: Option<ctxlens::js::Str>,
    blob: &[u8],
) -> Result<u32, String> {
    let o = opts(options_json)?;
    let inputs = inputs_of_options(&o, session, blob)?;
    WORKSPACES.with(|w| {
        let mut w = w.borrow_mut();
        let ws = Some(Workspace {
            inputs,
            engine: Rc::new(ctxlens::Workspace::new()),
            kept: Vec::new(),
        });
        match w.iter().position(Option::is_none) {
            Some(i) => {
                w[i] = ws;
                Ok(i as u32)
            }
            None => {
                w.push(ws);
                Ok((w.len() - 1) as u32)
            }
        }
    })
}

/// `ws.assemble(overrides)`: the workspace's inputs with `overrides_json`'s options (the model,
/// thinking level, prompt, call, time, protocol, release, comparison, what-if: each one given
/// or the default `assemble` takes when it is absent) — the result `assemble` gives for the
/// workspace's options with those.
pub fn workspace_assemble(
    handle: u32,
    overrides_json: &str,
    tokens: Option<&mut dyn Vocabularies>,
) -> Result<Output, String> {
    let o = opts(overrides_json)?;
    if tokens.is_none() {
        if let Some(out) = with_workspace(handle, |ws| {
            ws.kept
                .iter()
                .find(|(k, _)| k == overrides_json)
                .map(|(_, out)| out.clone())
        })? {
            return Ok(out);
        }
    }
    let (mut inputs, engine) = with_workspace(handle, |ws| (ws.inputs.clone(), ws.engine.clone()))?;
    inputs.model = opt_str(&o, "model")?;
    inputs.thinking = opt_str(&o, "thinking")?;
    inputs.prompt = opt_str(&o, "prompt")?;
    inputs.call = opt_call(&o)?;
    inputs.now_ms = opt_f64(&o, "now")?.unwrap_or(0.0);
    inputs.system_now_ms = opt_f64(&o, "systemNow")?;
    inputs.api = opt_api(&o)?;
    inputs.pi = opt_pi(&o)?;
    inputs.placeholder_key = opt_bool(&o, "placeholderKey")?;
    let keep = tokens.is_none();
    let out = run_options(Some(engine), &o, inputs, tokens)?;
    // A call that stopped for a release's data is not a result.
    if keep && !out.meta.starts_with("{\"needsData\"") {
        WORKSPACES.with(|w| {
            if let Some(Some(ws)) = w.borrow_mut().get_mut(handle as usize) {
                if ws.kept.len() == WORKSPACE_KEPT {
                    ws.kept.remove(0);
                }
                ws.kept.push((overrides_json.to_string(), out.clone()));
            }
        });
    }
    Ok(out)
}

/// `f` of workspace `handle`, or the error of a freed one.
fn with_workspace<T>(handle: u32, f: impl FnOnce(&Workspace) -> T) -> Result<T, String> {
    WORKSPACES.with(|w| {
        w.borrow()
            .get(handle as usize)
            .and_then(Option::as_ref)
            .map(f)
            .ok_or_else(|| "this workspace was freed".to_string())
    })
}

/// `ws.free()`.
pub fn workspace_free(handle: u32) {
    WORKSPACES.with(|w| {
        if let Some(slot) = w.borrow_mut().get_mut(handle as usize) {
            *slot = None;
        }
    });
}

/// The `tools` option: a tool set in any shape the app and the CLI recognize
/// (`ctxlens::recognize`), converted to pi's, its names made the active tools where it has them;
/// text that is none of those goes to pi's parser as it is, whose diagnostics say what is wrong.
fn tool_set_option(
    text: String,
    args: &mut Vec<String>,
    notes: &mut Vec<Diagnostic>,
) -> SourceText {
    if let Ok(v) = ctxlens::js::parse(&text) {
        if let Some(set) = ctxlens::recognize::tool_set_value("tools", &v, notes) {
            set.activate(args);
            return SourceText {
                name: "tools".into(),
                text: set.json.into(),
            };
        }
    }
    SourceText {
        name: "tools".into(),
        text: text.into(),
    }
}

fn opt_bool(o: &Object, key: &str) -> Result<bool, String> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(format!("`{key}` must be a boolean")),
    }
}

/// `assembleCase(files, options)`: a case folder's files (relative paths) as the oracle lays
/// them out (`ctxlens::case::inputs_from_case`).
pub fn assemble_case(
    options_json: &str,
    blob: &[u8],
    tokens: Option<&mut dyn Vocabularies>,
) -> Result<Output, String> {
    let o = opts(options_json)?;
    let mut files = CaseFiles::new();
    for (path, bytes) in split_files(&o, blob)? {
        files.insert(path.trim_start_matches("./").to_string(), bytes.to_vec());
    }
    let env_dir = opt_str(&o, "envDir")?;
    let mut inputs = inputs_for_call(&files, env_dir.as_deref(), opt_call(&o)?)
        .map_err(|e| format!("not a case folder: {e}"))?;
    if let Some(now) = opt_f64(&o, "now")? {
        inputs.now_ms = now;
    }
    inputs.api = opt_api(&o)?;
    if opt_bool(&o, "placeholderKey")? {
        inputs.placeholder_key = true;
    }
    if let Some(v) = opt_pi(&o)? {
        inputs.pi = Some(v);
    }
    run_options(None, &o, inputs, tokens)
}

/// `compareWith`: a second protocol to compare the body with (the visualizer's compare mode).
/// What the result is compared with (`compareWith`).
pub(crate) enum Compare {
    /// The same inputs under another protocol (`result.comparison`).
    Api(Api),
    /// The same inputs under another release (`result.upgrade`).
    Pi(PiVersion),
    /// The other release's own inputs (a session read from a machine as that release reads it;
    /// the Node build's `assembleSession`).
    #[cfg_attr(not(feature = "node"), allow(dead_code))]
    Inputs(Box<Inputs>),
}

impl Compare {
    fn release(&self, inputs: &Inputs) -> Option<PiVersion> {
        match self {
            Compare::Api(_) => None,
            Compare::Pi(v) => Some(*v),
            Compare::Inputs(i) => {
                Some(i.pi.unwrap_or_else(|| ctxlens::pi::choice::choose(inputs).version))
            }
        }
    }
}

/// `compareWith: API` (the JS side's `{api}`) or `compareWithPi: VERSION` (`{piVersion}`).
fn opt_compare(o: &Object) -> Result<Option<Compare>, String> {
    if let Some(v) = opt_str(o, "compareWithPi")? {
        let v: PiVersion = v
            .parse()
            .map_err(|e: ctxlens::pi::UnknownVersion| format!("`compareWith.piVersion`: {e}"))?;
        return Ok(Some(Compare::Pi(v)));
    }
    Ok(opt_api_named(o, "compareWith")?.map(Compare::Api))
}

/// A what-if (`without`, `set`, `rebuildCalls`): the changes made to the inputs, and how many of
/// the session's calls with usage are rebuilt with them (`None`: none; `Some(None)`: all).
#[derive(Clone)]
pub(crate) struct WhatIfAsk {
    pub changes: Vec<Change>,
    pub rebuild_calls: Option<Option<usize>>,
    /// The inputs the changes apply to when the host read them again as `set: ["pi=…"]`'s
    /// release reads them (the Node build's `assembleSession`); else the inputs with `pi` set.
    #[cfg_attr(not(feature = "node"), allow(dead_code))]
    pub target: Option<Box<Inputs>>,
}

impl WhatIfAsk {
    /// The release a `set: ["pi=…"]` asks for (the last one).
    fn release(&self) -> Option<PiVersion> {
        self.changes.iter().rev().find_map(|c| match c {
            Change::Pi(v) => Some(*v),
            _ => None,
        })
    }
}

/// `without: ["tool:bash", …]`, `set: ["model=…", …]` (the CLI's `--without` and `--set`
/// specs) and `rebuildCalls` (a number, or `"all"`).
pub(crate) fn opt_whatif(o: &Object) -> Result<Option<WhatIfAsk>, String> {
    let list = |key: &str| -> Result<Vec<String>, String> {
        match o.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(a)) => a
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(String::from)
                        .ok_or_else(|| format!("`{key}` must be a list of strings"))
                })
                .collect(),
            Some(_) => Err(format!("`{key}` must be a list of strings")),
        }
    };
    let mut changes = Vec::new();
    for spec in list("without")? {
        changes.push(Change::parse_without(&spec).map_err(|e| format!("`without`: {e}"))?);
    }
    for spec in list("set")? {
        changes.push(Change::parse_set(&spec).map_err(|e| format!("`set`: {e}"))?);
    }
    let rebuild_calls = match o.get("rebuildCalls") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.as_str() == "all" => Some(None),
        Some(Value::Number(n)) if n.fract() == 0.0 && *n >= 0.0 && *n <= 1e9 => {
            Some(Some(*n as usize))
        }
        Some(_) => return Err("`rebuildCalls` must be a whole number or \"all\"".into()),
    };
    if changes.is_empty() {
        if rebuild_calls.is_some() {
            return Err("`rebuildCalls` goes with `without` or `set`".into());
        }
        return Ok(None);
    }
    Ok(Some(WhatIfAsk {
        changes,
        rebuild_calls,
        target: None,
    }))
}

/// A call that waits for a release's data (see [`Output::needs_data`]).
enum Pending {
    /// The workspace's engine (a workspace's call), the inputs, the protocol to compare with,
    /// the what-if, whether tokens were asked for, whether the statistics were left out.
    Assemble(
        Option<Rc<ctxlens::Workspace>>,
        Box<Inputs>,
        Option<Compare>,
        Option<WhatIfAsk>,
        bool,
        bool,
    ),
    Session(String, String),
}

thread_local! {
    /// The calls that stopped for want of a release's data, until [`resume`] runs them.
    static WAITING: std::cell::RefCell<ctxlens::pi::data::Waiting<Pending>> =
        std::cell::RefCell::new(Default::default());
}

/// `{"needsData": "1.6.0"}`: the release this call rebuilds has no data yet. The JS side hands
/// its files over ([`install_data`]) and calls [`resume`], which runs the call as it was.
/// The JS side runs one call at a time, so a call still waiting was given up (its data did not
/// install): it is dropped, and this one waits alone.
fn needs_data(version: PiVersion, pending: Pending) -> Output {
    WAITING.with(|w| {
        let mut w = w.borrow_mut();
        *w = Default::default();
        w.wait(version, pending)
    });
    Output {
        meta: Value::from(Object::new().with("needsData", version.as_str())).to_json(),
        body: None,
    }
}

/// Runs the call [`needs_data`] kept, now that its release's data is installed; `tokens` as the
/// call was given them.
pub fn resume(tokens: Option<&mut dyn Vocabularies>) -> Result<Output, String> {
    let ready = WAITING.with(|w| w.borrow_mut().take_ready());
    match ready.into_iter().next() {
        Some(Pending::Assemble(engine, inputs, compare, whatif, asked, no_stats)) => run(
            engine,
            *inputs,
            compare,
            whatif,
            tokens.filter(|_| asked),
            no_stats,
        ),
        Some(Pending::Session(options, text)) => {
            parse_session(&options, text).map(|meta| Output { meta, body: None })
        }
        None => Err("nothing to resume: no call is waiting for a release's data".into()),
    }
}

/// `installData(version, files)`: a release's data folder (`files`: `[[name, byteLength], ...]`
/// into `blob`, each of [`ctxlens::pi::data::FILES`]), checked and installed for the process.
pub fn install_data(version: &str, options_json: &str, blob: &[u8]) -> Result<(), String> {
    let version: PiVersion = version
        .parse()
        .map_err(|e: ctxlens::pi::UnknownVersion| e.to_string())?;
    let o = opts(options_json)?;
    let files = split_files(&o, blob)?;
    ctxlens::pi::data::install_files(version, &files)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// The releases ctxlens rebuilds, oldest first, with whether their data is installed:
/// `[{version, released, loaded}]`.
pub fn releases() -> String {
    Value::Array(
        PiVersion::ALL
            .iter()
            .map(|v| {
                Object::new()
                    .with("version", v.as_str())
                    .with("released", v.released())
                    .with("loaded", ctxlens::pi::data::is_available(*v))
                    .into()
            })
            .collect(),
    )
    .to_json()
}

/// The vocabularies the host (the npm package's JS side) has loaded, which count texts for a call
/// that asks for tokens.
pub trait Vocabularies {
    /// One count per text with vocabulary `name`, each text encoded on its own; `None` when the
    /// host has not loaded `name`; an error says why the texts could not be counted.
    fn count(&mut self, name: &str, texts: &[&str]) -> Option<Result<Vec<usize>, String>>;
    /// The vocabularies the host ships: the note of a call whose model's vocabulary is not one
    /// of them says so.
    fn shipped(&self) -> Vec<String>;
    /// The module the host's user imports `loadVocabulary` from (the note of a call whose
    /// vocabulary is not loaded says to).
    fn entry(&self) -> String;
}

/// The [`TokenCounter`] the core counts through, over the host's vocabulary `info.name`.
struct HostCounter<'v> {
    host: &'v mut dyn Vocabularies,
    info: TokenizerInfo,
    not_loaded: bool,
}

impl TokenCounter for HostCounter<'_> {
    fn info(&self) -> TokenizerInfo {
        self.info.clone()
    }
    fn count(&mut self, texts: &[&str]) -> Result<Vec<usize>, String> {
        match self.host.count(&self.info.name, texts) {
            Some(r) => r,
            None => {
                self.not_loaded = true;
                Err(format!("the {} vocabulary is not loaded", self.info.name))
            }
        }
    }
}

/// The stats with tokens, as the CLI and the app make them ([`ctxlens::tokens::count`]: the
/// model's vocabulary when the host has it loaded, else Claude's estimate calibrated on the
/// session's usage), and what the result says of the tokens (`meta.tokens`): `{vocabulary, exact,
/// estimate, why, counted, notLoaded, error, window, calibration, notes}` — the vocabulary the
/// model needs (null: none public; `estimate` names the estimate that applies), whether the
/// stats' `tokens` are counted (or estimated), and if not, why. The session's calls are rebuilt
/// only for an estimate (`Calls::ForEstimate`).
fn count_tokens(
    a: &Assembly,
    inputs: &Inputs,
    host: &mut dyn Vocabularies,
) -> (Value, Option<Stats>) {
    let vocabulary = ctxlens::tokens::vocabulary_of(a);
    let (shipped, entry) = (host.shipped(), host.entry());
    let mut counter = match &vocabulary {
        Some(Vocabulary::Known { name, exact, .. }) => Some(HostCounter {
            host,
            info: TokenizerInfo {
                name: name.clone(),
                exact: *exact,
            },
            not_loaded: false,
        }),
        _ => None,
    };
    let counted = ctxlens::tokens::count(
        inputs,
        a,
        Ok(counter.as_mut().map(|c| c as &mut dyn TokenCounter)),
        ctxlens::tokens::Calls::ForEstimate,
        None,
    );
    let outcome = api_types::TokensOutcome {
        vocabulary: vocabulary.as_ref(),
        counted: counted.as_ref(),
        not_loaded: counter.as_ref().is_some_and(|c| c.not_loaded),
    };
    let host = api_types::TokensHost {
        shipped: &shipped,
        entry: &entry,
    };
    let info = api_types::tokens_info(&outcome, &host);
    (info.to_value(), counted.map(|c| c.stats))
}

/// [`run`] with what an entry point's options ask for besides the inputs: `compareWith`, the
/// what-if (`without`, `set`, `rebuildCalls`) and `stats: false` (`noStats`).
fn run_options(
    engine: Option<Rc<ctxlens::Workspace>>,
    o: &Object,
    inputs: Inputs,
    tokens: Option<&mut dyn Vocabularies>,
) -> Result<Output, String> {
    run(
        engine,
        inputs,
        opt_compare(o)?,
        opt_whatif(o)?,
        tokens,
        opt_bool(o, "noStats")?,
    )
}

/// One call of the API: `engine` the workspace's (`None`: one made for this call, so its
/// assemblies still read the session once); `no_stats`: the request without the accounting of
/// its body (`stats: false`; the JS side refuses it with tokens, a comparison or a what-if).
pub(crate) fn run(
    engine: Option<Rc<ctxlens::Workspace>>,
    inputs: Inputs,
    compare_with: Option<Compare>,
    whatif: Option<WhatIfAsk>,
    mut tokens: Option<&mut dyn Vocabularies>,
    no_stats: bool,
) -> Result<Output, String> {
    let engine = engine.unwrap_or_else(|| Rc::new(ctxlens::Workspace::new()));
    let ws = &*engine;
    // The release compared with needs its data too, and a what-if's other release.
    let also = [
        compare_with.as_ref().and_then(|c| c.release(&inputs)),
        whatif.as_ref().and_then(|w| w.release()),
    ];
    if let Some(version) = ws.missing_release(&inputs, also.into_iter().flatten()) {
        let asked = tokens.is_some();
        let pending = Pending::Assemble(
            Some(engine),
            Box::new(inputs),
            compare_with,
            whatif,
            asked,
            no_stats,
        );
        return Ok(needs_data(version, pending));
    }
    // A what-if: the request as it is, and the changes applied to the inputs (another
    // release's as that release reads them); the result is the changed request's.
    let (inputs, base) = match &whatif {
        None => (inputs, None),
        Some(w) => {
            let (changed, base) = WhatIfBase::of(ws, inputs, w)?;
            (changed, Some(base))
        }
    };
    let inputs = &inputs;
    let mut a = assembled(ws, inputs, tokens.is_some(), no_stats);
    let tokens_meta = tokens.as_deref_mut().map(|host| {
        let (tokens, stats) = count_tokens(&a, inputs, host);
        // Not counted (the vocabulary not loaded, none public): the characters alone.
        let stats = stats.or_else(|| ctxlens::analysis::stats::compute(&a));
        Rc::make_mut(&mut a).set_stats(stats);
        tokens
    });
    let mut meta = meta_json(&a, inputs);
    if let Value::Object(o) = &mut meta {
        if let Some(t) = tokens_meta {
            o.insert("tokens", t);
        }
        if let Some(c) = compare_with {
            let (key, v) = comparison(ws, &a, inputs, c, tokens.as_deref_mut());
            o.insert(key, v);
        }
        if let (Some(base), Some(w)) = (base, &whatif) {
            o.insert("whatif", base.compared(ws, &a, w, tokens));
        }
    }
    Ok(Output {
        meta: meta.to_json(),
        // The body moved out when this call holds the only reference (the workspace keeps
        // none), else copied.
        body: match Rc::try_unwrap(a) {
            Ok(a) => a.request.map(|r| r.body),
            Err(a) => a.body().map(String::from),
        },
    })
}

/// The request of `inputs`: with tokens asked for, a fresh one (its statistics computed once,
/// with the counts); with `no_stats`, one without the accounting; else the workspace's kept
/// assembly (its statistics with it).
fn assembled(
    ws: &ctxlens::Workspace,
    inputs: &Inputs,
    tokens: bool,
    no_stats: bool,
) -> Rc<Assembly> {
    match tokens {
        // The request alone (not kept: the kept ones carry their statistics).
        false if no_stats => {
            // No accounting asked for: the slot holds none, so nothing makes it later.
            let mut a = ws.assemble_fresh(inputs);
            a.set_stats(None);
            Rc::new(a)
        }
        true => {
            let mut a = ws.assemble_fresh(inputs);
            // The params tree is the body before serialization; nothing below reads it (the
            // body is the bytes), so it is freed before the analysis allocates.
            if let Some(r) = &mut a.request {
                r.params = Value::Null;
            }
            Rc::new(a)
        }
        false => ws.assemble(inputs),
    }
}

/// The request `a` (of `inputs`) beside another: another protocol's (`comparison`), or
/// another release's or other inputs' (`upgrade`, counted with tokens as `a` was).
fn comparison(
    ws: &ctxlens::Workspace,
    a: &Assembly,
    inputs: &Inputs,
    with: Compare,
    tokens: Option<&mut (dyn Vocabularies + '_)>,
) -> (&'static str, Value) {
    let bi = match with {
        Compare::Api(api) => {
            let b = ws.assemble(&Inputs {
                api: Some(api),
                ..inputs.clone()
            });
            let c = ctxlens::analysis::compare::compare(a, &b);
            return ("comparison", ctxlens::report::compare::to_json(&c));
        }
        Compare::Inputs(i) => *i,
        Compare::Pi(v) => Inputs {
            pi: Some(v),
            ..inputs.clone()
        },
    };
    // Under the other release, with tokens as the result's were counted.
    let mut b = ws.assemble_fresh(&bi);
    let stats = match tokens {
        Some(host) => count_tokens(&b, &bi, host).1,
        None => None,
    }
    .or_else(|| ctxlens::analysis::stats::compute(&b));
    b.set_stats(stats);
    let u = ctxlens::analysis::upgrade::upgrade(a, &b, a.stats(), b.stats());
    ("upgrade", ctxlens::report::upgrade::to_json(&u))
}

/// A what-if's request as it is: the inputs asked for, those the changes were applied to
/// (another release's, for `pi=`), its assembly and what the changes found.
struct WhatIfBase {
    inputs: Inputs,
    target: Inputs,
    base: Rc<Assembly>,
    applied: Vec<ctxlens::analysis::whatif::Applied>,
}

impl WhatIfBase {
    /// The inputs with `w`'s changes made, and the request as it is.
    fn of(
        ws: &ctxlens::Workspace,
        inputs: Inputs,
        w: &WhatIfAsk,
    ) -> Result<(Inputs, WhatIfBase), String> {
        // Kept by the workspace with its statistics; counted again when tokens are.
        let base = ws.assemble(&inputs);
        let target = match (&w.target, w.release()) {
            (Some(t), _) => (**t).clone(),
            (None, Some(v)) => Inputs {
                pi: Some(v),
                ..inputs.clone()
            },
            (None, None) => inputs.clone(),
        };
        let (changed, applied) = ctxlens::analysis::whatif::apply(&target, &base, &w.changes)?;
        Ok((
            changed,
            WhatIfBase {
                inputs,
                target,
                base,
                applied,
            },
        ))
    }

    /// The what-if's JSON: the request as it is beside `a` (the changed one), counted as `a`
    /// was, and with `w.rebuild_calls` the session's calls rebuilt both ways.
    fn compared(
        self,
        ws: &ctxlens::Workspace,
        a: &Assembly,
        w: &WhatIfAsk,
        mut tokens: Option<&mut (dyn Vocabularies + '_)>,
    ) -> Value {
        let WhatIfBase {
            inputs,
            target,
            mut base,
            applied,
        } = self;
        // The request as it is, counted as the changed one was (without tokens: as kept).
        if let Some(host) = tokens.as_deref_mut() {
            let stats = count_tokens(&base, &inputs, host)
                .1
                .or_else(|| base.stats().cloned());
            Rc::make_mut(&mut base).set_stats(stats);
        }
        let cmp = ctxlens::analysis::whatif::compare(applied, &base, a, base.stats(), a.stats());
        let session = w.rebuild_calls.map(|max| {
            // Each rebuilt call counted with the model's vocabulary when the host has it (as
            // the CLI's whatif: no estimate per call).
            let mut count = |_: &Inputs, x: &Assembly| -> Option<usize> {
                let host = tokens.as_deref_mut()?;
                let Some(Vocabulary::Known { name, exact, .. }) = ctxlens::tokens::vocabulary_of(x)
                else {
                    return None;
                };
                let mut c = HostCounter {
                    host,
                    info: TokenizerInfo { name, exact },
                    not_loaded: false,
                };
                ctxlens::analysis::stats::sums(x, Some(&mut c))
                    .ok()
                    .flatten()
                    .map(|s| s.total_tokens())
            };
            ctxlens::analysis::whatif::session(
                ws,
                &inputs,
                &target,
                &w.changes,
                &base,
                Some(max.unwrap_or(usize::MAX)),
                &mut count,
            )
        });
        ctxlens::report::whatif::to_json(&cmp, session.as_ref())
    }
}

fn meta_json(a: &Assembly, inputs: &Inputs) -> Value {
    let diagnostics = diagnostics(&a.diagnostics, &|name| source_text(inputs, name));
    ctxlens::report::assembly_result(a, diagnostics).to_value()
}

/// The text of an input file by the name a diagnostic gives it, for UTF-16 offsets.
fn source_text<'i>(inputs: &'i Inputs, name: &str) -> Option<std::borrow::Cow<'i, str>> {
    if let Some(s) = inputs.session.as_ref().filter(|s| s.name == name) {
        return Some(s.text.as_str().into());
    }
    if let Some(t) = inputs.extension_tools.as_ref().filter(|s| s.name == name) {
        return Some(t.text.as_str().into());
    }
    if name.starts_with('/') {
        return inputs.files.get(name).map(String::from_utf8_lossy);
    }
    None
}

/// Diagnostics as JSON: where a diagnostic has a line in a text we hold, `start`/`end` are that
/// line's span in UTF-16 code units (JS string indices), without its line break.
fn diagnostics<'i>(
    diags: &[ctxlens::Diagnostic],
    text_of: &dyn Fn(&str) -> Option<std::borrow::Cow<'i, str>>,
) -> Vec<ctxlens::report::types::Diagnostic> {
    // One pass per file over the lines that are asked for.
    let mut wanted: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    for d in diags {
        if let Some(l) = d.line {
            wanted.entry(d.file.as_str()).or_default().push(l);
        }
    }
    let mut spans: BTreeMap<(&str, u32), (usize, usize)> = BTreeMap::new();
    for (file, mut lines) in wanted {
        let Some(text) = text_of(file) else { continue };
        lines.sort_unstable();
        lines.dedup();
        let mut want = lines.into_iter().peekable();
        let mut offset16 = 0usize;
        for (i, line) in text.split('\n').enumerate() {
            let n = i as u32 + 1;
            let len16 = utf16_len(line);
            if want.peek() == Some(&n) {
                let visible = utf16_len(line.strip_suffix('\r').unwrap_or(line));
                spans.insert((file, n), (offset16, offset16 + visible));
                want.next();
                if want.peek().is_none() {
                    break;
                }
            }
            offset16 += len16 + 1;
        }
    }
    diags
        .iter()
        .map(|d| {
            let mut typed = ctxlens::report::types::Diagnostic::from(d);
            let span = d.line.and_then(|l| spans.get(&(d.file.as_str(), l)));
            if let Some(&(start, end)) = span {
                typed.start = Some(start).into();
                typed.end = Some(end).into();
            }
            typed
        })
        .collect()
}

/// `parseSession(text, options)`: the session's entries as a tree, its active branch and the
/// settings it carries, with diagnostics.
pub fn parse_session(options_json: &str, text: String) -> Result<String, String> {
    let o = opts(options_json)?;
    let name = opt_str(&o, "path")?.unwrap_or_else(|| "session.jsonl".into());
    let src = SourceText {
        name,
        text: text.into(),
    };
    let inputs = Inputs {
        session: Some(src.clone()),
        pi: opt_pi(&o)?,
        ..Inputs::default()
    };
    let choice = ctxlens::pi::choice::choose(&inputs);
    if !ctxlens::pi::data::is_available(choice.version) {
        let text = src.text.as_str().to_string();
        return Ok(needs_data(
            choice.version,
            Pending::Session(options_json.to_string(), text),
        )
        .meta);
    }
    let pi = Pi::new(choice.version).map_err(|e| e.to_string())?;
    let file = session::parse(&pi, &src);
    let mut events = ctxlens::trace::Events::default();
    let mut diags = file.diagnostics.clone();
    let ctx = session::build_context(&pi, &file, &mut events, &mut diags);
    use ctxlens::report::api_types::{ModelRef, ReleaseChoice, SessionTree};
    let tree = SessionTree {
        pi: ReleaseChoice {
            version: choice.version,
            reason: choice.reason,
            explanation: choice.explain(),
        },
        session_id: file.session_id().map(str::to_string),
        cwd: file.cwd().map(str::to_string),
        version: file.original_version as usize,
        entries: ctxlens::report::entry_nodes(Some(&pi), &file, &ctx),
        leaf_id: ctx.leaf_id.clone(),
        branch: ctx.path_ids(&file),
        messages: ctx.messages.len(),
        model: ctx.model.as_ref().map(|(provider, id)| ModelRef {
            provider: provider.clone(),
            id: id.clone(),
        }),
        thinking_level: ctx.thinking_level.clone(),
        compaction_id: ctx.compaction_id.clone(),
        calls: ctxlens::calls::calls_on(&file, &ctx.path_indices, true)
            .iter()
            .map(ctxlens::report::types::Call::from)
            .collect(),
        diagnostics: diagnostics(&diags, &|n| {
            (n == src.name).then(|| src.text.as_str().into())
        }),
    };
    Ok(tree.to_value().to_json())
}

/// The protocols pi has adapters for.
pub fn protocols() -> Vec<String> {
    Api::ALL.iter().map(|a| a.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misuse_is_an_error_with_a_message() {
        assert!(assemble("[]", None, &[], None)
            .unwrap_err()
            .contains("JSON object"));
        assert!(assemble("{", None, &[], None)
            .unwrap_err()
            .contains("not valid JSON"));
        assert!(assemble(r#"{"api":"nope"}"#, None, &[], None)
            .unwrap_err()
            .contains("one of"));
        assert!(assemble(r#"{"files":[["/a",3]]}"#, None, b"ab", None)
            .unwrap_err()
            .contains("shorter"));
        assert!(assemble(r#"{"files":[["/a",1]]}"#, None, b"ab", None)
            .unwrap_err()
            .contains("longer"));
        assert!(assemble(r#"{"files":[["rel",1]]}"#, None, b"a", None)
            .unwrap_err()
            .contains("absolute"));
        assert!(assemble(r#"{"args":[1]}"#, None, &[], None).is_err());
        assert!(assemble(r#"{"now":"x"}"#, None, &[], None).is_err());
        assert!(assemble_case("{}", &[], None)
            .unwrap_err()
            .contains("case.json"));
        assert!(parse_session("5", String::new()).is_err());
        assert!(assemble(r#"{"compareWith":"nope"}"#, None, &[], None)
            .unwrap_err()
            .contains("compareWith"));
    }

    #[test]
    fn call_picks_a_call_and_is_checked() {
        let session = concat!(
            r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-05T09:00:00.000Z","cwd":"/p"}"#,
            "\n",
            r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-05T09:00:01.000Z","message":{"role":"user","content":"q","timestamp":1}}"#,
            "\n",
            r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-05T09:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"r"}],"provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":7,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":9},"stopReason":"stop","timestamp":2}}"#,
            "\n",
        );
        let options = r#"{"env":{"ANTHROPIC_API_KEY":"k"},"call":"a1"}"#;
        let out = assemble(options, Some(session.into()), &[], None).unwrap();
        let meta = js::parse(&out.meta).unwrap();
        let call = meta.get("call").expect("the call rebuilt");
        assert_eq!(call.get_str("chosen"), Some("entry"));
        assert_eq!(
            call.get("usage")
                .and_then(|u| u.get("input"))
                .and_then(Value::as_f64),
            Some(7.0)
        );
        assert_eq!(
            meta.get("calls").and_then(Value::as_array).map(Vec::len),
            Some(1)
        );
        assert!(out.body.is_some_and(|b| b.contains(r#""q""#)));
        for bad in [
            r#"{"call":0}"#,
            r#"{"call":1.5}"#,
            r#"{"call":true}"#,
            r#"{"call":""}"#,
        ] {
            assert!(
                assemble(bad, None, &[], None)
                    .unwrap_err()
                    .contains("`call` must be"),
                "{bad}"
            );
        }
    }

    #[test]
    fn compare_with_adds_the_comparison() {
        let out = assemble(r#"{"model":"anthropic/claude-sonnet-4-5","env":{"ANTHROPIC_API_KEY":"k"},"prompt":"hi","compareWith":"openai-responses"}"#, None, &[], None).unwrap();
        let meta = js::parse(&out.meta).unwrap();
        let c = meta.get("comparison").expect("comparison");
        assert_eq!(
            c.get("a").and_then(|a| a.get_str("api")),
            Some("anthropic-messages")
        );
        assert_eq!(
            c.get("b").and_then(|b| b.get_str("api")),
            Some("openai-responses")
        );
        assert!(c
            .get("mapping")
            .and_then(Value::as_array)
            .is_some_and(|m| !m.is_empty()));
        let plain = assemble(r#"{"prompt":"hi"}"#, None, &[], None).unwrap();
        assert!(js::parse(&plain.meta).unwrap().get("comparison").is_none());
    }

    #[test]
    fn compare_with_a_release_adds_the_upgrade() {
        let out = assemble(r#"{"model":"anthropic/claude-sonnet-4-5","env":{"ANTHROPIC_API_KEY":"k"},"prompt":"hi","piVersion":"0.85.1","compareWithPi":"1.6.0"}"#, None, &[], None).unwrap();
        let meta = js::parse(&out.meta).unwrap();
        let u = meta.get("upgrade").expect("upgrade");
        assert_eq!(u.get_str("from"), Some("0.85.1"));
        assert_eq!(u.get_str("to"), Some("1.6.0"));
        assert_eq!(u.get("identical"), Some(&Value::Bool(false)));
        assert!(u.get("firstChange").and_then(|f| f.get("byte")).is_some());
        assert!(u
            .get("rules")
            .and_then(Value::as_array)
            .is_some_and(|r| !r.is_empty()));
        assert!(meta.get("comparison").is_none());
        let err = assemble(
            r#"{"prompt":"hi","compareWithPi":"9.9.9"}"#,
            None,
            &[],
            None,
        )
        .err()
        .unwrap();
        assert!(err.contains("compareWith.piVersion"), "{err}");
    }

    #[test]
    fn no_model_is_a_diagnostic_not_an_error() {
        let out = assemble(r#"{"prompt":"hi"}"#, None, &[], None).unwrap();
        assert!(out.body.is_none());
        let meta = js::parse(&out.meta).unwrap();
        assert!(meta.get("url").unwrap().is_null());
        assert!(!meta
            .get("diagnostics")
            .unwrap()
            .as_array()
            .unwrap()
            .is_empty());
    }

    #[test]
    fn diagnostics_carry_utf16_line_spans() {
        let text = "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"cwd\":\"/p\"}\n\u{1F600}é\nnot json\n".to_string();
        let json = parse_session(r#"{"path":"/s.jsonl"}"#, text).unwrap();
        let v = js::parse(&json).unwrap();
        let diags = v.get("diagnostics").unwrap().as_array().unwrap();
        let d = diags
            .iter()
            .find(|d| d.get("line").and_then(Value::as_f64) == Some(3.0))
            .expect("line 3 reported");
        // Line 1 is 50 units + \n; line 2 is 😀 (2 units) + é (1 unit) + \n.
        assert_eq!(d.get("start").and_then(Value::as_f64), Some(55.0));
        assert_eq!(d.get("end").and_then(Value::as_f64), Some(63.0));
    }

    #[test]
    fn files_are_split_from_one_buffer() {
        let o = opts(r#"{"files":[["/a",2],["/b",0],["/c",1]]}"#).unwrap();
        let f = split_files(&o, b"xyz").unwrap();
        assert_eq!(
            f,
            vec![
                ("/a".to_string(), &b"xy"[..]),
                ("/b".to_string(), &b""[..]),
                ("/c".to_string(), &b"z"[..])
            ]
        );
    }

    /// The host's vocabularies in a test: o200k_base (ctxlens-tokens, natively), or none, or
    /// one that fails.
    enum Host {
        O200k,
        Nothing,
        Broken,
    }

    impl Vocabularies for Host {
        fn count(&mut self, name: &str, texts: &[&str]) -> Option<Result<Vec<usize>, String>> {
            use ctxlens_tokens::Tokenizer;
            match self {
                Host::O200k if name == "o200k_base" => {
                    let v = ctxlens_tokens::builtin(name).unwrap();
                    Some(texts.iter().map(|t| v.count(t)).collect())
                }
                Host::O200k | Host::Nothing => None,
                Host::Broken => Some(Err("the module trapped".into())),
            }
        }

        fn shipped(&self) -> Vec<String> {
            vec!["o200k_base".into(), "cl100k_base".into()]
        }

        fn entry(&self) -> String {
            "ctxlens".into()
        }
    }

    const GPT5: &str =
        r#"{"model":"openai/gpt-5","env":{"OPENAI_API_KEY":"k"},"prompt":"hello there"}"#;

    fn tokens_of(out: &Output) -> (Value, Value) {
        let meta = js::parse(&out.meta).unwrap();
        (
            meta.get("tokens").cloned().unwrap_or(Value::Null),
            meta.get("stats").cloned().unwrap(),
        )
    }

    #[test]
    fn tokens_are_counted_with_the_models_vocabulary_when_the_host_has_it() {
        let plain = assemble(GPT5, None, &[], None).unwrap();
        let (t, stats) = tokens_of(&plain);
        assert!(t.is_null(), "no tokens asked: no `tokens`");
        assert!(stats.get("tokenizer").unwrap().is_null());

        let counted = assemble(GPT5, None, &[], Some(&mut Host::O200k)).unwrap();
        let (t, stats) = tokens_of(&counted);
        assert_eq!(t.get_str("vocabulary"), Some("o200k_base"));
        assert_eq!(t.get("counted"), Some(&Value::Bool(true)));
        assert_eq!(
            stats.get("tokenizer").and_then(|k| k.get_str("name")),
            Some("o200k_base")
        );
        // The user's text is "hello there": its one message's tokens are o200k's own count.
        let history = stats.get("history").unwrap();
        assert_eq!(history.get("tokens").and_then(Value::as_f64), Some(2.0));
        assert!(
            stats
                .get("systemPrompt")
                .and_then(|s| s.get("tokens"))
                .and_then(Value::as_f64)
                .unwrap()
                > 100.0
        );
        assert_eq!(
            plain.body, counted.body,
            "counting changes nothing of the body"
        );

        // The vocabulary not loaded: the note says how to load it, from the host's module.
        let (t, stats) = tokens_of(&assemble(GPT5, None, &[], Some(&mut Host::Nothing)).unwrap());
        assert_eq!(t.get("counted"), Some(&Value::Bool(false)));
        assert_eq!(
            t.get_str("note"),
            Some("tokens not counted: the model's vocabulary, o200k_base, is not loaded: `await loadVocabulary(\"o200k_base\")` (from \"ctxlens\"), then call again")
        );
        assert!(stats.get("tokenizer").unwrap().is_null());

        let (t, _) = tokens_of(&assemble(GPT5, None, &[], Some(&mut Host::Broken)).unwrap());
        assert_eq!(t.get("counted"), Some(&Value::Bool(false)));
        assert_eq!(
            t.get_str("note"),
            Some("tokens not counted: the module trapped")
        );
        // The result's `tokens` reads back as the generated type, all of it.
        let info = api_types::TokensInfo::from_value(&t).expect("a TokensInfo");
        assert_eq!(info.to_value().to_json(), t.to_json());
    }

    /// Claude: no public vocabulary, none loaded (the host's o200k is not its); with no usage to
    /// calibrate on, pi's own estimate, said as one.
    #[test]
    fn a_model_without_a_public_vocabulary_gets_pis_own_estimate() {
        let options = r#"{"model":"anthropic/claude-sonnet-4-5","env":{"ANTHROPIC_API_KEY":"k"},"prompt":"hi"}"#;
        let (t, stats) = tokens_of(&assemble(options, None, &[], Some(&mut Host::O200k)).unwrap());
        assert!(t.get("vocabulary").unwrap().is_null());
        assert_eq!(t.get_str("estimate"), Some("claude"));
        assert_eq!(t.get("counted"), Some(&Value::Bool(true)));
        let tokenizer = stats.get("tokenizer").unwrap();
        assert_eq!(tokenizer.get_str("name"), Some("estimate"));
        assert_eq!(tokenizer.get("exact"), Some(&Value::Bool(false)));
        assert!(t.to_json().contains("pi's own estimate"), "{}", t.to_json());
    }
}

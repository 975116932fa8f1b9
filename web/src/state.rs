//! The app's state as data.
//!
//! A [`Scenario`] is what the user gave: a case folder (the bundled demo, an opened case) and/or
//! loose files (a session, AGENTS.md files, skills, a tool set, models.json, images), plus their
//! [`Overrides`] from the settings panel. [`Scenario::lay_out`] turns it into one case folder in
//! the oracle's layout — the same thing the CLI reads and the export writes — so
//! `ctxlens::case::inputs_from_case` makes the `Inputs` for every path through the app.
//!
//! [`ViewState`] is what the URL hash holds (protocol, view, stage, selection); never user data.

use ctxlens::case::{find_env_dir, inputs_from_case, CaseFiles};
use ctxlens::js::path::{join_path, normalize_path};
use ctxlens::js::{self, Object, Value};
use ctxlens::{Diagnostic, Inputs};

use crate::inputs::recognize::{base_name, find_case, recognize, FileKind};
use crate::inputs::Collected;

/// What the settings panel changes. `None` = as the scenario says.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overrides {
    pub cwd: Option<String>,
    pub agent_dir: Option<String>,
    pub pi_package_dir: Option<String>,
    /// `provider/id` (pi's `--model`).
    pub model: Option<String>,
    pub thinking: Option<String>,
    /// The active tools (`--tools a,b`; empty = `--no-tools`).
    pub tools: Option<Vec<String>>,
    /// `--system-prompt` (empty = remove it).
    pub system_prompt: Option<String>,
    /// `--append-system-prompt` (empty = remove it).
    pub append_system_prompt: Option<String>,
    /// The next prompt; `Some("")` = continue after tool results (no new user message).
    pub prompt: Option<String>,
    /// The pi release to rebuild (the picker); `None`: the capture's, else the one the session
    /// proves, else the newest.
    pub pi: Option<ctxlens::PiVersion>,
    /// The model call to rebuild (the call picker: the K-th call on the active branch, 1-based);
    /// `None`: the next request.
    pub call: Option<usize>,
}

/// A dropped file that is not part of a case folder, with what it is.
#[derive(Clone, Debug)]
pub struct LooseFile {
    pub path: String,
    pub bytes: Vec<u8>,
    pub kind: FileKind,
}

/// Everything the user gave.
#[derive(Clone, Debug, Default)]
pub struct Scenario {
    pub name: String,
    /// A case folder (relative path → bytes), when one was opened.
    pub case: Option<CaseFiles>,
    /// Loose files, in the order they came; a later file of the same role replaces an earlier one.
    pub loose: Vec<LooseFile>,
    pub overrides: Overrides,
    /// `Date.now()` for a scenario without a capture (when it was made).
    pub now_ms: f64,
    /// What recognising the files found (unreadable files, skipped folders, ...).
    pub notes: Vec<Diagnostic>,
}

/// The scenario laid out as a case folder, ready for the worker.
#[derive(Clone, Debug, Default)]
pub struct Laid {
    pub files: CaseFiles,
    /// No new user message: continue after tool results.
    pub continue_only: bool,
    /// `Date.now()` when the case has no capture to take it from.
    pub now_ms: Option<f64>,
    /// The pi release asked for ([`Overrides::pi`]).
    pub pi: Option<ctxlens::PiVersion>,
    /// The call asked for ([`Overrides::call`]).
    pub call: Option<usize>,
    /// The env.json values before the overrides (the settings panel's placeholders).
    pub base: EnvView,
    pub notes: Vec<Diagnostic>,
    /// The names the core gives laid-out loose files (absolute paths, `tools.json`) → the path
    /// the user dropped them with.
    pub origins: std::collections::BTreeMap<String, String>,
}

/// The values of a case's env.json the settings panel shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EnvView {
    pub root: String,
    pub home: String,
    pub cwd: String,
    pub agent_dir: String,
    pub pi_package_dir: String,
    pub model: String,
    pub thinking: String,
    pub prompt: String,
    pub args: Vec<String>,
    /// `provider/id` of every model the scenario's models.json defines.
    pub custom_models: Vec<String>,
}

const ENV_FILE: &str = "expected/env.json";
const PI_PACKAGE_DIR: &str = "/usr/lib/node_modules/@earendil-works/pi-coding-agent";

fn file_text(files: &CaseFiles, path: &str) -> Option<String> {
    files
        .get(path)
        .map(|b| String::from_utf8_lossy(b).into_owned())
}

/// The header of a session (its first line), if it is one.
fn session_header(text: &str) -> Option<Value> {
    let first = text.lines().find(|l| !l.trim().is_empty())?;
    js::parse(first)
        .ok()
        .filter(|v| v.get_str("type") == Some("session"))
}

/// The bytes up to the end of the first line that is not blank.
fn first_line(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    let end = bytes[start..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| start + i);
    &bytes[..end]
}

/// `$HOME` for a cwd: `/home/NAME`, `/Users/NAME`, `/root`, else `/home/user`.
fn home_for(cwd: &str) -> String {
    let segs: Vec<&str> = cwd.split('/').collect();
    match segs.as_slice() {
        ["", "home" | "Users", name, ..] if !name.is_empty() => format!("/{}/{}", segs[1], name),
        ["", "root", ..] => "/root".into(),
        _ => "/home/user".into(),
    }
}

/// The `provider/id` of each model a models.json defines.
pub fn custom_models(text: &str) -> Vec<String> {
    let Ok(v) = js::parse(text) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(providers) = v.get("providers").and_then(Value::as_object) {
        for (p, conf) in providers.iter() {
            for m in conf
                .get("models")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(id) = m.get_str("id") {
                    out.push(format!("{p}/{id}"));
                }
            }
        }
    }
    out
}

/// Removes `flag VALUE` pairs (and the bare `flag`) from an argv.
fn remove_flag(args: &mut Vec<String>, flags: &[&str], takes_value: bool) {
    let mut i = 0;
    while i < args.len() {
        if flags.contains(&args[i].as_str()) {
            let n = if takes_value && i + 1 < args.len() {
                2
            } else {
                1
            };
            args.drain(i..i + n);
        } else {
            i += 1;
        }
    }
}

impl Scenario {
    /// The bundled demo.
    pub fn demo() -> Scenario {
        Scenario {
            name: "demo (a captured pi session)".into(),
            case: Some(crate::demo::files()),
            ..Default::default()
        }
    }

    /// Adds what was dropped or chosen. A case folder replaces the scenario; loose files are added
    /// to it (laid out in its folders), replacing files of the same role.
    pub fn add_files(&mut self, files: Vec<(String, Vec<u8>)>, skipped: Vec<String>, now_ms: f64) {
        self.add_collected(
            Collected {
                files,
                skipped,
                notes: Vec::new(),
            },
            now_ms,
        );
    }

    /// [`Scenario::add_files`], with what reading the files found (an archive that could not be
    /// opened in full) among the scenario's notes.
    pub fn add_collected(&mut self, collected: Collected, now_ms: f64) {
        let Collected {
            files,
            skipped,
            notes: found,
        } = collected;
        let mut notes = found;
        for s in &skipped {
            notes.push(Diagnostic::info(s.as_str(), None, "not read").skipping(s.as_str()));
        }
        if let Some((prefix, case, others)) = find_case(&files) {
            if others > 0 {
                notes.push(Diagnostic::warning(
                    format!("{prefix}/"),
                    None,
                    format!(
                        "{others} more case.json below this folder: only the top case is opened"
                    ),
                ));
            }
            let name = if prefix.is_empty() {
                "case folder".to_string()
            } else {
                base_name(&prefix).to_string()
            };
            *self = Scenario {
                name,
                case: Some(case),
                now_ms,
                notes,
                ..Default::default()
            };
            return;
        }
        let mut ignored = Vec::new();
        for (path, bytes) in files {
            let kind = recognize(&path, &bytes, &mut notes);
            if let FileKind::Ignored { why } = &kind {
                ignored.push(format!("{path} ({why})"));
                continue;
            }
            if self.case.is_none() && self.loose.is_empty() {
                self.name = base_name(&path).to_string();
            }
            self.loose.push(LooseFile { path, bytes, kind });
        }
        if !ignored.is_empty() {
            let shown: Vec<&str> = ignored.iter().take(8).map(String::as_str).collect();
            let more = if ignored.len() > 8 {
                format!(" and {} more", ignored.len() - 8)
            } else {
                String::new()
            };
            notes.push(
                Diagnostic::info(
                    "dropped files",
                    None,
                    format!(
                        "{} file(s) left out: {}{more}",
                        ignored.len(),
                        shown.join(", ")
                    ),
                )
                .skipping(format!("{} file(s)", ignored.len())),
            );
        }
        if self.now_ms == 0.0 {
            self.now_ms = now_ms;
        }
        self.notes.extend(notes);
    }

    /// A pasted session.
    pub fn add_pasted_session(&mut self, text: String, now_ms: f64) {
        self.add_files(
            vec![("pasted-session.jsonl".into(), text.into_bytes())],
            Vec::new(),
            now_ms,
        );
    }

    /// The scenario as one case folder in the oracle's layout, with the overrides applied.
    pub fn lay_out(&self) -> Laid {
        let mut notes = Vec::new();
        let mut files = self.case.clone().unwrap_or_default();
        let had_case = self.case.is_some();
        let latest =
            |pred: &dyn Fn(&FileKind) -> bool| self.loose.iter().rev().find(|f| pred(&f.kind));
        let loose_session = latest(&|k| *k == FileKind::Session);

        // env.json: the capture's, or one made for loose files.
        let env_path = match find_env_dir(&files) {
            Some(d) if !d.is_empty() => format!("{d}/env.json"),
            Some(_) => "env.json".into(),
            None => ENV_FILE.into(),
        };
        let case_json = file_text(&files, "case.json")
            .and_then(|t| js::parse(&t).ok())
            .unwrap_or_else(Value::object);
        let mut env: Object = match file_text(&files, &env_path).map(|t| js::parse(&t)) {
            Some(Ok(Value::Object(o))) => o,
            Some(_) => {
                notes.push(Diagnostic::error(
                    env_path.as_str(),
                    None,
                    "env.json is not a JSON object: made a new one",
                ));
                Object::new()
            }
            None if had_case => {
                // An oracle case without a capture: lay it out the way the oracle does.
                let root = "/tmp/pi-ctx-demo";
                let mut o = Object::new()
                    .with("root", root)
                    .with("home", format!("{root}/home"))
                    .with("agentDir", format!("{root}/home/.pi/agent"));
                o.insert(
                    "cwd",
                    Value::str(join_path(root, case_json.get_str("cwd").unwrap_or(""))),
                );
                for k in ["model", "thinking", "prompt"] {
                    if let Some(v) = case_json.get(k) {
                        o.insert(k, v.clone());
                    }
                }
                o.insert(
                    "args",
                    case_json
                        .get("args")
                        .cloned()
                        .unwrap_or(Value::Array(Vec::new())),
                );
                notes.push(Diagnostic::info("case.json", None, "the case has no capture (expected/env.json): laid out at /tmp/pi-ctx-demo as the oracle does"));
                o
            }
            None => {
                // Only the first line is read (a session can be tens of megabytes).
                let header = loose_session
                    .and_then(|s| session_header(&String::from_utf8_lossy(first_line(&s.bytes))));
                let cwd = header
                    .as_ref()
                    .and_then(|h| h.get_str("cwd"))
                    .unwrap_or("/home/user/project")
                    .to_string();
                let home = home_for(&cwd);
                let mut o = Object::new()
                    .with("root", "/")
                    .with("home", home.as_str())
                    .with("agentDir", format!("{home}/.pi/agent"))
                    .with("cwd", cwd.as_str());
                o.insert("piPackageDir", Value::str(PI_PACKAGE_DIR));
                if let Some(id) = header.as_ref().and_then(|h| h.get_str("id")) {
                    o.insert("sessionId", Value::str(id));
                }
                o.insert("args", Value::Array(Vec::new()));
                o
            }
        };
        let s = |o: &Object, k: &str| o.get_str(k).unwrap_or("").to_string();
        let mut args: Vec<String> = env
            .get_array("args")
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        let root = s(&env, "root");
        let base = EnvView {
            home: if env.contains_key("home") {
                s(&env, "home")
            } else {
                format!("{root}/home")
            },
            agent_dir: if env.contains_key("agentDir") {
                s(&env, "agentDir")
            } else {
                format!("{root}/home/.pi/agent")
            },
            cwd: if env.contains_key("cwd") {
                s(&env, "cwd")
            } else {
                root.clone()
            },
            pi_package_dir: if env.contains_key("piPackageDir") {
                s(&env, "piPackageDir")
            } else {
                PI_PACKAGE_DIR.into()
            },
            model: env
                .get_str("model")
                .or_else(|| case_json.get_str("model"))
                .unwrap_or("")
                .to_string(),
            thinking: env
                .get_str("thinking")
                .or_else(|| case_json.get_str("thinking"))
                .unwrap_or("")
                .to_string(),
            prompt: if had_case {
                // `"prompt": null` (an export of a continue): no new user message.
                match env.get("prompt") {
                    Some(Value::Null) => String::new(),
                    _ => env.get_str("prompt").unwrap_or("go on").to_string(),
                }
            } else {
                String::new()
            },
            args: args.clone(),
            root,
            custom_models: Vec::new(),
        };

        // The overrides.
        let o = &self.overrides;
        let set = |env: &mut Object, k: &str, v: &Option<String>| {
            if let Some(v) = v.as_ref().map(|v| v.trim()).filter(|v| !v.is_empty()) {
                env.insert(k, Value::str(v));
            }
        };
        set(&mut env, "cwd", &o.cwd.as_ref().map(|c| normalize_path(c)));
        set(
            &mut env,
            "agentDir",
            &o.agent_dir.as_ref().map(|c| normalize_path(c)),
        );
        set(&mut env, "piPackageDir", &o.pi_package_dir);
        set(&mut env, "model", &o.model);
        set(&mut env, "thinking", &o.thinking);
        let prompt = o.prompt.clone().unwrap_or_else(|| base.prompt.clone());
        let continue_only = prompt.is_empty();
        if !continue_only {
            env.insert("prompt", Value::str(prompt));
        }
        if let Some(tools) = &o.tools {
            remove_flag(&mut args, &["--tools", "-t"], true);
            remove_flag(&mut args, &["--no-tools", "-nt"], false);
            if tools.is_empty() {
                args.push("--no-tools".into());
            } else {
                args.push("--tools".into());
                args.push(tools.join(","));
            }
        }
        for (flag, v) in [
            ("--system-prompt", &o.system_prompt),
            ("--append-system-prompt", &o.append_system_prompt),
        ] {
            if let Some(v) = v {
                remove_flag(&mut args, &[flag], true);
                if !v.is_empty() {
                    args.push(flag.into());
                    args.push(v.clone());
                }
            }
        }

        // Loose files, laid out relative to the (overridden) cwd and agent dir.
        let root = s(&env, "root");
        let cwd = env
            .get_str("cwd")
            .map(String::from)
            .unwrap_or_else(|| root.clone());
        let fs_path = |abs: &str| -> Option<String> {
            let abs = normalize_path(abs);
            let rel = if root == "/" {
                abs.strip_prefix('/').map(String::from)
            } else {
                abs.strip_prefix(&format!("{root}/")).map(String::from)
            };
            rel.map(|r| format!("fs/{r}"))
        };
        let mut tools_active: Option<Vec<String>> = None;
        // Case path → the dropped file it came from (diagnostics name the user's file).
        let mut placed: Vec<(String, String)> = Vec::new();
        for f in &self.loose {
            let segs: Vec<&str> = f.path.split('/').collect();
            let name = base_name(&f.path);
            // Inside a dropped folder: the path below the folder itself.
            let inner = if segs.len() > 1 {
                segs[1..].join("/")
            } else {
                name.to_string()
            };
            let under_agent = f
                .path
                .find(".pi/agent/")
                .map(|i| format!("agent/{}", &f.path[i + ".pi/agent/".len()..]));
            let in_project = segs.len() > 1 && segs[segs.len() - 2] == ".pi";
            let in_cwd = |rel: &str| fs_path(&join_path(&cwd, rel));
            let target: Option<String> = match &f.kind {
                FileKind::Session if !std::ptr::eq(f, loose_session.unwrap_or(f)) => continue,
                FileKind::Session => {
                    if had_case {
                        // The capture's "next prompt time" belonged to its own session.
                        files.retain(|k, _| !k.ends_with("session.after.jsonl"));
                    }
                    Some("session.jsonl".into())
                }
                FileKind::Models => {
                    // Laid in the agent dir as it is (a case's top-level models.json would have
                    // its base URLs pointed at the oracle's stand-in).
                    files.remove("models.json");
                    Some("agent/models.json".into())
                }
                // A project's .pi/settings.json stays in the project; any other is the agent's.
                FileKind::Settings if under_agent.is_none() && in_project => in_cwd(&inner),
                FileKind::Settings => Some("agent/settings.json".into()),
                FileKind::Tools { json, active, .. } => {
                    if active.is_some() {
                        tools_active = active.clone();
                    }
                    files.insert("tools.json".into(), json.clone().into_bytes());
                    placed.push(("tools.json".into(), f.path.clone()));
                    continue;
                }
                FileKind::ContextFile => under_agent.clone().or_else(|| in_cwd(&inner)),
                FileKind::SystemPrompt { .. } if under_agent.is_some() => under_agent.clone(),
                FileKind::SystemPrompt { .. } if in_project => in_cwd(&inner),
                FileKind::SystemPrompt { .. } => Some(format!("agent/{name}")),
                FileKind::Skill { name: skill } => {
                    let dir = if skill
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
                    {
                        skill.clone()
                    } else {
                        "skill".into()
                    };
                    Some(format!("agent/skills/{dir}/SKILL.md"))
                }
                FileKind::Image => {
                    let arg = format!("@{name}");
                    if !args.contains(&arg) {
                        args.push(arg);
                    }
                    in_cwd(name)
                }
                FileKind::Ignored { .. } => continue,
            };
            match target {
                Some(t) => {
                    files.insert(t.clone(), f.bytes.clone());
                    placed.push((t, f.path.clone()));
                }
                None => notes.push(
                    Diagnostic::warning(
                        f.path.as_str(),
                        None,
                        format!("the cwd {cwd} is outside the case's root {root}"),
                    )
                    .skipping(name.to_string()),
                ),
            }
        }
        if let (Some(active), None) = (tools_active, &o.tools) {
            remove_flag(&mut args, &["--tools", "-t"], true);
            args.push("--tools".into());
            args.push(active.join(","));
        }
        env.insert(
            "args",
            Value::Array(args.into_iter().map(Value::from).collect()),
        );
        let agent_dir = env
            .get_str("agentDir")
            .map(String::from)
            .unwrap_or_else(|| format!("{root}/home/.pi/agent"));
        let origins = placed
            .into_iter()
            .map(|(case_path, original)| {
                let core_name = if let Some(r) = case_path.strip_prefix("fs/") {
                    join_path(&root, r)
                } else if let Some(r) = case_path.strip_prefix("agent/") {
                    join_path(&agent_dir, r)
                } else if case_path == "session.jsonl" {
                    join_path(&root, "session.jsonl")
                } else {
                    case_path
                };
                (core_name, original)
            })
            .collect::<std::collections::BTreeMap<String, String>>();
        // inputs_from_case names the session `{root}/session.jsonl` as it is.
        let mut origins = origins;
        if let Some(o) = origins.get(&join_path(&root, "session.jsonl")).cloned() {
            origins.insert(format!("{root}/session.jsonl"), o);
        }
        if !files.contains_key("case.json") {
            let mut c = Object::new().with(
                "about",
                format!("Made by the ctxlens visualizer from: {}", self.name),
            );
            for k in ["model", "thinking", "cwd"] {
                if let Some(v) = env.get(k) {
                    c.insert(k, v.clone());
                }
            }
            files.insert(
                "case.json".into(),
                Value::Object(c).to_json_pretty(1).into_bytes(),
            );
        }
        files.insert(env_path, Value::Object(env).to_json_pretty(2).into_bytes());
        let mut base = base;
        base.custom_models = ["agent/models.json", "models.json"]
            .iter()
            .filter_map(|p| file_text(&files, p))
            .flat_map(|t| custom_models(&t))
            .collect();
        let now_ms =
            (!files.keys().any(|k| k.ends_with("session.after.jsonl"))).then_some(self.now_ms);
        Laid {
            files,
            continue_only,
            now_ms,
            pi: self.overrides.pi,
            call: self.overrides.call,
            base,
            notes,
            origins,
        }
    }
}

/// Options that a case folder cannot carry, sent to the worker with the files.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LayOptions {
    pub continue_only: bool,
    pub now_ms: Option<f64>,
    pub pi: Option<ctxlens::PiVersion>,
    /// The call to rebuild (`Inputs::call`, by its index on the active branch).
    pub call: Option<usize>,
}

/// The `Inputs` of a laid-out scenario (run by the worker). A case that cannot be read gives
/// empty inputs and a diagnostic saying why.
pub fn inputs_of(
    files: &CaseFiles,
    opts: LayOptions,
    api: Option<&str>,
) -> (Inputs, Vec<Diagnostic>) {
    let mut notes = Vec::new();
    // A call is rebuilt as the CLI's `--call` does in a case folder: on the capture's
    // session.after.jsonl when there is one, else on the case's own session.
    let call = opts.call.map(ctxlens::calls::CallRef::Index);
    let read = match call {
        Some(c) => ctxlens::case::inputs_for_call(files, None, Some(c)),
        None => inputs_from_case(files, None),
    };
    let mut inputs = match read {
        Ok(i) => i,
        Err(e) => {
            notes.push(Diagnostic::error("case folder", None, e.0).skipping("the case's settings"));
            Inputs::default()
        }
    };
    if opts.continue_only {
        inputs.prompt = None;
    }
    if let Some(now) = opts.now_ms {
        if inputs.now_ms == 0.0 {
            inputs.now_ms = now;
        }
    }
    inputs.api = api.and_then(|a| a.parse().ok());
    if opts.pi.is_some() {
        inputs.pi = opts.pi;
    }
    (inputs, notes)
}

/// What the URL hash holds: `#api=…&view=…&stage=…&sel=…`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ViewState {
    /// The protocol on screen; `None` = the model's own.
    pub api: Option<String>,
    pub view: Option<String>,
    pub stage: usize,
    pub selection: Option<String>,
    pub compare: bool,
}

fn pct_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let Some(v) = std::str::from_utf8(&b[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(if b[i] == b'+' { b' ' } else { b[i] });
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn pct_encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~:/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

impl ViewState {
    pub fn from_hash(hash: &str) -> ViewState {
        let mut v = ViewState::default();
        for pair in hash.trim_start_matches('#').split('&') {
            let (k, val) = pair.split_once('=').unwrap_or((pair, ""));
            let val = pct_decode(val);
            match k {
                "api" if val.parse::<ctxlens::Api>().is_ok() => v.api = Some(val),
                "view" if !val.is_empty() => v.view = Some(val),
                "stage" => v.stage = val.parse().unwrap_or(0),
                "sel" if !val.is_empty() => v.selection = Some(val),
                "compare" => v.compare = val == "1",
                _ => {}
            }
        }
        v
    }

    pub fn to_hash(&self) -> String {
        let mut parts = Vec::new();
        if let Some(a) = &self.api {
            parts.push(format!("api={}", pct_encode(a)));
        }
        if let Some(v) = &self.view {
            parts.push(format!("view={}", pct_encode(v)));
        }
        if self.stage > 0 {
            parts.push(format!("stage={}", self.stage));
        }
        if let Some(s) = &self.selection {
            parts.push(format!("sel={}", pct_encode(s)));
        }
        if self.compare {
            parts.push("compare=1".into());
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!("#{}", parts.join("&"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo_body(api: Option<&str>) -> Option<String> {
        let laid = Scenario::demo().lay_out();
        let (inputs, notes) = inputs_of(
            &laid.files,
            LayOptions {
                continue_only: laid.continue_only,
                now_ms: laid.now_ms,
                pi: laid.pi,
                call: None,
            },
            api,
        );
        assert!(notes.is_empty(), "{notes:?}");
        ctxlens::assemble(&inputs).request.map(|r| r.body)
    }

    /// Every captured case, opened as the app opens a chosen folder (`name/…` paths), laid out
    /// and assembled as the worker does, gives pi's body on its own release.
    #[test]
    fn every_corpus_case_opened_as_a_folder_gives_pi_s_body() {
        let mut checked = std::collections::BTreeMap::<String, usize>::new();
        let mut failures = Vec::new();
        for case in ctxlens_corpus::cases(&ctxlens_corpus::filter_from_env()) {
            let files = case.files();
            let Some(expected) = files.get("expected/request-1.json") else {
                continue;
            };
            let leaf = case
                .name
                .rsplit('/')
                .next()
                .unwrap_or(&case.name)
                .to_string();
            let mut sc = Scenario::default();
            sc.add_files(
                files
                    .iter()
                    .map(|(rel, bytes)| (format!("{leaf}/{rel}"), bytes.clone()))
                    .collect(),
                vec![],
                0.0,
            );
            let laid = sc.lay_out();
            let (inputs, notes) = inputs_of(
                &laid.files,
                LayOptions {
                    continue_only: laid.continue_only,
                    now_ms: laid.now_ms,
                    pi: laid.pi,
                    call: None,
                },
                None,
            );
            let a = ctxlens::assemble(&inputs);
            let body = a.request.as_ref().map(|r| r.body.as_bytes());
            if body != Some(expected.as_slice()) {
                failures.push(format!(
                    "{}: {notes:?} {:?}",
                    case.name,
                    a.diagnostics.first()
                ));
                continue;
            }
            let v = a.pi.map(|p| p.version.to_string()).unwrap_or_default();
            *checked.entry(v).or_default() += 1;
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        println!("opened as folders, byte-identical: {checked:?}");
    }

    #[test]
    fn the_demo_lays_out_as_itself() {
        let expected = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../www/demo/expected/request-1.json"
        ))
        .unwrap();
        assert_eq!(demo_body(None).as_deref(), Some(expected.as_str()));
    }

    #[test]
    fn loose_files_are_laid_out_around_the_session_cwd() {
        let session = "{\"type\":\"session\",\"version\":3,\"id\":\"s1\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"cwd\":\"/home/ann/proj\"}\n";
        let mut sc = Scenario::default();
        sc.add_files(
            vec![
                ("s.jsonl".into(), session.as_bytes().to_vec()),
                ("proj/AGENTS.md".into(), b"root rules".to_vec()),
                ("proj/sub/CLAUDE.md".into(), b"sub rules".to_vec()),
                (
                    "skills/x/SKILL.md".into(),
                    b"---\nname: lint\ndescription: d\n---\n".to_vec(),
                ),
                (
                    "models.json".into(),
                    b"{\"providers\":{\"p\":{\"models\":[{\"id\":\"m\"}]}}}".to_vec(),
                ),
                ("shot.png".into(), vec![0x89, b'P', b'N', b'G']),
                ("notes.txt".into(), b"x".to_vec()),
            ],
            vec![],
            1000.0,
        );
        let laid = sc.lay_out();
        let keys: Vec<&str> = laid.files.keys().map(String::as_str).collect();
        assert!(keys.contains(&"fs/home/ann/proj/AGENTS.md"), "{keys:?}");
        assert!(keys.contains(&"fs/home/ann/proj/sub/CLAUDE.md"));
        assert!(keys.contains(&"fs/home/ann/proj/shot.png"));
        assert!(keys.contains(&"agent/skills/lint/SKILL.md"));
        assert!(keys.contains(&"agent/models.json"));
        assert!(keys.contains(&"session.jsonl"));
        assert_eq!(laid.base.custom_models, ["p/m"]);
        assert!(laid.continue_only);
        let env = js::parse(&file_text(&laid.files, ENV_FILE).unwrap()).unwrap();
        assert_eq!(env.get_str("agentDir"), Some("/home/ann/.pi/agent"));
        assert_eq!(
            env.get("args").unwrap().as_array().unwrap()[0].as_str(),
            Some("@shot.png")
        );
        assert!(sc.notes.iter().any(|d| d.message.contains("notes.txt")));
        let (inputs, _) = inputs_of(
            &laid.files,
            LayOptions {
                continue_only: true,
                now_ms: laid.now_ms,
                pi: None,
                call: None,
            },
            None,
        );
        assert_eq!(inputs.cwd, "/home/ann/proj");
        assert!(inputs.files.is_file("/home/ann/proj/AGENTS.md"));
        assert!(inputs.prompt.is_none());
        assert_eq!(inputs.now_ms, 1000.0);
        assert_eq!(
            laid.origins.get("/session.jsonl").map(String::as_str),
            Some("s.jsonl")
        );
        assert_eq!(
            laid.origins
                .get("/home/ann/.pi/agent/models.json")
                .map(String::as_str),
            Some("models.json")
        );
    }

    #[test]
    fn overrides_change_the_case() {
        let mut sc = Scenario::demo();
        sc.overrides.tools = Some(vec!["read".into()]);
        sc.overrides.system_prompt = Some("be brief".into());
        sc.overrides.prompt = Some(String::new());
        let laid = sc.lay_out();
        assert!(laid.continue_only);
        let env = js::parse(&file_text(&laid.files, ENV_FILE).unwrap()).unwrap();
        let args: Vec<&str> = env
            .get("args")
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(args, ["--tools", "read", "--system-prompt", "be brief"]);
    }

    #[test]
    fn hash_round_trip() {
        let v = ViewState {
            api: Some("anthropic-messages".into()),
            view: Some("tools".into()),
            stage: 3,
            selection: Some("tool:read me&x".into()),
            compare: true,
        };
        assert_eq!(ViewState::from_hash(&v.to_hash()), v);
        assert_eq!(
            ViewState::from_hash("#api=nope&stage=x"),
            ViewState::default()
        );
    }
}

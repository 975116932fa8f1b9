//! The app's state as data.
//!
//! A [`Scenario`] is what the user gave: a case folder (the bundled demo, an opened case) and/or
//! loose files (a session, AGENTS.md files, skills, a tool set, models.json, images), plus their
//! [`Overrides`] from the settings panel. [`Scenario::lay_out`] turns it into one case folder in
//! the oracle's layout — the same thing the CLI reads and the export writes — so
//! `ctxlens::case::inputs_from_case` makes the `Inputs` for every path through the app.
//!
//! [`ViewState`] is what the URL hash holds (protocol, view, stage, selection); never user data.

use ctxlens::calls::CallRef;
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
    /// The next prompt; `Some("")` or `None` with no prompt in the case: no new user message
    /// (the session's last call when it ends with pi's answer, else pi's continue).
    pub prompt: Option<String>,
    /// The pi release to rebuild (the picker); `None`: the capture's, else the one the session
    /// proves, else the newest.
    pub pi: Option<ctxlens::PiVersion>,
    /// The model call to rebuild (the call picker: the K-th call on the active branch, 1-based,
    /// or an answer on another branch by its entry id); `None`: the next request.
    pub call: Option<CallRef>,
    /// A placeholder key for a provider with none even when the files are a capture (the URL
    /// mode: a page has no keys, and a model chosen by the URL has none in the case).
    pub placeholder_key: bool,
}

/// Where a dropped or chosen file goes: anywhere on the page (laid where its name and folder
/// say), or one of the two labelled targets, pi's agent dir (`~/.pi/agent`) and the project
/// (the session's cwd), where it is laid at its path below the folder dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Target {
    #[default]
    Page,
    Agent,
    Project,
}

impl Target {
    pub fn label(self) -> &'static str {
        match self {
            Target::Page => "dropped on the page",
            Target::Agent => "agent dir",
            Target::Project => "project",
        }
    }
}

/// A dropped file that is not part of a case folder, with what it is and where it was dropped.
#[derive(Clone, Debug)]
pub struct LooseFile {
    pub path: String,
    pub bytes: Vec<u8>,
    pub kind: FileKind,
    pub target: Target,
}

/// The pi packages among dropped folders: a folder whose `package.json` has a `pi` key or the
/// `pi-package` keyword (pi's docs/packages.md), with the npm name it is installed under (its
/// `name`, else the folder's).
fn dropped_packages<'a>(
    files: impl IntoIterator<Item = (&'a str, &'a [u8])>,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (path, bytes) in files {
        let Some((folder, "package.json")) = path.split_once('/') else {
            continue;
        };
        let Ok(v) =
            ctxlens::js::parse(String::from_utf8_lossy(bytes).trim_start_matches('\u{FEFF}'))
        else {
            continue;
        };
        let keyword = v
            .get("keywords")
            .and_then(Value::as_array)
            .is_some_and(|k| k.iter().any(|w| w.as_str() == Some("pi-package")));
        if v.get("pi").is_none() && !keyword {
            continue;
        }
        let valid = |n: &str| {
            !n.is_empty()
                && n.split('/').count() <= 2
                && n.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.@/".contains(c))
                && !n.split('/').any(|p| p.is_empty() || p == "." || p == "..")
        };
        let npm = v
            .get_str("name")
            .filter(|n| valid(n))
            .unwrap_or(folder)
            .to_string();
        out.push((folder.to_string(), npm));
    }
    out
}

/// `source` added to the agent's settings.json `packages` (made when there is none), as
/// `pi install` adds it; an entry already there is left as it is.
fn add_package_entry(files: &mut CaseFiles, source: &str) {
    let path = "agent/settings.json";
    let mut o = file_text(files, path)
        .and_then(|t| ctxlens::js::parse(&t).ok())
        .and_then(|v| v.as_object().cloned())
        .unwrap_or_default();
    let mut list = o
        .get("packages")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let name = |x: &str| match ctxlens::packages::parse_source(x) {
        ctxlens::packages::Source::Npm { name, .. } => Some(name),
        _ => None,
    };
    let listed = list.iter().any(|e| {
        e.as_str()
            .or_else(|| e.get("source").and_then(Value::as_str))
            .is_some_and(|x| name(x) == name(source))
    });
    if !listed {
        list.push(Value::from(source));
    }
    o.insert("packages", Value::Array(list));
    files.insert(path.into(), Value::Object(o).to_json_pretty(2).into_bytes());
}

/// A dropped file that is not used, and why (it never replaces a file that is).
#[derive(Clone, Debug, PartialEq)]
pub struct RefusedFile {
    pub path: String,
    pub why: String,
    pub target: Target,
}

/// Everything the user gave.
#[derive(Clone, Debug, Default)]
pub struct Scenario {
    pub name: String,
    /// A case folder (relative path → bytes), when one was opened.
    pub case: Option<CaseFiles>,
    /// Loose files, in the order they came; a later file of the same role replaces an earlier one.
    pub loose: Vec<LooseFile>,
    /// Dropped files that are not used, with why.
    pub refused: Vec<RefusedFile>,
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
    /// No new user message: the session's last call when it ends with pi's answer, else pi's
    /// continue after tool results (`Inputs::prompt` `None`).
    pub continue_only: bool,
    /// `Date.now()` when the case has no capture to take it from.
    pub now_ms: Option<f64>,
    /// The pi release asked for ([`Overrides::pi`]).
    pub pi: Option<ctxlens::PiVersion>,
    /// The call asked for ([`Overrides::call`]).
    pub call: Option<CallRef>,
    /// The env.json values before the overrides (the settings panel's placeholders).
    pub base: EnvView,
    pub notes: Vec<Diagnostic>,
    /// The names the core gives laid-out loose files (absolute paths, `tools.json`) → the path
    /// the user dropped them with.
    pub origins: std::collections::BTreeMap<String, String>,
    /// Where each loose file went, in [`Scenario::loose`]'s order.
    pub placed: Vec<Placed>,
    /// No capture to follow: a placeholder key stands in for the model's provider when none
    /// was given ([`ctxlens::Inputs::placeholder_key`]).
    pub placeholder_key: bool,
    /// The capture's release is the session's ([`Laid::captured`]).
    pub captured: bool,
}

/// Where one loose file was laid.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Placed {
    /// The path pi sees (absolute), or `tools.json` / the session's name; `None`: not laid.
    pub pi_path: Option<String>,
    /// The later loose file (its index) that was laid at the same path and replaced this one.
    pub replaced_by: Option<usize>,
    /// The case folder's own file at that path that this one replaced.
    pub replaces_case_file: bool,
    /// Why it was not laid.
    pub why_not: Option<String>,
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
/// Where pi is installed, for loose files (the prompt's docs paths): where the CLI assumes it
/// when it finds none on the machine, so both rebuild a session alike.
const PI_PACKAGE_DIR: &str = ctxlens::install::ASSUMED_PACKAGE_DIR;

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

/// Why a file cannot be used, if it cannot: an empty file or one that is not a pi session
/// named `.jsonl`, an "image" that is not one, a binary file, a file pi does not read. On the agent dir and project targets, a file in a skill folder is
/// laid as it is (the placement says what pi made of it).
pub fn refusal(path: &str, bytes: &[u8], kind: &FileKind, target: Target) -> Option<String> {
    let name = base_name(path);
    if name == "auth.json" {
        // Read with its keys replaced as it comes ([`without_keys`]).
        return None;
    }
    match kind {
        FileKind::Session => check_session(bytes).err(),
        FileKind::Image => ctxlens::args::detect_supported_image_mime_type(bytes)
            .is_none()
            .then(|| "named as an image, but its bytes are not PNG, JPEG, GIF or WebP".into()),
        FileKind::Ignored { why } => {
            let in_skill = path.split('/').any(|seg| seg == "skills");
            if target != Target::Page && in_skill {
                return None;
            }
            Some(if is_binary(bytes) {
                "a binary file pi does not read".into()
            } else if target == Target::Page {
                why.clone()
            } else {
                "pi does not read this file to build a request".into()
            })
        }
        _ if bytes.is_empty() => Some("an empty file".into()),
        _ => None,
    }
}

/// auth.json with every key replaced by a stand-in of the same shape as it comes
/// (`ctxlens::redact`: `sk-ant-oat…` stays an OAuth token, a ChatGPT token a JWT), so the page
/// builds the same kind of request and never holds, shows or exports those keys.
pub fn without_keys(path: &str, bytes: Vec<u8>) -> Vec<u8> {
    let name = base_name(path);
    if name != "auth.json" {
        return bytes;
    }
    let key = format!("agent/{name}");
    let mut one = CaseFiles::new();
    one.insert(key.clone(), bytes);
    let (mut out, _) = ctxlens::redact::redact(&one, &ctxlens::redact::Identity::default());
    out.remove(&key).unwrap_or_default()
}

/// A session's first line must be pi's session header.
pub fn check_session(bytes: &[u8]) -> Result<(), String> {
    let line = first_line(bytes);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Err("an empty session: no lines".into());
    }
    if is_binary(bytes) {
        return Err("not a pi session: a binary file".into());
    }
    if session_header(&String::from_utf8_lossy(line)).is_none() {
        return Err(
            "not a pi session: its first line is not a session header ({\"type\":\"session\",…})"
                .into(),
        );
    }
    Ok(())
}

/// A NUL byte in the first 8 KB, or bytes that are not UTF-8 there.
fn is_binary(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(8192)];
    if head.contains(&0) {
        return true;
    }
    match std::str::from_utf8(head) {
        Ok(_) => false,
        // A multi-byte character cut at the 8 KB boundary is still text.
        Err(e) => e.error_len().is_some(),
    }
}

/// A session as the inputs panel names it: its cwd, its first prompt (shortened), and the
/// folder pi keeps sessions of that cwd in.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SessionSummary {
    pub cwd: Option<String>,
    pub first_prompt: Option<String>,
    /// `~/.pi/agent/sessions/--<cwd>--/` for the cwd (`getDefaultSessionDirPath`, the same in
    /// 0.85.1 and 1.6.0).
    pub sessions_dir: Option<String>,
}

/// `getDefaultSessionDirPath(cwd)`'s folder name (CA/core/session-manager.js:242): the cwd
/// without its leading `/`, every `/`, `\` and `:` as `-`, between `--` and `--`.
pub fn sessions_folder(cwd: &str) -> String {
    let rest = cwd.strip_prefix(['/', '\\']).unwrap_or(cwd);
    format!("--{}--", rest.replace(['/', '\\', ':'], "-"))
}

/// Reads the header's cwd and the first user message's text (within the first 2,000 lines).
pub fn session_summary(bytes: &[u8]) -> SessionSummary {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(4 << 20)]);
    let mut out = SessionSummary::default();
    for line in text.lines().take(2000) {
        let Ok(v) = js::parse(line) else { continue };
        if out.cwd.is_none() && v.get_str("type") == Some("session") {
            out.cwd = v.get_str("cwd").map(String::from);
        }
        let Some(m) = v
            .get("message")
            .filter(|m| m.get_str("role") == Some("user"))
        else {
            continue;
        };
        let t = match m.get("content") {
            Some(Value::String(s)) => s.to_string(),
            Some(Value::Array(a)) => a
                .iter()
                .filter_map(|b| b.get_str("text"))
                .collect::<Vec<_>>()
                .join(" "),
            _ => continue,
        };
        let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
        let short: String = t.chars().take(100).collect();
        out.first_prompt = Some(if short.len() < t.len() {
            format!("{short}…")
        } else {
            short
        });
        break;
    }
    out.sessions_dir = out.cwd.as_deref().map(|c| {
        let home = home_for(c);
        format!("{home}/.pi/agent/sessions/{}/", sessions_folder(c))
    });
    out
}

/// Where a file dropped on the agent dir target goes, below the agent dir: the path below the
/// folder dropped (`agent/`, or below `.pi/agent/` when a home or `.pi` folder was dropped).
fn agent_inner(path: &str) -> String {
    if let Some(i) = path.find(".pi/agent/") {
        return path[i + ".pi/agent/".len()..].to_string();
    }
    match path.split_once('/') {
        Some((_, rest)) => rest.to_string(),
        None => path.to_string(),
    }
}

/// Where a file dropped on the project target goes, below the cwd: the path below the folder
/// dropped.
fn project_inner(path: &str) -> String {
    match path.split_once('/') {
        Some((_, rest)) => rest.to_string(),
        None => path.to_string(),
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
        self.add_collected_to(collected, Target::Page, now_ms)
    }

    /// Whether a drop brings anything to use (a case folder, or a file that is not refused):
    /// only then does it take the bundled demo's place. Files that cannot be used (an empty
    /// session, an image that is not one, a stray .txt) replace nothing.
    pub fn brings_inputs(collected: &Collected, target: Target) -> bool {
        (target == Target::Page && find_case(&collected.files).is_some())
            || collected.files.iter().any(|(path, bytes)| {
                let kind = recognize(path, bytes, &mut Vec::new());
                refusal(path, bytes, &kind, target).is_none()
            })
    }

    /// Adds what was dropped on `target`. A case folder dropped on the page replaces the
    /// scenario; loose files are added to it. A file that cannot be used is kept aside with why
    /// ([`Scenario::refused`]) and replaces nothing.
    pub fn add_collected_to(&mut self, collected: Collected, target: Target, now_ms: f64) {
        let Collected {
            files,
            skipped,
            notes: found,
        } = collected;
        let mut notes = found;
        for s in &skipped {
            notes.push(Diagnostic::info(s.as_str(), None, "not read").skipping(s.as_str()));
        }
        if target == Target::Page {
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
                    "the chosen folder".to_string()
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
        }
        let mut ignored = Vec::new();
        // A dropped pi package keeps all its files (its package.json, prompt templates, code).
        let packages = match target {
            Target::Page => dropped_packages(files.iter().map(|(p, b)| (p.as_str(), b.as_slice()))),
            _ => Vec::new(),
        };
        for (path, bytes) in files {
            let bytes = without_keys(&path, bytes);
            let kind = recognize(&path, &bytes, &mut notes);
            let in_package = packages
                .iter()
                .any(|(folder, _)| path.starts_with(&format!("{folder}/")));
            if let Some(why) = refusal(&path, &bytes, &kind, target).filter(|_| !in_package) {
                ignored.push(format!("{path} ({why})"));
                self.refused
                    .retain(|r| r.path != path || r.target != target);
                self.refused.push(RefusedFile { path, why, target });
                continue;
            }
            if kind == FileKind::Session {
                self.forget_session_choices();
            }
            if kind == FileKind::Session || (self.case.is_none() && self.loose.is_empty()) {
                self.name = base_name(&path).to_string();
            }
            self.refused
                .retain(|r| r.path != path || r.target != target);
            self.loose.push(LooseFile {
                path,
                bytes,
                kind,
                target,
            });
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
                        "{} file(s) not used: {}{more}",
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

    /// A new session forgets what was picked for the one before: the release (its own is
    /// detected) and the call (another session's numbering).
    fn forget_session_choices(&mut self) {
        self.overrides.pi = None;
        self.overrides.call = None;
    }

    /// A call of a session file, alone: the scenario the sessions-folder report opens a
    /// call in.
    pub fn call_of(path: &str, bytes: Vec<u8>, entry_id: String, now_ms: f64) -> Scenario {
        let mut sc = Scenario {
            name: base_name(path).to_string(),
            now_ms,
            ..Scenario::default()
        };
        sc.add_files(vec![(path.to_string(), bytes)], Vec::new(), now_ms);
        sc.overrides.call = Some(CallRef::Entry(entry_id));
        sc
    }

    /// Removes the `i`-th loose file (the request is rebuilt without it).
    pub fn remove_loose(&mut self, i: usize) {
        if i < self.loose.len() {
            self.loose.remove(i);
            let session = self
                .loose
                .iter()
                .rev()
                .find(|f| f.kind == FileKind::Session)
                .map(|f| base_name(&f.path).to_string());
            if let Some(n) = session {
                self.name = n;
            } else if self.case.is_none() {
                self.name = self
                    .loose
                    .first()
                    .map(|f| base_name(&f.path).to_string())
                    .unwrap_or_else(|| "no session".into());
            }
        }
    }

    /// Removes the `i`-th refused file from the list.
    pub fn remove_refused(&mut self, i: usize) {
        if i < self.refused.len() {
            self.refused.remove(i);
        }
    }

    /// The session on screen (the last one dropped), if any.
    pub fn session(&self) -> Option<&LooseFile> {
        self.loose
            .iter()
            .rev()
            .find(|f| f.kind == FileKind::Session)
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
        let files = self.case.clone().unwrap_or_default();
        let had_case = self.case.is_some();
        let loose_session = self.session();

        // env.json: the capture's, or one made for loose files.
        let has_capture = find_env_dir(&files).is_some();
        let env_path = match find_env_dir(&files) {
            Some(d) if !d.is_empty() => format!("{d}/env.json"),
            Some(_) => "env.json".into(),
            None => ENV_FILE.into(),
        };
        let case_json = file_text(&files, "case.json")
            .and_then(|t| js::parse(&t).ok())
            .unwrap_or_else(Value::object);
        let env = self.env_json(&files, &env_path, &case_json, &mut notes);
        let mut base = env_view(&env, &case_json, had_case);

        let mut lay = Layout {
            files,
            args: base.args.clone(),
            env,
            notes,
            had_case,
            root: String::new(),
            cwd: String::new(),
            tools_active: None,
            origins: Vec::new(),
            placed: vec![Placed::default(); self.loose.len()],
            holder: Default::default(),
        };
        let continue_only = lay.apply_overrides(&self.overrides, &base.prompt);
        lay.lay_loose(&self.loose, loose_session);
        lay.set_args(self.overrides.tools.is_some());
        let origins = lay.core_names(&self.loose);
        lay.make_case_json(&self.name);

        let Layout {
            mut files,
            env,
            notes,
            placed,
            ..
        } = lay;
        files.insert(env_path, Value::Object(env).to_json_pretty(2).into_bytes());
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
            call: self.overrides.call.clone(),
            base,
            notes,
            origins,
            placed,
            placeholder_key: self.overrides.placeholder_key
                || !has_capture
                || loose_session.is_some(),
            captured: Self::captured(has_capture, loose_session.is_some()),
        }
    }

    /// The case's env.json (a new one when it is not a JSON object), else one laid out the way
    /// the oracle lays out a case without a capture, else one made for the loose session.
    fn env_json(
        &self,
        files: &CaseFiles,
        env_path: &str,
        case_json: &Value,
        notes: &mut Vec<Diagnostic>,
    ) -> Object {
        match file_text(files, env_path).map(|t| js::parse(&t)) {
            Some(Ok(Value::Object(o))) => o,
            Some(_) => {
                notes.push(Diagnostic::error(
                    env_path,
                    None,
                    "env.json is not a JSON object: made a new one",
                ));
                Object::new()
            }
            None if self.case.is_some() => {
                notes.push(Diagnostic::info("case.json", None, "the case has no capture (expected/env.json): laid out at /tmp/pi-ctx-demo, the folder cases are captured in"));
                oracle_env(case_json)
            }
            None => loose_env(self.session()),
        }
    }

    /// Whether the release that made a capture is the one of the session rebuilt: only when the
    /// case has a capture (`env.json`) and no session was dropped in place of its own. A session
    /// without its own capture (dropped alone, on the demo, on a case, pasted) is the CLI's
    /// `--session`: its release is what it proves ([`ctxlens::pi::choice`]), never the release
    /// of a capture it did not come from.
    fn captured(has_capture: bool, session_dropped: bool) -> bool {
        has_capture && !session_dropped
    }
}

/// The env.json of an oracle case without a capture, laid out at the folder cases are captured
/// in, from its case.json.
fn oracle_env(case_json: &Value) -> Object {
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
    o
}

/// The env.json made for loose files: the cwd and id of the session's header, else a project
/// in the home of `/home/user`.
fn loose_env(session: Option<&LooseFile>) -> Object {
    // Only the first line is read (a session can be tens of megabytes).
    let header =
        session.and_then(|s| session_header(&String::from_utf8_lossy(first_line(&s.bytes))));
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

/// The env.json values before the overrides (the settings panel's placeholders), with the
/// case.json's model and thinking when env.json has none.
fn env_view(env: &Object, case_json: &Value, had_case: bool) -> EnvView {
    let s = |o: &Object, k: &str| o.get_str(k).unwrap_or("").to_string();
    let or = |k: &str, default: String| {
        if env.contains_key(k) {
            s(env, k)
        } else {
            default
        }
    };
    let args: Vec<String> = env
        .get_array("args")
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let root = s(env, "root");
    EnvView {
        home: or("home", format!("{root}/home")),
        agent_dir: or("agentDir", format!("{root}/home/.pi/agent")),
        cwd: or("cwd", root.clone()),
        pi_package_dir: or("piPackageDir", PI_PACKAGE_DIR.into()),
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
            // No prompt (or `"prompt": null`): no new user message — the session's last
            // call when it ends with pi's answer, else pi's continue (never a made-up prompt).
            env.get_str("prompt").unwrap_or("").to_string()
        } else {
            String::new()
        },
        args,
        root,
        custom_models: Vec::new(),
    }
}

/// The folder a dropped skill is laid in: its name, when it is a plain folder name.
fn skill_dir(skill: &str) -> &str {
    if skill
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
    {
        skill
    } else {
        "skill"
    }
}

/// A scenario being laid out as one case folder: its files, its env.json and argv so far, and
/// where each loose file went.
struct Layout {
    files: CaseFiles,
    env: Object,
    args: Vec<String>,
    notes: Vec<Diagnostic>,
    had_case: bool,
    /// The case's root and the (overridden) cwd, that loose files are laid relative to.
    root: String,
    cwd: String,
    /// The active tools a dropped tool set names.
    tools_active: Option<Vec<String>>,
    /// Case path → the dropped file it came from (diagnostics name the user's file).
    origins: Vec<(String, String)>,
    /// Where each loose file went, in [`Scenario::loose`]'s order.
    placed: Vec<Placed>,
    /// Which loose file holds each case path now.
    holder: std::collections::BTreeMap<String, usize>,
}

/// Where a loose file was dropped, as its path and target say.
struct Dropped<'a> {
    name: &'a str,
    /// In a dropped pi package: where `pi install npm:NAME` puts it.
    package: Option<String>,
    /// Inside a dropped folder: the path below the folder itself.
    inner: String,
    /// Its path in the agent dir, when it was dropped there or below a `.pi/agent/` folder.
    under_agent: Option<String>,
    /// In a project's `.pi` folder.
    in_project: bool,
    /// Its path on the labelled target it was dropped on.
    on_target: Option<String>,
}

impl Layout {
    /// The settings panel's overrides, into env.json and the argv: whether there is no new user
    /// message (no prompt).
    fn apply_overrides(&mut self, o: &Overrides, base_prompt: &str) -> bool {
        let set = |env: &mut Object, k: &str, v: &Option<String>| {
            if let Some(v) = v.as_ref().map(|v| v.trim()).filter(|v| !v.is_empty()) {
                env.insert(k, Value::str(v));
            }
        };
        let env = &mut self.env;
        set(env, "cwd", &o.cwd.as_ref().map(|c| normalize_path(c)));
        set(
            env,
            "agentDir",
            &o.agent_dir.as_ref().map(|c| normalize_path(c)),
        );
        set(env, "piPackageDir", &o.pi_package_dir);
        set(env, "model", &o.model);
        set(env, "thinking", &o.thinking);
        let prompt = o.prompt.clone().unwrap_or_else(|| base_prompt.to_string());
        let continue_only = prompt.is_empty();
        if !continue_only {
            env.insert("prompt", Value::str(prompt));
        }
        let args = &mut self.args;
        if let Some(tools) = &o.tools {
            remove_flag(args, &["--tools", "-t"], true);
            remove_flag(args, &["--no-tools", "-nt"], false);
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
                remove_flag(args, &[flag], true);
                if !v.is_empty() {
                    args.push(flag.into());
                    args.push(v.clone());
                }
            }
        }
        continue_only
    }

    /// The loose files, laid out relative to the (overridden) cwd and agent dir, each where its
    /// kind goes; the dropped pi packages listed in the agent's settings.json.
    fn lay_loose(&mut self, loose: &[LooseFile], loose_session: Option<&LooseFile>) {
        self.root = self.env.get_str("root").unwrap_or("").to_string();
        self.cwd = self
            .env
            .get_str("cwd")
            .map(String::from)
            .unwrap_or_else(|| self.root.clone());
        let packages = dropped_packages(
            loose
                .iter()
                .filter(|f| f.target == Target::Page)
                .map(|f| (f.path.as_str(), f.bytes.as_slice())),
        );
        for (i, f) in loose.iter().enumerate() {
            let dropped = self.dropped(f, &packages);
            // A session before the last one: replaced by it.
            if dropped.package.is_none()
                && matches!(f.kind, FileKind::Session)
                && !std::ptr::eq(f, loose_session.unwrap_or(f))
            {
                let last = loose
                    .iter()
                    .rposition(|g| g.kind == FileKind::Session)
                    .unwrap_or(i);
                self.placed[i].pi_path = Some(f.path.clone());
                self.placed[i].replaced_by = Some(last);
                continue;
            }
            let case_path = self.case_path(f, dropped);
            self.place(i, f, case_path);
        }
        for (_, npm) in &packages {
            add_package_entry(&mut self.files, &format!("npm:{npm}"));
        }
    }

    /// `abs` as a path in the case folder (`fs/…`), if it is below the case's root.
    fn fs_path(&self, abs: &str) -> Option<String> {
        let abs = normalize_path(abs);
        let rel = if self.root == "/" {
            abs.strip_prefix('/').map(String::from)
        } else {
            abs.strip_prefix(&format!("{}/", self.root))
                .map(String::from)
        };
        rel.map(|r| format!("fs/{r}"))
    }

    /// `rel` below the cwd, as a path in the case folder.
    fn in_cwd(&self, rel: &str) -> Option<String> {
        self.fs_path(&join_path(&self.cwd, rel))
    }

    /// Where loose file `f` was dropped: in a pi package, in a folder, on a target.
    fn dropped<'a>(&self, f: &'a LooseFile, packages: &[(String, String)]) -> Dropped<'a> {
        let segs: Vec<&str> = f.path.split('/').collect();
        let name = base_name(&f.path);
        // A dropped pi package: every file of it where `pi install npm:NAME` puts it.
        let package = packages
            .iter()
            .find(|(folder, _)| segs.len() > 1 && segs[0] == folder)
            .map(|(_, npm)| format!("agent/npm/node_modules/{npm}/{}", segs[1..].join("/")));
        // Inside a dropped folder: the path below the folder itself.
        let inner = if segs.len() > 1 {
            segs[1..].join("/")
        } else {
            name.to_string()
        };
        // A folder named `agent` dropped on the page is taken for pi's agent dir.
        let target = match f.target {
            Target::Page if segs.len() > 1 && segs[0] == "agent" => Target::Agent,
            t => t,
        };
        let under_agent = match target {
            Target::Agent => Some(format!("agent/{}", agent_inner(&f.path))),
            Target::Project => None,
            Target::Page => f
                .path
                .find(".pi/agent/")
                .map(|i| format!("agent/{}", &f.path[i + ".pi/agent/".len()..])),
        };
        let in_project = segs.len() > 1 && segs[segs.len() - 2] == ".pi";
        let on_target = match target {
            Target::Agent => under_agent.clone(),
            Target::Project => self.in_cwd(&project_inner(&f.path)),
            Target::Page => None,
        };
        Dropped {
            name,
            package,
            inner,
            under_agent,
            in_project,
            on_target,
        }
    }

    /// Where loose file `f` goes in the case folder, by its kind and where it was dropped
    /// (`None`: nowhere).
    fn case_path(&mut self, f: &LooseFile, d: Dropped) -> Option<String> {
        match &f.kind {
            _ if d.package.is_some() => d.package,
            FileKind::Session => self.lay_session(),
            FileKind::Tools { active, .. } => {
                if active.is_some() {
                    self.tools_active = active.clone();
                }
                Some("tools.json".into())
            }
            _ if d.on_target.is_some() => d.on_target,
            _ if d.name == "auth.json" => d.under_agent.or_else(|| Some("agent/auth.json".into())),
            FileKind::Models => {
                // Laid in the agent dir as it is (a case's top-level models.json would have
                // its base URLs pointed at the oracle's stand-in).
                self.files.remove("models.json");
                Some("agent/models.json".into())
            }
            // A project's .pi/settings.json stays in the project; any other is the agent's.
            FileKind::Settings if d.under_agent.is_none() && d.in_project => self.in_cwd(&d.inner),
            FileKind::Settings => Some("agent/settings.json".into()),
            FileKind::ContextFile => d.under_agent.or_else(|| self.in_cwd(&d.inner)),
            FileKind::SystemPrompt { .. } if d.under_agent.is_some() => d.under_agent,
            FileKind::SystemPrompt { .. } if d.in_project => self.in_cwd(&d.inner),
            FileKind::SystemPrompt { .. } => Some(format!("agent/{}", d.name)),
            FileKind::Skill { name } => Some(format!("agent/skills/{}/SKILL.md", skill_dir(name))),
            FileKind::Image => self.lay_image(d.name),
            FileKind::Ignored { .. } => None,
        }
    }

    /// The session dropped last, laid as the case's session (the capture's "next prompt time"
    /// belonged to its own session and goes).
    fn lay_session(&mut self) -> Option<String> {
        if self.had_case {
            self.files
                .retain(|k, _| !k.ends_with("session.after.jsonl"));
        }
        Some("session.jsonl".into())
    }

    /// An image, laid in the cwd and named in the argv (`@name`) for the next prompt.
    fn lay_image(&mut self, name: &str) -> Option<String> {
        let arg = format!("@{name}");
        if !self.args.contains(&arg) {
            self.args.push(arg);
        }
        self.in_cwd(name)
    }

    /// Loose file `i` laid at `case_path` (replacing a case file or an earlier loose file
    /// there), or why it was not.
    fn place(&mut self, i: usize, f: &LooseFile, case_path: Option<String>) {
        let (root, cwd) = (&self.root, &self.cwd);
        match case_path {
            Some(t) => {
                if let Some(&j) = self.holder.get(&t) {
                    self.placed[j].replaced_by = Some(i);
                } else if self.files.contains_key(&t) {
                    self.placed[i].replaces_case_file = true;
                }
                self.holder.insert(t.clone(), i);
                let bytes = match &f.kind {
                    FileKind::Tools { json, .. } => json.clone().into_bytes(),
                    _ => f.bytes.clone(),
                };
                self.files.insert(t.clone(), bytes);
                self.placed[i].pi_path = Some(t.clone());
                self.origins.push((t, f.path.clone()));
            }
            None if matches!(f.kind, FileKind::Ignored { .. }) => {
                self.placed[i].why_not = Some("pi does not read this file".into());
            }
            None => {
                self.placed[i].why_not =
                    Some(format!("the cwd {cwd} is outside the case's root {root}"));
                self.notes.push(
                    Diagnostic::warning(
                        f.path.as_str(),
                        None,
                        format!("the cwd {cwd} is outside the case's root {root}"),
                    )
                    .skipping(base_name(&f.path).to_string()),
                )
            }
        }
    }

    /// The argv into env.json, with `--tools` from a dropped tool set that names the active
    /// tools (unless the settings panel set them).
    fn set_args(&mut self, tools_overridden: bool) {
        if let (Some(active), false) = (self.tools_active.take(), tools_overridden) {
            remove_flag(&mut self.args, &["--tools", "-t"], true);
            self.args.push("--tools".into());
            self.args.push(active.join(","));
        }
        let args = std::mem::take(&mut self.args);
        self.env.insert(
            "args",
            Value::Array(args.into_iter().map(Value::from).collect()),
        );
    }

    /// The names the core gives the laid-out loose files (absolute paths; the session and
    /// tools.json as they are): each loose file's, and theirs → the paths the user dropped.
    fn core_names(&mut self, loose: &[LooseFile]) -> std::collections::BTreeMap<String, String> {
        let root = &self.root;
        let agent_dir = self
            .env
            .get_str("agentDir")
            .map(String::from)
            .unwrap_or_else(|| format!("{root}/home/.pi/agent"));
        let core_name = |case_path: &str| {
            if let Some(r) = case_path.strip_prefix("fs/") {
                join_path(root, r)
            } else if let Some(r) = case_path.strip_prefix("agent/") {
                join_path(&agent_dir, r)
            } else if case_path == "session.jsonl" {
                join_path(root, "session.jsonl")
            } else {
                case_path.to_string()
            }
        };
        for (w, f) in self.placed.iter_mut().zip(loose) {
            if f.kind != FileKind::Session {
                w.pi_path = w.pi_path.as_deref().map(core_name);
            }
        }
        let mut origins = std::mem::take(&mut self.origins)
            .into_iter()
            .map(|(case_path, original)| (core_name(&case_path), original))
            .collect::<std::collections::BTreeMap<String, String>>();
        // inputs_from_case names the session `{root}/session.jsonl` as it is.
        if let Some(o) = origins.get(&join_path(root, "session.jsonl")).cloned() {
            origins.insert(format!("{root}/session.jsonl"), o);
        }
        origins
    }

    /// A case.json for a scenario without one: what made it, with env.json's model, thinking
    /// and cwd.
    fn make_case_json(&mut self, name: &str) {
        if self.files.contains_key("case.json") {
            return;
        }
        let mut c = Object::new().with(
            "about",
            format!("Made by the ctxlens visualizer from: {name}"),
        );
        for k in ["model", "thinking", "cwd"] {
            if let Some(v) = self.env.get(k) {
                c.insert(k, v.clone());
            }
        }
        self.files.insert(
            "case.json".into(),
            Value::Object(c).to_json_pretty(1).into_bytes(),
        );
    }
}

impl Laid {
    /// The case folder the export writes (`Export (.zip)`): the laid-out files, and for a
    /// session without its own capture, the release rebuilt for it (`rebuilt`: the report's)
    /// as the env's `piVersion` — else the CLI and the app would read the folder as a capture of
    /// 0.85.1 (an env.json without it) or of another session's release.
    pub fn exported(&self, rebuilt: Option<ctxlens::PiVersion>) -> CaseFiles {
        let mut files = self.files.clone();
        let (false, Some(v), Some(dir)) = (self.captured, rebuilt, find_env_dir(&files)) else {
            return files;
        };
        let path = if dir.is_empty() {
            "env.json".to_string()
        } else {
            format!("{dir}/env.json")
        };
        if let Some(Ok(Value::Object(mut env))) = file_text(&files, &path).map(|t| js::parse(&t)) {
            env.insert("piVersion", Value::str(v.as_str()));
            files.insert(path, Value::Object(env).to_json_pretty(2).into_bytes());
        }
        files
    }
}

/// The release a report rebuilt the session's request with: its `pi.version`, or for a past
/// call rebuilt by the release that made it, the release the rest of the session is rebuilt
/// with (`pi.callRun.later`).
pub fn session_release(report: &crate::report::Report) -> Option<ctxlens::PiVersion> {
    let pi = report.pi.as_ref()?;
    match pi.reason {
        ctxlens::pi::choice::Reason::Call => Some(pi.call_run.as_ref()?.later),
        _ => Some(pi.version),
    }
}

/// Options that a case folder cannot carry, sent to the worker with the files.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LayOptions {
    pub continue_only: bool,
    pub now_ms: Option<f64>,
    pub pi: Option<ctxlens::PiVersion>,
    /// [`Laid::placeholder_key`].
    pub placeholder_key: bool,
    /// The call to rebuild (`Inputs::call`: its index on the active branch, or an entry id).
    pub call: Option<CallRef>,
    /// [`Laid::captured`]: otherwise the case's `env.json` says nothing of the session's
    /// release (`Inputs::captured_pi` is none, and the session's own detection decides).
    pub captured: bool,
}

impl LayOptions {
    pub fn of(laid: &Laid) -> LayOptions {
        LayOptions {
            continue_only: laid.continue_only,
            now_ms: laid.now_ms,
            pi: laid.pi,
            placeholder_key: laid.placeholder_key,
            call: laid.call.clone(),
            captured: laid.captured,
        }
    }
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
    let call = opts.call.clone();
    let read = match call {
        Some(c) => ctxlens::case::inputs_for_call(files, None, Some(c)),
        None => inputs_from_case(files, None),
    };
    let mut inputs = match read {
        Ok(i) => i,
        Err(e) => {
            notes.push(Diagnostic::error("case.json", None, e.0).skipping("the settings it holds"));
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
    if !opts.captured {
        // `inputs_from_case` takes an env.json without `piVersion` for an old 0.85.1 capture;
        // the one laid out for a session without a capture is not one. Nor is the User-Agent
        // a case's capture sent the session's: each release sends its own form.
        inputs.captured_pi = None;
        inputs.user_agent = None;
    }
    inputs.placeholder_key = opts.placeholder_key;
    (inputs, notes)
}

/// What the URL hash holds: `#api=…&view=…&stage=…&sel=…&with=…&whatif=…`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ViewState {
    /// The protocol on screen; `None` = the model's own.
    pub api: Option<String>,
    pub view: Option<String>,
    pub stage: usize,
    pub selection: Option<String>,
    pub compare: bool,
    /// What the Protocols view compares the request with: another protocol (`anthropic-messages`)
    /// or another pi release (`pi-1.6.0`); `None`: the first other protocol.
    pub with: Option<String>,
    /// The What-if view's changes, in order: `ctxlens whatif`'s specs (`tool:bash`,
    /// `skill:NAME`, `model=P/ID`, …); in the hash as `whatif=tool:bash,skill:foo` (each spec
    /// percent-encoded, so a comma in a path stays in its spec).
    pub whatif: Vec<String>,
    /// All your sessions (a sessions folder's report) on screen instead of one request
    /// (`sessions=1`).
    pub sessions: bool,
}

/// What [`ViewState::with`] names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareWith {
    Api(ctxlens::Api),
    Pi(ctxlens::PiVersion),
}

impl CompareWith {
    pub fn parse(s: &str) -> Option<CompareWith> {
        match s.strip_prefix("pi-") {
            Some(v) => v.parse().ok().map(CompareWith::Pi),
            None => s.parse().ok().map(CompareWith::Api),
        }
    }

    pub fn key(self) -> String {
        match self {
            CompareWith::Api(a) => a.as_str().to_string(),
            CompareWith::Pi(v) => format!("pi-{v}"),
        }
    }
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
            if k == "whatif" {
                v.whatif = val
                    .split(',')
                    .map(pct_decode)
                    .filter(|s| !s.is_empty())
                    .collect();
                continue;
            }
            let val = pct_decode(val);
            match k {
                "api" if val.parse::<ctxlens::Api>().is_ok() => v.api = Some(val),
                "view" if !val.is_empty() => v.view = Some(val),
                "stage" => v.stage = val.parse().unwrap_or(0),
                "sel" if !val.is_empty() => v.selection = Some(val),
                "compare" => v.compare = val == "1",
                "sessions" => v.sessions = val == "1",
                "with" if CompareWith::parse(&val).is_some() => v.with = Some(val),
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
        if let Some(w) = &self.with {
            parts.push(format!("with={}", pct_encode(w)));
        }
        if self.sessions {
            parts.push("sessions=1".into());
        }
        if !self.whatif.is_empty() {
            let specs: Vec<String> = self.whatif.iter().map(|s| pct_encode(s)).collect();
            parts.push(format!("whatif={}", specs.join(",")));
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
        let (inputs, notes) = inputs_of(&laid.files, LayOptions::of(&laid), api);
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
            let (inputs, notes) = inputs_of(&laid.files, LayOptions::of(&laid), None);
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
                ("shot.png".into(), PNG.to_vec()),
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
                ..LayOptions::of(&laid)
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

    /// A 1×1 PNG.
    const PNG: &[u8] = b"\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\x0d\x49\x44\x41\x54\x78\x9c\x63\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99\x3d\x1d\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82";

    const SESSION: &str = "{\"type\":\"session\",\"version\":3,\"id\":\"s1\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"cwd\":\"/home/ann/proj\"}\n{\"type\":\"message\",\"id\":\"u1\",\"parentId\":null,\"timestamp\":\"2025-01-01T00:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Fix   the\\nlogin bug\"}],\"timestamp\":1}}\n";

    fn files(list: &[(&str, &[u8])]) -> Collected {
        Collected {
            files: list
                .iter()
                .map(|(p, b)| (p.to_string(), b.to_vec()))
                .collect(),
            ..Default::default()
        }
    }

    fn placed_at<'a>(sc: &'a Scenario, laid: &'a Laid, path: &str, target: Target) -> &'a Placed {
        let i = sc
            .loose
            .iter()
            .position(|f| f.path == path && f.target == target)
            .unwrap_or_else(|| panic!("{path} not among the loose files"));
        &laid.placed[i]
    }

    /// The agent folder dropped on its target and the project on its own: each file is laid
    /// below its target (the agent's AGENTS.md no longer lands in the cwd), and a second drop
    /// of the same path says which replaced which.
    #[test]
    fn the_two_targets_lay_files_below_them() {
        let mut sc = Scenario::default();
        sc.add_collected_to(files(&[("s.jsonl", SESSION.as_bytes())]), Target::Page, 1.0);
        sc.add_collected_to(
            files(&[
                ("agent/AGENTS.md", b"agent rules"),
                ("agent/settings.json", b"{}"),
                (
                    "agent/skills/lint/SKILL.md",
                    b"---\nname: lint\ndescription: d\n---\n",
                ),
                ("agent/skills/lint/run.sh", b"echo"),
                (
                    "agent/auth.json",
                    b"{\"anthropic\":{\"type\":\"api_key\",\"key\":\"sk-ant-api03-secret\"}}",
                ),
            ]),
            Target::Agent,
            1.0,
        );
        sc.add_collected_to(
            files(&[
                ("proj/AGENTS.md", b"project rules"),
                ("proj/sub/CLAUDE.md", b"sub rules"),
                ("proj/.pi/settings.json", b"{}"),
                ("proj/src/main.rs", b"fn main() {}"),
            ]),
            Target::Project,
            1.0,
        );
        // The same project file dropped again, alone.
        sc.add_collected_to(
            files(&[("AGENTS.md", b"newer rules")]),
            Target::Project,
            1.0,
        );
        let laid = sc.lay_out();
        let at = |p: &str, t| placed_at(&sc, &laid, p, t).pi_path.clone();
        assert_eq!(
            at("agent/AGENTS.md", Target::Agent).as_deref(),
            Some("/home/ann/.pi/agent/AGENTS.md")
        );
        assert_eq!(
            at("agent/skills/lint/run.sh", Target::Agent).as_deref(),
            Some("/home/ann/.pi/agent/skills/lint/run.sh"),
            "a skill folder's other files are laid as they are"
        );
        assert_eq!(
            at("proj/AGENTS.md", Target::Project).as_deref(),
            Some("/home/ann/proj/AGENTS.md")
        );
        assert_eq!(
            at("proj/sub/CLAUDE.md", Target::Project).as_deref(),
            Some("/home/ann/proj/sub/CLAUDE.md")
        );
        assert_eq!(
            at("proj/.pi/settings.json", Target::Project).as_deref(),
            Some("/home/ann/proj/.pi/settings.json")
        );
        let later = sc.loose.iter().position(|f| f.path == "AGENTS.md").unwrap();
        assert_eq!(
            placed_at(&sc, &laid, "proj/AGENTS.md", Target::Project).replaced_by,
            Some(later)
        );
        assert_eq!(
            laid.files
                .get("fs/home/ann/proj/AGENTS.md")
                .map(Vec::as_slice),
            Some(&b"newer rules"[..])
        );
        assert_eq!(
            laid.files.get("agent/AGENTS.md").map(Vec::as_slice),
            Some(&b"agent rules"[..])
        );
        // A source file is not used, and says why; auth.json is laid with its keys replaced.
        let why = |p: &str| {
            sc.refused
                .iter()
                .find(|r| r.path == p)
                .map(|r| r.why.clone())
        };
        assert!(why("agent/auth.json").is_none(), "auth.json is read");
        let auth = String::from_utf8_lossy(&laid.files["agent/auth.json"]).into_owned();
        assert!(!auth.contains("sk-ant-api03-secret"), "{auth}");
        assert!(
            auth.contains("\"type\":\"api_key\"") || auth.contains("\"type\": \"api_key\""),
            "{auth}"
        );
        assert!(why("proj/src/main.rs").unwrap().contains("does not read"));
        assert!(laid.placeholder_key);
        // The agent's files, then the project's: pi reads both context files, the agent's first.
        let (inputs, _) = inputs_of(&laid.files, LayOptions::of(&laid), None);
        let a = ctxlens::assemble(&inputs);
        let paths: Vec<&str> = a
            .parts
            .resources
            .context_files
            .iter()
            .map(|c| c.path.as_str())
            .collect();
        assert_eq!(
            paths,
            ["/home/ann/.pi/agent/AGENTS.md", "/home/ann/proj/AGENTS.md"]
        );
        // Per-file remove: without the agent's AGENTS.md, only the project's is read.
        let i = sc
            .loose
            .iter()
            .position(|f| f.path == "agent/AGENTS.md")
            .unwrap();
        sc.remove_loose(i);
        let laid = sc.lay_out();
        assert!(!laid.files.contains_key("agent/AGENTS.md"));
        assert_eq!(sc.name, "s.jsonl");
    }

    /// A folder named `agent` dropped anywhere on the page is pi's agent dir.
    #[test]
    fn an_agent_folder_dropped_on_the_page_is_the_agent_dir() {
        let mut sc = Scenario::default();
        sc.add_collected_to(
            files(&[
                ("s.jsonl", SESSION.as_bytes()),
                ("agent/AGENTS.md", b"agent rules"),
            ]),
            Target::Page,
            1.0,
        );
        let laid = sc.lay_out();
        assert!(laid.files.contains_key("agent/AGENTS.md"));
        assert!(!laid.files.contains_key("fs/home/ann/proj/AGENTS.md"));
    }

    /// Bad drops are refused with why and never replace a good input.
    #[test]
    fn bad_drops_say_why_and_replace_nothing() {
        let mut sc = Scenario::default();
        sc.add_collected_to(
            files(&[("good.jsonl", SESSION.as_bytes())]),
            Target::Page,
            1.0,
        );
        let bad = files(&[
            ("empty.jsonl", b""),
            ("blank.jsonl", b"\n  \n"),
            ("notes.jsonl", b"{\"hello\": 1}\n"),
            ("shot.png", b"not really a png"),
            ("blob.bin", &[0u8, 1, 2, 3]),
            ("notes.txt", b"hello"),
            ("data.json", b"{\"foo\": [1, 2]}"),
        ]);
        assert!(!Scenario::brings_inputs(&bad, Target::Page));
        sc.add_collected_to(bad, Target::Page, 1.0);
        assert_eq!(
            sc.loose.len(),
            1,
            "{:?}",
            sc.loose.iter().map(|f| &f.path).collect::<Vec<_>>()
        );
        assert_eq!(sc.name, "good.jsonl");
        let why = |p: &str| {
            sc.refused
                .iter()
                .find(|r| r.path == p)
                .map(|r| r.why.clone())
                .unwrap_or_else(|| panic!("{p} not refused"))
        };
        assert!(why("empty.jsonl").contains("empty session"));
        assert!(why("blank.jsonl").contains("empty session"));
        assert!(why("notes.jsonl").contains("not a pi session"));
        assert!(why("shot.png").contains("not PNG"));
        assert!(why("blob.bin").contains("binary"));
        assert!(why("notes.txt").contains("not an input pi reads"));
        assert!(why("data.json").contains("neither a tool set"));
        assert!(Scenario::brings_inputs(
            &files(&[("shot.png", PNG)]),
            Target::Page
        ));
    }

    /// A login stays a login (pi's OAuth request), a key stays a key; neither is kept.
    #[test]
    fn keys_are_replaced_as_they_come_keeping_their_kind() {
        let auth = br#"{"anthropic":{"type":"oauth","access":"sk-ant-oat01-AbCdEfGhIjKlMnOpQrStUvWx","refresh":"sk-ant-ort01-ZyXwVuTsRqPoNmLk","expires":1}}"#;
        let out = String::from_utf8(without_keys("agent/auth.json", auth.to_vec())).unwrap();
        assert!(
            !out.contains("AbCdEfGhIjKlMnOpQrStUvWx") && !out.contains("ZyXwVuTsRqPoNmLk"),
            "{out}"
        );
        assert!(out.contains("sk-ant-oat"), "{out}");
        assert_eq!(
            without_keys("AGENTS.md", b"sk-proj-1234567890abcdef".to_vec()),
            b"sk-proj-1234567890abcdef"
        );
    }

    #[test]
    fn a_session_is_named_by_its_file_first_prompt_and_cwd() {
        let s = session_summary(SESSION.as_bytes());
        assert_eq!(s.cwd.as_deref(), Some("/home/ann/proj"));
        assert_eq!(s.first_prompt.as_deref(), Some("Fix the login bug"));
        assert_eq!(
            s.sessions_dir.as_deref(),
            Some("/home/ann/.pi/agent/sessions/--home-ann-proj--/")
        );
        assert_eq!(sessions_folder("C:\\Users\\ann"), "--C--Users-ann--");
    }

    /// A dropped session runs with a placeholder key for its provider; a capture does not.
    #[test]
    fn the_placeholder_key_is_for_sessions_without_a_capture() {
        assert!(!Scenario::demo().lay_out().placeholder_key);
        let mut sc = Scenario::demo();
        sc.add_collected_to(files(&[("s.jsonl", SESSION.as_bytes())]), Target::Page, 1.0);
        assert!(sc.lay_out().placeholder_key);
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
            with: Some("pi-0.85.1".into()),
            whatif: vec![
                "tool:bash".into(),
                "context:a,b/AGENTS.md".into(),
                "model=anthropic/claude-sonnet-4-5".into(),
            ],
            sessions: true,
        };
        assert_eq!(ViewState::from_hash(&v.to_hash()), v);
        assert!(v.to_hash().contains("sessions=1"));
        assert!(v.to_hash().contains(
            "whatif=tool:bash,context:a%2Cb/AGENTS.md,model%3Danthropic/claude-sonnet-4-5"
        ));
        assert_eq!(
            ViewState::from_hash("#whatif=tool:bash,skill:foo").whatif,
            ["tool:bash", "skill:foo"]
        );
        assert_eq!(
            ViewState::from_hash("#api=nope&stage=x&with=pi-9.9.9"),
            ViewState::default()
        );
        assert_eq!(
            CompareWith::parse("pi-1.6.0"),
            Some(CompareWith::Pi(ctxlens::PiVersion::V1_6_0))
        );
        assert_eq!(
            CompareWith::parse("anthropic-messages").map(CompareWith::key),
            Some("anthropic-messages".to_string())
        );
    }

    /// The release chosen for `sc`'s request with nothing picked, as the worker chooses it.
    fn chosen(sc: &Scenario) -> ctxlens::pi::choice::Choice {
        let laid = sc.lay_out();
        let (inputs, _) = inputs_of(&laid.files, LayOptions::of(&laid), None);
        ctxlens::Workspace::new().choose(&inputs)
    }

    /// A pi 1.6.0 session (a system message at its run's start).
    fn session_1_6() -> Vec<u8> {
        std::fs::read(
            ctxlens_corpus::workspace()
                .join("tests/conformance/pi-1.6.0/an-midconvo/expected/session.after.jsonl"),
        )
        .expect("a 1.6.0 capture")
    }

    /// Only a session that is the capture's own takes the capture's release: a session dropped
    /// alone, on the demo or in place of a case's is detected (as the CLI's `--session`), and
    /// Clear's empty scenario says nothing of any release.
    #[test]
    fn only_the_capture_s_own_session_takes_its_release() {
        use ctxlens::pi::choice::Reason;
        let demo = chosen(&Scenario::demo());
        assert_eq!(
            (demo.version.as_str(), demo.reason),
            ("0.85.1", Reason::Captured)
        );

        let mut alone = Scenario::default();
        alone.add_files(vec![("s.jsonl".into(), session_1_6())], vec![], 1.0);
        assert!(!alone.lay_out().captured);
        let c = chosen(&alone);
        assert_eq!((c.version.as_str(), c.reason), ("1.6.0", Reason::Detected));

        let mut on_case = Scenario::demo();
        on_case.add_files(vec![("s.jsonl".into(), session_1_6())], vec![], 1.0);
        let laid = on_case.lay_out();
        assert!(on_case.case.is_some() && !laid.captured);
        let c = chosen(&on_case);
        assert_eq!((c.version.as_str(), c.reason), ("1.6.0", Reason::Detected));
        let (inputs, _) = inputs_of(&laid.files, LayOptions::of(&laid), None);
        assert_eq!(inputs.user_agent, None, "not the demo capture's User-Agent");

        // Another file on the demo keeps its session, and so its capture's release.
        let mut with_file = Scenario::demo();
        with_file.add_files(
            vec![("AGENTS.md".into(), b"Be brief.\n".to_vec())],
            vec![],
            1.0,
        );
        assert!(with_file.lay_out().captured);

        let empty = Scenario {
            name: "empty".into(),
            ..Default::default()
        };
        let c = chosen(&empty);
        assert_eq!((c.version.as_str(), c.reason), ("1.6.0", Reason::Default));
    }

    /// The export of a session without its own capture names the release rebuilt for it, so
    /// the folder opens again (in the app, or the CLI's `--case`) on that release; a capture's
    /// export is its files as they are.
    #[test]
    fn the_export_names_the_release_of_a_session_without_a_capture() {
        use ctxlens::pi::choice::Reason;
        let demo = Scenario::demo().lay_out();
        assert_eq!(demo.exported(Some(ctxlens::PiVersion::V1_6_0)), demo.files);

        let mut alone = Scenario::default();
        alone.add_files(vec![("s.jsonl".into(), session_1_6())], vec![], 1.0);
        let laid = alone.lay_out();
        assert_eq!(laid.exported(None), laid.files);
        let files = laid.exported(Some(ctxlens::PiVersion::V1_6_0));
        let mut again = Scenario::default();
        again.add_files(
            files
                .into_iter()
                .map(|(k, v)| (format!("s/{k}"), v))
                .collect(),
            vec![],
            1.0,
        );
        assert!(again.lay_out().captured);
        let c = chosen(&again);
        assert_eq!((c.version.as_str(), c.reason), ("1.6.0", Reason::Captured));

        let report =
            |pi: &str| crate::report::Report::new(js::parse(&format!("{{\"pi\":{pi}}}")).unwrap());
        assert_eq!(
            session_release(&report(
                r#"{"version":"1.5.2","released":"2026-11-10","reason":"detected","explanation":null,"detection":null,"callRun":null,"newerSession":null,"builtinTools":[],"supported":[]}"#
            )),
            Some(ctxlens::PiVersion::V1_5_2)
        );
        assert_eq!(
            session_release(&report(
                r#"{"version":"0.85.1","released":"2026-09-06","reason":"call","explanation":null,"detection":null,"callRun":{"lastLine":9,"nextRunLine":10,"later":"1.6.0"},"newerSession":null,"builtinTools":[],"supported":[]}"#
            )),
            Some(ctxlens::PiVersion::V1_6_0)
        );
    }

    /// A new session forgets the release and the call picked for the one before.
    #[test]
    fn a_new_session_forgets_the_release_and_call_picked() {
        let mut sc = Scenario::default();
        sc.add_files(
            vec![("a.jsonl".into(), SESSION.as_bytes().to_vec())],
            vec![],
            1.0,
        );
        sc.overrides.pi = Some(ctxlens::PiVersion::V0_85_1);
        sc.overrides.call = Some(CallRef::Index(1));
        sc.overrides.model = Some("p/m".into());
        sc.add_files(vec![("AGENTS.md".into(), b"x\n".to_vec())], vec![], 1.0);
        assert_eq!(
            sc.overrides.pi,
            Some(ctxlens::PiVersion::V0_85_1),
            "a file that is not a session keeps them"
        );
        sc.add_files(vec![("b.jsonl".into(), session_1_6())], vec![], 1.0);
        assert_eq!((sc.overrides.pi, sc.overrides.call.clone()), (None, None));
        assert_eq!(
            sc.overrides.model.as_deref(),
            Some("p/m"),
            "the settings stay"
        );
        sc.overrides.pi = Some(ctxlens::PiVersion::V1_4_0);
        sc.add_pasted_session(SESSION.into(), 1.0);
        assert_eq!(sc.overrides.pi, None, "a pasted session too");
    }
}

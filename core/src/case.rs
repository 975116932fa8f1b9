//! Case folders in the oracle's layout (`../shared/oracle/README.md`), as data: given the files
//! of a case (relative path → bytes), lay them out as the oracle does before it runs pi —
//! `fs/` at the env's `root`, `agent/` at its `agentDir`, models.json (base URLs pointed at the
//! stand-in on 127.0.0.1, `apiKey` defaulting to "test-key") in the agent dir, the session at
//! `<root>/session.jsonl` — and return the [`Inputs`]. The CLI reads folders from disk into this
//! shape; the visualizer gets it from a dropped folder or the bundled demo.

// Text from the user: no string is sliced by byte range (a cut inside a character panics).
#![deny(clippy::string_slice)]

use std::collections::BTreeMap;

use crate::calls::CallRef;
use crate::js::path::join_path;
use crate::js::{self, Value};
use crate::pi::PiVersion;
use crate::{Inputs, SourceText, VirtualFs};

/// A case folder's files: path relative to the case folder (`/`-separated) → bytes.
pub type CaseFiles = BTreeMap<String, Vec<u8>>;

/// Why a case could not be read.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseError(pub String);

impl std::fmt::Display for CaseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn text(files: &CaseFiles, path: &str) -> Option<String> {
    files
        .get(path)
        .map(|b| String::from_utf8_lossy(b).into_owned())
}

fn json(files: &CaseFiles, path: &str) -> Result<Option<Value>, CaseError> {
    match text(files, path) {
        None => Ok(None),
        Some(t) => js::parse(&t)
            .map(Some)
            .map_err(|e| CaseError(format!("{path}: {e}"))),
    }
}

/// The folder holding the capture's env.json: `expected/` in the corpus, or wherever it is.
pub fn find_env_dir(files: &CaseFiles) -> Option<String> {
    if files.contains_key("expected/env.json") {
        return Some("expected".into());
    }
    files
        .keys()
        .filter(|k| k.ends_with("env.json"))
        .min_by_key(|k| k.len())
        .map(|k| {
            k.rsplit_once('/')
                .map_or(String::new(), |(dir, _)| dir.into())
        })
}

fn in_dir(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

/// The oracle's rewrite of models.json: every provider's `baseUrl` host becomes the stand-in's
/// (`http://127.0.0.1:PORT`, path kept; `/v1` when there is none) and `apiKey` defaults to
/// "test-key".
pub fn rewrite_models_json(models: &Value, port: &str) -> Value {
    let mut out = models.clone();
    if let Some(providers) = out
        .as_object_mut()
        .and_then(|o| o.get_mut("providers"))
        .and_then(Value::as_object_mut)
    {
        for (_, p) in providers.iter_mut() {
            let Some(p) = p.as_object_mut() else { continue };
            let base = match p.get_str("baseUrl").filter(|s| !s.is_empty()) {
                Some(url) => {
                    let rest = url
                        .strip_prefix("https://")
                        .or_else(|| url.strip_prefix("http://"))
                        .map(|r| {
                            r.split_once('/')
                                .map_or(String::new(), |(_, p)| format!("/{p}"))
                        });
                    match rest {
                        Some(path) => format!("http://127.0.0.1:{port}{path}"),
                        None => url.to_string(),
                    }
                }
                None => format!("http://127.0.0.1:{port}/v1"),
            };
            p.insert("baseUrl", Value::String(base.into()));
            if p.get("apiKey").is_none_or(Value::is_null) {
                p.insert("apiKey", Value::str("test-key"));
            }
        }
    }
    out
}

/// The time the captured prompt was sent: the timestamp of the last user message in
/// `session.after.jsonl` that the input session did not have (the last, not the first: a v1
/// session is migrated with fresh entry ids, so all its user messages look new).
pub fn captured_now(session_after: &str, original: Option<&str>) -> Option<f64> {
    captured_time(session_after, original, "user")
}

/// When pi created the run's system message (0.86 on): the timestamp of the last system message
/// in `session.after.jsonl` that the input session did not have.
pub fn captured_system_now(session_after: &str, original: Option<&str>) -> Option<f64> {
    captured_time(session_after, original, "system")
}

fn captured_time(session_after: &str, original: Option<&str>, role: &str) -> Option<f64> {
    // Only lines that name the role are parsed: a session can be tens of megabytes.
    let needle = format!("\"{role}\"");
    let user_lines = || session_after.lines().filter(|l| l.contains(&needle));
    let mut known: std::collections::HashSet<String> = std::collections::HashSet::new();
    for line in original
        .unwrap_or("")
        .lines()
        .filter(|l| l.contains(&needle))
    {
        if let Some(id) = js::parse(line)
            .ok()
            .and_then(|v| v.get_str("id").map(String::from))
        {
            known.insert(id);
        }
    }
    user_lines()
        .filter_map(|l| js::parse(l).ok())
        .filter_map(|v| {
            let id = v.get_str("id")?;
            if known.contains(id) || v.get_str("type") != Some("message") {
                return None;
            }
            let msg = v.get("message")?;
            (msg.get_str("role") == Some(role))
                .then(|| msg.get("timestamp").and_then(Value::as_f64))
                .flatten()
        })
        .next_back()
}

/// Lays out a case. `env_dir` is the folder (relative to the case) holding the capture's
/// env.json, request-1.meta.json and session.after.jsonl; `None` finds it.
pub fn inputs_from_case(files: &CaseFiles, env_dir: Option<&str>) -> Result<Inputs, CaseError> {
    let case = json(files, "case.json")?.ok_or_else(|| CaseError("case.json is missing".into()))?;
    let env_dir = env_dir
        .map(String::from)
        .or_else(|| find_env_dir(files))
        .ok_or_else(|| CaseError("env.json is missing (a capture's expected/env.json)".into()))?;
    let env = json(files, &in_dir(&env_dir, "env.json"))?
        .ok_or_else(|| CaseError(format!("{}: missing", in_dir(&env_dir, "env.json"))))?;
    let str_field = |v: &Value, key: &str| v.get_str(key).map(String::from);
    let root = str_field(&env, "root").ok_or_else(|| CaseError("env.json: no root".into()))?;
    let agent_dir = str_field(&env, "agentDir").unwrap_or_else(|| format!("{root}/home/.pi/agent"));
    let home = str_field(&env, "home").unwrap_or_else(|| format!("{root}/home"));

    // The release that made the capture (the oracle writes it); older captures say nothing.
    // Captures from before the oracle wrote it were all made with 0.85.1.
    let pi = match str_field(&env, "piVersion") {
        Some(v) => v
            .parse::<PiVersion>()
            .map_err(|e| CaseError(format!("{}: {e}", in_dir(&env_dir, "env.json"))))?,
        None => PiVersion::V0_85_1,
    };
    let meta = json(files, &in_dir(&env_dir, "request-1.meta.json"))
        .ok()
        .flatten();
    let header = |name: &str| {
        meta.as_ref()
            .and_then(|m| m.get("headers"))
            .and_then(|h| h.get_str(name))
            .map(String::from)
    };
    let port = header("host")
        .and_then(|h| h.rsplit_once(':').map(|(_, p)| p.to_string()))
        .unwrap_or_else(|| "8080".into());

    let mut vfs = VirtualFs::new();
    // Folders that exist without a file pi reads below them (an export's `dirs`).
    for d in env
        .get("dirs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(d) = d.as_str() {
            vfs.insert_dir(d);
        }
    }
    for (path, bytes) in files {
        if let Some(rest) = path.strip_prefix("fs/") {
            vfs.insert(&join_path(&root, rest), bytes.clone());
        } else if let Some(rest) = path.strip_prefix("agent/") {
            vfs.insert(&join_path(&agent_dir, rest), bytes.clone());
        }
    }
    if let Some(models) = json(files, "models.json")? {
        vfs.insert(
            &join_path(&agent_dir, "models.json"),
            rewrite_models_json(&models, &port).to_json_pretty(2),
        );
    }

    let session_text = text(files, "session.jsonl");
    let session = session_text.as_ref().map(|t| SourceText {
        // Where the session lives (an export's `sessionPath`), else the oracle's place for it.
        name: str_field(&env, "sessionPath").unwrap_or_else(|| join_path(&root, "session.jsonl")),
        text: t.as_str().into(),
    });
    let extension_tools = text(files, "tools.json").map(|t| SourceText {
        name: "tools.json".into(),
        text: t.into(),
    });

    let mut env_vars: BTreeMap<String, String> = BTreeMap::new();
    if let Some(o) = case.get("env").and_then(Value::as_object) {
        for (k, v) in o.iter() {
            let s = match v {
                Value::String(s) => s.clone(),
                other => other.to_json().into(),
            };
            env_vars.insert(k.to_string(), s.to_string());
        }
    }
    env_vars.insert("HOME".into(), home.clone());
    env_vars.insert("PI_OFFLINE".into(), "1".into());

    let args: Vec<String> = env
        .get("args")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let after = text(files, &in_dir(&env_dir, "session.after.jsonl"));
    let now = after
        .as_deref()
        .and_then(|after| captured_now(after, session_text.as_deref()));
    let system_now = after
        .as_deref()
        .and_then(|after| captured_system_now(after, session_text.as_deref()));

    Ok(Inputs {
        session,
        files: vfs,
        home,
        agent_dir,
        cwd: str_field(&env, "cwd").unwrap_or_else(|| root.clone()),
        pi_package_dir: str_field(&env, "piPackageDir").unwrap_or_default(),
        model: str_field(&env, "model").or_else(|| str_field(&case, "model")),
        thinking: str_field(&env, "thinking").or_else(|| str_field(&case, "thinking")),
        running_pi: false,
        args,
        env: env_vars,
        extension_tools,
        // npm's global root as the machine had it (an export of an install records it).
        npm_global_root: str_field(&env, "npmGlobalRoot"),
        // A capture without a prompt (or `"prompt": null`, an export of a continue) rebuilds
        // pi's continue, or the session's last call.
        prompt: str_field(&env, "prompt"),
        // An export of a past call says which (`call`: its number, entry id or `next`).
        call: env.get_str("call").map(CallRef::parse),
        // A capture's time is its session's; an export without one states it (`nowMs`).
        now_ms: now
            .or_else(|| env.get("nowMs").and_then(Value::as_f64))
            .unwrap_or(0.0),
        system_now_ms: system_now.or_else(|| env.get("systemNowMs").and_then(Value::as_f64)),
        api: None,
        pi: None,
        captured_pi: Some(pi),
        installed_pi: None,
        host_diagnostics: Vec::new(),
        session_id: str_field(&env, "sessionId"),
        // pi's own User-Agent (`pi (<os>; <arch>)`, `pi/<version> (…)`) holds no ", ": a
        // captured one that does is pi's joined with a configured `user-agent` header (fetch
        // joins names differing in case, `pi-0.86.1/gg-headers`), whose first part is pi's.
        user_agent: header("user-agent").map(|ua| {
            if ua.starts_with("pi (") || ua.starts_with("pi/") {
                ua.split(", ").next().unwrap_or(&ua).to_string()
            } else {
                ua
            }
        }),
        // An export of inputs that let pi use a placeholder key (`placeholderKey`).
        placeholder_key: env.get("placeholderKey").and_then(Value::as_bool) == Some(true),
    })
}

/// The folder of a case that holds the capture's files (`env.json`, …) in an export.
pub const EXPORT_ENV_DIR: &str = "expected";

/// [`Inputs`] as a case folder that [`inputs_from_case`] lays out again as the same inputs: the
/// app's **Export case**, the CLI's `export` and `open`. The env's `root` is `/`, so every file
/// keeps its absolute path: the agent dir's files go to `agent/`, all others to `fs/<path>`;
/// models.json stays in `agent/` as it is (the top-level models.json of a capture is the
/// oracle's, rewritten on the way in). `expected/env.json` holds the paths, the model, thinking
/// level, prompt (`null`: none), the call rebuilt (`call`), pi's arguments, the release (`pi`, else the one asked for,
/// else the captured one), `nowMs`/`systemNowMs`, `placeholderKey`, `sessionPath` (the session file's name) and `dirs` (the folders pi tests for existence only); `case.json` the environment variables.
/// An API protocol switch is not part of a case.
pub fn case_from_inputs(inputs: &Inputs, pi: Option<PiVersion>) -> CaseFiles {
    let mut files = CaseFiles::new();
    let agent = format!("{}/", inputs.agent_dir.trim_end_matches('/'));
    for (path, bytes) in inputs.files.iter() {
        let key = match path.strip_prefix(&agent) {
            Some(rest) if !rest.is_empty() => format!("agent/{rest}"),
            _ => format!("fs/{}", path.trim_start_matches('/')),
        };
        files.insert(key, bytes.clone());
    }
    if let Some(s) = &inputs.session {
        files.insert("session.jsonl".into(), s.text.as_bytes().to_vec());
    }
    if let Some(t) = &inputs.extension_tools {
        files.insert("tools.json".into(), t.text.as_bytes().to_vec());
    }
    let env_vars: js::Object = inputs
        .env
        .iter()
        .filter(|(k, _)| k.as_str() != "HOME" && env_pi_may_read(inputs, k))
        .map(|(k, v)| (k.as_str(), Value::str(v)))
        .collect();
    files.insert(
        "case.json".into(),
        Value::from(js::Object::new().with("env", env_vars))
            .to_json_pretty(2)
            .into_bytes(),
    );
    let opt = |v: &Option<String>| v.as_deref().map_or(Value::Null, Value::str);
    let mut env = js::Object::new()
        .with("root", "/")
        .with("home", inputs.home.as_str())
        .with("agentDir", inputs.agent_dir.as_str())
        .with("cwd", inputs.cwd.as_str())
        .with("piPackageDir", inputs.pi_package_dir.as_str());
    env.insert_opt("sessionId", inputs.session_id.as_deref().map(Value::str));
    env.insert_opt(
        "sessionPath",
        inputs.session.as_ref().map(|s| Value::str(s.name.as_str())),
    );
    env.insert_opt("model", inputs.model.as_deref().map(Value::str));
    env.insert_opt("thinking", inputs.thinking.as_deref().map(Value::str));
    env.insert("prompt", opt(&inputs.prompt));
    env.insert_opt(
        "call",
        inputs.call.as_ref().map(|c| Value::str(c.to_string())),
    );
    env.insert(
        "args",
        Value::Array(inputs.args.iter().map(Value::str).collect()),
    );
    env.insert_opt(
        "piVersion",
        pi.or(inputs.pi)
            .or(inputs.captured_pi)
            .map(|v| Value::from(v.as_str())),
    );
    if inputs.now_ms != 0.0 {
        env.insert("nowMs", Value::Number(inputs.now_ms));
    }
    env.insert_opt("systemNowMs", inputs.system_now_ms.map(Value::Number));
    // npm's global root, as given or as the environment sets it (the export keeps only the
    // variables pi's request reads).
    env.insert_opt(
        "npmGlobalRoot",
        crate::packages::npm_global_root(inputs.npm_global_root.as_deref(), &inputs.env)
            .map(Value::str),
    );
    if inputs.placeholder_key {
        env.insert("placeholderKey", Value::Bool(true));
    }
    // Folders pi tests for existence only (a `.git`, an empty `.pi/extensions`).
    let dirs: Vec<Value> = inputs.files.dirs().map(Value::str).collect();
    if !dirs.is_empty() {
        env.insert("dirs", Value::Array(dirs));
    }
    files.insert(
        format!("{EXPORT_ENV_DIR}/env.json"),
        Value::from(env).to_json_pretty(2).into_bytes(),
    );
    if let Some(ua) = &inputs.user_agent {
        let meta =
            js::Object::new().with("headers", js::Object::new().with("user-agent", ua.as_str()));
        files.insert(
            format!("{EXPORT_ENV_DIR}/request-1.meta.json"),
            Value::from(meta).to_json_pretty(2).into_bytes(),
        );
    }
    files
}

/// Prefixes of the environment variables pi's providers and SDKs read.
const PROVIDER_ENV: [&str; 40] = [
    "PI_",
    "AWS_",
    "AZURE_",
    "ANTHROPIC_",
    "OPENAI_",
    "GOOGLE_",
    "GEMINI_",
    "GCLOUD",
    "CLOUDSDK_",
    "VERTEX",
    "MISTRAL_",
    "COPILOT",
    "GITHUB_",
    "GH_",
    "OPENROUTER_",
    "BEDROCK_",
    "CLAUDE_",
    "CODEX_",
    "CHATGPT_",
    "XAI_",
    "GROQ_",
    "CEREBRAS_",
    "DEEPSEEK_",
    "HF_",
    "HUGGINGFACE",
    "ZAI_",
    "MOONSHOT_",
    "KIMI_",
    "FIREWORKS_",
    "TOGETHER_",
    "NVIDIA_",
    "OLLAMA_",
    "LITELLM_",
    "OPENCODE_",
    "MINIMAX",
    "DASHSCOPE",
    "QWEN",
    "CLOUDFLARE_",
    "VERCEL_",
    "LMSTUDIO",
];

/// Whether pi could read the environment variable `name` for a request: pi's own (`PI_…`),
/// a provider's or SDK's (by prefix), anything named like a key, or a name the agent dir's or
/// the project's models.json or settings.json mentions (`apiKey`, header templates). The rest
/// of a process environment (`PATH`, `SHELL`, `SSH_AUTH_SOCK`, …) stays out of an export.
pub fn env_pi_may_read(inputs: &Inputs, name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    if PROVIDER_ENV.iter().any(|p| upper.starts_with(p))
        || ["KEY", "TOKEN", "SECRET", "API", "PASSWORD", "CREDENTIAL"]
            .iter()
            .any(|w| upper.contains(w))
    {
        return true;
    }
    inputs.files.iter().any(|(path, bytes)| {
        (path.ends_with("/models.json") || path.ends_with("/settings.json"))
            && bytes
                .windows(name.len().max(1))
                .any(|w| w == name.as_bytes())
    })
}

/// The case manifest of a case folder (what the app's `?case=` and `<ctxlens-view case>` read):
/// `{"ctxlens": "case", "files": [...]}`, as `scripts/case-manifest.mjs` writes it.
pub fn manifest(files: &CaseFiles) -> String {
    let list: Vec<Value> = files.keys().map(Value::str).collect();
    format!(
        "{}\n",
        Value::from(
            js::Object::new()
                .with("ctxlens", "case")
                .with("files", Value::Array(list))
        )
        .to_json_pretty(1)
    )
}

/// The first byte where `got` and `want` differ, with up to 60 bytes of context from each.
pub fn first_difference(got: &str, want: &str) -> Option<(usize, String, String)> {
    let pos = got
        .bytes()
        .zip(want.bytes())
        .position(|(x, y)| x != y)
        .or_else(|| (got.len() != want.len()).then(|| got.len().min(want.len())))?;
    let ctx = |s: &str| {
        let mut start = pos.saturating_sub(60).min(s.len());
        while !s.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = (pos + 60).min(s.len());
        while !s.is_char_boundary(end) {
            end += 1;
        }
        s.get(start..end).unwrap_or_default().to_string()
    };
    Some((pos, ctx(got), ctx(want)))
}

/// Where two JSON texts first differ as values: the dot path (`messages.3.content.0.text`,
/// array indices as numbers; a key order or a member one side lacks is a difference at the
/// object), with each side's value there (compact JSON, cut to 200 bytes). `None` when they
/// are equal as JSON values in key order, or when either is not JSON.
pub fn json_difference(got: &str, want: &str) -> Option<(String, String, String)> {
    let (a, b) = (js::parse(got).ok()?, js::parse(want).ok()?);
    value_difference(&mut Vec::new(), &a, &b, 0)
}

/// [`json_difference`] of two JSON texts, both valid, that first differ at byte `byte`
/// ([`first_difference`]): only the innermost array or object open there is read as a value —
/// what comes before it is the same text on both sides, so it holds no difference — and of an
/// array, only its items from the one the difference is in.
pub fn json_difference_at(got: &str, want: &str, byte: usize) -> Option<(String, String, String)> {
    let open = open_at(got, byte).unwrap_or_default();
    let Some((inner, outer)) = open.split_last() else {
        return json_difference(got, want);
    };
    let mut path: Vec<String> = Vec::new();
    for f in outer {
        path.push(f.child(got)?);
    }
    // Of an array, its items from the one the difference is in (the same index on both
    // sides): `[` and the rest of the array's text.
    let from = match inner.kind {
        b'[' if inner.index > 0 => inner.child_start,
        _ => inner.start,
    };
    let text = |s: &str| -> Option<Value> {
        let end = container_end(s, inner.start)?;
        let rest = s.get(from..end)?;
        if from == inner.start {
            js::parse(rest).ok()
        } else {
            js::parse(&format!("[{rest}")).ok()
        }
    };
    let offset = if from == inner.start { 0 } else { inner.index };
    match value_difference(&mut path, &text(got)?, &text(want)?, offset) {
        // Equal as values though not as text (an escape written two ways): later text may
        // differ too.
        None => json_difference(got, want),
        found => found,
    }
}

/// An array or object open at a byte of a JSON text: where it starts, and its child there (the
/// count of its items or members before, where the current one starts, and a member's key).
struct Open {
    kind: u8,
    start: usize,
    index: usize,
    child_start: usize,
    key: Option<(usize, usize)>,
}

impl Open {
    /// The child's path component: a member's key, an item's index.
    fn child(&self, text: &str) -> Option<String> {
        match self.key {
            Some((s, e)) if self.kind == b'{' => {
                js::parse(text.get(s..e)?).ok()?.as_str().map(String::from)
            }
            _ => Some(self.index.to_string()),
        }
    }
}

/// The arrays and objects open at `byte` of JSON text `s`, outermost first (`None`: none, or
/// `byte` is inside a string of no container).
fn open_at(s: &str, byte: usize) -> Option<Vec<Open>> {
    let bytes = s.as_bytes();
    let mut stack: Vec<Open> = Vec::new();
    let mut i = 0;
    while i < byte.min(bytes.len()) {
        match bytes[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                // A key: a string where a member starts.
                if let Some(f) = stack.last_mut() {
                    if f.kind == b'{' && f.key.is_none() {
                        f.key = Some((start, (i + 1).min(bytes.len())));
                    }
                }
            }
            c @ (b'{' | b'[') => stack.push(Open {
                kind: c,
                start: i,
                index: 0,
                child_start: i + 1,
                key: None,
            }),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => {
                if let Some(f) = stack.last_mut() {
                    f.index += 1;
                    f.child_start = i + 1;
                    f.key = None;
                }
            }
            _ => {}
        }
        i += 1;
    }
    (!stack.is_empty()).then_some(stack)
}

/// The byte after the array or object of JSON text `s` that opens at `start`.
fn container_end(s: &str, start: usize) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut depth = 0usize;
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The first difference of `a` and `b` at `path` (an array's items numbered from `offset`).
fn value_difference(
    path: &mut Vec<String>,
    a: &Value,
    b: &Value,
    offset: usize,
) -> Option<(String, String, String)> {
    fn cut(v: Option<&Value>) -> String {
        let s = v.map_or_else(|| "(absent)".to_string(), Value::to_json);
        match s.char_indices().nth(200) {
            Some((i, _)) => format!("{}…", s.get(..i).unwrap_or_default()),
            None => s,
        }
    }
    let here = |path: &[String]| path.join(".");
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let kx: Vec<&str> = x.keys().map(|k| k.as_str()).collect();
            let ky: Vec<&str> = y.keys().map(|k| k.as_str()).collect();
            for (i, k) in kx.iter().enumerate() {
                if ky.get(i) != Some(k) {
                    // A member out of order or only on one side.
                    path.push((*k).to_string());
                    let at = here(path);
                    path.pop();
                    return Some((at, cut(x.get(k)), cut(y.get(k))));
                }
                path.push((*k).to_string());
                let d = value_difference(path, x.get(k)?, y.get(k)?, 0);
                path.pop();
                if d.is_some() {
                    return d;
                }
            }
            ky.get(kx.len()).map(|k| {
                path.push((*k).to_string());
                let at = here(path);
                path.pop();
                (at, cut(None), cut(y.get(k)))
            })
        }
        (Value::Array(x), Value::Array(y)) => {
            for i in 0..x.len().max(y.len()) {
                path.push((offset + i).to_string());
                let d = match (x.get(i), y.get(i)) {
                    (Some(p), Some(q)) => value_difference(path, p, q, 0),
                    (p, q) => Some((here(path), cut(p), cut(q))),
                };
                path.pop();
                if d.is_some() {
                    return d;
                }
            }
            None
        }
        _ if a.to_json() == b.to_json() => None,
        _ => Some((here(path), cut(Some(a)), cut(Some(b)))),
    }
}

/// A capture's inputs on the session as pi left it (`session.after.jsonl`, where every call of
/// the run is stored), rebuilding `call` (its request, as pi sent it): the case's files, flags
/// and environment as the run had them, no prompt.
pub fn call_inputs(base: &Inputs, session_after: &str, call: CallRef) -> Inputs {
    let mut inputs = base.clone();
    let name = base
        .session
        .as_ref()
        .map(|s| s.name.clone())
        .unwrap_or_else(|| "session.jsonl".into());
    inputs.session = Some(SourceText {
        name,
        text: session_after.into(),
    });
    inputs.prompt = None;
    inputs.call = Some(call);
    inputs
}

/// A case's inputs for `call` (`--call` in the CLI's case mode, the npm `assembleCase` option):
/// on the capture's `session.after.jsonl` when the case has one (every call of the run is stored
/// there: request `n` is call `calls before the run + n`), else on the case's own session.
/// `None`: [`inputs_from_case`].
pub fn inputs_for_call(
    files: &CaseFiles,
    env_dir: Option<&str>,
    call: Option<CallRef>,
) -> Result<Inputs, CaseError> {
    let base = inputs_from_case(files, env_dir)?;
    let Some(call) = call else { return Ok(base) };
    let env_dir = env_dir
        .map(String::from)
        .or_else(|| find_env_dir(files))
        .unwrap_or_default();
    Ok(
        match text(files, &in_dir(&env_dir, "session.after.jsonl")) {
            Some(after) => call_inputs(&base, &after, call),
            None => Inputs {
                call: Some(call),
                prompt: None,
                ..base
            },
        },
    )
}

/// How many model calls the active branch of `inputs`' session has (0 without one). For a
/// capture: request `n` of the run is call `calls(session.after) - requests + n`, which is
/// `calls(session.jsonl) + n` unless pi rewrote links it had in memory (a migrated session whose
/// `[]` line lost its id).
pub fn calls_on_active_branch(inputs: &Inputs) -> usize {
    let Some(src) = &inputs.session else { return 0 };
    let version = inputs
        .pi
        .or(inputs.captured_pi)
        .unwrap_or(PiVersion::LATEST);
    let Ok(pi) = crate::Pi::new(version) else {
        return 0;
    };
    let file = crate::session::parse(&pi, src);
    crate::session::active_path(&file)
        .into_iter()
        .filter(|&i| crate::calls::is_call(&file, i))
        .count()
}

#[cfg(test)]
mod difference_tests {
    use super::*;

    /// A small deterministic generator (the same mutations every run).
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self, n: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 33) as usize) % n.max(1)
        }
    }

    /// Changes the `target`-th node of `v` (in document order) one way or another: a string
    /// longer or cut, a number changed, a member removed or moved last, an item removed,
    /// doubled or a container emptied. Returns how many nodes it passed.
    fn mutate(v: &mut Value, target: &mut usize, how: usize) -> bool {
        if *target == 0 {
            match v {
                Value::String(s) => {
                    let t = s.to_string();
                    *v = Value::str(if how % 2 == 0 {
                        format!("{t}x")
                    } else {
                        t.chars().take(t.chars().count() / 2).collect()
                    });
                }
                Value::Number(n) => *n += 1.0,
                Value::Object(o) if !o.is_empty() => {
                    let keys: Vec<String> = o.keys().map(|k| k.to_string()).collect();
                    let k = &keys[how % keys.len()];
                    let x = o.remove(k).unwrap();
                    if how % 3 == 0 {
                        o.insert(k.as_str(), x);
                    }
                }
                Value::Array(a) if !a.is_empty() => {
                    let i = how % a.len();
                    match how % 3 {
                        0 => {
                            a.remove(i);
                        }
                        1 => {
                            let x = a[i].clone();
                            a.insert(i, x);
                        }
                        _ => a.truncate(i),
                    }
                }
                other => *other = Value::Bool(true),
            }
            return true;
        }
        *target -= 1;
        match v {
            Value::Object(o) => o.iter_mut().any(|(_, x)| mutate(x, target, how)),
            Value::Array(a) => a.iter_mut().any(|x| mutate(x, target, how)),
            _ => false,
        }
    }

    fn nodes(v: &Value) -> usize {
        1 + match v {
            Value::Object(o) => o.iter().map(|(_, x)| nodes(x)).sum(),
            Value::Array(a) => a.iter().map(nodes).sum(),
            _ => 0,
        }
    }

    fn check(a: &str, b: &str, what: &str) -> bool {
        let Some((byte, _, _)) = first_difference(a, b) else {
            return false;
        };
        assert_eq!(
            json_difference_at(a, b, byte),
            json_difference(a, b),
            "{what}"
        );
        true
    }

    /// Reading only the innermost array or object open at the first differing byte finds what
    /// reading both texts whole finds: on every captured body changed at random places (each
    /// kind of change at every depth), and between consecutive captured requests of a case.
    #[test]
    fn the_difference_found_from_the_first_differing_byte_is_the_whole_texts_one() {
        let mut rng = Lcg(7);
        let (mut pairs, mut nested) = (0, 0);
        for case in ctxlens_corpus::cases("").into_iter().step_by(7) {
            let Some(a) = case.body(1) else { continue };
            let Ok(v) = js::parse(&a) else { continue };
            let n = nodes(&v);
            for _ in 0..6 {
                let mut w = v.clone();
                let mut target = rng.next(n);
                let deep = target > 0;
                mutate(&mut w, &mut target, rng.next(1000));
                pairs += usize::from(check(&a, &w.to_json(), &case.name));
                nested += usize::from(deep);
            }
            if let Some(b) = case.body(2) {
                pairs += usize::from(check(&a, &b, &case.name));
            }
        }
        assert!(
            pairs > 500 && nested > 400,
            "{pairs} pairs, {nested} nested"
        );
    }

    #[test]
    fn a_difference_in_an_array_s_later_items_is_numbered_in_the_whole_array() {
        let (a, b) = (r#"{"m":[1,2,[3,"x"],4]}"#, r#"{"m":[1,2,[3,"y"]]}"#);
        let byte = first_difference(a, b).unwrap().0;
        let found = json_difference_at(a, b, byte).unwrap();
        assert_eq!(
            found,
            (
                "m.2.1".to_string(),
                "\"x\"".to_string(),
                "\"y\"".to_string()
            )
        );
        assert_eq!(Some(found), json_difference(a, b));
        let (a, b) = (r#"[1,2,3]"#, r#"[1,2]"#);
        let found = json_difference_at(a, b, first_difference(a, b).unwrap().0);
        assert_eq!(found, Some(("2".into(), "3".into(), "(absent)".into())));
    }
}

//! Reads a case folder in the oracle's layout (`../shared/oracle/README.md`) and lays it out as
//! the oracle does before it runs pi: `fs/` at the env's `root`, `agent/` at its `agentDir`,
//! models.json (base URLs pointed at the stand-in on 127.0.0.1, `apiKey` defaulting to
//! "test-key") in the agent dir, the session copied to `<root>/session.jsonl`.
//!
//! This is the only place that touches the filesystem for an assembly; the core gets plain data.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use ctxlens::inputs::join_path;
use ctxlens::js::{self, Object, Value};
use ctxlens::{Inputs, SourceText, VirtualFs};

/// What went wrong reading a case (a usage error, not an input diagnostic).
#[derive(Debug)]
pub struct CaseError(pub String);

impl std::fmt::Display for CaseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn read_json(path: &Path) -> Result<Value, CaseError> {
    let text = fs::read_to_string(path).map_err(|e| CaseError(format!("{}: {e}", path.display())))?;
    js::parse(&text).map_err(|e| CaseError(format!("{}: {e}", path.display())))
}

fn str_field(v: &Value, key: &str) -> Option<String> {
    v.get_str(key).map(String::from)
}

/// Adds every file below `dir` to `vfs` under `mount`.
pub fn mount_dir(vfs: &mut VirtualFs, dir: &Path, mount: &str) -> Result<(), CaseError> {
    if !dir.is_dir() {
        return Ok(());
    }
    let mut stack: Vec<(PathBuf, String)> = vec![(dir.to_path_buf(), mount.to_string())];
    while let Some((d, m)) = stack.pop() {
        let rd = fs::read_dir(&d).map_err(|e| CaseError(format!("{}: {e}", d.display())))?;
        for entry in rd {
            let entry = entry.map_err(|e| CaseError(format!("{}: {e}", d.display())))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            let target = join_path(&m, &name);
            let ft = entry.file_type().map_err(|e| CaseError(format!("{}: {e}", path.display())))?;
            if ft.is_dir() {
                stack.push((path, target));
            } else if ft.is_file() {
                let bytes = fs::read(&path).map_err(|e| CaseError(format!("{}: {e}", path.display())))?;
                vfs.insert(&target, bytes);
            }
        }
    }
    Ok(())
}

/// The oracle's rewrite of models.json: every provider's `baseUrl` host becomes the stand-in's
/// (`http://127.0.0.1:PORT`, path kept; `/v1` when there is none) and `apiKey` defaults to
/// "test-key".
pub fn rewrite_models_json(models: &Value, port: &str) -> Value {
    let mut out = models.clone();
    if let Some(providers) = out.as_object_mut().and_then(|o| o.get_mut("providers")).and_then(Value::as_object_mut) {
        for (_, p) in providers.iter_mut() {
            let Some(p) = p.as_object_mut() else { continue };
            let base = match p.get_str("baseUrl").filter(|s| !s.is_empty()) {
                Some(url) => {
                    let rest = url
                        .strip_prefix("https://")
                        .or_else(|| url.strip_prefix("http://"))
                        .map(|r| r.find('/').map(|i| &r[i..]).unwrap_or(""));
                    match rest {
                        Some(path) => format!("http://127.0.0.1:{port}{path}"),
                        None => url.to_string(),
                    }
                }
                None => format!("http://127.0.0.1:{port}/v1"),
            };
            p.insert("baseUrl", Value::String(base));
            if p.get("apiKey").is_none_or(Value::is_null) {
                p.insert("apiKey", Value::str("test-key"));
            }
        }
    }
    out
}

/// The time the captured prompt was sent: the timestamp of the first user message in
/// `session.after.jsonl` that the input session did not have.
pub fn captured_now(session_after: &str, original: Option<&str>) -> Option<f64> {
    let known: std::collections::HashSet<String> = original
        .unwrap_or("")
        .lines()
        .filter_map(|l| js::parse(l).ok())
        .filter_map(|v| v.get_str("id").map(String::from))
        .collect();
    session_after.lines().filter_map(|l| js::parse(l).ok()).find_map(|v| {
        let id = v.get_str("id")?;
        if known.contains(id) || v.get_str("type") != Some("message") {
            return None;
        }
        let msg = v.get("message")?;
        (msg.get_str("role") == Some("user")).then(|| msg.get("timestamp").and_then(Value::as_f64)).flatten()
    })
}

/// A case laid out as the oracle lays it out, ready to assemble.
pub struct LoadedCase {
    pub inputs: Inputs,
    /// The captured bodies beside the env file (`request-N.json`), if present.
    pub expected_dir: PathBuf,
}

/// Reads `case_dir` with the absolute paths from `env_json` (a capture's env.json).
pub fn load(case_dir: &Path, env_json: &Path) -> Result<LoadedCase, CaseError> {
    let case = read_json(&case_dir.join("case.json"))?;
    let env = read_json(env_json)?;
    let expected_dir = env_json.parent().map(Path::to_path_buf).unwrap_or_default();
    let root = str_field(&env, "root").ok_or_else(|| CaseError(format!("{}: no root", env_json.display())))?;
    let agent_dir = str_field(&env, "agentDir").unwrap_or_else(|| format!("{root}/home/.pi/agent"));
    let home = str_field(&env, "home").unwrap_or_else(|| format!("{root}/home"));

    let meta = read_json(&expected_dir.join("request-1.meta.json")).ok();
    let header = |name: &str| meta.as_ref().and_then(|m| m.get("headers")).and_then(|h| h.get_str(name)).map(String::from);
    let port = header("host").and_then(|h| h.rsplit_once(':').map(|(_, p)| p.to_string())).unwrap_or_else(|| "8080".into());

    let mut files = VirtualFs::new();
    mount_dir(&mut files, &case_dir.join("fs"), &root)?;
    mount_dir(&mut files, &case_dir.join("agent"), &agent_dir)?;
    let models_path = case_dir.join("models.json");
    if models_path.is_file() {
        let models = rewrite_models_json(&read_json(&models_path)?, &port);
        files.insert(&join_path(&agent_dir, "models.json"), models.to_json_pretty(2));
    }

    let session_text = fs::read_to_string(case_dir.join("session.jsonl")).ok();
    let session = session_text.as_ref().map(|text| SourceText { name: format!("{root}/session.jsonl"), text: text.clone() });
    let extension_tools = fs::read_to_string(case_dir.join("tools.json"))
        .ok()
        .map(|text| SourceText { name: case_dir.join("tools.json").display().to_string(), text });

    let mut env_vars: BTreeMap<String, String> = BTreeMap::new();
    if let Some(o) = case.get("env").and_then(Value::as_object) {
        for (k, v) in o.iter() {
            let s = match v {
                Value::String(s) => s.clone(),
                other => other.to_json(),
            };
            env_vars.insert(k.clone(), s);
        }
    }
    env_vars.insert("HOME".into(), home.clone());
    env_vars.insert("PI_OFFLINE".into(), "1".into());

    let args: Vec<String> = env
        .get("args")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|v| v.as_str().map(String::from)).collect())
        .unwrap_or_default();
    let now = fs::read_to_string(expected_dir.join("session.after.jsonl"))
        .ok()
        .and_then(|after| captured_now(&after, session_text.as_deref()));

    let inputs = Inputs {
        session,
        files,
        home,
        agent_dir,
        cwd: str_field(&env, "cwd").unwrap_or_else(|| root.clone()),
        pi_package_dir: str_field(&env, "piPackageDir").unwrap_or_default(),
        model: str_field(&env, "model").or_else(|| str_field(&case, "model")),
        thinking: str_field(&env, "thinking").or_else(|| str_field(&case, "thinking")),
        args,
        env: env_vars,
        extension_tools,
        prompt: Some(str_field(&env, "prompt").unwrap_or_else(|| "go on".into())),
        now_ms: now.unwrap_or(0.0),
        api: None,
        session_id: str_field(&env, "sessionId"),
        user_agent: header("user-agent").unwrap_or_else(|| Inputs::default().user_agent),
    };
    Ok(LoadedCase { inputs, expected_dir })
}

/// The first byte where `a` and `b` differ, with a little context from each.
pub fn first_difference(a: &str, b: &str) -> Option<(usize, String, String)> {
    let pos = a.bytes().zip(b.bytes()).position(|(x, y)| x != y).or_else(|| (a.len() != b.len()).then(|| a.len().min(b.len())))?;
    let ctx = |s: &str| {
        let mut start = pos.saturating_sub(60);
        while !s.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = (pos + 60).min(s.len());
        while !s.is_char_boundary(end) {
            end += 1;
        }
        s[start..end].to_string()
    };
    Some((pos, ctx(a), ctx(b)))
}

/// Reads an object-valued JSON file, for tools that take one.
pub fn read_object(path: &Path) -> Result<Object, CaseError> {
    match read_json(path)? {
        Value::Object(o) => Ok(o),
        _ => Err(CaseError(format!("{}: not a JSON object", path.display()))),
    }
}

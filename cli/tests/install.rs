//! The CLI on a real install: captured cases laid out exactly as the oracle laid them (`fs/` at
//! `/tmp/pi-ctx-demo`, `agent/` at its `home/.pi/agent`, models.json rewritten as the oracle
//! rewrites it, the session at `/tmp/pi-ctx-demo/session.jsonl`), HOME set, the oracle's pi
//! release on PATH, and the built `ctxlens assemble SESSION --prompt … --model … --thinking …
//! [args] --now MS` run there: its stdout must be the captured body, byte for byte.
//!
//! `/tmp/pi-ctx-demo` is the oracle's fixed root: each case holds `/tmp/pi-capture.lock` (the
//! lock the captures take) while it lays the tree out and runs, and removes the tree after.
//!
//! A case without a session.jsonl started a new session: the session it resumes here is the
//! header pi wrote for it (the first line of `expected/session.after.jsonl`).

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Command;

use ctxlens::js::{self, Value};
use ctxlens_corpus::Case;

const ROOT: &str = "/tmp/pi-ctx-demo";
const LOCK: &str = "/tmp/pi-capture.lock";

/// Holds the capture lock; the laid tree is removed when it is dropped.
struct Laid {
    lock: fs::File,
}

impl Drop for Laid {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(ROOT);
        let _ = self.lock.unlock();
    }
}

fn lock() -> Laid {
    let lock = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(LOCK)
        .expect("open the capture lock");
    lock.lock().expect("flock the capture lock");
    let _ = fs::remove_dir_all(ROOT);
    Laid { lock }
}

fn write(path: &Path, bytes: &[u8]) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

fn pi_bin(version: &str) -> &'static str {
    match version {
        "0.85.1" => "/opt/pi-oracle/node_modules/.bin",
        "1.6.0" => "/opt/pi-oracle-1.6.0/node_modules/.bin",
        v => panic!("no oracle install for {v}"),
    }
}

fn str_of(v: &Value, k: &str) -> Option<String> {
    v.get_str(k).map(String::from)
}

/// What a run gave.
struct Run {
    stdout: Vec<u8>,
    stderr: String,
    code: i32,
}

/// Lays `case` out as the oracle did and runs `ctxlens COMMAND SESSION …` in its cwd. `extra`:
/// more ctxlens arguments. The lock is held by the caller.
fn run_case(case: &Case, command: &str, extra: &[&str]) -> Run {
    run_case_as(case, command, extra, None)
}

/// How the session is given to ctxlens.
#[derive(Clone, Copy, PartialEq)]
enum Given {
    /// The case's session (or the header pi wrote for a new one), or — with a call — the one pi
    /// left.
    Session,
    /// No session file at all: a new session's first request (`--prompt` alone).
    NewSession,
}

/// [`run_case`], or with `call`: the session laid is the one pi left (`session.after.jsonl`) and
/// ctxlens rebuilds its `call`-th model call (`--call K`, the call's own model and level).
fn run_case_as(case: &Case, command: &str, extra: &[&str], call: Option<usize>) -> Run {
    run_case_given(case, command, extra, call, Given::Session)
}

fn run_case_given(
    case: &Case,
    command: &str,
    extra: &[&str],
    call: Option<usize>,
    given: Given,
) -> Run {
    let files = case.files();
    let env = js::parse(&String::from_utf8_lossy(&files["expected/env.json"])).unwrap();
    let case_json = js::parse(&String::from_utf8_lossy(&files["case.json"])).unwrap();
    let version = str_of(&env, "piVersion").unwrap_or_else(|| "0.85.1".into());
    let home = format!("{ROOT}/home");
    let agent = format!("{home}/.pi/agent");
    for (rel, bytes) in &files {
        if let Some(r) = rel.strip_prefix("fs/") {
            write(&Path::new(ROOT).join(r), bytes);
        } else if let Some(r) = rel.strip_prefix("agent/") {
            write(&Path::new(&agent).join(r), bytes);
        }
    }
    let meta = case.meta(1).map(|m| js::parse(&m).unwrap());
    let port = meta
        .as_ref()
        .and_then(|m| m.get("headers"))
        .and_then(|h| h.get_str("host"))
        .and_then(|h| h.rsplit_once(':').map(|(_, p)| p.to_string()))
        .unwrap_or_else(|| "8080".into());
    if let Some(m) = files.get("models.json") {
        let v = js::parse(&String::from_utf8_lossy(m)).unwrap();
        write(
            &Path::new(&agent).join("models.json"),
            ctxlens::case::rewrite_models_json(&v, &port)
                .to_json_pretty(2)
                .as_bytes(),
        );
    }
    let after = case.session_after().unwrap_or_default();
    let session_text = match (call, files.get("session.jsonl")) {
        (Some(_), _) => after.clone(),
        (None, Some(s)) => String::from_utf8_lossy(s).into_owned(),
        (None, None) => format!("{}\n", after.lines().next().unwrap_or("")),
    };
    let session = format!("{ROOT}/session.jsonl");
    write(Path::new(&session), session_text.as_bytes());
    let cwd = str_of(&env, "cwd").unwrap();
    fs::create_dir_all(&cwd).unwrap();

    let mut args: Vec<String> = vec![command.into()];
    if given == Given::Session {
        args.push(session.clone());
    }
    if let Some(k) = call {
        args.extend(["--call".into(), k.to_string()]);
    }
    if let (None, Some(p)) = (call, str_of(&env, "prompt")) {
        args.extend(["--prompt".into(), p]);
    }
    if let (None, Some(m)) = (call, str_of(&env, "model")) {
        args.extend(["--model".into(), m]);
    }
    if let (None, Some(t)) = (call, str_of(&env, "thinking")) {
        args.extend(["--thinking".into(), t]);
    }
    let now = ctxlens::case::captured_now(&after, Some(&session_text)).unwrap_or(0.0);
    args.extend(["--now".into(), format!("{now}")]);
    if let Some(t) = ctxlens::case::captured_system_now(&after, Some(&session_text)) {
        args.extend(["--system-now".into(), format!("{t}")]);
    }
    if files.contains_key("tools.json") {
        args.extend([
            "--tool-set".into(),
            case.dir.join("tools.json").to_string_lossy().into_owned(),
        ]);
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    if let Some(a) = env.get("args").and_then(Value::as_array) {
        args.extend(a.iter().filter_map(|v| v.as_str().map(String::from)));
    }
    let mut vars: BTreeMap<String, String> = BTreeMap::new();
    if let Some(o) = case_json.get("env").and_then(Value::as_object) {
        for (k, v) in o.iter() {
            let s = match v {
                Value::String(s) => s.to_string(),
                other => other.to_json(),
            };
            vars.insert(k.to_string(), s);
        }
    }
    vars.insert("HOME".into(), home);
    vars.insert("PATH".into(), format!("{}:/usr/bin:/bin", pi_bin(&version)));
    let out = Command::new(env!("CARGO_BIN_EXE_ctxlens"))
        .args(&args)
        .current_dir(&cwd)
        .env_clear()
        .envs(&vars)
        .output()
        .expect("run ctxlens");
    Run {
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// Runs `assemble` on each case and compares with its request-1.json; returns the failures.
fn check(names: &[&str]) -> Vec<String> {
    let mut failures = Vec::new();
    for name in names {
        let case = Case::named(name);
        let want = case
            .body(1)
            .unwrap_or_else(|| panic!("{name}: no request-1.json"));
        let _laid = lock();
        let got = run_case(&case, "assemble", &[]);
        if got.stdout != want.as_bytes() {
            if let Ok(d) = std::env::var("CTXLENS_INSTALL_DUMP") {
                let n = name.replace('/', "_");
                let _ = fs::write(format!("{d}/{n}.got"), &got.stdout);
                let _ = fs::write(format!("{d}/{n}.want"), &want);
            }
            let g = String::from_utf8_lossy(&got.stdout);
            let where_ = ctxlens::case::json_difference(&g, &want)
                .map(|(p, a, b)| format!("at {p}: got {a}, want {b}"))
                .unwrap_or_else(|| "(not JSON)".into());
            failures.push(format!(
                "{name}: exit {}; {where_}\n{}",
                got.code,
                got.stderr.lines().take(12).collect::<Vec<_>>().join("\n")
            ));
        }
    }
    failures
}

/// Cases of 0.85.1: context files at several depths (AGENTS.override.md, AGENTS.md and CLAUDE.md
/// in one folder), the agent dir's AGENTS.md, SYSTEM.md and APPEND_SYSTEM.md (agent dir and a
/// trusted project), skills (agent, project, settings paths, --skill), settings, pi's flags
/// (--no-context-files, --no-skills, --exclude-tools, --approve, --append-system-prompt), @file
/// attachments, extension tools through --tool-set, resumed sessions, a stored OAuth login,
/// prompt templates (agent, project, settings paths, --prompt-template), `/skill:` prompts and
/// pi packages (npm under the agent dir and the project's `.pi/npm`, git, local paths).
const CASES_085: &[&str] = &[
    "pi-0.85.1/oc-basic",
    "pi-0.85.1/oc-context-shadowing",
    "pi-0.85.1/oc-agent-system-md",
    "pi-0.85.1/oc-append-default-prompt",
    "pi-0.85.1/oc-no-context-no-skills",
    "pi-0.85.1/oc-file-attachment",
    "pi-0.85.1/oc-extra-tools-snippets",
    "pi-0.85.1/oc-exclude-tools",
    "pi-0.85.1/oc-session-compaction",
    "pi-0.85.1/an-skills",
    "pi-0.85.1/an-system-prompt-files",
    "pi-0.85.1/an-budget-settings",
    "pi-0.85.1/sp-trusted-project-files",
    "pi-0.85.1/cli-install-files",
    "pi-0.85.1/cli-auth-oauth",
    "pi-0.85.1/pt-template-args",
    "pi-0.85.1/pt-template-shadow",
    "pi-0.85.1/pt-template-cli",
    "pi-0.85.1/pt-template-unknown",
    "pi-0.85.1/pt-skill-args",
    "pi-0.85.1/pt-template-untrusted",
    "pi-0.85.1/pkg-npm",
    "pi-0.85.1/pkg-filters",
    "pi-0.85.1/pkg-project",
    "pi-0.85.1/pkg-untrusted",
    "pi-0.85.1/pkg-cli",
    "pi-0.85.1/pkg-cli-no-skills",
    "pi-0.85.1/pkg-npm-global",
];

/// Cases of 1.6.0: the same kinds of files and flags (and pi-messages, whose body carries the
/// system message's time: --system-now).
const CASES_160: &[&str] = &[
    "pi-1.6.0/cli-install-files",
    "pi-1.6.0/cli-auth-oauth",
    "pi-1.6.0/bd-resume-append",
    "pi-1.6.0/an-midconvo",
    "pi-1.6.0/an-resume-085",
    "pi-1.6.0/an-resume-patch",
    "pi-1.6.0/sp-fresh-custom",
    "pi-1.6.0/sp-fresh-bash-grep",
    "pi-1.6.0/cx-image",
    "pi-1.6.0/cx-catalog-fresh",
    "pi-1.6.0/pm-fresh-low",
    "pi-1.6.0/an-oauth",
    "pi-1.6.0/pt-template-args",
    "pi-1.6.0/pt-template-shadow",
    "pi-1.6.0/pt-template-cli",
    "pi-1.6.0/pt-template-unknown",
    "pi-1.6.0/pt-skill-args",
    "pi-1.6.0/pt-template-untrusted",
    "pi-1.6.0/pkg-npm",
    "pi-1.6.0/pkg-filters",
    "pi-1.6.0/pkg-project",
    "pi-1.6.0/pkg-resume",
    "pi-1.6.0/pkg-ext-resume",
    "pi-1.6.0/pkg-untrusted",
    "pi-1.6.0/pkg-cli",
    "pi-1.6.0/pkg-cli-no-skills",
    "pi-1.6.0/pkg-npm-global",
];

#[test]
fn real_install_0_85_1() {
    let f = check(CASES_085);
    assert!(f.is_empty(), "{}", f.join("\n\n"));
}

#[test]
fn real_install_1_6_0() {
    let f = check(CASES_160);
    assert!(f.is_empty(), "{}", f.join("\n\n"));
}

/// Every captured case, laid out and run as a real install (slow: `cargo test -p ctxlens-cli
/// --test install -- --ignored`; `CTXLENS_CASES=FILTER` narrows it): each gives pi's body, and
/// where pi refused to send, ctxlens refuses too.
#[test]
#[ignore = "slow: every corpus case as a real install (-- --ignored)"]
fn every_case_as_a_real_install() {
    let filter = std::env::var("CTXLENS_CASES").unwrap_or_default();
    let cases = ctxlens_corpus::cases(&filter);
    let names: Vec<String> = cases
        .iter()
        .filter(|c| c.name.starts_with("pi-") && c.body(1).is_some())
        .map(|c| c.name.clone())
        .collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let f = check(&refs);
    eprintln!(
        "{} of {} cases give pi's body as a real install",
        refs.len() - f.len(),
        refs.len()
    );
    for x in &f {
        eprintln!("{}", x.lines().take(4).collect::<Vec<_>>().join("\n    "));
    }
    // Where pi refused to send, ctxlens refuses too (no body, exit 1, the reason on stderr).
    let refused: Vec<&Case> = cases
        .iter()
        .filter(|c| c.name.starts_with("pi-") && c.body(1).is_none() && c.pi_error().is_some())
        .collect();
    let mut sent = Vec::new();
    for c in &refused {
        let _laid = lock();
        let got = run_case(c, "assemble", &[]);
        if got.code != 1 || !got.stdout.is_empty() || !got.stderr.contains("ctxlens: no request: ")
        {
            sent.push(format!("{}: exit {}", c.name, got.code));
        }
    }
    eprintln!(
        "{} of {} cases pi refuses are refused as a real install{}",
        refused.len() - sent.len(),
        refused.len(),
        if sent.is_empty() {
            String::new()
        } else {
            format!(": not {}", sent.join(", "))
        }
    );
    assert!(f.is_empty() && sent.is_empty(), "{}", f.join("\n\n"));
}

/// The files command on an install: what pi read, which copy lost, what it ignored, and why.
#[test]
fn files_say_what_was_read_shadowed_and_ignored() {
    let case = Case::named("pi-0.85.1/cli-install-files");
    let _laid = lock();
    let got = run_case(&case, "files", &["--json"]);
    assert_eq!(got.code, 0, "{}", got.stderr);
    let v = js::parse(&String::from_utf8_lossy(&got.stdout)).unwrap();
    let files = v.get("files").and_then(Value::as_array).unwrap();
    let find = |p: &str| {
        files
            .iter()
            .find(|f| f.get_str("path") == Some(p))
            .unwrap_or_else(|| panic!("{p} not listed: {}", v.to_json_pretty(1)))
    };
    let root = ROOT;
    let agent = format!("{root}/home/.pi/agent");
    let claude = find(&format!("{root}/work/proj/CLAUDE.md"));
    assert_eq!(claude.get_str("status"), Some("shadowed"));
    assert_eq!(
        claude.get_str("by"),
        Some(format!("{root}/work/proj/AGENTS.md").as_str())
    );
    // pi never looks below the cwd, so neither does ctxlens.
    assert!(files
        .iter()
        .all(|f| f.get_str("path") != Some(&format!("{root}/work/proj/sub/AGENTS.md"))));
    let append = find(&format!("{agent}/APPEND_SYSTEM.md"));
    assert_eq!(append.get_str("status"), Some("shadowed"));
    assert_eq!(
        append.get_str("by"),
        Some(format!("{root}/work/proj/.pi/APPEND_SYSTEM.md").as_str())
    );
    for read in [
        format!("{agent}/AGENTS.md"),
        format!("{agent}/SYSTEM.md"),
        format!("{agent}/settings.json"),
        format!("{root}/work/proj/.pi/settings.json"),
        format!("{root}/work/CLAUDE.md"),
        format!("{root}/work/proj/notes.txt"),
        format!("{root}/cli-skill/SKILL.md"),
        format!("{root}/home/extra-skills/lint/SKILL.md"),
    ] {
        assert_eq!(find(&read).get_str("status"), Some("read"), "{read}");
    }
    // Only what pi reads is read: not the session folder, not the project's other files.
    assert!(files
        .iter()
        .all(|f| !f.get_str("path").unwrap().contains("/sessions/")));
    // A file pi reads but a flag makes it ignore: --no-context-files.
    drop(_laid);
    let _laid = lock();
    let none = run_case(
        &Case::named("pi-0.85.1/oc-no-context-no-skills"),
        "files",
        &["--json"],
    );
    let v2 = js::parse(&String::from_utf8_lossy(&none.stdout)).unwrap();
    let agents = v2
        .get("files")
        .and_then(Value::as_array)
        .unwrap()
        .iter()
        .find(|f| f.get_str("path") == Some(&format!("{agent}/AGENTS.md")))
        .expect("the agent dir's AGENTS.md is listed");
    assert_eq!(agents.get_str("status"), Some("unused"));
    assert!(
        agents
            .get_str("why")
            .unwrap()
            .contains("--no-context-files"),
        "{agents:?}"
    );
    drop(_laid);
    let _laid = lock();
    // The text form says the same in words.
    let text = run_case(&case, "files", &[]);
    let t = String::from_utf8_lossy(&text.stdout);
    assert!(
        t.contains(&format!("shadowed  {root}/work/proj/CLAUDE.md")),
        "{t}"
    );
}

/// Without --tool-set, the output says that extension tools are not included; with one it
/// does not. A captured request body as the tool set gives the same tools array pi sent.
#[test]
fn extension_tools_are_said_to_be_missing_or_taken_from_a_tool_set() {
    let case = Case::named("pi-0.85.1/oc-basic");
    let _laid = lock();
    let got = run_case(&case, "diagnostics", &[]);
    let out = String::from_utf8_lossy(&got.stdout);
    assert!(
        got.stderr
            .contains("ctxlens: note: extension tools are not included"),
        "{}",
        got.stderr
    );
    assert!(out.contains("extension tools are not included"), "{out}");
    drop(_laid);

    // oc-extra-tools-snippets: its request body (OpenAI shape) as the tool set.
    let case = Case::named("pi-0.85.1/oc-extra-tools-snippets");
    let want = js::parse(&case.body(1).unwrap()).unwrap();
    let body_file = case.dir.join("expected/request-1.json");
    let _laid = lock();
    // (run_case passes the case's tools.json first; the later --tool-set wins.)
    let got = run_case(
        &case,
        "assemble",
        &["--tool-set", body_file.to_str().unwrap()],
    );
    assert!(
        !got.stderr.contains("extension tools are not included"),
        "{}",
        got.stderr
    );
    let body = js::parse(&String::from_utf8_lossy(&got.stdout)).unwrap();
    assert_eq!(
        body.get("tools").map(Value::to_json),
        want.get("tools").map(Value::to_json)
    );
}

/// Every call of a scripted capture, rebuilt from the session pi left with `--call K`: request K
/// of the run, byte for byte (the run started a new session, so its K-th call is request K).
/// A new session's first request with no session file (`ctxlens assemble --prompt …` in the
/// project folder): pi's body, byte for byte, but for the session id pi draws at random, which
/// ctxlens stands in for (a UUIDv7 of the time with zero random bits) and says so.
#[test]
fn a_new_sessions_first_request_needs_no_session_file() {
    let mut failures = Vec::new();
    for name in [
        "pi-0.85.1/oc-basic",
        "pi-0.85.1/an-skills",
        "pi-1.6.0/sp-fresh-custom",
        "pi-1.6.0/an-fresh",
        "pi-1.6.0/pkg-npm",
        "pi-1.6.0/rs-fresh",
        "pi-1.6.0/pm-fresh-low",
    ] {
        let case = Case::named(name);
        assert!(
            !case.files().contains_key("session.jsonl"),
            "{name} resumes a session"
        );
        let env = js::parse(&String::from_utf8_lossy(&case.files()["expected/env.json"])).unwrap();
        let id = str_of(&env, "sessionId").unwrap();
        let _laid = lock();
        let got = run_case_given(&case, "assemble", &[], None, Given::NewSession);
        let got = String::from_utf8_lossy(&got.stdout).into_owned();
        let mut want = case.body(1).unwrap();
        // The stand-in id, where pi's body carries the id it drew.
        let stand_in = got
            .match_indices("-7000-8000-000000000000")
            .next()
            .and_then(|(at, _)| got.get(at.checked_sub(13)?..at + 23));
        if want.contains(&id) {
            match stand_in {
                Some(s) => want = want.replace(&id, s),
                None => failures.push(format!(
                    "{name}: pi's body carries the session id, ctxlens's no stand-in"
                )),
            }
        } else if stand_in.is_some() {
            failures.push(format!("{name}: a stand-in id where pi's body has none"));
        }
        if got != want {
            failures.push(format!(
                "{name}: {}",
                ctxlens::case::json_difference(&got, &want)
                    .map(|(p, a, b)| format!("at {p}: got {a}, want {b}"))
                    .unwrap_or_else(|| format!("(not JSON) {}", &got[..got.len().min(300)]))
            ));
        }
        let said = run_case_given(&case, "diagnostics", &[], None, Given::NewSession);
        assert!(
            String::from_utf8_lossy(&said.stdout).contains("a new session in /tmp/pi-ctx-demo"),
            "{name}: the stand-in id is not said: {}",
            String::from_utf8_lossy(&said.stdout)
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_call_of_a_scripted_run_with_call_k() {
    let mut failures = Vec::new();
    for name in [
        "pi-0.85.1/oc-demo",
        "pi-0.85.1/an-scripted",
        "pi-1.6.0/an-scripted",
        "pi-1.6.0/cx-scripted",
    ] {
        let case = Case::named(name);
        let mut k = 1;
        while let Some(want) = case.body(k) {
            let _laid = lock();
            let got = run_case_as(&case, "assemble", &[], Some(k));
            if got.stdout != want.as_bytes() {
                let g = String::from_utf8_lossy(&got.stdout);
                failures.push(format!(
                    "{name} --call {k}: exit {}; {:?}\n{}",
                    got.code,
                    ctxlens::case::json_difference(&g, &want),
                    got.stderr
                ));
            }
            k += 1;
        }
        assert!(k > 2, "{name}: a scripted capture has several requests");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[path = "support/unzip.rs"]
mod unzip;

/// `export` on an install: the zip, read back with `--case`, gives pi's body; redacted, it still
/// builds the request and holds no home path.
#[test]
fn an_export_of_an_install_is_the_same_case() {
    let dir = std::env::temp_dir().join(format!("ctxlens-install-export-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    for name in [
        "pi-0.85.1/cli-install-files",
        "pi-1.6.0/cli-install-files",
        "pi-1.6.0/cli-auth-oauth",
    ] {
        let case = Case::named(name);
        let want = case.body(1).unwrap();
        let n = name.replace('/', "_");
        let (zip, red) = (dir.join(format!("{n}.zip")), dir.join(format!("{n}-r.zip")));
        fs::create_dir_all(&dir).unwrap();
        {
            let _laid = lock();
            for (z, extra) in [(&zip, None), (&red, Some("--redact"))] {
                let mut args = vec!["-o", z.to_str().unwrap()];
                args.extend(extra);
                let got = run_case(&case, "export", &args);
                assert_eq!(got.code, 0, "{name}: {}", got.stderr);
            }
        }
        for (z, redacted) in [(&zip, false), (&red, true)] {
            let folder = dir.join(format!("{n}-{redacted}"));
            let stem = z.file_stem().unwrap().to_str().unwrap().to_string();
            for (entry, bytes) in unzip::unzip(&fs::read(z).unwrap()) {
                let rel = entry.strip_prefix(&format!("{stem}/")).expect("one folder");
                if redacted {
                    let text = String::from_utf8_lossy(&bytes);
                    assert!(
                        !text.contains(&format!("{ROOT}/home"))
                            && !rel.contains("pi-ctx-demo/home"),
                        "{name}: {rel} holds the home path"
                    );
                }
                write(&folder.join(rel), &bytes);
            }
            let out = Command::new(env!("CARGO_BIN_EXE_ctxlens"))
                .args(["assemble", "--case"])
                .arg(&folder)
                .env_clear()
                .output()
                .unwrap();
            assert_eq!(
                out.status.code(),
                Some(0),
                "{name}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            if !redacted {
                assert!(
                    out.stdout == want.as_bytes(),
                    "{name}: the exported case builds pi's body"
                );
            }
        }
    }
    let _ = fs::remove_dir_all(&dir);
}

/// `usage` on the session pi left after a scripted run, laid as a real install: every call is
/// counted with the usage pi recorded and rebuilt to a body of exactly the size pi sent (the
/// blocks add up to the captured bodies' lengths, counted here in UTF-16 units).
#[test]
fn usage_rebuilds_every_call_of_a_real_install_to_the_size_pi_sent() {
    for name in ["pi-0.85.1/an-scripted", "pi-1.6.0/an-scripted"] {
        let case = Case::named(name);
        let (mut bodies, mut chars) = (0, 0usize);
        while let Some(b) = case.body(bodies + 1) {
            chars += b.encode_utf16().count();
            bodies += 1;
        }
        let after = case.session_after().unwrap();
        let input: f64 = after
            .lines()
            .filter_map(|l| js::parse(l).ok())
            .filter_map(|v| v.get("message")?.get("usage")?.get("input")?.as_f64())
            .sum();
        let _laid = lock();
        let run = run_case_as(&case, "usage", &["--json", "--by", "session"], Some(1));
        assert_eq!(run.code, 0, "{name}: {}", run.stderr);
        let v = js::parse(&String::from_utf8_lossy(&run.stdout)).unwrap();
        let totals = v.get("totals").unwrap();
        assert_eq!(
            totals.get("calls").and_then(Value::as_f64),
            Some(bodies as f64),
            "{name}"
        );
        assert_eq!(
            totals.get("input").and_then(Value::as_f64),
            Some(input),
            "{name}"
        );
        assert_eq!(
            v.get("rebuilt").and_then(Value::as_f64),
            Some(bodies as f64),
            "{name}: {:?}",
            v.get("read")
        );
        let blocks = v.get("blocks").unwrap().as_object().unwrap();
        let sum: f64 = blocks
            .iter()
            .filter_map(|(_, b)| b.get("chars")?.as_f64())
            .sum();
        assert_eq!(
            sum, chars as f64,
            "{name}: the rebuilt bodies' blocks against pi's bodies"
        );
        let release = if name.starts_with("pi-1.6.0") {
            "1.6.0"
        } else {
            "0.85.1"
        };
        let r = js::parse(&String::from_utf8_lossy(
            &run_case_as(&case, "usage", &["--json", "--by", "release"], Some(1)).stdout,
        ))
        .unwrap();
        let keys: Vec<&str> = r
            .get("groups")
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|g| g.get_str("key"))
            .collect();
        assert_eq!(keys, [format!("pi {release}")], "{name}");
    }
}

/// Copies a folder's files, recursively.
fn copy_tree(from: &Path, to: &Path) {
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            write(&target, &fs::read(entry.path()).unwrap());
        }
    }
}

/// pkg-npm-global with npm's global root known only to the settings' `npmCommand` (no
/// NPM_CONFIG_PREFIX): the CLI runs `COMMAND root -g` as pi does, and reads the package there.
#[test]
fn a_users_npm_package_is_found_in_the_global_root_the_npm_command_prints() {
    let original = Case::named("pi-1.6.0/pkg-npm-global");
    let dir = std::env::temp_dir().join(format!("ctxlens-npm-global-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    copy_tree(&original.dir, &dir);
    let fake = dir.join("fake-npm");
    write(
        &fake,
        b"#!/bin/sh\n[ \"$1 $2 $3\" = \"--quiet root -g\" ] && echo /tmp/pi-ctx-demo/npm-global/lib/node_modules\n",
    );
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&fake, fs::Permissions::from_mode(0o755)).unwrap();
    let settings = format!(
        "{{\n  \"npmCommand\": [\"{}\", \"--quiet\"],\n  \"packages\": [\"npm:global-kit\", \"npm:both-kit\", \"npm:ghost-kit\"]\n}}\n",
        fake.display()
    );
    write(&dir.join("agent/settings.json"), settings.as_bytes());
    let case_json = fs::read_to_string(dir.join("case.json")).unwrap().replace(
        ", \"NPM_CONFIG_PREFIX\": \"/tmp/pi-ctx-demo/npm-global\"",
        "",
    );
    assert!(!case_json.contains("\"NPM_CONFIG_PREFIX\""));
    write(&dir.join("case.json"), case_json.as_bytes());
    let case = Case {
        name: original.name.clone(),
        dir: dir.clone(),
    };
    let _laid = lock();
    let got = run_case(&case, "assemble", &[]);
    let want = original.body(1).unwrap();
    let _ = fs::remove_dir_all(&dir);
    assert_eq!(got.code, 0, "{}", got.stderr);
    assert_eq!(String::from_utf8_lossy(&got.stdout), want);
}

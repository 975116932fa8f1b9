//! The command line on a machine of its own making (a temporary home, project and pi install):
//! the session list, one-line usage errors, why a failed assemble failed, tool sets in every
//! shape, and the installed pi found through a link on PATH.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use ctxlens::js::{self, Value};

/// A temporary machine: `home/` (with `.pi/agent/`), `proj/`, `bin/`; removed when dropped.
struct Machine {
    root: PathBuf,
}

impl Drop for Machine {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

const MODELS: &str = r#"{"providers":{"mock":{"baseUrl":"http://127.0.0.1:9/v1","api":"openai-completions","apiKey":"test-key","models":[{"id":"m1","reasoning":false,"input":["text"],"contextWindow":128000,"maxTokens":4096}]}}}"#;

impl Machine {
    fn new(name: &str) -> Machine {
        let root = std::env::temp_dir().join(format!("ctxlens-cli-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        for d in ["home/.pi/agent", "proj", "bin"] {
            fs::create_dir_all(root.join(d)).unwrap();
        }
        let root = root.canonicalize().unwrap();
        let m = Machine { root };
        m.write("home/.pi/agent/models.json", MODELS);
        m
    }

    fn path(&self, rel: &str) -> String {
        self.root.join(rel).to_string_lossy().into_owned()
    }

    fn write(&self, rel: &str, text: &str) -> String {
        let p = self.root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    }

    /// A session whose header's cwd is the project, with one user message.
    fn session(&self, rel: &str, timestamp: &str, prompt: &str) -> String {
        let header = format!(
            r#"{{"type":"session","version":3,"id":"0199aaaa-0000-7000-8000-000000000001","timestamp":"{timestamp}","cwd":"{}"}}"#,
            self.path("proj")
        );
        let user = format!(
            r#"{{"type":"message","id":"a1","parentId":null,"timestamp":"{timestamp}","message":{{"role":"user","content":[{{"type":"text","text":{}}}],"timestamp":1}}}}"#,
            Value::str(prompt).to_json()
        );
        self.write(rel, &format!("{header}\n{user}\n"))
    }

    /// A fake pi package (`lib/node_modules/@earendil-works/pi-coding-agent`, the given
    /// version) with `bin/pi` linking to its cli.js, as npm installs it.
    fn install_pi(&self, version: &str) -> String {
        let pkg = "lib/node_modules/@earendil-works/pi-coding-agent";
        self.write(
            &format!("{pkg}/package.json"),
            &format!(r#"{{"name":"@earendil-works/pi-coding-agent","version":"{version}"}}"#),
        );
        self.write(&format!("{pkg}/dist/bundle/cli.js"), "");
        let link = self.root.join("bin/pi");
        let _ = fs::remove_file(&link);
        std::os::unix::fs::symlink(Path::new("../").join(pkg).join("dist/bundle/cli.js"), &link)
            .unwrap();
        self.path(pkg)
    }

    fn run(&self, args: &[&str]) -> (String, String, i32) {
        self.run_env(args, &[])
    }

    fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> (String, String, i32) {
        self.run_in("proj", args, env)
    }

    /// Runs in `dir` (relative to the machine's root).
    fn run_in(&self, dir: &str, args: &[&str], env: &[(&str, &str)]) -> (String, String, i32) {
        let out = Command::new(env!("CARGO_BIN_EXE_ctxlens"))
            .args(args)
            .current_dir(self.root.join(dir))
            .env_clear()
            .env("HOME", self.path("home"))
            .env("PATH", format!("{}:/usr/bin:/bin", self.path("bin")))
            .envs(env.iter().copied())
            .output()
            .unwrap();
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            out.status.code().unwrap_or(-1),
        )
    }
}

#[test]
fn no_session_lists_the_recent_sessions_newest_first() {
    let m = Machine::new("list");
    let dir = format!(
        "home/.pi/agent/sessions/{}",
        ctxlens::install::session_dir_name(&m.path("proj"))
    );
    let older = m.session(
        &format!("{dir}/2026-11-01T09-00-00-000Z_one.jsonl"),
        "2026-11-01T09:00:00.000Z",
        "first   prompt\nof the older one",
    );
    let newer = m.session(
        &format!("{dir}/2026-11-20T10-30-00-000Z_two.jsonl"),
        "2026-11-20T10:30:00.000Z",
        "the newer one",
    );
    let (out, err, code) = m.run(&[]);
    assert_eq!(code, 0, "{err}");
    let n = out.find(&newer).expect("the newer session listed");
    let o = out.find(&older).expect("the older session listed");
    assert!(n < o, "newest first:\n{out}");
    assert!(out.contains("2026-11-20 10:30 UTC"), "{out}");
    assert!(out.contains("first prompt of the older one"), "{out}");
    assert!(out.contains(&m.path("proj")), "the cwd:\n{out}");
    assert!(out.contains("ctxlens SESSION.jsonl"), "a hint:\n{out}");
    // --json: the same list as data.
    let (json, _, _) = m.run(&["sessions", "--json"]);
    let v = js::parse(&json).unwrap();
    let first = &v.as_array().unwrap()[0];
    assert_eq!(first.get_str("path"), Some(newer.as_str()));
    assert_eq!(first.get_str("firstPrompt"), Some("the newer one"));
    assert_eq!(first.get_str("cwd"), Some(m.path("proj").as_str()));
    // `sessions` is the same list; PI_CODING_AGENT_DIR moves it.
    assert_eq!(m.run(&["sessions"]).0, out);
    let (out, _, _) = m.run_env(&[], &[("PI_CODING_AGENT_DIR", &m.path("elsewhere"))]);
    assert!(out.starts_with("No pi sessions in "), "{out}");
}

#[test]
fn usage_errors_are_one_line() {
    let m = Machine::new("usage");
    let s = m.session("s.jsonl", "2026-11-20T10:30:00.000Z", "hi");
    let not_tools = m.write("not-tools.json", r#"{"hello": 1}"#);
    for (args, says) in [
        (vec!["--bogus"], "unknown option --bogus"),
        (vec!["assemble"], "assemble needs a session file"),
        (vec!["assemble", "/nonexistent/s.jsonl"], "no such file"),
        (vec!["a.jsonl", "b.jsonl"], "one session at a time"),
        (vec!["assemble", &s, "--call"], "--call needs a value"),
        (
            vec!["assemble", &s, "--pi", "2.0.0"],
            "not a release ctxlens rebuilds",
        ),
        (vec!["compare", &s], "compare needs --with API"),
        (vec!["assemble", &s, "--tools"], "--tools needs a value"),
        (
            vec!["assemble", &s, "--tool-set", &not_tools],
            "not a tool set",
        ),
        (
            vec!["usage"],
            "no such file or folder (pi's sessions folder",
        ),
        (
            vec!["usage", "/nonexistent/x"],
            "/nonexistent/x: no such file or folder",
        ),
        (vec!["usage", "--by", "year"], "--by takes day, week"),
        (
            vec!["usage", "--since", "last week"],
            "--since takes a date",
        ),
        (
            vec!["usage", "--set", "pi=1.6.0"],
            "each call is rebuilt by the release",
        ),
        (vec!["assemble", &s, "--by", "day"], "belong to usage"),
    ] {
        let (out, err, code) = m.run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert_eq!(err.lines().count(), 1, "{args:?}: one line, got:\n{err}");
        assert!(
            err.starts_with("ctxlens: ") && err.contains(says),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_failed_assemble_says_why() {
    let m = Machine::new("failed");
    let s = m.session("s.jsonl", "2026-11-20T10:30:00.000Z", "hi");
    let (out, err, code) = m.run(&["assemble", &s, "--prompt", "x", "--model", "nope/none"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty());
    assert!(
        err.lines()
            .last()
            .is_some_and(|l| l.starts_with("ctxlens: no request: ") && l.contains("nope/none")),
        "{err}"
    );
}

/// The same tool in every shape the app recognizes gives the same body.
#[test]
fn tool_sets_in_every_shape_give_the_same_tools() {
    let m = Machine::new("toolsets");
    let s = m.session("s.jsonl", "2026-11-20T10:30:00.000Z", "hi");
    let params = r#"{"type":"object","properties":{"env":{"type":"string"}},"required":["env"]}"#;
    let shapes = [
        format!(r#"[{{"name":"deploy","description":"Deploy it","parameters":{params}}}]"#),
        format!(
            r#"[{{"type":"function","function":{{"name":"deploy","description":"Deploy it","parameters":{params}}}}}]"#
        ),
        format!(r#"[{{"name":"deploy","description":"Deploy it","input_schema":{params}}}]"#),
        format!(
            r#"[{{"functionDeclarations":[{{"name":"deploy","description":"Deploy it","parameters":{params}}}]}}]"#
        ),
        format!(
            r#"[{{"toolSpec":{{"name":"deploy","description":"Deploy it","inputSchema":{{"json":{params}}}}}}}]"#
        ),
    ];
    let mut bodies = Vec::new();
    for (i, shape) in shapes.iter().enumerate() {
        let f = m.write(&format!("tools-{i}.json"), shape);
        let (out, err, code) = m.run(&[
            "assemble",
            &s,
            "--prompt",
            "go",
            "--model",
            "mock/m1",
            "--now",
            "1",
            "--tool-set",
            &f,
        ]);
        assert_eq!(code, 0, "{shape}: {err}");
        assert!(!err.contains("extension tools are not included"), "{err}");
        let body = js::parse(&out).unwrap();
        let tools = body.get("tools").and_then(Value::as_array).unwrap();
        let deploy = tools
            .iter()
            .find(|t| t.get("function").and_then(|f| f.get_str("name")) == Some("deploy"))
            .unwrap_or_else(|| panic!("{shape}: no deploy tool in {out}"));
        assert_eq!(
            deploy
                .get("function")
                .and_then(|f| f.get("parameters"))
                .map(Value::to_json),
            Some(js::parse(params).unwrap().to_json()),
            "{shape}"
        );
        bodies.push(out);
    }
    assert!(
        bodies.windows(2).all(|w| w[0] == w[1]),
        "every shape gives the same body"
    );
    // An empty tool set (pi's registry with no extension tools): none, and nothing to say.
    let f = m.write("tools-none.json", "[]");
    let (out, err, code) = m.run(&[
        "assemble",
        &s,
        "--prompt",
        "go",
        "--model",
        "mock/m1",
        "--now",
        "1",
        "--tool-set",
        &f,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("extension tools are not included"), "{err}");
    let names: Vec<String> = js::parse(&out)
        .unwrap()
        .get("tools")
        .and_then(Value::as_array)
        .unwrap()
        .iter()
        .filter_map(|t| {
            t.get("function")
                .and_then(|f| f.get_str("name"))
                .map(String::from)
        })
        .collect();
    assert!(!names.iter().any(|n| n == "deploy"), "{names:?}");
    // Without a tool set: a note on stderr and a diagnostic.
    let (_, err, code) = m.run(&["assemble", &s, "--prompt", "go", "--model", "mock/m1"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("ctxlens: note: extension tools are not included"),
        "{err}"
    );
    assert!(
        err.contains("--tool-set: info: extension tools are not included"),
        "{err}"
    );
    // The folders pi loads extensions from are named; --no-extensions: nothing to say.
    m.write(
        "home/.pi/agent/extensions/deploy.ts",
        "export default () => {}",
    );
    let (_, err, _) = m.run(&["assemble", &s, "--prompt", "go", "--model", "mock/m1"]);
    assert!(
        err.contains(&format!(
            "; extensions here: {}",
            m.path("home/.pi/agent/extensions")
        )),
        "{err}"
    );
    let (_, err, _) = m.run(&[
        "assemble",
        &s,
        "--prompt",
        "go",
        "--model",
        "mock/m1",
        "--no-extensions",
    ]);
    assert!(!err.contains("extension tools are not included"), "{err}");
}

#[test]
fn the_installed_pi_is_found_through_the_link_on_path() {
    let m = Machine::new("installed");
    let s = m.session("s.jsonl", "2026-11-20T10:30:00.000Z", "hi");
    let args = [
        "assemble", &s, "--prompt", "go", "--model", "mock/m1", "--now", "1",
    ];

    // No pi on PATH: said, with the paths assumed; the release comes from the session.
    let (out, err, code) = m.run(&args);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("no pi on PATH"), "{err}");
    assert!(out.contains(ctxlens::install::ASSUMED_PACKAGE_DIR), "{out}");

    // pi 0.85.1 installed: its release and its package's docs paths.
    let pkg = m.install_pi("0.85.1");
    let (out, err, code) = m.run(&args);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.starts_with("ctxlens: note: extension tools")
            && err.contains("ctxlens: rebuilding pi 0.85.1 (the pi installed here)"),
        "{err}"
    );
    assert!(out.contains(&format!("{pkg}/docs")), "{out}");

    // --pi wins over the installed release; --pi-dir points at another package.
    let (_, err, _) = m.run(&[&args[..], &["--pi", "1.6.0"]].concat());
    assert!(err.contains("rebuilding pi 1.6.0 (as asked)"), "{err}");
    let other = m.write(
        "other/pi/package.json",
        r#"{"name":"@earendil-works/pi-coding-agent","version":"1.6.0"}"#,
    );
    let other_dir = Path::new(&other)
        .parent()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let (out, err, _) = m.run(&[&args[..], &["--pi-dir", &other_dir]].concat());
    assert!(
        err.contains("rebuilding pi 1.6.0 (the pi installed here)"),
        "{err}"
    );
    assert!(out.contains(&format!("{other_dir}/docs")), "{out}");

    // An installed release ctxlens does not rebuild: said, with what is rebuilt instead.
    m.install_pi("1.7.0");
    let (_, err, code) = m.run(&args);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("the pi installed here is 1.7.0, a release ctxlens does not rebuild")
            && err.contains("rebuilding pi 0.85.1 (detected from the session"),
        "{err}"
    );
}

/// Keys are used, never printed: models.json's, auth.json's, the environment's, --api-key's.
#[test]
fn keys_are_never_printed() {
    let m = Machine::new("keys");
    m.write(
        "home/.pi/agent/models.json",
        &MODELS.replace("\"test-key\"", "\"sk-MODELS-SECRET-0001\""),
    );
    m.write(
        "home/.pi/agent/auth.json",
        r#"{"openai":{"type":"api_key","key":"sk-proj-STORED-SECRET-0002"},"anthropic":{"type":"oauth","access":"sk-ant-oat01-STORED-SECRET-0003","refresh":"r","expires":4102444800000}}"#,
    );
    let s = m.session("s.jsonl", "2026-11-20T10:30:00.000Z", "hi");
    let env = [("OPENAI_API_KEY", "sk-ENV-SECRET-0004")];
    for model in ["mock/m1", "openai/gpt-4.1", "anthropic/claude-sonnet-4-5"] {
        for cmd in [
            "summary",
            "assemble",
            "request",
            "report",
            "trace",
            "diagnostics",
            "files",
            "findings",
        ] {
            for extra in [
                &[][..],
                &["--json"][..],
                &["--api-key", "sk-ARG-SECRET-0005"][..],
            ] {
                let args = [&[cmd, &s, "--prompt", "go", "--model", model][..], extra].concat();
                let (out, err, _) = m.run_env(&args, &env);
                assert!(
                    !out.contains("SECRET") && !err.contains("SECRET"),
                    "{args:?} printed a key:\n{out}\n{err}"
                );
            }
        }
    }
    // The stored key is used: the request is built, its header redacted.
    let (out, err, code) = m.run_env(
        &["request", &s, "--prompt", "go", "--model", "openai/gpt-4.1"],
        &env,
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("authorization: Bearer <redacted>"), "{out}");
}

/// `@file` and `--skill` paths resolve in the folder ctxlens runs in (pi's process cwd), not in
/// the session's cwd; `files` says so.
#[test]
fn file_arguments_resolve_where_ctxlens_runs() {
    let m = Machine::new("atfile");
    let s = m.session("s.jsonl", "2026-11-20T10:30:00.000Z", "hi");
    m.write("elsewhere/notes.txt", "notes from elsewhere");
    fs::create_dir_all(m.root.join("elsewhere")).unwrap();
    let args = [
        "assemble",
        &s,
        "--prompt",
        "go",
        "--model",
        "mock/m1",
        "@notes.txt",
    ];
    let (out, err, code) = m.run_in("elsewhere", &args, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("notes from elsewhere"), "{out}");
    let files = [&["files"][..], &args[1..], &["--json"][..]].concat();
    let (out, err, _) = m.run_in("elsewhere", &files, &[]);
    let v = js::parse(&out).unwrap_or_else(|e| panic!("{e:?}: {out}{err}"));
    let notes = v
        .get("files")
        .and_then(Value::as_array)
        .unwrap()
        .iter()
        .find(|f| f.get_str("path") == Some(&m.path("elsewhere/notes.txt")))
        .unwrap_or_else(|| panic!("not listed: {out}"))
        .clone();
    assert_eq!(notes.get_str("status"), Some("read"), "{out}");
}

//! `--call K` in the CLI's case mode: a past model call rebuilt as pi sent it, and what the
//! CLI says when there is no such call or pi would refuse.

use std::process::Command;

use ctxlens_corpus::Case;

fn ctxlens(args: &[&str]) -> (Vec<u8>, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_ctxlens"))
        .args(args)
        .output()
        .expect("run ctxlens");
    (
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn call_k_is_request_k_of_a_scripted_capture() {
    let case = Case::named("pi-1.6.0/an-scripted");
    let dir = case.dir.to_string_lossy().into_owned();
    for n in 1..=5 {
        let (body, err, code) = ctxlens(&["assemble", "--case", &dir, "--call", &n.to_string()]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            body,
            case.body(n).expect("a captured request").into_bytes(),
            "request-{n}"
        );
    }
    // By entry id: the report names every call with its usage.
    let (report, _, code) = ctxlens(&["report", "--case", &dir, "--call", "2"]);
    assert_eq!(code, 0);
    let report = ctxlens::js::parse(std::str::from_utf8(&report).unwrap()).unwrap();
    let calls = report.get("calls").and_then(|c| c.as_array()).unwrap();
    assert_eq!(calls.len(), 5);
    let call = report.get("call").unwrap();
    assert_eq!(call.get("index").and_then(|i| i.as_f64()), Some(2.0));
    assert!(call.get("usage").and_then(|u| u.get("input")).is_some());
    let id = calls[3].get_str("entryId").unwrap();
    let (body, _, _) = ctxlens(&["assemble", "--case", &dir, "--call", id]);
    assert_eq!(body, case.body(4).unwrap().into_bytes());
}

#[test]
fn no_such_call_and_a_refused_continue_are_said() {
    let dir = Case::named("pi-1.6.0/an-scripted")
        .dir
        .to_string_lossy()
        .into_owned();
    let (body, err, code) = ctxlens(&["assemble", "--case", &dir, "--call", "9"]);
    assert!(body.is_empty());
    assert_eq!(code, 1);
    let (out, _, _) = ctxlens(&["diagnostics", "--case", &dir, "--call", "9"]);
    assert!(
        String::from_utf8_lossy(&out)
            .contains("call 9: the active branch has 5 model calls (calls 1 to 5)"),
        "{err}"
    );
    let (out, _, code) = ctxlens(&["diagnostics", "--case", &dir, "--call", "next"]);
    assert_eq!(code, 1);
    assert!(String::from_utf8_lossy(&out)
        .contains("pi would fail here: Error: Cannot continue from message role: assistant"));
    let (help, _, _) = ctxlens(&["--help"]);
    assert!(String::from_utf8_lossy(&help).contains("--call K"));
}

/// `--running-pi` (as `/ctxlens` inside pi passes the model and level pi runs with): the same
/// request, and the summary names pi's current model and level, not flags the user typed.
#[test]
fn the_running_pis_model_and_level_are_said_as_such() {
    let dir = Case::named("pi-1.6.0/an-scripted")
        .dir
        .to_string_lossy()
        .into_owned();
    let given = [
        "--case",
        &dir,
        "--model",
        "mock-anthropic/claude-sonnet-4-5",
        "--thinking",
        "low",
    ];
    let body = |extra: &[&str]| {
        let args: Vec<&str> = ["assemble"]
            .iter()
            .chain(&given)
            .chain(extra)
            .copied()
            .collect();
        ctxlens(&args).0
    };
    assert_eq!(body(&["--running-pi"]), body(&[]));
    let summary = |extra: &[&str]| {
        let args: Vec<&str> = ["summary"]
            .iter()
            .chain(&given)
            .chain(extra)
            .copied()
            .collect();
        // Its lines wrapped at 80 columns, joined.
        let out = String::from_utf8(ctxlens(&args).0).unwrap();
        out.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    let typed = summary(&[]);
    assert!(
        typed.contains("from --model)") && typed.contains("(from --thinking)"),
        "{typed}"
    );
    let running = summary(&["--running-pi"]);
    assert!(running.contains("from pi's current model)"), "{running}");
    assert!(running.contains("(from pi's current level)"), "{running}");
    assert!(!running.contains("from --"), "{running}");
}

/// A session file is read as pi reads it (`readFileSync(path, "utf8")`): a byte that is not
/// UTF-8 is U+FFFD, whether the file is read whole or straight into its text's buffer.
#[test]
fn a_session_byte_that_is_not_utf8_is_sent_as_u_fffd() {
    let demo = ctxlens_corpus::workspace().join("www/demo/session.jsonl");
    let text = std::fs::read_to_string(demo).expect("the demo session");
    let at = text
        .find(r#""role":"user","content":[{"type":"text","text":""#)
        .expect("a user text")
        + r#""role":"user","content":[{"type":"text","text":""#.len();
    let dir = std::env::temp_dir().join(format!("ctxlens-not-utf8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let with = |bytes: &[u8], name: &str| {
        let mut b = text.as_bytes()[..at].to_vec();
        b.extend_from_slice(bytes);
        b.extend_from_slice(&text.as_bytes()[at..]);
        let path = dir.join(name);
        std::fs::write(&path, b).unwrap();
        path.to_string_lossy().into_owned()
    };
    let bad = with(b"\xff", "bad.jsonl");
    let replaced = with("\u{FFFD}".as_bytes(), "replaced.jsonl");
    // The demo's model is the oracle's stand-in: a built-in one with a key gives a request.
    let assemble = |session: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_ctxlens"))
            .args(["assemble", session, "--call", "1"])
            .args(["--model", "anthropic/claude-sonnet-4-5"])
            .env("ANTHROPIC_API_KEY", "sk-ant-test")
            .output()
            .expect("run ctxlens");
        (
            out.stdout,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (a, err) = assemble(&bad);
    let (b, _) = assemble(&replaced);
    assert!(
        String::from_utf8_lossy(&a).contains("\u{FFFD}The cart"),
        "{err}"
    );
    assert_eq!(a, b);
    std::fs::remove_dir_all(&dir).ok();
}

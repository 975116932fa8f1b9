//! `ctxlens compare --pi A --pi-with B`: the same case under two releases.

use std::process::Command;

use ctxlens::js::{self, Value};

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ctxlens"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn an_upgrade_says_what_changes_in_the_request() {
    let dir = ctxlens_corpus::workspace().join("tests/conformance/pi-1.6.0/cx-085-cross");
    let dir = dir.to_str().unwrap();
    let (code, out, err) = run(&[
        "compare",
        "--case",
        dir,
        "--pi",
        "0.85.1",
        "--pi-with",
        "1.6.0",
    ]);
    assert_eq!(code, 0, "{err}");
    let u = js::parse(&out).unwrap();
    assert_eq!(u.get_str("from"), Some("0.85.1"));
    assert_eq!(u.get_str("to"), Some("1.6.0"));
    assert_eq!(u.get("identical"), Some(&Value::Bool(false)));
    // The first changed byte, against the two bodies `assemble` prints.
    let body = |v: &str| run(&["assemble", "--case", dir, "--pi", v]).1;
    let (a, b) = (body("0.85.1"), body("1.6.0"));
    let want = a.bytes().zip(b.bytes()).position(|(x, y)| x != y).unwrap();
    let f = u.get("firstChange").unwrap();
    assert_eq!(f.get("byte"), Some(&Value::from(want)));
    // Blocks in characters and, o200k_base being gpt-5.5's, tokens.
    let blocks = u.get("blocks").and_then(Value::as_array).unwrap();
    let sp = blocks
        .iter()
        .find(|x| x.get_str("name") == Some("system prompt"))
        .unwrap();
    assert!(matches!(sp.get("fromTokens"), Some(Value::Number(_))));
    let rules = u.get("rules").and_then(Value::as_array).unwrap();
    assert!(rules
        .iter()
        .any(|r| r.get_str("rule") == Some("transcript")));
    // The same release twice: identical.
    let (_, out, _) = run(&[
        "compare",
        "--case",
        dir,
        "--pi",
        "1.6.0",
        "--pi-with",
        "1.6.0",
    ]);
    let u = js::parse(&out).unwrap();
    assert_eq!(u.get("identical"), Some(&Value::Bool(true)));
    assert_eq!(
        u.get("rules").and_then(Value::as_array).map(Vec::len),
        Some(0)
    );
}

#[test]
fn pi_with_is_checked() {
    let (code, _, err) = run(&[
        "compare",
        "--case",
        "x",
        "--with",
        "pi-messages",
        "--pi-with",
        "1.6.0",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("not both"), "{err}");
    let (code, _, err) = run(&["stats", "--case", "x", "--pi-with", "1.6.0"]);
    assert_eq!(code, 2);
    assert!(err.contains("--pi-with belongs to compare"), "{err}");
    let (code, _, err) = run(&["compare", "--case", "x", "--pi-with", "9.9"]);
    assert_eq!(code, 2);
    assert!(err.contains("--pi-with"), "{err}");
}

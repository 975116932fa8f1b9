//! The commands that take the inputs elsewhere: `summary`, `export` (the case zip, redacted or
//! not, read back as the same case) and `open` (the server on 127.0.0.1: the app, the manifest,
//! the case's files, nothing outside them).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::Command;

use ctxlens::case::{inputs_from_case, CaseFiles};

#[path = "support/unzip.rs"]
mod unzip;
use unzip::unzip;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ctxlens"))
}

fn case_dir(name: &str) -> PathBuf {
    ctxlens_corpus::workspace().join(name)
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ctxlens-cli-out-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn demo_body() -> String {
    let inputs = inputs_from_case(&ctxlens_corpus::Case::named("demo").files(), None).unwrap();
    ctxlens::assemble(&inputs).request.unwrap().body.to_string()
}

#[test]
fn summary_is_text_and_json_is_the_report() {
    let out = bin()
        .args(["summary", "--case"])
        .arg(case_dir("www/demo"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("rebuilds  pi 0.85.1"), "{text}");
    assert!(
        text.contains("Where the characters go") && !text.contains('\u{1b}'),
        "{text}"
    );
    let out = bin()
        .args(["summary", "--json", "--case"])
        .arg(case_dir("www/demo"))
        .output()
        .unwrap();
    let v = ctxlens::js::parse(&String::from_utf8(out.stdout).unwrap()).unwrap();
    assert_eq!(
        v.get("request").and_then(|r| r.get_str("body")),
        Some(&*demo_body())
    );
}

#[test]
fn an_export_reads_back_as_the_same_case() {
    let dir = temp("export");
    let zip = dir.join("my case.zip");
    let out = bin()
        .args(["export", "--case"])
        .arg(case_dir("www/demo"))
        .arg("-o")
        .arg(&zip)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8(out.stdout).unwrap();
    assert!(
        said.starts_with(&format!("wrote {}: ", zip.display())),
        "{said}"
    );
    let entries = unzip(&std::fs::read(&zip).unwrap());
    assert!(
        entries.iter().all(|(n, _)| n.starts_with("my-case/")),
        "one folder, named after the file"
    );
    let files: CaseFiles = entries
        .into_iter()
        .map(|(n, b)| (n["my-case/".len()..].to_string(), b))
        .collect();
    let back = inputs_from_case(&files, None).unwrap();
    assert!(ctxlens::assemble(&back).request.unwrap().body == demo_body());
}

#[test]
fn a_redacted_export_says_what_it_replaced_and_still_assembles() {
    // A case in alice's home with her key in auth.json, in the environment and in a message.
    let dir = temp("redact");
    let key = "sk-ant-api03-Qw3rTy7UiOp1AsDf5GhJk9LzXc2VbNm4QwErTy6Ui";
    let mut files = ctxlens_corpus::Case::named("demo").files();
    let session = String::from_utf8(files["session.jsonl"].clone()).unwrap();
    files.insert(
        "session.jsonl".into(),
        session
            .replacen("\"text\":\"", &format!("\"text\":\"key {key} "), 1)
            .into_bytes(),
    );
    files.insert(
        "agent/auth.json".into(),
        format!(r#"{{"anthropic":{{"type":"api_key","key":"{key}"}}}}"#).into_bytes(),
    );
    let case = dir.join("case");
    for (rel, bytes) in &files {
        let p = case.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    let home = {
        let env =
            ctxlens::js::parse(&String::from_utf8_lossy(&files["expected/env.json"])).unwrap();
        env.get_str("home").unwrap().to_string()
    };
    let zip = dir.join("out.zip");
    let out = bin()
        .args(["export", "--redact", "--case"])
        .arg(&case)
        .arg("-o")
        .arg(&zip)
        .env("USER", "alice")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8(out.stdout).unwrap();
    assert!(said.contains("replaced: home path ×"), "{said}");
    assert!(said.contains("API key (auth.json) ×"), "{said}");
    assert!(!said.contains(key) && !String::from_utf8_lossy(&out.stderr).contains(key));
    let entries = unzip(&std::fs::read(&zip).unwrap());
    let files: CaseFiles = entries
        .into_iter()
        .map(|(n, b)| (n["out/".len()..].to_string(), b))
        .collect();
    for (name, bytes) in &files {
        let text = String::from_utf8_lossy(bytes);
        assert!(
            !text.contains(key) && !name.contains(key),
            "{name} holds the key"
        );
        assert!(
            !text.contains(&home) && !name.contains(&home),
            "{name} holds the home path"
        );
    }
    let a = ctxlens::assemble(&inputs_from_case(&files, None).unwrap());
    let body = a.request.expect("the redacted case assembles").body;
    assert!(
        body.contains("key sk-ant-api03-redacted"),
        "the same stand-in in the message"
    );
}

/// One HTTP/1.1 GET: the status line and the body.
fn get(addr: std::net::SocketAddr, path: &str, host: &str) -> (String, Vec<u8>) {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut all = Vec::new();
    s.read_to_end(&mut all).unwrap();
    let end = all.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&all[..end]).to_string();
    (
        head.lines().next().unwrap().to_string(),
        all[end + 4..].to_vec(),
    )
}

#[test]
fn open_serves_the_app_and_the_case_on_127_0_0_1_only() {
    use ctxlens_cli::open::{Server, Site, CASE_PREFIX, MANIFEST};
    let dir = temp("open");
    let app = dir.join("dist");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(app.join("index.html"), "<!doctype html><title>app</title>").unwrap();
    std::fs::write(dir.join("secret.txt"), "outside").unwrap();
    let inputs = inputs_from_case(&ctxlens_corpus::Case::named("demo").files(), None).unwrap();
    let case = ctxlens::case::case_from_inputs(&inputs, None);
    let session = case["session.jsonl"].clone();
    let server = Server::bind(0, Site::new(app.to_str().unwrap(), case)).unwrap();
    let addr = server.local_addr();
    assert!(addr.ip().is_loopback() && addr.ip().to_string() == "127.0.0.1");
    let url = server.url();
    assert_eq!(
        url,
        format!(
            "http://127.0.0.1:{}/?case=_ctxlens/case/ctxlens-case.json",
            addr.port()
        )
    );
    let named = Site::new("/x", CaseFiles::new()).named_after(Some("/s/2026-11-30T10-04_ab.jsonl"));
    assert_eq!(
        named.url(8),
        "http://127.0.0.1:8/?case=_ctxlens/case/2026-11-30T10-04_ab"
    );
    let site = Site::new("/x", CaseFiles::new()).with_protocol("anthropic-messages".parse().ok());
    assert_eq!(
        site.url(8),
        "http://127.0.0.1:8/?case=_ctxlens/case/ctxlens-case.json&protocol=anthropic-messages",
        "--api opens the page on that protocol"
    );
    let stop = server.stopper();
    let serving = std::thread::spawn(move || server.serve());
    let host = format!("127.0.0.1:{}", addr.port());

    let (status, body) = get(addr, "/", &host);
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert_eq!(body, b"<!doctype html><title>app</title>");
    let (status, body) = get(addr, &format!("{CASE_PREFIX}{MANIFEST}"), &host);
    assert_eq!(status, "HTTP/1.1 200 OK");
    let m = ctxlens::js::parse(&String::from_utf8(body).unwrap()).unwrap();
    let listed: Vec<&str> = m
        .get("files")
        .and_then(ctxlens::js::Value::as_array)
        .unwrap()
        .iter()
        .filter_map(ctxlens::js::Value::as_str)
        .collect();
    assert!(listed.contains(&"session.jsonl") && listed.contains(&"expected/env.json"));
    let (status, body) = get(addr, &format!("{CASE_PREFIX}session.jsonl"), &host);
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(body == session, "the session, byte for byte");
    // Nothing outside the app and the case.
    for bad in [
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/_ctxlens/case/../../secret.txt",
        "/_ctxlens/case/%2e%2e/expected/env.json",
    ] {
        let (status, _) = get(addr, bad, &host);
        assert!(
            status.contains(" 400 ") || status.contains(" 404 "),
            "{bad}: {status}"
        );
    }
    let (status, _) = get(addr, "/nope.js", &host);
    assert!(status.contains(" 404 "), "{status}");
    // Another host name (DNS rebinding) and another method are refused.
    let (status, _) = get(addr, "/", &format!("evil.example:{}", addr.port()));
    assert!(status.contains(" 421 "), "{status}");
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "POST / HTTP/1.1\r\nHost: {host}\r\nContent-Length: 0\r\n\r\n"
    )
    .unwrap();
    let mut all = String::new();
    s.read_to_string(&mut all).unwrap();
    assert!(all.starts_with("HTTP/1.1 405 "), "{all}");

    stop.stop();
    serving.join().unwrap();
    // Stopped: nothing answers on the port any more. (A connection can still be made there: a
    // client whose own port is the one asked for is connected to itself, and another process
    // may have taken the freed port; neither answers as the app does.)
    if let Ok(mut s) = TcpStream::connect(addr) {
        s.set_read_timeout(Some(std::time::Duration::from_secs(2)))
            .unwrap();
        let _ = write!(s, "GET / HTTP/1.1\r\nHost: {host}\r\n\r\n");
        let mut got = Vec::new();
        let _ = s.read_to_end(&mut got);
        assert!(
            !String::from_utf8_lossy(&got).starts_with("HTTP/1.1 200"),
            "stopped: the app is not served any more"
        );
    }
}

#[test]
fn open_without_a_built_app_says_how_to_build_it() {
    let dir = temp("noapp");
    let out = bin()
        .args(["open", "--case"])
        .arg(case_dir("www/demo"))
        .arg("--app")
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("trunk build --release"), "{err}");
}

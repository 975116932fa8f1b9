//! The commands as a library over a host that is not the std one (as the npm package's is):
//! a machine held in memory, whose paths exist nowhere on disk. It shows the commands touch the
//! machine only through the host, and checks the progress line (a terminal only, erased).

use std::collections::BTreeMap;

use ctxlens::case::CaseFiles;
use ctxlens::install::{FileKind, HostFs};
use ctxlens::VirtualFs;
use ctxlens_cli::Host;

/// Files in memory; `growing`: a file that has more bytes from its second reading on (as a
/// session pi is appending to while it is read).
struct MemFs(VirtualFs, Option<Growing>);

struct Growing {
    path: String,
    more: String,
    reads: std::cell::Cell<u32>,
}

impl HostFs for MemFs {
    fn stat(&self, path: &str) -> Option<FileKind> {
        match self.0.get(path) {
            Some(b) => Some(FileKind::File {
                size: b.len() as u64,
            }),
            None => self.0.is_dir(path).then_some(FileKind::Dir),
        }
    }
    fn read(&self, path: &str) -> Result<Vec<u8>, String> {
        let mut bytes = self
            .0
            .get(path)
            .map(<[u8]>::to_vec)
            .ok_or_else(|| "no such file".to_string())?;
        if let Some(g) = self.1.as_ref().filter(|g| g.path == path) {
            if g.reads.replace(g.reads.get() + 1) > 0 {
                bytes.extend_from_slice(g.more.as_bytes());
            }
        }
        Ok(bytes)
    }
    fn read_dir(&self, path: &str) -> Result<Vec<String>, String> {
        Ok(self.0.read_dir(path).into_iter().map(|(n, _)| n).collect())
    }
    fn realpath(&self, path: &str) -> Option<String> {
        self.stat(path).map(|_| path.to_string())
    }
}

struct MemHost {
    fs: MemFs,
    env: BTreeMap<String, String>,
    out: Vec<u8>,
    err: String,
    tty: bool,
}

impl Host for MemHost {
    fn fs(&self) -> &dyn HostFs {
        &self.fs
    }
    fn env(&self) -> &BTreeMap<String, String> {
        &self.env
    }
    fn cwd(&self) -> &str {
        "/mem/proj"
    }
    fn now_ms(&self) -> f64 {
        1_800_000_000_000.0
    }
    fn stdout(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.out.extend_from_slice(bytes);
        Ok(())
    }
    fn stderr(&mut self, text: &str) {
        self.err.push_str(text);
    }
    fn stderr_is_tty(&self) -> bool {
        self.tty
    }
    fn read_case_folder(&self, dir: &str) -> Result<CaseFiles, String> {
        Err(format!("{dir}: no case folders here"))
    }
}

const MODELS: &str = r#"{"providers":{"mock":{"baseUrl":"http://127.0.0.1:9/v1","api":"openai-completions","apiKey":"test-key","models":[{"id":"m1","reasoning":false,"input":["text"],"contextWindow":128000,"maxTokens":4096}]}}}"#;

fn host(session_text_len: usize, tty: bool) -> MemHost {
    let mut fs = VirtualFs::new();
    fs.insert("/mem/home/.pi/agent/models.json", MODELS);
    fs.insert("/mem/proj/AGENTS.md", "# in memory\n");
    let long = "x".repeat(session_text_len);
    fs.insert(
        "/mem/s.jsonl",
        format!(
            "{{\"type\":\"session\",\"version\":3,\"id\":\"0199aaaa-0000-7000-8000-000000000002\",\"timestamp\":\"2026-11-20T10:30:00.000Z\",\"cwd\":\"/mem/proj\"}}\n{{\"type\":\"message\",\"id\":\"a1\",\"parentId\":null,\"timestamp\":\"2026-11-20T10:30:00.000Z\",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"text\",\"text\":\"{long}\"}}],\"timestamp\":1}}}}\n"
        ),
    );
    MemHost {
        fs: MemFs(fs, None),
        env: [("HOME".to_string(), "/mem/home".to_string())].into(),
        out: Vec::new(),
        err: String::new(),
        tty,
    }
}

fn argv(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

#[test]
fn a_machine_in_memory_gives_the_body_and_the_files_it_read() {
    let mut h = host(10, false);
    let code = ctxlens_cli::run(
        &mut h,
        &argv(&[
            "assemble",
            "/mem/s.jsonl",
            "--prompt",
            "hi",
            "--model",
            "mock/m1",
        ]),
    );
    assert_eq!(code, 0, "{}", h.err);
    let body = String::from_utf8(h.out).unwrap();
    assert!(body.contains("# in memory"), "the cwd's AGENTS.md: {body}");
    assert!(body.contains("\"hi\""), "{body}");
    assert!(!h.err.contains('\r'), "no progress line off a terminal");
}

#[test]
fn the_progress_line_shows_on_a_terminal_for_a_long_session_and_is_erased() {
    let mut h = host(5 << 20, true);
    let args = argv(&[
        "assemble",
        "/mem/s.jsonl",
        "--prompt",
        "hi",
        "--model",
        "mock/m1",
    ]);
    assert_eq!(ctxlens_cli::run(&mut h, &args), 0, "{}", h.err);
    let reading = h
        .err
        .find("\r\x1b[2Kctxlens: reading /mem/s.jsonl (5.0 MB)…")
        .unwrap_or_else(|| panic!("{:?}", &h.err[..h.err.len().min(400)]));
    let assembling = h
        .err
        .find("\r\x1b[2Kctxlens: assembling…")
        .expect("assembling");
    assert!(reading < assembling);
    // Erased before anything else is said: the next text starts on a clean line.
    let after = &h.err[assembling..];
    let erase = after[1..].find("\r\x1b[2K").expect("erased") + 1;
    assert!(
        after[erase + 5..].starts_with("ctxlens: rebuilding"),
        "{after:?}"
    );
    // Not on a terminal, or a short session: no progress line.
    let mut h = host(5 << 20, false);
    assert_eq!(ctxlens_cli::run(&mut h, &args), 0);
    assert!(!h.err.contains('\r'));
    let mut h = host(10, true);
    assert_eq!(ctxlens_cli::run(&mut h, &args), 0);
    assert!(!h.err.contains('\r'));
}

/// `usage` reads a session twice (its calls, then their rebuild): a session pi appended to in
/// between is said, with its path, and its calls are those of the first reading.
#[test]
fn usage_says_a_session_that_changed_while_it_was_read() {
    let mut h = host(10, false);
    let dir = "/mem/home/.pi/agent/sessions/--mem-proj--";
    let path = format!("{dir}/2026-11-20T10-30-00-000Z_s.jsonl");
    let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-11-20T10:30:00.000Z","cwd":"/mem/proj"}"#;
    let user = r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-11-20T10:30:00.000Z","message":{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1}}"#;
    let answer = r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-11-20T10:30:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"}],"provider":"mock","model":"m1","api":"openai-completions","usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":12,"cost":{"total":0.001}},"stopReason":"stop","timestamp":2}}"#;
    h.fs.0
        .insert(&path, format!("{header}\n{user}\n{answer}\n"));
    let more = answer
        .replace("\"a1\"", "\"a2\"")
        .replace("\"u1\"", "\"a1\"")
        .replace("10:30:01", "10:30:02");
    h.fs.1 = Some(Growing {
        path: path.clone(),
        more: format!("{more}\n"),
        reads: std::cell::Cell::new(0),
    });
    let code = ctxlens_cli::run(
        &mut h,
        &argv(&["usage", "/mem/home/.pi/agent/sessions", "--json"]),
    );
    assert_eq!(code, 0, "{}", h.err);
    let v = ctxlens::js::parse(&String::from_utf8(h.out).unwrap()).unwrap();
    let num = |k: &str| v.get(k).and_then(ctxlens::js::Value::as_f64);
    let calls = v
        .get("totals")
        .and_then(|t| t.get("calls"))
        .and_then(ctxlens::js::Value::as_f64);
    assert_eq!(
        (calls, num("rebuilt")),
        (Some(1.0), Some(1.0)),
        "the first reading's one call, rebuilt"
    );
    let changed = v
        .get("read")
        .and_then(|r| r.get("changed"))
        .and_then(ctxlens::js::Value::as_array)
        .unwrap();
    assert_eq!(changed.len(), 1);
    assert_eq!(changed[0].get_str("file"), Some(path.as_str()));
    assert!(changed[0]
        .get_str("reason")
        .unwrap()
        .starts_with("changed while it was read ("));
}

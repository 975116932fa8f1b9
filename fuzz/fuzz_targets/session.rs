//! The session reader: lines as JSON, the header, the migration, the entries under a release;
//! the session context of the active branch, its tree and its calls.
#![no_main]
use ctxlens::trace::{Events, StageId};
use ctxlens::{calls, session, Pi, SourceText};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let src = SourceText {
        name: "session.jsonl".into(),
        text: text.as_ref().into(),
    };
    let pi = Pi::new(ctxlens_fuzz::release(data.len())).expect("compiled-in release data");
    let lines = session::read_lines(&src);
    let file = session::parse_lines(&pi, &src, &lines);
    let mut events = Events::new(StageId::SessionRead);
    let mut diags = Vec::new();
    let ctx = session::build_context(&pi, &file, &mut events, &mut diags);
    let _ = session::tree(&file, &ctx);
    let path = session::active_path(&file);
    let _ = calls::calls_on(&file, &path, true);
    for d in &diags {
        assert!(!d.file.is_empty(), "a diagnostic without its file: {d:?}");
    }
});

//! The loose-file recognizer (a session, models.json, settings, a SKILL.md, a tool set, ...) and
//! the tool-set reader. The first line is the file's path, the rest its bytes.
#![no_main]
use ctxlens::recognize;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (path, bytes) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let path = String::from_utf8_lossy(path);
    let mut notes = Vec::new();
    let kind = recognize::recognize(&path, bytes, &mut notes);
    let _ = kind.label();
    let _ = recognize::tool_set_file(&path, bytes, &mut notes);
    // Each diagnostic names the file (the path given, when there is one).
    if !path.is_empty() {
        for d in &notes {
            assert!(!d.file.is_empty(), "a diagnostic without its file: {d:?}");
        }
    }
});

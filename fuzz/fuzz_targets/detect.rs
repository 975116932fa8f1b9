//! The release detection: what the session's lines prove, refined by each release's own texts,
//! and the choice made from it.
#![no_main]
use ctxlens::pi::choice;
use ctxlens::{Inputs, SourceText};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let src = SourceText {
        name: "session.jsonl".into(),
        text: text.as_ref().into(),
    };
    if let Some(mut d) = choice::detect(&src) {
        let _ = d.ambiguity();
        choice::refine(&mut d, &src);
        let _ = d.ambiguity();
    }
    let inputs = Inputs {
        session: Some(src),
        ..Default::default()
    };
    let c = choice::choose(&inputs);
    let _ = c.explain();
    let _ = c.newer_session_warning();
    let _ = c.installed_warning();
});

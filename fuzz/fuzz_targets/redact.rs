//! `redact`: a case's files with the user's home, name, host names, keys and tokens replaced.
#![no_main]
use ctxlens::redact::{redact, Identity};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let files = ctxlens_fuzz::files(data);
    let who = Identity {
        home: Some("/tmp/pi-ctx-demo/home".into()),
        user: Some("alice".into()),
        hosts: vec![
            "alice-laptop".into(),
            "alice-laptop.corp.example.com".into(),
        ],
    };
    let (out, report) = redact(&files, &who);
    let _ = report.summary();
    // Redacting again finds the stand-ins, not new originals: it is stable.
    let (again, _) = redact(&out, &who);
    assert_eq!(again.len(), out.len());
});

//! `ctxlens usage` on one session file: the calls read as ccusage reads them, each rebuilt (the
//! session alone, no files), summed by every grouping, and the report's JSON and text.
#![no_main]
use ctxlens::analysis::ledger::{self, GroupBy};
use ctxlens::report::ledger::{to_json, to_text};
use ctxlens::{Inputs, SourceText, Workspace};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let path = "/home/u/.pi/agent/sessions/--home-u-p--/2026-11-30T10-00-00-000Z_s.jsonl";
    let scan = ledger::scan(path, &text);
    let lines = text.lines().count() as u32;
    assert!(scan.skipped.iter().all(|(n, _)| (1..=lines).contains(n)), "{:?}", scan.skipped);
    // Read as a folder reads it: the file, then a fork's copy of it (each call counted once).
    let mut reader = ledger::Reader::new(vec![path.into()]);
    let mut calls = reader.file(path, &text).calls;
    assert_eq!(calls.len(), scan.calls.len() - reader.read.duplicates);
    assert!(reader.file(&format!("{path}.fork.jsonl"), &text).calls.is_empty());
    let inputs = Inputs {
        session: Some(SourceText {
            name: path.into(),
            text: text.as_ref().into(),
        }),
        ..Inputs::default()
    };
    // A few calls are enough: each is a whole assembly of the session.
    let n = calls.len().min(3);
    ledger::account(&Workspace::with_budget(0), &inputs, &[], None, &mut calls[..n], &mut |_| {});
    reader.note_not_rebuilt(&calls);
    for by in GroupBy::ALL {
        let l = ledger::ledger(&calls, by, None, None);
        assert_eq!(l.totals.calls, calls.len());
        assert_eq!(l.groups.iter().map(|g| g.totals.calls).sum::<usize>(), calls.len());
        let _ = to_json(&l, &reader.read).to_json();
        let _ = to_text(&l, &reader.read);
    }
});

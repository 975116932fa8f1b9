//! `ctxlens usage` on one session file: the calls read as ccusage reads them, each rebuilt (the
//! session alone, no files), summed by every grouping, and the report's JSON and text.
#![no_main]
use ctxlens::analysis::ledger::{self, GroupBy};
use ctxlens::report::ledger::{to_json, to_text, Read};
use ctxlens::{Inputs, SourceText, Workspace};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let path = "/home/u/.pi/agent/sessions/--home-u-p--/2026-11-30T10-00-00-000Z_s.jsonl";
    let scan = ledger::scan(path, &text);
    let lines = text.lines().count() as u32;
    assert!(scan.skipped.iter().all(|(n, _)| (1..=lines).contains(n)), "{:?}", scan.skipped);
    let mut calls = scan.calls;
    let read_twice = ledger::dedup(&mut calls);
    let inputs = Inputs {
        session: Some(SourceText {
            name: path.into(),
            text: text.as_ref().into(),
        }),
        ..Inputs::default()
    };
    // A few calls are enough: each is a whole assembly of the session.
    let n = calls.len().min(3);
    ledger::account(&Workspace::with_budget(0), &inputs, &[], &mut calls[..n], &mut |_| {});
    for by in GroupBy::ALL {
        let l = ledger::ledger(&calls, by, None, None);
        assert_eq!(l.totals.calls, calls.len());
        assert_eq!(l.groups.iter().map(|g| g.totals.calls).sum::<usize>(), calls.len());
        let read = Read {
            duplicates: read_twice,
            ..Read::default()
        };
        let _ = to_json(&l, &read).to_json();
        let _ = to_text(&l, &read);
    }
});

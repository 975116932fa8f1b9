//! The what-if specs (`--without KIND:ARG`, `--set KEY=VALUE`) parsed and applied to a case's
//! assembly, for the next request and, capped to a few calls, for the whole session. The first
//! line holds the specs (`;`-separated; one with `=` is a `--set`), the rest is a case (see the
//! crate's doc).
#![no_main]
use ctxlens::analysis::whatif::{self, Change};
use ctxlens::{assemble, case, Workspace};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (line, rest) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let line = String::from_utf8_lossy(line);
    let mut changes = Vec::new();
    for spec in line.split(';') {
        let parsed = if spec.contains('=') {
            Change::parse_set(spec)
        } else {
            Change::parse_without(spec)
        };
        if let Ok(c) = parsed {
            let _ = c.spec();
            changes.push(c);
        }
    }
    let files = ctxlens_fuzz::files(rest);
    let Ok(inputs) = case::inputs_from_case(&files, None) else {
        return;
    };
    let base = assemble(&inputs);
    if let Ok((changed_inputs, applied)) = whatif::apply(&inputs, &base, &changes) {
        let changed = assemble(&changed_inputs);
        let _ = whatif::compare(applied, &base, &changed, None, None);
    }
    let ws = Workspace::new();
    let _ = whatif::session(
        &ws,
        &inputs,
        &inputs,
        &changes,
        &base,
        Some(3),
        &mut |_, _| None,
    );
});

//! The app's reader of dropped `.zip` files (web/src/inputs/zip.rs, compiled in from its file:
//! it needs only the core and miniz_oxide), under small caps so a bomb stops early.
#![no_main]
#![allow(dead_code, unused_imports)]
use libfuzzer_sys::fuzz_target;

#[path = "../../web/src/inputs/zip.rs"]
mod zip;

fuzz_target!(|data: &[u8]| {
    let limits = zip::Limits {
        total: 16 << 20,
        entries: 2_000,
    };
    let mut skipped = Vec::new();
    let mut notes = Vec::new();
    let out = zip::expand_zips(
        vec![("case.zip".into(), data.to_vec())],
        &mut skipped,
        &mut notes,
        limits,
    );
    let total: usize = out.iter().map(|(_, b)| b.len()).sum();
    assert!(total <= limits.total, "past the cap: {total}");
    assert!(out.len() <= limits.entries + 1);
});

//! Every source key the assembly cites (a quoted `PATH.js:LINE` in `src/`) is in every
//! release's table of where pi's code lives (`pi/data/pi-<version>/sources.json`).

use ctxlens_assembly::pi::data::Located;
use ctxlens_assembly::pi::{Pi, PiVersion};

/// Every source key cited in core/src is in every release's table (a location, or null where
/// the extraction did not find it), and 0.85.1's table locates every 0.85.1 key at itself.
#[test]
fn every_cited_source_key_is_in_every_table() {
    let keys = cited_keys();
    assert!(keys.len() > 200, "{} keys", keys.len());
    for v in PiVersion::ALL {
        let pi = Pi::new(v).unwrap();
        let table: Vec<&str> = pi.data.sources().map(|(k, _)| k).collect();
        for k in &keys {
            assert!(
                table.contains(&k.as_str()),
                "pi {v}: sources.json lacks {k}: run scripts/extract-pi-data.sh {v}"
            );
        }
    }
    let base = Pi::new(PiVersion::V0_85_1).unwrap();
    for k in keys.iter().filter(|k| !k.starts_with(char::is_numeric)) {
        let at = base.source(k).map(|l| l.at);
        assert_eq!(base.source(k), at.map(|at| Located { at, exact: true }));
        assert_eq!(at, Some(k.as_str()));
    }
}

/// The source keys in core/src's string literals: a quoted `PATH.js:LINE` with PATH made of
/// letters, digits and `_@./-` (what scripts/extract/sources.mjs collects).
fn cited_keys() -> Vec<String> {
    fn scan(text: &str, out: &mut Vec<String>) {
        let b = text.as_bytes();
        let path_byte = |c: u8| c.is_ascii_alphanumeric() || b"_@./-".contains(&c);
        let mut from = 0;
        while let Some(i) = text[from..].find(".js:").map(|i| i + from) {
            from = i + 4;
            let mut start = i;
            while start > 0 && path_byte(b[start - 1]) {
                start -= 1;
            }
            let mut end = i + 4;
            while end < b.len() && b[end].is_ascii_digit() {
                end += 1;
            }
            let quoted = start > 0 && b[start - 1] == b'"' && b.get(end) == Some(&b'"');
            if quoted && end > i + 4 && (b[start].is_ascii_alphanumeric() || b[start] == b'@') {
                let key = &text[start..end];
                if !out.iter().any(|k| k == key) {
                    out.push(key.to_string());
                }
            }
        }
    }
    fn walk(dir: &std::path::Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                scan(&std::fs::read_to_string(&p).unwrap(), out);
            }
        }
    }
    let mut out = Vec::new();
    walk(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut out,
    );
    out
}

use super::*;

/// Every release's data folder loads through the seam, is the release it says, and carries what
/// the stages read from it.
#[test]
fn every_release_loads_through_the_seam() {
    for v in PiVersion::ALL {
        let pi = Pi::new(v).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(pi.version, v);
        assert_eq!(pi.data.version, v);
        assert_eq!(pi.data.manifest.get_str("piVersion"), Some(v.as_str()));
        let tools = pi.data.tools.as_array().expect("tools.json is a list");
        assert!(tools.iter().any(|t| t.get_str("name") == Some("read")));
        let models = pi.data.catalog.as_array().expect("models.json is a list");
        assert_eq!(
            Some(models.len() as f64),
            pi.data.manifest.get("modelCount").and_then(|n| n.as_f64()),
            "pi {v}: the catalog has the manifest's model count"
        );
        assert!(!pi.data.catalog_by_provider().is_empty());
        for sdk in ["openai", "@anthropic-ai/sdk", "@google/genai"] {
            assert!(!pi.data.sdk_version(sdk).is_empty(), "pi {v}: {sdk}");
        }
        assert!(pi.data.node_version().starts_with('v'));
        assert_eq!(
            pi.data.source_prefix("AI"),
            Some("@earendil-works/pi-ai/dist")
        );
        // Loading again gives the same data (parsed once).
        assert!(std::ptr::eq(Pi::new(v).unwrap().data, pi.data));
    }
}

/// The data differ where the releases differ (a second release is really a second folder).
#[test]
fn releases_have_their_own_data() {
    let old = Pi::new(PiVersion::V0_85_1).unwrap();
    let new = Pi::new(PiVersion::V1_6_0).unwrap();
    assert_eq!(
        old.data.manifest.get("modelCount").and_then(|n| n.as_f64()),
        Some(1354.0)
    );
    assert!(
        new.data.manifest.get("modelCount").and_then(|n| n.as_f64()) > Some(1354.0),
        "1.6.0's catalog is larger"
    );
    assert_ne!(
        old.data.sdk_version("openai"),
        new.data.sdk_version("openai")
    );
}

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

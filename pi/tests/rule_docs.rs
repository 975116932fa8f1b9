//! `data/rule-docs.json` is the version table's docs (the doc comments of `src/rules.rs`, which
//! `build.rs` compiles in with `embedded-data`), for the builds without them: the app's worker
//! fetches the file for the upgrade comparison. This test keeps the file current
//! (`UPDATE_EXPECT=1` rewrites it) and checks that it reads back as the same docs.

use ctxlens_pi::{parse_rule_docs, rule_doc, rule_docs_json, RULE_DOCS};

#[test]
fn rule_docs_json_is_the_version_tables_docs() {
    assert!(
        RULE_DOCS.len() > 50,
        "the docs are compiled in: {}",
        RULE_DOCS.len()
    );
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/rule-docs.json");
    let want = rule_docs_json(RULE_DOCS);
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let got = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        got == want,
        "pi/data/rule-docs.json is not the version table's docs: rerun with UPDATE_EXPECT=1"
    );
    let read = parse_rule_docs(&got).unwrap();
    assert_eq!(read.len(), RULE_DOCS.len());
    for ((p, d), (p2, d2)) in read.iter().zip(RULE_DOCS) {
        assert_eq!((p.as_str(), d.as_str()), (*p2, *d2));
        assert_eq!(rule_doc(p), Some(*d2));
    }
    assert!(parse_rule_docs("[1]").is_err());
    assert!(parse_rule_docs(r#"{"transcript": 1}"#)
        .unwrap_err()
        .contains("transcript"));
}

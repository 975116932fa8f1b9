//! The conformance suite: every captured case in tests/conformance/ must assemble to exactly the
//! bytes pi sent (expected/request-1.json). Bytes are compared, not parsed JSON.

use std::path::{Path, PathBuf};

use ctxlens_cli::case;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance")
}

fn cases(filter: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(corpus())
        .expect("tests/conformance exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("case.json").is_file() && p.join("expected/request-1.json").is_file())
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().contains(filter)))
        .collect();
    v.sort();
    // The visualizer's demo is a captured case too.
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../www/demo");
    if "demo".contains(filter) || filter.is_empty() {
        v.push(demo);
    }
    v
}

#[test]
fn every_case_is_byte_identical() {
    // `CTXLENS_CASE=oc-` narrows the run to matching case names.
    let filter = std::env::var("CTXLENS_CASE").unwrap_or_default();
    let all = cases(&filter);
    assert!(!all.is_empty(), "no conformance cases found");
    let mut failures = Vec::new();
    for dir in &all {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let loaded = match case::load(dir, &dir.join("expected/env.json")) {
            Ok(l) => l,
            Err(e) => {
                failures.push(format!("{name}: cannot load: {e}"));
                continue;
            }
        };
        let expected = std::fs::read_to_string(dir.join("expected/request-1.json")).unwrap();
        let assembly = ctxlens::assemble(&loaded.inputs);
        match assembly.body() {
            None => failures.push(format!(
                "{name}: no request built: {}",
                assembly.diagnostics.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("; ")
            )),
            Some(body) => {
                if let Some((pos, got, want)) = case::first_difference(body, &expected) {
                    failures.push(format!("{name}: differs at byte {pos}\n     got: …{got}…\n    want: …{want}…"));
                }
            }
        }
    }
    let passed = all.len() - failures.len();
    println!("conformance: {passed} of {} cases byte-identical", all.len());
    if !failures.is_empty() {
        panic!("{} of {} cases differ:\n{}", failures.len(), all.len(), failures.join("\n"));
    }
}

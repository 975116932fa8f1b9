//! `npm/report.d.ts` is what the report's Rust types declare: generated, never edited by hand.
//! `CTXLENS_BLESS=1 cargo test -p ctxlens --test report_types` writes it again.

use std::path::Path;

#[test]
fn the_committed_report_types_are_the_generated_ones() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../npm/report.d.ts");
    let generated = ctxlens::report::types::typescript();
    if std::env::var_os("CTXLENS_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("npm/report.d.ts is writable");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != generated {
        let line = committed
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .map_or(
                committed.lines().count().min(generated.lines().count()),
                |i| i,
            )
            + 1;
        panic!(
            "npm/report.d.ts differs from what analysis/src/report/types.rs declares, from line {line}:\n  committed: {:?}\n  generated: {:?}\nRun `CTXLENS_BLESS=1 cargo test -p ctxlens --test report_types` and commit the file.",
            committed.lines().nth(line - 1).unwrap_or("(end of file)"),
            generated.lines().nth(line - 1).unwrap_or("(end of file)"),
        );
    }
}

struct Words;

impl ctxlens::tokens::TokenCounter for Words {
    fn info(&self) -> ctxlens::tokens::TokenizerInfo {
        ctxlens::tokens::TokenizerInfo {
            name: "words".into(),
            exact: false,
        }
    }
    fn count(&mut self, texts: &[&str]) -> Result<Vec<usize>, String> {
        Ok(texts.iter().map(|t| t.split_whitespace().count()).collect())
    }
}

/// A report's release, model, statistics, stages, diagnostics and findings, read back as the types the views read, write the same
/// JSON: what a view reads is what the JSON says, field for field (with tokens and without, on a
/// case of each release).
#[test]
fn the_report_s_typed_parts_read_back_write_the_same_json() {
    use ctxlens::js::Value;
    use ctxlens::report::types::{Diagnostic, Finding, ModelInfo, PiRelease, Stage, Stats};
    use ctxlens::report::wire::Wire;
    let mut checked = 0;
    for case in ctxlens_corpus::cases("pi-").iter().step_by(40) {
        let Ok(inputs) = ctxlens::case::inputs_from_case(&case.files(), None) else {
            continue;
        };
        let a = ctxlens::assemble(&inputs);
        let report = ctxlens::report::assembly_json(&a);
        let mut jsons = vec![report.get("stats").cloned().unwrap_or(Value::Null)];
        if let Ok(Some(s)) = ctxlens::analysis::stats::compute_with_tokens(&a, &mut Words) {
            jsons.push(ctxlens::report::stats::to_json(&s));
        }
        for json in jsons.iter().filter(|j| !j.is_null()) {
            let typed = Stats::from_value(json)
                .unwrap_or_else(|| panic!("{}: the stats do not read as Stats", case.name));
            assert_eq!(typed.to_value().to_json(), json.to_json(), "{}", case.name);
            checked += 1;
        }
        let stages = report.get("stages").expect("stages");
        let typed = Vec::<Stage>::from_value(stages)
            .unwrap_or_else(|| panic!("{}: the stages do not read as Stage[]", case.name));
        assert_eq!(
            typed.to_value().to_json(),
            stages.to_json(),
            "{}",
            case.name
        );
        let pi = report.get("pi").expect("pi");
        let typed = Option::<PiRelease>::from_value(pi)
            .unwrap_or_else(|| panic!("{}: pi does not read as PiRelease", case.name));
        assert_eq!(typed.to_value().to_json(), pi.to_json(), "{}", case.name);
        let model = report.get("model").expect("model");
        let typed = Option::<ModelInfo>::from_value(model)
            .unwrap_or_else(|| panic!("{}: the model does not read as ModelInfo", case.name));
        assert_eq!(typed.to_value().to_json(), model.to_json(), "{}", case.name);
        let diagnostics = report.get("diagnostics").expect("diagnostics");
        let typed = Vec::<Diagnostic>::from_value(diagnostics).unwrap_or_else(|| {
            panic!("{}: the diagnostics do not read as Diagnostic[]", case.name)
        });
        assert_eq!(
            typed.to_value().to_json(),
            diagnostics.to_json(),
            "{}",
            case.name
        );
        let findings = report.get("findings").expect("findings");
        let typed = Vec::<Finding>::from_value(findings)
            .unwrap_or_else(|| panic!("{}: the findings do not read as Finding[]", case.name));
        assert_eq!(
            typed.to_value().to_json(),
            findings.to_json(),
            "{}",
            case.name
        );
    }
    assert!(checked >= 20, "only {checked} reports checked");
}

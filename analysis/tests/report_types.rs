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

/// A report's release, model, statistics, stages, diagnostics and findings, and its comparisons
/// with another protocol and another release, read back as the types the views read, write the
/// same JSON: what a view reads is what the JSON says, field for field (with tokens and without,
/// on a case of each release).
/// `json` read as `T` and written again is `json`, byte for byte.
fn reads_back<T: ctxlens::report::wire::Wire>(json: &ctxlens::js::Value, what: &str, case: &str) {
    let typed = T::from_value(json)
        .unwrap_or_else(|| panic!("{case}: {what} does not read as {}", T::ts()));
    assert_eq!(typed.to_value().to_json(), json.to_json(), "{case}: {what}");
}

#[test]
fn the_report_s_typed_parts_read_back_write_the_same_json() {
    use ctxlens::report::types::{
        Call, Diagnostic, Finding, ModelInfo, PiRelease, RebuiltCall, Stage, Stats,
    };
    let mut checked = 0;
    let mut calibrations = 0;
    // Every 40th case, and the ones whose sessions hold each kind of 0.86 entry (a context
    // edit, a usage entry, a compaction's checkpoint).
    let named = [
        "pi-0.86.1/sp-context-edit-usage",
        "pi-0.86.1/ms-compaction-checkpoint",
    ];
    let cases = ctxlens_corpus::cases("pi-");
    assert_eq!(
        cases
            .iter()
            .filter(|c| named.contains(&c.name.as_str()))
            .count(),
        named.len()
    );
    let sample = cases.iter().step_by(40);
    for case in sample.chain(cases.iter().filter(|c| named.contains(&c.name.as_str()))) {
        let Ok(inputs) = ctxlens::case::inputs_from_case(&case.files(), None) else {
            continue;
        };
        let a = ctxlens::assemble(&inputs);
        let report = ctxlens::report::assembly_json(&a);
        let part = |key: &str| {
            report
                .get(key)
                .unwrap_or_else(|| panic!("{}: no {key}", case.name))
        };
        reads_back::<Option<Stats>>(part("stats"), "stats", &case.name);
        if let Ok(Some(s)) = ctxlens::analysis::stats::compute_with_tokens(&a, &mut Words) {
            let with_tokens = ctxlens::report::stats::to_json(&s);
            reads_back::<Stats>(&with_tokens, "stats with tokens", &case.name);
            checked += 1;
        }
        // The tokens' side: the vocabulary, the window, the calls rebuilt against their usage
        // (counted with a stand-in vocabulary, and estimated without one).
        for counter in [
            Some(&mut Words as &mut dyn ctxlens::tokens::TokenCounter),
            None,
        ] {
            use ctxlens::report::calibration as cal;
            let calls = ctxlens::tokens::Calls::Always;
            let Some(c) = ctxlens::tokens::count(&inputs, &a, Ok(counter), calls, None) else {
                continue;
            };
            if let Some(v) = &c.vocabulary {
                let json = cal::vocabulary_json(v);
                reads_back::<cal::VocabularyInfo>(&json, "vocabulary", &case.name);
                use ctxlens::report::wire::Wire;
                let typed = cal::VocabularyInfo::from_value(&json).unwrap();
                assert_eq!(&cal::vocabulary_of(&typed), v, "{}", case.name);
            }
            if let Some(w) = &c.window {
                reads_back::<cal::WindowInfo>(&cal::window_json(w), "window", &case.name);
            }
            if let Some(k) = &c.calibration {
                reads_back::<cal::CalibrationInfo>(&cal::to_json(k), "calibration", &case.name);
                calibrations += 1;
            }
        }
        reads_back::<Option<PiRelease>>(part("pi"), "pi", &case.name);
        reads_back::<Option<ModelInfo>>(part("model"), "model", &case.name);
        use ctxlens::report::types::{ContextEstimate, UndefinedToolCall};
        use ctxlens::report::wire::Record;
        reads_back::<ContextEstimate>(part("estimate"), "estimate", &case.name);
        reads_back::<Vec<UndefinedToolCall>>(
            part("undefinedToolCalls"),
            "undefinedToolCalls",
            &case.name,
        );
        reads_back::<Record<String>>(part("sourcePrefixes"), "sourcePrefixes", &case.name);
        reads_back::<Vec<Stage>>(part("stages"), "stages", &case.name);
        reads_back::<Vec<Finding>>(part("findings"), "findings", &case.name);
        reads_back::<Vec<Diagnostic>>(part("diagnostics"), "diagnostics", &case.name);
        reads_back::<Vec<Call>>(part("calls"), "calls", &case.name);
        reads_back::<Option<RebuiltCall>>(part("call"), "call", &case.name);
        use ctxlens::report::types::{DeclaredToolInfo, PackageCost, ResourcesInfo, ToolInfo};
        reads_back::<Vec<ToolInfo>>(part("tools"), "tools", &case.name);
        reads_back::<Option<Vec<DeclaredToolInfo>>>(
            part("declaredTools"),
            "declaredTools",
            &case.name,
        );
        reads_back::<ResourcesInfo>(part("resources"), "resources", &case.name);
        reads_back::<Vec<PackageCost>>(part("packages"), "packages", &case.name);
        use ctxlens::report::types::{
            RequestInfo, SessionInfo, SystemMessageInfo, SystemPromptInfo,
        };
        reads_back::<Option<RequestInfo>>(part("request"), "request", &case.name);
        reads_back::<SystemPromptInfo>(part("systemPrompt"), "systemPrompt", &case.name);
        reads_back::<Vec<SystemMessageInfo>>(
            part("newSystemMessages"),
            "newSystemMessages",
            &case.name,
        );
        reads_back::<Option<SessionInfo>>(part("session"), "session", &case.name);
        reads_back::<ctxlens::report::types::SessionUsage>(part("usage"), "usage", &case.name);
        // The comparisons with another protocol and with another release.
        let other = ctxlens::assemble(&ctxlens::Inputs {
            api: Some(ctxlens::Api::OpenAiResponses),
            ..inputs.clone()
        });
        let c = ctxlens::analysis::compare::compare(&a, &other);
        let c = ctxlens::report::compare::to_json(&c);
        reads_back::<ctxlens::report::types::Comparison>(&c, "comparison", &case.name);
        let older = ctxlens::assemble(&ctxlens::Inputs {
            pi: Some(ctxlens::PiVersion::V0_85_1),
            ..inputs.clone()
        });
        use ctxlens::AssemblyStats;
        let u = ctxlens::analysis::upgrade::upgrade(&a, &older, a.stats(), older.stats());
        let u = ctxlens::report::upgrade::to_json(&u);
        reads_back::<ctxlens::report::types::Upgrade>(&u, "upgrade", &case.name);
        // A what-if: the tool set without bash.
        let change = [ctxlens::analysis::whatif::Change::parse_without("tool:bash").unwrap()];
        if let Ok((changed, applied)) = ctxlens::analysis::whatif::apply(&inputs, &a, &change) {
            let b = ctxlens::assemble(&changed);
            let w = ctxlens::analysis::whatif::compare(applied, &a, &b, a.stats(), b.stats());
            let w = ctxlens::report::whatif::to_json(&w, None);
            reads_back::<ctxlens::report::types::WhatIf>(&w, "what-if", &case.name);
        }
    }
    assert!(checked >= 20, "only {checked} reports with tokens checked");
    assert!(
        calibrations >= 5,
        "only {calibrations} calibrations checked"
    );
}

//! A report on the page: the worker's JSON, with the parts the views read as the report's Rust
//! types (`ctxlens::report::types`: the release, the model, the calls, the statistics, the
//! stages, the findings and the diagnostics), read once when it comes. The rest is still read
//! from the JSON (`Deref` to it).

use std::ops::Deref;

use ctxlens::js::Value;
use ctxlens::report::types::{
    Call, Diagnostic, Finding, ModelInfo, PiRelease, RebuiltCall, Stage, Stats,
};
use ctxlens::report::wire::Wire;

#[derive(Debug, Default)]
pub struct Report {
    json: Value,
    /// The pi release rebuilt and why (`None`: none was chosen).
    pub pi: Option<PiRelease>,
    /// `None`: pi found no model.
    pub model: Option<ModelInfo>,
    /// The model calls on the session's active branch, with the usage pi recorded.
    pub calls: Vec<Call>,
    /// The call whose request was rebuilt (`None`: the next request).
    pub call: Option<RebuiltCall>,
    /// `stats`: `None` when the report has none (no request).
    pub stats: Option<Stats>,
    /// pi's stages, in order, with what each did.
    pub stages: Vec<Stage>,
    pub findings: Vec<Finding>,
    pub diagnostics: Vec<Diagnostic>,
    /// The parts that are in the JSON but did not read as their types (the views leave them
    /// out, and the diagnostics panel says so). Empty unless the worker and the page disagree.
    pub unread: Vec<&'static str>,
}

impl Report {
    pub fn new(json: Value) -> Report {
        let mut unread = Vec::new();
        let mut read = |key: &'static str| -> Option<&Value> {
            let v = json.get(key).filter(|v| !v.is_null())?;
            unread.push(key);
            Some(v)
        };
        // Each part is read where it is, and taken off `unread` once it read.
        let pi = read("pi").and_then(PiRelease::from_value);
        let model = read("model").and_then(ModelInfo::from_value);
        let calls = read("calls").and_then(Vec::<Call>::from_value);
        let call = read("call").and_then(RebuiltCall::from_value);
        let stats = read("stats").and_then(Stats::from_value);
        let stages = read("stages").and_then(Vec::<Stage>::from_value);
        let findings = read("findings").and_then(Vec::<Finding>::from_value);
        let diagnostics = read("diagnostics").and_then(Vec::<Diagnostic>::from_value);
        let read_well = [
            ("pi", pi.is_some()),
            ("model", model.is_some()),
            ("calls", calls.is_some()),
            ("call", call.is_some()),
            ("stats", stats.is_some()),
            ("stages", stages.is_some()),
            ("findings", findings.is_some()),
            ("diagnostics", diagnostics.is_some()),
        ];
        unread.retain(|k| !read_well.contains(&(*k, true)));
        Report {
            json,
            pi,
            model,
            calls: calls.unwrap_or_default(),
            call,
            stats,
            stages: stages.unwrap_or_default(),
            findings: findings.unwrap_or_default(),
            diagnostics: diagnostics.unwrap_or_default(),
            unread,
        }
    }

    pub fn json(&self) -> &Value {
        &self.json
    }
}

impl Deref for Report {
    type Target = Value;
    fn deref(&self) -> &Value {
        &self.json
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A part that is there but does not read as its type is said, not dropped in silence; a
    /// part that is absent or null is not.
    #[test]
    fn a_part_that_does_not_read_is_said() {
        let json =
            ctxlens::js::parse(r#"{"stats":{"tokenizer":5},"model":null,"findings":[]}"#).unwrap();
        let r = Report::new(json);
        assert_eq!(r.unread, vec!["stats"]);
        assert!(r.stats.is_none() && r.model.is_none() && r.findings.is_empty());
        let fine = Report::new(ctxlens::js::parse(r#"{"findings":[],"calls":[]}"#).unwrap());
        assert!(fine.unread.is_empty(), "{:?}", fine.unread);
    }
}

//! A report on the page: the worker's JSON, with the parts the views read as the report's Rust
//! types (`ctxlens::report::types`: the release, the model, the calls, the statistics, the stages, the findings and the
//! diagnostics), read once when it comes.
//! The rest is still read from the JSON (`Deref` to it).

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
}

impl Report {
    pub fn new(json: Value) -> Report {
        let pi = json.get("pi").and_then(PiRelease::from_value);
        let model = json.get("model").and_then(ModelInfo::from_value);
        let calls = json
            .get("calls")
            .and_then(Vec::<Call>::from_value)
            .unwrap_or_default();
        let call = json.get("call").and_then(RebuiltCall::from_value);
        let stats = json.get("stats").and_then(Stats::from_value);
        let stages = json
            .get("stages")
            .and_then(Vec::<Stage>::from_value)
            .unwrap_or_default();
        let findings = json
            .get("findings")
            .and_then(Vec::<Finding>::from_value)
            .unwrap_or_default();
        let diagnostics = json
            .get("diagnostics")
            .and_then(Vec::<Diagnostic>::from_value)
            .unwrap_or_default();
        Report {
            json,
            pi,
            model,
            calls,
            call,
            stats,
            stages,
            findings,
            diagnostics,
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

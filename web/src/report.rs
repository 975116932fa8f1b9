//! A report on the page: the worker's JSON, with the parts the views read as the report's Rust
//! types (`ctxlens::report::types`: the release, the model, the calls, the statistics, the
//! stages, the findings, the diagnostics, the request, the system prompt, the session, the
//! session's usage, the tools, the resources, the packages, pi's estimate of the context, the
//! undefined tool calls and the source prefixes), read once when it comes. The rest (the body's
//! provenance, answered path by path) is still read from the JSON (`Deref` to it).

use std::ops::Deref;
use std::rc::Rc;

use ctxlens::js::Value;
use ctxlens::report::types::{
    Call, ContextEstimate, DeclaredToolInfo, Diagnostic, Finding, ModelInfo, PackageCost,
    PiRelease, RebuiltCall, RequestInfo, ResourcesInfo, SessionInfo, SessionUsage, Stage, Stats,
    SystemMessageInfo, SystemPromptInfo, ToolInfo, UndefinedToolCall,
};
use ctxlens::report::wire::{Record, Wire};

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
    /// The request pi would send (`None`: none).
    pub request: Option<RequestInfo>,
    /// The system prompt as sent, with its sections (0.86 on: the system messages sent).
    pub system_prompt: SystemPromptInfo,
    /// pi 0.86 on: the system messages this run stores.
    pub new_system_messages: Vec<SystemMessageInfo>,
    /// The session tree and the context it yielded (`None`: a new session): the only copy (the
    /// JSON's is dropped once read), shared by the reports of the same inputs under other
    /// protocols ([`Report::sharing_session`]).
    pub session: Option<Rc<SessionInfo>>,
    /// The usage the session recorded, and this request's cache facts.
    pub usage: Option<SessionUsage>,
    /// The tools the run has active, as pi defines them.
    pub tools: Vec<ToolInfo>,
    /// pi 0.86 on: the tools as the transcript's system messages declare them (`None` before).
    pub declared_tools: Option<Vec<DeclaredToolInfo>>,
    /// The context files, skills and prompt pieces the system prompt is built from.
    pub resources: ResourcesInfo,
    /// The settings' pi packages, with what each brings to the request.
    pub packages: Vec<PackageCost>,
    /// What the prefixes of pi source locations stand for (`CA` → its package's `dist`).
    pub source_prefixes: Record<String>,
    /// pi's own estimate of the context beside the model's window.
    pub estimate: ContextEstimate,
    /// Tool calls the request sends to tools it does not define.
    pub undefined_tool_calls: Vec<UndefinedToolCall>,
    /// The parts that are in the JSON but did not read as their types (the views leave them
    /// out, and the diagnostics panel says so). Empty unless the worker and the page disagree.
    pub unread: Vec<&'static str>,
}

impl Report {
    pub fn new(json: Value) -> Report {
        let mut unread = Vec::new();
        let session = part::<SessionInfo>(&json, "session", &mut unread).map(Rc::new);
        Report::from_json(json, session, unread)
    }

    /// A report whose session (left out by the worker) is `from`'s: the same entries, not
    /// read again.
    pub fn sharing_session(json: Value, from: &Report) -> Report {
        Report::from_json(json, from.session.clone(), Vec::new())
    }

    /// The report of `json` with `session` (read from it or shared), its other parts read.
    fn from_json(
        mut json: Value,
        session: Option<Rc<SessionInfo>>,
        mut unread: Vec<&'static str>,
    ) -> Report {
        // The typed session is the one the views read: a session of 10⁵ entries is held once.
        if let Some(o) = json.as_object_mut() {
            o.remove("session");
        }
        let pi = part(&json, "pi", &mut unread);
        let model = part(&json, "model", &mut unread);
        let calls: Option<Vec<Call>> = part(&json, "calls", &mut unread);
        let call = part(&json, "call", &mut unread);
        let stats = part(&json, "stats", &mut unread);
        let stages: Option<Vec<Stage>> = part(&json, "stages", &mut unread);
        let findings: Option<Vec<Finding>> = part(&json, "findings", &mut unread);
        let diagnostics: Option<Vec<Diagnostic>> = part(&json, "diagnostics", &mut unread);
        let request = part(&json, "request", &mut unread);
        let system_prompt = part(&json, "systemPrompt", &mut unread);
        let new_system_messages = part(&json, "newSystemMessages", &mut unread);
        let usage = part(&json, "usage", &mut unread);
        let tools: Option<Vec<ToolInfo>> = part(&json, "tools", &mut unread);
        let declared_tools = part(&json, "declaredTools", &mut unread);
        let resources: Option<ResourcesInfo> = part(&json, "resources", &mut unread);
        let packages: Option<Vec<PackageCost>> = part(&json, "packages", &mut unread);
        let source_prefixes = part(&json, "sourcePrefixes", &mut unread);
        let estimate = part(&json, "estimate", &mut unread);
        let undefined_tool_calls = part(&json, "undefinedToolCalls", &mut unread);
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
            request,
            system_prompt: system_prompt.unwrap_or_default(),
            new_system_messages: new_system_messages.unwrap_or_default(),
            session,
            usage,
            tools: tools.unwrap_or_default(),
            declared_tools,
            resources: resources.unwrap_or_default(),
            packages: packages.unwrap_or_default(),
            source_prefixes: source_prefixes.unwrap_or_default(),
            estimate: estimate.unwrap_or_default(),
            undefined_tool_calls: undefined_tool_calls.unwrap_or_default(),
            unread,
        }
    }

    pub fn json(&self) -> &Value {
        &self.json
    }
}

/// The part `key` of the report as a `T` (`None` when absent or null); a part that is there but
/// does not read as a `T` is added to `unread`.
fn part<T: Wire>(json: &Value, key: &'static str, unread: &mut Vec<&'static str>) -> Option<T> {
    let v = json.get(key).filter(|v| !v.is_null())?;
    let typed = T::from_value(v);
    if typed.is_none() {
        unread.push(key);
    }
    typed
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

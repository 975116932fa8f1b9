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
    SystemMessageInfo, SystemPromptInfo, ToolInfo, UndefinedToolCall, UsagePointInfo,
};
use ctxlens::report::wire::{Record, Wire};

#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The JSON as the worker sent it, without the parts read as types below that no view reads
    /// from it (the session, the calls, the usage timeline): shared by the report's copies.
    json: Rc<Value>,
    /// The pi release rebuilt and why (`None`: none was chosen).
    pub pi: Option<PiRelease>,
    /// `None`: pi found no model.
    pub model: Option<ModelInfo>,
    /// The model calls on the session's active branch, with the usage pi recorded: read once,
    /// shared by the reports of the same inputs under other protocols.
    pub calls: Rc<Vec<Call>>,
    /// The call whose request was rebuilt (`None`: the next request).
    pub call: Option<RebuiltCall>,
    /// `stats`: `None` when the report has none (no request).
    pub stats: Option<Stats>,
    /// pi's stages, in order, with what each did.
    pub stages: Vec<Stage>,
    pub findings: Vec<Finding>,
    pub diagnostics: Vec<Diagnostic>,
    /// The request pi would send (`None`: none).
    pub request: Option<Rc<RequestInfo>>,
    /// The system prompt as sent, with its sections (0.86 on: the system messages sent).
    pub system_prompt: SystemPromptInfo,
    /// pi 0.86 on: the system messages this run stores.
    pub new_system_messages: Vec<SystemMessageInfo>,
    /// The session tree and the context it yielded (`None`: a new session): the only copy,
    /// shared by the reports of the same inputs under other protocols
    /// ([`Report::share_session_of`]).
    pub session: Option<Rc<SessionInfo>>,
    /// The session's parts (`session`, `calls`, the usage timeline) follow the report: the
    /// worker sent a scenario's first report without them ([`Report::with_session_parts`]).
    pub session_pending: bool,
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

/// A report's session, its calls and its usage timeline: the same under every protocol.
struct SessionParts {
    session: Option<Rc<SessionInfo>>,
    calls: Rc<Vec<Call>>,
    timeline: Option<Vec<UsagePointInfo>>,
}

impl SessionParts {
    /// The parts as `json` has them (a report, or the worker's `session` message), taken out
    /// of it; a part that does not read as its type is added to `unread`.
    fn take(json: &mut Value, unread: &mut Vec<&'static str>) -> SessionParts {
        let session = part::<SessionInfo>(json, "session", unread).map(Rc::new);
        let calls: Option<Vec<Call>> = part(json, "calls", unread);
        let timeline = json
            .get("usage")
            .and_then(|u| part::<Vec<UsagePointInfo>>(u, "timeline", unread));
        if let Some(o) = json.as_object_mut() {
            o.remove("session");
            o.remove("calls");
            if let Some(Value::Object(u)) = o.get_mut("usage") {
                u.remove("timeline");
            }
        }
        SessionParts {
            session,
            calls: Rc::new(calls.unwrap_or_default()),
            timeline,
        }
    }

    fn of(r: &Report) -> SessionParts {
        SessionParts {
            session: r.session.clone(),
            calls: r.calls.clone(),
            timeline: r.usage.as_ref().and_then(|u| u.timeline.0.clone()),
        }
    }

    /// Puts these parts in `r` (its usage's timeline where it has a usage).
    fn put(self, r: &mut Report) {
        r.session = self.session;
        r.calls = self.calls;
        if let Some(u) = r.usage.as_mut() {
            u.timeline = self.timeline.into();
        }
        r.session_pending = false;
    }
}

impl Report {
    pub fn new(mut json: Value) -> Report {
        let mut unread = Vec::new();
        let parts = SessionParts::take(&mut json, &mut unread);
        Report::from_json(json, parts, unread)
    }

    /// Takes the session parts the worker left out of this report from `from` (a report of the
    /// same inputs under another protocol): the same entries and calls, not read again.
    pub fn share_session_of(&mut self, from: &Report) {
        SessionParts::of(from).put(self);
        self.session_pending = from.session_pending;
    }

    /// This report with its session parts, which came after it (the worker's `session`
    /// message, joined; `None`: it did not join, which the diagnostics panel says).
    pub fn with_session_parts(&self, parts: Option<Value>) -> Report {
        let mut r = self.clone();
        match parts {
            Some(mut json) => SessionParts::take(&mut json, &mut r.unread).put(&mut r),
            None => {
                r.unread.push("session");
                r.session_pending = false;
            }
        }
        r
    }

    /// The report of `json` with its session parts (read from it or shared), its other parts
    /// read.
    fn from_json(json: Value, session: SessionParts, mut unread: Vec<&'static str>) -> Report {
        let pi = part(&json, "pi", &mut unread);
        let model = part(&json, "model", &mut unread);
        let call = part(&json, "call", &mut unread);
        let stats = part(&json, "stats", &mut unread);
        let stages: Option<Vec<Stage>> = part(&json, "stages", &mut unread);
        let findings: Option<Vec<Finding>> = part(&json, "findings", &mut unread);
        let diagnostics: Option<Vec<Diagnostic>> = part(&json, "diagnostics", &mut unread);
        let request: Option<RequestInfo> = part(&json, "request", &mut unread);
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
        let mut r = Report {
            json: Rc::new(json),
            pi,
            model,
            calls: Rc::default(),
            call,
            stats,
            stages: stages.unwrap_or_default(),
            findings: findings.unwrap_or_default(),
            diagnostics: diagnostics.unwrap_or_default(),
            request: request.map(Rc::new),
            system_prompt: system_prompt.unwrap_or_default(),
            new_system_messages: new_system_messages.unwrap_or_default(),
            session: None,
            session_pending: false,
            usage,
            tools: tools.unwrap_or_default(),
            declared_tools,
            resources: resources.unwrap_or_default(),
            packages: packages.unwrap_or_default(),
            source_prefixes: source_prefixes.unwrap_or_default(),
            estimate: estimate.unwrap_or_default(),
            undefined_tool_calls: undefined_tool_calls.unwrap_or_default(),
            unread,
        };
        session.put(&mut r);
        r
    }

    /// Whether the report holds its session parts: not on their way, not lost on the way.
    pub fn has_session_parts(&self) -> bool {
        !self.session_pending && !self.unread.contains(&"session")
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

    /// The demo's report as the worker sends a first one (without its session parts), then with
    /// them: the same session, calls and usage timeline as the whole report's; a report of
    /// another protocol shares them; parts that did not come are said.
    #[test]
    fn a_report_s_session_parts_come_after_it_and_are_shared() {
        let inputs = crate::demo::inputs();
        let a = ctxlens::assemble(&inputs);
        let omit = ctxlens::report::Omit {
            session: true,
            ..Default::default()
        };
        let whole = Report::new(ctxlens::report::assembly_json_with(&a, Default::default()));
        let first = Report::new(ctxlens::report::assembly_json_with(&a, omit));
        assert!(first.session.is_none() && first.calls.is_empty());
        let first = Report {
            session_pending: true,
            ..first
        };
        assert!(!first.has_session_parts());
        let parts = ctxlens::report::session_parts_json(&a);
        let done = first.with_session_parts(Some(parts));
        assert!(
            done.has_session_parts() && done.unread.is_empty(),
            "{:?}",
            done.unread
        );
        let entries = |r: &Report| r.session.as_ref().map(|s| s.entries.len());
        let timeline = |r: &Report| r.usage.as_ref().and_then(|u| u.timeline.0.clone());
        assert!(entries(&whole).unwrap() > 10 && whole.calls.len() > 2);
        assert_eq!(entries(&done), entries(&whole));
        assert_eq!(done.calls, whole.calls);
        assert_eq!(timeline(&done), timeline(&whole));
        assert!(timeline(&whole).is_some_and(|t| !t.is_empty()));
        // Another protocol's report takes them from it, the same values, not copies.
        let mut other = Report::new(ctxlens::report::assembly_json_with(&a, omit));
        other.share_session_of(&done);
        assert!(Rc::ptr_eq(&other.calls, &done.calls));
        assert!(Rc::ptr_eq(
            other.session.as_ref().unwrap(),
            done.session.as_ref().unwrap()
        ));
        assert_eq!(timeline(&other), timeline(&whole));
        // Parts that did not come: said, and no report shares them.
        let lost = first.with_session_parts(None);
        assert!(!lost.session_pending && lost.unread == ["session"]);
        assert!(!lost.has_session_parts());
    }

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

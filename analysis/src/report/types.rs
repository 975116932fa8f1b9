//! The report's types (see [`super::wire`]): what `--json`, the npm package and the visualizer's
//! worker give, as Rust. `npm/report.d.ts` is generated from them ([`typescript`]).

pub use super::calibration_types::*;
pub use super::compare_types::*;
pub use super::ledger_types::*;
pub use super::session_types::*;
pub use super::tools_types::*;
pub use super::upgrade_types::*;
pub use super::usage_types::*;
pub use super::whatif_types::*;
use super::wire::{wire_enum, wire_struct, Declared, Skip, Wire};
pub use crate::analysis::findings::Severity;
pub use crate::diagnostics::Severity as DiagnosticSeverity;
use crate::js::{Object, Value};
pub use crate::pi::choice::{Certainty, Reason};
pub use crate::tokens::TokenizerInfo;
pub use crate::trace::{EventKind, StageId};
pub use crate::PiVersion;

wire_struct! {
    /// A section of the system prompt as the body sends it.
    pub struct Section {
        pub name: String = "name",
        /// Where pi took it from (a file's path, `pi`, `settings`, ...).
        pub source: String = "source",
        /// Its offset in the system prompt, in UTF-16 units.
        pub offset: usize = "offset",
        pub chars: usize = "chars",
        pub tokens: Skip<usize> = "tokens",
        /// pi 0.86 on: which stored system message set the span (`session line 4`, `the compaction's checkpoint, line 9`, `this run`).
        pub stored: Skip<String> = "stored",
    }
}

wire_struct! {
    /// The system prompt's characters, by section.
    pub struct SystemPromptStats {
        pub chars: usize = "chars",
        /// With a `tokenizer`: tokens of the texts, each encoded on its own (no chat-template framing).
        pub tokens: Skip<usize> = "tokens",
        pub sections: Vec<Section> = "sections",
    }
}

wire_struct! {
    /// A tool the body sends: its description and its parameters' schema as the body writes them
    /// (tokens: the description's plus the parameters' JSON's).
    pub struct ToolSize {
        pub name: String = "name",
        pub chars: usize = "chars",
        pub tokens: Skip<usize> = "tokens",
        pub description_chars: usize = "descriptionChars",
        pub parameters_chars: usize = "parametersChars",
        pub description_tokens: Skip<usize> = "descriptionTokens",
        pub parameters_tokens: Skip<usize> = "parametersTokens",
    }
}

wire_struct! {
    /// The tools' characters, by tool.
    pub struct ToolsStats {
        pub chars: usize = "chars",
        pub tokens: Skip<usize> = "tokens",
        pub by_tool: Vec<ToolSize> = "byTool",
    }
}

wire_struct! {
    /// The messages of one role on the wire.
    pub struct RoleSize {
        pub role: String = "role",
        pub count: usize = "count",
        pub chars: usize = "chars",
        pub tokens: Skip<usize> = "tokens",
    }
}

wire_struct! {
    /// The history's texts by their place on the wire (thinking sent as text is assistant text).
    pub struct KindSizes {
        pub user_text: usize = "userText",
        pub assistant_text: usize = "assistantText",
        pub reasoning: usize = "reasoning",
        pub tool_arguments: usize = "toolArguments",
        pub tool_results: usize = "toolResults",
        /// Thinking and text signatures, encrypted reasoning.
        pub signatures: usize = "signatures",
        /// The images' data (base64) as sent.
        pub image_data: usize = "imageData",
        /// How many images the body sends.
        pub images: usize = "images",
    }
}

wire_struct! {
    /// The history's texts by kind, in tokens (images: none).
    pub struct KindTokens {
        pub user_text: usize = "userText",
        pub assistant_text: usize = "assistantText",
        pub reasoning: usize = "reasoning",
        pub tool_arguments: usize = "toolArguments",
        pub tool_results: usize = "toolResults",
        pub signatures: usize = "signatures",
        pub image_data: usize = "imageData",
    }
}

wire_struct! {
    /// The results of one tool in the history.
    pub struct ToolResultSize {
        pub name: String = "name",
        pub count: usize = "count",
        pub chars: usize = "chars",
        pub tokens: Skip<usize> = "tokens",
    }
}

wire_struct! {
    /// A message of the body's conversation: its path in the body, its role on the wire, the LLM
    /// messages it renders and their session lines (none for one pi inserted).
    pub struct MessageSize {
        pub path: String = "path",
        pub role: String = "role",
        pub messages: Vec<usize> = "messages",
        pub lines: Vec<usize> = "lines",
        pub chars: usize = "chars",
        pub tokens: Skip<usize> = "tokens",
    }
}

wire_struct! {
    /// The history's characters: by role, by kind, by tool for the tool results, by message.
    pub struct HistoryStats {
        /// The sum of `byKind`'s characters (images counted, not measured: their data is `imageData`).
        pub chars: usize = "chars",
        pub tokens: Skip<usize> = "tokens",
        pub by_role: Vec<RoleSize> = "byRole",
        pub by_kind: KindSizes = "byKind",
        /// With a `tokenizer`.
        pub by_kind_tokens: Skip<KindTokens> = "byKindTokens",
        pub tool_results_by_tool: Vec<ToolResultSize> = "toolResultsByTool",
        pub by_message: Vec<MessageSize> = "byMessage",
        /// How many of the body's messages `byMessage` leaves out, when a host asked for only
        /// the largest (the app's worker sends the 200 largest): it then holds those, in the body's
        /// order.
        pub messages_left: Skip<usize> = "messagesLeft",
    }
}

impl HistoryStats {
    /// Keeps the `n` largest of `byMessage` (by characters; of equal ones the first), in the
    /// body's order, and says how many it left out. Two statistics of the same body (with and
    /// without tokens) keep the same messages, in the same places.
    pub fn keep_largest_messages(&mut self, n: usize) {
        let all = self.by_message.len();
        if all <= n {
            return;
        }
        let mut order: Vec<usize> = (0..all).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(self.by_message[i].chars));
        let mut keep = vec![false; all];
        for &i in &order[..n] {
            keep[i] = true;
        }
        let mut i = 0;
        self.by_message.retain(|_| {
            i += 1;
            keep[i - 1]
        });
        self.messages_left = Skip(Some(all - n));
    }

    /// The number of the body's messages, those `byMessage` leaves out included.
    pub fn message_count(&self) -> usize {
        self.by_message.len() + self.messages_left.unwrap_or(0)
    }
}

wire_struct! {
    /// A parameter's value.
    pub struct ParameterSize {
        pub name: String = "name",
        pub chars: usize = "chars",
    }
}

wire_struct! {
    /// The parameters' values (model, max tokens, stream, thinking, cache markers).
    pub struct ParametersStats {
        pub chars: usize = "chars",
        pub by_name: Vec<ParameterSize> = "byName",
    }
}

wire_struct! {
    /// A number of characters.
    pub struct Chars {
        pub chars: usize = "chars",
    }
}

wire_struct! {
    /// Shares of system prompt, tools and history in their total, 0..1.
    pub struct Shares {
        pub system_prompt: f64 = "systemPrompt",
        pub tools: f64 = "tools",
        pub history: f64 = "history",
    }
}

wire_struct! {
    /// The body's size: UTF-8 bytes, UTF-16 units.
    pub struct BodySize {
        pub bytes: usize = "bytes",
        pub chars: usize = "chars",
    }
}

wire_struct! {
    /// The character accounting of the body as sent (after the adapter), in UTF-16 units:
    /// `systemPrompt.chars + tools.chars + history.chars + parameters.chars + structure.chars`
    /// is `body.chars`.
    pub struct Stats {
        /// The vocabulary the `tokens` fields were counted with (the option `tokens`); null: no `tokens` fields.
        pub tokenizer: Option<TokenizerInfo> = "tokenizer",
        pub system_prompt: SystemPromptStats = "systemPrompt",
        pub tools: ToolsStats = "tools",
        pub history: HistoryStats = "history",
        pub parameters: ParametersStats = "parameters",
        /// The rest: JSON punctuation, keys, quotes and escapes, roles, types, ids, tool names.
        pub structure: Chars = "structure",
        pub shares: Shares = "shares",
        pub body: BodySize = "body",
    }
}

wire_enum! {
    /// How much a finding matters.
    Severity as "FindingSeverity" { Info = "info", Notice = "notice", Warning = "warning" }
}

wire_enum! {
    /// A stage of pi's request assembly.
    StageId as "StageId" {
        SessionRead = "session-read",
        AgentMessages = "agent-messages",
        AgentContext = "agent-context",
        InputAppended = "input-appended",
        TransformContext = "transform-context",
        ConvertToLlm = "convert-to-llm",
        TransformMessages = "transform-messages",
        ConvertMessages = "convert-messages",
        BuildParams = "build-params",
        OnPayload = "on-payload",
        HttpBody = "http-body",
    }
}

wire_enum! {
    /// What a stage did to one thing.
    EventKind as "EventKind" {
        Dropped = "dropped",
        Inserted = "inserted",
        Converted = "converted",
        Renamed = "renamed",
        Moved = "moved",
        Clamped = "clamped",
        Replaced = "replaced",
        Note = "note",
    }
}

wire_struct! {
    /// What a stage did to one thing.
    pub struct StageEvent {
        pub kind: EventKind = "kind",
        pub message: String = "message",
        /// pi's source location of the rule (`AI/api/transform-messages.js:127`), when known.
        pub pi_source: Skip<String> = "piSource",
    }
}

/// Named numbers, in their order (a JSON object of numbers).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counts(pub Vec<(String, f64)>);

impl Counts {
    /// The number named `name`.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| *v)
    }
}

impl Wire for Counts {
    fn to_value(&self) -> Value {
        let mut o = Object::new();
        for (k, v) in &self.0 {
            o.insert(k.as_str(), Value::Number(*v));
        }
        o.into()
    }
    fn from_value(v: &Value) -> Option<Self> {
        let o = v.as_object()?;
        o.iter()
            .map(|(k, v)| Some((k.to_string(), v.as_f64()?)))
            .collect::<Option<Vec<_>>>()
            .map(Counts)
    }
    fn ts() -> String {
        "{ [name: string]: number }".into()
    }
}

wire_struct! {
    /// One stage of pi's request assembly.
    pub struct Stage {
        pub id: StageId = "id",
        /// The stage in a pi user's words ("Your session file", "Request parameters").
        pub title: String = "title",
        /// The function of pi that does it (`buildSessionContext`, `buildParams`).
        pub pi_function: String = "piFunction",
        /// What the stage is, in one line for a pi user.
        pub explanation: String = "explanation",
        /// Where the stage lives in pi (file:line).
        pub pi_source: String = "piSource",
        pub summary: String = "summary",
        /// Named counts after the stage (`messages`, `tools`, `bytes`, ...).
        pub counts: Counts = "counts",
        pub events: Vec<StageEvent> = "events",
        /// The events after `events` that the report leaves out, when a host asked for only a
        /// stage's first ones (the app's worker sends a stage's first 200), grouped.
        pub events_left: Skip<EventsLeft> = "eventsLeft",
    }
}

wire_struct! {
    /// The events of a stage after its first ones (a message's conversion is one event each: a
    /// long session's build-params has tens of thousands), grouped by kind and rule.
    pub struct EventsLeft {
        pub count: usize = "count",
        /// By kind and pi's rule (its source location), in the order each first occurs.
        pub groups: Vec<crate::report::compare_types::EventGroup> = "groups",
    }
}

impl Stage {
    /// The number of the stage's events, those left out included.
    pub fn event_count(&self) -> usize {
        self.events.len() + self.events_left.as_ref().map_or(0, |l| l.count)
    }

    /// The number of the stage's events of `kind`, those left out included.
    pub fn count_of(&self, kind: EventKind) -> usize {
        let left = self.events_left.as_ref().map_or(0, |l| {
            l.groups
                .iter()
                .filter(|g| g.kind == kind)
                .map(|g| g.count)
                .sum()
        });
        self.events.iter().filter(|e| e.kind == kind).count() + left
    }
}

wire_enum! {
    /// How much a problem in the inputs matters.
    DiagnosticSeverity as "Severity" { Info = "info", Warning = "warning", Error = "error" }
}

wire_struct! {
    /// A problem in the inputs. Bad input never throws: it is reported here and the rest is still
    /// used.
    pub struct Diagnostic {
        pub severity: DiagnosticSeverity = "severity",
        /// The input: the session path, a file's absolute path, "tools", "args", "model", ...
        pub file: String = "file",
        /// 1-based line, when the problem has one.
        pub line: Skip<usize> = "line",
        /// The line's span in that input, in UTF-16 code units (JS string indices), when the host
        /// holds its text (the npm package).
        pub start: Skip<usize> = "start",
        pub end: Skip<usize> = "end",
        pub message: String = "message",
        /// What was left out because of it, if anything.
        pub skipped: Skip<String> = "skipped",
    }
}

impl From<&crate::Diagnostic> for Diagnostic {
    fn from(d: &crate::Diagnostic) -> Diagnostic {
        Diagnostic {
            severity: d.severity,
            file: d.file.clone(),
            line: d.line.map(|l| l as usize).into(),
            start: Skip(None),
            end: Skip(None),
            message: d.message.clone(),
            skipped: d.skipped.clone().into(),
        }
    }
}

wire_struct! {
    /// The model the assembly used, and the thinking level pi runs it at.
    pub struct ModelInfo {
        pub provider: String = "provider",
        pub id: String = "id",
        pub name: String = "name",
        /// The protocol its requests speak (pi-ai's `api`).
        pub api: String = "api",
        /// Whether the model thinks (pi sends a thinking level only then).
        pub reasoning: bool = "reasoning",
        /// Whether the model takes images (pi replaces them with a placeholder otherwise).
        pub images: bool = "images",
        pub context_window: f64 = "contextWindow",
        pub max_tokens: f64 = "maxTokens",
        /// Where pi took the model from: `--model`, `session`, `settings.defaultModel`,
        /// `available` (the first with auth).
        pub source: String = "source",
        /// The thinking level asked for, before pi's clamp.
        pub thinking_requested: String = "thinkingRequested",
        /// Where it was asked: `--thinking`, `session`, `settings.defaultThinkingLevel`, `default`.
        pub thinking_source: String = "thinkingSource",
        /// The thinking level after pi's clamp to what the model supports.
        pub thinking: String = "thinking",
    }
}

wire_struct! {
    /// pi's own estimate of the context beside the model's window (what its compaction and
    /// its context-overflow checks watch).
    pub struct ContextEstimate {
        /// The release's characters per token (its `estimateTokens`).
        pub chars_per_token: Option<f64> = "charsPerToken",
        /// The estimate: the last reported usage plus the messages after it, else the
        /// characters at `charsPerToken` (null without a model window).
        pub tokens: Option<f64> = "tokens",
        /// The part of `tokens` the provider reported.
        pub usage_tokens: Option<f64> = "usageTokens",
        pub context_window: Option<f64> = "contextWindow",
    }
}

wire_struct! {
    /// A tool call the request sends to a tool it does not define.
    pub struct UndefinedToolCall {
        pub name: String = "name",
        pub call_id: String = "callId",
        /// The session line of the assistant message that made it (null: this run's).
        pub line: Option<usize> = "line",
        pub entry_id: Option<String> = "entryId",
    }
}

/// A pi release ctxlens rebuilds.
impl Wire for PiVersion {
    fn to_value(&self) -> Value {
        Value::str(self.as_str())
    }
    fn from_value(v: &Value) -> Option<Self> {
        v.as_str()?.parse().ok()
    }
    fn ts() -> String {
        "PiVersion".into()
    }
}

impl Declared for PiVersion {
    fn declaration() -> String {
        let all: Vec<String> = PiVersion::ALL
            .iter()
            .map(|v| format!("\"{}\"", v.as_str()))
            .collect();
        format!(
            "/** A pi release ctxlens rebuilds, oldest first. */\nexport type PiVersion = {};\n",
            all.join(" | ")
        )
    }
}

wire_enum! {
    /// Why this release was rebuilt: given (`piVersion`), captured (the case's env.json),
    /// installed (the `pi` on this machine), detected (from the session), call (a past call of a
    /// session a later pi continued, rebuilt by the release that made it: see `callRun`), default
    /// (the newest).
    Reason as "ReleaseReason" {
        Given = "given",
        Captured = "captured",
        Installed = "installed",
        Detected = "detected",
        Call = "call",
        Default = "default",
    }
}

wire_enum! {
    /// How sure a detection is: certain (the facts rule out every other release), likely (they
    /// fit this one best), assumed (no fact points anywhere).
    Certainty as "Certainty" { Certain = "certain", Likely = "likely", Assumed = "assumed" }
}

wire_struct! {
    /// One fact of a session about the release that wrote it.
    pub struct Evidence {
        /// The 1-based line, when it is one line's.
        pub line: Option<usize> = "line",
        pub fact: String = "fact",
    }
}

wire_struct! {
    /// What a session proves about the release that wrote it.
    pub struct Detection {
        pub version: PiVersion = "version",
        pub certainty: Certainty = "certainty",
        /// The oldest release that writes what the session holds, when a fact says so.
        pub at_least: Option<String> = "atLeast",
        pub evidence: Vec<Evidence> = "evidence",
    }
}

wire_struct! {
    /// For `reason: "call"`: the session as the call's release left it ends at `lastLine`; the
    /// system message on `nextRunLine` begins a later run, whose calls are rebuilt by `later`.
    pub struct CallRun {
        pub last_line: usize = "lastLine",
        pub next_run_line: usize = "nextRunLine",
        pub later: PiVersion = "later",
    }
}

wire_struct! {
    /// Which pi release was rebuilt, and why.
    pub struct PiRelease {
        pub version: PiVersion = "version",
        /// `YYYY-MM-DD`.
        pub released: String = "released",
        pub reason: Reason = "reason",
        /// One sentence: the release and why.
        pub explanation: Option<String> = "explanation",
        /// What the session proves (for a `call`: as the session stood then), when there is a
        /// session.
        pub detection: Option<Detection> = "detection",
        pub call_run: Option<CallRun> = "callRun",
        /// Set when the session was written by a newer pi than the one rebuilt (also the first
        /// diagnostic).
        pub newer_session: Option<String> = "newerSession",
        /// The release's built-in tools, in pi's order.
        pub builtin_tools: Vec<String> = "builtinTools",
        /// Every release ctxlens rebuilds.
        pub supported: Vec<PiVersion> = "supported",
    }
}

wire_struct! {
    /// What the provider reported for a call, as pi recorded it on the answer.
    pub struct CallUsage {
        pub input: f64 = "input",
        pub output: f64 = "output",
        pub cache_read: f64 = "cacheRead",
        pub cache_write: f64 = "cacheWrite",
        pub total_tokens: Option<f64> = "totalTokens",
        /// `{input, output, cacheRead, cacheWrite, total}` as recorded, or null.
        pub cost: Option<Value> = "cost" as "{ [k: string]: number } | null",
    }
}

wire_struct! {
    /// One model call: the assistant message that answered it.
    pub struct Call {
        /// 1-based among the calls of its branch.
        pub index: usize = "index",
        pub entry_id: Option<String> = "entryId",
        /// The entry the request ended with (pi's leaf when it sent it).
        pub parent_id: Option<String> = "parentId",
        /// 1-based line in the session file.
        pub line: usize = "line",
        /// When pi stored the answer (ISO).
        pub timestamp: Option<String> = "timestamp",
        /// The answer's `timestamp` (ms): `Date.now()` as the stream started, just before the
        /// request.
        pub message_timestamp: Option<f64> = "messageTimestamp",
        pub provider: Option<String> = "provider",
        pub model: Option<String> = "model",
        pub api: Option<String> = "api",
        /// The level the call was made with, as pi records it from 0.86 on.
        pub thinking_level: Option<String> = "thinkingLevel",
        pub stop_reason: Option<String> = "stopReason",
        pub error_message: Option<String> = "errorMessage",
        pub usage: Option<CallUsage> = "usage",
        pub on_active_branch: bool = "onActiveBranch",
    }
}

impl From<&crate::calls::Call> for Call {
    fn from(c: &crate::calls::Call) -> Call {
        Call {
            index: c.index,
            entry_id: c.entry_id.clone(),
            parent_id: c.parent_id.clone(),
            line: c.line as usize,
            timestamp: c.timestamp.clone(),
            message_timestamp: c.message_timestamp,
            provider: c.provider.clone(),
            model: c.model.clone(),
            api: c.api.clone(),
            thinking_level: c.thinking_level.clone(),
            stop_reason: c.stop_reason.clone(),
            error_message: c.error_message.clone(),
            usage: c.usage.as_ref().map(|u| CallUsage {
                input: u.input,
                output: u.output,
                cache_read: u.cache_read,
                cache_write: u.cache_write,
                total_tokens: u.total_tokens,
                cost: u.cost.clone(),
            }),
            on_active_branch: c.on_active_branch,
        }
    }
}

/// The call whose request was rebuilt: a [`Call`] and how it was chosen.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RebuiltCall {
    pub call: Call,
    /// `index` / `entry`: the `call` option; `last`: no prompt, and the branch ends with an
    /// answer.
    pub chosen: String,
    /// Where the model came from: `given` (the `model` option), `call` (the answer's), `session`.
    pub model_from: String,
    pub thinking_from: String,
    /// Failed answers pi took out of its context before this retry (their entry ids).
    pub retried: Vec<String>,
}

impl Wire for RebuiltCall {
    fn to_value(&self) -> Value {
        let mut v = self.call.to_value();
        if let Value::Object(o) = &mut v {
            self.chosen.put(o, "chosen");
            self.model_from.put(o, "modelFrom");
            self.thinking_from.put(o, "thinkingFrom");
            self.retried.put(o, "retried");
        }
        v
    }
    fn from_value(v: &Value) -> Option<Self> {
        let o = v.as_object()?;
        Some(RebuiltCall {
            call: Call::from_value(v)?,
            chosen: String::take(o, "chosen")?,
            model_from: String::take(o, "modelFrom")?,
            thinking_from: String::take(o, "thinkingFrom")?,
            retried: Vec::take(o, "retried")?,
        })
    }
    fn ts() -> String {
        "RebuiltCall".into()
    }
}

impl Declared for RebuiltCall {
    fn declaration() -> String {
        "/** The call whose request was rebuilt. */
export interface RebuiltCall extends Call {
  /** `index` / `entry`: the `call` option; `last`: no prompt, and the branch ends with an answer. */
  chosen: \"index\" | \"entry\" | \"last\";
  /** Where the model came from: `given` (the `model` option), `call` (the answer's), `session`. */
  modelFrom: \"given\" | \"call\" | \"session\";
  thinkingFrom: \"given\" | \"call\" | \"session\";
  /** Failed answers pi took out of its context before this retry (their entry ids). */
  retried: string[];
}
"
        .into()
    }
}

pub use crate::analysis::findings::Finding;

/// The TypeScript of every report type, in the order `npm/report.d.ts` has them.
pub fn typescript() -> String {
    let parts = [
        "// The types of the report ctxlens gives (`--json`, the npm package, the visualizer's worker).\n\
         // Generated from analysis/src/report/types.rs: do not edit. `CTXLENS_BLESS=1 cargo test -p\n\
         // ctxlens --test report_types` writes it again.\n"
            .to_string(),
        "/** A JSON value, as `JSON.parse` returns it. */\n\
         export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };\n"
            .to_string(),
        PiVersion::declaration(),
        Reason::declaration(),
        Certainty::declaration(),
        Evidence::declaration(),
        Detection::declaration(),
        CallRun::declaration(),
        PiRelease::declaration(),
        StageId::declaration(),
        EventKind::declaration(),
        StageEvent::declaration(),
        EventsLeft::declaration(),
        Stage::declaration(),
        TokenizerInfo::declaration(),
        Section::declaration(),
        SystemPromptStats::declaration(),
        ToolSize::declaration(),
        ToolsStats::declaration(),
        RoleSize::declaration(),
        KindSizes::declaration(),
        KindTokens::declaration(),
        ToolResultSize::declaration(),
        MessageSize::declaration(),
        HistoryStats::declaration(),
        ParameterSize::declaration(),
        ParametersStats::declaration(),
        Chars::declaration(),
        Shares::declaration(),
        BodySize::declaration(),
        Stats::declaration(),
        Severity::declaration(),
        Finding::declaration(),
        ModelInfo::declaration(),
        ContextEstimate::declaration(),
        UndefinedToolCall::declaration(),
        CallUsage::declaration(),
        Call::declaration(),
        RebuiltCall::declaration(),
        DiagnosticSeverity::declaration(),
        Diagnostic::declaration(),
        RequestInfo::declaration(),
        ToolInfo::declaration(),
        StoredAt::declaration(),
        PromptSection::declaration(),
        SentSystemMessage::declaration(),
        SystemPromptInfo::declaration(),
        SectionPatch::declaration(),
        SystemMessageInfo::declaration(),
        ToolResultText::declaration(),
        ImagesSize::declaration(),
        ContextEditInfo::declaration(),
        UsageEntryInfo::declaration(),
        EntryNode::declaration(),
        MessageSourceInfo::declaration(),
        SessionInfo::declaration(),
        UsagePointInfo::declaration(),
        CacheDrop::declaration(),
        CacheFactsInfo::declaration(),
        SessionUsage::declaration(),
        DeclaredToolInfo::declaration(),
        ContextFileInfo::declaration(),
        SkillInfo::declaration(),
        PromptText::declaration(),
        ResourcesInfo::declaration(),
        PackageSkill::declaration(),
        PackageTemplate::declaration(),
        PackageTool::declaration(),
        PackageCost::declaration(),
        VocabularyInfo::declaration(),
        CompactionInfo::declaration(),
        WindowInfo::declaration(),
        CallRelease::declaration(),
        super::api_types::AssemblyResult::declaration(),
        super::api_types::ModelRef::declaration(),
        super::api_types::ReleaseChoice::declaration(),
        super::api_types::SessionTree::declaration(),
        super::api_types::TokensInfo::declaration(),
        CalibratedCall::declaration(),
        FramingInfo::declaration(),
        FitErrorInfo::declaration(),
        BlockRatios::declaration(),
        EstimateInfo::declaration(),
        CalibrationInfo::declaration(),
        ComparisonSide::declaration(),
        Placement::declaration(),
        MappingRow::declaration(),
        crate::analysis::compare::Side::declaration(),
        Loss::declaration(),
        EventGroup::declaration(),
        ComparisonEvents::declaration(),
        Comparison::declaration(),
        FirstChange::declaration(),
        NotBuilt::declaration(),
        UrlChange::declaration(),
        HeaderChange::declaration(),
        UpgradeBlock::declaration(),
        ChangelogLine::declaration(),
        RuleChange::declaration(),
        ReleaseNotesSection::declaration(),
        ReleaseNotes::declaration(),
        Upgrade::declaration(),
        TakeHomeText::declaration(),
        WhatIfChange::declaration(),
        PricesPerMillion::declaration(),
        CostPerCall::declaration(),
        WhatIfSide::declaration(),
        WhatIfDelta::declaration(),
        WhatIfCache::declaration(),
        WhatIfCall::declaration(),
        WhatIfSessionSide::declaration(),
        WhatIfSaved::declaration(),
        WhatIfSession::declaration(),
        WhatIf::declaration(),
        crate::analysis::ledger::GroupBy::declaration(),
        UsageTotals::declaration(),
        UsageShare::declaration(),
        UsageBlocks::declaration(),
        UsageSaved::declaration(),
        UsageGroup::declaration(),
        UsageItem::declaration(),
        UsageSourcedItem::declaration(),
        UsageShadowedFile::declaration(),
        UsageCacheBreaks::declaration(),
        UsageBreak::declaration(),
        UsageCostlyCall::declaration(),
        UsageSkipped::declaration(),
        UsageChangedFile::declaration(),
        UsageNotRebuilt::declaration(),
        UsageRead::declaration(),
        UsageReport::declaration(),
    ];
    parts.join("\n")
}

impl KindSizes {
    /// Each kind under its JSON key (`userText`, …, `images`), in the JSON's order.
    pub fn kinds(&self) -> [(&'static str, usize); 8] {
        [
            ("userText", self.user_text),
            ("assistantText", self.assistant_text),
            ("reasoning", self.reasoning),
            ("toolArguments", self.tool_arguments),
            ("toolResults", self.tool_results),
            ("signatures", self.signatures),
            ("imageData", self.image_data),
            ("images", self.images),
        ]
    }

    /// The kind under the JSON key `key`.
    pub fn of(&self, key: &str) -> Option<usize> {
        self.kinds()
            .into_iter()
            .find(|(k, _)| *k == key)
            .map(|(_, n)| n)
    }
}

impl KindTokens {
    /// The kind under the JSON key `key` (`images` has no tokens).
    pub fn of(&self, key: &str) -> Option<usize> {
        [
            ("userText", self.user_text),
            ("assistantText", self.assistant_text),
            ("reasoning", self.reasoning),
            ("toolArguments", self.tool_arguments),
            ("toolResults", self.tool_results),
            ("signatures", self.signatures),
            ("imageData", self.image_data),
        ]
        .into_iter()
        .find(|(k, _)| *k == key)
        .map(|(_, n)| n)
    }
}

impl ModelInfo {
    /// `provider/id`, as pi's `--model` takes it.
    pub fn key(&self) -> String {
        format!("{}/{}", self.provider, self.id)
    }
}

//! The record of what each pipeline stage did: the seed article's chain, stage by stage.

/// The stages of pi's request assembly, in order (INVENTORY §0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StageId {
    /// The session JSONL read, migrated and indexed; the active branch walked.
    SessionRead,
    /// `buildSessionContext`: entries on the branch turned into agent messages.
    AgentMessages,
    /// The agent's state: model, thinking level, active tools, system prompt.
    AgentContext,
    /// This turn's input: the new user message (text, attachments) appended.
    InputAppended,
    /// The extension `context` hook (identity without extensions).
    TransformContext,
    /// `convertToLlm`: custom roles turned into user messages, some dropped.
    ConvertToLlm,
    /// `transformMessages`: images downgraded, cross-model thinking, ids, dropped turns.
    TransformMessages,
    /// The adapter's message conversion into the protocol's shape.
    ConvertMessages,
    /// The adapter's parameters: model, limits, thinking, tools, caching.
    BuildParams,
    /// The extension `before_provider_request` hook (identity without extensions).
    OnPayload,
    /// The serialized HTTP request: URL, headers, body bytes.
    HttpBody,
}

impl StageId {
    pub const ALL: [StageId; 11] = [
        StageId::SessionRead,
        StageId::AgentMessages,
        StageId::AgentContext,
        StageId::InputAppended,
        StageId::TransformContext,
        StageId::ConvertToLlm,
        StageId::TransformMessages,
        StageId::ConvertMessages,
        StageId::BuildParams,
        StageId::OnPayload,
        StageId::HttpBody,
    ];

    pub fn key(self) -> &'static str {
        match self {
            StageId::SessionRead => "session-read",
            StageId::AgentMessages => "agent-messages",
            StageId::AgentContext => "agent-context",
            StageId::InputAppended => "input-appended",
            StageId::TransformContext => "transform-context",
            StageId::ConvertToLlm => "convert-to-llm",
            StageId::TransformMessages => "transform-messages",
            StageId::ConvertMessages => "convert-messages",
            StageId::BuildParams => "build-params",
            StageId::OnPayload => "on-payload",
            StageId::HttpBody => "http-body",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            StageId::SessionRead => "Session read",
            StageId::AgentMessages => "Agent messages",
            StageId::AgentContext => "Agent context",
            StageId::InputAppended => "This turn's input appended",
            StageId::TransformContext => "transformContext",
            StageId::ConvertToLlm => "convertToLlm",
            StageId::TransformMessages => "transformMessages",
            StageId::ConvertMessages => "convertMessages",
            StageId::BuildParams => "buildParams",
            StageId::OnPayload => "onPayload",
            StageId::HttpBody => "HTTP body",
        }
    }
}

/// What a stage did to one thing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// Something was left out (an errored turn, an excluded bash run, blank text).
    Dropped,
    /// Something was added that the input did not have (a synthetic tool result, a bridge
    /// message, a cache marker).
    Inserted,
    /// Something changed shape (a custom message to a user message, thinking to text).
    Converted,
    /// An identifier changed (a tool-call id normalized, a tool renamed).
    Renamed,
    /// A value was limited (thinking level, max tokens, budget).
    Clamped,
    /// Content was replaced by a placeholder (an image omitted).
    Replaced,
    /// A plain observation.
    Note,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Dropped => "dropped",
            EventKind::Inserted => "inserted",
            EventKind::Converted => "converted",
            EventKind::Renamed => "renamed",
            EventKind::Clamped => "clamped",
            EventKind::Replaced => "replaced",
            EventKind::Note => "note",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub kind: EventKind,
    pub message: String,
    /// pi's source location of the rule (`AI/api/transform-messages.js:127`), when known.
    pub pi_source: Option<&'static str>,
}

impl Event {
    pub fn new(kind: EventKind, message: impl Into<String>) -> Self {
        Event {
            kind,
            message: message.into(),
            pi_source: None,
        }
    }

    pub fn at(mut self, pi_source: &'static str) -> Self {
        self.pi_source = Some(pi_source);
        self
    }
}

/// A sink for events, so stage functions need not know where they go.
pub type Events = Vec<Event>;

#[derive(Clone, Debug, PartialEq)]
pub struct Stage {
    pub id: StageId,
    /// Where this stage lives in pi (file:line).
    pub pi_source: &'static str,
    /// One line: what the stage produced.
    pub summary: String,
    /// Named counts after the stage (`messages`, `tools`, `chars`).
    pub counts: Vec<(String, f64)>,
    pub events: Vec<Event>,
}

/// The whole record, one entry per stage in [`StageId::ALL`] order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    pub stages: Vec<Stage>,
}

impl Trace {
    pub fn stage(&self, id: StageId) -> Option<&Stage> {
        self.stages.iter().find(|s| s.id == id)
    }
}

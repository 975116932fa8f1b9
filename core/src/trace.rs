//! The record of what each pipeline stage did: the seed article's chain, stage by stage.

/// The stages of pi's request assembly, in order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StageId {
    /// The session JSONL read, migrated and indexed; the active branch walked.
    #[default]
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

    /// What the stage is, in one line for a pi user (the views show it under the stage's name).
    pub fn explanation(self) -> &'static str {
        match self {
            StageId::SessionRead => "pi reads your session file and follows the active branch from the leaf back to the first entry",
            StageId::AgentMessages => "the entries on that branch become the agent's messages (a compaction's summary stands in for what it replaced)",
            StageId::AgentContext => "pi picks the model and thinking level, the active tools, and builds the system prompt from AGENTS.md files, skills and settings",
            StageId::InputAppended => "your new prompt (with any @file attachments) is added; with no prompt, pi continues after the last tool results",
            StageId::TransformContext => "extensions may rewrite the messages here; without extensions they pass unchanged",
            StageId::ConvertToLlm => "pi's own message kinds (bash runs, custom and summary messages) become plain user, assistant and tool-result messages",
            StageId::TransformMessages => "the history is fitted to the model: thinking from other models, images it cannot read, tool-call ids, errored turns",
            StageId::ConvertMessages => "the protocol's adapter turns the messages into the shape its API expects",
            StageId::BuildParams => "the adapter adds the model, token limits, thinking, tools and cache markers",
            StageId::OnPayload => "extensions may change the finished parameters here; without extensions they pass unchanged",
            StageId::HttpBody => "the URL, the headers and the exact body bytes pi sends",
        }
    }

    /// The stage in a pi user's words.
    pub fn title(self) -> &'static str {
        match self {
            StageId::SessionRead => "Your session file",
            StageId::AgentMessages => "The conversation so far",
            StageId::AgentContext => "Model, tools and system prompt",
            StageId::InputAppended => "Your new message",
            StageId::TransformContext => "Extensions' context hook",
            StageId::ConvertToLlm => "Messages for the model",
            StageId::TransformMessages => "Fitted to the model",
            StageId::ConvertMessages => "In the provider's format",
            StageId::BuildParams => "Request parameters",
            StageId::OnPayload => "Extensions' request hook",
            StageId::HttpBody => "What is sent",
        }
    }

    /// The function of pi that does it (the views show it under the title).
    pub fn pi_function(self) -> &'static str {
        match self {
            StageId::SessionRead => "parseSessionEntryLine",
            StageId::AgentMessages => "buildSessionContext",
            StageId::AgentContext => "createAgentSession",
            StageId::InputAppended => "AgentSession.prompt",
            StageId::TransformContext => "transformContext",
            StageId::ConvertToLlm => "convertToLlm",
            StageId::TransformMessages => "transformMessages",
            StageId::ConvertMessages => "convertMessages",
            StageId::BuildParams => "buildParams",
            StageId::OnPayload => "onPayload",
            StageId::HttpBody => "fetch",
        }
    }
}

/// What a stage did to one thing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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
    /// Something changed place (a system message held until a tool call's results).
    Moved,
    /// A value was limited (thinking level, max tokens, budget).
    Clamped,
    /// Content was replaced by a placeholder (an image omitted).
    Replaced,
    /// A plain observation.
    #[default]
    Note,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Dropped => "dropped",
            EventKind::Inserted => "inserted",
            EventKind::Converted => "converted",
            EventKind::Renamed => "renamed",
            EventKind::Moved => "moved",
            EventKind::Clamped => "clamped",
            EventKind::Replaced => "replaced",
            EventKind::Note => "note",
        }
    }
}

/// Events of one kind and one rule of pi, counted: how a long list reads (a long session's
/// adapter makes one event per message).
#[derive(Clone, Debug, PartialEq)]
pub struct EventGroup {
    pub kind: EventKind,
    pub pi_source: Option<&'static str>,
    pub count: usize,
    /// The first of them.
    pub example: String,
}

/// `events` grouped by kind and rule, in the order each group first occurs.
pub fn group_events<'a>(events: impl IntoIterator<Item = &'a Event>) -> Vec<EventGroup> {
    let mut out: Vec<EventGroup> = Vec::new();
    for e in events {
        match out
            .iter_mut()
            .find(|g| g.kind == e.kind && g.pi_source == e.pi_source)
        {
            Some(g) => g.count += 1,
            None => out.push(EventGroup {
                kind: e.kind,
                pi_source: e.pi_source,
                count: 1,
                example: e.message.clone(),
            }),
        }
    }
    out
}

#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// The stage that did it (set by the [`Events`] sink it was pushed into).
    pub stage: StageId,
    pub kind: EventKind,
    pub message: String,
    /// The rule's pi source key (`AI/api/transform-messages.js:127`, a location in the release
    /// the rule was ported from; [`Pi::source`](crate::pi::Pi::source) gives its location in
    /// the release being rebuilt), when known.
    pub pi_source: Option<&'static str>,
}

impl Event {
    pub fn new(kind: EventKind, message: impl Into<String>) -> Self {
        Event {
            stage: StageId::default(),
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

/// A sink for events, so stage functions need not know where they go: every event pushed is
/// filed under the sink's current stage.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Events {
    stage: StageId,
    list: Vec<Event>,
}

impl Events {
    /// A sink filing events under `stage`.
    pub fn new(stage: StageId) -> Self {
        Events {
            stage,
            list: Vec::new(),
        }
    }

    pub fn push(&mut self, mut event: Event) {
        event.stage = self.stage;
        self.list.push(event);
    }

    pub fn extend(&mut self, events: impl IntoIterator<Item = Event>) {
        for e in events {
            self.push(e);
        }
    }

    /// Files the events pushed from now on under `stage`; returns the stage before.
    pub fn enter(&mut self, stage: StageId) -> StageId {
        std::mem::replace(&mut self.stage, stage)
    }

    /// Runs `f` with its events filed under `stage`, then goes back to the stage before.
    pub fn within<T>(&mut self, stage: StageId, f: impl FnOnce(&mut Events) -> T) -> T {
        let before = self.enter(stage);
        let out = f(self);
        self.enter(before);
        out
    }

    pub fn into_vec(self) -> Vec<Event> {
        self.list
    }

    /// Appends events recorded earlier, each under the stage it was filed under then (a stage's
    /// result kept by the workspace, given again).
    pub(crate) fn replay(&mut self, events: &[Event]) {
        self.list.extend_from_slice(events);
    }
}

impl std::ops::Deref for Events {
    type Target = [Event];

    fn deref(&self) -> &[Event] {
        &self.list
    }
}

impl IntoIterator for Events {
    type Item = Event;
    type IntoIter = std::vec::IntoIter<Event>;

    fn into_iter(self) -> Self::IntoIter {
        self.list.into_iter()
    }
}

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

/// Records the trace while the stages run: each stage's one-line record, and every event under
/// the stage that pushed it.
#[derive(Debug, Default)]
pub struct Recorder {
    /// Where the stages push their events.
    pub events: Events,
    stages: Vec<Stage>,
}

impl Recorder {
    /// Starts filing events under `stage` (until the next call).
    pub fn begin(&mut self, stage: StageId) {
        self.events.enter(stage);
    }

    /// The record of a stage that ran: where it lives in pi, what it produced, its counts.
    pub fn record(
        &mut self,
        id: StageId,
        pi_source: &'static str,
        summary: impl Into<String>,
        counts: Vec<(String, f64)>,
    ) {
        self.stages.push(Stage {
            id,
            pi_source,
            summary: summary.into(),
            counts,
            events: Vec::new(),
        });
    }

    /// The trace: stages in [`StageId::ALL`] order, each with its events in the order pushed.
    pub fn finish(self) -> Trace {
        let mut stages = self.stages;
        stages.sort_by_key(|s| s.id);
        for e in self.events {
            if let Some(s) = stages.iter_mut().find(|s| s.id == e.stage) {
                s.events.push(e);
            }
        }
        Trace { stages }
    }
}

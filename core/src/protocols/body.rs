//! The body as written, and where each of its characters came from.
//!
//! An adapter marks each object it builds from a source with a [`Tag`]: a tool's definition
//! (its `description`) and its parameters' schema, a system text, a wire message and its blocks
//! (text, reasoning, a tool call, an image), a text pi inserts. [`written`] writes
//! `JSON.stringify(params)` and, as it goes, a [`Span`] for every payload those objects hold:
//! the seed's accounting (`analysis::stats`) and the provenance of every leaf
//! (`provenance`) are read off these spans, never found by searching the body's text
//! for its sources.
//!
//! What a marked object's members are is one table, [`member`]: a text kind's `text`, `content`
//! or `output`; reasoning's `thinking` or `reasoning*`; the opaque replay fields (signatures,
//! encrypted reasoning); a call's `arguments`/`input`/`args`; an image's data. Everything else
//! inside a marked object (keys, quotes, escapes, roles, types, ids, tool names) is structure.
//! Outside marked objects, a value is a parameter, named by its top-level key (two levels in
//! the config containers), or by the cache marker it sits in.

use crate::js::{json, utf16_len, Mark, Object, Value};

/// A history kind, as the seed's table splits the conversation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    UserText = 1,
    AssistantText = 2,
    ToolResults = 3,
    Reasoning = 4,
    /// Opaque replay strings: thinking and text signatures, encrypted reasoning.
    Signatures = 5,
    ToolArguments = 6,
    ImageData = 7,
}

impl Kind {
    fn from_u8(b: u8) -> Option<Kind> {
        Some(match b {
            1 => Kind::UserText,
            2 => Kind::AssistantText,
            3 => Kind::ToolResults,
            4 => Kind::Reasoning,
            5 => Kind::Signatures,
            6 => Kind::ToolArguments,
            7 => Kind::ImageData,
            _ => return None,
        })
    }

    /// The text kind of a pi role (`user`, `assistant`, `toolResult`).
    pub fn of_role(role: &str) -> Kind {
        match role {
            "assistant" => Kind::AssistantText,
            "toolResult" => Kind::ToolResults,
            _ => Kind::UserText,
        }
    }
}

/// No LLM message: a wire message or block pi inserted.
pub const NO_MESSAGE: u32 = u32::MAX;

/// What a marked object is: set by the adapter that builds it (or, for the LLM messages and
/// their blocks, by [`mark_llm_messages`] before the adapter runs, so that an adapter marks
/// what it writes by copying the mark of what it renders: [`like`]), read by [`written`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tag {
    /// A tool's definition object: the one holding its `name` and `description` (and the
    /// wrapper around it, where the protocol has one). The writer numbers the tools in the order
    /// written ([`Accounting::tools`]).
    Tool,
    /// A tool's parameters as written (the whole value counts), inside its [`Tag::Tool`].
    Schema,
    /// An object holding a system text (`text`, `content`, pi-messages' `systemPrompt`). The
    /// writer numbers the system texts in the order written.
    System,
    /// A stored system message's `sections` (pi-messages sends them raw): every member is a
    /// section's text.
    Sections,
    /// A wire message (an element of the conversation array) rendering LLM message `llm`
    /// ([`NO_MESSAGE`]: one pi inserted); its own text members are of `kind`.
    Message { llm: u32, kind: Kind },
    /// A block of LLM message `llm` (a content part, a reasoning item, a tool call, an image),
    /// whose payload members are of `kind`.
    Block { llm: u32, kind: Kind },
    /// A text pi inserts (`strings.json` key `key`, [`crate::pi::PiData::inserted_strings`]'s
    /// index), of `kind`.
    Inserted { key: u16, kind: Kind },
}

impl Tag {
    pub fn mark(self) -> Mark {
        let (variant, kind, key, index): (u64, u8, u16, u32) = match self {
            Tag::Tool => (1, 0, 0, 0),
            Tag::Schema => (2, 0, 0, 0),
            Tag::System => (3, 0, 0, 0),
            Tag::Sections => (7, 0, 0, 0),
            Tag::Message { llm, kind } => (4, kind as u8, 0, llm),
            Tag::Block { llm, kind } => (5, kind as u8, 0, llm),
            Tag::Inserted { key, kind } => (6, kind as u8, key, 0),
        };
        Mark::new(variant << 56 | (kind as u64) << 48 | (key as u64) << 32 | index as u64)
    }

    pub fn of(mark: Mark) -> Option<Tag> {
        let m = mark.bits();
        let index = m as u32;
        let key = (m >> 32) as u16;
        let kind = Kind::from_u8((m >> 48) as u8);
        Some(match m >> 56 {
            1 => Tag::Tool,
            2 => Tag::Schema,
            3 => Tag::System,
            7 => Tag::Sections,
            4 => Tag::Message {
                llm: index,
                kind: kind?,
            },
            5 => Tag::Block {
                llm: index,
                kind: kind?,
            },
            6 => Tag::Inserted { key, kind: kind? },
            _ => return None,
        })
    }

    /// The LLM message it renders, if any.
    pub fn llm(self) -> Option<u32> {
        match self {
            Tag::Message { llm, .. } | Tag::Block { llm, .. } if llm != NO_MESSAGE => Some(llm),
            _ => None,
        }
    }

    /// The same source as a wire message (a block's mark on the message that carries it).
    pub fn as_message(self) -> Tag {
        match self {
            Tag::Block { llm, kind } => Tag::Message { llm, kind },
            t => t,
        }
    }

    /// The same source as a block of `kind` (a message's mark on a part of it).
    pub fn as_block(self, kind: Kind) -> Tag {
        match self {
            Tag::Message { llm, .. } | Tag::Block { llm, .. } => Tag::Block { llm, kind },
            Tag::Inserted { key, .. } => Tag::Inserted { key, kind },
            t => t,
        }
    }
}

/// The tag of `v` (an object marked with one).
pub fn tag_of(v: &Value) -> Option<Tag> {
    v.as_object().and_then(|o| Tag::of(o.mark()))
}

/// `out` marked as what `src` is (an LLM message or block, marked by [`mark_llm_messages`]):
/// the adapter says "this renders that".
pub fn like(out: Object, src: &Value) -> Object {
    match src.as_object() {
        Some(o) if !o.mark().is_none() => out.marked(o.mark()),
        _ => out,
    }
}

/// `out` marked as the wire message rendering `src` (an LLM message, or a block of one).
pub fn message_like(out: Object, src: &Value) -> Object {
    match tag_of(src) {
        Some(t) => out.marked(t.as_message().mark()),
        None => out,
    }
}

/// `out` marked as a `kind` part of what `src` is.
pub fn part_of(out: Object, src: &Value, kind: Kind) -> Object {
    match tag_of(src) {
        Some(t) => out.marked(t.as_block(kind).mark()),
        None => out,
    }
}

/// `out` marked as a text block of `msg`, of the message's own kind (a placeholder standing in
/// for one of its images, another model's thinking turned into text).
pub fn text_of(out: Object, msg: &Value) -> Object {
    match tag_of(msg) {
        Some(Tag::Message { llm, kind }) => out.marked(Tag::Block { llm, kind }.mark()),
        Some(t @ (Tag::Inserted { .. } | Tag::System)) => out.marked(t.mark()),
        _ => out,
    }
}

/// The tag of pi's text `key` standing in a part of `msg`, of the message's own kind (a
/// placeholder for one of its images).
pub fn inserted_in(pi: &crate::pi::Pi, key: &str, msg: &Value) -> Tag {
    let kind = match tag_of(msg) {
        Some(Tag::Message { kind, .. } | Tag::Block { kind, .. } | Tag::Inserted { kind, .. }) => {
            kind
        }
        _ => Kind::UserText,
    };
    inserted(pi, key, kind)
}

/// The tag of a text pi inserts: its `strings.json` key (`transformMessages.missingToolResult`).
pub fn inserted(pi: &crate::pi::Pi, key: &str, kind: Kind) -> Tag {
    let index = pi
        .data
        .inserted_strings()
        .iter()
        .position(|(k, _)| k == key)
        .unwrap_or(u16::MAX as usize);
    Tag::Inserted {
        key: index.min(u16::MAX as usize) as u16,
        kind,
    }
}

/// A stored system message (0.86 on) as a system text: its content (a string or text blocks),
/// its sections, and the tools it declares (pi-messages sends it as stored).
fn mark_system_message(o: &mut Object) {
    o.set_mark(Tag::System.mark());
    if let Some(Value::Array(blocks)) = o.get_mut("content") {
        blocks.iter_mut().for_each(|b| mark(b, Tag::System));
    }
    if let Some(sections) = o.get_mut("sections") {
        mark(sections, Tag::Sections);
    }
    if let Some(Value::Array(tools)) = o.get_mut("toolsAdded") {
        for t in tools.iter_mut() {
            if let Some(p) = t.as_object_mut().and_then(|t| t.get_mut("parameters")) {
                mark(p, Tag::Schema);
            }
            mark(t, Tag::Tool);
        }
    }
}

/// Marks each LLM message (`convertToLlm`'s output) and each of its content blocks with what
/// it is: message `i`'s text of its role's kind, a thinking block, a tool call, an image; a
/// system message (0.86 on) as a system text. Adapters copy these marks onto what they write.
pub fn mark_llm_messages(messages: &mut [Value]) {
    for (i, m) in messages.iter_mut().enumerate() {
        mark_llm_message(i, m);
    }
}

/// Marks LLM message `i` and its content blocks ([`mark_llm_messages`]).
pub fn mark_llm_message(i: usize, m: &mut Value) {
    let Some(o) = m.as_object_mut() else { return };
    let role = o.get_str("role").unwrap_or("").to_string();
    if role == "system" {
        mark_system_message(o);
        return;
    }
    let llm = i as u32;
    let kind = Kind::of_role(&role);
    o.set_mark(Tag::Message { llm, kind }.mark());
    if let Some(Value::Array(blocks)) = o.get_mut("content") {
        for b in blocks.iter_mut() {
            let Some(bo) = b.as_object_mut() else {
                continue;
            };
            let k = match bo.get_str("type") {
                Some("thinking") | Some("redactedThinking") => Kind::Reasoning,
                Some("toolCall") => Kind::ToolArguments,
                Some("image") => Kind::ImageData,
                _ => kind,
            };
            bo.set_mark(Tag::Block { llm, kind: k }.mark());
        }
    }
}

/// `value` marked as `tag` (an object; anything else is returned as it is).
pub fn marked(value: Value, tag: Tag) -> Value {
    match value {
        Value::Object(o) => Value::Object(o.marked(tag.mark())),
        v => v,
    }
}

/// Marks the object `value` is (if it is one) in place.
pub fn mark(value: &mut Value, tag: Tag) {
    if let Value::Object(o) = value {
        o.set_mark(tag.mark());
    }
}

/// What a span counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Payload {
    /// System text `k`'s characters.
    System(u32),
    ToolDescription(u32),
    /// The JSON of tool `i`'s parameters as written.
    ToolSchema(u32),
    /// A history payload: a text (its characters) or a call's arguments object (its JSON), of
    /// the LLM message `llm` or of the inserted text `inserted`, inside wire message `wire`
    /// (an index into [`Accounting::wires`]).
    History {
        kind: Kind,
        llm: Option<u32>,
        inserted: Option<u16>,
        wire: Option<u32>,
    },
    /// A parameter's value (its JSON), `name` an index into [`Accounting::parameters`].
    Parameter(u32),
}

/// One payload of the body: its bytes (the JSON token, quotes included) and the characters
/// it counts (a text's UTF-16 length, or the JSON's for a whole value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub chars: usize,
    /// Whether `chars` counts the text of a JSON string (else the JSON as written).
    pub text: bool,
    pub payload: Payload,
}

/// A wire message: an object marked [`Tag::Message`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireMessage {
    /// Its path in the body (`messages.3`, `contents.2`, `input.5`).
    pub path: String,
    /// Its `role` member, when it has one.
    pub role: Option<String>,
    /// Its `call_id` / `tool_call_id` / `tool_use_id` / `toolUseId`, when it has one.
    pub call_id: Option<String>,
}

/// Where the body's characters came from, recorded while writing it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Accounting {
    pub spans: Vec<Span>,
    pub wires: Vec<WireMessage>,
    /// The parameters' names, in order of first appearance.
    pub parameters: Vec<String>,
    /// The tools written ([`Tag::Tool`] objects), in order: each one's `name` member.
    pub tools: Vec<String>,
    /// How many system texts were written ([`Payload::System`]'s numbers).
    pub systems: u32,
    /// The top-level members that hold a source's text themselves ([`written_with_root`]).
    pub root: Vec<(String, Tag)>,
    /// The body's length in UTF-16 code units (JS's `body.length`), summed while writing it:
    /// a text whose length is known ([`crate::js::memo`]) is not read again.
    pub body_chars: usize,
    /// A digest of each span (by index), when the body was written while long strings' facts
    /// were remembered ([`crate::js::memo::remember`]); else empty. A text's is its source's
    /// ([`crate::js::memo::digest`] of the string), a whole value's that of its JSON: equal
    /// digests at the same place of two bodies mean equal bytes there.
    pub digests: Vec<u64>,
    /// The history texts a measured body left out ([`crate::js::memo::measuring`]), each with
    /// the index of its span, in order: the body holds `""` in each one's place. Empty for a
    /// body as sent.
    pub elided: Vec<(u32, crate::js::Str)>,
    /// How many bytes the left-out texts' JSON has beyond the `""` written instead.
    pub elided_bytes: usize,
}

impl Accounting {
    /// The text span `i` stands for, when the body left it out ([`Accounting::elided`]).
    pub fn elided_text(&self, i: usize) -> Option<&crate::js::Str> {
        let at = self
            .elided
            .binary_search_by_key(&(i as u32), |(s, _)| *s)
            .ok()?;
        Some(&self.elided[at].1)
    }

    /// Whether the body is measured, not sent: some texts are left out of it.
    pub fn is_measured(&self) -> bool {
        !self.elided.is_empty()
    }
}

/// One leaf of the body (a string, number, boolean or null; or a whole counted value) with
/// the innermost tag around it and what it counts as.
#[derive(Clone, Debug, PartialEq)]
pub struct Leaf {
    /// Dot-separated, array indices as numbers (`messages.3.content.0.text`).
    pub path: String,
    pub tag: Option<Tag>,
    /// The wire message it is in ([`Accounting::wires`]).
    pub wire: Option<u32>,
    /// The tool it is part of ([`Accounting::tools`]).
    pub tool: Option<u32>,
    pub payload: Option<Payload>,
    /// UTF-16 length of a string leaf (0 otherwise).
    pub chars: usize,
}

const ID_KEYS: [&str; 4] = ["tool_call_id", "tool_use_id", "call_id", "toolUseId"];

/// Config containers whose members are parameters of their own (`generationConfig.maxOutputTokens`).
const CONTAINERS: [&str; 5] = [
    "generationConfig",
    "inferenceConfig",
    "additionalModelRequestFields",
    "config",
    "options",
];

fn is_cache_key(k: &str) -> bool {
    k.as_bytes()
        .windows(5)
        .any(|w| w.eq_ignore_ascii_case(b"cache"))
}

/// What member `key` (value `v`) of an object tagged `tag` counts as: a text (a string's
/// characters) or a whole value (its JSON) of some payload; `None`: structure.
fn member(tag: Tag, key: &str, v: &Value) -> Option<Member> {
    let is_str = matches!(v, Value::String(_));
    let text = |p: Member| is_str.then_some(p);
    const SIGNATURES: [&str; 7] = [
        "redactedContent",
        "signature",
        "thoughtSignature",
        "thinkingSignature",
        "textSignature",
        "encrypted_content",
        "redacted_content",
    ];
    match tag {
        Tag::Tool => match key {
            "description" => text(Member::Text(Counted::ToolDescription)),
            _ => None,
        },
        Tag::Schema => None,
        Tag::Sections => text(Member::Text(Counted::System)),
        Tag::System => match key {
            "text" | "content" | "systemPrompt" => text(Member::Text(Counted::System)),
            _ => None,
        },
        Tag::Message { kind, .. } | Tag::Block { kind, .. } | Tag::Inserted { kind, .. } => {
            let history = |k: Kind| Counted::History(k);
            if SIGNATURES.contains(&key) {
                return text(Member::Text(history(Kind::Signatures)));
            }
            match kind {
                Kind::ToolArguments => match key {
                    "arguments" | "input" | "args" => Some(if is_str {
                        Member::Text(history(Kind::ToolArguments))
                    } else {
                        Member::Whole(history(Kind::ToolArguments))
                    }),
                    _ => None,
                },
                Kind::ImageData => match key {
                    "data" | "url" | "image_url" | "bytes" => {
                        text(Member::Text(history(Kind::ImageData)))
                    }
                    _ => None,
                },
                Kind::Reasoning => match key {
                    "thinking" | "text" | "reasoning" | "reasoning_content" | "reasoning_text"
                    | "content" => text(Member::Text(history(Kind::Reasoning))),
                    "data" => text(Member::Text(history(Kind::Signatures))),
                    _ => None,
                },
                Kind::Signatures => match key {
                    "data" | "text" | "content" => text(Member::Text(history(Kind::Signatures))),
                    _ => None,
                },
                k @ (Kind::UserText | Kind::AssistantText | Kind::ToolResults) => match key {
                    "text" | "content" | "output" => text(Member::Text(history(k))),
                    // Google's error result: `response: {error}`.
                    "error" if k == Kind::ToolResults => text(Member::Text(history(k))),
                    "reasoning" | "reasoning_content" | "reasoning_text" => {
                        text(Member::Text(history(Kind::Reasoning)))
                    }
                    _ => None,
                },
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Counted {
    System,
    ToolDescription,
    History(Kind),
}

#[derive(Clone, Copy)]
enum Member {
    /// A string: its characters count.
    Text(Counted),
    /// A value: its JSON counts.
    Whole(Counted),
}

/// A step of the path to the node being written.
#[derive(Clone, Copy)]
enum Step<'v> {
    Key(&'v str),
    Index(usize),
}

fn path_of(steps: &[Step]) -> String {
    let mut p = String::new();
    for (i, s) in steps.iter().enumerate() {
        if i > 0 {
            p.push('.');
        }
        match s {
            Step::Key(k) => p.push_str(k),
            Step::Index(n) => p.push_str(&n.to_string()),
        }
    }
    p
}

/// A parameter's name: a top-level key, a config container's member, a cache marker.
#[derive(Clone, Copy)]
enum Param<'v> {
    Key(&'v str),
    Member(&'v str, &'v str),
}

/// Where the writer is: the innermost tag, the wire message, the parameter.
#[derive(Clone, Copy, Default)]
struct Scope<'v> {
    tag: Option<Tag>,
    /// The tag's LLM message and inserted key (inherited by the blocks inside).
    llm: Option<u32>,
    inserted: Option<u16>,
    wire: Option<u32>,
    /// The tool being written ([`Accounting::tools`]).
    tool: Option<u32>,
    /// The system text being written (its number).
    system: Option<u32>,
    /// The parameter the values below belong to (outside any tag, or in a cache marker).
    parameter: Option<Param<'v>>,
}

struct Writer<'v, 'o> {
    out: &'o mut String,
    acc: Accounting,
    /// The body before this is counted in `acc.body_chars`.
    counted_to: usize,
    /// Whether each span's digest is recorded (`acc.digests`).
    digests: bool,
    /// Whether long history texts are left out ([`crate::js::memo::measuring`]).
    elide: bool,
    steps: Vec<Step<'v>>,
    leaves: Option<Vec<Leaf>>,
    /// Top-level members that are a source's text themselves (codex's `instructions`).
    root: &'o [(String, Tag)],
}

/// The body's text with its accounting.
pub fn written(params: &Value) -> (String, Accounting) {
    written_with_root(params, &[])
}

/// [`written`], where the top-level members named in `root` hold that source's text themselves
/// (a string member cannot carry a mark): `("instructions", Tag::System)`.
pub fn written_with_root(params: &Value, root: &[(&str, Tag)]) -> (String, Accounting) {
    let root: Vec<(String, Tag)> = root.iter().map(|(k, t)| (k.to_string(), *t)).collect();
    let elide = crate::js::memo::is_measuring();
    // A body measured, not sent, leaves its long texts out: it is a fraction of the JSON's
    // length, which is then neither measured nor reserved.
    let mut out = if elide {
        String::new()
    } else {
        String::with_capacity(json::compact_len(params))
    };
    let mut w = Writer {
        out: &mut out,
        acc: Accounting::default(),
        counted_to: 0,
        digests: crate::js::memo::active(),
        elide,
        steps: Vec::new(),
        leaves: None,
        root: &root,
    };
    w.value(params, Scope::default());
    w.count_to(w.out.len(), 0);
    let mut acc = w.acc;
    acc.root = root;
    (out, acc)
}

/// Every leaf of the body with its path, tag and payload (the provenance of each value),
/// with the accounting they were read with.
pub fn leaves(params: &Value, root: &[(String, Tag)]) -> (Vec<Leaf>, Accounting) {
    let mut out = String::with_capacity(json::compact_len(params));
    let mut w = Writer {
        out: &mut out,
        acc: Accounting::default(),
        counted_to: 0,
        digests: false,
        elide: false,
        steps: Vec::new(),
        leaves: Some(Vec::new()),
        root,
    };
    w.value(params, Scope::default());
    w.count_to(w.out.len(), 0);
    (w.leaves.unwrap_or_default(), w.acc)
}

impl<'v> Writer<'v, '_> {
    fn parameter(&mut self, param: Param) -> u32 {
        let name = match param {
            Param::Key(k) => k.to_string(),
            Param::Member(a, b) => format!("{a}.{b}"),
        };
        match self.acc.parameters.iter().position(|p| *p == name) {
            Some(i) => i as u32,
            None => {
                self.acc.parameters.push(name);
                (self.acc.parameters.len() - 1) as u32
            }
        }
    }

    /// Adds to the body's length what is written from where it was last counted to `to`
    /// (read), and then `known` units written after `to` (not read); counted up to the end.
    fn count_to(&mut self, to: usize, known: usize) {
        self.acc.body_chars += utf16_len(&self.out[self.counted_to..to]) + known;
        self.counted_to = self.out.len();
    }

    /// A whole value written from `start`: it counts the UTF-16 length of its JSON.
    fn span(&mut self, start: usize, payload: Payload) {
        let chars = utf16_len(&self.out[start..]);
        self.count_to(start, chars);
        if self.digests {
            let d = crate::js::memo::digest(&self.out.as_bytes()[start..]);
            self.acc.digests.push(d);
        }
        self.push_span(start, chars, false, payload);
    }

    /// A string written from `start`: it counts its text's UTF-16 length (not its JSON's).
    fn text_span(&mut self, start: usize, x: &Value, payload: Payload) {
        let (chars, json_chars, digest) = match x {
            Value::String(s) => match crate::js::memo::facts(s) {
                Some(f) => (f.utf16, f.json_utf16, f.digest),
                None => {
                    let chars = utf16_len(s);
                    let json_chars = if s.is_plain() {
                        chars + 2
                    } else {
                        utf16_len(&self.out[start..])
                    };
                    let digest = match self.digests {
                        true => crate::js::memo::digest(s.as_bytes()),
                        false => 0,
                    };
                    (chars, json_chars, digest)
                }
            },
            _ => {
                let written = &self.out.as_bytes()[start..];
                let digest = match self.digests {
                    true => crate::js::memo::digest(written),
                    false => 0,
                };
                (0, utf16_len(&self.out[start..]), digest)
            }
        };
        self.count_to(start, json_chars);
        if self.digests {
            self.acc.digests.push(digest);
        }
        self.push_span(start, chars, true, payload);
    }

    fn push_span(&mut self, start: usize, chars: usize, text: bool, payload: Payload) {
        let end = self.out.len();
        self.acc.spans.push(Span {
            start,
            end,
            chars,
            text,
            payload,
        });
    }

    fn leaf(&mut self, v: &Value, scope: Scope<'v>, payload: Option<Payload>) {
        if let Some(leaves) = &mut self.leaves {
            leaves.push(Leaf {
                path: path_of(&self.steps),
                tag: scope.tag,
                wire: scope.wire,
                tool: scope.tool,
                payload,
                chars: v.as_str().map_or(0, utf16_len),
            });
        }
    }

    fn payload(&self, c: Counted, scope: Scope<'v>) -> Payload {
        match c {
            Counted::System => Payload::System(scope.system.unwrap_or(0)),
            Counted::ToolDescription => Payload::ToolDescription(scope.tool.unwrap_or(u32::MAX)),
            Counted::History(kind) => Payload::History {
                kind,
                llm: scope.llm,
                inserted: scope.inserted,
                wire: scope.wire,
            },
        }
    }

    /// A value counted whole (a schema, an arguments object, a parameter's value).
    fn whole(&mut self, v: &'v Value, scope: Scope<'v>, payload: Payload) {
        let start = self.out.len();
        if self.leaves.is_some() {
            self.structure(v, scope, Some(payload));
        } else {
            json::write_compact(v, self.out);
        }
        self.span(start, payload);
    }

    fn value(&mut self, v: &'v Value, scope: Scope<'v>) {
        match v {
            Value::Object(o) => self.object(o, scope),
            Value::Array(a) => self.items(a, |w, x| w.value(x, scope)),
            _ => self.scalar(v, scope),
        }
    }

    /// A leaf outside any counted member: a parameter's value outside tags, structure inside.
    fn scalar(&mut self, v: &'v Value, scope: Scope<'v>) {
        match scope.parameter {
            Some(p) => {
                let p = self.parameter(p);
                let start = self.out.len();
                json::write_compact(v, self.out);
                self.span(start, Payload::Parameter(p));
                self.leaf(v, scope, Some(Payload::Parameter(p)));
            }
            _ => {
                json::write_compact(v, self.out);
                self.leaf(v, scope, None);
            }
        }
    }

    /// Writes a value inside a whole counted one, recording its leaves only.
    fn structure(&mut self, v: &'v Value, scope: Scope<'v>, payload: Option<Payload>) {
        match v {
            Value::Object(o) => self.structure_object(o, scope, payload),
            Value::Array(a) => self.items(a, |w, x| w.structure(x, scope, payload)),
            _ => {
                json::write_compact(v, self.out);
                self.leaf(v, scope, payload);
            }
        }
    }

    /// Writes `[…]`, each item by `value`.
    fn items(&mut self, a: &'v [Value], mut value: impl FnMut(&mut Self, &'v Value)) {
        self.out.push('[');
        for (i, x) in a.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.steps.push(Step::Index(i));
            value(self, x);
            self.steps.pop();
        }
        self.out.push(']');
    }

    /// Writes `{…}` with each member's key, and its value by `value`.
    fn members(&mut self, o: &'v Object, mut value: impl FnMut(&mut Self, &'v str, &'v Value)) {
        self.out.push('{');
        for (i, (k, x)) in o.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            json::write_str(k, self.out);
            self.out.push(':');
            self.steps.push(Step::Key(k));
            value(self, k, x);
            self.steps.pop();
        }
        self.out.push('}');
    }

    fn structure_object(&mut self, o: &'v Object, scope: Scope<'v>, payload: Option<Payload>) {
        self.members(o, |w, _, x| w.structure(x, scope, payload));
    }

    fn object(&mut self, o: &'v Object, outer: Scope<'v>) {
        let mut scope = outer;
        if let Some(tag) = Tag::of(o.mark()) {
            scope.tag = Some(tag);
            scope.parameter = None;
            match tag {
                Tag::Message { llm, .. } | Tag::Block { llm, .. } if llm != NO_MESSAGE => {
                    scope.llm = Some(llm);
                    scope.inserted = None;
                }
                // pi's text, in the wire message (and so of the LLM message) it stands in.
                Tag::Inserted { key, .. } => scope.inserted = Some(key),
                _ => {}
            }
            // A wire message: one an adapter wrote, or one pi inserted whole (outside any).
            let wire = match tag {
                Tag::Message { .. } => true,
                Tag::Inserted { .. } => scope.wire.is_none(),
                _ => false,
            };
            if wire {
                let call_id = ID_KEYS
                    .iter()
                    .find_map(|k| o.get_str(k))
                    .map(str::to_string);
                self.acc.wires.push(WireMessage {
                    path: path_of(&self.steps),
                    role: o.get_str("role").map(str::to_string),
                    call_id,
                });
                scope.wire = Some((self.acc.wires.len() - 1) as u32);
            }
            match tag {
                // A tool's wrapper and its definition may both be marked (`{type, function}`):
                // one tool, named by the definition's `name`.
                Tag::Tool if scope.tool.is_none() => {
                    let name = o
                        .get_str("name")
                        .or_else(|| o.iter().find_map(|(_, v)| v.get_str("name")))
                        .unwrap_or_default()
                        .to_string();
                    self.acc.tools.push(name);
                    scope.tool = Some((self.acc.tools.len() - 1) as u32);
                }
                Tag::System => {
                    scope.system = Some(self.acc.systems);
                    self.acc.systems += 1;
                }
                _ => {}
            }
            if tag == Tag::Schema {
                let i = scope.tool.unwrap_or(u32::MAX);
                let start = self.out.len();
                if self.leaves.is_some() {
                    self.structure_object(o, scope, Some(Payload::ToolSchema(i)));
                } else {
                    json::write_compact(&Value::Object(o.clone()), self.out);
                }
                self.span(start, Payload::ToolSchema(i));
                return;
            }
        }
        let own = o.mark();
        self.members(o, |w, k, x| w.member(own, k, x, scope));
    }

    /// Writes `""` for a long history text of a measured body, keeping the text beside it (the
    /// span about to be pushed stands for it); false when the text is to be written.
    fn elided(&mut self, x: &Value, p: Payload) -> bool {
        let (true, Payload::History { .. }, Value::String(s)) = (self.elide, p, x) else {
            return false;
        };
        let Some(f) = crate::js::memo::facts(s) else {
            return false;
        };
        self.out.push_str("\"\"");
        self.acc.elided_bytes += f.json_len - 2;
        self.acc
            .elided
            .push((self.acc.spans.len() as u32, s.clone()));
        true
    }

    /// Writes a counted member; false when it is not one.
    fn counted(&mut self, counted: Option<Member>, x: &'v Value, scope: Scope<'v>) -> bool {
        match counted {
            Some(Member::Text(c)) => {
                let p = self.payload(c, scope);
                let start = self.out.len();
                if !self.elided(x, p) {
                    json::write_compact(x, self.out);
                }
                self.text_span(start, x, p);
                self.leaf(x, scope, Some(p));
                true
            }
            Some(Member::Whole(c)) => {
                let p = self.payload(c, scope);
                self.whole(x, scope, p);
                true
            }
            None => false,
        }
    }

    fn member(&mut self, own: Mark, key: &'v str, x: &'v Value, scope: Scope<'v>) {
        // A member of the object marked itself: the table says what it is.
        let mut counted = Tag::of(own).and_then(|t| member(t, key, x));
        if counted.is_none() && scope.tag.is_none() && self.steps.len() == 1 {
            if let Some((_, tag)) = self.root.iter().find(|(k, _)| *k == key) {
                counted = member(*tag, "text", x);
                if *tag == Tag::System {
                    let mut s = scope;
                    s.system = Some(self.acc.systems);
                    self.acc.systems += 1;
                    self.counted(counted, x, s);
                    return;
                }
            }
        }
        if self.counted(counted, x, scope) {
            return;
        }
        let mut inner = scope;
        if scope.tag.is_none() && self.steps.len() == 1 {
            // A top-level member outside any tag: a parameter.
            inner.parameter = Some(Param::Key(key));
        } else if scope.tag.is_none() && self.steps.len() == 2 && inner.parameter.is_some() {
            if let Step::Key(top) = self.steps[0] {
                if CONTAINERS.contains(&top) {
                    inner.parameter = Some(Param::Member(top, key));
                }
            }
        }
        if is_cache_key(key) && !matches!(x, Value::Array(_)) {
            inner.parameter = Some(Param::Key(key));
        }
        self.value(x, inner);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(json: &str) -> Value {
        crate::js::parse(json).unwrap()
    }

    #[test]
    fn tags_round_trip_through_marks() {
        for t in [
            Tag::Tool,
            Tag::Schema,
            Tag::System,
            Tag::Message {
                llm: NO_MESSAGE,
                kind: Kind::UserText,
            },
            Tag::Block {
                llm: 41,
                kind: Kind::ToolArguments,
            },
            Tag::Inserted {
                key: 9,
                kind: Kind::ToolResults,
            },
        ] {
            assert_eq!(Tag::of(t.mark()), Some(t));
        }
        assert_eq!(Tag::of(Mark::NONE), None);
    }

    #[test]
    fn writes_the_same_bytes_as_stringify_and_counts_what_the_tags_say() {
        let mut tool = obj(
            r#"{"name":"read","description":"Reads \"a\" file","input_schema":{"type":"object","properties":{"path":{"type":"string"}}}}"#,
        );
        if let Value::Object(o) = &mut tool {
            let mut schema = o.get("input_schema").cloned().unwrap();
            mark(&mut schema, Tag::Schema);
            o.insert("input_schema", schema);
            o.set_mark(Tag::Tool.mark());
        }
        let text = marked(
            obj(r#"{"type":"text","text":"hé\nllo"}"#),
            Tag::Block {
                llm: 0,
                kind: Kind::UserText,
            },
        );
        let mut msg = Object::new();
        msg.insert("role", Value::str("user"));
        msg.insert("content", Value::Array(vec![text]));
        let msg = Value::Object(
            msg.marked(
                Tag::Message {
                    llm: 0,
                    kind: Kind::UserText,
                }
                .mark(),
            ),
        );
        let mut params = Object::new();
        params.insert("model", Value::str("m"));
        params.insert("messages", Value::Array(vec![msg]));
        params.insert("tools", Value::Array(vec![tool]));
        params.insert("max_tokens", Value::Number(64000.0));
        let params = Value::Object(params);
        let (body, acc) = written(&params);
        assert_eq!(body, params.to_json());
        let of = |p: fn(&Payload) -> bool| -> usize {
            acc.spans
                .iter()
                .filter(|s| p(&s.payload))
                .map(|s| s.chars)
                .sum()
        };
        assert_eq!(of(|p| matches!(p, Payload::ToolDescription(0))), 14);
        let schema = r#"{"type":"object","properties":{"path":{"type":"string"}}}"#;
        assert_eq!(of(|p| matches!(p, Payload::ToolSchema(0))), schema.len());
        assert_eq!(
            of(|p| matches!(
                p,
                Payload::History {
                    kind: Kind::UserText,
                    llm: Some(0),
                    wire: Some(0),
                    ..
                }
            )),
            6
        );
        assert_eq!(acc.parameters, ["model", "max_tokens"]);
        assert_eq!(of(|p| matches!(p, Payload::Parameter(0))), 3);
        assert_eq!(of(|p| matches!(p, Payload::Parameter(1))), 5);
        assert_eq!(acc.wires[0].path, "messages.0");
        assert_eq!(acc.wires[0].role.as_deref(), Some("user"));
        // The spans point at their bytes.
        for s in &acc.spans {
            if s.text {
                let t = crate::js::parse(&body[s.start..s.end]).unwrap();
                assert_eq!(utf16_len(t.as_str().unwrap()), s.chars);
            } else {
                assert_eq!(utf16_len(&body[s.start..s.end]), s.chars);
            }
        }
        assert_eq!(acc.body_chars, utf16_len(&body));
        assert!(acc.digests.is_empty(), "no digests unless remembering");
        let (leaves, _) = leaves(&params, &[]);
        let paths: Vec<&str> = leaves.iter().map(|l| l.path.as_str()).collect();
        assert!(paths.contains(&"messages.0.content.0.text"));
        assert!(paths.contains(&"tools.0.input_schema.properties.path.type"));
    }

    /// A body of long texts (plain, escaped, astral, a lone surrogate) in user messages and a
    /// long parameter.
    fn long_texts_body() -> Value {
        let texts = [
            "plain text ".repeat(40),
            r#"a line\nand \"quotes\"\t"#.repeat(30),
            "é😀 ".repeat(100),
            r"\ud800 lone ".repeat(40),
        ];
        let messages: Vec<Value> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let block = marked(
                    obj(&format!(r#"{{"type":"text","text":"{t}"}}"#)),
                    Tag::Block {
                        llm: i as u32,
                        kind: Kind::UserText,
                    },
                );
                let mut msg = Object::new();
                msg.insert("role", Value::str("user"));
                msg.insert("content", Value::Array(vec![block]));
                let tag = Tag::Message {
                    llm: i as u32,
                    kind: Kind::UserText,
                };
                Value::Object(msg.marked(tag.mark()))
            })
            .collect();
        let mut params = Object::new();
        params.insert("model", Value::str("m"));
        params.insert("messages", Value::Array(messages));
        params.insert("stop", obj(&format!(r#""{}""#, texts[1])));
        Value::Object(params)
    }

    #[test]
    fn the_body_length_and_digests_equal_a_count_over_the_body_when_facts_are_remembered() {
        let params = long_texts_body();
        let (plain_body, plain) = written(&params);
        assert_eq!(plain_body, params.to_json());
        assert_eq!(plain.body_chars, utf16_len(&plain_body));
        {
            let _memo = crate::js::memo::remember();
            // Written twice: the second time the texts' facts are read from the memo.
            for round in 0..2 {
                let (body, acc) = written(&params);
                assert_eq!(body, plain_body, "round {round}");
                assert_eq!(acc.spans, plain.spans, "round {round}");
                assert_eq!(acc.body_chars, utf16_len(&body), "round {round}");
                assert_eq!(acc.digests.len(), acc.spans.len());
                for (s, d) in acc.spans.iter().zip(&acc.digests) {
                    let raw = &body[s.start..s.end];
                    let own = match s.text {
                        true => crate::js::parse(raw).unwrap().as_str().unwrap().to_string(),
                        false => raw.to_string(),
                    };
                    assert_eq!(*d, crate::js::memo::digest(own.as_bytes()), "{raw}");
                }
            }
            assert!(crate::js::memo::remembered() >= 4);
        }
    }

    #[test]
    fn a_measured_body_is_the_sent_body_with_its_long_history_texts_left_out() {
        let params = long_texts_body();
        let (sent_body, sent) = written(&params);
        let _memo = crate::js::memo::remember();
        let (sent_body_again, remembered) = written(&params);
        assert_eq!(sent_body_again, sent_body);
        assert!(remembered.elided.is_empty(), "only while measuring");
        let (body, acc) = {
            let _measured = crate::js::memo::measuring();
            written(&params)
        };
        assert!(!crate::js::memo::is_measuring(), "the guard ends it");
        // The four user texts are left out; the long parameter (not history) is written.
        assert_eq!(acc.elided.len(), 4);
        assert!(acc.is_measured());
        assert_eq!(body.len() + acc.elided_bytes, sent_body.len());
        assert_eq!(acc.body_chars, sent.body_chars);
        assert_eq!(acc.digests, remembered.digests);
        assert_eq!(acc.wires, sent.wires);
        // Each span counts what the sent body's does; putting each left-out text's JSON back
        // in its place gives the sent body byte for byte.
        let mut rebuilt = String::new();
        let mut from = 0;
        for (i, (s, sent_span)) in acc.spans.iter().zip(&sent.spans).enumerate() {
            assert_eq!(
                (s.chars, s.text, s.payload),
                (sent_span.chars, sent_span.text, sent_span.payload)
            );
            match acc.elided_text(i) {
                Some(text) => {
                    assert_eq!(&body[s.start..s.end], "\"\"");
                    assert!(matches!(s.payload, Payload::History { .. }));
                    rebuilt.push_str(&body[from..s.start]);
                    json::write_compact(&Value::String(text.clone()), &mut rebuilt);
                    from = s.end;
                }
                None => assert_eq!(
                    &body[s.start..s.end],
                    &sent_body[sent_span.start..sent_span.end]
                ),
            }
        }
        rebuilt.push_str(&body[from..]);
        assert_eq!(rebuilt, sent_body);
    }
}

//! The seed article's accounting: how the request's characters split between the system prompt,
//! the tool definitions and the history. Lengths are UTF-16 code units (JS `.length`).
//!
//! Counted on the body as sent (after the adapter: what it adds, drops or rewrites), each leaf
//! in the block [`provenance`] maps it to: a text payload counts its text (the seed's measure),
//! a tool its description and its parameters' schema as the body writes it, a tool call its
//! arguments (`JSON.stringify(arguments)`, or the arguments object as written); parameter values
//! are `parameters`, and everything else (punctuation, keys, quotes and escapes, roles, ids) is
//! `structure`, so that the parts add up to the body.

use std::collections::HashMap;

use crate::analysis::provenance::{self, Match, Origin, Source};
use crate::assemble::Assembly;
use crate::js::{utf16_len, Value};
use crate::tokens::{TokenCounter, TokenizerInfo};
use crate::tools::ToolDef;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct SectionStat {
    pub name: String,
    pub source: String,
    pub offset: usize,
    pub chars: usize,
    /// Its text's tokens (0 without a tokenizer).
    pub tokens: usize,
    /// 0.86 on: the stored system message that set it (`session line 3`, `this run`).
    pub stored: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolStat {
    pub name: String,
    /// Description + `JSON.stringify(parameters)`.
    pub chars: usize,
    pub description_chars: usize,
    pub parameters_chars: usize,
    /// The tokens of the description plus those of the parameters' JSON, each encoded on its
    /// own (0 without a tokenizer).
    pub tokens: usize,
    pub description_tokens: usize,
    pub parameters_tokens: usize,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct RoleStat {
    /// The role on the wire (`tool` results are `user` messages in anthropic-messages).
    pub role: String,
    pub count: usize,
    pub chars: usize,
    pub tokens: usize,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct KindStats {
    pub user_text: usize,
    pub assistant_text: usize,
    pub reasoning: usize,
    pub tool_arguments: usize,
    pub tool_results: usize,
    /// Images are counted; their data (base64, a data URL) is [`KindStats::image_data`].
    pub images: usize,
    /// Opaque replay strings: thinking and text signatures, encrypted reasoning.
    pub signatures: usize,
    /// The images' data as sent.
    pub image_data: usize,
}

/// One message on the wire (an element of the body's conversation array), with the LLM
/// messages it renders (none for a message pi inserted).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MessageStat {
    /// Its path in the body (`messages.3`, `contents.2`, `input.5`).
    pub path: String,
    pub role: String,
    /// Indices into `Parts.llm_messages`.
    pub messages: Vec<usize>,
    /// The session lines they came from.
    pub lines: Vec<u32>,
    pub chars: usize,
    pub tokens: usize,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolResultStat {
    pub name: String,
    pub count: usize,
    pub chars: usize,
    pub tokens: usize,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    pub system_prompt_chars: usize,
    pub sections: Vec<SectionStat>,
    pub tools_chars: usize,
    pub by_tool: Vec<ToolStat>,
    pub history_chars: usize,
    pub by_role: Vec<RoleStat>,
    pub by_kind: KindStats,
    pub tool_results_by_tool: Vec<ToolResultStat>,
    /// Each message of the body's conversation that carries history.
    pub by_message: Vec<MessageStat>,
    /// The values of the request's parameters (model, max tokens, stream, thinking, cache
    /// markers, ...), by parameter.
    pub parameters_chars: usize,
    pub by_parameter: Vec<(String, usize)>,
    /// Everything else: JSON punctuation, keys, quotes and escapes, roles, types, ids, tool
    /// names. `system + tools + history + parameters + structure = body_chars`.
    pub structure_chars: usize,
    /// The body's size in bytes (UTF-8) and in UTF-16 units.
    pub body_bytes: usize,
    pub body_chars: usize,
    /// The release's token estimate: characters per token (`estimateCharsPerToken`, 4 in
    /// 0.85.1, 3.5 from 0.86).
    pub chars_per_token: f64,
    /// The vocabulary the `tokens` fields were counted with; `None`: no counts (they are 0).
    pub tokenizer: Option<TokenizerInfo>,
    /// Tokens of the blocks' texts, each text encoded on its own: what the texts cost without
    /// the chat template's framing (which no public tokenizer knows). Image data and opaque
    /// signatures are not counted (providers do not read them as text).
    pub system_prompt_tokens: usize,
    pub tools_tokens: usize,
    pub history_tokens: usize,
    /// Per history kind, as [`Stats::by_kind`] (`images` stays the count of images).
    pub by_kind_tokens: KindStats,
}

impl Stats {
    pub fn total_chars(&self) -> usize {
        self.system_prompt_chars + self.tools_chars + self.history_chars
    }

    /// System prompt + tools + history in tokens (0 without a tokenizer).
    pub fn total_tokens(&self) -> usize {
        self.system_prompt_tokens + self.tools_tokens + self.history_tokens
    }

    /// `chars` as tokens by the release's estimate (`ceil(chars / charsPerToken)`).
    pub fn tokens(&self, chars: usize) -> usize {
        if self.chars_per_token.is_nan() || self.chars_per_token <= 0.0 {
            return 0;
        }
        (chars as f64 / self.chars_per_token).ceil() as usize
    }

    /// Shares of (system prompt, tools, history) in the total, 0..1.
    pub fn shares(&self) -> (f64, f64, f64) {
        let t = self.total_chars().max(1) as f64;
        (
            self.system_prompt_chars as f64 / t,
            self.tools_chars as f64 / t,
            self.history_chars as f64 / t,
        )
    }
}

/// The size of one tool as the seed measures it.
pub fn tool_stat(tool: &ToolDef) -> ToolStat {
    let description_chars = utf16_len(&tool.description);
    let parameters_chars = utf16_len(&tool.parameters.to_json());
    ToolStat {
        name: tool.name.clone(),
        chars: description_chars + parameters_chars,
        description_chars,
        parameters_chars,
        ..Default::default()
    }
}

/// One counted part of the body.
#[derive(Clone, Debug, PartialEq)]
enum Part {
    System,
    ToolDescription(String),
    ToolParameters(String),
    /// A history kind, with the wire message (its body path) and the LLM message it renders.
    History {
        kind: Kind,
        wire: Option<String>,
        llm: Option<usize>,
    },
    Parameter(String),
    Structure,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    UserText,
    AssistantText,
    Reasoning,
    ToolArguments,
    ToolResults,
    Signatures,
    ImageData,
}

/// What a container's leaves all are, bottom-up: the schema of one tool, or a tool call's
/// arguments in one message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Whole {
    /// No leaf yet (an empty container).
    Empty,
    Schema(usize),
    /// `(message, has an arguments string)`.
    Args(usize, bool),
    /// Only structure of message `i` (numbers, booleans, keys inside a call).
    MsgStructure(usize),
    /// Parameters only.
    Params,
    Mixed,
}

fn merge(a: Whole, b: Whole) -> Whole {
    use Whole::*;
    match (a, b) {
        (Empty, x) | (x, Empty) => x,
        (Schema(i), Schema(j)) if i == j => Schema(i),
        (Args(i, x), Args(j, y)) if i == j => Args(i, x || y),
        (Args(i, x), MsgStructure(j)) | (MsgStructure(j), Args(i, x)) if i == j => Args(i, x),
        (MsgStructure(i), MsgStructure(j)) if i == j => MsgStructure(i),
        (Params, Params) => Params,
        _ => Mixed,
    }
}

/// The wire context of a node: the nearest `role`, whether a tool result encloses it, the
/// nearest call id.
#[derive(Clone, Default)]
struct Wire<'a> {
    role: Option<&'a str>,
    tool_result: bool,
    /// Inside a tool call's arguments object.
    in_args: bool,
    /// The `name` of the object a node is directly in.
    obj_name: Option<&'a str>,
    /// Inside a reasoning block (`thought: true`, a `reasoning` item, `reasoningContent`, a
    /// `thinking` chunk).
    thought: bool,
    call_id: Option<&'a str>,
}

#[cfg(test)]
thread_local! {
    /// Tests: print each counted part with its path (`print_parts`).
    pub static DEBUG: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}
/// [`Whole::Schema`] of anthropic's deferred-tools placeholder (not one of pi's tools).
const PLACEHOLDER: usize = usize::MAX - 1;

/// A JSON schema (not another field of a tool, such as `constrainedSampling`): an object with
/// `properties` or of `type: "object"`, itself or one level down (`inputSchema.json`).
fn is_schema(v: &Value) -> bool {
    let here = |v: &Value| {
        v.as_object()
            .is_some_and(|o| o.contains_key("properties") || o.get_str("type") == Some("object"))
    };
    here(v)
        || v.as_object()
            .is_some_and(|o| o.iter().any(|(_, x)| here(x)))
}

/// How deep the walk recurses (a test thread's stack holds it in a debug build).
const MAX_DEPTH: usize = 48;

const ARG_KEYS: [&str; 3] = ["input", "args", "arguments"];
const ID_KEYS: [&str; 5] = ["tool_call_id", "tool_use_id", "call_id", "toolUseId", "id"];

struct Walk<'a> {
    origins: HashMap<&'a str, &'a Origin>,
    tools: &'a [ToolDef],
    parts: Vec<(Part, usize)>,
    /// When tokens are counted: the text of each counted part, by its index in `parts`.
    texts: Option<Vec<(usize, String)>>,
    images: usize,
    /// Per wire message: its role on the wire and the call id of a tool result.
    wire: Vec<(String, Wire<'a>)>,
    /// The name of anthropic's deferred-tools placeholder tool (`strings.json`).
    placeholder: String,
}

fn key_len(k: &str) -> usize {
    utf16_len(&Value::str(k).to_json()) + 1
}

/// The wire message a path is in: the path up to its first array index (`messages.3`,
/// `contents.2`, `context.messages.4`).
fn wire_of(path: &str) -> Option<&str> {
    let mut end = 0;
    for seg in path.split('.') {
        end += seg.len();
        if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
            return Some(&path[..end]);
        }
        end += 1;
    }
    None
}

/// `path.key` (`key` alone at the root), made in one allocation.
fn child_path(path: &str, key: &str) -> String {
    if path.is_empty() {
        return key.to_string();
    }
    let mut p = String::with_capacity(path.len() + 1 + key.len());
    p.push_str(path);
    p.push('.');
    p.push_str(key);
    p
}

/// An array index as text, without a heap allocation.
fn itoa(mut i: usize) -> Digits {
    let mut d = Digits([0; 20], 20);
    loop {
        d.1 -= 1;
        d.0[d.1] = b'0' + (i % 10) as u8;
        i /= 10;
        if i == 0 {
            return d;
        }
    }
}

struct Digits([u8; 20], usize);

impl Digits {
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0[self.1..]).expect("ASCII digits")
    }
}

impl<'a> Walk<'a> {
    /// The tool a schema leaf belongs to, by name (several definitions of one name count as
    /// that name).
    fn tool_index(&self, name: &str) -> usize {
        self.tools
            .iter()
            .position(|t| t.name == name)
            .unwrap_or(usize::MAX)
    }

    /// Records `text` as the text of the part just pushed, when tokens are counted. Image
    /// data and opaque signatures are not texts a provider reads.
    fn text(&mut self, text: &str) {
        let Some(texts) = &mut self.texts else {
            return;
        };
        let i = self.parts.len() - 1;
        if let Part::History {
            kind: Kind::ImageData | Kind::Signatures,
            ..
        } = self.parts[i].0
        {
            return;
        }
        texts.push((i, text.to_string()));
    }

    fn history(&self, kind: Kind, path: &str, llm: Option<usize>) -> Part {
        Part::History {
            kind,
            wire: wire_of(path).map(str::to_string),
            llm,
        }
    }

    /// The kind of a text pi inserted (no LLM message holds it), by its `strings.json` key and
    /// where it sits on the wire.
    fn inserted_kind(key: &str, w: &Wire<'a>) -> Kind {
        if key.ends_with("assistantAfterToolResult") {
            Kind::AssistantText
        } else if key.contains("redactedThinking") {
            Kind::Reasoning
        } else {
            Self::wire_kind(w)
        }
    }

    /// The kind of a text by where it sits on the wire.
    fn wire_kind(w: &Wire<'a>) -> Kind {
        if w.thought {
            Kind::Reasoning
        } else if w.tool_result {
            Kind::ToolResults
        } else if matches!(w.role, Some("assistant" | "model")) {
            Kind::AssistantText
        } else {
            Kind::UserText
        }
    }

    fn leaf(&mut self, v: &'a Value, path: &str, key: &str, w: &Wire<'a>) -> Whole {
        let before = self.parts.len();
        let r = self.leaf_(v, path, key, w);
        #[cfg(test)]
        if DEBUG.with(|d| d.get()) {
            for (p, n) in &self.parts[before..] {
                println!("{path}\t{p:?}\t{n}");
            }
        }
        let _ = before;
        r
    }
    fn leaf_(&mut self, v: &'a Value, path: &str, key: &str, w: &Wire<'a>) -> Whole {
        let units = utf16_len(&v.to_json());
        let origin = self.origins.get(path).copied();
        let text = v.as_str().map(utf16_len);
        let Some(o) = origin else {
            self.parts.push((Part::Structure, units));
            return Whole::Mixed;
        };
        let count = |me: &mut Self, part: Part, chars: usize| {
            me.parts.push((part, chars));
            me.text(v.as_str().unwrap_or_default());
            if units > chars {
                me.parts.push((Part::Structure, units - chars));
            }
        };
        match (&o.source, text) {
            (Source::Parameter { name, .. }, _) => {
                self.parts.push((Part::Parameter(name.clone()), units));
                Whole::Params
            }
            (Source::SystemPrompt { sections }, Some(n))
                if !sections.is_empty() || o.matched != Match::Structure =>
            {
                count(self, Part::System, n);
                Whole::Mixed
            }
            (
                Source::Tool {
                    name,
                    part: "description",
                    ..
                },
                Some(n),
            ) => {
                count(self, Part::ToolDescription(name.clone()), n);
                Whole::Mixed
            }
            // A tool's own description that differs from pi's definition of it (the adapter
            // sent another tool's under that name): still the tool's description.
            (
                Source::Tool {
                    name,
                    part: "schema",
                    ..
                },
                Some(n),
            ) if key == "description"
                && w.obj_name.is_some_and(|o| o.eq_ignore_ascii_case(name)) =>
            {
                count(self, Part::ToolDescription(name.clone()), n);
                Whole::Mixed
            }
            (
                Source::Tool {
                    name,
                    part: "schema",
                    ..
                },
                _,
            ) => {
                self.parts.push((Part::Structure, units));
                Whole::Schema(self.tool_index(name))
            }
            (Source::Message(m), Some(n)) => {
                let in_args = w.in_args || ARG_KEYS.contains(&key);
                let on_wire = w.role.is_some() || w.tool_result;
                let text_key = matches!(key, "text" | "content" | "output");
                let kind = match (m.part, m.role.as_str()) {
                    // An arguments text outside any call's arguments (a result or a message
                    // with the same text): what it is on the wire.
                    ("tool-arguments", _) if !in_args => Some(Self::wire_kind(w)),
                    ("tool-arguments", _) => Some(Kind::ToolArguments),
                    // Thinking the adapter sends as text (another model's, or by its compat).
                    ("thinking", _) if text_key && !w.thought => Some(Self::wire_kind(w)),
                    ("thinking", _) => Some(Kind::Reasoning),
                    // An item id made from a text's signature is an id.
                    ("signature", _) if key == "id" => None,
                    ("signature", _) => Some(Kind::Signatures),
                    ("image", _) => Some(Kind::ImageData),
                    // A text is what its place on the wire makes it (a tool result's text sent
                    // as a user block is user text).
                    ("tool-result" | "text", _) if on_wire => Some(Self::wire_kind(w)),
                    ("tool-result", _) | ("text", "toolResult") => Some(Kind::ToolResults),
                    ("text", "assistant") => Some(Kind::AssistantText),
                    ("text", _) => Some(Kind::UserText),
                    // An opaque replay field, or a call's arguments string, not matched whole.
                    _ if o.matched == Match::Structure
                        && (matches!(
                            key,
                            "encrypted_content" | "signature" | "thoughtSignature"
                        ) || key == "data" && w.thought) =>
                    {
                        Some(Kind::Signatures)
                    }
                    _ if o.matched == Match::Structure && key == "arguments" && on_wire => {
                        Some(Kind::ToolArguments)
                    }
                    // Not matched to one text (a container of several messages): a text field
                    // on the wire is still what the conversation carries.
                    _ if text_key && on_wire && o.matched == Match::Structure => {
                        Some(Self::wire_kind(w))
                    }
                    _ => None,
                };
                let system_role = matches!(w.role, Some("system" | "developer"));
                if system_role && kind.is_some() && kind != Some(Kind::ImageData) {
                    count(self, Part::System, n);
                    return Whole::Mixed;
                }
                match kind {
                    Some(k) => {
                        if k == Kind::ImageData {
                            self.images += 1;
                        }
                        let p = self.history(k, path, Some(m.index));
                        count(self, p, n);
                        // The arguments as one string (`JSON.stringify(arguments)`) are
                        // counted here; a string inside an arguments object, with the object.
                        if k == Kind::ToolArguments && !ARG_KEYS.contains(&key) {
                            Whole::Args(m.index, true)
                        } else if k == Kind::ToolArguments {
                            Whole::MsgStructure(m.index)
                        } else {
                            Whole::Mixed
                        }
                    }
                    None => {
                        self.parts.push((Part::Structure, units));
                        Whole::MsgStructure(m.index)
                    }
                }
            }
            (Source::Messages(_), Some(n))
                if matches!(key, "text" | "content" | "output")
                    && (w.role.is_some() || w.tool_result) =>
            {
                let p = self.history(Self::wire_kind(w), path, None);
                count(self, p, n);
                Whole::Mixed
            }
            (Source::Inserted { key, .. }, _)
                if o.matched == Match::Structure && key.contains("deferredToolPlaceholder") =>
            {
                self.parts.push((Part::Structure, units));
                Whole::Schema(PLACEHOLDER)
            }
            (Source::Message(m), None) => {
                self.parts.push((Part::Structure, units));
                Whole::MsgStructure(m.index)
            }
            (Source::Inserted { key, .. }, Some(n)) if o.matched != Match::Structure => {
                let p = if key.ends_with("SystemPrompt") {
                    Part::System
                } else if key.ends_with("deferredToolPlaceholder.description") {
                    Part::ToolDescription(self.placeholder.clone())
                } else if key.contains("deferredToolPlaceholder") {
                    Part::Structure
                } else if matches!(w.role, Some("system" | "developer")) {
                    Part::System
                } else if w.role.is_some() || w.tool_result {
                    self.history(Self::inserted_kind(key, w), path, None)
                } else {
                    // Outside the conversation: a parameter's value pi inserts.
                    Part::Parameter(path.split('.').next().unwrap_or(path).to_string())
                };
                count(self, p, n);
                Whole::Mixed
            }
            _ => {
                self.parts.push((Part::Structure, units));
                Whole::Mixed
            }
        }
    }

    fn node(&mut self, v: &'a Value, path: &str, key: &str, depth: usize, w: &Wire<'a>) -> Whole {
        // Deeper than pi's own bodies go (a deeply nested argument): counted whole, without
        // recursing further.
        if depth > MAX_DEPTH && matches!(v, Value::Object(_) | Value::Array(_) | Value::Deep(_)) {
            let n = utf16_len(&v.to_json());
            let part = if w.in_args {
                self.history(Kind::ToolArguments, path, None)
            } else {
                Part::Structure
            };
            let counted = part != Part::Structure;
            self.parts.push((part, n));
            if counted {
                self.text(&v.to_json());
            }
            return Whole::Mixed;
        }
        match v {
            Value::Object(o) => {
                let mut w = w.clone();
                if let Some(r) = o.get_str("role") {
                    w.role = Some(r);
                    w.tool_result = matches!(r, "tool" | "toolResult" | "function");
                }
                if o.get_str("type").is_some_and(|t| {
                    matches!(t, "tool_result" | "function_call_output" | "toolResult")
                }) || o.contains_key("functionResponse")
                    || o.contains_key("toolResult")
                    || o.contains_key("tool_call_id")
                    || key == "functionResponse"
                    || key == "toolResult"
                {
                    w.tool_result = true;
                }
                if ARG_KEYS.contains(&key) {
                    w.in_args = true;
                }
                w.obj_name = o.get_str("name");
                if o.get("thought").is_some_and(Value::truthy)
                    || o.get_str("type").is_some_and(|t| {
                        matches!(
                            t,
                            "reasoning" | "summary_text" | "reasoning_text" | "thinking"
                        ) || t.starts_with("reasoning.")
                    })
                    || key == "reasoningContent"
                {
                    w.thought = true;
                }
                if let Some(id) = ID_KEYS.iter().find_map(|k| o.get_str(k)) {
                    w.call_id = Some(id);
                }
                if wire_of(path).is_some_and(|p| p == path) {
                    self.wire.push((path.to_string(), w.clone()));
                }
                let mark = self.parts.len();
                let n = o.len();
                self.parts.push((Part::Structure, 2 + n.saturating_sub(1)));
                let mut whole = Whole::Empty;
                for (k, x) in o.iter() {
                    let k: &str = k;
                    self.parts.push((Part::Structure, key_len(k)));
                    let p = child_path(path, k);
                    let c = self.node(x, &p, k, depth + 1, &w);
                    whole = merge(whole, c);
                }
                self.close(v, path, key, depth, mark, whole)
            }
            Value::Array(a) => {
                let mark = self.parts.len();
                self.parts
                    .push((Part::Structure, 2 + a.len().saturating_sub(1)));
                let mut whole = Whole::Empty;
                for (i, x) in a.iter().enumerate() {
                    let p = child_path(path, itoa(i).as_str());
                    let c = self.node(x, &p, "", depth + 1, w);
                    whole = merge(whole, c);
                }
                self.close(v, path, key, depth, mark, whole)
            }
            _ => self.leaf(v, path, key, w),
        }
    }

    /// A container done: counted whole when it is a tool's parameters, a call's arguments or a
    /// top-level parameter.
    fn close(
        &mut self,
        v: &Value,
        path: &str,
        key: &str,
        depth: usize,
        mark: usize,
        whole: Whole,
    ) -> Whole {
        let total = |me: &Self| me.parts[mark..].iter().map(|(_, n)| n).sum::<usize>();
        let replace = |me: &mut Self, part: Part| {
            let n = total(me);
            me.parts.truncate(mark);
            if let Some(t) = &mut me.texts {
                t.retain(|(i, _)| *i < mark);
            }
            #[cfg(test)]
            if DEBUG.with(|d| d.get()) {
                println!("{path}\tWHOLE {part:?}\t{n}");
            }
            // A tool's parameters or a call's arguments: their JSON is the one text.
            me.parts.push((part, n));
            me.text(&v.to_json());
        };
        if depth <= 1 {
            return Whole::Mixed;
        }
        let args_key = ARG_KEYS.contains(&key);
        match whole {
            Whole::Schema(i) if is_schema(v) && (i < self.tools.len() || i == PLACEHOLDER) => {
                let name = match self.tools.get(i) {
                    Some(t) => t.name.clone(),
                    None => self.placeholder.clone(),
                };
                replace(self, Part::ToolParameters(name));
                Whole::Schema(i)
            }
            Whole::Args(i, _) | Whole::MsgStructure(i) if args_key => {
                let p = self.history(Kind::ToolArguments, path, Some(i));
                replace(self, p);
                Whole::MsgStructure(i)
            }
            Whole::Empty if args_key && matches!(v, Value::Object(_)) => {
                let p = self.history(Kind::ToolArguments, path, None);
                replace(self, p);
                Whole::Empty
            }
            Whole::Params => Whole::Params,
            w => w,
        }
    }
}

/// Computes the statistics of one assembly from the body it sends: every string and every
/// punctuation mark of the body is counted once, in the block provenance maps it to
/// ([`crate::analysis::provenance`]), so the parts add up to the body's length.
pub fn compute(a: &Assembly) -> Option<Stats> {
    compute_(a, None).ok().flatten()
}

/// [`compute`], with each block's `tokens` counted by `counter` (each text encoded on its own:
/// a section's text, a tool's description and the JSON of its parameters, each history text,
/// a call's arguments). The error is the counter's.
pub fn compute_with_tokens(
    a: &Assembly,
    counter: &mut dyn TokenCounter,
) -> Result<Option<Stats>, String> {
    compute_(a, Some(counter))
}

fn compute_(a: &Assembly, counter: Option<&mut dyn TokenCounter>) -> Result<Option<Stats>, String> {
    let Some(s) = walk_and_sum(a, counter)? else {
        return Ok(None);
    };
    Ok(Some(s))
}

fn walk_and_sum(
    a: &Assembly,
    counter: Option<&mut dyn TokenCounter>,
) -> Result<Option<Stats>, String> {
    let (Some(request), Some(pi)) = (a.request.as_ref(), a.pi.as_ref()) else {
        return Ok(None);
    };
    let origins = a.provenance();
    let tools = provenance::sent_tools(a);
    let prompt = &a.parts.system_prompt;
    let api = a
        .parts
        .model_choice
        .model
        .as_ref()
        .map(|m| m.api())
        .unwrap_or("");
    let mut s = Stats {
        sections: prompt
            .sections
            .iter()
            .map(|sec| SectionStat {
                name: sec.name.clone(),
                source: sec.source.clone(),
                offset: sec.start,
                // The system prompt as sent (0.86 on: `Parts::sent_system`, read from the body).
                chars: sec.end - sec.start,
                stored: sec.stored.as_ref().map(crate::prompt::Stored::label),
                tokens: 0,
            })
            .collect(),
        body_bytes: request.body.len(),
        body_chars: utf16_len(&request.body),
        chars_per_token: pi.data.default_number("estimateCharsPerToken"),
        ..Default::default()
    };
    let Some(body) = a.body_value() else {
        // Not JSON (never from pi's adapters): all of it is structure.
        s.structure_chars = s.body_chars;
        return Ok(Some(s));
    };
    let mut w = Walk {
        origins: origins.iter().map(|o| (o.path.as_str(), o)).collect(),
        tools,
        parts: Vec::new(),
        texts: counter.is_some().then(Vec::new),
        images: 0,
        wire: Vec::new(),
        placeholder: pi
            .data
            .inserted_strings()
            .iter()
            .find(|(k, _)| k.ends_with("deferredToolPlaceholder.name"))
            .map_or_else(String::new, |(_, v)| v.to_string()),
    };
    w.node(body, "", "", 0, &Wire::default());
    // Tokens: every counted text, and each section's text, counted in one call.
    let mut tokens = vec![0usize; w.parts.len()];
    if let (Some(counter), Some(texts)) = (counter, &w.texts) {
        let sections: Vec<String> = s
            .sections
            .iter()
            .map(|x| crate::js::js_slice(&prompt.text, x.offset, Some(x.offset + x.chars)))
            .collect();
        let all: Vec<&str> = texts
            .iter()
            .map(|(_, t)| t.as_str())
            .chain(sections.iter().map(String::as_str))
            .collect();
        let counts = counter.count(&all)?;
        if counts.len() != all.len() {
            return Err(format!(
                "the tokenizer gave {} counts for {} texts",
                counts.len(),
                all.len()
            ));
        }
        for ((i, _), n) in texts.iter().zip(&counts) {
            tokens[*i] += n;
        }
        for (x, n) in s.sections.iter_mut().zip(&counts[texts.len()..]) {
            x.tokens = *n;
        }
        s.tokenizer = Some(counter.info());
    }

    let llm = &a.parts.llm_messages;
    let map = provenance::llm_to_agent_indices(a);
    let call_names: std::collections::BTreeMap<&str, &str> = llm
        .iter()
        .filter_map(|m| m.get("content").and_then(Value::as_array))
        .flatten()
        .filter(|b| b.get_str("type") == Some("toolCall"))
        .filter_map(|b| Some((b.get_str("id")?, b.get_str("name")?)))
        .collect();
    let wires: HashMap<&str, &Wire> = w.wire.iter().map(|(p, x)| (p.as_str(), x)).collect();
    let mut kinds = KindStats {
        images: w.images,
        ..Default::default()
    };
    let mut kind_tokens = KindStats {
        images: w.images,
        ..Default::default()
    };
    let mut by_message: Vec<MessageStat> = Vec::new();
    let mut by_result_tool: Vec<ToolResultStat> = Vec::new();
    let mut message_rows: HashMap<String, usize> = HashMap::new();
    let mut result_seen: std::collections::HashSet<(Option<String>, Option<usize>, String)> =
        std::collections::HashSet::new();
    for (i, (part, n)) in w.parts.iter().enumerate() {
        let t = tokens[i];
        match part {
            Part::System => {
                s.system_prompt_chars += n;
                s.system_prompt_tokens += t;
            }
            Part::ToolDescription(name) | Part::ToolParameters(name) => {
                let t = match s.by_tool.iter_mut().position(|t| &t.name == name) {
                    Some(i) => &mut s.by_tool[i],
                    None => {
                        s.by_tool.push(ToolStat {
                            name: name.clone(),
                            ..Default::default()
                        });
                        s.by_tool.last_mut().expect("just pushed")
                    }
                };
                let tokens = tokens[i];
                t.chars += n;
                t.tokens += tokens;
                if matches!(part, Part::ToolDescription(_)) {
                    t.description_chars += n;
                    t.description_tokens += tokens;
                } else {
                    t.parameters_chars += n;
                    t.parameters_tokens += tokens;
                }
                s.tools_chars += n;
                s.tools_tokens += tokens;
            }
            Part::Parameter(name) => {
                s.parameters_chars += n;
                match s.by_parameter.iter_mut().find(|p| &p.0 == name) {
                    Some(p) => p.1 += n,
                    None => s.by_parameter.push((name.clone(), *n)),
                }
            }
            Part::Structure => s.structure_chars += n,
            Part::History {
                kind,
                wire,
                llm: index,
            } => {
                s.history_chars += n;
                s.history_tokens += t;
                *kinds.slot(*kind) += n;
                *kind_tokens.slot(*kind) += t;
                let wire_role = wire
                    .as_deref()
                    .and_then(|p| wires.get(p))
                    .and_then(|x| x.role.map(str::to_string));
                let pi_role = index
                    .and_then(|i| llm.get(i))
                    .and_then(|m| m.get_str("role"))
                    .map(str::to_string);
                let role = match (&pi_role, &wire_role) {
                    (Some(r), _) => wire_role_of(api, r).to_string(),
                    (None, Some(r)) => normal_role(r).to_string(),
                    (None, None) => "other".to_string(),
                };
                // Each wire message's row, found by its path (an index, not a scan: a long
                // session has tens of thousands of parts and of messages).
                let path = wire.as_deref().unwrap_or_default();
                let m = match message_rows.get(path) {
                    Some(&i) => &mut by_message[i],
                    None => {
                        message_rows.insert(path.to_string(), by_message.len());
                        by_message.push(MessageStat {
                            path: path.to_string(),
                            role: role.clone(),
                            ..Default::default()
                        });
                        by_message.last_mut().expect("just pushed")
                    }
                };
                m.chars += n;
                m.tokens += t;
                if let Some(i) = index {
                    if !m.messages.contains(i) {
                        m.messages.push(*i);
                        if let provenance::MessageOrigin::Session { line, .. } =
                            provenance::message_origin(a, &map, *i)
                        {
                            m.lines.push(line);
                        }
                    }
                }
                if *kind == Kind::ToolResults {
                    let name = index
                        .and_then(|i| llm.get(i))
                        .filter(|m| m.get_str("role") == Some("toolResult"))
                        .and_then(|m| m.get_str("toolName"))
                        .or_else(|| {
                            let x = wire.as_deref().and_then(|p| wires.get(p))?;
                            x.call_id
                                .and_then(|id| {
                                    // Adapters rewrite ids (split at `|`, shortened, sanitized).
                                    call_names.get(id).copied().or_else(|| {
                                        call_names
                                            .iter()
                                            .find(|(k, _)| k.starts_with(id) || k.contains(id))
                                            .map(|(_, n)| *n)
                                    })
                                })
                                .or(x.obj_name)
                        })
                        .unwrap_or("?")
                        .to_string();
                    let first = result_seen.insert((wire.clone(), *index, name.clone()));
                    match by_result_tool.iter_mut().find(|r| r.name == name) {
                        Some(r) => {
                            r.chars += n;
                            r.tokens += t;
                            r.count += usize::from(first);
                        }
                        None => by_result_tool.push(ToolResultStat {
                            name,
                            count: 1,
                            chars: *n,
                            tokens: t,
                        }),
                    }
                }
            }
        }
    }
    // The roles: each LLM message the body carries once, each message pi inserted once.
    let mut roles: Vec<RoleStat> = Vec::new();
    let mut counted: std::collections::HashSet<usize> = std::collections::HashSet::new();
    for m in &by_message {
        // Each message once (`insert` is false for one counted already).
        let fresh = m.messages.iter().filter(|i| counted.insert(**i)).count();
        let count = if m.messages.is_empty() { 1 } else { fresh };
        match roles.iter_mut().find(|r| r.role == m.role) {
            Some(r) => {
                r.count += count;
                r.chars += m.chars;
                r.tokens += m.tokens;
            }
            None => roles.push(RoleStat {
                role: m.role.clone(),
                count,
                chars: m.chars,
                tokens: m.tokens,
            }),
        }
    }
    s.by_tool
        .sort_by(|a, b| b.chars.cmp(&a.chars).then(a.name.cmp(&b.name)));
    by_result_tool.sort_by(|a, b| b.chars.cmp(&a.chars).then(a.name.cmp(&b.name)));
    s.by_kind = kinds;
    s.by_kind_tokens = kind_tokens;
    s.by_role = roles;
    s.by_message = by_message;
    s.tool_results_by_tool = by_result_tool;
    Ok(Some(s))
}

impl KindStats {
    fn slot(&mut self, kind: Kind) -> &mut usize {
        match kind {
            Kind::UserText => &mut self.user_text,
            Kind::AssistantText => &mut self.assistant_text,
            Kind::Reasoning => &mut self.reasoning,
            Kind::ToolArguments => &mut self.tool_arguments,
            Kind::ToolResults => &mut self.tool_results,
            Kind::Signatures => &mut self.signatures,
            Kind::ImageData => &mut self.image_data,
        }
    }
}

fn normal_role(r: &str) -> &'static str {
    match r {
        "user" => "user",
        "assistant" | "model" => "assistant",
        "tool" | "toolResult" | "function" => "tool",
        _ => "other",
    }
}

fn wire_role_of(api: &str, pi_role: &str) -> &'static str {
    match (api, pi_role) {
        (_, "user") => "user",
        (_, "assistant") => "assistant",
        ("anthropic-messages", "toolResult")
        | ("bedrock-converse-stream", "toolResult")
        | ("google-generative-ai", "toolResult") => "user",
        (_, "toolResult") => "tool",
        _ => "other",
    }
}

#[cfg(test)]
#[path = "stats_tests.rs"]
pub(crate) mod recount;

#[cfg(test)]
mod tests {
    use crate::testcase;
    use crate::trace::StageId;

    #[test]
    fn the_body_stage_and_the_statistics_count_the_body_as_js_does() {
        // Every corpus case (bodies with emoji, accents and lone surrogates among them), each
        // protocol: bytes and UTF-16 units of the body, in the stats and in the body stage.
        for name in testcase::all_cases() {
            let a = testcase::assembly(&name, None);
            let (Some(r), Some(s)) = (&a.request, &a.stats) else {
                continue;
            };
            let units = r.body.encode_utf16().count()
                - r.body
                    .chars()
                    .filter(|c| crate::js::is_lone_surrogate_char(*c).is_some())
                    .count();
            assert_eq!(s.body_chars, units, "{name}");
            assert_eq!(s.body_bytes, r.body.len(), "{name}");
            let stage = a
                .trace
                .stages
                .iter()
                .find(|st| st.id == StageId::HttpBody)
                .expect("body stage");
            let count = |k: &str| {
                stage
                    .counts
                    .iter()
                    .find(|(n, _)| n == k)
                    .map(|(_, v)| *v as usize)
            };
            assert_eq!(count("chars"), Some(units), "{name}");
            assert_eq!(count("bytes"), Some(r.body.len()), "{name}");
        }
    }
}

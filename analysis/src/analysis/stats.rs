//! The seed article's accounting: how the request's characters split between the system prompt,
//! the tool definitions and the history. Lengths are UTF-16 code units (JS `.length`).
//!
//! Counted on the body as sent (after the adapter: what it adds, drops or rewrites), each leaf
//! in the block [`provenance`] maps it to: a text payload counts its text (the seed's measure),
//! a tool its description and its parameters' schema as the body writes it, a tool call its
//! arguments (`JSON.stringify(arguments)`, or the arguments object as written); parameter values
//! are `parameters`, and everything else (punctuation, keys, quotes and escapes, roles, ids) is
//! `structure`, so that the parts add up to the body.

use std::collections::{HashMap, HashSet};

use crate::assemble::Assembly;
use crate::js::{utf16_len, Value};
use crate::prompt::SystemPrompt;
use crate::protocols::body::{Kind, Payload, WireMessage};
use crate::protocols::Request;
use crate::provenance;
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
    /// A history kind, with the wire message (an index into the accounting's wires) and the
    /// LLM message it renders.
    History {
        kind: Kind,
        wire: Option<u32>,
        llm: Option<usize>,
    },
    Parameter(String),
}

/// The counted parts of the body, read off the spans its writer recorded
/// ([`crate::protocols::body`]), one per span, with the characters each counts.
fn parts_of(a: &Assembly, request: &crate::protocols::Request) -> Vec<(Part, usize)> {
    let acc = &request.accounting;
    let tools = provenance::sent_tools(a);
    let names = provenance::pi_tool_names(tools, &acc.tools);
    let tool = |i: u32| names.get(i as usize).cloned().unwrap_or_default();
    let mut parts = Vec::with_capacity(acc.spans.len());
    for span in &acc.spans {
        let part = match span.payload {
            Payload::System(_) => Part::System,
            Payload::ToolDescription(i) => Part::ToolDescription(tool(i)),
            Payload::ToolSchema(i) => Part::ToolParameters(tool(i)),
            Payload::History {
                kind, llm, wire, ..
            } => Part::History {
                kind,
                wire,
                llm: llm.map(|i| i as usize),
            },
            Payload::Parameter(p) => {
                Part::Parameter(acc.parameters.get(p as usize).cloned().unwrap_or_default())
            }
        };
        parts.push((part, span.chars));
    }
    parts
}

/// Computes the statistics of one assembly from the body it sends: every string and every
/// punctuation mark of the body is counted once, in the block provenance maps it to
/// ([`crate::provenance`]), so the parts add up to the body's length.
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
    walk_and_sum(a, counter, Rows::Kept)
}

/// [`compute_with_tokens`] (or [`compute`], without a counter) with the sums alone: no row per
/// wire message (`by_message`) and so no roles (`by_role`). What `usage` reads of each of its
/// calls: on a long session a row per message of every call is most of the statistics' work.
pub fn sums(a: &Assembly, counter: Option<&mut dyn TokenCounter>) -> Result<Option<Stats>, String> {
    walk_and_sum(a, counter, Rows::Left)
}

/// Whether the statistics keep a row per wire message.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rows {
    Kept,
    Left,
}

fn walk_and_sum(
    a: &Assembly,
    counter: Option<&mut dyn TokenCounter>,
    rows: Rows,
) -> Result<Option<Stats>, String> {
    let (Some(request), Some(pi)) = (a.request.as_ref(), a.pi.as_ref()) else {
        return Ok(None);
    };
    let prompt = &a.parts.system_prompt;
    let api = a.api_name();
    let mut s = Stats {
        sections: section_stats(prompt),
        body_bytes: request.sent_len(),
        body_chars: request.accounting.body_chars,
        chars_per_token: pi.data.default_number("estimateCharsPerToken"),
        ..Default::default()
    };
    let parts = parts_of(a, request);
    // Tokens: every counted text, and each section's text, counted in one call.
    let mut tokens = vec![0usize; parts.len()];
    if let Some(counter) = counter {
        count_tokens(counter, request, &parts, &prompt.text, &mut s, &mut tokens)?;
    }

    let mut history = HistorySums::new(a, request, api, &parts, rows);
    let mut payload_chars = 0usize;
    for (i, (part, n)) in parts.iter().enumerate() {
        let t = tokens[i];
        payload_chars += n;
        match part {
            Part::System => {
                s.system_prompt_chars += n;
                s.system_prompt_tokens += t;
            }
            Part::ToolDescription(name) | Part::ToolParameters(name) => {
                add_tool_part(&mut s, part, name, *n, t);
            }
            Part::Parameter(name) => add_parameter(&mut s, name, *n),
            Part::History {
                kind,
                wire,
                llm: index,
            } => {
                s.history_chars += n;
                s.history_tokens += t;
                history.add(*kind, *wire, *index, *n, t);
            }
        }
    }
    // Everything no payload holds: punctuation, keys, quotes and escapes, roles, types, ids.
    s.structure_chars = s.body_chars.saturating_sub(payload_chars);
    s.by_tool
        .sort_by(|a, b| b.chars.cmp(&a.chars).then(a.name.cmp(&b.name)));
    history.finish(&mut s);
    Ok(Some(s))
}

/// Each section of the system prompt as sent, its tokens not yet counted.
fn section_stats(prompt: &SystemPrompt) -> Vec<SectionStat> {
    prompt
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
        .collect()
}

/// Whether a part is a text a provider reads (image data, opaque signatures and parameters'
/// values are not).
fn is_text(part: &Part) -> bool {
    !matches!(
        part,
        Part::History {
            kind: Kind::ImageData | Kind::Signatures,
            ..
        } | Part::Parameter(_)
    )
}

/// A span's text, what a tokenizer counts: a string's text, or the JSON of a whole value.
fn span_text(request: &crate::protocols::Request, i: usize) -> String {
    if let Some(text) = request.accounting.elided_text(i) {
        return text.to_string();
    }
    let span = &request.accounting.spans[i];
    let raw = request.body.get(span.start..span.end).unwrap_or_default();
    if span.text {
        crate::js::parse(raw)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    } else {
        raw.to_string()
    }
}

/// Counts the parts' texts (into `tokens`, by part) and the sections' texts, in one call. A
/// text the counter recalls by the digest its writer made is not read.
fn count_tokens(
    counter: &mut dyn TokenCounter,
    request: &crate::protocols::Request,
    parts: &[(Part, usize)],
    prompt: &str,
    s: &mut Stats,
    tokens: &mut [usize],
) -> Result<(), String> {
    let digests = &request.accounting.digests;
    let mut texts: Vec<(usize, String)> = Vec::new();
    for (i, (part, chars)) in parts.iter().enumerate() {
        if !is_text(part) {
            continue;
        }
        match digests.get(i).and_then(|d| counter.recall(*d, *chars)) {
            Some(n) => tokens[i] = n,
            None => texts.push((i, span_text(request, i))),
        }
    }
    let sections: Vec<String> = s
        .sections
        .iter()
        .map(|x| crate::js::js_slice(prompt, x.offset, Some(x.offset + x.chars)))
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
    Ok(())
}

/// Adds a tool's description or parameters (`n` characters, `tokens` tokens) to its tool's row.
fn add_tool_part(s: &mut Stats, part: &Part, name: &str, n: usize, tokens: usize) {
    let t = match s.by_tool.iter_mut().position(|t| t.name == name) {
        Some(i) => &mut s.by_tool[i],
        None => {
            s.by_tool.push(ToolStat {
                name: name.to_string(),
                ..Default::default()
            });
            s.by_tool.last_mut().expect("just pushed")
        }
    };
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

/// Adds a parameter's value (`n` characters) to the parameters, by parameter.
fn add_parameter(s: &mut Stats, name: &str, n: usize) {
    s.parameters_chars += n;
    match s.by_parameter.iter_mut().find(|p| p.0 == name) {
        Some(p) => p.1 += n,
        None => s.by_parameter.push((name.to_string(), n)),
    }
}

/// The history's sums as the walk meets its parts: by kind, by wire message, by tool result.
struct HistorySums<'a> {
    a: &'a Assembly,
    api: &'a str,
    llm: &'a [Value],
    /// Each LLM message's agent message (for the session line it came from).
    map: &'a [usize],
    wires: &'a [WireMessage],
    /// The names of the calls, by id (a result pi inserted answers one): made when one is met.
    call_names: Option<HashMap<&'a str, &'a str>>,
    kinds: KindStats,
    kind_tokens: KindStats,
    by_message: Vec<MessageStat>,
    by_result_tool: Vec<ToolResultStat>,
    /// Each wire message's row in `by_message`, by its number (the last: the parts in no wire
    /// message).
    message_rows: Vec<Option<usize>>,
    /// The results counted: by wire message and LLM message (which name their tool).
    result_seen: HashSet<(Option<u32>, Option<usize>)>,
    rows: Rows,
}

impl<'a> HistorySums<'a> {
    /// No sums yet over `a`'s history; the images are counted among `parts`.
    fn new(
        a: &'a Assembly,
        request: &'a Request,
        api: &'a str,
        parts: &[(Part, usize)],
        rows: Rows,
    ) -> Self {
        let llm = &a.parts.llm_messages;
        let images = parts
            .iter()
            .filter(|(p, _)| {
                matches!(
                    p,
                    Part::History {
                        kind: Kind::ImageData,
                        ..
                    }
                )
            })
            .count();
        HistorySums {
            a,
            api,
            llm,
            map: a.agent_indices(),
            wires: &request.accounting.wires,
            call_names: None,
            kinds: KindStats {
                images,
                ..Default::default()
            },
            kind_tokens: KindStats {
                images,
                ..Default::default()
            },
            by_message: Vec::new(),
            by_result_tool: Vec::new(),
            message_rows: match rows {
                Rows::Kept => vec![None; request.accounting.wires.len() + 1],
                Rows::Left => Vec::new(),
            },
            result_seen: HashSet::new(),
            rows,
        }
    }

    /// Adds a history part (`n` characters, `t` tokens) to its kind, its message and its result.
    fn add(&mut self, kind: Kind, wire: Option<u32>, index: Option<usize>, n: usize, t: usize) {
        let (wires, llm) = (self.wires, self.llm);
        *self.kinds.slot(kind) += n;
        *self.kind_tokens.slot(kind) += t;
        let wire_msg = wire.and_then(|w| wires.get(w as usize));
        if kind == Kind::ToolResults {
            self.add_tool_result(wire, index, wire_msg, n, t);
        }
        if self.rows == Rows::Left {
            return;
        }
        // Each wire message's row, found by its number (an index, not a scan: a long
        // session has tens of thousands of parts and of messages); its role is its first
        // part's.
        let slot = wire.map_or(wires.len(), |w| (w as usize).min(wires.len()));
        let m = match self.message_rows[slot] {
            Some(i) => &mut self.by_message[i],
            None => {
                let pi_role = index
                    .and_then(|i| llm.get(i))
                    .and_then(|m| m.get_str("role"));
                let role = match (pi_role, wire_msg.and_then(|x| x.role.as_deref())) {
                    (Some(r), _) => wire_role_of(self.api, r),
                    (None, Some(r)) => normal_role(r),
                    (None, None) => "other",
                };
                self.message_rows[slot] = Some(self.by_message.len());
                self.by_message.push(MessageStat {
                    path: wire_msg.map(|x| x.path.clone()).unwrap_or_default(),
                    role: role.to_string(),
                    ..Default::default()
                });
                self.by_message.last_mut().expect("just pushed")
            }
        };
        m.chars += n;
        m.tokens += t;
        if let Some(i) = index {
            if !m.messages.contains(&i) {
                m.messages.push(i);
                if let provenance::MessageOrigin::Session { line, .. } =
                    provenance::message_origin(self.a, self.map, i)
                {
                    m.lines.push(line);
                }
            }
        }
    }

    /// Adds a tool result's part to its tool's row (each result counted once).
    fn add_tool_result(
        &mut self,
        wire: Option<u32>,
        index: Option<usize>,
        wire_msg: Option<&WireMessage>,
        n: usize,
        t: usize,
    ) {
        let name = index
            .and_then(|i| self.llm.get(i))
            .filter(|m| m.get_str("role") == Some("toolResult"))
            .and_then(|m| m.get_str("toolName"))
            .or_else(|| {
                // A result pi inserted: its call's name, by the call id it answers.
                let id = wire_msg.and_then(|x| x.call_id.as_deref())?;
                let llm = self.llm;
                let names = self.call_names.get_or_insert_with(|| {
                    llm.iter()
                        .filter_map(|m| m.get("content").and_then(Value::as_array))
                        .flatten()
                        .filter(|b| b.get_str("type") == Some("toolCall"))
                        .filter_map(|b| Some((b.get_str("id")?, b.get_str("name")?)))
                        .collect()
                });
                names.get(id).copied()
            })
            .unwrap_or("?")
            .to_string();
        let first = self.result_seen.insert((wire, index));
        match self.by_result_tool.iter_mut().find(|r| r.name == name) {
            Some(r) => {
                r.chars += n;
                r.tokens += t;
                r.count += usize::from(first);
            }
            None => self.by_result_tool.push(ToolResultStat {
                name,
                count: 1,
                chars: n,
                tokens: t,
            }),
        }
    }

    /// Puts the history's sums into `s`: by kind, by role, by message, by tool result.
    fn finish(mut self, s: &mut Stats) {
        self.by_result_tool
            .sort_by(|a, b| b.chars.cmp(&a.chars).then(a.name.cmp(&b.name)));
        s.by_kind = self.kinds;
        s.by_kind_tokens = self.kind_tokens;
        s.by_role = roles(&self.by_message);
        s.by_message = self.by_message;
        s.tool_results_by_tool = self.by_result_tool;
    }
}

/// The roles: each LLM message the body carries once, each message pi inserted once.
fn roles(by_message: &[MessageStat]) -> Vec<RoleStat> {
    let mut roles: Vec<RoleStat> = Vec::new();
    // The LLM messages counted already, by index.
    let last = by_message
        .iter()
        .flat_map(|m| m.messages.iter().copied())
        .max();
    let mut counted = vec![false; last.map_or(0, |l| l + 1)];
    for m in by_message {
        // Each message once.
        let fresh = m
            .messages
            .iter()
            .filter(|&&i| !std::mem::replace(&mut counted[i], true))
            .count();
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
    roles
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

/// The statistics of an assembly: made from the spans its body's writer recorded when first
/// asked for, and kept with it ([`Assembly::analysis`]); or put in place by a host that counted
/// tokens ([`compute_with_tokens`]).
pub trait AssemblyStats {
    /// `None`: no request was built.
    fn stats(&self) -> Option<&Stats>;
    fn set_stats(&mut self, stats: Option<Stats>);
}

impl AssemblyStats for Assembly {
    fn stats(&self) -> Option<&Stats> {
        super::derived::stats(self)
    }

    fn set_stats(&mut self, stats: Option<Stats>) {
        self.set_analysis(super::derived::Derived::with_stats(stats));
    }
}

#[cfg(test)]
mod tests {
    use super::AssemblyStats;
    use crate::testcase;
    use crate::trace::StageId;

    #[test]
    fn the_body_stage_and_the_statistics_count_the_body_as_js_does() {
        // Every corpus case (bodies with emoji, accents and lone surrogates among them), each
        // protocol: bytes and UTF-16 units of the body, in the stats and in the body stage.
        for name in testcase::all_cases() {
            let a = testcase::assembly(&name, None);
            let (Some(r), Some(s)) = (&a.request, a.stats()) else {
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

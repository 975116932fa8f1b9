//! Every byte traced to its source: each leaf of the request's params (and each top-level
//! parameter) attributed to a system-prompt section, a tool, a message of the LLM context (and so
//! a session entry and line, or this turn's prompt), one of pi's inserted strings, or a pi
//! parameter and the rule that set it.
//!
//! Attribution is by construction, never by content: the adapter marked each object it built
//! with what it renders (`protocols::body`), and the body's writer walks the params with those
//! marks ([`crate::protocols::body::leaves`]). A leaf a mark counts is that source's payload
//! (`exact`); any other leaf inside a marked object is its structure (`structure`); a leaf outside
//! every mark is a parameter, named by its top-level key (`rule`).

use std::collections::HashMap;

use crate::protocols::body::{self, Kind, Payload};

use crate::assemble::Assembly;
use crate::js::{utf16_len, Value};
use crate::tools::ToolSource;
use crate::trace::StageId;

/// How an origin was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Match {
    /// The leaf is the source's payload (a text, a schema, a call's arguments).
    Exact,
    /// A structural leaf (role, type, id, schema keyword) inside an object owned by the source.
    Structure,
    /// A parameter pi sets by a rule.
    Rule,
}

impl Match {
    pub fn as_str(self) -> &'static str {
        match self {
            Match::Exact => "exact",
            Match::Structure => "structure",
            Match::Rule => "rule",
        }
    }
}

/// One system-prompt section inside a leaf (offsets in UTF-16 units of the leaf).
#[derive(Clone, Debug, PartialEq)]
pub struct SectionSpan {
    /// Index into `Parts.system_prompt.sections`.
    pub index: usize,
    pub name: String,
    pub source: String,
    pub start: usize,
    pub end: usize,
    /// 0.86 on: the stored system message that set it (a session line, this run).
    pub stored: Option<crate::prompt::Stored>,
}

/// Where a message of the LLM context came from.
#[derive(Clone, Debug, PartialEq)]
pub enum MessageOrigin {
    /// A session entry (`SessionContext.sources`).
    Session {
        entry_id: Option<String>,
        line: u32,
        entry_type: String,
    },
    /// This turn's prompt.
    ThisTurn,
}

/// A message of the LLM context (`Parts.llm_messages`) and which part of it a leaf carries.
#[derive(Clone, Debug, PartialEq)]
pub struct MessageRef {
    /// Index into `Parts.llm_messages`.
    pub index: usize,
    /// The pi role (`user`, `assistant`, `toolResult`).
    pub role: String,
    /// `text`, `thinking`, `signature`, `tool-call`, `tool-arguments`, `tool-result`, `image`,
    /// `structure`.
    pub part: &'static str,
    pub origin: MessageOrigin,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// The system prompt; `sections` are the sections the leaf holds (empty for a structural
    /// leaf such as a `role: "system"`).
    SystemPrompt {
        sections: Vec<SectionSpan>,
    },
    /// A tool definition: `part` is `name`, `description` or `schema`.
    Tool {
        name: String,
        builtin: bool,
        part: &'static str,
    },
    Message(MessageRef),
    /// A wire container that merges several LLM messages (consecutive tool results).
    Messages(Vec<MessageRef>),
    /// One of pi's literal inserted strings (`strings.json` key, e.g.
    /// `transformMessages.missingToolResult`): synthetic results, placeholders, bridges.
    Inserted {
        key: String,
        text: String,
    },
    /// A parameter pi sets, with the rule and where in pi it lives.
    Parameter {
        name: String,
        rule: String,
        pi_source: Option<String>,
    },
}

impl Source {
    /// The kind as a stable key: `system-prompt`, `tool`, `message`, `messages`, `inserted`,
    /// `parameter`.
    pub fn kind(&self) -> &'static str {
        match self {
            Source::SystemPrompt { .. } => "system-prompt",
            Source::Tool { .. } => "tool",
            Source::Message(_) => "message",
            Source::Messages(_) => "messages",
            Source::Inserted { .. } => "inserted",
            Source::Parameter { .. } => "parameter",
        }
    }
}

/// A JSON path into the body and its source.
#[derive(Clone, Debug, PartialEq)]
pub struct Origin {
    /// Dot-separated, array indices as numbers: `messages.3.content.0.text`. A top-level
    /// parameter is its key (`max_tokens`).
    pub path: String,
    pub source: Source,
    pub matched: Match,
    /// UTF-16 length of a string leaf (0 for numbers, booleans, null and containers).
    pub chars: usize,
}

/// The tools the request was built from: 0.86 on every tool the transcript declared, else the
/// active tools.
pub fn sent_tools(a: &Assembly) -> &[crate::tools::ToolDef] {
    if a.parts.sent_system.is_some() {
        &a.parts.every_declared_tool
    } else {
        &a.parts.tools
    }
}

/// pi's name of each tool as the adapter wrote it (Claude Code's `Read` is pi's `read`).
pub fn pi_tool_names(tools: &[crate::tools::ToolDef], written: &[String]) -> Vec<String> {
    written
        .iter()
        .map(|n| {
            tools
                .iter()
                .find(|t| t.name == *n)
                .or_else(|| tools.iter().find(|t| t.name.eq_ignore_ascii_case(n)))
                .map_or_else(|| n.clone(), |t| t.name.clone())
        })
        .collect()
}

/// The system texts the request sends, each `(start, end)` in `Parts.system_prompt`: the
/// whole prompt, or 0.86 on each system message as sent (the first and the updates kept in
/// place).
fn system_parts(a: &Assembly) -> Vec<(usize, usize)> {
    let sp = &a.parts.system_prompt;
    match &a.parts.sent_system {
        Some(sent) => sent
            .messages
            .iter()
            .flat_map(|m| m.strings.iter())
            .map(|(a, b, _)| (*a, *b))
            .collect(),
        None if sp.text.is_empty() => Vec::new(),
        None => vec![(0, utf16_len(&sp.text))],
    }
}

// ---------------------------------------------------------------------------------------------
// Message references.
// ---------------------------------------------------------------------------------------------

/// For each LLM message made of `agent`, the agent message it came from (`convertToLlm` keeps
/// or converts one by one and drops excluded bash runs and unknown roles:
/// CA/core/messages.js:75–122; 0.86 on, system messages pass too). An assembly keeps its own
/// ([`Assembly::agent_indices`]).
pub fn agent_indices(pi: &crate::pi::Pi, agent: &[Value]) -> Vec<usize> {
    let mut out = Vec::with_capacity(agent.len());
    for (i, m) in agent.iter().enumerate() {
        let keep = match m.get_str("role") {
            Some("bashExecution") => !m.get("excludeFromContext").is_some_and(Value::truthy),
            Some(
                "custom" | "branchSummary" | "compactionSummary" | "user" | "assistant"
                | "toolResult",
            ) => true,
            Some("system") => pi.rules.transcript,
            _ => false,
        };
        if keep {
            out.push(i);
        }
    }
    out
}

/// Where LLM message `index` came from.
pub fn message_origin(a: &Assembly, map: &[usize], index: usize) -> MessageOrigin {
    let agent = map.get(index).copied().unwrap_or(usize::MAX);
    match a.parts.session_context.sources.get(agent) {
        Some(s) => MessageOrigin::Session {
            entry_id: s.entry_id.clone(),
            line: s.line,
            entry_type: s.entry_type.clone(),
        },
        None => MessageOrigin::ThisTurn,
    }
}

fn message_ref(a: &Assembly, map: &[usize], index: usize, part: &'static str) -> MessageRef {
    MessageRef {
        index,
        role: a
            .parts
            .llm_messages
            .get(index)
            .and_then(|m| m.get_str("role"))
            .unwrap_or("")
            .to_string(),
        part,
        origin: message_origin(a, map, index),
    }
}

// ---------------------------------------------------------------------------------------------
// Parameters.
// ---------------------------------------------------------------------------------------------

/// What a parameter is for: `thinking`, `max-tokens`, `cache`, `model`, `stream`, `tools`,
/// `session`, `sampling`, `store`, `other`.
pub fn param_class(name: &str) -> &'static str {
    let l = name.to_ascii_lowercase();
    if l.contains("cache") {
        "cache"
    } else if l.contains("max") && l.contains("token") {
        "max-tokens"
    } else if l.contains("think")
        || l.contains("reason")
        || l.contains("effort")
        || l.contains("prompt_mode")
        || l.contains("chat_template")
        || l.contains("output_config")
    {
        "thinking"
    } else if l == "model" || l == "modelid" {
        "model"
    } else if l.starts_with("stream") {
        "stream"
    } else if l.contains("tool") {
        "tools"
    } else if l == "store" {
        "store"
    } else if l.contains("temperature")
        || l.contains("top_p")
        || l.contains("top_k")
        || l.contains("penalty")
        || l.contains("seed")
    {
        "sampling"
    } else if l.contains("session") || l == "user" || l == "metadata" {
        "session"
    } else {
        "other"
    }
}

/// The rule that set parameter `name`, and pi's source for it (a build-params event that names
/// it, else the adapter).
pub fn param_rule(a: &Assembly, name: &str) -> (String, Option<String>) {
    let c = &a.parts.model_choice;
    let model = c.model.as_ref();
    let last = name.rsplit('.').next().unwrap_or(name);
    let stage = a.trace.stage(StageId::BuildParams);
    let events: Vec<&crate::trace::Event> =
        stage.map(|s| s.events.iter().collect()).unwrap_or_default();
    let mentions = |e: &crate::trace::Event| {
        e.message
            .split(|ch: char| !(ch.is_alphanumeric() || ch == '_'))
            .any(|w| w == last || w == name)
    };
    let clamp = events.iter().find(|e| {
        e.kind == crate::trace::EventKind::Clamped
            && e.pi_source
                .is_some_and(|s| s.starts_with("AI/api/simple-options.js"))
    });
    let specific = last.contains('_')
        || last.chars().any(|ch| ch.is_ascii_uppercase())
        || param_class(name) == "thinking";
    let event = if specific {
        events.iter().copied().find(|e| mentions(e))
    } else {
        None
    };
    let mut rule = match param_class(name) {
        "model" => format!(
            "the model id of {} (chosen by {})",
            model.map(|m| m.reference()).unwrap_or_default(),
            if c.model_source.is_empty() { "default" } else { &c.model_source }
        ),
        "max-tokens" => match (clamp, model) {
            (Some(e), Some(m)) => format!("model.maxTokens ({}) clamped to the context window ({}): {}", crate::js::number_to_string(m.max_tokens()), crate::js::number_to_string(m.context_window()), e.message),
            (_, Some(m)) => format!("model.maxTokens ({}), within the context window ({})", crate::js::number_to_string(m.max_tokens()), crate::js::number_to_string(m.context_window())),
            _ => "model.maxTokens".into(),
        },
        "thinking" => {
            if c.requested_level != c.thinking_level && !c.requested_level.is_empty() {
                format!("thinking level {} (requested {} by {}, clamped to what the model supports)", c.thinking_level, c.requested_level, c.level_source)
            } else {
                format!("thinking level {} (from {})", c.thinking_level, if c.level_source.is_empty() { "default" } else { &c.level_source })
            }
        }
        "cache" => "prompt caching: pi's cache markers and keys (retention from PI_CACHE_RETENTION, default short)".into(),
        "stream" => "pi always streams".into(),
        "tools" => tools_rule(a),
        "store" => "pi never asks the provider to store the response".into(),
        "sampling" => "the model's samplingParams (models.json)".into(),
        "session" => "the session id".into(),
        _ => format!("set by the {} adapter", model.map(|m| m.api()).unwrap_or("?")),
    };
    if let Some(e) = event {
        if param_class(name) != "max-tokens" || clamp.is_none() {
            rule = format!("{rule}; {}", e.message);
        }
    }
    let src = event
        .and_then(|e| e.pi_source)
        .or(stage.map(|s| s.pi_source))
        .map(String::from);
    (rule, src)
}

// ---------------------------------------------------------------------------------------------
// Provenance.
// ---------------------------------------------------------------------------------------------

/// What the request's tools are, for a rule.
fn tools_rule(a: &Assembly) -> String {
    if a.parts.sent_system.is_some() {
        format!(
            "the {} tools the transcript's system messages declare",
            a.parts.declared_tools.len()
        )
    } else {
        format!("the {} active tools", a.parts.tools.len())
    }
}

/// The sections of system text `part` (`start..end` of the prompt), at `offset` in the leaf.
fn sections_at(a: &Assembly, part: (usize, usize), offset: usize) -> Vec<SectionSpan> {
    a.parts
        .system_prompt
        .sections
        .iter()
        .enumerate()
        .filter(|(_, s)| s.start >= part.0 && s.end <= part.1)
        .map(|(i, s)| SectionSpan {
            index: i,
            name: s.name.clone(),
            source: s.source.clone(),
            start: s.start - part.0 + offset,
            end: s.end - part.0 + offset,
            stored: s.stored.clone(),
        })
        .collect()
}

/// What part of an LLM message a history payload is.
fn message_part(kind: Kind, role: &str) -> &'static str {
    match kind {
        Kind::Reasoning => "thinking",
        Kind::Signatures => "signature",
        Kind::ToolArguments => "tool-arguments",
        Kind::ImageData => "image",
        Kind::ToolResults if role == "toolResult" => "tool-result",
        _ => "text",
    }
}

/// The source of every leaf of the body (and of each top-level container), read off the marks
/// the adapter wrote it with.
pub fn provenance(a: &Assembly) -> Vec<Origin> {
    let Some(request) = a.request.as_ref() else {
        return Vec::new();
    };
    let (leaves, acc) = body::leaves(&request.sent, &request.accounting.root);
    let mut s = Sources::new(a, &acc, &leaves);
    let mut out = Vec::with_capacity(leaves.len() + 8);
    // The top-level containers: what they hold.
    if let Some(root) = request.sent.as_object() {
        for (key, v) in root.iter() {
            if !matches!(v, Value::Array(_) | Value::Object(_)) {
                continue;
            }
            out.push(Origin {
                path: key.to_string(),
                source: s.container(key, &leaves),
                matched: Match::Rule,
                chars: 0,
            });
        }
    }
    for leaf in leaves {
        let (source, matched) = s.leaf(&leaf);
        out.push(Origin {
            path: leaf.path,
            source,
            matched,
            chars: leaf.chars,
        });
    }
    out
}

/// What [`provenance`] reads the leaves' sources with: the request's tools, system parts,
/// message map and inserted texts, and the parameters' rules found so far.
struct Sources<'a> {
    a: &'a Assembly,
    tools: &'a [crate::tools::ToolDef],
    tool_names: Vec<String>,
    parts: Vec<(usize, usize)>,
    skip: usize,
    map: &'a [usize],
    pis: &'static [(String, &'static str)],
    parameters: &'a [String],
    params_cache: HashMap<String, (String, Option<String>)>,
    /// The LLM messages each wire message renders, in order.
    wire_llms: HashMap<u32, Vec<u32>>,
}

impl<'a> Sources<'a> {
    /// The tools, system parts, message map and wire messages of the body's `leaves`.
    fn new(a: &'a Assembly, acc: &'a body::Accounting, leaves: &[body::Leaf]) -> Self {
        let tools = sent_tools(a);
        let tool_names = pi_tool_names(tools, &acc.tools);
        let parts = system_parts(a);
        // pi's own system blocks (Claude Code's identity) come before the prompt's texts.
        let skip = (acc.systems as usize).saturating_sub(parts.len());
        let map = a.agent_indices();
        let pis = a.pi.map_or(&[][..], |pi| pi.data.inserted_strings());
        // The LLM messages each wire message renders, in order.
        let mut wire_llms: HashMap<u32, Vec<u32>> = HashMap::new();
        for l in leaves {
            if let (Some(w), Some(i)) = (l.wire, l.tag.and_then(body::Tag::llm)) {
                let v = wire_llms.entry(w).or_default();
                if !v.contains(&i) {
                    v.push(i);
                }
            }
        }
        Sources {
            a,
            tools,
            tool_names,
            parts,
            skip,
            map,
            pis,
            parameters: &acc.parameters,
            params_cache: HashMap::new(),
            wire_llms,
        }
    }

    /// Tool `i`'s `part`.
    fn tool(&self, i: u32, part: &'static str) -> Source {
        let name = self.tool_names.get(i as usize).cloned().unwrap_or_default();
        let builtin = self
            .tools
            .iter()
            .find(|t| t.name == name)
            .is_some_and(|t| t.source == ToolSource::Builtin);
        Source::Tool {
            name,
            builtin,
            part,
        }
    }

    /// System text `k` (its sections unless `structure`).
    fn system(&self, k: u32, structure: bool) -> Source {
        Source::SystemPrompt {
            sections: match (
                structure,
                (k as usize)
                    .checked_sub(self.skip)
                    .and_then(|k| self.parts.get(k)),
            ) {
                (false, Some(&part)) => sections_at(self.a, part, 0),
                _ => Vec::new(),
            },
        }
    }

    /// The text pi inserts under `key`.
    fn inserted(&self, key: u16) -> Source {
        let (key, text) = self
            .pis
            .get(key as usize)
            .map_or(("", ""), |(k, t)| (k.as_str(), *t));
        Source::Inserted {
            key: key.to_string(),
            text: text.to_string(),
        }
    }

    /// LLM message `i`'s role.
    fn role(&self, i: u32) -> &'a str {
        self.a
            .parts
            .llm_messages
            .get(i as usize)
            .and_then(|m| m.get_str("role"))
            .unwrap_or("")
    }

    /// Parameter `name` and its rule.
    fn param(&mut self, name: &str) -> Source {
        let a = self.a;
        let (rule, pi_source) = self
            .params_cache
            .entry(name.to_string())
            .or_insert_with(|| param_rule(a, name))
            .clone();
        Source::Parameter {
            name: name.to_string(),
            rule,
            pi_source,
        }
    }

    /// A top-level container `key`: what its `leaves` hold.
    fn container(&mut self, key: &str, leaves: &[body::Leaf]) -> Source {
        let a = self.a;
        let under = |l: &&body::Leaf| {
            l.path == key || l.path.strip_prefix(key).is_some_and(|r| r.starts_with('.'))
        };
        let inner: Vec<&body::Leaf> = leaves.iter().filter(under).collect();
        let has = |f: fn(&body::Tag) -> bool| inner.iter().any(|l| l.tag.as_ref().is_some_and(f));
        let messages = has(|t| t.llm().is_some() || matches!(t, body::Tag::Inserted { .. }));
        let tools = has(|t| matches!(t, body::Tag::Tool | body::Tag::Schema));
        let only_system = !messages && !tools && has(|t| matches!(t, body::Tag::System));
        if only_system {
            Source::SystemPrompt {
                sections: Vec::new(),
            }
        } else if messages {
            Source::Parameter {
                name: key.to_string(),
                rule: format!(
                    "the conversation: {} LLM messages after convertToLlm, transformed and converted by the adapter",
                    a.parts.llm_messages.len()
                ),
                pi_source: a
                    .trace
                    .stage(StageId::ConvertMessages)
                    .map(|s| s.pi_source.to_string()),
            }
        } else if tools {
            Source::Parameter {
                name: key.to_string(),
                rule: tools_rule(a),
                pi_source: a
                    .trace
                    .stage(StageId::AgentContext)
                    .map(|s| s.pi_source.to_string()),
            }
        } else {
            self.param(key)
        }
    }

    /// A leaf's source, and how it was matched.
    fn leaf(&mut self, leaf: &body::Leaf) -> (Source, Match) {
        let a = self.a;
        match (leaf.payload, leaf.tag) {
            (Some(Payload::Parameter(p)), _) => (
                self.param(self.parameters.get(p as usize).map_or("", String::as_str)),
                Match::Rule,
            ),
            (Some(Payload::System(k)), _) => (self.system(k, false), Match::Exact),
            (Some(Payload::ToolDescription(i)), _) => (self.tool(i, "description"), Match::Exact),
            (Some(Payload::ToolSchema(i)), _) => (self.tool(i, "schema"), Match::Exact),
            (
                Some(Payload::History {
                    kind,
                    llm,
                    inserted: key,
                    ..
                }),
                _,
            ) => match (llm, key) {
                (_, Some(key)) => (self.inserted(key), Match::Exact),
                (Some(i), None) => (
                    Source::Message(message_ref(
                        a,
                        self.map,
                        i as usize,
                        message_part(kind, self.role(i)),
                    )),
                    Match::Exact,
                ),
                (None, None) => (self.param("messages"), Match::Rule),
            },
            (None, Some(tag)) => (self.structure(leaf, tag), Match::Structure),
            (None, None) => (
                self.param(leaf.path.split('.').next().unwrap_or("")),
                Match::Rule,
            ),
        }
    }

    /// The source of a leaf of structure (no payload) with tag `tag`.
    fn structure(&mut self, leaf: &body::Leaf, tag: body::Tag) -> Source {
        let a = self.a;
        let structure = leaf.payload.is_none();
        match tag {
            body::Tag::Tool | body::Tag::Schema => {
                let i = leaf.tool.unwrap_or(u32::MAX);
                let part = if leaf.path.ends_with(".name") {
                    "name"
                } else {
                    "schema"
                };
                self.tool(i, part)
            }
            body::Tag::System | body::Tag::Sections => self.system(0, structure),
            // A wire message's own structure: every LLM message it renders.
            body::Tag::Message { .. }
                if leaf
                    .wire
                    .and_then(|w| self.wire_llms.get(&w))
                    .is_some_and(|l| l.len() > 1) =>
            {
                let llms = &self.wire_llms[&leaf.wire.unwrap_or_default()];
                Source::Messages(
                    llms.iter()
                        .map(|&i| message_ref(a, self.map, i as usize, "structure"))
                        .collect(),
                )
            }
            body::Tag::Message { llm, .. } | body::Tag::Block { llm, .. }
                if llm != body::NO_MESSAGE =>
            {
                Source::Message(message_ref(a, self.map, llm as usize, "structure"))
            }
            body::Tag::Inserted { key, .. } => self.inserted(key),
            _ => self.param(leaf.path.split('.').next().unwrap_or("")),
        }
    }
}

/// Origins as a map from path to index in `origins` (the UI's lookup).
pub fn by_path(origins: &[Origin]) -> HashMap<&str, usize> {
    origins
        .iter()
        .enumerate()
        .map(|(i, o)| (o.path.as_str(), i))
        .collect()
}

#[cfg(test)]
#[path = "provenance_tests.rs"]
mod tests;

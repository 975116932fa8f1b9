//! Every byte traced to its source: each leaf of the request's params (and each top-level
//! parameter) attributed to a system-prompt section, a tool, a message of the LLM context (and so
//! a session entry and line, or this turn's prompt), one of pi's inserted strings, or a pi
//! parameter and the rule that set it.
//!
//! Attribution is by content, not by protocol: every text of the LLM context, the system prompt,
//! the tool descriptions and pi's literal strings is indexed by its exact text (a hash map, so a
//! 40 MB session stays linear); a leaf that matches nothing exactly is tried for containment
//! against the few messages around it (joined text blocks, prefixed error results); the
//! remaining leaves (roles, types, ids) take the owner of the nearest enclosing object that has
//! exactly one.

use std::collections::HashMap;

use crate::assemble::Assembly;
use crate::js::{utf16_len, Object, Value};
use crate::tools::ToolSource;
use crate::trace::StageId;

/// How an origin was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Match {
    /// The leaf's text is exactly a source text.
    Exact,
    /// The leaf contains a source text, or is contained in one.
    Contains,
    /// A structural leaf (role, type, id, schema keyword) inside an object owned by the source.
    Structure,
    /// A parameter pi sets by a rule.
    Rule,
}

impl Match {
    pub fn as_str(self) -> &'static str {
        match self {
            Match::Exact => "exact",
            Match::Contains => "contains",
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

// ---------------------------------------------------------------------------------------------
// The index.
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Owner {
    Msg(usize),
    /// A system text sent ([`system_parts`]).
    System(usize),
    Tool(usize),
    Pi(usize),
}

#[derive(Clone, Copy, Debug)]
struct Piece {
    owner: Owner,
    part: &'static str,
}

struct Index<'a> {
    strong: HashMap<&'a str, Vec<Piece>>,
    weak: HashMap<&'a str, Vec<Piece>>,
    /// Per LLM message, its strong texts (for containment).
    msg_texts: Vec<Vec<(&'a str, &'static str)>>,
    pi_strings: &'static [(String, &'static str)],
}

fn add<'a>(
    map: &mut HashMap<&'a str, Vec<Piece>>,
    text: &'a str,
    owner: Owner,
    part: &'static str,
) {
    if text.is_empty() {
        return;
    }
    let v = map.entry(text).or_default();
    if v.len() < 64 && !v.iter().any(|p| p.owner == owner) {
        v.push(Piece { owner, part });
    }
}

fn collect_strings<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Array(a) => a.iter().for_each(|x| collect_strings(x, out)),
        Value::Object(o) => o.iter().for_each(|(_, x)| collect_strings(x, out)),
        _ => {}
    }
}

impl<'a> Index<'a> {
    fn build(
        a: &'a Assembly,
        tool_args: &'a [Vec<String>],
        sanitized: &'a [(usize, String, &'static str)],
    ) -> Index<'a> {
        let p = &a.parts;
        let mut ix = Index {
            strong: HashMap::new(),
            weak: HashMap::new(),
            msg_texts: Vec::new(),
            pi_strings: a.pi.map_or(&[][..], |pi| pi.data.inserted_strings()),
        };
        for (i, m) in p.llm_messages.iter().enumerate() {
            let mut texts: Vec<(&'a str, &'static str)> = Vec::new();
            let owner = Owner::Msg(i);
            let role = m.get_str("role").unwrap_or("");
            let text_part = if role == "toolResult" {
                "tool-result"
            } else {
                "text"
            };
            match m.get("content") {
                Some(Value::String(s)) => texts.push((s, text_part)),
                Some(Value::Array(blocks)) => {
                    let mut call = 0;
                    for b in blocks {
                        match b.get_str("type") {
                            Some("text") => {
                                if let Some(t) = b.get_str("text") {
                                    texts.push((t, text_part));
                                }
                                if let Some(sig) = b.get_str("textSignature") {
                                    texts.push((sig, "signature"));
                                }
                            }
                            Some("thinking") => {
                                if let Some(t) = b.get_str("thinking") {
                                    texts.push((t, "thinking"));
                                }
                                if let Some(sig) = b.get_str("thinkingSignature") {
                                    texts.push((sig, "signature"));
                                }
                            }
                            Some("image") => {
                                if let Some(d) = b.get_str("data") {
                                    texts.push((d, "image"));
                                }
                            }
                            Some("toolCall") => {
                                if let Some(args) = tool_args.get(i).and_then(|v| v.get(call)) {
                                    texts.push((args.as_str(), "tool-arguments"));
                                }
                                call += 1;
                                if let Some(args) = b.get("arguments") {
                                    let mut strs = Vec::new();
                                    collect_strings(args, &mut strs);
                                    texts.extend(strs.into_iter().map(|s| (s, "tool-arguments")));
                                }
                                if let Some(sig) = b.get_str("thoughtSignature") {
                                    texts.push((sig, "signature"));
                                }
                                for k in ["id", "name"] {
                                    if let Some(s) = b.get_str(k) {
                                        add(&mut ix.weak, s, owner, "tool-call");
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
            for k in ["toolCallId", "toolName"] {
                if let Some(s) = m.get_str(k) {
                    add(&mut ix.weak, s, owner, "tool-result");
                }
            }
            for (t, part) in &texts {
                add(&mut ix.strong, t, owner, part);
            }
            ix.msg_texts.push(texts);
        }
        // A text with a lone surrogate is sent without it (the adapters' `sanitizeSurrogates`).
        for (i, t, part) in sanitized {
            add(&mut ix.strong, t, Owner::Msg(*i), part);
            if let Some(texts) = ix.msg_texts.get_mut(*i) {
                texts.push((t, part));
            }
        }
        for (k, part) in system_parts(a).iter().enumerate() {
            add(&mut ix.strong, part.2, Owner::System(k), "text");
        }
        for (i, t) in sent_tools(a).iter().enumerate() {
            add(
                &mut ix.strong,
                &t.description,
                Owner::Tool(i),
                "description",
            );
            add(&mut ix.weak, &t.name, Owner::Tool(i), "name");
        }
        // pi's strings: static, so they outlive `'a`.
        let pis: &'static [(String, &'static str)] =
            a.pi.map_or(&[][..], |pi| pi.data.inserted_strings());
        for (k, (_, s)) in pis.iter().enumerate() {
            if utf16_len(s) < 8 {
                continue;
            }
            add(&mut ix.strong, s, Owner::Pi(k), "inserted");
        }
        ix
    }
}

// ---------------------------------------------------------------------------------------------
// The walk.
// ---------------------------------------------------------------------------------------------

struct Node<'v> {
    parent: Option<usize>,
    path: String,
    /// The key of this node in its parent (array indices as text).
    key: String,
    value: &'v Value,
    /// Index of the top-level key this node sits under (None for the root).
    top: Option<usize>,
    /// A tool definition object or a node inside one.
    tool: Option<usize>,
    /// Inside a cache marker (`cache_control`, `cachePoint`, `prompt_cache_key`, ...).
    cache: Option<String>,
}

fn is_cache_key(k: &str) -> bool {
    k.as_bytes()
        .windows(5)
        .any(|w| w.eq_ignore_ascii_case(b"cache"))
}

fn has_schema(v: &Value, depth: usize) -> bool {
    match v {
        Value::Object(o) => {
            if o.contains_key("properties") || o.get_str("type") == Some("object") {
                return true;
            }
            depth > 0 && o.iter().any(|(_, x)| has_schema(x, depth - 1))
        }
        _ => false,
    }
}

/// A tool definition: an object whose `name` is an active tool's (any casing) and that carries
/// the tool's description or a JSON schema.
fn tool_def(o: &Object, a: &Assembly) -> Option<usize> {
    let name = o.get_str("name")?;
    let tools = sent_tools(a);
    let desc = o.get_str("description");
    let i = tools
        .iter()
        .position(|t| t.name == name && desc == Some(t.description.as_str()))
        .or_else(|| tools.iter().position(|t| t.name == name))
        .or_else(|| tools.iter().position(|t| t.name.eq_ignore_ascii_case(name)))?;
    let t = &tools[i];
    let described = o.get_str("description").is_some_and(|d| d == t.description);
    let schema = o.iter().any(|(k, v)| k != "name" && has_schema(v, 2));
    (described || schema).then_some(i)
}

/// The tools the request sends: 0.86 on, once it is built, the transcript's declarations (the
/// current ones first, then every earlier definition).
pub fn sent_tools(a: &Assembly) -> &[crate::tools::ToolDef] {
    if a.parts.sent_system.is_some() {
        &a.parts.every_declared_tool
    } else {
        &a.parts.tools
    }
}

/// The system texts the request sends, each `(start, end, text)` in `Parts.system_prompt`: the
/// whole prompt, or 0.86 on each system message as sent (the first and the updates kept in
/// place).
fn system_parts(a: &Assembly) -> Vec<(usize, usize, &str)> {
    let sp = &a.parts.system_prompt;
    match &a.parts.sent_system {
        Some(sent) => sent
            .messages
            .iter()
            .flat_map(|m| m.strings.iter())
            .map(|(a, b, t)| (*a, *b, t.as_str()))
            .collect(),
        None if sp.text.is_empty() => Vec::new(),
        None => vec![(0, utf16_len(&sp.text), sp.text.as_str())],
    }
}

fn walk<'v>(a: &Assembly, v: &'v Value, nodes: &mut Vec<Node<'v>>) {
    // Iterative pre-order walk (deep JSON must not overflow the stack).
    nodes.push(Node {
        parent: None,
        path: String::new(),
        key: String::new(),
        value: v,
        top: None,
        tool: None,
        cache: None,
    });
    let mut stack: Vec<usize> = vec![0];
    while let Some(n) = stack.pop() {
        let value = nodes[n].value;
        if !matches!(value, Value::Object(_) | Value::Array(_)) {
            continue;
        }
        let is_array = matches!(value, Value::Array(_));
        let (parent_path, parent_top, parent_tool, parent_cache) = {
            let p = &nodes[n];
            (p.path.clone(), p.top, p.tool, p.cache.clone())
        };
        let first = nodes.len();
        let child = |k: String, x: &'v Value, nodes: &mut Vec<Node<'v>>| {
            let path = if parent_path.is_empty() {
                k.clone()
            } else {
                let mut p = String::with_capacity(parent_path.len() + 1 + k.len());
                p.push_str(&parent_path);
                p.push('.');
                p.push_str(&k);
                p
            };
            let top = parent_top.or(if n == 0 { Some(nodes.len()) } else { None });
            let cache = parent_cache
                .clone()
                .or_else(|| (!is_array && is_cache_key(&k)).then(|| k.clone()));
            let tool = parent_tool.or_else(|| {
                if cache.is_none() {
                    x.as_object().and_then(|o| tool_def(o, a))
                } else {
                    None
                }
            });
            nodes.push(Node {
                parent: Some(n),
                path,
                key: k,
                value: x,
                top,
                tool,
                cache,
            });
        };
        match value {
            Value::Object(o) => {
                for (k, x) in o.iter() {
                    child(k.to_string(), x, nodes);
                }
            }
            Value::Array(arr) => {
                for (i, x) in arr.iter().enumerate() {
                    child(i.to_string(), x, nodes);
                }
            }
            _ => unreachable!("containers only"),
        }
        for c in (first..nodes.len()).rev() {
            stack.push(c);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Message references.
// ---------------------------------------------------------------------------------------------

/// For each LLM message, the agent message it came from (`convertToLlm` keeps or converts one
/// by one and drops excluded bash runs and unknown roles: CA/core/messages.js:75–122).
pub fn llm_to_agent_indices(a: &Assembly) -> Vec<usize> {
    match &a.pi {
        Some(pi) => agent_indices(pi, &a.parts.agent_messages),
        None => Vec::new(),
    }
}

/// [`llm_to_agent_indices`] for `agent` messages (0.86 on, system messages pass too).
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

/// Top-level keys whose members are separate parameters.
const CONTAINERS: [&str; 5] = [
    "generationConfig",
    "inferenceConfig",
    "additionalModelRequestFields",
    "providerOptions",
    "config",
];

fn param_name(nodes: &[Node], n: usize) -> String {
    let node = &nodes[n];
    if let Some(c) = &node.cache {
        return c.clone();
    }
    let mut parts: Vec<&str> = node.path.split('.').collect();
    parts.truncate(if CONTAINERS.contains(&parts[0]) { 2 } else { 1 });
    parts.join(".")
}

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

fn pick(cands: &[Piece], cursor: usize) -> Piece {
    let mut best_after: Option<Piece> = None;
    let mut best_before: Option<Piece> = None;
    let mut other: Option<Piece> = None;
    for p in cands {
        match p.owner {
            Owner::Msg(i) if i >= cursor => {
                if best_after.is_none_or(|b| matches!(b.owner, Owner::Msg(j) if i < j)) {
                    best_after = Some(*p);
                }
            }
            Owner::Msg(i) => {
                if best_before.is_none_or(|b| matches!(b.owner, Owner::Msg(j) if i > j)) {
                    best_before = Some(*p);
                }
            }
            _ => {
                if other.is_none() {
                    other = Some(*p);
                }
            }
        }
    }
    best_after.or(other).or(best_before).unwrap_or(cands[0])
}

/// The messages' texts that hold a lone surrogate, as the adapters send them (without it):
/// `(message, text, part)`.
fn sanitized_texts(a: &Assembly) -> Vec<(usize, String, &'static str)> {
    let mut out = Vec::new();
    for (i, m) in a.parts.llm_messages.iter().enumerate() {
        let role = m.get_str("role").unwrap_or("");
        let text_part = if role == "toolResult" {
            "tool-result"
        } else {
            "text"
        };
        let mut push = |t: &str, part: &'static str| {
            if let std::borrow::Cow::Owned(s) = crate::js::sanitize_surrogates(t) {
                out.push((i, s, part));
            }
        };
        match m.get("content") {
            Some(Value::String(s)) => push(s, text_part),
            Some(Value::Array(blocks)) => {
                for b in blocks {
                    if let Some(t) = b.get_str("text") {
                        push(t, text_part);
                    }
                    if let Some(t) = b.get_str("thinking") {
                        push(t, "thinking");
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Every leaf of the request's params, and every top-level parameter, with its source. Empty
/// when no request was built.
pub fn provenance(a: &Assembly) -> Vec<Origin> {
    let Some(req) = &a.request else {
        return Vec::new();
    };
    // `JSON.stringify(arguments)` per tool call, built once so the index can borrow it.
    let tool_args: Vec<Vec<String>> = a
        .parts
        .llm_messages
        .iter()
        .map(|m| {
            m.get("content")
                .and_then(Value::as_array)
                .map(|bs| {
                    bs.iter()
                        .filter(|b| b.get_str("type") == Some("toolCall"))
                        .map(|b| b.get("arguments").map(Value::to_json).unwrap_or_default())
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect();
    let sanitized = sanitized_texts(a);
    let ix = Index::build(a, &tool_args, &sanitized);
    let map = llm_to_agent_indices(a);
    // The body as sent (some adapters move params out of the body: betas into a header, the
    // model id into the URL), so paths are paths into the bytes.
    let params;
    let body = match a.body_value() {
        Some(b) => b,
        None => {
            params = req.params.clone();
            &params
        }
    };
    let mut nodes: Vec<Node> = Vec::new();
    walk(a, body, &mut nodes);
    let n_nodes = nodes.len();

    // Phase 1: exact matches of string leaves (messages, system prompt, descriptions, pi's
    // strings), in walk order so a repeated short text goes to the nearest next message.
    let mut matched: Vec<Option<(Piece, Match, usize)>> = vec![None; n_nodes];
    let mut cursor = 0usize;
    let mut msg_order: Vec<(usize, usize)> = Vec::new(); // (node, message) in walk order
    for n in 0..n_nodes {
        let node = &nodes[n];
        if node.tool.is_some() || node.cache.is_some() {
            continue;
        }
        let Value::String(s) = node.value else {
            continue;
        };
        let key: &str = match s
            .strip_prefix("data:")
            .and_then(|r| r.split_once(";base64,"))
        {
            Some((_, data)) if !ix.strong.contains_key(s.as_str()) => data,
            _ => s,
        };
        let top = node.parent == Some(0);
        let cands: Option<Vec<Piece>> = ix.strong.get(key).map(|c| {
            c.iter()
                .copied()
                .filter(|p| !top || !matches!(p.owner, Owner::Pi(_)))
                .collect()
        });
        if let Some(c) = cands.filter(|c| !c.is_empty()) {
            let p = pick(&c, cursor);
            if let Owner::Msg(i) = p.owner {
                cursor = i;
                msg_order.push((n, i));
            }
            matched[n] = Some((p, Match::Exact, 0));
        }
    }

    // Phase 1b: containment for the leaves left, against the messages between the nearest
    // matched neighbours in walk order, the system prompt and pi's strings.
    let parts = system_parts(a);
    let mut k = 0usize; // position in msg_order
    for n in 0..n_nodes {
        while k < msg_order.len() && msg_order[k].0 < n {
            k += 1;
        }
        if matched[n].is_some()
            || nodes[n].tool.is_some()
            || nodes[n].cache.is_some()
            || nodes[n].parent == Some(0)
        {
            continue;
        }
        let Value::String(s) = nodes[n].value else {
            continue;
        };
        if s.len() < 8 {
            continue;
        }
        let within = parts.iter().enumerate().find_map(|(k, (_, _, sp))| {
            (!sp.is_empty() && s.len() > sp.len())
                .then(|| s.find(sp))
                .flatten()
                .map(|pos| (k, pos))
        });
        if let Some((k, pos)) = within {
            matched[n] = Some((
                Piece {
                    owner: Owner::System(k),
                    part: "text",
                },
                Match::Contains,
                utf16_len(&s[..pos]),
            ));
            continue;
        }
        let prev = k.checked_sub(1).and_then(|j| msg_order.get(j)).map(|x| x.1);
        let next = msg_order.get(k).map(|x| x.1);
        let (lo, hi) = match (prev, next) {
            (Some(p), Some(q)) => (p.min(q), p.max(q) + 1),
            (Some(p), None) => (p, p + 3),
            (None, Some(q)) => (q.saturating_sub(2), q + 1),
            (None, None) => (0, 4),
        };
        let hi = hi.min(ix.msg_texts.len()).min(lo + 16);
        let mut found = None;
        'outer: for i in lo..hi {
            for (t, part) in &ix.msg_texts[i] {
                // A signature is opaque: only ever sent whole.
                if *part == "signature" {
                    continue;
                }
                if (t.len() >= 4 && s.contains(t)) || (s.len() >= 16 && t.contains(s.as_str())) {
                    found = Some(Piece {
                        owner: Owner::Msg(i),
                        part,
                    });
                    break 'outer;
                }
            }
        }
        if found.is_none() {
            found = ix
                .pi_strings
                .iter()
                .enumerate()
                .find(|(_, (_, t))| t.len() >= 8 && s.contains(t))
                .map(|(i, _)| Piece {
                    owner: Owner::Pi(i),
                    part: "inserted",
                });
        }
        if let Some(p) = found {
            matched[n] = Some((p, Match::Contains, 0));
        }
    }

    // Phase 2: owners per node, bottom-up (children come after their parent).
    let mut owners: Vec<Vec<Owner>> = vec![Vec::new(); n_nodes];
    for n in (1..n_nodes).rev() {
        if let Some((p, _, _)) = matched[n] {
            if !owners[n].contains(&p.owner) {
                owners[n].push(p.owner);
            }
        }
        if let (Some(t), None) = (nodes[n].tool, &nodes[n].cache) {
            if !owners[n].contains(&Owner::Tool(t)) {
                owners[n].push(Owner::Tool(t));
            }
        }
        if nodes[n].cache.is_some() {
            owners[n].clear();
        }
        if let Some(parent) = nodes[n].parent {
            if parent != 0 {
                let mine = std::mem::take(&mut owners[n]);
                for o in &mine {
                    if owners[parent].len() < 32 && !owners[parent].contains(o) {
                        owners[parent].push(*o);
                    }
                }
                owners[n] = mine;
            }
        }
    }

    // Phase 3: every leaf and every top-level key gets an origin.
    let tool_source = |i: usize, part: &'static str| {
        let t = &sent_tools(a)[i];
        Source::Tool {
            name: t.name.clone(),
            builtin: matches!(t.source, ToolSource::Builtin),
            part,
        }
    };
    let pis = a.pi.map_or(&[][..], |pi| pi.data.inserted_strings());
    let from_owner = |o: Owner, part: &'static str, offset: usize, structure: bool| -> Source {
        match o {
            Owner::Msg(i) => Source::Message(message_ref(
                a,
                &map,
                i,
                if structure { "structure" } else { part },
            )),
            Owner::System(k) => Source::SystemPrompt {
                sections: if structure {
                    Vec::new()
                } else {
                    sections_at(a, (parts[k].0, parts[k].1), offset)
                },
            },
            Owner::Tool(i) => tool_source(i, if structure { "schema" } else { part }),
            Owner::Pi(k) => Source::Inserted {
                key: pis[k].0.clone(),
                text: pis[k].1.to_string(),
            },
        }
    };
    let mut out = Vec::with_capacity(n_nodes);
    let mut params_cache: HashMap<String, (String, Option<String>)> = HashMap::new();
    let param = |cache: &mut HashMap<String, (String, Option<String>)>, name: String| -> Source {
        let (rule, pi_source) = cache
            .entry(name.clone())
            .or_insert_with(|| param_rule(a, &name))
            .clone();
        Source::Parameter {
            name,
            rule,
            pi_source,
        }
    };
    for n in 1..n_nodes {
        let node = &nodes[n];
        let is_leaf = !matches!(node.value, Value::Object(_) | Value::Array(_));
        let is_top = node.parent == Some(0);
        if !is_leaf && !is_top {
            continue;
        }
        let chars = match node.value {
            Value::String(s) => utf16_len(s),
            _ => 0,
        };
        if node.cache.is_some() {
            out.push(Origin {
                path: node.path.clone(),
                source: param(&mut params_cache, param_name(&nodes, n)),
                matched: Match::Rule,
                chars,
            });
            continue;
        }
        if !is_leaf {
            // A top-level container: what it holds.
            let os = &owners[n];
            let source = if os.iter().any(|o| matches!(o, Owner::System(_)))
                && !os
                    .iter()
                    .any(|o| matches!(o, Owner::Msg(_) | Owner::Tool(_)))
            {
                Source::SystemPrompt {
                    sections: Vec::new(),
                }
            } else {
                let name = node.key.clone();
                let msgs = os.iter().filter(|o| matches!(o, Owner::Msg(_))).count();
                let tools = os.iter().filter(|o| matches!(o, Owner::Tool(_))).count();
                let (rule, pi_source) = if msgs > 0 {
                    (format!("the conversation: {} LLM messages after convertToLlm, transformed and converted by the adapter", a.parts.llm_messages.len()), a.trace.stage(StageId::ConvertMessages).map(|s| s.pi_source.to_string()))
                } else if tools > 0 {
                    (
                        tools_rule(a),
                        a.trace
                            .stage(StageId::AgentContext)
                            .map(|s| s.pi_source.to_string()),
                    )
                } else {
                    params_cache
                        .entry(name.clone())
                        .or_insert_with(|| param_rule(a, &name))
                        .clone()
                };
                Source::Parameter {
                    name,
                    rule,
                    pi_source,
                }
            };
            out.push(Origin {
                path: node.path.clone(),
                source,
                matched: Match::Rule,
                chars,
            });
            continue;
        }
        if let Some(t) = node.tool {
            let part = match (node.key.as_str(), node.value.as_str()) {
                ("name", Some(s)) if s.eq_ignore_ascii_case(&sent_tools(a)[t].name) => "name",
                ("description", Some(s)) if s == sent_tools(a)[t].description => "description",
                _ => "schema",
            };
            let m = if part == "schema" {
                Match::Structure
            } else {
                Match::Exact
            };
            out.push(Origin {
                path: node.path.clone(),
                source: tool_source(t, part),
                matched: m,
                chars,
            });
            continue;
        }
        if let Some((p, m, offset)) = matched[n] {
            out.push(Origin {
                path: node.path.clone(),
                source: from_owner(p.owner, p.part, offset, false),
                matched: m,
                chars,
            });
            continue;
        }
        // The nearest enclosing object below the top level with owners.
        let mut anc = node.parent;
        let mut source = None;
        while let Some(x) = anc {
            if x == 0 {
                break;
            }
            let os = &owners[x];
            if os.len() == 1 {
                source = Some(from_owner(os[0], "structure", 0, true));
                break;
            }
            if os.len() > 1 {
                let mut idx: Vec<usize> = os
                    .iter()
                    .filter_map(|o| {
                        if let Owner::Msg(i) = o {
                            Some(*i)
                        } else {
                            None
                        }
                    })
                    .collect();
                idx.sort_unstable();
                let msgs: Vec<MessageRef> = idx
                    .into_iter()
                    .map(|i| message_ref(a, &map, i, "structure"))
                    .collect();
                source = Some(match msgs.len() {
                    0 => from_owner(os[0], "structure", 0, true),
                    1 => Source::Message(
                        msgs.into_iter()
                            .next()
                            .unwrap_or_else(|| message_ref(a, &map, 0, "structure")),
                    ),
                    _ => Source::Messages(msgs),
                });
                break;
            }
            anc = nodes[x].parent;
        }
        if let Some(source) = source {
            out.push(Origin {
                path: node.path.clone(),
                source,
                matched: Match::Structure,
                chars,
            });
            continue;
        }
        // Weak matches (ids, names) outside any owned object.
        if let Some(s) = node.value.as_str().filter(|_| node.parent != Some(0)) {
            if let Some(c) = ix.weak.get(s) {
                let p = pick(c, cursor);
                out.push(Origin {
                    path: node.path.clone(),
                    source: from_owner(p.owner, p.part, 0, false),
                    matched: Match::Exact,
                    chars,
                });
                continue;
            }
        }
        out.push(Origin {
            path: node.path.clone(),
            source: param(&mut params_cache, param_name(&nodes, n)),
            matched: Match::Rule,
            chars,
        });
    }
    out
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

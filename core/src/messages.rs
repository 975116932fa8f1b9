//! Message conversion before the adapter: the new user message, `convertToLlm`,
//! `transformMessages`, the token estimate and the max-token clamp.
//!
//! Everything here is a port of pi's JS with JS semantics kept: `undefined` members are absent
//! keys, arithmetic on a missing number gives `NaN` (which `Math.min`/`Math.max` propagate),
//! string lengths are UTF-16 units, and spreads keep the key positions of the object spread.

use std::collections::HashMap;

use crate::context::LlmContext;
use crate::js::{utf16_len, Object, Value};
use crate::model::Model;
use crate::pi::Pi;
use crate::protocols::body::{self, Kind};
use crate::tools::ToolDef;
use crate::trace::{Event, EventKind, Events, StageId};

use crate::js::{js_max, js_min, to_js_string, to_number};

/// `v.length` as a number: UTF-16 length of a string, length of an array, `NaN` otherwise
/// (where JS would get `undefined`, or throw on `null`/`undefined`).
fn js_length(v: Option<&Value>) -> f64 {
    match v {
        Some(Value::String(s)) => utf16_len(s) as f64,
        Some(Value::Array(a)) => a.len() as f64,
        _ => f64::NAN,
    }
}

/// `a + b` on numbers.
fn js_add(a: Option<&Value>, b: Option<&Value>) -> f64 {
    to_number(a) + to_number(b)
}

fn role_of(m: &Value) -> Option<&str> {
    m.get_str("role")
}

/// `block.type === t`.
fn is_type(block: &Value, t: &str) -> bool {
    block.get_str("type") == Some(t)
}

fn text_block(text: impl Into<String>) -> Value {
    Value::Object(Object::new().with("type", "text").with("text", text.into()))
}

// ---------------------------------------------------------------------------------------------
// This turn's input.
// ---------------------------------------------------------------------------------------------

/// The new prompt: `{role:"user", content:[{type:"text", text}, ...images], timestamp}`.
pub fn user_message(text: &str, images: Vec<Value>, now_ms: f64) -> Value {
    let mut content = vec![Value::Object(
        Object::new().with("type", "text").with("text", text),
    )];
    content.extend(images);
    Value::Object(
        Object::new()
            .with("role", "user")
            .with("content", Value::Array(content))
            .with("timestamp", now_ms),
    )
}

/// The system message a run starts with when the prompt's sections differ from the transcript's
/// (`_preparePromptAndToolLoadout`, CA/core/agent-session.js:1394–1400):
/// `{role:"system", content:"", sections: <the patch>, timestamp}`, `None` when nothing changed.
pub fn system_patch(
    pi: &Pi,
    context: &[Value],
    sections: &Object,
    timestamp: f64,
) -> Option<Value> {
    let replay = crate::transcript::current_system_message(pi, context);
    let previous = replay
        .as_ref()
        .and_then(|m| m.get("sections"))
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let patch = crate::prompt::sections::diff(&previous, sections)?;
    Some(Value::Object(
        Object::new()
            .with("role", "system")
            .with("content", "")
            .with("sections", Value::Object(patch))
            .with("timestamp", timestamp),
    ))
}

/// `withToolChanges(message, changes)` (CORE/agent-loop.js:255–262): the message without its
/// tool fields, then `toolsAdded` and `toolsRemoved` when not empty.
fn with_tool_changes(message: &Value, added: &[Value], removed: &[Value]) -> Value {
    let mut o = Object::new();
    if let Some(m) = message.as_object() {
        for (k, v) in m.iter() {
            if k.as_str() != "toolsAdded" && k.as_str() != "toolsRemoved" {
                o.insert(k.clone(), v.clone());
            }
        }
    }
    if !added.is_empty() {
        o.insert("toolsAdded", Value::Array(added.to_vec()));
    }
    if !removed.is_empty() {
        o.insert("toolsRemoved", Value::Array(removed.to_vec()));
    }
    Value::Object(o)
}

/// `declareToolChanges(context, pendingMessages)` (CORE/agent-loop.js:224–254): the
/// difference between the tools the transcript declares and the active tools becomes the tool
/// fields of the last pending system message, or of a new system message before the first
/// pending message that is not one.
pub fn declare_tool_changes(
    context: &[Value],
    tools: &[ToolDef],
    pending: Vec<Value>,
    timestamp: f64,
) -> Vec<Value> {
    let system_index = pending.iter().rposition(|m| role_of(m) == Some("system"));
    let baseline: Vec<Value> = match system_index {
        Some(i) => pending
            .iter()
            .enumerate()
            .map(|(k, m)| {
                if k == i {
                    with_tool_changes(m, &[], &[])
                } else {
                    m.clone()
                }
            })
            .collect(),
        None => pending.clone(),
    };
    let declared: Vec<Value> = context.iter().chain(&baseline).cloned().collect();
    let current: Vec<Value> = tools
        .iter()
        .map(crate::transcript::tool_declaration)
        .collect();
    let (added, removed) = crate::transcript::tool_state_changes(
        &crate::transcript::current_tools(&declared),
        &current,
    );
    let unchanged = added.is_empty() && removed.is_empty();
    match system_index {
        Some(i) => {
            let p = &pending[i];
            let has_fields = ["toolsAdded", "toolsRemoved"].iter().any(|k| {
                p.get(k)
                    .and_then(Value::as_array)
                    .is_some_and(|a| !a.is_empty())
            });
            if unchanged && !has_fields {
                return pending;
            }
            let mut out = baseline;
            out[i] = with_tool_changes(&pending[i], &added, &removed);
            out
        }
        None if unchanged => pending,
        None => {
            let update = with_tool_changes(
                &Value::Object(
                    Object::new()
                        .with("role", "system")
                        .with("content", "")
                        .with("timestamp", timestamp),
                ),
                &added,
                &removed,
            );
            let at = pending
                .iter()
                .position(|m| role_of(m) != Some("system"))
                .unwrap_or(pending.len());
            let mut out = pending;
            out.insert(at, update);
            out
        }
    }
}

// ---------------------------------------------------------------------------------------------
// convertToLlm (CA/core/messages.js) and the blockImages wrapper (CA/core/sdk.js).
// ---------------------------------------------------------------------------------------------

/// `bashExecutionToText(msg)` (CA/core/messages.js:21–39).
pub fn bash_execution_to_text(pi: &Pi, msg: &Value) -> String {
    let s = |k: &str| pi.data.string("messages", k);
    let mut text = format!(
        "{}{}{}",
        s("bashRanPrefix"),
        to_js_string(msg.get("command")),
        s("bashCommandSuffix")
    );
    match msg.get("output") {
        Some(out) if out.truthy() => {
            text.push_str(s("bashOutputOpen"));
            text.push_str(&to_js_string(Some(out)));
            text.push_str(s("bashOutputClose"));
        }
        _ => text.push_str(s("bashNoOutput")),
    }
    let exit_code = msg.get("exitCode");
    if msg.get("cancelled").is_some_and(Value::truthy) {
        text.push_str(s("bashCancelled"));
    } else if let Some(code) = exit_code.filter(|c| !c.is_null() && c.as_f64() != Some(0.0)) {
        text.push_str(s("bashExitCodePrefix"));
        text.push_str(&to_js_string(Some(code)));
    }
    if msg.get("truncated").is_some_and(Value::truthy) {
        if let Some(path) = msg.get("fullOutputPath").filter(|p| p.truthy()) {
            text.push_str(s("bashTruncatedPrefix"));
            text.push_str(&to_js_string(Some(path)));
            text.push_str(s("bashTruncatedSuffix"));
        }
    }
    text
}

/// `{role:"user", content:[{type:"text", text}], timestamp: m.timestamp}`.
fn user_text_message(text: String, timestamp: Option<&Value>) -> Value {
    let mut o = Object::new()
        .with("role", "user")
        .with("content", Value::Array(vec![text_block(text)]));
    o.insert_opt("timestamp", timestamp.cloned());
    Value::Object(o)
}

/// `convertToLlm(messages)` (CA/core/messages.js:75–122).
pub fn convert_to_llm_messages(pi: &Pi, messages: &[Value], events: &mut Events) -> Vec<Value> {
    let s = |k: &str| pi.data.string("messages", k);
    let mut out = Vec::with_capacity(messages.len());
    for (i, m) in messages.iter().enumerate() {
        let role = role_of(m);
        match role {
            Some("bashExecution") => {
                if m.get("excludeFromContext").is_some_and(Value::truthy) {
                    events.push(
                        Event::new(
                            EventKind::Dropped,
                            format!("message {i}: bashExecution excluded from context (`!!`)"),
                        )
                        .at("CA/core/messages.js:81"),
                    );
                    continue;
                }
                out.push(user_text_message(
                    bash_execution_to_text(pi, m),
                    m.get("timestamp"),
                ));
                events.push(
                    Event::new(
                        EventKind::Converted,
                        format!("message {i}: bashExecution → user"),
                    )
                    .at("CA/core/messages.js:84"),
                );
            }
            Some("custom") => {
                let content = match m.get("content") {
                    Some(Value::String(text)) => Some(Value::Array(vec![text_block(text.clone())])),
                    other => other.cloned(),
                };
                let mut o = Object::new().with("role", "user");
                o.insert_opt("content", content);
                o.insert_opt("timestamp", m.get("timestamp").cloned());
                out.push(Value::Object(o));
                let kind = m
                    .get_str("customType")
                    .map(|t| format!(" ({t})"))
                    .unwrap_or_default();
                events.push(
                    Event::new(
                        EventKind::Converted,
                        format!("message {i}: custom{kind} → user"),
                    )
                    .at("CA/core/messages.js:89"),
                );
            }
            Some("branchSummary") => {
                let text = format!(
                    "{}{}{}",
                    s("branchSummaryPrefix"),
                    to_js_string(m.get("summary")),
                    s("branchSummarySuffix")
                );
                out.push(user_text_message(text, m.get("timestamp")));
                events.push(
                    Event::new(
                        EventKind::Converted,
                        format!("message {i}: branchSummary → user"),
                    )
                    .at("CA/core/messages.js:97"),
                );
            }
            Some("compactionSummary") => {
                let text = format!(
                    "{}{}{}",
                    s("compactionSummaryPrefix"),
                    to_js_string(m.get("summary")),
                    s("compactionSummarySuffix")
                );
                out.push(user_text_message(text, m.get("timestamp")));
                events.push(
                    Event::new(
                        EventKind::Converted,
                        format!("message {i}: compactionSummary → user"),
                    )
                    .at("CA/core/messages.js:103"),
                );
            }
            Some("user" | "assistant" | "toolResult") => out.push(m.clone()),
            // 0.86 on: system messages pass as they are (:111).
            Some("system") if pi.rules.transcript => out.push(m.clone()),
            other => {
                events.push(
                    Event::new(
                        EventKind::Dropped,
                        format!(
                            "message {i}: unknown role {}",
                            other.map_or("(none)".into(), |r| format!("{r:?}"))
                        ),
                    )
                    .at("CA/core/messages.js:115"),
                );
            }
        }
    }
    out
}

/// `convertToLlmWithBlockImages` (CA/core/sdk.js:147–175): with `images.blockImages`, every
/// image in user and toolResult content becomes the "Image reading is disabled." text, and
/// consecutive copies of that text collapse into one.
pub fn block_images(pi: &Pi, messages: Vec<Value>, events: &mut Events) -> Vec<Value> {
    let disabled = pi.data.string("sdk", "imageReadingDisabled");
    let is_disabled_text = |c: &Value| is_type(c, "text") && c.get_str("text") == Some(disabled);
    messages
        .into_iter()
        .enumerate()
        .map(|(i, mut msg)| {
            if !matches!(role_of(&msg), Some("user" | "toolResult")) {
                return msg;
            }
            let Some(Value::Array(content)) = msg.get("content") else { return msg };
            let n_images = content.iter().filter(|c| is_type(c, "image")).count();
            if n_images == 0 {
                return msg;
            }
            let placeholder = || Value::Object(body::text_of(Object::new().with("type", "text").with("text", disabled), &msg));
            let mapped: Vec<Value> =
                content.iter().map(|c| if is_type(c, "image") { placeholder() } else { c.clone() }).collect();
            let filtered: Vec<Value> = mapped
                .iter()
                .enumerate()
                .filter(|(k, c)| !(is_disabled_text(c) && *k > 0 && is_disabled_text(&mapped[k - 1])))
                .map(|(_, c)| c.clone())
                .collect();
            events.push(
                Event::new(EventKind::Replaced, format!("message {i}: {n_images} image(s) replaced by {disabled:?} (images.blockImages)"))
                    .at("CA/core/sdk.js:160"),
            );
            if let Some(o) = msg.as_object_mut() {
                o.insert("content", Value::Array(filtered));
            }
            msg
        })
        .collect()
}

/// `convertToLlm` (CA/core/messages.js:75–122) with the `images.blockImages` wrapper.
pub fn convert_to_llm(
    pi: &Pi,
    messages: &[Value],
    block_images_setting: bool,
    events: &mut Events,
) -> Vec<Value> {
    let converted = convert_to_llm_messages(pi, messages, events);
    if !block_images_setting {
        return converted;
    }
    block_images(pi, converted, events)
}

// ---------------------------------------------------------------------------------------------
// transformMessages (AI/api/transform-messages.js).
// ---------------------------------------------------------------------------------------------

/// An adapter's tool-call id normalizer: `(id, target model, source assistant message) → id`.
pub type NormalizeToolCallId<'a> = &'a dyn Fn(&str, &Model, &Value) -> String;

/// `replaceImagesWithPlaceholder(content, placeholder)` (AI/api/transform-messages.js:3–18).
/// Returns the new content and how many images were replaced.
fn replace_images_with_placeholder(
    content: &Value,
    placeholder: &str,
    mark: crate::js::Mark,
) -> (Value, usize) {
    // `for (const block of content)`: a string iterates by code point.
    let blocks: Vec<Value> = match content {
        Value::Array(a) => a.clone(),
        Value::String(s) => s
            .chars()
            .map(|c| Value::String(c.to_string().into()))
            .collect(),
        other => return (other.clone(), 0),
    };
    let mut result = Vec::with_capacity(blocks.len());
    let mut previous_was_placeholder = false;
    let mut replaced = 0;
    for block in blocks {
        if is_type(&block, "image") {
            if !previous_was_placeholder {
                let block = Object::new().with("type", "text").with("text", placeholder);
                result.push(block.marked(mark).into());
            }
            previous_was_placeholder = true;
            replaced += 1;
            continue;
        }
        previous_was_placeholder = block.get_str("text") == Some(placeholder);
        result.push(block);
    }
    (Value::Array(result), replaced)
}

/// What `splitErrorToolResultImages` returns for an error tool result with images.
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorToolResultImages {
    /// The result's content with each run of images replaced by one placeholder text.
    pub content: Value,
    /// `Images from the error result of tool call ${toolCallId} (${toolName}):`.
    pub caption: String,
    /// The image blocks, in order.
    pub images: Vec<Value>,
}

/// `splitErrorToolResultImages(msg)` (1.6.0/AI/api/transform-messages.js:10–21; 1.3.0): the
/// images of an error tool result, for the APIs that reject images there (Anthropic, Claude on
/// Bedrock), which send them after all tool results of the turn. `None` for a result that is not
/// an error or has no image; `Err` where pi throws (content that is not an array).
pub fn split_error_tool_result_images(
    pi: &Pi,
    msg: &Value,
) -> Result<Option<ErrorToolResultImages>, String> {
    if !msg.get("isError").is_some_and(Value::truthy) {
        return Ok(None);
    }
    let Some(content) = msg.get("content").and_then(Value::as_array) else {
        return Err("msg.content.filter is not a function (pi throws a TypeError)".into());
    };
    let images: Vec<Value> = content
        .iter()
        .filter(|b| is_type(b, "image"))
        .cloned()
        .collect();
    if images.is_empty() {
        return Ok(None);
    }
    let s = |k: &str| pi.data.string("transformMessages", k);
    let (content, _) = replace_images_with_placeholder(
        msg.get("content").unwrap_or(&Value::Null),
        s("errorToolImagePlaceholder"),
        body::inserted_in(pi, "transformMessages.errorToolImagePlaceholder", msg).mark(),
    );
    let caption = s("errorToolImagesCaption")
        .replace("{id}", &to_js_string(msg.get("toolCallId")))
        .replace("{toolName}", &to_js_string(msg.get("toolName")));
    Ok(Some(ErrorToolResultImages {
        content,
        caption,
        images,
    }))
}

/// `downgradeUnsupportedImages(messages, model)` (AI/api/transform-messages.js:19–38).
fn downgrade_unsupported_images(
    pi: &Pi,
    messages: Vec<Value>,
    model: &Model,
    events: &mut Events,
) -> Vec<Value> {
    if model.supports_images() {
        return messages;
    }
    let user_placeholder = pi
        .data
        .string("transformMessages", "nonVisionUserImagePlaceholder");
    let tool_placeholder = pi
        .data
        .string("transformMessages", "nonVisionToolImagePlaceholder");
    messages
        .into_iter()
        .enumerate()
        .map(|(i, mut msg)| {
            let placeholder = match (role_of(&msg), msg.get("content")) {
                (Some("user"), Some(Value::Array(_))) => user_placeholder,
                (Some("toolResult"), Some(_)) => tool_placeholder,
                _ => return msg,
            };
            let key = if placeholder == user_placeholder {
                "transformMessages.nonVisionUserImagePlaceholder"
            } else {
                "transformMessages.nonVisionToolImagePlaceholder"
            };
            let mark = body::inserted_in(pi, key, &msg).mark();
            let Some(o) = msg.as_object_mut() else { return msg };
            let Some(content) = o.get("content") else { return msg };
            let (content, replaced) = replace_images_with_placeholder(content, placeholder, mark);
            o.insert("content", content);
            if replaced > 0 {
                events.push(
                    Event::new(
                        EventKind::Replaced,
                        format!("message {i}: {replaced} image(s) replaced by {placeholder:?} ({} has no image input)", model.reference()),
                    )
                    .at("AI/api/transform-messages.js:19"),
                );
            }
            msg
        })
        .collect()
}

/// The first pass over one assistant message (AI/api/transform-messages.js:66–122).
fn transform_assistant(
    pi: &Pi,
    i: usize,
    msg: &Value,
    model: &Model,
    normalize: Option<NormalizeToolCallId>,
    id_map: &mut HashMap<String, String>,
    events: &mut Events,
) -> Value {
    let is_same_model = msg.get_str("provider") == Some(model.provider())
        && msg.get_str("api") == Some(model.api())
        && msg.get_str("model") == Some(model.id());
    // `assistantMsg.content.flatMap(...)` needs an array (pi would throw otherwise).
    let Some(content) = msg.get("content").and_then(Value::as_array) else {
        return msg.clone();
    };
    let a = AssistantBlocks {
        pi,
        i,
        msg,
        model,
        normalize,
        is_same_model,
    };
    let mut out: Vec<Value> = Vec::with_capacity(content.len());
    for (k, block) in content.iter().enumerate() {
        match block.get_str("type") {
            Some("thinking") => a.thinking(k, block, &mut out, events),
            Some("text") => a.text(k, block, &mut out, events),
            Some("toolCall") => a.tool_call(k, block, &mut out, id_map, events),
            _ => out.push(block.clone()),
        }
    }
    // `{...assistantMsg, content}` with every block kept as it was is the message itself: it
    // stays the same object (what later stages know of it holds).
    let unchanged = out.len() == content.len()
        && out.iter().zip(content).all(|(o, c)| match (o, c) {
            (Value::Object(o), Value::Object(c)) => o.same(c),
            _ => false,
        });
    if unchanged {
        return msg.clone();
    }
    let mut result = msg.clone();
    if let Some(o) = result.as_object_mut() {
        o.insert("content", Value::Array(out));
    }
    result
}

/// What assistant message `i`'s blocks are transformed with (AI/api/transform-messages.js:67–70).
struct AssistantBlocks<'a> {
    pi: &'a Pi,
    i: usize,
    msg: &'a Value,
    model: &'a Model,
    normalize: Option<NormalizeToolCallId<'a>>,
    /// `isSameModel`: the message is from the model the request is for.
    is_same_model: bool,
}

impl AssistantBlocks<'_> {
    /// The message's `provider/model`, for events.
    fn source(&self) -> String {
        let msg = self.msg;
        format!(
            "{}/{}",
            msg.get_str("provider").unwrap_or("?"),
            msg.get_str("model").unwrap_or("?")
        )
    }

    /// A thinking block (AI/api/transform-messages.js:72–91), pushed onto `out` if kept.
    fn thinking(&self, k: usize, block: &Value, out: &mut Vec<Value>, events: &mut Events) {
        let i = self.i;
        // 1.3.0 on: thinking from another model is dropped, whatever it holds.
        if self.pi.rules.drop_foreign_thinking && !self.is_same_model {
            events.push(
                Event::new(
                    EventKind::Dropped,
                    format!(
                        "message {i} block {k}: thinking from {} (other model)",
                        self.source()
                    ),
                )
                .at("1.6.0/AI/api/transform-messages.js:91"),
            );
            return;
        }
        if block.get("redacted").is_some_and(Value::truthy) {
            if self.is_same_model {
                out.push(block.clone());
            } else {
                events.push(
                    Event::new(
                        EventKind::Dropped,
                        format!(
                            "message {i} block {k}: redacted thinking from {} (other model)",
                            self.source()
                        ),
                    )
                    .at("AI/api/transform-messages.js:75"),
                );
            }
            return;
        }
        if self.is_same_model && block.get("thinkingSignature").is_some_and(Value::truthy) {
            out.push(block.clone());
            return;
        }
        let thinking = block.get("thinking");
        let empty = match thinking {
            None => true,
            Some(v) if !v.truthy() => true,
            Some(Value::String(s)) => crate::js::js_trim_is_empty(s),
            Some(_) => false,
        };
        if empty {
            events.push(
                Event::new(
                    EventKind::Dropped,
                    format!("message {i} block {k}: empty thinking"),
                )
                .at("AI/api/transform-messages.js:83"),
            );
            return;
        }
        if self.is_same_model {
            out.push(block.clone());
            return;
        }
        let mut o = body::text_of(Object::new(), self.msg).with("type", "text");
        o.insert_opt("text", thinking.cloned());
        out.push(Value::Object(o));
        events.push(
            Event::new(
                EventKind::Converted,
                format!(
                    "message {i} block {k}: thinking from {} → text",
                    self.source()
                ),
            )
            .at("AI/api/transform-messages.js:87"),
        );
    }

    /// A text block (AI/api/transform-messages.js:92–99).
    fn text(&self, k: usize, block: &Value, out: &mut Vec<Value>, events: &mut Events) {
        let i = self.i;
        if self.is_same_model {
            out.push(block.clone());
            return;
        }
        let mut o = body::like(Object::new(), block).with("type", "text");
        o.insert_opt("text", block.get("text").cloned());
        if block.get("textSignature").is_some() {
            events.push(
                Event::new(
                    EventKind::Dropped,
                    format!(
                        "message {i} block {k}: textSignature from {} stripped",
                        self.source()
                    ),
                )
                .at("AI/api/transform-messages.js:95"),
            );
        }
        out.push(Value::Object(o));
    }

    /// A tool call (AI/api/transform-messages.js:100–115): its id normalized (noted in `id_map`).
    fn tool_call(
        &self,
        k: usize,
        block: &Value,
        out: &mut Vec<Value>,
        id_map: &mut HashMap<String, String>,
        events: &mut Events,
    ) {
        let i = self.i;
        let mut tc = block.clone();
        if !self.is_same_model && block.get("thoughtSignature").is_some_and(Value::truthy) {
            if let Some(o) = tc.as_object_mut() {
                o.remove("thoughtSignature");
            }
            events.push(
                Event::new(
                    EventKind::Dropped,
                    format!(
                        "message {i} block {k}: thoughtSignature from {} removed",
                        self.source()
                    ),
                )
                .at("AI/api/transform-messages.js:103"),
            );
        }
        if let (false, Some(norm), Some(id)) =
            (self.is_same_model, self.normalize, block.get_str("id"))
        {
            let new_id = norm(id, self.model, self.msg);
            if new_id != id {
                id_map.insert(id.to_string(), new_id.clone());
                if let Some(o) = tc.as_object_mut() {
                    o.insert("id", Value::String(new_id.clone().into()));
                }
                events.push(
                    Event::new(
                        EventKind::Renamed,
                        format!("message {i} block {k}: tool-call id {id:?} → {new_id:?}"),
                    )
                    .at("AI/api/transform-messages.js:108"),
                );
            }
        }
        out.push(tc);
    }
}

/// The synthetic result for an orphaned tool call (AI/api/transform-messages.js:134–141).
fn synthetic_tool_result(pi: &Pi, tool_call: &Value, now_ms: f64) -> Value {
    let tag = body::inserted(pi, "transformMessages.missingToolResult", Kind::ToolResults);
    let mut o = Object::new().with("role", "toolResult").marked(tag.mark());
    o.insert_opt("toolCallId", tool_call.get("id").cloned());
    o.insert_opt("toolName", tool_call.get("name").cloned());
    let text = Object::new().with("type", "text").with(
        "text",
        pi.data.string("transformMessages", "missingToolResult"),
    );
    o.insert(
        "content",
        Value::Array(vec![text.marked(tag.mark()).into()]),
    );
    o.insert("isError", Value::Bool(true));
    o.insert("timestamp", Value::Number(now_ms));
    Value::Object(o)
}

/// `transformMessages` (AI/api/transform-messages.js:44–186). `now_ms` stamps the
/// synthetic "No result provided" results.
pub fn transform_messages(
    pi: &Pi,
    messages: &[Value],
    model: &Model,
    normalize: Option<NormalizeToolCallId>,
    now_ms: f64,
    events: &mut Events,
) -> Vec<Value> {
    events.within(StageId::TransformMessages, |events| {
        transform_messages_in(pi, messages, model, normalize, now_ms, events)
    })
}

fn transform_messages_in(
    pi: &Pi,
    messages: &[Value],
    model: &Model,
    normalize: Option<NormalizeToolCallId>,
    now_ms: f64,
    events: &mut Events,
) -> Vec<Value> {
    // `content == null` → `{...msg, content: []}`.
    let normalized: Vec<Value> = messages
        .iter()
        .map(|m| {
            let mut m = m.clone();
            if let Some(o) = m.as_object_mut() {
                if o.get("content").is_none_or(Value::is_null) {
                    o.insert("content", Value::Array(Vec::new()));
                }
            }
            m
        })
        .collect();
    let image_aware = downgrade_unsupported_images(pi, normalized, model, events);
    let transformed = first_pass(pi, image_aware, model, normalize, events);
    second_pass(pi, transformed, now_ms, events)
}

/// The first pass (AI/api/transform-messages.js:51–124): results renamed, assistants transformed.
fn first_pass(
    pi: &Pi,
    image_aware: Vec<Value>,
    model: &Model,
    normalize: Option<NormalizeToolCallId>,
    events: &mut Events,
) -> Vec<Value> {
    // First pass.
    // Source tool-call id → normalized id (a map: every id of a long session may be renamed).
    let mut id_map: HashMap<String, String> = HashMap::new();
    let mut transformed = Vec::with_capacity(image_aware.len());
    for (i, msg) in image_aware.into_iter().enumerate() {
        match role_of(&msg) {
            Some("toolResult") => transformed.push(rename_tool_result(i, msg, &id_map, events)),
            Some("assistant") => transformed.push(transform_assistant(
                pi,
                i,
                &msg,
                model,
                normalize,
                &mut id_map,
                events,
            )),
            _ => transformed.push(msg),
        }
    }

    transformed
}

/// A tool result's `toolCallId` renamed as its call's was (AI/api/transform-messages.js:58–64).
fn rename_tool_result(
    i: usize,
    msg: Value,
    id_map: &HashMap<String, String>,
    events: &mut Events,
) -> Value {
    let current = msg.get_str("toolCallId");
    let mapped = current.and_then(|id| id_map.get(id)).cloned();
    match mapped {
        Some(new_id) if !new_id.is_empty() && Some(new_id.as_str()) != current => {
            events.push(
                Event::new(
                    EventKind::Renamed,
                    format!(
                        "message {i}: toolResult toolCallId {:?} → {new_id:?}",
                        current.unwrap_or("")
                    ),
                )
                .at("AI/api/transform-messages.js:60"),
            );
            let mut m = msg;
            if let Some(o) = m.as_object_mut() {
                o.insert("toolCallId", Value::String(new_id.into()));
            }
            m
        }
        _ => msg,
    }
}

/// The second pass's state (AI/api/transform-messages.js:125–129): the messages so far, the
/// tool calls pending and the results met for them.
struct SecondPass<'a> {
    pi: &'a Pi,
    now_ms: f64,
    result: Vec<Value>,
    pending: Vec<Value>,
    existing: Vec<Option<Value>>,
    /// 0.86 on: system messages met while tool calls are pending wait until they are closed.
    held: Vec<Value>,
}

impl SecondPass<'_> {
    /// `insertSyntheticToolResults` (AI/api/transform-messages.js:130–147), then held messages.
    fn insert_synthetic(&mut self, events: &mut Events) {
        let (pi, now_ms) = (self.pi, self.now_ms);
        let SecondPass {
            result,
            pending,
            existing,
            held,
            ..
        } = self;
        if pending.is_empty() {
            result.append(held);
            return;
        }
        for tc in pending.iter() {
            let id = tc.get("id").cloned();
            if !existing.contains(&id) {
                result.push(synthetic_tool_result(pi, tc, now_ms));
                events.push(
                    Event::new(
                        EventKind::Inserted,
                        format!(
                            "synthetic error result for orphaned tool call {} ({})",
                            to_js_string(tc.get("id")),
                            to_js_string(tc.get("name"))
                        ),
                    )
                    .at("AI/api/transform-messages.js:134"),
                );
            }
        }
        pending.clear();
        existing.clear();
        if !held.is_empty() {
            events.push(
                Event::new(
                    EventKind::Moved,
                    format!(
                        "{} system message(s) between a tool call and its results moved after the results",
                        held.len()
                    ),
                )
                .at("1.6.0/AI/api/transform-messages.js:163"),
            );
        }
        result.append(held);
    }
}

/// The second pass (AI/api/transform-messages.js:125–185): errored turns out, orphans answered.
fn second_pass(pi: &Pi, transformed: Vec<Value>, now_ms: f64, events: &mut Events) -> Vec<Value> {
    // Second pass: drop errored turns, insert synthetic results for orphaned tool calls.
    let mut s = SecondPass {
        pi,
        now_ms,
        result: Vec::with_capacity(transformed.len()),
        pending: Vec::new(),
        existing: Vec::new(),
        held: Vec::new(),
    };
    for (i, msg) in transformed.into_iter().enumerate() {
        match role_of(&msg) {
            Some("assistant") => {
                s.insert_synthetic(events);
                let stop = msg.get_str("stopReason");
                if matches!(stop, Some("error" | "aborted")) {
                    events.push(
                        Event::new(
                            EventKind::Dropped,
                            format!(
                                "message {i}: assistant turn with stopReason {:?}",
                                stop.unwrap_or("")
                            ),
                        )
                        .at("AI/api/transform-messages.js:159"),
                    );
                    continue;
                }
                let tool_calls: Vec<Value> = msg
                    .get("content")
                    .and_then(Value::as_array)
                    .map(|c| {
                        c.iter()
                            .filter(|b| is_type(b, "toolCall"))
                            .cloned()
                            .collect()
                    })
                    .unwrap_or_default();
                if !tool_calls.is_empty() {
                    s.pending = tool_calls;
                    s.existing.clear();
                }
                s.result.push(msg);
            }
            Some("toolResult") => {
                s.existing.push(msg.get("toolCallId").cloned());
                s.result.push(msg);
            }
            Some("user") => {
                s.insert_synthetic(events);
                s.result.push(msg);
            }
            Some("system") if pi.rules.transcript && !s.pending.is_empty() => s.held.push(msg),
            _ => s.result.push(msg),
        }
    }
    s.insert_synthetic(events);
    s.result
}

// ---------------------------------------------------------------------------------------------
// The token estimate (AI/utils/estimate.js).
// ---------------------------------------------------------------------------------------------

/// `calculateContextTokens(usage)` (AI/utils/estimate.js:3–5):
/// `usage.totalTokens || usage.input + usage.output + usage.cacheRead + usage.cacheWrite`.
pub fn calculate_context_tokens(usage: Option<&Value>) -> f64 {
    let Some(usage) = usage.filter(|u| !u.is_null()) else {
        return f64::NAN;
    };
    if let Some(total) = usage.get("totalTokens").filter(|t| t.truthy()) {
        return to_number(Some(total));
    }
    js_add(usage.get("input"), usage.get("output"))
        + to_number(usage.get("cacheRead"))
        + to_number(usage.get("cacheWrite"))
}

/// `estimateTextAndImageContentChars(content)` (AI/utils/estimate.js:14–21).
fn estimate_text_and_image_content_chars(pi: &Pi, content: Option<&Value>) -> f64 {
    match content {
        Some(Value::String(s)) => utf16_len(s) as f64,
        Some(Value::Array(blocks)) => blocks
            .iter()
            .map(|b| {
                if is_type(b, "text") {
                    js_length(b.get("text"))
                } else {
                    pi.data.default_number("estimateImageChars")
                }
            })
            .sum(),
        _ => f64::NAN,
    }
}

/// `CHARS_PER_TOKEN` (AI/utils/estimate.js:1): 4 in 0.85, 3.5 from 1.1.0.
fn chars_per_token(pi: &Pi) -> f64 {
    pi.data.default_number("estimateCharsPerToken")
}

/// `estimateTextTokens(text)` (AI/utils/estimate.js:22–24).
pub fn estimate_text_tokens(pi: &Pi, text: &str) -> f64 {
    (utf16_len(text) as f64 / chars_per_token(pi)).ceil()
}

/// `estimateMessageTokens(message)` (AI/utils/estimate.js:28–46). 0.86 on, a system message
/// counts its text (`getSystemMessageText`) and the JSON of its tool declarations.
pub fn estimate_message_tokens(pi: &Pi, message: &Value) -> f64 {
    if pi.rules.transcript && role_of(message) == Some("system") {
        let tools = |k: &str| match message.get(k) {
            Some(Value::Array(a)) if !a.is_empty() => {
                estimate_text_tokens(pi, &Value::Array(a.clone()).to_json())
            }
            // `!tools || tools.length === 0`; a non-array is stringified as it is.
            Some(v) if v.truthy() && !matches!(v, Value::Array(_)) => {
                estimate_text_tokens(pi, &v.to_json())
            }
            _ => 0.0,
        };
        return estimate_text_tokens(pi, &crate::transcript::system_message_text(pi, message))
            + tools("toolsAdded")
            + tools("toolsRemoved");
    }
    if matches!(role_of(message), Some("user" | "toolResult")) {
        return (estimate_text_and_image_content_chars(pi, message.get("content"))
            / chars_per_token(pi))
        .ceil();
    }
    let Some(blocks) = message.get("content").and_then(Value::as_array) else {
        return f64::NAN;
    };
    let mut chars = 0.0;
    for block in blocks {
        chars += match block.get_str("type") {
            Some("text") => js_length(block.get("text")),
            Some("thinking") => js_length(block.get("thinking")),
            _ => {
                // `safeJsonStringify(block.arguments)`: `undefined` gives "undefined".
                let args_len = block
                    .get("arguments")
                    .map_or(9.0, |a| utf16_len(&a.to_json()) as f64);
                js_length(block.get("name")) + args_len
            }
        };
    }
    (chars / chars_per_token(pi)).ceil()
}

/// `getLastAssistantUsageInfo(messages)` (AI/utils/estimate.js:47–67): the index of the last
/// assistant whose usage still describes its prefix.
fn get_last_assistant_usage_index(messages: &[Value]) -> Option<usize> {
    let mut latest_prefix_timestamp = f64::NEG_INFINITY;
    let mut found = None;
    for (i, message) in messages.iter().enumerate() {
        if role_of(message) == Some("assistant") {
            // `assistant.timestamp >= latestPrefixTimestamp`: false for NaN on either side.
            let applies = to_number(message.get("timestamp")) >= latest_prefix_timestamp;
            let stop = message.get_str("stopReason");
            if applies
                && stop != Some("aborted")
                && stop != Some("error")
                && calculate_context_tokens(message.get("usage")) > 0.0
            {
                found = Some(i);
            }
        }
        latest_prefix_timestamp =
            js_max(latest_prefix_timestamp, to_number(message.get("timestamp")));
    }
    found
}

/// The result of `estimateContextTokens` (AI/utils/estimate.js:91–115).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContextEstimate {
    pub tokens: f64,
    pub usage_tokens: f64,
    pub trailing_tokens: f64,
    /// The assistant message whose usage was the base, if any.
    pub last_usage_index: Option<usize>,
}

/// `estimateMessages(messages)` (AI/utils/estimate.js:68–82).
fn estimate_messages(pi: &Pi, messages: &[Value]) -> ContextEstimate {
    if let Some(index) = get_last_assistant_usage_index(messages) {
        let usage_tokens = calculate_context_tokens(messages[index].get("usage"));
        let trailing_tokens: f64 = messages[index + 1..]
            .iter()
            .map(|m| estimate_message_tokens(pi, m))
            .sum();
        return ContextEstimate {
            tokens: usage_tokens + trailing_tokens,
            usage_tokens,
            trailing_tokens,
            last_usage_index: Some(index),
        };
    }
    let tokens: f64 = messages
        .iter()
        .map(|m| estimate_message_tokens(pi, m))
        .sum();
    ContextEstimate {
        tokens,
        usage_tokens: 0.0,
        trailing_tokens: tokens,
        last_usage_index: None,
    }
}

/// `estimateToolsTokens(tools)` (AI/utils/estimate.js:83–87): `JSON.stringify` of the whole
/// AgentTool objects.
fn estimate_tools_tokens<'a>(
    pi: &Pi,
    tools: impl Iterator<Item = &'a crate::tools::ToolDef>,
) -> f64 {
    let json: Vec<Value> = tools.map(|t| t.agent_tool_json()).collect();
    if json.is_empty() {
        return 0.0;
    }
    estimate_text_tokens(pi, &Value::Array(json).to_json())
}

/// `estimateContextTokens(context)` (AI/utils/estimate.js:91–115).
pub fn estimate_context(pi: &Pi, ctx: &LlmContext) -> ContextEstimate {
    let estimate = estimate_messages(pi, &ctx.messages);
    if let Some(index) = estimate.last_usage_index {
        let mut added: Vec<Value> = Vec::new();
        for m in ctx.messages[index + 1..]
            .iter()
            .filter(|m| role_of(m) == Some("toolResult"))
        {
            match m.get("addedToolNames") {
                None | Some(Value::Null) => {}
                Some(Value::Array(names)) => added.extend(names.iter().cloned()),
                Some(other) => added.push(other.clone()),
            }
        }
        let added_tokens = estimate_tools_tokens(
            pi,
            ctx.tools()
                .iter()
                .filter(|t| added.iter().any(|n| n.as_str() == Some(t.name.as_str()))),
        );
        return ContextEstimate {
            tokens: estimate.tokens + added_tokens,
            usage_tokens: estimate.usage_tokens,
            trailing_tokens: estimate.trailing_tokens + added_tokens,
            last_usage_index: estimate.last_usage_index,
        };
    }
    let system = if ctx.system_prompt().is_empty() {
        0.0
    } else {
        estimate_text_tokens(pi, ctx.system_prompt())
    };
    let prefix = system + estimate_tools_tokens(pi, ctx.tools().iter());
    ContextEstimate {
        tokens: estimate.tokens + prefix,
        usage_tokens: estimate.usage_tokens,
        trailing_tokens: estimate.trailing_tokens + prefix,
        last_usage_index: None,
    }
}

/// `estimateContextTokens(context).tokens` (AI/utils/estimate.js:91–115).
pub fn estimate_context_tokens(pi: &Pi, ctx: &LlmContext) -> f64 {
    estimate_context(pi, ctx).tokens
}

// ---------------------------------------------------------------------------------------------
// AI/api/simple-options.js.
// ---------------------------------------------------------------------------------------------

/// `clampMaxTokensToContext(model, context, maxTokens)` (AI/api/simple-options.js:4–9 in 0.85,
/// :14–23 with the ratio margin from 1.5.1).
pub fn clamp_max_tokens_to_context(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    max_tokens: f64,
) -> f64 {
    let min_max_tokens = pi.data.default_number("minMaxTokens");
    let context_window = to_number(model.obj.get("contextWindow"));
    if context_window <= 0.0 {
        return js_max(min_max_tokens, max_tokens);
    }
    let input = estimate_context_tokens(pi, ctx);
    let safety = pi.data.default_number("contextSafetyTokens");
    let room = match pi.rules.max_tokens_clamp {
        crate::pi::MaxTokensClamp::SafetyTokens => context_window - input - safety,
        crate::pi::MaxTokensClamp::RatioMargin => {
            let margin = js_max(
                safety,
                (input * pi.data.default_number("contextSafetyRatio")).ceil(),
            );
            let room = context_window - input - margin;
            let floor = pi.data.default_number("minOutputWithRatioMargin");
            // `room < MIN_OUTPUT_WITH_RATIO_MARGIN` is false for NaN.
            if room < floor {
                js_min(floor, context_window - input - safety)
            } else {
                room
            }
        }
    };
    js_min(max_tokens, js_max(min_max_tokens, room))
}

/// `options.maxTokens ?? model.maxTokens` as the coding agent leaves it (it never sets
/// `maxTokens`): the model's value as a number, NaN when absent.
pub fn model_max_tokens(model: &Model) -> f64 {
    to_number(model.obj.get("maxTokens"))
}

/// The `samplingParams` member of `buildBaseOptions` (AI/api/simple-options.js:11–13):
/// `model.samplingParams || options.samplingParams ? {...model.samplingParams, ...} : undefined`.
/// The coding agent never passes `options.samplingParams`.
pub fn sampling_params(model: &Model) -> Option<Object> {
    let sp = model.obj.get("samplingParams").filter(|v| v.truthy())?;
    let mut out = Object::new();
    spread_value(&mut out, sp);
    Some(out)
}

/// `{...v}` into `out`: an object's members, an array's elements by index, nothing else.
fn spread_value(out: &mut Object, v: &Value) {
    match v {
        Value::Object(o) => out.spread(o),
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                out.insert(i.to_string(), v.clone());
            }
        }
        _ => {}
    }
}

/// The sampling parameters an adapter assigns last: 0.85's [`sampling_params`]; from
/// 1.0.2 `resolveSamplingParams(model, level)` (AI/api/simple-options.js:24–30):
/// `{...model.samplingParams, ...model.samplingParamsByThinkingLevel[clampThinkingLevel(level)]}`
/// when either is set. `level` is the thinking level, `"off"` when none.
pub fn resolve_sampling_params(pi: &Pi, model: &Model, level: &str) -> Option<Object> {
    if !pi.rules.sampling_by_thinking_level {
        return sampling_params(model);
    }
    let base = model.obj.get("samplingParams").filter(|v| v.truthy());
    let effective = crate::model::clamp_thinking_level(model, level, &mut Events::default());
    let by_level = model
        .obj
        .get("samplingParamsByThinkingLevel")
        .and_then(|m| m.get(&effective))
        .filter(|v| v.truthy());
    if base.is_none() && by_level.is_none() {
        return None;
    }
    let mut out = Object::new();
    if let Some(b) = base {
        spread_value(&mut out, b);
    }
    if let Some(l) = by_level {
        spread_value(&mut out, l);
    }
    Some(out)
}

/// `clampReasoning(effort)` (AI/api/simple-options.js:44–46): xhigh and max become high.
pub fn clamp_reasoning(effort: &str) -> &str {
    if effort == "xhigh" || effort == "max" {
        "high"
    } else {
        effort
    }
}

/// `thinkingBudgetForLevel(level, customBudgets)` (AI/api/simple-options.js:47–51):
/// `{...DEFAULT_THINKING_BUDGETS, ...customBudgets}[clampReasoning(level)]`, `None` when the
/// merged budgets have no such key.
pub fn thinking_budget_for_level(pi: &Pi, level: &str, budgets: Option<&Object>) -> Option<f64> {
    let mut merged = Object::new();
    if let Some(defaults) = pi
        .data
        .defaults
        .get("defaultThinkingBudgets")
        .and_then(Value::as_object)
    {
        merged.spread(defaults);
    }
    if let Some(custom) = budgets {
        merged.spread(custom);
    }
    merged
        .get(clamp_reasoning(level))
        .map(|v| to_number(Some(v)))
}

/// `clampThinkingBudgetToAnswerRoom(thinkingBudget, ceiling)` (AI/api/simple-options.js:53–55).
pub fn clamp_thinking_budget_to_answer_room(pi: &Pi, thinking_budget: f64, ceiling: f64) -> f64 {
    js_min(
        thinking_budget,
        js_max(0.0, ceiling - pi.data.default_number("minAnswerTokens")),
    )
}

/// `adjustMaxTokensForThinking(base, modelMax, level, budgets)` → `(maxTokens, thinkingBudget)`
/// (AI/api/simple-options.js:56–65). `base` is `None` for JS `undefined`; a level without a
/// budget gives a NaN budget.
pub fn adjust_max_tokens_for_thinking(
    pi: &Pi,
    base: Option<f64>,
    model_max: f64,
    level: &str,
    budgets: Option<&Object>,
) -> (f64, f64) {
    let mut thinking_budget = thinking_budget_for_level(pi, level, budgets).unwrap_or(f64::NAN);
    let max_tokens = match base {
        None => model_max,
        Some(b) => js_min(b + thinking_budget, model_max),
    };
    if max_tokens <= thinking_budget {
        thinking_budget = clamp_thinking_budget_to_answer_room(pi, thinking_budget, max_tokens);
    }
    (max_tokens, thinking_budget)
}

#[cfg(test)]
#[path = "messages_tests.rs"]
mod tests;

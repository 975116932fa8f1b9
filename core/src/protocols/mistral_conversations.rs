//! pi-ai `dist/api/mistral-conversations.js`: the native Mistral
//! Chat Completions endpoint, reached with a raw `fetch`.
//!
//! pi builds the payload in the Mistral SDK's camelCase (`buildChatPayload`, :353–380) and then
//! remaps it to the wire's snake_case (`toMistralWirePayload`, :219–251). The remap deletes and
//! re-adds keys, so the remapped ones move to the end of their object; this module builds the
//! camelCase objects and runs the same remap, so the order falls out as pi's does.
//!
//! From 0.86 on the context is the transcript: the system messages are collapsed into one
//! leading message unless the model's `compat.supportsMidConvoSystemMessages` keeps them in
//! place (`resolveTranscript`, 1.6.0/AI/api/mistral-conversations.js:22), and each becomes a
//! `system` message where it stands, the first one as the whole prompt, a later one as its
//! update; the tools are the transcript's current ones.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;

use super::body::Tag;
use super::constrained_sampling::{
    make_strict_json_schema, resolve_json_schema_strict_sampling, Strict,
};
use super::{body, err, ev, AdapterError, Request, StreamOptions};
use crate::context::LlmContext;
use crate::js::{
    self, js_trim, js_trim_is_empty, sanitize_surrogates, to_js_string, Object, Value,
};
use crate::messages;
use crate::model::{self, Model};
use crate::pi::Pi;
use crate::tools::ToolDef;
use crate::trace::{EventKind, Events};
use crate::transcript;

/// `MISTRAL_TOOL_CALL_ID_LENGTH` (:11).
const MISTRAL_TOOL_CALL_ID_LENGTH: usize = 9;

/// The options `streamSimple` hands to `stream` (:68–79), reduced to what shapes the request.
#[derive(Clone, Debug, Default)]
struct MistralOptions {
    /// `buildBaseOptions(...).maxTokens`: the context-clamped model maximum (NaN when the model
    /// has none; JSON `null` then, as in pi).
    max_tokens: f64,
    /// `options.cacheRetention`: the coding agent never sets it, and unlike other adapters this
    /// one does not read `PI_CACHE_RETENTION`.
    cache_retention: Option<String>,
    session_id: Option<String>,
    /// `"reasoning"` for reasoning models other than the reasoning-effort ones.
    prompt_mode: Option<&'static str>,
    /// `thinkingLevelMap[level] ?? "high"`: 0.85 for mistral-small-2603/-latest and
    /// mistral-medium-3.5; 0.99 on for every reasoning model with a map (`map.off` when off).
    reasoning_effort: Option<Value>,
}

fn text(pi: &Pi, key: &str) -> &'static str {
    pi.data.string("mistralConversations", key)
}

/// `streamSimple` (:63–80) followed by the request-building part of `stream` (:16–32): the API
/// key check, `transformMessages` with the Mistral id normalizer, `buildChatPayload`, then
/// `requestMistralStream`'s URL, headers and `JSON.stringify(toMistralWirePayload(payload))`.
/// With no extension, `onPayload` returns nothing and the payload is sent as built.
pub fn build(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    opts: &StreamOptions,
    events: &mut Events,
) -> Result<Request, AdapterError> {
    let options = stream_simple(pi, model, ctx, opts, events)?;
    let messages = normalized_messages(pi, model, ctx, events);
    let normalize_mistral_tool_call_id = create_mistral_tool_call_id_normalizer();
    let normalize = |id: &str, _model: &Model, _source: &Value| normalize_mistral_tool_call_id(id);
    // The transformed messages and the camelCase payload are freed once the wire payload is
    // built, before the body is written (a large session would otherwise hold all three).
    let payload = {
        let transformed =
            messages::transform_messages(pi, &messages, model, Some(&normalize), 0.0, events);
        let tools: Cow<[ToolDef]> = if ctx.is_transcript() {
            Cow::Owned(
                transcript::current_tools(&messages)
                    .iter()
                    .map(transcript::tool_from_declaration)
                    .collect(),
            )
        } else {
            Cow::Borrowed(ctx.tools())
        };
        build_chat_payload(pi, model, ctx, &tools, &transformed, &options, events)?
    };
    drop(messages);
    let url = request_url(model.base_url())?;
    let headers = build_mistral_headers(model, opts, &options, events);
    let params = Value::Object(to_mistral_wire_payload(&payload));
    drop(payload);
    let (body, accounting) = body::written(&params);
    Ok(Request {
        method: "POST",
        url,
        headers,
        sent: params.clone(),
        params,
        body,
        accounting,
        url_note: None,
    })
}

/// `resolveTranscript(context, model.compat?.supportsMidConvoSystemMessages)`
/// (1.6.0/AI/api/mistral-conversations.js:22; the flag has no default): the transcript as it is
/// when the model takes system messages mid-conversation, else its system messages collapsed into
/// one leading message. Before 0.86 the context has no system messages.
fn normalized_messages<'a>(
    pi: &Pi,
    model: &Model,
    ctx: &'a LlmContext,
    events: &mut Events,
) -> Cow<'a, [Value]> {
    if !ctx.is_transcript() {
        return Cow::Borrowed(&ctx.messages);
    }
    let keep = model
        .compat_value("supportsMidConvoSystemMessages")
        .is_some_and(Value::truthy);
    let system = ctx
        .messages
        .iter()
        .filter(|m| m.get_str("role") == Some("system"))
        .count();
    if keep {
        if system > 1 {
            ev(
                events,
                EventKind::Note,
                format!(
                    "{system} system messages kept in place (compat.supportsMidConvoSystemMessages)"
                ),
                "1.6.0/AI/api/mistral-conversations.js:22",
            );
        }
        return Cow::Borrowed(&ctx.messages);
    }
    let leading = ctx
        .messages
        .first()
        .is_some_and(|m| m.get_str("role") == Some("system"));
    if system > 1 || (system == 1 && !leading) {
        ev(
            events,
            EventKind::Converted,
            format!(
                "{system} system message(s) collapsed into one leading system message (no compat.supportsMidConvoSystemMessages)"
            ),
            "1.6.0/AI/api/mistral-conversations.js:22",
        );
    }
    Cow::Owned(transcript::resolve(pi, &ctx.messages, false))
}

/// `streamSimple` (:63–80): the API key check, `buildBaseOptions` (max-token clamp), the
/// thinking level clamped again and mapped to `promptMode` or `reasoningEffort`.
fn stream_simple(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    opts: &StreamOptions,
    events: &mut Events,
) -> Result<MistralOptions, AdapterError> {
    if opts.api_key.is_empty() {
        return Err(err(format!(
            "No API key for provider: {}",
            model.provider()
        )));
    }
    let model_max = messages::model_max_tokens(model);
    let max_tokens = messages::clamp_max_tokens_to_context(pi, model, ctx, model_max);
    if max_tokens != model_max && !(max_tokens.is_nan() && model_max.is_nan()) {
        ev(
            events,
            EventKind::Clamped,
            format!(
                "maxTokens {} → {} to fit the context window",
                js::number_to_string(model_max),
                js::number_to_string(max_tokens)
            ),
            "AI/api/simple-options.js:4",
        );
    }
    let clamped = opts
        .reasoning
        .as_deref()
        .filter(|r| !r.is_empty())
        .map(|r| model::clamp_thinking_level(model, r, events));
    let reasoning = clamped.filter(|level| level != "off");
    let mut options = MistralOptions {
        max_tokens,
        cache_retention: None,
        session_id: opts.session_id.clone(),
        prompt_mode: None,
        reasoning_effort: None,
    };
    if pi.rules.mistral.reasoning_effort_from_level_map {
        reasoning_from_level_map(model, reasoning.as_deref(), &mut options, events);
        return Ok(options);
    }
    let should_use_reasoning = model.reasoning() && reasoning.is_some();
    if let Some(level) = reasoning.as_deref().filter(|_| should_use_reasoning) {
        if uses_prompt_mode_reasoning(model) {
            options.prompt_mode = Some("reasoning");
            ev(
                events,
                EventKind::Converted,
                format!("thinking level {level} sent as prompt_mode: \"reasoning\""),
                "AI/api/mistral-conversations.js:77",
            );
        }
        if uses_reasoning_effort(model) {
            let effort = map_reasoning_effort(model, level);
            ev(
                events,
                EventKind::Converted,
                format!(
                    "thinking level {level} sent as reasoning_effort: {}",
                    effort.to_json()
                ),
                "AI/api/mistral-conversations.js:78",
            );
            options.reasoning_effort = Some(effort);
        }
    } else if let (Some(level), false) = (reasoning.as_deref(), model.reasoning()) {
        ev(
            events,
            EventKind::Dropped,
            format!("thinking level {level} not sent: the model has reasoning: false"),
            "AI/api/mistral-conversations.js:74",
        );
    }
    Ok(options)
}

/// 0.99 on (1.6.0/AI/api/mistral-conversations.js:75–86): a reasoning model's
/// `thinkingLevelMap` decides. With a map, `reasoningEffort = level ? (map[level] ?? "high") :
/// (map.off ?? undefined)` (sent when truthy, so thinking off on a map with `off: "none"` sends
/// `"none"`); without one, `promptMode: "reasoning"` when a level is asked for.
fn reasoning_from_level_map(
    model: &Model,
    reasoning: Option<&str>,
    options: &mut MistralOptions,
    events: &mut Events,
) {
    let effort_map = model
        .reasoning()
        .then(|| model.obj.get("thinkingLevelMap"))
        .flatten()
        .filter(|m| !m.is_null());
    match (effort_map, reasoning) {
        (Some(map), Some(level)) => {
            let effort = match map.get(level) {
                Some(Value::Null) | None => Value::str("high"),
                Some(v) => v.clone(),
            };
            if !effort.truthy() {
                ev(
                    events,
                    EventKind::Dropped,
                    format!(
                        "thinking level {level}: thinkingLevelMap.{level} is {}, so no reasoning_effort",
                        effort.to_json()
                    ),
                    "1.6.0/AI/api/mistral-conversations.js:388",
                );
                return;
            }
            ev(
                events,
                EventKind::Converted,
                format!(
                    "thinking level {level} sent as reasoning_effort: {} (thinkingLevelMap{})",
                    effort.to_json(),
                    if map.get(level).is_some_and(|v| !v.is_null()) {
                        format!(".{level}")
                    } else {
                        format!(" has no {level}: \"high\"")
                    }
                ),
                "1.6.0/AI/api/mistral-conversations.js:79",
            );
            options.reasoning_effort = Some(effort);
        }
        (Some(map), None) => match map.get("off").filter(|v| v.truthy()) {
            Some(off) => {
                ev(
                    events,
                    EventKind::Converted,
                    format!(
                        "thinking off sent as reasoning_effort: {} (thinkingLevelMap.off)",
                        off.to_json()
                    ),
                    "1.6.0/AI/api/mistral-conversations.js:80",
                );
                options.reasoning_effort = Some(off.clone());
            }
            None => ev(
                events,
                EventKind::Note,
                "thinking off: no reasoning_effort (thinkingLevelMap has no off value)",
                "1.6.0/AI/api/mistral-conversations.js:80",
            ),
        },
        (None, Some(level)) if model.reasoning() => {
            options.prompt_mode = Some("reasoning");
            ev(
                events,
                EventKind::Converted,
                format!(
                    "thinking level {level} sent as prompt_mode: \"reasoning\" (no thinkingLevelMap)"
                ),
                "1.6.0/AI/api/mistral-conversations.js:84",
            );
        }
        (None, Some(level)) => ev(
            events,
            EventKind::Dropped,
            format!("thinking level {level} not sent: the model has reasoning: false"),
            "1.6.0/AI/api/mistral-conversations.js:76",
        ),
        (None, None) => {}
    }
}

/// `usesReasoningEffort(model)` (:704–706).
fn uses_reasoning_effort(model: &Model) -> bool {
    matches!(
        model.id(),
        "mistral-small-2603" | "mistral-small-latest" | "mistral-medium-3.5"
    )
}

/// `usesPromptModeReasoning(model)` (:707–709).
fn uses_prompt_mode_reasoning(model: &Model) -> bool {
    model.reasoning() && !uses_reasoning_effort(model)
}

/// `mapReasoningEffort(model, level)` (:710–712): `model.thinkingLevelMap?.[level] ?? "high"`.
fn map_reasoning_effort(model: &Model, level: &str) -> Value {
    match model.obj.get("thinkingLevelMap").and_then(|m| m.get(level)) {
        Some(Value::Null) | None => Value::str("high"),
        Some(v) => v.clone(),
    }
}

// ---------------------------------------------------------------------------------------------
// Tool-call ids.
// ---------------------------------------------------------------------------------------------

/// `createMistralToolCallIdNormalizer()` (:100–119): one per request; the same source id always
/// maps to the same Mistral id, and a candidate already owned by another id is retried with an
/// `:attempt` suffix on the hash seed.
fn create_mistral_tool_call_id_normalizer() -> impl Fn(&str) -> String {
    let id_map: RefCell<HashMap<String, String>> = RefCell::new(HashMap::new());
    let reverse_map: RefCell<HashMap<String, String>> = RefCell::new(HashMap::new());
    move |id: &str| {
        if let Some(existing) = id_map.borrow().get(id).filter(|e| !e.is_empty()) {
            return existing.clone();
        }
        let mut attempt = 0u32;
        loop {
            let candidate = derive_mistral_tool_call_id(id, attempt);
            let owner = reverse_map.borrow().get(&candidate).cloned();
            if owner.as_deref().is_none_or(|o| o.is_empty() || o == id) {
                id_map
                    .borrow_mut()
                    .insert(id.to_string(), candidate.clone());
                reverse_map
                    .borrow_mut()
                    .insert(candidate.clone(), id.to_string());
                return candidate;
            }
            attempt += 1;
        }
    }
}

/// `deriveMistralToolCallId(id, attempt)` (:120–129): the id's ASCII letters and digits if there
/// are exactly nine of them, else the first nine characters of `shortHash(seed)`.
fn derive_mistral_tool_call_id(id: &str, attempt: u32) -> String {
    let normalized: String = id.chars().filter(char::is_ascii_alphanumeric).collect();
    if attempt == 0 && normalized.len() == MISTRAL_TOOL_CALL_ID_LENGTH {
        return normalized;
    }
    let seed_base = if normalized.is_empty() {
        id
    } else {
        normalized.as_str()
    };
    let seed = if attempt == 0 {
        seed_base.to_string()
    } else {
        format!("{seed_base}:{attempt}")
    };
    js::short_hash(&seed)
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(MISTRAL_TOOL_CALL_ID_LENGTH)
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The HTTP request (requestMistralStream, buildMistralHeaders).
// ---------------------------------------------------------------------------------------------

/// The URL of `requestMistralStream` (:158–161): `new URL(model.baseUrl)` with the path's
/// trailing slashes replaced by one, then `new URL("v1/chat/completions", base)` (the base's
/// query and fragment are dropped). The WHATWG parser's normalizations that matter here are
/// reproduced: scheme and host lower-cased, a default port removed.
fn request_url(base_url: &str) -> Result<String, AdapterError> {
    let trimmed = base_url.trim_matches(|c: char| c <= ' ');
    let invalid = || err(format!("Invalid URL: {base_url}"));
    let (scheme, rest) = trimmed.split_once("://").ok_or_else(invalid)?;
    if scheme.is_empty()
        || !scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    {
        return Err(invalid());
    }
    let scheme = scheme.to_ascii_lowercase();
    let authority_end = rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    if authority.is_empty() {
        return Err(invalid());
    }
    let (userinfo, host_port) = match authority.rsplit_once('@') {
        Some((u, h)) => (format!("{u}@"), h),
        None => (String::new(), authority),
    };
    let mut host_port = host_port.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" | "ws" => Some(":80"),
        "https" | "wss" => Some(":443"),
        "ftp" => Some(":21"),
        _ => None,
    };
    if let Some(port) = default_port.filter(|p| host_port.ends_with(p)) {
        host_port.truncate(host_port.len() - port.len());
    }
    let path = tail
        .split(['?', '#'])
        .next()
        .unwrap_or("")
        .replace('\\', "/");
    let path = path.trim_end_matches('/');
    Ok(format!(
        "{scheme}://{userinfo}{host_port}{path}/v1/chat/completions"
    ))
}

/// A header list with `Headers` semantics: names are case-insensitive (stored lower-case), `set`
/// replaces a header in place or appends it, `delete` removes it.
#[derive(Default)]
struct HeaderList(Vec<(String, String)>);

impl HeaderList {
    fn set(&mut self, name: &str, value: String) {
        let name = name.to_ascii_lowercase();
        match self.0.iter_mut().find(|(k, _)| *k == name) {
            Some(slot) => slot.1 = value,
            None => self.0.push((name, value)),
        }
    }

    fn delete(&mut self, name: &str) {
        let name = name.to_ascii_lowercase();
        self.0.retain(|(k, _)| *k != name);
    }
}

/// `buildMistralHeaders(model, apiKey, options)` (:191–205): pi's User-Agent (from 1.4.0 the
/// client identity's headers), `accept`,
/// `authorization`, `content-type`, then the model's and the options' header overrides (a `null`
/// value deletes), then `x-affinity: <sessionId>` when prompt caching applies and no override
/// names x-affinity. The key itself is shown as `<redacted>`, as the oracle records it.
fn build_mistral_headers(
    model: &Model,
    opts: &StreamOptions,
    options: &MistralOptions,
    events: &mut Events,
) -> Vec<(String, String)> {
    let mut headers = HeaderList::default();
    // `getPiUserAgent()` in 0.85; `...getIdentityHeaders(model, options.identity)` from 1.4.0
    // (1.6.0/AI/api/mistral-conversations.js:210: the User-Agent and any attribution headers).
    for (name, value) in &opts.identity_headers {
        headers.set(name, value.clone());
    }
    headers.set("accept", "text/event-stream".into());
    headers.set("authorization", "<redacted>".into());
    headers.set("content-type", "application/json".into());
    apply_mistral_header_overrides(
        &mut headers,
        model
            .headers()
            .map(|h| h.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()),
    );
    let options_headers: Vec<(String, Value)> = opts
        .headers
        .iter()
        .map(|(k, v)| (k.clone(), Value::str(v)))
        .collect();
    apply_mistral_header_overrides(
        &mut headers,
        (!opts.headers.is_empty()).then_some(options_headers),
    );
    let has_explicit_affinity = has_mistral_header_override(
        model
            .headers()
            .map(|h| h.keys().map(|k| k.to_string()).collect()),
        "x-affinity",
    ) || has_mistral_header_override(
        (!opts.headers.is_empty()).then(|| opts.headers.iter().map(|(k, _)| k.clone()).collect()),
        "x-affinity",
    );
    if should_use_prompt_caching(options) && !has_explicit_affinity {
        if let Some(sid) = &options.session_id {
            headers.set("x-affinity", sid.clone());
            ev(
                events,
                EventKind::Inserted,
                "x-affinity header carries the session id",
                "AI/api/mistral-conversations.js:202",
            );
        }
    }
    headers
        .0
        .into_iter()
        .map(|(k, v)| {
            let secret = ["auth", "api-key", "cookie"].iter().any(|s| k.contains(s));
            let v = if secret { "<redacted>".to_string() } else { v };
            (k, v)
        })
        .collect()
}

/// `applyMistralHeaderOverrides(headers, overrides)` (:206–215).
fn apply_mistral_header_overrides(
    headers: &mut HeaderList,
    overrides: Option<Vec<(String, Value)>>,
) {
    for (name, value) in overrides.unwrap_or_default() {
        match value {
            Value::Null => headers.delete(&name),
            v => headers.set(&name, to_js_string(Some(&v))),
        }
    }
}

/// `hasMistralHeaderOverride(overrides, target)` (:216–218).
fn has_mistral_header_override(override_names: Option<Vec<String>>, target: &str) -> bool {
    override_names.is_some_and(|names| names.iter().any(|n| n.to_lowercase() == target))
}

// ---------------------------------------------------------------------------------------------
// camelCase payload → wire payload.
// ---------------------------------------------------------------------------------------------

/// `toMistralWirePayload(payload)` (:219–251): each camelCase key is deleted and re-added in
/// snake_case, in the order of the remap list, so those keys end up last; messages are remapped
/// one by one.
fn to_mistral_wire_payload(payload: &Object) -> Object {
    let mut wire = payload.clone();
    for (source, target) in [
        ("topP", "top_p"),
        ("maxTokens", "max_tokens"),
        ("randomSeed", "random_seed"),
        ("responseFormat", "response_format"),
        ("toolChoice", "tool_choice"),
        ("presencePenalty", "presence_penalty"),
        ("frequencyPenalty", "frequency_penalty"),
        ("parallelToolCalls", "parallel_tool_calls"),
        ("reasoningEffort", "reasoning_effort"),
        ("promptMode", "prompt_mode"),
        ("promptCacheKey", "prompt_cache_key"),
        ("safePrompt", "safe_prompt"),
    ] {
        remap_mistral_property(&mut wire, source, target);
    }
    let messages = payload
        .get_array("messages")
        .map(|m| m.iter().map(to_mistral_wire_message).collect())
        .unwrap_or_default();
    wire.insert("messages", Value::Array(messages));
    // The coding agent never sets a response format (:238–249).
    wire
}

/// `toMistralWireMessage(message)` (:252–260).
fn to_mistral_wire_message(message: &Value) -> Value {
    let Some(obj) = message.as_object() else {
        return message.clone();
    };
    let mut wire = obj.clone();
    remap_mistral_property(&mut wire, "toolCalls", "tool_calls");
    remap_mistral_property(&mut wire, "toolCallId", "tool_call_id");
    if let Some(content) = obj.get_array("content") {
        wire.insert(
            "content",
            Value::Array(content.iter().map(to_mistral_wire_content_chunk).collect()),
        );
    }
    Value::Object(wire)
}

/// `toMistralWireContentChunk(chunk)` (:261–274).
fn to_mistral_wire_content_chunk(chunk: &Value) -> Value {
    let Some(obj) = chunk.as_object() else {
        return chunk.clone();
    };
    let mut wire = obj.clone();
    for (source, target) in [
        ("imageUrl", "image_url"),
        ("documentUrl", "document_url"),
        ("documentName", "document_name"),
        ("fileId", "file_id"),
        ("referenceIds", "reference_ids"),
        ("inputAudio", "input_audio"),
    ] {
        remap_mistral_property(&mut wire, source, target);
    }
    Value::Object(wire)
}

/// `remapMistralProperty(record, source, target)` (:275–280): `record[target] = record[source];
/// delete record[source]`.
fn remap_mistral_property(record: &mut Object, source: &str, target: &str) {
    let Some(value) = record.get(source).cloned() else {
        return;
    };
    record.insert(target, value);
    record.remove(source);
}

// ---------------------------------------------------------------------------------------------
// buildChatPayload.
// ---------------------------------------------------------------------------------------------

/// `buildChatPayload(model, context, messages, options)` (:353–380), in camelCase: `model`,
/// `stream`, `messages`, then `tools`, `maxTokens`, `promptMode`, `reasoningEffort`,
/// `promptCacheKey` when set; in 0.85 the system prompt is unshifted as the first message (from
/// 0.86 the system messages are among `messages`, 1.6.0/AI/api/mistral-conversations.js:370–393,
/// and `tools` are the transcript's current ones, :376).
#[allow(clippy::too_many_arguments)]
fn build_chat_payload(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    tools: &[ToolDef],
    messages: &[Value],
    options: &MistralOptions,
    events: &mut Events,
) -> Result<Object, AdapterError> {
    let mut chat_messages = to_chat_messages(pi, messages, model.supports_images(), events)?;
    let mut payload = Object::new();
    payload.insert_opt("model", model.obj.get("id").cloned());
    payload.insert("stream", Value::Bool(true));
    payload.insert("messages", Value::Array(Vec::new()));
    if !tools.is_empty() {
        payload.insert(
            "tools",
            Value::Array(to_function_tools(pi, model, tools, events)?),
        );
    }
    // `options.temperature` and `options.toolChoice` are never set by the coding agent.
    payload.insert("maxTokens", Value::Number(options.max_tokens));
    if let Some(mode) = options.prompt_mode {
        payload.insert("promptMode", Value::str(mode));
    }
    if let Some(effort) = options.reasoning_effort.as_ref().filter(|e| e.truthy()) {
        payload.insert("reasoningEffort", effort.clone());
    }
    if should_use_prompt_caching(options) {
        if let Some(sid) = &options.session_id {
            payload.insert("promptCacheKey", Value::str(sid));
            ev(
                events,
                EventKind::Inserted,
                "prompt_cache_key = the session id",
                "AI/api/mistral-conversations.js:376",
            );
        }
    }
    if !ctx.system_prompt().is_empty() {
        let system = Object::new().with("role", "system").with(
            "content",
            sanitize_surrogates(ctx.system_prompt()).into_owned(),
        );
        chat_messages.insert(0, Value::Object(system.marked(Tag::System.mark())));
        ev(
            events,
            EventKind::Inserted,
            "system prompt unshifted as the first message (role system)",
            "AI/api/mistral-conversations.js:378",
        );
    }
    // `messages` keeps its third position: pi unshifts into the array it already holds.
    payload.insert("messages", Value::Array(chat_messages));
    Ok(payload)
}

/// `shouldUsePromptCaching(options)` (:384–386): `options.cacheRetention !== "none" &&
/// !!options.sessionId`.
fn should_use_prompt_caching(options: &MistralOptions) -> bool {
    options.cache_retention.as_deref() != Some("none")
        && options.session_id.as_deref().is_some_and(|s| !s.is_empty())
}

// ---------------------------------------------------------------------------------------------
// Tools.
// ---------------------------------------------------------------------------------------------

/// `toFunctionTools(tools)` (:573–586): `{type:"function", function:{name, description,
/// parameters, strict: strict ?? false}}`; strict mode always counts as supported in 0.85, from
/// 1.6.0 only with `compat.supportsStrictMode` (`?? false`, 1.6.0/AI/api/mistral-conversations.js:379).
fn to_function_tools(
    pi: &Pi,
    model: &Model,
    tools: &[ToolDef],
    events: &mut Events,
) -> Result<Vec<Value>, AdapterError> {
    let supports_strict_mode = if pi.rules.mistral.strict_opt_in {
        let supported = model
            .compat_value("supportsStrictMode")
            .is_some_and(Value::truthy);
        let prefer: Vec<&str> = tools
            .iter()
            .filter(|t| {
                t.constrained_sampling
                    .as_ref()
                    .is_some_and(|c| c.get_str("type") == Some("json_schema"))
            })
            .map(|t| t.name.as_str())
            .collect();
        if !supported && !prefer.is_empty() {
            ev(
                events,
                EventKind::Note,
                format!(
                    "{} sent non-strict (strict: false): strict tools are opt-in (compat.supportsStrictMode)",
                    prefer.join(", ")
                ),
                "1.6.0/AI/api/mistral-conversations.js:379",
            );
        }
        supported
    } else {
        true
    };
    let mut out = Vec::with_capacity(tools.len());
    for tool in tools {
        let strict =
            resolve_json_schema_strict_sampling(&Strict::of(pi), tool, supports_strict_mode)?;
        let parameters = if strict == Some(true) {
            ev(
                events,
                EventKind::Converted,
                format!("tool {} schema made strict (strict: true)", tool.name),
                "AI/api/constrained-sampling.js:101",
            );
            make_strict_json_schema(&Strict::of(pi), &tool.parameters)
                .map_err(|e| err(format!("Tool \"{}\": {e}", tool.name)))?
        } else {
            tool.parameters.clone()
        };
        let function = Object::new()
            .with("name", tool.name.as_str())
            .with("description", tool.description.as_str())
            .with(
                "parameters",
                body::marked(strip_symbol_keys(&parameters), Tag::Schema),
            )
            .with("strict", strict.unwrap_or(false))
            .marked(Tag::Tool.mark());
        out.push(Value::Object(
            Object::new()
                .with("type", "function")
                .with("function", function)
                .marked(Tag::Tool.mark()),
        ));
    }
    Ok(out)
}

/// `stripSymbolKeys(value)` (:587–599): a deep copy through `Object.entries` (JSON values have no
/// symbol keys). Assigning `result["__proto__"]` sets the prototype instead of a property, so
/// such a key disappears.
fn strip_symbol_keys(value: &Value) -> Value {
    match value {
        Value::Array(a) => Value::Array(a.iter().map(strip_symbol_keys).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .filter(|(k, _)| k.as_str() != "__proto__")
                .map(|(k, v)| (k.clone(), strip_symbol_keys(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

// ---------------------------------------------------------------------------------------------
// Messages.
// ---------------------------------------------------------------------------------------------

/// `block.type`, which throws on `null`.
fn type_of<'a>(block: &'a Value, what: &str) -> Result<Option<&'a str>, AdapterError> {
    match block {
        Value::Null => Err(err(format!(
            "Cannot read properties of null (reading 'type') in {what}"
        ))),
        other => Ok(other.get_str("type")),
    }
}

/// A string that pi calls a string method on (`sanitizeSurrogates(x)`, `x.trim()`), which
/// throws for anything else.
fn string_arg<'a>(value: Option<&'a Value>, what: &str) -> Result<&'a str, AdapterError> {
    match value {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(err(format!("{what} is not a string: {}", other.to_json()))),
        None => Err(err(format!("{what} is undefined"))),
    }
}

/// `data:${mimeType};base64,${data}`.
fn data_url(block: &Value) -> String {
    format!(
        "data:{};base64,{}",
        to_js_string(block.get("mimeType")),
        to_js_string(block.get("data"))
    )
}

/// `toChatMessages(messages, supportsImages)` (:600–686).
fn to_chat_messages(
    pi: &Pi,
    messages: &[Value],
    supports_images: bool,
    events: &mut Events,
) -> Result<Vec<Value>, AdapterError> {
    let mut result = Vec::with_capacity(messages.len());
    for (i, msg) in messages.iter().enumerate() {
        let label = format!("message {i}");
        if msg.is_null() {
            return Err(err(format!(
                "Cannot read properties of null (reading 'role') in {label}"
            )));
        }
        match msg.get_str("role") {
            Some("system") if pi.rules.transcript => {
                if let Some(system) = system_message(pi, &label, i, msg, events) {
                    result.push(system);
                }
            }
            Some("user") => {
                if let Some(user) = user_message(pi, &label, msg, supports_images, events)? {
                    result.push(user);
                }
            }
            Some("assistant") => {
                if let Some(assistant) = assistant_message(&label, msg, events)? {
                    result.push(assistant);
                }
            }
            _ => result.push(tool_message(pi, &label, msg, supports_images, events)?),
        }
    }
    Ok(result)
}

/// The system branch of `toChatMessages` (0.86 on, 1.6.0/AI/api/mistral-conversations.js:604–609):
/// `{role:"system", content}` where the message stands; at index 0 of the transformed list
/// its whole text (`getSystemMessageText`), later its update (`renderSystemMessageUpdate`:
/// `Updated system prompt section "x":` ...); nothing when that text is empty.
fn system_message(
    pi: &Pi,
    label: &str,
    index: usize,
    msg: &Value,
    events: &mut Events,
) -> Option<Value> {
    let text = if index == 0 {
        transcript::system_message_text(pi, msg)
    } else {
        transcript::render_system_message_update(pi, msg)
    };
    if text.is_empty() {
        ev(
            events,
            EventKind::Dropped,
            format!("{label}: system message with no text skipped (its tools are in tools)"),
            "1.6.0/AI/api/mistral-conversations.js:606",
        );
        return None;
    }
    ev(
        events,
        EventKind::Converted,
        if index == 0 {
            format!("{label}: leading system message sent as the system prompt (role system)")
        } else {
            format!("{label}: system message sent in place as its update (role system)")
        },
        "1.6.0/AI/api/mistral-conversations.js:605",
    );
    Some(
        Object::new()
            .with("role", "system")
            .with("content", sanitize_surrogates(&text).into_owned())
            .marked(Tag::System.mark())
            .into(),
    )
}

/// The user branch of `toChatMessages` (:603–624): a string stays a string; an array keeps
/// its texts, and its images only for a vision model (as `image_url` data-URL strings); an array
/// left empty that had images becomes the "image omitted" placeholder.
fn user_message(
    pi: &Pi,
    label: &str,
    msg: &Value,
    supports_images: bool,
    events: &mut Events,
) -> Result<Option<Value>, AdapterError> {
    let user = |content: Value| {
        body::message_like(Object::new(), msg)
            .with("role", "user")
            .with("content", content)
            .into()
    };
    let blocks = match msg.get("content") {
        Some(Value::String(s)) => return Ok(Some(user(Value::String(sanitize_surrogates(s).into_owned().into())))),
        Some(Value::Array(a)) => a,
        _ => return Err(err(format!("{label}: user content is neither a string nor an array (msg.content.some is not a function)"))),
    };
    let mut had_images = false;
    for item in blocks {
        had_images |= type_of(item, label)? == Some("image");
    }
    let mut content = Vec::new();
    for item in blocks {
        let is_text = type_of(item, label)? == Some("text");
        if is_text {
            let text = string_arg(item.get("text"), &format!("{label}: text"))?;
            content.push(
                body::like(Object::new(), item)
                    .with("type", "text")
                    .with("text", sanitize_surrogates(text).into_owned())
                    .into(),
            );
        } else if supports_images {
            content.push(
                body::like(Object::new(), item)
                    .with("type", "image_url")
                    .with("imageUrl", data_url(item))
                    .into(),
            );
        } else {
            ev(
                events,
                EventKind::Dropped,
                format!("{label}: non-text block dropped (model without image input)"),
                "AI/api/mistral-conversations.js:610",
            );
        }
    }
    if !content.is_empty() {
        return Ok(Some(user(Value::Array(content))));
    }
    if had_images && !supports_images {
        ev(
            events,
            EventKind::Replaced,
            format!("{label}: user images replaced by a placeholder"),
            "AI/api/mistral-conversations.js:620",
        );
        return Ok(Some(user(Value::str(text(pi, "userImageOmitted")))));
    }
    ev(
        events,
        EventKind::Dropped,
        format!("{label}: user message with no content skipped"),
        "AI/api/mistral-conversations.js:623",
    );
    Ok(None)
}

/// The assistant branch of `toChatMessages` (:625–659): `{role:"assistant", prefix:false,
/// content?, toolCalls?}`. Blank text and thinking are dropped; thinking is replayed as a
/// `thinking` chunk; every other block is sent as a tool call; an empty message is skipped.
fn assistant_message(
    label: &str,
    msg: &Value,
    events: &mut Events,
) -> Result<Option<Value>, AdapterError> {
    let Some(blocks) = msg.get("content").and_then(Value::as_array) else {
        return Err(err(format!(
            "{label}: assistant content is not an array (msg.content is not iterable)"
        )));
    };
    let mut content_parts = Vec::new();
    let mut tool_calls = Vec::new();
    for (j, block) in blocks.iter().enumerate() {
        match type_of(block, label)? {
            Some("text") => {
                let text = string_arg(block.get("text"), &format!("{label}: text"))?;
                if !js_trim_is_empty(text) {
                    content_parts.push(
                        body::like(Object::new(), block)
                            .with("type", "text")
                            .with("text", sanitize_surrogates(text).into_owned())
                            .into(),
                    );
                } else {
                    ev(
                        events,
                        EventKind::Dropped,
                        format!("{label}: blank text block {j} dropped"),
                        "AI/api/mistral-conversations.js:630",
                    );
                }
            }
            Some("thinking") => {
                let thinking = string_arg(block.get("thinking"), &format!("{label}: thinking"))?;
                if !js_trim_is_empty(thinking) {
                    let part = body::like(Object::new(), block)
                        .with("type", "text")
                        .with("text", sanitize_surrogates(thinking).into_owned());
                    content_parts.push(
                        Object::new()
                            .with("type", "thinking")
                            .with("thinking", vec![Value::Object(part)])
                            .into(),
                    );
                    ev(
                        events,
                        EventKind::Converted,
                        format!("{label}: thinking block {j} replayed as a thinking chunk"),
                        "AI/api/mistral-conversations.js:637",
                    );
                } else {
                    ev(
                        events,
                        EventKind::Dropped,
                        format!("{label}: blank thinking block {j} dropped"),
                        "AI/api/mistral-conversations.js:636",
                    );
                }
            }
            _ => {
                let args = block
                    .get("arguments")
                    .filter(|a| a.truthy())
                    .cloned()
                    .unwrap_or_else(Value::object);
                let mut function = body::like(Object::new(), block);
                function.insert_opt("name", block.get("name").cloned());
                function.insert("arguments", Value::String(args.to_json().into()));
                let mut call = Object::new();
                call.insert_opt("id", block.get("id").cloned());
                call.insert("type", Value::str("function"));
                call.insert("function", Value::Object(function));
                call.insert("index", Value::Number(0.0));
                tool_calls.push(Value::Object(call));
            }
        }
    }
    let mut assistant = body::message_like(Object::new(), msg)
        .with("role", "assistant")
        .with("prefix", false);
    let empty = content_parts.is_empty() && tool_calls.is_empty();
    if !content_parts.is_empty() {
        assistant.insert("content", Value::Array(content_parts));
    }
    if !tool_calls.is_empty() {
        assistant.insert("toolCalls", Value::Array(tool_calls));
    }
    if empty {
        ev(
            events,
            EventKind::Dropped,
            format!("{label}: assistant message with nothing to send skipped"),
            "AI/api/mistral-conversations.js:656",
        );
        return Ok(None);
    }
    Ok(Some(Value::Object(assistant)))
}

/// The tool-result branch of `toChatMessages` (:660–684): `{role:"tool", toolCallId, name,
/// content:[{type:"text", text}, ...images]}` (the wire moves `tool_call_id` to the end).
fn tool_message(
    pi: &Pi,
    label: &str,
    msg: &Value,
    supports_images: bool,
    events: &mut Events,
) -> Result<Value, AdapterError> {
    let Some(parts) = msg.get("content").and_then(Value::as_array) else {
        return Err(err(format!(
            "{label}: tool result content is not an array (msg.content.filter is not a function)"
        )));
    };
    let mut texts = Vec::new();
    let mut has_images = false;
    for part in parts {
        match type_of(part, label)? {
            Some("text") => texts.push(
                sanitize_surrogates(string_arg(part.get("text"), &format!("{label}: text"))?)
                    .into_owned(),
            ),
            Some("image") => has_images = true,
            _ => {}
        }
    }
    let is_error = msg.get("isError").is_some_and(Value::truthy);
    let tool_text =
        build_tool_result_text(pi, &texts.join("\n"), has_images, supports_images, is_error);
    if is_error {
        ev(
            events,
            EventKind::Converted,
            format!("{label}: error result prefixed with \"[tool error] \""),
            "AI/api/mistral-conversations.js:689",
        );
    }
    if has_images && !supports_images {
        ev(
            events,
            EventKind::Replaced,
            format!("{label}: tool result images omitted (model without image input)"),
            "AI/api/mistral-conversations.js:691",
        );
    } else if js_trim_is_empty(&texts.join("\n")) {
        ev(
            events,
            EventKind::Inserted,
            format!("{label}: tool result text {tool_text:?} stands in for empty output"),
            "AI/api/mistral-conversations.js:694",
        );
    }
    let mut tool_content = vec![Value::Object(
        body::text_of(Object::new(), msg)
            .with("type", "text")
            .with("text", tool_text),
    )];
    if supports_images {
        for part in parts {
            if type_of(part, label)? == Some("image") {
                tool_content.push(
                    body::like(Object::new(), part)
                        .with("type", "image_url")
                        .with("imageUrl", data_url(part))
                        .into(),
                );
            }
        }
    }
    let mut tool = body::message_like(Object::new(), msg).with("role", "tool");
    tool.insert_opt("toolCallId", msg.get("toolCallId").cloned());
    tool.insert_opt("name", msg.get("toolName").cloned());
    tool.insert("content", Value::Array(tool_content));
    Ok(Value::Object(tool))
}

/// `buildToolResultText(text, hasImages, supportsImages, isError)` (:687–703).
fn build_tool_result_text(
    pi: &Pi,
    text_result: &str,
    has_images: bool,
    supports_images: bool,
    is_error: bool,
) -> String {
    let trimmed = js_trim(text_result);
    let error_prefix = if is_error {
        text(pi, "toolErrorPrefix")
    } else {
        ""
    };
    if !trimmed.is_empty() {
        let image_suffix = if has_images && !supports_images {
            text(pi, "toolImageOmittedSuffix")
        } else {
            ""
        };
        return format!("{error_prefix}{trimmed}{image_suffix}");
    }
    if has_images {
        if supports_images {
            return format!("{error_prefix}{}", text(pi, "toolResultImageOnly"));
        }
        return format!("{error_prefix}{}", text(pi, "toolResultImageOmitted"));
    }
    format!("{error_prefix}{}", text(pi, "toolResultEmpty"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testcase::pi;

    #[test]
    fn nine_alphanumerics_are_kept() {
        assert_eq!(derive_mistral_tool_call_id("abc-DEF-123", 0), "abcDEF123");
        assert_eq!(derive_mistral_tool_call_id("abcDEF123", 1).len(), 9);
    }

    #[test]
    fn other_ids_are_hashed_and_collisions_retried() {
        let normalize = create_mistral_tool_call_id_normalizer();
        let a = normalize("call_1|fc_1");
        assert_eq!(a.len(), 9);
        assert_eq!(normalize("call_1|fc_1"), a);
        // "call1fc1" and "call_1-fc_1" strip to the same seed: the second gets the ":1" seed.
        let b = normalize("call_1-fc_1");
        assert_ne!(a, b);
        assert_eq!(b, derive_mistral_tool_call_id("call_1-fc_1", 1));
    }

    #[test]
    fn url_keeps_the_base_path() {
        assert_eq!(
            request_url("http://127.0.0.1:9/v1/").unwrap(),
            "http://127.0.0.1:9/v1/v1/chat/completions"
        );
        assert_eq!(
            request_url("https://API.mistral.ai:443").unwrap(),
            "https://api.mistral.ai/v1/chat/completions"
        );
        assert!(request_url("").is_err());
    }

    #[test]
    fn tool_result_texts() {
        assert_eq!(
            build_tool_result_text(&pi(), "  out ", true, false, true),
            "[tool error] out\n[tool image omitted: model does not support images]"
        );
        assert_eq!(
            build_tool_result_text(&pi(), "", true, true, false),
            "(see attached image)"
        );
        assert_eq!(
            build_tool_result_text(&pi(), " ", false, false, false),
            "(no tool output)"
        );
    }

    fn model(id: &str, reasoning: bool, input: &[&str]) -> Model {
        let input: Vec<Value> = input.iter().map(|s| Value::str(*s)).collect();
        Model {
            obj: Object::new()
                .with("id", id)
                .with("api", "mistral-conversations")
                .with("provider", "mistral")
                .with("baseUrl", "https://api.mistral.ai")
                .with("reasoning", reasoning)
                .with("input", input)
                .with("contextWindow", 128000.0)
                .with("maxTokens", 4096.0),
        }
    }

    fn opts(reasoning: Option<&str>) -> StreamOptions {
        StreamOptions {
            reasoning: reasoning.map(String::from),
            session_id: Some("sid".into()),
            api_key: "k".into(),
            user_agent: "pi (test)".into(),
            ..Default::default()
        }
    }

    fn msgs(json: &str) -> Vec<Value> {
        js::parse(json)
            .ok()
            .and_then(|v| v.as_array().cloned())
            .unwrap_or_default()
    }

    #[test]
    fn reasoning_effort_only_for_the_three_ids() {
        let ctx = LlmContext::prompt(
            String::new(),
            msgs(r#"[{"role":"user","content":"hi"}]"#),
            Vec::new(),
        );
        let mut events = Events::default();
        let small = build(
            &pi(),
            &model("mistral-small-latest", true, &["text"]),
            &ctx,
            &opts(Some("low")),
            &mut events,
        )
        .unwrap();
        assert_eq!(
            small.body,
            r#"{"model":"mistral-small-latest","stream":true,"messages":[{"role":"user","content":"hi"}],"max_tokens":4096,"reasoning_effort":"high","prompt_cache_key":"sid"}"#
        );
        let magistral = build(
            &pi(),
            &model("magistral-small", true, &["text"]),
            &ctx,
            &opts(Some("low")),
            &mut events,
        )
        .unwrap();
        assert!(magistral
            .body
            .ends_with(r#""max_tokens":4096,"prompt_mode":"reasoning","prompt_cache_key":"sid"}"#));
        let off = build(
            &pi(),
            &model("magistral-small", true, &["text"]),
            &ctx,
            &opts(None),
            &mut events,
        )
        .unwrap();
        assert!(off
            .body
            .ends_with(r#""max_tokens":4096,"prompt_cache_key":"sid"}"#));
    }

    fn pi16() -> Pi {
        Pi::new(crate::PiVersion::V1_6_0).unwrap()
    }

    fn with(mut m: Model, key: &str, value: Value) -> Model {
        m.obj.insert(key, value);
        m
    }

    #[test]
    fn from_0_99_the_level_map_decides_the_reasoning_fields() {
        let ctx = LlmContext::transcript(msgs(r#"[{"role":"user","content":"hi"}]"#));
        let map = js::parse(r#"{"off":"none","minimal":null,"high":"hi"}"#).unwrap();
        let mapped = with(model("lab", true, &["text"]), "thinkingLevelMap", map);
        let body = |m: &Model, level: Option<&str>| {
            build(&pi16(), m, &ctx, &opts(level), &mut Events::default())
                .unwrap()
                .body
        };
        // Off: `map.off` is sent; a level the map names: its value; one it does not: "high".
        assert!(body(&mapped, None).contains(r#""reasoning_effort":"none""#));
        assert!(body(&mapped, Some("high")).contains(r#""reasoning_effort":"hi""#));
        assert!(body(&mapped, Some("low")).contains(r#""reasoning_effort":"high""#));
        // The 0.85 id list no longer matters: no map, prompt_mode (and nothing when off).
        let small = model("mistral-small-latest", true, &["text"]);
        let b = body(&small, Some("low"));
        assert!(b.contains(r#""prompt_mode":"reasoning""#) && !b.contains("reasoning_effort"));
        let b = body(&small, None);
        assert!(!b.contains("prompt_mode") && !b.contains("reasoning_effort"));
        // A map on a model with reasoning: false is ignored.
        let map = js::parse(r#"{"off":"none"}"#).unwrap();
        let plain = with(model("lab", false, &["text"]), "thinkingLevelMap", map);
        assert!(!body(&plain, None).contains("reasoning_effort"));
    }

    #[test]
    fn system_messages_render_by_position_and_collapse_without_the_flag() {
        let ctx = LlmContext::transcript(msgs(
            r#"[{"role":"user","content":"q"},{"role":"system","content":"BASE","sections":{"cwd":"<cwd>/a</cwd>"},"toolsAdded":[{"name":"read","description":"r","parameters":{"type":"object","properties":{}},"constrainedSampling":{"type":"json_schema","strict":"prefer"}}],"timestamp":1},{"role":"system","content":"","toolsRemoved":[{"name":"read"}],"timestamp":2},{"role":"user","content":"z"}]"#,
        ));
        let keep = with(
            model("lab", false, &["text"]),
            "compat",
            js::parse(r#"{"supportsMidConvoSystemMessages":true,"supportsStrictMode":true}"#)
                .unwrap(),
        );
        let req = build(&pi16(), &keep, &ctx, &opts(None), &mut Events::default()).unwrap();
        // Not at index 0, the full system message reads as an update; the tools-only one sends
        // nothing, and its removal leaves no tools.
        assert_eq!(
            req.body,
            r#"{"model":"lab","stream":true,"messages":[{"role":"user","content":"q"},{"role":"system","content":"BASE\n\nUpdated system prompt section \"cwd\":\n\n<cwd>/a</cwd>"},{"role":"user","content":"z"}],"max_tokens":4096,"prompt_cache_key":"sid"}"#
        );
        let mut two = ctx.clone();
        two.messages.truncate(2);
        let collapsed = build(
            &pi16(),
            &model("lab", false, &["text"]),
            &two,
            &opts(None),
            &mut Events::default(),
        )
        .unwrap();
        assert!(collapsed.body.starts_with(
            r#"{"model":"lab","stream":true,"messages":[{"role":"system","content":"BASE\n\n<cwd>/a</cwd>"},{"role":"user","content":"q"}],"tools":[{"type":"function","function":{"name":"read","description":"r","parameters":{"type":"object","properties":{}},"strict":false}}]"#
        ));
        // With compat.supportsStrictMode the strict-prefer tool is made strict.
        let strict = build(&pi16(), &keep, &two, &opts(None), &mut Events::default()).unwrap();
        assert!(strict.body.contains(
            r#""parameters":{"type":"object","properties":{},"required":[],"additionalProperties":false},"strict":true"#
        ));
    }

    #[test]
    fn identity_headers_come_first() {
        let ctx = LlmContext::default();
        let o = StreamOptions {
            identity_headers: vec![
                ("User-Agent".into(), "pi/1.6.0".into()),
                ("HTTP-Referer".into(), "https://pi.dev".into()),
            ],
            ..opts(None)
        };
        let req = build(
            &pi16(),
            &model("lab", false, &["text"]),
            &ctx,
            &o,
            &mut Events::default(),
        )
        .unwrap();
        let names: Vec<&str> = req.headers.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            names,
            [
                "user-agent",
                "http-referer",
                "accept",
                "authorization",
                "content-type",
                "x-affinity"
            ]
        );
    }

    #[test]
    fn odd_messages_error_instead_of_panicking() {
        let m = model("codestral-latest", false, &["text"]);
        for bad in [
            r#"[null]"#,
            r#"[{"role":"toolResult","toolCallId":"x","content":"text"}]"#,
            r#"[{"role":"user","content":[{"type":"text","text":5}]}]"#,
            r#"[{"role":"user","content":[null]}]"#,
            r#"[{"role":"assistant","content":[{"type":"thinking"}],"stopReason":"stop"}]"#,
        ] {
            let ctx = LlmContext::prompt("s".into(), msgs(bad), Vec::new());
            let _ = build(&pi(), &m, &ctx, &opts(None), &mut Events::default());
        }
        let ctx = LlmContext::prompt("s".into(), Vec::new(), Vec::new());
        let no_key = StreamOptions {
            api_key: String::new(),
            ..opts(None)
        };
        assert!(build(&pi(), &m, &ctx, &no_key, &mut Events::default()).is_err());
    }

    #[test]
    fn non_text_user_blocks_on_a_vision_model_become_image_urls() {
        let m = model("pixtral-12b", false, &["text", "image"]);
        let ctx = LlmContext::prompt(
            String::new(),
            msgs(
                r#"[{"role":"user","content":[{"type":"image","mimeType":"image/png","data":"AA"},{"type":"text","text":"x"}]}]"#,
            ),
            Vec::new(),
        );
        let req = build(&pi(), &m, &ctx, &opts(None), &mut Events::default()).unwrap();
        assert!(req.body.contains(r#"[{"type":"image_url","image_url":"data:image/png;base64,AA"},{"type":"text","text":"x"}]"#));
    }

    #[test]
    fn remap_moves_keys_to_the_end() {
        let payload = Object::new()
            .with("model", "m")
            .with("stream", true)
            .with("messages", Vec::<Value>::new())
            .with("maxTokens", 5.0)
            .with("promptMode", "reasoning")
            .with("promptCacheKey", "s");
        let wire = Value::Object(to_mistral_wire_payload(&payload)).to_json();
        assert_eq!(
            wire,
            r#"{"model":"m","stream":true,"messages":[],"max_tokens":5,"prompt_mode":"reasoning","prompt_cache_key":"s"}"#
        );
    }
}

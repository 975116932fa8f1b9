//! pi-ai `dist/api/openai-codex-responses.js`: the ChatGPT (Codex) Responses adapter. pi builds one body and sends it either over a WebSocket (the default,
//! `transport: "auto"`) or as an HTTP POST with an SSE answer (`transport: "sse"` in
//! settings.json). This module reproduces the SSE request: `POST {baseUrl}/codex/responses` with
//! the JSON body, which Node ≥ 22.15 sends zstd-compressed (`content-encoding: zstd`; the body
//! here is the uncompressed JSON, as the oracle stores it). The WebSocket variant is described by
//! an event on the request. The conversions are [`super::openai_responses_shared`]'s.

use super::openai_prompt_cache::clamp_openai_prompt_cache_key;
use super::openai_responses_shared::{
    self as shared, compat_flag, convert_responses_messages, convert_responses_tools,
    ConvertOptions, ToolOptions,
};
use super::{body, constrained_sampling, err, AdapterError, Request, StreamOptions};
use crate::context::LlmContext;
use crate::js::{self, to_js_string, Object, Value};
use crate::model::{self, Model};
use crate::pi::Pi;
use crate::tools::ToolDef;
use crate::trace::{Event, EventKind, Events};

/// `DEFAULT_CODEX_BASE_URL` (:19).
const DEFAULT_CODEX_BASE_URL: &str = "https://chatgpt.com/backend-api";

/// `JWT_CLAIM_PATH` (:20).
const JWT_CLAIM_PATH: &str = "https://api.openai.com/auth";

/// `CODEX_TOOL_CALL_PROVIDERS` (:28).
const CODEX_TOOL_CALL_PROVIDERS: [&str; 3] = ["openai", "openai-codex", "opencode"];

/// `MIN_OUTPUT_TOKENS` (1.6.0/AI/api/openai-codex-responses.js:33).
const MIN_OUTPUT_TOKENS: f64 = 16.0;

/// `OPENAI_BETA_RESPONSES_WEBSOCKETS` (:629): the beta header of the WebSocket transport.
const OPENAI_BETA_RESPONSES_WEBSOCKETS: &str = "responses_websockets=2026-02-06";

/// A literal of the `openaiCodexResponses` group in data/pi-0.85.1/strings.json.
fn data_value(pi: &Pi, key: &str) -> Option<&'static Value> {
    pi.data
        .strings
        .get("openaiCodexResponses")
        .and_then(|g| g.get(key))
}

/// `streamSimple` (:352–370) → `stream` (:142–351), up to the SSE request: the key check,
/// `extractAccountId`, `buildRequestBody`, `buildSSEHeaders`, the zstd header.
pub fn build(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    opts: &StreamOptions,
    events: &mut Events,
) -> Result<Request, AdapterError> {
    if opts.api_key.is_empty() {
        return Err(err(format!(
            "No API key for provider: {}",
            model.provider()
        )));
    }
    let clamped = opts
        .reasoning
        .as_deref()
        .filter(|r| !r.is_empty())
        .map(|r| model::clamp_thinking_level(model, r, events));
    let reasoning_effort = match clamped.filter(|level| level != "off") {
        Some(level) => Some(level),
        // 0.86.0: "Off is sent as effort none, so with configuration_update items switching
        // to it keeps the cache" (1.6.0/AI/api/openai-codex-responses.js:372).
        // 1.6.0 (with configuration_update items); 0.86–1.5 send off in `buildRequestBody`'s
        // fallback branch instead (no summary).
        None if pi.rules.responses.codex_off_effort
            && pi.rules.responses.codex_configuration_update
            && model.reasoning() =>
        {
            Some("none".to_string())
        }
        None => None,
    };
    // The clamp reads the transcript before its system messages are placed; 0.85 computes
    // it too but sends no output limit.
    let model_max = crate::messages::model_max_tokens(model);
    let max_tokens = crate::messages::clamp_max_tokens_to_context(pi, model, ctx, model_max);
    if pi.rules.responses.codex_max_output_tokens
        && max_tokens != model_max
        && !(max_tokens.is_nan() && model_max.is_nan())
    {
        events.push(
            Event::new(
                EventKind::Clamped,
                format!(
                    "maxTokens {} → {} to fit the context window",
                    js::number_to_string(model_max),
                    js::number_to_string(max_tokens)
                ),
            )
            .at("AI/api/simple-options.js:4"),
        );
    }
    // 0.86 on: `resolveTranscript(context, model.compat?.supportsMidConvoSystemMessages)` (:153).
    let resolved;
    let ctx = if ctx.is_transcript() {
        resolved = crate::transcript::resolve_context(
            pi,
            ctx,
            compat_flag(model, "supportsMidConvoSystemMessages", false),
            "1.6.0/AI/api/openai-codex-responses.js:153",
            events,
        );
        &resolved
    } else {
        ctx
    };
    let account_id = match (extract_account_id(&opts.api_key), &opts.switched_from) {
        (Ok(id), _) => id,
        (Err(e), Some(from)) => {
            events.push(Event::new(
                EventKind::Replaced,
                format!("the key is not a ChatGPT token, so pi would fail here ({}); switched from {from}, the chatgpt-account-id header shows a stand-in", e.message),
            )
            .at("AI/api/openai-codex-responses.js:1247"));
            SWITCHED_ACCOUNT_ID.to_string()
        }
        (Err(e), None) => return Err(e),
    };
    let supports_grammar = compat_flag(model, "supportsOpenAIGrammarTools", false);
    let grammar_tools = crate::transcript::declared_or_context_tools(ctx);
    let grammar_props = constrained_sampling::create_grammar_tool_input_properties(
        &grammar_tools,
        supports_grammar,
    )?;
    // The coding agent never sets `cacheRetention`, and PI_CACHE_RETENTION is not read here.
    let codex_session_id = clamp_openai_prompt_cache_key(opts.session_id.as_deref());
    let cfg_effort = configuration_update_effort(pi, model, reasoning_effort.as_deref());
    let body_options = BodyOptions {
        reasoning_effort: reasoning_effort.as_deref(),
        max_tokens,
        configuration_update_effort: cfg_effort,
        cache_session_id: codex_session_id.as_deref(),
        grammar_tool_input_properties: &grammar_props,
    };
    let params = build_request_body(pi, model, ctx, &body_options, events)?;
    let mut headers = build_sse_headers(
        pi,
        model.headers(),
        opts,
        &account_id,
        codex_session_id.as_deref(),
    );
    // `compressRequestBodyZstd` (:124–141): Node ≥ 22.15 has `zlib.zstdCompressSync`.
    set_header(&mut headers, "content-encoding", "zstd");
    events.push(
        Event::new(EventKind::Note, "the body goes out zstd-compressed (level 3, content-encoding: zstd); shown here uncompressed")
            .at("AI/api/openai-codex-responses.js:124"),
    );
    events.push(websocket_note(model, codex_session_id.as_deref()));
    // `instructions` is the system prompt's text.
    let (body, accounting) =
        body::written_with_root(&params, &[("instructions", body::Tag::System)]);
    Ok(Request {
        method: "POST",
        url: resolve_codex_url(model.obj.get("baseUrl")),
        headers,
        sent: params.clone(),
        params,
        body,
        accounting,
        url_note: None,
    })
}

/// The WebSocket transport that pi uses by default (:183–241, 1153–1186, 1289–1299).
fn websocket_note(model: &Model, session_id: Option<&str>) -> Event {
    let url = resolve_codex_url(model.obj.get("baseUrl"));
    let ws_url = if let Some(rest) = url.strip_prefix("https:") {
        format!("wss:{rest}")
    } else if let Some(rest) = url.strip_prefix("http:") {
        format!("ws:{rest}")
    } else {
        url
    };
    let request_id = match session_id {
        Some(id) => format!("the session id {id:?}"),
        None => "a fresh uuidv7()".to_string(),
    };
    Event::new(
        EventKind::Note,
        format!(
            "this is the SSE request (settings transport \"sse\"). With pi's default transport \"auto\" the same body is first sent over a \
             WebSocket to {ws_url} as one uncompressed text frame {{\"type\":\"response.create\", ...body}}, with headers OpenAI-Beta: \
             {OPENAI_BETA_RESPONSES_WEBSOCKETS} (no accept, content-type or content-encoding) and x-client-request-id/session-id = \
             {request_id}; a reused socket whose previous body (minus input) matches sends previous_response_id plus only the new input \
             items; a WebSocket failure falls back to this SSE request for the rest of the session"
        ),
    )
    .at("AI/api/openai-codex-responses.js:1184")
}

/// `atob(text)`: forgiving base64 (whitespace ignored, up to two trailing `=` when the length is
/// a multiple of 4), each byte a Latin-1 character. `None` where `atob` throws.
fn atob(text: &str) -> Option<String> {
    let mut s: Vec<u8> = text
        .bytes()
        .filter(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\x0c' | b'\r'))
        .collect();
    if s.len() % 4 == 0 {
        for _ in 0..2 {
            if s.last() == Some(&b'=') {
                s.pop();
            }
        }
    }
    if s.len() % 4 == 1 {
        return None;
    }
    let mut bits: u32 = 0;
    let mut n_bits = 0;
    let mut out = String::with_capacity(s.len() * 3 / 4);
    for b in s {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(v);
        n_bits += 6;
        if n_bits >= 8 {
            n_bits -= 8;
            out.push(char::from(((bits >> n_bits) & 0xff) as u8));
        }
    }
    Some(out)
}

/// The `chatgpt-account-id` shown when a switched protocol has no ChatGPT token to read it from.
const SWITCHED_ACCOUNT_ID: &str = "<account id of your ChatGPT token>";

/// `extractAccountId(token)` (:1247–1261): the `chatgpt_account_id` claim of the JWT payload.
fn extract_account_id(token: &str) -> Result<String, AdapterError> {
    let fail = || {
        err("Failed to extract accountId from token (the openai-codex key must be a JWT with a chatgpt_account_id claim)")
    };
    let parts: Vec<&str> = token.split('.').collect();
    if parts.len() != 3 {
        return Err(fail());
    }
    let payload = atob(parts[1])
        .and_then(|p| js::parse(&p).ok())
        .ok_or_else(fail)?;
    let account = payload
        .get(JWT_CLAIM_PATH)
        .and_then(|c| c.get("chatgpt_account_id"))
        .filter(|a| a.truthy())
        .ok_or_else(fail)?;
    Ok(to_js_string(Some(account)))
}

/// `resolveCodexUrl(baseUrl)` (:455–463): `…/codex/responses`, from a base ending in
/// `/codex/responses`, `/codex` or neither; the default base when blank.
fn resolve_codex_url(base_url: Option<&Value>) -> String {
    let raw = match base_url {
        Some(v) if v.truthy() => to_js_string(Some(v)),
        _ => String::new(),
    };
    let raw = if js::js_trim_is_empty(&raw) {
        DEFAULT_CODEX_BASE_URL.to_string()
    } else {
        raw
    };
    let normalized = raw.trim_end_matches('/');
    if normalized.ends_with("/codex/responses") {
        normalized.to_string()
    } else if normalized.ends_with("/codex") {
        format!("{normalized}/responses")
    } else {
        format!("{normalized}/codex/responses")
    }
}

/// `headers.set(name, value)` on a fetch `Headers`: replaces in place (names are
/// case-insensitive, kept lower-case here), else appends.
fn set_header(headers: &mut Vec<(String, String)>, name: &str, value: &str) {
    let lower = name.to_ascii_lowercase();
    let value = crate::js::headers::normalize_value(value).to_string();
    match headers.iter_mut().find(|(k, _)| *k == lower) {
        Some(slot) => slot.1 = value,
        None => headers.push((lower, value)),
    }
}

/// `buildBaseCodexHeaders` (:1262–1277; 1.6.0/AI/api/openai-codex-responses.js:1306–1322) +
/// `buildSSEHeaders` (:1278–1288). 0.85: model headers, configured headers, then
/// `Authorization` (redacted), `chatgpt-account-id`, `originator`, `User-Agent`. From 1.1.0
/// `originator` and the client identity come first, as defaults the model headers (each `set`)
/// and the configured headers override, then `Authorization`, `chatgpt-account-id`. Then
/// `OpenAI-Beta`, `accept`, `content-type`, and the session id as `session-id` and
/// `x-client-request-id`. fetch adds its runtime headers (host, connection, content-length,
/// accept-language, sec-fetch-mode, accept-encoding), which are left out.
fn build_sse_headers(
    pi: &Pi,
    model_headers: Option<&Object>,
    opts: &StreamOptions,
    account_id: &str,
    session_id: Option<&str>,
) -> Vec<(String, String)> {
    let overridable = pi.rules.responses.codex_overridable_identity;
    let mut headers: Vec<(String, String)> = Vec::new();
    if overridable {
        // `new Headers({originator: "pi", ...getIdentityHeaders(model, identity)})`.
        set_header(&mut headers, "originator", "pi");
        for (k, v) in &opts.identity_headers {
            set_header(&mut headers, k, v);
        }
    }
    if let Some(init) = model_headers {
        for (k, v) in init.iter() {
            let lower = k.to_ascii_lowercase();
            let value = crate::js::headers::header_value(v);
            if overridable {
                // `headers.set(key, value)` per model header.
                set_header(&mut headers, &lower, &value);
                continue;
            }
            // `new Headers(record)` appends; a repeated name joins with ", ".
            match headers.iter_mut().find(|(n, _)| *n == lower) {
                Some(slot) => slot.1 = format!("{}, {value}", slot.1),
                None => headers.push((lower, value)),
            }
        }
    }
    for (k, v) in &opts.headers {
        set_header(&mut headers, k, v);
    }
    set_header(&mut headers, "Authorization", "<redacted>");
    set_header(&mut headers, "chatgpt-account-id", account_id);
    if !overridable {
        set_header(&mut headers, "originator", "pi");
        set_header(&mut headers, "User-Agent", &opts.user_agent);
    }
    set_header(&mut headers, "OpenAI-Beta", "responses=experimental");
    set_header(&mut headers, "accept", "text/event-stream");
    set_header(&mut headers, "content-type", "application/json");
    if let Some(sid) = session_id.filter(|s| !s.is_empty()) {
        set_header(&mut headers, "session-id", sid);
        set_header(&mut headers, "x-client-request-id", sid);
    }
    headers
}

/// `resolveReasoningEffort(model, reasoningEffort)` (1.6.0/AI/api/openai-codex-responses.js:
/// 388–393): "none" is the model's off effort (`thinkingLevelMap.off`, "none" when the map
/// does not say; `null`: no reasoning field), another level its mapping (`?? level`).
fn resolve_reasoning_effort(model: &Model, effort: &str) -> Value {
    let map = model.thinking_level_map();
    if effort == "none" {
        return match map.and_then(|m| m.get("off")) {
            None => Value::str("none"),
            Some(v) => v.clone(),
        };
    }
    match map.and_then(|m| m.get(effort)) {
        None | Some(Value::Null) => Value::str(effort),
        Some(v) => v.clone(),
    }
}

/// `getConfigurationUpdateEffort(model, options)` (1.6.0/AI/api/openai-codex-responses.js:
/// 382–386): with `compat.supportsMidConvoEffort`, the resolved effort of any level, off
/// ("none") included, unless it resolves to `null`.
fn configuration_update_effort(pi: &Pi, model: &Model, effort: Option<&str>) -> Option<Value> {
    if !pi.rules.responses.codex_configuration_update
        || !model
            .compat_value("supportsMidConvoEffort")
            .is_some_and(Value::truthy)
    {
        return None;
    }
    Some(resolve_reasoning_effort(model, effort?)).filter(|v| !v.is_null())
}

/// What `buildRequestBody` reads besides the model and context: `options.reasoningEffort` (the
/// clamped level), the output limit, the `configuration_update` level (`None` without
/// `compat.supportsMidConvoEffort`), `cacheSessionId` and `grammarToolInputProperties`.
struct BodyOptions<'a> {
    reasoning_effort: Option<&'a str>,
    max_tokens: f64,
    configuration_update_effort: Option<Value>,
    cache_session_id: Option<&'a str>,
    grammar_tool_input_properties: &'a [(String, String)],
}

/// `buildRequestBody(model, context, options, cacheSessionId, grammarToolInputProperties)`
/// (:371–428; 1.6.0/AI/api/openai-codex-responses.js:394–457): no max tokens
/// or sampling params, tools with `strict: null`. 0.85: the system prompt in `instructions`,
/// reasoning only when thinking is on. 1.6.0: the system messages as input items (no
/// `instructions`), `max_output_tokens`, the transcript's tools by the tool support mode, off
/// sent as the model's off effort, the level in `configuration_update` items.
fn build_request_body(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    options: &BodyOptions,
    events: &mut Events,
) -> Result<Value, AdapterError> {
    let supports_strict_mode = compat_flag(model, "supportsStrictMode", true);
    let supports_grammar_tools = compat_flag(model, "supportsOpenAIGrammarTools", false);
    let tool_options = ToolOptions {
        strict: Some(Value::Null),
        supports_strict_mode: Some(supports_strict_mode),
        supports_grammar_tools,
        defer_loading: false,
    };
    let (input, request_tools) =
        convert_input_and_tools(pi, model, ctx, options, &tool_options, events)?;

    let verbosity = pi
        .data
        .string("openaiCodexResponses", "defaultTextVerbosity");
    let include = data_value(pi, "include")
        .cloned()
        .unwrap_or_else(|| Value::Array(vec![Value::str("reasoning.encrypted_content")]));
    let mut body = Object::new()
        .with("model", model.id())
        .with("store", false)
        .with("stream", true);
    body.insert_opt(
        "instructions",
        instructions(pi, ctx, events).map(Value::from),
    );
    body.insert("input", Value::Array(input));
    body.insert("text", Object::new().with("verbosity", verbosity).into());
    body.insert("include", include);
    body.insert_opt("prompt_cache_key", options.cache_session_id.map(Value::str));
    body.insert("tool_choice", Value::str("auto"));
    body.insert("parallel_tool_calls", Value::Bool(true));
    if pi.rules.responses.codex_max_output_tokens
        && options.max_tokens != 0.0
        && !options.max_tokens.is_nan()
        && compat_flag(model, "supportsMaxOutputTokens", true)
    {
        body.insert(
            "max_output_tokens",
            Value::Number(js::js_max(options.max_tokens, MIN_OUTPUT_TOKENS)),
        );
    }
    if !request_tools.is_empty() {
        body.insert(
            "tools",
            Value::Array(convert_responses_tools(
                pi,
                &request_tools,
                &tool_options,
                events,
            )?),
        );
    }
    body.insert_opt("reasoning", reasoning_param(pi, model, options, events));
    Ok(body.into())
}

/// `convertResponsesMessages(model, context, CODEX_TOOL_CALL_PROVIDERS, {...})` and the tools the
/// request declares: 0.86 on the transcript's (`resolveTranscriptTools`), 0.85
/// `splitDeferredTools(context, deferredToolsMode !== undefined).immediate`.
fn convert_input_and_tools(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    options: &BodyOptions,
    tool_options: &ToolOptions,
    events: &mut Events,
) -> Result<(Vec<Value>, Vec<ToolDef>), AdapterError> {
    if ctx.is_transcript() {
        let convert_options = ConvertOptions {
            grammar_tool_input_properties: options.grammar_tool_input_properties,
            tool_options: tool_options.clone(),
            supports_mid_convo_system_messages: compat_flag(
                model,
                "supportsMidConvoSystemMessages",
                false,
            ),
            supports_additional_tools: compat_flag(model, "supportsAdditionalTools", false),
            supports_tool_search: compat_flag(model, "supportsToolSearch", false),
            configuration_update_effort: options.configuration_update_effort.clone(),
            skip_leading_system_message: !pi.rules.responses.codex_prompt_in_input,
            ..ConvertOptions::default()
        };
        return shared::transcript_input_and_tools(
            pi,
            model,
            ctx,
            &CODEX_TOOL_CALL_PROVIDERS,
            &convert_options,
            events,
        );
    }
    let deferred_tools_mode = if model
        .compat_value("supportsAdditionalTools")
        .is_some_and(Value::truthy)
    {
        Some("additional-tools")
    } else if model
        .compat_value("supportsToolSearch")
        .is_some_and(Value::truthy)
    {
        Some("tool-search")
    } else {
        None
    };
    let placement = shared::split_deferred_tools(ctx, deferred_tools_mode.is_some(), events)?;
    let convert_options = ConvertOptions {
        include_system_prompt: false,
        grammar_tool_input_properties: options.grammar_tool_input_properties,
        deferred_tools: Some(&placement.deferred),
        deferred_tools_mode,
        tool_options: tool_options.clone(),
        ..ConvertOptions::default()
    };
    let input = convert_responses_messages(
        pi,
        model,
        ctx,
        &CODEX_TOOL_CALL_PROVIDERS,
        &convert_options,
        events,
    )?;
    Ok((input, placement.immediate))
}

/// `instructions: <the system prompt> || "You are a helpful assistant."`; `None` in 1.6.0,
/// where the system prompt is the leading input item.
fn instructions(pi: &Pi, ctx: &LlmContext, events: &mut Events) -> Option<String> {
    if pi.rules.responses.codex_prompt_in_input {
        events.push(
            Event::new(
                EventKind::Note,
                "no instructions member: the system prompt is the leading input item",
            )
            .at("1.6.0/AI/api/openai-codex-responses.js:404"),
        );
        return None;
    }
    // 0.86–1.5: the leading system message's text (`getInitialSystemMessage`,
    // 1.5.2/AI/api/openai-codex-responses.js:393); 0.85: the prompt string.
    let prompt = if ctx.is_transcript() {
        ctx.messages
            .first()
            .filter(|m| m.get_str("role") == Some("system"))
            .map(|m| crate::transcript::system_message_text(pi, m))
            .unwrap_or_default()
    } else {
        ctx.system_prompt().to_string()
    };
    if prompt.is_empty() {
        let default = pi
            .data
            .string("openaiCodexResponses", "defaultInstructions");
        events.push(
            Event::new(
                EventKind::Inserted,
                format!("no system prompt: instructions {default:?}"),
            )
            .at("AI/api/openai-codex-responses.js:397"),
        );
        Some(default.to_string())
    } else {
        events.push(
            Event::new(
                EventKind::Note,
                "the system prompt goes to `instructions`, not into input",
            )
            .at("AI/api/openai-codex-responses.js:397"),
        );
        Some(prompt)
    }
}

/// `body.reasoning`: `{effort, summary: "auto"}` when a thinking level is set (0.85 its
/// `thinkingLevelMap` entry `?? level`), 0.86–1.5 `{effort: off}` for off on a reasoning model.
fn reasoning_param(
    pi: &Pi,
    model: &Model,
    options: &BodyOptions,
    events: &mut Events,
) -> Option<Value> {
    match options.reasoning_effort {
        Some(effort) if pi.rules.responses.codex_off_effort => resolved_reasoning(
            pi,
            model,
            effort,
            options.configuration_update_effort.as_ref(),
            events,
        ),
        Some(effort) => {
            let map = model.thinking_level_map();
            let mapped = match map.and_then(|m| m.get(effort)) {
                None | Some(Value::Null) => Value::str(effort),
                Some(v) => v.clone(),
            };
            events.push(
                Event::new(
                    EventKind::Converted,
                    format!("thinking level {effort} → reasoning.effort {mapped:?}"),
                )
                .at("AI/api/openai-codex-responses.js:412"),
            );
            Some(
                Object::new()
                    .with("effort", mapped)
                    .with("summary", "auto")
                    .into(),
            )
        }
        // 0.86–1.5: off on a reasoning model sends `{effort: map.off ?? "none"}` without a
        // summary, unless the map says null (1.5.2/AI/api/openai-codex-responses.js:433–435).
        None if pi.rules.responses.codex_off_effort
            && model.reasoning()
            && !matches!(
                model.thinking_level_map().and_then(|m| m.get("off")),
                Some(Value::Null)
            ) =>
        {
            let effort = match model.thinking_level_map().and_then(|m| m.get("off")) {
                None => Value::str("none"),
                Some(v) => v.clone(),
            };
            events.push(
                Event::new(
                    EventKind::Converted,
                    format!(
                        "thinking off → reasoning.effort {} (no summary)",
                        effort.to_json()
                    ),
                )
                .at("1.5.2/AI/api/openai-codex-responses.js:433"),
            );
            Some(Object::new().with("effort", effort).into())
        }
        None => {
            events.push(
                Event::new(EventKind::Note, "thinking off: no reasoning member")
                    .at("AI/api/openai-codex-responses.js:411"),
            );
            None
        }
    }
}

/// 0.86 on (`options.reasoningEffort !== undefined`): `{effort, summary: "auto"}` with the fixed
/// effort when the level goes in `configuration_update` items, else `resolveReasoningEffort`;
/// no reasoning when that is `null`.
fn resolved_reasoning(
    pi: &Pi,
    model: &Model,
    effort: &str,
    cfg_effort: Option<&Value>,
    events: &mut Events,
) -> Option<Value> {
    let effort_value = match cfg_effort {
        Some(level) => {
            let fixed = pi
                .data
                .string("openaiCodexResponses", "configurationUpdateEffort");
            events.push(
                Event::new(
                    EventKind::Converted,
                    format!("thinking level {effort} → configuration_update {}; reasoning.effort is the fixed {fixed:?}", level.to_json()),
                )
                .at("1.6.0/AI/api/openai-codex-responses.js:443"),
            );
            Value::str(fixed)
        }
        None => resolve_reasoning_effort(model, effort),
    };
    if effort_value.is_null() {
        events.push(
            Event::new(
                EventKind::Dropped,
                format!("thinking {effort}: the model's thinkingLevelMap maps it to null, no reasoning member"),
            )
            .at("1.6.0/AI/api/openai-codex-responses.js:446"),
        );
        return None;
    }
    if cfg_effort.is_none() {
        events.push(
            Event::new(
                EventKind::Converted,
                format!(
                    "thinking level {} → reasoning.effort {}",
                    if effort == "none" { "off" } else { effort },
                    effort_value.to_json()
                ),
            )
            .at("1.6.0/AI/api/openai-codex-responses.js:444"),
        );
    }
    Some(
        Object::new()
            .with("effort", effort_value)
            .with("summary", "auto")
            .into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_end_in_codex_responses() {
        assert_eq!(
            resolve_codex_url(None),
            "https://chatgpt.com/backend-api/codex/responses"
        );
        assert_eq!(
            resolve_codex_url(Some(&Value::str("http://h/x/codex/"))),
            "http://h/x/codex/responses"
        );
        assert_eq!(
            resolve_codex_url(Some(&Value::str("http://h/codex/responses//"))),
            "http://h/codex/responses"
        );
        assert_eq!(
            resolve_codex_url(Some(&Value::str("http://h/v1"))),
            "http://h/v1/codex/responses"
        );
    }

    #[test]
    fn account_id_comes_from_the_jwt_claim() {
        // {"https://api.openai.com/auth":{"chatgpt_account_id":"acc_1"}}
        let payload =
            "eyJodHRwczovL2FwaS5vcGVuYWkuY29tL2F1dGgiOnsiY2hhdGdwdF9hY2NvdW50X2lkIjoiYWNjXzEifX0";
        assert_eq!(
            extract_account_id(&format!("h.{payload}.s"))
                .ok()
                .as_deref(),
            Some("acc_1")
        );
        assert!(extract_account_id("test-key").is_err());
        assert!(extract_account_id("a.b.c").is_err());
    }
}

#[cfg(test)]
mod effort_tests {
    use super::*;

    fn model(map: &str, compat: &str) -> Model {
        Model {
            obj: Object::new()
                .with("id", "gpt-x")
                .with("api", "openai-codex-responses")
                .with("provider", "openai-codex")
                .with("reasoning", true)
                .with("input", Value::Array(vec![Value::str("text")]))
                .with("contextWindow", 200000.0)
                .with("maxTokens", 8000.0)
                .with("thinkingLevelMap", js::parse(map).unwrap())
                .with("compat", js::parse(compat).unwrap()),
        }
    }

    fn body(model: &Model) -> Value {
        // {"https://api.openai.com/auth":{"chatgpt_account_id":"acc_1"}}
        let jwt = "h.eyJodHRwczovL2FwaS5vcGVuYWkuY29tL2F1dGgiOnsiY2hhdGdwdF9hY2NvdW50X2lkIjoiYWNjXzEifX0.s";
        let pi = Pi::new(crate::PiVersion::V1_6_0).unwrap();
        let ctx = LlmContext::transcript(vec![js::parse(
            r#"{"role":"user","content":"q","timestamp":2}"#,
        )
        .unwrap()]);
        let opts = StreamOptions {
            reasoning: None,
            api_key: jwt.into(),
            ..StreamOptions::default()
        };
        build(&pi, model, &ctx, &opts, &mut Events::default())
            .unwrap()
            .params
    }

    /// Off is effort "none", resolved through `thinkingLevelMap.off`; a `null` off
    /// sends no reasoning and no configuration_update (the CLI clamps such a model's off to
    /// another level first, so only the adapter reaches this).
    #[test]
    fn off_resolves_through_the_map() {
        let cfg = r#"{"supportsMidConvoEffort":true}"#;
        let none = body(&model("{}", cfg));
        let input = none.get("input").and_then(Value::as_array).unwrap();
        assert_eq!(
            input.last().map(Value::to_json).as_deref(),
            Some(r#"{"type":"configuration_update","reasoning":{"effort":"none"}}"#)
        );
        assert_eq!(
            none.get("reasoning").map(Value::to_json).as_deref(),
            Some(r#"{"effort":"medium","summary":"auto"}"#)
        );
        let null = body(&model(r#"{"off":null}"#, cfg));
        assert_eq!(null.get("reasoning"), None);
        let input = null.get("input").and_then(Value::as_array).unwrap();
        assert!(input
            .iter()
            .all(|i| i.get_str("type") != Some("configuration_update")));
        let minimal = body(&model(r#"{"off":"minimal"}"#, "{}"));
        assert_eq!(
            minimal.get("reasoning").map(Value::to_json).as_deref(),
            Some(r#"{"effort":"minimal","summary":"auto"}"#)
        );
        // No system message: no instructions member and no prompt item.
        assert_eq!(minimal.get("instructions"), None);
        assert_eq!(
            minimal
                .get("input")
                .and_then(Value::as_array)
                .map(|a| a.len()),
            Some(1)
        );
    }
}

//! pi-ai `dist/api/openai-codex-responses.js` (INVENTORY §4.5, CX1–CX7): the ChatGPT (Codex)
//! Responses adapter. pi builds one body and sends it either over a WebSocket (the default,
//! `transport: "auto"`) or as an HTTP POST with an SSE answer (`transport: "sse"` in
//! settings.json). This module reproduces the SSE request: `POST {baseUrl}/codex/responses` with
//! the JSON body, which Node ≥ 22.15 sends zstd-compressed (`content-encoding: zstd`; the body
//! here is the uncompressed JSON, as the oracle stores it). The WebSocket variant is described by
//! an event on the request (CX7). The conversions are [`super::openai_responses_shared`]'s.

use super::openai_prompt_cache::clamp_openai_prompt_cache_key;
use super::openai_responses_shared::{
    self as shared, compat_flag, convert_responses_messages, convert_responses_tools,
    ConvertOptions, ToolOptions,
};
use super::{constrained_sampling, err, AdapterError, Request, StreamOptions};
use crate::context::LlmContext;
use crate::js::{self, to_js_string, Object, Value};
use crate::model::{self, Model};
use crate::pi::Pi;
use crate::trace::{Event, EventKind, Events};

/// `DEFAULT_CODEX_BASE_URL` (:19).
const DEFAULT_CODEX_BASE_URL: &str = "https://chatgpt.com/backend-api";

/// `JWT_CLAIM_PATH` (:20).
const JWT_CLAIM_PATH: &str = "https://api.openai.com/auth";

/// `CODEX_TOOL_CALL_PROVIDERS` (:28).
const CODEX_TOOL_CALL_PROVIDERS: [&str; 3] = ["openai", "openai-codex", "opencode"];

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
    let reasoning_effort = opts
        .reasoning
        .as_deref()
        .filter(|r| !r.is_empty())
        .map(|r| model::clamp_thinking_level(model, r, events))
        .filter(|level| level != "off");
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
    let grammar_props =
        constrained_sampling::create_grammar_tool_input_properties(&ctx.tools, supports_grammar)?;
    // The coding agent never sets `cacheRetention`, and PI_CACHE_RETENTION is not read here (CX2).
    let codex_session_id = clamp_openai_prompt_cache_key(opts.session_id.as_deref());
    let params = build_request_body(
        pi,
        model,
        ctx,
        reasoning_effort.as_deref(),
        codex_session_id.as_deref(),
        &grammar_props,
        events,
    )?;
    let mut headers = build_sse_headers(
        model.headers(),
        &opts.headers,
        &account_id,
        &opts.user_agent,
        codex_session_id.as_deref(),
    );
    // `compressRequestBodyZstd` (:124–141): Node ≥ 22.15 has `zlib.zstdCompressSync`.
    set_header(&mut headers, "content-encoding", "zstd");
    events.push(
        Event::new(EventKind::Note, "the body goes out zstd-compressed (level 3, content-encoding: zstd); shown here uncompressed")
            .at("AI/api/openai-codex-responses.js:124"),
    );
    events.push(websocket_note(model, codex_session_id.as_deref()));
    let body = params.to_json();
    Ok(Request {
        method: "POST",
        url: resolve_codex_url(model.obj.get("baseUrl")),
        headers,
        params,
        body,
    })
}

/// The WebSocket transport that pi uses by default (CX7; :183–241, 1153–1186, 1289–1299).
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

/// `resolveCodexUrl(baseUrl)` (:455–463; CX6): `…/codex/responses`, from a base ending in
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

/// `buildBaseCodexHeaders` (:1262–1277) + `buildSSEHeaders` (:1278–1288; CX6): model headers,
/// configured headers, then `Authorization` (redacted), `chatgpt-account-id`, `originator`,
/// `User-Agent`, `OpenAI-Beta`, `accept`, `content-type`, and the session id as `session-id` and
/// `x-client-request-id`. fetch adds its runtime headers (host, connection, content-length,
/// accept-language, sec-fetch-mode, accept-encoding), which are left out.
fn build_sse_headers(
    model_headers: Option<&Object>,
    options_headers: &[(String, String)],
    account_id: &str,
    user_agent: &str,
    session_id: Option<&str>,
) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = Vec::new();
    if let Some(init) = model_headers {
        for (k, v) in init.iter() {
            // `new Headers(record)` appends; a repeated name joins with ", ".
            let lower = k.to_ascii_lowercase();
            let value = crate::js::headers::header_value(v);
            match headers.iter_mut().find(|(n, _)| *n == lower) {
                Some(slot) => slot.1 = format!("{}, {value}", slot.1),
                None => headers.push((lower, value)),
            }
        }
    }
    for (k, v) in options_headers {
        set_header(&mut headers, k, v);
    }
    set_header(&mut headers, "Authorization", "<redacted>");
    set_header(&mut headers, "chatgpt-account-id", account_id);
    set_header(&mut headers, "originator", "pi");
    set_header(&mut headers, "User-Agent", user_agent);
    set_header(&mut headers, "OpenAI-Beta", "responses=experimental");
    set_header(&mut headers, "accept", "text/event-stream");
    set_header(&mut headers, "content-type", "application/json");
    if let Some(sid) = session_id.filter(|s| !s.is_empty()) {
        set_header(&mut headers, "session-id", sid);
        set_header(&mut headers, "x-client-request-id", sid);
    }
    headers
}

/// `buildRequestBody(model, context, options, cacheSessionId, grammarToolInputProperties)`
/// (:371–428; CX1, CX3–CX5): `instructions` instead of a system message, no max tokens or
/// sampling params, tools with `strict: null`, reasoning only when thinking is on.
fn build_request_body(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    reasoning_effort: Option<&str>,
    cache_session_id: Option<&str>,
    grammar_props: &[(String, String)],
    events: &mut Events,
) -> Result<Value, AdapterError> {
    let supports_strict_mode = compat_flag(model, "supportsStrictMode", true);
    let supports_grammar_tools = compat_flag(model, "supportsOpenAIGrammarTools", false);
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
    let tool_options = ToolOptions {
        strict: Some(Value::Null),
        supports_strict_mode: Some(supports_strict_mode),
        supports_grammar_tools,
        defer_loading: false,
    };
    let convert_options = ConvertOptions {
        include_system_prompt: false,
        grammar_tool_input_properties: grammar_props,
        deferred_tools: Some(&placement.deferred),
        deferred_tools_mode,
        tool_options: tool_options.clone(),
    };
    let input = convert_responses_messages(
        pi,
        model,
        ctx,
        &CODEX_TOOL_CALL_PROVIDERS,
        &convert_options,
        events,
    )?;

    let instructions = if ctx.system_prompt.is_empty() {
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
        default.to_string()
    } else {
        events.push(
            Event::new(
                EventKind::Note,
                "the system prompt goes to `instructions`, not into input",
            )
            .at("AI/api/openai-codex-responses.js:397"),
        );
        ctx.system_prompt.clone()
    };
    let verbosity = pi
        .data
        .string("openaiCodexResponses", "defaultTextVerbosity");
    let include = data_value(pi, "include")
        .cloned()
        .unwrap_or_else(|| Value::Array(vec![Value::str("reasoning.encrypted_content")]));
    let mut body = Object::new()
        .with("model", model.id())
        .with("store", false)
        .with("stream", true)
        .with("instructions", instructions)
        .with("input", Value::Array(input))
        .with("text", Object::new().with("verbosity", verbosity))
        .with("include", include);
    body.insert_opt("prompt_cache_key", cache_session_id.map(Value::str));
    body.insert("tool_choice", Value::str("auto"));
    body.insert("parallel_tool_calls", Value::Bool(true));
    if !placement.immediate.is_empty() {
        body.insert(
            "tools",
            Value::Array(convert_responses_tools(
                pi,
                &placement.immediate,
                &tool_options,
                events,
            )?),
        );
    }
    if let Some(effort) = reasoning_effort {
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
        body.insert(
            "reasoning",
            Object::new()
                .with("effort", mapped)
                .with("summary", "auto")
                .into(),
        );
    } else {
        events.push(
            Event::new(EventKind::Note, "thinking off: no reasoning member")
                .at("AI/api/openai-codex-responses.js:411"),
        );
    }
    Ok(body.into())
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

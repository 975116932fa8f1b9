//! pi-ai `dist/api/openai-responses.js` (INVENTORY §4.3, AR1–AR5, AR13): the OpenAI Responses
//! adapter, from `streamSimple` down to the request the `openai` SDK 6.40.0 sends
//! (`client.responses.create` → `POST {baseUrl}/responses`, the params serialized with
//! `JSON.stringify`). The message and tool conversions live in
//! [`super::openai_responses_shared`].
//!
//! Values pi reads dynamically stay [`Value`]s: `None` is `undefined`, `Some(Value::Null)` is
//! `null`.

use super::github_copilot_headers::{build_copilot_dynamic_headers, has_copilot_vision_input};
use super::openai_prompt_cache::clamp_openai_prompt_cache_key;
use super::openai_responses_shared::{
    self as shared, compat_flag, convert_responses_messages, convert_responses_tools,
    ConvertOptions, ToolOptions,
};
use super::{cache_retention, constrained_sampling, err, AdapterError, Request, StreamOptions};
use crate::context::LlmContext;
use crate::headers::has_header;
use crate::js::{self, number_to_string, Object, Value};
use crate::messages;
use crate::model::{self, Model};
use crate::pi::Pi;
use crate::trace::{Event, EventKind, Events};

/// `OPENAI_TOOL_CALL_PROVIDERS` (:15): providers whose `call|item` tool-call ids are kept as pairs.
const OPENAI_TOOL_CALL_PROVIDERS: [&str; 3] = ["openai", "openai-codex", "opencode"];

/// `OPENAI_RESPONSES_MIN_OUTPUT_TOKENS` (:17).
const OPENAI_RESPONSES_MIN_OUTPUT_TOKENS: f64 = 16.0;

/// `getCompat(model)` (:51–63; AR2): the compat flags with this adapter's defaults.
#[derive(Clone, Debug)]
struct ResponsesCompat {
    /// `model.compat?.sessionAffinityFormat ?? detectSessionAffinityFormat(model)`.
    session_affinity_format: Value,
    supports_long_cache_retention: bool,
    supports_strict_mode: bool,
    supports_openai_grammar_tools: bool,
    supports_additional_tools: bool,
    supports_tool_search: bool,
    supports_explicit_prompt_cache_mode: bool,
    supports_max_output_tokens: bool,
}

/// `getCompat(model)` (:51–63). `supportsDeveloperRole` is read by the shared conversion
/// straight from `model.compat`.
fn get_compat(model: &Model) -> ResponsesCompat {
    let session_affinity_format = match model.compat_value("sessionAffinityFormat") {
        None | Some(Value::Null) => Value::str(detect_session_affinity_format(model)),
        Some(v) => v.clone(),
    };
    ResponsesCompat {
        session_affinity_format,
        supports_long_cache_retention: compat_flag(model, "supportsLongCacheRetention", true),
        supports_strict_mode: compat_flag(model, "supportsStrictMode", false),
        supports_openai_grammar_tools: compat_flag(model, "supportsOpenAIGrammarTools", false),
        supports_additional_tools: compat_flag(model, "supportsAdditionalTools", false),
        supports_tool_search: compat_flag(model, "supportsToolSearch", false),
        supports_explicit_prompt_cache_mode: compat_flag(
            model,
            "supportsExplicitPromptCacheMode",
            false,
        ),
        supports_max_output_tokens: compat_flag(model, "supportsMaxOutputTokens", true),
    }
}

/// `detectSessionAffinityFormat(model)` (:35–37).
fn detect_session_affinity_format(model: &Model) -> &'static str {
    if model.provider() == "openrouter" || model.base_url().contains("openrouter.ai") {
        "openrouter"
    } else {
        "openai"
    }
}

/// `getPromptCacheRetention(compat, cacheRetention)` (:64–68; AR3).
fn get_prompt_cache_retention(compat: &ResponsesCompat, retention: &str) -> Option<Value> {
    (retention == "long"
        && compat.supports_long_cache_retention
        && !compat.supports_explicit_prompt_cache_mode)
        .then(|| Value::str("24h"))
}

/// `getPromptCacheOptions(compat, cacheRetention)` (:69–77; AR3).
fn get_prompt_cache_options(compat: &ResponsesCompat, retention: &str) -> Option<Value> {
    if !compat.supports_explicit_prompt_cache_mode {
        return None;
    }
    if retention == "none" {
        return Some(Object::new().with("mode", "explicit").into());
    }
    if retention == "long" && compat.supports_long_cache_retention {
        return Some(Object::new().with("ttl", "30m").into());
    }
    None
}

/// `getClientApiKey(provider, apiKey, headers)` (:28–34): pi throws without a key or an
/// authorization header.
fn get_client_api_key(
    provider: &str,
    api_key: &str,
    headers: &[(String, String)],
) -> Result<(), AdapterError> {
    if !api_key.is_empty()
        || has_header(headers, "authorization")
        || has_header(headers, "cf-aig-authorization")
    {
        return Ok(());
    }
    Err(err(format!("No API key for provider: {provider}")))
}

/// The options `stream` receives from `streamSimple` (after `buildBaseOptions`), reduced to
/// what the coding agent sets (no temperature, serviceTier, toolChoice, reasoningSummary or
/// cacheRetention option).
#[derive(Clone, Debug, Default)]
struct ResponsesOptions {
    /// `clampMaxTokensToContext(model, context, model.maxTokens)` (A2).
    max_tokens: f64,
    /// `{...model.samplingParams}` when set (A1).
    sampling_params: Option<Object>,
    /// The clamped thinking level, `None` for off.
    reasoning_effort: Option<String>,
    session_id: Option<String>,
}

/// `streamSimple` (:162–174; AR1) with `buildBaseOptions` (AI/api/simple-options.js:10–35).
fn stream_simple_options(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    opts: &StreamOptions,
    events: &mut Events,
) -> ResponsesOptions {
    let model_max = messages::model_max_tokens(model);
    let max_tokens = messages::clamp_max_tokens_to_context(pi, model, ctx, model_max);
    if max_tokens != model_max && !(max_tokens.is_nan() && model_max.is_nan()) {
        events.push(
            Event::new(
                EventKind::Clamped,
                format!(
                    "maxTokens {} → {} to fit the context window",
                    number_to_string(model_max),
                    number_to_string(max_tokens)
                ),
            )
            .at("AI/api/simple-options.js:4"),
        );
    }
    let clamped = opts
        .reasoning
        .as_deref()
        .filter(|r| !r.is_empty())
        .map(|r| model::clamp_thinking_level(model, r, events));
    ResponsesOptions {
        max_tokens,
        sampling_params: messages::sampling_params(model),
        reasoning_effort: clamped.filter(|level| level != "off"),
        session_id: opts.session_id.clone(),
    }
}

/// `streamSimple` → `stream` (:84–174): the API key check, `createClient`, `buildParams`. With no
/// extension, `onPayload` returns nothing and the params are sent as built.
pub fn build(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    opts: &StreamOptions,
    events: &mut Events,
) -> Result<Request, AdapterError> {
    get_client_api_key(model.provider(), &opts.api_key, &opts.headers)?;
    let options = stream_simple_options(pi, model, ctx, opts, events);
    let retention = cache_retention(opts);
    let cache_session_id = if retention == "none" {
        None
    } else {
        options.session_id.as_deref()
    };
    let compat = get_compat(model);
    let grammar_props = constrained_sampling::create_grammar_tool_input_properties(
        &ctx.tools,
        compat.supports_openai_grammar_tools,
    )?;
    let headers = create_client(pi, model, ctx, opts, cache_session_id, &compat, events);
    let params = build_params(
        pi,
        model,
        ctx,
        &options,
        &compat,
        &grammar_props,
        retention,
        events,
    )?;
    let body = params.to_json();
    Ok(Request {
        method: "POST",
        url: responses_url(model, opts),
        headers,
        params,
        body,
    })
}

/// The SDK's `buildURL` for `/responses` (openai/client.js:281–295) with the client's `baseURL`
/// (`model.baseUrl`, else `OPENAI_BASE_URL`, else the SDK default).
fn responses_url(model: &Model, opts: &StreamOptions) -> String {
    let base = match model.obj.get("baseUrl") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => opts
            .env
            .get("OPENAI_BASE_URL")
            .cloned()
            .unwrap_or_default()
            .into(),
        Some(v) => js::to_js_string(Some(v)).into(),
    };
    let base = if base.is_empty() {
        "https://api.openai.com/v1".to_string()
    } else {
        base.to_string()
    };
    if base.ends_with('/') {
        format!("{base}responses")
    } else {
        format!("{base}/responses")
    }
}

/// `createClient` (:175–208; AR13) and the SDK's header assembly: `User-Agent`, model headers,
/// the Copilot dynamic headers, the session headers (`x-session-id` for OpenRouter; else
/// `session_id` for the "openai" format and `x-client-request-id`), then configured headers.
fn create_client(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    opts: &StreamOptions,
    session_id: Option<&str>,
    compat: &ResponsesCompat,
    events: &mut Events,
) -> Vec<(String, String)> {
    // `getPiUserAgent()` depends on the machine: the caller passes it.
    let mut headers = Object::new().with("User-Agent", opts.user_agent.as_str());
    if let Some(h) = model.headers() {
        headers.spread(h);
    }
    if model.provider() == "github-copilot" {
        let has_images = has_copilot_vision_input(&ctx.messages);
        headers.spread(&build_copilot_dynamic_headers(&ctx.messages, has_images));
        events.push(
            Event::new(
                EventKind::Inserted,
                "GitHub Copilot dynamic headers (X-Initiator, Openai-Intent)",
            )
            .at("AI/api/openai-responses.js:178"),
        );
    }
    if let Some(sid) = session_id.filter(|s| !s.is_empty()) {
        if compat.session_affinity_format.as_str() == Some("openrouter") {
            headers.insert("x-session-id", Value::str(sid));
        } else {
            if compat.session_affinity_format.as_str() == Some("openai") {
                headers.insert("session_id", Value::str(sid));
            }
            headers.insert("x-client-request-id", Value::str(sid));
        }
        events.push(
            Event::new(EventKind::Inserted, "session headers carry the session id")
                .at("AI/api/openai-responses.js:186"),
        );
    }
    for (k, v) in &opts.headers {
        headers.insert(k.clone(), Value::str(v));
    }
    crate::sdk::openai::request_headers(pi, "Authorization", &headers, &opts.env, events)
}

/// `buildParams(model, context, options, compat, grammarToolInputProperties)` (:209–277): the
/// body in pi's key order (AR3–AR5), tools split for deferral (M17, AR12).
#[allow(clippy::too_many_arguments)]
fn build_params(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    options: &ResponsesOptions,
    compat: &ResponsesCompat,
    grammar_props: &[(String, String)],
    retention: &str,
    events: &mut Events,
) -> Result<Value, AdapterError> {
    let deferred_tools_mode = if compat.supports_additional_tools {
        Some("additional-tools")
    } else if compat.supports_tool_search {
        Some("tool-search")
    } else {
        None
    };
    let placement = shared::split_deferred_tools(ctx, deferred_tools_mode.is_some(), events)?;
    let tool_options = ToolOptions {
        strict: None,
        supports_strict_mode: Some(compat.supports_strict_mode),
        supports_grammar_tools: compat.supports_openai_grammar_tools,
        defer_loading: false,
    };
    let convert_options = ConvertOptions {
        include_system_prompt: true,
        grammar_tool_input_properties: grammar_props,
        deferred_tools: Some(&placement.deferred),
        deferred_tools_mode,
        tool_options: tool_options.clone(),
    };
    let input = convert_responses_messages(
        pi,
        model,
        ctx,
        &OPENAI_TOOL_CALL_PROVIDERS,
        &convert_options,
        events,
    )?;

    let mut params = Object::new()
        .with("model", model.id())
        .with("input", Value::Array(input))
        .with("stream", true);
    let prompt_cache_key = if retention == "none" {
        None
    } else {
        clamp_openai_prompt_cache_key(options.session_id.as_deref())
    };
    if let Some(key) = &prompt_cache_key {
        events.push(
            Event::new(
                EventKind::Inserted,
                format!("prompt_cache_key = the session id {key:?}"),
            )
            .at("AI/api/openai-responses.js:230"),
        );
    }
    params.insert_opt("prompt_cache_key", prompt_cache_key.map(Value::from));
    let cache_retention_value = get_prompt_cache_retention(compat, retention);
    if cache_retention_value.is_some() {
        events.push(
            Event::new(
                EventKind::Inserted,
                "prompt_cache_retention \"24h\" (PI_CACHE_RETENTION=long)",
            )
            .at("AI/api/openai-responses.js:64"),
        );
    }
    params.insert_opt("prompt_cache_retention", cache_retention_value);
    let cache_options = get_prompt_cache_options(compat, retention);
    if let Some(o) = &cache_options {
        events.push(
            Event::new(
                EventKind::Inserted,
                format!("prompt_cache_options {o:?} (explicit prompt cache mode)"),
            )
            .at("AI/api/openai-responses.js:69"),
        );
    }
    params.insert_opt("prompt_cache_options", cache_options);
    params.insert("store", Value::Bool(false));
    let max_tokens = options.max_tokens;
    if max_tokens != 0.0 && !max_tokens.is_nan() && compat.supports_max_output_tokens {
        let value = js::js_max(max_tokens, OPENAI_RESPONSES_MIN_OUTPUT_TOKENS);
        if value != max_tokens {
            events.push(
                Event::new(
                    EventKind::Clamped,
                    format!(
                        "max_output_tokens raised to the minimum {}",
                        number_to_string(value)
                    ),
                )
                .at("AI/api/openai-responses.js:236"),
            );
        }
        params.insert("max_output_tokens", Value::Number(value));
    }
    if !placement.immediate.is_empty() {
        params.insert(
            "tools",
            Value::Array(convert_responses_tools(
                pi,
                &placement.immediate,
                &tool_options,
                events,
            )?),
        );
    }
    if model.reasoning() {
        let map = model.thinking_level_map();
        if let Some(effort) = &options.reasoning_effort {
            let mapped = match map.and_then(|m| m.get(effort)) {
                None | Some(Value::Null) => Value::str(effort.as_str()),
                Some(v) => v.clone(),
            };
            events.push(
                Event::new(
                    EventKind::Converted,
                    format!("thinking level {effort} → reasoning.effort {mapped:?}"),
                )
                .at("AI/api/openai-responses.js:255"),
            );
            params.insert(
                "reasoning",
                Object::new()
                    .with("effort", mapped)
                    .with("summary", "auto")
                    .into(),
            );
            params.insert(
                "include",
                Value::Array(vec![Value::str("reasoning.encrypted_content")]),
            );
        } else if model.provider() != "github-copilot"
            && map.and_then(|m| m.get("off")) != Some(&Value::Null)
        {
            let off = match map.and_then(|m| m.get("off")) {
                None | Some(Value::Null) => Value::str("none"),
                Some(v) => v.clone(),
            };
            events.push(
                Event::new(
                    EventKind::Inserted,
                    format!("thinking off → reasoning.effort {off:?}"),
                )
                .at("AI/api/openai-responses.js:264"),
            );
            params.insert("reasoning", Object::new().with("effort", off).into());
        }
        if model.provider() == "xai" {
            params.insert(
                "include",
                Value::Array(vec![Value::str("reasoning.encrypted_content")]),
            );
        }
    }
    if let Some(sp) = &options.sampling_params {
        params.spread(sp);
    }
    Ok(params.into())
}

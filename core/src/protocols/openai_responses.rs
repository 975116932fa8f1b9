//! pi-ai `dist/api/openai-responses.js`: the OpenAI Responses adapter, from `streamSimple` down to the request the
//! `openai` SDK sends (`client.responses.create` → `POST {baseUrl}/responses`, the params
//! serialized with `JSON.stringify`). The message and tool conversions live in
//! [`super::openai_responses_shared`]. From 0.86 the context is the transcript: its system
//! messages are collapsed into one leading message unless the model takes them
//! mid-conversation (`compat.supportsMidConvoSystemMessages`), and its tools come from them.
//!
//! Values pi reads dynamically stay [`Value`]s: `None` is `undefined`, `Some(Value::Null)` is
//! `null`.

use super::github_copilot_headers::{build_copilot_dynamic_headers, has_copilot_vision_input};
use super::openai_prompt_cache::clamp_openai_prompt_cache_key;
use super::openai_responses_shared::{
    self as shared, compat_flag, convert_responses_messages, convert_responses_tools,
    ConvertOptions, ToolOptions,
};
use super::{
    body, cache_retention, constrained_sampling, err, AdapterError, Request, StreamOptions,
};
use crate::context::LlmContext;
use crate::headers::has_header;
use crate::js::{self, number_to_string, Object, Value};
use crate::messages;
use crate::model::{self, Model};
use crate::pi::Pi;
use crate::tools::ToolDef;
use crate::trace::{Event, EventKind, Events};

/// `OPENAI_TOOL_CALL_PROVIDERS` (:15): providers whose `call|item` tool-call ids are kept as pairs.
const OPENAI_TOOL_CALL_PROVIDERS: [&str; 3] = ["openai", "openai-codex", "opencode"];

/// `OPENAI_RESPONSES_MIN_OUTPUT_TOKENS` (:17).
const OPENAI_RESPONSES_MIN_OUTPUT_TOKENS: f64 = 16.0;

/// `getCompat(model)` (:51–63): the compat flags with this adapter's defaults.
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
    /// 0.86 on (1.6.0/AI/api/openai-responses.js:68, 70, 78).
    supports_mid_convo_system_messages: bool,
    /// `model.compat?.promptCacheKeyMode ?? "auto"`.
    prompt_cache_key_mode: Value,
    supports_mid_convo_effort: bool,
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
        supports_mid_convo_system_messages: compat_flag(
            model,
            "supportsMidConvoSystemMessages",
            false,
        ),
        prompt_cache_key_mode: match model.compat_value("promptCacheKeyMode") {
            None | Some(Value::Null) => Value::str("auto"),
            Some(v) => v.clone(),
        },
        supports_mid_convo_effort: compat_flag(model, "supportsMidConvoEffort", false),
    }
}

/// `isChatGPTSignIn(model, apiKey)` (1.6.0/AI/api/openai-responses.js:26–31): a key that is
/// not an `sk-` API key sent straight to OpenAI is a Sign in with ChatGPT token.
fn is_chatgpt_sign_in(pi: &Pi, model: &Model, api_key: &str) -> bool {
    pi.rules.responses.chatgpt_sign_in
        && model.provider() == "openai"
        && model.obj.get_str("baseUrl") == Some("https://api.openai.com/v1")
        && !api_key.is_empty()
        && !api_key.starts_with("sk-")
}

/// `getConfigurationUpdateEffort(model, options, compat)` (1.6.0/AI/api/openai-responses.js:
/// 82–90): with `supportsMidConvoEffort` and a thinking level, the level
/// (`thinkingLevelMap[level] ?? level`) goes into `configuration_update` items.
fn configuration_update_effort(
    pi: &Pi,
    model: &Model,
    options: &ResponsesOptions,
    compat: &ResponsesCompat,
    api_key: &str,
) -> Option<Value> {
    if !pi.rules.responses.configuration_update || !compat.supports_mid_convo_effort {
        return None;
    }
    let effort = options.reasoning_effort.as_deref()?;
    if is_chatgpt_sign_in(pi, model, api_key) {
        return None;
    }
    Some(mapped_effort(model, effort))
}

/// `model.thinkingLevelMap?.[effort] ?? effort`.
fn mapped_effort(model: &Model, effort: &str) -> Value {
    match model.thinking_level_map().and_then(|m| m.get(effort)) {
        None | Some(Value::Null) => Value::str(effort),
        Some(v) => v.clone(),
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

/// `getPromptCacheRetention(compat, cacheRetention)` (:64–68).
fn get_prompt_cache_retention(compat: &ResponsesCompat, retention: &str) -> Option<Value> {
    (retention == "long"
        && compat.supports_long_cache_retention
        && !compat.supports_explicit_prompt_cache_mode)
        .then(|| Value::str("24h"))
}

/// `getPromptCacheOptions(compat, cacheRetention)` (:69–77).
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
    /// `clampMaxTokensToContext(model, context, model.maxTokens)`.
    max_tokens: f64,
    /// `{...model.samplingParams}` when set.
    sampling_params: Option<Object>,
    /// The clamped thinking level, `None` for off.
    reasoning_effort: Option<String>,
    session_id: Option<String>,
}

/// `streamSimple` (:162–174) with `buildBaseOptions` (AI/api/simple-options.js:10–35).
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
    let reasoning_effort = clamped.filter(|level| level != "off");
    // 1.0.2: `resolveSamplingParams(model, reasoningEffort ?? "off", options.samplingParams)`
    // (1.6.0/AI/api/openai-responses.js:308).
    let sampling_params =
        messages::resolve_sampling_params(pi, model, reasoning_effort.as_deref().unwrap_or("off"));
    ResponsesOptions {
        max_tokens,
        sampling_params,
        reasoning_effort,
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
    // The clamp reads the transcript before its system messages are placed.
    let options = stream_simple_options(pi, model, ctx, opts, events);
    let retention = cache_retention(opts);
    let cache_session_id = if retention == "none" {
        None
    } else {
        options.session_id.as_deref()
    };
    let compat = get_compat(model);
    // 0.86 on: `resolveTranscript(context, compat.supportsMidConvoSystemMessages)` (:110).
    let resolved;
    let ctx = if ctx.is_transcript() {
        resolved = crate::transcript::resolve_context(
            pi,
            ctx,
            compat.supports_mid_convo_system_messages,
            "1.6.0/AI/api/openai-responses.js:110",
            events,
        );
        &resolved
    } else {
        ctx
    };
    let grammar_tools = crate::transcript::declared_or_context_tools(ctx);
    let grammar_props = constrained_sampling::create_grammar_tool_input_properties(
        &grammar_tools,
        compat.supports_openai_grammar_tools,
    )?;
    let cfg_effort = configuration_update_effort(pi, model, &options, &compat, &opts.api_key);
    let sign_in = is_chatgpt_sign_in(pi, model, &opts.api_key);
    if sign_in {
        events.push(
            Event::new(
                EventKind::Note,
                "Sign in with ChatGPT (provider openai, base URL https://api.openai.com/v1, a key not starting sk-): prompt_cache_retention, prompt_cache_options, max_output_tokens, temperature and configuration_update items are left out",
            )
            .at("1.6.0/AI/api/openai-responses.js:258"),
        );
    }
    let headers = create_client(pi, model, ctx, opts, cache_session_id, &compat, events);
    let input = ParamsInput {
        pi,
        model,
        ctx,
        options: &options,
        compat: &compat,
        grammar_props: &grammar_props,
        retention,
        cfg_effort,
        sign_in,
    };
    let params = build_params(&input, events)?;
    let (body, accounting) = body::written(&params);
    Ok(Request {
        method: "POST",
        url: responses_url(model, opts),
        headers,
        sent: params.clone(),
        params,
        body,
        accounting,
        url_note: None,
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

/// `createClient` (:175–208; 1.6.0/AI/api/openai-responses.js:208–241) and the SDK's
/// header assembly: the client identity (`User-Agent`, from 1.4.0 the attribution headers),
/// model headers, the Copilot dynamic headers, the session headers (`x-session-id` for
/// OpenRouter; else `session_id` — from 1.5.1 `session-id` — for the "openai" format and
/// `x-client-request-id`), then configured headers.
fn create_client(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    opts: &StreamOptions,
    session_id: Option<&str>,
    compat: &ResponsesCompat,
    events: &mut Events,
) -> Vec<(String, String)> {
    // The client identity depends on the machine: the caller passes it.
    let mut headers = Object::new();
    for (k, v) in &opts.identity_headers {
        headers.insert(k.as_str(), Value::str(v));
    }
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
                let name = if pi.rules.responses.session_id_header_hyphen {
                    "session-id"
                } else {
                    "session_id"
                };
                headers.insert(name, Value::str(sid));
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

/// What `buildParams(model, context, options, compat, grammarToolInputProperties,
/// configurationUpdateEffort)` is called with, with the cache retention and whether the key is a
/// ChatGPT sign-in (1.6.0: `omitUnsupportedFields`).
struct ParamsInput<'a> {
    pi: &'a Pi,
    model: &'a Model,
    ctx: &'a LlmContext,
    options: &'a ResponsesOptions,
    compat: &'a ResponsesCompat,
    grammar_props: &'a [(String, String)],
    retention: &'a str,
    cfg_effort: Option<Value>,
    sign_in: bool,
}

/// `buildParams(model, context, options, compat, grammarToolInputProperties)` (:209–277;
/// 1.6.0/AI/api/openai-responses.js:242–313): the body in pi's key order. In 0.85
/// tools are split for deferral; from 0.86 the top-level tools are the transcript's
/// (`resolveTranscriptTools` by the tool support mode), and the thinking level may travel
/// in `configuration_update` items.
fn build_params(input: &ParamsInput, events: &mut Events) -> Result<Value, AdapterError> {
    let ParamsInput {
        pi,
        model,
        options,
        compat,
        sign_in,
        ..
    } = *input;
    let tool_options = ToolOptions {
        strict: None,
        supports_strict_mode: Some(compat.supports_strict_mode),
        supports_grammar_tools: compat.supports_openai_grammar_tools,
        defer_loading: false,
    };
    let (items, request_tools) = input_and_tools(input, &tool_options, events)?;

    let mut params = Object::new()
        .with("model", model.id())
        .with("input", Value::Array(items))
        .with("stream", true);
    prompt_cache_params(input, &mut params, events);
    params.insert("store", Value::Bool(false));
    let max_tokens = options.max_tokens;
    if max_tokens != 0.0 && !max_tokens.is_nan() && compat.supports_max_output_tokens && !sign_in {
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
    if !request_tools.is_empty() {
        params.insert(
            "tools",
            Value::Array(convert_responses_tools(
                pi,
                &request_tools,
                &tool_options,
                events,
            )?),
        );
    }
    if model.reasoning() {
        reasoning_params(input, &mut params, events);
    }
    if let Some(sp) = &options.sampling_params {
        params.spread(sp);
    }
    Ok(params.into())
}

/// The input items of `buildParams` (`convertResponsesMessages`) and the tools it sends: 0.85's
/// immediate tools after `splitDeferredTools` (:210–224), from 0.86 the transcript's
/// (1.6.0/AI/api/openai-responses.js:243–254).
fn input_and_tools(
    input: &ParamsInput,
    tool_options: &ToolOptions,
    events: &mut Events,
) -> Result<(Vec<Value>, Vec<ToolDef>), AdapterError> {
    let ParamsInput {
        pi,
        model,
        ctx,
        compat,
        grammar_props,
        ..
    } = *input;
    Ok(if ctx.is_transcript() {
        let convert_options = ConvertOptions {
            grammar_tool_input_properties: grammar_props,
            tool_options: tool_options.clone(),
            supports_mid_convo_system_messages: compat.supports_mid_convo_system_messages,
            supports_additional_tools: compat.supports_additional_tools,
            supports_tool_search: compat.supports_tool_search,
            configuration_update_effort: input.cfg_effort.clone(),
            ..ConvertOptions::default()
        };
        shared::transcript_input_and_tools(
            pi,
            model,
            ctx,
            &OPENAI_TOOL_CALL_PROVIDERS,
            &convert_options,
            events,
        )?
    } else {
        let deferred_tools_mode = if compat.supports_additional_tools {
            Some("additional-tools")
        } else if compat.supports_tool_search {
            Some("tool-search")
        } else {
            None
        };
        let placement = shared::split_deferred_tools(ctx, deferred_tools_mode.is_some(), events)?;
        let convert_options = ConvertOptions {
            include_system_prompt: true,
            grammar_tool_input_properties: grammar_props,
            deferred_tools: Some(&placement.deferred),
            deferred_tools_mode,
            tool_options: tool_options.clone(),
            ..ConvertOptions::default()
        };
        let input = convert_responses_messages(
            pi,
            model,
            ctx,
            &OPENAI_TOOL_CALL_PROVIDERS,
            &convert_options,
            events,
        )?;
        (input, placement.immediate)
    })
}

/// `prompt_cache_key`, `prompt_cache_retention` and `prompt_cache_options` of `buildParams`
/// (:225–232; 1.6.0/AI/api/openai-responses.js:255–265).
fn prompt_cache_params(input: &ParamsInput, params: &mut Object, events: &mut Events) {
    let ParamsInput {
        pi,
        options,
        compat,
        retention,
        sign_in,
        ..
    } = *input;
    // 1.5.2: `compat.promptCacheKeyMode !== "disabled"` too.
    let key_disabled = pi.rules.responses.prompt_cache_key_mode
        && compat.prompt_cache_key_mode.as_str() == Some("disabled");
    if key_disabled {
        events.push(
            Event::new(
                EventKind::Dropped,
                "no prompt_cache_key (compat.promptCacheKeyMode \"disabled\")",
            )
            .at("1.6.0/AI/api/openai-responses.js:256"),
        );
    }
    let prompt_cache_key = if retention == "none" || key_disabled {
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
    let cache_retention_value = get_prompt_cache_retention(compat, retention).filter(|_| !sign_in);
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
    let cache_options = get_prompt_cache_options(compat, retention).filter(|_| !sign_in);
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
}

/// `reasoning` and `include` of `buildParams` for a reasoning model: the level's effort (from
/// 1.6.0 the fixed one beside `configuration_update` items), else the thinking-off effort
/// (:253–271; 1.6.0/AI/api/openai-responses.js:286–306).
fn reasoning_params(input: &ParamsInput, params: &mut Object, events: &mut Events) {
    let ParamsInput {
        pi, model, options, ..
    } = *input;
    let map = model.thinking_level_map();
    if let Some(effort) = &options.reasoning_effort {
        let mapped = mapped_effort(model, effort);
        let sent = match &input.cfg_effort {
            Some(_) => {
                let fixed = pi
                    .data
                    .string("openaiResponses", "configurationUpdateEffort");
                events.push(
                    Event::new(
                        EventKind::Converted,
                        format!("thinking level {effort} → configuration_update {mapped:?}; reasoning.effort is the fixed {fixed:?}"),
                    )
                    .at("1.6.0/AI/api/openai-responses.js:292"),
                );
                Value::str(fixed)
            }
            None => {
                events.push(
                    Event::new(
                        EventKind::Converted,
                        format!("thinking level {effort} → reasoning.effort {mapped:?}"),
                    )
                    .at("AI/api/openai-responses.js:255"),
                );
                mapped
            }
        };
        params.insert(
            "reasoning",
            Object::new()
                .with("effort", sent)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn model(compat: Object) -> Model {
        Model {
            obj: Object::new()
                .with("id", "gpt-x")
                .with("api", "openai-responses")
                .with("provider", "openai")
                .with("baseUrl", "https://api.openai.com/v1")
                .with("reasoning", true)
                .with("input", Value::Array(vec![Value::str("text")]))
                .with("contextWindow", 200000.0)
                .with("maxTokens", 8000.0)
                .with("compat", compat),
        }
    }

    fn body(api_key: &str) -> Value {
        let pi = Pi::new(crate::PiVersion::V1_6_0).unwrap();
        let ctx = LlmContext::transcript(vec![
            js::parse(r#"{"role":"system","content":"S","timestamp":1}"#).unwrap(),
            js::parse(r#"{"role":"user","content":"q","timestamp":2}"#).unwrap(),
        ]);
        let opts = StreamOptions {
            reasoning: Some("high".into()),
            session_id: Some("sid".into()),
            api_key: api_key.into(),
            env: [("PI_CACHE_RETENTION".to_string(), "long".to_string())].into(),
            ..StreamOptions::default()
        };
        let compat = Object::new().with("supportsMidConvoEffort", true);
        build(&pi, &model(compat), &ctx, &opts, &mut Events::default())
            .unwrap()
            .params
    }

    /// A Sign in with ChatGPT token sent to api.openai.com drops the fields that
    /// endpoint rejects and the configuration_update items (no capture reaches this: the
    /// oracle repoints the base URL).
    #[test]
    fn sign_in_with_chatgpt_omits_unsupported_fields() {
        let api_key = body("sk-test");
        assert_eq!(
            api_key.get("prompt_cache_retention"),
            Some(&Value::str("24h"))
        );
        assert_eq!(
            api_key.get("max_output_tokens"),
            Some(&Value::Number(8000.0))
        );
        let input = api_key.get("input").and_then(Value::as_array).unwrap();
        assert_eq!(
            input.last().map(Value::to_json).as_deref(),
            Some(r#"{"type":"configuration_update","reasoning":{"effort":"high"}}"#)
        );
        assert_eq!(
            api_key.get("reasoning").map(Value::to_json).as_deref(),
            Some(r#"{"effort":"medium","summary":"auto"}"#)
        );

        let token = body("eyJhbGciOi.token.sig");
        assert_eq!(token.get("prompt_cache_retention"), None);
        assert_eq!(token.get("max_output_tokens"), None);
        assert_eq!(token.get("prompt_cache_key"), Some(&Value::str("sid")));
        let input = token.get("input").and_then(Value::as_array).unwrap();
        assert!(input
            .iter()
            .all(|i| i.get_str("type") != Some("configuration_update")));
        assert_eq!(
            token.get("reasoning").map(Value::to_json).as_deref(),
            Some(r#"{"effort":"high","summary":"auto"}"#)
        );
    }
}

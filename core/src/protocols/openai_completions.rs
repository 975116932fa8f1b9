//! pi-ai `dist/api/openai-completions.js`: the OpenAI Chat
//! Completions adapter, from `streamSimple` down to the request the `openai` SDK 6.40.0 sends.
//!
//! The functions below are named after pi's and cite their lines; values that pi reads
//! dynamically (`model.compat.*`, message blocks, tool schemas) stay [`Value`]s so that JS
//! truthiness, `??` and `undefined` keep their meaning. `None` stands for `undefined`,
//! `Some(Value::Null)` for `null`.

use std::cell::RefCell;

use super::body::{like, message_like, part_of, Kind, Tag};
use super::constrained_sampling::{
    create_grammar_tool_input_properties, get_grammar_tool_input, grammar_property,
    make_strict_json_schema, resolve_grammar_constrained_sampling,
    resolve_json_schema_strict_sampling, Strict,
};
use super::github_copilot_headers::{build_copilot_dynamic_headers, has_copilot_vision_input};
use super::openai_prompt_cache::clamp_openai_prompt_cache_key;
use super::{body, cache_retention, err, AdapterError, Request, StreamOptions};
use crate::context::LlmContext;
use crate::headers::has_header;
use crate::js::{
    self, join_shared, number_to_string, sanitize_shared, sanitize_surrogates, to_js_string,
    to_number, utf16_len, Object, Str, Value,
};
use crate::messages;
use crate::model::{self, Model};
use crate::pi::Pi;
use crate::tools::ToolDef;
use crate::trace::{Event, EventKind, Events};

/// A text pi inserts into bodies (data/pi-0.85.1/strings.json, group `openaiCompletions`).
fn text(pi: &Pi, key: &str) -> &'static str {
    pi.data.string("openaiCompletions", key)
}

/// The mark of [`text`]`(key)` in a body, as a text of `kind`.
fn inserted(pi: &Pi, key: &str, kind: Kind) -> crate::js::Mark {
    body::inserted(pi, &format!("openaiCompletions.{key}"), kind).mark()
}

// ---------------------------------------------------------------------------------------------
// Entry point: streamSimple → stream → createClient + buildParams
// ---------------------------------------------------------------------------------------------

/// The options `stream` receives from `streamSimple` (after `buildBaseOptions`), reduced to
/// what the coding agent can set (no temperature, toolChoice, cacheRetention).
#[derive(Clone, Debug, Default)]
struct CompletionsOptions {
    /// `clampMaxTokensToContext(model, context, model.maxTokens)`.
    max_tokens: f64,
    /// `{...model.samplingParams, ...options.samplingParams}` when either is set.
    sampling_params: Option<Object>,
    /// The clamped thinking level, `None` for off.
    reasoning_effort: Option<String>,
    thinking_budgets: Option<Object>,
    session_id: Option<String>,
}

/// `streamSimple` (AI/api/openai-completions.js:533–546) and the part of `stream` (:168–223)
/// that builds the request: the API key check, `createClient`, `buildParams`. With no
/// extension, `onPayload` returns nothing and the params are sent as built.
pub fn build(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    opts: &StreamOptions,
    events: &mut Events,
) -> Result<Request, AdapterError> {
    get_client_api_key(model.provider(), &opts.api_key, &opts.headers, events);
    // The clamp reads the context before the system messages are placed.
    let options = stream_simple_options(pi, model, ctx, opts, events);
    let compat = get_compat(pi, model, events);
    // 0.86 on: `resolveTranscript(context, compat.supportsMidConvoSystemMessages)` (:154).
    let resolved;
    let ctx = if ctx.is_transcript() {
        resolved = crate::transcript::resolve_context(
            pi,
            ctx,
            compat.truthy("supportsMidConvoSystemMessages"),
            "1.6.0/AI/utils/transcript.js:96",
            events,
        );
        &resolved
    } else {
        ctx
    };
    let grammar_tools = crate::transcript::declared_or_context_tools(ctx);
    let grammar_props = create_grammar_tool_input_properties(
        &grammar_tools,
        compat.truthy("supportsOpenAIGrammarTools"),
    )?;
    let retention = cache_retention(opts);
    let cache_session_id = if retention == "none" {
        None
    } else {
        options.session_id.as_deref()
    };
    let headers = create_client_headers(pi, model, ctx, opts, cache_session_id, &compat, events);
    let input = ParamsInput {
        pi,
        model,
        ctx,
        options: &options,
        compat: &compat,
        retention,
        grammar_props: &grammar_props,
    };
    let params = build_params(&input, events)?;
    let url = chat_completions_url(model, opts);
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

/// The tool-change mode of `buildParams` and `convertMessages` (:551–553): additions in place
/// only when the model takes both system messages and tool additions mid-conversation.
fn tool_changes(compat: &Compat) -> crate::transcript::ToolChanges {
    if compat.get("supportsMidConvoSystemMessages") == Some(&Value::Bool(true))
        && compat.get("supportsMidConvoToolAdditions") == Some(&Value::Bool(true))
    {
        crate::transcript::ToolChanges::Additions
    } else {
        crate::transcript::ToolChanges::None
    }
}

/// `streamSimple` (:533–546) with `buildBaseOptions` (AI/api/simple-options.js:10–35): the
/// max-token clamp, sampling params and the thinking-level clamp.
fn stream_simple_options(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    opts: &StreamOptions,
    events: &mut Events,
) -> CompletionsOptions {
    let model_max = model.max_tokens();
    let max_tokens = messages::clamp_max_tokens_to_context(pi, model, ctx, model_max);
    if max_tokens != model_max {
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
    let sampling_params = if pi.rules.sampling_by_thinking_level {
        // `resolveSamplingParams(model, options.reasoningEffort ?? "off", base.samplingParams)`
        // (:736–740): the level after the clamp.
        messages::resolve_sampling_params(pi, model, clamped.as_deref().unwrap_or("off"))
    } else {
        match model.obj.get("samplingParams") {
            Some(Value::Object(o)) => Some(o.clone()),
            // `{...x}` of a truthy non-object spreads nothing (strings aside).
            Some(v) if v.truthy() => Some(Object::new()),
            _ => None,
        }
    };
    let reasoning_effort = clamped.filter(|level| level != "off");
    CompletionsOptions {
        max_tokens,
        sampling_params,
        reasoning_effort,
        thinking_budgets: opts.thinking_budgets.clone(),
        session_id: opts.session_id.clone(),
    }
}

/// `getClientApiKey` (:32–38). pi throws "No API key for provider" when there is neither a key
/// nor an authorization header; the key's value never reaches the recorded request (it is
/// redacted), so this records the situation instead of failing the assembly.
fn get_client_api_key(
    provider: &str,
    api_key: &str,
    headers: &[(String, String)],
    events: &mut Events,
) {
    if !api_key.is_empty() {
        return;
    }
    if has_header(headers, "authorization") || has_header(headers, "cf-aig-authorization") {
        events.push(
            Event::new(
                EventKind::Note,
                "no API key but an authorization header: the SDK key is \"unused\"",
            )
            .at("AI/api/openai-completions.js:32"),
        );
        return;
    }
    events.push(Event::new(EventKind::Note, format!("no API key for provider {provider}: pi would throw \"No API key for provider: {provider}\"")).at("AI/api/openai-completions.js:37"));
}

/// The SDK's `buildURL` (openai/client.js:281–295): `baseURL + "/chat/completions"`, without
/// doubling a trailing slash; an empty baseUrl falls back to the SDK default.
fn chat_completions_url(model: &Model, opts: &StreamOptions) -> String {
    let base = match model.obj.get("baseUrl") {
        Some(Value::String(s)) => s.clone(),
        None => opts
            .env
            .get("OPENAI_BASE_URL")
            .map(|u| js::js_trim(u).to_string())
            .unwrap_or_default()
            .into(),
        Some(v) => to_js_string(Some(v)).into(),
    };
    let base = if base.is_empty() {
        "https://api.openai.com/v1".to_string()
    } else {
        base.to_string()
    };
    if base.ends_with('/') {
        format!("{base}chat/completions")
    } else {
        format!("{base}/chat/completions")
    }
}

// ---------------------------------------------------------------------------------------------
// Headers
// ---------------------------------------------------------------------------------------------

/// `createClient` (:547–580) plus the SDK's header assembly (openai/client.js:605–628 and
/// internal/headers.js `buildHeaders`): `Accept`, the SDK `User-Agent`, `Authorization`, then
/// pi's `defaultHeaders` object (each key deletes an earlier header of that name and appends,
/// a `null` value removes it), then the body's `content-type`. Runtime headers (host,
/// x-stainless-*, content-length, ...) are left out.
fn create_client_headers(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    opts: &StreamOptions,
    session_id: Option<&str>,
    compat: &Compat,
    events: &mut Events,
) -> Vec<(String, String)> {
    // The client identity (`getPiUserAgent()` in 0.85, `getIdentityHeaders` from 1.4.0)
    // depends on the machine: the caller passes it.
    let mut default_headers = Object::new();
    for (k, v) in &opts.identity_headers {
        default_headers.insert(k.as_str(), Value::str(v));
    }
    if let Some(h) = model.headers() {
        default_headers.spread(h);
    }
    if model.provider() == "github-copilot" {
        let has_images = has_copilot_vision_input(&ctx.messages);
        default_headers.spread(&build_copilot_dynamic_headers(&ctx.messages, has_images));
        events.push(
            Event::new(
                EventKind::Inserted,
                "GitHub Copilot dynamic headers (X-Initiator, Openai-Intent)",
            )
            .at("AI/api/openai-completions.js:549"),
        );
    }
    if let Some(sid) = session_id.filter(|s| !s.is_empty()) {
        if compat.truthy("sendSessionAffinityHeaders") {
            if compat.str("sessionAffinityFormat") == Some("openrouter") {
                default_headers.insert("x-session-id", Value::str(sid));
            } else {
                if compat.str("sessionAffinityFormat") == Some("openai") {
                    default_headers.insert("session_id", Value::str(sid));
                }
                default_headers.insert("x-client-request-id", Value::str(sid));
                default_headers.insert("x-session-affinity", Value::str(sid));
            }
            events.push(
                Event::new(
                    EventKind::Inserted,
                    "session affinity headers carry the session id",
                )
                .at("AI/api/openai-completions.js:557"),
            );
        }
    }
    // `options.headers` (the configured and attribution headers) last.
    for (k, v) in &opts.headers {
        default_headers.insert(k.clone(), Value::str(v));
    }

    crate::sdk::openai::request_headers(pi, "Authorization", &default_headers, &opts.env, events)
}

// ---------------------------------------------------------------------------------------------
// Compat
// ---------------------------------------------------------------------------------------------

/// The resolved compat object (`getCompat`), kept as a JS object: absent keys are `undefined`.
#[derive(Clone, Debug, Default)]
struct Compat(Object);

impl Compat {
    fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key)
    }
    fn truthy(&self, key: &str) -> bool {
        self.get(key).is_some_and(Value::truthy)
    }
    /// `compat[key] === false`.
    fn is_false(&self, key: &str) -> bool {
        self.get(key) == Some(&Value::Bool(false))
    }
    fn str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Value::as_str)
    }
}

/// `detectCompat` (:1236–1318): compat defaults from the provider id and the baseUrl.
fn detect_compat(pi: &Pi, model: &Model) -> Object {
    let rules = pi.rules.completions;
    let provider = model.provider();
    let base_url = model.base_url();
    let id = model.id();
    let is_zai = provider == "zai"
        || provider == "zai-coding-cn"
        || base_url.contains("api.z.ai")
        || base_url.contains("open.bigmodel.cn");
    let is_together = provider == "together"
        || base_url.contains("api.together.ai")
        || base_url.contains("api.together.xyz");
    let is_moonshot = provider == "moonshotai"
        || provider == "moonshotai-cn"
        || base_url.contains("api.moonshot.");
    let is_open_router = provider == "openrouter" || base_url.contains("openrouter.ai");
    let is_cf_workers =
        provider == "cloudflare-workers-ai" || base_url.contains("api.cloudflare.com");
    let is_cf_gateway =
        provider == "cloudflare-ai-gateway" || base_url.contains("gateway.ai.cloudflare.com");
    let is_nvidia = provider == "nvidia" || base_url.contains("integrate.api.nvidia.com");
    let is_ant_ling = provider == "ant-ling" || base_url.contains("api.ant-ling.com");
    let is_deepseek = provider == "deepseek" || base_url.to_lowercase().contains("deepseek.com");
    let is_chutes = base_url.contains("chutes.ai");
    let is_cerebras = provider == "cerebras" || base_url.contains("cerebras.ai");
    let is_non_standard = is_nvidia
        || is_cerebras
        || provider == "xai"
        || base_url.contains("api.x.ai")
        || is_together
        || is_chutes
        || is_deepseek
        || is_zai
        || is_moonshot
        || provider == "opencode"
        || base_url.contains("opencode.ai")
        || is_cf_workers
        || is_cf_gateway
        || is_ant_ling;
    let use_max_tokens = is_chutes
        || is_deepseek
        || is_moonshot
        || is_cf_gateway
        || is_together
        || is_nvidia
        || is_ant_ling
        || is_zai;
    let is_grok = provider == "xai" || base_url.contains("api.x.ai");
    let is_or_developer_model =
        is_open_router && (id.starts_with("anthropic/") || id.starts_with("openai/"));
    let thinking_format = if is_deepseek {
        "deepseek"
    } else if is_zai {
        "zai"
    } else if is_together {
        "together"
    } else if is_ant_ling {
        "ant-ling"
    } else if is_open_router {
        "openrouter"
    } else {
        "openai"
    };
    // 1.6.0: "The developer role is OpenAI's. Other hosts' chat templates often reject it".
    let is_openai = provider == "openai" || base_url.contains("api.openai.com");
    let mut o = Object::new()
        .with("supportsStore", !is_non_standard)
        .with(
            "supportsDeveloperRole",
            if rules.developer_role_openai_only {
                is_openai
            } else {
                is_or_developer_model || (!is_non_standard && !is_open_router)
            },
        )
        .with(
            "supportsReasoningEffort",
            !is_grok
                && !is_zai
                && !is_moonshot
                && !is_together
                && !is_cf_gateway
                && !is_nvidia
                && !is_ant_ling,
        )
        .with("supportsUsageInStreaming", true)
        .with("supportsFinishReason", true)
        .with(
            "maxTokensField",
            if use_max_tokens {
                "max_tokens"
            } else {
                "max_completion_tokens"
            },
        )
        .with("requiresToolResultName", false)
        .with("requiresAssistantAfterToolResult", false);
    if rules.compat_1_5_1 {
        o.insert("requiresNonNullAssistantContent", Value::Bool(false));
        o.insert("requiresToolsWithToolHistory", Value::Bool(false));
    }
    let mut o = o
        .with("requiresThinkingAsText", false)
        .with("requiresReasoningContentOnAssistantMessages", is_deepseek)
        .with("thinkingFormat", thinking_format)
        .with("openRouterRouting", Object::new())
        .with("vercelGatewayRouting", Object::new())
        .with("chatTemplateKwargs", Object::new())
        .with("chatTemplateArgs", Object::new())
        .with("zaiToolStream", false)
        .with("supportsThinkingTokenBudget", false)
        .with(
            "supportsStrictMode",
            // 0.87.0: "OpenAI compatibility alone does not imply strict JSON-schema tool support."
            // (0.86.1 added Cerebras to the providers without it.)
            !(rules.strict_opt_in
                || is_moonshot
                || is_together
                || is_cf_gateway
                || is_nvidia
                || (rules.strict_not_for_cerebras && is_cerebras)),
        )
        .with("supportsOpenAIGrammarTools", false);
    if pi.rules.transcript {
        o.insert("supportsMidConvoSystemMessages", Value::Bool(false));
        o.insert("supportsMidConvoToolAdditions", Value::Bool(false));
    }
    if provider == "openrouter" && id.starts_with("anthropic/") {
        o.insert("cacheControlFormat", Value::str("anthropic"));
    }
    o.insert(
        "sendSessionAffinityHeaders",
        Value::Bool(rules.openrouter_session_affinity && is_open_router),
    );
    o.insert(
        "sessionAffinityFormat",
        Value::str(if is_open_router {
            "openrouter"
        } else {
            "openai"
        }),
    );
    o.insert(
        "supportsLongCacheRetention",
        Value::Bool(!(is_together || is_cf_workers || is_cf_gateway || is_nvidia || is_ant_ling)),
    );
    o
}

/// The keys `getCompat` resolves as `model.compat.X ?? detected.X`, in pi's order.
const COMPAT_KEYS: [&str; 25] = [
    "supportsStore",
    "supportsDeveloperRole",
    "supportsReasoningEffort",
    "supportsUsageInStreaming",
    "supportsFinishReason",
    "maxTokensField",
    "requiresToolResultName",
    "requiresAssistantAfterToolResult",
    "requiresThinkingAsText",
    "requiresReasoningContentOnAssistantMessages",
    "thinkingFormat",
    "openRouterRouting",
    "vercelGatewayRouting",
    "chatTemplateKwargs",
    "chatTemplateArgs",
    "zaiToolStream",
    "supportsThinkingTokenBudget",
    "thinkingTokenBudgetField",
    "supportsStrictMode",
    "supportsOpenAIGrammarTools",
    "cacheControlFormat",
    "sendSessionAffinityHeaders",
    "deferredToolsMode",
    "sessionAffinityFormat",
    "supportsLongCacheRetention",
];

/// The keys of [`COMPAT_KEYS`] a release resolves, in its order (1.6.0: the 1.5.1 keys after
/// `requiresAssistantAfterToolResult`, the mid-conversation ones after
/// `supportsOpenAIGrammarTools`, no `deferredToolsMode`).
fn compat_keys(pi: &Pi) -> Vec<&'static str> {
    if !pi.rules.transcript {
        return COMPAT_KEYS.to_vec();
    }
    let mut keys = Vec::new();
    for key in COMPAT_KEYS {
        if key == "deferredToolsMode" {
            continue;
        }
        keys.push(key);
        if key == "requiresAssistantAfterToolResult" && pi.rules.completions.compat_1_5_1 {
            keys.push("requiresNonNullAssistantContent");
            keys.push("requiresToolsWithToolHistory");
        }
        if key == "supportsOpenAIGrammarTools" {
            keys.push("supportsMidConvoSystemMessages");
            keys.push("supportsMidConvoToolAdditions");
        }
    }
    keys
}

/// `getCompat` (:1323–1356): every `model.compat.X ?? detected.X`; `openRouterRouting`
/// falls back to `{}`, `vllmPriority` is taken as is.
fn get_compat(pi: &Pi, model: &Model, events: &mut Events) -> Compat {
    let detected = detect_compat(pi, model);
    let raw = model.obj.get("compat").filter(|c| c.truthy());
    let Some(raw) = raw else {
        events.push(compat_event(&detected, &[]));
        return Compat(detected);
    };
    let mut resolved = Object::new();
    let mut overridden = Vec::new();
    for key in compat_keys(pi) {
        let own = raw.get(key).filter(|v| !v.is_null());
        if own.is_some() {
            overridden.push(key);
        }
        let value = match key {
            "openRouterRouting" => Some(own.cloned().unwrap_or_else(Value::object)),
            _ => own.or_else(|| detected.get(key)).cloned(),
        };
        resolved.insert_opt(key, value);
    }
    resolved.insert_opt("vllmPriority", raw.get("vllmPriority").cloned());
    if pi.rules.completions.compat_1_5_1 {
        resolved.insert_opt("promptCacheKeyMode", raw.get("promptCacheKeyMode").cloned());
    }
    events.push(compat_event(&resolved, &overridden));
    Compat(resolved)
}

fn compat_event(compat: &Object, overridden: &[&str]) -> Event {
    let show = |k: &str| {
        compat
            .get(k)
            .map(Value::to_json)
            .unwrap_or_else(|| "undefined".into())
    };
    let mut msg = format!(
        "compat: thinkingFormat {}, maxTokensField {}, supportsDeveloperRole {}, supportsStore {}, supportsStrictMode {}",
        show("thinkingFormat"),
        show("maxTokensField"),
        show("supportsDeveloperRole"),
        show("supportsStore"),
        show("supportsStrictMode")
    );
    if !overridden.is_empty() {
        msg.push_str(&format!("; set by model.compat: {}", overridden.join(", ")));
    }
    Event::new(EventKind::Note, msg).at("AI/api/openai-completions.js:1323")
}

// ---------------------------------------------------------------------------------------------
// buildParams
// ---------------------------------------------------------------------------------------------

/// What `buildParams(model, context, options, compat, cacheRetention,
/// grammarToolInputProperties)` is called with.
#[derive(Clone, Copy)]
struct ParamsInput<'a> {
    pi: &'a Pi,
    model: &'a Model,
    ctx: &'a LlmContext,
    options: &'a CompletionsOptions,
    compat: &'a Compat,
    retention: &'a str,
    grammar_props: &'a [(String, String)],
}

/// `buildParams` (:581–765): the body, in pi's key order.
fn build_params(input: &ParamsInput, events: &mut Events) -> Result<Value, AdapterError> {
    let ParamsInput {
        pi,
        model,
        ctx,
        compat,
        retention,
        grammar_props,
        ..
    } = *input;
    let mut messages = convert_messages(pi, model, ctx, compat, grammar_props, events)?;
    let cache_control = get_compat_cache_control(compat, retention);

    let mut params =
        Object::new().with("model", model.obj.get("id").cloned().unwrap_or(Value::Null));
    params.insert("messages", Value::Null); // filled below, keeping its position
    params.insert("stream", Value::Bool(true));
    prompt_cache_params(input, &mut params, events);
    stream_store_and_max_tokens_params(input, &mut params, events);

    let (mut tools, tool_stream) = request_tools(input, events)?;
    if let Some(cc) = &cache_control {
        apply_anthropic_cache_control(&mut messages, tools.as_mut(), cc, events);
    }
    params.insert("messages", Value::Array(messages));
    if let Some(tools) = tools {
        params.insert("tools", Value::Array(tools));
        if tool_stream {
            params.insert("tool_stream", Value::Bool(true));
            events.push(
                Event::new(EventKind::Inserted, "tool_stream: true (zaiToolStream)")
                    .at("AI/api/openai-completions.js:616"),
            );
        }
    }
    if let Some(priority) = compat.get("vllmPriority") {
        params.insert("priority", priority.clone());
        events.push(
            Event::new(
                EventKind::Inserted,
                format!("priority = {} (compat.vllmPriority)", priority.to_json()),
            )
            .at("AI/api/openai-completions.js:630"),
        );
    }

    thinking_params(input, &mut params, events);
    routing_params(model, &mut params, events);
    sampling_params(input.options, &mut params, events);
    Ok(Value::Object(params))
}

/// `prompt_cache_key` and `prompt_cache_retention` of `buildParams` (:588–592).
fn prompt_cache_params(input: &ParamsInput, params: &mut Object, events: &mut Events) {
    let ParamsInput {
        pi,
        model,
        options,
        compat,
        retention,
        ..
    } = *input;
    let long_retention = retention == "long" && compat.truthy("supportsLongCacheRetention");
    // 1.5.1: `compat.promptCacheKeyMode` ("auto" by default) enables or disables the key.
    let key_mode = compat.str("promptCacheKeyMode").unwrap_or("auto");
    let sends_key = if pi.rules.completions.compat_1_5_1 {
        retention != "none"
            && (key_mode == "enabled"
                || (key_mode == "auto"
                    && (model.base_url().contains("api.openai.com") || long_retention)))
    } else {
        (model.base_url().contains("api.openai.com") && retention != "none") || long_retention
    };
    if sends_key {
        if let Some(key) = clamp_openai_prompt_cache_key(options.session_id.as_deref()) {
            events.push(
                Event::new(
                    EventKind::Inserted,
                    format!("prompt_cache_key = the session id ({key})"),
                )
                .at("AI/api/openai-completions.js:588"),
            );
            params.insert("prompt_cache_key", Value::String(key.into()));
        }
    }
    if long_retention {
        params.insert("prompt_cache_retention", Value::str("24h"));
        events.push(
            Event::new(
                EventKind::Inserted,
                "prompt_cache_retention \"24h\" (PI_CACHE_RETENTION=long)",
            )
            .at("AI/api/openai-completions.js:592"),
        );
    }
}

/// `stream_options`, `store` and the max-tokens field of `buildParams` (:594–607).
fn stream_store_and_max_tokens_params(
    input: &ParamsInput,
    params: &mut Object,
    events: &mut Events,
) {
    let ParamsInput {
        options, compat, ..
    } = *input;
    if !compat.is_false("supportsUsageInStreaming") {
        params.insert(
            "stream_options",
            Object::new().with("include_usage", true).into(),
        );
    }
    if compat.truthy("supportsStore") {
        params.insert("store", Value::Bool(false));
        events.push(
            Event::new(EventKind::Inserted, "store: false").at("AI/api/openai-completions.js:598"),
        );
    }
    if options.max_tokens != 0.0 && !options.max_tokens.is_nan() {
        let field = if compat.str("maxTokensField") == Some("max_tokens") {
            "max_tokens"
        } else {
            "max_completion_tokens"
        };
        params.insert(field, Value::Number(options.max_tokens));
        events.push(
            Event::new(
                EventKind::Note,
                format!("{field} = {}", number_to_string(options.max_tokens)),
            )
            .at("AI/api/openai-completions.js:600"),
        );
    }
}

/// The tools `buildParams` sends, and whether with `tool_stream` (:611–622): the active ones
/// (kimi's deferred tools left out), or none but `[]` when the conversation has tool history.
fn request_tools(
    input: &ParamsInput,
    events: &mut Events,
) -> Result<(Option<Vec<Value>>, bool), AdapterError> {
    let ParamsInput {
        pi, ctx, compat, ..
    } = *input;
    // 0.86 on: the transcript's tools (`resolveTranscriptTools`, :551–553): every change folds
    // into the top-level tools unless the model takes additions in place.
    let request_tools: Vec<ToolDef>;
    let ctx_tools: &[ToolDef] = if ctx.is_transcript() {
        let (tools, _) = crate::transcript::resolve_tools(
            &ctx.messages,
            tool_changes(compat),
            pi.rules.tool_changes_fold_after_last_change,
        );
        request_tools = tools
            .iter()
            .map(crate::transcript::tool_from_declaration)
            .collect();
        &request_tools
    } else {
        ctx.tools()
    };
    let deferred = if compat.str("deferredToolsMode") == Some("kimi") {
        get_deferred_tool_names(&ctx.messages)
    } else {
        Vec::new()
    };
    let active_tools: Vec<&ToolDef> = ctx_tools
        .iter()
        .filter(|t| !deferred.contains(&t.name))
        .collect();
    for t in ctx_tools.iter().filter(|t| deferred.contains(&t.name)) {
        events.push(
            Event::new(
                EventKind::Dropped,
                format!(
                    "tool {} left out of tools: deferred (kimi), announced after its tool result",
                    t.name
                ),
            )
            .at("AI/api/openai-completions.js:610"),
        );
    }
    let mut tools: Option<Vec<Value>> = None;
    let mut tool_stream = false;
    if !active_tools.is_empty() {
        tools = Some(convert_tools(pi, &active_tools, compat, events)?);
        tool_stream = compat.truthy("zaiToolStream");
    } else if (!pi.rules.completions.compat_1_5_1 || compat.truthy("requiresToolsWithToolHistory"))
        && has_tool_history(&ctx.messages)?
    {
        tools = Some(Vec::new());
        events.push(Event::new(EventKind::Inserted, "tools: [] because the conversation has tool calls or results but no tools are active").at("AI/api/openai-completions.js:621"));
    }
    Ok((tools, tool_stream))
}

/// The thinking fields of `buildParams` (:632–743): the thinking format, then the top-level
/// thinking budget field.
fn thinking_params(input: &ParamsInput, params: &mut Object, events: &mut Events) {
    let ParamsInput {
        pi,
        model,
        options,
        compat,
        ..
    } = *input;
    let budget_field = resolve_thinking_token_budget_field(compat);
    let thinking_budget = resolve_clamped_thinking_budget(pi, model, options, params);
    apply_thinking_format(model, options, compat, thinking_budget, params, events);
    if let (Some(field), Some(budget)) = (budget_field, thinking_budget) {
        params.insert(field.clone(), Value::Number(budget));
        events.push(
            Event::new(
                EventKind::Inserted,
                format!(
                    "{field} = {} (thinking budget, leaving 1024 tokens for the answer)",
                    number_to_string(budget)
                ),
            )
            .at("AI/api/openai-completions.js:742"),
        );
    }
}

/// The provider routing of `buildParams`: `provider` from compat.openRouterRouting,
/// `providerOptions.gateway` from compat.vercelGatewayRouting (:744–759).
fn routing_params(model: &Model, params: &mut Object, events: &mut Events) {
    if let Some(routing) = model
        .compat_value("openRouterRouting")
        .filter(|v| v.truthy())
    {
        params.insert("provider", routing.clone());
        events.push(
            Event::new(EventKind::Inserted, "provider = compat.openRouterRouting")
                .at("AI/api/openai-completions.js:746"),
        );
    }
    if let Some(routing) = model
        .compat_value("vercelGatewayRouting")
        .filter(|v| v.truthy())
    {
        let only = routing.get("only").filter(|v| v.truthy());
        let order = routing.get("order").filter(|v| v.truthy());
        if only.is_some() || order.is_some() {
            let mut gateway = Object::new();
            gateway.insert_opt("only", only.cloned());
            gateway.insert_opt("order", order.cloned());
            params.insert(
                "providerOptions",
                Object::new().with("gateway", gateway).into(),
            );
            events.push(
                Event::new(
                    EventKind::Inserted,
                    "providerOptions.gateway from compat.vercelGatewayRouting",
                )
                .at("AI/api/openai-completions.js:757"),
            );
        }
    }
}

/// `options.samplingParams` of `buildParams`, last so that they override the named fields
/// (:760–763).
fn sampling_params(options: &CompletionsOptions, params: &mut Object, events: &mut Events) {
    if let Some(sampling) = &options.sampling_params {
        for (k, v) in sampling.iter() {
            let kind = if params.contains_key(k) {
                EventKind::Replaced
            } else {
                EventKind::Inserted
            };
            events.push(
                Event::new(kind, format!("{k} = {} from samplingParams", v.to_json()))
                    .at("AI/api/openai-completions.js:762"),
            );
            params.insert(k.clone(), v.clone());
        }
    }
}

/// What the thinking-format chain of `buildParams` reads.
struct ThinkingFormat<'a> {
    model: &'a Model,
    options: &'a CompletionsOptions,
    compat: &'a Compat,
    thinking_budget: Option<f64>,
    /// `options.reasoningEffort`.
    effort: Option<&'a str>,
    /// `model.thinkingLevelMap`.
    map: Option<&'a Object>,
    /// `compat.thinkingFormat`.
    format: Option<&'a str>,
    reasoning: bool,
    /// `compat.supportsReasoningEffort`.
    supports_effort: bool,
}

impl<'a> ThinkingFormat<'a> {
    /// `model.thinkingLevelMap?.[key]`.
    fn map_get(&self, key: &str) -> Option<&'a Value> {
        self.map.and_then(|m| m.get(key))
    }

    /// `map[effort] ?? effort`
    fn mapped_or_effort(&self, e: &str) -> Value {
        match self.map_get(e) {
            Some(v) if !v.is_null() => v.clone(),
            _ => Value::str(e),
        }
    }
}

/// The thinking-format chain of `buildParams` (:634–736). Each branch applies only to
/// reasoning models; an unmatched format falls through to the OpenAI-style `reasoning_effort`.
fn apply_thinking_format(
    model: &Model,
    options: &CompletionsOptions,
    compat: &Compat,
    thinking_budget: Option<f64>,
    params: &mut Object,
    events: &mut Events,
) {
    let t = ThinkingFormat {
        model,
        options,
        compat,
        thinking_budget,
        effort: options.reasoning_effort.as_deref(),
        map: model.thinking_level_map(),
        format: compat.str("thinkingFormat"),
        reasoning: model.reasoning(),
        supports_effort: compat.truthy("supportsReasoningEffort"),
    };
    let before: Vec<String> = params.keys().map(|k| k.to_string()).collect();
    let at = t
        .flag_and_template_formats(params)
        .or_else(|| t.effort_formats(params))
        .or_else(|| t.openai_reasoning_effort(params));
    let Some(at) = at else {
        if !t.reasoning && options.reasoning_effort.is_some() {
            events.push(
                Event::new(
                    EventKind::Dropped,
                    "thinking level not sent: the model has reasoning: false",
                )
                .at("AI/api/openai-completions.js:634"),
            );
        }
        return;
    };
    let added: Vec<String> = params
        .iter()
        .filter(|(k, _)| !before.iter().any(|b| b == k.as_str()))
        .map(|(k, v)| format!("{k}: {}", v.to_json()))
        .collect();
    let format_name = t.format.unwrap_or("openai");
    let level = t.effort.unwrap_or("off");
    let message = if added.is_empty() {
        format!("thinking format {format_name}, level {level}: no thinking fields")
    } else {
        format!(
            "thinking format {format_name}, level {level}: {}",
            added.join(", ")
        )
    };
    events.push(Event::new(EventKind::Converted, message).at(at));
}

impl ThinkingFormat<'_> {
    /// The formats zai, qwen, qwen-chat-template, chat-template and baseten of the chain
    /// (:634–680); `None` when the format is none of them (or the model does not reason).
    fn flag_and_template_formats(&self, params: &mut Object) -> Option<&'static str> {
        let (model, options, compat) = (self.model, self.options, self.compat);
        let (effort, format, reasoning) = (self.effort, self.format, self.reasoning);
        let supports_effort = self.supports_effort;
        let thinking_budget = self.thinking_budget;
        let at: &'static str;
        if format == Some("zai") && reasoning {
            at = "AI/api/openai-completions.js:634";
            let thinking = if effort.is_some() {
                Object::new()
                    .with("type", "enabled")
                    .with("clear_thinking", false)
            } else {
                Object::new().with("type", "disabled")
            };
            params.insert("thinking", thinking.into());
            if let (Some(e), true) = (effort, supports_effort) {
                let value = match self.map_get(e) {
                    None => Value::str(e),
                    Some(v) => v.clone(),
                };
                if let Value::String(_) = value {
                    params.insert("reasoning_effort", value);
                }
            }
        } else if format == Some("qwen") && reasoning {
            at = "AI/api/openai-completions.js:645";
            params.insert("enable_thinking", Value::Bool(effort.is_some()));
            if let (Some(e), true) = (effort, supports_effort) {
                let value = self.mapped_or_effort(e);
                if let Value::String(_) = value {
                    params.insert("reasoning_effort", value);
                }
            }
        } else if format == Some("qwen-chat-template") && reasoning {
            at = "AI/api/openai-completions.js:654";
            params.insert(
                "chat_template_kwargs",
                Object::new()
                    .with("enable_thinking", effort.is_some())
                    .with("preserve_thinking", true)
                    .into(),
            );
        } else if format == Some("chat-template") && reasoning {
            at = "AI/api/openai-completions.js:660";
            if let Some(values) = build_chat_template_values(
                model,
                options,
                compat.get("chatTemplateKwargs"),
                thinking_budget,
            ) {
                params.insert("chat_template_kwargs", values.into());
            }
        } else if format == Some("baseten") && reasoning {
            at = "AI/api/openai-completions.js:666";
            if let Some(values) = build_chat_template_values(
                model,
                options,
                compat.get("chatTemplateArgs"),
                thinking_budget,
            ) {
                params.insert("chat_template_args", values.into());
            }
            if supports_effort {
                let mapped = match effort {
                    Some(e) => self.map_get(e),
                    None => self.map_get("off"),
                };
                let value = match mapped {
                    None => effort.map(Value::str),
                    Some(v) => Some(v.clone()),
                };
                if let Some(v @ Value::String(_)) = value {
                    params.insert("reasoning_effort", v);
                }
            }
        } else {
            return None;
        }
        Some(at)
    }

    /// The formats deepseek, openrouter, ant-ling, together and string-thinking of the chain
    /// (:681–726); `None` when the format is none of them (or does not apply).
    fn effort_formats(&self, params: &mut Object) -> Option<&'static str> {
        let (effort, format, reasoning) = (self.effort, self.format, self.reasoning);
        let supports_effort = self.supports_effort;
        let at: &'static str;
        if format == Some("deepseek") && reasoning {
            at = "AI/api/openai-completions.js:681";
            if effort.is_some() {
                params.insert("thinking", Object::new().with("type", "enabled").into());
            } else if self.map_get("off") != Some(&Value::Null) {
                params.insert("thinking", Object::new().with("type", "disabled").into());
            }
            if let (Some(e), true) = (effort, supports_effort) {
                params.insert("reasoning_effort", self.mapped_or_effort(e));
            }
        } else if format == Some("openrouter") && reasoning {
            at = "AI/api/openai-completions.js:693";
            if let Some(e) = effort {
                params.insert(
                    "reasoning",
                    Object::new()
                        .with("effort", self.mapped_or_effort(e))
                        .into(),
                );
            } else if self.map_get("off") != Some(&Value::Null) {
                let off = self
                    .map_get("off")
                    .cloned()
                    .unwrap_or_else(|| Value::str("none"));
                params.insert("reasoning", Object::new().with("effort", off).into());
            }
        } else if format == Some("ant-ling") && reasoning && effort.is_some() {
            at = "AI/api/openai-completions.js:705";
            if let Some(v @ Value::String(_)) = effort.and_then(|e| self.map_get(e)) {
                params.insert("reasoning", Object::new().with("effort", v.clone()).into());
            }
        } else if format == Some("together") && reasoning {
            at = "AI/api/openai-completions.js:711";
            params.insert(
                "reasoning",
                Object::new().with("enabled", effort.is_some()).into(),
            );
            if let (Some(e), true) = (effort, supports_effort) {
                params.insert("reasoning_effort", self.mapped_or_effort(e));
            }
        } else if format == Some("string-thinking") && reasoning {
            at = "AI/api/openai-completions.js:718";
            if let Some(e) = effort {
                params.insert("thinking", self.mapped_or_effort(e));
            } else if self.map_get("off") != Some(&Value::Null) {
                params.insert(
                    "thinking",
                    self.map_get("off")
                        .cloned()
                        .unwrap_or_else(|| Value::str("none")),
                );
            }
        } else {
            return None;
        }
        Some(at)
    }

    /// The OpenAI-style `reasoning_effort` that ends the chain (:727–736); `None` when it does
    /// not apply either.
    fn openai_reasoning_effort(&self, params: &mut Object) -> Option<&'static str> {
        let (effort, reasoning) = (self.effort, self.reasoning);
        let supports_effort = self.supports_effort;
        if let (Some(e), true, true) = (effort, reasoning, supports_effort) {
            params.insert("reasoning_effort", self.mapped_or_effort(e));
            Some("AI/api/openai-completions.js:729")
        } else if effort.is_none() && reasoning && supports_effort {
            if let Some(off @ Value::String(_)) = self.map_get("off") {
                params.insert("reasoning_effort", off.clone());
            }
            Some("AI/api/openai-completions.js:732")
        } else {
            None
        }
    }
}

/// `resolveThinkingTokenBudgetField` (:766–772).
fn resolve_thinking_token_budget_field(compat: &Compat) -> Option<String> {
    if let Some(field) = compat
        .get("thinkingTokenBudgetField")
        .filter(|v| v.truthy())
    {
        return Some(to_js_string(Some(field)));
    }
    if compat.truthy("supportsThinkingTokenBudget") {
        return Some("thinking_token_budget".into());
    }
    None
}

/// `resolveClampedThinkingBudget` (:773–779): the level's budget capped so 1024 tokens
/// stay for the answer under `max_tokens ?? max_completion_tokens ?? model.maxTokens`.
fn resolve_clamped_thinking_budget(
    pi: &Pi,
    model: &Model,
    options: &CompletionsOptions,
    params: &Object,
) -> Option<f64> {
    let effort = options.reasoning_effort.as_deref()?;
    if !model.reasoning() {
        return None;
    }
    let ceiling = [
        params.get("max_tokens"),
        params.get("max_completion_tokens"),
        model.obj.get("maxTokens"),
    ]
    .into_iter()
    .flatten()
    .find(|v| !v.is_null())
    .map(|v| to_number(Some(v)))
    .unwrap_or(f64::NAN);
    let budget = messages::clamp_thinking_budget_to_answer_room(
        pi,
        messages::thinking_budget_for_level(pi, effort, options.thinking_budgets.as_ref())
            .unwrap_or(f64::NAN),
        ceiling,
    );
    (budget > 0.0).then_some(budget)
}

/// `buildChatTemplateValues` (:780–789).
fn build_chat_template_values(
    model: &Model,
    options: &CompletionsOptions,
    values: Option<&Value>,
    thinking_budget: Option<f64>,
) -> Option<Object> {
    let values = values?.as_object()?;
    let mut resolved = Object::new();
    for (key, value) in values.iter() {
        if let Some(v) = resolve_chat_template_kwarg_value(model, options, value, thinking_budget) {
            resolved.insert(key.clone(), v);
        }
    }
    (!resolved.is_empty()).then_some(resolved)
}

/// `resolveChatTemplateKwargValue` (:790–806): literals pass through; `{$var}` objects become
/// the thinking switch, the budget, or the mapped effort.
fn resolve_chat_template_kwarg_value(
    model: &Model,
    options: &CompletionsOptions,
    value: &Value,
    thinking_budget: Option<f64>,
) -> Option<Value> {
    if !matches!(value, Value::Object(_) | Value::Array(_)) {
        return Some(value.clone());
    }
    let effort = options.reasoning_effort.as_deref();
    if effort.is_none() && value.get("omitWhenOff").is_some_and(Value::truthy) {
        return None;
    }
    match value.get("$var").and_then(Value::as_str) {
        Some("thinking.enabled") => return Some(Value::Bool(effort.is_some())),
        Some("thinking.budget") => return thinking_budget.map(Value::Number),
        _ => {}
    }
    let map = model.thinking_level_map();
    let mapped = map.and_then(|m| m.get(effort.unwrap_or("off")));
    match mapped {
        None => effort.map(Value::str),
        Some(v @ Value::String(_)) => Some(v.clone()),
        Some(_) => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Anthropic-style cache markers
// ---------------------------------------------------------------------------------------------

/// `getCompatCacheControl` (:807–813).
fn get_compat_cache_control(compat: &Compat, retention: &str) -> Option<Object> {
    if compat.str("cacheControlFormat") != Some("anthropic") || retention == "none" {
        return None;
    }
    let mut cc = Object::new().with("type", "ephemeral");
    if retention == "long" && compat.truthy("supportsLongCacheRetention") {
        cc.insert("ttl", Value::str("1h"));
    }
    Some(cc)
}

/// `applyAnthropicCacheControl` (:814–818).
fn apply_anthropic_cache_control(
    messages: &mut [Value],
    tools: Option<&mut Vec<Value>>,
    cc: &Object,
    events: &mut Events,
) {
    let ttl = cc
        .get_str("ttl")
        .map(|t| format!(" (ttl {t})"))
        .unwrap_or_default();
    if let Some(i) = add_cache_control_to_system_prompt(messages, cc) {
        events.push(
            Event::new(
                EventKind::Inserted,
                format!("cache_control{ttl} on the system prompt (message {i})"),
            )
            .at("AI/api/openai-completions.js:819"),
        );
    }
    if let Some(name) = add_cache_control_to_last_tool(tools, cc) {
        events.push(
            Event::new(
                EventKind::Inserted,
                format!("cache_control{ttl} on the last tool ({name})"),
            )
            .at("AI/api/openai-completions.js:837"),
        );
    }
    if let Some(i) = add_cache_control_to_last_conversation_message(messages, cc) {
        events.push(
            Event::new(
                EventKind::Inserted,
                format!("cache_control{ttl} on the last text of message {i}"),
            )
            .at("AI/api/openai-completions.js:827"),
        );
    }
}

/// `addCacheControlToSystemPrompt` (:819–826): the first system/developer message only.
fn add_cache_control_to_system_prompt(messages: &mut [Value], cc: &Object) -> Option<usize> {
    let i = messages
        .iter()
        .position(|m| matches!(m.get_str("role"), Some("system") | Some("developer")))?;
    add_cache_control_to_text_content(&mut messages[i], cc).then_some(i)
}

/// `addCacheControlToLastConversationMessage` (:827–836).
fn add_cache_control_to_last_conversation_message(
    messages: &mut [Value],
    cc: &Object,
) -> Option<usize> {
    for i in (0..messages.len()).rev() {
        if matches!(
            messages[i].get_str("role"),
            Some("user") | Some("assistant") | Some("tool")
        ) && add_cache_control_to_text_content(&mut messages[i], cc)
        {
            return Some(i);
        }
    }
    None
}

/// `addCacheControlToLastTool` (:837–843): `cache_control` beside `type` and `function`.
fn add_cache_control_to_last_tool(tools: Option<&mut Vec<Value>>, cc: &Object) -> Option<String> {
    let last = tools?.last_mut()?.as_object_mut()?;
    last.insert("cache_control", Value::Object(cc.clone()));
    let name = last
        .get("function")
        .or_else(|| last.get("custom"))
        .and_then(|f| f.get_str("name"))
        .unwrap_or("")
        .to_string();
    Some(name)
}

/// `addCacheControlToTextContent` (:853–880): a non-empty string becomes one text part with the
/// marker; in an array the last text part gets it.
fn add_cache_control_to_text_content(message: &mut Value, cc: &Object) -> bool {
    let Some(msg) = message.as_object_mut() else {
        return false;
    };
    match msg.get_mut("content") {
        Some(Value::String(s)) => {
            if s.is_empty() {
                return false;
            }
            let text = std::mem::take(s);
            let part = Object::new()
                .with("type", "text")
                .with("text", text)
                .with("cache_control", cc.clone());
            let part = body::text_of(part, &Value::Object(msg.clone()));
            msg.insert("content", Value::Array(vec![part.into()]));
            true
        }
        Some(Value::Array(parts)) => {
            for part in parts.iter_mut().rev() {
                if part.get_str("type") == Some("text") {
                    if let Some(p) = part.as_object_mut() {
                        p.insert("cache_control", Value::Object(cc.clone()));
                        return true;
                    }
                }
            }
            false
        }
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------------
// convertMessages
// ---------------------------------------------------------------------------------------------

/// The tool-call id normalizer of `convertMessages` (:883–907): ids with `|` (Responses
/// `call_id|item_id`) are sanitized and combined, hashed past 40 chars; provider `openai`
/// truncates to 40; others are kept.
pub fn normalize_tool_call_id(id: &str, model: &Model) -> String {
    if let Some((call, item)) = id.split_once('|') {
        let call_id = super::sanitize_tool_call_id(call);
        let item_id = super::sanitize_tool_call_id(item);
        let combined = if item_id.is_empty() {
            call_id.clone()
        } else {
            format!("{call_id}_{item_id}")
        };
        if combined.len() <= 40 {
            return combined;
        }
        let hash = js::js_slice(&js::short_hash(id), 0, Some(8));
        let prefix_len = 40usize.saturating_sub(utf16_len(&hash) + 1).max(1);
        let prefix = js::js_slice(&call_id, 0, Some(prefix_len));
        return format!("{prefix}_{hash}");
    }
    if model.provider() == "openai" && utf16_len(id) > 40 {
        return js::js_slice(id, 0, Some(40));
    }
    id.to_string()
}

/// What `convertMessages(model, context, compat, options)` works with: its arguments, how the
/// transcript's system messages are sent (0.86 on), and the messages converted so far
/// (`params`).
struct MessageConversion<'a> {
    pi: &'a Pi,
    model: &'a Model,
    ctx: &'a LlmContext,
    compat: &'a Compat,
    /// `instructionRole`: "developer" for a reasoning model with compat.supportsDeveloperRole.
    instruction_role: &'static str,
    /// `transcriptTools.foldedSystemMessages`: the system messages whose tools are folded into
    /// the top-level tools.
    folded: usize,
    /// `systemIndex`: the system messages met so far.
    system_index: usize,
    params: Vec<Value>,
}

/// `convertMessages` (:881–1145): `transformMessages` with this adapter's id normalizer, the
/// system prompt, then user, assistant, tool-result batches and
/// the synthetic assistant bridge.
fn convert_messages(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    compat: &Compat,
    grammar_props: &[(String, String)],
    events: &mut Events,
) -> Result<Vec<Value>, AdapterError> {
    let transformed = transformed_messages(pi, model, ctx, events);
    let mut conv = MessageConversion::new(pi, model, ctx, compat);
    conv.system_prompt(events);
    let requires_bridge = compat.truthy("requiresAssistantAfterToolResult");
    let mut last_role: Option<String> = None;
    let mut i = 0;
    while i < transformed.len() {
        let msg = &transformed[i];
        let role = msg.get_str("role");
        if requires_bridge && last_role.as_deref() == Some("toolResult") && role == Some("user") {
            conv.bridge_assistant(events);
        }
        match role {
            Some("system") if ctx.is_transcript() => conv.system_message(msg, i, events)?,
            Some("user") => {
                let pushed = convert_user_message(pi, msg, &mut conv.params, events)?;
                if !pushed {
                    i += 1;
                    continue;
                }
            }
            Some("assistant") => {
                let converted =
                    convert_assistant_message(pi, model, msg, compat, grammar_props, events)?;
                match converted {
                    Some(m) => conv.params.push(m),
                    None => {
                        events.push(
                            Event::new(
                                EventKind::Dropped,
                                format!("assistant message {i} has no content and no tool calls"),
                            )
                            .at("AI/api/openai-completions.js:1058"),
                        );
                        i += 1;
                        continue;
                    }
                }
            }
            Some("toolResult") => {
                let (next, ended_with_user) = conv.tool_result_batch(&transformed, i, events)?;
                i = next;
                last_role = Some(
                    if ended_with_user {
                        "user"
                    } else {
                        "toolResult"
                    }
                    .into(),
                );
                continue;
            }
            _ => {}
        }
        last_role = role.map(String::from);
        i += 1;
    }
    Ok(conv.params)
}

/// `transformMessages` with `convertMessages`' tool-call id normalizer (:883–908), each id it
/// renames noted.
fn transformed_messages(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    events: &mut Events,
) -> Vec<Value> {
    let renamed: RefCell<Vec<(String, String)>> = RefCell::new(Vec::new());
    let normalize = |id: &str, target: &Model, _source: &Value| {
        let new_id = normalize_tool_call_id(id, target);
        if new_id != id {
            renamed.borrow_mut().push((id.to_string(), new_id.clone()));
        }
        new_id
    };
    let transformed =
        messages::transform_messages(pi, &ctx.messages, model, Some(&normalize), 0.0, events);
    for (old, new) in renamed.into_inner() {
        events.push(
            Event::new(EventKind::Renamed, format!("tool call id {old} → {new}"))
                .at("AI/api/openai-completions.js:883"),
        );
    }
    transformed
}

impl<'a> MessageConversion<'a> {
    /// The set-up of `convertMessages`: no messages yet; from 0.86 on, the instruction role and
    /// the transcript's folded system messages (1.6.0/AI/api/openai-completions.js:887–892).
    fn new(
        pi: &'a Pi,
        model: &'a Model,
        ctx: &'a LlmContext,
        compat: &'a Compat,
    ) -> MessageConversion<'a> {
        // 0.86 on: system messages in the transcript (:886–918).
        let folded = if ctx.is_transcript() {
            crate::transcript::resolve_tools(
                &ctx.messages,
                tool_changes(compat),
                pi.rules.tool_changes_fold_after_last_change,
            )
            .1
        } else {
            0
        };
        let instruction_role = if model.reasoning() && compat.truthy("supportsDeveloperRole") {
            "developer"
        } else {
            "system"
        };
        MessageConversion {
            pi,
            model,
            ctx,
            compat,
            instruction_role,
            folded,
            system_index: 0,
            params: Vec::new(),
        }
    }

    /// 0.85's `context.systemPrompt` as the first message, "developer" for a reasoning model
    /// with compat.supportsDeveloperRole (:909–913).
    fn system_prompt(&mut self, events: &mut Events) {
        let (model, ctx, compat) = (self.model, self.ctx, self.compat);
        if !ctx.system_prompt().is_empty() {
            let developer = model.reasoning() && compat.truthy("supportsDeveloperRole");
            let role = if developer { "developer" } else { "system" };
            events.push(
                Event::new(
                    EventKind::Note,
                    format!(
                        "system prompt sent as a {role:?} message{}",
                        if developer {
                            " (reasoning model, supportsDeveloperRole)"
                        } else {
                            ""
                        }
                    ),
                )
                .at("AI/api/openai-completions.js:910"),
            );
            self.params.push(
                Object::new()
                    .with("role", role)
                    .with(
                        "content",
                        sanitize_surrogates(ctx.system_prompt()).into_owned(),
                    )
                    .marked(Tag::System.mark())
                    .into(),
            );
        }
    }

    /// The synthetic assistant message between tool results and a user message, for
    /// compat.requiresAssistantAfterToolResult (:917–924).
    fn bridge_assistant(&mut self, events: &mut Events) {
        let pi = self.pi;
        self.params.push(Value::Object(
            Object::new()
                .with("role", "assistant")
                .with("content", text(pi, "assistantAfterToolResult"))
                .marked(inserted(
                    pi,
                    "assistantAfterToolResult",
                    Kind::AssistantText,
                )),
        ));
        events.push(
            Event::new(
                EventKind::Inserted,
                format!(
                    "assistant {:?} between tool results and a user message",
                    text(pi, "assistantAfterToolResult")
                ),
            )
            .at("AI/api/openai-completions.js:919"),
        );
    }

    /// The system branch of `convertMessages` (0.86 on): the tools it adds in place, when not
    /// folded, then its text as an instruction (1.6.0/AI/api/openai-completions.js:903–917).
    fn system_message(
        &mut self,
        msg: &Value,
        i: usize,
        events: &mut Events,
    ) -> Result<(), AdapterError> {
        let (pi, compat) = (self.pi, self.compat);
        let instruction_role = self.instruction_role;
        let in_place = self.system_index >= self.folded;
        self.system_index += 1;
        let added = msg
            .get("toolsAdded")
            .and_then(Value::as_array)
            .filter(|_| in_place)
            .map(|a| {
                a.iter()
                    .map(crate::transcript::tool_from_declaration)
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        if !added.is_empty() {
            let refs: Vec<&ToolDef> = added.iter().collect();
            let tools = convert_tools(pi, &refs, compat, events)?;
            self.params.push(
                Object::new()
                    .with("role", text(pi, "inPlaceToolsMessageRole"))
                    .with("tools", Value::Array(tools))
                    .into(),
            );
            events.push(
                Event::new(
                    EventKind::Inserted,
                    format!(
                        "{} tool(s) declared in place (a system message with tools and no content)",
                        added.len()
                    ),
                )
                .at("1.6.0/AI/api/openai-completions.js:905"),
            );
        }
        let text = if i == 0 {
            crate::transcript::system_message_text(pi, msg)
        } else {
            crate::transcript::render_system_message_update(pi, msg)
        };
        if !text.is_empty() {
            events.push(
                Event::new(
                    EventKind::Note,
                    if i == 0 {
                        format!("system prompt sent as a {instruction_role:?} message")
                    } else {
                        format!("a later system message sent in place as a {instruction_role:?} message")
                    },
                )
                .at("1.6.0/AI/api/openai-completions.js:913"),
            );
            self.params.push(
                Object::new()
                    .with("role", instruction_role)
                    .with("content", sanitize_surrogates(&text).into_owned())
                    .marked(Tag::System.mark())
                    .into(),
            );
        }
        Ok(())
    }
}

/// The user branch of `convertMessages` (:925–956). Returns false when pi skips the message
/// (an empty content array).
fn convert_user_message(
    pi: &Pi,
    msg: &Value,
    params: &mut Vec<Value>,
    events: &mut Events,
) -> Result<bool, AdapterError> {
    match msg.get("content") {
        Some(Value::String(s)) => {
            params.push(message_like(Object::new().with("role", "user").with("content", sanitize_shared(s)), msg).into());
        }
        Some(Value::Array(items)) => {
            let mut content = Vec::with_capacity(items.len());
            for item in items {
                if item.get_str("type") == Some("text") {
                    // 0.87.1: `.filter((item) => item.type !== "text" || item.text.length > 0)`.
                    if pi.rules.completions.drop_empty_user_text
                        && item.get("text").is_some_and(|t| t.as_str().is_some_and(str::is_empty))
                    {
                        events.push(
                            Event::new(EventKind::Dropped, "empty text part of a user message")
                                .at("1.6.0/AI/api/openai-completions.js:926"),
                        );
                        continue;
                    }
                    let t = block_str(item, "text")?;
                    content.push(like(Object::new().with("type", "text").with("text", sanitize_surrogates(t).into_owned()), item).into());
                } else {
                    content.push(image_url_part(item));
                }
            }
            if content.is_empty() {
                events.push(Event::new(EventKind::Dropped, "user message with empty content").at("AI/api/openai-completions.js:949"));
                return Ok(false);
            }
            params.push(message_like(Object::new().with("role", "user").with("content", Value::Array(content)), msg).into());
        }
        _ => return Err(err("user message content is neither a string nor an array (pi: msg.content.map is not a function)")),
    }
    Ok(true)
}

/// `{type:"image_url", image_url:{url:`data:${mimeType};base64,${data}`}}`.
fn image_url_part(block: &Value) -> Value {
    let url = format!(
        "data:{};base64,{}",
        to_js_string(block.get("mimeType")),
        to_js_string(block.get("data"))
    );
    Object::new()
        .with("type", "image_url")
        .with("image_url", like(Object::new().with("url", url), block))
        .into()
}

/// The assistant branch of `convertMessages` (:957–1062). `None` when pi skips it.
fn convert_assistant_message(
    pi: &Pi,
    model: &Model,
    msg: &Value,
    compat: &Compat,
    grammar_props: &[(String, String)],
    events: &mut Events,
) -> Result<Option<Value>, AdapterError> {
    let blocks = content_array(msg, "assistant")?;
    let mut out = message_like(Object::new(), msg)
        .with("role", "assistant")
        .with(
            "content",
            if compat.truthy("requiresAssistantAfterToolResult")
                || compat.truthy("requiresNonNullAssistantContent")
            {
                Value::str("")
            } else {
                Value::Null
            },
        );

    let text_parts = assistant_text_parts(blocks, events)?;
    let assistant_text = text_parts.concat();
    let thinking_blocks: Vec<&Value> = blocks
        .iter()
        .filter(|b| b.get_str("type") == Some("thinking"))
        .collect();
    let tool_calls: Vec<&Value> = blocks
        .iter()
        .filter(|b| b.get_str("type") == Some("toolCall"))
        .collect();
    let preserved = preserved_reasoning_details(&thinking_blocks, &tool_calls);

    let mut non_empty_thinking: Vec<(&Value, &str)> = Vec::new();
    for b in &thinking_blocks {
        let t = block_str(b, "thinking")?;
        if !js::js_trim_is_empty(t) {
            non_empty_thinking.push((b, t));
        }
    }

    if !non_empty_thinking.is_empty() {
        if compat.truthy("requiresThinkingAsText") {
            let content =
                thinking_as_text_content(pi, msg, &non_empty_thinking, &text_parts, events);
            out.insert("content", content);
        } else {
            if !assistant_text.is_empty() {
                out.insert("content", Value::String(assistant_text.clone().into()));
            }
            if preserved.is_none() {
                if let Some((field, value)) =
                    reasoning_field(pi, model, &non_empty_thinking, events)
                {
                    out.insert(field, value);
                }
            }
        }
    } else if !assistant_text.is_empty() {
        out.insert("content", Value::String(assistant_text.into()));
    }

    if !tool_calls.is_empty() {
        let converted = assistant_tool_calls(&tool_calls, grammar_props)?;
        out.insert("tool_calls", Value::Array(converted));
    }
    if let Some(details) = preserved {
        out.insert("reasoning_details", marked_reasoning_details(details, msg));
        events.push(
            Event::new(
                EventKind::Converted,
                "thinking signature replayed as reasoning_details",
            )
            .at("AI/api/openai-completions.js:1043"),
        );
    }
    if compat.truthy("requiresReasoningContentOnAssistantMessages")
        && model.reasoning()
        && !out.contains_key("reasoning_content")
    {
        out.insert("reasoning_content", Value::str(""));
        events.push(
            Event::new(
                EventKind::Inserted,
                "reasoning_content: \"\" (requiresReasoningContentOnAssistantMessages)",
            )
            .at("AI/api/openai-completions.js:1048"),
        );
    }
    let has_content = match out.get("content") {
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        _ => false,
    };
    if !has_content && !out.contains_key("tool_calls") {
        return Ok(None);
    }
    Ok(Some(out.into()))
}

/// `assistantTextParts`: the text blocks that are not blank, sanitized; pi joins them with no
/// separator into `assistantText`.
fn assistant_text_parts(
    blocks: &[Value],
    events: &mut Events,
) -> Result<Vec<String>, AdapterError> {
    let mut text_parts: Vec<String> = Vec::new();
    let mut blank_texts = 0;
    for b in blocks.iter().filter(|b| b.get_str("type") == Some("text")) {
        let t = block_str(b, "text")?;
        if js::js_trim_is_empty(t) {
            blank_texts += 1;
        } else {
            text_parts.push(sanitize_surrogates(t).into_owned());
        }
    }
    if blank_texts > 0 {
        events.push(
            Event::new(
                EventKind::Dropped,
                format!("{blank_texts} blank assistant text block(s)"),
            )
            .at("AI/api/openai-completions.js:964"),
        );
    }
    if text_parts.len() > 1 {
        events.push(
            Event::new(
                EventKind::Converted,
                format!(
                    "{} assistant text blocks joined with no separator into one string",
                    text_parts.len()
                ),
            )
            .at("AI/api/openai-completions.js:969"),
        );
    }
    Ok(text_parts)
}

/// `preservedReasoningDetails`: the first thinking signature that `parseOpenAIReasoningDetails`
/// reads, else the tool calls' `parseLegacyEncryptedReasoningDetail` details, if any.
fn preserved_reasoning_details(thinking_blocks: &[&Value], tool_calls: &[&Value]) -> Option<Value> {
    let signed = thinking_blocks
        .iter()
        .find_map(|b| parse_openai_reasoning_details(b.get("thinkingSignature")));
    let legacy: Vec<Value> = tool_calls
        .iter()
        .filter_map(|tc| parse_legacy_encrypted_reasoning_detail(tc.get("thoughtSignature")))
        .collect();
    signed.or_else(|| (!legacy.is_empty()).then_some(Value::Array(legacy)))
}

/// `requiresThinkingAsText`: `[{type: "text", text: thinkingText}, ...assistantTextParts]`, the
/// non-empty thinking blocks joined into one text part ahead of the text parts.
fn thinking_as_text_content(
    pi: &Pi,
    msg: &Value,
    non_empty_thinking: &[(&Value, &str)],
    text_parts: &[String],
    events: &mut Events,
) -> Value {
    let thinking_text = non_empty_thinking
        .iter()
        .map(|(_, t)| sanitize_surrogates(t).into_owned())
        .collect::<Vec<_>>()
        .join(text(pi, "thinkingAsTextJoin"));
    let mut content = vec![Value::Object(part_of(
        Object::new()
            .with("type", "text")
            .with("text", thinking_text),
        msg,
        Kind::AssistantText,
    ))];
    content.extend(text_parts.iter().map(|t| {
        Value::Object(part_of(
            Object::new().with("type", "text").with("text", t.as_str()),
            msg,
            Kind::AssistantText,
        ))
    }));
    events.push(
        Event::new(
            EventKind::Converted,
            format!(
                "{} thinking block(s) sent as a text part (requiresThinkingAsText)",
                non_empty_thinking.len()
            ),
        )
        .at("AI/api/openai-completions.js:983"),
    );
    Value::Array(content)
}

/// `assistantMsg[signature] = thinking joined`: the raw reasoning field named by the first
/// thinking block's signature when `isOpenAICompletionsReasoningField`, else nothing (dropped).
fn reasoning_field(
    pi: &Pi,
    model: &Model,
    non_empty_thinking: &[(&Value, &str)],
    events: &mut Events,
) -> Option<(String, Value)> {
    let mut signature = non_empty_thinking[0].0.get("thinkingSignature").cloned();
    if model.provider() == "opencode-go"
        && signature.as_ref().and_then(Value::as_str) == Some("reasoning")
    {
        signature = Some(Value::str("reasoning_content"));
    }
    match signature.as_ref().and_then(Value::as_str) {
        Some(field @ ("reasoning" | "reasoning_content" | "reasoning_text")) => {
            let joined = non_empty_thinking
                .iter()
                .map(|(_, t)| *t)
                .collect::<Vec<_>>()
                .join(text(pi, "reasoningFieldJoin"));
            events.push(
                Event::new(
                    EventKind::Converted,
                    format!(
                        "{} thinking block(s) replayed in the {field} field",
                        non_empty_thinking.len()
                    ),
                )
                .at("AI/api/openai-completions.js:1006"),
            );
            Some((field.to_string(), Value::String(joined.into())))
        }
        _ => {
            events.push(
                Event::new(
                    EventKind::Dropped,
                    format!(
                        "{} thinking block(s) not sent: no reasoning field signature",
                        non_empty_thinking.len()
                    ),
                )
                .at("AI/api/openai-completions.js:1002"),
            );
            None
        }
    }
}

/// `toolCalls.map(...)`: a `custom` call with `getGrammarToolInput` for a tool with a custom
/// input property, else a `function` call with `JSON.stringify(arguments)`.
fn assistant_tool_calls(
    tool_calls: &[&Value],
    grammar_props: &[(String, String)],
) -> Result<Vec<Value>, AdapterError> {
    let mut converted = Vec::with_capacity(tool_calls.len());
    for tc in tool_calls {
        let name = tc.get_str("name");
        let custom_prop = grammar_property(grammar_props, name);
        if let (Some(name), Some(prop)) = (name, custom_prop) {
            let input = get_grammar_tool_input(name, tc.get("arguments"), prop)?;
            let mut call = Object::new();
            call.insert_opt("id", tc.get("id").cloned());
            call.insert("type", Value::str("custom"));
            call.insert(
                "custom",
                like(
                    Object::new()
                        .with("name", name)
                        .with("input", sanitize_surrogates(&input).into_owned()),
                    tc,
                )
                .into(),
            );
            converted.push(call.into());
            continue;
        }
        let mut function = like(Object::new(), tc);
        function.insert_opt("name", tc.get("name").cloned());
        // `JSON.stringify(undefined)` is undefined: the member disappears.
        function.insert_opt(
            "arguments",
            tc.get("arguments")
                .map(|a| Value::String(a.to_json().into())),
        );
        let mut call = Object::new();
        call.insert_opt("id", tc.get("id").cloned());
        call.insert("type", Value::str("function"));
        call.insert("function", function.into());
        converted.push(call.into());
    }
    Ok(converted)
}

/// `assistantMsg.reasoning_details = preservedReasoningDetails`, each detail marked as a part of
/// the message's reasoning: its text, its signature or data.
fn marked_reasoning_details(mut details: Value, msg: &Value) -> Value {
    let tag = body::Tag::Block {
        llm: body::tag_of(msg)
            .and_then(body::Tag::llm)
            .unwrap_or(body::NO_MESSAGE),
        kind: Kind::Reasoning,
    };
    match &mut details {
        Value::Array(items) => items.iter_mut().for_each(|d| body::mark(d, tag)),
        d => body::mark(d, tag),
    }
    details
}

impl MessageConversion<'_> {
    /// The tool-result branch of `convertMessages` (:1063–1141): one `tool` message per
    /// consecutive toolResult, then the images of the whole batch in a user message, then kimi's
    /// deferred tools. Returns the index after the batch and whether a user message ended it.
    fn tool_result_batch(
        &mut self,
        transformed: &[Value],
        start: usize,
        events: &mut Events,
    ) -> Result<(usize, bool), AdapterError> {
        let mut image_blocks: Vec<Value> = Vec::new();
        let mut deferred_names: Vec<String> = Vec::new();
        let kimi = self.compat.str("deferredToolsMode") == Some("kimi");
        let mut j = start;
        while j < transformed.len() && transformed[j].get_str("role") == Some("toolResult") {
            let tool_msg = &transformed[j];
            let content = content_array(tool_msg, "toolResult")?;
            let has_images = content.iter().any(|c| c.get_str("type") == Some("image"));
            let out = self.tool_message(tool_msg, content, has_images, j, events);
            self.params.push(out);
            if kimi {
                for name in tool_msg
                    .get("addedToolNames")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    if !deferred_names.iter().any(|n| n == name) {
                        deferred_names.push(name.to_string());
                    }
                }
            }
            if has_images && self.model.supports_images() {
                for block in content
                    .iter()
                    .filter(|b| b.get_str("type") == Some("image"))
                {
                    image_blocks.push(image_url_part(block));
                }
            }
            j += 1;
        }

        let ended_with_user = !image_blocks.is_empty();
        if ended_with_user {
            self.tool_result_images(image_blocks, events);
        }
        if !deferred_names.is_empty() {
            self.kimi_deferred_tools(&deferred_names, events)?;
        }
        Ok((j, ended_with_user))
    }

    /// The `tool` message of tool result `j` (:1068–1086): its text, or a placeholder when it
    /// has none, and the tool name for compat.requiresToolResultName.
    fn tool_message(
        &self,
        tool_msg: &Value,
        content: &[Value],
        has_images: bool,
        j: usize,
        events: &mut Events,
    ) -> Value {
        let pi = self.pi;
        let text_result = join_shared(
            &content
                .iter()
                .filter(|b| b.get_str("type") == Some("text"))
                .map(|b| b.get("text"))
                .collect::<Vec<_>>(),
            text(pi, "toolResultTextJoin"),
        );
        // 1.4.0: whitespace-only output counts as none (the text itself is sent untrimmed).
        let has_text = if pi.rules.completions.blank_tool_result_is_empty {
            !js::js_trim_is_empty(&text_result)
        } else {
            !text_result.is_empty()
        };
        let tool_result_text: Str = if has_text {
            text_result
        } else if has_images {
            events.push(
                Event::new(
                    EventKind::Replaced,
                    format!(
                        "tool result {j} has only images: content {:?}",
                        text(pi, "toolResultImageOnly")
                    ),
                )
                .at("AI/api/openai-completions.js:1077"),
            );
            text(pi, "toolResultImageOnly").into()
        } else {
            events.push(
                Event::new(
                    EventKind::Replaced,
                    format!(
                        "tool result {j} is empty: content {:?}",
                        text(pi, "toolResultEmpty")
                    ),
                )
                .at("AI/api/openai-completions.js:1077"),
            );
            text(pi, "toolResultEmpty").into()
        };
        let mut out = message_like(Object::new(), tool_msg)
            .with("role", "tool")
            .with("content", sanitize_shared(&tool_result_text));
        out.insert_opt("tool_call_id", tool_msg.get("toolCallId").cloned());
        if self.compat.truthy("requiresToolResultName") {
            if let Some(name) = tool_msg.get("toolName").filter(|v| v.truthy()) {
                out.insert("name", name.clone());
            }
        }
        out.into()
    }

    /// The images of a tool-result batch in a user message, after the assistant bridge for
    /// compat.requiresAssistantAfterToolResult (:1107–1125).
    fn tool_result_images(&mut self, image_blocks: Vec<Value>, events: &mut Events) {
        let pi = self.pi;
        if self.compat.truthy("requiresAssistantAfterToolResult") {
            self.params.push(
                Object::new()
                    .with("role", "assistant")
                    .with("content", text(pi, "assistantAfterToolResult"))
                    .marked(inserted(
                        pi,
                        "assistantAfterToolResult",
                        Kind::AssistantText,
                    ))
                    .into(),
            );
            events.push(
                Event::new(
                    EventKind::Inserted,
                    format!(
                        "assistant {:?} before the tool-result images",
                        text(pi, "assistantAfterToolResult")
                    ),
                )
                .at("AI/api/openai-completions.js:1108"),
            );
        }
        let n = image_blocks.len();
        let images_text = inserted(pi, "toolResultImagesUserText", Kind::UserText);
        let mut content = vec![Value::Object(
            Object::new()
                .with("type", "text")
                .with("text", text(pi, "toolResultImagesUserText"))
                .marked(images_text),
        )];
        content.extend(image_blocks);
        self.params.push(
            Object::new()
                .with("role", "user")
                .with("content", Value::Array(content))
                .marked(images_text)
                .into(),
        );
        events.push(
            Event::new(
                EventKind::Converted,
                format!("{n} tool-result image(s) moved into a following user message"),
            )
            .at("AI/api/openai-completions.js:1114"),
        );
    }

    /// Kimi's deferred tools of a tool-result batch, in a system message with tools and no
    /// content (:1129–1139).
    fn kimi_deferred_tools(
        &mut self,
        deferred_names: &[String],
        events: &mut Events,
    ) -> Result<(), AdapterError> {
        let pi = self.pi;
        let deferred_tools = get_tools_by_name(self.ctx.tools(), deferred_names);
        if !deferred_tools.is_empty() {
            let names: Vec<&str> = deferred_tools.iter().map(|t| t.name.as_str()).collect();
            let tools = convert_tools(pi, &deferred_tools, self.compat, events)?;
            self.params.push(
                Object::new()
                    .with("role", "system")
                    .with("tools", Value::Array(tools))
                    .into(),
            );
            events.push(
                Event::new(
                    EventKind::Inserted,
                    format!(
                        "system message with the deferred tools {} (kimi; no content field)",
                        names.join(", ")
                    ),
                )
                .at("AI/api/openai-completions.js:1132"),
            );
        }
        Ok(())
    }
}

/// `msg.content` as an array (pi calls array methods on it and would throw otherwise).
fn content_array<'a>(msg: &'a Value, role: &str) -> Result<&'a Vec<Value>, AdapterError> {
    msg.get("content").and_then(Value::as_array).ok_or_else(|| {
        err(format!(
            "{role} message content is not an array (pi: msg.content.filter is not a function)"
        ))
    })
}

/// A block's string member that pi calls string methods on (`.trim()`, `sanitizeSurrogates`).
fn block_str<'a>(block: &'a Value, key: &str) -> Result<&'a str, AdapterError> {
    block.get(key).and_then(Value::as_str).ok_or_else(|| {
        err(format!(
            "a content block's {key} is not a string (pi would throw a TypeError)"
        ))
    })
}

/// `hasToolHistory` (:39–51): any toolResult, or any assistant with a toolCall block.
fn has_tool_history(messages: &[Value]) -> Result<bool, AdapterError> {
    for msg in messages {
        match msg.get_str("role") {
            Some("toolResult") => return Ok(true),
            Some("assistant")
                if content_array(msg, "assistant")?
                    .iter()
                    .any(|b| b.get_str("type") == Some("toolCall")) =>
            {
                return Ok(true)
            }
            _ => {}
        }
    }
    Ok(false)
}

/// `getDeferredToolNames` (:52–62): every `addedToolNames` entry of every toolResult.
fn get_deferred_tool_names(messages: &[Value]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for msg in messages
        .iter()
        .filter(|m| m.get_str("role") == Some("toolResult"))
    {
        for name in msg
            .get("addedToolNames")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        }
    }
    names
}

/// `getToolsByName` (:63–70): in the order of `names`; a later duplicate tool name wins.
fn get_tools_by_name<'a>(tools: &'a [ToolDef], names: &[String]) -> Vec<&'a ToolDef> {
    names
        .iter()
        .filter_map(|name| tools.iter().rev().find(|t| t.name == *name))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Reasoning details
// ---------------------------------------------------------------------------------------------

/// `isOpenAIReasoningDetail` with `hasValidCommonReasoningDetailFields` (:83–106).
fn is_openai_reasoning_detail(detail: &Value) -> bool {
    let Some(d) = detail.as_object() else {
        return false;
    };
    let id_ok = matches!(
        d.get("id"),
        None | Some(Value::Null) | Some(Value::String(_))
    );
    let format_ok = matches!(d.get("format"), None | Some(Value::String(_)));
    let index_ok = matches!(d.get("index"), None | Some(Value::Number(_)));
    if !(id_ok && format_ok && index_ok) {
        return false;
    }
    let is_str = |k: &str| matches!(d.get(k), Some(Value::String(_)));
    match d.get_str("type") {
        Some("reasoning.summary") => is_str("summary"),
        Some("reasoning.encrypted") => is_str("data"),
        Some("reasoning.text") => {
            is_str("text")
                && matches!(
                    d.get("signature"),
                    None | Some(Value::Null) | Some(Value::String(_))
                )
        }
        _ => false,
    }
}

/// `JSON.parse` of a signature that pi requires to be truthy (non-strings are coerced and in
/// practice never parse into the shapes below).
fn parse_signature(signature: Option<&Value>) -> Option<Value> {
    match signature {
        Some(Value::String(s)) if !s.is_empty() => js::parse(s).ok(),
        _ => None,
    }
}

/// `parseOpenAIReasoningDetails` (:107–117): a non-empty array of valid details.
fn parse_openai_reasoning_details(signature: Option<&Value>) -> Option<Value> {
    let parsed = parse_signature(signature)?;
    let arr = parsed.as_array()?;
    (!arr.is_empty() && arr.iter().all(is_openai_reasoning_detail)).then_some(parsed)
}

/// `parseLegacyEncryptedReasoningDetail` (:118–134): one encrypted detail with an id and data.
fn parse_legacy_encrypted_reasoning_detail(signature: Option<&Value>) -> Option<Value> {
    let parsed = parse_signature(signature)?;
    let ok = is_openai_reasoning_detail(&parsed)
        && parsed.get_str("type") == Some("reasoning.encrypted")
        && parsed.get_str("id").is_some_and(|id| !id.is_empty())
        && parsed.get_str("data").is_some_and(|d| !d.is_empty());
    ok.then_some(parsed)
}

// ---------------------------------------------------------------------------------------------
// Tools and constrained sampling
// ---------------------------------------------------------------------------------------------

/// `convertTools` (:1146–1177): function tools with `strict` (unless the provider does not
/// support it), or custom grammar tools.
fn convert_tools(
    pi: &Pi,
    tools: &[&ToolDef],
    compat: &Compat,
    events: &mut Events,
) -> Result<Vec<Value>, AdapterError> {
    let supports_strict = !compat.is_false("supportsStrictMode");
    let mut out = Vec::with_capacity(tools.len());
    for tool in tools {
        if let Some(grammar) =
            resolve_grammar_constrained_sampling(tool, compat.truthy("supportsOpenAIGrammarTools"))?
        {
            let format = Object::new().with("type", "grammar").with(
                "grammar",
                Object::new()
                    .with("syntax", grammar.format)
                    .with("definition", grammar.definition),
            );
            let custom = Object::new()
                .with("name", tool.name.as_str())
                .with("description", tool.description.as_str())
                .with("format", format.marked(Tag::Schema.mark()))
                .marked(Tag::Tool.mark());
            out.push(
                Object::new()
                    .with("type", "custom")
                    .with("custom", custom)
                    .marked(Tag::Tool.mark())
                    .into(),
            );
            events.push(
                Event::new(
                    EventKind::Converted,
                    format!(
                        "tool {} sent as a custom {} grammar tool",
                        tool.name, grammar.format
                    ),
                )
                .at("AI/api/openai-completions.js:1149"),
            );
            continue;
        }
        let strict = resolve_json_schema_strict_sampling(&Strict::of(pi), tool, supports_strict)?;
        let parameters = if strict == Some(true) {
            events.push(
                Event::new(
                    EventKind::Converted,
                    format!("tool {} schema made strict (strict: true)", tool.name),
                )
                .at("AI/api/constrained-sampling.js:101"),
            );
            make_strict_json_schema(&Strict::of(pi), &tool.parameters)
                .map_err(|e| err(format!("Tool \"{}\": {}", tool.name, e)))?
        } else {
            tool.parameters.clone()
        };
        let mut function = Object::new()
            .with("name", tool.name.as_str())
            .with("description", tool.description.as_str())
            .with("parameters", body::marked(parameters, Tag::Schema))
            .marked(Tag::Tool.mark());
        if supports_strict {
            function.insert("strict", Value::Bool(strict.unwrap_or(false)));
        }
        out.push(
            Object::new()
                .with("type", "function")
                .with("function", function)
                .marked(Tag::Tool.mark())
                .into(),
        );
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Small JS helpers
// ---------------------------------------------------------------------------------------------

#[cfg(test)]
#[path = "openai_completions_tests.rs"]
mod tests;

//! pi-ai `dist/api/anthropic-messages.js`,
//! with the helpers it uses from `utils/deferred-tools.js` (0.85), `utils/transcript.js` (0.86 on)
//! and `api/constrained-sampling.js`, and the part of `@anthropic-ai/sdk` (0.123.0, 0.129.0) that
//! shapes the wire request (`betas` moved to the `anthropic-beta` header, header merge order,
//! `?beta=true`).
//!
//! Functions are named after pi's and cite their lines; `AI/` = pi-ai `dist/`,
//! `SDK/` = `@anthropic-ai/sdk/`; a `1.6.0/` prefix cites pi 1.6.0's code, the others 0.85.1's.
//! What 1.6.0 does differently is switched by `pi.rules.anthropic`, and the shape of the context
//! (system messages instead of a prompt and tools) is the context's own (`LlmContext::system`).

use std::borrow::Cow;
use std::collections::HashSet;

use super::body::{self, Kind, Tag};
use super::constrained_sampling::{
    get_json_schema_tool_parameters, resolve_json_schema_strict_sampling, Strict,
};
use super::github_copilot_headers::{build_copilot_dynamic_headers, has_copilot_vision_input};
use super::{err, ev, AdapterError, Request, StreamOptions};
use crate::context::LlmContext;
use crate::headers::has_header;
use crate::js::{
    join_element, join_shared, js_max, js_min, js_trim, js_trim_is_empty, non_nullish,
    number_to_string, sanitize_shared, sanitize_surrogates, Object, Str, Value,
};
use crate::messages;
use crate::model::Model;
use crate::pi::Pi;
use crate::sdk::anthropic::{assign, Client};
use crate::tools::ToolDef;
use crate::trace::{EventKind, Events};
use crate::transcript;

const DATA_GROUP: &str = "anthropicMessages";

/// Builds the request pi's `streamSimple` would send (the coding agent calls it through
/// `ModelRuntime.streamSimple`).
pub fn build(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    opts: &StreamOptions,
    events: &mut Events,
) -> Result<Request, AdapterError> {
    stream_simple(pi, model, ctx, opts, events)
}

// ---------------------------------------------------------------------------------------------
// JS helpers
// ---------------------------------------------------------------------------------------------

/// A string member that pi calls a string method on (`.trim()`, `.replace()`): anything else
/// throws a TypeError in pi.
fn str_member<'a>(
    obj: &'a Value,
    key: &str,
    what: impl std::fmt::Display,
) -> Result<&'a Str, AdapterError> {
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s),
        _ => Err(err(format!(
            "{what}: `{key}` is not a string (pi throws a TypeError)"
        ))),
    }
}

/// A short description of message `i` for events ("message #3 (assistant)"), written only
/// when something is said about the message.
#[derive(Clone, Copy)]
struct MsgLabel<'a> {
    i: usize,
    role: &'a str,
}

impl std::fmt::Display for MsgLabel<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "message #{} ({})", self.i + 1, self.role)
    }
}

fn msg_label(i: usize, msg: &Value) -> MsgLabel<'_> {
    MsgLabel {
        i,
        role: msg.get_str("role").unwrap_or("?"),
    }
}

// ---------------------------------------------------------------------------------------------
// Data (pi's literal strings, versioned)
// ---------------------------------------------------------------------------------------------

fn data_group(pi: &Pi) -> Option<&'static Value> {
    pi.data.strings.get(DATA_GROUP)
}

fn data_str(pi: &Pi, key: &str) -> &'static str {
    pi.data.string(DATA_GROUP, key)
}

/// The mark of [`data_str`]`(key)` in a body, as a text of `kind`.
fn inserted(pi: &Pi, key: &str, kind: Kind) -> crate::js::Mark {
    body::inserted(pi, &format!("{DATA_GROUP}.{key}"), kind).mark()
}

/// `claudeCodeTools` (:45–63).
fn claude_code_tools(pi: &Pi) -> Vec<&'static str> {
    data_group(pi)
        .and_then(|g| g.get("claudeCodeTools"))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// A beta name from `betas.<key>` (:112–116).
fn beta(pi: &Pi, key: &str) -> &'static str {
    data_group(pi)
        .and_then(|g| g.get("betas"))
        .and_then(|b| b.get_str(key))
        .unwrap_or("")
}

/// The OAuth betas (:760).
fn oauth_betas(pi: &Pi) -> Vec<&'static str> {
    data_group(pi)
        .and_then(|g| g.get("betas"))
        .and_then(|b| b.get("oauth"))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// `claude-cli/${claudeCodeVersion}` (:41, :718).
fn claude_code_user_agent(pi: &Pi) -> String {
    data_str(pi, "claudeCodeUserAgent")
        .replace("{claudeCodeVersion}", data_str(pi, "claudeCodeVersion"))
}

// ---------------------------------------------------------------------------------------------
// Compat, cache retention, OAuth names
// ---------------------------------------------------------------------------------------------

/// `getAnthropicCompat(model)` (:120–131; 1.6.0/AI/api/anthropic-messages.js:146–164), each flag
/// as the truthiness pi tests it with.
#[derive(Clone, Debug)]
struct AnthropicCompat {
    supports_eager_tool_input_streaming: bool,
    supports_long_cache_retention: bool,
    send_session_affinity_headers: bool,
    /// `sessionAffinityFormat === "openrouter"` (0.86 on; the format defaults to it for
    /// OpenRouter): the affinity header is `x-session-id`, else `x-session-affinity`.
    session_affinity_openrouter: bool,
    supports_cache_control_on_tools: bool,
    supports_temperature: bool,
    allow_empty_signature: bool,
    supports_strict_tools: bool,
    /// 0.85 only (removed in 0.86 with the deferred tools).
    supports_tool_references: bool,
    /// 0.86 on.
    supports_mid_convo_system_messages: bool,
    /// 1.0.1 on.
    supports_mid_convo_tool_changes: bool,
    /// 1.5.1 on: default true when `model.baseUrl` contains `api.anthropic.com`.
    supports_message_threads: bool,
}

/// `getAnthropicCompat(model)` (:120–131; 1.6.0/AI/api/anthropic-messages.js:146).
fn get_anthropic_compat(pi: &Pi, model: &Model) -> AnthropicCompat {
    let rules = pi.rules.anthropic;
    let flag = |key: &str, default: bool| {
        non_nullish(model.compat_value(key)).map_or(default, Value::truthy)
    };
    let is_open_router =
        rules.openrouter_session_affinity && crate::headers::is_open_router_model(model);
    let session_affinity_openrouter = match non_nullish(model.compat_value("sessionAffinityFormat"))
    {
        Some(v) if rules.openrouter_session_affinity => v.as_str() == Some("openrouter"),
        _ => is_open_router,
    };
    AnthropicCompat {
        supports_eager_tool_input_streaming: flag("supportsEagerToolInputStreaming", true),
        supports_long_cache_retention: flag("supportsLongCacheRetention", true),
        send_session_affinity_headers: flag("sendSessionAffinityHeaders", is_open_router),
        session_affinity_openrouter,
        supports_cache_control_on_tools: flag("supportsCacheControlOnTools", true),
        supports_temperature: flag("supportsTemperature", true),
        allow_empty_signature: flag("allowEmptySignature", false),
        supports_strict_tools: flag("supportsStrictTools", false),
        supports_tool_references: !pi.rules.transcript
            && non_nullish(model.compat_value("supportsToolReferences"))
                .map_or_else(|| default_supports_tool_references(model), Value::truthy),
        supports_mid_convo_system_messages: rules.mid_convo_system_messages
            && flag("supportsMidConvoSystemMessages", false),
        supports_mid_convo_tool_changes: rules.native_tool_changes
            && flag("supportsMidConvoToolChanges", false),
        // 1.5.x: the default also needs the provider `anthropic`
        // (`anthropicMessageThreadsDefaultProvider` in defaults.json).
        supports_message_threads: rules.message_threads
            && flag(
                "supportsMessageThreads",
                (rules.message_threads_any_provider
                    || pi
                        .data
                        .defaults
                        .get_str("anthropicMessageThreadsDefaultProvider")
                        .is_some_and(|p| model.provider() == p))
                    && model
                        .base_url()
                        .contains(data_str(pi, "messageThreadsDefaultHost")),
            ),
    }
}

/// `model.compat?.[key] === true`.
fn compat_is_true(model: &Model, key: &str) -> bool {
    model.compat_value(key) == Some(&Value::Bool(true))
}

/// `defaultSupportsToolReferences(model)` (:137–146): provider `anthropic`, not haiku, and
/// `/^claude-(?:opus|sonnet|fable)-(\d+)(?:-(\d+))?(?:-|$)/` with version ≥ 4.5 (a minor part of
/// 8+ digits is a date and counts as 0).
fn default_supports_tool_references(model: &Model) -> bool {
    if model.provider() != "anthropic" || model.id().contains("haiku") {
        return false;
    }
    let Some((major, minor)) = match_claude_version(model.id()) else {
        return false;
    };
    let major: f64 = major.parse().unwrap_or(f64::NAN);
    let minor: f64 = match minor {
        Some(m) if m.len() < 8 => m.parse().unwrap_or(f64::NAN),
        _ => 0.0,
    };
    major > 4.0 || (major == 4.0 && minor >= 5.0)
}

/// The regex of :140, by hand: returns the two digit groups.
fn match_claude_version(id: &str) -> Option<(&str, Option<&str>)> {
    let rest = id.strip_prefix("claude-")?;
    let rest = ["opus-", "sonnet-", "fable-"]
        .iter()
        .find_map(|p| rest.strip_prefix(p))?;
    let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
    let n = digits(rest);
    if n == 0 {
        return None;
    }
    let (major, after) = rest.split_at(n);
    if after.is_empty() {
        return Some((major, None));
    }
    let tail = after.strip_prefix('-')?;
    let m = digits(tail);
    if m > 0 && (tail.len() == m || tail[m..].starts_with('-')) {
        return Some((major, Some(&tail[..m])));
    }
    // The optional minor group fails; the `-` after the major part still matches.
    Some((major, None))
}

/// `resolveCacheRetention(cacheRetention, env)` (:20–28). The coding agent never sets the
/// option, so only `PI_CACHE_RETENTION` decides.
fn resolve_cache_retention(opts: &StreamOptions) -> &'static str {
    super::cache_retention(opts)
}

/// `getCacheControl(model, cacheRetention, env)` (:29–39): `None` for retention "none".
fn get_cache_control(pi: &Pi, model: &Model, retention: &str) -> Option<Object> {
    if retention == "none" {
        return None;
    }
    let long = retention == "long" && get_anthropic_compat(pi, model).supports_long_cache_retention;
    let mut cc = Object::new().with("type", "ephemeral");
    if long {
        cc.insert("ttl", Value::str("1h"));
    }
    Some(cc)
}

/// `toClaudeCodeName(name)` (:66): Claude Code's casing when the name matches one of its tools
/// case-insensitively.
fn to_claude_code_name(pi: &Pi, name: &str) -> String {
    let lower = name.to_lowercase();
    claude_code_tools(pi)
        .into_iter()
        .find(|t| t.to_lowercase() == lower)
        .map(str::to_string)
        .unwrap_or_else(|| name.to_string())
}

/// `normalizeToolName`: `toClaudeCodeName` with OAuth, the identity otherwise (:780).
fn normalize_tool_name(pi: &Pi, name: &str, is_oauth: bool) -> String {
    if is_oauth {
        to_claude_code_name(pi, name)
    } else {
        name.to_string()
    }
}

/// `isOAuthToken(apiKey)` (:688–690).
fn is_oauth_token(api_key: &str) -> bool {
    api_key.contains("sk-ant-oat")
}

// ---------------------------------------------------------------------------------------------
// streamSimple / stream
// ---------------------------------------------------------------------------------------------

/// The options `streamSimple` hands to `stream` that this adapter reads (`buildBaseOptions` plus
/// the thinking fields). Members the coding agent never sets are kept so the rules stay visible.
#[derive(Clone, Debug, Default)]
struct AnthropicOptions {
    max_tokens: f64,
    thinking_enabled: bool,
    thinking_budget_tokens: Option<f64>,
    effort: Option<String>,
    /// `options.temperature` (never set by the coding agent).
    temperature: Option<f64>,
    /// `options.metadata.user_id` when a string (never set by the coding agent).
    metadata_user_id: Option<String>,
    /// `options.toolChoice` (never set by the coding agent).
    tool_choice: Option<Value>,
    /// `options.interleavedThinking` (never set by the coding agent).
    interleaved_thinking: Option<bool>,
    /// `options.thinkingDisplay` (never set by the coding agent).
    thinking_display: Option<String>,
}

/// `mapThinkingLevelToEffort(model, level)` (:639–654).
fn map_thinking_level_to_effort(model: &Model, level: &str) -> String {
    if let Some(mapped) = model.thinking_level_map().and_then(|m| m.get_str(level)) {
        return mapped.to_string();
    }
    match level {
        "minimal" | "low" => "low",
        "medium" => "medium",
        _ => "high",
    }
    .to_string()
}

/// `assertRequestAuth(provider, apiKey, headers)` (:169–178). An empty key counts as none.
fn assert_request_auth(
    model: &Model,
    api_key: &str,
    headers: &[(String, String)],
) -> Result<(), AdapterError> {
    if !api_key.is_empty() {
        return Ok(());
    }
    if has_header(headers, "authorization")
        || has_header(headers, "x-api-key")
        || has_header(headers, "cf-aig-authorization")
    {
        return Ok(());
    }
    Err(err(format!(
        "No API key for provider: {}",
        model.provider()
    )))
}

/// `streamSimple(model, context, options)` (:655–687): the max-token clamp of
/// `buildBaseOptions`, then adaptive effort or a thinking budget.
fn stream_simple(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    opts: &StreamOptions,
    events: &mut Events,
) -> Result<Request, AdapterError> {
    assert_request_auth(model, &opts.api_key, &opts.headers)?;
    // buildBaseOptions (AI/api/simple-options.js:273): the coding agent passes no maxTokens.
    let model_max = model.max_tokens();
    let base_max = messages::clamp_max_tokens_to_context(pi, model, ctx, model_max);
    if base_max != model_max {
        ev(
            events,
            EventKind::Clamped,
            format!(
                "max_tokens {} clamped to {} to fit the context window",
                number_to_string(model_max),
                number_to_string(base_max)
            ),
            "AI/api/simple-options.js:4",
        );
    }
    let mut o = AnthropicOptions {
        max_tokens: base_max,
        ..Default::default()
    };
    let level = opts.reasoning.as_deref().filter(|l| !l.is_empty());
    let Some(level) = level else {
        ev(
            events,
            EventKind::Note,
            "thinking off: thinkingEnabled false",
            "AI/api/anthropic-messages.js:661",
        );
        return stream(pi, model, ctx, opts, o, events);
    };
    o.thinking_enabled = true;
    if compat_is_true(model, "forceAdaptiveThinking") {
        let effort = map_thinking_level_to_effort(model, level);
        let mapped = model
            .thinking_level_map()
            .and_then(|m| m.get_str(level))
            .is_some();
        ev(
            events,
            EventKind::Converted,
            format!(
                "forceAdaptiveThinking: level {level} → effort {effort}{}",
                if mapped {
                    " (from thinkingLevelMap)"
                } else {
                    ""
                }
            ),
            "AI/api/anthropic-messages.js:639",
        );
        o.effort = Some(effort);
        return stream(pi, model, ctx, opts, o, events);
    }
    let (adjusted_max, budget) = messages::adjust_max_tokens_for_thinking(
        pi,
        Some(base_max),
        model_max,
        level,
        opts.thinking_budgets.as_ref(),
    );
    let max_tokens = messages::clamp_max_tokens_to_context(pi, model, ctx, adjusted_max);
    let budget_tokens = js_min(budget, js_max(0.0, max_tokens - 1024.0));
    ev(
        events,
        EventKind::Note,
        format!(
            "thinking budget for level {level}: {} (max_tokens min({} + budget, model max {}) = {}, clamped to context {}; budget ≤ max_tokens − 1024 → {})",
            number_to_string(budget),
            number_to_string(base_max),
            number_to_string(model_max),
            number_to_string(adjusted_max),
            number_to_string(max_tokens),
            number_to_string(budget_tokens)
        ),
        "AI/api/anthropic-messages.js:679",
    );
    if budget_tokens != budget {
        ev(
            events,
            EventKind::Clamped,
            format!(
                "thinking budget {} clamped to {}",
                number_to_string(budget),
                number_to_string(budget_tokens)
            ),
            "AI/api/anthropic-messages.js:685",
        );
    }
    o.max_tokens = max_tokens;
    o.thinking_budget_tokens = Some(budget_tokens);
    stream(pi, model, ctx, opts, o, events)
}

/// The context `stream` works on: 0.85's prompt, messages and tools, or from 0.86 on
/// `resolveTranscript(context, compat.supportsMidConvoSystemMessages)` and its
/// `getCurrentTools` (1.6.0/AI/api/anthropic-messages.js:555–556).
struct AnthropicContext<'a> {
    /// The messages `buildParams` converts (0.86 on: the system messages among them).
    messages: Cow<'a, [Value]>,
    /// 0.85's `context.systemPrompt` (0.86 on: the leading system message's text instead).
    system_prompt: &'a str,
    /// `context.tools` (0.85) or `getCurrentTools(normalizedContext.messages)`.
    current_tools: Vec<ToolDef>,
    /// Whether the context was a transcript (0.86 on): the prompt and tools are in its system
    /// messages.
    transcript: bool,
}

impl<'a> AnthropicContext<'a> {
    fn new(
        pi: &Pi,
        ctx: &'a LlmContext,
        compat: &AnthropicCompat,
        events: &mut Events,
    ) -> AnthropicContext<'a> {
        if !ctx.is_transcript() {
            return AnthropicContext {
                messages: Cow::Borrowed(&ctx.messages),
                system_prompt: ctx.system_prompt(),
                current_tools: ctx.tools().to_vec(),
                transcript: false,
            };
        }
        let messages = transcript::resolve_context(
            pi,
            ctx,
            compat.supports_mid_convo_system_messages,
            "1.6.0/AI/api/anthropic-messages.js:555",
            events,
        )
        .messages;
        let current_tools = transcript::current_tools(&messages)
            .iter()
            .map(transcript::tool_from_declaration)
            .collect();
        AnthropicContext {
            messages: Cow::Owned(messages),
            system_prompt: "",
            current_tools,
            transcript: true,
        }
    }
}

/// The request half of `stream(pi, model, context, options)` (:330–392;
/// 1.6.0/AI/api/anthropic-messages.js:552–666): client headers, `buildParams`, `onPayload`
/// (identity without extensions), the message thread (1.5.1 on), then the SDK's serialization.
fn stream(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    opts: &StreamOptions,
    o: AnthropicOptions,
    events: &mut Events,
) -> Result<Request, AdapterError> {
    let compat = get_anthropic_compat(pi, model);
    let view = AnthropicContext::new(pi, ctx, &compat, events);
    let retention = resolve_cache_retention(opts);
    let cache_session_id = if retention == "none" {
        None
    } else {
        opts.session_id.as_deref()
    };
    // `threadSessionId` (1.6.0/AI/api/anthropic-messages.js:585): the session whose requests may
    // use message threads.
    let thread_session_id = cache_session_id.filter(|_| compat.supports_message_threads);
    let copilot_headers = (model.provider() == "github-copilot").then(|| {
        let headers =
            build_copilot_dynamic_headers(&view.messages, has_copilot_vision_input(&view.messages));
        headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    });
    let client = create_client(
        pi,
        model,
        &compat,
        &opts.api_key,
        &opts.headers,
        copilot_headers,
        cache_session_id,
        &opts.identity_headers,
        events,
    );
    let input = ParamsInput {
        pi,
        model,
        view: &view,
        is_oauth: client.is_oauth,
        opts,
        o: &o,
        retention,
        message_threads: thread_session_id.is_some(),
    };
    let mut params = build_params(&input, events)?;
    // `options.disableContinuation` is set only by cache-warming requests, which stand-in
    // models without cost never send.
    if let Some(session_id) = thread_session_id {
        prepare_thread_request(&mut params, session_id, events);
    }
    Ok(crate::sdk::anthropic::messages_create(
        pi, model, opts, &client, params, events,
    ))
}

/// `prepareThreadRequest(model, sessionId, params)` (1.6.0/AI/api/anthropic-messages.js:243–263)
/// with no state for the session: `createThreadRequest`, the params with `thread: {type:
/// "create"}` last. The state a `continue` needs (the prefix count and hash of the previous
/// request, the reply's message id) lives in pi's process memory only, not in the session file.
fn prepare_thread_request(params: &mut Object, session_id: &str, events: &mut Events) {
    params.insert(
        "thread",
        Value::Object(Object::new().with("type", "create")),
    );
    ev(
        events,
        EventKind::Inserted,
        format!("thread {{type: create}} last: message threads apply (compat.supportsMessageThreads, a cache retention and session {session_id})"),
        "1.6.0/AI/api/anthropic-messages.js:241",
    );
    ev(
        events,
        EventKind::Note,
        "a request after a reply in the same pi process would instead be {type: continue, previous_message_id} with only the new messages and no system or tools, when its prefix hashes like the last request plus that reply: that thread state is process memory that the session file does not record, so ctxlens builds the first request of a process (create)",
        "1.6.0/AI/api/anthropic-messages.js:247",
    );
}

/// `createClient(model, apiKey, optionsHeaders, fetch, dynamicHeaders, sessionId)` (:691–739)
/// with `mergeClientHeaders` (:156): pi's User-Agent first, then the protocol headers, session
/// affinity, `model.headers`, the configured headers. From 1.4.0 the first headers are pi-ai's
/// client identity (`getIdentityHeaders`: the User-Agent and attribution), and an OAuth client
/// has none of them (1.6.0/AI/api/anthropic-messages.js:966–1034).
#[allow(clippy::too_many_arguments)]
fn create_client(
    pi: &Pi,
    model: &Model,
    compat: &AnthropicCompat,
    api_key: &str,
    options_headers: &[(String, String)],
    dynamic_headers: Option<Vec<(String, Value)>>,
    session_id: Option<&str>,
    identity_headers: &[(String, String)],
    events: &mut Events,
) -> Client {
    let is_copilot = model.provider() == "github-copilot";
    let oauth = !is_copilot && !api_key.is_empty() && is_oauth_token(api_key);
    let pi_ai_identity = pi.rules.client_identity == crate::pi::ClientIdentity::PiAi;
    let mut h: Vec<(String, Value)> = Vec::new();
    if !(oauth && pi_ai_identity) {
        for (k, v) in identity_headers {
            assign(&mut h, k, Value::str(v));
        }
    }
    assign(&mut h, "accept", Value::str("application/json"));
    assign(
        &mut h,
        "anthropic-dangerous-direct-browser-access",
        Value::str("true"),
    );
    if oauth {
        assign(&mut h, "user-agent", Value::str(claude_code_user_agent(pi)));
        assign(&mut h, "x-app", Value::str("cli"));
        if pi_ai_identity {
            ev(
                events,
                EventKind::Note,
                "OAuth token (sk-ant-oat): Bearer auth, Claude Code user-agent and x-app headers instead of pi's client identity",
                "1.6.0/AI/api/anthropic-messages.js:983",
            );
        } else {
            ev(
                events,
                EventKind::Note,
                "OAuth token (sk-ant-oat): Bearer auth, Claude Code user-agent and x-app headers",
                "AI/api/anthropic-messages.js:708",
            );
        }
    } else if !is_copilot {
        let affinity = session_id
            .filter(|s| !s.is_empty())
            .filter(|_| compat.send_session_affinity_headers);
        if let Some(sid) = affinity {
            let name = if compat.session_affinity_openrouter {
                "x-session-id"
            } else {
                "x-session-affinity"
            };
            assign(&mut h, name, Value::str(sid));
            ev(
                events,
                EventKind::Inserted,
                format!("{name} header {sid}"),
                if pi.rules.anthropic.openrouter_session_affinity {
                    "1.6.0/AI/api/anthropic-messages.js:1002"
                } else {
                    "AI/api/anthropic-messages.js:725"
                },
            );
        }
    }
    if let Some(headers) = model.headers() {
        for (k, v) in headers.iter() {
            assign(&mut h, k, v.clone());
        }
    }
    if let Some(dynamic) = dynamic_headers {
        for (k, v) in dynamic {
            assign(&mut h, &k, v);
        }
    }
    for (k, v) in options_headers {
        assign(&mut h, k, Value::str(v));
    }
    let auth_header = if is_copilot || oauth {
        (!api_key.is_empty()).then_some("Authorization")
    } else {
        (!api_key.is_empty()).then_some("X-Api-Key")
    };
    Client {
        is_oauth: oauth,
        auth_header,
        default_headers: h,
    }
}

// ---------------------------------------------------------------------------------------------
// Betas
// ---------------------------------------------------------------------------------------------

/// Which of `getBetaFeatures`' 1.6.0 flags apply (1.6.0/AI/api/anthropic-messages.js:1035).
#[derive(Clone, Copy, Debug, Default)]
struct BetaFlags {
    is_oauth: bool,
    /// Native tool changes.
    native_tool_changes: bool,
    /// Message threads apply to this session.
    message_threads: bool,
}

/// `getBetaFeatures(model, context, isOAuthToken, options)` (:740–775;
/// 1.6.0/AI/api/anthropic-messages.js:1035–1074).
fn get_beta_features(
    pi: &Pi,
    model: &Model,
    current_tools: &[ToolDef],
    flags: BetaFlags,
    opts: &StreamOptions,
    o: &AnthropicOptions,
    events: &mut Events,
) -> Vec<String> {
    let is_oauth = flags.is_oauth;
    let at = "AI/api/anthropic-messages.js:740";
    // `undefined` = not configured, `Some(Null)` = null.
    let mut configured: Option<Value> = None;
    if let Some(headers) = model.headers() {
        for (name, value) in headers.iter() {
            if name.to_lowercase() == "anthropic-beta" {
                configured = Some(value.clone());
            }
        }
    }
    for (name, value) in &opts.headers {
        if name.to_lowercase() == "anthropic-beta" {
            configured = Some(Value::str(value));
        }
    }
    match configured {
        Some(Value::Null) => {
            ev(
                events,
                EventKind::Dropped,
                "anthropic-beta header configured as null: no betas",
                at,
            );
            return Vec::new();
        }
        Some(value) => {
            let text = join_element(Some(&value));
            let mut features: Vec<String> = Vec::new();
            for f in text.split(',').map(js_trim).filter(|f| !f.is_empty()) {
                if !features.iter().any(|x| x == f) {
                    features.push(f.to_string());
                }
            }
            ev(
                events,
                EventKind::Replaced,
                format!(
                    "configured anthropic-beta header replaces the computed betas: {}",
                    features.join(",")
                ),
                at,
            );
            return features;
        }
        None => {}
    }
    let mut features: Vec<String> = Vec::new();
    let mut push = |f: &str, why: &str, at: &'static str, events: &mut Events| {
        if !features.iter().any(|x| x == f) {
            features.push(f.to_string());
            ev(events, EventKind::Inserted, format!("beta {f}: {why}"), at);
        }
    };
    if is_oauth {
        for b in oauth_betas(pi) {
            push(b, "OAuth token", at, events);
        }
    }
    if should_use_fine_grained_tool_streaming_beta(pi, model, current_tools) {
        push(
            beta(pi, "fineGrainedToolStreaming"),
            "tools present and compat.supportsEagerToolInputStreaming is false",
            at,
            events,
        );
    }
    if model.reasoning()
        && o.thinking_enabled
        && o.interleaved_thinking.unwrap_or(true)
        && !compat_is_true(model, "forceAdaptiveThinking")
    {
        push(
            beta(pi, "interleavedThinking"),
            "reasoning model with budget thinking enabled",
            at,
            events,
        );
    }
    if should_use_server_side_fallback_beta(model) {
        push(
            beta(pi, "serverSideFallback"),
            "compat.allowedFallbackModels is non-empty",
            at,
            events,
        );
    }
    if compat_is_true(model, "supportsMidConvoEffort") {
        push(
            beta(pi, "midConversationOutputConfig"),
            "compat.supportsMidConvoEffort",
            at,
            events,
        );
        push(
            beta(pi, "thinkingBindingControls"),
            "compat.supportsMidConvoEffort",
            at,
            events,
        );
    }
    if flags.native_tool_changes {
        push(
            // 0.86.0–1.0.0: mid-conversation-tool-changes; 1.0.1: inline-tools.
            beta(
                pi,
                if pi.rules.anthropic.tool_additions_by_value {
                    "inlineTools"
                } else {
                    "midConversationToolChanges"
                },
            ),
            "native tool changes (compat.supportsMidConvoSystemMessages and supportsMidConvoToolChanges, initial tools)",
            "1.6.0/AI/api/anthropic-messages.js:1069",
            events,
        );
    }
    if flags.message_threads {
        push(
            beta(pi, "messageThreads"),
            "message threads apply to this session",
            "1.6.0/AI/api/anthropic-messages.js:1071",
            events,
        );
    }
    features
}

/// `shouldUseFineGrainedToolStreamingBeta(model, context)` (:1105–1107): with the context's tools
/// (`getCurrentTools(context.messages)` from 0.86 on).
fn should_use_fine_grained_tool_streaming_beta(
    pi: &Pi,
    model: &Model,
    current_tools: &[ToolDef],
) -> bool {
    !current_tools.is_empty()
        && !get_anthropic_compat(pi, model).supports_eager_tool_input_streaming
}

/// `model.compat?.allowedFallbackModels`, when it is an array.
fn allowed_fallback_models(model: &Model) -> &[Value] {
    model
        .compat_value("allowedFallbackModels")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// `shouldUseServerSideFallbackBeta(model)` (:117–119).
fn should_use_server_side_fallback_beta(model: &Model) -> bool {
    !allowed_fallback_models(model).is_empty()
}

// ---------------------------------------------------------------------------------------------
// buildParams
// ---------------------------------------------------------------------------------------------

/// `normalizeToolCallId(id)` (:897–899): `id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64)`.
pub fn normalize_tool_call_id(id: &str) -> String {
    // All ASCII after sanitizing: bytes are UTF-16 units.
    let mut out = super::sanitize_tool_call_id(id);
    out.truncate(64);
    out
}

/// What `buildParams(model, context, isOAuthToken, options)` is called with: `context` as the
/// adapter's view of it, the options `streamSimple` resolved, the cache retention and (1.5.1 on)
/// whether the request may use message threads.
#[derive(Clone, Copy)]
struct ParamsInput<'a> {
    pi: &'a Pi,
    model: &'a Model,
    view: &'a AnthropicContext<'a>,
    is_oauth: bool,
    opts: &'a StreamOptions,
    o: &'a AnthropicOptions,
    retention: &'a str,
    message_threads: bool,
}

/// What `buildParams` works out before it converts the messages (:777–787;
/// 1.6.0/AI/api/anthropic-messages.js:1076–1098).
struct ParamsSetup<'a> {
    cache_control: Option<Object>,
    compat: AnthropicCompat,
    /// `transformMessages(context.messages, model, normalizeToolCallId)`.
    transformed: Vec<Value>,
    /// 0.86 on: `getInitialSystemMessage(context.messages)`.
    initial_system: Option<&'a Value>,
    initial_system_text: Cow<'a, str>,
    converter: ToolConverter,
    /// The leading system message's tools.
    initial_tools: Vec<ToolDef>,
    /// `pi.rules.anthropic.tool_additions_by_value`.
    by_value: bool,
    native_tool_changes: bool,
    /// `model.compat?.supportsMidConvoEffort === true`.
    mid_convo_effort: bool,
    thinking_disabled: bool,
    effort_messages: bool,
}

/// `buildParams(model, context, isOAuthToken, options)` (:776–895;
/// 1.6.0/AI/api/anthropic-messages.js:1075–1218).
fn build_params(input: &ParamsInput, events: &mut Events) -> Result<Object, AdapterError> {
    let ParamsInput {
        pi,
        model,
        view,
        is_oauth,
        opts,
        o,
        message_threads,
        ..
    } = *input;
    let setup = ParamsSetup::new(input, events);
    let placement = setup.deferred_placement(input, events)?;
    let deferred_names: HashSet<String> = placement
        .deferred
        .iter()
        .map(|t| normalize_tool_name(pi, &t.name, is_oauth))
        .collect();
    let managed_provider = setup.effort_messages.then(|| model.provider());
    let converted = convert_messages(
        pi,
        setup.conversation(),
        &MessageOptions {
            is_oauth,
            cache_control: setup.cache_control.as_ref(),
            allow_empty_signature: setup.compat.allow_empty_signature,
            deferred_names: &deferred_names,
            managed_provider,
            native: setup.native_tool_changes.then_some(&setup.converter),
        },
        events,
    )?;
    let default_effort = data_str(pi, "defaultEffort");
    let active_effort = o
        .effort
        .clone()
        .unwrap_or_else(|| default_effort.to_string());
    let betas = get_beta_features(
        pi,
        model,
        &view.current_tools,
        BetaFlags {
            is_oauth,
            native_tool_changes: setup.native_tool_changes,
            message_threads,
        },
        opts,
        o,
        events,
    );

    let mut params = Object::new();
    params.insert_opt("model", model.obj.get("id").cloned());
    let messages = if setup.effort_messages {
        insert_thinking_level_messages(converted, &active_effort, events)
    } else {
        converted.messages
    };
    params.insert("messages", Value::Array(messages));
    params.insert("max_tokens", Value::Number(o.max_tokens));
    params.insert("stream", Value::Bool(true));
    if !betas.is_empty() {
        params.insert(
            "betas",
            Value::Array(betas.into_iter().map(Value::from).collect()),
        );
    }

    system_param(
        pi,
        is_oauth,
        &setup.initial_system_text,
        setup.initial_system.is_some(),
        setup.cache_control.as_ref(),
        &mut params,
        events,
    );
    temperature_param(o, &setup, &mut params, events);
    tools_param(input, &setup, &placement, &mut params, events)?;

    let mode = if setup.effort_messages {
        ThinkingMode::EffortMessages { default_effort }
    } else if setup.thinking_disabled {
        ThinkingMode::Disabled
    } else {
        ThinkingMode::Asked
    };
    thinking_params(pi, model, o, mode, &mut params, events);
    metadata_and_tool_choice_params(o, &mut params);
    fallbacks_param(model, &mut params, events);
    Ok(params)
}

impl<'a> ParamsSetup<'a> {
    /// The head of `buildParams`: cache control, compat, the transformed messages, (0.86 on) the
    /// leading system message and its tools, native tool changes and effort marker messages.
    fn new(input: &ParamsInput<'a>, events: &mut Events) -> ParamsSetup<'a> {
        let ParamsInput {
            pi,
            model,
            view,
            is_oauth,
            o,
            retention,
            ..
        } = *input;
        let cache_control = build_cache_control(pi, model, retention, events);
        let compat = get_anthropic_compat(pi, model);
        let normalize = |id: &str, _: &Model, _: &Value| normalize_tool_call_id(id);
        let transformed =
            messages::transform_messages(pi, &view.messages, model, Some(&normalize), 0.0, events);
        // 0.86 on: `getInitialSystemMessage` carries the prompt and the initial tools; the messages
        // converted are the ones after it (1.6.0/AI/api/anthropic-messages.js:1078–1081).
        let initial_system = view
            .messages
            .first()
            .filter(|m| view.transcript && m.get_str("role") == Some("system"));
        let initial_system_text: Cow<str> = match initial_system {
            Some(m) => Cow::Owned(transcript::system_message_text(pi, m)),
            None => Cow::Borrowed(view.system_prompt),
        };
        let converter = ToolConverter {
            is_oauth,
            eager: compat.supports_eager_tool_input_streaming,
            supports_strict: compat.supports_strict_tools,
            preferred_strict: std::cell::Cell::new(false),
        };
        // Native tool changes keep the request's tool list fixed: the leading message's tools and
        // the placeholder (1.6.0/AI/api/anthropic-messages.js:1094–1095).
        let initial_tools: Vec<ToolDef> = initial_system
            .and_then(|m| m.get("toolsAdded"))
            .and_then(Value::as_array)
            .map(|a| a.iter().map(transcript::tool_from_declaration).collect())
            .unwrap_or_default();
        let by_value = pi.rules.anthropic.tool_additions_by_value;
        let native_tool_changes =
            native_tool_changes(by_value, &compat, &view.messages, &initial_tools, events);
        // 1.3.0 on: thinking off is disabled thinking on effort models too, without effort markers
        // (1.6.0/AI/api/anthropic-messages.js:1096–1098).
        let mid_convo_effort = compat_is_true(model, "supportsMidConvoEffort");
        let thinking_disabled = model.reasoning()
            && !o.thinking_enabled
            && model
                .thinking_level_map()
                .is_none_or(|m| m.get("off") != Some(&Value::Null));
        let effort_messages =
            mid_convo_effort && !(pi.rules.anthropic.effort_models_can_be_off && thinking_disabled);
        if mid_convo_effort && !effort_messages {
            ev(
                events,
                EventKind::Note,
                "thinking off on a supportsMidConvoEffort model: no effort marker messages (effort cannot change between messages while thinking is disabled)",
                "1.6.0/AI/api/anthropic-messages.js:1097",
            );
        }
        ParamsSetup {
            cache_control,
            compat,
            transformed,
            initial_system,
            initial_system_text,
            converter,
            initial_tools,
            by_value,
            native_tool_changes,
            mid_convo_effort,
            thinking_disabled,
            effort_messages,
        }
    }

    /// The messages `buildParams` converts: from 0.86 on, those after the leading system message
    /// (1.6.0/AI/api/anthropic-messages.js:1081).
    fn conversation(&self) -> &[Value] {
        if self.initial_system.is_some() {
            self.transformed.get(1..).unwrap_or(&[])
        } else {
            &self.transformed
        }
    }

    /// The tool placement of `buildParams` (:780–787): 0.85's `splitDeferredTools`, with every
    /// tool sent at once when all are deferred; none from 0.86 on.
    fn deferred_placement(
        &self,
        input: &ParamsInput,
        events: &mut Events,
    ) -> Result<ToolPlacement, AdapterError> {
        // 0.85: tools loaded by a result's addedToolNames are deferred (gone from 0.86 on).
        let (mut immediate, mut deferred) = (Vec::new(), Vec::new());
        if !input.view.transcript {
            let placement = split_deferred_tools(
                input.pi,
                &input.view.current_tools,
                &self.transformed,
                self.compat.supports_tool_references,
                input.is_oauth,
                events,
            )?;
            (immediate, deferred) = (placement.immediate, placement.deferred);
            if immediate.is_empty() && !deferred.is_empty() {
                ev(
                    events,
                    EventKind::Note,
                    "every tool is deferred: all are sent as immediate tools",
                    "AI/api/anthropic-messages.js:784",
                );
                immediate = std::mem::take(&mut deferred);
            }
        }
        Ok(ToolPlacement {
            immediate,
            deferred,
        })
    }
}

/// `getCacheControl(model, options?.cacheRetention)` of `buildParams` (:777), with what it chose.
fn build_cache_control(
    pi: &Pi,
    model: &Model,
    retention: &str,
    events: &mut Events,
) -> Option<Object> {
    let cache_control = get_cache_control(pi, model, retention);
    if let Some(cc) = &cache_control {
        ev(
            events,
            EventKind::Note,
            format!(
                "cache retention {retention}: cache_control {}{}",
                Value::Object(cc.clone()).to_json(),
                if retention == "long" && !cc.contains_key("ttl") {
                    " (no ttl: compat.supportsLongCacheRetention is false)"
                } else {
                    ""
                }
            ),
            "AI/api/anthropic-messages.js:29",
        );
    }
    cache_control
}

/// `temperature` of `buildParams`: not with thinking, managed effort or
/// compat.supportsTemperature false (:828–834; 1.6.0/AI/api/anthropic-messages.js:1140–1146).
fn temperature_param(
    o: &AnthropicOptions,
    setup: &ParamsSetup,
    params: &mut Object,
    events: &mut Events,
) {
    if let Some(t) = o.temperature {
        if !o.thinking_enabled && !setup.mid_convo_effort && setup.compat.supports_temperature {
            params.insert("temperature", Value::Number(t));
        } else {
            ev(events, EventKind::Dropped, "temperature not sent (thinking, managed effort or compat.supportsTemperature false)", "AI/api/anthropic-messages.js:829");
        }
    }
}

/// `tools` of `buildParams` with the tools converted as planned, and a note when a `"prefer"`
/// tool went strict (:835–840; 1.6.0/AI/api/anthropic-messages.js:1147–1160).
fn tools_param(
    input: &ParamsInput,
    setup: &ParamsSetup,
    placement: &ToolPlacement,
    params: &mut Object,
    events: &mut Events,
) -> Result<(), AdapterError> {
    let pi = input.pi;
    let plan = ToolPlan {
        native: setup.native_tool_changes,
        by_value: setup.by_value,
        initial: &setup.initial_tools,
        immediate: &placement.immediate,
        deferred: &placement.deferred,
    };
    let cache_control = setup.cache_control.as_ref();
    let tools_cache = if setup.compat.supports_cache_control_on_tools {
        cache_control
    } else {
        None
    };
    if let Some(tools) = request_tools(
        pi,
        input.view,
        &setup.converter,
        &plan,
        (cache_control.is_some(), tools_cache),
        events,
    )? {
        params.insert("tools", Value::Array(tools));
    }
    if setup.converter.preferred_strict.get() && pi.rules.anthropic.strict_limit_fallback {
        ev(
            events,
            EventKind::Note,
            "tools with strict \"prefer\" are sent strict: had Anthropic rejected this session's strict tools earlier in the same pi process (strict tool limits), pi would send them non-strict (process state the session file does not record)",
            "1.6.0/AI/api/anthropic-messages.js:617",
        );
    }
    Ok(())
}

/// `metadata` and `tool_choice` of `buildParams` (:876–889;
/// 1.6.0/AI/api/anthropic-messages.js:1199–1212).
fn metadata_and_tool_choice_params(o: &AnthropicOptions, params: &mut Object) {
    if let Some(user_id) = &o.metadata_user_id {
        params.insert(
            "metadata",
            Value::Object(Object::new().with("user_id", user_id.as_str())),
        );
    }
    if let Some(choice) = &o.tool_choice {
        match choice {
            Value::String(s) if !s.is_empty() => {
                params.insert(
                    "tool_choice",
                    Value::Object(Object::new().with("type", s.as_str())),
                );
            }
            v if v.truthy() => params.insert("tool_choice", v.clone()),
            _ => {}
        }
    }
}

/// Whether `buildParams` uses native tool changes (1.6.0/AI/api/anthropic-messages.js:1094–1095):
/// the model takes system messages and tool changes mid-conversation, the leading system message
/// declares tools, and (before 1.1, `by_value` false) no tool is declared again with another
/// definition.
fn native_tool_changes(
    by_value: bool,
    compat: &AnthropicCompat,
    messages: &[Value],
    initial_tools: &[ToolDef],
    events: &mut Events,
) -> bool {
    // 0.86.0–1.0.0: tools referenced by name cannot express a redefinition
    // (0.86.1/AI/api/anthropic-messages.js:797–805).
    let redefinitions = !by_value && transcript::has_tool_redefinitions(messages);
    let native = compat.supports_mid_convo_system_messages
        && compat.supports_mid_convo_tool_changes
        && !initial_tools.is_empty()
        && !redefinitions;
    if redefinitions
        && compat.supports_mid_convo_system_messages
        && compat.supports_mid_convo_tool_changes
    {
        ev(
            events,
            EventKind::Note,
            "no native tool changes: a tool is declared again with another definition, which a tool_addition by name cannot express (hasToolRedefinitions): the current tools are sent, later system messages carry no tool blocks",
            "0.86.1/AI/api/anthropic-messages.js:797",
        );
    }
    if compat.supports_mid_convo_system_messages
        && compat.supports_mid_convo_tool_changes
        && initial_tools.is_empty()
    {
        ev(
            events,
            EventKind::Note,
            "no native tool changes: the leading system message declares no tool (Anthropic rejects a tool list where every tool is deferred), so the current tools are sent",
            "1.6.0/AI/api/anthropic-messages.js:1095",
        );
    }
    native
}

/// The tools `buildParams` sends, as decided before the messages are converted.
struct ToolPlan<'a> {
    /// Native tool changes (1.6.0): the leading system message's tools, then pi's placeholder.
    native: bool,
    /// Later tools declared by value in the messages (1.1 on), not by reference here.
    by_value: bool,
    /// The leading system message's tools.
    initial: &'a [ToolDef],
    /// 0.85: the tools sent at once and the deferred ones.
    immediate: &'a [ToolDef],
    deferred: &'a [ToolDef],
}

/// `tools` of `buildParams` (:835–840; 1.6.0/AI/api/anthropic-messages.js:1147–1160): `cache` is
/// whether the request has a cache breakpoint, and the one its last tool takes
/// (compat.supportsCacheControlOnTools).
fn request_tools(
    pi: &Pi,
    view: &AnthropicContext,
    converter: &ToolConverter,
    plan: &ToolPlan,
    cache: (bool, Option<&Object>),
    events: &mut Events,
) -> Result<Option<Vec<Value>>, AdapterError> {
    let (cached, tool_cc) = cache;
    let sends_tools = if plan.native {
        true
    } else if view.transcript {
        !view.current_tools.is_empty()
    } else {
        !plan.immediate.is_empty() || !plan.deferred.is_empty()
    };
    if sends_tools && cached && tool_cc.is_none() {
        ev(
            events,
            EventKind::Note,
            "no cache_control on tools: compat.supportsCacheControlOnTools is false",
            "AI/api/anthropic-messages.js:837",
        );
    }
    Ok(if plan.native {
        let mut tools = convert_tools(pi, converter, plan.initial, tool_cc, false, events)?;
        let placeholder = data_group(pi)
            .and_then(|g| g.get("deferredToolPlaceholder"))
            .cloned()
            .unwrap_or(Value::Null);
        ev(
            events,
            EventKind::Inserted,
            format!(
                "native tool changes: the leading system message's {} tools stay the request's tools for the whole conversation, then the deferred placeholder {}; later tools are tool_addition / tool_removal blocks",
                plan.initial.len(),
                placeholder.get_str("name").unwrap_or("")
            ),
            "1.6.0/AI/api/anthropic-messages.js:1153",
        );
        // pi's own tool, counted among the tools the request sends.
        let mut placeholder = placeholder;
        if let Some(o) = placeholder.as_object_mut() {
            if let Some(schema) = o.get_mut("input_schema") {
                body::mark(schema, Tag::Schema);
            }
            o.set_mark(Tag::Tool.mark());
        }
        tools.push(placeholder);
        if !plan.by_value {
            // 0.86.0–1.0.0: every later declared tool follows, deferred and without a cache
            // breakpoint (0.86.1/AI/api/anthropic-messages.js:857–862).
            let initial_names: Vec<&str> = plan.initial.iter().map(|t| t.name.as_str()).collect();
            let later: Vec<ToolDef> = transcript::declared_tools(&view.messages)
                .into_iter()
                .filter(|t| !initial_names.contains(&t.name.as_str()))
                .collect();
            if !later.is_empty() {
                ev(
                    events,
                    EventKind::Inserted,
                    format!(
                        "native tool changes by reference: the {} tools declared later follow the placeholder with defer_loading (the request's tool list only grows)",
                        later.len()
                    ),
                    "0.86.1/AI/api/anthropic-messages.js:857",
                );
            }
            for mut t in convert_tools(pi, converter, &later, None, false, events)? {
                if let Value::Object(o) = &mut t {
                    o.insert("defer_loading", Value::Bool(true));
                }
                tools.push(t);
            }
        }
        Some(tools)
    } else if view.transcript {
        (!view.current_tools.is_empty())
            .then(|| convert_tools(pi, converter, &view.current_tools, tool_cc, false, events))
            .transpose()?
    } else if !plan.immediate.is_empty() || !plan.deferred.is_empty() {
        let mut tools = convert_tools(pi, converter, plan.immediate, tool_cc, false, events)?;
        tools.extend(convert_tools(
            pi,
            converter,
            plan.deferred,
            None,
            true,
            events,
        )?);
        Some(tools)
    } else {
        None
    })
}

/// `system` of `buildParams`: the Claude Code identity block first with an OAuth token, then the
/// prompt (from 0.86 the leading system message's text, `from_system_message`), each block with
/// the cache breakpoint (:802–827; 1.6.0/AI/api/anthropic-messages.js:1113–1138).
fn system_param(
    pi: &Pi,
    is_oauth: bool,
    initial_system_text: &str,
    from_system_message: bool,
    cache_control: Option<&Object>,
    params: &mut Object,
    events: &mut Events,
) {
    let text_block = |text: &str| {
        let mut b = Object::new()
            .with("type", "text")
            .with("text", text)
            .marked(Tag::System.mark());
        if let Some(cc) = cache_control {
            b.insert("cache_control", Value::Object(cc.clone()));
        }
        Value::Object(b)
    };
    if is_oauth {
        let mut system = vec![text_block(data_str(pi, "claudeCodeSystemPrompt"))];
        ev(
            events,
            EventKind::Inserted,
            "Claude Code identity system block (OAuth)",
            "AI/api/anthropic-messages.js:802",
        );
        if !initial_system_text.is_empty() {
            system.push(text_block(&sanitize_surrogates(initial_system_text)));
        }
        params.insert("system", Value::Array(system));
    } else if !initial_system_text.is_empty() {
        params.insert(
            "system",
            Value::Array(vec![text_block(&sanitize_surrogates(initial_system_text))]),
        );
    }
    if from_system_message && !initial_system_text.is_empty() {
        ev(
            events,
            EventKind::Converted,
            "the leading system message's text (getSystemMessageText: content, then every section) is the system block",
            "1.6.0/AI/api/anthropic-messages.js:1079",
        );
    }
    if cache_control.is_some() && params.contains_key("system") {
        ev(
            events,
            EventKind::Inserted,
            "cache_control on the system block(s)",
            "AI/api/anthropic-messages.js:807",
        );
    }
}

/// `fallbacks` of `buildParams`: compat.allowedFallbackModels, each by its model (:889–893; 1.6.0/AI/api/anthropic-messages.js:1212–1216).
fn fallbacks_param(model: &Model, params: &mut Object, events: &mut Events) {
    let fallbacks = allowed_fallback_models(model);
    if !fallbacks.is_empty() {
        let list: Vec<Value> = fallbacks
            .iter()
            .map(|f| {
                let mut o = Object::new();
                o.insert_opt("model", f.get("model").cloned());
                Value::Object(o)
            })
            .collect();
        ev(
            events,
            EventKind::Inserted,
            format!(
                "fallbacks from compat.allowedFallbackModels: {}",
                Value::Array(list.clone()).to_json()
            ),
            "AI/api/anthropic-messages.js:890",
        );
        params.insert("fallbacks", Value::Array(list));
    }
}

/// How `buildParams` sets `thinking` (and `output_config`).
#[derive(Clone, Copy)]
enum ThinkingMode<'a> {
    /// compat.supportsMidConvoEffort: adaptive thinking bound to the effort marker messages.
    EffortMessages { default_effort: &'a str },
    /// Thinking off on a model that reasons (1.3.0 on, effort models too).
    Disabled,
    /// As the options ask.
    Asked,
}

/// `thinking` and `output_config` of `buildParams` (:843–875; 1.6.0/AI/api/anthropic-messages.js:
/// 1163–1198).
fn thinking_params(
    pi: &Pi,
    model: &Model,
    o: &AnthropicOptions,
    mode: ThinkingMode,
    params: &mut Object,
    events: &mut Events,
) {
    let display = o
        .thinking_display
        .clone()
        .unwrap_or_else(|| "summarized".to_string());
    if let ThinkingMode::EffortMessages { default_effort } = mode {
        let binding = Object::new().with("prefix_mismatch_behavior", "drop_block");
        params.insert(
            "thinking",
            Value::Object(
                Object::new()
                    .with("type", "adaptive")
                    .with("display", display)
                    .with("block_binding", binding),
            ),
        );
        let top_effort = if pi.rules.anthropic.effort_top_level_low {
            data_str(pi, "effortMessagesTopLevelEffort")
        } else {
            default_effort
        };
        params.insert(
            "output_config",
            Value::Object(Object::new().with("effort", top_effort)),
        );
        ev(
            events,
            EventKind::Note,
            format!("compat.supportsMidConvoEffort: adaptive thinking with block_binding and output_config effort {top_effort}, whatever the level"),
            if pi.rules.anthropic.effort_top_level_low {
                "1.6.0/AI/api/anthropic-messages.js:1177"
            } else {
                "AI/api/anthropic-messages.js:843"
            },
        );
    } else if matches!(mode, ThinkingMode::Disabled) {
        params.insert(
            "thinking",
            Value::Object(Object::new().with("type", "disabled")),
        );
    } else if model.reasoning() && o.thinking_enabled {
        if compat_is_true(model, "forceAdaptiveThinking") {
            params.insert(
                "thinking",
                Value::Object(
                    Object::new()
                        .with("type", "adaptive")
                        .with("display", display),
                ),
            );
            if let Some(effort) = o.effort.as_deref().filter(|e| !e.is_empty()) {
                params.insert(
                    "output_config",
                    Value::Object(Object::new().with("effort", effort)),
                );
            }
        } else {
            let budget = o
                .thinking_budget_tokens
                .filter(|b| *b != 0.0 && !b.is_nan());
            if budget.is_none() {
                ev(
                    events,
                    EventKind::Replaced,
                    "thinking budget 0 sent as 1024",
                    "AI/api/anthropic-messages.js:867",
                );
            }
            params.insert(
                "thinking",
                Value::Object(
                    Object::new()
                        .with("type", "enabled")
                        .with("budget_tokens", budget.unwrap_or(1024.0))
                        .with("display", display),
                ),
            );
        }
    } else if model.reasoning() {
        ev(
            events,
            EventKind::Note,
            "thinking off but thinkingLevelMap.off is null: no thinking field",
            "AI/api/anthropic-messages.js:872",
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Deferred tools (AI/utils/deferred-tools.js)
// ---------------------------------------------------------------------------------------------

/// `splitDeferredTools`' result.
struct ToolPlacement {
    immediate: Vec<ToolDef>,
    deferred: Vec<ToolDef>,
}

/// `splitDeferredTools(context, enabled, normalizeName)` (AI/utils/deferred-tools.js:3–34):
/// tools de-duplicated by normalized name (a later duplicate replaces the value but keeps the
/// first position); with `enabled`, a tool named in a result's `addedToolNames` and not called
/// before is deferred.
fn split_deferred_tools(
    pi: &Pi,
    tools: &[ToolDef],
    messages: &[Value],
    enabled: bool,
    is_oauth: bool,
    events: &mut Events,
) -> Result<ToolPlacement, AdapterError> {
    let at = "AI/utils/deferred-tools.js:3";
    let mut unique: Vec<(String, ToolDef)> = Vec::new();
    for tool in tools {
        let name = normalize_tool_name(pi, &tool.name, is_oauth);
        match unique.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => {
                ev(events, EventKind::Replaced, format!("duplicate tool {name}: the later definition replaces the earlier one in place"), at);
                slot.1 = tool.clone();
            }
            None => unique.push((name, tool.clone())),
        }
    }
    if !enabled {
        return Ok(ToolPlacement {
            immediate: unique.into_iter().map(|(_, t)| t).collect(),
            deferred: Vec::new(),
        });
    }
    let mut deferred_names: HashSet<String> = HashSet::new();
    let mut used_names: HashSet<String> = HashSet::new();
    for message in messages {
        match message.get_str("role") {
            Some("assistant") => {
                for block in message
                    .get("content")
                    .and_then(Value::as_array)
                    .map_or(&[][..], Vec::as_slice)
                {
                    if block.get_str("type") == Some("toolCall") {
                        match block.get_str("name") {
                            Some(name) => {
                                used_names.insert(normalize_tool_name(pi, name, is_oauth));
                            }
                            // `toClaudeCodeName` calls `name.toLowerCase()`; the identity does not.
                            None if is_oauth => {
                                return Err(err(
                                    "a toolCall has no string name (pi throws a TypeError)",
                                ))
                            }
                            None => {}
                        }
                    }
                }
            }
            Some("toolResult") => {
                for name in added_tool_names(message) {
                    let name = normalize_tool_name(pi, name, is_oauth);
                    if !used_names.contains(&name) {
                        deferred_names.insert(name);
                    }
                }
            }
            _ => {}
        }
    }
    let mut placement = ToolPlacement {
        immediate: Vec::new(),
        deferred: Vec::new(),
    };
    for (name, tool) in unique {
        if deferred_names.contains(&name) {
            ev(
                events,
                EventKind::Converted,
                format!("tool {name} deferred (defer_loading): loaded by a tool result's addedToolNames before any call"),
                at,
            );
            placement.deferred.push(tool);
        } else {
            placement.immediate.push(tool);
        }
    }
    Ok(placement)
}

/// `msg.addedToolNames ?? []` (string entries).
fn added_tool_names(msg: &Value) -> impl Iterator<Item = &str> {
    msg.get("addedToolNames")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

// ---------------------------------------------------------------------------------------------
// convertMessages
// ---------------------------------------------------------------------------------------------

/// `convertContentBlocks(content)` (:79–111): a string of the texts joined by "\n" when there is
/// no image, otherwise text and image blocks (with a placeholder text first when there is no
/// text).
fn convert_content_blocks(
    pi: &Pi,
    msg: &Value,
    content: &[Value],
    label: &MsgLabel,
    events: &mut Events,
) -> Result<Value, AdapterError> {
    let has_images = content.iter().any(|c| c.get_str("type") == Some("image"));
    if !has_images {
        let joined = join_shared(
            &content.iter().map(|c| c.get("text")).collect::<Vec<_>>(),
            data_str(pi, "textBlocksJoin"),
        );
        if content.len() > 1 {
            ev(
                events,
                EventKind::Converted,
                format!(
                    "{label}: {} text blocks joined with \\n into one string",
                    content.len()
                ),
                "AI/api/anthropic-messages.js:83",
            );
        }
        return Ok(Value::String(sanitize_shared(&joined)));
    }
    let mut blocks = Vec::with_capacity(content.len() + 1);
    for block in content {
        if block.get_str("type") == Some("text") {
            let text = str_member(block, "text", label)?;
            blocks.push(Value::Object(body::like(
                Object::new()
                    .with("type", "text")
                    .with("text", sanitize_shared(text)),
                block,
            )));
        } else {
            blocks.push(image_block(block));
        }
    }
    if !blocks.iter().any(|b| b.get_str("type") == Some("text")) {
        let kind = body::tag_of(msg).map_or(Kind::ToolResults, |t| match t {
            Tag::Message { kind, .. } | Tag::Block { kind, .. } | Tag::Inserted { kind, .. } => {
                kind
            }
            _ => Kind::ToolResults,
        });
        blocks.insert(
            0,
            Value::Object(
                Object::new()
                    .with("type", "text")
                    .with("text", data_str(pi, "imageOnlyPlaceholder"))
                    .marked(inserted(pi, "imageOnlyPlaceholder", kind)),
            ),
        );
        ev(
            events,
            EventKind::Inserted,
            format!(
                "{label}: image-only result gets a \"{}\" text block first",
                data_str(pi, "imageOnlyPlaceholder")
            ),
            "AI/api/anthropic-messages.js:104",
        );
    }
    Ok(Value::Array(blocks))
}

/// `{type:"image", source:{type:"base64", media_type: mimeType, data}}` (:93–100, :952–959).
fn image_block(block: &Value) -> Value {
    let mut source = body::part_of(Object::new(), block, Kind::ImageData).with("type", "base64");
    source.insert_opt("media_type", block.get("mimeType").cloned());
    source.insert_opt("data", block.get("data").cloned());
    Value::Object(
        Object::new()
            .with("type", "image")
            .with("source", Value::Object(source)),
    )
}

/// `convertToolResult(...)` (:900–927).
struct ConvertedToolResult {
    tool_result: Value,
    sibling_content: Vec<Value>,
}

/// `convertToolResult(msg, isOAuthToken, deferredToolNames, loadedToolNames, normalizeToolName)`
/// (:900–927): `tool_reference` blocks for deferred tools loaded here, the real content then
/// moving to sibling blocks. 0.86 on there are no deferred tools, and `content` replaces the
/// message's own (`convertToolResult(msg, content = msg.content)`,
/// 1.6.0/AI/api/anthropic-messages.js:1223–1230).
#[allow(clippy::too_many_arguments)]
fn convert_tool_result(
    pi: &Pi,
    msg: &Value,
    content: Option<&Value>,
    label: &MsgLabel,
    is_oauth: bool,
    deferred_names: &HashSet<String>,
    loaded_names: &mut HashSet<String>,
    events: &mut Events,
) -> Result<ConvertedToolResult, AdapterError> {
    let mut references = Vec::new();
    for name in added_tool_names(msg) {
        let normalized = normalize_tool_name(pi, name, is_oauth);
        if !deferred_names.contains(&normalized) || loaded_names.contains(&normalized) {
            continue;
        }
        loaded_names.insert(normalized);
        let tool_name = if is_oauth {
            to_claude_code_name(pi, name)
        } else {
            name.to_string()
        };
        ev(
            events,
            EventKind::Inserted,
            format!("{label}: tool_reference to deferred tool {tool_name}"),
            "AI/api/anthropic-messages.js:907",
        );
        references.push(Value::Object(
            Object::new()
                .with("type", "tool_reference")
                .with("tool_name", tool_name),
        ));
    }
    let content = match content.or(msg.get("content")) {
        Some(Value::Array(a)) => a.as_slice(),
        _ => {
            return Err(err(format!(
                "{label}: content is not an array (pi throws a TypeError)"
            )))
        }
    };
    let converted = convert_content_blocks(pi, msg, content, label, events)?;
    let mut tool_result = body::text_of(Object::new(), msg).with("type", "tool_result");
    tool_result.insert_opt("tool_use_id", msg.get("toolCallId").cloned());
    let sibling_content = if references.is_empty() {
        tool_result.insert("content", converted);
        Vec::new()
    } else {
        tool_result.insert("content", Value::Array(references));
        ev(
            events,
            EventKind::Converted,
            format!("{label}: its own content moves after all tool_result blocks"),
            "AI/api/anthropic-messages.js:921",
        );
        // On the wire the result's own content is user text beside the tool_result blocks.
        let as_user = |o: Object| body::part_of(o, msg, Kind::UserText);
        match converted {
            Value::String(s) => vec![Value::Object(as_user(
                Object::new().with("type", "text").with("text", s),
            ))],
            Value::Array(a) => a
                .into_iter()
                .map(|b| match b {
                    Value::Object(o) if o.get_str("type") == Some("text") => {
                        Value::Object(as_user(o))
                    }
                    b => b,
                })
                .collect(),
            _ => Vec::new(),
        }
    };
    tool_result.insert_opt("is_error", msg.get("isError").cloned());
    Ok(ConvertedToolResult {
        tool_result: Value::Object(tool_result),
        sibling_content,
    })
}

/// `convertMessages`' result: the messages and, per output index, the stored effort of managed
/// assistant messages.
struct ConvertedMessages {
    messages: Vec<Value>,
    assistant_levels: Vec<(usize, String)>,
}

/// What `convertMessages` is called with besides the messages.
struct MessageOptions<'a> {
    is_oauth: bool,
    cache_control: Option<&'a Object>,
    allow_empty_signature: bool,
    /// 0.85: the names of the deferred tools (`deferredToolNames`).
    deferred_names: &'a HashSet<String>,
    /// `managedProvider`: the provider whose stored efforts are kept (effort marker messages).
    managed_provider: Option<&'a str>,
    /// With native tool changes, what converts the tools of `tool_addition` blocks
    /// (`convertToolDefinitions`).
    native: Option<&'a ToolConverter>,
}

/// `convertMessages`' running state: the messages so far (`params`), `assistantLevels`, 0.85's
/// loaded tool names, and the system messages held back (`pendingSystemMessages`, with labels).
struct MessageConversion<'a> {
    pi: &'a Pi,
    opts: &'a MessageOptions<'a>,
    params: Vec<Value>,
    assistant_levels: Vec<(usize, String)>,
    loaded_names: HashSet<String>,
    pending_system: Vec<(String, Value)>,
}

/// `convertMessages(transformedMessages, isOAuthToken, cacheControl, allowEmptySignature,
/// deferredToolNames, normalizeToolName, managedProvider)` (:928–1089;
/// 1.6.0/AI/api/anthropic-messages.js:1231–1434: later system messages, held until the next
/// assistant message with blocks; `native` converts their tools into `tool_addition` blocks).
fn convert_messages(
    pi: &Pi,
    transformed: &[Value],
    opts: &MessageOptions,
    events: &mut Events,
) -> Result<ConvertedMessages, AdapterError> {
    let mut conv = MessageConversion {
        pi,
        opts,
        params: Vec::new(),
        assistant_levels: Vec::new(),
        loaded_names: HashSet::new(),
        // `pendingSystemMessages` (1.6.0/AI/api/anthropic-messages.js:1243).
        pending_system: Vec::new(),
    };
    let mut i = 0;
    while i < transformed.len() {
        let msg = &transformed[i];
        let label = msg_label(i, msg);
        match msg.get_str("role") {
            Some("system") if pi.rules.anthropic.mid_convo_system_messages => {
                conv.system_message(msg, label, events)?;
            }
            Some("user") => {
                if let Some(user) = convert_user_message(msg, &label, events)? {
                    conv.params.push(user);
                }
            }
            Some("assistant") => conv.assistant_message(msg, &label, events)?,
            Some("toolResult") => {
                i = conv.tool_result_batch(transformed, i, &label, events)? - 1;
            }
            _ => {}
        }
        i += 1;
    }
    flush_pending_system_messages(&mut conv.params, &mut conv.pending_system, None, events);
    if let Some(cc) = opts.cache_control {
        place_last_user_cache_control(pi, &mut conv.params, cc, events);
    }
    Ok(ConvertedMessages {
        messages: conv.params,
        assistant_levels: conv.assistant_levels,
    })
}

impl MessageConversion<'_> {
    /// The system branch of `convertMessages`: the message's blocks held back until the next
    /// assistant message (1.6.0/AI/api/anthropic-messages.js:1250–1275).
    fn system_message(
        &mut self,
        msg: &Value,
        label: MsgLabel,
        events: &mut Events,
    ) -> Result<(), AdapterError> {
        let (pi, opts) = (self.pi, self.opts);
        let blocks = convert_system_message(pi, msg, &label, opts.is_oauth, opts.native, events)?;
        if blocks.is_empty() {
            ev(
                events,
                EventKind::Dropped,
                format!("{label}: no text and no tool change, no system message"),
                "1.6.0/AI/api/anthropic-messages.js:1273",
            );
        } else {
            self.pending_system.push((
                label.to_string(),
                Value::Object(
                    Object::new()
                        .with("role", "system")
                        .with("content", Value::Array(blocks))
                        .marked(Tag::System.mark()),
                ),
            ));
        }
        Ok(())
    }

    /// The assistant branch of `convertMessages`: its blocks after the held system messages, and
    /// the stored effort of a managed message (:976–1045; 1.6.0/AI/api/anthropic-messages.js:
    /// 1311–1381).
    fn assistant_message(
        &mut self,
        msg: &Value,
        label: &MsgLabel,
        events: &mut Events,
    ) -> Result<(), AdapterError> {
        let (pi, opts) = (self.pi, self.opts);
        // Until 1.5.0 (#11091) held system messages go before any assistant message,
        // also one that converts to no blocks (1.4.0/AI/api/anthropic-messages.js:1121).
        if !pi.rules.anthropic.hold_past_empty_assistant {
            flush_pending_system_messages(
                &mut self.params,
                &mut self.pending_system,
                Some(*label),
                events,
            );
        }
        let blocks = convert_assistant_blocks(
            pi,
            msg,
            label,
            opts.is_oauth,
            opts.allow_empty_signature,
            events,
        )?;
        if blocks.is_empty() {
            ev(
                events,
                EventKind::Dropped,
                format!("{label}: no content left, message dropped"),
                "AI/api/anthropic-messages.js:1032",
            );
            return Ok(());
        }
        flush_pending_system_messages(
            &mut self.params,
            &mut self.pending_system,
            Some(*label),
            events,
        );
        let index = self.params.len();
        self.params.push(Value::Object(body::message_like(
            Object::new()
                .with("role", "assistant")
                .with("content", Value::Array(blocks)),
            msg,
        )));
        if let Some(provider) = opts.managed_provider {
            let level = msg
                .get_str("providerThinkingLevel")
                .filter(|l| is_anthropic_effort(l));
            if msg.get_str("api") == Some("anthropic-messages")
                && msg.get_str("provider") == Some(provider)
            {
                if let Some(level) = level {
                    self.assistant_levels.push((index, level.to_string()));
                }
            }
        }
        Ok(())
    }

    /// The toolResult branch of `convertMessages`: the consecutive tool results from `i` as one
    /// user message, 0.85's sibling content and the error images last (:1046–1064;
    /// 1.6.0/AI/api/anthropic-messages.js:1382–1404). Returns the index after the batch.
    fn tool_result_batch(
        &mut self,
        transformed: &[Value],
        i: usize,
        label: &MsgLabel,
        events: &mut Events,
    ) -> Result<usize, AdapterError> {
        let (pi, opts) = (self.pi, self.opts);
        let msg = &transformed[i];
        let mut tool_results = Vec::new();
        let mut sibling = Vec::new();
        // `errorImages` (1.6.0/AI/api/anthropic-messages.js:1387).
        let mut error_images = Vec::new();
        let mut j = i;
        while j < transformed.len() && transformed[j].get_str("role") == Some("toolResult") {
            let l = msg_label(j, &transformed[j]);
            let split = if pi.rules.anthropic.split_error_tool_result_images {
                messages::split_error_tool_result_images(pi, &transformed[j])
                    .map_err(|e| err(format!("{l}: {e}")))?
            } else {
                None
            };
            let c = convert_tool_result(
                pi,
                &transformed[j],
                split.as_ref().map(|s| &s.content),
                &l,
                opts.is_oauth,
                opts.deferred_names,
                &mut self.loaded_names,
                events,
            )?;
            tool_results.push(c.tool_result);
            sibling.extend(c.sibling_content);
            if let Some(split) = split {
                ev(
                    events,
                    EventKind::Moved,
                    format!(
                        "{l}: error result with {} image(s): each run of images becomes \"{}\", the images follow every tool_result of the batch after the caption \"{}\"",
                        split.images.len(),
                        pi.data.string("transformMessages", "errorToolImagePlaceholder"),
                        split.caption
                    ),
                    "1.6.0/AI/api/transform-messages.js:10",
                );
                error_images.push(Value::Object(body::part_of(
                    Object::new()
                        .with("type", "text")
                        .with("text", split.caption.as_str()),
                    &transformed[j],
                    Kind::UserText,
                )));
                error_images.extend(split.images.iter().map(image_block));
            }
            j += 1;
        }
        if j - i > 1 {
            ev(
                events,
                EventKind::Converted,
                format!(
                    "messages #{}–#{}: {} consecutive tool results merged into one user message",
                    i + 1,
                    j,
                    j - i
                ),
                "AI/api/anthropic-messages.js:1047",
            );
        } else {
            ev(
                events,
                EventKind::Converted,
                format!("{label}: sent as a user message with a tool_result block"),
                "AI/api/anthropic-messages.js:1060",
            );
        }
        tool_results.extend(sibling);
        tool_results.extend(error_images);
        self.params.push(Value::Object(body::message_like(
            Object::new()
                .with("role", "user")
                .with("content", Value::Array(tool_results)),
            msg,
        )));
        Ok(j)
    }
}

/// The system branch of `convertMessages` (1.6.0/AI/api/anthropic-messages.js:1250–1275): a later
/// system message (kept in place) as its rendered update (`renderSystemMessageUpdate`), then,
/// with native tool changes, a `tool_removal` per removed tool that is not redefined here and a
/// `tool_addition` per added tool.
fn convert_system_message(
    pi: &Pi,
    msg: &Value,
    label: &MsgLabel,
    is_oauth: bool,
    native: Option<&ToolConverter>,
    events: &mut Events,
) -> Result<Vec<Value>, AdapterError> {
    let mut blocks = Vec::new();
    let text = transcript::render_system_message_update(pi, msg);
    if !text.is_empty() {
        blocks.push(Value::Object(
            Object::new()
                .with("type", "text")
                .with("text", sanitize_surrogates(&text).into_owned())
                .marked(Tag::System.mark()),
        ));
        ev(
            events,
            EventKind::Converted,
            format!("{label}: kept in place as a system message, its text rendered as an update (content, then Updated/Removed system prompt section per section)"),
            "1.6.0/AI/api/anthropic-messages.js:1253",
        );
    }
    let Some(conv) = native else {
        return Ok(blocks);
    };
    let list = |key: &str| {
        msg.get(key)
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice)
    };
    let added: Vec<ToolDef> = list("toolsAdded")
        .iter()
        .map(transcript::tool_from_declaration)
        .collect();
    let by_value = pi.rules.anthropic.tool_additions_by_value;
    let redefined: Vec<Option<&Value>> = list("toolsAdded").iter().map(|t| t.get("name")).collect();
    for tool in list("toolsRemoved") {
        let name = tool.get("name");
        if by_value && redefined.contains(&name) {
            ev(
                events,
                EventKind::Dropped,
                format!(
                    "{label}: tool {} removed and added again: no tool_removal (the new definition replaces it)",
                    crate::js::to_js_string(name)
                ),
                "1.6.0/AI/api/anthropic-messages.js:1262",
            );
            continue;
        }
        // `name: isOAuthToken ? toClaudeCodeName(tool.name) : tool.name` (absent when undefined).
        let name = if is_oauth {
            match name {
                Some(Value::String(n)) => Some(Value::String(to_claude_code_name(pi, n).into())),
                _ => {
                    return Err(err(format!(
                        "{label}: a removed tool has no string name (pi throws a TypeError)"
                    )))
                }
            }
        } else {
            name.cloned()
        };
        ev(
            events,
            EventKind::Inserted,
            format!(
                "{label}: tool_removal of {}",
                crate::js::to_js_string(name.as_ref())
            ),
            "1.6.0/AI/api/anthropic-messages.js:1264",
        );
        let mut reference = Object::new().with("type", "tool_reference");
        reference.insert_opt("name", name);
        blocks.push(Value::Object(
            Object::new()
                .with("type", "tool_removal")
                .with("tool", Value::Object(reference)),
        ));
    }
    if !by_value {
        // 0.86.0–1.0.0: the tool by name (0.86.1/AI/api/anthropic-messages.js:966–971).
        for tool in list("toolsAdded") {
            let name = tool.get("name");
            let name = if is_oauth {
                match name {
                    Some(Value::String(n)) => {
                        Some(Value::String(to_claude_code_name(pi, n).into()))
                    }
                    _ => {
                        return Err(err(format!(
                            "{label}: an added tool has no string name (pi throws a TypeError)"
                        )))
                    }
                }
            } else {
                name.cloned()
            };
            ev(
                events,
                EventKind::Inserted,
                format!(
                    "{label}: tool_addition of {} (by reference)",
                    crate::js::to_js_string(name.as_ref())
                ),
                "0.86.1/AI/api/anthropic-messages.js:966",
            );
            let mut reference = Object::new().with("type", "tool_reference");
            reference.insert_opt("name", name);
            blocks.push(Value::Object(
                Object::new()
                    .with("type", "tool_addition")
                    .with("tool", Value::Object(reference)),
            ));
        }
        return Ok(blocks);
    }
    for definition in convert_tools(pi, conv, &added, None, false, events)? {
        ev(
            events,
            EventKind::Inserted,
            format!(
                "{label}: tool_addition of {}",
                definition.get_str("name").unwrap_or("")
            ),
            "1.6.0/AI/api/anthropic-messages.js:1269",
        );
        blocks.push(Value::Object(
            Object::new().with("type", "tool_addition").with(
                "tool",
                Value::Object(
                    Object::new()
                        .with("type", "tool_definition")
                        .with("definition", definition),
                ),
            ),
        ));
    }
    Ok(blocks)
}

/// `flushPendingSystemMessages()` (1.6.0/AI/api/anthropic-messages.js:1244–1247): the held system
/// messages go right before the next assistant message that is sent, or at the end.
fn flush_pending_system_messages(
    params: &mut Vec<Value>,
    pending: &mut Vec<(String, Value)>,
    before: Option<MsgLabel>,
    events: &mut Events,
) {
    if pending.is_empty() {
        return;
    }
    let labels: Vec<&str> = pending.iter().map(|(l, _)| l.as_str()).collect();
    ev(
        events,
        EventKind::Moved,
        format!(
            "{} placed {}: a later system message waits for the next assistant message that has blocks",
            labels.join(", "),
            match before {
                Some(l) => format!("right before {l}"),
                None => "at the end of the messages".to_string(),
            }
        ),
        "1.6.0/AI/api/anthropic-messages.js:1244",
    );
    params.extend(pending.drain(..).map(|(_, m)| m));
}

/// The user branch of `convertMessages` (:934–975).
fn convert_user_message(
    msg: &Value,
    label: &MsgLabel,
    events: &mut Events,
) -> Result<Option<Value>, AdapterError> {
    match msg.get("content") {
        Some(Value::String(s)) => {
            if js_trim_is_empty(s) {
                ev(
                    events,
                    EventKind::Dropped,
                    format!("{label}: blank string content, message dropped"),
                    "AI/api/anthropic-messages.js:936",
                );
                return Ok(None);
            }
            Ok(Some(Value::Object(body::message_like(
                Object::new()
                    .with("role", "user")
                    .with("content", sanitize_surrogates(s).into_owned()),
                msg,
            ))))
        }
        Some(Value::Array(items)) => {
            let mut blocks = Vec::with_capacity(items.len());
            for item in items {
                if item.get_str("type") == Some("text") {
                    let text = str_member(item, "text", label)?;
                    let text = sanitize_surrogates(text);
                    if js_trim_is_empty(&text) {
                        ev(
                            events,
                            EventKind::Dropped,
                            format!("{label}: blank text block dropped"),
                            "AI/api/anthropic-messages.js:962",
                        );
                        continue;
                    }
                    blocks.push(Value::Object(body::like(
                        Object::new()
                            .with("type", "text")
                            .with("text", text.into_owned()),
                        item,
                    )));
                } else {
                    blocks.push(image_block(item));
                }
            }
            if blocks.is_empty() {
                ev(
                    events,
                    EventKind::Dropped,
                    format!("{label}: no content left, message dropped"),
                    "AI/api/anthropic-messages.js:968",
                );
                return Ok(None);
            }
            Ok(Some(Value::Object(body::message_like(
                Object::new()
                    .with("role", "user")
                    .with("content", Value::Array(blocks)),
                msg,
            ))))
        }
        _ => Err(err(format!(
            "{label}: content is neither a string nor an array (pi throws a TypeError)"
        ))),
    }
}

/// The assistant branch of `convertMessages` (:976–1031).
fn convert_assistant_blocks(
    pi: &Pi,
    msg: &Value,
    label: &MsgLabel,
    is_oauth: bool,
    allow_empty_signature: bool,
    events: &mut Events,
) -> Result<Vec<Value>, AdapterError> {
    let content = match msg.get("content") {
        Some(Value::Array(a)) => a.as_slice(),
        // `for (const block of "...")` yields characters, none of which is a block.
        Some(Value::String(_)) => &[],
        _ => {
            return Err(err(format!(
                "{label}: content is not iterable (pi throws a TypeError)"
            )))
        }
    };
    let mut blocks = Vec::new();
    for block in content {
        match block.get_str("type") {
            Some("text") => {
                let text = str_member(block, "text", label)?;
                if js_trim_is_empty(text) {
                    ev(
                        events,
                        EventKind::Dropped,
                        format!("{label}: blank text block dropped"),
                        "AI/api/anthropic-messages.js:980",
                    );
                    continue;
                }
                blocks.push(Value::Object(body::like(
                    Object::new()
                        .with("type", "text")
                        .with("text", sanitize_shared(text)),
                    block,
                )));
            }
            Some("thinking") => {
                if block.get("redacted").is_some_and(Value::truthy) {
                    let mut b = body::like(Object::new(), block).with("type", "redacted_thinking");
                    b.insert_opt("data", block.get("thinkingSignature").cloned());
                    ev(
                        events,
                        EventKind::Converted,
                        format!("{label}: redacted thinking sent as redacted_thinking"),
                        "AI/api/anthropic-messages.js:989",
                    );
                    blocks.push(Value::Object(b));
                    continue;
                }
                let signature = block.get("thinkingSignature");
                let has_signature = match signature {
                    Some(v) if v.truthy() => match v.as_str() {
                        Some(s) => !js_trim_is_empty(s),
                        None => {
                            return Err(err(format!(
                            "{label}: thinkingSignature is not a string (pi throws a TypeError)"
                        )))
                        }
                    },
                    _ => false,
                };
                let thinking = str_member(block, "thinking", label)?;
                if js_trim_is_empty(thinking) && !has_signature {
                    ev(
                        events,
                        EventKind::Dropped,
                        format!("{label}: blank thinking without signature dropped"),
                        "AI/api/anthropic-messages.js:998",
                    );
                    continue;
                }
                let thinking = sanitize_shared(thinking);
                if !has_signature {
                    if allow_empty_signature {
                        ev(events, EventKind::Converted, format!("{label}: unsigned thinking kept with signature \"\" (compat.allowEmptySignature)"), "AI/api/anthropic-messages.js:1004");
                        blocks.push(Value::Object(body::like(
                            Object::new()
                                .with("type", "thinking")
                                .with("thinking", thinking)
                                .with("signature", ""),
                            block,
                        )));
                    } else {
                        ev(
                            events,
                            EventKind::Converted,
                            format!("{label}: unsigned thinking sent as a text block"),
                            "AI/api/anthropic-messages.js:1010",
                        );
                        blocks.push(Value::Object(body::part_of(
                            Object::new().with("type", "text").with("text", thinking),
                            block,
                            Kind::AssistantText,
                        )));
                    }
                } else {
                    let mut b = body::like(Object::new(), block)
                        .with("type", "thinking")
                        .with("thinking", thinking);
                    b.insert_opt("signature", signature.cloned());
                    blocks.push(Value::Object(b));
                }
            }
            Some("toolCall") => {
                let mut b = body::like(Object::new(), block).with("type", "tool_use");
                b.insert_opt("id", block.get("id").cloned());
                if is_oauth {
                    let name = str_member(block, "name", label)?;
                    let cc = to_claude_code_name(pi, name);
                    if cc != name.as_str() {
                        ev(
                            events,
                            EventKind::Renamed,
                            format!(
                                "{label}: tool_use name {name} → {cc} (OAuth, Claude Code casing)"
                            ),
                            "AI/api/anthropic-messages.js:1027",
                        );
                    }
                    b.insert("name", Value::String(cc.into()));
                } else {
                    b.insert_opt("name", block.get("name").cloned());
                }
                let input = match non_nullish(block.get("arguments")) {
                    Some(v) => v.clone(),
                    None => {
                        ev(
                            events,
                            EventKind::Inserted,
                            format!("{label}: tool call without arguments sends input {{}}"),
                            "AI/api/anthropic-messages.js:1028",
                        );
                        Value::object()
                    }
                };
                b.insert("input", input);
                blocks.push(Value::Object(b));
            }
            _ => {}
        }
    }
    Ok(blocks)
}

/// The cache marker on the last message (:1066–1087; 1.6.0/AI/api/anthropic-messages.js:
/// 1407–1431): its last block when the message is a user message (0.86 on: or a system message)
/// and that block is text, image or tool_result (1.0.1 on: or tool_addition, tool_removal);
/// string content becomes one text block.
fn place_last_user_cache_control(pi: &Pi, params: &mut [Value], cc: &Object, events: &mut Events) {
    let rules = pi.rules.anthropic;
    let at = "AI/api/anthropic-messages.js:1067";
    let Some(last) = params.last_mut().and_then(Value::as_object_mut) else {
        return;
    };
    let role = last.get_str("role").unwrap_or("").to_string();
    if role != "user" && !(rules.mid_convo_system_messages && role == "system") {
        ev(
            events,
            EventKind::Note,
            if rules.mid_convo_system_messages {
                "no cache_control on messages: the last message is neither a user nor a system message"
            } else {
                "no cache_control on messages: the last message is not a user message"
            },
            at,
        );
        return;
    }
    let text_mark = body::text_of(Object::new(), &Value::Object(last.clone())).mark();
    match last.get_mut("content") {
        Some(Value::Array(blocks)) => {
            if let Some(Value::Object(block)) = blocks.last_mut() {
                let ty = block.get_str("type").unwrap_or("").to_string();
                let native_block = rules.native_tool_changes
                    && matches!(ty.as_str(), "tool_addition" | "tool_removal");
                if matches!(ty.as_str(), "text" | "image" | "tool_result") || native_block {
                    block.insert("cache_control", Value::Object(cc.clone()));
                    ev(
                        events,
                        EventKind::Inserted,
                        format!("cache_control on the last {ty} block of the last {role} message"),
                        if role == "system" || native_block {
                            "1.6.0/AI/api/anthropic-messages.js:1410"
                        } else {
                            at
                        },
                    );
                }
            }
        }
        Some(Value::String(s)) => {
            let block = Object::new()
                .marked(text_mark)
                .with("type", "text")
                .with("text", std::mem::take(s))
                .with("cache_control", Value::Object(cc.clone()));
            last.insert("content", Value::Array(vec![Value::Object(block)]));
            ev(events, EventKind::Converted, "the last user message's string content becomes a text block carrying cache_control", at);
        }
        _ => {}
    }
}

/// `isAnthropicEffort(value)` (:1090–1092).
fn is_anthropic_effort(value: &str) -> bool {
    matches!(value, "low" | "medium" | "high" | "xhigh" | "max")
}

/// `insertThinkingLevelMessages(converted, activeEffort)` (:1093–1104).
fn insert_thinking_level_messages(
    converted: ConvertedMessages,
    active_effort: &str,
    events: &mut Events,
) -> Vec<Value> {
    let at = "AI/api/anthropic-messages.js:1093";
    let effort_message = |effort: &str| {
        Value::Object(
            Object::new()
                .with("role", "system")
                .with("content", Value::Array(Vec::new()))
                .with(
                    "output_config",
                    Value::Object(Object::new().with("effort", effort)),
                ),
        )
    };
    let mut out =
        Vec::with_capacity(converted.messages.len() + converted.assistant_levels.len() + 1);
    for (index, message) in converted.messages.into_iter().enumerate() {
        if let Some((_, level)) = converted.assistant_levels.iter().find(|(i, _)| *i == index) {
            ev(events, EventKind::Inserted, format!("system effort message ({level}) before the assistant message it was produced with"), at);
            out.push(effort_message(level));
        }
        out.push(message);
    }
    ev(
        events,
        EventKind::Inserted,
        format!("final system effort message ({active_effort})"),
        at,
    );
    out.push(effort_message(active_effort));
    out
}

// ---------------------------------------------------------------------------------------------
// convertTools and strict schemas
// ---------------------------------------------------------------------------------------------

/// What `convertTools` is called with besides the tools (`convertToolDefinitions`,
/// 1.6.0/AI/api/anthropic-messages.js:1087–1093).
struct ToolConverter {
    is_oauth: bool,
    /// `compat.supportsEagerToolInputStreaming`.
    eager: bool,
    /// `compat.supportsStrictTools`.
    supports_strict: bool,
    /// `hasPreferredStrictTools`: a `"prefer"` tool was sent strict (what pi's strict-limit
    /// fallback would retry non-strict).
    preferred_strict: std::cell::Cell<bool>,
}

/// `isAnthropicStrictUnsupportedKeyword(key, value)` (1.6.0/AI/api/anthropic-messages.js:
/// 1480–1488): a keyword Anthropic strict tool use rejects: one of the listed keys, `minItems`
/// other than 0 or 1, a `format` that is not a string of the listed formats.
pub fn is_anthropic_strict_unsupported_keyword(pi: &Pi, key: &str, value: &Value) -> bool {
    let list = |k: &str| {
        pi.data
            .defaults
            .get(k)
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice)
    };
    if list("anthropicStrictUnsupportedKeywords")
        .iter()
        .any(|k| k.as_str() == Some(key))
    {
        return true;
    }
    match key {
        // `value !== 0 && value !== 1`: strict equality with the numbers.
        "minItems" => !list("anthropicStrictMinItemsAllowed").contains(value),
        "format" => !value.as_str().is_some_and(|f| {
            list("anthropicStrictStringFormats")
                .iter()
                .any(|x| x.as_str() == Some(f))
        }),
        _ => false,
    }
}

/// `convertTools(tools, isOAuthToken, supportsEagerToolInputStreaming, supportsStrictTools,
/// cacheControl, deferLoading)` (:1108–1136; 1.6.0/AI/api/anthropic-messages.js:1489–1524, with
/// the keyword test of the strict conversion and the legacy schema's `additionalProperties`,
/// `$defs`, `definitions`; `disablePreferredStrictTools` is process state, never set here).
fn convert_tools(
    pi: &Pi,
    conv: &ToolConverter,
    tools: &[ToolDef],
    cache_control: Option<&Object>,
    defer_loading: bool,
    events: &mut Events,
) -> Result<Vec<Value>, AdapterError> {
    let rules = pi.rules.anthropic;
    let keyword = |k: &str, v: &Value| is_anthropic_strict_unsupported_keyword(pi, k, v);
    let strict_rules = if rules.strict_keyword_check {
        Strict {
            unsupported_keyword: Some(&keyword),
            ..Strict::of(pi)
        }
    } else {
        Strict::of(pi)
    };
    let mut out = Vec::with_capacity(tools.len());
    for (index, tool) in tools.iter().enumerate() {
        let strict =
            resolve_json_schema_strict_sampling(&strict_rules, tool, conv.supports_strict)?
                == Some(true);
        if !strict
            && rules.strict_keyword_check
            && resolve_json_schema_strict_sampling(&Strict::of(pi), tool, conv.supports_strict)?
                == Some(true)
        {
            ev(
                events,
                EventKind::Converted,
                format!(
                    "tool {}: sent non-strict: its schema has a keyword Anthropic strict tool use rejects",
                    tool.name
                ),
                "1.6.0/AI/api/anthropic-messages.js:1495",
            );
        }
        if strict && prefers_json_schema_strict_sampling(tool) {
            conv.preferred_strict.set(true);
        }
        let parameters = get_json_schema_tool_parameters(&Strict::of(pi), tool, strict)?;
        let legacy = match &parameters {
            Value::Null => {
                return Err(err(format!(
                    "tool {}: parameters is null (pi throws a TypeError)",
                    tool.name
                )))
            }
            p => {
                let mut legacy = Object::new()
                    .with("type", "object")
                    .with(
                        "properties",
                        non_nullish(p.get("properties"))
                            .cloned()
                            .unwrap_or_else(Value::object),
                    )
                    .with(
                        "required",
                        non_nullish(p.get("required"))
                            .cloned()
                            .unwrap_or_else(|| Value::Array(Vec::new())),
                    );
                if rules.legacy_schema_keeps_additional_properties {
                    legacy.insert_opt(
                        "additionalProperties",
                        p.get("additionalProperties").cloned(),
                    );
                }
                if rules.legacy_schema_keeps_defs {
                    legacy.insert_opt("$defs", p.get("$defs").cloned());
                    legacy.insert_opt("definitions", p.get("definitions").cloned());
                }
                legacy
            }
        };
        if !strict {
            note_input_schema_rebuild(pi, tool, &parameters, events);
        }
        let input_schema = if strict {
            let mut s = parameters.as_object().cloned().unwrap_or_default();
            s.spread(&legacy);
            ev(
                events,
                EventKind::Converted,
                format!(
                    "tool {}: strict input_schema (constrained sampling)",
                    tool.name
                ),
                "AI/api/constrained-sampling.js:135",
            );
            s
        } else {
            legacy
        };
        let name = if conv.is_oauth {
            to_claude_code_name(pi, &tool.name)
        } else {
            tool.name.clone()
        };
        if name != tool.name {
            ev(
                events,
                EventKind::Renamed,
                format!("tool {} → {name} (OAuth, Claude Code casing)", tool.name),
                "AI/api/anthropic-messages.js:1127",
            );
        }
        let mut t = Object::new()
            .with("name", name.as_str())
            .with("description", tool.description.as_str())
            .marked(Tag::Tool.mark());
        if conv.eager {
            t.insert("eager_input_streaming", Value::Bool(true));
        }
        if strict {
            t.insert("strict", Value::Bool(true));
        }
        t.insert(
            "input_schema",
            Value::Object(input_schema.marked(Tag::Schema.mark())),
        );
        if defer_loading {
            t.insert("defer_loading", Value::Bool(true));
        }
        if let Some(cc) = cache_control.filter(|_| index == tools.len() - 1) {
            t.insert("cache_control", Value::Object(cc.clone()));
            ev(
                events,
                EventKind::Inserted,
                format!("cache_control on the last immediate tool ({name})"),
                "AI/api/anthropic-messages.js:1133",
            );
        }
        out.push(Value::Object(t));
    }
    Ok(out)
}

/// `prefersJsonSchemaStrictSampling(tool)` (1.6.0/AI/api/constrained-sampling.js:123–126).
fn prefers_json_schema_strict_sampling(tool: &ToolDef) -> bool {
    tool.constrained_sampling.as_ref().is_some_and(|c| {
        c.truthy()
            && c.get_str("type") == Some("json_schema")
            && c.get_str("strict") == Some("prefer")
    })
}

/// Trace for the legacy `input_schema` (:1115–1119): only `type`, `properties` and `required` are
/// kept, in that order, with `{}` / `[]` when missing.
fn note_input_schema_rebuild(pi: &Pi, tool: &ToolDef, parameters: &Value, events: &mut Events) {
    let rules = pi.rules.anthropic;
    let at = "AI/api/anthropic-messages.js:1115";
    let Some(p) = parameters.as_object() else {
        ev(
            events,
            EventKind::Replaced,
            format!(
                "tool {}: parameters is not an object; input_schema is an empty object schema",
                tool.name
            ),
            at,
        );
        return;
    };
    let dropped: Vec<&str> = p
        .keys()
        .map(|k| k.as_str())
        .filter(|k| !matches!(*k, "type" | "properties" | "required"))
        .filter(|k| {
            !(rules.legacy_schema_keeps_additional_properties && *k == "additionalProperties")
        })
        .filter(|k| !(rules.legacy_schema_keeps_defs && matches!(*k, "$defs" | "definitions")))
        .collect();
    if !dropped.is_empty() {
        ev(
            events,
            EventKind::Dropped,
            format!(
                "tool {}: input_schema keeps type, properties, required{}; dropped {}",
                tool.name,
                match (
                    rules.legacy_schema_keeps_additional_properties,
                    rules.legacy_schema_keeps_defs
                ) {
                    (true, true) => ", additionalProperties, $defs, definitions",
                    (false, true) => ", $defs, definitions",
                    (true, false) => ", additionalProperties",
                    (false, false) => "",
                },
                dropped.join(", ")
            ),
            at,
        );
    }
    if non_nullish(p.get("required")).is_none() {
        ev(
            events,
            EventKind::Inserted,
            format!("tool {}: input_schema gets required: []", tool.name),
            at,
        );
    }
    if non_nullish(p.get("properties")).is_none() {
        ev(
            events,
            EventKind::Inserted,
            format!("tool {}: input_schema gets properties: {{}}", tool.name),
            at,
        );
    }
    if p.get_str("type").is_some_and(|t| t != "object") {
        ev(
            events,
            EventKind::Replaced,
            format!("tool {}: input_schema type forced to object", tool.name),
            at,
        );
    }
}

#[cfg(test)]
#[path = "anthropic_messages_tests.rs"]
mod tests;

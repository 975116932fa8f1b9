//! pi-ai `dist/api/bedrock-converse-stream.js`: `streamSimple` →
//! `stream`'s command input (`convertMessages`, `buildSystemPrompt`, `convertToolConfig`,
//! `buildAdditionalModelRequestFields`), then what `@aws-sdk/client-bedrock-runtime` 3.1048.0
//! sends for `ConverseStreamCommand`: `POST /model/{modelId}/converse-stream` with the body
//! written by the schema serializer (`JsonShapeSerializer2`, @smithy/core protocols) in the
//! schema's member order, `null`s dropped from structures, byte blobs as canonical base64.
//!
//! In [`Request::params`] (pi's command input) the `Uint8Array` blobs are shown as their
//! canonical base64 strings, as the SDK writes them.
//!
//! pi 1.6.0: the transcript is always collapsed (the replayed prompt is `system`,
//! the current tools `toolConfig`), Claude Haiku 5 joins the Claude lists, block binding on
//! the Claude models that take it and thinking effort for OpenAI models, error tool-result
//! images after the results for Claude, the strict-tool-limit fallback (process
//! state), and `pi/<version>` in the AWS SDK's user agents. `@aws-sdk/client-bedrock-runtime`
//! 3.1126.0 (its `dist-cjs` version) serializes the same members in the same order.

use super::body::{self, Kind, Tag};
use super::constrained_sampling::{
    get_json_schema_tool_parameters, resolve_json_schema_strict_sampling, Strict,
};
use super::google_shared::sanitize_value;
use super::{base64, cache_retention, err, ev, AdapterError, Request, StreamOptions};
use crate::context::LlmContext;
use crate::js::Mark;
use crate::js::{is_js_whitespace, js_max, js_min, js_trim_is_empty, to_js_string, Object, Value};
use crate::messages;
use crate::model::Model;
use crate::pi::Pi;
use crate::tools::ToolDef;
use crate::trace::{EventKind, Events};
use crate::transcript;

/// A text pi inserts into bodies (data/pi-0.85.1/strings.json, group `bedrockConverseStream`).
fn text(pi: &Pi, key: &str) -> &'static str {
    pi.data.string("bedrockConverseStream", key)
}

/// The options `stream` receives from `streamSimple`, reduced to what the coding agent sets.
#[derive(Clone, Debug, Default)]
struct BedrockOptions {
    /// `buildBaseOptions`' clamped `maxTokens` (adjusted for thinking on budget-based Claude).
    max_tokens: f64,
    /// The thinking level, `None` when off.
    reasoning: Option<String>,
    thinking_budgets: Option<Object>,
}

/// `streamSimple` (bedrock-converse-stream.js:383–418) and the request half of `stream`
/// (:20–156): the command input, then the SDK's path and body.
pub fn build(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    opts: &StreamOptions,
    events: &mut Events,
) -> Result<Request, AdapterError> {
    // The clamps read the transcript as it is, before the system messages collapse.
    let options = stream_simple(pi, model, ctx, opts, events);
    let collapsed = transcript::collapsed_context(pi, ctx);
    if let Some(what) = transcript::collapse_note(
        ctx,
        "the system block",
        "toolConfig",
        "Bedrock has no mid-conversation system messages",
    ) {
        ev(
            events,
            EventKind::Converted,
            what,
            "1.6.0/AI/api/bedrock-converse-stream.js:28",
        );
    }
    let ctx: &LlmContext = &collapsed;
    let retention = cache_retention(opts);
    let supports_strict_mode = model
        .compat_value("supportsStrictMode")
        .filter(|v| !v.is_null())
        .is_some_and(Value::truthy);
    let inference_max_tokens = options.max_tokens;
    let mut input = Object::new();
    input.insert("modelId", Value::str(model.id()));
    input.insert(
        "messages",
        Value::Array(convert_messages(pi, ctx, model, retention, opts, events)?),
    );
    input.insert_opt(
        "system",
        build_system_prompt(pi, ctx.system_prompt(), model, retention, opts, events),
    );
    input.insert(
        "inferenceConfig",
        Value::Object(Object::new().with("maxTokens", inference_max_tokens)),
    );
    input.insert_opt(
        "toolConfig",
        convert_tool_config(pi, ctx.tools(), supports_strict_mode, events)?,
    );
    input.insert_opt(
        "additionalModelRequestFields",
        build_additional_model_request_fields(pi, model, &options, opts, events),
    );
    let params = Value::Object(input);
    let sent = converse_stream_request_body(&params);
    let (text, accounting) = body::written(&sent);
    let (endpoint_url, explicit_endpoint) = endpoint(model, opts, events);
    let url = format!(
        "{}/model/{}/converse-stream",
        endpoint_url,
        extended_encode_uri_component(model.id())?
    );
    let headers = request_headers(pi, opts, explicit_endpoint, events);
    Ok(Request {
        method: "POST",
        url,
        headers,
        params,
        body: text,
        accounting,
        sent,
        url_note: None,
    })
}

/// `streamSimple` (bedrock-converse-stream.js:383–418): no clamp of its own. Budget-based
/// Claude models get `adjustMaxTokensForThinking` + the context clamp, and the budget of
/// `clampReasoning(level)` capped to leave 1024 answer tokens.
fn stream_simple(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    opts: &StreamOptions,
    events: &mut Events,
) -> BedrockOptions {
    let base_max =
        messages::clamp_max_tokens_to_context(pi, model, ctx, messages::model_max_tokens(model));
    let Some(reasoning) = opts.reasoning.clone().filter(|r| !r.is_empty()) else {
        return BedrockOptions {
            max_tokens: base_max,
            reasoning: None,
            thinking_budgets: None,
        };
    };
    if !is_anthropic_claude_model(model) || supports_adaptive_thinking(pi, model.id(), model.name())
    {
        return BedrockOptions {
            max_tokens: base_max,
            reasoning: Some(reasoning),
            thinking_budgets: opts.thinking_budgets.clone(),
        };
    }
    let (adjusted_max, adjusted_budget) = messages::adjust_max_tokens_for_thinking(
        pi,
        Some(base_max),
        messages::model_max_tokens(model),
        &reasoning,
        opts.thinking_budgets.as_ref(),
    );
    let max_tokens = messages::clamp_max_tokens_to_context(pi, model, ctx, adjusted_max);
    let budget = js_min(adjusted_budget, js_max(0.0, max_tokens - 1024.0));
    let mut budgets = opts.thinking_budgets.clone().unwrap_or_default();
    budgets.insert(messages::clamp_reasoning(&reasoning), Value::Number(budget));
    if max_tokens != base_max {
        ev(
            events,
            EventKind::Clamped,
            format!(
                "maxTokens {} → {} (thinking budget {} on a budget-based Claude)",
                crate::js::number_to_string(base_max),
                crate::js::number_to_string(max_tokens),
                crate::js::number_to_string(budget)
            ),
            "AI/api/bedrock-converse-stream.js:404",
        );
    }
    BedrockOptions {
        max_tokens,
        reasoning: Some(reasoning),
        thinking_budgets: Some(budgets),
    }
}

/// `getModelMatchCandidates(modelId, modelName)` (bedrock-converse-stream.js:565–572): each
/// lower-cased, and again with `[\s_.:]+` runs turned into `-`.
fn get_model_match_candidates(model_id: &str, model_name: &str) -> Vec<String> {
    let values: Vec<&str> = if model_name.is_empty() {
        vec![model_id]
    } else {
        vec![model_id, model_name]
    };
    values
        .into_iter()
        .flat_map(|value| {
            let lower = value.to_lowercase();
            let mut dashed = String::with_capacity(lower.len());
            let mut in_run = false;
            for c in lower.chars() {
                if is_js_whitespace(c) || c == '_' || c == '.' || c == ':' {
                    if !in_run {
                        dashed.push('-');
                    }
                    in_run = true;
                } else {
                    dashed.push(c);
                    in_run = false;
                }
            }
            [lower, dashed]
        })
        .collect()
}

/// The id substrings of one Claude feature list. 1.1.0 on ([`crate::pi::BedrockRules`]'s
/// `claude_haiku_5`): the release's own list (defaults.json `key`, read from the function that
/// tests it); 0.85.1: the list as that release wrote it (`v0_85`).
fn claude_ids(pi: &Pi, key: &str, v0_85: &'static [&'static str]) -> Vec<&'static str> {
    if !pi.rules.bedrock.claude_haiku_5 {
        return v0_85.to_vec();
    }
    pi.data
        .defaults
        .get(key)
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("data/pi-{}/defaults.json has no {key}", pi.version))
        .iter()
        .filter_map(Value::as_str)
        .collect()
}

/// Whether a candidate of the model's id or name contains one of `ids`.
fn matches_any(model_id: &str, model_name: &str, ids: &[&str]) -> bool {
    get_model_match_candidates(model_id, model_name)
        .iter()
        .any(|s| ids.iter().any(|a| s.contains(a)))
}

/// `supportsAdaptiveThinking(modelId, modelName)` (bedrock-converse-stream.js:573–582, 1.6.0
/// :613–623 with haiku-5).
fn supports_adaptive_thinking(pi: &Pi, model_id: &str, model_name: &str) -> bool {
    const V0_85: &[&str] = &[
        "opus-4-6",
        "opus-4-7",
        "opus-4-8",
        "opus-5",
        "sonnet-4-6",
        "sonnet-5",
        "fable-5",
    ];
    let ids = claude_ids(pi, "bedrockClaudeAdaptiveThinkingIds", V0_85);
    matches_any(model_id, model_name, &ids)
}

/// `supportsNativeXhighEffort(model)` (bedrock-converse-stream.js:583–590, 1.6.0 :624–632).
fn supports_native_xhigh_effort(pi: &Pi, model: &Model) -> bool {
    const V0_85: &[&str] = &["opus-4-7", "opus-4-8", "opus-5", "sonnet-5", "fable-5"];
    let ids = claude_ids(pi, "bedrockClaudeNativeXhighIds", V0_85);
    matches_any(model.id(), model.name(), &ids)
}

/// `supportsThinkingBlockBinding(model)` (1.6.0 bedrock-converse-stream.js:637–645): the
/// adaptive models that accept `thinking.block_binding` (Opus 4.6 and Sonnet 4.6 reject it).
fn supports_thinking_block_binding(pi: &Pi, model: &Model) -> bool {
    let ids = claude_ids(pi, "bedrockClaudeThinkingBlockBindingIds", &[]);
    matches_any(model.id(), model.name(), &ids)
}

/// `mapThinkingLevelToEffort(model, level)` (bedrock-converse-stream.js:591–608).
fn map_thinking_level_to_effort(pi: &Pi, model: &Model, level: &str) -> Value {
    if level == "xhigh" && supports_native_xhigh_effort(pi, model) {
        return Value::str("xhigh");
    }
    if let Some(Value::String(mapped)) = model.thinking_level_map().and_then(|m| m.get(level)) {
        return Value::str(mapped.as_str());
    }
    Value::str(match level {
        "minimal" | "low" => "low",
        "medium" => "medium",
        _ => "high",
    })
}

/// `isAnthropicClaudeModel(model)` (bedrock-converse-stream.js:626–634): the id or name holds
/// `anthropic.claude` / `anthropic/claude`, or the name holds `claude`.
fn is_anthropic_claude_model(model: &Model) -> bool {
    let id = model.id().to_lowercase();
    let name = model.name().to_lowercase();
    id.contains("anthropic.claude")
        || id.contains("anthropic/claude")
        || name.contains("anthropic.claude")
        || name.contains("anthropic/claude")
        || name.contains("claude")
}

/// `supportsPromptCaching(model, env)` (bedrock-converse-stream.js:647–673, 1.6.0 :703–726 with
/// haiku-5 among the Claude 5 models).
fn supports_prompt_caching(pi: &Pi, model: &Model, opts: &StreamOptions) -> bool {
    let candidates = get_model_match_candidates(model.id(), model.name());
    if !candidates.iter().any(|s| s.contains("claude")) {
        return env_value(opts, "AWS_BEDROCK_FORCE_CACHE") == Some("1");
    }
    candidates.iter().any(|s| {
        s.contains("fable-5")
            || s.contains("opus-5")
            || s.contains("sonnet-5")
            || (pi.rules.bedrock.claude_haiku_5 && s.contains("haiku-5"))
            || s.contains("-4-")
            || s.contains("claude-3-7-sonnet")
            || s.contains("claude-3-5-haiku")
    })
}

/// `getProviderEnvValue(name, env)` (AI/utils/provider-env.js): a non-empty value.
fn env_value<'a>(opts: &'a StreamOptions, name: &str) -> Option<&'a str> {
    opts.env
        .get(name)
        .map(String::as_str)
        .filter(|v| !v.is_empty())
}

/// `prefersJsonSchemaStrictSampling(tool)` (1.6.0 AI/api/constrained-sampling.js:123–126): a
/// json_schema constrained sampling with `strict: "prefer"`.
fn prefers_json_schema_strict_sampling(tool: &ToolDef) -> bool {
    tool.constrained_sampling.as_ref().is_some_and(|c| {
        c.truthy()
            && c.get_str("type") == Some("json_schema")
            && c.get_str("strict") == Some("prefer")
    })
}

/// `{cachePoint: {type: "default", ttl?: "1h"}}` (bedrock-converse-stream.js:688–690, 888–893).
fn cache_point(retention: &str) -> Value {
    let mut cp = Object::new().with("type", "default");
    if retention == "long" {
        cp.insert("ttl", Value::str("1h"));
    }
    Value::Object(Object::new().with("cachePoint", cp))
}

/// `buildSystemPrompt(systemPrompt, model, cacheRetention, env)` (bedrock-converse-stream.js:
/// 682–693): the text, plus a cache point for models that cache.
fn build_system_prompt(
    pi: &Pi,
    system_prompt: &str,
    model: &Model,
    retention: &str,
    opts: &StreamOptions,
    events: &mut Events,
) -> Option<Value> {
    if system_prompt.is_empty() {
        return None;
    }
    let mut blocks = vec![Value::Object(
        Object::new()
            .with(
                "text",
                crate::js::sanitize_surrogates(system_prompt).into_owned(),
            )
            .marked(Tag::System.mark()),
    )];
    if retention != "none" && supports_prompt_caching(pi, model, opts) {
        ev(
            events,
            EventKind::Inserted,
            format!("cachePoint after the system prompt (retention {retention})"),
            "AI/api/bedrock-converse-stream.js:686",
        );
        blocks.push(cache_point(retention));
    }
    Some(Value::Array(blocks))
}

/// `normalizeToolCallId(id)` (bedrock-converse-stream.js:694–697).
fn normalize_tool_call_id(id: &str) -> String {
    // All ASCII after sanitizing: bytes are UTF-16 units.
    let mut sanitized = super::sanitize_tool_call_id(id);
    sanitized.truncate(64);
    sanitized
}

/// `createNonBlankTextBlock(text)` (bedrock-converse-stream.js:698–701).
/// `mark`: what the text is ([`body::like`] of the block it renders).
fn create_non_blank_text_block(
    value: Option<&Value>,
    mark: Mark,
) -> Result<Option<Value>, AdapterError> {
    let sanitized = sanitize_value(value, "text block")?;
    Ok((!js_trim_is_empty(&sanitized))
        .then(|| Value::Object(Object::new().with("text", sanitized).marked(mark))))
}

/// `{text: "<empty>"}` (`EMPTY_TEXT_PLACEHOLDER`), pi's text in a message of `kind`.
fn empty_text_block(pi: &Pi, kind: Kind) -> Value {
    let mark = body::inserted(pi, "bedrockConverseStream.emptyTextPlaceholder", kind).mark();
    Value::Object(
        Object::new()
            .with("text", text(pi, "emptyTextPlaceholder"))
            .marked(mark),
    )
}

/// The mark of `v` (an object), or none.
fn mark_of(v: &Value) -> Mark {
    v.as_object().map_or(Mark::NONE, Object::mark)
}

/// `createRequiredTextBlock(text)` (bedrock-converse-stream.js:702–704).
fn create_required_text_block(
    pi: &Pi,
    value: Option<&Value>,
    mark: Mark,
    events: &mut Events,
) -> Result<Value, AdapterError> {
    Ok(match create_non_blank_text_block(value, mark)? {
        Some(block) => block,
        None => {
            ev(
                events,
                EventKind::Replaced,
                "blank user text sent as \"<empty>\"",
                "AI/api/bedrock-converse-stream.js:703",
            );
            empty_text_block(pi, Kind::UserText)
        }
    })
}

/// `sanitizeBedrockDocument(value)` (bedrock-converse-stream.js:705–715): object members with an
/// empty key are dropped, recursively.
fn sanitize_bedrock_document(value: &Value) -> Value {
    match value {
        Value::Array(a) => Value::Array(a.iter().map(sanitize_bedrock_document).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .filter(|(k, _)| !k.is_empty())
                .map(|(k, v)| (k.clone(), sanitize_bedrock_document(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `convertToolResultContent(content)` (bedrock-converse-stream.js:716–731).
fn convert_tool_result_content(
    pi: &Pi,
    msg: &Value,
    events: &mut Events,
) -> Result<Vec<Value>, AdapterError> {
    let text_mark = body::text_of(Object::new(), msg).mark();
    let items: &[Value] = match msg.get("content") {
        Some(Value::Array(a)) => a,
        _ => return Err(err("TypeError: content is not iterable (tool result)")),
    };
    let mut result = Vec::new();
    for c in items {
        if c.get_str("type") == Some("image") {
            result.push(Value::Object(Object::new().with(
                "image",
                create_image_block(c.get("mimeType"), c.get("data"), mark_of(c))?,
            )));
        } else if let Some(block) = create_non_blank_text_block(c.get("text"), text_mark)? {
            result.push(block);
        }
    }
    if result.is_empty() {
        ev(
            events,
            EventKind::Replaced,
            "empty tool result sent as \"<empty>\"",
            "AI/api/bedrock-converse-stream.js:729",
        );
        result.push(empty_text_block(pi, Kind::ToolResults));
    }
    Ok(result)
}

/// `convertMessages(context, model, cacheRetention, env)` (bedrock-converse-stream.js:732–898):
/// user, assistant and merged tool-result messages, then a cache point on a last user
/// message.
fn convert_messages(
    pi: &Pi,
    ctx: &LlmContext,
    model: &Model,
    retention: &str,
    opts: &StreamOptions,
    events: &mut Events,
) -> Result<Vec<Value>, AdapterError> {
    let normalize = |id: &str, _: &Model, _: &Value| normalize_tool_call_id(id);
    let transformed =
        messages::transform_messages(pi, &ctx.messages, model, Some(&normalize), 0.0, events);
    let mut result: Vec<Value> = Vec::new();
    let mut i = 0;
    while i < transformed.len() {
        let m = &transformed[i];
        match m.get_str("role") {
            Some("user") => {
                let content = convert_user_content(pi, m, events)?;
                result.push(Value::Object(body::message_like(
                    Object::new().with("role", "user").with("content", content),
                    m,
                )));
            }
            Some("assistant") => {
                if let Some(content) = convert_assistant_content(m, model, events)? {
                    result.push(Value::Object(body::message_like(
                        Object::new()
                            .with("role", "assistant")
                            .with("content", content),
                        m,
                    )));
                }
            }
            Some("toolResult") => {
                let mut tool_results = Vec::new();
                // 1.3.0: Claude rejects error results holding anything but text; their images
                // follow all the tool results of the turn (1.6.0 :905–926).
                let mut error_images = Vec::new();
                let split_images = pi.rules.bedrock.split_error_tool_result_images
                    && is_anthropic_claude_model(model);
                let mut j = i;
                while j < transformed.len() && transformed[j].get_str("role") == Some("toolResult")
                {
                    let tool_msg = &transformed[j];
                    let split = if split_images {
                        crate::messages::split_error_tool_result_images(pi, tool_msg)
                            .map_err(err)?
                    } else {
                        None
                    };
                    match split {
                        Some(split) => {
                            let mut replaced = tool_msg.clone();
                            if let Some(o) = replaced.as_object_mut() {
                                o.insert("content", split.content);
                            }
                            tool_results.push(tool_result_block(pi, &replaced, events)?);
                            ev(
                                events,
                                EventKind::Converted,
                                format!(
                                    "error tool result {}: {} image(s) moved after the tool results (Claude rejects images in error results)",
                                    to_js_string(tool_msg.get("toolCallId")),
                                    split.images.len()
                                ),
                                "1.6.0/AI/api/bedrock-converse-stream.js:911",
                            );
                            error_images.push(Value::Object(body::part_of(
                                Object::new().with("text", split.caption),
                                tool_msg,
                                Kind::UserText,
                            )));
                            for image in &split.images {
                                error_images.push(Value::Object(Object::new().with(
                                    "image",
                                    create_image_block(
                                        image.get("mimeType"),
                                        image.get("data"),
                                        mark_of(image),
                                    )?,
                                )));
                            }
                        }
                        None => tool_results.push(tool_result_block(pi, tool_msg, events)?),
                    }
                    j += 1;
                }
                if tool_results.len() > 1 {
                    ev(
                        events,
                        EventKind::Converted,
                        format!(
                            "{} consecutive tool results merged into one user message",
                            tool_results.len()
                        ),
                        "AI/api/bedrock-converse-stream.js:864",
                    );
                }
                i = j - 1;
                tool_results.extend(error_images);
                result.push(Value::Object(body::message_like(
                    Object::new()
                        .with("role", "user")
                        .with("content", tool_results),
                    m,
                )));
            }
            _ => {}
        }
        i += 1;
    }
    if retention != "none" && supports_prompt_caching(pi, model, opts) {
        if let Some(last) = result.last_mut().and_then(Value::as_object_mut) {
            if last.get_str("role") == Some("user") {
                if let Some(content) = last.get_mut("content").and_then(Value::as_array_mut) {
                    content.push(cache_point(retention));
                    ev(
                        events,
                        EventKind::Inserted,
                        format!("cachePoint on the last user message (retention {retention})"),
                        "AI/api/bedrock-converse-stream.js:886",
                    );
                }
            }
        }
    }
    Ok(result)
}

/// The user branch of `convertMessages` (bedrock-converse-stream.js:738–768).
fn convert_user_content(
    pi: &Pi,
    m: &Value,
    events: &mut Events,
) -> Result<Vec<Value>, AdapterError> {
    let mut content = Vec::new();
    match m.get("content") {
        Some(Value::String(_)) => content.push(create_required_text_block(
            pi,
            m.get("content"),
            body::text_of(Object::new(), m).mark(),
            events,
        )?),
        Some(Value::Array(items)) => {
            for c in items {
                match c.get_str("type") {
                    Some("text") => match create_non_blank_text_block(c.get("text"), mark_of(c))? {
                        Some(block) => content.push(block),
                        None => ev(
                            events,
                            EventKind::Dropped,
                            "blank user text block",
                            "AI/api/bedrock-converse-stream.js:746",
                        ),
                    },
                    Some("image") => content.push(Value::Object(Object::new().with(
                        "image",
                        create_image_block(c.get("mimeType"), c.get("data"), mark_of(c))?,
                    ))),
                    _ => {}
                }
            }
            if content.is_empty() {
                ev(
                    events,
                    EventKind::Replaced,
                    "user message with no content sent as \"<empty>\"",
                    "AI/api/bedrock-converse-stream.js:760",
                );
                content.push(empty_text_block(pi, Kind::UserText));
            }
        }
        _ => return Err(err("TypeError: m.content is not iterable (user message)")),
    }
    Ok(content)
}

/// The assistant branch of `convertMessages` (bedrock-converse-stream.js:769–849): `None` when
/// the message is skipped (empty content, or every block filtered out).
fn convert_assistant_content(
    m: &Value,
    model: &Model,
    events: &mut Events,
) -> Result<Option<Vec<Value>>, AdapterError> {
    let blocks: &[Value] = match m.get("content") {
        Some(Value::Array(a)) => a,
        _ => &[],
    };
    if blocks.is_empty() {
        ev(
            events,
            EventKind::Dropped,
            "assistant message with empty content",
            "AI/api/bedrock-converse-stream.js:773",
        );
        return Ok(None);
    }
    let mut content = Vec::new();
    for c in blocks {
        match c.get_str("type") {
            Some("text") => match create_non_blank_text_block(c.get("text"), mark_of(c))? {
                Some(block) => content.push(block),
                None => ev(
                    events,
                    EventKind::Dropped,
                    "blank assistant text block",
                    "AI/api/bedrock-converse-stream.js:781",
                ),
            },
            Some("toolCall") => {
                let mut tool_use = body::like(Object::new(), c);
                tool_use.insert_opt("toolUseId", c.get("id").cloned());
                tool_use.insert_opt("name", c.get("name").cloned());
                tool_use.insert_opt("input", c.get("arguments").map(sanitize_bedrock_document));
                content.push(Value::Object(Object::new().with("toolUse", tool_use)));
            }
            Some("thinking") => {
                if let Some(block) = convert_thinking_block(c, model, events)? {
                    content.push(block);
                }
            }
            _ => {}
        }
    }
    if content.is_empty() {
        ev(
            events,
            EventKind::Dropped,
            "assistant message with no blocks left",
            "AI/api/bedrock-converse-stream.js:841",
        );
        return Ok(None);
    }
    Ok(Some(content))
}

/// The thinking case of the assistant branch (bedrock-converse-stream.js:796–836): redacted
/// payloads replayed as `redactedContent` bytes; signed Claude thinking as `reasoningText` with
/// its signature, unsigned as plain text; other models' thinking without a signature.
fn convert_thinking_block(
    c: &Value,
    model: &Model,
    events: &mut Events,
) -> Result<Option<Value>, AdapterError> {
    if c.get("redacted").is_some_and(Value::truthy) {
        return Ok(match decode_redacted_content(c.get("thinkingSignature")) {
            Some(bytes) if !bytes.is_empty() => Some(Value::Object(Object::new().with(
                "reasoningContent",
                body::like(Object::new(), c).with("redactedContent", base64::encode(&bytes)),
            ))),
            _ => {
                ev(
                    events,
                    EventKind::Dropped,
                    "redacted thinking whose payload is not base64",
                    "AI/api/bedrock-converse-stream.js:802",
                );
                None
            }
        });
    }
    let thinking = sanitize_value(c.get("thinking"), "thinking")?;
    if js_trim_is_empty(&thinking) {
        ev(
            events,
            EventKind::Dropped,
            "blank thinking block",
            "AI/api/bedrock-converse-stream.js:809",
        );
        return Ok(None);
    }
    if !supports_thinking_signature(model) {
        return Ok(Some(Value::Object(Object::new().with(
            "reasoningContent",
            Object::new().with(
                "reasoningText",
                body::like(Object::new(), c).with("text", thinking),
            ),
        ))));
    }
    let signature = c.get("thinkingSignature");
    let blank_signature = match signature {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => js_trim_is_empty(s),
        Some(v) if !v.truthy() => true,
        Some(_) => return Err(err("TypeError: c.thinkingSignature.trim is not a function")),
    };
    if blank_signature {
        ev(
            events,
            EventKind::Converted,
            "Claude thinking without a signature sent as text",
            "AI/api/bedrock-converse-stream.js:819",
        );
        return Ok(Some(Value::Object(body::part_of(
            Object::new().with("text", thinking),
            c,
            Kind::AssistantText,
        ))));
    }
    let mut reasoning_text = body::like(Object::new(), c).with("text", thinking);
    reasoning_text.insert_opt("signature", signature.cloned());
    Ok(Some(Value::Object(Object::new().with(
        "reasoningContent",
        Object::new().with("reasoningText", reasoning_text),
    ))))
}

/// `supportsThinkingSignature(model)` (bedrock-converse-stream.js:679–681).
fn supports_thinking_signature(model: &Model) -> bool {
    is_anthropic_claude_model(model)
}

/// One `{toolResult: {toolUseId, content, status}}` (bedrock-converse-stream.js:851–874).
fn tool_result_block(pi: &Pi, m: &Value, events: &mut Events) -> Result<Value, AdapterError> {
    let mut tr = Object::new();
    tr.insert_opt("toolUseId", m.get("toolCallId").cloned());
    tr.insert(
        "content",
        Value::Array(convert_tool_result_content(pi, m, events)?),
    );
    tr.insert(
        "status",
        Value::str(if m.get("isError").is_some_and(Value::truthy) {
            "error"
        } else {
            "success"
        }),
    );
    Ok(Value::Object(Object::new().with("toolResult", tr)))
}

/// `convertToolConfig(tools, toolChoice, supportsStrictMode)` (bedrock-converse-stream.js:
/// 899–929; 1.6.0 :947–981 with `disablePreferredStrictTools`) with the coding agent's
/// undefined `toolChoice`, for the first attempt of a process (no strict-limit fallback yet).
fn convert_tool_config(
    pi: &Pi,
    tools: &[ToolDef],
    supports_strict_mode: bool,
    events: &mut Events,
) -> Result<Option<Value>, AdapterError> {
    if tools.is_empty() {
        return Ok(None);
    }
    let mut bedrock_tools = Vec::with_capacity(tools.len());
    let mut preferred_strict: Vec<&str> = Vec::new();
    for tool in tools {
        let strict =
            resolve_json_schema_strict_sampling(&Strict::of(pi), tool, supports_strict_mode)?
                == Some(true);
        if strict && prefers_json_schema_strict_sampling(tool) {
            preferred_strict.push(&tool.name);
        }
        let mut spec = Object::new()
            .with("name", tool.name.as_str())
            .with("description", tool.description.as_str())
            .marked(Tag::Tool.mark())
            .with(
                "inputSchema",
                Object::new()
                    .with(
                        "json",
                        get_json_schema_tool_parameters(&Strict::of(pi), tool, strict)?,
                    )
                    .marked(Tag::Schema.mark()),
            );
        if strict {
            spec.insert("strict", Value::Bool(true));
            ev(
                events,
                EventKind::Converted,
                format!(
                    "tool {}: strict input schema (compat.supportsStrictMode)",
                    tool.name
                ),
                "AI/api/bedrock-converse-stream.js:910",
            );
        }
        bedrock_tools.push(Value::Object(
            Object::new()
                .with("toolSpec", spec)
                .marked(Tag::Tool.mark()),
        ));
    }
    if pi.rules.bedrock.strict_tool_limit_fallback && !preferred_strict.is_empty() {
        // `hasExceededStrictToolLimits(sessionId)` is a set in the pi process: a fresh one
        // (the request a run starts with) has no session in it.
        ev(
            events,
            EventKind::Note,
            format!(
                "{} sent strict as they prefer (strict: \"prefer\"). Process state: if Bedrock rejects the request for too many strict tools, pi sends it once more with them non-strict, and so do the later requests of this session in that process",
                preferred_strict.join(", ")
            ),
            "1.6.0/AI/api/bedrock-converse-stream.js:149",
        );
    }
    Ok(Some(Value::Object(
        Object::new().with("tools", bedrock_tools),
    )))
}

/// `getConfiguredBedrockRegion(options)` (bedrock-converse-stream.js:946–951).
fn get_configured_bedrock_region(opts: &StreamOptions) -> Option<&str> {
    env_value(opts, "AWS_REGION").or_else(|| env_value(opts, "AWS_DEFAULT_REGION"))
}

/// `getStandardBedrockEndpointRegion(baseUrl)` (bedrock-converse-stream.js:964–976):
/// `bedrock-runtime[-fips].<region>.amazonaws.com[.cn]`.
fn get_standard_bedrock_endpoint_region(base_url: &str) -> Option<String> {
    let rest = base_url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority.rsplit('@').next()?;
    let host = host_port.split(':').next()?.to_lowercase();
    let host = host.strip_suffix(".cn").unwrap_or(&host);
    let inner = host.strip_suffix(".amazonaws.com")?;
    let region = inner
        .strip_prefix("bedrock-runtime-fips.")
        .or_else(|| inner.strip_prefix("bedrock-runtime."))?;
    (!region.is_empty()
        && region
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'))
    .then(|| region.to_string())
}

/// `isGovCloudBedrockTarget(model, options)` (bedrock-converse-stream.js:984–991).
fn is_gov_cloud_bedrock_target(model: &Model, opts: &StreamOptions) -> bool {
    if get_configured_bedrock_region(opts).is_some_and(|r| r.to_lowercase().starts_with("us-gov-"))
    {
        return true;
    }
    let id = model.id().to_lowercase();
    id.starts_with("us-gov.") || id.starts_with("arn:aws-us-gov:")
}

/// The endpoint the client sends to (bedrock-converse-stream.js:48–103): the model's
/// `baseUrl` unless it is a standard Bedrock endpoint and a region (env `AWS_REGION` /
/// `AWS_DEFAULT_REGION`) or an ambient `AWS_PROFILE` is configured; then the SDK's regional
/// endpoint for the region (an inference-profile ARN's region first). Also says whether the
/// endpoint was set explicitly (the SDK's `ENDPOINT_OVERRIDE` feature).
fn endpoint(model: &Model, opts: &StreamOptions, events: &mut Events) -> (String, bool) {
    let base = model.base_url();
    let configured_region = get_configured_bedrock_region(opts);
    let ambient_profile = env_value(opts, "AWS_PROFILE").is_some();
    let endpoint_region = get_standard_bedrock_endpoint_region(base);
    let explicit = endpoint_region.is_none() || (configured_region.is_none() && !ambient_profile);
    if explicit && !base.is_empty() {
        return (base.strip_suffix('/').unwrap_or(base).to_string(), true);
    }
    let region = arn_region(model.id())
        .or_else(|| configured_region.map(String::from))
        .or_else(|| (!ambient_profile).then(|| "us-east-1".to_string()));
    match region {
        Some(r) => {
            let host_suffix = if r.starts_with("cn-") {
                "amazonaws.com.cn"
            } else {
                "amazonaws.com"
            };
            let url = format!("https://bedrock-runtime.{r}.{host_suffix}");
            if url != base.strip_suffix('/').unwrap_or(base) {
                ev(
                    events,
                    EventKind::Replaced,
                    format!("endpoint {base} → {url} (region {r} configured)"),
                    "AI/api/bedrock-converse-stream.js:52",
                );
            }
            (url, false)
        }
        None => {
            ev(events, EventKind::Note, "region comes from the AWS profile, which is not read here: the model's baseUrl is shown", "AI/api/bedrock-converse-stream.js:79");
            (base.strip_suffix('/').unwrap_or(base).to_string(), false)
        }
    }
}

/// The region of an inference-profile ARN, `/^arn:aws(?:-[a-z0-9-]+)?:bedrock:([a-z0-9-]+):/`
/// (bedrock-converse-stream.js:69).
fn arn_region(model_id: &str) -> Option<String> {
    let rest = model_id.strip_prefix("arn:aws")?;
    let rest = match rest.strip_prefix('-') {
        Some(partition) => {
            let end = partition.find(':')?;
            if end == 0
                || !partition[..end]
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            {
                return None;
            }
            &partition[end..]
        }
        None => rest,
    };
    let rest = rest.strip_prefix(":bedrock:")?;
    let end = rest.find(':')?;
    let region = &rest[..end];
    (end > 0
        && region
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'))
    .then(|| region.to_string())
}

/// `buildAdditionalModelRequestFields(model, options)` (bedrock-converse-stream.js:993–1032,
/// 1.6.0 :1045–1104): for Claude, adaptive models get `{thinking:{type:"adaptive", display,
/// block_binding?}, output_config:{effort}, anthropic_beta?}`, others an enabled thinking budget
/// and the interleaved-thinking beta; GovCloud leaves `display` (and the block binding) out.
/// From 1.1.0, OpenAI models get their level: gpt-oss a flat `reasoning_effort`, other GPT
/// models `reasoning.effort`.
fn build_additional_model_request_fields(
    pi: &Pi,
    model: &Model,
    options: &BedrockOptions,
    opts: &StreamOptions,
    events: &mut Events,
) -> Option<Value> {
    let reasoning = options.reasoning.as_deref()?;
    if !model.reasoning() {
        return None;
    }
    if !is_anthropic_claude_model(model) {
        return openai_reasoning_fields(pi, model, reasoning, events);
    }
    let is_gov_cloud = is_gov_cloud_bedrock_target(model, opts);
    let display = (!is_gov_cloud).then(|| default_thinking_display(pi));
    let adaptive = supports_adaptive_thinking(pi, model.id(), model.name());
    let mut result = if adaptive {
        // 1.0.1: replayed signed thinking is bound to the prompt and tools it was made with;
        // Bedrock drops stale blocks instead of rejecting them (1.6.0 :1057).
        let block_binding = pi.rules.bedrock.thinking_block_binding
            && !is_gov_cloud
            && supports_thinking_block_binding(pi, model);
        let mut thinking = Object::new().with("type", "adaptive");
        thinking.insert_opt("display", display.map(Value::str));
        if block_binding {
            thinking.insert(
                "block_binding",
                Value::Object(Object::new().with(
                    "prefix_mismatch_behavior",
                    text(pi, "blockBindingPrefixMismatchBehavior"),
                )),
            );
        }
        let effort = map_thinking_level_to_effort(pi, model, reasoning);
        ev(
            events,
            EventKind::Converted,
            format!(
                "thinking level {reasoning} → adaptive thinking, effort {}",
                effort.to_json()
            ),
            "AI/api/bedrock-converse-stream.js:1003",
        );
        let mut fields = Object::new()
            .with("thinking", thinking)
            .with("output_config", Object::new().with("effort", effort));
        if block_binding {
            fields.insert(
                "anthropic_beta",
                Value::Array(vec![Value::str(text(pi, "thinkingBindingControlsBeta"))]),
            );
            ev(
                events,
                EventKind::Inserted,
                "thinking.block_binding drop_block and the thinking-binding-controls beta (replayed thinking bound to the prompt and tools)",
                "1.6.0/AI/api/bedrock-converse-stream.js:1063",
            );
        }
        fields
    } else {
        let level = if reasoning == "xhigh" || reasoning == "max" {
            "high"
        } else {
            reasoning
        };
        let budget = options
            .thinking_budgets
            .as_ref()
            .and_then(|b| b.get(level))
            .filter(|v| !v.is_null())
            .cloned()
            .or_else(|| {
                pi.data
                    .defaults
                    .get("bedrockDefaultThinkingBudgets")
                    .and_then(|d| d.get(reasoning))
                    .cloned()
            });
        let mut thinking = Object::new().with("type", "enabled");
        thinking.insert_opt("budget_tokens", budget.clone());
        thinking.insert_opt("display", display.map(Value::str));
        ev(
            events,
            EventKind::Converted,
            format!(
                "thinking level {reasoning} → budget_tokens {}",
                budget.map_or_else(|| "undefined".into(), |b| b.to_json())
            ),
            "AI/api/bedrock-converse-stream.js:1010",
        );
        Object::new().with("thinking", thinking)
    };
    if !adaptive {
        result.insert(
            "anthropic_beta",
            Value::Array(vec![Value::str(text(pi, "interleavedThinkingBeta"))]),
        );
        ev(
            events,
            EventKind::Inserted,
            "anthropic_beta interleaved-thinking",
            "AI/api/bedrock-converse-stream.js:1028",
        );
    }
    if display.is_none() {
        ev(
            events,
            EventKind::Dropped,
            "thinking.display left out for a GovCloud target",
            "AI/api/bedrock-converse-stream.js:998",
        );
    }
    Some(Value::Object(result))
}

/// `options.thinkingDisplay ?? "summarized"` with the coding agent's undefined option
/// (bedrock-converse-stream.js:1000, 1.6.0 :1053): strings.json `defaultThinkingDisplay`, which
/// the extraction reads from 1.6.0 on; 0.85.1's table predates it (its code says the same).
fn default_thinking_display(pi: &Pi) -> &'static str {
    pi.data
        .strings
        .get("bedrockConverseStream")
        .and_then(|g| g.get_str("defaultThinkingDisplay"))
        .unwrap_or("summarized")
}

/// The non-Claude half of `buildAdditionalModelRequestFields` (1.6.0
/// bedrock-converse-stream.js:1093–1103): a candidate of the id or name containing
/// `gpt-oss` → `{reasoning_effort}` from `OPENAI_GPT_OSS_EFFORT`; else containing `gpt-` →
/// `{reasoning:{effort}}`, the model's `thinkingLevelMap` string or `OPENAI_GPT_EFFORT`; others
/// nothing (also 0.85, for every non-Claude model).
fn openai_reasoning_fields(
    pi: &Pi,
    model: &Model,
    reasoning: &str,
    events: &mut Events,
) -> Option<Value> {
    if !pi.rules.bedrock.openai_reasoning_effort {
        return None;
    }
    let candidates = get_model_match_candidates(model.id(), model.name());
    let table = |key: &str| {
        pi.data
            .defaults
            .get(key)
            .and_then(|t| t.get(reasoning))
            .cloned()
    };
    if candidates.iter().any(|s| s.contains("gpt-oss")) {
        let mut fields = Object::new();
        // `OPENAI_GPT_OSS_EFFORT[level]`: undefined for a level outside the table.
        fields.insert_opt("reasoning_effort", table("bedrockOpenAiGptOssEffort"));
        ev(
            events,
            EventKind::Converted,
            format!(
                "thinking level {reasoning} → reasoning_effort {} (gpt-oss takes low, medium, high)",
                to_js_string(fields.get("reasoning_effort"))
            ),
            "1.6.0/AI/api/bedrock-converse-stream.js:1095",
        );
        return Some(Value::Object(fields));
    }
    if candidates.iter().any(|s| s.contains("gpt-")) {
        let effort = match model.thinking_level_map().and_then(|m| m.get(reasoning)) {
            Some(Value::String(mapped)) => Some(Value::str(mapped.as_str())),
            _ => table("bedrockOpenAiGptEffort"),
        };
        let mut inner = Object::new();
        inner.insert_opt("effort", effort);
        ev(
            events,
            EventKind::Converted,
            format!(
                "thinking level {reasoning} → reasoning.effort {}",
                to_js_string(inner.get("effort"))
            ),
            "1.6.0/AI/api/bedrock-converse-stream.js:1098",
        );
        return Some(Value::Object(Object::new().with("reasoning", inner)));
    }
    None
}

/// `createImageBlock(mimeType, data)` (bedrock-converse-stream.js:1033–1053): jpeg/png/gif/webp,
/// anything else throws; the base64 data decoded with `atob` (throws on invalid input) and
/// re-encoded canonically by the SDK.
/// `mark`: the image block's (its `source.bytes` are the image's data).
fn create_image_block(
    mime_type: Option<&Value>,
    data: Option<&Value>,
    mark: Mark,
) -> Result<Value, AdapterError> {
    let format = match mime_type.and_then(Value::as_str) {
        Some("image/jpeg") | Some("image/jpg") => "jpeg",
        Some("image/png") => "png",
        Some("image/gif") => "gif",
        Some("image/webp") => "webp",
        _ => {
            return Err(err(format!(
                "Unknown image type: {}",
                to_js_string(mime_type)
            )))
        }
    };
    let input = to_js_string(data);
    let bytes = base64::atob(&input).map_err(|e| err(format!("InvalidCharacterError: {e}")))?;
    Ok(Value::Object(
        Object::new()
            .with(
                "source",
                Object::new()
                    .with("bytes", base64::encode(&bytes))
                    .marked(mark),
            )
            .with("format", format),
    ))
}

/// `decodeRedactedContent(signature)` (bedrock-converse-stream.js:1068–1077): `undefined` for a
/// missing or undecodable payload.
fn decode_redacted_content(signature: Option<&Value>) -> Option<Vec<u8>> {
    let sig = signature.filter(|s| s.truthy())?;
    base64::atob(&to_js_string(Some(sig))).ok()
}

/// The SDK's label encoding of the model id in the path (`extendedEncodeURIComponent`,
/// @smithy/core): `encodeURIComponent` plus `!'()*`, so only `A-Za-z0-9-_.~` stay literal.
fn extended_encode_uri_component(s: &str) -> Result<String, AdapterError> {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if crate::js::is_lone_surrogate_char(c).is_some() {
            return Err(err("URIError: URI malformed"));
        }
        if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~') {
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    Ok(out)
}

/// pi's client identity as the AWS SDK's `customUserAgent` (`bedrockUserAgent(identity)`,
/// 1.6.0 bedrock-converse-stream.js:370–375): the coding agent's identity is "detailed", so
/// `[["pi", version]]`, which the SDK appends to both user agents as ` pi/<version>`
/// (`escapeUserAgent`, nothing to escape in a version). None before 1.4.0.
fn pi_user_agent_pair(pi: &Pi) -> Option<String> {
    pi.rules
        .bedrock
        .pi_user_agent_pair
        .then(|| format!("pi/{}", pi.version))
}

/// The protocol's own headers, in the SDK's order: `content-type`, `x-amz-user-agent`, the
/// SDK's `user-agent` (see [`aws_sdk_user_agent`]), the configured headers
/// (`addCustomHeadersMiddleware`), and `authorization` (SigV4 with the env credentials, or
/// `Bearer` with the API key or `AWS_BEARER_TOKEN_BEDROCK`), redacted. Left out: the runtime
/// and per-request ones: `host`, `content-length`, `amz-sdk-invocation-id` (random),
/// `amz-sdk-request`, `connection`, and the SigV4 signing headers (`x-amz-date`,
/// `x-amz-content-sha256`, `x-amz-security-token`).
fn request_headers(
    pi: &Pi,
    opts: &StreamOptions,
    explicit_endpoint: bool,
    events: &mut Events,
) -> Vec<(String, String)> {
    let with_pi = |ua: String| match pi_user_agent_pair(pi) {
        Some(pair) => format!("{ua} {pair}"),
        None => ua,
    };
    let mut headers = vec![
        ("content-type".to_string(), "application/json".to_string()),
        (
            "x-amz-user-agent".to_string(),
            with_pi(crate::sdk::aws::sdk_js(pi)),
        ),
        (
            "user-agent".to_string(),
            with_pi(crate::sdk::aws::user_agent(
                pi,
                &opts.user_agent,
                explicit_endpoint,
                events,
            )),
        ),
    ];
    for (k, v) in &opts.headers {
        // `addCustomHeadersMiddleware` (bedrock-converse-stream.js:340–352; 1.6.0 :383–397):
        // `x-amz-*`, `authorization` and `host` belong to SigV4 and are skipped; any other name
        // is set on the request's headers.
        let lower = k.to_lowercase();
        if lower.starts_with("x-amz-") || lower == "authorization" || lower == "host" {
            ev(
                events,
                EventKind::Dropped,
                format!("configured header {k}: reserved for SigV4, not sent"),
                "AI/api/bedrock-converse-stream.js:329",
            );
            continue;
        }
        headers.push((lower, v.clone()));
    }
    headers.push(("authorization".into(), "<redacted>".into()));
    headers
}

// ---------------------------------------------------------------------------------------------
// @aws-sdk/client-bedrock-runtime 3.1048.0 schemas (dist-cjs/schemas/schemas_0.js) as
// `JsonShapeSerializer2.writeStruct` walks them: members in schema order, `null`/`undefined`
// members and list items left out, documents written as they are.
// ---------------------------------------------------------------------------------------------

type Writer = fn(&Value) -> Value;

/// `writeStruct(ns, value)` for a structure or union with the given members.
fn write_struct(value: &Value, members: &[(&str, Writer)]) -> Value {
    let Some(obj) = value.as_object() else {
        return write_scalar(value);
    };
    let mut out = Object::new().marked(obj.mark());
    for (name, writer) in members {
        if let Some(v) = obj.get(name).filter(|v| !v.is_null()) {
            out.insert(*name, writer(v));
        }
    }
    Value::Object(out)
}

/// `writeList` of a non-sparse list: `null` items are skipped.
fn write_list(value: &Value, item: Writer) -> Value {
    match value {
        Value::Array(a) => Value::Array(a.iter().filter(|v| !v.is_null()).map(item).collect()),
        other => other.clone(),
    }
}

/// A document (or a member pi never sets), written as it is.
fn write_document(value: &Value) -> Value {
    value.clone()
}

/// A string or number member: NaN and infinities are written as strings.
fn write_scalar(value: &Value) -> Value {
    match value {
        Value::Number(n) if !n.is_finite() => Value::String(crate::js::number_to_string(*n).into()),
        other => other.clone(),
    }
}

/// `ConverseStreamRequest$` (schemas_0.js:683): `modelId` is the path label, the rest the body.
fn converse_stream_request_body(input: &Value) -> Value {
    write_struct(
        input,
        &[
            ("messages", |v| write_list(v, write_message)),
            ("system", |v| write_list(v, write_system_content_block)),
            ("inferenceConfig", write_inference_configuration),
            ("toolConfig", write_tool_configuration),
            ("guardrailConfig", write_document),
            ("additionalModelRequestFields", write_document),
            ("promptVariables", write_document),
            ("additionalModelResponseFieldPaths", write_document),
            ("requestMetadata", write_document),
            ("performanceConfig", write_document),
            ("serviceTier", write_document),
            ("outputConfig", write_document),
        ],
    )
}

/// `Message$` (schemas_0.js:1028).
fn write_message(v: &Value) -> Value {
    write_struct(
        v,
        &[
            ("role", write_scalar),
            ("content", |c| write_list(c, write_content_block)),
        ],
    )
}

/// `ContentBlock$` (schemas_0.js:1331).
fn write_content_block(v: &Value) -> Value {
    write_struct(
        v,
        &[
            ("text", write_scalar),
            ("image", write_image_block),
            ("document", write_document),
            ("video", write_document),
            ("audio", write_document),
            ("toolUse", write_tool_use_block),
            ("toolResult", write_tool_result_block),
            ("guardContent", write_document),
            ("cachePoint", write_cache_point_block),
            ("reasoningContent", write_reasoning_content_block),
            ("citationsContent", write_document),
            ("searchResult", write_document),
        ],
    )
}

/// `SystemContentBlock$` (schemas_0.js:1436).
fn write_system_content_block(v: &Value) -> Value {
    write_struct(
        v,
        &[
            ("text", write_scalar),
            ("guardContent", write_document),
            ("cachePoint", write_cache_point_block),
        ],
    )
}

/// `ImageBlock$` (schemas_0.js:958) with `ImageSource$` (:1396): `format` before `source`.
fn write_image_block(v: &Value) -> Value {
    write_struct(
        v,
        &[
            ("format", write_scalar),
            ("source", |s| {
                write_struct(
                    s,
                    &[("bytes", write_scalar), ("s3Location", write_document)],
                )
            }),
            ("error", write_document),
        ],
    )
}

/// `ToolUseBlock$` (schemas_0.js:1148).
fn write_tool_use_block(v: &Value) -> Value {
    write_struct(
        v,
        &[
            ("toolUseId", write_scalar),
            ("name", write_scalar),
            ("input", write_document),
            ("type", write_scalar),
        ],
    )
}

/// `ToolResultBlock$` (schemas_0.js:1133) with `ToolResultContentBlock$` (:1461).
fn write_tool_result_block(v: &Value) -> Value {
    write_struct(
        v,
        &[
            ("toolUseId", write_scalar),
            ("content", |c| {
                write_list(c, |b| {
                    write_struct(
                        b,
                        &[
                            ("json", write_document),
                            ("text", write_scalar),
                            ("image", write_image_block),
                            ("document", write_document),
                            ("video", write_document),
                            ("searchResult", write_document),
                        ],
                    )
                })
            }),
            ("status", write_scalar),
            ("type", write_scalar),
        ],
    )
}

/// `CachePointBlock$` (schemas_0.js:613).
fn write_cache_point_block(v: &Value) -> Value {
    write_struct(v, &[("type", write_scalar), ("ttl", write_scalar)])
}

/// `ReasoningContentBlock$` (schemas_0.js:1421) with `ReasoningTextBlock$` (:1068).
fn write_reasoning_content_block(v: &Value) -> Value {
    write_struct(
        v,
        &[
            ("reasoningText", |r| {
                write_struct(r, &[("text", write_scalar), ("signature", write_scalar)])
            }),
            ("redactedContent", write_scalar),
        ],
    )
}

/// `InferenceConfiguration$` (schemas_0.js:973).
fn write_inference_configuration(v: &Value) -> Value {
    write_struct(
        v,
        &[
            ("maxTokens", write_scalar),
            ("temperature", write_scalar),
            ("topP", write_scalar),
            ("stopSequences", write_document),
        ],
    )
}

/// `ToolConfiguration$` (schemas_0.js:1128) with `Tool$` (:1441), `ToolSpecification$` (:1143:
/// `name, inputSchema, description, strict`) and `ToolInputSchema$` (:1451).
fn write_tool_configuration(v: &Value) -> Value {
    write_struct(
        v,
        &[
            ("tools", |t| {
                write_list(t, |tool| {
                    write_struct(
                        tool,
                        &[
                            ("toolSpec", |s| {
                                write_struct(
                                    s,
                                    &[
                                        ("name", write_scalar),
                                        ("inputSchema", |i| {
                                            write_struct(i, &[("json", write_document)])
                                        }),
                                        ("description", write_scalar),
                                        ("strict", write_scalar),
                                    ],
                                )
                            }),
                            ("systemTool", write_document),
                            ("cachePoint", write_cache_point_block),
                        ],
                    )
                })
            }),
            ("toolChoice", write_document),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_and_families() {
        assert_eq!(
            get_model_match_candidates("us.anthropic.claude-sonnet-4-5-20250929-v1:0", ""),
            vec![
                "us.anthropic.claude-sonnet-4-5-20250929-v1:0".to_string(),
                "us-anthropic-claude-sonnet-4-5-20250929-v1-0".to_string()
            ]
        );
        assert!(supports_adaptive_thinking(
            &crate::testcase::pi(),
            "anthropic.claude-opus-4-6-v1",
            ""
        ));
        assert!(supports_adaptive_thinking(
            &crate::testcase::pi(),
            "arn:aws:bedrock:us-east-1:1:application-inference-profile/x",
            "Claude Opus 4.7"
        ));
        assert!(!supports_adaptive_thinking(
            &crate::testcase::pi(),
            "anthropic.claude-sonnet-4-5",
            "Claude Sonnet 4.5"
        ));
    }

    #[test]
    fn endpoints_and_ids() {
        assert_eq!(
            get_standard_bedrock_endpoint_region(
                "https://bedrock-runtime.eu-central-1.amazonaws.com"
            ),
            Some("eu-central-1".into())
        );
        assert_eq!(
            get_standard_bedrock_endpoint_region(
                "https://bedrock-runtime-fips.us-gov-west-1.amazonaws.com/"
            ),
            Some("us-gov-west-1".into())
        );
        assert_eq!(
            get_standard_bedrock_endpoint_region("http://127.0.0.1:4000"),
            None
        );
        assert_eq!(
            arn_region("arn:aws:bedrock:eu-west-1:123:inference-profile/x"),
            Some("eu-west-1".into())
        );
        assert_eq!(
            arn_region("arn:aws-us-gov:bedrock:us-gov-west-1:1:x"),
            Some("us-gov-west-1".into())
        );
        assert_eq!(
            extended_encode_uri_component("us.anthropic.claude-v1:0 (x)*!").unwrap(),
            "us.anthropic.claude-v1%3A0%20%28x%29%2A%21"
        );
        assert_eq!(normalize_tool_call_id("call.1:2 ü"), "call_1_2__");
    }

    fn pi16() -> Pi {
        Pi::new(crate::PiVersion::V1_6_0).unwrap()
    }

    fn model(id: &str, name: &str) -> Model {
        Model {
            obj: Object::new()
                .with("id", id)
                .with("name", name)
                .with("reasoning", true),
        }
    }

    #[test]
    fn claude_lists_per_release() {
        let (old, new) = (crate::testcase::pi(), pi16());
        let haiku5 = model("anthropic.claude-haiku-5-5", "Claude Haiku 5.5");
        assert!(!supports_adaptive_thinking(
            &old,
            haiku5.id(),
            haiku5.name()
        ));
        assert!(supports_adaptive_thinking(&new, haiku5.id(), haiku5.name()));
        assert!(supports_native_xhigh_effort(&new, &haiku5));
        assert!(supports_prompt_caching(
            &new,
            &haiku5,
            &StreamOptions::default()
        ));
        let sonnet46 = model("us.anthropic.claude-sonnet-4-6", "Claude Sonnet 4.6");
        assert!(supports_adaptive_thinking(
            &new,
            sonnet46.id(),
            sonnet46.name()
        ));
        assert!(!supports_thinking_block_binding(&new, &sonnet46));
        assert!(supports_thinking_block_binding(
            &new,
            &model(
                "arn:aws:bedrock:us-east-1:1:application-inference-profile/x",
                "Claude Opus 4.8"
            )
        ));
        assert!(!supports_thinking_block_binding(&old, &haiku5));
    }

    #[test]
    fn openai_effort_from_1_1() {
        let new = pi16();
        let mut ev = Events::default();
        let fields = |m: &Model, level: &str, ev: &mut Events| {
            openai_reasoning_fields(&new, m, level, ev).map(|v| v.to_json())
        };
        let oss = model("openai.gpt-oss-120b", "gpt-oss-120b");
        assert_eq!(
            fields(&oss, "xhigh", &mut ev).unwrap(),
            r#"{"reasoning_effort":"high"}"#
        );
        let mut gpt = model("openai.gpt-6-sol", "GPT-6 Sol");
        assert_eq!(
            fields(&gpt, "minimal", &mut ev).unwrap(),
            r#"{"reasoning":{"effort":"low"}}"#
        );
        gpt.obj.insert(
            "thinkingLevelMap",
            crate::js::parse(r#"{"minimal":"minimal","low":null}"#).unwrap(),
        );
        assert_eq!(
            fields(&gpt, "minimal", &mut ev).unwrap(),
            r#"{"reasoning":{"effort":"minimal"}}"#
        );
        assert_eq!(
            fields(&gpt, "low", &mut ev).unwrap(),
            r#"{"reasoning":{"effort":"low"}}"#
        );
        assert_eq!(
            fields(&model("meta.llama3", "Llama"), "high", &mut ev),
            None
        );
        assert_eq!(
            openai_reasoning_fields(&crate::testcase::pi(), &oss, "high", &mut ev),
            None
        );
    }

    #[test]
    fn error_result_images_split() {
        let p = pi16();
        let msg = crate::js::parse(
            r#"{"role":"toolResult","toolCallId":"t1","toolName":"read","isError":true,"content":[{"type":"text","text":"bad"},{"type":"image","data":"AA==","mimeType":"image/png"},{"type":"image","data":"AQ==","mimeType":"image/png"},{"type":"text","text":"(image attached after the tool results)"},{"type":"image","data":"Ag==","mimeType":"image/gif"},{"type":"text","text":"end"},{"type":"image","data":"Aw==","mimeType":"image/png"}]}"#,
        )
        .unwrap();
        let split = crate::messages::split_error_tool_result_images(&p, &msg)
            .unwrap()
            .unwrap();
        let texts: Vec<&str> = split
            .content
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.get_str("text").unwrap())
            .collect();
        assert_eq!(
            texts,
            [
                "bad",
                "(image attached after the tool results)",
                "(image attached after the tool results)",
                "end",
                "(image attached after the tool results)"
            ]
        );
        assert_eq!(split.images.len(), 4);
        assert_eq!(
            split.caption,
            "Images from the error result of tool call t1 (read):"
        );
        let mut ok = msg.clone();
        ok.as_object_mut()
            .unwrap()
            .insert("isError", Value::Bool(false));
        assert!(crate::messages::split_error_tool_result_images(&p, &ok)
            .unwrap()
            .is_none());
    }

    #[test]
    fn user_agents_carry_pi_from_1_4() {
        let captured = "aws-sdk-js/3.1126.0 ua/2.1 os/linux#6.1 lang/js md/nodejs#22.23.5 api/bedrock-runtime#3.1126.0 m/N,E pi/1.6.0";
        let opts = StreamOptions {
            user_agent: captured.into(),
            ..StreamOptions::default()
        };
        let mut ev = Events::default();
        let h = request_headers(&pi16(), &opts, true, &mut ev);
        assert_eq!(h[1].1, "aws-sdk-js/3.1126.0 pi/1.6.0");
        assert_eq!(h[2].1, captured);
        let h = request_headers(&crate::testcase::pi(), &opts, false, &mut ev);
        assert!(!h[1].1.contains("pi/") && h[2].1.ends_with("m/E"));
        // pi-ai's identity names no OS release: the platform alone, said in the trace.
        let identity = StreamOptions {
            user_agent: "pi/1.6.0 (linux; node/v22.23.5; x64)".into(),
            ..StreamOptions::default()
        };
        let mut ev = Events::default();
        let h = request_headers(&pi16(), &identity, true, &mut ev);
        assert!(h[2].1.contains(" os/linux lang/js "));
        assert_eq!(ev.len(), 1);
    }

    #[test]
    fn documents_drop_empty_keys() {
        let v = crate::js::parse(r#"{"":1,"a":[{"":2,"b":3}],"2":4}"#).unwrap();
        assert_eq!(
            sanitize_bedrock_document(&v).to_json(),
            r#"{"2":4,"a":[{"b":3}]}"#
        );
    }
}

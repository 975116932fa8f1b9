//! pi-ai `dist/api/openai-responses-shared.js`: the conversions shared
//! by the three Responses adapters (openai-responses, azure-openai-responses,
//! openai-codex-responses) — messages, tools, tool-call id normalization, reasoning items replayed
//! from stored signatures — plus the helpers those adapters import from elsewhere in pi-ai:
//! deferred tools (`AI/utils/deferred-tools.js`) and the `openai` SDK's header merge. Constrained
//! sampling, the prompt-cache key clamp and the Copilot headers have their own modules
//! ([`super::constrained_sampling`], [`super::openai_prompt_cache`],
//! [`super::github_copilot_headers`]).
//!
//! Values pi reads dynamically (message blocks, signatures, compat flags) stay [`Value`]s so that
//! JS truthiness, `??` and `undefined` keep their meaning: `None` is `undefined`,
//! `Some(Value::Null)` is `null`. Where pi would throw on malformed input, an [`AdapterError`] is
//! returned.

use super::body::{self, Kind, Tag};
use super::constrained_sampling::{
    get_grammar_tool_input, get_json_schema_tool_parameters, grammar_property,
    resolve_grammar_constrained_sampling, resolve_json_schema_strict_sampling, Strict,
};
use super::{err, AdapterError};
use crate::context::LlmContext;
use crate::js::{
    self, join_shared, sanitize_shared, sanitize_surrogates, short_hash, to_js_string, utf16_len,
    Object, Str, Value,
};
use crate::messages;
use crate::model::Model;
use crate::pi::Pi;
use crate::tools::ToolDef;
use crate::trace::{Event, EventKind, Events};
use crate::transcript::{self, ToolChanges};

/// A text pi inserts into bodies (data/pi-0.85.1/strings.json, group `openaiResponsesShared`).
fn text(pi: &Pi, key: &str) -> &'static str {
    pi.data.string("openaiResponsesShared", key)
}

/// Fills `{name}` placeholders of a data template.
fn fill(template: &str, pairs: &[(&str, &str)]) -> String {
    pairs.iter().fold(template.to_string(), |acc, (k, v)| {
        acc.replace(&format!("{{{k}}}"), v)
    })
}

/// `model.compat?.[key] ?? default`, read as JS truthiness where pi tests it with `if`.
pub(crate) fn compat_flag(model: &Model, key: &str, default: bool) -> bool {
    match model.compat_value(key) {
        None | Some(Value::Null) => default,
        Some(v) => v.truthy(),
    }
}

// ---------------------------------------------------------------------------------------------
// AI/utils/deferred-tools.js
// ---------------------------------------------------------------------------------------------

/// The result of `splitDeferredTools`: tools sent up front, and tools loaded later by a tool
/// result's `addedToolNames` (a `Map` by name, in first-seen order).
#[derive(Clone, Debug, Default)]
pub struct ToolPlacement {
    pub immediate: Vec<ToolDef>,
    pub deferred: Vec<(String, ToolDef)>,
}

/// `msg.addedToolNames ?? []` iterated with `for...of`: an array's items, a string's code points.
fn added_tool_names(msg: &Value) -> Result<Vec<Value>, AdapterError> {
    match msg.get("addedToolNames") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => Ok(a.clone()),
        Some(Value::String(s)) => Ok(s
            .chars()
            .map(|c| Value::String(c.to_string().into()))
            .collect()),
        Some(other) => Err(err(format!(
            "msg.addedToolNames is not iterable ({other:?})"
        ))),
    }
}

/// `splitDeferredTools(context, enabled)` (AI/utils/deferred-tools.js:3–34) with the
/// identity name normalizer: tools de-duplicated by name (a later duplicate replaces the value in
/// the first position); when enabled, a tool is deferred if a tool result's `addedToolNames`
/// names it before any assistant tool call used it.
pub fn split_deferred_tools(
    ctx: &LlmContext,
    enabled: bool,
    events: &mut Events,
) -> Result<ToolPlacement, AdapterError> {
    let mut unique: Vec<ToolDef> = Vec::new();
    for tool in ctx.tools() {
        match unique.iter_mut().find(|t| t.name == tool.name) {
            Some(slot) => *slot = tool.clone(),
            None => unique.push(tool.clone()),
        }
    }
    if !enabled {
        return Ok(ToolPlacement {
            immediate: unique,
            deferred: Vec::new(),
        });
    }
    let mut deferred_names: Vec<String> = Vec::new();
    let mut used_names: Vec<String> = Vec::new();
    for message in &ctx.messages {
        match message.get_str("role") {
            Some("assistant") => {
                if let Some(blocks) = message.get("content").and_then(Value::as_array) {
                    for block in blocks
                        .iter()
                        .filter(|b| b.get_str("type") == Some("toolCall"))
                    {
                        used_names.push(to_js_string(block.get("name")));
                    }
                }
            }
            Some("toolResult") => {
                for name in added_tool_names(message)? {
                    let name = to_js_string(Some(&name));
                    if !used_names.contains(&name) && !deferred_names.contains(&name) {
                        deferred_names.push(name);
                    }
                }
            }
            _ => {}
        }
    }
    let mut placement = ToolPlacement::default();
    for tool in unique {
        if deferred_names.contains(&tool.name) {
            events.push(
                Event::new(
                    EventKind::Dropped,
                    format!(
                        "tool {} deferred: a tool result loads it later (addedToolNames)",
                        tool.name
                    ),
                )
                .at("AI/utils/deferred-tools.js:24"),
            );
            placement.deferred.push((tool.name.clone(), tool));
        } else {
            placement.immediate.push(tool);
        }
    }
    Ok(placement)
}

// ---------------------------------------------------------------------------------------------
// Tool conversion
// ---------------------------------------------------------------------------------------------

/// The options of `convertResponsesTools`.
#[derive(Clone, Debug, Default)]
pub struct ToolOptions {
    /// `options.strict`: `None` is undefined (default strict `false`), `Some(Null)` is codex's
    /// `strict: null`.
    pub strict: Option<Value>,
    /// `options.supportsStrictMode` (`?? true` when `None`).
    pub supports_strict_mode: Option<bool>,
    pub supports_grammar_tools: bool,
    pub defer_loading: bool,
}

/// `convertResponsesTools(tools, options)` (AI/api/openai-responses-shared.js:271–304):
/// `{type:"function", name, description, parameters, defer_loading?, strict?}`, or a custom
/// grammar tool.
pub fn convert_responses_tools(
    pi: &Pi,
    tools: &[ToolDef],
    options: &ToolOptions,
    events: &mut Events,
) -> Result<Vec<Value>, AdapterError> {
    let default_strict = options.strict.clone().unwrap_or(Value::Bool(false));
    let supports_strict_mode = options.supports_strict_mode.unwrap_or(true);
    let mut out = Vec::with_capacity(tools.len());
    for tool in tools {
        if let Some(grammar) =
            resolve_grammar_constrained_sampling(tool, options.supports_grammar_tools)?
        {
            let format = Object::new()
                .with("type", "grammar")
                .with("syntax", grammar.format)
                .with("definition", grammar.definition);
            let mut custom = Object::new()
                .with("type", "custom")
                .with("name", tool.name.as_str())
                .with("description", tool.description.as_str())
                .with("format", format.marked(Tag::Schema.mark()))
                .marked(Tag::Tool.mark());
            if options.defer_loading {
                custom.insert("defer_loading", Value::Bool(true));
            }
            events.push(
                Event::new(
                    EventKind::Converted,
                    format!(
                        "tool {} sent as a custom {} grammar tool",
                        tool.name, grammar.format
                    ),
                )
                .at("AI/api/openai-responses-shared.js:277"),
            );
            out.push(custom.into());
            continue;
        }
        let constrained_strict =
            resolve_json_schema_strict_sampling(&Strict::of(pi), tool, supports_strict_mode)?;
        let strict = match constrained_strict {
            Some(b) => Value::Bool(b),
            None => default_strict.clone(),
        };
        let is_strict = strict == Value::Bool(true);
        if is_strict {
            events.push(
                Event::new(
                    EventKind::Converted,
                    format!("tool {} schema made strict (strict: true)", tool.name),
                )
                .at("AI/api/constrained-sampling.js:100"),
            );
        }
        let mut function = Object::new()
            .with("type", "function")
            .with("name", tool.name.as_str())
            .with("description", tool.description.as_str())
            .with(
                "parameters",
                body::marked(
                    get_json_schema_tool_parameters(&Strict::of(pi), tool, is_strict)?,
                    Tag::Schema,
                ),
            )
            .marked(Tag::Tool.mark());
        if options.defer_loading {
            function.insert("defer_loading", Value::Bool(true));
        }
        if supports_strict_mode {
            function.insert("strict", strict);
        }
        out.push(function.into());
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Message conversion
// ---------------------------------------------------------------------------------------------

/// The options of `convertResponsesMessages`.
#[derive(Clone, Debug, Default)]
pub struct ConvertOptions<'a> {
    /// 0.85: `options.includeSystemPrompt ?? true` (codex passes false: the prompt goes to
    /// `instructions`). From 0.86 the system messages are always input items.
    pub include_system_prompt: bool,
    /// 0.86.0 until 1.6.0 (codex: `includeSystemPrompt: false`, the leading system message's
    /// text goes to `instructions`; 1.5.2/AI/api/openai-codex-responses.js:386): the leading
    /// system message's tool additions are anchored, but no item carries its text.
    pub skip_leading_system_message: bool,
    pub grammar_tool_input_properties: &'a [(String, String)],
    /// 0.85: `options.deferredTools` (a Map by name), `None` when not passed.
    pub deferred_tools: Option<&'a [(String, ToolDef)]>,
    /// 0.85: `"additional-tools"`, `"tool-search"` or `None`.
    pub deferred_tools_mode: Option<&'static str>,
    pub tool_options: ToolOptions,
    /// 0.86 on: `options.supportsMidConvoSystemMessages` (system messages kept in place, else
    /// collapsed into one leading message).
    pub supports_mid_convo_system_messages: bool,
    /// 1.4.0 on: `options.supportsAdditionalTools` and `options.supportsToolSearch`, read by
    /// [`tool_support`].
    pub supports_additional_tools: bool,
    pub supports_tool_search: bool,
    /// 1.3.0 on: `options.configurationUpdateEffort`: `Some` sends the thinking
    /// level as `configuration_update` items.
    pub configuration_update_effort: Option<Value>,
}

/// A trace note on where the transcript's tools go.
fn note_tool_support(support: ToolChanges, top_level: usize, events: &mut Events) {
    let what = match support {
        ToolChanges::Changes => "tool support \"changes\": every system message declares its tools in additional_tools items, no top-level tools".to_string(),
        ToolChanges::Additions => format!("tool support \"additions\": {top_level} top-level tools (the state after the last removal or redefinition), later additions as synthetic tool searches"),
        ToolChanges::None => format!("tool support \"none\": the {top_level} current tools at the top level"),
    };
    events.push(Event::new(EventKind::Note, what).at("1.6.0/AI/api/openai-responses-shared.js:74"));
}

/// `getResponsesToolSupport(options)` (1.6.0/AI/api/openai-responses-shared.js:74–78):
/// "changes" needs system messages and `additional_tools` mid-conversation; tool search alone
/// gives "additions" (which, with the transcript collapsed, folds everything like "none").
pub fn tool_support(pi: &Pi, options: &ConvertOptions) -> ToolChanges {
    if !pi.rules.responses.anchored_tool_changes {
        ToolChanges::None
    } else if !pi.rules.responses.tool_change_notices {
        // Until 1.4.0: `supportsAdditionalTools || supportsToolSearch` anchors additions
        // (1.3.0/AI/api/openai-responses-shared.js:91), as additional_tools items or tool search.
        if options.supports_additional_tools || options.supports_tool_search {
            ToolChanges::Additions
        } else {
            ToolChanges::None
        }
    } else if options.supports_mid_convo_system_messages && options.supports_additional_tools {
        ToolChanges::Changes
    } else if options.supports_tool_search {
        ToolChanges::Additions
    } else {
        ToolChanges::None
    }
}

impl ConvertOptions<'_> {
    fn deferred_tool(&self, name: &Value) -> Option<&ToolDef> {
        let name = name.as_str()?;
        self.deferred_tools?
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t)
    }
}

/// A text block's `textSignature`, parsed.
#[derive(Clone, Debug, PartialEq)]
struct TextSignature {
    id: String,
    phase: Option<String>,
}

/// `parseTextSignature(signature)` (AI/api/openai-responses-shared.js:16–34): the v1 JSON form
/// `{"v":1,"id","phase"?}` (phase kept only for commentary / final_answer), else the legacy
/// plain-string id.
fn parse_text_signature(signature: Option<&Value>) -> Result<Option<TextSignature>, AdapterError> {
    let Some(sig) = signature.filter(|s| s.truthy()) else {
        return Ok(None);
    };
    let Value::String(sig) = sig else {
        return Err(err(format!(
            "signature.startsWith is not a function ({sig:?})"
        )));
    };
    if sig.starts_with('{') {
        if let Ok(parsed) = js::parse(sig) {
            if parsed.get("v") == Some(&Value::Number(1.0)) {
                if let Some(id) = parsed.get_str("id") {
                    let phase = parsed
                        .get_str("phase")
                        .filter(|p| *p == "commentary" || *p == "final_answer")
                        .map(String::from);
                    return Ok(Some(TextSignature {
                        id: id.to_string(),
                        phase,
                    }));
                }
            }
        }
    }
    Ok(Some(TextSignature {
        id: sig.to_string(),
        phase: None,
    }))
}

/// `sanitizeSurrogates(value)` on a member pi assumes is a string (`.replace` throws otherwise).
fn sanitized_str(value: Option<&Value>, what: &str) -> Result<String, AdapterError> {
    match value {
        Some(Value::String(s)) => Ok(sanitize_surrogates(s).into_owned()),
        other => Err(err(format!(
            "Cannot read properties of {what}: text.replace is not a function ({})",
            to_js_string(other)
        ))),
    }
}

/// `data:${mimeType};base64,${data}`.
fn image_data_url(block: &Value) -> String {
    format!(
        "data:{};base64,{}",
        to_js_string(block.get("mimeType")),
        to_js_string(block.get("data"))
    )
}

fn input_image(block: &Value) -> Value {
    body::like(Object::new(), block)
        .with("type", "input_image")
        .with("detail", "auto")
        .with("image_url", image_data_url(block))
        .into()
}

/// `convertToolResultOutput(model, content)` (AI/api/openai-responses-shared.js:35–57):
/// the texts joined with "\n" as a string, or — when there are images and the model has vision —
/// `[input_text?, input_image...]`.
fn convert_tool_result_output(
    pi: &Pi,
    model: &Model,
    msg: &Value,
    label: &str,
    events: &mut Events,
) -> Result<Value, AdapterError> {
    let Some(Value::Array(content)) = msg.get("content") else {
        return Err(err(format!("{label}: content.filter is not a function")));
    };
    if content.iter().any(Value::is_null) {
        return Err(err(format!(
            "{label}: Cannot read properties of null (reading 'type')"
        )));
    }
    let text_result = join_shared(
        &content
            .iter()
            .filter(|c| c.get_str("type") == Some("text"))
            .map(|c| c.get("text"))
            .collect::<Vec<_>>(),
        text(pi, "toolResultTextJoin"),
    );
    let images: Vec<&Value> = content
        .iter()
        .filter(|c| c.get_str("type") == Some("image"))
        .collect();
    // 1.4.0: whitespace-only text counts as none.
    let has_text = if pi.rules.responses.blank_tool_result_is_empty {
        !js::js_trim(&text_result).is_empty()
    } else {
        // `textResult.length > 0`: any text at all.
        !text_result.is_empty()
    };
    if images.is_empty() || !model.supports_images() {
        let out: Str = if has_text {
            text_result
        } else if !images.is_empty() {
            events.push(
                Event::new(
                    EventKind::Replaced,
                    format!(
                        "{label}: image-only result sent as {:?}",
                        text(pi, "toolResultImageOnly")
                    ),
                )
                .at("AI/api/openai-responses-shared.js:43"),
            );
            text(pi, "toolResultImageOnly").into()
        } else {
            events.push(
                Event::new(
                    EventKind::Inserted,
                    format!(
                        "{label}: empty result sent as {:?}",
                        text(pi, "toolResultEmpty")
                    ),
                )
                .at("AI/api/openai-responses-shared.js:43"),
            );
            text(pi, "toolResultEmpty").into()
        };
        return Ok(Value::String(sanitize_shared(&out)));
    }
    let mut output = Vec::with_capacity(images.len() + 1);
    if has_text {
        output.push(
            body::text_of(Object::new(), msg)
                .with("type", "input_text")
                .with("text", sanitize_shared(&text_result))
                .into(),
        );
    }
    output.extend(images.into_iter().map(input_image));
    events.push(
        Event::new(
            EventKind::Converted,
            format!(
                "{label}: output sent as an array with {} image(s)",
                output.len() - usize::from(has_text)
            ),
        )
        .at("AI/api/openai-responses-shared.js:45"),
    );
    Ok(Value::Array(output))
}

/// `normalizeIdPart(part)` (AI/api/openai-responses-shared.js:64–68): every UTF-16 unit outside
/// `[a-zA-Z0-9_-]` becomes `_`, truncated to 64, trailing `_` stripped.
fn normalize_id_part(part: &str) -> String {
    let mut sanitized = super::sanitize_tool_call_id(part);
    // All ASCII now: bytes are UTF-16 units.
    sanitized.truncate(64);
    sanitized.trim_end_matches('_').to_string()
}

/// `buildForeignResponsesItemId(itemId)` (AI/api/openai-responses-shared.js:69–72).
fn build_foreign_responses_item_id(pi: &Pi, item_id: &str) -> String {
    let normalized = fill(
        text(pi, "foreignItemId"),
        &[("shortHash", &short_hash(item_id))],
    );
    if utf16_len(&normalized) > 64 {
        js::js_slice(&normalized, 0, Some(64))
    } else {
        normalized
    }
}

/// `id.split("|")` destructured as `[first, second]`.
fn split_pipe(id: &str) -> (&str, Option<&str>) {
    let mut parts = id.split('|');
    let first = parts.next().unwrap_or("");
    (first, parts.next())
}

/// `normalizeToolCallId(id, _targetModel, source)` (AI/api/openai-responses-shared.js:73–87):
/// providers outside `allowed` or ids without `|` get `normalizeIdPart(id)` (the `|`
/// becomes `_`); otherwise `callId|itemId`, with a foreign source's item id hashed to `fc_…`
/// and the `fc_` prefix enforced.
pub fn normalize_tool_call_id(
    pi: &Pi,
    id: &str,
    model: &Model,
    source: &Value,
    allowed_providers: &[&str],
) -> String {
    if !allowed_providers.contains(&model.provider()) || !id.contains('|') {
        return normalize_id_part(id);
    }
    let (call_id, item_id) = split_pipe(id);
    let item_id = item_id.unwrap_or("");
    let normalized_call_id = normalize_id_part(call_id);
    let is_foreign = source.get_str("provider") != Some(model.provider())
        || source.get_str("api") != Some(model.api());
    let mut normalized_item_id = if is_foreign {
        build_foreign_responses_item_id(pi, item_id)
    } else {
        normalize_id_part(item_id)
    };
    if !normalized_item_id.starts_with("fc_") {
        normalized_item_id = normalize_id_part(&format!("fc_{normalized_item_id}"));
    }
    format!("{normalized_call_id}|{normalized_item_id}")
}

/// 0.86 on, the three Responses adapters' input and tools from the transcript: the tools it
/// declares for this request (`resolveTools` with what the model supports, a note when it cannot
/// take them natively) and the converted input items.
pub fn transcript_input_and_tools(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    allowed_providers: &[&str],
    options: &ConvertOptions,
    events: &mut Events,
) -> Result<(Vec<Value>, Vec<ToolDef>), AdapterError> {
    let support = tool_support(pi, options);
    let (tools, _) = transcript::resolve_tools(
        &ctx.messages,
        support,
        pi.rules.tool_changes_fold_after_last_change,
    );
    let input = convert_responses_messages(pi, model, ctx, allowed_providers, options, events)?;
    note_tool_support(support, tools.len(), events);
    let tools = tools
        .iter()
        .map(transcript::tool_from_declaration)
        .collect();
    Ok((input, tools))
}

/// `convertResponsesMessages(model, context, allowedToolCallProviders, options)`
/// (AI/api/openai-responses-shared.js:61–267; 1.6.0/AI/api/openai-responses-shared.js:92–331):
/// `transformMessages` with this module's id normalizer, then per message: the system prompt as
/// a developer/system message (from 0.86 every system message of the transcript, collapsed
/// or kept in place, with the tool changes it anchors), users, assistants —
/// reasoning items replayed from signatures, output_text messages, function calls, a
/// `configuration_update` before a same-model reply — and tool results (in 0.85
/// with deferred-tool loading). `msgIndex` counts the messages not skipped, from 0.86 not the
/// leading system message.
pub fn convert_responses_messages(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    allowed_providers: &[&str],
    options: &ConvertOptions,
    events: &mut Events,
) -> Result<Vec<Value>, AdapterError> {
    let support = tool_support(pi, options);
    let (transformed, folded) =
        transform_transcript(pi, model, ctx, allowed_providers, options, support, events);
    let developer = model.reasoning()
        && model.compat_value("supportsDeveloperRole") != Some(&Value::Bool(false));
    let instruction_role = if developer { "developer" } else { "system" };

    let mut messages: Vec<Value> = Vec::new();
    let mut loaded_tool_names: Vec<String> = Vec::new();
    if !ctx.is_transcript() && options.include_system_prompt && !ctx.system_prompt().is_empty() {
        messages.push(system_prompt_message(ctx, instruction_role, events));
    }

    let mut tool_changes = AnchoredToolChanges {
        support,
        instruction_role,
        declared_additional_tools: false,
        unavailable: Vec::new(),
    };
    let mut msg_index: usize = 0;
    let mut system_index: usize = 0;
    for (i, msg) in transformed.iter().enumerate() {
        let label = format!("message {i}");
        let leading = ctx.is_transcript() && i == 0 && msg.get_str("role") == Some("system");
        match msg.get_str("role") {
            Some("system") if ctx.is_transcript() => {
                // transformMessages keeps system messages in order, so this index is the
                // transcript's.
                let anchors = system_index >= folded;
                system_index += 1;
                convert_system_message(
                    pi,
                    msg,
                    leading,
                    anchors,
                    msg_index,
                    &mut tool_changes,
                    options,
                    &mut messages,
                    &label,
                    events,
                )?;
            }
            Some("user") => match convert_user_message(msg, &label, events)? {
                Some(user) => messages.push(user),
                None => continue,
            },
            Some("assistant") => {
                let output =
                    convert_assistant_message(pi, model, msg, msg_index, options, &label, events)?;
                if output.is_empty() {
                    events.push(
                        Event::new(
                            EventKind::Dropped,
                            format!("{label}: assistant message with no output items"),
                        )
                        .at("AI/api/openai-responses-shared.js:206"),
                    );
                    continue;
                }
                messages.extend(reply_configuration_update(
                    model, msg, options, &label, events,
                ));
                messages.extend(output);
            }
            Some("toolResult") => {
                let Some(tool_call_id) = msg.get_str("toolCallId") else {
                    return Err(err(format!(
                        "{label}: msg.toolCallId.split is not a function"
                    )));
                };
                messages.push(convert_tool_result(
                    pi,
                    model,
                    msg,
                    tool_call_id,
                    options,
                    &label,
                    events,
                )?);
                let deferred = newly_added_tools(pi, msg, options, &mut loaded_tool_names)?;
                if !deferred.is_empty() {
                    load_deferred_tools(
                        pi,
                        tool_call_id,
                        &deferred,
                        options,
                        &mut messages,
                        &label,
                        events,
                    )?;
                }
            }
            _ => {}
        }
        if !leading {
            msg_index += 1;
        }
    }
    messages.extend(final_configuration_update(options, events));
    Ok(messages)
}

/// `resolveTranscript(context, options?.supportsMidConvoSystemMessages)` (0.86 on) then
/// `transformMessages(messages, model, normalizeToolCallId)`; with the number of system messages
/// whose tool changes are folded into the top-level tools (`resolveTranscriptTools`).
fn transform_transcript(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    allowed_providers: &[&str],
    options: &ConvertOptions,
    support: ToolChanges,
    events: &mut Events,
) -> (Vec<Value>, usize) {
    // 0.86 on: `resolveTranscript(context, options?.supportsMidConvoSystemMessages)` (:93).
    let resolved;
    let source: &[Value] = if ctx.is_transcript() {
        resolved = transcript::resolve(
            pi,
            &ctx.messages,
            options.supports_mid_convo_system_messages,
        );
        &resolved
    } else {
        &ctx.messages
    };
    // transformMessages records each id it changes.
    let normalize = |id: &str, target: &Model, source: &Value| {
        normalize_tool_call_id(pi, id, target, source, allowed_providers)
    };
    let transformed =
        messages::transform_messages(pi, source, model, Some(&normalize), 0.0, events);
    let folded = transcript::resolve_tools(
        source,
        support,
        pi.rules.tool_changes_fold_after_last_change,
    )
    .1;
    (transformed, folded)
}

/// 0.85 (`includeSystemPrompt` and a system prompt; shared :89–97): `{role:
/// instructionRole, content: sanitizeSurrogates(context.systemPrompt)}`.
fn system_prompt_message(ctx: &LlmContext, instruction_role: &str, events: &mut Events) -> Value {
    events.push(
        Event::new(
            EventKind::Note,
            format!(
                "system prompt sent as a {instruction_role:?} input message{}",
                if instruction_role == "developer" {
                    " (reasoning model)"
                } else {
                    ""
                }
            ),
        )
        .at("AI/api/openai-responses-shared.js:90"),
    );
    Object::new()
        .with("role", instruction_role)
        .with(
            "content",
            sanitize_surrogates(ctx.system_prompt()).into_owned(),
        )
        .marked(Tag::System.mark())
        .into()
}

/// The user branch of `convertResponsesMessages` (shared :100–128): a string as one
/// `input_text`, an array's parts as `input_text` / `input_image`. `None` when pi skips it (an
/// empty array).
fn convert_user_message(
    msg: &Value,
    label: &str,
    events: &mut Events,
) -> Result<Option<Value>, AdapterError> {
    match msg.get("content") {
        Some(Value::String(s)) => {
            let part = body::text_of(Object::new(), msg)
                .with("type", "input_text")
                .with("text", sanitize_surrogates(s).into_owned());
            Ok(Some(
                body::message_like(Object::new(), msg)
                    .with("role", "user")
                    .with("content", Value::Array(vec![part.into()]))
                    .into(),
            ))
        }
        Some(Value::Array(items)) => {
            let mut content = Vec::with_capacity(items.len());
            for item in items {
                if item.is_null() {
                    return Err(err(format!(
                        "{label}: Cannot read properties of null (reading 'type')"
                    )));
                }
                if item.get_str("type") == Some("text") {
                    let text = sanitized_str(item.get("text"), label)?;
                    content.push(
                        body::like(Object::new(), item)
                            .with("type", "input_text")
                            .with("text", text)
                            .into(),
                    );
                } else {
                    content.push(input_image(item));
                }
            }
            if content.is_empty() {
                events.push(
                    Event::new(
                        EventKind::Dropped,
                        format!("{label}: user message with empty content"),
                    )
                    .at("AI/api/openai-responses-shared.js:121"),
                );
                return Ok(None);
            }
            Ok(Some(
                body::message_like(Object::new(), msg)
                    .with("role", "user")
                    .with("content", Value::Array(content))
                    .into(),
            ))
        }
        other => Err(err(format!(
            "{label}: msg.content.map is not a function ({})",
            to_js_string(other)
        ))),
    }
}

/// 1.3.0 on: `pushConfigurationUpdate(msg.providerThinkingLevel)` before a reply of this
/// model, when the thinking level goes in `configuration_update` items.
fn reply_configuration_update(
    model: &Model,
    msg: &Value,
    options: &ConvertOptions,
    label: &str,
    events: &mut Events,
) -> Option<Value> {
    if options.configuration_update_effort.is_none() || !is_same_model(model, msg) {
        return None;
    }
    let level = msg.get("providerThinkingLevel")?;
    events.push(
        Event::new(
            EventKind::Inserted,
            format!(
                "{label}: configuration_update with the level this reply was made at ({})",
                level.to_json()
            ),
        )
        .at("1.6.0/AI/api/openai-responses-shared.js:300"),
    );
    Some(configuration_update(level.clone()))
}

/// The toolResult branch of `convertResponsesMessages` (shared :210–226): a
/// `function_call_output` (`custom_tool_call_output` for a grammar tool) with the call id before
/// the `|` and `convertToolResultOutput`.
fn convert_tool_result(
    pi: &Pi,
    model: &Model,
    msg: &Value,
    tool_call_id: &str,
    options: &ConvertOptions,
    label: &str,
    events: &mut Events,
) -> Result<Value, AdapterError> {
    let (call_id, _) = split_pipe(tool_call_id);
    let output = convert_tool_result_output(pi, model, msg, label, events)?;
    let kind = if grammar_property(
        options.grammar_tool_input_properties,
        msg.get_str("toolName"),
    )
    .is_some()
    {
        "custom_tool_call_output"
    } else {
        "function_call_output"
    };
    Ok(body::message_like(Object::new(), msg)
        .with("type", kind)
        .with("call_id", call_id)
        .with("output", output)
        .into())
}

/// 0.85: the deferred tools a tool result's `addedToolNames` names that are not in
/// `loadedToolNames` yet (they are added to it), to load after the result; none from 0.86.
fn newly_added_tools(
    pi: &Pi,
    msg: &Value,
    options: &ConvertOptions,
    loaded_tool_names: &mut Vec<String>,
) -> Result<Vec<ToolDef>, AdapterError> {
    if pi.rules.responses.anchored_tool_changes {
        // 0.86 on: tools load at the system message that declares them.
        return Ok(Vec::new());
    }
    let mut deferred: Vec<ToolDef> = Vec::new();
    for name in added_tool_names(msg)? {
        let Some(tool) = options.deferred_tool(&name) else {
            continue;
        };
        if loaded_tool_names.contains(&tool.name) {
            continue;
        }
        loaded_tool_names.push(tool.name.clone());
        deferred.push(tool.clone());
    }
    Ok(deferred)
}

/// 1.3.0 on: `pushConfigurationUpdate(options.configurationUpdateEffort)` after the last
/// message, this request's thinking level.
fn final_configuration_update(options: &ConvertOptions, events: &mut Events) -> Option<Value> {
    let effort = options.configuration_update_effort.as_ref()?;
    events.push(
        Event::new(
            EventKind::Inserted,
            format!(
                "configuration_update at the end: this request's thinking level ({})",
                effort.to_json()
            ),
        )
        .at("1.6.0/AI/api/openai-responses-shared.js:328"),
    );
    Some(configuration_update(effort.clone()))
}

/// `pushConfigurationUpdate(effort)` (1.6.0/AI/api/openai-responses-shared.js:162–167).
fn configuration_update(effort: Value) -> Value {
    Object::new()
        .with("type", "configuration_update")
        .with("reasoning", Object::new().with("effort", effort))
        .into()
}

/// `isSameModel`: the reply came from this provider, api and model id.
fn is_same_model(model: &Model, msg: &Value) -> bool {
    msg.get_str("provider") == Some(model.provider())
        && msg.get_str("api") == Some(model.api())
        && msg.get_str("model") == Some(model.id())
}

/// The state of `appendSystemToolAdditions` across the system messages.
struct AnchoredToolChanges {
    support: ToolChanges,
    instruction_role: &'static str,
    /// `declaredAdditionalTools`: an `additional_tools` item was sent (the next one gets the
    /// incremental notice first).
    declared_additional_tools: bool,
    /// `unavailableTools`: tools announced as removed and not declared again since, a Set in
    /// insertion order.
    unavailable: Vec<String>,
}

/// A tool name as a JS Set key would print it.
fn tool_name(t: &Value) -> String {
    to_js_string(t.get("name"))
}

/// `msg.toolsAdded ?? []` / `msg.toolsRemoved ?? []` (pi iterates them; a non-array throws).
fn tool_list<'v>(msg: &'v Value, key: &str, label: &str) -> Result<&'v [Value], AdapterError> {
    match msg.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(other) => Err(err(format!(
            "{label}: {key} is not iterable ({})",
            to_js_string(Some(other))
        ))),
    }
}

/// A system message of the transcript (1.6.0/AI/api/openai-responses-shared.js:175–195):
/// first the tool changes it anchors (past the folded ones), then its text — the
/// leading message's whole prompt (`getSystemMessageText`), a later one's update
/// (`renderSystemMessageUpdate`) — with the removal notice, as one `developer`/`system` item.
#[allow(clippy::too_many_arguments)]
fn convert_system_message(
    pi: &Pi,
    msg: &Value,
    leading: bool,
    anchors: bool,
    msg_index: usize,
    state: &mut AnchoredToolChanges,
    options: &ConvertOptions,
    messages: &mut Vec<Value>,
    label: &str,
    events: &mut Events,
) -> Result<(), AdapterError> {
    let added = tool_list(msg, "toolsAdded", label)?;
    if anchors {
        let seed = fill(
            text(pi, "toolSearchSeed"),
            &[("msgIndex", &msg_index.to_string())],
        );
        append_system_tool_additions(pi, added, &seed, state, options, messages, label, events)?;
    }
    if leading && options.skip_leading_system_message {
        return Ok(());
    }
    let mut parts = vec![if leading {
        transcript::system_message_text(pi, msg)
    } else {
        transcript::render_system_message_update(pi, msg)
    }];
    if anchors && pi.rules.responses.tool_change_notices {
        // A redefinition is a removal plus an addition of the same name: only true removals
        // are announced.
        let added_names: Vec<String> = added.iter().map(tool_name).collect();
        let removed: Vec<String> = tool_list(msg, "toolsRemoved", label)?
            .iter()
            .map(tool_name)
            .filter(|n| !added_names.contains(n))
            .collect();
        if !removed.is_empty() {
            let items: Vec<String> = removed
                .iter()
                .map(|n| format!("{}{n}", text(pi, "toolRemovalNoticeItemPrefix")))
                .collect();
            parts.push(format!(
                "{}{}",
                text(pi, "toolRemovalNoticePrefix"),
                items.join(text(pi, "toolRemovalNoticeJoin"))
            ));
            events.push(
                Event::new(
                    EventKind::Inserted,
                    format!(
                        "{label}: removal of {} announced as text (a Responses tool cannot be removed)",
                        removed.join(", ")
                    ),
                )
                .at("1.6.0/AI/api/openai-responses-shared.js:186"),
            );
        }
        for name in removed {
            if !state.unavailable.contains(&name) {
                state.unavailable.push(name);
            }
        }
    }
    parts.retain(|p| !p.is_empty());
    // One part needs no separator (1.3.0 has only the message's text, and no separator string).
    let joined = match parts.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        _ => parts.join(text(pi, "systemPartsJoin")),
    };
    if joined.is_empty() {
        events.push(
            Event::new(
                EventKind::Dropped,
                format!("{label}: system message with no text: no input item"),
            )
            .at("1.6.0/AI/api/openai-responses-shared.js:192"),
        );
        return Ok(());
    }
    events.push(
        Event::new(
            EventKind::Note,
            if leading {
                format!(
                    "{label}: the system prompt sent as a {:?} input item",
                    state.instruction_role
                )
            } else {
                format!(
                    "{label}: system message kept in place as a {:?} input item",
                    state.instruction_role
                )
            },
        )
        .at("1.6.0/AI/api/openai-responses-shared.js:193"),
    );
    messages.push(
        Object::new()
            .with("role", state.instruction_role)
            .with("content", sanitize_surrogates(&joined).into_owned())
            .marked(Tag::System.mark())
            .into(),
    );
    Ok(())
}

/// `appendSystemToolAdditions(message, seed)` (1.6.0/AI/api/openai-responses-shared.js:125–161):
/// the tools a system message adds, as an `additional_tools` item (after the
/// incremental notice when one was sent before) in "changes" mode, or as a client-executed
/// `tool_search_call` + `tool_search_output` pair in "additions" mode.
#[allow(clippy::too_many_arguments)]
fn append_system_tool_additions(
    pi: &Pi,
    added: &[Value],
    seed: &str,
    state: &mut AnchoredToolChanges,
    options: &ConvertOptions,
    messages: &mut Vec<Value>,
    label: &str,
    events: &mut Events,
) -> Result<(), AdapterError> {
    for t in added {
        let name = tool_name(t);
        state.unavailable.retain(|n| *n != name);
    }
    if added.is_empty() {
        return Ok(());
    }
    let tools: Vec<ToolDef> = added
        .iter()
        .map(transcript::tool_from_declaration)
        .collect();
    let names: Vec<String> = added.iter().map(tool_name).collect();
    match state.support {
        ToolChanges::Changes => {
            if state.declared_additional_tools {
                let mut notice = text(pi, "incrementalToolsNotice").to_string();
                if !state.unavailable.is_empty() {
                    notice.push_str(text(pi, "stillUnavailablePrefix"));
                    notice.push_str(&state.unavailable.join(text(pi, "stillUnavailableJoin")));
                    notice.push_str(text(pi, "stillUnavailableSuffix"));
                }
                messages.push(
                    Object::new()
                        .with("role", state.instruction_role)
                        .with("content", notice)
                        .marked(Tag::System.mark())
                        .into(),
                );
            }
            state.declared_additional_tools = true;
            let converted = convert_responses_tools(pi, &tools, &options.tool_options, events)?;
            messages.push(
                Object::new()
                    .with("type", "additional_tools")
                    .with("role", "developer")
                    .with("tools", Value::Array(converted))
                    .into(),
            );
            events.push(
                Event::new(
                    EventKind::Inserted,
                    format!(
                        "{label}: additional_tools item declares {}",
                        names.join(", ")
                    ),
                )
                .at("1.6.0/AI/api/openai-responses-shared.js:136"),
            );
        }
        ToolChanges::Additions
            if !pi.rules.responses.tool_change_notices && options.supports_additional_tools =>
        {
            // Until 1.4.0: an additional_tools item per anchored system message, no notice
            // (1.3.0/AI/api/openai-responses-shared.js:96–102).
            let converted = convert_responses_tools(pi, &tools, &options.tool_options, events)?;
            messages.push(
                Object::new()
                    .with("type", "additional_tools")
                    .with("role", "developer")
                    .with("tools", Value::Array(converted))
                    .into(),
            );
            events.push(Event::new(
                EventKind::Inserted,
                format!(
                    "{label}: additional_tools item declares {}",
                    names.join(", ")
                ),
            ));
        }
        ToolChanges::Additions => {
            let hash_input = fill(
                text(pi, "toolSearchCallIdHashInput"),
                &[
                    ("seed", seed),
                    ("names", &names.join(text(pi, "toolSearchCallIdNamesJoin"))),
                ],
            );
            let call_id = fill(
                text(pi, "toolSearchCallId"),
                &[("shortHash", &short_hash(&hash_input))],
            );
            let arguments = Object::new()
                .with("query", names.join(text(pi, "toolSearchQueryJoin")))
                .with("limit", names.len());
            messages.push(
                Object::new()
                    .with("type", "tool_search_call")
                    .with("call_id", call_id.as_str())
                    .with("execution", "client")
                    .with("status", "completed")
                    .with("arguments", arguments)
                    .into(),
            );
            let tool_options = ToolOptions {
                defer_loading: true,
                ..options.tool_options.clone()
            };
            let converted = convert_responses_tools(pi, &tools, &tool_options, events)?;
            messages.push(
                Object::new()
                    .with("type", "tool_search_output")
                    .with("call_id", call_id.as_str())
                    .with("execution", "client")
                    .with("status", "completed")
                    .with("tools", Value::Array(converted))
                    .into(),
            );
            events.push(
                Event::new(
                    EventKind::Inserted,
                    format!(
                        "{label}: tool_search_call + tool_search_output load {} (call id {call_id:?} = shortHash({hash_input:?}))",
                        names.join(", ")
                    ),
                )
                .at("1.6.0/AI/api/openai-responses-shared.js:146"),
            );
        }
        ToolChanges::None => {}
    }
    Ok(())
}

/// The assistant branch of `convertResponsesMessages` (AI/api/openai-responses-shared.js:
/// 129–209).
fn convert_assistant_message(
    pi: &Pi,
    model: &Model,
    msg: &Value,
    msg_index: usize,
    options: &ConvertOptions,
    label: &str,
    events: &mut Events,
) -> Result<Vec<Value>, AdapterError> {
    let blocks: &[Value] = match msg.get("content") {
        Some(Value::Array(a)) => a,
        // `for...of` over a string yields characters, which have no `type`.
        Some(Value::String(_)) => &[],
        other => {
            return Err(err(format!(
                "{label}: msg.content is not iterable ({})",
                to_js_string(other)
            )))
        }
    };
    let same_provider_and_api = msg.get_str("provider") == Some(model.provider())
        && msg.get_str("api") == Some(model.api());
    let same_model = same_provider_and_api && msg.get_str("model") == Some(model.id());
    let different_model = same_provider_and_api && msg.get_str("model") != Some(model.id());
    let mut a = AssistantItems {
        pi,
        msg,
        msg_index,
        label,
        output: Vec::new(),
        text_block_index: 0,
    };
    for (k, block) in blocks.iter().enumerate() {
        if block.is_null() {
            return Err(err(format!(
                "{label}: Cannot read properties of null (reading 'type')"
            )));
        }
        match block.get_str("type") {
            Some("thinking") => a.thinking(k, block, events)?,
            Some("text") => a.text(k, block, events)?,
            Some("toolCall") => a.output.push(convert_tool_call(
                pi,
                block,
                same_model,
                different_model,
                options,
                label,
                k,
                events,
            )?),
            _ => {}
        }
    }
    Ok(a.output)
}

/// An assistant message's items so far, and what its blocks become items with (:130–135).
struct AssistantItems<'a> {
    pi: &'a Pi,
    msg: &'a Value,
    msg_index: usize,
    label: &'a str,
    output: Vec<Value>,
    /// `textBlockIndex`.
    text_block_index: usize,
}

impl AssistantItems<'_> {
    /// A thinking block (AI/api/openai-responses-shared.js:137–142): its stored reasoning item.
    fn thinking(
        &mut self,
        k: usize,
        block: &Value,
        events: &mut Events,
    ) -> Result<(), AdapterError> {
        let label = self.label;
        let Some(signature) = block.get("thinkingSignature").filter(|s| s.truthy()) else {
            events.push(
                Event::new(
                    EventKind::Dropped,
                    format!("{label} block {k}: thinking without a signature"),
                )
                .at("AI/api/openai-responses-shared.js:138"),
            );
            return Ok(());
        };
        let source = to_js_string(Some(signature));
        let item = js::parse(&source).map_err(|e| {
            err(format!("{label} block {k}: thinkingSignature is not JSON ({}): JSON.parse throws and the request fails", e.message))
        })?;
        events.push(
            Event::new(
                EventKind::Converted,
                format!("{label} block {k}: thinking replayed as the stored reasoning item"),
            )
            .at("AI/api/openai-responses-shared.js:139"),
        );
        // The stored reasoning item: its summary texts are reasoning, its encrypted
        // content a signature.
        let llm = body::tag_of(block)
            .and_then(Tag::llm)
            .unwrap_or(body::NO_MESSAGE);
        let mut item = item;
        if let Some(o) = item.as_object_mut() {
            o.set_mark(
                Tag::Message {
                    llm,
                    kind: Kind::Reasoning,
                }
                .mark(),
            );
            if let Some(Value::Array(summary)) = o.get_mut("summary") {
                for part in summary.iter_mut() {
                    body::mark(
                        part,
                        Tag::Block {
                            llm,
                            kind: Kind::Reasoning,
                        },
                    );
                }
            }
        }
        self.output.push(item);
        Ok(())
    }

    /// A text block (AI/api/openai-responses-shared.js:143–164): an assistant `message` item.
    fn text(&mut self, k: usize, block: &Value, events: &mut Events) -> Result<(), AdapterError> {
        let (pi, msg, msg_index, label) = (self.pi, self.msg, self.msg_index, self.label);
        let parsed = parse_text_signature(block.get("textSignature"))?;
        let fallback = if self.text_block_index == 0 {
            fill(
                text(pi, "fallbackMessageIdFirst"),
                &[("msgIndex", &msg_index.to_string())],
            )
        } else {
            fill(
                text(pi, "fallbackMessageIdNext"),
                &[
                    ("msgIndex", &msg_index.to_string()),
                    ("textBlockIndex", &self.text_block_index.to_string()),
                ],
            )
        };
        self.text_block_index += 1;
        let msg_id = match parsed.as_ref().map(|p| p.id.as_str()) {
            None | Some("") => {
                events.push(
                    Event::new(
                        EventKind::Inserted,
                        format!("{label} block {k}: no text signature, message id {fallback:?}"),
                    )
                    .at("AI/api/openai-responses-shared.js:146"),
                );
                fallback
            }
            Some(id) if utf16_len(id) > 64 => {
                let short = fill(text(pi, "longMessageId"), &[("shortHash", &short_hash(id))]);
                events.push(
                    Event::new(
                        EventKind::Renamed,
                        format!("{label} block {k}: message id over 64 chars → {short:?}"),
                    )
                    .at("AI/api/openai-responses-shared.js:153"),
                );
                short
            }
            Some(id) => id.to_string(),
        };
        let text_value = sanitized_str(block.get("text"), label)?;
        let part = body::like(Object::new(), block)
            .with("type", "output_text")
            .with("text", text_value)
            .with("annotations", Value::Array(Vec::new()));
        let mut item = body::message_like(Object::new(), msg)
            .with("type", "message")
            .with("role", "assistant")
            .with("content", Value::Array(vec![part.into()]))
            .with("status", "completed")
            .with("id", msg_id);
        item.insert_opt("phase", parsed.and_then(|p| p.phase).map(Value::from));
        self.output.push(item.into());
        Ok(())
    }
}

/// A tool-call block of an assistant message (AI/api/openai-responses-shared.js:165–203): a
/// `function_call` (or a grammar tool's `custom_tool_call`) with the call id, the item id when it
/// may be replayed, and the namespace when the same model or a deferred tool made the call.
#[allow(clippy::too_many_arguments)]
fn convert_tool_call(
    pi: &Pi,
    block: &Value,
    same_model: bool,
    different_model: bool,
    options: &ConvertOptions,
    label: &str,
    k: usize,
    events: &mut Events,
) -> Result<Value, AdapterError> {
    let Some(id) = block.get_str("id") else {
        return Err(err(format!(
            "{label} block {k}: toolCall.id.split is not a function"
        )));
    };
    let (call_id, item_id_raw) = split_pipe(id);
    let name = block.get("name");
    let custom_input_property = grammar_property(
        options.grammar_tool_input_properties,
        name.and_then(Value::as_str),
    );
    let starts_fc = item_id_raw.is_some_and(|i| i.starts_with("fc_"));
    let mut item_id = item_id_raw;
    if pi.rules.responses.item_id_prefix_per_type {
        // 1.4.x: the id must have the prefix of the replayed type, and a different model's ids
        // are never replayed.
        let prefix = if custom_input_property.is_none() {
            "fc_"
        } else {
            "ctc_"
        };
        let has_prefix = item_id_raw.is_some_and(|i| i.starts_with(prefix));
        if different_model || !has_prefix {
            if let Some(dropped) = item_id {
                let why = if different_model {
                    "a different model of the same provider".to_string()
                } else {
                    format!("it does not start with {prefix}")
                };
                events.push(
                    Event::new(
                        EventKind::Dropped,
                        format!("{label} block {k}: item id {dropped:?} not replayed ({why})"),
                    )
                    .at("1.6.0/AI/api/openai-responses-shared.js:273"),
                );
            }
            item_id = None;
        }
    } else if (different_model && starts_fc) || (custom_input_property.is_none() && !starts_fc) {
        if let Some(dropped) = item_id {
            let why = if different_model && starts_fc {
                "a different model of the same provider"
            } else {
                "it does not start with fc_"
            };
            events.push(
                Event::new(
                    EventKind::Dropped,
                    format!("{label} block {k}: item id {dropped:?} not replayed ({why})"),
                )
                .at("AI/api/openai-responses-shared.js:175"),
            );
        }
        item_id = None;
    }
    let can_replay_namespace = same_model
        || (!pi.rules.responses.item_id_prefix_per_type
            && name.is_some_and(|n| options.deferred_tool(n).is_some()));
    let namespace = block
        .get("namespace")
        .filter(|_| can_replay_namespace)
        .cloned();
    let mut item = match custom_input_property {
        Some(property) => {
            let input =
                get_grammar_tool_input(&to_js_string(name), block.get("arguments"), property)?;
            let mut o = body::message_like(Object::new(), block).with("type", "custom_tool_call");
            o.insert_opt("id", item_id.map(Value::str));
            o.insert("call_id", Value::str(call_id));
            o.insert_opt("name", name.cloned());
            o.insert(
                "input",
                Value::String(sanitize_surrogates(&input).into_owned().into()),
            );
            o
        }
        None => {
            let mut o = body::message_like(Object::new(), block).with("type", "function_call");
            o.insert_opt("id", item_id.map(Value::str));
            o.insert("call_id", Value::str(call_id));
            o.insert_opt("name", name.cloned());
            // `JSON.stringify(undefined)` is undefined: the member is dropped.
            o.insert_opt(
                "arguments",
                block
                    .get("arguments")
                    .map(|a| Value::String(a.to_json().into())),
            );
            o
        }
    };
    item.insert_opt("namespace", namespace);
    Ok(item.into())
}

/// The deferred-tool loading after a tool result (AI/api/openai-responses-shared.js:235–262):
/// an `additional_tools` developer item, or a client-executed tool search call and output.
fn load_deferred_tools(
    pi: &Pi,
    tool_call_id: &str,
    deferred: &[ToolDef],
    options: &ConvertOptions,
    messages: &mut Vec<Value>,
    label: &str,
    events: &mut Events,
) -> Result<(), AdapterError> {
    let names: Vec<&str> = deferred.iter().map(|t| t.name.as_str()).collect();
    match options.deferred_tools_mode {
        Some("additional-tools") => {
            let tools = convert_responses_tools(pi, deferred, &options.tool_options, events)?;
            messages.push(
                Object::new()
                    .with("type", "additional_tools")
                    .with("role", "developer")
                    .with("tools", Value::Array(tools))
                    .into(),
            );
            events.push(
                Event::new(
                    EventKind::Inserted,
                    format!("{label}: additional_tools item loads {}", names.join(", ")),
                )
                .at("AI/api/openai-responses-shared.js:236"),
            );
        }
        Some("tool-search") => {
            let hash = short_hash(&format!("{tool_call_id}:{}", names.join(",")));
            let search_call_id = fill(text(pi, "toolSearchCallId"), &[("shortHash", &hash)]);
            let arguments = Object::new()
                .with("query", names.join(" "))
                .with("limit", names.len());
            messages.push(
                Object::new()
                    .with("type", "tool_search_call")
                    .with("call_id", search_call_id.as_str())
                    .with("execution", "client")
                    .with("status", "completed")
                    .with("arguments", arguments)
                    .into(),
            );
            let tool_options = ToolOptions {
                defer_loading: true,
                ..options.tool_options.clone()
            };
            let tools = convert_responses_tools(pi, deferred, &tool_options, events)?;
            messages.push(
                Object::new()
                    .with("type", "tool_search_output")
                    .with("call_id", search_call_id.as_str())
                    .with("execution", "client")
                    .with("status", "completed")
                    .with("tools", Value::Array(tools))
                    .into(),
            );
            events.push(
                Event::new(
                    EventKind::Inserted,
                    format!(
                        "{label}: tool_search_call + tool_search_output load {}",
                        names.join(", ")
                    ),
                )
                .at("AI/api/openai-responses-shared.js:243"),
            );
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocols::openai_prompt_cache::clamp_openai_prompt_cache_key;
    use crate::testcase::pi;

    fn model(provider: &str, api: &str) -> Model {
        Model {
            obj: Object::new()
                .with("id", "m")
                .with("provider", provider)
                .with("api", api),
        }
    }

    #[test]
    fn id_parts_are_sanitized_truncated_and_trimmed() {
        assert_eq!(normalize_id_part("call.with.dots"), "call_with_dots");
        assert_eq!(normalize_id_part("abc__"), "abc");
        assert_eq!(normalize_id_part(&"x".repeat(70)), "x".repeat(64));
        // A non-BMP character is two UTF-16 units, so two underscores.
        assert_eq!(normalize_id_part("a😀b"), "a__b");
    }

    #[test]
    fn tool_call_ids_follow_the_provider_rules() {
        let source = Value::Object(
            Object::new()
                .with("provider", "mock")
                .with("api", "openai-completions"),
        );
        let openai = model("openai", "openai-responses");
        assert_eq!(
            normalize_tool_call_id(
                &pi(),
                "call_abc|fc_123",
                &model("mock", "openai-responses"),
                &source,
                &["openai"]
            ),
            "call_abc_fc_123"
        );
        let id = normalize_tool_call_id(&pi(), "call_abc|fc_123", &openai, &source, &["openai"]);
        assert_eq!(id, format!("call_abc|fc_{}", short_hash("fc_123")));
        let same = Value::Object(
            Object::new()
                .with("provider", "openai")
                .with("api", "openai-responses"),
        );
        assert_eq!(
            normalize_tool_call_id(&pi(), "call_abc|item.1", &openai, &same, &["openai"]),
            "call_abc|fc_item_1"
        );
    }

    #[test]
    fn text_signatures_parse_v1_and_legacy() {
        let v1 = Value::str(r#"{"v":1,"id":"msg_1","phase":"commentary"}"#);
        assert_eq!(
            parse_text_signature(Some(&v1)).ok().flatten(),
            Some(TextSignature {
                id: "msg_1".into(),
                phase: Some("commentary".into())
            })
        );
        let other_phase = Value::str(r#"{"v":1,"id":"msg_1","phase":"x"}"#);
        assert_eq!(
            parse_text_signature(Some(&other_phase))
                .ok()
                .flatten()
                .and_then(|s| s.phase),
            None
        );
        let legacy = Value::str("msg_legacy");
        assert_eq!(
            parse_text_signature(Some(&legacy))
                .ok()
                .flatten()
                .map(|s| s.id),
            Some("msg_legacy".into())
        );
        assert_eq!(
            parse_text_signature(Some(&Value::str(""))).ok().flatten(),
            None
        );
    }

    /// Reads a case folder into the `CaseFiles` shape.
    /// Every corpus case, whatever protocol it was written for, assembles with each Responses
    /// adapter (codex gets a JWT key) without a panic, and fails only where pi throws.
    #[test]
    fn every_corpus_case_assembles_with_the_responses_adapters() {
        // {"https://api.openai.com/auth":{"chatgpt_account_id":"acct_pi_test_0001"}}
        let jwt = "eyJhbGciOiJub25lIn0.eyJodHRwczovL2FwaS5vcGVuYWkuY29tL2F1dGgiOnsiY2hhdGdwdF9hY2NvdW50X2lkIjoiYWNjdF9waV90ZXN0XzAwMDEifX0.sig";
        let mut unexpected = Vec::new();
        for case in ctxlens_corpus::cases("") {
            // A case where pi itself sends nothing fails under every protocol.
            if case.pi_error().is_some() {
                continue;
            }
            let mut files = case.files();
            if let Some(models) = files
                .get("models.json")
                .and_then(|b| js::parse(&String::from_utf8_lossy(b)).ok())
            {
                let mut models = models;
                if let Some(providers) = models
                    .as_object_mut()
                    .and_then(|o| o.get_mut("providers"))
                    .and_then(Value::as_object_mut)
                {
                    for (_, p) in providers.iter_mut() {
                        if let Some(p) = p.as_object_mut() {
                            p.insert("apiKey", Value::str(jwt));
                        }
                    }
                }
                files.insert("models.json".into(), models.to_json().into_bytes());
            }
            let Ok(inputs) = crate::case::inputs_from_case(&files, None) else {
                continue;
            };
            for api in [
                "openai-responses",
                "azure-openai-responses",
                "openai-codex-responses",
            ] {
                let api: crate::api::Api = api.parse().expect("an api");
                if !inputs
                    .captured_pi
                    .unwrap_or(crate::PiVersion::LATEST)
                    .rules()
                    .ported_apis
                    .contains(&api)
                {
                    continue; // said by the adapter-not-ported diagnostic
                }
                let mut inputs = inputs.clone();
                inputs.api = Some(api);
                let assembly = crate::assemble(&inputs);
                if assembly.request.is_none() {
                    let why: Vec<String> =
                        assembly.diagnostics.iter().map(|d| d.to_string()).collect();
                    // pi's JSON.parse of a non-JSON stored reasoning signature throws.
                    if !why
                        .iter()
                        .any(|w| w.contains("thinkingSignature is not JSON"))
                    {
                        unexpected.push(format!("{} --api {api}: {}", case.name, why.join("; ")));
                    }
                }
            }
        }
        assert!(unexpected.is_empty(), "{unexpected:#?}");
    }

    fn pi16() -> Pi {
        Pi::new(crate::PiVersion::V1_6_0).expect("pi 1.6.0's data is compiled in")
    }

    fn ctx_of(messages: &[&str]) -> LlmContext {
        LlmContext::transcript(messages.iter().map(|m| js::parse(m).unwrap()).collect())
    }

    fn ids(input: &[Value]) -> Vec<String> {
        input
            .iter()
            .filter(|i| i.get_str("type") == Some("custom_tool_call"))
            .map(|i| {
                format!(
                    "{}={}",
                    to_js_string(i.get("call_id")),
                    to_js_string(i.get("id"))
                )
            })
            .collect()
    }

    /// A replayed grammar-tool call keeps its item id in 1.6.0 only with the `ctc_` prefix;
    /// 0.85 kept any custom call's id unless another model's `fc_` one (and another model's ids
    /// are normalized to `fc_` by transformMessages, so both drop those). Grammar tools cannot
    /// be declared from the CLI, so no capture reaches this.
    #[test]
    fn custom_tool_call_ids_need_their_prefix_and_the_same_model() {
        let model = model("openai", "openai-responses");
        let props = vec![("apply_patch".to_string(), "input".to_string())];
        let call = |model_id: &str, id: &str| {
            format!(
                r#"{{"role":"assistant","provider":"openai","api":"openai-responses","model":"{model_id}","stopReason":"toolUse","content":[{{"type":"toolCall","id":"{id}","name":"apply_patch","arguments":{{"input":"x"}}}}]}}"#
            )
        };
        let msgs = [
            call("other", "call_1|ctc_1"),
            call("m", "call_2|ctc_2"),
            call("m", "call_3|fc_3"),
        ];
        let ctx = ctx_of(&msgs.iter().map(String::as_str).collect::<Vec<_>>());
        let options = ConvertOptions {
            grammar_tool_input_properties: &props,
            include_system_prompt: true,
            ..ConvertOptions::default()
        };
        let run = |pi: &Pi| {
            let input = convert_responses_messages(
                pi,
                &model,
                &ctx,
                &["openai"],
                &options,
                &mut Events::default(),
            )
            .unwrap();
            ids(&input)
        };
        assert_eq!(
            run(&pi16()),
            ["call_1=undefined", "call_2=ctc_2", "call_3=undefined"]
        );
        assert_eq!(
            run(&pi()),
            ["call_1=undefined", "call_2=ctc_2", "call_3=fc_3"]
        );
    }

    /// In "changes" mode the unavailable set is a JS Set: a name declared again
    /// leaves it, a later removal appends; the notice lists what is left, in that order.
    #[test]
    fn incremental_notice_lists_the_tools_still_unavailable() {
        let p = pi16();
        let model = Model {
            obj: Object::new()
                .with("id", "m")
                .with("provider", "mock")
                .with("api", "openai-responses")
                .with("reasoning", false),
        };
        let t = |n: &str| {
            format!(r#"{{"name":"{n}","description":"d","parameters":{{"type":"object"}}}}"#)
        };
        let ctx = ctx_of(&[
            &format!(
                r#"{{"role":"system","content":"BASE","toolsAdded":[{},{},{}]}}"#,
                t("a"),
                t("b"),
                t("c")
            ),
            r#"{"role":"user","content":"q"}"#,
            r#"{"role":"system","content":"","toolsRemoved":[{"name":"c"},{"name":"a"}]}"#,
            &format!(
                r#"{{"role":"system","content":"","toolsAdded":[{}],"toolsRemoved":[{{"name":"b"}}]}}"#,
                t("b")
            ),
            &format!(
                r#"{{"role":"system","content":"","toolsAdded":[{}]}}"#,
                t("c")
            ),
        ]);
        let options = ConvertOptions {
            supports_mid_convo_system_messages: true,
            supports_additional_tools: true,
            ..ConvertOptions::default()
        };
        assert_eq!(tool_support(&p, &options), ToolChanges::Changes);
        let input = convert_responses_messages(
            &p,
            &model,
            &ctx,
            &["openai"],
            &options,
            &mut Events::default(),
        )
        .unwrap();
        let texts: Vec<String> = input
            .iter()
            .map(|i| match i.get_str("type") {
                Some(t) => format!(
                    "<{t}:{}>",
                    i.get("tools")
                        .and_then(Value::as_array)
                        .map_or(0, |a| a.len())
                ),
                None => format!(
                    "{}:{}",
                    to_js_string(i.get("role")),
                    to_js_string(i.get("content"))
                ),
            })
            .collect();
        let notice = text(&p, "incrementalToolsNotice");
        assert_eq!(
            texts,
            [
                "<additional_tools:3>".to_string(),
                "system:BASE".to_string(),
                "user:[object Object]".to_string(),
                "system:The following tools are no longer available. Do not call them:\n- c\n- a"
                    .to_string(),
                // b is redefined (removed and added in one message): not a removal.
                format!("system:{notice}\nStill unavailable: c, a."),
                "<additional_tools:1>".to_string(),
                format!("system:{notice}\nStill unavailable: a."),
                "<additional_tools:1>".to_string(),
            ]
        );
    }

    #[test]
    fn prompt_cache_key_is_clamped_by_code_points() {
        let long = "é".repeat(70);
        assert_eq!(
            clamp_openai_prompt_cache_key(Some(&long)).map(|k| k.chars().count()),
            Some(64)
        );
        assert_eq!(clamp_openai_prompt_cache_key(None), None);
    }
}

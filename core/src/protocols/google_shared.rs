//! pi-ai `dist/api/google-shared.js`: the conversions shared by
//! the Google adapters: thinking-level resolution, message conversion to Gemini `Content[]`,
//! function declarations and the function-calling mode. Also the part of
//! `dist/api/constrained-sampling.js` that these adapters and Bedrock need.
//!
//! Values pi reads dynamically stay [`Value`]s; `None` stands for JS `undefined`.

use super::body::{self, Kind, Tag};
use super::constrained_sampling::{
    get_json_schema_tool_parameters, resolve_json_schema_strict_sampling, Strict,
};
use super::{err, ev, AdapterError};
use crate::js::{join_shared, sanitize_shared, to_js_string, utf16_len, Object, Str, Value};
use crate::messages;
use crate::model::Model;
use crate::pi::Pi;
use crate::tools::ToolDef;
use crate::trace::{EventKind, Events};

/// A text pi inserts into bodies (data/pi-0.85.1/strings.json, group `googleShared`).
fn text(pi: &Pi, key: &str) -> &'static str {
    pi.data.string("googleShared", key)
}

/// `sanitizeSurrogates(value)` on a member pi expects to be a string: anything else makes
/// `text.replace` throw a TypeError in pi.
pub(crate) fn sanitize_value(value: Option<&Value>, what: &str) -> Result<Str, AdapterError> {
    match value {
        Some(Value::String(s)) => Ok(sanitize_shared(s)),
        Some(Value::Null) => Err(err(format!(
            "TypeError: Cannot read properties of null (reading 'replace') ({what})"
        ))),
        None => Err(err(format!(
            "TypeError: Cannot read properties of undefined (reading 'replace') ({what})"
        ))),
        Some(_) => Err(err(format!(
            "TypeError: text.replace is not a function ({what})"
        ))),
    }
}

/// `!s || s.trim() === ""` for a member pi reads as a string (a non-string truthy value would
/// make `.trim` throw).
fn is_blank(value: Option<&Value>, what: &str) -> Result<bool, AdapterError> {
    match value {
        None => Ok(true),
        Some(Value::String(s)) => Ok(crate::js::js_trim_is_empty(s)),
        Some(v) if !v.truthy() => Ok(true),
        Some(_) => Err(err(format!("TypeError: {what}.trim is not a function"))),
    }
}

/// `resolveGoogleThinkingLevel(model, level)` (google-shared.js:10–24, 1.6.0 :19–31): a
/// string `thinkingLevelMap` value is lower-cased; the result must be one of
/// minimal/low/medium/high. 0.85 answers `off` with `high` first; 1.6.0 no longer does (off
/// never reaches it: a level that clamps to off is disabled before).
pub fn resolve_google_thinking_level(
    pi: &Pi,
    model: &Model,
    level: &str,
) -> Result<String, AdapterError> {
    if level == "off" && !pi.rules.google.thinking_level_from_map {
        return Ok("high".into());
    }
    let mapped = model.thinking_level_map().and_then(|m| m.get(level));
    let resolved = match mapped {
        Some(Value::String(s)) => s.to_lowercase(),
        _ => level.to_string(),
    };
    match resolved.as_str() {
        "minimal" | "low" | "medium" | "high" => Ok(resolved),
        _ => {
            let shown = match mapped {
                None => "undefined".to_string(),
                Some(v) => to_js_string(Some(v)),
            };
            Err(err(format!(
                "Unsupported Google thinking level mapping for {}/{}: {} -> {}",
                model.provider(),
                model.id(),
                level,
                shown
            )))
        }
    }
}

/// `usesGoogleThinkingLevel(model)` (1.6.0 google-shared.js:37–49): on the lower-cased id,
/// `/gemini-3(?:\.\d+)?-(?:pro|flash)/`, `/gemini-(?:[4-9]|[1-9]\d)/` (Gemini 4 and later),
/// `gemini-flash-latest`, `gemini-flash-lite-latest`, or `/gemma-?4/`; Gemini 4 and later only
/// from 1.3.0 (`Rules::google.gemini_4_thinking_level`).
pub fn uses_google_thinking_level(pi: &Pi, model: &Model) -> bool {
    let id = model.id().to_lowercase();
    matches_gemini3(&id, "-pro")
        || matches_gemini3(&id, "-flash")
        || pi.rules.google.gemini_4_thinking_level
            && id.match_indices("gemini-").any(|(i, m)| {
                let rest = &id.as_bytes()[i + m.len()..];
                // `[4-9]`, or `[1-9]\d`: a two-digit major from 10 on.
                matches!(rest.first(), Some(b'4'..=b'9'))
                    || (matches!(rest.first(), Some(b'1'..=b'9'))
                        && rest.get(1).is_some_and(u8::is_ascii_digit))
            })
        || id == "gemini-flash-latest"
        || id == "gemini-flash-lite-latest"
        || id.contains("gemma-4")
        || id.contains("gemma4")
}

/// `/gemini-3(?:\.\d+)?-<suffix>/` on a lower-cased id.
pub(crate) fn matches_gemini3(id: &str, suffix: &str) -> bool {
    id.match_indices("gemini-3").any(|(i, m)| {
        let rest = &id[i + m.len()..];
        if rest.starts_with(suffix) {
            return true;
        }
        match rest.strip_prefix('.') {
            Some(after) => {
                let digits = after.chars().take_while(char::is_ascii_digit).count();
                // `\d+` backtracks, but a suffix starting with "-" cannot be a digit.
                digits > 0 && after[digits..].starts_with(suffix)
            }
            None => false,
        }
    })
}

/// `toGoogleThinkingLevel(level)` (1.6.0 google-shared.js:50–61) and the SDK's
/// `ThinkingLevel` enum value it is sent as (`toGoogleSdkThinkingLevel`, :62–64): the level
/// upper-cased. `resolveGoogleThinkingLevel` only lets minimal/low/medium/high through.
pub fn to_google_thinking_level(level: &str) -> &'static str {
    match level {
        "minimal" => "MINIMAL",
        "low" => "LOW",
        "medium" => "MEDIUM",
        _ => "HIGH",
    }
}

/// `getDisabledGoogleThinkingConfig(model)` (1.6.0 google-shared.js:65–74): `thinkingBudget:
/// 0`, unless a level model cannot be off: then its lowest level (`clampThinkingLevel(model,
/// "off")`) as a `thinkingLevel`, without `includeThoughts`.
pub fn get_disabled_google_thinking_config(
    pi: &Pi,
    model: &Model,
    events: &mut Events,
) -> Result<Value, AdapterError> {
    let budget_zero = || Value::Object(Object::new().with("thinkingBudget", 0.0));
    if !uses_google_thinking_level(pi, model) {
        return Ok(budget_zero());
    }
    let fallback = crate::model::clamp_thinking_level(model, "off", events);
    if fallback == "off" {
        return Ok(budget_zero());
    }
    let resolved = resolve_google_thinking_level(pi, model, &fallback)?;
    Ok(Value::Object(Object::new().with(
        "thinkingLevel",
        to_google_thinking_level(&resolved),
    )))
}

/// `isValidThoughtSignature(signature)` (google-shared.js:59–65): non-empty, a length that is a
/// multiple of four, and `/^[A-Za-z0-9+/]+={0,2}$/`.
fn is_valid_thought_signature(signature: Option<&Value>) -> bool {
    let Some(Value::String(s)) = signature else {
        return false;
    };
    if s.is_empty() || utf16_len(s) % 4 != 0 {
        return false;
    }
    let body = s.trim_end_matches('=');
    let pad = s.len() - body.len();
    pad <= 2
        && !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

/// `resolveThoughtSignature(isSameProviderAndModel, signature)` (google-shared.js:69–71).
fn resolve_thought_signature(
    is_same_provider_and_model: bool,
    signature: Option<&Value>,
) -> Option<Value> {
    (is_same_provider_and_model && is_valid_thought_signature(signature))
        .then(|| signature.cloned())
        .flatten()
}

/// `requiresToolCallId(modelId)` (google-shared.js:75–80).
pub fn requires_tool_call_id(model_id: &str) -> bool {
    model_id.starts_with("claude-")
        || model_id.starts_with("gpt-oss-")
        || get_gemini_major_version(model_id).is_some_and(|v| v >= 3.0)
}

/// `getGeminiMajorVersion(modelId)` (google-shared.js:81–86):
/// `/^gemini(?:-live)?-(\d+)/` on the lower-cased id, parsed as an integer.
pub fn get_gemini_major_version(model_id: &str) -> Option<f64> {
    let id = model_id.to_lowercase();
    let rest = id.strip_prefix("gemini-")?;
    let rest = match rest.strip_prefix("live-") {
        // `(?:-live)?` is optional: "gemini-live-3" matches with it, "gemini-live" alone does not.
        Some(after) if after.starts_with(|c: char| c.is_ascii_digit()) => after,
        _ => rest,
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() {
        return None;
    }
    digits.parse::<f64>().ok()
}

/// `supportsMultimodalFunctionResponse(modelId)` (google-shared.js:87–93): Gemini ≥ 3, or any
/// model that is not Gemini.
fn supports_multimodal_function_response(model_id: &str) -> bool {
    match get_gemini_major_version(model_id) {
        Some(v) => v >= 3.0,
        None => true,
    }
}

/// The id normalizer `convertMessages` hands to `transformMessages` (google-shared.js:99–103):
/// only when the model requires ids, `[^a-zA-Z0-9_-]` → `_` and a cut to 64 UTF-16 units.
fn normalize_tool_call_id(id: &str, model: &Model) -> String {
    if !requires_tool_call_id(model.id()) {
        return id.to_string();
    }
    // All ASCII after sanitizing: bytes are UTF-16 units.
    let mut sanitized = super::sanitize_tool_call_id(id);
    sanitized.truncate(64);
    sanitized
}

/// `{ inlineData: { mimeType, data } }` as pi writes it (google-shared.js:119–124, 212–217).
fn inline_data_part(block: &Value) -> Value {
    let mut inline = body::like(Object::new(), block);
    inline.insert_opt("mimeType", block.get("mimeType").cloned());
    inline.insert_opt("data", block.get("data").cloned());
    Value::Object(Object::new().with("inlineData", inline))
}

/// `convertMessages(model, context)` (google-shared.js:97–249): pi's `Content[]` before
/// the SDK reshapes it.
pub fn convert_messages(
    pi: &Pi,
    model: &Model,
    messages_in: &[Value],
    events: &mut Events,
) -> Result<Vec<Value>, AdapterError> {
    let mut contents: Vec<Value> = Vec::new();
    let normalize = |id: &str, m: &Model, _: &Value| normalize_tool_call_id(id, m);
    let transformed =
        messages::transform_messages(pi, messages_in, model, Some(&normalize), 0.0, events);
    for msg in &transformed {
        match msg.get_str("role") {
            Some("user") => convert_user_message(msg, &mut contents, events)?,
            Some("assistant") => convert_assistant_message(model, msg, &mut contents, events)?,
            Some("toolResult") => convert_tool_result(pi, model, msg, &mut contents, events)?,
            _ => {}
        }
    }
    Ok(contents)
}

/// The user branch of `convertMessages` (google-shared.js:106–134).
fn convert_user_message(
    msg: &Value,
    contents: &mut Vec<Value>,
    events: &mut Events,
) -> Result<(), AdapterError> {
    let parts: Vec<Value> = match msg.get("content") {
        Some(Value::String(s)) => vec![Value::Object(body::text_of(
            Object::new().with("text", sanitize_shared(s)),
            msg,
        ))],
        Some(Value::Array(items)) => {
            let mut parts = Vec::with_capacity(items.len());
            for item in items {
                if item.get_str("type") == Some("text") {
                    parts.push(Value::Object(body::like(
                        Object::new().with("text", sanitize_value(item.get("text"), "user text")?),
                        item,
                    )));
                } else {
                    parts.push(inline_data_part(item));
                }
            }
            if parts.is_empty() {
                ev(
                    events,
                    EventKind::Dropped,
                    "user message with empty content skipped",
                    "AI/api/google-shared.js:127",
                );
                return Ok(());
            }
            parts
        }
        _ => {
            return Err(err(
                "TypeError: msg.content.map is not a function (user message)",
            ))
        }
    };
    contents.push(Value::Object(body::message_like(
        Object::new().with("role", "user").with("parts", parts),
        msg,
    )));
    Ok(())
}

/// The assistant branch of `convertMessages` (google-shared.js:135–196): `role:"model"`;
/// thinking kept as `thought` parts only for the same provider and model id; thought
/// signatures only when same and valid base64.
fn convert_assistant_message(
    model: &Model,
    msg: &Value,
    contents: &mut Vec<Value>,
    events: &mut Events,
) -> Result<(), AdapterError> {
    let is_same = msg.get_str("provider") == Some(model.provider())
        && msg.get_str("model") == Some(model.id());
    let mut parts: Vec<Value> = Vec::new();
    let blocks: &[Value] = msg
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    for block in blocks {
        match block.get_str("type") {
            Some("text") => {
                let signature = resolve_thought_signature(is_same, block.get("textSignature"));
                if is_blank(block.get("text"), "block.text")? && signature.is_none() {
                    ev(
                        events,
                        EventKind::Dropped,
                        "blank assistant text without a thought signature",
                        "AI/api/google-shared.js:146",
                    );
                    continue;
                }
                let mut part = body::like(Object::new(), block)
                    .with("text", sanitize_value(block.get("text"), "assistant text")?);
                part.insert_opt("thoughtSignature", signature);
                parts.push(Value::Object(part));
            }
            Some("thinking") => {
                if is_same {
                    let signature =
                        resolve_thought_signature(is_same, block.get("thinkingSignature"));
                    if is_blank(block.get("thinking"), "block.thinking")? && signature.is_none() {
                        ev(
                            events,
                            EventKind::Dropped,
                            "blank thinking without a thought signature",
                            "AI/api/google-shared.js:160",
                        );
                        continue;
                    }
                    let mut part = body::like(Object::new(), block)
                        .with("thought", true)
                        .with("text", sanitize_value(block.get("thinking"), "thinking")?);
                    part.insert_opt("thoughtSignature", signature);
                    parts.push(Value::Object(part));
                } else {
                    if is_blank(block.get("thinking"), "block.thinking")? {
                        ev(
                            events,
                            EventKind::Dropped,
                            "blank thinking from another model",
                            "AI/api/google-shared.js:170",
                        );
                        continue;
                    }
                    ev(
                        events,
                        EventKind::Converted,
                        "thinking from another provider/model sent as plain text",
                        "AI/api/google-shared.js:172",
                    );
                    parts.push(Value::Object(body::part_of(
                        Object::new()
                            .with("text", sanitize_value(block.get("thinking"), "thinking")?),
                        block,
                        Kind::AssistantText,
                    )));
                }
            }
            Some("toolCall") => {
                let signature = resolve_thought_signature(is_same, block.get("thoughtSignature"));
                let mut call = body::like(Object::new(), block);
                call.insert_opt("name", block.get("name").cloned());
                let args = block
                    .get("arguments")
                    .filter(|v| !v.is_null())
                    .cloned()
                    .unwrap_or_else(Value::object);
                call.insert("args", args);
                if requires_tool_call_id(model.id()) {
                    call.insert_opt("id", block.get("id").cloned());
                }
                let mut part = body::like(Object::new(), block).with("functionCall", call);
                part.insert_opt("thoughtSignature", signature);
                parts.push(Value::Object(part));
            }
            _ => {}
        }
    }
    if parts.is_empty() {
        ev(
            events,
            EventKind::Dropped,
            "assistant message with no parts left skipped",
            "AI/api/google-shared.js:190",
        );
        return Ok(());
    }
    contents.push(Value::Object(body::message_like(
        Object::new().with("role", "model").with("parts", parts),
        msg,
    )));
    Ok(())
}

/// The toolResult branch of `convertMessages` (google-shared.js:197–246): a
/// `functionResponse` part, merged into the previous user content when that one already holds
/// function responses; images nested for Gemini ≥ 3 (and non-Gemini ids), else sent in an extra
/// user content.
fn convert_tool_result(
    pi: &Pi,
    model: &Model,
    msg: &Value,
    contents: &mut Vec<Value>,
    events: &mut Events,
) -> Result<(), AdapterError> {
    let content: &[Value] = match msg.get("content") {
        Some(Value::Array(a)) => a,
        _ => {
            return Err(err(
                "TypeError: msg.content.filter is not a function (tool result)",
            ))
        }
    };
    let text_result = join_shared(
        &content
            .iter()
            .filter(|c| c.get_str("type") == Some("text"))
            .map(|c| c.get("text"))
            .collect::<Vec<_>>(),
        text(pi, "toolResultTextJoin"),
    );
    let images: Vec<&Value> = if model.supports_images() {
        content
            .iter()
            .filter(|c| c.get_str("type") == Some("image"))
            .collect()
    } else {
        Vec::new()
    };
    // 1.4.0: `textResult.trim().length > 0` (1.6.0 google-shared.js:256): blank text counts as
    // none, but text that is not blank is sent untrimmed.
    let has_text = if pi.rules.google.blank_tool_result_is_empty {
        let blank = crate::js::js_trim_is_empty(&text_result);
        if blank && !text_result.is_empty() {
            ev(
                events,
                EventKind::Replaced,
                format!(
                    "tool result text {:?} is only whitespace: sent as no text",
                    text_result.as_ref() as &str
                ),
                "1.6.0/AI/api/google-shared.js:256",
            );
        }
        !blank
    } else {
        !text_result.is_empty()
    };
    let has_images = !images.is_empty();
    let multimodal = supports_multimodal_function_response(model.id());
    let response_value: Str = if has_text {
        sanitize_shared(&text_result)
    } else if has_images {
        ev(
            events,
            EventKind::Inserted,
            format!(
                "image-only tool result answered with {:?}",
                text(pi, "toolResultImageOnly")
            ),
            "AI/api/google-shared.js:211",
        );
        text(pi, "toolResultImageOnly").into()
    } else {
        text(pi, "toolResultEmpty").into()
    };
    let image_parts: Vec<Value> = images.iter().map(|b| inline_data_part(b)).collect();
    let is_error = msg.get("isError").is_some_and(Value::truthy);
    let mut response = Object::new();
    response.insert_opt("name", msg.get("toolName").cloned());
    response.insert(
        "response",
        Value::Object(body::text_of(
            Object::new().with(if is_error { "error" } else { "output" }, response_value),
            msg,
        )),
    );
    if has_images && multimodal {
        response.insert("parts", Value::Array(image_parts.clone()));
    }
    if requires_tool_call_id(model.id()) {
        response.insert_opt("id", msg.get("toolCallId").cloned());
    }
    let part = Value::Object(Object::new().with("functionResponse", response));
    let merge = contents.last().is_some_and(|last| {
        last.get_str("role") == Some("user")
            && last
                .get("parts")
                .and_then(Value::as_array)
                .is_some_and(|p| {
                    p.iter()
                        .any(|p| p.get("functionResponse").is_some_and(Value::truthy))
                })
    });
    if merge {
        if let Some(parts) = contents
            .last_mut()
            .and_then(|c| c.as_object_mut())
            .and_then(|c| c.get_mut("parts"))
            .and_then(Value::as_array_mut)
        {
            parts.push(part);
        }
        ev(
            events,
            EventKind::Converted,
            "tool result merged into the previous user turn of function responses",
            "AI/api/google-shared.js:230",
        );
    } else {
        contents.push(Value::Object(body::message_like(
            Object::new().with("role", "user").with("parts", vec![part]),
            msg,
        )));
    }
    if has_images && !multimodal {
        let inserted =
            body::inserted(pi, "googleShared.toolResultImageUserText", Kind::UserText).mark();
        let mut parts = vec![Value::Object(
            Object::new()
                .with("text", text(pi, "toolResultImageUserText"))
                .marked(inserted),
        )];
        parts.extend(image_parts);
        contents.push(Value::Object(
            Object::new()
                .with("role", "user")
                .with("parts", parts)
                .marked(inserted),
        ));
        ev(
            events,
            EventKind::Inserted,
            "tool result images sent in a separate user turn (Gemini < 3)",
            "AI/api/google-shared.js:240",
        );
    }
    Ok(())
}

/// `convertTools(tools, useParameters = false, supportsStrictMode)` (google-shared.js:283–301):
/// one `{functionDeclarations}` with `{name, description, parametersJsonSchema}`. The
/// coding agent never asks for the legacy `parameters` form (`sanitizeForOpenApi`), so it is
/// not ported.
pub fn convert_tools(
    pi: &Pi,
    tools: &[ToolDef],
    supports_strict_mode: bool,
    events: &mut Events,
) -> Result<Option<Value>, AdapterError> {
    if tools.is_empty() {
        return Ok(None);
    }
    let mut declarations = Vec::with_capacity(tools.len());
    for tool in tools {
        let strict =
            resolve_json_schema_strict_sampling(&Strict::of(pi), tool, supports_strict_mode)?
                == Some(true);
        if strict {
            ev(
                events,
                EventKind::Converted,
                format!(
                    "tool {}: strict parametersJsonSchema (constrained sampling)",
                    tool.name
                ),
                "AI/api/google-shared.js:290",
            );
        }
        let mut parameters = get_json_schema_tool_parameters(&Strict::of(pi), tool, strict)?;
        if pi.rules.google.const_as_enum {
            let mut rewritten = 0;
            parameters = rewrite_const_as_enum(pi, &parameters, false, &mut rewritten);
            if rewritten > 0 {
                ev(
                    events,
                    EventKind::Converted,
                    format!(
                        "tool {}: {rewritten} const keyword(s) sent as one-value enums (Gemini ignores const)",
                        tool.name
                    ),
                    "1.6.0/AI/api/google-shared.js:403",
                );
            }
        }
        declarations.push(Value::Object(
            Object::new()
                .with("name", tool.name.as_str())
                .with("description", tool.description.as_str())
                .with(
                    "parametersJsonSchema",
                    body::marked(parameters, Tag::Schema),
                )
                .marked(Tag::Tool.mark()),
        ));
    }
    Ok(Some(Value::Array(vec![Value::Object(
        Object::new().with("functionDeclarations", declarations),
    )])))
}

/// `rewriteConstAsEnum(schema, isNameMap)` (1.6.0 google-shared.js:327–380): every schema
/// node (through the subschema keywords, and the name maps' values) with a string or number
/// `const` and no `enum` has the `const` removed and `enum: [value]` appended; literal data
/// (defaults, examples, enum values) and the keys of name maps are left alone. `count` is the
/// number of rewrites.
fn rewrite_const_as_enum(pi: &Pi, schema: &Value, is_name_map: bool, count: &mut usize) -> Value {
    let keys = |k: &str| -> Vec<&str> {
        pi.data
            .defaults
            .get(k)
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    };
    match schema {
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| rewrite_const_as_enum(pi, item, false, count))
                .collect(),
        ),
        Value::Object(node) => {
            let subschemas = keys("googleSchemaSubschemaKeys");
            let name_maps = keys("googleSchemaNameMaps");
            let mut out = Object::new();
            for (k, v) in node.iter() {
                let value = if is_name_map || subschemas.contains(&k.as_ref()) {
                    rewrite_const_as_enum(pi, v, false, count)
                } else if name_maps.contains(&k.as_ref()) {
                    rewrite_const_as_enum(pi, v, true, count)
                } else {
                    v.clone()
                };
                out.insert(k.clone(), value);
            }
            // `"const" in result && result.enum === undefined`, a string or number value.
            if !is_name_map && out.get("enum").is_none() {
                if let Some(c @ (Value::String(_) | Value::Number(_))) = out.get("const").cloned() {
                    out.remove("const");
                    out.insert("enum", Value::Array(vec![c]));
                    *count += 1;
                }
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

/// `supportsGoogleStrictToolSampling(modelId)` (google-shared.js:303–306): Gemini ≥ 3.
pub fn supports_google_strict_tool_sampling(model_id: &str) -> bool {
    get_gemini_major_version(model_id).is_some_and(|v| v >= 3.0)
}

/// `resolveGoogleFunctionCallingMode(tools, toolChoice, supportsStrictMode)`
/// (google-shared.js:320–329) with the coding agent's `toolChoice` (always undefined):
/// `VALIDATED` when some tool is strict, else undefined.
pub fn resolve_google_function_calling_mode(
    pi: &Pi,
    tools: &[ToolDef],
    supports_strict_mode: bool,
) -> Result<Option<&'static str>, AdapterError> {
    let mut use_strict = false;
    for tool in tools {
        if resolve_json_schema_strict_sampling(&Strict::of(pi), tool, supports_strict_mode)?
            == Some(true)
        {
            use_strict = true;
            break;
        }
    }
    Ok(use_strict.then_some("VALIDATED"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gemini_major_version() {
        assert_eq!(get_gemini_major_version("gemini-2.5-flash"), Some(2.0));
        assert_eq!(
            get_gemini_major_version("Gemini-3.1-pro-preview"),
            Some(3.0)
        );
        assert_eq!(get_gemini_major_version("gemini-live-3-x"), Some(3.0));
        assert_eq!(get_gemini_major_version("gemini-flash-latest"), None);
        assert_eq!(get_gemini_major_version("gemma-4-31b-it"), None);
        assert!(
            requires_tool_call_id("claude-x")
                && requires_tool_call_id("gemini-3-flash")
                && !requires_tool_call_id("gemini-2.5-pro")
        );
    }

    fn model(id: &str) -> Model {
        Model {
            obj: Object::new().with("id", id),
        }
    }

    fn pi16() -> Pi {
        Pi::new(crate::PiVersion::V1_6_0).unwrap()
    }

    #[test]
    fn which_models_use_thinking_level() {
        let p = pi16();
        let uses = |id: &str| uses_google_thinking_level(&p, &model(id));
        for id in [
            "gemini-3-pro-preview",
            "gemini-3.1-flash-lite",
            "Gemini-3.8-Flash",
            "gemini-4-argon",
            "gemini-12-x",
            "models/gemini-9",
            "gemini-flash-latest",
            "gemini-flash-lite-latest",
            "gemma-4-31b-it",
            "gemma4",
        ] {
            assert!(uses(id), "{id}");
        }
        for id in [
            "gemini-2.5-flash",
            "gemini-3-ultra",
            "gemini-3.-pro",
            "gemini-pro-latest",
            "gemini-1.5-pro",
            "gemini-10",
            "gemma-3-27b",
        ] {
            // `[1-9]\d` needs two digits: "gemini-10" is Gemini 10 (`1` then `0`).
            assert_eq!(uses(id), id == "gemini-10", "{id}");
        }
        assert_eq!(to_google_thinking_level("minimal"), "MINIMAL");
        assert_eq!(to_google_thinking_level("high"), "HIGH");
    }

    #[test]
    fn off_resolves_only_in_0_85() {
        let m = model("gemini-3-pro");
        assert_eq!(
            resolve_google_thinking_level(&crate::testcase::pi(), &m, "off").unwrap(),
            "high"
        );
        assert!(resolve_google_thinking_level(&pi16(), &m, "off").is_err());
    }

    #[test]
    fn disabled_config_of_level_models() {
        let p = pi16();
        let mut ev = Events::default();
        let reasoning = |id: &str, map: Option<&str>| {
            let mut o = Object::new().with("id", id).with("reasoning", true);
            if let Some(m) = map {
                o.insert("thinkingLevelMap", crate::js::parse(m).unwrap());
            }
            Model { obj: o }
        };
        let cfg = |m: &Model, ev: &mut Events| {
            get_disabled_google_thinking_config(&p, m, ev)
                .unwrap()
                .to_json()
        };
        assert_eq!(
            cfg(&reasoning("gemini-2.5-flash", None), &mut ev),
            r#"{"thinkingBudget":0}"#
        );
        assert_eq!(
            cfg(&reasoning("gemini-4-argon", None), &mut ev),
            r#"{"thinkingBudget":0}"#
        );
        assert_eq!(
            cfg(
                &reasoning("gemini-4-argon", Some(r#"{"off":null}"#)),
                &mut ev
            ),
            r#"{"thinkingLevel":"MINIMAL"}"#
        );
        assert_eq!(
            cfg(
                &reasoning(
                    "gemini-3-pro",
                    Some(r#"{"off":null,"minimal":null,"medium":null}"#)
                ),
                &mut ev
            ),
            r#"{"thinkingLevel":"LOW"}"#
        );
    }

    #[test]
    fn const_becomes_enum_in_schemas_only() {
        let p = pi16();
        let schema = crate::js::parse(
            r#"{"type":"object","const":"top","properties":{"const":{"const":1,"description":"x"},"flag":{"const":true},"both":{"const":"a","enum":["a"]},"nul":{"const":"n","enum":null},"d":{"default":{"const":"lit"},"examples":[{"const":"e"}]}},"items":[{"const":2.5}],"$defs":{"T":{"anyOf":[{"const":"t"}]}}}"#,
        )
        .unwrap();
        let mut n = 0;
        let out = rewrite_const_as_enum(&p, &schema, false, &mut n);
        assert_eq!(
            out.to_json(),
            r#"{"type":"object","properties":{"const":{"description":"x","enum":[1]},"flag":{"const":true},"both":{"const":"a","enum":["a"]},"nul":{"const":"n","enum":null},"d":{"default":{"const":"lit"},"examples":[{"const":"e"}]}},"items":[{"enum":[2.5]}],"$defs":{"T":{"anyOf":[{"enum":["t"]}]}},"enum":["top"]}"#
        );
        assert_eq!(n, 4);
    }

    #[test]
    fn thought_signature_validity() {
        let ok = |s: &str| is_valid_thought_signature(Some(&Value::str(s)));
        assert!(ok("dGhvdWdodA==") && ok("abcd") && ok("ab+/"));
        assert!(!ok("") && !ok("abc") && !ok("ab=c") && !ok("a===") && !ok("====") && !ok("ab-_"));
    }
}

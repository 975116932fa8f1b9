//! pi-ai `dist/api/google-shared.js` (INVENTORY §4.6, G1 and G3–G7): the conversions shared by
//! the Google adapters: thinking-level resolution, message conversion to Gemini `Content[]`,
//! function declarations and the function-calling mode. Also the part of
//! `dist/api/constrained-sampling.js` (A9) that these adapters and Bedrock need.
//!
//! Values pi reads dynamically stay [`Value`]s; `None` stands for JS `undefined`.

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

/// `resolveGoogleThinkingLevel(model, level)` (google-shared.js:10–24; G1): a string
/// `thinkingLevelMap` value is lower-cased; the result must be one of minimal/low/medium/high.
pub fn resolve_google_thinking_level(model: &Model, level: &str) -> Result<String, AdapterError> {
    if level == "off" {
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

/// `requiresToolCallId(modelId)` (google-shared.js:75–80; G6).
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
    let mut inline = Object::new();
    inline.insert_opt("mimeType", block.get("mimeType").cloned());
    inline.insert_opt("data", block.get("data").cloned());
    Value::Object(Object::new().with("inlineData", inline))
}

/// `convertMessages(model, context)` (google-shared.js:97–249; G4–G7): pi's `Content[]` before
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

/// The user branch of `convertMessages` (google-shared.js:106–134; G4).
fn convert_user_message(
    msg: &Value,
    contents: &mut Vec<Value>,
    events: &mut Events,
) -> Result<(), AdapterError> {
    let parts: Vec<Value> = match msg.get("content") {
        Some(Value::String(s)) => vec![Value::Object(
            Object::new().with("text", sanitize_shared(s)),
        )],
        Some(Value::Array(items)) => {
            let mut parts = Vec::with_capacity(items.len());
            for item in items {
                if item.get_str("type") == Some("text") {
                    parts.push(Value::Object(
                        Object::new().with("text", sanitize_value(item.get("text"), "user text")?),
                    ));
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
    contents.push(Value::Object(
        Object::new().with("role", "user").with("parts", parts),
    ));
    Ok(())
}

/// The assistant branch of `convertMessages` (google-shared.js:135–196; G5): `role:"model"`;
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
                let mut part = Object::new()
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
                    let mut part = Object::new()
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
                    parts.push(Value::Object(
                        Object::new()
                            .with("text", sanitize_value(block.get("thinking"), "thinking")?),
                    ));
                }
            }
            Some("toolCall") => {
                let signature = resolve_thought_signature(is_same, block.get("thoughtSignature"));
                let mut call = Object::new();
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
                let mut part = Object::new().with("functionCall", call);
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
    contents.push(Value::Object(
        Object::new().with("role", "model").with("parts", parts),
    ));
    Ok(())
}

/// The toolResult branch of `convertMessages` (google-shared.js:197–246; G7): a
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
    let has_text = !text_result.is_empty();
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
        Value::Object(
            Object::new().with(if is_error { "error" } else { "output" }, response_value),
        ),
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
        contents.push(Value::Object(
            Object::new().with("role", "user").with("parts", vec![part]),
        ));
    }
    if has_images && !multimodal {
        let mut parts = vec![Value::Object(
            Object::new().with("text", text(pi, "toolResultImageUserText")),
        )];
        parts.extend(image_parts);
        contents.push(Value::Object(
            Object::new().with("role", "user").with("parts", parts),
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

/// `convertTools(tools, useParameters = false, supportsStrictMode)` (google-shared.js:283–301;
/// G3): one `{functionDeclarations}` with `{name, description, parametersJsonSchema}`. The
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
        let parameters = get_json_schema_tool_parameters(&Strict::of(pi), tool, strict)?;
        declarations.push(Value::Object(
            Object::new()
                .with("name", tool.name.as_str())
                .with("description", tool.description.as_str())
                .with("parametersJsonSchema", parameters),
        ));
    }
    Ok(Some(Value::Array(vec![Value::Object(
        Object::new().with("functionDeclarations", declarations),
    )])))
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

    #[test]
    fn thought_signature_validity() {
        let ok = |s: &str| is_valid_thought_signature(Some(&Value::str(s)));
        assert!(ok("dGhvdWdodA==") && ok("abcd") && ok("ab+/"));
        assert!(!ok("") && !ok("abc") && !ok("ab=c") && !ok("a===") && !ok("====") && !ok("ab-_"));
    }
}

//! The JSON of [`crate::analysis::stats`].

use crate::analysis::stats::*;
use crate::js::{Object, Value};

fn round4(x: f64) -> f64 {
    (x * 10000.0).round() / 10000.0
}

/// The statistics as the CLI's `stats` JSON (camelCase, the shape).
pub fn to_json(s: &Stats) -> Value {
    let (sp, tl, hi) = s.shares();
    let sections: Vec<Value> = s
        .sections
        .iter()
        .map(|x| {
            let mut o = Object::new()
                .with("name", x.name.as_str())
                .with("source", x.source.as_str())
                .with("offset", x.offset)
                .with("chars", x.chars);
            // 0.86 on: the stored system message that set it.
            if let Some(stored) = &x.stored {
                o.insert("stored", Value::str(stored.as_str()));
            }
            o.into()
        })
        .collect();
    let by_tool: Vec<Value> = s
        .by_tool
        .iter()
        .map(|t| {
            Object::new()
                .with("name", t.name.as_str())
                .with("chars", t.chars)
                .with("descriptionChars", t.description_chars)
                .with("parametersChars", t.parameters_chars)
                .into()
        })
        .collect();
    let by_role: Vec<Value> = s
        .by_role
        .iter()
        .map(|r| {
            Object::new()
                .with("role", r.role.as_str())
                .with("count", r.count)
                .with("chars", r.chars)
                .into()
        })
        .collect();
    let by_result: Vec<Value> = s
        .tool_results_by_tool
        .iter()
        .map(|r| {
            Object::new()
                .with("name", r.name.as_str())
                .with("count", r.count)
                .with("chars", r.chars)
                .into()
        })
        .collect();
    let by_message: Vec<Value> = s
        .by_message
        .iter()
        .map(|m| {
            Object::new()
                .with("path", m.path.as_str())
                .with("role", m.role.as_str())
                .with(
                    "messages",
                    Value::Array(m.messages.iter().map(|&i| Value::from(i)).collect()),
                )
                .with(
                    "lines",
                    Value::Array(m.lines.iter().map(|&l| Value::from(l as usize)).collect()),
                )
                .with("chars", m.chars)
                .into()
        })
        .collect();
    let by_parameter: Vec<Value> = s
        .by_parameter
        .iter()
        .map(|(name, chars)| {
            Object::new()
                .with("name", name.as_str())
                .with("chars", *chars)
                .into()
        })
        .collect();
    let k = &s.by_kind;
    Object::new()
        .with(
            "systemPrompt",
            Object::new()
                .with("chars", s.system_prompt_chars)
                .with("sections", Value::Array(sections)),
        )
        .with(
            "tools",
            Object::new()
                .with("chars", s.tools_chars)
                .with("byTool", Value::Array(by_tool)),
        )
        .with(
            "history",
            Object::new()
                .with("chars", s.history_chars)
                .with("byRole", Value::Array(by_role))
                .with(
                    "byKind",
                    Object::new()
                        .with("userText", k.user_text)
                        .with("assistantText", k.assistant_text)
                        .with("reasoning", k.reasoning)
                        .with("toolArguments", k.tool_arguments)
                        .with("toolResults", k.tool_results)
                        .with("signatures", k.signatures)
                        .with("imageData", k.image_data)
                        .with("images", k.images),
                )
                .with("toolResultsByTool", Value::Array(by_result))
                .with("byMessage", Value::Array(by_message)),
        )
        .with(
            "parameters",
            Object::new()
                .with("chars", s.parameters_chars)
                .with("byName", Value::Array(by_parameter)),
        )
        .with("structure", Object::new().with("chars", s.structure_chars))
        .with(
            "shares",
            Object::new()
                .with("systemPrompt", round4(sp))
                .with("tools", round4(tl))
                .with("history", round4(hi)),
        )
        .with(
            "body",
            Object::new()
                .with("bytes", s.body_bytes)
                .with("chars", s.body_chars),
        )
        .into()
}

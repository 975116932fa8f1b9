//! The JSON of [`crate::analysis::stats`].

use crate::analysis::stats::*;
use crate::js::{Object, Value};

fn round4(x: f64) -> f64 {
    (x * 10000.0).round() / 10000.0
}

/// `o` with `tokens: n` after its `chars` when tokens were counted.
fn tok(s: &Stats, mut o: Object, n: usize) -> Object {
    if s.tokenizer.is_some() {
        o.insert("tokens", Value::from(n));
    }
    o
}

fn kinds(k: &KindStats, images: bool) -> Object {
    let o = Object::new()
        .with("userText", k.user_text)
        .with("assistantText", k.assistant_text)
        .with("reasoning", k.reasoning)
        .with("toolArguments", k.tool_arguments)
        .with("toolResults", k.tool_results)
        .with("signatures", k.signatures)
        .with("imageData", k.image_data);
    if images {
        o.with("images", k.images)
    } else {
        o
    }
}

/// The statistics as the CLI's `stats` JSON (camelCase, the shape). With a tokenizer,
/// `tokenizer: {name, exact}` and `tokens` beside `chars` on each block (`byKindTokens` beside
/// `byKind`); without one, `tokenizer: null` and no `tokens`.
pub fn to_json(s: &Stats) -> Value {
    let (sp, tl, hi) = s.shares();
    let sections: Vec<Value> = s
        .sections
        .iter()
        .map(|x| {
            let o = Object::new()
                .with("name", x.name.as_str())
                .with("source", x.source.as_str())
                .with("offset", x.offset)
                .with("chars", x.chars);
            let mut o = tok(s, o, x.tokens);
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
            let o = Object::new()
                .with("name", t.name.as_str())
                .with("chars", t.chars);
            let mut o = tok(s, o, t.tokens)
                .with("descriptionChars", t.description_chars)
                .with("parametersChars", t.parameters_chars);
            if s.tokenizer.is_some() {
                o.insert("descriptionTokens", Value::from(t.description_tokens));
                o.insert("parametersTokens", Value::from(t.parameters_tokens));
            }
            o.into()
        })
        .collect();
    let by_role: Vec<Value> = s
        .by_role
        .iter()
        .map(|r| {
            let o = Object::new()
                .with("role", r.role.as_str())
                .with("count", r.count)
                .with("chars", r.chars);
            tok(s, o, r.tokens).into()
        })
        .collect();
    let by_result: Vec<Value> = s
        .tool_results_by_tool
        .iter()
        .map(|r| {
            let o = Object::new()
                .with("name", r.name.as_str())
                .with("count", r.count)
                .with("chars", r.chars);
            tok(s, o, r.tokens).into()
        })
        .collect();
    let by_message: Vec<Value> = s
        .by_message
        .iter()
        .map(|m| {
            let o = Object::new()
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
                .with("chars", m.chars);
            tok(s, o, m.tokens).into()
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
    let tokenizer = match &s.tokenizer {
        Some(t) => Object::new()
            .with("name", t.name.as_str())
            .with("exact", t.exact)
            .into(),
        None => Value::Null,
    };
    let mut history = tok(
        s,
        Object::new().with("chars", s.history_chars),
        s.history_tokens,
    )
    .with("byRole", Value::Array(by_role))
    .with("byKind", kinds(&s.by_kind, true));
    if s.tokenizer.is_some() {
        history.insert("byKindTokens", kinds(&s.by_kind_tokens, false).into());
    }
    let history = history
        .with("toolResultsByTool", Value::Array(by_result))
        .with("byMessage", Value::Array(by_message));
    Object::new()
        .with("tokenizer", tokenizer)
        .with(
            "systemPrompt",
            tok(
                s,
                Object::new().with("chars", s.system_prompt_chars),
                s.system_prompt_tokens,
            )
            .with("sections", Value::Array(sections)),
        )
        .with(
            "tools",
            tok(
                s,
                Object::new().with("chars", s.tools_chars),
                s.tools_tokens,
            )
            .with("byTool", Value::Array(by_tool)),
        )
        .with("history", history)
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

//! The JSON of [`crate::analysis::calibration`] and of a model's vocabulary.

use super::opt_str;
use crate::analysis::calibration::*;
use crate::js::{Object, Value};
use crate::tokens::Vocabulary;

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn error_json(e: &Option<FitError>) -> Value {
    match e {
        Some(e) => Object::new()
            .with("meanAbsPct", round2(e.mean_abs_pct))
            .with("maxAbsPct", round2(e.max_abs_pct))
            .with("calls", e.calls)
            .into(),
        None => Value::Null,
    }
}

/// Which vocabulary the model needs: `{name, exact, why}` or `{name: null, kind, why}`.
pub fn vocabulary_json(v: &Vocabulary) -> Value {
    match v {
        Vocabulary::Known { name, exact, why } => Object::new()
            .with("name", name.as_str())
            .with("exact", *exact)
            .with("why", opt_str(why.as_deref()))
            .into(),
        Vocabulary::Unknown { kind, why } => Object::new()
            .with("name", Value::Null)
            .with("kind", opt_str(kind.as_deref()))
            .with("why", opt_str(why.as_deref()))
            .into(),
    }
}

/// The calls rebuilt against their usage, and the fit (camelCase).
pub fn to_json(c: &Calibration) -> Value {
    let calls: Vec<Value> = c
        .calls
        .iter()
        .map(|x| {
            let difference = x.tokens.map(|t| x.reported - t as f64);
            Object::new()
                .with("index", x.index)
                .with("entryId", opt_str(x.entry_id.as_deref()))
                .with("line", x.line)
                .with("provider", opt_str(x.provider.as_deref()))
                .with("model", opt_str(x.model.as_deref()))
                .with("reportedTokens", x.reported)
                .with("rebuiltChars", x.chars)
                .with("rebuiltTokens", x.tokens.map_or(Value::Null, Value::from))
                .with("difference", difference.map_or(Value::Null, Value::from))
                .with("messages", x.messages)
                .with("images", x.images)
                .with("used", x.used)
                .with("note", opt_str(x.note.as_deref()))
                .into()
        })
        .collect();
    let framing = match &c.framing {
        Some(f) => Object::new()
            .with("mean", round2(f.mean))
            .with("min", f.min)
            .with("max", f.max)
            .with(
                "perCall",
                f.per_message.map_or(Value::Null, |p| round2(p.0).into()),
            )
            .with(
                "perMessage",
                f.per_message.map_or(Value::Null, |p| round2(p.1).into()),
            )
            .with("calls", f.calls)
            .into(),
        None => Value::Null,
    };
    let estimate = match &c.estimate {
        Some(e) => {
            let (prefix, history) = e.ratios();
            Object::new()
                .with("charsPerToken", round2(e.chars_per_token))
                .with("plausible", e.plausible)
                .with("error", error_json(&e.error))
                .with(
                    "blocks",
                    match e.blocks {
                        Some((a, b)) => Object::new()
                            .with("systemPromptAndTools", round2(a))
                            .with("history", round2(b))
                            .into(),
                        None => Value::Null,
                    },
                )
                .with("blocksError", error_json(&e.blocks_error))
                .with(
                    "applied",
                    Object::new()
                        .with("systemPromptAndTools", round2(prefix))
                        .with("history", round2(history)),
                )
                .into()
        }
        None => Value::Null,
    };
    Object::new()
        .with("model", c.model.as_str())
        .with("calls", Value::Array(calls))
        .with("framing", framing)
        .with("estimate", estimate)
        .with(
            "notes",
            Value::Array(c.notes.iter().map(|n| Value::str(n.as_str())).collect()),
        )
        .into()
}

/// The window: `{contextWindow, tokens, share, compaction: {enabled, reserveTokens, threshold,
/// distance}}`.
pub fn window_json(w: &crate::analysis::window::Window) -> Value {
    Object::new()
        .with("contextWindow", w.context_window)
        .with("tokens", w.tokens)
        .with("share", (w.share * 10000.0).round() / 10000.0)
        .with("compaction", {
            let n = |x: f64| {
                if x.is_nan() {
                    Value::Null
                } else {
                    Value::from(x)
                }
            };
            let mut c = Object::new()
                .with("enabled", w.compaction_enabled)
                .with("reserveTokens", n(w.reserve_tokens))
                .with("threshold", n(w.threshold))
                .with("distance", n(w.distance));
            // pi's error for settings it refuses (1.x validates them).
            if let Some(e) = &w.compaction_error {
                c.insert("error", Value::str(e.as_str()));
            }
            c
        })
        .into()
}

//! The JSON of [`crate::analysis::whatif`].

use super::opt_str;
use super::upgrade::{blocks, first_change, headers, url};
use super::wire::Wire;
use crate::analysis::whatif::*;
use crate::js::{Object, Value};

fn num<T: Into<Value>>(n: Option<T>) -> Value {
    n.map_or(Value::Null, Into::into)
}

fn float(n: Option<f64>) -> Value {
    n.filter(|x| x.is_finite()).map_or(Value::Null, Value::from)
}

fn strings(v: &[String]) -> Value {
    Value::Array(v.iter().map(|s| Value::str(s.as_str())).collect())
}

/// A take-home: `{kind, text, …}` — `flags` (`flags`, `args`), `removeFiles` (`paths`),
/// `editFile` (`path`, `line`, `content`), `editSession` (`edits`, `content`), `install`
/// (`command`), `none` (`why`).
pub fn take_home_json(a: &Applied) -> Value {
    let o = Object::new();
    let o = match &a.take_home {
        TakeHome::Flags { flags, args } => o
            .with("kind", "flags")
            .with("flags", strings(flags))
            .with("args", strings(args)),
        TakeHome::RemoveFiles { paths } => {
            o.with("kind", "removeFiles").with("paths", strings(paths))
        }
        TakeHome::EditFile {
            path,
            line,
            content,
        } => o
            .with("kind", "editFile")
            .with("path", path.as_str())
            .with("line", line.as_str())
            .with("content", content.as_str()),
        TakeHome::EditSession { edits, content } => o
            .with("kind", "editSession")
            .with("edits", strings(edits))
            .with("content", content.as_str()),
        TakeHome::Install { command } => {
            o.with("kind", "install").with("command", command.as_str())
        }
        TakeHome::None { why } => o.with("kind", "none").with("why", why.as_str()),
    };
    o.with("text", a.text.as_str()).into()
}

fn side_json(s: &Side) -> Value {
    let prices = match &s.prices {
        Some(p) => Object::new()
            .with("input", p.input)
            .with("cacheRead", p.cache_read)
            .with("cacheWrite", p.cache_write)
            .into(),
        None => Value::Null,
    };
    Object::new()
        .with("chars", s.chars)
        .with("images", s.images)
        .with("tokens", num(s.tokens))
        .with("tokensExact", s.tokens_exact)
        .with("tokensBy", opt_str(s.tokens_by.as_deref()))
        .with("contextWindow", float(s.context_window))
        .with("windowShare", float(s.window_share))
        .with("pricesPerMillion", prices)
        .with(
            "costPerCall",
            Object::new()
                .with("input", float(s.cost(|p| p.input)))
                .with("cacheRead", float(s.cost(|p| p.cache_read)))
                .with("cacheWrite", float(s.cost(|p| p.cache_write))),
        )
        .into()
}

/// The what-if comparison (camelCase): `{changes, identical, firstChange, url, headers, blocks,
/// before, after, delta, cache, session}`.
pub fn to_json(w: &WhatIf, session: Option<&SessionWhatIf>) -> Value {
    let changes: Vec<Value> = w
        .applied
        .iter()
        .map(|a| {
            Object::new()
                .with("change", a.change.spec())
                .with("did", a.did.as_str())
                .with("takeHome", take_home_json(a))
                .into()
        })
        .collect();
    let delta_tokens = match (w.before.tokens, w.after.tokens) {
        (Some(x), Some(y)) => Value::from(y as f64 - x as f64),
        _ => Value::Null,
    };
    let cost_delta = |f: fn(&crate::analysis::whatif::Prices) -> f64| match (
        w.before.cost(f),
        w.after.cost(f),
    ) {
        (Some(x), Some(y)) => Value::from(y - x),
        _ => Value::Null,
    };
    let cache = match &w.cache {
        Some(c) => Object::new()
            .with(
                "firstChangedByte",
                num(w.diff.first_change.as_ref().map(|f| f.byte)),
            )
            .with("stablePrefixBytes", c.stable_prefix_bytes)
            .with("stableShare", c.stable_share)
            .with("nextCallCachedTokens", num(c.next_call_cached_tokens))
            .with("nextCallUncachedTokens", num(c.next_call_uncached_tokens))
            .with("nextCallCost", float(c.next_call_cost))
            .with("warmCallCost", float(c.warm_call_cost))
            .with("note", c.note.as_str())
            .into(),
        None => Value::Null,
    };
    Object::new()
        .with("changes", Value::Array(changes))
        .with("identical", w.diff.identical)
        .with(
            "firstChange",
            w.diff.first_change.as_ref().map(first_change).to_value(),
        )
        .with("url", w.diff.url.as_ref().map(url).to_value())
        .with("headers", headers(&w.diff.headers).to_value())
        .with("blocks", blocks(&w.diff.blocks).to_value())
        .with("before", side_json(&w.before))
        .with("after", side_json(&w.after))
        .with(
            "delta",
            Object::new()
                .with("chars", w.after.chars as f64 - w.before.chars as f64)
                .with("tokens", delta_tokens)
                .with(
                    "windowShare",
                    match (w.before.window_share, w.after.window_share) {
                        (Some(x), Some(y)) => Value::from(y - x),
                        _ => Value::Null,
                    },
                )
                .with(
                    "costPerCall",
                    Object::new()
                        .with("input", cost_delta(|p| p.input))
                        .with("cacheRead", cost_delta(|p| p.cache_read))
                        .with("cacheWrite", cost_delta(|p| p.cache_write)),
                ),
        )
        .with("cache", cache)
        .with("session", session.map_or(Value::Null, session_json))
        .into()
}

/// The whole session rebuilt with the change: `{calls, callsWithUsage, callsRebuilt, before,
/// after, saved, notes}`.
pub fn session_json(s: &SessionWhatIf) -> Value {
    let calls: Vec<Value> = s
        .calls
        .iter()
        .map(|c| {
            Object::new()
                .with("call", c.index)
                .with("entryId", opt_str(c.entry_id.as_deref()))
                .with("line", c.line)
                .with("beforeChars", c.before_chars)
                .with("afterChars", num(c.after_chars))
                .with("beforeTokens", num(c.before_tokens))
                .with("afterTokens", num(c.after_tokens))
                .with("reportedTokens", float(c.reported_tokens))
                .with("reportedTokensAfter", float(c.reported_tokens_after))
                .with("reportedCost", float(c.reported_cost))
                .with("note", opt_str(c.note.as_deref()))
                .into()
        })
        .collect();
    let saved_tokens = match (s.before_tokens, s.after_tokens) {
        (Some(x), Some(y)) => Value::from(x as f64 - y as f64),
        _ => Value::Null,
    };
    Object::new()
        .with("calls", Value::Array(calls))
        .with("callsWithUsage", s.calls_with_usage)
        .with("callsRebuilt", s.calls.len())
        .with(
            "before",
            Object::new()
                .with("chars", s.before_chars)
                .with("tokens", num(s.before_tokens))
                .with("reportedTokens", s.reported_tokens),
        )
        .with(
            "after",
            Object::new()
                .with("chars", s.after_chars)
                .with("tokens", num(s.after_tokens))
                .with("reportedTokens", float(s.reported_tokens_after)),
        )
        .with(
            "saved",
            Object::new()
                .with("chars", s.before_chars as f64 - s.after_chars as f64)
                .with("tokens", saved_tokens)
                .with(
                    "reportedTokens",
                    float(s.reported_tokens_after.map(|a| s.reported_tokens - a)),
                )
                .with("cost", float(s.cost_saved)),
        )
        .with("notes", strings(&s.notes))
        .into()
}

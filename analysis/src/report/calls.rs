//! The session's model calls as JSON: `calls` (the active branch's, each with the usage the
//! provider reported) and `call` (the one whose request was rebuilt, and how it was chosen).

use super::opt_str;
use crate::assemble::Assembly;
use crate::calls::{Call, CallUsage, RebuiltCall};
use crate::js::{Object, Value};

fn usage_json(u: &CallUsage) -> Value {
    Object::new()
        .with("input", u.input)
        .with("output", u.output)
        .with("cacheRead", u.cache_read)
        .with("cacheWrite", u.cache_write)
        .with(
            "totalTokens",
            u.total_tokens.map_or(Value::Null, Value::from),
        )
        .with("cost", u.cost.clone().unwrap_or(Value::Null))
        .into()
}

/// One call: `{index, entryId, parentId, line, timestamp, messageTimestamp, provider, model,
/// api, thinkingLevel, stopReason, errorMessage, usage, onActiveBranch}` (`usage`: `{input,
/// output, cacheRead, cacheWrite, totalTokens, cost}` as recorded, or `null`).
pub fn call_json(c: &Call) -> Value {
    Object::new()
        .with("index", c.index)
        .with("entryId", opt_str(c.entry_id.as_deref()))
        .with("parentId", opt_str(c.parent_id.as_deref()))
        .with("line", c.line)
        .with("timestamp", opt_str(c.timestamp.as_deref()))
        .with(
            "messageTimestamp",
            c.message_timestamp.map_or(Value::Null, Value::from),
        )
        .with("provider", opt_str(c.provider.as_deref()))
        .with("model", opt_str(c.model.as_deref()))
        .with("api", opt_str(c.api.as_deref()))
        .with("thinkingLevel", opt_str(c.thinking_level.as_deref()))
        .with("stopReason", opt_str(c.stop_reason.as_deref()))
        .with("errorMessage", opt_str(c.error_message.as_deref()))
        .with("usage", c.usage.as_ref().map_or(Value::Null, usage_json))
        .with("onActiveBranch", c.on_active_branch)
        .into()
}

/// The active branch's calls.
pub fn calls_json(a: &Assembly) -> Value {
    Value::Array(a.calls.iter().map(call_json).collect())
}

/// The rebuilt call (`null`: the request is the next one): [`call_json`] plus `chosen`
/// (`index`, `entry`, `last`), `modelFrom` / `thinkingFrom` (`given`, `call`, `session`) and
/// `retried` (the failed answers pi left out before it retried).
pub fn rebuilt_json(a: &Assembly) -> Value {
    let Some(RebuiltCall {
        call,
        chosen,
        model_from,
        thinking_from,
        retried,
    }) = &a.call
    else {
        return Value::Null;
    };
    let mut o = match call_json(call) {
        Value::Object(o) => o,
        _ => Object::new(),
    };
    o.insert("chosen", Value::str(chosen.as_str()));
    o.insert("modelFrom", Value::str(*model_from));
    o.insert("thinkingFrom", Value::str(*thinking_from));
    o.insert(
        "retried",
        Value::Array(retried.iter().map(Value::str).collect()),
    );
    o.into()
}

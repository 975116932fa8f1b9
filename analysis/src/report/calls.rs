//! The session's model calls as JSON: `calls` (the active branch's, each with the usage the
//! provider reported) and `call` (the one whose request was rebuilt, and how it was chosen); the
//! types are [`types::Call`] and [`types::RebuiltCall`].

use super::types;
use super::wire::Wire;
use crate::assemble::Assembly;
use crate::calls::{Call, RebuiltCall};
use crate::js::Value;

/// One call: `{index, entryId, parentId, line, timestamp, messageTimestamp, provider, model,
/// api, thinkingLevel, stopReason, errorMessage, usage, onActiveBranch}` (`usage`: `{input,
/// output, cacheRead, cacheWrite, totalTokens, cost}` as recorded, or `null`).
pub fn call_json(c: &Call) -> Value {
    types::Call::from(c).to_value()
}

/// The active branch's calls.
pub fn calls_json(a: &Assembly) -> Value {
    Value::Array(a.calls.iter().map(call_json).collect())
}

/// The rebuilt call (`None`: the request is the next one), with `chosen` (`index`, `entry`,
/// `last`), `modelFrom` / `thinkingFrom` (`given`, `call`, `session`) and `retried` (the failed
/// answers pi left out before it retried).
pub fn rebuilt(a: &Assembly) -> Option<types::RebuiltCall> {
    let RebuiltCall {
        call,
        chosen,
        model_from,
        thinking_from,
        retried,
    } = a.call.as_ref()?;
    Some(types::RebuiltCall {
        call: types::Call::from(call),
        chosen: chosen.as_str().to_string(),
        model_from: model_from.to_string(),
        thinking_from: thinking_from.to_string(),
        retried: retried.clone(),
    })
}

/// [`rebuilt`]'s JSON (`null`: the request is the next one).
pub fn rebuilt_json(a: &Assembly) -> Value {
    rebuilt(a).map_or(Value::Null, |r| r.to_value())
}

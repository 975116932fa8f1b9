//! The model calls of a session: pi sends one request per model call, and every assistant
//! message it stores is the answer to one (`streamAssistantResponse`, CORE/agent-loop.js, pushes
//! the stream's final message, a success, an `error` or an `aborted` one alike, and
//! `AgentSession` appends it at `message_end`, CA/core/agent-session.js:398). So the calls of a
//! branch are its assistant `message` entries, in order; the request of a call is rebuilt from
//! the branch up to the call's parent, with no new prompt.
//!
//! An errored answer is a call too: pi-ai stamps an error message when the provider fails, after
//! the request went out (an error pi raised before sending, such as a missing key, is stored the
//! same way: [`Call::error_message`] says what pi recorded).

// Text from the user: no string is sliced by byte range (a cut inside a character panics).
#![deny(clippy::string_slice)]

use crate::js::{to_number, Value};
use crate::session::SessionFile;

/// Which call of a session to rebuild (`--call`, the npm `call` option, the app's picker).
#[derive(Clone, Debug, PartialEq)]
pub enum CallRef {
    /// The K-th call (1-based) on the active branch.
    Index(usize),
    /// The call that produced this assistant entry, on any branch (its branch is then the path
    /// from the root to it).
    Entry(String),
    /// The next request: the prompt's, or without one pi's continue, which pi refuses after an
    /// assistant message ("Cannot continue from message role: assistant").
    Next,
}

impl CallRef {
    /// `next`, a number of up to 7 digits (an index: pi's entry ids have 8 characters), or an
    /// entry id.
    pub fn parse(text: &str) -> CallRef {
        let t = text.trim();
        if t.eq_ignore_ascii_case("next") {
            CallRef::Next
        } else if !t.is_empty() && t.len() < 8 && t.bytes().all(|b| b.is_ascii_digit()) {
            CallRef::Index(t.parse().unwrap_or(0))
        } else {
            CallRef::Entry(t.to_string())
        }
    }
}

impl std::fmt::Display for CallRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallRef::Index(k) => write!(f, "{k}"),
            CallRef::Entry(id) => f.write_str(id),
            CallRef::Next => f.write_str("next"),
        }
    }
}

/// The provider's usage as pi recorded it on the answer (`usage`, pi-ai's `Usage`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CallUsage {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    /// `totalTokens` as recorded (`None` when absent).
    pub total_tokens: Option<f64>,
    /// `cost` as recorded (`{input, output, cacheRead, cacheWrite, total}`), when recorded.
    pub cost: Option<Value>,
}

/// One model call: the assistant message that answered it.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// 1-based, among the calls of its branch.
    pub index: usize,
    /// Index into [`SessionFile::entries`].
    pub entry: usize,
    pub entry_id: Option<String>,
    /// The entry it answered from (the request's leaf); `None` for a root entry.
    pub parent_id: Option<String>,
    /// 1-based line in the session file.
    pub line: u32,
    /// The entry's `timestamp` (ISO text, when pi stored the answer).
    pub timestamp: Option<String>,
    /// The message's `timestamp` (ms): pi-ai stamps its answer with `Date.now()` when the stream
    /// starts, just before the request is sent.
    pub message_timestamp: Option<f64>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub api: Option<String>,
    /// The thinking level the call was made with, which pi records on the answer from 0.86
    /// (`thinkingLevel`, 1.6.0/CORE/agent-loop.js:282).
    pub thinking_level: Option<String>,
    pub stop_reason: Option<String>,
    pub error_message: Option<String>,
    pub usage: Option<CallUsage>,
    /// On pi's active branch (root → the last entry).
    pub on_active_branch: bool,
}

impl Call {
    /// `provider/model` as recorded, when both are.
    pub fn model_reference(&self) -> Option<String> {
        Some(format!(
            "{}/{}",
            self.provider.as_ref()?,
            self.model.as_ref()?
        ))
    }
}

/// Whether entry `i` is an assistant `message` entry.
pub fn is_call(file: &SessionFile, i: usize) -> bool {
    let e = &file.entries[i];
    e.kind() == "message"
        && e.value.get("message").and_then(|m| m.get_str("role")) == Some("assistant")
}

fn text(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str).map(String::from)
}

fn number(v: Option<&Value>) -> f64 {
    let n = to_number(v);
    if n.is_finite() {
        n
    } else {
        0.0
    }
}

/// The call of entry `i` (an assistant message entry), numbered `index` on its branch.
pub fn call_at(file: &SessionFile, i: usize, index: usize, on_active_branch: bool) -> Call {
    let e = &file.entries[i];
    let m = e.value.get("message");
    let get = |k: &str| m.and_then(|m| m.get(k));
    let usage = get("usage")
        .filter(|u| u.as_object().is_some())
        .map(|u| CallUsage {
            input: number(u.get("input")),
            output: number(u.get("output")),
            cache_read: number(u.get("cacheRead")),
            cache_write: number(u.get("cacheWrite")),
            total_tokens: u
                .get("totalTokens")
                .filter(|t| matches!(t, Value::Number(_)))
                .map(|t| number(Some(t))),
            cost: u.get("cost").filter(|c| c.as_object().is_some()).cloned(),
        });
    Call {
        index,
        entry: i,
        entry_id: text(e.value.get("id")),
        parent_id: e
            .value
            .get("parentId")
            .filter(|p| p.truthy())
            .map(|p| p.as_str().map(String::from).unwrap_or_else(|| p.to_json())),
        line: e.line,
        timestamp: text(e.value.get("timestamp")),
        message_timestamp: get("timestamp").and_then(Value::as_f64),
        provider: text(get("provider")),
        model: text(get("model")),
        api: text(get("api")),
        thinking_level: text(get("thinkingLevel")),
        stop_reason: text(get("stopReason")),
        error_message: text(get("errorMessage")),
        usage,
        on_active_branch,
    }
}

/// The calls along `path` (indices into the entries, root → leaf), numbered from 1.
pub fn calls_on(file: &SessionFile, path: &[usize], on_active_branch: bool) -> Vec<Call> {
    path.iter()
        .copied()
        .filter(|&i| is_call(file, i))
        .enumerate()
        .map(|(n, i)| call_at(file, i, n + 1, on_active_branch))
        .collect()
}

/// How the rebuilt call was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallChoice {
    /// `--call K`.
    Index,
    /// `--call ENTRY-ID`.
    Entry,
    /// No prompt and no call, and the active branch ends with an answer: its last call.
    Last,
}

impl CallChoice {
    pub fn as_str(self) -> &'static str {
        match self {
            CallChoice::Index => "index",
            CallChoice::Entry => "entry",
            CallChoice::Last => "last",
        }
    }
}

/// The call an assembly rebuilt.
#[derive(Clone, Debug, PartialEq)]
pub struct RebuiltCall {
    pub call: Call,
    pub chosen: CallChoice,
    /// Where the model came from: `given` (`--model`), `call` (the answer's provider/model).
    pub model_from: &'static str,
    /// Where the thinking level came from: `given`, `call` (recorded on the answer), `session`
    /// (the branch's last `thinking_level_change` before the call).
    pub thinking_from: &'static str,
    /// Failed answers just before the call that pi had taken out of its context before it
    /// retried (their entry ids).
    pub retried: Vec<String>,
}

#[cfg(test)]
#[path = "calls_tests.rs"]
mod tests;

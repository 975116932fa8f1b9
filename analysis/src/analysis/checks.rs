//! Facts about an assembly that the findings and the views share: tool calls in the history to
//! tools the request does not define, and the size of the context beside the model's window.
//! One implementation each; [`crate::analysis::findings`] words them and [`crate::report`]
//! carries them to the views.

use crate::assemble::Assembly;
use crate::context::LlmContext;
use crate::js::Value;
use crate::provenance::{message_origin, MessageOrigin};

/// An assistant's tool call, in what the request sends, to a tool the request does not define.
#[derive(Clone, Debug, PartialEq)]
pub struct UndefinedToolCall {
    /// The tool's name as the history has it.
    pub name: String,
    /// The call's id (`toolCall.id`).
    pub call_id: String,
    /// The session line of the assistant message (`None`: not from the session).
    pub line: Option<u32>,
    pub entry_id: Option<String>,
}

/// The tools the request defines: the active tools, or 0.86 on the transcript's declarations
/// (what the adapter sends).
pub fn defined_tool_names(a: &Assembly) -> Vec<&str> {
    let transcript = a.pi.as_ref().is_some_and(|pi| pi.rules.transcript);
    let tools = if transcript {
        &a.parts.declared_tools
    } else {
        &a.parts.tools
    };
    tools.iter().map(|t| t.name.as_str()).collect()
}

/// Every tool call of the LLM context (after `convertToLlm`) whose tool the request does not
/// define, in history order. Errored and aborted turns are left out: `transformMessages` drops
/// them (AI/api/transform-messages.js:159), so their calls are not sent.
pub fn undefined_tool_calls(a: &Assembly) -> Vec<UndefinedToolCall> {
    let defined = defined_tool_names(a);
    let map = a.agent_indices();
    let mut out = Vec::new();
    for (i, m) in a.parts.llm_messages.iter().enumerate() {
        if m.get_str("role") != Some("assistant")
            || matches!(m.get_str("stopReason"), Some("error" | "aborted"))
        {
            continue;
        }
        let Some(blocks) = m.get("content").and_then(Value::as_array) else {
            continue;
        };
        for b in blocks
            .iter()
            .filter(|b| b.get_str("type") == Some("toolCall"))
        {
            let name = b.get_str("name").unwrap_or("");
            if defined.contains(&name) {
                continue;
            }
            let (line, entry_id) = match message_origin(a, map, i) {
                MessageOrigin::Session { line, entry_id, .. } => (Some(line), entry_id),
                MessageOrigin::ThisTurn => (None, None),
            };
            out.push(UndefinedToolCall {
                name: name.to_string(),
                call_id: b.get_str("id").unwrap_or("").to_string(),
                line,
                entry_id,
            });
        }
    }
    out
}

/// The context's size by pi's own estimate beside the model's context window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContextSize {
    /// `estimateContextTokens(context).tokens` (AI/utils/estimate.js:91–115): the last
    /// assistant usage plus the messages after it, else every message, the system prompt and
    /// the tools at the release's chars per token.
    pub tokens: f64,
    /// The part of [`Self::tokens`] the provider reported (the last usage), 0 without one.
    pub usage_tokens: f64,
    /// The model's `contextWindow` (the catalog's, or models.json's).
    pub window: f64,
}

impl ContextSize {
    /// Whether the estimate is beyond the window.
    pub fn over(&self) -> bool {
        self.tokens > self.window
    }
}

/// pi's estimate of the context the adapter receives and the model's window; `None` without a
/// model, a window or a release.
pub fn context_size(a: &Assembly) -> Option<ContextSize> {
    let pi = a.pi.as_ref()?;
    let model = a.parts.model_choice.model.as_ref()?;
    let window = model.context_window();
    if window.is_nan() || window <= 0.0 {
        return None;
    }
    let p = &a.parts;
    // The context as the adapter got it (`Run::convert_to_llm`): 0.86 on only the messages
    // (the prompt and the tools are in its system messages).
    let ctx = if pi.rules.transcript {
        LlmContext::prompt(String::new(), p.llm_messages.clone(), Vec::new())
    } else {
        LlmContext::prompt(
            p.system_prompt.text.clone(),
            p.llm_messages.clone(),
            p.tools.clone(),
        )
    };
    let e = crate::messages::estimate_context(pi, &ctx);
    if e.tokens.is_nan() {
        return None;
    }
    Some(ContextSize {
        tokens: e.tokens,
        usage_tokens: e.usage_tokens,
        window,
    })
}

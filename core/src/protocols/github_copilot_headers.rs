//! pi-ai `dist/api/github-copilot-headers.js`: the dynamic headers pi adds for the
//! `github-copilot` provider (openai-completions, openai-responses, anthropic-messages).

use crate::js::{Object, Value};

/// `hasCopilotVisionInput(messages)` (AI/api/github-copilot-headers.js:8–18).
pub fn has_copilot_vision_input(messages: &[Value]) -> bool {
    messages.iter().any(|msg| {
        matches!(msg.get_str("role"), Some("user" | "toolResult"))
            && msg
                .get("content")
                .and_then(Value::as_array)
                .is_some_and(|c| c.iter().any(|b| b.get_str("type") == Some("image")))
    })
}

/// `buildCopilotDynamicHeaders({messages, hasImages})` with `inferCopilotInitiator`
/// (AI/api/github-copilot-headers.js:3–28).
pub fn build_copilot_dynamic_headers(messages: &[Value], has_images: bool) -> Object {
    let initiator = match messages.last() {
        Some(last) if last.get_str("role") != Some("user") => "agent",
        _ => "user",
    };
    let mut h = Object::new()
        .with("X-Initiator", initiator)
        .with("Openai-Intent", "conversation-edits");
    if has_images {
        h.insert("Copilot-Vision-Request", Value::str("true"));
    }
    h
}

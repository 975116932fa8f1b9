//! The cache prefix vs the history.

use super::*;

pub(super) fn check(cx: &Ctx, list: &mut List) {
    let a = cx.a;
    let updates = cx.updates;
    if let Some(s) = a.stats() {
        let prefix = s.system_prompt_chars - updates.min(s.system_prompt_chars) + s.tools_chars;
        let in_place_note = if updates > 0 {
            format!(
                " The system prompt updates kept in place ({} chars) are not part of it: they come later, with the conversation.",
                thousands(updates)
            )
        } else {
            String::new()
        };
        if prefix > 0 {
            list.push(
                "cache-prefix",
                Severity::Info,
                "The fixed prefix every call repeats",
                format!(
                    "System prompt + tools = {} chars (≈{} tokens at {} chars per token), {} of this request; the history is {} chars (≈{} tokens).{} A change in the prefix invalidates the provider's cache for everything after it.",
                    thousands(prefix),
                    thousands(s.tokens(prefix)),
                    crate::js::number_to_string(s.chars_per_token),
                    pct(prefix, s.total_chars()),
                    thousands(s.history_chars),
                    thousands(s.tokens(s.history_chars)),
                    in_place_note
                ),
                Some(StageId::AgentContext),
                None,
            );
        }
    }
}

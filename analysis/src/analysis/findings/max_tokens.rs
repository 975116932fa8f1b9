//! Max tokens clamped by the context window.

use super::*;

pub(super) fn check(cx: &Ctx, list: &mut List) {
    let a = cx.a;
    let model = cx.model;
    if let Some(e) = events(a, StageId::BuildParams)
        .find(|e| e.kind == EventKind::Clamped && at(e, &[MAX_TOKENS_CLAMP]))
    {
        list.push(
            "max-tokens-clamped",
            Severity::Warning,
            "The answer budget was cut to fit the context window",
            format!(
                "{} (context window {}, model maxTokens {}): the conversation is close to the window.",
                e.message,
                model.map(|m| thousands(m.context_window().max(0.0) as usize)).unwrap_or_default(),
                model.map(|m| thousands(m.max_tokens().max(0.0) as usize)).unwrap_or_default()
            ),
            Some(StageId::BuildParams),
            None,
        );
    }
}

//! The context beyond the model's window: by pi's estimate (what its auto-compaction
//! watches), or by the body as sent (its tokens where the vocabulary counted them, else its
//! characters at pi's ratio) — pi's estimate starts from the last usage the provider
//! reported, so a session whose usage is stale or small can be under it and still not fit.

use super::*;

pub(super) fn check(cx: &Ctx, list: &mut List) {
    let a = cx.a;
    let pi = cx.pi;
    let model = cx.model;
    if let (Some(c), Some(m)) = (crate::analysis::derived::context_size(a), model) {
        let ratio = pi.data.default_number("estimateCharsPerToken");
        let body = a.stats().map(|s| match s.tokenizer.as_ref() {
            Some(t) => (s.total_tokens() as f64, format!("counted with {}", t.name)),
            None => (
                (s.body_chars as f64 / ratio).ceil(),
                format!(
                    "its {} characters at {} per token",
                    thousands(s.body_chars),
                    crate::js::number_to_string(ratio)
                ),
            ),
        });
        let body_over = body.as_ref().filter(|(t, _)| *t > c.window);
        if c.over() || body_over.is_some() {
            let pi_estimate = format!(
                "pi's estimate of this request is {} tokens{}",
                thousands(c.tokens as usize),
                if c.usage_tokens > 0.0 {
                    format!(
                        " (the last reported usage, {}, plus the messages after it)",
                        thousands(c.usage_tokens as usize)
                    )
                } else {
                    format!(
                        " (its characters at {} per token)",
                        crate::js::number_to_string(ratio)
                    )
                }
            );
            let (tokens, lead) = match body_over {
                Some((t, how)) if !c.over() => (
                    *t,
                    format!(
                        "The request body is ≈ {} tokens ({how}), but {pi_estimate}, under the window: pi's auto-compaction, which watches its estimate, would not start",
                        thousands(*t as usize)
                    ),
                ),
                _ => (c.tokens, pi_estimate),
            };
            list.push(
                "context-over-window",
                Severity::Warning,
                "The context is larger than the model's window",
                format!(
                    "{lead}; {} has a context window of {} tokens ({} over). The provider is likely to refuse it; pi's auto-compaction (compaction.enabled, on by default) summarizes the session once its context passes the window less compaction.reserveTokens.",
                    m.reference(),
                    thousands(c.window as usize),
                    thousands((tokens - c.window) as usize)
                ),
                Some(StageId::BuildParams),
                None,
            );
        }
    }
}

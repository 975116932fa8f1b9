//! The request against the model's context window (the catalog's `contextWindow`) and pi's
//! compaction threshold: pi compacts when the context's tokens exceed `contextWindow -
//! reserveTokens` with compaction enabled (`shouldCompact`, CA/core/compaction/compaction.js:173;
//! the settings as [`crate::pi::Rules::compaction_model_overrides`] says).

use crate::assemble::Assembly;

#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    /// The model's `contextWindow` (0 when the catalog gives none).
    pub context_window: f64,
    /// The request's tokens (system prompt + tools + history, as counted or estimated).
    pub tokens: usize,
    /// `tokens / contextWindow`, 0..1 (more when over).
    pub share: f64,
    pub compaction_enabled: bool,
    /// pi's error for compaction settings it refuses (1.x validates them): pi then never gets
    /// to compact; `compaction_enabled` is false and the numbers NaN.
    pub compaction_error: Option<String>,
    pub reserve_tokens: f64,
    /// `contextWindow - reserveTokens`: pi compacts above it.
    pub threshold: f64,
    /// `threshold - tokens`: negative when pi would compact before this request.
    pub distance: f64,
}

/// The window of `a`'s model for a request of `tokens` tokens.
pub fn window(a: &Assembly, tokens: usize) -> Option<Window> {
    let model = a.parts.model_choice.model.as_ref()?;
    let pi = a.pi.as_ref()?;
    let context_window = model.context_window();
    // `getCompactionSettings(model)` as the release reads it (defaults from its data; 1.x
    // per-model overrides, validated: a setting pi refuses is its error).
    let (compaction_enabled, reserve_tokens, compaction_error) =
        match a
            .parts
            .settings
            .compaction(pi, model.provider(), model.id())
        {
            Ok(c) => (c.enabled, c.reserve_tokens, None),
            Err(e) => (false, f64::NAN, Some(e)),
        };
    let threshold = context_window - reserve_tokens;
    Some(Window {
        context_window,
        tokens,
        share: if context_window > 0.0 {
            tokens as f64 / context_window
        } else {
            0.0
        },
        compaction_enabled,
        compaction_error,
        reserve_tokens,
        threshold,
        distance: threshold - tokens as f64,
    })
}

//! The request against the model's context window (the catalog's `contextWindow`) and pi's
//! compaction threshold: pi compacts when the context's tokens exceed `contextWindow -
//! reserveTokens` with compaction enabled (`shouldCompact`, CA/core/compaction/compaction.js:173;
//! the settings as [`crate::pi::Rules::compaction_model_overrides`] says).

use crate::assemble::Assembly;
use crate::js::Value;

#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    /// The model's `contextWindow` (0 when the catalog gives none).
    pub context_window: f64,
    /// The request's tokens (system prompt + tools + history, as counted or estimated).
    pub tokens: usize,
    /// `tokens / contextWindow`, 0..1 (more when over).
    pub share: f64,
    pub compaction_enabled: bool,
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
    let compaction = a.parts.settings.get("compaction");
    let field = |o: Option<&Value>, k: &str| match o.and_then(|c| c.get(k)) {
        Some(Value::Number(n)) => Some(*n),
        _ => None,
    };
    let ordinary = field(compaction, "reserveTokens");
    let overridden = if pi.rules.compaction_model_overrides {
        let key = format!("{}/{}", model.provider(), model.id());
        field(
            compaction
                .and_then(|c| c.get("modelOverrides"))
                .and_then(|m| m.get(&key)),
            "reserveTokens",
        )
    } else {
        None
    };
    let reserve_tokens = overridden.or(ordinary).unwrap_or(16384.0);
    // `compaction?.enabled ?? true`, read as a condition.
    let compaction_enabled = match compaction.and_then(|c| c.get("enabled")) {
        None | Some(Value::Null) => true,
        Some(v) => v.truthy(),
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
        reserve_tokens,
        threshold,
        distance: threshold - tokens as f64,
    })
}

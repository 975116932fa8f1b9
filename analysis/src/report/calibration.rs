//! The JSON of [`crate::analysis::calibration`] and of a model's vocabulary.

pub use super::calibration_types::*;
use super::wire::Wire;
use crate::analysis::calibration::*;
use crate::js::Value;
use crate::tokens::Vocabulary;

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn fit_error(e: &Option<FitError>) -> Option<FitErrorInfo> {
    e.as_ref().map(|e| FitErrorInfo {
        mean_abs_pct: round2(e.mean_abs_pct),
        max_abs_pct: round2(e.max_abs_pct),
        calls: e.calls,
    })
}

/// Which vocabulary the model needs, as the report has it.
pub fn vocabulary(v: &Vocabulary) -> VocabularyInfo {
    match v {
        Vocabulary::Known { name, exact, why } => VocabularyInfo {
            name: Some(name.clone()),
            exact: Some(*exact).into(),
            kind: None.into(),
            why: why.clone(),
        },
        Vocabulary::Unknown { kind, why } => VocabularyInfo {
            name: None,
            exact: None.into(),
            kind: Some(kind.clone()).into(),
            why: why.clone(),
        },
    }
}

/// [`vocabulary`]'s JSON: `{name, exact, why}` or `{name: null, kind, why}`.
pub fn vocabulary_json(v: &Vocabulary) -> Value {
    vocabulary(v).to_value()
}

/// The vocabulary a [`VocabularyInfo`] names (what [`vocabulary`] made of it).
pub fn vocabulary_of(v: &VocabularyInfo) -> Vocabulary {
    match &v.name {
        Some(name) => Vocabulary::Known {
            name: name.clone(),
            exact: v.exact.unwrap_or(false),
            why: v.why.clone(),
        },
        None => Vocabulary::Unknown {
            kind: v.kind.0.clone().flatten(),
            why: v.why.clone(),
        },
    }
}

/// The calls rebuilt against their usage, and the fit, as the report has them.
pub fn calibration(c: &Calibration) -> CalibrationInfo {
    let calls = c
        .calls
        .iter()
        .map(|x| CalibratedCall {
            index: x.index,
            entry_id: x.entry_id.clone(),
            line: x.line as usize,
            provider: x.provider.clone(),
            model: x.model.clone(),
            reported_tokens: x.reported,
            rebuilt_chars: x.chars,
            rebuilt_tokens: x.tokens,
            difference: x.tokens.map(|t| x.reported - t as f64),
            messages: x.messages,
            images: x.images,
            used: x.used,
            note: x.note.clone(),
            pi: None.into(),
        })
        .collect();
    let framing = c.framing.as_ref().map(|f| FramingInfo {
        mean: round2(f.mean),
        min: f.min,
        max: f.max,
        per_call: f.per_message.map(|p| round2(p.0)),
        per_message: f.per_message.map(|p| round2(p.1)),
        calls: f.calls,
    });
    let estimate = c.estimate.as_ref().map(|e| {
        let (prefix, history) = e.ratios();
        EstimateInfo {
            chars_per_token: round2(e.chars_per_token),
            plausible: e.plausible,
            error: fit_error(&e.error),
            blocks: e.blocks.map(|(a, b)| BlockRatios {
                system_prompt_and_tools: round2(a),
                history: round2(b),
            }),
            blocks_error: fit_error(&e.blocks_error),
            applied: BlockRatios {
                system_prompt_and_tools: round2(prefix),
                history: round2(history),
            },
        }
    });
    CalibrationInfo {
        model: c.model.clone(),
        calls,
        framing,
        estimate,
        notes: c.notes.clone(),
    }
}

/// [`calibration`]'s JSON.
pub fn to_json(c: &Calibration) -> Value {
    calibration(c).to_value()
}

/// The model's window and pi's compaction threshold, as the report has them.
pub fn window(w: &crate::analysis::window::Window) -> WindowInfo {
    let n = |x: f64| (!x.is_nan()).then_some(x);
    WindowInfo {
        context_window: w.context_window,
        tokens: w.tokens,
        share: (w.share * 10000.0).round() / 10000.0,
        compaction: CompactionInfo {
            enabled: w.compaction_enabled,
            reserve_tokens: n(w.reserve_tokens),
            threshold: n(w.threshold),
            distance: n(w.distance),
            error: w.compaction_error.clone().into(),
        },
    }
}

/// [`window`]'s JSON: `{contextWindow, tokens, share, compaction: {enabled, reserveTokens,
/// threshold, distance}}`.
pub fn window_json(w: &crate::analysis::window::Window) -> Value {
    window(w).to_value()
}

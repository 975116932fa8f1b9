//! Token counts for `stats` and `summary`: the model's vocabulary (`ctxlens::tokens`) counted
//! with `ctxlens-tokens`, and the session's calls rebuilt against the usage they recorded
//! (`ctxlens::analysis::calibration`); without a vocabulary, the calibrated estimate.

use ctxlens::analysis::calibration::{self, Calibration};
use ctxlens::analysis::stats::{self, Stats};
use ctxlens::js::{Object, Value};
use ctxlens::tokens::{TokenCounter, TokenizerInfo, Vocabulary};
use ctxlens::{Assembly, Inputs};

use crate::host::Host;

#[cfg(feature = "tokens")]
struct Counter {
    inner: Box<dyn ctxlens_tokens::Tokenizer>,
    exact: bool,
}

#[cfg(feature = "tokens")]
impl TokenCounter for Counter {
    fn info(&self) -> TokenizerInfo {
        TokenizerInfo {
            name: self.inner.name().to_string(),
            exact: self.exact,
        }
    }
    fn count(&mut self, texts: &[&str]) -> Result<Vec<usize>, String> {
        texts.iter().map(|t| self.inner.count(t)).collect()
    }
}

/// The vocabulary `name` compiled in, or read from `tokenizer_json` (a HF tokenizer.json).
#[cfg(feature = "tokens")]
pub fn counter(
    name: &str,
    exact: bool,
    tokenizer_json: Option<&[u8]>,
) -> Result<Box<dyn TokenCounter>, String> {
    let inner: Box<dyn ctxlens_tokens::Tokenizer> = match (tokenizer_json, ctxlens_tokens::builtin(name)) {
        (Some(bytes), _) => Box::new(ctxlens_tokens::HfTokenizer::from_json(name, bytes)?),
        (None, Some(b)) => Box::new(b),
        (None, None) => {
            return Err(format!(
                "the {name} vocabulary is not built in (a HF tokenizer.json of it can be given with --tokenizer-json FILE)"
            ))
        }
    };
    Ok(Box::new(Counter { inner, exact }))
}

#[cfg(not(feature = "tokens"))]
pub fn counter(
    name: &str,
    _exact: bool,
    _tokenizer_json: Option<&[u8]>,
) -> Result<Box<dyn TokenCounter>, String> {
    Err(format!(
        "this build of ctxlens counts no tokens (the {name} vocabulary is not in it)"
    ))
}

fn borrow(c: &mut Option<Box<dyn TokenCounter>>) -> Option<&mut dyn TokenCounter> {
    match c {
        Some(b) => Some(&mut **b),
        None => None,
    }
}

/// What `stats` prints beside the characters.
pub struct Counted {
    pub stats: Stats,
    /// The request against the context window and pi's compaction threshold (with tokens).
    pub window: Option<ctxlens::analysis::window::Window>,
    pub vocabulary: Option<Vocabulary>,
    pub calibration: Option<Calibration>,
    /// Why the tokens are not counted, or how they are estimated.
    pub notes: Vec<String>,
}

/// The assembly's stats with tokens: counted with the model's vocabulary when the host has it,
/// else estimated from the session's own usage when it has some; the calls with usage
/// rebuilt against it either way.
/// Whether `count` rebuilds the session's calls with usage.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Calls {
    /// Always (`stats`: the calibration is part of its output).
    Always,
    /// Only when there is no vocabulary and an estimate needs them (`summary`).
    ForEstimate,
}

pub fn count(
    host: &mut dyn Host,
    inputs: &Inputs,
    a: &Assembly,
    tokenizer_json: Option<&[u8]>,
    calls: Calls,
    max_calls: Option<usize>,
) -> Option<Counted> {
    let plain = a.stats.clone()?;
    let vocabulary = ctxlens::tokens::vocabulary_of(a);
    let mut notes = Vec::new();
    let mut counter = match &vocabulary {
        Some(Vocabulary::Known { name, exact, why }) => {
            if let (false, Some(why)) = (exact, why) {
                notes.push(format!("{name} is an estimate: {why}"));
            }
            match host.token_counter(name, *exact, tokenizer_json) {
                Ok(c) => Some(c),
                Err(e) => {
                    notes.push(e);
                    None
                }
            }
        }
        Some(Vocabulary::Unknown { why, .. }) => {
            notes.push(match why {
                Some(why) => format!("no public vocabulary: {why}"),
                None => "the model's vocabulary is unknown to ctxlens: no exact count".into(),
            });
            None
        }
        None => None,
    };
    let mut s = match borrow(&mut counter) {
        Some(c) => match stats::compute_with_tokens(a, c) {
            Ok(Some(s)) => s,
            Ok(None) => plain.clone(),
            Err(e) => {
                notes.push(format!("the tokens could not be counted: {e}"));
                counter = None;
                plain.clone()
            }
        },
        None => plain.clone(),
    };
    let wanted = calls == Calls::Always || counter.is_none();
    let calibration = if wanted && a.calls.iter().any(|c| c.usage.is_some()) {
        match calibration::calibrate(inputs, a, borrow(&mut counter), max_calls) {
            Ok(c) => Some(c),
            Err(e) => {
                notes.push(format!(
                    "the calls could not be rebuilt against their usage: {e}"
                ));
                None
            }
        }
    } else {
        None
    };
    if counter.is_none() {
        match calibration.as_ref().and_then(|c| c.estimate.as_ref()) {
            Some(e) if !e.plausible => notes.push(format!(
                "no estimate: {:.1} characters per token is not a tokenizer's ratio, so the usage this session recorded does not look like these requests' tokens",
                e.chars_per_token
            )),
            Some(e) => {
                calibration::apply_estimate(&mut s, e);
                notes.push(format!(
                    "tokens estimated at {:.2} characters per token, measured on this session's calls{}",
                    e.chars_per_token,
                    match &e.error {
                        Some(err) => format!(
                            " (error {:.1}% on average, {:.1}% at most, over {} calls)",
                            err.mean_abs_pct, err.max_abs_pct, err.calls
                        ),
                        None => " (its error is not measured: one call)".into(),
                    }
                ));
            }
            None => notes.push(
                "no call of this model recorded its usage, so no estimate is calibrated: tokens are not shown".into(),
            ),
        }
    }
    let window = s
        .tokenizer
        .is_some()
        .then(|| ctxlens::analysis::window::window(a, s.total_tokens()))
        .flatten();
    Some(Counted {
        window,
        stats: s,
        vocabulary,
        calibration,
        notes,
    })
}

/// `stats`' JSON: the accounting, then the vocabulary, the calibration and the notes.
pub fn stats_json(c: &Counted) -> Value {
    let mut o = match ctxlens::report::stats::to_json(&c.stats) {
        Value::Object(o) => o,
        _ => Object::new(),
    };
    o.insert(
        "vocabulary",
        c.vocabulary
            .as_ref()
            .map_or(Value::Null, ctxlens::report::calibration::vocabulary_json),
    );
    o.insert(
        "window",
        c.window
            .as_ref()
            .map_or(Value::Null, ctxlens::report::calibration::window_json),
    );
    o.insert(
        "calibration",
        c.calibration
            .as_ref()
            .map_or(Value::Null, ctxlens::report::calibration::to_json),
    );
    o.insert(
        "tokenNotes",
        Value::Array(c.notes.iter().map(|n| Value::str(n.as_str())).collect()),
    );
    o.into()
}

/// The summary table's legend: which vocabulary, or how the estimate was made.
pub fn legend(c: &Counted) -> Vec<String> {
    let Some(t) = &c.stats.tokenizer else {
        // Why there is no count, wrapped to the table's width.
        return c.notes.iter().flat_map(|n| wrap(n, 76)).collect();
    };
    let mut out = Vec::new();
    if t.name == "estimate" {
        if let Some(e) = c.calibration.as_ref().and_then(|c| c.estimate.as_ref()) {
            out.push(format!(
                "≈ tokens: estimated at {:.2} chars/token, measured on this session's calls;",
                e.chars_per_token
            ));
            out.push(match &e.error {
                Some(err) => format!(
                    "its error on them: {:.1}% on average, {:.1}% at most ({} calls)",
                    err.mean_abs_pct, err.max_abs_pct, err.calls
                ),
                None => "its error is not measured (one call with usage)".into(),
            });
        }
    } else if t.exact {
        out.push(format!(
            "tokens: {}, the model's own vocabulary, each text on its own (the chat",
            t.name
        ));
        out.push("template's framing is not included: `ctxlens stats` measures it)".into());
    } else {
        out.push(format!(
            "≈ tokens: {}, an estimate (`ctxlens stats` says why)",
            t.name
        ));
    }
    out
}

/// `text` in lines of at most `width` characters, broken at spaces.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

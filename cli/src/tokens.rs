//! Token counts for `stats` and `summary`: the model's vocabulary (`ctxlens::tokens`) counted
//! with `ctxlens-tokens`, and the session's calls rebuilt against the usage they recorded
//! (`ctxlens::analysis::calibration`); without a vocabulary, the calibrated estimate.

use ctxlens::js::{Object, Value};
#[cfg(feature = "tokens")]
use ctxlens::tokens::TokenizerInfo;
use ctxlens::tokens::{TokenCounter, Vocabulary};
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

pub use ctxlens::tokens::Counted;

pub use ctxlens::tokens::Calls;

/// The assembly's stats with tokens ([`ctxlens::tokens::count`]), with the vocabulary this
/// host has (compiled in, or `tokenizer_json`).
pub fn count(
    host: &mut dyn Host,
    inputs: &Inputs,
    a: &Assembly,
    tokenizer_json: Option<&[u8]>,
    calls: Calls,
    max_calls: Option<usize>,
) -> Option<Counted> {
    let mut counter = match ctxlens::tokens::vocabulary_of(a) {
        Some(Vocabulary::Known { name, exact, .. }) => {
            host.token_counter(&name, exact, tokenizer_json).map(Some)
        }
        _ => Ok(None),
    };
    let counter = match &mut counter {
        Ok(Some(c)) => Ok(Some(&mut **c as &mut dyn TokenCounter)),
        Ok(None) => Ok(None),
        Err(e) => Err(e.clone()),
    };
    ctxlens::tokens::count(inputs, a, counter, calls, max_calls)
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

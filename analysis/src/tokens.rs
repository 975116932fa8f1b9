//! Tokens: which vocabulary a model's provider counts with (`data/model-tokenizers.json`), and
//! the seam through which a host counts texts with it.
//!
//! The vocabularies themselves are not here: they are hundreds of kilobytes each, so the core
//! (and its wasm) carries none. A host that has one (the CLI links `ctxlens-tokens`; the page
//! loads one vocabulary's wasm module in its worker) passes a [`TokenCounter`] to
//! [`crate::analysis::stats::compute_with_tokens`].

use crate::js::{self, Value};
use crate::AssemblyStats;

/// The rules shipped with ctxlens (ctxlens-owned data: pi's catalog names no tokenizer).
pub const MODEL_TOKENIZERS_JSON: &str = include_str!("../data/model-tokenizers.json");

/// What a model's tokens are counted with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Vocabulary {
    /// A public vocabulary. `exact: false` when it is not proved to be the provider's (Gemini on
    /// Gemma's vocabulary; a vocabulary no reference tokenizer confirmed); `why` says why.
    Known {
        name: String,
        exact: bool,
        why: Option<String>,
    },
    /// No public vocabulary. `kind` names the estimate that applies (`claude`: calibrated on
    /// the session's usage), `None` when nothing is known of the model.
    Unknown {
        kind: Option<String>,
        why: Option<String>,
    },
}

impl Vocabulary {
    /// The vocabulary's name, when there is one.
    pub fn name(&self) -> Option<&str> {
        match self {
            Vocabulary::Known { name, .. } => Some(name),
            Vocabulary::Unknown { .. } => None,
        }
    }
}

crate::report::wire::wire_struct! {
    /// A vocabulary a host can count with: its name and whether its counts are the provider's.
    pub struct TokenizerInfo {
        pub name: String = "name",
        /// The model's own vocabulary (not an estimate by a neighbour's).
        pub exact: bool = "exact",
    }
}

/// Counts texts' tokens, each text encoded on its own (no BOS/EOS, no chat template).
pub trait TokenCounter {
    fn info(&self) -> TokenizerInfo;
    /// One count per text, in order; an error says why the texts could not be counted.
    fn count(&mut self, texts: &[&str]) -> Result<Vec<usize>, String>;
    /// The count of a text counted before, known by its [`digest`](crate::js::memo::digest)
    /// and its UTF-16 length, without reading it: a counter that remembers its counts (the
    /// usage's, over the calls of a session) says it; others do not.
    fn recall(&self, _digest: u64, _chars: usize) -> Option<usize> {
        None
    }
}

struct Rule {
    prefixes: Vec<String>,
    providers: Option<Vec<String>>,
    tokenizer: Option<String>,
    exact: bool,
    kind: Option<String>,
    why: Option<String>,
}

/// The ordered rules of `model-tokenizers.json`; the first that matches wins.
pub struct Rules {
    rules: Vec<Rule>,
}

fn strings(v: &Value, what: &str) -> Result<Vec<String>, String> {
    let list = v.as_array().ok_or(format!("`{what}` is not a list"))?;
    list.iter()
        .map(|x| {
            x.as_str()
                .map(str::to_lowercase)
                .ok_or(format!("`{what}` holds a value that is not a string"))
        })
        .collect()
}

impl Rules {
    /// The rules shipped with ctxlens (read once per process).
    pub fn shipped() -> &'static Rules {
        static SHIPPED: std::sync::OnceLock<Rules> = std::sync::OnceLock::new();
        SHIPPED.get_or_init(|| {
            Rules::parse(MODEL_TOKENIZERS_JSON)
                .expect("data/model-tokenizers.json is valid (tested)")
        })
    }

    /// Parses a rules file; the error names the rule and what is wrong with it.
    pub fn parse(json: &str) -> Result<Rules, String> {
        let doc = js::parse(json).map_err(|e| format!("not JSON: {e}"))?;
        let list = doc
            .get("rules")
            .and_then(Value::as_array)
            .ok_or("no `rules` list")?;
        let mut rules = Vec::new();
        for (i, rule) in list.iter().enumerate() {
            let err = |e: String| format!("rule {i}: {e}");
            let prefixes =
                strings(rule.get("match").unwrap_or(&Value::Null), "match").map_err(err)?;
            if prefixes.is_empty() || prefixes.iter().any(String::is_empty) {
                return Err(format!("rule {i}: `match` needs non-empty prefixes"));
            }
            let providers = match rule.get("provider") {
                None => None,
                Some(v) => Some(strings(v, "provider").map_err(err)?),
            };
            let tokenizer = match rule.get("tokenizer") {
                Some(Value::String(s)) => Some(s.to_string()),
                Some(Value::Null) => None,
                _ => return Err(format!("rule {i}: `tokenizer` must be a string or null")),
            };
            let text = |k: &str| rule.get_str(k).map(str::to_string);
            rules.push(Rule {
                prefixes,
                providers,
                exact: matches!(rule.get("exact"), Some(Value::Bool(true))),
                kind: text("kind"),
                why: text("why"),
                tokenizer,
            });
        }
        Ok(Rules { rules })
    }

    /// The vocabulary of `provider`'s model `model_id`.
    pub fn resolve(&self, provider: &str, model_id: &str) -> Vocabulary {
        let (provider, id) = (provider.to_lowercase(), model_id.to_lowercase());
        // Where a family name may start: the id's start, or after a `/`, `.` or `:`.
        let starts: Vec<&str> = std::iter::once(id.as_str())
            .chain(id.match_indices(['/', '.', ':']).map(|(i, _)| &id[i + 1..]))
            .collect();
        let hit = self.rules.iter().find(|r| {
            r.providers.as_ref().is_none_or(|p| p.contains(&provider))
                && r.prefixes
                    .iter()
                    .any(|p| starts.iter().any(|s| s.starts_with(p.as_str())))
        });
        match hit {
            Some(Rule {
                tokenizer: Some(name),
                exact,
                why,
                ..
            }) => Vocabulary::Known {
                name: name.clone(),
                exact: *exact,
                why: why.clone(),
            },
            Some(Rule { kind, why, .. }) => Vocabulary::Unknown {
                kind: kind.clone(),
                why: why.clone(),
            },
            None => Vocabulary::Unknown {
                kind: None,
                why: None,
            },
        }
    }
}

/// The vocabulary of an assembly's model, by the shipped rules (`None` without a model).
pub fn vocabulary_of(a: &crate::Assembly) -> Option<Vocabulary> {
    let m = a.parts.model_choice.model.as_ref()?;
    Some(Rules::shipped().resolve(m.provider(), m.id()))
}

/// An assembly's statistics with tokens, as every host shows them (the CLI's `stats` and
/// `summary`, the page's worker): counted with the model's vocabulary when the host has it, else
/// estimated from the session's own usage when it has some; the calls with usage rebuilt
/// against it.
#[derive(Clone, Debug, PartialEq)]
pub struct Counted {
    pub stats: crate::analysis::stats::Stats,
    /// The request against the context window and pi's compaction threshold (with tokens).
    pub window: Option<crate::analysis::window::Window>,
    pub vocabulary: Option<Vocabulary>,
    pub calibration: Option<crate::analysis::calibration::Calibration>,
    /// Why the tokens are not counted, or how they are estimated.
    pub notes: Vec<String>,
}

/// Whether [`count`] rebuilds the session's calls with usage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Calls {
    /// Always (`stats`, the app: the calibration is part of what they show).
    Always,
    /// Only when there is no vocabulary and an estimate needs them (`summary`).
    ForEstimate,
}

/// [`Counted`] for `a` (assembled from `inputs`). `counter` is the host's counter for the
/// model's vocabulary ([`vocabulary_of`]): `Ok(None)` when the model has no public vocabulary,
/// `Err(why)` when the host could not get it (not built in, not loaded). At most `max_calls`
/// calls are rebuilt (`calibrate`'s). `None` without stats.
pub fn count(
    inputs: &crate::Inputs,
    a: &crate::Assembly,
    counter: Result<Option<&mut dyn TokenCounter>, String>,
    calls: Calls,
    max_calls: Option<usize>,
) -> Option<Counted> {
    use crate::analysis::{calibration, stats};
    // The characters alone: the assembly's own stats, or (an assembly made without them, so
    // that the stats are computed once, with the counts) computed here when needed.
    a.request.as_ref()?;
    let plain = || a.stats().cloned().or_else(|| stats::compute(a));
    let vocabulary = vocabulary_of(a);
    let mut notes = Vec::new();
    if let Some(Vocabulary::Known {
        name,
        exact: false,
        why: Some(why),
    }) = &vocabulary
    {
        notes.push(format!("{name} is an estimate: {why}"));
    }
    if let Some(Vocabulary::Unknown { why, .. }) = &vocabulary {
        notes.push(match why {
            Some(why) => format!("no public vocabulary: {why}"),
            None => "the model's vocabulary is unknown to ctxlens: no exact count".into(),
        });
    }
    let mut counter = match counter {
        Ok(c) => c,
        Err(e) => {
            notes.push(e);
            None
        }
    };
    let mut s = match reborrow(&mut counter) {
        Some(c) => match stats::compute_with_tokens(a, c) {
            Ok(Some(s)) => s,
            Ok(None) => plain()?,
            Err(e) => {
                notes.push(format!("the tokens could not be counted: {e}"));
                counter = None;
                plain()?
            }
        },
        None => plain()?,
    };
    // An estimate from usage is for a model with no public vocabulary (Claude) or one whose
    // vocabulary this host does not have; a model ctxlens knows nothing of stays unknown.
    let estimable = !matches!(
        vocabulary,
        Some(Vocabulary::Unknown { kind: None, .. }) | None
    );
    let wanted = calls == Calls::Always || counter.is_none() && estimable;
    let calibration = if wanted && a.calls.iter().any(|c| c.usage.is_some()) {
        match calibration::calibrate(inputs, a, reborrow(&mut counter), max_calls) {
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
    // A model with no public vocabulary (Claude) has no count to wait for: where the session's
    // usage gives no ratio to calibrate on, pi's own ratio stands in, said as one. A model whose
    // vocabulary this host has not loaded waits for it instead.
    let no_vocabulary = matches!(vocabulary, Some(Vocabulary::Unknown { kind: Some(_), .. }));
    if counter.is_none() && estimable {
        // pi's own ratio (pi shows the same estimate in its footer).
        let pis = || calibration::Estimate {
            chars_per_token: a
                .pi
                .as_ref()
                .map_or(4.0, |pi| pi.data.default_number("estimateCharsPerToken")),
            plausible: true,
            error: None,
            blocks: None,
            blocks_error: None,
        };
        match calibration.as_ref().and_then(|c| c.estimate.as_ref()) {
            Some(e) if !e.plausible && !no_vocabulary => notes.push(format!(
                "no estimate: {:.1} characters per token is not a tokenizer's ratio, so the usage this session recorded does not look like these requests' tokens",
                e.chars_per_token
            )),
            Some(e) if !e.plausible => {
                let p = pis();
                calibration::apply_estimate(&mut s, &p);
                notes.push(format!(
                    "tokens estimated at {} characters per token, pi's own estimate (its error is not measured): the usage this session recorded does not look like these requests' tokens ({:.1} characters per token is not a tokenizer's ratio), so it is not calibrated on",
                    crate::js::number_to_string(p.chars_per_token),
                    e.chars_per_token
                ));
            }
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
            None if !no_vocabulary => notes.push(
                "no call of this model recorded its usage, so no estimate is calibrated: tokens are not shown".into(),
            ),
            None => {
                let p = pis();
                calibration::apply_estimate(&mut s, &p);
                notes.push(format!(
                    "tokens estimated at {} characters per token, pi's own estimate (its error is not measured): no call of this model recorded its usage to calibrate on",
                    crate::js::number_to_string(p.chars_per_token)
                ));
            }
        }
    }
    let window = s
        .tokenizer
        .is_some()
        .then(|| crate::analysis::window::window(a, s.total_tokens()))
        .flatten();
    Some(Counted {
        window,
        stats: s,
        vocabulary,
        calibration,
        notes,
    })
}

/// The counter for one use, leaving it for the next (a shorter borrow of a `&mut dyn`).
fn reborrow<'a>(c: &'a mut Option<&mut dyn TokenCounter>) -> Option<&'a mut dyn TokenCounter> {
    match c {
        Some(b) => Some(&mut **b),
        None => None,
    }
}

//! Tokens against the provider's own count: every call of the session that recorded its usage
//! is rebuilt (its request as pi sent it, [`crate::calls`]) and its blocks measured, beside the
//! prompt tokens the provider reported for it (`input + cacheRead + cacheWrite`, as pi stores
//! them on the answer).
//!
//! - With a public vocabulary, the difference is the framing the chat template adds (roles,
//!   separators, the tools' rendering), which no public tokenizer knows: measured per call, and
//!   per message where the calls differ enough to separate it.
//! - Without one (Claude), the session itself gives the characters per token: fitted over its
//!   calls of the same model, once for the whole prompt and, where the calls differ enough, per
//!   block (system prompt + tools, history); its error is measured by leaving each call out in
//!   turn and predicting it from the others.

use crate::analysis::stats::{self, Stats};
use crate::assemble::Assembly;
use crate::calls::CallRef;
use crate::inputs::Inputs;
use crate::tokens::{TokenCounter, TokenizerInfo};
use crate::AssemblyStats;

/// One call with usage, rebuilt.
#[derive(Clone, Debug, PartialEq)]
pub struct CallTokens {
    /// 1-based index on its branch, the answer's entry id and session line.
    pub index: usize,
    pub entry_id: Option<String>,
    pub line: u32,
    pub provider: Option<String>,
    pub model: Option<String>,
    /// The provider's prompt tokens: `input + cacheRead + cacheWrite`.
    pub reported: f64,
    /// System prompt + tools + history, in characters, of the rebuilt request.
    pub chars: usize,
    pub prefix_chars: usize,
    pub history_chars: usize,
    /// The rebuilt request's texts in tokens (with a vocabulary).
    pub tokens: Option<usize>,
    /// Messages on the wire (framing is paid per message).
    pub messages: usize,
    pub images: usize,
    /// Used in the fit (same model, rebuilt, no images, a non-zero usage).
    pub used: bool,
    /// Why not used, or what to know about it.
    pub note: Option<String>,
}

/// Relative error of a fit, from leaving each call out in turn.
#[derive(Clone, Debug, PartialEq)]
pub struct FitError {
    /// Mean and largest |predicted − reported| / reported, in percent.
    pub mean_abs_pct: f64,
    pub max_abs_pct: f64,
    pub calls: usize,
}

/// Characters per token, for the whole prompt and (where separable) per block.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    pub chars_per_token: f64,
    /// Whether the ratio is one a tokenizer gives (1 to 10 characters per token): usage made
    /// up by a stand-in provider, or of other requests, is not.
    pub plausible: bool,
    pub error: Option<FitError>,
    /// System prompt + tools, and history, each with its own ratio (the framing goes with
    /// them); `None` when the calls do not tell them apart.
    pub blocks: Option<(f64, f64)>,
    pub blocks_error: Option<FitError>,
}

/// The framing a chat template adds, in tokens: reported − counted.
#[derive(Clone, Debug, PartialEq)]
pub struct Framing {
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    /// `(per call, per message)` where the calls' message counts differ enough to fit it.
    pub per_message: Option<(f64, f64)>,
    pub calls: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Calibration {
    /// The model the fit is for (the assembly's): `provider/id`.
    pub model: String,
    pub calls: Vec<CallTokens>,
    /// With a vocabulary: the framing. Without: the estimate.
    pub framing: Option<Framing>,
    pub estimate: Option<Estimate>,
    /// What could not be measured, and why.
    pub notes: Vec<String>,
}

fn fit_error(points: &[(f64, f64)], predict: impl Fn(usize) -> Option<f64>) -> Option<FitError> {
    let errs: Vec<f64> = (0..points.len())
        .filter_map(|i| predict(i).map(|p| ((p - points[i].1) / points[i].1).abs() * 100.0))
        .collect();
    if errs.is_empty() {
        return None;
    }
    Some(FitError {
        mean_abs_pct: errs.iter().sum::<f64>() / errs.len() as f64,
        max_abs_pct: errs.iter().cloned().fold(0.0, f64::max),
        calls: errs.len(),
    })
}

/// reported ≈ chars / r: r = Σchars / Σreported.
fn ratio(points: &[(f64, f64)], skip: Option<usize>) -> Option<f64> {
    let (c, t) = points
        .iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != skip)
        .fold((0.0, 0.0), |(c, t), (_, p)| (c + p.0, t + p.1));
    (t > 0.0 && c > 0.0).then(|| c / t)
}

/// Least squares of y ≈ a·x1 + b·x2 (no intercept), over the rows not skipped; `None` when
/// the rows do not tell the two apart or a coefficient is not positive.
fn fit2(rows: &[(f64, f64, f64)], skip: Option<usize>) -> Option<(f64, f64)> {
    let (mut s11, mut s12, mut s22, mut s1y, mut s2y) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for (i, &(x1, x2, y)) in rows.iter().enumerate() {
        if Some(i) == skip {
            continue;
        }
        s11 += x1 * x1;
        s12 += x1 * x2;
        s22 += x2 * x2;
        s1y += x1 * y;
        s2y += x2 * y;
    }
    let det = s11 * s22 - s12 * s12;
    // Nearly collinear (the rows' proportions barely change): not separable.
    if det.is_nan() || det <= 1e-6 * s11 * s22 {
        return None;
    }
    let a = (s1y * s22 - s2y * s12) / det;
    let b = (s2y * s11 - s1y * s12) / det;
    (a > 0.0 && b > 0.0).then_some((a, b))
}

/// The most calls [`calibrate`] rebuilds by default.
pub const MAX_CALLS: usize = 16;

/// `k` indices of `0..n` evenly spaced, the last included (all of them when `n <= k`).
fn sample(n: usize, k: usize) -> Vec<usize> {
    if n <= k {
        return (0..n).collect();
    }
    let mut out: Vec<usize> = (0..k)
        .map(|j| (n - 1) - (k - 1 - j) * (n - 1) / (k - 1))
        .collect();
    out.dedup();
    out
}

fn rebuilt_model(a: &Assembly) -> Option<String> {
    Some(a.parts.model_choice.model.as_ref()?.id().to_string())
}

/// Rebuilds every call with usage of `a`'s session and measures it; with `counter`, counts
/// its tokens. `inputs` are `a`'s.
pub fn calibrate(
    inputs: &Inputs,
    a: &Assembly,
    mut counter: Option<&mut dyn TokenCounter>,
    max_calls: Option<usize>,
) -> Result<Calibration, String> {
    let target = a
        .parts
        .model_choice
        .model
        .as_ref()
        .map(|m| (m.provider().to_string(), m.id().to_string()));
    let mut out = Calibration {
        model: target
            .as_ref()
            .map_or_else(String::new, |(p, m)| format!("{p}/{m}")),
        calls: Vec::new(),
        framing: None,
        estimate: None,
        notes: Vec::new(),
    };
    let vocabulary = crate::tokens::vocabulary_of(a);
    let with_usage: Vec<&crate::calls::Call> =
        a.calls.iter().filter(|c| c.usage.is_some()).collect();
    // Each call is one more assembly of the session: past `max_calls` (default MAX_CALLS),
    // evenly spaced ones (the last always), and said.
    let picked = sample(with_usage.len(), max_calls.unwrap_or(MAX_CALLS).max(1));
    if picked.len() < with_usage.len() {
        out.notes.push(format!(
            "{} of the {} calls with usage rebuilt, evenly spaced (the last included): each is one more assembly of the session",
            picked.len(),
            with_usage.len()
        ));
    }
    // The session is read once for every call rebuilt.
    let ws = crate::Workspace::with_budget(0);
    let rebuild = Rebuild {
        inputs,
        a,
        target,
        vocabulary,
        ws,
    };
    for call in picked.into_iter().map(|i| with_usage[i]) {
        out.calls.push(rebuild.call(call, counter.as_deref_mut())?);
    }
    let used: Vec<&CallTokens> = out.calls.iter().filter(|c| c.used).collect();
    if used.is_empty() {
        out.notes.push(if out.calls.is_empty() {
            "no call of this session recorded its usage".into()
        } else {
            "no call of this model with usage could be used".into()
        });
        return Ok(out);
    }
    if counter.is_some() {
        out.framing = Some(framing(&used));
        return Ok(out);
    }
    out.estimate = Some(estimate(&used, &mut out.notes));
    Ok(out)
}

/// What every call's rebuild shares: the inputs, the assembly calibrated, its model and
/// vocabulary, and the workspace that reads the session once.
struct Rebuild<'a> {
    inputs: &'a Inputs,
    a: &'a Assembly,
    target: Option<(String, String)>,
    vocabulary: Option<crate::tokens::Vocabulary>,
    ws: crate::Workspace,
}

impl Rebuild<'_> {
    /// Rebuilds one call with usage and measures it (counted with `counter` when the call's
    /// vocabulary is the assembly's), with why it is not used in the fit.
    fn call(
        &self,
        call: &crate::calls::Call,
        mut counter: Option<&mut (dyn TokenCounter + '_)>,
    ) -> Result<CallTokens, String> {
        let (a, vocabulary, target) = (self.a, &self.vocabulary, &self.target);
        let u = call.usage.as_ref().expect("filtered");
        let reported = u.input + u.cache_read + u.cache_write;
        let mut i = self.inputs.clone();
        i.prompt = None;
        i.call = Some(match &call.entry_id {
            Some(id) => CallRef::Entry(id.clone()),
            None => CallRef::Index(call.index),
        });
        let rebuilt = self.ws.assemble(&i);
        let mut row = CallTokens {
            index: call.index,
            entry_id: call.entry_id.clone(),
            line: call.line,
            provider: call.provider.clone(),
            model: call.model.clone(),
            reported,
            chars: 0,
            prefix_chars: 0,
            history_chars: 0,
            tokens: None,
            messages: 0,
            images: 0,
            used: false,
            note: None,
        };
        // Counted with the vocabulary when the call's model has the same one (an earlier call
        // of another model is another vocabulary); the estimate is fitted on the calls of the
        // same model id (its provider may be named otherwise in an older session).
        let same_vocabulary =
            vocabulary.is_some() && crate::tokens::vocabulary_of(&rebuilt) == *vocabulary;
        let s: Option<Stats> = match counter.as_deref_mut() {
            Some(c) if same_vocabulary => stats::compute_with_tokens(&rebuilt, c)?,
            _ => rebuilt.stats().cloned(),
        };
        let same_model = if counter.is_some() {
            same_vocabulary
        } else {
            target
                .as_ref()
                .is_some_and(|(_, m)| rebuilt_model(&rebuilt).as_deref() == Some(m.as_str()))
        };
        match s {
            None => row.note = Some("not rebuilt: pi would not send this request".into()),
            Some(s) => {
                row.chars = s.total_chars();
                row.prefix_chars = s.system_prompt_chars + s.tools_chars;
                row.history_chars = s.history_chars;
                row.tokens = s.tokenizer.is_some().then(|| s.total_tokens());
                row.messages = s.by_message.len();
                row.images = s.by_kind.images;
                row.note = note(a, call, &rebuilt, &row, same_model, counter.is_some());
                row.used = row.note.is_none();
            }
        }
        Ok(row)
    }
}

/// Why a rebuilt call is not used in the fit (`counted`: with a vocabulary), or `None`.
fn note(
    a: &Assembly,
    call: &crate::calls::Call,
    rebuilt: &Assembly,
    row: &CallTokens,
    same_model: bool,
    counted: bool,
) -> Option<String> {
    let model = rebuilt_model(rebuilt);
    // A warning about this call's rebuild that the assembly of the request itself
    // does not have (an older pi made the call, ...): not what was sent.
    let warning = rebuilt
        .diagnostics
        .iter()
        .find(|d| d.severity != crate::Severity::Info && !a.diagnostics.contains(d));
    if let Some(w) = warning {
        Some(format!("not comparable: {}", w.message))
    } else if call.model.is_some() && model != call.model {
        Some(format!(
            "rebuilt with {}, not the model the call used ({}): not comparable",
            model.as_deref().unwrap_or("no model"),
            call.model.as_deref().unwrap_or_default()
        ))
    } else if !same_model && counted {
        Some("a model with another vocabulary: not counted".into())
    } else if !same_model {
        Some("another model: not used in this model's fit".into())
    } else if row.reported <= 0.0 {
        Some("the provider reported no prompt tokens".into())
    } else if row.images > 0 {
        Some("images: the provider counts them from their pixels, not their data".into())
    } else {
        None
    }
}

/// With a vocabulary: the framing of the calls used, reported − counted.
fn framing(used: &[&CallTokens]) -> Framing {
    let framing: Vec<f64> = used
        .iter()
        .map(|c| c.reported - c.tokens.unwrap_or(0) as f64)
        .collect();
    let rows: Vec<(f64, f64, f64)> = used
        .iter()
        .zip(&framing)
        .map(|(c, f)| (1.0, c.messages as f64, *f))
        .collect();
    Framing {
        mean: framing.iter().sum::<f64>() / framing.len() as f64,
        min: framing.iter().cloned().fold(f64::INFINITY, f64::min),
        max: framing.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
        per_message: if used.len() >= 3 {
            fit2(&rows, None)
        } else {
            None
        },
        calls: used.len(),
    }
}

/// Without a vocabulary: the characters per token of the calls used, whole and per block, with
/// their errors; what could not be fitted goes to `notes`.
fn estimate(used: &[&CallTokens], notes: &mut Vec<String>) -> Estimate {
    let points: Vec<(f64, f64)> = used.iter().map(|c| (c.chars as f64, c.reported)).collect();
    let rows: Vec<(f64, f64, f64)> = used
        .iter()
        .map(|c| (c.prefix_chars as f64, c.history_chars as f64, c.reported))
        .collect();
    let cpt = ratio(&points, None).expect("used calls have chars and tokens");
    if !(1.0..=10.0).contains(&cpt) {
        notes.push(format!(
            "{cpt:.1} characters per token is not a tokenizer's ratio (1 to 10 for text): the usage recorded does not look like these requests' tokens (a stand-in provider, a proxy, or usage of other requests)"
        ));
    }
    let error = (points.len() >= 2)
        .then(|| {
            fit_error(&points, |i| {
                ratio(&points, Some(i)).map(|r| points[i].0 / r)
            })
        })
        .flatten();
    if error.is_none() {
        notes.push(
            "one call with usage: the ratio is measured, its error is not (it needs two calls)"
                .into(),
        );
    }
    // Two ratios need more calls than two unknowns, and each must be a tokenizer's.
    let plausible = |(a, b): (f64, f64)| (0.1..=1.0).contains(&a) && (0.1..=1.0).contains(&b);
    let blocks = if rows.len() >= 4 {
        fit2(&rows, None).filter(|&x| plausible(x))
    } else {
        None
    };
    let blocks_error = blocks.and_then(|_| {
        fit_error(&points, |i| {
            fit2(&rows, Some(i))
                .filter(|&x| plausible(x))
                .map(|(a, b)| a * rows[i].0 + b * rows[i].1)
        })
    });
    if blocks.is_none() {
        notes.push(
            "the calls do not tell the system prompt and tools apart from the history (their proportions barely change, or fewer than 4 calls, or the fit gives a ratio no tokenizer has): one ratio for all blocks"
                .into(),
        );
    }
    Estimate {
        chars_per_token: cpt,
        plausible: (1.0..=10.0).contains(&cpt),
        error,
        blocks: blocks.map(|(a, b)| (1.0 / a, 1.0 / b)),
        blocks_error,
    }
}

impl Estimate {
    /// Characters per token for (system prompt + tools, history): the per-block fit when it
    /// predicts the calls better than the one ratio, else the one ratio for both.
    pub fn ratios(&self) -> (f64, f64) {
        match (self.blocks, &self.blocks_error, &self.error) {
            (Some(b), Some(be), Some(e)) if be.mean_abs_pct < e.mean_abs_pct => b,
            _ => (self.chars_per_token, self.chars_per_token),
        }
    }
}

/// Fills `s`'s `tokens` with the estimate: each block's characters over its ratio.
pub fn apply_estimate(s: &mut Stats, e: &Estimate) {
    let (prefix, history) = e.ratios();
    let est = |chars: usize, r: f64| (chars as f64 / r).round() as usize;
    s.system_prompt_tokens = est(s.system_prompt_chars, prefix);
    s.tools_tokens = est(s.tools_chars, prefix);
    s.history_tokens = est(s.history_chars, history);
    for x in &mut s.sections {
        x.tokens = est(x.chars, prefix);
    }
    for t in &mut s.by_tool {
        t.tokens = est(t.chars, prefix);
        t.description_tokens = est(t.description_chars, prefix);
        t.parameters_tokens = est(t.parameters_chars, prefix);
    }
    for r in &mut s.by_role {
        r.tokens = est(r.chars, history);
    }
    for m in &mut s.by_message {
        m.tokens = est(m.chars, history);
    }
    for r in &mut s.tool_results_by_tool {
        r.tokens = est(r.chars, history);
    }
    let k = &s.by_kind;
    s.by_kind_tokens = stats::KindStats {
        user_text: est(k.user_text, history),
        assistant_text: est(k.assistant_text, history),
        reasoning: est(k.reasoning, history),
        tool_arguments: est(k.tool_arguments, history),
        tool_results: est(k.tool_results, history),
        signatures: 0,
        image_data: 0,
        images: k.images,
    };
    s.tokenizer = Some(TokenizerInfo {
        name: "estimate".into(),
        exact: false,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::stats::recount::StandIn;
    use crate::assemble;

    /// A case's inputs with every answer's usage replaced by `usage(entry id)`.
    fn with_usage(inputs: &Inputs, usage: &dyn Fn(&str) -> Option<f64>) -> Inputs {
        let mut i = inputs.clone();
        let session = i.session.as_mut().expect("a session");
        let lines: Vec<String> = session
            .text
            .lines()
            .map(|line| {
                let Ok(mut v) = crate::js::parse(line) else {
                    return line.to_string();
                };
                let id = v.get_str("id").map(str::to_string);
                if let (Some(id), Some(m)) =
                    (id, v.as_object_mut().and_then(|o| o.get_mut("message")))
                {
                    if let (Some(n), Some(m)) = (usage(&id), m.as_object_mut()) {
                        if m.get("usage").is_some() {
                            let u = crate::js::Object::new()
                                .with("input", n)
                                .with("output", 7.0)
                                .with("cacheRead", 0.0)
                                .with("cacheWrite", 0.0)
                                .with("totalTokens", n + 7.0);
                            m.insert("usage", u.into());
                        }
                    }
                }
                v.to_json()
            })
            .collect();
        session.text = (lines.join("\n") + "\n").into();
        i
    }

    #[test]
    fn the_framing_and_the_estimate_are_recovered_from_usage_of_a_known_tokenizer() {
        // Usage made by a known rule: the stand-in tokenizer's count of each rebuilt request,
        // plus 4 tokens of framing per message and 10 per call. The calibration recovers the
        // framing exactly with the tokenizer, and without it (as for Claude) reports the
        // estimate's error as it really is on these calls.
        let case = ctxlens_corpus::Case::named("pi-1.6.0/an-compaction");
        let inputs = crate::case::inputs_from_case(&case.files(), None).unwrap();
        let a = assemble(&inputs);
        let plain = calibrate(&inputs, &a, None, None).unwrap();
        assert!(plain.calls.len() >= 3, "{:?}", plain.calls);
        let mut truth = std::collections::BTreeMap::new();
        let counted = calibrate(&inputs, &a, Some(&mut StandIn), None).unwrap();
        for c in &counted.calls {
            let t = c.tokens.expect("counted") as f64 + 4.0 * c.messages as f64 + 10.0;
            truth.insert(c.entry_id.clone().unwrap(), t);
        }
        let inputs = with_usage(&inputs, &|id| truth.get(id).copied());
        let a = assemble(&inputs);
        let exact = calibrate(&inputs, &a, Some(&mut StandIn), None).unwrap();
        let f = exact.framing.expect("framing");
        assert_eq!(f.calls, truth.len());
        let (per_call, per_message) = f.per_message.expect("separable: 1, 3 and 5 messages");
        assert!((per_call - 10.0).abs() < 1e-6, "{per_call}");
        assert!((per_message - 4.0).abs() < 1e-6, "{per_message}");
        for c in &exact.calls {
            assert_eq!(
                c.reported - c.tokens.unwrap() as f64,
                4.0 * c.messages as f64 + 10.0
            );
        }

        let est = calibrate(&inputs, &a, None, None).unwrap();
        let e = est.estimate.expect("an estimate");
        let pts: Vec<(f64, f64)> = est
            .calls
            .iter()
            .map(|c| (c.chars as f64, c.reported))
            .collect();
        let (chars, tokens) = pts.iter().fold((0.0, 0.0), |s, p| (s.0 + p.0, s.1 + p.1));
        assert!((e.chars_per_token - chars / tokens).abs() < 1e-9);
        // Leave-one-out, recomputed here.
        let mut errs = Vec::new();
        for i in 0..pts.len() {
            let (c, t) = pts
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .fold((0.0, 0.0), |s, (_, p)| (s.0 + p.0, s.1 + p.1));
            errs.push(((pts[i].0 / (c / t) - pts[i].1) / pts[i].1).abs() * 100.0);
        }
        let err = e.error.clone().expect("measured");
        assert_eq!(err.calls, pts.len());
        assert!((err.mean_abs_pct - errs.iter().sum::<f64>() / errs.len() as f64).abs() < 1e-9);
        assert!((err.max_abs_pct - errs.iter().cloned().fold(0.0, f64::max)).abs() < 1e-9);
        // The estimate applied: every block in tokens, labelled as an estimate.
        let mut s = a.stats().cloned().unwrap();
        apply_estimate(&mut s, &e);
        assert_eq!(s.tokenizer.as_ref().map(|t| t.exact), Some(false));
        let (prefix, history) = e.ratios();
        assert_eq!(
            s.history_tokens,
            (s.history_chars as f64 / history).round() as usize
        );
        assert_eq!(
            s.system_prompt_tokens,
            (s.system_prompt_chars as f64 / prefix).round() as usize
        );
    }

    #[test]
    fn sampled_calls_are_evenly_spaced_and_end_with_the_last() {
        assert_eq!(sample(3, 32), vec![0, 1, 2]);
        let s = sample(100, 5);
        assert_eq!(s.len(), 5);
        assert_eq!(*s.last().unwrap(), 99);
        assert_eq!(s[0], 0);
        assert!(
            s.windows(2).all(|w| w[1] > w[0] && w[1] - w[0] <= 25),
            "{s:?}"
        );
        assert_eq!(sample(2172, MAX_CALLS).len(), MAX_CALLS);
    }

    #[test]
    fn a_session_without_usage_says_so() {
        let case = ctxlens_corpus::Case::named("pi-1.6.0/an-compaction");
        let inputs = crate::case::inputs_from_case(&case.files(), None).unwrap();
        let inputs = with_usage(&inputs, &|_| Some(0.0));
        let a = assemble(&inputs);
        let c = calibrate(&inputs, &a, None, None).unwrap();
        assert!(c.estimate.is_none());
        assert!(c.calls.iter().all(|x| !x.used));
        assert!(
            c.notes.iter().any(|n| n.contains("could be used")),
            "{:?}",
            c.notes
        );
    }
}

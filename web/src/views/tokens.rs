//! Tokens beside characters: reading the worker's statistics with tokens
//! (`ctxlens::report::stats::to_json` of `compute_with_tokens`: the same blocks as
//! `report.stats`, each with `tokens` beside `chars`) and saying where they are (the vocabulary
//! loading, counted, an estimate, unknown, failed).

use ctxlens::report::calibration::{CalibrationInfo, WindowInfo};
use ctxlens::report::types::Stats;
use yew::prelude::*;

use super::components::thousands;
use super::ViewProps;
use crate::vocab::label;
use crate::worker::{TokenUpdate, Vocabulary};

/// What "vocabulary" means, for a tooltip.
pub const VOCABULARY_HELP: &str = "A model's vocabulary (its tokenizer) is the list of text pieces it reads; a token is one piece. The provider bills and limits the context in tokens.";
/// What the framing is, for a tooltip.
pub const FRAMING_HELP: &str = "Each text is counted on its own. The chat template's framing (the tokens that mark where each message starts, its role and where it ends) is not public, so it is not counted: the provider reports a few more tokens per message.";

/// The token counts of the report on screen, as far as they are.
#[derive(Clone, Copy)]
pub struct Tokens<'a> {
    pub state: Option<&'a TokenUpdate>,
}

impl<'a> Tokens<'a> {
    pub fn of(p: &'a ViewProps) -> Tokens<'a> {
        Tokens {
            state: p.tokens.as_ref(),
        }
    }

    /// The statistics with tokens, once counted.
    pub fn stats(&self) -> Option<&'a Stats> {
        match self.state {
            Some(TokenUpdate::Ready { stats, .. }) => Some(&**stats),
            _ => None,
        }
    }

    /// The vocabulary counted with, or to be.
    pub fn vocabulary(&self) -> Option<&'a Vocabulary> {
        match self.state? {
            TokenUpdate::Loading { vocabulary, .. }
            | TokenUpdate::Counting { vocabulary, .. }
            | TokenUpdate::Ready { vocabulary, .. }
            | TokenUpdate::Unknown { vocabulary, .. } => Some(vocabulary),
            TokenUpdate::Failed { vocabulary, .. } => vocabulary.as_ref(),
            _ => None,
        }
    }

    /// Whether the counts are estimates (a vocabulary not proved to be the provider's).
    pub fn estimate(&self) -> bool {
        match self.stats() {
            // The counts' own word (`tokenizer.exact`; the calibrated estimate is not exact).
            Some(st) => !st.tokenizer.as_ref().is_some_and(|t| t.exact),
            None => matches!(
                self.vocabulary(),
                Some(Vocabulary::Known { exact: false, .. })
            ),
        }
    }

    /// The model's window and where pi's automatic compaction starts, once the worker said.
    pub fn compaction(&self) -> Option<&'a WindowInfo> {
        match self.state? {
            TokenUpdate::Ready { compaction, .. }
            | TokenUpdate::Unknown { compaction, .. }
            | TokenUpdate::Failed { compaction, .. } => compaction.as_deref(),
            _ => None,
        }
    }

    /// The calls rebuilt against their usage, when the session has some.
    pub fn calibration(&self) -> Option<&'a CalibrationInfo> {
        match self.state? {
            TokenUpdate::Ready { calibration, .. } | TokenUpdate::Unknown { calibration, .. } => {
                calibration.as_deref()
            }
            _ => None,
        }
    }

    /// What `read` finds in the statistics with tokens (`|s| *s.tools.tokens`), once counted.
    pub fn read(&self, read: impl FnOnce(&'a Stats) -> Option<usize>) -> Option<f64> {
        read(self.stats()?).map(|n| n as f64)
    }

    /// The tokens of the tool `name` (its description and its parameters' JSON).
    pub fn tool(&self, name: &str) -> Option<f64> {
        self.read(|s| *s.tools.by_tool.iter().find(|t| t.name == name)?.tokens)
    }

    /// A table cell: the count, else what stands for it (`…` while counting, `unknown`, `–`).
    pub fn cell(&self, n: Option<f64>) -> String {
        match (n, self.state) {
            (Some(n), _) => thousands(n),
            (None, Some(TokenUpdate::Unknown { .. })) => "unknown".into(),
            (None, None) => "…".into(),
            (None, Some(t)) if t.pending() => "…".into(),
            (None, _) => "–".into(),
        }
    }

    /// `N tokens` (`N tokens (estimate)` when not exact), or what stands for it.
    pub fn phrase(&self, n: Option<f64>) -> String {
        match n {
            Some(n) if self.estimate() => format!("≈ {} tokens (estimate)", thousands(n)),
            Some(n) => format!("{} tokens", thousands(n)),
            None => match self.state {
                None | Some(TokenUpdate::Asked) => "tokens: …".into(),
                Some(TokenUpdate::Loading { .. } | TokenUpdate::Counting { .. }) => {
                    "tokens: counting…".into()
                }
                Some(TokenUpdate::Unknown { .. }) => "tokens: unknown".into(),
                Some(_) => "tokens: –".into(),
            },
        }
    }

    /// The column head: `tokens`, or `tokens (est.)`.
    pub fn head(&self) -> &'static str {
        if self.estimate() {
            "tokens (est.)"
        } else {
            "tokens"
        }
    }
}

fn percent(done: f64) -> f64 {
    (done.clamp(0.0, 1.0) * 100.0).floor()
}

/// The line that says where the token counts are: loading (with progress), counted with which
/// vocabulary and how exactly, an estimate, unknown, or why there are none.
#[derive(Properties, PartialEq)]
pub struct TokenNoteProps {
    pub tokens: Option<TokenUpdate>,
    /// The model (`provider/id`), for "no public vocabulary for …".
    #[prop_or_default]
    pub model: AttrValue,
}

#[function_component]
pub fn TokenNote(p: &TokenNoteProps) -> Html {
    let (state, text, progress) = note(p);
    let vocabulary = match &p.tokens {
        Some(TokenUpdate::Loading { vocabulary, .. })
        | Some(TokenUpdate::Counting { vocabulary, .. })
        | Some(TokenUpdate::Ready { vocabulary, .. })
        | Some(TokenUpdate::Unknown { vocabulary, .. }) => vocabulary.name().map(str::to_string),
        _ => None,
    };
    let exact = match &p.tokens {
        Some(TokenUpdate::Ready { stats, .. }) => {
            stats.tokenizer.as_ref().map(|t| t.exact.to_string())
        }
        _ => None,
    };
    // The worker's timings, for measurements: all of it, and the vocabulary's own counting.
    let (ms, counted) = match &p.tokens {
        Some(TokenUpdate::Ready { ms, counted, .. }) => (
            Some(ms.to_string()),
            Some(format!("{} {} {}", counted.0, counted.1, counted.2)),
        ),
        _ => (None, None),
    };
    html! {
        <div class={classes!("token-note", "small", state.to_string())} data-testid="tokens-note" data-state={state}
           data-vocabulary={vocabulary} data-exact={exact} data-ms={ms} data-counted={counted}
           role={if matches!(state, "loading" | "counting" | "failed") { Some("status") } else { None }}
           title={format!("{VOCABULARY_HELP} {FRAMING_HELP}")}>
            if let Some(pct) = progress {
                <progress class="progress" max="100" value={pct.to_string()} aria-label="tokens progress">{format!("{pct}%")}</progress>{" "}
            }
            {text}
            if matches!(state, "ready" | "estimate" | "unknown") {
                {" "}
                <details class="token-help" data-testid="tokens-help">
                    <summary>{"What are these?"}</summary>
                    <span>{format!("{VOCABULARY_HELP} {FRAMING_HELP} {ESTIMATE_HELP}")}</span>
                </details>
            }
        </div>
    }
}

/// The note's state, its line and its progress (percent), for `p.tokens`.
fn note(p: &TokenNoteProps) -> (&'static str, String, Option<f64>) {
    match &p.tokens {
        None | Some(TokenUpdate::Asked) => ("asked", "Tokens: on their way…".into(), None),
        Some(TokenUpdate::Loading {
            vocabulary,
            loaded,
            total,
        }) => {
            let name = label(vocabulary.name().unwrap_or(""));
            match total {
                Some(t) => {
                    let pct = percent(loaded / t);
                    (
                        "loading",
                        format!("loading the {name} vocabulary… {pct}%"),
                        Some(pct),
                    )
                }
                None => (
                    "loading",
                    format!(
                        "loading the {name} vocabulary… {:.1} MB",
                        loaded / 1_048_576.0
                    ),
                    None,
                ),
            }
        }
        Some(TokenUpdate::Counting { vocabulary, done }) => {
            let pct = percent(*done);
            (
                "counting",
                format!(
                    "counting tokens with the {} vocabulary… {pct}%",
                    label(vocabulary.name().unwrap_or(""))
                ),
                Some(pct),
            )
        }
        Some(TokenUpdate::Ready { vocabulary, .. }) => ready_note(vocabulary, &p.tokens),
        Some(TokenUpdate::Unknown {
            vocabulary, notes, ..
        }) => match vocabulary {
            // Claude: an estimate would be calibrated on the session's usage; the core says why
            // there is none (no usage of this model, or usage that does not look like tokens).
            Vocabulary::Unknown { kind: Some(k), .. } if k == "claude" => (
                "unknown",
                format!(
                    "Tokens: unknown, and not estimated: {}. Characters are shown.",
                    notes.join("; ")
                ),
                None,
            ),
            _ => (
                "unknown",
                format!(
                    "Tokens: unknown. ctxlens knows no public vocabulary for {}, so it shows characters only (it never counts with another model's vocabulary){}.",
                    if p.model.is_empty() { "this model" } else { p.model.as_str() },
                    notes.iter().find(|n| n.starts_with("no estimate")).map(|n| format!("; {n}")).unwrap_or_default()
                ),
                None,
            ),
        },
        Some(TokenUpdate::Failed {
            vocabulary, error, ..
        }) => (
            "failed",
            match vocabulary.as_ref().and_then(Vocabulary::name) {
                // It loaded, but could not count (the core's note).
                Some(n) if error.contains("could not be counted") => format!(
                    "Tokens: the {} vocabulary loaded but did not count this request: {error}. Characters are shown.",
                    label(n)
                ),
                Some(n) => format!(
                    "Tokens: the {} vocabulary could not be loaded: {error}. Characters are shown.",
                    label(n)
                ),
                None => format!("Tokens: none ({error}). Characters are shown."),
            },
            None,
        ),
        Some(TokenUpdate::Nothing { why }) => ("nothing", format!("Tokens: none ({why})."), None),
    }
}

/// The note once the tokens are in: counted with the model's own vocabulary, with a close
/// one, or estimated (no public vocabulary).
fn ready_note(
    vocabulary: &Vocabulary,
    tokens: &Option<TokenUpdate>,
) -> (&'static str, String, Option<f64>) {
    match vocabulary {
        Vocabulary::Known {
            name, exact: true, ..
        } => (
            "ready",
            format!("Tokens counted with the {} vocabulary ({name}), the one this model reads; the chat template's framing is not included.", label(name)),
            None,
        ),
        Vocabulary::Known { name, why, .. } => (
            "ready",
            format!(
                "Token estimate: counted with the {} vocabulary ({name}), not proved to be this model's{}; the chat template's framing is not included.",
                label(name),
                why.as_ref().map(|w| format!(" ({w})")).unwrap_or_default()
            ),
            None,
        ),
        Vocabulary::Unknown { kind, .. } => estimate_note(kind.as_deref(), tokens),
    }
}

/// The note of an estimate for a model without a public vocabulary (`kind`: `claude`, …):
/// calibrated on the session's calls (its characters per token and measured error), or pi's
/// own ratio without usage to calibrate on.
fn estimate_note(
    kind: Option<&str>,
    tokens: &Option<TokenUpdate>,
) -> (&'static str, String, Option<f64>) {
    let whose = if kind == Some("claude") {
        "Claude's vocabulary is not public (Anthropic publishes no tokenizer since Claude 3)"
    } else {
        "no public vocabulary is known for this model"
    };
    let est = tokens.as_ref().and_then(|t| match t {
        TokenUpdate::Ready { calibration, .. } => calibration.as_ref()?.estimate.as_ref(),
        _ => None,
    });
    let cpt = est.map(|e| e.chars_per_token);
    let err = est.and_then(|e| e.error.as_ref());
    // No usage to calibrate on (or usage that does not look like tokens): pi's own
    // ratio, which the core's note names.
    let pis = tokens.as_ref().and_then(|t| match t {
        TokenUpdate::Ready { notes, .. } => notes
            .iter()
            .find(|n| n.contains("pi's own estimate"))
            .cloned(),
        _ => None,
    });
    if let Some(note) = pis {
        (
            "estimate",
            format!("Token estimate: {whose}, so its {note}."),
            None,
        )
    } else {
        (
            "estimate",
            format!(
                "Token estimate: {whose}, so its tokens are estimated from characters at {} characters per token, measured on this session's own calls (the usage the provider reported for each){}.",
                cpt.map_or_else(|| "?".into(), |c| format!("{c:.2}")),
                match err {
                    Some(e) => format!("; measured error {:.1}% on average, {:.1}% at most, over {} calls (each call predicted from the others)",
                        e.mean_abs_pct, e.max_abs_pct, e.calls),
                    None => "; its error is not measured (one call)".into(),
                }
            ),
            None,
        )
    }
}

/// What an estimate is, for the help.
pub const ESTIMATE_HELP: &str = "An estimate is a count made without the model's own vocabulary: on a vocabulary close to it, or, for Claude (whose vocabulary is not public), from the characters per token measured on this session's own calls, with the error that measurement had.";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shared::Shared;

    #[test]
    fn a_cell_says_what_stands_for_a_missing_count() {
        let v = Vocabulary::Known {
            name: "o200k_base".into(),
            exact: true,
            why: None,
        };
        let stats = ctxlens::report::types::Stats {
            tokenizer: Some(ctxlens::tokens::TokenizerInfo {
                name: "o200k_base".into(),
                exact: true,
            }),
            tools: ctxlens::report::types::ToolsStats {
                chars: 10,
                tokens: Some(3).into(),
                by_tool: vec![ctxlens::report::types::ToolSize {
                    name: "read".into(),
                    tokens: Some(2).into(),
                    ..Default::default()
                }],
            },
            ..Default::default()
        };
        let ready = TokenUpdate::Ready {
            vocabulary: v.clone(),
            stats: Shared::new(stats),
            calibration: None,
            notes: vec![],
            compaction: None,
            ms: 0.0,
            counted: (0.0, 0.0, 0.0),
        };
        let t = Tokens {
            state: Some(&ready),
        };
        assert_eq!(t.cell(t.read(|s| *s.tools.tokens)), "3");
        assert_eq!(t.cell(t.tool("read")), "2");
        assert_eq!(t.cell(t.tool("bash")), "–");
        assert!(!t.estimate());
        let loading = TokenUpdate::Loading {
            vocabulary: v,
            loaded: 1.0,
            total: Some(4.0),
        };
        let t = Tokens {
            state: Some(&loading),
        };
        assert_eq!(t.cell(None), "…");
        let unknown = TokenUpdate::Unknown {
            vocabulary: Vocabulary::Unknown {
                kind: None,
                why: None,
            },
            calibration: None,
            notes: vec![],
            compaction: None,
        };
        let t = Tokens {
            state: Some(&unknown),
        };
        assert_eq!(t.cell(None), "unknown");
        assert_eq!(t.phrase(None), "tokens: unknown");
    }
}

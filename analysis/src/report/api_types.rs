//! The npm package's results as types: what `assemble` (and `assembleCase`, `assembleSession`,
//! a workspace's calls) returns beside the body's bytes, and what `parseSession` returns. The
//! package's `Assembly` and `SessionTree` (npm/types.d.ts) are these, generated into
//! npm/report.d.ts like the report's own parts.

use super::types::*;
use super::wire::{wire_struct, Record};
use crate::pi::choice::Reason;

wire_struct! {
    /// One assembly's request and what the accounting found, as the npm package returns it
    /// (its body comes beside, as bytes). `method` and `url` are null when pi would not send a
    /// request (see `diagnostics`).
    pub struct AssemblyResult {
        pub method: Option<String> = "method" as "\"POST\" | null",
        pub url: Option<String> = "url",
        /// The protocol's own headers in order (credentials as `<redacted>`; SDK runtime
        /// headers left out).
        pub headers: Vec<(String, String)> = "headers" as "Array<[name: string, value: string]>",
        pub model: Option<ModelInfo> = "model",
        /// The thinking level after pi's clamp ("off" when there is no model).
        pub thinking_level: String = "thinkingLevel",
        /// The pi release rebuilt and why.
        pub pi: Option<PiRelease> = "pi",
        pub session_id: Option<String> = "sessionId",
        /// The cwd pi runs in.
        pub cwd: String = "cwd",
        /// The stages in pi's order; each `piSource` is where that code lives in the release
        /// rebuilt.
        pub stages: Vec<Stage> = "stages",
        /// What the prefixes of `piSource` locations stand for: `{"AI":
        /// "@earendil-works/pi-ai/dist", ...}`.
        pub source_prefixes: Record<String> = "sourcePrefixes",
        /// The pi packages the settings list: what each brings to this request and what it
        /// costs.
        pub packages: Vec<PackageCost> = "packages",
        pub stats: Option<Stats> = "stats",
        /// Notable properties of the request, most important first.
        pub findings: Vec<Finding> = "findings",
        pub diagnostics: Vec<Diagnostic> = "diagnostics",
        /// The model calls on the session's active branch, each with the usage the provider
        /// reported.
        pub calls: Vec<Call> = "calls",
        /// The call rebuilt (the `call` option, or the last call when there is no prompt);
        /// null: the next request.
        pub call: Option<RebuiltCall> = "call",
    }
}

wire_struct! {
    /// A model by its provider and id.
    pub struct ModelRef {
        pub provider: String = "provider",
        pub id: String = "id",
    }
}

wire_struct! {
    /// The release that read a session file, and why.
    pub struct ReleaseChoice {
        pub version: crate::PiVersion = "version",
        pub reason: Reason = "reason",
        pub explanation: String = "explanation",
    }
}

wire_struct! {
    /// A session file as pi reads it (`parseSession`).
    pub struct SessionTree {
        /// The release that read it, and why.
        pub pi: ReleaseChoice = "pi",
        pub session_id: Option<String> = "sessionId",
        pub cwd: Option<String> = "cwd",
        /// The version the file declared before migration.
        pub version: usize = "version",
        /// Every entry, in file order.
        pub entries: Vec<EntryNode> = "entries",
        pub leaf_id: Option<String> = "leafId",
        /// Entry ids on the active branch, root → leaf.
        pub branch: Vec<String> = "branch",
        /// How many agent messages the branch yields.
        pub messages: usize = "messages",
        /// The last model on the branch.
        pub model: Option<ModelRef> = "model",
        pub thinking_level: String = "thinkingLevel",
        /// The compaction in effect, if any.
        pub compaction_id: Option<String> = "compactionId",
        /// The model calls on the active branch (its assistant messages), each with its
        /// recorded usage: `call` in `assemble` rebuilds one.
        pub calls: Vec<Call> = "calls",
        pub diagnostics: Vec<Diagnostic> = "diagnostics",
    }
}

wire_struct! {
    /// `result.tokens` (a call with `tokens: true`): what the model's tokens are counted with,
    /// and whether they were.
    pub struct TokensInfo {
        /// The vocabulary the model's provider counts with (ctxlens's rules, by provider and
        /// model id); null: none public or none known. It may be one the package does not ship
        /// (`gemma3`).
        pub vocabulary: Option<String> = "vocabulary",
        /// Whether that vocabulary's counts are the provider's (false: an estimate, e.g. Gemini
        /// on Gemma's vocabulary, or a vocabulary no reference tokenizer confirmed).
        pub exact: bool = "exact",
        /// Without a vocabulary, the estimate that applies (`claude`: calibrated on the
        /// session's usage, its calls rebuilt); else null.
        pub estimate: Option<String> = "estimate",
        /// Whether `stats` carry `tokens` (counted with `vocabulary`, or `estimate`d:
        /// `stats.tokenizer.exact` is then false).
        pub counted: bool = "counted",
        /// Why nothing was counted and what to do (`tokens not counted: ...`), or a remark on
        /// the counts; null when there is none.
        pub note: Option<String> = "note",
        /// The request against the model's `contextWindow` and pi's compaction threshold
        /// (`contextWindow - compaction.reserveTokens`); null without tokens.
        pub window: Option<WindowInfo> = "window",
        /// For an estimate: every call with usage rebuilt beside the provider's count, and the
        /// characters per token fitted on them with the error measured by leaving each call
        /// out; as `ctxlens stats`' `calibration`.
        pub calibration: Option<CalibrationInfo> = "calibration",
        /// The core's notes on the tokens (why not counted, how estimated), as `ctxlens stats`'
        /// `tokenNotes`.
        pub notes: Vec<String> = "notes",
    }
}

/// What a host that counts tokens says of itself, for [`tokens_info`]'s note: the vocabularies
/// it ships and the module its user imports `loadVocabulary` from.
pub struct TokensHost<'a> {
    pub shipped: &'a [String],
    pub entry: &'a str,
}

/// How a call's tokens went, for [`tokens_info`].
pub struct TokensOutcome<'a> {
    /// The model's vocabulary (`crate::tokens::vocabulary_of`).
    pub vocabulary: Option<&'a crate::tokens::Vocabulary>,
    /// What the core counted (`crate::tokens::count`).
    pub counted: Option<&'a crate::tokens::Counted>,
    /// The host had not loaded the model's vocabulary.
    pub not_loaded: bool,
}

/// `result.tokens` for what a call counted, with a note that says why nothing was counted and
/// what the user does about it.
pub fn tokens_info(outcome: &TokensOutcome, host: &TokensHost) -> TokensInfo {
    use crate::tokens::Vocabulary;
    let (vocabulary, exact, estimate, why) = match outcome.vocabulary {
        Some(Vocabulary::Known { name, exact, why }) => (Some(name.clone()), *exact, None, why),
        Some(Vocabulary::Unknown { kind, why }) => (None, false, kind.clone(), why),
        None => (None, false, None, &None),
    };
    let c = outcome.counted;
    let mut info = TokensInfo {
        vocabulary,
        exact,
        estimate,
        counted: c.is_some_and(|c| c.stats.tokenizer.is_some()),
        note: None,
        window: c
            .and_then(|c| c.window.as_ref())
            .map(super::calibration::window),
        calibration: c
            .and_then(|c| c.calibration.as_ref())
            .map(super::calibration::calibration),
        notes: c.map(|c| c.notes.clone()).unwrap_or_default(),
    };
    info.note = tokens_note(&info, why.as_deref(), outcome.not_loaded, host);
    info
}

/// [`TokensInfo::note`] for `t` (all but its note made): how the tokens were counted, or why
/// not and what to do.
fn tokens_note(
    t: &TokensInfo,
    why: Option<&str>,
    not_loaded: bool,
    host: &TokensHost,
) -> Option<String> {
    if t.counted {
        let estimated = t.notes.iter().find(|n| n.starts_with("tokens estimated"));
        return match t.estimate {
            Some(_) => estimated.cloned().or_else(|| why.map(str::to_string)),
            None => why.map(str::to_string),
        };
    }
    // A counting error other than a vocabulary not loaded: the core's note says it.
    let error = t
        .notes
        .iter()
        .filter(|_| !not_loaded)
        .find_map(|n| n.strip_prefix("the tokens could not be counted: "));
    if let Some(e) = error {
        return Some(format!("tokens not counted: {e}"));
    }
    let why_in =
        |open: &str, close: &str| why.map_or(String::new(), |w| format!("{open}{w}{close}"));
    Some(match (t.vocabulary.as_deref(), &t.estimate) {
        (Some(v), _) if !host.shipped.iter().any(|s| s == v) => format!(
            "tokens not counted: the {v} vocabulary is not in this package (only {}){}",
            host.shipped.join(", "),
            why_in("; ", "")
        ),
        (Some(v), _) if not_loaded => format!(
            "tokens not counted: the model's vocabulary, {v}, is not loaded: `await loadVocabulary(\"{v}\")` (from \"{}\"), then call again",
            host.entry
        ),
        (Some(_), _) => "tokens not counted: the request was not built".to_string(),
        (None, Some(_)) => format!(
            "tokens not counted: the model has no public vocabulary{}",
            why_in(" (", ")")
        ),
        (None, None) => format!(
            "tokens not counted: {}",
            why.unwrap_or("no vocabulary is known for this model")
        ),
    })
}

//! The tokens' side of the report as types ([`super::calibration`] builds them): which
//! vocabulary the model needs, the model's window and pi's compaction threshold, and the calls
//! rebuilt against the usage the provider reported (the framing, or the estimate's fit).

use super::wire::{wire_struct, Skip};
use crate::pi::choice::Reason;
use crate::PiVersion;

wire_struct! {
    /// Which vocabulary the model needs: a public one (`name`, `exact`), or none (`name` null,
    /// `kind` the estimate that applies).
    pub struct VocabularyInfo {
        /// The vocabulary (`o200k_base`, `claude`, ...); null: no public one.
        pub name: Option<String> = "name",
        /// Whether its counts are the provider's (false: a stand-in, e.g. Gemini on Gemma's).
        pub exact: Skip<bool> = "exact",
        /// With no public vocabulary, the estimate that applies (`claude`), if any.
        pub kind: Skip<Option<String>> = "kind",
        pub why: Option<String> = "why",
    }
}

wire_struct! {
    /// pi's automatic compaction for this model (`getCompactionSettings`): the numbers are null
    /// when pi refuses the settings (`error`).
    pub struct CompactionInfo {
        pub enabled: bool = "enabled",
        pub reserve_tokens: Option<f64> = "reserveTokens",
        /// `contextWindow - reserveTokens`: pi compacts above it.
        pub threshold: Option<f64> = "threshold",
        /// `threshold - tokens`: negative when pi would compact before this request.
        pub distance: Option<f64> = "distance",
        /// pi's error for compaction settings it refuses (1.x validates them).
        pub error: Skip<String> = "error",
    }
}

wire_struct! {
    /// The model's window and how much of it the request takes.
    pub struct WindowInfo {
        /// The model's `contextWindow` (0 when the catalog gives none).
        pub context_window: f64 = "contextWindow",
        /// The request's tokens (system prompt, tools and history, counted or estimated).
        pub tokens: usize = "tokens",
        /// `tokens / contextWindow`, rounded to 4 places (more than 1 when over).
        pub share: f64 = "share",
        pub compaction: CompactionInfo = "compaction",
    }
}

wire_struct! {
    /// One call with usage, rebuilt beside the tokens the provider reported.
    pub struct CalibratedCall {
        /// 1-based index on its branch.
        pub index: usize = "index",
        pub entry_id: Option<String> = "entryId",
        /// The answer's line in the session file.
        pub line: usize = "line",
        pub provider: Option<String> = "provider",
        pub model: Option<String> = "model",
        /// The provider's prompt tokens: `input + cacheRead + cacheWrite`.
        pub reported_tokens: f64 = "reportedTokens",
        /// System prompt, tools and history of the rebuilt request, in characters.
        pub rebuilt_chars: usize = "rebuiltChars",
        /// The same in tokens (with a vocabulary).
        pub rebuilt_tokens: Option<usize> = "rebuiltTokens",
        /// `reportedTokens - rebuiltTokens`.
        pub difference: Option<f64> = "difference",
        /// Messages on the wire (framing is paid per message).
        pub messages: usize = "messages",
        pub images: usize = "images",
        /// Used in the fit (same model, rebuilt, no images, a non-zero usage).
        pub used: bool = "used",
        /// Why not used, or what to know about it.
        pub note: Option<String> = "note",
        /// The app's: the release this call is rebuilt by (a past call of a session a later pi
        /// continued, the release that made it).
        pub pi: Skip<CallRelease> = "pi",
    }
}

wire_struct! {
    /// The release a past call is rebuilt by, and why.
    pub struct CallRelease {
        pub version: PiVersion = "version",
        pub reason: Reason = "reason",
    }
}

wire_struct! {
    /// With a vocabulary: the tokens a chat template adds, reported − counted.
    pub struct FramingInfo {
        pub mean: f64 = "mean",
        pub min: f64 = "min",
        pub max: f64 = "max",
        /// Per call and per message, where the calls' message counts differ enough to fit them.
        pub per_call: Option<f64> = "perCall",
        pub per_message: Option<f64> = "perMessage",
        pub calls: usize = "calls",
    }
}

wire_struct! {
    /// The relative error of a fit, each call left out in turn.
    pub struct FitErrorInfo {
        /// Mean and largest |predicted − reported| / reported, in percent.
        pub mean_abs_pct: f64 = "meanAbsPct",
        pub max_abs_pct: f64 = "maxAbsPct",
        pub calls: usize = "calls",
    }
}

wire_struct! {
    /// Characters per token for the system prompt and tools, and for the history.
    pub struct BlockRatios {
        pub system_prompt_and_tools: f64 = "systemPromptAndTools",
        pub history: f64 = "history",
    }
}

wire_struct! {
    /// Without a vocabulary: characters per token fitted on the calls' usage.
    pub struct EstimateInfo {
        pub chars_per_token: f64 = "charsPerToken",
        /// Whether the ratio is one a tokenizer gives (1 to 10 characters per token).
        pub plausible: bool = "plausible",
        pub error: Option<FitErrorInfo> = "error",
        /// Each block's own ratio, where the calls tell them apart.
        pub blocks: Option<BlockRatios> = "blocks",
        pub blocks_error: Option<FitErrorInfo> = "blocksError",
        /// The ratios the estimate applies.
        pub applied: BlockRatios = "applied",
    }
}

wire_struct! {
    /// The session's calls rebuilt against the usage they recorded, and the fit.
    pub struct CalibrationInfo {
        /// The model the fit is for: `provider/id`.
        pub model: String = "model",
        pub calls: Vec<CalibratedCall> = "calls",
        /// With a vocabulary: the framing.
        pub framing: Option<FramingInfo> = "framing",
        /// Without one: the estimate.
        pub estimate: Option<EstimateInfo> = "estimate",
        /// What could not be measured, and why.
        pub notes: Vec<String> = "notes",
    }
}

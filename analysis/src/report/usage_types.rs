//! The report's one-session usage (`usage`: the calls the session recorded and the cache facts of
//! this request), as Rust types (see [`super::wire`]).

use super::wire::{wire_struct, Skip};

wire_struct! {
    /// A call the session recorded (an assistant message with usage), in file order.
    pub struct UsagePointInfo {
        pub entry_id: Option<String> = "entryId",
        /// 1-based line in the session file.
        pub line: usize = "line",
        /// The entry's `timestamp`, as pi wrote it.
        pub timestamp: Option<String> = "timestamp",
        pub provider: Option<String> = "provider",
        pub model: Option<String> = "model",
        pub api: Option<String> = "api",
        pub input: f64 = "input",
        pub output: f64 = "output",
        pub cache_read: f64 = "cacheRead",
        pub cache_write: f64 = "cacheWrite",
        /// `usage.totalTokens`, or the sum of the four counts when pi recorded none.
        pub total_tokens: f64 = "totalTokens",
        pub stop_reason: Option<String> = "stopReason",
        /// On the path from the root to the leaf (compacted-away calls included).
        pub on_branch: bool = "onBranch",
        /// Still in the context sent now (on the branch and not cut by a compaction).
        pub in_context: bool = "inContext",
    }
}

wire_struct! {
    /// A call whose cache read dropped below the previous call of the same model on the branch.
    pub struct CacheDrop {
        /// Its index in the timeline.
        pub index: usize = "index",
        pub entry_id: Option<String> = "entryId",
        pub line: usize = "line",
        /// The previous call of the same provider and model: its index and cache read.
        pub previous_index: usize = "previousIndex",
        pub previous_cache_read: f64 = "previousCacheRead",
        pub cache_read: f64 = "cacheRead",
        /// The call just before it used another model / provider.
        pub model_changed: bool = "modelChanged",
        pub provider_changed: bool = "providerChanged",
        /// A compaction sits between the previous call of this model and this one.
        pub compaction_between: bool = "compactionBetween",
    }
}

wire_struct! {
    /// The cache facts of this request and the session's branch.
    pub struct CacheFactsInfo {
        pub system_prompt_chars: usize = "systemPromptChars",
        pub tools_chars: usize = "toolsChars",
        /// System prompt and tools: what every call repeats first.
        pub prefix_chars: usize = "prefixChars",
        /// The prefix by the release's estimate (characters per token).
        pub prefix_tokens_estimate: usize = "prefixTokensEstimate",
        /// The conversation in this request.
        pub history_chars: usize = "historyChars",
        pub history_tokens_estimate: usize = "historyTokensEstimate",
        /// Calls on the branch.
        pub calls: usize = "calls",
        pub total_input: f64 = "totalInput",
        pub total_output: f64 = "totalOutput",
        pub total_cache_read: f64 = "totalCacheRead",
        pub total_cache_write: f64 = "totalCacheWrite",
        /// Cache read over input, cache read and cache write on the branch (0 when nothing was read), to four places.
        pub cache_read_share: f64 = "cacheReadShare",
        pub breaks: Vec<CacheDrop> = "breaks",
    }
}

wire_struct! {
    /// The session's recorded usage and this request's cache facts.
    pub struct SessionUsage {
        /// Every call the session recorded (left out where a host has it from another report of the same inputs).
        pub timeline: Skip<Vec<UsagePointInfo>> = "timeline",
        pub cache: CacheFactsInfo = "cache",
    }
}

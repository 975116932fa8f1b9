//! The what-if's types (`without`/`set`, `ctxlens whatif`, the What-if view; see
//! [`super::wire`]: `npm/report.d.ts` declares them). Its first change, URL, headers and
//! blocks are the upgrade comparison's ([`super::upgrade_types`]). [`super::whatif::report`]
//! makes one from a [`WhatIf`](crate::analysis::whatif::WhatIf).

use super::upgrade_types::{FirstChange, HeaderChange, UpgradeBlock, UrlChange};
use super::wire::{wire_struct, Declared, Wire};
use crate::js::{Object, Value};

pub use crate::analysis::whatif::TakeHome;

/// A take-home with its words (`{kind, …, text}`).
#[derive(Clone, Debug, PartialEq)]
pub struct TakeHomeText {
    pub take_home: TakeHome,
    pub text: String,
}

impl Default for TakeHomeText {
    fn default() -> Self {
        TakeHomeText {
            take_home: TakeHome::None { why: String::new() },
            text: String::new(),
        }
    }
}

impl TakeHomeText {
    /// Its `kind` (`flags`, `removeFiles`, `editFile`, `editSession`, `install`, `none`).
    pub fn kind(&self) -> &'static str {
        match self.take_home {
            TakeHome::Flags { .. } => "flags",
            TakeHome::RemoveFiles { .. } => "removeFiles",
            TakeHome::EditFile { .. } => "editFile",
            TakeHome::EditSession { .. } => "editSession",
            TakeHome::Install { .. } => "install",
            TakeHome::None { .. } => "none",
        }
    }
}

impl Wire for TakeHomeText {
    fn to_value(&self) -> Value {
        let mut o = Object::new().with("kind", self.kind());
        match &self.take_home {
            TakeHome::Flags { flags, args } => {
                flags.put(&mut o, "flags");
                args.put(&mut o, "args");
            }
            TakeHome::RemoveFiles { paths } => {
                paths.put(&mut o, "paths");
            }
            TakeHome::EditFile {
                path,
                line,
                content,
            } => {
                path.put(&mut o, "path");
                line.put(&mut o, "line");
                content.put(&mut o, "content");
            }
            TakeHome::EditSession { edits, content } => {
                edits.put(&mut o, "edits");
                content.put(&mut o, "content");
            }
            TakeHome::Install { command } => {
                command.put(&mut o, "command");
            }
            TakeHome::None { why } => {
                why.put(&mut o, "why");
            }
        }
        self.text.put(&mut o, "text");
        o.into()
    }

    fn from_value(v: &Value) -> Option<Self> {
        let o = v.as_object()?;
        let s = |k: &str| String::take(o, k);
        let list = |k: &str| Vec::<String>::take(o, k);
        let take_home = match o.get_str("kind")? {
            "flags" => TakeHome::Flags {
                flags: list("flags")?,
                args: list("args")?,
            },
            "removeFiles" => TakeHome::RemoveFiles {
                paths: list("paths")?,
            },
            "editFile" => TakeHome::EditFile {
                path: s("path")?,
                line: s("line")?,
                content: s("content")?,
            },
            "editSession" => TakeHome::EditSession {
                edits: list("edits")?,
                content: s("content")?,
            },
            "install" => TakeHome::Install {
                command: s("command")?,
            },
            "none" => TakeHome::None { why: s("why")? },
            _ => return None,
        };
        Some(TakeHomeText {
            take_home,
            text: s("text")?,
        })
    }

    fn ts() -> String {
        "TakeHome".into()
    }
}

impl Declared for TakeHomeText {
    fn declaration() -> String {
        "/** What to change in pi to get the changed request; `text` says it in words. */
export type TakeHome =
  | { kind: \"flags\"; flags: string[]; args: string[]; text: string }
  | { kind: \"removeFiles\"; paths: string[]; text: string }
  | { kind: \"editFile\"; path: string; line: string; content: string; text: string }
  | { kind: \"editSession\"; edits: string[]; content: string; text: string }
  | { kind: \"install\"; command: string; text: string }
  | { kind: \"none\"; why: string; text: string };
"
        .into()
    }
}

wire_struct! {
    /// A change of a what-if, what it did, and how to make it in pi.
    pub struct WhatIfChange {
        /// As given (`tool:bash`, `thinking=off`).
        pub change: String = "change",
        pub did: String = "did",
        pub take_home: TakeHomeText = "takeHome",
    }
}

wire_struct! {
    /// The model's prices, dollars per million tokens.
    pub struct PricesPerMillion {
        pub input: f64 = "input",
        pub cache_read: f64 = "cacheRead",
        pub cache_write: f64 = "cacheWrite",
    }
}

wire_struct! {
    /// What one call costs (dollars): all uncached, all read from the cache, all written to it.
    pub struct CostPerCall {
        pub input: Option<f64> = "input",
        pub cache_read: Option<f64> = "cacheRead",
        pub cache_write: Option<f64> = "cacheWrite",
    }
}

wire_struct! {
    /// One side of a what-if: the request's size, its share of the model's context window, and what one call costs at the catalog's prices (dollars).
    pub struct WhatIfSide {
        pub chars: usize = "chars",
        pub images: usize = "images",
        pub tokens: Option<usize> = "tokens",
        pub tokens_exact: bool = "tokensExact",
        pub tokens_by: Option<String> = "tokensBy",
        pub context_window: Option<f64> = "contextWindow",
        pub window_share: Option<f64> = "windowShare",
        pub prices_per_million: Option<PricesPerMillion> = "pricesPerMillion",
        pub cost_per_call: CostPerCall = "costPerCall",
    }
}

wire_struct! {
    /// What the changes do to the request's size, window share and cost per call.
    pub struct WhatIfDelta {
        pub chars: f64 = "chars",
        pub tokens: Option<f64> = "tokens",
        pub window_share: Option<f64> = "windowShare",
        pub cost_per_call: CostPerCall = "costPerCall",
    }
}

wire_struct! {
    /// What the changes do to the provider's prompt cache.
    pub struct WhatIfCache {
        pub first_changed_byte: Option<usize> = "firstChangedByte",
        pub stable_prefix_bytes: usize = "stablePrefixBytes",
        pub stable_share: f64 = "stableShare",
        pub next_call_cached_tokens: Option<usize> = "nextCallCachedTokens",
        pub next_call_uncached_tokens: Option<usize> = "nextCallUncachedTokens",
        pub next_call_cost: Option<f64> = "nextCallCost",
        pub warm_call_cost: Option<f64> = "warmCallCost",
        pub note: String = "note",
    }
}

wire_struct! {
    /// A call of the session rebuilt as it was and with the changes made at the start.
    pub struct WhatIfCall {
        /// 1-based among the session's calls.
        pub call: usize = "call",
        pub entry_id: Option<String> = "entryId",
        pub line: usize = "line",
        pub before_chars: usize = "beforeChars",
        pub after_chars: Option<usize> = "afterChars",
        pub before_tokens: Option<usize> = "beforeTokens",
        pub after_tokens: Option<usize> = "afterTokens",
        /// The input tokens the provider reported for it.
        pub reported_tokens: Option<f64> = "reportedTokens",
        /// Those scaled by what the changes do to its request.
        pub reported_tokens_after: Option<f64> = "reportedTokensAfter",
        pub reported_cost: Option<f64> = "reportedCost",
        pub note: Option<String> = "note",
    }
}

wire_struct! {
    /// The rebuilt calls summed, on one side.
    pub struct WhatIfSessionSide {
        pub chars: u64 = "chars",
        pub tokens: Option<u64> = "tokens",
        pub reported_tokens: Option<f64> = "reportedTokens",
    }
}

wire_struct! {
    /// What the changes would have saved over the rebuilt calls.
    pub struct WhatIfSaved {
        pub chars: f64 = "chars",
        pub tokens: Option<f64> = "tokens",
        pub reported_tokens: Option<f64> = "reportedTokens",
        pub cost: Option<f64> = "cost",
    }
}

wire_struct! {
    /// The whole session rebuilt with the changes made at the start (`rebuildCalls`).
    pub struct WhatIfSession {
        pub calls: Vec<WhatIfCall> = "calls",
        pub calls_with_usage: usize = "callsWithUsage",
        pub calls_rebuilt: usize = "callsRebuilt",
        pub before: WhatIfSessionSide = "before",
        pub after: WhatIfSessionSide = "after",
        pub saved: WhatIfSaved = "saved",
        pub notes: Vec<String> = "notes",
    }
}

wire_struct! {
    /// What a what-if did: each change and its take-home, the body's first change (the cache), each block's delta, the request's size, window share and cost per call before and after, and the whole session rebuilt with it (with `rebuildCalls`).
    pub struct WhatIf {
        pub changes: Vec<WhatIfChange> = "changes",
        pub identical: bool = "identical",
        pub first_change: Option<FirstChange> = "firstChange",
        pub url: Option<UrlChange> = "url",
        pub headers: Vec<HeaderChange> = "headers",
        pub blocks: Vec<UpgradeBlock> = "blocks",
        pub before: WhatIfSide = "before",
        pub after: WhatIfSide = "after",
        pub delta: WhatIfDelta = "delta",
        pub cache: Option<WhatIfCache> = "cache",
        pub session: Option<WhatIfSession> = "session",
    }
}

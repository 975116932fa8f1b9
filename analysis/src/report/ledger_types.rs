//! The usage report's types: what `ctxlens usage --json` writes, the npm package's `usage()`
//! returns and the app's All sessions view reads (see [`super::wire`]; `npm/report.d.ts` declares
//! them). [`super::ledger::report`] makes one from a [`Ledger`](crate::analysis::ledger::Ledger).

use super::wire::{wire_enum, wire_struct, Counts};

wire_enum! {
    /// How the calls are grouped.
    crate::analysis::ledger::GroupBy as "UsageGroupBy" {
        Day = "day",
        Week = "week",
        Month = "month",
        Session = "session",
        Project = "project",
        Model = "model",
        Release = "release",
    }
}

wire_struct! {
    /// The usage pi recorded, summed: tokens as the provider counted them, `cost` as pi recorded it (`cost.total`).
    pub struct UsageTotals {
        pub sessions: usize = "sessions",
        pub calls: usize = "calls",
        pub input: f64 = "input",
        pub output: f64 = "output",
        pub cache_read: f64 = "cacheRead",
        pub cache_write: f64 = "cacheWrite",
        pub cost: f64 = "cost",
    }
}

wire_struct! {
    /// Characters of the rebuilt requests, and the recorded prompt tokens and prompt cost split to them by share.
    pub struct UsageShare {
        pub chars: u64 = "chars",
        pub tokens: f64 = "tokens",
        pub cost: f64 = "cost",
    }
}

wire_struct! {
    /// The request's blocks over the rebuilt calls.
    pub struct UsageBlocks {
        pub system_prompt: UsageShare = "systemPrompt",
        pub tools: UsageShare = "tools",
        pub history: UsageShare = "history",
        pub parameters: UsageShare = "parameters",
        pub structure: UsageShare = "structure",
    }
}

wire_struct! {
    /// What `without`/`set`, made from each session's start, would have saved.
    pub struct UsageSaved {
        /// Calls rebuilt with the change.
        pub calls: usize = "calls",
        /// Of those, the calls it found something in.
        pub applied: usize = "applied",
        pub tokens: f64 = "tokens",
        pub cost: f64 = "cost",
    }
}

wire_struct! {
    /// A group of calls (a day, a week, a month, a session, a project, a model or a pi release):
    /// its recorded usage, and its rebuilt calls by block.
    pub struct UsageGroup {
        pub key: String = "key",
        pub sessions: usize = "sessions",
        pub calls: usize = "calls",
        pub input: f64 = "input",
        pub output: f64 = "output",
        pub cache_read: f64 = "cacheRead",
        pub cache_write: f64 = "cacheWrite",
        pub cost: f64 = "cost",
        /// Of its calls, those rebuilt (the blocks are over these).
        pub rebuilt: usize = "rebuilt",
        pub blocks: UsageBlocks = "blocks",
        pub saved: Option<UsageSaved> = "saved",
    }
}

wire_struct! {
    /// A tool, a kind of history or a tool's results.
    pub struct UsageItem {
        pub name: String = "name",
        /// In how many rebuilt requests it was.
        pub requests: usize = "requests",
        pub chars: u64 = "chars",
        pub tokens: f64 = "tokens",
        pub cost: f64 = "cost",
    }
}

wire_struct! {
    /// A system-prompt section or a skill, with the file it comes from.
    pub struct UsageSourcedItem {
        pub name: String = "name",
        /// Its file (a context file, a skill's `SKILL.md`), or what made it (`pi`, `settings`).
        pub source: String = "source",
        /// In how many rebuilt requests it was.
        pub requests: usize = "requests",
        pub chars: u64 = "chars",
        pub tokens: f64 = "tokens",
        pub cost: f64 = "cost",
    }
}

wire_struct! {
    /// A context file whose whole text another context file of the same request already holds
    /// (pi sends both), counted over the requests where that was so.
    pub struct UsageShadowedFile {
        /// The copy: what `--without context:PATH` would save.
        pub file: String = "file",
        /// The file holding its text.
        pub held_by: String = "heldBy",
        pub requests: usize = "requests",
        pub chars: u64 = "chars",
        pub tokens: f64 = "tokens",
        pub cost: f64 = "cost",
    }
}

wire_struct! {
    /// The calls whose request broke the previous call's cached prefix for one reason.
    pub struct UsageCacheBreaks {
        pub reason: String = "reason",
        pub calls: usize = "calls",
        /// The tokens sent again.
        pub tokens: f64 = "tokens",
        /// Those tokens at the input price less the cache-read price; `null`: no prices.
        pub cost: Option<f64> = "cost",
    }
}

wire_struct! {
    /// A call whose request broke the previous call's cached prefix (`ctxlens FILE --call ENTRY` opens it).
    pub struct UsageBreak {
        pub file: String = "file",
        pub line: usize = "line",
        pub entry_id: Option<String> = "entryId",
        pub timestamp: String = "timestamp",
        pub model: Option<String> = "model",
        /// The pi release that rebuilt it; `null`: not rebuilt.
        pub pi: Option<String> = "pi",
        /// Where the prompt stopped extending the previous one's.
        pub block: String = "block" as "\"systemPrompt\" | \"tools\" | \"history\"",
        pub reason: String = "reason",
        /// The characters sent again.
        pub chars: usize = "chars",
        pub tokens: f64 = "tokens",
        pub cost: Option<f64> = "cost",
    }
}

wire_struct! {
    /// A call with its usage as pi recorded it (`ctxlens FILE --call ENTRY` opens it).
    pub struct UsageCostlyCall {
        pub file: String = "file",
        pub line: usize = "line",
        pub entry_id: Option<String> = "entryId",
        pub timestamp: String = "timestamp",
        pub model: Option<String> = "model",
        /// The pi release that rebuilt it; `null`: not rebuilt.
        pub pi: Option<String> = "pi",
        pub input: f64 = "input",
        pub output: f64 = "output",
        pub cache_read: f64 = "cacheRead",
        pub cache_write: f64 = "cacheWrite",
        pub cost: f64 = "cost",
    }
}

wire_struct! {
    /// A file (or a line of one) left out, and why.
    pub struct UsageSkipped {
        pub file: String = "file",
        pub line: Option<usize> = "line",
        pub reason: String = "reason",
    }
}

wire_struct! {
    /// A file that changed between its reading and its calls' rebuild (pi appending to the
    /// session it runs): its calls are those of the first reading.
    pub struct UsageChangedFile {
        pub file: String = "file",
        pub reason: String = "reason",
    }
}

wire_struct! {
    /// A call counted but not rebuilt, and why.
    pub struct UsageNotRebuilt {
        pub file: String = "file",
        pub line: usize = "line",
        pub reason: String = "reason",
    }
}

wire_struct! {
    /// What was read to make the report.
    pub struct UsageRead {
        /// The folders or files asked for.
        pub roots: Vec<String> = "roots",
        pub files: usize = "files",
        /// Calls found twice (the same time and tokens: a forked session's copy), counted once.
        pub duplicates: usize = "duplicates",
        pub skipped: Vec<UsageSkipped> = "skipped",
        pub changed: Vec<UsageChangedFile> = "changed",
        pub not_rebuilt: Vec<UsageNotRebuilt> = "notRebuilt",
    }
}

wire_struct! {
    /// `usage()`, as `ctxlens usage --json` writes it (docs/usage.md).
    pub struct UsageReport {
        pub group_by: crate::analysis::ledger::GroupBy = "groupBy",
        pub since: Option<String> = "since",
        pub until: Option<String> = "until",
        /// Over every call read (those within `since`..`until`).
        pub totals: UsageTotals = "totals",
        /// Calls rebuilt (the blocks and items are over these).
        pub rebuilt: usize = "rebuilt",
        /// How the rebuilt calls' prompt tokens were split over their parts: by each vocabulary
        /// (its name: `o200k_base`, …) or by `characters` (Claude's vocabulary is not public),
        /// with how many calls each.
        pub split_by: Counts = "splitBy",
        pub blocks: UsageBlocks = "blocks",
        pub groups: Vec<UsageGroup> = "groups",
        pub tools: Vec<UsageItem> = "tools",
        pub sections: Vec<UsageSourcedItem> = "sections",
        pub history: Vec<UsageItem> = "history",
        pub tool_results: Vec<UsageItem> = "toolResults",
        pub saved: Option<UsageSaved> = "saved",
        /// The calls whose request broke the previous call's cached prefix, by reason.
        pub cache_breaks: Vec<UsageCacheBreaks> = "cacheBreaks",
        /// Each such call, most tokens sent again first.
        pub breaks: Vec<UsageBreak> = "breaks",
        /// The ten calls pi recorded the most cost for, largest first, with their usage as recorded.
        pub costliest: Vec<UsageCostlyCall> = "costliest",
        /// Tools sent in the rebuilt requests but never called in them, largest cost first.
        pub never_called: Vec<UsageItem> = "neverCalled",
        /// Skills offered in the rebuilt requests that no call used (no tool call named the
        /// skill's file, no prompt asked for it), largest cost first: `name` is the skill's folder.
        pub never_invoked: Vec<UsageSourcedItem> = "neverInvoked",
        /// Context files sent twice, largest cost first.
        pub shadowed_files: Vec<UsageShadowedFile> = "shadowedFiles",
        pub read: UsageRead = "read",
    }
}

impl UsageItem {
    /// Its characters, prompt tokens and cost.
    pub fn share(&self) -> UsageShare {
        UsageShare {
            chars: self.chars,
            tokens: self.tokens,
            cost: self.cost,
        }
    }
}

impl UsageSourcedItem {
    /// Its characters, prompt tokens and cost.
    pub fn share(&self) -> UsageShare {
        UsageShare {
            chars: self.chars,
            tokens: self.tokens,
            cost: self.cost,
        }
    }
}

impl UsageBlocks {
    /// Each block under its JSON key, in the JSON's order.
    pub fn rows(&self) -> [(&'static str, &UsageShare); 5] {
        [
            ("systemPrompt", &self.system_prompt),
            ("tools", &self.tools),
            ("history", &self.history),
            ("parameters", &self.parameters),
            ("structure", &self.structure),
        ]
    }
}

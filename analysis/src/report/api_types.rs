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

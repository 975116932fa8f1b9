//! The report's request, system prompt and session, as Rust types (see [`super::wire`]):
//! `request`, `systemPrompt`, `newSystemMessages` and `session` of an assembly's report.

use super::tools_types::StoredAt;
use super::wire::{wire_struct, Skip};
use crate::js::Str;

wire_struct! {
    /// The request pi would send.
    pub struct RequestInfo {
        pub method: String = "method",
        pub url: String = "url",
        /// The protocol's own headers, in order, as `[name, value]` (credentials as `<redacted>`).
        pub headers: Vec<(String, String)> = "headers",
        /// The headers the provider's SDK adds at run time, which ctxlens leaves out (`x-stainless-*`, ...).
        pub runtime_headers: Vec<String> = "runtimeHeaders",
        /// The body, byte for byte.
        pub body: Str = "body",
        /// Why the URL looks wrong, when it does (a path segment doubled after a protocol switch).
        pub url_note: Option<String> = "urlNote",
    }
}

wire_struct! {
    /// A section of the system prompt, by its UTF-16 range in the prompt's text.
    pub struct PromptSection {
        pub name: String = "name",
        /// Where pi took it from (a file's path, `pi`, `settings`, ...).
        pub source: String = "source",
        pub start: usize = "start",
        pub end: usize = "end",
        /// pi 0.86 on: the stored system message that set it.
        pub stored: Skip<StoredAt> = "stored",
    }
}

wire_struct! {
    /// pi 0.86 on: a system message as the request sends it, by its range in the prompt's text.
    pub struct SentSystemMessage {
        pub start: usize = "start",
        pub end: usize = "end",
        /// It updates the prompt before it (sent where it is stored, after the first).
        pub update: bool = "update",
        /// The LLM message it is sent as (`null`: the system prompt itself).
        pub llm_index: Option<usize> = "llmIndex",
        pub stored: Option<StoredAt> = "stored",
    }
}

wire_struct! {
    /// The system prompt as sent, with its sections.
    pub struct SystemPromptInfo {
        pub text: String = "text",
        pub sections: Vec<PromptSection> = "sections",
        /// pi 0.86 on: `leading` (one system prompt first: the replay of all the system messages), `in-place` (each where it is stored: the first as the prompt, later ones as updates) or `raw` (pi-messages: each as stored).
        pub placement: Skip<String> = "placement" as "\"leading\" | \"in-place\" | \"raw\"",
        /// pi 0.86 on: each system message sent.
        pub messages: Skip<Vec<SentSystemMessage>> = "messages",
    }
}

wire_struct! {
    /// A section a system message sets or removes.
    pub struct SectionPatch {
        pub name: String = "name",
        pub removed: bool = "removed",
        /// The text it sets (0 when removed).
        pub chars: usize = "chars",
    }
}

wire_struct! {
    /// pi 0.86 on: a system message: the sections it sets or removes, the tools it adds or removes.
    pub struct SystemMessageInfo {
        pub sections: Vec<SectionPatch> = "sections",
        pub tools_added: Vec<String> = "toolsAdded",
        pub tools_removed: Vec<String> = "toolsRemoved",
        /// The text it adds (`getSystemMessageText`).
        pub chars: usize = "chars",
    }
}

wire_struct! {
    /// A tool result's text: what a `tool-result:ID:N` what-if cuts.
    pub struct ToolResultText {
        pub tool_name: Option<String> = "toolName",
        /// Its text blocks' UTF-16 characters.
        pub chars: usize = "chars",
        pub lines: usize = "lines",
    }
}

wire_struct! {
    /// A message's images.
    pub struct ImagesSize {
        pub count: usize = "count",
        /// Their base64 data's characters.
        pub chars: usize = "chars",
    }
}

wire_struct! {
    /// pi 0.86 on: a context edit.
    pub struct ContextEditInfo {
        pub target_id: String = "targetId",
        /// It leaves the target out of the context (else it replaces its content).
        pub omitted: bool = "omitted",
        /// The replacement's text.
        pub chars: usize = "chars",
    }
}

wire_struct! {
    /// pi 0.86 on: a `usage` entry (a model call outside the conversation: a compaction's summary, ...).
    pub struct UsageEntryInfo {
        pub kind: String = "kind",
        pub provider: Option<String> = "provider",
        pub model: Option<String> = "model",
        pub input: f64 = "input",
        pub output: f64 = "output",
        pub cache_read: f64 = "cacheRead",
        pub cache_write: f64 = "cacheWrite",
    }
}

wire_struct! {
    /// One entry of the session file, in file order.
    pub struct EntryNode {
        pub id: Option<String> = "id",
        pub parent_id: Option<String> = "parentId",
        /// The entry type (`message`, `compaction`, ...; 0.86 on a system message is `system`).
        pub entry_type: String = "type",
        /// A message entry's role.
        pub role: Option<String> = "role",
        /// 1-based line in the file.
        pub line: usize = "line",
        /// The role or kind, then up to 80 characters of text.
        pub preview: String = "preview",
        pub label: Option<String> = "label",
        /// On the path from the leaf to the root.
        pub on_active_branch: bool = "onActiveBranch",
        /// Selected for the context (on the branch and not cut by a compaction).
        pub in_context: bool = "inContext",
        pub tool_result: Skip<ToolResultText> = "toolResult",
        pub images: Skip<ImagesSize> = "images",
        /// pi 0.86 on, a system message's patch.
        pub system: Skip<SystemMessageInfo> = "system",
        /// pi 0.86 on, a compaction's checkpoint (its system message).
        pub checkpoint: Skip<SystemMessageInfo> = "checkpoint",
        pub edit: Skip<ContextEditInfo> = "edit",
        pub usage: Skip<UsageEntryInfo> = "usage",
    }
}

wire_struct! {
    /// The session entry an agent message of the context came from.
    pub struct MessageSourceInfo {
        pub entry_id: Option<String> = "entryId",
        pub line: usize = "line",
        /// `message`, `compaction`, `branch_summary`, `custom_message`.
        pub entry_type: String = "entryType",
        pub role: Option<String> = "role",
        /// pi 0.86 on: a context edit in the context changes it.
        pub edited: Skip<bool> = "edited",
    }
}

wire_struct! {
    /// The session tree and the context it yielded.
    pub struct SessionInfo {
        pub name: String = "name",
        pub session_id: Option<String> = "sessionId",
        pub cwd: Option<String> = "cwd",
        /// The version the file declared before migration.
        pub version: usize = "version",
        pub leaf_id: Option<String> = "leafId",
        /// The compaction in effect, if any.
        pub compaction_id: Option<String> = "compactionId",
        pub entries: Vec<EntryNode> = "entries",
        /// Each agent message of the context, by its source entry.
        pub message_sources: Vec<MessageSourceInfo> = "messageSources",
    }
}

//! pi session files: JSONL parsing with pi's skip rules, v1/v2 → v3 migration, the entry tree,
//! the active branch and the context it yields (INVENTORY §1, S1–S27; pi-coding-agent
//! `dist/core/session-manager.js` and `dist/core/messages.js`).

use crate::diagnostics::Diagnostic;
use crate::inputs::SourceText;
use crate::js::{Object, Value};
use crate::trace::Events;

/// One parsed entry with the 1-based line it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub line: u32,
    pub value: Object,
}

impl Entry {
    pub fn id(&self) -> Option<&str> {
        self.value.get_str("id")
    }
    pub fn parent_id(&self) -> Option<&str> {
        self.value.get_str("parentId")
    }
    pub fn kind(&self) -> &str {
        self.value.get_str("type").unwrap_or("")
    }
}

/// A session file after parsing and migration.
#[derive(Clone, Debug, Default)]
pub struct SessionFile {
    pub name: String,
    /// The header entry (`type: "session"`), if the file has a valid one.
    pub header: Option<Entry>,
    /// The non-header entries in file order (after migration).
    pub entries: Vec<Entry>,
    /// The version the file declared before migration (1 when absent).
    pub original_version: u32,
    pub diagnostics: Vec<Diagnostic>,
}

impl SessionFile {
    pub fn session_id(&self) -> Option<&str> {
        self.header.as_ref().and_then(|h| h.value.get_str("id"))
    }
    pub fn cwd(&self) -> Option<&str> {
        self.header.as_ref().and_then(|h| h.value.get_str("cwd"))
    }
}

/// Where a context message came from.
#[derive(Clone, Debug, PartialEq)]
pub struct MessageSource {
    pub entry_id: Option<String>,
    pub line: u32,
    /// The entry type (`message`, `compaction`, `branch_summary`, `custom_message`).
    pub entry_type: String,
}

/// `buildSessionContext` and `getSessionContextSettings` for the leaf.
#[derive(Clone, Debug, Default)]
pub struct SessionContext {
    /// Agent messages, in order.
    pub messages: Vec<Value>,
    /// Parallel to `messages`.
    pub sources: Vec<MessageSource>,
    /// Entry ids on the active branch, root → leaf (before compaction trimming).
    pub path: Vec<String>,
    pub leaf_id: Option<String>,
    /// The last `thinking_level_change` on the path, `"off"` if none (S13).
    pub thinking_level: String,
    /// Whether the branch has a `thinking_level_change` entry (S24).
    pub has_thinking_entry: bool,
    /// The last model on the path: (provider, model id) (S13).
    pub model: Option<(String, String)>,
    /// The id of the compaction entry in effect (S14), if any.
    pub compaction_id: Option<String>,
    /// Labels by target entry id (S10).
    pub labels: Vec<(String, String)>,
}

/// Parses a session file (S1–S9). Never fails: bad lines and a bad header become diagnostics.
pub fn parse(src: &SourceText) -> SessionFile {
    SessionFile { name: src.name.clone(), ..Default::default() }
}

/// Walks the active branch and converts its entries to agent messages (S10–S22).
pub fn build_context(file: &SessionFile, events: &mut Events, diags: &mut Vec<Diagnostic>) -> SessionContext {
    let _ = (file, events, diags);
    SessionContext { thinking_level: "off".into(), ..Default::default() }
}

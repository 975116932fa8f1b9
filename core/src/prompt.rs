//! The system prompt as a list of sections with UTF-16 spans and sources (INVENTORY §2b, P6–P16;
//! pi-coding-agent `dist/core/system-prompt.js`).

use crate::resources::Resources;
use crate::tools::ToolDef;

/// One span of the system prompt.
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    /// What it is: `intro`, `tools`, `guidelines`, `pi-docs`, `custom`, `append`,
    /// `project-context`, `context-file`, `skills`, `cwd`.
    pub name: String,
    /// Where its text came from (a file path, a tool name, `pi` for pi's own text).
    pub source: String,
    /// Start and end offsets in UTF-16 code units.
    pub start: usize,
    pub end: usize,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct SystemPrompt {
    pub text: String,
    pub sections: Vec<Section>,
}

/// `buildSystemPrompt` for the active tools (in active order) and resources.
pub fn build(tools: &[ToolDef], resources: &Resources, cwd: &str, pi_package_dir: &str) -> SystemPrompt {
    let _ = (tools, resources, cwd, pi_package_dir);
    SystemPrompt::default()
}

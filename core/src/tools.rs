//! Tool definitions: pi's built-in tools (versioned data from the npm package), extension tools,
//! and the active-tool selection from flags and settings (INVENTORY §2d, P19–P22).

use crate::js::{Object, Value};

/// Where a tool came from.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolSource {
    /// One of pi's built-in tools (read, bash, edit, write, grep, find, ls, powershell).
    Builtin,
    /// Registered by an extension (tools.json), with its index in that file.
    Extension { index: usize },
}

/// A tool as pi's `AgentTool` holds it (after `wrapToolDefinition`), plus its prompt parts.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolDef {
    pub name: String,
    pub label: String,
    pub description: String,
    /// The JSON schema, with pi's key order.
    pub parameters: Value,
    /// `constrainedSampling` (PI_EXPERIMENTAL=1 gives bash, powershell and edit
    /// `{type:"json_schema", strict:"prefer"}`).
    pub constrained_sampling: Option<Value>,
    /// `executionMode`, when the definition has one.
    pub execution_mode: Option<String>,
    /// The raw `promptSnippet` (before pi normalizes it).
    pub prompt_snippet: Option<String>,
    /// The raw `promptGuidelines`.
    pub prompt_guidelines: Option<Vec<String>>,
    pub source: ToolSource,
}

impl ToolDef {
    /// The AgentTool object as `JSON.stringify` shows it (functions dropped): what pi-messages
    /// sends and what the token estimate measures (P22).
    pub fn agent_tool_json(&self) -> Value {
        let mut o = Object::new();
        o.insert("name", Value::str(&self.name));
        o.insert("label", Value::str(&self.label));
        o.insert("description", Value::str(&self.description));
        o.insert("parameters", self.parameters.clone());
        o.insert_opt("constrainedSampling", self.constrained_sampling.clone());
        o.insert_opt("executionMode", self.execution_mode.clone().map(Value::String));
        Value::Object(o)
    }

    /// `schema.properties`.
    pub fn properties(&self) -> Option<&Object> {
        self.parameters.as_object().and_then(|p| p.get_object("properties"))
    }
}

/// pi's built-in tools from the versioned data (`data/pi-0.85.1/tools.json`), with
/// `PI_EXPERIMENTAL` applied.
pub fn builtin_tools(experimental: bool) -> Vec<ToolDef> {
    let _ = experimental;
    Vec::new()
}

/// Parses extension tools (the oracle's tools.json shape). Bad entries are reported and skipped.
pub fn extension_tools(src: &crate::inputs::SourceText, diags: &mut Vec<crate::diagnostics::Diagnostic>) -> Vec<ToolDef> {
    let _ = (src, diags);
    Vec::new()
}

/// The active tools in pi's order (P19): defaults or `settings.defaultTools`, `--tools`,
/// `--no-tools`, `--no-builtin-tools`, `--exclude-tools`, extension tools appended.
pub fn select(builtins: Vec<ToolDef>, extensions: Vec<ToolDef>, args: &crate::args::PiArgs, settings: &crate::settings::Settings, diags: &mut Vec<crate::diagnostics::Diagnostic>) -> Vec<ToolDef> {
    let _ = (args, settings, diags);
    let mut all = builtins;
    all.truncate(4);
    all.extend(extensions);
    all
}

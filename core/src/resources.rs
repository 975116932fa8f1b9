//! What pi reads around the working directory and in the agent dir: context files (AGENTS.md,
//! CLAUDE.md, ...), skills, SYSTEM.md / APPEND_SYSTEM.md (INVENTORY P3–P5, P13–P17).

use crate::args::PiArgs;
use crate::diagnostics::Diagnostic;
use crate::inputs::VirtualFs;
use crate::settings::Settings;

/// A context file that made it into the prompt.
#[derive(Clone, Debug, PartialEq)]
pub struct ContextFile {
    /// The path as pi prints it (`join(dir, candidateName)`).
    pub path: String,
    /// BOM-stripped content.
    pub content: String,
    /// Other candidates in the same directory that lost to this one (P14 order).
    pub shadowed: Vec<String>,
}

/// A skill from SKILL.md frontmatter.
#[derive(Clone, Debug, PartialEq)]
pub struct Skill {
    pub name: String,
    pub description: String,
    pub file_path: String,
    pub base_dir: String,
    pub disable_model_invocation: bool,
    /// Where it was found (`user`, `project`, `cli`, ...).
    pub source: String,
}

/// A prompt piece and the file it came from (`None` for a literal CLI value).
#[derive(Clone, Debug, PartialEq)]
pub struct PromptText {
    pub text: String,
    pub path: Option<String>,
}

/// Everything the system prompt is built from besides the tools.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resources {
    pub context_files: Vec<ContextFile>,
    pub skills: Vec<Skill>,
    pub custom_prompt: Option<PromptText>,
    pub append_prompts: Vec<PromptText>,
}

/// Discovers context files, skills and prompt files as pi's resource loader does.
pub fn load(fs: &VirtualFs, home: &str, agent_dir: &str, cwd: &str, args: &PiArgs, settings: &Settings, diags: &mut Vec<Diagnostic>) -> Resources {
    let _ = (fs, home, agent_dir, cwd, args, settings, diags);
    Resources::default()
}

//! The report's tools, declared tools, resources and pi packages, as Rust types (see
//! [`super::wire`]): `tools`, `declaredTools`, `resources` and `packages` of an assembly's report.

use super::wire::wire_struct;
use crate::js::Value;

wire_struct! {
    /// A tool the run has active, as pi defines it.
    pub struct ToolInfo {
        pub name: String = "name",
        /// Where its definition comes from: pi's own, an extension's (a tool set), the session's declaration.
        pub source: String = "source" as "\"builtin\" | \"extension\" | \"session\"",
        pub description: String = "description",
        /// Its parameters' JSON schema, in pi's key order.
        pub parameters: Value = "parameters",
        /// Its definition's size in the request (description and parameters, as the body writes them).
        pub chars: usize = "chars",
        /// The one line it adds to the system prompt's tool list, as the definition gives it.
        pub prompt_snippet: Option<String> = "promptSnippet",
        pub prompt_guidelines: Vec<String> = "promptGuidelines",
        /// It asks for constrained (strict) sampling.
        pub strict: bool = "strict",
        /// The pi package whose extension registered it.
        pub package: Option<String> = "package",
    }
}

wire_struct! {
    /// pi 0.86 on: where a system message is stored.
    pub struct StoredAt {
        pub kind: String = "kind" as "\"session\" | \"checkpoint\" | \"this-run\"",
        /// `session line 4`, `the compaction's checkpoint, line 9`, `this run`.
        pub label: String = "label",
        pub line: Option<usize> = "line",
        pub entry_id: Option<String> = "entryId",
    }
}

wire_struct! {
    /// pi 0.86 on: a tool as the transcript's system messages declare it (`getCurrentTools`, replay order).
    pub struct DeclaredToolInfo {
        pub name: String = "name",
        pub description: String = "description",
        pub parameters: Value = "parameters",
        pub chars: usize = "chars",
        pub constrained_sampling: Option<Value> = "constrainedSampling",
        /// The system message that added it (`null`: none did).
        pub stored: Option<StoredAt> = "stored",
        /// The request sends it (it is among the run's active tools).
        pub active: bool = "active",
    }
}

wire_struct! {
    /// A context file (AGENTS.md, CLAUDE.md) in the system prompt.
    pub struct ContextFileInfo {
        pub path: String = "path",
        pub chars: usize = "chars",
        /// Other candidates in its folder that lost to it.
        pub shadowed: Vec<String> = "shadowed",
    }
}

wire_struct! {
    /// A skill pi found.
    pub struct SkillInfo {
        pub name: String = "name",
        pub description: String = "description",
        /// Its SKILL.md.
        pub path: String = "path",
        /// `disable-model-invocation`: not listed in the system prompt.
        pub hidden: bool = "hidden",
        /// Where it was found (`user`, `project`, `path`, a package).
        pub source: String = "source",
    }
}

wire_struct! {
    /// A prompt piece (`--system-prompt`, `--append-system-prompt`, SYSTEM.md, APPEND_SYSTEM.md) and its file.
    pub struct PromptText {
        pub text: String = "text",
        /// `null`: given literally on the command line.
        pub path: Option<String> = "path",
    }
}

wire_struct! {
    /// What the system prompt is built from besides the tools.
    pub struct ResourcesInfo {
        /// In prompt order.
        pub context_files: Vec<ContextFileInfo> = "contextFiles",
        pub skills: Vec<SkillInfo> = "skills",
        pub custom_prompt: Option<PromptText> = "customPrompt",
        pub append_prompts: Vec<PromptText> = "appendPrompts",
    }
}

wire_struct! {
    /// A package's skill, with its entry's size in the system prompt.
    pub struct PackageSkill {
        pub name: String = "name",
        pub file: String = "file",
        pub chars: usize = "chars",
        /// When a vocabulary counted the request.
        pub tokens: Option<usize> = "tokens",
    }
}

wire_struct! {
    /// A package's prompt template.
    pub struct PackageTemplate {
        pub name: String = "name",
        pub file: String = "file",
        /// The prompt this run's `/name` expanded to (`null`: this prompt did not call it).
        pub used_chars: Option<usize> = "usedChars",
    }
}

wire_struct! {
    /// A tool a package's extension registered, with its definition's size in the request.
    pub struct PackageTool {
        pub name: String = "name",
        pub chars: usize = "chars",
        pub tokens: Option<usize> = "tokens",
    }
}

wire_struct! {
    /// A pi package (settings `packages`) and what it brings to the request.
    pub struct PackageCost {
        /// As the settings (or `-e`) give it: `npm:NAME`, `git:…`, a path.
        pub source: String = "source",
        /// Which settings file lists it; "temporary": given with `-e` on pi's command line (`settingsFile` is "args").
        pub scope: String = "scope" as "\"user\" | \"project\" | \"temporary\"",
        pub settings_file: String = "settingsFile",
        pub line: Option<usize> = "line",
        /// Where it is installed; `null`: pi does not load it (not installed, not there).
        pub installed: Option<String> = "installed",
        /// Its skills, each with its entry's size in the system prompt (tokens when counted).
        pub skills: Vec<PackageSkill> = "skills",
        /// Its prompt templates; `usedChars`: the prompt this run's `/name` expanded to.
        pub prompt_templates: Vec<PackageTemplate> = "promptTemplates",
        /// Its extensions: code ctxlens does not run.
        pub extensions: Vec<String> = "extensions",
        /// The tools its extensions registered, where a tool set (`sourceInfo`) or the session shows them, each with its definition's size in the request.
        pub tools: Vec<PackageTool> = "tools",
        pub chars: usize = "chars",
        pub tokens: Option<usize> = "tokens",
    }
}

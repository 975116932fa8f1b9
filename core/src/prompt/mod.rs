//! The system prompt as a list of sections with UTF-16 spans and sources
//! (pi-coding-agent `dist/core/system-prompt.js`, `dist/core/skills.js:275–306`,
//! `dist/core/agent-session.js:738–768`). Every literal piece comes from `data/prompt.json`.

use crate::js::path::join_path;
use crate::js::{utf16_len, Value};
use crate::pi::Pi;
use crate::resources::{Resources, Skill};
use crate::tools::ToolDef;

pub mod sections;

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
    /// 0.86 on: the stored system message that set this text.
    pub stored: Option<Stored>,
}

/// 0.86 on: which stored system message set a span of the system prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stored {
    /// A `message` entry with role `system` in the session file.
    Session { line: u32, entry_id: Option<String> },
    /// The `systemMessage` checkpoint a compaction entry stores.
    Checkpoint { line: u32, entry_id: Option<String> },
    /// A system message this run writes (pi stores it with the prompt).
    ThisRun,
}

impl Stored {
    /// `session`, `checkpoint`, `this-run`.
    pub fn kind(&self) -> &'static str {
        match self {
            Stored::Session { .. } => "session",
            Stored::Checkpoint { .. } => "checkpoint",
            Stored::ThisRun => "this-run",
        }
    }

    /// The session line it was stored at (none for this run's).
    pub fn line(&self) -> Option<u32> {
        match self {
            Stored::Session { line, .. } | Stored::Checkpoint { line, .. } => Some(*line),
            Stored::ThisRun => None,
        }
    }

    /// The session entry that holds it (none for this run's).
    pub fn entry_id(&self) -> Option<&str> {
        match self {
            Stored::Session { entry_id, .. } | Stored::Checkpoint { entry_id, .. } => {
                entry_id.as_deref()
            }
            Stored::ThisRun => None,
        }
    }

    /// For people: `session line 3`, `the compaction's checkpoint, line 10`, `this run`.
    pub fn label(&self) -> String {
        match self {
            Stored::Session { line, .. } => format!("session line {line}"),
            Stored::Checkpoint { line, .. } => format!("the compaction's checkpoint, line {line}"),
            Stored::ThisRun => "this run".to_string(),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct SystemPrompt {
    pub text: String,
    pub sections: Vec<Section>,
}

impl SystemPrompt {
    /// Appends `text` as a section.
    fn push(&mut self, name: &str, source: &str, text: &str) {
        let start = self.sections.last().map_or(0, |s| s.end);
        let end = start + utf16_len(text);
        self.text.push_str(text);
        self.sections.push(Section {
            name: name.into(),
            source: source.into(),
            start,
            end,
            stored: None,
        });
    }

    /// Appends `text` as a section set by the system message `stored`.
    pub fn push_stored(&mut self, name: &str, source: &str, stored: &Stored, text: &str) {
        self.push(name, source, text);
        if let Some(last) = self.sections.last_mut() {
            last.stored = Some(stored.clone());
        }
    }

    /// Appends another prompt's text and spans after this one's.
    pub fn append(&mut self, other: &SystemPrompt) {
        let base = utf16_len(&self.text);
        self.text.push_str(&other.text);
        self.sections.extend(other.sections.iter().map(|s| Section {
            start: s.start + base,
            end: s.end + base,
            ..s.clone()
        }));
    }
}

fn p(pi: &Pi, key: &str) -> &'static str {
    pi.data.prompt_str(key)
}

fn skills_str(pi: &Pi, key: &str) -> &'static str {
    pi.data
        .prompt
        .get("skills")
        .and_then(|s| s.get_str(key))
        .unwrap_or("")
}

/// `buildSystemPrompt` (CA/core/system-prompt.js:7–117) for the active tools (in active order;
/// `_rebuildSystemPrompt`, agent-session.js:738, passes the names, the normalized snippets and the
/// guidelines of the active tools) and resources.
pub fn build(
    pi: &Pi,
    tools: &[ToolDef],
    resources: &Resources,
    cwd: &str,
    pi_package_dir: &str,
) -> SystemPrompt {
    let mut sp = SystemPrompt::default();
    let prompt_cwd = cwd.replace('\\', "/");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    let skill_read_tool = pi
        .data
        .prompt
        .get("skillFileReadToolPreference")
        .and_then(Value::as_array)
        .and_then(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .find(|t| names.contains(t))
        });
    // `appendSystemPrompt = list.join("\n\n")` is falsy only for `[]` and `[""]`.
    let append_section = match resources.append_prompts.as_slice() {
        [] => false,
        [only] => !only.text.is_empty(),
        _ => true,
    };

    let custom = resources
        .custom_prompt
        .as_ref()
        .filter(|c| !c.text.is_empty());
    if let Some(c) = custom {
        sp.push(
            "custom",
            c.path.as_deref().unwrap_or("--system-prompt"),
            &c.text,
        );
    } else {
        default_body(pi, &mut sp, tools, pi_package_dir);
    }
    if append_section {
        for a in &resources.append_prompts {
            sp.push(
                "append",
                a.path.as_deref().unwrap_or("--append-system-prompt"),
                &format!("{}{}", p(pi, "appendSeparator"), a.text),
            );
        }
    }
    if !resources.context_files.is_empty() {
        sp.push("project-context", "pi", p(pi, "projectContextOpen"));
        for f in &resources.context_files {
            let text = format!(
                "{}{}{}{}{}",
                p(pi, "projectInstructionsOpenPrefix"),
                f.path,
                p(pi, "projectInstructionsOpenSuffix"),
                f.content,
                p(pi, "projectInstructionsClose")
            );
            sp.push("context-file", &f.path, &text);
        }
        sp.push("project-context", "pi", p(pi, "projectContextClose"));
    }
    if let Some(tool) = skill_read_tool {
        format_skills_for_prompt(pi, &mut sp, &resources.skills, tool);
    }
    let mut cwd_line = format!("{}{}", p(pi, "cwdLinePrefix"), prompt_cwd);
    if custom.is_some() {
        cwd_line.push_str(p(pi, "customPromptCwdLineSuffix"));
    }
    sp.push("cwd", "pi", &cwd_line);
    sp
}

/// The default branch's template (CA/core/system-prompt.js:36–98): intro, tools list,
/// guidelines, pi documentation paths.
fn default_body(pi: &Pi, sp: &mut SystemPrompt, tools: &[ToolDef], pi_package_dir: &str) {
    sp.push("intro", "pi", p(pi, "defaultIntro"));
    // `- name: snippet` for active tools with a (normalized) snippet.
    let visible: Vec<(&str, String)> = tools
        .iter()
        .filter_map(|t| t.normalized_snippet().map(|s| (t.name.as_str(), s)))
        .collect();
    if visible.is_empty() {
        sp.push("tools", "pi", p(pi, "noTools"));
    }
    for (i, (name, snippet)) in visible.iter().enumerate() {
        let join = if i + 1 < visible.len() {
            p(pi, "toolsListJoin")
        } else {
            ""
        };
        sp.push(
            "tools",
            name,
            &format!(
                "{}{}{}{}{}",
                p(pi, "toolsListItemPrefix"),
                name,
                p(pi, "toolsListItemSeparator"),
                snippet,
                join
            ),
        );
    }
    sp.push("tools", "pi", p(pi, "afterToolsList"));

    // An ordered set of guidelines, each with the tool that first contributed it.
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    let has = |n: &str| names.contains(&n);
    let mut guidelines: Vec<(String, String)> = Vec::new();
    let mut add = |g: &str, source: &str| {
        if !guidelines.iter().any(|(x, _)| x == g) {
            guidelines.push((g.to_string(), source.to_string()));
        }
    };
    if (has("bash") || has("powershell")) && !has("grep") && !has("find") && !has("ls") {
        let g = if has("bash") && has("powershell") {
            p(pi, "guidelineBashAndPowerShell")
        } else if has("powershell") {
            p(pi, "guidelinePowerShell")
        } else {
            p(pi, "guidelineBash")
        };
        add(g, "pi");
    }
    for t in tools {
        for g in t.normalized_guidelines() {
            // buildSystemPrompt trims again; normalized guidelines are already trimmed.
            add(&g, &t.name);
        }
    }
    add(p(pi, "guidelineConcise"), "pi");
    add(p(pi, "guidelineFilePaths"), "pi");
    for (i, (g, source)) in guidelines.iter().enumerate() {
        let join = if i + 1 < guidelines.len() {
            p(pi, "guidelinesJoin")
        } else {
            ""
        };
        sp.push(
            "guidelines",
            source,
            &format!("{}{}{}", p(pi, "guidelineItemPrefix"), g, join),
        );
    }

    // getReadmePath/getDocsPath/getExamplesPath (CA/config.js:357–367).
    let paths = pi.data.prompt.get("packagePaths");
    let suffix = |k: &str| {
        paths
            .and_then(|x| x.get_str(k))
            .unwrap_or("")
            .trim_start_matches('/')
            .to_string()
    };
    let docs = format!(
        "{}{}{}{}{}{}{}",
        p(pi, "afterGuidelines"),
        join_path(pi_package_dir, &suffix("readmeSuffix")),
        p(pi, "betweenReadmeAndDocs"),
        join_path(pi_package_dir, &suffix("docsSuffix")),
        p(pi, "betweenDocsAndExamples"),
        join_path(pi_package_dir, &suffix("examplesSuffix")),
        p(pi, "docsTail")
    );
    sp.push("pi-docs", "pi", &docs);
}

/// `escapeXml` (CA/core/skills.js:299–306), with the replacements from the data file.
pub fn escape_xml(pi: &Pi, s: &str) -> String {
    let mut out = s.to_string();
    if let Some(pairs) = pi
        .data
        .prompt
        .get("skills")
        .and_then(|x| x.get("xmlEscapes"))
        .and_then(Value::as_array)
    {
        for pair in pairs {
            if let (Some(from), Some(to)) = (
                pair.as_array()
                    .and_then(|a| a.first())
                    .and_then(Value::as_str),
                pair.as_array()
                    .and_then(|a| a.get(1))
                    .and_then(Value::as_str),
            ) {
                out = out.replace(from, to);
            }
        }
    }
    out
}

/// `formatSkillsForPrompt(skills, fileReadTool)` (CA/core/skills.js:275–298): nothing when no
/// skill is visible (`disable-model-invocation`); otherwise the header lines, one block per skill
/// and the closing tag, joined by `\n`.
fn format_skills_for_prompt(pi: &Pi, sp: &mut SystemPrompt, skills: &[Skill], read_tool: &str) {
    let visible: Vec<&Skill> = skills
        .iter()
        .filter(|s| !s.disable_model_invocation)
        .collect();
    if visible.is_empty() {
        return;
    }
    let j = skills_str(pi, "lineJoin");
    let header = [
        skills_str(pi, "header"),
        if read_tool == "read" {
            skills_str(pi, "readToolLine")
        } else {
            skills_str(pi, "bashToolLine")
        },
        skills_str(pi, "relativePathLine"),
        skills_str(pi, "separatorLine"),
        skills_str(pi, "listOpen"),
    ]
    .join(j);
    sp.push("skills", "pi", &header);
    for s in visible {
        let lines = [
            skills_str(pi, "skillOpen").to_string(),
            format!(
                "{}{}{}",
                skills_str(pi, "namePrefix"),
                escape_xml(pi, &s.name),
                skills_str(pi, "nameSuffix")
            ),
            format!(
                "{}{}{}",
                skills_str(pi, "descriptionPrefix"),
                escape_xml(pi, &s.description),
                skills_str(pi, "descriptionSuffix")
            ),
            format!(
                "{}{}{}",
                skills_str(pi, "locationPrefix"),
                escape_xml(pi, &s.file_path),
                skills_str(pi, "locationSuffix")
            ),
            skills_str(pi, "skillClose").to_string(),
        ];
        sp.push("skills", &s.file_path, &format!("{j}{}", lines.join(j)));
    }
    sp.push(
        "skills",
        "pi",
        &format!("{j}{}", skills_str(pi, "listClose")),
    );
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;

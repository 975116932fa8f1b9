use super::*;
use crate::resources::{ContextFile, PromptText, Resources, Skill};
use crate::testcase::pi;
use crate::tools::builtin_tools;

fn assert_tiles(sp: &SystemPrompt) {
    let mut at = 0;
    for s in &sp.sections {
        assert_eq!(s.start, at, "gap or overlap at {s:?}");
        assert!(s.end >= s.start);
        at = s.end;
    }
    assert_eq!(
        at,
        utf16_len(&sp.text),
        "sections must cover the whole text"
    );
}

fn default_tools() -> Vec<ToolDef> {
    builtin_tools(&pi(), false)
        .into_iter()
        .filter(|t| ["read", "bash", "edit", "write"].contains(&t.name.as_str()))
        .collect()
}

fn skill(name: &str, hidden: bool) -> Skill {
    Skill {
        name: name.into(),
        description: "Use <this> & \"that\"".into(),
        file_path: format!("/h/.pi/agent/skills/{name}/SKILL.md"),
        base_dir: format!("/h/.pi/agent/skills/{name}"),
        disable_model_invocation: hidden,
        source: "user".into(),
        package: None,
    }
}

#[test]
fn default_branch_tiles_and_matches_pi_layout() {
    let res = Resources {
        context_files: vec![ContextFile {
            path: "/p/AGENTS.md".into(),
            content: "rules é😀".into(),
            shadowed: vec![],
        }],
        skills: vec![skill("a", false), skill("b", true)],
        custom_prompt: None,
        append_prompts: vec![PromptText {
            text: "extra".into(),
            path: None,
        }],
        prompt_templates: vec![],
        packages: vec![],
    };
    let sp = build(&pi(), &default_tools(), &res, "/p", "/pkg");
    assert_tiles(&sp);
    assert!(sp.text.starts_with("You are an expert coding assistant"));
    assert!(sp.text.contains("- read: Read file contents\n- bash: "));
    assert!(sp
        .text
        .contains("- Use bash for file operations like ls, rg, find\n- Use read to examine"));
    assert!(sp.text.contains("- Main documentation: /pkg/README.md\n- Additional docs: /pkg/docs\n- Examples: /pkg/examples (extensions"));
    assert!(sp
        .text
        .contains("(docs/extensions.md, examples/extensions/)"));
    assert!(sp.text.contains("details)\n\nextra\n\n<project_context>"));
    assert!(sp.text.contains("<project_instructions path=\"/p/AGENTS.md\">\nrules é😀\n</project_instructions>\n\n</project_context>\n\n\nThe following skills"));
    assert!(sp
        .text
        .contains("<description>Use &lt;this&gt; &amp; &quot;that&quot;</description>"));
    assert!(!sp.text.contains("<name>b</name>"));
    assert!(sp
        .text
        .ends_with("</available_skills>\nCurrent working directory: /p"));
    let sources: Vec<&str> = sp.sections.iter().map(|s| s.source.as_str()).collect();
    assert!(sources.contains(&"/p/AGENTS.md"));
    assert!(sources.contains(&"/h/.pi/agent/skills/a/SKILL.md"));
    assert!(sources.contains(&"edit"));
    assert!(sp
        .sections
        .iter()
        .any(|s| s.name == "append" && s.source == "--append-system-prompt"));
}

#[test]
fn custom_branch_has_a_trailing_newline_and_no_tools_list() {
    let res = Resources {
        custom_prompt: Some(PromptText {
            text: "You are a test.".into(),
            path: Some("/a/SYSTEM.md".into()),
        }),
        append_prompts: vec![
            PromptText {
                text: "".into(),
                path: None,
            },
            PromptText {
                text: "x".into(),
                path: None,
            },
        ],
        ..Default::default()
    };
    let sp = build(&pi(), &default_tools(), &res, "C:\\w", "/pkg");
    assert_tiles(&sp);
    assert_eq!(
        sp.text,
        "You are a test.\n\n\n\nx\nCurrent working directory: C:/w\n"
    );
    assert_eq!(sp.sections[0].source, "/a/SYSTEM.md");
}

#[test]
fn no_tools_and_the_file_exploration_guideline_variants() {
    let sp = build(&pi(), &[], &Resources::default(), "/", "/pkg");
    assert_tiles(&sp);
    assert!(sp.text.contains("Available tools:\n(none)\n\nIn addition"));
    assert!(sp.text.contains("Guidelines:\n- Be concise in your responses\n- Show file paths clearly when working with files\n\nPi documentation"));
    let all = builtin_tools(&pi(), false);
    let pick = |n: &[&str]| {
        all.iter()
            .filter(|t| n.contains(&t.name.as_str()))
            .cloned()
            .collect::<Vec<_>>()
    };
    let both = build(
        &pi(),
        &pick(&["bash", "powershell"]),
        &Resources::default(),
        "/",
        "/pkg",
    );
    assert!(both
        .text
        .contains("- Use bash or PowerShell for file operations"));
    // The PI_* guideline of bash and powershell appears once.
    assert_eq!(both.text.matches("PI_* environment").count(), 1);
    let ps = build(
        &pi(),
        &pick(&["powershell"]),
        &Resources::default(),
        "/",
        "/pkg",
    );
    assert!(ps.text.contains("- Use PowerShell for file operations"));
    let with_ls = build(
        &pi(),
        &pick(&["bash", "ls"]),
        &Resources::default(),
        "/",
        "/pkg",
    );
    assert!(!with_ls.text.contains("for file operations"));
}

#[test]
fn skills_need_read_or_bash_and_use_the_matching_line() {
    let res = Resources {
        skills: vec![skill("a", false)],
        ..Default::default()
    };
    let all = builtin_tools(&pi(), false);
    let bash: Vec<ToolDef> = all.iter().filter(|t| t.name == "bash").cloned().collect();
    assert!(build(&pi(), &bash, &res, "/", "/pkg")
        .text
        .contains("Use bash to load a skill's file"));
    let edit: Vec<ToolDef> = all.iter().filter(|t| t.name == "edit").cloned().collect();
    assert!(!build(&pi(), &edit, &res, "/", "/pkg")
        .text
        .contains("<available_skills>"));
}

#[test]
fn escape_xml_replaces_the_five_characters() {
    assert_eq!(escape_xml(&pi(), "a&<>\"'"), "a&amp;&lt;&gt;&quot;&apos;");
}

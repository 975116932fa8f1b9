use super::*;
use crate::args::PiArgs;
use crate::inputs::SourceText;
use crate::js::Object;
use crate::testcase::pi;

fn names(t: &[ToolDef]) -> Vec<&str> {
    t.iter().map(|t| t.name.as_str()).collect()
}

fn ext(json: &str) -> Vec<ToolDef> {
    let mut d = Vec::new();
    extension_tools(
        &SourceText {
            name: "tools.json".into(),
            text: json.into(),
        },
        &mut d,
    )
}

fn sel(args: PiArgs, settings: Settings, exts: Vec<ToolDef>) -> Vec<String> {
    let mut d = Vec::new();
    select(
        &pi(),
        builtin_tools(&pi(), false),
        exts,
        &args,
        &settings,
        &mut d,
    )
    .into_iter()
    .map(|t| t.name)
    .collect()
}

#[test]
fn builtins_come_from_the_data_and_experimental_adds_constrained_sampling() {
    let plain = builtin_tools(&pi(), false);
    assert_eq!(
        names(&plain),
        [
            "read",
            "bash",
            "edit",
            "write",
            "grep",
            "find",
            "ls",
            "powershell"
        ]
    );
    assert!(plain.iter().all(|t| t.constrained_sampling.is_none()));
    let exp = builtin_tools(&pi(), true);
    let with: Vec<&str> = exp
        .iter()
        .filter(|t| t.constrained_sampling.is_some())
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(with, ["read", "bash", "edit", "write", "powershell"]);
}

#[test]
fn default_selection_is_read_bash_edit_write_then_extension_tools() {
    let e = ext(r#"[{"name":"deploy","description":"d"},{"name":"lint","description":"l"}]"#);
    assert_eq!(
        sel(PiArgs::default(), Settings::default(), e),
        ["read", "bash", "edit", "write", "deploy", "lint"]
    );
}

#[test]
fn tools_flag_is_an_allow_list_for_extension_tools_too() {
    let e = ext(r#"[{"name":"deploy","description":"d"},{"name":"lint","description":"l"}]"#);
    let args = PiArgs {
        tools: Some(vec![
            "ls".into(),
            "lint".into(),
            "read".into(),
            "nope".into(),
        ]),
        ..Default::default()
    };
    assert_eq!(sel(args, Settings::default(), e), ["ls", "lint", "read"]);
}

#[test]
fn no_tools_disables_everything_and_no_builtin_tools_keeps_extensions() {
    let e = ext(r#"[{"name":"deploy","description":"d"}]"#);
    assert!(sel(
        PiArgs {
            no_tools: true,
            ..Default::default()
        },
        Settings::default(),
        e.clone()
    )
    .is_empty());
    assert_eq!(
        sel(
            PiArgs {
                no_builtin_tools: true,
                ..Default::default()
            },
            Settings::default(),
            e.clone()
        ),
        ["deploy"]
    );
    // --tools wins over --no-tools.
    let args = PiArgs {
        no_tools: true,
        tools: Some(vec!["bash".into()]),
        ..Default::default()
    };
    assert_eq!(sel(args, Settings::default(), e), ["bash"]);
}

#[test]
fn exclude_tools_and_settings_default_tools() {
    let e = ext(r#"[{"name":"deploy","description":"d"}]"#);
    let settings = Settings {
        merged: Object::new().with(
            "defaultTools",
            Value::Array(vec!["grep".into(), "read".into()]),
        ),
        ..Default::default()
    };
    let args = PiArgs {
        exclude_tools: Some(vec!["read".into(), "deploy".into()]),
        ..Default::default()
    };
    assert_eq!(sel(args, settings, e), ["grep"]);
}

#[test]
fn an_extension_tool_replaces_a_builtin_of_the_same_name_in_place() {
    let e = ext(r#"[{"name":"read","description":"mine","promptSnippet":"My read"}]"#);
    let mut d = Vec::new();
    let active = select(
        &pi(),
        builtin_tools(&pi(), false),
        e,
        &PiArgs::default(),
        &Settings::default(),
        &mut d,
    );
    assert_eq!(names(&active), ["read", "bash", "edit", "write"]);
    assert_eq!(active[0].description, "mine");
    assert_eq!(active[0].source, ToolSource::Extension { index: 0 });
}

#[test]
fn extension_tool_defaults_and_duplicates() {
    let e = ext(
        r#"[{"name":"a","description":"1"},{"name":"b","description":"2","label":"B"},{"name":"a","description":"3"}]"#,
    );
    assert_eq!(names(&e), ["a", "b"]);
    assert_eq!(e[0].description, "3");
    assert_eq!(e[0].label, "a");
    assert_eq!(e[1].label, "B");
    assert_eq!(
        e[0].parameters.to_json(),
        r#"{"type":"object","properties":{}}"#
    );
    let mut d = Vec::new();
    assert!(extension_tools(
        &SourceText {
            name: "t".into(),
            text: "{".into()
        },
        &mut d
    )
    .is_empty());
    assert_eq!(d.len(), 1);
}

#[test]
fn snippets_and_guidelines_are_normalized_like_pi() {
    assert_eq!(
        normalize_prompt_snippet(Some("  a\r\n\n b\t c  ")).as_deref(),
        Some("a b c")
    );
    assert_eq!(normalize_prompt_snippet(Some(" \n ")), None);
    assert_eq!(normalize_prompt_snippet(Some("")), None);
    let g = vec![" x ".to_string(), "".into(), "x".into(), "y".into()];
    assert_eq!(normalize_prompt_guidelines(Some(&g)), ["x", "y"]);
}

#[test]
fn a_tool_sets_source_info_names_the_package_that_registered_the_tool() {
    let t = ext(
        r#"[{"name":"a","description":"","sourceInfo":{"source":"npm:jira-kit","scope":"user"}},
            {"name":"b","description":"","sourceInfo":{"source":"cli"}},
            {"name":"c","description":"","sourceInfo":{"source":"auto","path":"/x.ts"}},
            {"name":"d","description":""}]"#,
    );
    let packages: Vec<Option<&str>> = t.iter().map(|t| t.package.as_deref()).collect();
    assert_eq!(packages, [Some("npm:jira-kit"), Some("cli"), None, None]);
}

/// A bad tool in a tool set is said at its line, with what ctxlens does with it.
#[test]
fn a_bad_tool_is_said_at_its_line() {
    let text = "[\n  {\"name\": \"ok\"},\n  7,\n  {\n    \"name\": \"x\",\n    \"label\": 3\n  },\n  {\"nameless\": 1}\n]";
    let mut d = Vec::new();
    let tools = extension_tools(
        &SourceText {
            name: "tools.json".into(),
            text: text.into(),
        },
        &mut d,
    );
    assert_eq!(names(&tools), ["ok", "x"]);
    let said: Vec<(Option<u32>, &str)> = d.iter().map(|x| (x.line, x.message.as_str())).collect();
    // A missing member is said at its tool's line; a bad one at its own.
    assert_eq!(
        said,
        [
            (
                Some(2),
                "tool \"ok\": `description` is missing, not a string; using \"\""
            ),
            (Some(3), "tool #1 is not an object"),
            (
                Some(4),
                "tool \"x\": `description` is missing, not a string; using \"\""
            ),
            (
                Some(6),
                "tool \"x\": `label` is not a string (3); using the name"
            ),
            (Some(8), "tool #3 has no string `name`"),
        ],
    );
    // Not JSON: the line and column of the error.
    let mut d = Vec::new();
    extension_tools(
        &SourceText {
            name: "tools.json".into(),
            text: "[\n  {\"name\": }\n]".into(),
        },
        &mut d,
    );
    assert_eq!(d[0].line, Some(2), "{d:?}");
    assert!(d[0].message.contains("column"), "{d:?}");
}

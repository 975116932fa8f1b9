//! Expected values are what pi's own `substituteArgs` / `parseCommandArgs` return (0.85.1 and
//! 1.6.0, run with node on these inputs).

use super::*;
use crate::pi::PromptTemplateArgs::{QuoteAnywhere, QuoteOpensToken};

fn a(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn substitution_follows_pis_regex() {
    let args = a(&["one", "two", "three"]);
    let cases = [
        ("$1-$2-$3-$4.", "one-two-three-."),
        ("all: $@ / $ARGUMENTS", "all: one two three / one two three"),
        (
            "${@:2}|${@:2:1}|${@:0}|${@:9}|${@:1:0}",
            "two three|two|one two three||",
        ),
        (
            "${1:-x} ${4:-four} ${0:-zero} ${@:-none}",
            "one four zero one two three",
        ),
        (
            "$0 $ $$1 ${x} ${@:} ${@:2:} ${1:-a",
            " $ $one ${x} ${@:} ${@:2:} ${1:-a",
        ),
        (
            "$10 $99999999999999999999999 ${99999999999999999999:-d}",
            "  d",
        ),
        ("$ARGUMENTSX $@@", "one two threeX one two three@"),
    ];
    for (template, want) in cases {
        assert_eq!(substitute_args(template, &args), want, "{template}");
    }
    // Values are not substituted again; empty values take the default.
    assert_eq!(substitute_args("$1 ${2:-d}", &a(&["$2", ""])), "$2 d");
    assert_eq!(substitute_args("${@:-none}", &[]), "none");
}

#[test]
fn arguments_split_as_each_release_splits_them() {
    let s = r#"a "b c" d'e f' "" 'x \' y' un"closed"#;
    assert_eq!(
        parse_command_args(QuoteAnywhere, s),
        a(&["a", "b c", "de f", "x \\", "y un\"closed"])
    );
    assert_eq!(
        parse_command_args(QuoteOpensToken, s),
        a(&["a", "b c", "d'e", "f'", "", "x ' y", "un\"closed"])
    );
    // An unclosed quote at the start of an argument is text in 1.6.0.
    assert_eq!(
        parse_command_args(QuoteOpensToken, "'it is"),
        a(&["'it", "is"])
    );
    assert_eq!(parse_command_args(QuoteAnywhere, "'it is"), a(&["it is"]));
    assert_eq!(
        parse_command_args(QuoteOpensToken, "  "),
        Vec::<String>::new()
    );
}

#[test]
fn frontmatter_body_is_trimmed_only_after_frontmatter() {
    assert_eq!(frontmatter_body("\u{FEFF}  body\r\n"), "  body\n");
    assert_eq!(
        frontmatter_body("---\ndescription: d\n---\n\n body \n"),
        "body"
    );
    assert_eq!(frontmatter_body("---\nno end\n"), "---\nno end\n");
}

fn obj(json: &str) -> crate::js::Object {
    crate::js::json::parse(json)
        .unwrap()
        .as_object()
        .unwrap()
        .clone()
}

fn fs_with(files: &[(&str, &str)]) -> VirtualFs {
    let mut fs = VirtualFs::new();
    for (p, c) in files {
        fs.insert(p, c.as_bytes().to_vec());
    }
    fs
}

fn loaded(
    fs: &VirtualFs,
    args: &PiArgs,
    trusted: bool,
    global: &str,
) -> (Vec<(String, String)>, Vec<Diagnostic>) {
    let settings = Settings {
        global: obj(global),
        project_trusted: trusted,
        ..Default::default()
    };
    let mut d = Vec::new();
    let t = load_prompt_templates(
        fs,
        "/h",
        "/h/.pi/agent",
        "/p",
        "/run",
        args,
        &settings,
        &Default::default(),
        &mut d,
    );
    (t.into_iter().map(|t| (t.name, t.file_path)).collect(), d)
}

#[test]
fn templates_come_from_pis_paths_in_its_order() {
    let fs = fs_with(&[
        ("/h/.pi/agent/prompts/fix.md", "agent fix"),
        ("/h/.pi/agent/prompts/only.md", "agent only"),
        ("/h/.pi/agent/prompts/.hidden.md", "skipped: a dot file"),
        (
            "/h/.pi/agent/prompts/sub/below.md",
            "skipped: below the first level",
        ),
        ("/p/.pi/prompts/fix.md", "project fix"),
        ("/h/shared/a/deep.md", "settings folder, walked"),
        ("/h/shared/notes.txt", "not .md"),
        (
            "/run/tpl/.dot.md",
            "a --prompt-template folder takes dot files",
        ),
    ]);
    let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    // `!only.md` turns the agent dir's only.md off (`isEnabledByOverrides`).
    let global = r#"{"prompts": ["../../shared", "!only.md"]}"#;
    let args = PiArgs {
        prompt_templates: vec!["tpl".into(), "missing.md".into()],
        ..Default::default()
    };
    let (t, d) = loaded(&fs, &args, true, global);
    assert_eq!(
        t,
        pairs(&[
            ("fix", "/p/.pi/prompts/fix.md"),
            ("deep", "/h/shared/a/deep.md"),
            (".dot", "/run/tpl/.dot.md"),
        ])
    );
    let msgs: Vec<String> = d
        .iter()
        .map(|d| format!("{}: {}", d.file, d.message))
        .collect();
    assert!(
        msgs.iter().any(|m| m
            == "/h/.pi/agent/prompts/fix.md: name \"/fix\" collision: /p/.pi/prompts/fix.md wins"),
        "{msgs:?}"
    );
    assert!(
        msgs.iter()
            .any(|m| m == "/run/missing.md: Prompt template path does not exist"),
        "{msgs:?}"
    );

    // An untrusted project's .pi/prompts are not read; --no-prompt-templates keeps only the
    // --prompt-template paths.
    let (t, _) = loaded(&fs, &PiArgs::default(), false, "{}");
    assert_eq!(
        t,
        pairs(&[
            ("fix", "/h/.pi/agent/prompts/fix.md"),
            ("only", "/h/.pi/agent/prompts/only.md")
        ])
    );
    let args = PiArgs {
        no_prompt_templates: true,
        prompt_templates: vec!["tpl".into()],
        ..Default::default()
    };
    assert_eq!(
        loaded(&fs, &args, true, global).0,
        pairs(&[(".dot", "/run/tpl/.dot.md")])
    );
}

#[test]
fn a_prompt_expands_only_for_a_known_name() {
    let t = vec![PromptTemplate {
        name: "r".into(),
        content: "[$1|$2|$@]".into(),
        file_path: "/t/r.md".into(),
        package: None,
    }];
    let p = crate::testcase::pi();
    let e = |s: &str| expand_prompt_template(&p, s, &t).0;
    assert_eq!(e("/r  a\n b "), "[a|b|a b]");
    assert_eq!(e("/r"), "[||]");
    assert_eq!(e("/rr a"), "/rr a");
    assert_eq!(e("/ r a"), "/ r a");
    assert_eq!(e("r a"), "r a");
    assert_eq!(
        expand_prompt_template(&p, "/r x", &t)
            .1
            .map(|t| t.file_path.as_str()),
        Some("/t/r.md")
    );
}

use super::*;
use crate::testcase::pi;

fn fs_with(files: &[(&str, &str)]) -> VirtualFs {
    let mut fs = VirtualFs::new();
    for (p, c) in files {
        fs.insert(p, c.as_bytes().to_vec());
    }
    fs
}

fn y(src: &str) -> String {
    match crate::yaml::parse(src) {
        Ok(v) => v.to_json(),
        Err(e) => format!("ERR {}", e.message),
    }
}

/// Expected values are what pi's `yaml` package (`parse`) gives, checked with Node 22.
#[test]
fn yaml_subset_matches_the_yaml_package() {
    let ok = [
        (
            "description: foo #bar\nname: x",
            r#"{"description":"foo","name":"x"}"#,
        ),
        ("description: foo#bar", r#"{"description":"foo#bar"}"#),
        (
            "description: This is a long\n  description on two\n\n  lines",
            r#"{"description":"This is a long description on two\nlines"}"#,
        ),
        (
            "description: >\n  folded\n  text\n\n  para\n",
            r#"{"description":"folded text\npara\n"}"#,
        ),
        (
            "description: |\n  lit\n  text\n",
            r#"{"description":"lit\ntext\n"}"#,
        ),
        (
            "description: |-\n  lit\n  text\n\n",
            r#"{"description":"lit\ntext"}"#,
        ),
        (
            "description: >-\n  a\n   b\n  c",
            r#"{"description":"a\n b\nc"}"#,
        ),
        (
            "description: \"dq \\\"x\\\" \\u00e9\n  next\"",
            r#"{"description":"dq \"x\" é next"}"#,
        ),
        ("description: 'it''s\n  ok'", r#"{"description":"it's ok"}"#),
        (
            "disable-model-invocation: True\nx: yes\ny: 0x1F\nz: 1e3\nw: ~",
            r#"{"disable-model-invocation":true,"x":"yes","y":31,"z":1000,"w":null}"#,
        ),
        (
            "metadata:\n  author: x\n  tags: [a, b]\nname: n",
            r#"{"metadata":{"author":"x","tags":["a","b"]},"name":"n"}"#,
        ),
        (
            "list:\n- a\n- b\nname: n",
            r#"{"list":["a","b"],"name":"n"}"#,
        ),
        ("description:", r#"{"description":null}"#),
        (
            "description: a\n# comment\nname: b",
            r#"{"description":"a","name":"b"}"#,
        ),
        (
            "description: >\n\n  lead blank\n",
            r#"{"description":"\nlead blank\n"}"#,
        ),
        (
            "description: |+\n  keep\n\n",
            r#"{"description":"keep\n\n"}"#,
        ),
        (
            "description: plain with trailing spaces   \nname: n",
            r#"{"description":"plain with trailing spaces","name":"n"}"#,
        ),
        (
            "description: url http://x.com/a",
            r#"{"description":"url http://x.com/a"}"#,
        ),
        ("description: 'single' # c", r#"{"description":"single"}"#),
        ("\"quoted key\": v", r#"{"quoted key":"v"}"#),
        (
            "description: text\n   more indented\n  less",
            r#"{"description":"text more indented less"}"#,
        ),
        ("description: \"\"", r#"{"description":""}"#),
        ("description: !!str 12", r#"{"description":"12"}"#),
        ("description: &anc val", r#"{"description":"val"}"#),
        ("description: 12", r#"{"description":12}"#),
    ];
    for (src, want) in ok {
        assert_eq!(y(src), want, "{src:?}");
    }
    let errors = [
        "name: a\ndescription: Use when: x",
        "a: 1\na: 2",
        "description: \"a\" b",
        "description: foo\n  bar: baz",
        "description: - item",
        "description: [a, b",
        "name: x\n\tdescription: y",
        "description: @at",
        "description: `tick",
        "description: %pct",
        "description: a: b: c",
        "name: x\ndescription: |\n    four\n   three",
        "description: ? x",
        "description: *alias",
        "description: 'x'\n  trailing",
    ];
    for src in errors {
        assert!(
            y(src).starts_with("ERR"),
            "{src:?} should fail, got {}",
            y(src)
        );
    }
}

#[test]
fn frontmatter_extraction_and_strip() {
    assert_eq!(
        parse_frontmatter("---\r\nname: a\r\n---\r\nbody").map(|v| v.to_json()),
        Ok(r#"{"name":"a"}"#.to_string())
    );
    assert_eq!(
        parse_frontmatter("no frontmatter").map(|v| v.to_json()),
        Ok("{}".to_string())
    );
    assert_eq!(
        parse_frontmatter("---\n---\nx").map(|v| v.to_json()),
        Ok("{}".to_string())
    );
    assert_eq!(
        strip_frontmatter("\u{FEFF}---\nname: a\n---\n\n  body \n").as_deref(),
        Some("body")
    );
    assert_eq!(strip_frontmatter("  plain\n").as_deref(), Some("plain"));
}

/// pi slices the YAML at UTF-16 unit 4 (`normalized.slice(4, endIndex)`): a non-ASCII character
/// right after the opening `---` is dropped whole, or, outside the BMP, leaves its low surrogate.
/// Expected values checked with pi's `parseFrontmatter`.
#[test]
fn non_ascii_right_after_the_opening_fence_does_not_panic() {
    let fm = |s: &str| match parse_frontmatter(s) {
        Ok(v) => v.to_json(),
        Err(_) => "ERR".to_string(),
    };
    assert_eq!(fm("---é\nname: x\n---"), r#"{"name":"x"}"#);
    assert_eq!(fm("---é\n---\nbody"), "{}");
    assert_eq!(fm("---é"), "{}");
    assert_eq!(fm("---\u{2028}name: x\n---"), r#"{"name":"x"}"#);
    assert_eq!(
        fm("\u{FEFF}---é\r\nname: x\r\n---\r\nbody"),
        r#"{"name":"x"}"#
    );
    assert_eq!(fm("---日本\nname: x\n---"), "ERR");
    assert_eq!(fm("---😀\nname: x\n---"), "ERR");
    assert_eq!(fm("---😀: 1\n---"), r#"{"\ude00":1}"#);
    assert_eq!(
        strip_frontmatter("---é\nname: x\n---\nbody").as_deref(),
        Some("body")
    );
}

#[test]
fn context_files_agent_dir_first_then_root_to_cwd() {
    let fs = fs_with(&[
        ("/h/.pi/agent/AGENTS.md", "global"),
        ("/AGENTS.md", "root"),
        ("/p/CLAUDE.md", "claude"),
        ("/p/AGENTS.md", "agents"),
        ("/p/q/AGENTS.override.md", "override"),
        ("/p/q/AGENTS.md", "shadowed"),
        ("/p/q/r/CLAUDE.MD", "upper"),
    ]);
    let files = load_project_context_files(&pi(), &fs, "/p/q/r", "/h/.pi/agent");
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "/h/.pi/agent/AGENTS.md",
            "/AGENTS.md",
            "/p/AGENTS.md",
            "/p/q/AGENTS.override.md",
            "/p/q/r/CLAUDE.MD"
        ]
    );
    assert_eq!(files[2].shadowed, ["/p/CLAUDE.md"]);
    assert_eq!(files[3].shadowed, ["/p/q/AGENTS.md"]);
    // The agent dir inside the walk is not repeated.
    let files = load_project_context_files(&pi(), &fs, "/h/.pi/agent", "/h/.pi/agent");
    assert_eq!(
        files
            .iter()
            .filter(|f| f.path == "/h/.pi/agent/AGENTS.md")
            .count(),
        1
    );
}

#[test]
fn a_nested_worktree_shadows_the_main_repo_context_file() {
    let fs = fs_with(&[
        ("/repo/.git/HEAD", "ref"),
        ("/repo/AGENTS.md", "main"),
        ("/repo/wt/.git", "gitdir: /repo/.git/worktrees/wt\n"),
        ("/repo/.git/worktrees/wt/HEAD", "ref"),
        ("/repo/.git/worktrees/wt/commondir", "../..\n"),
        ("/repo/wt/AGENTS.md", "worktree"),
    ]);
    let paths: Vec<String> = load_project_context_files(&pi(), &fs, "/repo/wt", "/h/.pi/agent")
        .into_iter()
        .map(|f| f.path)
        .collect();
    assert_eq!(paths, ["/repo/wt/AGENTS.md"]);
}

fn load_all(fs: &VirtualFs, args: &PiArgs, trusted: bool) -> (Resources, Vec<Diagnostic>) {
    let mut d = Vec::new();
    let settings = Settings {
        project_trusted: trusted,
        ..Default::default()
    };
    (
        load(
            &pi(),
            fs,
            "/h",
            "/h/.pi/agent",
            "/p",
            "/p",
            args,
            &settings,
            &Default::default(),
            None,
            &mut d,
        ),
        d,
    )
}

#[test]
fn system_and_append_prompts() {
    let fs = fs_with(&[
        ("/h/.pi/agent/SYSTEM.md", "\u{FEFF}global system"),
        ("/p/.pi/SYSTEM.md", "project system"),
        ("/h/.pi/agent/APPEND_SYSTEM.md", "global append"),
        ("/p/extra.md", "from file"),
    ]);
    let (r, _) = load_all(&fs, &PiArgs::default(), false);
    assert_eq!(
        r.custom_prompt,
        Some(PromptText {
            text: "global system".into(),
            path: Some("/h/.pi/agent/SYSTEM.md".into())
        })
    );
    assert_eq!(r.append_prompts[0].text, "global append");
    let (r, _) = load_all(&fs, &PiArgs::default(), true);
    assert_eq!(
        r.custom_prompt.map(|c| c.text).as_deref(),
        Some("project system")
    );
    let args = PiArgs {
        system_prompt: Some("literal".into()),
        append_system_prompt: Some(vec!["extra.md".into(), "".into(), "x".into()]),
        ..Default::default()
    };
    let (r, _) = load_all(&fs, &args, false);
    assert_eq!(
        r.custom_prompt,
        Some(PromptText {
            text: "literal".into(),
            path: None
        })
    );
    let texts: Vec<&str> = r.append_prompts.iter().map(|a| a.text.as_str()).collect();
    assert_eq!(texts, ["from file", "x"]);
    // `--system-prompt ""` gives no custom prompt and no discovery.
    let (r, _) = load_all(
        &fs,
        &PiArgs {
            system_prompt: Some(String::new()),
            ..Default::default()
        },
        false,
    );
    assert_eq!(r.custom_prompt, None);
}

#[test]
fn skills_discovery_order_collisions_and_flags() {
    let fs = fs_with(&[
        (
            "/h/.pi/agent/skills/alpha/SKILL.md",
            "---\nname: alpha\ndescription: user alpha\n---\nbody",
        ),
        (
            "/h/.pi/agent/skills/alpha/nested/SKILL.md",
            "---\ndescription: never seen\n---\n",
        ),
        (
            "/h/.pi/agent/skills/loose.md",
            "---\ndescription: a root md\n---\n",
        ),
        ("/h/.pi/agent/skills/nodesc.md", "---\nname: x\n---\n"),
        (
            "/h/.agents/skills/beta/SKILL.md",
            "---\ndescription: 'beta: agents'\n---\n",
        ),
        (
            "/h/.agents/skills/top.md",
            "---\ndescription: not at the agents root\n---\n",
        ),
        (
            "/p/.pi/skills/alpha/SKILL.md",
            "---\nname: alpha\ndescription: project alpha\n---\n",
        ),
        (
            "/p/.pi/skills/bad/SKILL.md",
            "---\ndescription: Use when: broken\n---\n",
        ),
        ("/p/.pi/skills/.gitignore", "ignored/\n"),
        (
            "/p/.pi/skills/ignored/SKILL.md",
            "---\ndescription: ignored\n---\n",
        ),
        (
            "/p/cli/SKILL.md",
            "---\nname: gamma\ndescription: from --skill\n---\n",
        ),
    ]);
    let (r, d) = load_all(&fs, &PiArgs::default(), false);
    let got: Vec<(&str, &str)> = r
        .skills
        .iter()
        .map(|s| (s.name.as_str(), s.description.as_str()))
        .collect();
    // A root .md file without a name is named after its directory (skills.js:244–245).
    assert_eq!(
        got,
        [
            ("alpha", "user alpha"),
            ("skills", "a root md"),
            ("beta", "beta: agents")
        ]
    );
    assert_eq!(r.skills[0].source, "user");
    let (r, d2) = load_all(
        &fs,
        &PiArgs {
            skills: vec!["cli".into()],
            ..Default::default()
        },
        true,
    );
    let got: Vec<&str> = r.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(got, ["alpha", "skills", "beta", "gamma"]);
    assert_eq!(r.skills[0].description, "project alpha");
    assert!(d2.iter().any(|x| x.message.contains("collision")));
    assert!(d2
        .iter()
        .any(|x| x.file == "/p/.pi/skills/bad/SKILL.md" && x.message.contains("not valid YAML")));
    assert!(!d.iter().any(|x| x.message.contains("collision")));
    let (r, _) = load_all(
        &fs,
        &PiArgs {
            no_skills: true,
            ..Default::default()
        },
        true,
    );
    assert!(r.skills.is_empty());
    let (r, _) = load_all(
        &fs,
        &PiArgs {
            no_skills: true,
            skills: vec!["cli/SKILL.md".into()],
            ..Default::default()
        },
        true,
    );
    assert_eq!(r.skills.len(), 1);
    assert_eq!(r.skills[0].source, "path");
}

#[test]
fn skill_command_expansion() {
    let fs = fs_with(&[(
        "/s/deploy/SKILL.md",
        "---\nname: deploy\ndescription: d\n---\n\nSteps.\n",
    )]);
    let skills = vec![Skill {
        name: "deploy".into(),
        description: "d".into(),
        file_path: "/s/deploy/SKILL.md".into(),
        base_dir: "/s/deploy".into(),
        disable_model_invocation: false,
        source: "user".into(),
        package: None,
    }];
    let (t, used) = expand_skill_command(&pi(), "/skill:deploy  now ", &skills, &fs);
    assert!(used.is_some());
    assert_eq!(t, "<skill name=\"deploy\" location=\"/s/deploy/SKILL.md\">\nReferences are relative to /s/deploy.\n\nSteps.\n</skill>\n\nnow");
    assert_eq!(
        expand_skill_command(&pi(), "/skill:other x", &skills, &fs).0,
        "/skill:other x"
    );
    assert_eq!(
        expand_skill_command(&pi(), "hello", &skills, &fs).0,
        "hello"
    );
}

#[test]
fn a_package_not_installed_is_said_at_its_settings_line() {
    let global = "{\n  \"theme\": \"dark\",\n  \"packages\": [\n    \"npm:@acme/pi-kit\",\n    {\"source\": \"git:github.com/a/b\"}\n  ]\n}\n";
    let fs = fs_with(&[("/h/.pi/agent/settings.json", global)]);
    let settings = Settings {
        global: crate::js::json::parse(global)
            .unwrap()
            .as_object()
            .unwrap()
            .clone(),
        ..Default::default()
    };
    let mut d = Vec::new();
    let env = [("PI_OFFLINE".to_string(), "1".to_string())].into();
    let res = load(
        &pi(),
        &fs,
        "/h",
        "/h/.pi/agent",
        "/p",
        "/p",
        &PiArgs::default(),
        &settings,
        &env,
        None,
        &mut d,
    );
    let p: Vec<&Diagnostic> = d
        .iter()
        .filter(|d| d.message.starts_with("package "))
        .collect();
    assert_eq!(p.len(), 2, "{d:?}");
    assert_eq!(p[0].file, "/h/.pi/agent/settings.json");
    assert_eq!(p[0].line, Some(4));
    assert!(
        p[0].message.contains(
            "npm:@acme/pi-kit: not installed at /h/.pi/agent/npm/node_modules/@acme/pi-kit"
        ),
        "{}",
        p[0].message
    );
    assert!(p[0].message.contains("pi skips it (PI_OFFLINE)"));
    assert_eq!(p[1].line, Some(5));
    assert!(
        p[1].message
            .contains("not cloned at /h/.pi/agent/git/github.com/a/b"),
        "{}",
        p[1].message
    );
    assert_eq!(res.packages.len(), 2);
    assert!(res.packages.iter().all(|p| p.root.is_none()));
}

/// A skill pi warns about or skips is said at the frontmatter line concerned.
#[test]
fn skill_problems_are_said_at_their_frontmatter_line() {
    let fs = fs_with(&[
        (
            "/h/.pi/agent/skills/a/SKILL.md",
            "---\nname: Not_Valid\ndescription: fine\n---\nbody",
        ),
        (
            "/h/.pi/agent/skills/b/SKILL.md",
            "---\nname: b\n---\nno description",
        ),
    ]);
    let (_, d) = load_all(&fs, &PiArgs::default(), true);
    let at = |file: &str| -> Vec<Option<u32>> {
        d.iter()
            .filter(|x| x.file == file)
            .map(|x| x.line)
            .collect()
    };
    assert!(!at("/h/.pi/agent/skills/a/SKILL.md").is_empty(), "{d:?}");
    assert!(
        at("/h/.pi/agent/skills/a/SKILL.md")
            .iter()
            .all(|l| *l == Some(2)),
        "{d:?}"
    );
    // No description key: the frontmatter's first line.
    assert_eq!(at("/h/.pi/agent/skills/b/SKILL.md"), [Some(1)], "{d:?}");
}

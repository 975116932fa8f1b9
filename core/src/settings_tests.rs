use super::*;

fn fs_with(files: &[(&str, &str)]) -> VirtualFs {
    let mut fs = VirtualFs::new();
    for (p, c) in files {
        fs.insert(p, c.as_bytes().to_vec());
    }
    fs
}

#[test]
fn project_settings_merge_deeply_over_global_when_trusted() {
    let fs = fs_with(&[
        (
            "/h/.pi/agent/settings.json",
            r#"{"images":{"blockImages":true,"autoResize":false},"transport":"sse","queueMode":"all"}"#,
        ),
        (
            "/p/.pi/settings.json",
            "\u{FEFF}{\"images\":{\"blockImages\":false},\"defaultTools\":[\"read\"]}",
        ),
    ]);
    let mut d = Vec::new();
    let s = load(
        &fs,
        "/h",
        "/h/.pi/agent",
        "/p",
        &PiArgs {
            approve: Some(true),
            ..Default::default()
        },
        &mut d,
    );
    assert!(d.is_empty(), "{d:?}");
    assert!(s.project_trusted);
    assert_eq!(
        s.merged
            .to_owned()
            .get("images")
            .map(|v| v.to_json())
            .as_deref(),
        Some(r#"{"blockImages":false,"autoResize":false}"#)
    );
    assert!(!s.block_images());
    assert!(!s.image_auto_resize());
    assert_eq!(s.transport(), "sse");
    assert_eq!(s.default_tools(), Some(vec!["read".to_string()]));
    // queueMode migrated to steeringMode, moved to the end.
    assert_eq!(
        s.global.keys().last().map(|k| k.as_str()),
        Some("steeringMode")
    );
}

#[test]
fn a_project_with_trust_requiring_resources_is_untrusted_without_a_decision() {
    let fs = fs_with(&[("/p/.pi/settings.json", r#"{"transport":"websocket"}"#)]);
    let mut d = Vec::new();
    let s = load(&fs, "/h", "/h/.pi/agent", "/p", &PiArgs::default(), &mut d);
    assert!(!s.project_trusted);
    assert_eq!(s.transport(), "auto");
    // The trust store decides, for cwd or an ancestor.
    let fs = fs_with(&[
        ("/p/.pi/settings.json", r#"{"transport":"websocket"}"#),
        ("/h/.pi/agent/trust.json", r#"{"/":true}"#),
    ]);
    let s = load(&fs, "/h", "/h/.pi/agent", "/p", &PiArgs::default(), &mut d);
    assert!(s.project_trusted);
    assert_eq!(s.transport(), "websocket");
    // defaultProjectTrust: always (global settings).
    let fs = fs_with(&[
        ("/p/.pi/SYSTEM.md", "x"),
        (
            "/h/.pi/agent/settings.json",
            r#"{"defaultProjectTrust":"always"}"#,
        ),
    ]);
    assert!(load(&fs, "/h", "/h/.pi/agent", "/p", &PiArgs::default(), &mut d).project_trusted);
    // --no-approve wins.
    assert!(
        !load(
            &fs,
            "/h",
            "/h/.pi/agent",
            "/p",
            &PiArgs {
                approve: Some(false),
                ..Default::default()
            },
            &mut d
        )
        .project_trusted
    );
}

#[test]
fn a_project_without_trust_requiring_resources_is_trusted() {
    let fs = fs_with(&[("/p/AGENTS.md", "x"), ("/h/.agents/skills/s/SKILL.md", "x")]);
    let mut d = Vec::new();
    assert!(load(&fs, "/h", "/h/.pi/agent", "/h", &PiArgs::default(), &mut d).project_trusted);
    let fs = fs_with(&[("/.agents/skills/s/SKILL.md", "x")]);
    assert!(has_trust_requiring_project_resources(&fs, "/h", "/p/q"));
}

#[test]
fn bad_json_is_reported_with_its_line_and_ignored() {
    let fs = fs_with(&[("/h/.pi/agent/settings.json", "{\n  \"a\": 1,\n}")]);
    let mut d = Vec::new();
    let s = load(&fs, "/h", "/h/.pi/agent", "/p", &PiArgs::default(), &mut d);
    assert!(s.merged.is_empty());
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].line, Some(3));
}

#[test]
fn legacy_settings_are_migrated() {
    let mut o = match js::parse(
        r#"{"websockets":false,"skills":{"enableSkillCommands":false,"customDirectories":["/s"]},"retry":{"maxDelayMs":5}}"#,
    ) {
        Ok(Value::Object(o)) => o,
        _ => unreachable!(),
    };
    migrate_settings(&mut o);
    assert_eq!(
        Value::Object(o).to_json(),
        r#"{"skills":["/s"],"retry":{"provider":{"maxRetryDelayMs":5}},"transport":"sse","enableSkillCommands":false}"#
    );
}

#[test]
fn compaction_settings_as_each_release_reads_them() {
    // Expected values: pi's own `SettingsManager.inMemory(settings).getCompactionSettings(model)`
    // run with each release's code (0.85.1 and 1.6.0) on these settings, for openai/gpt-5.4.
    let run = |v: crate::PiVersion, json: &str| {
        let pi = crate::Pi::new(v).expect("release data");
        let s = Settings {
            merged: js::parse(json).unwrap().as_object().unwrap().clone(),
            ..Default::default()
        };
        s.compaction(&pi, "openai", "gpt-5.4")
            .map(|c| (c.enabled, c.reserve_tokens, c.keep_recent_tokens))
    };
    use crate::PiVersion::{V0_85_1, V1_6_0};
    for v in [V0_85_1, V1_6_0] {
        assert_eq!(run(v, "{}"), Ok((true, 16384.0, 20000.0)), "{v}");
        assert_eq!(
            run(v, r#"{"compaction":{"reserveTokens":50000}}"#),
            Ok((true, 50000.0, 20000.0))
        );
        assert_eq!(
            run(
                v,
                r#"{"compaction":{"enabled":false,"keepRecentTokens":1000}}"#
            ),
            Ok((false, 16384.0, 1000.0))
        );
    }
    let overrides = r#"{"compaction":{"reserveTokens":1000,"modelOverrides":{"openai/gpt-5.4":{"reserveTokens":7000}}}}"#;
    // 0.85.1 has no per-model overrides and takes any value (JS coerces it in `window - x`).
    assert_eq!(run(V0_85_1, overrides), Ok((true, 1000.0, 20000.0)));
    assert_eq!(
        run(V0_85_1, r#"{"compaction":{"reserveTokens":"100"}}"#),
        Ok((true, 100.0, 20000.0))
    );
    assert_eq!(
        run(
            V0_85_1,
            r#"{"compaction":{"modelOverrides":{"openai/gpt-5.4":3}}}"#
        ),
        Ok((true, 16384.0, 20000.0))
    );
    // 1.6.0: the model's override wins, and a bad value is pi's error.
    assert_eq!(run(V1_6_0, overrides), Ok((true, 7000.0, 20000.0)));
    assert_eq!(
        run(V1_6_0, r#"{"compaction":{"reserveTokens":"100"}}"#),
        Err(
            "Invalid compaction.reserveTokens setting: 100. Expected a non-negative safe integer."
                .into()
        )
    );
    assert_eq!(
        run(V1_6_0, r#"{"compaction":{"reserveTokens":-1}}"#),
        Err(
            "Invalid compaction.reserveTokens setting: -1. Expected a non-negative safe integer."
                .into()
        )
    );
    assert_eq!(
        run(
            V1_6_0,
            r#"{"compaction":{"modelOverrides":{"openai/gpt-5.4":3}}}"#
        ),
        Err(
            "Invalid compaction.modelOverrides[\"openai/gpt-5.4\"] setting: 3. Expected an object."
                .into()
        )
    );
}

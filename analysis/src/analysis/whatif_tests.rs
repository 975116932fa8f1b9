use super::*;

/// The what-if proofs' base case (tests/whatif/pi-VERSION/base), as inputs.
fn base(version: &str) -> Inputs {
    let dir = ctxlens_corpus::workspace().join(format!("tests/whatif/pi-{version}/base"));
    let files = ctxlens_corpus::read_folder(&dir).unwrap();
    crate::case::inputs_from_case(&files, None).unwrap()
}

fn without(specs: &[&str]) -> Vec<Change> {
    specs
        .iter()
        .map(|s| Change::parse_without(s).unwrap())
        .collect()
}

#[test]
fn specs_parse_into_changes_and_back() {
    for (spec, want) in [
        ("tool:bash", Change::Tool("bash".into())),
        ("skill:a-b", Change::Skill("a-b".into())),
        ("skill-invocation:x", Change::SkillInvocation("x".into())),
        ("package:npm:@a/b", Change::Package("npm:@a/b".into())),
        (
            "context:shop/AGENTS.md",
            Change::Context("shop/AGENTS.md".into()),
        ),
        ("append-prompt", Change::AppendPrompt),
        ("entry:58fd9420", Change::Entry("58fd9420".into())),
        ("turn:44e3f427", Change::Turn("44e3f427".into())),
        (
            "tool-result:abc:3",
            Change::ToolResult {
                id: "abc".into(),
                lines: Some(3),
            },
        ),
        (
            "tool-result:abc",
            Change::ToolResult {
                id: "abc".into(),
                lines: None,
            },
        ),
        ("thinking:old", Change::ThinkingOld),
        ("image:all", Change::Image(None)),
        ("image:e1", Change::Image(Some("e1".into()))),
    ] {
        let c = Change::parse_without(spec).unwrap();
        assert_eq!(c, want, "{spec}");
        assert_eq!(c.spec(), spec);
    }
    for (spec, want) in [
        (
            "model=anthropic/claude-x",
            Change::Model("anthropic/claude-x".into()),
        ),
        ("thinking=high", Change::Thinking("high".into())),
        (
            "api=anthropic-messages",
            Change::Api(Api::AnthropicMessages),
        ),
        ("pi=0.85.1", Change::Pi(PiVersion::V0_85_1)),
    ] {
        let c = Change::parse_set(spec).unwrap();
        assert_eq!(c, want, "{spec}");
        assert_eq!(c.spec(), spec);
    }
}

#[test]
fn bad_specs_are_errors_that_say_what_is_accepted() {
    for (spec, says) in [
        ("tool", "needs a value"),
        ("tool:", "needs a value"),
        ("colour:red", "tool:NAME"),
        ("thinking:all", "thinking:old"),
        ("append-prompt:x", "unknown --without"),
        ("tool-result:abc:x", "number of lines"),
    ] {
        let e = Change::parse_without(spec).unwrap_err();
        assert!(e.contains(says), "{spec}: {e}");
    }
    for (spec, says) in [
        ("model", "KEY=VALUE"),
        ("model=", "KEY=VALUE"),
        ("thinking=loud", "one of off"),
        ("api=smoke", "openai-completions"),
        ("pi=9.9.9", "pi=9.9.9"),
        ("colour=red", "model, thinking, api, pi"),
    ] {
        let e = Change::parse_set(spec).unwrap_err();
        assert!(e.contains(says), "{spec}: {e}");
    }
}

#[test]
fn a_change_that_names_nothing_present_is_an_error_listing_what_is() {
    let inputs = base("0.85.1");
    let a = crate::assemble(&inputs);
    let err = |spec: &str| apply(&inputs, &a, &without(&[spec])).unwrap_err();
    let e = err("tool:grep");
    assert!(
        e.contains("no tool \"grep\"") && e.contains("bash") && e.contains("web_search"),
        "{e}"
    );
    let e = err("skill:deploy");
    assert!(
        e.contains("pytest-runner") && e.contains("release-notes"),
        "{e}"
    );
    let e = err("context:CLAUDE.md");
    assert!(e.contains("shop/AGENTS.md"), "{e}");
    // A suffix matches on a path boundary only, and must name one file.
    assert!(err("context:op/AGENTS.md").contains("no context file"));
    assert!(err("context:AGENTS.md").contains("several context files"));
    assert!(err("entry:nope").contains("no entry with id \"nope\""));
    assert!(err("tool-result:44e3f427").contains("not a tool result"));
    assert!(err("tool-result:531b3628:5").contains("nothing to cut"));
    assert!(err("image:all").contains("no images"));
    assert!(err("image:44e3f427").contains("holds no image"));
    // The same change twice: the second finds nothing.
    let e = apply(&inputs, &a, &without(&["skill-invocation:pytest-runner"]))
        .and_then(|(i, _)| {
            let b = crate::assemble(&i);
            apply(&i, &b, &without(&["skill-invocation:pytest-runner"]))
        })
        .unwrap_err();
    assert!(e.contains("already"), "{e}");
    // No appended prompt once it is off.
    let (i, _) = apply(&inputs, &a, &without(&["append-prompt"])).unwrap();
    let b = crate::assemble(&i);
    assert!(b.parts.resources.append_prompts.is_empty());
    assert!(apply(&i, &b, &without(&["append-prompt"]))
        .unwrap_err()
        .contains("no appended system prompt"));
}

#[test]
fn an_entry_off_reparents_its_children_and_leaves_other_lines_as_written() {
    let inputs = base("0.85.1");
    let a = crate::assemble(&inputs);
    let (i, applied) = apply(&inputs, &a, &without(&["entry:58fd9420"])).unwrap();
    let before: Vec<&str> = inputs.session.as_ref().unwrap().text.lines().collect();
    let after: Vec<&str> = i.session.as_ref().unwrap().text.lines().collect();
    assert_eq!(after.len(), before.len() - 1);
    let changed: Vec<&&str> = after.iter().filter(|l| !before.contains(l)).collect();
    assert_eq!(changed.len(), 1, "only the child's line is rewritten");
    assert!(changed[0].contains("\"id\":\"29c22bed\",\"parentId\":\"6a1f34a5\""));
    match &applied[0].take_home {
        TakeHome::EditSession { edits, .. } => {
            assert_eq!(edits[1], "entry 29c22bed: parentId 58fd9420 → \"6a1f34a5\"")
        }
        other => panic!("{other:?}"),
    }
}

/// A what-if proofs' case of 1.6.0 by name (`base-resumed`: the session pi 1.6.0 left after the
/// base, two turns with a stored system message between them).
fn case_1_6(name: &str) -> Inputs {
    let dir = ctxlens_corpus::workspace().join(format!("tests/whatif/pi-1.6.0/{name}"));
    let files = ctxlens_corpus::read_folder(&dir).unwrap();
    crate::case::inputs_from_case(&files, None).unwrap()
}

#[test]
fn a_turn_off_removes_its_user_message_and_exchange_and_keeps_the_entries_between() {
    let inputs = case_1_6("base-resumed");
    let a = crate::assemble(&inputs);
    let lines = |i: &Inputs| -> Vec<String> {
        i.session
            .as_ref()
            .unwrap()
            .text
            .lines()
            .map(str::to_string)
            .collect()
    };
    let before = lines(&inputs);
    // The first turn: the user message on line 4 and the twelve messages of its exchange.
    let (i, applied) = apply(&inputs, &a, &without(&["turn:44e3f427"])).unwrap();
    let after = lines(&i);
    assert_eq!(after.len(), before.len() - 13);
    let ids: Vec<String> = after
        .iter()
        .filter_map(|l| js::parse(l).ok()?.get_str("id").map(str::to_string))
        .collect();
    assert_eq!(
        ids[1..],
        ["7bf0adfb", "f89838af", "7fa812fc", "908db8b9", "7f9c132c"],
        "the model and level changes, the stored system message and the second turn stay"
    );
    let system = js::parse(&after[3]).unwrap();
    assert_eq!(system.get_str("parentId"), Some("f89838af"));
    assert_eq!(
        after[4], before[17],
        "the next turn's user message is as written"
    );
    match &applied[0].take_home {
        TakeHome::EditSession { edits, .. } => assert_eq!(
            edits,
            &[
                "lines 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 removed (entries 44e3f427, c9756be4, 59cc72f4, 4ec5abbb, 6a1f34a5, 58fd9420, 29c22bed, 6941a657, c766f835, 531b3628, d351f15f, 18c8fce7, 24fb1670)".to_string(),
                "entry 7fa812fc: parentId 24fb1670 → \"f89838af\"".to_string(),
            ]
        ),
        other => panic!("{other:?}"),
    }
    assert!(
        applied[0].did.contains("6 assistant, 6 toolResult"),
        "{}",
        applied[0].did
    );
    // The last turn: the user message and its one answer; nothing left below it.
    let (i, applied) = apply(&inputs, &a, &without(&["turn:908db8b9"])).unwrap();
    assert_eq!(lines(&i), before[..17]);
    assert!(applied[0].did.contains("1 assistant"), "{}", applied[0].did);
    // A turn starts at a user message.
    let err = |spec: &str| apply(&inputs, &a, &without(&[spec])).unwrap_err();
    assert!(err("turn:c9756be4").contains("not a user message"));
    assert!(err("turn:7fa812fc").contains("not a user message"));
    assert!(err("turn:nope").contains("no entry with id \"nope\""));
}

#[test]
fn frontmatter_lines_are_set_or_added() {
    assert_eq!(
        set_frontmatter_flag("---\nname: a\n---\nbody", "k", "true").unwrap(),
        "---\nname: a\nk: true\n---\nbody"
    );
    assert_eq!(
        set_frontmatter_flag("---\r\nk: false\r\nname: a\r\n---\r\n", "k", "true").unwrap(),
        "---\r\nk: true\r\nname: a\r\n---\r\n"
    );
    assert_eq!(set_frontmatter_flag("no frontmatter", "k", "v"), None);
}

#[test]
fn several_tools_off_make_one_exclude_list_replacing_the_one_given() {
    let mut inputs = base("1.6.0");
    inputs.args = vec!["--exclude-tools".into(), "write".into()];
    let a = crate::assemble(&inputs);
    let (i, applied) = apply(&inputs, &a, &without(&["tool:bash", "tool:todo"])).unwrap();
    assert_eq!(i.args, ["--exclude-tools", "write,bash,todo"]);
    assert!(applied[0].text.contains("in place of"));
    let b = crate::assemble(&i);
    let names: Vec<&str> = b.parts.tools.iter().map(|t| t.name.as_str()).collect();
    assert!(!names.contains(&"bash") && !names.contains(&"todo") && !names.contains(&"write"));
    assert!(names.contains(&"read"));
}

#[test]
fn the_comparison_gives_block_deltas_the_cache_prefix_and_the_cost() {
    let inputs = base("0.85.1");
    let a = crate::assemble(&inputs);
    let (i, applied) = apply(&inputs, &a, &without(&["tool:subagent"])).unwrap();
    let b = crate::assemble(&i);
    let w = compare(applied, &a, &b, None, None);
    assert!(!w.diff.identical);
    let row = |n: &str| w.diff.blocks.iter().find(|r| r.name == n).unwrap();
    let tool = row("tool subagent");
    assert!(tool.a_chars > 0 && tool.b_chars == 0);
    assert_eq!(row("history").a_chars, row("history").b_chars);
    // The first changed byte: the bytes before it are the same in both bodies.
    let f = w.diff.first_change.as_ref().unwrap();
    let (x, y) = (a.body().unwrap(), b.body().unwrap());
    assert_eq!(x[..f.byte], y[..f.byte]);
    assert_ne!(x.as_bytes()[f.byte], y.as_bytes()[f.byte]);
    let c = w.cache.as_ref().unwrap();
    assert_eq!(c.stable_prefix_bytes, f.byte);
    // Tokens by pi's estimate (no vocabulary for the mock model), priced from models.json.
    assert_eq!(w.before.tokens, Some(w.before.chars.div_ceil(4)));
    assert!(w
        .before
        .tokens_by
        .as_deref()
        .unwrap()
        .contains("pi's estimate"));
    let p = w.after.prices.as_ref().unwrap();
    assert_eq!((p.input, p.cache_read, p.cache_write), (0.3, 0.03, 0.375));
    let t = w.after.tokens.unwrap() as f64;
    assert_eq!(w.after.cost(|p| p.input), Some(t * 0.3 / 1e6));
    let (cached, uncached) = (
        c.next_call_cached_tokens.unwrap() as f64,
        c.next_call_uncached_tokens.unwrap() as f64,
    );
    assert_eq!(cached + uncached, t);
    assert_eq!(
        c.next_call_cost,
        Some((cached * 0.03 + uncached * 0.375) / 1e6)
    );
    // The window share.
    assert_eq!(w.after.window_share, Some(t / 262144.0));
}

#[test]
fn the_whole_session_rebuilt_with_the_change_gives_its_totals() {
    let inputs = base("0.85.1");
    let a = crate::assemble(&inputs);
    assert!(apply(&inputs, &a, &without(&["tool:subagent"])).is_ok());
    let mut count = |_: &Inputs, x: &Assembly| x.stats().map(|s| s.total_chars().div_ceil(4));
    let s = session(
        &crate::Workspace::new(),
        &inputs,
        &inputs,
        &without(&["tool:subagent"]),
        &a,
        None,
        &mut count,
    );
    assert_eq!(s.calls_with_usage, 6);
    assert_eq!(s.calls.len(), 6);
    // Each call loses the same tool definition and prompt line.
    let deltas: Vec<usize> = s
        .calls
        .iter()
        .map(|c| c.before_chars - c.after_chars.unwrap())
        .collect();
    assert!(
        deltas.iter().all(|d| *d == deltas[0] && *d > 0),
        "{deltas:?}"
    );
    assert_eq!(s.before_chars - s.after_chars, deltas[0] as u64 * 6);
    // The reported usage (100, 200, … 600 input tokens in this session) and its cost at the
    // model's prices.
    assert_eq!(s.reported_tokens, 2100.0);
    let after = s.reported_tokens_after.unwrap();
    assert!(after < 2100.0 && after > 1000.0, "{after}");
    // Each call's share: its own reported tokens scaled by what the change does to it (for a
    // model without a vocabulary, the tokens it would have cost); they add up to the total.
    for c in &s.calls {
        let (b, a) = (
            c.before_tokens.unwrap() as f64,
            c.after_tokens.unwrap() as f64,
        );
        let want = c.reported_tokens.unwrap() * a / b;
        assert!(
            (c.reported_tokens_after.unwrap() - want).abs() < 1e-9,
            "{c:?}"
        );
    }
    let sum: f64 = s
        .calls
        .iter()
        .map(|c| c.reported_tokens_after.unwrap())
        .sum();
    assert!((sum - after).abs() < 1e-6, "{sum} {after}");
    let saved = s.cost_saved.unwrap();
    assert!(saved > 0.0 && saved < 2100.0 * 0.375 / 1e6, "{saved}");
    // A cost pi recorded wins over the one computed from the prices.
    let mut recorded = inputs.clone();
    let text = recorded
        .session
        .as_ref()
        .unwrap()
        .text
        .replace("\"cost\":{\"input\":0,", "\"cost\":{\"input\":0.001,");
    recorded.session.as_mut().unwrap().text = text.into();
    let ra = crate::assemble(&recorded);
    assert!(apply(&recorded, &ra, &without(&["tool:subagent"])).is_ok());
    let rs = session(
        &crate::Workspace::new(),
        &recorded,
        &recorded,
        &without(&["tool:subagent"]),
        &ra,
        None,
        &mut count,
    );
    assert!(rs.calls.iter().all(|c| c.reported_cost == Some(0.001)));
    assert!(rs.cost_saved.unwrap() > saved);
    // Bounded: evenly spaced calls, the last included, and said.
    let s2 = session(
        &crate::Workspace::new(),
        &inputs,
        &inputs,
        &without(&["tool:subagent"]),
        &a,
        Some(2),
        &mut count,
    );
    assert_eq!(s2.calls.iter().map(|c| c.index).collect::<Vec<_>>(), [1, 6]);
    assert!(s2.notes[0].contains("2 of the 6 calls"));
}

#[test]
fn past_calls_an_older_pi_made_are_said_and_left_out_of_the_totals() {
    // The base's session was written by 0.85.1: 1.6.0 rebuilds its calls from the system
    // messages it stores, and there are none.
    let inputs = base("1.6.0");
    let a = crate::assemble(&inputs);
    assert!(apply(&inputs, &a, &without(&["append-prompt"])).is_ok());
    let mut count = |_: &Inputs, _: &Assembly| None;
    let s = session(
        &crate::Workspace::new(),
        &inputs,
        &inputs,
        &without(&["append-prompt"]),
        &a,
        None,
        &mut count,
    );
    assert_eq!(s.calls.len(), 6);
    for c in &s.calls {
        let note = c.note.as_deref().unwrap_or_default();
        assert!(
            note.starts_with("not comparable, left out of the totals"),
            "{note}"
        );
    }
    assert_eq!(
        (s.before_chars, s.after_chars, s.reported_tokens),
        (0, 0, 0.0)
    );
    assert_eq!(
        s.notes,
        ["6 of the 6 calls rebuilt are left out of the totals (each call's note says why)"]
    );
}

#[test]
fn each_past_call_gets_the_change_against_its_own_request() {
    // One user message, then six answers: for each past call they are all its last turn, so
    // thinking:old drops nothing there (while the next request, after a new prompt, drops all).
    let inputs = base("0.85.1");
    let a = crate::assemble(&inputs);
    assert!(apply(&inputs, &a, &without(&["thinking:old"])).is_ok());
    let mut count = |_: &Inputs, _: &Assembly| None;
    let s = session(
        &crate::Workspace::new(),
        &inputs,
        &inputs,
        &without(&["thinking:old"]),
        &a,
        None,
        &mut count,
    );
    assert_eq!(s.calls.len(), 6);
    for c in &s.calls {
        assert_eq!(c.after_chars, Some(c.before_chars));
        assert!(c
            .note
            .as_deref()
            .unwrap()
            .starts_with("unchanged: the change finds nothing"));
    }
    assert_eq!(s.before_chars, s.after_chars);
    assert!(s.before_chars > 0 && s.notes.is_empty(), "{:?}", s.notes);
    // An entry off: the calls after it lose it; the one it was removed before is unchanged.
    let s = session(
        &crate::Workspace::new(),
        &inputs,
        &inputs,
        &without(&["entry:58fd9420"]),
        &a,
        None,
        &mut count,
    );
    let saved: Vec<bool> = s
        .calls
        .iter()
        .map(|c| c.after_chars < Some(c.before_chars))
        .collect();
    assert_eq!(saved, [false, false, true, true, true, true]);
}

/// A conformance case by name (`pi-1.6.0/pkg-resume`), as inputs.
fn conformance_case(name: &str) -> Inputs {
    let dir = ctxlens_corpus::workspace().join(format!("tests/conformance/{name}"));
    let files = ctxlens_corpus::read_folder(&dir).unwrap();
    crate::case::inputs_from_case(&files, None).unwrap()
}

#[test]
fn a_package_off_is_its_settings_entry_removed_and_gives_pis_request_without_it() {
    // pkg-resume: the session of sp-fresh-default resumed after npm:deploy-kit was added;
    // sp-resume-same: the same session resumed with nothing added. The package off is the
    // second, byte for byte.
    let inputs = conformance_case("pi-1.6.0/pkg-resume");
    let a = crate::assemble(&inputs);
    assert_eq!(
        a.parts.resources.skills[0].package.as_deref(),
        Some("npm:deploy-kit")
    );
    let (changed, applied) = apply(&inputs, &a, &without(&["package:deploy-kit"])).unwrap();
    let b = crate::assemble(&changed);
    let want = std::fs::read_to_string(
        ctxlens_corpus::workspace()
            .join("tests/conformance/pi-1.6.0/sp-resume-same/expected/request-1.json"),
    )
    .unwrap();
    assert_eq!(b.body(), Some(want.as_str()));
    assert!(b.parts.resources.skills.is_empty());
    let settings = "/tmp/pi-ctx-demo/home/.pi/agent/settings.json";
    match &applied[0].take_home {
        TakeHome::EditFile { path, content, .. } => {
            assert_eq!(path, settings);
            assert_eq!(content, "{\n  \"packages\": []\n}");
        }
        t => panic!("{t:?}"),
    }
    assert!(
        applied[0].did.contains("1 skill(s), 1 prompt template(s)"),
        "{}",
        applied[0].did
    );
    let e = apply(&inputs, &a, &without(&["package:nope"])).unwrap_err();
    assert!(e.contains("they list: npm:deploy-kit"), "{e}");
}

#[test]
fn a_package_given_with_e_off_is_that_flag_left_out_and_gives_pis_request_without_it() {
    // pkg-cli: kits given with -e; pkg-cli-one-off: the same run without `-e npm:temp-kit`,
    // captured with the real pi of each release.
    for version in crate::pi::PiVersion::ALL {
        let release = version.as_str();
        let inputs = conformance_case(&format!("pi-{release}/pkg-cli"));
        let a = crate::assemble(&inputs);
        let sources: Vec<&str> = a
            .parts
            .resources
            .skills
            .iter()
            .filter_map(|s| s.package.as_deref())
            .collect();
        assert_eq!(
            sources,
            [
                "../kits/local-kit",
                "npm:temp-kit",
                "git:github.com/acme/git-kit@v2"
            ],
            "{release}"
        );
        let (changed, applied) = apply(&inputs, &a, &without(&["package:temp-kit"])).unwrap();
        let b = crate::assemble(&changed);
        let want = std::fs::read_to_string(ctxlens_corpus::workspace().join(format!(
            "tests/conformance/pi-{release}/pkg-cli-one-off/expected/request-1.json"
        )))
        .unwrap();
        assert_eq!(b.body(), Some(want.as_str()), "{release}");
        match &applied[0].take_home {
            TakeHome::Flags { flags, args } => {
                assert!(flags.is_empty());
                assert!(!args.iter().any(|a| a == "npm:temp-kit"), "{args:?}");
                assert_eq!(args.len(), inputs.args.len() - 2);
            }
            t => panic!("{t:?}"),
        }
    }
}

#[test]
fn the_tools_an_extension_given_with_e_registered_are_its_packages() {
    // pkg-cli with an extension file given with -e too, and a tool set as pi's registry gives
    // it: the tool's sourceInfo says "cli" (given with -e), and one -e package has code.
    let mut inputs = conformance_case("pi-1.6.0/pkg-cli");
    inputs.files.insert(
        "/tmp/pi-ctx-demo/proj/ext.ts",
        b"export default () => {}".to_vec(),
    );
    inputs
        .args
        .extend(["-e".to_string(), "./ext.ts".to_string()]);
    // (the case's `--tools read`, with the extension's tool)
    for a in inputs.args.iter_mut().filter(|a| *a == "read") {
        *a = "read,lookup".into();
    }
    inputs.extension_tools = Some(crate::inputs::SourceText {
        name: "tools.json".into(),
        text: r#"[{"name":"lookup","description":"Look it up","sourceInfo":{"source":"cli"}}]"#
            .into(),
    });
    let a = crate::assemble(&inputs);
    let stats = a.stats().map(crate::report::stats::to_json).unwrap();
    let packages = crate::report::packages::to_json(&a, &stats);
    let list = packages.as_array().unwrap();
    let ext = list
        .iter()
        .find(|p| p.get_str("source") == Some("./ext.ts"))
        .unwrap();
    let tools = ext.get("tools").and_then(Value::as_array).unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].get_str("name"), Some("lookup"));
    assert!(tools[0].get("chars").and_then(Value::as_f64).unwrap() > 0.0);
    for p in list
        .iter()
        .filter(|p| p.get_str("source") != Some("./ext.ts"))
    {
        assert_eq!(
            p.get("tools").and_then(Value::as_array).map(Vec::len),
            Some(0)
        );
    }
}

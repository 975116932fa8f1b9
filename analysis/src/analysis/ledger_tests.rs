use super::*;

const HEADER: &str = r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-11-30T10:00:00.000Z","cwd":"/home/u/proj"}"#;

fn answer(id: &str, ts: &str, usage: &str) -> String {
    format!(
        r#"{{"type":"message","id":"{id}","parentId":null,"timestamp":"{ts}","message":{{"role":"assistant","content":[],"provider":"anthropic","model":"claude-sonnet-4-5","usage":{usage}}}}}"#
    )
}

const USAGE: &str = r#"{"input":100,"output":50,"cacheRead":1000,"cacheWrite":20,"totalTokens":1170,"cost":{"input":0.0003,"output":0.00075,"cacheRead":0.0003,"cacheWrite":0.000075,"total":0.001425}}"#;

#[test]
fn calls_are_read_as_ccusage_reads_them() {
    let text = [
        HEADER.to_string(),
        answer("a1", "2026-11-30T10:00:01.000Z", USAGE),
        // No totalTokens: the sum of the four; no cost: 0.
        answer("a2", "2026-11-30T23:59:59Z", r#"{"input":1,"output":2,"cacheRead":3}"#),
        // An offset: its UTC day is the next one.
        answer("a3", "2026-12-01T00:30:00.000+02:00", r#"{"input":1,"output":1}"#),
        // Not read: a timestamp ccusage refuses, a null model, a string count, a user's usage.
        answer("b1", "2026-11-30 10:00", USAGE),
        answer("b2", "2026-11-30T10:00:00.000Z", r#"{"input":"1","output":1}"#),
        r#"{"type":"message","id":"b3","timestamp":"2026-11-30T10:00:00.000Z","message":{"role":"assistant","model":null,"usage":{"input":1,"output":1}}}"#.to_string(),
        r#"{"type":"message","id":"b4","timestamp":"2026-11-30T10:00:00.000Z","message":{"role":"user","content":"usage","usage":{"input":1,"output":1}}}"#.to_string(),
        r#"{"type":"custom","id":"b5","timestamp":"2026-11-30T10:00:00.000Z","message":{"role":"assistant","usage":{"input":1,"output":1}}}"#.to_string(),
        "{\"message\": \"usage\", truncated".to_string(),
    ]
    .join("\n");
    let s = scan(
        "/h/.pi/agent/sessions/--home-u-proj--/2026-11-30T10-00-00-000Z_s1.jsonl",
        &text,
    );
    let ids: Vec<_> = s
        .calls
        .iter()
        .map(|c| c.entry_id.as_deref().unwrap())
        .collect();
    assert_eq!(ids, ["a1", "a2", "a3"]);
    let a1 = &s.calls[0];
    assert_eq!((&*a1.session_id, &*a1.folder), ("s1", "--home-u-proj--"));
    assert_eq!(a1.cwd.as_deref(), Some("/home/u/proj"));
    assert_eq!(a1.usage.total_tokens, 1170.0);
    assert_eq!(a1.usage.prompt_tokens(), 1120.0);
    assert!((a1.usage.prompt_cost.unwrap() - 0.000675).abs() < 1e-12);
    assert_eq!(a1.line, 2);
    assert_eq!(
        (s.calls[1].usage.total_tokens, s.calls[1].usage.cost),
        (6.0, 0.0)
    );
    assert_eq!(s.calls[1].day, "2026-11-30");
    assert_eq!(s.calls[2].day, "2026-11-30");
    // The skipped lines say why, with their lines (the user message and the custom entry are
    // no calls at all; the truncated line is not JSON).
    let skipped: Vec<u32> = s.skipped.iter().map(|(n, _)| *n).collect();
    assert_eq!(skipped, [5, 6, 7, 10]);
    assert!(s.skipped[0].1.contains("timestamp"), "{:?}", s.skipped);
}

#[test]
fn a_file_outside_a_sessions_folder_is_an_unknown_project() {
    let s = scan(
        "/tmp/x/abc.jsonl",
        &answer("a1", "2026-11-30T10:00:01.000Z", USAGE),
    );
    assert_eq!(
        (&*s.calls[0].folder, &*s.calls[0].session_id),
        ("unknown", "abc")
    );
    assert_eq!(s.cwd, None);
}

#[test]
fn a_call_read_twice_is_counted_once() {
    let text = [
        HEADER.to_string(),
        answer("a1", "2026-11-30T10:00:01.000Z", USAGE),
        answer("a2", "2026-11-30T10:00:02.000Z", USAGE),
    ]
    .join("\n");
    let mut r = Reader::new(vec!["/s/sessions".into()]);
    let mut calls = r.file("/s/sessions/p/t_s1.jsonl", &text).calls;
    // A forked session's file copies its parent's answers: the same time and tokens, counted
    // once whatever file holds them (as ccusage counts them).
    calls.extend(r.file("/s/sessions/p/t_s2.jsonl", &text).calls);
    // Another answer at the same time with other tokens is another call; a file with no
    // session header cannot be rebuilt, and says so.
    let other = r.file(
        "/s/sessions/q/t_s3.jsonl",
        &answer(
            "a9",
            "2026-11-30T10:00:01.000Z",
            r#"{"input":1,"output":1}"#,
        ),
    );
    assert!(other.not_a_session.is_some());
    calls.extend(other.calls);
    assert_eq!((r.read.files, r.read.duplicates), (3, 2));
    let kept: Vec<_> = calls
        .iter()
        .map(|c| (&*c.session_id, c.entry_id.as_deref().unwrap()))
        .collect();
    assert_eq!(kept, [("s1", "a1"), ("s1", "a2"), ("s3", "a9")]);
}

#[test]
fn groups_by_day_week_month_and_model_add_up_to_the_totals() {
    let text = [
        HEADER.to_string(),
        answer("a1", "2026-11-29T10:00:00.000Z", USAGE),
        answer("a2", "2026-11-30T10:00:00.000Z", USAGE),
        answer("a3", "2026-12-01T10:00:00.000Z", USAGE),
    ]
    .join("\n");
    let calls = scan("/s/sessions/p/t_s1.jsonl", &text).calls;
    let keys = |g: GroupBy| -> Vec<String> {
        ledger(&calls, g, None, None)
            .groups
            .into_iter()
            .map(|g| g.key)
            .collect()
    };
    assert_eq!(
        keys(GroupBy::Day),
        ["2026-11-29", "2026-11-30", "2026-12-01"]
    );
    // 2026-11-29 is a Sunday: its week began on Monday the 23rd.
    assert_eq!(keys(GroupBy::Week), ["2026-11-23", "2026-11-30"]);
    assert_eq!(keys(GroupBy::Month), ["2026-11", "2026-12"]);
    assert_eq!(keys(GroupBy::Model), ["anthropic/claude-sonnet-4-5"]);
    let l = ledger(&calls, GroupBy::Day, Some("2026-11-30"), Some("20261130"));
    assert_eq!(
        (l.totals.calls, l.totals.sessions, l.totals.input),
        (1, 1, 100.0)
    );
    let all = ledger(&calls, GroupBy::Week, None, None);
    let sum: f64 = all.groups.iter().map(|g| g.totals.cost).sum();
    assert!((sum - all.totals.cost).abs() < 1e-12);
    assert_eq!(all.totals.calls, 3);
    assert!(
        valid_date("2026-11-30")
            && valid_date("20261130")
            && !valid_date("2026-11")
            && !valid_date("yesterday")
    );
}

/// Every call of a session rebuilt: its blocks add up to its body, and the prompt's cost and
/// tokens are split over the blocks without loss.
#[test]
fn every_call_is_rebuilt_and_its_cost_split_over_its_blocks() {
    let inputs = crate::testcase::inputs("demo");
    let session = inputs.session.as_ref().expect("session");
    let mut calls = scan("/s/sessions/p/demo.jsonl", &session.text).calls;
    assert!(calls.len() >= 3, "{}", calls.len());
    let ws = crate::Workspace::with_budget(0);
    let mut seen = Vec::new();
    account(&ws, &inputs, &[], None, &mut calls, &mut |k| seen.push(k));
    assert_eq!(seen, (0..calls.len()).collect::<Vec<_>>());
    for c in &calls {
        let b = c
            .blocks
            .as_ref()
            .unwrap_or_else(|| panic!("line {}: {:?}", c.line, c.note));
        assert_eq!(
            b.system_prompt + b.tools + b.history + b.parameters + b.structure,
            b.body_chars
        );
        assert_eq!(b.by_tool.iter().map(|t| t.1).sum::<usize>(), b.tools);
        assert!(c.pi.is_some());
    }
    let l = ledger(&calls, GroupBy::Release, None, None);
    assert_eq!(l.rebuilt, calls.len());
    let prompt_cost: f64 = calls
        .iter()
        .map(|c| c.usage.prompt_cost.unwrap_or(c.usage.cost))
        .sum();
    let prompt_tokens: f64 = calls.iter().map(|c| c.usage.prompt_tokens()).sum();
    let cost: f64 = l.blocks.rows().iter().map(|r| r.2.cost).sum();
    let tokens: f64 = l.blocks.rows().iter().map(|r| r.2.tokens).sum();
    assert!(
        (cost - prompt_cost).abs() <= 1e-9 * prompt_cost.max(1.0),
        "{cost} {prompt_cost}"
    );
    assert!(
        (tokens - prompt_tokens).abs() <= 1e-6 * prompt_tokens.max(1.0),
        "{tokens} {prompt_tokens}"
    );
    let tool_tokens: f64 = l.tools.iter().map(|t| t.share.tokens).sum();
    assert!((tool_tokens - l.blocks.tools.tokens).abs() <= 1e-6 * tool_tokens.max(1.0));
    // Every tool was in every request.
    assert!(l.tools.iter().all(|t| t.requests == calls.len()));
}

/// `--without tool:NAME` over every call: each call rebuilt without the tool saves the tool's
/// share of its request, no more (the tool's characters and the comma and brackets around it).
#[test]
fn a_tool_off_saves_its_share_of_every_call() {
    let inputs = crate::testcase::inputs("demo");
    let session = inputs.session.as_ref().expect("session");
    let mut calls = scan("/s/sessions/p/demo.jsonl", &session.text).calls;
    let ws = crate::Workspace::with_budget(0);
    let changes = [Change::parse_without("tool:write").unwrap()];
    account(&ws, &inputs, &changes, None, &mut calls, &mut |_| {});
    let l = ledger(&calls, GroupBy::Day, None, None);
    let saved = l.saved.as_ref().expect("saved");
    assert_eq!((saved.calls, saved.applied), (calls.len(), calls.len()));
    let write = l
        .tools
        .iter()
        .find(|t| t.name == "write")
        .expect("write was sent");
    // What goes is the tool's description and schema plus its JSON frame (name, keys,
    // punctuation): more than its share, but not twice it.
    assert!(
        saved.tokens > write.share.tokens && saved.tokens < 2.0 * write.share.tokens,
        "{} {}",
        saved.tokens,
        write.share.tokens
    );
    let recorded: f64 = calls
        .iter()
        .map(|c| c.usage.prompt_cost.unwrap_or(c.usage.cost))
        .sum();
    assert!(
        saved.cost >= 0.0 && saved.cost <= recorded,
        "{} {recorded}",
        saved.cost
    );
    let by_day: f64 = l
        .groups
        .iter()
        .filter_map(|g| g.saved.as_ref())
        .map(|s| s.tokens)
        .sum();
    assert!((by_day - saved.tokens).abs() < 1e-6);
    // Tools never called in the demo's requests are suggested; a tool it called is not.
    let called: Vec<&str> = l.tool_results.iter().map(|t| t.name.as_str()).collect();
    assert!(!called.is_empty());
    assert!(l
        .never_called
        .iter()
        .all(|t| !called.contains(&t.name.as_str())));
    assert!(!l.never_called.is_empty());
}

/// The calls of a captured run (the session pi left), rebuilt.
fn accounted(name: &str) -> Vec<LedgerCall> {
    let mut inputs = crate::testcase::inputs(name);
    let after = ctxlens_corpus::Case::named(name)
        .session_after()
        .expect("session.after");
    let session = inputs.session.get_or_insert_with(Default::default);
    session.text = after.clone().into();
    let mut calls = scan("/s/sessions/p/run.jsonl", &after).calls;
    account(
        &crate::Workspace::with_budget(0),
        &inputs,
        &[],
        None,
        &mut calls,
        &mut |_| {},
    );
    calls
}

/// A break is where a call's prompt (tools, system, history, in the order a provider reads
/// them) stops extending the call before it: a held system message collapsed into the system
/// prompt, a tool set changed, a model switched. Every other call extends the one before.
#[test]
fn cache_breaks_are_where_the_prompt_stops_extending_the_previous_one() {
    let breaks = |name: &str| -> Vec<(u32, &'static str, String)> {
        let calls = accounted(name);
        assert!(
            calls.iter().all(|c| c.blocks.is_some()),
            "{name}: {:?}",
            calls.iter().map(|c| &c.note).collect::<Vec<_>>()
        );
        calls
            .iter()
            .filter_map(|c| {
                c.cache_break
                    .as_ref()
                    .map(|b| (c.line, b.block, b.why.clone()))
            })
            .collect()
    };
    let held = breaks("pi-0.87.1/ms-held-collapsed");
    assert_eq!(
        held.iter().map(|b| (b.0, b.1)).collect::<Vec<_>>(),
        [(19, "tools"), (22, "systemPrompt")],
        "{held:?}"
    );
    let switched = breaks("pi-0.85.1/rs-text-signatures");
    assert_eq!(
        switched
            .iter()
            .map(|b| (b.0, b.2.as_str()))
            .collect::<Vec<_>>(),
        [
            (7, "model switch (gpt-5 → gpt-5-mini)"),
            (10, "model switch (gpt-5-mini → gpt-5)")
        ]
    );
    // A run that only appends keeps every prefix.
    assert!(breaks("pi-1.6.0/an-scripted").is_empty());
    let l = ledger(
        &accounted("pi-0.87.1/ms-held-collapsed"),
        GroupBy::Day,
        None,
        None,
    );
    let reasons: Vec<&str> = l.cache_breaks.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert_eq!(l.breaks.len(), 2);
    assert!(l
        .breaks
        .iter()
        .all(|b| b.1.lost_chars > 0 && b.1.lost_tokens > 0.0));
}

/// The text report fits 80 columns, whatever its paths and reasons, for every grouping.
#[test]
fn the_text_report_fits_80_columns() {
    let mut calls = accounted("pi-0.87.1/ms-held-collapsed");
    calls.extend(accounted("pi-0.85.1/rs-text-signatures"));
    let long = format!(
        "/home/{}/.pi/agent/sessions/--x--/f.jsonl",
        "a-very-long-folder-name/".repeat(6)
    );
    let read = crate::report::ledger::Read {
        roots: vec![long.clone()],
        files: 2,
        duplicates: 1,
        skipped: vec![(long.clone(), Some(12_345), "not read: ".repeat(20))],
        changed: vec![(long.clone(), "changed while it was read".into())],
        not_rebuilt: vec![(long, 7, "pi would fail here: ".repeat(10))],
    };
    // A team's year: billions of tokens read from the cache, thousands of dollars.
    let mut heavy = calls.clone();
    for c in &mut heavy {
        c.usage.input *= 7e6;
        c.usage.output *= 3e6;
        c.usage.cache_read += 4.2e10;
        c.usage.cache_write += 2.5e9;
        c.usage.cost *= 1e5;
    }
    for (calls, what) in [(&calls, "the corpus"), (&heavy, "billions of tokens")] {
        for by in GroupBy::ALL {
            let l = ledger(calls, by, None, None);
            let text = crate::report::ledger::to_text(&l, &read);
            for line in text.lines() {
                assert!(
                    line.chars().count() <= 80,
                    "{what}, --by {}: {line:?}",
                    by.as_str()
                );
            }
        }
    }
    // The usage table's whole counts, where they fit; abbreviated where they do not.
    let text = |calls: &[LedgerCall]| {
        crate::report::ledger::to_text(&ledger(calls, GroupBy::Day, None, None), &read)
    };
    let total = ledger(&calls, GroupBy::Day, None, None).totals;
    assert!(text(&calls).contains(&crate::analysis::findings::thousands(
        total.cache_read as usize
    )));
    let heavy_total = ledger(&heavy, GroupBy::Day, None, None).totals;
    // Hundreds of billions: three figures, no decimals.
    assert!((1e11..1e12).contains(&heavy_total.cache_read));
    let billions = format!("{:.0}B", heavy_total.cache_read / 1e9);
    assert!(
        text(&heavy)
            .lines()
            .any(|l| l.starts_with("Total") && l.contains(&billions)),
        "{}",
        text(&heavy)
    );
}

/// The JSON report reads back as its types (the app's view reads it so), whatever the grouping,
/// with cache breaks, skipped lines, changed files and calls not rebuilt in it.
#[test]
fn the_json_report_reads_back_as_its_types() {
    use crate::report::types::UsageReport;
    use crate::report::wire::Wire;
    let mut calls = accounted("pi-0.87.1/ms-held-collapsed");
    calls.extend(accounted("pi-0.85.1/rs-text-signatures"));
    let read = crate::report::ledger::Read {
        roots: vec!["/h/.pi/agent/sessions".into()],
        files: 2,
        duplicates: 1,
        skipped: vec![
            ("a.jsonl".into(), Some(3), "not JSON".into()),
            ("b".into(), None, "unreadable".into()),
        ],
        changed: vec![("c.jsonl".into(), "changed while it was read".into())],
        not_rebuilt: vec![("d.jsonl".into(), 7, "no entry id".into())],
    };
    for by in GroupBy::ALL {
        let l = ledger(&calls, by, None, None);
        let report = crate::report::ledger::report(&l, &read);
        assert!(!report.breaks.is_empty() && !report.groups.is_empty());
        let json = crate::report::ledger::to_json(&l, &read);
        assert_eq!(json, report.to_value());
        assert_eq!(
            UsageReport::from_value(&json).as_ref(),
            Some(&report),
            "--by {}",
            by.as_str()
        );
        assert_eq!(json.get_str("groupBy"), Some(by.as_str()));
    }
}

/// The costliest calls are the ones pi recorded the most cost for, largest first, each named
/// by its file, line and entry (so a host can open it).
#[test]
fn the_costliest_calls_are_listed_largest_first() {
    let mut lines = vec![HEADER.to_string()];
    for k in 0..14u32 {
        // Costs 0.001 … 0.014 in a scrambled order; one call recorded no cost.
        let cost = f64::from((k * 5) % 14 + 1) / 1000.0;
        let usage = if k == 3 {
            r#"{"input":1,"output":1}"#.to_string()
        } else {
            format!(r#"{{"input":{k},"output":1,"cost":{{"total":{cost}}}}}"#)
        };
        lines.push(answer(
            &format!("a{k}"),
            &format!("2026-11-30T10:00:{k:02}.000Z"),
            &usage,
        ));
    }
    let calls = scan("/s/sessions/p/t_s1.jsonl", &lines.join("\n")).calls;
    let l = ledger(&calls, GroupBy::Day, None, None);
    assert_eq!(l.costliest.len(), COSTLIEST);
    let costs: Vec<f64> = l.costliest.iter().map(|(_, u)| u.cost).collect();
    let mut all: Vec<f64> = calls.iter().map(|c| c.usage.cost).collect();
    all.sort_by(|a, b| b.total_cmp(a));
    assert_eq!(costs, all[..COSTLIEST]);
    for (at, u) in &l.costliest {
        let c = calls.iter().find(|c| c.line == at.line).unwrap();
        assert_eq!(
            (c.entry_id.as_ref(), c.usage.cost),
            (at.entry_id.as_ref(), u.cost)
        );
    }
    // Said without any call rebuilt (the recorded usage alone, `--no-rebuild`): the first five.
    let text = crate::report::ledger::to_text(&l, &Default::default());
    let listed = text.split("Costliest calls:\n").nth(1).unwrap();
    let first = format!("t_s1.jsonl:{}\n", l.costliest[0].0.line);
    assert!(
        listed.starts_with("       $0.01  2026-11-30 10:00  ") && listed.contains(&first),
        "{listed}"
    );
    assert_eq!(
        listed.lines().take_while(|l| l.starts_with("  ")).count(),
        5
    );
}

/// A skill is used when an answer's tool call names its file or a prompt asks for it
/// (`/skill:NAME`); the others are suggested, largest cost first, named by their folder.
#[test]
fn skills_never_used_are_suggested() {
    let read = |id: &str, ts: &str, path: &str| {
        format!(
            r#"{{"type":"message","id":"{id}","parentId":null,"timestamp":"{ts}","message":{{"role":"assistant","content":[{{"type":"toolCall","id":"t{id}","name":"read","arguments":{{"path":"{path}"}}}}],"provider":"anthropic","model":"claude-sonnet-4-5","usage":{USAGE}}}}}"#
        )
    };
    let text = [
        HEADER.to_string(),
        read("a1", "2026-11-30T10:00:01.000Z", "/home/u/.pi/agent/skills/pdf/SKILL.md"),
        r#"{"type":"message","id":"u2","parentId":"a1","timestamp":"2026-11-30T10:00:02.000Z","message":{"role":"user","content":[{"type":"text","text":"/skill:release-notes v2"}]}}"#.to_string(),
        answer("a2", "2026-11-30T10:00:03.000Z", USAGE),
        answer("a3", "2026-11-30T10:00:04.000Z", USAGE),
    ]
    .join("\n");
    let mut calls = scan("/s/sessions/p/t_s1.jsonl", &text).calls;
    assert_eq!(calls[0].uses, ["/home/u/.pi/agent/skills/pdf/SKILL.md"]);
    assert_eq!(calls[1].uses, ["/skill:release-notes"]);
    assert!(calls[2].uses.is_empty());
    // Each request offered four skills (and pi's list header).
    let skill = |dir: &str, chars: usize| {
        (
            "skills".to_string(),
            format!("/home/u/.pi/agent/skills/{dir}/SKILL.md"),
            chars,
        )
    };
    for c in &mut calls {
        c.blocks = Some(Box::new(Blocks {
            body_chars: 10_000,
            system_prompt: 1_000,
            sections: std::sync::Arc::new(vec![
                ("skills".into(), "pi".into(), 100),
                skill("pdf", 300),
                skill("release-notes", 200),
                skill("tiny", 50),
                skill("big", 400),
            ]),
            ..Blocks::default()
        }));
    }
    let l = ledger(&calls, GroupBy::Day, None, None);
    let never: Vec<(&str, &str, usize)> = l
        .never_invoked
        .iter()
        .map(|i| (i.name.as_str(), i.source.as_str(), i.requests))
        .collect();
    assert_eq!(
        never,
        [
            ("big", "/home/u/.pi/agent/skills/big/SKILL.md", 3),
            ("tiny", "/home/u/.pi/agent/skills/tiny/SKILL.md", 3)
        ]
    );
    assert!(crate::report::ledger::to_text(&l, &Default::default())
        .contains("Skills offered but never used"));
}

/// A context file whose whole text another context file of the same request holds is sent
/// twice; of two with the same text the one nearer the working directory is kept. The texts are
/// the ones sent, in either release's frame.
#[test]
fn context_files_another_one_holds_are_found() {
    let prompt = |files: &[(&str, &str)], xml: bool| {
        let mut prompt = crate::prompt::SystemPrompt::default();
        for (path, content) in files {
            let text = if xml {
                format!("<project_instructions path=\"{path}\">\n{content}\n</project_instructions>\n\n")
            } else {
                format!("## {path}\n\n{content}\n\n")
            };
            let start = prompt.sections.last().map_or(0, |s| s.end);
            prompt.text.push_str(&text);
            prompt.sections.push(crate::prompt::Section {
                name: "context-file".into(),
                source: path.to_string(),
                start,
                end: start + crate::js::utf16_len(&text),
                stored: None,
            });
        }
        prompt
    };
    let files = [
        ("/h/.pi/agent/AGENTS.md", "Use tabs.\n"),
        ("/w/AGENTS.md", "Be brief."),
        ("/w/app/AGENTS.md", "Use tabs.\nBe brief.\nTest first."),
        ("/w/app/lib/AGENTS.md", "  \n"),
        (
            "/w/app/lib/x/AGENTS.md",
            "Use tabs.\nBe brief.\nTest first.\n",
        ),
        ("/w/other/AGENTS.md", "Use spaces."),
    ];
    let want = [
        (
            "/h/.pi/agent/AGENTS.md".to_string(),
            "/w/app/AGENTS.md".to_string(),
        ),
        ("/w/AGENTS.md".into(), "/w/app/AGENTS.md".into()),
        ("/w/app/AGENTS.md".into(), "/w/app/lib/x/AGENTS.md".into()),
    ];
    assert_eq!(shadowed_context_files(&prompt(&files, false)), want);
    assert_eq!(shadowed_context_files(&prompt(&files, true)), want);
    assert!(shadowed_context_files(&prompt(&files[3..4], true)).is_empty());
    assert!(shadowed_context_files(&prompt(&files[5..], true)).is_empty());
    assert!(shadowed_context_files(&Default::default()).is_empty());
}

/// Every call of a real run (pi 0.85.1, which builds the system prompt from the files at each
/// call) rebuilt with the project's AGENTS.md copied into pi's agent folder: each request sends
/// the text twice, the suggestion names the copy pi reads first, with the share of every
/// request, and switching it off saves about that.
#[test]
fn a_context_file_sent_twice_is_suggested() {
    let project = "/tmp/pi-ctx-demo/proj/AGENTS.md";
    // A captured run's calls, rebuilt with the project's AGENTS.md copied into the agent folder.
    let rebuilt = |name: &str, changes: &[Change]| {
        let mut inputs = crate::testcase::inputs(name);
        let text = inputs
            .files
            .read_to_string(project)
            .expect("the project's AGENTS.md");
        let global = format!("{}/AGENTS.md", inputs.agent_dir);
        inputs.files.insert(&global, text.into_bytes());
        let after = ctxlens_corpus::Case::named(name)
            .session_after()
            .expect("session.after");
        inputs.session.get_or_insert_with(Default::default).text = after.clone().into();
        let mut calls = scan("/s/sessions/p/run.jsonl", &after).calls;
        let ws = crate::Workspace::with_budget(0);
        account(&ws, &inputs, changes, None, &mut calls, &mut |_| {});
        (global, calls)
    };
    // pi 1.6.0 sends the system prompt its session stored, which the copy made later is not in.
    let (_, stored) = rebuilt("pi-1.6.0/an-scripted", &[]);
    assert!(stored.len() > 1);
    assert!(stored
        .iter()
        .all(|c| c.blocks.as_ref().expect("rebuilt").shadowed.is_empty()));

    let (global, calls) = rebuilt("pi-0.85.1/an-scripted", &[]);
    assert!(calls.len() > 1);
    for c in &calls {
        let b = c.blocks.as_ref().expect("rebuilt");
        assert_eq!(*b.shadowed, [(global.clone(), project.to_string())]);
    }
    let l = ledger(&calls, GroupBy::Day, None, None);
    let [item] = &l.shadowed[..] else {
        panic!("{:?}", l.shadowed)
    };
    assert_eq!(
        (item.name.as_str(), item.source.as_str(), item.requests),
        (global.as_str(), project, calls.len())
    );
    let section = l
        .sections
        .iter()
        .find(|s| s.name == "context-file" && s.source == global)
        .expect("the copy's section");
    assert_eq!(item.share, section.share);
    let text = crate::report::ledger::to_text(&l, &Default::default());
    assert!(
        text.contains("Context files another one already holds"),
        "{text}"
    );
    let json = crate::report::ledger::to_json(&l, &Default::default());
    let row = &json
        .get("shadowedFiles")
        .and_then(Value::as_array)
        .expect("shadowedFiles")[0];
    assert_eq!(
        row.get("file").and_then(Value::as_str),
        Some(global.as_str())
    );
    assert_eq!(row.get("heldBy").and_then(Value::as_str), Some(project));

    // Switching the copy off saves its share, and a little more (its frame in the prompt).
    let changes = [Change::parse_without(&format!("context:{global}")).unwrap()];
    let (_, again) = rebuilt("pi-0.85.1/an-scripted", &changes);
    let saved = ledger(&again, GroupBy::Day, None, None)
        .saved
        .expect("saved");
    assert_eq!(saved.applied, calls.len());
    assert!(
        saved.tokens >= item.share.tokens && saved.tokens < 1.5 * item.share.tokens,
        "{} {}",
        saved.tokens,
        item.share.tokens
    );
}

/// A stand-in vocabulary (a token per word) that says how many texts it was asked to count.
struct Words(std::rc::Rc<std::cell::Cell<usize>>);

impl TokenCounter for Words {
    fn info(&self) -> crate::tokens::TokenizerInfo {
        crate::tokens::TokenizerInfo {
            name: "words".into(),
            exact: false,
        }
    }
    fn count(&mut self, texts: &[&str]) -> Result<Vec<usize>, String> {
        self.0.set(self.0.get() + texts.len());
        Ok(texts.iter().map(|t| t.split_whitespace().count()).collect())
    }
}

/// With the host's vocabulary, each call's parts are counted with it and its recorded prompt
/// tokens are split by those counts: a tool gets the recorded tokens times its count over the
/// request's (the parameters and JSON structure weighing their characters at the counted parts'
/// tokens per character), the blocks add up to the recorded tokens, and a text the calls share
/// is counted once. A model whose vocabulary is not public (Claude) is split by characters.
#[test]
fn prompt_tokens_are_split_by_the_models_vocabulary() {
    let run = |name: &str, asked: &std::rc::Rc<std::cell::Cell<usize>>| {
        let mut inputs = crate::testcase::inputs(name);
        let after = ctxlens_corpus::Case::named(name)
            .session_after()
            .expect("session.after");
        inputs.session.get_or_insert_with(Default::default).text = after.clone().into();
        let mut calls = scan("/s/sessions/p/run.jsonl", &after).calls;
        let mut wanted = Vec::new();
        let mut vocabularies = |v: &str, _exact: bool| {
            wanted.push(v.to_string());
            Some(Box::new(Words(asked.clone())) as Box<dyn TokenCounter>)
        };
        let ws = crate::Workspace::with_budget(0);
        account(
            &ws,
            &inputs,
            &[],
            Some(&mut vocabularies),
            &mut calls,
            &mut |_| {},
        );
        (calls, wanted)
    };
    let asked = std::rc::Rc::new(std::cell::Cell::new(0));
    let (calls, wanted) = run("pi-1.6.0/ms-midconvo-held", &asked);
    assert!(calls.len() > 2, "{}", calls.len());
    // One counter for the session's vocabulary, asked for once.
    assert_eq!(wanted, ["mistral_v3"]);
    let mut texts = 0;
    for c in &calls {
        let b = c.blocks.as_ref().expect("rebuilt");
        let t = b.tokens.as_ref().expect("counted");
        assert_eq!(t.vocabulary, "words");
        assert_eq!(t.by_tool.len(), b.by_tool.len());
        // Each tool: the recorded prompt tokens times its count over the request's weight.
        let rate = (t.system_prompt + t.tools + t.history) as f64
            / (b.system_prompt + b.tools + b.history) as f64;
        let weight = rate * b.body_chars as f64;
        for (i, (_, chars)) in b.by_tool.iter().enumerate() {
            let want = c.usage.prompt_tokens() * t.by_tool[i] as f64 / weight;
            let got = c.share_of(*chars, Some(t.by_tool[i])).0;
            assert!((got - want).abs() < 1e-9, "{got} {want}");
        }
        // The blocks add up to the recorded prompt tokens.
        let sum: f64 = b
            .by_block()
            .iter()
            .zip(b.block_tokens())
            .map(|((_, chars), n)| c.share_of(*chars, n).0)
            .sum();
        assert!(
            (sum - c.usage.prompt_tokens()).abs() < 1e-6 * c.usage.prompt_tokens().max(1.0),
            "{sum} {}",
            c.usage.prompt_tokens()
        );
        texts += b.by_tool.len() + b.sections.len();
    }
    // The tools and sections of every call were counted once: fewer texts than they number.
    assert!(asked.get() < texts, "{} {texts}", asked.get());
    let l = ledger(&calls, GroupBy::Day, None, None);
    assert_eq!(l.split_by, [("words".to_string(), calls.len())]);

    // Claude: no public vocabulary, so none is asked for and the split is by characters.
    let asked = std::rc::Rc::new(std::cell::Cell::new(0));
    let (calls, wanted) = run("pi-1.6.0/an-scripted", &asked);
    assert!(wanted.is_empty() && asked.get() == 0);
    assert!(calls
        .iter()
        .all(|c| c.blocks.as_ref().is_some_and(|b| b.tokens.is_none())));
    let l = ledger(&calls, GroupBy::Day, None, None);
    assert_eq!(l.split_by, [("characters".to_string(), calls.len())]);
    let text = crate::report::ledger::to_text(&l, &Default::default());
    assert!(
        text.contains("by characters (no public vocabulary"),
        "{text}"
    );
}

/// The accountant measures each request instead of sending it (its long history texts are not
/// copied into its body): each call's statistics, its characters and its parts' counts by a
/// vocabulary, are those of the request as sent, on sessions of every release.
#[test]
fn a_measured_request_counts_what_the_sent_one_does() {
    use crate::analysis::stats::{compute_with_tokens, AssemblyStats};
    let mut left_out = 0;
    for name in ["demo", "pi-1.6.0/ms-midconvo-held", "pi-0.85.1/an-scripted"] {
        let mut inputs = crate::testcase::inputs(name);
        if name != "demo" {
            let after = ctxlens_corpus::Case::named(name)
                .session_after()
                .expect("session.after");
            inputs.session.get_or_insert_with(Default::default).text = after.into();
        }
        let text = inputs.session.as_ref().expect("session").text.clone();
        let calls = scan("/s/sessions/p/run.jsonl", &text).calls;
        assert!(!calls.is_empty(), "{name}");
        let ws = crate::Workspace::with_budget(0);
        let accountant = Accountant::new(&ws, &inputs, &[]);
        for c in &calls {
            let i = accountant.inputs_for(c).expect("entry id");
            let words = std::rc::Rc::new(std::cell::Cell::new(0));
            let sent = {
                let a = ws.assemble_unkept(&i);
                assert!(!a
                    .request
                    .as_ref()
                    .expect("request")
                    .accounting
                    .is_measured());
                let counted = compute_with_tokens(&a, &mut Words(words.clone())).unwrap();
                (
                    a.stats().cloned(),
                    counted,
                    a.request.as_ref().map(|r| r.body.len()),
                )
            };
            let _measured = crate::js::memo::measuring();
            let a = ws.assemble_unkept(&i);
            let r = a.request.as_ref().expect("request");
            left_out += r.accounting.elided.len();
            assert_eq!(Some(r.sent_len()), sent.2, "{name} line {}", c.line);
            assert_eq!(a.stats().cloned(), sent.0, "{name} line {}", c.line);
            let counted = compute_with_tokens(&a, &mut Words(words.clone())).unwrap();
            assert_eq!(counted, sent.1, "{name} line {}", c.line);
        }
    }
    assert!(left_out > 0, "some long history text was left out");
}

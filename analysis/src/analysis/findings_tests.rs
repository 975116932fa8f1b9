use super::*;
use crate::testcase::{all_cases, assembly};

fn ids(list: &[Finding]) -> Vec<&str> {
    list.iter().map(|f| f.id.as_str()).collect()
}

fn get<'a>(list: &'a [Finding], id: &str) -> &'a Finding {
    list.iter()
        .find(|f| f.id == id)
        .unwrap_or_else(|| panic!("no {id} in {:?}", ids(list)))
}

#[test]
#[ignore]
fn print_findings() {
    let case = std::env::var("CASE").unwrap_or_else(|_| "demo".into());
    for f in findings(&assembly(&case, None)) {
        println!(
            "{}. [{}] {} ({}) — {} | {:?} {:?}",
            f.number,
            f.severity.as_str(),
            f.title,
            f.id,
            f.detail,
            f.stage,
            f.subject
        );
    }
}

#[test]
fn numbered_in_order_and_never_zero_counts() {
    for case in [
        "demo",
        "oc-demo",
        "an-cross-provider-history",
        "oc-session-errored-aborted",
    ] {
        let list = findings(&assembly(case, None));
        for (i, f) in list.iter().enumerate() {
            assert_eq!(f.number, i + 1);
            assert!(
                !f.title.starts_with("0 ") && !f.detail.starts_with("0 "),
                "{case}: {f:?}"
            );
        }
    }
}

#[test]
fn demo_tools_outweigh_the_prompt_and_skills_are_counted() {
    let a = assembly("demo", None);
    let s = a.stats().cloned().expect("stats");
    let list = findings(&a);
    let t = get(&list, "tool-schemas");
    assert!(
        t.detail.contains(&thousands(s.tools_chars))
            && t.detail.contains(&thousands(s.system_prompt_chars)),
        "{t:?}"
    );
    assert_eq!(
        t.subject.as_deref(),
        Some(format!("tool:{}", s.by_tool[0].name).as_str())
    );
    let l = get(&list, "largest-tools");
    for tool in s.by_tool.iter().take(3) {
        assert!(l.detail.contains(&tool.name), "{l:?}");
    }
    assert!(get(&list, "skills-share")
        .subject
        .as_deref()
        .is_some_and(|s| s.starts_with("section:")));
    // The demo's model only supports high/max: low is clamped up.
    let c = get(&list, "thinking-clamped");
    assert_eq!(c.title, "Thinking level low was sent as high");
    assert_eq!(c.severity, Severity::Warning);
    assert!(list.iter().any(|f| f.id == "user-text-share"));
    assert!(list.iter().any(|f| f.id == "cache-prefix"));
    // Nothing that does not apply.
    for id in [
        "context-file-shadowed",
        "custom-prompt",
        "images-omitted",
        "errored-turns-dropped",
        "compaction",
        "off-branch",
        "thinking-replay-lost",
        "cache-breaks",
    ] {
        assert!(
            !list.iter().any(|f| f.id == id),
            "{id} should not apply: {:?}",
            ids(&list)
        );
    }
}

#[test]
fn shadowed_claude_md_is_named() {
    let a = assembly("oc-context-shadowing", None);
    let shadowed: Vec<_> = a
        .parts
        .resources
        .context_files
        .iter()
        .filter(|f| !f.shadowed.is_empty())
        .collect();
    assert!(!shadowed.is_empty());
    let list = findings(&a);
    let fs: Vec<&Finding> = list
        .iter()
        .filter(|f| f.id == "context-file-shadowed")
        .collect();
    assert_eq!(fs.len(), shadowed.len());
    for (f, cf) in fs.iter().zip(shadowed) {
        assert!(f.detail.contains(&cf.path), "{f:?}");
        for s in &cf.shadowed {
            assert!(f.title.contains(s.as_str()), "{f:?}");
        }
        assert!(f
            .subject
            .as_deref()
            .is_some_and(|s| s.starts_with("section:")));
    }
    assert!(
        fs.iter()
            .any(|f| f.title.contains("CLAUDE.md") && f.title.contains("AGENTS.md")),
        "{fs:?}"
    );
}

#[test]
fn cross_provider_history_converts_thinking_and_renames_ids() {
    let list = findings(&assembly("an-cross-provider-history", None));
    let t = get(&list, "thinking-replay-lost");
    assert!(t.detail.contains("converted to plain text"), "{t:?}");
    assert!(t.detail.contains("mock-openai/gpt-5.5"), "{t:?}");
    assert!(
        t.detail.contains("dropped") && t.detail.contains("stripped"),
        "{t:?}"
    );
    assert_eq!(t.stage, Some(StageId::TransformMessages));
    assert!(t
        .subject
        .as_deref()
        .is_some_and(|s| s.starts_with("entry:")));
    let r = get(&list, "tool-call-ids-renamed");
    assert!(r.title.starts_with("3 tool-call ids"), "{r:?}");
}

#[test]
fn errored_turns_and_synthetic_results() {
    let list = findings(&assembly("oc-session-errored-aborted", None));
    let e = get(&list, "errored-turns-dropped");
    assert!(e.title.starts_with("2 errored"), "{e:?}");
    assert!(e
        .subject
        .as_deref()
        .is_some_and(|s| s.starts_with("entry:")));
    let s = get(&list, "synthetic-messages");
    assert!(s.detail.contains("2 × synthetic error result"), "{s:?}");
}

#[test]
fn thinking_off_clamped_up() {
    let list = findings(&assembly("an-thinking-off-clamped-up", None));
    assert_eq!(
        get(&list, "thinking-clamped").title,
        "Thinking level off was sent as minimal"
    );
}

#[test]
fn images_custom_prompt_max_tokens_compaction_branches() {
    let i = findings(&assembly("oc-images-text-only", None));
    assert!(get(&i, "images-omitted")
        .detail
        .contains("has no image input"));
    let b = findings(&assembly("oc-images-blocked", None));
    assert!(get(&b, "images-omitted")
        .detail
        .contains("images.blockImages"));
    let c = findings(&assembly("oc-sysprompt-literal", None));
    let f = get(&c, "custom-prompt");
    assert!(
        f.detail.contains("tool snippets") && f.detail.contains("guidelines"),
        "{f:?}"
    );
    let m = findings(&assembly("oc-maxtokens-clamp-estimate", None));
    assert!(get(&m, "max-tokens-clamped").detail.contains("14498"));
    let k = findings(&assembly("oc-session-compaction", None));
    assert!(
        get(&k, "compaction").detail.contains("2 entries"),
        "{:?}",
        get(&k, "compaction")
    );
    let o = findings(&assembly("oc-session-leaf-other-branch", None));
    assert!(get(&o, "off-branch").title.starts_with("4 entries"));
}

#[test]
fn cache_marker_gaps() {
    let f = findings(&assembly("an-cache-no-tool-marker", None));
    assert_eq!(get(&f, "no-cache-markers").severity, Severity::Notice);
}

#[test]
fn no_panic_on_any_case_or_protocol() {
    for case in all_cases() {
        for api in [
            None,
            Some("anthropic-messages"),
            Some("google-generative-ai"),
        ] {
            let a = assembly(&case, api);
            let list = findings(&a);
            let _ = crate::report::findings::to_json(&list);
        }
    }
}

#[test]
fn contains_at_anchor_is_contains() {
    for hay in [
        "",
        "\"cache_control\"",
        "x\"cache_control\"y",
        "_\"cache_control_\"",
        "\"cache_contro\"",
        "__\"cachePoint\"",
        "\"cachePoint",
        "é_\"cachePoint\"",
    ] {
        for needle in ["\"cache_control\"", "\"cachePoint\""] {
            assert_eq!(
                super::contains_at_anchor(hay, needle, 6),
                hay.contains(needle),
                "{hay:?} {needle:?}"
            );
        }
    }
}

/// The estimate is pi's: the captured body's `max_completion_tokens` is
/// `contextWindow - estimate - 4096`, so the estimate is read back from
/// pi's own bytes. Under that window nothing is flagged; with a window one token smaller than
/// the estimate, the context is beyond it.
#[test]
fn context_beyond_the_model_s_window() {
    let case = "oc-maxtokens-clamp-estimate";
    let a = assembly(case, None);
    let body = crate::js::parse(a.body().expect("a body")).unwrap();
    let max = body
        .get("max_completion_tokens")
        .and_then(Value::as_f64)
        .unwrap();
    let size = crate::analysis::checks::context_size(&a).expect("a window");
    assert_eq!(size.window, 20000.0);
    assert_eq!(size.tokens, 20000.0 - 4096.0 - max, "pi's estimate");
    assert!(!ids(&findings(&a)).contains(&"context-over-window"));

    let mut inputs = crate::testcase::inputs(case);
    let path = format!("{}/models.json", inputs.agent_dir);
    let models = inputs.files.read_to_string(&path).expect("models.json");
    let smaller = models.replace(
        "\"contextWindow\": 20000",
        &format!("\"contextWindow\": {}", size.tokens - 1.0),
    );
    assert_ne!(smaller, models);
    inputs.files.insert(&path, smaller.into_bytes());
    let list = findings(&crate::assemble(&inputs));
    let f = get(&list, "context-over-window");
    assert_eq!(f.severity, Severity::Warning);
    assert!(
        f.detail
            .contains(&format!("{} tokens", thousands(size.tokens as usize)))
            && f.detail.contains("mock/small-ctx")
            && f.detail.contains("(1 over)"),
        "{f:?}"
    );
}

/// pi's estimate starts from the last usage the provider reported; a request whose body is over
/// the window while that estimate is under it (here the scripted run's last call, whose stand-in
/// provider reported a few hundred tokens) is flagged too, saying that pi's auto-compaction,
/// which watches its estimate, would not start.
#[test]
fn a_body_over_the_window_is_flagged_when_pis_estimate_is_under() {
    let case = "an-scripted";
    let mut inputs = crate::testcase::inputs(case);
    let after = ctxlens_corpus::Case::named(case)
        .session_after()
        .expect("session.after");
    inputs = crate::case::call_inputs(&inputs, &after, crate::calls::CallRef::Index(5));
    let a = crate::assemble(&inputs);
    let size = crate::analysis::checks::context_size(&a).expect("a window");
    let stats = a.stats().expect("stats");
    let body_tokens = (stats.body_chars as f64 / 4.0).ceil();
    assert!(
        size.usage_tokens > 0.0 && size.tokens < body_tokens,
        "{size:?} {body_tokens}"
    );
    assert!(!ids(&findings(&a)).contains(&"context-over-window"));
    // A window between the two.
    let window = ((size.tokens + body_tokens) / 2.0).floor();
    let path = format!("{}/models.json", inputs.agent_dir);
    let models = inputs.files.read_to_string(&path).expect("models.json");
    let with = models.replace(
        "\"contextWindow\": 200000",
        &format!("\"contextWindow\": {window}"),
    );
    assert_ne!(with, models);
    inputs.files.insert(&path, with.into_bytes());
    let a = crate::assemble(&inputs);
    let list = findings(&a);
    let f = get(&list, "context-over-window");
    // The smaller window clamps the answer's budget, so the body is read again.
    let stats = a.stats().expect("stats");
    let body_tokens = (stats.body_chars as f64 / 4.0).ceil();
    assert!(body_tokens > window);
    assert!(
        f.detail.starts_with(&format!(
            "The request body is ≈ {} tokens (its {} characters at 4 per token), but pi's estimate of this request is {} tokens",
            thousands(body_tokens as usize),
            thousands(stats.body_chars),
            thousands(size.tokens as usize)
        )) && f.detail.contains("would not start")
            && f.detail.contains(&format!("({} over)", thousands((body_tokens - window) as usize))),
        "{f:?}"
    );
}

/// A session whose history calls bash, resumed with no tools (`--no-tools`): the call is
/// flagged with its session line; the demo, whose calls are all to defined tools, is not.
#[test]
fn tool_calls_to_tools_the_request_does_not_define() {
    let a = assembly("oc-no-tools-history", None);
    assert!(crate::analysis::checks::defined_tool_names(&a).is_empty());
    let calls = crate::analysis::checks::undefined_tool_calls(&a);
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(calls[0].name, "bash");
    assert_eq!(calls[0].call_id, "call_n1");
    assert_eq!(calls[0].line, Some(3));
    assert_eq!(calls[0].entry_id.as_deref(), Some("a0000002"));
    let list = findings(&a);
    let f = get(&list, "undefined-tools");
    assert_eq!(f.title, "1 tool call to tools the request does not define");
    assert!(
        f.detail.contains("bash (line 3)") && f.detail.contains("defines no tools"),
        "{f:?}"
    );
    assert_eq!(f.subject.as_deref(), Some("entry:a0000002"));

    let demo = assembly("demo", None);
    assert!(crate::analysis::checks::undefined_tool_calls(&demo).is_empty());
    assert!(!ids(&findings(&demo)).contains(&"undefined-tools"));
}

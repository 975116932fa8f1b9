use super::*;
use crate::diagnostics::Severity;
use crate::testcase::pi;

const HEADER: &str = r#"{"type":"session","version":3,"id":"sess-1","timestamp":"2026-01-05T09:00:00.000Z","cwd":"/p"}"#;

fn file(text: &str) -> SessionFile {
    parse(
        &pi(),
        &SourceText {
            name: "s.jsonl".into(),
            text: text.into(),
        },
    )
}

/// Parses and builds the context; all diagnostics (parse + build) and events returned.
fn run(text: &str) -> (SessionFile, SessionContext, Events, Vec<Diagnostic>) {
    let f = file(text);
    let mut events = Events::default();
    let mut diags = f.diagnostics.clone();
    let ctx = build_context(&pi(), &f, &mut events, &mut diags);
    (f, ctx, events, diags)
}

fn user(id: &str, parent: Option<&str>, text: &str) -> String {
    let p = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
    format!(
        r#"{{"type":"message","id":"{id}","parentId":{p},"timestamp":"2026-01-05T09:00:01.000Z","message":{{"role":"user","content":[{{"type":"text","text":"{text}"}}],"timestamp":1}}}}"#
    )
}

fn assistant(id: &str, parent: &str, text: &str, model: &str) -> String {
    format!(
        r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-01-05T09:00:02.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":"{text}"}}],"provider":"mock","model":"{model}","timestamp":2}}}}"#
    )
}

fn texts(ctx: &SessionContext) -> Vec<String> {
    ctx.messages
        .iter()
        .map(|m| match m.get_str("role") {
            Some("compactionSummary") | Some("branchSummary") => format!(
                "{}:{}",
                m.get_str("role").unwrap_or(""),
                m.get_str("summary").unwrap_or("")
            ),
            Some(role) => format!("{role}:{}", content_text(m.get("content"))),
            None => "?".into(),
        })
        .collect()
}

#[test]
fn skip_rules_report_line_numbers() {
    let text = [
        HEADER,
        "",
        "   ",
        &user("a1", None, "one"),
        "{not json",
        "\t",
        r#"{"type":"message","id":"tr"#,
        "null",
        "0",
        &assistant("a2", "a1", "two", "m"),
    ]
    .join("\n");
    let (f, ctx, _, diags) = run(&text);
    assert_eq!(f.entries.len(), 2);
    assert_eq!(f.entries[0].line, 4);
    assert_eq!(f.entries[1].line, 10);
    let skipped: Vec<u32> = f
        .diagnostics
        .iter()
        .filter(|d| d.skipped.is_some())
        .filter_map(|d| d.line)
        .collect();
    assert_eq!(skipped, vec![5, 7, 8, 9]);
    assert!(f
        .diagnostics
        .iter()
        .any(|d| d.message.contains("{not json")));
    assert_eq!(texts(&ctx), vec!["user:one", "assistant:two"]);
    assert!(diags.iter().all(|d| d.severity != Severity::Error));
}

#[test]
fn missing_or_bad_header_refuses_the_file() {
    for text in [
        user("a1", None, "x"),
        format!("{}\n{}", user("a1", None, "x"), HEADER),
        r#"{"type":"session","id":5}"#.to_string(),
        "garbage\n\n".to_string(),
        "\n".to_string(),
    ] {
        let f = file(&text);
        assert!(f.header.is_none(), "{text}");
        assert!(f.entries.is_empty());
        assert!(
            f.diagnostics
                .iter()
                .any(|d| d.severity == Severity::Error
                    && d.message.contains("not a valid pi session")),
            "{text}"
        );
    }
    // An empty file is a new session, not an error.
    let f = file("");
    assert!(f.header.is_none() && f.diagnostics.is_empty());
    // Garbage before the header is skipped: the header is still the first *parsed* entry.
    let f = file(&format!("oops\n{HEADER}\n{}", user("a1", None, "x")));
    assert_eq!(f.session_id(), Some("sess-1"));
    assert_eq!(f.entries.len(), 1);
}

#[test]
fn crlf_lines_load() {
    let text = format!(
        "{HEADER}\r\n{}\r\n{}\r\n",
        user("a1", None, "one"),
        assistant("a2", "a1", "two", "m")
    );
    let (f, ctx, _, diags) = run(&text);
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(f.entries.len(), 2);
    assert_eq!(ctx.leaf_id.as_deref(), Some("a2"));
    assert_eq!(texts(&ctx), vec!["user:one", "assistant:two"]);
}

#[test]
fn each_walk_of_a_file_reads_its_index_once_made_and_says_the_same() {
    // The index (`_buildIndex`) is made on the first walk and kept with the file: every walk
    // after it, to any leaf, finds the same parents and reports the same duplicate id.
    let text = [
        HEADER.to_string(),
        user("a1", None, "first a1"),
        user("a1", None, "second a1"),
        assistant("a2", "a1", "answer", "m"),
        user("u3", Some("a2"), "next"),
        assistant("a4", "u3", "done", "m"),
    ]
    .join("\n");
    let f = file(&text);
    let walk = |leaf: Leaf| {
        let mut diags = Vec::new();
        let ctx = build_context_at(&pi(), &f, leaf, &mut Events::default(), &mut diags);
        let dup: Vec<_> = diags
            .iter()
            .filter(|d| d.message.contains("duplicate entry id a1"))
            .map(|d| d.line)
            .collect();
        (texts(&ctx), dup)
    };
    let first = walk(Leaf::Last);
    assert_eq!(
        first.0,
        vec![
            "user:second a1",
            "assistant:answer",
            "user:next",
            "assistant:done"
        ]
    );
    assert_eq!(first.1, vec![Some(3)]);
    assert_eq!(walk(Leaf::Last), first);
    assert_eq!(
        walk(Leaf::Entry(2)),
        (
            vec!["user:second a1".to_string(), "assistant:answer".to_string()],
            vec![Some(3)]
        )
    );
    // A copy of the file (its index with it) walks the same.
    let copy = f.clone();
    let mut diags = Vec::new();
    let ctx = build_context(&pi(), &copy, &mut Events::default(), &mut diags);
    assert_eq!(texts(&ctx), first.0);
    assert_eq!(active_path(&copy), active_path(&f));
}

#[test]
fn duplicate_ids_last_wins() {
    let text = [
        HEADER.to_string(),
        user("a1", None, "first a1"),
        user("a1", None, "second a1"),
        assistant("a2", "a1", "answer", "m"),
    ]
    .join("\n");
    let (_, ctx, _, diags) = run(&text);
    assert_eq!(texts(&ctx), vec!["user:second a1", "assistant:answer"]);
    assert!(diags
        .iter()
        .any(|d| d.line == Some(3) && d.message.contains("duplicate entry id a1")));
    assert_eq!(ctx.path_indices, vec![1, 2]);
}

#[test]
fn parent_cycle_terminates_and_is_reported() {
    let text = [
        HEADER.to_string(),
        user("a", Some("c"), "A"),
        user("b", Some("a"), "B"),
        user("c", Some("b"), "C"),
    ]
    .join("\n");
    let (_, ctx, _, diags) = run(&text);
    assert_eq!(texts(&ctx), vec!["user:A", "user:B", "user:C"]);
    let d = diags
        .iter()
        .find(|d| d.message.contains("cycle"))
        .expect("cycle reported");
    assert_eq!(d.severity, Severity::Error);
    assert!(d.message.contains("4, 3, 2"), "{}", d.message);
    // A self-parent too.
    let (_, ctx, _, diags) = run(&format!("{HEADER}\n{}", user("s", Some("s"), "self")));
    assert_eq!(texts(&ctx), vec!["user:self"]);
    assert!(diags.iter().any(|d| d.message.contains("cycle")));
}

#[test]
fn orphan_parent_ends_the_walk() {
    let text = [
        HEADER.to_string(),
        user("a1", None, "lost"),
        user("a2", Some("missing"), "orphan"),
        assistant("a3", "a2", "ok", "m"),
    ]
    .join("\n");
    let (_, ctx, events, diags) = run(&text);
    assert_eq!(texts(&ctx), vec!["user:orphan", "assistant:ok"]);
    assert!(diags
        .iter()
        .any(|d| d.line == Some(3) && d.message.contains("missing")));
    assert!(events
        .iter()
        .any(|e| e.message.contains("1 entries off the active branch")));
}

#[test]
fn leaf_is_the_last_entry_even_on_another_branch() {
    let text = [
        HEADER.to_string(),
        user("a1", None, "root"),
        assistant("a2", "a1", "main answer", "m1"),
        user("a3", Some("a2"), "main follow-up"),
        assistant("b2", "a1", "branch answer", "m2"),
    ]
    .join("\n");
    let (f, ctx, events, _) = run(&text);
    assert_eq!(ctx.leaf_id.as_deref(), Some("b2"));
    assert_eq!(ctx.path_ids(&f), vec!["a1", "b2"]);
    assert_eq!(texts(&ctx), vec!["user:root", "assistant:branch answer"]);
    assert_eq!(ctx.model, Some(("mock".into(), "m2".into())));
    assert!(events
        .iter()
        .any(|e| e.message.contains("2 entries off the active branch")));
}

#[test]
fn a_label_entry_can_be_the_leaf() {
    let text = [
        HEADER.to_string(),
        user("a1", None, "root"),
        assistant("a2", "a1", "x", "m"),
        r#"{"type":"label","id":"l1","parentId":"a1","targetId":"a2","label":"keep"}"#.into(),
    ]
    .join("\n");
    let (f, ctx, _, _) = run(&text);
    assert_eq!(ctx.leaf_id.as_deref(), Some("l1"));
    assert_eq!(texts(&ctx), vec!["user:root"]);
    assert_eq!(ctx.labels, vec![("a2".to_string(), "keep".to_string())]);
    let t = tree(&f, &ctx);
    assert_eq!(t[1].label.as_deref(), Some("keep"));
    assert!(!t[1].on_active_branch);
}

#[test]
fn labels_follow_map_semantics() {
    let text = [
        HEADER.to_string(),
        user("a1", None, "x"),
        r#"{"type":"label","id":"l1","parentId":"a1","targetId":"a1","label":"one"}"#.into(),
        r#"{"type":"label","id":"l2","parentId":"l1","targetId":"zz","label":"two"}"#.into(),
        r#"{"type":"label","id":"l3","parentId":"l2","targetId":"a1","label":""}"#.into(),
        r#"{"type":"label","id":"l4","parentId":"l3","targetId":"a1","label":"three"}"#.into(),
    ]
    .join("\n");
    let (_, ctx, _, _) = run(&text);
    assert_eq!(
        ctx.labels,
        vec![("zz".into(), "two".into()), ("a1".into(), "three".into())]
    );
}

#[test]
fn v1_migration_assigns_ids_and_converts_first_kept_index() {
    let text = [
        r#"{"type":"session","id":"old","timestamp":"2026-01-05T09:00:00.000Z","cwd":"/p"}"#,
        r#"{"type":"message","timestamp":"2026-01-05T09:00:01.000Z","message":{"role":"user","content":"very old","timestamp":1}}"#,
        r#"{"type":"message","timestamp":"2026-01-05T09:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"old answer"}],"provider":"mock","model":"m","timestamp":2}}"#,
        r#"{"type":"message","timestamp":"2026-01-05T09:00:03.000Z","message":{"role":"user","content":"kept","timestamp":3}}"#,
        r#"{"type":"message","timestamp":"2026-01-05T09:00:04.000Z","message":{"role":"hookMessage","customType":"h","content":"hook","display":true,"timestamp":4}}"#,
        r#"{"type":"compaction","timestamp":"2026-01-05T09:00:05.000Z","summary":"S","firstKeptEntryIndex":3,"tokensBefore":900}"#,
        r#"{"type":"message","timestamp":"2026-01-05T09:00:06.000Z","message":{"role":"user","content":"after","timestamp":6}}"#,
    ]
    .join("\n");
    let (f, ctx, events, _) = run(&text);
    assert_eq!(f.original_version, 1);
    assert_eq!(
        f.header.as_ref().and_then(|h| h.value.get_f64("version")),
        Some(3.0)
    );
    assert_eq!(f.entries[0].id(), Some("v1-L2"));
    assert_eq!(f.entries[0].value.get("parentId"), Some(&Value::Null));
    assert_eq!(f.entries[1].parent_id(), Some("v1-L2"));
    let comp = &f.entries[4].value;
    assert_eq!(comp.get_str("firstKeptEntryId"), Some("v1-L4"));
    assert!(comp.get("firstKeptEntryIndex").is_none());
    assert_eq!(
        texts(&ctx),
        vec![
            "compactionSummary:S",
            "user:kept",
            "custom:hook",
            "user:after"
        ]
    );
    assert_eq!(
        ctx.messages[0].get("timestamp"),
        Some(&Value::Number(1767603605000.0))
    );
    assert!(events.iter().any(|e| e
        .message
        .contains("2 of 4 earlier entries on the branch cut, 2 kept")));
}

#[test]
fn v1_first_kept_index_pointing_at_header_or_forward_keeps_nothing() {
    for idx in ["0", "3", "1.5", "99"] {
        let text = [
            r#"{"type":"session","id":"old","cwd":"/p"}"#.to_string(),
            r#"{"type":"message","message":{"role":"user","content":"a","timestamp":1}}"#.into(),
            format!(r#"{{"type":"compaction","timestamp":"2026-01-05T09:00:05Z","summary":"S","firstKeptEntryIndex":{idx},"tokensBefore":1}}"#),
            r#"{"type":"message","message":{"role":"user","content":"b","timestamp":1}}"#.into(),
        ]
        .join("\n");
        let (f, ctx, _, _) = run(&text);
        assert!(
            f.entries[1].value.get("firstKeptEntryId").is_none(),
            "{idx}"
        );
        assert_eq!(texts(&ctx), vec!["compactionSummary:S", "user:b"], "{idx}");
    }
}

#[test]
fn v2_hook_message_becomes_custom() {
    let text = [
        r#"{"type":"session","version":2,"id":"v2","cwd":"/p"}"#.to_string(),
        r#"{"type":"message","id":"h1","parentId":null,"message":{"role":"hookMessage","customType":"x","content":"hi","display":false,"timestamp":1}}"#.into(),
    ]
    .join("\n");
    let (f, ctx, _, _) = run(&text);
    assert_eq!(f.original_version, 2);
    assert_eq!(f.entries[0].id(), Some("h1"));
    assert_eq!(
        ctx.messages[0].to_json(),
        r#"{"role":"custom","customType":"x","content":"hi","display":false,"timestamp":1}"#
    );
}

fn compaction(id: &str, parent: &str, first_kept: Option<&str>, summary: &str) -> String {
    let fk = first_kept.map_or(String::new(), |k| format!(r#","firstKeptEntryId":"{k}""#));
    format!(
        r#"{{"type":"compaction","id":"{id}","parentId":"{parent}","timestamp":"2026-01-05T10:00:00.000Z","summary":"{summary}"{fk},"tokensBefore":1234}}"#
    )
}

#[test]
fn compaction_with_first_kept_id() {
    let text = [
        HEADER.to_string(),
        user("a1", None, "old"),
        assistant("a2", "a1", "old answer", "m"),
        user("a3", Some("a2"), "kept"),
        assistant("a4", "a3", "kept answer", "m"),
        compaction("c1", "a4", Some("a3"), "sum"),
        user("a5", Some("c1"), "new"),
    ]
    .join("\n");
    let (_, ctx, _, _) = run(&text);
    assert_eq!(
        texts(&ctx),
        vec![
            "compactionSummary:sum",
            "user:kept",
            "assistant:kept answer",
            "user:new"
        ]
    );
    assert_eq!(ctx.compaction_id.as_deref(), Some("c1"));
    assert_eq!(ctx.path_indices.len(), 6);
    assert_eq!(
        ctx.messages[0].to_json(),
        r#"{"role":"compactionSummary","summary":"sum","tokensBefore":1234,"timestamp":1767607200000}"#
    );
    assert_eq!(
        ctx.sources[0],
        MessageSource {
            entry_id: Some("c1".into()),
            line: 6,
            entry_type: "compaction".into()
        }
    );
}

#[test]
fn compaction_without_or_with_unknown_first_kept_id_keeps_nothing_before() {
    for fk in [None, Some("nope")] {
        let text = [
            HEADER.to_string(),
            user("a1", None, "old"),
            assistant("a2", "a1", "old answer", "m"),
            compaction("c1", "a2", fk, "sum"),
            user("a5", Some("c1"), "new"),
        ]
        .join("\n");
        let (_, ctx, events, _) = run(&text);
        assert_eq!(texts(&ctx), vec!["compactionSummary:sum", "user:new"]);
        assert!(events.iter().any(|e| e
            .message
            .contains("2 of 2 earlier entries on the branch cut")));
    }
}

#[test]
fn two_compactions_latest_wins_and_older_in_kept_range_is_converted() {
    let text = [
        HEADER.to_string(),
        user("a1", None, "very old"),
        compaction("c1", "a1", Some("a1"), "first"),
        user("a2", Some("c1"), "middle"),
        assistant("a3", "a2", "middle answer", "m"),
        compaction("c2", "a3", Some("c1"), "second"),
        user("a4", Some("c2"), "new"),
    ]
    .join("\n");
    let (_, ctx, _, _) = run(&text);
    assert_eq!(
        texts(&ctx),
        vec![
            "compactionSummary:second",
            "compactionSummary:first",
            "user:middle",
            "assistant:middle answer",
            "user:new"
        ]
    );
    assert_eq!(ctx.compaction_id.as_deref(), Some("c2"));
}

#[test]
fn branch_summary_with_empty_summary_produces_nothing() {
    let text = [
        HEADER.to_string(),
        user("a1", None, "root"),
        r#"{"type":"branch_summary","id":"b1","parentId":"a1","timestamp":"2026-01-05T09:00:03.000Z","fromId":"x","summary":""}"#.into(),
        r#"{"type":"branch_summary","id":"b2","parentId":"b1","timestamp":"2026-01-05T09:00:04.000Z","fromId":"y","summary":"went elsewhere"}"#.into(),
    ]
    .join("\n");
    let (_, ctx, events, _) = run(&text);
    assert_eq!(ctx.messages.len(), 2);
    assert_eq!(
        ctx.messages[1].to_json(),
        r#"{"role":"branchSummary","summary":"went elsewhere","fromId":"y","timestamp":1767603604000}"#
    );
    assert!(events
        .iter()
        .any(|e| e.kind == EventKind::Dropped && e.message.contains("empty summary")));
}

#[test]
fn custom_message_with_display_false_is_kept() {
    let text = [
        HEADER.to_string(),
        r#"{"type":"custom_message","id":"c1","parentId":null,"timestamp":"2026-01-05T09:00:03Z","customType":"note","content":null,"display":false,"details":{"k":1}}"#.into(),
        r#"{"type":"custom_message","id":"c2","parentId":"c1","timestamp":"bad","customType":"n2","content":"hi","display":true}"#.into(),
        r#"{"type":"custom","id":"c3","parentId":"c2","customType":"state","data":{}}"#.into(),
        r#"{"type":"model_change","id":"c4","parentId":"c3","provider":"p","modelId":"x"}"#.into(),
    ]
    .join("\n");
    let (_, ctx, events, diags) = run(&text);
    assert_eq!(ctx.messages.len(), 2);
    assert_eq!(
        ctx.messages[0].to_json(),
        r#"{"role":"custom","customType":"note","content":[],"display":false,"details":{"k":1},"timestamp":1767603603000}"#
    );
    // An unparseable timestamp is NaN, printed as null like JSON.stringify does.
    assert_eq!(
        ctx.messages[1].to_json(),
        r#"{"role":"custom","customType":"n2","content":"hi","display":true,"timestamp":null}"#
    );
    assert!(diags
        .iter()
        .any(|d| d.line == Some(3) && d.message.contains("NaN")));
    assert!(events
        .iter()
        .any(|e| e.message.contains("1 custom, 1 model_change")));
    assert_eq!(ctx.model, Some(("p".into(), "x".into())));
}

#[test]
fn null_content_becomes_empty_array_in_place() {
    let text = [
        HEADER.to_string(),
        r#"{"type":"message","id":"a1","parentId":null,"message":{"role":"user","content":null,"timestamp":3}}"#.into(),
        r#"{"type":"message","id":"a2","parentId":"a1","message":{"role":"toolResult","toolCallId":"t","timestamp":4}}"#.into(),
        r#"{"type":"message","id":"a3","parentId":"a2","message":{"role":"bashExecution","command":"ls","timestamp":5}}"#.into(),
    ]
    .join("\n");
    let (_, ctx, _, _) = run(&text);
    assert_eq!(
        ctx.messages[0].to_json(),
        r#"{"role":"user","content":[],"timestamp":3}"#
    );
    assert_eq!(
        ctx.messages[1].to_json(),
        r#"{"role":"toolResult","toolCallId":"t","timestamp":4,"content":[]}"#
    );
    assert_eq!(
        ctx.messages[2].to_json(),
        r#"{"role":"bashExecution","command":"ls","timestamp":5}"#
    );
}

#[test]
fn settings_come_from_the_whole_path() {
    let text = [
        HEADER.to_string(),
        r#"{"type":"thinking_level_change","id":"t1","parentId":null,"thinkingLevel":"high"}"#
            .into(),
        r#"{"type":"model_change","id":"m1","parentId":"t1","provider":"p","modelId":"first"}"#
            .into(),
        assistant("a1", "m1", "x", "second"),
        compaction("c1", "a1", None, "sum"),
        user("u1", Some("c1"), "go"),
    ]
    .join("\n");
    let (_, ctx, _, _) = run(&text);
    assert_eq!(ctx.thinking_level, "high");
    assert!(ctx.has_thinking_entry);
    assert_eq!(ctx.model, Some(("mock".into(), "second".into())));
    // No thinking entry: "off", and has_thinking_entry false.
    let (_, ctx, _, _) = run(&format!("{HEADER}\n{}", user("u", None, "x")));
    assert_eq!(ctx.thinking_level, "off");
    assert_eq!(ctx.thinking_level_value, Some(Value::str("off")));
    assert!(!ctx.has_thinking_entry);
    assert_eq!(ctx.model, None);
}

#[test]
fn leaf_without_id_falls_back_but_get_branch_is_empty() {
    let text = [
        HEADER.to_string(),
        r#"{"type":"thinking_level_change","id":"t1","parentId":null,"thinkingLevel":"high"}"#.into(),
        r#"{"type":"message","parentId":"t1","message":{"role":"user","content":"x","timestamp":1}}"#.into(),
    ]
    .join("\n");
    let (_, ctx, _, _) = run(&text);
    assert_eq!(texts(&ctx), vec!["user:x"]);
    assert_eq!(ctx.thinking_level, "high");
    assert!(!ctx.has_thinking_entry);
    assert_eq!(ctx.leaf_id, None);
}

#[test]
fn leaf_with_null_id_gives_an_empty_context() {
    let text = [
        HEADER.to_string(),
        user("a1", None, "x"),
        r#"{"type":"custom","id":null,"parentId":"a1"}"#.into(),
    ]
    .join("\n");
    let (_, ctx, _, _) = run(&text);
    assert!(ctx.messages.is_empty());
    assert!(ctx.path_indices.is_empty());
}

#[test]
fn message_entry_without_message_is_reported_not_a_panic() {
    let text = [
        HEADER.to_string(),
        user("a1", None, "x"),
        r#"{"type":"message","id":"a2","parentId":"a1"}"#.into(),
        "5".into(),
    ]
    .join("\n");
    let (f, ctx, _, diags) = run(&text);
    assert_eq!(f.entries.len(), 3);
    // The trailing `5` is an id-less leaf: the path is just it, which yields nothing.
    assert!(ctx.messages.is_empty());
    assert!(diags
        .iter()
        .any(|d| d.line == Some(4) && d.message.contains("not an object")));
    let text = [
        HEADER.to_string(),
        user("a1", None, "x"),
        r#"{"type":"message","id":"a2","parentId":"a1"}"#.into(),
    ]
    .join("\n");
    let (_, ctx, _, diags) = run(&text);
    assert_eq!(texts(&ctx), vec!["user:x"]);
    assert!(diags
        .iter()
        .any(|d| d.severity == Severity::Error && d.line == Some(3)));
}

#[test]
fn second_header_is_not_an_entry() {
    let text = [
        HEADER.to_string(),
        user("a1", None, "x"),
        r#"{"type":"session","id":"again"}"#.into(),
    ]
    .join("\n");
    let (f, ctx, _, _) = run(&text);
    assert_eq!(f.entries.len(), 1);
    assert_eq!(ctx.leaf_id.as_deref(), Some("a1"));
}

#[test]
fn resolved_cwd_follows_pi_resolve_path() {
    let f = file(HEADER);
    assert_eq!(f.resolved_cwd("/home/u", "/x").as_deref(), Some("/p"));
    let f = file(r#"{"type":"session","id":"s","cwd":"~/proj/../w"}"#);
    assert_eq!(
        f.resolved_cwd("/home/u", "/x").as_deref(),
        Some("/home/u/w")
    );
    let f = file(r#"{"type":"session","id":"s","cwd":"rel"}"#);
    assert_eq!(f.resolved_cwd("/home/u", "/x").as_deref(), Some("/x/rel"));
    let f = file(r#"{"type":"session","id":"s","cwd":5}"#);
    assert_eq!(f.resolved_cwd("/home/u", "/x").as_deref(), Some("/x"));
}

#[test]
fn tree_lists_every_entry_in_file_order() {
    let text = [
        HEADER.to_string(),
        user("a1", None, "root question that is fairly long"),
        assistant("a2", "a1", "main", "m"),
        compaction("c1", "a2", None, "sum"),
        assistant("b2", "a1", "branch", "m"),
    ]
    .join("\n");
    let (f, ctx, _, _) = run(&text);
    let t = tree(&f, &ctx);
    assert_eq!(t.len(), 4);
    assert_eq!(t[0].preview, "user: root question that is fairly long");
    assert_eq!(t[2].preview, "compaction: sum");
    assert_eq!(
        t.iter().map(|n| n.on_active_branch).collect::<Vec<_>>(),
        vec![true, false, false, true]
    );
    assert_eq!(t[3].parent_id.as_deref(), Some("a1"));
    assert_eq!(t[3].line, 5);
}

#[test]
fn long_linear_session_is_iterative() {
    // 50,000 entries in one chain: walking it recursively would overflow the stack. (Speed on
    // long sessions is measured by scripts/bench-npm.mjs, not asserted here.)
    let mut text = String::from(HEADER);
    let n = 50_000;
    for i in 0..n {
        text.push('\n');
        let parent = if i == 0 {
            None
        } else {
            Some(format!("e{}", i - 1))
        };
        text.push_str(&user(&format!("e{i}"), parent.as_deref(), "hello"));
    }
    let (_, ctx, _, _) = run(&text);
    assert_eq!(ctx.messages.len(), n);
    assert_eq!(ctx.path_indices.len(), n);
}

#[test]
fn characters_that_stand_for_lone_surrogates_are_said_with_their_line() {
    // U+10F8DD is a character to pi; ctxlens keeps a lone surrogate (`\udcdd` parsed) as it,
    // so it reads the character as the surrogate: said, with the first line and the count.
    let text = format!(
        "{HEADER}\n{}\n{}\n{}\n",
        user("u1", None, "plain"),
        user("u2", Some("u1"), "a \u{10F8DD} b"),
        user("u3", Some("u2"), "\u{10FFFF} and \u{10F7FF}")
    );
    let f = file(&text);
    let d: Vec<&Diagnostic> = f
        .diagnostics
        .iter()
        .filter(|d| d.message.contains("lone UTF-16 surrogate"))
        .collect();
    assert_eq!(d.len(), 1, "{:?}", f.diagnostics);
    assert_eq!((d[0].file.as_str(), d[0].line), ("s.jsonl", Some(3)));
    assert_eq!(d[0].severity, Severity::Warning);
    assert!(
        d[0].message
            .starts_with("holds U+10F8DD (and one more line holds such characters)"),
        "{}",
        d[0].message
    );
    // U+10F7FF, just below the range, and an escaped lone surrogate are not such characters.
    let below = format!("{HEADER}\n{}\n", user("u1", None, "\u{10F7FF} \\udcdd"));
    assert!(!file(&below)
        .diagnostics
        .iter()
        .any(|d| d.message.contains("lone UTF-16 surrogate")));
    assert_eq!(surrogate_stand_in("x\u{10F800}"), Some('\u{10F800}'));
    assert_eq!(surrogate_stand_in("\u{10F7FF}\u{F4}"), None);
}

use super::*;
use crate::js;
use crate::{assemble, Assembly, Inputs, PiVersion, Severity, SourceText, VirtualFs};

const HEADER: &str = r#"{"type":"session","version":3,"id":"sess-1","timestamp":"2026-01-05T09:00:00.000Z","cwd":"/p"}"#;

const MODELS: &str = r#"{"providers":{"mock":{"api":"openai-completions","baseUrl":"http://127.0.0.1:1/v1","apiKey":"k","models":[{"id":"m1","reasoning":true,"input":["text"],"contextWindow":100000,"maxTokens":1000},{"id":"m2","reasoning":false,"input":["text"],"contextWindow":100000,"maxTokens":1000}]}}}"#;

fn parent(p: Option<&str>) -> String {
    p.map_or("null".to_string(), |p| format!("\"{p}\""))
}

fn user(id: &str, p: Option<&str>, text: &str) -> String {
    format!(
        r#"{{"type":"message","id":"{id}","parentId":{},"timestamp":"2026-01-05T09:00:01.000Z","message":{{"role":"user","content":[{{"type":"text","text":"{text}"}}],"timestamp":1}}}}"#,
        parent(p)
    )
}

/// An answer of `model` with usage; `stop` is its stopReason (`error` adds an errorMessage).
fn answer(id: &str, p: &str, text: &str, model: &str, stop: &str) -> String {
    let error = if stop == "error" {
        r#","errorMessage":"overloaded""#
    } else {
        ""
    };
    format!(
        r#"{{"type":"message","id":"{id}","parentId":"{p}","timestamp":"2026-01-05T09:00:02.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":"{text}"}}],"api":"openai-completions","provider":"mock","model":"{model}","usage":{{"input":10,"output":5,"cacheRead":3,"cacheWrite":0,"totalTokens":18,"cost":{{"input":0.1,"output":0.2,"cacheRead":0,"cacheWrite":0,"total":0.3}}}},"stopReason":"{stop}"{error},"timestamp":1767603602000}}}}"#
    )
}

fn session(lines: &[String]) -> String {
    let mut s = String::from(HEADER);
    for l in lines {
        s.push('\n');
        s.push_str(l);
    }
    s.push('\n');
    s
}

fn inputs(text: &str, call: Option<CallRef>) -> Inputs {
    let mut files = VirtualFs::new();
    files.insert("/home/user/.pi/agent/models.json", MODELS);
    Inputs {
        session: Some(SourceText {
            name: "s.jsonl".into(),
            text: text.into(),
        }),
        files,
        pi: Some(PiVersion::V0_85_1),
        call,
        ..Default::default()
    }
}

/// The texts of the body's non-system messages, in order.
fn sent(a: &Assembly) -> Vec<String> {
    let body = js::parse(a.body().expect("a request")).expect("JSON");
    body.get("messages")
        .and_then(Value::as_array)
        .map(|ms| {
            ms.iter()
                .filter(|m| !matches!(m.get_str("role"), Some("system" | "developer")))
                .map(|m| match m.get("content") {
                    Some(Value::String(s)) => s.to_string(),
                    Some(Value::Array(parts)) => parts
                        .iter()
                        .filter_map(|p| p.get_str("text"))
                        .collect::<Vec<_>>()
                        .join(""),
                    _ => String::new(),
                })
                .collect()
        })
        .unwrap_or_default()
}

fn body_model(a: &Assembly) -> String {
    js::parse(a.body().expect("a request"))
        .expect("JSON")
        .get_str("model")
        .unwrap_or("")
        .to_string()
}

fn errors(a: &Assembly) -> Vec<String> {
    a.diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.message.clone())
        .collect()
}

fn notes(a: &Assembly) -> Vec<String> {
    a.trace
        .stages
        .iter()
        .flat_map(|s| s.events.iter().map(|e| e.message.clone()))
        .collect()
}

/// u1 → a1 → u2 → a2, and a side branch u2 → a2b (written before a2: a2 is the leaf).
fn two_calls_and_a_side_branch() -> String {
    session(&[
        r#"{"type":"model_change","id":"mc","parentId":null,"timestamp":"2026-01-05T09:00:00.100Z","provider":"mock","modelId":"m1"}"#.into(),
        user("u1", Some("mc"), "first question"),
        answer("a1", "u1", "first answer", "m1", "stop"),
        user("u2", Some("a1"), "second question"),
        answer("a2b", "u2", "side answer", "m1", "stop"),
        user("u3b", Some("a2b"), "side follow-up"),
        answer("a3b", "u3b", "side follow-up answer", "m1", "stop"),
        answer("a2", "u2", "second answer", "m1", "stop"),
    ])
}

#[test]
fn call_refs_parse() {
    assert_eq!(CallRef::parse("3"), CallRef::Index(3));
    assert_eq!(CallRef::parse(" 12 "), CallRef::Index(12));
    assert_eq!(CallRef::parse("next"), CallRef::Next);
    assert_eq!(
        CallRef::parse("ab12cd34"),
        CallRef::Entry("ab12cd34".into())
    );
    // pi's ids have 8 characters: eight digits are an id.
    assert_eq!(
        CallRef::parse("12345678"),
        CallRef::Entry("12345678".into())
    );
}

#[test]
fn the_calls_are_the_answers_on_the_active_branch_with_their_usage() {
    let a = assemble(&inputs(
        &two_calls_and_a_side_branch(),
        Some(CallRef::Index(1)),
    ));
    let ids: Vec<_> = a
        .calls
        .iter()
        .map(|c| c.entry_id.clone().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["a1", "a2"],
        "the side branch's answers are not listed"
    );
    let c = &a.calls[1];
    assert_eq!((c.index, c.line, c.on_active_branch), (2, 9, true));
    assert_eq!(c.parent_id.as_deref(), Some("u2"));
    assert_eq!(c.model_reference().as_deref(), Some("mock/m1"));
    assert_eq!(c.api.as_deref(), Some("openai-completions"));
    assert_eq!(c.stop_reason.as_deref(), Some("stop"));
    assert_eq!(c.timestamp.as_deref(), Some("2026-01-05T09:00:02.000Z"));
    assert_eq!(c.message_timestamp, Some(1767603602000.0));
    let u = c.usage.as_ref().expect("usage");
    assert_eq!(
        (
            u.input,
            u.output,
            u.cache_read,
            u.cache_write,
            u.total_tokens
        ),
        (10.0, 5.0, 3.0, 0.0, Some(18.0))
    );
    assert_eq!(
        u.cost
            .as_ref()
            .and_then(|c| c.get("total"))
            .and_then(Value::as_f64),
        Some(0.3)
    );
}

#[test]
fn a_call_by_index_is_its_branch_up_to_the_answers_parent() {
    let text = two_calls_and_a_side_branch();
    let a = assemble(&inputs(&text, Some(CallRef::Index(1))));
    assert_eq!(sent(&a), ["first question"]);
    let rc = a.call.as_ref().expect("a call");
    assert_eq!((rc.call.index, rc.chosen), (1, CallChoice::Index));
    let a = assemble(&inputs(&text, Some(CallRef::Index(2))));
    assert_eq!(
        sent(&a),
        ["first question", "first answer", "second question"]
    );
    assert!(errors(&a).is_empty(), "{:?}", a.diagnostics);
    // A prompt beside a call is not used, and said so.
    let mut both = inputs(&text, Some(CallRef::Index(1)));
    both.prompt = Some("ignored".into());
    let a = assemble(&both);
    assert_eq!(sent(&a), ["first question"]);
    assert!(a.diagnostics.iter().any(|d| d.severity == Severity::Warning
        && d.message
            == "the prompt is not used: call 1 is rebuilt as pi sent it, with no new prompt"));
}

#[test]
fn without_a_prompt_an_answer_at_the_end_gives_the_last_call() {
    let a = assemble(&inputs(&two_calls_and_a_side_branch(), None));
    let rc = a.call.as_ref().expect("the last call");
    assert_eq!(
        (rc.call.index, rc.chosen, rc.call.entry_id.as_deref()),
        (2, CallChoice::Last, Some("a2"))
    );
    assert_eq!(
        sent(&a),
        ["first question", "first answer", "second question"]
    );
    assert!(notes(&a)
        .iter()
        .any(|n| n.contains("no prompt, and the active branch ends with an answer")));
}

#[test]
fn a_prompt_gives_the_next_request() {
    let mut i = inputs(&two_calls_and_a_side_branch(), None);
    i.prompt = Some("third question".into());
    let a = assemble(&i);
    assert!(a.call.is_none());
    assert_eq!(a.calls.len(), 2);
    assert_eq!(
        sent(&a),
        [
            "first question",
            "first answer",
            "second question",
            "second answer",
            "third question"
        ]
    );
}

#[test]
fn continuing_from_an_answer_is_refused_as_pi_refuses() {
    let a = assemble(&inputs(&two_calls_and_a_side_branch(), Some(CallRef::Next)));
    assert!(a.request.is_none());
    assert_eq!(
        errors(&a),
        ["pi would fail here: Error: Cannot continue from message role: assistant (no prompt: pi's continue; --prompt gives the next request, --call a past one)"]
    );
    // After tool results (here: a user message) the continue is sent.
    let text = session(&[user("u1", None, "question")]);
    let a = assemble(&inputs(&text, None));
    assert!(a.call.is_none());
    assert_eq!(sent(&a), ["question"]);
    // An empty session has nothing to continue from.
    let a = assemble(&inputs(&session(&[]), None));
    assert!(a.request.is_none());
    assert!(errors(&a)[0].starts_with("pi would fail here: Error: No messages to continue from"));
}

#[test]
fn an_index_out_of_range_is_a_clear_diagnostic() {
    let text = two_calls_and_a_side_branch();
    for (k, want) in [
        (
            3,
            "call 3: the active branch has 2 model calls (calls 1 to 2)",
        ),
        (
            0,
            "call 0: the active branch has 2 model calls (calls 1 to 2)",
        ),
        (
            usize::MAX,
            &*format!(
                "call {}: the active branch has 2 model calls (calls 1 to 2)",
                usize::MAX
            ),
        ),
    ] {
        let a = assemble(&inputs(&text, Some(CallRef::Index(k))));
        assert!(a.request.is_none());
        assert_eq!(errors(&a), [want]);
        assert!(a.call.is_none());
        assert_eq!(a.calls.len(), 2, "the calls are still listed");
    }
    let a = assemble(&inputs(
        &session(&[user("u1", None, "q")]),
        Some(CallRef::Index(1)),
    ));
    assert_eq!(
        errors(&a),
        ["call 1: the active branch has no model calls (no assistant messages)"]
    );
    let a = assemble(&Inputs {
        call: Some(CallRef::Index(1)),
        ..Default::default()
    });
    assert!(a.request.is_none());
    assert_eq!(
        errors(&a)[0],
        "call 1: there is no session, so there is no call to rebuild"
    );
}

#[test]
fn an_entry_id_on_another_branch_rebuilds_that_branch() {
    let text = two_calls_and_a_side_branch();
    let a = assemble(&inputs(&text, Some(CallRef::Entry("a3b".into()))));
    let rc = a.call.as_ref().expect("a call");
    assert_eq!(
        (rc.call.index, rc.call.on_active_branch, rc.chosen),
        (3, false, CallChoice::Entry)
    );
    assert_eq!(
        sent(&a),
        [
            "first question",
            "first answer",
            "second question",
            "side answer",
            "side follow-up"
        ]
    );
    // The list stays the active branch's.
    assert_eq!(a.calls.len(), 2);
    assert!(notes(&a)
        .iter()
        .any(|n| n.contains("call 3 of another branch")));
    // An entry on the active branch keeps its index there.
    let a = assemble(&inputs(&text, Some(CallRef::Entry("a2".into()))));
    assert_eq!(
        a.call
            .as_ref()
            .map(|c| (c.call.index, c.call.on_active_branch)),
        Some((2, true))
    );
}

#[test]
fn an_entry_that_is_no_answer_is_a_clear_diagnostic() {
    let text = two_calls_and_a_side_branch();
    let a = assemble(&inputs(&text, Some(CallRef::Entry("u2".into()))));
    assert!(a.request.is_none());
    assert_eq!(
        errors(&a),
        ["call u2: entry u2 (line 5) is a user message, not a model call: only an assistant message answers one"]
    );
    let a = assemble(&inputs(&text, Some(CallRef::Entry("mc".into()))));
    assert_eq!(
        errors(&a),
        ["call mc: entry mc (line 2) is a model_change entry, not a model call: only an assistant message answers one"]
    );
    let a = assemble(&inputs(&text, Some(CallRef::Entry("nope".into()))));
    assert_eq!(
        errors(&a),
        ["call nope: no entry with this id in the session"]
    );
}

#[test]
fn a_call_runs_with_the_model_that_answered_it_unless_given() {
    let text = session(&[
        user("u1", None, "q1"),
        answer("a1", "u1", "r1", "m1", "stop"),
        r#"{"type":"model_change","id":"mc2","parentId":"a1","timestamp":"2026-01-05T09:00:03.000Z","provider":"mock","modelId":"m2"}"#.into(),
        user("u2", Some("mc2"), "q2"),
        answer("a2", "u2", "r2", "m2", "stop"),
    ]);
    let a = assemble(&inputs(&text, Some(CallRef::Index(1))));
    assert_eq!(body_model(&a), "m1");
    assert_eq!(a.call.as_ref().map(|c| c.model_from), Some("call"));
    let a = assemble(&inputs(&text, Some(CallRef::Index(2))));
    assert_eq!(body_model(&a), "m2");
    let mut given = inputs(&text, Some(CallRef::Index(1)));
    given.model = Some("mock/m2".into());
    let a = assemble(&given);
    assert_eq!(body_model(&a), "m2");
    assert_eq!(a.call.as_ref().map(|c| c.model_from), Some("given"));
    // 0.85 builds the prompt and tools from today's files, and says so.
    assert!(a.diagnostics.iter().any(|d| d.severity == Severity::Info
        && d.line == Some(3)
        && d.message
            .contains("does not store the system prompt or the tools")));
}

#[test]
fn a_model_pi_cannot_restore_is_said() {
    let text = session(&[
        user("u1", None, "q1"),
        answer("a1", "u1", "r1", "made-up", "stop"),
    ]);
    let a = assemble(&inputs(&text, Some(CallRef::Index(1))));
    assert!(
        a.diagnostics.iter().any(|d| d.severity == Severity::Warning
            && d.message.starts_with(
                "call 1: the model that answered it, mock/made-up, is not one pi can restore"
            )),
        "{:?}",
        a.diagnostics
    );
}

#[test]
fn a_call_after_a_compaction_starts_with_its_summary() {
    let text = session(&[
        user("u1", None, "old question"),
        answer("a1", "u1", "old answer", "m1", "stop"),
        r#"{"type":"compaction","id":"c1","parentId":"a1","timestamp":"2026-01-05T09:00:03.000Z","summary":"SUMMARY","firstKeptEntryId":"u2","tokensBefore":10}"#.into(),
        user("u2", Some("c1"), "new question"),
        answer("a2", "u2", "new answer", "m1", "stop"),
    ]);
    let a = assemble(&inputs(&text, Some(CallRef::Index(2))));
    let got = sent(&a);
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(got[0].contains("SUMMARY"), "{got:?}");
    assert_eq!(got[1], "new question");
    // The call before the compaction carries the whole history it had.
    let a = assemble(&inputs(&text, Some(CallRef::Index(1))));
    assert_eq!(sent(&a), ["old question"]);
}

#[test]
fn errored_and_aborted_answers_are_calls_and_a_retry_drops_the_failed_one() {
    let text = session(&[
        user("u1", None, "q1"),
        answer("e1", "u1", "", "m1", "error"),
        answer("a1", "e1", "r1", "m1", "stop"),
        user("u2", Some("a1"), "q2"),
        answer("x2", "u2", "partial", "m1", "aborted"),
    ]);
    let a = assemble(&inputs(&text, Some(CallRef::Index(2))));
    assert_eq!(a.calls.len(), 3);
    assert_eq!(a.calls[0].error_message.as_deref(), Some("overloaded"));
    assert_eq!(a.calls[2].stop_reason.as_deref(), Some("aborted"));
    // The retry (call 2) was sent without the failed answer: the same request as call 1.
    let rc = a.call.as_ref().unwrap();
    assert_eq!(rc.retried, ["e1"]);
    let first = assemble(&inputs(&text, Some(CallRef::Index(1))));
    assert_eq!(a.body(), first.body());
    assert!(notes(&first)
        .iter()
        .any(|n| n.contains("pi recorded this call as failed (stopReason error): overloaded")));
    // From 0.87 a stored context_edit omits the attempt; the branch as stored is the context.
    let mut newer = inputs(&text, Some(CallRef::Index(2)));
    newer.pi = Some(PiVersion::V1_6_0);
    let b = assemble(&newer);
    assert!(b.call.as_ref().unwrap().retried.is_empty());
}

#[test]
fn pi_1_6_records_the_level_on_the_answer() {
    let text = session(&[
        r#"{"type":"thinking_level_change","id":"t0","parentId":null,"timestamp":"2026-01-05T09:00:00.100Z","thinkingLevel":"low"}"#.into(),
        user("u1", Some("t0"), "q1"),
        answer("a1", "u1", "r1", "m1", "stop").replace(r#""stopReason""#, r#""thinkingLevel":"high","stopReason""#),
    ]);
    let mut i = inputs(&text, Some(CallRef::Index(1)));
    i.pi = Some(PiVersion::V1_6_0);
    let a = assemble(&i);
    assert_eq!(a.call.as_ref().map(|c| c.thinking_from), Some("call"));
    assert_eq!(a.parts.model_choice.thinking_level, "high");
    // 0.85 records none: the branch's last thinking_level_change.
    let text = text.replace(r#""thinkingLevel":"high","#, "");
    let a = assemble(&inputs(&text, Some(CallRef::Index(1))));
    assert_eq!(a.call.as_ref().map(|c| c.thinking_from), Some("session"));
    assert_eq!(a.parts.model_choice.thinking_level, "low");
}

#[test]
fn a_run_appended_after_an_entry_without_an_id_carries_that_entrys_branch() {
    // pi's leafId was undefined (the last entry had no id): the run's entries have no
    // parentId member, but pi's context then was the old branch.
    let text = session(&[
        user("u1", None, "old question"),
        answer("a1", "u1", "old answer", "m1", "stop"),
        r#"{"type":"custom","parentId":"a1","timestamp":"2026-01-05T09:00:03.000Z","customType":"state","data":{}}"#.into(),
        r#"{"type":"message","id":"u2","timestamp":"2026-01-05T09:00:04.000Z","message":{"role":"user","content":[{"type":"text","text":"new question"}],"timestamp":3}}"#.into(),
        answer("a2", "u2", "new answer", "m1", "stop"),
    ]);
    let a = assemble(&inputs(&text, Some(CallRef::Entry("a2".into()))));
    assert_eq!(sent(&a), ["old question", "old answer", "new question"]);
    assert!(
        a.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Info
                && d.message.starts_with("entry u2 has no parentId"))
    );
    // Read now, pi's active branch starts at u2: one call.
    assert_eq!(a.calls.len(), 1);
}

#[test]
fn a_virtual_models_answer_sent_no_request() {
    let text = session(&[
        user("u1", None, "q1"),
        answer("v1", "u1", "", "auto", "error").replace(
            r#""api":"openai-completions","provider":"mock""#,
            r#""api":"pi-virtual","provider":"router""#,
        ),
    ]);
    let mut i = inputs(&text, None);
    i.pi = Some(PiVersion::V1_6_0);
    let a = assemble(&i);
    assert!(a.request.is_none());
    assert_eq!(a.call.as_ref().map(|c| c.call.index), Some(1));
    assert_eq!(
        errors(&a),
        ["call 1: pi sent no request for it: its answer names the virtual model router/auto (api pi-virtual), which pi could not route to a provider (overloaded)"]
    );
}

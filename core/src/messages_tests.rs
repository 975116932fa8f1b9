use super::*;
use crate::js::parse;
use crate::testcase::pi;
use crate::tools::{ToolDef, ToolSource};

fn v(json: &str) -> Value {
    parse(json).expect("test JSON")
}

fn model(json: &str) -> Model {
    match v(json) {
        Value::Object(obj) => Model { obj },
        _ => panic!("model JSON must be an object"),
    }
}

fn text_model() -> Model {
    model(
        r#"{"id":"m","name":"M","api":"openai-completions","provider":"p","baseUrl":"http://x","reasoning":true,"input":["text"],"contextWindow":100000,"maxTokens":32000}"#,
    )
}

fn vision_model() -> Model {
    model(
        r#"{"id":"m","name":"M","api":"openai-completions","provider":"p","baseUrl":"http://x","reasoning":true,"input":["text","image"],"contextWindow":100000,"maxTokens":32000}"#,
    )
}

fn json(values: &[Value]) -> String {
    Value::Array(values.to_vec()).to_json()
}

// --- convertToLlm ---------------------------------------------------------------------------

#[test]
fn bash_execution_text_variants() {
    let m = v(
        r#"{"role":"bashExecution","command":"ls","output":"a\nb","exitCode":2,"truncated":true,"fullOutputPath":"/tmp/o","timestamp":5}"#,
    );
    assert_eq!(
        bash_execution_to_text(&pi(), &m),
        "Ran `ls`\n```\na\nb\n```\n\nCommand exited with code 2\n\n[Output truncated. Full output: /tmp/o]"
    );
    let m =
        v(r#"{"role":"bashExecution","command":"x","output":"","cancelled":true,"exitCode":1}"#);
    assert_eq!(
        bash_execution_to_text(&pi(), &m),
        "Ran `x`\n(no output)\n\n(command cancelled)"
    );
    let m = v(r#"{"role":"bashExecution","output":"o","exitCode":0,"truncated":true}"#);
    assert_eq!(
        bash_execution_to_text(&pi(), &m),
        "Ran `undefined`\n```\no\n```"
    );
    let m = v(r#"{"role":"bashExecution","command":"y","exitCode":null}"#);
    assert_eq!(bash_execution_to_text(&pi(), &m), "Ran `y`\n(no output)");
}

#[test]
fn convert_to_llm_wrappers() {
    let msgs = vec![
        v(
            r#"{"role":"bashExecution","command":"ls","output":"x","exitCode":0,"timestamp":1,"excludeFromContext":true}"#,
        ),
        v(r#"{"role":"bashExecution","command":"ls","output":"x","exitCode":0,"timestamp":1}"#),
        v(
            r#"{"role":"custom","customType":"k","content":"hi","display":true,"details":{"a":1},"timestamp":2}"#,
        ),
        v(
            r#"{"role":"custom","customType":"k","content":[{"type":"text","text":"arr"}],"timestamp":3}"#,
        ),
        v(r#"{"role":"branchSummary","summary":"S","fromId":"a","timestamp":4}"#),
        v(r#"{"role":"compactionSummary","summary":"C","tokensBefore":9,"timestamp":5}"#),
        v(r#"{"role":"compactionSummary","tokensBefore":9,"timestamp":6}"#),
        v(r#"{"role":"user","content":"u","timestamp":7,"extra":1}"#),
        v(r#"{"role":"weird"}"#),
        v("42"),
    ];
    let mut ev = Events::default();
    let out = convert_to_llm(&pi(), &msgs, false, &mut ev);
    assert_eq!(
        json(&out),
        concat!(
            r#"[{"role":"user","content":[{"type":"text","text":"Ran `ls`\n```\nx\n```"}],"timestamp":1},"#,
            r#"{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":2},"#,
            r#"{"role":"user","content":[{"type":"text","text":"arr"}],"timestamp":3},"#,
            r#"{"role":"user","content":[{"type":"text","text":"The following is a summary of a branch that this conversation came back from:\n\n<summary>\nS</summary>"}],"timestamp":4},"#,
            r#"{"role":"user","content":[{"type":"text","text":"The conversation history before this point was compacted into the following summary:\n\n<summary>\nC\n</summary>"}],"timestamp":5},"#,
            r#"{"role":"user","content":[{"type":"text","text":"The conversation history before this point was compacted into the following summary:\n\n<summary>\nundefined\n</summary>"}],"timestamp":6},"#,
            r#"{"role":"user","content":"u","timestamp":7,"extra":1}]"#
        )
    );
    assert_eq!(
        ev.iter().filter(|e| e.kind == EventKind::Dropped).count(),
        3
    );
    assert_eq!(
        ev.iter().filter(|e| e.kind == EventKind::Converted).count(),
        6
    );
}

#[test]
fn block_images_replaces_and_collapses() {
    let msgs = vec![
        v(
            r#"{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","data":"x","mimeType":"image/png"},{"type":"image","data":"y","mimeType":"image/png"},{"type":"text","text":"b"}],"timestamp":1}"#,
        ),
        v(
            r#"{"role":"toolResult","toolCallId":"t","content":[{"type":"image","data":"x"}],"timestamp":2}"#,
        ),
        v(
            r#"{"role":"user","content":[{"type":"text","text":"Image reading is disabled."},{"type":"text","text":"Image reading is disabled."}],"timestamp":3}"#,
        ),
        v(r#"{"role":"assistant","content":[{"type":"image"}]}"#),
    ];
    let mut ev = Events::default();
    let out = convert_to_llm(&pi(), &msgs, true, &mut ev);
    assert_eq!(
        json(&out),
        concat!(
            r#"[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"Image reading is disabled."},{"type":"text","text":"b"}],"timestamp":1},"#,
            r#"{"role":"toolResult","toolCallId":"t","content":[{"type":"text","text":"Image reading is disabled."}],"timestamp":2},"#,
            // No image: untouched, duplicates stay.
            r#"{"role":"user","content":[{"type":"text","text":"Image reading is disabled."},{"type":"text","text":"Image reading is disabled."}],"timestamp":3},"#,
            r#"{"role":"assistant","content":[{"type":"image"}]}]"#
        )
    );
    assert_eq!(
        ev.iter().filter(|e| e.kind == EventKind::Replaced).count(),
        2
    );
}

// --- transformMessages ----------------------------------------------------------------------

#[test]
fn image_downgrade_collapses_runs_and_existing_placeholder() {
    let msgs = vec![
        v(
            r#"{"role":"user","content":[{"type":"image"},{"type":"image"},{"type":"text","text":"t"},{"type":"image"}],"timestamp":1}"#,
        ),
        v(
            r#"{"role":"user","content":[{"type":"text","text":"(image omitted: model does not support images)"},{"type":"image"}],"timestamp":1}"#,
        ),
        v(r#"{"role":"user","content":"plain","timestamp":1}"#),
        v(
            r#"{"role":"toolResult","toolCallId":"a","content":[{"type":"text","text":"x"},{"type":"image"},{"type":"image"}],"timestamp":1}"#,
        ),
    ];
    let mut ev = Events::default();
    let out = transform_messages(&pi(), &msgs, &text_model(), None, 0.0, &mut ev);
    assert_eq!(
        json(&out),
        concat!(
            r#"[{"role":"user","content":[{"type":"text","text":"(image omitted: model does not support images)"},{"type":"text","text":"t"},{"type":"text","text":"(image omitted: model does not support images)"}],"timestamp":1},"#,
            r#"{"role":"user","content":[{"type":"text","text":"(image omitted: model does not support images)"}],"timestamp":1},"#,
            r#"{"role":"user","content":"plain","timestamp":1},"#,
            r#"{"role":"toolResult","toolCallId":"a","content":[{"type":"text","text":"x"},{"type":"text","text":"(tool image omitted: model does not support images)"}],"timestamp":1}]"#
        )
    );
    assert!(ev.iter().all(|e| e
        .pi_source
        .is_some_and(|s| s.contains("transform-messages"))));
    // A vision model keeps images.
    let out = transform_messages(
        &pi(),
        &msgs,
        &vision_model(),
        None,
        0.0,
        &mut Events::default(),
    );
    assert_eq!(json(&out), json(&msgs));
}

#[test]
fn null_content_becomes_empty_array_in_place() {
    let msgs = vec![
        v(r#"{"role":"user","content":null,"timestamp":1}"#),
        v(r#"{"role":"toolResult","toolCallId":"x","timestamp":1}"#),
    ];
    let out = transform_messages(
        &pi(),
        &msgs,
        &vision_model(),
        None,
        0.0,
        &mut Events::default(),
    );
    assert_eq!(
        json(&out),
        r#"[{"role":"user","content":[],"timestamp":1},{"role":"toolResult","toolCallId":"x","timestamp":1,"content":[]}]"#
    );
}

fn assistant(provider: &str, model_id: &str, content: &str, stop: &str) -> Value {
    v(&format!(
        r#"{{"role":"assistant","content":{content},"api":"openai-completions","provider":"{provider}","model":"{model_id}","stopReason":"{stop}","timestamp":1}}"#
    ))
}

const THINKING_BLOCKS: &str = r#"[
  {"type":"thinking","thinking":"secret","thinkingSignature":"sig","redacted":true},
  {"type":"thinking","thinking":"","thinkingSignature":"sig2"},
  {"type":"thinking","thinking":"  \n"},
  {"type":"thinking","thinking":"plan"},
  {"type":"text","text":"hello","textSignature":"ts"},
  {"type":"toolCall","id":"call|1","name":"read","arguments":{"path":"a"},"thoughtSignature":"th"}
]"#;

#[test]
fn same_model_keeps_thinking_signatures_and_ids() {
    let msgs = vec![
        assistant("p", "m", THINKING_BLOCKS, "toolUse"),
        v(
            r#"{"role":"toolResult","toolCallId":"call|1","toolName":"read","content":[],"timestamp":2}"#,
        ),
    ];
    let norm = |id: &str, _: &Model, _: &Value| id.replace('|', "_");
    let out = transform_messages(
        &pi(),
        &msgs,
        &text_model(),
        Some(&norm),
        0.0,
        &mut Events::default(),
    );
    assert_eq!(
        out[0].get("content").unwrap().to_json(),
        r#"[{"type":"thinking","thinking":"secret","thinkingSignature":"sig","redacted":true},{"type":"thinking","thinking":"","thinkingSignature":"sig2"},{"type":"thinking","thinking":"plan"},{"type":"text","text":"hello","textSignature":"ts"},{"type":"toolCall","id":"call|1","name":"read","arguments":{"path":"a"},"thoughtSignature":"th"}]"#
    );
    assert_eq!(out[1].get_str("toolCallId"), Some("call|1"));
}

#[test]
fn cross_model_converts_thinking_and_renames_ids() {
    let msgs = vec![
        assistant("other", "x", THINKING_BLOCKS, "toolUse"),
        v(
            r#"{"role":"toolResult","toolCallId":"call|1","toolName":"read","content":[{"type":"text","text":"r"}],"isError":false,"timestamp":2}"#,
        ),
    ];
    let norm = |id: &str, _: &Model, _: &Value| id.replace('|', "_");
    let mut ev = Events::default();
    let out = transform_messages(&pi(), &msgs, &text_model(), Some(&norm), 0.0, &mut ev);
    assert_eq!(
        out[0].get("content").unwrap().to_json(),
        r#"[{"type":"text","text":"plan"},{"type":"text","text":"hello"},{"type":"toolCall","id":"call_1","name":"read","arguments":{"path":"a"}}]"#
    );
    assert_eq!(
        out[1].to_json(),
        r#"{"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[{"type":"text","text":"r"}],"isError":false,"timestamp":2}"#
    );
    assert_eq!(
        ev.iter().filter(|e| e.kind == EventKind::Renamed).count(),
        2
    );
    // Same provider+id but another api is a different model too.
    let mut other_api = assistant("p", "m", THINKING_BLOCKS, "stop");
    other_api
        .as_object_mut()
        .unwrap()
        .insert("api", Value::str("anthropic-messages"));
    let out = transform_messages(
        &pi(),
        &[other_api],
        &text_model(),
        None,
        0.0,
        &mut Events::default(),
    );
    assert_eq!(out[0].get("content").unwrap().as_array().unwrap().len(), 3);
}

#[test]
fn errored_turns_and_orphans() {
    let msgs = vec![
        v(r#"{"role":"user","content":"go","timestamp":1}"#),
        assistant(
            "p",
            "m",
            r#"[{"type":"toolCall","id":"a","name":"read","arguments":{}},{"type":"toolCall","id":"b","name":"bash","arguments":{}}]"#,
            "toolUse",
        ),
        v(r#"{"role":"toolResult","toolCallId":"a","toolName":"read","content":[],"timestamp":2}"#),
        // An errored turn: flushes the orphan "b" first, then is dropped; its result stays.
        assistant(
            "p",
            "m",
            r#"[{"type":"toolCall","id":"c","name":"ls","arguments":{}}]"#,
            "error",
        ),
        v(r#"{"role":"toolResult","toolCallId":"c","toolName":"ls","content":[],"timestamp":3}"#),
        assistant(
            "p",
            "m",
            r#"[{"type":"toolCall","id":"d","name":"ls"}]"#,
            "toolUse",
        ),
        v(r#"{"role":"user","content":"next","timestamp":4}"#),
        assistant(
            "p",
            "m",
            r#"[{"type":"toolCall","id":"e","name":"find","arguments":{}}]"#,
            "aborted",
        ),
        assistant(
            "p",
            "m",
            r#"[{"type":"toolCall","id":"f","name":"grep","arguments":{}}]"#,
            "toolUse",
        ),
    ];
    let mut ev = Events::default();
    let out = transform_messages(&pi(), &msgs, &text_model(), None, 123.0, &mut ev);
    let summary: Vec<String> = out
        .iter()
        .map(|m| {
            format!(
                "{}:{}",
                m.get_str("role").unwrap(),
                m.get_str("toolCallId").unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            "user:",
            "assistant:",
            "toolResult:a",
            "toolResult:b",
            "toolResult:c",
            "assistant:",
            "toolResult:d",
            "user:",
            "assistant:",
            "toolResult:f"
        ]
    );
    assert_eq!(
        out[3].to_json(),
        r#"{"role":"toolResult","toolCallId":"b","toolName":"bash","content":[{"type":"text","text":"No result provided"}],"isError":true,"timestamp":123}"#
    );
    assert_eq!(
        ev.iter().filter(|e| e.kind == EventKind::Inserted).count(),
        3
    );
    assert_eq!(
        ev.iter().filter(|e| e.kind == EventKind::Dropped).count(),
        2
    );
}

// --- estimate -------------------------------------------------------------------------------

fn tool(name: &str) -> ToolDef {
    ToolDef {
        name: name.into(),
        label: name.into(),
        description: "d".into(),
        parameters: v(r#"{"type":"object","properties":{}}"#),
        constrained_sampling: None,
        execution_mode: None,
        prompt_snippet: None,
        prompt_guidelines: None,
        source: ToolSource::Builtin,
        package: None,
    }
}

#[test]
fn estimate_without_usage_counts_everything() {
    let ctx = LlmContext::prompt(
        "12345".into(), // 2 tokens
        vec![
            v(r#"{"role":"user","content":"héllo wörld 😀","timestamp":1}"#), // 15 units → 4
            v(
                r#"{"role":"user","content":[{"type":"text","text":"abcd"},{"type":"image"}],"timestamp":2}"#,
            ), // 4804 → 1201
            assistant(
                "p",
                "m",
                r#"[{"type":"text","text":"abc"},{"type":"thinking","thinking":"de"},{"type":"toolCall","name":"read","arguments":{"a":1}}]"#,
                "stop",
            ), // 3+2+4+7=16 → 4
            v(r#"{"role":"toolResult","content":[{"type":"text","text":"xyz"}],"timestamp":3}"#), // 1
        ],
        vec![tool("read")],
    );
    let tools_len = Value::Array(vec![tool("read").agent_tool_json()])
        .to_json()
        .len() as f64;
    let expected = 2.0 + 4.0 + 1201.0 + 4.0 + 1.0 + (tools_len / 4.0).ceil();
    assert_eq!(estimate_context_tokens(&pi(), &ctx), expected);
}

#[test]
fn estimate_with_usage_uses_last_valid_assistant() {
    let mut a1 = assistant("p", "m", r#"[{"type":"text","text":"a"}]"#, "stop");
    a1.as_object_mut().unwrap().insert(
        "usage",
        v(r#"{"input":100,"output":20,"cacheRead":5,"cacheWrite":0,"totalTokens":0}"#),
    );
    a1.as_object_mut()
        .unwrap()
        .insert("timestamp", Value::Number(10.0));
    let mut a2 = assistant("p", "m", r#"[{"type":"text","text":"b"}]"#, "error");
    a2.as_object_mut()
        .unwrap()
        .insert("usage", v(r#"{"totalTokens":999}"#));
    let ctx = LlmContext::prompt(
        "ignored when usage applies".into(),
        vec![
            v(r#"{"role":"user","content":"x","timestamp":5}"#),
            a1,
            a2,
            v(
                r#"{"role":"toolResult","content":[{"type":"text","text":"12345678"}],"addedToolNames":["grep"],"timestamp":11}"#,
            ),
        ],
        vec![tool("read"), tool("grep")],
    );
    let e = estimate_context(&pi(), &ctx);
    assert_eq!(e.last_usage_index, Some(1));
    assert_eq!(e.usage_tokens, 125.0);
    let grep_len = Value::Array(vec![tool("grep").agent_tool_json()])
        .to_json()
        .len() as f64;
    // a2 "b" → 1, tool result 8 chars → 2, grep tool.
    assert_eq!(e.tokens, 125.0 + 1.0 + 2.0 + (grep_len / 4.0).ceil());
}

#[test]
fn estimate_stale_usage_and_nan_timestamps() {
    let usage = v(r#"{"input":100,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":100}"#);
    // A later-inserted prefix message (newer timestamp before the assistant) makes usage stale.
    let mut a = assistant("p", "m", r#"[{"type":"text","text":"abcd"}]"#, "stop");
    a.as_object_mut().unwrap().insert("usage", usage.clone());
    a.as_object_mut()
        .unwrap()
        .insert("timestamp", Value::Number(5.0));
    let stale = LlmContext::prompt(
        String::new(),
        vec![
            v(r#"{"role":"user","content":"abcd","timestamp":9}"#),
            a.clone(),
        ],
        vec![],
    );
    assert_eq!(estimate_context(&pi(), &stale).last_usage_index, None);
    assert_eq!(estimate_context_tokens(&pi(), &stale), 2.0);
    // A message without a timestamp makes Math.max NaN: no later assistant applies.
    let nan = LlmContext::prompt(
        String::new(),
        vec![v(r#"{"role":"user","content":"abcd"}"#), a.clone()],
        vec![],
    );
    assert_eq!(estimate_context(&pi(), &nan).last_usage_index, None);
    // An assistant without a timestamp never applies, even first.
    let mut a_no_ts = a.clone();
    a_no_ts.as_object_mut().unwrap().remove("timestamp");
    let none = LlmContext::prompt(String::new(), vec![a_no_ts], vec![]);
    assert_eq!(estimate_context(&pi(), &none).last_usage_index, None);
    // A null timestamp counts as 0.
    let mut a_null = a;
    a_null
        .as_object_mut()
        .unwrap()
        .insert("timestamp", Value::Null);
    let null = LlmContext::prompt(String::new(), vec![a_null], vec![]);
    assert_eq!(estimate_context(&pi(), &null).last_usage_index, Some(0));
}

// --- simple-options -------------------------------------------------------------------------

#[test]
fn clamp_max_tokens() {
    let ctx = LlmContext::prompt("x".repeat(4000), vec![], vec![]); // 1000 tokens
    let m = text_model(); // window 100000
    assert_eq!(
        clamp_max_tokens_to_context(&pi(), &m, &ctx, 32000.0),
        32000.0
    );
    assert_eq!(
        clamp_max_tokens_to_context(&pi(), &m, &ctx, 99000.0),
        100000.0 - 1000.0 - 4096.0
    );
    let small = model(r#"{"id":"s","contextWindow":1000,"maxTokens":500}"#);
    assert_eq!(clamp_max_tokens_to_context(&pi(), &small, &ctx, 500.0), 1.0);
    let zero = model(r#"{"id":"z","contextWindow":0}"#);
    assert_eq!(clamp_max_tokens_to_context(&pi(), &zero, &ctx, 0.0), 1.0);
    let missing = model(r#"{"id":"z"}"#);
    assert!(clamp_max_tokens_to_context(&pi(), &missing, &ctx, 10.0).is_nan());
    assert!(clamp_max_tokens_to_context(&pi(), &m, &ctx, f64::NAN).is_nan());
}

#[test]
fn thinking_budgets() {
    assert_eq!(clamp_reasoning("xhigh"), "high");
    assert_eq!(clamp_reasoning("max"), "high");
    assert_eq!(clamp_reasoning("low"), "low");
    assert_eq!(
        thinking_budget_for_level(&pi(), "minimal", None),
        Some(1024.0)
    );
    assert_eq!(thinking_budget_for_level(&pi(), "max", None), Some(16384.0));
    assert_eq!(thinking_budget_for_level(&pi(), "off", None), None);
    let custom = v(r#"{"medium":5000}"#);
    assert_eq!(
        thinking_budget_for_level(&pi(), "medium", custom.as_object()),
        Some(5000.0)
    );
    // base undefined: the model max, budget kept when it fits.
    assert_eq!(
        adjust_max_tokens_for_thinking(&pi(), None, 64000.0, "medium", None),
        (64000.0, 8192.0)
    );
    // base + budget capped by the model max.
    assert_eq!(
        adjust_max_tokens_for_thinking(&pi(), Some(1000.0), 64000.0, "high", None),
        (17384.0, 16384.0)
    );
    // maxTokens <= budget: the budget leaves 1024 for the answer.
    assert_eq!(
        adjust_max_tokens_for_thinking(&pi(), None, 8192.0, "medium", None),
        (8192.0, 7168.0)
    );
    assert_eq!(
        adjust_max_tokens_for_thinking(&pi(), None, 500.0, "minimal", None),
        (500.0, 0.0)
    );
    assert_eq!(
        clamp_thinking_budget_to_answer_room(&pi(), 4000.0, 3000.0),
        1976.0
    );
}

#[test]
fn sampling_params_merge() {
    assert_eq!(sampling_params(&text_model()), None);
    let m = model(r#"{"id":"s","samplingParams":{"top_p":0.9,"temperature":0.1}}"#);
    assert_eq!(
        Value::Object(sampling_params(&m).unwrap()).to_json(),
        r#"{"top_p":0.9,"temperature":0.1}"#
    );
}

#[test]
fn js_math() {
    assert!(js_max(f64::NEG_INFINITY, f64::NAN).is_nan());
    assert!(js_min(1.0, f64::NAN).is_nan());
    assert!(js_max(-0.0, 0.0).is_sign_positive());
    assert!(js_min(0.0, -0.0).is_sign_negative());
    assert_eq!(to_number(Some(&Value::str(" 12 "))), 12.0);
    assert_eq!(to_number(Some(&Value::str(""))), 0.0);
    assert!(to_number(Some(&Value::str("inf"))).is_nan());
    assert_eq!(to_number(Some(&Value::Null)), 0.0);
    assert!(to_number(None).is_nan());
    assert_eq!(to_js_string(Some(&v("[1,null,\"a\"]"))), "1,,a");
}

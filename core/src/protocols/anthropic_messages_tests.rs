//! Unit tests of the anthropic-messages adapter: small hand-built values, and corpus cases
//! (tests/conformance/an-*) rebuilt by hand into an `LlmContext` (system prompt taken from the
//! captured body, tools from pi's data and the case's tools.json, messages from a linear
//! session.jsonl plus the prompt) and compared byte for byte with what pi sent.

use crate::testcase::pi;

use std::collections::BTreeMap;

use ctxlens_corpus::Files;

use super::*;
use crate::js;
use crate::protocols::constrained_sampling::make_strict_json_schema;
use crate::tools::ToolSource;

/// A file of a case, as text.
fn text_in(files: &Files, rel: &str) -> Option<String> {
    files
        .get(rel)
        .map(|b| String::from_utf8_lossy(b).into_owned())
}

/// A JSON file of a case.
fn read_json(files: &Files, rel: &str) -> Option<Value> {
    js::parse(&text_in(files, rel)?).ok()
}

/// The model pi resolves for `provider/id`: a models.json custom model (provider fields merged as
/// pi's composer does for what this adapter reads) or the built-in catalog.
fn case_model(case: &Files, reference: &str) -> (Model, String) {
    let (provider, id) = reference.split_once('/').expect("provider/id");
    let models_json = read_json(case, "models.json").unwrap_or_else(Value::object);
    let prov = models_json.get("providers").and_then(|p| p.get(provider));
    let api_key = prov
        .and_then(|p| p.get_str("apiKey"))
        .unwrap_or("test-key")
        .to_string();
    let custom = prov
        .and_then(|p| p.get("models"))
        .and_then(Value::as_array)
        .and_then(|ms| ms.iter().find(|m| m.get_str("id") == Some(id)));
    let mut obj = match custom {
        Some(m) => {
            let mut o = Object::new().with("id", id).with("name", id);
            o.insert_opt("api", prov.and_then(|p| p.get("api")).cloned());
            o.insert("provider", Value::str(provider));
            o.insert(
                "baseUrl",
                prov.and_then(|p| p.get("baseUrl"))
                    .cloned()
                    .unwrap_or_else(|| Value::str("http://127.0.0.1:1/v1")),
            );
            o.spread(m.as_object().expect("model object"));
            o
        }
        None => pi()
            .data
            .catalog
            .as_array()
            .and_then(|ms| {
                ms.iter().find(|m| {
                    m.get_str("provider") == Some(provider) && m.get_str("id") == Some(id)
                })
            })
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_else(|| panic!("no model {reference}")),
    };
    if let Some(compat) = prov
        .and_then(|p| p.get("compat"))
        .and_then(Value::as_object)
    {
        let mut c = compat.clone();
        if let Some(mc) = obj.get_object("compat") {
            c.spread(mc);
        }
        obj.insert("compat", Value::Object(c));
    }
    if let Some(headers) = prov
        .and_then(|p| p.get("headers"))
        .and_then(Value::as_object)
    {
        let mut h = headers.clone();
        if let Some(mh) = obj.get_object("headers") {
            h.spread(mh);
        }
        obj.insert("headers", Value::Object(h));
    }
    (Model { obj }, api_key)
}

fn tool_def(v: &Value, experimental: bool) -> ToolDef {
    ToolDef {
        name: v.get_str("name").unwrap_or("").into(),
        label: v.get_str("label").unwrap_or("").into(),
        description: v.get_str("description").unwrap_or("").into(),
        parameters: v.get("parameters").cloned().unwrap_or(Value::Null),
        constrained_sampling: if experimental {
            v.get("experimentalConstrainedSampling").cloned()
        } else {
            None
        },
        execution_mode: None,
        prompt_snippet: None,
        prompt_guidelines: None,
        source: ToolSource::Builtin,
    }
}

fn case_tools(case: &Files, args: &[String], experimental: bool) -> Vec<ToolDef> {
    let names: Vec<String> = if args.iter().any(|a| a == "--no-tools") {
        Vec::new()
    } else if let Some(i) = args.iter().position(|a| a == "--tools") {
        args.get(i + 1)
            .map(|s| s.split(',').map(String::from).collect())
            .unwrap_or_default()
    } else {
        ["read", "bash", "edit", "write"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    };
    let extension = read_json(case, "tools.json")
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default();
    let builtin = pi().data.tools.as_array().cloned().unwrap_or_default();
    names
        .iter()
        .filter_map(|n| {
            builtin
                .iter()
                .find(|t| t.get_str("name") == Some(n))
                .map(|t| tool_def(t, experimental))
                .or_else(|| {
                    extension
                        .iter()
                        .find(|t| t.get_str("name") == Some(n))
                        .map(|t| tool_def(t, false))
                })
        })
        .collect()
}

struct Case {
    model: Model,
    ctx: LlmContext,
    opts: StreamOptions,
    expected_body: String,
    expected_headers: Vec<(String, String)>,
    expected_path: String,
}

/// Rebuilds a corpus case whose session (if any) is one linear branch of plain messages.
fn load_case(name: &str, reasoning: Option<&str>) -> Case {
    let files = ctxlens_corpus::Case::named(name).files();
    let case = &files;
    let case_json = read_json(case, "case.json").expect("case.json");
    let env_json = read_json(case, "expected/env.json").expect("env.json");
    let expected_body = text_in(case, "expected/request-1.json").expect("request-1.json");
    let body = js::parse(&expected_body).expect("body");
    let meta = read_json(case, "expected/request-1.meta.json").expect("meta");
    let (model, api_key) = case_model(case, case_json.get_str("model").expect("model"));
    let args: Vec<String> = case_json
        .get("args")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    let env: BTreeMap<String, String> = case_json
        .get("env")
        .and_then(Value::as_object)
        .map(|o| {
            o.iter()
                .filter_map(|(k, v)| v.as_str().map(|s| (k.to_string(), s.to_string())))
                .collect()
        })
        .unwrap_or_default();
    let experimental = env.get("PI_EXPERIMENTAL").is_some_and(|v| v == "1");
    let system = body
        .get("system")
        .and_then(Value::as_array)
        .and_then(|s| s.last())
        .and_then(|b| b.get_str("text"))
        .unwrap_or("");
    let system = if system == data_str(&pi(), "claudeCodeSystemPrompt") {
        ""
    } else {
        system
    };
    let mut messages: Vec<Value> = Vec::new();
    if let Some(text) = text_in(case, "session.jsonl") {
        for line in text.lines() {
            if let Ok(entry) = js::parse(line) {
                if entry.get_str("type") == Some("message") {
                    messages.push(entry.get("message").cloned().expect("message"));
                }
            }
        }
    }
    if let Some(prompt) = case_json.get_str("prompt") {
        messages.push(crate::messages::user_message(prompt, Vec::new(), 0.0));
    }
    let meta_headers = meta
        .get("headers")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let runtime = [
        "host",
        "connection",
        "content-length",
        "accept-encoding",
        "accept-language",
        "sec-fetch-mode",
    ];
    let expected_headers: Vec<(String, String)> = meta_headers
        .iter()
        .filter(|(k, _)| !k.starts_with("x-stainless-") && !runtime.contains(&k.as_str()))
        .map(|(k, v)| (k.to_string(), v.as_str().unwrap_or("").to_string()))
        .collect();
    let user_agent = meta_headers
        .get_str("user-agent")
        .filter(|u| u.starts_with("pi "))
        .unwrap_or("pi (linux; x64)")
        .to_string();
    // `reasoning` overrides the level (pi clamps it before the adapter); "off" means none.
    let level = reasoning
        .or_else(|| env_json.get_str("thinking"))
        .filter(|t| *t != "off")
        .map(String::from);
    let opts = StreamOptions {
        reasoning: level,
        session_id: env_json.get_str("sessionId").map(String::from),
        env,
        thinking_budgets: read_json(case, "agent/settings.json")
            .and_then(|s| s.get("thinkingBudgets").and_then(Value::as_object).cloned()),
        api_key,
        identity_headers: vec![("User-Agent".into(), user_agent.clone())],
        user_agent,
        headers: Vec::new(),
        switched_from: None,
    };
    Case {
        model,
        ctx: LlmContext {
            system_prompt: system.to_string(),
            messages,
            tools: case_tools(case, &args, experimental),
        },
        opts,
        expected_body,
        expected_headers,
        expected_path: meta.get_str("url").unwrap_or("").to_string(),
    }
}

fn first_diff(a: &str, b: &str) -> String {
    let pos = a
        .bytes()
        .zip(b.bytes())
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let from = pos.saturating_sub(80);
    let snip = |s: &str| {
        String::from_utf8_lossy(&s.as_bytes()[from.min(s.len())..(pos + 120).min(s.len())])
            .into_owned()
    };
    format!(
        "first difference at byte {pos}:\n  ours: …{}\n  pi's: …{}",
        snip(a),
        snip(b)
    )
}

/// Builds a corpus case and compares body, headers and URL path with the capture.
fn check_case(name: &str, reasoning: Option<&str>) -> Result<Request, String> {
    let c = load_case(name, reasoning);
    let mut events = Events::default();
    let req = build(&pi(), &c.model, &c.ctx, &c.opts, &mut events)
        .map_err(|e| format!("{name}: error {}", e.message))?;
    if req.body != c.expected_body {
        return Err(format!(
            "{name}: body differs; {}",
            first_diff(&req.body, &c.expected_body)
        ));
    }
    if req.headers != c.expected_headers {
        return Err(format!(
            "{name}: headers differ\n  ours: {:?}\n  pi's: {:?}",
            req.headers, c.expected_headers
        ));
    }
    if !req.url.ends_with(&c.expected_path) {
        return Err(format!(
            "{name}: url {} does not end with {}",
            req.url, c.expected_path
        ));
    }
    Ok(req)
}

/// Corpus cases the naive loader can rebuild (linear sessions of plain messages; the level is
/// given where pi derives it from settings, the session or a clamp).
const ADAPTER_ONLY_CASES: &[(&str, Option<&str>)] = &[
    ("an-adaptive-custom-map", None),
    ("an-adaptive-fable-fallbacks", Some("minimal")),
    ("an-adaptive-opus46-max", Some("max")),
    ("an-adaptive-sonnet46-minimal", None),
    ("an-allow-empty-signature", None),
    ("an-append-file-no-context", None),
    ("an-assistant-thinking-variants", None),
    ("an-beta-header-models-json", None),
    ("an-cache-no-tool-marker", None),
    ("an-copilot-scripted", None),
    ("an-deferred-all-tools", None),
    ("an-deferred-oauth", None),
    ("an-deferred-tools", None),
    ("an-deferred-tools-haiku", None),
    ("an-midconvo-custom-off", None),
    ("an-midconvo-opus5", None),
    ("an-no-tools", None),
    ("an-non-reasoning", None),
    ("an-oauth", None),
    ("an-oauth-tool-name-collision", None),
    ("an-scripted", None),
    ("an-session-affinity", None),
    ("an-skills", None),
    ("an-strict-experimental", None),
    ("an-strict-unsupported", None),
    ("an-system-prompt-custom", None),
    ("an-system-prompt-files", None),
    ("an-thinking-default-settings", Some("minimal")),
    ("an-thinking-off", None),
    ("an-thinking-off-clamped-up", Some("minimal")),
    ("an-thinking-off-mapnull", Some("off")),
    ("an-tool-references-dated-id", None),
    ("an-tool-results-merged", None),
    ("an-tool-schema-reorder", None),
    ("an-unicode", None),
    ("an-user-content-variants", None),
    ("an-user-string-last", None),
    ("an-whitespace-prompt-assistant-last", None),
    ("anx-deferred-image-sibling", None),
];

/// Cases that also need messages.rs (thinking budgets, the max-token clamp, transformMessages).
const BUDGET_CASES: &[(&str, Option<&str>)] = &[
    ("an-beta-fine-grained", None),
    ("an-budget-minimal-cut", None),
    ("an-budget-settings", None),
    ("an-budget-xhigh-cut", None),
    ("an-budget-zero-becomes-1024", None),
    ("an-cache-long", None),
    ("an-cache-long-unsupported", None),
    ("an-clamp-context", None),
    ("an-clamp-context-thinking", None),
    ("an-clamp-usage-base", None),
    ("an-cross-provider-history", None),
    ("an-errored-aborted-orphans", None),
    ("an-scripted-parallel", None),
    ("an-thinking-from-session", Some("high")),
    ("an-tool-results-text-only-model", None),
];

fn run_cases(cases: &[(&str, Option<&str>)]) -> Vec<String> {
    cases
        .iter()
        .filter(|(name, _)| ctxlens_corpus::Case::named(name).body(1).is_some())
        .filter_map(|(name, level)| check_case(name, *level).err())
        .collect()
}

#[test]
fn corpus_cases_of_this_adapter() {
    let failures = run_cases(ADAPTER_ONLY_CASES);
    assert!(
        failures.is_empty(),
        "{} failing:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn corpus_budget_cases() {
    let failures = run_cases(BUDGET_CASES);
    assert!(
        failures.is_empty(),
        "{} failing:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Small hand-built values
// ---------------------------------------------------------------------------------------------

fn model(json: &str) -> Model {
    Model {
        obj: js::parse(json)
            .expect("model json")
            .as_object()
            .cloned()
            .expect("object"),
    }
}

fn sonnet() -> Model {
    model(
        r#"{"id":"claude-sonnet-4-5","api":"anthropic-messages","provider":"mock","baseUrl":"http://h/v1","reasoning":true,"input":["text","image"],"contextWindow":200000,"maxTokens":64000}"#,
    )
}

fn opts() -> StreamOptions {
    StreamOptions {
        api_key: "test-key".into(),
        user_agent: "pi (test)".into(),
        ..Default::default()
    }
}

fn msg(json: &str) -> Value {
    js::parse(json).expect("message json")
}

fn body_of(m: &Model, ctx: &LlmContext, o: &StreamOptions) -> Value {
    let mut events = Events::default();
    let req = build(&pi(), m, ctx, o, &mut events).expect("request");
    js::parse(&req.body).expect("body json")
}

#[test]
fn tool_call_ids_are_normalized_in_utf16_units() {
    assert_eq!(normalize_tool_call_id("call_abc|fc_123"), "call_abc_fc_123");
    assert_eq!(normalize_tool_call_id("a😀b"), "a__b");
    let long: String = "x".repeat(70);
    assert_eq!(normalize_tool_call_id(&long).len(), 64);
}

#[test]
fn tool_reference_support_follows_the_model_id() {
    let m =
        |provider: &str, id: &str| model(&format!(r#"{{"id":"{id}","provider":"{provider}"}}"#));
    assert!(default_supports_tool_references(&m(
        "anthropic",
        "claude-sonnet-4-5"
    )));
    assert!(default_supports_tool_references(&m(
        "anthropic",
        "claude-opus-4-5-20251101"
    )));
    assert!(default_supports_tool_references(&m(
        "anthropic",
        "claude-fable-5"
    )));
    assert!(!default_supports_tool_references(&m(
        "anthropic",
        "claude-opus-4-20250514"
    )));
    assert!(!default_supports_tool_references(&m(
        "anthropic",
        "claude-opus-4-1"
    )));
    assert!(!default_supports_tool_references(&m(
        "anthropic",
        "claude-haiku-4-5"
    )));
    assert!(!default_supports_tool_references(&m(
        "mock",
        "claude-sonnet-4-5"
    )));
    assert!(!default_supports_tool_references(&m(
        "anthropic",
        "claude-opus-4-5x"
    )));
    assert!(!default_supports_tool_references(&m(
        "anthropic",
        "claude-opus-45x"
    )));
}

#[test]
fn missing_key_throws_like_pi() {
    let mut o = opts();
    o.api_key.clear();
    let e = build(
        &pi(),
        &sonnet(),
        &LlmContext::default(),
        &o,
        &mut Events::default(),
    )
    .unwrap_err();
    assert_eq!(e.message, "No API key for provider: mock");
    o.headers.push(("Authorization".into(), "Bearer x".into()));
    assert!(build(
        &pi(),
        &sonnet(),
        &LlmContext::default(),
        &o,
        &mut Events::default()
    )
    .is_ok());
}

#[test]
fn blank_user_content_is_dropped_and_string_last_gets_cache_block() {
    let ctx = LlmContext {
        system_prompt: String::new(),
        messages: vec![
            msg(r#"{"role":"user","content":"  \n"}"#),
            msg(r#"{"role":"user","content":[{"type":"text","text":" "}]}"#),
            msg(r#"{"role":"user","content":"hello"}"#),
        ],
        tools: Vec::new(),
    };
    let body = body_of(&sonnet(), &ctx, &opts());
    assert_eq!(
        body.get("messages").map(Value::to_json).as_deref(),
        Some(
            r#"[{"role":"user","content":[{"type":"text","text":"hello","cache_control":{"type":"ephemeral"}}]}]"#
        )
    );
    assert!(body.get("system").is_none());
}

#[test]
fn image_only_tool_result_gets_placeholder_and_images_keep_blocks() {
    let ctx = LlmContext {
        system_prompt: "sys".into(),
        messages: vec![
            msg(
                r#"{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read"}],"stopReason":"toolUse"}"#,
            ),
            msg(
                r#"{"role":"toolResult","toolCallId":"t1","toolName":"read","content":[{"type":"image","mimeType":"image/png","data":"AA=="}],"isError":false}"#,
            ),
        ],
        tools: Vec::new(),
    };
    let body = body_of(&sonnet(), &ctx, &opts());
    let expected = format!(
        r#"[{{"role":"assistant","content":[{{"type":"tool_use","id":"t1","name":"read","input":{{}}}}]}},{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t1","content":[{{"type":"text","text":"{}"}},{{"type":"image","source":{{"type":"base64","media_type":"image/png","data":"AA=="}}}}],"is_error":false,"cache_control":{{"type":"ephemeral"}}}}]}}]"#,
        data_str(&pi(), "imageOnlyPlaceholder")
    );
    assert_eq!(body.get("messages").map(Value::to_json), Some(expected));
}

#[test]
fn strict_schema_wraps_optional_properties() {
    let schema = msg(
        r#"{"type":"object","required":["a"],"properties":{"a":{"type":"string"},"b":{"type":"number"},"c":{"type":["string","null"]}}}"#,
    );
    let strict = make_strict_json_schema(&Strict::of(&pi()), &schema).expect("strict");
    assert_eq!(
        strict.to_json(),
        r#"{"type":"object","required":["a","b","c"],"properties":{"a":{"type":"string"},"b":{"anyOf":[{"type":"number"},{"type":"null"}]},"c":{"type":["string","null"]}},"additionalProperties":false}"#
    );
    assert!(make_strict_json_schema(
        &Strict::of(&pi()),
        &msg(r#"{"type":"object","properties":{"x":{"$ref":"x/a"}}}"#)
    )
    .is_err());
    assert!(make_strict_json_schema(
        &Strict::of(&pi()),
        &msg(r#"{"type":"object","additionalProperties":true}"#)
    )
    .is_err());
    assert!(make_strict_json_schema(
        &Strict::of(&pi()),
        &msg(r#"{"type":"object","required":["zz"],"properties":{}}"#)
    )
    .is_err());
}

#[test]
fn strict_require_without_support_is_an_error() {
    let mut tool = tool_def(
        &msg(r#"{"name":"t","description":"d","parameters":{"type":"object","properties":{}}}"#),
        false,
    );
    tool.constrained_sampling = Some(msg(r#"{"type":"json_schema","strict":"require"}"#));
    let ctx = LlmContext {
        system_prompt: String::new(),
        messages: Vec::new(),
        tools: vec![tool],
    };
    let e = build(&pi(), &sonnet(), &ctx, &opts(), &mut Events::default()).unwrap_err();
    assert!(
        e.message.contains("strict tools are unsupported"),
        "{}",
        e.message
    );
}

#[test]
fn headers_follow_the_sdk_order_and_configured_betas() {
    let m = model(
        r#"{"id":"c","api":"anthropic-messages","provider":"p","baseUrl":"http://h/","reasoning":false,"maxTokens":10,"contextWindow":0,"headers":{"X-Custom":"1","anthropic-beta":"a, b,a"}}"#,
    );
    let mut o = opts();
    o.headers.push(("x-custom".into(), "2".into()));
    let req = build(
        &pi(),
        &m,
        &LlmContext::default(),
        &o,
        &mut Events::default(),
    )
    .expect("request");
    assert_eq!(req.url, "http://h/v1/messages?beta=true");
    let names: Vec<&str> = req.headers.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        names,
        [
            "anthropic-version",
            "x-api-key",
            "user-agent",
            "accept",
            "anthropic-dangerous-direct-browser-access",
            "x-custom",
            "content-type",
            "anthropic-beta"
        ]
    );
    assert_eq!(
        req.headers
            .iter()
            .find(|(k, _)| k == "x-custom")
            .map(|(_, v)| v.as_str()),
        Some("2")
    );
    assert_eq!(req.headers.last().map(|(_, v)| v.as_str()), Some("a,b"));
    assert!(!req.body.contains("betas"));
    assert!(req.params.get("betas").is_some());
}

#[test]
fn odd_inputs_do_not_panic() {
    let ctx = LlmContext {
        system_prompt: "\u{10F800}x".into(),
        messages: vec![
            msg(r#"{"role":"assistant","content":"just a string"}"#),
            msg(r#"{"role":"user","content":42}"#),
        ],
        tools: Vec::new(),
    };
    assert!(build(&pi(), &sonnet(), &ctx, &opts(), &mut Events::default()).is_err());
    let ctx = LlmContext {
        system_prompt: "\u{10F800}x".into(),
        messages: vec![msg(
            r#"{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":7}]}"#,
        )],
        tools: vec![tool_def(
            &msg(r#"{"name":"t","description":"d","parameters":null}"#),
            false,
        )],
    };
    assert!(build(&pi(), &sonnet(), &ctx, &opts(), &mut Events::default()).is_err());
    let m = model(
        r#"{"id":"x","provider":"p","maxTokens":"lots","compat":{"allowedFallbackModels":["a"]}}"#,
    );
    let body = body_of(
        &m,
        &LlmContext {
            system_prompt: "s".into(),
            ..Default::default()
        },
        &opts(),
    );
    assert_eq!(
        body.get("fallbacks").map(Value::to_json).as_deref(),
        Some("[{}]")
    );
}

/// Every an-* case through the naive loader (linear sessions only): a report, not a check.
#[test]
#[ignore]
fn corpus_report_all() {
    for c in ctxlens_corpus::cases("an") {
        let n = c.folder().to_string();
        if !(n.starts_with("an-") || n.starts_with("anx-")) || c.body(1).is_none() {
            continue;
        }
        let level = ADAPTER_ONLY_CASES
            .iter()
            .chain(BUDGET_CASES)
            .find(|(c, _)| *c == n)
            .and_then(|(_, l)| *l);
        match std::panic::catch_unwind(|| check_case(&n, level)) {
            Ok(Ok(_)) => println!("PASS {n}"),
            Ok(Err(e)) => println!("FAIL {e}\n"),
            Err(_) => println!("PANIC {n}"),
        }
    }
}

#[test]
fn trace_records_what_the_adapter_changed() {
    let c = load_case("an-oauth", None);
    let mut events = Events::default();
    build(&pi(), &c.model, &c.ctx, &c.opts, &mut events).expect("request");
    let text: Vec<String> = events
        .iter()
        .map(|e| {
            format!(
                "{} {} @{}",
                e.kind.as_str(),
                e.message,
                e.pi_source.unwrap_or("?")
            )
        })
        .collect();
    let has = |needle: &str| text.iter().any(|t| t.contains(needle));
    assert!(has("tool_use name read → Read"), "{text:#?}");
    assert!(has("tool bash → Bash"), "{text:#?}");
    assert!(has("beta claude-code-20250219"), "{text:#?}");
    assert!(has("Claude Code identity system block"), "{text:#?}");
    assert!(has("consecutive tool results merged"), "{text:#?}");
    assert!(has("cache_control on the last text block"), "{text:#?}");
    assert!(has("thinking budget for level low"), "{text:#?}");
    assert!(events.iter().all(|e| e.pi_source.is_some()));
    if std::env::var_os("SHOW_TRACE").is_some() {
        println!("{}", text.join("\n"));
    }
}

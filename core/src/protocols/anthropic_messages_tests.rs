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
        package: None,
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
        ctx: LlmContext::prompt(
            system.to_string(),
            messages,
            case_tools(case, &args, experimental),
        ),
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
        identity_headers: vec![("User-Agent".into(), "pi (test)".into())],
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
    let ctx = LlmContext::prompt(
        String::new(),
        vec![
            msg(r#"{"role":"user","content":"  \n"}"#),
            msg(r#"{"role":"user","content":[{"type":"text","text":" "}]}"#),
            msg(r#"{"role":"user","content":"hello"}"#),
        ],
        Vec::new(),
    );
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
    let ctx = LlmContext::prompt(
        "sys".into(),
        vec![
            msg(
                r#"{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read"}],"stopReason":"toolUse"}"#,
            ),
            msg(
                r#"{"role":"toolResult","toolCallId":"t1","toolName":"read","content":[{"type":"image","mimeType":"image/png","data":"AA=="}],"isError":false}"#,
            ),
        ],
        Vec::new(),
    );
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
    let ctx = LlmContext::prompt(String::new(), Vec::new(), vec![tool]);
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
    let ctx = LlmContext::prompt(
        "\u{10F800}x".into(),
        vec![
            msg(r#"{"role":"assistant","content":"just a string"}"#),
            msg(r#"{"role":"user","content":42}"#),
        ],
        Vec::new(),
    );
    assert!(build(&pi(), &sonnet(), &ctx, &opts(), &mut Events::default()).is_err());
    let ctx = LlmContext::prompt(
        "\u{10F800}x".into(),
        vec![msg(
            r#"{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":7}]}"#,
        )],
        vec![tool_def(
            &msg(r#"{"name":"t","description":"d","parameters":null}"#),
            false,
        )],
    );
    assert!(build(&pi(), &sonnet(), &ctx, &opts(), &mut Events::default()).is_err());
    let m = model(
        r#"{"id":"x","provider":"p","maxTokens":"lots","compat":{"allowedFallbackModels":["a"]}}"#,
    );
    let body = body_of(
        &m,
        &LlmContext::prompt("s".into(), Vec::new(), Vec::new()),
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

// ---------------------------------------------------------------------------------------------
// pi 1.6.0: transcripts with system messages
// ---------------------------------------------------------------------------------------------

fn pi16() -> Pi {
    Pi::new(crate::PiVersion::V1_6_0).expect("pi 1.6.0 data")
}

/// A 1.6.0 context: the messages only (system prompt and tools live in system messages).
fn transcript(messages: &[&str]) -> LlmContext {
    LlmContext::transcript(messages.iter().map(|m| msg(m)).collect())
}

const T_READ: &str = r#"{"name":"read","description":"Read","parameters":{"type":"object","required":["path"],"properties":{"path":{"type":"string"}}},"constrainedSampling":{"type":"json_schema","strict":"prefer"}}"#;
const T_LS: &str =
    r#"{"name":"ls","description":"List","parameters":{"type":"object","properties":{}}}"#;

fn leading(tools: &[&str]) -> String {
    format!(
        r#"{{"role":"system","content":"","sections":{{"preamble":"BASE"}},"toolsAdded":[{}],"timestamp":1}}"#,
        tools.join(",")
    )
}

const USER_Q: &str = r#"{"role":"user","content":[{"type":"text","text":"q"}],"timestamp":2}"#;
const ASSISTANT_A: &str = r#"{"role":"assistant","content":[{"type":"text","text":"a"}],"api":"anthropic-messages","provider":"mock","model":"claude-sonnet-4-5","stopReason":"stop","timestamp":3}"#;

fn build16(m: &Model, ctx: &LlmContext, o: &StreamOptions) -> (Request, Value, Events) {
    let mut events = Events::default();
    let req = build(&pi16(), m, ctx, o, &mut events).expect("request");
    let body = js::parse(&req.body).expect("body json");
    (req, body, events)
}

fn header<'a>(req: &'a Request, name: &str) -> Option<&'a str> {
    req.headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

#[test]
fn strict_keyword_predicate_is_anthropics() {
    let p = pi16();
    let f = |k: &str, v: &str| is_anthropic_strict_unsupported_keyword(&p, k, &msg(v));
    assert!(f("minimum", "1"));
    assert!(f("uniqueItems", "true"));
    assert!(!f("minItems", "0"));
    assert!(!f("minItems", "1"));
    assert!(f("minItems", "2"));
    // `value !== 1`: a string is not the number.
    assert!(f("minItems", r#""1""#));
    assert!(!f("format", r#""email""#));
    assert!(f("format", r#""color""#));
    assert!(f("format", "1"));
    assert!(!f("type", r#""string""#));
}

#[test]
fn collapsed_transcript_is_one_system_block_and_current_tools() {
    // Without mid-conversation support the later system message joins the leading prompt and
    // its tool change rewrites the top-level list.
    let ctx = transcript(&[
        &leading(&[T_READ]),
        USER_Q,
        ASSISTANT_A,
        &format!(
            r#"{{"role":"system","content":"","sections":{{"addendum":"EXTRA"}},"toolsAdded":[{T_LS}],"toolsRemoved":[{{"name":"read"}}],"timestamp":4}}"#
        ),
        USER_Q,
    ]);
    let (_, body, _) = build16(&sonnet(), &ctx, &opts());
    assert_eq!(
        body.get("system").unwrap().to_json(),
        r#"[{"type":"text","text":"BASE\n\nEXTRA","cache_control":{"type":"ephemeral"}}]"#
    );
    let roles: Vec<&str> = body
        .get("messages")
        .and_then(Value::as_array)
        .unwrap()
        .iter()
        .filter_map(|m| m.get_str("role"))
        .collect();
    assert_eq!(roles, ["user", "assistant", "user"]);
    let tools = body.get("tools").and_then(Value::as_array).unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].get_str("name"), Some("ls"));
}

#[test]
fn mid_conversation_system_messages_wait_for_the_next_assistant() {
    let m = model(
        r#"{"id":"claude-sonnet-4-5","api":"anthropic-messages","provider":"mock","baseUrl":"http://h","reasoning":false,"input":["text"],"contextWindow":200000,"maxTokens":1000,"compat":{"supportsMidConvoSystemMessages":true}}"#,
    );
    let empty_assistant = r#"{"role":"assistant","content":[{"type":"text","text":"  "}],"api":"anthropic-messages","provider":"mock","model":"claude-sonnet-4-5","stopReason":"stop","timestamp":6}"#;
    let ctx = transcript(&[
        &leading(&[T_READ]),
        r#"{"role":"system","content":"NOTE","timestamp":2}"#,
        USER_Q,
        // No blocks: skipped without flushing (#11091).
        empty_assistant,
        ASSISTANT_A,
        r#"{"role":"system","content":"","sections":{"preamble":null},"timestamp":7}"#,
        // Nothing to say: no system message.
        r#"{"role":"system","content":"","timestamp":8}"#,
        USER_Q,
    ]);
    let (_, body, _) = build16(&m, &ctx, &opts());
    let messages = body.get("messages").unwrap().to_json();
    assert_eq!(
        messages,
        concat!(
            r#"[{"role":"user","content":[{"type":"text","text":"q"}]},"#,
            r#"{"role":"system","content":[{"type":"text","text":"NOTE"}]},"#,
            r#"{"role":"assistant","content":[{"type":"text","text":"a"}]},"#,
            r#"{"role":"user","content":[{"type":"text","text":"q"}]},"#,
            r#"{"role":"system","content":[{"type":"text","text":"Removed system prompt section \"preamble\".","cache_control":{"type":"ephemeral"}}]}]"#
        )
    );
    // Only the leading message is the system block; the tools are the current ones.
    assert_eq!(
        body.get("system").unwrap().to_json(),
        r#"[{"type":"text","text":"BASE","cache_control":{"type":"ephemeral"}}]"#
    );
}

#[test]
fn native_tool_changes_keep_the_initial_tools_and_add_inline() {
    let m = model(
        r#"{"id":"claude-sonnet-4-5","api":"anthropic-messages","provider":"mock","baseUrl":"http://h","reasoning":false,"input":["text"],"contextWindow":200000,"maxTokens":1000,"compat":{"supportsMidConvoSystemMessages":true,"supportsMidConvoToolChanges":true}}"#,
    );
    let read2 = T_READ.replace(r#""Read""#, r#""Read v2""#);
    let ctx = transcript(&[
        &leading(&[T_READ, T_LS]),
        USER_Q,
        ASSISTANT_A,
        // read redefined (no removal), ls removed.
        &format!(
            r#"{{"role":"system","content":"","timestamp":4,"toolsAdded":[{read2}],"toolsRemoved":[{{"name":"read"}},{{"name":"ls"}}]}}"#
        ),
        USER_Q,
    ]);
    let (req, body, _) = build16(&m, &ctx, &opts());
    let tools = body.get("tools").and_then(Value::as_array).unwrap();
    let names: Vec<&str> = tools.iter().filter_map(|t| t.get_str("name")).collect();
    assert_eq!(names, ["read", "ls", "__pi_deferred_placeholder__"]);
    // The breakpoint stays on the last real tool; the placeholder is the literal.
    assert!(tools[1].get("cache_control").is_some());
    assert_eq!(
        tools[2].to_json(),
        r#"{"name":"__pi_deferred_placeholder__","description":"Reserved placeholder. Never available. Never call this.","input_schema":{"type":"object","properties":{},"required":[]},"defer_loading":true}"#
    );
    let last = body
        .get("messages")
        .and_then(Value::as_array)
        .and_then(|m| m.last())
        .unwrap();
    assert_eq!(
        last.to_json(),
        concat!(
            r#"{"role":"system","content":[{"type":"tool_removal","tool":{"type":"tool_reference","name":"ls"}},"#,
            r#"{"type":"tool_addition","tool":{"type":"tool_definition","definition":{"name":"read","description":"Read v2","eager_input_streaming":true,"input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}},"cache_control":{"type":"ephemeral"}}]}"#
        )
    );
    assert_eq!(
        header(&req, "anthropic-beta"),
        Some("inline-tools-2026-09-15")
    );

    // No initial tools: nothing to anchor the placeholder, the current tools are sent.
    let ctx = transcript(&[
        r#"{"role":"system","content":"B","timestamp":1}"#,
        &format!(r#"{{"role":"system","content":"","timestamp":2,"toolsAdded":[{T_LS}]}}"#),
        USER_Q,
    ]);
    let (req, body, _) = build16(&m, &ctx, &opts());
    let names: Vec<&str> = body
        .get("tools")
        .and_then(Value::as_array)
        .unwrap()
        .iter()
        .filter_map(|t| t.get_str("name"))
        .collect();
    assert_eq!(names, ["ls"]);
    assert_eq!(header(&req, "anthropic-beta"), None);
}

#[test]
fn native_tool_changes_use_claude_code_names_with_oauth() {
    let m = model(
        r#"{"id":"claude-opus-4-8","api":"anthropic-messages","provider":"anthropic","baseUrl":"http://h","reasoning":false,"input":["text"],"contextWindow":200000,"maxTokens":1000,"compat":{"supportsMidConvoSystemMessages":true,"supportsMidConvoToolChanges":true}}"#,
    );
    let grep =
        r#"{"name":"grep","description":"Grep","parameters":{"type":"object","properties":{}}}"#;
    let ctx = transcript(&[
        &leading(&[T_READ]),
        USER_Q,
        &format!(
            r#"{{"role":"system","content":"","timestamp":4,"toolsAdded":[{grep}],"toolsRemoved":[{{"name":"read"}}]}}"#
        ),
    ]);
    let mut o = opts();
    o.api_key = "sk-ant-oat01-x".into();
    o.identity_headers
        .push(("X-OpenRouter-Title".into(), "pi".into()));
    let (req, body, _) = build16(&m, &ctx, &o);
    let last = body
        .get("messages")
        .and_then(Value::as_array)
        .and_then(|m| m.last())
        .unwrap()
        .to_json();
    assert!(
        last.contains(r#"{"type":"tool_removal","tool":{"type":"tool_reference","name":"Read"}}"#),
        "{last}"
    );
    assert!(last.contains(r#""definition":{"name":"Grep""#), "{last}");
    // OAuth: the Claude Code identity, none of pi's identity headers.
    assert_eq!(header(&req, "user-agent"), Some("claude-cli/2.1.322"));
    assert_eq!(header(&req, "x-openrouter-title"), None);
}

#[test]
fn error_tool_result_images_follow_the_results() {
    let png = r#"{"type":"image","data":"AAA","mimeType":"image/png"}"#;
    let call = r#"{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}},{"type":"toolCall","id":"c2","name":"read","arguments":{}}],"api":"anthropic-messages","provider":"mock","model":"claude-sonnet-4-5","stopReason":"toolUse","timestamp":3}"#;
    let r1 = format!(
        r#"{{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{{"type":"text","text":"err"}},{png},{png},{{"type":"text","text":"(image attached after the tool results)"}},{png}],"isError":true,"timestamp":4}}"#
    );
    let r2 = format!(
        r#"{{"role":"toolResult","toolCallId":"c2","toolName":"read","content":[{png}],"isError":false,"timestamp":5}}"#
    );
    let ctx = transcript(&[&leading(&[T_READ]), USER_Q, call, &r1, &r2]);
    let (_, body, _) = build16(&sonnet(), &ctx, &opts());
    let last = body
        .get("messages")
        .and_then(Value::as_array)
        .and_then(|m| m.last())
        .unwrap()
        .to_json();
    let image =
        r#"{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAA"}}"#;
    let last_image = r#"{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAA"},"cache_control":{"type":"ephemeral"}}"#;
    // Two image runs in c1 (the second absorbed by the placeholder text before it); c2 is not an
    // error and keeps its image; the caption and c1's three images come after both results.
    assert_eq!(
        last,
        [
            r#"{"role":"user","content":["#,
            r#"{"type":"tool_result","tool_use_id":"c1","content":"err\n(image attached after the tool results)\n(image attached after the tool results)","is_error":true},"#,
            r#"{"type":"tool_result","tool_use_id":"c2","content":[{"type":"text","text":"(see attached image)"},"#,
            image,
            r#"],"is_error":false},{"type":"text","text":"Images from the error result of tool call c1 (read):"},"#,
            image,
            ",",
            image,
            ",",
            last_image,
            "]}",
        ]
        .concat()
    );
    let p = pi16();
    let split = crate::messages::split_error_tool_result_images(&p, &msg(&r1))
        .unwrap()
        .unwrap();
    assert_eq!(split.images.len(), 3);
    assert_eq!(
        split.content.to_json(),
        r#"[{"type":"text","text":"err"},{"type":"text","text":"(image attached after the tool results)"},{"type":"text","text":"(image attached after the tool results)"}]"#
    );
    assert!(
        crate::messages::split_error_tool_result_images(&p, &msg(&r2))
            .unwrap()
            .is_none()
    );
    let no_name = r#"{"role":"toolResult","toolCallId":"c9","content":[{"type":"image","data":"A","mimeType":"image/png"}],"isError":true}"#;
    let split = crate::messages::split_error_tool_result_images(&p, &msg(no_name))
        .unwrap()
        .unwrap();
    assert_eq!(
        split.caption,
        "Images from the error result of tool call c9 (undefined):"
    );
}

#[test]
fn effort_models_turn_off_and_keep_the_low_top_level_effort() {
    let m = model(
        r#"{"id":"claude-opus-5","api":"anthropic-messages","provider":"anthropic","baseUrl":"http://h","reasoning":true,"input":["text"],"contextWindow":200000,"maxTokens":1000,"thinkingLevelMap":{"xhigh":"xhigh"},"compat":{"forceAdaptiveThinking":true,"supportsMidConvoEffort":true}}"#,
    );
    let history = r#"{"role":"assistant","content":[{"type":"text","text":"a"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-5","providerThinkingLevel":"medium","stopReason":"stop","timestamp":3}"#;
    let ctx = transcript(&[&leading(&[]), USER_Q, history, USER_Q]);
    // Off: disabled thinking, no markers, the effort betas still sent.
    let (req, body, _) = build16(&m, &ctx, &opts());
    assert_eq!(
        body.get("thinking").unwrap().to_json(),
        r#"{"type":"disabled"}"#
    );
    assert!(body.get("output_config").is_none());
    assert!(!body
        .to_json()
        .contains(r#""output_config":{"effort":"medium"}"#));
    assert_eq!(
        header(&req, "anthropic-beta"),
        Some("mid-conversation-output-config-2026-07-01,thinking-binding-controls-2026-08-01")
    );
    // On: top-level effort low, markers with the historical and the active level.
    let mut o = opts();
    o.reasoning = Some("xhigh".into());
    let (_, body, _) = build16(&m, &ctx, &o);
    assert_eq!(
        body.get("output_config").unwrap().to_json(),
        r#"{"effort":"low"}"#
    );
    let markers: Vec<String> = body
        .get("messages")
        .and_then(Value::as_array)
        .unwrap()
        .iter()
        .filter_map(|m| m.get("output_config").map(Value::to_json))
        .collect();
    assert_eq!(markers, [r#"{"effort":"medium"}"#, r#"{"effort":"xhigh"}"#]);
    // A map whose off is null keeps effort models on when off is asked for.
    let m_null = model(
        r#"{"id":"claude-opus-5","api":"anthropic-messages","provider":"anthropic","baseUrl":"http://h","reasoning":true,"input":["text"],"contextWindow":200000,"maxTokens":1000,"thinkingLevelMap":{"off":null},"compat":{"forceAdaptiveThinking":true,"supportsMidConvoEffort":true}}"#,
    );
    let (_, body, _) = build16(&m_null, &ctx, &opts());
    assert_eq!(
        body.get("thinking").and_then(|t| t.get_str("type")),
        Some("adaptive")
    );
}

#[test]
fn message_threads_create_on_api_anthropic_com_urls() {
    let m = |base: &str, compat: &str| {
        model(&format!(
            r#"{{"id":"c","api":"anthropic-messages","provider":"gw","baseUrl":"{base}","reasoning":false,"input":["text"],"contextWindow":200000,"maxTokens":1000{compat}}}"#
        ))
    };
    let ctx = transcript(&[&leading(&[T_READ]), USER_Q]);
    let mut o = opts();
    o.session_id = Some("sess".into());
    let (req, body, events) = build16(&m("http://127.0.0.1:1/api.anthropic.com", ""), &ctx, &o);
    assert!(
        req.body.ends_with(r#","thread":{"type":"create"}}"#),
        "{}",
        req.body
    );
    assert!(body.get("system").is_some() && body.get("tools").is_some());
    assert_eq!(
        header(&req, "anthropic-beta"),
        Some("message-threads-2026-08-12")
    );
    assert!(events
        .into_vec()
        .iter()
        .any(|e| e.message.contains("process memory")));
    // Another host: off unless the compat says so; no session: no thread and no beta.
    let (req, _, _) = build16(&m("http://127.0.0.1:1/v1", ""), &ctx, &o);
    assert!(!req.body.contains("thread"));
    let (req, _, _) = build16(
        &m(
            "http://x/v1",
            r#","compat":{"supportsMessageThreads":true}"#,
        ),
        &ctx,
        &o,
    );
    assert!(req.body.ends_with(r#""thread":{"type":"create"}}"#));
    let (req, _, _) = build16(
        &m(
            "https://api.anthropic.com",
            r#","compat":{"supportsMessageThreads":false}"#,
        ),
        &ctx,
        &o,
    );
    assert!(!req.body.contains("thread"));
    let (req, _, _) = build16(&m("https://api.anthropic.com", ""), &ctx, &opts());
    assert!(!req.body.contains("thread"));
    assert_eq!(header(&req, "anthropic-beta"), None);
}

#[test]
fn legacy_and_strict_schemas_of_1_6() {
    let m = model(
        r#"{"id":"c","api":"anthropic-messages","provider":"p","baseUrl":"http://h","reasoning":false,"input":["text"],"contextWindow":200000,"maxTokens":1000,"compat":{"supportsStrictTools":true}}"#,
    );
    let defs = r##"{"name":"d","description":"D","parameters":{"title":"T","anyOf":[{"type":"object"}],"type":"object","additionalProperties":false,"properties":{"x":{"$ref":"#/$defs/X"}},"$defs":{"X":{"type":"string"}},"definitions":{"Y":{}}},"constrainedSampling":{"type":"json_schema","strict":"prefer"}}"##;
    let min = r#"{"name":"n","description":"N","parameters":{"type":"object","title":"T","properties":{"k":{"type":"number","maximum":3}}},"constrainedSampling":{"type":"json_schema","strict":"prefer"}}"#;
    let ok = r#"{"name":"o","description":"O","parameters":{"type":"object","title":"T","properties":{"k":{"type":"array","items":{"type":"string","format":"uuid"},"minItems":1}}},"constrainedSampling":{"type":"json_schema","strict":"prefer"}}"#;
    let ctx = transcript(&[&leading(&[defs, min, ok]), USER_Q]);
    let (_, body, _) = build16(&m, &ctx, &opts());
    let tools = body.get("tools").and_then(Value::as_array).unwrap();
    // $defs: not strict; the legacy schema keeps additionalProperties, $defs, definitions.
    assert_eq!(
        tools[0].get("input_schema").unwrap().to_json(),
        r##"{"type":"object","properties":{"x":{"$ref":"#/$defs/X"}},"required":[],"additionalProperties":false,"$defs":{"X":{"type":"string"}},"definitions":{"Y":{}}}"##
    );
    assert!(tools[0].get("strict").is_none());
    // maximum: Anthropic's keyword test sends it non-strict (title dropped).
    assert!(tools[1].get("strict").is_none());
    assert_eq!(
        tools[1].get("input_schema").unwrap().to_json(),
        r#"{"type":"object","properties":{"k":{"type":"number","maximum":3}},"required":[]}"#
    );
    // minItems 1 and format uuid pass: strict, the strict schema's keys first (title kept).
    assert_eq!(tools[2].get("strict"), Some(&Value::Bool(true)));
    assert_eq!(
        tools[2].get("input_schema").unwrap().to_json(),
        r#"{"type":"object","title":"T","properties":{"k":{"anyOf":[{"type":"array","items":{"type":"string","format":"uuid"},"minItems":1},{"type":"null"}]}},"required":["k"],"additionalProperties":false}"#
    );
    // 0.85.1 had neither rule.
    let old = build(
        &pi(),
        &m,
        &LlmContext::prompt(
            "S".into(),
            vec![msg(USER_Q)],
            [defs, min]
                .iter()
                .map(|t| crate::transcript::tool_from_declaration(&msg(t)))
                .collect(),
        ),
        &opts(),
        &mut Events::default(),
    )
    .unwrap();
    let old = js::parse(&old.body).unwrap();
    let old_tools = old.get("tools").and_then(Value::as_array).unwrap();
    assert_eq!(
        old_tools[0].get("input_schema").unwrap().to_json(),
        r##"{"type":"object","properties":{"x":{"$ref":"#/$defs/X"}},"required":[]}"##
    );
    assert_eq!(old_tools[1].get("strict"), Some(&Value::Bool(true)));
}

#[test]
fn openrouter_sends_x_session_id() {
    let m = model(
        r#"{"id":"anthropic/claude","api":"anthropic-messages","provider":"openrouter","baseUrl":"http://h/api","reasoning":false,"input":["text"],"contextWindow":200000,"maxTokens":1000}"#,
    );
    let ctx = transcript(&[&leading(&[]), USER_Q]);
    let mut o = opts();
    o.session_id = Some("sess".into());
    let (req, _, _) = build16(&m, &ctx, &o);
    assert_eq!(header(&req, "x-session-id"), Some("sess"));
    assert_eq!(header(&req, "x-session-affinity"), None);
    // 0.85.1: off by default.
    let req = build(
        &pi(),
        &m,
        &LlmContext::default(),
        &o,
        &mut Events::default(),
    )
    .unwrap();
    assert_eq!(header(&req, "x-session-id"), None);
    // A format other than openrouter names the header x-session-affinity.
    let m2 = model(
        r#"{"id":"c","api":"anthropic-messages","provider":"p","baseUrl":"http://h","reasoning":false,"input":["text"],"contextWindow":200000,"maxTokens":1000,"compat":{"sendSessionAffinityHeaders":true}}"#,
    );
    let (req, _, _) = build16(&m2, &ctx, &o);
    assert_eq!(header(&req, "x-session-affinity"), Some("sess"));
}

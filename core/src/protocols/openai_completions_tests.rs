//! Tests for the openai-completions adapter: small hand-built contexts, and the captured
//! `tests/conformance/oc-*` bodies rebuilt from their case files (system prompt and tools taken
//! from the captured body, so that only this adapter is under test).

use crate::testcase::pi;

use super::*;
use crate::js::parse;

fn model(json: &str) -> Model {
    match parse(json) {
        Ok(Value::Object(obj)) => Model { obj },
        other => panic!("bad model json: {other:?}"),
    }
}

fn user(text: &str) -> Value {
    parse(&format!(
        r#"{{"role":"user","content":[{{"type":"text","text":{}}}],"timestamp":1}}"#,
        Value::str(text).to_json()
    ))
    .unwrap()
}

fn tool(name: &str) -> ToolDef {
    ToolDef {
        name: name.into(),
        label: name.into(),
        description: format!("{name} tool"),
        parameters: parse(r#"{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"}},"required":["a"]}"#).unwrap(),
        constrained_sampling: None,
        execution_mode: None,
        prompt_snippet: None,
        prompt_guidelines: None,
        source: crate::tools::ToolSource::Builtin,
        package: None,
    }
}

fn opts(level: Option<&str>) -> StreamOptions {
    StreamOptions {
        reasoning: level.map(String::from),
        session_id: Some("sess-1".into()),
        api_key: "test-key".into(),
        user_agent: "pi (test)".into(),
        identity_headers: vec![("User-Agent".into(), "pi (test)".into())],
        ..Default::default()
    }
}

fn body(m: &Model, ctx: &LlmContext, o: &StreamOptions) -> Value {
    let mut ev = Events::default();
    build(&pi(), m, ctx, o, &mut ev).expect("build").params
}

const MOCK: &str = r#"{"id":"m","name":"m","api":"openai-completions","provider":"mock","baseUrl":"http://127.0.0.1:1/v1","reasoning":true,"input":["text"],"contextWindow":200000,"maxTokens":16384}"#;

#[test]
fn basic_body_order_and_defaults() {
    let m = model(MOCK);
    let ctx = LlmContext::prompt("SYS".into(), vec![user("hi")], vec![tool("read")]);
    let b = body(&m, &ctx, &opts(Some("low")));
    assert_eq!(
        b.to_json(),
        r#"{"model":"m","messages":[{"role":"developer","content":"SYS"},{"role":"user","content":[{"type":"text","text":"hi"}]}],"stream":true,"stream_options":{"include_usage":true},"store":false,"max_completion_tokens":16384,"tools":[{"type":"function","function":{"name":"read","description":"read tool","parameters":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"}},"required":["a"]},"strict":false}}],"reasoning_effort":"low"}"#
    );
}

#[test]
fn request_url_and_headers() {
    let m = model(MOCK);
    let ctx = LlmContext::prompt(String::new(), vec![user("hi")], vec![]);
    let mut ev = Events::default();
    let r = build(&pi(), &m, &ctx, &opts(None), &mut ev).unwrap();
    assert_eq!(r.url, "http://127.0.0.1:1/v1/chat/completions");
    let names: Vec<&str> = r.headers.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        names,
        ["accept", "authorization", "user-agent", "content-type"]
    );
    assert_eq!(r.headers[2].1, "pi (test)");
}

#[test]
fn affinity_headers_and_model_header_override() {
    let m = model(
        r#"{"id":"m","api":"openai-completions","provider":"mock","baseUrl":"http://x/v1/","reasoning":false,"input":["text"],"maxTokens":100,"contextWindow":0,"headers":{"X-Extra":"1","user-agent":"custom"},"compat":{"sendSessionAffinityHeaders":true}}"#,
    );
    let ctx = LlmContext::prompt(String::new(), vec![user("hi")], vec![]);
    let mut ev = Events::default();
    let r = build(&pi(), &m, &ctx, &opts(None), &mut ev).unwrap();
    assert_eq!(r.url, "http://x/v1/chat/completions");
    let got: Vec<(&str, &str)> = r
        .headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("accept", "application/json"),
            ("authorization", "Bearer <redacted>"),
            ("x-extra", "1"),
            ("user-agent", "custom"),
            ("session_id", "sess-1"),
            ("x-client-request-id", "sess-1"),
            ("x-session-affinity", "sess-1"),
            ("content-type", "application/json"),
        ]
    );
}

#[test]
fn sdk_env_custom_headers_sort_default_headers() {
    let m = model(
        r#"{"id":"m","api":"openai-completions","provider":"mock","baseUrl":"http://x/v1","reasoning":false,"input":["text"],"maxTokens":100,"contextWindow":0,"headers":{"zeta":"1","Alpha":"2"}}"#,
    );
    let ctx = LlmContext::prompt(String::new(), vec![user("hi")], vec![]);
    let mut o = opts(None);
    o.env.insert(
        "OPENAI_CUSTOM_HEADERS".into(),
        " X-Env: yes \nbad line\n".into(),
    );
    let mut ev = Events::default();
    let r = build(&pi(), &m, &ctx, &o, &mut ev).unwrap();
    let names: Vec<&str> = r.headers.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        names,
        [
            "accept",
            "authorization",
            "alpha",
            "user-agent",
            "x-env",
            "zeta",
            "content-type"
        ]
    );
}

#[test]
fn normalize_ids() {
    let m = model(MOCK);
    assert_eq!(
        normalize_tool_call_id("call_abc|fc_123", &m),
        "call_abc_fc_123"
    );
    assert_eq!(normalize_tool_call_id("call_a+b|", &m), "call_a_b");
    let long = format!("call_X|{}", "y/".repeat(40));
    let n = normalize_tool_call_id(&long, &m);
    assert_eq!(n.len(), "call_X_".len() + 8);
    assert!(n.starts_with("call_X_"));
    assert_eq!(&n[7..], &js::short_hash(&long)[..8]);
    let oa = model(r#"{"id":"g","provider":"openai","baseUrl":"","api":"openai-completions"}"#);
    assert_eq!(normalize_tool_call_id(&"z".repeat(50), &oa), "z".repeat(40));
    assert_eq!(normalize_tool_call_id(&"z".repeat(50), &m), "z".repeat(50));
    // An astral character is two UTF-16 units: two underscores.
    assert_eq!(normalize_tool_call_id("a😀|b", &m), "a___b");
}

#[test]
fn assistant_conversion_and_tool_results() {
    let m = model(
        r#"{"id":"m","api":"openai-completions","provider":"mock","baseUrl":"http://x/v1","reasoning":true,"input":["text","image"],"maxTokens":100,"contextWindow":0,"compat":{"requiresAssistantAfterToolResult":true,"requiresToolResultName":true}}"#,
    );
    let msgs = vec![
        user("q"),
        parse(r#"{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","thinkingSignature":"reasoning_content"},{"type":"text","text":"A"},{"type":"text","text":"  "},{"type":"text","text":"B"},{"type":"toolCall","id":"c1","name":"read","arguments":{"a":"x"}}],"provider":"mock","api":"openai-completions","model":"m","stopReason":"toolUse"}"#).unwrap(),
        parse(r#"{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"image","mimeType":"image/png","data":"AAA"}],"isError":false}"#).unwrap(),
        parse(r#"{"role":"toolResult","toolCallId":"c2","toolName":"read","content":[],"isError":false}"#).unwrap(),
        parse(r#"{"role":"assistant","content":[],"stopReason":"stop"}"#).unwrap(),
        user("next"),
    ];
    let ctx = LlmContext::prompt(String::new(), msgs, vec![]);
    let b = body(&m, &ctx, &opts(None));
    let got = b.get("messages").unwrap().to_json();
    assert_eq!(
        got,
        concat!(
            r#"[{"role":"user","content":[{"type":"text","text":"q"}]},"#,
            r#"{"role":"assistant","content":"AB","reasoning_content":"hmm","tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"a\":\"x\"}"}}]},"#,
            r#"{"role":"tool","content":"(see attached image)","tool_call_id":"c1","name":"read"},"#,
            r#"{"role":"tool","content":"(no tool output)","tool_call_id":"c2","name":"read"},"#,
            r#"{"role":"assistant","content":"I have processed the tool results."},"#,
            r#"{"role":"user","content":[{"type":"text","text":"Attached image(s) from tool result:"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAA"}}]},"#,
            r#"{"role":"user","content":[{"type":"text","text":"next"}]}]"#
        )
    );
    // Tool history without active tools.
    assert_eq!(b.get("tools").unwrap().to_json(), "[]");
}

#[test]
fn strict_schema() {
    let schema = parse(r#"{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"},"c":{"type":["string","null"]}},"required":["a"]}"#).unwrap();
    let strict = make_strict_json_schema(&Strict::of(&pi()), &schema).unwrap();
    assert_eq!(
        strict.to_json(),
        r#"{"type":"object","properties":{"a":{"type":"string"},"b":{"anyOf":[{"type":"number"},{"type":"null"}]},"c":{"type":["string","null"]}},"required":["a","b","c"],"additionalProperties":false}"#
    );
    assert!(make_strict_json_schema(
        &Strict::of(&pi()),
        &parse(r#"{"type":"object","properties":{"x":{"$ref":"x"}}}"#).unwrap()
    )
    .is_err());
    assert!(make_strict_json_schema(
        &Strict::of(&pi()),
        &parse(r#"{"type":"object","additionalProperties":true}"#).unwrap()
    )
    .is_err());
    assert!(make_strict_json_schema(&Strict::of(&pi()), &parse(r#"true"#).unwrap()).is_err());
}

#[test]
fn grammar_tools() {
    let mut t = tool("apply");
    t.parameters =
        parse(r#"{"type":"object","properties":{"patch":{"type":"string"}},"required":["patch"]}"#)
            .unwrap();
    t.constrained_sampling = Some(
        parse(r#"{"type":"grammar","variants":{"openai_lark":"start: /.+/","openai_regex":".+"}}"#)
            .unwrap(),
    );
    let m = model(
        r#"{"id":"m","api":"openai-completions","provider":"mock","baseUrl":"http://x/v1","reasoning":false,"input":["text"],"maxTokens":100,"contextWindow":0,"compat":{"supportsOpenAIGrammarTools":true}}"#,
    );
    let msgs = vec![
        user("q"),
        parse(r#"{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"apply","arguments":{"patch":"P"}}]}"#).unwrap(),
    ];
    let ctx = LlmContext::prompt(String::new(), msgs, vec![t]);
    let b = body(&m, &ctx, &opts(None));
    assert_eq!(
        b.get("tools").unwrap().to_json(),
        r#"[{"type":"custom","custom":{"name":"apply","description":"apply tool","format":{"type":"grammar","grammar":{"syntax":"lark","definition":"start: /.+/"}}}}]"#
    );
    assert_eq!(
        b.get("messages").unwrap().as_array().unwrap()[1].to_json(),
        r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"custom","custom":{"name":"apply","input":"P"}}]}"#
    );
}

#[test]
fn thinking_budget_field() {
    let m = model(
        r#"{"id":"m","api":"openai-completions","provider":"mock","baseUrl":"http://x/v1","reasoning":true,"input":["text"],"maxTokens":4096,"contextWindow":0,"compat":{"thinkingFormat":"qwen","supportsThinkingTokenBudget":true}}"#,
    );
    let ctx = LlmContext::prompt(String::new(), vec![user("q")], vec![]);
    let b = body(&m, &ctx, &opts(Some("high")));
    assert_eq!(b.get("enable_thinking"), Some(&Value::Bool(true)));
    assert_eq!(b.get("thinking_token_budget"), Some(&Value::Number(3072.0)));
}

// ---------------------------------------------------------------------------------------------
// The captured corpus
// ---------------------------------------------------------------------------------------------

struct Fixture {
    model: Model,
    ctx: LlmContext,
    opts: StreamOptions,
    expected_body: String,
    expected_headers: Vec<(String, String)>,
}

/// A file of a case, as text.
fn text_in(files: &ctxlens_corpus::Files, rel: &str) -> Option<String> {
    files
        .get(rel)
        .map(|b| String::from_utf8_lossy(b).into_owned())
}

/// A JSON file of a case.
fn read_json(files: &ctxlens_corpus::Files, rel: &str) -> Option<Value> {
    parse(&text_in(files, rel)?).ok()
}

/// `getSupportedThinkingLevels` + `clampThinkingLevel` (AI/models.js:550–580), for the fixtures
/// only (the real one lives in model.rs).
fn clamp_level(model: &Model, level: &str) -> String {
    let levels = crate::model::THINKING_LEVELS;
    let map = model.thinking_level_map();
    let supported = |l: &str| {
        if !model.reasoning() {
            return l == "off";
        }
        let v = map.and_then(|m| m.get(l));
        if l == "xhigh" || l == "max" {
            return v.is_some_and(|v| !v.is_null());
        }
        v != Some(&Value::Null)
    };
    if supported(level) {
        return level.into();
    }
    let i = levels.iter().position(|l| *l == level).unwrap_or(0);
    levels[i..]
        .iter()
        .chain(levels[..i].iter().rev())
        .find(|l| supported(l))
        .map(|l| l.to_string())
        .unwrap_or_else(|| level.into())
}

/// Rebuilds the adapter's inputs from a captured case. `None` when the case needs stages this
/// test cannot stand in for (custom messages, compactions, attachments).
fn fixture(dir: &ctxlens_corpus::Files) -> Option<Fixture> {
    let case = read_json(dir, "case.json")?;
    let models = read_json(dir, "models.json")?;
    let env = read_json(dir, "expected/env.json")?;
    let expected_body = text_in(dir, "expected/request-1.json")?;
    let expected = parse(&expected_body).ok()?;
    let meta = read_json(dir, "expected/request-1.meta.json")?;
    let has_attachments = case.get("args").and_then(Value::as_array).is_some_and(|a| {
        a.iter()
            .any(|x| x.as_str().is_some_and(|s| s.starts_with('@')))
    });
    let (provider_id, model_id) = case.get_str("model")?.split_once('/')?;
    let provider = models.get("providers")?.get(provider_id)?;
    let m = provider
        .get("models")?
        .as_array()?
        .iter()
        .find(|m| m.get_str("id") == Some(model_id))?;
    let mut obj = Object::new().with("id", model_id).with(
        "name",
        m.get("name").cloned().unwrap_or(Value::str(model_id)),
    );
    obj.insert("api", m.get("api").or(provider.get("api")).cloned()?);
    obj.insert("provider", Value::str(provider_id));
    obj.insert("baseUrl", Value::str("http://127.0.0.1:1/v1"));
    obj.insert(
        "reasoning",
        m.get("reasoning").cloned().unwrap_or(Value::Bool(false)),
    );
    obj.insert_opt("thinkingLevelMap", m.get("thinkingLevelMap").cloned());
    obj.insert(
        "input",
        m.get("input")
            .cloned()
            .unwrap_or_else(|| parse(r#"["text"]"#).unwrap()),
    );
    obj.insert(
        "contextWindow",
        m.get("contextWindow")
            .cloned()
            .unwrap_or(Value::Number(128000.0)),
    );
    obj.insert(
        "maxTokens",
        m.get("maxTokens")
            .cloned()
            .unwrap_or(Value::Number(16384.0)),
    );
    obj.insert_opt("samplingParams", m.get("samplingParams").cloned());
    obj.insert_opt("headers", m.get("headers").cloned());
    let mut compat = provider.get("compat").and_then(Value::as_object).cloned();
    if let Some(mc) = m.get("compat").and_then(Value::as_object) {
        compat.get_or_insert_with(Object::new).spread(mc);
    }
    obj.insert_opt("compat", compat.map(Value::Object));
    let model = Model { obj };

    // The system prompt and tools as pi sent them.
    let body_msgs = expected.get("messages")?.as_array()?;
    let first = &body_msgs[0];
    let system_prompt = match first.get_str("role") {
        Some("system") | Some("developer") if first.get("content").is_some() => {
            match first.get("content")? {
                Value::String(s) => s.as_str().to_owned(),
                Value::Array(a) => a[0].get_str("text")?.to_string(),
                _ => return None,
            }
        }
        _ => String::new(),
    };
    let mut tool_values: Vec<Value> = expected
        .get("tools")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for msg in body_msgs.iter().filter(|m| m.get("tools").is_some()) {
        tool_values.extend(msg.get("tools")?.as_array()?.iter().cloned());
    }
    let mut tools = Vec::new();
    for t in &tool_values {
        let f = t.get("function")?;
        let mut d = tool("x");
        d.name = f.get_str("name")?.into();
        d.description = f.get_str("description")?.into();
        d.parameters = f.get("parameters")?.clone();
        if f.get("strict") == Some(&Value::Bool(true))
            || case.get("env").and_then(|e| e.get_str("PI_EXPERIMENTAL")) == Some("1")
        {
            // The built-in tool's own schema and its experimental constrained sampling.
            if let Some(builtin) = pi()
                .data
                .tools
                .as_array()?
                .iter()
                .find(|b| b.get_str("name") == Some(d.name.as_str()))
            {
                d.parameters = builtin.get("parameters")?.clone();
                d.constrained_sampling = builtin.get("experimentalConstrainedSampling").cloned();
            }
        }
        tools.push(d);
    }

    // The session branch (linear), then this turn's prompt.
    let mut messages = Vec::new();
    if let Some(text) = text_in(dir, "session.jsonl") {
        let entries: Vec<Value> = text.lines().filter_map(|l| parse(l).ok()).collect();
        let mut by_id = std::collections::HashMap::new();
        for e in &entries {
            if let Some(id) = e.get_str("id") {
                by_id.insert(id.to_string(), e.clone());
            }
        }
        let mut path = Vec::new();
        let mut cur = entries
            .iter()
            .rev()
            .find(|e| e.get_str("type") != Some("session"))
            .cloned();
        while let Some(e) = cur {
            cur = e.get_str("parentId").and_then(|p| by_id.get(p)).cloned();
            path.push(e);
        }
        path.reverse();
        for e in path {
            match e.get_str("type") {
                Some("message") => {
                    let msg = e.get("message")?.clone();
                    if !matches!(
                        msg.get_str("role"),
                        Some("user") | Some("assistant") | Some("toolResult")
                    ) {
                        return None;
                    }
                    messages.push(msg);
                }
                Some("model_change")
                | Some("thinking_level_change")
                | Some("label")
                | Some("session_info") => {}
                _ => return None,
            }
        }
    }
    if let Some(prompt) = case.get_str("prompt") {
        if prompt.starts_with('/') {
            return None;
        }
        if has_attachments {
            // The attachments as pi read them: the last user message of the body, back to blocks.
            let last = body_msgs
                .iter()
                .rev()
                .find(|m| m.get_str("role") == Some("user"))?;
            let mut content = Vec::new();
            for part in last.get("content")?.as_array()? {
                match part.get_str("type")? {
                    "text" => content.push(
                        Object::new()
                            .with("type", "text")
                            .with("text", part.get_str("text")?)
                            .into(),
                    ),
                    _ => {
                        let url = part.get("image_url")?.get_str("url")?;
                        let (mime, data) = url.strip_prefix("data:")?.split_once(";base64,")?;
                        content.push(
                            Object::new()
                                .with("type", "image")
                                .with("data", data)
                                .with("mimeType", mime)
                                .into(),
                        );
                    }
                }
            }
            messages.push(
                Object::new()
                    .with("role", "user")
                    .with("content", Value::Array(content))
                    .with("timestamp", 1.0)
                    .into(),
            );
        } else {
            messages.push(user(prompt));
        }
    }

    let settings = read_json(dir, "agent/settings.json");
    let settings_level = settings.as_ref().and_then(|s| {
        s.get("modelThinkingLevels")
            .and_then(|m| m.get_str(case.get_str("model")?))
            .or_else(|| s.get_str("defaultThinkingLevel"))
    });
    let level = case
        .get_str("thinking")
        .or(settings_level)
        .unwrap_or("medium");
    let level = clamp_level(&model, level);
    let mut headers = Vec::new();
    // Provider attribution headers (CA/core/provider-attribution.js) arrive as options.headers.
    let pair = |k: &str, v: &str| (k.to_string(), v.to_string());
    match provider_id {
        "openrouter" => {
            headers = vec![
                pair("HTTP-Referer", "https://pi.dev"),
                pair("X-OpenRouter-Title", "pi"),
                pair("X-OpenRouter-Categories", "cli-agent"),
            ]
        }
        "nvidia" => headers = vec![pair("X-BILLING-INVOKE-ORIGIN", "Pi")],
        "opencode" | "opencode-go" => {
            headers = vec![
                pair("x-opencode-session", env.get_str("sessionId")?),
                pair("x-opencode-client", "pi"),
            ]
        }
        _ => {}
    }
    let mut env_vars = std::collections::BTreeMap::new();
    // (the SDK reads OPENAI_CUSTOM_HEADERS from the environment pi runs in)
    if let Some(e) = case.get("env").and_then(Value::as_object) {
        for (k, v) in e.iter() {
            env_vars.insert(k.to_string(), v.as_str()?.to_string());
        }
    }
    let raw_headers = meta.get("headers")?.as_object()?;
    let expected_headers = raw_headers
        .iter()
        .filter(|(k, _)| {
            !matches!(
                k.as_str(),
                "host"
                    | "connection"
                    | "content-length"
                    | "accept-encoding"
                    | "accept-language"
                    | "sec-fetch-mode"
            ) && !k.starts_with("x-stainless")
        })
        .map(|(k, v)| (k.to_string(), v.as_str().unwrap_or("").to_string()))
        .collect();
    let opts = StreamOptions {
        reasoning: (level != "off").then_some(level),
        session_id: env.get_str("sessionId").map(String::from),
        env: env_vars,
        thinking_budgets: settings
            .as_ref()
            .and_then(|s| s.get("thinkingBudgets"))
            .and_then(Value::as_object)
            .cloned(),
        api_key: "test-key".into(),
        user_agent: raw_headers.get_str("user-agent")?.to_string(),
        identity_headers: vec![(
            "User-Agent".into(),
            raw_headers.get_str("user-agent")?.to_string(),
        )],
        headers,
        switched_from: None,
    };
    Some(Fixture {
        model,
        ctx: LlmContext::prompt(system_prompt, messages, tools),
        opts,
        expected_body,
        expected_headers,
    })
}

fn first_difference(a: &str, b: &str) -> String {
    let pos = a
        .bytes()
        .zip(b.bytes())
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let from = pos.saturating_sub(60);
    let snip = |s: &str| {
        s.get(from..(pos + 80).min(s.len()))
            .unwrap_or("")
            .to_string()
    };
    format!(
        "at byte {pos}:\n  got:      {}\n  expected: {}",
        snip(a),
        snip(b)
    )
}

/// Every captured oc-* case this test can rebuild: reports mismatches, fails only on cases that
/// depend on nothing but this adapter.
#[test]
fn conformance_corpus() {
    let names: Vec<String> = ctxlens_corpus::cases("oc")
        .into_iter()
        .filter(|c| c.folder().starts_with("oc") && c.name.starts_with("pi-0.85.1/"))
        .map(|c| c.name)
        .collect();
    let (mut pass, mut fail, mut skipped) = (Vec::new(), Vec::new(), Vec::new());
    for name in &names {
        let Some(f) = fixture(&ctxlens_corpus::Case::named(name).files()) else {
            skipped.push(name.clone());
            continue;
        };
        let mut ev = Events::default();
        match build(&pi(), &f.model, &f.ctx, &f.opts, &mut ev) {
            Ok(r) => {
                let headers: Vec<(String, String)> = r
                    .headers
                    .iter()
                    .map(|(k, v)| {
                        (
                            k.clone(),
                            if k == "authorization" {
                                "<redacted>".into()
                            } else {
                                v.clone()
                            },
                        )
                    })
                    .collect();
                if r.body != f.expected_body {
                    fail.push(format!(
                        "{name}: body {}",
                        first_difference(&r.body, &f.expected_body)
                    ));
                } else if headers != f.expected_headers {
                    fail.push(format!(
                        "{name}: headers\n  got:      {headers:?}\n  expected: {:?}",
                        f.expected_headers
                    ));
                } else {
                    pass.push(name.clone());
                }
            }
            Err(e) => fail.push(format!("{name}: error {}", e.message)),
        }
    }
    eprintln!("passed {}: {}", pass.len(), pass.join(" "));
    eprintln!("skipped {}: {}", skipped.len(), skipped.join(" "));
    for f in &fail {
        eprintln!("FAIL {f}");
    }
    // Cases that need the message transform, the context estimate or other stages are known to
    // differ until those land; see the report printed above.
    let must_pass = [
        "oc-basic",
        "oc-think-openrouter",
        "oc-think-chat-template",
        "oc-think-baseten",
        "oc-kimi-deferred",
        "oc-cache-openrouter-anthropic-long",
        "oc-sampling-priority-gateway",
        "oc-affinity-headers",
        "ocx-bridge-env-headers",
    ];
    let broken: Vec<&String> = fail
        .iter()
        .filter(|f| must_pass.iter().any(|m| f.starts_with(&format!("{m}:"))))
        .collect();
    assert!(broken.is_empty(), "{broken:#?}");
}

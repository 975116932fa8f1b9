//! The accounting against an independent recount from the captured body: each protocol's
//! layout read here by its own paths (openai-completions as the seed article measures it: the
//! system message's text, each tool's description and `JSON.stringify(parameters)`, the text
//! of user, assistant and tool messages, the tool calls' `arguments`), without provenance.

use crate::AssemblyStats;
use std::collections::BTreeMap;

use crate::api::Api;
use crate::assemble::{assemble, Assembly};
use crate::case::inputs_from_case;
use crate::js::{utf16_len, Value};

#[derive(Debug, Default, PartialEq)]
struct Recount {
    system: usize,
    /// Tool name → (description, parameters).
    tools: BTreeMap<String, (usize, usize)>,
    user: usize,
    assistant: usize,
    reasoning: usize,
    arguments: usize,
    results: usize,
    signatures: usize,
}

thread_local! {
    /// What the recount measures a text by: its UTF-16 length, or (the token recount) a
    /// stand-in tokenizer's count.
    static MEASURE: std::cell::Cell<fn(&str) -> usize> = const { std::cell::Cell::new(utf16_len) };
}

fn measure(s: &str) -> usize {
    MEASURE.with(|m| m.get())(s)
}

fn len(v: Option<&Value>) -> usize {
    v.and_then(Value::as_str).map_or(0, measure)
}

fn json_len(v: Option<&Value>) -> usize {
    v.map_or(0, |v| measure(&v.to_json()))
}

fn arr(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array)
        .map_or(&[][..], |a| a.as_slice())
}

/// A content that is a string or text parts: its texts.
fn texts(v: Option<&Value>) -> usize {
    match v {
        Some(Value::String(s)) => measure(s),
        Some(Value::Array(a)) => a.iter().map(|p| len(p.get("text"))).sum(),
        _ => 0,
    }
}

fn tool(r: &mut Recount, name: Option<&Value>, desc: Option<&Value>, params: Option<&Value>) {
    // pi's name, whatever casing the adapter sends (Claude Code's `Read`).
    let name = name
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_ascii_lowercase();
    let e = r.tools.entry(name).or_default();
    e.0 += len(desc);
    e.1 += json_len(params);
}

fn completions(b: &Value, r: &mut Recount) {
    for m in arr(b.get("messages")) {
        // Tools declared mid-conversation (a system message with `tools`).
        for t in arr(m.get("tools")) {
            let f = t.get("function");
            tool(
                r,
                f.and_then(|f| f.get("name")),
                f.and_then(|f| f.get("description")),
                f.and_then(|f| f.get("parameters")),
            );
        }
        let c = m.get("content");
        match m.get_str("role") {
            Some("system" | "developer") => r.system += texts(c),
            Some("user") => r.user += texts(c),
            Some("tool") => r.results += texts(c),
            Some("assistant") => {
                match c {
                    Some(Value::Array(parts)) => {
                        for p in parts {
                            match p.get_str("type") {
                                // Mistral's thinking part: text chunks.
                                Some("thinking") => r.reasoning += texts(p.get("thinking")),
                                _ => r.assistant += len(p.get("text")),
                            }
                        }
                    }
                    c => r.assistant += texts(c),
                }
                for k in ["reasoning_content", "reasoning", "reasoning_text"] {
                    r.reasoning += len(m.get(k));
                }
                // OpenRouter's replayed reasoning details: their texts.
                for d in arr(m.get("reasoning_details")) {
                    r.reasoning += len(d.get("text"));
                    r.signatures += len(d.get("signature")) + len(d.get("data"));
                }
                for tc in arr(m.get("tool_calls")) {
                    let a = tc.get("function").and_then(|f| f.get("arguments"));
                    r.arguments += match a {
                        Some(Value::String(s)) => measure(s),
                        other => json_len(other),
                    };
                }
            }
            _ => {}
        }
    }
    for t in arr(b.get("tools")) {
        let f = t.get("function");
        tool(
            r,
            f.and_then(|f| f.get("name")),
            f.and_then(|f| f.get("description")),
            f.and_then(|f| f.get("parameters")),
        );
    }
}

fn anthropic(b: &Value, r: &mut Recount) {
    r.system += texts(b.get("system"));
    for m in arr(b.get("messages")) {
        let user = m.get_str("role") == Some("user");
        let c = m.get("content");
        // 0.86 on: a system message kept in place, with the native tool additions it holds.
        if m.get_str("role") == Some("system") {
            for p in arr(c) {
                r.system += len(p.get("text"));
                let d = p.get("tool").and_then(|t| t.get("definition"));
                if let Some(d) = d {
                    tool(
                        r,
                        d.get("name"),
                        d.get("description"),
                        d.get("input_schema"),
                    );
                }
            }
            if let Some(Value::String(s)) = c {
                r.system += measure(s);
            }
            continue;
        }
        if let Some(Value::String(s)) = c {
            *(if user { &mut r.user } else { &mut r.assistant }) += measure(s);
            continue;
        }
        for p in arr(c) {
            match p.get_str("type") {
                Some("text") => {
                    *(if user { &mut r.user } else { &mut r.assistant }) += len(p.get("text"))
                }
                Some("thinking") => {
                    r.reasoning += len(p.get("thinking"));
                    r.signatures += len(p.get("signature"));
                }
                Some("redacted_thinking") => r.signatures += len(p.get("data")),
                Some("tool_use") => r.arguments += json_len(p.get("input")),
                Some("tool_result") => r.results += texts(p.get("content")),
                _ => {}
            }
        }
    }
    for t in arr(b.get("tools")) {
        tool(
            r,
            t.get("name"),
            t.get("description"),
            t.get("input_schema"),
        );
    }
}

fn responses(b: &Value, r: &mut Recount) {
    r.system += len(b.get("instructions"));
    for it in arr(b.get("input")) {
        for t in arr(it.get("tools")) {
            tool(r, t.get("name"), t.get("description"), t.get("parameters"));
        }
        match (it.get_str("type"), it.get_str("role")) {
            (_, Some("system" | "developer")) => r.system += texts(it.get("content")),
            (_, Some("user")) => r.user += texts(it.get("content")),
            (_, Some("assistant")) => r.assistant += texts(it.get("content")),
            (Some("reasoning"), _) => {
                r.reasoning += texts(it.get("summary"));
                r.signatures += len(it.get("encrypted_content"));
            }
            (Some("function_call"), _) => r.arguments += len(it.get("arguments")),
            (Some("function_call_output"), _) => r.results += texts(it.get("output")),
            _ => {}
        }
    }
    for t in arr(b.get("tools")) {
        tool(r, t.get("name"), t.get("description"), t.get("parameters"));
    }
}

fn google(b: &Value, r: &mut Recount) {
    r.system += texts(b.get("systemInstruction").and_then(|s| s.get("parts")));
    for c in arr(b.get("contents")) {
        let user = c.get_str("role") == Some("user");
        for p in arr(c.get("parts")) {
            if p.get("thought").is_some_and(Value::truthy) {
                r.reasoning += len(p.get("text"));
            } else if user {
                r.user += len(p.get("text"));
            } else {
                r.assistant += len(p.get("text"));
            }
            r.signatures += len(p.get("thoughtSignature"));
            if let Some(f) = p.get("functionCall") {
                r.arguments += json_len(f.get("args"));
            }
            if let Some(Value::Object(o)) =
                p.get("functionResponse").and_then(|f| f.get("response"))
            {
                r.results += o.iter().map(|(_, v)| len(Some(v))).sum::<usize>();
            }
        }
    }
    for t in arr(b.get("tools")) {
        for d in arr(t.get("functionDeclarations")) {
            let params = d
                .get("parametersJsonSchema")
                .or_else(|| d.get("parameters"));
            tool(r, d.get("name"), d.get("description"), params);
        }
    }
}

fn bedrock(b: &Value, r: &mut Recount) {
    r.system += arr(b.get("system"))
        .iter()
        .map(|p| len(p.get("text")))
        .sum::<usize>();
    for m in arr(b.get("messages")) {
        let user = m.get_str("role") == Some("user");
        for p in arr(m.get("content")) {
            *(if user { &mut r.user } else { &mut r.assistant }) += len(p.get("text"));
            if let Some(rc) = p.get("reasoningContent") {
                let t = rc.get("reasoningText");
                r.reasoning += len(t.and_then(|t| t.get("text")));
                r.signatures += len(t.and_then(|t| t.get("signature")));
                r.signatures += len(rc.get("redactedContent"));
            }
            if let Some(u) = p.get("toolUse") {
                r.arguments += json_len(u.get("input"));
            }
            if let Some(t) = p.get("toolResult") {
                r.results += texts(t.get("content"));
            }
        }
    }
    let tools = b.get("toolConfig").and_then(|t| t.get("tools"));
    for t in arr(tools) {
        let s = t.get("toolSpec");
        tool(
            r,
            s.and_then(|s| s.get("name")),
            s.and_then(|s| s.get("description")),
            s.and_then(|s| s.get("inputSchema")),
        );
    }
}

fn pi_messages(b: &Value, r: &mut Recount) {
    let c = b.get("context");
    r.system += texts(c.and_then(|c| c.get("systemPrompt")));
    for m in arr(c.and_then(|c| c.get("messages"))) {
        let content = m.get("content");
        let role = m.get_str("role");
        // 0.86 on: a system message's sections and the tools it declares.
        if let Some(Value::Object(o)) = m.get("sections") {
            r.system += o.iter().map(|(_, v)| len(Some(v))).sum::<usize>();
        }
        for t in arr(m.get("toolsAdded")) {
            tool(r, t.get("name"), t.get("description"), t.get("parameters"));
        }
        if let Some(Value::String(s)) = content {
            match role {
                Some("system") => r.system += measure(s),
                Some("toolResult") => r.results += measure(s),
                _ => r.user += measure(s),
            }
            continue;
        }
        for p in arr(content) {
            match (role, p.get_str("type")) {
                (Some("system"), _) => r.system += len(p.get("text")),
                (Some("assistant"), Some("text")) => {
                    r.assistant += len(p.get("text"));
                    r.signatures += len(p.get("textSignature"));
                }
                (Some("toolResult"), Some("text")) => r.results += len(p.get("text")),
                (_, Some("text")) => r.user += len(p.get("text")),
                (_, Some("thinking")) => {
                    r.reasoning += len(p.get("thinking"));
                    r.signatures += len(p.get("thinkingSignature"));
                }
                (_, Some("toolCall")) => {
                    r.arguments += json_len(p.get("arguments"));
                    r.signatures += len(p.get("thoughtSignature"));
                }
                _ => {}
            }
        }
    }
    for t in arr(c.and_then(|c| c.get("tools"))) {
        tool(r, t.get("name"), t.get("description"), t.get("parameters"));
    }
}

fn recount(api: Api, body: &Value) -> Recount {
    let mut r = Recount::default();
    match api {
        Api::OpenAiCompletions | Api::MistralConversations => completions(body, &mut r),
        Api::AnthropicMessages => anthropic(body, &mut r),
        Api::OpenAiResponses | Api::AzureOpenAiResponses | Api::OpenAiCodexResponses => {
            responses(body, &mut r)
        }
        Api::GoogleGenerativeAi => google(body, &mut r),
        Api::BedrockConverseStream => bedrock(body, &mut r),
        Api::PiMessages => pi_messages(body, &mut r),
    }
    r
}

fn accounted(a: &Assembly) -> Recount {
    let s = a.stats().expect("stats");
    let k = &s.by_kind;
    Recount {
        system: s.system_prompt_chars,
        tools: s
            .by_tool
            .iter()
            .map(|t| {
                (
                    t.name.to_ascii_lowercase(),
                    (t.description_chars, t.parameters_chars),
                )
            })
            .collect(),
        user: k.user_text,
        assistant: k.assistant_text,
        reasoning: k.reasoning,
        arguments: k.tool_arguments,
        results: k.tool_results,
        signatures: k.signatures,
    }
}

fn api_of(a: &Assembly) -> Option<Api> {
    a.parts.model_choice.model.as_ref()?.api().parse().ok()
}

/// Every case of the corpus, both releases.
fn cases() -> Vec<ctxlens_corpus::Case> {
    ctxlens_corpus::cases("pi-")
}

fn assembled(case: &ctxlens_corpus::Case, api: Option<Api>) -> Option<Assembly> {
    let mut i = inputs_from_case(&case.files(), None).ok()?;
    i.api = api;
    Some(assemble(&i))
}

fn adds_up(a: &Assembly) -> Result<(), String> {
    let s = a.stats().ok_or("no stats")?;
    let sum = s.system_prompt_chars
        + s.tools_chars
        + s.history_chars
        + s.parameters_chars
        + s.structure_chars;
    let kinds = &s.by_kind;
    let history = kinds.user_text
        + kinds.assistant_text
        + kinds.reasoning
        + kinds.tool_arguments
        + kinds.tool_results
        + kinds.signatures
        + kinds.image_data;
    let tools: usize = s.by_tool.iter().map(|t| t.chars).sum();
    let messages: usize = s.by_message.iter().map(|m| m.chars).sum();
    let params: usize = s.by_parameter.iter().map(|p| p.1).sum();
    let checks = [
        ("parts", sum, s.body_chars),
        ("kinds", history, s.history_chars),
        ("messages", messages, s.history_chars),
        ("tools", tools, s.tools_chars),
        ("parameters", params, s.parameters_chars),
    ];
    for (what, got, want) in checks {
        if got != want {
            return Err(format!("{what}: {got} ≠ {want}"));
        }
    }
    Ok(())
}

#[test]
fn the_parts_add_up_to_the_body_for_every_case_and_every_protocol() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for case in cases() {
        for api in std::iter::once(None).chain(Api::ALL.into_iter().map(Some)) {
            let Some(a) = assembled(&case, api) else {
                continue;
            };
            if a.request.is_none() {
                continue;
            }
            checked += 1;
            if let Err(e) = adds_up(&a) {
                failures.push(format!("{} {:?}: {e}", case.name, api.map(Api::as_str)));
            }
            // The sums alone (what `usage` reads) are the full statistics' sums.
            let rowless = super::compute(&a).map(|mut s| {
                s.by_message.clear();
                s.by_role.clear();
                s
            });
            if super::sums(&a, None).ok().flatten() != rowless {
                let api = api.map(Api::as_str);
                failures.push(format!("{} {api:?}: the sums alone differ", case.name));
            }
        }
    }
    assert!(checked > 1000, "only {checked} requests");
    assert!(
        failures.is_empty(),
        "{} of {checked}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_accounting_matches_an_independent_recount_of_every_captured_body() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for case in cases() {
        let Some(want) = case.body(1) else { continue };
        let Some(a) = assembled(&case, None) else {
            continue;
        };
        let (Some(body), Some(api)) = (a.body(), api_of(&a)) else {
            continue;
        };
        assert_eq!(body, want, "{}: the body is the captured one", case.name);
        let Ok(parsed) = crate::js::parse(&want) else {
            continue;
        };
        checked += 1;
        let (got, want) = (accounted(&a), recount(api, &parsed));
        if got != want {
            failures.push(format!(
                "{} ({}):\n  got  {got:?}\n  want {want:?}",
                case.name,
                api.as_str()
            ));
        }
    }
    assert!(checked > 200, "only {checked} captured bodies");
    assert!(
        failures.is_empty(),
        "{} of {checked}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
#[ignore]
fn print_parts() {
    let case = ctxlens_corpus::Case::named(&std::env::var("CASE").expect("CASE"));
    let a = assembled(&case, None).expect("a case");
    println!("{:?}", accounted(&a));
    println!("{:?}", a.stats().map(|s| (&s.by_message, &s.by_kind)));
    let body = crate::js::parse(a.body().unwrap()).unwrap();
    println!("{:?}", recount(api_of(&a).unwrap(), &body));
}

/// A stand-in tokenizer for the token recount: a run of letters or digits is one token, every
/// other non-space character one token (per text, like a vocabulary; not additive over
/// concatenation either, since a run can span two texts).
fn stand_in(text: &str) -> usize {
    let mut n = 0;
    let mut in_word = false;
    for c in text.chars() {
        let word = c.is_alphanumeric();
        if word && !in_word || !word && !c.is_whitespace() {
            n += 1;
        }
        in_word = word;
    }
    n
}

pub(crate) struct StandIn;

impl crate::tokens::TokenCounter for StandIn {
    fn info(&self) -> crate::tokens::TokenizerInfo {
        crate::tokens::TokenizerInfo {
            name: "stand-in".into(),
            exact: true,
        }
    }
    fn count(&mut self, texts: &[&str]) -> Result<Vec<usize>, String> {
        Ok(texts.iter().map(|t| stand_in(t)).collect())
    }
}

fn accounted_tokens(s: &super::Stats) -> Recount {
    let k = &s.by_kind_tokens;
    Recount {
        system: s.system_prompt_tokens,
        tools: s
            .by_tool
            .iter()
            .map(|t| {
                (
                    t.name.to_ascii_lowercase(),
                    (t.description_tokens, t.parameters_tokens),
                )
            })
            .collect(),
        user: k.user_text,
        assistant: k.assistant_text,
        reasoning: k.reasoning,
        arguments: k.tool_arguments,
        results: k.tool_results,
        signatures: k.signatures,
    }
}

#[test]
fn the_token_accounting_matches_an_independent_recount_of_every_captured_body() {
    // The same recount, measuring each text by a stand-in tokenizer: each block's tokens are
    // the sum of its texts' counts, each text counted on its own, and the blocks add up.
    let mut failures = Vec::new();
    let mut checked = 0;
    for case in cases() {
        let Some(want) = case.body(1) else { continue };
        let Some(a) = assembled(&case, None) else {
            continue;
        };
        let Some(api) = api_of(&a) else { continue };
        let Ok(parsed) = crate::js::parse(&want) else {
            continue;
        };
        let s = super::compute_with_tokens(&a, &mut StandIn)
            .expect("the stand-in counts")
            .expect("stats");
        // Counting tokens changes no character count.
        assert_eq!(Some(&s.by_kind), a.stats().map(|x| &x.by_kind));
        // The sums alone (what `usage` reads), counted the same.
        let mut rowless = s.clone();
        rowless.by_message.clear();
        rowless.by_role.clear();
        assert_eq!(
            super::sums(&a, Some(&mut StandIn)).ok().flatten(),
            Some(rowless),
            "{}",
            case.name
        );
        assert_eq!(
            s.tokenizer.as_ref().map(|t| t.name.as_str()),
            Some("stand-in")
        );
        checked += 1;
        MEASURE.with(|m| m.set(stand_in));
        let mut want = recount(api, &parsed);
        MEASURE.with(|m| m.set(utf16_len));
        // Opaque signatures are not counted as tokens.
        want.signatures = 0;
        let got = accounted_tokens(&s);
        let kinds = &s.by_kind_tokens;
        let sums = [
            (
                "kinds",
                kinds.user_text
                    + kinds.assistant_text
                    + kinds.reasoning
                    + kinds.tool_arguments
                    + kinds.tool_results,
                s.history_tokens,
            ),
            (
                "messages",
                s.by_message.iter().map(|m| m.tokens).sum(),
                s.history_tokens,
            ),
            (
                "roles",
                s.by_role.iter().map(|r| r.tokens).sum(),
                s.history_tokens,
            ),
            (
                "tools",
                s.by_tool.iter().map(|t| t.tokens).sum(),
                s.tools_tokens,
            ),
        ];
        for (what, sum, total) in sums {
            if sum != total {
                failures.push(format!("{}: {what}: {sum} ≠ {total}", case.name));
            }
        }
        if got != want {
            failures.push(format!(
                "{} ({}):\n  got  {got:?}\n  want {want:?}",
                case.name,
                api.as_str()
            ));
        }
    }
    assert!(checked > 200, "only {checked} captured bodies");
    assert!(
        failures.is_empty(),
        "{} of {checked}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The seed's shape: many extension tools whose property names, property descriptions and
/// whole schemas recur across tools (and one tool's description is another's property
/// description). Each tool's description and schema count whole, under every protocol, as an
/// independent recount of the body finds them: the writer knows which tool it is writing.
#[test]
fn recurring_tool_texts_count_for_each_tool_under_every_protocol() {
    let shared_schema = r#"{"type":"object","properties":{"path":{"type":"string","description":"The file"},"line":{"type":"number","description":"A line"}},"required":["path"]}"#;
    let mut tools = Vec::new();
    for i in 0..24 {
        let description = match i % 3 {
            0 => "The file".to_string(),
            1 => "Looks a symbol up.".to_string(),
            _ => format!("Tool number {i}."),
        };
        let schema = if i % 2 == 0 {
            shared_schema.to_string()
        } else {
            format!(
                r#"{{"type":"object","properties":{{"path":{{"type":"string","description":"The file"}},"n{i}":{{"type":"string","description":"Looks a symbol up."}}}}}}"#
            )
        };
        tools.push(format!(
            r#"{{"name":"lsp_{i}","description":{},"parameters":{schema}}}"#,
            crate::js::Value::str(description).to_json()
        ));
    }
    let tools_json = format!("[{}]", tools.join(","));
    let case = ctxlens_corpus::Case::named("demo");
    let mut checked = 0;
    for api in Api::ALL {
        let mut i = inputs_from_case(&case.files(), None).expect("the demo");
        i.extension_tools = Some(crate::inputs::SourceText {
            name: "tools.json".into(),
            text: crate::js::Str::from(tools_json.as_str()),
        });
        i.args.extend([
            "--tools".to_string(),
            (0..24)
                .map(|n| format!("lsp_{n}"))
                .collect::<Vec<_>>()
                .join(","),
        ]);
        i.api = Some(api);
        let a = assemble(&i);
        let (Some(body), Some(_)) = (a.body(), a.stats()) else {
            continue;
        };
        let parsed = crate::js::parse(body).expect("JSON");
        let (got, want) = (accounted(&a), recount(api, &parsed));
        assert_eq!(got.tools.len(), 24, "{api}: {:?}", got.tools.keys());
        assert_eq!(got.tools, want.tools, "{api}");
        adds_up(&a).unwrap_or_else(|e| panic!("{api}: {e}"));
        checked += 1;
    }
    assert!(checked >= 8, "{checked} protocols");
}

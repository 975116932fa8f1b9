use super::*;
use crate::testcase::assembly;

fn dump(a: &Assembly) -> String {
    provenance(a)
        .iter()
        .map(|o| {
            let s = match &o.source {
                Source::SystemPrompt { sections } => {
                    format!("system-prompt ({} sections)", sections.len())
                }
                Source::Tool { name, part, .. } => format!("tool {name} {part}"),
                Source::Message(m) => {
                    format!("message {} {} {} {:?}", m.index, m.role, m.part, m.origin)
                }
                Source::Messages(ms) => format!(
                    "messages {:?}",
                    ms.iter().map(|m| m.index).collect::<Vec<_>>()
                ),
                Source::Inserted { key, .. } => format!("inserted {key}"),
                Source::Parameter {
                    name,
                    rule,
                    pi_source,
                } => format!("param {name}: {rule} @ {pi_source:?}"),
            };
            format!("{} [{}] {}\n", o.path, o.matched.as_str(), s)
        })
        .collect()
}

#[test]
#[ignore]
fn print_provenance() {
    let case = std::env::var("CASE").unwrap_or_else(|_| "an-cross-provider-history".into());
    let api = std::env::var("API").ok();
    println!("{}", dump(&assembly(&case, api.as_deref())));
}

#[test]
#[ignore]
fn params_vs_body() {
    for api in crate::Api::ALL.map(crate::Api::as_str) {
        let a = assembly("an-cross-provider-history", Some(api));
        if let Some(r) = &a.request {
            let same = r.params.to_json() == r.body;
            println!("{api}: params == body: {same}");
            if !same {
                println!(
                    "  params keys: {:?}",
                    r.params
                        .as_object()
                        .map(|o| o.keys().cloned().collect::<Vec<_>>())
                );
                println!("  body: {}", &r.body[..r.body.len().min(200)]);
            }
        }
    }
}

fn at<'a>(os: &'a [Origin], path: &str) -> &'a Origin {
    os.iter()
        .find(|o| o.path == path)
        .unwrap_or_else(|| panic!("no origin for {path}"))
}

#[test]
fn every_leaf_and_top_level_key_has_an_origin() {
    for case in [
        "demo",
        "an-cross-provider-history",
        "oc-session-errored-aborted",
        "oc-images-text-only",
    ] {
        for api in crate::Api::ALL.map(crate::Api::as_str) {
            let a = assembly(case, Some(api));
            let Some(r) = &a.request else { continue };
            let body = crate::js::parse(&r.body).expect("body");
            let os = provenance(&a);
            let paths: std::collections::HashSet<&str> =
                os.iter().map(|o| o.path.as_str()).collect();
            let mut leaves = Vec::new();
            fn walk(v: &Value, p: String, out: &mut Vec<String>) {
                match v {
                    Value::Object(o) => o.iter().for_each(|(k, x)| {
                        walk(
                            x,
                            if p.is_empty() {
                                k.to_string()
                            } else {
                                format!("{p}.{k}")
                            },
                            out,
                        )
                    }),
                    Value::Array(a) => a
                        .iter()
                        .enumerate()
                        .for_each(|(i, x)| walk(x, format!("{p}.{i}"), out)),
                    _ => out.push(p),
                }
            }
            walk(&body, String::new(), &mut leaves);
            for l in &leaves {
                assert!(
                    paths.contains(l.as_str()),
                    "{case} {api}: {l} has no origin"
                );
            }
            for k in body.as_object().expect("object").keys() {
                assert!(paths.contains(k.as_str()), "{case} {api}: top-level {k}");
            }
            assert_eq!(by_path(&os).len(), os.len(), "one origin per path");
        }
    }
}

#[test]
fn demo_texts_trace_to_entries_and_this_turn() {
    let a = assembly("demo", None);
    let os = provenance(&a);
    match &at(&os, "messages.0.content").source {
        Source::SystemPrompt { sections } => {
            assert_eq!(sections.len(), a.parts.system_prompt.sections.len());
            assert_eq!(
                sections.last().map(|s| s.end),
                Some(crate::js::utf16_len(&a.parts.system_prompt.text))
            );
        }
        s => panic!("{s:?}"),
    }
    match &at(&os, "messages.1.content.0.text").source {
        Source::Message(m) => {
            assert_eq!((m.index, m.role.as_str(), m.part), (0, "user", "text"));
            assert_eq!(
                m.origin,
                MessageOrigin::Session {
                    entry_id: Some("44e3f427".into()),
                    line: 4,
                    entry_type: "message".into()
                }
            );
        }
        s => panic!("{s:?}"),
    }
    match &at(&os, "messages.2.reasoning_content").source {
        Source::Message(m) => assert_eq!(
            (m.part, m.origin.clone()),
            (
                "thinking",
                MessageOrigin::Session {
                    entry_id: Some("c9756be4".into()),
                    line: 5,
                    entry_type: "message".into()
                }
            )
        ),
        s => panic!("{s:?}"),
    }
    match &at(&os, "messages.2.tool_calls.0.function.arguments").source {
        Source::Message(m) => assert_eq!(m.part, "tool-arguments"),
        s => panic!("{s:?}"),
    }
    let last = a.parts.llm_messages.len();
    match &at(&os, &format!("messages.{last}.content.0.text")).source {
        Source::Message(m) => assert_eq!(m.origin, MessageOrigin::ThisTurn),
        s => panic!("{s:?}"),
    }
    match &at(&os, "tools.0.function.description").source {
        Source::Tool {
            name,
            builtin,
            part,
        } => assert_eq!(
            (name.as_str(), *builtin, *part),
            (a.parts.tools[0].name.as_str(), true, "description")
        ),
        s => panic!("{s:?}"),
    }
    match &at(&os, "max_completion_tokens").source {
        Source::Parameter { name, rule, .. } => {
            assert_eq!(name, "max_completion_tokens");
            assert!(rule.starts_with("model.maxTokens (131072)"), "{rule}");
        }
        s => panic!("{s:?}"),
    }
    match &at(&os, "enable_thinking").source {
        Source::Parameter {
            rule, pi_source, ..
        } => {
            assert!(rule.contains("requested low"), "{rule}");
            assert_eq!(
                pi_source.as_deref(),
                Some("AI/api/openai-completions.js:645")
            );
        }
        s => panic!("{s:?}"),
    }
}

#[test]
fn synthetic_results_merged_results_and_placeholders() {
    let a = assembly("oc-session-errored-aborted", None);
    let os = provenance(&a);
    let synthetic: Vec<&Origin> = os.iter().filter(|o| matches!(&o.source, Source::Inserted { key, .. } if key == "transformMessages.missingToolResult")).collect();
    assert!(
        synthetic
            .iter()
            .filter(|o| o.matched == Match::Exact)
            .count()
            == 2,
        "{synthetic:?}"
    );

    let b = assembly("an-cross-provider-history", None);
    let os = provenance(&b);
    assert!(
        matches!(&at(&os, "messages.2.role").source, Source::Messages(ms) if ms.iter().map(|m| m.index).collect::<Vec<_>>() == vec![2, 3, 4])
    );
    assert!(
        matches!(&at(&os, "messages.8.content.0.cache_control.type").source, Source::Parameter { name, .. } if name == "cache_control")
    );
    // Joined assistant texts in openai-completions: the adapter says which message they render.
    let c = assembly("an-cross-provider-history", Some("openai-completions"));
    let os = provenance(&c);
    let o = at(&os, "messages.2.content");
    assert_eq!(o.matched, Match::Exact);
    assert!(matches!(&o.source, Source::Message(m) if m.index == 1));

    let d = assembly("oc-images-text-only", None);
    let os = provenance(&d);
    assert!(
        matches!(&at(&os, "messages.1.content.1.text").source, Source::Inserted { key, .. } if key == "transformMessages.nonVisionUserImagePlaceholder")
    );
    // google systemInstruction: the prompt, marked by the SDK's conversion.
    let e = assembly("an-cross-provider-history", Some("google-generative-ai"));
    let os = provenance(&e);
    assert!(
        matches!(&at(&os, "systemInstruction.parts.0.text").source, Source::SystemPrompt { sections } if !sections.is_empty())
    );
    assert!(
        matches!(&at(&os, "systemInstruction.role").source, Source::SystemPrompt { sections } if sections.is_empty())
    );
}

#[test]
fn a_long_session_attributes_every_tool_result() {
    // 400 turns of 10 KB tool results (~4 MB). Speed is measured by the benchmarks, not here.
    let mut i = crate::testcase::inputs("demo");
    let base = i.session.as_ref().expect("session").text.clone();
    let mut text = String::with_capacity(45_000_000);
    text.push_str(&base);
    let last = base
        .lines()
        .filter_map(|l| crate::js::parse(l).ok())
        .filter_map(|v| v.get_str("id").map(String::from))
        .next_back()
        .expect("id");
    let mut parent = last;
    let blob = "x".repeat(10_000);
    for k in 0..400 {
        let u = format!("u{k:06}");
        let r = format!("r{k:06}");
        text.push_str(&format!(
            "{{\"type\":\"message\",\"id\":\"{u}\",\"parentId\":\"{parent}\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"toolCall\",\"id\":\"c{k}\",\"name\":\"read\",\"arguments\":{{\"path\":\"f{k}\"}}}}],\"provider\":\"mock\",\"model\":\"qwen3.8-flash\",\"api\":\"openai-completions\",\"usage\":{{\"input\":1,\"output\":1,\"cacheRead\":{k},\"cacheWrite\":0,\"totalTokens\":2}},\"stopReason\":\"toolUse\",\"timestamp\":1}}}}\n"
        ));
        text.push_str(&format!(
            "{{\"type\":\"message\",\"id\":\"{r}\",\"parentId\":\"{u}\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"message\":{{\"role\":\"toolResult\",\"toolCallId\":\"c{k}\",\"toolName\":\"read\",\"content\":[{{\"type\":\"text\",\"text\":\"{k} {blob}\"}}],\"isError\":false,\"timestamp\":1}}}}\n"
        ));
        parent = r;
    }
    i.session.as_mut().expect("session").text = text.into();
    let a = crate::assemble(&i);
    assert!(a.request.is_some());
    let os = provenance(&a);
    assert!(os.len() > 800);
    let tool_results = os.iter().filter(|o| matches!(&o.source, Source::Message(m) if m.part == "tool-result" && o.matched == Match::Exact)).count();
    assert!(tool_results >= 400, "{tool_results}");
}

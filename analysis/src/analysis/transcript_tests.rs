//! The analysis on pi 1.6.0 cases (system messages in the transcript): stats, findings and
//! provenance checked against what pi itself sent and stored (the captured body, the session
//! pi left), not against ctxlens' own output.

use super::findings::{findings, Finding, Severity};
use crate::js::{parse, utf16_len, Value};
use crate::prompt::Stored;
use crate::provenance::{provenance, MessageOrigin, Source};
use crate::testcase::assembly;
use crate::Assembly;
use crate::AssemblyStats;

fn case(name: &str) -> (Assembly, Value) {
    let full = format!("pi-1.6.0/{name}");
    let a = assembly(&full, None);
    assert_eq!(a.pi.map(|p| p.version.as_str()), Some("1.6.0"), "{full}");
    let body = ctxlens_corpus::Case::named(&full)
        .body(1)
        .unwrap_or_else(|| panic!("{full}: no captured body"));
    (a, parse(&body).expect("the captured body is JSON"))
}

/// Every pi 1.6.0 case of the corpus that pi sent a request for (a refused case has none).
fn all_1_6() -> Vec<String> {
    ctxlens_corpus::cases("pi-1.6.0/")
        .into_iter()
        .filter(|c| c.body(1).is_some())
        .map(|c| c.folder().to_string())
        .collect()
}

/// The pi 1.6.0 cases on openai-completions, whose bodies these tests read directly (system
/// messages in `messages`, tools as `tools[].function`).
fn completions_1_6() -> Vec<String> {
    all_1_6()
        .into_iter()
        .filter(|n| {
            let a = assembly(&format!("pi-1.6.0/{n}"), None);
            a.parts
                .model_choice
                .model
                .as_ref()
                .is_some_and(|m| m.api() == "openai-completions")
        })
        .collect()
}

/// The contents of the body's system (or developer) messages, as sent.
fn body_system_texts(body: &Value) -> Vec<String> {
    body.get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|m| matches!(m.get_str("role"), Some("system" | "developer")))
        .filter_map(|m| m.get_str("content").map(String::from))
        .collect()
}

/// The session pi left: the system message entries, `(line, id, message)`.
fn stored_system(name: &str) -> Vec<(u32, String, Value)> {
    let text = ctxlens_corpus::Case::named(&format!("pi-1.6.0/{name}"))
        .session_after()
        .expect("session.after.jsonl");
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let e = parse(l).ok()?;
            let m = e.get("message")?.clone();
            (m.get_str("role") == Some("system"))
                .then(|| (i as u32 + 1, e.get_str("id").unwrap_or("").to_string(), m))
        })
        .collect()
}

/// The entry at `line` of the session pi left.
fn entry_at(name: &str, line: u32) -> Value {
    let text = ctxlens_corpus::Case::named(&format!("pi-1.6.0/{name}"))
        .session_after()
        .expect("session.after.jsonl");
    parse(text.lines().nth(line as usize - 1).expect("the line")).expect("JSON")
}

fn get<'a>(list: &'a [Finding], id: &str) -> &'a Finding {
    list.iter().find(|f| f.id == id).unwrap_or_else(|| {
        panic!(
            "no {id} in {:?}",
            list.iter().map(|f| f.id.as_str()).collect::<Vec<_>>()
        )
    })
}

fn has(list: &[Finding], id: &str) -> bool {
    list.iter().any(|f| f.id == id)
}

#[test]
fn on_every_protocol_the_system_texts_counted_are_in_the_body() {
    // Whatever the adapter: each system text counted is in the body pi sent, the count is their
    // sum, and each tool counted is declared and its description sent.
    let mut checked = 0;
    for name in all_1_6() {
        let (a, body) = case(&name);
        let (Some(s), Some(sent)) = (a.stats(), &a.parts.sent_system) else {
            continue;
        };
        let body = body.to_json();
        let total: usize = sent.messages.iter().map(|m| m.end - m.start).sum();
        // With an Anthropic OAuth key, the Claude Code line pi puts first is system prompt too.
        let claude_code =
            a.pi.unwrap()
                .data
                .inserted_strings()
                .iter()
                .find(|(k, _)| k.ends_with("claudeCodeSystemPrompt"))
                .map(|(_, t)| *t)
                .filter(|t| body.contains(&format!("\"text\":\"{t}\"")))
                .map_or(0, utf16_len);
        // pi's own notices in system messages (tools removed or added incrementally) are
        // system prompt as well: at least these (the exact count is checked against a recount
        // of the body in `stats_tests`).
        assert!(s.system_prompt_chars >= total + claude_code, "{name}");
        for (_, _, t) in sent.messages.iter().flat_map(|m| m.strings.iter()) {
            assert!(
                crate::sent::body_holds(&body, t),
                "{name} ({:?}): a system text counted is not in the body: {:?}",
                sent.placement,
                t.chars().take(120).collect::<String>()
            );
        }
        // Each tool counted is declared (now or earlier in the transcript), its description
        // sent; or it is anthropic's deferred-tools placeholder, which pi adds.
        for t in &s.by_tool {
            if t.name == "__pi_deferred_placeholder__" {
                continue;
            }
            let d = a
                .parts
                .every_declared_tool
                .iter()
                .find(|d| d.name == t.name);
            let d = d.unwrap_or_else(|| panic!("{name}: {} is not declared", t.name));
            assert!(
                crate::sent::body_holds(&body, &d.description),
                "{name}: {}'s description is not sent",
                t.name
            );
        }
        assert!(
            s.by_role.iter().all(|r| r.role != "system"),
            "{name}: {:?}",
            s.by_role
        );
        checked += 1;
    }
    assert!(checked > 20, "{checked}");
}

#[test]
fn the_system_prompt_counted_is_the_system_messages_pi_sent() {
    for name in completions_1_6() {
        let (a, body) = case(&name);
        let Some(s) = a.stats() else { continue };
        let sent: usize = body_system_texts(&body).iter().map(|t| utf16_len(t)).sum();
        assert_eq!(s.system_prompt_chars, sent, "{name}");
        // The spans cover the text, each from a stored system message.
        let sp = &a.parts.system_prompt;
        let mut at = 0;
        for sec in &sp.sections {
            assert_eq!(sec.start, at, "{name}: {sec:?}");
            assert!(sec.stored.is_some(), "{name}: {sec:?}");
            at = sec.end;
        }
        assert_eq!(at, utf16_len(&sp.text), "{name}");
        // No system message is counted as history.
        assert!(
            s.by_role
                .iter()
                .all(|r| r.role != "other" && r.role != "system"),
            "{name}: {:?}",
            s.by_role
        );
    }
}

#[test]
fn kept_in_place_the_system_prompt_is_the_first_message_and_the_updates() {
    let (a, body) = case("sp-midconvo-kept");
    let sent = a.parts.sent_system.as_ref().expect("sent");
    assert_eq!(sent.placement, crate::sent::Placement::InPlace);
    let texts = body_system_texts(&body);
    assert_eq!(sent.messages.len(), texts.len());
    for (m, t) in sent.messages.iter().zip(&texts) {
        assert_eq!(&m.text, t);
    }
    // Each message is stored where the session says: the entries pi wrote, then this run's.
    let stored = stored_system("sp-midconvo-kept");
    for (m, (line, id, _)) in sent.messages.iter().zip(&stored) {
        let want = if m.stored == Some(Stored::ThisRun) {
            continue;
        } else {
            Stored::Session {
                line: *line,
                entry_id: Some(id.clone()),
            }
        };
        assert_eq!(m.stored.as_ref(), Some(&want));
    }
    assert_eq!(sent.messages.last().unwrap().stored, Some(Stored::ThisRun));
    // Collapsed: one leading message, the replay.
    let (b, body) = case("sp-resume-append");
    let sent = b.parts.sent_system.as_ref().expect("sent");
    assert_eq!(sent.placement, crate::sent::Placement::Leading);
    assert_eq!(
        body_system_texts(&body),
        vec![b.parts.system_prompt.text.clone()]
    );
}

#[test]
fn tools_counted_are_the_declarations_sent() {
    for name in completions_1_6() {
        let (a, body) = case(&name);
        let Some(s) = a.stats() else { continue };
        let mut sent: Vec<String> = body
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|t| t.get("function").and_then(|f| f.get_str("name")))
            .map(String::from)
            .collect();
        let mut counted: Vec<String> = s.by_tool.iter().map(|t| t.name.clone()).collect();
        sent.sort();
        counted.sort();
        assert_eq!(counted, sent, "{name}");
        // Each as the session declares it: description + JSON of the parameters.
        let current = crate::transcript::current_tools(
            &stored_system(&name)
                .into_iter()
                .map(|(_, _, m)| m)
                .collect::<Vec<_>>(),
        );
        // Each as the session declares it: its description; its parameters as the body
        // writes them (checked against a recount of the body in `stats_tests`).
        for t in &s.by_tool {
            let d = current
                .iter()
                .find(|d| d.get_str("name") == Some(t.name.as_str()))
                .unwrap_or_else(|| panic!("{name}: {} not declared", t.name));
            assert_eq!(
                t.description_chars,
                utf16_len(d.get_str("description").unwrap_or("")),
                "{name}: {}",
                t.name
            );
            assert_eq!(t.chars, t.description_chars + t.parameters_chars);
        }
        assert_eq!(
            s.chars_per_token,
            a.pi.unwrap().data.default_number("estimateCharsPerToken")
        );
    }
}

#[test]
fn the_token_estimate_is_the_release_s() {
    let (a, _) = case("sp-fresh-default");
    let s = a.stats().cloned().unwrap();
    assert_eq!(s.chars_per_token, 3.5);
    let f = get(&findings(&a), "cache-prefix").clone();
    let prefix = s.system_prompt_chars + s.tools_chars;
    assert!(
        f.detail.contains(&format!(
            "≈{} tokens at 3.5 chars per token",
            super::findings::thousands((prefix as f64 / 3.5).ceil() as usize)
        )),
        "{f:?}"
    );
    let demo = assembly("demo", None);
    assert_eq!(demo.stats().unwrap().chars_per_token, 4.0);
}

#[test]
fn system_text_in_the_body_maps_to_its_sections_and_the_line_that_stored_them() {
    for name in [
        "sp-resume-append",
        "sp-midconvo-kept",
        "sp-compaction-checkpoint",
    ] {
        let (a, body) = case(name);
        let stored = stored_system(name);
        let origins = provenance(&a);
        let msgs = body.get("messages").and_then(Value::as_array).unwrap();
        let mut seen = 0;
        for (k, m) in msgs.iter().enumerate() {
            if m.get_str("role") != Some("system") {
                continue;
            }
            let path = format!("messages.{k}.content");
            let o = origins
                .iter()
                .find(|o| o.path == path)
                .unwrap_or_else(|| panic!("{name}: no origin for {path}"));
            let Source::SystemPrompt { sections } = &o.source else {
                panic!("{name}: {path} is {:?}", o.source);
            };
            // The sections tile the whole leaf.
            let len = utf16_len(m.get_str("content").unwrap());
            assert_eq!(sections.first().map(|s| s.start), Some(0), "{name}");
            assert_eq!(sections.last().map(|s| s.end), Some(len), "{name}");
            for s in sections {
                match s.stored.as_ref().expect("stored") {
                    Stored::Session { line, entry_id } => {
                        let (_, id, _) =
                            stored
                                .iter()
                                .find(|(l, _, _)| l == line)
                                .unwrap_or_else(|| {
                                    panic!("{name}: line {line} holds no system message")
                                });
                        assert_eq!(entry_id.as_deref(), Some(id.as_str()));
                    }
                    Stored::Checkpoint { line, .. } => {
                        let e = entry_at(name, *line);
                        assert_eq!(e.get_str("type"), Some("compaction"), "{name}");
                        assert!(e.get("systemMessage").is_some(), "{name}");
                    }
                    Stored::ThisRun => {}
                }
            }
            seen += 1;
        }
        assert!(seen > 0, "{name}");
    }
    // The run's patch sets tools, rules and addendum: those spans, and only those, are this
    // run's (the names pi stored in the last system message).
    let (a, _) = case("sp-resume-append");
    let stored = stored_system("sp-resume-append");
    let patch: Vec<String> = stored
        .last()
        .unwrap()
        .2
        .get("sections")
        .and_then(Value::as_object)
        .unwrap()
        .iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, _)| k.to_string())
        .collect();
    let mut this_run: Vec<String> = a
        .parts
        .system_prompt
        .sections
        .iter()
        .filter(|s| s.stored == Some(Stored::ThisRun))
        .map(|s| s.name.clone())
        .collect();
    this_run.dedup();
    assert_eq!(this_run, patch);
}

#[test]
fn a_compaction_s_checkpoint_is_the_stored_origin_of_the_prompt() {
    let (a, _) = case("sp-compaction-checkpoint");
    let file = a.parts.session.as_ref().unwrap();
    let cid = a.parts.session_context.compaction_id.clone().unwrap();
    let line = file
        .entries
        .iter()
        .find(|e| e.id() == Some(cid.as_str()))
        .unwrap()
        .line;
    assert!(a.parts.system_prompt.sections.iter().all(|s| s.stored
        == Some(Stored::Checkpoint {
            line,
            entry_id: Some(cid.clone())
        })));
    let list = findings(&a);
    let f = get(&list, "compaction");
    assert!(f.detail.contains("system-message checkpoint"), "{f:?}");
}

#[test]
fn messages_map_to_the_entries_that_hold_them() {
    // System messages pass convertToLlm from 0.86: the LLM → agent map must count them, or
    // every later message points at the entry before its own.
    for name in ["sp-resume-append", "sp-midconvo-kept", "sp-resume-085"] {
        let (a, _) = case(name);
        let file = a.parts.session.as_ref().unwrap();
        for o in provenance(&a) {
            let Source::Message(m) = &o.source else {
                continue;
            };
            let MessageOrigin::Session { line, .. } = &m.origin else {
                continue;
            };
            let entry = file.entries.iter().find(|e| e.line == *line).unwrap();
            let role = entry
                .value
                .get("message")
                .and_then(|x| x.get_str("role"))
                .unwrap_or("");
            assert_eq!(role, m.role, "{name}: {} → line {line}", o.path);
        }
    }
}

#[test]
fn strict_tools_cost_what_the_rewrite_adds() {
    let (a, body) = case("sp-strict-tools");
    let list = findings(&a);
    let f = get(&list, "strict-tools");
    // From the body: the tools sent strict and their schemas; from the session: the plain ones.
    let tools = body.get("tools").and_then(Value::as_array).unwrap();
    let strict: Vec<&Value> = tools
        .iter()
        .filter_map(|t| t.get("function"))
        .filter(|f| f.get("strict") == Some(&Value::Bool(true)))
        .collect();
    assert!(!strict.is_empty());
    let declared = crate::transcript::current_tools(
        &stored_system("sp-strict-tools")
            .into_iter()
            .map(|(_, _, m)| m)
            .collect::<Vec<_>>(),
    );
    let mut plain = 0;
    let mut sent = 0;
    for t in &strict {
        let name = t.get_str("name").unwrap();
        assert!(f.detail.contains(name), "{f:?}");
        sent += utf16_len(&t.get("parameters").unwrap().to_json());
        plain += utf16_len(
            &declared
                .iter()
                .find(|d| d.get_str("name") == Some(name))
                .unwrap()
                .get("parameters")
                .unwrap()
                .to_json(),
        );
    }
    let th = super::findings::thousands;
    assert!(
        f.title
            .contains(&format!("{} chars more", th(sent - plain))),
        "{f:?}"
    );
    assert!(
        f.detail
            .contains(&format!("{} chars instead of {}", th(sent), th(plain))),
        "{f:?}"
    );
    // A tool sent plain (grep has no constrainedSampling) is not named.
    for t in tools.iter().filter_map(|t| t.get("function")) {
        if t.get("strict") == Some(&Value::Bool(false)) {
            let name = t.get_str("name").unwrap();
            assert!(!f.detail.contains(&format!("{name},")), "{f:?}");
        }
    }
    // A model without strict mode: the same tools, none strict.
    assert!(!has(&findings(&case("sp-fresh-default").0), "strict-tools"));
}

#[test]
fn a_redefined_tool_is_named_with_the_line_of_its_stored_definition() {
    let (a, body) = case("sp-resume-redefine");
    let list = findings(&a);
    let f = get(&list, "tools-redeclared");
    // The name pi removed and added again in one system message.
    let stored = stored_system("sp-resume-redefine");
    let last = &stored.last().unwrap().2;
    let names = |k: &str| -> Vec<String> {
        last.get(k)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|t| t.get_str("name").map(String::from))
            .collect()
    };
    let both: Vec<String> = names("toolsAdded")
        .into_iter()
        .filter(|n| names("toolsRemoved").contains(n))
        .collect();
    assert_eq!(both.len(), 1);
    assert_eq!(
        f.subject.as_deref(),
        Some(format!("tool:{}", both[0]).as_str())
    );
    // Its first declaration's line.
    let first_line = stored[0].0;
    assert!(
        f.detail.contains(&format!("session line {first_line}")),
        "{f:?}"
    );
    // The order named is the body's.
    let order: Vec<&str> = body
        .get("tools")
        .and_then(Value::as_array)
        .unwrap()
        .iter()
        .filter_map(|t| t.get("function").and_then(|f| f.get_str("name")))
        .collect();
    assert!(f.detail.contains(&order.join(", ")), "{f:?}");
    assert!(!has(
        &findings(&case("sp-resume-same").0),
        "tools-redeclared"
    ));
}

#[test]
fn a_0_85_session_gets_its_system_prompt_at_the_resume_point() {
    for name in ["sp-resume-085", "sp-clamp-085-resume"] {
        let (a, _) = case(name);
        let list = findings(&a);
        let f = get(&list, "system-message-at-resume");
        // The stored system message follows the old conversation.
        let stored = stored_system(name);
        assert_eq!(stored.len(), 1, "{name}");
        let sections = stored[0]
            .2
            .get("sections")
            .and_then(Value::as_object)
            .unwrap();
        assert!(
            f.detail.contains(&format!("{} sections", sections.len())),
            "{f:?}"
        );
        assert!(!has(&list, "system-prompt-patched"), "{name}");
    }
    for name in ["sp-fresh-default", "sp-resume-same", "sp-resume-append"] {
        assert!(
            !has(&findings(&case(name).0), "system-message-at-resume"),
            "{name}"
        );
    }
}

#[test]
fn a_patch_folded_into_the_head_breaks_the_prefix_where_the_previous_request_differs() {
    // Each resumed case's session is another case's: that case's captured body is the previous
    // request.
    let set = ctxlens_corpus::corpus_root().join("../case-set");
    let mut checked = 0;
    for name in completions_1_6() {
        let Ok(text) = std::fs::read_to_string(set.join(&name).join("case.json")) else {
            continue;
        };
        let Some(from) = parse(&text)
            .ok()
            .and_then(|c| c.get_str("sessionFrom").map(String::from))
        else {
            continue;
        };
        let (a, body) = case(&name);
        let (_, prev_body) = case(&from);
        let (now, prev) = (
            body_system_texts(&body).concat(),
            body_system_texts(&prev_body).concat(),
        );
        let list = findings(&a);
        let patched = list.iter().find(|f| f.id == "system-prompt-patched");
        if now == prev
            && body.get("tools").map(Value::to_json) == prev_body.get("tools").map(Value::to_json)
        {
            assert!(patched.is_none(), "{name}: {patched:?}");
            continue;
        }
        let f = patched.unwrap_or_else(|| panic!("{name}: no system-prompt-patched"));
        assert_eq!(f.severity, Severity::Notice, "{name}");
        if now != prev {
            let at = now
                .encode_utf16()
                .zip(prev.encode_utf16())
                .position(|(x, y)| x != y)
                .unwrap_or(now.encode_utf16().count().min(prev.encode_utf16().count()));
            assert!(
                f.title
                    .contains(&format!("at char {}", super::findings::thousands(at))),
                "{name}: {f:?}"
            );
        }
        checked += 1;
    }
    assert!(checked >= 4, "{checked}");
    // Kept in place: the updates sit where they happened.
    let (a, body) = case("sp-midconvo-kept");
    let f = get(&findings(&a), "system-prompt-patched").clone();
    assert_eq!(f.severity, Severity::Info);
    let updates = body_system_texts(&body).len() - 1;
    assert!(
        f.title
            .starts_with(&format!("{updates} system prompt updates")),
        "{f:?}"
    );
}

#[test]
fn a_section_added_later_is_named_where_it_lands() {
    for name in ["sp-resume-append", "sp-resume-new-skill"] {
        let (a, body) = case(name);
        let list = findings(&a);
        let f = get(&list, "section-order");
        // The section the run added (new to the replay) and the ones before it in the body.
        let stored = stored_system(name);
        let before: Vec<String> = stored[..stored.len() - 1]
            .iter()
            .flat_map(|(_, _, m)| {
                m.get("sections")
                    .and_then(Value::as_object)
                    .map(|o| o.keys().map(|k| k.to_string()).collect::<Vec<_>>())
                    .unwrap_or_default()
            })
            .collect();
        let added: Vec<String> = stored
            .last()
            .unwrap()
            .2
            .get("sections")
            .and_then(Value::as_object)
            .unwrap()
            .keys()
            .map(|k| k.to_string())
            .filter(|k| !before.contains(k))
            .collect();
        assert_eq!(added.len(), 1, "{name}: {added:?}");
        assert!(
            f.title.starts_with(&format!("Section {}", added[0])),
            "{f:?}"
        );
        // In the body it comes after the cwd section.
        let text = body_system_texts(&body).concat();
        assert!(
            text.find("<cwd>").unwrap() < text.find(&format!("<{}>", added[0])).unwrap(),
            "{name}"
        );
        assert!(f.title.contains("cwd"), "{f:?}");
    }
    // A section whose text changed keeps its place.
    let names = all_1_6();
    for name in names
        .iter()
        .filter(|n| n.starts_with("sp-fresh-") || *n == "sp-resume-new-context")
    {
        assert!(!has(&findings(&case(name).0), "section-order"), "{name}");
    }
}

#[test]
fn a_custom_prompt_drops_the_tools_rules_and_docs_sections() {
    let (a, _) = case("sp-fresh-custom");
    let f = get(&findings(&a), "custom-prompt").clone();
    assert!(f.title.contains("tools, rules and docs"), "{f:?}");
    // The docs section a default build stores (same install): its size.
    let docs = stored_system("sp-fresh-default")[0]
        .2
        .get("sections")
        .and_then(|s| s.get_str("docs"))
        .map(utf16_len)
        .unwrap();
    assert!(
        f.detail.contains(&format!(
            "docs section ({} chars)",
            super::findings::thousands(docs)
        )),
        "{f:?}"
    );
    // And the custom build sends none of the three.
    let sent: Vec<&str> = a
        .parts
        .system_prompt
        .sections
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    for gone in ["tools", "rules", "docs"] {
        assert!(!sent.contains(&gone), "{sent:?}");
    }
}

#[test]
fn findings_hold_for_1_6_0() {
    for name in all_1_6() {
        let (a, _) = case(&name);
        let list = findings(&a);
        for (i, f) in list.iter().enumerate() {
            assert_eq!(f.number, i + 1);
            assert!(
                !f.title.starts_with("0 ") && !f.detail.starts_with("0 "),
                "{name}: {f:?}"
            );
            // 0.85's wording does not describe a 1.6.0 prompt.
            for old in ["guideline", "Available tools", "4 chars per token"] {
                assert!(!f.detail.contains(old), "{name}: {f:?}");
            }
            // A section subject points at a span of the prompt sent.
            if let Some(k) = f
                .subject
                .as_deref()
                .and_then(|s| s.strip_prefix("section:"))
            {
                let k: usize = k.parse().unwrap();
                assert!(k < a.parts.system_prompt.sections.len(), "{name}: {f:?}");
            }
            if let Some(t) = f.subject.as_deref().and_then(|s| s.strip_prefix("tool:")) {
                assert!(
                    a.parts.every_declared_tool.iter().any(|d| d.name == t)
                        || t == "__pi_deferred_placeholder__",
                    "{name}: {f:?}"
                );
            }
        }
    }
}

#[test]
fn the_session_tree_shows_1_6_0_entries_as_what_they_are() {
    // Every line of the session pi left, against its node in the report's tree.
    for name in [
        "sp-context-edit-usage",
        "sp-compaction-checkpoint",
        "sp-midconvo-kept",
    ] {
        let (a, _) = case(name);
        let tree = crate::report::session_json(&a);
        let nodes = tree.get("entries").and_then(Value::as_array).unwrap();
        // The session the run read (the case's input).
        let files = ctxlens_corpus::Case::named(&format!("pi-1.6.0/{name}")).files();
        let text = String::from_utf8_lossy(&files["session.jsonl"]).into_owned();
        let mut kinds = Vec::new();
        for (i, l) in text.lines().enumerate().skip(1) {
            let e = parse(l).unwrap();
            let n = nodes
                .iter()
                .find(|n| n.get("line").and_then(Value::as_f64) == Some(i as f64 + 1.0))
                .unwrap_or_else(|| panic!("{name}: no node for line {}", i + 1));
            let m = e.get("message");
            match e.get_str("type").unwrap() {
                "message" if m.and_then(|m| m.get_str("role")) == Some("system") => {
                    assert_eq!(n.get_str("type"), Some("system"), "{name}: line {}", i + 1);
                    let sys = n.get("system").unwrap();
                    let want: Vec<&str> = m
                        .unwrap()
                        .get("sections")
                        .and_then(Value::as_object)
                        .map(|o| o.keys().map(|k| k.as_str()).collect())
                        .unwrap_or_default();
                    let got: Vec<&str> = sys
                        .get("sections")
                        .and_then(Value::as_array)
                        .unwrap()
                        .iter()
                        .filter_map(|s| s.get_str("name"))
                        .collect();
                    assert_eq!(got, want, "{name}");
                    kinds.push("system");
                }
                "compaction" => {
                    let cp = e.get("systemMessage").unwrap();
                    let n_tools = cp
                        .get("toolsAdded")
                        .and_then(Value::as_array)
                        .unwrap()
                        .len();
                    let got = n.get("checkpoint").unwrap();
                    assert_eq!(
                        got.get("toolsAdded")
                            .and_then(Value::as_array)
                            .unwrap()
                            .len(),
                        n_tools
                    );
                    kinds.push("checkpoint");
                }
                "context_edit" => {
                    let edit = n.get("edit").unwrap();
                    assert_eq!(edit.get_str("targetId"), e.get_str("targetId"));
                    let replacement = e.get("replacement").unwrap();
                    assert_eq!(
                        edit.get("omitted"),
                        Some(&Value::Bool(replacement.is_null()))
                    );
                    assert_eq!(
                        edit.get("chars").and_then(Value::as_f64),
                        Some(utf16_len(replacement.get_str("content").unwrap()) as f64)
                    );
                    kinds.push("context_edit");
                }
                "usage" => {
                    let u = n.get("usage").unwrap();
                    assert_eq!(u.get_str("kind"), e.get_str("kind"));
                    for k in ["input", "output", "cacheRead", "cacheWrite"] {
                        assert_eq!(
                            u.get(k).and_then(Value::as_f64),
                            e.get("usage")
                                .and_then(|x| x.get(k))
                                .and_then(Value::as_f64),
                            "{k}"
                        );
                    }
                    kinds.push("usage");
                }
                t => assert_eq!(n.get_str("type"), Some(t), "{name}"),
            }
        }
        assert!(!kinds.is_empty(), "{name}");
    }
    // The edited message is marked among the messages the session yields.
    let (a, body) = case("sp-context-edit-usage");
    let tree = crate::report::session_json(&a);
    let edited: Vec<&str> = tree
        .get("messageSources")
        .and_then(Value::as_array)
        .unwrap()
        .iter()
        .filter(|m| m.get("edited") == Some(&Value::Bool(true)))
        .filter_map(|m| m.get_str("entryId"))
        .collect();
    let target = tree
        .get("entries")
        .and_then(Value::as_array)
        .unwrap()
        .iter()
        .find_map(|n| n.get("edit").and_then(|e| e.get_str("targetId")))
        .unwrap();
    assert_eq!(edited, [target]);
    // And the edit reached the body: the replaced content is what pi sent.
    assert!(body.to_json().contains("the answer, as edited"));
}

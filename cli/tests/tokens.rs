//! `ctxlens stats` counts tokens with the model's own vocabulary: each tool's description and
//! the JSON of its parameters, and the system prompt, as read here from the captured body by
//! their paths (independently of ctxlens's accounting) and counted by `ctxlens-tokens` (whose
//! counts are tested against js-tiktoken, @lenml/tokenizers and mistral-common in
//! tokens/tests/reference.rs). A model without a public vocabulary is not given one.

use std::process::Command;

use ctxlens::js::{self, Value};
use ctxlens_tokens::Tokenizer;

fn stats(case: &str) -> Value {
    let dir = ctxlens_corpus::workspace()
        .join("tests/conformance")
        .join(case);
    let out = Command::new(env!("CARGO_BIN_EXE_ctxlens"))
        .args(["stats", "--case"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    js::parse(&String::from_utf8(out.stdout).unwrap()).unwrap()
}

fn arr(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array)
        .map_or(&[][..], |a| a.as_slice())
}

fn num(v: Option<&Value>) -> usize {
    match v {
        Some(Value::Number(n)) => *n as usize,
        other => panic!("not a number: {other:?}"),
    }
}

/// (tool name → description + parameters tokens, system prompt tokens) from the captured body.
fn recount(
    case: &ctxlens_corpus::Case,
    api: &str,
    vocab: &dyn Tokenizer,
) -> (Vec<(String, usize)>, usize) {
    let body = js::parse(&case.body(1).unwrap()).unwrap();
    let n = |t: Option<&Value>| {
        t.and_then(Value::as_str)
            .map_or(0, |s| vocab.count(s).unwrap())
    };
    let j = |t: Option<&Value>| t.map_or(0, |v| vocab.count(&v.to_json()).unwrap());
    let mut tools = Vec::new();
    let mut system = 0;
    match api {
        "openai-completions" | "mistral-conversations" => {
            for t in arr(body.get("tools")) {
                let f = t.get("function").unwrap();
                tools.push((
                    f.get_str("name").unwrap().to_string(),
                    n(f.get("description")) + j(f.get("parameters")),
                ));
            }
            for m in arr(body.get("messages")) {
                if matches!(m.get_str("role"), Some("system" | "developer")) {
                    system += match m.get("content") {
                        Some(Value::Array(parts)) => parts.iter().map(|p| n(p.get("text"))).sum(),
                        c => n(c),
                    };
                }
            }
        }
        "anthropic-messages" => {
            for t in arr(body.get("tools")) {
                tools.push((
                    t.get_str("name").unwrap().to_string(),
                    n(t.get("description")) + j(t.get("input_schema")),
                ));
            }
            system = arr(body.get("system"))
                .iter()
                .map(|p| n(p.get("text")))
                .sum();
        }
        _ => {
            for t in arr(body.get("tools")) {
                tools.push((
                    t.get_str("name").unwrap().to_string(),
                    n(t.get("description")) + j(t.get("parameters")),
                ));
            }
            system = n(body.get("instructions"));
            for m in arr(body.get("input")) {
                if matches!(m.get_str("role"), Some("system" | "developer")) {
                    system += match m.get("content") {
                        Some(Value::Array(parts)) => parts.iter().map(|p| n(p.get("text"))).sum(),
                        c => n(c),
                    };
                }
            }
        }
    }
    (tools, system)
}

#[test]
fn stats_counts_each_block_with_the_models_vocabulary() {
    let mut checked = 0;
    for case in ctxlens_corpus::cases("pi-") {
        let files = case.files();
        let Some(models) = files
            .get("models.json")
            .map(|b| String::from_utf8_lossy(b).into_owned())
        else {
            continue;
        };
        // Cases whose (only) model has a public vocabulary built in, on the three layouts.
        let m = js::parse(&models).unwrap();
        let Some((_, p)) = m
            .get("providers")
            .and_then(Value::as_object)
            .and_then(|o| o.iter().next())
        else {
            continue;
        };
        let api = p.get_str("api").unwrap_or_default().to_string();
        let Some(id) = arr(p.get("models")).first().and_then(|x| x.get_str("id")) else {
            continue;
        };
        let vocab = match ctxlens::tokens::Rules::shipped().resolve("x", id) {
            ctxlens::tokens::Vocabulary::Known {
                name, exact: true, ..
            } => name,
            _ => continue,
        };
        let Some(tokenizer) = ctxlens_tokens::builtin(&vocab) else {
            continue;
        };
        if !matches!(
            api.as_str(),
            "openai-completions"
                | "mistral-conversations"
                | "anthropic-messages"
                | "openai-responses"
        ) || case.body(1).is_none()
        {
            continue;
        }
        let s = stats(&case.name);
        if s.get("systemPrompt").is_none() {
            continue;
        }
        let t = s.get("tokenizer").unwrap();
        assert_eq!(t.get_str("name"), Some(vocab.as_str()), "{}", case.name);
        assert_eq!(t.get("exact"), Some(&Value::Bool(true)));
        let (tools, system) = recount(&case, &api, &tokenizer);
        assert_eq!(
            num(s.get("systemPrompt").unwrap().get("tokens")),
            system,
            "{}: system prompt",
            case.name
        );
        let by_tool = arr(s.get("tools").unwrap().get("byTool"));
        for (name, want) in &tools {
            let got = by_tool
                .iter()
                .find(|x| {
                    x.get_str("name")
                        .is_some_and(|n| n.eq_ignore_ascii_case(name))
                })
                .unwrap_or_else(|| panic!("{}: no tool {name}", case.name));
            assert_eq!(num(got.get("tokens")), *want, "{}: tool {name}", case.name);
        }
        let total: usize = tools.iter().map(|t| t.1).sum();
        assert_eq!(
            num(s.get("tools").unwrap().get("tokens")),
            total,
            "{}",
            case.name
        );
        // The window: the request's tokens against the model's contextWindow and pi's
        // compaction threshold (no settings in these cases: reserveTokens 16384).
        let w = s.get("window").unwrap();
        let sum = ["systemPrompt", "tools", "history"]
            .iter()
            .map(|k| num(s.get(k).unwrap().get("tokens")))
            .sum::<usize>();
        assert_eq!(num(w.get("tokens")), sum, "{}", case.name);
        let cw = arr(p.get("models"))
            .first()
            .and_then(|x| x.get("contextWindow"))
            .map_or(128000, |v| num(Some(v))); // pi's default for a custom model
        assert_eq!(num(w.get("contextWindow")), cw, "{}", case.name);
        let c = w.get("compaction").unwrap();
        assert_eq!(num(c.get("threshold")), cw - 16384, "{}", case.name);
        assert_eq!(num(c.get("distance")), cw - 16384 - sum, "{}", case.name);
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} cases");
    eprintln!("{checked} cases counted against their captured bodies");
}

#[test]
fn a_model_without_a_public_vocabulary_gets_none() {
    // gpt-6-mini is no model OpenAI has documented: unknown, never a silent o200k.
    let s = stats("pi-1.6.0/rs-scripted");
    assert_eq!(s.get("tokenizer"), Some(&Value::Null));
    assert!(s.get("systemPrompt").unwrap().get("tokens").is_none());
    let v = s.get("vocabulary").unwrap();
    assert_eq!(v.get("name"), Some(&Value::Null));
    // Claude: estimated from the session's usage, labelled as an estimate with its error.
    let s = stats("pi-1.6.0/an-compaction");
    let t = s.get("tokenizer").unwrap();
    assert_eq!(t.get_str("name"), Some("estimate"));
    assert_eq!(t.get("exact"), Some(&Value::Bool(false)));
    let e = s.get("calibration").unwrap().get("estimate").unwrap();
    assert!(e.get("error").unwrap().get("meanAbsPct").is_some());
    // The stand-in provider's usage is not a tokenizer's: said.
    let notes = s
        .get("calibration")
        .unwrap()
        .get("notes")
        .unwrap()
        .to_json();
    assert!(notes.contains("not a tokenizer's ratio"), "{notes}");
}

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
    // Claude, with the stand-in provider's made-up usage: not calibrated on it, and why; pi's
    // own estimate (pi 1.6.0's `estimateCharsPerToken`) instead, said as one.
    let ratio = ctxlens::Pi::new(ctxlens::PiVersion::V1_6_0)
        .unwrap()
        .data
        .default_number("estimateCharsPerToken");
    let ratio_text = ctxlens::js::number_to_string(ratio);
    let s = stats("pi-1.6.0/an-compaction");
    assert_eq!(
        s.get("tokenizer").and_then(|t| t.get_str("name")),
        Some("estimate")
    );
    let e = s.get("calibration").unwrap().get("estimate").unwrap();
    assert_eq!(e.get("plausible"), Some(&Value::Bool(false)));
    let notes = s.get("tokenNotes").unwrap().to_json();
    assert!(
        notes.contains("not a tokenizer's ratio")
            && notes.contains(&format!(
                "tokens estimated at {ratio_text} characters per token, pi's own estimate"
            )),
        "{notes}"
    );
    let sp = s.get("systemPrompt").unwrap();
    let chars = sp.get("chars").and_then(Value::as_f64).unwrap();
    assert_eq!(
        sp.get("tokens").and_then(Value::as_f64),
        Some((chars / ratio).round())
    );
}

#[test]
fn claude_is_estimated_from_the_sessions_own_usage_with_its_error() {
    // The same case with usage as a provider would report it: about 3.3 characters per token
    // of each call's request (the rebuilt characters, read from `stats` of each call first).
    let src = ctxlens_corpus::workspace().join("tests/conformance/pi-1.6.0/an-compaction");
    let dir = std::env::temp_dir().join(format!("ctxlens-tokens-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy(&src, &dir);
    let s = stats_dir(&dir);
    let calls = arr(s.get("calibration").unwrap().get("calls")).to_vec();
    assert!(calls.len() >= 3);
    let session = std::fs::read_to_string(dir.join("session.jsonl")).unwrap();
    let mut out = String::new();
    for (i, line) in session.lines().enumerate() {
        let mut v = js::parse(line).unwrap();
        let id = v.get_str("id").map(str::to_string);
        let call = calls.iter().find(|c| c.get_str("entryId") == id.as_deref());
        if let (Some(c), Some(m)) = (call, v.as_object_mut().and_then(|o| o.get_mut("message"))) {
            // Different ratios per call, as real usage varies: 3.1 to 3.5 chars per token.
            let chars = num(c.get("rebuiltChars")) as f64;
            let tokens = (chars / (3.1 + 0.2 * (i % 3) as f64)).round();
            let u = js::Object::new()
                .with("input", tokens)
                .with("output", 5.0)
                .with("cacheRead", 0.0)
                .with("cacheWrite", 0.0)
                .with("totalTokens", tokens + 5.0);
            m.as_object_mut().unwrap().insert("usage", u.into());
        }
        out.push_str(&v.to_json());
        out.push('\n');
    }
    std::fs::write(dir.join("session.jsonl"), out).unwrap();
    let s = stats_dir(&dir);
    let t = s.get("tokenizer").unwrap();
    assert_eq!(t.get_str("name"), Some("estimate"));
    assert_eq!(t.get("exact"), Some(&Value::Bool(false)));
    let e = s.get("calibration").unwrap().get("estimate").unwrap();
    let cpt = match e.get("charsPerToken") {
        Some(Value::Number(n)) => *n,
        _ => panic!(),
    };
    assert!((3.1..=3.5).contains(&cpt), "{cpt}");
    let err = e.get("error").unwrap();
    let mean = match err.get("meanAbsPct") {
        Some(Value::Number(n)) => *n,
        _ => panic!("{err:?}"),
    };
    assert!(mean > 0.0 && mean < 15.0, "{mean}");
    // The blocks are the characters over the ratio applied.
    let applied = e.get("applied").unwrap();
    let r = match applied.get("history") {
        Some(Value::Number(n)) => *n,
        _ => panic!(),
    };
    let h = s.get("history").unwrap();
    let want = (num(h.get("chars")) as f64 / r).round() as i64;
    assert!(
        (num(h.get("tokens")) as i64 - want).abs() <= 1,
        "{} vs {want}: {}",
        num(h.get("tokens")),
        e.to_json()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn copy(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

fn stats_dir(dir: &std::path::Path) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_ctxlens"))
        .args(["stats", "--case"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    js::parse(&String::from_utf8(out.stdout).unwrap()).unwrap()
}

/// A counter over `ctxlens-tokens`' o200k_base, in process.
struct O200k(ctxlens_tokens::Builtin);

impl ctxlens::tokens::TokenCounter for O200k {
    fn info(&self) -> ctxlens::tokens::TokenizerInfo {
        ctxlens::tokens::TokenizerInfo {
            name: "o200k_base".into(),
            exact: true,
        }
    }
    fn count(&mut self, texts: &[&str]) -> Result<Vec<usize>, String> {
        texts.iter().map(|t| self.0.count(t)).collect()
    }
}

#[test]
fn the_estimates_error_on_the_corpus_with_usage_from_a_real_vocabulary() {
    // How good is a characters-per-token ratio measured on a session's own calls? The corpus'
    // usage is made up by the stand-in provider, so each session with three calls or more gets
    // usage as a provider with o200k_base's vocabulary would report it (each rebuilt call's
    // texts counted, plus 4 tokens of framing per message and 10 per call), and the estimate
    // (as for Claude: no vocabulary) is measured against it by leaving each call out.
    use ctxlens::analysis::calibration::calibrate;
    let mut errors = Vec::new();
    for case in ctxlens_corpus::cases("pi-") {
        let Ok(inputs) = ctxlens::case::inputs_from_case(&case.files(), None) else {
            continue;
        };
        let a = ctxlens::assemble(&inputs);
        if a.calls.iter().filter(|c| c.usage.is_some()).count() < 3 {
            continue;
        }
        let mut o200k = O200k(ctxlens_tokens::builtin("o200k_base").unwrap());
        let Ok(counted) = calibrate(&inputs, &a, Some(&mut o200k), None) else {
            continue;
        };
        // Usage where the call could be rebuilt as it was sent.
        let truth: std::collections::BTreeMap<String, f64> = counted
            .calls
            .iter()
            .filter(|c| {
                c.note.is_none()
                    || c.note
                        .as_deref()
                        .is_some_and(|n| n.contains("another vocabulary"))
            })
            .filter_map(|c| {
                Some((
                    c.entry_id.clone()?,
                    c.tokens? as f64 + 4.0 * c.messages as f64 + 10.0,
                ))
            })
            .collect();
        if truth.len() < 3 {
            continue;
        }
        let mut i = inputs.clone();
        let session = i.session.as_mut().unwrap();
        let text: String = session
            .text
            .lines()
            .map(|line| {
                let Ok(mut v) = js::parse(line) else {
                    return format!("{line}\n");
                };
                let t = v.get_str("id").and_then(|id| truth.get(id)).copied();
                if let (Some(t), Some(m)) =
                    (t, v.as_object_mut().and_then(|o| o.get_mut("message")))
                {
                    let u = js::Object::new()
                        .with("input", t)
                        .with("output", 5.0)
                        .with("cacheRead", 0.0)
                        .with("cacheWrite", 0.0)
                        .with("totalTokens", t + 5.0);
                    m.as_object_mut().unwrap().insert("usage", u.into());
                }
                format!("{}\n", v.to_json())
            })
            .collect();
        session.text = text.into();
        let a = ctxlens::assemble(&i);
        let est = calibrate(&i, &a, None, None).unwrap();
        if let Some(e) = est.estimate.and_then(|e| e.error) {
            errors.push((case.name.clone(), e.mean_abs_pct, e.max_abs_pct, e.calls));
        }
    }
    assert!(
        errors.len() >= 5,
        "only {} sessions: {errors:?}",
        errors.len()
    );
    let mean = errors.iter().map(|e| e.1).sum::<f64>() / errors.len() as f64;
    let worst = errors.iter().map(|e| e.2).fold(0.0, f64::max);
    eprintln!(
        "estimate error over {} sessions: mean {mean:.1}%, worst call {worst:.1}%",
        errors.len()
    );
    for e in &errors {
        eprintln!(
            "  {}: mean {:.1}%, max {:.1}% ({} calls)",
            e.0, e.1, e.2, e.3
        );
    }
    // A ratio measured on the session predicts its other calls within a fifth on average.
    assert!(mean < 20.0, "{errors:?}");
}

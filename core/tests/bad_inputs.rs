//! Bad input never panics or hangs: every problem is reported with its file and line, what was
//! skipped, and the rest of the input is still used.

use ctxlens_assembly::case::inputs_from_case;
use ctxlens_assembly::{assemble, Inputs, Severity, SourceText};

fn demo() -> Inputs {
    inputs_from_case(&ctxlens_corpus::Case::named("demo").files(), None)
        .expect("the demo case loads")
}

fn session_text(inputs: &Inputs) -> String {
    inputs.session.as_ref().unwrap().text.to_string()
}

#[test]
fn garbage_lines_are_reported_with_their_line_and_skipped() {
    let mut inputs = demo();
    let mut lines: Vec<String> = session_text(&inputs).lines().map(String::from).collect();
    lines.insert(3, "{not json".into());
    lines.insert(6, "".into());
    lines.insert(8, "[1,2".into());
    inputs.session = Some(SourceText {
        name: "broken.jsonl".into(),
        text: lines.join("\n").into(),
    });
    let a = assemble(&inputs);
    assert!(a.request.is_some(), "the rest of the session is still used");
    let bad: Vec<_> = a
        .diagnostics
        .iter()
        .filter(|d| d.file == "broken.jsonl")
        .collect();
    let lines_reported: Vec<u32> = bad.iter().filter_map(|d| d.line).collect();
    assert!(lines_reported.contains(&4), "line 4 reported: {bad:?}");
    assert!(lines_reported.contains(&9), "line 9 reported: {bad:?}");
    assert!(
        bad.iter().all(|d| d.skipped.is_some()),
        "each says what was skipped: {bad:?}"
    );
    // The body is the same as without the garbage: pi skips such lines too.
    let clean = assemble(&demo());
    assert_eq!(a.body(), clean.body());
}

#[test]
fn a_missing_header_is_an_error_pi_refuses_the_file() {
    let mut inputs = demo();
    let text = session_text(&inputs);
    let without_header: String = text.lines().skip(1).collect::<Vec<_>>().join("\n");
    inputs.session = Some(SourceText {
        name: "noheader.jsonl".into(),
        text: without_header.into(),
    });
    let a = assemble(&inputs);
    assert!(
        a.diagnostics
            .iter()
            .any(|d| d.file == "noheader.jsonl" && d.severity == Severity::Error),
        "{:?}",
        a.diagnostics
    );
}

#[test]
fn a_parent_cycle_terminates_and_is_reported() {
    let text = concat!(
        r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#,
        "\n",
        r#"{"type":"message","id":"a","parentId":"b","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}"#,
        "\n",
        r#"{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"y","timestamp":2}}"#,
        "\n"
    );
    let mut inputs = demo();
    inputs.session = Some(SourceText {
        name: "cycle.jsonl".into(),
        text: text.into(),
    });
    let a = assemble(&inputs);
    let cycle: Vec<_> = a
        .diagnostics
        .iter()
        .filter(|d| d.file == "cycle.jsonl" && d.message.to_lowercase().contains("cycle"))
        .collect();
    assert!(!cycle.is_empty(), "{:?}", a.diagnostics);
    assert!(cycle.iter().all(|d| d.line.is_some()));
    assert!(a.request.is_some());
}

#[test]
fn a_broken_models_json_is_reported_and_the_catalog_still_used() {
    let mut inputs = demo();
    let path = format!("{}/models.json", inputs.agent_dir);
    inputs
        .files
        .insert(&path, "{\"providers\": {\n  \"mock\": {,}\n}");
    inputs.model = Some("anthropic/claude-sonnet-4-5".into());
    inputs
        .env
        .insert("ANTHROPIC_API_KEY".into(), "sk-ant-test".into());
    let a = assemble(&inputs);
    assert!(
        a.diagnostics
            .iter()
            .any(|d| d.file == path && d.line.is_some()),
        "{:?}",
        a.diagnostics
    );
    let r = a.request.expect("a catalog model still assembles");
    assert!(
        r.body.starts_with("{\"model\":\"claude-sonnet-4-5\""),
        "{}",
        &r.body[..60]
    );
}

#[test]
fn a_broken_tools_json_is_reported_and_builtins_kept() {
    let mut inputs = demo();
    inputs.extension_tools = Some(SourceText {
        name: "tools.json".into(),
        text: "[{\"name\": 3}, {\"description\": \"no name\"}, 7".into(),
    });
    let a = assemble(&inputs);
    assert!(
        a.diagnostics.iter().any(|d| d.file == "tools.json"),
        "{:?}",
        a.diagnostics
    );
    assert_eq!(
        a.parts.tools.len(),
        4,
        "the four default built-in tools remain"
    );
}

#[test]
fn bad_skill_frontmatter_is_reported_with_its_file() {
    let mut inputs = demo();
    let path = format!("{}/skills/broken/SKILL.md", inputs.agent_dir);
    inputs
        .files
        .insert(&path, "---\nname: [unclosed\ndescription: x\n---\nbody");
    let a = assemble(&inputs);
    assert!(
        a.diagnostics.iter().any(|d| d.file == path),
        "{:?}",
        a.diagnostics
    );
    assert!(a.request.is_some());
}

/// A small deterministic generator (xorshift), so the mutations are the same on every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[test]
fn mutated_sessions_never_panic() {
    let base = demo();
    let text = session_text(&base);
    let bytes = text.as_bytes();
    let mut rng = Rng(0x9e3779b97f4a7c15);
    for round in 0..150 {
        let mut b = bytes.to_vec();
        for _ in 0..(1 + rng.below(8)) {
            let i = rng.below(b.len());
            match rng.below(4) {
                0 => {
                    const BYTES: &[u8] = b"{}[]\",:\\\n0aZ";
                    b[i] = BYTES[rng.below(BYTES.len())]
                }
                1 => {
                    b.remove(i);
                }
                2 => b.truncate(i),
                _ => {
                    let j = rng.below(b.len());
                    b.swap(i, j);
                }
            }
            if b.is_empty() {
                break;
            }
        }
        let mut inputs = base.clone();
        inputs.session = Some(SourceText {
            name: format!("mutant-{round}.jsonl"),
            text: String::from_utf8_lossy(&b).into_owned().into(),
        });
        for api in ["openai-completions", "anthropic-messages"] {
            inputs.api = Some(api.parse().expect("an api"));
            let _ = assemble(&inputs);
        }
    }
}

//! The pi release as an input: what each captured session proves about the release that wrote
//! it, and what the CLI says when it is asked for another release.

use std::process::Command;

use ctxlens::case::inputs_from_case;
use ctxlens::pi::choice::{detect, refine};
use ctxlens::pi::Certainty;
use ctxlens::{Pi, PiVersion};

/// Every session a captured pi left (`session.after.jsonl`: the last entries are the capturing
/// release's own) is detected as that release, or as a set of releases that holds it: a session
/// without system messages as 0.85.1 (pi 0.86+ stores one before every run's first prompt), one
/// with them as the 0.86+ releases its texts do not rule out. Where several remain, the
/// detection says so and offers the choice; where one remains it is the capturing release and
/// certain. An input session without system messages (a 0.85-era one) is 0.85.1's, certain.
#[test]
fn every_captured_session_is_detected_as_the_release_that_wrote_it() {
    // (release → (sessions, certain, ambiguous))
    let mut seen = std::collections::BTreeMap::<String, (usize, usize, usize)>::new();
    let mut failures = Vec::new();
    for case in ctxlens_corpus::cases(&ctxlens_corpus::filter_from_env()) {
        let Ok(inputs) = inputs_from_case(&case.files(), None) else {
            continue;
        };
        let captured = inputs.captured_pi.expect("every case records its release");
        if let Some(session) = &inputs.session {
            if let Some(mut d) = detect(session) {
                refine(&mut d, session);
                // A 0.85-era session (prompts, no system message) is 0.85.1's, whoever resumes it.
                let has_system = session.text.as_str().contains("\"role\":\"system\"");
                if d.certainty != Certainty::Assumed
                    && !has_system
                    && (d.version, d.certainty) != (PiVersion::V0_85_1, Certainty::Certain)
                {
                    failures.push(format!(
                        "{}: a session without system messages detected as {} ({:?})",
                        case.name, d.version, d.certainty
                    ));
                }
            }
        }
        // Where pi refused, it wrote nothing: the session is the input's.
        if case.pi_error().is_some() {
            continue;
        }
        let Some(after) = case.session_after() else {
            continue;
        };
        // A case that hands pi entries of a kind its release does not write (a template's
        // `context_edit` entries resumed by 0.86.1) is a later release's session as far as the
        // file shows: that is what it is detected as.
        let known = captured.rules().entry_types;
        if after.lines().any(|l| {
            ctxlens::js::parse(l)
                .ok()
                .and_then(|v| v.get_str("type").map(String::from))
                .is_some_and(|t| !known.contains(&t.as_str()))
        }) {
            continue;
        }
        let after = ctxlens::inputs::SourceText {
            name: "session.after.jsonl".into(),
            text: after.into(),
        };
        let Some(mut d) = detect(&after) else {
            continue;
        };
        refine(&mut d, &after);
        if d.certainty == Certainty::Assumed {
            continue;
        }
        let has_system = after.text.as_str().contains("\"role\":\"system\"");
        let entry = seen.entry(captured.to_string()).or_default();
        entry.0 += 1;
        if !d.candidates.contains(&captured) || d.version < captured {
            failures.push(format!(
                "{}: pi {captured} wrote it, detected {} of {:?}: {:?}",
                case.name, d.version, d.candidates, d.evidence
            ));
            continue;
        }
        if captured == PiVersion::V0_85_1 {
            assert!(!has_system, "{}", case.name);
        } else {
            let at_least = d.at_least.unwrap_or("");
            assert!(
                ["0.86.0", "0.87.0"].contains(&at_least),
                "{}: {at_least}",
                case.name
            );
            if after.text.as_str().contains("\"type\":\"context_edit\"") {
                assert_eq!(at_least, "0.87.0", "{}", case.name);
            }
        }
        match d.candidates.len() {
            1 => {
                assert_eq!(d.version, captured, "{}", case.name);
                if captured != PiVersion::V0_85_1 {
                    assert_eq!(d.certainty, Certainty::Certain, "{}", case.name);
                }
                entry.1 += 1;
            }
            _ => {
                // Alike sessions: the choice is offered, naming the capturing release.
                let a = d.ambiguity().expect("several candidates are said");
                assert!(a.contains(captured.as_str()), "{}: {a}", case.name);
                assert!(
                    d.evidence.iter().any(|e| e.fact == a),
                    "{}: {:?}",
                    case.name,
                    d.evidence
                );
                entry.2 += 1;
            }
        }
    }
    println!(
        "sessions detected per release (sessions, one release left, several offered): {seen:?}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        seen.len() == PiVersion::ALL.len() || !ctxlens_corpus::filter_from_env().is_empty(),
        "{seen:?}"
    );
}

/// A 1.5.2 session and a 1.6.0 session differ where a built-in tool's definition changed: the
/// find tool's `pattern` (1.6.0, #12066). With find among the tools the stored declaration tells
/// them apart; without it nothing does, and the detection offers both.
#[test]
fn a_changed_tool_definition_tells_releases_apart() {
    let pi15 = Pi::new(PiVersion::V1_5_2).unwrap();
    let pi16 = Pi::new(PiVersion::V1_6_0).unwrap();
    let find = |pi: &Pi| {
        pi.data
            .tools
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t.get_str("name") == Some("find"))
            .unwrap()
            .clone()
    };
    assert_ne!(find(&pi15).to_json(), find(&pi16).to_json());
    let session = |tools: &str| {
        ctxlens::inputs::SourceText {
        name: "s.jsonl".into(),
        text: format!(
            "{{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-12-01T00:00:00.000Z\",\"cwd\":\"/p\"}}\n{{\"type\":\"message\",\"id\":\"a1\",\"parentId\":null,\"timestamp\":\"2026-12-01T00:00:01.000Z\",\"message\":{{\"role\":\"system\",\"sections\":{{\"cwd\":\"/p\"}},\"toolsAdded\":[{tools}],\"timestamp\":1}}}}\n"
        )
        .into(),
    }
    };
    let tool = |pi: &Pi| {
        let t = find(pi);
        format!(
            "{{\"name\":\"find\",\"description\":{},\"parameters\":{}}}",
            t.get("description").unwrap().to_json(),
            t.get("parameters").unwrap().to_json()
        )
    };
    for (pi, want) in [(&pi15, PiVersion::V1_5_2), (&pi16, PiVersion::V1_6_0)] {
        let s = session(&tool(pi));
        let mut d = detect(&s).unwrap();
        refine(&mut d, &s);
        assert_eq!(d.version, want, "{:?}", d.evidence);
        if want == PiVersion::V1_6_0 {
            assert_eq!(d.candidates, vec![want]);
            assert_eq!(d.certainty, Certainty::Certain);
        } else {
            // 1.6.0 is ruled out; the releases before it that share 1.5.2's find stay.
            assert!(
                !d.candidates.contains(&PiVersion::V1_6_0),
                "{:?}",
                d.candidates
            );
        }
        assert!(
            d.evidence
                .iter()
                .any(|e| e.fact.contains("`find` tool reads as pi")),
            "{:?}",
            d.evidence
        );
    }
    // An extension's own `find` (another text) says nothing: both stay, and the choice is offered.
    let s = session(r#"{"name":"find","description":"my find","parameters":{"type":"object"}}"#);
    let mut d = detect(&s).unwrap();
    refine(&mut d, &s);
    assert_eq!(d.version, PiVersion::V1_6_0);
    assert!(d.candidates.contains(&PiVersion::V1_5_2) && d.candidates.contains(&PiVersion::V1_6_0));
    assert_eq!(d.certainty, Certainty::Likely);
    assert!(
        d.ambiguity().unwrap().contains("--pi 1.5.2"),
        "{:?}",
        d.ambiguity()
    );
    // A session whose last entry predates 1.6.0's release cannot be 1.6.0's.
    let s = ctxlens::inputs::SourceText {
        name: "s.jsonl".into(),
        text: session(r#"{"name":"find","description":"my find","parameters":{"type":"object"}}"#)
            .text
            .as_str()
            .replace("2026-12-01", "2026-11-12")
            .into(),
    };
    let mut d = detect(&s).unwrap();
    refine(&mut d, &s);
    assert!(
        !d.candidates.contains(&PiVersion::V1_6_0),
        "{:?}",
        d.candidates
    );
    assert_eq!(d.version, *d.candidates.last().unwrap());
    // Dated 1.0.3's day (it cannot be installed), after the 0.86–0.87 releases and before 1.3.0:
    // the newest supported release out by then, said to be only the nearest (the releases
    // between that ctxlens does not rebuild are named), never certain.
    let dated = |day: &str| ctxlens::inputs::SourceText {
        name: "s.jsonl".into(),
        text: session(r#"{"name":"find","description":"my find","parameters":{"type":"object"}}"#)
            .text
            .as_str()
            .replace("2026-12-01", day)
            .into(),
    };
    let s = dated("2026-10-06");
    let mut d = detect(&s).unwrap();
    refine(&mut d, &s);
    let out_by = PiVersion::ALL
        .into_iter()
        .rfind(|v| v.released() <= "2026-10-06")
        .unwrap();
    assert_eq!(d.version, out_by, "{:?}", d.evidence);
    assert!(d.unsupported_writer);
    assert_eq!(d.certainty, Certainty::Likely);
    assert!(
        d.evidence.iter().any(|e| e
            .fact
            .contains("to 1.0.4 were released, which ctxlens does not rebuild")
            && e.fact.contains(&format!(
                "pi {out_by}, which is not shown to behave the same"
            ))),
        "{:?}",
        d.evidence
    );
    // Dated after 0.86.0 and before any supported 0.86+ release was out: the oldest supported
    // one that writes it, 0.86.0 named as the writer, never certain.
    let s = dated("2026-09-20");
    let mut d = detect(&s).unwrap();
    refine(&mut d, &s);
    assert_eq!(d.version, PiVersion::V0_86_1, "{:?}", d.evidence);
    assert!(d.unsupported_writer);
    assert_eq!(d.certainty, Certainty::Likely);
    assert!(
        d.evidence
            .iter()
            .any(|e| e.fact.contains("wrote it (pi 0.86.0)")
                && e.fact.contains("not shown to behave the same")),
        "{:?}",
        d.evidence
    );
}

/// 0.86–0.87 and 1.x sessions differ in the stored docs section: 0.99 named MCP servers and
/// codemode in its "When asked about" line. A session each release wrote itself (the same case,
/// `sp-fresh-default`, captured with each) is told apart by it: a 0.86–0.87 one leaves only the
/// 0.86–0.87 releases (alike among themselves where their texts and tools are: the choice is
/// offered), a 1.3.0 one none of them.
#[test]
fn the_docs_line_tells_0_86_sessions_from_1_x() {
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance");
    let detected = |v: PiVersion| {
        let path = corpus.join(format!(
            "pi-{v}/sp-fresh-default/expected/session.after.jsonl"
        ));
        let s = ctxlens::inputs::SourceText {
            name: "session.after.jsonl".into(),
            text: std::fs::read_to_string(&path)
                .expect("the captured session")
                .into(),
        };
        let mut d = detect(&s).unwrap();
        refine(&mut d, &s);
        d
    };
    let early: Vec<PiVersion> = PiVersion::ALL
        .into_iter()
        .filter(|v| *v > PiVersion::V0_85_1 && *v < PiVersion::V1_3_0)
        .collect();
    assert!(!early.is_empty());
    for v in &early {
        let d = detected(*v);
        assert_eq!(d.candidates, early, "pi {v}: {:?}", d.evidence);
        assert_eq!(d.version, *early.last().unwrap());
        if early.len() == 1 {
            assert_eq!(d.certainty, Certainty::Certain);
        } else {
            assert!(d.ambiguity().unwrap().contains(v.as_str()));
        }
        assert!(
            d.evidence
                .iter()
                .any(|e| e.fact.contains("do not read as pi 1.3.0")),
            "pi {v}: {:?}",
            d.evidence
        );
    }
    let d = detected(PiVersion::V1_3_0);
    assert!(d.candidates.contains(&PiVersion::V1_3_0));
    assert!(
        early.iter().all(|v| !d.candidates.contains(v)),
        "{:?}",
        d.candidates
    );
}

fn ctxlens(args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_ctxlens"))
        .args(args)
        .current_dir(ctxlens_corpus::workspace())
        .output()
        .expect("ctxlens runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// A session that pi 1.6.0 wrote, rebuilt with `--pi 0.85.1`: the CLI says first that the
/// session is newer, and every system message is a located diagnostic (0.85.1 leaves them out).
#[test]
fn a_1_6_session_rebuilt_as_0_85_says_so_with_lines() {
    let case = "tests/conformance/pi-1.6.0/sp-resume-after-patch";
    let (_, stderr, code) = ctxlens(&["assemble", "--case", case, "--pi", "0.85.1"]);
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines[0], "ctxlens: rebuilding pi 0.85.1 (as asked)");
    assert!(
        lines[1].starts_with(
            "ctxlens: warning: pi 0.86.0 or later wrote this session (2 system messages"
        ),
        "{stderr}"
    );
    let located = lines
        .iter()
        .find(|l| l.contains("does not know messages with role `system`"))
        .unwrap_or_else(|| panic!("no diagnostic for the system messages:\n{stderr}"));
    // `file:line: warning: ...`, naming the release that writes them.
    assert!(located.contains("session.jsonl:"), "{located}");
    assert!(
        located.contains("pi 0.86.0 and later write them"),
        "{located}"
    );

    // Left to itself the CLI rebuilds the capture's release and says why.
    let (_, stderr, _) = ctxlens(&["assemble", "--case", case]);
    assert!(
        stderr.starts_with("ctxlens: rebuilding pi 1.6.0 (the release that made this capture"),
        "{stderr}"
    );
    assert!(!stderr.contains("newer"), "{stderr}");

    let (_, stderr, code) = ctxlens(&["assemble", "--case", case, "--pi", "1.0.3"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("pi 1.0.3 is not a release ctxlens rebuilds (supported: 0.85.1, "),
        "{stderr}"
    );
}

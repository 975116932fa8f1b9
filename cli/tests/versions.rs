//! The pi release as an input: what each captured session proves about the release that wrote
//! it, and what the CLI says when it is asked for another release.

use std::process::Command;

use ctxlens::case::inputs_from_case;
use ctxlens::pi::choice::{detect, refine};
use ctxlens::pi::Certainty;
use ctxlens::{Pi, PiVersion};

/// Every captured session that pi 0.86+ wrote (it holds system messages) is detected as 1.6.0
/// and, its sections reading as 1.6.0 writes them, with certainty; every session with prompts and
/// no system message is detected as 0.85.1 (pi 0.86+ would have stored one). The capture's own
/// release is never older than what its session proves.
#[test]
fn every_captured_session_is_detected_as_the_release_that_wrote_it() {
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    for case in ctxlens_corpus::cases(&ctxlens_corpus::filter_from_env()) {
        let Ok(inputs) = inputs_from_case(&case.files(), None) else {
            continue;
        };
        let Some(session) = &inputs.session else {
            continue;
        };
        let Some(mut d) = detect(session) else {
            continue;
        };
        let has_system = session.text.as_str().contains("\"role\":\"system\"");
        if d.certainty == Certainty::Assumed {
            continue;
        }
        if let Ok(pi) = Pi::new(d.version) {
            refine(&mut d, session, pi.data);
        }
        let captured = inputs.captured_pi.expect("every case records its release");
        assert!(
            d.version <= captured,
            "{}: the session proves pi {} but pi {captured} captured it",
            case.name,
            d.version
        );
        if has_system {
            assert_eq!(d.version, PiVersion::V1_6_0, "{}", case.name);
            // 0.86.0 for system messages; later for what a later release began (context_edit).
            let at_least = d.at_least.unwrap_or("");
            assert!(
                ["0.86.0", "0.87.0"].contains(&at_least),
                "{}: {at_least}",
                case.name
            );
            if session.text.as_str().contains("\"type\":\"context_edit\"") {
                assert_eq!(at_least, "0.87.0", "{}", case.name);
            }
        } else {
            assert_eq!(d.version, PiVersion::V0_85_1, "{}", case.name);
        }
        // A 1.6.0 session's sections read as 1.6.0 writes them (unless they are hand-edited).
        if has_system && captured == PiVersion::V1_6_0 && !case.name.contains("redefine") {
            assert_eq!(
                d.certainty,
                Certainty::Certain,
                "{}: {:?}",
                case.name,
                d.evidence
            );
        }
        *seen.entry(d.version.to_string()).or_default() += 1;
    }
    println!("sessions detected per release: {seen:?}");
    assert!(
        seen.len() == 2 || !ctxlens_corpus::filter_from_env().is_empty(),
        "{seen:?}"
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
        stderr.contains("pi 1.0.3 is not a release ctxlens rebuilds (supported: 0.85.1, 1.6.0)"),
        "{stderr}"
    );
}

//! The what-if proofs (tests/whatif/): for each release, the base case and, for each variant of
//! `variants.json`, the base with that what-if's take-home made for real, both captured with
//! the real pi (`scripts/capture-whatif.mjs`). ctxlens's what-if of the base case must give
//! each variant's captured body byte for byte, and its take-home must be the edit that was made
//! (the same flags, the same files removed, the same SKILL.md or session text).

use ctxlens::AssemblyStats;
use std::path::{Path, PathBuf};
use std::process::Command;

use ctxlens::analysis::whatif::{self, Change, TakeHome};
use ctxlens::case::{first_difference, inputs_from_case, json_difference};
use ctxlens::js::{self, Value};
use ctxlens::Inputs;

const RELEASES: [&str; 2] = ["0.85.1", "1.6.0"];

fn dir() -> PathBuf {
    ctxlens_corpus::workspace().join("tests/whatif")
}

fn load(case: &Path) -> Inputs {
    let files = ctxlens_corpus::read_folder(case).unwrap();
    inputs_from_case(&files, None).unwrap_or_else(|e| panic!("{}: {e}", case.display()))
}

fn captured(case: &Path) -> String {
    std::fs::read_to_string(case.join("expected/request-1.json")).unwrap()
}

fn variants() -> Vec<Value> {
    let text = std::fs::read_to_string(dir().join("variants.json")).unwrap();
    js::parse(&text).unwrap().as_array().unwrap().clone()
}

/// The variants of one request (all but the scripted run's), in both releases.
fn single_call_variants() -> Vec<Value> {
    variants()
        .into_iter()
        .filter(|x| x.get_str("template") != Some("scripted"))
        .collect()
}

/// `text` with the stand-in provider's port (`127.0.0.1:PORT`) left out.
fn without_port(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("127.0.0.1:") {
        out.push_str(&rest[..i + 10]);
        rest = rest[i + 10..].trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

/// Whether a variant is captured with release `v` (its `releases`, else all).
fn applies(variant: &Value, v: &str) -> bool {
    variant
        .get("releases")
        .is_none_or(|r| strings(Some(r)).iter().any(|x| x == v))
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|x| x.as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn changes(v: &Value) -> Vec<Change> {
    let mut out: Vec<Change> = strings(v.get("without"))
        .iter()
        .map(|s| Change::parse_without(s).unwrap())
        .collect();
    out.extend(
        strings(v.get("set"))
            .iter()
            .map(|s| Change::parse_set(s).unwrap()),
    );
    out
}

/// The base case's inputs at the variant's capture time (the same files, session and flags;
/// the clock and the client of the variant's run).
fn base_at(base: &Inputs, variant: &Inputs) -> Inputs {
    let mut i = base.clone();
    i.now_ms = variant.now_ms;
    i.system_now_ms = variant.system_now_ms;
    i.session_id = variant.session_id.clone();
    i.user_agent = variant.user_agent.clone();
    i
}

fn describe(got: &str, want: &str) -> String {
    match first_difference(got, want) {
        None => "identical".into(),
        Some((byte, _, _)) => format!(
            "first difference at byte {byte}: {:?}",
            json_difference(got, want)
        ),
    }
}

#[test]
fn every_what_if_gives_the_body_pi_sends_with_its_take_home_made() {
    let mut failures = Vec::new();
    let mut proved = 0;
    for v in RELEASES {
        let root = dir().join(format!("pi-{v}"));
        for variant in single_call_variants().into_iter().filter(|x| applies(x, v)) {
            // The variant's base: "template" → base/, "images" → base-images/.
            let base_name = match variant.get_str("template") {
                None => "base".to_string(),
                Some(t) => format!("base-{t}"),
            };
            let base = load(&root.join(&base_name));
            let a = ctxlens::assemble(&base);
            assert_eq!(
                a.body(),
                Some(captured(&root.join(&base_name)).as_str()),
                "pi {v}: the base case {base_name} itself"
            );
            let name = variant.get_str("name").unwrap().to_string();
            let case = root.join(&name);
            let want = captured(&case);
            let vi = load(&case);
            // ctxlens rebuilds the variant itself (else a failure below is not the what-if's).
            let own = ctxlens::assemble(&vi);
            if own.body() != Some(want.as_str()) {
                failures.push(format!(
                    "pi {v} {name}: the variant case itself: {}",
                    describe(own.body().unwrap_or(""), &want)
                ));
                continue;
            }
            let inputs = base_at(&base, &vi);
            let before = ctxlens::assemble(&inputs);
            assert!(
                before.body() != Some(want.as_str()),
                "pi {v} {name}: the take-home changes nothing, so this proves nothing"
            );
            let (changed, applied) = match whatif::apply(&inputs, &before, &changes(&variant)) {
                Ok(x) => x,
                Err(e) => {
                    failures.push(format!("pi {v} {name}: {e}"));
                    continue;
                }
            };
            let after = ctxlens::assemble(&changed);
            match after.body() {
                Some(b) if b == want => proved += 1,
                Some(b) => failures.push(format!("pi {v} {name}: {}", describe(b, &want))),
                None => failures.push(format!(
                    "pi {v} {name}: no request: {:?}",
                    after.diagnostics
                )),
            }
            // The take-home is the edit the capture made.
            let edit = variant.get("edit").unwrap();
            let flags = applied.iter().rev().find_map(|a| match &a.take_home {
                TakeHome::Flags { args, .. } => Some(args.clone()),
                _ => None,
            });
            if edit.get("args").is_some() {
                assert_eq!(flags.as_ref(), Some(&vi.args), "pi {v} {name}: the flags");
            }
            let removed: Vec<String> = applied
                .iter()
                .flat_map(|a| match &a.take_home {
                    TakeHome::RemoveFiles { paths } => paths.clone(),
                    _ => Vec::new(),
                })
                .collect();
            let want_removed: Vec<String> = strings(edit.get("remove"))
                .iter()
                .map(
                    |r| match (r.strip_prefix("agent/"), r.strip_prefix("fs/")) {
                        (Some(rest), _) => format!("{}/{rest}", inputs.agent_dir),
                        (_, Some(rest)) => format!("/tmp/pi-ctx-demo/{rest}"),
                        _ => panic!("{r}"),
                    },
                )
                .collect();
            assert_eq!(removed, want_removed, "pi {v} {name}: the files removed");
            for a in &applied {
                match &a.take_home {
                    TakeHome::EditFile { path, content, .. } => {
                        // models.json as the oracle laid it: the stand-in's port is each
                        // capture's own.
                        let want = vi.files.read_to_string(path).map(|t| without_port(&t));
                        assert_eq!(want, Some(without_port(content)), "pi {v} {name}: {path}");
                    }
                    TakeHome::EditSession { content, .. } => {
                        assert_eq!(
                            vi.session.as_ref().map(|s| s.text.as_str()),
                            Some(content.as_str()),
                            "pi {v} {name}: the session"
                        );
                    }
                    _ => {}
                }
            }
            // Edits pi has no way to make: the session the what-if edited is the one captured.
            if edit.get("cutToolResult").is_some() || edit.get("dropThinking").is_some() {
                assert!(applied
                    .iter()
                    .all(|a| matches!(a.take_home, TakeHome::None { .. })));
                assert_eq!(
                    changed.session.as_ref().map(|s| s.text.as_str()),
                    vi.session.as_ref().map(|s| s.text.as_str()),
                    "pi {v} {name}: the session"
                );
            }
            if let Some(t) = edit.get_str("thinking") {
                assert_eq!(changed.thinking.as_deref(), Some(t));
                assert!(
                    matches!(&applied[0].take_home, TakeHome::Flags { flags, .. } if flags == &["--thinking".to_string(), t.to_string()])
                );
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} proved; failures:\n{}",
        proved,
        failures.join("\n")
    );
    let want: usize = RELEASES
        .iter()
        .map(|v| {
            single_call_variants()
                .iter()
                .filter(|x| applies(x, v))
                .count()
        })
        .sum();
    assert_eq!(proved, want);
}

/// The whole session: the oracle's scripted run (six calls pi really made) captured as it is
/// and with a tool it never calls off. Had the change been made at the start, each call would
/// have sent the variant run's request of the same number: the what-if rebuilds every call of
/// the base run with the change and must give those bodies, and its totals are theirs.
#[test]
fn the_whole_session_with_the_change_made_at_the_start_is_the_run_pi_makes_with_it() {
    let root = dir().join("pi-0.85.1");
    let base_dir = root.join("base-scripted");
    let variant_dir = root.join("scripted-tool");
    let after = std::fs::read_to_string(base_dir.join("expected/session.after.jsonl")).unwrap();
    let mut inputs = load(&base_dir);
    inputs.session = Some(ctxlens::SourceText {
        name: "/tmp/pi-ctx-demo/session.jsonl".into(),
        text: after.as_str().into(),
    });
    inputs.prompt = None;
    let a = ctxlens::assemble(&inputs);
    assert_eq!(a.calls.len(), 6);
    let spec = variants()
        .into_iter()
        .find(|x| x.get_str("name") == Some("scripted-tool"))
        .unwrap();
    let (changed, applied) = whatif::apply(&inputs, &a, &changes(&spec)).unwrap();
    assert!(
        matches!(&applied[0].take_home, TakeHome::Flags { args, .. } if *args == load(&variant_dir).args)
    );
    let mut chars = Vec::new();
    for k in 1..=6 {
        let want = std::fs::read_to_string(variant_dir.join(format!("expected/request-{k}.json")))
            .unwrap();
        let base_body =
            std::fs::read_to_string(base_dir.join(format!("expected/request-{k}.json"))).unwrap();
        assert_ne!(
            base_body.len(),
            want.len(),
            "call {k}: the change changes nothing"
        );
        let mut i = changed.clone();
        i.call = Some(ctxlens::calls::CallRef::Index(k));
        let b = ctxlens::assemble(&i);
        assert!(
            b.body() == Some(want.as_str()),
            "call {k}: {}",
            describe(b.body().unwrap_or(""), &want)
        );
        chars.push(b.stats().unwrap().total_chars());
    }
    let mut count = |_: &Inputs, _: &ctxlens::Assembly| None;
    let s = whatif::session(
        &ctxlens::Workspace::new(),
        &inputs,
        &inputs,
        &changes(&spec),
        &a,
        None,
        &mut count,
    );
    assert_eq!(s.calls.len(), 6);
    let got: Vec<usize> = s.calls.iter().map(|c| c.after_chars.unwrap()).collect();
    assert_eq!(got, chars);
    assert_eq!(s.after_chars, chars.iter().sum::<usize>() as u64);
    assert!(s.calls.iter().all(|c| c.note.is_none()));
    assert!(s.cost_saved.unwrap() > 0.0);
}

fn ctxlens(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ctxlens"))
        .args(args)
        .current_dir(ctxlens_corpus::workspace())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The CLI: `assemble --without` prints the changed body (the variant's capture, byte for
/// byte, on the base case) and says the change and its take-home on stderr.
#[test]
fn assemble_with_without_prints_the_body_pi_sends_with_the_take_home() {
    for v in RELEASES {
        for (variant, specs) in [
            ("tool-builtin", vec!["tool:bash"]),
            ("context-project", vec!["context:shop/AGENTS.md"]),
            (
                "combined",
                vec![
                    "tool:bash",
                    "skill:release-notes",
                    "context:shop/AGENTS.md",
                    "append-prompt",
                ],
            ),
        ] {
            let base = format!("tests/whatif/pi-{v}/base");
            let mut args = vec!["assemble", "--case", base.as_str()];
            for s in &specs {
                args.extend(["--without", s]);
            }
            let (code, out, err) = ctxlens(&args);
            assert_eq!(code, 0, "{err}");
            let want = captured(&dir().join(format!("pi-{v}/{variant}")));
            assert!(out == want, "pi {v} {variant}: {}", describe(&out, &want));
            for s in &specs {
                assert!(err.contains(&format!("ctxlens: what if {s}: ")), "{err}");
            }
            assert!(
                err.contains("for real: pi --exclude-tools bash") || !specs.contains(&"tool:bash"),
                "{err}"
            );
        }
    }
}

#[test]
fn whatif_prints_the_comparison_the_take_homes_and_the_session_as_json() {
    let (code, out, err) = ctxlens(&[
        "whatif",
        "--case",
        "tests/whatif/pi-0.85.1/base",
        "--without",
        "tool:subagent",
        "--without",
        "skill-invocation:pytest-runner",
    ]);
    assert_eq!(code, 0, "{err}");
    let j = js::parse(&out).unwrap();
    let changes = j.get("changes").and_then(Value::as_array).unwrap();
    assert_eq!(changes.len(), 2);
    let th = |k: usize| changes[k].get("takeHome").unwrap();
    assert_eq!(th(0).get_str("kind"), Some("flags"));
    assert_eq!(th(0).get_str("text"), Some("pi --exclude-tools subagent"));
    assert_eq!(th(1).get_str("kind"), Some("editFile"));
    assert_eq!(
        th(1).get_str("line"),
        Some("disable-model-invocation: true")
    );
    let block = |n: &str| {
        j.get("blocks")
            .and_then(Value::as_array)
            .unwrap()
            .iter()
            .find(|b| b.get_str("name") == Some(n))
            .unwrap()
            .clone()
    };
    let tool = block("tool subagent");
    assert_eq!(tool.get("toChars").and_then(Value::as_f64), Some(0.0));
    assert!(tool.get("fromChars").and_then(Value::as_f64).unwrap() > 0.0);
    let first = j.get("firstChange").unwrap();
    let cache = j.get("cache").unwrap();
    assert_eq!(first.get("byte"), cache.get("stablePrefixBytes"));
    let delta = j.get("delta").unwrap();
    assert!(delta.get("chars").and_then(Value::as_f64).unwrap() < 0.0);
    assert!(
        delta
            .get("costPerCall")
            .and_then(|c| c.get("input"))
            .and_then(Value::as_f64)
            .unwrap()
            < 0.0
    );
    let session = j.get("session").unwrap();
    assert_eq!(
        session.get("callsRebuilt").and_then(Value::as_f64),
        Some(6.0)
    );
    assert!(
        session
            .get("saved")
            .and_then(|s| s.get("chars"))
            .and_then(Value::as_f64)
            .unwrap()
            > 0.0
    );
    // --rebuild-calls bounds the session's rebuilds.
    let (_, out, _) = ctxlens(&[
        "whatif",
        "--case",
        "tests/whatif/pi-0.85.1/base",
        "--without",
        "tool:subagent",
        "--rebuild-calls",
        "2",
    ]);
    let j = js::parse(&out).unwrap();
    assert_eq!(
        j.get("session")
            .and_then(|s| s.get("callsRebuilt"))
            .and_then(Value::as_f64),
        Some(2.0)
    );
}

#[test]
fn what_if_usage_errors_are_one_line_and_exit_2() {
    let base = "tests/whatif/pi-0.85.1/base";
    for (args, says) in [
        (vec!["whatif", "--case", base], "whatif needs --without"),
        (
            vec!["whatif", "--case", base, "--without", "tool:grep"],
            "no tool \"grep\" is active",
        ),
        (
            vec!["whatif", "--case", base, "--without", "skill:nope"],
            "no skill \"nope\"",
        ),
        (
            vec!["whatif", "--case", base, "--without", "colour:red"],
            "unknown --without",
        ),
        (
            vec!["whatif", "--case", base, "--set", "thinking=loud"],
            "--set thinking=loud",
        ),
        (
            vec!["trace", "--case", base, "--without", "tool:bash"],
            "belong to whatif",
        ),
    ] {
        let (code, out, err) = ctxlens(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty());
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

/// `stats --without`: the accounting of the changed request, the variant's own.
#[test]
fn stats_with_without_is_the_accounting_of_the_request_with_the_take_home() {
    let (code, changed, err) = ctxlens(&[
        "stats",
        "--no-tokens",
        "--case",
        "tests/whatif/pi-1.6.0/base",
        "--without",
        "skill:release-notes",
    ]);
    assert_eq!(code, 0, "{err}");
    let (_, variant, _) = ctxlens(&[
        "stats",
        "--no-tokens",
        "--case",
        "tests/whatif/pi-1.6.0/skill",
    ]);
    let (_, base, _) = ctxlens(&[
        "stats",
        "--no-tokens",
        "--case",
        "tests/whatif/pi-1.6.0/base",
    ]);
    assert_eq!(changed, variant);
    assert_ne!(changed, base);
}

/// `--api all`: every protocol's body from one read of the inputs, each exactly the body of
/// `--api API`.
#[test]
fn api_all_prints_every_protocol_s_body_verbatim() {
    let case = "tests/whatif/pi-0.85.1/base";
    let (code, all, err) = ctxlens(&[
        "assemble",
        "--case",
        case,
        "--api",
        "all",
        "--without",
        "tool:bash",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(js::parse(&all).is_ok());
    for api in ctxlens::Api::ALL {
        let (c, one, _) = ctxlens(&[
            "assemble",
            "--case",
            case,
            "--api",
            api.as_str(),
            "--without",
            "tool:bash",
        ]);
        let value = if c == 0 { one } else { "null".into() };
        let entry = format!("\n  \"{}\": {value}", api.as_str());
        assert!(all.contains(&entry), "{}", api.as_str());
    }
    let (code, _, err) = ctxlens(&["trace", "--case", case, "--api", "all"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--api all belongs to assemble and stats"),
        "{err}"
    );
}

/// `--set pi=VERSION`: the inputs read again as that release reads them; the changed request
/// is that release's, and the take-home installs it.
#[test]
fn set_pi_is_the_request_of_the_other_release() {
    let case = "tests/whatif/pi-0.85.1/base";
    let (code, changed, err) = ctxlens(&["assemble", "--case", case, "--set", "pi=1.6.0"]);
    assert_eq!(code, 0, "{err}");
    let (_, other, _) = ctxlens(&["assemble", "--case", case, "--pi", "1.6.0"]);
    let (_, own, _) = ctxlens(&["assemble", "--case", case]);
    assert_eq!(changed, other);
    assert_ne!(changed, own);
    let (_, out, _) = ctxlens(&[
        "whatif",
        "--case",
        case,
        "--set",
        "pi=1.6.0",
        "--without",
        "image:all",
    ]);
    assert!(out.is_empty(), "no images: a usage error");
    let (_, out, _) = ctxlens(&[
        "whatif",
        "--case",
        "tests/whatif/pi-1.6.0/base-images",
        "--set",
        "pi=0.85.1",
        "--without",
        "image:all",
    ]);
    let j = js::parse(&out).unwrap();
    let th = j.get("changes").and_then(Value::as_array).unwrap()[0]
        .get("takeHome")
        .unwrap()
        .clone();
    assert_eq!(
        th.get_str("command"),
        Some("npm install -g @earendil-works/pi-coding-agent@0.85.1")
    );
    let images = |side: &str| {
        j.get(side)
            .and_then(|s| s.get("images"))
            .and_then(Value::as_f64)
    };
    assert_eq!((images("before"), images("after")), (Some(3.0), Some(0.0)));
}

/// `stats` lists each pi package with what it brings and costs; `--without package:NAME` is
/// the request with its settings entry removed, which pi sent for sp-resume-same.
#[test]
fn stats_prices_each_package_and_a_package_off_is_pis_request_without_it() {
    let (code, out, err) = ctxlens(&[
        "stats",
        "--no-tokens",
        "--case",
        "tests/conformance/pi-0.85.1/pkg-npm",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = js::parse(&out).unwrap();
    let pkgs = v.get("packages").and_then(Value::as_array).unwrap();
    let sources: Vec<&str> = pkgs.iter().filter_map(|p| p.get_str("source")).collect();
    assert_eq!(
        sources,
        [
            "npm:@acme/pi-kit",
            "npm:plain-kit@^2.0.0",
            "npm:meta-kit",
            "npm:ghost-kit"
        ]
    );
    let kit = &pkgs[0];
    let skills = kit.get("skills").and_then(Value::as_array).unwrap();
    // The package's lint skill lost to the user's: only review is its.
    assert_eq!(skills.len(), 1);
    assert_eq!(skills[0].get_str("name"), Some("review"));
    let review = skills[0].get("chars").and_then(Value::as_f64).unwrap();
    let fix = kit
        .get("promptTemplates")
        .and_then(Value::as_array)
        .unwrap()[0]
        .get("usedChars")
        .and_then(Value::as_f64)
        .unwrap();
    assert_eq!(kit.get("chars").and_then(Value::as_f64), Some(review + fix));
    assert_eq!(pkgs[3].get("installed"), Some(&Value::Null));
    assert_eq!(pkgs[3].get("line").and_then(Value::as_f64), Some(6.0));
    // The report the app and the npm package read has the same packages.
    let (code, report, err) = ctxlens(&["report", "--case", "tests/conformance/pi-0.85.1/pkg-npm"]);
    assert_eq!(code, 0, "{err}");
    let report = js::parse(&report).unwrap();
    assert_eq!(
        report.get("packages").map(Value::to_json),
        v.get("packages").map(Value::to_json)
    );

    let (code, changed, err) = ctxlens(&[
        "assemble",
        "--case",
        "tests/conformance/pi-1.6.0/pkg-resume",
        "--without",
        "package:deploy-kit",
    ]);
    assert_eq!(code, 0, "{err}");
    let want = std::fs::read_to_string(
        dir().join("../conformance/pi-1.6.0/sp-resume-same/expected/request-1.json"),
    )
    .unwrap();
    assert_eq!(changed, want);
}

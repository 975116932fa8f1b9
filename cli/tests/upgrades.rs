//! Sessions that lived through pi upgrades (tests/upgrades/<case>/, captured by
//! `scripts/capture-upgrade.mjs`: one run per stage, each by its own release, each resuming the
//! session the stage before left). Every call of the last stage's `session.after.jsonl` is
//! rebuilt with **no release given** and must be byte-identical to the request the release that
//! made it sent: the release of each call comes from what the session proves around it.
//!
//! A stage's own inputs (its pi package folder, the model and level it was run with) are those of
//! its `env.json`; only the release is left for ctxlens to find.

use ctxlens::calls::CallRef;
use ctxlens::case::{call_inputs, first_difference, inputs_from_case};

struct Stage {
    dir: String,
    release: String,
    requests: usize,
}

fn stages(files: &ctxlens::case::CaseFiles) -> Vec<Stage> {
    let mut dirs: Vec<String> = files
        .keys()
        .filter_map(|k| k.strip_prefix("captured/")?.split_once("/env.json"))
        .map(|(d, _)| format!("captured/{d}"))
        .collect();
    dirs.sort_by_key(|d| {
        d["captured/".len()..]
            .split('-')
            .next()
            .and_then(|n| n.parse::<u32>().ok())
    });
    dirs.into_iter()
        .map(|dir| {
            let release = dir.rsplit('-').next().unwrap_or_default().to_string();
            let requests = (1..)
                .take_while(|n| files.contains_key(&format!("{dir}/request-{n}.json")))
                .count();
            Stage {
                dir,
                release,
                requests,
            }
        })
        .collect()
}

#[test]
fn every_call_of_an_upgraded_session_is_rebuilt_by_the_release_that_made_it() {
    let root = ctxlens_corpus::workspace().join("tests/upgrades");
    let mut names: Vec<_> = std::fs::read_dir(&root)
        .expect("tests/upgrades")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("case.json").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 2, "upgrade cases: {names:?}");
    let mut failures = Vec::new();
    let mut checked = 0;
    for name in names {
        let files = ctxlens_corpus::read_folder(&root.join(&name)).expect("case folder");
        let stages = stages(&files);
        assert!(
            stages.len() >= 2,
            "{name}: stages {:?}",
            stages.iter().map(|s| &s.dir).collect::<Vec<_>>()
        );
        let last = stages.last().unwrap();
        let after = String::from_utf8(files[&format!("{}/session.after.jsonl", last.dir)].clone())
            .expect("utf-8 session");
        let mut k = 0;
        for stage in &stages {
            let mut base = inputs_from_case(&files, Some(&stage.dir)).expect("inputs");
            assert_eq!(
                base.captured_pi.map(|v| v.to_string()).as_deref(),
                Some(stage.release.as_str())
            );
            // No release given: what made each call is for ctxlens to find.
            base.captured_pi = None;
            base.pi = None;
            base.installed_pi = None;
            for n in 1..=stage.requests {
                k += 1;
                let want =
                    String::from_utf8(files[&format!("{}/request-{n}.json", stage.dir)].clone())
                        .unwrap();
                let given = call_inputs(&base, &after, CallRef::Index(k));
                // Also with only the model and level the session records.
                let mut derived = given.clone();
                derived.model = None;
                derived.thinking = None;
                for (pass, inputs) in [
                    ("", given),
                    (" (model and level from the session)", derived),
                ] {
                    checked += 1;
                    let a = ctxlens::assemble(&inputs);
                    let chose = a.choice.as_ref().map(|c| c.explain()).unwrap_or_default();
                    let candidates: Vec<String> = a
                        .choice
                        .as_ref()
                        .and_then(|c| c.detection.as_ref())
                        .map(|d| d.candidates.iter().map(|v| v.to_string()).collect())
                        .unwrap_or_default();
                    let v = a.pi.map(|p| p.version.to_string()).unwrap_or_default();
                    match a.body() {
                        // The release that made it, or — where the session cannot tell it from
                        // another that writes sessions alike — one of those, the choice offered.
                        Some(body) if body == want => {
                            if v != stage.release
                                && !(candidates.len() > 1 && candidates.contains(&stage.release))
                            {
                                failures.push(format!(
                                    "{name} call {k}{pass}: the body is pi {}'s, but {chose}",
                                    stage.release
                                ));
                            }
                        }
                        Some(body) => failures.push(format!(
                            "{name} call {k}{pass} (pi {} request-{n}): {chose}: {}",
                            stage.release,
                            first_difference(body, &want)
                                .map(|(at, got, want)| format!(
                                    "byte {at}: {got:?} where pi sent {want:?}"
                                ))
                                .unwrap_or_default()
                        )),
                        None => failures.push(format!(
                            "{name} call {k}{pass}: no request: {:?}",
                            a.diagnostics
                        )),
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} calls:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

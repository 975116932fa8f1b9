//! The conformance suite: every captured case in tests/conformance/ must assemble to exactly the
//! bytes pi sent (expected/request-1.json). Bytes are compared, not parsed JSON.

use std::path::{Path, PathBuf};

use ctxlens_cli::case;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance")
}

fn cases(filter: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(corpus())
        .expect("tests/conformance exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("case.json").is_file() && p.join("expected/request-1.json").is_file())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().contains(filter))
        })
        .collect();
    v.sort();
    // The visualizer's demo is a captured case too.
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../www/demo");
    if "demo".contains(filter) || filter.is_empty() {
        v.push(demo);
    }
    v
}

#[test]
fn every_case_is_byte_identical() {
    // `CTXLENS_CASE=oc-` narrows the run to matching case names.
    let filter = std::env::var("CTXLENS_CASE").unwrap_or_default();
    let all = cases(&filter);
    assert!(!all.is_empty(), "no conformance cases found");
    let mut failures = Vec::new();
    for dir in &all {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let loaded = match case::load(dir, &dir.join("expected/env.json")) {
            Ok(l) => l,
            Err(e) => {
                failures.push(format!("{name}: cannot load: {e}"));
                continue;
            }
        };
        let expected = std::fs::read_to_string(dir.join("expected/request-1.json")).unwrap();
        let assembly = ctxlens::assemble(&loaded.inputs);
        match assembly.body() {
            None => failures.push(format!(
                "{name}: no request built: {}",
                assembly
                    .diagnostics
                    .iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join("; ")
            )),
            Some(body) => {
                if let Some((pos, got, want)) = case::first_difference(body, &expected) {
                    failures.push(format!(
                        "{name}: differs at byte {pos}\n     got: …{got}…\n    want: …{want}…"
                    ));
                }
            }
        }
    }
    let passed = all.len() - failures.len();
    println!(
        "conformance: {passed} of {} cases byte-identical",
        all.len()
    );
    if !failures.is_empty() {
        panic!(
            "{} of {} cases differ:\n{}",
            failures.len(),
            all.len(),
            failures.join("\n")
        );
    }
}

/// Scripted captures hold later requests too (`request-2.json`, ...): pi sent them after running
/// tool calls, with no new prompt. Each must be byte-identical as well.
#[test]
fn every_continuation_is_byte_identical() {
    let filter = std::env::var("CTXLENS_CASE").unwrap_or_default();
    let mut total = 0;
    let mut failures = Vec::new();
    for dir in cases(&filter) {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let Ok(after) = std::fs::read_to_string(dir.join("expected/session.after.jsonl")) else {
            continue;
        };
        let Ok(loaded) = case::load(&dir, &dir.join("expected/env.json")) else {
            continue;
        };
        for n in 2.. {
            let Ok(expected) =
                std::fs::read_to_string(dir.join(format!("expected/request-{n}.json")))
            else {
                break;
            };
            total += 1;
            let Some(inputs) = ctxlens::case::continuation_inputs(&loaded.inputs, &after, n) else {
                failures.push(format!(
                    "{name} request-{n}: session.after.jsonl has fewer turns"
                ));
                continue;
            };
            match ctxlens::assemble(&inputs).body() {
                None => failures.push(format!("{name} request-{n}: no request built")),
                Some(body) => {
                    if let Some((pos, got, want)) = case::first_difference(body, &expected) {
                        failures.push(format!("{name} request-{n}: differs at byte {pos}\n     got: …{got}…\n    want: …{want}…"));
                    }
                }
            }
        }
    }
    println!(
        "continuations: {} of {total} requests byte-identical",
        total - failures.len()
    );
    if !failures.is_empty() {
        panic!(
            "{} of {total} continuation requests differ:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }
}

fn is_credential(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.contains("auth") || n.contains("api-key") || n.contains("cookie")
}

/// The protocol's own headers and the URL path match the capture: same names, same values
/// (credentials only by presence), same order.
#[test]
fn every_case_has_the_captured_url_and_headers() {
    let filter = std::env::var("CTXLENS_CASE").unwrap_or_default();
    let all = cases(&filter);
    let mut failures = Vec::new();
    for dir in &all {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let Ok(meta) = std::fs::read_to_string(dir.join("expected/request-1.meta.json")) else {
            continue;
        };
        let meta = ctxlens::js::parse(&meta).expect("meta.json is JSON");
        let Ok(loaded) = case::load(dir, &dir.join("expected/env.json")) else {
            continue;
        };
        let assembly = ctxlens::assemble(&loaded.inputs);
        let Some(req) = &assembly.request else {
            failures.push(format!("{name}: no request built"));
            continue;
        };
        let want_path = meta.get_str("url").unwrap_or("");
        let got_path = req
            .url
            .find("://")
            .and_then(|i| req.url[i + 3..].find('/').map(|j| &req.url[i + 3 + j..]))
            .unwrap_or(&req.url);
        if got_path != want_path {
            failures.push(format!(
                "{name}: url path {got_path:?}, pi sent {want_path:?}"
            ));
        }
        // The runtime headers the core names for this protocol are the only ones left out.
        let api = assembly
            .parts
            .model_choice
            .model
            .as_ref()
            .map(|m| m.api().to_string())
            .unwrap_or_default();
        let runtime = api
            .parse::<ctxlens::Api>()
            .map_or(&[][..], ctxlens::Api::runtime_headers);
        let norm = |k: &str, v: &str| -> (String, String) {
            let k = k.to_ascii_lowercase();
            let v = if is_credential(&k) {
                "<redacted>".to_string()
            } else {
                v.to_string()
            };
            (k, v)
        };
        let want: Vec<(String, String)> = meta
            .get("headers")
            .and_then(|h| h.as_object())
            .map(|h| {
                h.iter()
                    .filter(|(k, _)| !runtime.contains(&k.to_ascii_lowercase().as_str()))
                    .map(|(k, v)| norm(k, v.as_str().unwrap_or("")))
                    .collect()
            })
            .unwrap_or_default();
        let got: Vec<(String, String)> = req.headers.iter().map(|(k, v)| norm(k, v)).collect();
        if got != want {
            failures.push(format!(
                "{name}: headers differ\n     got: {got:?}\n    want: {want:?}"
            ));
        }
    }
    println!(
        "headers: {} of {} cases match",
        all.len() - failures.len(),
        all.len()
    );
    if !failures.is_empty() {
        panic!(
            "{} of {} cases differ in URL or headers:\n{}",
            failures.len(),
            all.len(),
            failures.join("\n")
        );
    }
}

/// `--api` switches any case to any of the nine protocols: a request comes out, or — only where
/// the session itself makes pi throw (a stored reasoning signature that is not JSON) — a
/// diagnostic saying so. Where pi would refuse only because the model's key or level map belongs
/// to its own protocol, the switched adapter states a stand-in instead. Never a panic.
#[test]
fn every_case_switches_to_every_protocol() {
    let filter = std::env::var("CTXLENS_CASE").unwrap_or_default();
    let mut built = 0;
    let mut refused: Vec<String> = Vec::new();
    let mut bad: Vec<String> = Vec::new();
    for dir in cases(&filter) {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let Ok(loaded) = case::load(&dir, &dir.join("expected/env.json")) else {
            continue;
        };
        for api in ctxlens::Api::ALL {
            let mut inputs = loaded.inputs.clone();
            inputs.api = Some(api);
            let a = ctxlens::assemble(&inputs);
            if a.request.is_some() {
                built += 1;
            } else if let Some(d) = a
                .diagnostics
                .iter()
                .find(|d| d.message.starts_with("pi would fail here"))
            {
                refused.push(format!("{name} → {api}: {}", d.message));
            } else {
                bad.push(format!(
                    "{name} → {api}: no request and no reason: {:?}",
                    a.diagnostics
                ));
            }
        }
    }
    println!(
        "protocol switch: {built} requests built, {} refused as pi would refuse:",
        refused.len()
    );
    for r in &refused {
        println!("  {r}");
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // Only failures that come from the session's own data remain.
    assert!(
        refused
            .iter()
            .all(|r| r.contains("thinkingSignature is not JSON")),
        "{}",
        refused.join("\n")
    );
    assert!(built > 0);
}

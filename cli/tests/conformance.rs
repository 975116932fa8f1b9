//! The conformance suite over the captured corpus (tests/conformance/ and the demo), each case on
//! the pi release that captured it (`expected/env.json` `piVersion`):
//!
//! - every body is byte-identical to what pi sent (bytes compared, not parsed JSON); a failure
//!   names the byte, the JSON path of the first difference and the source of that part;
//! - every URL path and protocol header;
//! - every request of every capture (request-1 … request-N) rebuilt as a past call (`--call K`)
//!   from the session pi left (`session.after.jsonl`): bytes, URL path and headers;
//! - where pi sent nothing (`expected/pi-error.txt`), ctxlens builds nothing and says why;
//! - every case switches to every protocol without a panic;
//! - per case, snapshots of what ctxlens says beyond pi's bytes, kept by concern in
//!   `tests/snapshots/` (the statistics, the trace, the findings, the diagnostics and calls, and
//!   under each other protocol the URL, headers, the body's size and hash and its accounting;
//!   see `conformance/snapshots.rs`), so a change in behaviour is a reviewed diff.
//!   `UPDATE_EXPECT=1` rewrites them.
//!
//! `CTXLENS_CASE=oc-` narrows every test to the cases whose name contains the text.

use ctxlens::calls::CallRef;
use ctxlens::case::{
    call_inputs, calls_on_active_branch, first_difference, inputs_from_case, json_difference,
};
use ctxlens::js::{self, Value};
use ctxlens::{Api, Assembly, Inputs};
use ctxlens_corpus::Case;

fn cases() -> Vec<Case> {
    let all = ctxlens_corpus::cases(&ctxlens_corpus::filter_from_env());
    assert!(!all.is_empty(), "no conformance cases found");
    all
}

fn load(case: &Case) -> Result<Inputs, String> {
    inputs_from_case(&case.files(), None).map_err(|e| format!("{}: cannot load: {e}", case.name))
}

/// The failing cases grouped by where they first differ: the JSON body path of the first
/// difference with array indices as `[]` (`messages[].content[].text`), else `url`, `headers`
/// or `no request`. Printed with a failure (and by `scripts/add-pi-release.sh`): each group is
/// one rule that changed, or one not yet found.
#[derive(Default)]
struct Groups(std::collections::BTreeMap<String, Vec<String>>);

impl Groups {
    fn add(&mut self, key: String, name: &str) {
        self.0.entry(key).or_default().push(name.to_string());
    }

    /// Groups a body that differs by the JSON path of its first difference.
    fn body(&mut self, name: &str, body: &str, want: &str) {
        let key = match json_difference(body, want) {
            Some((path, _, _)) => format!("body {}", generic_path(&path)),
            None => "body (the same JSON, other bytes)".to_string(),
        };
        self.add(key, name);
    }

    fn print(&self, what: &str) {
        if self.0.is_empty() {
            return;
        }
        println!(
            "{what}: first differences by body path ({} groups):",
            self.0.len()
        );
        let mut groups: Vec<_> = self.0.iter().collect();
        groups.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
        for (key, names) in groups {
            println!("  {key}: {} — {}", names.len(), names.join(", "));
        }
    }
}

/// A JSON path with its array indices blanked: `messages[3].content[0]` → `messages[].content[]`.
fn generic_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for (i, seg) in path.split('.').enumerate() {
        if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
            out.push_str("[]");
        } else {
            if i > 0 {
                out.push('.');
            }
            out.push_str(seg);
        }
    }
    out
}

#[test]
fn body_paths_group_by_shape() {
    assert_eq!(
        generic_path("messages.3.content.10.text"),
        "messages[].content[].text"
    );
    assert_eq!(generic_path("system"), "system");
}

/// Why `body` is not `want`: the byte, the JSON path, and the source of that part of the body.
fn explain(name: &str, a: &Assembly, body: &str, want: &str) -> Option<String> {
    let (pos, got_ctx, want_ctx) = first_difference(body, want)?;
    let mut out =
        format!("{name}: differs at byte {pos}\n     got: …{got_ctx}…\n    want: …{want_ctx}…");
    if let Some((path, got, want)) = json_difference(body, want) {
        out.push_str(&format!(
            "\n    path: {path}\n     got: {got}\n    want: {want}"
        ));
        // The nearest part of the body whose source ctxlens knows.
        let origins = ctxlens::provenance::provenance(a);
        let source =
            std::iter::successors(Some(path.as_str()), |p| p.rsplit_once('.').map(|(h, _)| h))
                .find_map(|p| origins.iter().find(|o| o.path == p));
        if let Some(o) = source {
            let src = ctxlens::report::provenance::source_json(&o.source);
            out.push_str(&format!("\n  source: {} ({})", src.to_json(), o.path));
        }
    }
    Some(out)
}

#[test]
fn every_case_is_byte_identical() {
    let all = cases();
    let mut failures = Vec::new();
    let mut groups = Groups::default();
    let mut per_version: std::collections::BTreeMap<String, usize> = Default::default();
    let mut checked = 0;
    for case in &all {
        let Some(want) = case.body(1) else { continue };
        checked += 1;
        let inputs = match load(case) {
            Ok(i) => i,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        let a = ctxlens::assemble(&inputs);
        match a.body() {
            None => {
                groups.add("no request".into(), &case.name);
                failures.push(format!(
                    "{}: no request built: {}",
                    case.name,
                    a.diagnostics
                        .iter()
                        .map(|d| d.to_string())
                        .collect::<Vec<_>>()
                        .join("; ")
                ))
            }
            Some(body) => match explain(&case.name, &a, body, &want) {
                Some(why) => {
                    groups.body(&case.name, body, &want);
                    failures.push(why)
                }
                None => {
                    // Each case is rebuilt with the release that captured it.
                    let rebuilt = a.pi.as_ref().map(|p| p.version);
                    assert_eq!(rebuilt, inputs.captured_pi, "{}", case.name);
                    *per_version
                        .entry(rebuilt.map_or("?".into(), |v| v.to_string()))
                        .or_default() += 1
                }
            },
        }
    }
    println!(
        "conformance: {} of {checked} cases byte-identical ({})",
        checked - failures.len(),
        per_version
            .iter()
            .map(|(v, n)| format!("pi {v}: {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    groups.print("cases");
    assert!(
        failures.is_empty(),
        "{} of {checked} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every request of every capture, request-1 included, rebuilt as a past call (`--call K`) from
/// the session pi left (`session.after.jsonl`): request `n` is call `k = calls before the run on
/// the branch + n`. Body bytes, URL path and headers all as pi sent them; the model and thinking
/// level as the run was given them (`env.json`), or, in a second pass, as the session records
/// them (counted and checked too).
#[test]
fn every_call_is_byte_identical() {
    let mut per_version: std::collections::BTreeMap<String, (usize, usize, usize, usize)> =
        Default::default();
    let mut failures = Vec::new();
    let mut groups = Groups::default();
    for case in cases() {
        let Some(after) = case.session_after() else {
            continue;
        };
        let Ok(base) = load(&case) else { continue };
        let version = base.captured_pi.map_or("?".into(), |v| v.to_string());
        let requests = (1..).take_while(|&n| case.body(n).is_some()).count();
        let total = calls_on_active_branch(&call_inputs(&base, &after, CallRef::Next));
        let Some(before) = total.checked_sub(requests) else {
            failures.push(format!(
                "{}: {requests} requests but {total} calls on the branch of session.after.jsonl",
                case.name
            ));
            continue;
        };
        // Calls on the branch before the run; where pi rewrote links it had in memory (a v1
        // line that could not keep its id, a run appended after an entry without an id) the
        // branch of session.after.jsonl holds fewer, and the run's calls are its last ones.
        let before_run = calls_on_active_branch(&base);
        let before = if before_run + requests <= total {
            before_run
        } else {
            println!(
                "calls: {}: {before_run} calls on the branch before the run, {before} below the run's on the branch of session.after.jsonl",
                case.name
            );
            before
        };
        for n in 1.. {
            let Some(want) = case.body(n) else { break };
            let k = before + n;
            let name = format!("{} request-{n} (call {k})", case.name);
            let given = call_inputs(&base, &after, CallRef::Index(k));
            let mut derived = given.clone();
            derived.model = None;
            derived.thinking = None;
            let entry = &mut per_version.entry(version.clone()).or_default();
            entry.0 += 1;
            for (pass, inputs) in [("", &given), (" from the session's model", &derived)] {
                let a = ctxlens::assemble(inputs);
                let mut group = "no request".to_string();
                let why = match a.body() {
                    None => Some(format!(
                        "{name}{pass}: no request built: {:?}",
                        a.diagnostics
                            .iter()
                            .map(|d| d.to_string())
                            .collect::<Vec<_>>()
                    )),
                    Some(body) => {
                        group = match json_difference(body, &want) {
                            Some((path, _, _)) => format!("body {}", generic_path(&path)),
                            None => "url or headers".to_string(),
                        };
                        explain(&format!("{name}{pass}"), &a, body, &want).or_else(|| {
                            let meta = js::parse(&case.meta(n)?).ok()?;
                            request_differs(&a, &meta).map(|d| format!("{name}{pass}: {d}"))
                        })
                    }
                };
                if why.is_some() && pass.is_empty() {
                    groups.add(group, &name);
                }
                match (why, pass.is_empty()) {
                    (None, true) => entry.1 += 1,
                    (None, false) => entry.2 += 1,
                    (Some(w), true) => failures.push(w),
                    // Without the run's flags, what the session does not record: a thinking
                    // level given on resume (0.85 records none on the answer), a model pi made
                    // from --model (said in a warning), a flag that needs --model.
                    (Some(w), false) => {
                        let level_unrecorded = a
                            .call
                            .as_ref()
                            .is_some_and(|c| c.thinking_from == "session")
                            && given
                                .thinking
                                .as_deref()
                                .is_some_and(|t| t != a.parts.model_choice.requested_level);
                        let said = a.diagnostics.iter().any(|d| {
                            d.message.contains("is not one pi can restore")
                                || d.message.contains("requires a model to be specified")
                                || d.message.contains("--provider requires --model")
                        });
                        if level_unrecorded || said {
                            entry.3 += 1;
                        } else {
                            failures.push(w);
                        }
                    }
                }
            }
        }
    }
    for (v, (total, ok, derived, unrecorded)) in &per_version {
        println!(
            "calls: pi {v}: {ok} of {total} requests byte-identical as past calls (url and headers too); {derived} of {total} also with only the model and level the session records ({unrecorded} need the run's --model/--thinking, which the session does not record)"
        );
    }
    groups.print("calls");
    assert!(
        failures.is_empty(),
        "{} call rebuilds differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn is_credential(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.contains("auth") || n.contains("api-key") || n.contains("cookie")
}

/// Where the request's URL path or protocol headers differ from what pi sent (`meta`: a
/// capture's `request-N.meta.json`): the same names, the same values (credentials only by
/// presence), the same order. The runtime headers the core names for the protocol are left out.
fn request_differs(a: &Assembly, meta: &Value) -> Option<String> {
    let Some(req) = &a.request else {
        return Some("no request built".into());
    };
    let want_path = meta.get_str("url").unwrap_or("");
    let got_path = req
        .url
        .find("://")
        .and_then(|i| req.url[i + 3..].find('/').map(|j| &req.url[i + 3 + j..]))
        .unwrap_or(&req.url);
    if got_path != want_path {
        return Some(format!("url path {got_path:?}, pi sent {want_path:?}"));
    }
    let api = a
        .parts
        .model_choice
        .model
        .as_ref()
        .map(|m| m.api().to_string())
        .unwrap_or_default();
    let runtime = api.parse::<Api>().map_or(&[][..], Api::runtime_headers);
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
    (got != want).then(|| format!("headers differ\n     got: {got:?}\n    want: {want:?}"))
}

/// The protocol's own headers and the URL path match the capture.
#[test]
fn every_case_has_the_captured_url_and_headers() {
    let all = cases();
    let mut failures = Vec::new();
    let mut groups = Groups::default();
    let mut checked = 0;
    for case in &all {
        let Some(meta) = case.meta(1) else { continue };
        let Ok(inputs) = load(case) else { continue };
        checked += 1;
        let meta = js::parse(&meta).expect("meta.json is JSON");
        let a = ctxlens::assemble(&inputs);
        if let Some(d) = request_differs(&a, &meta) {
            let key = if d.starts_with("url path") {
                "url path"
            } else {
                "headers"
            };
            groups.add(key.to_string(), &case.name);
            failures.push(format!("{}: {d}", case.name));
        }
    }
    groups.print("url and headers");
    println!(
        "headers: {} of {checked} cases match",
        checked - failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {checked} cases differ in URL or headers:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Where pi sent nothing (its error kept as `expected/pi-error.txt`), ctxlens builds no request
/// either, and a "pi would fail here" diagnostic carries pi's message.
#[test]
fn every_refused_case_is_refused() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for case in cases() {
        let Some(error) = case.pi_error() else {
            continue;
        };
        checked += 1;
        let inputs = match load(&case) {
            Ok(i) => i,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        let a = ctxlens::assemble(&inputs);
        let said = a.diagnostics.iter().any(|d| {
            d.message.starts_with("pi would fail here") && d.message.contains(error.trim())
        });
        if a.request.is_some() || !said {
            failures.push(format!(
                "{}: pi sent nothing ({}), ctxlens {}: {:?}",
                case.name,
                error.trim(),
                if a.request.is_some() {
                    "built a request"
                } else {
                    "did not say why"
                },
                a.diagnostics
                    .iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
            ));
        }
    }
    println!(
        "refused: {} of {checked} cases refused as pi refuses",
        checked - failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `--api` switches any case to any of the nine protocols: a request comes out, or — only where
/// the session itself makes pi throw (a stored reasoning signature that is not JSON, a message
/// too deep to copy), or where pi refuses the case whatever the protocol (its error kept as
/// `expected/pi-error.txt`: a model it cannot resolve) — a diagnostic saying so. Where pi would refuse only because the model's
/// key or level map belongs to its own protocol, the switched adapter states a stand-in
/// instead. Never a panic.
#[test]
fn every_case_switches_to_every_protocol() {
    let mut built = 0;
    let mut not_ported = 0;
    let mut refused: Vec<String> = Vec::new();
    let mut bad: Vec<String> = Vec::new();
    for case in cases() {
        let Ok(base) = load(&case) else { continue };
        for api in Api::ALL {
            let mut inputs = base.clone();
            inputs.api = Some(api);
            let a = ctxlens::assemble(&inputs);
            if a.request.is_some() {
                built += 1;
            } else if let Some(d) = a
                .diagnostics
                .iter()
                .find(|d| d.message.starts_with("pi would fail here"))
            {
                // A case pi refuses is refused under every protocol, for the same reason.
                let own = case
                    .pi_error()
                    .is_some_and(|e| d.message.contains(e.trim()));
                if !own {
                    refused.push(format!("{} → {api}: {}", case.name, d.message));
                }
            } else if a
                .diagnostics
                .iter()
                .any(|d| d.message.starts_with("ctxlens has not ported"))
            {
                not_ported += 1;
            } else {
                bad.push(format!(
                    "{} → {api}: no request and no reason: {:?}",
                    case.name, a.diagnostics
                ));
            }
        }
    }
    println!(
        "protocol switch: {built} requests built, {not_ported} not built (adapter not ported for that release), {} refused as pi would refuse:",
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
            .all(|r| r.contains("thinkingSignature is not JSON")
                || r.contains("Maximum call stack size exceeded")),
        "{}",
        refused.join("\n")
    );
    assert!(built > 0);
}

#[path = "conformance/snapshots.rs"]
mod snapshots;

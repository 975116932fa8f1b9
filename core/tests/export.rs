//! The export's case folder (`case::case_from_inputs`, the CLI's `export` and `open`) lays out
//! again as the same inputs: every case of the corpus, exported and read back, gives pi's
//! request byte for byte; a redacted export still assembles and holds none of what it replaced.

use ctxlens_assembly::case::{case_from_inputs, inputs_from_case, manifest};
use ctxlens_assembly::redact::{redact, Identity};
use ctxlens_assembly::{assemble, js};

#[test]
fn every_case_exported_and_read_back_gives_the_same_request() {
    let mut checked = 0;
    for case in ctxlens_corpus::cases(&ctxlens_corpus::filter_from_env()) {
        let Ok(inputs) = inputs_from_case(&case.files(), None) else {
            continue;
        };
        let a = assemble(&inputs);
        let version = a.pi.as_ref().map(|p| p.version);
        let exported = case_from_inputs(&inputs, version);
        let back = inputs_from_case(&exported, None)
            .unwrap_or_else(|e| panic!("{}: the export does not lay out: {e}", case.name));
        let b = assemble(&back);
        assert_eq!(
            a.pi.as_ref().map(|p| p.version),
            b.pi.as_ref().map(|p| p.version),
            "{}",
            case.name
        );
        match (&a.request, &b.request) {
            (Some(x), Some(y)) => {
                assert!(x.body == y.body, "{}: the body differs", case.name);
                assert_eq!(x.url, y.url, "{}", case.name);
                assert_eq!(x.headers, y.headers, "{}", case.name);
            }
            (None, None) => {}
            _ => panic!("{}: a request on one side only", case.name),
        }
        checked += 1;
    }
    assert!(checked > 100, "only {checked} cases");
}

#[test]
fn the_manifest_lists_every_file() {
    let inputs = inputs_from_case(&ctxlens_corpus::Case::named("demo").files(), None).unwrap();
    let files = case_from_inputs(&inputs, None);
    let m = js::parse(&manifest(&files)).unwrap();
    let listed: Vec<&str> = m
        .get("files")
        .and_then(js::Value::as_array)
        .unwrap()
        .iter()
        .filter_map(js::Value::as_str)
        .collect();
    assert_eq!(listed, files.keys().map(String::as_str).collect::<Vec<_>>());
    assert!(listed.contains(&"session.jsonl") && listed.contains(&"expected/env.json"));
}

#[test]
fn a_redacted_export_assembles_and_holds_none_of_the_originals() {
    // The demo as if it lived in alice's home, with keys in auth.json, the environment, a
    // header of models.json and the session.
    let mut inputs = inputs_from_case(&ctxlens_corpus::Case::named("demo").files(), None).unwrap();
    let key = "sk-ant-api03-Zq8xYw7VuT6sR5qP4oN3mL2kJ1iH0gF9eD8cB7aZ6yX5";
    let env_key = "sk-proj-Abc123Def456Ghi789Jkl012Mno345Pqr678";
    let home = inputs.home.clone();
    let session = inputs.session.as_ref().unwrap().text.to_string();
    let session = session.replacen(
        "\"content\":[{\"type\":\"text\",\"text\":\"",
        &format!("\"content\":[{{\"type\":\"text\",\"text\":\"my key is {key} on alice-box. "),
        1,
    );
    assert!(session.contains(key), "the key went into a message");
    inputs.session.as_mut().unwrap().text = session.as_str().into();
    inputs.files.insert(
        &format!("{}/auth.json", inputs.agent_dir),
        format!(r#"{{"anthropic":{{"type":"api_key","key":"{key}"}}}}"#),
    );
    inputs
        .env
        .insert("OPENAI_API_KEY".into(), env_key.to_string());
    let a = assemble(&inputs);
    let files = case_from_inputs(&inputs, a.pi.as_ref().map(|p| p.version));
    let who = Identity {
        home: Some(home.clone()),
        user: Some("alice".into()),
        hosts: vec!["alice-box".into()],
    };
    let (red, report) = redact(&files, &who);
    let all: String = red
        .iter()
        .map(|(k, v)| format!("{k}\n{}\n", String::from_utf8_lossy(v)))
        .collect();
    for original in [key, env_key, home.as_str(), "alice-box"] {
        assert!(!all.contains(original), "{original} is still in the export");
    }
    let summary = report.summary();
    assert!(
        summary.contains("home path")
            && summary.contains("host name")
            && summary.contains("API key"),
        "{summary}"
    );
    let back = inputs_from_case(&red, None).expect("the redacted case lays out");
    let b = assemble(&back);
    let body = &b
        .request
        .as_ref()
        .expect("the redacted case assembles")
        .body;
    assert!(
        body.contains("on host00000. "),
        "the message is there, redacted"
    );
    assert!(!body.contains(&*home), "the body has no home path");
    // Only what was replaced changed: the body is the original's with the same replacements.
    let mut with_body = files.clone();
    with_body.insert(
        "expected/original-body.json".into(),
        a.request.as_ref().unwrap().body.as_bytes().to_vec(),
    );
    let (red2, _) = redact(&with_body, &who);
    assert!(
        red2["expected/original-body.json"] == body.as_bytes(),
        "the redacted case builds the original body, redacted"
    );
}

#[test]
fn folders_pi_tests_for_existence_are_kept() {
    let mut inputs = inputs_from_case(&ctxlens_corpus::Case::named("demo").files(), None).unwrap();
    let git = format!("{}/.git", inputs.cwd);
    inputs.files.insert_dir(&git);
    let back = inputs_from_case(&case_from_inputs(&inputs, None), None).unwrap();
    assert!(back.files.is_dir(&git), "the empty folder is still there");
    assert_eq!(
        back.files.dirs().collect::<Vec<_>>(),
        inputs.files.dirs().collect::<Vec<_>>()
    );
}

#[test]
fn an_export_of_a_past_call_rebuilds_that_call() {
    let files = ctxlens_corpus::Case::named("pi-1.6.0/an-scripted").files();
    let inputs = ctxlens_assembly::case::inputs_for_call(
        &files,
        None,
        Some(ctxlens_assembly::calls::CallRef::Index(2)),
    )
    .unwrap();
    let a = assemble(&inputs);
    assert!(a.call.is_some() && a.request.is_some());
    let back = inputs_from_case(&case_from_inputs(&inputs, None), None).unwrap();
    assert_eq!(back.call, inputs.call);
    let b = assemble(&back);
    assert!(a.request.unwrap().body == b.request.unwrap().body);
}

/// Every case of the corpus, exported and redacted (its home as the home), builds the request
/// the original builds, with the same replacements: the redaction never changes what pi does.
#[test]
fn every_case_redacted_builds_its_request_redacted() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for case in ctxlens_corpus::cases(&ctxlens_corpus::filter_from_env()) {
        let Ok(inputs) = inputs_from_case(&case.files(), None) else {
            continue;
        };
        let a = assemble(&inputs);
        let mut files = case_from_inputs(&inputs, a.pi.as_ref().map(|p| p.version));
        if let Some(r) = &a.request {
            files.insert(
                "expected/original-body.json".into(),
                r.body.as_bytes().to_vec(),
            );
        }
        let who = Identity {
            home: Some(inputs.home.clone()),
            user: None,
            hosts: Vec::new(),
        };
        let (red, _) = redact(&files, &who);
        let back = inputs_from_case(&red, None).unwrap();
        let b = assemble(&back);
        match (&b.request, red.get("expected/original-body.json")) {
            (Some(r), Some(want)) if r.body.as_bytes() == want.as_slice() => {}
            (None, None) => {}
            (got, want) => failures.push(format!(
                "{}: {}",
                case.name,
                match (got, want) {
                    (None, _) => "no request after the redaction".to_string(),
                    (Some(_), None) => "a request only after the redaction".to_string(),
                    (Some(r), Some(w)) => format!(
                        "{:?}",
                        ctxlens_assembly::case::json_difference(
                            &r.body,
                            &String::from_utf8_lossy(w)
                        )
                    ),
                }
            )),
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked > 100, "{checked}");
}

use super::*;
use crate::testcase::inputs;
use crate::Api;

/// What an assembly gives a user, as bytes and text: the request, the diagnostics, the
/// spans of the body, the trace and the calls.
fn seen(a: &Assembly) -> String {
    format!(
        "{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}",
        a.request.as_ref().map(|r| (&r.url, &r.headers, &r.body)),
        a.diagnostics,
        a.request.as_ref().map(|r| &r.accounting),
        a.choice,
        a.trace,
        a.calls,
        a.call,
        a.parts.session_context
    )
}

/// A case of each release with a session and past calls (the cases that resume one).
fn cases() -> Vec<String> {
    ["pi-0.85.1/", "pi-0.87.1/", "pi-1.6.0/"]
        .iter()
        .flat_map(|r| {
            ctxlens_corpus::cases(r)
                .into_iter()
                .map(|c| c.name)
                .filter(|n| inputs(n).session.is_some())
                .take(3)
        })
        .collect()
}

#[test]
fn nine_protocols_from_one_workspace_read_the_session_once_and_equal_one_shot_assemblies() {
    let cases = cases();
    assert!(cases.len() >= 6, "{cases:?}");
    for name in &cases {
        let ws = Workspace::new();
        let base = inputs(name);
        for api in Api::ALL {
            let i = Inputs {
                api: Some(api),
                ..base.clone()
            };
            let kept = ws.assemble(&i);
            assert_eq!(
                seen(&kept),
                seen(&crate::assemble(&i)),
                "{name} under {}",
                api.as_str()
            );
        }
        let c = ws.counts();
        assert_eq!(
            (
                c.reads,
                c.detections,
                c.session_files,
                c.assemblies,
                c.reused,
                c.contexts
            ),
            (1, 1, 1, 9, 0, 1),
            "{name}: one session context for the nine protocols"
        );
        // Asked again: the kept assemblies, nothing made.
        for api in Api::ALL {
            ws.assemble(&Inputs {
                api: Some(api),
                ..base.clone()
            });
        }
        let again = ws.counts();
        assert_eq!((again.assemblies, again.reused), (9, 9), "{name}");
    }
}

#[test]
fn another_release_reads_the_kept_lines_into_its_own_session_file() {
    let name = cases()
        .into_iter()
        .find(|n| n.starts_with("pi-1.6.0/"))
        .unwrap();
    let ws = Workspace::new();
    let base = inputs(&name);
    for v in [crate::PiVersion::V0_85_1, crate::PiVersion::LATEST] {
        let i = Inputs {
            pi: Some(v),
            ..base.clone()
        };
        assert_eq!(seen(&ws.assemble(&i)), seen(&crate::assemble(&i)), "{v}");
    }
    let c = ws.counts();
    assert_eq!((c.reads, c.detections, c.session_files), (1, 1, 2));
}

#[test]
fn an_edited_session_is_read_once_and_the_original_stays_kept() {
    let name = cases()
        .into_iter()
        .find(|n| n.starts_with("pi-0.85.1/"))
        .unwrap();
    let ws = Workspace::new();
    let base = inputs(&name);
    let a = ws.assemble(&base);
    // The session with its last line dropped (a what-if's edit): a new text, read once.
    let text = base.session.as_ref().unwrap().text.as_str();
    let cut = text.trim_end().rfind('\n').map_or("", |i| &text[..i + 1]);
    let edited = Inputs {
        session: Some(SourceText {
            name: base.session.as_ref().unwrap().name.clone(),
            text: crate::js::Str::from(cut),
        }),
        ..base.clone()
    };
    for _ in 0..2 {
        assert_eq!(
            seen(&ws.assemble_unkept(&edited)),
            seen(&crate::assemble(&edited))
        );
    }
    assert_eq!(ws.counts().reads, 2);
    // The original is still kept, and its read too.
    assert!(Rc::ptr_eq(&ws.assemble(&base), &a));
    ws.clear_assemblies();
    ws.assemble(&base);
    assert_eq!(ws.counts().reads, 2);
}

#[test]
fn a_workspace_without_budget_keeps_no_assembly_but_still_reads_the_session_once() {
    let name = &cases()[0];
    let ws = Workspace::with_budget(0);
    let i = inputs(name);
    let (a, b) = (ws.assemble(&i), ws.assemble(&i));
    assert!(!Rc::ptr_eq(&a, &b));
    let c = ws.counts();
    assert_eq!((c.reads, c.assemblies, c.reused), (1, 2, 0));
}

#[test]
fn a_budget_lets_the_oldest_assembly_go_first() {
    let name = &cases()[0];
    let base = inputs(name);
    let of = |api: Api| Inputs {
        api: Some(api),
        ..base.clone()
    };
    let [x, y, z] = [Api::ALL[0], Api::ALL[1], Api::ALL[2]].map(of);
    let size = |i: &Inputs| crate::assemble(i).body().map_or(0, str::len) * 2 + 4096;
    // Room for the last two.
    let ws = Workspace::with_budget(size(&y) + size(&z));
    ws.assemble(&x);
    ws.assemble(&y);
    ws.assemble(&z);
    assert!(ws.kept(&x).is_none(), "the oldest let go");
    assert!(ws.kept(&y).is_some() && ws.kept(&z).is_some());
}

/// Each past call's session context is made once (the active branch, to find it, walked once)
/// and given again under another protocol and for a refused call; every assembly equals a
/// one-shot one (its trace and diagnostics included).
#[test]
fn past_calls_make_their_session_context_once_and_equal_one_shot_assemblies() {
    let mut checked = 0;
    for name in cases() {
        let base = inputs(&name);
        let n = crate::assemble(&base).calls.len();
        if n < 2 {
            continue;
        }
        let ws = Workspace::new();
        // Calls 1..=n, and one past the last (refused: said, no request).
        for k in 1..=n + 1 {
            for api in [Api::AnthropicMessages, Api::OpenAiResponses] {
                let i = Inputs {
                    api: Some(api),
                    call: Some(crate::calls::CallRef::Index(k)),
                    ..base.clone()
                };
                assert_eq!(
                    seen(&ws.assemble(&i)),
                    seen(&crate::assemble(&i)),
                    "{name}: call {k} under {api:?}"
                );
            }
        }
        assert_eq!(ws.counts().contexts, n + 1, "{name}");
        assert_eq!(
            ws.counts().branches,
            1,
            "{name}: the active branch walked once"
        );
        assert_eq!(
            ws.counts().setups,
            1,
            "{name}: the settings and the models read once"
        );
        checked += 1;
    }
    assert!(checked >= 3, "{checked} cases with past calls");
}

#[test]
fn marks_made_by_the_last_assembly_are_taken_only_for_the_same_message_at_the_same_place() {
    use crate::js::{parse, Value};
    use crate::protocols::body::mark_llm_messages;
    let msgs = |text: &str| -> Vec<Value> {
        match parse(text).unwrap() {
            Value::Array(v) => v,
            _ => unreachable!(),
        }
    };
    let marks = |v: &[Value]| -> Vec<String> {
        v.iter()
            .map(|m| {
                let o = m.as_object().unwrap();
                let blocks: Vec<_> = match o.get("content") {
                    Some(Value::Array(b)) => {
                        b.iter().map(|b| b.as_object().unwrap().mark()).collect()
                    }
                    _ => Vec::new(),
                };
                format!("{:?} {:?}", o.mark(), blocks)
            })
            .collect()
    };
    let first = msgs(
        r#"[{"role":"user","content":[{"type":"text","text":"a"}]},
            {"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"toolCall","id":"c","name":"read","arguments":{}}]},
            {"role":"toolResult","content":[{"type":"text","text":"r"}]}]"#,
    );
    let ws = Workspace::new();
    let mut a = first.clone();
    ws.mark_llm_messages(&mut a);
    let mut expected = first.clone();
    mark_llm_messages(&mut expected);
    assert_eq!(marks(&a), marks(&expected));
    // The next call: the same first two messages, then another at the third place, and one
    // more; and the second message now at the first place (its marks say place 0).
    let other = msgs(r#"[{"role":"user","content":[{"type":"text","text":"b"}]}]"#);
    let mut b = vec![
        first[0].clone(),
        first[1].clone(),
        other[0].clone(),
        first[2].clone(),
    ];
    let mut expected = b.clone();
    ws.mark_llm_messages(&mut b);
    mark_llm_messages(&mut expected);
    assert_eq!(marks(&b), marks(&expected));
    let taken = |x: &Value, y: &Value| x.as_object().unwrap().same(y.as_object().unwrap());
    assert!(
        taken(&b[0], &a[0]) && taken(&b[1], &a[1]),
        "the same messages' marks are taken"
    );
    let mut c = vec![first[1].clone()];
    let mut expected = c.clone();
    ws.mark_llm_messages(&mut c);
    mark_llm_messages(&mut expected);
    assert_eq!(marks(&c), marks(&expected));
    assert!(
        !taken(&c[0], &b[1]),
        "a message at another place is marked again"
    );
}

//! Synthetic messages and text.

use super::*;

pub(super) fn check(cx: &Ctx, list: &mut List) {
    let a = cx.a;
    let synth: Vec<(StageId, &Event)> = all_events(a)
        .filter(|(_, e)| {
            matches!(e.kind, EventKind::Inserted | EventKind::Converted) && at(e, SYNTHETIC)
        })
        .collect();
    if !synth.is_empty() {
        let mut groups: Vec<(&str, usize, &str)> = Vec::new();
        for (_, e) in &synth {
            let src = e.pi_source.unwrap_or("");
            match groups.iter_mut().find(|g| g.0 == src) {
                Some(g) => g.1 += 1,
                None => groups.push((src, 1, e.message.as_str())),
            }
        }
        list.push(
            "synthetic-messages",
            Severity::Notice,
            format!(
                "{} inserted that you never wrote",
                plural(synth.len(), "message or text", "messages or texts")
            ),
            groups
                .iter()
                .map(|(src, n, msg)| format!("{n} × {msg} ({src})"))
                .collect::<Vec<_>>()
                .join("; "),
            Some(synth[0].0),
            None,
        );
    }
}

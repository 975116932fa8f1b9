//! Errored and aborted turns dropped.

use super::*;

pub(super) fn check(cx: &Ctx, list: &mut List) {
    let a = cx.a;
    let p = cx.p;
    let map = &cx.map;
    let errored: Vec<usize> = p
        .llm_messages
        .iter()
        .enumerate()
        .filter(|(_, m)| {
            m.get_str("role") == Some("assistant")
                && matches!(m.get_str("stopReason"), Some("error" | "aborted"))
        })
        .map(|(i, _)| i)
        .collect();
    let dropped_events = events(a, StageId::TransformMessages)
        .filter(|e| e.kind == EventKind::Dropped && at(e, &[ERRORED_DROPPED]))
        .count();
    if !errored.is_empty() && dropped_events > 0 {
        let lines: Vec<String> = errored
            .iter()
            .filter_map(|&i| match crate::provenance::message_origin(a, map, i) {
                crate::provenance::MessageOrigin::Session { line, .. } => {
                    Some(format!("line {line}"))
                }
                _ => None,
            })
            .collect();
        list.push(
            "errored-turns-dropped",
            Severity::Notice,
            format!("{} left out", plural(dropped_events, "errored or aborted turn", "errored or aborted turns")),
            format!(
                "Assistant messages that ended in error or were aborted are not sent{}; their tool calls get no result.",
                if lines.is_empty() { String::new() } else { format!(" ({})", lines.join(", ")) }
            ),
            Some(StageId::TransformMessages),
            errored.first().and_then(|&i| entry_subject(a, map, i)),
        );
    }
}

//! Thinking replay lost or converted on a provider/model switch.

use super::*;

pub(super) fn check(cx: &Ctx, list: &mut List) {
    let a = cx.a;
    let p = cx.p;
    let map = &cx.map;
    let current = &cx.current;
    if let Some((prov, api, id)) = &current {
        let mut other_models: Vec<String> = Vec::new();
        let mut thinking_chars = 0usize;
        let mut first_other = None;
        for (i, m) in p.llm_messages.iter().enumerate() {
            if m.get_str("role") != Some("assistant") {
                continue;
            }
            let same = m.get_str("provider") == Some(prov)
                && m.get_str("api") == Some(api)
                && m.get_str("model") == Some(id);
            if same {
                continue;
            }
            let r = format!(
                "{}/{}",
                m.get_str("provider").unwrap_or("?"),
                m.get_str("model").unwrap_or("?")
            );
            if !other_models.contains(&r) {
                other_models.push(r);
            }
            let chars: usize = m
                .get("content")
                .and_then(Value::as_array)
                .map(|bs| {
                    bs.iter()
                        .filter(|b| b.get_str("type") == Some("thinking"))
                        .filter_map(|b| b.get_str("thinking"))
                        .map(utf16_len)
                        .sum()
                })
                .unwrap_or(0);
            if chars > 0 && first_other.is_none() {
                first_other = Some(i);
            }
            thinking_chars += chars;
        }
        let converted = all_events(a)
            .filter(|(_, e)| e.kind == EventKind::Converted && at(e, THINKING_TO_TEXT))
            .count();
        let dropped = all_events(a)
            .filter(|(_, e)| e.kind == EventKind::Dropped && at(e, THINKING_DROPPED))
            .count();
        let sigs = all_events(a)
            .filter(|(_, e)| at(e, SIGNATURES_STRIPPED))
            .count();
        if converted + dropped + sigs > 0 {
            let mut parts = Vec::new();
            if converted > 0 {
                parts.push(format!(
                    "{} converted to plain text",
                    plural(converted, "thinking block", "thinking blocks")
                ));
            }
            if dropped > 0 {
                parts.push(format!(
                    "{} dropped",
                    plural(dropped, "thinking block", "thinking blocks")
                ));
            }
            if sigs > 0 {
                parts.push(format!(
                    "{} stripped",
                    plural(sigs, "signature", "signatures")
                ));
            }
            list.push(
                "thinking-replay-lost",
                Severity::Warning,
                "Thinking from another model is not replayed as thinking",
                format!(
                    "{}{}: {}. The new model sees earlier reasoning as ordinary text, or not at all.",
                    if other_models.is_empty() { "This protocol".to_string() } else { format!("History from {}", other_models.join(", ")) },
                    if thinking_chars > 0 { format!(" ({} chars of thinking)", thousands(thinking_chars)) } else { String::new() },
                    parts.join(", ")
                ),
                Some(StageId::TransformMessages),
                first_other.and_then(|i| entry_subject(a, map, i)),
            );
        }
    }
}

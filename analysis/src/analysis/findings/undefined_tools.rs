//! Tool calls in the history to tools the request does not define.

use super::*;

pub(super) fn check(cx: &Ctx, list: &mut List) {
    let a = cx.a;
    let undefined = crate::analysis::derived::undefined_tool_calls(a);
    if !undefined.is_empty() {
        // name → (calls, the lines they are on).
        let mut names: Vec<(&str, usize, Vec<String>)> = Vec::new();
        for u in undefined {
            let line = u
                .line
                .map_or_else(|| "this turn".to_string(), |l| l.to_string());
            match names.iter_mut().find(|(n, _, _)| *n == u.name) {
                Some((_, calls, lines)) => {
                    *calls += 1;
                    if !lines.contains(&line) {
                        lines.push(line);
                    }
                }
                None => names.push((u.name.as_str(), 1, vec![line])),
            }
        }
        let defined = crate::analysis::checks::defined_tool_names(a);
        let called: Vec<String> = names
            .iter()
            .map(|(n, calls, lines)| {
                format!(
                    "{n} ({}{} {})",
                    if *calls > 1 {
                        format!("{} calls, ", thousands(*calls))
                    } else {
                        String::new()
                    },
                    if lines.len() == 1 { "line" } else { "lines" },
                    lines.join(", ")
                )
            })
            .collect();
        list.push(
            "undefined-tools",
            Severity::Warning,
            format!(
                "{} to tools the request does not define",
                plural(undefined.len(), "tool call", "tool calls")
            ),
            format!(
                "The history calls {}; the request defines {}. The model sees calls to tools it cannot call (an extension's tools are not included unless a tool set is given).",
                called.join(", "),
                match defined.len() {
                    0 => "no tools".to_string(),
                    1..=4 => defined.join(", "),
                    n => plural(n, "tool", "tools"),
                }
            ),
            Some(StageId::AgentContext),
            undefined
                .iter()
                .find_map(|u| u.entry_id.as_ref())
                .map(|id| format!("entry:{id}")),
        );
    }
}

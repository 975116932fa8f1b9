//! User text's share of the context.

use super::*;

pub(super) fn check(cx: &Ctx, list: &mut List) {
    let a = cx.a;
    if let Some(s) = a.stats() {
        let total = s.total_chars();
        if s.by_kind.user_text > 0 && total > 0 {
            let share = s.by_kind.user_text as f64 / total as f64;
            list.push(
                "user-text-share",
                Severity::Info,
                format!(
                    "What you typed is {} of the request",
                    pct(s.by_kind.user_text, total)
                ),
                format!(
                    "User text {} chars of {} (system prompt {}, tools {}, history {}){}",
                    thousands(s.by_kind.user_text),
                    thousands(total),
                    thousands(s.system_prompt_chars),
                    thousands(s.tools_chars),
                    thousands(s.history_chars),
                    if share < 0.05 {
                        ": the rest is pi's prefix and the agent's own work."
                    } else {
                        "."
                    }
                ),
                Some(StageId::InputAppended),
                None,
            );
        }
        if s.by_kind.tool_results > 0 && s.history_chars > 0 {
            let top = s.tool_results_by_tool.first();
            list.push(
                "tool-results-share",
                Severity::Info,
                format!(
                    "Tool results are {} of the history",
                    pct(s.by_kind.tool_results, s.history_chars)
                ),
                format!(
                    "{} chars of tool output in {} chars of history{}.",
                    thousands(s.by_kind.tool_results),
                    thousands(s.history_chars),
                    top.map(|t| format!(
                        "; the most from {} ({} results, {} chars)",
                        t.name,
                        t.count,
                        thousands(t.chars)
                    ))
                    .unwrap_or_default()
                ),
                Some(StageId::ConvertToLlm),
                top.map(|t| format!("tool:{}", t.name)),
            );
        }
    }
}

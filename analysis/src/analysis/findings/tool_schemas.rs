//! Tool schemas vs the system prompt.

use super::*;

pub(super) fn check(cx: &Ctx, list: &mut List) {
    let a = cx.a;
    let updates = cx.updates;
    if let Some(s) = a.stats() {
        let sp_prefix = s.system_prompt_chars - updates.min(s.system_prompt_chars);
        if s.tools_chars > 0 {
            let (sev, verb) = if s.tools_chars > sp_prefix {
                (Severity::Notice, "outweigh")
            } else {
                (Severity::Info, "are lighter than")
            };
            let ratio = if sp_prefix > 0 {
                format!(" ({}×)", fixed1(s.tools_chars as f64 / sp_prefix as f64))
            } else {
                String::new()
            };
            list.push(
                "tool-schemas",
                sev,
                format!("Tool definitions {verb} the system prompt"),
                format!(
                    "{} {} {} chars{ratio}, the system prompt {} chars{}: {} of the fixed prefix is tool schemas.",
                    plural(s.by_tool.len(), "tool definition", "tool definitions"),
                    takes(s.by_tool.len()),
                    thousands(s.tools_chars),
                    thousands(sp_prefix),
                    if updates > 0 { " (its updates kept in place come later)" } else { "" },
                    pct(s.tools_chars, s.tools_chars + sp_prefix)
                ),
                Some(StageId::AgentContext),
                s.by_tool.first().map(|t| format!("tool:{}", t.name)),
            );
        }

        // 2. The largest tools.
        if s.by_tool.len() >= 2 {
            let top: Vec<String> = s
                .by_tool
                .iter()
                .take(3)
                .map(|t| {
                    format!(
                        "{} {} chars ({})",
                        t.name,
                        thousands(t.chars),
                        pct(t.chars, s.tools_chars)
                    )
                })
                .collect();
            let top_sum: usize = s.by_tool.iter().take(3).map(|t| t.chars).sum();
            list.push(
                "largest-tools",
                Severity::Info,
                format!(
                    "The largest tool{}",
                    if s.by_tool.len() > 2 { "s" } else { "" }
                ),
                format!(
                    "{}; together {} of the tool definitions.",
                    top.join(", "),
                    pct(top_sum, s.tools_chars)
                ),
                Some(StageId::AgentContext),
                s.by_tool.first().map(|t| format!("tool:{}", t.name)),
            );
        }
    }
}

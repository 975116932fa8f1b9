//! The custom system prompt drops pi's tool list and guidelines (0.86 on: the tools,
//! rules and docs sections).

use super::*;

pub(super) fn check(cx: &Ctx, list: &mut List) {
    let pi = cx.pi;
    let p = cx.p;
    if let Some(c) = p
        .resources
        .custom_prompt
        .as_ref()
        .filter(|c| !c.text.is_empty())
    {
        let mut res = p.resources.clone();
        res.custom_prompt = None;
        let snippets = p
            .tools
            .iter()
            .filter(|t| t.normalized_snippet().is_some())
            .count();
        let path = c.path.as_deref().unwrap_or("--system-prompt");
        if pi.rules.transcript {
            // What the default build would add: its tools, rules and docs sections.
            let default = crate::prompt::sections::build_pieces(
                pi,
                &p.tools,
                &res,
                &p.cwd,
                &p.pi_package_dir,
            );
            let size = |name: &str| {
                default
                    .iter()
                    .find(|b| b.name == name)
                    .map_or(0, |b| utf16_len(&b.text))
            };
            // Each rule is one piece; the opening and closing tags are two more.
            let rules = default
                .iter()
                .find(|b| b.name == "rules")
                .map_or(0, |b| b.pieces.len().saturating_sub(2));
            list.push(
                "custom-prompt",
                Severity::Warning,
                "A custom system prompt drops pi's tools, rules and docs sections",
                format!(
                    "{path} ({} chars) becomes the preamble, and pi leaves out the tools section (the list of {}, {} chars), the rules section ({}, {} chars) and the docs section ({} chars); the tool definitions are still sent.",
                    thousands(utf16_len(&c.text)),
                    plural(snippets, "tool snippet", "tool snippets"),
                    thousands(size("tools")),
                    plural(rules, "rule", "rules"),
                    thousands(size("rules")),
                    thousands(size("docs"))
                ),
                Some(StageId::AgentContext),
                Some("section:0".into()),
            );
        } else {
            let default = crate::prompt::build(pi, &p.tools, &res, &p.cwd, "");
            let sum = |name: &str| {
                default
                    .sections
                    .iter()
                    .filter(|s| s.name == name)
                    .map(|s| s.end - s.start)
                    .sum::<usize>()
            };
            let guidelines = default
                .sections
                .iter()
                .filter(|s| s.name == "guidelines")
                .count();
            list.push(
                "custom-prompt",
                Severity::Warning,
                "A custom system prompt replaces pi's tool list and guidelines",
                format!(
                    "{path} ({} chars) replaces pi's default body: the list of {} ({} chars) and {} ({} chars) are not sent; the tool definitions still are.",
                    thousands(utf16_len(&c.text)),
                    plural(snippets, "tool snippet", "tool snippets"),
                    thousands(sum("tools")),
                    plural(guidelines, "guideline", "guidelines"),
                    thousands(sum("guidelines"))
                ),
                Some(StageId::AgentContext),
                Some("section:0".into()),
            );
        }
    }
}

//! Context files: shadowed candidates, and their share.

use super::*;

pub(super) fn check(cx: &Ctx, list: &mut List) {
    let p = cx.p;
    let sp_chars = utf16_len(&p.system_prompt.text);
    for f in p
        .resources
        .context_files
        .iter()
        .filter(|f| !f.shadowed.is_empty())
    {
        let section = p
            .system_prompt
            .sections
            .iter()
            .position(|s| s.name == "context-file" && s.source == f.path);
        list.push(
            "context-file-shadowed",
            Severity::Warning,
            format!(
                "{} not read: {} won in the same directory",
                f.shadowed.join(", "),
                file_name(&f.path)
            ),
            format!(
                "pi reads one context file per directory; {} ({} chars) was used and {} ignored.",
                f.path,
                thousands(utf16_len(&f.content)),
                f.shadowed.join(", ")
            ),
            Some(StageId::AgentContext),
            section.map(|i| format!("section:{i}")),
        );
    }
    let ctx_chars: usize = p
        .system_prompt
        .sections
        .iter()
        .filter(|s| s.name == "context-file")
        .map(|s| s.end - s.start)
        .sum();
    if ctx_chars > 0 {
        let first = p
            .system_prompt
            .sections
            .iter()
            .position(|s| s.name == "context-file");
        list.push(
            "context-files-share",
            Severity::Info,
            "Context files in the system prompt",
            format!(
                "{} ({}) {} {} chars, {} of the system prompt.",
                plural(
                    p.resources.context_files.len(),
                    "context file",
                    "context files"
                ),
                p.resources
                    .context_files
                    .iter()
                    .map(|f| f.path.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                takes(p.resources.context_files.len()),
                thousands(ctx_chars),
                pct(ctx_chars, sp_chars)
            ),
            Some(StageId::AgentContext),
            first.map(|i| format!("section:{i}")),
        );
    }
}

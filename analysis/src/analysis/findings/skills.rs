//! Skills' share of the system prompt.

use super::*;

pub(super) fn check(cx: &Ctx, list: &mut List) {
    let pi = cx.pi;
    let p = cx.p;
    let sp_chars = utf16_len(&p.system_prompt.text);
    let skills: Vec<(usize, usize)> = p
        .system_prompt
        .sections
        .iter()
        .enumerate()
        .filter(|(_, s)| s.name == "skills")
        .map(|(i, s)| (i, s.end - s.start))
        .collect();
    let skills_chars: usize = skills.iter().map(|x| x.1).sum();
    if skills_chars > 0 {
        let visible = if pi.rules.transcript {
            // The skills in the section sent: one piece per skill file.
            let mut files: Vec<&str> = p
                .system_prompt
                .sections
                .iter()
                .filter(|s| s.name == "skills" && s.source != "pi" && s.source != "session")
                .map(|s| s.source.as_str())
                .collect();
            files.dedup();
            files.len()
        } else {
            p.resources
                .skills
                .iter()
                .filter(|s| !s.disable_model_invocation)
                .count()
        };
        list.push(
            "skills-share",
            Severity::Info,
            "Skills in the system prompt",
            format!(
                "{} {} chars, {} of the system prompt ({} chars); every call pays for them.",
                if visible > 0 {
                    format!(
                        "{} listed {}",
                        plural(visible, "skill", "skills"),
                        takes(visible)
                    )
                } else {
                    "The skills section, as the session stores it, takes".to_string()
                },
                thousands(skills_chars),
                pct(skills_chars, sp_chars),
                thousands(sp_chars)
            ),
            Some(StageId::AgentContext),
            skills.first().map(|(i, _)| format!("section:{i}")),
        );
    }
}

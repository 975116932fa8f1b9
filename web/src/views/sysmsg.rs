//! pi's system messages (0.86 on) as the views show them: what each section of the system prompt
//! is, where a stored message lives, how a request carried them, and a message's changes (the
//! sections it sets or removes, the tools it adds or removes) as chips. All text from the report
//! goes into the DOM as text.

use ctxlens::report::types::{StoredAt, SystemMessageInfo, SystemPromptInfo};
use yew::prelude::*;

/// What a system prompt section (or piece) is, in words a pi user knows: for the tooltips.
pub fn section_help(name: &str) -> Option<&'static str> {
    Some(match name {
        "preamble" => "preamble: the prompt's opening: pi's own sentence, or your --system-prompt / SYSTEM.md when you set one",
        "tools" => "tools: the list of tools the model may call, one line per tool that has a snippet",
        "rules" => "rules: pi's guidelines for the model, from the tools' own guidelines and pi's closing rules",
        "docs" => "docs: where pi's own documentation lives (README, docs, examples), for questions about pi itself",
        "addendum" => "addendum: your --append-system-prompt texts and APPEND_SYSTEM.md",
        "project_context" => "project_context: the context files (AGENTS.md, CLAUDE.md) pi found, wrapped in <project_instructions>",
        "context-file" => "one context file (AGENTS.md or CLAUDE.md) inside project_context",
        "skills" => "skills: the skills the model may load, with their descriptions and SKILL.md paths",
        "cwd" => "cwd: the folder pi runs in",
        "content" => "text a system message carries outside its named sections",
        // 0.85's names.
        "intro" => "pi's opening paragraph",
        "guidelines" => "pi's guidelines for the model, from the tools and pi itself",
        "pi-docs" => "where pi's own documentation lives",
        "project-context" => "the context files (AGENTS.md, CLAUDE.md) pi found",
        "custom" => "your --system-prompt or SYSTEM.md, in place of pi's default body",
        "append" => "your --append-system-prompt text or APPEND_SYSTEM.md",
        _ => return None,
    })
}

/// What a span's source means.
pub fn source_help(source: &str) -> String {
    match source {
        "pi" => "pi's own text".into(),
        "session" => {
            "as the session stores it: it differs from what this run builds, so it is shown whole"
                .into()
        }
        "" => String::new(),
        s if s.starts_with('/') || s.starts_with('-') => format!("from {s}"),
        s => format!("from the {s} tool"),
    }
}

/// A stored origin (`report.systemPrompt.sections[i].stored`) in words, for its tooltip.
pub fn stored_help(stored: &StoredAt) -> String {
    let line = stored.line.unwrap_or(0);
    match stored.kind.as_str() {
        "session" => format!(
            "set by the system message stored at line {line} of the session file: pi keeps the system prompt in the session as system messages, each setting or removing sections"
        ),
        "checkpoint" => format!(
            "set by the checkpoint the compaction at line {line} stores (its systemMessage: the replayed prompt, standing in for the system messages before it)"
        ),
        "this-run" => "set by the system message pi writes in this run (it stores what changed since the session's system messages, with the prompt)".into(),
        _ => String::new(),
    }
}

/// The label of a stored origin: `session line 4`, `this run`.
pub fn stored_label(stored: &StoredAt) -> String {
    stored.label.clone()
}

/// How the request carried the system messages (`report.systemPrompt.placement`), in words.
pub fn placement_text(sp: &SystemPromptInfo) -> Option<(String, &'static str)> {
    let msgs = sp.messages.as_deref().unwrap_or(&[]);
    // The stored system messages that set the text, in order of first use.
    let mut stored: Vec<String> = Vec::new();
    for x in &sp.sections {
        if let Some(l) = x.stored.as_ref().map(stored_label) {
            if !l.is_empty() && !stored.contains(&l) {
                stored.push(l);
            }
        }
    }
    match sp.placement.as_deref()? {
        "raw" => Some((
            format!(
                "Sent as {} system message{} as the session stores them: each where it is, its sections as they are.",
                msgs.len(),
                if msgs.len() == 1 { "" } else { "s" }
            ),
            "This protocol (pi-messages) sends pi's own messages: each system message with its content and named sections, where it is stored in the conversation.",
        )),
        "in-place" => Some((
            format!(
                "Sent as {} system messages kept where they are stored: the first as the prompt, {} later as updates.",
                msgs.len(),
                msgs.iter().filter(|m| m.update).count()
            ),
            "The model takes system messages mid-conversation: pi sends each stored system message at its place in the conversation, a later one as \"Updated system prompt section …\" / \"Removed system prompt section …\".",
        )),
        _ => Some((
            if stored.is_empty() {
                "Sent as one system prompt at the start: the replay of the session's system messages.".to_string()
            } else {
                format!(
                    "Sent as one system prompt at the start, replayed from the system messages of: {}.",
                    stored.join(", ")
                )
            },
            "The model takes a system prompt only at the start: pi replays every stored system message (a later one replaces or removes sections of the earlier ones, a new section goes last) into one prompt.",
        )),
    }
}

/// The changes of one system message (`report` `system` / `checkpoint` /
/// `newSystemMessages[i]`): chips for the sections it sets (or removes) and the tools it adds
/// (or removes).
pub fn changes_chips(m: &SystemMessageInfo) -> Html {
    html! {
        <span class="sysmsg-changes">
            { for m.sections.iter().map(|x| {
                let name = x.name.clone();
                let gone = x.removed;
                let title = format!(
                    "{} {}",
                    if gone { "removes section" } else { "sets section" },
                    section_help(&name).unwrap_or(name.as_str())
                );
                html! {
                    <span class={classes!("chip", "sec-chip", gone.then_some("removed"))} title={title}>
                        if gone { <s>{name}</s> } else { {format!("{name} · {} ch", super::components::thousands(x.chars as f64))} }
                    </span>
                }
            }) }
            { for m.tools_added.iter().map(|t| html! {
                <span class="chip tool-chip add" title="declares this tool (adds it, or replaces its definition)">{format!("+{t}")}</span>
            }) }
            { for m.tools_removed.iter().map(|t| html! {
                <span class="chip tool-chip rm" title="takes this tool away (or its old definition, when it is declared again)">{format!("−{t}")}</span>
            }) }
        </span>
    }
}

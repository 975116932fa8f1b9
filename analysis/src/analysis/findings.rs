//! The seed article's conclusions as automatic, numbered checks on the user's own data. Each
//! check reports only when it applies, with the user's numbers (UTF-16 units, like the stats),
//! the stage it concerns and a selection key for the view.
//!
//! Checks read the stage data (`Parts`, `Stats`) and the trace's events by kind and pi source
//! location, never by their wording.

use crate::assemble::Assembly;
use crate::js::{utf16_len, Value};
use crate::trace::{Event, EventKind, StageId};
use crate::AssemblyStats;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Info,
    Notice,
    Warning,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Notice => "notice",
            Severity::Warning => "warning",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// Stable id (`tool-schemas`, `context-file-shadowed`, ...).
    pub id: &'static str,
    /// 1-based position in the list.
    pub number: usize,
    pub severity: Severity,
    pub title: String,
    /// The user's numbers.
    pub detail: String,
    pub stage: Option<StageId>,
    /// A selection key: `tool:<name>`, `section:<i>`, `entry:<id>`, `path:<json path>`.
    pub subject: Option<String>,
}

/// `12345` → `12,345`.
pub fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `hay.contains(needle)`, found by jumping to each occurrence of the needle's ASCII byte at
/// `anchor` (a rare one: the jump is a memchr) and comparing there.
fn contains_at_anchor(hay: &str, needle: &str, anchor: usize) -> bool {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    let mut from = 0;
    while let Some(i) = hay[from..].find(n[anchor] as char) {
        let at = from + i;
        if at >= anchor && h[at - anchor..].starts_with(n) {
            return true;
        }
        from = at + 1;
    }
    false
}

/// `part / whole` as a percentage with one decimal.
pub fn pct(part: usize, whole: usize) -> String {
    if whole == 0 {
        return "0%".into();
    }
    format!("{}%", fixed1(part as f64 * 100.0 / whole as f64))
}

/// A non-negative number with one decimal (`58.3`), without the float formatter (its code is
/// a good part of the wasm's size budget).
pub fn fixed1(x: f64) -> String {
    let tenths = (x * 10.0).round().max(0.0) as u64;
    format!("{}.{}", tenths / 10, tenths % 10)
}

fn events(a: &Assembly, stage: StageId) -> impl Iterator<Item = &Event> {
    a.trace
        .stage(stage)
        .into_iter()
        .flat_map(|s| s.events.iter())
}

fn all_events(a: &Assembly) -> impl Iterator<Item = (StageId, &Event)> {
    a.trace
        .stages
        .iter()
        .flat_map(|s| s.events.iter().map(move |e| (s.id, e)))
}

fn at(e: &Event, sources: &[&str]) -> bool {
    e.pi_source.is_some_and(|s| sources.contains(&s))
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

struct List {
    items: Vec<Finding>,
}

impl List {
    fn push(
        &mut self,
        id: &'static str,
        severity: Severity,
        title: impl Into<String>,
        detail: impl Into<String>,
        stage: Option<StageId>,
        subject: Option<String>,
    ) {
        let number = self.items.len() + 1;
        self.items.push(Finding {
            id,
            number,
            severity,
            title: title.into(),
            detail: detail.into(),
            stage,
            subject,
        });
    }
}

/// The entry id of LLM message `i`, as a selection key.
fn entry_subject(a: &Assembly, map: &[usize], i: usize) -> Option<String> {
    match crate::provenance::message_origin(a, map, i) {
        crate::provenance::MessageOrigin::Session {
            entry_id: Some(id), ..
        } => Some(format!("entry:{id}")),
        _ => None,
    }
}

// Rule locations (pi sources) the checks look for.
pub(crate) const THINKING_TO_TEXT: &[&str] = &[
    "AI/api/transform-messages.js:87",
    "AI/api/anthropic-messages.js:1010",
    "AI/api/google-shared.js:172",
    "AI/api/openai-completions.js:983",
];
pub(crate) const THINKING_DROPPED: &[&str] = &[
    "AI/api/transform-messages.js:75",
    "AI/api/openai-completions.js:1002",
    "AI/api/openai-responses-shared.js:138",
    "AI/api/bedrock-converse-stream.js:802",
    "1.6.0/AI/api/transform-messages.js:91",
];
const SIGNATURES_STRIPPED: &[&str] = &[
    "AI/api/transform-messages.js:95",
    "AI/api/transform-messages.js:103",
];
pub(crate) const TOOL_NAME_RENAMES: &[&str] = &[
    "AI/api/anthropic-messages.js:1027",
    "AI/api/anthropic-messages.js:1127",
];
/// Renames that repeat another one (the result side of a tool-call id) or are not ids of calls.
pub(crate) const RENAME_ECHOES: &[&str] = &[
    "AI/api/transform-messages.js:60",
    "AI/api/openai-responses-shared.js:153",
];
const SYNTHETIC: &[&str] = &[
    "AI/api/transform-messages.js:134",
    "AI/api/openai-completions.js:919",
    "AI/api/openai-completions.js:1108",
    "AI/api/openai-completions.js:1132",
    "AI/api/anthropic-messages.js:1093",
    "AI/api/anthropic-messages.js:104",
    "AI/api/google-shared.js:211",
    "AI/api/google-shared.js:240",
    "AI/api/mistral-conversations.js:694",
    "AI/api/openai-responses-shared.js:43",
];
const MAX_TOKENS_CLAMP: &str = "AI/api/simple-options.js:4";
const THINKING_CLAMP: &str = "AI/models.js:563";
const ERRORED_DROPPED: &str = "AI/api/transform-messages.js:159";
const CACHE_GAPS: &[&str] = &[
    "AI/api/anthropic-messages.js:837",
    "AI/api/anthropic-messages.js:1067",
];

/// Runs every check on `a`.
pub fn findings(a: &Assembly) -> Vec<Finding> {
    // Without the release's data nothing was assembled.
    let Some(pi) = a.pi.as_ref() else {
        return Vec::new();
    };
    let mut list = List { items: Vec::new() };
    let p = &a.parts;
    let map = crate::provenance::llm_to_agent_indices(a);
    let model = p.model_choice.model.as_ref();
    let current = model.map(|m| {
        (
            m.provider().to_string(),
            m.api().to_string(),
            m.id().to_string(),
        )
    });

    // 0.86 on, system prompt updates kept in place come later, with the conversation: not part
    // of the fixed prefix.
    let updates: usize = p
        .sent_system
        .iter()
        .flat_map(|x| x.messages.iter())
        .filter(|m| m.update)
        .map(|m| m.end - m.start)
        .sum();

    // 1. Tool schemas vs the system prompt.
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

    // 2b. 0.86 on: strict schemas and tools declared again.
    if pi.rules.transcript {
        transcript::strict_tools(a, pi, &mut list);
        transcript::redeclared_tools(a, pi, &mut list);
    }

    // 3. Skills' share of the system prompt.
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

    // 4. Context files: shadowed candidates, and their share.
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

    // 5. The custom system prompt drops pi's tool list and guidelines (0.86 on: the tools,
    // rules and docs sections).
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

    // 5b. 0.86 on: the system messages: declared at a resume point, patched, sections out of
    // a fresh build's order.
    if pi.rules.transcript {
        transcript::resume_point(a, &mut list);
        transcript::patched_prompt(a, pi, &mut list);
        transcript::section_order(a, pi, &mut list);
    }

    // 6. A silent thinking clamp.
    let c = &p.model_choice;
    if model.is_some() && !c.requested_level.is_empty() && c.requested_level != c.thinking_level {
        let why = events(a, StageId::AgentContext)
            .find(|e| e.kind == EventKind::Clamped && at(e, &[THINKING_CLAMP]))
            .map(|e| e.message.clone());
        list.push(
            "thinking-clamped",
            Severity::Warning,
            format!(
                "Thinking level {} was sent as {}",
                c.requested_level, c.thinking_level
            ),
            format!(
                "{} asked for {}, {} takes {}: pi clamps the level without a word.{}",
                if c.level_source.is_empty() {
                    "the default"
                } else {
                    &c.level_source
                },
                c.requested_level,
                model.map(|m| m.reference()).unwrap_or_default(),
                c.thinking_level,
                why.map(|w| format!(" ({w})")).unwrap_or_default()
            ),
            Some(StageId::AgentContext),
            None,
        );
    }
    let budget: Vec<&Event> = events(a, StageId::BuildParams)
        .filter(|e| e.kind == EventKind::Clamped && !at(e, &[MAX_TOKENS_CLAMP]))
        .collect();
    if !budget.is_empty() {
        list.push(
            "thinking-budget-clamped",
            Severity::Notice,
            "The thinking budget was cut",
            budget
                .iter()
                .map(|e| e.message.as_str())
                .collect::<Vec<_>>()
                .join("; "),
            Some(StageId::BuildParams),
            None,
        );
    }

    // 7. User text's share of the context.
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

    // 8. Thinking replay lost or converted on a provider/model switch.
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
                first_other.and_then(|i| entry_subject(a, &map, i)),
            );
        }
    }

    // 9. Tool-call ids renamed; tool names renamed.
    let renames: Vec<&Event> = all_events(a)
        .filter(|(_, e)| {
            e.kind == EventKind::Renamed && !at(e, TOOL_NAME_RENAMES) && !at(e, RENAME_ECHOES)
        })
        .map(|(_, e)| e)
        .collect();
    if !renames.is_empty() {
        list.push(
            "tool-call-ids-renamed",
            Severity::Notice,
            format!("{} rewritten", plural(renames.len(), "tool-call id", "tool-call ids")),
            format!(
                "The protocol does not accept the ids other providers produced, so pi rewrites them (and their results' ids). First: {}",
                renames[0].message
            ),
            Some(StageId::TransformMessages),
            None,
        );
    }
    let name_renames = all_events(a)
        .filter(|(_, e)| e.kind == EventKind::Renamed && at(e, TOOL_NAME_RENAMES))
        .count();
    if name_renames > 0 {
        list.push(
            "tool-names-renamed",
            Severity::Notice,
            format!("{} sent under another name", plural(name_renames, "tool name", "tool names")),
            "With an OAuth token, tool names matching Claude Code's are sent in its casing, in definitions and in history.".to_string(),
            Some(StageId::BuildParams),
            None,
        );
    }

    // 10. Synthetic messages and text.
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

    // 11. Images omitted or replaced.
    let images = p
        .agent_messages
        .iter()
        .filter(|m| matches!(m.get_str("role"), Some("user" | "toolResult")))
        .filter_map(|m| m.get("content").and_then(Value::as_array))
        .flatten()
        .filter(|b| b.get_str("type") == Some("image"))
        .count();
    if images > 0 {
        let blocked = p.settings.block_images();
        let no_vision = model.is_some_and(|m| !m.supports_images());
        if blocked || no_vision {
            list.push(
                "images-omitted",
                Severity::Warning,
                format!("{} not sent", plural(images, "image", "images")),
                if blocked {
                    format!(
                        "images.blockImages is set: {} replaced by \"{}\".",
                        plural(images, "image", "images"),
                        pi.data.string("sdk", "imageReadingDisabled")
                    )
                } else {
                    format!(
                        "{} has no image input: {} replaced by a placeholder text.",
                        model.map(|m| m.reference()).unwrap_or_default(),
                        plural(images, "image", "images")
                    )
                },
                Some(if blocked {
                    StageId::ConvertToLlm
                } else {
                    StageId::TransformMessages
                }),
                None,
            );
        }
    }

    // 12. Max tokens clamped by the context window.
    if let Some(e) = events(a, StageId::BuildParams)
        .find(|e| e.kind == EventKind::Clamped && at(e, &[MAX_TOKENS_CLAMP]))
    {
        list.push(
            "max-tokens-clamped",
            Severity::Warning,
            "The answer budget was cut to fit the context window",
            format!(
                "{} (context window {}, model maxTokens {}): the conversation is close to the window.",
                e.message,
                model.map(|m| thousands(m.context_window().max(0.0) as usize)).unwrap_or_default(),
                model.map(|m| thousands(m.max_tokens().max(0.0) as usize)).unwrap_or_default()
            ),
            Some(StageId::BuildParams),
            None,
        );
    }

    // 12b. The context beyond the model's window: by pi's estimate (what its auto-compaction
    // watches), or by the body as sent (its tokens where the vocabulary counted them, else its
    // characters at pi's ratio) — pi's estimate starts from the last usage the provider
    // reported, so a session whose usage is stale or small can be under it and still not fit.
    if let (Some(c), Some(m)) = (crate::analysis::checks::context_size(a), model) {
        let ratio = pi.data.default_number("estimateCharsPerToken");
        let body = a.stats().map(|s| match s.tokenizer.as_ref() {
            Some(t) => (s.total_tokens() as f64, format!("counted with {}", t.name)),
            None => (
                (s.body_chars as f64 / ratio).ceil(),
                format!(
                    "its {} characters at {} per token",
                    thousands(s.body_chars),
                    crate::js::number_to_string(ratio)
                ),
            ),
        });
        let body_over = body.as_ref().filter(|(t, _)| *t > c.window);
        if c.over() || body_over.is_some() {
            let pi_estimate = format!(
                "pi's estimate of this request is {} tokens{}",
                thousands(c.tokens as usize),
                if c.usage_tokens > 0.0 {
                    format!(
                        " (the last reported usage, {}, plus the messages after it)",
                        thousands(c.usage_tokens as usize)
                    )
                } else {
                    format!(
                        " (its characters at {} per token)",
                        crate::js::number_to_string(ratio)
                    )
                }
            );
            let (tokens, lead) = match body_over {
                Some((t, how)) if !c.over() => (
                    *t,
                    format!(
                        "The request body is ≈ {} tokens ({how}), but {pi_estimate}, under the window: pi's auto-compaction, which watches its estimate, would not start",
                        thousands(*t as usize)
                    ),
                ),
                _ => (c.tokens, pi_estimate),
            };
            list.push(
                "context-over-window",
                Severity::Warning,
                "The context is larger than the model's window",
                format!(
                    "{lead}; {} has a context window of {} tokens ({} over). The provider is likely to refuse it; pi's auto-compaction (compaction.enabled, on by default) summarizes the session once its context passes the window less compaction.reserveTokens.",
                    m.reference(),
                    thousands(c.window as usize),
                    thousands((tokens - c.window) as usize)
                ),
                Some(StageId::BuildParams),
                None,
            );
        }
    }

    // 12c. Tool calls in the history to tools the request does not define.
    let undefined = crate::analysis::checks::undefined_tool_calls(a);
    if !undefined.is_empty() {
        // name → (calls, the lines they are on).
        let mut names: Vec<(&str, usize, Vec<String>)> = Vec::new();
        for u in &undefined {
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

    // 13. Errored and aborted turns dropped.
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
            .filter_map(|&i| match crate::provenance::message_origin(a, &map, i) {
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
            errored.first().and_then(|&i| entry_subject(a, &map, i)),
        );
    }

    // 14. The cache prefix vs the history.
    if let Some(s) = a.stats() {
        let prefix = s.system_prompt_chars - updates.min(s.system_prompt_chars) + s.tools_chars;
        let in_place_note = if updates > 0 {
            format!(
                " The system prompt updates kept in place ({} chars) are not part of it: they come later, with the conversation.",
                thousands(updates)
            )
        } else {
            String::new()
        };
        if prefix > 0 {
            list.push(
                "cache-prefix",
                Severity::Info,
                "The fixed prefix every call repeats",
                format!(
                    "System prompt + tools = {} chars (≈{} tokens at {} chars per token), {} of this request; the history is {} chars (≈{} tokens).{} A change in the prefix invalidates the provider's cache for everything after it.",
                    thousands(prefix),
                    thousands(s.tokens(prefix)),
                    crate::js::number_to_string(s.chars_per_token),
                    pct(prefix, s.total_chars()),
                    thousands(s.history_chars),
                    thousands(s.tokens(s.history_chars)),
                    in_place_note
                ),
                Some(StageId::AgentContext),
                None,
            );
        }
    }

    // 15. No cache markers where the protocol has them.
    if let (Some(r), Some(m)) = (&a.request, model) {
        let explicit = matches!(m.api(), "anthropic-messages" | "bedrock-converse-stream");
        // Only the explicit-marker protocols need the (whole-body) search.
        let has_cache = explicit
            && (contains_at_anchor(&r.body, "\"cache_control\"", 6)
                || contains_at_anchor(&r.body, "\"cachePoint\"", 6));
        let gaps: Vec<&Event> = events(a, StageId::BuildParams)
            .filter(|e| e.kind == EventKind::Note && at(e, CACHE_GAPS))
            .collect();
        if explicit && !has_cache {
            list.push(
                "no-cache-markers",
                Severity::Warning,
                "No cache markers in a protocol that needs them",
                format!("{} caches only what is marked, and this request marks nothing: every call pays for the whole prompt.", m.api()),
                Some(StageId::BuildParams),
                None,
            );
        } else if !gaps.is_empty() {
            list.push(
                "no-cache-markers",
                Severity::Notice,
                "Part of the request carries no cache marker",
                gaps.iter()
                    .map(|e| e.message.as_str())
                    .collect::<Vec<_>>()
                    .join("; "),
                Some(StageId::BuildParams),
                None,
            );
        }
    }

    // 16. Usage: likely cache breaks along the branch.
    let timeline = crate::analysis::usage::usage_timeline(a);
    let facts = crate::analysis::usage::cache_facts_from(a, &timeline);
    if !facts.breaks.is_empty() {
        let b = &facts.breaks[0];
        let with_switch = facts.breaks.iter().filter(|b| b.model_changed).count();
        list.push(
            "cache-breaks",
            Severity::Notice,
            format!("cacheRead dropped at {}", plural(facts.breaks.len(), "call", "calls")),
            format!(
                "First at line {}: {} → {} cached tokens{}. {} of {} followed a model or provider switch.",
                b.line,
                thousands(b.previous_cache_read as usize),
                thousands(b.cache_read as usize),
                if b.compaction_between { " after a compaction" } else { "" },
                with_switch,
                facts.breaks.len()
            ),
            None,
            b.entry_id.as_ref().map(|id| format!("entry:{id}")),
        );
    }

    // 17. Compaction in effect.
    if let (Some(cid), Some(file)) = (&p.session_context.compaction_id, &p.session) {
        let ctx = &p.session_context;
        let cut = ctx
            .path_indices
            .len()
            .saturating_sub(ctx.context_indices.len());
        let summary = ctx
            .messages
            .iter()
            .find(|m| m.get_str("role") == Some("compactionSummary"))
            .and_then(|m| m.get_str("summary"))
            .map(utf16_len)
            .unwrap_or(0);
        let line = file
            .entries
            .iter()
            .find(|e| e.id() == Some(cid.as_str()))
            .map(|e| e.line);
        list.push(
            "compaction",
            Severity::Info,
            "A compaction summary stands in for the earlier conversation",
            format!(
                "Compaction {}{}: {} on the branch not sent, replaced by a summary of {} chars.{}",
                cid,
                line.map(|l| format!(" (line {l})")).unwrap_or_default(),
                plural(cut, "entry", "entries"),
                thousands(summary),
                if pi.rules.transcript {
                    transcript::checkpoint_note(a).unwrap_or_default()
                } else {
                    String::new()
                }
            ),
            Some(StageId::SessionRead),
            Some(format!("entry:{cid}")),
        );
    }

    // 18. Entries off the active branch.
    if let Some(file) = &p.session {
        let mut on = vec![false; file.entries.len()];
        for &i in &p.session_context.path_indices {
            if let Some(b) = on.get_mut(i) {
                *b = true;
            }
        }
        let off: Vec<usize> = (0..file.entries.len()).filter(|&i| !on[i]).collect();
        if !off.is_empty() {
            let calls = timeline.iter().filter(|t| !t.on_branch).count();
            list.push(
                "off-branch",
                Severity::Info,
                format!("{} on other branches", plural(off.len(), "entry", "entries")),
                format!(
                    "The request follows the branch to leaf {}; {} ({} of them assistant calls) are elsewhere in the tree and not sent.",
                    p.session_context.leaf_id.as_deref().unwrap_or("?"),
                    plural(off.len(), "entry", "entries"),
                    calls
                ),
                Some(StageId::SessionRead),
                off.iter().find_map(|&i| file.entries[i].id()).map(|id| format!("entry:{id}")),
            );
        }
    }

    list.items
}

fn takes(n: usize) -> &'static str {
    if n == 1 {
        "takes"
    } else {
        "take"
    }
}

fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

#[path = "findings_transcript.rs"]
mod transcript;

#[cfg(test)]
#[path = "findings_tests.rs"]
mod tests;

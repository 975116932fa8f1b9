//! The human summary of an assembly: what `ctxlens SESSION` prints by default (and the npm
//! package's bin). Plain text, lines of at most 80 columns, no colour: the release rebuilt and
//! why, the model and the thinking level asked and sent, the call rebuilt (with the usage the
//! provider reported for it), the request, the seed article's table
//! (system prompt, tools, history: characters, tokens by pi's own estimate, shares), the largest
//! tools, skills, context files in prompt order with the ones they shadowed, the findings (one
//! line each) and the count of diagnostics. It formats what `analysis` computed (`Stats`, the
//! findings) and counts nothing itself.

use crate::analysis::findings::{self, thousands};
use crate::analysis::stats::Stats;
use crate::assemble::Assembly;
use crate::calls::CallChoice;
use crate::AssemblyStats;

/// The width every line fits in.
pub const WIDTH: usize = 80;

/// How many of the largest tools the summary lists.
const LARGEST_TOOLS: usize = 5;

fn cols(s: &str) -> usize {
    s.chars().count()
}

/// `s` cut to `w` columns with `…` at the end.
pub(crate) fn cut(s: &str, w: usize) -> String {
    let s = s.replace(['\n', '\r', '\t'], " ");
    if cols(&s) <= w {
        return s;
    }
    let mut out: String = s.chars().take(w.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// `s` cut to `w` columns in the middle (a path keeps its start and its file name).
pub(crate) fn cut_middle(s: &str, w: usize) -> String {
    let n = cols(s);
    if n <= w || w < 5 {
        return cut(s, w);
    }
    let tail = (w - 1) * 2 / 3;
    let head = w - 1 - tail;
    let start: String = s.chars().take(head).collect();
    let end: String = s.chars().skip(n - tail).collect();
    format!("{start}…{end}")
}

/// `label value`, the value wrapped at the width under itself.
fn field(out: &mut String, label: &str, value: &str) {
    const LABEL: usize = 10;
    let indent = " ".repeat(LABEL);
    let mut line = format!("{label:<LABEL$}");
    let mut first = true;
    for word in value.split(' ') {
        if !first && cols(&line) + 1 + cols(word) > WIDTH {
            out.push_str(line.trim_end());
            out.push('\n');
            line = indent.clone();
        } else if !first {
            line.push(' ');
        }
        line.push_str(&cut(word, WIDTH - LABEL));
        first = false;
    }
    out.push_str(line.trim_end());
    out.push('\n');
}

fn share(part: usize, whole: usize) -> String {
    findings::pct(part, whole)
}

/// Tokens for the summary's table: stats with `tokens` counted (or estimated) and the lines
/// that say how.
pub struct Tokens<'a> {
    pub stats: &'a Stats,
    pub legend: Vec<String>,
}

fn chars_table(out: &mut String, s: &Stats, version: &str, tokens: Option<&Tokens>) {
    let cpt = crate::js::number_to_string(s.chars_per_token);
    out.push_str("Where the characters go\n");
    let counted = tokens.filter(|t| t.stats.tokenizer.is_some());
    let head = match counted.and_then(|t| t.stats.tokenizer.as_ref()) {
        Some(t) if t.exact => "tokens",
        _ => "≈ tokens",
    };
    out.push_str(&format!(
        "{:<16}{:>12}{:>12}{:>9}\n",
        "", "characters", head, "share"
    ));
    let total = s.total_chars();
    let t = counted.map(|t| t.stats);
    for (label, n, tok) in [
        (
            "system prompt",
            s.system_prompt_chars,
            t.map(|t| t.system_prompt_tokens),
        ),
        ("tools", s.tools_chars, t.map(|t| t.tools_tokens)),
        ("history", s.history_chars, t.map(|t| t.history_tokens)),
        ("total", total, t.map(Stats::total_tokens)),
    ] {
        out.push_str(&format!(
            "  {label:<14}{:>12}{:>12}{:>9}\n",
            thousands(n),
            thousands(tok.unwrap_or_else(|| s.tokens(n))),
            share(n, total)
        ));
    }
    out.push_str(
        "  characters: UTF-16 units of the text sent (JS .length); shares: of the total;\n",
    );
    match counted {
        Some(t) => {
            for line in &t.legend {
                out.push_str(&format!("  {}\n", cut(line, WIDTH - 2)));
            }
        }
        None => {
            out.push_str(&format!(
                "  ≈ tokens: pi {version}'s estimate ({cpt} chars/token), not the provider's count\n"
            ));
            // Why the model's own count is not there.
            for line in tokens.map_or(&[][..], |t| &t.legend[..]) {
                out.push_str(&format!("  {}\n", cut(line, WIDTH - 2)));
            }
        }
    }
}

fn largest_tools(out: &mut String, s: &Stats, tokens: Option<&Tokens>) {
    if s.by_tool.is_empty() {
        return;
    }
    let mut tools: Vec<_> = s.by_tool.iter().collect();
    tools.sort_by(|a, b| b.chars.cmp(&a.chars).then(a.name.cmp(&b.name)));
    let total = s.total_chars();
    out.push_str(&format!(
        "\nLargest tools ({} of {})\n",
        LARGEST_TOOLS.min(tools.len()),
        tools.len()
    ));
    let counted = tokens.map(|t| t.stats).filter(|t| t.tokenizer.is_some());
    for t in tools.into_iter().take(LARGEST_TOOLS) {
        match counted.and_then(|c| c.by_tool.iter().find(|x| x.name == t.name)) {
            Some(c) => out.push_str(&format!(
                "  {:<30}{:>10} chars{:>8} tokens{:>9}\n",
                cut(&t.name, 28),
                thousands(t.chars),
                thousands(c.tokens),
                share(t.chars, total)
            )),
            None => out.push_str(&format!(
                "  {:<40}{:>12} chars{:>9}\n",
                cut(&t.name, 38),
                thousands(t.chars),
                share(t.chars, total)
            )),
        }
    }
}

fn skills(out: &mut String, a: &Assembly) {
    let skills = &a.parts.resources.skills;
    if skills.is_empty() {
        return;
    }
    let hidden = skills.iter().filter(|s| s.disable_model_invocation).count();
    out.push_str(&format!("\nSkills ({}", skills.len()));
    if hidden > 0 {
        out.push_str(&format!(
            "; [hidden]: {hidden} with disableModelInvocation, not offered to the model"
        ));
    }
    out.push_str(")\n");
    for s in skills {
        let name = cut(&s.name, 24);
        let note = if s.disable_model_invocation {
            "[hidden] "
        } else {
            ""
        };
        let source = cut(&s.source, 8);
        let rest = format!("{note}{}", s.description);
        out.push_str(&format!(
            "  {name:<24}  {source:<8} {}\n",
            cut(&rest, WIDTH - 37)
        ));
    }
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn context_files(out: &mut String, a: &Assembly) {
    let files = &a.parts.resources.context_files;
    if files.is_empty() {
        return;
    }
    out.push_str("\nContext files, in prompt order\n");
    for (i, f) in files.iter().enumerate() {
        let chars = format!("{} chars", thousands(crate::js::utf16_len(&f.content)));
        let num = format!("{:>3}. ", i + 1);
        let room = WIDTH - cols(&num) - cols(&chars) - 2;
        out.push_str(&format!(
            "{num}{:<room$}  {chars}\n",
            cut_middle(&f.path, room)
        ));
        if !f.shadowed.is_empty() {
            let names: Vec<&str> = f.shadowed.iter().map(|p| file_name(p)).collect();
            out.push_str(&format!(
                "     {}\n",
                cut(
                    &format!("shadows {} (same folder, not read)", names.join(", ")),
                    WIDTH - 5
                )
            ));
        }
    }
}

/// Which call the request is (a past one with the usage the provider reported, or the next).
fn call_lines(out: &mut String, a: &Assembly) {
    let n = a.calls.len();
    let Some(rc) = &a.call else {
        if n > 0 {
            field(
                out,
                "call",
                &format!(
                    "the next request, after the session's {n} {}",
                    if n == 1 { "call" } else { "calls" }
                ),
            );
        }
        return;
    };
    let c = &rc.call;
    let which = match rc.chosen {
        CallChoice::Last => format!("{} of {n}, the session's last", c.index),
        _ if c.on_active_branch => format!("{} of {n}", c.index),
        _ => format!("{} of its branch (not the active one)", c.index),
    };
    let mut about = vec![format!("the answer at line {}", c.line)];
    if let Some(m) = c.model_reference() {
        about.push(m);
    }
    if let Some(t) = &c.timestamp {
        about.push(t.clone());
    }
    field(out, "call", &format!("{which}: {}", about.join(", ")));
    let count = |x: f64| thousands(x.max(0.0) as usize);
    match &c.usage {
        Some(u) => field(
            out,
            "usage",
            &format!(
                "as the provider reported it: {} input, {} cache read, {} cache write, {} output",
                count(u.input),
                count(u.cache_read),
                count(u.cache_write),
                count(u.output)
            ),
        ),
        None => field(out, "usage", "none recorded on the answer"),
    }
    if let Some(e) = &c.error_message {
        let e = e.lines().next().unwrap_or("");
        field(
            out,
            "answer",
            &format!("{} ({e})", c.stop_reason.as_deref().unwrap_or("error")),
        );
    }
}

/// The summary, every line at most [`WIDTH`] columns.
pub fn text(a: &Assembly) -> String {
    text_with(a, None)
}

/// [`text`], its table in `tokens`' counts when given.
pub fn text_with(a: &Assembly, tokens: Option<&Tokens>) -> String {
    let mut out = String::new();
    let version = a.pi.as_ref().map(|p| p.version.as_str()).unwrap_or("?");
    match &a.choice {
        Some(c) => field(&mut out, "rebuilds", &c.explain()),
        None => field(&mut out, "rebuilds", &format!("pi {version}")),
    }
    if let Some(w) = a.choice.as_ref().and_then(|c| c.newer_session_warning()) {
        field(&mut out, "warning", &w);
    }
    let c = &a.parts.model_choice;
    match &c.model {
        Some(m) => {
            let from = if c.model_source.is_empty() {
                String::new()
            } else {
                format!(", from {}", c.model_source)
            };
            field(
                &mut out,
                "model",
                &format!("{} ({}{from})", m.reference(), m.api()),
            );
            let from = if c.level_source.is_empty() {
                String::new()
            } else {
                format!(" (from {})", c.level_source)
            };
            let thinking = if c.requested_level.is_empty() || c.requested_level == c.thinking_level
            {
                format!("{}{from}", c.thinking_level)
            } else {
                format!(
                    "asked {}{from}, sent {}: pi clamps the level to what the model takes",
                    c.requested_level, c.thinking_level
                )
            };
            field(&mut out, "thinking", &thinking);
        }
        None => field(&mut out, "model", "none"),
    }
    call_lines(&mut out, a);
    match &a.request {
        Some(r) => {
            field(
                &mut out,
                "request",
                &format!("{} {} · {} bytes", r.method, r.url, thousands(r.body.len())),
            );
        }
        None => {
            let why = c
                .exit
                .clone()
                .or_else(|| {
                    a.diagnostics
                        .iter()
                        .find(|d| d.severity == crate::Severity::Error)
                        .map(|d| d.message.clone())
                })
                .unwrap_or_else(|| "see the diagnostics".into());
            // The first line: pi's guidance that follows is in the diagnostics.
            let why = why.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            field(&mut out, "request", &format!("none: {}", why.trim()));
        }
    }
    if let Some(s) = a.stats() {
        out.push('\n');
        chars_table(&mut out, s, version, tokens);
        largest_tools(&mut out, s, tokens);
    }
    skills(&mut out, a);
    context_files(&mut out, a);
    let list = findings::findings(a);
    if !list.is_empty() {
        out.push_str(&format!("\nFindings ({})\n", list.len()));
        for f in &list {
            let num = format!("{:>3}. ", f.number);
            let line = format!("[{}] {}", f.severity.as_str(), f.title);
            out.push_str(&num);
            out.push_str(&cut(&line, WIDTH - cols(&num)));
            out.push('\n');
        }
        out.push_str("     `ctxlens findings` gives each one's detail\n");
    }
    let n = a.diagnostics.len();
    let (errors, warnings) = a
        .diagnostics
        .iter()
        .fold((0, 0), |(e, w), d| match d.severity {
            crate::Severity::Error => (e + 1, w),
            crate::Severity::Warning => (e, w + 1),
            crate::Severity::Info => (e, w),
        });
    out.push('\n');
    if n == 0 {
        out.push_str("Diagnostics: none\n");
    } else {
        out.push_str(&format!(
            "Diagnostics: {n} ({errors} errors, {warnings} warnings); `ctxlens diagnostics` lists them\n"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_fit_their_width() {
        assert_eq!(cut("abcdef", 4), "abc…");
        assert_eq!(cut("abc", 4), "abc");
        let p = cut_middle("/home/user/a/very/long/path/to/the/project/AGENTS.md", 30);
        assert_eq!(cols(&p), 30);
        assert!(p.ends_with("AGENTS.md") && p.starts_with("/home"), "{p}");
    }

    fn summary(case: &str) -> (Assembly, String) {
        let a = crate::testcase::assembly(case, None);
        let t = text(&a);
        (a, t)
    }

    #[test]
    fn every_line_fits_80_columns_and_the_table_is_the_stats() {
        let mut checked = 0;
        for case in ctxlens_corpus::cases("") {
            let Ok(inputs) = crate::case::inputs_from_case(&case.files(), None) else {
                continue;
            };
            checked += 1;
            let a = crate::assemble(&inputs);
            let t = text(&a);
            for line in t.lines() {
                assert!(cols(line) <= WIDTH, "{}: {line:?}", case.name);
            }
            let Some(s) = a.stats() else {
                assert!(t.contains("request   none: "), "{}: {t}", case.name);
                continue;
            };
            let row = |label: &str, n: usize| {
                format!(
                    "  {label:<14}{:>12}{:>12}{:>9}",
                    thousands(n),
                    thousands(s.tokens(n)),
                    share(n, s.total_chars())
                )
            };
            assert!(
                t.contains(&row("system prompt", s.system_prompt_chars)),
                "{}: {t}",
                case.name
            );
            assert!(t.contains(&row("tools", s.tools_chars)), "{}", case.name);
            assert!(
                t.contains(&row("history", s.history_chars)),
                "{}",
                case.name
            );
            let n = findings::findings(&a).len();
            if n > 0 {
                assert!(t.contains(&format!("\nFindings ({n})\n")), "{}", case.name);
            }
        }
        assert!(checked > 400, "{checked} cases");
    }

    #[test]
    fn context_files_in_order_with_the_shadowed_ones() {
        let (a, t) = summary("oc-context-shadowing");
        let files = &a.parts.resources.context_files;
        assert!(files.len() > 2);
        let mut at = 0;
        for (i, f) in files.iter().enumerate() {
            let line = format!("{:>3}. {}", i + 1, f.path);
            let found = t[at..]
                .find(&line)
                .unwrap_or_else(|| panic!("{line} in order:\n{t}"));
            at += found;
        }
        assert!(
            t.contains("shadows AGENTS.md, CLAUDE.md (same folder, not read)"),
            "{t}"
        );
    }

    #[test]
    fn skills_say_which_are_hidden() {
        let (a, t) = summary("an-skills");
        assert!(a
            .parts
            .resources
            .skills
            .iter()
            .any(|s| s.disable_model_invocation));
        assert!(t.contains("[hidden] Not shown to the model."), "{t}");
        assert!(
            t.contains("Skills (5; [hidden]: 1 with disableModelInvocation"),
            "{t}"
        );
    }

    #[test]
    fn the_clamp_says_asked_and_sent() {
        let (_, t) = summary("oc-clamp-xhigh-to-max");
        assert!(
            t.contains("thinking  asked xhigh (from --thinking), sent max"),
            "{t}"
        );
        assert!(t.contains("] Thinking level xhigh was sent as max"), "{t}");
        assert!(
            t.contains("rebuilds  pi 0.85.1 (the release that made this capture"),
            "{t}"
        );
    }

    #[test]
    fn a_past_call_with_its_reported_usage() {
        let files = ctxlens_corpus::Case::named("pi-0.85.1/an-scripted").files();
        let inputs =
            crate::case::inputs_for_call(&files, None, Some(crate::calls::CallRef::Index(2)))
                .unwrap();
        let a = crate::assemble(&inputs);
        let t = text(&a);
        let c = &a.call.as_ref().expect("call 2 rebuilt").call;
        let u = c.usage.as_ref().expect("usage recorded");
        assert!(
            t.contains(&format!(
                "call      2 of {}: the answer at line {}",
                a.calls.len(),
                c.line
            )),
            "{t}"
        );
        assert!(
            t.contains(&format!(
                "usage     as the provider reported it: {} input, {} cache read",
                u.input, u.cache_read
            )),
            "{t}"
        );
        let (_, next) = summary("demo");
        assert!(
            next.contains("call      the next request, after the session's"),
            "{next}"
        );
    }
}

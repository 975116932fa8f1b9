//! Two assemblies side by side, whatever made them differ (another release: `upgrade`; a
//! what-if change: `whatif`): whether the request is byte-identical, the first changed byte
//! (the prefix before it is what a provider's prompt cache can still reuse), its JSON path and
//! the block it is in, the URL and headers, and each block's characters and tokens under both.

use crate::analysis::stats::Stats;
use crate::assemble::Assembly;
use crate::js::utf16_len;
use crate::provenance;
use crate::AssemblyStats;

/// One block under both sides.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockDelta {
    /// `system prompt`, `tools`, `tool read`, `history`, `user text`, ..., `body`.
    pub name: String,
    pub a_chars: usize,
    pub b_chars: usize,
    /// With tokens counted on both sides.
    pub a_tokens: Option<usize>,
    pub b_tokens: Option<usize>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FirstChange {
    /// Byte offset (UTF-8) and UTF-16 offset of the first differing byte: the bytes before it
    /// are the same, the cacheable prefix that survives the change.
    pub byte: usize,
    pub utf16: usize,
    /// The JSON path of the first differing value, and each side's value there.
    pub path: Option<String>,
    pub a_value: Option<String>,
    pub b_value: Option<String>,
    /// What that path holds in the first body (provenance's label: `system prompt section
    /// tools`, `tool read: schema`, `message 3 text`, ...).
    pub block: Option<String>,
}

/// The request-level comparison of `a` and `b`.
#[derive(Clone, Debug, PartialEq)]
pub struct Diff {
    /// Both built and byte-identical (body, URL and headers).
    pub identical: bool,
    pub first_change: Option<FirstChange>,
    pub url: Option<(String, String)>,
    /// Header names whose value differs, or that one side lacks.
    pub headers: Vec<(String, Option<String>, Option<String>)>,
    pub blocks: Vec<BlockDelta>,
}

/// Why `a` built no request: its first error, else "no request".
pub fn why_not_built(a: &Assembly) -> String {
    a.diagnostics
        .iter()
        .find(|d| d.severity == crate::Severity::Error)
        .map_or_else(|| "no request".to_string(), |d| d.message.clone())
}

/// Compares `a` with `b`; the stats with tokens when the host counted them (else the
/// assemblies' own).
pub fn diff(a: &Assembly, b: &Assembly, a_stats: Option<&Stats>, b_stats: Option<&Stats>) -> Diff {
    let mut out = Diff {
        identical: false,
        first_change: None,
        url: None,
        headers: Vec::new(),
        blocks: block_rows(a_stats.or(a.stats()), b_stats.or(b.stats())),
    };
    let (Some(ra), Some(rb)) = (&a.request, &b.request) else {
        return out;
    };
    if ra.url != rb.url {
        out.url = Some((ra.url.clone(), rb.url.clone()));
    }
    for (k, v) in &ra.headers {
        match rb.headers.iter().find(|(k2, _)| k2.eq_ignore_ascii_case(k)) {
            Some((_, w)) if w == v => {}
            other => out
                .headers
                .push((k.clone(), Some(v.clone()), other.map(|(_, w)| w.clone()))),
        }
    }
    for (k, w) in &rb.headers {
        if !ra.headers.iter().any(|(k2, _)| k2.eq_ignore_ascii_case(k)) {
            out.headers.push((k.clone(), None, Some(w.clone())));
        }
    }
    match crate::case::first_difference(&ra.body, &rb.body) {
        None => out.identical = out.url.is_none() && out.headers.is_empty(),
        Some((byte, _, _)) => {
            let mut at = byte;
            while !ra.body.is_char_boundary(at) {
                at -= 1;
            }
            let json = crate::case::json_difference_at(&ra.body, &rb.body, byte);
            let block = json.as_ref().and_then(|(path, _, _)| {
                let origins = a.provenance();
                // The path or its nearest ancestor with an origin.
                let mut p = path.as_str();
                loop {
                    if let Some(o) = origins.iter().find(|o| o.path == p) {
                        return Some(label(&o.source));
                    }
                    p = p.rsplit_once('.')?.0;
                }
            });
            out.first_change = Some(FirstChange {
                byte,
                utf16: utf16_len(&ra.body[..at]),
                path: json.as_ref().map(|j| j.0.clone()),
                a_value: json.as_ref().map(|j| j.1.clone()),
                b_value: json.map(|j| j.2),
                block,
            });
        }
    }
    out
}

pub fn block_rows(a: Option<&Stats>, b: Option<&Stats>) -> Vec<BlockDelta> {
    let tok =
        |s: Option<&Stats>, f: &dyn Fn(&Stats) -> usize| s.filter(|s| s.tokenizer.is_some()).map(f);
    let mut rows: Vec<BlockDelta> = Vec::new();
    let mut row = |name: &str, c: &dyn Fn(&Stats) -> usize, t: &dyn Fn(&Stats) -> usize| {
        rows.push(BlockDelta {
            name: name.to_string(),
            a_chars: a.map_or(0, c),
            b_chars: b.map_or(0, c),
            a_tokens: tok(a, t),
            b_tokens: tok(b, t),
        });
    };
    row("system prompt", &|s| s.system_prompt_chars, &|s| {
        s.system_prompt_tokens
    });
    row("tools", &|s| s.tools_chars, &|s| s.tools_tokens);
    row("history", &|s| s.history_chars, &|s| s.history_tokens);
    row("user text", &|s| s.by_kind.user_text, &|s| {
        s.by_kind_tokens.user_text
    });
    row("assistant text", &|s| s.by_kind.assistant_text, &|s| {
        s.by_kind_tokens.assistant_text
    });
    row("reasoning", &|s| s.by_kind.reasoning, &|s| {
        s.by_kind_tokens.reasoning
    });
    row("tool arguments", &|s| s.by_kind.tool_arguments, &|s| {
        s.by_kind_tokens.tool_arguments
    });
    row("tool results", &|s| s.by_kind.tool_results, &|s| {
        s.by_kind_tokens.tool_results
    });
    row("signatures", &|s| s.by_kind.signatures, &|_| 0);
    row("parameters", &|s| s.parameters_chars, &|_| 0);
    row("structure", &|s| s.structure_chars, &|_| 0);
    row("body", &|s| s.body_chars, &|s| s.total_tokens());
    // Each tool sent by either.
    let mut names: Vec<&str> = Vec::new();
    for s in [a, b].into_iter().flatten() {
        for t in &s.by_tool {
            if !names.contains(&t.name.as_str()) {
                names.push(&t.name);
            }
        }
    }
    let find = |s: Option<&Stats>, n: &str| {
        s.and_then(|s| s.by_tool.iter().find(|t| t.name == n).cloned())
    };
    for n in names {
        let (x, y) = (find(a, n), find(b, n));
        rows.push(BlockDelta {
            name: format!("tool {n}"),
            a_chars: x.as_ref().map_or(0, |t| t.chars),
            b_chars: y.as_ref().map_or(0, |t| t.chars),
            a_tokens: a
                .filter(|s| s.tokenizer.is_some())
                .map(|_| x.as_ref().map_or(0, |t| t.tokens)),
            b_tokens: b
                .filter(|s| s.tokenizer.is_some())
                .map(|_| y.as_ref().map_or(0, |t| t.tokens)),
        });
    }
    rows
}

/// What a body leaf holds, in words.
fn label(s: &provenance::Source) -> String {
    use provenance::Source;
    match s {
        Source::SystemPrompt { sections } => match sections.first() {
            Some(x) => format!("system prompt, section {} ({})", x.name, x.source),
            None => "system prompt".into(),
        },
        Source::Tool { name, part, .. } => format!("tool {name}: {part}"),
        Source::Message(m) => format!("message {} ({}): {}", m.index, m.role, m.part),
        Source::Messages(m) => format!(
            "messages {}",
            m.iter()
                .map(|x| x.index.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Source::Inserted { key, .. } => format!("text pi inserts ({key})"),
        Source::Parameter { name, rule, .. } => format!("parameter {name}: {rule}"),
    }
}

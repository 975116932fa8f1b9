//! What an upgrade of pi does to a request: the same session and files rebuilt under two
//! releases, side by side — whether the bytes change, where first (the byte, its JSON path and
//! the block it is in: everything before it is the prefix a provider's cache can still reuse on
//! the first call after upgrading), each block's characters (and tokens, when counted) under
//! both, the URL and headers, and the version table's switches that differ between the two
//! releases (the rules behind the change).

use crate::analysis::provenance;
use crate::analysis::stats::Stats;
use crate::assemble::Assembly;
use crate::js::utf16_len;
use crate::pi::Rules;

/// One block under both releases.
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

/// A switch of the version table whose value differs between the two releases.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleChange {
    /// Its path in [`Rules`] (`transcript`, `anthropic.strict_tools`, ...).
    pub name: String,
    pub a: String,
    pub b: String,
    /// Whether it is a rule of the request's protocol (or of every protocol): a rule of
    /// another adapter changes nothing here.
    pub applies: bool,
    /// Its entry in the version table: the release that began it, what it does, its cases.
    pub doc: Option<&'static str>,
    /// The changelog lines of the releases in between that cite an issue its doc cites.
    pub changelog: Vec<(String, String)>,
}

/// The protocols an area of the version table is about (`None`: all of them).
fn area_apis(name: &str) -> Option<&'static [&'static str]> {
    let area = name.split_once('.')?.0;
    Some(match area {
        "completions" => &["openai-completions"],
        "responses" => &[
            "openai-responses",
            "azure-openai-responses",
            "openai-codex-responses",
        ],
        "mistral" => &["mistral-conversations"],
        "pi_messages" => &["pi-messages"],
        "anthropic" => &["anthropic-messages"],
        "google" => &["google-generative-ai"],
        "bedrock" => &["bedrock-converse-stream"],
        _ => return None,
    })
}
#[derive(Clone, Debug, PartialEq)]
pub struct FirstChange {
    /// Byte offset (UTF-8) and UTF-16 offset of the first differing byte: the bytes before it
    /// are the same, the cacheable prefix that survives the upgrade.
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

#[derive(Clone, Debug, PartialEq)]
pub struct Upgrade {
    pub a_version: String,
    pub b_version: String,
    /// Both built and byte-identical (body, URL and headers).
    pub identical: bool,
    pub first_change: Option<FirstChange>,
    /// The request not built under one of them, and why.
    pub not_built: Vec<(String, String)>,
    pub url: Option<(String, String)>,
    /// Header names whose value differs, or that one side lacks.
    pub headers: Vec<(String, Option<String>, Option<String>)>,
    pub blocks: Vec<BlockDelta>,
    pub rules: Vec<RuleChange>,
    /// pi's release notes between the two (`None`: this build has no changelog).
    pub changelog: Option<Vec<crate::pi::changelog::Release>>,
}

/// The switches of `a` and `b` that differ, by path, read from their `Debug` form (so a new
/// switch is compared without being listed here).
pub fn rule_changes(a: &Rules, b: &Rules) -> Vec<RuleChange> {
    let (x, y) = (leaves(&format!("{a:#?}")), leaves(&format!("{b:#?}")));
    let mut out = Vec::new();
    for (k, v) in &x {
        let w = y.iter().find(|(k2, _)| k2 == k).map(|(_, w)| w.clone());
        if w.as_ref() != Some(v) {
            out.push(RuleChange {
                name: k.clone(),
                a: v.clone(),
                b: w.unwrap_or_else(|| "(absent)".into()),
                applies: true,
                doc: crate::pi::rule_doc(k),
                changelog: Vec::new(),
            });
        }
    }
    for (k, w) in &y {
        if !x.iter().any(|(k2, _)| k2 == k) {
            out.push(RuleChange {
                name: k.clone(),
                a: "(absent)".into(),
                b: w.clone(),
                applies: true,
                doc: crate::pi::rule_doc(k),
                changelog: Vec::new(),
            });
        }
    }
    out
}

/// `path → value` of a pretty `Debug` struct: nested structs give dotted paths; a list or a
/// tuple is one value on one line.
fn leaves(debug: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack: Vec<String> = Vec::new();
    let mut lines = debug.lines().skip(1).peekable();
    while let Some(line) = lines.next() {
        let t = line.trim();
        if t.starts_with('}') {
            stack.pop();
            continue;
        }
        let Some((key, value)) = t.split_once(": ") else {
            continue;
        };
        let value = value.trim_end_matches(',');
        let path = stack
            .iter()
            .cloned()
            .chain(std::iter::once(key.to_string()))
            .collect::<Vec<_>>()
            .join(".");
        if value.ends_with('{') && !value.ends_with("{}") {
            stack.push(key.to_string());
        } else if value == "[" || value == "(" {
            let close = if value == "[" { ']' } else { ')' };
            let depth = line.len() - line.trim_start().len();
            let mut items = Vec::new();
            for l in lines.by_ref() {
                let d = l.len() - l.trim_start().len();
                let lt = l.trim();
                if d == depth && lt.starts_with(close) {
                    break;
                }
                items.push(lt.trim_end_matches(',').to_string());
            }
            let joined = items.join(", ");
            out.push((
                path,
                if close == ']' {
                    format!("[{joined}]")
                } else {
                    format!("({joined})")
                },
            ));
        } else {
            out.push((path, value.to_string()));
        }
    }
    out
}

fn block_rows(a: Option<&Stats>, b: Option<&Stats>) -> Vec<BlockDelta> {
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

/// `a` and `b`: the same inputs assembled under two releases (`Inputs::pi`); `a_stats` and
/// `b_stats` their stats, with tokens when the host counted them (else the assemblies' own).
pub fn upgrade(
    a: &Assembly,
    b: &Assembly,
    a_stats: Option<&Stats>,
    b_stats: Option<&Stats>,
) -> Upgrade {
    let version = |x: &Assembly| {
        x.pi.as_ref()
            .map_or_else(|| "?".to_string(), |p| p.version.to_string())
    };
    let mut out = Upgrade {
        a_version: version(a),
        b_version: version(b),
        identical: false,
        first_change: None,
        not_built: Vec::new(),
        url: None,
        headers: Vec::new(),
        blocks: block_rows(a_stats.or(a.stats.as_ref()), b_stats.or(b.stats.as_ref())),
        changelog: None,
        rules: match (&a.pi, &b.pi) {
            (Some(x), Some(y)) => rule_changes(x.rules, y.rules),
            _ => Vec::new(),
        },
    };
    out.changelog = crate::pi::changelog::between(&out.a_version, &out.b_version);
    // A rule's changelog lines: those citing an issue its doc cites.
    if let Some(notes) = &out.changelog {
        for r in &mut out.rules {
            let refs = r
                .doc
                .map(crate::pi::changelog::issue_refs)
                .unwrap_or_default();
            for rel in notes {
                for (_, items) in &rel.sections {
                    for item in items {
                        if crate::pi::changelog::issue_refs(item)
                            .iter()
                            .any(|n| refs.contains(n))
                        {
                            r.changelog.push((rel.version.clone(), item.clone()));
                        }
                    }
                }
            }
        }
    }
    let api = a
        .parts
        .model_choice
        .model
        .as_ref()
        .map(|m| m.api().to_string());
    for r in &mut out.rules {
        r.applies = match (area_apis(&r.name), &api) {
            (Some(apis), Some(api)) => apis.contains(&api.as_str()),
            _ => true,
        };
    }
    for (x, v) in [(a, &out.a_version), (b, &out.b_version)] {
        if x.request.is_none() {
            let why = x
                .diagnostics
                .iter()
                .find(|d| d.severity == crate::Severity::Error)
                .map_or_else(|| "no request".to_string(), |d| d.message.clone());
            out.not_built.push((v.clone(), why));
        }
    }
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
            let json = crate::case::json_difference(&ra.body, &rb.body);
            let block = json.as_ref().and_then(|(path, _, _)| {
                let origins = provenance::provenance(a);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PiVersion;

    #[test]
    fn the_rules_that_differ_are_read_from_the_version_table() {
        let (old, new) = (PiVersion::V0_85_1.rules(), PiVersion::V1_6_0.rules());
        assert!(rule_changes(old, old).is_empty());
        let changes = rule_changes(old, new);
        let get = |n: &str| changes.iter().find(|c| c.name == n);
        let t = get("transcript").expect("transcript changed");
        assert_eq!((t.a.as_str(), t.b.as_str()), ("false", "true"));
        // A nested switch, an enum value and a list.
        assert!(get("anthropic.mid_convo_system_messages").is_some());
        assert_eq!(
            get("max_tokens_clamp").map(|c| c.b.as_str()),
            Some("RatioMargin")
        );
        assert!(get("entry_types").is_some_and(|c| c.b.contains("\"context_edit\"")));
        // Unchanged switches are not listed.
        assert!(get("session_version").is_none());
        // Every switch has its version-table entry (the doc comment, generated by build.rs).
        for (path, _) in leaves(&format!("{new:#?}")) {
            let doc = crate::pi::rule_doc(&path).unwrap_or_else(|| panic!("no doc for {path}"));
            assert!(!doc.is_empty(), "{path}");
        }
    }

    #[test]
    fn the_changelog_between_two_releases_and_the_lines_a_rule_cites() {
        let notes = crate::pi::changelog::between("0.85.1", "1.6.0").expect("compiled in");
        let versions: Vec<&str> = notes.iter().map(|r| r.version.as_str()).collect();
        assert_eq!(versions.first(), Some(&"1.6.0"));
        assert!(!versions.contains(&"0.85.1") && versions.contains(&"0.86.0"));
        assert_eq!(
            crate::pi::changelog::between("1.6.0", "0.85.1").map(|n| n.len()),
            Some(notes.len())
        );
        assert!(crate::pi::changelog::between("1.6.0", "1.6.0")
            .unwrap()
            .is_empty());
        assert_eq!(
            crate::pi::changelog::issue_refs("x (#8133), [#9631](u) a#12 #99"),
            vec!["8133", "9631"]
        );
        let case = ctxlens_corpus::Case::named("pi-1.6.0/cx-085-cross");
        let mut inputs = crate::case::inputs_from_case(&case.files(), None).unwrap();
        inputs.pi = Some(PiVersion::V0_85_1);
        let a = crate::assemble(&inputs);
        inputs.pi = Some(PiVersion::V1_6_0);
        let b = crate::assemble(&inputs);
        let u = upgrade(&a, &b, None, None);
        let cited: Vec<&RuleChange> = u.rules.iter().filter(|r| !r.changelog.is_empty()).collect();
        assert!(cited.len() > 10, "{}", cited.len());
        for r in cited {
            let refs = crate::pi::changelog::issue_refs(r.doc.unwrap());
            for (_, line) in &r.changelog {
                assert!(crate::pi::changelog::issue_refs(line)
                    .iter()
                    .any(|n| refs.contains(n)));
            }
        }
    }

    #[test]
    fn the_first_change_is_the_first_differing_byte_and_the_prefix_before_it_is_shared() {
        let case = ctxlens_corpus::Case::named("pi-1.6.0/cx-085-cross");
        let mut inputs = crate::case::inputs_from_case(&case.files(), None).unwrap();
        inputs.pi = Some(PiVersion::V0_85_1);
        let a = crate::assemble(&inputs);
        inputs.pi = Some(PiVersion::V1_6_0);
        let b = crate::assemble(&inputs);
        let same = upgrade(&a, &a, None, None);
        assert!(same.identical && same.first_change.is_none());
        let u = upgrade(&a, &b, None, None);
        assert!(!u.identical);
        let (x, y) = (a.body().unwrap(), b.body().unwrap());
        let want = x.bytes().zip(y.bytes()).position(|(p, q)| p != q).unwrap();
        let f = u.first_change.expect("a change");
        assert_eq!(f.byte, want);
        assert_eq!(x[..want], y[..want]);
        assert!(f.path.is_some() && f.block.is_some(), "{f:?}");
        let sp = u.blocks.iter().find(|r| r.name == "system prompt").unwrap();
        assert_eq!(sp.a_chars, a.stats.as_ref().unwrap().system_prompt_chars);
        assert_eq!(sp.b_chars, b.stats.as_ref().unwrap().system_prompt_chars);
        // openai-codex-responses: the Responses rules apply, Anthropic's do not.
        let r = |n: &str| u.rules.iter().find(|c| c.name.starts_with(n)).unwrap();
        assert!(r("responses.").applies);
        assert!(!r("anthropic.").applies);
        assert!(r("transcript").applies);
    }
}

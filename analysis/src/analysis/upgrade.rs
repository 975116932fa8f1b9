//! What an upgrade of pi does to a request: the same session and files rebuilt under two
//! releases, side by side — whether the bytes change, where first (the byte, its JSON path and
//! the block it is in: everything before it is the prefix a provider's cache can still reuse on
//! the first call after upgrading), each block's characters (and tokens, when counted) under
//! both, the URL and headers, and the version table's switches that differ between the two
//! releases (the rules behind the change).

use crate::analysis::diff;
pub use crate::analysis::diff::{BlockDelta, FirstChange};
use crate::analysis::stats::Stats;
use crate::assemble::Assembly;
use crate::pi::Rules;
use crate::AssemblyStats;

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
        blocks: diff::block_rows(a_stats.or(a.stats()), b_stats.or(b.stats())),
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
            out.not_built.push((v.clone(), diff::why_not_built(x)));
        }
    }
    let d = diff::diff(a, b, None, None);
    out.identical = d.identical;
    out.first_change = d.first_change;
    out.url = d.url;
    out.headers = d.headers;
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
        assert_eq!(sp.a_chars, a.stats().unwrap().system_prompt_chars);
        assert_eq!(sp.b_chars, b.stats().unwrap().system_prompt_chars);
        // openai-codex-responses: the Responses rules apply, Anthropic's do not.
        let r = |n: &str| u.rules.iter().find(|c| c.name.starts_with(n)).unwrap();
        assert!(r("responses.").applies);
        assert!(!r("anthropic.").applies);
        assert!(r("transcript").applies);
    }
}

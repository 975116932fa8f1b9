//! The JSON of [`crate::analysis::upgrade`] (its types: [`super::upgrade_types`]; the pieces a
//! what-if shares with it are written here too).

use crate::analysis::diff::{BlockDelta, FirstChange as Change};
use crate::analysis::upgrade as u;
use crate::js::Value;
use crate::report::upgrade_types::*;
use crate::report::wire::Wire;

/// The upgrade comparison as the report gives it.
pub fn report(up: &u::Upgrade) -> Upgrade {
    Upgrade {
        from: up.a_version.clone(),
        to: up.b_version.clone(),
        identical: up.identical,
        first_change: up.first_change.as_ref().map(first_change),
        not_built: up
            .not_built
            .iter()
            .map(|(v, why)| NotBuilt {
                pi: v.clone(),
                why: why.clone(),
            })
            .collect(),
        url: up.url.as_ref().map(url),
        headers: headers(&up.headers),
        blocks: blocks(&up.blocks),
        rules: up.rules.iter().map(rule).collect(),
        changelog: up
            .changelog
            .as_ref()
            .map(|list| list.iter().map(release_notes).collect()),
    }
}

/// The upgrade comparison (camelCase): `{from, to, identical, firstChange, notBuilt, url,
/// headers, blocks, rules, changelog}`.
pub fn to_json(up: &u::Upgrade) -> Value {
    report(up).to_value()
}

fn rule(r: &u::RuleChange) -> RuleChange {
    RuleChange {
        rule: r.name.clone(),
        from: r.a.clone(),
        to: r.b.clone(),
        applies_to_this_protocol: r.applies,
        doc: r.doc.map(str::to_string),
        changelog: r
            .changelog
            .iter()
            .map(|(v, t)| ChangelogLine {
                pi: v.clone(),
                text: t.clone(),
            })
            .collect(),
    }
}

fn release_notes(r: &crate::pi::changelog::Release) -> ReleaseNotes {
    ReleaseNotes {
        pi: r.version.clone(),
        date: r.date.clone(),
        sections: r
            .sections
            .iter()
            .map(|(title, items)| ReleaseNotesSection {
                title: title.clone(),
                items: items.clone(),
            })
            .collect(),
    }
}

/// The first changed byte, the cached prefix before it, and what is there on each side.
pub fn first_change(f: &Change) -> FirstChange {
    FirstChange {
        byte: f.byte,
        utf16: f.utf16,
        cached_prefix_bytes: f.byte,
        path: f.path.clone(),
        from: f.a_value.clone(),
        to: f.b_value.clone(),
        block: f.block.clone(),
    }
}

/// Each block's characters (and tokens) on both sides, with the differences.
pub fn blocks(blocks: &[BlockDelta]) -> Vec<UpgradeBlock> {
    let delta = |x: Option<usize>, y: Option<usize>| Some(y? as f64 - x? as f64);
    blocks
        .iter()
        .map(|b| UpgradeBlock {
            name: b.name.clone(),
            from_chars: b.a_chars,
            to_chars: b.b_chars,
            chars_delta: b.b_chars as f64 - b.a_chars as f64,
            from_tokens: b.a_tokens,
            to_tokens: b.b_tokens,
            tokens_delta: delta(b.a_tokens, b.b_tokens),
        })
        .collect()
}

/// The headers whose value differs, or that one side lacks.
pub fn headers(headers: &[(String, Option<String>, Option<String>)]) -> Vec<HeaderChange> {
    headers
        .iter()
        .map(|(k, a, b)| HeaderChange {
            name: k.clone(),
            from: a.clone(),
            to: b.clone(),
        })
        .collect()
}

/// The URL on both sides.
pub fn url((a, b): &(String, String)) -> UrlChange {
    UrlChange {
        from: a.clone(),
        to: b.clone(),
    }
}

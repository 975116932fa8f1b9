//! pi's own release notes (`data/changelog.json`, from the newest release's CHANGELOG.md by
//! `scripts/extract-changelog.mjs`), for the upgrade comparison: what each release between two
//! says. Compiled in with `embedded-data` (the CLI); a build without it has none and says so,
//! unless the host installs the file ([`install`]: the app's worker fetches it).

use crate::js::{self, Value};

/// One release's notes.
#[derive(Clone, Debug, PartialEq)]
pub struct Release {
    pub version: String,
    pub date: Option<String>,
    /// `(section title, items)`: `Added`, `Changed`, `Fixed`, ...
    pub sections: Vec<(String, Vec<String>)>,
}

#[cfg(feature = "embedded-data")]
const JSON: Option<&str> = Some(include_str!("../data/changelog.json"));
#[cfg(not(feature = "embedded-data"))]
const JSON: Option<&str> = None;

/// The notes installed at run time by a build without them ([`install`]).
static INSTALLED: std::sync::OnceLock<String> = std::sync::OnceLock::new();

fn text() -> Option<&'static str> {
    JSON.or_else(|| INSTALLED.get().map(String::as_str))
}

/// Whether this build has pi's release notes (compiled in or installed).
pub fn is_available() -> bool {
    text().is_some()
}

/// Installs `data/changelog.json`'s text in a build without it (the app's worker fetches it for
/// the upgrade comparison). Once; a second call changes nothing.
pub fn install(json: String) -> Result<(), String> {
    let v = js::parse(&json).map_err(|e| format!("changelog.json: {}", e.message))?;
    if v.get("releases").and_then(Value::as_array).is_none() {
        return Err("changelog.json: no releases".into());
    }
    let _ = INSTALLED.set(json);
    Ok(())
}

fn key(v: &str) -> Vec<u64> {
    v.split('.').map(|p| p.parse().unwrap_or(0)).collect()
}

/// The notes of every release after `from` up to `to` (in either order: a downgrade reads the
/// same notes), newest first; `None` when this build has no changelog.
pub fn between(from: &str, to: &str) -> Option<Vec<Release>> {
    let doc = js::parse(text()?).ok()?;
    let (lo, hi) = if key(from) <= key(to) {
        (key(from), key(to))
    } else {
        (key(to), key(from))
    };
    let list = doc.get("releases").and_then(Value::as_array)?;
    Some(
        list.iter()
            .filter_map(|r| {
                let version = r.get_str("version")?.to_string();
                let k = key(&version);
                (k > lo && k <= hi).then(|| Release {
                    date: r.get_str("date").map(str::to_string),
                    sections: r
                        .get("sections")
                        .and_then(Value::as_array)
                        .map(|s| {
                            s.iter()
                                .map(|x| {
                                    (
                                        x.get_str("title").unwrap_or("").to_string(),
                                        x.get("items")
                                            .and_then(Value::as_array)
                                            .map(|i| {
                                                i.iter()
                                                    .filter_map(|t| t.as_str().map(str::to_string))
                                                    .collect()
                                            })
                                            .unwrap_or_default(),
                                    )
                                })
                                .collect()
                        })
                        .unwrap_or_default(),
                    version,
                })
            })
            .collect(),
    )
}

/// The issue and pull-request numbers a text cites (`#8133`).
pub fn issue_refs(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    for (i, _) in text.match_indices('#') {
        let n: String = text[i + 1..]
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect();
        let word_before = i > 0 && (b[i - 1] as char).is_alphanumeric();
        if n.len() >= 3 && !word_before && !out.contains(&n) {
            out.push(n);
        }
    }
    out
}

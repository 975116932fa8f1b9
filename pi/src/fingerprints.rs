//! What tells one release's session from another's, for every supported release, compiled in:
//! the texts of the system-prompt sections that mark a release (its preamble, docs and tools
//! lines) and a digest of each built-in tool's stored declaration (description and parameters).
//!
//! The release detection ([`super::choice`]) reads these rather than each release's full data,
//! so it reaches the same conclusion on every host — the CLI, which compiles every release's data
//! in, and the wasm bindings, which install a release's data only when it is rebuilt.
//! `data/release-fingerprints.json` is made from the releases' data by
//! `fingerprints_of(&PiData)`; a test checks it against every release's data (`UPDATE_EXPECT=1`
//! rewrites it).

use std::sync::OnceLock;

use super::{PiData, PiVersion};
use crate::js::{self, Object, Value};

/// The section texts that mark a release (`prompt.json` keys), in the order they are tried.
pub const MARKS: [&str; 4] = ["preamble", "docsPrefix", "toolsTail", "docsTail"];

/// The compiled-in fingerprints of every supported release.
pub const FINGERPRINTS_JSON: &str = include_str!("../data/release-fingerprints.json");

/// One release's fingerprints.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fingerprints {
    /// `(key, text)` of each mark the release has (texts of 16 characters or fewer are left
    /// out: they tell nothing apart).
    pub marks: Vec<(&'static str, String)>,
    /// `(tool name, digest of its declaration)` for each built-in tool.
    pub tools: Vec<(String, String)>,
}

impl Fingerprints {
    /// The release's text of `key`, if it has one that marks it.
    pub fn mark(&self, key: &str) -> Option<&str> {
        self.marks
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, t)| t.as_str())
    }

    /// The digest of the release's own declaration of built-in tool `name`.
    pub fn tool(&self, name: &str) -> Option<&str> {
        self.tools
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, d)| d.as_str())
    }
}

/// The digest of a tool declaration: pi's `shortHash` of its description and its parameters'
/// JSON, as stored (`toolsAdded`) or as the release declares it.
pub fn tool_digest(description: &str, parameters: Option<&Value>) -> String {
    let params = parameters.map(Value::to_json).unwrap_or_default();
    js::short_hash(&format!("{description}\u{0}{params}"))
}

/// A release's fingerprints, from its full data.
pub fn fingerprints_of(data: &PiData) -> Fingerprints {
    let marks = MARKS
        .into_iter()
        .filter_map(|k| {
            let t = data.prompt.get_str(k).filter(|s| s.len() > 16)?;
            Some((k, t.to_string()))
        })
        .collect();
    let tools = data
        .tools
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| {
            let name = t.get_str("name")?;
            let d = tool_digest(t.get_str("description").unwrap_or(""), t.get("parameters"));
            Some((name.to_string(), d))
        })
        .collect();
    Fingerprints { marks, tools }
}

/// The fingerprints as the JSON file holds them.
pub fn to_json(all: &[(PiVersion, Fingerprints)]) -> Value {
    let mut releases = Object::new();
    for (v, f) in all {
        let mut marks = Object::new();
        for (k, t) in &f.marks {
            marks.insert(*k, Value::str(t));
        }
        let mut tools = Object::new();
        for (n, d) in &f.tools {
            tools.insert(n.as_str(), Value::str(d));
        }
        releases.insert(
            v.as_str(),
            Object::new()
                .with("marks", marks)
                .with("tools", tools)
                .into(),
        );
    }
    Object::new()
        .with("about", "What tells each supported pi release's session from another's: the section texts that mark it and a digest (pi's shortHash of description NUL parameters JSON) of each built-in tool's declaration. Made from each release's data (pi/src/fingerprints.rs); UPDATE_EXPECT=1 cargo test -p ctxlens-pi fingerprints rewrites it.")
        .with("releases", releases)
        .into()
}

fn parse(json: &str) -> Vec<(PiVersion, Fingerprints)> {
    let Ok(doc) = js::parse(json) else {
        return Vec::new();
    };
    PiVersion::ALL
        .into_iter()
        .filter_map(|v| {
            let r = doc.get("releases")?.get(v.as_str())?;
            let marks = MARKS
                .into_iter()
                .filter_map(|k| Some((k, r.get("marks")?.get_str(k)?.to_string())))
                .collect();
            let tools = r
                .get("tools")
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(|o| o.iter())
                .filter_map(|(n, d)| Some((n.to_string(), d.as_str()?.to_string())))
                .collect();
            Some((v, Fingerprints { marks, tools }))
        })
        .collect()
}

/// The compiled-in fingerprints of `version` (every supported release has them).
pub fn get(version: PiVersion) -> Option<&'static Fingerprints> {
    static ALL: OnceLock<Vec<(PiVersion, Fingerprints)>> = OnceLock::new();
    ALL.get_or_init(|| parse(FINGERPRINTS_JSON))
        .iter()
        .find(|(v, _)| *v == version)
        .map(|(_, f)| f)
}

#[cfg(all(test, feature = "embedded-data"))]
mod tests {
    use super::*;

    /// The compiled-in file is what every release's data makes (`UPDATE_EXPECT=1` rewrites it).
    #[test]
    fn fingerprints_are_made_from_every_releases_data() {
        let all: Vec<(PiVersion, Fingerprints)> = PiVersion::ALL
            .into_iter()
            .map(|v| {
                (
                    v,
                    fingerprints_of(super::super::data::get(v).expect("data")),
                )
            })
            .collect();
        let want = format!("{}\n", to_json(&all).to_json_pretty(2));
        if std::env::var_os("UPDATE_EXPECT").is_some() {
            let path = concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/data/release-fingerprints.json"
            );
            std::fs::write(path, &want).expect("write the fingerprints");
            return;
        }
        assert_eq!(FINGERPRINTS_JSON, want, "data/release-fingerprints.json is stale: UPDATE_EXPECT=1 cargo test -p ctxlens-pi fingerprints");
        for (v, f) in &all {
            assert_eq!(get(*v), Some(f), "pi {v}");
            assert!(!f.tools.is_empty() && !f.marks.is_empty(), "pi {v}");
        }
    }
}

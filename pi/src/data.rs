//! pi's literal facts for one release: built-in tool definitions, system-prompt pieces, the
//! strings pi inserts into bodies, defaults, the built-in model catalog, the SDK versions its
//! requests reveal and where its rules live in its code. `scripts/extract-pi-data.sh VERSION`
//! generates them from the release's npm package into `pi/data/pi-<version>/`.
//!
//! With the `embedded-data` feature (on by default: the CLI and the tests) every release's folder
//! is compiled in and parsed on first use. Without it (the wasm builds, which load each release's
//! data as its own asset), the binding hands the files over with [`install`] before the first
//! assembly for that release.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::OnceLock;

use super::PiVersion;
use crate::js::{self, Object, Value};

/// The files of a data folder, each one JSON document.
pub const FILES: [&str; 8] = [
    "manifest.json",
    "tools.json",
    "prompt.json",
    "strings.json",
    "defaults.json",
    "models.json",
    "sdks.json",
    "sources.json",
];

/// One release's data, parsed.
#[derive(Debug)]
pub struct PiData {
    pub version: PiVersion,
    /// `manifest.json`: package versions, hashes of the other files, notes of the extraction.
    pub manifest: Value,
    /// `tools.json`: the built-in tool definitions, in pi's order.
    pub tools: Value,
    /// `prompt.json`: the pieces of the system prompt and the defaults that select them.
    pub prompt: Value,
    /// `strings.json`: texts pi inserts into bodies, by group (`group.key`).
    pub strings: Value,
    /// `defaults.json`: numbers and tables pi's code holds (thinking levels, budgets, ...).
    pub defaults: Value,
    /// `models.json`: the built-in model catalog in pi's order and key order.
    pub catalog: Value,
    /// `sdks.json`: the versions of the SDKs pi's requests name (`User-Agent` values and the
    /// like), by npm package name.
    pub sdks: Value,
    /// `sources.json`: for each pi source location ctxlens cites (its key), where that code
    /// lives in this release.
    sources: BTreeMap<String, Option<Located>>,
    /// The catalog grouped by provider, in catalog order (built on first use).
    by_provider: OnceLock<Vec<(String, Vec<Object>)>>,
    /// Every string of `strings.json` of 4 or more UTF-16 units, with its `group.key`.
    inserted: OnceLock<Vec<(String, &'static str)>>,
}

/// Where a cited piece of pi's code lives in one release.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Located {
    /// `PREFIX/path.js:LINE` (see `manifest.json` `sourcePrefixes`).
    pub at: &'static str,
    /// The cited line itself (`true`), or only the function that held it in the release the
    /// rule was ported from (`false`: the line changed).
    pub exact: bool,
}

/// Why a release's data is not available.
#[derive(Clone, Debug, PartialEq)]
pub enum DataError {
    /// The data of this release was neither compiled in nor installed.
    NotLoaded(PiVersion),
    /// A file of the folder is missing or is not what the extraction writes.
    Invalid {
        version: PiVersion,
        file: String,
        message: String,
    },
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataError::NotLoaded(v) => write!(
                f,
                "the data of pi {v} is not loaded (data/pi-{v}/ was not installed)"
            ),
            DataError::Invalid {
                version,
                file,
                message,
            } => write!(f, "data/pi-{version}/{file}: {message}"),
        }
    }
}

impl std::error::Error for DataError {}

impl PiData {
    /// Parses a data folder's files (`file(name)` gives a file's text, for each of [`FILES`]).
    pub fn parse<'a>(
        version: PiVersion,
        file: impl Fn(&str) -> Option<&'a str>,
    ) -> Result<PiData, DataError> {
        let invalid = |name: &str, message: String| DataError::Invalid {
            version,
            file: name.to_string(),
            message,
        };
        let load = |name: &str| -> Result<Value, DataError> {
            let text = file(name).ok_or_else(|| invalid(name, "missing".into()))?;
            js::parse(text).map_err(|e| invalid(name, format!("not valid JSON: {e}")))
        };
        let manifest = load("manifest.json")?;
        if manifest.get_str("piVersion") != Some(version.as_str()) {
            return Err(invalid(
                "manifest.json",
                format!(
                    "piVersion is {:?}, not {:?}",
                    manifest.get_str("piVersion"),
                    version.as_str()
                ),
            ));
        }
        let sources_json = load("sources.json")?;
        let Some(table) = sources_json.as_object() else {
            return Err(invalid("sources.json", "not an object".into()));
        };
        let mut sources = BTreeMap::new();
        for (key, at) in table.iter() {
            let at = match at {
                Value::Null => None,
                Value::String(s) => Some(Located {
                    at: leak(s),
                    exact: true,
                }),
                Value::Object(o) => match o.get_str("function") {
                    Some(f) => Some(Located {
                        at: leak(f),
                        exact: false,
                    }),
                    None => return Err(invalid("sources.json", format!("{key}: no function"))),
                },
                _ => return Err(invalid("sources.json", format!("{key}: not a location"))),
            };
            sources.insert(key.to_string(), at);
        }
        Ok(PiData {
            version,
            manifest,
            tools: load("tools.json")?,
            prompt: load("prompt.json")?,
            strings: load("strings.json")?,
            defaults: load("defaults.json")?,
            catalog: load("models.json")?,
            sdks: load("sdks.json")?,
            sources,
            by_provider: OnceLock::new(),
            inserted: OnceLock::new(),
        })
    }

    /// A string from `prompt.json`.
    pub fn prompt_str(&self, key: &str) -> &str {
        self.prompt
            .get_str(key)
            .unwrap_or_else(|| panic!("data/pi-{}/prompt.json has no string {key:?}", self.version))
    }

    /// A string from `strings.json`, by `group.key`.
    pub fn string(&self, group: &str, key: &str) -> &str {
        self.strings
            .get(group)
            .and_then(|g| g.get_str(key))
            .unwrap_or_else(|| {
                panic!(
                    "data/pi-{}/strings.json has no string {group}.{key}",
                    self.version
                )
            })
    }

    /// A number from `defaults.json`, `NaN` when the data lacks it.
    pub fn default_number(&self, key: &str) -> f64 {
        self.defaults
            .get(key)
            .and_then(Value::as_f64)
            .unwrap_or(f64::NAN)
    }

    /// The version of an SDK package pi 's requests name (`"@anthropic-ai/sdk"`).
    pub fn sdk_version(&self, package: &str) -> &str {
        self.sdks.get_str(package).unwrap_or_else(|| {
            panic!(
                "data/pi-{}/sdks.json has no version for {package}",
                self.version
            )
        })
    }

    /// The built-in catalog grouped by provider, in catalog order (grouped once; the model
    /// objects are shared).
    pub fn catalog_by_provider(&self) -> &[(String, Vec<Object>)] {
        self.by_provider.get_or_init(|| {
            let mut out: Vec<(String, Vec<Object>)> = Vec::new();
            for o in self
                .catalog
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_object)
            {
                let p = o.get_str("provider").unwrap_or("");
                match out.iter_mut().find(|(q, _)| q == p) {
                    Some((_, ms)) => ms.push(o.clone()),
                    None => out.push((p.to_string(), vec![o.clone()])),
                }
            }
            out
        })
    }

    /// The texts pi inserts into bodies (`strings.json`), each of 4 or more UTF-16 units, with
    /// its `group.key`, in the file's order.
    pub fn inserted_strings(&'static self) -> &'static [(String, &'static str)] {
        fn walk(prefix: &str, v: &'static Value, out: &mut Vec<(String, &'static str)>) {
            match v {
                Value::String(s) if js::utf16_len(s) >= 4 => {
                    out.push((prefix.to_string(), s.as_str()))
                }
                Value::Object(o) => {
                    for (k, x) in o.iter() {
                        let key = if prefix.is_empty() {
                            k.to_string()
                        } else {
                            format!("{prefix}.{k}")
                        };
                        walk(&key, x, out);
                    }
                }
                _ => {}
            }
        }
        self.inserted.get_or_init(|| {
            let mut out = Vec::new();
            walk("", &self.strings, &mut out);
            out
        })
    }

    /// The Node version that runs pi in the captures (the oracle's Node, which the extraction
    /// ran with: `manifest.json` `extractedWithNode`), as `process.version` gives it (`v22.23.5`).
    pub fn node_version(&self) -> &str {
        self.manifest.get_str("extractedWithNode").unwrap_or("")
    }

    /// Where the code that ctxlens cites as `key` lives in this release, or `None` when the
    /// extraction did not find it there (or the key is not in the table).
    pub fn source(&self, key: &str) -> Option<Located> {
        self.sources.get(key).copied().flatten()
    }

    /// Every source key of the table, with its location in this release.
    pub fn sources(&self) -> impl Iterator<Item = (&str, Option<Located>)> {
        self.sources.iter().map(|(k, v)| (k.as_str(), *v))
    }

    /// The package folder a source prefix stands for (`"AI"` → `@earendil-works/pi-ai/dist`).
    pub fn source_prefix(&self, prefix: &str) -> Option<&str> {
        self.manifest.get("sourcePrefixes")?.get_str(prefix)
    }
}

/// Data lives for the process (a handful of releases, each parsed once).
fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

fn slot(version: PiVersion) -> &'static OnceLock<&'static PiData> {
    static SLOTS: [OnceLock<&'static PiData>; PiVersion::ALL.len()] =
        [const { OnceLock::new() }; PiVersion::ALL.len()];
    let i = PiVersion::ALL
        .iter()
        .position(|v| *v == version)
        .expect("every version is in ALL");
    &SLOTS[i]
}

/// Installs a release's data from its files (`file(name)` for each of [`FILES`]). The first
/// installation of a release wins; installing it again is a no-op.
pub fn install<'a>(
    version: PiVersion,
    file: impl Fn(&str) -> Option<&'a str>,
) -> Result<&'static PiData, DataError> {
    let cell = slot(version);
    if let Some(d) = cell.get() {
        return Ok(d);
    }
    let data: &'static PiData = Box::leak(Box::new(PiData::parse(version, file)?));
    Ok(cell.get_or_init(|| data))
}

/// Installs a release's data from its files as bytes (`(name, bytes)`, each of [`FILES`]), as a
/// host fetched or was handed them: each file must be UTF-8.
pub fn install_files<N: AsRef<str>>(
    version: PiVersion,
    files: &[(N, &[u8])],
) -> Result<&'static PiData, DataError> {
    let mut texts = Vec::with_capacity(files.len());
    for (name, bytes) in files {
        let name = name.as_ref();
        let text = std::str::from_utf8(bytes).map_err(|e| DataError::Invalid {
            version,
            file: name.to_string(),
            message: format!("not UTF-8 ({e})"),
        })?;
        texts.push((name, text));
    }
    install(version, |name| {
        texts.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
    })
}

/// The calls of a host that wait for a release's data: a call that needs a release not yet
/// available waits here ([`Waiting::wait`]) while the host fetches or is handed the release's
/// files; once they are installed ([`install_files`]) the calls are taken back
/// ([`Waiting::take_ready`]) and run again, each asking once more for what it needs (a past
/// call of a session a later pi continued needs the session's release first, to find the call,
/// then its own). The npm binding's calls wait here for the JS side; the app's worker's
/// messages wait for its fetches.
#[derive(Debug)]
pub struct Waiting<T> {
    by_release: BTreeMap<PiVersion, Vec<T>>,
}

impl<T> Default for Waiting<T> {
    fn default() -> Self {
        Waiting {
            by_release: BTreeMap::new(),
        }
    }
}

impl<T> Waiting<T> {
    /// `call` waits for `version`'s data; `true` when it is the first to: the host fetches the
    /// release then (a second call waits for the same fetch).
    pub fn wait(&mut self, version: PiVersion, call: T) -> bool {
        let calls = self.by_release.entry(version).or_default();
        calls.push(call);
        calls.len() == 1
    }

    /// The calls whose release is now available, in the order they came, no longer waiting.
    pub fn take_ready(&mut self) -> Vec<T> {
        let ready: Vec<PiVersion> = self
            .by_release
            .keys()
            .copied()
            .filter(|v| is_available(*v))
            .collect();
        ready
            .into_iter()
            .flat_map(|v| self.by_release.remove(&v).unwrap_or_default())
            .collect()
    }

    /// The calls waiting for `version`, no longer waiting (its data did not load: each is told).
    pub fn take(&mut self, version: PiVersion) -> Vec<T> {
        self.by_release.remove(&version).unwrap_or_default()
    }

    pub fn is_empty(&self) -> bool {
        self.by_release.is_empty()
    }
}

/// Whether a release's data is available without [`install`] (compiled in, or installed).
pub fn is_available(version: PiVersion) -> bool {
    slot(version).get().is_some() || embedded::files(version).is_some()
}

/// A release's data: installed, or compiled in and parsed now.
pub fn get(version: PiVersion) -> Result<&'static PiData, DataError> {
    if let Some(d) = slot(version).get() {
        return Ok(d);
    }
    match embedded::files(version) {
        Some(files) => install(version, |name| {
            files.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
        }),
        None => Err(DataError::NotLoaded(version)),
    }
}

#[cfg(feature = "embedded-data")]
mod embedded {
    use super::PiVersion;

    macro_rules! folder {
        ($v:literal) => {
            &[
                (
                    "manifest.json",
                    include_str!(concat!("../data/pi-", $v, "/manifest.json")),
                ),
                (
                    "tools.json",
                    include_str!(concat!("../data/pi-", $v, "/tools.json")),
                ),
                (
                    "prompt.json",
                    include_str!(concat!("../data/pi-", $v, "/prompt.json")),
                ),
                (
                    "strings.json",
                    include_str!(concat!("../data/pi-", $v, "/strings.json")),
                ),
                (
                    "defaults.json",
                    include_str!(concat!("../data/pi-", $v, "/defaults.json")),
                ),
                (
                    "models.json",
                    include_str!(concat!("../data/pi-", $v, "/models.json")),
                ),
                (
                    "sdks.json",
                    include_str!(concat!("../data/pi-", $v, "/sdks.json")),
                ),
                (
                    "sources.json",
                    include_str!(concat!("../data/pi-", $v, "/sources.json")),
                ),
            ]
        };
    }

    /// The compiled-in files of a release's data folder.
    pub fn files(version: PiVersion) -> Option<&'static [(&'static str, &'static str)]> {
        Some(match version {
            PiVersion::V0_85_1 => folder!("0.85.1"),
            PiVersion::V0_86_1 => folder!("0.86.1"),
            PiVersion::V0_87_0 => folder!("0.87.0"),
            PiVersion::V0_87_1 => folder!("0.87.1"),
            PiVersion::V1_3_0 => folder!("1.3.0"),
            PiVersion::V1_4_0 => folder!("1.4.0"),
            PiVersion::V1_5_0 => folder!("1.5.0"),
            PiVersion::V1_5_2 => folder!("1.5.2"),
            PiVersion::V1_6_0 => folder!("1.6.0"),
        })
    }
}

#[cfg(not(feature = "embedded-data"))]
mod embedded {
    use super::PiVersion;

    pub fn files(_: PiVersion) -> Option<&'static [(&'static str, &'static str)]> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_wait_for_a_release_and_come_back_in_order_once_it_is_installed() {
        let (a, b) = (PiVersion::ALL[0], PiVersion::LATEST);
        let mut waiting = Waiting::default();
        assert!(
            waiting.wait(a, "first"),
            "the first call for a release fetches it"
        );
        assert!(
            !waiting.wait(a, "second"),
            "a second waits for the same fetch"
        );
        assert!(waiting.wait(b, "other"));
        // Its data did not load: the calls waiting for it are told, the others still wait.
        assert_eq!(waiting.take(a), ["first", "second"]);
        assert!(waiting.take(a).is_empty());
        assert!(!waiting.is_empty());
        // Compiled in, so available: taken back (and no longer waiting).
        assert!(is_available(b));
        assert_eq!(waiting.take_ready(), ["other"]);
        assert!(waiting.is_empty());
        assert!(waiting.wait(b, "again"), "a later call fetches again");
    }

    #[test]
    fn a_data_file_that_is_not_utf8_is_refused_with_its_name() {
        let files: [(&str, &[u8]); 2] = [("manifest.json", b"{}"), ("tools.json", b"[\xff]")];
        let err = install_files(PiVersion::LATEST, &files).unwrap_err();
        assert!(
            matches!(&err, DataError::Invalid { file, .. } if file == "tools.json"),
            "{err}"
        );
        assert!(err.to_string().contains("not UTF-8"), "{err}");
    }
}

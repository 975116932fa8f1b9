//! Case folders on disk, read into plain data: every file of a folder by its relative path, and
//! what the real pi sent for a captured case (`expected/`). The CLI's `--case` and every test
//! read cases through here; nothing else in the workspace touches a case folder.
//!
//! The conformance corpus is `tests/conformance/<case>/` plus the visualizer's demo
//! (`www/demo/`), each captured with the pi release its `expected/env.json` names.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// A folder's files: path relative to the folder (`/`-separated) → bytes.
pub type Files = BTreeMap<String, Vec<u8>>;

/// Reads every file below `dir` (links and other non-files are left out).
pub fn read_folder(dir: &Path) -> Result<Files, String> {
    let mut files = Files::new();
    let mut stack: Vec<(PathBuf, String)> = vec![(dir.to_path_buf(), String::new())];
    while let Some((d, prefix)) = stack.pop() {
        let rd = fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))?;
        for entry in rd {
            let entry = entry.map_err(|e| format!("{}: {e}", d.display()))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            let path = entry.path();
            let ft = entry
                .file_type()
                .map_err(|e| format!("{}: {e}", path.display()))?;
            if ft.is_dir() {
                stack.push((path, rel));
            } else if ft.is_file() {
                let bytes = fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                files.insert(rel, bytes);
            }
        }
    }
    Ok(files)
}

/// The workspace's root folder.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One captured case of the corpus.
#[derive(Clone, Debug)]
pub struct Case {
    /// The folder name (`oc-basic`), or `demo`.
    pub name: String,
    pub dir: PathBuf,
}

impl Case {
    /// A case by name (`demo` is the visualizer's demo).
    pub fn named(name: &str) -> Case {
        let dir = if name == "demo" {
            workspace().join("www/demo")
        } else {
            workspace().join("tests/conformance").join(name)
        };
        Case {
            name: name.to_string(),
            dir,
        }
    }

    /// The case's files (inputs and `expected/`).
    pub fn files(&self) -> Files {
        read_folder(&self.dir).unwrap_or_else(|e| panic!("{}: {e}", self.name))
    }

    fn expected_text(&self, name: &str) -> Option<String> {
        fs::read_to_string(self.dir.join("expected").join(name)).ok()
    }

    /// The body pi sent for request `n` (1-based), exactly as sent.
    pub fn body(&self, n: usize) -> Option<String> {
        self.expected_text(&format!("request-{n}.json"))
    }

    /// The method, path and headers of request `n`.
    pub fn meta(&self, n: usize) -> Option<String> {
        self.expected_text(&format!("request-{n}.meta.json"))
    }

    /// The session file as pi left it.
    pub fn session_after(&self) -> Option<String> {
        self.expected_text("session.after.jsonl")
    }

    /// pi's error, for a case where pi sent nothing (`expected/pi-error.txt`).
    pub fn pi_error(&self) -> Option<String> {
        self.expected_text("pi-error.txt")
    }

    /// The pi release that made the capture (`expected/env.json` `piVersion`), as written.
    pub fn pi_version(&self) -> Option<String> {
        let env = self.expected_text("env.json")?;
        let at = env.find("\"piVersion\"")?;
        let rest = &env[at + "\"piVersion\"".len()..];
        let start = rest.find('"')? + 1;
        let end = start + rest[start..].find('"')?;
        Some(rest[start..end].to_string())
    }
}

/// Every case of the corpus whose name contains `filter` (all with ""), sorted by name, the demo
/// last. A case is a folder with a `case.json` and an `expected/env.json`.
pub fn cases(filter: &str) -> Vec<Case> {
    let root = workspace().join("tests/conformance");
    let mut names: Vec<String> = fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|e| e.ok())
        .filter(|e| {
            let p = e.path();
            p.join("case.json").is_file() && p.join("expected/env.json").is_file()
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(filter))
        .collect();
    names.sort();
    if "demo".contains(filter) || filter.is_empty() {
        names.push("demo".into());
    }
    names.iter().map(|n| Case::named(n)).collect()
}

/// `CTXLENS_CASE`: the case-name filter the corpus tests take from the environment.
pub fn filter_from_env() -> String {
    std::env::var("CTXLENS_CASE").unwrap_or_default()
}

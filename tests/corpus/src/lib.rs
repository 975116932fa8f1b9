//! Case folders on disk, read into plain data: every file of a folder by its relative path, and
//! what the real pi sent for a captured case (`expected/`). The CLI's `--case` and every test
//! read cases through here; nothing else in the workspace touches a case folder.
//!
//! The conformance corpus is `tests/conformance/pi-<version>/<case>/`, one folder per pi
//! release (each case captured with that release: its `expected/env.json` `piVersion`), plus the
//! visualizer's demo (`www/demo/`). A case's name is `pi-<version>/<case>` (`demo` for the demo).

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

/// The workspace's root folder: found at run time from the folder cargo runs the test in (the
/// test's package, `CARGO_MANIFEST_DIR` of that run, or the working folder), the nearest one up
/// that holds `tests/conformance`; else where this crate was compiled. A build folder shared by
/// checkouts in other folders keeps this crate compiled in one of them, which may be gone.
pub fn workspace() -> PathBuf {
    let start = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok());
    if let Some(start) = start {
        if let Some(root) = start.ancestors().find(|d| is_workspace(d)) {
            return root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// Whether `dir` is a ctxlens checkout: its workspace manifest and the corpus folder.
fn is_workspace(dir: &Path) -> bool {
    dir.join("tests/conformance").is_dir()
        && fs::read_to_string(dir.join("Cargo.toml")).is_ok_and(|t| t.contains("[workspace]"))
}

/// One captured case of the corpus.
#[derive(Clone, Debug)]
pub struct Case {
    /// `pi-<version>/<folder>` (`pi-0.85.1/oc-basic`), or `demo`.
    pub name: String,
    pub dir: PathBuf,
}

/// The corpus folder.
pub fn corpus_root() -> PathBuf {
    workspace().join("tests/conformance")
}

/// The release folders of the corpus (`pi-0.85.1`, ...), sorted.
fn release_folders() -> Vec<String> {
    let root = corpus_root();
    let mut out: Vec<String> = fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("pi-") && root.join(n).is_dir())
        .collect();
    out.sort();
    out
}

impl Case {
    /// A case by name: `pi-<version>/<folder>`, `demo` (the visualizer's demo), or a bare folder
    /// name, looked up in the release folders (the first that has it).
    pub fn named(name: &str) -> Case {
        if name == "demo" {
            return Case {
                name: name.to_string(),
                dir: workspace().join("www/demo"),
            };
        }
        if name.contains('/') {
            return Case {
                name: name.to_string(),
                dir: corpus_root().join(name),
            };
        }
        for release in release_folders() {
            let dir = corpus_root().join(&release).join(name);
            if dir.join("case.json").is_file() {
                return Case {
                    name: format!("{release}/{name}"),
                    dir,
                };
            }
        }
        panic!("no case {name} in {}", corpus_root().display())
    }

    /// The case's folder name without its release (`oc-basic`).
    pub fn folder(&self) -> &str {
        self.name.rsplit('/').next().unwrap_or(&self.name)
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

/// Every case of the corpus whose name (`pi-<version>/<folder>`) contains `filter` (all with
/// ""), by release then folder, the demo last. A case is a folder with a `case.json` and an
/// `expected/env.json`.
pub fn cases(filter: &str) -> Vec<Case> {
    let root = corpus_root();
    let mut out = Vec::new();
    for release in release_folders() {
        let mut names: Vec<String> = fs::read_dir(root.join(&release))
            .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
            .filter_map(|e| e.ok())
            .filter(|e| {
                let p = e.path();
                p.join("case.json").is_file() && p.join("expected/env.json").is_file()
            })
            .map(|e| format!("{release}/{}", e.file_name().to_string_lossy()))
            .filter(|n| n.contains(filter))
            .collect();
        names.sort();
        out.extend(names.iter().map(|n| Case {
            name: n.clone(),
            dir: root.join(n),
        }));
    }
    if "demo".contains(filter) || filter.is_empty() {
        out.push(Case::named("demo"));
    }
    out
}

/// `CTXLENS_CASE`: the case-name filter the corpus tests take from the environment.
pub fn filter_from_env() -> String {
    std::env::var("CTXLENS_CASE").unwrap_or_default()
}

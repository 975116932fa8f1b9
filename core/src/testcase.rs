//! Test helper: assemble a case of the conformance corpus (or the bundled demo) from disk.

use std::path::{Path, PathBuf};

use crate::case::{inputs_from_case, CaseFiles};
use crate::{assemble, Assembly, Inputs};

fn read_tree(dir: &Path, prefix: &str, files: &mut CaseFiles) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in rd.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let rel = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        let path = entry.path();
        if path.is_dir() {
            read_tree(&path, &rel, files);
        } else if let Ok(bytes) = std::fs::read(&path) {
            files.insert(rel, bytes);
        }
    }
}

fn case_dir(name: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    if name == "demo" {
        root.join("www/demo")
    } else {
        root.join("tests/conformance").join(name)
    }
}

/// The inputs of a corpus case (`"demo"` is `www/demo`).
pub fn inputs(name: &str) -> Inputs {
    let mut files = CaseFiles::new();
    read_tree(&case_dir(name), "", &mut files);
    inputs_from_case(&files, None).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The assembly of a corpus case, optionally under another protocol.
pub fn assembly(name: &str, api: Option<&str>) -> Assembly {
    let mut i = inputs(name);
    i.api = api.map(|a| a.parse().expect("an api"));
    assemble(&i)
}

/// Every case folder name of the corpus.
pub fn all_cases() -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(case_dir("x").parent().unwrap_or(Path::new(".")))
            .map(|rd| {
                rd.flatten()
                    .filter(|e| e.path().join("case.json").exists())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
    names.sort();
    names
}

/// pi 0.85.1, the release the unit tests are written against.
pub fn pi() -> crate::Pi {
    crate::Pi::new(crate::PiVersion::V0_85_1).expect("pi 0.85.1's data is compiled in")
}

//! Reads a case folder from disk into [`ctxlens::case::CaseFiles`]. This is the only place
//! that touches the filesystem for an assembly; the core gets plain data.

use std::fs;
use std::path::{Path, PathBuf};

use ctxlens::case::{inputs_from_case, CaseFiles};
use ctxlens::Inputs;

/// What went wrong reading a case (a usage error, not an input diagnostic).
#[derive(Debug)]
pub struct CaseError(pub String);

impl std::fmt::Display for CaseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Reads every file below `dir` into `files` under `prefix`.
pub fn read_tree(dir: &Path, prefix: &str, files: &mut CaseFiles) -> Result<(), CaseError> {
    let mut stack: Vec<(PathBuf, String)> = vec![(dir.to_path_buf(), prefix.to_string())];
    while let Some((d, p)) = stack.pop() {
        let rd = fs::read_dir(&d).map_err(|e| CaseError(format!("{}: {e}", d.display())))?;
        for entry in rd {
            let entry = entry.map_err(|e| CaseError(format!("{}: {e}", d.display())))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = if p.is_empty() {
                name.clone()
            } else {
                format!("{p}/{name}")
            };
            let path = entry.path();
            let ft = entry
                .file_type()
                .map_err(|e| CaseError(format!("{}: {e}", path.display())))?;
            if ft.is_dir() {
                stack.push((path, rel));
            } else if ft.is_file() {
                files.insert(
                    rel,
                    fs::read(&path).map_err(|e| CaseError(format!("{}: {e}", path.display())))?,
                );
            }
        }
    }
    Ok(())
}

/// A case laid out as the oracle lays it out, ready to assemble.
pub struct LoadedCase {
    pub inputs: Inputs,
}

/// Reads `case_dir` with the capture files (env.json, request-1.meta.json, session.after.jsonl)
/// from the folder of `env_json`.
pub fn load(case_dir: &Path, env_json: &Path) -> Result<LoadedCase, CaseError> {
    let mut files = CaseFiles::new();
    read_tree(case_dir, "", &mut files)?;
    let env_dir = env_json.parent().unwrap_or(Path::new("."));
    // The capture's files may live outside the case folder: mount them under a folder of their own.
    const ENV_DIR: &str = "\u{0}env";
    for name in ["env.json", "request-1.meta.json", "session.after.jsonl"] {
        let p = if name == "env.json" {
            env_json.to_path_buf()
        } else {
            env_dir.join(name)
        };
        if let Ok(bytes) = fs::read(&p) {
            files.insert(format!("{ENV_DIR}/{name}"), bytes);
        } else if name == "env.json" {
            return Err(CaseError(format!("{}: cannot read", p.display())));
        }
    }
    let inputs = inputs_from_case(&files, Some(ENV_DIR)).map_err(|e| CaseError(e.0))?;
    Ok(LoadedCase { inputs })
}

/// The first byte where `a` and `b` differ, with a little context from each.
pub fn first_difference(a: &str, b: &str) -> Option<(usize, String, String)> {
    let pos = a
        .bytes()
        .zip(b.bytes())
        .position(|(x, y)| x != y)
        .or_else(|| (a.len() != b.len()).then(|| a.len().min(b.len())))?;
    let ctx = |s: &str| {
        let mut start = pos.saturating_sub(60);
        while !s.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = (pos + 60).min(s.len());
        while !s.is_char_boundary(end) {
            end += 1;
        }
        s[start..end].to_string()
    };
    Some((pos, ctx(a), ctx(b)))
}

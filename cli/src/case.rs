//! Reads a case folder from disk (through `ctxlens_corpus`, the one case reader) into
//! [`ctxlens::case::CaseFiles`] and lays it out as the oracle does; the core gets plain data.

use std::fs;
use std::path::Path;

use ctxlens::calls::CallRef;
use ctxlens::case::{inputs_for_call, CaseFiles};
use ctxlens::Inputs;

/// What went wrong reading a case (a usage error, not an input diagnostic).
#[derive(Debug)]
pub struct CaseError(pub String);

impl std::fmt::Display for CaseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A case laid out as the oracle lays it out, ready to assemble.
pub struct LoadedCase {
    pub inputs: Inputs,
}

/// Reads `case_dir` with the capture files (env.json, request-1.meta.json, session.after.jsonl)
/// from the folder of `env_json`.
pub fn load(case_dir: &Path, env_json: &Path) -> Result<LoadedCase, CaseError> {
    load_call(case_dir, env_json, None)
}

/// [`load`] for one model call (`--call`): rebuilt from the capture's session.after.jsonl when
/// there is one (request N of the run is call "calls before the run + N"), else from the
/// case's session ([`ctxlens::case::inputs_for_call`]).
pub fn load_call(
    case_dir: &Path,
    env_json: &Path,
    call: Option<CallRef>,
) -> Result<LoadedCase, CaseError> {
    let mut files: CaseFiles = ctxlens_corpus::read_folder(case_dir).map_err(CaseError)?;
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
    let inputs = inputs_for_call(&files, Some(ENV_DIR), call).map_err(|e| CaseError(e.0))?;
    Ok(LoadedCase { inputs })
}

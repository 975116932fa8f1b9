//! Reads a case folder (through the host: `ctxlens_corpus`, the one case reader, in the std
//! host) into [`ctxlens::case::CaseFiles`] and lays it out as the oracle does; the core gets
//! plain data.

use ctxlens::calls::CallRef;
use ctxlens::case::{inputs_for_call, CaseFiles};
use ctxlens::js::path::{dirname, join_path};
use ctxlens::Inputs;

use crate::host::Host;

/// Reads `case_dir` with the capture files (env.json, request-1.meta.json, session.after.jsonl)
/// from the folder of `env_json` (absolute paths). With `call` (`--call`), that model call is
/// rebuilt from the capture's session.after.jsonl when there is one (request N of the run is
/// call "calls before the run + N"), else from the case's session
/// ([`ctxlens::case::inputs_for_call`]).
pub fn load(
    host: &dyn Host,
    case_dir: &str,
    env_json: &str,
    call: Option<CallRef>,
) -> Result<Inputs, String> {
    let mut files: CaseFiles = host.read_case_folder(case_dir)?;
    let env_dir = dirname(env_json);
    // The capture's files may live outside the case folder: mount them under a folder of their own.
    const ENV_DIR: &str = "\u{0}env";
    for name in ["env.json", "request-1.meta.json", "session.after.jsonl"] {
        let p = if name == "env.json" {
            env_json.to_string()
        } else {
            join_path(&env_dir, name)
        };
        if let Ok(bytes) = host.fs().read(&p) {
            files.insert(format!("{ENV_DIR}/{name}"), bytes);
        } else if name == "env.json" {
            return Err(format!("{p}: cannot read"));
        }
    }
    inputs_for_call(&files, Some(ENV_DIR), call).map_err(|e| e.0)
}

//! The bundled demo scenario (www/demo), a captured case laid out as the oracle lays it out; the
//! page loads it on start.

use ctxlens::case::{inputs_from_case, CaseFiles};
use ctxlens::Inputs;

include!(concat!(env!("OUT_DIR"), "/demo_files.rs"));

/// The demo's files, as a case folder.
pub fn files() -> CaseFiles {
    DEMO_FILES
        .iter()
        .map(|(p, b)| (p.to_string(), b.to_vec()))
        .collect()
}

/// The demo's inputs.
pub fn inputs() -> Inputs {
    inputs_from_case(&files(), None).unwrap_or_default()
}

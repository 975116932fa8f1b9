//! Test helper: assemble a case of the conformance corpus (or the bundled demo), read through
//! `ctxlens_corpus`, the one case reader.

use crate::case::inputs_from_case;
use crate::{assemble, Assembly, Inputs};

/// The inputs of a corpus case (`"demo"` is `www/demo`).
pub fn inputs(name: &str) -> Inputs {
    let files = ctxlens_corpus::Case::named(name).files();
    inputs_from_case(&files, None).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The assembly of a corpus case, optionally under another protocol.
pub fn assembly(name: &str, api: Option<&str>) -> Assembly {
    let mut i = inputs(name);
    i.api = api.map(|a| a.parse().expect("an api"));
    assemble(&i)
}

/// Every case of the corpus captured with pi 0.85.1, the release the unit tests are written
/// against (`pi-0.85.1/<folder>`).
pub fn all_cases() -> Vec<String> {
    ctxlens_corpus::cases("pi-0.85.1/")
        .into_iter()
        .map(|c| c.name)
        .collect()
}

/// pi 0.85.1, the release the unit tests are written against.
pub fn pi() -> crate::Pi {
    crate::Pi::new(crate::PiVersion::V0_85_1).expect("pi 0.85.1's data is compiled in")
}

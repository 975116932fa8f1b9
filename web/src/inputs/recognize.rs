//! What each dropped file is: the core's one recognizer ([`ctxlens::recognize`]), shared with the
//! CLI's `--tool-set`.

pub use ctxlens::recognize::*;

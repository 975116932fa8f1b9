//! ctxlens: rebuilds, offline and byte for byte, the HTTP request that the pi coding agent sends
//! to an LLM, records how it was assembled, and accounts for every byte of it.
//!
//! Two layers, two crates. The assembly ([`ctxlens_assembly`], re-exported here whole) takes
//! plain data in ([`Inputs`]: the session text, a virtual file tree, flags, environment, the
//! time) and gives one [`Assembly`] out: body bytes, URL, headers, the stage-by-stage trace, the
//! spans of the body (which source each byte came from) and diagnostics. This crate is the
//! analysis over it: the statistics (sums over those spans), findings, tokens, calibration,
//! what-if, comparisons, and the report's JSON. The assembly never imports it. Nothing here
//! touches a filesystem, a clock, the network or the DOM.

pub use ctxlens_assembly::*;

pub mod analysis;
pub mod report;
pub mod tokens;

pub use analysis::stats::AssemblyStats;

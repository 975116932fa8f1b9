//! pi's releases as the assembly sees them: the version table and each release's data (crate
//! `ctxlens-pi`, re-exported whole), and which release an assembly rebuilds, and why
//! ([`choice`]: it reads sessions, so it lives here, above the releases' layer).

pub use ctxlens_pi::*;

pub mod choice;

pub use choice::{Certainty, Choice, Detection, Evidence, Reason};

//! What ctxlens tells about an assembly beyond pi's bytes: the character accounting
//! (`stats`), the seed article's checks (`findings`), the usage timeline and cache facts
//! (`usage`), two protocols side by side (`compare`), and the source of every leaf of the body
//! (`provenance`). Their JSON is written by [`crate::report`] alone.

pub mod calibration;
pub mod checks;
pub mod compare;
pub mod derived;
pub mod diff;
pub mod findings;
pub mod ledger;
pub mod placement;
pub mod stats;
pub mod upgrade;
pub mod usage;
pub mod whatif;
pub mod window;

#[cfg(test)]
#[path = "transcript_tests.rs"]
mod transcript_tests;

//! The `ctxlens` command line: reads case folders from disk and prints what the core assembles.

pub mod case;
pub mod export;
pub mod open;
pub mod report;
pub mod summary;

//! The `ctxlens` command line as a library: [`run`] takes a [`Host`] (filesystem, environment,
//! clock, stdout/stderr, whether stderr is a terminal) and the arguments, and returns the exit
//! status. `main.rs` is the std host; the npm package runs the same commands in Node through
//! the wasm build of this crate (`npx ctxlens`).

pub mod case;
pub mod commands;
pub mod export;
pub mod host;
pub mod open;
pub mod opts;
#[cfg(feature = "parquet")]
pub mod parquet;
pub mod report;
pub mod sessions;
pub mod tokens;
pub mod usage;

pub use commands::run;
pub use host::Host;

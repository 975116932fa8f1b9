//! The ctxlens visualizer, as a library shared by its two wasm binaries: the page
//! (`src/main.rs` → [`app::run`]) and the Web Worker that runs the core (`src/bin/ctxlens-worker.rs`
//! → [`worker::run`]).
//!
//! - [`state`]: the scenario (files + the user's overrides) and how it becomes a case folder and
//!   `Inputs`; the view state of the URL hash.
//! - [`inputs`]: dropped and chosen files, folders and zips, what each file is, the zip export.
//! - [`worker`]: the message protocol between the page and the worker, both sides.
//! - [`embed`]: the URL parameters (files, protocol, view, stage) and the iframe mode (`embed=1`).
//! - [`all_sessions`]: a sessions folder's report (`ctxlens usage` in the browser), its own
//!   worker and messages.
//! - [`app`]: the shell (header, stepper, settings, diagnostics) around the views.
//! - [`views`]: the views of one assembly, behind the `ViewProps` contract.
//! - [`wire`]: large values split into small JSON parts (worker) and joined again (page).
//! - [`vocab`]: the token vocabularies the worker loads (one wasm module each) and counts with.
//! - [`words`]: the core's CLI wording (`--pi 0.85.1`, `--call`, …) said as the page's controls.

pub mod all_sessions;
pub mod app;
pub mod demo;
pub mod embed;
pub mod inputs;
pub mod report;
pub mod shared;
pub mod state;
pub mod views;
pub mod vocab;
pub mod wire;
pub mod words;
pub mod worker;

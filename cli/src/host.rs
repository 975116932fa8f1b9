//! What the commands need from the machine they run on. `main.rs` implements it with `std`
//! (the `ctxlens` binary); the npm package implements it with Node for `npx ctxlens`, through
//! the wasm build of this crate. The commands never touch `std::fs`, `std::env` or the clock
//! themselves.

use std::collections::BTreeMap;

use ctxlens::case::CaseFiles;
use ctxlens::install::HostFs;

/// The machine the commands run on.
pub trait Host {
    /// The filesystem, read-only.
    fn fs(&self) -> &dyn HostFs;
    /// The process environment.
    fn env(&self) -> &BTreeMap<String, String>;
    /// The working directory (absolute).
    fn cwd(&self) -> &str;
    /// `Date.now()`: milliseconds since 1970.
    fn now_ms(&self) -> f64;
    /// Writes bytes to stdout; an `Err` (a closed pipe) stops the command.
    fn stdout(&mut self, bytes: &[u8]) -> Result<(), String>;
    /// Writes text to stderr.
    fn stderr(&mut self, text: &str);
    /// Whether stderr is a terminal (the progress line is shown only then).
    fn stderr_is_tty(&self) -> bool;
    /// A case folder's files (`--case`): relative path → bytes. The std host reads it with
    /// `ctxlens_corpus::read_folder`, the one case reader.
    fn read_case_folder(&self, dir: &str) -> Result<CaseFiles, String>;
    /// Whether the process ends right after [`crate::run`] returns (the std binary): then the
    /// assembly is not freed.
    fn exits_after_run(&self) -> bool {
        false
    }
    /// Writes a file (`export -o FILE`). A host that cannot write files says why.
    fn write_file(&mut self, path: &str, bytes: &[u8]) -> Result<(), String> {
        let _ = bytes;
        Err(format!("{path}: this host cannot write files"))
    }
    /// Another host on the same machine for a worker thread (`usage` rebuilds one session per
    /// core), or `None` where there are no threads (the npm package's wasm).
    fn worker(&self) -> Option<Box<dyn Host + Send>> {
        None
    }
    /// The folder of the running executable (`open` looks for the built app beside it).
    fn exe_dir(&self) -> Option<String> {
        None
    }
    /// The visualizer this host ships with (the npm package's `app/`): `open`'s default after
    /// `--app` and `$CTXLENS_APP`.
    fn bundled_app(&self) -> Option<String> {
        None
    }
    /// `open`: serves `site` on 127.0.0.1:`port` (0: a free port) and nowhere else, writes the
    /// URL and a newline to stdout once it listens, and serves until interrupted. A host without
    /// a server says why.
    fn serve(&mut self, site: crate::open::Site, port: u16) -> Result<(), String> {
        let _ = (site, port);
        Err("this host cannot serve the visualizer".into())
    }
    /// A counter for the vocabulary `name` (`ctxlens::tokens`), or why there is none. The
    /// default: the vocabularies compiled into this build (feature `tokens`), and a HF
    /// `tokenizer.json` given with `--tokenizer-json` for one that is not.
    fn token_counter(
        &mut self,
        name: &str,
        exact: bool,
        tokenizer_json: Option<&[u8]>,
    ) -> Result<Box<dyn ctxlens::tokens::TokenCounter>, String> {
        crate::tokens::counter(name, exact, tokenizer_json)
    }
}

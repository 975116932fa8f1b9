//! The Node host (feature `node`, the package's second wasm, `ctxlens_node_bg.wasm`): the
//! machine pi would run on, seen through a JS object of synchronous functions over Node's `fs`
//! (`npm/node-host.js`). It implements the core's read-only [`HostFs`]; nothing here decides
//! what pi reads — `ctxlens::install` does.
//!
//! The host's functions never throw: a path that cannot be read is `null`, and `lastError()`
//! says why (Node's message), so no exception crosses into the wasm.

use ctxlens::install::{FileKind, HostFs};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// The JS host object (`npm/node-host.js`).
    pub type NodeHost;

    /// `fs.statSync` following links: the size of a file, `-2` for a folder, `-1` when the path
    /// is missing or unreadable (or neither a file nor a folder).
    #[wasm_bindgen(method)]
    fn stat(this: &NodeHost, path: &str) -> f64;
    /// `fs.readFileSync`; `None` when it failed.
    #[wasm_bindgen(method)]
    fn read(this: &NodeHost, path: &str) -> Option<Vec<u8>>;
    /// At most the first `max` bytes of a file.
    #[wasm_bindgen(method, js_name = readHead)]
    fn read_head(this: &NodeHost, path: &str, max: u32) -> Option<Vec<u8>>;
    /// `fs.readdirSync`: the names joined by NUL (a byte no file name holds).
    #[wasm_bindgen(method, js_name = readDir)]
    fn read_dir(this: &NodeHost, path: &str) -> Option<String>;
    /// `fs.realpathSync`.
    #[wasm_bindgen(method)]
    fn realpath(this: &NodeHost, path: &str) -> Option<String>;
    /// Why the last call that gave `None` failed.
    #[wasm_bindgen(method, js_name = lastError)]
    fn last_error(this: &NodeHost) -> String;
}

/// [`HostFs`] over the JS host.
pub struct NodeFs<'h>(pub &'h NodeHost);

impl HostFs for NodeFs<'_> {
    fn stat(&self, path: &str) -> Option<FileKind> {
        let s = self.0.stat(path);
        if s == -2.0 {
            Some(FileKind::Dir)
        } else if s >= 0.0 {
            Some(FileKind::File { size: s as u64 })
        } else {
            None
        }
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, String> {
        self.0.read(path).ok_or_else(|| self.0.last_error())
    }

    fn read_head(&self, path: &str, max: usize) -> Result<Vec<u8>, String> {
        let max = u32::try_from(max).unwrap_or(u32::MAX);
        self.0
            .read_head(path, max)
            .ok_or_else(|| self.0.last_error())
    }

    fn read_dir(&self, path: &str) -> Result<Vec<String>, String> {
        match self.0.read_dir(path) {
            Some(s) if s.is_empty() => Ok(Vec::new()),
            Some(s) => Ok(s.split('\0').map(String::from).collect()),
            None => Err(self.0.last_error()),
        }
    }

    fn realpath(&self, path: &str) -> Option<String> {
        self.0.realpath(path)
    }
}

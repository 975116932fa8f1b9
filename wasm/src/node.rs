//! The Node host (feature `node`, the package's second wasm, `ctxlens_node_bg.wasm`): the
//! machine pi would run on, seen through a JS object of synchronous functions over Node's `fs`,
//! `process.env`, the clock and stdout/stderr (`npm/node-host.js`). It implements the core's
//! read-only [`HostFs`] and the command line's [`Host`]; nothing here decides what pi reads
//! (`ctxlens::install` does) or what a command prints (`ctxlens_cli` does). Two exports:
//! `assembleSessionRaw` (the npm `assembleSession`: the command line's session inputs, then the
//! same result as `assemble`) and `runCliRaw` (the `ctxlens` bin: the whole command line).
//!
//! The host's functions never throw: a path that cannot be read is `null`, and `lastError()`
//! says why (Node's message), so no exception crosses into the wasm.

use std::collections::BTreeMap;

use ctxlens::case::CaseFiles;
use ctxlens::install::{FileKind, HostFs};
use ctxlens::js::path::join_path;
use ctxlens::js::{self, Value};
use ctxlens_cli::Host;
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
    /// Reads a file into `into` (its size as `stat` gave it): the bytes read, one more when the
    /// file has grown past `into`, or -1 (`lastError`).
    #[wasm_bindgen(method, js_name = readInto)]
    fn read_into(this: &NodeHost, path: &str, into: &mut [u8]) -> f64;
    /// At most the first `max` bytes of a file.
    #[wasm_bindgen(method, js_name = readHead)]
    fn read_head(this: &NodeHost, path: &str, max: u32) -> Option<Vec<u8>>;
    /// `fs.readdirSync`: the names joined by NUL (a byte no file name holds).
    #[wasm_bindgen(method, js_name = readDir)]
    fn read_dir(this: &NodeHost, path: &str) -> Option<String>;
    /// `fs.realpathSync`.
    #[wasm_bindgen(method)]
    fn realpath(this: &NodeHost, path: &str) -> Option<String>;
    /// `child_process.spawnSync` of `[program, ...args]` (JSON): its stdout when it succeeds.
    #[wasm_bindgen(method, js_name = run)]
    fn run_command(this: &NodeHost, command_json: &str) -> Option<String>;
    /// Why the last call that gave `None` failed.
    #[wasm_bindgen(method, js_name = lastError)]
    fn last_error(this: &NodeHost) -> String;

    /// The process environment as a JSON object of strings.
    #[wasm_bindgen(method, js_name = envJson)]
    fn env_json(this: &NodeHost) -> String;
    /// `process.cwd()`.
    #[wasm_bindgen(method)]
    fn cwd(this: &NodeHost) -> String;
    /// `Date.now()`.
    #[wasm_bindgen(method)]
    fn now(this: &NodeHost) -> f64;
    /// Writes all of `bytes` to file descriptor 1 or 2; `false` when it could not (a closed pipe).
    #[wasm_bindgen(method)]
    fn write(this: &NodeHost, fd: u32, bytes: &[u8]) -> bool;
    /// Whether the descriptor is a terminal.
    #[wasm_bindgen(method, js_name = isTTY)]
    fn is_tty(this: &NodeHost, fd: u32) -> bool;
    /// `fs.writeFileSync` (`export -o FILE`); `false` when it failed.
    #[wasm_bindgen(method, js_name = writeFile)]
    fn write_file(this: &NodeHost, path: &str, bytes: &[u8]) -> bool;
    /// The package's visualizer (its `app/`, which `open` serves by default).
    #[wasm_bindgen(method, js_name = appDir)]
    fn app_dir(this: &NodeHost) -> Option<String>;
    /// `open`: starts a `node:http` server on 127.0.0.1:`port` (0: a free port); once it
    /// listens it calls `openListeningRaw(port)` and prints the URL, and each request is
    /// answered by `openRespondRaw`. `false` when it cannot.
    #[wasm_bindgen(method)]
    fn listen(this: &NodeHost, port: u16) -> bool;
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

    /// A session read straight into its text's buffer in the wasm memory: not copied into it
    /// from a buffer of its own (it is the largest thing read, and wasm memory never shrinks).
    fn read_text(&self, path: &str) -> Result<ctxlens::js::Str, String> {
        let size = match self.stat(path) {
            Some(FileKind::File { size }) => usize::try_from(size).ok(),
            _ => None,
        };
        let Some(len) = size else {
            return self.read(path).map(|b| ctxlens::install::text_of(&b));
        };
        ctxlens::install::text_in_place(self, path, len, |into| {
            match self.0.read_into(path, into) {
                n if n < 0.0 => Err(self.0.last_error()),
                n => Ok(n == len as f64),
            }
        })
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

    fn run(&self, command: &[String]) -> Option<String> {
        let json = ctxlens::js::Value::Array(
            command
                .iter()
                .map(|s| ctxlens::js::Value::str(s.as_str()))
                .collect(),
        )
        .to_json();
        self.0.run_command(&json)
    }
}

/// The command line's [`Host`] over the JS host.
struct NodeCli<'h> {
    fs: NodeFs<'h>,
    env: BTreeMap<String, String>,
    cwd: String,
}

impl<'h> NodeCli<'h> {
    fn new(host: &'h NodeHost) -> NodeCli<'h> {
        let env = match js::parse(&host.env_json()) {
            Ok(Value::Object(o)) => o
                .iter()
                .filter_map(|(k, v)| v.as_str().map(|v| (k.to_string(), v.to_string())))
                .collect(),
            _ => BTreeMap::new(),
        };
        NodeCli {
            fs: NodeFs(host),
            env,
            cwd: host.cwd(),
        }
    }
}

impl Host for NodeCli<'_> {
    fn fs(&self) -> &dyn HostFs {
        &self.fs
    }
    fn env(&self) -> &BTreeMap<String, String> {
        &self.env
    }
    fn cwd(&self) -> &str {
        &self.cwd
    }
    fn now_ms(&self) -> f64 {
        self.fs.0.now()
    }
    fn stdout(&mut self, bytes: &[u8]) -> Result<(), String> {
        if self.fs.0.write(1, bytes) {
            Ok(())
        } else {
            Err(self.fs.0.last_error())
        }
    }
    fn stderr(&mut self, text: &str) {
        self.fs.0.write(2, text.as_bytes());
    }
    fn stderr_is_tty(&self) -> bool {
        self.fs.0.is_tty(2)
    }
    fn read_case_folder(&self, dir: &str) -> Result<CaseFiles, String> {
        read_folder(&self.fs, dir)
    }
    fn write_file(&mut self, path: &str, bytes: &[u8]) -> Result<(), String> {
        if self.fs.0.write_file(path, bytes) {
            Ok(())
        } else {
            Err(format!("{path}: {}", self.fs.0.last_error()))
        }
    }
    fn bundled_app(&self) -> Option<String> {
        self.fs.0.app_dir()
    }
    fn serve(&mut self, site: ctxlens_cli::open::Site, port: u16) -> Result<(), String> {
        SITE.with(|s| *s.borrow_mut() = Some((site, port)));
        if self.fs.0.listen(port) {
            Ok(())
        } else {
            Err(self.fs.0.last_error())
        }
    }
}

thread_local! {
    /// What `open` serves, and the port it listens on (set once it listens).
    static SITE: std::cell::RefCell<Option<(ctxlens_cli::open::Site, u16)>> = const { std::cell::RefCell::new(None) };
}

/// `open`'s server listens on `port`: the URL to print.
#[wasm_bindgen(js_name = openListeningRaw)]
pub fn open_listening_raw(port: u16) -> String {
    SITE.with(|s| match s.borrow_mut().as_mut() {
        Some((site, p)) => {
            *p = port;
            site.url(port)
        }
        None => String::new(),
    })
}

/// One request to `open`'s server: `"STATUS\tCONTENT-TYPE"`; the body follows with `takeBody`.
/// The app's files are read through the host, never through a link out of the app's folder.
#[wasm_bindgen(js_name = openRespondRaw)]
pub fn open_respond_raw(method: &str, target: &str, host_header: &str, host: &NodeHost) -> String {
    let fs = NodeFs(host);
    SITE.with(|s| {
        let s = s.borrow();
        let Some((site, port)) = s.as_ref() else {
            return "503 Service Unavailable\ttext/plain; charset=utf-8".to_string();
        };
        let app = site.app().to_string_lossy().into_owned();
        let app = fs.realpath(&app).unwrap_or(app);
        // The package ships the vocabularies once, in its tokenizers/, not in app/ as well: the
        // package's own app gets them from there.
        let package_tokenizers = host
            .app_dir()
            .and_then(|a| fs.realpath(&a))
            .filter(|a| *a == app)
            .map(|a| join_path(&a, "../tokenizers"))
            .and_then(|t| fs.realpath(&t));
        let under = |dir: &str, rel: &str| {
            let real = fs.realpath(&join_path(dir, rel))?;
            if !real.starts_with(&format!("{dir}/")) || !fs.is_file(&real) {
                return None;
            }
            fs.read(&real).ok()
        };
        let r = ctxlens_cli::open::respond(
            site,
            *port,
            method,
            target,
            Some(host_header).filter(|h| !h.is_empty()),
            &|rel| {
                under(&app, rel).or_else(|| {
                    let name = rel.strip_prefix("tokenizers/")?;
                    under(package_tokenizers.as_deref()?, name)
                })
            },
        );
        crate::BODY.with(|b| *b.borrow_mut() = Some(r.body));
        format!("{}\t{}", r.status, r.content_type)
    })
}

/// Every file below `dir` by its `/`-separated path relative to it, as the std host's
/// `ctxlens_corpus::read_folder` reads a case folder (links followed).
fn read_folder(fs: &dyn HostFs, dir: &str) -> Result<CaseFiles, String> {
    let mut files = CaseFiles::new();
    let mut stack = vec![(dir.to_string(), String::new())];
    while let Some((d, prefix)) = stack.pop() {
        let names = fs.read_dir(&d).map_err(|e| format!("{d}: {e}"))?;
        for name in names {
            let rel = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}/{name}")
            };
            let path = join_path(&d, &name);
            match fs.stat(&path) {
                Some(FileKind::Dir) => stack.push((path, rel)),
                Some(FileKind::File { .. }) => {
                    let bytes = fs.read(&path).map_err(|e| format!("{path}: {e}"))?;
                    files.insert(rel, bytes);
                }
                None => {}
            }
        }
    }
    Ok(files)
}

/// The argv of a JS string array.
fn argv(json: &str) -> Result<Vec<String>, String> {
    match js::parse(json) {
        Ok(Value::Array(a)) => a
            .iter()
            .map(|v| {
                v.as_str()
                    .map(String::from)
                    .ok_or("arguments must be strings")
            })
            .collect::<Result<_, _>>()
            .map_err(String::from),
        _ => Err("arguments must be a list of strings".into()),
    }
}

/// `assembleSession(path, options)`: `argv_json` is the command line the JS side made of the
/// options (`[SESSION, --prompt, TEXT, ...]`); the session's inputs are read from the machine as
/// the command line reads them ([`ctxlens_cli::commands::session_inputs`]), and the result is
/// `assemble`'s (`tokens` as [`crate::assemble_raw`]'s). Its notes are diagnostics, so nothing is
/// written to stderr.
#[wasm_bindgen(js_name = assembleSessionRaw)]
pub fn assemble_session_raw(
    argv_json: &str,
    host: &NodeHost,
    mut tokens: Option<crate::JsVocabularies>,
) -> Result<String, JsError> {
    let tokens = crate::vocabularies(&mut tokens);
    let r = (|| {
        let argv = argv(argv_json)?;
        let o = ctxlens_cli::opts::parse(&argv)?;
        let mut cli = Quiet(NodeCli::new(host));
        let inputs = ctxlens_cli::commands::session_inputs(&mut cli, &o)?;
        // `compareWith: {piVersion}`: the session read again as that release reads it.
        let compare = match (o.with, o.pi_with) {
            (Some(api), _) => Some(crate::api::Compare::Api(api)),
            (None, Some(v)) => {
                let mut ob = o.clone();
                ob.pi = Some(v);
                let other = ctxlens_cli::commands::session_inputs(&mut cli, &ob)?;
                Some(crate::api::Compare::Inputs(Box::new(other)))
            }
            (None, None) => None,
        };
        // `without` / `set`: the CLI's `--without` / `--set`; `set: ["pi=…"]` reads the session
        // again as that release reads it.
        let whatif = if o.changes.is_empty() {
            None
        } else {
            let release = o.changes.iter().rev().find_map(|c| match c {
                ctxlens::analysis::whatif::Change::Pi(v) => Some(*v),
                _ => None,
            });
            let target = match release {
                Some(v) => {
                    let mut ob = o.clone();
                    ob.pi = Some(v);
                    Some(Box::new(ctxlens_cli::commands::session_inputs(
                        &mut cli, &ob,
                    )?))
                }
                None => None,
            };
            Some(crate::api::WhatIfAsk {
                changes: o.changes.clone(),
                rebuild_calls: o.rebuild_calls.map(|n| (n != usize::MAX).then_some(n)),
                target,
            })
        };
        crate::api::run(None, inputs, compare, whatif, tokens, false)
    })();
    crate::output(r)
}

/// [`NodeCli`] with stderr dropped (`assembleSession` returns its notes as diagnostics).
struct Quiet<'h>(NodeCli<'h>);

impl Host for Quiet<'_> {
    fn fs(&self) -> &dyn HostFs {
        self.0.fs()
    }
    fn env(&self) -> &BTreeMap<String, String> {
        self.0.env()
    }
    fn cwd(&self) -> &str {
        self.0.cwd()
    }
    fn now_ms(&self) -> f64 {
        self.0.now_ms()
    }
    fn stdout(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.0.stdout(bytes)
    }
    fn stderr(&mut self, _: &str) {}
    fn stderr_is_tty(&self) -> bool {
        false
    }
    fn read_case_folder(&self, dir: &str) -> Result<CaseFiles, String> {
        self.0.read_case_folder(dir)
    }
}

/// The `ctxlens` bin: the command line `argv_json` (without the program name) on this machine;
/// returns the exit status.
#[wasm_bindgen(js_name = runCliRaw)]
pub fn run_cli_raw(argv_json: &str, host: &NodeHost) -> i32 {
    let mut cli = NodeCli::new(host);
    match argv(argv_json) {
        Ok(argv) => ctxlens_cli::run(&mut cli, &argv),
        Err(e) => {
            cli.stderr(&format!("ctxlens: {e}\n"));
            2
        }
    }
}

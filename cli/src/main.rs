//! `ctxlens`: the std host of the command line ([`ctxlens_cli::run`]): the filesystem through
//! `std::fs`, the process environment, the clock, stdout and stderr.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};

use ctxlens::case::CaseFiles;
use ctxlens::install::{FileKind, HostFs};
use ctxlens_cli::Host;

/// The host's filesystem, read-only, through `std::fs` (links followed).
struct StdFs;

impl HostFs for StdFs {
    fn stat(&self, path: &str) -> Option<FileKind> {
        let m = std::fs::metadata(path).ok()?;
        if m.is_dir() {
            Some(FileKind::Dir)
        } else if m.is_file() {
            Some(FileKind::File { size: m.len() })
        } else {
            None
        }
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, String> {
        std::fs::read(path).map_err(|e| e.to_string())
    }

    fn read_text(&self, path: &str) -> Result<ctxlens::js::Str, String> {
        use std::io::Read;
        let mut f = std::fs::File::open(path).map_err(|e| e.to_string())?;
        let len = f.metadata().map_err(|e| e.to_string())?.len();
        let Ok(len) = usize::try_from(len) else {
            return Err(format!("{len} bytes: too large to read"));
        };
        // Whole when its size is read and then nothing more.
        ctxlens::install::text_in_place(self, path, len, |into| {
            Ok(f.read_exact(into).is_ok() && matches!(f.read(&mut [0u8; 1]), Ok(0)))
        })
    }

    fn read_head(&self, path: &str, max: usize) -> Result<Vec<u8>, String> {
        use std::io::Read;
        let f = std::fs::File::open(path).map_err(|e| e.to_string())?;
        let mut buf = Vec::with_capacity(max.min(1 << 20));
        f.take(max as u64)
            .read_to_end(&mut buf)
            .map_err(|e| e.to_string())?;
        Ok(buf)
    }

    fn read_dir(&self, path: &str) -> Result<Vec<String>, String> {
        let rd = std::fs::read_dir(path).map_err(|e| e.to_string())?;
        Ok(rd
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect())
    }

    fn realpath(&self, path: &str) -> Option<String> {
        std::fs::canonicalize(path)
            .ok()
            .map(|p| p.to_string_lossy().into_owned())
    }

    fn run(&self, command: &[String]) -> Option<String> {
        let (program, args) = command.split_first()?;
        let out = std::process::Command::new(program)
            .args(args)
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())?;
        Some(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

struct StdHost {
    fs: StdFs,
    env: BTreeMap<String, String>,
    cwd: String,
    out: std::io::Stdout,
}

impl Host for StdHost {
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
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_millis() as f64)
    }
    fn stdout(&mut self, bytes: &[u8]) -> Result<(), String> {
        let mut out = self.out.lock();
        out.write_all(bytes)
            .and_then(|_| out.flush())
            .map_err(|e| e.to_string())
    }
    fn stderr(&mut self, text: &str) {
        let _ = std::io::stderr().write_all(text.as_bytes());
    }
    fn exits_after_run(&self) -> bool {
        true
    }
    fn worker(&self) -> Option<Box<dyn Host + Send>> {
        Some(Box::new(StdHost {
            fs: StdFs,
            env: self.env.clone(),
            cwd: self.cwd.clone(),
            out: std::io::stdout(),
        }))
    }
    fn stderr_is_tty(&self) -> bool {
        std::io::stderr().is_terminal()
    }
    fn read_case_folder(&self, dir: &str) -> Result<CaseFiles, String> {
        ctxlens_corpus::read_folder(std::path::Path::new(dir))
    }
    fn write_file(&mut self, path: &str, bytes: &[u8]) -> Result<(), String> {
        if let Some(dir) = std::path::Path::new(path).parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::write(path, bytes).map_err(|e| format!("{path}: {e}"))
    }
    fn exe_dir(&self) -> Option<String> {
        let exe = std::env::current_exe().ok()?;
        Some(exe.parent()?.to_string_lossy().into_owned())
    }
    fn serve(&mut self, site: ctxlens_cli::open::Site, port: u16) -> Result<(), String> {
        let server = ctxlens_cli::open::Server::bind(port, site)
            .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
        self.stdout(format!("{}\n", server.url()).as_bytes())?;
        server.serve();
        Ok(())
    }
}

/// glibc gives each block past its mmap threshold (at most 32 MB) back to the system when it
/// is freed, so a command that builds a body of tens of megabytes per call (a whole-session
/// what-if) pays a page fault for every page of every body: a third of the time of rebuilding
/// every call of a 40 MB session (docs/benchmarks.md). Large blocks come from the heap instead,
/// and a freed body's memory is reused by the next call's.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn keep_freed_memory() {
    // SAFETY: mallopt only sets the allocator's parameters; it is called first thing in main,
    // before any other thread exists or anything is allocated on one.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 30);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn keep_freed_memory() {}

fn main() {
    let argv: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    // `usage` measures its bodies rather than writing them (no block of a body's size), and
    // rebuilds sessions on every core: memory one thread freed is given back, not kept in its
    // arena (on the 1.2 GB folder: 190 → 156 MB, in the same time).
    let usage =
        ctxlens_cli::opts::parse(&argv).is_ok_and(|o| o.command.as_deref() == Some("usage"));
    if !usage {
        keep_freed_memory();
    }
    let cwd = std::env::current_dir()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "/".into());
    let mut host = StdHost {
        fs: StdFs,
        env: std::env::vars_os()
            .map(|(k, v)| {
                (
                    k.to_string_lossy().into_owned(),
                    v.to_string_lossy().into_owned(),
                )
            })
            .collect(),
        cwd,
        out: std::io::stdout(),
    };
    let code = ctxlens_cli::run(&mut host, &argv);
    // Everything is written: exit without tearing down the assembly (for a large session,
    // freeing it takes longer than building the output).
    std::process::exit(code)
}

//! `ctxlens open …`: serves the visualizer (Trunk's `dist/`) on 127.0.0.1 with exactly these
//! inputs loaded, as a case folder (`ctxlens::case::case_from_inputs`) behind a case manifest
//! the app's URL mode reads (`?case=`). The commands find the app and make the [`Site`] through
//! the [`Host`]; [`Server`] is the std host's server (`main.rs`). Nothing leaves the machine: the listener is bound to
//! 127.0.0.1 only, the page makes no request beyond this origin (its CSP), and the server
//! answers only `GET`/`HEAD` of the app's files and the case's, with a `Host` of this address
//! (a page elsewhere cannot reach it through DNS rebinding). Paths with `..`, `.`, a backslash
//! or a NUL are refused; the case's files are served from memory by their exact names, the
//! app's from its folder (symlinks out of it refused).

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ctxlens::case::CaseFiles;
use ctxlens::install::FileKind;
use ctxlens::js::path::resolve_path;
use ctxlens::{Assembly, Inputs};

use crate::host::Host;

/// Where the case is served, below the app.
pub const CASE_PREFIX: &str = "/_ctxlens/case/";
/// The case manifest's name when there is no session to name it after.
pub const MANIFEST: &str = "ctxlens-case.json";

const BUILD_HINT: &str = "the visualizer is not built: run `trunk build --release` in the \
ctxlens repository (it writes dist/), then pass --app DIST_DIR or set CTXLENS_APP";

fn is_app(host: &dyn Host, dir: &str) -> bool {
    matches!(
        host.fs()
            .stat(&format!("{}/index.html", dir.trim_end_matches('/'))),
        Some(FileKind::File { .. })
    )
}

/// The built app: `--app DIR`, else `$CTXLENS_APP`, else the host's own (the npm package's
/// `app/`), else `dist/` or `ctxlens-app/` beside the executable, else (the native build) the
/// repository's `dist/` (where `trunk build` puts it); or what to do.
pub fn find_app(host: &dyn Host, flag: Option<&str>) -> Result<String, String> {
    let cwd = host.cwd().to_string();
    if let Some(dir) = flag {
        let dir = resolve_path(&cwd, dir);
        return if is_app(host, &dir) {
            Ok(dir)
        } else {
            Err(format!("--app {dir}: no index.html there; {BUILD_HINT}"))
        };
    }
    if let Some(dir) = host.env().get("CTXLENS_APP").filter(|d| !d.is_empty()) {
        let dir = resolve_path(&cwd, dir);
        return if is_app(host, &dir) {
            Ok(dir)
        } else {
            Err(format!(
                "CTXLENS_APP={dir}: no index.html there; {BUILD_HINT}"
            ))
        };
    }
    if let Some(dir) = host.bundled_app() {
        // A package built without its visualizer says so rather than looking elsewhere.
        return if is_app(host, &dir) {
            Ok(dir)
        } else {
            Err(format!(
                "{dir}: no index.html there (this package was built without its visualizer); \
                 pass --app DIST_DIR or set CTXLENS_APP"
            ))
        };
    }
    let mut candidates = Vec::new();
    if let Some(exe_dir) = host.exe_dir() {
        candidates.push(format!("{exe_dir}/dist"));
        candidates.push(format!("{exe_dir}/ctxlens-app"));
    }
    // The repository this binary was built from; not in the wasm build, whose build machine's
    // paths mean nothing where the package is installed.
    if cfg!(not(target_arch = "wasm32")) {
        candidates.push(resolve_path(env!("CARGO_MANIFEST_DIR"), "../dist"));
    }
    candidates
        .into_iter()
        .find(|d| is_app(host, d))
        .ok_or_else(|| BUILD_HINT.to_string())
}

/// What `open` serves: the app's folder and the case (with its manifest).
pub struct Site {
    app: PathBuf,
    case: CaseFiles,
    manifest: String,
    /// The protocol on screen (`--api`), which a case does not hold.
    protocol: Option<ctxlens::Api>,
    /// The manifest's name, which the page shows as the scenario's: the session's.
    manifest_name: String,
}

impl Site {
    /// The app's folder.
    pub fn app(&self) -> &std::path::Path {
        &self.app
    }

    pub fn new(app: &str, case: CaseFiles) -> Site {
        let manifest = ctxlens::case::manifest(&case);
        Site {
            app: PathBuf::from(app),
            case,
            manifest,
            protocol: None,
            manifest_name: MANIFEST.into(),
        }
    }

    /// The manifest named after the session file (`2026-11-30T10-04-05_….jsonl` →
    /// `2026-11-30T10-04-05_…`), so the page shows the session's name.
    pub fn named_after(mut self, session: Option<&str>) -> Site {
        let name = session
            .map(|p| p.rsplit('/').next().unwrap_or(p))
            .map(|f| f.strip_suffix(".jsonl").unwrap_or(f))
            .map(ctxlens::zip::folder_name)
            .filter(|n| n != "ctxlens-case" && !self.case.contains_key(n.as_str()));
        if let Some(n) = name {
            self.manifest_name = n;
        }
        self
    }

    /// The page opens on this protocol (`&protocol=`).
    pub fn with_protocol(mut self, api: Option<ctxlens::Api>) -> Site {
        self.protocol = api;
        self
    }

    /// The app's URL on `port` with the case loaded.
    pub fn url(&self, port: u16) -> String {
        let mut u = format!(
            "http://127.0.0.1:{port}/?case={}{}",
            CASE_PREFIX.trim_start_matches('/'),
            self.manifest_name
        );
        if let Some(api) = self.protocol {
            u.push_str(&format!("&protocol={}", api.as_str()));
        }
        u
    }
}

/// `ctxlens open`: the inputs as a case, served with the app by the host until interrupted.
pub fn run(
    host: &mut dyn Host,
    app: Option<&str>,
    port: u16,
    inputs: &Inputs,
    a: &Assembly,
) -> i32 {
    let app = match find_app(host, app) {
        Ok(d) => d,
        Err(e) => {
            host.stderr(&format!("ctxlens: {e}\n"));
            return 2;
        }
    };
    let (files, _) = crate::export::case_files(inputs, a, None, None);
    host.stderr(&format!(
        "ctxlens: serving {app} and these inputs ({} files) on 127.0.0.1 only; Ctrl-C stops\n",
        files.len()
    ));
    let site = Site::new(&app, files)
        .with_protocol(inputs.api)
        .named_after(inputs.session.as_ref().map(|s| s.name.as_str()));
    match host.serve(site, port) {
        Ok(()) => 0,
        Err(e) => {
            host.stderr(&format!("ctxlens: {e}\n"));
            1
        }
    }
}

/// A site being served on a port.
struct Served {
    site: Site,
    port: u16,
}

/// The server: bound, not yet serving.
pub struct Server {
    listener: TcpListener,
    site: Arc<Served>,
    stop: Arc<AtomicBool>,
}

/// Stops a serving [`Server`] from another thread.
#[derive(Clone)]
pub struct Stop {
    flag: Arc<AtomicBool>,
    addr: SocketAddr,
}

impl Stop {
    pub fn stop(&self) {
        self.flag.store(true, Ordering::SeqCst);
        // Wake the accept.
        let _ = TcpStream::connect(self.addr);
    }
}

impl Server {
    /// Binds 127.0.0.1:`port` (0: a free port) for `site`.
    pub fn bind(port: u16, site: Site) -> io::Result<Server> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port))?;
        let port = listener.local_addr()?.port();
        let app = site.app.canonicalize()?;
        Ok(Server {
            listener,
            site: Arc::new(Served {
                site: Site { app, ..site },
                port,
            }),
            stop: Arc::new(AtomicBool::new(false)),
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound listener has an address")
    }

    /// The app's URL with the case loaded.
    pub fn url(&self) -> String {
        self.site.site.url(self.site.port)
    }

    pub fn stopper(&self) -> Stop {
        Stop {
            flag: self.stop.clone(),
            addr: self.local_addr(),
        }
    }

    /// Serves until [`Stop::stop`] (or the process ends), a thread per connection.
    pub fn serve(self) {
        for conn in self.listener.incoming() {
            if self.stop.load(Ordering::SeqCst) {
                break;
            }
            let Ok(conn) = conn else { continue };
            let site = self.site.clone();
            std::thread::spawn(move || {
                let _ = handle(&site, conn);
            });
        }
    }
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()) {
        Some(e) => match e.as_str() {
            "html" => "text/html; charset=utf-8",
            "js" | "mjs" => "text/javascript; charset=utf-8",
            "wasm" => "application/wasm",
            "css" => "text/css; charset=utf-8",
            "json" => "application/json",
            "svg" => "image/svg+xml",
            "png" => "image/png",
            "ico" => "image/x-icon",
            "jpg" | "jpeg" => "image/jpeg",
            "gif" => "image/gif",
            "webp" => "image/webp",
            "txt" | "md" | "jsonl" | "yaml" | "yml" => "text/plain; charset=utf-8",
            _ => "application/octet-stream",
        },
        None => "application/octet-stream",
    }
}

fn pct_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let h = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(h, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The decoded path of a request target, or `None` when it is not a plain path inside the site.
fn clean_path(target: &str) -> Option<String> {
    let path = target.split(['?', '#']).next()?;
    if !path.starts_with('/') {
        return None;
    }
    let decoded = pct_decode(path)?;
    let bad = decoded.contains('\\')
        || decoded.contains('\0')
        || decoded.split('/').any(|seg| seg == ".." || seg == ".");
    (!bad).then_some(decoded)
}

/// One response of the site.
pub struct Response {
    pub status: &'static str,
    pub content_type: &'static str,
    pub body: Vec<u8>,
}

fn text(status: &'static str, body: &str) -> Response {
    Response {
        status,
        content_type: "text/plain; charset=utf-8",
        body: body.as_bytes().to_vec(),
    }
}

fn route(served: &Served, method: &str, target: &str, host: Option<&str>) -> Response {
    let app = &served.site.app;
    respond(&served.site, served.port, method, target, host, &|rel| {
        let file = app.join(rel);
        // A symlink out of the app's folder is not served.
        match file.canonicalize() {
            Ok(real) if real.starts_with(app) && real.is_file() => std::fs::read(&real).ok(),
            _ => None,
        }
    })
}

/// The answer to one request for `site` on `port`; `app_file(rel)` reads a file of the app's
/// folder (`None`: not there, or a link out of the folder). The std host's [`Server`] reads
/// with `std::fs`; the npm package's Node host through its filesystem.
pub fn respond(
    site: &Site,
    port: u16,
    method: &str,
    target: &str,
    host: Option<&str>,
    app_file: &dyn Fn(&str) -> Option<Vec<u8>>,
) -> Response {
    if method != "GET" && method != "HEAD" {
        return text("405 Method Not Allowed", "only GET\n");
    }
    let own = [format!("127.0.0.1:{port}"), format!("localhost:{port}")];
    if !host.is_some_and(|h| own.iter().any(|o| o.eq_ignore_ascii_case(h))) {
        return text("421 Misdirected Request", "not this server's host\n");
    }
    let Some(path) = clean_path(target) else {
        return text("400 Bad Request", "not a path this server serves\n");
    };
    if let Some(rel) = path.strip_prefix(CASE_PREFIX) {
        if rel == site.manifest_name {
            return Response {
                status: "200 OK",
                content_type: "application/json",
                body: site.manifest.as_bytes().to_vec(),
            };
        }
        return match site.case.get(rel) {
            Some(b) => Response {
                status: "200 OK",
                content_type: content_type(rel),
                body: b.clone(),
            },
            None => text("404 Not Found", "no such file in the case\n"),
        };
    }
    let rel = path.trim_start_matches('/');
    let rel = if rel.is_empty() || rel.ends_with('/') {
        format!("{rel}index.html")
    } else {
        rel.to_string()
    };
    match app_file(&rel) {
        Some(body) => Response {
            status: "200 OK",
            content_type: content_type(&rel),
            body,
        },
        None => text("404 Not Found", "not found\n"),
    }
}

fn handle(site: &Served, conn: TcpStream) -> io::Result<()> {
    conn.set_read_timeout(Some(std::time::Duration::from_secs(30)))?;
    let mut reader = BufReader::new(conn.try_clone()?);
    let mut line = String::new();
    // The request line, then the headers (at most 64 KiB in all).
    (&mut reader).take(8192).read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (method, target) = (
        parts.next().unwrap_or("").to_string(),
        parts.next().unwrap_or("").to_string(),
    );
    let mut host = None;
    let mut total = line.len();
    loop {
        let mut h = String::new();
        let n = (&mut reader).take(8192).read_line(&mut h)?;
        total += n;
        if n == 0 || h == "\r\n" || h == "\n" || total > 65536 {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            if k.trim().eq_ignore_ascii_case("host") {
                host = Some(v.trim().to_string());
            }
        }
    }
    let r = route(site, &method, &target, host.as_deref());
    let mut out = conn;
    let head = format!(
        "HTTP/1.1 {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        r.status,
        r.content_type,
        r.body.len()
    );
    out.write_all(head.as_bytes())?;
    if method != "HEAD" {
        out.write_all(&r.body)?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_outside_the_site_are_refused() {
        assert_eq!(clean_path("/a/b.js?x=1").as_deref(), Some("/a/b.js"));
        assert_eq!(clean_path("/a%20b").as_deref(), Some("/a b"));
        for bad in [
            "/../etc/passwd",
            "/a/%2e%2e/b",
            "/a/./b",
            "/a\\b",
            "/%00",
            "x",
            "/%zz",
        ] {
            assert_eq!(clean_path(bad), None, "{bad}");
        }
    }
}

//! pi packages: the skills, prompt templates and extensions that the settings' `packages` bring
//! (pi-coding-agent `dist/core/package-manager.js` `resolve`, `resolvePackageSources`,
//! `collectPackageResources`; `dist/core/pi-manifest.js`; `dist/utils/git.js`; docs/packages.md).
//!
//! How a release reads them (0.85.1 and 1.6.0 read from their code; 0.86.1 … 1.5.2 compared):
//!
//! - **Entries.** The project's `.pi/settings.json` `packages` (only in a trusted project: an
//!   untrusted project has no settings), then the agent dir's. An entry is a source string or an
//!   object `{source, autoload, extensions, skills, prompts, themes}`.
//! - **Identity and project wins** (`dedupePackages`): npm by name (`npm:NAME`), git by
//!   `host/path` (ref dropped), a local path by its absolute path (relative to the settings
//!   file's folder: `.pi/` or the agent dir). The same identity in both files keeps the
//!   project's entry, in its place; a project entry with `autoload: false` is a *delta* over the
//!   user's entry: both are kept, and the project's resolves the user's source
//!   (`findAutoloadDeltaBase`).
//! - **Where it is installed.** `npm:NAME[@VERSION]`: `<agentDir>/npm/node_modules/NAME` (user),
//!   `<cwd>/.pi/npm/node_modules/NAME` (project); its package.json `version` must satisfy the
//!   spec's range. `git:HOST/PATH[@REF]` (and `https://`, `ssh://`, `git@HOST:PATH`):
//!   `<agentDir>/git/HOST/PATH`, `<cwd>/.pi/git/HOST/PATH`. Anything else is a local path: a
//!   file is one extension, a folder a package (or, with nothing in it, one extension).
//!   A package not installed is installed from the network first, unless offline
//!   (`PI_OFFLINE`, `--offline`): then it is skipped.
//! - **What a package holds** (`collectPackageResources`): the `pi` key of its package.json
//!   (`extensions`, `skills`, `prompts`, `themes`: arrays of strings; plain entries are paths or
//!   globs below the root, `!pattern` excludes, `+path`/`-path` force an exact path in or out),
//!   else the conventional folders `skills/` (the `SKILL.md` walk), `prompts/` (`.md` files at any
//!   depth), `extensions/`, `themes/`. 0.85.1 to 1.4.0: any `pi` object is the manifest, so a
//!   `pi` key without resource fields gives nothing; 1.5.0 (the `changelogPath` field): the
//!   conventional folders unless a resource field is present
//!   (`Rules::package_manifest_needs_resource_fields`).
//! - **Filters** (object entries): a type's key absent loads all of that type; `[]` loads none;
//!   patterns narrow what the manifest allows (`applyPatterns`: plain patterns include, `!`
//!   excludes, `+` forces in, `-` forces out). `autoload: false`: nothing unless a pattern of
//!   the type names it (`applyAutoloadDisabledPatterns`, in pattern order, the last match wins).
//!   A pattern is matched (minimatch) against the path relative to the package root, the file
//!   name and the absolute path (a `SKILL.md` also by its folder). 1.3.0: `~/` and `file://`
//!   in a pattern are expanded first (`Rules::package_patterns_normalized`).
//! - **Order.** Packages resolve before the settings' own entries and the auto-discovered
//!   folders; the first path wins (a filtered-out path still holds its place). Then a stable sort
//!   by rank puts every package resource (rank 4) after the user's own: a user or project skill
//!   or prompt template of the same name wins, and the package's loses as a name collision.
//!
//! The core has no file system: the CLI's [`crate::install::read_machine`] reads each installed
//! package's files into the [`VirtualFs`]; here they are resolved.

use crate::diagnostics::Diagnostic;
use crate::ignore::{glob_match, IgnoreRules};
use crate::inputs::VirtualFs;
use crate::js::path::{basename, dirname, join_path, normalize_path, resolve_path};
use crate::js::{Object, Value};
use crate::paths::{resolve_pi_path, PathOptions};
use crate::pi::Pi;
use crate::settings::Settings;

/// Which settings file an entry came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Project,
    User,
    /// Given on pi's command line with `-e SOURCE` (`--extension`): loaded for this run only.
    Temporary,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::User => "user",
            Scope::Temporary => "temporary",
        }
    }
}

/// One package pi resolves: its settings entry and where it was found.
#[derive(Clone, Debug, PartialEq)]
pub struct Package {
    /// The entry's `source` as written (the name a resource is priced under).
    pub source: String,
    pub scope: Scope,
    /// The settings file and the line of the entry (`args`, with no line, for `-e`).
    pub settings_file: String,
    pub line: Option<u32>,
    /// The installed folder (or the local file); `None` when pi skips it (not installed).
    pub root: Option<String>,
    /// The extension files it brings (code ctxlens does not run).
    pub extensions: Vec<String>,
}

/// A resource path a package brings, enabled or filtered out (a filtered-out path still holds its
/// place: pi's `addResource` keeps the first).
#[derive(Clone, Debug, PartialEq)]
pub struct PackagePath {
    pub path: String,
    pub enabled: bool,
    /// The package's `source`.
    pub package: String,
}

/// What the settings' packages bring, in pi's accumulator order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PackageResources {
    /// The settings' packages, then those given with `-e`.
    pub packages: Vec<Package>,
    pub skills: Vec<PackagePath>,
    pub prompts: Vec<PackagePath>,
    /// The skills and prompt templates of the packages given with `-e`
    /// (`resolveExtensionSources`): pi puts them before every other path, and loads them even
    /// with `--no-skills` / `--no-prompt-templates` (CA/core/resource-loader.js `reload`).
    pub cli_skills: Vec<PackagePath>,
    pub cli_prompts: Vec<PackagePath>,
    /// Whether the release normalizes a pattern before matching it (the settings' own patterns
    /// are matched the same way; `Rules::package_patterns_normalized`).
    pub patterns_normalized: bool,
}

impl PackageResources {
    /// The paths of `list` that are on (`getEnabledPaths`).
    pub fn enabled(list: &[PackagePath]) -> Vec<String> {
        list.iter()
            .filter(|p| p.enabled)
            .map(|p| p.path.clone())
            .collect()
    }

    /// The package a skill or prompt template file came from.
    pub fn package_of(&self, path: &str) -> Option<&str> {
        self.cli_skills
            .iter()
            .chain(&self.cli_prompts)
            .chain(&self.skills)
            .chain(&self.prompts)
            .find(|p| p.path == path)
            .map(|p| p.package.as_str())
    }

    fn add(&mut self, kind: Kind, path: String, enabled: bool, package: &str) {
        let list = match kind {
            Kind::Skills => &mut self.skills,
            Kind::Prompts => &mut self.prompts,
            Kind::Extensions => {
                if enabled {
                    if let Some(p) = self.packages.last_mut() {
                        if !p.extensions.contains(&path) {
                            p.extensions.push(path);
                        }
                    }
                }
                return;
            }
        };
        if !list.iter().any(|p| p.path == path) {
            list.push(PackagePath {
                path,
                enabled,
                package: package.to_string(),
            });
        }
    }
}

/// The resource types a package can bring that reach the request (themes do not).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Extensions,
    Skills,
    Prompts,
}

const KINDS: [Kind; 3] = [Kind::Extensions, Kind::Skills, Kind::Prompts];

impl Kind {
    fn key(self) -> &'static str {
        match self {
            Kind::Extensions => "extensions",
            Kind::Skills => "skills",
            Kind::Prompts => "prompts",
        }
    }
}

/// A package source, parsed (`parseSource`, CA/core/package-manager.js:1148).
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    Npm {
        name: String,
        version: Option<String>,
    },
    Git {
        host: String,
        path: String,
        /// The `@REF` after the path (`splitRef`, CA/utils/git.js), `None` without one.
        reference: Option<String>,
    },
    Local {
        path: String,
    },
}

/// `isLocalPath(value)` (CA/utils/paths.js).
fn is_local_path(v: &str) -> bool {
    let t = crate::js::js_trim(v);
    ![
        "npm:", "git:", "github:", "http:", "https:", "ssh:", "builtin:",
    ]
    .iter()
    .any(|p| t.starts_with(p))
}

/// `parseSource(source)`: `npm:SPEC`, a local path, a git URL, else a local path.
pub fn parse_source(source: &str) -> Source {
    if let Some(spec) = source.strip_prefix("npm:") {
        let spec = crate::js::js_trim(spec);
        let (name, version) = parse_npm_spec(spec);
        return Source::Npm { name, version };
    }
    if is_local_path(source) {
        return Source::Local {
            path: source.to_string(),
        };
    }
    parse_git_url(source).unwrap_or(Source::Local {
        path: source.to_string(),
    })
}

/// `parseNpmSpec(spec)`: `/^(@?[^@]+(?:\/[^@]+)?)(?:@(.+))?$/`.
fn parse_npm_spec(spec: &str) -> (String, Option<String>) {
    let from = usize::from(spec.starts_with('@'));
    match spec[from..].find('@').map(|i| i + from) {
        Some(i) if i > from && i + 1 < spec.len() && !spec[i + 1..].is_empty() => {
            (spec[..i].to_string(), Some(spec[i + 1..].to_string()))
        }
        Some(_) => (spec.to_string(), None),
        None => (spec.to_string(), None),
    }
}

/// `parseGitUrl(source)` (CA/utils/git.js) for the forms docs/packages.md names: `git:` with
/// `HOST/PATH` or `git@HOST:PATH`, and `https://`, `http://`, `ssh://`, `git://` URLs; an
/// `@REF` after the path and a `.git` suffix are dropped. The path needs two segments.
fn parse_git_url(source: &str) -> Option<Source> {
    let trimmed = crate::js::js_trim(source);
    let has_prefix = trimmed.starts_with("git:");
    let url = if has_prefix {
        crate::js::js_trim(&trimmed[4..])
    } else {
        trimmed
    };
    let lower = url.to_ascii_lowercase();
    let protocol = ["https://", "http://", "ssh://", "git://"]
        .iter()
        .find(|p| lower.starts_with(**p));
    if !has_prefix && protocol.is_none() {
        return None;
    }
    let (host, path) = if let Some(rest) = url.strip_prefix("git@") {
        rest.split_once(':')?
    } else if let Some(p) = protocol {
        let rest = &url[p.len()..];
        let (authority, path) = rest.split_once('/')?;
        let host = authority.rsplit('@').next().unwrap_or(authority);
        (host.split(':').next().unwrap_or(host), path)
    } else {
        url.split_once('/')?
    };
    let (path, reference) = match path.split_once('@') {
        Some((p, r)) if !p.is_empty() && !r.is_empty() => (p, Some(r.to_string())),
        _ => (path, None),
    };
    let path = path.split('#').next().unwrap_or(path);
    let path = path.trim_start_matches('/');
    let path = path.strip_suffix(".git").unwrap_or(path);
    if host.is_empty() || path.split('/').filter(|s| !s.is_empty()).count() < 2 {
        return None;
    }
    if path.split('/').any(|s| s == "..") || host.contains('/') {
        return None;
    }
    Some(Source::Git {
        host: host.to_string(),
        path: path.to_string(),
        reference,
    })
}

/// A settings entry as pi reads it.
#[derive(Clone, Debug)]
struct Entry {
    source: String,
    filter: Option<Object>,
    scope: Scope,
    line: Option<u32>,
}

impl Entry {
    fn autoload_off(&self) -> bool {
        self.filter
            .as_ref()
            .is_some_and(|f| f.get("autoload") == Some(&Value::Bool(false)))
    }
}

/// The settings folder a scope's relative paths start from (`getBaseDirForScope`).
fn base_dir(scope: Scope, agent_dir: &str, cwd: &str) -> String {
    match scope {
        Scope::Project => join_path(cwd, ".pi"),
        Scope::User => agent_dir.to_string(),
        Scope::Temporary => cwd.to_string(),
    }
}

fn settings_file(scope: Scope, agent_dir: &str, cwd: &str) -> String {
    join_path(&base_dir(scope, agent_dir, cwd), "settings.json")
}

/// `getPackageIdentity(source, scope)`.
fn identity(source: &str, scope: Scope, home: &str, agent_dir: &str, cwd: &str) -> String {
    match parse_source(source) {
        Source::Npm { name, .. } => format!("npm:{name}"),
        Source::Git { host, path, .. } => format!("git:{host}/{path}"),
        Source::Local { path } => format!(
            "local:{}",
            resolve_local(&path, &base_dir(scope, agent_dir, cwd), home)
        ),
    }
}

fn resolve_local(path: &str, base: &str, home: &str) -> String {
    let trim = PathOptions {
        trim: true,
        ..Default::default()
    };
    resolve_pi_path(path, base, home, trim)
}

/// The entries of both settings files (project first), each with its line in its file.
fn read_entries(
    fs: &VirtualFs,
    agent_dir: &str,
    cwd: &str,
    settings: &Settings,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Entry> {
    let mut entries = Vec::new();
    for (scope, obj) in [
        (Scope::Project, &settings.project),
        (Scope::User, &settings.global),
    ] {
        let Some(list) = obj.get("packages").and_then(Value::as_array) else {
            continue;
        };
        let file = settings_file(scope, agent_dir, cwd);
        let text = fs.read_to_string(&file).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let start = lines
            .iter()
            .position(|l| l.contains("\"packages\""))
            .unwrap_or(0);
        let mut next = start;
        for item in list {
            let (source, filter) = match item {
                Value::String(s) => (s.to_string(), None),
                Value::Object(o) => match o.get("source").and_then(Value::as_str) {
                    Some(s) => (s.to_string(), Some(o.clone())),
                    None => {
                        diags.push(
                            Diagnostic::warning(
                                &file,
                                Some(start as u32 + 1),
                                "a package entry without a \"source\" string: pi fails on it",
                            )
                            .skipping("the package entry"),
                        );
                        continue;
                    }
                },
                _ => continue,
            };
            let quoted = Value::str(source.as_str()).to_json();
            let found = lines
                .iter()
                .enumerate()
                .skip(next)
                .find(|(_, l)| l.contains(&quoted))
                .map(|(i, _)| i);
            if let Some(i) = found {
                next = i + 1;
            }
            let line = found.or((!text.is_empty()).then_some(start));
            entries.push(Entry {
                source,
                filter,
                scope,
                line: line.map(|i| i as u32 + 1),
            });
        }
    }
    entries
}

/// `dedupePackages(packages)`: the same identity in both files keeps the project's entry in its
/// place, and also the user's after it when the project's has `autoload: false`.
fn dedupe(entries: Vec<Entry>, home: &str, agent_dir: &str, cwd: &str) -> Vec<Entry> {
    let mut result: Vec<Entry> = Vec::new();
    let mut seen: Vec<(String, usize)> = Vec::new();
    for e in entries {
        let id = identity(&e.source, e.scope, home, agent_dir, cwd);
        let Some(&(_, index)) = seen.iter().find(|(k, _)| *k == id) else {
            seen.push((id, result.len()));
            result.push(e);
            continue;
        };
        let existing = &result[index];
        if existing.scope == Scope::Project && e.scope == Scope::User {
            if existing.autoload_off() {
                result.push(e);
            }
        } else if e.scope == Scope::Project {
            result[index] = e;
        }
    }
    result
}

/// Where packages are looked for, and what the release and the environment say about them.
pub struct Resolver<'a> {
    pub pi: &'a Pi,
    pub fs: &'a VirtualFs,
    pub home: &'a str,
    pub agent_dir: &'a str,
    /// The runtime cwd: the project's `.pi/` and the `-e` paths' base.
    pub cwd: &'a str,
    /// The directory pi was started in: `main` resolves the `-e` paths from it first
    /// (`resolveCliPaths`).
    pub process_cwd: &'a str,
    /// `isOfflineModeEnabled()`: `PI_OFFLINE` set ([`offline`]) or `--offline` given.
    pub offline: bool,
    /// npm's global `node_modules` ([`npm_global_root`]), where pi looks for a user's npm
    /// package that is not in its own folder (`getLegacyGlobalNpmInstallPath`).
    pub npm_global_root: Option<&'a str>,
}

impl Resolver<'_> {
    /// The settings' packages as `DefaultPackageManager.resolve()` resolves them before the
    /// settings' own entries (CA/core/package-manager.js:698–731, `resolvePackageSources`
    /// :981–1037), then the sources given with `-e` (`cli`, as given) as
    /// `resolveExtensionSources(sources, {temporary: true})` does: `npm:` and git sources from
    /// pi's temporary folder, local paths from the cwd.
    pub fn resolve(
        &self,
        settings: &Settings,
        cli: &[String],
        diags: &mut Vec<Diagnostic>,
    ) -> PackageResources {
        let (home, agent_dir, cwd) = (self.home, self.agent_dir, self.cwd);
        let normalized = self.pi.rules.package_patterns_normalized;
        let mut out = PackageResources {
            patterns_normalized: normalized,
            ..Default::default()
        };
        let entries = read_entries(self.fs, agent_dir, cwd, settings, diags);
        let entries = dedupe(entries, home, agent_dir, cwd);
        for e in &entries {
            // `findAutoloadDeltaBase`: a project `autoload: false` entry resolves the user's source.
            let base = (e.scope == Scope::Project && e.autoload_off())
                .then(|| {
                    let id = identity(&e.source, e.scope, home, agent_dir, cwd);
                    entries.iter().find(|u| {
                        u.scope == Scope::User
                            && identity(&u.source, Scope::User, home, agent_dir, cwd) == id
                    })
                })
                .flatten();
            let (source, scope) = base.map_or((&e.source, e.scope), |u| (&u.source, u.scope));
            let file = settings_file(e.scope, agent_dir, cwd);
            self.entry(e, source, scope, &file, &mut out, diags);
        }
        let mut temporary = PackageResources {
            patterns_normalized: normalized,
            ..Default::default()
        };
        for source in cli {
            if let Some(name) = source.strip_prefix("builtin:") {
                diags.push(
                    Diagnostic::warning(
                        "args",
                        None,
                        format!("-e {source}: pi's built-in extension {name} is code that ctxlens does not run"),
                    )
                    .skipping(format!("what -e {source} adds")),
                );
                continue;
            }
            let e = Entry {
                source: source.clone(),
                filter: None,
                scope: Scope::Temporary,
                line: None,
            };
            let resolved = cli_source(source, self.process_cwd, home);
            self.entry(
                &e,
                &resolved,
                Scope::Temporary,
                "args",
                &mut temporary,
                diags,
            );
        }
        out.packages.append(&mut temporary.packages);
        out.cli_skills = temporary.skills;
        out.cli_prompts = temporary.prompts;
        out
    }

    /// One package: what it brings (into `out`), or why pi skips it.
    fn entry(
        &self,
        e: &Entry,
        source: &str,
        scope: Scope,
        file: &str,
        out: &mut PackageResources,
        diags: &mut Vec<Diagnostic>,
    ) {
        let fs = self.fs;
        out.packages.push(Package {
            source: e.source.clone(),
            scope: e.scope,
            settings_file: file.to_string(),
            line: e.line,
            root: None,
            extensions: Vec::new(),
        });
        let label = label(e.scope, &e.source);
        match self.installed_path(source, scope) {
            Installed::Folder(root) => {
                out.packages.last_mut().expect("pushed").root = Some(root.clone());
                let found = collect_package_resources(self.pi, fs, &root, e, out, self.home);
                if !found {
                    // A local folder with nothing pi recognizes is loaded as one extension.
                    out.add(Kind::Extensions, root, true, &e.source);
                }
                if scope == Scope::Temporary
                    && !matches!(parse_source(source), Source::Local { .. })
                    && !self.offline
                {
                    diags.push(Diagnostic::info(
                        file,
                        None,
                        format!("{label}: pi may refresh this copy from the network when it starts (not offline: PI_OFFLINE or --offline); ctxlens reads the copy on disk"),
                    ));
                }
            }
            Installed::File(path) => {
                out.packages.last_mut().expect("pushed").root = Some(path.clone());
                out.add(Kind::Extensions, path, true, &e.source);
            }
            Installed::Missing(why) => {
                diags.push(missing(e, &label, file, source, &why, self.offline));
            }
        }
        let pkg = out.packages.last_mut().expect("pushed");
        // ctxlens's own pi package: its extension adds commands and reads each request, and
        // changes nothing pi sends.
        let before = pkg.extensions.len();
        pkg.extensions.retain(|x| !is_ctxlens_extension(fs, x));
        if pkg.extensions.len() < before {
            diags.push(Diagnostic::info(
                file,
                e.line,
                format!(
                    "{label}: ctxlens's own extension (the /ctxlens commands and the live check) reads the requests pi sends and changes nothing in them"
                ),
            ));
        }
        if !pkg.extensions.is_empty() {
            diags.push(
                Diagnostic::warning(
                    file,
                    e.line,
                    format!(
                        "{label}: its extensions ({}) are code that ctxlens does not run: the tools, prompt changes and hooks they add are not rebuilt",
                        pkg.extensions.join(", ")
                    ),
                )
                .skipping(format!("the extensions of {}", e.source)),
            );
        }
    }

    /// Where pi finds a source of `scope`, and whether it is there.
    fn installed_path(&self, source: &str, scope: Scope) -> Installed {
        let (fs, home, agent_dir, cwd) = (self.fs, self.home, self.agent_dir, self.cwd);
        let hashed = self.pi.rules.temporary_git_dir_hashes_ref;
        let mut path = install_path_of(source, scope, home, agent_dir, cwd, hashed);
        // `getNpmInstallPath`: a user's package not in pi's folder is looked for in npm's
        // global root (installed there by earlier releases' `pi install`).
        if let (Source::Npm { name, .. }, Scope::User, Some(root)) =
            (parse_source(source), scope, self.npm_global_root)
        {
            let global = join_path(root, &name);
            if !fs.is_dir(&path) && fs.is_dir(&global) {
                path = global;
            }
        }
        match parse_source(source) {
            Source::Npm { version, .. } => {
                let json = fs
                    .read_to_string(&join_path(&path, "package.json"))
                    .and_then(|t| crate::js::parse(t.trim_start_matches('\u{FEFF}')).ok());
                let installed = json
                    .as_ref()
                    .and_then(|j| j.get("version"))
                    .and_then(Value::as_str)
                    .filter(|v| !v.is_empty());
                match (installed, version) {
                    (None, _) if scope == Scope::User && self.npm_global_root.is_none() => {
                        Installed::Missing(format!(
                            "not installed at {path} (pi then looks in npm's global root, which is not known here: `npm root -g`)"
                        ))
                    }
                    (None, _) if scope == Scope::User => Installed::Missing(format!(
                        "not installed at {path}, nor in npm's global root {}",
                        self.npm_global_root.unwrap_or_default()
                    )),
                    (None, _) => Installed::Missing(format!("not installed at {path}")),
                    (Some(v), Some(want)) if !crate::semver::satisfies(v, &want) => Installed::Missing(
                        format!("installed at {path} as {v}, which does not satisfy {want}"),
                    ),
                    _ => Installed::Folder(path),
                }
            }
            Source::Git { .. } if fs.is_dir(&path) => Installed::Folder(path),
            Source::Git { .. } => Installed::Missing(format!("not cloned at {path}")),
            Source::Local { .. } if fs.is_file(&path) => Installed::File(path),
            Source::Local { .. } if fs.is_dir(&path) => Installed::Folder(path),
            Source::Local { .. } => Installed::Missing(format!("the path {path} does not exist")),
        }
    }
}

/// Whether `path` is ctxlens's own pi extension: `DIR/pi/extension.js` where `DIR/package.json`
/// names the package `ctxlens`.
fn is_ctxlens_extension(fs: &VirtualFs, path: &str) -> bool {
    let Some(dir) = path
        .strip_suffix("/pi/extension.js")
        .filter(|d| !d.is_empty())
    else {
        return false;
    };
    fs.read_to_string(&format!("{dir}/package.json"))
        .and_then(|t| crate::js::parse(&t).ok())
        .is_some_and(|v| v.get_str("name") == Some("ctxlens"))
}

/// Where a package source is installed, as pi looks for it.
enum Installed {
    Folder(String),
    File(String),
    Missing(String),
}

/// A `-e` value as pi's `main` hands it on (`resolveCliPaths`): a local path resolved from the
/// directory pi was started in, any other source as given.
pub fn cli_source(given: &str, process_cwd: &str, home: &str) -> String {
    if is_local_path(given) {
        resolve_pi_path(given, process_cwd, home, PathOptions::default())
    } else {
        given.to_string()
    }
}

/// How diagnostics name a package: `package SOURCE`, or `-e SOURCE` for one given with `-e`.
pub fn label(scope: Scope, source: &str) -> String {
    match scope {
        Scope::Temporary => format!("-e {source}"),
        _ => format!("package {source}"),
    }
}

/// Where pi looks for a source of `scope` (`getNpmInstallPath`, `getGitInstallPath`,
/// `resolvePathFromBase`): the CLI reads what is there. For `-e` sources both of the
/// releases' temporary folders are candidates: [`temporary_paths`].
pub fn install_path(source: &str, scope: Scope, home: &str, agent_dir: &str, cwd: &str) -> String {
    install_path_of(source, scope, home, agent_dir, cwd, true)
}

/// The folders a `-e` source may be installed in: its temporary folder as every release names it.
pub fn temporary_paths(source: &str, home: &str, agent_dir: &str, cwd: &str) -> Vec<String> {
    let mut out = Vec::new();
    for hashed in [true, false] {
        let p = install_path_of(source, Scope::Temporary, home, agent_dir, cwd, hashed);
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

fn install_path_of(
    source: &str,
    scope: Scope,
    home: &str,
    agent_dir: &str,
    cwd: &str,
    ref_hashed: bool,
) -> String {
    let root = base_dir(scope, agent_dir, cwd);
    // `getTemporaryDir(prefix, suffix, ref)`: `<agentDir>/tmp/extensions/PREFIX/HASH/SUFFIX`,
    // HASH the first 8 hex digits of the SHA-256 of `PREFIX-SUFFIX[@REF]`.
    let temporary = |prefix: &str, suffix: &str, reference: Option<&str>| {
        let key = match reference {
            Some(r) if ref_hashed => format!("{prefix}-{suffix}@{r}"),
            _ => format!("{prefix}-{suffix}"),
        };
        let hash = crate::js::sha256::sha256_hex(&key);
        let dir = join_path(&join_path(agent_dir, "tmp/extensions"), prefix);
        join_path(&join_path(&dir, hash.get(..8).unwrap_or("")), suffix)
    };
    match (parse_source(source), scope) {
        (Source::Npm { name, .. }, Scope::Temporary) => {
            join_path(&temporary("npm", "", None), &format!("node_modules/{name}"))
        }
        (
            Source::Git {
                host,
                path,
                reference,
            },
            Scope::Temporary,
        ) => temporary(&format!("git-{host}"), &path, reference.as_deref()),
        (Source::Npm { name, .. }, _) => join_path(&join_path(&root, "npm/node_modules"), &name),
        (Source::Git { host, path, .. }, _) => {
            join_path(&join_path(&join_path(&root, "git"), &host), &path)
        }
        (Source::Local { path }, _) => resolve_local(&path, &root, home),
    }
}

/// Every settings entry's source with its scope (both files, project first), for the reader.
pub fn entry_sources(settings: &Settings) -> Vec<(String, Scope)> {
    let mut out = Vec::new();
    for (scope, obj) in [
        (Scope::Project, &settings.project),
        (Scope::User, &settings.global),
    ] {
        for item in obj
            .get("packages")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let source = item
                .as_str()
                .or_else(|| item.get("source").and_then(Value::as_str));
            if let Some(s) = source {
                out.push((s.to_string(), scope));
            }
        }
    }
    out
}

/// The diagnostic for a package pi does not load, at its settings line.
fn missing(
    e: &Entry,
    label: &str,
    file: &str,
    source: &str,
    why: &str,
    offline: bool,
) -> Diagnostic {
    let what = if matches!(parse_source(source), Source::Local { .. }) {
        "pi skips it".to_string()
    } else if offline {
        "pi skips it (PI_OFFLINE)".to_string()
    } else {
        "pi installs it from the network first (unless offline: PI_OFFLINE or --offline), which ctxlens cannot; ctxlens goes on without it".to_string()
    };
    Diagnostic::warning(file, e.line, format!("{label}: {why}: {what}")).skipping(format!(
        "the skills, prompt templates and extensions of {}",
        e.source
    ))
}

/// npm's global `node_modules`: the folder given (the CLI asks `npm root -g`), else the one
/// `NPM_CONFIG_PREFIX` (`npm_config_prefix`) sets: `PREFIX/lib/node_modules`.
pub fn npm_global_root(
    given: Option<&str>,
    env: &std::collections::BTreeMap<String, String>,
) -> Option<String> {
    given.map(String::from).or_else(|| {
        env.iter()
            .find(|(k, v)| k.eq_ignore_ascii_case("npm_config_prefix") && !v.is_empty())
            .map(|(_, prefix)| join_path(&normalize_path(prefix), "lib/node_modules"))
    })
}

/// `isOfflineModeEnabled()`: `PI_OFFLINE` set to 1, true or yes (`--offline` sets it).
pub fn offline(env: &std::collections::BTreeMap<String, String>) -> bool {
    env.get("PI_OFFLINE").is_some_and(|v| {
        let v = v.to_ascii_lowercase();
        v == "1" || v == "true" || v == "yes"
    })
}

/// The `pi` key of a package.json (`readPiManifest`, CA/core/pi-manifest.js): `None` without an
/// object there; each resource field kept only when it is an array of strings.
fn read_manifest(fs: &VirtualFs, root: &str) -> Option<Object> {
    let text = fs.read_to_string(&join_path(root, "package.json"))?;
    let pkg = crate::js::parse(text.strip_prefix('\u{FEFF}').unwrap_or(&text)).ok()?;
    let pi_key = pkg.get("pi")?.as_object()?;
    let mut manifest = Object::new();
    for key in ["extensions", "skills", "prompts", "themes"] {
        if let Some(Value::Array(a)) = pi_key.get(key) {
            if a.iter().all(|v| v.as_str().is_some()) {
                manifest.insert(key, Value::Array(a.clone()));
            }
        }
    }
    Some(manifest)
}

fn manifest_entries(manifest: Option<&Object>, kind: Kind) -> Option<Vec<String>> {
    manifest?
        .get(kind.key())
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
}

/// `collectPackageResources(packageRoot, accumulator, filter, metadata)`: `false` when the
/// package has neither a filter, a manifest nor a conventional folder.
fn collect_package_resources(
    pi: &Pi,
    fs: &VirtualFs,
    root: &str,
    e: &Entry,
    out: &mut PackageResources,
    home: &str,
) -> bool {
    let manifest = read_manifest(fs, root);
    let ctx = Ctx::new(fs, root, home, pi.rules.package_patterns_normalized);
    if let Some(filter) = &e.filter {
        for kind in KINDS {
            let patterns = filter.get(kind.key()).map(|v| {
                v.as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.as_str().map(String::from))
                            .collect::<Vec<_>>()
                    })
                    .unwrap_or_default()
            });
            if e.autoload_off() {
                let patterns = patterns.unwrap_or_default();
                if patterns.is_empty() {
                    continue;
                }
                let all = ctx.manifest_files(manifest.as_ref(), kind);
                for (path, on) in ctx.autoload_disabled_patterns(&all, &patterns) {
                    out.add(kind, path, on, &e.source);
                }
            } else if let Some(patterns) = patterns {
                let all = ctx.manifest_files(manifest.as_ref(), kind);
                let enabled = ctx.apply_patterns(&all, &patterns);
                for f in all {
                    let on = !patterns.is_empty() && enabled.contains(&f);
                    out.add(kind, f, on, &e.source);
                }
            } else {
                ctx.default_resources(manifest.as_ref(), kind, out, &e.source);
            }
        }
        return true;
    }
    // 1.5.0's `hasManifestResourceFields`: a manifest without a resource field leaves the
    // conventional folders in force.
    let manifest_counts = manifest.as_ref().is_some_and(|m| {
        !pi.rules.package_manifest_needs_resource_fields
            || ["extensions", "skills", "prompts", "themes"]
                .iter()
                .any(|k| m.get(k).is_some())
    });
    if manifest_counts {
        for kind in KINDS {
            if let Some(entries) = manifest_entries(manifest.as_ref(), kind) {
                ctx.add_manifest_entries(&entries, kind, out, &e.source);
            }
        }
        return true;
    }
    for kind in KINDS {
        for f in ctx.resource_files(&join_path(root, kind.key()), kind) {
            out.add(kind, f, true, &e.source);
        }
    }
    // Any conventional folder (a `themes/` one too) makes the folder a package.
    ["extensions", "skills", "prompts", "themes"]
        .iter()
        .any(|k| fs.is_file(&join_path(root, k)) || fs.is_dir(&join_path(root, k)))
}

/// One package being read (or one settings file's folder, for its own patterns): the folder
/// patterns are relative to, and whether the release normalizes a pattern first.
pub(crate) struct Ctx<'a> {
    fs: &'a VirtualFs,
    root: &'a str,
    home: &'a str,
    normalized: bool,
}

impl<'a> Ctx<'a> {
    pub(crate) fn new(fs: &'a VirtualFs, root: &'a str, home: &'a str, normalized: bool) -> Self {
        Ctx {
            fs,
            root,
            home,
            normalized,
        }
    }

    /// `isEnabledByOverrides(filePath, patterns, baseDir)` (CA/core/package-manager.js:519): an
    /// auto-discovered resource is on unless a `!` pattern matches it, a `+path` forces it back
    /// and a `-path` forces it out.
    pub(crate) fn enabled_by_overrides(&self, file: &str, entries: &[String]) -> bool {
        let strip = |c: char| -> Vec<String> {
            entries
                .iter()
                .filter_map(|p| p.strip_prefix(c).map(String::from))
                .collect()
        };
        let (excludes, force_in, force_out) = (strip('!'), strip('+'), strip('-'));
        let mut on = excludes.is_empty() || !self.matches_any(file, &excludes);
        if !force_in.is_empty() && self.matches_any_exact(file, &force_in) {
            on = true;
        }
        if !force_out.is_empty() && self.matches_any_exact(file, &force_out) {
            on = false;
        }
        on
    }

    /// `collectResourceFiles(dir, resourceType)`.
    fn resource_files(&self, dir: &str, kind: Kind) -> Vec<String> {
        match kind {
            Kind::Skills => crate::resources::collect_skill_entries(
                self.fs,
                dir,
                false,
                &mut IgnoreRules::default(),
                dir,
                0,
            ),
            Kind::Prompts => crate::prompt_templates::collect_files(
                self.fs,
                dir,
                &mut IgnoreRules::default(),
                dir,
                0,
            ),
            Kind::Extensions => collect_auto_extension_entries(self.fs, dir),
        }
    }

    /// `collectFilesFromPaths(paths, resourceType)`: a file as it is, a folder walked.
    fn files_from_paths(&self, paths: &[String], kind: Kind) -> Vec<String> {
        let mut files = Vec::new();
        for p in paths {
            if self.fs.is_file(p) {
                files.push(p.clone());
            } else if self.fs.is_dir(p) {
                files.extend(self.resource_files(p, kind));
            }
        }
        files
    }

    /// `collectFilesFromManifestEntries(entries, root, resourceType)`: the plain entries, a glob
    /// expanded below the root.
    fn files_from_manifest_entries(&self, entries: &[String], kind: Kind) -> Vec<String> {
        let mut paths = Vec::new();
        for e in entries.iter().filter(|e| !is_override_pattern(e)) {
            if e.contains('*') || e.contains('?') {
                paths.extend(expand_package_glob(self.fs, e, self.root));
            } else {
                paths.push(resolve_path(self.root, e));
            }
        }
        self.files_from_paths(&paths, kind)
    }

    /// `addManifestEntries(entries, root, resourceType, ...)`: the entries' files that pass the
    /// manifest's own override patterns.
    fn add_manifest_entries(
        &self,
        entries: &[String],
        kind: Kind,
        out: &mut PackageResources,
        package: &str,
    ) {
        let all = self.files_from_manifest_entries(entries, kind);
        let patterns: Vec<String> = entries
            .iter()
            .filter(|e| is_override_pattern(e))
            .cloned()
            .collect();
        let enabled = self.apply_patterns(&all, &patterns);
        for f in all {
            if enabled.contains(&f) {
                out.add(kind, f, true, package);
            }
        }
    }

    /// `collectDefaultResources`: the manifest's entries of the type, else its conventional folder.
    fn default_resources(
        &self,
        manifest: Option<&Object>,
        kind: Kind,
        out: &mut PackageResources,
        package: &str,
    ) {
        if let Some(entries) = manifest_entries(manifest, kind) {
            self.add_manifest_entries(&entries, kind, out, package);
            return;
        }
        let dir = join_path(self.root, kind.key());
        for f in self.resource_files(&dir, kind) {
            out.add(kind, f, true, package);
        }
    }

    /// `collectManifestFiles(packageRoot, resourceType).allFiles`: the manifest's files that pass
    /// its own patterns (an empty or absent list: the conventional folder).
    fn manifest_files(&self, manifest: Option<&Object>, kind: Kind) -> Vec<String> {
        match manifest_entries(manifest, kind).filter(|e| !e.is_empty()) {
            Some(entries) => {
                let all = self.files_from_manifest_entries(&entries, kind);
                let patterns: Vec<String> = entries
                    .iter()
                    .filter(|e| is_override_pattern(e))
                    .cloned()
                    .collect();
                if patterns.is_empty() {
                    return all;
                }
                let enabled = self.apply_patterns(&all, &patterns);
                all.into_iter().filter(|f| enabled.contains(f)).collect()
            }
            None => self.resource_files(&join_path(self.root, kind.key()), kind),
        }
    }

    fn pattern(&self, p: &str) -> String {
        if self.normalized {
            normalize_pattern(p, self.home)
        } else {
            p.to_string()
        }
    }

    /// `matchesAnyPattern(filePath, patterns, baseDir)`.
    fn matches_any(&self, file: &str, patterns: &[String]) -> bool {
        let rel = relative(self.root, file);
        let name = basename(file);
        let skill_dir = (name == "SKILL.md").then(|| dirname(file));
        patterns.iter().any(|p| {
            let p = self.pattern(p);
            minimatch(&rel, &p)
                || minimatch(name, &p)
                || minimatch(file, &p)
                || skill_dir.as_ref().is_some_and(|d| {
                    minimatch(&relative(self.root, d), &p)
                        || minimatch(basename(d), &p)
                        || minimatch(d, &p)
                })
        })
    }

    /// `matchesAnyExactPattern(filePath, patterns, baseDir)`.
    fn matches_any_exact(&self, file: &str, patterns: &[String]) -> bool {
        let rel = relative(self.root, file);
        let skill_dir = (basename(file) == "SKILL.md").then(|| dirname(file));
        patterns.iter().any(|p| {
            let p = self.pattern(p.strip_prefix("./").unwrap_or(p));
            p == rel
                || p == file
                || skill_dir
                    .as_ref()
                    .is_some_and(|d| p == relative(self.root, d) || p == *d)
        })
    }

    /// `applyPatterns(allPaths, patterns, baseDir)`: the enabled paths.
    pub(crate) fn apply_patterns(&self, all: &[String], patterns: &[String]) -> Vec<String> {
        let strip = |c: char| -> Vec<String> {
            patterns
                .iter()
                .filter_map(|p| p.strip_prefix(c).map(String::from))
                .collect()
        };
        let (force_in, force_out, excludes) = (strip('+'), strip('-'), strip('!'));
        let includes: Vec<String> = patterns
            .iter()
            .filter(|p| !p.starts_with(['+', '-', '!']))
            .cloned()
            .collect();
        let mut result: Vec<String> = all
            .iter()
            .filter(|f| includes.is_empty() || self.matches_any(f, &includes))
            .filter(|f| excludes.is_empty() || !self.matches_any(f, &excludes))
            .cloned()
            .collect();
        for f in all {
            if !force_in.is_empty() && !result.contains(f) && self.matches_any_exact(f, &force_in) {
                result.push(f.clone());
            }
        }
        result.retain(|f| force_out.is_empty() || !self.matches_any_exact(f, &force_out));
        result
    }

    /// `applyAutoloadDisabledPatterns(allPaths, patterns, baseDir)`: only what a pattern names,
    /// the last matching pattern deciding (a `Map` keeps the first insertion's place).
    fn autoload_disabled_patterns(
        &self,
        all: &[String],
        patterns: &[String],
    ) -> Vec<(String, bool)> {
        let mut result: Vec<(String, bool)> = Vec::new();
        for p in patterns {
            let target = p.strip_prefix(['+', '-', '!']).unwrap_or(p).to_string();
            let on = !p.starts_with(['-', '!']);
            let exact = p.starts_with(['+', '-']);
            for f in all {
                let hit = if exact {
                    self.matches_any_exact(f, std::slice::from_ref(&target))
                } else {
                    self.matches_any(f, std::slice::from_ref(&target))
                };
                if hit {
                    match result.iter_mut().find(|(k, _)| k == f) {
                        Some(r) => r.1 = on,
                        None => result.push((f.clone(), on)),
                    }
                }
            }
        }
        result
    }
}

/// `isPattern(s)`: an override (`!`, `+`, `-`) or a glob (`*`, `?`).
pub(crate) fn is_pattern(s: &str) -> bool {
    is_override_pattern(s) || s.contains('*') || s.contains('?')
}

fn is_override_pattern(s: &str) -> bool {
    s.starts_with(['!', '+', '-'])
}

/// 1.3.0's `normalizePath(pattern)` (CA/utils/paths.js): `~` and `~/…` expanded.
fn normalize_pattern(p: &str, home: &str) -> String {
    if p == "~" {
        return home.to_string();
    }
    match p.strip_prefix("~/") {
        Some(rest) => join_path(home, rest),
        None => p.to_string(),
    }
}

/// `path.relative(from, to)` for absolute POSIX paths.
fn relative(from: &str, to: &str) -> String {
    let f: Vec<&str> = from.split('/').filter(|s| !s.is_empty()).collect();
    let t: Vec<&str> = to.split('/').filter(|s| !s.is_empty()).collect();
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<&str> = vec![".."; f.len() - common];
    parts.extend(&t[common..]);
    parts.join("/")
}

/// `minimatch(text, pattern)` with its defaults: `*`, `?`, `[...]` within a segment, `**` across
/// segments, `{a,b}` alternatives; a wildcard does not match a segment that starts with `.`
/// (`dot: false`): such a segment must be written in the pattern.
pub(crate) fn minimatch(text: &str, pattern: &str) -> bool {
    expand_braces(pattern).iter().any(|p| {
        glob_match(p, text)
            && text
                .split('/')
                .filter(|s| s.starts_with('.'))
                .all(|seg| p.split('/').any(|ps| ps == seg))
    })
}

/// `{a,b}` alternatives, expanded (the first group, then the rest recursively).
fn expand_braces(p: &str) -> Vec<String> {
    let Some(open) = p.find('{') else {
        return vec![p.to_string()];
    };
    let mut depth = 0;
    let mut close = None;
    let mut cuts = Vec::new();
    for (i, c) in p[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            ',' if depth == 1 => cuts.push(open + i),
            _ => {}
        }
    }
    let Some(close) = close.filter(|_| !cuts.is_empty()) else {
        return vec![p.to_string()];
    };
    let mut bounds = vec![open];
    bounds.extend(&cuts);
    bounds.push(close);
    let (head, tail) = (&p[..open], &p[close + 1..]);
    bounds
        .windows(2)
        .flat_map(|w| expand_braces(&format!("{head}{}{tail}", &p[w[0] + 1..w[1]])))
        .collect()
}

/// `expandPackageGlob(pattern, root)`: Node's `fs.globSync` below the root, the matches with a
/// dot segment dropped, sorted.
fn expand_package_glob(fs: &VirtualFs, pattern: &str, root: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![(normalize_path(root), 0usize)];
    while let Some((dir, depth)) = stack.pop() {
        if depth > 32 {
            continue;
        }
        for (name, is_dir) in fs.read_dir(&dir) {
            let full = join_path(&dir, &name);
            let rel = relative(root, &full);
            if expand_braces(pattern).iter().any(|p| glob_match(p, &rel))
                && rel.split('/').all(|s| !s.starts_with('.'))
            {
                found.push(full.clone());
            }
            if is_dir {
                stack.push((full, depth + 1));
            }
        }
    }
    found.sort();
    found
}

/// `collectAutoExtensionEntries(dir)` (CA/core/package-manager.js:404): the folder's own entry
/// (its manifest's `extensions`, `index.ts`, `index.js`), else its `.ts`/`.js` files and each
/// subfolder's entry.
fn collect_auto_extension_entries(fs: &VirtualFs, dir: &str) -> Vec<String> {
    if !fs.is_dir(dir) {
        return Vec::new();
    }
    if let Some(e) = resolve_extension_entries(fs, dir) {
        return e;
    }
    let mut ig = IgnoreRules::default();
    ig.add_dir(fs, dir, dir);
    let mut entries = Vec::new();
    for (name, is_dir) in fs.read_dir(dir) {
        if name.starts_with('.') || name == "node_modules" {
            continue;
        }
        let full = join_path(dir, &name);
        if ig.ignores(&if is_dir {
            format!("{name}/")
        } else {
            name.clone()
        }) {
            continue;
        }
        if !is_dir && (name.ends_with(".ts") || name.ends_with(".js")) {
            entries.push(full);
        } else if is_dir {
            entries.extend(resolve_extension_entries(fs, &full).unwrap_or_default());
        }
    }
    entries
}

/// `resolveExtensionEntries(dir)`.
fn resolve_extension_entries(fs: &VirtualFs, dir: &str) -> Option<Vec<String>> {
    if let Some(list) = manifest_entries(read_manifest(fs, dir).as_ref(), Kind::Extensions) {
        let found: Vec<String> = list
            .iter()
            .map(|e| resolve_path(dir, e))
            .filter(|p| fs.is_file(p) || fs.is_dir(p))
            .collect();
        if !found.is_empty() {
            return Some(found);
        }
    }
    ["index.ts", "index.js"]
        .iter()
        .map(|n| join_path(dir, n))
        .find(|p| fs.is_file(p))
        .map(|p| vec![p])
}

#[cfg(test)]
#[path = "packages_tests.rs"]
mod tests;

//! How pi finds its files on a machine, as data: given a read-only view of the host's filesystem
//! ([`HostFs`]), its environment and pi's command line, read exactly the files pi reads for one
//! run into [`Inputs`] — and nothing else (never the sessions folder, never a file pi does not
//! open). The CLI implements [`HostFs`] with `std::fs`, the npm package with Node's `fs`.
//!
//! What pi reads (pi-coding-agent `dist/config.js` `getAgentDir`, `core/settings-manager.js`,
//! `core/trust-manager.js`, `core/resource-loader.js`, `core/skills.js`,
//! `core/package-manager.js`, `core/model-registry.js`, `core/auth-storage.js`,
//! `cli/file-processor.js`): the agent dir's settings.json, models.json, auth.json, trust.json,
//! context file, SYSTEM.md and APPEND_SYSTEM.md and skills; the project's `.pi/settings.json`,
//! `.pi/SYSTEM.md`, `.pi/APPEND_SYSTEM.md` and skills, the `.agents/skills` folders up to the git
//! root, `~/.agents/skills`; the context files from the cwd up to `/` (and the git files that
//! tell a linked worktree); the settings' and `--skill` skill paths; the prompt templates
//! (`core/prompt-templates.js`: `<agentDir>/prompts` and `.pi/prompts` one level deep, the
//! settings' `prompts` paths, `--prompt-template`); `--system-prompt` and
//! `--append-system-prompt` when they name files; the `@file` arguments; the files of the
//! settings' pi packages (`core/package-manager.js`: npm under `<agentDir>/npm/node_modules`
//! or the project's `.pi/npm/node_modules`, git under `<agentDir>/git/HOST/PATH` or
//! `.pi/git/…`, local paths relative to their settings file; [`crate::packages`]). Which of those files
//! wins is decided by the stages, over the files laid here; [`crate::analysis::placement`] says
//! afterwards what was used, shadowed or ignored, and why.
//!
//! Reads are bounded ([`Limits`]): a file too large, a folder with too many entries, a walk too
//! deep or past the total are skipped with a diagnostic naming the path.
//!
//! [`find_installed_pi`] finds the installed pi (the `pi` on `PATH` → its package → its version).

use std::collections::BTreeMap;

use crate::args;
use crate::diagnostics::Diagnostic;
use crate::inputs::{Inputs, SourceText, VirtualFs};
use crate::js::path::{basename, dirname, join_path, normalize_path};
use crate::js::{self, Value};
use crate::paths::{normalize_pi_path, resolve_pi_path, PathOptions};
use crate::pi::Pi;
use crate::settings::Settings;

/// What a path is, following symbolic links.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    File { size: u64 },
    Dir,
}

/// A read-only view of the host's filesystem (absolute POSIX paths). Implemented by the CLI with
/// `std::fs` and by the npm package with Node's `fs` through the wasm binding. Every method
/// follows symbolic links; a path that cannot be read is `None` / an `Err` with the reason.
pub trait HostFs {
    /// What `path` is (`fs.statSync`), `None` when it does not exist or cannot be read.
    fn stat(&self, path: &str) -> Option<FileKind>;
    /// The file's bytes.
    fn read(&self, path: &str) -> Result<Vec<u8>, String>;
    /// The names in a directory, in any order.
    fn read_dir(&self, path: &str) -> Result<Vec<String>, String>;
    /// The canonical path (`fs.realpathSync`): links resolved.
    fn realpath(&self, path: &str) -> Option<String>;

    /// What a program prints on stdout (`[program, args…]`), when it runs and succeeds; `None`
    /// where no program can be run (the browser). pi runs its package manager this way
    /// (`runCommandSync`): [`npm_global_root`] asks it for npm's global root.
    fn run(&self, _command: &[String]) -> Option<String> {
        None
    }

    /// At most the first `max` bytes of a file (the session list reads only each file's head).
    fn read_head(&self, path: &str, max: usize) -> Result<Vec<u8>, String> {
        self.read(path).map(|mut b| {
            b.truncate(max);
            b
        })
    }

    /// A text file as pi reads it (`readFileSync(path, "utf8")`: a byte sequence that is not
    /// UTF-8 becomes U+FFFD). A host that can reads it straight into the string's buffer (a
    /// session file is the largest thing read: it is then held once, not twice while copied).
    fn read_text(&self, path: &str) -> Result<crate::js::Str, String> {
        self.read(path).map(|b| text_of(&b))
    }

    fn is_file(&self, path: &str) -> bool {
        matches!(self.stat(path), Some(FileKind::File { .. }))
    }
    fn is_dir(&self, path: &str) -> bool {
        self.stat(path) == Some(FileKind::Dir)
    }
}

/// `bytes` as text, as `readFileSync(path, "utf8")` decodes them (U+FFFD for a byte sequence
/// that is not UTF-8).
pub fn text_of(bytes: &[u8]) -> crate::js::Str {
    match std::str::from_utf8(bytes) {
        Ok(t) => crate::js::Str::from(t),
        Err(_) => crate::js::Str::from(String::from_utf8_lossy(bytes).as_ref()),
    }
}

/// The text of `path`, `len` bytes as its host last gave its size, read straight into the
/// text's buffer by `fill` ([`HostFs::read_text`]), which says whether that was the whole file.
/// A file that changed meanwhile (pi appends to the session it runs) is read again, whole, by
/// [`HostFs::read`].
pub fn text_in_place<F: HostFs + ?Sized>(
    fs: &F,
    path: &str,
    len: usize,
    fill: impl FnOnce(&mut [u8]) -> Result<bool, String>,
) -> Result<crate::js::Str, String> {
    let mut text = crate::js::StrBuilder::new(len);
    if fill(text.slice_mut(0, len))? {
        Ok(text.finish())
    } else {
        fs.read(path).map(|b| text_of(&b))
    }
}

/// Bounds on what is read.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// A settings, context, prompt or skill file larger than this is skipped.
    pub max_file_bytes: u64,
    /// An `@file` attachment larger than this is skipped.
    pub max_attachment_bytes: u64,
    /// Files read in all.
    pub max_files: usize,
    /// Bytes read in all (the session not counted).
    pub max_total_bytes: u64,
    /// Entries of one folder looked at.
    pub max_dir_entries: usize,
    /// Folder depth of a skill walk.
    pub max_depth: usize,
    /// Folders walked in all (skill folders).
    pub max_dirs: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_file_bytes: 4 << 20,
            max_attachment_bytes: 64 << 20,
            max_files: 4096,
            max_total_bytes: 256 << 20,
            max_dir_entries: 4096,
            max_depth: 16,
            max_dirs: 10_000,
        }
    }
}

/// The machine pi would run on.
pub struct Machine<'a> {
    pub fs: &'a dyn HostFs,
    /// The process environment (`HOME`, `PI_CODING_AGENT_DIR`, `PATH`, keys pi reads, ...).
    pub env: BTreeMap<String, String>,
    /// The directory pi is started in (`process.cwd()`): `@file`, `--skill` and prompt paths
    /// resolve against it.
    pub process_cwd: String,
}

impl Machine<'_> {
    /// `os.homedir()` on POSIX: `$HOME` (else `/`).
    pub fn home(&self) -> String {
        self.env
            .get("HOME")
            .filter(|h| !h.is_empty())
            .cloned()
            .unwrap_or_else(|| "/".into())
    }

    /// `getAgentDir()` (CA/config.js): `$PI_CODING_AGENT_DIR` (`~` expanded), else
    /// `~/.pi/agent`.
    pub fn agent_dir(&self) -> String {
        let home = self.home();
        match self
            .env
            .get("PI_CODING_AGENT_DIR")
            .filter(|d| !d.is_empty())
        {
            Some(d) => normalize_path(&resolve_pi_path(
                d,
                &self.process_cwd,
                &home,
                PathOptions::default(),
            )),
            None => join_path(&home, ".pi/agent"),
        }
    }
}

/// One file read, and why pi reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct FileRead {
    pub path: String,
    pub bytes: u64,
    /// What pi reads it as (`settings`, `context file`, `skill`, ...).
    pub role: &'static str,
}

/// What was read from the machine.
#[derive(Clone, Debug)]
pub struct MachineRead {
    /// The inputs, with the files, home, agent dir, cwd, env and pi's args set; the caller adds
    /// the model, thinking, prompt, time, tool set and release.
    pub inputs: Inputs,
    /// The files read, in the order they were read.
    pub read: Vec<FileRead>,
    /// The cwd pi runs in: the session header's (resolved), else the process cwd.
    pub cwd: String,
    /// What was skipped (too large, too many, unreadable), with its path.
    pub diagnostics: Vec<Diagnostic>,
}

/// The session header's cwd, resolved as pi resolves it (`header.cwd`, relative to the process
/// cwd, `~` expanded); only the first line is parsed.
pub fn session_cwd(session: &str, home: &str, process_cwd: &str) -> Option<String> {
    let first = session.lines().find(|l| !l.trim().is_empty())?;
    let v = js::parse(first).ok()?;
    if v.get_str("type") != Some("session") {
        return None;
    }
    let cwd = v.get_str("cwd")?;
    Some(resolve_pi_path(
        cwd,
        process_cwd,
        home,
        PathOptions::default(),
    ))
}

struct Reader<'a, 'm> {
    m: &'a Machine<'m>,
    limits: Limits,
    files: VirtualFs,
    read: Vec<FileRead>,
    total: u64,
    diags: Vec<Diagnostic>,
    /// Paths already looked at (a folder walked twice is read once).
    seen: std::collections::HashSet<String>,
    /// Folders walked so far.
    dirs: usize,
}

impl<'a, 'm> Reader<'a, 'm> {
    /// A reader of `machine` that has read nothing yet.
    fn new(machine: &'a Machine<'m>, limits: Limits) -> Self {
        Reader {
            m: machine,
            limits,
            files: VirtualFs::new(),
            read: Vec::new(),
            total: 0,
            diags: Vec::new(),
            seen: Default::default(),
            dirs: 0,
        }
    }

    /// Reads one file if it is one; `false` when it is not there.
    fn file(&mut self, path: &str, role: &'static str, max: u64) -> bool {
        let path = normalize_path(path);
        let Some(FileKind::File { size }) = self.m.fs.stat(&path) else {
            return false;
        };
        if !self.seen.insert(path.clone()) {
            return true;
        }
        if size > max {
            self.diags.push(
                Diagnostic::warning(
                    &path,
                    None,
                    format!("{role} of {size} bytes is larger than ctxlens reads ({max} bytes)"),
                )
                .skipping(format!("{role} {path}")),
            );
            return true;
        }
        if self.read.len() >= self.limits.max_files
            || self.total + size > self.limits.max_total_bytes
        {
            self.diags.push(
                Diagnostic::warning(
                    &path,
                    None,
                    format!(
                        "more files than ctxlens reads ({} files, {} bytes)",
                        self.limits.max_files, self.limits.max_total_bytes
                    ),
                )
                .skipping(format!("{role} {path}")),
            );
            return true;
        }
        match self.m.fs.read(&path) {
            Ok(bytes) => {
                self.total += bytes.len() as u64;
                self.read.push(FileRead {
                    path: path.clone(),
                    bytes: bytes.len() as u64,
                    role,
                });
                self.files.insert(&path, bytes);
            }
            Err(e) => self.diags.push(
                Diagnostic::warning(&path, None, format!("cannot read {role}: {e}"))
                    .skipping(format!("{role} {path}")),
            ),
        }
        true
    }

    fn text_file(&mut self, path: &str, role: &'static str) -> bool {
        let max = self.limits.max_file_bytes;
        self.file(path, role, max)
    }

    /// Records that a directory exists (pi tests some folders for existence only).
    fn dir(&mut self, path: &str) -> bool {
        if self.m.fs.is_dir(path) {
            self.files.insert_dir(path);
            true
        } else {
            false
        }
    }

    fn list(&mut self, dir: &str) -> Vec<(String, bool)> {
        let mut names = match self.m.fs.read_dir(dir) {
            Ok(n) => n,
            Err(e) => {
                self.diags.push(
                    Diagnostic::warning(dir, None, format!("cannot list the folder: {e}"))
                        .skipping(format!("folder {dir}")),
                );
                return Vec::new();
            }
        };
        names.sort();
        if names.len() > self.limits.max_dir_entries {
            self.diags.push(
                Diagnostic::warning(
                    dir,
                    None,
                    format!(
                        "{} entries; ctxlens reads the first {}",
                        names.len(),
                        self.limits.max_dir_entries
                    ),
                )
                .skipping("the rest of the folder"),
            );
            names.truncate(self.limits.max_dir_entries);
        }
        names
            .into_iter()
            .filter_map(|n| {
                let full = join_path(dir, &n);
                match self.m.fs.stat(&full)? {
                    FileKind::Dir => Some((n, true)),
                    FileKind::File { .. } => Some((n, false)),
                }
            })
            .collect()
    }

    /// A skill folder as pi walks it (`collectSkillEntries`, `loadSkillsFromDirInternal`): the
    /// ignore files, `SKILL.md` and the `.md` files, below every folder but dot folders and
    /// `node_modules`.
    fn skill_tree(&mut self, dir: &str, depth: usize) {
        self.md_tree(dir, depth, "skill", true);
    }

    /// A prompt template path as pi reads it: a file, or a folder's ignore files and `.md` files
    /// (`recursive` for a settings entry's folder, `collectFiles`; the auto-discovered folders
    /// and `--prompt-template` folders are read one level deep, `collectAutoPromptEntries`,
    /// `loadTemplatesFromDir`, which also takes dot files).
    fn prompt_tree(&mut self, dir: &str, recursive: bool) {
        self.md_tree(dir, 0, "prompt template", recursive);
    }

    /// The `.md` files (and ignore files) of a folder, below every folder but dot folders and
    /// `node_modules` when `recursive`; a file path is read as it is.
    fn md_tree(&mut self, dir: &str, depth: usize, role: &'static str, recursive: bool) {
        let dir = normalize_path(dir);
        if !self.m.fs.is_dir(&dir) {
            self.text_file(&dir, role);
            return;
        }
        if !self.seen.insert(format!("{dir}/")) {
            return;
        }
        if depth > self.limits.max_depth {
            self.diags.push(
                Diagnostic::warning(
                    &dir,
                    None,
                    format!("deeper than {} folders", self.limits.max_depth),
                )
                .skipping(format!("folder {dir}")),
            );
            return;
        }
        self.dirs += 1;
        if self.dirs > self.limits.max_dirs {
            if self.dirs == self.limits.max_dirs + 1 {
                self.diags.push(
                    Diagnostic::warning(
                        &dir,
                        None,
                        format!(
                            "more than {} folders in the skill and prompt template paths: ctxlens walks no further",
                            self.limits.max_dirs
                        ),
                    )
                    .skipping(format!("folder {dir} and the folders after it")),
                );
            }
            return;
        }
        self.files.insert_dir(&dir);
        for (name, is_dir) in self.list(&dir) {
            let full = join_path(&dir, &name);
            if is_dir {
                if recursive && !name.starts_with('.') && name != "node_modules" {
                    self.md_tree(&full, depth + 1, role, recursive);
                }
            } else if matches!(name.as_str(), ".gitignore" | ".ignore" | ".fdignore") {
                self.text_file(&full, "ignore rules");
            } else if name.ends_with(".md") && (!name.starts_with('.') || role != "skill") {
                self.text_file(&full, role);
            }
        }
    }

    /// A pi package's files as pi reads them (package-manager.js `collectPackageResources`):
    /// a local file as it is; a folder's package.json, its `.md` and ignore files below the root
    /// (not `node_modules` nor dot folders: skills, prompt templates), the folders and files its
    /// manifest names, and the extension entries (`extensions/` and the manifest's).
    fn package(&mut self, root: &str) {
        let root = normalize_path(root);
        if self.m.fs.is_file(&root) {
            self.text_file(&root, "package extension");
            return;
        }
        if !self.m.fs.is_dir(&root) {
            return;
        }
        let manifest = join_path(&root, "package.json");
        self.text_file(&manifest, "package manifest");
        self.md_tree(&root, 0, "package file", true);
        let pi_key = self
            .files
            .read_to_string(&manifest)
            .and_then(|t| js::parse(t.trim_start_matches('\u{FEFF}')).ok())
            .and_then(|v| v.get("pi").cloned());
        for key in ["extensions", "skills", "prompts"] {
            let entries = pi_key
                .as_ref()
                .and_then(|p| p.get(key))
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for e in entries.iter().filter_map(Value::as_str) {
                if e.starts_with(['!', '+', '-']) || e.contains('*') || e.contains('?') {
                    continue;
                }
                let p = crate::js::path::resolve_path(&root, e);
                if key == "extensions" {
                    self.extension_tree(&p);
                } else {
                    self.md_tree(&p, 0, "package file", true);
                }
            }
        }
        self.extension_tree(&join_path(&root, "extensions"));
    }

    /// An extension path as pi's discovery reads it (`collectAutoExtensionEntries`): a file; a
    /// folder's own entry (package.json, `index.ts`, `index.js`), its `.ts`/`.js` files and each
    /// subfolder's entry.
    fn extension_tree(&mut self, dir: &str) {
        if !self.m.fs.is_dir(dir) {
            self.text_file(dir, "package extension");
            return;
        }
        self.files.insert_dir(dir);
        for (name, is_dir) in self.list(dir) {
            let full = join_path(dir, &name);
            if name.starts_with('.')
                && !matches!(name.as_str(), ".gitignore" | ".ignore" | ".fdignore")
            {
                continue;
            }
            if !is_dir
                && (name.ends_with(".ts")
                    || name.ends_with(".js")
                    || name == "package.json"
                    || name.starts_with('.'))
            {
                self.text_file(&full, "package extension");
            } else if is_dir && name != "node_modules" {
                self.files.insert_dir(&full);
                for n in ["package.json", "index.ts", "index.js"] {
                    self.text_file(&join_path(&full, n), "package extension");
                }
            }
        }
    }

    /// The git files `findGitPaths` reads from `dir` up (a `.git` file or folder, its `HEAD`
    /// and `commondir`), and the `.git` that ends the `.agents/skills` walk.
    fn git(&mut self, cwd: &str) -> Option<String> {
        let mut d = cwd.to_string();
        loop {
            let git = join_path(&d, ".git");
            if self.m.fs.is_file(&git) {
                self.text_file(&git, "git");
                let content = self
                    .files
                    .read_to_string(&git)
                    .unwrap_or_default()
                    .trim()
                    .to_string();
                if let Some(target) = content.strip_prefix("gitdir: ") {
                    let git_dir = crate::js::path::resolve_path(&d, target.trim());
                    self.text_file(&join_path(&git_dir, "HEAD"), "git");
                    if self.text_file(&join_path(&git_dir, "commondir"), "git") {
                        let common = self
                            .files
                            .read_to_string(&join_path(&git_dir, "commondir"))
                            .unwrap_or_default();
                        let common = crate::js::path::resolve_path(&git_dir, common.trim());
                        self.dir(&common);
                        self.text_file(&join_path(&common, "HEAD"), "git");
                    }
                }
                return Some(d);
            } else if self.dir(&git) {
                self.text_file(&join_path(&git, "HEAD"), "git");
                return Some(d);
            }
            let p = dirname(&d);
            if p == d {
                return None;
            }
            d = p;
        }
    }
}

/// Reads what pi reads for one run on `machine`: the release's file names from `pi`'s data, the
/// session (for its header's cwd), pi's command line (`args`, as the user would pass them to pi)
/// and the installed pi's package dir.
pub fn read_machine(
    pi: &Pi,
    machine: &Machine,
    session: Option<SourceText>,
    args: &[String],
    pi_package_dir: &str,
    limits: Limits,
) -> MachineRead {
    let run = Run::new(pi, machine, session.as_ref(), args);
    let mut r = Reader::new(machine, limits);
    // pi in print mode exits when the stored cwd is gone (`getMissingSessionCwdIssue`,
    // CA/core/session-cwd.js; CA/main.js): a session from another machine, or a deleted project.
    if session.is_some() && run.cwd != run.process_cwd && !r.m.fs.is_dir(&run.cwd) {
        r.diags.push(Diagnostic::warning(
            session.as_ref().map_or("session", |s| s.name.as_str()),
            Some(1),
            format!("Stored session working directory does not exist: {} (pi -p exits here; ctxlens goes on without the project's files)", run.cwd),
        ));
    }

    read_agent_dir(&mut r, &run);
    read_project_config(&mut r, &run);
    read_system_prompt_files(&mut r, &run);
    let git_root = read_context_files(&mut r, &run, pi);
    // The settings, read from the files just laid: their packages, skills and prompt templates.
    let mut sdiags = Vec::new();
    let settings = crate::settings::load(
        &r.files,
        &run.home,
        &run.agent_dir,
        &run.cwd,
        &run.parsed,
        &mut sdiags,
    );
    let npm_global_root = read_packages(&mut r, &run, &settings);
    read_skills(&mut r, &run, &settings, git_root.as_deref());
    read_prompt_templates(&mut r, &run, &settings);
    read_file_args(&mut r, &run);

    let Run {
        home,
        agent_dir,
        process_cwd,
        cwd,
        ..
    } = run;
    let inputs = Inputs {
        files: r.files,
        home,
        agent_dir,
        cwd: process_cwd,
        pi_package_dir: pi_package_dir.to_string(),
        args: args.to_vec(),
        env: machine.env.clone(),
        session,
        npm_global_root,
        ..Inputs::default()
    };
    MachineRead {
        inputs,
        read: r.read,
        cwd,
        diagnostics: r.diags,
    }
}

/// The places one run's paths resolve against, and pi's parsed command line.
struct Run {
    home: String,
    agent_dir: String,
    /// The directory pi is started in (`process.cwd()`, normalized).
    process_cwd: String,
    /// The cwd pi runs in: the session header's, else the process cwd.
    cwd: String,
    /// The project's config folder, `<cwd>/.pi`.
    config: String,
    parsed: args::PiArgs,
}

impl Run {
    /// The run's places on `machine` (the cwd from the session's header) and its parsed `args`.
    fn new(pi: &Pi, machine: &Machine, session: Option<&SourceText>, args: &[String]) -> Run {
        let home = machine.home();
        let process_cwd = normalize_path(&machine.process_cwd);
        let cwd = session
            .and_then(|s| session_cwd(&s.text, &home, &process_cwd))
            .unwrap_or_else(|| process_cwd.clone());
        let mut arg_diags = Vec::new();
        Run {
            agent_dir: machine.agent_dir(),
            config: join_path(&cwd, ".pi"),
            parsed: args::parse(pi, args, &mut arg_diags),
            home,
            process_cwd,
            cwd,
        }
    }
}

/// A JSON array's strings (its other elements skipped); none when it is not an array.
fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// Reads the agent dir's settings, trust store, models and credentials.
fn read_agent_dir(r: &mut Reader, run: &Run) {
    // The agent dir (config.js getSettingsPath/getModelsPath/getAuthPath; trust-manager.js).
    for (name, role) in [
        ("settings.json", "settings"),
        ("trust.json", "project trust"),
        ("models.json", "models"),
        ("auth.json", "credentials"),
    ] {
        r.text_file(&join_path(&run.agent_dir, name), role);
    }
}

/// Reads the project's `.pi/settings.json` and records which of its resource folders exist.
fn read_project_config(r: &mut Reader, run: &Run) {
    // The project's config folder: settings, prompts, and the entries whose existence makes the
    // project need trust (trust-manager.js:8–16).
    r.text_file(&join_path(&run.config, "settings.json"), "project settings");
    for d in ["extensions", "skills", "prompts", "themes"] {
        r.dir(&join_path(&run.config, d));
    }
}

/// Reads the SYSTEM.md / APPEND_SYSTEM.md files and the `--(append-)system-prompt` files.
fn read_system_prompt_files(r: &mut Reader, run: &Run) {
    // SYSTEM.md / APPEND_SYSTEM.md (resource-loader.js discoverSystemPromptFile).
    for name in ["SYSTEM.md", "APPEND_SYSTEM.md"] {
        r.text_file(&join_path(&run.config, name), "system prompt file");
        r.text_file(&join_path(&run.agent_dir, name), "system prompt file");
    }
    let parsed = &run.parsed;
    for v in parsed
        .system_prompt
        .iter()
        .chain(parsed.append_system_prompt.iter().flatten())
    {
        if !v.is_empty() {
            let p = crate::js::path::resolve_path(&run.process_cwd, v);
            if !r.text_file(&p, "system prompt file") {
                r.dir(&p);
            }
        }
    }
}

/// Reads the context files (agent dir, then cwd up to `/`) and the git files; the git root.
fn read_context_files(r: &mut Reader, run: &Run, pi: &Pi) -> Option<String> {
    let candidates = strings(pi.data.prompt.get("contextFileCandidates"));
    // Context files: the agent dir's, then cwd up to the root (loadProjectContextFiles).
    for c in &candidates {
        r.text_file(&join_path(&run.agent_dir, c), "context file");
    }
    let git_root = r.git(&run.cwd);
    let mut dir = run.cwd.clone();
    loop {
        for c in &candidates {
            r.text_file(&join_path(&dir, c), "context file");
        }
        let p = dirname(&dir);
        if p == dir {
            break;
        }
        dir = p;
    }
    git_root
}

/// Reads the settings' pi packages and the `-e` sources; npm's global root, when asked.
fn read_packages(r: &mut Reader, run: &Run, settings: &Settings) -> Option<String> {
    let (home, agent_dir, cwd) = (&run.home, &run.agent_dir, &run.cwd);
    let machine = r.m;
    // pi packages (package-manager.js resolvePackageSources): each entry's install folder, or
    // its local path; which of them pi loads, and how, is decided by [`crate::packages`].
    let mut npm_global_root: Option<Option<String>> = None;
    for (source, scope) in crate::packages::entry_sources(settings) {
        let path = crate::packages::install_path(&source, scope, home, agent_dir, cwd);
        r.package(&path);
        // `getNpmInstallPath`: a user's npm package not in pi's folder, in npm's global root.
        let npm = matches!(
            crate::packages::parse_source(&source),
            crate::packages::Source::Npm { .. }
        );
        if npm && scope == crate::packages::Scope::User && r.m.fs.stat(&path).is_none() {
            let root = npm_global_root.get_or_insert_with(|| {
                global_root(machine.fs, &npm_command(settings))
                    .or_else(|| crate::packages::npm_global_root(None, &machine.env))
            });
            if let (Some(root), crate::packages::Source::Npm { name, .. }) =
                (root.clone(), crate::packages::parse_source(&source))
            {
                r.package(&join_path(&root, &name));
            }
        }
    }
    // The `-e` sources (`resolveExtensionSources`): a local path, or pi's temporary folder.
    for given in run
        .parsed
        .extensions
        .iter()
        .filter(|s| !s.starts_with("builtin:"))
    {
        let source = crate::packages::cli_source(given, &run.process_cwd, home);
        for path in crate::packages::temporary_paths(&source, home, agent_dir, cwd) {
            r.package(&path);
        }
    }
    npm_global_root.flatten()
}

/// Reads the skills: the settings' paths, the auto-discovered folders and the `--skill` paths.
fn read_skills(r: &mut Reader, run: &Run, settings: &Settings, git_root: Option<&str>) {
    let (home, agent_dir, cwd, config) = (&run.home, &run.agent_dir, &run.cwd, &run.config);
    // Skills: the settings' paths (read from the files just laid), the auto-discovered folders,
    // the `--skill` paths (package-manager.js resolve; resource-loader.js mergePaths).
    if !run.parsed.no_skills {
        for (entries, base) in [
            (strings(settings.project.get("skills")), config.clone()),
            (strings(settings.global.get("skills")), agent_dir.clone()),
        ] {
            for e in entries {
                if e.starts_with(['!', '+', '-']) || e.contains('*') || e.contains('?') {
                    continue;
                }
                r.skill_tree(&resolve_pi_path(&e, &base, home, PathOptions::default()), 0);
            }
        }
        r.skill_tree(&join_path(config, "skills"), 0);
        let mut d = cwd.clone();
        loop {
            r.skill_tree(&join_path(&d, ".agents/skills"), 0);
            if git_root == Some(d.as_str()) {
                break;
            }
            let p = dirname(&d);
            if p == d {
                break;
            }
            d = p;
        }
        r.skill_tree(&join_path(agent_dir, "skills"), 0);
        r.skill_tree(&join_path(home, ".agents/skills"), 0);
    }
    // A `.agents/skills` in any ancestor (not only up to the git root) makes the project need
    // trust (trust-manager.js hasTrustRequiringProjectResources): its existence is recorded.
    let mut d = cwd.clone();
    loop {
        r.dir(&join_path(&d, ".agents/skills"));
        let p = dirname(&d);
        if p == d {
            break;
        }
        d = p;
    }
    for s in &run.parsed.skills {
        let t = s.trim();
        if ["npm:", "git:", "github:", "http:", "https:", "ssh:"]
            .iter()
            .any(|p| t.starts_with(p))
        {
            continue;
        }
        let p = resolve_pi_path(s, &run.process_cwd, home, PathOptions::default());
        r.skill_tree(&p, 0);
    }
}

/// Reads the prompt templates: the settings' paths, the auto-discovered folders, the flags'.
fn read_prompt_templates(r: &mut Reader, run: &Run, settings: &Settings) {
    let (home, agent_dir, config) = (&run.home, &run.agent_dir, &run.config);
    // Prompt templates: the settings' `prompts` paths, `.pi/prompts`, `<agentDir>/prompts`, the
    // `--prompt-template` paths (package-manager.js resolve; resource-loader.js:343–358).
    if !run.parsed.no_prompt_templates {
        for (entries, base) in [
            (strings(settings.project.get("prompts")), config.clone()),
            (strings(settings.global.get("prompts")), agent_dir.clone()),
        ] {
            for e in entries {
                if e.starts_with(['!', '+', '-']) || e.contains('*') || e.contains('?') {
                    continue;
                }
                r.prompt_tree(
                    &resolve_pi_path(&e, &base, home, PathOptions::default()),
                    true,
                );
            }
        }
        r.prompt_tree(&join_path(config, "prompts"), false);
        r.prompt_tree(&join_path(agent_dir, "prompts"), false);
    }
    for s in &run.parsed.prompt_templates {
        let t = s.trim();
        if ["npm:", "git:", "github:", "http:", "https:", "ssh:"]
            .iter()
            .any(|p| t.starts_with(p))
        {
            continue;
        }
        r.prompt_tree(
            &resolve_pi_path(s, &run.process_cwd, home, PathOptions::default()),
            false,
        );
    }
}

/// Reads the `@file` arguments, trying each path's screenshot variants.
fn read_file_args(r: &mut Reader, run: &Run) {
    // `@file` arguments (file-processor.js; resolveReadPath's screenshot variants).
    for a in &run.parsed.file_args {
        let p = resolve_pi_path(
            a,
            &run.process_cwd,
            &run.home,
            PathOptions {
                normalize_unicode_spaces: true,
                strip_at_prefix: true,
                trim: false,
            },
        );
        let max = r.limits.max_attachment_bytes;
        let variants = [
            p.clone(),
            p.replace(" AM.", "\u{202F}AM.")
                .replace(" PM.", "\u{202F}PM."),
            p.replace('\'', "\u{2019}"),
        ];
        if !variants.iter().any(|v| r.file(v, "attachment", max)) {
            r.dir(&p);
        }
    }
}

/// `getGlobalNpmRoot()` through the host: `COMMAND… root -g` (npm, pnpm), or for bun
/// `COMMAND… pm bin -g`'s folder's `install/global/node_modules`
/// (CA/core/package-manager.js `getGlobalNpmRoot`, `getPackageManagerName`). pnpm's own
/// `list -g` path for a package (`getPnpmGlobalPackagePath`) is taken to be `ROOT/NAME`.
pub(crate) fn global_root(fs: &dyn HostFs, command: &[String]) -> Option<String> {
    // `basename(command).replace(/\.(cmd|exe)$/i, "")`
    let name = |c: &str| -> String {
        let base = basename(c);
        let lower = base.to_ascii_lowercase();
        if lower.ends_with(".cmd") || lower.ends_with(".exe") {
            base.get(..base.len() - 4).unwrap_or(base).to_string()
        } else {
            base.to_string()
        }
    };
    let (program, args) = command.split_first()?;
    let known = ["npm", "pnpm", "bun"];
    let manager = match args.iter().rposition(|a| a == "--") {
        Some(i) => args.get(i + 1).map_or_else(|| name(program), |c| name(c)),
        None if known.contains(&name(program).as_str()) => name(program),
        None => args
            .iter()
            .map(|a| name(a))
            .find(|c| known.contains(&c.as_str()))
            .unwrap_or_else(|| name(program)),
    };
    let ask = |extra: &[&str]| {
        let mut c = command.to_vec();
        c.extend(extra.iter().map(|s| s.to_string()));
        fs.run(&c)
            .map(|out| out.trim().to_string())
            .filter(|s| !s.is_empty())
    };
    if manager == "bun" {
        let bin = ask(&["pm", "bin", "-g"])?;
        return Some(join_path(&dirname(&bin), "install/global/node_modules"));
    }
    ask(&["root", "-g"])
}

/// `getNpmCommand()`: the settings' `npmCommand` (the project's over the user's), else `npm`.
fn npm_command(settings: &crate::settings::Settings) -> Vec<String> {
    [&settings.project, &settings.global]
        .iter()
        .filter_map(|o| o.get("npmCommand").and_then(Value::as_array))
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect::<Vec<_>>()
        })
        .find(|c| !c.is_empty())
        .unwrap_or_else(|| vec!["npm".to_string()])
}

/// The pi installed on the machine.
#[derive(Clone, Debug, PartialEq)]
pub struct InstalledPi {
    /// The `pi` found on `PATH` (before links are resolved), when it was found there.
    pub bin: Option<String>,
    /// The package folder of `@earendil-works/pi-coding-agent`.
    pub package_dir: String,
    /// Its package.json `version`.
    pub version: Option<String>,
}

/// The npm package pi is published as.
pub const PI_PACKAGE: &str = "@earendil-works/pi-coding-agent";

/// The package folder at or above `start` whose package.json names [`PI_PACKAGE`], with its
/// version.
fn package_above(fs: &dyn HostFs, start: &str) -> Option<(String, Option<String>)> {
    let mut d = normalize_path(start);
    for _ in 0..64 {
        let pj = join_path(&d, "package.json");
        if let Some(FileKind::File { size }) = fs.stat(&pj) {
            if size < 1 << 20 {
                if let Some(v) = fs
                    .read(&pj)
                    .ok()
                    .and_then(|b| js::parse(&String::from_utf8_lossy(&b)).ok())
                {
                    if v.get_str("name") == Some(PI_PACKAGE) {
                        return Some((d, v.get_str("version").map(String::from)));
                    }
                }
            }
        }
        let p = dirname(&d);
        if p == d {
            return None;
        }
        d = p;
    }
    None
}

/// Finds the installed pi: `pi_dir` when given (a package folder, or any file or folder inside
/// one), else the first `pi` on `PATH`, its links resolved, then the folders up to the
/// package.json of [`PI_PACKAGE`]. `Err` says what was looked at.
pub fn find_installed_pi(
    fs: &dyn HostFs,
    env: &BTreeMap<String, String>,
    pi_dir: Option<&str>,
) -> Result<InstalledPi, String> {
    if let Some(dir) = pi_dir {
        let real = fs.realpath(dir).unwrap_or_else(|| dir.to_string());
        return match package_above(fs, &real) {
            Some((package_dir, version)) => Ok(InstalledPi {
                bin: None,
                package_dir,
                version,
            }),
            None => Err(format!(
                "--pi-dir {dir}: no package.json of {PI_PACKAGE} there or above"
            )),
        };
    }
    let path = env.get("PATH").map(String::as_str).unwrap_or("");
    for d in path.split(':').filter(|d| !d.is_empty()) {
        let bin = join_path(d, "pi");
        if !fs.is_file(&bin) {
            continue;
        }
        let real = fs.realpath(&bin).unwrap_or_else(|| bin.clone());
        if let Some((package_dir, version)) = package_above(fs, &dirname(&real)) {
            return Ok(InstalledPi {
                bin: Some(bin),
                package_dir,
                version,
            });
        }
        return Err(format!(
            "the pi on PATH ({bin} → {real}) is not inside a {PI_PACKAGE} package"
        ));
    }
    Err("no pi on PATH".into())
}

/// Where pi would be installed when none is found: the package folder of a global npm install
/// (`<prefix>/lib/node_modules/@earendil-works/pi-coding-agent`), for the prompt's docs paths.
pub const ASSUMED_PACKAGE_DIR: &str = "/usr/local/lib/node_modules/@earendil-works/pi-coding-agent";

/// A recent session under the agent dir.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionListing {
    pub path: String,
    pub cwd: Option<String>,
    /// The header's timestamp (ISO 8601).
    pub timestamp: Option<String>,
    pub bytes: u64,
    /// The first user message's text, on one line, cut to 120 characters.
    pub first_prompt: Option<String>,
}

/// The session folders pi writes (`getDefaultSessionDirPath`, CA/core/session-manager.js:242):
/// `<agentDir>/sessions/--<cwd with / \ : as ->--/<timestamp>_<id>.jsonl`.
pub fn session_dir_name(cwd: &str) -> String {
    let t = cwd.strip_prefix(['/', '\\']).unwrap_or(cwd);
    format!("--{}--", t.replace(['/', '\\', ':'], "-"))
}

impl Machine<'_> {
    /// Where pi keeps sessions (CA/main.js: `$PI_CODING_AGENT_SESSION_DIR`, else the global
    /// settings' `sessionDir`, else `<agentDir>/sessions` with one folder per cwd).
    pub fn sessions_dir(&self) -> String {
        let home = self.home();
        if let Some(d) = self
            .env
            .get("PI_CODING_AGENT_SESSION_DIR")
            .filter(|d| !d.is_empty())
        {
            return normalize_pi_path(d, &home, PathOptions::default());
        }
        let agent_dir = self.agent_dir();
        let settings = join_path(&agent_dir, "settings.json");
        let from_settings = match self.fs.stat(&settings) {
            Some(FileKind::File { size }) if size < 4 << 20 => self
                .fs
                .read(&settings)
                .ok()
                .and_then(|b| js::parse(&String::from_utf8_lossy(&b)).ok())
                .and_then(|v| v.get_str("sessionDir").map(String::from))
                .filter(|d| !d.is_empty()),
            _ => None,
        };
        match from_settings {
            Some(d) => resolve_pi_path(&d, &self.process_cwd, &home, PathOptions::default()),
            None => join_path(&agent_dir, "sessions"),
        }
    }
}

/// The sessions under `root` ([`Machine::sessions_dir`]: `.jsonl` files in it and in its
/// folders), newest first by the start time in pi's file names, at most `max`; each file read
/// only up to `head_bytes` (its header and first prompt).
pub fn list_sessions(
    fs: &dyn HostFs,
    root: &str,
    max: usize,
    head_bytes: usize,
) -> Vec<SessionListing> {
    let root = normalize_path(root);
    let mut files: Vec<(String, u64)> = Vec::new();
    let mut dirs = fs.read_dir(&root).unwrap_or_default();
    dirs.sort();
    for d in dirs.iter().take(10_000) {
        let full = join_path(&root, d);
        match fs.stat(&full) {
            Some(FileKind::Dir) => {
                let mut names = fs.read_dir(&full).unwrap_or_default();
                names.sort();
                for n in names.iter().filter(|n| n.ends_with(".jsonl")).take(10_000) {
                    let p = join_path(&full, n);
                    if let Some(FileKind::File { size }) = fs.stat(&p) {
                        files.push((p, size));
                    }
                }
            }
            Some(FileKind::File { size }) if d.ends_with(".jsonl") => files.push((full, size)),
            _ => {}
        }
    }
    // pi names files `<ISO timestamp with : and . as ->_<id>.jsonl`: the name sorts by time.
    files.sort_by(|a, b| basename(&b.0).cmp(basename(&a.0)));
    files.truncate(max);
    files
        .into_iter()
        .map(|(path, bytes)| {
            let mut scan = scan_head(fs, &path, bytes, head_bytes);
            // A long first system message (1.6.0 stores the prompt and tools before the first
            // prompt) can push the first prompt further: look as far as pi scans for a header.
            if scan.2.is_none() && bytes > head_bytes as u64 && head_bytes < SESSION_SCAN_BYTES {
                scan = scan_head(fs, &path, bytes, SESSION_SCAN_BYTES);
            }
            let (cwd, timestamp, first_prompt) = scan;
            SessionListing {
                path,
                cwd,
                timestamp,
                bytes,
                first_prompt,
            }
        })
        .collect()
}

/// How far pi reads a session file for its header (`MAX_SESSION_HEADER_SCAN_BYTES`,
/// CA/core/session-manager.js).
pub const SESSION_SCAN_BYTES: usize = 1024 * 1024;

/// The header's cwd and timestamp and the first user message (one line, cut to 120
/// characters) in the first `max` bytes of a session file.
fn scan_head(
    fs: &dyn HostFs,
    path: &str,
    bytes: u64,
    max: usize,
) -> (Option<String>, Option<String>, Option<String>) {
    let head = fs.read_head(path, max).unwrap_or_default();
    let text = String::from_utf8_lossy(&head);
    let mut cwd = None;
    let mut timestamp = None;
    // The last line may be cut: only whole lines are parsed.
    let whole = match text.rfind('\n') {
        Some(i) if (head.len() as u64) < bytes => &text[..i],
        _ => &text[..],
    };
    for line in whole.lines() {
        // Only the header and user messages are parsed.
        if !line.contains("\"session\"") && !line.contains("\"user\"") {
            continue;
        }
        let Ok(v) = js::parse(line) else { continue };
        match v.get_str("type") {
            Some("session") => {
                cwd = v.get_str("cwd").map(String::from);
                timestamp = v.get_str("timestamp").map(String::from);
            }
            Some("message") => {
                let Some(m) = v.get("message") else { continue };
                if m.get_str("role") != Some("user") {
                    continue;
                }
                let t = match m.get("content") {
                    Some(Value::String(s)) => s.to_string(),
                    Some(Value::Array(a)) => a
                        .iter()
                        .filter(|b| b.get_str("type") == Some("text"))
                        .filter_map(|b| b.get_str("text"))
                        .collect::<Vec<_>>()
                        .join(" "),
                    _ => String::new(),
                };
                let one: String = t.split_whitespace().collect::<Vec<_>>().join(" ");
                let cut: String = one.chars().take(120).collect();
                let prompt = if cut.len() < one.len() {
                    format!("{cut}…")
                } else {
                    cut
                };
                return (cwd, timestamp, Some(prompt));
            }
            _ => {}
        }
    }
    (cwd, timestamp, None)
}

#[cfg(test)]
#[path = "install_tests.rs"]
mod tests;

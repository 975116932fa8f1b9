//! Everything pi would read, as plain data. The core never touches a filesystem, a clock or the
//! environment: the caller lays them out here.

use std::collections::BTreeMap;

use crate::api::Api;
use crate::js::path::normalize_path;
use crate::pi::PiVersion;

/// A virtual file tree: absolute POSIX path → file bytes. Directories are implied by paths.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VirtualFs {
    files: BTreeMap<String, Vec<u8>>,
    /// Directories that exist without a file laid below them (an empty `.pi/extensions`, a
    /// `.git` folder whose files pi does not read): [`VirtualFs::insert_dir`].
    dirs: std::collections::BTreeSet<String>,
}

impl VirtualFs {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) a file. The path is normalized (`//`, `.` and `..` removed).
    pub fn insert(&mut self, path: &str, bytes: impl Into<Vec<u8>>) {
        self.files.insert(normalize_path(path), bytes.into());
    }

    /// Removes a file; whether it was there.
    pub fn remove(&mut self, path: &str) -> bool {
        self.files.remove(&normalize_path(path)).is_some()
    }

    /// Removes every file and recorded directory at or below `dir`; the files removed.
    pub fn remove_dir(&mut self, dir: &str) -> Vec<String> {
        let root = normalize_path(dir);
        let prefix = format!("{}/", root.trim_end_matches('/'));
        let gone: Vec<String> = self
            .files
            .keys()
            .filter(|k| **k == root || k.starts_with(&prefix))
            .cloned()
            .collect();
        for k in &gone {
            self.files.remove(k);
        }
        self.dirs.retain(|d| *d != root && !d.starts_with(&prefix));
        gone
    }

    /// Records a directory that exists even when no file is laid below it.
    pub fn insert_dir(&mut self, path: &str) {
        self.dirs.insert(normalize_path(path));
    }

    /// The directories recorded with [`Self::insert_dir`].
    pub fn dirs(&self) -> impl Iterator<Item = &String> {
        self.dirs.iter()
    }

    pub fn get(&self, path: &str) -> Option<&[u8]> {
        self.files.get(&normalize_path(path)).map(|v| v.as_slice())
    }

    /// The file as UTF-8 text (invalid sequences replaced, as Node's `readFileSync(p, "utf8")`).
    pub fn read_to_string(&self, path: &str) -> Option<String> {
        self.get(path)
            .map(|b| String::from_utf8_lossy(b).into_owned())
    }

    /// `existsSync(p) && statSync(p).isFile()`.
    pub fn is_file(&self, path: &str) -> bool {
        self.files.contains_key(&normalize_path(path))
    }

    /// Whether any file lives below `path`.
    pub fn is_dir(&self, path: &str) -> bool {
        let mut prefix = normalize_path(path);
        if self.dirs.contains(&prefix) {
            return true;
        }
        if !prefix.ends_with('/') {
            prefix.push('/');
        }
        self.files
            .range(prefix.clone()..)
            .next()
            .is_some_and(|(k, _)| k.starts_with(&prefix))
    }

    /// The names directly inside `dir` (files and subdirectories), sorted by byte order as
    /// libuv's `readdir` returns them on POSIX; each with whether it is a directory.
    pub fn read_dir(&self, dir: &str) -> Vec<(String, bool)> {
        let mut prefix = normalize_path(dir);
        if !prefix.ends_with('/') {
            prefix.push('/');
        }
        let mut out: Vec<(String, bool)> = Vec::new();
        for (k, _) in self.files.range(prefix.clone()..) {
            let Some(rest) = k.strip_prefix(&prefix) else {
                break;
            };
            let (name, is_dir) = match rest.find('/') {
                Some(i) => (&rest[..i], true),
                None => (rest, false),
            };
            if out.last().map(|(n, _)| n.as_str()) != Some(name) {
                out.push((name.to_string(), is_dir));
            }
        }
        for d in self.dirs.range(prefix.clone()..) {
            let Some(rest) = d.strip_prefix(&prefix) else {
                break;
            };
            let name = rest.split('/').next().unwrap_or(rest);
            if !name.is_empty() {
                out.push((name.to_string(), true));
            }
        }
        out.sort();
        out.dedup_by(|a, b| a.0 == b.0);
        out
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &Vec<u8>)> {
        self.files.iter()
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// A named text input (the session file), kept with its name for diagnostics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SourceText {
    pub name: String,
    /// Shared: the strings parsed out of it are ranges of this text, not copies.
    pub text: crate::js::Str,
}

/// An extension tool as pi's `registerTool` takes it (the oracle's tools.json shape):
/// `{name, label?, description, parameters, promptSnippet?, promptGuidelines?}`.
pub type ExtensionToolsJson = SourceText;

/// All inputs of one assembly.
/// Equal inputs give equal assemblies (a workspace's key, [`crate::workspace`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Inputs {
    /// The pi session to resume (JSONL). `None`: pi starts a new session.
    pub session: Option<SourceText>,
    /// Every file pi could read: the project tree, the agent dir (settings.json, models.json,
    /// AGENTS.md, SYSTEM.md, skills), attachments.
    pub files: VirtualFs,
    /// `$HOME`.
    pub home: String,
    /// pi's agent dir (`~/.pi/agent` or `$PI_CODING_AGENT_DIR`).
    pub agent_dir: String,
    /// The process working directory (a resumed session uses its header's cwd instead).
    pub cwd: String,
    /// The installed pi-coding-agent package dir (docs paths in the system prompt).
    pub pi_package_dir: String,
    /// `--model` (`provider/id`, `id`, optionally with a `:thinking` suffix).
    pub model: Option<String>,
    /// `--thinking`.
    pub thinking: Option<String>,
    /// `model` and `thinking` are what a running pi uses now (ctxlens inside pi passes them),
    /// not flags a user typed: said as pi's current model and level.
    pub running_pi: bool,
    /// The rest of pi's command line (`--tools`, `--system-prompt`, `@file`, ...).
    pub args: Vec<String>,
    /// Environment variables pi reads (`PI_CACHE_RETENTION`, `PI_EXPERIMENTAL`, ...).
    pub env: BTreeMap<String, String>,
    /// Extension tools (tools.json), appended after the built-in ones.
    pub extension_tools: Option<ExtensionToolsJson>,
    /// The folder `npm root -g` prints (process state: the CLI asks npm when a user's npm
    /// package is not in pi's own folder, where pi then looks; without it,
    /// `NPM_CONFIG_PREFIX` in `env` gives it).
    pub npm_global_root: Option<String>,
    /// The next prompt. `None`: a past call ([`Self::call`]), or, when the active branch ends
    /// with an answer, its last call; else pi's continue (no new user message).
    pub prompt: Option<String>,
    /// Which model call of the session to rebuild (`--call`): the request that produced that
    /// answer, as pi sent it (the branch up to the answer's parent, no new prompt). `None`: see
    /// [`Self::prompt`].
    pub call: Option<crate::calls::CallRef>,
    /// `Date.now()` when the prompt is sent, in ms.
    pub now_ms: f64,
    /// 0.86 on: `Date.now()` when pi created this run's system message (a patch or a tool
    /// change), a few milliseconds after the prompt's; `None`: [`Self::now_ms`].
    pub system_now_ms: Option<f64>,
    /// Replace the model's `api` (the protocol switch).
    pub api: Option<Api>,
    /// The pi release asked for (`--pi`, `piVersion`, the app's picker); `None`: the captured
    /// one, else the one the session proves, else the newest ([`crate::pi::choice::choose`]).
    pub pi: Option<PiVersion>,
    /// The release that made the capture (a case's `env.json` `piVersion`).
    pub captured_pi: Option<PiVersion>,
    /// The version of the pi installed on the machine (its package.json `version`, supported or
    /// not; [`crate::install::find_installed_pi`]).
    pub installed_pi: Option<String>,
    /// What the host found while gathering these inputs (files skipped, no pi installed, no
    /// extension tools): reported first among the assembly's diagnostics.
    pub host_diagnostics: Vec<crate::diagnostics::Diagnostic>,
    /// The session id of a new session (pi makes a random uuidv7); a resumed session uses its
    /// header id.
    pub session_id: Option<String>,
    /// The `User-Agent` pi sends, which it derives from the process (the OS, Node's version);
    /// `None`: the release's form on linux x64 with the oracle's Node ([`crate::headers::default_user_agent`]).
    pub user_agent: Option<String>,
    /// When the model pi takes (`--model`'s, the session's, the saved default) belongs to a
    /// provider with no key, a placeholder key stands in for it ([`PLACEHOLDER_KEY`]), so the
    /// request is built as pi would build it with the user's own key (a key never changes the
    /// body; headers show keys redacted). The visualizer sets it: a page has no keys.
    pub placeholder_key: bool,
}

/// The key [`Inputs::placeholder_key`] gives a provider that has none.
pub const PLACEHOLDER_KEY: &str = "ctxlens-placeholder-key";

impl Default for Inputs {
    fn default() -> Self {
        Inputs {
            session: None,
            files: VirtualFs::new(),
            home: "/home/user".into(),
            agent_dir: "/home/user/.pi/agent".into(),
            cwd: "/home/user/project".into(),
            pi_package_dir: "/usr/lib/node_modules/@earendil-works/pi-coding-agent".into(),
            model: None,
            thinking: None,
            running_pi: false,
            args: Vec::new(),
            env: BTreeMap::new(),
            extension_tools: None,
            npm_global_root: None,
            prompt: None,
            call: None,
            now_ms: 0.0,
            system_now_ms: None,
            api: None,
            pi: None,
            captured_pi: None,
            installed_pi: None,
            host_diagnostics: Vec::new(),
            session_id: None,
            user_agent: None,
            placeholder_key: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_dir_lists_files_and_dirs_sorted() {
        let mut fs = VirtualFs::new();
        fs.insert("/s/b/SKILL.md", "x");
        fs.insert("/s/a.md", "y");
        fs.insert("/s/b/c/d.md", "z");
        fs.insert("/sx/e", "w");
        assert_eq!(
            fs.read_dir("/s"),
            vec![("a.md".into(), false), ("b".into(), true)]
        );
        assert!(fs.is_dir("/s/b"));
        assert!(!fs.is_dir("/s/a.md"));
        assert!(fs.is_file("/s/./b/SKILL.md"));
    }
}

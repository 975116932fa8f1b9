//! What pi reads around the working directory and in the agent dir: context files (AGENTS.md,
//! CLAUDE.md, ...), skills, SYSTEM.md / APPEND_SYSTEM.md (INVENTORY P3–P5, P13–P17;
//! pi-coding-agent `dist/core/resource-loader.js`, `dist/core/skills.js`,
//! `dist/core/package-manager.js`, `dist/utils/frontmatter.js`).

use crate::args::PiArgs;
use crate::diagnostics::Diagnostic;
use crate::inputs::VirtualFs;
use crate::js::path::{basename, dirname, join_path, normalize_path, resolve_path};
use crate::js::Value;
use crate::paths::{resolve_pi_path, PathOptions};
use crate::pi::Pi;
use crate::settings::Settings;

/// A context file that made it into the prompt.
#[derive(Clone, Debug, PartialEq)]
pub struct ContextFile {
    /// The path as pi prints it (`join(dir, candidateName)`).
    pub path: String,
    /// BOM-stripped content.
    pub content: String,
    /// Other candidates in the same directory that lost to this one (P14 order).
    pub shadowed: Vec<String>,
}

/// A skill from SKILL.md frontmatter.
#[derive(Clone, Debug, PartialEq)]
pub struct Skill {
    pub name: String,
    pub description: String,
    pub file_path: String,
    pub base_dir: String,
    pub disable_model_invocation: bool,
    /// Where it was found (`user`, `project`, `path`).
    pub source: String,
}

/// A prompt piece and the file it came from (`None` for a literal CLI value).
#[derive(Clone, Debug, PartialEq)]
pub struct PromptText {
    pub text: String,
    pub path: Option<String>,
}

/// Everything the system prompt is built from besides the tools.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resources {
    pub context_files: Vec<ContextFile>,
    pub skills: Vec<Skill>,
    pub custom_prompt: Option<PromptText>,
    pub append_prompts: Vec<PromptText>,
}

fn exists(fs: &VirtualFs, p: &str) -> bool {
    fs.is_file(p) || fs.is_dir(p)
}

fn strip_bom(s: String) -> String {
    match s.strip_prefix('\u{FEFF}') {
        Some(r) => r.to_string(),
        None => s,
    }
}

/// Discovers context files, skills and prompt files as pi's resource loader does
/// (`DefaultResourceLoader.reload`, resource-loader.js:241–383). `cwd` is the runtime cwd (a
/// resumed session's), `process_cwd` the directory pi was started in (CLI paths resolve there).
#[allow(clippy::too_many_arguments)]
pub fn load(
    pi: &Pi,
    fs: &VirtualFs,
    home: &str,
    agent_dir: &str,
    cwd: &str,
    process_cwd: &str,
    args: &PiArgs,
    settings: &Settings,
    diags: &mut Vec<Diagnostic>,
) -> Resources {
    let cwd = normalize_path(cwd);
    let agent_dir = normalize_path(agent_dir);
    let context_files = if args.no_context_files {
        Vec::new()
    } else {
        load_project_context_files(pi, fs, &cwd, &agent_dir)
    };
    let skills = load_skills(
        fs,
        home,
        &agent_dir,
        &cwd,
        process_cwd,
        args,
        settings,
        diags,
    );

    // System prompt (resource-loader.js:365–369): the CLI value, else a discovered file.
    let system_source = match &args.system_prompt {
        Some(s) => Some(s.clone()),
        None => discover_prompt_file(fs, &cwd, &agent_dir, "SYSTEM.md", settings.project_trusted),
    };
    let custom_prompt = system_source
        .and_then(|s| resolve_prompt_input(fs, &s, process_cwd, "system prompt", diags));

    // Append (:370–382): every CLI value, else a discovered file; empty values are dropped.
    let append_sources = match &args.append_system_prompt {
        Some(list) => list.clone(),
        None => discover_prompt_file(
            fs,
            &cwd,
            &agent_dir,
            "APPEND_SYSTEM.md",
            settings.project_trusted,
        )
        .into_iter()
        .collect(),
    };
    let append_prompts = append_sources
        .iter()
        .filter_map(|s| resolve_prompt_input(fs, s, process_cwd, "append system prompt", diags))
        .collect();
    Resources {
        context_files,
        skills,
        custom_prompt,
        append_prompts,
    }
}

/// `discoverSystemPromptFile` / `discoverAppendSystemPromptFile` (resource-loader.js:809–830):
/// `<cwd>/.pi/NAME` only in a trusted project, else `<agentDir>/NAME`.
fn discover_prompt_file(
    fs: &VirtualFs,
    cwd: &str,
    agent_dir: &str,
    name: &str,
    trusted: bool,
) -> Option<String> {
    let project = join_path(&join_path(cwd, ".pi"), name);
    if trusted && exists(fs, &project) {
        return Some(project);
    }
    let global = join_path(agent_dir, name);
    exists(fs, &global).then_some(global)
}

/// `resolvePromptInput(input)` (resource-loader.js:17–31): an existing path is read (BOM
/// stripped); anything else is the text itself. `""` gives nothing.
fn resolve_prompt_input(
    fs: &VirtualFs,
    input: &str,
    process_cwd: &str,
    what: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<PromptText> {
    if input.is_empty() {
        return None;
    }
    let abs = resolve_path(process_cwd, input);
    if fs.is_file(&abs) {
        let text = strip_bom(fs.read_to_string(&abs).unwrap_or_default());
        return Some(PromptText {
            text,
            path: Some(abs),
        });
    }
    if fs.is_dir(&abs) {
        diags.push(Diagnostic::warning(
            &abs,
            None,
            format!(
                "Could not read {what} file {input}: it is a directory; pi uses the value as text"
            ),
        ));
        return Some(PromptText {
            text: input.to_string(),
            path: None,
        });
    }
    Some(PromptText {
        text: input.to_string(),
        path: None,
    })
}

/// `loadContextFileFromDir(dir)` (resource-loader.js:32–51): the first candidate that is a
/// regular file; the later existing candidates are recorded as shadowed.
fn load_context_file_from_dir(pi: &Pi, fs: &VirtualFs, dir: &str) -> Option<ContextFile> {
    let candidates = pi
        .data
        .prompt
        .get("contextFileCandidates")
        .and_then(Value::as_array)?;
    let mut found: Option<ContextFile> = None;
    for c in candidates.iter().filter_map(Value::as_str) {
        let path = join_path(dir, c);
        if !fs.is_file(&path) {
            continue;
        }
        match &mut found {
            None => {
                found = Some(ContextFile {
                    content: strip_bom(fs.read_to_string(&path).unwrap_or_default()),
                    path,
                    shadowed: Vec::new(),
                })
            }
            Some(f) => f.shadowed.push(path),
        }
    }
    found
}

/// `findGitPaths(cwd)` (CA/core/footer-data-provider.js:9–46): (repoDir, commonGitDir).
fn find_git_paths(fs: &VirtualFs, cwd: &str) -> Option<(String, String)> {
    let mut dir = cwd.to_string();
    loop {
        let git = join_path(&dir, ".git");
        if fs.is_file(&git) {
            let content = fs.read_to_string(&git).unwrap_or_default();
            let content = crate::js::js_trim(&content);
            let target = content.strip_prefix("gitdir: ")?;
            let git_dir = resolve_path(&dir, crate::js::js_trim(target));
            if !exists(fs, &join_path(&git_dir, "HEAD")) {
                return None;
            }
            let common_path = join_path(&git_dir, "commondir");
            let common = match fs.read_to_string(&common_path) {
                Some(c) => resolve_path(&git_dir, crate::js::js_trim(&c)),
                None => git_dir,
            };
            return Some((dir, common));
        } else if fs.is_dir(&git) {
            if !exists(fs, &join_path(&git, "HEAD")) {
                return None;
            }
            return Some((dir, git));
        }
        let parent = dirname(&dir);
        if parent == dir {
            return None;
        }
        dir = parent;
    }
}

/// `findShadowedContextFile(cwd)` (resource-loader.js:62–81): the main repo's context file that
/// a nested linked worktree's own context file shadows.
fn find_shadowed_context_file(pi: &Pi, fs: &VirtualFs, cwd: &str) -> Option<String> {
    let (worktree_root, common) = find_git_paths(fs, cwd)?;
    let main_root = dirname(&common);
    if !worktree_root.starts_with(&format!("{main_root}/")) {
        return None;
    }
    if join_path(&main_root, ".git") != common {
        return None;
    }
    let wt = load_context_file_from_dir(pi, fs, &worktree_root)?;
    Some(join_path(&main_root, basename(&wt.path)))
}

/// `loadProjectContextFiles` (resource-loader.js:82–106): the agent dir's file first, then the
/// ancestors from the root down to cwd; duplicates by path removed.
pub fn load_project_context_files(
    pi: &Pi,
    fs: &VirtualFs,
    cwd: &str,
    agent_dir: &str,
) -> Vec<ContextFile> {
    let mut files = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    if let Some(g) = load_context_file_from_dir(pi, fs, agent_dir) {
        seen.push(g.path.clone());
        files.push(g);
    }
    let shadowed = find_shadowed_context_file(pi, fs, cwd);
    let mut ancestors = Vec::new();
    let mut dir = cwd.to_string();
    loop {
        if let Some(f) = load_context_file_from_dir(pi, fs, &dir) {
            let is_shadowed = shadowed.as_deref() == Some(f.path.as_str());
            if !is_shadowed && !seen.contains(&f.path) {
                seen.push(f.path.clone());
                ancestors.insert(0, f);
            }
        }
        let parent = dirname(&dir);
        if parent == dir {
            break;
        }
        dir = parent;
    }
    files.extend(ancestors);
    files
}

// ---------------------------------------------------------------------------------------------
// Skills
// ---------------------------------------------------------------------------------------------

/// Ignore rules from `.gitignore`, `.ignore` and `.fdignore` files met during a skill walk
/// (`addIgnoreRules`, CA/core/skills.js:37–56; the `ignore` package's last-match-wins rules).
#[derive(Clone, Debug, Default)]
pub struct IgnoreRules {
    rules: Vec<(bool, String)>,
}

const IGNORE_FILE_NAMES: [&str; 3] = [".gitignore", ".ignore", ".fdignore"];

impl IgnoreRules {
    /// `addIgnoreRules(ig, dir, rootDir)`: each file's patterns, prefixed with dir relative to root.
    fn add_dir(&mut self, fs: &VirtualFs, dir: &str, root: &str) {
        let rel = dir.strip_prefix(root).unwrap_or("").trim_start_matches('/');
        let prefix = if rel.is_empty() {
            String::new()
        } else {
            format!("{rel}/")
        };
        for name in IGNORE_FILE_NAMES {
            let Some(content) = fs.read_to_string(&join_path(dir, name)) else {
                continue;
            };
            for line in content.split('\n') {
                let line = line.strip_suffix('\r').unwrap_or(line);
                if let Some(rule) = prefix_ignore_pattern(line, &prefix) {
                    self.rules.push(rule);
                }
            }
        }
    }

    /// `ig.ignores(relPath)` (a trailing `/` marks a directory).
    pub fn ignores(&self, rel: &str) -> bool {
        let is_dir = rel.ends_with('/');
        let path = rel.trim_end_matches('/');
        let segs: Vec<&str> = path.split('/').collect();
        let mut ignored = false;
        for (negated, pattern) in &self.rules {
            let dir_only = pattern.ends_with('/');
            let pat = pattern.trim_end_matches('/');
            let anchored = pat.contains('/');
            let pat = pat.trim_start_matches('/');
            let matched = (1..=segs.len()).any(|n| {
                let whole = n == segs.len();
                if dir_only && whole && !is_dir {
                    return false;
                }
                if anchored {
                    glob_match(pat, &segs[..n].join("/"))
                } else {
                    glob_match(pat, segs[n - 1])
                }
            });
            if matched {
                ignored = !negated;
            }
        }
        ignored
    }
}

/// `prefixIgnorePattern(line, prefix)` (CA/core/skills.js:16–36).
fn prefix_ignore_pattern(line: &str, prefix: &str) -> Option<(bool, String)> {
    let trimmed = crate::js::js_trim(line);
    if trimmed.is_empty() || (trimmed.starts_with('#') && !trimmed.starts_with("\\#")) {
        return None;
    }
    let mut pattern = line;
    let mut negated = false;
    if let Some(p) = pattern.strip_prefix('!') {
        negated = true;
        pattern = p;
    } else if pattern.starts_with("\\!") {
        pattern = &pattern[1..];
    }
    let pattern = pattern.strip_prefix('/').unwrap_or(pattern);
    // The `ignore` package trims trailing unescaped spaces.
    let pattern = pattern.trim_end_matches(' ');
    Some((negated, format!("{prefix}{pattern}")))
}

/// Glob matching of one path: `*` and `?` within a segment, `**` across segments, `[...]` classes.
fn glob_match(pat: &str, text: &str) -> bool {
    fn m(p: &[char], t: &[char]) -> bool {
        match p.first() {
            None => t.is_empty(),
            Some('*') if p.get(1) == Some(&'*') => {
                let rest = if p.get(2) == Some(&'/') {
                    &p[3..]
                } else {
                    &p[2..]
                };
                (0..=t.len())
                    .any(|k| (k == 0 || t[k - 1] == '/' || rest.is_empty()) && m(rest, &t[k..]))
            }
            Some('*') => (0..=t.len())
                .take_while(|&k| k == 0 || t[k - 1] != '/')
                .any(|k| m(&p[1..], &t[k..])),
            Some('?') => t.first().is_some_and(|c| *c != '/') && m(&p[1..], &t[1..]),
            Some('[') => {
                let Some(close) = p.iter().skip(1).position(|c| *c == ']').map(|x| x + 1) else {
                    return t.first() == Some(&'[') && m(&p[1..], &t[1..]);
                };
                let Some(&c) = t.first() else { return false };
                let class = &p[1..close];
                let (neg, class) = match class.first() {
                    Some('!' | '^') => (true, &class[1..]),
                    _ => (false, class),
                };
                let mut hit = false;
                let mut k = 0;
                while k < class.len() {
                    if k + 2 < class.len() && class[k + 1] == '-' {
                        hit |= class[k] <= c && c <= class[k + 2];
                        k += 3;
                    } else {
                        hit |= class[k] == c;
                        k += 1;
                    }
                }
                hit != neg && m(&p[close + 1..], &t[1..])
            }
            Some('\\') if p.len() > 1 => t.first() == Some(&p[1]) && m(&p[2..], &t[1..]),
            Some(c) => t.first() == Some(c) && m(&p[1..], &t[1..]),
        }
    }
    let p: Vec<char> = pat.chars().collect();
    let t: Vec<char> = text.chars().collect();
    m(&p, &t)
}

fn rel_path(root: &str, path: &str) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .trim_start_matches('/')
        .to_string()
}

/// `collectSkillEntries(dir, mode)` (CA/core/package-manager.js:183–248): a directory with a
/// `SKILL.md` yields only that file; otherwise `.md` files (at the root in `pi` mode, below it in
/// `agents` mode) and the entries of subdirectories (dot entries and node_modules skipped).
fn collect_skill_entries(
    fs: &VirtualFs,
    dir: &str,
    agents_mode: bool,
    ig: &mut IgnoreRules,
    root: &str,
    depth: usize,
) -> Vec<String> {
    let mut entries = Vec::new();
    if depth > 64 || !fs.is_dir(dir) {
        return entries;
    }
    ig.add_dir(fs, dir, root);
    let list = fs.read_dir(dir);
    for (name, is_dir) in &list {
        let full = join_path(dir, name);
        if name == "SKILL.md" && !is_dir && !ig.ignores(&rel_path(root, &full)) {
            entries.push(full);
            return entries;
        }
    }
    for (name, is_dir) in &list {
        if name.starts_with('.') || name == "node_modules" {
            continue;
        }
        let full = join_path(dir, name);
        let rel = rel_path(root, &full);
        let at_root = dir == root;
        if !is_dir && name.ends_with(".md") && !ig.ignores(&rel) && (at_root != agents_mode) {
            entries.push(full);
            continue;
        }
        if !is_dir || ig.ignores(&format!("{rel}/")) {
            continue;
        }
        entries.extend(collect_skill_entries(
            fs,
            &full,
            agents_mode,
            ig,
            root,
            depth + 1,
        ));
    }
    entries
}

/// `loadSkillsFromDirInternal(dir, source, includeRootFiles)` (CA/core/skills.js:125–207).
#[allow(clippy::too_many_arguments)]
fn load_skills_from_dir(
    fs: &VirtualFs,
    dir: &str,
    source: &str,
    include_root_files: bool,
    ig: &mut IgnoreRules,
    root: &str,
    depth: usize,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Skill> {
    let mut skills = Vec::new();
    if depth > 64 || !fs.is_dir(dir) {
        return skills;
    }
    ig.add_dir(fs, dir, root);
    let list = fs.read_dir(dir);
    if list.iter().any(|(n, d)| n == "SKILL.md" && !d) {
        let full = join_path(dir, "SKILL.md");
        if !ig.ignores(&rel_path(root, &full)) {
            skills.extend(load_skill_from_file(fs, &full, source, diags));
            return skills;
        }
    }
    for (name, is_dir) in &list {
        if name.starts_with('.') || name == "node_modules" {
            continue;
        }
        let full = join_path(dir, name);
        let rel = rel_path(root, &full);
        if ig.ignores(&if *is_dir { format!("{rel}/") } else { rel }) {
            continue;
        }
        if *is_dir {
            skills.extend(load_skills_from_dir(
                fs,
                &full,
                source,
                false,
                ig,
                root,
                depth + 1,
                diags,
            ));
        } else if include_root_files && name.ends_with(".md") {
            skills.extend(load_skill_from_file(fs, &full, source, diags));
        }
    }
    skills
}

/// `parseFrontmatter(content)` (CA/utils/frontmatter.js): CRLF/CR normalized, BOM stripped; the
/// YAML between a leading `---` and the next `\n---`; `parse(yaml) ?? {}`.
pub fn parse_frontmatter(content: &str) -> Result<Value, yaml::YamlError> {
    let normalized = content
        .strip_prefix('\u{FEFF}')
        .unwrap_or(content)
        .replace("\r\n", "\n")
        .replace('\r', "\n");
    if !normalized.starts_with("---") {
        return Ok(Value::object());
    }
    let Some(end) = normalized[3..].find("\n---").map(|e| e + 3) else {
        return Ok(Value::object());
    };
    let yaml_string = if end >= 4 { &normalized[4..end] } else { "" };
    if yaml_string.is_empty() {
        return Ok(Value::object());
    }
    Ok(match yaml::parse(yaml_string)? {
        Value::Null => Value::object(),
        v => v,
    })
}

/// `validateName(name)` (CA/core/skills.js:61–76).
fn validate_name(name: &str) -> Vec<String> {
    let mut errors = Vec::new();
    let len = crate::js::utf16_len(name);
    if len > 64 {
        errors.push(format!("name exceeds 64 characters ({len})"));
    }
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        errors.push(
            "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)".into(),
        );
    }
    if name.starts_with('-') || name.ends_with('-') {
        errors.push("name must not start or end with a hyphen".into());
    }
    if name.contains("--") {
        errors.push("name must not contain consecutive hyphens".into());
    }
    errors
}

/// `loadSkillFromFile(filePath, source)` (CA/core/skills.js:208–266). pi's warnings become
/// diagnostics; a skill without a description is skipped.
fn load_skill_from_file(
    fs: &VirtualFs,
    path: &str,
    source: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<Skill> {
    let declared = basename(path) == "SKILL.md";
    let raw = fs.read_to_string(path)?;
    let fm = match parse_frontmatter(&raw) {
        Ok(v) => v,
        Err(e) => {
            if declared {
                diags.push(
                    Diagnostic::warning(
                        path,
                        Some(e.line as u32 + 1),
                        format!("frontmatter is not valid YAML: {}", e.message),
                    )
                    .skipping(format!("skill {path}")),
                );
            }
            return None;
        }
    };
    let description = fm.get("description");
    let has_description = description
        .and_then(Value::as_str)
        .is_some_and(|d| !crate::js::js_trim_is_empty(d));
    if !declared && !has_description {
        return None;
    }
    let skill_dir = dirname(path);
    match description {
        Some(Value::String(d)) if !crate::js::js_trim_is_empty(d) => {
            let len = crate::js::utf16_len(d);
            if len > 1024 {
                diags.push(Diagnostic::warning(
                    path,
                    None,
                    format!("description exceeds 1024 characters ({len})"),
                ));
            }
        }
        _ => diags.push(
            Diagnostic::warning(path, None, "description is required")
                .skipping(format!("skill {path}")),
        ),
    }
    let name = match fm.get("name") {
        Some(Value::String(n)) if !n.is_empty() => n.clone(),
        _ => basename(&skill_dir).to_string().into(),
    };
    for e in validate_name(&name) {
        diags.push(Diagnostic::warning(path, None, e));
    }
    if !has_description {
        return None;
    }
    Some(Skill {
        name: name.to_string(),
        description: description
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        file_path: path.to_string(),
        base_dir: skill_dir,
        disable_model_invocation: fm.get("disable-model-invocation") == Some(&Value::Bool(true)),
        source: source.to_string(),
    })
}

/// A skill resource found by the package manager, with its precedence rank
/// (`resourcePrecedenceRank`, CA/core/package-manager.js:61–66).
struct SkillEntry {
    path: String,
    rank: u8,
}

/// `DefaultPackageManager.resolve()` for skills (CA/core/package-manager.js:698–731, 1939–2019):
/// settings entries (project, then global) and auto-discovered directories (project `.pi/skills`
/// and `.agents/skills` up to the git root when trusted, `<agentDir>/skills`, `~/.agents/skills`),
/// first path wins, stably sorted by rank. Pattern entries (`!`, `+`, `-`, globs) are reported and
/// ignored.
fn resolve_skill_resources(
    fs: &VirtualFs,
    home: &str,
    agent_dir: &str,
    cwd: &str,
    settings: &Settings,
    diags: &mut Vec<Diagnostic>,
) -> Vec<String> {
    let mut acc: Vec<SkillEntry> = Vec::new();
    let add = |acc: &mut Vec<SkillEntry>, path: String, rank: u8| {
        if !acc.iter().any(|e| e.path == path) {
            acc.push(SkillEntry { path, rank });
        }
    };
    let project_base = join_path(cwd, ".pi");
    for (entries, base, rank, file) in [
        (
            strings_of(settings.project.get("skills")),
            project_base.clone(),
            0u8,
            join_path(&project_base, "settings.json"),
        ),
        (
            strings_of(settings.global.get("skills")),
            agent_dir.to_string(),
            2u8,
            join_path(agent_dir, "settings.json"),
        ),
    ] {
        for e in entries {
            if e.starts_with(['!', '+', '-']) || e.contains('*') || e.contains('?') {
                diags.push(
                    Diagnostic::warning(
                        &file,
                        None,
                        format!("skills pattern {e:?} is not supported by ctxlens"),
                    )
                    .skipping(e.clone()),
                );
                continue;
            }
            let p = resolve_pi_path(&e, &base, home, PathOptions::default());
            if fs.is_file(&p) {
                add(&mut acc, p, rank);
            } else if fs.is_dir(&p) {
                for f in collect_skill_entries(fs, &p, false, &mut IgnoreRules::default(), &p, 0) {
                    add(&mut acc, f, rank);
                }
            }
        }
    }
    let user_agents = join_path(home, ".agents/skills");
    if settings.project_trusted {
        let d = join_path(&project_base, "skills");
        for f in collect_skill_entries(fs, &d, false, &mut IgnoreRules::default(), &d, 0) {
            add(&mut acc, f, 1);
        }
        for d in collect_ancestor_agents_skill_dirs(fs, cwd)
            .into_iter()
            .filter(|d| *d != user_agents)
        {
            for f in collect_skill_entries(fs, &d, true, &mut IgnoreRules::default(), &d, 0) {
                add(&mut acc, f, 1);
            }
        }
    }
    let d = join_path(agent_dir, "skills");
    for f in collect_skill_entries(fs, &d, false, &mut IgnoreRules::default(), &d, 0) {
        add(&mut acc, f, 3);
    }
    for f in collect_skill_entries(
        fs,
        &user_agents,
        true,
        &mut IgnoreRules::default(),
        &user_agents,
        0,
    ) {
        add(&mut acc, f, 3);
    }
    acc.sort_by_key(|e| e.rank);
    acc.into_iter().map(|e| e.path).collect()
}

fn strings_of(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// `collectAncestorAgentsSkillDirs(startDir)` (CA/core/package-manager.js:263–280): `.agents/skills`
/// in cwd and each ancestor, up to the git repository root (the first dir with a `.git`).
fn collect_ancestor_agents_skill_dirs(fs: &VirtualFs, start: &str) -> Vec<String> {
    let mut git_root = None;
    let mut d = start.to_string();
    loop {
        if exists(fs, &join_path(&d, ".git")) {
            git_root = Some(d.clone());
            break;
        }
        let p = dirname(&d);
        if p == d {
            break;
        }
        d = p;
    }
    let mut dirs = Vec::new();
    let mut dir = start.to_string();
    loop {
        dirs.push(join_path(&dir, ".agents/skills"));
        if git_root.as_deref() == Some(dir.as_str()) {
            break;
        }
        let p = dirname(&dir);
        if p == dir {
            break;
        }
        dir = p;
    }
    dirs
}

/// Skills as pi's resource loader gets them: the package manager's paths (unless `--no-skills`)
/// and the `--skill` paths, merged (`mergePaths`, resource-loader.js:607), then `loadSkills`
/// (CA/core/skills.js:311–406): name collisions keep the first and are reported.
#[allow(clippy::too_many_arguments)]
fn load_skills(
    fs: &VirtualFs,
    home: &str,
    agent_dir: &str,
    cwd: &str,
    process_cwd: &str,
    args: &PiArgs,
    settings: &Settings,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Skill> {
    let cli: Vec<String> = args
        .skills
        .iter()
        .map(|s| {
            if is_local_path(s) {
                resolve_pi_path(s, process_cwd, home, PathOptions::default())
            } else {
                s.clone()
            }
        })
        .collect();
    let primary = if args.no_skills {
        Vec::new()
    } else {
        resolve_skill_resources(fs, home, agent_dir, cwd, settings, diags)
    };
    if args.no_skills && cli.is_empty() {
        return Vec::new();
    }
    let mut skill_paths: Vec<String> = Vec::new();
    for p in primary.iter().chain(cli.iter()) {
        let r = resolve_pi_path(
            p,
            cwd,
            home,
            PathOptions {
                trim: true,
                ..Default::default()
            },
        );
        if !skill_paths.contains(&r) {
            skill_paths.push(r);
        }
    }
    let user_dir = join_path(agent_dir, "skills");
    let project_dir = join_path(&join_path(cwd, ".pi"), "skills");
    let under = |t: &str, root: &str| t == root || t.starts_with(&format!("{root}/"));
    let mut skills: Vec<Skill> = Vec::new();
    let add = |found: Vec<Skill>, diags: &mut Vec<Diagnostic>, skills: &mut Vec<Skill>| {
        for s in found {
            if skills.iter().any(|k| k.file_path == s.file_path) {
                continue;
            }
            if let Some(winner) = skills.iter().find(|k| k.name == s.name) {
                diags.push(
                    Diagnostic::warning(
                        &s.file_path,
                        None,
                        format!("name \"{}\" collision: {} wins", s.name, winner.file_path),
                    )
                    .skipping(format!("skill {}", s.file_path)),
                );
            } else {
                skills.push(s);
            }
        }
    };
    for p in &skill_paths {
        let source = if under(p, &user_dir) {
            "user"
        } else if under(p, &project_dir) {
            "project"
        } else {
            "path"
        };
        if fs.is_dir(p) {
            let found = load_skills_from_dir(
                fs,
                p,
                source,
                true,
                &mut IgnoreRules::default(),
                p,
                0,
                diags,
            );
            add(found, diags, &mut skills);
        } else if fs.is_file(p) {
            if p.ends_with(".md") {
                let found = load_skill_from_file(fs, p, source, diags)
                    .into_iter()
                    .collect();
                add(found, diags, &mut skills);
            } else {
                diags.push(Diagnostic::warning(
                    p,
                    None,
                    "skill path is not a markdown file",
                ));
            }
        } else {
            diags.push(Diagnostic::warning(p, None, "skill path does not exist"));
        }
    }
    skills
}

/// `stripFrontmatter(content)` (CA/utils/frontmatter.js): the body after the frontmatter,
/// trimmed (the whole normalized text when there is none). `None` when the YAML does not parse
/// (pi throws).
pub fn strip_frontmatter(content: &str) -> Option<String> {
    parse_frontmatter(content).ok()?;
    let normalized = content
        .strip_prefix('\u{FEFF}')
        .unwrap_or(content)
        .replace("\r\n", "\n")
        .replace('\r', "\n");
    let body = match normalized[..]
        .starts_with("---")
        .then(|| normalized[3..].find("\n---"))
        .flatten()
    {
        Some(e) => normalized[e + 3 + 4..].to_string(),
        None => normalized.clone(),
    };
    Some(crate::js::js_trim(&body).to_string())
}

/// `_expandSkillCommand(text)` (CA/core/agent-session.js:983–1007): `/skill:name args` becomes
/// the skill's body in a `<skill>` block, followed by the args. Unknown skills pass through.
/// Returns the skill used, if any.
pub fn expand_skill_command<'a>(
    pi: &Pi,
    text: &str,
    skills: &'a [Skill],
    fs: &VirtualFs,
) -> (String, Option<&'a Skill>) {
    let s = |k: &str| pi.data.string("agentSession", k);
    let Some(rest) = text.strip_prefix(s("skillCommandPrefix")) else {
        return (text.to_string(), None);
    };
    let (name, args) = match rest.find(' ') {
        Some(i) => (&rest[..i], crate::js::js_trim(&rest[i + 1..])),
        None => (rest, ""),
    };
    let Some(skill) = skills.iter().find(|k| k.name == name) else {
        return (text.to_string(), None);
    };
    let Some(body) = fs
        .read_to_string(&skill.file_path)
        .and_then(|c| strip_frontmatter(&c))
    else {
        return (text.to_string(), None);
    };
    let mut out = format!(
        "{}{}{}{}{}{}{}{}{}",
        s("skillBlockOpen"),
        skill.name,
        s("skillBlockLocationPrefix"),
        skill.file_path,
        s("skillBlockReferencesPrefix"),
        skill.base_dir,
        s("skillBlockBodyPrefix"),
        body,
        s("skillBlockClose")
    );
    if !args.is_empty() {
        out.push_str(s("skillArgsSeparator"));
        out.push_str(args);
    }
    (out, Some(skill))
}

/// `isLocalPath(value)` (CA/utils/paths.js:35–47).
fn is_local_path(v: &str) -> bool {
    let t = crate::js::js_trim(v);
    !["npm:", "git:", "github:", "http:", "https:", "ssh:"]
        .iter()
        .any(|p| t.starts_with(p))
}

#[cfg(test)]
#[path = "resources_tests.rs"]
mod tests;

/// A YAML subset parser for SKILL.md frontmatter: what pi's `yaml` (v2, core schema) `parse`
/// accepts in realistic frontmatter, and the errors it raises on realistic mistakes.
pub mod yaml {
    use crate::js::{Object, Value};

    /// A parse error (pi's `parseFrontmatter` throws; the skill is skipped).
    #[derive(Clone, Debug, PartialEq)]
    pub struct YamlError {
        pub line: usize,
        pub message: String,
    }

    type R<T> = Result<T, YamlError>;

    fn err<T>(line: usize, message: impl Into<String>) -> R<T> {
        Err(YamlError {
            line: line + 1,
            message: message.into(),
        })
    }

    struct Lines<'a> {
        lines: Vec<&'a str>,
    }

    fn indent_of(l: &str) -> usize {
        l.len() - l.trim_start_matches(' ').len()
    }

    fn is_blank(l: &str) -> bool {
        l.trim_matches(|c| c == ' ' || c == '\t').is_empty()
    }

    fn is_comment(l: &str) -> bool {
        l.trim_start_matches([' ', '\t']).starts_with('#')
    }

    /// `parse(text)` of the `yaml` package: a document's value (`Null` when empty).
    pub fn parse(src: &str) -> R<Value> {
        let mut lines: Vec<&str> = src.split('\n').collect();
        // A final line break ends the last line; it does not start an empty one.
        if src.ends_with('\n') {
            lines.pop();
        }
        let ls = Lines { lines };
        let mut i = 0;
        skip_insignificant(&ls, &mut i);
        if i >= ls.lines.len() {
            return Ok(Value::Null);
        }
        let first = ls.lines[i];
        let value = if split_key(first.trim_start_matches(' '), i)?.is_some()
            || first.trim_start().starts_with("- ")
            || first.trim() == "-"
        {
            let ind = indent_of(first);
            parse_block(&ls, &mut i, ind)?
        } else {
            let (v, next) = parse_value(&ls, i, first.trim_start_matches(' '), None)?;
            i = next;
            v
        };
        skip_insignificant(&ls, &mut i);
        if i < ls.lines.len() {
            return err(i, "Unexpected content after the document's value");
        }
        Ok(value)
    }

    fn skip_insignificant(ls: &Lines, i: &mut usize) {
        while *i < ls.lines.len() && (is_blank(ls.lines[*i]) || is_comment(ls.lines[*i])) {
            *i += 1;
        }
    }

    /// A block mapping or sequence whose items start at column `ind`.
    fn parse_block(ls: &Lines, i: &mut usize, ind: usize) -> R<Value> {
        let l = ls.lines[*i];
        let t = &l[ind..];
        if t.starts_with("- ") || t == "-" {
            parse_sequence(ls, i, ind)
        } else {
            parse_mapping(ls, i, ind).map(Value::Object)
        }
    }

    /// `key: rest` → (key, rest) for a line (without its indentation).
    fn split_key(t: &str, line: usize) -> R<Option<(String, String)>> {
        if t.starts_with('"') || t.starts_with('\'') {
            let q = t.as_bytes()[0] as char;
            let Some((k, after)) = quoted_single_line(t, q) else {
                return Ok(None);
            };
            let after = after.trim_start_matches(' ');
            return Ok(after
                .strip_prefix(':')
                .filter(|r| r.is_empty() || r.starts_with([' ', '\t']))
                .map(|r| (k, r.trim_start().to_string())));
        }
        let mut prev_space = false;
        for (idx, c) in t.char_indices() {
            if c == '#' && prev_space {
                return Ok(None);
            }
            if c == ':' {
                let rest = &t[idx + 1..];
                if rest.is_empty() || rest.starts_with([' ', '\t']) {
                    let key = t[..idx].trim_end().to_string();
                    if key.is_empty() {
                        return err(line, "Unsupported empty mapping key");
                    }
                    return Ok(Some((key, rest.trim_start().to_string())));
                }
            }
            prev_space = c == ' ' || c == '\t';
        }
        Ok(None)
    }

    fn quoted_single_line(t: &str, q: char) -> Option<(String, &str)> {
        let mut out = String::new();
        let mut chars = t.char_indices().skip(1).peekable();
        while let Some((idx, c)) = chars.next() {
            if c == q {
                if q == '\'' && chars.peek().is_some_and(|(_, n)| *n == '\'') {
                    chars.next();
                    out.push('\'');
                    continue;
                }
                return Some((out, &t[idx + 1..]));
            }
            if q == '"' && c == '\\' {
                let (_, e) = chars.next()?;
                out.push(match e {
                    'n' => '\n',
                    't' => '\t',
                    other => other,
                });
                continue;
            }
            out.push(c);
        }
        None
    }

    fn parse_mapping(ls: &Lines, i: &mut usize, ind: usize) -> R<Object> {
        let mut obj = Object::new();
        loop {
            skip_insignificant(ls, i);
            if *i >= ls.lines.len() {
                break;
            }
            let l = ls.lines[*i];
            if l[..indent_of(l)].len() < l.len() && l[indent_of(l)..].starts_with('\t') {
                return err(*i, "Tabs are not allowed as indentation");
            }
            let li = indent_of(l);
            if li < ind {
                break;
            }
            if li > ind {
                return err(*i, "All mapping items must start at the same column");
            }
            let t = &l[ind..];
            if t.starts_with("- ") || t == "-" {
                if ind == 0 && obj.is_empty() {
                    return err(
                        *i,
                        "A block sequence may not be used as an implicit map key",
                    );
                }
                break;
            }
            let Some((key, rest)) = split_key(t, *i)? else {
                return err(*i, "Implicit map keys need to be followed by map values");
            };
            if obj.contains_key(&key) {
                return err(*i, "Map keys must be unique");
            }
            let (v, next) = parse_value(ls, *i, &rest, Some(ind))?;
            *i = next;
            obj.insert(key, v);
        }
        Ok(obj)
    }

    fn parse_sequence(ls: &Lines, i: &mut usize, ind: usize) -> R<Value> {
        let mut items = Vec::new();
        loop {
            skip_insignificant(ls, i);
            if *i >= ls.lines.len() {
                break;
            }
            let l = ls.lines[*i];
            let li = indent_of(l);
            if li < ind {
                break;
            }
            let t = &l[li..];
            if li > ind || !(t.starts_with("- ") || t == "-") {
                if li == ind {
                    break;
                }
                return err(*i, "All sequence items must start at the same column");
            }
            let rest = t[1..].trim_start_matches(' ');
            let item_col = li + (t.len() - rest.len());
            if split_key(rest, *i)?.is_some() {
                // `- key: value` and the lines indented like `key` below it: one mapping.
                let mut sub: Vec<&str> = vec![];
                let owned = format!("{}{}", " ".repeat(item_col), rest);
                let mut j = *i + 1;
                while j < ls.lines.len()
                    && (is_blank(ls.lines[j]) || indent_of(ls.lines[j]) >= item_col)
                {
                    j += 1;
                }
                sub.push(&owned);
                sub.extend(ls.lines[*i + 1..j].iter().copied());
                let sls = Lines { lines: sub };
                let mut k = 0;
                items.push(Value::Object(parse_mapping(&sls, &mut k, item_col)?));
                if k < sls.lines.len() {
                    return err(*i + k, "Unexpected content in a sequence item");
                }
                *i = j;
            } else {
                let (v, next) = parse_value(ls, *i, rest, Some(li))?;
                items.push(v);
                *i = next;
            }
        }
        Ok(Value::Array(items))
    }

    /// The value that starts with `rest` on line `i`, for a key (or item) at column `parent`
    /// (`None` at the document level). Returns the value and the next line to read.
    fn parse_value(ls: &Lines, i: usize, rest: &str, parent: Option<usize>) -> R<(Value, usize)> {
        let p = parent.map_or(-1, |x| x as i64);
        let more_indented = |l: &str| indent_of(l) as i64 > p;
        let rest = rest.trim_end_matches([' ', '\t']);
        // Anchors and tags in front of a value.
        let mut rest = rest;
        let mut force_string = false;
        loop {
            if let Some(r) = rest.strip_prefix('&') {
                rest = r.split_once(' ').map_or("", |(_, v)| v).trim_start();
            } else if let Some(r) = rest.strip_prefix("!!str") {
                force_string = true;
                rest = r.trim_start();
            } else if rest.starts_with('!') {
                return err(i, "Unsupported YAML tag");
            } else {
                break;
            }
        }
        if rest.is_empty() || rest.starts_with('#') {
            let mut j = i + 1;
            skip_insignificant(ls, &mut j);
            if j < ls.lines.len() {
                let l = ls.lines[j];
                let li = indent_of(l) as i64;
                let t = l.trim_start_matches(' ');
                let is_seq = t.starts_with("- ") || t == "-";
                if li > p || (is_seq && li == p && parent.is_some()) {
                    if split_key(t, j)?.is_some() || is_seq {
                        let v = parse_block(ls, &mut j, li as usize)?;
                        return Ok((v, j));
                    }
                    return parse_plain(ls, j, t, parent, force_string);
                }
            }
            return Ok((
                if force_string {
                    Value::str("")
                } else {
                    Value::Null
                },
                i + 1,
            ));
        }
        let c = rest.as_bytes()[0];
        match c {
            b'|' | b'>' => parse_block_scalar(ls, i, rest, parent),
            b'"' | b'\'' => parse_quoted(ls, i, rest, c as char, &more_indented),
            b'[' | b'{' => parse_flow_value(ls, i, rest, &more_indented),
            b'@' | b'`' => err(
                i,
                format!(
                    "Plain value cannot start with reserved character {}",
                    c as char
                ),
            ),
            b'%' => err(
                i,
                "Plain value cannot start with directive indicator character %",
            ),
            b'*' => err(i, "Unresolved alias (aliases are not supported)"),
            b']' | b'}' | b',' => err(i, format!("Unexpected flow indicator {}", c as char)),
            b'-' | b'?' | b':' if rest.len() == 1 || rest.as_bytes()[1] == b' ' => err(
                i,
                "Nested mappings or sequences are not allowed in compact mappings",
            ),
            _ => parse_plain(ls, i, rest, parent, force_string),
        }
    }

    /// A plain scalar, folded over continuation lines indented deeper than `parent`.
    fn parse_plain(
        ls: &Lines,
        i: usize,
        first: &str,
        parent: Option<usize>,
        force_string: bool,
    ) -> R<(Value, usize)> {
        let p = parent.map_or(-1, |x| x as i64);
        let mut text = strip_comment(first, i)?;
        let mut j = i + 1;
        let mut pending_blank = 0;
        while j < ls.lines.len() {
            let l = ls.lines[j];
            if is_blank(l) {
                pending_blank += 1;
                j += 1;
                continue;
            }
            if (indent_of(l) as i64) <= p || is_comment(l) {
                break;
            }
            let piece = strip_comment(l.trim_start_matches([' ', '\t']), j)?;
            if pending_blank > 0 {
                text.push_str(&"\n".repeat(pending_blank));
            } else {
                text.push(' ');
            }
            pending_blank = 0;
            text.push_str(&piece);
            j += 1;
        }
        // Trailing blank lines belong to nobody: step back over them.
        while j > i + 1 && is_blank(ls.lines[j - 1]) {
            j -= 1;
        }
        Ok((
            if force_string {
                Value::String(text.into())
            } else {
                resolve_plain(&text)
            },
            j,
        ))
    }

    /// The text of a plain scalar line up to a ` #` comment, trimmed; `: ` inside is an error.
    fn strip_comment(t: &str, line: usize) -> R<String> {
        let mut end = t.len();
        let mut prev_ws = false;
        for (idx, c) in t.char_indices() {
            if c == '#' && prev_ws {
                end = idx;
                break;
            }
            prev_ws = c == ' ' || c == '\t';
        }
        let s = t[..end].trim_end_matches([' ', '\t']);
        if s.contains(": ") || s.contains(":\t") || s.ends_with(':') {
            return err(line, "Nested mappings are not allowed in compact mappings");
        }
        Ok(s.to_string())
    }

    /// Core-schema resolution of a plain scalar (null, booleans, numbers, else a string).
    fn resolve_plain(s: &str) -> Value {
        match s {
            "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
            "true" | "True" | "TRUE" => return Value::Bool(true),
            "false" | "False" | "FALSE" => return Value::Bool(false),
            ".nan" | ".NaN" | ".NAN" => return Value::Number(f64::NAN),
            _ => {}
        }
        let unsigned = s.strip_prefix(['-', '+']).unwrap_or(s);
        let neg = s.starts_with('-');
        if matches!(unsigned, ".inf" | ".Inf" | ".INF") {
            return Value::Number(if neg {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            });
        }
        if let Some(h) = s.strip_prefix("0x") {
            if !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()) {
                return Value::Number(
                    u128::from_str_radix(h, 16).map_or(f64::INFINITY, |v| v as f64),
                );
            }
        }
        if let Some(o) = s.strip_prefix("0o") {
            if !o.is_empty() && o.chars().all(|c| ('0'..='7').contains(&c)) {
                return Value::Number(
                    u128::from_str_radix(o, 8).map_or(f64::INFINITY, |v| v as f64),
                );
            }
        }
        let is_num = {
            let b = unsigned.as_bytes();
            let mut k = 0;
            let int_digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
            k += int_digits;
            let mut frac_digits = 0;
            if b.get(k) == Some(&b'.') {
                k += 1;
                frac_digits = b[k..].iter().take_while(|c| c.is_ascii_digit()).count();
                k += frac_digits;
            }
            let mut ok = int_digits > 0 || frac_digits > 0;
            if ok && matches!(b.get(k), Some(b'e' | b'E')) {
                k += 1;
                if matches!(b.get(k), Some(b'+' | b'-')) {
                    k += 1;
                }
                let e = b[k..].iter().take_while(|c| c.is_ascii_digit()).count();
                ok = e > 0;
                k += e;
            }
            ok && k == b.len()
        };
        if is_num {
            if let Ok(v) = s.parse::<f64>() {
                return Value::Number(v);
            }
        }
        Value::String(s.to_string().into())
    }

    /// A `|` or `>` block scalar with its chomping and indentation indicators.
    fn parse_block_scalar(
        ls: &Lines,
        i: usize,
        header: &str,
        parent: Option<usize>,
    ) -> R<(Value, usize)> {
        let folded = header.starts_with('>');
        let mut chomp = 'c';
        let mut explicit: Option<usize> = None;
        for c in header[1..].chars() {
            match c {
                '-' | '+' => chomp = c,
                '1'..='9' => explicit = c.to_digit(10).map(|d| d as usize),
                ' ' | '\t' => break,
                _ => return err(i, "Invalid block scalar header"),
            }
        }
        if let Some((_, after)) = header.split_once([' ', '\t']) {
            if !after.trim().is_empty() && !after.trim_start().starts_with('#') {
                return err(i, "Unexpected content after a block scalar header");
            }
        }
        let p = parent.map_or(0, |x| x + 1);
        let mut j = i + 1;
        let mut content_indent = explicit.map(|e| parent.map_or(0, |x| x) + e);
        let mut lines: Vec<&str> = Vec::new();
        while j < ls.lines.len() {
            let l = ls.lines[j];
            if is_blank(l) {
                lines.push("");
                j += 1;
                continue;
            }
            let li = indent_of(l);
            if li < p {
                break;
            }
            let ci = *content_indent.get_or_insert(li);
            if li < ci {
                return err(j, "All mapping items must start at the same column");
            }
            lines.push(&l[ci..]);
            j += 1;
        }
        // Blank lines at the end: kept for chomping, but the next item starts after them.
        let mut trailing = 0;
        while lines.last() == Some(&"") {
            lines.pop();
            trailing += 1;
        }
        let mut text = String::new();
        if folded {
            let mut prev: Option<&str> = None;
            let mut blanks = 0;
            for l in &lines {
                if l.is_empty() {
                    blanks += 1;
                    continue;
                }
                match prev {
                    None => text.push_str(&"\n".repeat(blanks)),
                    Some(pl) => {
                        let more = |s: &str| s.starts_with([' ', '\t']);
                        if more(pl) || more(l) {
                            text.push_str(&"\n".repeat(blanks + 1));
                        } else if blanks > 0 {
                            text.push_str(&"\n".repeat(blanks));
                        } else {
                            text.push(' ');
                        }
                    }
                }
                blanks = 0;
                text.push_str(l);
                prev = Some(l);
            }
        } else {
            text = lines.join("\n");
        }
        let has_content = !lines.is_empty();
        match chomp {
            '-' => {}
            '+' => {
                if has_content {
                    text.push('\n');
                }
                text.push_str(&"\n".repeat(trailing));
            }
            _ => {
                if has_content {
                    text.push('\n');
                }
            }
        }
        Ok((Value::String(text.into()), j))
    }

    /// A single- or double-quoted scalar, possibly over several lines (folded).
    fn parse_quoted(
        ls: &Lines,
        i: usize,
        rest: &str,
        q: char,
        more_indented: &dyn Fn(&str) -> bool,
    ) -> R<(Value, usize)> {
        let mut out = String::new();
        let mut j = i;
        let mut cur: String = rest[1..].to_string();
        loop {
            let mut chars = cur.char_indices().peekable();
            let mut closed: Option<usize> = None;
            let mut escaped_break = false;
            while let Some((idx, c)) = chars.next() {
                if c == q {
                    if q == '\'' && chars.peek().is_some_and(|(_, n)| *n == '\'') {
                        chars.next();
                        out.push('\'');
                        continue;
                    }
                    closed = Some(idx + 1);
                    break;
                }
                if q == '"' && c == '\\' {
                    let Some((_, e)) = chars.next() else {
                        escaped_break = true;
                        break;
                    };
                    let simple = match e {
                        '0' => Some('\0'),
                        'a' => Some('\u{7}'),
                        'b' => Some('\u{8}'),
                        't' | '\t' => Some('\t'),
                        'n' => Some('\n'),
                        'v' => Some('\u{b}'),
                        'f' => Some('\u{c}'),
                        'r' => Some('\r'),
                        'e' => Some('\u{1b}'),
                        ' ' => Some(' '),
                        '"' => Some('"'),
                        '/' => Some('/'),
                        '\\' => Some('\\'),
                        'N' => Some('\u{85}'),
                        '_' => Some('\u{a0}'),
                        'L' => Some('\u{2028}'),
                        'P' => Some('\u{2029}'),
                        _ => None,
                    };
                    if let Some(s) = simple {
                        out.push(s);
                        continue;
                    }
                    let n = match e {
                        'x' => 2,
                        'u' => 4,
                        'U' => 8,
                        _ => return err(j, format!("Invalid escape sequence \\{e}")),
                    };
                    let hex: String = (0..n)
                        .filter_map(|_| chars.next().map(|(_, h)| h))
                        .collect();
                    match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                        Some(ch) if hex.len() == n => out.push(ch),
                        _ => return err(j, format!("Invalid escape sequence \\{e}{hex}")),
                    }
                    continue;
                }
                out.push(c);
            }
            if let Some(end) = closed {
                let after = cur[end..].trim_start_matches([' ', '\t']);
                if !after.is_empty() && !after.starts_with('#') {
                    return err(j, "Unexpected scalar at node end");
                }
                return Ok((Value::String(out.into()), j + 1));
            }
            // Line break inside the quotes: fold.
            if !escaped_break {
                let trimmed = out.trim_end_matches([' ', '\t']).len();
                out.truncate(trimmed);
            }
            j += 1;
            let mut blanks = 0;
            while j < ls.lines.len() && is_blank(ls.lines[j]) {
                blanks += 1;
                j += 1;
            }
            if j >= ls.lines.len() {
                return err(i, "Missing closing quote");
            }
            if !more_indented(ls.lines[j]) && !ls.lines[j].trim_start().starts_with(q) {
                return err(
                    j,
                    "Missing closing quote (continuation lines must be indented)",
                );
            }
            if blanks > 0 {
                out.push_str(&"\n".repeat(blanks));
            } else if !escaped_break {
                out.push(' ');
            }
            cur = ls.lines[j].trim_start_matches([' ', '\t']).to_string();
        }
    }

    /// A flow sequence or mapping (`[a, b]`, `{k: v}`), possibly over several lines.
    fn parse_flow_value(
        ls: &Lines,
        i: usize,
        rest: &str,
        more_indented: &dyn Fn(&str) -> bool,
    ) -> R<(Value, usize)> {
        let mut text = rest.to_string();
        let mut j = i + 1;
        loop {
            let mut p = FlowParser {
                s: text.chars().collect(),
                k: 0,
                line: i,
            };
            match p.value() {
                Ok(v) => {
                    p.ws();
                    let after: String = p.s[p.k..].iter().collect();
                    let after = after.trim_start();
                    if !after.is_empty() && !after.starts_with('#') {
                        return err(i, "Unexpected content after a flow collection");
                    }
                    return Ok((v, j));
                }
                Err(e)
                    if e.message == "eof"
                        && j < ls.lines.len()
                        && (is_blank(ls.lines[j]) || more_indented(ls.lines[j])) =>
                {
                    text.push(' ');
                    text.push_str(ls.lines[j].trim());
                    j += 1;
                }
                Err(e) if e.message == "eof" => {
                    return err(i, "Flow collection must end with ] or }")
                }
                Err(e) => return Err(e),
            }
        }
    }

    struct FlowParser {
        s: Vec<char>,
        k: usize,
        line: usize,
    }

    impl FlowParser {
        fn ws(&mut self) {
            while self.k < self.s.len() && (self.s[self.k] == ' ' || self.s[self.k] == '\t') {
                self.k += 1;
            }
        }
        fn eof<T>(&self) -> R<T> {
            Err(YamlError {
                line: self.line + 1,
                message: "eof".into(),
            })
        }
        fn value(&mut self) -> R<Value> {
            self.ws();
            match self.s.get(self.k) {
                None => self.eof(),
                Some('[') => {
                    self.k += 1;
                    let mut items = Vec::new();
                    loop {
                        self.ws();
                        match self.s.get(self.k) {
                            None => return self.eof(),
                            Some(']') => {
                                self.k += 1;
                                return Ok(Value::Array(items));
                            }
                            _ => {}
                        }
                        items.push(self.value()?);
                        self.ws();
                        match self.s.get(self.k) {
                            Some(',') => self.k += 1,
                            Some(']') => {}
                            None => return self.eof(),
                            Some(_) => {
                                return err(self.line, "Unexpected character in a flow sequence")
                            }
                        }
                    }
                }
                Some('{') => {
                    self.k += 1;
                    let mut obj = Object::new();
                    loop {
                        self.ws();
                        match self.s.get(self.k) {
                            None => return self.eof(),
                            Some('}') => {
                                self.k += 1;
                                return Ok(Value::Object(obj));
                            }
                            _ => {}
                        }
                        let key = match self.value()? {
                            Value::String(s) => s,
                            Value::Null => String::new().into(),
                            other => other.to_json().into(),
                        };
                        self.ws();
                        let v = if self.s.get(self.k) == Some(&':') {
                            self.k += 1;
                            self.value()?
                        } else {
                            Value::Null
                        };
                        if obj.contains_key(&key) {
                            return err(self.line, "Map keys must be unique");
                        }
                        obj.insert(key, v);
                        self.ws();
                        match self.s.get(self.k) {
                            Some(',') => self.k += 1,
                            Some('}') => {}
                            None => return self.eof(),
                            Some(_) => {
                                return err(self.line, "Unexpected character in a flow mapping")
                            }
                        }
                    }
                }
                Some(&q @ ('"' | '\'')) => {
                    self.k += 1;
                    let mut out = String::new();
                    loop {
                        match self.s.get(self.k) {
                            None => return self.eof(),
                            Some(&c) if c == q => {
                                if q == '\'' && self.s.get(self.k + 1) == Some(&'\'') {
                                    out.push('\'');
                                    self.k += 2;
                                    continue;
                                }
                                self.k += 1;
                                return Ok(Value::String(out.into()));
                            }
                            Some('\\') if q == '"' => {
                                let e = self.s.get(self.k + 1).copied().unwrap_or('\\');
                                out.push(match e {
                                    'n' => '\n',
                                    't' => '\t',
                                    o => o,
                                });
                                self.k += 2;
                            }
                            Some(&c) => {
                                out.push(c);
                                self.k += 1;
                            }
                        }
                    }
                }
                Some(_) => {
                    let start = self.k;
                    while let Some(&c) = self.s.get(self.k) {
                        if matches!(c, ',' | ']' | '}')
                            || (c == ':'
                                && self
                                    .s
                                    .get(self.k + 1)
                                    .is_none_or(|n| matches!(n, ' ' | ',' | ']' | '}')))
                        {
                            break;
                        }
                        self.k += 1;
                    }
                    let t: String = self.s[start..self.k].iter().collect();
                    Ok(resolve_plain(t.trim()))
                }
            }
        }
    }
}

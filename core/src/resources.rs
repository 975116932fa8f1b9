//! What pi reads around the working directory and in the agent dir: context files (AGENTS.md,
//! CLAUDE.md, ...), skills, SYSTEM.md / APPEND_SYSTEM.md
//! (pi-coding-agent `dist/core/resource-loader.js`, `dist/core/skills.js`,
//! `dist/core/package-manager.js`, `dist/utils/frontmatter.js`).

use crate::args::PiArgs;
use crate::diagnostics::Diagnostic;
use crate::ignore::IgnoreRules;
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
    /// Other candidates in the same directory that lost to this one.
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
    /// The pi package that brought it (its settings `source`), if any.
    pub package: Option<String>,
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
    /// The prompt templates a `/name` prompt can call (not part of the system prompt).
    pub prompt_templates: Vec<crate::prompt_templates::PromptTemplate>,
    /// The settings' pi packages, as resolved ([`crate::packages`]).
    pub packages: Vec<crate::packages::Package>,
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
    env: &std::collections::BTreeMap<String, String>,
    npm_global_root: Option<&str>,
    diags: &mut Vec<Diagnostic>,
) -> Resources {
    let cwd = normalize_path(cwd);
    let agent_dir = normalize_path(agent_dir);
    // Packages resolve first (`DefaultPackageManager.resolve`), so their paths hold their places.
    let pkgs = crate::packages::Resolver {
        pi,
        fs,
        home,
        agent_dir: &agent_dir,
        cwd: &cwd,
        process_cwd,
        offline: args.offline || crate::packages::offline(env),
        npm_global_root: crate::packages::npm_global_root(npm_global_root, env).as_deref(),
    }
    .resolve(settings, &args.extensions, diags);
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
        &pkgs,
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
    let prompt_templates = crate::prompt_templates::load_prompt_templates(
        fs,
        home,
        &agent_dir,
        &cwd,
        process_cwd,
        args,
        settings,
        &pkgs,
        diags,
    );
    Resources {
        context_files,
        skills,
        custom_prompt,
        append_prompts,
        prompt_templates,
        packages: pkgs.packages,
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

fn rel_path(root: &str, path: &str) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .trim_start_matches('/')
        .to_string()
}

/// `collectSkillEntries(dir, mode)` (CA/core/package-manager.js:183–248): a directory with a
/// `SKILL.md` yields only that file; otherwise `.md` files (at the root in `pi` mode, below it in
/// `agents` mode) and the entries of subdirectories (dot entries and node_modules skipped).
pub(crate) fn collect_skill_entries(
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
/// YAML between a leading `---` and the next `\n---` (`normalized.slice(4, endIndex)`: the one
/// UTF-16 unit after `---` is dropped, whatever it is); `parse(yaml) ?? {}` ([`crate::yaml`]).
pub fn parse_frontmatter(content: &str) -> Result<Value, crate::yaml::YamlError> {
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
    // Byte 3 starts a character (`---` is ASCII); `end` is a byte offset past it.
    let mut chars = normalized[3..end].chars();
    let yaml_string = match chars.next() {
        None => String::new(),
        // A character outside the BMP is two UTF-16 units: `slice(4)` keeps its low surrogate,
        // alone (stored as ctxlens stores lone surrogates).
        Some(c) if c.len_utf16() == 2 && crate::js::is_lone_surrogate_char(c).is_none() => {
            let low = 0xDC00 + ((c as u32 - 0x10000) & 0x3FF);
            let lone = char::from_u32(crate::js::LONE_SURROGATE_BASE + (low - 0xD800));
            lone.into_iter().chain(chars).collect()
        }
        Some(_) => chars.as_str().to_string(),
    };
    if yaml_string.is_empty() {
        return Ok(Value::object());
    }
    Ok(match crate::yaml::parse(&yaml_string)? {
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

/// The 1-based line of `key:` at the start of a line of the frontmatter (between the opening
/// `---` and the closing one).
fn frontmatter_line(text: &str, key: &str) -> Option<u32> {
    let mut lines = text.lines().enumerate();
    let (_, first) = lines.next()?;
    if first.trim_end() != "---" {
        return None;
    }
    lines
        .take_while(|(_, l)| l.trim_end() != "---")
        .find(|(_, l)| {
            l.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with(':'))
        })
        .map(|(i, _)| i as u32 + 1)
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
    // The line of a frontmatter key, else the frontmatter's first line.
    let at = |key: &str| Some(frontmatter_line(&raw, key).unwrap_or(1));
    match description {
        Some(Value::String(d)) if !crate::js::js_trim_is_empty(d) => {
            let len = crate::js::utf16_len(d);
            if len > 1024 {
                diags.push(Diagnostic::warning(
                    path,
                    at("description"),
                    format!("description exceeds 1024 characters ({len})"),
                ));
            }
        }
        _ => diags.push(
            Diagnostic::warning(path, at("description"), "description is required")
                .skipping(format!("skill {path}")),
        ),
    }
    let name = match fm.get("name") {
        Some(Value::String(n)) if !n.is_empty() => n.clone(),
        _ => basename(&skill_dir).to_string().into(),
    };
    for e in validate_name(&name) {
        diags.push(Diagnostic::warning(path, at("name"), e));
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
        package: None,
    })
}

/// The resources `DefaultPackageManager.resolve()` collects for one type (skills, prompts), each
/// with its precedence rank (`resourcePrecedenceRank`, CA/core/package-manager.js:61–66): the
/// first path wins, then a stable sort by rank.
#[derive(Default)]
pub(crate) struct RankedPaths(Vec<(String, u8, bool)>);

/// `resourcePrecedenceRank` of a package resource (`origin: "package"`): after the user's own.
const PACKAGE_RANK: u8 = 4;

impl RankedPaths {
    /// `addResource(map, path, metadata, enabled)`: the first entry of a path keeps its place,
    /// even a disabled one.
    pub(crate) fn add_with(&mut self, path: String, rank: u8, enabled: bool) {
        if !self.0.iter().any(|e| e.0 == path) {
            self.0.push((path, rank, enabled));
        }
    }

    /// The packages' paths (resolved before anything else, rank 4).
    pub(crate) fn add_packages(&mut self, paths: &[crate::packages::PackagePath]) {
        for p in paths {
            self.add_with(p.path.clone(), PACKAGE_RANK, p.enabled);
        }
    }

    /// The enabled paths, stably sorted by rank.
    pub(crate) fn into_sorted(mut self) -> Vec<String> {
        self.0.sort_by_key(|e| e.1);
        self.0.into_iter().filter(|e| e.2).map(|e| e.0).collect()
    }

    /// The settings entries of resource type `key` (`skills`, `prompts`; `resolveLocalEntries`,
    /// CA/core/package-manager.js:1925): the project's (rank 0, relative to `.pi`), then the
    /// global ones (rank 2, relative to the agent dir); a file as it is, a folder through `walk`;
    /// the pattern entries (`!`, `+`, `-`, globs) say which of those files are on
    /// (`applyPatterns`, relative to the settings file's folder).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn add_settings_entries(
        &mut self,
        fs: &VirtualFs,
        home: &str,
        agent_dir: &str,
        cwd: &str,
        settings: &Settings,
        key: &str,
        normalized: bool,
        walk: &dyn Fn(&str) -> Vec<String>,
    ) {
        let project_base = join_path(cwd, ".pi");
        let trim = PathOptions {
            trim: true,
            ..Default::default()
        };
        for (scope, base, rank) in [
            (&settings.project, project_base, 0u8),
            (&settings.global, agent_dir.to_string(), 2u8),
        ] {
            let (patterns, plain): (Vec<String>, Vec<String>) = strings_of(scope.get(key))
                .into_iter()
                .partition(|e| crate::packages::is_pattern(e));
            let mut all = Vec::new();
            for e in plain {
                let p = resolve_pi_path(&e, &base, home, trim);
                if fs.is_file(&p) {
                    all.push(p);
                } else if fs.is_dir(&p) {
                    all.extend(walk(&p));
                }
            }
            let on = crate::packages::Ctx::new(fs, &base, home, normalized)
                .apply_patterns(&all, &patterns);
            for f in all {
                let enabled = on.contains(&f);
                self.add_with(f, rank, enabled);
            }
        }
    }

    /// Auto-discovered paths (`addAutoDiscoveredResources`, CA/core/package-manager.js:1939):
    /// each on unless its settings file's override patterns (`!`, `+path`, `-path`, relative to
    /// `base`) turn it off (`isEnabledByOverrides`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn add_auto(
        &mut self,
        fs: &VirtualFs,
        home: &str,
        paths: Vec<String>,
        rank: u8,
        base: &str,
        overrides: &[String],
        normalized: bool,
    ) {
        let ctx = crate::packages::Ctx::new(fs, base, home, normalized);
        for p in paths {
            let on = ctx.enabled_by_overrides(&p, overrides);
            self.add_with(p, rank, on);
        }
    }
}

/// `DefaultPackageManager.resolve()` for skills (CA/core/package-manager.js:698–731, 1939–2019):
/// the packages' skills first ([`crate::packages`], rank 4: a filtered-out one still holds its
/// path), then settings entries (project, then global) and auto-discovered directories (project `.pi/skills`
/// and `.agents/skills` up to the git root when trusted, `<agentDir>/skills`, `~/.agents/skills`),
/// first path wins (a path turned off by a pattern still holds its place), stably sorted by rank.
fn resolve_skill_resources(
    fs: &VirtualFs,
    home: &str,
    agent_dir: &str,
    cwd: &str,
    settings: &Settings,
    pkgs: &crate::packages::PackageResources,
) -> Vec<String> {
    let walk = |d: &str, agents: bool| {
        collect_skill_entries(fs, d, agents, &mut IgnoreRules::default(), d, 0)
    };
    let n = pkgs.patterns_normalized;
    let mut acc = RankedPaths::default();
    acc.add_packages(&pkgs.skills);
    acc.add_settings_entries(fs, home, agent_dir, cwd, settings, "skills", n, &|d| {
        walk(d, false)
    });
    let project = strings_of(settings.project.get("skills"));
    let user = strings_of(settings.global.get("skills"));
    let user_agents = join_path(home, ".agents/skills");
    if settings.project_trusted {
        let base = join_path(cwd, ".pi");
        let found = walk(&join_path(cwd, ".pi/skills"), false);
        acc.add_auto(fs, home, found, 1, &base, &project, n);
        for d in collect_ancestor_agents_skill_dirs(fs, cwd)
            .into_iter()
            .filter(|d| *d != user_agents)
        {
            acc.add_auto(fs, home, walk(&d, true), 1, &dirname(&d), &project, n);
        }
    }
    let found = walk(&join_path(agent_dir, "skills"), false);
    acc.add_auto(fs, home, found, 3, agent_dir, &user, n);
    let found = walk(&user_agents, true);
    acc.add_auto(fs, home, found, 3, &dirname(&user_agents), &user, n);
    acc.into_sorted()
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

/// `mergePaths(primary, additional)` (CA/core/resource-loader.js:607): both lists resolved
/// against the cwd (trimmed), the first of equal paths kept.
pub(crate) fn merge_paths(
    primary: &[String],
    additional: &[String],
    cwd: &str,
    home: &str,
) -> Vec<String> {
    let trim = PathOptions {
        trim: true,
        ..Default::default()
    };
    let mut out: Vec<String> = Vec::new();
    for p in primary.iter().chain(additional) {
        let r = resolve_pi_path(p, cwd, home, trim);
        if !out.contains(&r) {
            out.push(r);
        }
    }
    out
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
    pkgs: &crate::packages::PackageResources,
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
    // The `-e` packages' skills come first, and load even with `--no-skills`.
    let mut primary = crate::packages::PackageResources::enabled(&pkgs.cli_skills);
    if !args.no_skills {
        primary.extend(resolve_skill_resources(
            fs, home, agent_dir, cwd, settings, pkgs,
        ));
    }
    if primary.is_empty() && cli.is_empty() {
        return Vec::new();
    }
    let skill_paths = merge_paths(&primary, &cli, cwd, home);
    let user_dir = join_path(agent_dir, "skills");
    let project_dir = join_path(&join_path(cwd, ".pi"), "skills");
    let under = |t: &str, root: &str| t == root || t.starts_with(&format!("{root}/"));
    let mut skills: Vec<Skill> = Vec::new();
    let add = |found: Vec<Skill>, diags: &mut Vec<Diagnostic>, skills: &mut Vec<Skill>| {
        for mut s in found {
            s.package = pkgs.package_of(&s.file_path).map(String::from);
            if skills.iter().any(|k| k.file_path == s.file_path) {
                continue;
            }
            if let Some(winner) = skills.iter().find(|k| k.name == s.name) {
                diags.push(
                    Diagnostic::warning(
                        &s.file_path,
                        None,
                        format!(
                            "name \"{}\" collision: {} wins{}",
                            s.name,
                            winner.file_path,
                            s.package.as_deref().map_or(String::new(), |p| format!(
                                " (this skill of package {p} loses: a package's skills come after the user's own)"
                            ))
                        ),
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

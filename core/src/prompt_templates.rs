//! Prompt templates: `/name args` in a prompt becomes the template file's content with its
//! arguments substituted (pi-coding-agent `dist/core/prompt-templates.js`, the `prompts`
//! resources of `dist/core/package-manager.js` and `dist/core/resource-loader.js`). pi expands
//! them in every mode (`AgentSession.prompt`, CA/core/agent-session.js:853–858, after the
//! `/skill:` expansion), print mode included.

use crate::args::PiArgs;
use crate::diagnostics::Diagnostic;
use crate::ignore::IgnoreRules;
use crate::inputs::VirtualFs;
use crate::js::is_js_whitespace;
use crate::js::path::{basename, join_path};
use crate::packages::PackageResources;
use crate::paths::{resolve_pi_path, PathOptions};
use crate::pi::{Pi, PromptTemplateArgs};
use crate::resources::{merge_paths, parse_frontmatter, RankedPaths};
use crate::settings::Settings;

/// A prompt template as pi loads it (`loadTemplateFromFile`).
#[derive(Clone, Debug, PartialEq)]
pub struct PromptTemplate {
    /// The file name without `.md`: the `/name` that calls it.
    pub name: String,
    /// The body after the frontmatter (trimmed when there is frontmatter, as pi does).
    pub content: String,
    pub file_path: String,
    /// The pi package that brought it (its settings `source`), if any.
    pub package: Option<String>,
}

fn exists(fs: &VirtualFs, p: &str) -> bool {
    fs.is_file(p) || fs.is_dir(p)
}

fn rel_path(root: &str, path: &str) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .trim_start_matches('/')
        .to_string()
}

/// `collectFiles(dir, /\.md$/)` (CA/core/package-manager.js:159): `.md` files below `dir`, dot
/// entries and node_modules skipped, ignore files honoured. A settings entry's folder.
pub(crate) fn collect_files(
    fs: &VirtualFs,
    dir: &str,
    ig: &mut IgnoreRules,
    root: &str,
    depth: usize,
) -> Vec<String> {
    let mut files = Vec::new();
    if depth > 64 || !fs.is_dir(dir) {
        return files;
    }
    ig.add_dir(fs, dir, root);
    for (name, is_dir) in fs.read_dir(dir) {
        if name.starts_with('.') || name == "node_modules" {
            continue;
        }
        let full = join_path(dir, &name);
        let rel = rel_path(root, &full);
        if ig.ignores(&if is_dir { format!("{rel}/") } else { rel }) {
            continue;
        }
        if is_dir {
            files.extend(collect_files(fs, &full, ig, root, depth + 1));
        } else if name.ends_with(".md") {
            files.push(full);
        }
    }
    files
}

/// `collectAutoPromptEntries(dir)` (CA/core/package-manager.js:305): the `.md` files directly
/// in `dir` (not below), dot entries and node_modules skipped, ignore files honoured.
fn collect_auto_prompt_entries(fs: &VirtualFs, dir: &str) -> Vec<String> {
    let mut entries = Vec::new();
    if !fs.is_dir(dir) {
        return entries;
    }
    let mut ig = IgnoreRules::default();
    ig.add_dir(fs, dir, dir);
    for (name, is_dir) in fs.read_dir(dir) {
        if name.starts_with('.') || name == "node_modules" || is_dir {
            continue;
        }
        let full = join_path(dir, &name);
        if !ig.ignores(&rel_path(dir, &full)) && name.ends_with(".md") {
            entries.push(full);
        }
    }
    entries
}

/// `DefaultPackageManager.resolve()` for prompts (CA/core/package-manager.js:698–731,
/// 1939–2019): the packages' templates first ([`crate::packages`], rank 4), then settings
/// entries (project rank 0, global rank 2: a file as is, a folder's `.md`
/// files at any depth), the project's `.pi/prompts` (rank 1, when the project is trusted) and
/// `<agentDir>/prompts` (rank 3); first path wins, stably sorted by rank. So a project template
/// shadows an agent one of the same name. Pattern entries turn files off (or back on).
fn resolve_prompt_resources(
    fs: &VirtualFs,
    home: &str,
    agent_dir: &str,
    cwd: &str,
    settings: &Settings,
    pkgs: &PackageResources,
) -> Vec<String> {
    let n = pkgs.patterns_normalized;
    let mut acc = RankedPaths::default();
    acc.add_packages(&pkgs.prompts);
    acc.add_settings_entries(fs, home, agent_dir, cwd, settings, "prompts", n, &|d| {
        collect_files(fs, d, &mut IgnoreRules::default(), d, 0)
    });
    let overrides = |o: &crate::js::Object| {
        o.get("prompts")
            .and_then(crate::js::Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    };
    if settings.project_trusted {
        let found = collect_auto_prompt_entries(fs, &join_path(cwd, ".pi/prompts"));
        let base = join_path(cwd, ".pi");
        acc.add_auto(fs, home, found, 1, &base, &overrides(&settings.project), n);
    }
    let found = collect_auto_prompt_entries(fs, &join_path(agent_dir, "prompts"));
    acc.add_auto(
        fs,
        home,
        found,
        3,
        agent_dir,
        &overrides(&settings.global),
        n,
    );
    acc.into_sorted()
}

/// `loadTemplateFromFile(filePath)` (CA/core/prompt-templates.js:81): the name is the file name
/// without `.md`, the content the body after the frontmatter. A file whose frontmatter does not
/// parse is skipped (0.85 silently, 1.6.0 with a diagnostic; ctxlens says it in both).
fn load_template_from_file(
    fs: &VirtualFs,
    path: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<PromptTemplate> {
    let Some(raw) = fs.read_to_string(path) else {
        diags.push(Diagnostic::warning(
            path,
            None,
            "prompt template could not be read: pi skips it",
        ));
        return None;
    };
    if let Err(e) = parse_frontmatter(&raw) {
        diags.push(
            Diagnostic::warning(
                path,
                Some(e.line as u32 + 1),
                format!(
                    "frontmatter is not valid YAML: {}: pi skips this prompt template",
                    e.message
                ),
            )
            .skipping(format!("prompt template {path}")),
        );
        return None;
    }
    let base = basename(path);
    let name = base.strip_suffix(".md").unwrap_or(base).to_string();
    Some(PromptTemplate {
        name,
        content: frontmatter_body(&raw),
        file_path: path.to_string(),
        package: None,
    })
}

/// The body `parseFrontmatter` returns (CA/utils/frontmatter.js:4–17): BOM stripped, newlines
/// normalized; after a closed `---` block it is trimmed, without one it is the whole text as is.
pub fn frontmatter_body(content: &str) -> String {
    let normalized = content
        .strip_prefix('\u{FEFF}')
        .unwrap_or(content)
        .replace("\r\n", "\n")
        .replace('\r', "\n");
    if !normalized.starts_with("---") {
        return normalized;
    }
    match normalized[3..].find("\n---") {
        Some(e) => crate::js::js_trim(&normalized[3 + e + 4..]).to_string(),
        None => normalized,
    }
}

/// `loadTemplatesFromDir(dir)` (CA/core/prompt-templates.js:113): the `.md` files directly in
/// `dir` (dot files included, no ignore files).
fn load_templates_from_dir(
    fs: &VirtualFs,
    dir: &str,
    diags: &mut Vec<Diagnostic>,
) -> Vec<PromptTemplate> {
    fs.read_dir(dir)
        .into_iter()
        .filter(|(name, is_dir)| !is_dir && name.ends_with(".md"))
        .filter_map(|(name, _)| load_template_from_file(fs, &join_path(dir, &name), diags))
        .collect()
}

/// Prompt templates as pi's resource loader gets them (`DefaultResourceLoader.reload`,
/// CA/core/resource-loader.js:343–358; `updatePromptsFromPaths`, :522): the package manager's
/// paths (unless `--no-prompt-templates`) then the `--prompt-template` paths, merged
/// (`mergePaths`), loaded by `loadPromptTemplates` with `includeDefaults: false`, and deduped by
/// name (`dedupePrompts`: the first wins, a collision is reported).
#[allow(clippy::too_many_arguments)]
pub fn load_prompt_templates(
    fs: &VirtualFs,
    home: &str,
    agent_dir: &str,
    cwd: &str,
    process_cwd: &str,
    args: &PiArgs,
    settings: &Settings,
    pkgs: &PackageResources,
    diags: &mut Vec<Diagnostic>,
) -> Vec<PromptTemplate> {
    let cli: Vec<String> = args
        .prompt_templates
        .iter()
        .filter(|s| {
            let t = crate::js::js_trim(s);
            !["npm:", "git:", "github:", "http:", "https:", "ssh:"]
                .iter()
                .any(|p| t.starts_with(p))
        })
        .map(|s| resolve_pi_path(s, process_cwd, home, PathOptions::default()))
        .collect();
    // The `-e` packages' prompt templates come first, and load even with
    // `--no-prompt-templates`.
    let mut primary = PackageResources::enabled(&pkgs.cli_prompts);
    if !args.no_prompt_templates {
        primary.extend(resolve_prompt_resources(
            fs, home, agent_dir, cwd, settings, pkgs,
        ));
    }
    if primary.is_empty() && cli.is_empty() {
        return Vec::new();
    }
    let trim = PathOptions {
        trim: true,
        ..Default::default()
    };
    let paths = merge_paths(&primary, &cli, cwd, home);
    for p in &cli {
        let r = resolve_pi_path(p, cwd, home, trim);
        if !exists(fs, &r) {
            diags.push(Diagnostic::warning(
                &r,
                None,
                "Prompt template path does not exist",
            ));
        }
    }
    let mut all = Vec::new();
    for p in &paths {
        let r = resolve_pi_path(p, cwd, home, trim);
        if fs.is_dir(&r) {
            all.extend(load_templates_from_dir(fs, &r, diags));
        } else if fs.is_file(&r) && r.ends_with(".md") {
            all.extend(load_template_from_file(fs, &r, diags));
        }
    }
    let mut out: Vec<PromptTemplate> = Vec::new();
    for mut t in all {
        t.package = pkgs.package_of(&t.file_path).map(String::from);
        if let Some(winner) = out.iter().find(|w| w.name == t.name) {
            diags.push(
                Diagnostic::warning(
                    &t.file_path,
                    None,
                    format!(
                        "name \"/{}\" collision: {} wins{}",
                        t.name,
                        winner.file_path,
                        t.package.as_deref().map_or(String::new(), |p| format!(
                            " (this template of package {p} loses: a package's templates come after the user's own)"
                        ))
                    ),
                )
                .skipping(format!("prompt template {}", t.file_path)),
            );
        } else {
            out.push(t);
        }
    }
    out
}

/// `parseCommandArgs(argsString)` (CA/core/prompt-templates.js:11): bash-style words, quotes as
/// the release splits them ([`PromptTemplateArgs`]).
pub fn parse_command_args(mode: PromptTemplateArgs, s: &str) -> Vec<String> {
    let c: Vec<char> = s.chars().collect();
    let mut args = Vec::new();
    let mut current = String::new();
    let mut in_quote: Option<char> = None;
    match mode {
        PromptTemplateArgs::QuoteAnywhere => {
            for &ch in &c {
                if let Some(q) = in_quote {
                    if ch == q {
                        in_quote = None;
                    } else {
                        current.push(ch);
                    }
                } else if ch == '"' || ch == '\'' {
                    in_quote = Some(ch);
                } else if is_js_whitespace(ch) {
                    if !current.is_empty() {
                        args.push(std::mem::take(&mut current));
                    }
                } else {
                    current.push(ch);
                }
            }
            if !current.is_empty() {
                args.push(current);
            }
        }
        PromptTemplateArgs::QuoteAnywhereKeepEmpty => {
            // 1.3.0 (#10867): `hasToken`, so a quoted empty argument is kept
            // (1.5.0/CA/core/prompt-templates.js:11–45).
            let mut has_token = false;
            for &ch in &c {
                if let Some(q) = in_quote {
                    if ch == q {
                        in_quote = None;
                    } else {
                        current.push(ch);
                    }
                } else if ch == '"' || ch == '\'' {
                    in_quote = Some(ch);
                    has_token = true;
                } else if is_js_whitespace(ch) {
                    if has_token {
                        args.push(std::mem::take(&mut current));
                        has_token = false;
                    }
                } else {
                    current.push(ch);
                    has_token = true;
                }
            }
            if has_token {
                args.push(current);
            }
        }
        PromptTemplateArgs::QuoteOpensToken => {
            let mut has_token = false;
            let mut quote_start = 0;
            let mut i = 0;
            while i < c.len() {
                let ch = c[i];
                if let Some(q) = in_quote {
                    if ch == '\\' && c.get(i + 1) == Some(&q) {
                        current.push(q);
                        i += 1;
                    } else if ch == q {
                        in_quote = None;
                    } else {
                        current.push(ch);
                    }
                } else if (ch == '"' || ch == '\'') && !has_token {
                    in_quote = Some(ch);
                    quote_start = i;
                    has_token = true;
                } else if is_js_whitespace(ch) {
                    if has_token {
                        args.push(std::mem::take(&mut current));
                        has_token = false;
                    }
                } else {
                    current.push(ch);
                    has_token = true;
                }
                if in_quote.is_some() && i == c.len() - 1 {
                    // Unclosed: the quote is text and the rest is read again.
                    in_quote = None;
                    current = c[quote_start].to_string();
                    i = quote_start;
                }
                i += 1;
            }
            if has_token {
                args.push(current);
            }
        }
    }
    args
}

/// `parseInt(digits, 10) - 1` as an index (`None` when below 0; a number too large for `usize`
/// is beyond any array either way).
fn index_of(digits: &str) -> Option<usize> {
    digits.parse::<usize>().unwrap_or(usize::MAX).checked_sub(1)
}

fn digits_at(c: &[char], i: usize) -> usize {
    c[i..].iter().take_while(|x| x.is_ascii_digit()).count()
}

fn word_at(c: &[char], i: usize, w: &str) -> bool {
    let w: Vec<char> = w.chars().collect();
    c.len() >= i + w.len() && c[i..i + w.len()] == w[..]
}

/// `substituteArgs(content, args)` (CA/core/prompt-templates.js:56): one left-to-right pass of
/// `\$\{(\d+|ARGUMENTS|@):-([^}]*)\}|\$\{@:(\d+)(?::(\d+))?\}|\$(ARGUMENTS|@|\d+)`: `$1`…,
/// `$@` / `$ARGUMENTS`, `${N:-default}`, `${@:-default}`, `${@:N}`, `${@:N:L}`. Values are not
/// substituted again.
pub fn substitute_args(content: &str, args: &[String]) -> String {
    let all = args.join(" ");
    let c: Vec<char> = content.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < c.len() {
        if c[i] != '$' {
            out.push(c[i]);
            i += 1;
            continue;
        }
        // ${N:-default}, ${@:-default}, ${ARGUMENTS:-default}
        if c.get(i + 1) == Some(&'{') {
            let j = i + 2;
            let target_len = match digits_at(&c, j) {
                0 if word_at(&c, j, "ARGUMENTS") => 9,
                0 if c.get(j) == Some(&'@') => 1,
                n => n,
            };
            if target_len > 0 && word_at(&c, j + target_len, ":-") {
                let d = j + target_len + 2;
                if let Some(close) = c[d..].iter().position(|&x| x == '}') {
                    let target: String = c[j..j + target_len].iter().collect();
                    let default: String = c[d..d + close].iter().collect();
                    let value = if target == "@" || target == "ARGUMENTS" {
                        Some(all.as_str())
                    } else {
                        index_of(&target)
                            .and_then(|k| args.get(k))
                            .map(String::as_str)
                    };
                    out.push_str(match value {
                        Some(v) if !v.is_empty() => v,
                        _ => &default,
                    });
                    i = d + close + 1;
                    continue;
                }
            }
            // ${@:N} and ${@:N:L}
            if word_at(&c, j, "@:") {
                let s = j + 2;
                let n1 = digits_at(&c, s);
                if n1 > 0 {
                    let start_s: String = c[s..s + n1].iter().collect();
                    let after = s + n1;
                    let mut length: Option<(String, usize)> = None;
                    let mut matched = None;
                    if c.get(after) == Some(&'}') {
                        matched = Some(after + 1);
                    } else if c.get(after) == Some(&':') {
                        let n2 = digits_at(&c, after + 1);
                        if n2 > 0 && c.get(after + 1 + n2) == Some(&'}') {
                            length = Some((c[after + 1..after + 1 + n2].iter().collect(), n2));
                            matched = Some(after + 1 + n2 + 1);
                        }
                    }
                    if let Some(end) = matched {
                        let start = index_of(&start_s).unwrap_or(0).min(args.len());
                        let end_idx = match &length {
                            Some((l, _)) => start
                                .saturating_add(l.parse::<usize>().unwrap_or(usize::MAX))
                                .min(args.len()),
                            None => args.len(),
                        };
                        out.push_str(&args[start..end_idx.max(start)].join(" "));
                        i = end;
                        continue;
                    }
                }
            }
        }
        // $ARGUMENTS, $@, $N
        if word_at(&c, i + 1, "ARGUMENTS") {
            out.push_str(&all);
            i += 10;
            continue;
        }
        if c.get(i + 1) == Some(&'@') {
            out.push_str(&all);
            i += 2;
            continue;
        }
        let n = if i + 1 < c.len() {
            digits_at(&c, i + 1)
        } else {
            0
        };
        if n > 0 {
            let d: String = c[i + 1..i + 1 + n].iter().collect();
            if let Some(v) = index_of(&d).and_then(|k| args.get(k)) {
                out.push_str(v);
            }
            i += 1 + n;
            continue;
        }
        out.push('$');
        i += 1;
    }
    out
}

/// `expandPromptTemplate(text, templates)` (CA/core/prompt-templates.js:221): text matching
/// `^\/([^\s]+)(?:\s+([\s\S]*))?$` whose name is a template's becomes its content with the
/// arguments substituted; anything else stays as it is. Returns the template used, if any.
pub fn expand_prompt_template<'a>(
    pi: &Pi,
    text: &str,
    templates: &'a [PromptTemplate],
) -> (String, Option<&'a PromptTemplate>) {
    let Some(rest) = text.strip_prefix('/') else {
        return (text.to_string(), None);
    };
    let name_end = rest.find(is_js_whitespace).unwrap_or(rest.len());
    if name_end == 0 {
        return (text.to_string(), None);
    }
    let name = &rest[..name_end];
    let args = rest[name_end..].trim_start_matches(is_js_whitespace);
    let Some(t) = templates.iter().find(|t| t.name == name) else {
        return (text.to_string(), None);
    };
    let args = parse_command_args(pi.rules.prompt_template_args, args);
    (substitute_args(&t.content, &args), Some(t))
}

#[cfg(test)]
#[path = "prompt_templates_tests.rs"]
mod tests;

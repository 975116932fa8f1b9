//! What each pi package (the settings' `packages`) brings to a request and what that costs.

use super::types::{PackageCost, PackageSkill, PackageTemplate, PackageTool, Section, ToolSize};
use super::wire::Wire;
use crate::js::Value;
use crate::Assembly;

/// [`of_stats`]'s JSON.
pub fn to_json(a: &Assembly, stats: &Value) -> Value {
    of_stats(a, stats).to_value()
}

/// [`report`], with the sections and tools' sizes read from `stats`' JSON (its
/// `systemPrompt.sections` and `tools.byTool`, with tokens when a host counted them).
pub fn of_stats(a: &Assembly, stats: &Value) -> Vec<PackageCost> {
    let part = |block: &str, key: &str| stats.get(block).and_then(|b| b.get(key)).cloned();
    let sections = part("systemPrompt", "sections")
        .and_then(|v| Vec::<Section>::from_value(&v))
        .unwrap_or_default();
    let by_tool = part("tools", "byTool")
        .and_then(|v| Vec::<ToolSize>::from_value(&v))
        .unwrap_or_default();
    report(a, &sections, &by_tool)
}

/// [`report`] with the sections and tools' sizes of `stats` (`None`: no statistics, no sizes).
pub fn of(a: &Assembly, stats: Option<&super::types::Stats>) -> Vec<PackageCost> {
    match stats {
        Some(s) => report(a, &s.system_prompt.sections, &s.tools.by_tool),
        None => report(a, &[], &[]),
    }
}

/// Per pi package: what it brings to the request and what that costs — each skill's entry in
/// the system prompt (its chars and, when counted, tokens, from the statistics' `sections`),
/// each prompt template (with the chars of the prompt it expanded, when this prompt called it),
/// its extensions (code ctxlens does not run) and the tools they registered, where a tool set or
/// the session shows them (each tool's definition in the request, from `by_tool`) — or, for a
/// package pi does not load, its settings line.
pub fn report(a: &Assembly, sections: &[Section], by_tool: &[ToolSize]) -> Vec<PackageCost> {
    let res = &a.parts.resources;
    // A file's entries in the system prompt: their chars, and their tokens when counted.
    let cost = |file: &str| -> (usize, Option<usize>) {
        let mine = sections.iter().filter(|s| s.source == file);
        let chars = mine.clone().map(|s| s.chars).sum();
        let tokens = mine.filter_map(|s| *s.tokens).reduce(|x, y| x + y);
        (chars, tokens)
    };
    let expanded = &a.parts.prompt_template;
    let list = res.packages.iter().map(|pkg| {
        let mine = |p: &Option<String>| p.as_deref() == Some(pkg.source.as_str());
        let (mut chars, mut tokens) = (0, None::<usize>);
        let mut add = |c: usize, t: Option<usize>| {
            chars += c;
            if let Some(t) = t {
                *tokens.get_or_insert(0) += t;
            }
        };
        let skills: Vec<PackageSkill> = res
            .skills
            .iter()
            .filter(|s| mine(&s.package))
            .map(|s| {
                let (c, t) = cost(&s.file_path);
                add(c, t);
                PackageSkill {
                    name: s.name.clone(),
                    file: s.file_path.clone(),
                    chars: c,
                    tokens: t,
                }
            })
            .collect();
        let templates: Vec<PackageTemplate> = res
            .prompt_templates
            .iter()
            .filter(|t| mine(&t.package))
            .map(|t| {
                let used = expanded
                    .as_ref()
                    .filter(|(f, _)| *f == t.file_path)
                    .map(|(_, n)| *n);
                add(used.unwrap_or(0), None);
                PackageTemplate {
                    name: t.name.clone(),
                    file: t.file_path.clone(),
                    used_chars: used,
                }
            })
            .collect();
        let tools: Vec<PackageTool> = a
            .parts
            .tools
            .iter()
            .filter(|t| tool_of(res, t.package.as_deref(), pkg))
            .map(|t| {
                let stat = by_tool.iter().find(|b| b.name == t.name);
                let c = stat.map_or(0, |b| b.chars);
                let n = stat.and_then(|b| *b.tokens);
                add(c, n);
                PackageTool {
                    name: t.name.clone(),
                    chars: c,
                    tokens: n,
                }
            })
            .collect();
        PackageCost {
            source: pkg.source.clone(),
            scope: pkg.scope.as_str().into(),
            settings_file: pkg.settings_file.clone(),
            line: pkg.line.map(|l| l as usize),
            installed: pkg.root.clone(),
            skills,
            prompt_templates: templates,
            extensions: pkg.extensions.clone(),
            tools,
            chars,
            tokens,
        }
    });
    list.collect()
}

/// Whether a tool registered by `package` (a tool's [`crate::tools::ToolDef::package`]) is
/// `pkg`'s: the same source, or pi's `cli` (given with `-e`) when one `-e` package has
/// extensions.
fn tool_of(
    res: &crate::resources::Resources,
    package: Option<&str>,
    pkg: &crate::packages::Package,
) -> bool {
    use crate::packages::Scope;
    match package {
        Some("cli") => {
            let mut with_code = res
                .packages
                .iter()
                .filter(|p| p.scope == Scope::Temporary && !p.extensions.is_empty());
            with_code.next().is_some_and(|p| std::ptr::eq(p, pkg)) && with_code.next().is_none()
        }
        Some(source) => source == pkg.source,
        None => false,
    }
}

/// The packages as the summary's lines (none without packages).
pub fn to_text(packages: &[PackageCost]) -> String {
    if packages.is_empty() {
        return String::new();
    }
    let mut s = String::from("\npi packages (what each brings to this request):\n");
    for p in packages {
        let (source, file) = (&p.source, &p.settings_file);
        let at = match (p.scope.as_str(), p.line) {
            ("temporary", _) => "-e on pi's command line".to_string(),
            (_, Some(l)) => format!("{file}:{l}"),
            (_, None) => file.to_string(),
        };
        if p.installed.is_none() {
            s.push_str(&format!("  {source}  not loaded ({at})\n"));
            continue;
        }
        let tokens = p
            .tokens
            .map(|t| format!(", {t} tokens"))
            .unwrap_or_default();
        let tools = match p.tools.len() {
            0 => String::new(),
            k => format!(", {k} tool(s)"),
        };
        s.push_str(&format!(
            "  {source}  {} skill(s), {} prompt template(s), {} extension(s){tools}: {} chars{tokens} ({at})\n",
            p.skills.len(),
            p.prompt_templates.len(),
            p.extensions.len(),
            p.chars
        ));
    }
    s
}

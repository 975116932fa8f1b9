//! What each pi package (the settings' `packages`) brings to a request and what that costs.

use crate::js::{Object, Value};
use crate::Assembly;

/// Per pi package: what it brings to the request and what that costs — each skill's entry in
/// the system prompt (its chars and, when counted, tokens, from `stats`' sections), each prompt
/// template (with the chars of the prompt it expanded, when this prompt called it), its
/// extensions (code ctxlens does not run) and the tools they registered, where a tool set or the
/// session shows them (each tool's definition in the request, from `stats`' `tools.byTool`) —
/// or, for a package pi does not load, its settings line. `stats` is `stats`' JSON (its
/// `systemPrompt.sections`, with tokens when a host counted them).
pub fn to_json(a: &Assembly, stats: &Value) -> Value {
    let res = &a.parts.resources;
    let sections: Vec<&Value> = stats
        .get("systemPrompt")
        .and_then(|s| s.get("sections"))
        .and_then(Value::as_array)
        .map(|v| v.iter().collect())
        .unwrap_or_default();
    let cost = |file: &str, key: &str| -> Option<f64> {
        let hits: Vec<f64> = sections
            .iter()
            .filter(|s| s.get_str("source") == Some(file))
            .filter_map(|s| s.get(key).and_then(Value::as_f64))
            .collect();
        (!hits.is_empty()).then(|| hits.iter().sum())
    };
    let by_tool: Vec<&Value> = stats
        .get("tools")
        .and_then(|s| s.get("byTool"))
        .and_then(Value::as_array)
        .map(|v| v.iter().collect())
        .unwrap_or_default();
    let expanded = &a.parts.prompt_template;
    let list = res.packages.iter().map(|pkg| {
        let mine = |p: &Option<String>| p.as_deref() == Some(pkg.source.as_str());
        let (mut chars, mut tokens) = (0.0, None::<f64>);
        let skills: Vec<Value> = res
            .skills
            .iter()
            .filter(|s| mine(&s.package))
            .map(|s| {
                let c = cost(&s.file_path, "chars").unwrap_or(0.0);
                let t = cost(&s.file_path, "tokens");
                chars += c;
                if let Some(t) = t {
                    *tokens.get_or_insert(0.0) += t;
                }
                Object::new()
                    .with("name", s.name.as_str())
                    .with("file", s.file_path.as_str())
                    .with("chars", c)
                    .with("tokens", t.map_or(Value::Null, Value::from))
                    .into()
            })
            .collect();
        let templates: Vec<Value> = res
            .prompt_templates
            .iter()
            .filter(|t| mine(&t.package))
            .map(|t| {
                let used = expanded
                    .as_ref()
                    .filter(|(f, _)| *f == t.file_path)
                    .map(|(_, n)| *n as f64);
                chars += used.unwrap_or(0.0);
                Object::new()
                    .with("name", t.name.as_str())
                    .with("file", t.file_path.as_str())
                    .with("usedChars", used.map_or(Value::Null, Value::from))
                    .into()
            })
            .collect();
        let tools: Vec<Value> = a
            .parts
            .tools
            .iter()
            .filter(|t| tool_of(res, t.package.as_deref(), pkg))
            .map(|t| {
                let stat = by_tool.iter().find(|b| b.get_str("name") == Some(&t.name));
                let c = stat
                    .and_then(|b| b.get("chars"))
                    .and_then(Value::as_f64)
                    .unwrap_or(0.0);
                let n = stat.and_then(|b| b.get("tokens")).and_then(Value::as_f64);
                chars += c;
                if let Some(n) = n {
                    *tokens.get_or_insert(0.0) += n;
                }
                Object::new()
                    .with("name", t.name.as_str())
                    .with("chars", c)
                    .with("tokens", n.map_or(Value::Null, Value::from))
                    .into()
            })
            .collect();
        Object::new()
            .with("source", pkg.source.as_str())
            .with("scope", pkg.scope.as_str())
            .with("settingsFile", pkg.settings_file.as_str())
            .with(
                "line",
                pkg.line.map_or(Value::Null, |l| Value::from(l as f64)),
            )
            .with(
                "installed",
                pkg.root.as_deref().map_or(Value::Null, Value::str),
            )
            .with("skills", Value::Array(skills))
            .with("promptTemplates", Value::Array(templates))
            .with(
                "extensions",
                Value::Array(
                    pkg.extensions
                        .iter()
                        .map(|e| Value::str(e.as_str()))
                        .collect(),
                ),
            )
            .with("tools", Value::Array(tools))
            .with("chars", chars)
            .with("tokens", tokens.map_or(Value::Null, Value::from))
            .into()
    });
    Value::Array(list.collect())
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

/// [`to_json`] as the summary's lines (none without packages).
pub fn to_text(packages: &Value) -> String {
    let list = packages.as_array().cloned().unwrap_or_default();
    if list.is_empty() {
        return String::new();
    }
    let mut s = String::from("\npi packages (what each brings to this request):\n");
    for p in &list {
        let source = p.get_str("source").unwrap_or("");
        let file = p.get_str("settingsFile").unwrap_or("");
        let line = p.get("line").and_then(Value::as_f64);
        let at = match (p.get_str("scope"), line) {
            (Some("temporary"), _) => "-e on pi's command line".to_string(),
            (_, Some(l)) => format!("{file}:{l}"),
            (_, None) => file.to_string(),
        };
        if p.get("installed").is_none_or(|v| *v == Value::Null) {
            s.push_str(&format!("  {source}  not loaded ({at})\n"));
            continue;
        }
        let n = |k: &str| p.get(k).and_then(Value::as_array).map_or(0, Vec::len);
        let tokens = p
            .get("tokens")
            .and_then(Value::as_f64)
            .map(|t| format!(", {t} tokens"))
            .unwrap_or_default();
        let tools = match n("tools") {
            0 => String::new(),
            k => format!(", {k} tool(s)"),
        };
        s.push_str(&format!(
            "  {source}  {} skill(s), {} prompt template(s), {} extension(s){tools}: {} chars{tokens} ({at})\n",
            n("skills"),
            n("promptTemplates"),
            n("extensions"),
            p.get("chars").and_then(Value::as_f64).unwrap_or(0.0)
        ));
    }
    s
}

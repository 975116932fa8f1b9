//! Tool definitions: pi's built-in tools (versioned data from the npm package), extension tools,
//! and the active-tool selection from flags and settings.

use crate::args::PiArgs;
use crate::diagnostics::Diagnostic;
use crate::inputs::SourceText;
use crate::js::locate::Step;
use crate::js::{self, Object, Value};
use crate::pi::Pi;
use crate::settings::Settings;

/// Where a tool came from.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolSource {
    /// One of pi's built-in tools (read, bash, edit, write, grep, find, ls, powershell).
    Builtin,
    /// Registered by an extension (tools.json), with its index in that file.
    Extension { index: usize },
    /// A declaration in the session's system messages (0.86 on): what the request sends.
    Declared,
}

/// A tool as pi's `AgentTool` holds it (after `wrapToolDefinition`), plus its prompt parts.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolDef {
    pub name: String,
    pub label: String,
    pub description: String,
    /// The JSON schema, with pi's key order.
    pub parameters: Value,
    /// `constrainedSampling` (PI_EXPERIMENTAL=1 gives bash, powershell and edit
    /// `{type:"json_schema", strict:"prefer"}`).
    pub constrained_sampling: Option<Value>,
    /// `executionMode`, when the definition has one.
    pub execution_mode: Option<String>,
    /// The raw `promptSnippet` (before pi normalizes it).
    pub prompt_snippet: Option<String>,
    /// The raw `promptGuidelines`.
    pub prompt_guidelines: Option<Vec<String>>,
    pub source: ToolSource,
    /// The pi package whose extension registered it (its settings `source`, or a `-e` source;
    /// `cli` for pi's "given with -e"): a tool set's `sourceInfo.source`, as pi's registry has it,
    /// or the one package the session's declared tools are assumed to come from.
    pub package: Option<String>,
}

impl ToolDef {
    /// The AgentTool object as `JSON.stringify` shows it (functions dropped): what pi-messages
    /// sends and what the token estimate measures.
    pub fn agent_tool_json(&self) -> Value {
        let mut o = Object::new();
        o.insert("name", Value::str(&self.name));
        o.insert("label", Value::str(&self.label));
        o.insert("description", Value::str(&self.description));
        o.insert("parameters", self.parameters.clone());
        o.insert_opt("constrainedSampling", self.constrained_sampling.clone());
        o.insert_opt(
            "executionMode",
            self.execution_mode.clone().map(Value::from),
        );
        Value::Object(o)
    }

    /// `schema.properties`.
    pub fn properties(&self) -> Option<&Object> {
        self.parameters
            .as_object()
            .and_then(|p| p.get_object("properties"))
    }

    /// `_normalizePromptSnippet(definition.promptSnippet)` (CA/core/agent-session.js:716): line
    /// breaks and whitespace runs become one space, trimmed; `None` when nothing is left.
    pub fn normalized_snippet(&self) -> Option<String> {
        normalize_prompt_snippet(self.prompt_snippet.as_deref())
    }

    /// `_normalizePromptGuidelines(definition.promptGuidelines)` (CA/core/agent-session.js:725):
    /// each trimmed, empty ones dropped, de-duplicated in first-seen order.
    pub fn normalized_guidelines(&self) -> Vec<String> {
        normalize_prompt_guidelines(self.prompt_guidelines.as_deref())
    }
}

/// `_normalizePromptSnippet` (CA/core/agent-session.js:716–724):
/// `text.replace(/[\r\n]+/g, " ").replace(/\s+/g, " ").trim()`, `undefined` if empty.
pub fn normalize_prompt_snippet(text: Option<&str>) -> Option<String> {
    let text = text.filter(|t| !t.is_empty())?;
    // `[\r\n]+` → " " then `\s+` → " ": both collapse into one space per whitespace run, since
    // \r and \n are JS whitespace too.
    let mut out = String::with_capacity(text.len());
    let mut in_ws = false;
    for c in text.chars() {
        if js::is_js_whitespace(c) {
            if !in_ws {
                out.push(' ');
            }
            in_ws = true;
        } else {
            out.push(c);
            in_ws = false;
        }
    }
    let trimmed = js::js_trim(&out);
    (!trimmed.is_empty()).then(|| trimmed.to_string())
}

/// `_normalizePromptGuidelines` (CA/core/agent-session.js:725–737).
pub fn normalize_prompt_guidelines(guidelines: Option<&[String]>) -> Vec<String> {
    let mut unique: Vec<String> = Vec::new();
    for g in guidelines.unwrap_or(&[]) {
        let normalized = js::js_trim(g);
        if !normalized.is_empty() && !unique.iter().any(|u| u == normalized) {
            unique.push(normalized.to_string());
        }
    }
    unique
}

/// pi's built-in tools from the versioned data (`data/pi-0.85.1/tools.json`), with
/// `PI_EXPERIMENTAL` applied (`getExperimentalToolSampling`, CA/core/experimental.js:1–7).
///
/// The order is that of the data file; pi's registry order (`createAllToolDefinitions`,
/// CA/core/tools/index.js:89) differs (powershell third) but never shows: the active order comes
/// from the name lists in [`select`].
pub fn builtin_tools(pi: &Pi, experimental: bool) -> Vec<ToolDef> {
    let Some(list) = pi.data.tools.as_array() else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|t| {
            let name = t.get_str("name")?.to_string();
            Some(ToolDef {
                label: t.get_str("label").unwrap_or(&name).to_string(),
                description: t.get_str("description").unwrap_or("").to_string(),
                parameters: t.get("parameters").cloned().unwrap_or_else(empty_schema),
                // Set on the definition (0.86 on: strict-prefer by default), else only with
                // PI_EXPERIMENTAL=1 (0.85).
                constrained_sampling: t
                    .get("constrainedSampling")
                    .filter(|v| !v.is_null())
                    .or_else(|| {
                        t.get("experimentalConstrainedSampling")
                            .filter(|v| experimental && !v.is_null())
                    })
                    .cloned(),
                execution_mode: t.get_str("executionMode").map(String::from),
                prompt_snippet: t.get_str("promptSnippet").map(String::from),
                prompt_guidelines: t
                    .get("promptGuidelines")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(|g| g.as_str().map(String::from))
                            .collect()
                    }),
                source: ToolSource::Builtin,
                package: None,
                name,
            })
        })
        .collect()
}

fn empty_schema() -> Value {
    Value::Object(
        Object::new()
            .with("type", "object")
            .with("properties", Value::object()),
    )
}

/// Parses extension tools (the oracle's tools.json shape, `/work/shared/oracle/json-tools.mjs`:
/// `label ?? name`, `parameters ?? {type:"object",properties:{}}`, `promptSnippet` and
/// `promptGuidelines` only when present). Each is registered with `registerTool`
/// (CA/core/extensions/loader.js:238), a `Map.set` by name: a later duplicate replaces the earlier
/// definition but keeps its position. Bad entries are reported and skipped.
pub fn extension_tools(src: &SourceText, diags: &mut Vec<Diagnostic>) -> Vec<ToolDef> {
    let parsed = match js::parse_with_position(&src.text) {
        Ok(v) => v,
        Err((e, line, col)) => {
            diags.push(
                Diagnostic::error(
                    &src.name,
                    Some(line as u32),
                    format!("not valid JSON: {} (column {col})", e.message),
                )
                .skipping("all extension tools"),
            );
            return Vec::new();
        }
    };
    // The line of tool #index, or of one of its members.
    let at = |index: usize, key: Option<&str>| {
        let mut path = vec![Step::Index(index)];
        path.extend(key.map(Step::Key));
        js::locate::line_of(&src.text, &path)
    };
    let Some(list) = parsed.as_array() else {
        diags.push(
            Diagnostic::error(&src.name, Some(1), "expected an array of tool definitions")
                .skipping("all extension tools"),
        );
        return Vec::new();
    };
    let mut out: Vec<ToolDef> = Vec::new();
    for (index, t) in list.iter().enumerate() {
        let Some(obj) = t.as_object() else {
            diags.push(
                Diagnostic::warning(
                    &src.name,
                    at(index, None),
                    format!("tool #{index} is not an object"),
                )
                .skipping(format!("tool #{index}")),
            );
            continue;
        };
        let Some(name) = obj.get_str("name") else {
            diags.push(
                Diagnostic::warning(
                    &src.name,
                    at(index, None),
                    format!("tool #{index} has no string `name`"),
                )
                .skipping(format!("tool #{index}")),
            );
            continue;
        };
        let description = match obj.get("description") {
            Some(Value::String(s)) => s.as_str().to_owned(),
            other => {
                diags.push(Diagnostic::warning(
                    &src.name,
                    at(index, Some("description")).or(at(index, None)),
                    format!(
                        "tool {name:?}: `description` is {}, not a string; using \"\"",
                        describe(other)
                    ),
                ));
                String::new()
            }
        };
        let label = match obj.get("label") {
            None | Some(Value::Null) => name.to_string(),
            Some(Value::String(s)) => s.as_str().to_owned(),
            Some(other) => {
                diags.push(Diagnostic::warning(
                    &src.name,
                    at(index, Some("label")),
                    format!("tool {name:?}: `label` is not a string ({other:?}); using the name"),
                ));
                name.to_string()
            }
        };
        let parameters = match obj.get("parameters") {
            None | Some(Value::Null) => empty_schema(),
            Some(p) => p.clone(),
        };
        let prompt_snippet = match obj.get("promptSnippet") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.to_string()),
            Some(v) if !v.truthy() => None,
            Some(other) => {
                diags.push(Diagnostic::error(&src.name, at(index, Some("promptSnippet")), format!("tool {name:?}: `promptSnippet` is not a string ({other:?}); pi would throw on .replace")).skipping("its prompt snippet"));
                None
            }
        };
        let prompt_guidelines = match obj.get("promptGuidelines") {
            None | Some(Value::Null) => None,
            Some(Value::Array(a)) => {
                let strings: Vec<String> = a
                    .iter()
                    .filter_map(|g| g.as_str().map(String::from))
                    .collect();
                if strings.len() != a.len() {
                    diags.push(Diagnostic::error(&src.name, at(index, Some("promptGuidelines")), format!("tool {name:?}: a prompt guideline is not a string; pi would throw on .trim")).skipping("non-string guidelines"));
                }
                Some(strings)
            }
            Some(other) => {
                diags.push(
                    Diagnostic::error(
                        &src.name,
                        at(index, Some("promptGuidelines")),
                        format!("tool {name:?}: `promptGuidelines` is not an array ({other:?})"),
                    )
                    .skipping("its prompt guidelines"),
                );
                None
            }
        };
        let def = ToolDef {
            name: name.to_string(),
            label,
            description,
            parameters,
            constrained_sampling: None,
            execution_mode: None,
            prompt_snippet,
            prompt_guidelines,
            source: ToolSource::Extension { index },
            // `sourceInfo` (pi's `getAllTools()`): a package's source; not pi's own kinds.
            package: obj
                .get("sourceInfo")
                .and_then(|i| i.get_str("source"))
                .filter(|s| !matches!(*s, "builtin" | "sdk" | "auto" | "local" | ""))
                .map(String::from),
        };
        match out.iter_mut().find(|d| d.name == def.name) {
            Some(slot) => {
                diags.push(Diagnostic::info(&src.name, at(index, None), format!("tool {name:?} is registered twice; the later definition replaces the earlier one in its position")));
                *slot = def;
            }
            None => out.push(def),
        }
    }
    out
}

fn describe(v: Option<&Value>) -> String {
    match v {
        None => "missing".into(),
        Some(v) => format!("{v:?}"),
    }
}

/// The active tools in pi's order: `createAgentSession` (CA/core/sdk.js:139–144) picks
/// the initial names and the allow/deny lists; `_refreshToolRegistry` (CA/core/agent-session.js:
/// 2105–2181) builds the registry (built-ins, then extension tools replacing same-named ones in
/// place), appends every allowed registry tool (with an allow-list) or every extension tool
/// (`includeAllExtensionTools`), de-duplicates, and `setActiveToolsByName` (:659) keeps the names
/// the registry has.
pub fn select(
    pi: &Pi,
    builtins: Vec<ToolDef>,
    extensions: Vec<ToolDef>,
    args: &PiArgs,
    settings: &Settings,
    diags: &mut Vec<Diagnostic>,
) -> Vec<ToolDef> {
    let _ = diags;
    // main.js buildSessionOptions: --no-tools → "all", else --no-builtin-tools → "builtin".
    let no_tools = args.no_tools || args.no_builtin_tools;
    let allowed: Option<Vec<String>> = args.tools.clone().or_else(|| args.no_tools.then(Vec::new));
    let excluded: Option<&Vec<String>> = args.exclude_tools.as_ref();
    let is_excluded = |name: &str| excluded.is_some_and(|x| x.iter().any(|e| e == name));
    let is_allowed = |name: &str| {
        allowed.as_ref().is_none_or(|a| a.iter().any(|e| e == name)) && !is_excluded(name)
    };

    let default_names: Vec<String> = match pi
        .data
        .prompt
        .get("defaultActiveTools")
        .and_then(Value::as_array)
    {
        Some(a) => a
            .iter()
            .filter_map(|v| v.as_str().map(String::from))
            .collect(),
        None => Vec::new(),
    };
    let initial: Vec<String> = match (&args.tools, no_tools) {
        (Some(t), _) => t.clone(),
        (None, true) => Vec::new(),
        (None, false) => settings.default_tools().unwrap_or(default_names),
    };
    let initial: Vec<String> = initial.into_iter().filter(|n| !is_excluded(n)).collect();

    // The registry: built-ins, then extension tools (Map.set keeps a replaced key's position).
    let mut registry: Vec<ToolDef> = builtins
        .into_iter()
        .filter(|t| is_allowed(&t.name))
        .collect();
    let allowed_extensions: Vec<ToolDef> = extensions
        .into_iter()
        .filter(|t| is_allowed(&t.name))
        .collect();
    for ext in &allowed_extensions {
        match registry.iter_mut().find(|t| t.name == ext.name) {
            Some(slot) => *slot = ext.clone(),
            None => registry.push(ext.clone()),
        }
    }

    let mut next: Vec<String> = initial.into_iter().filter(|n| is_allowed(n)).collect();
    if let Some(allowed) = &allowed {
        for t in &registry {
            if allowed.contains(&t.name) {
                next.push(t.name.clone());
            }
        }
    } else {
        next.extend(allowed_extensions.iter().map(|t| t.name.clone()));
    }
    let mut seen: Vec<&str> = Vec::new();
    let mut active = Vec::new();
    for name in &next {
        if seen.contains(&name.as_str()) {
            continue;
        }
        seen.push(name);
        if let Some(t) = registry.iter().find(|t| t.name == *name) {
            active.push(t.clone());
        }
    }
    active
}

// ---------------------------------------------------------------------------------------------
// The tool loadout (1.3.0 on, `Rules::tool_loadout`: modifiers, patterns, the registry order,
// restore from the transcript)
// ---------------------------------------------------------------------------------------------

/// `isToolModifier(entry)` (CA/core/settings-manager.js:37): `+name` or `-name`.
fn is_modifier(entry: &str) -> bool {
    entry.starts_with('+') || entry.starts_with('-')
}

/// `applyToolModifiers(base, entries)` (CA/core/settings-manager.js:60–73): `+name` appends a
/// tool not yet there, `-name` removes one, in order; other entries are ignored.
fn apply_modifiers(base: &[String], entries: &[String]) -> Vec<String> {
    let mut tools = base.to_vec();
    for e in entries.iter().filter(|e| is_modifier(e)) {
        let name = &e[1..];
        let at = tools.iter().position(|t| t == name);
        match (e.starts_with('+'), at) {
            (true, None) if !name.is_empty() => tools.push(name.to_string()),
            (false, Some(i)) => {
                tools.remove(i);
            }
            _ => {}
        }
    }
    tools
}

/// `createToolNameMatcher(entries)` (CA/core/mcp-servers.js:14–26): exact names, and `*`
/// patterns matching the whole name.
fn name_matcher(entries: &[String]) -> impl Fn(&str) -> bool + '_ {
    fn matches(pattern: &str, name: &str) -> bool {
        let parts: Vec<&str> = pattern.split('*').collect();
        let (first, last) = (parts[0], parts[parts.len() - 1]);
        if !name.starts_with(first)
            || name.len() < first.len() + last.len()
            || !name.ends_with(last)
        {
            return false;
        }
        let mut rest = &name[first.len()..name.len() - last.len()];
        for mid in &parts[1..parts.len() - 1] {
            match rest.find(mid) {
                Some(i) => rest = &rest[i + mid.len()..],
                None => return false,
            }
        }
        true
    }
    move |name: &str| {
        entries.iter().any(|e| {
            if e.contains('*') {
                matches(e, name)
            } else {
                e == name
            }
        })
    }
}

/// `getToolListError(entries)` (CA/core/settings-manager.js:45–55).
fn tool_list_error(entries: &[String]) -> Option<String> {
    let modifiers: Vec<&String> = entries.iter().filter(|e| is_modifier(e)).collect();
    if modifiers.is_empty() {
        return None;
    }
    if modifiers.len() < entries.len() {
        return Some("tool names cannot be mixed with +name or -name entries".into());
    }
    modifiers
        .iter()
        .find(|e| e.contains('*'))
        .map(|p| format!("+name and -name entries take exact tool names, not patterns: {p}"))
}

/// `settingsManager.getDefaultTools()` (CA/core/settings-manager.js:1071–1076, with
/// `mergeDefaultTools` across the two layers): a project list of only modifiers appends to the
/// global one; then plain names replace the default tools and modifiers apply in order.
fn default_tools(pi: &Pi, settings: &Settings) -> Option<Vec<String>> {
    let strings = |v: Option<&Value>| -> Option<Vec<String>> {
        match v? {
            Value::Array(a) => Some(
                a.iter()
                    .filter_map(|x| x.as_str().map(String::from))
                    .collect(),
            ),
            _ => Some(Vec::new()),
        }
    };
    let global = settings.global.get("defaultTools");
    let project = settings.project.get("defaultTools");
    let entries = match (strings(global), project) {
        (base, None) => base?,
        (Some(base), Some(Value::Array(o)))
            if o.iter().all(|x| x.as_str().is_some_and(is_modifier)) =>
        {
            let mut all = base;
            all.extend(o.iter().filter_map(|x| x.as_str().map(String::from)));
            all
        }
        (_, Some(v)) => strings(Some(v))?,
    };
    let plain: Vec<String> = entries
        .iter()
        .filter(|e| !is_modifier(e))
        .cloned()
        .collect();
    let base = if !plain.is_empty() || entries.is_empty() {
        plain
    } else {
        list_of(pi, "defaultActiveTools")
    };
    Some(apply_modifiers(&base, &entries))
}

fn list_of(pi: &Pi, key: &str) -> Vec<String> {
    pi.data
        .prompt
        .get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// The active tools of a 0.86+ session (`createAgentSession`, CA/core/sdk.js:145–160, and
/// `AgentSession`'s `_buildRuntime` → `_refreshToolRegistry` → `_applyToolLoadout`,
/// CA/core/agent-session.js:2976–3110, 1244–1293, then `_restoreToolsFromTranscript`, :1460–1486,
/// when the default tools are in use): `--tools` as an allowlist of names and `*` patterns or as
/// `+name`/`-name` modifiers of the defaults; the registry in pi's built-in order, then extension
/// tools; with the default tools, the loadout the branch's system messages declare. Active tools
/// keep their order when the loadout changes; new ones go last (1.5.0 on,
/// `Rules::loadout_keeps_order`; before, the new loadout's order).
pub fn select_loadout(
    pi: &Pi,
    builtins: Vec<ToolDef>,
    extensions: Vec<ToolDef>,
    args: &PiArgs,
    settings: &Settings,
    branch_system_messages: &[Value],
    diags: &mut Vec<Diagnostic>,
) -> Vec<ToolDef> {
    let mut tools_arg = args.tools.clone();
    if let Some(t) = &tools_arg {
        if let Some(e) = tool_list_error(t) {
            diags
                .push(Diagnostic::error("args", None, format!("--tools: {e}")).skipping("--tools"));
            tools_arg = None;
        }
    }
    let no_tools_all = args.no_tools;
    let no_tools = args.no_tools || args.no_builtin_tools;
    let defaults: Vec<String> = if no_tools {
        Vec::new()
    } else {
        default_tools(pi, settings).unwrap_or_else(|| list_of(pi, "defaultActiveTools"))
    };
    let modifiers: Option<Vec<String>> = tools_arg
        .as_ref()
        .filter(|t| t.iter().any(|e| is_modifier(e)))
        .cloned();
    let selected: Option<Vec<String>> = match &modifiers {
        Some(m) => Some(apply_modifiers(&defaults, m)),
        None => tools_arg.clone(),
    };
    let allowed: Option<Vec<String>> = match &modifiers {
        Some(_) => no_tools_all.then(|| selected.clone().unwrap_or_default()),
        None => tools_arg.clone().or_else(|| no_tools_all.then(Vec::new)),
    };
    let excluded = args.exclude_tools.clone().unwrap_or_default();
    let is_excluded = name_matcher(&excluded);
    let is_allowed_list = allowed.as_ref().map(|a| name_matcher(a));
    let is_allowed =
        |name: &str| !is_excluded(name) && is_allowed_list.as_ref().is_none_or(|m| m(name));
    let initial: Vec<String> = selected
        .clone()
        .unwrap_or_else(|| defaults.clone())
        .into_iter()
        .filter(|n| !is_excluded(n))
        .collect();

    // The registry: built-ins in pi's registry order, then extension tools (a same name replaces
    // in place).
    let order = list_of(pi, "builtinToolRegistryOrder");
    let mut builtins = builtins;
    builtins.sort_by_key(|t| {
        order
            .iter()
            .position(|n| *n == t.name)
            .unwrap_or(usize::MAX)
    });
    let mut registry: Vec<ToolDef> = builtins
        .into_iter()
        .filter(|t| is_allowed(&t.name))
        .collect();
    let allowed_extensions: Vec<ToolDef> = extensions
        .into_iter()
        .filter(|t| is_allowed(&t.name))
        .collect();
    for ext in &allowed_extensions {
        match registry.iter_mut().find(|t| t.name == ext.name) {
            Some(slot) => *slot = ext.clone(),
            None => registry.push(ext.clone()),
        }
    }
    let mut next: Vec<String> = initial.into_iter().filter(|n| is_allowed(n)).collect();
    match &is_allowed_list {
        Some(m) => next.extend(
            registry
                .iter()
                .filter(|t| m(&t.name))
                .map(|t| t.name.clone()),
        ),
        None => next.extend(allowed_extensions.iter().map(|t| t.name.clone())),
    }
    // 1.5.0 (#11495): tools that stay active keep their order; before, the requested order
    // (1.4.0/CA/core/agent-session.js:1176, `[...new Set(toolNames)]`).
    let keeps_order = pi.rules.loadout_keeps_order;
    let loadout = |current: &[String], requested: &[String]| -> Vec<String> {
        let mut out: Vec<String> = current
            .iter()
            .filter(|n| keeps_order && requested.contains(n))
            .cloned()
            .collect();
        for n in requested {
            if !out.contains(n) {
                out.push(n.clone());
            }
        }
        out.retain(|n| registry.iter().any(|t| t.name == *n));
        out
    };
    let mut active = loadout(&[], &next);

    // With the default tools (no --tools, or only modifiers; no --no-tools), the transcript's loadout.
    let uses_defaults = (tools_arg.is_none() || modifiers.is_some()) && !no_tools;
    if uses_defaults && !branch_system_messages.is_empty() {
        let mentioned: Vec<String> = branch_system_messages
            .iter()
            .flat_map(|m| {
                ["toolsAdded", "toolsRemoved"]
                    .into_iter()
                    .flat_map(move |k| {
                        m.get(k)
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten()
                            .filter_map(|t| t.get_str("name").map(String::from))
                    })
            })
            .collect();
        let new_tools: Vec<String> = registry
            .iter()
            .filter(|t| !mentioned.contains(&t.name) && !matches!(t.source, ToolSource::Builtin))
            .map(|t| t.name.clone())
            .collect();
        let mut names: Vec<String> = crate::transcript::current_tools(branch_system_messages)
            .iter()
            .filter_map(|t| t.get_str("name").map(String::from))
            .collect();
        names.extend(new_tools);
        let names = apply_modifiers(&names, modifiers.as_deref().unwrap_or(&[]));
        active = loadout(&active, &names);
    }
    active
        .iter()
        .filter_map(|n| registry.iter().find(|t| t.name == *n).cloned())
        .collect()
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;

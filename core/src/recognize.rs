//! What each dropped file is: a session, models.json, settings.json, a tool set (in any of the
//! shapes a person is likely to have at hand), a context file with its folder, a skill, a system
//! prompt file, an image — or a whole case folder. Pure functions over (path, bytes), shared by
//! the visualizer's drop and the CLI's `--tool-set` ([`tool_set_file`]). Problems are
//! [`Diagnostic`]s naming the file and line.

// Text from the user: no string is sliced by byte range (a cut inside a character panics).
#![deny(clippy::string_slice)]

use crate::case::CaseFiles;
use crate::js::{self, Object, Value};
use crate::Diagnostic;

/// What a file is, as far as pi is concerned.
#[derive(Clone, Debug, PartialEq)]
pub enum FileKind {
    /// A pi session (`*.jsonl`).
    Session,
    /// pi's models.json.
    Models,
    /// pi's settings.json.
    Settings,
    /// A tool set, converted to pi's extension tool shape (the oracle's tools.json).
    /// `active`: the tool names in order when the set came from a captured request or a
    /// provider's `tools` array that names pi's built-ins (so `--tools` can say which were on).
    Tools {
        json: String,
        shape: &'static str,
        count: usize,
        active: Option<Vec<String>>,
    },
    /// AGENTS.md / AGENTS.override.md / AGENTS.MD / CLAUDE.md / CLAUDE.MD.
    ContextFile,
    /// SYSTEM.md (`append: false`) or APPEND_SYSTEM.md (`append: true`).
    SystemPrompt { append: bool },
    /// A skill's SKILL.md, with its frontmatter name (or its folder's name).
    Skill { name: String },
    /// An image for the next prompt (`@file`).
    Image,
    /// Not something pi reads; kept out of the scenario.
    Ignored { why: String },
}

impl FileKind {
    /// A short label for the file list.
    pub fn label(&self) -> String {
        match self {
            FileKind::Session => "session".into(),
            FileKind::Models => "models.json".into(),
            FileKind::Settings => "settings.json".into(),
            FileKind::Tools { shape, count, .. } => format!("{count} tools ({shape})"),
            FileKind::ContextFile => "context file".into(),
            FileKind::SystemPrompt { append: false } => "system prompt".into(),
            FileKind::SystemPrompt { append: true } => "appended system prompt".into(),
            FileKind::Skill { name } => format!("skill {name}"),
            FileKind::Image => "image (@file)".into(),
            FileKind::Ignored { why } => format!("ignored: {why}"),
        }
    }
}

/// The base name of a `/`-separated path.
pub fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

const CONTEXT_FILES: [&str; 5] = [
    "AGENTS.md",
    "AGENTS.override.md",
    "AGENTS.MD",
    "CLAUDE.md",
    "CLAUDE.MD",
];
const IMAGE_EXTS: [&str; 6] = ["png", "jpg", "jpeg", "gif", "webp", "bmp"];
/// pi's built-in tool names (to recognise a captured tool list that includes them).
pub const BUILTIN_TOOLS: [&str; 7] = ["read", "bash", "edit", "write", "grep", "find", "ls"];

fn ext(name: &str) -> String {
    name.rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default()
}

/// Parses JSON text; a syntax error becomes a diagnostic with the line.
pub fn parse_json(path: &str, text: &str, notes: &mut Vec<Diagnostic>) -> Option<Value> {
    match js::parse_with_position(text.trim_start_matches('\u{feff}')) {
        Ok(v) => Some(v),
        Err((e, line, col)) => {
            notes.push(
                Diagnostic::error(
                    path,
                    Some(line as u32),
                    format!("not valid JSON: {} (column {col})", e.message),
                )
                .skipping(base_name(path).to_string()),
            );
            None
        }
    }
}

/// The `name:` of a SKILL.md's YAML frontmatter, if it has one.
pub fn frontmatter_name(text: &str) -> Option<String> {
    let rest = text.trim_start_matches('\u{feff}').strip_prefix("---")?;
    for line in rest.lines().skip(1) {
        if line.trim() == "---" {
            break;
        }
        if let Some(v) = line.strip_prefix("name:") {
            let v = v.trim().trim_matches(|c| c == '"' || c == '\'');
            if !v.is_empty() {
                return Some(v.to_string());
            }
        }
    }
    None
}

/// One tool in pi's extension shape.
fn pi_tool(name: &str, description: Option<&Value>, parameters: Option<&Value>) -> Value {
    let mut o = Object::new().with("name", name);
    o.insert(
        "description",
        description.cloned().unwrap_or_else(|| Value::str("")),
    );
    o.insert(
        "parameters",
        parameters.cloned().unwrap_or_else(|| {
            Object::new()
                .with("type", "object")
                .with("properties", Value::object())
                .into()
        }),
    );
    o.into()
}

/// Converts a tool list in any known shape to pi's; `None` when it is not one.
fn tools_from_array(items: &[Value]) -> Option<(Vec<Value>, &'static str)> {
    if items.is_empty() {
        return None;
    }
    let mut out = Vec::new();
    let mut shape = "";
    for t in items {
        let o = t.as_object()?;
        let (tool, s) = if let Some(f) = o.get_object("function") {
            // OpenAI Chat Completions / Mistral: {type: "function", function: {name, description, parameters}}
            (
                pi_tool(
                    f.get_str("name")?,
                    f.get("description"),
                    f.get("parameters"),
                ),
                "OpenAI",
            )
        } else if let Some(spec) = o.get_object("toolSpec") {
            // Bedrock Converse: {toolSpec: {name, description, inputSchema: {json}}}
            (
                pi_tool(
                    spec.get_str("name")?,
                    spec.get("description"),
                    spec.get("inputSchema").and_then(|s| s.get("json")),
                ),
                "Bedrock",
            )
        } else if let Some(decls) = o.get_array("functionDeclarations") {
            // Google: {functionDeclarations: [{name, description, parameters | parametersJsonSchema}]}
            for d in decls {
                let d = d.as_object()?;
                out.push(pi_tool(
                    d.get_str("name")?,
                    d.get("description"),
                    d.get("parametersJsonSchema")
                        .or_else(|| d.get("parameters")),
                ));
            }
            shape = "Google";
            continue;
        } else if o.contains_key("input_schema") {
            (
                pi_tool(
                    o.get_str("name")?,
                    o.get("description"),
                    o.get("input_schema"),
                ),
                "Anthropic",
            )
        } else if o.get_str("name").is_some()
            && (o.contains_key("parameters") || o.get_str("description").is_some())
        {
            // pi's own shape (tools.json: `parameters` may be left out), or OpenAI Responses
            // ({type: "function", name, ...}).
            let s = if o.get_str("type") == Some("function") {
                "OpenAI Responses"
            } else {
                "pi"
            };
            let mut tool = o.clone();
            tool.remove("type");
            tool.remove("strict");
            tool.remove("cache_control");
            (Value::Object(tool), s)
        } else {
            return None;
        };
        shape = s;
        out.push(tool);
    }
    Some((out, shape))
}

/// A tool set: an array of tools, or a captured request body (its `tools`, Bedrock's
/// `toolConfig.tools`).
fn tool_set(v: &Value) -> Option<(Vec<Value>, &'static str, bool)> {
    if let Some(a) = v.as_array() {
        // `[]`: no extension tools at all (what pi's registry gives when no extension has any).
        if a.is_empty() {
            return Some((Vec::new(), "pi", false));
        }
        return tools_from_array(a).map(|(t, s)| (t, s, false));
    }
    let o = v.as_object()?;
    let arr = o.get_array("tools").or_else(|| {
        o.get_object("toolConfig")
            .and_then(|c| c.get_array("tools"))
    })?;
    tools_from_array(arr).map(|(t, s)| (t, s, true))
}

/// A tool set converted to pi's extension tool shape (the oracle's tools.json).
#[derive(Clone, Debug, PartialEq)]
pub struct ToolSet {
    /// The extension tools (pi's built-ins left out: they stay pi's own definitions), as JSON.
    pub json: String,
    /// Where the shape came from (`OpenAI`, `Anthropic`, `Google`, `Bedrock`, `OpenAI Responses`,
    /// `pi`, `from a request body`).
    pub shape: &'static str,
    /// Tools in the set, built-ins included.
    pub count: usize,
    /// The tool names in order when the set names pi's built-ins or came from a request body
    /// (they become the active tools, `--tools`).
    pub active: Option<Vec<String>>,
}

impl ToolSet {
    /// Makes the set's names the active tools (`--tools a,b,…` appended to pi's `args`) when it
    /// has them, unless `args` already choose the tools (`--tools`, `-t`, `--no-tools`, `-nt`).
    pub fn activate(&self, args: &mut Vec<String>) {
        let chosen = args
            .iter()
            .any(|a| matches!(a.as_str(), "--tools" | "-t" | "--no-tools" | "-nt"));
        if let (Some(active), false) = (&self.active, chosen) {
            args.push("--tools".into());
            args.push(active.join(","));
        }
    }
}

/// A parsed JSON value as a tool set, in any shape [`recognize`] knows; `None` when it is none.
pub fn tool_set_value(path: &str, v: &Value, notes: &mut Vec<Diagnostic>) -> Option<ToolSet> {
    let (tools, shape, from_body) = tool_set(v)?;
    let names: Vec<String> = tools
        .iter()
        .filter_map(|t| t.get_str("name").map(String::from))
        .collect();
    let names_builtins = names.iter().any(|n| BUILTIN_TOOLS.contains(&n.as_str()));
    let extension: Vec<Value> = tools
        .iter()
        .filter(|t| {
            !t.get_str("name")
                .is_some_and(|n| BUILTIN_TOOLS.contains(&n))
        })
        .cloned()
        .collect();
    if names_builtins {
        notes.push(Diagnostic::info(
            path,
            None,
            format!(
                "{} of these tools are pi's built-ins: they stay pi's own definitions, and the set's names become the active tools (--tools)",
                names.len() - extension.len()
            ),
        ));
    }
    let shape = if from_body {
        "from a request body"
    } else {
        shape
    };
    Some(ToolSet {
        json: Value::Array(extension).to_json_pretty(2),
        shape,
        count: tools.len(),
        active: (names_builtins || from_body).then_some(names),
    })
}

/// A file given as a tool set (the CLI's `--tool-set`), whatever its name: `Err` says why it is
/// not one (not JSON: with the line, in `notes` too; JSON of another shape).
pub fn tool_set_file(
    path: &str,
    bytes: &[u8],
    notes: &mut Vec<Diagnostic>,
) -> Result<ToolSet, String> {
    let text = String::from_utf8_lossy(bytes);
    let Some(v) = parse_json(path, &text, notes) else {
        return Err(notes
            .last()
            .map_or_else(|| "not valid JSON".into(), |d| d.to_string()));
    };
    tool_set_value(path, &v, notes).ok_or_else(|| {
        format!("{path}: not a tool set (an array of tools in pi's, OpenAI's, Anthropic's, Google's or Bedrock's shape, or a request body with tools)")
    })
}

/// Recognises one loose file. `notes` gets what went wrong (with line numbers where there are).
pub fn recognize(path: &str, bytes: &[u8], notes: &mut Vec<Diagnostic>) -> FileKind {
    let name = base_name(path);
    let e = ext(name);
    if IMAGE_EXTS.contains(&e.as_str()) {
        return FileKind::Image;
    }
    if e == "jsonl" {
        return FileKind::Session;
    }
    if CONTEXT_FILES.contains(&name) {
        return FileKind::ContextFile;
    }
    if name == "SYSTEM.md" || name == "APPEND_SYSTEM.md" {
        return FileKind::SystemPrompt {
            append: name == "APPEND_SYSTEM.md",
        };
    }
    let text = || String::from_utf8_lossy(bytes).into_owned();
    if name == "SKILL.md" {
        let folder = path.rsplit('/').nth(1).unwrap_or("skill").to_string();
        return FileKind::Skill {
            name: frontmatter_name(&text()).unwrap_or(folder),
        };
    }
    if name == "models.json" {
        return FileKind::Models;
    }
    if name == "settings.json" {
        return FileKind::Settings;
    }
    if e == "json" {
        let Some(v) = parse_json(path, &text(), notes) else {
            return FileKind::Ignored {
                why: "not valid JSON".into(),
            };
        };
        if let Some(t) = tool_set_value(path, &v, notes) {
            return FileKind::Tools {
                json: t.json,
                shape: t.shape,
                count: t.count,
                active: t.active,
            };
        }
        return FileKind::Ignored {
            why: "JSON that is neither a tool set, models.json nor settings.json".into(),
        };
    }
    let why = if e == "md" {
        "a Markdown file pi does not read as context".to_string()
    } else {
        format!(
            "not an input pi reads ({})",
            if e.is_empty() { "no extension" } else { &e }
        )
    };
    FileKind::Ignored { why }
}

/// A dropped file set is a case folder when it holds a `case.json`: the one nearest the top is the
/// case; returns its folder (prefix, `""` or `name/`) and its files relative to it. The capture's
/// bodies (`expected/request-N.json`) are left out: they are what pi sent, not inputs.
pub fn find_case(files: &[(String, Vec<u8>)]) -> Option<(String, CaseFiles, usize)> {
    let case_json = files
        .iter()
        .map(|(p, _)| p)
        .filter(|p| base_name(p) == "case.json")
        .min_by_key(|p| (p.matches('/').count(), (*p).clone()))?;
    let prefix = case_json.strip_suffix("case.json")?;
    let others = files
        .iter()
        .filter(|(p, _)| base_name(p) == "case.json" && p != case_json)
        .count();
    let mut out = CaseFiles::new();
    for (p, b) in files {
        let Some(rel) = p.strip_prefix(prefix) else {
            continue;
        };
        let bn = base_name(rel);
        if rel.contains('/')
            && bn.starts_with("request-")
            && bn.ends_with(".json")
            && !bn.ends_with(".meta.json")
        {
            continue;
        }
        if bn == "pi.stdout" || bn == "pi.stderr" {
            continue;
        }
        out.insert(rel.to_string(), b.clone());
    }
    Some((prefix.trim_end_matches('/').to_string(), out, others))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(path: &str, text: &str) -> (FileKind, Vec<Diagnostic>) {
        let mut notes = Vec::new();
        let k = recognize(path, text.as_bytes(), &mut notes);
        (k, notes)
    }

    #[test]
    fn names_decide_first() {
        assert_eq!(kind("p/s.jsonl", "garbage").0, FileKind::Session);
        assert_eq!(kind("p/sub/AGENTS.md", "x").0, FileKind::ContextFile);
        assert_eq!(kind("CLAUDE.MD", "x").0, FileKind::ContextFile);
        assert_eq!(kind("a/shot.PNG", "x").0, FileKind::Image);
        assert_eq!(kind("models.json", "{").0, FileKind::Models);
        assert_eq!(
            kind(
                "x/skills/foo/SKILL.md",
                "---\nname: bar\ndescription: d\n---\nbody"
            )
            .0,
            FileKind::Skill { name: "bar".into() }
        );
        assert_eq!(
            kind("x/skills/foo/SKILL.md", "no frontmatter").0,
            FileKind::Skill { name: "foo".into() }
        );
    }

    #[test]
    fn tool_sets_in_every_shape() {
        let openai = r#"[{"type":"function","function":{"name":"t","description":"d","parameters":{"type":"object"}}}]"#;
        let anthropic = r#"[{"name":"t","description":"d","input_schema":{"type":"object"}}]"#;
        let pi = r#"[{"name":"t","description":"d","parameters":{"type":"object"},"promptSnippet":"s"}]"#;
        let body = r#"{"model":"m","tools":[{"name":"read","description":"r","input_schema":{}},{"name":"t","description":"d","input_schema":{"type":"object"}}]}"#;
        for (text, shape) in [(openai, "OpenAI"), (anthropic, "Anthropic"), (pi, "pi")] {
            let FileKind::Tools {
                json,
                shape: s,
                count,
                active,
            } = kind("tools.json", text).0
            else {
                panic!("{shape}")
            };
            assert_eq!((s, count, active), (shape, 1, None));
            let v = js::parse(&json).unwrap();
            assert_eq!(v.as_array().unwrap()[0].get_str("name"), Some("t"));
            assert_eq!(
                v.as_array().unwrap()[0]
                    .get("parameters")
                    .unwrap()
                    .get_str("type"),
                Some("object")
            );
        }
        let FileKind::Tools {
            json,
            count,
            active,
            ..
        } = kind("request-1.json", body).0
        else {
            panic!()
        };
        assert_eq!(count, 2);
        assert_eq!(active, Some(vec!["read".to_string(), "t".to_string()]));
        assert_eq!(
            js::parse(&json).unwrap().as_array().unwrap().len(),
            1,
            "built-ins stay pi's own"
        );
    }

    #[test]
    fn bad_json_names_the_line() {
        let (k, notes) = kind("dir/tools.json", "[\n{\"name\": }\n]");
        assert!(matches!(k, FileKind::Ignored { .. }));
        assert_eq!(notes[0].line, Some(2));
        assert_eq!(notes[0].file, "dir/tools.json");
    }

    #[test]
    fn a_case_folder_is_found_with_its_prefix() {
        let files: Vec<(String, Vec<u8>)> = [
            "c/case.json",
            "c/models.json",
            "c/expected/env.json",
            "c/expected/request-1.json",
            "c/fs/a/case.json",
        ]
        .iter()
        .map(|p| (p.to_string(), b"{}".to_vec()))
        .collect();
        let (prefix, case, others) = find_case(&files).unwrap();
        assert_eq!(prefix, "c");
        assert_eq!(others, 1);
        assert_eq!(
            case.keys().cloned().collect::<Vec<_>>(),
            [
                "case.json",
                "expected/env.json",
                "fs/a/case.json",
                "models.json"
            ]
        );
    }
}

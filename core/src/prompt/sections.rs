//! The system prompt as named sections (pi-coding-agent `dist/core/system-prompt.js`
//! `buildSystemPromptSections`, `diffSystemPromptSections`; 0.86 on): `preamble`, `tools`,
//! `rules`, `docs`, `addendum`, `project_context`, `skills`, `cwd`, each but the preamble wrapped
//! as `<name>\n…\n</name>`. pi stores them in the session as system messages; what a request
//! carries is their replay ([`crate::transcript`]). Every literal piece comes from the release's
//! `prompt.json`.

use super::escape_xml;
use crate::js::path::join_path;
use crate::js::{Object, Value};
use crate::pi::Pi;
use crate::resources::{Resources, Skill};
use crate::tools::ToolDef;

fn p<'a>(pi: &'a Pi, key: &str) -> &'a str {
    pi.data.prompt_str(key)
}

fn skills_str<'a>(pi: &'a Pi, key: &str) -> &'a str {
    pi.data
        .prompt
        .get("skills")
        .and_then(|s| s.get_str(key))
        .unwrap_or("")
}

fn list<'a>(pi: &'a Pi, key: &str) -> Vec<&'a str> {
    pi.data
        .prompt
        .get(key)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The tools section's content: `- name: snippet` for the declared tools that have a
/// snippet, or `(none)`, then "Additional tools may be available.".
fn tools_content(pi: &Pi, tools: &[ToolDef]) -> Vec<Piece> {
    let lines: Vec<(&str, String)> = tools
        .iter()
        .filter_map(|t| {
            t.normalized_snippet().map(|s| {
                (
                    t.name.as_str(),
                    format!(
                        "{}{}{}{s}",
                        p(pi, "toolsListItemPrefix"),
                        t.name,
                        p(pi, "toolsListItemSeparator")
                    ),
                )
            })
        })
        .collect();
    let mut out = Vec::new();
    if lines.is_empty() {
        out.push(Piece::new("tools", "pi", p(pi, "noTools")));
    }
    for (i, (name, line)) in lines.iter().enumerate() {
        let join = if i > 0 { p(pi, "toolsListJoin") } else { "" };
        out.push(Piece::new("tools", name, format!("{join}{line}")));
    }
    out.push(Piece::new("tools", "pi", p(pi, "toolsTail")));
    out
}

/// The rules section's content: one list with a global seen-set: the file-operations rule
/// (a shell declared and none of grep, find, ls), each declared tool's guidelines, the two closing
/// rules. Each rule with the tool that first gave it.
fn rules_content(pi: &Pi, tools: &[ToolDef]) -> Vec<Piece> {
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    let has = |n: &str| names.contains(&n);
    let mut rules: Vec<(String, String)> = Vec::new();
    let mut add = |r: &str, source: &str| {
        let r = crate::js::js_trim(r);
        if !r.is_empty() && !rules.iter().any(|(x, _)| x == r) {
            rules.push((r.to_string(), source.to_string()));
        }
    };
    let shells = list(pi, "ruleFileOpsShellTools");
    let suppressed = list(pi, "ruleFileOpsSuppressedBy");
    if shells.iter().any(|s| has(s)) && !suppressed.iter().any(|s| has(s)) {
        let both = shells.iter().all(|s| has(s));
        add(
            if both {
                p(pi, "ruleFileOpsBashAndPowerShell")
            } else if has("powershell") {
                p(pi, "ruleFileOpsPowerShell")
            } else {
                p(pi, "ruleFileOpsBash")
            },
            "pi",
        );
    }
    for t in tools {
        for g in t.normalized_guidelines() {
            add(&g, &t.name);
        }
    }
    add(p(pi, "ruleConcise"), "pi");
    add(p(pi, "ruleFilePaths"), "pi");
    rules
        .iter()
        .enumerate()
        .map(|(i, (r, source))| {
            let join = if i > 0 { p(pi, "rulesJoin") } else { "" };
            Piece::new(
                "rules",
                source,
                format!("{join}{}{r}", p(pi, "ruleItemPrefix")),
            )
        })
        .collect()
}

/// The docs section's content: pi's README, docs and examples paths in the template.
fn docs_content(pi: &Pi, pi_package_dir: &str) -> String {
    let suffix = |k: &str| {
        pi.data
            .prompt
            .get("packagePaths")
            .and_then(|x| x.get_str(k))
            .unwrap_or("")
            .trim_start_matches('/')
            .to_string()
    };
    format!(
        "{}{}{}{}{}{}{}",
        p(pi, "docsPrefix"),
        join_path(pi_package_dir, &suffix("readmeSuffix")),
        p(pi, "betweenReadmeAndDocs"),
        join_path(pi_package_dir, &suffix("docsSuffix")),
        p(pi, "betweenDocsAndExamples"),
        join_path(pi_package_dir, &suffix("examplesSuffix")),
        p(pi, "docsTail")
    )
}

/// `formatSkillsForPrompt(skills, reader).trim()`, `None` when no skill is visible: the
/// header lines, then one block per skill (its source is the skill's file).
fn skills_content(pi: &Pi, skills: &[Skill], reader: &str) -> Option<Vec<Piece>> {
    let visible: Vec<&Skill> = skills
        .iter()
        .filter(|s| !s.disable_model_invocation)
        .collect();
    if visible.is_empty() {
        return None;
    }
    let s = |k: &str| skills_str(pi, k);
    let j = s("lineJoin");
    // `.trim()` removes the header's leading blank lines (pi's own text: never all blank).
    let header = [
        crate::js::js_trim(s("header")),
        match reader {
            "read" => s("readToolLine"),
            "bash" => s("bashToolLine"),
            _ => s("indirectToolLine"),
        },
        s("relativePathLine"),
        s("separatorLine"),
        s("listOpen"),
    ]
    .join(j);
    let mut out = vec![Piece::new("skills", "pi", header)];
    for k in visible {
        let lines = [
            s("skillOpen").to_string(),
            format!(
                "{}{}{}",
                s("namePrefix"),
                escape_xml(pi, &k.name),
                s("nameSuffix")
            ),
            format!(
                "{}{}{}",
                s("descriptionPrefix"),
                escape_xml(pi, &k.description),
                s("descriptionSuffix")
            ),
            format!(
                "{}{}{}",
                s("locationPrefix"),
                escape_xml(pi, &k.file_path),
                s("locationSuffix")
            ),
            s("skillClose").to_string(),
        ];
        out.push(Piece::new(
            "skills",
            &k.file_path,
            format!("{j}{}", lines.join(j)),
        ));
    }
    out.push(Piece::new("skills", "pi", format!("{j}{}", s("listClose"))));
    Some(out)
}

/// One span of a section's text, with where it came from (a tool, a file, `pi`).
#[derive(Clone, Debug, PartialEq)]
pub struct Piece {
    /// The section it belongs to, or `context-file` for one file of `project_context`.
    pub name: String,
    pub source: String,
    pub text: String,
}

impl Piece {
    fn new(name: &str, source: &str, text: impl Into<String>) -> Piece {
        Piece {
            name: name.into(),
            source: source.into(),
            text: text.into(),
        }
    }
}

/// A built section: its name, its full text and the pieces that make it up.
#[derive(Clone, Debug, PartialEq)]
pub struct BuiltSection {
    pub name: String,
    pub text: String,
    pub pieces: Vec<Piece>,
}

/// `buildSystemPromptSections(options)` (CA/core/system-prompt.js:68–120) for the declared
/// tools (active, in loadout order) and the resources: the sections in pi's order, each but the
/// preamble wrapped. A custom prompt becomes the preamble and drops tools, rules and docs.
pub fn build_pieces(
    pi: &Pi,
    tools: &[ToolDef],
    resources: &Resources,
    cwd: &str,
    pi_package_dir: &str,
) -> Vec<BuiltSection> {
    let mut raw: Vec<(&str, Vec<Piece>)> = Vec::new();
    let custom = resources
        .custom_prompt
        .as_ref()
        .filter(|c| !c.text.is_empty());
    match custom {
        Some(c) => raw.push((
            "preamble",
            vec![Piece::new(
                "preamble",
                c.path.as_deref().unwrap_or("--system-prompt"),
                c.text.clone(),
            )],
        )),
        None => {
            raw.push((
                "preamble",
                vec![Piece::new("preamble", "pi", p(pi, "preamble"))],
            ));
            raw.push(("tools", tools_content(pi, tools)));
            raw.push(("rules", rules_content(pi, tools)));
            raw.push((
                "docs",
                vec![Piece::new("docs", "pi", docs_content(pi, pi_package_dir))],
            ));
        }
    }
    // The appends joined by a blank line; an empty result is no section.
    let appends: Vec<Piece> = resources
        .append_prompts
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let join = if i > 0 {
                p(pi, "appendSystemPromptJoin")
            } else {
                ""
            };
            Piece::new(
                "addendum",
                a.path.as_deref().unwrap_or("--append-system-prompt"),
                format!("{join}{}", a.text),
            )
        })
        .collect();
    if appends.iter().any(|a| !a.text.is_empty()) {
        raw.push(("addendum", appends));
    }
    if !resources.context_files.is_empty() {
        let mut parts = vec![Piece::new(
            "project_context",
            "pi",
            p(pi, "projectContextHeader"),
        )];
        for f in &resources.context_files {
            parts.push(Piece::new(
                "context-file",
                &f.path,
                format!(
                    "{}{}{}{}{}{}",
                    p(pi, "projectContextJoin"),
                    p(pi, "projectInstructionsOpenPrefix"),
                    f.path,
                    p(pi, "projectInstructionsOpenSuffix"),
                    f.content,
                    p(pi, "projectInstructionsClose")
                ),
            ));
        }
        raw.push(("project_context", parts));
    }
    // The skill reader is the first of read, bash among the declared tools.
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    let reader = list(pi, "skillFileReadToolPreference")
        .into_iter()
        .find(|t| names.contains(t));
    if let Some(reader) = reader {
        if !resources.skills.is_empty() {
            if let Some(s) = skills_content(pi, &resources.skills, reader) {
                raw.push(("skills", s));
            }
        }
    }
    raw.push((
        "cwd",
        vec![Piece::new(
            "cwd",
            "pi",
            cwd.replace('\\', p(pi, "cwdBackslashTo")),
        )],
    ));
    let unwrapped = list(pi, "unwrappedSections");
    raw.into_iter()
        .map(|(name, mut pieces)| {
            if !unwrapped.contains(&name) {
                pieces.insert(
                    0,
                    Piece::new(name, "pi", p(pi, "sectionOpen").replace("{name}", name)),
                );
                pieces.push(Piece::new(
                    name,
                    "pi",
                    p(pi, "sectionClose").replace("{name}", name),
                ));
            }
            BuiltSection {
                name: name.to_string(),
                text: pieces.iter().map(|x| x.text.as_str()).collect(),
                pieces,
            }
        })
        .collect()
}

/// The section map of [`build_pieces`]: name → text, in order.
pub fn build(
    pi: &Pi,
    tools: &[ToolDef],
    resources: &Resources,
    cwd: &str,
    pi_package_dir: &str,
) -> Object {
    to_map(&build_pieces(pi, tools, resources, cwd, pi_package_dir))
}

/// Built sections as pi's `sections` object.
pub fn to_map(built: &[BuiltSection]) -> Object {
    let mut out = Object::new();
    for b in built {
        out.insert(b.name.as_str(), Value::str(b.text.as_str()));
    }
    out
}

/// Pushes section `name` with `text` (set by `origin`) onto `sp`, after `lead`: split into this
/// run's pieces (tools, rules, files, skills) when it reads as this run builds it, else one span
/// whose source is the session.
fn push_section(
    sp: &mut super::SystemPrompt,
    name: &str,
    text: &str,
    origin: &super::Stored,
    fresh: &[BuiltSection],
    lead: &str,
) {
    match fresh.iter().find(|b| b.name == name && b.text == text) {
        Some(b) => {
            for (k, piece) in b.pieces.iter().enumerate() {
                let text = if k == 0 {
                    format!("{lead}{}", piece.text)
                } else {
                    piece.text.clone()
                };
                sp.push_stored(&piece.name, &piece.source, origin, &text);
            }
        }
        None => sp.push_stored(name, "session", origin, &format!("{lead}{text}")),
    }
}

/// The system prompt a request carries, with spans: the replay of the transcript's system
/// messages (`getSystemMessageText(getCurrentSystemMessage(messages))`). A section that
/// reads as this run would build it is split into its pieces (tools, rules, files, skills); one
/// whose stored text differs is one span from the session. `origins[i]` says where message `i`
/// was stored; each span says which system message set it.
pub fn replayed(
    pi: &Pi,
    messages: &[Value],
    origins: &[super::Stored],
    fresh: &[BuiltSection],
) -> super::SystemPrompt {
    use crate::transcript::content_text;
    let join = pi.data.string("text", "systemMessageTextJoin");
    let origin_of = |i: usize| origins.get(i).cloned().unwrap_or(super::Stored::ThisRun);
    let mut contents: Vec<(String, super::Stored)> = Vec::new();
    // name → (text, origin), Map order.
    let mut sections: Vec<(String, String, super::Stored)> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        if m.get_str("role") != Some("system") {
            continue;
        }
        let origin = origin_of(i);
        let t = content_text(m.get("content"), pi.data.string("text", "contentTextJoin"));
        if !t.is_empty() {
            contents.push((t, origin.clone()));
        }
        if let Some(patch) = m.get("sections").and_then(Value::as_object) {
            for (name, v) in patch.iter() {
                let at = sections.iter().position(|(n, _, _)| n == name.as_str());
                match (v, at) {
                    (Value::Null, Some(k)) => {
                        sections.remove(k);
                    }
                    (Value::Null, None) => {}
                    (v, Some(k)) => {
                        sections[k].1 = crate::js::to_js_string(Some(v));
                        sections[k].2 = origin.clone();
                    }
                    (v, None) => sections.push((
                        name.to_string(),
                        crate::js::to_js_string(Some(v)),
                        origin.clone(),
                    )),
                }
            }
        }
    }
    let mut sp = super::SystemPrompt::default();
    let mut first = true;
    for (t, origin) in &contents {
        let lead = if first { "" } else { join };
        first = false;
        sp.push_stored("content", "session", origin, &format!("{lead}{t}"));
    }
    for (name, text, origin) in &sections {
        if text.is_empty() {
            continue;
        }
        let lead = if first { "" } else { join };
        first = false;
        push_section(&mut sp, name, text, origin, fresh, lead);
    }
    sp
}

/// How a later system message reads where a protocol keeps it in place
/// (`renderSystemMessageUpdate`, AI/utils/text.js:24–35), with spans: its content text, then per
/// section `Updated system prompt section "x":` and the text (split as [`replayed`] splits it),
/// or `Removed system prompt section "x".`. The text equals
/// [`crate::transcript::render_system_message_update`].
pub fn rendered_update(
    pi: &Pi,
    m: &Value,
    origin: &super::Stored,
    fresh: &[BuiltSection],
) -> super::SystemPrompt {
    use crate::transcript::content_text;
    let s = |k: &str| pi.data.string("text", k);
    let join = s("updateJoin");
    let mut sp = super::SystemPrompt::default();
    let mut first = true;
    let t = content_text(m.get("content"), s("contentTextJoin"));
    if !t.is_empty() {
        sp.push_stored("content", "session", origin, &t);
        first = false;
    }
    if let Some(sections) = m.get("sections").and_then(Value::as_object) {
        for (name, v) in sections.iter() {
            let lead = if first { "" } else { join };
            first = false;
            match v {
                Value::Null => sp.push_stored(
                    name,
                    "pi",
                    origin,
                    &format!("{lead}{}", s("removedSection").replace("{name}", name)),
                ),
                other => {
                    sp.push_stored(
                        name,
                        "pi",
                        origin,
                        &format!(
                            "{lead}{}",
                            s("updatedSectionPrefix").replace("{name}", name)
                        ),
                    );
                    let text = crate::js::to_js_string(Some(other));
                    if !text.is_empty() {
                        push_section(&mut sp, name, &text, origin, fresh, "");
                    }
                }
            }
        }
    }
    sp
}

/// A system message as a protocol that sends the transcript as it is stores it (pi-messages:
/// `content` and every section as its own string), with spans, and the UTF-16 range of each
/// string in the text (the strings follow one another, no separator).
pub fn raw_message(
    pi: &Pi,
    m: &Value,
    origin: &super::Stored,
    fresh: &[BuiltSection],
) -> (super::SystemPrompt, Vec<(usize, usize)>) {
    use crate::transcript::content_text;
    let mut sp = super::SystemPrompt::default();
    let mut ranges = Vec::new();
    let t = content_text(m.get("content"), pi.data.string("text", "contentTextJoin"));
    if !t.is_empty() {
        sp.push_stored("content", "session", origin, &t);
        ranges.push((0, crate::js::utf16_len(&sp.text)));
    }
    if let Some(sections) = m.get("sections").and_then(Value::as_object) {
        for (name, v) in sections.iter() {
            let Value::String(text) = v else { continue };
            if text.is_empty() {
                continue;
            }
            let start = crate::js::utf16_len(&sp.text);
            push_section(&mut sp, name, text, origin, fresh, "");
            ranges.push((start, crate::js::utf16_len(&sp.text)));
        }
    }
    (sp, ranges)
}

/// `diffSystemPromptSections(previous, current)` (CA/core/system-prompt.js:139–150): the
/// sections whose text changed or is new (in the current order), then the deleted ones as
/// `null` (in the previous order); `None` when nothing changed.
pub fn diff(previous: &Object, current: &Object) -> Option<Object> {
    let mut patch = Object::new();
    for (name, text) in current.iter() {
        if previous.get(name) != Some(text) {
            patch.insert(name.clone(), text.clone());
        }
    }
    for (name, _) in previous.iter() {
        if current.get(name).is_none() {
            patch.insert(name.clone(), Value::Null);
        }
    }
    (!patch.is_empty()).then_some(patch)
}

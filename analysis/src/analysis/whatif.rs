//! What if: the same inputs with something switched off or changed — a tool, a skill (or its
//! model invocation), a context file, the appended system prompt, a session entry, a tool
//! result cut short, old reasoning, images, the model, thinking level, protocol or release.
//!
//! Each [`Change`] is applied to [`Inputs`] the way the real change is made wherever pi has a
//! way to make it: a tool off is pi's `--exclude-tools` flag, a skill off is its folder gone
//! from the virtual filesystem, `disableModelInvocation` is the SKILL.md frontmatter line, a
//! context file off is the file gone, the appended prompt off is `--append-system-prompt ""`,
//! images off is settings.json's `images.blockImages`, an entry off is the session file without
//! its line. Each applied change carries its [`TakeHome`]: the flag, file edit or settings lines
//! that make it for real with pi — or, where pi has no way (dropping old reasoning, cutting a
//! stored tool result), a plain statement that it has none and what the what-if edited instead.
//!
//! Pure: no I/O. The comparison of the two assemblies is [`crate::analysis::diff`]; the whole
//! session rebuilt with the change is [`session`].

use crate::analysis::calibration::MAX_CALLS;
use crate::analysis::diff::{self, Diff};
use crate::analysis::stats::Stats;
use crate::api::Api;
use crate::assemble::Assembly;
use crate::calls::CallRef;
use crate::inputs::{Inputs, SourceText};
use crate::js::path::{basename, dirname, join_path};
use crate::js::{self, Object, Value};
use crate::pi::PiVersion;
use crate::AssemblyStats;

/// One what-if change.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// `tool:NAME`: a built-in or extension tool off.
    Tool(String),
    /// `skill:NAME`: a skill off.
    Skill(String),
    /// `skill-invocation:NAME`: the skill's `disable-model-invocation: true`.
    SkillInvocation(String),
    /// `package:NAME`: a pi package off — its settings entry removed (NAME: the entry's source,
    /// or an npm package's name).
    Package(String),
    /// `context:PATH`: a context file off (its path, or a unique suffix of it).
    Context(String),
    /// `append-prompt`: the appended system prompt (APPEND_SYSTEM.md, `--append-system-prompt`) off.
    AppendPrompt,
    /// `entry:ID`: a session entry off (its children reparented to its parent).
    Entry(String),
    /// `turn:ID`: a whole turn off — the user message `ID` and the messages that answer it (the
    /// assistant's answers and the tool results, up to the next user message on each branch),
    /// each removed as `entry:ID` removes one; the entries between them that are not part of
    /// the exchange (system messages, model and level changes, labels, custom entries) stay.
    Turn(String),
    /// `tool-result:ID[:N]`: a stored tool result cut to its first N lines (no N: emptied).
    ToolResult { id: String, lines: Option<usize> },
    /// `thinking:old`: the reasoning of every assistant message before the request's last user
    /// message dropped (with a new prompt, every stored answer's; for a past call or pi's
    /// continue, the answers before the branch's last user message).
    ThinkingOld,
    /// `image:all` (every image: settings `images.blockImages`) or `image:ID` (the images of
    /// one session entry).
    Image(Option<String>),
    /// `--set model=P/ID`.
    Model(String),
    /// `--set thinking=LEVEL`.
    Thinking(String),
    /// `--set api=API`: the protocol switch.
    Api(Api),
    /// `--set pi=VERSION`: another release.
    Pi(PiVersion),
}

/// The `--without` kinds, for messages.
pub const KINDS: &str = "tool:NAME, skill:NAME, skill-invocation:NAME, package:NAME, context:PATH, append-prompt, entry:ID, turn:ID, tool-result:ID[:N], thinking:old, image:all|ID";

impl Change {
    /// Parses a `--without` spec (`KIND:ARG`).
    pub fn parse_without(spec: &str) -> Result<Change, String> {
        let (kind, arg) = match spec.split_once(':') {
            Some((k, a)) => (k, Some(a)),
            None => (spec, None),
        };
        let need = |a: Option<&str>| -> Result<String, String> {
            match a {
                Some(a) if !a.is_empty() => Ok(a.to_string()),
                _ => Err(format!("--without {kind} needs a value: {kind}:…")),
            }
        };
        Ok(match kind {
            "tool" => Change::Tool(need(arg)?),
            "skill" => Change::Skill(need(arg)?),
            "skill-invocation" => Change::SkillInvocation(need(arg)?),
            "package" => Change::Package(need(arg)?),
            "context" => Change::Context(need(arg)?),
            "append-prompt" if arg.is_none() => Change::AppendPrompt,
            "entry" => Change::Entry(need(arg)?),
            "turn" => Change::Turn(need(arg)?),
            "tool-result" => {
                let a = need(arg)?;
                match a.rsplit_once(':') {
                    Some((id, n)) if !id.is_empty() => Change::ToolResult {
                        id: id.to_string(),
                        lines: Some(n.parse().map_err(|_| {
                            format!("--without tool-result:ID:N: N is a number of lines, not {n:?}")
                        })?),
                    },
                    _ => Change::ToolResult { id: a, lines: None },
                }
            }
            "thinking" if arg == Some("old") => Change::ThinkingOld,
            "thinking" => return Err("--without thinking takes `old` (thinking:old)".into()),
            "image" => match need(arg)?.as_str() {
                "all" => Change::Image(None),
                id => Change::Image(Some(id.to_string())),
            },
            _ => return Err(format!("unknown --without {spec:?}; one of: {KINDS}")),
        })
    }

    /// Parses a `--set` spec (`model=…`, `thinking=…`, `api=…`, `pi=…`).
    pub fn parse_set(spec: &str) -> Result<Change, String> {
        let Some((k, v)) = spec.split_once('=').filter(|(_, v)| !v.is_empty()) else {
            return Err(format!(
                "--set takes KEY=VALUE (model, thinking, api, pi), not {spec:?}"
            ));
        };
        Ok(match k {
            "model" => Change::Model(v.to_string()),
            "thinking" => {
                if !crate::model::THINKING_LEVELS.contains(&v) {
                    return Err(format!(
                        "--set thinking={v}: one of {}",
                        crate::model::THINKING_LEVELS.join(", ")
                    ));
                }
                Change::Thinking(v.to_string())
            }
            "api" => Change::Api(v.parse().map_err(|_| {
                format!(
                    "--set api={v}: one of {}",
                    Api::ALL.map(Api::as_str).join(", ")
                )
            })?),
            "pi" => Change::Pi(
                v.parse()
                    .map_err(|e: crate::pi::UnknownVersion| format!("--set pi={v}: {e}"))?,
            ),
            _ => return Err(format!("--set {k}: one of model, thinking, api, pi")),
        })
    }

    /// The spec as written on the command line.
    pub fn spec(&self) -> String {
        match self {
            Change::Tool(n) => format!("tool:{n}"),
            Change::Skill(n) => format!("skill:{n}"),
            Change::SkillInvocation(n) => format!("skill-invocation:{n}"),
            Change::Package(n) => format!("package:{n}"),
            Change::Context(p) => format!("context:{p}"),
            Change::AppendPrompt => "append-prompt".into(),
            Change::Entry(id) => format!("entry:{id}"),
            Change::Turn(id) => format!("turn:{id}"),
            Change::ToolResult { id, lines: None } => format!("tool-result:{id}"),
            Change::ToolResult { id, lines: Some(n) } => format!("tool-result:{id}:{n}"),
            Change::ThinkingOld => "thinking:old".into(),
            Change::Image(None) => "image:all".into(),
            Change::Image(Some(id)) => format!("image:{id}"),
            Change::Model(m) => format!("model={m}"),
            Change::Thinking(t) => format!("thinking={t}"),
            Change::Api(a) => format!("api={}", a.as_str()),
            Change::Pi(v) => format!("pi={v}"),
        }
    }

    /// Whether the change needs the inputs read again as another release reads them.
    pub fn is_release(&self) -> bool {
        matches!(self, Change::Pi(_))
    }
}

/// How to make a change for real with pi.
#[derive(Clone, Debug, PartialEq)]
pub enum TakeHome {
    /// pi's command line: the flags to give (replacing the same flags given before), and the
    /// whole argument list after the change.
    Flags {
        flags: Vec<String>,
        args: Vec<String>,
    },
    /// Files to delete (or move out of where pi looks).
    RemoveFiles { paths: Vec<String> },
    /// A file edited: its path, the line set and the whole new content.
    EditFile {
        path: String,
        line: String,
        content: String,
    },
    /// The session file edited: what changed, and the whole new text.
    EditSession { edits: Vec<String>, content: String },
    /// Another pi release installed.
    Install { command: String },
    /// pi has no way to make this change; what the what-if edited instead.
    None { why: String },
}

/// A change as applied: what it did to the inputs and its take-home.
#[derive(Clone, Debug, PartialEq)]
pub struct Applied {
    pub change: Change,
    /// What was changed in the inputs, in words.
    pub did: String,
    pub take_home: TakeHome,
    /// The take-home in words (the flag, the file, the line), to show next to it.
    pub text: String,
}

/// Applies `changes` in order to `inputs` (whose assembly is `base`). A change that names
/// nothing present in `base` is an error saying what is there.
pub fn apply(
    inputs: &Inputs,
    base: &Assembly,
    changes: &[Change],
) -> Result<(Inputs, Vec<Applied>), String> {
    let mut out = inputs.clone();
    let mut applied = Vec::new();
    for c in changes {
        applied.push(apply_one(&mut out, base, c)?);
    }
    Ok((out, applied))
}

/// The value pi's last `flag` (or its short form) takes in `args`, and `args` without them.
fn take_flag(args: &[String], names: &[&str]) -> (Vec<Vec<String>>, Vec<String>) {
    let mut values = Vec::new();
    let mut rest = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if names.contains(&args[i].as_str()) && i + 1 < args.len() {
            values.push(crate::args::split_list(&args[i + 1]));
            i += 2;
            continue;
        }
        rest.push(args[i].clone());
        i += 1;
    }
    (values, rest)
}

fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./,:=+@".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

fn flags_text(flags: &[String]) -> String {
    let words: Vec<String> = flags.iter().map(|f| shell_word(f)).collect();
    format!("pi {}", words.join(" "))
}

/// The take-home of a value pi takes as a flag (`--model ID`): the flag after pi's arguments,
/// and its words, with the way to do it inside pi (`in_pi`).
fn value_flag(inputs: &Inputs, flag: &str, value: &str, in_pi: &str) -> (TakeHome, String) {
    let flags = vec![flag.to_string(), value.to_string()];
    let text = format!("{} (or {in_pi} in pi)", flags_text(&flags));
    let args = inputs.args.iter().chain(&flags).cloned().collect();
    (TakeHome::Flags { flags, args }, text)
}

/// One change applied to `inputs`, checked against `base` (the assembly before any change).
fn apply_one(inputs: &mut Inputs, base: &Assembly, change: &Change) -> Result<Applied, String> {
    let spec = change.spec();
    let applied = |did: String, take_home: TakeHome, text: String| Applied {
        change: change.clone(),
        did,
        take_home,
        text,
    };
    match change {
        Change::Tool(name) => tool_off(inputs, base, change, &spec, name),
        Change::Skill(name) => skill_off(inputs, base, change, &spec, name),
        Change::SkillInvocation(name) => skill_invocation_off(inputs, base, change, &spec, name),
        Change::Package(name) => package_off(inputs, base, change, &spec, name),
        Change::Context(p) => context_off(inputs, base, change, &spec, p),
        Change::AppendPrompt => append_prompt_off(inputs, base, change, &spec),
        Change::Entry(id) => entry_off(inputs, change, &spec, id),
        Change::Turn(id) => turn_off(inputs, change, &spec, id),
        Change::ToolResult { id, lines: n } => tool_result_cut(inputs, change, &spec, id, *n),
        Change::ThinkingOld => old_thinking_off(inputs, base, change, &spec),
        Change::Image(None) => images_blocked(inputs, base, change, &spec),
        Change::Image(Some(id)) => entry_images_off(inputs, change, &spec, id),
        Change::Model(m) => {
            inputs.model = Some(m.clone());
            let (take_home, text) = value_flag(inputs, "--model", m, "/model");
            Ok(applied(format!("model {m}"), take_home, text))
        }
        Change::Thinking(t) => {
            inputs.thinking = Some(t.clone());
            let (take_home, text) = value_flag(inputs, "--thinking", t, "shift+tab");
            Ok(applied(format!("thinking level {t}"), take_home, text))
        }
        Change::Api(api) => {
            let model = base.parts.model_choice.model.as_ref();
            let reference = model.map_or_else(|| "the model".to_string(), |m| m.reference());
            // The protocol is the model's `api`: where models.json defines the model's provider,
            // the edit there is the change pi makes; else the protocol switch.
            if let Some((path, content, line)) =
                model.and_then(|m| models_json_api_edit(inputs, m, api.as_str()))
            {
                inputs.files.insert(&path, content.clone());
                return Ok(applied(
                    format!("protocol {} ({path}: {line})", api.as_str()),
                    TakeHome::EditFile {
                        path: path.clone(),
                        line: line.clone(),
                        content,
                    },
                    format!("in {path}: {line} (pi has no flag for the protocol)"),
                ));
            }
            inputs.api = Some(*api);
            Ok(applied(
                format!("protocol {} (the protocol switch)", api.as_str()),
                TakeHome::None {
                    why: format!("pi has no flag for the protocol: it is the model's `api`, and models.json does not define {reference}'s provider; a models.json provider entry with \"api\": \"{}\" would make it", api.as_str()),
                },
                format!("models.json: {reference}'s provider with \"api\": \"{}\" (pi has no flag for it)", api.as_str()),
            ))
        }
        Change::Pi(v) => {
            inputs.pi = Some(*v);
            let command = format!("npm install -g @earendil-works/pi-coding-agent@{v}");
            Ok(applied(
                format!("pi {v}"),
                TakeHome::Install {
                    command: command.clone(),
                },
                command,
            ))
        }
    }
}

/// `tool:NAME`: pi's `--exclude-tools`, carrying the names already excluded.
fn tool_off(
    inputs: &mut Inputs,
    base: &Assembly,
    change: &Change,
    spec: &str,
    name: &str,
) -> Result<Applied, String> {
    let applied = |did: String, take_home: TakeHome, text: String| Applied {
        change: change.clone(),
        did,
        take_home,
        text,
    };
    let active: Vec<&str> = base.parts.tools.iter().map(|t| t.name.as_str()).collect();
    if !active.contains(&name) {
        return Err(format!(
            "{spec}: no tool {name:?} is active in this request (active: {})",
            if active.is_empty() {
                "none".into()
            } else {
                active.join(", ")
            }
        ));
    }
    // `--exclude-tools` (both releases: 0.85's selection and 0.86's loadout leave an
    // excluded name out of the registry); pi assigns it, so the last one wins and
    // carries every name.
    let (given, mut rest) = take_flag(&inputs.args, &["--exclude-tools", "-xt"]);
    let mut names = given.last().cloned().unwrap_or_default();
    if !names.iter().any(|n| n == name) {
        names.push(name.to_string());
    }
    let flags = vec!["--exclude-tools".to_string(), names.join(",")];
    rest.extend(flags.iter().cloned());
    inputs.args = rest.clone();
    let mut text = flags_text(&flags);
    if !given.is_empty() {
        text.push_str(" (in place of the --exclude-tools given)");
    }
    Ok(applied(
        format!("tool {name} excluded (--exclude-tools {})", names.join(",")),
        TakeHome::Flags { flags, args: rest },
        text,
    ))
}

/// `skill:NAME`: the skill's folder (its SKILL.md's) or file removed.
fn skill_off(
    inputs: &mut Inputs,
    base: &Assembly,
    change: &Change,
    spec: &str,
    name: &str,
) -> Result<Applied, String> {
    let applied = |did: String, take_home: TakeHome, text: String| Applied {
        change: change.clone(),
        did,
        take_home,
        text,
    };
    let skill = find_skill(base, name, spec)?;
    let (paths, what) = if basename(&skill.file_path) == "SKILL.md" {
        let dir = dirname(&skill.file_path);
        (inputs.files.remove_dir(&dir), dir)
    } else {
        inputs.files.remove(&skill.file_path);
        (vec![skill.file_path.clone()], skill.file_path.clone())
    };
    if paths.is_empty() {
        return Err(format!(
            "{spec}: the skill's file {} is not among the inputs' files",
            skill.file_path
        ));
    }
    let mut text = format!("remove {what} (or move it out of pi's skill folders)");
    if inputs.args.iter().any(|a| a.contains(&what)) {
        text.push_str(", and drop the --skill that names it");
    }
    Ok(applied(
        format!(
            "skill {name} removed ({} file(s) under {what})",
            paths.len()
        ),
        TakeHome::RemoveFiles { paths: vec![what] },
        text,
    ))
}

/// Whether the settings source `source` is the package `name` names: the source itself, or an
/// npm package's name without its version.
fn package_named(source: &str, name: &str) -> bool {
    source == name
        || matches!(crate::packages::parse_source(source),
            crate::packages::Source::Npm { name: n, .. } if n == name || format!("npm:{n}") == name)
}

/// `package:NAME` for a package given with `-e SOURCE`: that flag left out of pi's command line.
fn cli_package_off(
    inputs: &mut Inputs,
    change: &Change,
    source: &str,
    skills: usize,
    templates: usize,
) -> Applied {
    let mut rest = Vec::new();
    let mut i = 0;
    while i < inputs.args.len() {
        let flag = matches!(inputs.args[i].as_str(), "-e" | "--extension");
        if flag && inputs.args.get(i + 1).map(String::as_str) == Some(source) {
            i += 2;
            continue;
        }
        rest.push(inputs.args[i].clone());
        i += 1;
    }
    inputs.args = rest.clone();
    let line: Vec<String> = rest.iter().map(|a| shell_word(a)).collect();
    Applied {
        change: change.clone(),
        did: format!(
            "-e {source} off: left out of pi's command line ({skills} skill(s), {templates} prompt template(s) with it)"
        ),
        take_home: TakeHome::Flags {
            flags: Vec::new(),
            args: rest,
        },
        text: format!("pi {} (without -e {})", line.join(" "), shell_word(source)),
    }
}

/// `package:NAME`: the package's entry removed from each settings file that lists it (as
/// `pi remove` does, without uninstalling), so none of its skills, prompt templates or
/// extensions load.
fn package_off(
    inputs: &mut Inputs,
    base: &Assembly,
    change: &Change,
    spec: &str,
    name: &str,
) -> Result<Applied, String> {
    let res = &base.parts.resources;
    let hits: Vec<&crate::packages::Package> = res
        .packages
        .iter()
        .filter(|p| package_named(&p.source, name))
        .collect();
    // A settings entry of that name first; a `-e` source only when no settings file lists it.
    let temporary = |p: &&crate::packages::Package| p.scope == crate::packages::Scope::Temporary;
    let hits: Vec<&crate::packages::Package> = if hits.iter().all(temporary) {
        hits
    } else {
        hits.into_iter().filter(|p| !temporary(p)).collect()
    };
    let Some(first) = hits.first() else {
        let listed: Vec<&str> = res.packages.iter().map(|p| p.source.as_str()).collect();
        return Err(format!(
            "{spec}: no package {name} in the settings; {}",
            if listed.is_empty() {
                "they list none".to_string()
            } else {
                format!("they list: {}", listed.join(", "))
            }
        ));
    };
    let from = |p: &Option<String>| {
        p.as_deref()
            .is_some_and(|s| hits.iter().any(|h| h.source == s))
    };
    let skills = res.skills.iter().filter(|k| from(&k.package)).count();
    let templates = res
        .prompt_templates
        .iter()
        .filter(|t| from(&t.package))
        .count();
    if first.scope == crate::packages::Scope::Temporary {
        return Ok(cli_package_off(
            inputs,
            change,
            &first.source,
            skills,
            templates,
        ));
    }
    let mut edited: Option<(String, String)> = None;
    let mut files: Vec<&str> = hits.iter().map(|p| p.settings_file.as_str()).collect();
    files.dedup();
    for file in files {
        let Some(Ok(Value::Object(mut o))) =
            inputs.files.read_to_string(file).map(|t| js::parse(&t))
        else {
            return Err(format!("{spec}: {file} is not a JSON object"));
        };
        let kept: Vec<Value> = o
            .get("packages")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .filter(|v| {
                let source = v
                    .as_str()
                    .or_else(|| v.get("source").and_then(Value::as_str));
                !source.is_some_and(|s| package_named(s, name))
            })
            .collect();
        o.insert("packages", Value::Array(kept));
        let content = Value::Object(o).to_json_pretty(2);
        inputs.files.insert(file, content.clone());
        edited.get_or_insert((file.to_string(), content));
    }
    let (path, content) = edited.expect("one file at least");
    let local = if first.scope == crate::packages::Scope::Project {
        " -l"
    } else {
        ""
    };
    Ok(Applied {
        change: change.clone(),
        did: format!(
            "package {} off: its settings entry removed ({skills} skill(s), {templates} prompt template(s) with it)",
            first.source
        ),
        take_home: TakeHome::EditFile {
            path: path.clone(),
            line: format!("\"packages\" without {}", first.source),
            content,
        },
        text: format!(
            "in {path}: remove {} from \"packages\" (pi remove{local} {} also uninstalls it)",
            first.source, first.source
        ),
    })
}

/// `skill-invocation:NAME`: `disable-model-invocation: true` in its SKILL.md frontmatter.
fn skill_invocation_off(
    inputs: &mut Inputs,
    base: &Assembly,
    change: &Change,
    spec: &str,
    name: &str,
) -> Result<Applied, String> {
    let applied = |did: String, take_home: TakeHome, text: String| Applied {
        change: change.clone(),
        did,
        take_home,
        text,
    };
    let skill = find_skill(base, name, spec)?;
    if skill.disable_model_invocation {
        return Err(format!(
            "{spec}: skill {name} already has disable-model-invocation: true"
        ));
    }
    let text = inputs
        .files
        .read_to_string(&skill.file_path)
        .ok_or_else(|| format!("{spec}: {} is not among the inputs' files", skill.file_path))?;
    let content = set_frontmatter_flag(&text, "disable-model-invocation", "true")
        .ok_or_else(|| format!("{spec}: {} has no frontmatter", skill.file_path))?;
    inputs.files.insert(&skill.file_path, content.clone());
    let line = "disable-model-invocation: true".to_string();
    Ok(applied(
        format!("{}: frontmatter {line}", skill.file_path),
        TakeHome::EditFile {
            path: skill.file_path.clone(),
            line: line.clone(),
            content,
        },
        format!("in {}'s frontmatter: {line}", skill.file_path),
    ))
}

/// `context:PATH`: the context file removed (a path, or a unique end of one on a `/`).
fn context_off(
    inputs: &mut Inputs,
    base: &Assembly,
    change: &Change,
    spec: &str,
    p: &str,
) -> Result<Applied, String> {
    let res = &base.parts.resources;
    let applied = |did: String, take_home: TakeHome, text: String| Applied {
        change: change.clone(),
        did,
        take_home,
        text,
    };
    let files = &res.context_files;
    let hits: Vec<&crate::resources::ContextFile> = files
        .iter()
        .filter(|f| f.path == *p || f.path.ends_with(&format!("/{}", p.trim_start_matches('/'))))
        .collect();
    let listed = || {
        files
            .iter()
            .map(|f| f.path.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let f = match hits.as_slice() {
        [f] => *f,
        [] => {
            return Err(format!(
            "{spec}: no context file in the prompt is {p:?} or ends with it (in the prompt: {})",
            if files.is_empty() {
                "none".into()
            } else {
                listed()
            }
        ))
        }
        _ => {
            return Err(format!(
                "{spec}: {p:?} names several context files ({}); give more of the path",
                hits.iter()
                    .map(|f| f.path.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        }
    };
    if !inputs.files.remove(&f.path) {
        return Err(format!("{spec}: {} is not among the inputs' files", f.path));
    }
    let mut text = format!("remove or rename {}", f.path);
    if let Some(next) = f.shadowed.first() {
        text.push_str(&format!(
            " ({next} in the same folder, which it shadowed, is then read in its place)"
        ));
    }
    Ok(applied(
        format!("context file {} removed", f.path),
        TakeHome::RemoveFiles {
            paths: vec![f.path.clone()],
        },
        text,
    ))
}

/// `append-prompt`: `--append-system-prompt ''` in place of the ones given.
fn append_prompt_off(
    inputs: &mut Inputs,
    base: &Assembly,
    change: &Change,
    spec: &str,
) -> Result<Applied, String> {
    let res = &base.parts.resources;
    let applied = |did: String, take_home: TakeHome, text: String| Applied {
        change: change.clone(),
        did,
        take_home,
        text,
    };
    if res.append_prompts.is_empty() {
        return Err(format!(
            "{spec}: this request has no appended system prompt (no APPEND_SYSTEM.md, no --append-system-prompt)"
        ));
    }
    // pi takes the CLI values instead of discovering APPEND_SYSTEM.md, and drops an
    // empty one: `--append-system-prompt ""` is the append off.
    let (_, mut rest) = take_flag(&inputs.args, &["--append-system-prompt"]);
    let flags = vec!["--append-system-prompt".to_string(), String::new()];
    rest.extend(flags.iter().cloned());
    inputs.args = rest.clone();
    let from: Vec<String> = res
        .append_prompts
        .iter()
        .map(|a| {
            a.path
                .clone()
                .unwrap_or_else(|| "--append-system-prompt".into())
        })
        .collect();
    Ok(applied(
        format!("appended prompt off ({})", from.join(", ")),
        TakeHome::Flags { flags, args: rest },
        format!(
            "pi --append-system-prompt '' (instead of {}; or remove the file)",
            from.join(", ")
        ),
    ))
}

/// `entry:ID`: the entry's line removed, its children reparented to its parent.
fn entry_off(
    inputs: &mut Inputs,
    change: &Change,
    spec: &str,
    id: &str,
) -> Result<Applied, String> {
    let applied = |did: String, take_home: TakeHome, text: String| Applied {
        change: change.clone(),
        did,
        take_home,
        text,
    };
    let mut edits = Vec::new();
    let content = edit_session(inputs, spec, |lines| {
        let at = find_line(lines, id)
            .ok_or_else(|| format!("{spec}: no entry with id {id:?} in the session"))?;
        remove_entry(lines, spec, at, &mut edits)
    })?;
    Ok(applied(
        format!("entry {id} removed from the session, its children reparented to its parent"),
        TakeHome::EditSession {
            edits: edits.clone(),
            content,
        },
        format!("edit the session file: {}", edits.join("; ")),
    ))
}

/// Removes the entry on `lines[at]`, its children reparented to its parent (`edits` says what
/// changed, with the lines as they were numbered before this removal); refused when another
/// entry names it as its compaction's first kept entry, a branch's target or a summary's origin.
fn remove_entry(
    lines: &mut Vec<Line>,
    spec: &str,
    at: usize,
    edits: &mut Vec<String>,
) -> Result<(), String> {
    let id = lines[at]
        .value
        .as_ref()
        .and_then(|v| v.get_str("id"))
        .unwrap_or("")
        .to_string();
    for (k, l) in lines.iter().enumerate() {
        let Some(Value::Object(o)) = l.value.as_ref() else {
            continue;
        };
        for key in ["firstKeptEntryId", "targetId", "fromId"] {
            if o.get_str(key) == Some(id.as_str()) {
                return Err(format!(
                    "{spec}: entry {id} is the {key} of the entry on line {}: removing it would leave that entry pointing nowhere",
                    k + 1
                ));
            }
        }
    }
    let removed = lines.remove(at);
    let parent = removed
        .value
        .as_ref()
        .and_then(|v| v.get("parentId").cloned())
        .unwrap_or(Value::Null);
    edits.push(format!("line {} (entry {id}) removed", at + 1));
    for l in lines.iter_mut() {
        let Some(Value::Object(o)) = l.value.as_mut() else {
            continue;
        };
        if o.get_str("parentId") == Some(id.as_str()) {
            o.insert("parentId", parent.clone());
            l.dirty = true;
            edits.push(format!(
                "entry {}: parentId {id} → {}",
                o.get_str("id").unwrap_or("?"),
                parent.to_json()
            ));
        }
    }
    Ok(())
}

/// The role of a `message` entry (`None` for any other entry).
fn message_role(l: &Line) -> Option<&str> {
    let v = l.value.as_ref()?;
    if v.get_str("type") != Some("message") {
        return None;
    }
    v.get("message").and_then(|m| m.get_str("role"))
}

/// `turn:ID`: the user message `ID` and the messages of its exchange removed, each as
/// [`entry_off`] removes one (in the file's order, so a removed entry's children move up to the
/// nearest entry that stays). The exchange is every `message` entry below the user message that
/// is neither a user message nor a system message, up to the next user message on each branch;
/// the other entries on the way (system messages, model and level changes, labels, custom
/// entries) stay, reparented.
fn turn_off(inputs: &mut Inputs, change: &Change, spec: &str, id: &str) -> Result<Applied, String> {
    let mut edits = Vec::new();
    let mut counts: Vec<(String, usize)> = Vec::new();
    let content = edit_session(inputs, spec, |lines| {
        let at = find_line(lines, id)
            .ok_or_else(|| format!("{spec}: no entry with id {id:?} in the session"))?;
        if message_role(&lines[at]) != Some("user") {
            return Err(format!(
                "{spec}: entry {id} is not a user message (a turn starts at one: entry:{id} removes that entry alone)"
            ));
        }
        // The exchange: a walk down the tree from the user message, through the entries that
        // stay, to the next user message on each branch.
        let id_of = |l: &Line| {
            l.value
                .as_ref()
                .and_then(|v| v.get_str("id"))
                .map(str::to_string)
        };
        let parent_of = |l: &Line| {
            l.value
                .as_ref()
                .and_then(|v| v.get_str("parentId"))
                .map(str::to_string)
        };
        let mut turn: Vec<String> = vec![id.to_string()];
        let mut frontier: Vec<String> = vec![id.to_string()];
        let mut seen: std::collections::HashSet<String> = frontier.iter().cloned().collect();
        while let Some(p) = frontier.pop() {
            for l in lines.iter() {
                if parent_of(l).as_deref() != Some(p.as_str()) {
                    continue;
                }
                let Some(child) = id_of(l) else { continue };
                if !seen.insert(child.clone()) {
                    continue;
                }
                match message_role(l) {
                    Some("user") => {}
                    Some("system") | None => frontier.push(child),
                    Some(role) => {
                        match counts.iter_mut().find(|(r, _)| r == role) {
                            Some((_, n)) => *n += 1,
                            None => counts.push((role.to_string(), 1)),
                        }
                        turn.push(child.clone());
                        frontier.push(child);
                    }
                }
            }
        }
        // In the file's order; the edits said are the lines removed and the parents that
        // changed on the lines that stay (not each step of the way).
        let mut at_lines: Vec<usize> = turn.iter().filter_map(|t| find_line(lines, t)).collect();
        at_lines.sort_unstable();
        // The parents of the lines that stay, as they were (in order, so line by line beside
        // the lines left).
        let parents_before: Vec<Option<String>> = lines
            .iter()
            .enumerate()
            .filter(|(k, _)| at_lines.binary_search(k).is_err())
            .map(|(_, l)| parent_of(l))
            .collect();
        let mut each_step = Vec::new();
        for (removed, at) in at_lines.iter().enumerate() {
            remove_entry(lines, spec, at - removed, &mut each_step)?;
        }
        edits.push(format!(
            "line{} {} removed (entries {})",
            if at_lines.len() > 1 { "s" } else { "" },
            at_lines
                .iter()
                .map(|k| (k + 1).to_string())
                .collect::<Vec<_>>()
                .join(", "),
            turn.join(", ")
        ));
        for (l, before) in lines.iter().zip(parents_before) {
            let (Some(entry), Some(now)) = (id_of(l), l.value.as_ref()) else {
                continue;
            };
            if before.as_deref() != now.get_str("parentId") {
                edits.push(format!(
                    "entry {entry}: parentId {} → {}",
                    before.as_deref().unwrap_or("null"),
                    now.get("parentId").map_or("null".into(), Value::to_json)
                ));
            }
        }
        Ok(())
    })?;
    let answered = if counts.is_empty() {
        "no answer".to_string()
    } else {
        counts
            .iter()
            .map(|(r, n)| format!("{n} {r}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Ok(Applied {
        change: change.clone(),
        did: format!(
            "turn {id} removed from the session: its user message and its exchange ({answered}), the entries after it reparented"
        ),
        take_home: TakeHome::EditSession {
            edits: edits.clone(),
            content,
        },
        text: format!("edit the session file: {}", edits.join("; ")),
    })
}

/// `tool-result:ID[:N]`: the stored result's text cut to N lines, or its text blocks removed.
fn tool_result_cut(
    inputs: &mut Inputs,
    change: &Change,
    spec: &str,
    id: &str,
    n: Option<usize>,
) -> Result<Applied, String> {
    let applied = |did: String, take_home: TakeHome, text: String| Applied {
        change: change.clone(),
        did,
        take_home,
        text,
    };
    let mut did = String::new();
    edit_session(inputs, spec, |lines| {
        let at = find_line(lines, id)
            .ok_or_else(|| format!("{spec}: no entry with id {id:?} in the session"))?;
        let l = &mut lines[at];
        let msg = l
            .value
            .as_mut()
            .and_then(|v| v.as_object_mut())
            .and_then(|o| o.get_mut("message"))
            .and_then(|m| m.as_object_mut())
            .filter(|m| m.get_str("role") == Some("toolResult"))
            .ok_or_else(|| format!("{spec}: entry {id} is not a tool result"))?;
        let content = msg
            .get_mut("content")
            .and_then(|c| c.as_array_mut())
            .ok_or_else(|| format!("{spec}: tool result {id} has no content list"))?;
        let total: usize = content
            .iter()
            .filter_map(|b| {
                (b.get_str("type") == Some("text"))
                    .then(|| b.get_str("text"))
                    .flatten()
            })
            .map(|t| t.split('\n').count())
            .sum();
        match n {
            None => {
                content.retain(|b| b.get_str("type") != Some("text"));
                did = format!("tool result {id} emptied (its {total} text line(s) dropped)");
            }
            Some(n) => {
                if n >= total {
                    return Err(format!(
                        "{spec}: tool result {id} has {total} line(s): nothing to cut at {n}"
                    ));
                }
                let mut left = n;
                content.retain_mut(|b| {
                    if b.get_str("type") != Some("text") {
                        return true;
                    }
                    if left == 0 {
                        return false;
                    }
                    let text = b.get_str("text").unwrap_or("").to_string();
                    let kept: Vec<&str> = text.split('\n').take(left).collect();
                    left -= kept.len();
                    if let Some(o) = b.as_object_mut() {
                        o.insert("text", Value::str(kept.join("\n")));
                    }
                    true
                });
                did = format!("tool result {id} cut to its first {n} of {total} lines");
            }
        }
        l.dirty = true;
        Ok(())
    })?;
    Ok(applied(
        did,
        TakeHome::None {
            why: "pi has no setting that cuts a stored tool result; the what-if edits the session's entry (an extension's tool_result handler can shorten results as they are made)".into(),
        },
        "pi has no way to cut a stored tool result (for new ones: an extension's tool_result handler)".into(),
    ))
}

/// `thinking:old`: the thinking blocks of the answers before the request's last user message.
fn old_thinking_off(
    inputs: &mut Inputs,
    base: &Assembly,
    change: &Change,
    spec: &str,
) -> Result<Applied, String> {
    let applied = |did: String, take_home: TakeHome, text: String| Applied {
        change: change.clone(),
        did,
        take_home,
        text,
    };
    let file = base
        .parts
        .session
        .as_ref()
        .ok_or_else(|| format!("{spec}: there is no session"))?;
    let branch: Vec<String> = base
        .parts
        .session_context
        .path_indices
        .iter()
        .filter_map(|&i| file.entries.get(i))
        .filter_map(|e| e.id().map(String::from))
        .collect();
    let mut dropped = 0usize;
    let new_prompt = inputs.prompt.is_some() && inputs.call.is_none();
    edit_session(inputs, spec, |lines| {
        // The last user message of the branch: assistant messages before it are old.
        let role = |l: &Line| {
            l.value
                .as_ref()
                .and_then(|v| v.get("message"))
                .and_then(|m| m.get_str("role"))
                .map(String::from)
        };
        let on_branch: Vec<usize> = branch
            .iter()
            .filter_map(|id| find_line(lines, id))
            .collect();
        // A new prompt is the request's last user message: every stored answer is old.
        let last_user = if new_prompt {
            on_branch.len()
        } else {
            on_branch
                .iter()
                .rposition(|&k| role(&lines[k]).as_deref() == Some("user"))
                .unwrap_or(0)
        };
        for &k in &on_branch[..last_user] {
            if role(&lines[k]).as_deref() != Some("assistant") {
                continue;
            }
            let l = &mut lines[k];
            let Some(content) = l
                .value
                .as_mut()
                .and_then(|v| v.as_object_mut())
                .and_then(|o| o.get_mut("message"))
                .and_then(|m| m.as_object_mut())
                .and_then(|m| m.get_mut("content"))
                .and_then(|c| c.as_array_mut())
            else {
                continue;
            };
            let before = content.len();
            content.retain(|b| b.get_str("type") != Some("thinking"));
            if content.len() != before {
                dropped += before - content.len();
                l.dirty = true;
            }
        }
        if dropped == 0 {
            return Err(format!(
                "{spec}: no reasoning in the assistant messages before the request's last user message"
            ));
        }
        Ok(())
    })?;
    Ok(applied(
        format!("{dropped} thinking block(s) dropped from the assistant messages before the last user message"),
        TakeHome::None {
            why: "pi replays every stored reasoning block its protocol accepts; it has no setting to drop old ones".into(),
        },
        "pi has no way to drop old reasoning: it replays what the session stores".into(),
    ))
}

/// `image:all`: settings.json `images.blockImages: true` in the agent dir.
fn images_blocked(
    inputs: &mut Inputs,
    base: &Assembly,
    change: &Change,
    spec: &str,
) -> Result<Applied, String> {
    let applied = |did: String, take_home: TakeHome, text: String| Applied {
        change: change.clone(),
        did,
        take_home,
        text,
    };
    let images = base.stats().map_or(0, |s| s.by_kind.images);
    if images == 0 {
        return Err(format!("{spec}: the request has no images"));
    }
    let path = join_path(&inputs.agent_dir, "settings.json");
    let current = inputs.files.read_to_string(&path);
    let mut settings = match current.as_deref().map(js::parse) {
        None => Object::new(),
        Some(Ok(Value::Object(o))) => o,
        Some(_) => {
            return Err(format!(
                "{spec}: {path} is not a JSON object, so images.blockImages cannot be added to it"
            ))
        }
    };
    let mut img = settings.get_object("images").cloned().unwrap_or_default();
    img.insert("blockImages", Value::Bool(true));
    settings.insert("images", Value::Object(img));
    let content = Value::Object(settings).to_json_pretty(2);
    inputs.files.insert(&path, content.clone());
    Ok(applied(
        format!("images blocked ({images} in the request; {path}: images.blockImages)"),
        TakeHome::EditFile {
            path: path.clone(),
            line: "\"images\": { \"blockImages\": true }".into(),
            content,
        },
        format!("in {path}: \"images\": {{ \"blockImages\": true }} (or /settings in pi)"),
    ))
}

/// `image:ID`: the entry's image blocks removed.
fn entry_images_off(
    inputs: &mut Inputs,
    change: &Change,
    spec: &str,
    id: &str,
) -> Result<Applied, String> {
    let applied = |did: String, take_home: TakeHome, text: String| Applied {
        change: change.clone(),
        did,
        take_home,
        text,
    };
    let mut n = 0usize;
    let content = edit_session(inputs, spec, |lines| {
        let at = find_line(lines, id)
            .ok_or_else(|| format!("{spec}: no entry with id {id:?} in the session"))?;
        let l = &mut lines[at];
        if let Some(c) = l
            .value
            .as_mut()
            .and_then(|v| v.as_object_mut())
            .and_then(|o| o.get_mut("message"))
            .and_then(|m| m.as_object_mut())
            .and_then(|m| m.get_mut("content"))
            .and_then(|c| c.as_array_mut())
        {
            let before = c.len();
            c.retain(|b| b.get_str("type") != Some("image"));
            n = before - c.len();
        }
        if n == 0 {
            return Err(format!("{spec}: entry {id} holds no image"));
        }
        l.dirty = true;
        Ok(())
    })?;
    Ok(applied(
        format!("{n} image(s) of entry {id} dropped"),
        TakeHome::EditSession {
            edits: vec![format!("entry {id}: its {n} image block(s) removed")],
            content,
        },
        format!("edit the session file: entry {id} without its image(s) (every image: settings images.blockImages)"),
    ))
}

fn models_json_api_edit(
    inputs: &Inputs,
    model: &crate::model::Model,
    api: &str,
) -> Option<(String, String, String)> {
    let path = join_path(&inputs.agent_dir, "models.json");
    let text = inputs.files.read_to_string(&path)?;
    let mut v = js::parse(&crate::model::strip_json_comments(&text)).ok()?;
    let provider = v
        .as_object_mut()?
        .get_mut("providers")?
        .as_object_mut()?
        .get_mut(model.provider())?
        .as_object_mut()?;
    let own = provider
        .get_mut("models")
        .and_then(Value::as_array_mut)
        .and_then(|ms| {
            ms.iter_mut()
                .filter_map(Value::as_object_mut)
                .find(|m| m.get_str("id") == Some(model.id()) && m.contains_key("api"))
        });
    let line = match own {
        Some(m) => {
            m.insert("api", Value::str(api));
            format!(
                "\"api\": \"{api}\" on model {} of provider {}",
                model.id(),
                model.provider()
            )
        }
        None => {
            provider.insert("api", Value::str(api));
            format!("\"api\": \"{api}\" on provider {}", model.provider())
        }
    };
    Some((path, v.to_json_pretty(2), line))
}

fn find_skill<'a>(
    base: &'a Assembly,
    name: &str,
    spec: &str,
) -> Result<&'a crate::resources::Skill, String> {
    let skills = &base.parts.resources.skills;
    skills.iter().find(|s| s.name == name).ok_or_else(|| {
        format!(
            "{spec}: no skill {name:?} is loaded (skills: {})",
            if skills.is_empty() {
                "none".into()
            } else {
                skills
                    .iter()
                    .map(|s| s.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        )
    })
}

/// `text` with `key: value` in its frontmatter (the line replaced where the key is, else added
/// after the opening `---`); `None` without frontmatter.
fn set_frontmatter_flag(text: &str, key: &str, value: &str) -> Option<String> {
    let nl = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let bom = &text[..text.len() - body.len()];
    let rest = body.strip_prefix(&format!("---{nl}"))?;
    let end = rest.find(&format!("{nl}---"))?;
    let (fm, after) = (&rest[..end], &rest[end..]);
    let line = format!("{key}: {value}");
    let mut lines: Vec<String> = fm.split(nl).map(String::from).collect();
    match lines
        .iter()
        .position(|l| l.split_once(':').is_some_and(|(k, _)| k.trim() == key))
    {
        Some(i) => lines[i] = line,
        None => lines.push(line),
    }
    Some(format!("{bom}---{nl}{}{after}", lines.join(nl)))
}

/// One line of the session file, parsed.
struct Line {
    raw: String,
    value: Option<Value>,
    dirty: bool,
}

fn find_line(lines: &[Line], id: &str) -> Option<usize> {
    lines.iter().rposition(|l| {
        l.value
            .as_ref()
            .is_some_and(|v| v.get_str("type") != Some("session") && v.get_str("id") == Some(id))
    })
}

/// Edits the session text line by line (each edited line written as `JSON.stringify` writes
/// it, as pi appends entries); returns the new text.
fn edit_session(
    inputs: &mut Inputs,
    spec: &str,
    f: impl FnOnce(&mut Vec<Line>) -> Result<(), String>,
) -> Result<String, String> {
    let src = inputs
        .session
        .as_ref()
        .ok_or_else(|| format!("{spec}: there is no session"))?;
    let text: &str = &src.text;
    let trailing = text.ends_with('\n');
    let mut lines: Vec<Line> = text
        .strip_suffix('\n')
        .unwrap_or(text)
        .split('\n')
        .map(|raw| Line {
            raw: raw.to_string(),
            value: js::parse(raw.trim()).ok(),
            dirty: false,
        })
        .collect();
    f(&mut lines)?;
    let mut out = String::with_capacity(text.len());
    for (k, l) in lines.iter().enumerate() {
        if k > 0 {
            out.push('\n');
        }
        match (&l.value, l.dirty) {
            (Some(v), true) => out.push_str(&v.to_json()),
            _ => out.push_str(&l.raw),
        }
    }
    if trailing {
        out.push('\n');
    }
    let name = src.name.clone();
    inputs.session = Some(SourceText {
        name,
        text: out.clone().into(),
    });
    Ok(out)
}

/// The prices of the model (`cost`, dollars per million tokens).
#[derive(Clone, Debug, PartialEq)]
pub struct Prices {
    pub input: f64,
    pub cache_read: f64,
    pub cache_write: f64,
}

/// `None` when the model has no prices: no `cost`, or every price 0 (pi gives a models.json model
/// without `cost` zeros) — a cost would read $0, which it is not.
pub fn prices(a: &Assembly) -> Option<Prices> {
    let cost = a
        .parts
        .model_choice
        .model
        .as_ref()?
        .obj
        .get_object("cost")?;
    let get = |k: &str| cost.get_f64(k).unwrap_or(0.0);
    if ["input", "output", "cacheRead", "cacheWrite"]
        .iter()
        .all(|k| get(k) == 0.0)
    {
        return None;
    }
    Some(Prices {
        input: get("input"),
        cache_read: get("cacheRead"),
        cache_write: get("cacheWrite"),
    })
}

/// One side of a what-if: the request's tokens, window share and cost per call.
#[derive(Clone, Debug, PartialEq)]
pub struct Side {
    pub chars: usize,
    /// Images sent (their data is not counted in `chars`).
    pub images: usize,
    /// Counted with the vocabulary, or estimated (`tokens_exact` false), or unknown.
    pub tokens: Option<usize>,
    pub tokens_exact: bool,
    /// How the tokens were had: the vocabulary's name, `estimate` (calibrated on the
    /// session's usage), or pi's own estimate (`estimateCharsPerToken`) when neither is at hand.
    pub tokens_by: Option<String>,
    pub context_window: Option<f64>,
    pub window_share: Option<f64>,
    pub prices: Option<Prices>,
}

impl Side {
    fn of(a: &Assembly, s: Option<&Stats>) -> Side {
        let s = s.or(a.stats());
        let mut tokens = s
            .filter(|s| s.tokenizer.is_some())
            .map(|s| s.total_tokens());
        let mut tokens_by = s.and_then(|s| s.tokenizer.as_ref()).map(|t| t.name.clone());
        if tokens.is_none() {
            if let (Some(s), Some(pi)) = (s, &a.pi) {
                let cpt = pi.data.default_number("estimateCharsPerToken");
                if cpt > 0.0 {
                    tokens = Some((s.total_chars() as f64 / cpt).ceil() as usize);
                    tokens_by = Some(format!(
                        "pi's estimate ({} chars a token)",
                        crate::js::number_to_string(cpt)
                    ));
                }
            }
        }
        let w = tokens.and_then(|t| crate::analysis::window::window(a, t));
        Side {
            chars: s.map_or(0, |s| s.total_chars()),
            images: s.map_or(0, |s| s.by_kind.images),
            tokens,
            tokens_exact: s
                .and_then(|s| s.tokenizer.as_ref())
                .is_some_and(|t| t.exact),
            tokens_by,
            context_window: a
                .parts
                .model_choice
                .model
                .as_ref()
                .map(|m| m.context_window()),
            window_share: w.map(|w| w.share),
            prices: prices(a),
        }
    }

    /// Dollars for `tokens` at `price` per million.
    pub fn cost(&self, f: impl Fn(&Prices) -> f64) -> Option<f64> {
        Some(self.tokens? as f64 * f(self.prices.as_ref()?) / 1e6)
    }
}

/// What the change does to the cache on the next call.
#[derive(Clone, Debug, PartialEq)]
pub struct Cache {
    /// Bytes of the changed body that are the same as before (all of it when identical).
    pub stable_prefix_bytes: usize,
    /// The stable prefix's share of the changed body's bytes.
    pub stable_share: f64,
    /// Tokens of the changed request the next call reads from the cache (the stable prefix's
    /// share of its tokens, an estimate by bytes) and the ones it sends anew.
    pub next_call_cached_tokens: Option<usize>,
    pub next_call_uncached_tokens: Option<usize>,
    /// The next call's input cost: the stable prefix at the cache-read price, the rest at the
    /// cache-write price (or the input price when the model has no cache-write price).
    pub next_call_cost: Option<f64>,
    /// A later call's, the whole prefix read from the cache again.
    pub warm_call_cost: Option<f64>,
    pub note: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct WhatIf {
    pub applied: Vec<Applied>,
    pub diff: Diff,
    pub before: Side,
    pub after: Side,
    pub cache: Option<Cache>,
}

/// Compares `base` with `changed` (the inputs with `applied`); the stats with tokens when the
/// host counted or estimated them.
pub fn compare(
    applied: Vec<Applied>,
    base: &Assembly,
    changed: &Assembly,
    base_stats: Option<&Stats>,
    changed_stats: Option<&Stats>,
) -> WhatIf {
    let diff = diff::diff(base, changed, base_stats, changed_stats);
    let before = Side::of(base, base_stats);
    let after = Side::of(changed, changed_stats);
    let cache = changed.body().map(|body| {
        let len = body.len().max(1);
        let stable = match &diff.first_change {
            Some(f) => f.byte,
            None if base.body().is_some() => body.len(),
            None => 0,
        };
        let share = stable as f64 / len as f64;
        let cached = after.tokens.map(|t| (t as f64 * share).round() as usize);
        let uncached = after.tokens.zip(cached).map(|(t, c)| t - c.min(t));
        let (next, warm) = match (&after.prices, cached, uncached) {
            (Some(p), Some(c), Some(u)) => {
                let write = if p.cache_write > 0.0 { p.cache_write } else { p.input };
                (
                    Some((c as f64 * p.cache_read + u as f64 * write) / 1e6),
                    after.tokens.map(|t| t as f64 * p.cache_read / 1e6),
                )
            }
            _ => (None, None),
        };
        let note = if diff.identical {
            "the request is byte-identical: the cache is untouched".to_string()
        } else if stable == 0 {
            "the first byte changes: the next call reads nothing from the cache".to_string()
        } else {
            format!(
                "the first {stable} bytes ({:.1}%) stay byte-stable: the next call can read them from a prompt cache written before the change (at the provider's cache granularity); everything after the first changed byte is sent and cached anew, and later calls read the new prefix",
                share * 100.0
            )
        };
        Cache {
            stable_prefix_bytes: stable,
            stable_share: share,
            next_call_cached_tokens: cached,
            next_call_uncached_tokens: uncached,
            next_call_cost: next,
            warm_call_cost: warm,
            note,
        }
    });
    WhatIf {
        applied,
        diff,
        before,
        after,
        cache,
    }
}

/// One call of the session rebuilt before and after the change.
#[derive(Clone, Debug, PartialEq)]
pub struct CallRow {
    pub index: usize,
    pub entry_id: Option<String>,
    pub line: u32,
    pub before_chars: usize,
    pub after_chars: Option<usize>,
    pub before_tokens: Option<usize>,
    pub after_tokens: Option<usize>,
    /// The usage the provider reported: input + cacheRead + cacheWrite.
    pub reported_tokens: Option<f64>,
    /// The reported tokens scaled by what the change does to this call's request (its tokens
    /// counted both ways, else its characters): the provider's count with the change, estimated
    /// from the call's own usage (for a model whose vocabulary is not known, Claude's, the
    /// tokens a call would have cost).
    pub reported_tokens_after: Option<f64>,
    /// The input side of the call's cost (input, cache read, cache write): as pi recorded it
    /// (`usage.cost`), else the reported tokens at the model's prices.
    pub reported_cost: Option<f64>,
    pub note: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SessionWhatIf {
    pub calls: Vec<CallRow>,
    /// Calls with usage in the session, and how many were rebuilt.
    pub calls_with_usage: usize,
    /// Summed over the calls: past 4 GB of text on a 32-bit target (wasm), so not `usize`s.
    pub before_chars: u64,
    pub after_chars: u64,
    pub before_tokens: Option<u64>,
    pub after_tokens: Option<u64>,
    /// The reported input tokens of the rebuilt calls, scaled by each call's after/before ratio.
    pub reported_tokens: f64,
    pub reported_tokens_after: Option<f64>,
    /// Input cost saved over the rebuilt calls: each call's input cost scaled by what the
    /// change does to its request.
    pub cost_saved: Option<f64>,
    pub notes: Vec<String>,
}

fn sample(n: usize, k: usize) -> Vec<usize> {
    if n <= k {
        return (0..n).collect();
    }
    let mut out: Vec<usize> = (0..k)
        .map(|j| (n - 1) - (k - 1 - j) * (n - 1) / (k - 1))
        .collect();
    out.dedup();
    out
}

/// Every call of `base`'s session with usage (at most `max_calls`, evenly spaced, the last
/// included; default [`MAX_CALLS`]) rebuilt from `inputs` as it is, and with `changes` made at
/// the start: applied to `target` (`inputs`, or the inputs read again as another release reads
/// them) for that call, so a change is checked against the call's own request (a change that
/// finds nothing there leaves the call as it was, said) and `thinking:old` keeps that call's
/// last turn. With the totals. `count` gives a rebuilt assembly's tokens (counted or
/// estimated), `None` for characters only. The assemblies are made in `ws`: the session is read
/// once, and the calls as they are, kept there, serve every later what-if of the same inputs.
pub fn session(
    ws: &crate::Workspace,
    inputs: &Inputs,
    target: &Inputs,
    changes: &[Change],
    base: &Assembly,
    max_calls: Option<usize>,
    count: &mut dyn FnMut(&Inputs, &Assembly) -> Option<usize>,
) -> SessionWhatIf {
    let mut r = SessionRebuild::new(inputs, target, changes, base, max_calls);
    while r.step(ws, count) {}
    r.finish()
}

/// The system prompt, tools and history of `a`'s request in characters: the statistics' sums
/// alone (a session's every call is rebuilt twice; no row per message is needed of them).
fn total_chars(a: &Assembly) -> Option<usize> {
    crate::analysis::stats::sums(a, None)
        .ok()
        .flatten()
        .map(|s| s.total_chars())
}

/// [`session`] one call at a time, for a host that has other work between the calls (the app's
/// worker answers a newer what-if without waiting for the whole session of an older one).
pub struct SessionRebuild {
    inputs: Inputs,
    target: Inputs,
    changes: Vec<Change>,
    /// The calls to rebuild, in order.
    picked: Vec<crate::calls::Call>,
    next: usize,
    /// The request's own diagnostics (a call's warning that the request has too is not the
    /// call's).
    base_diagnostics: Vec<crate::diagnostics::Diagnostic>,
    transcript: bool,
    out: SessionWhatIf,
    unchanged_prompt_calls: usize,
    saved_cost: f64,
    priced: bool,
}

impl SessionRebuild {
    /// The calls of `base`'s session to rebuild (see [`session`]), none rebuilt yet.
    pub fn new(
        inputs: &Inputs,
        target: &Inputs,
        changes: &[Change],
        base: &Assembly,
        max_calls: Option<usize>,
    ) -> SessionRebuild {
        let with_usage: Vec<&crate::calls::Call> =
            base.calls.iter().filter(|c| c.usage.is_some()).collect();
        let picked = sample(with_usage.len(), max_calls.unwrap_or(MAX_CALLS).max(1));
        let mut out = SessionWhatIf {
            calls: Vec::new(),
            calls_with_usage: with_usage.len(),
            before_chars: 0,
            after_chars: 0,
            before_tokens: Some(0),
            after_tokens: Some(0),
            reported_tokens: 0.0,
            reported_tokens_after: Some(0.0),
            cost_saved: None,
            notes: Vec::new(),
        };
        if picked.len() < with_usage.len() {
            out.notes.push(format!(
                "{} of the {} calls with usage rebuilt, evenly spaced (the last included): each is two more assemblies of the session",
                picked.len(),
                with_usage.len()
            ));
        }
        SessionRebuild {
            inputs: inputs.clone(),
            target: target.clone(),
            changes: changes.to_vec(),
            picked: picked.into_iter().map(|i| with_usage[i].clone()).collect(),
            next: 0,
            base_diagnostics: base.diagnostics.clone(),
            transcript: base.pi.as_ref().is_some_and(|p| p.rules.transcript),
            out,
            unchanged_prompt_calls: 0,
            saved_cost: 0.0,
            priced: false,
        }
    }

    /// How many calls there are to rebuild, and how many are rebuilt.
    pub fn progress(&self) -> (usize, usize) {
        (self.next, self.picked.len())
    }

    /// Rebuilds the next call (its two assemblies, in `ws`); `false` once every call is done.
    pub fn step(
        &mut self,
        ws: &crate::Workspace,
        count: &mut dyn FnMut(&Inputs, &Assembly) -> Option<usize>,
    ) -> bool {
        if self.next == self.picked.len() {
            return false;
        }
        self.next += 1;
        let call = &self.picked[self.next - 1];
        let out = &mut self.out;
        let changes = &self.changes[..];
        let u = call.usage.as_ref().expect("filtered");
        let reported = u.input + u.cache_read + u.cache_write;
        let at = |i: &Inputs| {
            let mut i = i.clone();
            i.prompt = None;
            i.call = Some(match &call.entry_id {
                Some(id) => CallRef::Entry(id.clone()),
                None => CallRef::Index(call.index),
            });
            let a = ws.assemble(&i);
            (i, a)
        };
        let (bi, b) = at(&self.inputs);
        let mut ti = self.target.clone();
        ti.prompt = None;
        ti.call = bi.call.clone();
        let (ci, changed_call, unchanged) = match apply(&ti, &b, changes) {
            Ok((ci, _)) => {
                let c = ws.assemble_unkept(&ci);
                (ci, Some(c), None)
            }
            Err(e) => (bi.clone(), None, Some(e)),
        };
        let c: &Assembly = changed_call.as_ref().unwrap_or(&b);
        let mut row = CallRow {
            index: call.index,
            entry_id: call.entry_id.clone(),
            line: call.line,
            before_chars: total_chars(&b).unwrap_or(0),
            after_chars: None,
            before_tokens: None,
            after_tokens: None,
            reported_tokens: Some(reported),
            reported_tokens_after: None,
            reported_cost: None,
            note: None,
        };
        if b.request.is_none() {
            row.note = Some("not rebuilt: pi would not send this request".into());
            out.calls.push(row);
            return true;
        }
        if c.request.is_none() {
            row.note = Some(format!(
                "no request after the change: {}",
                c.diagnostics
                    .iter()
                    .find(|d| d.severity == crate::Severity::Error)
                    .map_or("pi would send nothing", |d| d.message.as_str())
            ));
            out.calls.push(row);
            return true;
        }
        row.after_chars = total_chars(c);
        // A warning about this call's rebuild that the request itself does not have (an older
        // pi made the call, ...): not what was sent, so not in the totals.
        if let Some(w) = b
            .diagnostics
            .iter()
            .find(|d| d.severity != crate::Severity::Info && !self.base_diagnostics.contains(d))
        {
            row.note = Some(format!(
                "not comparable, left out of the totals: {}",
                w.message
            ));
            out.calls.push(row);
            return true;
        }
        row.before_tokens = count(&bi, &b);
        row.after_tokens = count(&ci, c);
        if let Some(e) = &unchanged {
            row.note = Some(format!(
                "unchanged: the change finds nothing in this call's request ({e})"
            ));
        } else if self.transcript && b.body() == c.body() {
            self.unchanged_prompt_calls += 1;
        }
        out.before_chars += row.before_chars as u64;
        out.after_chars += row.after_chars.unwrap_or(0) as u64;
        out.before_tokens = out
            .before_tokens
            .zip(row.before_tokens)
            .map(|(a, b)| a + b as u64);
        out.after_tokens = out
            .after_tokens
            .zip(row.after_tokens)
            .map(|(a, b)| a + b as u64);
        out.reported_tokens += reported;
        // The reported tokens scaled by what the change does to this call's request.
        let ratio = match (row.before_tokens, row.after_tokens) {
            (Some(x), Some(y)) if x > 0 => Some(y as f64 / x as f64),
            _ if row.before_chars > 0 => {
                Some(row.after_chars.unwrap_or(0) as f64 / row.before_chars as f64)
            }
            _ => None,
        };
        row.reported_tokens_after = ratio.map(|r| reported * r);
        out.reported_tokens_after = out
            .reported_tokens_after
            .zip(ratio)
            .map(|(s, r)| s + reported * r);
        // The input side of the call's cost: as pi recorded it (`usage.cost`: input, cacheRead,
        // cacheWrite; a zero record, made without prices, does not count), else the reported
        // tokens at the model's prices; the change scales it.
        let recorded = u.cost.as_ref().and_then(|c| {
            let part = |k: &str| c.get(k).and_then(Value::as_f64).unwrap_or(0.0);
            Some(part("input") + part("cacheRead") + part("cacheWrite")).filter(|x| *x > 0.0)
        });
        let computed = prices(&b).map(|p| {
            (u.input * p.input + u.cache_read * p.cache_read + u.cache_write * p.cache_write) / 1e6
        });
        if let (Some(cost), Some(r)) = (recorded.or(computed), ratio) {
            self.priced = true;
            row.reported_cost = Some(cost);
            self.saved_cost += cost * (1.0 - r);
        }
        out.calls.push(row);
        true
    }

    /// The session's what-if from the calls rebuilt (all of them, once [`step`](Self::step)
    /// says so), with its totals and notes.
    pub fn finish(self) -> SessionWhatIf {
        let mut out = self.out;
        if self.priced {
            out.cost_saved = Some(self.saved_cost);
        }
        let left_out = out
            .calls
            .iter()
            .filter(|c| {
                c.note
                    .as_deref()
                    .is_some_and(|n| !n.starts_with("unchanged"))
            })
            .count();
        if left_out > 0 {
            out.notes.push(format!(
                "{left_out} of the {} calls rebuilt are left out of the totals (each call's note says why)",
                out.calls.len()
            ));
        }
        if self.unchanged_prompt_calls > 0 {
            out.notes.push(format!(
                "{} past call(s) rebuilt byte-identical: from 0.86 pi stores the system prompt and tool declarations it sent in the session, so a past call replays them; a change to them shows from the next request on",
                self.unchanged_prompt_calls
            ));
        }
        out
    }
}

#[cfg(test)]
#[path = "whatif_tests.rs"]
mod tests;

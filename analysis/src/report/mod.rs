//! The assembly as one plain JSON value (camelCase): what the CLI prints with `--json`, what the
//! npm package returns and what the visualizer's worker posts to the page. Only this module
//! knows that wire shape.

pub mod api_types;
pub mod calibration;
pub mod calibration_types;
pub mod calls;
pub mod compare;
pub mod compare_types;
pub mod findings;
pub mod ledger;
pub mod ledger_types;
pub mod packages;
pub mod placement;
pub mod provenance;
pub mod session_types;
pub mod stats;
pub mod summary;
pub mod tools_types;
pub mod types;
pub mod upgrade;
pub mod upgrade_types;
pub mod usage;
pub mod usage_types;
pub mod whatif;
pub mod whatif_types;
pub mod wire;

use crate::assemble::Assembly;
use crate::js::{Object, Value};
use crate::pi::Pi;
use crate::session;
use crate::trace::Trace;
use crate::AssemblyStats;
use wire::{Skip, Wire};

pub(crate) fn opt_str(s: Option<&str>) -> Value {
    s.map(Value::from).unwrap_or(Value::Null)
}

/// Where pi's code cited as `key` lives in the release rebuilt, as shown: its location there
/// (`AI/api/transform-messages.js:112`), the function that holds it when the line itself
/// changed (`… (function)`), or the key with the release it comes from when this release's
/// extraction did not find it. A key without a line (a file) is shown as it is.
pub fn pi_source(pi: Option<&Pi>, key: &str) -> String {
    let Some(pi) = pi else {
        return key.to_string();
    };
    if !key
        .rsplit_once(':')
        .is_some_and(|(_, l)| l.bytes().all(|b| b.is_ascii_digit()))
    {
        return key.to_string();
    }
    match pi.source(key) {
        Some(l) if l.exact => l.at.to_string(),
        Some(l) => format!("{} (function)", l.at),
        None => {
            let (base, rest) = match key.split_once('/') {
                Some((v, rest)) if v.parse::<crate::PiVersion>().is_ok() => (v, rest),
                _ => ("0.85.1", key),
            };
            format!("{rest} (pi {base}; not found in pi {})", pi.version)
        }
    }
}

/// [`source_prefixes`]' JSON.
pub fn source_prefixes_json(pi: Option<&Pi>) -> Value {
    source_prefixes(pi).to_value()
}

/// The pi release rebuilt and why: `{version, released, reason, explanation, detection,
/// newerSession, callRun, supported}` (`reason`: given, captured, installed, detected, call — a
/// past call rebuilt by the release that made it — or default; `detection`: what the session
/// proves, `{version, certainty, atLeast, evidence: [{line, fact}]}`, for a `call` as the
/// session stood then; `callRun`: `{lastLine, nextRunLine, later}` for a `call`).
pub fn pi_json(a: &Assembly) -> Value {
    pi_release(a).map_or(Value::Null, |p| p.to_value())
}

/// The release rebuilt and why, as the report has it (`None`: no release was chosen).
pub fn pi_release(a: &Assembly) -> Option<types::PiRelease> {
    let choice = a.choice.as_ref();
    let version =
        a.pi.as_ref()
            .map(|p| p.version)
            .or(choice.map(|c| c.version))?;
    let detection = choice
        .and_then(|c| c.detection.as_ref())
        .map(|d| types::Detection {
            version: d.version,
            certainty: d.certainty,
            at_least: d.at_least.map(str::to_string),
            evidence: d
                .evidence
                .iter()
                .map(|e| types::Evidence {
                    line: e.line.map(|l| l as usize),
                    fact: e.fact.clone(),
                })
                .collect(),
        });
    let builtin_tools = a.pi.as_ref().and_then(|pi| pi.data.tools.as_array());
    Some(types::PiRelease {
        version,
        released: version.released().to_string(),
        reason: choice.map_or(crate::pi::choice::Reason::Default, |c| c.reason),
        explanation: choice.map(|c| c.explain()),
        detection,
        call_run: choice
            .and_then(|c| c.call_run.as_ref())
            .map(|r| types::CallRun {
                last_line: r.last_line as usize,
                next_run_line: r.next_run_line as usize,
                later: r.later,
            }),
        newer_session: choice.and_then(|c| c.newer_session_warning()),
        builtin_tools: builtin_tools
            .into_iter()
            .flatten()
            .filter_map(|t| t.get_str("name").map(str::to_string))
            .collect(),
        supported: crate::PiVersion::ALL.to_vec(),
    })
}

/// The stage-by-stage trace, pi's source locations as they are in the release rebuilt.
pub fn trace_json(pi: Option<&Pi>, trace: &Trace) -> Value {
    Value::Array(stages(pi, trace).iter().map(Wire::to_value).collect())
}

/// The trace's stages as the report has them, pi's source locations as in the release rebuilt.
pub fn stages(pi: Option<&Pi>, trace: &Trace) -> Vec<types::Stage> {
    stages_with(pi, trace, None)
}

/// [`stages`], each with its first `first` events (all with `None`), the rest counted and
/// grouped by kind and rule in `eventsLeft`.
pub fn stages_with(pi: Option<&Pi>, trace: &Trace, first: Option<usize>) -> Vec<types::Stage> {
    let source = |k: Option<&str>| k.map(|k| pi_source(pi, k));
    let stage = |s: &crate::trace::Stage| {
        let shown = first.unwrap_or(usize::MAX).min(s.events.len());
        let left = &s.events[shown..];
        types::Stage {
            id: s.id,
            title: s.id.title().to_string(),
            pi_function: s.id.pi_function().to_string(),
            explanation: s.id.explanation().to_string(),
            pi_source: pi_source(pi, s.pi_source),
            summary: s.summary.clone(),
            counts: types::Counts(s.counts.iter().map(|(k, v)| (k.clone(), *v)).collect()),
            events: s.events[..shown]
                .iter()
                .map(|e| types::StageEvent {
                    kind: e.kind,
                    message: e.message.clone(),
                    pi_source: source(e.pi_source).into(),
                })
                .collect(),
            events_left: Skip((!left.is_empty()).then(|| {
                types::EventsLeft {
                    count: left.len(),
                    groups: crate::trace::group_events(left)
                        .into_iter()
                        .map(|g| compare_types::EventGroup {
                            kind: g.kind,
                            pi_source: source(g.pi_source),
                            count: g.count,
                            example: g.example,
                        })
                        .collect(),
                }
            })),
        }
    };
    trace.stages.iter().map(stage).collect()
}

/// The diagnostics ([`types::Diagnostic`]: a line when one, no spans: the report does not hold
/// the inputs' texts).
pub fn diagnostics_json(a: &Assembly) -> Value {
    Value::Array(
        a.diagnostics
            .iter()
            .map(|d| types::Diagnostic::from(d).to_value())
            .collect(),
    )
}

/// The request: method, URL, headers (as `[name, value]` pairs, in order) and the body text.
pub fn request_json(a: &Assembly) -> Value {
    request(a).to_value()
}

/// [`request_json`], without `body` when `omit_body`.
fn request_json_with(a: &Assembly, omit_body: bool) -> Value {
    if !omit_body {
        return request_json(a);
    }
    let Some(r) = a.request.as_ref() else {
        return Value::Null;
    };
    let mut v = types::RequestInfo {
        body: Default::default(),
        ..request_parts(a, r)
    }
    .to_value();
    if let Some(o) = v.as_object_mut() {
        o.remove("body");
    }
    v
}

/// [`request_json`] as the report's type (`None`: pi would send nothing).
pub fn request(a: &Assembly) -> Option<types::RequestInfo> {
    let r = a.request.as_ref()?;
    Some(types::RequestInfo {
        body: r.body.as_str().into(),
        ..request_parts(a, r)
    })
}

/// The request's method, URL and headers (its body left empty).
fn request_parts(a: &Assembly, r: &crate::protocols::Request) -> types::RequestInfo {
    let api = a.api_name();
    let runtime = api
        .parse::<crate::Api>()
        .map_or(&[][..], crate::Api::runtime_headers);
    types::RequestInfo {
        method: r.method.into(),
        url: r.url.clone(),
        headers: r.headers.clone(),
        runtime_headers: runtime.iter().map(|h| h.to_string()).collect(),
        body: Default::default(),
        url_note: r.url_note.clone(),
    }
}

/// What a message entry stores that a what-if can cut (the What-if view lists them, largest
/// first): a tool result's `toolResult` (its text blocks' UTF-16 characters and lines, counted as
/// `tool-result:ID:N` counts them) and a message's `images` (its image blocks and their base64
/// data's characters), when it has any.
fn message_sizes(entry: &Object, node: &mut types::EntryNode) {
    let Some(m) = entry.get("message") else {
        return;
    };
    let blocks = m.get("content").and_then(Value::as_array);
    let of = |kind: &'static str| {
        blocks
            .into_iter()
            .flatten()
            .filter(move |b| b.get_str("type") == Some(kind))
    };
    if m.get_str("role") == Some("toolResult") {
        let texts: Vec<&str> = of("text").filter_map(|b| b.get_str("text")).collect();
        node.tool_result = Some(types::ToolResultText {
            tool_name: m.get_str("toolName").map(str::to_string),
            chars: texts.iter().map(|t| crate::js::utf16_len(t)).sum(),
            lines: texts.iter().map(|t| t.split('\n').count()).sum(),
        })
        .into();
    }
    let images: Vec<&Value> = of("image").collect();
    if !images.is_empty() {
        node.images = Some(types::ImagesSize {
            count: images.len(),
            chars: images
                .iter()
                .map(|b| b.get_str("data").map_or(0, crate::js::utf16_len))
                .sum(),
        })
        .into();
    }
}

/// The session tree and the context it yielded. 0.86 on, entries are shown as what they are: a
/// system message is type `system` with `system` (the sections it sets or removes, the tools it
/// adds or removes), a compaction with a checkpoint has `checkpoint` (the same for its
/// `systemMessage`), a `context_edit` has `edit` (`{targetId, omitted, chars}`), a `usage` entry
/// has `usage` (`{kind, provider, model, input, output, cacheRead, cacheWrite}`). In every
/// release a tool result has `toolResult` and a message with images `images` ([`message_sizes`]).
pub fn session_json(a: &Assembly) -> Value {
    session_info(a).to_value()
}

/// [`session_json`] as the report's type (`None`: no session).
pub fn session_info(a: &Assembly) -> Option<types::SessionInfo> {
    let p = &a.parts;
    let file = p.session.as_ref()?;
    let ctx = &p.session_context;
    let transcript = a.pi.as_ref().filter(|pi| pi.rules.transcript);
    let entries = entry_nodes(a.pi.as_ref(), file, ctx);
    // 0.86 on: the entries a context edit in the context changes.
    let edited: Vec<&str> = if transcript.is_some() {
        ctx.context_indices
            .iter()
            .filter_map(|&i| file.entries.get(i))
            .filter(|e| e.kind() == "context_edit")
            .filter_map(|e| e.value.get_str("targetId"))
            .collect()
    } else {
        Vec::new()
    };
    let message_sources = ctx
        .sources
        .iter()
        .enumerate()
        .map(|(i, s)| types::MessageSourceInfo {
            entry_id: s.entry_id.clone(),
            line: s.line as usize,
            entry_type: s.entry_type.clone(),
            role: p
                .agent_messages
                .get(i)
                .and_then(|m| m.get_str("role"))
                .map(str::to_string),
            edited: s
                .entry_id
                .as_deref()
                .is_some_and(|id| edited.contains(&id))
                .then_some(true)
                .into(),
        })
        .collect();
    Some(types::SessionInfo {
        name: file.name.clone(),
        session_id: file.session_id().map(str::to_string),
        cwd: file.cwd().map(str::to_string),
        version: file.original_version as usize,
        leaf_id: ctx.leaf_id.clone(),
        compaction_id: ctx.compaction_id.clone(),
        entries,
        message_sources,
    })
}

/// The entries of `file` in file order, as the report's `session.entries` and the npm package's
/// `parseSession` give them: each with its place in the tree and in `ctx`, a message's role and
/// sizes, and (pi 0.86 on, `pi` the release that read it) a system message's, a checkpoint's, a
/// context edit's and a usage entry's details.
pub fn entry_nodes(
    pi: Option<&Pi>,
    file: &session::SessionFile,
    ctx: &session::SessionContext,
) -> Vec<types::EntryNode> {
    let transcript = pi.filter(|pi| pi.rules.transcript);
    session::tree(file, ctx)
        .into_iter()
        .zip(&file.entries)
        .map(|(n, e)| {
            let role = e
                .value
                .get("message")
                .filter(|_| n.entry_type == "message")
                .and_then(|m| m.get_str("role"));
            let mut node = types::EntryNode {
                role: role.map(str::to_string),
                line: n.line as usize,
                on_active_branch: n.on_active_branch,
                in_context: n.in_context,
                ..Default::default()
            };
            if n.entry_type == "message" {
                message_sizes(&e.value, &mut node);
            }
            node.id = n.id;
            node.parent_id = n.parent_id;
            node.entry_type = n.entry_type;
            node.preview = n.preview;
            node.label = n.label;
            if let Some(pi) = transcript {
                transcript_entry(pi, &e.value, &mut node);
            }
            node
        })
        .collect()
}

/// A one-line summary of a system message: `sets tools, rules · removes addendum · +grep −bash`.
fn system_summary(m: &Value) -> String {
    let mut set = Vec::new();
    let mut removed = Vec::new();
    if let Some(o) = m.get("sections").and_then(Value::as_object) {
        for (k, v) in o.iter() {
            if v.is_null() {
                removed.push(k.to_string());
            } else {
                set.push(k.to_string());
            }
        }
    }
    let tools = |key: &str, sign: &str| -> Vec<String> {
        m.get(key)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|t| t.get_str("name"))
                    .map(|n| format!("{sign}{n}"))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut parts = Vec::new();
    if !set.is_empty() {
        parts.push(format!("sets {}", set.join(", ")));
    }
    if !removed.is_empty() {
        parts.push(format!("removes {}", removed.join(", ")));
    }
    let mut t = tools("toolsAdded", "+");
    t.extend(tools("toolsRemoved", "−"));
    if !t.is_empty() {
        parts.push(format!("tools {}", t.join(" ")));
    }
    parts.join(" · ")
}

/// The 0.86 facts of one session entry (see [`session_json`]), added to its node.
fn transcript_entry(pi: &Pi, e: &Object, node: &mut types::EntryNode) {
    match e.get_str("type") {
        Some("message") => {
            let Some(m) = e
                .get("message")
                .filter(|m| m.get_str("role") == Some("system"))
            else {
                return;
            };
            node.entry_type = "system".into();
            let summary = system_summary(m);
            node.preview = if summary.is_empty() {
                "system message".to_string()
            } else {
                format!("system message: {summary}")
            };
            node.system = Some(system_message(pi, m)).into();
        }
        Some("compaction") => {
            node.checkpoint = e
                .get("systemMessage")
                .map(|cp| system_message(pi, cp))
                .into();
        }
        Some("context_edit") => {
            let edit = context_edit(pi, e);
            node.preview = if edit.omitted {
                format!("context edit: leaves {} out of the context", edit.target_id)
            } else {
                format!(
                    "context edit: replaces the content of {} ({} chars)",
                    edit.target_id, edit.chars
                )
            };
            node.edit = Some(edit).into();
        }
        Some("usage") => {
            let usage = usage_entry(e);
            node.preview = format!(
                "usage{}: {}/{} · {} input · {} cache read · {} output",
                if usage.kind.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", usage.kind)
                },
                e.get_str("provider").unwrap_or("?"),
                e.get_str("model").unwrap_or("?"),
                crate::js::number_to_string(usage.input),
                crate::js::number_to_string(usage.cache_read),
                crate::js::number_to_string(usage.output),
            );
            node.usage = Some(usage).into();
        }
        _ => {}
    }
}

/// A `context_edit` entry: its target, whether it leaves it out, its replacement's text.
fn context_edit(pi: &Pi, e: &Object) -> types::ContextEditInfo {
    let replacement = e.get("replacement");
    types::ContextEditInfo {
        target_id: e.get_str("targetId").unwrap_or("?").to_string(),
        omitted: replacement.is_none_or(Value::is_null),
        chars: replacement
            .and_then(|r| r.get("content"))
            .map(|c| {
                crate::js::utf16_len(&crate::transcript::content_text(
                    Some(c),
                    pi.data.string("text", "contentTextJoin"),
                ))
            })
            .unwrap_or(0),
    }
}

/// A `usage` entry's model and counts.
fn usage_entry(e: &Object) -> types::UsageEntryInfo {
    let u = e.get("usage").cloned().unwrap_or_default();
    let num = |k: &str| u.get(k).and_then(Value::as_f64).unwrap_or(0.0);
    types::UsageEntryInfo {
        kind: e.get_str("kind").unwrap_or("").to_string(),
        provider: e.get_str("provider").map(str::to_string),
        model: e.get_str("model").map(str::to_string),
        input: num("input"),
        output: num("output"),
        cache_read: num("cacheRead"),
        cache_write: num("cacheWrite"),
    }
}

/// 0.86 on: where a system message is stored, `{kind, label, line, entryId}` (`kind`:
/// `session`, `checkpoint` for a compaction's, `this-run`).
pub fn stored_json(s: &crate::prompt::Stored) -> Value {
    stored(s).to_value()
}

/// [`stored_json`] as the report's type.
pub fn stored(s: &crate::prompt::Stored) -> types::StoredAt {
    types::StoredAt {
        kind: s.kind().into(),
        label: s.label(),
        line: s.line().map(|l| l as usize),
        entry_id: s.entry_id().map(str::to_string),
    }
}

/// The system prompt with its sections (UTF-16 offsets). 0.86 on each section says which
/// stored system message set it (`stored`), and `messages` says how the system messages were
/// sent: `placement` `leading` (one system prompt first: the replay of all of them) or
/// `in-place` (each where it is stored: the first as the prompt, later ones as updates), each
/// message's range in `text`, whether it is an update, its LLM message index and where it is
/// stored.
pub fn system_prompt_json(a: &Assembly) -> Value {
    system_prompt(a).to_value()
}

/// [`system_prompt_json`] as the report's type.
pub fn system_prompt(a: &Assembly) -> types::SystemPromptInfo {
    let sp = &a.parts.system_prompt;
    let sections = sp.sections.iter().map(|s| types::PromptSection {
        name: s.name.clone(),
        source: s.source.clone(),
        start: s.start,
        end: s.end,
        stored: s.stored.as_ref().map(stored).into(),
    });
    let sent = a.parts.sent_system.as_ref();
    let messages = sent.map(|sent| {
        let list = sent.messages.iter().map(|m| types::SentSystemMessage {
            start: m.start,
            end: m.end,
            update: m.update,
            llm_index: m.llm_index,
            stored: m.stored.as_ref().map(stored),
        });
        list.collect()
    });
    types::SystemPromptInfo {
        text: sp.text.clone(),
        sections: sections.collect(),
        placement: sent.map(|s| s.placement.as_str().to_string()).into(),
        messages: messages.into(),
    }
}

/// 0.86 on: the system messages this run stores (the section patch, the tool changes), each
/// `{sections: [{name, removed, chars}], toolsAdded: [name], toolsRemoved: [name], chars}`
/// (`chars`: the text it adds, `getSystemMessageText`); `[]` before 0.86.
pub fn new_system_messages_json(a: &Assembly) -> Value {
    new_system_messages(a).to_value()
}

/// [`new_system_messages_json`] as the report's types.
pub fn new_system_messages(a: &Assembly) -> Vec<types::SystemMessageInfo> {
    let Some(pi) = a.pi.as_ref() else {
        return Vec::new();
    };
    let list = a.parts.new_system_messages.iter();
    list.map(|m| system_message(pi, m)).collect()
}

/// A system message as the views show it: the sections it sets or removes and the tools it
/// adds or removes.
pub fn system_message_json(pi: &Pi, m: &Value) -> Value {
    system_message(pi, m).to_value()
}

/// [`system_message_json`] as the report's type.
pub fn system_message(pi: &Pi, m: &Value) -> types::SystemMessageInfo {
    let names = |key: &str| -> Vec<String> {
        let list = m.get(key).and_then(Value::as_array).map(Vec::as_slice);
        let names = list.unwrap_or(&[]).iter().filter_map(|t| t.get_str("name"));
        names.map(str::to_string).collect()
    };
    let sections = m.get("sections").and_then(Value::as_object).map(|o| {
        let patch = o.iter().map(|(k, v)| types::SectionPatch {
            name: k.to_string(),
            removed: v.is_null(),
            chars: v.as_str().map_or(0, crate::js::utf16_len),
        });
        patch.collect()
    });
    types::SystemMessageInfo {
        sections: sections.unwrap_or_default(),
        tools_added: names("toolsAdded"),
        tools_removed: names("toolsRemoved"),
        chars: crate::js::utf16_len(&crate::transcript::system_message_text(pi, m)),
    }
}

/// The active tools, in order, with their sizes and prompt parts.
pub fn tools_json(a: &Assembly) -> Value {
    tools(a).to_value()
}

/// The tools the run has active, as pi defines them, each with its definition's size.
pub fn tools(a: &Assembly) -> Vec<types::ToolInfo> {
    a.parts
        .tools
        .iter()
        .map(|t| types::ToolInfo {
            name: t.name.clone(),
            source: match t.source {
                crate::tools::ToolSource::Builtin => "builtin",
                crate::tools::ToolSource::Extension { .. } => "extension",
                crate::tools::ToolSource::Declared => "session",
            }
            .into(),
            description: t.description.clone(),
            parameters: t.parameters.clone(),
            chars: crate::analysis::stats::tool_stat(t).chars,
            prompt_snippet: t.prompt_snippet.clone(),
            prompt_guidelines: t.prompt_guidelines.iter().flatten().cloned().collect(),
            strict: t.constrained_sampling.is_some(),
            package: t.package.clone(),
        })
        .collect()
}

/// 0.86 on: the tools the request sends, as the transcript's system messages declare them
/// (`getCurrentTools`, replay order), each with its size, whether it asks for strict sampling,
/// and where it was declared; `null` before 0.86.
pub fn declared_tools_json(a: &Assembly) -> Value {
    declared_tools(a).to_value()
}

/// [`declared_tools_json`] as the report's types (`None` before 0.86).
pub fn declared_tools(a: &Assembly) -> Option<Vec<types::DeclaredToolInfo>> {
    if !a.pi.as_ref().is_some_and(|pi| pi.rules.transcript) {
        return None;
    }
    let p = &a.parts;
    // Where each tool was last declared: the system message that added it.
    let declared_at = |name: &str| {
        p.agent_messages
            .iter()
            .zip(&p.message_origins)
            .rfind(|(m, _)| {
                m.get_str("role") == Some("system")
                    && m.get("toolsAdded")
                        .and_then(Value::as_array)
                        .is_some_and(|a| a.iter().any(|t| t.get_str("name") == Some(name)))
            })
            .map(|(_, o)| stored(o))
    };
    let list = p.declared_tools.iter().map(|t| types::DeclaredToolInfo {
        name: t.name.clone(),
        description: t.description.clone(),
        parameters: t.parameters.clone(),
        chars: crate::analysis::stats::tool_stat(t).chars,
        constrained_sampling: t.constrained_sampling.clone(),
        stored: declared_at(&t.name),
        active: p.tools.iter().any(|x| x.name == t.name),
    });
    Some(list.collect())
}

/// Context files (in prompt order, with the candidates they shadowed) and skills.
pub fn resources_json(a: &Assembly) -> Value {
    resources(a).to_value()
}

/// [`resources_json`] as the report's types.
pub fn resources(a: &Assembly) -> types::ResourcesInfo {
    let r = &a.parts.resources;
    let prompt_text = |p: &crate::resources::PromptText| types::PromptText {
        text: p.text.clone(),
        path: p.path.clone(),
    };
    types::ResourcesInfo {
        context_files: r
            .context_files
            .iter()
            .map(|f| types::ContextFileInfo {
                path: f.path.clone(),
                chars: crate::js::utf16_len(&f.content),
                shadowed: f.shadowed.clone(),
            })
            .collect(),
        skills: r
            .skills
            .iter()
            .map(|s| types::SkillInfo {
                name: s.name.clone(),
                description: s.description.clone(),
                path: s.file_path.clone(),
                hidden: s.disable_model_invocation,
                source: s.source.clone(),
            })
            .collect(),
        custom_prompt: r.custom_prompt.as_ref().map(prompt_text),
        append_prompts: r.append_prompts.iter().map(prompt_text).collect(),
    }
}

/// The model and thinking level pi chose.
pub fn model_json(a: &Assembly) -> Value {
    model(a).map_or(Value::Null, |m| m.to_value())
}

/// The model and the thinking level, as the report has them (`None`: pi found no model).
pub fn model(a: &Assembly) -> Option<types::ModelInfo> {
    let c = &a.parts.model_choice;
    let m = c.model.as_ref()?;
    Some(types::ModelInfo {
        provider: m.provider().to_string(),
        id: m.id().to_string(),
        name: m.name().to_string(),
        api: m.api().to_string(),
        reasoning: m.reasoning(),
        images: m.supports_images(),
        context_window: m.context_window(),
        max_tokens: m.max_tokens(),
        source: c.model_source.clone(),
        thinking_requested: c.requested_level.clone(),
        thinking_source: c.level_source.clone(),
        thinking: c.thinking_level.clone(),
    })
}

/// The release's chars per token, and pi's estimate of the context beside the model's window
/// ([`crate::analysis::checks::context_size`]; null without a model window).
pub fn estimate(a: &Assembly) -> types::ContextEstimate {
    let size = crate::analysis::derived::context_size(a);
    types::ContextEstimate {
        chars_per_token: a
            .pi
            .as_ref()
            .map(|pi| pi.data.default_number("estimateCharsPerToken")),
        tokens: size.map(|c| c.tokens),
        usage_tokens: size.map(|c| c.usage_tokens),
        context_window: size.map(|c| c.window),
    }
}

/// Tool calls the request sends to tools it does not define
/// ([`crate::analysis::checks::undefined_tool_calls`]).
pub fn undefined_tool_calls(a: &Assembly) -> Vec<types::UndefinedToolCall> {
    crate::analysis::derived::undefined_tool_calls(a)
        .iter()
        .map(|u| types::UndefinedToolCall {
            name: u.name.clone(),
            call_id: u.call_id.clone(),
            line: u.line.map(|l| l as usize),
            entry_id: u.entry_id.clone(),
        })
        .collect()
}

/// What the prefixes of pi source locations stand for (`AI` → `@earendil-works/pi-ai/dist`),
/// for the views to explain them.
pub fn source_prefixes(pi: Option<&Pi>) -> wire::Record<String> {
    let prefixes = pi.and_then(|pi| pi.data.manifest.get("sourcePrefixes"));
    wire::Record(
        prefixes
            .and_then(Value::as_object)
            .map(|o| {
                o.iter()
                    .filter_map(|(k, v)| Some((k.to_string(), v.as_str()?.to_string())))
                    .collect()
            })
            .unwrap_or_default(),
    )
}

/// One assembly as the npm package returns it beside the body's bytes
/// ([`api_types::AssemblyResult`]); `diagnostics` as the host words them (the npm package adds
/// each line's UTF-16 span in its input).
pub fn assembly_result(
    a: &Assembly,
    diagnostics: Vec<types::Diagnostic>,
) -> api_types::AssemblyResult {
    let stats = a.stats().map(stats::report);
    let packages = packages::of(a, stats.as_ref());
    let choice = &a.parts.model_choice;
    let r = a.request.as_ref();
    api_types::AssemblyResult {
        method: r.map(|r| r.method.to_string()),
        url: r.map(|r| r.url.clone()),
        headers: r.map(|r| r.headers.clone()).unwrap_or_default(),
        model: model(a),
        thinking_level: choice.thinking_level.clone(),
        pi: pi_release(a),
        session_id: a.parts.session_id.clone(),
        cwd: a.parts.cwd.clone(),
        stages: stages(a.pi.as_ref(), &a.trace),
        source_prefixes: source_prefixes(a.pi.as_ref()),
        packages,
        stats,
        findings: crate::analysis::findings::findings(a),
        diagnostics,
        calls: a.calls.iter().map(types::Call::from).collect(),
        call: calls::rebuilt(a),
    }
}

/// Everything, in one object.
pub fn assembly_json(a: &Assembly) -> Value {
    assembly_json_with(a, Omit::default())
}

/// What [`assembly_json_with`] leaves out of a report, for a host that has it already.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Omit {
    /// `provenance`: the host keeps the origins itself ([`Assembly::provenance_shared`]) and
    /// answers path by path.
    pub provenance: bool,
    /// `session`, `calls` and `usage.timeline`: the host has them from a report of the same
    /// inputs under another protocol. They are the session's alone (its entries, its active
    /// branch, the usage it recorded), so they are the same for every protocol (`report::tests`).
    pub session: bool,
    /// Each stage's events after its first `n` (counted and grouped in `eventsLeft`).
    pub events: Option<usize>,
    /// The statistics' `history.byMessage` but for the `n` largest (`messagesLeft`).
    pub messages: Option<usize>,
    /// `request.body`: the host sends the body's bytes itself (not copied into the report).
    pub body: bool,
}

/// What [`Omit::session`] leaves out of `a`'s report, for a host that sends it after the rest
/// (the app's first view): `{session, calls, usage: {timeline}}`, as the whole report has them.
pub fn session_parts_json(a: &Assembly) -> Value {
    Object::new()
        .with("session", session_json(a))
        .with("calls", calls::calls_json(a))
        .with(
            "usage",
            Object::new().with(
                "timeline",
                usage::timeline_json(crate::analysis::derived::timeline(a)),
            ),
        )
        .into()
}

/// [`assembly_json`] without what `omit` says.
pub fn assembly_json_with(a: &Assembly, omit: Omit) -> Value {
    let mut stats = a.stats().map(stats::report);
    if let (Some(s), Some(n)) = (stats.as_mut(), omit.messages) {
        s.history.keep_largest_messages(n);
    }
    let stages = stages_with(a.pi.as_ref(), &a.trace, omit.events);
    let packages = if a.parts.resources.packages.is_empty() {
        Vec::new()
    } else {
        packages::of(a, stats.as_ref())
    };
    let mut o = Object::new()
        .with("request", request_json_with(a, omit.body))
        .with("model", model_json(a))
        .with("pi", pi_json(a))
        .with("stages", stages.to_value())
        .with("sourcePrefixes", source_prefixes_json(a.pi.as_ref()))
        .with("stats", stats.to_value())
        .with("systemPrompt", system_prompt_json(a))
        .with("tools", tools_json(a))
        .with("declaredTools", declared_tools_json(a))
        .with("newSystemMessages", new_system_messages_json(a))
        .with("estimate", estimate(a).to_value())
        .with("undefinedToolCalls", undefined_tool_calls(a).to_value())
        .with("resources", resources_json(a))
        .with("packages", packages.to_value());
    if !omit.session {
        o.insert("session", session_json(a));
    }
    o.insert("cwd", Value::from(a.parts.cwd.as_str()));
    o.insert("sessionId", opt_str(a.parts.session_id.as_deref()));
    o.insert("diagnostics", diagnostics_json(a));
    o.insert(
        "findings",
        findings::to_json(&crate::analysis::findings::findings(a)),
    );
    o.insert("usage", usage::usage_json_with(a, !omit.session));
    if !omit.session {
        o.insert("calls", calls::calls_json(a));
    }
    o.insert("call", calls::rebuilt_json(a));
    if !omit.provenance {
        o.insert("provenance", provenance::to_json(a.provenance()));
    }
    o.into()
}

/// Two assemblies of the same inputs under two protocols, side by side (the compare mode).
pub fn compare_json(a: &Assembly, b: &Assembly) -> Value {
    compare::to_json(&crate::analysis::compare::compare(a, b))
}

/// The recent sessions ([`crate::install::list_sessions`]): `[{path, cwd, timestamp, bytes,
/// firstPrompt}]`, newest first.
pub fn sessions_json(list: &[crate::install::SessionListing]) -> Value {
    Value::Array(
        list.iter()
            .map(|l| {
                let mut o = Object::new().with("path", l.path.as_str());
                o.insert("cwd", opt_str(l.cwd.as_deref()));
                o.insert("timestamp", opt_str(l.timestamp.as_deref()));
                o.insert("bytes", Value::from(l.bytes as f64));
                o.insert("firstPrompt", opt_str(l.first_prompt.as_deref()));
                o.into()
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(line: &str) -> types::EntryNode {
        let mut node = types::EntryNode::default();
        let entry = crate::js::parse(line).unwrap();
        message_sizes(entry.as_object().unwrap(), &mut node);
        node
    }

    /// `Omit::session` is sound: a report's `session`, `calls` and `usage.timeline` are the same
    /// under every protocol (for cases of each release with a session: resumed,
    /// mid-conversation, compacted), a report that omits them is the full one without them, and
    /// [`session_parts_json`] puts them back.
    #[test]
    fn the_session_s_parts_are_the_same_under_every_protocol() {
        let cases: Vec<_> = ctxlens_corpus::cases("pi-")
            .into_iter()
            .filter(|c| {
                ["midconvo", "compaction", "resume"]
                    .iter()
                    .any(|w| c.folder().contains(w))
            })
            .collect();
        let mut releases = std::collections::BTreeSet::new();
        let mut checked = 0;
        for case in cases.iter().step_by(12) {
            let Ok(mut inputs) = crate::case::inputs_from_case(&case.files(), None) else {
                continue;
            };
            let ws = crate::Workspace::new();
            let mut first: Option<(String, String, String)> = None;
            for api in crate::api::Api::ALL {
                inputs.api = Some(api);
                let a = ws.assemble(&inputs);
                let full = assembly_json(&a);
                let mine = (
                    full.get("session").map(Value::to_json).unwrap_or_default(),
                    full.get("calls").map(Value::to_json).unwrap_or_default(),
                    full.get("usage")
                        .and_then(|u| u.get("timeline"))
                        .map(Value::to_json)
                        .unwrap_or_default(),
                );
                match &first {
                    None => first = Some(mine),
                    Some(f) => assert!(*f == mine, "{}: {api} differs", case.name),
                }
                let omitted = assembly_json_with(
                    &a,
                    Omit {
                        session: true,
                        ..Omit::default()
                    },
                );
                let mut want = full.as_object().unwrap().clone();
                want.remove("session");
                want.remove("calls");
                if let Some(Value::Object(u)) = want.get_mut("usage") {
                    u.remove("timeline");
                }
                // What was left out, sent after the rest, is the whole report's.
                let parts = session_parts_json(&a);
                assert_eq!(
                    omitted.to_json(),
                    Value::Object(want).to_json(),
                    "{}",
                    case.name
                );
                let part = |r: &Value, k: &str| match k {
                    "timeline" => r.get("usage").and_then(|u| u.get(k)).map(Value::to_json),
                    _ => r.get(k).map(Value::to_json),
                };
                for k in ["session", "calls", "timeline"] {
                    let got = part(&parts, k);
                    assert!(got.is_some(), "{}: {k}", case.name);
                    assert_eq!(got, part(&full, k), "{}: {k}", case.name);
                }
            }
            let (session, calls, timeline) = first.unwrap();
            assert!(timeline.starts_with('['), "{}: {timeline}", case.name);
            assert!(
                session.len() > 100 && calls.len() > 2,
                "{}: {session} {calls}",
                case.name
            );
            releases.insert(case.name.split('/').next().unwrap().to_string());
            checked += 1;
        }
        assert!(
            checked >= 15 && releases.len() >= 5,
            "{checked} cases of {releases:?}"
        );
    }

    #[test]
    fn a_tool_result_and_its_images_are_sized_as_the_what_if_cuts_them() {
        // Lines as `tool-result:ID:N` counts them (each text block's, summed); characters in
        // UTF-16 units (an astral character is two); images by their base64 data.
        let o = sizes(
            r#"{"type":"message","id":"r","message":{"role":"toolResult","toolName":"read","content":[{"type":"text","text":"a\nb\n"},{"type":"image","data":"QUJD","mimeType":"image/png"},{"type":"text","text":"😀"}]}}"#,
        );
        let t = o.tool_result.as_ref().unwrap();
        assert_eq!(t.tool_name.as_deref(), Some("read"));
        assert_eq!((t.chars, t.lines), (6, 4));
        let i = o.images.as_ref().unwrap();
        assert_eq!((i.count, i.chars), (1, 4));
        // A user message with no image: neither.
        let o = sizes(r#"{"type":"message","id":"u","message":{"role":"user","content":"hi"}}"#);
        assert!(o.tool_result.is_none() && o.images.is_none());
    }

    /// What the app's worker leaves out of a long session's report is counted where it was:
    /// each stage keeps its first events and counts the rest by kind and rule (each stage's
    /// count of a kind is the whole trace's), and the statistics keep the largest messages, in
    /// the body's order, with the number left out.
    #[test]
    fn a_report_s_first_events_and_largest_messages_count_the_rest() {
        let cases: Vec<_> = ctxlens_corpus::cases("pi-")
            .into_iter()
            .filter(|c| {
                ["thinking", "midconvo"]
                    .iter()
                    .any(|w| c.folder().contains(w))
            })
            .collect();
        let (mut events_left, mut messages_left) = (0, 0);
        for case in cases.iter().step_by(3) {
            let Ok(inputs) = crate::case::inputs_from_case(&case.files(), None) else {
                continue;
            };
            let a = crate::assemble(&inputs);
            let whole = stages(a.pi.as_ref(), &a.trace);
            for (w, s) in whole
                .iter()
                .zip(stages_with(a.pi.as_ref(), &a.trace, Some(2)))
            {
                assert!(w.events_left.is_none(), "{}", case.name);
                assert_eq!(
                    s.events[..],
                    w.events[..w.events.len().min(2)],
                    "{}",
                    case.name
                );
                let left = &w.events[s.events.len()..];
                match s.events_left.as_ref() {
                    None => assert!(left.is_empty()),
                    Some(l) => {
                        events_left += 1;
                        assert_eq!(l.count, left.len());
                        assert_eq!(l.groups.iter().map(|g| g.count).sum::<usize>(), l.count);
                        for g in &l.groups {
                            let first = left
                                .iter()
                                .find(|e| e.kind == g.kind && e.pi_source.0 == g.pi_source)
                                .unwrap();
                            assert_eq!(first.message, g.example, "{}", case.name);
                        }
                    }
                }
                assert_eq!(s.event_count(), w.events.len());
                use crate::trace::EventKind as Kind;
                for k in [Kind::Converted, Kind::Inserted, Kind::Note] {
                    let n = w.events.iter().filter(|e| e.kind == k).count();
                    assert_eq!(s.count_of(k), n, "{}: {k:?}", case.name);
                }
            }
            let Some(st) = a.stats() else { continue };
            let full = stats::report(st).history;
            let mut kept = full.clone();
            kept.keep_largest_messages(3);
            assert_eq!(kept.message_count(), full.by_message.len());
            if full.by_message.len() <= 3 {
                assert_eq!(kept, full);
                continue;
            }
            messages_left += 1;
            assert_eq!(*kept.messages_left, Some(full.by_message.len() - 3));
            // The three largest (of equal ones the first), in the body's order.
            let mut want: Vec<usize> = (0..full.by_message.len()).collect();
            want.sort_by_key(|&i| std::cmp::Reverse(full.by_message[i].chars));
            want.truncate(3);
            want.sort();
            let want: Vec<_> = want.iter().map(|&i| full.by_message[i].clone()).collect();
            assert_eq!(kept.by_message, want, "{}", case.name);
        }
        assert!(
            events_left >= 3 && messages_left >= 3,
            "{events_left} {messages_left}"
        );
    }
}

//! The chain of stages (INVENTORY §0), run as pure functions over [`Inputs`], each recording
//! what it did.
//!
//! [`assemble`] reads as the pipeline: one method of [`Run`] per stage, in pi's order, each
//! taking what the stages before it produced and recording itself in the trace.

use crate::analysis::stats::{self, Stats};
use crate::api::Api;
use crate::args::{self, PiArgs};
use crate::context::LlmContext;
use crate::diagnostics::Diagnostic;
use crate::inputs::{Inputs, SourceText};
use crate::js::path::join_path;
use crate::js::{utf16_len, Value};
use crate::messages;
use crate::model::{self, Model, ModelChoice, Registry};
use crate::pi::Pi;
use crate::prompt::{self, SystemPrompt};
use crate::protocols::{self, Request, StreamOptions};
use crate::resources::{self, Resources};
use crate::session::{self, SessionContext, SessionFile};
use crate::settings::{self, Settings};
use crate::tools::{self, ToolDef};
use crate::trace::{Event, EventKind, Recorder, StageId, Trace};

/// Everything one assembly produced.
#[derive(Clone, Debug, Default)]
pub struct Assembly {
    /// The pi release rebuilt, with its rules and data; `None` only when that release's data
    /// is not available (then a diagnostic says so and nothing else was built).
    pub pi: Option<Pi>,
    /// Which release was rebuilt and why (given, captured, detected from the session, default).
    pub choice: Option<crate::pi::Choice>,
    /// The HTTP request, when one could be built.
    pub request: Option<Request>,
    pub trace: Trace,
    pub stats: Option<Stats>,
    pub diagnostics: Vec<Diagnostic>,
    /// Intermediate results, for views that show a stage's data.
    pub parts: Parts,
}

/// The data between stages.
#[derive(Clone, Debug, Default)]
pub struct Parts {
    pub args: PiArgs,
    pub session: Option<SessionFile>,
    pub session_context: SessionContext,
    pub settings: Settings,
    pub model_choice: ModelChoice,
    pub resources: Resources,
    /// The system prompt the request carries. 0.86 on: the replay of the transcript's system
    /// messages, each span saying which stored message set it; once a request is built, the
    /// system messages as the adapter sent them ([`Parts::sent_system`]: the same replay when it
    /// collapses them, else the first message and the later ones' updates).
    pub system_prompt: SystemPrompt,
    /// 0.86 on, once a request is built: where the system messages went and the text of each
    /// as sent.
    pub sent_system: Option<crate::analysis::sent::SentSystem>,
    /// 0.86 on: for each agent message (after this run's input), where it is stored (a session
    /// line, a compaction's checkpoint, this run).
    pub message_origins: Vec<prompt::Stored>,
    /// pi's install folder as the docs section names it (`$PI_PACKAGE_DIR` or the install).
    pub pi_package_dir: String,
    /// The active tools (0.86 on: as this run declares them; the request sends the transcript's
    /// declarations, [`Parts::declared_tools`]).
    pub tools: Vec<ToolDef>,
    /// 0.86 on: the system prompt's sections as this run builds them (`buildSystemPromptSections`).
    pub prompt_sections: Vec<prompt::sections::BuiltSection>,
    /// 0.86 on: the system messages this run added (a section patch and the tool changes), as
    /// stored.
    pub new_system_messages: Vec<Value>,
    /// 0.86 on: the tools the transcript declares after this run's input (`getCurrentTools`).
    pub declared_tools: Vec<ToolDef>,
    /// The cwd pi runs in (a resumed session's header cwd).
    pub cwd: String,
    pub session_id: Option<String>,
    /// Agent messages after this turn's input was appended.
    pub agent_messages: Vec<Value>,
    /// After `convertToLlm`.
    pub llm_messages: Vec<Value>,
}

impl Assembly {
    /// The body bytes, if a request was built.
    pub fn body(&self) -> Option<&str> {
        self.request.as_ref().map(|r| r.body.as_str())
    }
}

/// Runs pi's request assembly on `inputs`.
pub fn assemble(inputs: &Inputs) -> Assembly {
    let mut choice = crate::pi::choice::choose(inputs);
    let pi = match Pi::new(choice.version) {
        Ok(pi) => pi,
        Err(e) => {
            return Assembly {
                diagnostics: vec![Diagnostic::error("pi", None, e.to_string())],
                choice: Some(choice),
                ..Default::default()
            }
        }
    };
    if let (Some(d), Some(s)) = (choice.detection.as_mut(), inputs.session.as_ref()) {
        if d.version == pi.version {
            crate::pi::choice::refine(d, s, pi.data);
        }
    }
    let mut run = Run {
        pi,
        inputs,
        rec: Recorder::default(),
        diags: Vec::new(),
        parts: Parts::default(),
        registry: Registry::default(),
        switched_from: None,
        llm: LlmContext::default(),
        failed: false,
    };
    // A session from a newer pi than the one rebuilt is said first.
    if let Some(w) = choice.newer_session_warning() {
        let name = inputs
            .session
            .as_ref()
            .map_or("session", |s| s.name.as_str());
        run.diags.push(Diagnostic::warning(name, None, w));
    }
    run.command_line();
    run.session_read();
    run.agent_context();
    run.input_appended();
    run.transform_context();
    run.convert_to_llm();
    let request = run.adapter();
    run.on_payload();
    let stats = run.http_body(request.as_ref());
    // The LLM messages move back into the parts (no copy) once the statistics have them.
    run.parts.llm_messages = std::mem::take(&mut run.llm.messages);
    Assembly {
        pi: Some(pi),
        choice: Some(choice),
        request,
        trace: run.rec.finish(),
        stats,
        diagnostics: run.diags,
        parts: run.parts,
    }
}

/// One assembly in progress: the release, the inputs, the trace so far, the problems found and
/// the data each stage hands on.
struct Run<'a> {
    pi: Pi,
    inputs: &'a Inputs,
    rec: Recorder,
    diags: Vec<Diagnostic>,
    parts: Parts,
    /// The models pi knows (the agent context's), for the adapter's auth and headers.
    registry: Registry,
    /// The model's own api when the protocol was switched (`Inputs::api`).
    switched_from: Option<String>,
    /// What the agent loop hands the adapter (`{systemPrompt, messages, tools}`).
    llm: LlmContext,
    /// pi throws before the adapter (a diagnostic says why): no request is built.
    failed: bool,
}

impl Run<'_> {
    /// pi's command line (`--tools`, `--model`, `@file`, ...; CA/cli/args.js).
    fn command_line(&mut self) {
        self.parts.args = args::parse(&self.pi, &self.inputs.args, &mut self.diags);
    }

    /// The session JSONL read, migrated and walked (S1–S12), then turned into agent messages
    /// (`buildSessionContext`, S13–S22).
    fn session_read(&mut self) {
        let pi = self.pi;
        self.rec.begin(StageId::SessionRead);
        let file = self.inputs.session.as_ref().map(|s| session::parse(&pi, s));
        if let Some(f) = &file {
            self.diags.extend(f.diagnostics.iter().cloned());
            self.diags
                .extend(crate::pi::choice::unknown_in_session(&pi, f));
            if f.original_version < pi.rules.session_version && f.header.is_some() {
                self.rec.events.push(
                    Event::new(
                        EventKind::Converted,
                        format!(
                            "migrated from session version {} to {}",
                            f.original_version, pi.rules.session_version
                        ),
                    )
                    .at("CA/core/session-manager.js:75"),
                );
            }
        }
        let context = match &file {
            Some(f) => session::build_context(&pi, f, &mut self.rec.events, &mut self.diags),
            None => SessionContext {
                thinking_level: "off".into(),
                ..Default::default()
            },
        };
        let entries = file.as_ref().map_or(0, |f| f.entries.len());
        self.rec.record(
            StageId::SessionRead,
            "CA/core/session-manager.js:265",
            match &file {
                Some(f) => format!(
                    "{} entries read from {}; {} on the active branch",
                    entries,
                    f.name,
                    context.path.len()
                ),
                None => "no session: pi starts a new one".into(),
            },
            vec![
                ("entries".into(), entries as f64),
                ("branch".into(), context.path.len() as f64),
            ],
        );
        self.rec.record(
            StageId::AgentMessages,
            "CA/core/session-manager.js:166",
            format!("{} agent messages from the branch", context.messages.len()),
            vec![("messages".into(), context.messages.len() as f64)],
        );
        self.parts.session = file;
        self.parts.session_context = context;
    }

    /// The agent's state (`createAgentSession`, CA/core/sdk.js:66–274): cwd, settings, the model
    /// and thinking level, the active tools, context files and skills, the system prompt.
    fn agent_context(&mut self) {
        let (pi, inputs) = (self.pi, self.inputs);
        self.rec.begin(StageId::AgentContext);
        let file = self.parts.session.as_ref();
        let cwd = file
            .and_then(|f| f.resolved_cwd(&inputs.home, &inputs.cwd))
            .unwrap_or_else(|| inputs.cwd.clone());
        let session_id = file
            .and_then(|f| f.session_id())
            .map(String::from)
            .or_else(|| inputs.session_id.clone());
        let args = &self.parts.args;
        let settings = settings::load(
            &inputs.files,
            &inputs.home,
            &inputs.agent_dir,
            &cwd,
            args,
            &mut self.diags,
        );
        let models_path = join_path(&inputs.agent_dir, "models.json");
        let models_json = inputs
            .files
            .read_to_string(&models_path)
            .map(|text| SourceText {
                name: models_path.clone(),
                text: text.into(),
            });
        let mut registry = Registry::load(&pi, models_json.as_ref(), &inputs.env, &mut self.diags);
        // `getPackageDir()` (CA/config.js:334–345): `$PI_PACKAGE_DIR` when set, else the install.
        let package_dir = inputs
            .env
            .get("PI_PACKAGE_DIR")
            .filter(|d| !d.is_empty())
            .map(|d| {
                crate::paths::normalize_pi_path(
                    d,
                    &inputs.home,
                    crate::paths::PathOptions::default(),
                )
            })
            .unwrap_or_else(|| inputs.pi_package_dir.clone());
        let session_ctx = &self.parts.session_context;
        let cli_model = inputs.model.clone().or_else(|| args.model.clone());
        let cli_thinking = inputs.thinking.clone().or_else(|| args.thinking.clone());
        let branch: Vec<&crate::js::Object> = self
            .parts
            .session
            .as_ref()
            .map(|f| {
                session_ctx
                    .branch_indices
                    .iter()
                    .map(|&i| &f.entries[i].value)
                    .collect()
            })
            .unwrap_or_default();
        let mut choice = model::choose(
            &pi,
            &mut registry,
            model::CliModel {
                model: cli_model.as_deref(),
                provider: args.provider.as_deref(),
                thinking: cli_thinking.as_deref(),
                api_key: args.api_key.as_deref(),
                models: args.models.as_deref(),
            },
            model::SessionModel {
                context: session_ctx,
                branch: &branch,
                has_messages: !session_ctx.messages.is_empty(),
            },
            &settings,
            &join_path(&package_dir, "docs"),
            &mut self.rec.events,
            &mut self.diags,
        );
        if choice.exit.is_some() {
            // pi exits before its first prompt (the stages below are shown for what they hold).
            self.rec.events.push(
                Event::new(
                    EventKind::Note,
                    "pi exits here with status 1: a startup diagnostic is an error, or no model can take the prompt (see the diagnostics)",
                )
                .at("CA/main.js:722"),
            );
            self.failed = true;
        }
        let mut switched_from = None;
        if let (Some(api), Some(m)) = (inputs.api, choice.model.as_mut()) {
            if m.api() != api.as_str() {
                switched_from = Some(m.api().to_string());
                self.rec.events.push(Event::new(
                    EventKind::Replaced,
                    format!("protocol switched from {} to {}", m.api(), api),
                ));
                m.obj.insert("api", Value::str(api.as_str()));
            }
        }
        // `areExperimentalFeaturesEnabled()`: exactly "1" (CA/core/experimental.js:2).
        let experimental = inputs.env.get("PI_EXPERIMENTAL").is_some_and(|v| v == "1");
        let builtins = tools::builtin_tools(&pi, experimental);
        let extensions = inputs
            .extension_tools
            .as_ref()
            .map(|src| tools::extension_tools(src, &mut self.diags))
            .unwrap_or_default();
        let active_tools = if pi.rules.transcript {
            // The loadout a resumed session declares: every system message on the branch, the
            // ones before a compaction too (`getBranch()`, CA/core/agent-session.js:1462).
            let branch_system: Vec<Value> = self
                .parts
                .session
                .as_ref()
                .map(|f| {
                    session_ctx
                        .path_indices
                        .iter()
                        .filter_map(|&i| f.entries[i].value.get("message"))
                        .filter(|m| m.get_str("role") == Some("system"))
                        .cloned()
                        .collect()
                })
                .unwrap_or_default();
            tools::select_loadout(
                &pi,
                builtins,
                extensions,
                args,
                &settings,
                &branch_system,
                &mut self.diags,
            )
        } else {
            tools::select(&pi, builtins, extensions, args, &settings, &mut self.diags)
        };
        let res = resources::load(
            &pi,
            &inputs.files,
            &inputs.home,
            &inputs.agent_dir,
            &cwd,
            &inputs.cwd,
            args,
            &settings,
            &mut self.diags,
        );
        let (system_prompt, prompt_sections) = if pi.rules.transcript {
            let built =
                prompt::sections::build_pieces(&pi, &active_tools, &res, &cwd, &package_dir);
            // What this run's prompt reads as on its own; the request's prompt is the replay,
            // set once the run's system message is in (`input_appended`).
            let fresh = prompt::sections::replayed(
                &pi,
                &[Value::Object(
                    crate::js::Object::new()
                        .with("role", "system")
                        .with("sections", Value::Object(prompt::sections::to_map(&built))),
                )],
                &[prompt::Stored::ThisRun],
                &built,
            );
            (fresh, built)
        } else {
            (
                prompt::build(&pi, &active_tools, &res, &cwd, &package_dir),
                Vec::new(),
            )
        };
        let prompt_chars = utf16_len(&system_prompt.text);
        self.rec.record(
            StageId::AgentContext,
            "CA/core/sdk.js:66",
            format!(
                "model {}, thinking {}, {} tools, system prompt {} chars",
                choice
                    .model
                    .as_ref()
                    .map(Model::reference)
                    .unwrap_or_else(|| "none".into()),
                choice.thinking_level,
                active_tools.len(),
                prompt_chars
            ),
            vec![
                ("tools".into(), active_tools.len() as f64),
                ("systemPromptChars".into(), prompt_chars as f64),
                ("contextFiles".into(), res.context_files.len() as f64),
                ("skills".into(), res.skills.len() as f64),
            ],
        );
        self.parts.settings = settings;
        self.parts.model_choice = std::mem::take(&mut choice);
        self.parts.tools = active_tools;
        self.parts.resources = res;
        self.parts.system_prompt = system_prompt;
        self.parts.prompt_sections = prompt_sections;
        self.parts.cwd = cwd;
        self.parts.pi_package_dir = package_dir;
        self.parts.session_id = session_id;
        self.registry = registry;
        self.switched_from = switched_from;
    }

    /// This turn's input (`AgentSession.prompt`, CA/core/agent-session.js:821–950): the new user
    /// message with its `@file` attachments and `/skill:` expansion, or nothing when pi continues
    /// after tool results.
    fn input_appended(&mut self) {
        let (pi, inputs) = (self.pi, self.inputs);
        self.rec.begin(StageId::InputAppended);
        // The session's messages move on (no copy): `parts.session_context` keeps their sources.
        let mut messages = std::mem::take(&mut self.parts.session_context.messages);
        match &inputs.prompt {
            Some(text) => {
                let args = &self.parts.args;
                // `@file` paths resolve against process.cwd() (CA/cli/file-processor.js:18); the
                // first message is fileText + the first positional message
                // (CA/cli/initial-message.js:5).
                let att = args::process_file_args(
                    &pi,
                    &args.file_args,
                    &inputs.cwd,
                    &inputs.home,
                    self.parts.settings.image_auto_resize(),
                    &inputs.files,
                    &mut self.diags,
                );
                let text = match args.messages.first() {
                    Some(first) => {
                        self.rec.events.push(Event::new(EventKind::Note, "the first positional message in args is pi's first prompt; `prompt` comes later").at("CA/cli/initial-message.js:5"));
                        first
                    }
                    None => text,
                };
                let (full, skill) = resources::expand_skill_command(
                    &pi,
                    &format!("{}{}", att.text, text),
                    &self.parts.resources.skills,
                    &inputs.files,
                );
                if let Some(skill) = skill {
                    self.rec.events.push(
                        Event::new(
                            EventKind::Converted,
                            format!("/skill:{} expanded from {}", skill.name, skill.file_path),
                        )
                        .at("CA/core/agent-session.js:983"),
                    );
                }
                let n_images = att.images.len();
                let images = if pi.rules.prompt_images_normalized {
                    att.images.iter().map(normalized_prompt_image).collect()
                } else {
                    att.images
                };
                let user = messages::user_message(&full, images, inputs.now_ms);
                if pi.rules.transcript {
                    self.begin_run(&mut messages, vec![user]);
                } else {
                    messages.push(user);
                }
                self.rec.events.push(
                    Event::new(
                        EventKind::Inserted,
                        format!(
                            "user message of {} chars{}",
                            utf16_len(&full),
                            if n_images > 0 {
                                format!(" with {n_images} image(s)")
                            } else {
                                String::new()
                            }
                        ),
                    )
                    .at("CA/core/agent-session.js:900"),
                );
            }
            None => {
                self.rec.events.push(Event::new(
                    EventKind::Note,
                    "no new prompt: pi continues after the last tool results",
                ));
                if pi.rules.transcript {
                    // Before every request, the tool changes (CORE/agent-loop.js:121).
                    self.begin_run(&mut messages, Vec::new());
                }
            }
        }
        if pi.rules.transcript {
            self.replay_system_prompt(&messages);
        }
        self.rec.record(
            StageId::InputAppended,
            "CA/core/agent-session.js:821",
            format!("{} agent messages", messages.len()),
            vec![("messages".into(), messages.len() as f64)],
        );
        self.parts.agent_messages = messages;
    }

    /// 0.86 on: the messages a run starts with (`_prepareRun`, CA/core/agent-session.js:1553–1603,
    /// then `declareToolChanges`, CORE/agent-loop.js:224–254): a system message with the sections
    /// that differ from the transcript's replay, first; then the prompt; the difference between
    /// the declared and the active tools folded into that system message, or into a system
    /// message of its own before the prompt.
    fn begin_run(&mut self, messages: &mut Vec<Value>, prompts: Vec<Value>) {
        let pi = self.pi;
        let now = self.inputs.system_now_ms.unwrap_or(self.inputs.now_ms);
        let mut pending = Vec::new();
        if !prompts.is_empty() {
            let sections = prompt::sections::to_map(&self.parts.prompt_sections);
            if let Some(patch) = messages::system_patch(&pi, messages, &sections, now) {
                let names: Vec<String> = patch
                    .get("sections")
                    .and_then(Value::as_object)
                    .map(|o| {
                        o.iter()
                            .map(|(k, v)| {
                                if v.is_null() {
                                    format!("{k} (removed)")
                                } else {
                                    k.to_string()
                                }
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                let has_system = messages.iter().any(|m| m.get_str("role") == Some("system"));
                self.rec.events.push(
                    Event::new(
                        EventKind::Inserted,
                        if has_system {
                            format!(
                                "system message with the sections that changed since the session's: {}",
                                names.join(", ")
                            )
                        } else {
                            format!(
                                "system message with the whole system prompt ({}): the session has none yet",
                                names.join(", ")
                            )
                        },
                    )
                    .at("1.6.0/CA/core/agent-session.js:1394"),
                );
                pending.push(patch);
            }
        }
        pending.extend(prompts);
        let before: Vec<Value> = pending
            .iter()
            .filter(|m| m.get_str("role") == Some("system"))
            .cloned()
            .collect();
        let pending = messages::declare_tool_changes(messages, &self.parts.tools, pending, now);
        let after: Vec<&Value> = pending
            .iter()
            .filter(|m| m.get_str("role") == Some("system"))
            .collect();
        let count = |m: &Value, k: &str| m.get(k).and_then(Value::as_array).map_or(0, Vec::len);
        let added: usize = after.iter().map(|m| count(m, "toolsAdded")).sum();
        let removed: usize = after.iter().map(|m| count(m, "toolsRemoved")).sum();
        if added + removed > 0 {
            self.rec.events.push(
                Event::new(
                    EventKind::Inserted,
                    format!(
                        "tool changes declared in {}: {added} added, {removed} removed",
                        if after.len() > before.len() {
                            "a system message of their own"
                        } else {
                            "the run's system message"
                        }
                    ),
                )
                .at("1.6.0/CORE/agent-loop.js:224"),
            );
        }
        self.parts.new_system_messages = after.into_iter().cloned().collect();
        messages.extend(pending);
    }

    /// 0.86 on: the system prompt and tools the request carries, replayed from every system
    /// message of the context (S45), with where each part was stored.
    fn replay_system_prompt(&mut self, messages: &[Value]) {
        let pi = self.pi;
        let sources = &self.parts.session_context.sources;
        let origins: Vec<prompt::Stored> = (0..messages.len())
            .map(|i| match sources.get(i) {
                Some(src) if src.entry_type == "compaction" => prompt::Stored::Checkpoint {
                    line: src.line,
                    entry_id: src.entry_id.clone(),
                },
                Some(src) => prompt::Stored::Session {
                    line: src.line,
                    entry_id: src.entry_id.clone(),
                },
                None => prompt::Stored::ThisRun,
            })
            .collect();
        self.parts.system_prompt =
            prompt::sections::replayed(&pi, messages, &origins, &self.parts.prompt_sections);
        self.parts.message_origins = origins;
        self.parts.declared_tools = crate::transcript::current_tools(messages)
            .iter()
            .map(crate::transcript::tool_from_declaration)
            .collect();
    }

    /// `transformContext` (CORE/agent-loop.js:176 → CA/core/sdk.js:227): the extension
    /// runner's `emitContext`, which copies the messages with `structuredClone` and passes them
    /// through its (here: no) `context` handlers. A message nested deeper than V8's serializer
    /// can copy makes it throw: pi sends nothing (`Rules::max_context_depth`).
    fn transform_context(&mut self) {
        self.rec.begin(StageId::TransformContext);
        let n = self.parts.agent_messages.len();
        let limit = self.pi.rules.max_context_depth;
        // A line nests at least as deeply as the message taken from it: only lines deep enough
        // to matter are measured.
        let entries = self
            .parts
            .session
            .as_ref()
            .map_or(&[][..], |f| &f.entries[..]);
        let too_deep = self
            .parts
            .session_context
            .sources
            .iter()
            .enumerate()
            .filter(|(_, src)| {
                entries
                    .binary_search_by_key(&src.line, |e| e.line)
                    .is_ok_and(|k| entries[k].depth as usize >= limit)
            })
            .map(|(i, src)| (i, src, 1 + self.parts.agent_messages[i].nesting_depth()))
            .find(|(_, _, depth)| *depth > limit);
        let too_deep_found = too_deep.is_some();
        if let Some((i, src, depth)) = too_deep {
            let file = self.parts.session.as_ref().map_or("", |f| f.name.as_str());
            self.diags.push(Diagnostic::error(
                file,
                Some(src.line),
                format!(
                    "pi would fail here: RangeError: Maximum call stack size exceeded. pi copies the messages with structuredClone before the `context` hook, and message {} is nested {} levels deep counting the messages array, past the {} levels V8 copies there (measured with pi {} on Node 22)",
                    i + 1,
                    if depth > crate::js::json::MAX_BUILT_DEPTH {
                        format!("more than {}", crate::js::json::MAX_BUILT_DEPTH)
                    } else {
                        depth.to_string()
                    },
                    limit,
                    self.pi.version
                ),
            ));
            self.rec.events.push(
                Event::new(
                    EventKind::Note,
                    format!(
                        "structuredClone of the messages throws: message {} is nested too deeply",
                        i + 1
                    ),
                )
                .at("CA/core/extensions/runner.js:793"),
            );
            self.failed = true;
        }
        self.rec.record(
            StageId::TransformContext,
            "CORE/agent-loop.js:176",
            if too_deep_found {
                "structuredClone of the messages throws: pi stops here"
            } else if self.failed {
                "pi exited at startup: no prompt runs"
            } else {
                "no extension `context` handlers: the messages pass unchanged"
            },
            vec![("messages".into(), n as f64)],
        );
    }

    /// `convertToLlm` (CA/core/messages.js:75) with the `images.blockImages` wrapper.
    fn convert_to_llm(&mut self) {
        let pi = self.pi;
        self.rec.begin(StageId::ConvertToLlm);
        let llm = messages::convert_to_llm(
            &pi,
            &self.parts.agent_messages,
            self.parts.settings.block_images(),
            &mut self.rec.events,
        );
        self.rec.record(
            StageId::ConvertToLlm,
            "CA/core/messages.js:75",
            format!("{} LLM messages", llm.len()),
            vec![("messages".into(), llm.len() as f64)],
        );
        // 0.86 on, the context is only `{messages}`: the prompt and the tools are in its system
        // messages (`normalizeContext`, CORE/agent-loop.js:273).
        self.llm = if self.pi.rules.transcript {
            LlmContext {
                system_prompt: String::new(),
                messages: llm,
                tools: Vec::new(),
            }
        } else {
            LlmContext {
                system_prompt: self.parts.system_prompt.text.clone(),
                messages: llm,
                tools: self.parts.tools.clone(),
            }
        };
    }

    /// The adapter (`streamSimple` of the model's api): headers pi merges first
    /// (`prepareRequest` + `transformHeaders`, CA/core/model-runtime.js:422, CA/core/sdk.js:200),
    /// then `transformMessages`, the message conversion and the parameters. `None` where pi
    /// would refuse to send (a diagnostic says why).
    fn adapter(&mut self) -> Option<Request> {
        let (pi, inputs) = (self.pi, self.inputs);
        if self.failed {
            return None;
        }
        let Some(model) = self.parts.model_choice.model.clone() else {
            self.diags.push(Diagnostic::error(
                "model",
                None,
                "no model: pass --model provider/id or a session whose model is configured",
            ));
            return None;
        };
        let choice = &self.parts.model_choice;
        self.rec.begin(StageId::BuildParams);
        // A capture's User-Agent is its release's: another release sends its own form.
        let captured_other = inputs.captured_pi.is_some_and(|c| c != pi.version);
        let user_agent = match (&inputs.user_agent, captured_other) {
            (Some(ua), false) => ua.clone(),
            (Some(_), true) => {
                self.rec.events.push(Event::new(
                    EventKind::Replaced,
                    format!(
                        "User-Agent: pi {}'s own form, not the one pi {} sent in the capture",
                        pi.version,
                        inputs.captured_pi.map_or(String::new(), |v| v.to_string())
                    ),
                ));
                crate::headers::default_user_agent(&pi)
            }
            (None, _) => crate::headers::default_user_agent(&pi),
        };
        let headers = crate::headers::request_headers(
            &pi,
            &model,
            &self.registry,
            &self.parts.settings,
            &inputs.env,
            self.parts.session_id.as_deref(),
            &mut self.rec.events,
        );
        let opts = StreamOptions {
            reasoning: (choice.thinking_level != "off").then(|| choice.thinking_level.clone()),
            session_id: self.parts.session_id.clone(),
            env: inputs.env.clone(),
            thinking_budgets: self.parts.settings.thinking_budgets().cloned(),
            api_key: self
                .registry
                .api_key(model.provider())
                .unwrap_or("")
                .to_string(),
            user_agent: user_agent.clone(),
            identity_headers: crate::headers::identity_headers(
                &pi,
                &model,
                &self.parts.settings,
                &inputs.env,
                &user_agent,
            ),
            headers: headers.clone().unwrap_or_default(),
            switched_from: self.switched_from.clone(),
        };
        let ctx = &self.llm;
        let built = match headers {
            Ok(_) => protocols::build(&pi, &model, ctx, &opts, &mut self.rec.events),
            Err(message) => Err(protocols::AdapterError { message }),
        };
        let request = match built {
            Ok(mut req) => {
                // A what-if protocol switch keeps the model's base URL, made for its own
                // protocol: a doubled path segment is said beside the URL.
                if let Some(from) = &self.switched_from {
                    req.url_note = protocols::doubled_segment_note(
                        &req.url,
                        model.base_url(),
                        from,
                        model.api(),
                    );
                    if let Some(note) = &req.url_note {
                        self.rec
                            .events
                            .push(Event::new(EventKind::Note, note.clone()));
                        self.diags.push(Diagnostic::warning(
                            format!("{} (baseUrl)", model.reference()),
                            None,
                            note.clone(),
                        ));
                    }
                }
                Some(req)
            }
            Err(e) => {
                let not_ported = model
                    .api()
                    .parse::<Api>()
                    .is_ok_and(|a| !pi.rules.ported_apis.contains(&a));
                self.diags.push(Diagnostic::error(
                    model.api(),
                    None,
                    if not_ported {
                        e.message
                    } else {
                        format!("pi would fail here: {}", e.message)
                    },
                ));
                None
            }
        };
        let file = model.api().parse::<Api>().map_or("AI/api", Api::pi_file);
        let changes = self
            .rec
            .events
            .iter()
            .filter(|e| e.stage == StageId::TransformMessages)
            .count();
        self.rec.record(
            StageId::TransformMessages,
            "AI/api/transform-messages.js:44",
            format!("{changes} changes"),
            Vec::new(),
        );
        self.rec.record(
            StageId::ConvertMessages,
            file,
            format!(
                "{} messages converted for {}",
                ctx.messages.len(),
                model.api()
            ),
            Vec::new(),
        );
        self.rec.record(
            StageId::BuildParams,
            file,
            request
                .as_ref()
                .map(|r| {
                    format!(
                        "{} top-level fields",
                        r.params.as_object().map_or(0, |o| o.len())
                    )
                })
                .unwrap_or_default(),
            Vec::new(),
        );
        request
    }

    /// The extension `before_provider_request` hook (AI/api/simple-options.js:22): the identity
    /// without extensions.
    fn on_payload(&mut self) {
        self.rec.record(
            StageId::OnPayload,
            "AI/api/simple-options.js:22",
            "no extension `before_provider_request` handlers: the params pass unchanged",
            Vec::new(),
        );
    }

    /// The serialized request and the character accounting of what it carries.
    fn http_body(&mut self, request: Option<&Request>) -> Option<Stats> {
        let r = request?;
        let pi = self.pi;
        if pi.rules.transcript {
            // The system messages as the adapter placed them (leading or in place).
            let map = crate::analysis::provenance::agent_indices(&pi, &self.parts.agent_messages);
            let origins: Vec<prompt::Stored> = map
                .iter()
                .map(|&i| {
                    self.parts
                        .message_origins
                        .get(i)
                        .cloned()
                        .unwrap_or(prompt::Stored::ThisRun)
                })
                .collect();
            let sent = crate::analysis::sent::sent_system(
                &pi,
                &self.llm.messages,
                &origins,
                &self.parts.system_prompt,
                &self.parts.prompt_sections,
                &r.body,
            );
            self.parts.system_prompt = sent.prompt.clone();
            self.parts.sent_system = Some(sent);
        }
        let p = &self.parts;
        // 0.86 on, the tools sent are the transcript's declarations.
        let tools = if pi.rules.transcript {
            &p.declared_tools
        } else {
            &p.tools
        };
        let stats = stats::compute(
            &pi,
            &p.system_prompt,
            tools,
            &self.llm,
            r,
            p.model_choice.model.as_ref(),
        );
        let file = p
            .model_choice
            .model
            .as_ref()
            .and_then(|m| m.api().parse::<Api>().ok())
            .map_or("AI/api", Api::pi_file);
        self.rec.record(
            StageId::HttpBody,
            file,
            format!("POST {} ({} bytes)", r.url, r.body.len()),
            // The statistics measured the body once; a large body is not scanned again.
            vec![
                ("bytes".into(), stats.body_bytes as f64),
                ("chars".into(), stats.body_chars as f64),
            ],
        );
        Some(stats)
    }
}

/// `_normalizePromptImages` (0.87 on, 1.6.0/CA/core/agent-session.js:1676–1693): each prompt
/// image made again as `{type: "image", data, mimeType}` from `processImage`'s result. Within
/// pi's resize limits the data and type are unchanged (a resize is diagnosed where the file is
/// read), so only the key order changes.
fn normalized_prompt_image(image: &Value) -> Value {
    let mut o = crate::js::Object::new().with("type", "image");
    o.insert_opt("data", image.get("data").cloned());
    o.insert_opt("mimeType", image.get("mimeType").cloned());
    Value::Object(o)
}

//! The chain of stages (INVENTORY §0), run as pure functions over [`Inputs`], each recording
//! what it did.

use crate::args::{self, PiArgs};
use crate::diagnostics::Diagnostic;
use crate::inputs::{join_path, Inputs, SourceText};
use crate::js::{utf16_len, Value};
use crate::messages;
use crate::model::{self, Model, ModelChoice, Registry};
use crate::prompt::{self, SystemPrompt};
use crate::protocols::{self, LlmContext, Request, StreamOptions};
use crate::resources::{self, Resources};
use crate::session::{self, SessionContext, SessionFile};
use crate::settings::{self, Settings};
use crate::stats::{self, Stats};
use crate::tools::{self, ToolDef};
use crate::trace::{Event, EventKind, Stage, StageId, Trace};

/// Everything one assembly produced.
#[derive(Clone, Debug, Default)]
pub struct Assembly {
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
    pub system_prompt: SystemPrompt,
    pub tools: Vec<ToolDef>,
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
    let mut diags: Vec<Diagnostic> = Vec::new();
    let mut stages: Vec<Stage> = Vec::new();
    let mut parts = Parts::default();

    // Command line.
    let mut args = args::parse(&inputs.args, &mut diags);
    let cli_model = inputs.model.clone().or_else(|| args.model.clone());
    let cli_thinking = inputs.thinking.clone().or_else(|| args.thinking.clone());

    // 1. Session read.
    let mut ev = Vec::new();
    let session_file = inputs.session.as_ref().map(session::parse);
    if let Some(f) = &session_file {
        diags.extend(f.diagnostics.iter().cloned());
        if f.original_version < 3 && f.header.is_some() {
            ev.push(
                Event::new(
                    EventKind::Converted,
                    format!("migrated from session version {} to 3", f.original_version),
                )
                .at("CA/core/session-manager.js:75"),
            );
        }
    }
    let mut session_ctx = match &session_file {
        Some(f) => session::build_context(f, &mut ev, &mut diags),
        None => SessionContext {
            thinking_level: "off".into(),
            ..Default::default()
        },
    };
    let entries = session_file.as_ref().map_or(0, |f| f.entries.len());
    stages.push(Stage {
        id: StageId::SessionRead,
        pi_source: "CA/core/session-manager.js:265",
        summary: match &session_file {
            Some(f) => format!(
                "{} entries read from {}; {} on the active branch",
                entries,
                f.name,
                session_ctx.path.len()
            ),
            None => "no session: pi starts a new one".into(),
        },
        counts: vec![
            ("entries".into(), entries as f64),
            ("branch".into(), session_ctx.path.len() as f64),
        ],
        events: std::mem::take(&mut ev),
    });
    stages.push(Stage {
        id: StageId::AgentMessages,
        pi_source: "CA/core/session-manager.js:166",
        summary: format!(
            "{} agent messages from the branch",
            session_ctx.messages.len()
        ),
        counts: vec![("messages".into(), session_ctx.messages.len() as f64)],
        events: Vec::new(),
    });

    // 2. Agent context: cwd, settings, model, thinking, tools, system prompt.
    let cwd = session_file
        .as_ref()
        .and_then(|f| f.resolved_cwd(&inputs.home, &inputs.cwd))
        .unwrap_or_else(|| inputs.cwd.clone());
    let session_id = session_file
        .as_ref()
        .and_then(|f| f.session_id())
        .map(String::from)
        .or_else(|| inputs.session_id.clone());
    let settings = settings::load(
        &inputs.files,
        &inputs.home,
        &inputs.agent_dir,
        &cwd,
        &args,
        &mut diags,
    );
    let models_path = join_path(&inputs.agent_dir, "models.json");
    let models_json = inputs
        .files
        .read_to_string(&models_path)
        .map(|text| SourceText {
            name: models_path.clone(),
            text: text.into(),
        });
    let registry = Registry::load(models_json.as_ref(), &inputs.env, &mut diags);
    let has_existing_session = !session_ctx.messages.is_empty();
    let mut choice = model::choose(
        &registry,
        cli_model.as_deref(),
        cli_thinking.as_deref(),
        &session_ctx,
        has_existing_session,
        &settings,
        &mut ev,
        &mut diags,
    );
    let mut switched_from: Option<String> = None;
    if let (Some(api), Some(m)) = (&inputs.api, choice.model.as_mut()) {
        if m.api() != api {
            switched_from = Some(m.api().to_string());
            ev.push(Event::new(
                EventKind::Replaced,
                format!("protocol switched from {} to {}", m.api(), api),
            ));
            m.obj.insert("api", Value::str(api));
        }
    }
    // `areExperimentalFeaturesEnabled()`: exactly "1" (CA/core/experimental.js:2).
    let experimental = inputs.env.get("PI_EXPERIMENTAL").is_some_and(|v| v == "1");
    let builtins = tools::builtin_tools(experimental);
    let extensions = inputs
        .extension_tools
        .as_ref()
        .map(|src| tools::extension_tools(src, &mut diags))
        .unwrap_or_default();
    let active_tools = tools::select(builtins, extensions, &args, &settings, &mut diags);
    let res = resources::load(
        &inputs.files,
        &inputs.home,
        &inputs.agent_dir,
        &cwd,
        &inputs.cwd,
        &args,
        &settings,
        &mut diags,
    );
    let system_prompt = prompt::build(&active_tools, &res, &cwd, &inputs.pi_package_dir);
    stages.push(Stage {
        id: StageId::AgentContext,
        pi_source: "CA/core/sdk.js:66",
        summary: format!(
            "model {}, thinking {}, {} tools, system prompt {} chars",
            choice
                .model
                .as_ref()
                .map(Model::reference)
                .unwrap_or_else(|| "none".into()),
            choice.thinking_level,
            active_tools.len(),
            utf16_len(&system_prompt.text)
        ),
        counts: vec![
            ("tools".into(), active_tools.len() as f64),
            (
                "systemPromptChars".into(),
                utf16_len(&system_prompt.text) as f64,
            ),
            ("contextFiles".into(), res.context_files.len() as f64),
            ("skills".into(), res.skills.len() as f64),
        ],
        events: std::mem::take(&mut ev),
    });

    // 3. This turn's input.
    // The session's messages move on (no copy): `parts.session_context` keeps their sources.
    let mut agent_messages = std::mem::take(&mut session_ctx.messages);
    match &inputs.prompt {
        Some(text) => {
            // `@file` paths resolve against process.cwd() (CA/cli/file-processor.js:18); the first
            // message is fileText + the first positional message (CA/cli/initial-message.js:5).
            let att = args::process_file_args(
                &args.file_args,
                &inputs.cwd,
                &inputs.home,
                settings.image_auto_resize(),
                &inputs.files,
                &mut diags,
            );
            let text = match args.messages.first() {
                Some(first) => {
                    ev.push(Event::new(EventKind::Note, "the first positional message in args is pi's first prompt; `prompt` comes later").at("CA/cli/initial-message.js:5"));
                    first
                }
                None => text,
            };
            let (full, skill) = resources::expand_skill_command(
                &format!("{}{}", att.text, text),
                &res.skills,
                &inputs.files,
            );
            if let Some(skill) = skill {
                ev.push(
                    Event::new(
                        EventKind::Converted,
                        format!("/skill:{} expanded from {}", skill.name, skill.file_path),
                    )
                    .at("CA/core/agent-session.js:983"),
                );
            }
            let n_images = att.images.len();
            agent_messages.push(messages::user_message(&full, att.images, inputs.now_ms));
            ev.push(
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
        None => ev.push(Event::new(
            EventKind::Note,
            "no new prompt: pi continues after the last tool results",
        )),
    }
    stages.push(Stage {
        id: StageId::InputAppended,
        pi_source: "CA/core/agent-session.js:821",
        summary: format!("{} agent messages", agent_messages.len()),
        counts: vec![("messages".into(), agent_messages.len() as f64)],
        events: std::mem::take(&mut ev),
    });
    stages.push(Stage {
        id: StageId::TransformContext,
        pi_source: "CORE/agent-loop.js:176",
        summary: "no extension `context` handlers: the messages pass unchanged".into(),
        counts: vec![("messages".into(), agent_messages.len() as f64)],
        events: Vec::new(),
    });

    // 4. convertToLlm.
    let llm_messages = messages::convert_to_llm(&agent_messages, settings.block_images(), &mut ev);
    stages.push(Stage {
        id: StageId::ConvertToLlm,
        pi_source: "CA/core/messages.js:75",
        summary: format!("{} LLM messages", llm_messages.len()),
        counts: vec![("messages".into(), llm_messages.len() as f64)],
        events: std::mem::take(&mut ev),
    });

    let llm_ctx = LlmContext {
        system_prompt: system_prompt.text.clone(),
        messages: llm_messages,
        tools: active_tools.clone(),
    };

    // 5. The adapter: transformMessages, convertMessages, buildParams, body.
    let mut request = None;
    if let Some(model) = &choice.model {
        let mut adapter_events = Vec::new();
        // `prepareRequest` + `transformHeaders` (CA/core/model-runtime.js:422, CA/core/sdk.js:200).
        let headers = crate::headers::request_headers(
            model,
            &registry,
            &settings,
            &inputs.env,
            session_id.as_deref(),
            &mut adapter_events,
        );
        let opts = StreamOptions {
            reasoning: (choice.thinking_level != "off").then(|| choice.thinking_level.clone()),
            session_id: session_id.clone(),
            env: inputs.env.clone(),
            thinking_budgets: settings.thinking_budgets().cloned(),
            api_key: registry.api_key(model.provider()).unwrap_or("").to_string(),
            user_agent: inputs.user_agent.clone(),
            headers: headers.clone().unwrap_or_default(),
            switched_from: switched_from.clone(),
        };
        let built = match headers {
            Ok(_) => protocols::build(model, &llm_ctx, &opts, &mut adapter_events),
            Err(message) => Err(protocols::AdapterError { message }),
        };
        match built {
            Ok(req) => request = Some(req),
            Err(e) => diags.push(Diagnostic::error(
                model.api(),
                None,
                format!("pi would fail here: {}", e.message),
            )),
        }
        let (transform, rest): (Vec<Event>, Vec<Event>) =
            adapter_events.into_iter().partition(|e| {
                e.pi_source
                    .is_some_and(|s| s.contains("transform-messages"))
            });
        stages.push(Stage {
            id: StageId::TransformMessages,
            pi_source: "AI/api/transform-messages.js:44",
            summary: format!("{} changes", transform.len()),
            counts: Vec::new(),
            events: transform,
        });
        stages.push(Stage {
            id: StageId::ConvertMessages,
            pi_source: adapter_source(model.api()),
            summary: format!(
                "{} messages converted for {}",
                llm_ctx.messages.len(),
                model.api()
            ),
            counts: Vec::new(),
            events: Vec::new(),
        });
        stages.push(Stage {
            id: StageId::BuildParams,
            pi_source: adapter_source(model.api()),
            summary: request
                .as_ref()
                .map(|r| {
                    format!(
                        "{} top-level fields",
                        r.params.as_object().map_or(0, |o| o.len())
                    )
                })
                .unwrap_or_default(),
            counts: Vec::new(),
            events: rest,
        });
    } else {
        diags.push(Diagnostic::error(
            "model",
            None,
            "no model: pass --model provider/id or a session whose model is configured",
        ));
    }
    stages.push(Stage {
        id: StageId::OnPayload,
        pi_source: "AI/api/simple-options.js:22",
        summary: "no extension `before_provider_request` handlers: the params pass unchanged"
            .into(),
        counts: Vec::new(),
        events: Vec::new(),
    });
    let stats = request.as_ref().map(|r| {
        stats::compute(
            &system_prompt,
            &active_tools,
            &llm_ctx,
            r,
            choice.model.as_ref(),
        )
    });
    if let (Some(r), Some(s)) = (&request, &stats) {
        stages.push(Stage {
            id: StageId::HttpBody,
            pi_source: adapter_source(r_api(&choice)),
            summary: format!("POST {} ({} bytes)", r.url, r.body.len()),
            // The statistics measured the body once; a large body is not scanned again.
            counts: vec![
                ("bytes".into(), s.body_bytes as f64),
                ("chars".into(), s.body_chars as f64),
            ],
            events: Vec::new(),
        });
    }

    parts.args = std::mem::take(&mut args);
    parts.session = session_file;
    parts.session_context = session_ctx;
    parts.settings = settings;
    parts.resources = res;
    parts.system_prompt = system_prompt;
    parts.tools = active_tools;
    parts.cwd = cwd;
    parts.session_id = session_id;
    parts.agent_messages = agent_messages;
    parts.llm_messages = llm_ctx.messages;
    parts.model_choice = std::mem::take(&mut choice);

    Assembly {
        request,
        trace: Trace { stages },
        stats,
        diagnostics: diags,
        parts,
    }
}

fn r_api(choice: &ModelChoice) -> &str {
    choice.model.as_ref().map(|m| m.api()).unwrap_or("")
}

fn adapter_source(api: &str) -> &'static str {
    match api {
        "openai-completions" => "AI/api/openai-completions.js",
        "anthropic-messages" => "AI/api/anthropic-messages.js",
        "openai-responses" => "AI/api/openai-responses.js",
        "azure-openai-responses" => "AI/api/azure-openai-responses.js",
        "openai-codex-responses" => "AI/api/openai-codex-responses.js",
        "google-generative-ai" => "AI/api/google-generative-ai.js",
        "bedrock-converse-stream" => "AI/api/bedrock-converse-stream.js",
        "mistral-conversations" => "AI/api/mistral-conversations.js",
        "pi-messages" => "AI/api/pi-messages.js",
        _ => "AI/api",
    }
}

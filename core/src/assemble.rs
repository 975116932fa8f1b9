//! The chain of stages, run as pure functions over [`Inputs`], each recording
//! what it did.
//!
//! [`assemble`] reads as the pipeline: one method of [`Run`] per stage, in pi's order, each
//! taking what the stages before it produced and recording itself in the trace.

use crate::api::Api;
use crate::args::{self, PiArgs};
use crate::calls::{self, Call, CallChoice, CallRef, RebuiltCall};
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
use crate::trace::{Event, EventKind, Events, Recorder, StageId, Trace};
use crate::workspace::Workspace;
use std::sync::Arc;

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
    pub diagnostics: Vec<Diagnostic>,
    /// The model calls on pi's active branch (its assistant messages, root → leaf), each with
    /// the usage the provider reported.
    pub calls: Arc<Vec<Call>>,
    /// The call whose request was rebuilt ([`Inputs::call`], or the session's last call when
    /// there is no prompt); `None`: the next request.
    pub call: Option<RebuiltCall>,
    /// Intermediate results, for views that show a stage's data.
    pub parts: Parts,
    /// What the analyses derive from the assembly as built, each made once when first asked
    /// for ([`Assembly::body_value`], [`Assembly::provenance`]).
    pub derived: Derived,
}

/// See [`Assembly::derived`]. Made from the assembly as built: a host that edits an assembly's
/// request afterwards makes a new `Assembly` (or a `Derived::default()`).
#[derive(Clone, Default)]
pub struct Derived {
    body: std::cell::OnceCell<Option<Value>>,
    provenance: std::cell::OnceCell<Arc<Vec<crate::provenance::Origin>>>,
    /// [`Assembly::agent_indices`].
    agent_indices: std::cell::OnceCell<Vec<usize>>,
    /// The layer above's own derivation (its statistics), of a type this layer does not know:
    /// the assembly never imports the analysis ([`Assembly::analysis`]).
    analysis: std::cell::OnceCell<Arc<dyn std::any::Any + Send + Sync>>,
}

impl std::fmt::Debug for Derived {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Derived")
            .field("body", &self.body.get().is_some())
            .field("provenance", &self.provenance.get().map(|p| p.len()))
            .field("analysis", &self.analysis.get().is_some())
            .finish()
    }
}

/// The data between stages.
#[derive(Clone, Debug, Default)]
pub struct Parts {
    pub args: PiArgs,
    /// The session file read (shared with the workspace that keeps it).
    pub session: Option<Arc<SessionFile>>,
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
    pub sent_system: Option<crate::sent::SentSystem>,
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
    /// 0.86 on: `declared_tools`, then every other definition a system message holds (tools
    /// removed or redefined later; the body carries them where they were declared).
    pub every_declared_tool: Vec<ToolDef>,
    /// The cwd pi runs in (a resumed session's header cwd).
    pub cwd: String,
    /// The provider a placeholder key stood in for ([`Inputs::placeholder_key`]).
    pub placeholder_key: Option<String>,
    pub session_id: Option<String>,
    /// Agent messages after this turn's input was appended.
    pub agent_messages: Vec<Value>,
    /// After `convertToLlm`.
    pub llm_messages: Vec<Value>,
    /// The prompt template this run's prompt called (`/name args`): its file and the chars of
    /// the prompt it expanded to.
    pub prompt_template: Option<(String, usize)>,
}

impl Assembly {
    /// The protocol of the model pi chose (its `api`; "" without a model).
    pub fn api_name(&self) -> &str {
        let model = self.parts.model_choice.model.as_ref();
        model.map_or("", |m| m.api())
    }

    /// The body bytes, if a request was built.
    pub fn body(&self) -> Option<&str> {
        self.request.as_ref().map(|r| r.body.as_str())
    }

    /// The body as sent, parsed (`None`: no request, or a body that is not JSON — never from
    /// pi's adapters), parsed once for every analysis.
    pub fn body_value(&self) -> Option<&Value> {
        self.derived
            .body
            .get_or_init(|| {
                self.request
                    .as_ref()
                    .and_then(|r| crate::js::parse(&r.body).ok())
            })
            .as_ref()
    }

    /// Each LLM message's index among the agent messages ([`crate::provenance::agent_indices`]),
    /// made once for every analysis that names a message's session line.
    pub fn agent_indices(&self) -> &[usize] {
        self.derived.agent_indices.get_or_init(|| match &self.pi {
            Some(pi) => crate::provenance::agent_indices(pi, &self.parts.agent_messages),
            None => Vec::new(),
        })
    }

    /// The source of every leaf of the body ([`crate::provenance::provenance`]),
    /// computed once for every analysis (the statistics, the report, a comparison).
    pub fn provenance(&self) -> &[crate::provenance::Origin] {
        self.provenance_shared()
    }

    /// [`Assembly::provenance`], shared: a host that keeps the sources after letting the
    /// assembly go (the app's worker answers path by path) holds this.
    pub fn provenance_shared(&self) -> &Arc<Vec<crate::provenance::Origin>> {
        self.derived
            .provenance
            .get_or_init(|| Arc::new(crate::provenance::provenance(self)))
    }

    /// What the analysis layer derives from this assembly, made by `make` when first asked for
    /// and kept with it (`None`: the slot holds another type, which no caller does: the
    /// analysis layer keeps one type here).
    pub fn analysis<T: std::any::Any + Send + Sync>(
        &self,
        make: impl FnOnce(&Self) -> T,
    ) -> Option<&T> {
        self.derived
            .analysis
            .get_or_init(|| Arc::new(make(self)))
            .downcast_ref()
    }

    /// Puts the analysis layer's derivation in place (one a host made itself, such as the
    /// statistics with tokens counted), replacing any kept.
    pub fn set_analysis<T: std::any::Any + Send + Sync>(&mut self, value: T) {
        self.derived.analysis =
            std::cell::OnceCell::from(Arc::new(value) as Arc<dyn std::any::Any + Send + Sync>);
    }
}

/// Runs pi's request assembly on `inputs`.
pub fn assemble(inputs: &Inputs) -> Assembly {
    // A workspace for this one assembly: the session's lines are parsed once, for the release
    // detection and the session read.
    Workspace::with_budget(0).assemble_fresh(inputs)
}

/// [`assemble`] with the stages `ws` keeps ([`Workspace::assemble_fresh`]).
pub(crate) fn assemble_in(ws: &Workspace, inputs: &Inputs) -> Assembly {
    let choice = ws.choose(inputs);
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
    let mut run = Run {
        pi,
        ws,
        inputs,
        rec: Recorder::default(),
        diags: inputs.host_diagnostics.clone(),
        parts: Parts::default(),
        registry: Registry::default(),
        switched_from: None,
        llm: LlmContext::default(),
        failed: false,
        calls: Arc::default(),
        call: None,
        choice_run: choice.call_run.clone(),
    };
    let name = session_name(inputs);
    if let Some(r) = &choice.call_run {
        run.diags.push(Diagnostic::info(
            name,
            Some(r.next_run_line),
            format!(
                "a later pi release continued this session from line {} (the system message it stores at a run's start): this call is rebuilt by pi {}, the release that made it (the session up to line {} shows it), not by pi {}, which the later calls are rebuilt with",
                r.next_run_line, choice.version, r.last_line, r.later
            ),
        ));
    }
    if let Some(w) = choice.installed_warning() {
        run.diags.push(Diagnostic::warning("pi", None, w));
    }
    // A session from a newer pi than the one rebuilt is said first.
    if let Some(w) = choice.newer_session_warning() {
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
    run.http_body(request.as_ref());
    run.parts.llm_messages = std::mem::take(&mut run.llm.messages);
    Assembly {
        pi: Some(pi),
        choice: Some(choice),
        request,
        trace: run.rec.finish(),
        diagnostics: run.diags,
        calls: run.calls,
        call: run.call,
        parts: run.parts,
        derived: Derived::default(),
    }
}

/// `getPackageDir()` (CA/config.js:334–345): `$PI_PACKAGE_DIR` when set, else the install.
fn package_dir(inputs: &Inputs) -> String {
    inputs
        .env
        .get("PI_PACKAGE_DIR")
        .filter(|d| !d.is_empty())
        .map(|d| {
            crate::paths::normalize_pi_path(d, &inputs.home, crate::paths::PathOptions::default())
        })
        .unwrap_or_else(|| inputs.pi_package_dir.clone())
}

/// The session's name for a diagnostic (`session` without one).
fn session_name(inputs: &Inputs) -> &str {
    inputs
        .session
        .as_ref()
        .map_or("session", |s| s.name.as_str())
}

/// One assembly in progress: the release, the inputs, the trace so far, the problems found and
/// the data each stage hands on.
struct Run<'a> {
    pi: Pi,
    /// The stages kept from earlier assemblies (the session read).
    ws: &'a Workspace,
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
    /// The calls on the active branch.
    calls: Arc<Vec<Call>>,
    /// The call being rebuilt.
    call: Option<RebuiltCall>,
    /// A past call rebuilt by its own release, where the session goes on past its run.
    choice_run: Option<crate::pi::choice::CallRun>,
}

impl Run<'_> {
    /// pi's command line (`--tools`, `--model`, `@file`, ...; CA/cli/args.js).
    fn command_line(&mut self) {
        self.parts.args = args::parse(&self.pi, &self.inputs.args, &mut self.diags);
    }

    /// The session JSONL read, migrated and walked, then turned into agent messages
    /// (`buildSessionContext`).
    fn session_read(&mut self) {
        let pi = self.pi;
        self.rec.begin(StageId::SessionRead);
        let file = self
            .inputs
            .session
            .as_ref()
            .map(|s| self.ws.session_file(&pi, s));
        if let Some(f) = &file {
            self.diags.extend(f.diagnostics.iter().cloned());
            // A past call's release read the session as it stood then: what a later run wrote
            // after it is not something that release failed to know.
            let upto = self.choice_run.as_ref().map_or(u32::MAX, |r| r.last_line);
            self.diags.extend(
                f.unknown
                    .iter()
                    .filter(|d| d.line.is_none_or(|l| l <= upto))
                    .cloned(),
            );
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
            Some(f) => self.context_for_call_kept(f),
            None => {
                if let Some(c @ (CallRef::Index(_) | CallRef::Entry(_))) = &self.inputs.call {
                    self.call_refused(format!(
                        "call {c}: there is no session, so there is no call to rebuild"
                    ));
                }
                SessionContext {
                    thinking_level: "off".into(),
                    ..Default::default()
                }
            }
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
                    context.path_indices.len()
                ),
                None => "no session: pi starts a new one".into(),
            },
            vec![
                ("entries".into(), entries as f64),
                ("branch".into(), context.path_indices.len() as f64),
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

    /// No request: the call asked for is not in the session (a diagnostic says why).
    fn call_refused(&mut self, message: String) {
        let name = session_name(self.inputs);
        self.diags.push(Diagnostic::error(name, None, message));
        self.failed = true;
    }

    /// [`Run::context_for_call`], kept in the workspace: the same session file (under the same
    /// release), call and prompt-or-not give the kept context, calls, call and what the stage
    /// said (its events and diagnostics, replayed as they were).
    fn context_for_call_kept(&mut self, f: &Arc<SessionFile>) -> SessionContext {
        let key = crate::workspace::ContextKey {
            file: f.clone(),
            version: self.pi.version,
            call: self.inputs.call.clone(),
            prompt: self.inputs.prompt.is_some(),
        };
        if let Some(k) = self.ws.kept_context(&key) {
            self.rec.events.replay(&k.events);
            self.diags.extend(k.diagnostics.iter().cloned());
            self.calls = k.calls.clone();
            self.call = k.call.clone();
            self.failed |= k.failed;
            return k.context.clone();
        }
        let (events, diags) = (self.rec.events.len(), self.diags.len());
        let failed = self.failed;
        let context = self.context_for_call(f);
        self.ws.keep_context(
            key,
            crate::workspace::KeptContext {
                context: context.clone(),
                calls: self.calls.clone(),
                call: self.call.clone(),
                failed: self.failed && !failed,
                events: self.rec.events[events..].to_vec(),
                diagnostics: self.diags[diags..].to_vec(),
            },
        );
        context
    }

    /// The session context of the request rebuilt: pi's active branch, or — for a past call
    /// (`Inputs::call`, or the last call when there is no prompt and the branch ends with an
    /// answer) — the branch up to that answer's parent, as pi's leaf was when it sent the call.
    fn context_for_call(&mut self, f: &Arc<SessionFile>) -> SessionContext {
        let pi = self.pi;
        let active = self.ws.active_branch(f, pi.version, || {
            let mut events = Events::new(StageId::SessionRead);
            let mut diagnostics = Vec::new();
            let context = session::build_context(&pi, f, &mut events, &mut diagnostics);
            let calls = Arc::new(calls::calls_on(f, &context.path_indices, true));
            crate::workspace::ActiveBranch {
                context,
                calls,
                events: events.into_vec(),
                diagnostics,
            }
        });
        self.calls = active.calls.clone();
        let Some((call, chosen)) = self.target_call(f, &active.context) else {
            self.rec.events.replay(&active.events);
            self.diags.extend(active.diagnostics.iter().cloned());
            return active.context.clone();
        };
        let leaf = leaf_before(f, &call);
        self.note_call(&call, chosen);
        let mut ctx =
            session::build_context_at(&pi, f, leaf, &mut self.rec.events, &mut self.diags);
        let retried = self.retries_left_out(&mut ctx);
        self.call = Some(RebuiltCall {
            call,
            chosen,
            model_from: "session",
            thinking_from: "session",
            retried,
        });
        ctx
    }

    /// The call a past request is rebuilt for (`Inputs::call`, or the answer the active branch
    /// ends with when there is no prompt), refused with why when it names no call; `None`: the
    /// next request.
    fn target_call(
        &mut self,
        f: &SessionFile,
        active_ctx: &SessionContext,
    ) -> Option<(Call, CallChoice)> {
        let ends_with_answer = active_ctx
            .messages
            .last()
            .is_some_and(|m| m.get_str("role") == Some("assistant"));
        let target = match &self.inputs.call {
            Some(CallRef::Index(k)) => match k.checked_sub(1).and_then(|i| self.calls.get(i)) {
                Some(c) => Some((c.clone(), CallChoice::Index)),
                None => {
                    let n = self.calls.len();
                    self.call_refused(match n {
                        0 => format!("call {k}: the active branch has no model calls (no assistant messages)"),
                        1 => format!("call {k}: the active branch has 1 model call (call 1)"),
                        _ => format!("call {k}: the active branch has {n} model calls (calls 1 to {n})"),
                    });
                    None
                }
            },
            Some(CallRef::Entry(id)) => match session::find_entry(f, id) {
                None => {
                    self.call_refused(format!("call {id}: no entry with this id in the session"));
                    None
                }
                Some(i) if !calls::is_call(f, i) => {
                    let e = &f.entries[i];
                    let what = match e.value.get("message").and_then(|m| m.get_str("role")) {
                        Some(role) if e.kind() == "message" => format!("a {role} message"),
                        _ => format!("a {} entry", e.kind()),
                    };
                    self.call_refused(format!(
                        "call {id}: entry {id} (line {}) is {what}, not a model call: only an assistant message answers one",
                        e.line
                    ));
                    None
                }
                // On the active branch: its number there; else its number on its own branch.
                Some(i) => match self.calls.iter().find(|c| c.entry == i) {
                    Some(c) => Some((c.clone(), CallChoice::Entry)),
                    None => {
                        let path = session::path_to(f, i);
                        let index = path.iter().filter(|&&j| calls::is_call(f, j)).count();
                        Some((calls::call_at(f, i, index, false), CallChoice::Entry))
                    }
                },
            },
            Some(CallRef::Next) => None,
            None if self.inputs.prompt.is_none() && ends_with_answer => {
                // The answer the branch ends with (the last message's entry).
                let line = active_ctx.sources.last().map(|s| s.line);
                self.calls
                    .iter()
                    .rev()
                    .find(|c| Some(c.line) == line)
                    .or(self.calls.last())
                    .cloned()
                    .map(|c| (c, CallChoice::Last))
            }
            None => None,
        };
        if let (Some((call, CallChoice::Index | CallChoice::Entry)), Some(_)) =
            (&target, &self.inputs.prompt)
        {
            self.diags.push(Diagnostic::warning(
                session_name(self.inputs),
                Some(call.line),
                format!(
                    "the prompt is not used: call {} is rebuilt as pi sent it, with no new prompt",
                    call.index
                ),
            ));
        }
        target
    }

    /// Says which call is rebuilt and why, and what pi's record of it implies: a virtual model's
    /// answer had no request; a failed one may not have reached the provider.
    fn note_call(&mut self, call: &Call, chosen: CallChoice) {
        let choice_text = match chosen {
            CallChoice::Index => format!("call {} of the active branch (--call)", call.index),
            CallChoice::Entry if call.on_active_branch => {
                format!("call {} of the active branch (--call {})", call.index, call.entry_id.as_deref().unwrap_or("?"))
            }
            CallChoice::Entry => format!(
                "call {} of another branch (--call {}): its branch is the path from the root to it",
                call.index,
                call.entry_id.as_deref().unwrap_or("?")
            ),
            CallChoice::Last => format!(
                "no prompt, and the active branch ends with an answer: its last call, call {}, is rebuilt (pi would refuse to continue from an assistant message; --prompt gives the next request)",
                call.index
            ),
        };
        self.rec.events.push(
            Event::new(
                EventKind::Note,
                format!(
                    "{choice_text}: the request that produced the assistant message on line {} ({}), rebuilt from the branch up to its parent with no new prompt",
                    call.line,
                    call.entry_id.as_deref().unwrap_or("no id")
                ),
            )
            .at("CORE/agent-loop.js:192"),
        );
        // A virtual model's answer records a failed routing: pi sent no request for it.
        if call.api.as_deref() == Some("pi-virtual") {
            self.call_refused(format!(
                "call {}: pi sent no request for it: its answer names the virtual model {} (api pi-virtual), which pi could not route to a provider{}",
                call.index,
                call.model_reference().unwrap_or_default(),
                call.error_message
                    .as_deref()
                    .map(|e| format!(" ({e})"))
                    .unwrap_or_default()
            ));
            self.rec.events.push(
                Event::new(
                    EventKind::Note,
                    "a virtual model's answer: requests for it fail unless routed first",
                )
                .at("1.6.0/CA/core/virtual-models.js:3"),
            );
        }
        if let Some(err) = &call.error_message {
            self.rec.events.push(Event::new(
                EventKind::Note,
                format!(
                    "pi recorded this call as failed (stopReason {}): {err} — the request rebuilt is the one pi built; whether it reached the provider (an error pi raised before sending is stored the same way) the session does not say",
                    call.stop_reason.as_deref().unwrap_or("?")
                ),
            ));
        }
    }

    /// 0.85: before a retry pi took the failed answers off its state (the session keeps them):
    /// they are left out of `ctx`; their entry ids.
    fn retries_left_out(&mut self, ctx: &mut SessionContext) -> Vec<String> {
        let mut retried = Vec::new();
        if !self.pi.rules.retry_omission_stored {
            while ctx.messages.last().is_some_and(|m| {
                m.get_str("role") == Some("assistant") && m.get_str("stopReason") == Some("error")
            }) {
                ctx.messages.pop();
                if let Some(src) = ctx.sources.pop() {
                    self.rec.events.push(
                        Event::new(
                            EventKind::Dropped,
                            format!(
                                "the failed answer on line {} is left out: pi took it off its context before it retried (the session keeps it)",
                                src.line
                            ),
                        )
                        .at("CA/core/agent-session.js:2305"),
                    );
                    retried.push(src.entry_id.unwrap_or_default());
                }
            }
        }
        retried
    }

    /// The agent's state (`createAgentSession`, CA/core/sdk.js:66–274): cwd, settings, the model
    /// and thinking level, the active tools, context files and skills, the system prompt.
    fn agent_context(&mut self) {
        let inputs = self.inputs;
        self.rec.begin(StageId::AgentContext);
        let file = self.parts.session.as_ref();
        let cwd = file
            .and_then(|f| f.resolved_cwd(&inputs.home, &inputs.cwd))
            .unwrap_or_else(|| inputs.cwd.clone());
        let session_id = file
            .and_then(|f| f.session_id())
            .map(String::from)
            .or_else(|| inputs.session_id.clone());
        let setup = self.setup(&cwd);
        let (settings, mut registry) = (setup.settings.clone(), setup.registry.clone());
        let package_dir = package_dir(inputs);
        let call_entry = self.past_call_model_and_level();
        let (mut choice, switched_from) =
            self.choose_model(&mut registry, &settings, &package_dir, call_entry);
        let active_tools = self.active_tools(&cwd, &settings);
        let res = self.resources(&setup, &cwd);
        let (system_prompt, prompt_sections) =
            self.system_prompt(&active_tools, &res, &cwd, &package_dir);
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

    /// The context files, skills, prompts, prompt templates and packages pi loads
    /// (`DefaultResourceLoader`), once per setup: they depend on the files, the folders, the
    /// command line and the settings, not on the call.
    fn resources(&mut self, setup: &crate::workspace::KeptSetup, cwd: &str) -> Resources {
        let (pi, inputs) = (self.pi, self.inputs);
        let args = &self.parts.args;
        let (res, diagnostics) = setup.resources.get_or_init(|| {
            let mut diagnostics = Vec::new();
            let res = resources::load(
                &pi,
                &inputs.files,
                &inputs.home,
                &inputs.agent_dir,
                cwd,
                &inputs.cwd,
                args,
                &setup.settings,
                &inputs.env,
                inputs.npm_global_root.as_deref(),
                &mut diagnostics,
            );
            (res, diagnostics)
        });
        self.diags.extend(diagnostics.iter().cloned());
        res.clone()
    }

    /// pi's settings and model registry (the settings files, `models.json`, `auth.json`), as
    /// `createAgentSession` makes them (CA/core/sdk.js), kept in the workspace
    /// ([`Workspace::setup`], where [`Run::resources`] keeps the resources too).
    fn setup(&mut self, cwd: &str) -> std::rc::Rc<crate::workspace::KeptSetup> {
        let (pi, inputs) = (self.pi, self.inputs);
        let args = &self.parts.args;
        let kept = self.ws.setup(pi.version, inputs, cwd, args, || {
            let mut diagnostics = Vec::new();
            let settings = settings::load(
                &inputs.files,
                &inputs.home,
                &inputs.agent_dir,
                cwd,
                args,
                &mut diagnostics,
            );
            let models_path = join_path(&inputs.agent_dir, "models.json");
            let models_json = inputs
                .files
                .read_to_string(&models_path)
                .map(|text| SourceText {
                    name: models_path.clone(),
                    text: text.into(),
                });
            let mut registry =
                Registry::load(&pi, models_json.as_ref(), &inputs.env, &mut diagnostics);
            let auth_path = join_path(&inputs.agent_dir, "auth.json");
            if let Some(text) = inputs.files.read_to_string(&auth_path) {
                registry.apply_auth_json(&text, &auth_path, &inputs.env, &mut diagnostics);
            }
            crate::workspace::KeptSetup {
                settings,
                registry,
                diagnostics,
                resources: std::cell::OnceCell::new(),
            }
        });
        self.diags.extend(kept.diagnostics.iter().cloned());
        kept
    }

    /// A past call runs with the model that answered it and the level recorded on the answer,
    /// unless given. Returns the call's entry (the model is restored from the branch up to it).
    fn past_call_model_and_level(&mut self) -> Option<usize> {
        let (pi, inputs) = (self.pi, self.inputs);
        let args = &self.parts.args;
        let mut call_entry = None;
        if let Some(rc) = self.call.as_mut() {
            let ctx = &mut self.parts.session_context;
            if inputs.model.is_some() || args.model.is_some() || args.provider.is_some() {
                rc.model_from = "given";
            } else if let (Some(p), Some(m)) = (&rc.call.provider, &rc.call.model) {
                ctx.model = Some((p.clone(), m.clone()));
                call_entry = Some(rc.call.entry);
                rc.model_from = "call";
                self.rec.events.push(Event::new(
                    EventKind::Note,
                    format!("the session's model for this call: {p}/{m}, the model that answered it (line {})", rc.call.line),
                ));
            }
            if inputs.thinking.is_some() || args.thinking.is_some() {
                rc.thinking_from = "given";
            } else if let Some(level) = &rc.call.thinking_level {
                ctx.thinking_level = level.clone();
                ctx.thinking_level_value = Some(Value::str(level.as_str()));
                ctx.has_thinking_entry = true;
                rc.thinking_from = "call";
                self.rec.events.push(Event::new(
                    EventKind::Note,
                    format!("the session's thinking level for this call: {level}, as pi recorded it on the answer"),
                ).at("1.6.0/CORE/agent-loop.js:282"));
            } else if pi.rules.transcript {
                rc.thinking_from = "session";
            } else {
                rc.thinking_from = "session";
                self.rec.events.push(Event::new(
                    EventKind::Note,
                    format!(
                        "the session's thinking level for this call: the branch's last thinking_level_change ({}); pi {} does not record the level on the answer, nor a --thinking given when a session is resumed",
                        ctx.thinking_level, pi.version
                    ),
                ));
            }
        }
        call_entry
    }

    /// pi's model choice (`findInitialModel` and the session's restore, CA/core/model-resolver.js),
    /// a placeholder key where the model's provider has none, and the protocol switch asked for.
    /// Returns the choice and the protocol switched from.
    fn choose_model(
        &mut self,
        registry: &mut Registry,
        settings: &Settings,
        package_dir: &str,
        call_entry: Option<usize>,
    ) -> (ModelChoice, Option<String>) {
        let (pi, inputs) = (self.pi, self.inputs);
        let args = &self.parts.args;
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
                    .chain(call_entry.as_ref())
                    .map(|&i| &f.entries[i].value)
                    .collect()
            })
            .unwrap_or_default();
        let cli = model::CliModel {
            model: cli_model.as_deref(),
            provider: args.provider.as_deref(),
            thinking: cli_thinking.as_deref(),
            api_key: args.api_key.as_deref(),
            models: args.models.as_deref(),
            running: inputs.running_pi,
        };
        let session_model = model::SessionModel {
            context: session_ctx,
            branch: &branch,
            has_messages: !session_ctx.messages.is_empty(),
        };
        let docs_dir = join_path(package_dir, "docs");
        if inputs.placeholder_key && args.api_key.is_none() {
            if let Some(p) =
                model::placeholder_provider(&pi, registry, cli, session_model, settings, &docs_dir)
            {
                registry.set_placeholder_key(&p);
                self.parts.placeholder_key = Some(p.clone());
                self.rec.events.push(Event::new(
                    EventKind::Replaced,
                    format!(
                        "no key for provider {p}: a placeholder key stands in (a key never changes the body; the headers show it redacted)"
                    ),
                ));
            }
        }
        let mut choice = model::choose(
            &pi,
            registry,
            cli,
            session_model,
            settings,
            &docs_dir,
            &mut self.rec.events,
            &mut self.diags,
        );
        if let Some(rc) = self.call.as_ref().filter(|rc| rc.model_from == "call") {
            let recorded = rc.call.model_reference().unwrap_or_default();
            let chosen = choice.model.as_ref().map(Model::reference);
            if chosen.as_deref() != Some(recorded.as_str()) {
                let name = session_name(inputs);
                self.diags.push(Diagnostic::warning(
                    name,
                    Some(rc.call.line),
                    format!(
                        "call {}: the model that answered it, {recorded}, is not one pi can restore from these files ({}): pi may have made it from --model at the time; pass --model {recorded} to rebuild the call with it",
                        rc.call.index,
                        match &chosen {
                            Some(m) => format!("pi would run {m} instead"),
                            None => "pi finds no model".into(),
                        }
                    ),
                ));
            }
        }
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
        (choice, switched_from)
    }

    /// The active tools: the built-ins and the extensions' (given, or assumed from the
    /// transcript), selected as the release selects them.
    fn active_tools(&mut self, cwd: &str, settings: &Settings) -> Vec<ToolDef> {
        let (pi, inputs) = (self.pi, self.inputs);
        let args = &self.parts.args;
        let session_ctx = &self.parts.session_context;
        // `areExperimentalFeaturesEnabled()`: exactly "1" (CA/core/experimental.js:2).
        let experimental = inputs.env.get("PI_EXPERIMENTAL").is_some_and(|v| v == "1");
        let builtins = tools::builtin_tools(&pi, experimental);
        // The branch's system messages (0.86 on): every one, the ones before a compaction too
        // (`getBranch()`, CA/core/agent-session.js:1462).
        let branch_system: Vec<Value> = self
            .parts
            .session
            .as_ref()
            .filter(|_| pi.rules.transcript)
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
        let extensions = match inputs.extension_tools.as_ref() {
            Some(src) => tools::extension_tools(src, &mut self.diags),
            None => assumed_extension_tools(
                &pi,
                inputs,
                args,
                cwd,
                settings,
                &builtins,
                &branch_system,
                &mut self.diags,
            ),
        };

        if pi.rules.tool_loadout {
            tools::select_loadout(
                &pi,
                builtins,
                extensions,
                args,
                settings,
                &branch_system,
                &mut self.diags,
            )
        } else {
            tools::select(&pi, builtins, extensions, args, settings, &mut self.diags)
        }
    }

    /// The system prompt: 0.86 on, this run's sections and what they read as on their own; before,
    /// `buildSystemPrompt` (for a past call, said to be built from the files given now).
    fn system_prompt(
        &mut self,
        active_tools: &[ToolDef],
        res: &Resources,
        cwd: &str,
        package_dir: &str,
    ) -> (SystemPrompt, Vec<prompt::sections::BuiltSection>) {
        let (pi, inputs) = (self.pi, self.inputs);
        let (system_prompt, prompt_sections) = if pi.rules.transcript {
            let built = prompt::sections::build_pieces(&pi, active_tools, res, cwd, package_dir);
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
                prompt::build(&pi, active_tools, res, cwd, package_dir),
                Vec::new(),
            )
        };
        if let (Some(rc), false) = (&self.call, pi.rules.transcript) {
            let text = format!(
                "pi {} does not store the system prompt or the tools in the session: for call {} they are built from the files given now (context files, skills, settings, extension tools), which may differ from the ones pi read then",
                pi.version, rc.call.index
            );
            self.rec
                .events
                .push(Event::new(EventKind::Note, text.clone()));
            let name = session_name(inputs);
            self.diags
                .push(Diagnostic::info(name, Some(rc.call.line), text));
        }
        (system_prompt, prompt_sections)
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
            _ if self.call.is_some() => self.past_call_input(&messages),
            Some(text) => self.new_prompt(text, &mut messages),
            None => self.continue_input(&mut messages),
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

    /// A past call: no new input (the branch is as it was when pi sent it); from 0.86 its stored
    /// system messages are the prompt and the tools, and a branch without one was made by 0.85.
    fn past_call_input(&mut self, messages: &[Value]) {
        let (pi, inputs) = (self.pi, self.inputs);
        let Some(rc) = self.call.as_ref() else {
            return;
        };
        self.rec.events.push(Event::new(
            EventKind::Note,
            format!(
                "no new prompt: call {} carries the branch as it was when pi sent it{}",
                rc.call.index,
                match rc.call.message_timestamp {
                    Some(t) => format!(
                        "; Date.now() then was {} (the answer's timestamp: pi-ai stamps it as the stream starts, just before the request), and every message the request carries is stored with its own",
                        crate::js::number_to_string(t)
                    ),
                    None => String::new(),
                }
            ),
        ));
        if pi.rules.transcript {
            self.rec.events.push(Event::new(
                EventKind::Note,
                "the system prompt and the tools are the branch's stored system messages: pi stored the run's patch and tool changes before it sent the call",
            ));
            if !messages.iter().any(|m| m.get_str("role") == Some("system")) {
                let name = session_name(inputs);
                self.diags.push(Diagnostic::warning(
                    name,
                    Some(rc.call.line),
                    format!(
                        "call {}: its branch holds no system message, which pi {} stores before its first call: an older pi (0.85) made this call, so the request has no system prompt or tools here; rebuild it with --pi 0.85.1",
                        rc.call.index, pi.version
                    ),
                ));
            }
        }
    }

    /// The new user message (`AgentSession.prompt`, the message at CA/core/agent-session.js:900):
    /// its `@file` attachments, the `/skill:` and prompt-template expansions, its images; from
    /// 0.86 a run begins with it.
    fn new_prompt(&mut self, text: &str, messages: &mut Vec<Value>) {
        let (pi, inputs) = (self.pi, self.inputs);
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
        let (full, template) = crate::prompt_templates::expand_prompt_template(
            &pi,
            &full,
            &self.parts.resources.prompt_templates,
        );
        if let Some(t) = template {
            self.parts.prompt_template = Some((t.file_path.clone(), utf16_len(&full)));
            self.rec.events.push(
                Event::new(
                    EventKind::Converted,
                    format!(
                        "/{} expanded from the prompt template {} ({} chars)",
                        t.name,
                        t.file_path,
                        utf16_len(&full)
                    ),
                )
                .at("CA/core/prompt-templates.js:221"),
            );
        } else if let Some(name) = full
            .strip_prefix('/')
            .map(|r| r.split(crate::js::is_js_whitespace).next().unwrap_or(""))
            .filter(|n| !n.is_empty() && skill.is_none())
        {
            self.rec.events.push(
                Event::new(
                    EventKind::Note,
                    format!("/{name}: no prompt template or skill of that name, so pi sends the text as written (an extension command of that name would run instead, which ctxlens cannot know)"),
                )
                .at("CA/core/prompt-templates.js:221"),
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
            self.begin_run(messages, vec![user]);
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

    /// pi's continue after the last tool results: no new message (refused where pi refuses);
    /// from 0.86 the run's tool changes still come first.
    fn continue_input(&mut self, messages: &mut Vec<Value>) {
        let pi = self.pi;
        self.rec.events.push(Event::new(
            EventKind::Note,
            "no new prompt: pi continues after the last tool results",
        ));
        if !self.failed {
            self.refuse_continue(messages);
        }
        if pi.rules.transcript {
            // Before every request, the tool changes (CORE/agent-loop.js:121).
            self.begin_run(messages, Vec::new());
        }
    }

    /// pi's continue (`Agent.continue`, CORE/agent.js:234–255) throws when there is nothing to
    /// continue from or the last message is an answer: no request.
    fn refuse_continue(&mut self, messages: &[Value]) {
        let all_system = self.pi.rules.transcript
            && messages.iter().all(|m| m.get_str("role") == Some("system"));
        let (error, at) = match messages.last() {
            None => ("No messages to continue from", "CORE/agent.js:240"),
            Some(_) if all_system => ("No messages to continue from", "1.6.0/CORE/agent.js:260"),
            Some(m) if m.get_str("role") == Some("assistant") => (
                "Cannot continue from message role: assistant",
                "CORE/agent.js:253",
            ),
            Some(_) => return,
        };
        let name = session_name(self.inputs);
        self.diags.push(Diagnostic::error(
            name,
            None,
            format!("pi would fail here: Error: {error} (no prompt: pi's continue; --prompt gives the next request, --call a past one)"),
        ));
        self.rec
            .events
            .push(Event::new(EventKind::Note, format!("pi throws: {error}")).at(at));
        self.failed = true;
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
    /// message of the context, with where each part was stored.
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
        // The current tools first, then every other definition the transcript holds.
        let mut all = self.parts.declared_tools.clone();
        for t in crate::transcript::every_declaration(messages) {
            let same = |d: &ToolDef| {
                d.name == t.name
                    && d.description == t.description
                    && d.parameters.to_json() == t.parameters.to_json()
            };
            if !all.iter().any(same) {
                all.push(t);
            }
        }
        self.parts.every_declared_tool = all;
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
        // Each message and block marked with what it is, so the adapter's body says where each
        // of its characters came from.
        let mut llm = llm;
        self.ws.mark_llm_messages(&mut llm);
        // 0.86 on, the context is only `{messages}`: the prompt and the tools are in its system
        // messages (`normalizeContext`, CORE/agent-loop.js:273).
        self.llm = if self.pi.rules.transcript {
            LlmContext::transcript(llm)
        } else {
            LlmContext::prompt(
                self.parts.system_prompt.text.clone(),
                llm,
                self.parts.tools.clone(),
            )
        };
    }

    /// The adapter (`streamSimple` of the model's api): headers pi merges first
    /// (`prepareRequest` + `transformHeaders`, CA/core/model-runtime.js:422, CA/core/sdk.js:200),
    /// then `transformMessages`, the message conversion and the parameters. `None` where pi
    /// would refuse to send (a diagnostic says why).
    fn adapter(&mut self) -> Option<Request> {
        let pi = self.pi;
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
        self.rec.begin(StageId::BuildParams);
        let (opts, headers_error) = self.stream_options(&model);
        let ctx = &self.llm;
        let built = match headers_error {
            None => protocols::build(&pi, &model, ctx, &opts, &mut self.rec.events),
            Some(message) => Err(protocols::AdapterError { message }),
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
        self.record_adapter_stages(&model, request.as_ref());
        request
    }

    /// The options `streamSimple` gets: the level, the session id, the key, the identity and the
    /// headers pi merges first (`prepareRequest` + `transformHeaders`, CA/core/model-runtime.js:422,
    /// CA/core/sdk.js:200; `Some(why)` where merging them fails, as pi would).
    fn stream_options(&mut self, model: &Model) -> (StreamOptions, Option<String>) {
        let (pi, inputs) = (self.pi, self.inputs);
        let choice = &self.parts.model_choice;
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
            model,
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
                model,
                &self.parts.settings,
                &inputs.env,
                &user_agent,
            ),
            headers: headers.clone().unwrap_or_default(),
            switched_from: self.switched_from.clone(),
        };
        (opts, headers.err())
    }

    /// The adapter's stages in the trace: `transformMessages`' changes, the messages converted,
    /// the parameters.
    fn record_adapter_stages(&mut self, model: &Model, request: Option<&Request>) {
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
                self.llm.messages.len(),
                model.api()
            ),
            Vec::new(),
        );
        self.rec.record(
            StageId::BuildParams,
            file,
            request
                .map(|r| {
                    format!(
                        "{} top-level fields",
                        r.params.as_object().map_or(0, |o| o.len())
                    )
                })
                .unwrap_or_default(),
            Vec::new(),
        );
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

    /// The serialized request (its accounting is made from the assembly once it is whole).
    fn http_body(&mut self, request: Option<&Request>) {
        let Some(r) = request else { return };
        let pi = self.pi;
        if pi.rules.transcript {
            // The system messages as the adapter placed them (leading or in place).
            let map = crate::provenance::agent_indices(&pi, &self.parts.agent_messages);
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
            let sent = crate::sent::sent_system(
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
        let file = p
            .model_choice
            .model
            .as_ref()
            .and_then(|m| m.api().parse::<Api>().ok())
            .map_or("AI/api", Api::pi_file);
        self.rec.record(
            StageId::HttpBody,
            file,
            format!("POST {} ({} bytes)", r.url, r.sent_len()),
            // Its length as the writer summed it: a large body is not scanned again.
            vec![
                ("bytes".into(), r.sent_len() as f64),
                ("chars".into(), r.accounting.body_chars as f64),
            ],
        );
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

/// The extension tools of a run whose extensions ctxlens cannot run (pi packages bring
/// code): none given (`--tool-set`), a session from 0.86 on that stores every declared tool,
/// and a package with extensions — the tools the transcript last declared that are not
/// pi's own, as an assumption said with the packages' settings lines, instead of a removal
/// pi would not make. Their prompt snippets and guidelines are not stored: taken as none.
#[allow(clippy::too_many_arguments)]
fn assumed_extension_tools(
    pi: &Pi,
    inputs: &Inputs,
    args: &crate::args::PiArgs,
    cwd: &str,
    settings: &settings::Settings,
    builtins: &[tools::ToolDef],
    branch_system: &[Value],
    diags: &mut Vec<Diagnostic>,
) -> Vec<tools::ToolDef> {
    if branch_system.is_empty() {
        return Vec::new();
    }
    let pkgs = crate::packages::Resolver {
        pi,
        fs: &inputs.files,
        home: &inputs.home,
        agent_dir: &crate::js::path::normalize_path(&inputs.agent_dir),
        cwd: &crate::js::path::normalize_path(cwd),
        process_cwd: &inputs.cwd,
        offline: true,
        npm_global_root: crate::packages::npm_global_root(
            inputs.npm_global_root.as_deref(),
            &inputs.env,
        )
        .as_deref(),
    }
    .resolve(settings, &args.extensions, &mut Vec::new());
    let Some(pkg) = pkgs.packages.iter().find(|p| !p.extensions.is_empty()) else {
        return Vec::new();
    };
    let declared: Vec<Value> = crate::transcript::current_tools(branch_system)
        .into_iter()
        .filter(|t| {
            let name = t.get_str("name").unwrap_or("");
            !builtins.iter().any(|b| b.name == name)
        })
        .collect();
    if declared.is_empty() {
        return Vec::new();
    }
    let names: Vec<&str> = declared.iter().filter_map(|t| t.get_str("name")).collect();
    diags.push(Diagnostic::info(
        &pkg.settings_file,
        pkg.line,
        format!(
            "assumed: the extension tools are the ones the session last declared ({}), since the extensions of {} are code ctxlens does not run; their prompt snippets and guidelines are not stored (taken as none); give --tool-set to say otherwise",
            names.join(", "),
            crate::packages::label(pkg.scope, &pkg.source)
        ),
    ));
    let list: Vec<Value> = declared
        .iter()
        .map(|t| {
            let mut o = crate::js::Object::new();
            for k in ["name", "description", "parameters"] {
                if let Some(v) = t.get(k) {
                    o.insert(k, v.clone());
                }
            }
            Value::Object(o)
        })
        .collect();
    let src = SourceText {
        name: "the session's declared tools".into(),
        text: Value::Array(list).to_json().into(),
    };
    let mut defs = tools::extension_tools(&src, diags);
    for d in &mut defs {
        d.package = Some(pkg.source.clone());
    }
    defs
}

/// pi's leaf when it sent `call`: the answer's parent (an answer appended while pi's leaf had
/// no id: that entry).
fn leaf_before(f: &SessionFile, call: &Call) -> session::Leaf {
    match call
        .parent_id
        .as_deref()
        .and_then(|p| session::find_entry(f, p))
    {
        Some(j) => session::Leaf::Entry(j),
        // Appended while pi's leaf had no id: that entry was the leaf (`build_context_at`).
        None if call.entry > 0
            && f.entries[call.entry].value.get("parentId").is_none()
            && !f.entries[call.entry - 1]
                .value
                .get("id")
                .is_some_and(Value::truthy) =>
        {
            session::Leaf::Entry(call.entry - 1)
        }
        None => session::Leaf::Root,
    }
}

//! One module per pi adapter (pi-ai `dist/api/<name>.js`), each turning the LLM context into the
//! protocol's URL, headers and body bytes.

pub mod anthropic_messages;
pub mod azure_openai_responses;
pub mod base64;
pub mod bedrock_converse_stream;
pub mod constrained_sampling;
pub mod github_copilot_headers;
pub mod google_generative_ai;
pub mod google_shared;
pub mod mistral_conversations;
pub mod openai_codex_responses;
pub mod openai_completions;
pub mod openai_prompt_cache;
pub mod openai_responses;
pub mod openai_responses_shared;
pub mod pi_messages;

use std::collections::BTreeMap;

use crate::api::Api;
use crate::context::LlmContext;
use crate::js::{Object, Value};
use crate::model::Model;
use crate::pi::Pi;
use crate::trace::{Event, EventKind, Events};

/// What the coding agent passes to `streamSimple` (INVENTORY M5, M6), already resolved.
#[derive(Clone, Debug, Default)]
pub struct StreamOptions {
    /// The thinking level, `None` when "off" (`reasoning` in pi).
    pub reasoning: Option<String>,
    /// The session header id.
    pub session_id: Option<String>,
    /// Environment variables (PI_CACHE_RETENTION, ...).
    pub env: BTreeMap<String, String>,
    /// `settings.thinkingBudgets`.
    pub thinking_budgets: Option<Object>,
    /// The API key pi resolved for the provider (models.json `apiKey`, default "test-key" in
    /// the oracle). Only its kind matters (OAuth detection); it is never put in headers here.
    pub api_key: String,
    /// `User-Agent: pi (...)`.
    pub user_agent: String,
    /// The client identity's headers (`getIdentityHeaders`): the `User-Agent`, then from 1.4.0
    /// the provider attribution headers. Adapters put them below the model's headers.
    pub identity_headers: Vec<(String, String)>,
    /// The model's own api when the protocol was switched (`Inputs::api`): a what-if, so where
    /// pi would refuse only because the model's metadata or key belongs to another protocol
    /// (a Codex key that is not a ChatGPT token, a thinking level Google cannot map), the adapter
    /// goes on with a stated stand-in instead.
    pub switched_from: Option<String>,
    /// Configured headers (models.json provider/model headers), merged case-insensitively.
    pub headers: Vec<(String, String)>,
}

/// The HTTP request an adapter produces.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Request {
    pub method: &'static str,
    /// The full URL (`{baseUrl}/chat/completions`, ...).
    pub url: String,
    /// The protocol's own headers, in order (credentials shown as `<redacted>`; SDK runtime
    /// headers such as x-stainless-* left out).
    pub headers: Vec<(String, String)>,
    /// The body as a value (the params after onPayload).
    pub params: Value,
    /// The exact body bytes.
    pub body: String,
}

/// Why an adapter could not build a request (pi throws there too).
#[derive(Clone, Debug, PartialEq)]
pub struct AdapterError {
    pub message: String,
}

/// An [`AdapterError`] with `message` (where pi throws).
pub(crate) fn err(message: impl Into<String>) -> AdapterError {
    AdapterError {
        message: message.into(),
    }
}

/// Records a trace event of `kind` at a pi source location.
pub(crate) fn ev(
    events: &mut Events,
    kind: EventKind,
    message: impl Into<String>,
    at: &'static str,
) {
    events.push(Event::new(kind, message).at(at));
}

/// Builds the request for `model.api()` (pi's `getApiProvider(model.api)`, which throws for an
/// api it has no adapter for).
pub fn build(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    opts: &StreamOptions,
    events: &mut Events,
) -> Result<Request, AdapterError> {
    let api: Api = model
        .api()
        .parse()
        .map_err(|e: crate::api::UnknownApi| err(e.to_string()))?;
    if !pi.rules.ported_apis.contains(&api) {
        return Err(err(format!(
            "ctxlens has not ported pi {}'s {api} adapter yet: no body is built (one made with another release's adapter would be wrong)",
            pi.version
        )));
    }
    match api {
        Api::OpenAiCompletions => openai_completions::build(pi, model, ctx, opts, events),
        Api::AnthropicMessages => anthropic_messages::build(pi, model, ctx, opts, events),
        Api::OpenAiResponses => openai_responses::build(pi, model, ctx, opts, events),
        Api::AzureOpenAiResponses => azure_openai_responses::build(pi, model, ctx, opts, events),
        Api::OpenAiCodexResponses => openai_codex_responses::build(pi, model, ctx, opts, events),
        Api::GoogleGenerativeAi => google_generative_ai::build(pi, model, ctx, opts, events),
        Api::BedrockConverseStream => bedrock_converse_stream::build(pi, model, ctx, opts, events),
        Api::MistralConversations => mistral_conversations::build(pi, model, ctx, opts, events),
        Api::PiMessages => pi_messages::build(pi, model, ctx, opts, events),
    }
}

/// pi's tool-call id sanitizing, `id.replace(/[^a-zA-Z0-9_-]/g, "_")` (written out in each of
/// anthropic-messages.js, openai-completions.js, openai-responses-shared.js, google-shared.js and
/// bedrock-converse-stream.js): per UTF-16 unit, as the regex has no `u` flag.
pub(crate) fn sanitize_tool_call_id(id: &str) -> String {
    crate::js::replace_units_outside(
        id,
        |b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-',
        "_",
    )
}

/// `PI_CACHE_RETENTION === "long" ? "long" : "short"` (A6; the coding agent never sets the
/// option).
pub fn cache_retention(opts: &StreamOptions) -> &'static str {
    if opts.env.get("PI_CACHE_RETENTION").map(String::as_str) == Some("long") {
        "long"
    } else {
        "short"
    }
}

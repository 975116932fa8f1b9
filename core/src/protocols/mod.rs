//! One module per pi adapter (pi-ai `dist/api/<name>.js`), each turning the LLM context into the
//! protocol's URL, headers and body bytes.

pub mod anthropic_messages;
pub mod azure_openai_responses;
pub mod base64;
pub mod bedrock_converse_stream;
pub mod body;
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

/// What the coding agent passes to `streamSimple`, already resolved.
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
    /// The exact body bytes; for a body measured, not sent ([`crate::js::memo::measuring`]),
    /// those bytes with the long history texts left out (`""` in their place, the texts in
    /// [`body::Accounting::elided`]).
    pub body: String,
    /// Where the body's characters came from, recorded while writing it ([`body::written`]).
    pub accounting: body::Accounting,
    /// The value written as the body, with the adapter's marks: the params, or what the SDK
    /// made of them (Google's and Bedrock's request shapes, Anthropic's without `betas`).
    pub sent: Value,
    /// Why the URL looks wrong, when it does: after a protocol switch, a path segment doubled
    /// where the model's base URL (made for its own protocol) meets the path the other
    /// protocol's adapter adds ([`doubled_segment_note`]).
    pub url_note: Option<String>,
}

impl Request {
    /// The length in bytes of the body as sent (also of a measured body).
    pub fn sent_len(&self) -> usize {
        self.body.len() + self.accounting.elided_bytes
    }
}

/// A path segment repeated where `base_url` meets what the adapter added (`/v1` + `/v1/messages`
/// gives `/v1/v1/messages`), as a sentence: the base URL was made for `own_api`, the adapter of
/// `api` adds its own version prefix. `None` when no segment repeats.
pub fn doubled_segment_note(url: &str, base_url: &str, own_api: &str, api: &str) -> Option<String> {
    let path_of = |u: &str| -> String {
        let after_scheme = u.split_once("://").map_or(u, |(_, r)| r);
        let path = after_scheme.find('/').map_or("", |i| &after_scheme[i..]);
        path.split(['?', '#']).next().unwrap_or("").to_string()
    };
    let path = path_of(url);
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let doubled = segments
        .windows(2)
        .find(|w| w[0] == w[1])
        .map(|w| w[0].to_string())?;
    let base = base_url.trim_end_matches('/');
    let added = url
        .strip_prefix(base)
        .map(|r| path_of(&format!("x://h{r}")));
    let fixed = base
        .strip_suffix(&format!("/{doubled}"))
        .map(|b| format!(" (a base URL of {b} would give /{doubled} once)"))
        .unwrap_or_default();
    Some(format!(
        "/{doubled}/{doubled} in the URL: the model's base URL {base} was made for {own_api}, and the {api} adapter adds {} to it{fixed}. pi builds the URL the same way, so for this protocol the model's baseUrl would need to change.",
        added.unwrap_or_else(|| format!("/{doubled}/…")),
    ))
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

/// `PI_CACHE_RETENTION === "long" ? "long" : "short"` (the coding agent never sets the
/// option).
pub fn cache_retention(opts: &StreamOptions) -> &'static str {
    if opts.env.get("PI_CACHE_RETENTION").map(String::as_str) == Some("long") {
        "long"
    } else {
        "short"
    }
}

#[cfg(test)]
mod url_note_tests {
    use super::doubled_segment_note;

    #[test]
    fn a_doubled_segment_is_explained() {
        let note = doubled_segment_note(
            "http://127.0.0.1:35261/v1/v1/messages?beta=true",
            "http://127.0.0.1:35261/v1",
            "openai-completions",
            "anthropic-messages",
        )
        .expect("a note");
        assert_eq!(
            note,
            "/v1/v1 in the URL: the model's base URL http://127.0.0.1:35261/v1 was made for openai-completions, and the anthropic-messages adapter adds /v1/messages to it (a base URL of http://127.0.0.1:35261 would give /v1 once). pi builds the URL the same way, so for this protocol the model's baseUrl would need to change."
        );
        for (url, base) in [
            ("http://h/v1/chat/completions", "http://h/v1"),
            (
                "https://api.anthropic.com/v1/messages",
                "https://api.anthropic.com",
            ),
            ("http://h/v1/x?q=/v1/v1", "http://h/v1"),
        ] {
            assert_eq!(doubled_segment_note(url, base, "a", "b"), None, "{url}");
        }
    }

    /// The demo (openai-completions, a base URL ending in /v1) switched to Anthropic's
    /// protocol: the URL doubles /v1, the request says why and a diagnostic names the model.
    #[test]
    fn a_protocol_switch_that_doubles_v1_says_why() {
        let a = crate::testcase::assembly("demo", Some("anthropic-messages"));
        let r = a.request.as_ref().expect("a request");
        assert!(r.url.contains("/v1/v1/messages"), "{}", r.url);
        let note = r.url_note.as_deref().expect("a note");
        assert!(note.starts_with("/v1/v1 in the URL") && note.contains("openai-completions"));
        assert!(a
            .diagnostics
            .iter()
            .any(|d| d.message == note && d.file.ends_with("(baseUrl)")));
        let own = crate::testcase::assembly("demo", None);
        assert_eq!(
            own.request.as_ref().and_then(|r| r.url_note.as_deref()),
            None
        );
        let other = crate::testcase::assembly("demo", Some("openai-responses"));
        assert_eq!(
            other.request.as_ref().and_then(|r| r.url_note.as_deref()),
            None
        );
    }
}

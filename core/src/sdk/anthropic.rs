//! `@anthropic-ai/sdk` (0.123.0 in pi 0.85.1, 0.129.0 in 1.6.0; `SDK/` below), as
//! anthropic-messages uses it: `client.beta.messages.create` — the body without `betas` (they
//! become the `anthropic-beta` header), the URL from the base URL, and the headers in the SDK's
//! order (its defaults, the auth header, `defaultHeaders` with `ANTHROPIC_CUSTOM_HEADERS`, the
//! body's content-type, the request's betas).

use crate::js::{join_element, Object, Value};
use crate::model::Model;
use crate::pi::Pi;
use crate::protocols::{ev, Request, StreamOptions};
use crate::trace::{EventKind, Events};

/// The path `client.beta.messages.create` posts to (SDK/resources/beta/messages/messages.js:42).
const MESSAGES_PATH: &str = "/v1/messages?beta=true";
/// The SDK's default base URL (SDK/client.js:80).
pub(crate) const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";

/// What `createClient` configures the SDK with.
pub(crate) struct Client {
    pub(crate) is_oauth: bool,
    /// `X-Api-Key` (apiKey) or `Authorization: Bearer` (authToken) from the SDK's auth.
    pub(crate) auth_header: Option<&'static str>,
    /// `defaultHeaders`: a plain object (case-sensitive keys, later same key overrides).
    pub(crate) default_headers: Vec<(String, Value)>,
}

/// `Object.assign`-style merge into an ordered key list (case-sensitive keys).
pub(crate) fn assign(target: &mut Vec<(String, Value)>, key: &str, value: Value) {
    match target.iter_mut().find(|(k, _)| k == key) {
        Some(slot) => slot.1 = value,
        None => target.push((key.to_string(), value)),
    }
}

/// `client.beta.messages.create(params)` (SDK/resources/beta/messages/messages.js:24–55) and
/// `BaseAnthropic.buildRequest` (SDK/client.js:797–890): `betas` leaves the body for the
/// `anthropic-beta` header, the body is `JSON.stringify`d, headers are merged in the SDK's order.
pub(crate) fn messages_create(
    pi: &Pi,
    model: &Model,
    opts: &StreamOptions,
    client: &Client,
    params: Object,
    events: &mut Events,
) -> Request {
    let at = "@anthropic-ai/sdk/resources/beta/messages/messages.js:27";
    let mut body = params.clone();
    let betas = body.remove("betas");
    let betas_header = betas.as_ref().map(|b| join_element(Some(b)));
    if let Some(b) = &betas_header {
        ev(
            events,
            EventKind::Converted,
            format!("betas leave the body for the anthropic-beta header: {b}"),
            at,
        );
    }
    let headers = request_headers(pi, opts, client, betas_header);
    let url = build_url(model, opts);
    let sent = Value::Object(body);
    let (body, accounting) = crate::protocols::body::written(&sent);
    Request {
        method: "POST",
        url,
        headers,
        params: Value::Object(params),
        body,
        accounting,
        sent,
        url_note: None,
    }
}

/// The SDK's header assembly (SDK/client.js:823–848) filtered to the protocol's own headers:
/// SDK defaults, auth, `defaultHeaders` (with `ANTHROPIC_CUSTOM_HEADERS` first), the body's
/// content-type, then the request's `anthropic-beta`. x-stainless-* are the runtime's and left
/// out; credentials are shown as `<redacted>` (as the oracle does for names matching
/// /auth|api-key|cookie/i).
fn request_headers(
    pi: &Pi,
    opts: &StreamOptions,
    client: &Client,
    betas: Option<String>,
) -> Vec<(String, String)> {
    let s = |k: &str, v: &str| (k.to_string(), Some(v.to_string()));
    let sdk_defaults = vec![
        s("Accept", "application/json"),
        s(
            "User-Agent",
            // The SDK's own `User-Agent`, always overridden by pi's (SDK/client.js:838).
            &format!("Anthropic/JS {}", pi.data.sdk_version("@anthropic-ai/sdk")),
        ),
        s("anthropic-dangerous-direct-browser-access", "true"),
        s("anthropic-version", "2023-06-01"),
    ];
    let auth: super::HeaderSource = client
        .auth_header
        .map(|h| vec![s(h, "<redacted>")])
        .unwrap_or_default();
    let mut default_headers: super::HeaderSource = Vec::new();
    if let Some(custom) = opts
        .env
        .get("ANTHROPIC_CUSTOM_HEADERS")
        .filter(|c| !c.is_empty())
    {
        let mut parsed: Vec<(String, Value)> = Vec::new();
        for line in custom.split('\n') {
            if let Some((k, v)) = line.split_once(':') {
                assign(&mut parsed, k.trim(), Value::str(v.trim()));
            }
        }
        let mut merged = parsed;
        for (k, v) in &client.default_headers {
            assign(&mut merged, k, v.clone());
        }
        default_headers.extend(merged.into_iter().map(|(k, v)| (k, header_value(&v))));
    } else {
        default_headers.extend(
            client
                .default_headers
                .iter()
                .map(|(k, v)| (k.clone(), header_value(v))),
        );
    }
    let body_headers = vec![s("content-type", "application/json")];
    let request_headers: super::HeaderSource = betas
        .map(|b| vec![("anthropic-beta".to_string(), Some(b))])
        .unwrap_or_default();
    super::build_headers(vec![
        sdk_defaults,
        auth,
        default_headers,
        body_headers,
        request_headers,
    ])
    .into_iter()
    .map(|(k, v)| {
        let lower = k.to_lowercase();
        let secret =
            lower.contains("auth") || lower.contains("api-key") || lower.contains("cookie");
        (k, if secret { "<redacted>".to_string() } else { v })
    })
    .collect()
}

/// A configured header's value as `Headers.append` stringifies it (`null` removes the header).
fn header_value(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        other => Some(join_element(Some(other))),
    }
}

/// `buildURL(path)` (SDK/client.js:389–404): `baseURL + path` (one slash dropped when both have
/// it); `baseURL` is `model.baseUrl`, else `ANTHROPIC_BASE_URL`, else the SDK default. The URL is
/// not re-normalized as `new URL()` would.
fn build_url(model: &Model, opts: &StreamOptions) -> String {
    let base = match model.obj.get("baseUrl") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        Some(Value::String(_)) => DEFAULT_BASE_URL.to_string().into(),
        _ => opts
            .env
            .get("ANTHROPIC_BASE_URL")
            .filter(|s| !s.is_empty())
            .cloned()
            .unwrap_or_else(|| DEFAULT_BASE_URL.to_string())
            .into(),
    };
    if base.ends_with('/') {
        format!("{}{}", base, &MESSAGES_PATH[1..])
    } else {
        format!("{base}{MESSAGES_PATH}")
    }
}

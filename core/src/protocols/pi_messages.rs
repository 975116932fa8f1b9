//! pi-ai `dist/api/pi-messages.js`: pi's own message protocol. The
//! request is one POST of `{model, context, options}` to `<baseUrl>/messages`, where `context`
//! is the LLM context exactly as the agent loop holds it: no `transformMessages`, no
//! sanitization, every message field kept, and the whole AgentTool objects as `JSON.stringify`
//! shows them. From 0.86 on that context is the transcript `{messages}`: the system messages
//! (content, sections, tool declarations, removals, timestamp) are among the messages as the
//! session holds them, with no `systemPrompt` and no `tools`.

use super::body::Tag;
use super::{body, err, AdapterError, Request, StreamOptions};
use crate::context::LlmContext;
use crate::js::{Object, Value};
use crate::model::Model;
use crate::pi::Pi;
use crate::trace::{Event, EventKind, Events};

/// `streamSimple` (:185–193) and the request-building part of `stream` (:122–160). The coding
/// agent's options pass through as they are: no `buildBaseOptions`, so no `maxTokens`;
/// `reasoning` is the agent's level, already clamped. With no extension, `onPayload` returns
/// nothing and the payload is sent as built.
pub fn build(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    opts: &StreamOptions,
    events: &mut Events,
) -> Result<Request, AdapterError> {
    if opts.api_key.is_empty() {
        return Err(err(format!(
            "No API key provided for provider \"{}\"",
            model.provider()
        )));
    }
    let url = messages_url(model.base_url())?;
    let headers = if pi.rules.pi_messages.identity_headers_merged {
        merged_request_headers(opts, events)
    } else {
        request_headers(opts)
    };

    let context = if ctx.is_transcript() {
        let system = ctx
            .messages
            .iter()
            .filter(|m| m.get_str("role") == Some("system"))
            .count();
        events.push(
            Event::new(
                EventKind::Note,
                format!(
                    "raw transcript sent as context {{messages}}: {} messages ({system} system messages with their sections and tool declarations as stored), no systemPrompt, no tools, no transformMessages and no sanitization",
                    ctx.messages.len()
                ),
            )
            .at("1.6.0/AI/api/pi-messages.js:272"),
        );
        transcript_context_json(ctx)
    } else {
        events.push(
            Event::new(
                EventKind::Note,
                format!(
                    "raw context sent: {} messages, {} tools, no transformMessages and no sanitization",
                    ctx.messages.len(),
                    ctx.tools().len()
                ),
            )
            .at("AI/api/pi-messages.js:136"),
        );
        llm_context_json(ctx)
    };
    // `{temperature, maxTokens, reasoning, cacheRetention, sessionId, toolChoice}`: the coding
    // agent sets neither temperature, maxTokens nor toolChoice, and JSON.stringify drops them.
    let mut options = Object::new();
    options.insert_opt(
        "reasoning",
        opts.reasoning
            .clone()
            .filter(|r| !r.is_empty())
            .map(Value::from),
    );
    let retention = resolve_cache_retention(opts);
    if let Some(r) = retention {
        events.push(
            Event::new(
                EventKind::Note,
                format!("cacheRetention {r:?} from PI_CACHE_RETENTION"),
            )
            .at("AI/api/pi-messages.js:234"),
        );
    }
    options.insert_opt("cacheRetention", retention.map(Value::str));
    options.insert_opt("sessionId", opts.session_id.clone().map(Value::from));

    let mut payload = Object::new();
    payload.insert_opt("model", model.obj.get("id").cloned());
    payload.insert("context", context);
    payload.insert("options", Value::Object(options));
    let params = Value::Object(payload);
    let (body, accounting) = body::written(&params);
    Ok(Request {
        method: "POST",
        url,
        headers,
        sent: params.clone(),
        params,
        body,
        accounting,
        url_note: None,
    })
}

/// The LLM context object the agent loop builds (CORE/agent-loop.js:184–188):
/// `{systemPrompt, messages, tools}`, with each tool as its AgentTool JSON (functions dropped,
/// `label` kept).
/// The context object holds the system prompt itself (`systemPrompt`), so it is marked as a
/// system text; its messages and tools carry their own marks.
fn llm_context_json(ctx: &LlmContext) -> Value {
    Object::new()
        .with("systemPrompt", ctx.system_prompt())
        .with("messages", Value::Array(ctx.messages.clone()))
        .with(
            "tools",
            Value::Array(
                ctx.tools()
                    .iter()
                    .map(|t| tool_json(t.agent_tool_json()))
                    .collect(),
            ),
        )
        .marked(Tag::System.mark())
        .into()
}

/// A tool as the context holds it, marked: its definition and its `parameters`.
fn tool_json(mut tool: Value) -> Value {
    if let Some(o) = tool.as_object_mut() {
        if let Some(p) = o.get_mut("parameters") {
            body::mark(p, Tag::Schema);
        }
        o.set_mark(Tag::Tool.mark());
    }
    tool
}

/// The transcript context (0.86 on): `normalizeContext({messages})` (CORE/agent-loop.js:273,
/// AI/utils/transcript.js:23–27) gives `{messages}` and nothing else, the messages being
/// `convertToLlm`'s output, system messages included as the same objects.
fn transcript_context_json(ctx: &LlmContext) -> Value {
    Object::new()
        .with("messages", Value::Array(ctx.messages.clone()))
        .into()
}

/// `resolveCacheRetention(cacheRetention, env)` (:234–240): the option (never set by the coding
/// agent), else `"long"` when `PI_CACHE_RETENTION` is "long", else undefined (the backend's
/// default applies).
fn resolve_cache_retention(opts: &StreamOptions) -> Option<&'static str> {
    (opts.env.get("PI_CACHE_RETENTION").map(String::as_str) == Some("long")).then_some("long")
}

/// `new URL(`${model.baseUrl.replace(/\/+$/u, "")}/messages`)` (:131). `new URL` throws on a
/// string without a scheme.
fn messages_url(base_url: &str) -> Result<String, AdapterError> {
    let url = format!("{}/messages", base_url.trim_end_matches('/'));
    let valid_scheme = url.split_once(':').is_some_and(|(scheme, _)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    if !valid_scheme {
        return Err(err(format!("Invalid URL: {url}")));
    }
    Ok(url)
}

/// The `fetch` headers (:153–158): `{authorization, accept, "content-type",
/// ...providerHeadersToRecord(options.headers)}` — the configured headers (models.json, merged
/// into `options.headers` by the coding agent's `prepareRequest`) with `null` values left out.
/// `model.headers` is not applied by this adapter. Spread keys replace same-named ones in place;
/// `fetch` then joins names that differ only in case, and adds `user-agent: undici` when none was
/// given (no pi User-Agent here; captured). The key is shown as `<redacted>`.
fn request_headers(opts: &StreamOptions) -> Vec<(String, String)> {
    let mut record = Object::new()
        .with("authorization", "<redacted>")
        .with("accept", "text/event-stream")
        .with("content-type", "application/json");
    for (k, v) in &opts.headers {
        record.insert(k.clone(), Value::str(v));
    }
    let mut headers: Vec<(String, String)> = Vec::new();
    for (name, value) in record.iter() {
        let name = name.to_ascii_lowercase();
        let value = value.as_str().unwrap_or_default().to_string();
        match headers.iter_mut().find(|(k, _)| *k == name) {
            Some(slot) => slot.1 = format!("{}, {value}", slot.1),
            None => headers.push((name, value)),
        }
    }
    for (name, value) in headers.iter_mut() {
        if ["auth", "api-key", "cookie"]
            .iter()
            .any(|s| name.contains(s))
        {
            *value = "<redacted>".into();
        }
    }
    if !headers.iter().any(|(k, _)| k == "user-agent") {
        headers.push(("user-agent".into(), "undici".into()));
    }
    headers
}

/// The `fetch` headers from 1.4.0 (1.6.0/AI/api/pi-messages.js:288–292):
/// `providerHeadersToRecord(getIdentityHeaders(model, identity), {authorization, accept,
/// "content-type"}, options.headers)` (AI/utils/headers.js:8–19) — one Map by lower-case name
/// over the three sources in order, each entry deleted and set again (a later source's header
/// replaces an earlier one of any case and moves to the end, with its own spelling). `fetch`
/// lower-cases the names; pi's `User-Agent` is given, so undici adds none. The key is shown as
/// `<redacted>`.
fn merged_request_headers(opts: &StreamOptions, events: &mut Events) -> Vec<(String, String)> {
    let own = [
        ("authorization", "<redacted>"),
        ("accept", "text/event-stream"),
        ("content-type", "application/json"),
    ];
    let mut merged: Vec<(String, String)> = Vec::new();
    let set = |name: &str, value: &str, merged: &mut Vec<(String, String)>| {
        let lower = name.to_ascii_lowercase();
        let replaced = merged.iter().any(|(k, _)| *k == lower);
        merged.retain(|(k, _)| *k != lower);
        merged.push((lower, value.to_string()));
        replaced
    };
    for (name, value) in &opts.identity_headers {
        set(name, value, &mut merged);
    }
    for (name, value) in own {
        set(name, value, &mut merged);
    }
    for (name, value) in &opts.headers {
        if set(name, value, &mut merged) {
            events.push(
                Event::new(
                    EventKind::Replaced,
                    format!(
                        "configured header {name} replaces pi's {} and moves to the end",
                        name.to_ascii_lowercase()
                    ),
                )
                .at("1.6.0/AI/utils/headers.js:13"),
            );
        }
    }
    for (name, value) in merged.iter_mut() {
        if ["auth", "api-key", "cookie"]
            .iter()
            .any(|s| name.contains(s))
        {
            *value = "<redacted>".into();
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_join_names_differing_in_case_and_add_the_runtime_user_agent() {
        let opts = StreamOptions {
            headers: vec![
                ("Accept".into(), "application/x-ndjson".into()),
                ("X-Team".into(), "ctx".into()),
            ],
            ..Default::default()
        };
        let got = request_headers(&opts);
        let want: Vec<(String, String)> = [
            ("authorization", "<redacted>"),
            ("accept", "text/event-stream, application/x-ndjson"),
            ("content-type", "application/json"),
            ("x-team", "ctx"),
            ("user-agent", "undici"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn merged_headers_replace_by_lower_case_name_and_move_to_the_end() {
        let opts = StreamOptions {
            identity_headers: vec![
                ("User-Agent".into(), "pi/1.6.0".into()),
                ("HTTP-Referer".into(), "https://pi.dev".into()),
            ],
            headers: vec![
                ("Accept".into(), "application/x-ndjson".into()),
                ("X-Team".into(), "ctx".into()),
                ("user-agent".into(), "lab/1".into()),
            ],
            ..Default::default()
        };
        let got = merged_request_headers(&opts, &mut Events::default());
        let want: Vec<(String, String)> = [
            ("http-referer", "https://pi.dev"),
            ("authorization", "<redacted>"),
            ("content-type", "application/json"),
            ("accept", "application/x-ndjson"),
            ("x-team", "ctx"),
            ("user-agent", "lab/1"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn the_transcript_goes_out_as_it_is() {
        let pi16 = Pi::new(crate::PiVersion::V1_6_0).unwrap();
        let model = Model {
            obj: Object::new()
                .with("id", "m")
                .with("api", "pi-messages")
                .with("provider", "gw")
                .with("baseUrl", "http://gw/v1"),
        };
        let messages = crate::js::parse(
            r#"[{"role":"system","content":"S","toolsAdded":[{"name":"read","description":"d","parameters":{},"constrainedSampling":{"type":"json_schema","strict":"prefer"}}],"timestamp":1},{"role":"user","content":"hi","timestamp":2}]"#,
        )
        .unwrap();
        let ctx = LlmContext::transcript(messages.as_array().unwrap().clone());
        let opts = StreamOptions {
            api_key: "k".into(),
            reasoning: Some("low".into()),
            session_id: Some("s".into()),
            identity_headers: vec![("User-Agent".into(), "pi/1.6.0".into())],
            ..Default::default()
        };
        let req = build(&pi16, &model, &ctx, &opts, &mut Events::default()).unwrap();
        assert_eq!(
            req.body,
            format!(
                r#"{{"model":"m","context":{{"messages":{}}},"options":{{"reasoning":"low","sessionId":"s"}}}}"#,
                messages.to_json()
            )
        );
        assert_eq!(req.headers[0], ("user-agent".into(), "pi/1.6.0".into()));
        assert!(!req.headers.iter().any(|(_, v)| v == "undici"));
    }

    #[test]
    fn url_trims_trailing_slashes() {
        assert_eq!(
            messages_url("http://127.0.0.1:9/v1//").unwrap(),
            "http://127.0.0.1:9/v1/messages"
        );
        assert!(messages_url("").is_err());
    }
}

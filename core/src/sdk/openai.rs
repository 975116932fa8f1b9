//! The `openai` npm package, as pi's OpenAI adapters (openai-completions, openai-responses,
//! azure-openai-responses) use it: the client's headers. `new OpenAI({defaultHeaders})` merges
//! `OPENAI_CUSTOM_HEADERS` into its default headers (openai/client.js:162–171), and every request
//! is `buildHeaders([{Accept, User-Agent}, authHeaders, defaultHeaders, {content-type}])`
//! (openai/client.js:605–630, internal/headers.js), held in a fetch `Headers` list.

use std::collections::BTreeMap;

use crate::js::headers::header_value;
use crate::js::{self, Object, Value};
use crate::pi::Pi;
use crate::trace::{Event, EventKind, Events};

/// One object of a `buildHeaders([...])` list: each key first deletes the header of that name
/// (case-insensitively), then appends its value(s); `null` only deletes. Names are held
/// lower-case, as `Headers` holds them; a repeated append joins with ", ".
pub fn apply(target: &mut Vec<(String, String)>, set: &[(String, Value)]) {
    for (name, value) in set {
        let values: Vec<String> = match value {
            Value::Null => Vec::new(),
            Value::Array(items) => items.iter().map(header_value).collect(),
            v => vec![header_value(v)],
        };
        super::set_header(
            target,
            name,
            (!values.is_empty()).then(|| values.join(", ")),
        );
    }
}

/// `readEnv("OPENAI_CUSTOM_HEADERS")` (trimmed; empty is unset) parsed as the constructor does:
/// one `Name: value` per line, both sides trimmed, lines without a colon skipped.
fn custom_headers(env: &BTreeMap<String, String>) -> Option<Vec<(String, Value)>> {
    let raw = js::js_trim(env.get("OPENAI_CUSTOM_HEADERS")?);
    if raw.is_empty() {
        return None;
    }
    let mut parsed = Object::new();
    for line in raw.split('\n') {
        if let Some((name, value)) = line.split_once(':') {
            parsed.insert(js::js_trim(name), Value::str(js::js_trim(value)));
        }
    }
    Some(
        parsed
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
}

/// The client's default headers. With `OPENAI_CUSTOM_HEADERS` set they become
/// `buildHeaders([custom, defaultHeaders])`: a `Headers` object, which later iterates **sorted
/// by lower-cased name**, followed by its removed names (`null`).
fn client_default_headers(
    default_headers: &Object,
    env: &BTreeMap<String, String>,
    events: &mut Events,
) -> Vec<(String, Value)> {
    let defaults: Vec<(String, Value)> = default_headers
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    let Some(custom) = custom_headers(env) else {
        return defaults;
    };
    events.push(
        Event::new(
            EventKind::Inserted,
            "OPENAI_CUSTOM_HEADERS added by the SDK (default headers then go out sorted by name)",
        )
        .at("openai/client.js:162"),
    );
    let mut merged: Vec<(String, String)> = Vec::new();
    let mut nulls: Vec<String> = Vec::new();
    for (name, value) in custom.iter().chain(&defaults) {
        let lower = name.to_ascii_lowercase();
        if value.is_null() {
            merged.retain(|(k, _)| *k != lower);
            if !nulls.contains(&lower) {
                nulls.push(lower);
            }
        } else {
            apply(
                &mut merged,
                std::slice::from_ref(&(name.clone(), value.clone())),
            );
            nulls.retain(|n| *n != lower);
        }
    }
    merged.sort_by(|a, b| a.0.cmp(&b.0));
    merged
        .into_iter()
        .map(|(k, v)| (k, Value::String(v.into())))
        .chain(nulls.into_iter().map(|n| (n, Value::Null)))
        .collect()
}

/// The headers the SDK sends with a `POST` of a JSON body: `Accept`, its own `User-Agent`, the
/// auth header (`auth_header`: `Authorization: Bearer …`, or Azure's `api-key`), the client's
/// default headers (pi's, with `OPENAI_CUSTOM_HEADERS`), then `content-type`. Runtime headers
/// (`x-stainless-*`, undici's) are left out; the credential is shown as `<redacted>`, also where
/// a configured header replaces the SDK's.
pub fn request_headers(
    pi: &Pi,
    auth_header: &str,
    default_headers: &Object,
    env: &BTreeMap<String, String>,
    events: &mut Events,
) -> Vec<(String, String)> {
    let auth = auth_header.to_ascii_lowercase();
    let sdk_auth = if auth == "authorization" {
        "Bearer <redacted>"
    } else {
        "<redacted>"
    };
    let defaults = client_default_headers(default_headers, env, events);
    let mut headers = Vec::new();
    apply(
        &mut headers,
        &[
            ("Accept".into(), Value::str("application/json")),
            (
                "User-Agent".into(),
                Value::str(format!("OpenAI/JS {}", pi.data.sdk_version("openai"))),
            ),
        ],
    );
    apply(&mut headers, &[(auth_header.into(), Value::str(sdk_auth))]);
    apply(&mut headers, &defaults);
    apply(
        &mut headers,
        &[("content-type".into(), Value::str("application/json"))],
    );
    for (name, value) in headers.iter_mut() {
        if *name == auth && value != sdk_auth {
            *value = "<redacted>".into();
        }
    }
    headers
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testcase::pi;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn custom_headers_sort_the_defaults_and_values_are_trimmed() {
        let defaults = Object::new()
            .with("User-Agent", "pi")
            .with("zeta", " z ")
            .with("Alpha", "a")
            .with("gone", Value::Null);
        let mut ev = Events::default();
        let plain = request_headers(&pi(), "Authorization", &defaults, &env(&[]), &mut ev);
        let names: Vec<&str> = plain.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            names,
            [
                "accept",
                "authorization",
                "user-agent",
                "zeta",
                "alpha",
                "content-type"
            ]
        );
        assert_eq!(plain[3].1, "z");
        assert!(ev.is_empty());
        let custom = request_headers(
            &pi(),
            "api-key",
            &defaults,
            &env(&[("OPENAI_CUSTOM_HEADERS", " X-Env: yes \nbad line\nB:2 ")]),
            &mut ev,
        );
        let names: Vec<&str> = custom.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            names,
            [
                "accept",
                "api-key",
                "alpha",
                "b",
                "user-agent",
                "x-env",
                "zeta",
                "content-type"
            ]
        );
        assert_eq!(custom[1].1, "<redacted>");
        assert_eq!(custom[4].1, "pi");
        assert_eq!(ev.len(), 1);
    }
}

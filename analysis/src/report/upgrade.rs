//! The JSON of [`crate::analysis::upgrade`].

use super::opt_str;
use crate::analysis::upgrade::*;
use crate::js::{Object, Value};

/// The upgrade comparison (camelCase): `{from, to, identical, firstChange, notBuilt, url,
/// headers, blocks, rules}`.
pub fn to_json(u: &Upgrade) -> Value {
    let first = first_change_json(u.first_change.as_ref());
    let blocks = blocks_json(&u.blocks);
    let rules: Vec<Value> = u
        .rules
        .iter()
        .map(|r| {
            Object::new()
                .with("rule", r.name.as_str())
                .with("from", r.a.as_str())
                .with("to", r.b.as_str())
                .with("appliesToThisProtocol", r.applies)
                .with("doc", opt_str(r.doc))
                .with(
                    "changelog",
                    Value::Array(
                        r.changelog
                            .iter()
                            .map(|(v, t)| {
                                Object::new()
                                    .with("pi", v.as_str())
                                    .with("text", t.as_str())
                                    .into()
                            })
                            .collect(),
                    ),
                )
                .into()
        })
        .collect();
    let headers = headers_json(&u.headers);
    Object::new()
        .with("from", u.a_version.as_str())
        .with("to", u.b_version.as_str())
        .with("identical", u.identical)
        .with("firstChange", first)
        .with(
            "notBuilt",
            Value::Array(
                u.not_built
                    .iter()
                    .map(|(v, why)| {
                        Object::new()
                            .with("pi", v.as_str())
                            .with("why", why.as_str())
                            .into()
                    })
                    .collect(),
            ),
        )
        .with(
            "url",
            match &u.url {
                Some((a, b)) => Object::new()
                    .with("from", a.as_str())
                    .with("to", b.as_str())
                    .into(),
                None => Value::Null,
            },
        )
        .with("headers", headers)
        .with("blocks", blocks)
        .with("rules", Value::Array(rules))
        .with(
            "changelog",
            match &u.changelog {
                Some(list) => Value::Array(
                    list.iter()
                        .map(|r| {
                            Object::new()
                                .with("pi", r.version.as_str())
                                .with("date", opt_str(r.date.as_deref()))
                                .with(
                                    "sections",
                                    Value::Array(
                                        r.sections
                                            .iter()
                                            .map(|(t, items)| {
                                                Object::new()
                                                    .with("title", t.as_str())
                                                    .with(
                                                        "items",
                                                        Value::Array(
                                                            items
                                                                .iter()
                                                                .map(|i| Value::str(i.as_str()))
                                                                .collect(),
                                                        ),
                                                    )
                                                    .into()
                                            })
                                            .collect(),
                                    ),
                                )
                                .into()
                        })
                        .collect(),
                ),
                None => Value::Null,
            },
        )
        .into()
}

/// `firstChange`: `{byte, utf16, cachedPrefixBytes, path, from, to, block}` or null.
pub fn first_change_json(f: Option<&FirstChange>) -> Value {
    match f {
        Some(f) => Object::new()
            .with("byte", f.byte)
            .with("utf16", f.utf16)
            .with("cachedPrefixBytes", f.byte)
            .with("path", opt_str(f.path.as_deref()))
            .with("from", opt_str(f.a_value.as_deref()))
            .with("to", opt_str(f.b_value.as_deref()))
            .with("block", opt_str(f.block.as_deref()))
            .into(),
        None => Value::Null,
    }
}

/// `blocks`: each `{name, fromChars, toChars, charsDelta, fromTokens, toTokens, tokensDelta}`.
pub fn blocks_json(blocks: &[BlockDelta]) -> Value {
    let num = |n: Option<usize>| n.map_or(Value::Null, Value::from);
    Value::Array(
        blocks
            .iter()
            .map(|b| {
                let delta = |x: Option<usize>, y: Option<usize>| match (x, y) {
                    (Some(x), Some(y)) => Value::from(y as f64 - x as f64),
                    _ => Value::Null,
                };
                Object::new()
                    .with("name", b.name.as_str())
                    .with("fromChars", b.a_chars)
                    .with("toChars", b.b_chars)
                    .with("charsDelta", b.b_chars as f64 - b.a_chars as f64)
                    .with("fromTokens", num(b.a_tokens))
                    .with("toTokens", num(b.b_tokens))
                    .with("tokensDelta", delta(b.a_tokens, b.b_tokens))
                    .into()
            })
            .collect(),
    )
}

/// `headers`: each `{name, from, to}`.
pub fn headers_json(headers: &[(String, Option<String>, Option<String>)]) -> Value {
    Value::Array(
        headers
            .iter()
            .map(|(k, a, b)| {
                Object::new()
                    .with("name", k.as_str())
                    .with("from", opt_str(a.as_deref()))
                    .with("to", opt_str(b.as_deref()))
                    .into()
            })
            .collect(),
    )
}

/// `url`: `{from, to}` or null.
pub fn url_json(url: Option<&(String, String)>) -> Value {
    match url {
        Some((a, b)) => Object::new()
            .with("from", a.as_str())
            .with("to", b.as_str())
            .into(),
        None => Value::Null,
    }
}

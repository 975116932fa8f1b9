//! The JSON of [`crate::provenance`].

use crate::js::{Object, Value};
use crate::provenance::*;

fn message_json(m: &MessageRef) -> Object {
    let mut o = Object::new()
        .with("index", m.index)
        .with("role", m.role.as_str())
        .with("part", m.part);
    match &m.origin {
        MessageOrigin::Session {
            entry_id,
            line,
            entry_type,
        } => {
            o.insert(
                "entryId",
                entry_id.as_deref().map(Value::from).unwrap_or(Value::Null),
            );
            o.insert("line", Value::from(*line));
            o.insert("entryType", Value::str(entry_type));
            o.insert("thisTurn", Value::Bool(false));
        }
        MessageOrigin::ThisTurn => {
            o.insert("entryId", Value::Null);
            o.insert("line", Value::Null);
            o.insert("entryType", Value::Null);
            o.insert("thisTurn", Value::Bool(true));
        }
    }
    o
}

/// A source as JSON: `{kind, ...}` (see the module docs of `report`).
pub fn source_json(s: &Source) -> Value {
    let o = Object::new().with("kind", s.kind());
    match s {
        Source::SystemPrompt { sections } => o.with(
            "sections",
            Value::Array(
                sections
                    .iter()
                    .map(|x| {
                        let mut o = Object::new()
                            .with("index", x.index)
                            .with("name", x.name.as_str())
                            .with("source", x.source.as_str())
                            .with("start", x.start)
                            .with("end", x.end);
                        o.insert_opt("stored", x.stored.as_ref().map(super::stored_json));
                        o.into()
                    })
                    .collect(),
            ),
        ),
        Source::Tool {
            name,
            builtin,
            part,
        } => o
            .with("name", name.as_str())
            .with("builtin", *builtin)
            .with("part", *part),
        Source::Message(m) => {
            let mut o = o;
            for (k, v) in message_json(m).iter() {
                o.insert(k.clone(), v.clone());
            }
            o
        }
        Source::Messages(ms) => o.with(
            "messages",
            Value::Array(ms.iter().map(|m| Value::Object(message_json(m))).collect()),
        ),
        Source::Inserted { key, text } => o.with("key", key.as_str()).with("text", text.as_str()),
        Source::Parameter {
            name,
            rule,
            pi_source,
        } => o
            .with("name", name.as_str())
            .with("rule", rule.as_str())
            .with(
                "piSource",
                pi_source.as_deref().map(Value::from).unwrap_or(Value::Null),
            ),
    }
    .into()
}

/// One origin as JSON: `{path, matched, chars, source}`.
pub fn origin_json(o: &Origin) -> Value {
    Object::new()
        .with("path", o.path.as_str())
        .with("matched", o.matched.as_str())
        .with("chars", o.chars)
        .with("source", source_json(&o.source))
        .into()
}

/// The origins as JSON: `[{path, matched, chars, source}]`, in body order.
pub fn to_json(origins: &[Origin]) -> Value {
    Value::Array(origins.iter().map(origin_json).collect())
}

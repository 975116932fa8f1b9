//! The JSON of [`crate::analysis::compare`].

use crate::analysis::compare::*;
use crate::js::{Object, Value};

fn placement_json(p: &Placement) -> Value {
    Object::new()
        .with(
            "paths",
            Value::Array(p.paths.iter().map(Value::str).collect()),
        )
        .with("leaves", p.leaves)
        .with("chars", p.chars)
        .with(
            "value",
            p.value.as_deref().map(Value::from).unwrap_or(Value::Null),
        )
        .into()
}

fn events_json(gs: &[EventGroup]) -> Value {
    Value::Array(
        gs.iter()
            .map(|g| {
                Object::new()
                    .with("kind", g.kind.as_str())
                    .with(
                        "piSource",
                        g.pi_source.map(Value::from).unwrap_or(Value::Null),
                    )
                    .with("count", g.count)
                    .with("example", g.example.as_str())
                    .into()
            })
            .collect(),
    )
}

fn side_json(s: &SideInfo) -> Value {
    Object::new()
        .with("api", s.api.as_str())
        .with("model", s.model.as_str())
        .with("bodyBytes", s.body_bytes)
        .with("bodyChars", s.body_chars)
        .into()
}

/// The comparison as JSON (camelCase).
pub fn to_json(c: &Comparison) -> Value {
    let rows: Vec<Value> = c
        .rows
        .iter()
        .map(|r| {
            Object::new()
                .with("kind", r.kind)
                .with("title", r.title)
                .with("a", placement_json(&r.a))
                .with("b", placement_json(&r.b))
                .into()
        })
        .collect();
    let losses: Vec<Value> = c
        .losses
        .iter()
        .map(|l| {
            Object::new()
                .with("side", l.side.as_str())
                .with("kind", l.kind)
                .with("what", l.what)
                .with("count", l.count)
                .with("detail", l.detail.as_str())
                .into()
        })
        .collect();
    Object::new()
        .with("a", side_json(&c.a))
        .with("b", side_json(&c.b))
        .with("mapping", Value::Array(rows))
        .with("losses", Value::Array(losses))
        .with(
            "events",
            Object::new()
                .with("a", events_json(&c.a_events))
                .with("b", events_json(&c.b_events)),
        )
        .into()
}

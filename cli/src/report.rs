//! JSON renderings of an assembly for the CLI (`trace --json`, `diagnostics`).

use ctxlens::js::{Object, Value};
use ctxlens::Assembly;

/// The stage-by-stage trace as JSON.
pub fn trace_json(a: &Assembly) -> Value {
    let stages: Vec<Value> = a
        .trace
        .stages
        .iter()
        .map(|s| {
            let events: Vec<Value> = s
                .events
                .iter()
                .map(|e| {
                    let mut o = Object::new().with("kind", e.kind.as_str()).with("message", e.message.as_str());
                    o.insert_opt("piSource", e.pi_source.map(Value::from));
                    o.into()
                })
                .collect();
            let counts: Object = s.counts.iter().map(|(k, v)| (k.clone(), Value::Number(*v))).collect();
            Object::new()
                .with("id", s.id.key())
                .with("title", s.id.title())
                .with("piSource", s.pi_source)
                .with("summary", s.summary.as_str())
                .with("counts", counts)
                .with("events", Value::Array(events))
                .into()
        })
        .collect();
    let mut o = Object::new().with("stages", Value::Array(stages)).with("diagnostics", diagnostics_json(a));
    if let Some(r) = &a.request {
        let headers: Vec<Value> = r.headers.iter().map(|(k, v)| Value::Array(vec![Value::str(k), Value::str(v)])).collect();
        o.insert("request", Object::new().with("method", r.method).with("url", r.url.as_str()).with("headers", Value::Array(headers)).into());
    }
    o.into()
}

/// The diagnostics as JSON.
pub fn diagnostics_json(a: &Assembly) -> Value {
    Value::Array(
        a.diagnostics
            .iter()
            .map(|d| {
                let mut o = Object::new().with("severity", d.severity.as_str()).with("file", d.file.as_str());
                o.insert_opt("line", d.line.map(Value::from));
                o.insert("message", Value::str(&d.message));
                o.insert_opt("skipped", d.skipped.clone().map(Value::String));
                o.into()
            })
            .collect(),
    )
}

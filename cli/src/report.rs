//! JSON renderings of an assembly for the CLI: the core's report shapes, plus the request line.

use ctxlens::js::Value;
use ctxlens::Assembly;

/// The stage-by-stage trace, the request line and the diagnostics.
pub fn trace_json(a: &Assembly) -> Value {
    let mut o = ctxlens::js::Object::new()
        .with(
            "stages",
            ctxlens::report::trace_json(a.pi.as_ref(), &a.trace),
        )
        .with("diagnostics", ctxlens::report::diagnostics_json(a));
    if let Some(Value::Object(mut r)) = Some(ctxlens::report::request_json(a)) {
        r.remove("body");
        o.insert("request", Value::Object(r));
    }
    o.into()
}

/// The diagnostics as JSON.
pub fn diagnostics_json(a: &Assembly) -> Value {
    ctxlens::report::diagnostics_json(a)
}

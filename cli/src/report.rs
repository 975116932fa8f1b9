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

/// The numbered findings, as text or JSON.
pub fn findings(a: &Assembly, json: bool) -> String {
    let list = ctxlens::analysis::findings::findings(a);
    if json {
        return format!(
            "{}\n",
            ctxlens::report::findings::to_json(&list).to_json_pretty(2)
        );
    }
    let mut s = String::new();
    for f in &list {
        s.push_str(&format!(
            "{:2}. [{}] {} ({})\n    {}\n",
            f.number,
            f.severity.as_str(),
            f.title,
            f.id,
            f.detail
        ));
        if let Some(st) = f.stage {
            s.push_str(&format!("    stage: {}", st.key()));
            if let Some(sub) = &f.subject {
                s.push_str(&format!(", subject: {sub}"));
            }
            s.push('\n');
        }
    }
    s
}

/// The stages as text: the release and the legend of source locations, then each stage.
pub fn trace_text(a: &Assembly) -> String {
    let pi = a.pi.as_ref();
    let mut s = String::new();
    if let Some(pi) = pi {
        let why = a
            .choice
            .as_ref()
            .map_or_else(|| format!("pi {}", pi.version), |c| c.explain());
        s.push_str(&format!("{why}; source locations: "));
        let prefixes = ctxlens::report::source_prefixes_json(Some(pi));
        let legend: Vec<String> = prefixes
            .as_object()
            .map(|o| {
                o.iter()
                    .map(|(k, v)| format!("{k}/ = {}/", v.as_str().unwrap_or("")))
                    .collect()
            })
            .unwrap_or_default();
        s.push_str(&legend.join(", "));
        s.push('\n');
    }
    for (i, st) in a.trace.stages.iter().enumerate() {
        s.push_str(&format!(
            "{:2}. {} (pi's {}, {})\n    {}\n",
            i + 1,
            st.id.title(),
            st.id.pi_function(),
            ctxlens::report::pi_source(pi, st.pi_source),
            st.summary
        ));
        for e in &st.events {
            s.push_str(&format!(
                "    - {}: {}{}\n",
                e.kind.as_str(),
                e.message,
                e.pi_source
                    .map(|p| format!(" ({})", ctxlens::report::pi_source(pi, p)))
                    .unwrap_or_default()
            ));
        }
    }
    s
}

/// What pi read, and what it ignored and why ([`ctxlens::analysis::placement`]), then the files
/// the host skipped (too large, unreadable).
pub fn files(inputs: &ctxlens::Inputs, a: &Assembly, json: bool) -> String {
    use ctxlens::analysis::placement::{placement, Verdict};
    let p = placement(inputs, a);
    let skipped: Vec<&ctxlens::Diagnostic> = inputs
        .host_diagnostics
        .iter()
        .filter(|d| d.skipped.is_some() && d.file.starts_with('/'))
        .collect();
    if json {
        let mut v = ctxlens::report::placement::to_json(&p);
        if let Value::Object(o) = &mut v {
            o.insert(
                "skipped",
                Value::Array(
                    skipped
                        .iter()
                        .map(|d| {
                            ctxlens::js::Object::new()
                                .with("path", d.file.as_str())
                                .with("why", d.message.as_str())
                                .into()
                        })
                        .collect(),
                ),
            );
        }
        return format!("{}\n", v.to_json_pretty(2));
    }
    let mut s = String::new();
    for f in &p.files {
        let line = match &f.verdict {
            Verdict::Read { what } => format!("read      {}\n          {what}\n", f.path),
            Verdict::Shadowed { by, why } => {
                format!("shadowed  {}\n          by {by}: {why}\n", f.path)
            }
            Verdict::Unused { why } => format!("unused    {}\n          {why}\n", f.path),
        };
        s.push_str(&line);
    }
    for d in skipped {
        s.push_str(&format!("skipped   {}\n          {}\n", d.file, d.message));
    }
    if let Some(p) = &p.placeholder_key {
        s.push_str(&format!(
            "\nno key for provider {p}: a placeholder stands in (a key never changes the body)\n"
        ));
    }
    s
}

/// The default command: the human summary (`ctxlens::report::summary`, shared with the npm
/// package's bin), or with `--json` the whole report for machines.
pub fn summary(a: &Assembly, json: bool) -> String {
    if json {
        return format!("{}\n", ctxlens::report::assembly_json(a).to_json_pretty(2));
    }
    ctxlens::report::summary::text(a)
}

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
            "{:2}. {} [{}]\n    {}\n",
            i + 1,
            st.id.title(),
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

/// Per pi package: what it brings to the request and what that costs — each skill's entry in
/// the system prompt (its chars and, when counted, tokens, from `stats`' sections), each prompt
/// template (with the chars of the prompt it expanded, when this prompt called it), its
/// extensions (code ctxlens does not run) — or, for a package pi does not load, its settings
/// line. `stats` is `stats`' JSON (its `systemPrompt.sections`).
pub fn packages_json(inputs: &ctxlens::Inputs, a: &Assembly, stats: &Value) -> Value {
    let res = &a.parts.resources;
    let sections: Vec<&Value> = stats
        .get("systemPrompt")
        .and_then(|s| s.get("sections"))
        .and_then(Value::as_array)
        .map(|v| v.iter().collect())
        .unwrap_or_default();
    let cost = |file: &str, key: &str| -> Option<f64> {
        let hits: Vec<f64> = sections
            .iter()
            .filter(|s| s.get_str("source") == Some(file))
            .filter_map(|s| s.get(key).and_then(Value::as_f64))
            .collect();
        (!hits.is_empty()).then(|| hits.iter().sum())
    };
    let expanded = match (&a.pi, &inputs.prompt) {
        (Some(pi), Some(p)) => {
            let (text, t) =
                ctxlens::prompt_templates::expand_prompt_template(pi, p, &res.prompt_templates);
            t.map(|t| (t.file_path.clone(), ctxlens::js::utf16_len(&text)))
        }
        _ => None,
    };
    let list = res.packages.iter().map(|pkg| {
        let mine = |p: &Option<String>| p.as_deref() == Some(pkg.source.as_str());
        let (mut chars, mut tokens) = (0.0, None::<f64>);
        let skills: Vec<Value> = res
            .skills
            .iter()
            .filter(|s| mine(&s.package))
            .map(|s| {
                let c = cost(&s.file_path, "chars").unwrap_or(0.0);
                let t = cost(&s.file_path, "tokens");
                chars += c;
                if let Some(t) = t {
                    *tokens.get_or_insert(0.0) += t;
                }
                ctxlens::js::Object::new()
                    .with("name", s.name.as_str())
                    .with("file", s.file_path.as_str())
                    .with("chars", c)
                    .with("tokens", t.map_or(Value::Null, Value::from))
                    .into()
            })
            .collect();
        let templates: Vec<Value> = res
            .prompt_templates
            .iter()
            .filter(|t| mine(&t.package))
            .map(|t| {
                let used = expanded
                    .as_ref()
                    .filter(|(f, _)| *f == t.file_path)
                    .map(|(_, n)| *n as f64);
                chars += used.unwrap_or(0.0);
                ctxlens::js::Object::new()
                    .with("name", t.name.as_str())
                    .with("file", t.file_path.as_str())
                    .with("usedChars", used.map_or(Value::Null, Value::from))
                    .into()
            })
            .collect();
        ctxlens::js::Object::new()
            .with("source", pkg.source.as_str())
            .with("scope", pkg.scope.as_str())
            .with("settingsFile", pkg.settings_file.as_str())
            .with(
                "line",
                pkg.line.map_or(Value::Null, |l| Value::from(l as f64)),
            )
            .with(
                "installed",
                pkg.root.as_deref().map_or(Value::Null, Value::str),
            )
            .with("skills", Value::Array(skills))
            .with("promptTemplates", Value::Array(templates))
            .with(
                "extensions",
                Value::Array(
                    pkg.extensions
                        .iter()
                        .map(|e| Value::str(e.as_str()))
                        .collect(),
                ),
            )
            .with("chars", chars)
            .with("tokens", tokens.map_or(Value::Null, Value::from))
            .into()
    });
    Value::Array(list.collect())
}

/// [`packages_json`] as the summary's lines (none without packages).
pub fn packages_text(packages: &Value) -> String {
    let list = packages.as_array().cloned().unwrap_or_default();
    if list.is_empty() {
        return String::new();
    }
    let mut s = String::from("\npi packages (what each brings to this request):\n");
    for p in &list {
        let source = p.get_str("source").unwrap_or("");
        let file = p.get_str("settingsFile").unwrap_or("");
        let line = p.get("line").and_then(Value::as_f64);
        let at = line.map_or(file.to_string(), |l| format!("{file}:{l}"));
        if p.get("installed").is_none_or(|v| *v == Value::Null) {
            s.push_str(&format!("  {source}  not loaded ({at})\n"));
            continue;
        }
        let n = |k: &str| p.get(k).and_then(Value::as_array).map_or(0, Vec::len);
        let tokens = p
            .get("tokens")
            .and_then(Value::as_f64)
            .map(|t| format!(", {t} tokens"))
            .unwrap_or_default();
        s.push_str(&format!(
            "  {source}  {} skill(s), {} prompt template(s), {} extension(s): {} chars{tokens} ({at})\n",
            n("skills"),
            n("promptTemplates"),
            n("extensions"),
            p.get("chars").and_then(Value::as_f64).unwrap_or(0.0)
        ));
    }
    s
}

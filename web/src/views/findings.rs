//! Findings: the seed's conclusions as numbered checks on the user's own data, each linking to
//! its subject. From the report's `findings` when the core provides them; otherwise a few checks
//! computed here from the stats.

use ctxlens::js::Value;
use yew::prelude::*;

use super::components::{pct, thousands};
use super::util::{arr, at, num, s};
use super::ViewProps;

#[derive(Clone, PartialEq, Debug)]
pub struct Finding {
    pub id: String,
    pub severity: String,
    pub title: String,
    pub detail: String,
    pub stage: Option<String>,
    pub subject: Option<String>,
}

fn from_report(r: &Value) -> Option<Vec<Finding>> {
    let a = r.get("findings")?.as_array()?;
    Some(
        a.iter()
            .map(|f| Finding {
                id: s(f, "id").into(),
                severity: f.get_str("severity").unwrap_or("info").into(),
                title: s(f, "title").into(),
                detail: f
                    .get_str("detail")
                    .or_else(|| f.get_str("message"))
                    .unwrap_or("")
                    .into(),
                stage: f.get_str("stage").map(str::to_string),
                subject: f.get_str("subject").map(str::to_string),
            })
            .collect(),
    )
}

/// The page's own checks, used while the core provides no `findings`.
pub fn local_findings(r: &Value) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut push = |id: &str,
                    sev: &str,
                    title: String,
                    detail: String,
                    stage: Option<&str>,
                    subject: Option<String>| {
        out.push(Finding {
            id: id.into(),
            severity: sev.into(),
            title,
            detail,
            stage: stage.map(str::to_string),
            subject,
        })
    };
    let Some(st) = r.get("stats").filter(|v| !v.is_null()) else {
        return out;
    };
    let sp = at(st, &["systemPrompt", "chars"])
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    let tl = at(st, &["tools", "chars"])
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    let hi = at(st, &["history", "chars"])
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    let body = at(st, &["body", "chars"])
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    if tl > 0.0 {
        push("tool-schemas", if tl > sp { "notice" } else { "info" }, format!("Tool definitions are {} chars, {} of the system prompt's size", thousands(tl), pct(tl, sp)),
            format!("The system prompt is {} chars; the tools' descriptions and JSON schemas add {} more before any conversation.", thousands(sp), thousands(tl)), Some("agent-context"), None);
    }
    let tools = at(st, &["tools", "byTool"])
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if let Some(big) = tools.iter().max_by(|a, b| {
        num(a, "chars")
            .partial_cmp(&num(b, "chars"))
            .unwrap_or(std::cmp::Ordering::Equal)
    }) {
        push(
            "largest-tool",
            "info",
            format!(
                "The largest tool is {} ({} chars, {} of all tools)",
                s(big, "name"),
                thousands(num(big, "chars")),
                pct(num(big, "chars"), tl)
            ),
            format!(
                "{} chars of parameters schema, {} of description.",
                thousands(num(big, "parametersChars")),
                thousands(num(big, "descriptionChars"))
            ),
            None,
            Some(format!("tool:{}", s(big, "name"))),
        );
    }
    let secs = at(st, &["systemPrompt", "sections"])
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let skills: f64 = secs
        .iter()
        .filter(|x| s(x, "name") == "skills")
        .map(|x| num(x, "chars"))
        .sum();
    if skills > 0.0 {
        let first = secs.iter().position(|x| s(x, "name") == "skills");
        push(
            "skills-share",
            "info",
            format!("Skills take {} of the system prompt", pct(skills, sp)),
            format!(
                "{} chars list the available skills; they are sent on every call.",
                thousands(skills)
            ),
            None,
            first.map(|i| format!("section:{i}")),
        );
    }
    for f in at(r, &["resources", "contextFiles"])
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
    {
        for x in arr(&f, "shadowed") {
            push(
                "context-file-shadowed",
                "warning",
                format!("{} is shadowed", x.as_str().unwrap_or("")),
                format!(
                    "{} was read instead; the shadowed file never reaches the model.",
                    s(&f, "path")
                ),
                Some("agent-context"),
                None,
            );
        }
    }
    if let Some(m) = r.get("model").filter(|v| !v.is_null()) {
        if !s(m, "thinkingRequested").is_empty() && s(m, "thinkingRequested") != s(m, "thinking") {
            push(
                "thinking-clamped",
                "warning",
                format!(
                    "Thinking level {} became {}",
                    s(m, "thinkingRequested"),
                    s(m, "thinking")
                ),
                format!(
                    "{} does not support {}; pi clamped it silently.",
                    s(m, "id"),
                    s(m, "thinkingRequested")
                ),
                Some("agent-context"),
                None,
            );
        }
    }
    let user = at(st, &["history", "byKind", "userText"])
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    if hi > 0.0 {
        push(
            "user-text-share",
            "info",
            format!("What the user typed is {} of the request", pct(user, body)),
            format!(
                "{} chars of user text in a {} chars body; the history is {} chars.",
                thousands(user),
                thousands(body),
                thousands(hi)
            ),
            None,
            Some("kind:userText".into()),
        );
    }
    for st in arr(r, "stages") {
        for (kind, what) in [
            ("renamed", "identifiers renamed"),
            ("replaced", "contents replaced"),
            ("inserted", "synthetic additions"),
            ("dropped", "parts dropped"),
        ] {
            let n = arr(st, "events")
                .iter()
                .filter(|e| s(e, "kind") == kind)
                .count();
            if n > 0 && s(st, "id") != "http-body" {
                let msg = arr(st, "events")
                    .iter()
                    .find(|e| s(e, "kind") == kind)
                    .map(|e| s(e, "message").to_string())
                    .unwrap_or_default();
                push(
                    &format!("{kind}-{}", s(st, "id")),
                    "notice",
                    format!("{}: {n} {what}", s(st, "title")),
                    msg,
                    Some(s(st, "id")),
                    None,
                );
            }
        }
    }
    out
}

#[function_component]
pub fn FindingsView(p: &ViewProps) -> Html {
    let from_core = from_report(&p.report);
    let computed = from_core.is_none();
    let list = from_core.unwrap_or_else(|| local_findings(&p.report));
    let stages = arr(&p.report, "stages").to_vec();
    html! {
        <section class="findings-view" data-testid="findings-view">
            <h3>{format!("Findings · {}", list.len())}</h3>
            if computed { <p class="na small">{"The core's findings are not available in this build; these checks are computed in the page from the statistics."}</p> }
            if list.is_empty() { <p class="muted">{"Nothing to report."}</p> }
            <ol class="findings" data-testid="findings">
            { for list.iter().enumerate().map(|(i, f)| {
                let key = format!("finding:{}", f.id);
                let sel = p.selection.as_deref() == Some(key.as_str()) || (f.subject.is_some() && p.selection.as_deref() == f.subject.as_deref());
                let subject = f.subject.clone().map(|sub| {
                    let cb = p.on_select.clone();
                    let label = super::subject_label(&sub);
                    html! { <button class="link" data-testid="finding-subject" onclick={Callback::from(move |_: MouseEvent| cb.emit(Some(AttrValue::from(sub.clone()))))}>{format!("→ {label}")}</button> }
                });
                let stage = f.stage.as_ref().and_then(|id| stages.iter().position(|x| s(x, "id") == id).map(|j| (j, s(&stages[j], "title").to_string()))).map(|(j, title)| {
                    let cb = p.on_stage.clone();
                    html! { <button class="link" onclick={Callback::from(move |_: MouseEvent| cb.emit(j))}>{format!("stage {}: {title}", j + 1)}</button> }
                });
                // Findings as actions: the what-if that tries the advice (the What-if view).
                let action = {
                    let specs: Option<(Vec<String>, String)> = match f.id.as_str() {
                        "largest-tools" | "tool-schemas" => {
                            let (specs, chars) = super::whatif::largest_extension_tools(&p.report);
                            (!specs.is_empty()).then(|| {
                                let label = super::whatif::extension_tools_label(&specs, chars);
                                (specs, label)
                            })
                        }
                        "skills-share" => {
                            let names = super::whatif::invocable_skills(&p.report);
                            (!names.is_empty()).then(|| {
                                let label = format!("What if the model were offered none of the {} skills (disable-model-invocation)", names.len());
                                (names.iter().map(|n| format!("skill-invocation:{n}")).collect(), label)
                            })
                        }
                        // The file read where another is shadowed: what removing it does (pi
                        // reads the shadowed one in its place). The finding's subject is the
                        // file's section; else its detail names it.
                        "context-file-shadowed" => {
                            let source = f.subject.as_deref().and_then(|x| x.strip_prefix("section:")).and_then(|i| i.parse::<usize>().ok())
                                .and_then(|i| at(&p.report, &["systemPrompt", "sections"]).and_then(Value::as_array).and_then(|a| a.get(i)))
                                .map(|x| s(x, "source").to_string());
                            super::whatif::shadowing_suggestions(&p.report).into_iter()
                                .find(|(path, _, _)| source.as_deref().map_or_else(|| f.detail.contains(path.as_str()), |x| x == path))
                                .map(|(_, spec, label)| (vec![spec], label))
                        }
                        _ => None,
                    };
                    specs.map(|(specs, label)| {
                        let next = super::whatif::with_all(&p.whatif, &specs);
                        let cb = p.on_set_whatif.clone();
                        html! { <button class="button" data-testid="finding-whatif" data-changes={specs.join(",")} onclick={Callback::from(move |_: MouseEvent| cb.emit(next.clone()))}>{label}</button> }
                    })
                };
                html! {
                    <li class={classes!("finding", f.severity.clone(), sel.then_some("sel"))} data-id={f.id.clone()}>
                        <span class="n">{i + 1}</span>
                        <div class="f-body">
                            <div class="title"><span class={classes!("sev", f.severity.clone())}>{&f.severity}</span>{" "}{&f.title}</div>
                            if !f.detail.is_empty() { <p class="f-detail">{super::util::with_pi_paths(&p.report, &f.detail)}</p> }
                            <div class="links">{subject}{stage}{action}</div>
                        </div>
                    </li>
                }
            }) }
            </ol>
        </section>
    }
}

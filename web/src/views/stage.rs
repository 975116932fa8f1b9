//! The selected pipeline stage: what it holds and what it changed, with pi's source location.

use ctxlens::report::types::{EventKind, EventsLeft, Stage};
use yew::prelude::*;

use super::components::thousands;
use super::util::pi_source_title;
use super::ViewProps;

/// Event kinds in display order.
const KINDS: [EventKind; 8] = [
    EventKind::Dropped,
    EventKind::Inserted,
    EventKind::Converted,
    EventKind::Renamed,
    EventKind::Moved,
    EventKind::Replaced,
    EventKind::Clamped,
    EventKind::Note,
];

fn kind_counts(st: &Stage) -> Vec<(&'static str, usize)> {
    KINDS
        .iter()
        .map(|&k| (k.as_str(), st.count_of(k)))
        .filter(|(_, n)| *n > 0)
        .collect()
}

/// `systemPromptChars` → `system prompt chars`.
fn words(k: &str) -> String {
    let mut out = String::new();
    for c in k.chars() {
        if c.is_ascii_uppercase() {
            out.push(' ');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn stage_data(p: &ViewProps, id: &str) -> Html {
    let r = &*p.report;
    match id {
        "session-read" | "agent-messages" => {
            if let Some(h) = super::util::session_placeholder(r) {
                return h;
            }
            let Some(sess) = r.session.as_ref() else {
                return html! { <p class="na">{"No session: the context starts empty."}</p> };
            };
            let entries = &sess.entries;
            let on_branch = entries.iter().filter(|e| e.on_active_branch).count();
            let in_ctx = entries.iter().filter(|e| e.in_context).count();
            let mut types: Vec<(&str, usize)> = Vec::new();
            for e in entries {
                let t = e.entry_type.as_str();
                match types.iter_mut().find(|(k, _)| *k == t) {
                    Some(x) => x.1 += 1,
                    None => types.push((t, 1)),
                }
            }
            html! {
                <dl class="kv">
                    <dt>{"file"}</dt><dd class="mono">{&sess.name}</dd>
                    <dt>{"version"}</dt><dd>{sess.version}</dd>
                    <dt>{"entries"}</dt><dd>{format!("{} ({} on the active branch, {} in the context)", thousands(entries.len() as f64), thousands(on_branch as f64), thousands(in_ctx as f64))}</dd>
                    <dt>{"by type"}</dt><dd>{types.iter().map(|(t, n)| format!("{t} {n}")).collect::<Vec<_>>().join(" · ")}</dd>
                    <dt>{"leaf"}</dt><dd class="mono">{sess.leaf_id.clone().unwrap_or_default()}</dd>
                    if let Some(c) = &sess.compaction_id { <><dt>{"compaction"}</dt><dd class="mono">{c}</dd></> }
                    <dt>{"messages yielded"}</dt><dd>{sess.message_sources.len()}</dd>
                </dl>
            }
        }
        "agent-context" => {
            let m = r.model.clone().unwrap_or_default();
            let requested = m.thinking_requested.as_str();
            let chosen = m.thinking.as_str();
            let (files, skills) = (&r.resources.context_files, &r.resources.skills);
            html! {
                <dl class="kv">
                    <dt>{"model"}</dt><dd class="mono">{m.key()}</dd>
                    <dt>{"api"}</dt><dd class="mono">{m.api.as_str()}</dd>
                    <dt>{"thinking"}</dt>
                    <dd>
                        if !requested.is_empty() && requested != chosen {
                            <span class="clamp" data-testid="thinking-clamp">{format!("{requested} → {chosen}")}</span>{format!(" (requested by {})", m.thinking_source.as_str())}
                        } else {
                            {format!("{chosen} ({})", m.thinking_source.as_str())}
                        }
                    </dd>
                    <dt>{"limits"}</dt><dd>{format!("context window {} · max tokens {}", thousands(m.context_window), thousands(m.max_tokens))}</dd>
                    <dt title="the tools this run has active (they make the tools and rules sections)">{"tools"}</dt><dd>{ for r.tools.iter().map(|t| html! { <span class="chip mono">{&t.name}</span> }) }</dd>
                    if let Some(declared) = &r.declared_tools {
                        <dt title="the tools the request sends: the declarations in the session's system messages, in the order pi replays them (a tool declared again moves to the end)">{"tools sent"}</dt>
                        <dd>{ for declared.iter().map(|t| html! { <span class="chip mono" title={t.stored.as_ref().map(|st| format!("declared by {}", st.label)).unwrap_or_default()}>{&t.name}</span> }) }</dd>
                    }
                    <dt>{"context files"}</dt><dd>{ for files.iter().map(|f| html! { <div class="mono small">{&f.path}</div> }) }</dd>
                    <dt>{"skills"}</dt><dd>{ for skills.iter().map(|k| html! { <span class="chip mono">{&k.name}</span> }) }</dd>
                    <dt>{"system prompt"}</dt><dd>{format!("{} chars", thousands(r.stats.as_ref().map_or(0.0, |s| s.system_prompt.chars as f64)))}</dd>
                </dl>
            }
        }
        "input-appended" => {
            // 0.86 on: the system message(s) this run stores, where they go.
            let new = &r.new_system_messages;
            if r.declared_tools.is_none() {
                return Html::default();
            }
            let placement = super::sysmsg::placement_text(&r.system_prompt);
            html! {
                <div class="run-system" data-testid="run-system-message">
                    <h4 title="pi (0.86 on) keeps the system prompt and the tools in the session as system messages: at the start of a run it stores what changed since the session's own (a section set or removed, tools added or removed), before your message">{"This run's system message"}</h4>
                    if new.is_empty() {
                        <p class="small muted">{"None: the system prompt and the tools are what the session already declares, so pi stores nothing."}</p>
                    } else {
                        <ul class="plain">
                        { for new.iter().map(|m| html! {
                            <li>
                                <span class="small">{ if m.sections.is_empty() { "tool changes only: ".to_string() } else if m.chars > 0 { format!("{} chars of prompt: ", thousands(m.chars as f64)) } else { "removes: ".to_string() } }</span>
                                {super::sysmsg::changes_chips(m)}
                            </li>
                        }) }
                        </ul>
                    }
                    if let Some((line, help)) = placement {
                        <p class="small muted" title={help}>{line}</p>
                    }
                </div>
            }
        }
        "http-body" | "build-params" | "on-payload" => {
            let Some(req) = r.request.as_ref() else {
                return html! { <p class="na">{"No request was built (see the diagnostics)."}</p> };
            };
            let body = req.body.as_str();
            // `None` while the body parsed is on its way from the worker (the top-level fields
            // show when it comes).
            let parsed = super::util::parsed_body(&p.report);
            let keys: Vec<String> = parsed
                .as_ref()
                .and_then(|v| v.as_object())
                .map(|o| o.keys().map(|k| k.to_string()).collect())
                .unwrap_or_default();
            html! {
                <dl class="kv">
                    <dt>{"request"}</dt><dd class="mono">{format!("{} {}", req.method, req.url)}</dd>
                    <dt>{"headers"}</dt><dd>{req.headers.len()}</dd>
                    <dt>{"body"}</dt><dd>{format!("{} bytes, {} chars", thousands(body.len() as f64), thousands(ctxlens::js::utf16_len(body) as f64))}</dd>
                    <dt>{"top-level fields"}</dt><dd>{ for keys.iter().map(|k| html! { <span class="chip mono">{k}</span> }) }</dd>
                </dl>
            }
        }
        _ => Html::default(),
    }
}

/// The events after the first ones a stage lists, by kind and pi's rule: how many, and the
/// first of each.
fn events_left(r: &crate::report::Report, shown: usize, left: &EventsLeft) -> Html {
    html! {
        <div class="events-left" data-testid="stage-events-left">
            <p class="muted small">
                {format!(
                    "… and {} more {} after the first {shown}, counted by rule (the command line lists each: ",
                    thousands(left.count as f64),
                    if left.count == 1 { "event" } else { "events" },
                )}
                <code>{"ctxlens trace SESSION"}</code>{"):"}
            </p>
            <ul class="events">
            { for left.groups.iter().map(|g| html! {
                <li class={classes!("event", g.kind.as_str())} data-count={g.count.to_string()}>
                    <span class={classes!("badge", g.kind.as_str())}>{g.kind.as_str()}</span>
                    <span class="msg">{format!("{} × ", thousands(g.count as f64))}<span class="muted">{"like "}</span>{super::util::with_pi_paths(r, &g.example)}</span>
                    if let Some(src) = g.pi_source.as_deref() { <code class="pi-source" title={pi_source_title(r, src)}>{super::util::pi_source_path(r, src)}</code> }
                </li>
            }) }
            </ul>
        </div>
    }
}

#[function_component]
pub fn StageView(p: &ViewProps) -> Html {
    let stages = &p.report.stages;
    if stages.is_empty() {
        return html! { <section class="stage-view" data-testid="stage-view"><p class="na">{"No pipeline trace (nothing was assembled)."}</p></section> };
    }
    let i = p.stage.min(stages.len() - 1);
    let st = &stages[i];
    let prev = i.checked_sub(1).and_then(|j| stages.get(j));
    let kinds = kind_counts(st);
    let changes: Vec<&(&str, usize)> = kinds.iter().filter(|(k, _)| *k != "note").collect();
    let counts = &st.counts.0;
    let prev_counts = prev.map(|p| &p.counts);
    let id = st.id.key();
    html! {
        <section class="stage-view" data-testid="stage-view" data-stage={id.to_string()}>
            <div class="stage-head">
                <h3 data-testid="stage-title"><span class="muted">{format!("{}/{} ", i + 1, stages.len())}</span>{&st.title}</h3>
                <code class="pi-source" title={pi_source_title(&p.report, &st.pi_source)}>{format!("pi's {} · {}", st.pi_function, super::util::pi_source_path(&p.report, &st.pi_source))}</code>
            </div>
            if !st.explanation.is_empty() { <p class="stage-explanation muted small" data-testid="stage-explanation">{&st.explanation}</p> }
            <p class="summary" data-testid="stage-summary">{super::util::with_pi_paths(&p.report, &st.summary)}</p>
            <div class="changes" data-testid="stage-changes">
                if changes.is_empty() {
                    <span class="muted">{"No changes: the data passes through."}</span>
                } else {
                    { for changes.iter().map(|(k, n)| html! { <span class={classes!("badge", *k)}>{format!("{n} {k}")}</span> }) }
                }
            </div>
            if !counts.is_empty() {
                <dl class="counts">
                { for counts.iter().map(|(k, v)| {
                    let before = prev_counts.and_then(|c| c.get(k));
                    html! {
                        <div>
                            <dt>{words(k)}</dt>
                            <dd>
                                {thousands(*v)}
                                if let Some(b) = before.filter(|b| b != v) {
                                    <span class={classes!("delta", if *v > b { "up" } else { "down" })}>{format!(" ({:+})", v - b)}</span>
                                }
                            </dd>
                        </div>
                    }
                }) }
                </dl>
            }
            if !st.events.is_empty() {
                <ul class="events" data-testid="stage-events">
                { for st.events.iter().map(|e| html! {
                    <li class={classes!("event", e.kind.as_str())}>
                        <span class={classes!("badge", e.kind.as_str())}>{e.kind.as_str()}</span>
                        <span class="msg">{super::util::with_pi_paths(&p.report, &e.message)}</span>
                        if let Some(src) = e.pi_source.as_deref() { <code class="pi-source" title={pi_source_title(&p.report, src)}>{super::util::pi_source_path(&p.report, src)}</code> }
                    </li>
                }) }
                </ul>
            }
            if let Some(left) = st.events_left.as_ref() {
                {events_left(&p.report, st.events.len(), left)}
            }
            <div class="stage-data">{stage_data(p, id)}</div>
        </section>
    }
}

//! The compare mode: the request beside the same request under another protocol, or under
//! another pi release (`ViewProps::with`, in the URL hash: `with=anthropic-messages`,
//! `with=pi-1.6.0`; the release comparison is [`super::upgrade`]).
//!
//! Two protocols side by side: where each block of the request went (the seed's mapping table),
//! a loss report (what one drops, converts, renames or adds) and what each adapter did. All of
//! it is the core's comparison (`ctxlens::analysis::compare`, the JSON of
//! `ctxlens::report::compare_json`, as `ctxlens compare` prints it): the page holds the two
//! reports, not the two assemblies, so it asks the worker, which compares its assemblies
//! (`ViewProps::compares` / `on_compare`). The sizes table is the two reports' stats.

use ctxlens::report::types::Stats;
use yew::prelude::*;

use super::components::thousands;
use super::overview::KIND_LABELS;
use super::util::not_available;
use super::{Comparison, ViewProps};
use crate::shared::Shared;
use crate::state::CompareWith;
use ctxlens::report::types::{Comparison as ProtocolComparison, EventGroup, MappingRow, Placement};
use ctxlens::report::wire::Wire;

/// The release the Protocols view offers first beside `from`: the newest other one.
pub fn default_release(from: &str) -> ctxlens::PiVersion {
    ctxlens::PiVersion::ALL
        .iter()
        .rev()
        .find(|v| v.as_str() != from)
        .copied()
        .unwrap_or(ctxlens::PiVersion::LATEST)
}

/// "Compare with: another protocol | another pi release".
pub fn mode_chooser(p: &ViewProps, release: bool) -> Html {
    let from = super::util::pi_version(&p.report).to_string();
    let to_protocol = {
        let on_with = p.on_with.clone();
        Callback::from(move |_: MouseEvent| on_with.emit(None))
    };
    let to_release = {
        let on_with = p.on_with.clone();
        let v = default_release(&from);
        Callback::from(move |_: MouseEvent| on_with.emit(Some(CompareWith::Pi(v).key())))
    };
    html! {
        <div class="chooser compare-mode" role="group" aria-label="compare the request with">
            <span class="muted small">{"Compare with "}</span>
            <button class={classes!("chip", (!release).then_some("on"))} aria-pressed={(!release).to_string()} data-testid="compare-mode-protocol" onclick={if release { Some(to_protocol) } else { None }}>{"another protocol"}</button>
            <button class={classes!("chip", release.then_some("on"))} aria-pressed={release.to_string()} data-testid="compare-mode-pi" onclick={if release { None } else { Some(to_release) }}
                title="The same session and files rebuilt under another pi release: what upgrading (or going back) does to the request and to the provider's cache">{"another pi release"}</button>
        </div>
    }
}

/// The Protocols view: the comparison `ViewProps::with` names.
#[function_component]
pub fn ProtocolsView(p: &ViewProps) -> Html {
    let props = p.clone();
    match p.with.as_deref().and_then(CompareWith::parse) {
        Some(CompareWith::Pi(_)) => html! { <super::upgrade::UpgradeView ..props /> },
        _ => html! { <ApiCompare ..props /> },
    }
}

/// One side of a mapping row (`{paths, leaves, chars, value}`): its paths, then its value (the
/// parameters) or its size.
fn side_cell(x: &Placement) -> Html {
    if x.paths.is_empty() {
        return html! { <span class="badge dropped">{"not sent"}</span> };
    }
    let leaves = x.leaves;
    html! {
        <>
            { for x.paths.iter().map(|p| html! { <div class="mono">{p}</div> }) }
            if let Some(v) = &x.value {
                <div class="muted small">{v}</div>
            } else if x.chars > 0 {
                <div class="muted small">{format!("{} chars in {} part{}", thousands(x.chars as f64), leaves, if leaves == 1 { "" } else { "s" })}</div>
            }
        </>
    }
}

/// The mapping table, and the loss report with the adapters' events, of one comparison.
fn comparison_html(
    c: &ProtocolComparison,
    a_api: &str,
    b_api: &str,
    report: &crate::report::Report,
) -> (Html, Html) {
    let rows: Vec<&MappingRow> = c
        .mapping
        .iter()
        .filter(|m| !m.a.paths.is_empty() || !m.b.paths.is_empty())
        .collect();
    let event_list = |api: &str, side: &str, list: &[EventGroup]| {
        html! {
            <>
                <h4>{format!("What {api}'s adapter did")}</h4>
                if list.is_empty() { <p class="muted small">{"Nothing changed the messages."}</p> }
                <ul class="losses" data-testid={format!("compare-events-{side}")}>
                { for list.iter().map(|e| {
                    let kind = e.kind.to_value();
                    let kind = kind.as_str().unwrap_or("");
                    let source = e.pi_source.as_deref().unwrap_or("");
                    html! {
                        <li><span class={classes!("badge", kind.to_string())}>{format!("{kind} ×{}", e.count)}</span>{" "}{&e.example}{" "}<code class="pi-source" title={super::util::pi_source_title(report, source)}>{super::util::pi_source_path(report, source)}</code></li>
                    }
                }) }
                </ul>
            </>
        }
    };
    let mapping = html! {
            <table class="mapping" data-testid="mapping-table" data-source="core">
                <thead><tr><th>{"block"}</th><th class="mono">{a_api}</th><th class="mono">{b_api}</th></tr></thead>
                <tbody>
                { for rows.iter().map(|m| html! {
                    <tr data-kind={m.kind.clone()}><th>{&m.title}</th><td>{side_cell(&m.a)}</td><td>{side_cell(&m.b)}</td></tr>
                }) }
                </tbody>
            </table>
    };
    let losses = html! {
        <>
            <h4>{"Loss report"}</h4>
            <ul class="losses" data-testid="loss-report">
                if c.losses.is_empty() { <li class="muted">{"Nothing is lost or added between these two."}</li> }
                { for c.losses.iter().map(|l| {
                    let side = l.side.to_value();
                    html! { <li data-side={side.as_str().unwrap_or("").to_string()}><span class={classes!("badge", l.kind.clone())}>{&l.kind}</span>{" "}<span class="loss-detail">{&l.detail}</span></li> }
                }) }
            </ul>
            {event_list(a_api, "a", &c.events.a)}
            {event_list(b_api, "b", &c.events.b)}
        </>
    };
    (mapping, losses)
}

#[function_component]
fn ApiCompare(p: &ViewProps) -> Html {
    let other = p
        .with
        .as_deref()
        .and_then(CompareWith::parse)
        .and_then(|w| match w {
            CompareWith::Api(a) => Some(a.as_str().to_string()),
            CompareWith::Pi(_) => None,
        });
    let apis: Vec<String> = p.reports.keys().cloned().collect();
    let a_api = p.api.to_string();
    let b_api = other
        .filter(|x| apis.contains(x) && *x != a_api)
        .or_else(|| apis.iter().find(|x| **x != a_api).cloned());
    let b_report: Option<Shared<crate::report::Report>> =
        b_api.as_ref().and_then(|x| p.reports.get(x).cloned());
    let pair = b_api
        .clone()
        .filter(|_| !a_api.is_empty())
        .map(|b| (a_api.clone(), b));
    let comparison = pair.as_ref().and_then(|k| p.compares.get(k).cloned());
    // The worker is asked once per pair and scenario (after rendering, not during it).
    {
        let on_compare = p.on_compare.clone();
        let ask = pair.clone().filter(|_| comparison.is_none());
        use_effect_with(ask, move |ask| {
            if let Some(k) = ask {
                on_compare.emit(k.clone());
            }
        });
    }
    let pick = |api: String| {
        let on_with = p.on_with.clone();
        Callback::from(move |_: MouseEvent| on_with.emit(Some(api.clone())))
    };
    let chooser = html! {
        <div class="chooser" role="group" aria-label="compare with">
            <span class="muted small">{format!("{a_api} compared with ")}</span>
            { for apis.iter().filter(|x| **x != a_api).map(|x| html! {
                <button class={classes!("chip", (Some(x) == b_api.as_ref()).then_some("on"))} aria-pressed={(Some(x) == b_api.as_ref()).to_string()}
                        data-testid={format!("compare-b-{x}")} onclick={pick(x.clone())}>{x}</button>
            }) }
        </div>
    };
    let (Some((a_api, b_api)), Some(b)) = (pair, b_report) else {
        return html! { <section class="protocols-view" data-testid="protocols-view"><h3>{"Compare protocols"}</h3>
        {mode_chooser(p, false)}
        {not_available("Only one protocol has been assembled so far; the others appear here as they are assembled (open another protocol tab).")}</section> };
    };
    let a: Shared<crate::report::Report> = p.report.clone();
    let both = |read: &dyn Fn(&Stats) -> usize| {
        let of = |r: &crate::report::Report| r.stats.as_ref().map_or(0.0, |s| read(s) as f64);
        (of(&a), of(&b))
    };
    let row = |label, read: &dyn Fn(&Stats) -> usize| {
        let (x, y) = both(read);
        (label, x, y)
    };
    let rows_stats: Vec<(&str, f64, f64)> = vec![
        row("body bytes", &|s| s.body.bytes),
        row("system prompt chars", &|s| s.system_prompt.chars),
        row("tools chars", &|s| s.tools.chars),
        row("history chars", &|s| s.history.chars),
    ]
    .into_iter()
    .chain(
        KIND_LABELS
            .iter()
            .map(|(k, l)| row(l, &|s: &Stats| s.history.by_kind.of(k).unwrap_or(0))),
    )
    .collect();

    let (mapping, losses): (Html, Html) = match &comparison {
        Some(Comparison::Ready(c)) => comparison_html(c, &a_api, &b_api, &a),
        Some(Comparison::Failed(why)) => {
            let again = {
                let (on_compare, key) = (p.on_compare.clone(), (a_api.clone(), b_api.clone()));
                Callback::from(move |_: MouseEvent| on_compare.emit(key.clone()))
            };
            let failed = html! {
                <div class="compare-failed" data-testid="compare-failed" role="alert">
                    <p class="na">{why}</p>
                    <button class="button" data-testid="compare-again" onclick={again}>{"Compare again"}</button>
                </div>
            };
            (failed, Html::default())
        }
        Some(Comparison::Pending) | None => {
            let pending = html! {
                <p class="muted loading" data-testid="compare-pending" aria-busy="true"><span class="spinner" aria-hidden="true"></span>{format!("comparing {a_api} with {b_api} in the worker…")}</p>
            };
            (pending, Html::default())
        }
    };
    html! {
        <section class="protocols-view" data-testid="protocols-view" data-a={a_api.clone()} data-b={b_api.clone()}
            data-state={match &comparison { Some(Comparison::Ready(_)) => "ready", Some(Comparison::Failed(_)) => "failed", _ => "pending" }}>
            <h3>{"Compare protocols"}</h3>
            {mode_chooser(p, false)}
            {chooser}
            <h4>{"Where each block went"}<span class="muted small">{" · the core's comparison"}</span></h4>
            {mapping}
            <div class="two-col">
                <div>{losses}</div>
                <div>
                    <h4>{"Sizes"}</h4>
                    <table class="sizes" data-testid="compare-sizes">
                        <thead><tr><th></th><th class="num mono">{&a_api}</th><th class="num mono">{&b_api}</th><th class="num">{"Δ"}</th></tr></thead>
                        <tbody>
                        { for rows_stats.iter().map(|(l, x, y)| html! {
                            <tr class={classes!((x != y).then_some("diff"))}><th>{*l}</th><td class="num">{thousands(*x)}</td><td class="num">{thousands(*y)}</td>
                                <td class="num">{ if x == y { "".to_string() } else { format!("{:+}", y - x) } }</td></tr>
                        }) }
                        </tbody>
                    </table>
                    <p class="muted small mono">{a.request.as_ref().map(|r| r.url.clone()).unwrap_or_default()}</p>
                    <p class="muted small mono">{b.request.as_ref().map(|r| r.url.clone()).unwrap_or_default()}</p>
                    if let Some(note) = b.request.as_ref().and_then(|r| r.url_note.as_deref()) {
                        <p class="url-note warn small" data-testid="compare-url-note">{note}</p>
                    }
                </div>
            </div>
        </section>
    }
}

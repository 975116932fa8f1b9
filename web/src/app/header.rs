//! The header's parts: the call rebuilt, a protocol's tab and the status line.

use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::pi_picker::call_release;
use super::reducer::{Action, AppState};
use super::util::{api_label, fmt_bytes};
use crate::report::Report;
use crate::shared::Shared;

type Dispatch = UseReducerDispatcher<AppState>;

/// The call rebuilt (the picker's, or the session's last when there is no prompt), with the
/// usage the provider reported for it, beside the rebuilt request.
pub(super) fn call_bar(state: &AppState, report: Option<&Shared<Report>>, d: &Dispatch) -> Html {
    let Some(rebuilt) = report.and_then(|r| r.call.clone()) else {
        return Html::default();
    };
    let c = &rebuilt.call;
    let next = {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| {
            d.dispatch(Action::EditOverrides(Box::new(|o| o.call = None)))
        })
    };
    let how = match rebuilt.chosen.as_str() {
        "last" => " (the session's last call: there is no new prompt)",
        _ => "",
    };
    let model = format!(
        "{}/{}",
        c.provider.as_deref().unwrap_or("?"),
        c.model.as_deref().unwrap_or("?")
    );
    html! {
        <div class="call-bar" data-testid="call-bar" data-call={c.index.to_string()} role="status">
            <strong>{format!("Call {}", c.index)}</strong>
            <span class="muted">{format!(" · line {} · {} · {}{how} · ", c.line, c.timestamp.as_deref().unwrap_or(""), model)}</span>
            { call_release(report.map(|r| &**r)) }
            if let Some(u) = &c.usage {
                <span class="call-usage" data-testid="call-usage" title="what the provider reported for this call (pi stored it on the answer)">
                    {format!("reported: {} input · {} cache read · {} cache write · {} output",
                        crate::views::thousands(u.input), crate::views::thousands(u.cache_read),
                        crate::views::thousands(u.cache_write), crate::views::thousands(u.output))}
                </span>
            } else {
                <span class="muted">{"no usage recorded"}</span>
            }
            if state.scenario.overrides.call.is_some() {
                <button class="button" data-testid="call-bar-next" onclick={next}>{"Back to the next request"}</button>
            }
        </div>
    }
}

/// The tab of protocol `api`: selected or not, the model's own or not, and how its request
/// stands (ok, none, failed, pending).
pub(super) fn protocol_tab(
    state: &AppState,
    api: &'static str,
    current_api: &str,
    d: &Dispatch,
) -> Html {
    let d = d.clone();
    let selected = current_api == api;
    let native = state.native_api.as_deref() == Some(api);
    let has = state.reports.get(api).map(|r| r.request.is_some());
    let failed = state.failures.contains_key(api);
    let onclick = Callback::from(move |_| d.dispatch(Action::SetApi(Some(api.to_string()))));
    let status = match (has, failed) {
        (_, true) => "failed",
        (Some(true), _) => "ok",
        (Some(false), _) => "none",
        (None, _) => "pending",
    };
    html! {
        <button role="tab" class={classes!("proto-tab", status, selected.then_some("selected"))} aria-selected={selected.to_string()}
            data-testid={format!("protocol-{api}")} title={format!("{api}{}", if native { " (the model's own protocol)" } else { "" })} {onclick}>
            { api_label(api) }
            if native { <span class="native" aria-label="the model's own">{"●"}</span> }
        </button>
    }
}

/// The status line: the assembly's progress (with a stop), why the protocol on screen has no
/// report, or how long the one on screen took and the memory it took.
pub(super) fn status_line(state: &AppState, current_api: &str, failed: bool, d: &Dispatch) -> Html {
    if let Some(b) = &state.busy {
        let stop = {
            let d = d.clone();
            Callback::from(move |_| d.dispatch(Action::Stop))
        };
        let pct = (b.done.clamp(0.0, 1.0) * 100.0).round();
        return html! {
            <div class="status busy" role="status" data-testid="progress-status">
                <progress class="progress" data-testid="progress" max="100" value={pct.to_string()} aria-label="assembly progress">{format!("{pct}%")}</progress>
                <span class="progress-label" data-testid="progress-label">{format!("{}: {}… {pct}%", b.api.as_deref().map_or("assembling", api_label), b.stage)}</span>
                <button class="button stop" data-testid="stop" onclick={stop} title="Stop: terminate the worker">{"Stop"}</button>
            </div>
        };
    }
    if !state.timings.contains_key(current_api) && failed {
        // The protocol on screen has no report: the status says so, not another's timing.
        return html! { <div class="status" role="status" data-testid="status">{format!("{}: no report (see the diagnostics)", api_label(current_api))}</div> };
    }
    let Some(t) = state.timings.get(current_api).or(state.last.as_ref()) else {
        return html! { <div class="status busy" role="status"><span class="spinner" aria-hidden="true"></span>{"starting the worker…"}</div> };
    };
    // The page's own wasm memory, for measurements (the JS heap does not count it).
    let page_memory = wasm_bindgen::memory()
        .dyn_into::<js_sys::WebAssembly::Memory>()
        .ok()
        .and_then(|m| js_sys::Reflect::get(&m.buffer(), &"byteLength".into()).ok())
        .and_then(|v| v.as_f64())
        .unwrap_or(0.0);
    html! { <div class="status" role="status" data-testid="status" data-page-memory={page_memory.to_string()} data-worker-memory={t.memory_bytes.to_string()} title={format!("rebuilt in the page's background worker, which holds {} of memory; the report it sent the page is {}", fmt_bytes(t.memory_bytes), fmt_bytes(t.json_bytes as f64))}>{format!("{} rebuilt in {:.0} ms · {} of memory", if t.api.is_empty() { "no model:" } else { api_label(&t.api) }, t.ms, fmt_bytes(t.memory_bytes))}</div> }
}

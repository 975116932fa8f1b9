//! The shell around the views: the header (scenario, the stats strip, protocol tabs, compare),
//! the pipeline stepper's buttons and keys, the view area, the inputs and settings panels and the
//! diagnostics. The state lives in one reducer ([`AppState`]); the worker is driven from it: a
//! changed scenario is laid out and sent once, then one assembly at a time is asked for — the
//! protocol on screen first, the others after it (for instant switching and the compare mode).

mod diagnostics;
mod inputs_panel;
mod pi_picker;
mod reducer;
mod settings;
mod stats_strip;
mod util;

use std::rc::Rc;

use ctxlens::js::Value;
use ctxlens::Api;
use gloo_events::{EventListener, EventListenerOptions};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::inputs::{self};

use crate::state::ViewState;
use crate::views::ViewProps;

use diagnostics::*;
use inputs_panel::*;
use pi_picker::*;
use reducer::*;
use settings::*;
use stats_strip::*;
use util::*;

pub use reducer::{Action, AppState};

// ---------------------------------------------------------------------------------------------

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(|| {
        let hash = web_sys::window()
            .and_then(|w| w.location().hash().ok())
            .unwrap_or_default();
        AppState::new(Rc::new(Host::default()), crate::embed::initial_view(&hash))
    });
    let dispatch = state.dispatcher();
    let dragging = use_state(|| false);

    // Start the worker once.
    {
        let (host, d) = (state.host.clone(), dispatch.clone());
        use_effect_with((), move |_| {
            *host.on_message.borrow_mut() = Some(Rc::new(move |m| d.dispatch(Action::Worker(m))));
            if let Err(e) = host.start() {
                web_sys::console::error_1(&e.into());
            }
            || ()
        });
    }

    // The URL parameters' files and the iframe mode (web/src/embed.rs).
    {
        let d = dispatch.clone();
        use_effect_with((), move |_| {
            crate::embed::start(Callback::from(move |sc| {
                d.dispatch(Action::Embedded(Box::new(sc)))
            }));
            || ()
        });
    }

    // Keys, the hash, pasting a session.
    {
        let d = dispatch.clone();
        use_effect_with((), move |_| {
            // gloo-events: each listener is removed when dropped (the effect's cleanup).
            let d1 = d.clone();
            let on_hash = web_sys::window().map(|w| {
                EventListener::new(&w, "hashchange", move |_| {
                    let hash = web_sys::window()
                        .and_then(|w| w.location().hash().ok())
                        .unwrap_or_default();
                    d1.dispatch(Action::Hash(ViewState::from_hash(&hash)));
                })
            });
            let d2 = d.clone();
            let on_paste = web_sys::window().and_then(|w| w.document()).map(|doc| {
                // Not passive: a pasted session is taken (preventDefault).
                let opts = EventListenerOptions::enable_prevent_default();
                EventListener::new_with_options(&doc, "paste", opts, move |e| {
                    let Some(e) = e.dyn_ref::<web_sys::ClipboardEvent>() else {
                        return;
                    };
                    if is_editable(e.target()) {
                        return;
                    }
                    let text = e
                        .clipboard_data()
                        .and_then(|c| c.get_data("text/plain").ok())
                        .unwrap_or_default();
                    if looks_like_session(&text) {
                        e.prevent_default();
                        d2.dispatch(Action::Paste(text));
                    }
                })
            });
            move || drop((on_hash, on_paste))
        });
    }

    let report = state.current_report();
    // While a protocol is rebuilt, the one on screen before it stays (see the view area).
    let kept = report
        .is_none()
        .then(|| {
            let was = state.previous_api.clone()?;
            state.reports.get(&was).cloned().map(|r| (was, r))
        })
        .flatten();
    let stage_count = report.as_ref().map_or(0, |r| r.stages.len());
    let stage = state.view.stage.min(stage_count.saturating_sub(1));
    let on_stage = {
        let d = dispatch.clone();
        Callback::from(move |i: usize| d.dispatch(Action::SetStage(i)))
    };

    // ←/→ step through the pipeline (not while typing).
    {
        let on_stage = on_stage.clone();
        use_effect_with((stage, stage_count), move |&(stage, count)| {
            let opts = EventListenerOptions::enable_prevent_default();
            let on_key = web_sys::window().and_then(|w| w.document()).map(|doc| {
                EventListener::new_with_options(&doc, "keydown", opts, move |e| {
                    let Some(e) = e.dyn_ref::<web_sys::KeyboardEvent>() else {
                        return;
                    };
                    if is_editable(e.target())
                        || e.alt_key()
                        || e.ctrl_key()
                        || e.meta_key()
                        || count == 0
                    {
                        return;
                    }
                    match e.key().as_str() {
                        "ArrowLeft" if stage > 0 => {
                            e.prevent_default();
                            on_stage.emit(stage - 1);
                        }
                        "ArrowRight" if stage + 1 < count => {
                            e.prevent_default();
                            on_stage.emit(stage + 1);
                        }
                        _ => {}
                    }
                })
            });
            move || drop(on_key)
        });
    }

    // The view state goes into the hash (replaceState: no history entry per click).
    {
        let hash = state.view.to_hash();
        use_effect_with(hash, move |hash| {
            if let Some(w) = web_sys::window() {
                let loc = w.location();
                let current = loc.hash().unwrap_or_default();
                if current != *hash && !(current == "#" && hash.is_empty()) {
                    let base = format!(
                        "{}{}",
                        loc.pathname().unwrap_or_default(),
                        loc.search().unwrap_or_default()
                    );
                    if let Ok(h) = w.history() {
                        let _ = h.replace_state_with_url(
                            &JsValue::NULL,
                            "",
                            Some(&format!("{base}{hash}")),
                        );
                    }
                }
            }
            || ()
        });
    }

    let ondragover = {
        let dragging = dragging.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            if let Some(dt) = e.data_transfer() {
                dt.set_drop_effect("copy");
            }
            if !*dragging {
                dragging.set(true);
            }
        })
    };
    let ondragleave = {
        let dragging = dragging.clone();
        Callback::from(move |e: DragEvent| {
            if e.related_target().is_none() {
                dragging.set(false);
            }
        })
    };
    let sessions_on = state.view.sessions;
    let ondrop = {
        let (dragging, d) = (dragging.clone(), dispatch.clone());
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            dragging.set(false);
            // All your sessions takes the drops on it; elsewhere on the page they are not
            // loaded as one request's files meanwhile.
            if sessions_on {
                return;
            }
            if let Some(dt) = e.data_transfer() {
                read_into(
                    d.clone(),
                    crate::state::Target::Page,
                    "reading the dropped files".into(),
                    inputs::collect_drop(&dt, crate::state::Target::Page),
                );
            }
        })
    };

    let current_api = state.current_api().unwrap_or_default();
    let views = view_nav();
    let view_key: AttrValue = state
        .view
        .view
        .clone()
        .filter(|v| views.iter().any(|(k, _)| k == v))
        .or_else(|| views.first().map(|(k, _)| k.to_string()))
        .unwrap_or_default()
        .into();
    let props = ViewProps {
        body_ready: report
            .as_ref()
            .is_some_and(|r| !crate::views::body_pending(r)),
        report: report.clone().unwrap_or_default(),
        reports: state.reports.clone(),
        api: current_api.clone().into(),
        stage,
        on_stage: on_stage.clone(),
        selection: state.view.selection.clone().map(AttrValue::from),
        on_select: {
            let d = dispatch.clone();
            Callback::from(move |s: Option<AttrValue>| {
                d.dispatch(Action::SetSelection(s.map(|s| s.to_string())))
            })
        },
        prov_answers: state.prov.get(&current_api).cloned(),
        on_prov: {
            let d = dispatch.clone();
            Callback::from(move |path: AttrValue| {
                d.dispatch(Action::AskProvenance(path.to_string()))
            })
        },
        compares: state.compares.clone(),
        on_compare: {
            let d = dispatch.clone();
            Callback::from(move |(a, b): (String, String)| d.dispatch(Action::Compare(a, b)))
        },
        upgrades: state.upgrades.clone(),
        on_upgrade: {
            let d = dispatch.clone();
            Callback::from(move |(a, v, t): (String, String, bool)| {
                d.dispatch(Action::Upgrade(a, v, t))
            })
        },
        whatifs: state.whatifs.clone(),
        on_whatif: {
            let d = dispatch.clone();
            Callback::from(move |k: crate::views::WhatIfKey| d.dispatch(Action::WhatIf(k)))
        },
        whatif: state.view.whatif.clone(),
        on_set_whatif: {
            let d = dispatch.clone();
            Callback::from(move |c: Vec<String>| d.dispatch(Action::SetWhatIf(c)))
        },
        with: state.view.with.clone().map(AttrValue::from),
        on_with: {
            let d = dispatch.clone();
            Callback::from(move |w: Option<String>| d.dispatch(Action::SetWith(w)))
        },
        laid: Some(state.laid.clone()),
        tokens: state.tokens.get(&current_api).cloned(),
        call: state.scenario.overrides.call.clone(),
        on_call: {
            let d = dispatch.clone();
            Callback::from(move |k: Option<ctxlens::calls::CallRef>| {
                d.dispatch(Action::EditOverrides(Box::new(move |o| o.call = k)))
            })
        },
    };
    // The call rebuilt (the picker's, or the session's last when there is no prompt), with the
    // usage the provider reported for it, beside the rebuilt request.
    let call_bar = report
        .as_ref()
        .and_then(|r| r.call.clone())
        .map(|rebuilt| {
            let c = &rebuilt.call;
            let next = {
                let d = dispatch.clone();
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
                    { call_release(report.as_deref()) }
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
        });
    let failure = state
        .failures
        .get(&current_api)
        .cloned()
        .or_else(|| state.failures.get("worker").cloned());
    let mut notes = state.scenario.notes.clone();
    notes.extend(state.laid.notes.iter().cloned());
    let has_request = report
        .as_ref()
        .map(|r| !r.get("request").is_none_or(Value::is_null));

    let tab = |api: &'static str| {
        let d = dispatch.clone();
        let selected = current_api == api;
        let native = state.native_api.as_deref() == Some(api);
        let has = state
            .reports
            .get(api)
            .map(|r| !r.get("request").is_none_or(Value::is_null));
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
    };
    let compare = {
        let d = dispatch.clone();
        Callback::from(move |_| d.dispatch(Action::ToggleCompare))
    };
    // Each stage's name and what it is, in a line (`StageId::explanation`).
    let stage_titles: Vec<(String, String)> = report
        .as_ref()
        .map(|r| {
            r.stages
                .iter()
                .map(|s| (s.title.clone(), s.pi_function.clone()))
                .collect()
        })
        .unwrap_or_default();
    let prev = {
        let on_stage = on_stage.clone();
        Callback::from(move |_| on_stage.emit(stage.saturating_sub(1)))
    };
    let next = {
        let on_stage = on_stage.clone();
        Callback::from(move |_| on_stage.emit((stage + 1).min(stage_count.saturating_sub(1))))
    };
    let stop = {
        let d = dispatch.clone();
        Callback::from(move |_| d.dispatch(Action::Stop))
    };
    let status = if let Some(b) = &state.busy {
        let pct = (b.done.clamp(0.0, 1.0) * 100.0).round();
        html! {
            <div class="status busy" role="status" data-testid="progress-status">
                <progress class="progress" data-testid="progress" max="100" value={pct.to_string()} aria-label="assembly progress">{format!("{pct}%")}</progress>
                <span class="progress-label" data-testid="progress-label">{format!("{}: {}… {pct}%", b.api.as_deref().map_or("assembling", api_label), b.stage)}</span>
                <button class="button stop" data-testid="stop" onclick={stop} title="Stop: terminate the worker">{"Stop"}</button>
            </div>
        }
    } else if let (None, Some(_)) = (state.timings.get(&current_api), &failure) {
        // The protocol on screen has no report: the status says so, not another's timing.
        html! { <div class="status" role="status" data-testid="status">{format!("{}: no report (see the diagnostics)", api_label(&current_api))}</div> }
    } else if let Some(t) = state.timings.get(&current_api).or(state.last.as_ref()) {
        // The page's own wasm memory, for measurements (the JS heap does not count it).
        let page_memory = wasm_bindgen::memory()
            .dyn_into::<js_sys::WebAssembly::Memory>()
            .ok()
            .and_then(|m| js_sys::Reflect::get(&m.buffer(), &"byteLength".into()).ok())
            .and_then(|v| v.as_f64())
            .unwrap_or(0.0);
        html! { <div class="status" role="status" data-testid="status" data-page-memory={page_memory.to_string()} data-worker-memory={t.memory_bytes.to_string()} title={format!("rebuilt in the page's background worker, which holds {} of memory; the report it sent the page is {}", fmt_bytes(t.memory_bytes), fmt_bytes(t.json_bytes as f64))}>{format!("{} rebuilt in {:.0} ms · {} of memory", if t.api.is_empty() { "no model:" } else { api_label(&t.api) }, t.ms, fmt_bytes(t.memory_bytes))}</div> }
    } else {
        html! { <div class="status busy" role="status"><span class="spinner" aria-hidden="true"></span>{"starting the worker…"}</div> }
    };

    // The pi release: asked for (the picker), else the capture's, else the one the session
    // proves, else the newest; the report says which and why.
    let newer_session = report
        .as_ref()
        .and_then(|r| r.pi.as_ref())
        .and_then(|p| p.newer_session.clone());
    let pi_picker = {
        let d = dispatch.clone();
        let on_pick = Callback::from(move |v: Option<ctxlens::PiVersion>| {
            d.dispatch(Action::EditOverrides(Box::new(move |o| o.pi = v)))
        });
        html! { <PiPicker report={report.clone()} asked={state.scenario.overrides.pi} {on_pick} /> }
    };

    // Mounted once asked for, then kept (hidden behind the request views) so a folder's
    // report survives a look at one of its calls.
    let sessions_seen = use_mut_ref(|| false);
    if sessions_on {
        *sessions_seen.borrow_mut() = true;
    }
    let all_sessions = (*sessions_seen.borrow()).then(|| {
        let d = dispatch.clone();
        let on_open = Callback::from(move |c| d.dispatch(Action::OpenCall(c)));
        html! {
            <div class="sessions-pane" hidden={!sessions_on}>
                <crate::all_sessions::AllSessions {on_open} />
            </div>
        }
    });

    html! {
        <div class={classes!("app", dragging.then_some("dragging"), sessions_on.then_some("sessions-mode"))} {ondragover} {ondragleave} {ondrop}>
            if crate::embed::active() { <crate::embed::EmbedBar name={state.scenario.name.clone()} api={current_api.clone()} /> }
            <header class="top">
                if let Some(w) = newer_session.clone() {
                    <div class="banner warn" role="alert" data-testid="newer-session">
                        <strong>{"Session from a newer pi. "}</strong>{w}
                        {". Pick the release you run in the pi menu."}
                    </div>
                }
                <div class="brand">
                    <h1>{"ctxlens"}</h1>
                    <span class="scenario" title="what is loaded: a session and its files, or the demo">{&state.scenario.name}</span>
                    { pi_picker }
                </div>
                <StatsStrip report={report.clone()} tokens={state.tokens.get(&current_api).cloned()} />
                { status }
                { call_bar.unwrap_or_default() }
                <nav class="protocols" aria-label="protocol">
                    <div role="tablist" class="tabs">{ for Api::ALL.iter().map(|a| tab(a.as_str())) }</div>
                    <button class={classes!("compare-toggle", "sessions-toggle", sessions_on.then_some("on"))} aria-pressed={sessions_on.to_string()} data-testid="sessions-toggle"
                        onclick={{ let d = dispatch.clone(); Callback::from(move |_| d.dispatch(Action::ShowSessions(!sessions_on))) }}
                        title="Every call of every session in a sessions folder: what your tools, skills, context files and history cost">{"All sessions"}</button>
                    <button class={classes!("compare-toggle", state.view.compare.then_some("on"))} aria-pressed={state.view.compare.to_string()} data-testid="compare-toggle" onclick={compare}
                        title="Put two protocols, or two pi releases, side by side">{"Compare"}</button>
                </nav>
            </header>
            { all_sessions.unwrap_or_default() }
            <aside class="stepper" aria-label="pipeline">
                <h2>{"Pipeline"}</h2>
                <div class="step-buttons">
                    <button class="button" data-testid="stage-prev" onclick={prev} disabled={stage == 0} aria-keyshortcuts="ArrowLeft" title="previous stage (←)">{"← Prev"}</button>
                    <span class="step-count">{format!("{} / {}", if stage_count == 0 { 0 } else { stage + 1 }, stage_count)}</span>
                    <button class="button" data-testid="stage-next" onclick={next} disabled={stage + 1 >= stage_count} aria-keyshortcuts="ArrowRight" title="next stage (→)">{"Next →"}</button>
                </div>
                <ol class="stages">
                    { for stage_titles.iter().enumerate().map(|(i, (t, function))| {
                        let on_stage = on_stage.clone();
                        html! { <li><button class={classes!("stage-link", (i == stage).then_some("current"))} aria-current={(i == stage).then_some("step")} onclick={Callback::from(move |_| on_stage.emit(i))}>
                            <span class="stage-name">{t}</span>
                            if !function.is_empty() { <span class="stage-why" data-testid="stage-why" title="the function of pi that does it">{function}</span> }
                        </button></li> }
                    }) }
                </ol>
                if report.is_some() {
                    <div class="stage-slot"><crate::views::StageView ..props.clone() /></div>
                }
            </aside>
            <main class="viewport">
                <nav class="view-tabs" aria-label="views">
                    { for views.iter().map(|(k, label)| {
                        let d = dispatch.clone();
                        let key = k.to_string();
                        let selected = view_key == *k;
                        html! { <button class={classes!("view-tab", selected.then_some("selected"))} aria-current={selected.then_some("page")} onclick={Callback::from(move |_| d.dispatch(Action::SetView(key.clone())))}>{*label}</button> }
                    }) }
                </nav>
                // data-state: `ready` (a report is on screen; data-request says whether pi
                // would send one), `loading`, or `failed`.
                // data-whatif-sent / -computed: the what-ifs the page sent and the worker
                // computed (one at a time: a quick run of toggles costs two, not one each).
                <div class="view-area" data-api={current_api.clone()}
                    data-whatif-sent={state.whatif_sent.to_string()} data-whatif-computed={state.whatif_computed.to_string()}
                    data-state={if report.is_some() { "ready" } else if failure.is_some() { "failed" } else { "loading" }}
                    data-request={has_request.map(|h| h.to_string())}>
                    if report.is_some() {
                        <crate::views::ViewSwitch view={view_key.clone()} props={props} />
                    } else if failure.is_some() {
                        <p class="muted">{"No report for this protocol: see the diagnostics."}</p>
                        <button class="button" data-testid="retry" onclick={{ let d = dispatch.clone(); Callback::from(move |_| d.dispatch(Action::Retry)) }}>{"Assemble again"}</button>
                    } else if let Some((was, kept)) = kept {
                        // The request on screen before the switch, dimmed, until the new one is in.
                        <p class="muted loading" data-testid="kept-note"><span class="spinner" aria-hidden="true"></span>{format!("rebuilding for {}… {}'s request is shown meanwhile", api_label(&current_api), api_label(&was))}</p>
                        <div class="kept" data-testid="kept-view" data-api={was.clone()} inert=true aria-hidden="true">
                            <crate::views::ViewSwitch view={view_key.clone()} props={crate::views::ViewProps { report: kept, api: was.into(), ..props.clone() }} />
                        </div>
                    } else {
                        <p class="muted loading"><span class="spinner" aria-hidden="true"></span>{"assembling…"}</p>
                    }
                </div>
            </main>
            <aside class="side">
                <InputsPanel scenario={state.scenario.clone()} laid={state.laid.clone()} reading={state.reading.clone()} report={report.clone()} dispatch={dispatch.clone()} />
                <SettingsPanel overrides={state.scenario.overrides.clone()} base={state.laid.base.clone()} report={report.clone()}
                    catalog={state.catalog.clone()}
                    on_edit={{ let d = dispatch.clone(); Callback::from(move |e| d.dispatch(Action::EditOverrides(e))) }}
                    on_want_catalog={{ let d = dispatch.clone(); Callback::from(move |_| d.dispatch(Action::WantCatalog)) }} />
            </aside>
            <div class="bottom">
                <DiagnosticsPanel notes={notes} report={report.clone()} failure={failure} api={current_api.clone()} laid={state.laid.clone()} />
            </div>
            if *dragging && !sessions_on { <div class="drop-overlay" aria-hidden="true"><p>{"Drop to load"}</p></div> }
        </div>
    }
}

/// Mounts the app on `<body>`.
pub fn run() {
    yew::Renderer::<App>::new().render();
}

//! The shell around the views: the header (scenario, the stats strip, protocol tabs, compare),
//! the pipeline stepper's buttons and keys, the view area, the inputs and settings panels and the
//! diagnostics. The state lives in one reducer ([`AppState`]); the worker is driven from it: a
//! changed scenario is laid out and sent once, then one assembly at a time is asked for — the
//! protocol on screen first, the others after it (for instant switching and the compare mode).

mod diagnostics;
mod header;
mod hooks;
mod inputs_panel;
mod pi_picker;
mod reducer;
mod settings;
mod stats_strip;
mod util;

use std::rc::Rc;

use ctxlens::Api;
use yew::prelude::*;

use crate::shared::Shared;
use crate::views::ViewProps;

use diagnostics::*;
use header::*;
use hooks::*;
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
    use_worker(state.host.clone(), dispatch.clone());
    use_embed(dispatch.clone());
    use_page_events(dispatch.clone());

    let report = state.current_report();
    let stage_count = report.as_ref().map_or(0, |r| r.stages.len());
    let stage = state.view.stage.min(stage_count.saturating_sub(1));
    let on_stage = {
        let d = dispatch.clone();
        Callback::from(move |i: usize| d.dispatch(Action::SetStage(i)))
    };
    use_stage_keys(stage, stage_count, on_stage.clone());
    use_hash_sync(state.view.to_hash());

    let sessions_on = state.view.sessions;
    let drops = drop_handlers(&dragging, &dispatch, sessions_on);
    let current_api = state.current_api().unwrap_or_default();
    let props = view_props(&state, &dispatch, report.as_ref(), stage, &on_stage);
    let failure = state
        .failures
        .get(&current_api)
        .cloned()
        .or_else(|| state.failures.get("worker").cloned());
    let mut notes = state.scenario.notes.clone();
    notes.extend(state.laid.notes.iter().cloned());

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
    let screen = Screen {
        report: report.clone(),
        failure: failure.clone(),
        current_api: current_api.clone(),
        props,
    };

    html! {
        <div class={classes!("app", dragging.then_some("dragging"), sessions_on.then_some("sessions-mode"))}
            ondragover={drops.over} ondragleave={drops.leave} ondrop={drops.drop}>
            if crate::embed::active() { <crate::embed::EmbedBar name={state.scenario.name.clone()} api={current_api.clone()} /> }
            { top(&state, &dispatch, report.as_ref(), &current_api, failure.is_some()) }
            { all_sessions.unwrap_or_default() }
            { stepper(&screen, stage, stage_count, &on_stage) }
            { viewport(&state, &dispatch, &screen) }
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

/// What the view area shows: the report of the protocol on screen (if it is in), why there is
/// none, and the views' properties.
struct Screen {
    report: Option<Shared<crate::report::Report>>,
    failure: Option<String>,
    current_api: String,
    props: ViewProps,
}

/// The views' properties: the report on screen and the app's state they read, with the
/// callbacks that change it.
fn view_props(
    state: &AppState,
    d: &UseReducerDispatcher<AppState>,
    report: Option<&Shared<crate::report::Report>>,
    stage: usize,
    on_stage: &Callback<usize>,
) -> ViewProps {
    let current_api = state.current_api().unwrap_or_default();
    let on = || d.clone();
    ViewProps {
        body_ready: report.is_some_and(|r| !crate::views::body_pending(r)),
        report: report.cloned().unwrap_or_default(),
        reports: state.reports.clone(),
        api: current_api.clone().into(),
        stage,
        on_stage: on_stage.clone(),
        selection: state.view.selection.clone().map(AttrValue::from),
        on_select: {
            let d = on();
            Callback::from(move |s: Option<AttrValue>| {
                d.dispatch(Action::SetSelection(s.map(|s| s.to_string())))
            })
        },
        prov_answers: state.prov.get(&current_api).cloned(),
        on_prov: {
            let d = on();
            Callback::from(move |path: AttrValue| {
                d.dispatch(Action::AskProvenance(path.to_string()))
            })
        },
        compares: state.compares.clone(),
        on_compare: {
            let d = on();
            Callback::from(move |(a, b): (String, String)| d.dispatch(Action::Compare(a, b)))
        },
        upgrades: state.upgrades.clone(),
        on_upgrade: {
            let d = on();
            Callback::from(move |(a, v, t): (String, String, bool)| {
                d.dispatch(Action::Upgrade(a, v, t))
            })
        },
        whatifs: state.whatifs.clone(),
        on_whatif: {
            let d = on();
            Callback::from(move |k: crate::views::WhatIfKey| d.dispatch(Action::WhatIf(k)))
        },
        whatif: state.view.whatif.clone(),
        on_set_whatif: {
            let d = on();
            Callback::from(move |c: Vec<String>| d.dispatch(Action::SetWhatIf(c)))
        },
        with: state.view.with.clone().map(AttrValue::from),
        on_with: {
            let d = on();
            Callback::from(move |w: Option<String>| d.dispatch(Action::SetWith(w)))
        },
        laid: Some(state.laid.clone()),
        tokens: state.tokens.get(&current_api).cloned(),
        call: state.scenario.overrides.call.clone(),
        on_call: {
            let d = on();
            Callback::from(move |k: Option<ctxlens::calls::CallRef>| {
                d.dispatch(Action::EditOverrides(Box::new(move |o| o.call = k)))
            })
        },
    }
}

/// The header: a newer session's warning, the name and the pi release, the statistics, the
/// status, the call rebuilt, and the protocols' tabs with the All sessions and Compare toggles.
fn top(
    state: &AppState,
    d: &UseReducerDispatcher<AppState>,
    report: Option<&Shared<crate::report::Report>>,
    current_api: &str,
    failed: bool,
) -> Html {
    let newer_session = report
        .and_then(|r| r.pi.as_ref())
        .and_then(|p| p.newer_session.clone());
    // The pi release: asked for (the picker), else the capture's, else the one the session
    // proves, else the newest; the report says which and why.
    let pi_picker = {
        let d = d.clone();
        let on_pick = Callback::from(move |v: Option<ctxlens::PiVersion>| {
            d.dispatch(Action::EditOverrides(Box::new(move |o| o.pi = v)))
        });
        html! { <PiPicker report={report.cloned()} asked={state.scenario.overrides.pi} {on_pick} /> }
    };
    let sessions_on = state.view.sessions;
    let on_sessions = {
        let d = d.clone();
        Callback::from(move |_| d.dispatch(Action::ShowSessions(!sessions_on)))
    };
    let compare = {
        let d = d.clone();
        Callback::from(move |_| d.dispatch(Action::ToggleCompare))
    };
    html! {
        <header class="top">
            if let Some(w) = newer_session {
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
            <StatsStrip report={report.cloned()} tokens={state.tokens.get(current_api).cloned()} />
            { status_line(state, current_api, failed, d) }
            { call_bar(state, report, d) }
            <nav class="protocols" aria-label="protocol">
                <div role="tablist" class="tabs">{ for Api::ALL.iter().map(|a| protocol_tab(state, a.as_str(), current_api, d)) }</div>
                <button class={classes!("compare-toggle", "sessions-toggle", sessions_on.then_some("on"))} aria-pressed={sessions_on.to_string()} data-testid="sessions-toggle"
                    onclick={on_sessions}
                    title="Every call of every session in a sessions folder: what your tools, skills, context files and history cost">{"All sessions"}</button>
                <button class={classes!("compare-toggle", state.view.compare.then_some("on"))} aria-pressed={state.view.compare.to_string()} data-testid="compare-toggle" onclick={compare}
                    title="Put two protocols, or two pi releases, side by side">{"Compare"}</button>
            </nav>
        </header>
    }
}

/// The pipeline: the stages, each with the function of pi that does it, the buttons to step
/// through them, and the stage on screen.
fn stepper(screen: &Screen, stage: usize, stage_count: usize, on_stage: &Callback<usize>) -> Html {
    // Each stage's name and what it is, in a line (`StageId::explanation`).
    let stage_titles: Vec<(String, String)> = screen
        .report
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
    html! {
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
            if screen.report.is_some() {
                <div class="stage-slot"><crate::views::StageView ..screen.props.clone() /></div>
            }
        </aside>
    }
}

/// The views' tabs and the view on screen: the report's, why there is none, or (while a
/// protocol is rebuilt) the one on screen before it, dimmed.
fn viewport(state: &AppState, d: &UseReducerDispatcher<AppState>, screen: &Screen) -> Html {
    let current_api = &screen.current_api;
    let views = view_nav();
    let view_key: AttrValue = state
        .view
        .view
        .clone()
        .filter(|v| views.iter().any(|(k, _)| k == v))
        .or_else(|| views.first().map(|(k, _)| k.to_string()))
        .unwrap_or_default()
        .into();
    // While a protocol is rebuilt, the one on screen before it stays.
    let kept = screen
        .report
        .is_none()
        .then(|| {
            let was = state.previous_api.clone()?;
            state.reports.get(&was).cloned().map(|r| (was, r))
        })
        .flatten();
    let has_request = screen.report.as_ref().map(|r| r.request.is_some());
    let retry = {
        let d = d.clone();
        Callback::from(move |_| d.dispatch(Action::Retry))
    };
    let props = screen.props.clone();
    html! {
        <main class="viewport">
            <nav class="view-tabs" aria-label="views">
                { for views.iter().map(|(k, label)| {
                    let d = d.clone();
                    let key = k.to_string();
                    let selected = view_key == *k;
                    html! { <button class={classes!("view-tab", selected.then_some("selected"))} aria-current={selected.then_some("page")} onclick={Callback::from(move |_| d.dispatch(Action::SetView(key.clone())))}>{*label}</button> }
                }) }
            </nav>
            // data-state: `ready` (a report is on screen; data-request says whether pi
            // would send one), `loading`, or `failed`.
            // data-whatif-sent / -computed: the what-ifs the page sent and the worker
            // computed (one at a time: a quick run of toggles costs two, not one each).
            // data-session: `pending` while the report's session parts are on their way.
            <div class="view-area" data-api={current_api.clone()}
                data-whatif-sent={state.whatif_sent.to_string()} data-whatif-computed={state.whatif_computed.to_string()}
                data-state={if screen.report.is_some() { "ready" } else if screen.failure.is_some() { "failed" } else { "loading" }}
                data-request={has_request.map(|h| h.to_string())}
                data-session={screen.report.as_ref().map(|r| if r.session_pending { "pending" } else { "ready" })}>
                if screen.report.is_some() {
                    <crate::views::ViewSwitch view={view_key.clone()} props={props} />
                } else if screen.failure.is_some() {
                    <p class="muted">{"No report for this protocol: see the diagnostics."}</p>
                    <button class="button" data-testid="retry" onclick={retry}>{"Assemble again"}</button>
                } else if let Some((was, kept)) = kept {
                    // The request on screen before the switch, dimmed, until the new one is in.
                    <p class="muted loading" data-testid="kept-note"><span class="spinner" aria-hidden="true"></span>{format!("rebuilding for {}… {}'s request is shown meanwhile", api_label(current_api), api_label(&was))}</p>
                    <div class="kept" data-testid="kept-view" data-api={was.clone()} inert=true aria-hidden="true">
                        <crate::views::ViewSwitch view={view_key.clone()} props={crate::views::ViewProps { report: kept, api: was.into(), ..props.clone() }} />
                    </div>
                } else {
                    <p class="muted loading"><span class="spinner" aria-hidden="true"></span>{"assembling…"}</p>
                }
            </div>
        </main>
    }
}

/// Mounts the app on `<body>`.
pub fn run() {
    yew::Renderer::<App>::new().render();
}

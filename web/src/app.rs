//! The shell around the views: the header (scenario, the stats strip, protocol tabs, compare),
//! the pipeline stepper's buttons and keys, the view area, the inputs and settings panels and the
//! diagnostics. The state lives in one reducer ([`AppState`]); the worker is driven from it: a
//! changed scenario is laid out and sent once, then one assembly at a time is asked for — the
//! protocol on screen first, the others after it (for instant switching and the compare mode).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use ctxlens::js::{self, Value};
use ctxlens::Api;
use ctxlens::Diagnostic;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::inputs::{self, Collected};
use crate::shared::Shared;
use crate::state::{Laid, Overrides, Scenario, ViewState};
use crate::views::{Comparison, ViewProps};
use crate::worker::{FromWorker, WorkerLink};

/// Reports larger than this (body bytes) are not assembled for every protocol in advance.
const PREFETCH_LIMIT: f64 = 2_000_000.0;

/// The worker, restartable; shared by every copy of the state.
#[derive(Default)]
pub struct Host {
    link: RefCell<Option<WorkerLink>>,
    on_message: RefCell<Option<Rc<dyn Fn(FromWorker)>>>,
}

impl Host {
    fn start(&self) -> Result<(), String> {
        let cb = self
            .on_message
            .borrow()
            .clone()
            .ok_or("no message handler")?;
        let link = WorkerLink::start(cb)?;
        *self.link.borrow_mut() = Some(link);
        Ok(())
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Busy {
    pub api: Option<String>,
    pub stage: String,
    pub since: f64,
    /// The share of the work done (0–1): the worker's stages, then the page's reading of the
    /// report by bytes.
    pub done: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    pub api: String,
    pub ms: f64,
    pub memory_bytes: f64,
    pub json_bytes: usize,
}

/// A model the picker offers.
#[derive(Clone, Debug, PartialEq)]
pub struct CatalogModel {
    pub reference: String,
    pub name: String,
    pub api: String,
}

#[derive(Clone)]
pub struct AppState {
    pub scenario: Shared<Scenario>,
    pub laid: Shared<Laid>,
    pub gen: u64,
    /// Reports of this scenario by api; the model's own protocol is `native_api`.
    pub reports: Shared<BTreeMap<String, Shared<Value>>>,
    pub native_api: Option<String>,
    /// Why a protocol has no report (the worker crashed on it, or its JSON did not parse).
    pub failures: BTreeMap<String, String>,
    pub in_flight: Option<(u64, Option<String>)>,
    pub busy: Option<Busy>,
    pub last: Option<Timing>,
    pub view: ViewState,
    pub ready: bool,
    pub builtin_tools: Vec<String>,
    pub catalog: Option<Rc<Vec<CatalogModel>>>,
    pub catalog_requested: bool,
    pub reading: Option<String>,
    pub host: Rc<Host>,
    /// Reports whose provenance stayed in the worker: api → the answers so far (path → answer,
    /// Null while asked).
    pub prov: BTreeMap<String, Shared<BTreeMap<String, Value>>>,
    /// The worker's comparisons of two protocols (the Protocols view), by (current, other).
    pub compares: Shared<BTreeMap<(String, String), Comparison>>,
}

/// A change to the settings panel's overrides.
pub type OverridesEdit = Box<dyn FnOnce(&mut Overrides)>;

pub enum Action {
    Worker(FromWorker),
    Reading(String),
    AddFiles(Collected),
    ReadFailed(String),
    Paste(String),
    Demo,
    Clear,
    /// An edit from the settings panel, applied to the overrides of the scenario on screen (not
    /// to the copy the panel rendered from).
    EditOverrides(OverridesEdit),
    SetApi(Option<String>),
    SetView(String),
    SetStage(usize),
    SetSelection(Option<String>),
    ToggleCompare,
    Hash(ViewState),
    /// Stop the assembly in progress (the worker is terminated and a new one started).
    Stop,
    /// Assemble again what was stopped or failed.
    Retry,
    /// The source of one body path of the current report, from the worker.
    AskProvenance(String),
    /// The core's comparison of (current api, other api), from the worker.
    Compare(String, String),
    WantCatalog,
    /// The scenario the URL parameters named (`embed::load`).
    Embedded(Scenario),
}

fn now() -> f64 {
    js_sys::Date::now()
}

impl AppState {
    fn new(host: Rc<Host>, view: ViewState) -> AppState {
        let scenario = crate::embed::initial_scenario().unwrap_or_else(Scenario::demo);
        let laid = scenario.lay_out();
        AppState {
            scenario: Shared::new(scenario),
            laid: Shared::new(laid),
            gen: 1,
            reports: Shared::new(BTreeMap::new()),
            native_api: None,
            failures: BTreeMap::new(),
            in_flight: None,
            busy: None,
            last: None,
            view,
            ready: false,
            builtin_tools: Vec::new(),
            catalog: None,
            catalog_requested: false,
            reading: None,
            host,
            prov: BTreeMap::new(),
            compares: Shared::new(BTreeMap::new()),
        }
    }

    /// The api whose report is on screen.
    pub fn current_api(&self) -> Option<String> {
        self.view.api.clone().or_else(|| self.native_api.clone())
    }

    pub fn current_report(&self) -> Option<Shared<Value>> {
        self.current_api()
            .and_then(|a| self.reports.get(&a).cloned())
    }

    fn set_scenario(&mut self, scenario: Scenario) {
        self.laid = Shared::new(scenario.lay_out());
        self.scenario = Shared::new(scenario);
        self.gen += 1;
        self.reports = Shared::new(BTreeMap::new());
        self.native_api = None;
        self.failures.clear();
        self.busy = None;
        self.prov.clear();
        self.compares = Shared::new(BTreeMap::new());
        if let Some(l) = self.host.link.borrow().as_ref() {
            l.cancel_joining();
            if self.ready {
                l.load(self.gen, &self.laid);
            }
        }
    }

    /// Terminates the worker (whatever it is doing) and starts a new one; what was being
    /// assembled is marked as stopped.
    fn stop(&mut self) {
        let Some((_, api)) = self.in_flight.take() else {
            return;
        };
        let key = api.clone().unwrap_or_default();
        if key.is_empty() {
            self.native_api = Some(String::new());
        }
        self.failures.insert(
            key,
            "stopped: you stopped the assembly (Assemble again to retry)".into(),
        );
        self.busy = None;
        self.ready = false;
        *self.host.link.borrow_mut() = None;
        self.fail_pending_compares("you stopped the worker before it answered");
        if let Err(e) = self.host.start() {
            self.failures.insert("worker".into(), e);
        }
    }

    fn set_compare(&mut self, key: (String, String), c: Comparison) {
        let mut map = (*self.compares).clone();
        map.insert(key, c);
        self.compares = Shared::new(map);
    }

    /// The comparisons still on their way are lost with the worker: each says why.
    fn fail_pending_compares(&mut self, why: &str) {
        if !self.compares.values().any(|c| *c == Comparison::Pending) {
            return;
        }
        let mut map = (*self.compares).clone();
        for c in map.values_mut().filter(|c| **c == Comparison::Pending) {
            *c = Comparison::Failed(format!("No comparison: {why}."));
        }
        self.compares = Shared::new(map);
    }

    fn prefetch_allowed(&self) -> bool {
        if self.view.compare {
            return true;
        }
        let native = self.native_api.as_ref().and_then(|a| self.reports.get(a));
        native.is_some_and(|r| {
            r.get("request")
                .and_then(|q| q.get_str("body"))
                .map(|b| b.len() as f64)
                .unwrap_or(0.0)
                < PREFETCH_LIMIT
        })
    }

    /// Asks the worker for the next report this scenario needs, if it is idle.
    fn pump(&mut self) {
        if !self.ready || matches!(self.in_flight, Some((g, _)) if g == self.gen) {
            return;
        }
        let has = |a: &str| self.reports.contains_key(a) || self.failures.contains_key(a);
        let want: Option<Option<String>> =
            if let Some(a) = self.view.api.clone().filter(|a| !has(a)) {
                Some(Some(a))
            } else if self.native_api.is_none() && !self.failures.contains_key("") {
                Some(None)
            } else if self.prefetch_allowed() {
                Api::ALL
                    .iter()
                    .map(|a| a.as_str())
                    .find(|a| !has(a))
                    .map(|a| Some(a.to_string()))
            } else {
                None
            };
        let Some(api) = want else { return };
        let link = self.host.link.borrow();
        let Some(link) = link.as_ref() else { return };
        link.assemble(self.gen, api.as_deref());
        let shown = api.is_none() || api == self.current_api();
        if shown {
            self.busy = Some(Busy {
                api: api.clone(),
                stage: "starting".into(),
                since: now(),
                done: 0.0,
            });
        }
        self.in_flight = Some((self.gen, api));
    }

    fn on_worker(&mut self, m: FromWorker) {
        match m {
            FromWorker::Ready { builtin_tools } => {
                self.ready = true;
                self.builtin_tools = builtin_tools;
                self.in_flight = None;
                if let Some(l) = self.host.link.borrow().as_ref() {
                    l.load(self.gen, &self.laid);
                    if self.catalog_requested && self.catalog.is_none() {
                        l.catalog();
                    }
                    // Asked for while the worker was starting.
                    for ((a, b), _) in self
                        .compares
                        .iter()
                        .filter(|(_, c)| **c == Comparison::Pending)
                    {
                        l.compare(self.gen, a, b);
                    }
                }
            }
            FromWorker::Progress {
                gen,
                api,
                stage,
                done,
            } => {
                if gen == self.gen {
                    if let Some(b) = self.busy.as_mut().filter(|b| b.api == api) {
                        b.stage = stage;
                        b.done = done;
                    }
                }
            }
            FromWorker::Report {
                gen,
                api,
                report,
                parsed_body,
                provenance_in_worker,
                bytes,
                ms,
                memory_bytes,
            } => {
                if self.in_flight == Some((gen, api.clone())) {
                    self.in_flight = None;
                }
                if gen != self.gen {
                    return;
                }
                if self.busy.as_ref().is_some_and(|b| b.api == api) {
                    self.busy = None;
                }
                let key = api.clone().unwrap_or_else(|| {
                    report
                        .get("model")
                        .and_then(|m| m.get_str("api"))
                        .unwrap_or("")
                        .to_string()
                });
                if api.is_none() {
                    self.native_api = Some(key.clone());
                }
                if api.is_none() || Some(&key) == self.current_api().as_ref() {
                    self.last = Some(Timing {
                        api: key.clone(),
                        ms,
                        memory_bytes,
                        json_bytes: bytes,
                    });
                }
                crate::views::prime_parsed_body(&report, parsed_body);
                if provenance_in_worker {
                    self.prov.insert(key.clone(), Shared::new(BTreeMap::new()));
                } else {
                    self.prov.remove(&key);
                }
                let mut map = (*self.reports).clone();
                map.insert(key, report);
                self.reports = Shared::new(map);
            }
            FromWorker::BadReport { gen, api, error } => {
                if self.in_flight == Some((gen, api.clone())) {
                    self.in_flight = None;
                }
                if gen != self.gen {
                    return;
                }
                if self.busy.as_ref().is_some_and(|b| b.api == api) {
                    self.busy = None;
                }
                self.failures.insert(api.clone().unwrap_or_default(), error);
                if api.is_none() {
                    self.native_api = Some(String::new());
                }
            }
            FromWorker::Provenance {
                gen,
                api,
                path,
                answer,
            } => {
                if gen == self.gen {
                    if let Some(m) = self.prov.get_mut(&api) {
                        let mut map = (**m).clone();
                        map.insert(path, answer);
                        *m = Shared::new(map);
                    }
                }
            }
            FromWorker::Compare { gen, a, b, answer } => {
                if gen == self.gen && self.compares.contains_key(&(a.clone(), b.clone())) {
                    let c = match answer {
                        Ok(v) => Comparison::Ready(Shared::new(v)),
                        Err(e) => Comparison::Failed(e),
                    };
                    self.set_compare((a, b), c);
                }
            }
            FromWorker::Catalog { json } => {
                let list = js::parse(&json)
                    .ok()
                    .and_then(|v| v.as_array().cloned())
                    .unwrap_or_default();
                let models = list
                    .iter()
                    .filter_map(|m| {
                        Some(CatalogModel {
                            reference: m.get_str("ref")?.to_string(),
                            name: m.get_str("name").unwrap_or("").to_string(),
                            api: m.get_str("api").unwrap_or("").to_string(),
                        })
                    })
                    .collect();
                self.catalog = Some(Rc::new(models));
            }
            FromWorker::Crashed { message } => {
                // With no assembly in flight, it was a comparison that stopped the worker.
                let comparing = self.in_flight.is_none()
                    && self.compares.values().any(|c| *c == Comparison::Pending);
                self.fail_pending_compares(&format!("the worker stopped ({message})"));
                if !comparing {
                    let key = match &self.in_flight {
                        Some((_, Some(a))) => a.clone(),
                        _ => String::new(),
                    };
                    if key.is_empty() {
                        self.native_api = Some(String::new());
                    }
                    self.failures
                        .insert(key, format!("the assembly stopped: {message}"));
                }
                self.in_flight = None;
                self.busy = None;
                self.ready = false;
                if let Err(e) = self.host.start() {
                    self.failures.insert("worker".into(), e);
                }
            }
        }
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut s = (*self).clone();
        match action {
            Action::Worker(m) => s.on_worker(m),
            Action::Reading(what) => s.reading = Some(what),
            Action::ReadFailed(e) => {
                s.reading = None;
                let mut sc = (*s.scenario).clone();
                sc.notes.push(Diagnostic::error("dropped files", None, e));
                s.set_scenario(sc);
            }
            Action::AddFiles(c) => {
                s.reading = None;
                if c.files.is_empty() && c.skipped.is_empty() && c.notes.is_empty() {
                    return self;
                }
                // Loose files added to the bundled demo start a scenario of their own; when nothing
                // could be used (an archive that did not open), what is on screen stays, with the notes.
                let replace_demo = !c.files.is_empty()
                    && s.scenario.case.is_some()
                    && s.scenario.name.starts_with("demo");
                let mut sc = if replace_demo {
                    Scenario::default()
                } else {
                    (*s.scenario).clone()
                };
                sc.add_collected(c, now());
                s.view.stage = 0;
                s.view.selection = None;
                s.set_scenario(sc);
            }
            Action::Paste(text) => {
                let mut sc = if s.scenario.case.is_some() && s.scenario.name.starts_with("demo") {
                    Scenario::default()
                } else {
                    (*s.scenario).clone()
                };
                sc.add_pasted_session(text, now());
                s.set_scenario(sc);
            }
            Action::Demo => s.set_scenario(Scenario::demo()),
            Action::Clear => s.set_scenario(Scenario {
                name: "empty".into(),
                now_ms: now(),
                ..Default::default()
            }),
            Action::EditOverrides(edit) => {
                let mut overrides = s.scenario.overrides.clone();
                edit(&mut overrides);
                // Nothing changed: keep the reports (an unchanged scenario is not assembled again).
                if overrides == s.scenario.overrides {
                    return self;
                }
                let mut sc = (*s.scenario).clone();
                sc.overrides = overrides;
                s.set_scenario(sc);
            }
            Action::SetApi(api) => {
                s.view.api = api;
                s.view.selection = None;
                let stages = s
                    .current_report()
                    .and_then(|r| r.get("stages").and_then(Value::as_array).map(Vec::len))
                    .unwrap_or(0);
                if stages > 0 && s.view.stage >= stages {
                    s.view.stage = stages - 1;
                }
            }
            Action::SetView(v) => s.view.view = Some(v),
            Action::SetStage(i) => s.view.stage = i,
            Action::SetSelection(sel) => {
                // Choosing a finding's subject shows it where it is shown best.
                if matches!(s.view.view.as_deref(), Some("findings") | Some("overview")) {
                    if let Some(v) = sel.as_deref().and_then(crate::views::view_for_selection) {
                        s.view.view = Some(v.to_string());
                    }
                }
                s.view.selection = sel;
            }
            Action::ToggleCompare => s.view.compare = !s.view.compare,
            Action::Hash(v) => s.view = v,
            Action::Stop => s.stop(),
            Action::Retry => {
                let stopped: Vec<String> = s
                    .failures
                    .keys()
                    .filter(|k| *k != "worker")
                    .cloned()
                    .collect();
                for k in stopped {
                    s.failures.remove(&k);
                }
                if s.native_api.as_deref() == Some("") {
                    s.native_api = None;
                }
            }
            Action::AskProvenance(path) => {
                let api = s.current_api().unwrap_or_default();
                if let Some(m) = s.prov.get_mut(&api).filter(|m| !m.contains_key(&path)) {
                    let mut map = (**m).clone();
                    map.insert(path.clone(), Value::Null);
                    *m = Shared::new(map);
                    if let (true, Some(l)) = (s.ready, s.host.link.borrow().as_ref()) {
                        l.provenance(s.gen, &api, &path);
                    }
                }
            }
            Action::Compare(a, b) => {
                let key = (a, b);
                if matches!(s.compares.get(&key), None | Some(Comparison::Failed(_))) {
                    if let (true, Some(l)) = (s.ready, s.host.link.borrow().as_ref()) {
                        l.compare(s.gen, &key.0, &key.1);
                    }
                    s.set_compare(key, Comparison::Pending);
                }
            }
            Action::Embedded(sc) => s.set_scenario(sc),
            Action::WantCatalog => {
                if !s.catalog_requested {
                    s.catalog_requested = true;
                    if let (true, Some(l)) = (s.ready, s.host.link.borrow().as_ref()) {
                        l.catalog();
                    }
                }
            }
        }
        s.pump();
        Rc::new(s)
    }
}

// ---------------------------------------------------------------------------------------------
// Small pieces.

fn num(v: Option<&Value>) -> f64 {
    v.and_then(Value::as_f64).unwrap_or(0.0)
}

fn fmt_bytes(b: f64) -> String {
    if b >= 1_048_576.0 {
        format!("{:.1} MB", b / 1_048_576.0)
    } else if b >= 1024.0 {
        format!("{:.1} kB", b / 1024.0)
    } else {
        format!("{b} B")
    }
}

#[derive(Properties, PartialEq)]
struct StatsStripProps {
    report: Option<Shared<Value>>,
}

/// The compact character accounting in the header (UTF-16 code units, as pi counts).
#[function_component(StatsStrip)]
fn stats_strip(p: &StatsStripProps) -> Html {
    let stats = p
        .report
        .as_ref()
        .and_then(|r| r.get("stats").cloned())
        .filter(|s| !s.is_null());
    let Some(stats) = stats else {
        return html! { <div class="stats-strip empty" aria-label="character accounting">{"no request"}</div> };
    };
    let part = |key: &str| num(stats.get(key).and_then(|x| x.get("chars")));
    let (sp, tl, hi) = (part("systemPrompt"), part("tools"), part("history"));
    let total = (sp + tl + hi).max(1.0);
    let item = |cls: &'static str, label: &'static str, id: &'static str, n: f64| {
        html! {
            <div class={classes!("stat", cls)} title={format!("{label}: {n} characters, {:.1}% of the three", n / total * 100.0)}>
                <span class="swatch" aria-hidden="true"></span>
                <span class="stat-label">{label}</span>
                <span class="stat-num" data-testid={id}>{n}</span>
                <span class="stat-share">{format!("{:.0}%", n / total * 100.0)}</span>
            </div>
        }
    };
    html! {
        <div class="stats-strip" aria-label="where the characters go">
            <div class="share-bar" role="img" aria-label={format!("system prompt {:.0}%, tools {:.0}%, history {:.0}%", sp / total * 100.0, tl / total * 100.0, hi / total * 100.0)}>
                <span class="seg system" style={format!("width:{:.2}%", sp / total * 100.0)}></span>
                <span class="seg tools" style={format!("width:{:.2}%", tl / total * 100.0)}></span>
                <span class="seg history" style={format!("width:{:.2}%", hi / total * 100.0)}></span>
            </div>
            { item("system", "system", "stat-system-chars", sp) }
            { item("tools", "tools", "stat-tools-chars", tl) }
            { item("history", "history", "stat-history-chars", hi) }
        </div>
    }
}

/// The views the other half of the app provides (`views::view_nav`), or a placeholder.
fn view_nav() -> Vec<(&'static str, &'static str)> {
    crate::views::view_nav()
}

#[derive(Properties, PartialEq)]
struct DiagnosticsProps {
    notes: Vec<Diagnostic>,
    report: Option<Shared<Value>>,
    failure: Option<String>,
    api: String,
    laid: Shared<Laid>,
}

fn diag_row(
    laid: &Laid,
    severity: &str,
    file: &str,
    line: Option<f64>,
    message: &str,
    skipped: Option<&str>,
) -> Html {
    // A dropped file is named as the user dropped it; the title says where it was laid.
    let (shown, title) = match laid.origins.get(file) {
        Some(original) => (original.as_str(), format!("laid out at {file}")),
        None => (file, String::new()),
    };
    let loc = match line {
        Some(l) => format!("{shown}:{l}"),
        None => shown.to_string(),
    };
    html! {
        <li class={classes!("diag", severity.to_string())}>
            <span class="sev">{severity}</span>
            <code class="where" title={title}>{loc}</code>
            <span class="what">{message}</span>
            if let Some(s) = skipped { <span class="skipped">{format!("skipped: {s}")}</span> }
        </li>
    }
}

/// Problems with the inputs: recognising the files, then the assembly's own.
#[function_component(DiagnosticsPanel)]
fn diagnostics_panel(p: &DiagnosticsProps) -> Html {
    let from_report: Vec<Value> = p
        .report
        .as_ref()
        .and_then(|r| r.get("diagnostics").and_then(Value::as_array).cloned())
        .unwrap_or_default();
    let count = p.notes.len() + from_report.len() + p.failure.iter().count();
    html! {
        <section class="panel diagnostics-panel" aria-labelledby="diag-h">
            <h2 id="diag-h">{"Diagnostics"}<span class="count">{count}</span></h2>
            <ul class="diagnostics" data-testid="diagnostics">
                if let Some(f) = &p.failure { { diag_row(&p.laid, "error", &p.api, None, f, None) } }
                { for p.notes.iter().map(|d| diag_row(&p.laid, d.severity.as_str(), &d.file, d.line.map(f64::from), &d.message, d.skipped.as_deref())) }
                { for from_report.iter().map(|d| diag_row(&p.laid, d.get_str("severity").unwrap_or("info"), d.get_str("file").unwrap_or(""), d.get("line").and_then(Value::as_f64), d.get_str("message").unwrap_or(""), d.get_str("skipped"))) }
                if count == 0 { <li class="diag none">{"No problems with the inputs."}</li> }
            </ul>
        </section>
    }
}

fn input_value(e: &Event) -> String {
    let t = e.target();
    if let Some(i) = t
        .as_ref()
        .and_then(|t| t.dyn_ref::<web_sys::HtmlInputElement>())
    {
        return i.value();
    }
    if let Some(i) = t
        .as_ref()
        .and_then(|t| t.dyn_ref::<web_sys::HtmlTextAreaElement>())
    {
        return i.value();
    }
    if let Some(i) = t
        .as_ref()
        .and_then(|t| t.dyn_ref::<web_sys::HtmlSelectElement>())
    {
        return i.value();
    }
    String::new()
}

#[derive(Properties, PartialEq)]
struct TextFieldProps {
    id: AttrValue,
    /// The committed value: what the scenario's overrides say.
    value: AttrValue,
    placeholder: AttrValue,
    #[prop_or_default]
    multiline: bool,
    /// A `<datalist>` id (inputs only).
    #[prop_or_default]
    list: Option<AttrValue>,
    /// The value, when the field's `change` event commits it (Enter in an input, leaving the field).
    on_commit: Callback<String>,
    #[prop_or_default]
    onfocus: Option<Callback<FocusEvent>>,
}

/// A text input or textarea that keeps what is typed (its draft) until it is committed.
///
/// Yew sets a field's DOM value whenever it differs from the value rendered, so a field rendered
/// straight from the committed value lost the text typed so far at any render of the panel —
/// and the page renders each time a background report arrives from the worker. The draft is
/// rendered instead while there is one; it is dropped when the committed value changes (the edit
/// landed, or a reset or another scenario replaced it).
#[function_component]
fn TextField(p: &TextFieldProps) -> Html {
    let draft = use_state_eq(|| None::<String>);
    {
        let draft = draft.clone();
        use_effect_with(p.value.clone(), move |_| {
            draft.set(None);
            || ()
        });
    }
    let oninput = {
        let draft = draft.clone();
        Callback::from(move |e: InputEvent| draft.set(Some(input_value(&e))))
    };
    let onchange = {
        let cb = p.on_commit.clone();
        Callback::from(move |e: Event| cb.emit(input_value(&e)))
    };
    let value: AttrValue = (*draft)
        .clone()
        .map(AttrValue::from)
        .unwrap_or_else(|| p.value.clone());
    let onfocus = p.onfocus.clone();
    if p.multiline {
        html! { <textarea id={p.id.clone()} rows="3" spellcheck="false" {value} placeholder={p.placeholder.clone()} {oninput} {onchange} {onfocus} /> }
    } else {
        html! { <input id={p.id.clone()} type="text" list={p.list.clone()} spellcheck="false" {value} placeholder={p.placeholder.clone()} {oninput} {onchange} {onfocus} /> }
    }
}

#[derive(Properties, PartialEq)]
struct SettingsProps {
    overrides: Overrides,
    base: crate::state::EnvView,
    report: Option<Shared<Value>>,
    builtin_tools: Vec<String>,
    catalog: Option<Rc<Vec<CatalogModel>>>,
    /// Edits are applied by the reducer to the overrides on screen then (never to this render's
    /// copy: two edits in a row both count).
    on_edit: Callback<OverridesEdit>,
    on_want_catalog: Callback<()>,
}

const THINKING: [&str; 6] = ["off", "minimal", "low", "medium", "high", "xhigh"];

/// The editable settings: they become env.json values and pi flags of the laid-out case.
#[function_component(SettingsPanel)]
fn settings_panel(p: &SettingsProps) -> Html {
    let o = &p.overrides;
    // A field's committed text → an edit of the overrides.
    let commit = |set: fn(&mut Overrides, String)| {
        let cb = p.on_edit.clone();
        Callback::from(move |v: String| cb.emit(Box::new(move |o: &mut Overrides| set(o, v))))
    };
    let field = |label: &'static str,
                 id: &'static str,
                 value: Option<String>,
                 placeholder: String,
                 set: fn(&mut Overrides, String)| {
        html! {
            <label class="field" for={id}><span>{label}</span>
                <TextField id={id} value={value.unwrap_or_default()} placeholder={placeholder} on_commit={commit(set)} />
            </label>
        }
    };
    let textarea = |label: &'static str,
                    id: &'static str,
                    value: Option<String>,
                    placeholder: &'static str,
                    set: fn(&mut Overrides, String)| {
        html! {
            <label class="field" for={id}><span>{label}</span>
                <TextField id={id} multiline=true value={value.unwrap_or_default()} placeholder={placeholder} on_commit={commit(set)} />
            </label>
        }
    };
    /// Blank text = as the scenario says.
    fn text(v: String) -> Option<String> {
        (!v.trim().is_empty()).then_some(v)
    }
    let report_model = p
        .report
        .as_ref()
        .and_then(|r| r.get("model").cloned())
        .filter(|m| !m.is_null());
    let model_placeholder = report_model
        .as_ref()
        .map(|m| {
            format!(
                "{}/{}",
                m.get_str("provider").unwrap_or(""),
                m.get_str("id").unwrap_or("")
            )
        })
        .unwrap_or_else(|| p.base.model.clone());
    let want = p.on_want_catalog.clone();
    let on_model_focus = Callback::from(move |_: FocusEvent| want.emit(()));
    let on_thinking = {
        let cb = p.on_edit.clone();
        Callback::from(move |e: Event| {
            let v = input_value(&e);
            cb.emit(Box::new(move |o: &mut Overrides| {
                o.thinking = (!v.is_empty()).then_some(v)
            }));
        })
    };
    // Tools: pi's built-ins, then whatever else the report has (extension tools).
    let active: Vec<String> = p
        .report
        .as_ref()
        .and_then(|r| {
            r.get("tools").and_then(Value::as_array).map(|a| {
                a.iter()
                    .filter_map(|t| t.get_str("name").map(String::from))
                    .collect()
            })
        })
        .unwrap_or_default();
    let mut candidates: Vec<String> = p.builtin_tools.clone();
    for t in active.iter().chain(o.tools.iter().flatten()) {
        if !candidates.contains(t) {
            candidates.push(t.clone());
        }
    }
    let active_set: BTreeSet<String> = o
        .tools
        .clone()
        .unwrap_or_else(|| active.clone())
        .into_iter()
        .collect();
    let tool_box = |name: &String| {
        let (cb, name2, cands, shown) = (
            p.on_edit.clone(),
            name.clone(),
            candidates.clone(),
            active.clone(),
        );
        let onchange = Callback::from(move |_: Event| {
            let (name2, cands, shown) = (name2.clone(), cands.clone(), shown.clone());
            cb.emit(Box::new(move |o: &mut Overrides| {
                let mut set: BTreeSet<String> =
                    o.tools.clone().unwrap_or(shown).into_iter().collect();
                if !set.remove(&name2) {
                    set.insert(name2);
                }
                o.tools = Some(cands.iter().filter(|c| set.contains(*c)).cloned().collect());
            }));
        });
        html! { <label class="tool-check"><input type="checkbox" checked={active_set.contains(name)} {onchange} /><span>{name}</span></label> }
    };
    let reset = {
        let cb = p.on_edit.clone();
        Callback::from(move |_| cb.emit(Box::new(|o: &mut Overrides| *o = Overrides::default())))
    };
    let reset_tools = {
        let cb = p.on_edit.clone();
        Callback::from(move |_| cb.emit(Box::new(|o: &mut Overrides| o.tools = None)))
    };
    let prompt_value = o.prompt.clone().unwrap_or_else(|| p.base.prompt.clone());
    html! {
        <section class="panel settings" aria-labelledby="settings-h">
            <h2 id="settings-h">{"Settings"}<button class="link" onclick={reset} title="Back to what the scenario says">{"reset"}</button></h2>
            <label class="field" for="set-model"><span>{"Model"}</span>
                <TextField id="set-model" list={Some(AttrValue::from("model-list"))} value={o.model.clone().unwrap_or_default()} placeholder={model_placeholder}
                    on_commit={commit(|o, v| o.model = text(v).map(|v| v.trim().to_string()))} onfocus={Some(on_model_focus)} />
            </label>
            <datalist id="model-list">
                { for p.base.custom_models.iter().map(|m| html! { <option value={m.clone()}>{"models.json"}</option> }) }
                { for p.catalog.iter().flat_map(|c| c.iter()).map(|m| html! { <option value={m.reference.clone()}>{format!("{} · {}", m.name, m.api)}</option> }) }
            </datalist>
            <label class="field" for="set-thinking"><span>{"Thinking level"}</span>
                <select id="set-thinking" onchange={on_thinking}>
                    <option value="" selected={o.thinking.is_none()}>{format!("as the scenario says ({})", if p.base.thinking.is_empty() { "pi's default" } else { p.base.thinking.as_str() })}</option>
                    { for THINKING.iter().map(|t| html! { <option value={*t} selected={o.thinking.as_deref() == Some(*t)}>{*t}</option> }) }
                </select>
            </label>
            { field("Working directory (cwd)", "set-cwd", o.cwd.clone(), p.base.cwd.clone(), |o, v| o.cwd = text(v)) }
            { field("Agent dir", "set-agent-dir", o.agent_dir.clone(), p.base.agent_dir.clone(), |o, v| o.agent_dir = text(v)) }
            { field("pi package dir", "set-pi-dir", o.pi_package_dir.clone(), p.base.pi_package_dir.clone(), |o, v| o.pi_package_dir = text(v)) }
            <fieldset class="tools-set">
                <legend>{"Active tools"}if o.tools.is_some() { <button class="link" onclick={reset_tools}>{"as the scenario says"}</button> }</legend>
                { for candidates.iter().map(tool_box) }
            </fieldset>
            { textarea("Custom system prompt (--system-prompt)", "set-system", o.system_prompt.clone(), "pi's own prompt", |o, v| o.system_prompt = Some(v)) }
            { textarea("Appended system prompt (--append-system-prompt)", "set-append", o.append_system_prompt.clone(), "nothing appended", |o, v| o.append_system_prompt = Some(v)) }
            { textarea("Next prompt", "set-prompt", Some(prompt_value), "empty: continue after the tool results (no new user message)", |o, v| o.prompt = Some(v)) }
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct InputsProps {
    scenario: Shared<Scenario>,
    laid: Shared<Laid>,
    reading: Option<String>,
    dispatch: UseReducerDispatcher<AppState>,
}

fn read_into(
    dispatch: UseReducerDispatcher<AppState>,
    what: String,
    fut: impl std::future::Future<Output = Result<Collected, String>> + 'static,
) {
    dispatch.dispatch(Action::Reading(what));
    wasm_bindgen_futures::spawn_local(async move {
        match fut.await {
            Ok(c) => dispatch.dispatch(Action::AddFiles(c)),
            Err(e) => dispatch.dispatch(Action::ReadFailed(e)),
        }
    });
}

/// Drop, choose, paste, export.
#[function_component(InputsPanel)]
fn inputs_panel(p: &InputsProps) -> Html {
    let pasting = use_state(|| false);
    let paste_ref = use_node_ref();
    let on_files = {
        let d = p.dispatch.clone();
        Callback::from(move |e: Event| {
            let Some(input) = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            else {
                return;
            };
            if let Some(files) = input.files() {
                read_into(
                    d.clone(),
                    format!("reading {} file(s)", files.length()),
                    inputs::collect_file_list(&files),
                );
            }
            input.set_value("");
        })
    };
    let toggle_paste = {
        let pasting = pasting.clone();
        Callback::from(move |_| pasting.set(!*pasting))
    };
    let use_paste = {
        let (d, r, pasting) = (p.dispatch.clone(), paste_ref.clone(), pasting.clone());
        Callback::from(move |_| {
            if let Some(t) = r.cast::<web_sys::HtmlTextAreaElement>() {
                let text = t.value();
                if !text.trim().is_empty() {
                    d.dispatch(Action::Paste(text));
                    pasting.set(false);
                }
            }
        })
    };
    let export = {
        let (laid, name) = (p.laid.clone(), p.scenario.name.clone());
        Callback::from(move |_| {
            let folder: String = name
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                        c
                    } else {
                        '-'
                    }
                })
                .collect::<String>()
                .trim_matches('-')
                .to_string();
            let folder = if folder.is_empty() {
                "ctxlens-case".to_string()
            } else {
                folder
            };
            let entries: Vec<(String, &[u8])> = laid
                .files
                .iter()
                .map(|(k, v)| (format!("{folder}/{k}"), v.as_slice()))
                .collect();
            let zip = inputs::zip::write(entries.iter().map(|(k, v)| (k.as_str(), *v)));
            if let Err(e) = inputs::download(&format!("{folder}.zip"), &zip, "application/zip") {
                web_sys::console::error_1(&e.into());
            }
        })
    };
    let demo = {
        let d = p.dispatch.clone();
        Callback::from(move |_| d.dispatch(Action::Demo))
    };
    let clear = {
        let d = p.dispatch.clone();
        Callback::from(move |_| d.dispatch(Action::Clear))
    };
    let sc = &p.scenario;
    let case_summary = sc.case.as_ref().map(|c| {
        let has = |k: &str| c.contains_key(k);
        let count = |pre: &str| c.keys().filter(|k| k.starts_with(pre)).count();
        let mut parts = vec![format!("{} files", c.len())];
        if has("session.jsonl") {
            parts.push("session".into());
        }
        if has("tools.json") {
            parts.push("tools.json".into());
        }
        parts.push(format!("agent/ {}", count("agent/")));
        parts.push(format!("fs/ {}", count("fs/")));
        parts.join(" · ")
    });
    html! {
        <section class="panel inputs" aria-labelledby="inputs-h">
            <h2 id="inputs-h">{"Inputs"}</h2>
            <div class="drop-zone" data-testid="drop-zone">
                <p class="drop-hint">{"Drop files or folders anywhere: a session (.jsonl), AGENTS.md / CLAUDE.md with their folders, SKILL.md, a tool set, models.json, settings.json, images — or a whole case folder, or a .zip of one (as the export writes)."}</p>
                <div class="buttons">
                    <label class="button" for="file-input">{"Choose files…"}</label>
                    <input id="file-input" class="visually-hidden" type="file" multiple=true data-testid="file-input" onchange={on_files.clone()} />
                    <label class="button" for="folder-input">{"Open a folder or case…"}</label>
                    <input id="folder-input" class="visually-hidden" type="file" webkitdirectory=true multiple=true data-testid="folder-input" onchange={on_files} />
                    <button class="button" onclick={toggle_paste} aria-expanded={(*pasting).to_string()}>{"Paste a session"}</button>
                </div>
                if *pasting {
                    <div class="paste">
                        <textarea ref={paste_ref} rows="5" spellcheck="false" aria-label="session JSONL" placeholder="Paste the lines of a pi session (.jsonl)" />
                        <button class="button primary" onclick={use_paste}>{"Use this session"}</button>
                    </div>
                }
                if let Some(r) = &p.reading { <p class="reading" role="status"><span class="spinner" aria-hidden="true"></span>{r}</p> }
            </div>
            <div class="loaded">
                if let Some(s) = case_summary { <p class="case-line"><strong>{"case folder"}</strong>{" "}{s}</p> }
                if !sc.loose.is_empty() {
                    <ul class="files">
                        { for sc.loose.iter().map(|f| html! { <li><code title={f.path.clone()}>{&f.path}</code><span class="kind">{f.kind.label()}</span></li> }) }
                    </ul>
                }
                if sc.case.is_none() && sc.loose.is_empty() { <p class="muted">{"Nothing loaded: pi would start a new session."}</p> }
            </div>
            <div class="buttons">
                <button class="button" onclick={export} title="Download the scenario as a case folder (zip) the CLI reads">{"Export case (.zip)"}</button>
                <button class="button" onclick={demo}>{"Demo"}</button>
                <button class="button" onclick={clear}>{"Clear"}</button>
            </div>
        </section>
    }
}

fn is_editable(target: Option<web_sys::EventTarget>) -> bool {
    target
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|el| {
            let tag = el.tag_name().to_ascii_lowercase();
            tag == "input"
                || tag == "textarea"
                || tag == "select"
                || el.get_attribute("contenteditable").is_some()
        })
}

/// Whether pasted text is a pi session.
fn looks_like_session(text: &str) -> bool {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .and_then(|l| js::parse(l).ok())
        .is_some_and(|v| v.get_str("type") == Some("session"))
}

fn api_label(api: &str) -> &str {
    match api.parse::<Api>() {
        Ok(a) => a.label(),
        Err(_) => api,
    }
}

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
            crate::embed::start(Callback::from(move |sc| d.dispatch(Action::Embedded(sc))));
            || ()
        });
    }

    // Keys, the hash, pasting a session.
    {
        let d = dispatch.clone();
        use_effect_with((), move |_| {
            let window = web_sys::window();
            let doc = window.as_ref().and_then(|w| w.document());
            let d1 = d.clone();
            let on_hash = Closure::<dyn FnMut()>::new(move || {
                let hash = web_sys::window()
                    .and_then(|w| w.location().hash().ok())
                    .unwrap_or_default();
                d1.dispatch(Action::Hash(ViewState::from_hash(&hash)));
            });
            let d2 = d.clone();
            let on_paste = Closure::<dyn FnMut(web_sys::ClipboardEvent)>::new(
                move |e: web_sys::ClipboardEvent| {
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
                },
            );
            if let Some(w) = &window {
                let _ = w.add_event_listener_with_callback(
                    "hashchange",
                    on_hash.as_ref().unchecked_ref(),
                );
            }
            if let Some(doc) = &doc {
                let _ = doc
                    .add_event_listener_with_callback("paste", on_paste.as_ref().unchecked_ref());
            }
            move || {
                if let Some(w) = &window {
                    let _ = w.remove_event_listener_with_callback(
                        "hashchange",
                        on_hash.as_ref().unchecked_ref(),
                    );
                }
                if let Some(doc) = &doc {
                    let _ = doc.remove_event_listener_with_callback(
                        "paste",
                        on_paste.as_ref().unchecked_ref(),
                    );
                }
                drop(on_hash);
                drop(on_paste);
            }
        });
    }

    let report = state.current_report();
    let stage_count = report
        .as_ref()
        .and_then(|r| r.get("stages").and_then(Value::as_array).map(Vec::len))
        .unwrap_or(0);
    let stage = state.view.stage.min(stage_count.saturating_sub(1));
    let on_stage = {
        let d = dispatch.clone();
        Callback::from(move |i: usize| d.dispatch(Action::SetStage(i)))
    };

    // ←/→ step through the pipeline (not while typing).
    {
        let on_stage = on_stage.clone();
        use_effect_with((stage, stage_count), move |&(stage, count)| {
            let doc = web_sys::window().and_then(|w| w.document());
            let on_key = Closure::<dyn FnMut(web_sys::KeyboardEvent)>::new(
                move |e: web_sys::KeyboardEvent| {
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
                },
            );
            if let Some(doc) = &doc {
                let _ = doc
                    .add_event_listener_with_callback("keydown", on_key.as_ref().unchecked_ref());
            }
            move || {
                if let Some(doc) = &doc {
                    let _ = doc.remove_event_listener_with_callback(
                        "keydown",
                        on_key.as_ref().unchecked_ref(),
                    );
                }
                drop(on_key);
            }
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
    let ondrop = {
        let (dragging, d) = (dragging.clone(), dispatch.clone());
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            dragging.set(false);
            if let Some(dt) = e.data_transfer() {
                read_into(
                    d.clone(),
                    "reading the dropped files".into(),
                    inputs::collect_drop(&dt),
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
        report: report.clone().unwrap_or_else(|| Shared::new(Value::Null)),
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
    };
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
    let stage_titles: Vec<String> = report
        .as_ref()
        .and_then(|r| {
            r.get("stages").and_then(Value::as_array).map(|a| {
                a.iter()
                    .map(|s| s.get_str("title").unwrap_or("").to_string())
                    .collect()
            })
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
                <span class="progress-label" data-testid="progress-label">{format!("{}: {}… {pct}%", b.api.clone().unwrap_or_else(|| "assembling".into()), b.stage)}</span>
                <button class="button stop" data-testid="stop" onclick={stop} title="Stop: terminate the worker">{"Stop"}</button>
            </div>
        }
    } else if let Some(t) = &state.last {
        // The page's own wasm memory, for measurements (the JS heap does not count it).
        let page_memory = wasm_bindgen::memory()
            .dyn_into::<js_sys::WebAssembly::Memory>()
            .ok()
            .and_then(|m| js_sys::Reflect::get(&m.buffer(), &"byteLength".into()).ok())
            .and_then(|v| v.as_f64())
            .unwrap_or(0.0);
        html! { <div class="status" role="status" data-testid="status" data-page-memory={page_memory.to_string()} title="time in the worker, its wasm memory, and the size of what the page read">{format!("{} in {:.0} ms · worker {} · report {}", if t.api.is_empty() { "no model:" } else { api_label(&t.api) }, t.ms, fmt_bytes(t.memory_bytes), fmt_bytes(t.json_bytes as f64))}</div> }
    } else {
        html! { <div class="status busy" role="status"><span class="spinner" aria-hidden="true"></span>{"starting the worker…"}</div> }
    };

    html! {
        <div class={classes!("app", dragging.then_some("dragging"))} {ondragover} {ondragleave} {ondrop}>
            if crate::embed::active() { <crate::embed::EmbedBar name={state.scenario.name.clone()} api={current_api.clone()} /> }
            <header class="top">
                <div class="brand">
                    <h1>{"ctxlens"}</h1>
                    <span class="scenario" title="the scenario on screen">{&state.scenario.name}</span>
                </div>
                <StatsStrip report={report.clone()} />
                { status }
                <nav class="protocols" aria-label="protocol">
                    <div role="tablist" class="tabs">{ for Api::ALL.iter().map(|a| tab(a.as_str())) }</div>
                    <button class={classes!("compare-toggle", state.view.compare.then_some("on"))} aria-pressed={state.view.compare.to_string()} data-testid="compare-toggle" onclick={compare}
                        title="Put two protocols side by side">{"Compare"}</button>
                </nav>
            </header>
            <aside class="stepper" aria-label="pipeline">
                <h2>{"Pipeline"}</h2>
                <div class="step-buttons">
                    <button class="button" data-testid="stage-prev" onclick={prev} disabled={stage == 0} aria-keyshortcuts="ArrowLeft" title="previous stage (←)">{"← Prev"}</button>
                    <span class="step-count">{format!("{} / {}", if stage_count == 0 { 0 } else { stage + 1 }, stage_count)}</span>
                    <button class="button" data-testid="stage-next" onclick={next} disabled={stage + 1 >= stage_count} aria-keyshortcuts="ArrowRight" title="next stage (→)">{"Next →"}</button>
                </div>
                <ol class="stages">
                    { for stage_titles.iter().enumerate().map(|(i, t)| {
                        let on_stage = on_stage.clone();
                        html! { <li><button class={classes!("stage-link", (i == stage).then_some("current"))} aria-current={(i == stage).then_some("step")} onclick={Callback::from(move |_| on_stage.emit(i))}>{t}</button></li> }
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
                <div class="view-area" data-api={current_api.clone()}
                    data-state={if report.is_some() { "ready" } else if failure.is_some() { "failed" } else { "loading" }}
                    data-request={has_request.map(|h| h.to_string())}>
                    if report.is_some() {
                        <crate::views::ViewSwitch view={view_key.clone()} props={props} />
                    } else if failure.is_some() {
                        <p class="muted">{"No report for this protocol: see the diagnostics."}</p>
                        <button class="button" data-testid="retry" onclick={{ let d = dispatch.clone(); Callback::from(move |_| d.dispatch(Action::Retry)) }}>{"Assemble again"}</button>
                    } else {
                        <p class="muted loading"><span class="spinner" aria-hidden="true"></span>{"assembling…"}</p>
                    }
                </div>
            </main>
            <aside class="side">
                <InputsPanel scenario={state.scenario.clone()} laid={state.laid.clone()} reading={state.reading.clone()} dispatch={dispatch.clone()} />
                <SettingsPanel overrides={state.scenario.overrides.clone()} base={state.laid.base.clone()} report={report.clone()} builtin_tools={state.builtin_tools.clone()}
                    catalog={state.catalog.clone()}
                    on_edit={{ let d = dispatch.clone(); Callback::from(move |e| d.dispatch(Action::EditOverrides(e))) }}
                    on_want_catalog={{ let d = dispatch.clone(); Callback::from(move |_| d.dispatch(Action::WantCatalog)) }} />
            </aside>
            <div class="bottom">
                <DiagnosticsPanel notes={notes} report={report.clone()} failure={failure} api={current_api.clone()} laid={state.laid.clone()} />
            </div>
            if *dragging { <div class="drop-overlay" aria-hidden="true"><p>{"Drop to load"}</p></div> }
        </div>
    }
}

/// Mounts the app on `<body>`.
pub fn run() {
    yew::Renderer::<App>::new().render();
}

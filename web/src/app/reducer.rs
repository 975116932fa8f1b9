//! The app's state and its reducer: the scenario, the reports per protocol, what the worker
//! is doing, and every action that changes them.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use ctxlens::js::{self, Value};
use ctxlens::Api;
use ctxlens::Diagnostic;
use yew::prelude::*;

use crate::inputs::Collected;
use crate::shared::Shared;
use crate::state::{Laid, Overrides, Scenario, Target, ViewState};
use crate::views::{Comparison, Upgrading, WhatIfKey};
use crate::worker::{Arrived, FromWorker, TokenUpdate, WorkerLink};

/// Reports larger than this (body bytes) are not assembled for every protocol in advance.
pub(super) const PREFETCH_LIMIT: f64 = 2_000_000.0;

/// Bodies larger than this (bytes) get their calls rebuilt against the usage only when an
/// estimate needs them (`ctxlens::tokens::Calls::ForEstimate`).
pub(super) const REBUILD_CALLS_LIMIT: f64 = 8_000_000.0;

/// What the page does with a message from the worker.
pub(super) type OnMessage = Rc<dyn Fn(FromWorker)>;

/// The worker, restartable; shared by every copy of the state.
#[derive(Default)]
pub struct Host {
    pub(super) link: RefCell<Option<WorkerLink>>,
    pub(super) on_message: RefCell<Option<OnMessage>>,
}

impl Host {
    pub(super) fn start(&self) -> Result<(), String> {
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
    pub reports: Shared<BTreeMap<String, Shared<crate::report::Report>>>,
    pub native_api: Option<String>,
    /// The protocol whose report was on screen before the last switch: kept on screen (dimmed)
    /// while the new one is rebuilt.
    pub previous_api: Option<String>,
    /// Why a protocol has no report (the worker crashed on it, or its JSON did not parse).
    pub failures: BTreeMap<String, String>,
    pub in_flight: Option<(u64, Option<String>)>,
    pub busy: Option<Busy>,
    pub last: Option<Timing>,
    /// The timing of each protocol's report, so the status line follows the protocol on screen.
    pub timings: BTreeMap<String, Timing>,
    pub view: ViewState,
    pub ready: bool,
    pub catalog: Option<Rc<Vec<CatalogModel>>>,
    pub catalog_requested: bool,
    /// The release of [`Self::catalog`].
    pub catalog_pi: Option<ctxlens::PiVersion>,
    pub reading: Option<String>,
    pub host: Rc<Host>,
    /// Reports whose provenance stayed in the worker: api → the answers so far (path → answer,
    /// Null while asked).
    pub prov: BTreeMap<String, Shared<BTreeMap<String, Value>>>,
    /// The worker's comparisons of two protocols (the Protocols view), by (current, other).
    pub compares: Shared<BTreeMap<(String, String), Comparison>>,
    /// The token counts of each protocol's report, asked for once it is on screen (characters
    /// first, tokens when the worker has them).
    pub tokens: BTreeMap<String, TokenUpdate>,
    /// The worker's upgrade comparisons (the same inputs under another pi release), by
    /// (protocol, release, with tokens).
    pub upgrades: Shared<BTreeMap<(String, String, bool), Upgrading>>,
    /// The worker's what-ifs (the request with changes made), by (protocol, changes, with
    /// tokens).
    pub whatifs: Shared<BTreeMap<WhatIfKey, Upgrading>>,
    /// The what-if in the worker: its `seq`, key, and whether it is a whole session
    /// (`send_whatif_session`). The page sends one request's what-if at a time: what is asked
    /// for meanwhile waits in `whatif_next`, each newer ask replacing the one waiting (dropped,
    /// never sent), and goes when the answer comes. However quickly the changes are toggled, the
    /// worker computes the one in flight and the last. A whole session does not hold a newer
    /// what-if back: it is sent at once, and the worker drops that session between two calls.
    pub whatif_flight: Option<(u64, WhatIfKey, bool)>,
    /// The what-if asked for while another was in flight (or before the worker was ready).
    pub whatif_next: Option<WhatIfKey>,
    /// The what-ifs sent (the last `seq`), and the worker's count of the ones it computed (from
    /// its last answer): `data-whatif-sent` / `data-whatif-computed` on the view area.
    pub whatif_sent: u64,
    pub whatif_computed: u64,
    /// The what-if the view last asked for (its whole session is asked for once its request's
    /// answer arrives, if it is still this one).
    pub whatif_wanted: Option<WhatIfKey>,
    /// The number of the last what-if message sent (a request's or a whole session's).
    pub whatif_seq: u64,
    /// The reports whose body parsed is on its way (`FromWorker::Body`), by the worker's number
    /// of the report; and the bodies that were joined before their report (the page joins both
    /// in short tasks, side by side), by the same number.
    pub bodies_due: Vec<(u64, Shared<crate::report::Report>)>,
    pub bodies_early: Vec<(u64, Option<Shared<Value>>)>,
    /// The reports whose session parts are on their way (`FromWorker::Session`), by the
    /// worker's number of the report: (that number, the report's key). No other protocol is
    /// asked for meanwhile (its report shares them).
    pub sessions_due: Vec<(u64, String)>,
}

/// How many reports' parsed bodies the page waits for at once (the last ones asked for).
const BODIES_DUE: usize = 12;

/// A change to the settings panel's overrides.
pub type OverridesEdit = Box<dyn FnOnce(&mut Overrides)>;

pub enum Action {
    Worker(FromWorker),
    Reading(String),
    /// Files read from a drop or a chooser, for the page or one of the two targets.
    AddFiles(Target, Collected),
    /// Remove the i-th loose file (the request is rebuilt without it).
    RemoveLoose(usize),
    /// Remove the i-th refused file from the list.
    RemoveRefused(usize),
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
    /// What the request of (api) becomes under pi release (version), with tokens or not.
    Upgrade(String, String, bool),
    /// What the Protocols view compares with (`ViewState::with`).
    SetWith(Option<String>),
    /// The What-if view wants the request of (api) with the changes made, with tokens or not
    /// (no changes: nothing), now.
    WhatIf(WhatIfKey),
    /// The What-if view's changes (`ViewState::whatif`).
    SetWhatIf(Vec<String>),
    WantCatalog,
    /// The scenario the URL parameters named (`embed::load`).
    Embedded(Box<Scenario>),
    /// All your sessions on screen, or one request.
    ShowSessions(bool),
    /// A call of the sessions-folder report, opened in the request views.
    OpenCall(crate::all_sessions::OpenCall),
}

pub(super) fn now() -> f64 {
    js_sys::Date::now()
}

impl AppState {
    pub(super) fn new(host: Rc<Host>, view: ViewState) -> AppState {
        let scenario = crate::embed::initial_scenario().unwrap_or_else(Scenario::demo);
        let laid = scenario.lay_out();
        AppState {
            scenario: Shared::new(scenario),
            laid: Shared::new(laid),
            gen: 1,
            reports: Shared::new(BTreeMap::new()),
            native_api: None,
            previous_api: None,
            failures: BTreeMap::new(),
            in_flight: None,
            busy: None,
            last: None,
            timings: BTreeMap::new(),
            view,
            ready: false,
            catalog: None,
            catalog_requested: false,
            catalog_pi: None,
            reading: None,
            host,
            prov: BTreeMap::new(),
            compares: Shared::new(BTreeMap::new()),
            tokens: BTreeMap::new(),
            upgrades: Shared::new(BTreeMap::new()),
            whatifs: Shared::new(BTreeMap::new()),
            whatif_flight: None,
            whatif_next: None,
            whatif_sent: 0,
            whatif_computed: 0,
            whatif_wanted: None,
            whatif_seq: 0,
            bodies_due: Vec::new(),
            bodies_early: Vec::new(),
            sessions_due: Vec::new(),
        }
    }

    /// The api whose report is on screen.
    pub fn current_api(&self) -> Option<String> {
        self.view.api.clone().or_else(|| self.native_api.clone())
    }

    pub fn current_report(&self) -> Option<Shared<crate::report::Report>> {
        self.current_api()
            .and_then(|a| self.reports.get(&a).cloned())
    }

    fn set_scenario(&mut self, scenario: Scenario) {
        self.laid = Shared::new(scenario.lay_out());
        self.scenario = Shared::new(scenario);
        self.gen += 1;
        self.reports = Shared::new(BTreeMap::new());
        self.timings.clear();
        self.native_api = None;
        self.previous_api = None;
        self.failures.clear();
        self.busy = None;
        self.prov.clear();
        self.compares = Shared::new(BTreeMap::new());
        self.upgrades = Shared::new(BTreeMap::new());
        self.whatifs = Shared::new(BTreeMap::new());
        self.whatif_flight = None;
        self.whatif_next = None;
        self.tokens.clear();
        // The bodies still on their way belong to the scenario that is gone (their joining is
        // cancelled below): the views no longer wait for them, nor hold their reports.
        for (_, r) in self.bodies_due.drain(..) {
            crate::views::forget_parsed_body(&r);
        }
        self.bodies_early.clear();
        self.sessions_due.clear();
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

    fn set_upgrade(&mut self, key: (String, String, bool), u: Upgrading) {
        let mut map = (*self.upgrades).clone();
        map.insert(key, u);
        self.upgrades = Shared::new(map);
    }

    fn set_whatif(&mut self, key: WhatIfKey, u: Upgrading) {
        let mut map = (*self.whatifs).clone();
        map.insert(key, u);
        self.whatifs = Shared::new(map);
    }

    /// The What-if view wants `key` now (empty changes: nothing): an answer kept or the one in
    /// flight does; else it is sent, or waits for the one in flight (replacing any waiting,
    /// which nobody wants any more and is never sent).
    fn want_whatif(&mut self, key: WhatIfKey) {
        self.whatif_wanted = Some(key.clone());
        let in_flight = self.whatif_flight.as_ref().map(|(_, k, _)| k);
        let waiting = self.whatif_next.as_ref();
        // A request's answer whose session was never rebuilt (another what-if was asked for
        // first): its session now, when nothing is in flight.
        if let Some(Upgrading::Ready(v)) = self.whatifs.get(&key) {
            if session_pending(v) && in_flight.is_none() && waiting.is_none() {
                self.send_whatif_session(key);
                return;
            }
        }
        let wanted = !key.1.is_empty()
            && match self.whatifs.get(&key) {
                Some(Upgrading::Ready(_)) => false,
                Some(Upgrading::Pending { .. }) => in_flight != Some(&key) && waiting != Some(&key),
                _ => true,
            };
        if waiting.is_some_and(|n| *n != key) {
            let n = self.whatif_next.take().unwrap_or_default();
            if self.whatifs.get(&n).is_some_and(Upgrading::pending) {
                let mut map = (*self.whatifs).clone();
                map.remove(&n);
                self.whatifs = Shared::new(map);
            }
        }
        if !wanted {
            return;
        }
        if self
            .whatif_flight
            .as_ref()
            .is_some_and(|(_, _, session)| !session)
        {
            self.whatif_next = Some(key.clone());
            self.set_whatif(
                key,
                Upgrading::Pending {
                    stage: "waiting for the what-if before it".into(),
                    done: 0.0,
                },
            );
        } else {
            self.send_whatif(key);
        }
    }

    /// Sends `key` to the worker (nothing is in flight); before the worker is ready it waits.
    fn send_whatif(&mut self, key: WhatIfKey) {
        let host = self.host.clone();
        match (self.ready, host.link.borrow().as_ref()) {
            (true, Some(l)) => {
                self.whatif_sent += 1;
                self.whatif_seq += 1;
                l.whatif(self.gen, self.whatif_seq, &key.0, &key.1, key.2, false);
                self.whatif_flight = Some((self.whatif_seq, key.clone(), false));
            }
            _ => self.whatif_next = Some(key.clone()),
        }
        self.set_whatif(
            key,
            Upgrading::Pending {
                stage: "asked".into(),
                done: 0.0,
            },
        );
    }

    /// Asks for the whole session of `key`, whose request's answer is on screen (nothing is in
    /// flight); its answer replaces that one. Numbered with the requests' (one in flight at a
    /// time), not counted in `whatif_sent` (the requests' what-ifs).
    fn send_whatif_session(&mut self, key: WhatIfKey) {
        let host = self.host.clone();
        let link = host.link.borrow();
        if let (true, Some(l)) = (self.ready, link.as_ref()) {
            self.whatif_seq += 1;
            l.whatif(self.gen, self.whatif_seq, &key.0, &key.1, key.2, true);
            self.whatif_flight = Some((self.whatif_seq, key, true));
        }
    }

    /// The comparisons still on their way are lost with the worker: each says why.
    fn fail_pending_compares(&mut self, why: &str) {
        self.whatif_flight = None;
        self.whatif_next = None;
        if self.whatifs.values().any(Upgrading::pending) {
            let mut map = (*self.whatifs).clone();
            for u in map.values_mut().filter(|u| u.pending()) {
                *u = Upgrading::Failed(format!("No what-if: {why}."));
            }
            self.whatifs = Shared::new(map);
        }
        if self.upgrades.values().any(Upgrading::pending) {
            let mut map = (*self.upgrades).clone();
            for u in map.values_mut().filter(|u| u.pending()) {
                *u = Upgrading::Failed(format!("No comparison: {why}."));
            }
            self.upgrades = Shared::new(map);
        }
        if !self.compares.values().any(|c| *c == Comparison::Pending) {
            return;
        }
        let mut map = (*self.compares).clone();
        for c in map.values_mut().filter(|c| **c == Comparison::Pending) {
            *c = Comparison::Failed(format!("No comparison: {why}."));
        }
        self.compares = Shared::new(map);
    }

    /// The pi release on screen: the one the reports rebuilt, else the one asked for, else the
    /// newest.
    pub fn release(&self) -> ctxlens::PiVersion {
        self.reports
            .values()
            .find_map(|r| r.pi.as_ref().map(|p| p.version))
            .or(self.scenario.overrides.pi)
            .unwrap_or(ctxlens::PiVersion::LATEST)
    }

    fn prefetch_allowed(&self) -> bool {
        if self.view.compare {
            return true;
        }
        let native = self.native_api.as_ref().and_then(|a| self.reports.get(a));
        native.is_some_and(|r| {
            r.request.as_ref().map_or(0.0, |q| q.body.len() as f64) < PREFETCH_LIMIT
        })
    }

    /// Asks the worker for the next report this scenario needs, if it is idle.
    fn pump(&mut self) {
        if !self.ready
            || matches!(self.in_flight, Some((g, _)) if g == self.gen)
            || !self.sessions_due.is_empty()
        {
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
        // A report of this scenario that holds the session's parts the new one needs (none: they
        // follow the new one).
        let shared_from = self
            .reports
            .iter()
            .find(|(_, r)| r.has_session_parts())
            .map(|(k, _)| k.as_str());
        link.assemble(self.gen, api.as_deref(), shared_from);
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

    /// Asks the worker for the token counts of the report on screen, once per report (the
    /// others' are asked for when they are shown).
    fn want_tokens(&mut self) {
        let Some(api) = self.current_api().filter(|a| !a.is_empty()) else {
            return;
        };
        if !self.ready || self.tokens.contains_key(&api) {
            return;
        }
        let Some(body) = self
            .reports
            .get(&api)
            .and_then(|r| r.request.as_ref())
            .map(|q| q.body.len())
        else {
            return;
        };
        // Rebuilding the session's calls against their usage is one more assembly each: on a
        // large body only when an estimate needs them (no vocabulary), so the worker stays free.
        let calls = (body as f64) < REBUILD_CALLS_LIMIT;
        if let Some(l) = self.host.link.borrow().as_ref() {
            l.tokens(self.gen, &api, calls);
            self.tokens.insert(api, TokenUpdate::Asked);
        }
    }

    /// What the page does with a message from the worker: one function per kind of message.
    fn on_worker(&mut self, m: FromWorker) {
        match m {
            FromWorker::Ready => self.on_ready(),
            FromWorker::Progress {
                gen,
                api,
                stage,
                done,
                upgrade: Some(pi),
            } => self.on_upgrade_progress(gen, api, pi, Doing { stage, done }),
            FromWorker::Progress {
                gen,
                api,
                stage,
                done,
                upgrade: None,
            } => self.on_progress(gen, api, Doing { stage, done }),
            FromWorker::Report(r) => self.on_report(r),
            FromWorker::Body { gen, seq, parsed } => self.on_body(gen, seq, parsed),
            FromWorker::Session { gen, seq, parts } => self.on_session(gen, seq, parts),
            FromWorker::BadReport { gen, api, error } => self.on_bad_report(gen, api, error),
            FromWorker::Provenance {
                gen,
                api,
                path,
                answer,
            } => self.on_provenance(gen, &api, path, answer),
            FromWorker::Compare { gen, a, b, answer } => self.on_compare(gen, (a, b), answer),
            FromWorker::Upgrade {
                gen,
                api,
                pi,
                tokens,
                answer,
            } => self.on_upgrade(gen, (api, pi, tokens), answer),
            FromWorker::WhatIf {
                gen,
                seq,
                api,
                changes,
                tokens,
                computed,
                answer,
                ..
            } => self.on_whatif(WhatIfAnswer {
                gen,
                seq,
                key: (api, changes, tokens),
                computed,
                answer,
            }),
            FromWorker::WhatIfProgress {
                gen,
                api,
                changes,
                stage,
                done,
            } => self.on_whatif_progress(gen, (api, changes, false), Doing { stage, done }),
            FromWorker::Tokens { gen, api, update } => self.on_tokens(gen, api, update),
            FromWorker::Catalog { pi, json } => self.on_catalog(pi, &json),
            FromWorker::Crashed { message } => self.on_crash(&message),
        }
    }

    /// The worker is ready: the scenario is loaded into it, and what was asked for while it
    /// was starting (or lost with the last worker) is asked again.
    fn on_ready(&mut self) {
        self.ready = true;
        self.in_flight = None;
        // A new worker: what the last one was counting is asked again.
        self.tokens.retain(|_, t| !t.pending());
        if let Some(l) = self.host.link.borrow().as_ref() {
            l.load(self.gen, &self.laid);
            if self.catalog_requested && self.catalog.is_none() {
                l.catalog(self.release());
            }
            // Asked for while the worker was starting.
            for ((a, b), _) in self
                .compares
                .iter()
                .filter(|(_, c)| **c == Comparison::Pending)
            {
                l.compare(self.gen, a, b);
            }
            for ((a, v, t), _) in self.upgrades.iter().filter(|(_, u)| u.pending()) {
                l.upgrade(self.gen, a, v, *t);
            }
        }
        // A new worker: the what-if waiting goes now, else the one the last worker
        // had in flight goes again.
        let lost = self.whatif_flight.take().map(|(_, k, _)| k);
        match (self.whatif_next.take(), lost) {
            (Some(next), lost) => {
                if let Some(l) = lost.filter(|l| *l != next) {
                    let mut map = (*self.whatifs).clone();
                    map.remove(&l);
                    self.whatifs = Shared::new(map);
                }
                self.send_whatif(next);
            }
            (None, Some(lost)) => self.send_whatif(lost),
            (None, None) => {}
        }
    }

    /// How far the worker is with the upgrade comparison of protocol `api` under release `pi`.
    fn on_upgrade_progress(&mut self, gen: u64, api: Option<String>, pi: String, doing: Doing) {
        if gen != self.gen {
            return;
        }
        let api = api.unwrap_or_default();
        let keys: Vec<_> = self
            .upgrades
            .iter()
            .filter(|((a, v, _), u)| *a == api && *v == pi && u.pending())
            .map(|(k, _)| k.clone())
            .collect();
        for k in keys {
            self.set_upgrade(k, doing.pending());
        }
    }

    /// How far the worker is with the assembly of protocol `api`'s report (the status line).
    fn on_progress(&mut self, gen: u64, api: Option<String>, doing: Doing) {
        if gen == self.gen {
            if let Some(b) = self.busy.as_mut().filter(|b| b.api == api) {
                b.stage = doing.stage;
                b.done = doing.done;
            }
        }
    }

    /// The assembly of (`gen`, `api`) is over (a report or why there is none): no longer in
    /// flight, nor on the status line; false when it was of another scenario.
    fn assembly_over(&mut self, gen: u64, api: &Option<String>) -> bool {
        if self.in_flight == Some((gen, api.clone())) {
            self.in_flight = None;
        }
        if gen != self.gen {
            return false;
        }
        if self.busy.as_ref().is_some_and(|b| b.api == *api) {
            self.busy = None;
        }
        true
    }

    /// A report from the worker: kept under its protocol, with its timing, its session (when
    /// it shares another report's), its body parsed to come and its provenance.
    fn on_report(&mut self, r: Arrived) {
        if !self.assembly_over(r.gen, &r.api) {
            return;
        }
        let key = r.api.clone().unwrap_or_else(|| {
            r.report
                .model
                .as_ref()
                .map(|m| m.api.clone())
                .unwrap_or_default()
        });
        if r.api.is_none() {
            self.native_api = Some(key.clone());
        }
        let timing = Timing {
            api: key.clone(),
            ms: r.ms,
            memory_bytes: r.memory_bytes,
            json_bytes: r.bytes,
        };
        self.timings.insert(key.clone(), timing.clone());
        if r.api.is_none() || Some(&key) == self.current_api().as_ref() {
            self.last = Some(timing);
        }
        let Some(report) = self.with_session(&key, r.report, r.shared_from) else {
            return;
        };
        if r.body_pending {
            self.await_body(r.seq, &report);
        }
        // (A worker that stops drops its link, and the reports it sent that the page had not
        // joined yet with it: a report that comes has a worker to send its session.)
        if report.session_pending {
            self.sessions_due.push((r.seq, key.clone()));
        }
        if r.provenance_in_worker {
            self.prov.insert(key.clone(), Shared::new(BTreeMap::new()));
        } else {
            self.prov.remove(&key);
        }
        // A catalog of another release than the one now on screen is let go.
        let release = report.pi.as_ref().map(|p| p.version);
        if self.catalog.is_some() && release.is_some() && release != self.catalog_pi {
            self.catalog = None;
            self.catalog_requested = false;
        }
        let mut map = (*self.reports).clone();
        map.insert(key, report);
        self.reports = Shared::new(map);
    }

    /// Report `key` with its session, its calls and its usage timeline, from the report the
    /// worker said this one shares them with (the page keeps a scenario's reports until the next
    /// scenario); `None` (a failure noted) when the page does not hold that one.
    fn with_session(
        &mut self,
        key: &str,
        report: Shared<crate::report::Report>,
        shared_from: Option<String>,
    ) -> Option<Shared<crate::report::Report>> {
        let Some(from) = shared_from else {
            return Some(report);
        };
        match self.reports.get(&from) {
            Some(src) => {
                // The page's only copy of a report just joined: taken, not copied.
                let mut r = Rc::try_unwrap(report.0).unwrap_or_else(|r| (*r).clone());
                r.share_session_of(src);
                Some(Shared::new(r))
            }
            None => {
                self.failures.insert(
                    key.to_string(),
                    format!("the worker's report shares its session with the report of {from}, which the page does not hold"),
                );
                None
            }
        }
    }

    /// Report `seq`'s body parsed: given to it when it was joined first, else waited for.
    fn await_body(&mut self, seq: u64, report: &Shared<crate::report::Report>) {
        match self.bodies_early.iter().position(|(n, _)| *n == seq) {
            Some(i) => match self.bodies_early.remove(i).1 {
                Some(parsed) => crate::views::prime_parsed_body(report, parsed),
                None => crate::views::forget_parsed_body(report),
            },
            None => {
                crate::views::expect_parsed_body(report);
                self.bodies_due.push((seq, report.clone()));
                if self.bodies_due.len() > BODIES_DUE {
                    let (_, r) = self.bodies_due.remove(0);
                    crate::views::forget_parsed_body(&r);
                }
            }
        }
    }

    /// The session parts of report `seq`: the report on screen is replaced by the one with them
    /// (what the views keep for the report, its body parsed and its origins, goes with it).
    fn on_session(&mut self, gen: u64, seq: u64, parts: Option<Value>) {
        if gen != self.gen {
            return;
        }
        let Some(i) = self.sessions_due.iter().position(|(n, _)| *n == seq) else {
            return;
        };
        let (_, key) = self.sessions_due.remove(i);
        let Some(old) = self.reports.get(&key).cloned() else {
            return;
        };
        let new = Shared::new(old.with_session_parts(parts));
        crate::views::report_replaced(&old, &new);
        for (_, r) in &mut self.bodies_due {
            if *r == old {
                *r = new.clone();
            }
        }
        let mut map = (*self.reports).clone();
        map.insert(key, new);
        self.reports = Shared::new(map);
    }

    /// The body of report `seq` parsed: given to its report, or kept until the report comes.
    fn on_body(&mut self, gen: u64, seq: u64, parsed: Option<Shared<Value>>) {
        if gen != self.gen {
            return;
        }
        match self.bodies_due.iter().position(|(n, _)| *n == seq) {
            Some(i) => {
                let (_, report) = self.bodies_due.remove(i);
                match parsed {
                    Some(parsed) => crate::views::prime_parsed_body(&report, parsed),
                    None => crate::views::forget_parsed_body(&report),
                }
            }
            None => {
                self.bodies_early.push((seq, parsed));
                if self.bodies_early.len() > BODIES_DUE {
                    self.bodies_early.remove(0);
                }
            }
        }
    }

    /// A report that could not be made or put together: why, under its protocol.
    fn on_bad_report(&mut self, gen: u64, api: Option<String>, error: String) {
        if !self.assembly_over(gen, &api) {
            return;
        }
        self.failures.insert(api.clone().unwrap_or_default(), error);
        if api.is_none() {
            self.native_api = Some(String::new());
        }
    }

    /// The worker's answer for one body path of protocol `api`'s report.
    fn on_provenance(&mut self, gen: u64, api: &str, path: String, answer: Value) {
        if gen == self.gen {
            if let Some(m) = self.prov.get_mut(api) {
                let mut map = (**m).clone();
                map.insert(path, answer);
                *m = Shared::new(map);
            }
        }
    }

    /// The worker's comparison of two protocols, if it is still wanted.
    fn on_compare(&mut self, gen: u64, key: (String, String), answer: Result<Value, String>) {
        if gen == self.gen && self.compares.contains_key(&key) {
            use ctxlens::report::wire::Wire;
            let c = match answer.map(|v| ctxlens::report::types::Comparison::from_value(&v)) {
                Ok(Some(c)) => Comparison::Ready(Shared::new(c)),
                Ok(None) => Comparison::Failed("the worker's comparison is not one".into()),
                Err(e) => Comparison::Failed(e),
            };
            self.set_compare(key, c);
        }
    }

    /// The worker's upgrade comparison, if it is still wanted.
    fn on_upgrade(&mut self, gen: u64, key: (String, String, bool), answer: Result<Value, String>) {
        if gen == self.gen && self.upgrades.contains_key(&key) {
            let u = match answer {
                Ok(v) => Upgrading::Ready(Shared::new(v)),
                Err(e) => Upgrading::Failed(e),
            };
            self.set_upgrade(key, u);
        }
    }

    /// The worker's what-if: kept if it is still wanted, and the next what-if sent.
    fn on_whatif(&mut self, w: WhatIfAnswer) {
        self.whatif_computed = w.computed;
        if self
            .whatif_flight
            .as_ref()
            .is_some_and(|(s, _, _)| *s == w.seq)
        {
            self.whatif_flight = None;
        }
        if w.gen == self.gen && self.whatifs.contains_key(&w.key) {
            let u = match w.answer {
                Ok(v) => Upgrading::Ready(Shared::new(v)),
                Err(e) => Upgrading::Failed(e),
            };
            self.set_whatif(w.key, u);
        }
        // The latest asked for meanwhile, now; else the whole session of the what-if on
        // screen when only its request is answered (this one, or one whose session a newer
        // what-if dropped in the worker and that is wanted again).
        if self.whatif_flight.is_none() {
            if let Some(k) = self.whatif_next.take() {
                self.send_whatif(k);
            } else if let Some(w) = self.whatif_wanted.clone() {
                if matches!(self.whatifs.get(&w), Some(Upgrading::Ready(v)) if session_pending(v)) {
                    self.send_whatif_session(w);
                }
            }
        }
    }

    /// How far the worker is with the what-if of `key` (asked with tokens or without).
    fn on_whatif_progress(&mut self, gen: u64, key: WhatIfKey, doing: Doing) {
        for k in [key.clone(), (key.0, key.1, true)] {
            if gen == self.gen && self.whatifs.get(&k).is_some_and(Upgrading::pending) {
                self.set_whatif(k, doing.pending());
            }
        }
    }

    /// Where the token counts of protocol `api`'s report are.
    fn on_tokens(&mut self, gen: u64, api: String, update: TokenUpdate) {
        if gen != self.gen {
            return;
        }
        // An assembly asked for waits while the worker finishes another protocol's
        // tokens: the status says so, with how far the count is.
        if let Some(b) = self
            .busy
            .as_mut()
            .filter(|b| b.api.as_deref() != Some(api.as_str()) && b.done == 0.0)
        {
            if let Some(stage) = waiting_for_tokens(&api, &update) {
                b.stage = stage;
            }
        }
        if self.tokens.contains_key(&api) {
            self.tokens.insert(api, update);
        }
    }

    /// The model catalog of pi release `pi` (the model picker's list).
    fn on_catalog(&mut self, pi: Option<ctxlens::PiVersion>, json: &str) {
        self.catalog_pi = pi;
        let list = js::parse(json)
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

    /// The worker stopped: what it was doing fails with why, and a new one is started (unless
    /// it stopped while starting).
    fn on_crash(&mut self, message: &str) {
        // With no assembly in flight, it was something else that stopped the worker (a
        // comparison, a what-if, the tokens' count): the reports on screen stay.
        let assembling = self.in_flight.is_some();
        self.fail_pending_compares(&format!("the worker stopped ({message})"));
        // The session parts it had still to send will not come: the reports are shown without
        // them (their diagnostics say so), and the page asks for the next protocols again.
        for (seq, _) in self.sessions_due.clone() {
            self.on_session(self.gen, seq, None);
        }
        // Not asked again (it might stop the worker again): said.
        for t in self.tokens.values_mut().filter(|t| t.pending()) {
            *t = TokenUpdate::Failed {
                vocabulary: None,
                error: format!("the worker stopped before the tokens were counted ({message})"),
                compaction: None,
            };
        }
        // A worker that stopped before it was ready would stop again: not started
        // over and over; said, and Assemble again starts one.
        let starting = !self.ready;
        if assembling && !starting {
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
        if starting {
            drop(self.host.link.borrow_mut().take());
            self.failures.insert(
                "worker".into(),
                format!("the worker stopped while it was starting: {message}"),
            );
        } else if let Err(e) = self.host.start() {
            self.failures.insert("worker".into(), e);
        }
    }
}

/// What the worker is doing for one job: its stage, and the share done (0–1).
struct Doing {
    stage: String,
    done: f64,
}

impl Doing {
    /// A comparison or what-if still on its way, at this stage.
    fn pending(&self) -> Upgrading {
        Upgrading::Pending {
            stage: self.stage.clone(),
            done: self.done,
        }
    }
}

/// A what-if from the worker (`FromWorker::WhatIf`): its answer, and the worker's count.
struct WhatIfAnswer {
    gen: u64,
    seq: u64,
    key: WhatIfKey,
    computed: u64,
    answer: Result<Value, String>,
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
            Action::AddFiles(target, c) => {
                if !s.add_files(target, c) {
                    return self;
                }
            }
            Action::RemoveLoose(i) => {
                let mut sc = (*s.scenario).clone();
                sc.remove_loose(i);
                s.set_scenario(sc);
            }
            Action::RemoveRefused(i) => {
                let mut sc = (*s.scenario).clone();
                sc.remove_refused(i);
                s.scenario = crate::shared::Shared::new(sc);
            }
            Action::Paste(text) => s.paste(text),
            Action::Demo => s.set_scenario(Scenario::demo()),
            Action::Clear => s.set_scenario(Scenario {
                name: "empty".into(),
                now_ms: now(),
                ..Default::default()
            }),
            Action::EditOverrides(edit) => {
                // Nothing changed: keep the reports (an unchanged scenario is not assembled again).
                if !s.edit_overrides(edit) {
                    return self;
                }
            }
            Action::SetApi(api) => s.set_api(api),
            Action::SetView(v) => s.view.view = Some(v),
            Action::SetStage(i) => s.view.stage = i,
            Action::SetSelection(sel) => s.set_selection(sel),
            // Compare opens the comparison (the Protocols view); its protocols are assembled
            // in advance while it is on.
            Action::ToggleCompare => {
                s.view.compare = !s.view.compare;
                if s.view.compare {
                    s.view.view = Some("protocols".into());
                }
            }
            Action::Hash(v) => s.view = v,
            Action::Stop => s.stop(),
            Action::Retry => s.retry(),
            Action::AskProvenance(path) => s.ask_provenance(path),
            Action::Compare(a, b) => s.ask_compare((a, b)),
            Action::Upgrade(api, pi, tokens) => s.ask_upgrade((api, pi, tokens)),
            Action::SetWith(w) => s.view.with = w,
            // The changes are set from the What-if view or from a finding's action: either way
            // the What-if view shows them.
            Action::SetWhatIf(c) => {
                s.view.whatif = c;
                s.view.view = Some("whatif".into());
            }
            Action::WhatIf(key) => s.want_whatif(key),
            Action::Embedded(sc) => s.set_scenario(*sc),
            Action::ShowSessions(on) => s.view.sessions = on,
            Action::OpenCall(c) => {
                s.view.sessions = false;
                s.view.stage = 0;
                s.view.selection = None;
                s.set_scenario(Scenario::call_of(&c.path, c.bytes, c.entry_id, now()));
            }
            Action::WantCatalog => s.want_catalog(),
        }
        // The tokens of the report on screen go before the other protocols' prefetch.
        s.want_tokens();
        s.pump();
        Rc::new(s)
    }
}

/// The actions' parts too long for the reducer's `match`.
impl AppState {
    /// Files read for `target`; false when nothing came (nothing changes).
    fn add_files(&mut self, target: crate::state::Target, c: crate::inputs::Collected) -> bool {
        self.reading = None;
        if c.files.is_empty() && c.skipped.is_empty() && c.notes.is_empty() {
            return false;
        }
        // Files added to the bundled demo start a scenario of their own, when they bring
        // something to use; files that cannot be used (an empty session, an image that
        // is not one, a stray .txt) leave what is on screen as it is, listed with why.
        let replace_demo = self.scenario.case.is_some()
            && self.scenario.name.starts_with("demo")
            && Scenario::brings_inputs(&c, target);
        let mut sc = if replace_demo {
            Scenario::default()
        } else {
            (*self.scenario).clone()
        };
        sc.add_collected_to(c, target, now());
        self.view.stage = 0;
        self.view.selection = None;
        self.set_scenario(sc);
        true
    }

    /// A pasted session: on the demo, a scenario of its own (when it is one).
    fn paste(&mut self, text: String) {
        let usable = crate::state::check_session(text.as_bytes()).is_ok();
        let mut sc =
            if usable && self.scenario.case.is_some() && self.scenario.name.starts_with("demo") {
                Scenario::default()
            } else {
                (*self.scenario).clone()
            };
        sc.add_pasted_session(text, now());
        self.set_scenario(sc);
    }

    /// The settings edited; false when they are as they were.
    fn edit_overrides(&mut self, edit: OverridesEdit) -> bool {
        let mut overrides = self.scenario.overrides.clone();
        edit(&mut overrides);
        if overrides == self.scenario.overrides {
            return false;
        }
        let mut sc = (*self.scenario).clone();
        sc.overrides = overrides;
        self.set_scenario(sc);
        true
    }

    /// Another protocol on screen (the one before stays while it is rebuilt).
    fn set_api(&mut self, api: Option<String>) {
        if self.current_report().is_some() {
            self.previous_api = self.current_api();
        }
        self.view.api = api;
        self.view.selection = None;
        let stages = self.current_report().map_or(0, |r| r.stages.len());
        if stages > 0 && self.view.stage >= stages {
            self.view.stage = stages - 1;
        }
    }

    fn set_selection(&mut self, sel: Option<String>) {
        // Choosing a finding's subject shows it where it is shown best.
        if matches!(
            self.view.view.as_deref(),
            Some("findings") | Some("overview")
        ) {
            if let Some(v) = sel.as_deref().and_then(crate::views::view_for_selection) {
                self.view.view = Some(v.to_string());
            }
        }
        self.view.selection = sel;
    }

    /// Assemble again what failed (and start a worker that did not start).
    fn retry(&mut self) {
        let stopped: Vec<String> = self
            .failures
            .keys()
            .filter(|k| *k != "worker")
            .cloned()
            .collect();
        for k in stopped {
            self.failures.remove(&k);
        }
        // A worker that did not start: another one.
        if self.host.link.borrow().is_none() {
            self.failures.remove("worker");
            if let Err(e) = self.host.start() {
                self.failures.insert("worker".into(), e);
            }
        }
        if self.native_api.as_deref() == Some("") {
            self.native_api = None;
        }
    }

    /// Asks the worker where the body's value at `path` came from (once per path).
    fn ask_provenance(&mut self, path: String) {
        let api = self.current_api().unwrap_or_default();
        if let Some(m) = self.prov.get_mut(&api).filter(|m| !m.contains_key(&path)) {
            let mut map = (**m).clone();
            map.insert(path.clone(), Value::Null);
            *m = Shared::new(map);
            if let (true, Some(l)) = (self.ready, self.host.link.borrow().as_ref()) {
                l.provenance(self.gen, &api, &path);
            }
        }
    }

    /// Asks for two protocols' comparison (again, when it failed).
    fn ask_compare(&mut self, key: (String, String)) {
        if matches!(self.compares.get(&key), None | Some(Comparison::Failed(_))) {
            if let (true, Some(l)) = (self.ready, self.host.link.borrow().as_ref()) {
                l.compare(self.gen, &key.0, &key.1);
            }
            self.set_compare(key, Comparison::Pending);
        }
    }

    /// Asks for the same inputs under another release (again, when it failed).
    fn ask_upgrade(&mut self, key: (String, String, bool)) {
        if matches!(self.upgrades.get(&key), None | Some(Upgrading::Failed(_))) {
            if let (true, Some(l)) = (self.ready, self.host.link.borrow().as_ref()) {
                l.upgrade(self.gen, &key.0, &key.1, key.2);
            }
            self.set_upgrade(
                key,
                Upgrading::Pending {
                    stage: "asked".into(),
                    done: 0.0,
                },
            );
        }
    }

    /// The model catalog, asked of the worker once.
    fn want_catalog(&mut self) {
        if !self.catalog_requested {
            self.catalog_requested = true;
            if let (true, Some(l)) = (self.ready, self.host.link.borrow().as_ref()) {
                l.catalog(self.release());
            }
        }
    }
}

/// A what-if answer of the request alone, whose whole session is still to come
/// (`sessionPending`, set by the worker for a session with calls).
fn session_pending(v: &Value) -> bool {
    v.get("sessionPending").is_some_and(Value::truthy)
}

/// What an assembly waits for while the worker counts protocol `api`'s tokens (it takes one job
/// at a time): `None` once that count is done.
pub(crate) fn waiting_for_tokens(api: &str, update: &crate::worker::TokenUpdate) -> Option<String> {
    use crate::worker::TokenUpdate;
    let label = super::util::api_label(api);
    match update {
        TokenUpdate::Loading { .. } => Some(format!(
            "waiting while the worker loads the vocabulary for {label}'s tokens"
        )),
        TokenUpdate::Counting { done, .. } => Some(format!(
            "waiting while the worker counts {label}'s tokens ({:.0}% counted)",
            (done.clamp(0.0, 1.0) * 100.0).floor()
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::waiting_for_tokens;
    use crate::worker::{TokenUpdate, Vocabulary};

    /// A switch that waits for another protocol's token count says what it waits for.
    #[test]
    fn an_assembly_waiting_for_another_protocols_tokens_says_so() {
        let vocabulary = Vocabulary::Known {
            name: "qwen2".into(),
            exact: false,
            why: None,
        };
        let counting = TokenUpdate::Counting {
            vocabulary: vocabulary.clone(),
            done: 0.426,
        };
        assert_eq!(
            waiting_for_tokens("openai-completions", &counting).as_deref(),
            Some("waiting while the worker counts OpenAI Chat's tokens (42% counted)")
        );
        let loading = TokenUpdate::Loading {
            vocabulary,
            loaded: 1.0,
            total: None,
        };
        assert_eq!(
            waiting_for_tokens("anthropic-messages", &loading).as_deref(),
            Some("waiting while the worker loads the vocabulary for Anthropic's tokens")
        );
        assert_eq!(
            waiting_for_tokens("anthropic-messages", &TokenUpdate::Asked),
            None
        );
    }
}

//! The Web Worker that runs the core off the page's thread, and the page's handle on it.
//!
//! Messages (plain JS objects; the report travels as JSON text in small parts, see
//! [`crate::wire`], so the page parses it in short tasks). Both ways they are types of this
//! module: [`ToWorker`] (written by [`WorkerLink`], read by the worker's `handle`) and
//! [`FromWorker`]; each has its wire form in one place (`to_js`, `from_js`).
//!
//! | page → worker | |
//! |---|---|
//! | `{type: "load", gen, files: [[path, Uint8Array]…], continueOnly, nowMs, pi, placeholderKey, call}` | a laid-out case folder (the buffers are transferred) |
//! | `{type: "assemble", gen, api, sharedFrom}` | assemble it (`api`: `null` = the model's own); `sharedFrom`: a report of this scenario the page holds (its key), from which it takes `session`, `calls` and `usage.timeline` — the session's alone, the same under every protocol — so the worker leaves them out |
//! | `{type: "provenance", gen, api, path}` | the source of one body path of a report whose provenance was left out |
//! | `{type: "compare", gen, a, b}` | the core's comparison of protocol `a` with protocol `b` (the Protocols view) |
//! | `{type: "upgrade", gen, api, pi, tokens}` | what upgrading (or going back) to pi release `pi` does to protocol `api`'s request (the Protocols view); `tokens`: with tokens when the model's vocabulary is loaded |
//! | `{type: "whatif", gen, seq, api, changes, tokens}` | protocol `api`'s request with `changes` made (the What-if view): the specs of `ctxlens whatif` (`tool:bash`, `skill:NAME`, `model=P/ID`, …, in order); `tokens` as for `upgrade`; `seq`: the page's number for it (the page has one what-if in the worker at a time: `app::reducer`) |
//! | `{type: "catalog", pi}` | the model catalog of pi release `pi`, for the model picker |
//! | `{type: "tokens", gen, api, calls, countMs?, countBytes?, countTokens?}` | the statistics of protocol `api`'s assembly with tokens (see below; `calls: false`: the calls are rebuilt against their usage only for an estimate; `count…`: what the worker counted first, when it handles the message again) |
//!
//! | worker → page | |
//! |---|---|
//! | `{type: "ready"}` | the worker is listening |
//! | `{type: "failed", gen, api, error}` | it could not start (a release's data did not load) |
//! | `{type: "progress", gen, api, stage, done, upgrade}` | what it is doing now; `done`: the share of the work done (0–1); `upgrade`: the release of an `upgrade` it is working on (else absent) |
//! | `{type: "report", gen, api, seq, parts, partsBytes, body, bodyPending, provenanceInWorker, sharedFrom, sessionFollows, ms, memoryBytes}` | see below (`sharedFrom`: as asked, the report without `session`, `calls` and `usage.timeline`; `seq`: the worker's number of the report; `bodyPending`: a `body` message follows; `sessionFollows`: a `session` message follows) |
//! | `{type: "session", gen, seq, parts, partsBytes}` | the session's parts of report `seq` (`{session, calls, usage: {timeline}}`): see below |
//! | `{type: "body", gen, seq, parts, partsBytes}` | the body of report `seq`, parsed (`null` when it did not parse: the page parses it itself): see below |
//! | `{type: "provenance", gen, api, path, json}` | `views::prov_answer` for that path (or `{error}`) |
//! | `{type: "compare", gen, a, b, json}` | [`crate::wire::compare_answer`]: `ctxlens::report::compare_json` of the two assemblies (or `{error}`) |
//! | `{type: "upgrade", gen, api, pi, tokens, json}` | [`crate::wire::upgrade_answer`]: `ctxlens::report::upgrade::to_json` (or `{error}`) |
//! | `{type: "progress", gen, api, stage, done, whatif}` | a `whatif`'s progress (`whatif`: its changes) |
//! | `{type: "whatif", gen, seq, api, changes, tokens, computed, json}` | [`crate::wire::whatif_answer`]: `ctxlens::report::whatif::to_json` (or `{error}`: a change that names nothing present says what is there); `computed`: how many what-ifs this worker has assembled in its life |
//! | `{type: "catalog", pi, json}` | `[{ref, name, api, reasoning}]` |
//! | `{type: "tokens", gen, api, phase, vocabulary, …}` | [`TokenUpdate`]: the vocabulary's loading (`loaded`, `total` bytes), the counting (`done`), then `stats` (JSON text) or `error` |
//!
//! Tokens are asked for after a report is on screen (characters first): the worker takes the
//! assembly it kept (or makes it again), finds its model's vocabulary
//! (`ctxlens::tokens::vocabulary_of`), fetches that vocabulary's wasm module the first time
//! ([`crate::vocab`]: only that one, once per worker), and answers
//! `ctxlens::report::stats::to_json(compute_with_tokens(…))`. An assembly asked for without
//! tokens does none of this. The vocabulary remembers every text it counted, so what a `tokens`
//! message needs that it has not counted is counted first, in slices of time (the newest
//! message's first), with the page's other messages — a protocol switch, a what-if — answered
//! between them; the statistics are then made from what it remembers.
//!
//! A report whose body is over [`PROVENANCE_BODY_BYTES`] (or has over [`PROVENANCE_INLINE`]
//! sources) leaves its provenance here; it is indexed in a task after the report is sent.
//!
//! Each pi release's data (strings, tool definitions, catalog: `pi-data/pi-<version>/`, copied
//! from pi/data by Trunk) is fetched the first time a message needs that release; the
//! message is then handled as if it had just come.
//!
//! An `upgrade` assembles the scenario's inputs again with `Inputs::pi` set to the release asked
//! for (its data fetched first when missing, with `progress`), and answers
//! `ctxlens::analysis::upgrade::upgrade` of the two: with tokens on both sides when asked and
//! the model's vocabulary module is already loaded in this worker (it is not fetched for
//! this), with characters only otherwise. pi's release notes and the version table's docs
//! (`pi-data/changelog.json`, `pi-data/rule-docs.json`) are fetched once, before the first
//! comparison; when they do not load, the comparison goes on without them (`changelog: null`).
//!
//! A `whatif` parses each spec (`ctxlens::analysis::whatif::Change::parse_without`, or
//! `parse_set` for `KEY=VALUE`), applies them to the scenario's inputs under `api` (read again
//! as another release reads them for `pi=`, its data fetched first), assembles, and answers
//! `ctxlens::analysis::whatif::compare` of the kept assembly and the changed one — with tokens
//! on both sides as for `upgrade` — and, when the session has calls with usage, the whole
//! session rebuilt with the changes made at the start (`ctxlens::analysis::whatif::SessionRebuild`,
//! [`ctxlens::analysis::calibration::MAX_CALLS`] calls at most, as the CLI's default), one call
//! per task: the page's other messages are answered between two calls, and a newer `whatif`
//! drops the session being rebuilt (the page sends one only when it no longer waits for it).
//!
//! A report is `report::assembly_json` without `request.body`, with each stage's first
//! [`crate::views::STAGE_EVENTS`] events (the rest counted by kind and rule: a long session's
//! adapter makes one per message) and the statistics' [`crate::views::MESSAGE_ROWS`] largest
//! messages (a `tokens` answer's statistics keep the same ones), and, when it has more than
//! [`PROVENANCE_INLINE`] entries, without `provenance` (the worker keeps it and answers path by
//! path): `parts` is `[[path, append, offset, length]…]` ([`crate::wire::split`]) into the UTF-8
//! JSON of `partsBytes`; `body` is the body's UTF-8 bytes (no JSON escaping). Both buffers are
//! transferred. A scenario's first report (no `sharedFrom`) is sent without `session`, `calls`
//! and `usage.timeline` too (on a long session they are most of it, and the first view needs
//! none of them): a `session` message follows with them (`ctxlens::report::session_parts_json`,
//! split the same way), which the page reads once the report is on screen; its Session,
//! Transcript, Usage and What-if views say they are reading the session meanwhile, and it asks
//! for no other protocol until they are in (the next report shares them). Then a `body` message:
//! `parts` / `partsBytes` is the body parsed and split the same way (the Request view's tree
//! needs the parsed body, and parsing 30 MB at once would freeze the page). It comes after the
//! report, so the report is on screen without waiting for it (the Request view says it is
//! reading the body meanwhile: `views::parsed_body`).
//!
//! Each scenario has its engine (`ctxlens::Workspace`): its inputs are laid out once, its
//! session parsed once (the release detection and every release's reading share the parse),
//! and the assemblies it made are kept with their statistics and provenance while they are
//! small ([`KEPT_ASSEMBLY_BYTES`] in all, the oldest let go first) — a protocol switched back, a
//! `compare` of two protocols the page has, a what-if's base and the past calls it rebuilds are
//! not assembled again; one no longer kept is made again from the parsed session.
//!
//! The worker is loaded by `www/worker.js` (a module worker; the CSP allows `worker-src 'self'`).
//! A crash (a panic aborts the wasm instance) reaches the page as an `error` event; the page
//! reports it and starts a new worker.

use ctxlens::calls::CallRef;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use ctxlens::case::CaseFiles;
use ctxlens::js::{Object, Value};
use ctxlens::report::calibration::{CalibrationInfo, VocabularyInfo, WindowInfo};
use ctxlens::report::wire::Wire;
use ctxlens::Assembly;
use gloo_events::{EventListener, EventListenerOptions};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::shared::Shared;
use crate::state::{inputs_of, Laid, LayOptions};
use crate::wire::{
    compare_answer, read_compare_answer, read_upgrade_answer, read_whatif_answer, split,
    upgrade_answer, whatif_answer, Part, PART_BYTES,
};

/// Reports with more provenance entries than this leave it in the worker (path by path on demand).
pub const PROVENANCE_INLINE: usize = 2_000;

/// Reports of a body larger than this leave the provenance in the worker without counting it.
pub const PROVENANCE_BODY_BYTES: usize = 1 << 20;

/// The sources of a report's body that the worker keeps (path by path on demand): the assembly
/// until they are indexed — in a task after the report is sent, or when first asked for.
enum Origins {
    Pending(Rc<Assembly>),
    Ready(Rc<crate::views::OriginIndex>),
}

impl Origins {
    fn index(o: &RefCell<Origins>) -> Rc<crate::views::OriginIndex> {
        let mut o = o.borrow_mut();
        let index = match &*o {
            Origins::Ready(index) => return index.clone(),
            Origins::Pending(a) => Rc::new(crate::views::OriginIndex::new(
                a.provenance_shared().clone(),
            )),
        };
        *o = Origins::Ready(index.clone());
        index
    }
}

/// The worker keeps the assemblies of the current scenario up to about this many bytes (its
/// session and body, for each), for `compare`; larger ones are not kept.
pub const KEPT_ASSEMBLY_BYTES: usize = 32 << 20;

pub(crate) fn get(o: &JsValue, k: &str) -> JsValue {
    js_sys::Reflect::get(o, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED)
}

pub(crate) fn set(o: &js_sys::Object, k: &str, v: impl Into<JsValue>) {
    let _ = js_sys::Reflect::set(o, &JsValue::from_str(k), &v.into());
}

/// The strings of a JS array (anything else: none).
fn strings_of(v: &JsValue) -> Vec<String> {
    if !v.is_array() {
        return Vec::new();
    }
    js_sys::Array::from(v)
        .iter()
        .filter_map(|x| x.as_string())
        .collect()
}

fn strings_js(v: &[String]) -> js_sys::Array {
    v.iter().map(|x| JsValue::from_str(x)).collect()
}

pub(crate) fn opt_str(v: Option<&str>) -> JsValue {
    v.map(JsValue::from_str).unwrap_or(JsValue::NULL)
}

/// A message to the worker: what [`WorkerLink`] sends and the worker's `handle` reads, one
/// variant per message of the table in the module's doc (the same names on the wire).
#[derive(Clone, Debug)]
pub enum ToWorker {
    /// A laid-out case folder: `files` is `[[path, Uint8Array]…]` (the buffers transferred).
    Load {
        gen: u64,
        files: js_sys::Array,
        opts: LayOptions,
    },
    Assemble {
        gen: u64,
        api: Option<String>,
        shared_from: Option<String>,
    },
    Provenance {
        gen: u64,
        api: String,
        path: String,
    },
    Compare {
        gen: u64,
        a: String,
        b: String,
    },
    Upgrade(UpgradeAsk),
    WhatIf(WhatIfAsk),
    Tokens(TokensAsk),
    Catalog {
        pi: String,
    },
}

/// An `upgrade` message: protocol `api` under pi release `pi`.
#[derive(Clone, Debug, PartialEq)]
pub struct UpgradeAsk {
    pub gen: u64,
    pub api: String,
    pub pi: String,
    pub tokens: bool,
}

/// A `whatif` message: protocol `api`'s request with `changes` made.
#[derive(Clone, Debug, PartialEq)]
pub struct WhatIfAsk {
    pub gen: u64,
    pub seq: u64,
    pub api: String,
    pub changes: Vec<String>,
    pub tokens: bool,
    pub session: bool,
}

/// A `tokens` message: protocol `api`'s statistics with tokens.
#[derive(Clone, Debug, PartialEq)]
pub struct TokensAsk {
    pub gen: u64,
    pub api: String,
    /// The calls rebuilt against their usage (`false`: only for an estimate).
    pub calls: bool,
    /// Set by the worker when it handles the message again after counting what the vocabulary
    /// lacked (`count_missing`): that count's milliseconds, UTF-8 bytes and tokens.
    pub counted: Option<(f64, f64, f64)>,
}

impl ToWorker {
    /// The scenario it is about (`Catalog`: none, 0).
    pub fn gen(&self) -> u64 {
        match self {
            ToWorker::Load { gen, .. }
            | ToWorker::Assemble { gen, .. }
            | ToWorker::Provenance { gen, .. }
            | ToWorker::Compare { gen, .. } => *gen,
            ToWorker::Upgrade(u) => u.gen,
            ToWorker::WhatIf(w) => w.gen,
            ToWorker::Tokens(t) => t.gen,
            ToWorker::Catalog { .. } => 0,
        }
    }

    /// The protocol it is about, where it names one.
    pub fn api(&self) -> Option<&str> {
        match self {
            ToWorker::Assemble { api, .. } => api.as_deref(),
            ToWorker::Provenance { api, .. } => Some(api),
            ToWorker::Compare { a, .. } => Some(a),
            ToWorker::Upgrade(u) => Some(&u.api),
            ToWorker::WhatIf(w) => Some(&w.api),
            ToWorker::Tokens(t) => Some(&t.api),
            ToWorker::Load { .. } | ToWorker::Catalog { .. } => None,
        }
    }

    /// The message as it is posted.
    pub fn to_js(&self) -> js_sys::Object {
        let m = js_sys::Object::new();
        let kind = match self {
            ToWorker::Load { gen, files, opts } => {
                set(&m, "gen", *gen as f64);
                set(&m, "files", files);
                set(&m, "continueOnly", opts.continue_only);
                set(&m, "placeholderKey", opts.placeholder_key);
                set(&m, "captured", opts.captured);
                set(&m, "pi", opt_str(opts.pi.map(|v| v.as_str())));
                let call = match &opts.call {
                    Some(CallRef::Index(k)) => JsValue::from_f64(*k as f64),
                    Some(CallRef::Entry(id)) => JsValue::from_str(id),
                    Some(CallRef::Next) | None => JsValue::NULL,
                };
                set(&m, "call", call);
                set(
                    &m,
                    "nowMs",
                    opts.now_ms.map_or(JsValue::NULL, JsValue::from_f64),
                );
                "load"
            }
            ToWorker::Assemble {
                gen,
                api,
                shared_from,
            } => {
                set(&m, "gen", *gen as f64);
                set(&m, "api", opt_str(api.as_deref()));
                set(&m, "sharedFrom", opt_str(shared_from.as_deref()));
                "assemble"
            }
            ToWorker::Provenance { gen, api, path } => {
                set(&m, "gen", *gen as f64);
                set(&m, "api", api);
                set(&m, "path", path);
                "provenance"
            }
            ToWorker::Compare { gen, a, b } => {
                set(&m, "gen", *gen as f64);
                set(&m, "a", a);
                set(&m, "b", b);
                "compare"
            }
            ToWorker::Upgrade(u) => {
                set(&m, "gen", u.gen as f64);
                set(&m, "api", u.api.as_str());
                set(&m, "pi", u.pi.as_str());
                set(&m, "tokens", u.tokens);
                "upgrade"
            }
            ToWorker::WhatIf(w) => {
                set(&m, "gen", w.gen as f64);
                set(&m, "seq", w.seq as f64);
                set(&m, "api", w.api.as_str());
                set(&m, "changes", strings_js(&w.changes));
                set(&m, "tokens", w.tokens);
                set(&m, "session", w.session);
                "whatif"
            }
            ToWorker::Tokens(t) => {
                set(&m, "gen", t.gen as f64);
                set(&m, "api", t.api.as_str());
                set(&m, "calls", t.calls);
                if let Some((ms, bytes, tokens)) = t.counted {
                    set(&m, "countMs", ms);
                    set(&m, "countBytes", bytes);
                    set(&m, "countTokens", tokens);
                }
                "tokens"
            }
            ToWorker::Catalog { pi } => {
                set(&m, "pi", pi.as_str());
                "catalog"
            }
        };
        set(&m, "type", kind);
        m
    }

    /// A posted message read back (`None`: not one of these).
    pub fn from_js(data: &JsValue) -> Option<ToWorker> {
        let gen = get(data, "gen").as_f64().unwrap_or(0.0) as u64;
        let text = |k: &str| get(data, k).as_string();
        let flag = |k: &str| get(data, k).as_bool();
        Some(match text("type")?.as_str() {
            "load" => ToWorker::Load {
                gen,
                files: get(data, "files").dyn_into().unwrap_or_default(),
                opts: LayOptions {
                    continue_only: flag("continueOnly").unwrap_or(false),
                    placeholder_key: flag("placeholderKey").unwrap_or(false),
                    captured: flag("captured").unwrap_or(false),
                    pi: text("pi").and_then(|v| v.parse().ok()),
                    call: {
                        let c = get(data, "call");
                        match (c.as_f64(), c.as_string()) {
                            (Some(k), _) if k >= 1.0 => Some(CallRef::Index(k as usize)),
                            (_, Some(id)) => Some(CallRef::Entry(id)),
                            _ => None,
                        }
                    },
                    now_ms: get(data, "nowMs").as_f64(),
                },
            },
            "assemble" => ToWorker::Assemble {
                gen,
                api: text("api"),
                shared_from: text("sharedFrom"),
            },
            "provenance" => ToWorker::Provenance {
                gen,
                api: text("api").unwrap_or_default(),
                path: text("path").unwrap_or_default(),
            },
            "compare" => ToWorker::Compare {
                gen,
                a: text("a").unwrap_or_default(),
                b: text("b").unwrap_or_default(),
            },
            "upgrade" => ToWorker::Upgrade(UpgradeAsk {
                gen,
                api: text("api").unwrap_or_default(),
                pi: text("pi").unwrap_or_default(),
                tokens: flag("tokens") == Some(true),
            }),
            "whatif" => ToWorker::WhatIf(WhatIfAsk {
                gen,
                seq: get(data, "seq").as_f64().unwrap_or(0.0) as u64,
                api: text("api").unwrap_or_default(),
                changes: strings_of(&get(data, "changes")),
                tokens: flag("tokens") == Some(true),
                session: flag("session") == Some(true),
            }),
            "tokens" => ToWorker::Tokens(TokensAsk {
                gen,
                api: text("api").unwrap_or_default(),
                calls: flag("calls") != Some(false),
                counted: get(data, "countMs").as_f64().map(|ms| {
                    let n = |k: &str| get(data, k).as_f64().unwrap_or(0.0);
                    (ms, n("countBytes"), n("countTokens"))
                }),
            }),
            "catalog" => ToWorker::Catalog {
                pi: text("pi").unwrap_or_default(),
            },
            _ => return None,
        })
    }
}

/// A message from the worker, as the page sees it.
#[derive(Clone, Debug, PartialEq)]
pub enum FromWorker {
    Ready,
    Progress {
        gen: u64,
        api: Option<String>,
        stage: String,
        done: f64,
        /// The release of the `upgrade` this is about (`None`: an assembly).
        upgrade: Option<String>,
    },
    /// A report, joined on the page from its parts.
    Report(Arrived),
    /// The body of report `seq` parsed, joined on the page from its parts after the report (the
    /// Request view's tree); it may be joined before the report is. `None`: its parts did not
    /// join (the page parses the body itself when a view needs it).
    Body {
        gen: u64,
        seq: u64,
        parsed: Option<Shared<Value>>,
    },
    /// The session's parts of report `seq` (`session`, `calls`, `usage.timeline`), which the
    /// worker sends after a scenario's first report so that report is on screen sooner; joined
    /// on the page after the report. `None`: its parts did not join.
    Session {
        gen: u64,
        seq: u64,
        parts: Option<Value>,
    },
    /// A report that came but could not be put together.
    BadReport {
        gen: u64,
        api: Option<String>,
        error: String,
    },
    /// The worker's answer for one body path (`views::prov_answer`).
    Provenance {
        gen: u64,
        api: String,
        path: String,
        answer: Value,
    },
    /// The core's comparison of protocol `a` with protocol `b` (`ctxlens::report::compare_json`),
    /// or why the worker could not make it.
    Compare {
        gen: u64,
        a: String,
        b: String,
        answer: Result<Value, String>,
    },
    /// What the same inputs give under pi release `pi` (`ctxlens::report::upgrade::to_json`),
    /// for protocol `api`, or why the worker could not compare; `tokens`: as asked.
    Upgrade {
        gen: u64,
        api: String,
        pi: String,
        tokens: bool,
        answer: Result<Value, String>,
    },
    /// Protocol `api`'s request with `changes` made (`ctxlens::report::whatif::to_json`), or
    /// why the worker could not make it; `tokens`: as asked.
    WhatIf {
        gen: u64,
        /// The page's number of the request answered.
        seq: u64,
        api: String,
        changes: Vec<String>,
        tokens: bool,
        /// The what-ifs this worker has assembled so far (this one included when it was).
        computed: u64,
        /// The answer with the whole session rebuilt (asked for after the request's).
        session: bool,
        answer: Result<Value, String>,
    },
    /// What the worker is doing for the what-if of (`api`, `changes`).
    WhatIfProgress {
        gen: u64,
        api: String,
        changes: Vec<String>,
        stage: String,
        done: f64,
    },
    /// The model catalog of pi release `pi`.
    Catalog {
        pi: Option<ctxlens::PiVersion>,
        json: Rc<String>,
    },
    /// Where the token counts of protocol `api`'s report are.
    Tokens {
        gen: u64,
        api: String,
        update: TokenUpdate,
    },
    /// The worker died (a bug in the core); it is restarted.
    Crashed {
        message: String,
    },
}

impl FromWorker {
    fn from_js(data: &JsValue) -> Option<FromWorker> {
        let s = |k: &str| get(data, k).as_string();
        let gen = get(data, "gen").as_f64().unwrap_or(0.0) as u64;
        Some(match s("type")?.as_str() {
            "ready" => FromWorker::Ready,
            // The worker could not start the assembly (a release's data did not load).
            "failed" => FromWorker::BadReport {
                gen,
                api: s("api"),
                error: s("error").unwrap_or_default(),
            },
            "progress" if get(data, "whatif").is_array() => FromWorker::WhatIfProgress {
                gen,
                api: s("api").unwrap_or_default(),
                changes: strings_of(&get(data, "whatif")),
                stage: s("stage").unwrap_or_default(),
                done: get(data, "done").as_f64().unwrap_or(0.0),
            },
            "progress" => FromWorker::Progress {
                gen,
                api: s("api"),
                stage: s("stage").unwrap_or_default(),
                done: get(data, "done").as_f64().unwrap_or(0.0),
                upgrade: s("upgrade"),
            },
            "provenance" => FromWorker::Provenance {
                gen,
                api: s("api").unwrap_or_default(),
                path: s("path").unwrap_or_default(),
                answer: s("json")
                    .and_then(|j| ctxlens::js::parse(&j).ok())
                    .unwrap_or(Value::Null),
            },
            "compare" => {
                let (a, b) = (s("a").unwrap_or_default(), s("b").unwrap_or_default());
                let answer = read_compare_answer(&s("json").unwrap_or_default(), &a, &b);
                FromWorker::Compare { gen, a, b, answer }
            }
            "upgrade" => {
                let pi = s("pi").unwrap_or_default();
                FromWorker::Upgrade {
                    gen,
                    api: s("api").unwrap_or_default(),
                    answer: read_upgrade_answer(&s("json").unwrap_or_default(), &pi),
                    pi,
                    tokens: get(data, "tokens").as_bool().unwrap_or(false),
                }
            }
            "whatif" => {
                let changes = strings_of(&get(data, "changes"));
                FromWorker::WhatIf {
                    gen,
                    seq: get(data, "seq").as_f64().unwrap_or(0.0) as u64,
                    computed: get(data, "computed").as_f64().unwrap_or(0.0) as u64,
                    session: get(data, "session").as_bool().unwrap_or(false),
                    api: s("api").unwrap_or_default(),
                    answer: read_whatif_answer(&s("json").unwrap_or_default(), &changes),
                    changes,
                    tokens: get(data, "tokens").as_bool().unwrap_or(false),
                }
            }
            "tokens" => FromWorker::Tokens {
                gen,
                api: s("api").unwrap_or_default(),
                update: TokenUpdate::from_js(data),
            },
            "catalog" => FromWorker::Catalog {
                pi: s("pi").and_then(|v| v.parse().ok()),
                json: Rc::new(s("json").unwrap_or_default()),
            },
            _ => return None,
        })
    }
}

/// The token counts of one report, as the worker says how far it got.
#[derive(Clone, Debug, PartialEq)]
pub enum TokenUpdate {
    /// The page asked; no answer yet.
    Asked,
    /// The model's vocabulary is being fetched: `loaded` of `total` bytes (`None`: the server
    /// did not say).
    Loading {
        vocabulary: Vocabulary,
        loaded: f64,
        total: Option<f64>,
    },
    /// The texts are being counted (`done`: 0–1).
    Counting { vocabulary: Vocabulary, done: f64 },
    /// `ctxlens::report::stats::to_json` of the statistics with tokens; `ms`: the counting's
    /// time in the worker.
    Ready {
        vocabulary: Vocabulary,
        stats: Shared<ctxlens::report::types::Stats>,
        /// Each call rebuilt beside the tokens the provider reported, the framing or the
        /// estimate's fit (`None` without calls with usage).
        calibration: Option<Shared<CalibrationInfo>>,
        /// How the tokens were counted or estimated (`ctxlens::tokens::Counted::notes`).
        notes: Vec<String>,
        /// The window and where pi's automatic compaction starts (`None`: no model).
        compaction: Option<Shared<WindowInfo>>,
        /// The worker's time for all of it (counting, the calls rebuilt), and the vocabulary's
        /// own: `(ms in count, UTF-8 bytes, tokens)` (zeros for an estimate).
        ms: f64,
        counted: (f64, f64, f64),
    },
    /// No count: no public vocabulary for this model (`Vocabulary::Unknown`) and no usage to
    /// calibrate an estimate on.
    Unknown {
        vocabulary: Vocabulary,
        calibration: Option<Shared<CalibrationInfo>>,
        notes: Vec<String>,
        compaction: Option<Shared<WindowInfo>>,
    },
    /// The vocabulary did not load, or the counting failed: why.
    Failed {
        vocabulary: Option<Vocabulary>,
        error: String,
        compaction: Option<Shared<WindowInfo>>,
    },
    /// Nothing to count: no model, or no request.
    Nothing { why: String },
}

pub use ctxlens::tokens::Vocabulary;

/// A vocabulary as the worker sends it (`ctxlens::report::calibration::VocabularyInfo`).
fn vocabulary_js(v: &Vocabulary) -> String {
    ctxlens::report::calibration::vocabulary_json(v).to_json()
}

/// The model's window and pi's compaction threshold for `tokens` counted (0 when none were);
/// `None` without a model.
fn window_of(a: &Assembly, tokens: Option<usize>) -> Option<WindowInfo> {
    ctxlens::analysis::window::window(a, tokens.unwrap_or(0))
        .map(|w| ctxlens::report::calibration::window(&w))
}

/// The `T` of the JSON `json` (`None`: absent, null, or not a `T`).
fn read_json<T: Wire>(json: Option<String>) -> Option<T> {
    T::from_value(&ctxlens::js::parse(&json?).ok()?)
}

fn read_vocabulary(json: &str) -> Option<Vocabulary> {
    read_json::<VocabularyInfo>(Some(json.to_string()))
        .map(|v| ctxlens::report::calibration::vocabulary_of(&v))
}

impl TokenUpdate {
    fn from_js(data: &JsValue) -> TokenUpdate {
        let s = |k: &str| get(data, k).as_string();
        let n = |k: &str| get(data, k).as_f64();
        let vocabulary = s("vocabulary").and_then(|j| read_vocabulary(&j));
        let calibration = read_json::<CalibrationInfo>(s("calibration")).map(Shared::new);
        let compaction = read_json::<WindowInfo>(s("compaction")).map(Shared::new);
        let notes: Vec<String> = s("notes")
            .and_then(|j| ctxlens::js::parse(&j).ok())
            .and_then(|v| v.as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|n| n.as_str().map(str::to_string))
            .collect();
        let Some(vocabulary) = vocabulary else {
            return match s("phase").as_deref() {
                Some("failed") => TokenUpdate::Failed {
                    vocabulary: None,
                    error: s("error").unwrap_or_default(),
                    compaction,
                },
                _ => TokenUpdate::Nothing {
                    why: s("error").unwrap_or_default(),
                },
            };
        };
        match s("phase").as_deref() {
            Some("loading") => TokenUpdate::Loading {
                vocabulary,
                loaded: n("loaded").unwrap_or(0.0),
                total: n("total"),
            },
            Some("counting") => TokenUpdate::Counting {
                vocabulary,
                done: n("done").unwrap_or(0.0),
            },
            Some("ready") => match read_json::<ctxlens::report::types::Stats>(s("stats")) {
                Some(stats) => TokenUpdate::Ready {
                    vocabulary,
                    stats: Shared::new(stats),
                    calibration,
                    notes,
                    compaction,
                    ms: n("ms").unwrap_or(0.0),
                    counted: (
                        n("countMs").unwrap_or(0.0),
                        n("countBytes").unwrap_or(0.0),
                        n("countTokens").unwrap_or(0.0),
                    ),
                },
                _ => TokenUpdate::Failed {
                    vocabulary: Some(vocabulary),
                    error: "the worker's token statistics did not parse".into(),
                    compaction,
                },
            },
            Some("unknown") => TokenUpdate::Unknown {
                vocabulary,
                calibration,
                notes,
                compaction,
            },
            _ => TokenUpdate::Failed {
                vocabulary: Some(vocabulary),
                error: s("error").unwrap_or_default(),
                compaction,
            },
        }
    }

    /// Whether the worker is still on it (a restarted worker is asked again).
    pub fn pending(&self) -> bool {
        matches!(
            self,
            TokenUpdate::Asked | TokenUpdate::Loading { .. } | TokenUpdate::Counting { .. }
        )
    }
}

/// The page's handle on the worker.
pub struct WorkerLink {
    worker: web_sys::Worker,
    /// Bumped to stop the page's joining of reports in flight (a new scenario, Stop, a restart).
    epoch: Rc<Cell<u64>>,
    /// The `message` and `error` listeners (gloo-events; removed when the link is dropped).
    _listeners: [EventListener; 2],
}

impl Drop for WorkerLink {
    fn drop(&mut self) {
        self.epoch.set(self.epoch.get() + 1);
        self.worker.terminate();
    }
}

impl WorkerLink {
    /// Starts `worker.js` (beside the page); `on_message` gets everything it says.
    pub fn start(on_message: Rc<dyn Fn(FromWorker)>) -> Result<WorkerLink, String> {
        let opts = web_sys::WorkerOptions::new();
        opts.set_type(web_sys::WorkerType::Module);
        let worker = web_sys::Worker::new_with_options("./worker.js", &opts)
            .map_err(|e| format!("could not start the worker: {e:?}"))?;
        let cb = on_message.clone();
        let epoch = Rc::new(Cell::new(0u64));
        let ep = epoch.clone();
        let on_msg = EventListener::new(&worker, "message", move |e| {
            let Some(e) = e.dyn_ref::<web_sys::MessageEvent>() else {
                return;
            };
            let data = e.data();
            let kind = get(&data, "type").as_string();
            if kind.as_deref() == Some("report") {
                wasm_bindgen_futures::spawn_local(join_report(data, cb.clone(), ep.clone()));
            } else if matches!(kind.as_deref(), Some("body" | "session")) {
                wasm_bindgen_futures::spawn_local(join_follower(data, cb.clone(), ep.clone()));
            } else if let Some(m) = FromWorker::from_js(&data) {
                cb(m);
            }
        });
        let cb = on_message;
        // Not passive: the crash is reported here, not as an uncaught error (preventDefault).
        let opts = EventListenerOptions::enable_prevent_default();
        let on_err = EventListener::new_with_options(&worker, "error", opts, move |e| {
            e.prevent_default();
            let message = get(e, "message")
                .as_string()
                .unwrap_or_else(|| "the worker stopped".into());
            cb(FromWorker::Crashed { message });
        });
        Ok(WorkerLink {
            worker,
            epoch,
            _listeners: [on_msg, on_err],
        })
    }

    /// Stops joining the reports that have come (they belong to a scenario that is gone).
    pub fn cancel_joining(&self) {
        self.epoch.set(self.epoch.get() + 1);
    }

    /// Posts `msg` (transferring `transfer`'s buffers).
    fn send(&self, msg: &ToWorker, transfer: Option<&js_sys::Array>) {
        let m = msg.to_js();
        let sent = match transfer {
            Some(t) => self.worker.post_message_with_transfer(&m, t),
            None => self.worker.post_message(&m),
        };
        if let Err(e) = sent {
            web_sys::console::error_2(
                &"ctxlens: could not send a message to the worker".into(),
                &e,
            );
        }
    }

    /// Sends a laid-out scenario (the file bytes are transferred, not copied twice).
    pub fn load(&self, gen: u64, laid: &Laid) {
        let files = js_sys::Array::new();
        let transfer = js_sys::Array::new();
        for (path, bytes) in &laid.files {
            let arr = js_sys::Uint8Array::from(bytes.as_slice());
            transfer.push(&arr.buffer());
            files.push(&js_sys::Array::of2(&JsValue::from_str(path), &arr));
        }
        let msg = ToWorker::Load {
            gen,
            files,
            opts: LayOptions::of(laid),
        };
        self.send(&msg, Some(&transfer));
    }

    /// Asks for the report of `api` (`None`: the model's own). `shared_from`: a report of this
    /// scenario the page holds, whose session parts (`ctxlens::report::Omit::session`) the new
    /// one takes (the worker leaves them out).
    pub fn assemble(&self, gen: u64, api: Option<&str>, shared_from: Option<&str>) {
        self.send(
            &ToWorker::Assemble {
                gen,
                api: api.map(String::from),
                shared_from: shared_from.map(String::from),
            },
            None,
        );
    }

    /// Asks for the source of one body path of the report of `api` (its provenance stayed in the
    /// worker).
    pub fn provenance(&self, gen: u64, api: &str, path: &str) {
        let (api, path) = (api.to_string(), path.to_string());
        self.send(&ToWorker::Provenance { gen, api, path }, None);
    }

    /// Asks for the core's comparison of protocol `a` with protocol `b` (answered by a
    /// [`FromWorker::Compare`]).
    pub fn compare(&self, gen: u64, a: &str, b: &str) {
        let (a, b) = (a.to_string(), b.to_string());
        self.send(&ToWorker::Compare { gen, a, b }, None);
    }

    /// Asks what the same inputs give under pi release `pi` for protocol `api` (answered by a
    /// [`FromWorker::Upgrade`]); `tokens`: counted on both sides when the model's vocabulary is
    /// loaded.
    pub fn upgrade(&self, gen: u64, api: &str, pi: &str, tokens: bool) {
        let (api, pi) = (api.to_string(), pi.to_string());
        self.send(
            &ToWorker::Upgrade(UpgradeAsk {
                gen,
                api,
                pi,
                tokens,
            }),
            None,
        );
    }

    /// Asks for protocol `api`'s request with `changes` made (answered by a
    /// [`FromWorker::WhatIf`] with the same `seq`); `tokens`: counted on both sides when the
    /// model's vocabulary is loaded; `session`: with the whole session rebuilt (its calls, two
    /// assemblies each: asked for once the request's own answer is on screen).
    pub fn whatif(
        &self,
        gen: u64,
        seq: u64,
        api: &str,
        changes: &[String],
        tokens: bool,
        session: bool,
    ) {
        let ask = WhatIfAsk {
            gen,
            seq,
            api: api.to_string(),
            changes: changes.to_vec(),
            tokens,
            session,
        };
        self.send(&ToWorker::WhatIf(ask), None);
    }

    /// Asks for the statistics of protocol `api`'s report with tokens (answered by
    /// [`FromWorker::Tokens`] updates).
    pub fn tokens(&self, gen: u64, api: &str, calls: bool) {
        let ask = TokensAsk {
            gen,
            api: api.to_string(),
            calls,
            counted: None,
        };
        self.send(&ToWorker::Tokens(ask), None);
    }

    /// The model catalog of pi `version` (the release on screen).
    pub fn catalog(&self, version: ctxlens::PiVersion) {
        let pi = version.as_str().to_string();
        self.send(&ToWorker::Catalog { pi }, None);
    }
}

// ---------------------------------------------------------------------------------------------
// The page side: joining a report in short tasks.

/// Lets the page's thread handle input and paint (a message to itself: no timer clamping). Not
/// gloo-timers' `TimeoutFuture::new(0)`: chained `setTimeout(0)`s are clamped to 4 ms from the
/// fifth on (measured in Chromium: 4.0 ms per yield, against 0.015 ms for a `MessageChannel`),
/// which would add a third to the joining of a large report (a yield every 12 ms of work).
pub(crate) async fn yield_to_page() {
    let Ok(ch) = web_sys::MessageChannel::new() else {
        return;
    };
    let p = js_sys::Promise::new(&mut |resolve, _| ch.port1().set_onmessage(Some(&resolve)));
    if ch.port2().post_message(&JsValue::NULL).is_ok() {
        let _ = wasm_bindgen_futures::JsFuture::from(p).await;
    }
    ch.port1().set_onmessage(None);
}

/// A task that resumes after `ms` (a timer: nothing runs meanwhile on its account).
async fn sleep(scope: &web_sys::DedicatedWorkerGlobalScope, ms: i32) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        let _ = scope.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(p).await;
}

pub(crate) fn now_ms() -> f64 {
    js_sys::global()
        .dyn_into::<web_sys::Window>()
        .ok()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or_else(js_sys::Date::now)
}

/// Work for about this long, then let the page breathe.
const SLICE_MS: f64 = 12.0;

/// The parts of a `report` message: `(path, append, offset, length)` into its bytes.
fn parts_of(v: &JsValue) -> Vec<(Vec<String>, bool, u32, u32)> {
    let arr: js_sys::Array = v.clone().dyn_into().unwrap_or_default();
    arr.iter()
        .filter_map(|p| {
            let p: js_sys::Array = p.dyn_into().ok()?;
            let path: js_sys::Array = p.get(0).dyn_into().ok()?;
            Some((
                path.iter().filter_map(|k| k.as_string()).collect(),
                p.get(1).as_bool().unwrap_or(false),
                p.get(2).as_f64()? as u32,
                p.get(3).as_f64()? as u32,
            ))
        })
        .collect()
}

/// `len` bytes at `offset` of a buffer, as text.
fn text_at(bytes: &js_sys::Uint8Array, offset: u32, len: u32) -> Option<String> {
    if offset.checked_add(len)? > bytes.length() {
        return None;
    }
    String::from_utf8(bytes.subarray(offset, offset + len).to_vec()).ok()
}

/// A message's byte buffer (empty when absent).
fn bytes_of(data: &JsValue, k: &str) -> js_sys::Uint8Array {
    get(data, k)
        .dyn_into::<js_sys::Uint8Array>()
        .unwrap_or_else(|_| js_sys::Uint8Array::new_with_length(0))
}

/// Joins one value from its parts into `bytes`, yielding to the page when a slice of work has
/// taken [`SLICE_MS`] (`progress` is told how many bytes are `done` first) and, as background
/// work (`behind_reports`), before each part while a report is being joined
/// ([`after_reports`]); `None` when `live` says to give up, an error when a part is not what the
/// worker writes.
async fn join_parts(
    list: &[(Vec<String>, bool, u32, u32)],
    bytes: &js_sys::Uint8Array,
    done: &mut f64,
    slice_start: &mut f64,
    progress: &dyn Fn(f64),
    live: &dyn Fn() -> bool,
    behind_reports: bool,
) -> Result<Option<Value>, String> {
    let mut joiner = crate::wire::Joiner::new();
    for (path, append, offset, len) in list {
        if behind_reports && REPORTS_JOINING.with(Cell::get) > 0 {
            after_reports().await;
            if !live() {
                return Ok(None);
            }
            *slice_start = now_ms();
        }
        let Some(text) = text_at(bytes, *offset, *len) else {
            return Err("a part of the worker's report is not UTF-8 text".into());
        };
        *done += text.len() as f64;
        let v = ctxlens::js::parse(&text)
            .map_err(|e| format!("a part of the worker's report did not parse: {}", e.message))?;
        drop(text);
        joiner
            .add(path, *append, v)
            .map_err(|e| format!("the worker's report did not join: {e}"))?;
        if now_ms() - *slice_start > SLICE_MS {
            progress(*done);
            yield_to_page().await;
            if !live() {
                return Ok(None);
            }
            *slice_start = now_ms();
        }
    }
    Ok(Some(joiner.finish()))
}

thread_local! {
    /// The reports the page is joining now, and the body joins waiting for them to be done.
    static REPORTS_JOINING: Cell<usize> = const { Cell::new(0) };
    static BODY_WAITERS: RefCell<Vec<js_sys::Function>> = const { RefCell::new(Vec::new()) };
}

/// A report (or the session parts after a first report) being joined (while it lives); the last
/// one done lets the body joins go on.
struct JoiningReport;

impl JoiningReport {
    fn start() -> JoiningReport {
        REPORTS_JOINING.with(|n| n.set(n.get() + 1));
        JoiningReport
    }
}

impl Drop for JoiningReport {
    fn drop(&mut self) {
        let left = REPORTS_JOINING.with(|n| {
            n.set(n.get().saturating_sub(1));
            n.get()
        });
        if left == 0 {
            for resolve in BODY_WAITERS.with(|w| std::mem::take(&mut *w.borrow_mut())) {
                let _ = resolve.call0(&JsValue::NULL);
            }
        }
    }
}

/// Waits while the page joins a report, then one more turn of the page (its rendering of that
/// report): a body's tree is background work, and the report on screen goes first.
async fn after_reports() {
    while REPORTS_JOINING.with(Cell::get) > 0 {
        let p = js_sys::Promise::new(&mut |resolve, _| {
            BODY_WAITERS.with(|w| w.borrow_mut().push(resolve))
        });
        let _ = wasm_bindgen_futures::JsFuture::from(p).await;
        yield_to_page().await;
    }
}

/// Joins what follows a report, with [`join_parts`] behind the reports being joined: its body
/// parsed (a `body` message; one whose parts do not join is said as `None`, and the views then
/// parse the body themselves) or its session's parts (a `session` message, which the Session
/// views wait for: once the reports are joined it is joined as one, ahead of the bodies).
async fn join_follower(data: JsValue, cb: Rc<dyn Fn(FromWorker)>, epoch: Rc<Cell<u64>>) {
    let start_epoch = epoch.get();
    let live = || epoch.get() == start_epoch;
    let session = get(&data, "type").as_string().as_deref() == Some("session");
    let _ahead_of_bodies = if session {
        after_reports().await;
        if !live() {
            return;
        }
        Some(JoiningReport::start())
    } else {
        None
    };
    let parts = parts_of(&get(&data, "parts"));
    let bytes = bytes_of(&data, "partsBytes");
    let (mut done, mut slice_start) = (0.0, now_ms());
    let joined = match join_parts(
        &parts,
        &bytes,
        &mut done,
        &mut slice_start,
        &|_| {},
        &live,
        !session,
    )
    .await
    {
        Ok(None) => return,
        Ok(Some(v)) => Some(v),
        Err(_) => None,
    };
    let gen = get(&data, "gen").as_f64().unwrap_or(0.0) as u64;
    let seq = get(&data, "seq").as_f64().unwrap_or(0.0) as u64;
    cb(if session {
        FromWorker::Session {
            gen,
            seq,
            parts: joined,
        }
    } else {
        FromWorker::Body {
            gen,
            seq,
            parsed: joined.filter(|v| !v.is_null()).map(Shared::new),
        }
    });
}

/// Joins one report from its parts, yielding to the page between short slices of work and
/// saying how far it got; gives up quietly when `epoch` moves (the scenario changed, Stop).
async fn join_report(data: JsValue, cb: Rc<dyn Fn(FromWorker)>, epoch: Rc<Cell<u64>>) {
    // Body joins wait until this report is on screen.
    let _joining = JoiningReport::start();
    let start_epoch = epoch.get();
    let live = || epoch.get() == start_epoch;
    let gen = get(&data, "gen").as_f64().unwrap_or(0.0) as u64;
    let api = get(&data, "api").as_string();
    let parts = parts_of(&get(&data, "parts"));
    let part_bytes = bytes_of(&data, "partsBytes");
    let body_js: Option<js_sys::Uint8Array> = get(&data, "body").dyn_into().ok();
    let total =
        part_bytes.length() as f64 + body_js.as_ref().map(|b| b.length() as f64).unwrap_or(0.0);
    let mut done = 0.0;
    let mut slice_start = now_ms();
    let progress = |done: f64| {
        let mb = |x: f64| x / 1_048_576.0;
        cb(FromWorker::Progress {
            gen,
            api: api.clone(),
            stage: format!(
                "reading the report on the page ({:.1} of {:.1} MB)",
                mb(done),
                mb(total)
            ),
            done: 0.75 + 0.25 * done / total.max(1.0),
            upgrade: None,
        })
    };
    let bad = |error: String| {
        cb(FromWorker::BadReport {
            gen,
            api: api.clone(),
            error,
        })
    };
    progress(0.0);
    // The report, part by part.
    let mut report = match join_parts(
        &parts,
        &part_bytes,
        &mut done,
        &mut slice_start,
        &progress,
        &live,
        false,
    )
    .await
    {
        Ok(Some(v)) => v,
        Ok(None) => return,
        Err(e) => return bad(e),
    };
    if let Some(b) = &body_js {
        // The body's bytes, copied straight into the string's own buffer a slice at a time, each
        // slice checked as UTF-8 as it comes (so no task copies or checks the whole body).
        const SLICE: u32 = 4 << 20;
        let mut text = ctxlens::js::StrBuilder::new(b.length() as usize);
        let mut at = 0;
        while at < b.length() {
            progress(done);
            yield_to_page().await;
            if !live() {
                return;
            }
            let end = (at + SLICE).min(b.length());
            b.subarray(at, end)
                .copy_to(text.slice_mut(at as usize, end as usize));
            text.check(end as usize);
            done += (end - at) as f64;
            at = end;
        }
        if let Some(req) = report
            .as_object_mut()
            .and_then(|o| o.get_mut("request"))
            .and_then(Value::as_object_mut)
        {
            req.insert("body", Value::String(text.finish()));
        }
    }
    if !live() {
        return;
    }
    // For scripts/bench-app.mjs: the page has read the report (its rendering comes next).
    if let Some(p) = js_sys::global()
        .dyn_into::<web_sys::Window>()
        .ok()
        .and_then(|w| w.performance())
    {
        let _ = p.mark(&format!(
            "ctxlens:report-joined:{}",
            api.as_deref().unwrap_or("native")
        ));
    }
    let mut report = crate::report::Report::new(report);
    // Its session parts follow in a `session` message with the same `seq`.
    report.session_pending = get(&data, "sessionFollows").as_bool().unwrap_or(false);
    cb(FromWorker::Report(Arrived {
        gen,
        api,
        seq: get(&data, "seq").as_f64().unwrap_or(0.0) as u64,
        report: Shared::new(report),
        body_pending: get(&data, "bodyPending").as_bool().unwrap_or(false),
        provenance_in_worker: get(&data, "provenanceInWorker").as_bool().unwrap_or(false),
        shared_from: get(&data, "sharedFrom").as_string(),
        bytes: total as usize,
        ms: get(&data, "ms").as_f64().unwrap_or(0.0),
        memory_bytes: get(&data, "memoryBytes").as_f64().unwrap_or(0.0),
    }));
}

/// A report from the worker ([`FromWorker::Report`]), joined on the page from its parts.
#[derive(Clone, Debug, PartialEq)]
pub struct Arrived {
    pub gen: u64,
    pub api: Option<String>,
    /// The worker's number of the report.
    pub seq: u64,
    pub report: Shared<crate::report::Report>,
    /// Its body parsed follows ([`FromWorker::Body`] with the same `seq`).
    pub body_pending: bool,
    pub provenance_in_worker: bool,
    /// The report (by its key) whose session parts (`session`, `calls`, `usage.timeline`)
    /// this one shares: the worker left them out.
    pub shared_from: Option<String>,
    /// The JSON's size, in bytes.
    pub bytes: usize,
    /// The worker's time for it.
    pub ms: f64,
    pub memory_bytes: f64,
}

// ---------------------------------------------------------------------------------------------
// The worker side.

struct Loaded {
    gen: u64,
    files: CaseFiles,
    opts: LayOptions,
    /// The provenance of this scenario's reports that left it out, by api (the last few).
    provenance: Vec<(String, RefCell<Origins>)>,
    /// This scenario's inputs laid out once (under the model's own protocol), with the notes of
    /// reading the case; made on first use.
    base: std::cell::OnceCell<(ctxlens::Inputs, Vec<ctxlens::Diagnostic>)>,
    /// The engine: the session read once (its lines, its release detection, its file under each
    /// release), and the assemblies made for this scenario with their statistics, the oldest
    /// let go past [`KEPT_ASSEMBLY_BYTES`] — a protocol switched back, a comparison, a what-if's
    /// base and the past calls it rebuilds are not assembled again.
    engine: ctxlens::Workspace,
    /// The model's own protocol, once assembled under it: asked for by name, it is the same
    /// request as without a switch, and the same kept assembly.
    own_api: std::cell::OnceCell<String>,
}

impl Loaded {
    fn new(gen: u64, files: CaseFiles, opts: LayOptions) -> Loaded {
        Loaded {
            gen,
            files,
            opts,
            provenance: Vec::new(),
            base: std::cell::OnceCell::new(),
            engine: ctxlens::Workspace::with_budget(KEPT_ASSEMBLY_BYTES),
            own_api: std::cell::OnceCell::new(),
        }
    }

    fn base(&self) -> &(ctxlens::Inputs, Vec<ctxlens::Diagnostic>) {
        self.base
            .get_or_init(|| inputs_of(&self.files, self.opts.clone(), None))
    }

    /// This scenario's inputs under protocol `api` (`None`: the model's own).
    fn inputs(&self, api: Option<&str>) -> ctxlens::Inputs {
        let mut inputs = self.base().0.clone();
        inputs.api = api
            .filter(|a| self.own_api.get().is_none_or(|own| own != a))
            .and_then(|a| a.parse().ok());
        inputs
    }

    /// The assembly of `inputs` (the engine's, kept), with the notes of reading the case first
    /// in its diagnostics (they explain the rest).
    fn assembled(&self, inputs: &ctxlens::Inputs) -> Rc<Assembly> {
        let a = self.engine.assemble(inputs);
        if let (None, Some(m)) = (inputs.api, &a.parts.model_choice.model) {
            let _ = self.own_api.set(m.api().to_string());
        }
        let notes = &self.base().1;
        if notes.is_empty() {
            return a;
        }
        let mut a = (*a).clone();
        let mut diags = notes.clone();
        diags.append(&mut a.diagnostics);
        a.diagnostics = diags;
        Rc::new(a)
    }

    /// [`Loaded::assembled`] under `api`, with what pi read of the files and what it ignored
    /// (`ctxlens::report::placement`).
    fn assemble_placed(&self, api: Option<&str>) -> (Rc<Assembly>, Value) {
        let inputs = self.inputs(api);
        let assembly = self.assembled(&inputs);
        let placement = ctxlens::report::placement::to_json(
            &ctxlens::analysis::placement::placement(&inputs, &assembly),
        );
        (assembly, placement)
    }

    /// This scenario's inputs under protocol `api` and pi release `pi` (the upgrade
    /// comparison's second side, a `pi=` what-if's target).
    fn inputs_under(&self, api: &str, pi: ctxlens::PiVersion) -> ctxlens::Inputs {
        let mut inputs = self.inputs(Some(api));
        inputs.pi = Some(pi);
        inputs
    }

    /// The next release whose data this scenario's request under `api` (then `also`) needs
    /// and the worker has not loaded ([`ctxlens::Workspace::missing_release`]). The detection
    /// reads no release's data (every release's fingerprints are compiled in), so the choice
    /// is the CLI's whatever has loaded.
    fn missing_release(
        &self,
        api: Option<&str>,
        also: impl IntoIterator<Item = ctxlens::PiVersion>,
    ) -> Option<ctxlens::PiVersion> {
        self.engine.missing_release(&self.inputs(api), also)
    }

    /// `calibration` with each call's release (`pi`), as the engine chooses it for that call
    /// of `inputs`' session (a call of a session a later pi continued, the release that made
    /// it).
    fn with_call_releases(&self, calibration: &mut CalibrationInfo, inputs: &ctxlens::Inputs) {
        for call in &mut calibration.calls {
            let mut at = inputs.clone();
            at.prompt = None;
            at.call = Some(match &call.entry_id {
                Some(id) => CallRef::Entry(id.clone()),
                None => CallRef::Index(call.index),
            });
            let choice = self.engine.choose(&at);
            call.pi = Some(ctxlens::report::calibration::CallRelease {
                version: choice.version,
                reason: choice.reason,
            })
            .into();
        }
    }

    /// The assembly of protocol `api`: the one kept, else made now (and kept).
    fn assembly_of(&self, api: &str) -> Rc<Assembly> {
        self.assembled(&self.inputs(Some(api)))
    }
}

/// Parts as `[[path, append, offset, length]…]` into one UTF-8 buffer (transferred, not copied
/// or re-encoded on the way).
fn parts_js(parts: Vec<Part>) -> (js_sys::Array, js_sys::Uint8Array) {
    let index = js_sys::Array::new();
    let mut bytes = Vec::with_capacity(parts.iter().map(|p| p.json.len()).sum());
    for p in parts {
        let path = js_sys::Array::new();
        for k in &p.path {
            path.push(&JsValue::from_str(k));
        }
        let entry = js_sys::Array::of4(
            &path,
            &JsValue::from_bool(p.append),
            &JsValue::from_f64(bytes.len() as f64),
            &JsValue::from_f64(p.json.len() as f64),
        );
        index.push(&entry);
        bytes.extend_from_slice(p.json.as_bytes());
    }
    (index, js_sys::Uint8Array::from(bytes.as_slice()))
}

pub(crate) fn post(scope: &web_sys::DedicatedWorkerGlobalScope, msg: &js_sys::Object) {
    let _ = scope.post_message(msg);
}

fn progress(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    gen: u64,
    api: Option<&str>,
    stage: &str,
    done: f64,
) {
    let m = js_sys::Object::new();
    set(&m, "type", "progress");
    set(&m, "gen", gen as f64);
    set(&m, "api", opt_str(api));
    set(&m, "stage", stage);
    set(&m, "done", done);
    post(scope, &m);
}

fn mb(bytes: usize) -> String {
    format!("{:.1} MB", bytes as f64 / 1_048_576.0)
}

pub(crate) fn memory_bytes() -> f64 {
    wasm_bindgen::memory()
        .dyn_into::<js_sys::WebAssembly::Memory>()
        .map(|m| get(&m.buffer(), "byteLength").as_f64().unwrap_or(0.0))
        .unwrap_or(0.0)
}

thread_local! {
    /// The messages waiting for a release's data on its way: a second message needing the
    /// same release waits for the first fetch instead of fetching again.
    static FETCHING: RefCell<ctxlens::pi::data::Waiting<ToWorker>> = RefCell::new(Default::default());
}

/// Fetches pi `version`'s data folder (`pi-data/pi-<version>/`, beside the worker's script) and
/// installs it, once; the messages that needed it are then handled again.
fn fetch_release_then(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    loaded: &Rc<RefCell<Option<Loaded>>>,
    version: ctxlens::PiVersion,
    msg: ToWorker,
) {
    let stage = format!("fetching pi {version}'s data");
    report_fetching(scope, &msg, &stage);
    let first = FETCHING.with(|f| f.borrow_mut().wait(version, msg));
    if first {
        spawn_fetch(scope, loaded, version);
    }
}

/// Fetches and installs `version`'s data, then handles the messages that waited for it (or
/// says to each that it did not load).
fn spawn_fetch(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    loaded: &Rc<RefCell<Option<Loaded>>>,
    version: ctxlens::PiVersion,
) {
    let (scope, loaded) = (scope.clone(), loaded.clone());
    wasm_bindgen_futures::spawn_local(async move {
        match fetch_release(&scope, version).await {
            // Each asks again for what it needs (the next release, or none).
            Ok(()) => {
                for msg in FETCHING.with(|f| f.borrow_mut().take_ready()) {
                    handle(&scope, &loaded, msg);
                }
            }
            Err(e) => {
                let error = format!("pi {version}'s data could not be loaded: {e}");
                for msg in FETCHING.with(|f| f.borrow_mut().take(version)) {
                    fail_fetching(&scope, &msg, &error);
                }
            }
        }
    });
}

/// The progress of message `msg` while a release's data is fetched: an upgrade comparison's
/// goes to the comparison and a what-if's to the what-if, not to the report.
fn report_fetching(scope: &web_sys::DedicatedWorkerGlobalScope, msg: &ToWorker, stage: &str) {
    match msg {
        ToWorker::WhatIf(w) => whatif_progress(scope, w, stage, 0.01),
        ToWorker::Upgrade(u) => upgrade_progress(scope, u, stage, 0.01),
        _ => progress(scope, msg.gen(), msg.api(), stage, 0.01),
    }
}

/// Message `msg` could not be handled: a release's data did not load.
fn fail_fetching(scope: &web_sys::DedicatedWorkerGlobalScope, msg: &ToWorker, error: &str) {
    match msg {
        ToWorker::Upgrade(u) => post_upgrade(scope, u, Err(error.to_string())),
        ToWorker::WhatIf(w) => post_whatif(scope, w, Err(error.to_string())),
        _ => {
            let m = js_sys::Object::new();
            set(&m, "type", "failed");
            set(&m, "gen", msg.gen() as f64);
            set(&m, "api", opt_str(msg.api()));
            set(&m, "error", error);
            post(scope, &m);
        }
    }
}

/// Progress of the `upgrade` message `u`.
fn upgrade_progress(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    u: &UpgradeAsk,
    stage: &str,
    done: f64,
) {
    let m = js_sys::Object::new();
    set(&m, "type", "progress");
    set(&m, "gen", u.gen as f64);
    set(&m, "api", u.api.as_str());
    set(&m, "stage", stage);
    set(&m, "done", done);
    set(&m, "upgrade", u.pi.as_str());
    post(scope, &m);
}

/// The answer to the `upgrade` message `u`.
fn post_upgrade(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    u: &UpgradeAsk,
    answer: Result<Value, String>,
) {
    let m = js_sys::Object::new();
    set(&m, "type", "upgrade");
    set(&m, "gen", u.gen as f64);
    set(&m, "api", u.api.as_str());
    set(&m, "pi", u.pi.as_str());
    set(&m, "tokens", u.tokens);
    set(&m, "json", upgrade_answer(answer).as_str());
    post(scope, &m);
}

/// The `upgrade` message: the scenario's inputs assembled again under another release, and the
/// core's comparison of the two (see the module's doc).
fn handle_upgrade(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    loaded: &Rc<RefCell<Option<Loaded>>>,
    u: UpgradeAsk,
) {
    let (gen, api) = (u.gen, u.api.as_str());
    let Ok(pi) = u.pi.parse::<ctxlens::PiVersion>() else {
        return post_upgrade(scope, &u, Err(format!("ctxlens does not know pi {}", u.pi)));
    };
    let gone = "The worker no longer holds these files (it was restarted or moved on): drop or open the files again.";
    // Either release's data, when missing (the first side's too: a restarted worker).
    let missing = {
        let mut guard = loaded.borrow_mut();
        match guard.as_mut().filter(|l| l.gen == gen) {
            Some(l) => l.missing_release(Some(api), [pi]),
            None => return post_upgrade(scope, &u, Err(gone.into())),
        }
    };
    if let Some(v) = missing {
        return fetch_release_then(scope, loaded, v, ToWorker::Upgrade(u));
    }
    // pi's release notes and the version table's docs, fetched once for the worker's life.
    let wait = NOTES.with(|n| match &mut *n.borrow_mut() {
        NotesState::Tried => false,
        NotesState::Loading(waiting) => {
            waiting.push(u.clone());
            true
        }
        state @ NotesState::Missing => {
            *state = NotesState::Loading(vec![u.clone()]);
            upgrade_progress(scope, &u, "fetching pi's release notes", 0.05);
            fetch_notes(scope, loaded);
            true
        }
    });
    if wait {
        return;
    }
    let step = |stage: &str, done: f64| upgrade_progress(scope, &u, stage, done);
    step(&format!("rebuilding the request under pi {pi}"), 0.3);
    let (a, b) = {
        let mut guard = loaded.borrow_mut();
        let Some(l) = guard.as_mut().filter(|l| l.gen == gen) else {
            return post_upgrade(scope, &u, Err(gone.into()));
        };
        let a = l.assembly_of(api);
        let inputs = l.inputs_under(api, pi);
        (a, l.assembled(&inputs))
    };
    // Tokens on both sides with the model's vocabulary, when it is loaded here.
    let module = u
        .tokens
        .then(|| match ctxlens::tokens::vocabulary_of(&a) {
            Some(Vocabulary::Known { name, exact, .. }) => {
                VOCABS.with(|v| match v.borrow().get(&name) {
                    Some(VocabSlot::Ready(m)) => Some((m.clone(), exact)),
                    _ => None,
                })
            }
            _ => None,
        })
        .flatten();
    let (sa, sb) = match &module {
        Some((m, exact)) => {
            step("counting the tokens of both", 0.6);
            let no_progress = |_: f64| {};
            let count = |x: &Assembly| {
                let mut c = crate::vocab::Counter::new(m, *exact, &no_progress);
                ctxlens::analysis::stats::compute_with_tokens(x, &mut c)
                    .ok()
                    .flatten()
            };
            (count(&a), count(&b))
        }
        None => (None, None),
    };
    step("comparing", 0.9);
    let up = ctxlens::analysis::upgrade::upgrade(&a, &b, sa.as_ref(), sb.as_ref());
    post_upgrade(scope, &u, Ok(ctxlens::report::upgrade::to_json(&up)));
}

thread_local! {
    /// The what-ifs this worker has assembled (the changed side built), posted with each answer:
    /// what the page reads to know that it asked for no stale one.
    static WHATIFS_COMPUTED: Cell<u64> = const { Cell::new(0) };
    /// The whole session of a what-if being rebuilt, one call per task: a newer `whatif` (the
    /// page asks for one only when it no longer waits for this) or a new scenario drops it, and
    /// the page's other messages are answered between its calls.
    static SESSION_JOB: RefCell<Option<SessionJob>> = const { RefCell::new(None) };
}

/// See `SESSION_JOB`.
struct SessionJob {
    gen: u64,
    /// The `whatif` message asking for it (its answer and progress carry its fields).
    ask: WhatIfAsk,
    /// The request's what-if, answered again with the session.
    w: ctxlens::analysis::whatif::WhatIf,
    /// The model's vocabulary, when the tokens are counted.
    module: Option<(Rc<crate::vocab::VocabModule>, bool)>,
    rebuild: ctxlens::analysis::whatif::SessionRebuild,
}

/// `f` with a counter of `module`'s vocabulary (`None`: no vocabulary, characters only).
fn with_counter<R>(
    module: &Option<(Rc<crate::vocab::VocabModule>, bool)>,
    f: impl FnOnce(&mut crate::vocab::Counter) -> R,
) -> Option<R> {
    let (m, exact) = module.as_ref()?;
    let no_progress = |_: f64| {};
    Some(f(&mut crate::vocab::Counter::new(m, *exact, &no_progress)))
}

/// The statistics of `x` with tokens counted by `module` (`None`: characters only).
fn stats_with_tokens(
    module: &Option<(Rc<crate::vocab::VocabModule>, bool)>,
    x: &Assembly,
) -> Option<ctxlens::analysis::stats::Stats> {
    with_counter(module, |c| {
        ctxlens::analysis::stats::compute_with_tokens(x, c)
            .ok()
            .flatten()
    })
    .flatten()
}

/// Runs the session job's next call in a task of its own (a timer: the page's messages that came
/// meanwhile are handled first).
fn schedule_session_step(loaded: &Rc<RefCell<Option<Loaded>>>) {
    let loaded = loaded.clone();
    gloo_timers::callback::Timeout::new(0, move || session_step(&loaded)).forget();
}

/// One call of the session job; the answer once the last is rebuilt.
fn session_step(loaded: &Rc<RefCell<Option<Loaded>>>) {
    let Some(mut job) = SESSION_JOB.with(|j| j.borrow_mut().take()) else {
        return;
    };
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let guard = loaded.borrow();
    // A new scenario: nobody waits for this one.
    let Some(l) = guard.as_ref().filter(|l| l.gen == job.gen) else {
        return;
    };
    let (done, total) = job.rebuild.progress();
    whatif_progress(
        &scope,
        &job.ask,
        &format!(
            "rebuilding the session's calls with the changes ({} of {total})",
            done + 1
        ),
        0.6 + 0.35 * done as f64 / total.max(1) as f64,
    );
    let module = &job.module;
    // The statistics' sums alone: no row per message of every call.
    let mut per_call = |_: &ctxlens::Inputs, x: &Assembly| {
        with_counter(module, |c| {
            ctxlens::analysis::stats::sums(x, Some(c)).ok().flatten()
        })
        .flatten()
        .map(|s| s.total_tokens())
    };
    job.rebuild.step(&l.engine, &mut per_call);
    drop(guard);
    let (done, total) = job.rebuild.progress();
    if done < total {
        SESSION_JOB.with(|j| *j.borrow_mut() = Some(job));
        return schedule_session_step(loaded);
    }
    let session = job.rebuild.finish();
    let mut json = ctxlens::report::whatif::to_json(&job.w, Some(&session));
    if let Some(o) = json.as_object_mut() {
        o.insert("sessionPending", Value::Bool(false));
    }
    post_whatif(&scope, &job.ask, Ok(json));
}

/// Progress of the `whatif` message `w`.
fn whatif_progress(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    w: &WhatIfAsk,
    stage: &str,
    done: f64,
) {
    let m = js_sys::Object::new();
    set(&m, "type", "progress");
    set(&m, "gen", w.gen as f64);
    set(&m, "api", w.api.as_str());
    set(&m, "stage", stage);
    set(&m, "done", done);
    set(&m, "whatif", strings_js(&w.changes));
    post(scope, &m);
}

/// The answer to the `whatif` message `w`.
fn post_whatif(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    w: &WhatIfAsk,
    answer: Result<Value, String>,
) {
    let m = js_sys::Object::new();
    set(&m, "type", "whatif");
    set(&m, "gen", w.gen as f64);
    set(&m, "seq", w.seq as f64);
    set(&m, "api", w.api.as_str());
    set(&m, "tokens", w.tokens);
    set(&m, "session", w.session);
    set(&m, "computed", WHATIFS_COMPUTED.with(Cell::get) as f64);
    set(&m, "changes", strings_js(&w.changes));
    set(&m, "json", whatif_answer(answer).as_str());
    post(scope, &m);
}

/// A what-if spec: `KEY=VALUE` for the settings (`model=`, `thinking=`, `api=`, `pi=`), else
/// what is switched off.
fn parse_change(spec: &str) -> Result<ctxlens::analysis::whatif::Change, String> {
    use ctxlens::analysis::whatif::Change;
    let set = ["model=", "thinking=", "api=", "pi="]
        .iter()
        .any(|k| spec.starts_with(k));
    if set {
        Change::parse_set(spec)
    } else {
        Change::parse_without(spec)
    }
}

/// The `whatif` message: the scenario's inputs with the changes made, assembled, and the core's
/// what-if of the two (see the module's doc).
fn handle_whatif(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    loaded: &Rc<RefCell<Option<Loaded>>>,
    ask: WhatIfAsk,
) {
    use ctxlens::analysis::whatif::{self, Change};
    // The page asks for a what-if only once it no longer waits for the session being rebuilt.
    SESSION_JOB.with(|j| j.borrow_mut().take());
    let (gen, api) = (ask.gen, ask.api.clone());
    let specs = ask.changes.clone();
    let changes: Vec<Change> = match specs.iter().map(|s| parse_change(s)).collect() {
        Ok(c) => c,
        Err(e) => return post_whatif(scope, &ask, Err(e)),
    };
    if changes.is_empty() {
        return post_whatif(scope, &ask, Err("no change asked for".into()));
    }
    let release = changes.iter().rev().find_map(|c| match c {
        Change::Pi(v) => Some(*v),
        _ => None,
    });
    let gone = "The worker no longer holds these files (it was restarted or moved on): drop or open the files again.";
    let missing = {
        let mut guard = loaded.borrow_mut();
        match guard.as_mut().filter(|l| l.gen == gen) {
            Some(l) => l.missing_release(Some(&api), release),
            None => return post_whatif(scope, &ask, Err(gone.into())),
        }
    };
    if let Some(v) = missing {
        return fetch_release_then(scope, loaded, v, ToWorker::WhatIf(ask));
    }
    let step = |stage: &str, done: f64| whatif_progress(scope, &ask, stage, done);
    step("rebuilding the request with the changes", 0.2);
    // Held through the what-if: its assemblies are made in the scenario's engine (the session
    // read once; the request as it is and its past calls kept for the next what-if).
    let guard = loaded.borrow();
    let Some(l) = guard.as_ref().filter(|l| l.gen == gen) else {
        return post_whatif(scope, &ask, Err(gone.into()));
    };
    let (a, base_inputs, target) = {
        let a = l.assembly_of(&api);
        let base = l.inputs(Some(&api));
        let mut target = match release {
            Some(v) => l.inputs_under(&api, v),
            None => base.clone(),
        };
        // `api=` is the model's protocol as pi sets it (its models.json entry): the page's
        // protocol switch would override that edit, so the changed side starts from the model's
        // own protocol, as `ctxlens whatif --set api=…` does.
        if changes.iter().any(|c| matches!(c, Change::Api(_))) {
            target.api = None;
        }
        (a, base, target)
    };
    let (changed_inputs, applied) = match whatif::apply(&target, &a, &changes) {
        Ok(x) => x,
        Err(e) => return post_whatif(scope, &ask, Err(e)),
    };
    let b = l.engine.assemble(&changed_inputs);
    if !ask.session {
        WHATIFS_COMPUTED.with(|n| n.set(n.get() + 1));
    }
    let module = ask
        .tokens
        .then(|| match ctxlens::tokens::vocabulary_of(&a) {
            Some(Vocabulary::Known { name, exact, .. }) => {
                VOCABS.with(|v| match v.borrow().get(&name) {
                    Some(VocabSlot::Ready(m)) => Some((m.clone(), exact)),
                    _ => None,
                })
            }
            _ => None,
        })
        .flatten();
    if module.is_some() {
        step("counting the tokens of both", 0.4);
    }
    let (sa, sb) = (
        stats_with_tokens(&module, &a),
        stats_with_tokens(&module, &b),
    );
    let has_calls = a.calls.iter().any(|c| c.usage.is_some());
    let whole = ask.session;
    step("comparing", 0.5);
    let w = whatif::compare(applied, &a, &b, sa.as_ref(), sb.as_ref());
    // The whole session, had the changes been made at the start: asked for on its own, after
    // the request's answer (`session: true`; the two assemblies above are the engine's, kept),
    // and rebuilt one call per task.
    if has_calls && whole {
        let rebuild = whatif::SessionRebuild::new(&base_inputs, &target, &changes, &a, None);
        SESSION_JOB.with(|j| {
            *j.borrow_mut() = Some(SessionJob {
                gen,
                ask: ask.clone(),
                w,
                module,
                rebuild,
            })
        });
        drop(guard);
        return schedule_session_step(loaded);
    }
    let mut json = ctxlens::report::whatif::to_json(&w, None);
    if let Some(o) = json.as_object_mut() {
        // The request's answer of a session with calls: the whole session comes next.
        o.insert("sessionPending", Value::Bool(has_calls && !whole));
    }
    post_whatif(scope, &ask, Ok(json));
}

pub(crate) async fn fetch_release(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    version: ctxlens::PiVersion,
) -> Result<(), String> {
    use wasm_bindgen_futures::JsFuture;
    let js_err = |e: JsValue| e.as_string().unwrap_or_else(|| format!("{e:?}"));
    let fetches = js_sys::Array::new();
    for name in ctxlens::pi::data::FILES {
        fetches.push(&scope.fetch_with_str(&format!("pi-data/pi-{version}/{name}")));
    }
    let responses = JsFuture::from(js_sys::Promise::all(&fetches))
        .await
        .map_err(js_err)?;
    let responses: js_sys::Array = responses.dyn_into().map_err(js_err)?;
    let mut files: Vec<(&str, Vec<u8>)> = Vec::new();
    for (name, r) in ctxlens::pi::data::FILES.iter().zip(responses.iter()) {
        let r: web_sys::Response = r.dyn_into().map_err(js_err)?;
        if !r.ok() {
            return Err(format!("pi-data/pi-{version}/{name}: HTTP {}", r.status()));
        }
        let bytes = JsFuture::from(r.array_buffer().map_err(js_err)?)
            .await
            .map_err(js_err)?;
        files.push((name, js_sys::Uint8Array::new(&bytes).to_vec()));
    }
    let files: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (*n, b.as_slice())).collect();
    ctxlens::pi::data::install_files(version, &files)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// The upgrade comparison's notes (`pi-data/changelog.json`, `pi-data/rule-docs.json`) in this
/// worker: not fetched yet, or tried (installed, or the comparison goes on without them and
/// says so: `changelog: null`, no rule docs).
enum NotesState {
    Missing,
    /// On their way, with the `upgrade` messages waiting for them.
    Loading(Vec<UpgradeAsk>),
    Tried,
}

thread_local! {
    static NOTES: RefCell<NotesState> = const { RefCell::new(NotesState::Missing) };
}

/// Fetches and installs the upgrade comparison's notes, then handles the messages that waited
/// for them.
fn fetch_notes(scope: &web_sys::DedicatedWorkerGlobalScope, loaded: &Rc<RefCell<Option<Loaded>>>) {
    let (scope, loaded) = (scope.clone(), loaded.clone());
    wasm_bindgen_futures::spawn_local(async move {
        // A note that does not load leaves the comparison without it (and the view says so).
        if let Ok(text) = fetch_text(&scope, "pi-data/changelog.json").await {
            warn_if_err(ctxlens::pi::changelog::install(text));
        }
        if let Ok(text) = fetch_text(&scope, "pi-data/rule-docs.json").await {
            warn_if_err(ctxlens::pi::install_rule_docs(&text));
        }
        let waiting =
            NOTES.with(
                |n| match std::mem::replace(&mut *n.borrow_mut(), NotesState::Tried) {
                    NotesState::Loading(w) => w,
                    _ => Vec::new(),
                },
            );
        for u in waiting {
            handle(&scope, &loaded, ToWorker::Upgrade(u));
        }
    });
}

fn warn_if_err(r: Result<(), String>) {
    if let Err(e) = r {
        web_sys::console::warn_1(&JsValue::from_str(&e));
    }
}

/// The text at `url` (beside the worker's script), or why not.
async fn fetch_text(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    url: &str,
) -> Result<String, String> {
    use wasm_bindgen_futures::JsFuture;
    let js_err = |e: JsValue| e.as_string().unwrap_or_else(|| format!("{e:?}"));
    let r: web_sys::Response = JsFuture::from(scope.fetch_with_str(url))
        .await
        .map_err(js_err)?
        .dyn_into()
        .map_err(js_err)?;
    if !r.ok() {
        return Err(format!("{url}: HTTP {}", r.status()));
    }
    Ok(JsFuture::from(r.text().map_err(js_err)?)
        .await
        .map_err(js_err)?
        .as_string()
        .unwrap_or_default())
}

/// A vocabulary module in the worker: on its way (with who waits for it), loaded, or failed
/// (why). One fetch per vocabulary for the worker's life.
enum VocabSlot {
    Loading(Waiting),
    Ready(Rc<crate::vocab::VocabModule>),
    Failed(String),
}

/// Who waits for a vocabulary being fetched: Tokens views' messages (handled again when it
/// arrives) and sessions-folder runs (the resolve functions of the promises they wait on).
#[derive(Default)]
struct Waiting {
    asks: Vec<TokensAsk>,
    runs: Vec<js_sys::Function>,
}

/// Puts `slot` where the fetch of vocabulary `name` was, and lets the runs waiting for it go on;
/// the Tokens views' messages that waited for it are returned, to be handled again.
fn settle(name: &str, slot: VocabSlot) -> Vec<TokensAsk> {
    let waiting = VOCABS.with(|v| match v.borrow_mut().insert(name.to_string(), slot) {
        Some(VocabSlot::Loading(w)) => w,
        _ => Waiting::default(),
    });
    for resolve in waiting.runs {
        let _ = resolve.call0(&JsValue::NULL);
    }
    waiting.asks
}

thread_local! {
    /// The reports this worker has sent (each `report` and the `body` after it carry its number).
    static REPORTS_SENT: Cell<u64> = const { Cell::new(0) };
}

thread_local! {
    static VOCABS: RefCell<BTreeMap<String, VocabSlot>> = const { RefCell::new(BTreeMap::new()) };
}

/// The vocabulary module `name` for a sessions folder's run: loaded, or fetched now (while the
/// Tokens view fetches it, waited for). The error says why it is not there.
pub(crate) async fn vocabulary_module(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    name: &str,
) -> Result<Rc<crate::vocab::VocabModule>, String> {
    /// What the worker has of a vocabulary.
    enum Found {
        Ready(Rc<crate::vocab::VocabModule>),
        Failed(String),
        /// Another message fetches it: this promise resolves when it is there (or failed).
        Loading(js_sys::Promise),
        /// Nobody has asked for it: this run fetches it.
        Mine,
    }
    loop {
        let found = VOCABS.with(|v| {
            let mut v = v.borrow_mut();
            match v.get_mut(name) {
                Some(VocabSlot::Ready(m)) => Found::Ready(m.clone()),
                Some(VocabSlot::Failed(e)) => Found::Failed(e.clone()),
                Some(VocabSlot::Loading(w)) => {
                    Found::Loading(js_sys::Promise::new(&mut |resolve, _| w.runs.push(resolve)))
                }
                None => {
                    v.insert(name.to_string(), VocabSlot::Loading(Waiting::default()));
                    Found::Mine
                }
            }
        });
        match found {
            Found::Ready(m) => return Ok(m),
            Found::Failed(e) => return Err(e),
            Found::Loading(arrived) => {
                let _ = wasm_bindgen_futures::JsFuture::from(arrived).await;
            }
            Found::Mine => break,
        }
    }
    let result = crate::vocab::VocabModule::load(scope, name, &|_, _| {})
        .await
        .map(Rc::new);
    let slot = match &result {
        Ok(m) => VocabSlot::Ready(m.clone()),
        Err(e) => VocabSlot::Failed(e.clone()),
    };
    let waiting = settle(name, slot);
    // A Tokens view that asked meanwhile is answered now.
    if let Some(loaded) = SCENARIO.with(|l| l.borrow().clone()) {
        for t in waiting {
            handle(scope, &loaded, ToWorker::Tokens(t));
        }
    }
    result
}

thread_local! {
    /// The worker's scenario, for what a sessions folder's run does on its behalf.
    static SCENARIO: RefCell<Option<Rc<RefCell<Option<Loaded>>>>> = const { RefCell::new(None) };
}

/// A `tokens` update to the page.
fn post_tokens(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    gen: u64,
    api: &str,
    phase: &str,
    vocabulary: Option<&Vocabulary>,
    fill: impl FnOnce(&js_sys::Object),
) {
    let m = js_sys::Object::new();
    set(&m, "type", "tokens");
    set(&m, "gen", gen as f64);
    set(&m, "api", api);
    set(&m, "phase", phase);
    set(
        &m,
        "vocabulary",
        vocabulary.map_or(JsValue::NULL, |v| vocabulary_js(v).into()),
    );
    fill(&m);
    post(scope, &m);
}

/// The `tokens` message: the vocabulary of the assembly's model, loaded the first time, then
/// the statistics counted with it.
fn handle_tokens(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    loaded: &Rc<RefCell<Option<Loaded>>>,
    t: TokensAsk,
) {
    let (gen, api) = (t.gen, t.api.clone());
    let (assembly, inputs) = {
        let mut guard = loaded.borrow_mut();
        match guard.as_mut().filter(|l| l.gen == gen) {
            Some(l) => (l.assembly_of(&api), l.inputs(Some(&api))),
            None => return,
        }
    };
    let nothing = |why: &str| {
        post_tokens(scope, gen, &api, "nothing", None, |m| set(m, "error", why));
    };
    if assembly.request.is_none() {
        return nothing("no request was assembled");
    }
    let Some(vocabulary) = ctxlens::tokens::vocabulary_of(&assembly) else {
        return nothing("there is no model");
    };
    // The model's vocabulary module: loaded, failed (why), or fetched first.
    let module: Result<Option<(Rc<crate::vocab::VocabModule>, bool)>, String> = match &vocabulary {
        Vocabulary::Known { name, exact, .. } => {
            let slot = VOCABS.with(|v| match v.borrow().get(name) {
                Some(VocabSlot::Ready(m)) => Some(Ok(m.clone())),
                Some(VocabSlot::Failed(e)) => Some(Err(e.clone())),
                Some(VocabSlot::Loading(_)) | None => None,
            });
            match slot {
                None => return load_vocabulary_then(scope, loaded, name, &vocabulary, t),
                Some(Ok(m)) => Ok(Some((m, *exact))),
                Some(Err(e)) => Err(e),
            }
        }
        Vocabulary::Unknown { .. } => Ok(None),
    };
    let calls = if t.calls {
        ctxlens::tokens::Calls::Always
    } else {
        ctxlens::tokens::Calls::ForEstimate
    };
    // The texts the vocabulary has not counted yet are counted first, in slices of time, so a
    // protocol switch or a what-if is answered meanwhile; then the statistics are made from
    // what the vocabulary remembers. A message counted that way once is answered at once; one
    // whose texts were all remembered already is answered by the recording pass itself.
    let mut remembered = None;
    if let (Ok(Some((m, exact))), false) = (&module, t.counted.is_some()) {
        let mut recorder = crate::vocab::Recorder::new(m, *exact);
        remembered =
            ctxlens::tokens::count(&inputs, &assembly, Ok(Some(&mut recorder)), calls, None);
        if !recorder.missing.is_empty() {
            let (scope, loaded, module) = (scope.clone(), loaded.clone(), m.clone());
            wasm_bindgen_futures::spawn_local(count_missing(
                scope,
                loaded,
                module,
                recorder.missing,
                vocabulary,
                t,
            ));
            return;
        }
    }
    let start = js_sys::Date::now();
    let progress = |done: f64| {
        post_tokens(scope, gen, &api, "counting", Some(&vocabulary), |m| {
            set(m, "done", done)
        })
    };
    if matches!(module, Ok(Some(_))) {
        progress(0.0);
    }
    let load_error = module.as_ref().err().cloned();
    let mut counter = module.as_ref().ok().and_then(|m| {
        m.as_ref()
            .map(|(module, exact)| crate::vocab::Counter::new(module, *exact, &progress))
    });
    let counter_arg = match (&load_error, counter.as_mut()) {
        (Some(e), _) => Err(e.clone()),
        (None, Some(c)) => Ok(Some(c as &mut dyn ctxlens::tokens::TokenCounter)),
        (None, None) => Ok(None),
    };
    // Counted with the vocabulary, or estimated from the session's usage (Claude), and the
    // calls with usage rebuilt against it: the CLI's `stats` does the same.
    let counted = match remembered {
        Some(c) => Some(c),
        None => ctxlens::tokens::count(&inputs, &assembly, counter_arg, calls, None),
    };
    let Some(counted) = counted else {
        return nothing("no request was assembled");
    };
    // The messages the report's statistics have (the largest), in the same places.
    let mut stats = ctxlens::report::stats::report(&counted.stats);
    stats
        .history
        .keep_largest_messages(crate::views::MESSAGE_ROWS);
    let stats = stats.to_value();
    let has_tokens = counted.stats.tokenizer.is_some();
    let window = window_of(&assembly, has_tokens.then(|| counted.stats.total_tokens()));
    let mut calibration = counted
        .calibration
        .as_ref()
        .map(ctxlens::report::calibration::calibration);
    if let (Some(c), Some(l)) = (
        calibration.as_mut(),
        loaded.borrow().as_ref().filter(|l| l.gen == gen),
    ) {
        l.with_call_releases(c, &inputs);
    }
    let json = |v: Option<Value>| v.unwrap_or(Value::Null).to_json();
    let notes = Value::Array(
        counted
            .notes
            .iter()
            .map(|n| Value::str(n.as_str()))
            .collect(),
    );
    // A vocabulary that loaded but could not count (the core's note says why) is a failure,
    // not an unknown vocabulary.
    let count_error =
        (counter.is_some() && counted.stats.tokenizer.is_none()).then(|| counted.notes.join("; "));
    let load_error = load_error.or(count_error);
    let phase = match (&load_error, has_tokens) {
        (Some(_), _) => "failed",
        (None, true) => "ready",
        (None, false) => "unknown",
    };
    post_tokens(scope, gen, &api, phase, Some(&vocabulary), |m| {
        if has_tokens {
            set(m, "stats", stats.to_json().as_str());
        }
        set(
            m,
            "calibration",
            json(calibration.map(|c| c.to_value())).as_str(),
        );
        set(m, "compaction", json(window.map(|w| w.to_value())).as_str());
        set(m, "notes", notes.to_json().as_str());
        set(m, "error", load_error.as_deref().unwrap_or(""));
        set(m, "ms", js_sys::Date::now() - start);
        // The vocabulary's own work (for tokens per second): time in `count`, bytes, tokens,
        // with what `count_missing` counted before.
        if let Some(c) = &counter {
            let (ms, bytes, tokens) = t.counted.unwrap_or_default();
            set(m, "countMs", c.spent_ms + ms);
            set(m, "countBytes", c.bytes as f64 + bytes);
            set(m, "countTokens", c.tokens as f64 + tokens);
        }
    })
}

/// Counts `missing` (the texts a `tokens` message needs that `module` has not counted) in slices
/// of about [`COUNT_SLICE_MS`], answering the page's other messages between them, then handles
/// the message again (marked `counted`: its statistics are then made at once from what the
/// module remembers, with the time and size of this count). A new scenario drops it.
async fn count_missing(
    scope: web_sys::DedicatedWorkerGlobalScope,
    loaded: Rc<RefCell<Option<Loaded>>>,
    module: Rc<crate::vocab::VocabModule>,
    missing: Vec<String>,
    vocabulary: Vocabulary,
    t: TokensAsk,
) {
    let (gen, api) = (t.gen, t.api.clone());
    let total: usize = missing.iter().map(String::len).sum::<usize>().max(1);
    let (mut done, mut ms, mut tokens) = (0usize, 0.0, 0usize);
    let current = || loaded.borrow().as_ref().is_some_and(|l| l.gen == gen);
    let mut error = None;
    let mut texts = missing.iter();
    // The newest count goes first (the protocol or what-if on screen); an older one waits.
    let me = COUNTS.with(|c| {
        let mut c = c.borrow_mut();
        let me = c.last().map_or(0, |n| n + 1);
        c.push(me);
        me
    });
    let _running = Running(me);
    'slices: loop {
        while COUNTS.with(|c| c.borrow().last() != Some(&me)) {
            sleep(&scope, COUNT_SLICE_MS as i32).await;
            if !current() {
                return;
            }
        }
        post_tokens(&scope, gen, &api, "counting", Some(&vocabulary), |m| {
            set(m, "done", done as f64 / total as f64)
        });
        let start = js_sys::Date::now();
        while js_sys::Date::now() - start < COUNT_SLICE_MS {
            let Some(t) = texts.next() else {
                ms += js_sys::Date::now() - start;
                break 'slices;
            };
            // Another message's count may have counted it meanwhile.
            if module.remembered(t).is_none() {
                match module.count_one(t) {
                    Ok(n) => tokens += n,
                    Err(e) => {
                        error = Some(e);
                        break 'slices;
                    }
                }
            }
            done += t.len();
        }
        ms += js_sys::Date::now() - start;
        yield_to_page().await;
        if !current() {
            return;
        }
    }
    if !current() {
        return;
    }
    // A text the vocabulary could not count: the message is handled as before, and the counter
    // says why.
    let counted = match error {
        None => (ms, done as f64, tokens as f64),
        Some(_) => (0.0, 0.0, 0.0),
    };
    let again = TokensAsk {
        counted: Some(counted),
        ..t
    };
    handle(&scope, &loaded, ToWorker::Tokens(again));
}

/// How long [`count_missing`] counts before it lets the page's other messages in.
const COUNT_SLICE_MS: f64 = 40.0;

thread_local! {
    /// The [`count_missing`] jobs under way, oldest first: only the last counts.
    static COUNTS: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// A [`count_missing`] job under way: on `COUNTS` until it is dropped, however the job ends.
struct Running(u64);

impl Drop for Running {
    fn drop(&mut self) {
        COUNTS.with(|c| c.borrow_mut().retain(|n| *n != self.0));
    }
}

/// Fetches vocabulary `name`'s module (once: later messages wait for the same fetch), saying
/// how far it got; every message waiting for it is then handled again.
fn load_vocabulary_then(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    loaded: &Rc<RefCell<Option<Loaded>>>,
    name: &str,
    vocabulary: &Vocabulary,
    t: TokensAsk,
) {
    let first = VOCABS.with(|v| {
        let mut v = v.borrow_mut();
        match v.get_mut(name) {
            Some(VocabSlot::Loading(waiting)) => {
                waiting.asks.push(t.clone());
                false
            }
            _ => {
                let waiting = Waiting {
                    asks: vec![t.clone()],
                    runs: Vec::new(),
                };
                v.insert(name.to_string(), VocabSlot::Loading(waiting));
                true
            }
        }
    });
    let (gen, api) = (t.gen, t.api.clone());
    post_tokens(scope, gen, &api, "loading", Some(vocabulary), |m| {
        set(m, "loaded", 0.0)
    });
    if !first {
        return;
    }
    let (scope, loaded, name, vocabulary) = (
        scope.clone(),
        loaded.clone(),
        name.to_string(),
        vocabulary.clone(),
    );
    wasm_bindgen_futures::spawn_local(async move {
        // Progress goes to the message that started the fetch (the report on screen), at most
        // every 2% or so.
        let last = Cell::new(-1.0f64);
        let progress = |bytes: f64, total: Option<f64>| {
            let step = total.map_or(bytes / 262_144.0, |t| (bytes / t * 50.0).floor());
            if step > last.get() {
                last.set(step);
                post_tokens(&scope, gen, &api, "loading", Some(&vocabulary), |m| {
                    set(m, "loaded", bytes);
                    set(m, "total", total.map_or(JsValue::NULL, JsValue::from_f64));
                });
            }
        };
        let result = crate::vocab::VocabModule::load(&scope, &name, &progress).await;
        let slot = match result {
            Ok(m) => VocabSlot::Ready(Rc::new(m)),
            Err(e) => VocabSlot::Failed(e),
        };
        for t in settle(&name, slot) {
            handle(&scope, &loaded, ToWorker::Tokens(t));
        }
    });
}

fn handle(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    loaded: &Rc<RefCell<Option<Loaded>>>,
    msg: ToWorker,
) {
    let gen = msg.gen();
    match &msg {
        ToWorker::Load { files, opts, .. } => load(loaded, gen, files, opts),
        ToWorker::Assemble {
            api, shared_from, ..
        } => assemble(scope, loaded, &msg, api.as_deref(), shared_from.as_deref()),
        ToWorker::Provenance { api, path, .. } => provenance_of(scope, loaded, gen, api, path),
        ToWorker::Compare { a, b, .. } => compare(scope, loaded, &msg, a, b),
        ToWorker::Tokens(t) => handle_tokens(scope, loaded, t.clone()),
        ToWorker::Upgrade(u) => handle_upgrade(scope, loaded, u.clone()),
        ToWorker::WhatIf(w) => handle_whatif(scope, loaded, w.clone()),
        ToWorker::Catalog { pi } => catalog(scope, loaded, &msg, pi),
    }
}

/// A laid-out case folder: its files kept for the assemblies asked of it.
fn load(loaded: &Rc<RefCell<Option<Loaded>>>, gen: u64, arr: &js_sys::Array, opts: &LayOptions) {
    let mut files = CaseFiles::new();
    for pair in arr.iter() {
        let pair: js_sys::Array = pair.dyn_into().unwrap_or_default();
        let (Some(path), Ok(bytes)) = (
            pair.get(0).as_string(),
            pair.get(1).dyn_into::<js_sys::Uint8Array>(),
        ) else {
            continue;
        };
        files.insert(path, bytes.to_vec());
    }
    // A vocabulary that failed to load is tried again for new files (back online).
    VOCABS.with(|v| {
        v.borrow_mut()
            .retain(|_, slot| !matches!(slot, VocabSlot::Failed(_)))
    });
    *loaded.borrow_mut() = Some(Loaded::new(gen, files, opts.clone()));
}

/// One protocol's assembly (`api`; `None`: the model's own), sent as a report in parts, its
/// parsed body after it; a release whose data is not here yet is fetched first.
fn assemble(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    loaded: &Rc<RefCell<Option<Loaded>>>,
    msg: &ToWorker,
    api: Option<&str>,
    shared_from: Option<&str>,
) {
    let gen = msg.gen();
    let p = |gen, api: Option<&str>, stage: &str, done| progress(scope, gen, api, stage, done);

    let mut guard = loaded.borrow_mut();
    let Some(l) = guard.as_mut().filter(|l| l.gen == gen) else {
        return;
    };
    let start = js_sys::Date::now();
    let session = l.files.get("session.jsonl").map(Vec::len).unwrap_or(0);
    let total: usize = l.files.values().map(Vec::len).sum();
    // Said first: which release the request needs is known once the session's lines are read
    // (the first time, on a long session, a large part of the wait).
    p(
        gen,
        api,
        &format!("laying out {} files ({})", l.files.len(), mb(total)),
        0.02,
    );
    if let Some(v) = l.missing_release(api, []) {
        drop(guard);
        return fetch_release_then(scope, loaded, v, msg.clone());
    }
    let what = if session > 0 {
        format!("parsing a {} session and assembling", mb(session))
    } else {
        "assembling".into()
    };
    p(gen, api, &what, 0.05);
    let (assembly, placement) = l.assemble_placed(api);
    p(gen, api, "writing the report", 0.45);
    // A large provenance stays here, indexed by path; the page asks for the paths it
    // shows (no JSON of every origin made for it).
    // (A body over PROVENANCE_BODY_BYTES has its sources answered path by path without
    // counting them first: they are found after the report is sent.)
    let in_worker = assembly
        .request
        .as_ref()
        .is_some_and(|r| r.body.len() > PROVENANCE_BODY_BYTES)
        || assembly.provenance().len() > PROVENANCE_INLINE;
    // The session, its calls and its usage timeline are the same under every protocol:
    // when the page holds another report of this scenario it takes them from that one; a
    // scenario's first report is sent without them, and they follow in their own message (on
    // a long session they are most of the report, and the first view needs none of them).
    let session_follows = shared_from.is_none() && assembly.parts.session.is_some();
    let mut report = ctxlens::report::assembly_json_with(
        &assembly,
        ctxlens::report::Omit {
            provenance: in_worker,
            session: shared_from.is_some() || session_follows,
            // A long session's stages have an event per message (tens of thousands) and its
            // statistics a size per message: the page lists the first and the largest.
            events: Some(crate::views::STAGE_EVENTS),
            messages: Some(crate::views::MESSAGE_ROWS),
            // Its bytes are sent as they are, beside the report.
            body: true,
        },
    );
    // What pi read of the files and what it ignored (the inputs panel's list).
    if let Some(o) = report.as_object_mut() {
        o.insert("placement", placement);
    }
    let key = api.map(String::from).unwrap_or_else(|| {
        report
            .get("model")
            .and_then(|m| m.get_str("api"))
            .unwrap_or("")
            .to_string()
    });
    let body = assembly.request.as_ref().map(|r| r.body.as_str());
    if in_worker {
        l.provenance.retain(|(a, _)| *a != key);
        l.provenance.push((
            key.clone(),
            RefCell::new(Origins::Pending(assembly.clone())),
        ));
        if l.provenance.len() > 3 {
            l.provenance.remove(0);
        }
        let (loaded, key) = (loaded.clone(), key.clone());
        gloo_timers::callback::Timeout::new(0, move || {
            if let Some(l) = loaded.borrow().as_ref().filter(|l| l.gen == gen) {
                if let Some((_, o)) = l.provenance.iter().find(|(a, _)| *a == key) {
                    Origins::index(o);
                }
            }
        })
        .forget();
    }
    let parts = split(&report, PART_BYTES);
    p(gen, api, "sending the report", 0.72);
    let m = js_sys::Object::new();
    let transfer = js_sys::Array::new();
    set(&m, "type", "report");
    set(&m, "gen", gen as f64);
    set(&m, "api", opt_str(api));
    let (index, bytes) = parts_js(parts);
    set(&m, "parts", index);
    transfer.push(&bytes.buffer());
    set(&m, "partsBytes", bytes);
    if let Some(b) = body {
        let bytes = js_sys::Uint8Array::from(b.as_bytes());
        transfer.push(&bytes.buffer());
        set(&m, "body", bytes);
    }
    // The parsed body (the Request view's tree) follows in its own message, so the
    // report is on screen without waiting for it; both carry the report's number.
    let body_pending = assembly.request.is_some();
    let seq = REPORTS_SENT.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    set(&m, "seq", seq as f64);
    set(&m, "bodyPending", body_pending);
    set(&m, "provenanceInWorker", in_worker);
    set(&m, "sharedFrom", opt_str(shared_from));
    set(&m, "sessionFollows", session_follows);
    set(&m, "ms", js_sys::Date::now() - start);
    set(&m, "memoryBytes", memory_bytes());
    if scope.post_message_with_transfer(&m, &transfer).is_err() {
        post(scope, &m);
    }
    drop(report);
    if session_follows {
        let parts = ctxlens::report::session_parts_json(&assembly);
        post_follower(scope, "session", gen, seq, &parts);
    }
    if body_pending {
        // The body as parsed once for the analyses (the assembly's own; parsed here when no
        // analysis needed it, after the report is sent). `null` if it did not parse: the page
        // then parses it itself.
        let v = assembly.body_value().unwrap_or(&Value::Null);
        post_follower(scope, "body", gen, seq, v);
    }
}

/// Posts what follows report `seq` in a message of its own (`kind`: `session`, its session's
/// parts; `body`, its body parsed): `value` in parts, their bytes transferred.
fn post_follower(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    kind: &str,
    gen: u64,
    seq: u64,
    value: &Value,
) {
    let (index, bytes) = parts_js(split(value, PART_BYTES));
    let m = js_sys::Object::new();
    set(&m, "type", kind);
    set(&m, "gen", gen as f64);
    set(&m, "seq", seq as f64);
    set(&m, "parts", index);
    let transfer = js_sys::Array::of1(&bytes.buffer());
    set(&m, "partsBytes", bytes);
    if scope.post_message_with_transfer(&m, &transfer).is_err() {
        post(scope, &m);
    }
}

/// Where the body's value at `path` came from, in protocol `api`'s assembly.
fn provenance_of(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    loaded: &Rc<RefCell<Option<Loaded>>>,
    gen: u64,
    api: &str,
    path: &str,
) {
    let guard = loaded.borrow();
    let map = guard
        .as_ref()
        .filter(|l| l.gen == gen)
        .and_then(|l| l.provenance.iter().find(|(a, _)| a == api))
        .map(|(_, o)| Origins::index(o));
    let answer = match map {
        Some(map) => crate::views::prov_answer(path, &*map),
        None => Object::new().with("error", "The worker no longer holds this assembly's sources (it was restarted or moved on): drop or open the files again.").into(),
    };
    let m = js_sys::Object::new();
    set(&m, "type", "provenance");
    set(&m, "gen", gen as f64);
    set(&m, "api", api);
    set(&m, "path", path);
    set(&m, "json", answer.to_json().as_str());
    post(scope, &m);
}

/// Protocols `a` and `b` side by side.
fn compare(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    loaded: &Rc<RefCell<Option<Loaded>>>,
    msg: &ToWorker,
    a: &str,
    b: &str,
) {
    let gen = msg.gen();

    let missing = loaded
        .borrow_mut()
        .as_mut()
        .filter(|l| l.gen == gen)
        .and_then(|l| l.missing_release(Some(a), []));
    if let Some(v) = missing {
        return fetch_release_then(scope, loaded, v, msg.clone());
    }
    let mut guard = loaded.borrow_mut();
    let answer = match guard.as_mut().filter(|l| l.gen == gen) {
        Some(l) => {
            let (x, y) = (l.assembly_of(a), l.assembly_of(b));
            Ok(ctxlens::report::compare_json(&x, &y))
        }
        None => Err("The worker no longer holds these files (it was restarted or moved on): drop or open the files again.".to_string()),
    };
    drop(guard);
    let m = js_sys::Object::new();
    set(&m, "type", "compare");
    set(&m, "gen", gen as f64);
    set(&m, "a", a);
    set(&m, "b", b);
    set(&m, "json", compare_answer(answer).as_str());
    post(scope, &m);
}

/// Release `pi`'s model catalog (the settings' model list).
fn catalog(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    loaded: &Rc<RefCell<Option<Loaded>>>,
    msg: &ToWorker,
    pi: &str,
) {
    let version = pi.parse().unwrap_or(ctxlens::PiVersion::LATEST);
    if !ctxlens::pi::data::is_available(version) {
        return fetch_release_then(scope, loaded, version, msg.clone());
    }
    let models: Vec<Value> = ctxlens::Pi::new(version)
        .ok()
        .and_then(|pi| pi.data.catalog.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|m| {
                    let r = format!("{}/{}", m.get_str("provider")?, m.get_str("id")?);
                    Some(
                        Object::new()
                            .with("ref", r)
                            .with("name", m.get_str("name").unwrap_or(""))
                            .with("api", m.get_str("api").unwrap_or(""))
                            .with("reasoning", m.get("reasoning").is_some_and(Value::truthy))
                            .into(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let m = js_sys::Object::new();
    set(&m, "type", "catalog");
    set(&m, "pi", version.as_str());
    set(&m, "json", Value::Array(models).to_json().as_str());
    post(scope, &m);
}

/// The worker's entry point: listen, then say so.
pub fn run() {
    let Ok(scope) = js_sys::global().dyn_into::<web_sys::DedicatedWorkerGlobalScope>() else {
        web_sys::console::error_1(&"ctxlens-worker must run in a dedicated worker".into());
        return;
    };
    let loaded: Rc<RefCell<Option<Loaded>>> = Rc::new(RefCell::new(None));
    SCENARIO.with(|l| *l.borrow_mut() = Some(loaded.clone()));
    let s = scope.clone();
    // Listens for the worker's whole life (gloo-events; forgotten: never removed).
    EventListener::new(&scope, "message", move |e| {
        let Some(e) = e.dyn_ref::<web_sys::MessageEvent>() else {
            return;
        };
        let data = e.data();
        if get(&data, "type")
            .as_string()
            .is_some_and(|t| t.starts_with("usage"))
        {
            crate::all_sessions::job::handle(&s, &data)
        } else if let Some(msg) = ToWorker::from_js(&data) {
            handle(&s, &loaded, msg)
        }
    })
    .forget();
    let m = js_sys::Object::new();
    set(&m, "type", "ready");
    post(&scope, &m);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vocabulary_crosses_to_the_page_as_it_is() {
        for v in [
            Vocabulary::Known {
                name: "o200k_base".into(),
                exact: true,
                why: None,
            },
            Vocabulary::Known {
                name: "glm4".into(),
                exact: false,
                why: Some("not proved".into()),
            },
            Vocabulary::Unknown {
                kind: Some("claude".into()),
                why: Some("no public tokenizer".into()),
            },
            Vocabulary::Unknown {
                kind: None,
                why: None,
            },
        ] {
            assert_eq!(read_vocabulary(&vocabulary_js(&v)), Some(v));
        }
        assert_eq!(read_vocabulary("not json"), None);
    }
}

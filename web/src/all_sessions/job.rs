//! The worker's side of a sessions folder: each file read in turn (one at a time, so memory is
//! bounded by the largest session), its calls read as ccusage reads them and each rebuilt by
//! the release that made it (that release's data fetched on first use), the report sent as it
//! grows. Between calls the worker lets its messages in, so a regrouping or a cancel is
//! answered mid-run.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use ctxlens::analysis::ledger::{self, Accountant, LedgerCall, Reader};
use ctxlens::report::ledger::to_json;
use wasm_bindgen_futures::JsFuture;

use super::link::{FromJob, Grouping, Progress, ToJob};
use crate::state::{inputs_of, LayOptions, Scenario};
use crate::vocab::{SharedCounter, VocabModule};
use crate::worker::{fetch_release, memory_bytes, now_ms, vocabulary_module, yield_to_page};
use ctxlens::tokens::Vocabulary;

/// The vocabularies a run loaded, by name (`None`: it could not be loaded).
type Modules = HashMap<String, Option<Rc<VocabModule>>>;

/// A report goes to the page at most this often while a folder is read.
const REPORT_EVERY_MS: f64 = 1_000.0;
/// Progress at most this often.
const PROGRESS_EVERY_MS: f64 = 100.0;
/// Work this long between letting messages in.
const SLICE_MS: f64 = 40.0;

/// The run in this worker.
struct Job {
    id: u64,
    reader: Reader,
    calls: Vec<LedgerCall>,
    grouping: Grouping,
    cancelled: bool,
    done: bool,
}

thread_local! {
    static JOB: RefCell<Option<Job>> = const { RefCell::new(None) };
}

fn post(scope: &web_sys::DedicatedWorkerGlobalScope, m: &FromJob) {
    crate::worker::post(scope, &m.to_js());
}

/// Says where the run is, with the worker's memory.
fn tell(scope: &web_sys::DedicatedWorkerGlobalScope, job: u64, p: &mut Progress) {
    p.memory = memory_bytes();
    post(
        scope,
        &FromJob::Progress {
            job,
            progress: p.clone(),
        },
    );
}

/// What the report cannot see for itself: which calls were rebuilt from the session alone.
fn notes(calls: &[LedgerCall]) -> Vec<String> {
    let old = calls
        .iter()
        .filter(|c| c.blocks.is_some())
        .filter_map(|c| c.pi.as_deref()?.parse::<ctxlens::PiVersion>().ok())
        // A release whose sessions store no system prompt (no transcript of system messages).
        .filter(|v| !v.rules().transcript)
        .count();
    let mut out = vec!["Each call is rebuilt from its session file alone: a sessions folder holds none of the files pi read on your machine (AGENTS.md, skills, settings, models.json). Where pi stored the system prompt in the session (from pi 0.86, for the runs it began), the rebuild reads it there; where pi built it from those files (pi 0.85.1, and a session an earlier pi began), they are missing here. `ctxlens usage` in a terminal reads them from your machine.".to_string()];
    if old > 0 {
        out.push(format!("{old} calls were made by pi 0.85.1, whose sessions store no system prompt: their context files and skills are not in this report."));
    }
    out
}

/// Sends the report as it stands.
fn report(scope: &web_sys::DedicatedWorkerGlobalScope) {
    let msg = JOB.with(|j| {
        let j = j.borrow();
        let j = j.as_ref()?;
        let g = &j.grouping;
        let l = ledger::ledger(&j.calls, g.by, g.since.as_deref(), g.until.as_deref());
        // While the folder is read, not the whole lists (a folder of old sessions can leave
        // thousands, and this goes to the page every second); the last report has them all.
        let r = &j.reader.read;
        let most = if j.done { usize::MAX } else { 200 };
        let read = ledger::Read {
            roots: r.roots.clone(),
            files: r.files,
            duplicates: r.duplicates,
            skipped: r.skipped.iter().take(most).cloned().collect(),
            changed: r.changed.clone(),
            not_rebuilt: r.not_rebuilt.iter().take(most).cloned().collect(),
        };
        Some(FromJob::Report {
            job: j.id,
            json: to_json(&l, &read).to_json(),
            notes: notes(&j.calls),
            done: j.done,
            cancelled: j.cancelled,
            memory: memory_bytes(),
        })
    });
    if let Some(m) = msg {
        post(scope, &m);
    }
}

fn current(id: u64) -> bool {
    JOB.with(|j| {
        j.borrow()
            .as_ref()
            .is_some_and(|j| j.id == id && !j.cancelled)
    })
}

/// Handles a message of the page's sessions-folder view.
pub fn handle(scope: &web_sys::DedicatedWorkerGlobalScope, data: &wasm_bindgen::JsValue) {
    match ToJob::from_js(data) {
        Some(ToJob::Start {
            job,
            files,
            grouping,
        }) => {
            let roots = vec![root_of(&files)];
            JOB.with(|j| {
                *j.borrow_mut() = Some(Job {
                    id: job,
                    reader: Reader::new(roots),
                    calls: Vec::new(),
                    grouping,
                    cancelled: false,
                    done: false,
                })
            });
            wasm_bindgen_futures::spawn_local(run(scope.clone(), job, files));
        }
        Some(ToJob::Regroup(g)) => {
            JOB.with(|j| {
                if let Some(j) = j.borrow_mut().as_mut() {
                    j.grouping = g;
                }
            });
            report(scope);
        }
        Some(ToJob::Cancel) => {
            JOB.with(|j| {
                if let Some(j) = j.borrow_mut().as_mut() {
                    j.cancelled = !j.done;
                    j.done = true;
                }
            });
            report(scope);
        }
        None => {}
    }
}

/// The folder the files were chosen in (their first path segment), for the report.
fn root_of(files: &[(String, web_sys::File)]) -> String {
    files
        .first()
        .and_then(|(p, _)| p.split('/').next())
        .unwrap_or("")
        .to_string()
}

/// A file's text (`None` and why: not UTF-8 text, or not readable).
async fn text_of(file: &web_sys::File) -> Result<String, String> {
    let v = JsFuture::from(file.text())
        .await
        .map_err(|e| e.as_string().unwrap_or_else(|| format!("{e:?}")))?;
    v.as_string().ok_or_else(|| "not text".into())
}

/// Reads and rebuilds every file, then sends the final report.
async fn run(
    scope: web_sys::DedicatedWorkerGlobalScope,
    id: u64,
    files: Vec<(String, web_sys::File)>,
) {
    let mut clock = Clock::default();
    let total = files.len();
    for (k, (path, file)) in files.into_iter().enumerate() {
        if !current(id) {
            return;
        }
        let mut p = Progress {
            files_done: k,
            files: total,
            file: path.clone(),
            stage: "reading".into(),
            ..Progress::default()
        };
        tell(&scope, id, &mut p);
        let text = match text_of(&file).await {
            Ok(t) => t,
            Err(e) => {
                JOB.with(|j| {
                    if let Some(j) = j.borrow_mut().as_mut() {
                        j.reader.unreadable(&path, e)
                    }
                });
                continue;
            }
        };
        let Some(got) = JOB.with(|j| j.borrow_mut().as_mut().map(|j| j.reader.file(&path, &text)))
        else {
            return;
        };
        let mut calls = got.calls;
        match got.not_a_session {
            Some(why) => calls.iter_mut().for_each(|c| c.note = Some(why.clone())),
            None if !calls.is_empty() => {
                p.calls = calls.len();
                if !rebuild(&scope, id, &path, text, &mut calls, &mut p, &mut clock).await {
                    return;
                }
            }
            None => {}
        }
        JOB.with(|j| {
            if let Some(j) = j.borrow_mut().as_mut() {
                j.reader.note_not_rebuilt(&calls);
                j.calls.extend(calls);
            }
        });
        if clock.report_due() {
            report(&scope);
        }
    }
    JOB.with(|j| {
        if let Some(j) = j.borrow_mut().as_mut() {
            j.done = true;
        }
    });
    report(&scope);
}

/// When the page was last told something, and when the worker last let messages in.
#[derive(Default)]
struct Clock {
    report: f64,
    progress: f64,
    slice: f64,
}

impl Clock {
    fn due(at: &mut f64, every: f64) -> bool {
        let now = now_ms();
        let due = now - *at >= every;
        if due {
            *at = now;
        }
        due
    }
    fn report_due(&mut self) -> bool {
        Self::due(&mut self.report, REPORT_EVERY_MS)
    }
    fn progress_due(&mut self) -> bool {
        Self::due(&mut self.progress, PROGRESS_EVERY_MS)
    }
    fn slice_over(&mut self) -> bool {
        Self::due(&mut self.slice, SLICE_MS)
    }
}

/// Rebuilds the calls of one session, laid out as the app lays out a dropped session. Returns
/// false when the run was cancelled or replaced meanwhile.
async fn rebuild(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    id: u64,
    path: &str,
    text: String,
    calls: &mut [LedgerCall],
    p: &mut Progress,
    clock: &mut Clock,
) -> bool {
    let mut sc = Scenario::default();
    let now = js_sys::Date::now();
    sc.add_files(vec![(path.to_string(), text.into_bytes())], Vec::new(), now);
    let laid = sc.lay_out();
    let (inputs, _) = inputs_of(&laid.files, LayOptions::of(&laid), None);
    drop(laid);
    drop(sc);
    let ws = ctxlens::Workspace::with_budget(0);
    // The vocabularies loaded for this session's models: each request's parts are counted with
    // its model's, as the command line counts them.
    let modules: Rc<RefCell<Modules>> = Rc::default();
    let shared = modules.clone();
    let mut vocabularies = move |name: &str, exact: bool| {
        let module = shared.borrow().get(name)?.clone()?;
        Some(Box::new(SharedCounter { module, exact }) as Box<dyn ctxlens::tokens::TokenCounter>)
    };
    let mut acc = Accountant::new(&ws, &inputs, &[]).counting(&mut vocabularies);
    let rules = ctxlens::tokens::Rules::shipped();
    for (k, c) in calls.iter_mut().enumerate() {
        if let Vocabulary::Known { name, .. } = rules.resolve(
            c.provider.as_deref().unwrap_or(""),
            c.model.as_deref().unwrap_or(""),
        ) {
            if !modules.borrow().contains_key(&name) {
                p.stage = format!("loading the {name} vocabulary");
                tell(scope, id, p);
                let module = vocabulary_module(scope, &name).await.ok();
                modules.borrow_mut().insert(name, module);
                if !current(id) {
                    return false;
                }
            }
        }
        if let Some(ci) = acc.inputs_for(c) {
            // The release that made the call, its data fetched on first use (a past call of
            // a session a later pi continued needs the session's release first, to find it).
            let mut failed = None;
            for _ in ctxlens::PiVersion::ALL {
                let Some(v) = ws.missing_release(&ci, []) else {
                    break;
                };
                p.stage = format!("fetching pi {v}'s data");
                tell(scope, id, p);
                if let Err(e) = fetch_release(scope, v).await {
                    failed = Some(format!("pi {v}'s data could not be loaded: {e}"));
                    break;
                }
            }
            if !current(id) {
                return false;
            }
            if let Some(why) = failed {
                c.note = Some(why);
                continue;
            }
        }
        acc.account(c);
        p.calls_done = k + 1;
        p.stage = "rebuilding".into();
        if clock.progress_due() {
            tell(scope, id, p);
        }
        if clock.slice_over() {
            yield_to_page().await;
            if !current(id) {
                return false;
            }
        }
    }
    true
}

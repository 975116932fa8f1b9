//! All your sessions: a sessions folder dropped or chosen, every call of every session read as
//! ccusage reads it and rebuilt by the release that made it (`ctxlens usage`, in the browser),
//! the report drawn as it grows — usage per period stacked by block, the tools, sections, kinds
//! of history and tool results that cost the most, the cache breaks, the costliest calls — with
//! progress and a cancel. A click on a call opens it in the single-request views.
//!
//! The folder is read by a worker of its own ([`job`], over the messages of [`link`]): one
//! file at a time, never the whole folder in memory; the page keeps only the browser's file
//! handles (to open a call) and the report.

pub mod job;
pub mod link;

use std::cell::RefCell;
use std::rc::Rc;

use ctxlens::analysis::ledger::{GroupBy, BLOCKS};
use ctxlens::report::types::{
    UsageBreak, UsageCostlyCall, UsageItem, UsageReport, UsageShare, UsageSourcedItem,
};
use ctxlens::report::wire::Wire;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::inputs::{self, Listed};
use crate::views::components::charts::{Column, Columns};
use crate::views::components::thousands;
use link::{FromJob, Grouping, JobLink, Progress, ToJob};

/// A call to open in the single-request views: its session file and its entry.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenCall {
    pub path: String,
    pub bytes: Vec<u8>,
    pub entry_id: String,
}

#[derive(Properties, PartialEq)]
pub struct AllSessionsProps {
    pub on_open: Callback<OpenCall>,
}

/// What the view holds.
#[derive(Clone, Default, PartialEq)]
struct St {
    job: u64,
    /// The session files of the folder (paths below it, browser handles), in reading order.
    files: Rc<Vec<(String, web_sys::File)>>,
    /// Files of the folder that are not session files, and folders skipped.
    ignored: usize,
    listing: bool,
    progress: Option<Progress>,
    report: Option<Rc<UsageReport>>,
    /// The worker's memory at the last report (its peak: wasm memory never shrinks).
    memory: f64,
    notes: Vec<String>,
    done: bool,
    cancelled: bool,
    grouping: Grouping,
    error: Option<String>,
}

enum Act {
    Listing,
    Listed(u64, Rc<Vec<(String, web_sys::File)>>, usize),
    Msg(FromJob),
    Failed(String),
    Regroup(Grouping),
}

impl Reducible for St {
    type Action = Act;

    fn reduce(self: Rc<Self>, a: Act) -> Rc<Self> {
        let mut s = (*self).clone();
        match a {
            Act::Listing => {
                s.listing = true;
                s.error = None;
            }
            Act::Listed(job, files, ignored) => {
                s = St {
                    job,
                    files,
                    ignored,
                    grouping: s.grouping,
                    ..St::default()
                };
            }
            Act::Msg(FromJob::Progress { job, progress }) if job == s.job && !s.done => {
                s.progress = Some(progress)
            }
            Act::Msg(FromJob::Report {
                job,
                json,
                notes,
                done,
                cancelled,
                memory,
            }) if job == s.job => {
                s.report = ctxlens::js::parse(&json)
                    .ok()
                    .and_then(|v| UsageReport::from_value(&v))
                    .map(Rc::new);
                s.memory = memory;
                s.notes = notes;
                s.done = done;
                s.cancelled = cancelled;
                if done {
                    s.progress = None;
                }
            }
            Act::Msg(_) => return self,
            Act::Failed(e) => {
                s.listing = false;
                s.progress = None;
                s.done = true;
                s.error = Some(e);
            }
            Act::Regroup(g) => s.grouping = g,
        }
        Rc::new(s)
    }
}

/// Session files, as `ctxlens usage` finds them below a folder: `.jsonl`, no hidden file or
/// folder on the way; in the order of the folder walk (each folder's names sorted).
fn session_files(listed: Listed) -> (Vec<(String, web_sys::File)>, usize) {
    let all = listed.files.len() + listed.skipped.len();
    let mut files: Vec<(String, web_sys::File)> = listed
        .files
        .into_iter()
        .filter(|(p, _)| p.ends_with(".jsonl") && !p.split('/').any(|s| s.starts_with('.')))
        .collect();
    files.sort_by(|a, b| a.0.split('/').cmp(b.0.split('/')));
    let ignored = all - files.len();
    (files, ignored)
}

fn dollars(x: f64) -> String {
    if x >= 100.0 {
        format!("${}", thousands(x))
    } else if x >= 1.0 {
        format!("${x:.2}")
    } else if x > 0.0 {
        format!("${x:.4}")
    } else {
        "$0".into()
    }
}

const BLOCK_COLORS: [&str; 5] = [
    "var(--system)",
    "var(--tools)",
    "var(--history)",
    "var(--vc-6)",
    "var(--v-structure)",
];

#[function_component]
pub fn AllSessions(p: &AllSessionsProps) -> Html {
    let st = use_reducer(St::default);
    let link: Rc<RefCell<Option<JobLink>>> = use_mut_ref(|| None);
    let jobs = use_mut_ref(|| 0u64);
    let dragging = use_state(|| false);

    // Lists what was chosen, then starts a run on it in the worker (started on first use).
    let start = {
        let (st, link, jobs) = (st.clone(), link.clone(), jobs.clone());
        Rc::new(move |fut: Listing| {
            st.dispatch(Act::Listing);
            let (st, link, jobs) = (st.clone(), link.clone(), jobs.clone());
            wasm_bindgen_futures::spawn_local(start_run(st, link, jobs, fut));
        })
    };
    let on_chosen = {
        let start = start.clone();
        Callback::from(move |e: Event| {
            let Some(input) = inputs::input_of(&e) else {
                return;
            };
            if let Some(files) = input.files() {
                start(Box::pin(inputs::list_file_list(&files)));
            }
            input.set_value("");
        })
    };
    let ondrop = {
        let (start, dragging) = (start.clone(), dragging.clone());
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            e.stop_propagation();
            dragging.set(false);
            if let Some(dt) = e.data_transfer() {
                start(Box::pin(inputs::list_drop(&dt)));
            }
        })
    };
    let ondragover = {
        let dragging = dragging.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            e.stop_propagation();
            if !*dragging {
                dragging.set(true);
            }
        })
    };
    let ondragleave = {
        let dragging = dragging.clone();
        Callback::from(move |_: DragEvent| dragging.set(false))
    };
    let regroup = {
        let (st, link) = (st.clone(), link.clone());
        Callback::from(move |g: Grouping| {
            st.dispatch(Act::Regroup(g.clone()));
            if let Some(l) = link.borrow().as_ref() {
                l.send(&ToJob::Regroup(g));
            }
        })
    };
    let cancel = {
        let link = link.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(l) = link.borrow().as_ref() {
                l.send(&ToJob::Cancel);
            }
        })
    };
    // A call of the report: its file read (the handle kept from the listing), then opened.
    let open = {
        let (files, on_open, st) = (st.files.clone(), p.on_open.clone(), st.clone());
        Callback::from(move |(path, entry_id): (String, String)| {
            let Some((_, file)) = files.iter().find(|(p, _)| *p == path).cloned() else {
                return;
            };
            let (on_open, st) = (on_open.clone(), st.clone());
            wasm_bindgen_futures::spawn_local(async move {
                match inputs::read_file(&path, &file).await {
                    Ok(bytes) => on_open.emit(OpenCall {
                        path,
                        bytes,
                        entry_id,
                    }),
                    Err(e) => st.dispatch(Act::Failed(e)),
                }
            });
        })
    };

    let running = !st.files.is_empty() && !st.done;
    html! {
        <section class={classes!("all-sessions", dragging.then_some("dragging"))} data-testid="all-sessions"
            data-state={if st.done { "done" } else if running || st.listing { "running" } else { "empty" }}
            {ondrop} {ondragover} {ondragleave}>
            <header class="as-head">
                <h2>{"All your sessions"}</h2>
                <p class="muted small">{"Every call of every session in a folder: the usage pi recorded (the totals ccusage reports), each request rebuilt by the pi release that made it and split by block — what your system prompt, tools, skills, context files and history cost. Read here, in your browser: nothing is uploaded."}</p>
                <div class="as-choose">
                    <label class="button">
                        {"Choose a sessions folder…"}
                        <input type="file" data-testid="usage-folder" webkitdirectory=true multiple=true onchange={on_chosen} hidden=true />
                    </label>
                    <span class="muted small">{"or drop one here (pi keeps them in ~/.pi/agent/sessions)"}</span>
                </div>
                { progress_line(&st, running, cancel) }
                if let Some(e) = &st.error {
                    <p class="error" role="alert" data-testid="usage-error">{e}</p>
                }
            </header>
            if let Some(r) = &st.report {
                { controls(&st.grouping, regroup, r, st.done) }
                { report_view(r, &st, &open) }
            }
        </section>
    }
}

/// What was chosen or dropped (`listing`), listed: its session files sent to the worker as run
/// number `jobs + 1` (the worker started on first use).
async fn start_run(
    st: UseReducerHandle<St>,
    link: Rc<RefCell<Option<JobLink>>>,
    jobs: Rc<RefCell<u64>>,
    listing: Listing,
) {
    let listed = match listing.await {
        Ok(l) => l,
        Err(e) => return st.dispatch(Act::Failed(e)),
    };
    let (files, ignored) = session_files(listed);
    if files.is_empty() {
        return st.dispatch(Act::Failed(
            "no session files (.jsonl) in what was chosen: choose pi's sessions folder (~/.pi/agent/sessions) or a project's folder in it".into(),
        ));
    }
    let job = {
        let mut j = jobs.borrow_mut();
        *j += 1;
        *j
    };
    if link.borrow().is_none() {
        let (d1, d2) = (st.dispatcher(), st.dispatcher());
        match JobLink::start(
            Rc::new(move |m| d1.dispatch(Act::Msg(m))),
            Rc::new(move |e| d2.dispatch(Act::Failed(format!("the worker stopped: {e}")))),
        ) {
            Ok(l) => *link.borrow_mut() = Some(l),
            Err(e) => return st.dispatch(Act::Failed(e)),
        }
    }
    let files = Rc::new(files);
    st.dispatch(Act::Listed(job, files.clone(), ignored));
    if let Some(l) = link.borrow().as_ref() {
        l.send(&ToJob::Start {
            job,
            files: (*files).clone(),
            grouping: st.grouping.clone(),
        });
    }
}

/// A listing of what was chosen or dropped, on its way.
type Listing = std::pin::Pin<Box<dyn std::future::Future<Output = Result<Listed, String>>>>;

fn progress_line(st: &St, running: bool, cancel: Callback<MouseEvent>) -> Html {
    if st.listing && st.files.is_empty() {
        return html! { <p class="status busy" data-testid="usage-progress"><span class="spinner" aria-hidden="true"></span>{"listing the folder…"}</p> };
    }
    if !running {
        return match (st.cancelled, st.done && !st.files.is_empty()) {
            (true, _) => {
                html! { <p class="muted small" data-testid="usage-status">{"Cancelled: the report holds the sessions read before."}</p> }
            }
            (false, true) => {
                html! { <p class="muted small" data-testid="usage-status" data-memory={st.memory.to_string()}>{format!("{} session files read{} · worker {:.0} MB", thousands(st.files.len() as f64),
                if st.ignored > 0 { format!("; {} other files ignored", thousands(st.ignored as f64)) } else { String::new() }, st.memory / 1_048_576.0)}</p> }
            }
            _ => Html::default(),
        };
    }
    let p = st.progress.clone().unwrap_or_default();
    let done = if p.files == 0 {
        0.0
    } else {
        (p.files_done as f64
            + if p.calls > 0 {
                p.calls_done as f64 / p.calls as f64
            } else {
                0.0
            })
            / p.files as f64
    };
    let pct = (done * 100.0).round();
    let name = p.file.rsplit('/').next().unwrap_or(&p.file).to_string();
    html! {
        <div class="status busy" role="status" data-testid="usage-progress" data-files-done={p.files_done.to_string()}>
            <progress class="progress" max="100" value={pct.to_string()}>{format!("{pct}%")}</progress>
            <span class="progress-label">{format!("session {} of {}: {}{} · {name} · worker {:.0} MB", (p.files_done + 1).min(p.files.max(1)), p.files,
                p.stage, if p.calls > 0 { format!(" call {} of {}", p.calls_done, p.calls) } else { String::new() }, p.memory / 1_048_576.0)}</span>
            <button class="button stop" data-testid="usage-cancel" onclick={cancel}>{"Cancel"}</button>
        </div>
    }
}

/// Saves the report as `ctxlens usage --json` writes it.
fn save(r: &UsageReport) {
    let text = format!("{}\n", r.to_value().to_json_pretty(2));
    if let Err(e) = inputs::download("usage.json", text.as_bytes(), "application/json") {
        web_sys::console::error_1(&e.into());
    }
}

fn controls(g: &Grouping, regroup: Callback<Grouping>, r: &Rc<UsageReport>, done: bool) -> Html {
    let on_save = {
        let r = r.clone();
        Callback::from(move |_: MouseEvent| save(&r))
    };
    let on_by = {
        let (g, regroup) = (g.clone(), regroup.clone());
        Callback::from(move |e: Event| {
            let Some(v) = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
                .map(|s| s.value())
            else {
                return;
            };
            if let Some(by) = GroupBy::parse(&v) {
                regroup.emit(Grouping { by, ..g.clone() });
            }
        })
    };
    let on_day = |since: bool| {
        let (g, regroup) = (g.clone(), regroup.clone());
        Callback::from(move |e: Event| {
            let Some(v) = inputs::input_of(&e).map(|i| i.value()) else {
                return;
            };
            let v = Some(v).filter(|v| !v.is_empty());
            let mut g = g.clone();
            if since {
                g.since = v;
            } else {
                g.until = v;
            }
            regroup.emit(g);
        })
    };
    html! {
        <div class="as-controls">
            <label>{"Group by "}
                <select data-testid="usage-by" onchange={on_by}>
                    { for GroupBy::ALL.iter().map(|b| html! { <option value={b.as_str()} selected={*b == g.by}>{b.as_str()}</option> }) }
                </select>
            </label>
            <label>{"From "}<input type="date" data-testid="usage-since" value={g.since.clone().unwrap_or_default()} onchange={on_day(true)} /></label>
            <label>{"to "}<input type="date" data-testid="usage-until" value={g.until.clone().unwrap_or_default()} onchange={on_day(false)} /></label>
            <span class="muted small">{"(days in UTC, as ccusage counts them)"}</span>
            <button class="button" data-testid="usage-download" onclick={on_save} disabled={!done}
                title="the report as ctxlens usage --json writes it">{"Save as JSON"}</button>
        </div>
    }
}

fn report_view(r: &UsageReport, st: &St, open: &Callback<(String, String)>) -> Html {
    let t = &r.totals;
    let n = |x: usize| thousands(x as f64);
    html! {
        <div class="as-report">
            <p class="as-totals" data-testid="usage-totals"
                data-calls={t.calls.to_string()} data-sessions={t.sessions.to_string()}
                data-input={t.input.to_string()} data-output={t.output.to_string()}
                data-cache-read={t.cache_read.to_string()} data-cache-write={t.cache_write.to_string()}
                data-cost={t.cost.to_string()} data-rebuilt={r.rebuilt.to_string()}>
                <strong>{format!("{} calls in {} sessions · {}", n(t.calls), n(t.sessions), dollars(t.cost))}</strong>
                <span class="muted">{format!(" · input {} · cache read {} · cache write {} · output {} · {} calls rebuilt",
                    thousands(t.input), thousands(t.cache_read), thousands(t.cache_write),
                    thousands(t.output), n(r.rebuilt))}</span>
            </p>
            { periods(r) }
            { split_by(r) }
            <div class="as-grid">
                { items("Tools", "usage-tools", &rows(&r.tools)) }
                { items("System prompt sections", "usage-sections", &sourced_rows(&r.sections)) }
                { items("History by kind", "usage-history", &rows(&r.history)) }
                { items("Tool results by tool", "usage-results", &rows(&r.tool_results)) }
            </div>
            { never_called(r) }
            { breaks(r, open) }
            { costliest(r, open) }
            { read_notes(r, st) }
        </div>
    }
}

/// How each call's prompt tokens were split over its parts: by its model's vocabulary, or by
/// characters.
fn split_by(r: &UsageReport) -> Html {
    let by = &r.split_by.0;
    let calls = |n: usize| {
        format!(
            "{} call{}",
            thousands(n as f64),
            if n == 1 { "" } else { "s" }
        )
    };
    let vocab: Vec<String> = by
        .iter()
        .filter(|(k, _)| k != "characters")
        .map(|(k, n)| format!("{k} ({})", calls(*n)))
        .collect();
    let chars = by.iter().find(|(k, _)| k == "characters").map(|(_, n)| *n);
    if vocab.is_empty() && chars.is_none() {
        return Html::default();
    }
    let mut parts = Vec::new();
    if !vocab.is_empty() {
        parts.push(format!("by the model's vocabulary: {}", vocab.join(", ")));
    }
    if let Some(n) = chars {
        parts.push(format!(
            "by characters where the model's vocabulary is not public (Claude) or not loaded: {}",
            calls(n)
        ));
    }
    html! {
        <p class="muted small" data-testid="usage-split-by">
            {format!("Each call's prompt tokens and cost are split over its request's parts by their share of it — {}.", parts.join("; "))}
        </p>
    }
}

/// The groups as stacked columns of prompt tokens by block (and what was not rebuilt), and as
/// ccusage's table.
fn periods(r: &UsageReport) -> Html {
    let mut series: Vec<(String, String)> = BLOCKS
        .iter()
        .zip(BLOCK_COLORS)
        .map(|((_, label), c)| (label.to_string(), c.to_string()))
        .collect();
    series.push(("not rebuilt".into(), "var(--line)".into()));
    let columns: Vec<Column> = r
        .groups
        .iter()
        .map(|g| {
            let mut values: Vec<f64> = g.blocks.rows().iter().map(|(_, b)| b.tokens).collect();
            let split: f64 = values.iter().sum();
            values.push((g.input + g.cache_read + g.cache_write - split).max(0.0));
            Column {
                label: g.key.clone(),
                values,
                mark: None,
            }
        })
        .collect();
    html! {
        <section class="as-periods">
            <h3>{"Prompt tokens by block"}</h3>
            <Columns testid="usage-periods" series={series} columns={columns} unit="tokens" labels=true />
            <table class="calls-table" data-testid="usage-groups">
                <thead><tr><th>{"group"}</th><th class="num">{"calls"}</th><th class="num">{"input"}</th><th class="num">{"output"}</th>
                    <th class="num">{"cache read"}</th><th class="num">{"cache write"}</th><th class="num">{"cost"}</th></tr></thead>
                <tbody>
                { for r.groups.iter().map(|g| html! {
                    <tr data-key={g.key.clone()}>
                        <td class="mono">{&g.key}</td><td class="num">{thousands(g.calls as f64)}</td>
                        <td class="num">{thousands(g.input)}</td><td class="num">{thousands(g.output)}</td>
                        <td class="num">{thousands(g.cache_read)}</td><td class="num">{thousands(g.cache_write)}</td>
                        <td class="num">{dollars(g.cost)}</td>
                    </tr>
                }) }
                </tbody>
            </table>
        </section>
    }
}

/// A row of a ranked table: a name, where it comes from (`""`: not shown), in how many
/// requests, and its share.
struct Row<'a> {
    name: &'a str,
    source: &'a str,
    requests: usize,
    share: UsageShare,
}

fn rows(items: &[UsageItem]) -> Vec<Row<'_>> {
    items
        .iter()
        .map(|i| Row::new(&i.name, "", i.requests, i.share()))
        .collect()
}

fn sourced_rows(items: &[UsageSourcedItem]) -> Vec<Row<'_>> {
    items
        .iter()
        .map(|i| Row::new(&i.name, &i.source, i.requests, i.share()))
        .collect()
}

impl<'a> Row<'a> {
    fn new(name: &'a str, source: &'a str, requests: usize, share: UsageShare) -> Self {
        Row {
            name,
            source,
            requests,
            share,
        }
    }
}

/// A ranked table of items (largest cost first), the first 12.
fn items(title: &str, testid: &'static str, items: &[Row]) -> Html {
    if items.is_empty() {
        return Html::default();
    }
    let max = items
        .iter()
        .map(|i| i.share.tokens)
        .fold(0.0, f64::max)
        .max(1.0);
    html! {
        <section class="as-items">
            <h3>{title}</h3>
            <table class="calls-table" data-testid={testid}>
                <thead><tr><th>{"name"}</th><th class="num" title="in how many rebuilt requests">{"requests"}</th><th class="num">{"prompt tokens"}</th><th class="num">{"cost"}</th></tr></thead>
                <tbody>
                { for items.iter().take(12).map(|i| html! {
                    <tr data-name={i.name.to_string()}>
                        <td><span class="as-bar" style={format!("width:{:.1}%", i.share.tokens / max * 100.0)}></span>
                            <span class="mono">{i.name}</span>
                            if !i.source.is_empty() { <span class="muted as-source">{i.source}</span> }</td>
                        <td class="num">{thousands(i.requests as f64)}</td>
                        <td class="num">{thousands(i.share.tokens)}</td>
                        <td class="num">{dollars(i.share.cost)}</td>
                    </tr>
                }) }
                </tbody>
            </table>
            if items.len() > 12 { <p class="muted small">{format!("… {} more (ctxlens usage --json lists them all)", items.len() - 12)}</p> }
        </section>
    }
}

fn never_called(r: &UsageReport) -> Html {
    let (never, skills, shadowed) = (&r.never_called, &r.never_invoked, &r.shadowed_files);
    if never.is_empty() && skills.is_empty() && shadowed.is_empty() {
        return Html::default();
    }
    html! {
        <section class="as-suggest" data-testid="usage-never-called">
            if !never.is_empty() {
                <h3>{"Tools sent but never called"}</h3>
                <p class="muted small">{"Sent in every request, never used by the model in these sessions: switching one off (pi's --tools, or the tool's extension) would have saved about this much."}</p>
                <ul>
                { for never.iter().take(3).map(|i| suggestion(&i.name, i.tokens, i.cost, i.requests, None)) }
                </ul>
            }
            if !skills.is_empty() {
                <h3>{"Skills offered but never used"}</h3>
                <p class="muted small">{"Listed in the system prompt of every request, never read by the model nor asked for with /skill: — hiding one (disable-model-invocation in its frontmatter, or removing it) would have saved about this much."}</p>
                <ul data-testid="usage-never-invoked">
                { for skills.iter().take(3).map(|i| suggestion(&i.name, i.tokens, i.cost, i.requests, Some(i.source.clone()))) }
                </ul>
            }
            if !shadowed.is_empty() {
                <h3>{"Context files sent twice"}</h3>
                <p class="muted small">{"Another context file of the same request already holds the whole text of these (a copy of the global AGENTS.md in the project, a parent folder's file pasted into the child's): pi sends both. Removing the copy would have saved about this much."}</p>
                <ul data-testid="usage-shadowed-files">
                { for shadowed.iter().take(3).map(|i| suggestion(&i.file, i.tokens, i.cost, i.requests, Some(format!("held by {}", i.held_by)))) }
                </ul>
            }
        </section>
    }
}

/// One suggestion: what to switch off, what it cost over how many requests, and where it is.
fn suggestion(name: &str, tokens: f64, cost: f64, requests: usize, source: Option<String>) -> Html {
    html! {
        <li data-name={name.to_string()}><span class="mono">{name}</span>
            {format!(": {} prompt tokens, {} over {} requests", thousands(tokens), dollars(cost), thousands(requests as f64))}
            if let Some(source) = source { <span class="muted as-source">{source}</span> }
        </li>
    }
}

/// A button that opens a call of the report (when it has an entry id).
fn open_button(
    file: &str,
    line: usize,
    entry_id: Option<&str>,
    open: &Callback<(String, String)>,
) -> Html {
    let Some(id) = entry_id.map(str::to_string) else {
        return html! { <span class="muted">{"–"}</span> };
    };
    let file = file.to_string();
    let name = file.rsplit('/').next().unwrap_or(&file).to_string();
    let open = open.clone();
    let onclick = Callback::from(move |_: MouseEvent| open.emit((file.clone(), id.clone())));
    html! { <button class="link" data-testid="open-call" title="open this call in the request views" {onclick}>{format!("{name}:{line}")}</button> }
}

fn break_button(b: &UsageBreak, open: &Callback<(String, String)>) -> Html {
    open_button(&b.file, b.line, b.entry_id.as_deref(), open)
}

fn costly_button(c: &UsageCostlyCall, open: &Callback<(String, String)>) -> Html {
    open_button(&c.file, c.line, c.entry_id.as_deref(), open)
}

fn breaks(r: &UsageReport, open: &Callback<(String, String)>) -> Html {
    if r.cache_breaks.is_empty() {
        return Html::default();
    }
    let cost = |c: Option<f64>| c.map_or("–".into(), dollars);
    html! {
        <section class="as-breaks">
            <h3>{"Cache breaks"}</h3>
            <p class="muted small">{"Calls whose request stopped extending the previous call's: what the provider had cached from there on was sent again (cost: those tokens at the input price less the cache-read price)."}</p>
            <table class="calls-table" data-testid="usage-break-reasons">
                <thead><tr><th>{"why"}</th><th class="num">{"calls"}</th><th class="num">{"tokens again"}</th><th class="num">{"cost"}</th></tr></thead>
                <tbody>
                { for r.cache_breaks.iter().map(|b| html! {
                    <tr><td>{&b.reason}</td><td class="num">{thousands(b.calls as f64)}</td><td class="num">{thousands(b.tokens)}</td><td class="num">{cost(b.cost)}</td></tr>
                }) }
                </tbody>
            </table>
            <table class="calls-table" data-testid="usage-breaks">
                <thead><tr><th>{"call"}</th><th>{"when"}</th><th>{"why"}</th><th class="num">{"tokens again"}</th><th class="num">{"cost"}</th></tr></thead>
                <tbody>
                { for r.breaks.iter().take(20).map(|b| html! {
                    <tr><td>{break_button(b, open)}</td><td class="mono small">{&b.timestamp}</td><td>{&b.reason}</td>
                        <td class="num">{thousands(b.tokens)}</td><td class="num">{cost(b.cost)}</td></tr>
                }) }
                </tbody>
            </table>
        </section>
    }
}

fn costliest(r: &UsageReport, open: &Callback<(String, String)>) -> Html {
    if r.costliest.is_empty() {
        return Html::default();
    }
    html! {
        <section class="as-costliest">
            <h3>{"Costliest calls"}</h3>
            <table class="calls-table" data-testid="usage-costliest">
                <thead><tr><th>{"call"}</th><th>{"when"}</th><th>{"model"}</th><th>{"pi"}</th><th class="num">{"prompt tokens"}</th><th class="num">{"output"}</th><th class="num">{"cost"}</th></tr></thead>
                <tbody>
                { for r.costliest.iter().map(|c| html! {
                    <tr><td>{costly_button(c, open)}</td><td class="mono small">{&c.timestamp}</td><td class="mono">{c.model.clone().unwrap_or_default()}</td>
                        <td class="mono">{c.pi.clone().unwrap_or_default()}</td><td class="num">{thousands(c.input + c.cache_read + c.cache_write)}</td>
                        <td class="num">{thousands(c.output)}</td><td class="num">{dollars(c.cost)}</td></tr>
                }) }
                </tbody>
            </table>
        </section>
    }
}

/// How the report was made, and what was left out.
fn read_notes(r: &UsageReport, st: &St) -> Html {
    let read = &r.read;
    let mut reasons: Vec<(String, usize)> = Vec::new();
    for x in &read.not_rebuilt {
        match reasons.iter_mut().find(|r| r.0 == x.reason) {
            Some(r) => r.1 += 1,
            None => reasons.push((x.reason.clone(), 1)),
        }
    }
    html! {
        <section class="as-read" data-testid="usage-read">
            <h3>{"How this was read"}</h3>
            <ul class="small">
                { for st.notes.iter().map(|n| html! { <li>{n}</li> }) }
                <li>{format!("{} files read; {} calls found twice (a forked session's copy) counted once, as ccusage counts them.", thousands(read.files as f64), thousands(read.duplicates as f64))}</li>
                { for reasons.iter().map(|(why, n)| html! { <li data-testid="usage-not-rebuilt">{format!("Not rebuilt ({n}): {why}")}</li> }) }
                { for read.skipped.iter().take(20).map(|x| html! { <li data-testid="usage-skipped">{format!("Skipped: {}{} — {}", x.file,
                    x.line.map(|l| format!(":{l}")).unwrap_or_default(), x.reason)}</li> }) }
            </ul>
        </section>
    }
}

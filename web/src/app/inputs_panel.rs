//! The inputs panel: the session (by its name, first prompt and cwd, and where pi keeps
//! sessions), the two labelled targets for dropped files — pi's agent dir and the project —,
//! the list of where each file was laid and what pi made of it (read, shadowed by another copy,
//! replaced by a later drop, not used and why), per-file remove, paste and export.

use ctxlens::js::Value;
use yew::prelude::*;

use super::reducer::*;
use crate::inputs::recognize::FileKind;
use crate::inputs::{self, Collected};
use crate::shared::Shared;
use crate::state::{session_summary, Laid, RefusedFile, Scenario, SessionSummary, Target};

#[derive(Properties, PartialEq)]
pub(super) struct InputsProps {
    pub(super) scenario: Shared<Scenario>,
    pub(super) laid: Shared<Laid>,
    pub(super) reading: Option<String>,
    /// The report on screen (its `placement` says what pi read).
    pub(super) report: Option<Shared<crate::report::Report>>,
    pub(super) dispatch: UseReducerDispatcher<AppState>,
}

pub(super) fn read_into(
    dispatch: UseReducerDispatcher<AppState>,
    target: Target,
    what: String,
    fut: impl std::future::Future<Output = Result<Collected, String>> + 'static,
) {
    dispatch.dispatch(Action::Reading(what));
    wasm_bindgen_futures::spawn_local(async move {
        match fut.await {
            Ok(c) => dispatch.dispatch(Action::AddFiles(target, c)),
            Err(e) => dispatch.dispatch(Action::ReadFailed(e)),
        }
    });
}

/// A chooser's `change`: reads its files for `target`.
fn on_chosen(d: UseReducerDispatcher<AppState>, target: Target) -> Callback<Event> {
    Callback::from(move |e: Event| {
        let Some(input) = inputs::input_of(&e) else {
            return;
        };
        if let Some(files) = input.files() {
            read_into(
                d.clone(),
                target,
                format!("reading {} file(s)", files.length()),
                inputs::collect_file_list(&files, target),
            );
        }
        input.set_value("");
    })
}

/// `path` with the home folder shown as `~`.
fn tilde(path: &str, home: &str) -> String {
    match path.strip_prefix(home) {
        Some(rest) if !home.is_empty() && (rest.is_empty() || rest.starts_with('/')) => {
            format!("~{rest}")
        }
        _ => path.to_string(),
    }
}

/// One drop target: a labelled box taking drops (not the page's) and two choosers.
fn target_box(
    d: &UseReducerDispatcher<AppState>,
    target: Target,
    title: &str,
    path: &str,
    what: &str,
) -> Html {
    let key = match target {
        Target::Agent => "agent",
        _ => "project",
    };
    let ondragover = Callback::from(|e: DragEvent| {
        e.prevent_default();
        if let Some(dt) = e.data_transfer() {
            dt.set_drop_effect("copy");
        }
    });
    let ondrop = {
        let d = d.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            // The page's own drop handler would take the files again.
            e.stop_propagation();
            if let Some(dt) = e.data_transfer() {
                read_into(
                    d.clone(),
                    target,
                    format!("reading the files dropped on the {}", target.label()),
                    inputs::collect_drop(&dt, target),
                );
            }
        })
    };
    let folder_id = format!("{key}-folder-input");
    let files_id = format!("{key}-file-input");
    html! {
        <div class="drop-target" data-testid={format!("drop-{key}")} {ondragover} {ondrop}
            role="group" aria-label={format!("{title}: drop its files or its folder here")}>
            <p class="target-title"><strong>{title}</strong>{" "}<code>{path.to_string()}</code></p>
            <p class="muted target-what">{what.to_string()}</p>
            <div class="buttons">
                <label class="button" for={folder_id.clone()}>{"Choose the folder…"}</label>
                <input id={folder_id.clone()} class="visually-hidden" type="file" webkitdirectory=true multiple=true
                    data-testid={folder_id} onchange={on_chosen(d.clone(), target)} />
                <label class="button" for={files_id.clone()}>{"Choose files…"}</label>
                <input id={files_id.clone()} class="visually-hidden" type="file" multiple=true
                    data-testid={files_id} onchange={on_chosen(d.clone(), target)} />
            </div>
        </div>
    }
}

/// What the report's placement says of `path`: (status, text).
fn verdict(placement: &[Value], path: &str, home: &str) -> Option<(String, String)> {
    let f = placement.iter().find(|f| f.get_str("path") == Some(path))?;
    let status = f.get_str("status").unwrap_or("").to_string();
    let text = match status.as_str() {
        "read" => format!("read: {}", f.get_str("what").unwrap_or("")),
        "shadowed" => format!(
            "not used: {} wins ({})",
            tilde(f.get_str("by").unwrap_or(""), home),
            f.get_str("why").unwrap_or("")
        ),
        _ => format!("not used: {}", f.get_str("why").unwrap_or("")),
    };
    Some((status, text))
}

/// Drop, choose, paste, export; the session and the files with what pi made of each.
#[function_component(InputsPanel)]
pub(super) fn inputs_panel(p: &InputsProps) -> Html {
    let pasting = use_state(|| false);
    let paste_ref = use_node_ref();
    let on_files = on_chosen(p.dispatch.clone(), Target::Page);
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
        let rebuilt = p.report.as_deref().and_then(crate::state::session_release);
        Callback::from(move |_| {
            let folder = ctxlens::zip::folder_name(&name);
            let zip = ctxlens::zip::case_zip(&folder, &laid.exported(rebuilt));
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
    let laid = &p.laid;
    let home = laid.base.home.clone();
    let case_summary = sc.case.as_ref().map(case_summary);
    let placement: Vec<Value> = p
        .report
        .as_ref()
        .and_then(|r| r.get("placement"))
        .and_then(|pl| pl.get("files"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let placeholder = p
        .report
        .as_ref()
        .and_then(|r| r.get("placement"))
        .and_then(|pl| pl.get_str("placeholderKey"))
        .map(String::from);

    // The session: its name, first prompt and cwd.
    // Read once per scenario (a session can be tens of megabytes; this panel renders often).
    let session = use_memo(p.scenario.clone(), |sc| {
        sc.session()
            .map(|f| (f.path.clone(), session_summary(&f.bytes)))
            .or_else(|| {
                let b = sc.case.as_ref()?.get("session.jsonl")?;
                Some(("session.jsonl".to_string(), session_summary(b)))
            })
    });
    let cwd = laid.base.cwd.clone();
    let agent_dir = laid.base.agent_dir.clone();
    let session_html = session_line(session.as_ref().as_ref());
    let hint = sessions_hint(session.as_ref().as_ref(), &home);

    // Every loose file: where it was laid and what pi made of it.
    let rows = (0..sc.loose.len()).map(|i| loose_row(p, i, &placement, &home));
    let refused_rows = sc
        .refused
        .iter()
        .enumerate()
        .map(|(i, r)| refused_row(&p.dispatch, i, r));
    let case_rows = case_rows(sc, laid, &placement, &home);
    let no_request = p.report.as_ref().is_some_and(|r| r.request.is_none());
    let d = p.dispatch.clone();
    html! {
        <section class="panel inputs" aria-labelledby="inputs-h">
            <h2 id="inputs-h">{"Inputs"}</h2>
            { session_html }
            { hint }
            if let Some(provider) = &placeholder {
                <p class="placeholder-key" data-testid="placeholder-key" role="note">
                    {format!("No key for {provider} was dropped: a placeholder API key stands in. An API key never changes the body (the headers show keys redacted); a login (/login) can: for one, drop your agent dir's auth.json (its keys are replaced as it is read, never kept or shown).")}
                </p>
            }
            if no_request {
                <p class="no-request" data-testid="no-request">
                    {"pi would send no request: see the diagnostics. On this page: pick a model in the settings (Model), drop your agent dir's models.json if the session's model is a custom one, or type a prompt."}
                </p>
            }
            <div class="drop-zone" data-testid="drop-zone">
                <p class="drop-hint">{"Drop a session (.jsonl) anywhere on the page, or a folder or .zip the export wrote. Drop your pi folders on their targets below, so each file is laid where pi reads it."}</p>
                <div class="buttons">
                    <label class="button" for="file-input">{"Choose a session or files…"}</label>
                    <input id="file-input" class="visually-hidden" type="file" multiple=true data-testid="file-input" onchange={on_files.clone()} />
                    <label class="button" for="folder-input">{"Open a folder…"}</label>
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
            <div class="targets">
                { target_box(&d, Target::Agent, "Agent dir", &tilde(&agent_dir, &home),
                    "Drop ~/.pi/agent (or its files): AGENTS.md, SYSTEM.md, APPEND_SYSTEM.md, settings.json, models.json, auth.json (its keys replaced as it is read), skills/. Its sessions/ folder is not read.") }
                { target_box(&d, Target::Project, "Project", &tilde(&cwd, &home),
                    "Drop the project folder (the session's cwd): its AGENTS.md / CLAUDE.md, .pi/settings.json, .pi/SYSTEM.md, .pi/skills/.") }
            </div>
            <div class="loaded">
                if let Some(s) = case_summary { <p class="case-line"><strong>{"Loaded from a folder"}</strong>{" "}{s}</p> }
                if !sc.loose.is_empty() || !sc.refused.is_empty() {
                    <h3 class="files-h">{"Files, where pi sees them"}</h3>
                    <ul class="placement" data-testid="placement">
                        { for rows }
                        { for refused_rows }
                    </ul>
                }
                if !case_rows.is_empty() {
                    <details class="case-files">
                        <summary>{format!("Its files, where pi sees them ({})", case_rows.len())}</summary>
                        <ul class="placement">{ for case_rows.into_iter() }</ul>
                    </details>
                }
                if sc.case.is_none() && sc.loose.is_empty() { <p class="muted">{"Nothing loaded: pi would start a new session."}</p> }
            </div>
            <div class="buttons">
                <button class="button" onclick={export} title="Download the inputs as a case folder (zip) the CLI reads (keys are never in it)">{"Export (.zip)"}</button>
                <button class="button" onclick={demo}>{"Demo"}</button>
                <button class="button" onclick={clear}>{"Clear"}</button>
            </div>
        </section>
    }
}

/// What a loaded case folder holds, in a line.
fn case_summary(c: &ctxlens::case::CaseFiles) -> String {
    let has = |k: &str| c.contains_key(k);
    let count = |pre: &str| c.keys().filter(|k| k.starts_with(pre)).count();
    let mut parts = vec![format!("{} files", c.len())];
    if has("session.jsonl") {
        parts.push("a session".into());
    }
    if has("tools.json") {
        parts.push("a tool set".into());
    }
    parts.push(format!("{} in the agent dir", count("agent/")));
    parts.push(format!("{} in the project", count("fs/")));
    parts.join(" · ")
}

/// The session: its file's name, first prompt and cwd; or that there is none.
fn session_line(session: Option<&(String, SessionSummary)>) -> Html {
    match session {
        Some((path, s)) => html! {
            <div class="session-line" data-testid="session-name">
                <p><strong>{"Session "}</strong><code>{path.rsplit('/').next().unwrap_or(path).to_string()}</code></p>
                if let Some(fp) = &s.first_prompt { <p class="muted">{"first prompt: "}<q>{fp.clone()}</q></p> }
                if let Some(c) = &s.cwd { <p class="muted">{"cwd: "}<code>{c.clone()}</code></p> }
            </div>
        },
        None => {
            html! { <p class="muted session-line" data-testid="session-name">{"No session: drop one (a .jsonl file), or pi starts a new session."}</p> }
        }
    }
}

/// Where pi keeps sessions, and this session's folder.
fn sessions_hint(session: Option<&(String, SessionSummary)>, home: &str) -> Html {
    let sessions_dir = session
        .and_then(|(_, s)| s.sessions_dir.clone())
        .map(|d| tilde(&d, home));
    html! {
        <p class="muted session-hint" data-testid="sessions-hint">
            {"pi keeps each session in "}<code>{"~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl"}</code>
            {" (the cwd with each / as -, e.g. "}<code>{"--home-ann-shop--"}</code>{")"}
            if let Some(d) = sessions_dir { {": this session's folder is "}<code>{d}</code> }
            {"."}
        </p>
    }
}

/// Loose file `i`: where it was laid and what pi made of it, with its remove button.
fn loose_row(p: &InputsProps, i: usize, placement: &[Value], home: &str) -> Html {
    let (sc, laid) = (&p.scenario, &p.laid);
    let f = &sc.loose[i];
    let w = laid.placed.get(i).cloned().unwrap_or_default();
    let (status, text) = if let Some(j) = w.replaced_by {
        let later = sc.loose.get(j).map(|g| g.path.clone()).unwrap_or_default();
        (
            "replaced".to_string(),
            if f.kind == FileKind::Session {
                format!("not used: {later}, dropped later, is the session (one at a time)")
            } else {
                format!("not used: replaced by {later}, dropped later at the same path")
            },
        )
    } else if let Some(why) = &w.why_not {
        ("unused".to_string(), format!("not used: {why}"))
    } else {
        match &f.kind {
            FileKind::Session => ("read".into(), "the session pi resumes".into()),
            FileKind::Tools { count, shape, .. } => (
                "read".into(),
                format!("tool set: {count} tools ({shape}), as extension tools"),
            ),
            _ => w
                .pi_path
                .as_deref()
                .and_then(|pp| verdict(placement, pp, home))
                .unwrap_or_else(|| ("pending".into(), "…".into())),
        }
    };
    let text = if w.replaces_case_file {
        format!("{text}; replaces the loaded folder's copy")
    } else {
        text
    };
    let at = match (&f.kind, &w.pi_path) {
        (FileKind::Session | FileKind::Tools { .. }, _) => None,
        (_, Some(pp)) => Some(tilde(pp, home)),
        _ => None,
    };
    let d = p.dispatch.clone();
    let remove = Callback::from(move |_| d.dispatch(Action::RemoveLoose(i)));
    html! {
        <li class={classes!("placed", status.clone())} data-testid="placed-row" data-status={status.clone()} data-path={f.path.clone()} data-at={at.clone()}>
            <div class="placed-head">
                <code class="dropped" title={f.path.clone()}>{&f.path}</code>
                <span class="target-badge">{f.target.label()}</span>
                <button class="remove" data-testid="remove-file" aria-label={format!("Remove {}", f.path)} title="Remove this file (the request is rebuilt without it)" onclick={remove}>{"×"}</button>
            </div>
            if let Some(a) = at { <div class="placed-at">{"→ "}<code>{a}</code></div> }
            <div class="placed-what" data-testid="placed-what">{text}</div>
        </li>
    }
}

/// A file that was not taken (`i` among them), and why.
fn refused_row(d: &UseReducerDispatcher<AppState>, i: usize, r: &RefusedFile) -> Html {
    let d = d.clone();
    let remove = Callback::from(move |_| d.dispatch(Action::RemoveRefused(i)));
    html! {
        <li class="placed refused" data-testid="placed-row" data-status="refused" data-path={r.path.clone()}>
            <div class="placed-head">
                <code class="dropped" title={r.path.clone()}>{&r.path}</code>
                <span class="target-badge">{r.target.label()}</span>
                <button class="remove" data-testid="remove-file" aria-label={format!("Remove {}", r.path)} title="Remove from the list" onclick={remove}>{"×"}</button>
            </div>
            <div class="placed-what" data-testid="placed-what">{format!("not used: {}", r.why)}</div>
        </li>
    }
}

/// The case folder's own files (the demo's, an opened case's) as pi placed them, those a
/// loose file replaced left out.
fn case_rows(sc: &Scenario, laid: &Laid, placement: &[Value], home: &str) -> Vec<Html> {
    let loose_paths: Vec<&str> = laid
        .placed
        .iter()
        .filter_map(|w| w.pi_path.as_deref())
        .collect();
    placement
        .iter()
        .filter(|f| sc.case.is_some() && !f.get_str("path").is_some_and(|x| loose_paths.contains(&x)))
        .map(|f| {
            let path = f.get_str("path").unwrap_or("");
            let (status, text) = verdict(placement, path, home).unwrap_or_default();
            html! {
                <li class={classes!("placed", status.clone())} data-testid="case-row" data-status={status.clone()}>
                    <code>{tilde(path, home)}</code>
                    <div class="placed-what">{text}</div>
                </li>
            }
        })
        .collect()
}

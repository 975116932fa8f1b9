//! The inputs panel: drop, choose, paste and export the scenario's files.

use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::reducer::*;
use crate::inputs::{self, Collected};
use crate::shared::Shared;
use crate::state::{Laid, Scenario};

#[derive(Properties, PartialEq)]
pub(super) struct InputsProps {
    pub(super) scenario: Shared<Scenario>,
    pub(super) laid: Shared<Laid>,
    pub(super) reading: Option<String>,
    pub(super) dispatch: UseReducerDispatcher<AppState>,
}

pub(super) fn read_into(
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
pub(super) fn inputs_panel(p: &InputsProps) -> Html {
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
            let folder = ctxlens::zip::folder_name(&name);
            let zip = ctxlens::zip::case_zip(&folder, &laid.files);
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

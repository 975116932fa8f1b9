//! The app's effects: the worker started, the embed mode, the page's keys, hash and paste, the
//! view state kept in the hash, and files dropped on the page.

use std::rc::Rc;

use gloo_events::{EventListener, EventListenerOptions};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::inputs_panel::read_into;
use super::reducer::{Action, AppState, Host};
use super::util::{is_editable, looks_like_session};
use crate::inputs;
use crate::state::ViewState;

type Dispatch = UseReducerDispatcher<AppState>;

/// Starts the worker once; its messages go to the reducer.
#[hook]
pub(super) fn use_worker(host: Rc<Host>, d: Dispatch) {
    use_effect_with((), move |_| {
        *host.on_message.borrow_mut() = Some(Rc::new(move |m| d.dispatch(Action::Worker(m))));
        if let Err(e) = host.start() {
            web_sys::console::error_1(&e.into());
        }
        || ()
    });
}

/// The URL parameters' files and the iframe mode (web/src/embed.rs).
#[hook]
pub(super) fn use_embed(d: Dispatch) {
    use_effect_with((), move |_| {
        crate::embed::start(Callback::from(move |sc| {
            d.dispatch(Action::Embedded(Box::new(sc)))
        }));
        || ()
    });
}

/// The hash changed by hand, and a session pasted on the page (not into a field).
#[hook]
pub(super) fn use_page_events(d: Dispatch) {
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
                    d.dispatch(Action::Paste(text));
                }
            })
        });
        move || drop((on_hash, on_paste))
    });
}

/// ←/→ step through the pipeline's `count` stages from `stage` (not while typing).
#[hook]
pub(super) fn use_stage_keys(stage: usize, count: usize, on_stage: Callback<usize>) {
    use_effect_with((stage, count), move |&(stage, count)| {
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

/// The view state goes into the hash (replaceState: no history entry per click).
#[hook]
pub(super) fn use_hash_sync(hash: String) {
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

/// The page's drag-and-drop handlers: over, leave and drop.
pub(super) struct DropHandlers {
    pub over: Callback<DragEvent>,
    pub leave: Callback<DragEvent>,
    pub drop: Callback<DragEvent>,
}

/// Files dropped on the page are read as one request's files, except on All sessions, which
/// takes the drops on it (`dragging`: whether something is dragged over the page).
pub(super) fn drop_handlers(
    dragging: &UseStateHandle<bool>,
    d: &Dispatch,
    sessions_on: bool,
) -> DropHandlers {
    let over = {
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
    let leave = {
        let dragging = dragging.clone();
        Callback::from(move |e: DragEvent| {
            if e.related_target().is_none() {
                dragging.set(false);
            }
        })
    };
    let drop = {
        let (dragging, d) = (dragging.clone(), d.clone());
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
    DropHandlers { over, leave, drop }
}

//! Small helpers of the shell.

use ctxlens::js;
use ctxlens::Api;
use wasm_bindgen::JsCast;
use yew::prelude::*;

// Small pieces.

pub(super) fn fmt_bytes(b: f64) -> String {
    if b >= 1_048_576.0 {
        format!("{:.1} MB", b / 1_048_576.0)
    } else if b >= 1024.0 {
        format!("{:.1} kB", b / 1024.0)
    } else {
        format!("{b} B")
    }
}

/// The views the other half of the app provides (`views::view_nav`), or a placeholder.
pub(super) fn view_nav() -> Vec<(&'static str, &'static str)> {
    crate::views::view_nav()
}

pub(super) fn input_value(e: &Event) -> String {
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

pub(super) fn is_editable(target: Option<web_sys::EventTarget>) -> bool {
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
pub(super) fn looks_like_session(text: &str) -> bool {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .and_then(|l| js::parse(l).ok())
        .is_some_and(|v| v.get_str("type") == Some("session"))
}

pub(super) fn api_label(api: &str) -> &str {
    match api.parse::<Api>() {
        Ok(a) => a.label(),
        Err(_) => api,
    }
}

//! The few browser APIs the views need, declared directly (no web-sys features required):
//! element scroll positions, the clipboard, scrolling into view. (Blob URLs are gloo-file's.)

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen]
extern "C" {
    /// Any DOM element (only the members used here).
    pub type El;
    #[wasm_bindgen(method, getter = scrollTop)]
    pub fn scroll_top(this: &El) -> f64;
    #[wasm_bindgen(method, setter = scrollTop)]
    pub fn set_scroll_top(this: &El, v: f64);
    #[wasm_bindgen(method, getter = open)]
    pub fn open(this: &El) -> bool;
    #[wasm_bindgen(method, getter = clientHeight)]
    pub fn client_height(this: &El) -> f64;

    #[wasm_bindgen(js_namespace = ["navigator", "clipboard"], js_name = writeText, catch)]
    fn clipboard_write_text(text: &str) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(js_namespace = JSON, js_name = parse, catch)]
    fn json_parse(s: &str) -> Result<JsValue, JsValue>;

}

/// The scroll position of an event's target (0 when it is not an element).
pub fn event_scroll_top(e: &yew::Event) -> f64 {
    e.target()
        .map(|t| t.unchecked_into::<El>().scroll_top())
        .unwrap_or(0.0)
}

/// Whether the `<details>` an event (a `toggle`) came from is open.
pub fn details_open(e: &yew::Event) -> bool {
    e.target()
        .map(|t| t.unchecked_into::<El>().open())
        .unwrap_or(false)
}

/// Writes `text` to the clipboard; false when the API is missing or refused at once.
pub fn copy_text(text: &str) -> bool {
    clipboard_write_text(text).is_ok()
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(method, js_name = querySelector, catch)]
    fn query_selector_(this: &El, selector: &str) -> Result<Option<El>, JsValue>;
    #[wasm_bindgen(method, js_name = scrollIntoView, catch)]
    fn scroll_into_view_(this: &El, options: &JsValue) -> Result<(), JsValue>;
}

/// Scrolls the first element under `root` matching `selector` into view (nearest block).
pub fn scroll_into_view(root: &yew::NodeRef, selector: &str) {
    let Some(n) = root.get() else { return };
    let el: El = n.unchecked_into();
    if let Ok(Some(t)) = el.query_selector_(selector) {
        let opts = json_parse("{\"block\":\"nearest\",\"behavior\":\"smooth\"}")
            .unwrap_or(JsValue::UNDEFINED);
        let _ = t.scroll_into_view_(&opts);
    }
}

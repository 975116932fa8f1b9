//! The few browser APIs the views need, declared directly (no web-sys features required):
//! element scroll positions, the clipboard, Blob URLs.

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

    #[wasm_bindgen(js_namespace = Array, js_name = of)]
    fn array_of1(x: &JsValue) -> JsValue;
    #[wasm_bindgen(js_namespace = JSON, js_name = parse, catch)]
    fn json_parse(s: &str) -> Result<JsValue, JsValue>;

    type Blob;
    #[wasm_bindgen(constructor, catch)]
    fn new(parts: &JsValue, options: &JsValue) -> Result<Blob, JsValue>;

    #[wasm_bindgen(js_namespace = URL, js_name = createObjectURL, catch)]
    fn create_object_url(blob: &Blob) -> Result<String, JsValue>;
    #[wasm_bindgen(js_namespace = URL, js_name = revokeObjectURL, catch)]
    fn revoke_object_url(url: &str) -> Result<(), JsValue>;
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

/// A `blob:` URL holding `text` with a MIME type; None if the browser refuses.
pub fn blob_url(text: &str, mime: &str) -> Option<String> {
    let opts = json_parse(&format!(
        "{{\"type\":\"{}\"}}",
        mime.replace(['"', '\\'], "")
    ))
    .unwrap_or(JsValue::UNDEFINED);
    let blob = Blob::new(&array_of1(&JsValue::from_str(text)), &opts).ok()?;
    create_object_url(&blob).ok()
}

pub fn revoke_url(url: &str) {
    let _ = revoke_object_url(url);
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

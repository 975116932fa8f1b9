//! The inputs: files and folders dropped anywhere on the page or chosen with the file and folder
//! choosers, a pasted session; what each file is ([`recognize`]); zip archives ([`zip`]: the
//! case-folder export, and a dropped or chosen `.zip` opened as the folder it holds, inflated by
//! `miniz_oxide`). Reading the browser's files is the small JS module `collect.js` (folder walks
//! with `webkitGetAsEntry` are callback APIs; promises read better there).

pub mod recognize;
pub mod zip;

use ctxlens::Diagnostic;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(module = "/src/inputs/collect.js")]
extern "C" {
    #[wasm_bindgen(js_name = collectDrop)]
    fn collect_drop_js(data_transfer: &web_sys::DataTransfer) -> js_sys::Promise;
    #[wasm_bindgen(js_name = collectFileList)]
    fn collect_file_list_js(files: &web_sys::FileList) -> js_sys::Promise;
    #[wasm_bindgen(js_name = download, catch)]
    fn download_js(name: &str, bytes: &js_sys::Uint8Array, mime: &str) -> Result<(), JsValue>;
}

/// What was read: files as (relative path, bytes), what was skipped on the way, and problems
/// found (a zip that could not be opened in full).
#[derive(Default)]
pub struct Collected {
    pub files: Vec<(String, Vec<u8>)>,
    pub skipped: Vec<String>,
    pub notes: Vec<Diagnostic>,
}

impl Collected {
    /// Every `.zip` among the files replaced by its entries (`zip::expand_zips`, the page's caps).
    pub fn open_zips(mut self) -> Collected {
        let files = std::mem::take(&mut self.files);
        self.files = zip::expand_zips(files, &mut self.skipped, &mut self.notes, zip::LIMITS);
        self
    }
}

fn to_collected(v: JsValue) -> Collected {
    let get = |o: &JsValue, k: &str| {
        js_sys::Reflect::get(o, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED)
    };
    let mut out = Collected::default();
    let files: js_sys::Array = get(&v, "files").dyn_into().unwrap_or_default();
    for pair in files.iter() {
        let pair: js_sys::Array = pair.dyn_into().unwrap_or_default();
        let path = pair.get(0).as_string().unwrap_or_default();
        let bytes = pair
            .get(1)
            .dyn_into::<js_sys::Uint8Array>()
            .map(|a| a.to_vec())
            .unwrap_or_default();
        if !path.is_empty() {
            out.files.push((path, bytes));
        }
    }
    let skipped: js_sys::Array = get(&v, "skipped").dyn_into().unwrap_or_default();
    out.skipped = skipped.iter().filter_map(|s| s.as_string()).collect();
    out
}

fn error_text(e: JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "could not read the files".into())
}

/// Starts reading a drop (synchronously takes the items; the reading is async). Zips are opened.
pub fn collect_drop(
    dt: &web_sys::DataTransfer,
) -> impl std::future::Future<Output = Result<Collected, String>> {
    let p = collect_drop_js(dt);
    async move {
        wasm_bindgen_futures::JsFuture::from(p)
            .await
            .map(|v| to_collected(v).open_zips())
            .map_err(error_text)
    }
}

/// Reads a chooser's files. Zips are opened.
pub fn collect_file_list(
    files: &web_sys::FileList,
) -> impl std::future::Future<Output = Result<Collected, String>> {
    let p = collect_file_list_js(files);
    async move {
        wasm_bindgen_futures::JsFuture::from(p)
            .await
            .map(|v| to_collected(v).open_zips())
            .map_err(error_text)
    }
}

/// Offers bytes as a download.
pub fn download(name: &str, bytes: &[u8], mime: &str) -> Result<(), String> {
    download_js(name, &js_sys::Uint8Array::from(bytes), mime).map_err(error_text)
}

//! The inputs: files and folders dropped anywhere on the page or chosen with the file and folder
//! choosers, a pasted session; what each file is ([`recognize`]); zip archives ([`zip`]: the
//! case-folder export, and a dropped or chosen `.zip` opened as the folder it holds, inflated by
//! `miniz_oxide`). Listing the browser's files is the small JS module `collect.js` (folder walks
//! with `webkitGetAsEntry` are callback APIs; promises read better there); reading them is
//! gloo-file's, one file at a time, so only the file being read is held both as a JS buffer and
//! in wasm.

pub mod recognize;
pub mod zip;

use ctxlens::Diagnostic;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(module = "/src/inputs/collect.js")]
extern "C" {
    #[wasm_bindgen(js_name = collectDrop)]
    fn collect_drop_js(
        data_transfer: &web_sys::DataTransfer,
        skip: js_sys::Array,
    ) -> js_sys::Promise;
    #[wasm_bindgen(js_name = collectFileList)]
    fn collect_file_list_js(files: &web_sys::FileList, skip: js_sys::Array) -> js_sys::Promise;
}

/// Files larger than this are not read (the file chooser's cap, and the zip reader's total).
pub const MAX_FILE: f64 = 512.0 * 1024.0 * 1024.0;

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

/// Reads what `collect.js` listed (`{files: [[path, File]…], skipped}`), one file at a time.
async fn read_listed(v: JsValue) -> Result<Collected, String> {
    let get = |o: &JsValue, k: &str| {
        js_sys::Reflect::get(o, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED)
    };
    let mut out = Collected::default();
    let skipped: js_sys::Array = get(&v, "skipped").dyn_into().unwrap_or_default();
    out.skipped = skipped.iter().filter_map(|s| s.as_string()).collect();
    let files: js_sys::Array = get(&v, "files").dyn_into().unwrap_or_default();
    for pair in files.iter() {
        let pair: js_sys::Array = pair.dyn_into().unwrap_or_default();
        let path = pair.get(0).as_string().unwrap_or_default();
        let Ok(file) = pair.get(1).dyn_into::<web_sys::File>() else {
            continue;
        };
        if path.is_empty() {
            continue;
        }
        if file.size() > MAX_FILE {
            out.skipped.push(format!("{path} (larger than 512 MB)"));
            continue;
        }
        let blob = gloo_file::Blob::from(file);
        let bytes = gloo_file::futures::read_as_bytes(&blob)
            .await
            .map_err(|e| format!("{path}: {e}"))?;
        out.files.push((path, bytes));
    }
    Ok(out)
}

fn error_text(e: JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "could not read the files".into())
}

/// Folders not read for a target: pi's sessions of every project, in the agent dir.
fn skip_for(target: crate::state::Target) -> js_sys::Array {
    let a = js_sys::Array::new();
    if target == crate::state::Target::Agent {
        a.push(&JsValue::from_str("sessions"));
    }
    a
}

/// Starts reading a drop (synchronously takes the items; the reading is async). Zips are opened.
pub fn collect_drop(
    dt: &web_sys::DataTransfer,
    target: crate::state::Target,
) -> impl std::future::Future<Output = Result<Collected, String>> {
    let p = collect_drop_js(dt, skip_for(target));
    async move {
        let listed = wasm_bindgen_futures::JsFuture::from(p)
            .await
            .map_err(error_text)?;
        read_listed(listed).await.map(Collected::open_zips)
    }
}

/// Reads a chooser's files. Zips are opened.
pub fn collect_file_list(
    files: &web_sys::FileList,
    target: crate::state::Target,
) -> impl std::future::Future<Output = Result<Collected, String>> {
    let p = collect_file_list_js(files, skip_for(target));
    async move {
        let listed = wasm_bindgen_futures::JsFuture::from(p)
            .await
            .map_err(error_text)?;
        read_listed(listed).await.map(Collected::open_zips)
    }
}

/// Files listed but not read: the browser's handles, by their path below what was dropped or
/// chosen, and the folders skipped on the way.
#[derive(Default)]
pub struct Listed {
    pub files: Vec<(String, web_sys::File)>,
    pub skipped: Vec<String>,
}

fn listed_of(v: JsValue) -> Listed {
    let get = |o: &JsValue, k: &str| {
        js_sys::Reflect::get(o, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED)
    };
    let skipped: js_sys::Array = get(&v, "skipped").dyn_into().unwrap_or_default();
    let files: js_sys::Array = get(&v, "files").dyn_into().unwrap_or_default();
    Listed {
        skipped: skipped.iter().filter_map(|s| s.as_string()).collect(),
        files: files
            .iter()
            .filter_map(|pair| {
                let pair: js_sys::Array = pair.dyn_into().ok()?;
                let path = pair.get(0).as_string().filter(|p| !p.is_empty())?;
                Some((path, pair.get(1).dyn_into::<web_sys::File>().ok()?))
            })
            .collect(),
    }
}

/// What `collect.js` listed, once its promise settles.
async fn listed(p: js_sys::Promise) -> Result<Listed, String> {
    let v = wasm_bindgen_futures::JsFuture::from(p)
        .await
        .map_err(error_text)?;
    Ok(listed_of(v))
}

/// Lists a drop without reading it (a sessions folder can be gigabytes: its files are read one
/// at a time later). Synchronously takes the items, as [`collect_drop`].
pub fn list_drop(
    dt: &web_sys::DataTransfer,
) -> impl std::future::Future<Output = Result<Listed, String>> {
    listed(collect_drop_js(dt, js_sys::Array::new()))
}

/// Lists a chooser's files without reading them.
pub fn list_file_list(
    files: &web_sys::FileList,
) -> impl std::future::Future<Output = Result<Listed, String>> {
    listed(collect_file_list_js(files, js_sys::Array::new()))
}

/// The `<input>` an event came from.
pub fn input_of(e: &web_sys::Event) -> Option<web_sys::HtmlInputElement> {
    e.target().and_then(|t| t.dyn_into().ok())
}

/// Reads one file's bytes.
pub async fn read_file(path: &str, file: &web_sys::File) -> Result<Vec<u8>, String> {
    if file.size() > MAX_FILE {
        return Err(format!("{path}: larger than 512 MB"));
    }
    let blob = gloo_file::Blob::from(file.clone());
    gloo_file::futures::read_as_bytes(&blob)
        .await
        .map_err(|e| format!("{path}: {e}"))
}

/// Offers bytes as a download: a `blob:` URL (gloo-file) on a clicked `<a download>`, revoked
/// ten seconds later (gloo-timers), when the browser has long taken the bytes.
pub fn download(name: &str, bytes: &[u8], mime: &str) -> Result<(), String> {
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let url = gloo_file::ObjectUrl::from(gloo_file::Blob::new_with_options(bytes, Some(mime)));
    let a: web_sys::HtmlAnchorElement = doc
        .create_element("a")
        .ok()
        .and_then(|a| a.dyn_into().ok())
        .ok_or("could not make a link")?;
    a.set_href(&url);
    a.set_download(name);
    let body = doc.body().ok_or("no document body")?;
    body.append_child(&a).map_err(error_text)?;
    a.click();
    a.remove();
    gloo_timers::callback::Timeout::new(10_000, move || drop(url)).forget();
    Ok(())
}

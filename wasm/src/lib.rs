//! The `ctxlens` npm package's WebAssembly binding. The only crate that depends on
//! wasm-bindgen; it owns the JS-facing shapes and keeps `ctxlens` (core/) free of wasm crates.
//!
//! The boundary is deliberately narrow: JSON text and strings in, JSON text and the body's bytes out,
//! all files in one byte buffer (`[[path, byteLength], ...]` in the options says where each
//! starts). The hand-written wrapper in `npm/` turns the user's options object into this and
//! the result back into plain objects. These exports are internal; the package's API is the
//! wrapper's (`npm/index.d.ts`).

pub mod api;
#[cfg(feature = "node")]
pub mod node;

use ctxlens::js::StrBuilder;
use wasm_bindgen::prelude::*;

/// The metadata JSON; the body's bytes wait in `BODY` for [`take_body`].
fn output(r: Result<api::Output, String>) -> Result<String, JsError> {
    let out = r.map_err(|e| JsError::new(&e))?;
    BODY.with(|b| *b.borrow_mut() = out.body.map(String::into_bytes));
    Ok(out.meta)
}

thread_local! {
    /// The body of the last assembly, until the JS side takes it.
    static BODY: std::cell::RefCell<Option<Vec<u8>>> = const { std::cell::RefCell::new(None) };
}

/// The last assembly's body as UTF-8 bytes (a `Uint8Array` on the JS side, which decodes it to
/// a string only when `result.body` is read), or nothing when no request was built.
#[wasm_bindgen(js_name = takeBody)]
pub fn take_body() -> Option<Vec<u8>> {
    BODY.with(|b| b.borrow_mut().take())
}

/// Grows the heap in one step to what an assembly of a `len`-byte session needs (about 3× its
/// size): the allocator would otherwise grow the wasm memory a few pages at a time, and many
/// small `memory.grow`s cost far more than one large one. The block is freed at once and the
/// allocator hands it out again.
/// Only the part the memory does not have yet is asked for: a heap already that large (an
/// earlier call) is left as it is.
fn reserve_heap(len: usize) {
    #[cfg(target_arch = "wasm32")]
    {
        let have = core::arch::wasm32::memory_size(0) * 65536;
        let want = len.saturating_mul(3);
        if len > 1 << 20 && want > have {
            drop(Vec::<u8>::with_capacity(want - have));
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = len;
}

thread_local! {
    /// The session text's buffer, handed out by [`text_buffer`] and taken by [`assemble_raw`].
    static TEXT: std::cell::RefCell<Option<StrBuilder>> = const { std::cell::RefCell::new(None) };
}

/// A buffer of `len` bytes in the wasm memory for the session's UTF-8 text: the JS side encodes
/// the text straight into it (`TextEncoder.encodeInto`), and the assembly parses it in place —
/// its strings are ranges of this one buffer. The next [`assemble_raw`] takes it.
#[wasm_bindgen(js_name = textBuffer)]
pub fn text_buffer(len: usize) -> *mut u8 {
    reserve_heap(len);
    let mut b = StrBuilder::new(len);
    let ptr = b.as_mut_ptr();
    TEXT.with(|t| *t.borrow_mut() = Some(b));
    ptr
}

/// The wasm memory, for the JS side to write into [`text_buffer`]'s buffer.
#[wasm_bindgen(js_name = wasmMemory)]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}

#[wasm_bindgen]
extern "C" {
    /// The vocabularies the JS side has loaded (npm/tokens.js), passed to a call that asks for
    /// tokens.
    pub type JsVocabularies;
    /// `countTexts(name, bytes, ends)`: the tokens of each text `bytes[ends[i-1]..ends[i]]`
    /// (UTF-8; `bytes` is a view of this wasm's memory, read before returning) by vocabulary
    /// `name`, as a `Uint32Array`; `undefined` when that vocabulary is not loaded; throws when
    /// it cannot count.
    #[wasm_bindgen(method, catch, js_name = countTexts)]
    fn count_texts(
        this: &JsVocabularies,
        name: &str,
        bytes: &[u8],
        ends: &[u32],
    ) -> Result<Option<Vec<u32>>, JsValue>;
    /// `shipped`: the names of the vocabularies the package ships.
    #[wasm_bindgen(method, getter)]
    fn shipped(this: &JsVocabularies) -> Option<Vec<String>>;
    /// `entry`: the module the user imports `loadVocabulary` from (`ctxlens`, `ctxlens/web`).
    #[wasm_bindgen(method, getter)]
    fn entry(this: &JsVocabularies) -> Option<String>;
}

impl api::Vocabularies for JsVocabularies {
    fn count(&mut self, name: &str, texts: &[&str]) -> Option<Result<Vec<usize>, String>> {
        let mut bytes = Vec::with_capacity(texts.iter().map(|t| t.len()).sum());
        let mut ends = Vec::with_capacity(texts.len());
        for t in texts {
            bytes.extend_from_slice(t.as_bytes());
            let Ok(end) = u32::try_from(bytes.len()) else {
                return Some(Err("the texts are over 4 GB".into()));
            };
            ends.push(end);
        }
        match self.count_texts(name, &bytes, &ends) {
            Ok(None) => None,
            Ok(Some(counts)) if counts.len() == texts.len() => {
                Some(Ok(counts.into_iter().map(|n| n as usize).collect()))
            }
            Ok(Some(counts)) => Some(Err(format!(
                "the {name} vocabulary gave {} counts for {} texts",
                counts.len(),
                texts.len()
            ))),
            Err(e) => Some(Err(e.as_string().unwrap_or_else(|| format!("{e:?}")))),
        }
    }

    fn shipped(&self) -> Vec<String> {
        JsVocabularies::shipped(self).unwrap_or_default()
    }

    fn entry(&self) -> String {
        JsVocabularies::entry(self).unwrap_or_else(|| "ctxlens".into())
    }
}

fn vocabularies(tokens: &mut Option<JsVocabularies>) -> Option<&mut dyn api::Vocabularies> {
    tokens.as_mut().map(|t| t as &mut dyn api::Vocabularies)
}

/// The metadata JSON (the body follows with [`take_body`]). The session, when `has_session`, is
/// the text written into [`text_buffer`]'s buffer. With `tokens` (the option `tokens: true`), the
/// stats count tokens with the model's vocabulary when the JS side has it loaded, and the
/// metadata's `tokens` says which vocabulary the model needs and whether it counted.
#[wasm_bindgen(js_name = assembleRaw)]
pub fn assemble_raw(
    options_json: &str,
    has_session: bool,
    files: &[u8],
    mut tokens: Option<JsVocabularies>,
) -> Result<String, JsError> {
    let session = if has_session {
        TEXT.with(|t| t.borrow_mut().take()).map(StrBuilder::finish)
    } else {
        None
    };
    output(api::assemble(
        options_json,
        session,
        files,
        vocabularies(&mut tokens),
    ))
}

/// `createWorkspace(options)`: `assemble`'s options (the session, when `has_session`, in
/// [`text_buffer`]'s buffer) read once; the workspace's handle.
#[wasm_bindgen(js_name = workspaceRaw)]
pub fn workspace_raw(options_json: &str, has_session: bool, files: &[u8]) -> Result<u32, JsError> {
    let session = if has_session {
        TEXT.with(|t| t.borrow_mut().take()).map(StrBuilder::finish)
    } else {
        None
    };
    api::workspace_new(options_json, session, files).map_err(|e| JsError::new(&e))
}

/// `ws.assemble(overrides)`: the metadata JSON (the body follows with [`take_body`]).
#[wasm_bindgen(js_name = workspaceAssembleRaw)]
pub fn workspace_assemble_raw(
    handle: u32,
    overrides_json: &str,
    mut tokens: Option<JsVocabularies>,
) -> Result<String, JsError> {
    output(api::workspace_assemble(
        handle,
        overrides_json,
        vocabularies(&mut tokens),
    ))
}

/// `ws.free()`.
#[wasm_bindgen(js_name = workspaceFreeRaw)]
pub fn workspace_free_raw(handle: u32) {
    api::workspace_free(handle)
}

/// The metadata JSON (the body follows with [`take_body`]); `tokens` as [`assemble_raw`]'s.
#[wasm_bindgen(js_name = assembleCaseRaw)]
pub fn assemble_case_raw(
    options_json: &str,
    files: &[u8],
    mut tokens: Option<JsVocabularies>,
) -> Result<String, JsError> {
    output(api::assemble_case(
        options_json,
        files,
        vocabularies(&mut tokens),
    ))
}

#[wasm_bindgen(js_name = parseSessionRaw)]
pub fn parse_session_raw(options_json: &str, text: String) -> Result<String, JsError> {
    api::parse_session(options_json, text).map_err(|e| JsError::new(&e))
}

/// Runs the call that answered `{"needsData": version}`, once that release's data is installed
/// (`tokens`: the call's).
#[wasm_bindgen(js_name = resumeRaw)]
pub fn resume_raw(mut tokens: Option<JsVocabularies>) -> Result<String, JsError> {
    output(api::resume(vocabularies(&mut tokens)))
}

/// Installs a release's data folder: `options_json` is `{"files": [[name, byteLength], ...]}`
/// into `blob` (`manifest.json`, `tools.json`, ... of `data/pi-<version>/`).
#[wasm_bindgen(js_name = installDataRaw)]
pub fn install_data_raw(version: &str, options_json: &str, blob: &[u8]) -> Result<(), JsError> {
    api::install_data(version, options_json, blob).map_err(|e| JsError::new(&e))
}

/// The releases ctxlens rebuilds, as JSON: `[{version, released, loaded}]`.
#[wasm_bindgen(js_name = releasesRaw)]
pub fn releases_raw() -> String {
    api::releases()
}

/// The names of a release's data files, in the order `installDataRaw` takes them.
#[wasm_bindgen(js_name = dataFilesRaw)]
pub fn data_files_raw() -> Vec<String> {
    ctxlens::pi::data::FILES
        .iter()
        .map(|f| f.to_string())
        .collect()
}

#[wasm_bindgen(js_name = protocolsRaw)]
pub fn protocols_raw() -> Vec<String> {
    api::protocols()
}

//! The `ctxlens` npm package's WebAssembly binding. The only crate that depends on
//! wasm-bindgen; it owns the JS-facing shapes and keeps `ctxlens` (core/) free of wasm crates.
//!
//! The boundary is deliberately narrow: JSON text and strings in, JSON text and the body out,
//! all files in one byte buffer (`[[path, byteLength], ...]` in the options says where each
//! starts). The hand-written wrapper in `npm/` turns the user's options object into this and
//! the result back into plain objects. These exports are internal; the package's API is the
//! wrapper's (`npm/index.d.ts`).

pub mod api;

use wasm_bindgen::prelude::*;

fn output(r: Result<api::Output, String>) -> Result<Vec<String>, JsError> {
    let out = r.map_err(|e| JsError::new(&e))?;
    let mut v = vec![out.meta];
    v.extend(out.body);
    Ok(v)
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

/// `[metaJson]` or `[metaJson, body]`. The session is its UTF-8 bytes (`TextEncoder`), copied
/// into a buffer of exactly that size.
#[wasm_bindgen(js_name = assembleRaw)]
pub fn assemble_raw(
    options_json: &str,
    session: Option<Vec<u8>>,
    files: &[u8],
) -> Result<Vec<String>, JsError> {
    let session = session.map(|b| {
        String::from_utf8(b).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    });
    reserve_heap(session.as_ref().map_or(0, |s| s.len()));
    output(api::assemble(options_json, session, files))
}

/// `[metaJson]` or `[metaJson, body]`.
#[wasm_bindgen(js_name = assembleCaseRaw)]
pub fn assemble_case_raw(options_json: &str, files: &[u8]) -> Result<Vec<String>, JsError> {
    output(api::assemble_case(options_json, files))
}

#[wasm_bindgen(js_name = parseSessionRaw)]
pub fn parse_session_raw(options_json: &str, text: String) -> Result<String, JsError> {
    api::parse_session(options_json, text).map_err(|e| JsError::new(&e))
}

#[wasm_bindgen(js_name = protocolsRaw)]
pub fn protocols_raw() -> Vec<String> {
    api::protocols()
}

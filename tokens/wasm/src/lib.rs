//! One vocabulary of [`ctxlens_tokens`] as its own wasm module: built with exactly one feature
//! (`o200k_base`, `cl100k_base`, ...; `scripts/build-tokenizers.sh` builds them all into
//! `target/tokenizers/<name>.wasm`), so the core wasm carries no vocabulary and a host loads
//! only the one its model needs.
//!
//! No wasm-bindgen and no imports: plain C-ABI exports, so one small loader instantiates any
//! vocabulary's module the same way (`WebAssembly.instantiate(bytes, {})`). The ABI (all values
//! wasm `i32`; JS sees them signed, so read them with `>>> 0`):
//! - `memory`: the module's memory;
//! - `ctx_alloc(len) -> ptr`: `len` writable bytes (0: out of memory); `ctx_free(ptr, len)`
//!   gives them back (the same `len`);
//! - `ctx_count(ptr, len) -> count`: the tokens of the UTF-8 text at `ptr..ptr+len`, encoded on
//!   its own exactly as [`ctxlens_tokens::Builtin`] counts it natively (that code, not a copy),
//!   or `0xFFFF_FFFF` when the bytes are not UTF-8. The first call builds the vocabulary (tens to
//!   hundreds of milliseconds); a loader warms it with an empty text;
//! - `ctx_name(out, cap) -> len`: writes the vocabulary's name (UTF-8, at most `cap` bytes) at
//!   `out` and returns its full length, so a loader checks it got the module it asked for.
//!
//! Described for hosts in docs/tokenizers.md ("The vocabulary modules").

use ctxlens_tokens::Tokenizer;
use std::alloc::Layout;

/// The vocabularies a module can carry; a build enables exactly one of them.
const NAMES: &[&str] = &[
    #[cfg(feature = "o200k_base")]
    "o200k_base",
    #[cfg(feature = "cl100k_base")]
    "cl100k_base",
    #[cfg(feature = "qwen2")]
    "qwen2",
    #[cfg(feature = "deepseek_v3")]
    "deepseek_v3",
    #[cfg(feature = "llama3")]
    "llama3",
    #[cfg(feature = "mistral_v3")]
    "mistral_v3",
    #[cfg(feature = "kimi_k2")]
    "kimi_k2",
    #[cfg(feature = "glm4")]
    "glm4",
    #[cfg(feature = "glm5")]
    "glm5",
    #[cfg(feature = "minimax_m2")]
    "minimax_m2",
];

// A module is one vocabulary: its name is what `ctx_name` answers and what it counts with.
#[cfg(target_arch = "wasm32")]
const _: () = assert!(
    NAMES.len() == 1,
    "build a vocabulary module with exactly one vocabulary feature (scripts/build-tokenizers.sh)"
);

/// This module's vocabulary; `None` in a native build without (or with several) features.
const NAME: Option<&str> = if NAMES.len() == 1 {
    Some(NAMES[0])
} else {
    None
};

/// What `ctx_count` answers for bytes it cannot count.
pub const NOT_COUNTED: u32 = u32::MAX;

fn layout(len: usize) -> Option<Layout> {
    Layout::from_size_align(len.max(1), 1).ok()
}

/// `len` writable bytes, or null when there is no memory for them.
#[no_mangle]
pub extern "C" fn ctx_alloc(len: usize) -> *mut u8 {
    match layout(len) {
        // SAFETY: the layout's size is at least 1.
        Some(l) => unsafe { std::alloc::alloc(l) },
        None => std::ptr::null_mut(),
    }
}

/// Frees what [`ctx_alloc`] gave for the same `len`.
///
/// # Safety
/// `ptr` comes from `ctx_alloc(len)` and is not used after.
#[no_mangle]
pub unsafe extern "C" fn ctx_free(ptr: *mut u8, len: usize) {
    if let (false, Some(l)) = (ptr.is_null(), layout(len)) {
        std::alloc::dealloc(ptr, l);
    }
}

/// The tokens of the UTF-8 text at `ptr..ptr+len` by this module's vocabulary, or
/// [`NOT_COUNTED`] when the bytes are not UTF-8 (or the build has no vocabulary).
///
/// # Safety
/// `ptr..ptr+len` is readable memory of this module (when `len` is not 0).
#[no_mangle]
pub unsafe extern "C" fn ctx_count(ptr: *const u8, len: usize) -> u32 {
    let bytes = if len == 0 || ptr.is_null() {
        &[][..]
    } else {
        std::slice::from_raw_parts(ptr, len)
    };
    count(bytes)
}

fn count(bytes: &[u8]) -> u32 {
    let (Ok(text), Some(tok)) = (
        std::str::from_utf8(bytes),
        NAME.and_then(ctxlens_tokens::builtin),
    ) else {
        return NOT_COUNTED;
    };
    match tok.count(text) {
        // A text of 4 GB has fewer tokens than bytes: never reached in a 32-bit memory.
        Ok(n) => u32::try_from(n)
            .unwrap_or(NOT_COUNTED - 1)
            .min(NOT_COUNTED - 1),
        Err(_) => NOT_COUNTED,
    }
}

/// Writes this module's vocabulary name (at most `cap` bytes of it) at `out`; returns the
/// name's full length (0 in a build without a vocabulary).
///
/// # Safety
/// `out..out+cap` is writable memory of this module (when `cap` is not 0).
#[no_mangle]
pub unsafe extern "C" fn ctx_name(out: *mut u8, cap: usize) -> u32 {
    let name = NAME.unwrap_or("").as_bytes();
    let n = name.len().min(cap);
    if n > 0 && !out.is_null() {
        std::ptr::copy_nonoverlapping(name.as_ptr(), out, n);
    }
    name.len() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count_via_abi(text: &[u8]) -> u32 {
        let p = ctx_alloc(text.len());
        assert!(!p.is_null());
        unsafe {
            std::ptr::copy_nonoverlapping(text.as_ptr(), p, text.len());
            let n = ctx_count(p, text.len());
            ctx_free(p, text.len());
            n
        }
    }

    fn name_via_abi(cap: usize) -> (u32, Vec<u8>) {
        let p = ctx_alloc(cap);
        unsafe {
            std::ptr::write_bytes(p, b'#', cap);
            let n = ctx_name(p, cap);
            let out = std::slice::from_raw_parts(p, cap).to_vec();
            ctx_free(p, cap);
            (n, out)
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_are_not_counted() {
        assert_eq!(count_via_abi(b"ok \xff\xfe"), NOT_COUNTED);
        assert_eq!(count_via_abi(b"\xed\xa0\x80"), NOT_COUNTED); // a lone surrogate's bytes
    }

    #[test]
    fn the_name_is_written_within_cap_and_its_length_returned() {
        let name = NAME.unwrap_or("");
        let (n, full) = name_via_abi(64);
        assert_eq!(n as usize, name.len());
        assert_eq!(&full[..name.len()], name.as_bytes());
        assert!(full[name.len()..].iter().all(|&b| b == b'#'));
        let (n, cut) = name_via_abi(2);
        assert_eq!(n as usize, name.len());
        assert_eq!(
            &cut[..name.len().min(2)],
            &name.as_bytes()[..name.len().min(2)]
        );
    }

    // In the workspace's plain build (no feature) the crate has no vocabulary: it says so.
    #[cfg(not(feature = "vocabulary"))]
    #[test]
    fn without_a_vocabulary_nothing_is_counted() {
        assert_eq!(NAME, None);
        assert_eq!(count_via_abi(b"hello"), NOT_COUNTED);
        assert_eq!(name_via_abi(8).0, 0);
    }

    // With one feature (`cargo test -p ctxlens-tokenizer-wasm --features qwen2`): the count is
    // ctxlens-tokens's own, special-token rule included.
    #[cfg(feature = "vocabulary")]
    #[test]
    fn counts_are_ctxlens_tokens_counts() {
        let tok = ctxlens_tokens::builtin(NAME.unwrap()).unwrap();
        for text in [
            "",
            "hello world",
            "<|endoftext|><|im_start|>user",
            "fn main() {\n    println!(\"é 😀 漢字\");\n}\n",
        ] {
            assert_eq!(
                count_via_abi(text.as_bytes()) as usize,
                tok.count(text).unwrap(),
                "{text:?}"
            );
        }
    }
}

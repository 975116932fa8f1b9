//! The tiktoken crate's probe: `alloc` a buffer (never freed: a probe), `count` the UTF-8 in it
//! with the one vocabulary this build carries.
#[no_mangle]
pub extern "C" fn alloc(n: usize) -> *mut u8 {
    let mut v = Vec::<u8>::with_capacity(n);
    let p = v.as_mut_ptr();
    std::mem::forget(v);
    p
}
#[cfg(any(feature = "o200k", feature = "cl100k", feature = "qwen"))]
#[no_mangle]
pub extern "C" fn count(p: *const u8, n: usize) -> usize {
    let s = unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(p, n)) };
    tiktoken::get_encoding(tiktoken::list_encodings()[0])
        .unwrap()
        .count(s)
}

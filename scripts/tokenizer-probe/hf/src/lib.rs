//! The HF tokenizers probe: `load` a tokenizer.json from an `alloc`ed buffer (never freed: a
//! probe), then `count` the UTF-8 in one.
use std::cell::RefCell;
thread_local! { static T: RefCell<Option<tokenizers::Tokenizer>> = RefCell::new(None); }
#[no_mangle]
pub extern "C" fn alloc(n: usize) -> *mut u8 {
    let mut v = Vec::<u8>::with_capacity(n);
    let p = v.as_mut_ptr();
    std::mem::forget(v);
    p
}
#[no_mangle]
pub extern "C" fn load(p: *const u8, n: usize) -> i32 {
    let b = unsafe { std::slice::from_raw_parts(p, n) };
    match tokenizers::Tokenizer::from_bytes(b) {
        Ok(t) => {
            T.with(|c| *c.borrow_mut() = Some(t));
            0
        }
        Err(_) => -1,
    }
}
#[no_mangle]
pub extern "C" fn count(p: *const u8, n: usize) -> usize {
    let s = unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(p, n)) };
    T.with(|c| {
        c.borrow()
            .as_ref()
            .map(|t| t.encode(s, false).map(|e| e.len()).unwrap_or(0))
            .unwrap_or(0)
    })
}

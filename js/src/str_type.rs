//! [`Str`]: the string of a [`Value`](super::Value) and of an object key.

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::atomic::{fence, AtomicUsize, Ordering::*};

/// An immutable, shared string: a range of a shared, reference-counted buffer. Cloning is a
/// reference count, so a text passed from the session through the stages into the body is
/// stored once; and a string parsed out of a larger text (a session line) is a range of that
/// text, not a copy of it. Reads as a `&str`.
///
/// A string the JSON parser took verbatim from its text (no escapes) is marked *plain*: it holds
/// nothing `JSON.stringify` escapes, so it is written back as its bytes without a scan.
///
/// Three words: a thin pointer to the buffer (its header holds the count and length, the bytes
/// follow), the start and the length. In wasm32 that is 12 bytes, so a [`Value`](super::Value)
/// stays 16.
pub struct Str {
    buf: NonNull<Header>,
    start: usize,
    /// The byte length, and [`PLAIN`] in the top bit.
    meta: usize,
}

// SAFETY: the buffer is immutable once shared and its count is atomic (as `Arc<str>`).
unsafe impl Send for Str {}
unsafe impl Sync for Str {}

/// The head of a buffer; `len` bytes of UTF-8 follow it.
struct Header {
    count: AtomicUsize,
    len: usize,
}

const PLAIN: usize = 1 << (usize::BITS - 1);
const HEAD: usize = std::mem::size_of::<Header>();

fn layout(len: usize) -> Layout {
    match HEAD
        .checked_add(len)
        .and_then(|n| Layout::from_size_align(n, std::mem::align_of::<Header>()).ok())
    {
        Some(l) => l,
        None => handle_alloc_error(Layout::new::<Header>()),
    }
}

/// A new buffer of `len` bytes, count 1, bytes uninitialized.
fn new_buffer(len: usize) -> NonNull<Header> {
    let l = layout(len);
    // SAFETY: `l` has a non-zero size (the header).
    let p = unsafe { alloc(l) } as *mut Header;
    let Some(p) = NonNull::new(p) else {
        handle_alloc_error(l)
    };
    // SAFETY: freshly allocated, aligned for `Header`.
    unsafe {
        p.as_ptr().write(Header {
            count: AtomicUsize::new(1),
            len,
        })
    };
    p
}

impl Str {
    #[inline(always)]
    fn bytes_ptr(&self) -> *const u8 {
        // SAFETY: the bytes follow the header in the same allocation.
        unsafe { (self.buf.as_ptr() as *const u8).add(HEAD) }
    }

    #[inline]
    pub fn as_str(&self) -> &str {
        let len = self.meta & !PLAIN;
        // SAFETY: every constructor checks that `start..start + len` lies within the buffer, on
        // char boundaries of its UTF-8 text.
        unsafe {
            std::str::from_utf8_unchecked(std::slice::from_raw_parts(
                self.bytes_ptr().add(self.start),
                len,
            ))
        }
    }

    /// `self[start..end]` without a copy; `plain` says the text needs no JSON escaping (the
    /// caller knows: it scanned it). Falls back to a copy where the range is not on char
    /// boundaries (or is out of range: then it is empty).
    #[inline]
    pub fn slice(&self, start: usize, end: usize, plain: bool) -> Str {
        match self.as_str().get(start..end) {
            Some(_) if end - start < PLAIN => {
                let mut s = self.clone();
                s.start += start;
                s.meta = (end - start) | if plain { PLAIN } else { 0 };
                s
            }
            Some(s) => Str::from(s),
            None => Str::from(""),
        }
    }

    /// Whether another `Str` holds the same buffer (a clone, or another range of it).
    pub fn is_shared(&self) -> bool {
        // SAFETY: the header is live while `self` is.
        unsafe { self.buf.as_ref() }.count.load(Acquire) > 1
    }

    /// Whether the text is known to need no JSON escaping (see the type's docs).
    #[inline(always)]
    pub fn is_plain(&self) -> bool {
        self.meta & PLAIN != 0
    }
}

impl Clone for Str {
    #[inline]
    fn clone(&self) -> Str {
        // SAFETY: the header is live while `self` is.
        let old = unsafe { self.buf.as_ref() }.count.fetch_add(1, Relaxed);
        if old > isize::MAX as usize {
            std::process::abort();
        }
        Str {
            buf: self.buf,
            start: self.start,
            meta: self.meta,
        }
    }
}

impl Drop for Str {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: the header is live until the last owner frees it here (as `Arc`'s drop).
        unsafe {
            if self.buf.as_ref().count.fetch_sub(1, Release) != 1 {
                return;
            }
            fence(Acquire);
            let len = self.buf.as_ref().len;
            dealloc(self.buf.as_ptr() as *mut u8, layout(len));
        }
    }
}

/// A buffer being filled from outside (the wasm binding's session text, written by JS; the
/// page's copy of a body, a slice at a time), to become a [`Str`] once its bytes are checked.
pub struct StrBuilder {
    buf: NonNull<Header>,
    len: usize,
    /// The bytes before this are checked UTF-8 and end on a character's boundary
    /// ([`StrBuilder::check`]); a write before it moves it back.
    checked: usize,
    /// A check found a byte sequence that is not UTF-8 ([`StrBuilder::finish`] then copies).
    bad: bool,
}

impl StrBuilder {
    /// A buffer of `len` bytes, zeroed.
    pub fn new(len: usize) -> StrBuilder {
        let buf = new_buffer(len);
        // SAFETY: the `len` bytes after the header are ours.
        unsafe { std::ptr::write_bytes((buf.as_ptr() as *mut u8).add(HEAD), 0, len) };
        StrBuilder {
            buf,
            len,
            checked: 0,
            bad: false,
        }
    }

    /// The first byte after the header.
    fn bytes_start(&self) -> *mut u8 {
        // SAFETY: the bytes follow the header.
        unsafe { (self.buf.as_ptr() as *mut u8).add(HEAD) }
    }

    /// Where the bytes go (a writer through this pointer writes before any [`Self::check`]).
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.checked = 0;
        self.bytes_start()
    }

    /// The bytes `start..end`, to write (clamped to the buffer); what was checked before `start`
    /// stays checked.
    pub fn slice_mut(&mut self, start: usize, end: usize) -> &mut [u8] {
        let end = end.min(self.len);
        let start = start.min(end);
        self.checked = self.checked.min(start);
        // SAFETY: `start..end` lies within the `len` initialized bytes after the header, and the
        // builder is borrowed mutably for as long as the slice lives.
        unsafe { std::slice::from_raw_parts_mut(self.bytes_start().add(start), end - start) }
    }

    /// How many bytes from the start are checked (for the tests).
    #[cfg(test)]
    pub(crate) fn checked_len(&self) -> usize {
        self.checked
    }

    /// Checks the bytes written so far up to `upto` (a slice at a time, as they come), so that
    /// [`Self::finish`] checks only the rest: a character cut at `upto` is checked with what
    /// follows it.
    pub fn check(&mut self, upto: usize) {
        let upto = upto.min(self.len);
        if self.bad || upto <= self.checked {
            return;
        }
        // SAFETY: `checked..upto` lies within the initialized bytes after the header.
        let bytes = unsafe {
            std::slice::from_raw_parts(self.bytes_start().add(self.checked), upto - self.checked)
        };
        match std::str::from_utf8(bytes) {
            Ok(_) => self.checked = upto,
            // A character cut at the end: checked once its last bytes are here.
            Err(e) if e.error_len().is_none() => self.checked += e.valid_up_to(),
            Err(_) => self.bad = true,
        }
    }

    /// The string, if the bytes are UTF-8; else a copy with U+FFFD for the bad sequences (as
    /// `TextDecoder` does).
    pub fn finish(self) -> Str {
        let (buf, len, checked, bad) = (self.buf, self.len, self.checked, self.bad);
        std::mem::forget(self);
        let s = Str {
            buf,
            start: 0,
            meta: len,
        };
        // SAFETY: `len` initialized (zeroed, then written) bytes.
        let bytes = unsafe { std::slice::from_raw_parts(s.bytes_ptr(), len) };
        // The bytes before `checked` are UTF-8 and end on a character's boundary: the rest is
        // checked on its own.
        if !bad && len < PLAIN && std::str::from_utf8(&bytes[checked..]).is_ok() {
            s
        } else {
            Str::from(String::from_utf8_lossy(bytes).as_ref())
        }
    }
}

impl Drop for StrBuilder {
    fn drop(&mut self) {
        // SAFETY: never shared: the builder owns its buffer.
        unsafe { dealloc(self.buf.as_ptr() as *mut u8, layout(self.len)) };
    }
}

impl Default for Str {
    fn default() -> Self {
        Str::from("")
    }
}

impl PartialEq for Str {
    #[inline]
    fn eq(&self, other: &Str) -> bool {
        // The same range of the same buffer (a clone) is equal without reading it: a
        // workspace compares a session text with the one it kept.
        (self.buf == other.buf && self.start == other.start && self.meta == other.meta)
            || self.as_str() == other.as_str()
    }
}

impl Eq for Str {}

impl PartialOrd for Str {
    fn partial_cmp(&self, other: &Str) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Str {
    fn cmp(&self, other: &Str) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for Str {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl Deref for Str {
    type Target = str;
    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Str {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Str {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Display for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl fmt::Debug for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl From<&str> for Str {
    #[inline(never)]
    fn from(s: &str) -> Self {
        if s.len() <= INTERN_MAX_LEN {
            if let Some(hit) = interned(s) {
                return hit;
            }
        }
        Str::copy_of(s)
    }
}

/// Strings up to this many bytes (object keys, roles, block types) are shared through a small
/// per-thread table: the adapters build their objects from the same few keys over and over,
/// and the JSON parser takes its short strings from there too.
pub(crate) const INTERN_MAX_LEN: usize = 24;
const INTERN_SLOTS: usize = 512;

thread_local! {
    static INTERNED: std::cell::RefCell<Vec<Option<Str>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The shared copy of a short string (made on a miss); `None` while the thread is being torn
/// down.
fn interned(s: &str) -> Option<Str> {
    let b = s.as_bytes();
    let h = match b {
        [] => 0,
        [one] => *one as usize,
        [first, .., last] => {
            (*first as usize).wrapping_mul(31)
                ^ (*last as usize).wrapping_mul(7)
                ^ b.len().wrapping_mul(131)
                ^ (b[b.len() / 2] as usize).wrapping_mul(17)
        }
    } % INTERN_SLOTS;
    INTERNED
        .try_with(|t| {
            let mut t = t.borrow_mut();
            if t.is_empty() {
                t.resize(INTERN_SLOTS, None);
            }
            match &t[h] {
                Some(hit) if hit.as_bytes() == b => hit.clone(),
                _ => {
                    let v = Str::copy_of(s);
                    t[h] = Some(v.clone());
                    v
                }
            }
        })
        .ok()
}

impl Str {
    /// A new buffer holding `s`; a short text is checked for what JSON escapes and marked plain
    /// when there is nothing.
    fn copy_of(s: &str) -> Str {
        let buf = new_buffer(s.len());
        // SAFETY: the buffer has room for `s.len()` bytes after the header.
        unsafe {
            std::ptr::copy_nonoverlapping(s.as_ptr(), (buf.as_ptr() as *mut u8).add(HEAD), s.len())
        };
        let plain = s.len() <= INTERN_MAX_LEN
            && s.bytes()
                .all(|b| b >= 0x20 && b != b'"' && b != b'\\' && b != 0xF4);
        // A string of 2 GiB or more (only possible natively) keeps its bytes but not the plain bit;
        // its length would collide with the bit, so such strings are cut off at the limit.
        Str {
            buf,
            start: 0,
            meta: s.len().min(PLAIN - 1) | if plain { PLAIN } else { 0 },
        }
    }
}

impl From<&String> for Str {
    fn from(s: &String) -> Self {
        Str::from(s.as_str())
    }
}

impl From<String> for Str {
    #[inline(never)]
    fn from(s: String) -> Self {
        Str::from(s.as_str())
    }
}

impl From<&Str> for Str {
    fn from(s: &Str) -> Self {
        s.clone()
    }
}

impl From<Str> for String {
    fn from(s: Str) -> Self {
        String::from(s.as_str())
    }
}

impl PartialEq<str> for Str {
    #[inline(always)]
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Str {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Str {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<Str> for str {
    fn eq(&self, other: &Str) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Str> for &str {
    fn eq(&self, other: &Str) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<Str> for String {
    fn eq(&self, other: &Str) -> bool {
        *self == other.as_str()
    }
}

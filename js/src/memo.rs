//! What is measured of a long string, remembered while a host rebuilds many requests from the
//! same texts (`ctxlens usage`: every call of a session sends again the texts of the calls
//! before it). While a guard made by [`remember`] lives, a [`Str`] of at least [`LONG`] bytes
//! is measured once — its UTF-16 length, its JSON's length in bytes and in UTF-16 units, a
//! digest, whether it holds a lone surrogate — and each later request that writes it reads the
//! facts instead of scanning it again. A string JSON escapes (a tool's output of many lines) is
//! escaped once, and its JSON copied into each body.
//!
//! The memo is the thread's: only a guard made by [`remember`] turns it on, and what it holds
//! is only ever a shortcut (a string it does not know is measured).
//!
//! A string is known by the address and length of its bytes. The memo holds a clone of each
//! string it knows, so those bytes cannot be freed and their address taken by another text
//! while it is known ([`Str`]s are immutable); [`forget_unshared`] lets go of the strings
//! nothing else holds (a text an adapter made for one request).

use crate::string::{escaped_json_len, utf16_len};
use crate::Str;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

/// Strings shorter than this are measured each time: a lookup would cost about as much.
pub const LONG: usize = 256;

/// What [`facts`] knows of a string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Facts {
    /// Its length in UTF-16 code units (JS's `length`).
    pub utf16: usize,
    /// The byte length of `JSON.stringify` of it.
    pub json_len: usize,
    /// The UTF-16 length of `JSON.stringify` of it.
    pub json_utf16: usize,
    /// [`digest`] of its bytes.
    pub digest: u64,
    /// Whether it holds a lone UTF-16 surrogate (what pi's `sanitizeSurrogates` removes).
    pub lone_surrogates: bool,
}

/// What the memo holds of a string: the string itself (so its bytes stay where they are), its
/// facts, and its JSON once a body has written it, when that is not the string quoted (a body
/// only measured, [`measuring`], never asks for it).
struct Known {
    text: Str,
    facts: Facts,
    json: Option<Str>,
}

/// `JSON.stringify(s)`.
fn escaped(s: &str) -> String {
    let mut json = String::with_capacity(escaped_json_len(s));
    crate::string::escape_json_string_into(s, &mut json);
    json
}

impl Known {
    fn of(s: &Str) -> Known {
        let utf16 = utf16_len(s);
        let lone_surrogates = crate::string::has_lone_surrogate(s);
        let (json_len, json_utf16) = if s.is_plain() {
            (s.len() + 2, utf16 + 2)
        } else if !lone_surrogates {
            // Every escape is ASCII and replaces one ASCII character: it adds as many UTF-16
            // units as bytes.
            let json_len = escaped_json_len(s);
            (json_len, utf16 + (json_len - s.len()))
        } else {
            let json = escaped(s);
            (json.len(), utf16_len(&json))
        };
        Known {
            text: s.clone(),
            facts: Facts {
                utf16,
                json_len,
                json_utf16,
                digest: digest(s.as_bytes()),
                lone_surrogates,
            },
            json: None,
        }
    }
}

thread_local! {
    static MEMO: RefCell<Option<HashMap<(usize, usize), Known>>> = const { RefCell::new(None) };
    static MEASURING: Cell<bool> = const { Cell::new(false) };
}

/// What the memo knows of `s` (measured now if it is new), read by `read`; `None` when it
/// does not remember (outside [`remember`], or a short string).
fn known<R>(s: &Str, read: impl FnOnce(&mut Known) -> R) -> Option<R> {
    if s.len() < LONG {
        return None;
    }
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        let map = m.as_mut()?;
        let key = (s.as_ptr() as usize, s.len());
        Some(read(map.entry(key).or_insert_with(|| Known::of(s))))
    })
}

/// Remembers the facts of long strings until the returned guard is dropped (a guard made while
/// another is alive shares its memo, and leaves it to that one to drop).
pub fn remember() -> Remembering {
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        let outer = m.is_some();
        if !outer {
            *m = Some(HashMap::new());
        }
        Remembering { inner: outer }
    })
}

/// What [`remember`] returns: the memo lives while it does.
#[must_use = "the facts are forgotten when the guard is dropped"]
pub struct Remembering {
    /// Made while another guard was alive: that one drops the memo.
    inner: bool,
}

impl Drop for Remembering {
    fn drop(&mut self) {
        if !self.inner {
            MEMO.with(|m| m.borrow_mut().take());
        }
    }
}

/// Whether the facts of long strings are being remembered ([`remember`]).
pub fn active() -> bool {
    MEMO.with(|m| m.borrow().is_some())
}

/// The facts of `s` when they are remembered: while a [`remember`] guard lives, for a long string
/// (measured now if it is new). `None` otherwise: the caller measures what it needs.
pub fn facts(s: &Str) -> Option<Facts> {
    known(s, |k| k.facts)
}

/// Appends `JSON.stringify(s)` from the memo when it remembers `s`; false when it does not
/// (the caller writes it).
pub fn write_json(s: &Str, out: &mut String) -> bool {
    known(s, |k| {
        if k.facts.json_len == s.len() + 2 {
            out.push('"');
            out.push_str(s);
            out.push('"');
        } else {
            out.push_str(k.json.get_or_insert_with(|| Str::from(escaped(s).as_str())));
        }
    })
    .is_some()
}

/// Bodies written while the returned guard lives are measured, not sent: a body's writer may
/// leave out a long history text it has the facts of ([`facts`]) and write `""` in its place,
/// keeping the text beside the body (`ctxlens usage` reads each call's sizes and digests, and
/// never its bytes). Only while a [`remember`] guard lives too; a host keeps this guard for
/// one synchronous rebuild, never across a yield.
pub fn measuring() -> Measuring {
    Measuring {
        was: MEASURING.with(|m| m.replace(true)),
    }
}

/// What [`measuring`] returns: bodies are measured while it lives.
#[must_use = "bodies are sent whole again when the guard is dropped"]
pub struct Measuring {
    was: bool,
}

impl Drop for Measuring {
    fn drop(&mut self) {
        MEASURING.with(|m| m.set(self.was));
    }
}

/// Whether a body's writer may leave long texts out ([`measuring`], inside [`remember`]).
pub fn is_measuring() -> bool {
    MEASURING.with(Cell::get) && active()
}

/// Lets go of the strings only the memo holds: nothing will write them again.
pub fn forget_unshared() {
    MEMO.with(|m| {
        if let Some(map) = m.borrow_mut().as_mut() {
            map.retain(|_, k| k.text.is_shared());
        }
    });
}

/// How many strings are remembered (for tests and benchmarks).
pub fn remembered() -> usize {
    MEMO.with(|m| m.borrow().as_ref().map_or(0, HashMap::len))
}

/// A 64-bit digest of `bytes`, eight at a time (FxHash's mix, the length mixed in): texts are
/// told apart by it where comparing them would read both.
pub fn digest(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mix = |h: u64, w: u64| (h.rotate_left(5) ^ w).wrapping_mul(K);
    let mut chunks = bytes.chunks_exact(8);
    let mut h = mix(0, bytes.len() as u64);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = mix(h, u64::from_le_bytes(w));
    }
    let mut tail = [0u8; 8];
    tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    mix(h, u64::from_le_bytes(tail))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` repeated to a long string, as the JSON parser makes it (plain or escaped).
    fn long(text: &str) -> Str {
        let json = crate::Value::String(Str::from(text.repeat(300).as_str()));
        let mut written = String::new();
        crate::json::write_compact(&json, &mut written);
        match crate::parse(&written).unwrap() {
            crate::Value::String(s) => s,
            _ => unreachable!("a JSON string parses to a string"),
        }
    }

    #[test]
    fn facts_are_what_a_scan_finds() {
        for text in [
            "plain ",
            "tab\tand \"quote\" ",
            "é😀 ",
            "\u{1}ctl ",
            "é\t😀\u{1f}\"\n ",
            "\u{10F800} lone ",
        ] {
            let s = long(text);
            let mut json = String::new();
            crate::string::escape_json_string_into(&s, &mut json);
            let f = Known::of(&s).facts;
            assert_eq!(f.utf16, utf16_len(&s), "{text:?}");
            assert_eq!(f.json_len, json.len(), "{text:?}");
            assert_eq!(f.json_utf16, utf16_len(&json), "{text:?}");
            assert_eq!(f.digest, digest(s.as_bytes()));
            assert_eq!(f.lone_surrogates, text.contains('\u{10F800}'), "{text:?}");
        }
    }

    #[test]
    fn a_remembered_json_is_the_one_escaping_writes() {
        let s = long("tab\tand \"quote\" é😀 ");
        let mut escaped = String::new();
        crate::string::escape_json_string_into(&s, &mut escaped);
        let mut out = String::new();
        assert!(
            !write_json(&s, &mut out),
            "nothing is remembered outside a scope"
        );
        let _memo = remember();
        for _ in 0..2 {
            out.clear();
            assert!(write_json(&s, &mut out));
            assert_eq!(out, escaped);
        }
    }

    #[test]
    fn remembered_only_within_the_scope_and_while_held() {
        let s = long("abc ");
        assert_eq!(facts(&s), None);
        {
            let _memo = remember();
            assert!(active());
            assert_eq!(facts(&Str::from("short")), None);
            assert_eq!(facts(&s), Some(Known::of(&s).facts));
            let made = long("made for one request ");
            // `long` wrote a long string's JSON: only the memo holds that string now.
            forget_unshared();
            assert_eq!(remembered(), 1);
            assert!(facts(&made).is_some());
            assert_eq!(remembered(), 2);
            drop(made);
            forget_unshared();
            assert_eq!(remembered(), 1, "the string only the memo held is let go");
            {
                let _inner = remember();
                assert_eq!(remembered(), 1, "a guard made inside shares the memo");
            }
            assert_eq!(remembered(), 1, "and leaves it to the outer guard");
        }
        assert!(!active());
        assert_eq!(remembered(), 0);
    }
}

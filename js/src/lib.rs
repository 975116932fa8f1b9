//! What makes our bytes identical to Node's: a JSON value whose objects order their keys the way
//! JS objects do, `JSON.parse` and `JSON.stringify` with JS semantics (escaping, number printing),
//! string lengths and slices in UTF-16 code units, and pi's `shortHash`.
//!
//! Strings are [`Str`]s: shared, immutable UTF-8 (`Arc<str>`), so a text copied from the session
//! into the adapter's params is a reference count, not a copy. JS strings may hold lone UTF-16 surrogates, which Rust strings
//! cannot; a lone surrogate `0xD800 + k` is stored as the private-use scalar `U+10F800 + k`
//! (see [`LONE_SURROGATE_BASE`]). Every function here that measures, slices or prints strings
//! knows that convention, so lone surrogates survive a parse → stringify round trip, count as one
//! UTF-16 unit, and are removed by [`sanitize_surrogates`] as pi's `sanitizeSurrogates` does.

pub mod date;
pub mod headers;
pub mod json;
pub mod locate;
pub mod memo;
mod number;
mod ops;
pub mod path;
pub mod sha256;
mod string;

pub use json::{parse, parse_str, parse_str_with_depth, parse_with_position, ParseError};
pub use number::number_to_string;
pub use ops::{
    join_element, join_shared, js_max, js_min, non_nullish, sanitize_shared, string_to_number,
    to_js_string, to_number,
};
pub use string::{
    escape_json_string_into, from_utf16, is_js_whitespace, is_lone_surrogate_char, js_slice,
    js_trim, js_trim_is_empty, replace_units_outside, sanitize_surrogates, short_hash, utf16_len,
    utf16_units, LONE_SURROGATE_BASE,
};

use std::fmt;
use std::sync::Arc;

mod str_type;
pub use str_type::{Str, StrBuilder};

/// A JSON value as JS holds it after `JSON.parse` or builds it in an object literal.
#[derive(Clone, PartialEq, Default)]
pub enum Value {
    #[default]
    Null,
    Bool(bool),
    Number(f64),
    String(Str),
    Array(Vec<Value>),
    Object(Object),
    /// An array or object nested below [`json::MAX_BUILT_DEPTH`] levels of the text it was
    /// parsed from, kept as its exact JSON text instead of being built (see
    /// `json::MAX_BUILT_DEPTH`). It reads as an opaque, truthy object.
    Deep(Str),
}

/// A JS object: integer-like keys come first in ascending order, then the other keys in
/// insertion order. Setting an existing key keeps its position (as JS assignment does).
///
/// The entries are shared copy-on-write: cloning an object (a message passed from stage to
/// stage) is O(1), and only an object that is then changed gets its own copy.
///
/// An object may carry a [`Mark`]: what the code that built it says it is (a protocol adapter
/// marks a tool's definition, a message's text block, ...), so that a writer can tell which
/// source each byte of its JSON came from. The mark survives clones and changes, and is not
/// part of the value: two objects with the same members are equal whatever their marks.
#[derive(Clone, Default)]
pub struct Object {
    entries: Arc<Vec<(Str, Value)>>,
    mark: Mark,
}

impl PartialEq for Object {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

/// An opaque label on an [`Object`]: `Mark::NONE`, or 64 bits whose meaning belongs to the code
/// that set it (the assembly's body writer, `protocols::body`). Held as two `u32`s so an
/// `Object` stays 4-aligned and a `Value` 16 bytes in wasm32.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Mark([u32; 2]);

impl Mark {
    pub const NONE: Mark = Mark([0, 0]);

    pub fn new(bits: u64) -> Mark {
        Mark([(bits >> 32) as u32, bits as u32])
    }

    pub fn bits(self) -> u64 {
        (self.0[0] as u64) << 32 | self.0[1] as u64
    }

    pub fn is_none(self) -> bool {
        self == Mark::NONE
    }
}

/// Whether JS treats `key` as an array index (a canonical decimal below 2^32 − 1), which
/// orders it before all other keys.
pub fn is_array_index(key: &str) -> Option<u32> {
    let b = key.as_bytes();
    match b.first() {
        Some(c) if c.is_ascii_digit() && b.len() <= 10 => {}
        _ => return None,
    }
    if b.len() > 1 && b[0] == b'0' {
        return None;
    }
    if !key.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = key.parse().ok()?;
    if n < u32::MAX as u64 {
        Some(n as u32)
    } else {
        None
    }
}

/// Key equality for the short keys of JSON objects: most keys differ in length or first byte,
/// so an inlined byte loop beats a `memcmp` call (or an iterator adapter opt-level "z" leaves
/// out of line) on a few bytes, in wasm above all.
#[inline(always)]
fn key_eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let mut i = 0;
    while i < n {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl Object {
    pub fn new() -> Self {
        Object {
            entries: Arc::new(Vec::new()),
            mark: Mark::NONE,
        }
    }

    pub fn with_capacity(n: usize) -> Self {
        Object {
            entries: Arc::new(Vec::with_capacity(n)),
            mark: Mark::NONE,
        }
    }

    /// What the code that built this object says it is ([`Mark`]).
    pub fn mark(&self) -> Mark {
        self.mark
    }

    /// Whether `other` is this very object (the same members, shared, and the same mark), not
    /// only an equal one: what was derived from one holds for the other.
    pub fn same(&self, other: &Object) -> bool {
        Arc::ptr_eq(&self.entries, &other.entries) && self.mark == other.mark
    }

    pub fn set_mark(&mut self, mark: Mark) {
        self.mark = mark;
    }

    /// The object, marked.
    pub fn marked(mut self, mark: Mark) -> Self {
        self.mark = mark;
        self
    }

    /// Builds an object from members in source order, as `JSON.parse` assigns them: a repeated
    /// key keeps its first position and takes the last value, array-index keys sort first.
    pub fn from_parsed(mut entries: Vec<(Str, Value)>) -> Self {
        let plain = entries.iter().all(|(k, _)| is_array_index(k).is_none()) && {
            if entries.len() <= 16 {
                entries.iter().enumerate().all(|(i, (k, _))| {
                    entries[..i]
                        .iter()
                        .all(|(p, _)| !key_eq(p.as_bytes(), k.as_bytes()))
                })
            } else {
                let mut seen = std::collections::HashSet::with_capacity(entries.len());
                entries.iter().all(|(k, _)| seen.insert(k.as_str()))
            }
        };
        if plain {
            entries.shrink_to_fit();
            return Object {
                entries: Arc::new(entries),
                mark: Mark::NONE,
            };
        }
        let mut o = Object::with_capacity(entries.len());
        for (k, v) in entries {
            o.insert(k, v);
        }
        o
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// `obj[key] = value`: replaces in place, or inserts at the JS position.
    #[inline]
    pub fn insert(&mut self, key: impl Into<Str>, value: Value) {
        self.insert_str(key.into(), value)
    }

    fn insert_str(&mut self, key: Str, value: Value) {
        let entries = Arc::make_mut(&mut self.entries);
        if let Some(slot) = entries
            .iter_mut()
            .find(|(k, _)| key_eq(k.as_bytes(), key.as_bytes()))
        {
            slot.1 = value;
            return;
        }
        match is_array_index(&key) {
            None => entries.push((key, value)),
            Some(idx) => {
                let pos = entries
                    .iter()
                    .position(|(k, _)| match is_array_index(k) {
                        Some(other) => other > idx,
                        None => true,
                    })
                    .unwrap_or(entries.len());
                entries.insert(pos, (key, value));
            }
        }
    }

    /// Builder form of [`Object::insert`].
    pub fn with(mut self, key: impl Into<Str>, value: impl Into<Value>) -> Self {
        self.insert(key, value.into());
        self
    }

    /// Inserts only when `value` is `Some` (JS drops `undefined` members when stringifying).
    pub fn insert_opt(&mut self, key: impl Into<Str>, value: Option<Value>) {
        if let Some(v) = value {
            self.insert(key, v);
        }
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        let key = key.as_bytes();
        self.entries
            .iter()
            .find(|(k, _)| key_eq(k.as_bytes(), key))
            .map(|(_, v)| v)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        if !self.contains_key(key) {
            return None;
        }
        Arc::make_mut(&mut self.entries)
            .iter_mut()
            .find(|(k, _)| key_eq(k.as_bytes(), key.as_bytes()))
            .map(|(_, v)| v)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.entries
            .iter()
            .any(|(k, _)| key_eq(k.as_bytes(), key.as_bytes()))
    }

    /// `delete obj[key]`.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let pos = self
            .entries
            .iter()
            .position(|(k, _)| key_eq(k.as_bytes(), key.as_bytes()))?;
        Some(Arc::make_mut(&mut self.entries).remove(pos).1)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&Str, &Value)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&Str, &mut Value)> {
        Arc::make_mut(&mut self.entries)
            .iter_mut()
            .map(|(k, v)| (&*k, v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &Str> {
        self.entries.iter().map(|(k, _)| k)
    }

    /// `{...a, ...b}`: a shallow merge where `other`'s members override.
    pub fn spread(&mut self, other: &Object) {
        for (k, v) in other.iter() {
            self.insert(k.clone(), v.clone());
        }
    }

    pub fn get_str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Value::as_str)
    }

    pub fn get_bool(&self, key: &str) -> Option<bool> {
        self.get(key).and_then(Value::as_bool)
    }

    pub fn get_f64(&self, key: &str) -> Option<f64> {
        self.get(key).and_then(Value::as_f64)
    }

    pub fn get_array(&self, key: &str) -> Option<&Vec<Value>> {
        self.get(key).and_then(Value::as_array)
    }

    pub fn get_object(&self, key: &str) -> Option<&Object> {
        self.get(key).and_then(Value::as_object)
    }
}

impl<K: Into<Str>> FromIterator<(K, Value)> for Object {
    fn from_iter<T: IntoIterator<Item = (K, Value)>>(iter: T) -> Self {
        let mut o = Object::new();
        for (k, v) in iter {
            o.insert(k, v);
        }
        o
    }
}

impl Value {
    pub fn object() -> Value {
        Value::Object(Object::new())
    }

    pub fn str(s: impl Into<Str>) -> Value {
        Value::String(s.into())
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(n) => Some(*n),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_array_mut(&mut self) -> Option<&mut Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    pub fn as_object_mut(&mut self) -> Option<&mut Object> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// Member access that yields `None` for non-objects and missing keys (`v?.[key]`).
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_object().and_then(|o| o.get(key))
    }

    pub fn get_str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Value::as_str)
    }

    /// How deeply the value nests: 0 for a scalar, 1 for a container of scalars, one more per
    /// level. A [`Value::Deep`] part counts as deeper than anything built
    /// (`json::MAX_BUILT_DEPTH + 1`, at least).
    pub fn nesting_depth(&self) -> usize {
        match self {
            Value::Array(a) => 1 + a.iter().map(Value::nesting_depth).max().unwrap_or(0),
            Value::Object(o) => 1 + o.iter().map(|(_, v)| v.nesting_depth()).max().unwrap_or(0),
            Value::Deep(_) => json::MAX_BUILT_DEPTH + 1,
            _ => 0,
        }
    }

    /// JS truthiness.
    pub fn truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Number(n) => *n != 0.0 && !n.is_nan(),
            Value::String(s) => !s.is_empty(),
            Value::Array(_) | Value::Object(_) | Value::Deep(_) => true,
        }
    }

    /// `JSON.stringify(value)`.
    pub fn to_json(&self) -> String {
        let mut out = String::with_capacity(json::compact_len(self));
        json::write_compact(self, &mut out);
        out
    }

    /// `JSON.stringify(value, null, indent)`.
    pub fn to_json_pretty(&self, indent: usize) -> String {
        let mut out = String::new();
        json::write_pretty(self, &mut out, indent, 0);
        out
    }

    /// The UTF-16 length of `JSON.stringify(value)`, without building the string twice.
    pub fn json_len_utf16(&self) -> usize {
        utf16_len(&self.to_json())
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json())
    }
}

impl fmt::Debug for Object {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&Value::Object(self.clone()).to_json())
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.into())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s.into())
    }
}

impl From<Str> for Value {
    fn from(s: Str) -> Self {
        Value::String(s)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<f64> for Value {
    fn from(n: f64) -> Self {
        Value::Number(n)
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Self {
        Value::Number(n as f64)
    }
}

impl From<u32> for Value {
    fn from(n: u32) -> Self {
        Value::Number(n as f64)
    }
}

impl From<usize> for Value {
    fn from(n: usize) -> Self {
        Value::Number(n as f64)
    }
}

impl From<u64> for Value {
    fn from(n: u64) -> Self {
        Value::Number(n as f64)
    }
}

impl From<Object> for Value {
    fn from(o: Object) -> Self {
        Value::Object(o)
    }
}

impl From<Vec<Value>> for Value {
    fn from(a: Vec<Value>) -> Self {
        Value::Array(a)
    }
}

#[cfg(test)]
mod tests;

// A value is two words and a tag: 16 bytes in wasm32 (24 natively). Checked at compile time so
// a change to `Str` or `Object` that grows every value (and the heap of a large session) shows.
#[cfg(target_pointer_width = "32")]
const _: () = assert!(std::mem::size_of::<Value>() == 16 && std::mem::size_of::<Str>() == 12);
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Value>() == 32 && std::mem::size_of::<Str>() == 24);

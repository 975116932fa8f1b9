//! The JS value that `parse()` of the npm `yaml` package (v2, as pi 0.85.1 calls it: no options)
//! composes from a stream of YAML events: what its `composeDoc` and `toJS` do with the defaults
//! `version: "1.2"`, `schema: "core"`, `uniqueKeys: true`, `merge: false`, `mapAsMap: false` and
//! `maxAliasCount: 100`.
//!
//! The events come from any YAML 1.2 event parser ([`Ev`] is independent of the crate;
//! `super::events` feeds it from saphyr-parser). What is reproduced here:
//!
//! - **Plain scalars** are resolved by the core schema's tests in `yaml`'s order
//!   (`yaml/dist/schema/core/schema.js`): `null` (`~`, `null`, `Null`, `NULL`, empty), `bool`
//!   (`true|True|TRUE`, `false|False|FALSE`), `int` in octal (`0o17`), decimal (`[-+]?[0-9]+`,
//!   through `parseInt`), hex (`0x1F`), then `float` (`[-+]?.inf`, `.nan` in three spellings,
//!   exponent and fraction forms through `parseFloat`). Anything else is a string.
//! - **Quoted and block scalars** are strings.
//! - **Explicit tags** `!!str`, `!!int`, `!!float`, `!!bool` and `!!null`: a value the tag's test
//!   does not accept falls back to the string (with only a warning in `yaml`): `!!bool yes` is
//!   `"yes"`, `!!int "42"` is `42`, `!!float 1` is `"1"`. Unknown tags (`!foo`, `!`, `!!binary`,
//!   …) give the string, or the collection unchanged.
//! - **Duplicate keys** are an error ("Map keys must be unique"), keys compared as `yaml`'s
//!   `mapIncludes` does: resolved scalar values with `===`, so `true`/`True` and `0x10`/`16`
//!   clash, `1`/`"1"` do not (the later value wins the JS property), `.nan` never clashes, and an
//!   alias or a collection never clashes with anything.
//! - **Keys become JS property names** (`String(key)`, null giving `""`), inserted with JS
//!   assignment semantics (integer-like names first; a repeated name keeps its place).
//! - **Aliases** give the anchored value; an alias to an anchor still being built is an error (JS
//!   overflows its stack); an unknown one is "Unresolved alias".
//! - **`maxAliasCount`** (100): `yaml`'s `getAliasCount` weights — 1 for a scalar, the largest
//!   weight of the items for a collection, `count × weight` of the target for an alias — and
//!   "Excessive alias count" above 100.
//! - **More than one document** is an error ("Source contains multiple documents").
//!
//! Not reproduced: `!!binary`, `!!timestamp`, `!!set` and `!!omap`, for which JS gets a
//! `Uint8Array`, a `Date`, a `Set` and a `Map` (values [`Value`] cannot hold); here they are the
//! string or the collection.

// Text from the user: no string is sliced by byte range (a cut inside a character panics).
#![deny(clippy::string_slice)]

use crate::js::{number_to_string, Object, Value};
use std::collections::{HashMap, HashSet};

/// One event of a YAML event stream, as the builder needs it.
pub(crate) enum Ev<'a> {
    DocStart,
    /// An alias to the anchor with this id (ids are unique per anchor definition).
    Alias(usize),
    /// A scalar: its value, whether it was plain (unquoted, not a block scalar), its anchor id
    /// (0 for none) and its tag, resolved (`tag:yaml.org,2002:str`, `!`, `!foo`).
    Scalar(&'a str, bool, usize, Option<&'a str>),
    /// The start of a sequence, with its anchor id (0 for none).
    SeqStart(usize),
    SeqEnd,
    /// The start of a mapping, with its anchor id (0 for none).
    MapStart(usize),
    MapEnd,
    /// Stream start and end, document end: nothing to build.
    Other,
}

/// A key's identity for the duplicate-key check (`===` on resolved scalars). `-0` and `0` are
/// the same number ([`num_id`]); `NaN`, aliases and collections have none (`None` in a
/// [`Node`]), so they never clash.
#[derive(Clone, PartialEq, Eq, Hash)]
enum KeyId {
    Null,
    Bool(bool),
    Num(u64),
    Str(String),
}

fn num_id(n: f64) -> Option<KeyId> {
    if n.is_nan() {
        None
    } else if n == 0.0 {
        Some(KeyId::Num(0))
    } else {
        Some(KeyId::Num(n.to_bits()))
    }
}

/// A resolved node waiting for its place: the value, its key identity (`None`: never equal).
type Node = (Value, Option<KeyId>);

enum Frame {
    Seq(Vec<Value>, usize),
    /// The object, the keys seen, a key waiting for its value, the anchor id.
    Map(Object, HashSet<KeyId>, Option<Value>, usize),
}

/// An anchored node: its value once complete (`None` while it is being built), how often it was
/// aliased, and its weight for `yaml`'s `maxAliasCount` check.
struct Anchor {
    value: Option<Value>,
    count: f64,
    weight: f64,
}

/// What the builder refuses, with the event's line (1-based).
pub(crate) struct BuildError {
    pub line: usize,
    pub message: &'static str,
}

/// Builds the document's JS value from events ([`Builder::event`]), then [`Builder::finish`].
#[derive(Default)]
pub(crate) struct Builder {
    stack: Vec<Frame>,
    /// The weight (see [`Anchor`]) of each open collection.
    weights: Vec<f64>,
    anchors: HashMap<usize, Anchor>,
    docs: usize,
    root: Option<Value>,
    err: Option<BuildError>,
}

impl Builder {
    /// The document's value (`Null` for an empty stream), or the first error.
    pub fn finish(self) -> Result<Value, BuildError> {
        match self.err {
            Some(e) => Err(e),
            None => Ok(self.root.unwrap_or(Value::Null)),
        }
    }

    /// Takes the next event, found on `line` (1-based; for errors). After an error the rest is
    /// ignored.
    pub fn event(&mut self, ev: Ev<'_>, line: usize) {
        if self.err.is_some() {
            return;
        }
        if let Err(message) = self.step(ev) {
            self.err = Some(BuildError { line, message });
        }
    }

    fn step(&mut self, ev: Ev<'_>) -> Result<(), &'static str> {
        match ev {
            Ev::DocStart => {
                self.docs += 1;
                if self.docs > 1 {
                    return Err("Source contains multiple documents");
                }
            }
            Ev::Scalar(v, plain, anchor, tag) => {
                let (val, id) = resolve_scalar(v, plain, tag);
                if anchor > 0 {
                    self.set_anchor(anchor, Some(val.clone()), 1.0);
                }
                self.push((val, id), 1.0)?;
            }
            Ev::Alias(a) => match self.anchors.get_mut(&a) {
                Some(Anchor {
                    value: Some(v),
                    count,
                    weight,
                }) => {
                    *count += 1.0;
                    let w = *count * *weight;
                    if w > 100.0 {
                        return Err("Excessive alias count indicates a resource exhaustion attack");
                    }
                    let v = v.clone();
                    self.push((v, None), w)?;
                }
                Some(_) => return Err("Alias refers to a node that contains it"),
                None => return Err("Unresolved alias"),
            },
            Ev::SeqStart(anchor) => {
                if anchor > 0 {
                    self.set_anchor(anchor, None, 0.0);
                }
                self.stack.push(Frame::Seq(Vec::new(), anchor));
                self.weights.push(0.0);
            }
            Ev::MapStart(anchor) => {
                if anchor > 0 {
                    self.set_anchor(anchor, None, 0.0);
                }
                self.stack
                    .push(Frame::Map(Object::new(), HashSet::new(), None, anchor));
                self.weights.push(0.0);
            }
            Ev::SeqEnd | Ev::MapEnd => {
                let (v, anchor) = match self.stack.pop() {
                    Some(Frame::Seq(items, a)) => (Value::Array(items), a),
                    Some(Frame::Map(obj, _, _, a)) => (Value::Object(obj), a),
                    None => return Ok(()),
                };
                let w = self.weights.pop().unwrap_or(0.0);
                if anchor > 0 {
                    self.set_anchor(anchor, Some(v.clone()), w);
                }
                self.push((v, None), w)?;
            }
            Ev::Other => {}
        }
        Ok(())
    }

    fn set_anchor(&mut self, a: usize, value: Option<Value>, weight: f64) {
        self.anchors.insert(
            a,
            Anchor {
                value,
                count: 1.0,
                weight,
            },
        );
    }

    /// Puts a complete node into the open collection (a key, a value or an item).
    fn push(&mut self, (v, id): Node, weight: f64) -> Result<(), &'static str> {
        if let Some(w) = self.weights.last_mut() {
            *w = w.max(weight);
        }
        match self.stack.last_mut() {
            None => self.root = Some(v),
            Some(Frame::Seq(items, _)) => items.push(v),
            Some(Frame::Map(obj, keys, pending, _)) => match pending.take() {
                None => {
                    if let Some(id) = id {
                        if !keys.insert(id) {
                            return Err("Map keys must be unique");
                        }
                    }
                    *pending = Some(v);
                }
                Some(k) => obj.insert(js_key(&k), v),
            },
        }
        Ok(())
    }
}

/// A number as JS prints it (`String(n)`).
fn js_number(n: f64) -> String {
    if n.is_nan() {
        "NaN".into()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        number_to_string(n)
    }
}

/// The JS property name `toJS` makes of a key: `String(key)` for a scalar (null → `""`).
fn js_key(k: &Value) -> String {
    match k {
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => js_number(*n),
        Value::String(s) => s.to_string(),
        other => flow(other),
    }
}

/// A collection used as a key: `yaml` stringifies its node as flow YAML (`[ a, b ]`,
/// `{ a: 1 }`) and warns; this renders the common shapes the same way.
fn flow(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => js_number(*n),
        Value::String(s) | Value::Deep(s) => s.to_string(),
        Value::Array(a) if a.is_empty() => "[]".into(),
        Value::Array(a) => format!("[ {} ]", a.iter().map(flow).collect::<Vec<_>>().join(", ")),
        Value::Object(o) if o.is_empty() => "{}".into(),
        Value::Object(o) => format!(
            "{{ {} }}",
            o.iter()
                .map(|(k, v)| format!("{k}: {}", flow(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn all(s: &str, f: impl Fn(u8) -> bool) -> bool {
    !s.is_empty() && s.bytes().all(f)
}

/// The core schema's `null` test.
fn is_null(s: &str) -> bool {
    matches!(s, "" | "~" | "null" | "Null" | "NULL")
}

/// The core schema's `bool` test.
fn as_bool(s: &str) -> Option<bool> {
    match s {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

/// `parseInt(digits, r)` of already-checked digits: exact while it fits `u128`, then the f64
/// accumulation V8 does for longer inputs.
fn radix(digits: &str, r: u32) -> f64 {
    u128::from_str_radix(digits, r)
        .map(|v| v as f64)
        .unwrap_or_else(|_| {
            digits.chars().fold(0.0, |a, c| {
                a * r as f64 + c.to_digit(r).unwrap_or_default() as f64
            })
        })
}

/// The core schema's `int` tests, in order: `0o[0-7]+`, `[-+]?[0-9]+`, `0x[0-9a-fA-F]+`.
fn as_int(s: &str) -> Option<f64> {
    if let Some(d) = s.strip_prefix("0o") {
        if all(d, |c| (b'0'..=b'7').contains(&c)) {
            return Some(radix(d, 8));
        }
    }
    let unsigned = s.strip_prefix(['-', '+']).unwrap_or(s);
    if all(unsigned, |c| c.is_ascii_digit()) {
        return s.parse::<f64>().ok();
    }
    if let Some(d) = s.strip_prefix("0x") {
        if all(d, |c| c.is_ascii_hexdigit()) {
            return Some(radix(d, 16));
        }
    }
    None
}

/// `[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)`, then `[eE][-+]?[0-9]+` (`exp`) or nothing (and then
/// the fraction's `.` is required): the core schema's two float regexes.
fn float_shape(s: &str, exp: bool) -> bool {
    let b = s.strip_prefix(['-', '+']).unwrap_or(s).as_bytes();
    let int = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let mut k = int;
    let mut dot = false;
    let mut frac = 0;
    if b.get(k) == Some(&b'.') {
        dot = true;
        k += 1;
        frac = b[k..].iter().take_while(|c| c.is_ascii_digit()).count();
        k += frac;
    }
    if int == 0 && frac == 0 {
        return false;
    }
    if !exp {
        return dot && k == b.len();
    }
    if !matches!(b.get(k), Some(b'e' | b'E')) {
        return false;
    }
    k += 1;
    if matches!(b.get(k), Some(b'-' | b'+')) {
        k += 1;
    }
    let e = b[k..].iter().take_while(|c| c.is_ascii_digit()).count();
    e > 0 && k + e == b.len()
}

/// The core schema's `float` tests: `[-+]?\.(?:inf|Inf|INF)`, `\.(?:nan|NaN|NAN)`, then the
/// exponent and fraction forms through `parseFloat`.
fn as_float(s: &str) -> Option<f64> {
    let u = s.strip_prefix(['-', '+']).unwrap_or(s);
    if matches!(u, ".inf" | ".Inf" | ".INF") {
        return Some(if s.starts_with('-') {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
    }
    if matches!(s, ".nan" | ".NaN" | ".NAN") {
        return Some(f64::NAN);
    }
    if float_shape(s, true) || float_shape(s, false) {
        return s.parse::<f64>().ok();
    }
    None
}

/// A scalar's JS value and key identity: the core schema for an untagged plain scalar, a string
/// for an untagged quoted or block one, the tag's test (or the string) for a tagged one.
fn resolve_scalar(v: &str, plain: bool, tag: Option<&str>) -> Node {
    const CORE: &str = "tag:yaml.org,2002:";
    let string = || (Value::str(v), Some(KeyId::Str(v.to_string())));
    let null = || (Value::Null, Some(KeyId::Null));
    let num = |n: f64| (Value::Number(n), num_id(n));
    let boolean = |b: bool| (Value::Bool(b), Some(KeyId::Bool(b)));
    match tag {
        None if !plain => string(),
        None => {
            if is_null(v) {
                null()
            } else if let Some(b) = as_bool(v) {
                boolean(b)
            } else if let Some(n) = as_int(v).or_else(|| as_float(v)) {
                num(n)
            } else {
                string()
            }
        }
        Some(t) => match t.strip_prefix(CORE) {
            Some("null") if is_null(v) => null(),
            Some("bool") => as_bool(v).map_or_else(string, boolean),
            Some("int") => as_int(v).map_or_else(string, num),
            Some("float") => as_float(v).map_or_else(string, num),
            _ => string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(s: &str) -> String {
        resolve_scalar(s, true, None).0.to_json()
    }

    #[test]
    fn plain_scalars_resolve_like_the_core_schema() {
        for (s, want) in [
            ("", "null"),
            ("~", "null"),
            ("Null", "null"),
            ("nULL", "\"nULL\""),
            ("True", "true"),
            ("yes", "\"yes\""),
            ("0o17", "15"),
            ("0x1F", "31"),
            ("-0x1F", "\"-0x1F\""),
            ("012", "12"),
            ("+1", "1"),
            ("1.", "1"),
            (".5", "0.5"),
            ("1e3", "1000"),
            ("1_000", "\"1_000\""),
            ("0b101", "\"0b101\""),
        ] {
            assert_eq!(plain(s), want, "{s:?}");
        }
        assert!(matches!(resolve_scalar(".NaN", true, None).0, Value::Number(n) if n.is_nan()));
        assert!(
            matches!(resolve_scalar("-.inf", true, None).0, Value::Number(n) if n == f64::NEG_INFINITY)
        );
        assert!(
            matches!(resolve_scalar("1e400", true, None).0, Value::Number(n) if n.is_infinite())
        );
        assert_eq!(resolve_scalar("12", false, None).0.to_json(), "\"12\"");
        let bool_tag = Some("tag:yaml.org,2002:bool");
        assert_eq!(resolve_scalar("yes", true, bool_tag).0.to_json(), "\"yes\"");
        let int_tag = Some("tag:yaml.org,2002:int");
        assert_eq!(resolve_scalar("42", false, int_tag).0.to_json(), "42");
        let float_tag = Some("tag:yaml.org,2002:float");
        assert_eq!(resolve_scalar("1", true, float_tag).0.to_json(), "\"1\"");
        assert_eq!(resolve_scalar("5", true, Some("!")).0.to_json(), "\"5\"");
    }

    #[test]
    fn keys_compare_as_js_values() {
        assert!(num_id(-0.0) == num_id(0.0));
        assert!(num_id(f64::NAN).is_none());
        assert_eq!(js_key(&Value::Null), "");
        assert_eq!(js_key(&Value::Number(1e21)), "1e+21");
        assert_eq!(js_key(&Value::Number(f64::NAN)), "NaN");
        let arr = Value::Array(vec![Value::str("a"), Value::Number(1.0)]);
        assert_eq!(js_key(&arr), "[ a, 1 ]");
    }
}

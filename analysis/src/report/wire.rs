//! The report's shapes as Rust types, one definition each: a type declared with
//! [`wire_struct!`] or [`wire_enum!`] writes its JSON ([`Wire::to_value`], the key order of its
//! fields), reads it back ([`Wire::from_value`]: the visualizer's views read the worker's report
//! as these types) and declares its TypeScript ([`Declared::declaration`]; `npm/report.d.ts` is
//! generated from the declarations, and `analysis/tests/report_types.rs` fails when the committed
//! file differs).

use crate::js::{Object, Value};

/// A value of the report: its JSON, read back, and its TypeScript type.
pub trait Wire: Sized {
    fn to_value(&self) -> Value;
    /// `None` when `v` does not have this shape.
    fn from_value(v: &Value) -> Option<Self>;
    /// The TypeScript type, as an expression (`number`, `Section[]`, `Tokenizer | null`).
    fn ts() -> String;

    /// Writes this value as the field `key` of `o` ([`Skip`] leaves `None` out).
    fn put(&self, o: &mut Object, key: &'static str) {
        o.insert(key, self.to_value());
    }
    /// Reads the field `key` of `o` (a missing field reads as `null`).
    fn take(o: &Object, key: &str) -> Option<Self> {
        Self::from_value(o.get(key).unwrap_or(&Value::Null))
    }
    /// The field's TypeScript line, `key: type;`.
    fn ts_field(key: &str, ts: &str) -> String {
        format!("{key}: {ts};")
    }
}

/// A type with a TypeScript declaration of its own (an `interface` or a union of strings).
pub trait Declared {
    fn declaration() -> String;
}

/// A field that is left out of the JSON when `None` (TypeScript `key?: T`), where [`Option`]
/// writes `null` (`key: T | null`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Skip<T>(pub Option<T>);

impl<T> std::ops::Deref for Skip<T> {
    type Target = Option<T>;
    fn deref(&self) -> &Option<T> {
        &self.0
    }
}

impl<T> From<Option<T>> for Skip<T> {
    fn from(o: Option<T>) -> Self {
        Skip(o)
    }
}

impl<T: Wire> Wire for Skip<T> {
    fn to_value(&self) -> Value {
        self.0.as_ref().map_or(Value::Null, T::to_value)
    }
    fn from_value(v: &Value) -> Option<Self> {
        Some(Skip(T::from_value(v)))
    }
    fn ts() -> String {
        T::ts()
    }
    fn put(&self, o: &mut Object, key: &'static str) {
        if let Some(v) = &self.0 {
            o.insert(key, v.to_value());
        }
    }
    fn take(o: &Object, key: &str) -> Option<Self> {
        match o.get(key) {
            None => Some(Skip(None)),
            Some(v) => T::from_value(v).map(|t| Skip(Some(t))),
        }
    }
    fn ts_field(key: &str, ts: &str) -> String {
        format!("{key}?: {ts};")
    }
}

impl<T: Wire> Wire for Option<T> {
    fn to_value(&self) -> Value {
        self.as_ref().map_or(Value::Null, T::to_value)
    }
    fn from_value(v: &Value) -> Option<Self> {
        if v.is_null() {
            Some(None)
        } else {
            T::from_value(v).map(Some)
        }
    }
    fn ts() -> String {
        format!("{} | null", T::ts())
    }
}

impl<T: Wire> Wire for Vec<T> {
    fn to_value(&self) -> Value {
        Value::Array(self.iter().map(T::to_value).collect())
    }
    fn from_value(v: &Value) -> Option<Self> {
        v.as_array()?.iter().map(T::from_value).collect()
    }
    fn ts() -> String {
        let t = T::ts();
        if t.contains(' ') {
            format!("Array<{t}>")
        } else {
            format!("{t}[]")
        }
    }
}

/// An object whose keys are data, not fields (`{"CA": "@earendil-works/…", …}`), in its key
/// order: TypeScript `Record<string, T>`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Record<T>(pub Vec<(String, T)>);

impl<T> Record<T> {
    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&T> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

impl<T: Wire> Wire for Record<T> {
    fn to_value(&self) -> Value {
        let mut o = Object::new();
        for (k, v) in &self.0 {
            o.insert(k.as_str(), v.to_value());
        }
        o.into()
    }
    fn from_value(v: &Value) -> Option<Self> {
        v.as_object()?
            .iter()
            .map(|(k, v)| Some((k.to_string(), T::from_value(v)?)))
            .collect::<Option<_>>()
            .map(Record)
    }
    fn ts() -> String {
        format!("Record<string, {}>", T::ts())
    }
}

impl Wire for String {
    fn to_value(&self) -> Value {
        Value::str(self.as_str())
    }
    fn from_value(v: &Value) -> Option<Self> {
        v.as_str().map(str::to_string)
    }
    fn ts() -> String {
        "string".into()
    }
}

/// A string shared with the value it was read from (a body of many megabytes is not copied).
impl Wire for crate::js::Str {
    fn to_value(&self) -> Value {
        Value::String(self.clone())
    }
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::String(s) => Some(s.clone()),
            _ => None,
        }
    }
    fn ts() -> String {
        "string".into()
    }
}

/// A pair, as a two-element array (`[name, value]`).
impl<A: Wire, B: Wire> Wire for (A, B) {
    fn to_value(&self) -> Value {
        Value::Array(vec![self.0.to_value(), self.1.to_value()])
    }
    fn from_value(v: &Value) -> Option<Self> {
        match v.as_array()?.as_slice() {
            [a, b] => Some((A::from_value(a)?, B::from_value(b)?)),
            _ => None,
        }
    }
    fn ts() -> String {
        format!("[{}, {}]", A::ts(), B::ts())
    }
}

impl Wire for bool {
    fn to_value(&self) -> Value {
        Value::Bool(*self)
    }
    fn from_value(v: &Value) -> Option<Self> {
        v.as_bool()
    }
    fn ts() -> String {
        "boolean".into()
    }
}

impl Wire for f64 {
    fn to_value(&self) -> Value {
        Value::Number(*self)
    }
    fn from_value(v: &Value) -> Option<Self> {
        v.as_f64()
    }
    fn ts() -> String {
        "number".into()
    }
}

impl Wire for usize {
    fn to_value(&self) -> Value {
        Value::from(*self)
    }
    fn from_value(v: &Value) -> Option<Self> {
        let n = v.as_f64()?;
        (n >= 0.0 && n.fract() == 0.0 && n <= usize::MAX as f64).then_some(n as usize)
    }
    fn ts() -> String {
        "number".into()
    }
}

/// Summed over many requests: past 4 GB on a 32-bit target (wasm), so not a `usize`.
impl Wire for u64 {
    fn to_value(&self) -> Value {
        Value::Number(*self as f64)
    }
    fn from_value(v: &Value) -> Option<Self> {
        let n = v.as_f64()?;
        (n >= 0.0 && n.fract() == 0.0 && n <= u64::MAX as f64).then_some(n as u64)
    }
    fn ts() -> String {
        "number".into()
    }
}

/// Counts by name, as one JSON object (`{"o200k_base": 12, "characters": 3}`), in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counts(pub Vec<(String, usize)>);

impl Wire for Counts {
    fn to_value(&self) -> Value {
        let mut o = Object::new();
        for (k, n) in &self.0 {
            o.insert(k.as_str(), Value::from(*n));
        }
        o.into()
    }
    fn from_value(v: &Value) -> Option<Self> {
        v.as_object()?
            .iter()
            .map(|(k, n)| Some((k.to_string(), usize::from_value(n)?)))
            .collect::<Option<Vec<_>>>()
            .map(Counts)
    }
    fn ts() -> String {
        "Record<string, number>".into()
    }
}

/// Any JSON value, as `JSON.parse` returns it.
impl Wire for Value {
    fn to_value(&self) -> Value {
        self.clone()
    }
    fn from_value(v: &Value) -> Option<Self> {
        Some(v.clone())
    }
    fn ts() -> String {
        "JsonValue".into()
    }
}

/// A JSDoc comment from `///` lines (their leading space dropped), indented by `indent`; empty
/// without lines.
pub fn doc_comment(lines: &[&str], indent: &str) -> String {
    let lines: Vec<&str> = lines
        .iter()
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect();
    match lines.as_slice() {
        [] => String::new(),
        [one] => format!("{indent}/** {one} */\n"),
        many => {
            let mut s = format!("{indent}/**\n");
            for l in many {
                if l.is_empty() {
                    s += &format!("{indent} *\n");
                } else {
                    s += &format!("{indent} * {l}\n");
                }
            }
            s + &format!("{indent} */\n")
        }
    }
}

/// A struct of the report: the struct, its [`Wire`] (fields written in their order, each under
/// its JSON key) and its TypeScript `interface` (the `///` lines as JSDoc). A field's
/// TypeScript type is its Rust type's unless `as "…"` names one.
///
/// ```ignore
/// wire_struct! {
///     /// A tool of the body.
///     pub struct ToolSize {
///         pub name: String = "name",
///         /// With a tokenizer.
///         pub tokens: Skip<usize> = "tokens",
///     }
/// }
/// ```
macro_rules! wire_struct {
    (
        $(#[doc = $doc:literal])*
        $vis:vis struct $name:ident {
            $(
                $(#[doc = $fdoc:literal])*
                $fvis:vis $field:ident : $ty:ty = $key:literal $(as $ts:literal)?
            ),* $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Clone, Debug, Default, PartialEq)]
        $vis struct $name {
            $( $(#[doc = $fdoc])* $fvis $field: $ty, )*
        }

        impl $crate::report::wire::Wire for $name {
            fn to_value(&self) -> $crate::js::Value {
                #[allow(unused_mut)]
                let mut o = $crate::js::Object::new();
                $( $crate::report::wire::Wire::put(&self.$field, &mut o, $key); )*
                o.into()
            }
            fn from_value(v: &$crate::js::Value) -> Option<Self> {
                #[allow(unused_variables)]
                let o = v.as_object()?;
                Some($name {
                    $( $field: <$ty as $crate::report::wire::Wire>::take(o, $key)?, )*
                })
            }
            fn ts() -> String {
                stringify!($name).to_string()
            }
        }

        impl $crate::report::wire::Declared for $name {
            fn declaration() -> String {
                let mut s = $crate::report::wire::doc_comment(&[$($doc),*], "");
                s += concat!("export interface ", stringify!($name), " {\n");
                $(
                    s += &$crate::report::wire::doc_comment(&[$($fdoc),*], "  ");
                    s += "  ";
                    s += &<$ty as $crate::report::wire::Wire>::ts_field(
                        $key,
                        &$crate::report::wire::wire_struct!(@ts $ty $(, $ts)?),
                    );
                    s += "\n";
                )*
                s + "}\n"
            }
        }
    };
    (@ts $ty:ty) => { <$ty as $crate::report::wire::Wire>::ts() };
    (@ts $ty:ty, $ts:literal) => { String::from($ts) };
}
pub(crate) use wire_struct;

/// A closed set of strings of the report, as a Rust enum (declared here, or an existing one
/// named by its path): its [`Wire`] and its TypeScript union, named `$ts`.
macro_rules! wire_enum {
    (
        $(#[doc = $doc:literal])*
        $ty:path as $ts:literal { $( $variant:ident = $s:literal ),* $(,)? }
    ) => {
        impl $crate::report::wire::Wire for $ty {
            fn to_value(&self) -> $crate::js::Value {
                $crate::js::Value::str(match self { $( <$ty>::$variant => $s, )* })
            }
            fn from_value(v: &$crate::js::Value) -> Option<Self> {
                match v.as_str()? {
                    $( $s => Some(<$ty>::$variant), )*
                    _ => None,
                }
            }
            fn ts() -> String {
                String::from($ts)
            }
        }

        impl $crate::report::wire::Declared for $ty {
            fn declaration() -> String {
                let strings: &[&str] = &[$( concat!("\"", $s, "\"") ),*];
                let one_line = format!("export type {} = {};\n", $ts, strings.join(" | "));
                let text = if one_line.len() <= 100 {
                    one_line
                } else {
                    format!("export type {} =\n  | {};\n", $ts, strings.join("\n  | "))
                };
                $crate::report::wire::doc_comment(&[$($doc),*], "") + &text
            }
        }
    };
}
pub(crate) use wire_enum;

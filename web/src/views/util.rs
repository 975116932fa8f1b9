//! Small helpers for reading the report JSON.
#![allow(dead_code)]

use ctxlens::js::Value;

/// `v[key]` as an array (empty when absent).
pub fn arr<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

/// `v[key]` as a number (0 when absent).
pub fn num(v: &Value, key: &str) -> f64 {
    v.get(key).and_then(Value::as_f64).unwrap_or(0.0)
}

/// `v[key]` as a string ("" when absent).
pub fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get_str(key).unwrap_or("")
}

/// Follows a path of keys.
pub fn at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    let mut cur = v;
    for k in path {
        cur = cur.get(k)?;
    }
    Some(cur)
}

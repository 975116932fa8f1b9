//! fetch's `Headers` (undici in Node), as far as it shapes the headers a request carries.

use super::{to_js_string, Value};

/// A header value normalized as `Headers.append`/`set` do: leading and trailing HTTP whitespace
/// (tab, space, CR, LF) removed.
pub fn normalize_value(s: &str) -> &str {
    s.trim_matches([' ', '\t', '\r', '\n'])
}

/// `String(value)` of a header value, normalized.
pub fn header_value(v: &Value) -> String {
    normalize_value(&to_js_string(Some(v))).to_string()
}

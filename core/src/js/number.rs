//! `Number.prototype.toString()` / `JSON.stringify` of a finite number.

/// The shortest string that round-trips, formatted as ECMAScript does (`1e+21`, `0.000001`,
/// `1e-7`, `-0` → `0`).
pub fn number_to_string(n: f64) -> String {
    if n == 0.0 {
        return "0".to_string();
    }
    if n.is_nan() {
        return "NaN".to_string();
    }
    if n.is_infinite() {
        return if n > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    let mut buf = ryu_js::Buffer::new();
    buf.format_finite(n).to_string()
}

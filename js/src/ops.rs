//! JS operators and conversions the ports share: `Number(v)`, `String(v)`, how
//! `Array.prototype.join` prints an element, `Math.min`/`Math.max` (NaN propagates) and `??`.
//! `None` stands for `undefined` throughout.

use super::{js_trim, number_to_string, Str, Value};

/// `Number(v)` / unary `+v` (`None` is `undefined`): `undefined` → NaN, `null` → 0, booleans →
/// 0/1, strings parsed as JS does (trimmed, empty → 0), objects → NaN (arrays by their string).
pub fn to_number(v: Option<&Value>) -> f64 {
    match v {
        None => f64::NAN,
        Some(Value::Null) => 0.0,
        Some(Value::Bool(b)) => f64::from(u8::from(*b)),
        Some(Value::Number(n)) => *n,
        Some(Value::String(s)) => string_to_number(s),
        Some(Value::Array(a)) => match a.len() {
            0 => 0.0,
            1 => string_to_number(&to_js_string(a.first())),
            _ => f64::NAN,
        },
        Some(Value::Object(_) | Value::Deep(_)) => f64::NAN,
    }
}

/// `Number(s)` for a string (`StringToNumber`): JS whitespace trimmed, empty is 0, decimal
/// literals, `Infinity` with an optional sign, and unsigned `0x`/`0o`/`0b` integers of any size.
pub fn string_to_number(s: &str) -> f64 {
    let t = js_trim(s);
    if t.is_empty() {
        return 0.0;
    }
    let b = t.as_bytes();
    if b.len() >= 2 && b[0] == b'0' {
        let radix = match b[1] {
            b'x' | b'X' => Some(16),
            b'o' | b'O' => Some(8),
            b'b' | b'B' => Some(2),
            _ => None,
        };
        if let Some(r) = radix {
            let digits = &t[2..];
            if digits.is_empty() || !digits.chars().all(|c| c.is_digit(r)) {
                return f64::NAN;
            }
            return digits.chars().fold(0.0, |acc, c| {
                acc * f64::from(r) + f64::from(c.to_digit(r).unwrap_or(0))
            });
        }
    }
    match t {
        "Infinity" | "+Infinity" => return f64::INFINITY,
        "-Infinity" => return f64::NEG_INFINITY,
        _ => {}
    }
    // A StrDecimalLiteral: an optional sign, digits with an optional point (at least one digit
    // on either side), an optional exponent. Rust's parser accepts more ("inf", "nan").
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all_digits = |x: &str| x.bytes().all(|c| c.is_ascii_digit());
    let mantissa_ok = all_digits(int) && all_digits(frac) && !(int.is_empty() && frac.is_empty());
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && all_digits(e)
    });
    if !(mantissa_ok && exponent_ok) {
        return f64::NAN;
    }
    t.parse::<f64>().unwrap_or(f64::NAN)
}

/// `String(v)` / template-literal interpolation (`None` is `undefined`).
pub fn to_js_string(v: Option<&Value>) -> String {
    match v {
        None => "undefined".into(),
        Some(Value::Null) => "null".into(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Number(n)) => number_to_string(*n),
        Some(Value::String(s)) => s.as_str().to_owned(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| join_element(Some(x)))
            .collect::<Vec<_>>()
            .join(","),
        // A value this deep is never printed by pi (its recursion gives up first).
        Some(Value::Object(_) | Value::Deep(_)) => "[object Object]".into(),
    }
}

/// How `Array.prototype.join` prints one element: `null` and `undefined` as "", anything else
/// as `String(v)`.
/// `[a, b, ...].join(sep)` over members (`join_element` each) as a shared string: a lone string
/// member is shared, not copied (a tool result's one text block).
pub fn join_shared(members: &[Option<&Value>], sep: &str) -> Str {
    match members {
        [Some(Value::String(s))] => s.clone(),
        _ => members
            .iter()
            .map(|v| join_element(*v))
            .collect::<Vec<_>>()
            .join(sep)
            .into(),
    }
}

/// `sanitizeSurrogates(s)` as a shared string: `s` itself when it has no lone surrogate.
pub fn sanitize_shared(s: &Str) -> Str {
    // A plain string holds no lone surrogate (see `Str::is_plain`): nothing to scan.
    if s.is_plain() {
        return s.clone();
    }
    // A long text the memo knows is scanned once per session, not once per request.
    if crate::memo::facts(s).is_some_and(|f| !f.lone_surrogates) {
        return s.clone();
    }
    match super::sanitize_surrogates(s) {
        std::borrow::Cow::Borrowed(_) => s.clone(),
        std::borrow::Cow::Owned(o) => o.into(),
    }
}

pub fn join_element(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        other => to_js_string(other),
    }
}

/// `v ?? …` on an optional member: `Some` only when `v != null` (neither `null` nor
/// `undefined`).
pub fn non_nullish(v: Option<&Value>) -> Option<&Value> {
    v.filter(|v| !v.is_null())
}

/// `Math.min(a, b)`: NaN propagates, and `-0` is below `+0`.
pub fn js_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a == b {
        if a.is_sign_negative() {
            a
        } else {
            b
        }
    } else if a < b {
        a
    } else {
        b
    }
}

/// `Math.max(a, b)`: NaN propagates, and `+0` is above `-0`.
pub fn js_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a == b {
        if a.is_sign_negative() {
            b
        } else {
            a
        }
    } else if a > b {
        a
    } else {
        b
    }
}

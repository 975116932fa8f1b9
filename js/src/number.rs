//! `Number.prototype.toString()` / `JSON.stringify` of a finite number.

/// The shortest string that round-trips, formatted as ECMAScript does (`1e+21`, `0.000001`,
/// `1e-7`, `-0` → `0`).
pub fn number_to_string(n: f64) -> String {
    let mut out = String::new();
    push_number(&mut out, n);
    out
}

/// [`number_to_string`] appended to `out` (no string made for it).
pub fn push_number(out: &mut String, n: f64) {
    if let Some(i) = safe_integer(n) {
        let mut digits = Digits::default();
        out.push_str(digits.of(i));
        return;
    }
    if n.is_nan() {
        out.push_str("NaN");
    } else if n.is_infinite() {
        out.push_str(if n > 0.0 { "Infinity" } else { "-Infinity" });
    } else {
        let mut buf = ryu_js::Buffer::new();
        out.push_str(buf.format_finite(n));
    }
}

/// `number_to_string(n).len()`, without making the string for a whole number.
pub fn number_len(n: f64) -> usize {
    match safe_integer(n) {
        Some(i) => Digits::default().of(i).len(),
        None => number_to_string(n).len(),
    }
}

/// `n` as an integer when it is one of magnitude below 2^53 (`-0` as `0`): every such integer is
/// its own double, so its shortest round-trip form is its decimal digits, as ECMAScript prints it.
fn safe_integer(n: f64) -> Option<i64> {
    const LIMIT: f64 = 9_007_199_254_740_992.0; // 2^53
    (n.fract() == 0.0 && n.abs() < LIMIT).then_some(n as i64)
}

/// The decimal digits of an integer, on the stack.
#[derive(Default)]
struct Digits([u8; 24]);

impl Digits {
    fn of(&mut self, i: i64) -> &str {
        let mut u = i.unsigned_abs();
        let mut at = self.0.len();
        loop {
            at -= 1;
            self.0[at] = b'0' + (u % 10) as u8;
            u /= 10;
            if u == 0 {
                break;
            }
        }
        if i < 0 {
            at -= 1;
            self.0[at] = b'-';
        }
        // SAFETY: ASCII digits and '-'.
        unsafe { std::str::from_utf8_unchecked(&self.0[at..]) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ryu(n: f64) -> String {
        if n == 0.0 {
            return "0".into();
        }
        ryu_js::Buffer::new().format_finite(n).to_string()
    }

    /// The whole-number fast path prints what the shortest round-trip form (ryu-js, ECMAScript's
    /// algorithm) prints, at the edges too; everything else goes through ryu-js.
    #[test]
    fn whole_numbers_print_as_ecmascript_prints_them() {
        let mut cases = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            9.0,
            10.0,
            99.0,
            100.0,
            1e15,
            1e16,
            123456789012345.0,
            9_007_199_254_740_991.0,
            -9_007_199_254_740_991.0,
            9_007_199_254_740_992.0,
            9_007_199_254_740_994.0,
            1e20,
            1e21,
            1.5,
            -2.5,
            0.1,
            1e-7,
            1767225600000.0,
        ];
        for k in 0..64 {
            cases.push(2f64.powi(k));
            cases.push(-(2f64.powi(k)) + 1.0);
        }
        for n in cases {
            assert_eq!(number_to_string(n), ryu(n), "{n:?}");
            assert_eq!(number_len(n), ryu(n).len(), "{n:?}");
        }
        assert_eq!(number_to_string(f64::NAN), "NaN");
        assert_eq!(number_to_string(f64::NEG_INFINITY), "-Infinity");
    }
}

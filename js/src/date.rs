//! JS `Date` as V8 computes it: `new Date(value).getTime()` and `Date.parse` for the date-time
//! strings pi writes and reads.

// Text from the user: no string is sliced by byte range (a cut inside a character panics).
#![deny(clippy::string_slice)]

use super::{to_js_string, Value};

/// The largest time value a JS Date holds (TimeClip, ECMA-262 §21.4.1.31).
const MAX_TIME: f64 = 8.64e15;

/// `new Date(value).getTime()` for a JSON member (`None` = `undefined` → NaN): a string is
/// parsed ([`date_parse`]), a number is time-clipped, `null` is 0, a boolean 0 or 1, an array
/// is parsed as its joined text, an object is NaN.
pub fn date_get_time(value: Option<&Value>) -> f64 {
    match value {
        None => f64::NAN,
        Some(Value::Null) => 0.0,
        Some(Value::Bool(b)) => f64::from(u8::from(*b)),
        Some(Value::Number(n)) => time_clip(*n),
        Some(Value::String(s)) => date_parse(s),
        Some(v @ Value::Array(_)) => date_parse(&to_js_string(Some(v))),
        Some(Value::Object(_) | Value::Deep(_)) => f64::NAN,
    }
}

/// TimeClip: NaN outside ±8.64e15, else truncated toward zero (−0 → +0).
fn time_clip(t: f64) -> f64 {
    if !t.is_finite() || t.abs() > MAX_TIME {
        return f64::NAN;
    }
    t.trunc() + 0.0
}

/// `Date.parse(s)` for the date-time strings pi writes, following V8's ES5 ISO parser
/// (`DateParser::ParseES5DateTime`): `YYYY[-MM[-DD]]` or `±YYYYYY[-MM[-DD]]`, then optionally
/// `THH:mm[:ss[.fraction]]` (`T`/`Z` in either case; any number of fraction digits, of which
/// the first three count; `24:00` allowed) and `Z`, `±HH:mm` or `±HHmm`. Date-only forms are
/// UTC; date-time forms without an offset are local time, taken here as UTC (the oracle runs
/// with TZ unset = UTC). V8 checks the day only against 1–31, so `2026-02-30` rolls over into
/// March, as in Node. Also accepted, as V8's legacy fallback does: a space instead of `T` for
/// a local time. Anything else is NaN (V8's legacy parser accepts more, e.g. `Nov 29 2026`).
pub fn date_parse(s: &str) -> f64 {
    parse_iso_date(s).unwrap_or(f64::NAN)
}

fn parse_iso_date(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let mut i = 0;
    // Reads a run of ASCII digits; returns (value of at most 9 significant digits, length).
    let digits = |i: &mut usize| -> (i64, usize) {
        let start = *i;
        let mut v: i64 = 0;
        while *i < b.len() && b[*i].is_ascii_digit() {
            if *i - start < 9 {
                v = v * 10 + i64::from(b[*i] - b'0');
            }
            *i += 1;
        }
        (v, *i - start)
    };
    let fixed = |i: &mut usize, n: usize| -> Option<i64> {
        let (v, len) = digits(i);
        (len == n).then_some(v)
    };

    let year = match b.first()? {
        b'+' | b'-' => {
            let negative = b[0] == b'-';
            i = 1;
            let y = fixed(&mut i, 6)?;
            if negative && y == 0 {
                return None;
            }
            if negative {
                -y
            } else {
                y
            }
        }
        _ => fixed(&mut i, 4)?,
    };
    let (mut month, mut day) = (1, 1);
    if b.get(i) == Some(&b'-') {
        i += 1;
        month = fixed(&mut i, 2).filter(|m| (1..=12).contains(m))?;
        if b.get(i) == Some(&b'-') {
            i += 1;
            day = fixed(&mut i, 2).filter(|d| (1..=31).contains(d))?;
        }
    }
    let days = days_from_civil(year, month, day);
    if i == b.len() {
        return Some(time_clip(days as f64 * 86_400_000.0));
    }
    let sep = b[i];
    let legacy_space = sep == b' ';
    if !(sep == b'T' || sep == b't' || legacy_space) {
        return None;
    }
    i += 1;
    // After `T` comes a number token: a `T` glued to letters is a different word.
    if !b.get(i).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let hour = fixed(&mut i, 2).filter(|h| (0..=24).contains(h))?;
    if b.get(i) != Some(&b':') {
        return None;
    }
    i += 1;
    let minute = fixed(&mut i, 2).filter(|m| (0..=59).contains(m))?;
    let (mut second, mut ms) = (0, 0);
    if b.get(i) == Some(&b':') {
        i += 1;
        second = fixed(&mut i, 2).filter(|s| (0..=59).contains(s))?;
        if b.get(i) == Some(&b'.') {
            i += 1;
            let (v, len) = digits(&mut i);
            ms = read_milliseconds(v, len)?;
        }
    }
    if hour == 24 && (minute != 0 || second != 0 || ms != 0) {
        return None;
    }
    let mut offset_min: i64 = 0;
    match b.get(i) {
        Some(b'Z' | b'z') => i += 1,
        Some(&c @ (b'+' | b'-')) if !legacy_space => {
            i += 1;
            let sign = if c == b'+' { 1 } else { -1 };
            let (v, len) = digits(&mut i);
            let (h, m) = match len {
                4 => (v / 100, v % 100),
                2 => {
                    if b.get(i) != Some(&b':') {
                        return None;
                    }
                    i += 1;
                    (v, fixed(&mut i, 2)?)
                }
                _ => return None,
            };
            if !(0..=23).contains(&h) || !(0..=59).contains(&m) {
                return None;
            }
            offset_min = sign * (h * 60 + m);
        }
        _ => {}
    }
    if i != b.len() {
        return None;
    }
    let t = days as f64 * 86_400_000.0
        + (hour * 3_600_000 + minute * 60_000 + second * 1000 + ms) as f64
        - (offset_min * 60_000) as f64;
    Some(time_clip(t))
}

/// V8's `ReadMilliseconds`: the first three significant digits of the fraction.
fn read_milliseconds(value: i64, len: usize) -> Option<i64> {
    match len {
        0 => None,
        1 => Some(value * 100),
        2 => Some(value * 10),
        3 => Some(value),
        n => Some(value / 10i64.pow((n.min(9) - 3) as u32)),
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (month 1–12; day may exceed the month
/// and rolls over, as `MakeDay` does).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468 + (day - 1)
}

/// The UTC calendar date of a time value (`Date.prototype.toISOString`'s first ten characters:
/// `2026-11-29`), and its weekday (0 = Monday); `None` for an invalid time or a year outside
/// 0–9999.
pub fn utc_date(ms: f64) -> Option<(String, u32)> {
    if !ms.is_finite() {
        return None;
    }
    let days = (ms / 86_400_000.0).floor() as i64;
    let (y, m, d) = civil_from_days(days);
    if !(0..=9999).contains(&y) {
        return None;
    }
    // 1970-01-01 was a Thursday (3 counting from Monday).
    let weekday = (days + 3).rem_euclid(7) as u32;
    Some((format!("{y:04}-{m:02}-{d:02}"), weekday))
}

/// The date `days` after 1970-01-01 (proleptic Gregorian): year, month 1–12, day 1–31. The
/// inverse of [`days_from_civil`].
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates_and_weekdays() {
        assert_eq!(utc_date(0.0), Some(("1970-01-01".into(), 3)));
        assert_eq!(
            utc_date(date_parse("2026-11-30T23:59:59.999Z")),
            Some(("2026-11-30".into(), 0))
        );
        assert_eq!(
            utc_date(date_parse("2026-12-06T00:30:00+02:00")),
            Some(("2026-12-05".into(), 5))
        );
        assert_eq!(
            utc_date(date_parse("2024-02-29T12:00:00Z")),
            Some(("2024-02-29".into(), 3))
        );
        assert_eq!(utc_date(-1.0), Some(("1969-12-31".into(), 2)));
        assert_eq!(utc_date(f64::NAN), None);
        for days in [-800_000i64, -1, 0, 59, 60, 10_956, 20_000, 2_000_000] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m as i64, d as i64), days);
        }
    }

    #[test]
    fn date_parse_matches_v8() {
        let cases: &[(&str, f64)] = &[
            ("2026-11-29T19:33:14.614Z", 1795980794614.0),
            ("2026-11-29T19:33:14Z", 1795980794000.0),
            ("2026-11-29T19:33Z", 1795980780000.0),
            ("2026-11-29T19:33:14.614+02:00", 1795973594614.0),
            ("2026-11-29T19:33:14.614-0530", 1796000594614.0),
            ("2026-11-29", 1795910400000.0),
            ("2026-11", 1793491200000.0),
            ("2026", 1767225600000.0),
            ("+002026-11-29T00:00:00Z", 1795910400000.0),
            ("-000001-01-01T00:00:00Z", -62198755200000.0),
            ("2026-02-30T00:00:00Z", 1772409600000.0),
            ("2026-11-29T24:00:00Z", 1795996800000.0),
            ("2026-11-29T19:33:14.6Z", 1795980794600.0),
            ("2026-11-29T19:33:14.61Z", 1795980794610.0),
            ("2026-11-29T19:33:14.61499Z", 1795980794614.0),
            ("2026-11-29T19:33:14.1234567890123Z", 1795980794123.0),
            ("2026-11-29t19:33:14z", 1795980794000.0),
            ("2026-11-29T19:33:14", 1795980794000.0),
            ("2026-11-29 19:33:14", 1795980794000.0),
            ("2026-11-29 19:33:14Z", 1795980794000.0),
            ("1970-01-01T00:00:00.000Z", 0.0),
            ("+275760-09-13T00:00:00.000Z", 8.64e15),
        ];
        for (s, want) in cases {
            assert_eq!(date_parse(s), *want, "{s}");
        }
        for s in [
            "-000000-01-01T00:00:00Z",
            "2026-11-29T24:00:01Z",
            "2026-11-29T19:33:14.614+2:00",
            "2026-11-29T19:33:14.Z",
            "garbage",
            "",
            "2026-13-01",
            "2026-11-32",
            "2026-11-29T19:33:14.614Z ",
            "+275760-09-13T00:00:00.001Z",
            "2026-11-29T19:60:00Z",
            "2026-11-29T19:33:14.614+24:00",
        ] {
            assert!(date_parse(s).is_nan(), "{s}");
        }
        assert_eq!(date_get_time(Some(&Value::Null)), 0.0);
        assert_eq!(date_get_time(Some(&Value::Bool(true))), 1.0);
        assert_eq!(date_get_time(Some(&Value::Number(1.7))), 1.0);
        assert_eq!(date_get_time(Some(&Value::Number(-1.7))), -1.0);
        assert!(date_get_time(None).is_nan());
        assert_eq!(
            date_get_time(Some(&Value::Array(vec![Value::str("2026-01-01")]))),
            1767225600000.0
        );
    }
}

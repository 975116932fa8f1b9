//! JS string semantics over Rust strings: UTF-16 lengths and slices, `trim`, JSON escaping,
//! `sanitizeSurrogates` and pi's `shortHash`.

/// A lone UTF-16 surrogate `0xD800 + k` is stored as the scalar `LONE_SURROGATE_BASE + k`
/// (Supplementary Private Use Area-B, `U+10F800..=U+10FFFF`).
pub const LONE_SURROGATE_BASE: u32 = 0x10F800;

/// Whether `c` stands for a lone surrogate; returns its UTF-16 code unit.
#[inline]
pub fn is_lone_surrogate_char(c: char) -> Option<u16> {
    let u = c as u32;
    if u >= LONE_SURROGATE_BASE {
        Some((0xD800 + (u - LONE_SURROGATE_BASE)) as u16)
    } else {
        None
    }
}

/// `s.replace(/[^CLASS]/g, replacement)` for a class of ASCII characters (`in_class`), as JS
/// runs a regex without the `u` flag: code unit by code unit, so a character outside the BMP
/// (two UTF-16 units) is replaced twice and a lone surrogate once.
pub fn replace_units_outside(s: &str, in_class: impl Fn(u8) -> bool, replacement: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_ascii() && in_class(c as u8) {
            out.push(c);
            continue;
        }
        let units = if is_lone_surrogate_char(c).is_some() {
            1
        } else {
            c.len_utf16()
        };
        for _ in 0..units {
            out.push_str(replacement);
        }
    }
    out
}

/// `s.length` in JS.
pub fn utf16_len(s: &str) -> usize {
    // Counted on the bytes, 8 at a time: every byte that does not continue a character starts
    // one unit, a 4-byte lead (0xF0..) starts an astral character (two units); lone surrogates
    // (stored as 4-byte characters, lead 0xF4) are one unit and corrected for after — only
    // when the text has a 4-byte character at all. An all-ASCII word is 8 units.
    const HI: u64 = 0x8080_8080_8080_8080;
    let b = s.as_bytes();
    let mut n = 0usize;
    let mut fours = 0u64;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        if w & HI == 0 {
            n += 8;
            continue;
        }
        let continuation = w & !(w << 1) & HI;
        let four = w & (w << 1) & (w << 2) & (w << 3) & HI;
        fours |= four;
        n += 8 - continuation.count_ones() as usize + four.count_ones() as usize;
    }
    for &x in chunks.remainder() {
        n += ((x as i8) >= -64) as usize + (x >= 0xF0) as usize;
        fours |= (x >= 0xF0) as u64;
    }
    if fours != 0 && b.contains(&0xF4) {
        n -= s
            .chars()
            .filter(|c| is_lone_surrogate_char(*c).is_some())
            .count();
    }
    n
}

/// Whether any of the 8 bytes in `w` is `"`, `\\` or a control character (< 0x20): the bytes a
/// JSON string escapes (or, in JSON text, ends or rejects on).
#[inline(always)]
pub(crate) fn has_json_special(w: u64) -> bool {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let zero = |x: u64| x.wrapping_sub(LO) & !x & HI;
    (zero(w ^ (LO * b'"' as u64))
        | zero(w ^ (LO * b'\\' as u64))
        | (w.wrapping_sub(LO * 0x20) & !w & HI))
        != 0
}

/// Whether any of the 8 bytes in `w` is 0xF4 (the lead byte of every encoded lone surrogate).
#[inline(always)]
pub(crate) fn has_f4(w: u64) -> bool {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let x = w ^ (LO * 0xF4);
    x.wrapping_sub(LO) & !x & HI != 0
}

/// The UTF-16 code units of a JS string.
pub fn utf16_units(s: &str) -> Vec<u16> {
    let mut out = Vec::with_capacity(s.len());
    for c in s.chars() {
        if let Some(cu) = is_lone_surrogate_char(c) {
            out.push(cu);
        } else {
            let mut buf = [0u16; 2];
            out.extend_from_slice(c.encode_utf16(&mut buf));
        }
    }
    out
}

/// Builds a string from UTF-16 code units; pairs combine, lone surrogates are kept (encoded).
pub fn from_utf16(units: &[u16]) -> String {
    let mut out = String::with_capacity(units.len());
    for r in char::decode_utf16(units.iter().copied()) {
        match r {
            Ok(c) => out.push(c),
            Err(e) => {
                let cu = e.unpaired_surrogate();
                out.push(char::from_u32(LONE_SURROGATE_BASE + (cu as u32 - 0xD800)).unwrap());
            }
        }
    }
    out
}

/// `s.slice(start, end)` with non-negative indices in UTF-16 units (clamped to the length).
pub fn js_slice(s: &str, start: usize, end: Option<usize>) -> String {
    if s.is_ascii() {
        let end = end.unwrap_or(s.len()).min(s.len());
        let start = start.min(end);
        return s[start..end].to_string();
    }
    let units = utf16_units(s);
    let end = end.unwrap_or(units.len()).min(units.len());
    let start = start.min(end);
    from_utf16(&units[start..end])
}

/// JS `WhiteSpace` and `LineTerminator` code points, which `String.prototype.trim` removes and
/// `\s` matches.
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{9}' | '\u{a}' | '\u{b}' | '\u{c}' | '\u{d}' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// `s.trim()`.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// `s.trim().length === 0` (also `!s.trim()`).
pub fn js_trim_is_empty(s: &str) -> bool {
    s.chars().all(is_js_whitespace)
}

/// pi's `sanitizeSurrogates`: removes unpaired surrogates. Paired ones are real scalars in a Rust
/// string, so this removes exactly the encoded lone ones.
/// Whether `s` holds a lone UTF-16 surrogate.
pub fn has_lone_surrogate(s: &str) -> bool {
    s.as_bytes().contains(&0xF4) && s.chars().any(|c| is_lone_surrogate_char(c).is_some())
}

pub fn sanitize_surrogates(s: &str) -> std::borrow::Cow<'_, str> {
    if has_lone_surrogate(s) {
        std::borrow::Cow::Owned(
            s.chars()
                .filter(|c| is_lone_surrogate_char(*c).is_none())
                .collect(),
        )
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

/// From `i`, the first byte that JSON may escape (`"`, `\\`, a control character, or 0xF4, the
/// lead of an encoded lone surrogate), skipping eight bytes at a time; or the first of the
/// last seven bytes, which are looked at one by one.
#[inline(always)]
fn next_special(b: &[u8], mut i: usize) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    // A byte's high bit is set where it is zero; below the lowest such byte no borrow has
    // crossed, so the lowest bit set is exact.
    let zero = |x: u64| x.wrapping_sub(LO) & !x & HI;
    while let Some(c) = b.get(i..i + 8) {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        let special = zero(w ^ (LO * b'"' as u64))
            | zero(w ^ (LO * b'\\' as u64))
            | (w.wrapping_sub(LO * 0x20) & !w & HI)
            | zero(w ^ (LO * 0xF4));
        if special != 0 {
            return i + (special.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i
}

/// The byte length of `JSON.stringify(s)` (what [`escape_json_string_into`] appends).
pub fn escaped_json_len(s: &str) -> usize {
    let b = s.as_bytes();
    let mut n = b.len() + 2;
    let mut i = 0;
    loop {
        i = next_special(b, i);
        let Some(&x) = b.get(i) else { break };
        match x {
            b'"' | b'\\' | 0x08 | 0x0c | b'\n' | b'\r' | b'\t' => n += 1,
            0..=0x1f => n += 5,
            0xF4 if s[i..]
                .chars()
                .next()
                .and_then(is_lone_surrogate_char)
                .is_some() =>
            {
                n += 2
            }
            _ => {}
        }
        i += 1;
    }
    n
}

/// Appends `JSON.stringify(s)` (the quoted, escaped string) to `out`.
pub fn escape_json_string_into(s: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(s.len() + 2);
    out.push('"');
    let b = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    loop {
        i = next_special(b, i);
        let Some(&x) = b.get(i) else { break };
        let esc: Option<&str> = match x {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            0x08 => Some("\\b"),
            0x0c => Some("\\f"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            _ => None,
        };
        let (cu, len) = if esc.is_some() || x < 0x20 {
            (x as u16, 1)
        } else if x == 0xF4 {
            match s[i..].chars().next().and_then(is_lone_surrogate_char) {
                Some(cu) => (cu, 4),
                None => {
                    i += 1;
                    continue;
                }
            }
        } else {
            i += 1;
            continue;
        };
        out.push_str(&s[start..i]);
        i += len;
        start = i;
        if let Some(e) = esc {
            out.push_str(e);
        } else {
            out.push_str("\\u");
            for shift in [12, 8, 4, 0] {
                out.push(HEX[((cu >> shift) & 0xf) as usize] as char);
            }
        }
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// pi's `shortHash` (pi-ai utils/hash.js): a cyrb53-style hash over UTF-16 code units, printed
/// as `(h2>>>0).toString(36) + (h1>>>0).toString(36)`.
pub fn short_hash(s: &str) -> String {
    let mut h1: u32 = 0xdeadbeef;
    let mut h2: u32 = 0x41c6ce57;
    for ch in utf16_units(s) {
        let ch = ch as u32;
        h1 = (h1 ^ ch).wrapping_mul(2654435761);
        h2 = (h2 ^ ch).wrapping_mul(1597334677);
    }
    let a = (h1 ^ (h1 >> 16)).wrapping_mul(2246822507) ^ (h2 ^ (h2 >> 13)).wrapping_mul(3266489909);
    h1 = a;
    let b = (h2 ^ (h2 >> 16)).wrapping_mul(2246822507) ^ (h1 ^ (h1 >> 13)).wrapping_mul(3266489909);
    h2 = b;
    format!("{}{}", to_base36(h2), to_base36(h1))
}

fn to_base36(mut n: u32) -> String {
    if n == 0 {
        return "0".into();
    }
    let mut digits = Vec::new();
    while n > 0 {
        let d = (n % 36) as u8;
        digits.push(if d < 10 { b'0' + d } else { b'a' + d - 10 });
        n /= 36;
    }
    digits.reverse();
    String::from_utf8(digits).unwrap()
}

//! `JSON.parse` and `JSON.stringify` with the semantics of V8.

use super::number::{number_len, push_number};
use super::str_type::INTERN_MAX_LEN;
use super::string::{
    escape_json_string_into, escaped_json_len, has_f4, has_json_special as has_special,
    LONE_SURROGATE_BASE,
};
use super::{Object, Str, Value};

/// Containers nested deeper than this are kept as their text ([`Value::Deep`]) instead of being
/// built: V8's `JSON.parse` has no depth limit, so no line is refused for its depth, and every
/// value ctxlens builds can be walked, copied and dropped by recursive code without risking the
/// stack. pi itself cannot send anything this deep (V8's `structuredClone` and `JSON.stringify`
/// recurse and give up far earlier: see `Rules::max_message_depth` in ctxlens-pi).
pub const MAX_BUILT_DEPTH: usize = 2048;

/// Why `JSON.parse` failed, and where (a byte offset into the text).
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    pub offset: usize,
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at byte {}", self.message, self.offset)
    }
}

/// `JSON.parse(text)`. The strings of the value are ranges of one shared copy of `text`.
pub fn parse(text: &str) -> Result<Value, ParseError> {
    parse_str(&Str::from(text))
}

/// [`parse`] of a shared text: its strings are ranges of `text`'s buffer (no copies); short
/// ones (keys, `"type"` values, roles) are the shared copies `Str::from` keeps, so the keys
/// every lookup compares sit in a few hot cache lines instead of being spread over the text.
pub fn parse_str(text: &Str) -> Result<Value, ParseError> {
    parse_str_with_depth(text).map(|(v, _)| v)
}

/// [`parse_str`], and how deeply the value nests: 0 for a scalar, 1 for a container of
/// scalars, one more per level (counted through [`Value::Deep`] parts too).
pub fn parse_str_with_depth(text: &Str) -> Result<(Value, usize), ParseError> {
    let t = text.as_str();
    let mut p = Parser {
        s: t.as_bytes(),
        text: t,
        i: 0,
        whole: text,
        members: Vec::new(),
        items: Vec::new(),
        keys: Vec::new(),
        max_depth: 0,
    };
    p.ws();
    let v = p.value()?;
    p.ws();
    if p.i != p.s.len() {
        return Err(p.err("Unexpected non-whitespace character after JSON"));
    }
    Ok((v, p.max_depth))
}

/// An open container of the value being parsed (the parser keeps its own stack, so nesting
/// depth costs heap, never call stack).
enum Frame {
    /// Its items so far are `items[base..]`.
    Array { base: usize },
    /// Its members so far are `members[base..]`; the key waiting for its value is on top of
    /// the parser's `keys`.
    Object { base: usize },
    /// A container below [`MAX_BUILT_DEPTH`], checked but not built; `start` is the offset of
    /// its opening bracket when it is the outermost of its run (else `None`).
    Skipped { close: u8, start: Option<usize> },
}

/// Like [`parse`], and the error's position as (line, column), both 1-based, column in chars.
pub fn parse_with_position(text: &str) -> Result<Value, (ParseError, usize, usize)> {
    parse(text).map_err(|e| {
        let before = &text[..e.offset.min(text.len())];
        let line = before.matches('\n').count() + 1;
        let col = before
            .rsplit('\n')
            .next()
            .map(|l| l.chars().count())
            .unwrap_or(0)
            + 1;
        (e, line, col)
    })
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
    /// `text` as a shared string: parsed strings are ranges of it.
    whole: &'a Str,
    /// The members and items of the objects and arrays being parsed, innermost last: each is
    /// moved into a vector of exactly its size when it closes (no growing, no shrinking).
    members: Vec<(Str, Value)>,
    items: Vec<Value>,
    /// The keys of the open objects, each waiting for its value.
    keys: Vec<Str>,
    /// The deepest nesting seen so far.
    max_depth: usize,
}

impl<'a> Parser<'a> {
    fn err(&self, msg: &str) -> ParseError {
        ParseError {
            offset: self.i,
            message: msg.to_string(),
        }
    }

    fn ws(&mut self) {
        while let Some(&b) = self.s.get(self.i) {
            if b == b' ' || b == b'\t' || b == b'\n' || b == b'\r' {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    /// One JSON value, iteratively: containers open frames on [`Frame`]s, and each value
    /// that completes is attached to the innermost open one.
    fn value(&mut self) -> Result<Value, ParseError> {
        let mut stack: Vec<Frame> = Vec::new();
        'value: loop {
            let mut v = match self.s.get(self.i) {
                None => return Err(self.err("Unexpected end of JSON input")),
                Some(&open @ (b'{' | b'[')) => {
                    let depth = stack.len() + 1;
                    let skipping = matches!(stack.last(), Some(Frame::Skipped { .. }));
                    self.max_depth = self.max_depth.max(depth);
                    let start = self.i;
                    self.i += 1;
                    self.ws();
                    let close = if open == b'{' { b'}' } else { b']' };
                    if self.s.get(self.i) == Some(&close) {
                        self.i += 1;
                        if depth > MAX_BUILT_DEPTH && !skipping {
                            Value::Deep(self.whole.slice(start, self.i, false))
                        } else if open == b'{' {
                            Value::Object(Object::new())
                        } else {
                            Value::Array(Vec::new())
                        }
                    } else {
                        if depth > MAX_BUILT_DEPTH {
                            stack.push(Frame::Skipped {
                                close,
                                start: (!skipping).then_some(start),
                            });
                            if open == b'{' {
                                self.key()?;
                            }
                        } else if open == b'{' {
                            let key = self.key()?;
                            self.keys.push(key);
                            stack.push(Frame::Object {
                                base: self.members.len(),
                            });
                        } else {
                            stack.push(Frame::Array {
                                base: self.items.len(),
                            });
                        }
                        self.ws();
                        continue 'value;
                    }
                }
                Some(b'"') => Value::String(self.string()?),
                Some(b't') => self.literal("true", Value::Bool(true))?,
                Some(b'f') => self.literal("false", Value::Bool(false))?,
                Some(b'n') => self.literal("null", Value::Null)?,
                Some(b'-') | Some(b'0'..=b'9') => self.number()?,
                Some(_) => return Err(self.err("Unexpected token")),
            };
            // Attach `v` to the innermost open container; close containers as they end.
            loop {
                let Some(frame) = stack.last_mut() else {
                    return Ok(v);
                };
                self.ws();
                let next = self.s.get(self.i).copied();
                match frame {
                    Frame::Array { base } => {
                        self.items.push(v);
                        match next {
                            Some(b',') => {}
                            Some(b']') => {
                                let base = *base;
                                self.i += 1;
                                stack.pop();
                                v = Value::Array(self.items.drain(base..).collect());
                                continue;
                            }
                            None => return Err(self.err("Unexpected end of JSON input")),
                            _ => {
                                return Err(
                                    self.err("Expected ',' or ']' after array element in JSON")
                                )
                            }
                        }
                        self.i += 1;
                        self.ws();
                        continue 'value;
                    }
                    Frame::Object { base } => {
                        let key = self.keys.pop().expect("an open object has a pending key");
                        self.members.push((key, v));
                        match next {
                            Some(b',') => {}
                            Some(b'}') => {
                                let base = *base;
                                self.i += 1;
                                stack.pop();
                                v = Value::Object(Object::from_parsed(
                                    self.members.drain(base..).collect(),
                                ));
                                continue;
                            }
                            None => return Err(self.err("Unexpected end of JSON input")),
                            _ => {
                                return Err(
                                    self.err("Expected ',' or '}' after property value in JSON")
                                )
                            }
                        }
                        self.i += 1;
                        self.ws();
                        let key = self.key()?;
                        self.keys.push(key);
                        continue 'value;
                    }
                    Frame::Skipped { close, start } => {
                        let (close, start) = (*close, *start);
                        match next {
                            Some(b',') => {
                                self.i += 1;
                                self.ws();
                                if close == b'}' {
                                    self.key()?;
                                }
                                self.ws();
                                continue 'value;
                            }
                            Some(c) if c == close => {
                                self.i += 1;
                                stack.pop();
                                v = match start {
                                    Some(start) => {
                                        Value::Deep(self.whole.slice(start, self.i, false))
                                    }
                                    None => Value::Null,
                                };
                                continue;
                            }
                            None => return Err(self.err("Unexpected end of JSON input")),
                            _ if close == b']' => {
                                return Err(
                                    self.err("Expected ',' or ']' after array element in JSON")
                                )
                            }
                            _ => {
                                return Err(
                                    self.err("Expected ',' or '}' after property value in JSON")
                                )
                            }
                        }
                    }
                }
            }
        }
    }

    /// A property name and its `:` (at a `"`, after whitespace).
    fn key(&mut self) -> Result<Str, ParseError> {
        if self.s.get(self.i) != Some(&b'"') {
            return Err(self.err("Expected double-quoted property name in JSON"));
        }
        let key = self.string()?;
        self.ws();
        if self.s.get(self.i) != Some(&b':') {
            return Err(self.err("Expected ':' after property name in JSON"));
        }
        self.i += 1;
        self.ws();
        Ok(key)
    }

    fn literal(&mut self, word: &str, v: Value) -> Result<Value, ParseError> {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(v)
        } else {
            Err(self.err("Unexpected token"))
        }
    }

    fn number(&mut self) -> Result<Value, ParseError> {
        let start = self.i;
        let negative = self.s[self.i] == b'-';
        if negative {
            self.i += 1;
        }
        // The integer part, accumulated as it is scanned: most numbers in a session (timestamps,
        // token counts) are integers of up to 15 digits, exact in an f64 without float parsing.
        let mut int: u64 = 0;
        let digits_start = self.i;
        match self.s.get(self.i) {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                while let Some(&d @ b'0'..=b'9') = self.s.get(self.i) {
                    int = int.wrapping_mul(10).wrapping_add((d - b'0') as u64);
                    self.i += 1;
                }
            }
            _ => return Err(self.err("No number after minus sign in JSON")),
        }
        if self.i - digits_start <= 15 && !matches!(self.s.get(self.i), Some(b'.' | b'e' | b'E')) {
            let n = int as f64;
            return Ok(Value::Number(if negative { -n } else { n }));
        }
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            if !matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
                return Err(self.err("Unterminated fractional number in JSON"));
            }
            while matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
                self.i += 1;
            }
        }
        if matches!(self.s.get(self.i), Some(b'e') | Some(b'E')) {
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'+') | Some(b'-')) {
                self.i += 1;
            }
            if !matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
                return Err(self.err("Exponent part is missing a number in JSON"));
            }
            while matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
                self.i += 1;
            }
        }
        let lit = &self.text[start..self.i];
        // Rust's float parsing is correctly rounded, as V8's is.
        let n: f64 = lit.parse().map_err(|_| ParseError {
            offset: start,
            message: "Bad number".into(),
        })?;
        Ok(Value::Number(n))
    }

    fn hex4(&mut self) -> Result<u16, ParseError> {
        let h = self
            .s
            .get(self.i..self.i + 4)
            .ok_or_else(|| self.err("Bad Unicode escape in JSON"))?;
        let mut v: u16 = 0;
        for &b in h {
            let d = match b {
                b'0'..=b'9' => b - b'0',
                b'a'..=b'f' => b - b'a' + 10,
                b'A'..=b'F' => b - b'A' + 10,
                _ => return Err(self.err("Bad Unicode escape in JSON")),
            };
            v = v * 16 + d as u16;
        }
        self.i += 4;
        Ok(v)
    }

    /// A string literal as a shared [`Str`]. The common case, no escapes, is one scan and a
    /// range of the text (no copy).
    fn string(&mut self) -> Result<Str, ParseError> {
        let start = self.i + 1;
        let mut i = start;
        let s = self.s;
        // Plain: nothing JSON.stringify would escape, lone surrogates (0xF4 leads) included.
        let mut plain = true;
        loop {
            while i + 8 <= s.len() {
                let w = u64::from_le_bytes(s[i..i + 8].try_into().unwrap());
                if has_special(w) || has_f4(w) {
                    break;
                }
                i += 8;
            }
            match s.get(i) {
                Some(&b) if b != b'"' && b != b'\\' && b >= 0x20 => {
                    plain &= b != 0xF4;
                    i += 1;
                }
                _ => break,
            }
        }
        if s.get(i) != Some(&b'"') {
            return self.string_slow().map(Str::from);
        }
        self.i = i + 1;
        if plain && i - start <= INTERN_MAX_LEN {
            return Ok(Str::from(&self.text[start..i]));
        }
        Ok(self.whole.slice(start, i, plain))
    }

    fn string_slow(&mut self) -> Result<String, ParseError> {
        self.i += 1; // opening quote
        let mut out = String::new();
        loop {
            // Copy the run of plain bytes at once.
            let run_start = self.i;
            while let Some(&b) = self.s.get(self.i) {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.i += 1;
            }
            out.push_str(&self.text[run_start..self.i]);
            match self.s.get(self.i) {
                None => return Err(self.err("Unterminated string in JSON")),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    let esc = *self
                        .s
                        .get(self.i)
                        .ok_or_else(|| self.err("Unterminated string in JSON"))?;
                    self.i += 1;
                    match esc {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let cu = self.hex4()?;
                            if (0xD800..0xDC00).contains(&cu)
                                && self.s[self.i..].starts_with(b"\\u")
                            {
                                let save = self.i;
                                self.i += 2;
                                let lo = self.hex4()?;
                                if (0xDC00..0xE000).contains(&lo) {
                                    let c = 0x10000
                                        + (((cu as u32) - 0xD800) << 10)
                                        + (lo as u32 - 0xDC00);
                                    out.push(char::from_u32(c).unwrap());
                                    continue;
                                }
                                self.i = save;
                            }
                            push_code_unit(&mut out, cu);
                        }
                        _ => {
                            self.i -= 1;
                            return Err(self.err("Bad escaped character in JSON"));
                        }
                    }
                }
                Some(_) => return Err(self.err("Bad control character in string literal in JSON")),
            }
        }
    }
}

/// `JSON.stringify(s).length` in bytes; a plain string is its own bytes and the quotes.
#[inline]
fn str_json_len(s: &Str) -> usize {
    if s.is_plain() {
        s.len() + 2
    } else if let Some(f) = crate::memo::facts(s) {
        f.json_len
    } else {
        escaped_json_len(s)
    }
}

/// Appends `JSON.stringify(s)`; a plain string is copied as it is, and a long one whose JSON
/// is remembered ([`crate::memo`]) is copied from there.
#[inline]
pub fn write_str(s: &Str, out: &mut String) {
    if s.is_plain() {
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else if !crate::memo::write_json(s, out) {
        escape_json_string_into(s, out)
    }
}

fn push_code_unit(out: &mut String, cu: u16) {
    if (0xD800..0xE000).contains(&cu) {
        out.push(char::from_u32(LONE_SURROGATE_BASE + (cu as u32 - 0xD800)).unwrap());
    } else {
        out.push(char::from_u32(cu as u32).unwrap());
    }
}

/// The byte length of `JSON.stringify(v)`, so the text is written into a string of its exact
/// size (a large body grown by doubling would hold up to twice its size, and copy itself).
pub fn compact_len(v: &Value) -> usize {
    match v {
        Value::Null | Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => {
            if n.is_finite() {
                number_len(*n)
            } else {
                4
            }
        }
        Value::String(s) => str_json_len(s),
        Value::Deep(text) => text.len(),
        Value::Array(a) => 2 + a.len().saturating_sub(1) + a.iter().map(compact_len).sum::<usize>(),
        Value::Object(o) => {
            2 + o.len().saturating_sub(1)
                + o.iter()
                    .map(|(k, v)| str_json_len(k) + 1 + compact_len(v))
                    .sum::<usize>()
        }
    }
}

pub fn write_compact(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => {
            if n.is_finite() {
                push_number(out, *n)
            } else {
                out.push_str("null")
            }
        }
        Value::String(s) => write_str(s, out),
        Value::Deep(text) => out.push_str(text),
        Value::Array(a) => {
            out.push('[');
            for (i, item) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_compact(item, out);
            }
            out.push(']');
        }
        Value::Object(o) => {
            out.push('{');
            for (i, (k, item)) in o.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_str(k, out);
                out.push(':');
                write_compact(item, out);
            }
            out.push('}');
        }
    }
}

pub(super) fn write_pretty(v: &Value, out: &mut String, indent: usize, level: usize) {
    let pad = |out: &mut String, level: usize| {
        for _ in 0..indent * level {
            out.push(' ');
        }
    };
    match v {
        Value::Array(a) if !a.is_empty() => {
            out.push_str("[\n");
            for (i, item) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                pad(out, level + 1);
                write_pretty(item, out, indent, level + 1);
            }
            out.push('\n');
            pad(out, level);
            out.push(']');
        }
        Value::Object(o) if !o.is_empty() => {
            out.push_str("{\n");
            for (i, (k, item)) in o.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                pad(out, level + 1);
                escape_json_string_into(k, out);
                out.push_str(": ");
                write_pretty(item, out, indent, level + 1);
            }
            out.push('\n');
            pad(out, level);
            out.push('}');
        }
        _ => write_compact(v, out),
    }
}

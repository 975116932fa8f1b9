//! Where a value sits in a JSON text: the line a diagnostic about `providers.acme.models[3]` or
//! a tool set's tool #2 names. A scan of the text (no tree built), tolerant as the readers are:
//! `//` and `/* */` comments are skipped (models.json allows them), and a text that stops being
//! JSON gives no line rather than a wrong one. Duplicate keys resolve as `JSON.parse` does: the
//! last one wins.

/// One step of a path into a JSON value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step<'a> {
    /// An object's member.
    Key(&'a str),
    /// An array's item.
    Index(usize),
}

/// Nesting deeper than this gives no line (the scan recurses once a level).
const MAX_DEPTH: usize = 256;

/// The 1-based line where the value at `path` starts in `text`, if the path is there.
pub fn line_of(text: &str, path: &[Step]) -> Option<u32> {
    let mut s = Scan {
        b: text.as_bytes(),
        i: 0,
        line: 1,
    };
    s.value(Some(path), 0).ok().flatten()
}

struct Scan<'a> {
    b: &'a [u8],
    i: usize,
    line: u32,
}

/// The text is not JSON where the scan reached.
struct NotJson;

impl Scan<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn bump(&mut self) {
        if self.peek() == Some(b'\n') {
            self.line += 1;
        }
        self.i += 1;
    }

    /// Whitespace and comments.
    fn space(&mut self) {
        loop {
            match (self.peek(), self.b.get(self.i + 1)) {
                (Some(b' ' | b'\t' | b'\n' | b'\r'), _) => self.bump(),
                (Some(b'/'), Some(b'/')) => {
                    while !matches!(self.peek(), None | Some(b'\n')) {
                        self.bump();
                    }
                }
                (Some(b'/'), Some(b'*')) => {
                    self.i += 2;
                    while self.peek().is_some() && !self.b[self.i..].starts_with(b"*/") {
                        self.bump();
                    }
                    self.i = (self.i + 2).min(self.b.len());
                }
                _ => return,
            }
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), NotJson> {
        self.space();
        if self.peek() == Some(c) {
            self.bump();
            Ok(())
        } else {
            Err(NotJson)
        }
    }

    /// The value here, consumed whole; the line of `path`'s value within it, when asked for.
    fn value(&mut self, path: Option<&[Step]>, depth: usize) -> Result<Option<u32>, NotJson> {
        if depth > MAX_DEPTH {
            return Err(NotJson);
        }
        self.space();
        let here = self.line;
        let found = match path {
            Some([]) => Some(here),
            _ => None,
        };
        let rest = path.and_then(|p| p.split_first());
        match self.peek().ok_or(NotJson)? {
            b'{' => {
                self.bump();
                let mut last = None;
                self.space();
                if self.peek() == Some(b'}') {
                    self.bump();
                    return Ok(found);
                }
                loop {
                    self.space();
                    let key = self.string()?;
                    self.expect(b':')?;
                    let wanted = match rest {
                        Some((Step::Key(k), tail)) if *k == key => Some(tail),
                        _ => None,
                    };
                    if let Some(line) = self.value(wanted, depth + 1)? {
                        last = Some(line);
                    }
                    self.space();
                    match self.peek() {
                        Some(b',') => self.bump(),
                        Some(b'}') => {
                            self.bump();
                            return Ok(found.or(last));
                        }
                        _ => return Err(NotJson),
                    }
                }
            }
            b'[' => {
                self.bump();
                let mut found_in = None;
                self.space();
                if self.peek() == Some(b']') {
                    self.bump();
                    return Ok(found);
                }
                for n in 0.. {
                    let wanted = match rest {
                        Some((Step::Index(i), tail)) if *i == n => Some(tail),
                        _ => None,
                    };
                    if let Some(line) = self.value(wanted, depth + 1)? {
                        found_in = Some(line);
                    }
                    self.space();
                    match self.peek() {
                        Some(b',') => self.bump(),
                        Some(b']') => {
                            self.bump();
                            break;
                        }
                        _ => return Err(NotJson),
                    }
                }
                Ok(found.or(found_in))
            }
            b'"' => {
                self.string()?;
                Ok(found)
            }
            _ => {
                // A number, true, false or null: up to the next delimiter.
                let start = self.i;
                while let Some(c) = self.peek() {
                    if matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r' | b'/') {
                        break;
                    }
                    self.bump();
                }
                if self.i == start {
                    return Err(NotJson);
                }
                Ok(found)
            }
        }
    }

    /// A string (the cursor on its quote), decoded.
    fn string(&mut self) -> Result<String, NotJson> {
        if self.peek() != Some(b'"') {
            return Err(NotJson);
        }
        self.bump();
        let mut units: Vec<u16> = Vec::new();
        loop {
            let rest = self.b.get(self.i..).ok_or(NotJson)?;
            let run = rest
                .iter()
                .position(|&c| c == b'"' || c == b'\\')
                .ok_or(NotJson)?;
            let plain = std::str::from_utf8(&rest[..run]).map_err(|_| NotJson)?;
            units.extend(plain.encode_utf16());
            self.i += run;
            if self.peek() == Some(b'"') {
                self.bump();
                return Ok(super::string::from_utf16(&units));
            }
            // An escape.
            self.bump();
            let c = self.peek().ok_or(NotJson)?;
            self.bump();
            let unit = match c {
                b'"' => b'"' as u16,
                b'\\' => b'\\' as u16,
                b'/' => b'/' as u16,
                b'b' => 8,
                b'f' => 12,
                b'n' => b'\n' as u16,
                b'r' => b'\r' as u16,
                b't' => b'\t' as u16,
                b'u' => {
                    let hex = self.b.get(self.i..self.i + 4).ok_or(NotJson)?;
                    let hex = std::str::from_utf8(hex).map_err(|_| NotJson)?;
                    let u = u16::from_str_radix(hex, 16).map_err(|_| NotJson)?;
                    self.i += 4;
                    u
                }
                _ => return Err(NotJson),
            };
            units.push(unit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{line_of, Step};

    #[test]
    fn the_line_of_a_member_an_item_and_a_nested_value() {
        let text = "{\n  \"providers\": {\n    \"acme\": {\n      \"models\": [\n        {\"id\": \"a\"},\n        {\"id\": \"b\"}\n      ]\n    }\n  }\n}\n";
        let at = |p: &[Step]| line_of(text, p);
        assert_eq!(at(&[]), Some(1));
        assert_eq!(at(&[Step::Key("providers")]), Some(2));
        assert_eq!(at(&[Step::Key("providers"), Step::Key("acme")]), Some(3));
        let models = [
            Step::Key("providers"),
            Step::Key("acme"),
            Step::Key("models"),
        ];
        assert_eq!(at(&models), Some(4));
        assert_eq!(
            at(&[models[0], models[1], models[2], Step::Index(1)]),
            Some(6)
        );
        assert_eq!(
            at(&[
                models[0],
                models[1],
                models[2],
                Step::Index(1),
                Step::Key("id")
            ]),
            Some(6)
        );
        assert_eq!(at(&[Step::Key("nope")]), None);
        assert_eq!(at(&[models[0], models[1], models[2], Step::Index(2)]), None);
    }

    #[test]
    fn comments_escapes_and_duplicate_keys_are_read_as_the_readers_read_them() {
        let text = "// models\n{\n  /* a\n block */ \"a\\u0062\": 1,\n  \"x\": [\"]\", {\"k\": \"\\\"\"}],\n  \"a\\u0062\": 2\n}";
        // `ab` twice: JSON.parse keeps the last.
        assert_eq!(line_of(text, &[Step::Key("ab")]), Some(6));
        // A key with a lone surrogate, as the parser keeps it (found by fuzzing).
        let lone = "{\"\\udAd2\\uEe31\": \"\"}";
        let v = crate::parse(lone).unwrap();
        let (k, _) = v.as_object().unwrap().iter().next().unwrap();
        assert_eq!(line_of(lone, &[Step::Key(k.as_str())]), Some(1));
        assert_eq!(
            line_of(text, &[Step::Key("x"), Step::Index(1), Step::Key("k")]),
            Some(5)
        );
    }

    #[test]
    fn text_that_is_not_json_gives_no_line() {
        for text in [
            "",
            "{",
            "{\"a\" 1}",
            "[1,,2]",
            "\"open",
            "{\"a\": [1}",
            "\u{e9}",
        ] {
            assert_eq!(line_of(text, &[Step::Key("a")]), None, "{text:?}");
        }
        let deep = "[".repeat(100_000);
        assert_eq!(line_of(&deep, &[Step::Index(0)]), None);
    }
}

//! saphyr-parser's YAML 1.2 event parser feeding [`Builder`], and the small text workarounds for
//! the places where saphyr-parser's syntax and the npm `yaml` package's disagree.
//!
//! Each workaround only makes saphyr-parser accept or reject what `yaml` accepts or rejects,
//! without changing a value: all but the last act outside any scalar (separation whitespace, an
//! empty last line, checks before parsing), and the last one rewrites escapes into escapes of the
//! same JS string. The syntax-error ones answer one exact saphyr-parser message (hence its exact
//! version in Cargo.toml) by editing the text at the error's position, and the text is parsed
//! again. They were found with a differential corpus and fuzzer against pi's own `yaml`
//! (`core/tests/yaml_frontmatter.rs` and its data hold the corpus):
//!
//! - [`start_checks`]: a tab in the first content line's indentation, and a `...` first line
//!   followed by more content, which `yaml` rejects and saphyr-parser accepts;
//! - [`trim_last_blank_line`]: a space-only last line, which saphyr-parser reads as one more
//!   line of a trailing block scalar;
//! - [`retab`]: `key:<TAB>value`, which `yaml` accepts and saphyr-parser rejects
//!   ([`TAB_AFTER_COLON`]);
//! - [`unglue`]: `{key:[a]}` and `{key:{b: 1}}`, which `yaml` accepts and saphyr-parser rejects
//!   ([`GLUED_FLOW_VALUE`]);
//! - [`indent_flow_end`]: a flow collection's closing `]` or `}` on its own line at the
//!   indentation of the key that holds it (`tags: [\n  "a"\n]`), which `yaml` accepts and
//!   saphyr-parser rejects unless the last item was a plain scalar ([`INVALID_INDENTATION`]);
//! - [`unsurrogate`]: `"\ud83d\ude00"` and `"\ud83d"` (as JSON-minded tools escape emoji),
//!   which `yaml` accepts and saphyr-parser rejects ([`SURROGATE_ESCAPE`]).

use super::core_schema::{BuildError, Builder, Ev};
use crate::js::{from_utf16, is_lone_surrogate_char, utf16_units, Value, LONE_SURROGATE_BASE};
use saphyr_parser::{Event, Parser, ScalarStyle, ScanError, Span, SpannedEventReceiver};

/// saphyr-parser's error for a tab between a block mapping's `:` and a value starting with a
/// letter, a digit, `-` or `_` (valid YAML 1.2, and `yaml` accepts it). See [`retab`].
pub(crate) const TAB_AFTER_COLON: &str = "':' must be followed by a valid YAML whitespace";

/// saphyr-parser's error for a plain key glued to a flow collection value inside a flow mapping
/// (`{tags:[a, b]}`), which `yaml` reads as `{tags: [a, b]}`. See [`unglue`].
pub(crate) const GLUED_FLOW_VALUE: &str = "':' may not precede any of `[{` in flow mapping";

/// saphyr-parser's error for a token left of the current indentation. See [`indent_flow_end`].
pub(crate) const INVALID_INDENTATION: &str = "invalid indentation";

/// saphyr-parser's error for a `\u`/`\U` escape that is no Unicode scalar value, in a
/// double-quoted scalar; it marks the scalar's opening quote. See [`unsurrogate`].
pub(crate) const SURROGATE_ESCAPE: &str =
    "while parsing a quoted scalar, found invalid Unicode character escape code";

/// Why one parse of the text failed.
pub(crate) enum Failure {
    /// saphyr-parser refused the syntax.
    Scan(ScanError),
    /// The builder refused the document (duplicate keys, aliases, several documents).
    Build(BuildError),
}

struct Receiver(Builder);

impl<'i> SpannedEventReceiver<'i> for Receiver {
    fn on_event(&mut self, ev: Event<'i>, span: Span) {
        let line = span.start.line();
        let (tag_text, paired);
        let ev = match &ev {
            Event::DocumentStart(_) => Ev::DocStart,
            Event::Alias(a) => Ev::Alias(*a),
            Event::Scalar(v, style, anchor, tag) => {
                // A resolved tag: `!!str` arrives as handle `tag:yaml.org,2002:`, suffix `str`.
                tag_text = tag.as_ref().map(|t| format!("{}{}", t.handle, t.suffix));
                paired = pair_surrogates(v, *style);
                Ev::Scalar(
                    paired.as_deref().unwrap_or(v),
                    *style == ScalarStyle::Plain,
                    *anchor,
                    tag_text.as_deref(),
                )
            }
            Event::SequenceStart(anchor, _) => Ev::SeqStart(*anchor),
            Event::SequenceEnd => Ev::SeqEnd,
            Event::MappingStart(anchor, _) => Ev::MapStart(*anchor),
            Event::MappingEnd => Ev::MapEnd,
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => {
                Ev::Other
            }
        };
        self.0.event(ev, line);
    }
}

/// A double-quoted scalar's value as JS holds it: the escapes [`unsurrogate`] made of surrogate
/// escapes give lone surrogates (ctxlens's stored form), and JS strings pair a high surrogate
/// followed by a low one into one character (`"\ud83d\ude00"` is `"😀"`, even across an escaped
/// line break). `None` when nothing changes.
fn pair_surrogates(v: &str, style: ScalarStyle) -> Option<String> {
    let lone = |c: char| is_lone_surrogate_char(c).is_some();
    (style == ScalarStyle::DoubleQuoted && v.as_bytes().contains(&0xF4) && v.chars().any(lone))
        .then(|| from_utf16(&utf16_units(v)))
}

/// One parse of `text`: saphyr-parser's events (every document of the stream, so that a second
/// one is seen and refused) built into the JS value.
pub(crate) fn load(text: &str) -> Result<Value, Failure> {
    let mut r = Receiver(Builder::default());
    Parser::new_from_str(text)
        .load(&mut r, true)
        .map_err(Failure::Scan)?;
    r.0.finish().map_err(Failure::Build)
}

/// [`load`] without building anything: only whether saphyr-parser accepts the syntax (for the
/// parses between two workarounds, whose value would be thrown away).
pub(crate) fn scan(text: &str) -> Result<(), ScanError> {
    struct Discard;
    impl<'i> SpannedEventReceiver<'i> for Discard {
        fn on_event(&mut self, _: Event<'i>, _: Span) {}
    }
    Parser::new_from_str(text).load(&mut Discard, true)
}

/// Two things at the start of the document that saphyr-parser accepts and `yaml` rejects, checked
/// on the text before parsing. Returns the error's line (1-based) and message:
/// - a tab in the indentation of the first content line (`\tname: x`): "Tabs are not allowed as
///   indentation", unless that line opens a flow collection (as in `yaml`); on later lines
///   saphyr-parser rejects such tabs itself;
/// - a first content line that is a document end marker (`...`) with more content after it:
///   `yaml` sees an empty document, then a second one ("Source contains multiple documents").
pub(crate) fn start_checks(s: &str) -> Result<(), (usize, &'static str)> {
    let is_content = |line: &str| {
        let c = line.trim_start_matches([' ', '\t']);
        !c.is_empty() && !c.starts_with('#')
    };
    let mut lines = s.split('\n').enumerate();
    for (n, line) in lines.by_ref() {
        if !is_content(line) {
            continue;
        }
        let content = line.trim_start_matches([' ', '\t']);
        let indent = &line[..line.len() - content.len()];
        if indent.contains('\t') && !content.starts_with(['[', '{']) {
            return Err((n + 1, "Tabs are not allowed as indentation"));
        }
        let doc_end = line == "..." || line.starts_with("... ") || line.starts_with("...\t");
        if doc_end {
            if let Some((m, _)) = lines.find(|(_, l)| is_content(l)) {
                return Err((m + 1, "Source contains multiple documents"));
            }
        }
        return Ok(());
    }
    Ok(())
}

/// The text as saphyr-parser should see it. pi's yamlString ends without a line break (it stops
/// before the `\n---`), and when its last line holds only spaces (an editor's auto-indent on the
/// blank line before `---`) saphyr-parser reads that line as one more content line of a trailing
/// block scalar: `description: |\n  text\n  ` gives `"text\n\n"`, where `yaml` reads an empty
/// line that adds nothing (`"text\n"`), as long as the line is no deeper than the scalar's
/// content. A deeper line is content for `yaml` too (and saphyr-parser agrees), so it is kept.
/// The content's indentation is taken from the last non-blank line before it (exact unless that
/// line is itself more indented than the scalar's first line). Outside a block scalar the line is
/// blank either way, so dropping it changes nothing.
pub(crate) fn trim_last_blank_line(s: &str) -> &str {
    let Some(i) = s.rfind('\n') else {
        return s;
    };
    let last = &s[i + 1..];
    if last.is_empty() || !last.bytes().all(|b| b == b' ') {
        return s;
    }
    let prev_indent = s[..i]
        .split('\n')
        .rev()
        .find(|l| !l.trim().is_empty())
        .map_or(0, |l| l.len() - l.trim_start_matches(' ').len());
    if last.len() <= prev_indent {
        &s[..i + 1]
    } else {
        s
    }
}

/// Answers [`TAB_AFTER_COLON`]: YAML 1.2 and `yaml` allow tabs as the separation after a
/// mapping's `:` (`key:<TAB>value`). Those tabs are outside any scalar, so turning them into
/// spaces changes no value: this does it for the whitespace just before the character at `line`
/// (1-based) and `col` (0-based, in characters), where saphyr-parser stopped, for another parse.
/// (The error's byte `index` is not reliable after block scalars; line and column are.) Returns
/// whether the text changed.
pub(crate) fn retab(text: &mut String, line: usize, col: usize) -> bool {
    let Some(byte) = char_at(text, line, col) else {
        return false;
    };
    let before = &text[..byte];
    let gap = before.len() - before.trim_end_matches([' ', '\t']).len();
    if gap == 0 || !before[..byte - gap].ends_with(':') || !before[byte - gap..].contains('\t') {
        return false;
    }
    let fixed = before[byte - gap..].replace('\t', " ");
    text.replace_range(byte - gap..byte, &fixed);
    true
}

/// Answers [`GLUED_FLOW_VALUE`]: the error marks the `:` of `{key:[…]}`; a space after it (outside
/// any scalar, so no value changes) gives the `{key: […]}` that `yaml` read, for another parse.
/// Returns whether the text changed.
pub(crate) fn unglue(text: &mut String, line: usize, col: usize) -> bool {
    let Some(byte) = char_at(text, line, col) else {
        return false;
    };
    if !text[byte..].starts_with(':') {
        return false;
    }
    text.insert(byte + 1, ' ');
    true
}

/// Answers [`INVALID_INDENTATION`] for a flow collection's end. Lines of a flow collection inside
/// a block collection must be indented deeper than the block collection (`indentNext` in
/// `yaml`'s lexer), but `yaml` lets the closing `]` or `}` of the outermost flow collection start
/// a line one column less, at the block collection's own indentation ("technically invalid, but
/// failing here would be surprising to users"):
///
/// ```yaml
/// allowed-tools: [
///   "Read",
///   "Grep"
/// ]
/// ```
///
/// saphyr-parser accepts that only after a plain scalar. When the error marks a `]` or `}` that
/// is the first thing on its line after spaces, this indents the line by one space (separation
/// inside the flow collection, so no value changes), for another parse; the caller does it once
/// per line, so a bracket further left stays an error, as in `yaml`. (Unlike `yaml`, this also
/// lets through such a bracket of a nested flow collection, `a: [[\n]]`.) Returns whether the
/// text changed.
pub(crate) fn indent_flow_end(text: &mut String, line: usize, col: usize) -> bool {
    let Some(byte) = char_at(text, line, col) else {
        return false;
    };
    let start = text[..byte].rfind('\n').map_or(0, |i| i + 1);
    if !text[byte..].starts_with([']', '}']) || !text[start..byte].bytes().all(|b| b == b' ') {
        return false;
    }
    text.insert(start, ' ');
    true
}

/// Answers [`SURROGATE_ESCAPE`]: `yaml` turns each `\uXXXX` or `\UXXXXXXXX` escape into
/// `String.fromCodePoint(code)`, which for a surrogate code (`D800`–`DFFF`) is a lone surrogate
/// (a following low one pairs with it in the JS string); saphyr-parser refuses them. This rewrites
/// every surrogate escape of the double-quoted scalar whose opening quote is at `line` (1-based)
/// and `col` (0-based, in characters) into the `\U` escape of the character ctxlens stores a lone
/// surrogate as ([`LONE_SURROGATE_BASE`]), for another parse; [`pair_surrogates`] then pairs them
/// as JS does. Returns whether the text changed.
pub(crate) fn unsurrogate(text: &mut String, line: usize, col: usize) -> bool {
    let Some(start) = char_at(text, line, col) else {
        return false;
    };
    if !text[start..].starts_with('"') {
        return false;
    }
    let mut edits = Vec::new();
    let mut it = text[start + 1..]
        .char_indices()
        .map(|(i, c)| (start + 1 + i, c));
    while let Some((i, c)) = it.next() {
        match c {
            '"' => break,
            '\\' => {
                let Some((_, e)) = it.next() else { break };
                let len = match e {
                    'u' => 4,
                    'U' => 8,
                    _ => continue,
                };
                let hex = text.get(i + 2..i + 2 + len).unwrap_or("");
                let code = hex
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit())
                    .then(|| u32::from_str_radix(hex, 16).ok())
                    .flatten();
                if let Some(code @ 0xD800..=0xDFFF) = code {
                    edits.push((i..i + 2 + len, LONE_SURROGATE_BASE + (code - 0xD800)));
                }
            }
            _ => {}
        }
    }
    for (range, stored) in edits.iter().rev() {
        text.replace_range(range.clone(), &format!("\\U{stored:08X}"));
    }
    !edits.is_empty()
}

/// The byte offset of the character at `line` (1-based) and `col` (0-based, in characters).
fn char_at(text: &str, line: usize, col: usize) -> Option<usize> {
    let start = if line <= 1 {
        0
    } else {
        text.match_indices('\n').nth(line - 2)?.0 + 1
    };
    text[start..]
        .char_indices()
        .nth(col)
        .map(|(i, _)| start + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workarounds_touch_only_separation() {
        let mut t = "a: 1\nkey:\t\tvalue".to_string();
        assert!(retab(&mut t, 2, 6));
        assert_eq!(t, "a: 1\nkey:  value");
        assert!(!retab(&mut t, 2, 6), "nothing left to change");
        let mut t = "{tags:[a]}".to_string();
        assert!(unglue(&mut t, 1, 5));
        assert_eq!(t, "{tags: [a]}");
        assert_eq!(trim_last_blank_line("d: |\n  x\n  "), "d: |\n  x\n");
        assert_eq!(trim_last_blank_line("d: |\n  x\n    "), "d: |\n  x\n    ");
        assert_eq!(start_checks("# c\n\tname: x").map_err(|e| e.0), Err(2));
        assert!(start_checks("\t[a]").is_ok());
        assert_eq!(start_checks("...\nname: x").map_err(|e| e.0), Err(2));
        assert!(start_checks("name: x\n...").is_ok());
        let mut t = "a: 1\nb: \"x\\\"\\ud83d\\ude00 \\U0000DC00\" \\ud83d".to_string();
        assert!(unsurrogate(&mut t, 2, 3));
        assert_eq!(
            t,
            "a: 1\nb: \"x\\\"\\U0010F83D\\U0010FE00 \\U0010FC00\" \\ud83d"
        );
        assert!(!unsurrogate(&mut t, 2, 3), "nothing left to change");
        let mut t = "a: [\n  \"b\"\n]".to_string();
        assert!(indent_flow_end(&mut t, 3, 0));
        assert_eq!(t, "a: [\n  \"b\"\n ]");
        let mut t = "a: [\n  \"b\"\n x]".to_string();
        assert!(!indent_flow_end(&mut t, 3, 2), "not first on its line");
    }
}

//! SKILL.md frontmatter YAML, read the way pi reads it: `parse(yamlString)` of the npm `yaml`
//! package (2.9.0 in pi 0.85.1), called with no options (YAML 1.2, core schema, unique keys, no
//! merge keys, `maxAliasCount` 100), then `?? {}` in pi's `parseFrontmatter`
//! ([`crate::resources::parse_frontmatter`]).
//!
//! Three layers:
//! - the syntax is saphyr-parser's (a YAML 1.2 event parser), with text workarounds where its
//!   syntax and `yaml`'s disagree (`events.rs`);
//! - the events become the JS value as `yaml`'s composer and `toJS` build it: core-schema
//!   scalars, tags, duplicate keys, aliases (`core_schema.rs`);
//! - [`parse`] drives both and reports an error as [`YamlError`].
//!
//! On the corpus in `core/tests/data/yaml-frontmatter.json` (whole SKILL.md files, with pi's
//! results recorded by `scripts/yaml-oracle.mjs`), this gives pi's exact value, or throws where
//! pi throws, on all but the few cases `core/tests/yaml_frontmatter.rs` lists with their
//! reasons: JS-only values (`!!timestamp`, `!!binary`, `!!set`, `!!omap`), a NUL or BOM inside
//! a scalar, nesting deeper than saphyr-parser's limit (about 128), and a few odd inputs where
//! `yaml` is more lenient (`: a: b`, `a: |  :`, an unterminated `'…''` at the end) or stricter
//! (a nested flow collection closed at its key's column, a tab-only line after an empty value).

mod core_schema;
mod events;

use crate::js::Value;
use events::Failure;

/// A parse error (pi's `parseFrontmatter` throws; pi skips the skill). `line` is 1-based in the
/// YAML text; `message` is saphyr-parser's, or `yaml`'s for what the builder refuses.
#[derive(Clone, Debug, PartialEq)]
pub struct YamlError {
    pub line: usize,
    pub message: String,
}

/// `parse(src)` of the `yaml` package: the document's JS value (`Null` for an empty one), or
/// the error it throws.
pub fn parse(src: &str) -> Result<Value, YamlError> {
    events::start_checks(src).map_err(|(line, message)| YamlError {
        line,
        message: message.into(),
    })?;
    let mut text = events::trim_last_blank_line(src).to_string();
    // Each retry removes a tab after a `:`, a `:` glued to `[`/`{`, a surrogate escape (`\`) or
    // a closing bracket left of the indentation (`\n`), so this bounds them.
    let mut retries = text
        .bytes()
        .filter(|b| matches!(b, b'\t' | b':' | b'\\' | b'\n'))
        .count();
    // The lines whose closing bracket was indented by one already.
    let mut indented = Vec::new();
    // The first parse builds the value (most texts need no workaround); after a workaround the
    // parses only check the syntax until it passes, and the last one builds: k workarounds cost
    // k + 2 parses of the whole text (milliseconds for the few a frontmatter has; a second or so
    // for a 25 KB text with 3,000 `key:<TAB>value` lines).
    let mut build = true;
    loop {
        let scanned = if build {
            match events::load(&text) {
                Ok(v) => return Ok(v),
                Err(Failure::Build(e)) => {
                    return Err(YamlError {
                        line: e.line,
                        message: e.message.into(),
                    })
                }
                Err(Failure::Scan(e)) => Err(e),
            }
        } else {
            events::scan(&text)
        };
        let e = match scanned {
            Ok(()) => {
                build = true;
                continue;
            }
            Err(e) => e,
        };
        let (line, col) = (e.marker().line(), e.marker().col());
        let fixed = retries > 0
            && match e.info() {
                events::TAB_AFTER_COLON => events::retab(&mut text, line, col),
                events::GLUED_FLOW_VALUE => events::unglue(&mut text, line, col),
                events::SURROGATE_ESCAPE => events::unsurrogate(&mut text, line, col),
                events::INVALID_INDENTATION if !indented.contains(&line) => {
                    indented.push(line);
                    events::indent_flow_end(&mut text, line, col)
                }
                _ => false,
            };
        if !fixed {
            return Err(YamlError {
                line,
                message: e.info().to_string(),
            });
        }
        retries -= 1;
        build = false;
    }
}

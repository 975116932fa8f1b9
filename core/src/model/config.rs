//! models.json loading (CA/core/model-config.js) and config values (CA/core/resolve-config-value.js).

use std::collections::BTreeMap;

use crate::diagnostics::Diagnostic;
use crate::inputs::SourceText;
use crate::js::locate::Step;
use crate::js::{self, is_js_whitespace, Object, Value};

/// `stripJsonComments(input)` (CA/utils/json.js:2–6): removes `//` comments and trailing commas
/// outside string literals.
pub fn strip_json_comments(input: &str) -> String {
    let pass1 = regex_like_replace(input, |chars, i| {
        if chars[i] == '/' && chars.get(i + 1) == Some(&'/') {
            let end = chars[i..]
                .iter()
                .position(|c| *c == '\n')
                .map_or(chars.len(), |p| i + p);
            return Some((end, String::new()));
        }
        None
    });
    regex_like_replace(&pass1, |chars, i| {
        if chars[i] != ',' {
            return None;
        }
        let mut j = i + 1;
        while j < chars.len() && is_js_whitespace(chars[j]) {
            j += 1;
        }
        if j < chars.len() && (chars[j] == '}' || chars[j] == ']') {
            return Some((j + 1, chars[i + 1..=j].iter().collect()));
        }
        None
    })
}

/// Scans like a global regex `"(?:\\.|[^"\\])*"|<other>`: string literals are kept, and at
/// other positions `other` may consume `[i, end)` and substitute text.
fn regex_like_replace(
    input: &str,
    other: impl Fn(&[char], usize) -> Option<(usize, String)>,
) -> String {
    let chars: Vec<char> = input.chars().collect();
    let mut out = String::with_capacity(input.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '"' {
            if let Some(end) = match_string_literal(&chars, i) {
                out.extend(&chars[i..end]);
                i = end;
                continue;
            }
        } else if let Some((end, replacement)) = other(&chars, i) {
            out.push_str(&replacement);
            i = end;
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// `"(?:\\.|[^"\\])*"` at `start`: the end of the match, if any (`.` excludes line terminators).
fn match_string_literal(chars: &[char], start: usize) -> Option<usize> {
    let mut j = start + 1;
    while j < chars.len() {
        match chars[j] {
            '"' => return Some(j + 1),
            '\\' => match chars.get(j + 1) {
                Some('\n' | '\r' | '\u{2028}' | '\u{2029}') | None => return None,
                Some(_) => j += 2,
            },
            _ => j += 1,
        }
    }
    None
}

/// One part of a config value template (CA/core/resolve-config-value.js:21–64).
#[derive(Clone, Debug, PartialEq)]
enum ConfigPart {
    Literal(String),
    Env(String),
}

fn is_env_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_env_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `parseConfigValueTemplate(config)` (CA/core/resolve-config-value.js:21–64): `$NAME`,
/// `${NAME}`, `$$` and `$!` escapes.
fn parse_config_value_template(config: &str) -> Vec<ConfigPart> {
    let mut parts: Vec<ConfigPart> = Vec::new();
    let literal = |parts: &mut Vec<ConfigPart>, s: &str| {
        if s.is_empty() {
            return;
        }
        if let Some(ConfigPart::Literal(prev)) = parts.last_mut() {
            prev.push_str(s);
        } else {
            parts.push(ConfigPart::Literal(s.to_string()));
        }
    };
    let chars: Vec<char> = config.chars().collect();
    let text = |a: usize, b: usize| chars[a..b].iter().collect::<String>();
    let mut i = 0;
    while i < chars.len() {
        let Some(dollar) = chars[i..].iter().position(|c| *c == '$').map(|p| i + p) else {
            literal(&mut parts, &text(i, chars.len()));
            break;
        };
        literal(&mut parts, &text(i, dollar));
        match chars.get(dollar + 1) {
            Some(c @ ('$' | '!')) => {
                literal(&mut parts, &c.to_string());
                i = dollar + 2;
            }
            Some('{') => match chars[dollar + 2..]
                .iter()
                .position(|c| *c == '}')
                .map(|p| dollar + 2 + p)
            {
                None => {
                    literal(&mut parts, "$");
                    i = dollar + 1;
                }
                Some(end) => {
                    let name = text(dollar + 2, end);
                    let valid = name.chars().next().is_some_and(is_env_name_start)
                        && name.chars().all(is_env_name_char);
                    if valid {
                        parts.push(ConfigPart::Env(name));
                    } else {
                        literal(&mut parts, &text(dollar, end + 1));
                    }
                    i = end + 1;
                }
            },
            Some(c) if is_env_name_start(*c) => {
                let len = chars[dollar + 1..]
                    .iter()
                    .take_while(|c| is_env_name_char(**c))
                    .count();
                parts.push(ConfigPart::Env(text(dollar + 1, dollar + 1 + len)));
                i = dollar + 1 + len;
            }
            _ => {
                literal(&mut parts, "$");
                i = dollar + 1;
            }
        }
    }
    parts
}

/// `getConfigValueEnvVarNames(config)` (CA/core/resolve-config-value.js:103–106).
pub fn config_value_env_var_names(config: &str) -> Vec<String> {
    if config.starts_with('!') {
        return Vec::new();
    }
    let mut names: Vec<String> = Vec::new();
    for p in parse_config_value_template(config) {
        if let ConfigPart::Env(n) = p {
            if !names.contains(&n) {
                names.push(n);
            }
        }
    }
    names
}

/// `resolveConfigValue(config, env)` for what can be done offline
/// (CA/core/resolve-config-value.js:123–129): templates resolve against `env` (an empty value
/// counts as missing); `!command` values cannot run here and are returned unresolved.
pub fn resolve_config_value(config: &str, env: &BTreeMap<String, String>) -> Option<String> {
    if config.starts_with('!') {
        return Some(config.to_string());
    }
    let mut out = String::new();
    for p in parse_config_value_template(config) {
        match p {
            ConfigPart::Literal(s) => out.push_str(&s),
            ConfigPart::Env(n) => out.push_str(env.get(&n).filter(|v| !v.is_empty())?),
        }
    }
    Some(out)
}

/// Where in models.json a schema error is: the steps to it, which give pi's words for it
/// (`providers.acme.models.0`) and its line.
#[derive(Clone, Debug, Default)]
struct At(Vec<Owned>);

#[derive(Clone, Debug)]
enum Owned {
    Key(String),
    Index(usize),
}

impl At {
    fn key(&self, k: &str) -> At {
        let mut at = self.clone();
        at.0.push(Owned::Key(k.to_string()));
        at
    }

    fn index(&self, i: usize) -> At {
        let mut at = self.clone();
        at.0.push(Owned::Index(i));
        at
    }

    /// `PATH: why`, at this place (`root` for the file's value itself).
    fn says(&self, why: &str) -> SchemaError {
        let path: Vec<String> = self
            .0
            .iter()
            .map(|s| match s {
                Owned::Key(k) => k.clone(),
                Owned::Index(i) => i.to_string(),
            })
            .collect();
        let path = if path.is_empty() {
            "root".to_string()
        } else {
            path.join(".")
        };
        SchemaError {
            at: self.clone(),
            message: format!("{path}: {why}"),
        }
    }

    /// The line of this place in `text` (models.json as written).
    fn line(&self, text: &str) -> Option<u32> {
        let steps: Vec<Step> = self
            .0
            .iter()
            .map(|s| match s {
                Owned::Key(k) => Step::Key(k),
                Owned::Index(i) => Step::Index(*i),
            })
            .collect();
        crate::js::locate::line_of(text, &steps)
    }
}

/// A models.json that pi's schema refuses: where, and pi's words.
#[derive(Debug)]
struct SchemaError {
    at: At,
    message: String,
}

/// Why models.json does not match pi's TypeBox schema (CA/core/model-config.js:114–293), if it
/// does not. Simplified: the types of the members pi reads are checked.
fn validate_models_config(root: &Value) -> Result<(), SchemaError> {
    fn opt_type(
        o: &Object,
        key: &str,
        ok: impl Fn(&Value) -> bool,
        at: &At,
    ) -> Result<(), SchemaError> {
        match o.get(key) {
            Some(v) if !ok(v) => Err(at.key(key).says("has the wrong type")),
            _ => Ok(()),
        }
    }
    let nonempty_str = |v: &Value| v.as_str().is_some_and(|s| !s.is_empty());
    let string_record = |v: &Value| {
        v.as_object()
            .is_some_and(|o| o.iter().all(|(_, x)| x.as_str().is_some()))
    };
    let record = |v: &Value| v.as_object().is_some();
    let bool_ = |v: &Value| v.as_bool().is_some();
    let number = |v: &Value| v.as_f64().is_some();
    let input = |v: &Value| {
        v.as_array().is_some_and(|a| {
            a.iter()
                .all(|x| matches!(x.as_str(), Some("text" | "image")))
        })
    };
    let tlm = |v: &Value| {
        v.as_object()
            .is_some_and(|o| o.iter().all(|(_, x)| x.is_null() || x.as_str().is_some()))
    };
    let cost = |v: &Value| v.as_object().is_some();
    let model_fields = |o: &Object, at: &At| -> Result<(), SchemaError> {
        opt_type(o, "name", nonempty_str, at)?;
        opt_type(o, "reasoning", bool_, at)?;
        opt_type(o, "thinkingLevelMap", tlm, at)?;
        opt_type(o, "input", input, at)?;
        opt_type(o, "cost", cost, at)?;
        opt_type(o, "contextWindow", number, at)?;
        opt_type(o, "maxTokens", number, at)?;
        opt_type(o, "samplingParams", record, at)?;
        opt_type(o, "headers", string_record, at)?;
        opt_type(o, "compat", record, at)
    };
    let top = At::default();
    let root = root
        .as_object()
        .ok_or_else(|| top.says("must be an object"))?;
    let providers_at = top.key("providers");
    let providers = root
        .get("providers")
        // Said of `providers`, found at the file's value (the member is not there).
        .ok_or_else(|| SchemaError {
            at: top.clone(),
            ..providers_at.says("is required")
        })?
        .as_object()
        .ok_or_else(|| providers_at.says("must be an object"))?;
    for (pid, p) in providers.iter() {
        let at = providers_at.key(pid);
        let p = p.as_object().ok_or_else(|| at.says("must be an object"))?;
        for key in ["name", "baseUrl", "apiKey", "api"] {
            opt_type(p, key, nonempty_str, &at)?;
        }
        opt_type(p, "oauth", |v| v.as_str() == Some("radius"), &at)?;
        opt_type(p, "headers", string_record, &at)?;
        opt_type(p, "compat", record, &at)?;
        opt_type(p, "authHeader", bool_, &at)?;
        if let Some(models) = p.get("models") {
            let models_at = at.key("models");
            let models = models
                .as_array()
                .ok_or_else(|| models_at.says("must be an array"))?;
            for (i, m) in models.iter().enumerate() {
                let m_at = models_at.index(i);
                let m = m
                    .as_object()
                    .ok_or_else(|| m_at.says("must be an object"))?;
                match m.get("id") {
                    Some(v) if nonempty_str(v) => {}
                    _ => return Err(m_at.key("id").says("must be a non-empty string")),
                }
                opt_type(m, "api", nonempty_str, &m_at)?;
                opt_type(m, "baseUrl", nonempty_str, &m_at)?;
                model_fields(m, &m_at)?;
            }
        }
        if let Some(ov) = p.get("modelOverrides") {
            let ov_at = at.key("modelOverrides");
            let ov = ov
                .as_object()
                .ok_or_else(|| ov_at.says("must be an object"))?;
            for (id, o) in ov.iter() {
                let o_at = ov_at.key(id);
                let o = o
                    .as_object()
                    .ok_or_else(|| o_at.says("must be an object"))?;
                model_fields(o, &o_at)?;
            }
        }
    }
    Ok(())
}

/// `ModelConfig.load` (CA/core/model-config.js:321–354): BOM and comments stripped, parsed,
/// validated. A broken file is reported and ignored entirely, as pi does.
pub(super) fn load_models_config(src: &SourceText, diags: &mut Vec<Diagnostic>) -> Option<Object> {
    let text = src.text.strip_prefix('\u{feff}').unwrap_or(&src.text);
    // Comment stripping keeps every newline, so positions map back to the file's lines.
    let parsed = match js::parse_with_position(&strip_json_comments(text)) {
        Ok(v) => v,
        Err((e, line, column)) => {
            let line = u32::try_from(line).ok();
            diags.push(
                Diagnostic::error(
                    &src.name,
                    line,
                    format!(
                        "Failed to parse models.json: {} (column {column})",
                        e.message
                    ),
                )
                .skipping("models.json"),
            );
            return None;
        }
    };
    if let Err(e) = validate_models_config(&parsed) {
        diags.push(
            Diagnostic::error(
                &src.name,
                e.at.line(text).or(Some(1)),
                format!("Invalid models.json schema: {}", e.message),
            )
            .skipping("models.json"),
        );
        return None;
    }
    parsed.get("providers").and_then(Value::as_object).cloned()
}

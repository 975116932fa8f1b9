//! Models: pi's built-in catalog and models.json merged as pi's provider composer does; the
//! thinking-level clamp (INVENTORY §6, A4); the choice of model and thinking level (S23, S24).

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::diagnostics::Diagnostic;
use crate::inputs::SourceText;
use crate::js::{self, is_js_whitespace, js_trim, Object, Value};
use crate::pi::Pi;
use crate::trace::{Event, EventKind, Events};

/// A resolved pi `Model` object, kept as the object pi would hold (its key order matters where a
/// protocol serializes it, and adapters read optional `compat` fields dynamically).
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    pub obj: Object,
}

impl Model {
    pub fn id(&self) -> &str {
        self.obj.get_str("id").unwrap_or("")
    }
    pub fn name(&self) -> &str {
        self.obj.get_str("name").unwrap_or("")
    }
    pub fn api(&self) -> &str {
        self.obj.get_str("api").unwrap_or("")
    }
    pub fn provider(&self) -> &str {
        self.obj.get_str("provider").unwrap_or("")
    }
    pub fn base_url(&self) -> &str {
        self.obj.get_str("baseUrl").unwrap_or("")
    }
    /// `model.reasoning` (truthy).
    pub fn reasoning(&self) -> bool {
        self.obj.get("reasoning").is_some_and(Value::truthy)
    }
    /// `model.input.includes("image")`.
    pub fn supports_images(&self) -> bool {
        self.obj
            .get_array("input")
            .is_some_and(|a| a.iter().any(|v| v.as_str() == Some("image")))
    }
    pub fn context_window(&self) -> f64 {
        self.obj.get_f64("contextWindow").unwrap_or(0.0)
    }
    pub fn max_tokens(&self) -> f64 {
        self.obj.get_f64("maxTokens").unwrap_or(0.0)
    }
    pub fn compat(&self) -> Option<&Object> {
        self.obj.get_object("compat")
    }
    /// `model.compat?.[key]`, `None` when absent (JS `undefined`).
    pub fn compat_value(&self, key: &str) -> Option<&Value> {
        self.compat().and_then(|c| c.get(key))
    }
    pub fn thinking_level_map(&self) -> Option<&Object> {
        self.obj.get_object("thinkingLevelMap")
    }
    pub fn headers(&self) -> Option<&Object> {
        self.obj.get_object("headers")
    }
    /// "provider/id".
    pub fn reference(&self) -> String {
        format!("{}/{}", self.provider(), self.id())
    }
}

/// Thinking levels in pi's order.
pub const THINKING_LEVELS: [&str; 7] = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];

/// `isValidThinkingLevel(level)` (CA/cli/args.js:6–9).
pub fn is_valid_thinking_level(level: &str) -> bool {
    THINKING_LEVELS.contains(&level)
}

// ---------------------------------------------------------------------------------------------
// Objects whose members may be `undefined`.
// ---------------------------------------------------------------------------------------------

/// A model object while pi builds it: members may hold `undefined` (`None`), which keeps the
/// key's position for a later spread or assignment, as in JS, and is dropped at the end (as
/// `JSON.stringify` drops it).
#[derive(Clone, Debug, Default)]
struct JsObj {
    entries: Vec<(String, Option<Value>)>,
}

impl JsObj {
    fn from_object(o: &Object) -> JsObj {
        JsObj {
            entries: o
                .iter()
                .map(|(k, v)| (k.to_string(), Some(v.clone())))
                .collect(),
        }
    }
    /// `obj[key] = value` (position kept when the key exists).
    fn set(&mut self, key: &str, value: Option<Value>) {
        match self.entries.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value,
            None => self.entries.push((key.to_string(), value)),
        }
    }
    fn get(&self, key: &str) -> Option<&Value> {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.as_ref())
    }
    fn get_str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Value::as_str)
    }
    fn into_object(self) -> Object {
        let mut o = Object::with_capacity(self.entries.len());
        for (k, v) in self.entries {
            o.insert_opt(k, v);
        }
        o
    }
}

/// `a ?? b` over optional values (`null` is nullish too).
fn nullish_or(a: Option<&Value>, b: Option<&Value>) -> Option<Value> {
    match a {
        Some(v) if !v.is_null() => Some(v.clone()),
        _ => b.cloned(),
    }
}

/// The members `{...v}` copies from a value: an object's own members, an array's or string's
/// indices; nothing for other values.
fn spread_into(target: &mut Object, v: Option<&Value>) {
    match v {
        Some(Value::Object(o)) => target.spread(o),
        Some(Value::Array(a)) => {
            for (i, x) in a.iter().enumerate() {
                target.insert(i.to_string(), x.clone());
            }
        }
        Some(Value::String(s)) => {
            for (i, u) in js::utf16_units(s).iter().enumerate() {
                target.insert(i.to_string(), Value::String(js::from_utf16(&[*u]).into()));
            }
        }
        _ => {}
    }
}

/// `{...a, ...b}`.
fn spread2(a: Option<&Value>, b: Option<&Value>) -> Value {
    let mut o = Object::new();
    spread_into(&mut o, a);
    spread_into(&mut o, b);
    Value::Object(o)
}

fn is_object(v: Option<&Value>) -> bool {
    matches!(v, Some(Value::Object(_)))
}

// ---------------------------------------------------------------------------------------------
// CA/core/provider-composer.js
// ---------------------------------------------------------------------------------------------

/// `mergeCompat(base, override)` (CA/core/provider-composer.js:5–21): a shallow merge, with a
/// deep merge of the routing and chat-template objects.
fn merge_compat(pi: &Pi, base: Option<&Value>, over: Option<&Value>) -> Option<Value> {
    let Some(over) = over.filter(|o| o.truthy()) else {
        return base.cloned();
    };
    let Value::Object(mut merged) = spread2(base, Some(over)) else {
        return None;
    };
    let keys = pi
        .data
        .defaults
        .get("compatDeepMergeKeys")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for key in keys.iter().filter_map(Value::as_str) {
        let base_value = base.and_then(|b| b.get(key));
        let over_value = over.get(key);
        if is_object(base_value) || is_object(over_value) {
            merged.insert(key, spread2(base_value, over_value));
        }
    }
    Some(Value::Object(merged))
}

/// `applyModelOverride(model, override)` (CA/core/provider-composer.js:22–47).
fn apply_model_override(pi: &Pi, model: &JsObj, over: &Value) -> JsObj {
    let mut m = model.clone();
    m.set("name", nullish_or(over.get("name"), model.get("name")));
    m.set(
        "reasoning",
        nullish_or(over.get("reasoning"), model.get("reasoning")),
    );
    let tlm = match over.get("thinkingLevelMap").filter(|v| v.truthy()) {
        Some(o) => Some(spread2(model.get("thinkingLevelMap"), Some(o))),
        None => model.get("thinkingLevelMap").cloned(),
    };
    m.set("thinkingLevelMap", tlm);
    m.set("input", nullish_or(over.get("input"), model.get("input")));
    let cost = match over.get("cost").filter(|v| v.truthy()) {
        Some(oc) => {
            let mc = model.get("cost");
            let mut c = Object::new();
            for k in ["input", "output", "cacheRead", "cacheWrite", "tiers"] {
                c.insert_opt(k, nullish_or(oc.get(k), mc.and_then(|x| x.get(k))));
            }
            Some(Value::Object(c))
        }
        None => model.get("cost").cloned(),
    };
    m.set("cost", cost);
    m.set(
        "contextWindow",
        nullish_or(over.get("contextWindow"), model.get("contextWindow")),
    );
    m.set(
        "maxTokens",
        nullish_or(over.get("maxTokens"), model.get("maxTokens")),
    );
    let sp = match over.get("samplingParams").filter(|v| v.truthy()) {
        Some(o) => Some(spread2(model.get("samplingParams"), Some(o))),
        None => model.get("samplingParams").cloned(),
    };
    m.set("samplingParams", sp);
    m.set(
        "compat",
        merge_compat(pi, model.get("compat"), over.get("compat")),
    );
    m
}

/// `modelFromJson(providerId, definition, providerConfig, defaults)`
/// (CA/core/provider-composer.js:48–78): a custom model with pi's defaults, in pi's key order.
fn model_from_json(
    pi: &Pi,
    provider_id: &str,
    def: &Value,
    config: &Value,
    defaults: Option<&JsObj>,
) -> Result<JsObj, String> {
    let model_id = crate::messages::to_js_string(def.get("id"));
    let api = nullish_or(def.get("api"), config.get("api"))
        .or_else(|| defaults.and_then(|d| d.get("api")).cloned());
    let Some(api) = api.filter(|a| a.truthy()) else {
        return Err(format!("Provider {provider_id}, model {model_id}: no \"api\" specified. Set at provider or model level."));
    };
    let base_url = nullish_or(def.get("baseUrl"), config.get("baseUrl"))
        .or_else(|| defaults.and_then(|d| d.get("baseUrl")).cloned());
    let Some(base_url) = base_url.filter(|b| b.truthy()) else {
        return Err(format!(
            "Provider {provider_id}: \"baseUrl\" is required when defining custom models."
        ));
    };
    for (key, what) in [
        ("contextWindow", "contextWindow"),
        ("maxTokens", "maxTokens"),
    ] {
        if let Some(v) = def.get(key) {
            if crate::messages::to_number(Some(v)) <= 0.0 || v.is_null() {
                return Err(format!(
                    "Provider {provider_id}, model {model_id}: invalid {what}"
                ));
            }
        }
    }
    let d = pi
        .data
        .defaults
        .get("customModel")
        .and_then(|c| c.get("defaults"));
    let dflt = |k: &str| d.and_then(|d| d.get(k)).cloned();
    let mut m = JsObj::default();
    m.set("id", def.get("id").cloned());
    m.set("name", nullish_or(def.get("name"), def.get("id")));
    m.set("api", Some(api));
    m.set("provider", Some(Value::str(provider_id)));
    m.set("baseUrl", Some(base_url));
    m.set(
        "reasoning",
        nullish_or(def.get("reasoning"), dflt("reasoning").as_ref()),
    );
    m.set("thinkingLevelMap", def.get("thinkingLevelMap").cloned());
    m.set(
        "input",
        nullish_or(def.get("input"), dflt("input").as_ref()),
    );
    m.set("cost", nullish_or(def.get("cost"), dflt("cost").as_ref()));
    m.set(
        "contextWindow",
        nullish_or(def.get("contextWindow"), dflt("contextWindow").as_ref()),
    );
    m.set(
        "maxTokens",
        nullish_or(def.get("maxTokens"), dflt("maxTokens").as_ref()),
    );
    m.set("samplingParams", def.get("samplingParams").cloned());
    m.set("headers", None);
    m.set(
        "compat",
        merge_compat(pi, config.get("compat"), def.get("compat")),
    );
    Ok(m)
}

/// `findModelDefaults(models, modelId, api)` (CA/core/provider-composer.js:79–84).
fn find_model_defaults<'a>(
    models: &'a [JsObj],
    model_id: Option<&Value>,
    api: Option<&Value>,
) -> Option<&'a JsObj> {
    models
        .iter()
        .find(|m| model_id.is_some() && m.get("id") == model_id)
        .or_else(|| {
            api.filter(|a| a.truthy())
                .and_then(|a| models.iter().find(|m| m.get("api") == Some(a)))
        })
        .or_else(|| {
            models
                .iter()
                .find(|m| m.get_str("api") == Some("openai-completions"))
        })
        .or_else(|| models.first())
}

/// `applyModelsJson(providerId, baseModels, config)` (CA/core/provider-composer.js:85–117).
fn apply_models_json(
    pi: &Pi,
    provider_id: &str,
    base: &[JsObj],
    config: &Value,
) -> Result<Vec<JsObj>, String> {
    let truthy = |k: &str| config.get(k).is_some_and(Value::truthy);
    if truthy("oauth") && !truthy("baseUrl") {
        return Err(format!(
            "Provider {provider_id}: \"baseUrl\" is required when \"oauth\" is set."
        ));
    }
    let has_overrides = config
        .get("modelOverrides")
        .and_then(Value::as_object)
        .is_some_and(|o| !o.is_empty());
    let has_models = config
        .get("models")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty());
    if !has_models
        && !truthy("baseUrl")
        && !truthy("headers")
        && !truthy("compat")
        && !has_overrides
        && !truthy("apiKey")
        && !truthy("oauth")
        && config.get("authHeader").is_none()
    {
        return Err(format!("Provider {provider_id}: must specify \"baseUrl\", \"headers\", \"compat\", \"modelOverrides\", or \"models\"."));
    }
    let radius = config.get_str("oauth") == Some("radius");
    let mut models: Vec<JsObj> = base
        .iter()
        .map(|m| {
            let mut m = m.clone();
            if !radius {
                m.set(
                    "baseUrl",
                    nullish_or(config.get("baseUrl"), m.get("baseUrl")),
                );
            }
            m.set(
                "compat",
                merge_compat(pi, m.get("compat"), config.get("compat")),
            );
            m
        })
        .collect();
    for def in config
        .get("models")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let existing = models.iter().position(|m| m.get("id") == def.get("id"));
        let api = nullish_or(def.get("api"), config.get("api"));
        let defaults = find_model_defaults(&models, def.get("id"), api.as_ref()).cloned();
        let model = model_from_json(pi, provider_id, def, config, defaults.as_ref())?;
        match existing {
            Some(i) => models[i] = model,
            None => models.push(model),
        }
    }
    Ok(models)
}

/// The models of one provider after `composeModelProvider`'s `getModels`
/// (CA/core/provider-composer.js:298–307): models.json layered on the built-ins, then
/// `modelOverrides`.
fn compose_provider_models(
    pi: &Pi,
    provider_id: &str,
    base: &[JsObj],
    config: &Value,
) -> Result<Vec<JsObj>, String> {
    let models = apply_models_json(pi, provider_id, base, config)?;
    let overrides = config.get("modelOverrides");
    Ok(models
        .into_iter()
        .map(|m| {
            let id = m.get_str("id").map(String::from);
            match id
                .as_deref()
                .and_then(|id| overrides.and_then(|o| o.get(id)))
            {
                Some(over) => apply_model_override(pi, &m, over),
                None => m,
            }
        })
        .collect())
}

// ---------------------------------------------------------------------------------------------
// models.json loading (CA/core/model-config.js) and config values (resolve-config-value.js).
// ---------------------------------------------------------------------------------------------

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

/// Why models.json does not match pi's TypeBox schema (CA/core/model-config.js:114–293), if it
/// does not. Simplified: the types of the members pi reads are checked.
fn validate_models_config(root: &Value) -> Result<(), String> {
    fn opt_type(
        o: &Object,
        key: &str,
        ok: impl Fn(&Value) -> bool,
        path: &str,
    ) -> Result<(), String> {
        match o.get(key) {
            Some(v) if !ok(v) => Err(format!("{path}.{key}: has the wrong type")),
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
    let model_fields = |o: &Object, path: &str| -> Result<(), String> {
        opt_type(o, "name", nonempty_str, path)?;
        opt_type(o, "reasoning", bool_, path)?;
        opt_type(o, "thinkingLevelMap", tlm, path)?;
        opt_type(o, "input", input, path)?;
        opt_type(o, "cost", cost, path)?;
        opt_type(o, "contextWindow", number, path)?;
        opt_type(o, "maxTokens", number, path)?;
        opt_type(o, "samplingParams", record, path)?;
        opt_type(o, "headers", string_record, path)?;
        opt_type(o, "compat", record, path)
    };
    let root = root.as_object().ok_or("root: must be an object")?;
    let providers = root.get("providers").ok_or("providers: is required")?;
    let providers = providers
        .as_object()
        .ok_or("providers: must be an object")?;
    for (pid, p) in providers.iter() {
        let path = format!("providers.{pid}");
        let p = p
            .as_object()
            .ok_or_else(|| format!("{path}: must be an object"))?;
        for key in ["name", "baseUrl", "apiKey", "api"] {
            opt_type(p, key, nonempty_str, &path)?;
        }
        opt_type(p, "oauth", |v| v.as_str() == Some("radius"), &path)?;
        opt_type(p, "headers", string_record, &path)?;
        opt_type(p, "compat", record, &path)?;
        opt_type(p, "authHeader", bool_, &path)?;
        if let Some(models) = p.get("models") {
            let models = models
                .as_array()
                .ok_or_else(|| format!("{path}.models: must be an array"))?;
            for (i, m) in models.iter().enumerate() {
                let mpath = format!("{path}.models.{i}");
                let m = m
                    .as_object()
                    .ok_or_else(|| format!("{mpath}: must be an object"))?;
                match m.get("id") {
                    Some(v) if nonempty_str(v) => {}
                    _ => return Err(format!("{mpath}.id: must be a non-empty string")),
                }
                opt_type(m, "api", nonempty_str, &mpath)?;
                opt_type(m, "baseUrl", nonempty_str, &mpath)?;
                model_fields(m, &mpath)?;
            }
        }
        if let Some(ov) = p.get("modelOverrides") {
            let ov = ov
                .as_object()
                .ok_or_else(|| format!("{path}.modelOverrides: must be an object"))?;
            for (id, o) in ov.iter() {
                let opath = format!("{path}.modelOverrides.{id}");
                let o = o
                    .as_object()
                    .ok_or_else(|| format!("{opath}: must be an object"))?;
                model_fields(o, &opath)?;
            }
        }
    }
    Ok(())
}

/// `ModelConfig.load` (CA/core/model-config.js:321–354): BOM and comments stripped, parsed,
/// validated. A broken file is reported and ignored entirely, as pi does.
fn load_models_config(src: &SourceText, diags: &mut Vec<Diagnostic>) -> Option<Object> {
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
    if let Err(why) = validate_models_config(&parsed) {
        diags.push(
            Diagnostic::error(
                &src.name,
                None,
                format!("Invalid models.json schema: {why}"),
            )
            .skipping("models.json"),
        );
        return None;
    }
    parsed.get("providers").and_then(Value::as_object).cloned()
}

// ---------------------------------------------------------------------------------------------
// Auth, as far as it can be known offline.
// ---------------------------------------------------------------------------------------------

/// The env vars a built-in provider's API-key auth reads (AI/env-api-keys.js:63–112).
fn builtin_api_key_env_vars(provider: &str) -> &'static [&'static str] {
    match provider {
        "github-copilot" => &["COPILOT_GITHUB_TOKEN"],
        "anthropic" => &[
            "ANTHROPIC_AUTH_TOKEN",
            "ANTHROPIC_OAUTH_TOKEN",
            "ANTHROPIC_API_KEY",
        ],
        "ant-ling" => &["ANT_LING_API_KEY"],
        "qwen-token-plan" | "qwen-token-plan-individual" => &["QWEN_TOKEN_PLAN_API_KEY"],
        "qwen-token-plan-cn" => &["QWEN_TOKEN_PLAN_CN_API_KEY"],
        "openai" => &["OPENAI_API_KEY"],
        "azure-openai-responses" => &["AZURE_OPENAI_API_KEY"],
        "nvidia" => &["NVIDIA_API_KEY"],
        "deepseek" => &["DEEPSEEK_API_KEY"],
        "google" => &["GEMINI_API_KEY"],
        "google-vertex" => &["GOOGLE_CLOUD_API_KEY"],
        "groq" => &["GROQ_API_KEY"],
        "cerebras" => &["CEREBRAS_API_KEY"],
        "xai" => &["XAI_API_KEY"],
        "radius" => &["RADIUS_API_KEY"],
        "openrouter" => &["OPENROUTER_API_KEY"],
        "vercel-ai-gateway" => &["AI_GATEWAY_API_KEY"],
        "zai" => &["ZAI_API_KEY"],
        "zai-coding-cn" => &["ZAI_CODING_CN_API_KEY"],
        "mistral" => &["MISTRAL_API_KEY"],
        "minimax" => &["MINIMAX_API_KEY"],
        "minimax-cn" => &["MINIMAX_CN_API_KEY"],
        "moonshotai" | "moonshotai-cn" => &["MOONSHOT_API_KEY"],
        "huggingface" => &["HF_TOKEN"],
        "fireworks" => &["FIREWORKS_API_KEY"],
        "together" => &["TOGETHER_API_KEY"],
        "baseten" => &["BASETEN_API_KEY"],
        "opencode" | "opencode-go" => &["OPENCODE_API_KEY"],
        "kimi-coding" => &["KIMI_API_KEY"],
        "cloudflare-workers-ai" | "cloudflare-ai-gateway" => &["CLOUDFLARE_API_KEY"],
        "xiaomi" => &["XIAOMI_API_KEY"],
        "xiaomi-token-plan-cn" => &["XIAOMI_TOKEN_PLAN_CN_API_KEY"],
        "xiaomi-token-plan-ams" => &["XIAOMI_TOKEN_PLAN_AMS_API_KEY"],
        "xiaomi-token-plan-sgp" => &["XIAOMI_TOKEN_PLAN_SGP_API_KEY"],
        _ => &[],
    }
}

/// A built-in provider's key from the environment (`getEnvApiKey`, AI/env-api-keys.js:120–160),
/// and whether its auth is configured at all (AWS credentials count for Bedrock).
fn builtin_env_auth(provider: &str, env: &BTreeMap<String, String>) -> (Option<String>, bool) {
    let set = |k: &str| env.get(k).is_some_and(|v| !v.is_empty());
    let found: Vec<&str> = builtin_api_key_env_vars(provider)
        .iter()
        .copied()
        .filter(|k| set(k))
        .collect();
    let key_var = if provider == "anthropic" {
        found.iter().find(|k| **k != "ANTHROPIC_AUTH_TOKEN")
    } else {
        found.first()
    };
    let key = key_var.and_then(|k| env.get(*k)).cloned();
    let aws = provider == "amazon-bedrock"
        && (set("AWS_PROFILE")
            || (set("AWS_ACCESS_KEY_ID") && set("AWS_SECRET_ACCESS_KEY"))
            || set("AWS_BEARER_TOKEN_BEDROCK")
            || set("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")
            || set("AWS_CONTAINER_CREDENTIALS_FULL_URI")
            || set("AWS_WEB_IDENTITY_TOKEN_FILE"));
    (key, !found.is_empty() || aws)
}

// ---------------------------------------------------------------------------------------------
// The registry.
// ---------------------------------------------------------------------------------------------

/// All models pi knows: the built-in catalog overlaid by models.json.
#[derive(Clone, Debug, Default)]
pub struct Registry {
    /// In pi's order: built-in providers as the catalog lists them, then providers that only
    /// models.json defines.
    pub models: Vec<Model>,
    /// Per provider: the API key pi would resolve (models.json `apiKey` with `$ENV` references
    /// resolved, or a built-in provider's env var), used for auth checks (S23) and OAuth
    /// detection (AN5). A `!command` key is kept unresolved.
    pub api_keys: Vec<(String, String)>,
    /// Providers whose auth is configured (`hasConfiguredAuth`).
    configured: HashSet<String>,
    /// The validated models.json `providers` object (`ModelConfig.getProvider`), raw.
    configs: Object,
}

impl Registry {
    /// Loads the built-in catalog and overlays `models_json` (the text of
    /// `<agentDir>/models.json`, if any), as ModelRuntime does (CA/core/model-runtime.js:125–165,
    /// CA/core/provider-composer.js:291–377). `env` resolves `$VAR` references in `apiKey` and
    /// built-in providers' key variables. Problems are reported, never fatal.
    pub fn load(
        pi: &Pi,
        models_json: Option<&SourceText>,
        env: &BTreeMap<String, String>,
        diags: &mut Vec<Diagnostic>,
    ) -> Registry {
        let file = models_json.map_or("models.json".to_string(), |s| s.name.clone());
        let config = models_json
            .and_then(|src| load_models_config(src, diags))
            .unwrap_or_default();

        // Built-in providers, in catalog order (grouped once per process; the objects are
        // shared, so a provider models.json leaves alone costs no copies).
        let catalog = pi.data.catalog_by_provider();
        let mut order: Vec<&str> = catalog.iter().map(|(p, _)| p.as_str()).collect();
        for pid in config.keys() {
            if !catalog.iter().any(|(p, _)| p == pid) {
                order.push(pid);
            }
        }

        let mut reg = Registry::default();
        reg.models
            .reserve(catalog.iter().map(|(_, ms)| ms.len()).sum());
        for pid in order {
            let base_objs: &[Object] = catalog
                .iter()
                .find(|(p, _)| p == pid)
                .map_or(&[], |(_, ms)| ms.as_slice());
            let is_builtin = !base_objs.is_empty() || catalog.iter().any(|(p, _)| p == pid);
            let models: Vec<Object> = match config.get(pid) {
                None => base_objs.to_vec(),
                Some(cfg) => {
                    let base_models: Vec<JsObj> =
                        base_objs.iter().map(JsObj::from_object).collect();
                    match compose_provider_models(pi, pid, &base_models, cfg) {
                        Ok(models) => models.into_iter().map(JsObj::into_object).collect(),
                        Err(e) => {
                            diags.push(
                                Diagnostic::error(&file, None, format!("Provider \"{pid}\": {e}"))
                                    .skipping(format!("models.json provider {pid}")),
                            );
                            base_objs.to_vec()
                        }
                    }
                }
            };
            for obj in models {
                let model = Model { obj };
                reg.models.push(model);
            }
            reg.resolve_auth(pid, config.get(pid), is_builtin, env, &file, diags);
        }
        reg.configs = config;
        reg
    }

    /// The API-key auth of one provider (`composeApiKeyAuth`'s check and resolve,
    /// CA/core/provider-composer.js:190–257, or the built-in auth alone).
    fn resolve_auth(
        &mut self,
        pid: &str,
        config: Option<&Value>,
        is_builtin: bool,
        env: &BTreeMap<String, String>,
        file: &str,
        diags: &mut Vec<Diagnostic>,
    ) {
        let raw_key = config.and_then(|c| c.get_str("apiKey"));
        let (env_key, env_configured) = if is_builtin {
            builtin_env_auth(pid, env)
        } else {
            (None, false)
        };
        match raw_key {
            Some(raw) => {
                let configured = raw.starts_with('!')
                    || config_value_env_var_names(raw)
                        .iter()
                        .all(|n| env.contains_key(n));
                if configured {
                    self.configured.insert(pid.to_string());
                }
                if let Some(command) = raw.strip_prefix('!') {
                    diags.push(Diagnostic::info(
                        file,
                        None,
                        format!(
                            "provider {pid}: the apiKey command `{command}` is not run offline"
                        ),
                    ));
                }
                match resolve_config_value(raw, env) {
                    Some(key) => self.api_keys.push((pid.to_string(), key)),
                    None => diags.push(Diagnostic::warning(
                        file,
                        None,
                        format!(
                            "provider {pid}: apiKey references unset environment variables ({})",
                            config_value_env_var_names(raw).join(", ")
                        ),
                    )),
                }
            }
            None => {
                if env_configured {
                    self.configured.insert(pid.to_string());
                }
                if let Some(key) = env_key {
                    self.api_keys.push((pid.to_string(), key));
                }
            }
        }
    }

    /// `provider/id` lookup (`getModel`: the first model of the provider with that id).
    pub fn find(&self, provider: &str, id: &str) -> Option<&Model> {
        self.models
            .iter()
            .find(|m| m.provider() == provider && m.id() == id)
    }

    /// The raw models.json config of a provider (`this.config.getProvider(id)`,
    /// CA/core/model-runtime.js:349), if models.json has one.
    pub fn provider_config(&self, provider: &str) -> Option<&Object> {
        self.configs.get_object(provider)
    }

    /// The configured API key for a provider.
    pub fn api_key(&self, provider: &str) -> Option<&str> {
        self.api_keys
            .iter()
            .find(|(p, _)| p == provider)
            .map(|(_, k)| k.as_str())
    }

    /// `modelRuntime.hasConfiguredAuth(provider)` (CA/core/model-runtime.js:336), offline: an
    /// `apiKey` in models.json (its `$ENV` references set), or a built-in provider whose key
    /// variable is set.
    pub fn has_configured_auth(&self, provider: &str) -> bool {
        self.configured.contains(provider)
    }

    /// `getAvailableSnapshot()`: the models of providers with configured auth.
    pub fn available(&self) -> impl Iterator<Item = &Model> {
        self.models
            .iter()
            .filter(|m| self.has_configured_auth(m.provider()))
    }
}

// ---------------------------------------------------------------------------------------------
// Thinking levels (AI/models.js).
// ---------------------------------------------------------------------------------------------

/// `getSupportedThinkingLevels(model)` (AI/models.js:551–562).
pub fn supported_thinking_levels(model: &Model) -> Vec<&'static str> {
    if !model.reasoning() {
        return vec!["off"];
    }
    let map = model.obj.get("thinkingLevelMap");
    THINKING_LEVELS
        .iter()
        .copied()
        .filter(|level| {
            let mapped = map.and_then(|m| m.get(level));
            match mapped {
                Some(Value::Null) => false,
                _ if *level == "xhigh" || *level == "max" => mapped.is_some(),
                _ => true,
            }
        })
        .collect()
}

/// `clampThinkingLevel(model, level)` (AI/models.js:563–580): a supported level is kept; else the
/// nearest supported level above, else below. Records the change.
pub fn clamp_thinking_level(model: &Model, level: &str, events: &mut Events) -> String {
    let available = supported_thinking_levels(model);
    if available.contains(&level) {
        return level.to_string();
    }
    let first = available.first().copied().unwrap_or("off");
    let clamped = match THINKING_LEVELS.iter().position(|l| *l == level) {
        None => first,
        Some(requested) => THINKING_LEVELS[requested..]
            .iter()
            .chain(THINKING_LEVELS[..requested].iter().rev())
            .copied()
            .find(|l| available.contains(l))
            .unwrap_or(first),
    };
    let why = if model.reasoning() {
        format!("{} supports {}", model.reference(), available.join(", "))
    } else {
        format!("{} is not a reasoning model", model.reference())
    };
    events.push(
        Event::new(
            EventKind::Clamped,
            format!("thinking level {level} → {clamped} ({why})"),
        )
        .at("AI/models.js:563"),
    );
    clamped.to_string()
}

// ---------------------------------------------------------------------------------------------
// Model resolution (CA/core/model-resolver.js).
// ---------------------------------------------------------------------------------------------

/// `isAlias(id)` (CA/core/model-resolver.js:56–63): ends with `-latest`, or not with `-YYYYMMDD`.
fn is_alias(id: &str) -> bool {
    if id.ends_with("-latest") {
        return true;
    }
    let b = id.as_bytes();
    let dated =
        b.len() >= 9 && b[b.len() - 9] == b'-' && b[b.len() - 8..].iter().all(u8::is_ascii_digit);
    !dated
}

/// An approximation of `a.localeCompare(b)` (ICU root collation) good for model ids:
/// punctuation before digits before letters, letters case-insensitively first, then lower case
/// before upper case.
fn locale_compare(a: &str, b: &str) -> std::cmp::Ordering {
    fn key(c: char) -> (u8, String) {
        let class = if c.is_alphabetic() {
            3
        } else if c.is_numeric() {
            2
        } else if c.is_whitespace() {
            0
        } else {
            1
        };
        (class, c.to_lowercase().collect())
    }
    let primary = a.chars().map(key).cmp(b.chars().map(key));
    primary.then_with(|| {
        let tert = |c: char| if c.is_uppercase() { 1 } else { 0 };
        a.chars().map(tert).cmp(b.chars().map(tert))
    })
}

/// `findExactModelReferenceMatch(reference, models)` (CA/core/model-resolver.js:69–99).
fn find_exact_model_reference_match<'a>(
    reference: &str,
    models: &[&'a Model],
) -> Option<&'a Model> {
    let trimmed = js_trim(reference);
    if trimmed.is_empty() {
        return None;
    }
    let normalized = trimmed.to_lowercase();
    let canonical: Vec<&Model> = models
        .iter()
        .copied()
        .filter(|m| m.reference().to_lowercase() == normalized)
        .collect();
    match canonical.len() {
        1 => return Some(canonical[0]),
        n if n > 1 => return None,
        _ => {}
    }
    if let Some((provider, id)) = trimmed.split_once('/') {
        let (provider, id) = (js_trim(provider).to_lowercase(), js_trim(id).to_lowercase());
        if !provider.is_empty() && !id.is_empty() {
            let matches: Vec<&Model> = models
                .iter()
                .copied()
                .filter(|m| m.provider().to_lowercase() == provider && m.id().to_lowercase() == id)
                .collect();
            match matches.len() {
                1 => return Some(matches[0]),
                n if n > 1 => return None,
                _ => {}
            }
        }
    }
    let ids: Vec<&Model> = models
        .iter()
        .copied()
        .filter(|m| m.id().to_lowercase() == normalized)
        .collect();
    if ids.len() == 1 {
        Some(ids[0])
    } else {
        None
    }
}

/// `tryMatchModel(pattern, models)` (CA/core/model-resolver.js:104–128): exact, else partial id
/// or name match, preferring aliases, the highest id by `localeCompare`.
fn try_match_model<'a>(pattern: &str, models: &[&'a Model]) -> Option<&'a Model> {
    if let Some(m) = find_exact_model_reference_match(pattern, models) {
        return Some(m);
    }
    let p = pattern.to_lowercase();
    let matches: Vec<&Model> = models
        .iter()
        .copied()
        .filter(|m| m.id().to_lowercase().contains(&p) || m.name().to_lowercase().contains(&p))
        .collect();
    let (mut aliases, mut dated): (Vec<&Model>, Vec<&Model>) =
        matches.into_iter().partition(|m| is_alias(m.id()));
    let pool = if aliases.is_empty() {
        &mut dated
    } else {
        &mut aliases
    };
    pool.sort_by(|a, b| locale_compare(b.id(), a.id()));
    pool.first().copied()
}

/// The result of `parseModelPattern` / `resolveCliModel`.
#[derive(Clone, Debug, Default)]
struct Resolved {
    model: Option<Model>,
    thinking_level: Option<String>,
    warning: Option<String>,
    error: Option<String>,
}

/// `parseModelPattern(pattern, models, {allowInvalidThinkingLevelFallback: false})`
/// (CA/core/model-resolver.js:156–202), as the CLI uses it.
fn parse_model_pattern(pattern: &str, models: &[&Model]) -> Resolved {
    if let Some(m) = try_match_model(pattern, models) {
        return Resolved {
            model: Some(m.clone()),
            ..Default::default()
        };
    }
    let Some(colon) = pattern.rfind(':') else {
        return Resolved::default();
    };
    let (prefix, suffix) = (&pattern[..colon], &pattern[colon + 1..]);
    if !is_valid_thinking_level(suffix) {
        return Resolved::default();
    }
    let inner = parse_model_pattern(prefix, models);
    if inner.model.is_some() {
        let thinking_level = if inner.warning.is_some() {
            None
        } else {
            Some(suffix.to_string())
        };
        return Resolved {
            thinking_level,
            ..inner
        };
    }
    inner
}

/// `buildFallbackModel(provider, modelId, models)` (CA/core/model-resolver.js:129–142).
fn build_fallback_model(
    pi: &Pi,
    provider: &str,
    model_id: &str,
    models: &[&Model],
) -> Option<Model> {
    let provider_models: Vec<&Model> = models
        .iter()
        .copied()
        .filter(|m| m.provider() == provider)
        .collect();
    let default_id = pi
        .data
        .defaults
        .get("defaultModelPerProvider")
        .and_then(|d| d.get_str(provider));
    let base = default_id
        .and_then(|d| provider_models.iter().find(|m| m.id() == d))
        .or(provider_models.first())?;
    let mut obj = base.obj.clone();
    obj.insert("id", Value::str(model_id));
    obj.insert("name", Value::str(model_id));
    Some(Model { obj })
}

/// `resolveCliModel({cliModel, cliThinking})` without `--provider` (CA/core/model-resolver.js:291–463).
fn resolve_cli_model(
    pi: &Pi,
    registry: &Registry,
    cli_model: &str,
    cli_thinking: Option<&str>,
) -> Resolved {
    let all: Vec<&Model> = registry.models.iter().collect();
    if all.is_empty() {
        return Resolved {
            error: Some(
                "No models available. Check your installation or add models to models.json.".into(),
            ),
            ..Default::default()
        };
    }
    let mut provider_map: HashMap<String, &str> = HashMap::new();
    let mut last: Option<&str> = None;
    for m in &all {
        // Models come grouped by provider: lowercase each run of one provider once.
        if last != Some(m.provider()) {
            provider_map.insert(m.provider().to_lowercase(), m.provider());
            last = Some(m.provider());
        }
    }
    let mut provider: Option<&str> = None;
    let mut pattern = cli_model;
    let mut inferred = false;
    if let Some(slash) = cli_model.find('/') {
        if let Some(canonical) = provider_map.get(&cli_model[..slash].to_lowercase()) {
            provider = Some(canonical);
            pattern = &cli_model[slash + 1..];
            inferred = true;
        }
    }
    let lower = cli_model.to_lowercase();
    let exact_raw =
        |m: &&Model| m.id().to_lowercase() == lower || m.reference().to_lowercase() == lower;
    if provider.is_none() {
        let exact: Vec<&Model> = all.iter().copied().filter(exact_raw).collect();
        if exact.len() == 1 {
            return Resolved {
                model: Some(exact[0].clone()),
                ..Default::default()
            };
        }
        if exact.len() > 1 {
            let authed: Vec<&Model> = exact
                .iter()
                .copied()
                .filter(|m| registry.has_configured_auth(m.provider()))
                .collect();
            if authed.len() == 1 {
                return Resolved {
                    model: Some(authed[0].clone()),
                    ..Default::default()
                };
            }
            let mut refs: Vec<String> = exact.iter().map(|m| m.reference()).collect();
            refs.sort_by(|a, b| locale_compare(a, b));
            let hint = if authed.is_empty() {
                "No matching provider is authenticated."
            } else {
                "More than one matching provider is authenticated."
            };
            return Resolved {
                error: Some(format!("Model \"{cli_model}\" is ambiguous across providers: {}. {hint} Use --provider or provider/model.", refs.join(", "))),
                ..Default::default()
            };
        }
    }
    let candidates: Vec<&Model> = match provider {
        Some(p) => all.iter().copied().filter(|m| m.provider() == p).collect(),
        None => all.clone(),
    };
    let found = parse_model_pattern(pattern, &candidates);
    if let Some(model) = &found.model {
        if inferred && !registry.has_configured_auth(model.provider()) {
            let raw: Vec<&Model> = all
                .iter()
                .copied()
                .filter(|m| {
                    m.id().to_lowercase() == lower
                        && !(m.id() == model.id() && m.provider() == model.provider())
                })
                .filter(|m| registry.has_configured_auth(m.provider()))
                .collect();
            if raw.len() == 1 {
                return Resolved {
                    model: Some(raw[0].clone()),
                    ..Default::default()
                };
            }
        }
        return found;
    }
    if inferred {
        if let Some(exact) = all.iter().copied().find(exact_raw) {
            return Resolved {
                model: Some(exact.clone()),
                ..Default::default()
            };
        }
        let fallback = parse_model_pattern(cli_model, &all);
        if fallback.model.is_some() {
            return fallback;
        }
    }
    if let Some(p) = provider {
        let mut fallback_pattern = pattern;
        let mut fallback_thinking: Option<String> = None;
        if cli_thinking.is_none() {
            if let Some(colon) = pattern.rfind(':') {
                let suffix = &pattern[colon + 1..];
                if is_valid_thinking_level(suffix) {
                    fallback_pattern = &pattern[..colon];
                    fallback_thinking = Some(suffix.to_string());
                }
            }
        }
        if let Some(mut model) = build_fallback_model(pi, p, fallback_pattern, &all) {
            let requested = cli_thinking
                .map(String::from)
                .or_else(|| fallback_thinking.clone());
            if requested.as_deref().is_some_and(|r| r != "off") {
                model.obj.insert("reasoning", Value::Bool(true));
            }
            return Resolved {
                model: Some(model),
                thinking_level: fallback_thinking,
                warning: Some(format!("Model \"{fallback_pattern}\" not found for provider \"{p}\". Using custom model id.")),
                error: None,
            };
        }
    }
    let display = match provider {
        Some(p) => format!("{p}/{pattern}"),
        None => cli_model.to_string(),
    };
    Resolved {
        error: Some(format!(
            "Model \"{display}\" not found. Use --list-models to see available models."
        )),
        ..Default::default()
    }
}

/// `findInitialModel` steps 3–5 (CA/core/model-resolver.js:472–532): the settings default when
/// its provider has auth, else the first available provider default, else the first available
/// model. Returns the model and the level that step would use (`None` = pi's default).
fn find_initial_model(
    pi: &Pi,
    registry: &Registry,
    settings: &crate::settings::Settings,
) -> Option<(Model, Option<String>)> {
    let default_provider = settings
        .get("defaultProvider")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty());
    let default_model = settings
        .get("defaultModel")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty());
    if let (Some(p), Some(id)) = (default_provider, default_model) {
        if let Some(found) = registry
            .find(p, id)
            .filter(|m| registry.has_configured_auth(m.provider()))
        {
            let per_model = model_thinking_level(settings, p, id);
            let level = per_model.or_else(|| {
                settings
                    .default_thinking_level()
                    .filter(|s| !s.is_empty())
                    .map(String::from)
            });
            return Some((found.clone(), level));
        }
    }
    let available: Vec<&Model> = registry.available().collect();
    let first = *available.first()?;
    if let Some(defaults) = pi
        .data
        .defaults
        .get("defaultModelPerProvider")
        .and_then(Value::as_object)
    {
        for (provider, id) in defaults.iter() {
            if let Some(m) = available
                .iter()
                .find(|m| m.provider() == provider && Some(m.id()) == id.as_str())
            {
                return Some(((*m).clone(), None));
            }
        }
    }
    Some((first.clone(), None))
}

/// `settings.modelThinkingLevels["provider/id"]`, when truthy.
fn model_thinking_level(
    settings: &crate::settings::Settings,
    provider: &str,
    id: &str,
) -> Option<String> {
    settings
        .get("modelThinkingLevels")
        .and_then(|m| m.get(&format!("{provider}/{id}")))
        .filter(|v| v.truthy())
        .map(|v| crate::messages::to_js_string(Some(v)))
}

/// The model and thinking level pi starts the turn with (S23, S24; CA/core/sdk.js:81–138).
#[derive(Clone, Debug, Default)]
pub struct ModelChoice {
    pub model: Option<Model>,
    /// The thinking level after clamping (`"off"` when there is no model).
    pub thinking_level: String,
    /// The level before clamping, and where it came from (`--thinking`, `session`,
    /// `settings.defaultThinkingLevel`, `default`).
    pub requested_level: String,
    pub level_source: String,
    /// Where the model came from (`--model`, `session`, `settings.defaultModel`, `available`).
    pub model_source: String,
}

/// Picks the model (`--model`, else the session's last model when its provider has auth, else
/// pi's default choice) and the thinking level, then clamps the level (`buildSessionOptions`,
/// CA/main.js:347–426, then `createAgentSession`, CA/core/sdk.js:81–138).
#[allow(clippy::too_many_arguments)]
pub fn choose(
    pi: &Pi,
    registry: &Registry,
    cli_model: Option<&str>,
    cli_thinking: Option<&str>,
    session: &crate::session::SessionContext,
    has_existing_session: bool,
    settings: &crate::settings::Settings,
    events: &mut Events,
    diags: &mut Vec<Diagnostic>,
) -> ModelChoice {
    // `--thinking` must be a valid level (CA/cli/args.js:112–123).
    let cli_thinking = cli_thinking.and_then(|t| {
        if is_valid_thinking_level(t) {
            Some(t)
        } else {
            diags.push(Diagnostic::warning(
                "args",
                None,
                format!(
                    "Invalid thinking level \"{t}\". Valid values: {}",
                    THINKING_LEVELS.join(", ")
                ),
            ));
            None
        }
    });

    // buildSessionOptions (CA/main.js:347–400).
    let mut model: Option<Model> = None;
    let mut model_source = String::new();
    let mut level: Option<(String, &str)> = None;
    if let Some(cm) = cli_model.filter(|m| !m.is_empty()) {
        let resolved = resolve_cli_model(pi, registry, cm, cli_thinking);
        if let Some(w) = &resolved.warning {
            diags.push(Diagnostic::warning("args", None, w.clone()));
        }
        if let Some(e) = &resolved.error {
            diags.push(Diagnostic::error("args", None, e.clone()));
        }
        if let Some(m) = resolved.model {
            events.push(
                Event::new(
                    EventKind::Note,
                    format!("--model {cm} resolved to {}", m.reference()),
                )
                .at("CA/core/model-resolver.js:291"),
            );
            model = Some(m);
            model_source = "--model".into();
            if cli_thinking.is_none() {
                if let Some(t) = resolved.thinking_level {
                    level = Some((t, "--model suffix"));
                }
            }
        }
    }
    if let Some(t) = cli_thinking {
        level = Some((t.to_string(), "--thinking"));
    }

    // createAgentSession (CA/core/sdk.js:87–114).
    if model.is_none() && has_existing_session {
        if let Some((p, id)) = &session.model {
            match registry.find(p, id) {
                Some(m) if registry.has_configured_auth(m.provider()) => {
                    model = Some(m.clone());
                    model_source = "session".into();
                }
                found => diags.push(Diagnostic::warning(
                    "session",
                    None,
                    format!(
                        "Could not restore model {p}/{id} ({})",
                        if found.is_none() {
                            "model no longer exists"
                        } else {
                            "no auth configured"
                        }
                    ),
                )),
            }
        }
    }
    let mut initial_level: Option<String> = None;
    if model.is_none() {
        match find_initial_model(pi, registry, settings) {
            Some((m, l)) => {
                model_source = if l.is_some() || settings.get("defaultModel").is_some() {
                    "settings.defaultModel"
                } else {
                    "available"
                }
                .into();
                events.push(
                    Event::new(
                        EventKind::Note,
                        format!("model {} chosen by pi's default rules", m.reference()),
                    )
                    .at("CA/core/model-resolver.js:472"),
                );
                model = Some(m);
                initial_level = l;
            }
            None => diags.push(Diagnostic::error(
                "model",
                None,
                "No models available: pass --model provider/id or configure an API key",
            )),
        }
    }
    let _ = initial_level; // findInitialModel's level is not used by createAgentSession.

    // Thinking level (CA/core/sdk.js:115–138).
    let settings_default = || {
        settings
            .get("defaultThinkingLevel")
            .filter(|v| !v.is_null())
            .map(|v| {
                (
                    crate::messages::to_js_string(Some(v)),
                    "settings.defaultThinkingLevel",
                )
            })
    };
    let data_default = || {
        (
            pi.data
                .defaults
                .get_str("defaultThinkingLevel")
                .unwrap_or("medium")
                .to_string(),
            "default",
        )
    };
    if level.is_none() && has_existing_session {
        level = Some(if session.has_thinking_entry {
            (session.thinking_level.clone(), "session")
        } else {
            settings_default().unwrap_or_else(data_default)
        });
    }
    if level.is_none() {
        if let Some(m) = &model {
            if let Some(per) = model_thinking_level(settings, m.provider(), m.id()) {
                level = Some((per, "settings.modelThinkingLevels"));
            }
        }
    }
    let (requested, source) = level.or_else(settings_default).unwrap_or_else(data_default);
    let thinking_level = match &model {
        Some(m) => clamp_thinking_level(m, &requested, events),
        None => "off".to_string(),
    };
    ModelChoice {
        model,
        thinking_level,
        requested_level: requested,
        level_source: source.to_string(),
        model_source,
    }
}

#[cfg(test)]
#[path = "model_tests.rs"]
mod tests;

//! CA/core/provider-composer.js: a provider's models from the catalog and models.json.

use crate::js::{self, Object, Value};
use crate::pi::Pi;

// ---------------------------------------------------------------------------------------------
// Objects whose members may be `undefined`.
// ---------------------------------------------------------------------------------------------

/// A model object while pi builds it: members may hold `undefined` (`None`), which keeps the
/// key's position for a later spread or assignment, as in JS, and is dropped at the end (as
/// `JSON.stringify` drops it).
#[derive(Clone, Debug, Default)]
pub(super) struct JsObj {
    entries: Vec<(String, Option<Value>)>,
}

impl JsObj {
    pub(super) fn from_object(o: &Object) -> JsObj {
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
    pub(super) fn into_object(self) -> Object {
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
    if pi.rules.sampling_by_thinking_level {
        m.set(
            "samplingParamsByThinkingLevel",
            merge_sampling_params_by_thinking_level(
                model.get("samplingParamsByThinkingLevel"),
                over.get("samplingParamsByThinkingLevel"),
            ),
        );
    }
    m.set(
        "compat",
        merge_compat(pi, model.get("compat"), over.get("compat")),
    );
    m
}

/// `mergeSamplingParamsByThinkingLevel(base, override)` (1.6.0/CA/core/provider-composer.js:
/// 43–52): per thinking level, an override's truthy params spread over the base's.
fn merge_sampling_params_by_thinking_level(
    base: Option<&Value>,
    over: Option<&Value>,
) -> Option<Value> {
    let Some(over) = over.filter(|o| o.truthy()) else {
        return base.cloned();
    };
    let Value::Object(mut merged) = spread2(base, None) else {
        return base.cloned();
    };
    for level in ["off", "minimal", "low", "medium", "high", "xhigh", "max"] {
        if let Some(params) = over.get(level).filter(|p| p.truthy()) {
            merged.insert(
                level,
                spread2(base.and_then(|b| b.get(level)), Some(params)),
            );
        }
    }
    Some(Value::Object(merged))
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
    let model_id = crate::js::to_js_string(def.get("id"));
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
            if crate::js::to_number(Some(v)) <= 0.0 || v.is_null() {
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
    if pi.rules.sampling_by_thinking_level {
        // 1.0.2 (1.6.0/CA/core/provider-composer.js:112).
        m.set(
            "samplingParamsByThinkingLevel",
            def.get("samplingParamsByThinkingLevel").cloned(),
        );
    }
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
pub(super) fn compose_provider_models(
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

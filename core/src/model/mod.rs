//! Models: pi's built-in catalog and models.json merged as pi's provider composer does; the
//! thinking-level clamp; the choice of model and thinking level.
//! One module per pi file: `composer` (CA/core/provider-composer.js), `config`
//! (CA/core/model-config.js, resolve-config-value.js), `registry` (the catalog with models.json
//! and offline auth, CA/core/model-runtime.js, AI/env-api-keys.js), `thinking` (AI/models.js),
//! `resolver` (CA/core/model-resolver.js, CA/core/sdk.js, CA/main.js `buildSessionOptions`),
//! `reference` (1.6.0's `resolveModelReference` and `resolveCliModel`).

mod composer;
mod config;
mod reference;
mod registry;
mod resolver;
mod thinking;

pub use config::{config_value_env_var_names, resolve_config_value, strip_json_comments};
pub use registry::Registry;
pub use resolver::{choose, placeholder_provider, CliModel, ModelChoice, SessionModel};
pub use thinking::{
    clamp_thinking_level, is_valid_thinking_level, supported_thinking_levels, THINKING_LEVELS,
};

use crate::js::{Object, Value};

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

#[cfg(test)]
#[path = "tests.rs"]
mod tests;

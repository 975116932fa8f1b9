//! Models: pi's built-in catalog and models.json merged as pi's provider composer does; the
//! thinking-level clamp (INVENTORY §6, A4).

use crate::diagnostics::Diagnostic;
use crate::inputs::VirtualFs;
use crate::js::{Object, Value};
use crate::trace::Events;

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
        self.obj.get_array("input").is_some_and(|a| a.iter().any(|v| v.as_str() == Some("image")))
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

/// All models pi knows: the built-in catalog overlaid by models.json.
#[derive(Clone, Debug, Default)]
pub struct Registry {
    pub models: Vec<Model>,
    /// Per provider: the API key configured in models.json (`apiKey`), used for auth checks
    /// (S23) and OAuth detection (AN5).
    pub api_keys: Vec<(String, String)>,
}

impl Registry {
    /// Loads the built-in catalog and overlays `models_json` (the text of
    /// `<agentDir>/models.json`, if any). Problems are reported, never fatal.
    pub fn load(models_json: Option<&crate::inputs::SourceText>, diags: &mut Vec<Diagnostic>) -> Registry {
        let _ = (models_json, diags);
        todo_registry()
    }

    /// `provider/id` lookup.
    pub fn find(&self, provider: &str, id: &str) -> Option<&Model> {
        self.models.iter().find(|m| m.provider() == provider && m.id() == id)
    }

    /// The configured API key for a provider (models.json `apiKey`).
    pub fn api_key(&self, provider: &str) -> Option<&str> {
        self.api_keys.iter().find(|(p, _)| p == provider).map(|(_, k)| k.as_str())
    }
}

fn todo_registry() -> Registry {
    Registry::default()
}

/// `getSupportedThinkingLevels(model)` (AI/models.js).
pub fn supported_thinking_levels(model: &Model) -> Vec<&'static str> {
    let _ = model;
    THINKING_LEVELS.to_vec()
}

/// `clampThinkingLevel(model, level)` (AI/models.js:550–580).
pub fn clamp_thinking_level(model: &Model, level: &str, events: &mut Events) -> String {
    let _ = (model, events);
    level.to_string()
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
}

/// Picks the model (`--model`, else the session's last model when its provider has auth, else
/// pi's default choice) and the thinking level, then clamps the level.
#[allow(clippy::too_many_arguments)]
pub fn choose(
    registry: &Registry,
    cli_model: Option<&str>,
    cli_thinking: Option<&str>,
    session: &crate::session::SessionContext,
    has_existing_session: bool,
    settings: &crate::settings::Settings,
    events: &mut Events,
    diags: &mut Vec<Diagnostic>,
) -> ModelChoice {
    let _ = (cli_thinking, session, has_existing_session, settings, events, diags);
    let model = cli_model.and_then(|m| m.split_once('/')).and_then(|(p, id)| registry.find(p, id)).cloned();
    ModelChoice { model, thinking_level: "off".into(), requested_level: "off".into(), level_source: "default".into() }
}

/// Unused until filled in: keeps `VirtualFs` in this module's vocabulary for model files.
#[allow(dead_code)]
fn _uses(_: &VirtualFs) {}

//! All models pi knows: the built-in catalog overlaid by models.json, with the auth pi can know offline.

use std::collections::{BTreeMap, HashSet};

use crate::diagnostics::Diagnostic;
use crate::inputs::SourceText;
use crate::js::{Object, Value};
use crate::pi::Pi;

use super::composer::{compose_provider_models, JsObj};
use super::config::{config_value_env_var_names, load_models_config, resolve_config_value};
use super::Model;

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

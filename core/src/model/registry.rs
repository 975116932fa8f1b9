//! All models pi knows: the built-in catalog overlaid by models.json, with the auth pi can know offline.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

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

/// The env vars a built-in provider's API-key auth reads, in order (`getApiKeyEnvVars`,
/// AI/env-api-keys.js:63–112): the release's `apiKeyEnvVars` data.
fn builtin_api_key_env_vars<'a>(pi: &'a Pi, provider: &str) -> Vec<&'a str> {
    pi.data
        .defaults
        .get("apiKeyEnvVars")
        .and_then(|t| t.get(provider))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// A built-in provider's key from the environment (`getEnvApiKey`, AI/env-api-keys.js:120–160),
/// and whether its auth is configured at all (AWS credentials count for Bedrock; with
/// [`ModelRules::anthropic_workload_identity`](crate::pi::ModelRules), the three federation
/// variables for Anthropic, "1.6.0/AI/providers/anthropic.js:41").
fn builtin_env_auth(
    pi: &Pi,
    provider: &str,
    env: &BTreeMap<String, String>,
) -> (Option<String>, bool) {
    let set = |k: &str| env.get(k).is_some_and(|v| !v.is_empty());
    let found: Vec<&str> = builtin_api_key_env_vars(pi, provider)
        .into_iter()
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
    let federation = provider == "anthropic"
        && pi.rules.model.anthropic_workload_identity
        && [
            "ANTHROPIC_FEDERATION_RULE_ID",
            "ANTHROPIC_ORGANIZATION_ID",
            "ANTHROPIC_IDENTITY_TOKEN_FILE",
        ]
        .iter()
        .all(|k| set(k));
    (key, !found.is_empty() || aws || federation)
}

// ---------------------------------------------------------------------------------------------
// The registry.
// ---------------------------------------------------------------------------------------------

/// All models pi knows: the built-in catalog overlaid by models.json.
#[derive(Clone, Debug, Default)]
pub struct Registry {
    /// In pi's order: built-in providers as the catalog lists them, then providers that only
    /// models.json defines. Shared: a call's registry (a placeholder key set) is a copy of the
    /// setup's, and its 1,300 models are never changed after loading.
    pub models: Arc<Vec<Model>>,
    /// Per provider: the API key pi would resolve (models.json `apiKey` with `$ENV` references
    /// resolved, or a built-in provider's env var), used for auth checks and OAuth
    /// detection. A `!command` key is kept unresolved.
    pub api_keys: Vec<(String, String)>,
    /// Providers whose auth is configured (`hasConfiguredAuth`).
    configured: HashSet<String>,
    /// The validated models.json `providers` object (`ModelConfig.getProvider`), raw.
    configs: Object,
    /// `--api-key`: `setRuntimeApiKey(provider, key)` (CA/main.js:642–650), a credential that
    /// wins over models.json and the environment for that provider.
    runtime_key: Option<(String, String)>,
    /// The providers of `models`, each once, in their order (found when they are loaded).
    providers: Arc<Vec<String>>,
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
        // The line of `providers.PID` in models.json, for what is said about that provider.
        let provider_line = |pid: &str| {
            models_json.and_then(|src| {
                let text = src.text.strip_prefix('\u{feff}').unwrap_or(&src.text);
                crate::js::locate::line_of(
                    text,
                    &[
                        crate::js::locate::Step::Key("providers"),
                        crate::js::locate::Step::Key(pid),
                    ],
                )
            })
        };
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
        let mut all: Vec<Model> = Vec::with_capacity(catalog.iter().map(|(_, ms)| ms.len()).sum());
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
                                Diagnostic::error(
                                    &file,
                                    provider_line(pid),
                                    format!("Provider \"{pid}\": {e}"),
                                )
                                .skipping(format!("models.json provider {pid}")),
                            );
                            base_objs.to_vec()
                        }
                    }
                }
            };
            all.extend(models.into_iter().map(|obj| Model { obj }));
            // What is said about the provider's key, at its models.json line (found only then).
            let said = diags.len();
            reg.resolve_auth(pi, pid, config.get(pid), is_builtin, env, &file, diags);
            if diags.len() > said {
                let line = provider_line(pid);
                for d in &mut diags[said..] {
                    d.line = line;
                }
            }
        }
        reg.configs = config;
        reg.models = Arc::new(all);
        let mut providers: Vec<String> = Vec::new();
        for m in reg.models.iter() {
            if !providers.iter().any(|p| p == m.provider()) {
                providers.push(m.provider().to_string());
            }
        }
        reg.providers = Arc::new(providers);
        reg
    }

    /// The API-key auth of one provider (`composeApiKeyAuth`'s check and resolve,
    /// CA/core/provider-composer.js:190–257, or the built-in auth alone).
    #[allow(clippy::too_many_arguments)]
    fn resolve_auth(
        &mut self,
        pi: &Pi,
        pid: &str,
        config: Option<&Value>,
        is_builtin: bool,
        env: &BTreeMap<String, String>,
        file: &str,
        diags: &mut Vec<Diagnostic>,
    ) {
        let raw_key = config.and_then(|c| c.get_str("apiKey"));
        let (env_key, env_configured) = if is_builtin {
            builtin_env_auth(pi, pid, env)
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

    /// `<agentDir>/auth.json` (`AuthStorage`, CA/core/auth-storage.js; `composeApiKeyAuth`'s
    /// `input.credential`, CA/core/provider-composer.js:206–236): a stored credential configures
    /// its provider, and its key wins over models.json's and the environment's (only
    /// `--api-key` wins over it). `api_key` entries give `key` (a config value: `$VAR` resolved,
    /// `!command` kept), `oauth` entries their `access` token. pi ignores a file it cannot parse
    /// (its reload catches the error): so does this, with a diagnostic.
    pub fn apply_auth_json(
        &mut self,
        text: &str,
        path: &str,
        env: &BTreeMap<String, String>,
        diags: &mut Vec<Diagnostic>,
    ) {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if text.is_empty() {
            return;
        }
        let parsed = match crate::js::parse_with_position(text) {
            Ok(Value::Object(o)) => o,
            Ok(_) => {
                diags.push(
                    Diagnostic::warning(
                        path,
                        Some(1),
                        "not a JSON object: pi uses no stored credential",
                    )
                    .skipping("auth.json"),
                );
                return;
            }
            Err((e, line, column)) => {
                diags.push(
                    Diagnostic::warning(
                        path,
                        Some(line as u32),
                        format!(
                            "not valid JSON: {} (column {column}): pi uses no stored credential",
                            e.message
                        ),
                    )
                    .skipping("auth.json"),
                );
                return;
            }
        };
        let mut stored = Vec::new();
        for (pid, cred) in parsed.iter() {
            let key = match cred.get_str("type") {
                Some("api_key") => match cred.get_str("key") {
                    Some(raw) => {
                        let mut scope = env.clone();
                        if let Some(o) = cred.get("env").and_then(Value::as_object) {
                            for (k, v) in o.iter() {
                                if let Some(v) = v.as_str() {
                                    scope.insert(k.to_string(), v.to_string());
                                }
                            }
                        }
                        resolve_config_value(raw, &scope).or_else(|| Some(raw.to_string()))
                    }
                    None => None,
                },
                Some("oauth") => cred.get_str("access").map(String::from),
                _ => None,
            };
            self.configured.insert(pid.to_string());
            if let Some(k) = key {
                stored.push((pid.to_string(), k));
            }
        }
        // First match wins in `api_key`: the stored keys go first.
        stored.append(&mut self.api_keys);
        self.api_keys = stored;
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

    /// `modelRuntime.setRuntimeApiKey(provider, key)` (CA/core/model-runtime.js): `--api-key` as a
    /// stored `api_key` credential of the chosen model's provider (`RuntimeCredentials`), which
    /// configures the provider and is the key its requests carry.
    pub fn set_runtime_api_key(&mut self, provider: &str, key: &str) {
        self.configured.insert(provider.to_string());
        self.runtime_key = Some((provider.to_string(), key.to_string()));
    }

    /// The `--api-key` key, when it belongs to this provider.
    pub fn runtime_api_key(&self, provider: &str) -> Option<&str> {
        self.runtime_key
            .as_ref()
            .filter(|(p, _)| p == provider)
            .map(|(_, k)| k.as_str())
    }

    /// The API key a provider's requests carry: the `--api-key` credential, else the configured
    /// one (models.json, or a built-in provider's env var).
    pub fn api_key(&self, provider: &str) -> Option<&str> {
        if let Some(key) = self.runtime_api_key(provider) {
            return Some(key);
        }
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

    /// A copy in which every provider's auth counts as configured: which model pi would take
    /// if every key were there (see [`super::placeholder_provider`]).
    pub fn with_all_configured(&self) -> Registry {
        let mut r = self.clone();
        for p in self.providers.iter() {
            if !r.configured.contains(p.as_str()) {
                r.configured.insert(p.clone());
            }
        }
        r
    }

    /// A placeholder key for `provider` ([`crate::inputs::PLACEHOLDER_KEY`],
    /// [`crate::Inputs::placeholder_key`]): its auth counts as configured and its requests
    /// carry the placeholder as their key.
    pub fn set_placeholder_key(&mut self, provider: &str) {
        self.configured.insert(provider.to_string());
        self.api_keys.retain(|(p, _)| p != provider);
        self.api_keys.push((
            provider.to_string(),
            crate::inputs::PLACEHOLDER_KEY.to_string(),
        ));
    }

    /// `getAvailableSnapshot()`: the models of providers with configured auth.
    pub fn available(&self) -> impl Iterator<Item = &Model> {
        self.models
            .iter()
            .filter(|m| self.has_configured_auth(m.provider()))
    }
}

//! The headers pi merges before the adapter runs (`options.headers` of `provider.streamSimple`):
//! the provider's auth headers, models.json provider- and model-level `headers` (env templates
//! resolved like `apiKey` values), the built-in model's catalog headers, then the provider
//! attribution headers that the coding agent's `transformHeaders` adds.
//!
//! The chain, for the coding agent's streamFn (CA/core/sdk.js:185–207):
//!
//! 1. `composeApiKeyAuth(...).resolve` (CA/core/provider-composer.js:190–257): the built-in
//!    auth's headers, then `withConfiguredAuth` spreads the provider's configured `headers` over
//!    them (a plain, case-sensitive spread) and adds `Authorization: Bearer <key>` when
//!    `authHeader` is set.
//! 2. `Models.getAuth` (AI/models.js:275–290): the model's own `headers` (built-in catalog
//!    models only; models.json models have none), merged case-insensitively.
//! 3. `ModelRuntime.getAuth` (CA/core/model-runtime.js:343–355): the models.json model-level
//!    headers (`modelOverrides[id].headers` under `models[].headers`), merged
//!    case-insensitively.
//! 4. `ModelRuntime.prepareRequest` (CA/core/model-runtime.js:422–451): `options.headers`
//!    (none from the agent loop), then `transformHeaders` = `mergeProviderAttributionHeaders`
//!    (CA/core/provider-attribution.js:60–71), whose request headers win over the session and
//!    attribution headers by a plain `Object.assign`.
//!
//! Extensions (provider registrations, `before_provider_headers`) are not modelled: ctxlens
//! only knows extension tools. A `!command` value cannot run offline; it is kept as written.

use std::collections::BTreeMap;

use crate::js::{Object, Value};
use crate::model::{self, Model, Registry};
use crate::settings::Settings;
use crate::trace::{Event, EventKind, Events};

const OPENROUTER_HOST: &str = "openrouter.ai";
const NVIDIA_NIM_HOST: &str = "integrate.api.nvidia.com";
const CLOUDFLARE_API_HOST: &str = "api.cloudflare.com";
const CLOUDFLARE_AI_GATEWAY_HOST: &str = "gateway.ai.cloudflare.com";
const OPENCODE_HOST: &str = "opencode.ai";

// ---------------------------------------------------------------------------------------------
// Generic merges.
// ---------------------------------------------------------------------------------------------

/// `mergeHeaders(base, override)` (AI/models.js:8–21, the same in CA/core/model-runtime.js:25–38):
/// `undefined` when both are missing; otherwise a copy of `base` where every `override` member
/// first deletes the members whose names match it case-insensitively, then is set (so it moves
/// to the end).
pub fn merge_headers(base: Option<&Object>, override_: Option<&Object>) -> Option<Object> {
    if base.is_none() && override_.is_none() {
        return None;
    }
    let mut merged = base.cloned().unwrap_or_default();
    for (name, value) in override_.into_iter().flat_map(Object::iter) {
        let lower = name.to_lowercase();
        let doomed: Vec<String> = merged
            .keys()
            .filter(|k| k.to_lowercase() == lower)
            .map(|k| k.to_string())
            .collect();
        for k in doomed {
            merged.remove(&k);
        }
        merged.insert(name.clone(), value.clone());
    }
    Some(merged)
}

/// The env a config value sees: `env[name] || process.env[name] || undefined`
/// (`resolveEnvConfigValue`, CA/core/resolve-config-value.js:68–70). Offline both are `env`; an
/// empty value counts as missing.
fn env_value<'a>(name: &str, env: &'a BTreeMap<String, String>) -> Option<&'a str> {
    env.get(name).map(String::as_str).filter(|v| !v.is_empty())
}

/// `resolveConfigValueOrThrow(config, description, env)` (CA/core/resolve-config-value.js:183–204),
/// offline: `$VAR` / `${VAR}` templates resolve against `env`; a `!command` is kept as written
/// (noted in `events`). The error is pi's message.
pub fn resolve_config_value_or_throw(
    config: &str,
    description: &str,
    env: &BTreeMap<String, String>,
    events: &mut Events,
) -> Result<String, String> {
    if let Some(command) = config.strip_prefix('!') {
        events.push(
            Event::new(EventKind::Note, format!("{description}: the command `{command}` is not run offline; its text is used as the value"))
                .at("CA/core/resolve-config-value.js:123"),
        );
        return Ok(config.to_string());
    }
    if let Some(v) = model::resolve_config_value(config, env) {
        return Ok(v);
    }
    let missing: Vec<String> = model::config_value_env_var_names(config)
        .into_iter()
        .filter(|n| env_value(n, env).is_none())
        .collect();
    Err(match missing.len() {
        1 => format!(
            "Failed to resolve {description} from environment variable: {}",
            missing[0]
        ),
        0 => format!("Failed to resolve {description}"),
        _ => format!(
            "Failed to resolve {description} from environment variables: {}",
            missing.join(", ")
        ),
    })
}

/// `resolveHeadersOrThrow(headers, description, env)` (CA/core/resolve-config-value.js:220–228):
/// every value resolved (a failure throws); `undefined` when there are none.
pub fn resolve_headers_or_throw(
    headers: Option<&Object>,
    description: &str,
    env: &BTreeMap<String, String>,
    events: &mut Events,
) -> Result<Option<Object>, String> {
    let Some(headers) = headers else {
        return Ok(None);
    };
    let mut resolved = Object::new();
    for (key, value) in headers.iter() {
        let raw = crate::js::to_js_string(Some(value));
        let v = resolve_config_value_or_throw(
            &raw,
            &format!("{description} header \"{key}\""),
            env,
            events,
        )?;
        resolved.insert(key.clone(), Value::String(v.into()));
    }
    Ok((!resolved.is_empty()).then_some(resolved))
}

// ---------------------------------------------------------------------------------------------
// Configured headers (CA/core/provider-composer.js).
// ---------------------------------------------------------------------------------------------

/// `configuredHeaders(config, extension)` (CA/core/provider-composer.js:174–178): the
/// provider-level `headers` of models.json (no extension layer here).
pub fn configured_headers(config: Option<&Object>) -> Option<Object> {
    config.and_then(|c| c.get_object("headers")).cloned()
}

/// `rawModelHeaders(model, config, extension)` (CA/core/provider-composer.js:274–283):
/// `{...modelOverrides[id].headers, ...models.find(id).headers}`, `undefined` when empty.
pub fn raw_model_headers(model: &Model, config: Option<&Object>) -> Option<Object> {
    let config = config?;
    let mut headers = Object::new();
    if let Some(h) = config
        .get_object("modelOverrides")
        .and_then(|o| o.get_object(model.id()))
        .and_then(|o| o.get_object("headers"))
    {
        headers.spread(h);
    }
    let definition = config.get_array("models").and_then(|ms| {
        ms.iter()
            .filter_map(Value::as_object)
            .find(|m| m.get_str("id") == Some(model.id()))
    });
    if let Some(h) = definition.and_then(|d| d.get_object("headers")) {
        headers.spread(h);
    }
    (!headers.is_empty()).then_some(headers)
}

/// `resolveConfiguredModelHeaders(model, config, extension, env)`
/// (CA/core/provider-composer.js:378–380).
pub fn resolve_configured_model_headers(
    model: &Model,
    config: Option<&Object>,
    env: &BTreeMap<String, String>,
    events: &mut Events,
) -> Result<Option<Object>, String> {
    let desc = format!("model \"{}/{}\"", model.provider(), model.id());
    resolve_headers_or_throw(
        raw_model_headers(model, config).as_ref(),
        &desc,
        env,
        events,
    )
}

/// What `resolveCompatibilityRequestConfig` returns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompatibilityRequestConfig {
    pub headers: Option<Object>,
    pub auth_header: bool,
}

/// `resolveCompatibilityRequestConfig(model, config, extension)`
/// (CA/core/provider-composer.js:381–387): `ModelRegistry.getApiKeyAndHeaders`'s fallback when
/// the provider has no auth (extensions and compaction use it; the agent's own request does not).
/// Provider then model headers resolved, spread over the model's own `headers`.
pub fn resolve_compatibility_request_config(
    model: &Model,
    config: Option<&Object>,
    env: &BTreeMap<String, String>,
    events: &mut Events,
) -> Result<CompatibilityRequestConfig, String> {
    let mut raw = configured_headers(config).unwrap_or_default();
    if let Some(h) = raw_model_headers(model, config) {
        raw.spread(&h);
    }
    let desc = format!("model \"{}/{}\"", model.provider(), model.id());
    let configured =
        resolve_headers_or_throw((!raw.is_empty()).then_some(&raw), &desc, env, events)?;
    let headers = if model.headers().is_some() || configured.is_some() {
        let mut h = model.headers().cloned().unwrap_or_default();
        if let Some(c) = &configured {
            h.spread(c);
        }
        Some(h)
    } else {
        None
    };
    Ok(CompatibilityRequestConfig {
        headers,
        auth_header: config
            .and_then(|c| c.get("authHeader"))
            .is_some_and(Value::truthy),
    })
}

// ---------------------------------------------------------------------------------------------
// Auth headers.
// ---------------------------------------------------------------------------------------------

/// The part of an `AuthResolution` that shapes headers: `auth.apiKey`, `auth.headers`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Auth {
    pub api_key: Option<String>,
    pub headers: Option<Object>,
}

/// `ctx.env(name)` of the default auth context (AI/auth/context.js:17–21): a value only when it
/// is not blank.
fn ctx_env<'a>(name: &str, env: &'a BTreeMap<String, String>) -> Option<&'a str> {
    env.get(name)
        .map(String::as_str)
        .filter(|v| !v.trim().is_empty())
}

/// The built-in API-key auth's `resolve` result, as far as it carries headers offline
/// (`inherited.resolve`, CA/core/provider-composer.js:236–249):
/// - anthropic without a configured key: `ANTHROPIC_AUTH_TOKEN` becomes
///   `Authorization: Bearer <token>` and no key (AI/providers/anthropic.js:16–35);
/// - cloudflare-ai-gateway: `cf-aig-authorization: Bearer <key>` and no key, once the account
///   and gateway ids are set (AI/providers/cloudflare-auth.js:68–83). Its `Authorization: null`
///   and `x-api-key: null` members (which make the SDK drop those headers) cannot be carried by
///   string headers and are noted instead.
///
/// Everything else: the key the registry resolved, no headers.
pub fn builtin_auth(
    provider: &str,
    configured_key: Option<&str>,
    registry_key: Option<&str>,
    env: &BTreeMap<String, String>,
    events: &mut Events,
) -> Auth {
    match provider {
        "anthropic" if configured_key.is_none() => {
            if let Some(token) = ctx_env("ANTHROPIC_AUTH_TOKEN", env) {
                return Auth {
                    api_key: None,
                    headers: Some(Object::new().with("Authorization", format!("Bearer {token}"))),
                };
            }
        }
        "cloudflare-ai-gateway" => {
            let key = configured_key.or_else(|| ctx_env("CLOUDFLARE_API_KEY", env));
            let ids = ctx_env("CLOUDFLARE_ACCOUNT_ID", env).is_some()
                && ctx_env("CLOUDFLARE_GATEWAY_ID", env).is_some();
            if let (Some(key), true) = (key.filter(|k| !k.is_empty()), ids) {
                events.push(
                    Event::new(EventKind::Note, "cloudflare-ai-gateway auth also sets Authorization and x-api-key to null (the SDK drops them); not modelled")
                        .at("AI/providers/cloudflare-auth.js:74"),
                );
                return Auth {
                    api_key: None,
                    headers: Some(
                        Object::new().with("cf-aig-authorization", format!("Bearer {key}")),
                    ),
                };
            }
        }
        _ => {}
    }
    Auth {
        api_key: registry_key.map(String::from),
        headers: None,
    }
}

/// `withConfiguredAuth(auth, headers, authHeader)` (CA/core/provider-composer.js:162–169):
/// `{...auth.headers, ...headers}` (plain spread), then `Authorization: Bearer <apiKey>` when
/// `authHeader` is set (an error without a key).
pub fn with_configured_auth(
    auth: Auth,
    headers: Option<&Object>,
    auth_header: bool,
) -> Result<Auth, String> {
    let mut merged = if auth.headers.is_some() || headers.is_some() {
        let mut m = auth.headers.clone().unwrap_or_default();
        if let Some(h) = headers {
            m.spread(h);
        }
        Some(m)
    } else {
        None
    };
    if auth_header {
        let Some(key) = &auth.api_key else {
            return Err("authHeader requires a resolved API key".into());
        };
        merged.get_or_insert_with(Object::new).insert(
            "Authorization",
            Value::String(format!("Bearer {key}").into()),
        );
    }
    Ok(Auth {
        api_key: auth.api_key,
        headers: merged,
    })
}

/// `composeApiKeyAuth(...).resolve` for the request (CA/core/provider-composer.js:230–256):
/// the built-in auth, then the provider's configured headers (env templates resolved) and
/// `authHeader`. pi wraps a failure as "API key auth failed for provider X: ..."
/// (AI/auth/resolve.js:118–124).
pub fn resolve_provider_auth(
    model: &Model,
    registry: &Registry,
    env: &BTreeMap<String, String>,
    events: &mut Events,
) -> Result<Auth, String> {
    let provider = model.provider();
    let config = registry.provider_config(provider);
    // A stored credential (`--api-key`, CA/core/runtime-credentials.js:19–23) resolves before
    // the configured key and the environment (CA/core/provider-composer.js:236).
    let configured_key = registry
        .runtime_api_key(provider)
        .or_else(|| config.and_then(|c| c.get_str("apiKey")));
    let auth = builtin_auth(
        provider,
        configured_key,
        registry.api_key(provider),
        env,
        events,
    );
    let wrap = |e: String| format!("API key auth failed for provider {provider}: {e}");
    let raw = configured_headers(config);
    let headers = resolve_headers_or_throw(
        raw.as_ref(),
        &format!("provider \"{provider}\""),
        env,
        events,
    )
    .map_err(wrap)?;
    let auth_header = config
        .and_then(|c| c.get("authHeader"))
        .is_some_and(Value::truthy);
    with_configured_auth(auth, headers.as_ref(), auth_header).map_err(wrap)
}

/// `ModelRuntime.getAuth(model)` (CA/core/model-runtime.js:343–355, over `Models.getAuth`,
/// AI/models.js:275–290): the provider auth's headers, the model's own `headers`, then the
/// models.json model-level headers, each merged case-insensitively.
pub fn get_auth(
    model: &Model,
    registry: &Registry,
    env: &BTreeMap<String, String>,
    events: &mut Events,
) -> Result<Auth, String> {
    let mut auth = resolve_provider_auth(model, registry, env, events)?;
    if let Some(h) = model.headers() {
        auth.headers = merge_headers(auth.headers.as_ref(), Some(h));
    }
    let configured = resolve_configured_model_headers(
        model,
        registry.provider_config(model.provider()),
        env,
        events,
    )?;
    auth.headers = merge_headers(auth.headers.as_ref(), configured.as_ref());
    Ok(auth)
}

// ---------------------------------------------------------------------------------------------
// Attribution (CA/core/provider-attribution.js, CA/core/telemetry.js).
// ---------------------------------------------------------------------------------------------

/// `isTruthyEnvFlag(value)` (CA/core/telemetry.js:1–5): "1", "true" or "yes" (any case).
pub fn is_truthy_env_flag(value: Option<&str>) -> bool {
    match value {
        None | Some("") => false,
        Some(v) => v == "1" || v.to_lowercase() == "true" || v.to_lowercase() == "yes",
    }
}

/// `isInstallTelemetryEnabled(settingsManager, telemetryEnv = process.env.PI_TELEMETRY)`
/// (CA/core/telemetry.js:6–8): `PI_TELEMETRY` decides when it is set at all (even empty),
/// otherwise `settings.enableInstallTelemetry ?? true`.
pub fn is_install_telemetry_enabled(settings: &Settings, env: &BTreeMap<String, String>) -> bool {
    match env.get("PI_TELEMETRY") {
        Some(v) => is_truthy_env_flag(Some(v)),
        None => settings.enable_install_telemetry(),
    }
}

/// `new URL(url).hostname` for the URLs a baseUrl can be: scheme, `//`, optional userinfo, host,
/// optional port; lower-cased. `None` where the URL constructor would throw or there is no
/// host.
fn url_hostname(url: &str) -> Option<String> {
    let url: String = url
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let colon = url.find(':')?;
    let scheme = &url[..colon];
    let mut sc = scheme.chars();
    if !sc.next().is_some_and(|c| c.is_ascii_alphabetic())
        || !sc.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    {
        return None;
    }
    let scheme = scheme.to_ascii_lowercase();
    let special = matches!(
        scheme.as_str(),
        "http" | "https" | "ws" | "wss" | "ftp" | "file"
    );
    let rest = &url[colon + 1..];
    let rest = if special {
        rest.trim_start_matches(['/', '\\'])
    } else {
        rest.strip_prefix("//")?
    };
    let end = rest
        .find(|c: char| c == '/' || c == '?' || c == '#' || (special && c == '\\'))
        .unwrap_or(rest.len());
    let authority = &rest[..end];
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if host_port.starts_with('[') {
        &host_port[..host_port.find(']').map_or(host_port.len(), |i| i + 1)]
    } else {
        host_port.split(':').next().unwrap_or("")
    };
    if host.is_empty() && special && scheme != "file" {
        return None;
    }
    Some(host.to_lowercase())
}

/// `matchesHost(baseUrl, expectedHost)` (CA/core/provider-attribution.js:7–14).
pub fn matches_host(base_url: &str, expected_host: &str) -> bool {
    url_hostname(base_url).is_some_and(|h| h == expected_host)
}

/// `isOpenRouterModel(model)` (CA/core/provider-attribution.js:15–17): a substring test.
pub fn is_open_router_model(model: &Model) -> bool {
    model.provider() == "openrouter" || model.base_url().contains(OPENROUTER_HOST)
}

/// `isNvidiaNimModel(model)` (CA/core/provider-attribution.js:18–20).
pub fn is_nvidia_nim_model(model: &Model) -> bool {
    model.provider() == "nvidia" || matches_host(model.base_url(), NVIDIA_NIM_HOST)
}

/// `isCloudflareModel(model)` (CA/core/provider-attribution.js:21–26).
pub fn is_cloudflare_model(model: &Model) -> bool {
    matches!(
        model.provider(),
        "cloudflare-workers-ai" | "cloudflare-ai-gateway"
    ) || matches_host(model.base_url(), CLOUDFLARE_API_HOST)
        || matches_host(model.base_url(), CLOUDFLARE_AI_GATEWAY_HOST)
}

/// `getDefaultAttributionHeaders(model, settingsManager)` (CA/core/provider-attribution.js:27–49):
/// only with install telemetry on; OpenRouter, then NVIDIA NIM, then Cloudflare.
pub fn get_default_attribution_headers(
    model: &Model,
    settings: &Settings,
    env: &BTreeMap<String, String>,
) -> Option<Object> {
    if !is_install_telemetry_enabled(settings, env) {
        return None;
    }
    if is_open_router_model(model) {
        return Some(
            Object::new()
                .with("HTTP-Referer", "https://pi.dev")
                .with("X-OpenRouter-Title", "pi")
                .with("X-OpenRouter-Categories", "cli-agent"),
        );
    }
    if is_nvidia_nim_model(model) {
        return Some(Object::new().with("X-BILLING-INVOKE-ORIGIN", "Pi"));
    }
    if is_cloudflare_model(model) {
        return Some(Object::new().with("User-Agent", "pi-coding-agent"));
    }
    None
}

/// `getSessionHeaders(model, sessionId)` (CA/core/provider-attribution.js:50–59): opencode
/// (by provider or host) with a non-empty session id.
pub fn get_session_headers(model: &Model, session_id: Option<&str>) -> Option<Object> {
    let sid = session_id.filter(|s| !s.is_empty())?;
    if model.provider() != "opencode"
        && model.provider() != "opencode-go"
        && !matches_host(model.base_url(), OPENCODE_HOST)
    {
        return None;
    }
    Some(
        Object::new()
            .with("x-opencode-session", sid)
            .with("x-opencode-client", "pi"),
    )
}

/// `mergeProviderAttributionHeaders(model, settingsManager, sessionId, ...headerSources)`
/// (CA/core/provider-attribution.js:60–71): session headers, then attribution headers, then each
/// source by `Object.assign` (case-sensitive: a differently cased name stays beside them);
/// `undefined` when empty.
pub fn merge_provider_attribution_headers(
    model: &Model,
    settings: &Settings,
    env: &BTreeMap<String, String>,
    session_id: Option<&str>,
    sources: &[Option<&Object>],
) -> Option<Object> {
    let mut merged = get_session_headers(model, session_id).unwrap_or_default();
    if let Some(a) = get_default_attribution_headers(model, settings, env) {
        merged.spread(&a);
    }
    for h in sources.iter().flatten() {
        merged.spread(h);
    }
    (!merged.is_empty()).then_some(merged)
}

// ---------------------------------------------------------------------------------------------
// The request.
// ---------------------------------------------------------------------------------------------

/// `ModelRuntime.prepareRequest(model, options)` (CA/core/model-runtime.js:422–451) with the
/// coding agent's `transformHeaders` (CA/core/sdk.js:200–205): `getAuth`'s headers, merged with
/// `options.headers` (the agent loop passes none), then `mergeProviderAttributionHeaders(model,
/// settings, sessionId, headers)`; no extension `before_provider_headers` handlers. The result
/// is `options.headers` for the adapter, in pi's key order. `Err` is the message pi throws
/// before any request is sent.
pub fn request_headers(
    pi: &crate::pi::Pi,
    model: &Model,
    registry: &Registry,
    settings: &Settings,
    env: &BTreeMap<String, String>,
    session_id: Option<&str>,
    events: &mut Events,
) -> Result<Vec<(String, String)>, String> {
    let auth = get_auth(model, registry, env, events)?;
    let headers = merge_headers(auth.headers.as_ref(), None).unwrap_or_default();
    let attributed = match pi.rules.client_identity {
        crate::pi::ClientIdentity::OsUserAgent => {
            merge_provider_attribution_headers(model, settings, env, session_id, &[Some(&headers)])
                .unwrap_or_default()
        }
        // 1.4.0 on: only OpenCode's session header here (CA/core/model-runtime.js:476); the
        // attribution is in the client identity ([`identity_headers`]).
        crate::pi::ClientIdentity::PiAi => {
            let opencode = session_id
                .filter(|s| !s.is_empty() && is_opencode_model(model))
                .map(|sid| Object::new().with("x-opencode-session", sid));
            merge_headers(opencode.as_ref(), Some(&headers)).unwrap_or_default()
        }
    };
    let configured: Vec<&crate::js::Str> = headers.keys().collect();
    let added: Vec<&crate::js::Str> = attributed
        .keys()
        .filter(|k| !configured.contains(k))
        .collect();
    if !configured.is_empty() {
        events.push(
            Event::new(
                EventKind::Inserted,
                format!(
                    "configured headers: {}",
                    configured
                        .iter()
                        .map(|k| k.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
            .at("CA/core/model-runtime.js:343"),
        );
    }
    if !added.is_empty() {
        events.push(
            Event::new(
                EventKind::Inserted,
                format!(
                    "provider attribution headers: {}",
                    added
                        .iter()
                        .map(|k| k.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
            .at("CA/core/provider-attribution.js:60"),
        );
    }
    let mut out = Vec::with_capacity(attributed.len());
    for (k, v) in attributed.iter() {
        match v {
            Value::Null => events.push(Event::new(
                EventKind::Dropped,
                format!("header {k} is null: the SDK leaves it out"),
            )),
            v => out.push((k.to_string(), crate::js::to_js_string(Some(v)))),
        }
    }
    Ok(out)
}

/// pi-ai's `hasHeader(headers, name)` (each of AI/api/openai-completions.js:22,
/// openai-responses.js:18, anthropic-messages.js:159 has a copy): a header of that name
/// (`toLowerCase()` on both sides) whose value is not null and not blank after `trim()`.
pub fn has_header(headers: &[(String, String)], name: &str) -> bool {
    let expected = name.to_lowercase();
    headers
        .iter()
        .any(|(k, v)| k.to_lowercase() == expected && !crate::js::js_trim_is_empty(v))
}

/// The `User-Agent` pi sends on linux x64 under the oracle's Node (the process facts a session
/// does not record): `pi (linux 6.1.0; x64)` in 0.85 (`getPiUserAgent`, the OS release), from
/// pi-ai's client identity later (`formatUserAgent("detailed")`, AI/utils/identity.js:26–46):
/// `pi/1.6.0 (linux; node/v22.23.5; x64)`.
pub fn default_user_agent(pi: &crate::pi::Pi) -> String {
    match pi.rules.client_identity {
        crate::pi::ClientIdentity::OsUserAgent => "pi (linux 6.1.0; x64)".to_string(),
        crate::pi::ClientIdentity::PiAi => pi
            .data
            .defaults
            .get("clientIdentity")
            .and_then(|c| c.get_str("userAgentDetailed"))
            .unwrap_or("")
            .replace("{version}", &pi.version.to_string())
            .replace("{platform}", "linux")
            .replace("{nodeVersion}", pi.data.node_version())
            .replace("{arch}", "x64"),
    }
}

/// `getIdentityHeaders(model, identity)` (AI/utils/identity.js:97–99) with the coding agent's
/// identity (`getClientIdentity`, CA/core/client-identity.js:8–14): `User-Agent`, then, with
/// install telemetry on, OpenRouter's, NVIDIA's or OpenCode's attribution headers. Adapters put
/// these below the model's and the request's headers. 0.85 has only the `User-Agent` here (its
/// attribution is in the request's headers, [`request_headers`]).
pub fn identity_headers(
    pi: &crate::pi::Pi,
    model: &Model,
    settings: &Settings,
    env: &BTreeMap<String, String>,
    user_agent: &str,
) -> Vec<(String, String)> {
    let mut out = vec![("User-Agent".to_string(), user_agent.to_string())];
    if pi.rules.client_identity == crate::pi::ClientIdentity::OsUserAgent
        || !is_install_telemetry_enabled(settings, env)
    {
        return out;
    }
    let a = pi
        .data
        .defaults
        .get("clientIdentity")
        .and_then(|c| c.get("attribution"));
    let field = |k: &str| a.and_then(|a| a.get_str(k)).unwrap_or("").to_string();
    let (name, url) = (field("name"), field("url"));
    let categories: Vec<String> = a
        .and_then(|a| a.get("categories"))
        .and_then(Value::as_array)
        .map(|c| {
            c.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    if is_open_router_model(model) {
        out.push(("HTTP-Referer".into(), url));
        out.push(("X-OpenRouter-Title".into(), name));
        if !categories.is_empty() {
            out.push(("X-OpenRouter-Categories".into(), categories.join(",")));
        }
    } else if is_nvidia_nim_model(model) {
        // "NVIDIA expects a capitalized origin, such as `Pi`."
        let mut cap = name.chars();
        let origin = cap
            .next()
            .map(|c| c.to_uppercase().chain(cap).collect())
            .unwrap_or_default();
        out.push(("X-BILLING-INVOKE-ORIGIN".into(), origin));
    } else if is_opencode_model(model) {
        out.push(("x-opencode-client".into(), name));
    }
    out
}

/// `isOpenCode(target)` (AI/utils/identity.js:61–63).
fn is_opencode_model(model: &Model) -> bool {
    matches!(model.provider(), "opencode" | "opencode-go")
        || matches_host(model.base_url(), OPENCODE_HOST)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::SourceText;
    use crate::testcase::pi;

    fn obj(pairs: &[(&str, &str)]) -> Object {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Value::str(*v)))
            .collect()
    }

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn registry(models_json: &str, e: &BTreeMap<String, String>) -> Registry {
        let mut diags = Vec::new();
        let src = SourceText {
            name: "models.json".into(),
            text: models_json.into(),
        };
        let r = Registry::load(&pi(), Some(&src), e, &mut diags);
        assert!(diags.is_empty(), "{diags:?}");
        r
    }

    fn settings(json: &str) -> Settings {
        match crate::js::parse(json) {
            Ok(Value::Object(merged)) => Settings {
                merged,
                ..Default::default()
            },
            other => panic!("settings JSON: {other:?}"),
        }
    }

    fn headers_for(
        models_json: &str,
        reference: (&str, &str),
        e: &BTreeMap<String, String>,
        s: &Settings,
        sid: Option<&str>,
    ) -> Result<Vec<(String, String)>, String> {
        let r = registry(models_json, e);
        let m = r
            .find(reference.0, reference.1)
            .cloned()
            .expect("model in registry");
        request_headers(&pi(), &m, &r, s, e, sid, &mut Events::default())
    }

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn merge_headers_overrides_case_insensitively_and_moves_to_the_end() {
        let base = obj(&[("X-A", "1"), ("x-b", "2"), ("X-B", "3"), ("c", "4")]);
        let merged = merge_headers(Some(&base), Some(&obj(&[("X-b", "9")]))).expect("merged");
        assert_eq!(merged, obj(&[("X-A", "1"), ("c", "4"), ("X-b", "9")]));
        assert_eq!(merge_headers(None, None), None);
        assert_eq!(
            merge_headers(None, Some(&obj(&[("a", "1")]))),
            Some(obj(&[("a", "1")]))
        );
    }

    #[test]
    fn env_templates_resolve_and_missing_variables_fail_like_pi() {
        let e = env(&[("TEAM", "ctx"), ("EMPTY", "")]);
        let mut ev = Events::default();
        let h = obj(&[("a", "$TEAM"), ("b", "x-${TEAM}-$$"), ("c", "plain")]);
        let got =
            resolve_headers_or_throw(Some(&h), "provider \"p\"", &e, &mut ev).expect("resolves");
        assert_eq!(
            got,
            Some(obj(&[("a", "ctx"), ("b", "x-ctx-$"), ("c", "plain")]))
        );
        let err =
            resolve_headers_or_throw(Some(&obj(&[("k", "$NOPE")])), "provider \"p\"", &e, &mut ev)
                .unwrap_err();
        assert_eq!(
            err,
            "Failed to resolve provider \"p\" header \"k\" from environment variable: NOPE"
        );
        let err = resolve_headers_or_throw(Some(&obj(&[("k", "${EMPTY}$NOPE")])), "d", &e, &mut ev)
            .unwrap_err();
        assert_eq!(
            err,
            "Failed to resolve d header \"k\" from environment variables: EMPTY, NOPE"
        );
        assert_eq!(
            resolve_headers_or_throw(Some(&Object::new()), "d", &e, &mut ev),
            Ok(None)
        );
        // A command is kept as written, with a note.
        let got = resolve_headers_or_throw(Some(&obj(&[("k", "!echo hi")])), "d", &e, &mut ev)
            .expect("kept");
        assert_eq!(got, Some(obj(&[("k", "!echo hi")])));
        assert_eq!(ev.len(), 1);
    }

    const LAYERS: &str = r#"{"providers": {"mock": {
        "api": "openai-completions", "baseUrl": "http://127.0.0.1:9/v1", "apiKey": "k",
        "headers": {"X-Team": "$TEAM", "x-provider": "p", "x-shared": "provider"},
        "modelOverrides": {"m": {"headers": {"x-over": "o", "X-Model": "from-override"}}},
        "models": [{"id": "m", "headers": {"x-team": "model", "X-Model": "from-definition"}}, {"id": "n"}]
    }}}"#;

    #[test]
    fn model_level_headers_override_provider_level_ones_case_insensitively() {
        let e = env(&[("TEAM", "ctx")]);
        let got = headers_for(LAYERS, ("mock", "m"), &e, &Settings::default(), Some("sid"))
            .expect("headers");
        assert_eq!(
            got,
            pairs(&[
                ("x-provider", "p"),
                ("x-shared", "provider"),
                ("x-over", "o"),
                ("X-Model", "from-definition"),
                ("x-team", "model")
            ])
        );
        let got =
            headers_for(LAYERS, ("mock", "n"), &e, &Settings::default(), None).expect("headers");
        assert_eq!(
            got,
            pairs(&[
                ("X-Team", "ctx"),
                ("x-provider", "p"),
                ("x-shared", "provider")
            ])
        );
        // A provider header's missing variable fails the request as pi's auth does.
        let err =
            headers_for(LAYERS, ("mock", "n"), &env(&[]), &Settings::default(), None).unwrap_err();
        assert_eq!(err, "API key auth failed for provider mock: Failed to resolve provider \"mock\" header \"X-Team\" from environment variable: TEAM");
    }

    #[test]
    fn auth_header_adds_a_bearer_authorization() {
        let mj = r#"{"providers": {"mock": {"api": "openai-completions", "baseUrl": "http://x/v1", "apiKey": "$KEY", "authHeader": true,
            "headers": {"authorization": "lower"}, "models": [{"id": "m"}]}}}"#;
        let got = headers_for(
            mj,
            ("mock", "m"),
            &env(&[("KEY", "sk")]),
            &Settings::default(),
            None,
        )
        .expect("headers");
        assert_eq!(
            got,
            pairs(&[("authorization", "lower"), ("Authorization", "Bearer sk")])
        );
    }

    const OPENROUTER: &str = r#"{"providers": {"openrouter": {"api": "openai-completions", "baseUrl": "http://127.0.0.1:9/v1", "apiKey": "k",
        "headers": {"X-OpenRouter-Title": "mine"}, "models": [{"id": "z"}]}}}"#;

    #[test]
    fn openrouter_attribution_follows_install_telemetry() {
        let on = headers_for(
            OPENROUTER,
            ("openrouter", "z"),
            &env(&[]),
            &Settings::default(),
            None,
        )
        .expect("headers");
        // The configured header wins by value and keeps the attribution's position.
        assert_eq!(
            on,
            pairs(&[
                ("HTTP-Referer", "https://pi.dev"),
                ("X-OpenRouter-Title", "mine"),
                ("X-OpenRouter-Categories", "cli-agent")
            ])
        );
        let only_configured = pairs(&[("X-OpenRouter-Title", "mine")]);
        for (e, s) in [
            (env(&[("PI_TELEMETRY", "0")]), Settings::default()),
            (env(&[("PI_TELEMETRY", "")]), Settings::default()),
            (env(&[]), settings(r#"{"enableInstallTelemetry": false}"#)),
        ] {
            assert_eq!(
                headers_for(OPENROUTER, ("openrouter", "z"), &e, &s, None).expect("headers"),
                only_configured
            );
        }
        // PI_TELEMETRY, when set, beats the setting.
        let s = settings(r#"{"enableInstallTelemetry": false}"#);
        for v in ["1", "TRUE", "yes"] {
            assert_eq!(
                headers_for(
                    OPENROUTER,
                    ("openrouter", "z"),
                    &env(&[("PI_TELEMETRY", v)]),
                    &s,
                    None
                )
                .expect("headers"),
                on
            );
        }
        assert!(is_install_telemetry_enabled(
            &settings(r#"{"enableInstallTelemetry": null}"#),
            &env(&[])
        ));
    }

    #[test]
    fn attribution_by_provider_and_host() {
        let m = |provider: &str, base: &str| Model {
            obj: Object::new()
                .with("id", "x")
                .with("provider", provider)
                .with("baseUrl", base),
        };
        let s = Settings::default();
        let e = env(&[]);
        let keys = |m: &Model| {
            get_default_attribution_headers(m, &s, &e)
                .map(|o| o.keys().cloned().collect::<Vec<_>>())
                .unwrap_or_default()
        };
        assert_eq!(
            keys(&m("x", "https://proxy/openrouter.ai/v1")),
            [
                "HTTP-Referer",
                "X-OpenRouter-Title",
                "X-OpenRouter-Categories"
            ]
        );
        assert_eq!(
            keys(&m("x", "https://integrate.api.nvidia.com/v1")),
            ["X-BILLING-INVOKE-ORIGIN"]
        );
        assert_eq!(
            keys(&m("nvidia", "http://127.0.0.1")),
            ["X-BILLING-INVOKE-ORIGIN"]
        );
        assert_eq!(
            keys(&m("x", "https://u:p@GATEWAY.ai.cloudflare.com:443/v1")),
            ["User-Agent"]
        );
        assert_eq!(keys(&m("cloudflare-workers-ai", "")), ["User-Agent"]);
        assert!(keys(&m("x", "https://integrate.api.nvidia.com.evil/v1")).is_empty());
        assert!(keys(&m("x", "integrate.api.nvidia.com")).is_empty());
        assert!(keys(&m("x", "")).is_empty());
    }

    #[test]
    fn opencode_session_headers_need_a_session_id() {
        let m = |provider: &str, base: &str| Model {
            obj: Object::new()
                .with("id", "x")
                .with("provider", provider)
                .with("baseUrl", base),
        };
        let want = Some(obj(&[
            ("x-opencode-session", "s1"),
            ("x-opencode-client", "pi"),
        ]));
        assert_eq!(
            get_session_headers(&m("opencode", "http://127.0.0.1/v1"), Some("s1")),
            want
        );
        assert_eq!(
            get_session_headers(&m("opencode-go", "http://127.0.0.1/v1"), Some("s1")),
            want
        );
        assert_eq!(
            get_session_headers(&m("mine", "https://opencode.ai/zen/v1"), Some("s1")),
            want
        );
        assert_eq!(
            get_session_headers(&m("opencode", "http://127.0.0.1/v1"), None),
            None
        );
        assert_eq!(
            get_session_headers(&m("opencode", "http://127.0.0.1/v1"), Some("")),
            None
        );
        assert_eq!(
            get_session_headers(&m("mine", "https://api.opencode.ai.x/v1"), Some("s1")),
            None
        );
        // Session headers first, then a request header of the same name replaces the value in place.
        let s = Settings::default();
        let merged = merge_provider_attribution_headers(
            &m("opencode", ""),
            &s,
            &env(&[]),
            Some("s1"),
            &[Some(&obj(&[("a", "1"), ("x-opencode-client", "me")]))],
        );
        assert_eq!(
            merged,
            Some(obj(&[
                ("x-opencode-session", "s1"),
                ("x-opencode-client", "me"),
                ("a", "1")
            ]))
        );
        assert_eq!(
            merge_provider_attribution_headers(&m("x", ""), &s, &env(&[]), Some("s1"), &[None]),
            None
        );
    }

    #[test]
    fn anthropic_auth_token_becomes_an_authorization_header() {
        let e = env(&[("ANTHROPIC_AUTH_TOKEN", "tok")]);
        let r = Registry::load(&pi(), None, &e, &mut Vec::new());
        let m = r
            .find("anthropic", "claude-sonnet-4-5")
            .cloned()
            .expect("catalog model");
        let got = request_headers(
            &pi(),
            &m,
            &r,
            &Settings::default(),
            &e,
            None,
            &mut Events::default(),
        )
        .expect("headers");
        assert_eq!(got, pairs(&[("Authorization", "Bearer tok")]));
        // A blank token is not a token.
        let e = env(&[("ANTHROPIC_AUTH_TOKEN", "  ")]);
        assert_eq!(
            request_headers(
                &pi(),
                &m,
                &r,
                &Settings::default(),
                &e,
                None,
                &mut Events::default()
            ),
            Ok(Vec::new())
        );
    }

    #[test]
    fn compatibility_config_spreads_provider_then_model_headers() {
        let e = env(&[("TEAM", "ctx")]);
        let r = registry(LAYERS, &e);
        let m = r.find("mock", "m").cloned().expect("model");
        let c = resolve_compatibility_request_config(
            &m,
            r.provider_config("mock"),
            &e,
            &mut Events::default(),
        )
        .expect("config");
        assert!(!c.auth_header);
        assert_eq!(
            c.headers,
            Some(obj(&[
                ("X-Team", "ctx"),
                ("x-provider", "p"),
                ("x-shared", "provider"),
                ("x-over", "o"),
                ("X-Model", "from-definition"),
                ("x-team", "model")
            ]))
        );
    }
}

//! Model resolution (CA/core/model-resolver.js) and the model and thinking level pi starts with (CA/core/sdk.js).

use std::collections::HashMap;

use crate::diagnostics::Diagnostic;
use crate::js::{js_trim, Value};
use crate::pi::Pi;
use crate::trace::{Event, EventKind, Events};

use super::thinking::{clamp_thinking_level, is_valid_thinking_level, THINKING_LEVELS};
use super::{Model, Registry};

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
pub(super) fn locale_compare(a: &str, b: &str) -> std::cmp::Ordering {
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
pub(super) struct Resolved {
    pub(super) model: Option<Model>,
    pub(super) thinking_level: Option<String>,
    pub(super) warning: Option<String>,
    pub(super) error: Option<String>,
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
pub(super) fn resolve_cli_model(
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
        .map(|v| crate::js::to_js_string(Some(v)))
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
                    crate::js::to_js_string(Some(v)),
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

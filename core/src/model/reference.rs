//! Model references as pi 1.6.0 reads them ([`CliResolution::Reference`]): `resolveModelReference`
//! and the `resolveCliModel` rewritten around it ("1.6.0/CA/core/model-resolver.js:81"). A
//! second port beside 0.85's `resolveCliModel` (the `resolver` module).
//!
//! [`CliResolution::Reference`]: crate::pi::CliResolution::Reference

// Text from the user: no string is sliced by byte range (a cut inside a character panics).
#![deny(clippy::string_slice)]

use std::collections::HashSet;

use crate::js::{from_utf16, js_trim, utf16_len, utf16_units, Value};
use crate::pi::Pi;

use super::resolver::{is_alias, locale_compare, Resolved};
use super::thinking::is_valid_thinking_level;
use super::{Model, Registry};

/// Where an unresolved reference would land: a known provider and the id asked of it
/// (`result.target`, :96–104).
#[derive(Clone, Debug)]
pub(super) struct Target<'a> {
    pub(super) provider: String,
    /// The anchor first, then the provider's other models in catalog order.
    pub(super) provider_models: Vec<&'a Model>,
    pub(super) model_text: String,
    pub(super) model_id: String,
    pub(super) thinking_level: Option<String>,
}

/// `result.status` with what each status carries.
#[derive(Clone, Debug)]
pub(super) enum Status<'a> {
    Resolved(&'a Model),
    Ambiguous {
        candidates: Vec<&'a Model>,
        usable_count: usize,
    },
    NotFound(Option<Target<'a>>),
}

/// What `resolveModelReference` returns.
#[derive(Clone, Debug)]
pub(super) struct Reference<'a> {
    pub(super) status: Status<'a>,
    pub(super) thinking_level: Option<String>,
}

impl<'a> Reference<'a> {
    fn of(status: Status<'a>) -> Self {
        Reference {
            status,
            thinking_level: None,
        }
    }
    fn not_found() -> Self {
        Reference::of(Status::NotFound(None))
    }
    fn is_not_found(&self) -> bool {
        matches!(self.status, Status::NotFound(_))
    }
}

/// `text.toLowerCase()`.
fn lower(s: &str) -> String {
    s.to_lowercase()
}

/// How many providers the models name (`new Set(models.map(m => m.provider)).size`).
fn provider_count(models: &[&Model]) -> usize {
    models
        .iter()
        .map(|m| m.provider())
        .collect::<HashSet<_>>()
        .len()
}

/// `splitThinkingSuffix(text)` (:53–59): `(base, level)` when the text after the last `:` is a
/// valid thinking level.
fn split_thinking_suffix(text: &str) -> Option<(&str, &str)> {
    let (base, suffix) = text.rsplit_once(':')?;
    is_valid_thinking_level(suffix).then_some((base, suffix))
}

/// `splitProviderPrefix(text, models)` (:60–76): the longest known provider id followed by `/`
/// (provider ids may hold `/` themselves), and the trimmed text after it, when not empty. JS
/// string indices are UTF-16 units, and the slash is found in the lower-cased text.
fn split_provider_prefix<'a>(
    text: &str,
    models: &[&'a Model],
    longest: bool,
) -> Option<(&'a str, String)> {
    if !longest {
        return split_at_first_slash(text, models);
    }
    let lower_units = utf16_units(&lower(text));
    let text_units = utf16_units(text);
    let mut best: Option<(&'a str, String)> = None;
    let mut seen: Option<&str> = None;
    for m in models {
        let provider = m.provider();
        // Models come grouped by provider: the same provider gives the same answer again.
        if seen == Some(provider) {
            continue;
        }
        seen = Some(provider);
        let prefix = lower(js_trim(provider));
        if prefix.is_empty()
            || best
                .as_ref()
                .is_some_and(|(b, _)| utf16_len(b) >= utf16_len(provider))
        {
            continue;
        }
        let from = utf16_len(&prefix);
        let Some(slash) = lower_units
            .get(from..)
            .and_then(|rest| rest.iter().position(|&u| u == u16::from(b'/')))
            .map(|i| i + from)
        else {
            continue;
        };
        if js_trim(&from_utf16(&lower_units[..slash])) != prefix {
            continue;
        }
        let after = text_units.get(slash + 1..).unwrap_or(&[]);
        let model_text = js_trim(&from_utf16(after)).to_string();
        if !model_text.is_empty() {
            best = Some((provider, model_text));
        }
    }
    best
}

/// Until 1.5.0 (#11394) `splitProviderPrefix` split at the first `/`: the trimmed, lower-cased
/// text before it names a provider (compared with its lower-cased id), the trimmed rest is the
/// model text (1.4.0/CA/core/model-resolver.js:60–70).
fn split_at_first_slash<'a>(text: &str, models: &[&'a Model]) -> Option<(&'a str, String)> {
    let (before, after) = text.split_once('/')?;
    let prefix = lower(js_trim(before));
    let model_text = js_trim(after).to_string();
    if prefix.is_empty() || model_text.is_empty() {
        return None;
    }
    models
        .iter()
        .find(|m| lower(m.provider()) == prefix)
        .map(|m| (m.provider(), model_text))
}

/// `fuzzyMatches(text, models)` (:183–186): the id or the name holds the text, any case.
fn fuzzy_matches<'a>(text: &str, models: &[&'a Model]) -> Vec<&'a Model> {
    let needle = lower(text);
    models
        .iter()
        .copied()
        .filter(|m| {
            lower(m.id()).contains(&needle)
                || m.obj
                    .get_str("name")
                    .is_some_and(|n| lower(n).contains(&needle))
        })
        .collect()
}

/// `bestFuzzyMatch(matches)` (:207–210): aliases before dated ids, then the highest id by
/// `localeCompare` (a stable sort: equal ids keep catalog order).
fn best_fuzzy_match<'a>(matches: &[&'a Model]) -> Option<&'a Model> {
    let aliases: Vec<&Model> = matches
        .iter()
        .copied()
        .filter(|m| is_alias(m.id()))
        .collect();
    let mut pool = if aliases.is_empty() {
        matches.to_vec()
    } else {
        aliases
    };
    pool.sort_by(|a, b| locale_compare(b.id(), a.id()));
    pool.first().copied()
}

/// `selectFuzzy(matches, usable)` (:187–205): among several providers the usable matches (when
/// any) decide; the same best id on several providers is ambiguous.
fn select_fuzzy<'a>(matches: &[&'a Model], usable: &dyn Fn(&str) -> bool) -> Option<Reference<'a>> {
    if matches.is_empty() {
        return None;
    }
    let usable_matches: Vec<&Model> = if provider_count(matches) > 1 {
        matches
            .iter()
            .copied()
            .filter(|m| usable(m.provider()))
            .collect()
    } else {
        Vec::new()
    };
    let pool: &[&Model] = if usable_matches.is_empty() {
        matches
    } else {
        &usable_matches
    };
    let best = best_fuzzy_match(pool)?;
    let tied: Vec<&Model> = pool
        .iter()
        .copied()
        .filter(|m| m.id() == best.id())
        .collect();
    if provider_count(&tied) == 1 {
        return Some(Reference::of(Status::Resolved(best)));
    }
    let usable_count = if usable_matches.is_empty() {
        0
    } else {
        tied.len()
    };
    Some(Reference::of(Status::Ambiguous {
        candidates: tied,
        usable_count,
    }))
}

/// `selectReference(text, pool, fuzzy, usable)` (:154–182): the named provider's literal id,
/// else the raw id on that provider, else (fuzzy) its best match; then the raw id on other
/// providers. One provider: resolved. Several: the named one when usable, else the sole usable
/// raw match, else the named one, else ambiguous.
fn select_reference<'a>(
    text: &str,
    pool: &[&'a Model],
    fuzzy: bool,
    longest: bool,
    usable: &dyn Fn(&str) -> bool,
) -> Option<Reference<'a>> {
    let lower_text = lower(text);
    let raw: Vec<&Model> = pool
        .iter()
        .copied()
        .filter(|m| lower(m.id()) == lower_text)
        .collect();
    let named: Option<&Model> =
        split_provider_prefix(text, pool, longest).and_then(|(provider, rest)| {
            let provider_models: Vec<&Model> = pool
                .iter()
                .copied()
                .filter(|m| m.provider() == provider)
                .collect();
            let lower_rest = lower(&rest);
            provider_models
                .iter()
                .copied()
                .find(|m| lower(m.id()) == lower_rest)
                .or_else(|| raw.iter().copied().find(|m| m.provider() == provider))
                .or_else(|| {
                    fuzzy
                        .then(|| best_fuzzy_match(&fuzzy_matches(&rest, &provider_models)))
                        .flatten()
                })
        });
    let others: Vec<&Model> = raw
        .iter()
        .copied()
        .filter(|m| !named.is_some_and(|n| std::ptr::eq(*m, n)))
        .collect();
    let candidates: Vec<&Model> = named.into_iter().chain(others.iter().copied()).collect();
    if candidates.is_empty() {
        return None;
    }
    if provider_count(&candidates) == 1 {
        return Some(Reference::of(Status::Resolved(candidates[0])));
    }
    if let Some(n) = named.filter(|n| usable(n.provider())) {
        return Some(Reference::of(Status::Resolved(n)));
    }
    let usable_others: Vec<&Model> = others
        .iter()
        .copied()
        .filter(|m| usable(m.provider()))
        .collect();
    if usable_others.len() == 1 {
        return Some(Reference::of(Status::Resolved(usable_others[0])));
    }
    if let (true, Some(n)) = (usable_others.is_empty(), named) {
        return Some(Reference::of(Status::Resolved(n)));
    }
    Some(Reference::of(Status::Ambiguous {
        candidates,
        usable_count: usable_others.len(),
    }))
}

/// `resolveText(text, request, pool, usable)` (:112–146) with `thinkingSuffix: "strict"` (what
/// `--model` uses; `"none"` and `"lenient"` serve the model scopes, not ported): a valid `:level`
/// is split off; an invalid one stays part of the
/// id, so nothing else resolves.
fn resolve_text<'a>(
    text: &str,
    fuzzy: bool,
    longest: bool,
    pool: &[&'a Model],
    usable: &dyn Fn(&str) -> bool,
) -> Reference<'a> {
    if let Some(r) = select_reference(text, pool, fuzzy, longest, usable) {
        return r;
    }
    if fuzzy {
        if let Some(r) = select_fuzzy(&fuzzy_matches(text, pool), usable) {
            return r;
        }
    }
    let Some((base, level)) = split_thinking_suffix(text) else {
        return Reference::not_found();
    };
    let inner = resolve_text(base, fuzzy, longest, pool, usable);
    if inner.is_not_found() {
        return inner;
    }
    Reference {
        thinking_level: Some(level.to_string()),
        ..inner
    }
}

/// `resolveModelReference(request, models, usable)` (:81–106): `usable` only breaks ties
/// between providers. Not found on a known provider (named by `provider`, or by the text's
/// prefix) gives that provider as the target.
pub(super) fn resolve_model_reference<'a>(
    text: &str,
    provider: Option<&str>,
    fuzzy: bool,
    longest: bool,
    models: &[&'a Model],
    usable: &dyn Fn(&str) -> bool,
) -> Reference<'a> {
    let text = js_trim(text);
    if text.is_empty() {
        return Reference::not_found();
    }
    let constraint = provider.map(lower);
    let pool: Vec<&Model> = match &constraint {
        Some(c) => models
            .iter()
            .copied()
            .filter(|m| lower(m.provider()) == *c)
            .collect(),
        None => models.to_vec(),
    };
    let result = resolve_text(text, fuzzy, longest, &pool, usable);
    if !result.is_not_found() {
        return result;
    }
    let split = split_provider_prefix(text, &pool, longest);
    let anchor = match (&constraint, &split) {
        (Some(_), _) => pool.first().copied(),
        (None, Some((p, _))) => pool.iter().copied().find(|m| m.provider() == *p),
        (None, None) => None,
    };
    let Some(anchor) = anchor else {
        return result;
    };
    let model_text = split.map_or_else(|| text.to_string(), |(_, rest)| rest);
    let level = split_thinking_suffix(&model_text).map(|(b, l)| (b.to_string(), l.to_string()));
    let provider_models: Vec<&Model> = std::iter::once(anchor)
        .chain(
            pool.iter()
                .copied()
                .filter(|m| m.provider() == anchor.provider() && !std::ptr::eq(*m, anchor)),
        )
        .collect();
    Reference::of(Status::NotFound(Some(Target {
        provider: anchor.provider().to_string(),
        provider_models,
        model_id: level
            .as_ref()
            .map_or_else(|| model_text.clone(), |(b, _)| b.clone()),
        thinking_level: level.map(|(_, l)| l),
        model_text,
    })))
}

/// `buildFallbackModel(providerModels, modelId)` (:214–224): the provider's default model (its
/// first when the default is not among them) spread, with the id and name asked for.
fn build_fallback_model(pi: &Pi, provider_models: &[&Model], model_id: &str) -> Model {
    let first = provider_models[0];
    let default_id = pi
        .data
        .defaults
        .get("defaultModelPerProvider")
        .and_then(|d| d.get_str(first.provider()));
    let base = default_id
        .and_then(|d| provider_models.iter().copied().find(|m| m.id() == d))
        .unwrap_or(first);
    let mut obj = base.obj.clone();
    obj.insert("id", Value::str(model_id));
    obj.insert("name", Value::str(model_id));
    Model { obj }
}

/// `resolveCliModel({cliProvider, cliModel, cliThinking, inlineApiKey})` (:307–375) over every
/// model, credentials only breaking ties (never with `--api-key`).
pub(super) fn resolve_cli_model(
    pi: &Pi,
    registry: &Registry,
    cli_provider: Option<&str>,
    cli_model: &str,
    cli_thinking: Option<&str>,
    inline_api_key: bool,
) -> Resolved {
    let error = |e: String| Resolved {
        error: Some(e),
        ..Default::default()
    };
    let models: Vec<&Model> = registry.models.iter().collect();
    if models.is_empty() {
        return error(
            "No models available. Check your installation or add models to models.json.".into(),
        );
    }
    let cli_provider = cli_provider.filter(|p| !p.is_empty());
    let provider = cli_provider.and_then(|p| {
        let wanted = lower(p);
        models
            .iter()
            .find(|m| lower(m.provider()) == wanted)
            .map(|m| m.provider())
    });
    if let (Some(p), None) = (cli_provider, provider) {
        return error(format!(
            "Unknown provider \"{p}\". Use --list-models to see available providers/models."
        ));
    }
    let usable = |p: &str| !inline_api_key && registry.has_configured_auth(p);
    let longest = pi.rules.model.longest_provider_prefix;
    let result = resolve_model_reference(cli_model, provider, true, longest, &models, &usable);
    let target = match result.status {
        Status::Resolved(m) => {
            return Resolved {
                model: Some(m.clone()),
                thinking_level: result.thinking_level,
                warning: None,
                error: None,
            }
        }
        Status::Ambiguous {
            candidates,
            usable_count,
        } => {
            let mut refs: Vec<String> = candidates.iter().map(|m| m.reference()).collect();
            refs.sort_by(|a, b| locale_compare(a, b));
            let hint = if inline_api_key {
                "--api-key does not choose a provider."
            } else if usable_count == 0 {
                "No matching provider is authenticated."
            } else {
                "More than one matching provider is authenticated."
            };
            return error(format!(
                "Model \"{cli_model}\" is ambiguous across providers: {}. {hint} Use --provider or provider/model.",
                refs.join(", ")
            ));
        }
        Status::NotFound(None) => {
            return error(format!(
                "Model \"{cli_model}\" not found. Use --list-models to see available models."
            ))
        }
        Status::NotFound(Some(target)) => target,
    };
    // With --thinking the suffix stays part of the custom model id.
    let model_id = if cli_thinking.is_some() {
        &target.model_text
    } else {
        &target.model_id
    };
    let fallback_thinking = if cli_thinking.is_some() {
        None
    } else {
        target.thinking_level.clone()
    };
    let mut model = build_fallback_model(pi, &target.provider_models, model_id);
    let requested = cli_thinking.map(String::from).or(fallback_thinking.clone());
    if requested.as_deref().is_some_and(|r| r != "off") {
        model.obj.insert("reasoning", Value::Bool(true));
    }
    Resolved {
        model: Some(model),
        thinking_level: fallback_thinking,
        warning: Some(format!(
            "Model \"{model_id}\" not found for provider \"{}\". Using custom model id.",
            target.provider
        )),
        error: None,
    }
}

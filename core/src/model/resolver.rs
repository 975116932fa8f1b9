//! Model resolution (CA/core/model-resolver.js) and the model and thinking level pi starts with (CA/core/sdk.js).

use std::collections::HashMap;

use crate::diagnostics::Diagnostic;
use crate::js::{js_trim, Object, Value};
use crate::pi::{CliResolution, Pi};
use crate::trace::{Event, EventKind, Events};

use super::thinking::{clamp_thinking_level, is_valid_thinking_level, THINKING_LEVELS};
use super::{Model, Registry};

/// `isAlias(id)` (CA/core/model-resolver.js:56–63): ends with `-latest`, or not with `-YYYYMMDD`.
pub(super) fn is_alias(id: &str) -> bool {
    if id.ends_with("-latest") {
        return true;
    }
    let b = id.as_bytes();
    let dated =
        b.len() >= 9 && b[b.len() - 9] == b'-' && b[b.len() - 8..].iter().all(u8::is_ascii_digit);
    !dated
}

/// The ASCII punctuation and symbols in the order of ICU's root collation (what V8's
/// `localeCompare` uses; dumped with Node 22): `_` before `-` before `:` before `.` before `/`.
const ASCII_SYMBOL_ORDER: &str = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$";

/// An approximation of `a.localeCompare(b)` (ICU root collation) good for model ids: spaces,
/// then punctuation and symbols (ASCII ones in ICU's order), then digits, then letters, all
/// case-insensitively first; then lower case before upper case.
pub(super) fn locale_compare(a: &str, b: &str) -> std::cmp::Ordering {
    fn key(c: char) -> (u8, usize, String) {
        if c.is_alphabetic() {
            (3, 0, c.to_lowercase().collect())
        } else if c.is_numeric() {
            (2, 0, c.to_string())
        } else if c.is_whitespace() {
            (0, 0, String::new())
        } else {
            let rank = ASCII_SYMBOL_ORDER
                .find(c)
                .unwrap_or(ASCII_SYMBOL_ORDER.len());
            (1, rank, c.to_string())
        }
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

/// `resolveCliModel({cliProvider, cliModel, cliThinking})` (CA/core/model-resolver.js:291–463),
/// [`CliResolution::FirstSlash`](crate::pi::CliResolution::FirstSlash).
pub(super) fn resolve_cli_model(
    pi: &Pi,
    registry: &Registry,
    cli_provider: Option<&str>,
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
    let provider_map = provider_map(&all);
    let cli_provider = cli_provider.filter(|p| !p.is_empty());
    let mut provider: Option<&str> =
        cli_provider.and_then(|p| provider_map.get(&p.to_lowercase()).copied());
    if let (Some(p), None) = (cli_provider, provider) {
        return Resolved {
            error: Some(format!(
                "Unknown provider \"{p}\". Use --list-models to see available providers/models."
            )),
            ..Default::default()
        };
    }
    let mut pattern: std::borrow::Cow<str> = cli_model.into();
    let mut inferred = false;
    if provider.is_none() {
        if let Some(slash) = cli_model.find('/') {
            if let Some(canonical) = provider_map.get(&cli_model[..slash].to_lowercase()) {
                provider = Some(canonical);
                pattern = cli_model[slash + 1..].into();
                inferred = true;
            }
        }
    }
    let q = CliQuery {
        registry,
        lower: cli_model.to_lowercase(),
        all,
        cli_model,
    };
    if provider.is_none() {
        if let Some(r) = q.exact_across_providers() {
            return r;
        }
    }
    // Both given: `--model <provider>/<pattern>` is tolerated.
    if let (Some(_), Some(p)) = (cli_provider, provider) {
        let prefix = format!("{p}/");
        if cli_model.to_lowercase().starts_with(&prefix.to_lowercase()) {
            pattern = crate::js::js_slice(cli_model, crate::js::utf16_len(&prefix), None).into();
        }
    }
    let pattern: &str = &pattern;
    let candidates: Vec<&Model> = match provider {
        Some(p) => q
            .all
            .iter()
            .copied()
            .filter(|m| m.provider() == p)
            .collect(),
        None => q.all.clone(),
    };
    let found = parse_model_pattern(pattern, &candidates);
    if let Some(model) = &found.model {
        if inferred {
            if let Some(r) = q.authed_instead(model) {
                return r;
            }
        }
        return found;
    }
    if inferred {
        if let Some(r) = q.inferred_fallback() {
            return r;
        }
    }
    if let Some(p) = provider {
        if let Some(r) = custom_model(pi, &q.all, p, pattern, cli_thinking) {
            return r;
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

/// `resolveCliModel`'s `providerMap`: each provider by its lowercase name.
fn provider_map<'a>(all: &[&'a Model]) -> HashMap<String, &'a str> {
    let mut provider_map: HashMap<String, &str> = HashMap::new();
    let mut last: Option<&str> = None;
    for m in all {
        // Models come grouped by provider: lowercase each run of one provider once.
        if last != Some(m.provider()) {
            provider_map.insert(m.provider().to_lowercase(), m.provider());
            last = Some(m.provider());
        }
    }
    provider_map
}

/// What `resolveCliModel` looks through: the models, and `cliModel` as given and lowercased.
struct CliQuery<'a> {
    registry: &'a Registry,
    all: Vec<&'a Model>,
    cli_model: &'a str,
    lower: String,
}

impl<'a> CliQuery<'a> {
    /// `cliModel` is `m`'s id or reference, case aside.
    fn exact_raw(&self, m: &&Model) -> bool {
        m.id().to_lowercase() == self.lower || m.reference().to_lowercase() == self.lower
    }

    /// `resolveCliModel` with no provider: one exact id or reference match across providers.
    fn exact_across_providers(&self) -> Option<Resolved> {
        let (registry, cli_model) = (self.registry, self.cli_model);
        let exact: Vec<&Model> = self
            .all
            .iter()
            .copied()
            .filter(|m| self.exact_raw(m))
            .collect();
        if exact.len() == 1 {
            return Some(Resolved {
                model: Some(exact[0].clone()),
                ..Default::default()
            });
        }
        if exact.len() > 1 {
            let authed: Vec<&Model> = exact
                .iter()
                .copied()
                .filter(|m| registry.has_configured_auth(m.provider()))
                .collect();
            if authed.len() == 1 {
                return Some(Resolved {
                    model: Some(authed[0].clone()),
                    ..Default::default()
                });
            }
            let mut refs: Vec<String> = exact.iter().map(|m| m.reference()).collect();
            refs.sort_by(|a, b| locale_compare(a, b));
            let hint = if authed.is_empty() {
                "No matching provider is authenticated."
            } else {
                "More than one matching provider is authenticated."
            };
            return Some(Resolved {
                error: Some(format!("Model \"{cli_model}\" is ambiguous across providers: {}. {hint} Use --provider or provider/model.", refs.join(", "))),
                ..Default::default()
            });
        }
        None
    }

    /// Provider inferred, `model` there unauthenticated: the one authed model elsewhere, that id.
    fn authed_instead(&self, model: &Model) -> Option<Resolved> {
        let (registry, lower) = (self.registry, &self.lower);
        if !registry.has_configured_auth(model.provider()) {
            let raw: Vec<&Model> = self
                .all
                .iter()
                .copied()
                .filter(|m| {
                    m.id().to_lowercase() == *lower
                        && !(m.id() == model.id() && m.provider() == model.provider())
                })
                .filter(|m| registry.has_configured_auth(m.provider()))
                .collect();
            if raw.len() == 1 {
                return Some(Resolved {
                    model: Some(raw[0].clone()),
                    ..Default::default()
                });
            }
        }
        None
    }

    /// Provider inferred, nothing found there: an exact match anywhere, else the pattern in all.
    fn inferred_fallback(&self) -> Option<Resolved> {
        if let Some(exact) = self.all.iter().copied().find(|m| self.exact_raw(m)) {
            return Some(Resolved {
                model: Some(exact.clone()),
                ..Default::default()
            });
        }
        let fallback = parse_model_pattern(self.cli_model, &self.all);
        if fallback.model.is_some() {
            return Some(fallback);
        }
        None
    }
}

/// `resolveCliModel`'s custom model id for a known provider (`buildFallbackModel`, `:level`).
fn custom_model(
    pi: &Pi,
    all: &[&Model],
    p: &str,
    pattern: &str,
    cli_thinking: Option<&str>,
) -> Option<Resolved> {
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
    if let Some(mut model) = build_fallback_model(pi, p, fallback_pattern, all) {
        let requested = cli_thinking
            .map(String::from)
            .or_else(|| fallback_thinking.clone());
        if requested.as_deref().is_some_and(|r| r != "off") {
            model.obj.insert("reasoning", Value::Bool(true));
        }
        return Some(Resolved {
            model: Some(model),
            thinking_level: fallback_thinking,
            warning: Some(format!("Model \"{fallback_pattern}\" not found for provider \"{p}\". Using custom model id.")),
            error: None,
        });
    }
    None
}

/// Where `findInitialModel` found its model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum InitialSource {
    /// `settings.defaultProvider` / `defaultModel`, its provider configured.
    Settings,
    /// The first available model that is its provider's `defaultModelPerProvider`.
    ProviderDefault,
    /// The first available model.
    FirstAvailable,
}

/// `findInitialModel` without scoped models (CA/core/model-resolver.js:472–532,
/// "1.6.0/CA/core/model-resolver.js:382"; the same order in both): the settings default when
/// its provider has auth, else the first available model that is the default of its provider
/// in `defaultModelPerProvider`'s key order, else the first available model.
fn find_initial_model(
    pi: &Pi,
    registry: &Registry,
    settings: &crate::settings::Settings,
) -> Option<(Model, InitialSource)> {
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
            return Some((found.clone(), InitialSource::Settings));
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
                return Some(((*m).clone(), InitialSource::ProviderDefault));
            }
        }
    }
    Some((first.clone(), InitialSource::FirstAvailable))
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

/// The session's model selection (`{provider, modelId}`, each as pi holds it: a string, or
/// another JSON value, or `undefined`).
#[derive(Clone, Debug, PartialEq)]
struct Selection {
    provider: Option<Value>,
    model_id: Option<Value>,
}

impl Selection {
    fn of(provider: Option<&Value>, model_id: Option<&Value>) -> Self {
        Selection {
            provider: provider.cloned(),
            model_id: model_id.cloned(),
        }
    }
    /// `` `${provider}/${modelId}` ``.
    fn reference(&self) -> String {
        format!(
            "{}/{}",
            crate::js::to_js_string(self.provider.as_ref()),
            crate::js::to_js_string(self.model_id.as_ref())
        )
    }
    fn provider_str(&self) -> Option<&str> {
        self.provider.as_ref().and_then(Value::as_str)
    }
    /// `modelRuntime.getModel(provider, modelId)`: strict equality, so only strings find one.
    fn find<'a>(&self, registry: &'a Registry) -> Option<&'a Model> {
        match (
            self.provider_str(),
            self.model_id.as_ref().and_then(Value::as_str),
        ) {
            (Some(p), Some(id)) => registry.find(p, id),
            _ => None,
        }
    }
}

/// `VIRTUAL_MODEL_API` ("1.6.0/CA/core/virtual-models.js:3"): the api of a virtual model (and of
/// a message whose routing failed).
const VIRTUAL_MODEL_API: &str = "pi-virtual";

/// `getBranchSelection(branch, getModel)` ("1.6.0/CA/core/virtual-models.js:29"): walking back
/// from the leaf, the first `model_change`; else the first assistant message that is not
/// virtual, unless the `model_change` before it names a virtual model still registered.
/// Also says how many virtual replies it passed over.
fn branch_selection(branch: &[&Object], registry: &Registry) -> (Option<Selection>, usize) {
    let change_of = |e: &Object| Selection::of(e.get("provider"), e.get("modelId"));
    let mut skipped = 0;
    for (i, entry) in branch.iter().enumerate().rev() {
        match entry.get_str("type") {
            Some("model_change") => return (Some(change_of(entry)), skipped),
            Some("message") => {
                let Some(m) = entry.get("message") else {
                    continue;
                };
                if m.get_str("role") != Some("assistant") {
                    continue;
                }
                if m.get_str("api") == Some(VIRTUAL_MODEL_API) {
                    skipped += 1;
                    continue;
                }
                let response = Selection::of(m.get("provider"), m.get("model"));
                let change = branch[..i]
                    .iter()
                    .rev()
                    .find(|e| e.get_str("type") == Some("model_change"))
                    .map(|e| change_of(e));
                let virtual_change = change.filter(|c| {
                    c.find(registry)
                        .is_some_and(|m| m.api() == VIRTUAL_MODEL_API)
                });
                return (Some(virtual_change.unwrap_or(response)), skipped);
            }
            _ => {}
        }
    }
    (None, skipped)
}

/// `getBranchSelection` as `provider/modelId`, for the unit tests.
#[cfg(test)]
pub(super) fn tests_branch_selection(branch: &[&Object], registry: &Registry) -> Option<String> {
    branch_selection(branch, registry).0.map(|s| s.reference())
}

/// `getProviderLoginHelp()` (CA/core/auth-guidance.js:4–10), with pi's docs folder.
fn provider_login_help(docs_dir: &str) -> String {
    format!(
        "Use /login to log into a provider via OAuth or API key. See:\n  {docs_dir}/providers.md\n  {docs_dir}/models.md"
    )
}

/// What the command line says about the model (`parsed.model`, `.provider`, `.thinking`,
/// `.apiKey`, `.models`).
#[derive(Clone, Copy, Debug, Default)]
pub struct CliModel<'a> {
    pub model: Option<&'a str>,
    pub provider: Option<&'a str>,
    pub thinking: Option<&'a str>,
    pub api_key: Option<&'a str>,
    /// `--models` patterns (else `settings.enabledModels` is the scope).
    pub models: Option<&'a [String]>,
    /// `model` and `thinking` are the running pi's ([`crate::Inputs::running_pi`]).
    pub running: bool,
}

/// Where the model came from when a running pi gave it (ctxlens inside pi).
pub const RUNNING_MODEL: &str = "pi's current model";
/// Where the thinking level came from when a running pi gave it.
pub const RUNNING_LEVEL: &str = "pi's current level";

/// The session the model may be restored from.
#[derive(Clone, Copy, Debug)]
pub struct SessionModel<'a> {
    pub context: &'a crate::session::SessionContext,
    /// `sessionManager.getBranch()`: the raw entries, root → leaf.
    pub branch: &'a [&'a Object],
    /// `buildSessionContext().messages.length > 0`.
    pub has_messages: bool,
}

/// The model and thinking level pi starts the turn with (CA/core/sdk.js:81–138).
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
    /// Where pi stops before sending anything: what it prints to stderr (its startup
    /// diagnostics, `Error: …`/`Warning: …`, or the no-models guidance) before `exit(1)`.
    pub exit: Option<String>,
}

/// One of pi's startup diagnostics (`{type, message}`, written by `writeDiagnosticsToStderr`,
/// CA/modes/diagnostics-stderr.js).
struct Startup {
    error: bool,
    message: String,
}

impl Startup {
    fn line(&self) -> String {
        format!(
            "{}{}",
            if self.error { "Error: " } else { "Warning: " },
            self.message
        )
    }
}

/// The provider of the model pi would take if every provider had a key — `--model`'s, the
/// session's or the saved default (`settings.defaultProvider`/`defaultModel`), not a first
/// available one — when that provider has none: the one [`crate::Inputs::placeholder_key`]
/// gives a placeholder key.
#[allow(clippy::too_many_arguments)]
pub fn placeholder_provider(
    pi: &Pi,
    registry: &Registry,
    cli: CliModel,
    session: SessionModel,
    settings: &crate::settings::Settings,
    docs_dir: &str,
) -> Option<String> {
    let mut all = registry.with_all_configured();
    let c = choose(
        pi,
        &mut all,
        cli,
        session,
        settings,
        docs_dir,
        &mut Events::default(),
        &mut Vec::new(),
    );
    let m = c.model?;
    let wanted = matches!(
        c.model_source.as_str(),
        "--model" | RUNNING_MODEL | "session" | "settings.defaultModel"
    );
    (wanted && !registry.has_configured_auth(m.provider())).then(|| m.provider().to_string())
}

/// Picks the model and the thinking level as pi's startup does: `buildSessionOptions`
/// (CA/main.js:347–426, "1.6.0/CA/main.js:392": `--model`/`--provider`, `--api-key`), then
/// `createAgentSession` (CA/core/sdk.js:81–138: the session's model when its provider has
/// auth, else `findInitialModel`; the thinking level, clamped). Where pi would exit (a startup
/// error, or no model at all) the choice has no model and [`ModelChoice::exit`] says what pi
/// prints. `docs_dir` is pi's `getDocsPath()` (the guidance names it).
#[allow(clippy::too_many_arguments)]
pub fn choose(
    pi: &Pi,
    registry: &mut Registry,
    cli: CliModel,
    session: SessionModel,
    settings: &crate::settings::Settings,
    docs_dir: &str,
    events: &mut Events,
    diags: &mut Vec<Diagnostic>,
) -> ModelChoice {
    let mut p = Picked {
        events,
        diags,
        model: None,
        model_source: String::new(),
        level: None,
        startup: Vec::new(),
        fallback_message: None,
        no_models: false,
    };
    // buildSessionOptions.
    session_options(pi, registry, &cli, settings, session.has_messages, &mut p);
    // createAgentSession: the session's model, else findInitialModel.
    if p.model.is_none() && session.has_messages {
        session_model(pi, registry, &session, &mut p);
    }
    if p.model.is_none() {
        initial_model(pi, registry, settings, docs_dir, &mut p);
    }
    fallback_reported(pi, &mut p);
    let exit = startup_exit(registry, docs_dir, &mut p);
    with_thinking_level(pi, settings, &session, p, exit)
}

/// What [`choose`] has decided so far, passed from each of pi's startup steps to the next.
struct Picked<'e> {
    events: &'e mut Events,
    diags: &'e mut Vec<Diagnostic>,
    model: Option<Model>,
    model_source: String,
    /// The thinking level asked for, and where it came from.
    level: Option<(String, &'static str)>,
    /// What pi prints at startup (an error stops it).
    startup: Vec<Startup>,
    /// "Could not restore model …" / "No models available …".
    fallback_message: Option<String>,
    no_models: bool,
}

/// `buildSessionOptions`' model (CA/main.js:347–426): `--model`/`--provider` (and a level
/// suffix), the scopes ctxlens does not resolve, `--thinking`, `--api-key`.
fn session_options(
    pi: &Pi,
    registry: &mut Registry,
    cli: &CliModel,
    settings: &crate::settings::Settings,
    has_existing_session: bool,
    p: &mut Picked,
) {
    let rules = &pi.rules.model;
    // `--thinking` must be a valid level (CA/cli/args.js:112–123).
    let cli_thinking = cli.thinking.and_then(|t| {
        if is_valid_thinking_level(t) {
            Some(t)
        } else {
            p.diags.push(Diagnostic::warning(
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
    let cli_model = cli.model.filter(|m| !m.is_empty());
    let cli_provider = cli.provider.filter(|p| !p.is_empty());
    let api_key = cli.api_key.filter(|k| !k.is_empty());

    if let (true, Some(provider), None) = (rules.provider_requires_model, cli_provider, cli_model) {
        p.startup.push(Startup {
            error: true,
            message: format!(
                "--provider requires --model (for example: --provider {provider} --model <pattern>)"
            ),
        });
    }
    if let Some(cm) = cli_model {
        model_flag(pi, registry, cli, cm, cli_thinking, p);
    }
    let Picked {
        model,
        level,
        startup,
        events,
        diags,
        ..
    } = p;
    // Model scopes (`--models`, `settings.enabledModels`) pick the model of a new session
    // without `--model`: ctxlens does not resolve them.
    let scope: Option<Vec<String>> = cli
        .models
        .map(<[String]>::to_vec)
        .or_else(|| {
            settings
                .get("enabledModels")
                .and_then(Value::as_array)
                .map(|a| a.iter().map(|v| crate::js::to_js_string(Some(v))).collect())
        })
        .filter(|s| !s.is_empty());
    if let (None, Some(patterns), false) = (&model, &scope, has_existing_session) {
        diags.push(Diagnostic::warning(
            "model",
            None,
            format!(
                "model scope {}: pi would start with the saved default when it is in the scope, else the first scoped model; ctxlens does not resolve scopes, so the model below is chosen without it",
                patterns.join(", ")
            ),
        ));
    }
    if let Some(t) = cli_thinking {
        *level = Some((
            t.to_string(),
            if cli.running {
                RUNNING_LEVEL
            } else {
                "--thinking"
            },
        ));
    }
    // `--api-key` (CA/main.js:642–650): a runtime key for the chosen model's provider.
    if let Some(key) = api_key {
        match &model {
            Some(m) => {
                registry.set_runtime_api_key(m.provider(), key);
                events.push(
                    Event::new(
                        EventKind::Note,
                        format!(
                            "--api-key: the key of provider {} for this run (over models.json and the environment)",
                            m.provider()
                        ),
                    )
                    .at("CA/main.js:650"),
                );
            }
            // A scoped model would take the key; not resolved here (said above).
            None if scope.is_some() && !has_existing_session => {}
            None => startup.push(Startup {
                error: true,
                message: "--api-key requires a model to be specified via --model, --provider/--model, or --models".into(),
            }),
        }
    }
}

/// `--model` (with `--provider` and a `:level` suffix), resolved as the release does
/// (`resolveCliModel`: 0.85's first slash, 1.6.0's model reference).
fn model_flag(
    pi: &Pi,
    registry: &mut Registry,
    cli: &CliModel,
    cm: &str,
    cli_thinking: Option<&str>,
    p: &mut Picked,
) {
    let rules = &pi.rules.model;
    let reference = rules.cli_resolution == CliResolution::Reference;
    let cli_provider = cli.provider.filter(|p| !p.is_empty());
    let api_key = cli.api_key.filter(|k| !k.is_empty());
    let Picked {
        model,
        model_source,
        level,
        startup,
        events,
        diags,
        ..
    } = p;
    let resolved = match rules.cli_resolution {
        CliResolution::FirstSlash => {
            resolve_cli_model(pi, registry, cli_provider, cm, cli_thinking)
        }
        CliResolution::Reference => super::reference::resolve_cli_model(
            pi,
            registry,
            cli_provider,
            cm,
            cli_thinking,
            api_key.is_some(),
        ),
    };
    if let Some(w) = resolved.warning {
        diags.push(Diagnostic::warning("args", None, w.clone()));
        startup.push(Startup {
            error: false,
            message: w,
        });
    }
    if let Some(e) = resolved.error {
        let prefix = cm.split('/').next().unwrap_or("").to_lowercase();
        if let Some((old, new)) = rules
            .renamed_providers
            .iter()
            .find(|(old, _)| *old == prefix)
        {
            diags.push(Diagnostic::warning(
                "args",
                None,
                format!(
                    "--model names provider {old}, which pi {} calls {new} (renamed in 1.0.3, with no alias)",
                    pi.version
                ),
            ));
        }
        startup.push(Startup {
            error: true,
            message: e,
        });
    }
    if let Some(m) = resolved.model {
        let known = registry.find(m.provider(), m.id()).is_some();
        events.push(
            Event::new(
                EventKind::Note,
                if known {
                    format!("--model {cm} resolved to {}", m.reference())
                } else {
                    format!(
                        "--model {cm}: no such model, so pi makes a custom one from {}'s catalog ({})",
                        m.provider(),
                        m.reference()
                    )
                },
            )
            .at(if reference {
                "1.6.0/CA/core/model-resolver.js:307"
            } else {
                "CA/core/model-resolver.js:291"
            }),
        );
        *model = Some(m);
        *model_source = if cli.running {
            RUNNING_MODEL
        } else {
            "--model"
        }
        .into();
        if cli_thinking.is_none() {
            if let Some(t) = resolved.thinking_level {
                *level = Some((t, "--model suffix"));
            }
        }
    }
}

/// `createAgentSession`'s restore of the session's model (CA/core/sdk.js:87–95,
/// "1.6.0/CA/core/sdk.js:91"): when its provider has auth; else why not.
fn session_model(pi: &Pi, registry: &mut Registry, session: &SessionModel, p: &mut Picked) {
    let rules = &pi.rules.model;
    let Picked {
        model,
        model_source,
        fallback_message,
        events,
        diags,
        ..
    } = p;
    let selection = if rules.branch_selection {
        let (selection, skipped) = branch_selection(session.branch, registry);
        if skipped > 0 {
            events.push(
                Event::new(
                    EventKind::Note,
                    format!(
                        "the session's model: {skipped} later {} of a virtual model (api {VIRTUAL_MODEL_API}, a failed routing) passed over",
                        if skipped == 1 { "reply" } else { "replies" }
                    ),
                )
                .at("1.6.0/CA/core/virtual-models.js:29"),
            );
        }
        selection
    } else {
        session.context.model.as_ref().map(|(p, id)| {
            Selection::of(
                Some(&Value::str(p.as_str())),
                Some(&Value::str(id.as_str())),
            )
        })
    };
    if let Some(sel) = selection {
        let at = if rules.branch_selection {
            "1.6.0/CA/core/sdk.js:91"
        } else {
            "CA/core/sdk.js:87"
        };
        match sel.find(registry) {
            Some(m) if registry.has_configured_auth(m.provider()) => {
                events.push(
                    Event::new(
                        EventKind::Note,
                        format!("model {} restored from the session", m.reference()),
                    )
                    .at(at),
                );
                *model = Some(m.clone());
                *model_source = "session".into();
            }
            found => {
                events.push(
                    Event::new(
                        EventKind::Note,
                        format!(
                            "the session's model {} is not restored: {}",
                            sel.reference(),
                            if found.is_some() {
                                "its provider has no auth configured"
                            } else {
                                "no such model"
                            }
                        ),
                    )
                    .at(at),
                );
                if let Some((old, new)) = sel
                    .provider_str()
                    .and_then(|p| rules.renamed_providers.iter().find(|(old, _)| *old == p))
                {
                    diags.push(Diagnostic::warning(
                        "session",
                        None,
                        format!(
                            "the session names provider {old}, which pi {} calls {new} (renamed in 1.0.3, with no alias and no migration): its model cannot be restored",
                            pi.version
                        ),
                    ));
                }
                *fallback_message = Some(format!("Could not restore model {}", sel.reference()));
            }
        }
    }
}

/// `findInitialModel` (CA/core/sdk.js:96–113): the saved default, a provider's default, or the
/// first available model.
fn initial_model(
    pi: &Pi,
    registry: &mut Registry,
    settings: &crate::settings::Settings,
    docs_dir: &str,
    p: &mut Picked,
) {
    let rules = &pi.rules.model;
    let reference = rules.cli_resolution == CliResolution::Reference;
    let Picked {
        model,
        model_source,
        fallback_message,
        no_models,
        events,
        diags,
        ..
    } = p;
    if let Some((old, new)) = settings
        .get("defaultProvider")
        .and_then(Value::as_str)
        .and_then(|p| rules.renamed_providers.iter().find(|(old, _)| *old == p))
    {
        diags.push(Diagnostic::warning(
            "settings",
            None,
            format!(
                "settings.defaultProvider is {old}, which pi {} calls {new} (renamed in 1.0.3, with no alias): the saved default model is not found",
                pi.version
            ),
        ));
    }
    match find_initial_model(pi, registry, settings) {
        Some((m, source)) => {
            *model_source = match source {
                InitialSource::Settings => "settings.defaultModel",
                InitialSource::ProviderDefault | InitialSource::FirstAvailable => "available",
            }
            .into();
            events.push(
                Event::new(
                    EventKind::Note,
                    format!(
                        "model {} chosen by pi's default rules ({})",
                        m.reference(),
                        match source {
                            InitialSource::Settings => "settings.defaultProvider/defaultModel",
                            InitialSource::ProviderDefault =>
                                "the first available provider default",
                            InitialSource::FirstAvailable => "the first available model",
                        }
                    ),
                )
                .at(if reference {
                    "1.6.0/CA/core/model-resolver.js:382"
                } else {
                    "CA/core/model-resolver.js:472"
                }),
            );
            if let Some(msg) = fallback_message.as_mut() {
                msg.push_str(&format!(". Using {}", m.reference()));
            }
            *model = Some(m);
        }
        None => {
            // `formatNoModelsAvailableMessage()` (CA/core/auth-guidance.js:11–13).
            *no_models = true;
            *fallback_message = Some(format!(
                "No models available. {}",
                provider_login_help(docs_dir)
            ));
        }
    }
}

/// The restore's fallback message, said (and from 1.6.0 printed at startup).
fn fallback_reported(pi: &Pi, p: &mut Picked) {
    let rules = &pi.rules.model;
    let Picked {
        startup,
        fallback_message,
        no_models,
        diags,
        ..
    } = p;
    if let Some(msg) = fallback_message {
        let about = if *no_models { "model" } else { "session" };
        diags.push(Diagnostic::warning(about, None, msg.clone()));
        // `created.session.model` is never empty (the agent's placeholder model `unknown`), so
        // 1.6.0 always reports it; 0.85 shows it in the interactive mode only.
        if rules.restore_fallback_reported {
            startup.push(Startup {
                error: false,
                message: msg.clone(),
            });
        }
    }
}

/// Where pi exits before sending (`None`: it goes on): a startup error, no model, or no auth for
/// the model (what it prints).
fn startup_exit(registry: &Registry, docs_dir: &str, p: &mut Picked) -> Option<String> {
    let Picked {
        model,
        startup,
        no_models,
        diags,
        ..
    } = p;
    // main.js: any startup error stops pi. Without a model pi goes on with the agent's
    // placeholder (CORE/agent.js:18), whose auth fails at the prompt
    // (`formatNoApiKeyFoundMessage("unknown")`, CA/core/agent-session.js:277).
    let errors = startup.iter().any(|d| d.error);
    // The prompt needs the model's request auth (`_getRequiredRequestAuth`,
    // CA/core/agent-session.js:166–194, the same in every release): a provider with no key,
    // credential or stored login fails there, after the startup warnings.
    let no_auth = match &model {
        Some(m) if !errors && !*no_models && !registry.has_configured_auth(m.provider()) => {
            Some(m.provider().to_string())
        }
        _ => None,
    };
    if errors || *no_models || no_auth.is_some() {
        let mut lines: Vec<String> = startup.iter().map(Startup::line).collect();
        if !errors {
            lines.push(format!(
                "No API key found for {}.\n\n{}",
                no_auth.as_deref().unwrap_or("the selected model"),
                provider_login_help(docs_dir)
            ));
        }
        let stderr = lines.join("\n");
        diags.push(Diagnostic::error(
            "model",
            None,
            format!("pi would fail here: it prints this and exits with status 1 before sending a request:\n{stderr}"),
        ));
        *model = None;
        return Some(stderr);
    }
    None
}

/// `createAgentSession`'s thinking level (CA/core/sdk.js:115–138), clamped to the model, and
/// the choice.
fn with_thinking_level(
    pi: &Pi,
    settings: &crate::settings::Settings,
    session: &SessionModel,
    p: Picked,
    exit: Option<String>,
) -> ModelChoice {
    let has_existing_session = session.has_messages;
    let Picked {
        model,
        model_source,
        mut level,
        events,
        ..
    } = p;
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
        level = Some(if session.context.has_thinking_entry {
            (session.context.thinking_level.clone(), "session")
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
        exit,
    }
}

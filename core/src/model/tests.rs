use std::collections::BTreeMap;

use super::resolver::{locale_compare, resolve_cli_model};
use super::*;
use crate::diagnostics::Diagnostic;
use crate::inputs::SourceText;
use crate::js;
use crate::pi::Pi;
use crate::session::SessionContext;
use crate::settings::Settings;
use crate::testcase::pi;
use crate::trace::{EventKind, Events};

fn v(json: &str) -> Value {
    js::parse(json).expect("test JSON")
}

fn model(json: &str) -> Model {
    match v(json) {
        Value::Object(obj) => Model { obj },
        _ => panic!("model JSON must be an object"),
    }
}

fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A models.json exercising comments, trailing commas, provider-level baseUrl/compat/apiKey,
/// custom models, modelOverrides and the compat deep merge.
const MODELS_JSON: &str = r##"{
  // comment
  "providers": {
    "anthropic": {
      "baseUrl": "http://127.0.0.1:9/x",
      "apiKey": "sk-$FOO-${BAR}",
      "compat": {"supportsLongCacheRetention": false, "openRouterRouting": {"only": ["a"]}},
      "modelOverrides": {
        "claude-sonnet-4-5": {"thinkingLevelMap": {"xhigh": "high"}, "samplingParams": {"top_k": 3}, "cost": {"input": 1}, "compat": {"openRouterRouting": {"order": ["b"]}}}
      },
      "models": [{"id": "my-claude", "reasoning": true, "compat": {"chatTemplateKwargs": {"x": 1}}}],
    },
    "mock": {
      "api": "openai-completions",
      "baseUrl": "http://127.0.0.1:9/v1",
      "apiKey": "!echo hi",
      "models": [{"id": "m1"}, {"id": "m2", "name": "Two", "thinkingLevelMap": {"off": null}, "samplingParams": {"temperature": 0.5}, "headers": {"X": "y"}}],
      "modelOverrides": {"m1": {"name": "One", "reasoning": true}}
    },
    "nokey": {"api": "openai-completions", "baseUrl": "http://x", "models": [{"id": "k"}]}
  }
}
"##;

/// What pi 0.85.1's ModelRuntime holds for `MODELS_JSON` (dumped with node, FOO=f BAR=b).
const EXPECTED: &[(&str, &str)] = &[
    (
        "anthropic/claude-sonnet-4-5",
        r#"{"id":"claude-sonnet-4-5","name":"Claude Sonnet 4.5 (latest)","api":"anthropic-messages","provider":"anthropic","baseUrl":"http://127.0.0.1:9/x","reasoning":true,"input":["text","image"],"cost":{"input":1,"output":15,"cacheRead":0.3,"cacheWrite":3.75},"contextWindow":1000000,"maxTokens":64000,"compat":{"supportsStrictTools":true,"supportsLongCacheRetention":false,"openRouterRouting":{"only":["a"],"order":["b"]}},"thinkingLevelMap":{"xhigh":"high"},"samplingParams":{"top_k":3}}"#,
    ),
    (
        "anthropic/my-claude",
        r#"{"id":"my-claude","name":"my-claude","api":"anthropic-messages","provider":"anthropic","baseUrl":"http://127.0.0.1:9/x","reasoning":true,"input":["text"],"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0},"contextWindow":128000,"maxTokens":16384,"compat":{"supportsLongCacheRetention":false,"openRouterRouting":{"only":["a"]},"chatTemplateKwargs":{"x":1}}}"#,
    ),
    (
        "anthropic/claude-opus-4-6",
        r#"{"id":"claude-opus-4-6","name":"Claude Opus 4.6","api":"anthropic-messages","provider":"anthropic","baseUrl":"http://127.0.0.1:9/x","reasoning":true,"input":["text","image"],"cost":{"input":5,"output":25,"cacheRead":0.5,"cacheWrite":6.25},"contextWindow":1000000,"maxTokens":128000,"thinkingLevelMap":{"max":"max"},"compat":{"forceAdaptiveThinking":true,"supportsStrictTools":true,"supportsLongCacheRetention":false,"openRouterRouting":{"only":["a"]}}}"#,
    ),
    (
        "mock/m1",
        r#"{"id":"m1","name":"One","api":"openai-completions","provider":"mock","baseUrl":"http://127.0.0.1:9/v1","reasoning":true,"input":["text"],"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0},"contextWindow":128000,"maxTokens":16384}"#,
    ),
    (
        "mock/m2",
        r#"{"id":"m2","name":"Two","api":"openai-completions","provider":"mock","baseUrl":"http://127.0.0.1:9/v1","reasoning":false,"thinkingLevelMap":{"off":null},"input":["text"],"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0},"contextWindow":128000,"maxTokens":16384,"samplingParams":{"temperature":0.5}}"#,
    ),
    (
        "nokey/k",
        r#"{"id":"k","name":"k","api":"openai-completions","provider":"nokey","baseUrl":"http://x","reasoning":false,"input":["text"],"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0},"contextWindow":128000,"maxTokens":16384}"#,
    ),
];

fn load(text: &str, e: &BTreeMap<String, String>) -> (Registry, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let src = SourceText {
        name: "agent/models.json".into(),
        text: text.into(),
    };
    (Registry::load(&pi(), Some(&src), e, &mut diags), diags)
}

#[test]
fn registry_matches_pi_key_order_and_merges() {
    let (reg, diags) = load(MODELS_JSON, &env(&[("FOO", "f"), ("BAR", "b")]));
    assert!(
        diags.iter().all(|d| d.severity != crate::Severity::Error),
        "{diags:?}"
    );
    for (reference, expected) in EXPECTED {
        let (p, id) = reference.split_once('/').unwrap();
        let m = reg
            .find(p, id)
            .unwrap_or_else(|| panic!("{reference} missing"));
        assert_eq!(
            Value::Object(m.obj.clone()).to_json(),
            *expected,
            "{reference}"
        );
    }
    assert!(reg.has_configured_auth("anthropic"));
    assert!(reg.has_configured_auth("mock"));
    assert!(!reg.has_configured_auth("nokey"));
    assert!(!reg.has_configured_auth("openai"));
    assert_eq!(reg.api_key("anthropic"), Some("sk-f-b"));
    // Config-only providers come after the built-ins.
    assert_eq!(
        reg.models.last().map(Model::reference).as_deref(),
        Some("nokey/k")
    );
    // Unset env: not configured.
    let (reg, _) = load(MODELS_JSON, &env(&[("FOO", "f")]));
    assert!(!reg.has_configured_auth("anthropic"));
}

#[test]
fn catalog_alone() {
    let reg = Registry::load(
        &pi(),
        None,
        &env(&[("OPENAI_API_KEY", "k")]),
        &mut Vec::new(),
    );
    assert_eq!(reg.models.len(), 1354);
    assert!(reg.has_configured_auth("openai"));
    assert_eq!(reg.api_key("openai"), Some("k"));
    assert!(reg.find("anthropic", "claude-opus-4-6").is_some());
}

#[test]
fn broken_models_json_is_ignored() {
    let (reg, diags) = load("{ not json", &env(&[]));
    assert_eq!(reg.models.len(), 1354);
    assert_eq!(diags.len(), 1);
    let (reg, diags) = load(r#"{"providers":{"x":{"models":[{"id":""}]}}}"#, &env(&[]));
    assert!(reg.find("x", "").is_none());
    assert_eq!(diags.len(), 1);
    // A provider that throws during composition keeps its built-in models untouched.
    let (reg, diags) = load(
        r#"{"providers":{"openai":{"apiKey":"k","models":[{"id":"bad","maxTokens":0}]}}}"#,
        &env(&[]),
    );
    assert_eq!(diags.len(), 1);
    assert!(reg.find("openai", "bad").is_none());
    assert!(reg.find("openai", "gpt-5.5").is_some());
}

#[test]
fn strip_comments_and_trailing_commas() {
    assert_eq!(
        strip_json_comments("{\"a\": \"//x\", // c\n \"b\": [1,2,],\n}"),
        "{\"a\": \"//x\", \n \"b\": [1,2]\n}"
    );
}

#[test]
fn config_value_templates() {
    let e = env(&[("A", "1"), ("EMPTY", "")]);
    assert_eq!(
        resolve_config_value("x$A-${A}$$$!", &e).as_deref(),
        Some("x1-1$!")
    );
    assert_eq!(resolve_config_value("$EMPTY", &e), None);
    assert_eq!(resolve_config_value("${9x}", &e).as_deref(), Some("${9x}"));
    assert_eq!(resolve_config_value("$", &e).as_deref(), Some("$"));
    assert_eq!(
        config_value_env_var_names("$A$B$A"),
        vec!["A".to_string(), "B".to_string()]
    );
}

// --- thinking levels --------------------------------------------------------------------------

const NON_REASONING: &str = r#"{"id":"n","provider":"p","reasoning":false}"#;
const PLAIN: &str = r#"{"id":"r","provider":"p","reasoning":true}"#;
const OFF_NULL: &str =
    r#"{"id":"g","provider":"p","reasoning":true,"thinkingLevelMap":{"off":null,"xhigh":"xhigh"}}"#;
const MAX_ONLY: &str =
    r#"{"id":"o","provider":"p","reasoning":true,"thinkingLevelMap":{"max":"max"}}"#;
const SPARSE: &str = r#"{"id":"q","provider":"p","reasoning":true,"thinkingLevelMap":{"minimal":null,"low":null,"medium":null}}"#;

#[test]
fn supported_levels_table() {
    assert_eq!(supported_thinking_levels(&model(NON_REASONING)), ["off"]);
    assert_eq!(
        supported_thinking_levels(&model(PLAIN)),
        ["off", "minimal", "low", "medium", "high"]
    );
    assert_eq!(
        supported_thinking_levels(&model(OFF_NULL)),
        ["minimal", "low", "medium", "high", "xhigh"]
    );
    assert_eq!(
        supported_thinking_levels(&model(MAX_ONLY)),
        ["off", "minimal", "low", "medium", "high", "max"]
    );
    assert_eq!(supported_thinking_levels(&model(SPARSE)), ["off", "high"]);
}

#[test]
fn clamp_table() {
    let cases: &[(&str, [&str; 7])] = &[
        (
            NON_REASONING,
            ["off", "off", "off", "off", "off", "off", "off"],
        ),
        (
            PLAIN,
            ["off", "minimal", "low", "medium", "high", "high", "high"],
        ),
        (
            OFF_NULL,
            [
                "minimal", "minimal", "low", "medium", "high", "xhigh", "xhigh",
            ],
        ),
        (
            MAX_ONLY,
            ["off", "minimal", "low", "medium", "high", "max", "max"],
        ),
        (
            SPARSE,
            ["off", "high", "high", "high", "high", "high", "high"],
        ),
    ];
    for (m, expected) in cases {
        let m = model(m);
        for (level, want) in THINKING_LEVELS.iter().zip(expected) {
            let mut ev = Events::default();
            assert_eq!(
                clamp_thinking_level(&m, level, &mut ev),
                *want,
                "{} {level}",
                m.id()
            );
            assert_eq!(ev.len(), usize::from(level != want), "{} {level}", m.id());
        }
    }
    // An unknown level gives the first supported one.
    assert_eq!(
        clamp_thinking_level(&model(OFF_NULL), "bogus", &mut Events::default()),
        "minimal"
    );
}

// --- resolution -------------------------------------------------------------------------------

#[test]
fn cli_model_resolution() {
    let (reg, _) = load(MODELS_JSON, &env(&[("FOO", "f"), ("BAR", "b")]));
    let r = resolve_cli_model(&pi(), &reg, None, "mock/m1", None);
    assert_eq!(r.model.map(|m| m.reference()).as_deref(), Some("mock/m1"));
    let r = resolve_cli_model(&pi(), &reg, None, "mock/m2:high", None);
    assert_eq!(r.model.map(|m| m.reference()).as_deref(), Some("mock/m2"));
    assert_eq!(r.thinking_level.as_deref(), Some("high"));
    // A bare unique id.
    let r = resolve_cli_model(&pi(), &reg, None, "my-claude", None);
    assert_eq!(
        r.model.map(|m| m.reference()).as_deref(),
        Some("anthropic/my-claude")
    );
    // Unknown id under a known provider: a fallback model built from the provider's default.
    let r = resolve_cli_model(&pi(), &reg, None, "anthropic/claude-nope:low", None);
    let m = r.model.expect("fallback");
    assert_eq!(
        (m.id(), m.name(), m.reasoning()),
        ("claude-nope", "claude-nope", true)
    );
    assert_eq!(r.thinking_level.as_deref(), Some("low"));
    assert!(r.warning.is_some());
    // Unknown everything.
    let r = resolve_cli_model(&pi(), &reg, None, "zzz-no-such-model", None);
    assert!(r.model.is_none() && r.error.is_some());
    // Fuzzy: partial id, aliases preferred.
    let r = resolve_cli_model(&pi(), &reg, None, "anthropic/sonnet-4-5", None);
    assert_eq!(
        r.model.map(|m| m.id().to_string()).as_deref(),
        Some("claude-sonnet-4-5")
    );
}

/// `choose` with only `--model`/`--thinking` from the command line.
#[allow(clippy::too_many_arguments)]
fn pick(
    pi: &Pi,
    reg: &Registry,
    model: Option<&str>,
    thinking: Option<&str>,
    session: &SessionContext,
    existing: bool,
    settings: &Settings,
    events: &mut Events,
    diags: &mut Vec<Diagnostic>,
) -> ModelChoice {
    choose(
        pi,
        &mut reg.clone(),
        CliModel {
            model,
            thinking,
            ..Default::default()
        },
        SessionModel {
            context: session,
            branch: &[],
            has_messages: existing,
        },
        settings,
        "/pkg/docs",
        events,
        diags,
    )
}

#[test]
fn choose_levels_and_sources() {
    let (reg, _) = load(MODELS_JSON, &env(&[("FOO", "f"), ("BAR", "b")]));
    let settings = Settings::default();
    let fresh = SessionContext {
        thinking_level: "off".into(),
        ..Default::default()
    };
    let mut ev = Events::default();
    let mut diags = Vec::new();
    // Default level "medium" on a non-reasoning model clamps to off.
    let c = pick(
        &pi(),
        &reg,
        Some("mock/m2"),
        None,
        &fresh,
        false,
        &settings,
        &mut ev,
        &mut diags,
    );
    assert_eq!(
        (
            c.requested_level.as_str(),
            c.thinking_level.as_str(),
            c.level_source.as_str()
        ),
        ("medium", "off", "default")
    );
    assert_eq!(
        ev.iter().filter(|e| e.kind == EventKind::Clamped).count(),
        1
    );
    // --thinking wins over the model suffix; invalid --thinking is ignored with a warning.
    let c = pick(
        &pi(),
        &reg,
        Some("mock/m1:low"),
        Some("high"),
        &fresh,
        false,
        &settings,
        &mut ev,
        &mut diags,
    );
    assert_eq!(
        (c.thinking_level.as_str(), c.level_source.as_str()),
        ("high", "--thinking")
    );
    let c = pick(
        &pi(),
        &reg,
        Some("mock/m1:low"),
        Some("extreme"),
        &fresh,
        false,
        &settings,
        &mut ev,
        &mut diags,
    );
    assert_eq!(
        (c.thinking_level.as_str(), c.level_source.as_str()),
        ("low", "--model suffix")
    );
    assert!(diags
        .iter()
        .any(|d| d.message.contains("Invalid thinking level")));
    // Settings: modelThinkingLevels beats defaultThinkingLevel for a new session.
    let s = Settings {
        merged: v(r#"{"defaultThinkingLevel":"minimal","modelThinkingLevels":{"mock/m1":"high"}}"#)
            .as_object()
            .unwrap()
            .clone(),
        ..Default::default()
    };
    let c = pick(
        &pi(),
        &reg,
        Some("mock/m1"),
        None,
        &fresh,
        false,
        &s,
        &mut ev,
        &mut diags,
    );
    assert_eq!(
        (c.thinking_level.as_str(), c.level_source.as_str()),
        ("high", "settings.modelThinkingLevels")
    );
    // An existing session without a thinking entry uses defaultThinkingLevel, not the per-model level.
    let resumed = SessionContext {
        thinking_level: "off".into(),
        model: Some(("mock".into(), "m1".into())),
        messages: vec![v(r#"{"role":"user","content":"x"}"#)],
        ..Default::default()
    };
    let c = pick(
        &pi(),
        &reg,
        None,
        None,
        &resumed,
        true,
        &s,
        &mut ev,
        &mut diags,
    );
    assert_eq!(
        c.model.as_ref().map(Model::reference).as_deref(),
        Some("mock/m1")
    );
    assert_eq!(
        (
            c.thinking_level.as_str(),
            c.level_source.as_str(),
            c.model_source.as_str()
        ),
        ("minimal", "settings.defaultThinkingLevel", "session")
    );
    let with_entry = SessionContext {
        thinking_level: "low".into(),
        has_thinking_entry: true,
        ..resumed.clone()
    };
    let c = pick(
        &pi(),
        &reg,
        None,
        None,
        &with_entry,
        true,
        &s,
        &mut ev,
        &mut diags,
    );
    assert_eq!(
        (c.thinking_level.as_str(), c.level_source.as_str()),
        ("low", "session")
    );
    // The session's model is not restored without auth.
    let unauthed = SessionContext {
        model: Some(("nokey".into(), "k".into())),
        ..resumed
    };
    let mut d2 = Vec::new();
    let c = pick(
        &pi(),
        &reg,
        None,
        None,
        &unauthed,
        true,
        &settings,
        &mut ev,
        &mut d2,
    );
    assert_ne!(
        c.model.as_ref().map(Model::reference).as_deref(),
        Some("nokey/k")
    );
    assert!(d2
        .iter()
        .any(|d| d.message.contains("Could not restore model nokey/k")));
}

#[test]
fn locale_compare_orders_like_icu_for_ids() {
    use std::cmp::Ordering::*;
    assert_eq!(locale_compare("a-b", "a1"), Less);
    assert_eq!(locale_compare("A", "b"), Less);
    assert_eq!(locale_compare("a", "A"), Less);
    assert_eq!(locale_compare("gpt-5", "gpt-5.1"), Less);
    // ICU's order of ASCII punctuation, not code points (Node 22: `_ - : . /`).
    for pair in [
        ["a_b", "a-b"],
        ["a-b", "a:b"],
        ["a:b", "a.b"],
        ["a.b", "a/b"],
        ["a/b", "a1"],
    ] {
        assert_eq!(locale_compare(pair[0], pair[1]), Less, "{pair:?}");
    }
}

// --- 1.6.0: resolveModelReference ---------------------------------------------------------

fn pi_16() -> Pi {
    Pi::new(crate::PiVersion::V1_6_0).expect("pi 1.6.0's data is compiled in")
}

/// Providers for the 1.6.0 reference rules: ids holding `/`, a provider's literal id beside
/// fuzzy ones, one id on several providers with and without credentials.
const REFS_JSON: &str = r#"{"providers": {
  "lab": {"api": "openai-completions", "baseUrl": "http://x", "apiKey": "k", "models": [{"id": "gpu/m1"}]},
  "lab/gpu": {"api": "openai-completions", "baseUrl": "http://x", "apiKey": "k", "models": [{"id": "m1"}]},
  "gw": {"api": "openai-completions", "baseUrl": "http://x", "apiKey": "k", "models": [{"id": "free"}, {"id": "free-plus"}, {"id": "shared-1"}]},
  "agg": {"api": "openai-completions", "baseUrl": "http://x", "apiKey": "$NOPE", "models": [{"id": "gw/free"}, {"id": "gw/other"}]},
  "p2": {"api": "openai-completions", "baseUrl": "http://x", "apiKey": "k", "models": [{"id": "shared-1"}]},
  "p3": {"api": "openai-completions", "baseUrl": "http://x", "apiKey": "$NOPE", "models": [{"id": "solo-20250101"}, {"id": "solo-x"}]}
}}"#;

fn refs_registry() -> Registry {
    let mut diags = Vec::new();
    let src = SourceText {
        name: "agent/models.json".into(),
        text: REFS_JSON.into(),
    };
    Registry::load(&pi_16(), Some(&src), &BTreeMap::new(), &mut diags)
}

/// `resolveCliModel` of 1.6.0: the model reference (or the error), the thinking level.
fn resolve16(provider: Option<&str>, text: &str, thinking: Option<&str>, key: bool) -> String {
    let r = super::reference::resolve_cli_model(
        &pi_16(),
        &refs_registry(),
        provider,
        text,
        thinking,
        key,
    );
    match (r.model, r.error) {
        (Some(m), _) => format!(
            "{}{}",
            m.reference(),
            r.thinking_level
                .map(|l| format!(" @{l}"))
                .unwrap_or_default()
        ),
        (None, Some(e)) => format!("error: {e}"),
        (None, None) => "none".into(),
    }
}

#[test]
fn reference_prefix_is_the_longest_known_provider() {
    // 0.85 took the first slash (lab, then gpu/m1); 1.6.0 the longest provider id.
    assert_eq!(resolve16(None, "lab/gpu/m1", None, false), "lab/gpu/m1");
    assert_eq!(resolve16(None, "LAB/gpu-x/m1", None, false), "lab/gpu-x/m1");
    assert_eq!(
        resolve16(None, "lab/gpu/m1:high", None, false),
        "lab/gpu/m1 @high"
    );
}

#[test]
fn reference_literal_id_then_raw_then_fuzzy() {
    // The named provider's literal id beats its fuzzy matches (free-plus sorts higher).
    assert_eq!(resolve16(None, "gw/free", None, false), "gw/free");
    assert_eq!(resolve16(None, "gw/fre", None, false), "gw/free-plus");
    // The raw id `gw/other` on agg (no credentials) when gw has no such model.
    assert_eq!(resolve16(None, "gw/other", None, false), "agg/gw/other");
    // A bare fuzzy text on one provider; aliases before dated ids.
    assert_eq!(resolve16(None, "solo", None, false), "p3/solo-x");
}

#[test]
fn reference_credentials_break_ties_but_not_with_api_key() {
    assert_eq!(
        resolve16(None, "shared-1", None, false),
        "error: Model \"shared-1\" is ambiguous across providers: gw/shared-1, p2/shared-1. More than one matching provider is authenticated. Use --provider or provider/model."
    );
    assert_eq!(
        resolve16(None, "shared-1", None, true),
        "error: Model \"shared-1\" is ambiguous across providers: gw/shared-1, p2/shared-1. --api-key does not choose a provider. Use --provider or provider/model."
    );
    assert_eq!(
        resolve16(Some("P2"), "shared-1", None, false),
        "p2/shared-1"
    );
    assert_eq!(
        resolve16(Some("nope"), "shared-1", None, false),
        "error: Unknown provider \"nope\". Use --list-models to see available providers/models."
    );
}

#[test]
fn reference_suffix_is_strict_and_fallbacks_spread_the_provider() {
    // A valid level is split off; an invalid one stays in the id, which is then not found.
    assert_eq!(
        resolve16(None, "gw/free:high", None, false),
        "gw/free @high"
    );
    assert_eq!(
        resolve16(None, "free-plus:turbo", None, false),
        "error: Model \"free-plus:turbo\" not found. Use --list-models to see available models."
    );
    // Unknown id on a known provider: a custom model from the provider's first model.
    let r = super::reference::resolve_cli_model(
        &pi_16(),
        &refs_registry(),
        None,
        "gw/next:high",
        None,
        false,
    );
    let m = r.model.expect("a custom model");
    assert_eq!((m.id(), m.name(), m.reasoning()), ("next", "next", true));
    assert_eq!(r.thinking_level.as_deref(), Some("high"));
    assert_eq!(
        r.warning.as_deref(),
        Some("Model \"next\" not found for provider \"gw\". Using custom model id.")
    );
    // With --thinking the suffix is part of the id.
    let r = super::reference::resolve_cli_model(
        &pi_16(),
        &refs_registry(),
        Some("gw"),
        "next:high",
        Some("off"),
        false,
    );
    let m = r.model.expect("a custom model");
    assert_eq!((m.id(), m.reasoning()), ("next:high", false));
    assert_eq!(r.thinking_level, None);
}

#[test]
fn provider_without_model_and_branch_selection_are_1_6_rules() {
    let reg = refs_registry();
    let fresh = SessionContext::default();
    let run = |pi: &Pi, cli: CliModel| {
        let mut diags = Vec::new();
        let c = choose(
            pi,
            &mut reg.clone(),
            cli,
            SessionModel {
                context: &fresh,
                branch: &[],
                has_messages: false,
            },
            &Settings::default(),
            "/pkg/docs",
            &mut Events::default(),
            &mut diags,
        );
        c.exit
    };
    let cli = CliModel {
        provider: Some("gw"),
        ..Default::default()
    };
    assert_eq!(
        run(&pi_16(), cli).as_deref(),
        Some("Error: --provider requires --model (for example: --provider gw --model <pattern>)")
    );
    assert_eq!(run(&pi(), cli), None);

    // getBranchSelection skips a virtual (failed routing) reply; 0.85 took the last one.
    let entries: Vec<Value> = [
        r#"{"type":"message","message":{"role":"assistant","api":"openai-completions","provider":"gw","model":"free"}}"#,
        r#"{"type":"message","message":{"role":"assistant","api":"pi-virtual","provider":"router","model":"auto"}}"#,
    ]
    .iter()
    .map(|j| v(j))
    .collect();
    let branch: Vec<&crate::js::Object> = entries.iter().filter_map(Value::as_object).collect();
    assert_eq!(
        super::resolver::tests_branch_selection(&branch, &reg).as_deref(),
        Some("gw/free")
    );
}

/// What models.json makes pi refuse or leave out is said at its line.
#[test]
fn models_json_problems_are_said_at_their_line() {
    // A schema error: the whole file is ignored, as pi ignores it; the line of the bad value.
    let text = "// mine\n{\n  \"providers\": {\n    \"acme\": {\n      \"models\": [\n        {\"id\": \"a\"},\n        {\"id\": \"\"}\n      ]\n    }\n  }\n}";
    let (_, d) = load(text, &BTreeMap::new());
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].line, Some(7), "{d:?}");
    assert_eq!(
        d[0].message,
        "Invalid models.json schema: providers.acme.models.1.id: must be a non-empty string"
    );
    // An apiKey naming an unset variable: said at its provider's line.
    let text = "{\n  \"providers\": {\n    \"one\": {\"baseUrl\": \"http://x\", \"api\": \"openai-completions\", \"apiKey\": \"k\", \"models\": [{\"id\": \"m\"}]},\n    \"two\": {\n      \"baseUrl\": \"http://x\",\n      \"api\": \"openai-completions\",\n      \"apiKey\": \"$NOT_SET_HERE\",\n      \"models\": [{\"id\": \"m\"}]\n    }\n  }\n}";
    let (_, d) = load(text, &BTreeMap::new());
    let unset: Vec<_> = d.iter().filter(|x| x.message.contains("unset")).collect();
    assert_eq!(unset.len(), 1, "{d:?}");
    assert_eq!(unset[0].line, Some(4), "{d:?}");
}

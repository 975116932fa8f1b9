//! Every model of each pi release's catalog resolves to a vocabulary or says unknown; known
//! families land where their provider's documentation puts them.

use ctxlens::tokens::{Rules, Vocabulary};
use std::collections::BTreeMap;

fn catalog(version: &str) -> Vec<(String, String)> {
    let path = format!(
        "{}/../pi/data/pi-{version}/models.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap();
    let models = ctxlens::js::parse(&text).unwrap();
    models
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m.get_str("provider").unwrap().into(),
                m.get_str("id").unwrap().into(),
            )
        })
        .collect()
}

fn label(r: &Vocabulary) -> String {
    match r {
        Vocabulary::Known {
            name, exact: true, ..
        } => name.clone(),
        Vocabulary::Known {
            name, exact: false, ..
        } => format!("{name} (estimate)"),
        Vocabulary::Unknown {
            kind: Some(kind), ..
        } => format!("unknown ({kind})"),
        Vocabulary::Unknown { kind: None, .. } => "unknown".into(),
    }
}

#[test]
fn every_catalog_model_resolves_and_the_counts_are_reported() {
    let rules = Rules::shipped();
    for version in ctxlens::PiVersion::ALL {
        let models = catalog(&version.to_string());
        let mut by: BTreeMap<String, usize> = BTreeMap::new();
        for (provider, id) in &models {
            *by.entry(label(&rules.resolve(provider, id))).or_default() += 1;
        }
        eprintln!("pi {version}: {} models: {by:?}", models.len());
        assert_eq!(by.values().sum::<usize>(), models.len());
        for family in [
            "o200k_base",
            "cl100k_base",
            "qwen2",
            "deepseek_v3",
            "llama3",
            "mistral_v3",
            "unknown (claude)",
            "gemma3 (estimate)",
        ] {
            assert!(by.contains_key(family), "pi {version}: no {family}: {by:?}");
        }
    }
}

#[test]
fn known_families_resolve_to_their_vocabulary() {
    let rules = Rules::shipped();
    let vocab = |p: &str, id: &str| label(&rules.resolve(p, id));
    assert_eq!(vocab("openai", "gpt-4o-mini"), "o200k_base");
    assert_eq!(vocab("openrouter", "openai/gpt-5.1-codex"), "o200k_base");
    assert_eq!(
        vocab("amazon-bedrock", "openai.gpt-oss-120b-1:0"),
        "o200k_base"
    );
    assert_eq!(vocab("openai", "gpt-4-turbo"), "cl100k_base");
    assert_eq!(vocab("openrouter", "qwen/qwen3-coder"), "qwen2");
    assert_eq!(vocab("deepseek", "deepseek-chat"), "deepseek_v3");
    assert_eq!(
        vocab("amazon-bedrock", "us.deepseek.r1-v1:0"),
        "deepseek_v3"
    );
    assert_eq!(vocab("cerebras", "zai-glm-5-2"), "glm5 (estimate)");
    assert_eq!(vocab("vercel-ai-gateway", "alibaba/qwen-3-235b"), "qwen2");
    // DeepSeek V4 and Kimi K3: the tiktoken crate has vocabularies for them, but no independent
    // reference was at hand to test them, so they stay unknown.
    assert_eq!(vocab("deepseek", "deepseek-v4-flash"), "unknown");
    assert_eq!(vocab("moonshotai", "kimi-k3"), "unknown");
    assert_eq!(vocab("groq", "llama-3.3-70b-versatile"), "llama3");
    assert_eq!(vocab("mistral", "devstral-medium-latest"), "mistral_v3");
    assert_eq!(
        vocab("moonshotai", "kimi-k2-0905-preview"),
        "kimi_k2 (estimate)"
    );
    assert_eq!(vocab("zai", "glm-4.6"), "glm4 (estimate)");
    assert_eq!(vocab("minimax", "MiniMax-M2"), "minimax_m2 (estimate)");
    assert_eq!(vocab("google", "gemini-2.5-pro"), "gemma3 (estimate)");
    assert_eq!(vocab("anthropic", "claude-sonnet-4-5"), "unknown (claude)");
    assert_eq!(
        vocab(
            "amazon-bedrock",
            "us.anthropic.claude-opus-4-1-20250805-v1:0"
        ),
        "unknown (claude)"
    );
    // No silent fallback: an unknown family, and a newer release of a family whose vocabulary
    // is known to have changed (Llama 4), stay unknown.
    assert_eq!(vocab("xai", "grok-4"), "unknown");
    assert_eq!(vocab("meta", "llama-4-maverick"), "unknown");
    // A later Qwen (the demo's qwen3.8-flash): the family's vocabulary, labelled an estimate.
    assert_eq!(vocab("openrouter", "qwen/qwen3.5-plus"), "qwen2 (estimate)");
    assert_eq!(vocab("mock", "qwen3.8-flash"), "qwen2 (estimate)");
    // A family name inside another word is not that family.
    assert_eq!(vocab("x", "notgpt-4o"), "unknown");
}

#[test]
fn a_provider_restricted_rule_and_a_bad_rules_file() {
    let rules = Rules::parse(
        r#"{"rules":[{"match":["m"],"provider":["A"],"tokenizer":"x","exact":true}]}"#,
    )
    .unwrap();
    assert_eq!(label(&rules.resolve("a", "m-1")), "x");
    assert_eq!(label(&rules.resolve("b", "m-1")), "unknown");
    let err = Rules::parse(r#"{"rules":[{"match":["ok"],"tokenizer":"x"},{"match":[]}]}"#)
        .err()
        .unwrap();
    assert!(err.starts_with("rule 1: `match`"), "{err}");
    let err = Rules::parse(r#"{"rules":[{"match":["ok"],"tokenizer":3}]}"#)
        .err()
        .unwrap();
    assert!(err.starts_with("rule 0: `tokenizer`"), "{err}");
    assert!(Rules::parse("{}").is_err());
    assert!(Rules::parse("not json").is_err());
}

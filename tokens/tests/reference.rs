//! Token counts equal an independent implementation's on the texts of corpus cases:
//! `reference-counts.json` holds those texts (system prompts, each tool's description and the
//! JSON of its parameters, each message's text, from the bodies pi sent) and their counts by
//! js-tiktoken and @lenml/tokenizers (scripts/tokens-reference.mjs writes it).

use ctxlens_tokens::{builtin, Tokenizer};
use std::path::PathBuf;

fn reference() -> serde_json::Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/reference-counts.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Compares `tok` with the reference's `vocab` counts on every text; returns how many texts.
fn compare(tok: &dyn Tokenizer, vocab: &str) -> usize {
    let reference = reference();
    let mut checked = 0;
    let mut wrong = Vec::new();
    for entry in reference["texts"].as_array().unwrap() {
        let text = entry["text"].as_str().unwrap();
        let want = entry["counts"][vocab].as_u64().unwrap() as usize;
        let got = tok.count(text).unwrap();
        checked += 1;
        if got != want {
            wrong.push(format!(
                "{} / {}: {got} tokens, reference {want}",
                entry["case"], entry["where"]
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} ({}) differs from the reference:\n{}",
        vocab,
        tok.name(),
        wrong.join("\n")
    );
    checked
}

#[test]
fn builtin_vocabularies_match_the_reference() {
    for vocab in [
        "o200k_base",
        "cl100k_base",
        "qwen2",
        "deepseek_v3",
        "llama3",
    ] {
        let tok = builtin(vocab).unwrap_or_else(|| panic!("{vocab} is in the default build"));
        assert!(compare(&tok, vocab) > 60);
    }
}

/// The HF backend, on tokenizer.json files fetched by scripts/fetch-vocabularies.sh into the
/// git-ignored cache (Gemma 3's is 33 MB and under Gemma's terms: not committed).
#[test]
fn tokenizer_json_vocabularies_match_the_reference() {
    let cache = std::env::var_os("CTXLENS_VOCAB_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| ctxlens_corpus::workspace().join("target/vocab-cache"));
    for vocab in ["gemma3", "qwen2", "deepseek_v3", "llama3"] {
        let path = cache.join("hf").join(format!("{vocab}.json"));
        let bytes = std::fs::read(&path).unwrap_or_else(|e| {
            panic!("{}: {e}; run scripts/fetch-vocabularies.sh", path.display())
        });
        let tok = ctxlens_tokens::HfTokenizer::from_json(vocab, &bytes).unwrap();
        assert!(compare(&tok, vocab) > 60);
    }
}

#[test]
fn a_vocabulary_not_in_the_build_is_none_not_another() {
    assert!(builtin("cl100k").is_none());
    assert!(
        builtin("gemma3").is_none(),
        "gemma3 is a tokenizer.json, not a builtin"
    );
    assert_eq!(builtin("o200k_base").unwrap().name(), "o200k_base");
}

#[test]
fn a_bad_tokenizer_json_is_an_error() {
    assert!(ctxlens_tokens::HfTokenizer::from_json("x", b"{\"model\": 3}").is_err());
    assert!(ctxlens_tokens::HfTokenizer::from_json("x", b"not json").is_err());
}

//! Token counts with a model's own vocabulary.
//!
//! Outside `ctxlens` (the core) on purpose: vocabularies are hundreds of kilobytes to tens of
//! megabytes, and the core wasm stays small. Two backends behind one trait:
//! - [`builtin`]: the tiktoken-format vocabularies of the `tiktoken` crate (4.x), each behind its
//!   own cargo feature (`vocab-o200k_base`, ...), so a build carries only the ones it names;
//! - [`HfTokenizer`] (feature `hf`): a HF `tokenizer.json` read at run time (Gemma, or any file a
//!   host supplies), by the HF `tokenizers` crate.
//!
//! Which vocabulary a model uses is data, in the core (`ctxlens::tokens`), so that the page knows
//! which vocabulary to load before loading any.
//! Counts are of the text alone, encoded on its own, without BOS/EOS; a special token's string
//! in the text is plain text for OpenAI's and Mistral's vocabularies (as their own tokenizers
//! treat it) and that one token for the others (as their HF tokenizer does). Chat-template framing is not counted here.

/// A vocabulary that counts a text's tokens.
pub trait Tokenizer {
    /// The vocabulary's name (`o200k_base`, `gemma3`, ...).
    fn name(&self) -> &str;
    /// Tokens of `text` encoded on its own, without added special tokens (no BOS/EOS); the
    /// error says why a text could not be encoded (never a silent 0).
    fn count(&self, text: &str) -> Result<usize, String>;
}

/// The names [`builtin`] knows in this build (its enabled features); loads none of them.
pub fn builtin_names() -> Vec<&'static str> {
    BUILTINS
        .iter()
        .filter(|(_, theirs, _)| tiktoken::list_encodings().contains(theirs))
        .map(|(ours, _, _)| *ours)
        .collect()
}

// ctxlens's vocabulary names → the tiktoken crate's encoding names, and whether a special
// token's string in a text counts as that one token. OpenAI's API and Mistral's own tokenizer
// (mistral-common) treat such strings as text; the other open-weight models' vocabularies come
// from HF tokenizer.json files, whose tokenizer (as run by the servers that host them) matches
// added tokens anywhere in the text. Each choice is tested against that reference.
const BUILTINS: &[(&str, &str, Specials)] = &[
    ("o200k_base", "o200k_base", Specials::AsText),
    ("cl100k_base", "cl100k_base", Specials::AsText),
    ("qwen2", "qwen2", Specials::Matched),
    ("deepseek_v3", "deepseek_v3", Specials::Matched),
    ("llama3", "llama3", Specials::Matched),
    ("mistral_v3", "mistral_v3", Specials::AsText),
    ("kimi_k2", "kimi_k2", Specials::Matched),
    ("glm4", "glm4", Specials::Matched),
    ("glm5", "glm5", Specials::Matched),
    ("minimax_m2", "minimax_m2", Specials::Matched),
];

#[derive(Clone, Copy)]
enum Specials {
    AsText,
    Matched,
}

/// A compiled-in vocabulary by name, or `None` when it is not in this build (or unknown).
/// The first call for a name decompresses and builds it (tens of milliseconds); later calls
/// share it.
pub fn builtin(name: &str) -> Option<Builtin> {
    let (ours, theirs, specials) = BUILTINS.iter().find(|(ours, _, _)| *ours == name)?;
    tiktoken::get_encoding(theirs).map(|bpe| Builtin {
        name: ours,
        bpe,
        specials: *specials,
    })
}

/// A vocabulary of the `tiktoken` crate.
pub struct Builtin {
    name: &'static str,
    bpe: &'static tiktoken::CoreBpe,
    specials: Specials,
}

impl Tokenizer for Builtin {
    fn name(&self) -> &str {
        self.name
    }
    fn count(&self, text: &str) -> Result<usize, String> {
        Ok(match self.specials {
            Specials::AsText => self.bpe.count(text),
            Specials::Matched => self.bpe.count_with_special_tokens(text),
        })
    }
}

/// A HF `tokenizer.json` vocabulary, read at run time.
#[cfg(feature = "hf")]
pub struct HfTokenizer {
    name: String,
    inner: tokenizers::Tokenizer,
}

#[cfg(feature = "hf")]
impl HfTokenizer {
    /// Reads a `tokenizer.json` file's bytes; the error says why it cannot be used.
    pub fn from_json(name: &str, bytes: &[u8]) -> Result<HfTokenizer, String> {
        let inner = tokenizers::Tokenizer::from_bytes(bytes).map_err(|e| e.to_string())?;
        Ok(HfTokenizer {
            name: name.to_string(),
            inner,
        })
    }
}

#[cfg(feature = "hf")]
impl Tokenizer for HfTokenizer {
    fn name(&self) -> &str {
        &self.name
    }
    fn count(&self, text: &str) -> Result<usize, String> {
        self.inner
            .encode_fast(text, false)
            .map(|encoding| encoding.len())
            .map_err(|e| format!("{}: cannot encode a text: {e}", self.name))
    }
}

#[cfg(test)]
mod shipped_list {
    /// The vocabularies are listed by name in several places besides [`super::BUILTINS`]: the
    /// script that builds their wasm modules, the npm package's list and its TypeScript type,
    /// and the npm tests' expectation. They must name the same vocabularies, in the same order.
    #[test]
    fn every_list_of_the_vocabularies_names_the_builtins() {
        let ours: Vec<&str> = super::BUILTINS.iter().map(|(n, _, _)| *n).collect();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let read = |p: &str| std::fs::read_to_string(root.join(p)).expect(p);
        // The quoted names (or the bare words of a bash array) between `start` and `end`.
        let between = |text: &str, start: &str, end: &str| -> Vec<String> {
            let from = text.find(start).unwrap_or_else(|| panic!("{start}")) + start.len();
            let to = from + text[from..].find(end).unwrap_or_else(|| panic!("{end}"));
            text[from..to]
                .split([',', '|', ' '])
                .map(|w| w.trim().trim_matches('"').to_string())
                .filter(|w| !w.is_empty())
                .collect()
        };
        let lists = [
            (
                "scripts/build-tokenizers.sh",
                between(&read("scripts/build-tokenizers.sh"), "all=(", ")"),
            ),
            (
                "npm/tokens.js",
                between(
                    &read("npm/tokens.js"),
                    "export const vocabularies = Object.freeze([",
                    "]",
                ),
            ),
            (
                "npm/types.d.ts",
                between(&read("npm/types.d.ts"), "export type VocabularyName =", ";"),
            ),
            (
                "tests/npm/tokens.test.mjs",
                between(&read("tests/npm/tokens.test.mjs"), "const SHIPPED = [", "]"),
            ),
        ];
        for (file, names) in lists {
            assert_eq!(names, ours, "{file} lists other vocabularies than BUILTINS");
        }
    }
}

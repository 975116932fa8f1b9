//! Which vocabulary a model uses: `data/model-tokenizers.json`, an ordered list of rules on the
//! provider and the model id.

use regex::Regex;

/// The rules shipped with ctxlens.
pub const MODEL_TOKENIZERS_JSON: &str = include_str!("../data/model-tokenizers.json");

/// What a model's tokens are counted with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// A public vocabulary; `exact: false` when it only approximates the provider's (Gemini on
    /// Gemma's vocabulary).
    Vocabulary { name: String, exact: bool },
    /// No public vocabulary: `kind` says which estimate applies (`claude`), or none (`None`).
    Unknown { kind: Option<String> },
}

struct Rule {
    provider: Option<Regex>,
    model: Regex,
    tokenizer: Option<String>,
    exact: bool,
    kind: Option<String>,
}

/// The ordered rules; the first that matches wins, no match is [`Resolution::Unknown`].
pub struct Rules {
    rules: Vec<Rule>,
}

impl Rules {
    /// The rules shipped with ctxlens.
    pub fn shipped() -> Rules {
        Rules::parse(MODEL_TOKENIZERS_JSON).expect("data/model-tokenizers.json is valid (tested)")
    }

    /// Parses a rules file; the error names the rule and what is wrong with it.
    pub fn parse(json: &str) -> Result<Rules, String> {
        let doc: serde_json::Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
        let list = doc["rules"].as_array().ok_or("no `rules` array")?;
        let mut rules = Vec::new();
        for (i, rule) in list.iter().enumerate() {
            let regex = |key: &str| -> Result<Option<Regex>, String> {
                match rule.get(key) {
                    None => Ok(None),
                    Some(serde_json::Value::String(s)) => Regex::new(s)
                        .map(Some)
                        .map_err(|e| format!("rule {i}: `{key}`: {e}")),
                    Some(_) => Err(format!("rule {i}: `{key}` is not a string")),
                }
            };
            let model = regex("model")?.ok_or(format!("rule {i}: no `model`"))?;
            let tokenizer = match rule.get("tokenizer") {
                Some(serde_json::Value::String(s)) => Some(s.clone()),
                Some(serde_json::Value::Null) | None => None,
                Some(_) => return Err(format!("rule {i}: `tokenizer` is not a string or null")),
            };
            rules.push(Rule {
                provider: regex("provider")?,
                model,
                exact: rule.get("exact").and_then(|v| v.as_bool()).unwrap_or(false),
                kind: rule
                    .get("kind")
                    .and_then(|v| v.as_str())
                    .map(str::to_string),
                tokenizer,
            });
        }
        Ok(Rules { rules })
    }

    /// The vocabulary of `provider`'s model `model_id`.
    pub fn resolve(&self, provider: &str, model_id: &str) -> Resolution {
        let (provider, id) = (provider.to_lowercase(), model_id.to_lowercase());
        let hit = self.rules.iter().find(|r| {
            r.model.is_match(&id) && r.provider.as_ref().is_none_or(|p| p.is_match(&provider))
        });
        match hit {
            Some(Rule {
                tokenizer: Some(name),
                exact,
                ..
            }) => Resolution::Vocabulary {
                name: name.clone(),
                exact: *exact,
            },
            Some(Rule { kind, .. }) => Resolution::Unknown { kind: kind.clone() },
            None => Resolution::Unknown { kind: None },
        }
    }
}

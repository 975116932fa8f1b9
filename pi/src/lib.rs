//! The version seam: which pi release is rebuilt, with its rules and its data.
//!
//! A [`Pi`] is the context every stage takes first: the release ([`PiVersion`]), its behaviour
//! switches ([`Rules`], derived from the version in one place) and its literal facts
//! ([`PiData`], generated from the release's npm package). Nothing reads a pi release from a
//! global: an assembly resolves its `Pi` once (`ctxlens-assembly`'s `pi::choice`), and passes it
//! down.
//!
//! This crate is the layer of pi's releases: the version table and each release's data, with
//! the protocols' names ([`api`]). It knows JS semantics (`ctxlens-js`) and nothing of the
//! assembly above it.

/// JS semantics, from the layer below.
pub(crate) use ctxlens_js as js;

pub mod api;
pub mod changelog;
pub mod data;
pub mod fingerprints;
mod rules;
mod version;

pub use data::{DataError, Located, PiData};
pub use rules::{
    has_rule_docs, install_rule_docs, parse_rule_docs, rule_doc, rule_docs_json, AnthropicRules,
    BedrockRules, CliResolution, ClientIdentity, CompletionsRules, GoogleRules, MaxTokensClamp,
    MistralRules, ModelRules, PiMessagesRules, PromptTemplateArgs, ResponsesRules, Rules,
    RULE_DOCS,
};
pub use version::{PiVersion, UnknownVersion};

/// One pi release as the stages see it.
#[derive(Clone, Copy, Debug)]
pub struct Pi {
    pub version: PiVersion,
    pub rules: &'static Rules,
    pub data: &'static PiData,
}

impl Pi {
    /// The release's rules and data (compiled in, or installed with [`data::install`]).
    pub fn new(version: PiVersion) -> Result<Pi, DataError> {
        Ok(Pi {
            version,
            rules: version.rules(),
            data: data::get(version)?,
        })
    }

    /// Where the code cited as `key` lives in this release, when the extraction found it.
    pub fn source(&self, key: &str) -> Option<Located> {
        self.data.source(key)
    }
}

impl PartialEq for Pi {
    fn eq(&self, other: &Self) -> bool {
        self.version == other.version
    }
}

#[cfg(test)]
mod tests;

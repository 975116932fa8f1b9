//! The protocols pi has adapters for (a model's `api`), as one closed set.

use std::fmt;
use std::str::FromStr;

/// A pi protocol: the `api` of a model, which picks the adapter (pi-ai `dist/api/<api>.js`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Api {
    OpenAiCompletions,
    AnthropicMessages,
    OpenAiResponses,
    AzureOpenAiResponses,
    OpenAiCodexResponses,
    GoogleGenerativeAi,
    BedrockConverseStream,
    MistralConversations,
    PiMessages,
}

impl Api {
    /// Every protocol, in the order the views list them.
    pub const ALL: [Api; 9] = [
        Api::OpenAiCompletions,
        Api::AnthropicMessages,
        Api::OpenAiResponses,
        Api::AzureOpenAiResponses,
        Api::OpenAiCodexResponses,
        Api::GoogleGenerativeAi,
        Api::BedrockConverseStream,
        Api::MistralConversations,
        Api::PiMessages,
    ];

    /// pi's name for it (a model's `api` value).
    pub const fn as_str(self) -> &'static str {
        match self {
            Api::OpenAiCompletions => "openai-completions",
            Api::AnthropicMessages => "anthropic-messages",
            Api::OpenAiResponses => "openai-responses",
            Api::AzureOpenAiResponses => "azure-openai-responses",
            Api::OpenAiCodexResponses => "openai-codex-responses",
            Api::GoogleGenerativeAi => "google-generative-ai",
            Api::BedrockConverseStream => "bedrock-converse-stream",
            Api::MistralConversations => "mistral-conversations",
            Api::PiMessages => "pi-messages",
        }
    }

    /// A short name for tabs and status lines.
    pub const fn label(self) -> &'static str {
        match self {
            Api::OpenAiCompletions => "OpenAI Chat",
            Api::AnthropicMessages => "Anthropic",
            Api::OpenAiResponses => "OpenAI Responses",
            Api::AzureOpenAiResponses => "Azure Responses",
            Api::OpenAiCodexResponses => "Codex",
            Api::GoogleGenerativeAi => "Google",
            Api::BedrockConverseStream => "Bedrock",
            Api::MistralConversations => "Mistral",
            Api::PiMessages => "pi",
        }
    }

    /// The adapter's file in pi-ai (`AI/` is `@earendil-works/pi-ai/dist/`).
    pub const fn pi_file(self) -> &'static str {
        match self {
            Api::OpenAiCompletions => "AI/api/openai-completions.js",
            Api::AnthropicMessages => "AI/api/anthropic-messages.js",
            Api::OpenAiResponses => "AI/api/openai-responses.js",
            Api::AzureOpenAiResponses => "AI/api/azure-openai-responses.js",
            Api::OpenAiCodexResponses => "AI/api/openai-codex-responses.js",
            Api::GoogleGenerativeAi => "AI/api/google-generative-ai.js",
            Api::BedrockConverseStream => "AI/api/bedrock-converse-stream.js",
            Api::MistralConversations => "AI/api/mistral-conversations.js",
            Api::PiMessages => "AI/api/pi-messages.js",
        }
    }

    /// Headers that the SDK or the HTTP client adds at run time, which a built request leaves
    /// out: they describe the machine and the connection, not the protocol (as seen in the
    /// captures on Node 22). Bedrock also signs the request (SigV4) when it has no API key.
    pub const fn runtime_headers(self) -> &'static [&'static str] {
        const FETCH: &[&str] = &[
            "host",
            "connection",
            "content-length",
            "accept-encoding",
            "accept-language",
            "sec-fetch-mode",
        ];
        const STAINLESS: &[&str] = &[
            "host",
            "connection",
            "content-length",
            "accept-encoding",
            "accept-language",
            "sec-fetch-mode",
            "x-stainless-retry-count",
            "x-stainless-timeout",
            "x-stainless-lang",
            "x-stainless-package-version",
            "x-stainless-os",
            "x-stainless-arch",
            "x-stainless-runtime",
            "x-stainless-runtime-version",
        ];
        const AWS: &[&str] = &[
            "host",
            "connection",
            "content-length",
            "amz-sdk-invocation-id",
            "amz-sdk-request",
        ];
        match self {
            Api::OpenAiCompletions
            | Api::AnthropicMessages
            | Api::OpenAiResponses
            | Api::AzureOpenAiResponses => STAINLESS,
            Api::BedrockConverseStream => AWS,
            Api::OpenAiCodexResponses
            | Api::GoogleGenerativeAi
            | Api::MistralConversations
            | Api::PiMessages => FETCH,
        }
    }
}

impl fmt::Display for Api {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An `api` no adapter is registered for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownApi(pub String);

impl fmt::Display for UnknownApi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "No API provider registered for api: {}", self.0)
    }
}

impl std::error::Error for UnknownApi {}

impl FromStr for Api {
    type Err = UnknownApi;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Api::ALL
            .into_iter()
            .find(|a| a.as_str() == s)
            .ok_or_else(|| UnknownApi(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_api_round_trips_and_has_an_adapter_file() {
        for a in Api::ALL {
            assert_eq!(a.as_str().parse::<Api>(), Ok(a));
            assert_eq!(a.pi_file(), format!("AI/api/{a}.js"));
            assert!(a.runtime_headers().contains(&"host"));
        }
        assert!("openai".parse::<Api>().is_err());
    }
}

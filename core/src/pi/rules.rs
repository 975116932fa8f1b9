//! What each pi release does differently: the one place that maps a version to behaviour.
//!
//! Every switch names the release that introduced it and the captured cases that prove it.
//! Small differences are `if pi.rules.x` at the rule's site; a rewrite of a whole pi function
//! is a second port beside the first, chosen by one `match` on a rule.

use super::PiVersion;
use crate::api::Api;

/// The behaviour switches of one pi release.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rules {
    /// `CURRENT_SESSION_VERSION`: the session format pi writes and migrates older files to
    /// (CA/core/session-manager.js). 3 in every supported release (0.85.1 … 1.6.0: no new
    /// migration). Cases: `oc-session-v1`, `an-session-v1-migration`, `ss-v1-forward-index`.
    pub session_version: u32,
    /// The deepest `messages` array (the array itself is level 1) that pi's extension runner
    /// can copy before the `context` hook: `emitContext` always runs `structuredClone(messages)`
    /// (CA/core/extensions/runner.js:793), and V8's serializer recurses, so a message nested
    /// deeper throws `RangeError: Maximum call stack size exceeded` and pi sends nothing. A
    /// property of V8's stack at that call, measured by capture with the oracle's Node 22.23.5:
    /// 1,579 levels copy, 1,580 throw (cases `ss-deep-nesting-kept`, `ss-deep-nesting-refused`).
    pub max_context_depth: usize,
    /// 0.86.0: the system prompt and the tools live in the session, as `role: "system"` messages
    /// with named sections and tool declarations (`toolsAdded`/`toolsRemoved`). A run starts with
    /// a patch of what changed; the request carries their replay, collapsed into one leading
    /// system message or kept in place by the adapter. `false`: one prompt string and the active
    /// tools beside the messages (0.85). Cases: `pi-1.6.0/sp-*`.
    pub transcript: bool,
    /// 0.87.0: the session is projected (`buildSessionProjection`): `context_edit` entries
    /// replace or omit a message, and an older compaction inside the kept range adds nothing.
    /// Cases: `pi-1.6.0/ss-context-edit-*`.
    pub context_edits: bool,
    /// 1.3.0: thinking from another model is dropped, not sent as text (M10). Cases:
    /// `pi-1.6.0/*-foreign-thinking`.
    pub drop_foreign_thinking: bool,
    /// How the output limit is fitted to the context window (A2).
    pub max_tokens_clamp: MaxTokensClamp,
    /// Who pi says it is: the `User-Agent` and the provider attribution headers (A7, A12).
    pub client_identity: ClientIdentity,
    /// 1.0.2: `samplingParamsByThinkingLevel` merged over `samplingParams` for the thinking
    /// level (`resolveSamplingParams`, AI/api/simple-options.js:24–30; A13).
    pub sampling_by_thinking_level: bool,
    /// 1.6.0: a schema node without `type`, `anyOf` and `enum` cannot be made strict (the tool
    /// goes non-strict; AI/api/constrained-sampling.js:59).
    pub strict_requires_type: bool,
    /// openai-completions (AI/api/openai-completions.js).
    pub completions: CompletionsRules,
    /// google-generative-ai (AI/api/google-generative-ai.js, google-shared.js).
    pub google: GoogleRules,
    /// bedrock-converse-stream (AI/api/bedrock-converse-stream.js).
    pub bedrock: BedrockRules,
    /// The protocols whose adapter ctxlens has ported for this release. For another one no
    /// body is built: a diagnostic says the adapter is not ported yet (never a body made with
    /// another release's adapter).
    pub ported_apis: &'static [Api],
}

/// What changed in the openai-completions adapter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompletionsRules {
    /// 1.6.0: `supportsDeveloperRole` is detected only for OpenAI's own API (provider `openai`
    /// or an `api.openai.com` base URL); 0.85: every standard host and OpenRouter's `anthropic/`
    /// and `openai/` models. Cases: `pi-1.6.0/oc-*-developer*`.
    pub developer_role_openai_only: bool,
    /// 0.87.0: `supportsStrictMode` is detected false everywhere (strict tool schemas only when
    /// a model says so); 0.85: true but for moonshot, together, Cloudflare AI Gateway, NVIDIA.
    pub strict_opt_in: bool,
    /// `sendSessionAffinityHeaders` is detected true for OpenRouter (false everywhere in 0.85).
    pub openrouter_session_affinity: bool,
    /// 1.5.1: the compat keys `requiresToolsWithToolHistory` (`tools: []` with tool history only
    /// when set), `requiresNonNullAssistantContent` and `promptCacheKeyMode`.
    pub compat_1_5_1: bool,
    /// 0.87.1: empty text parts are left out of a user message's content array.
    pub drop_empty_user_text: bool,
    /// 1.4.0: a tool result whose text is only whitespace counts as empty.
    pub blank_tool_result_is_empty: bool,
}

/// What changed in the google-generative-ai adapter (and google-shared.js). The transcript is
/// always collapsed (G10: the leading system message is `systemInstruction`, the current tools
/// are the declarations), which [`Rules::transcript`] already says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GoogleRules {
    /// 0.86.0 (#9455), 1.3.0 (#10890): `usesGoogleThinkingLevel`: Gemini 3 Pro/Flash, Gemini
    /// 4 and later, the flash(-lite)-latest ids and Gemma 4 send a `thinkingLevel`, the
    /// resolved level itself (the model's `thinkingLevelMap` decides: no hard-coded Gemini 3 Pro
    /// or Gemma remap); a level that clamps to off is disabled, and the disabled config is
    /// `thinkingBudget: 0` unless a level model cannot be off
    /// (`getDisabledGoogleThinkingConfig`). 0.85: Gemini 3 Pro/Flash and Gemma 4 only, with
    /// remaps, and `thinkingLevel` LOW/MINIMAL when off. Cases: `pi-1.6.0/gg-custom-3pro-*`,
    /// `gg-custom-3flash-off`, `gg-4argon-high`, `gg-gemma4-minimal`.
    pub thinking_level_from_map: bool,
    /// 1.5.0 (#11308): string and number `const` in a tool schema become one-value `enum`s
    /// (`rewriteConstAsEnum`). Case: `pi-1.6.0/gg-const-enum`.
    pub const_as_enum: bool,
    /// 1.4.0 (#8720): a tool result whose text is only whitespace counts as empty (the
    /// untrimmed text is still what is sent when it does not). Cases: `pi-1.6.0/gg-history-*`,
    /// `gg-error-image-3flash`.
    pub blank_tool_result_is_empty: bool,
    /// By 1.4.0 (with pi-ai's client identity, A7; no changelog line names it): the headers
    /// are `providerHeadersToRecord(identity, model.headers, options.headers)`
    /// (AI/utils/headers.js:8–19): merged case-insensitively, a name set again moves to the end
    /// with its last spelling (0.85: one object spread, `User-Agent` first). Case:
    /// `pi-1.6.0/gg-headers`.
    pub headers_merged_case_insensitively: bool,
    /// @google/genai 2.x (0.86.1 on; 2.32.0 in 1.6.0): `functionCall` is written `args, id,
    /// name` and `inlineData` is passed on as pi writes it (`mimeType, data`); 1.52.0 wrote `id,
    /// args, name` and `data, mimeType`. Cases: `pi-1.6.0/gg-history-3flash`, `gg-image-prompt`.
    pub sdk_v2_parts: bool,
}

/// What changed in the bedrock-converse-stream adapter. The transcript is always collapsed
/// (B10), which [`Rules::transcript`] already says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BedrockRules {
    /// 1.1.0: Claude Haiku 5 joins the adaptive-thinking, native-`xhigh` and prompt-caching
    /// lists (B2); the id lists are read from the release's data
    /// (`bedrockClaude*Ids`). Case: `pi-1.6.0/bd-haiku5-xhigh`.
    pub claude_haiku_5: bool,
    /// 1.0.1 (#10324): adaptive Claude models that accept it (Opus 4.7/4.8, Opus 5, Sonnet 5,
    /// Haiku 5, Fable 5; not on GovCloud) get `thinking.block_binding` and the
    /// `thinking-binding-controls` beta (B6). Cases: `pi-1.6.0/bd-fresh-opus48-high`,
    /// `bd-sonnet46-medium` (without).
    pub thinking_block_binding: bool,
    /// 1.1.0 (#9331, #10142): OpenAI models get their thinking level: gpt-oss a flat
    /// `reasoning_effort`, other GPT models `reasoning.effort` (B6). Cases:
    /// `pi-1.6.0/bd-gptoss-*`, `bd-gpt6-minimal`.
    pub openai_reasoning_effort: bool,
    /// 1.3.0 (#10794): for Claude, an error tool result's images are replaced by a placeholder
    /// and sent after all the tool results of the turn (M22, `splitErrorToolResultImages`).
    /// Cases: `pi-1.6.0/bd-error-image-claude`, `bd-error-image-nova` (kept in place).
    pub split_error_tool_result_images: bool,
    /// 1.5.0 (#11416), 1.5.1 (#11626): a request rejected for too many strict tools is sent
    /// once more with the `"prefer"` tools non-strict, and the session keeps them non-strict
    /// (process state: a fresh process sends them strict; B7, A14). Said in the trace.
    pub strict_tool_limit_fallback: bool,
    /// 1.4.0 (R3-changelog-map): pi's client identity joins the AWS SDK's user agent as a
    /// `pi/<version>` pair (`customUserAgent`, B11): in `x-amz-user-agent` and `user-agent`.
    /// Cases: `pi-1.6.0/bd-*`, every `request-1.meta.json`.
    pub pi_user_agent_pair: bool,
}

/// How `clampMaxTokensToContext` leaves room for the input (AI/api/simple-options.js).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaxTokensClamp {
    /// `min(maxTokens, max(1, window - input - 4096))` (0.85).
    SafetyTokens,
    /// 1.5.1: a margin of 15 % of the input (at least 4096), or at most 32,768 output tokens
    /// near a full window. Cases: `pi-1.6.0/sp-clamp-*`.
    RatioMargin,
}

/// How pi identifies itself to providers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientIdentity {
    /// `User-Agent: pi (linux 6.1.0; x64)` (the OS release), and the coding agent's
    /// attribution headers merged into the request's headers, above the model's
    /// (`mergeProviderAttributionHeaders`, CA/core/provider-attribution.js; 0.85).
    OsUserAgent,
    /// 1.4.0: pi-ai's client identity: `User-Agent: pi/1.6.0 (linux; node/v22.23.5; x64)` and
    /// the attribution headers (OpenRouter, NVIDIA, OpenCode; with install telemetry on), below
    /// the model's and the request's headers in every adapter (`getIdentityHeaders`,
    /// AI/utils/identity.js:97). Cases: `pi-1.6.0/*`, every `request-1.meta.json`.
    PiAi,
}

impl PiVersion {
    /// The rules of this release.
    pub fn rules(self) -> &'static Rules {
        static V0_85_1: Rules = Rules {
            session_version: 3,
            max_context_depth: 1579,
            transcript: false,
            context_edits: false,
            drop_foreign_thinking: false,
            max_tokens_clamp: MaxTokensClamp::SafetyTokens,
            client_identity: ClientIdentity::OsUserAgent,
            sampling_by_thinking_level: false,
            strict_requires_type: false,
            completions: CompletionsRules {
                developer_role_openai_only: false,
                strict_opt_in: false,
                openrouter_session_affinity: false,
                compat_1_5_1: false,
                drop_empty_user_text: false,
                blank_tool_result_is_empty: false,
            },
            google: GoogleRules {
                thinking_level_from_map: false,
                const_as_enum: false,
                blank_tool_result_is_empty: false,
                headers_merged_case_insensitively: false,
                sdk_v2_parts: false,
            },
            bedrock: BedrockRules {
                claude_haiku_5: false,
                thinking_block_binding: false,
                openai_reasoning_effort: false,
                split_error_tool_result_images: false,
                strict_tool_limit_fallback: false,
                pi_user_agent_pair: false,
            },
            ported_apis: &Api::ALL,
        };
        static V1_6_0: Rules = Rules {
            session_version: 3,
            max_context_depth: 1579,
            transcript: true,
            context_edits: true,
            drop_foreign_thinking: true,
            max_tokens_clamp: MaxTokensClamp::RatioMargin,
            client_identity: ClientIdentity::PiAi,
            sampling_by_thinking_level: true,
            strict_requires_type: true,
            completions: CompletionsRules {
                developer_role_openai_only: true,
                strict_opt_in: true,
                openrouter_session_affinity: true,
                compat_1_5_1: true,
                drop_empty_user_text: true,
                blank_tool_result_is_empty: true,
            },
            google: GoogleRules {
                thinking_level_from_map: true,
                const_as_enum: true,
                blank_tool_result_is_empty: true,
                headers_merged_case_insensitively: true,
                sdk_v2_parts: true,
            },
            bedrock: BedrockRules {
                claude_haiku_5: true,
                thinking_block_binding: true,
                openai_reasoning_effort: true,
                split_error_tool_result_images: true,
                strict_tool_limit_fallback: true,
                pi_user_agent_pair: true,
            },
            ported_apis: &[
                Api::OpenAiCompletions,
                Api::GoogleGenerativeAi,
                Api::BedrockConverseStream,
            ],
        };
        match self {
            PiVersion::V0_85_1 => &V0_85_1,
            PiVersion::V1_6_0 => &V1_6_0,
        }
    }
}

//! What each pi release does differently: the one place that maps a version to behaviour.
//!
//! Every switch names the release that introduced it and the captured cases that prove it.
//! Small differences are `if pi.rules.x` at the rule's site; a rewrite of a whole pi function
//! is a second port beside the first, chosen by one `match` on a rule.

use super::PiVersion;
use crate::api::Api;

/// How `parseCommandArgs` splits `/template args` into arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PromptTemplateArgs {
    /// 0.85: a `"` or `'` anywhere opens a quote (an apostrophe in `doesn't` too), an unclosed
    /// quote takes the rest, and an empty quoted argument (`""`) is dropped.
    QuoteAnywhere,
    /// 1.3.0 (#10867) to 1.5.0: as 0.85, but a quoted empty argument (`""`) is kept. Case:
    /// `pi-1.5.0/pt-template-args`.
    QuoteAnywhereKeepEmpty,
    /// 1.5.1 (#11861), with 1.3.0's empty arguments: a quote opens only at the start of an
    /// argument, an unclosed quote is re-read as text, and `\"` inside `"..."` (or `\'` inside
    /// `'...'`) is a literal quote. Cases: `pi-1.6.0/pt-template-args`, `pi-1.5.2/…`.
    QuoteOpensToken,
}

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
    /// Cases: `pi-1.6.0/ss-context-edit-*`, `pi-0.87.0/pm-context-edit`, `ms-context-edit`,
    /// `sp-context-edit-usage`.
    pub context_edits: bool,
    /// 0.87.0 with `context_edits`: before pi retries a failed answer it omits the attempt with
    /// a stored `context_edit` (`_omitRecoveryAttempt`, 1.6.0/CA/core/agent-session.js:906), so
    /// the retry's branch already leaves it out. `false` (0.85): pi only takes the failed answer
    /// off its state (`_prepareRetry`, CA/core/agent-session.js:2305) and the session keeps it
    /// as the retry's parent, so rebuilding the retry's call drops it. Cases: `pi-0.85.1/pm-retry-085`
    /// (calls 2-4), `pi-1.6.0/pm-fresh-low` (requests 2-4 after stored omissions).
    pub retry_omission_stored: bool,
    /// 1.3.0: thinking from another model is dropped, not sent as text. Cases:
    /// `pi-1.6.0/*-foreign-thinking`.
    pub drop_foreign_thinking: bool,
    /// How the output limit is fitted to the context window.
    pub max_tokens_clamp: MaxTokensClamp,
    /// Who pi says it is: the `User-Agent` and the provider attribution headers.
    pub client_identity: ClientIdentity,
    /// 1.0.2: `samplingParamsByThinkingLevel` merged over `samplingParams` for the thinking
    /// level (`resolveSamplingParams`, AI/api/simple-options.js:24–30).
    pub sampling_by_thinking_level: bool,
    /// 1.6.0: a schema node without `type`, `anyOf` and `enum` cannot be made strict (the tool
    /// goes non-strict; AI/api/constrained-sampling.js:59).
    pub strict_requires_type: bool,
    /// 0.87.0 (per-model image resize profiles applied to file attachments, #9631): the prompt's
    /// images pass `_normalizePromptImages` (CA/core/agent-session.js:1676–1693), which makes each
    /// one again as `{type, data, mimeType}`; 0.85: `{type, mimeType, data}` as the `@file`
    /// reader built it. Only pi-messages shows the key order. Cases: `pi-1.6.0/pm-image-long`,
    /// `pi-0.87.0/pm-image-long`.
    pub prompt_images_normalized: bool,
    /// When pi compacts: `contextTokens > contextWindow - reserveTokens` while
    /// `compaction.enabled` (default true; `shouldCompact`, CA/core/compaction/compaction.js:173,
    /// the same in both releases). `true` (0.86.0, #8133): `compaction.modelOverrides
    /// ["provider/id"]` overrides `reserveTokens`/`keepRecentTokens` for a model and each must be
    /// a non-negative safe integer, else `getCompactionSettings` throws
    /// (`getCompactionTokenSetting`, 1.6.0/CA/core/settings-manager.js:654–670); `false`
    /// (0.85.1): `compaction.reserveTokens ?? 16384` as it is (CA/core/settings-manager.js:559).
    /// It decides no byte of a request, so no capture shows it; read from both releases' code
    /// and tested against their `getCompactionSettings` (`settings::Settings::compaction`).
    pub compaction_model_overrides: bool,
    /// 1.3.0 (#10785): the active tools are a loadout (`tools::select_loadout`): a resumed
    /// session with the default tools restores the tools its transcript declares
    /// (`_restoreToolsFromTranscript` at startup), `--tools` and `--exclude-tools` take `*`
    /// patterns (1.0.4) and `--tools` `+name`/`-name` modifiers of the defaults (1.1.0; in
    /// `defaultTools` 0.99.0), the registry in pi's built-in order. `false` (0.85–0.87): `createAgentSession` starts every run with `--tools`, else
    /// `defaultTools`, else the four defaults, as exact names (`tools::select`; 0.86.1/CA/core/
    /// sdk.js:140–145, where `initialActiveToolNames` is always set, so the restore never runs).
    /// Cases: `pi-0.86.1/sp-resume-*`, `sp-fresh-modifiers`, `ms-held-collapsed`, `pm-held-orphan`.
    pub tool_loadout: bool,
    /// 1.5.0 (#11495): a new tool loadout keeps the order of the tools that stay active and
    /// appends the others (`_applyToolLoadout`), so a restore from the transcript in another
    /// order patches nothing; 0.86.0–1.4.0: the loadout's own order. Cases:
    /// `pi-1.5.0/sp-resume-order` (a `tools` patch), `pi-1.4.0/sp-resume-order` (none).
    pub loadout_keeps_order: bool,
    /// 1.4.0 (#10940): `resolveTranscriptTools` folds the tool changes up to the last removal
    /// or redeclaration into the top-level tools and anchors the later additions (Responses,
    /// Kimi-style completions); 0.86.0–1.3.0: one removal or redeclaration anywhere folds every
    /// change (1.3.0/AI/utils/transcript.js:198–205). Read from the code: no captured case has
    /// an addition after a removal under tool search or Kimi-style additions yet.
    pub tool_changes_fold_after_last_change: bool,
    /// How a prompt template's arguments are split (`parseCommandArgs`,
    /// CA/core/prompt-templates.js:11). Case: `pt-template-args` (captured for both releases).
    pub prompt_template_args: PromptTemplateArgs,
    /// 1.5.0 (`hasManifestResourceFields`, with package.json's `pi.changelogPath`): a package's
    /// `pi` key counts as its manifest only when it names a resource field (`extensions`,
    /// `skills`, `prompts`, `themes`); without one the conventional folders load. 0.85.1–1.4.0:
    /// any `pi` object is the manifest, so one without resource fields loads nothing
    /// (CA/core/package-manager.js `collectPackageResources`). Case `pkg-npm`'s meta-kit (a `pi`
    /// key with only `video`, and a `skills/` folder): no skill in `pi-0.85.1/` … `pi-1.4.0/`,
    /// its skill in `pi-1.5.0/` … `pi-1.6.0/`.
    pub package_manifest_needs_resource_fields: bool,
    /// 1.3.0: a package filter's pattern goes through `normalizePath` before it is matched
    /// (`~/` expanded, a `file://` URL made a path; CA/core/package-manager.js
    /// `matchesAnyPattern`, `normalizeExactPattern`). Read from the code (no case has a `~`
    /// pattern); case `pkg-filters` (patterns without one) in every release.
    pub package_patterns_normalized: bool,
    /// 1.3.0: the folder of a git package given with `-e` (pi's temporary scope) is named by a
    /// hash of its host, path *and ref* (`getTemporaryDir(prefix, suffix, ref)`), so each pinned
    /// ref has its own checkout; 0.85.1–0.87.1 hash the host and path only
    /// (CA/core/package-manager.js `getTemporaryDir`). Case `pkg-cli` (a git package with a ref
    /// given with `-e`) in every release.
    pub temporary_git_dir_hashes_ref: bool,
    /// openai-completions (AI/api/openai-completions.js).
    pub completions: CompletionsRules,
    /// The session entry types this release reads (`SessionEntry`, CA/core/session-manager.d.ts);
    /// another type is ignored, and said so.
    pub entry_types: &'static [&'static str],
    /// The message roles `convertToLlm` passes or converts (CA/core/messages.js); another role
    /// is dropped, and said so.
    pub message_roles: &'static [&'static str],
    /// The three Responses adapters and the conversions they share
    /// (AI/api/openai-responses*.js, azure-openai-responses.js, openai-codex-responses.js).
    pub responses: ResponsesRules,
    /// mistral-conversations (AI/api/mistral-conversations.js).
    pub mistral: MistralRules,
    /// pi-messages (AI/api/pi-messages.js).
    pub pi_messages: PiMessagesRules,
    /// anthropic-messages (AI/api/anthropic-messages.js).
    pub anthropic: AnthropicRules,
    /// google-generative-ai (AI/api/google-generative-ai.js, google-shared.js).
    pub google: GoogleRules,
    /// bedrock-converse-stream (AI/api/bedrock-converse-stream.js).
    pub bedrock: BedrockRules,
    /// How pi picks the model: `--model`/`--provider`, the session's model, the default, and
    /// which providers count as configured (CA/core/model-resolver.js, CA/main.js, CA/core/sdk.js).
    pub model: ModelRules,
    /// The protocols whose adapter ctxlens has ported for this release. For another one no
    /// body is built: a diagnostic says the adapter is not ported yet (never a body made with
    /// another release's adapter).
    pub ported_apis: &'static [Api],
}

/// What changed in the choice of the model (CA/core/model-resolver.js `resolveCliModel` and
/// `findInitialModel`, CA/main.js `buildSessionOptions`, CA/core/sdk.js `createAgentSession`).
/// `findInitialModel`'s order and the thinking level are the same in every release; the default
/// model of each provider (`defaultModelPerProvider`) and the env vars that configure a built-in
/// provider (`apiKeyEnvVars`, AI/env-api-keys.js) are the release's data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelRules {
    /// How `--model` (with `--provider`) finds its model.
    pub cli_resolution: CliResolution,
    /// 1.0.0 (#10236): `--provider` without `--model` is an error (CA/main.js:399–404); 0.85: it
    /// is ignored. Case: `pi-1.6.0/md-provider-without-model`.
    pub provider_requires_model: bool,
    /// 1.5.0 (#11394): with [`CliResolution::Reference`], the provider prefix of `--model` is the
    /// longest known provider id followed by `/` (ids may hold `/`); 1.3.0–1.4.0: the text
    /// before the first `/`. Cases: `pi-1.5.0/md-prefix-slash`, `pi-1.4.0/md-prefix-slash`.
    pub longest_provider_prefix: bool,
    /// 0.99.0 (virtual models): the session's model is `getBranchSelection`
    /// (CA/core/virtual-models.js:29–43): walking back from the leaf, the first `model_change`,
    /// else the first assistant message that is not `pi-virtual` (unless the `model_change`
    /// before it names a registered virtual model). 0.85: the last `model_change` or assistant
    /// message on the path. Cases: `pi-1.6.0/md-restore-*`.
    pub branch_selection: bool,
    /// 1.6.0: `Could not restore model p/id. Using q/r` is a startup warning in every mode (on
    /// stderr before pi exits or sends); 0.85: shown by the interactive mode only. Case:
    /// `pi-1.6.0/md-restore-noauth-error`.
    pub restore_fallback_reported: bool,
    /// 0.99.2 (#10177): Anthropic workload identity federation (`ANTHROPIC_FEDERATION_RULE_ID`,
    /// `ANTHROPIC_ORGANIZATION_ID` and `ANTHROPIC_IDENTITY_TOKEN_FILE` all set) configures the
    /// anthropic provider after its key variables (AI/providers/anthropic.js:38–57). Case:
    /// `pi-1.6.0/md-env-anthropic-federation`.
    pub anthropic_workload_identity: bool,
    /// Provider ids this release no longer knows, with the id that replaced them: 1.0.3 (#9714)
    /// renamed `azure-openai-responses` to `azure`, with no alias and no migration, so a session,
    /// a `--model` or `settings.json` naming the old id does not resolve. Said in a diagnostic.
    /// Case: `pi-1.6.0/md-restore-azure-renamed`.
    pub renamed_providers: &'static [(&'static str, &'static str)],
}

/// How `resolveCliModel` reads `--model` and `--provider`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CliResolution {
    /// 0.85 (CA/core/model-resolver.js:291–463): a known provider before the first `/`; an exact
    /// id or `provider/id` across providers (the sole authenticated one among several);
    /// `parseModelPattern` within the provider, then on the whole text; an unknown id on a known
    /// provider becomes a custom model.
    FirstSlash,
    /// 1.3.0 (#10160), 1.5.0 (#11394): `resolveModelReference` over every model
    /// (1.6.0/CA/core/model-resolver.js:81–224): `--provider` matched case-insensitively; the
    /// longest known provider prefix (ids may hold `/`); that provider's literal id, else the
    /// raw id there, else its best fuzzy match; among several providers the named one when it
    /// has credentials, else the sole usable raw match, else the named one, else ambiguous; a
    /// fuzzy tie on one id across providers is ambiguous; a `:level` suffix must be valid
    /// (strict); `--api-key` makes no provider usable. Cases: `pi-1.6.0/md-*`.
    Reference,
}

/// What changed in the openai-completions adapter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompletionsRules {
    /// 1.6.0: `supportsDeveloperRole` is detected only for OpenAI's own API (provider `openai`
    /// or an `api.openai.com` base URL); 0.85: every standard host and OpenRouter's `anthropic/`
    /// and `openai/` models. Cases: `pi-1.6.0/oc-*-developer*`.
    pub developer_role_openai_only: bool,
    /// 0.87.0 (#9816): `supportsStrictMode` is detected false everywhere (strict tool schemas only
    /// when a model says so); 0.85: true but for moonshot, together, Cloudflare AI Gateway, NVIDIA
    /// (0.86.1: and Cerebras, #9804). Cases: `pi-0.87.0/sp-*` (non-strict), `pi-0.86.1/sp-*`.
    pub strict_opt_in: bool,
    /// 0.86.1 (#9804): `supportsStrictMode` is detected false for Cerebras too (provider
    /// `cerebras` or a `cerebras.ai` base URL; 0.86.1/AI/api/openai-completions.js:1286); moot
    /// from 0.87.0 ([`Self::strict_opt_in`]). Case: `sp-cerebras-strict` (0.85.1, 0.86.1).
    pub strict_not_for_cerebras: bool,
    /// `sendSessionAffinityHeaders` is detected true for OpenRouter (false everywhere in 0.85).
    pub openrouter_session_affinity: bool,
    /// 1.5.1: the compat keys `requiresToolsWithToolHistory` (`tools: []` with tool history only
    /// when set), `requiresNonNullAssistantContent` and `promptCacheKeyMode`.
    pub compat_1_5_1: bool,
    /// 0.87.1 (#9797): empty text parts are left out of a user message's content array. Cases:
    /// `pi-0.87.1/sp-history-empty-text` (left out), `pi-0.87.0/sp-history-empty-text` (sent).
    pub drop_empty_user_text: bool,
    /// 1.4.0: a tool result whose text is only whitespace counts as empty.
    pub blank_tool_result_is_empty: bool,
}

/// What changed in the Responses adapters (openai-responses, azure-openai-responses,
/// openai-codex-responses) and in openai-responses-shared.js. The transcript itself (system
/// messages as `developer`/`system` input items, `msgIndex` not counting the leading one)
/// follows [`Rules::transcript`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResponsesRules {
    /// 0.86.0 (deferred-tools.js removed) and 1.4.0 (#10940, one `additional_tools` item per
    /// system message with the incremental notice): tool changes are anchored on the system
    /// messages that make them, by the adapter's tool support mode (`getResponsesToolSupport`:
    /// "changes" → `additional_tools` items and no top-level tools, "additions" → synthetic
    /// `tool_search_call`/`tool_search_output` seeded `system:<msgIndex>`); removals are
    /// announced as text. 0.85: tools loaded after the tool result whose
    /// `addedToolNames` names them. Cases: `pi-1.6.0/rs-changes-*`, `rs-toolsearch-*`,
    /// `az-changes-*`, `cx-*`.
    pub anchored_tool_changes: bool,
    /// 1.4.0 (#10940): the "changes" tool support mode (`getResponsesToolSupport`: system
    /// messages and `additional_tools` mid-conversation), the incremental notice before a later
    /// `additional_tools` item and removals announced as text; 1.3.0: `supportsAdditionalTools`
    /// or `supportsToolSearch` anchor additions (an `additional_tools` item or tool search),
    /// no notices. Cases: `pi-1.3.0/rs-changes-*`, `az-changes-*`, `rs-toolsearch-*`.
    pub tool_change_notices: bool,
    /// 1.4.0 (#8720): a tool result whose text is only whitespace counts as empty (`(no tool
    /// output)`, no `input_text` part). Cases: `pi-1.6.0/rs-toolresult-blank`.
    pub blank_tool_result_is_empty: bool,
    /// By 1.4.0 (no changelog line names it; 1.5.0's #11415 is about namespaces after a model
    /// switch; the 1.4.0, 1.5.x and 1.6.0 code is the same, openai-responses-shared.js:274):
    /// a replayed tool call keeps its item id only when it has the prefix of its replay
    /// type (`fc_` for `function_call`, `ctc_` for `custom_tool_call`) and the same model made
    /// it; `namespace` only for the same model. 0.85: `custom_tool_call` kept any id, and a
    /// deferred tool's calls kept their namespace. Only grammar tools show the difference (a
    /// unit test: the CLI cannot declare them).
    pub item_id_prefix_per_type: bool,
    /// 1.3.0 (#10853): openai-responses with `compat.supportsMidConvoEffort` sends the thinking
    /// level as `configuration_update` items (one before each same-model reply that recorded
    /// `providerThinkingLevel`, one at the end) and a fixed `reasoning.effort` "medium".
    /// Cases: `pi-1.6.0/rs-cfgupdate-*`.
    pub configuration_update: bool,
    /// 1.5.1 (#11639): openai-responses' affinity header is `session-id` (0.85: `session_id`).
    /// Cases: every `pi-1.6.0/rs-*` request-1.meta.json.
    pub session_id_header_hyphen: bool,
    /// 1.5.1 (#9442): `compat.promptCacheKeyMode: "disabled"` leaves `prompt_cache_key` out
    /// (1.5.0 sends it). Cases: `pi-1.6.0/rs-pck-disabled`,
    /// `az-pck-disabled`, `pi-1.5.0/rs-pck-disabled`.
    pub prompt_cache_key_mode: bool,
    /// 0.99.0: Sign in with ChatGPT (provider `openai`, base URL exactly
    /// `https://api.openai.com/v1`, a key not starting `sk-`) omits `prompt_cache_retention`,
    /// `prompt_cache_options`, `max_output_tokens`, `temperature` and `configuration_update`
    /// items. A capture cannot reach it (the oracle repoints the base URL).
    pub chatgpt_sign_in: bool,
    /// 1.0.3 (#9714): the Azure provider's id, one of azure's `call|item` id providers:
    /// `azure-openai-responses` until the rename to `azure`.
    pub azure_provider: &'static str,
    /// 1.6.0 (#12273): Codex sends the system prompt as the leading input item, no
    /// `instructions` member and no "You are a helpful assistant." fallback. Cases:
    /// `pi-1.6.0/cx-*`.
    pub codex_prompt_in_input: bool,
    /// 1.6.0: Codex sends `max_output_tokens = max(maxTokens, 16)` unless
    /// `compat.supportsMaxOutputTokens` is false. Cases: `pi-1.6.0/cx-fresh`,
    /// `cx-no-max-output`.
    pub codex_max_output_tokens: bool,
    /// 0.86.0 (#9191): Codex sends thinking off as the model's off effort (`thinkingLevelMap.off`,
    /// default "none"; `null` sends no reasoning), 0.85: no reasoning member. Until 1.6.0
    /// as `{effort}` alone; with `codex_configuration_update` off is the level "none", sent
    /// with `summary` like any level. Cases: `pi-1.6.0/cx-off*`, `pi-1.5.2/cx-off*`.
    pub codex_off_effort: bool,
    /// 1.6.0 (#12269): Codex with `compat.supportsMidConvoEffort` sends `configuration_update`
    /// items, thinking off included ("none"), and `reasoning.effort` "medium". Cases:
    /// `pi-1.6.0/cx-cfgupdate-*`.
    pub codex_configuration_update: bool,
    /// 1.1.0 (#10429): Codex's `originator` and `User-Agent` are defaults that model and request
    /// headers override (0.85: set after them). Cases: `pi-1.6.0/cx-headers-override`.
    pub codex_overridable_identity: bool,
}

/// What changed in the mistral-conversations adapter (the system messages themselves, in place
/// at index 0 or later, follow [`Rules::transcript`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MistralRules {
    /// 0.99.0 ("Fixed inherited Mistral reasoning models ignoring the requested thinking level",
    /// #9678): a reasoning model with a `thinkingLevelMap` sends `reasoning_effort:
    /// map[level] ?? "high"` (thinking off: `map.off`, e.g. `"none"`), one without a map sends
    /// `prompt_mode: "reasoning"`; 0.85: `reasoning_effort` only for mistral-small-2603/-latest
    /// and mistral-medium-3.5, `prompt_mode` for every other reasoning model, nothing when off.
    /// Cases: `pi-1.6.0/ms-map-*`, `ms-nomap-*`, `ms-scripted-tools`.
    pub reasoning_effort_from_level_map: bool,
    /// 1.6.0 ("Mistral models no longer receive strict tools unless `compat.supportsStrictMode`
    /// is set", #12148): strict schemas only with `compat.supportsStrictMode`; 0.85: strict
    /// always supported. Cases: `pi-1.6.0/ms-strict`, `ms-fresh-nonreasoning`.
    pub strict_opt_in: bool,
}

/// What changed in the pi-messages adapter (the context as the raw transcript `{messages}`
/// follows [`Rules::transcript`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PiMessagesRules {
    /// 1.4.0 (with the client identity; no changelog line names pi-messages): the headers are
    /// `providerHeadersToRecord(identityHeaders, pi's own, options.headers)`, merged by lower-case
    /// name (a later source replaces an earlier header and moves it to the end; `null` deletes),
    /// so pi's `User-Agent` and the attribution headers are sent; 0.85: pi's own headers and the
    /// options' spread in one object (names differing in case kept apart, fetch joins them),
    /// undici's `User-Agent`. Cases: `pi-1.6.0/pm-headers-*`, every `pm-*` meta.
    pub identity_headers_merged: bool,
}

/// What changed in the anthropic-messages adapter. Where the tools come from follows
/// [`Rules::transcript`]: from 0.86.0 the transcript's declarations (`getCurrentTools`), and the
/// 0.85 deferred loading (`splitDeferredTools` over `addedToolNames`, `tool_reference` results,
/// `defer_loading` tools) is gone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnthropicRules {
    /// 0.86.0 (#9548): with `compat.supportsMidConvoSystemMessages` the transcript's later system
    /// messages stay in place as `role: "system"` messages (`renderSystemMessageUpdate`), held
    /// until the next assistant message that has blocks or the end (1.5.0, #11091), and the last
    /// one can carry the message breakpoint; without it the transcript is collapsed into the
    /// leading prompt. Cases: `pi-1.6.0/an-midconvo`, `an-held`.
    pub mid_convo_system_messages: bool,
    /// 1.5.0 (#11091): held system messages wait past an assistant message that converts to no
    /// blocks (it is dropped), for the next one that is sent; until then they were placed before
    /// any assistant message. Cases: `pi-1.5.0/an-held`, `pi-1.4.0/an-held`.
    pub hold_past_empty_assistant: bool,
    /// 0.86.0 (#9548): with `compat.supportsMidConvoToolChanges` as well, the top-level tools
    /// start with the leading message's plus `__pi_deferred_placeholder__`, later tools are
    /// `tool_addition` / `tool_removal` blocks; how, [`Self::tool_additions_by_value`].
    /// Cases: `pi-1.6.0/an-native-tools`, `an-strict-native`, `an-oauth`, `an-effort-opus5`,
    /// `pi-0.86.1/an-native-tools`.
    pub native_tool_changes: bool,
    /// 1.0.1: a `tool_addition` defines its tool by value (`tool_definition`), so a redefined
    /// name is one more addition (no `tool_removal`), the request's tools stay the leading
    /// message's and the placeholder, and the beta is `inline-tools-2026-09-15`. `false`
    /// (0.86.0–1.0.0): a `tool_addition` names a tool (`tool_reference`), every later declared
    /// tool follows the placeholder in the request's tools with `defer_loading: true`
    /// (`getDeclaredTools`), a redefinition anywhere in the transcript turns native tool
    /// changes off (`hasToolRedefinitions`: the transcript is collapsed), and the beta is
    /// `mid-conversation-tool-changes-2026-07-01` (0.86.1/AI/api/anthropic-messages.js:797–863,
    /// 960–972). Cases: `pi-0.86.1/an-native-tools`, `an-oauth`, `an-strict-native`.
    pub tool_additions_by_value: bool,
    /// 0.99.2 (#9953): a schema with a keyword Anthropic strict tool use rejects (`minimum`,
    /// `minItems` above 1, an unknown `format`, ...) is sent non-strict. Case:
    /// `pi-1.6.0/an-strict-native`.
    pub strict_keyword_check: bool,
    /// 1.2.0 (#10409), 1.5.1 (#11626): a request whose strict tools Anthropic rejects for its
    /// strict tool limits is sent once more with the `"prefer"` tools non-strict, and later
    /// requests of that session in the same process start non-strict. Process state:
    /// ctxlens builds the strict request and says so in the trace.
    pub strict_limit_fallback: bool,
    /// 1.5.1 (#9557): the non-strict `input_schema` keeps the root `$defs` and `definitions`.
    /// Case: `pi-1.6.0/an-strict-native`.
    pub legacy_schema_keeps_defs: bool,
    /// 1.6.0 (#12067): the non-strict `input_schema` keeps the root `additionalProperties`.
    /// Case: `pi-1.6.0/an-strict-native`.
    pub legacy_schema_keeps_additional_properties: bool,
    /// 1.3.0 (#10794): the images of an error tool result follow the batch's tool results, after
    /// a caption; the result keeps a placeholder text (`splitErrorToolResultImages`). Case:
    /// `pi-1.6.0/an-error-image`.
    pub split_error_tool_result_images: bool,
    /// 1.3.0 (#10753): thinking off on a `supportsMidConvoEffort` model sends `thinking:
    /// {type: "disabled"}` and no effort marker messages (0.85: adaptive thinking whatever the
    /// level). Case: `pi-1.6.0/an-effort-off`.
    pub effort_models_can_be_off: bool,
    /// 1.5.0 (#10063): with effort marker messages the top-level `output_config.effort` is "low"
    /// (0.85: "high"). Case: `pi-1.6.0/an-effort-opus5`.
    pub effort_top_level_low: bool,
    /// 1.5.1 (#11545): message threads: with `compat.supportsMessageThreads` (1.6.0, #11987:
    /// default true for any base URL on api.anthropic.com), a cache retention and a session id,
    /// the body ends with `thread` and the `message-threads-2026-08-12` beta is sent.
    /// Cases: `pi-1.6.0/an-threads`, `an-threads-compat`.
    pub message_threads: bool,
    /// 1.6.0 (#11987): `supportsMessageThreads` defaults to true for any provider whose base URL
    /// is on api.anthropic.com; 1.5.1–1.5.2: only for the provider `anthropic`
    /// (`anthropicMessageThreadsDefaultProvider` in defaults.json). Cases: `pi-1.6.0/an-threads-custom-host` (a thread),
    /// `pi-1.5.2/an-threads-custom-host` (none).
    pub message_threads_any_provider: bool,
    /// 0.86.0 (#9102): `sendSessionAffinityHeaders` defaults to true for OpenRouter, whose format
    /// sends `x-session-id` (`compat.sessionAffinityFormat`; 0.85: `x-session-affinity` only,
    /// off by default). Case: `pi-1.6.0/an-openrouter`.
    pub openrouter_session_affinity: bool,
}

/// What changed in the google-generative-ai adapter (and google-shared.js). The transcript is
/// always collapsed (the leading system message is `systemInstruction`, the current tools
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
    /// 1.3.0 (#10890): `usesGoogleThinkingLevel` also matches Gemini 4 and later
    /// (`/gemini-(?:[4-9]|[1-9]\d)/`, e.g. gemini-4-argon); 0.86.0–1.2.0: Gemini 3 Pro/Flash,
    /// the flash(-lite)-latest ids and Gemma 4 only (a budget for the others). Cases:
    /// `pi-1.6.0/gg-4argon-high`, `pi-0.86.1/gg-4argon-high`.
    pub gemini_4_thinking_level: bool,
    /// 1.5.0 (#11308): string and number `const` in a tool schema become one-value `enum`s
    /// (`rewriteConstAsEnum`). Case: `pi-1.6.0/gg-const-enum`.
    pub const_as_enum: bool,
    /// 1.4.0 (#8720): a tool result whose text is only whitespace counts as empty (the
    /// untrimmed text is still what is sent when it does not). Cases: `pi-1.6.0/gg-history-*`,
    /// `gg-error-image-3flash`.
    pub blank_tool_result_is_empty: bool,
    /// 0.99.0–1.3.0 (no changelog line names it; 0.86–0.87 still spread one object, case
    /// `pi-0.86.1/gg-headers`): `providerHeadersToRecord` merges the headers
    /// case-insensitively, a name set again moves to the end with its last spelling
    /// (AI/utils/headers.js:8–19); 1.3.0 passes it `{"User-Agent": getPiUserAgent(),
    /// ...model.headers, ...options.headers}`, 1.4.0 on `(identity, model.headers,
    /// options.headers)` (0.85: one object spread, `User-Agent` first, nulls dropped). Cases:
    /// `pi-1.6.0/gg-headers`, `pi-1.3.0/gg-headers` (a model's `user-agent` replaces pi's).
    pub headers_merged_case_insensitively: bool,
    /// @google/genai 2.x (0.86.1 on; 2.21.0 in 1.3.0–1.5.2, 2.32.0 in 1.6.0): `functionCall` is
    /// written `args, id, name`; 1.52.0 wrote `id, args, name`. Cases:
    /// `pi-1.6.0/gg-history-3flash`, `pi-1.5.2/gg-history-3flash`.
    pub sdk_v2_parts: bool,
    /// @google/genai 2.32.0 (1.6.0): `inlineData` and `fileData` are passed on as pi writes them
    /// (`mimeType, data`); 2.21.0 (1.3.0–1.5.2) and 1.52.0 still write them `data, mimeType`
    /// and `fileUri, mimeType` (`blobToMldev$1`, `fileDataToMldev$1`). Cases:
    /// `pi-1.6.0/gg-image-prompt`, `pi-1.5.2/gg-image-prompt`, `gg-history-25flash-same`.
    pub sdk_blob_passthrough: bool,
}

/// What changed in the bedrock-converse-stream adapter. The transcript is always collapsed,
/// which [`Rules::transcript`] already says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BedrockRules {
    /// 1.1.0: Claude Haiku 5 joins the adaptive-thinking, native-`xhigh` and prompt-caching
    /// lists; the id lists are read from the release's data
    /// (`bedrockClaude*Ids`). Case: `pi-1.6.0/bd-haiku5-xhigh`.
    pub claude_haiku_5: bool,
    /// 1.0.1 (#10324): adaptive Claude models that accept it (Opus 4.7/4.8, Opus 5, Sonnet 5,
    /// Haiku 5, Fable 5; not on GovCloud) get `thinking.block_binding` and the
    /// `thinking-binding-controls` beta. Cases: `pi-1.6.0/bd-fresh-opus48-high`,
    /// `bd-sonnet46-medium` (without).
    pub thinking_block_binding: bool,
    /// 1.1.0 (#9331, #10142): OpenAI models get their thinking level: gpt-oss a flat
    /// `reasoning_effort`, other GPT models `reasoning.effort`. Cases:
    /// `pi-1.6.0/bd-gptoss-*`, `bd-gpt6-minimal`.
    pub openai_reasoning_effort: bool,
    /// 1.3.0 (#10794): for Claude, an error tool result's images are replaced by a placeholder
    /// and sent after all the tool results of the turn (`splitErrorToolResultImages`).
    /// Cases: `pi-1.6.0/bd-error-image-claude`, `bd-error-image-nova` (kept in place).
    pub split_error_tool_result_images: bool,
    /// 1.5.0 (#11416), 1.5.1 (#11626): a request rejected for too many strict tools is sent
    /// once more with the `"prefer"` tools non-strict, and the session keeps them non-strict
    /// (process state: a fresh process sends them strict). Said in the trace.
    pub strict_tool_limit_fallback: bool,
    /// 1.4.0: pi's client identity joins the AWS SDK's user agent as a
    /// `pi/<version>` pair (`customUserAgent`): in `x-amz-user-agent` and `user-agent`.
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

/// The entry types of 0.85.
const ENTRY_TYPES_0_85: [&str; 10] = [
    "session",
    "message",
    "thinking_level_change",
    "model_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
];
/// 0.86.0 adds `usage` (cache warming).
const ENTRY_TYPES_0_86: [&str; 11] = [
    "session",
    "message",
    "thinking_level_change",
    "model_change",
    "usage",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
];
/// 0.87.0 adds `context_edit`.
const ENTRY_TYPES_0_87: [&str; 12] = [
    "session",
    "message",
    "thinking_level_change",
    "model_change",
    "usage",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "context_edit",
    "label",
    "session_info",
];
/// The roles of 0.85.
const ROLES_0_85: [&str; 7] = [
    "user",
    "assistant",
    "toolResult",
    "bashExecution",
    "custom",
    "branchSummary",
    "compactionSummary",
];
/// 0.86.0 adds `system`.
const ROLES_0_86: [&str; 8] = [
    "system",
    "user",
    "assistant",
    "toolResult",
    "bashExecution",
    "custom",
    "branchSummary",
    "compactionSummary",
];

impl PiVersion {
    /// The rules of this release.
    pub fn rules(self) -> &'static Rules {
        static V0_85_1: Rules = R_0_85_1;
        static V0_86_1: Rules = R_0_86_1;
        static V0_87_0: Rules = R_0_87_0;
        static V0_87_1: Rules = R_0_87_1;
        static V1_3_0: Rules = R_1_3_0;
        static V1_4_0: Rules = R_1_4_0;
        static V1_5_0: Rules = R_1_5_0;
        static V1_5_2: Rules = R_1_5_2;
        static V1_6_0: Rules = R_1_6_0;
        match self {
            PiVersion::V0_85_1 => &V0_85_1,
            PiVersion::V0_86_1 => &V0_86_1,
            PiVersion::V0_87_0 => &V0_87_0,
            PiVersion::V0_87_1 => &V0_87_1,
            PiVersion::V1_3_0 => &V1_3_0,
            PiVersion::V1_4_0 => &V1_4_0,
            PiVersion::V1_5_0 => &V1_5_0,
            PiVersion::V1_5_2 => &V1_5_2,
            PiVersion::V1_6_0 => &V1_6_0,
        }
    }
}

/// 0.85.1: the baseline.
const R_0_85_1: Rules = Rules {
    session_version: 3,
    max_context_depth: 1579,
    transcript: false,
    context_edits: false,
    retry_omission_stored: false,
    drop_foreign_thinking: false,
    max_tokens_clamp: MaxTokensClamp::SafetyTokens,
    client_identity: ClientIdentity::OsUserAgent,
    sampling_by_thinking_level: false,
    strict_requires_type: false,
    prompt_images_normalized: false,
    compaction_model_overrides: false,
    tool_loadout: false,
    prompt_template_args: PromptTemplateArgs::QuoteAnywhere,
    package_manifest_needs_resource_fields: false,
    package_patterns_normalized: false,
    temporary_git_dir_hashes_ref: false,
    loadout_keeps_order: false,
    tool_changes_fold_after_last_change: false,
    completions: CompletionsRules {
        developer_role_openai_only: false,
        strict_opt_in: false,
        strict_not_for_cerebras: false,
        openrouter_session_affinity: false,
        compat_1_5_1: false,
        drop_empty_user_text: false,
        blank_tool_result_is_empty: false,
    },
    entry_types: &ENTRY_TYPES_0_85,
    message_roles: &ROLES_0_85,
    responses: ResponsesRules {
        anchored_tool_changes: false,
        tool_change_notices: false,
        blank_tool_result_is_empty: false,
        item_id_prefix_per_type: false,
        configuration_update: false,
        session_id_header_hyphen: false,
        prompt_cache_key_mode: false,
        chatgpt_sign_in: false,
        azure_provider: "azure-openai-responses",
        codex_prompt_in_input: false,
        codex_max_output_tokens: false,
        codex_off_effort: false,
        codex_configuration_update: false,
        codex_overridable_identity: false,
    },
    mistral: MistralRules {
        reasoning_effort_from_level_map: false,
        strict_opt_in: false,
    },
    pi_messages: PiMessagesRules {
        identity_headers_merged: false,
    },
    anthropic: AnthropicRules {
        mid_convo_system_messages: false,
        hold_past_empty_assistant: false,
        native_tool_changes: false,
        tool_additions_by_value: false,
        strict_keyword_check: false,
        strict_limit_fallback: false,
        legacy_schema_keeps_defs: false,
        legacy_schema_keeps_additional_properties: false,
        split_error_tool_result_images: false,
        effort_models_can_be_off: false,
        effort_top_level_low: false,
        message_threads: false,
        message_threads_any_provider: false,
        openrouter_session_affinity: false,
    },
    google: GoogleRules {
        thinking_level_from_map: false,
        gemini_4_thinking_level: false,
        const_as_enum: false,
        blank_tool_result_is_empty: false,
        headers_merged_case_insensitively: false,
        sdk_v2_parts: false,
        sdk_blob_passthrough: false,
    },
    bedrock: BedrockRules {
        claude_haiku_5: false,
        thinking_block_binding: false,
        openai_reasoning_effort: false,
        split_error_tool_result_images: false,
        strict_tool_limit_fallback: false,
        pi_user_agent_pair: false,
    },
    model: ModelRules {
        cli_resolution: CliResolution::FirstSlash,
        provider_requires_model: false,
        longest_provider_prefix: false,
        branch_selection: false,
        restore_fallback_reported: false,
        anthropic_workload_identity: false,
        renamed_providers: &[],
    },
    ported_apis: &Api::ALL,
};
/// 1.6.0.
const R_1_6_0: Rules = Rules {
    session_version: 3,
    max_context_depth: 1579,
    transcript: true,
    context_edits: true,
    retry_omission_stored: true,
    drop_foreign_thinking: true,
    max_tokens_clamp: MaxTokensClamp::RatioMargin,
    client_identity: ClientIdentity::PiAi,
    sampling_by_thinking_level: true,
    strict_requires_type: true,
    prompt_images_normalized: true,
    compaction_model_overrides: true,
    tool_loadout: true,
    prompt_template_args: PromptTemplateArgs::QuoteOpensToken,
    package_manifest_needs_resource_fields: true,
    package_patterns_normalized: true,
    temporary_git_dir_hashes_ref: true,
    loadout_keeps_order: true,
    tool_changes_fold_after_last_change: true,
    completions: CompletionsRules {
        developer_role_openai_only: true,
        strict_opt_in: true,
        strict_not_for_cerebras: true,
        openrouter_session_affinity: true,
        compat_1_5_1: true,
        drop_empty_user_text: true,
        blank_tool_result_is_empty: true,
    },
    entry_types: &ENTRY_TYPES_0_87,
    message_roles: &ROLES_0_86,
    responses: ResponsesRules {
        anchored_tool_changes: true,
        tool_change_notices: true,
        blank_tool_result_is_empty: true,
        item_id_prefix_per_type: true,
        configuration_update: true,
        session_id_header_hyphen: true,
        prompt_cache_key_mode: true,
        chatgpt_sign_in: true,
        azure_provider: "azure",
        codex_prompt_in_input: true,
        codex_max_output_tokens: true,
        codex_off_effort: true,
        codex_configuration_update: true,
        codex_overridable_identity: true,
    },
    mistral: MistralRules {
        reasoning_effort_from_level_map: true,
        strict_opt_in: true,
    },
    pi_messages: PiMessagesRules {
        identity_headers_merged: true,
    },
    anthropic: AnthropicRules {
        mid_convo_system_messages: true,
        hold_past_empty_assistant: true,
        native_tool_changes: true,
        tool_additions_by_value: true,
        strict_keyword_check: true,
        strict_limit_fallback: true,
        legacy_schema_keeps_defs: true,
        legacy_schema_keeps_additional_properties: true,
        split_error_tool_result_images: true,
        effort_models_can_be_off: true,
        effort_top_level_low: true,
        message_threads: true,
        message_threads_any_provider: true,
        openrouter_session_affinity: true,
    },
    google: GoogleRules {
        thinking_level_from_map: true,
        gemini_4_thinking_level: true,
        const_as_enum: true,
        blank_tool_result_is_empty: true,
        headers_merged_case_insensitively: true,
        sdk_v2_parts: true,
        sdk_blob_passthrough: true,
    },
    bedrock: BedrockRules {
        claude_haiku_5: true,
        thinking_block_binding: true,
        openai_reasoning_effort: true,
        split_error_tool_result_images: true,
        strict_tool_limit_fallback: true,
        pi_user_agent_pair: true,
    },
    model: ModelRules {
        cli_resolution: CliResolution::Reference,
        provider_requires_model: true,
        longest_provider_prefix: true,
        branch_selection: true,
        restore_fallback_reported: true,
        anthropic_workload_identity: true,
        renamed_providers: &[("azure-openai-responses", "azure")],
    },
    ported_apis: &Api::ALL,
};

/// 1.5.2: 1.6.0 without what 1.6.0 began (read from the diff of the two releases' dist, each
/// proved by a `pi-1.5.2/` case).
const R_1_5_2: Rules = Rules {
    strict_requires_type: false,
    completions: CompletionsRules {
        developer_role_openai_only: false,
        ..R_1_6_0.completions
    },
    responses: ResponsesRules {
        codex_prompt_in_input: false,
        codex_max_output_tokens: false,
        codex_configuration_update: false,
        ..R_1_6_0.responses
    },
    mistral: MistralRules {
        strict_opt_in: false,
        ..R_1_6_0.mistral
    },
    anthropic: AnthropicRules {
        legacy_schema_keeps_additional_properties: false,
        message_threads_any_provider: false,
        ..R_1_6_0.anthropic
    },
    google: GoogleRules {
        sdk_blob_passthrough: false,
        ..R_1_6_0.google
    },
    model: ModelRules {
        restore_fallback_reported: false,
        ..R_1_6_0.model
    },
    ..R_1_6_0
};

/// 1.5.0: 1.5.2 without what 1.5.1 began (the diff of the two releases' dist; cases `pi-1.5.0/`).
const R_1_5_0: Rules = Rules {
    max_tokens_clamp: MaxTokensClamp::SafetyTokens,
    prompt_template_args: PromptTemplateArgs::QuoteAnywhereKeepEmpty,
    completions: CompletionsRules {
        compat_1_5_1: false,
        ..R_1_5_2.completions
    },
    responses: ResponsesRules {
        session_id_header_hyphen: false,
        prompt_cache_key_mode: false,
        ..R_1_5_2.responses
    },
    anthropic: AnthropicRules {
        message_threads: false,
        legacy_schema_keeps_defs: false,
        ..R_1_5_2.anthropic
    },
    ..R_1_5_2
};

/// 1.4.0: 1.5.0 without what 1.5.0 began (the diff of the two releases' dist; cases `pi-1.4.0/`).
const R_1_4_0: Rules = Rules {
    loadout_keeps_order: false,
    package_manifest_needs_resource_fields: false,
    anthropic: AnthropicRules {
        hold_past_empty_assistant: false,
        effort_top_level_low: false,
        ..R_1_5_0.anthropic
    },
    google: GoogleRules {
        const_as_enum: false,
        ..R_1_5_0.google
    },
    bedrock: BedrockRules {
        strict_tool_limit_fallback: false,
        ..R_1_5_0.bedrock
    },
    model: ModelRules {
        longest_provider_prefix: false,
        ..R_1_5_0.model
    },
    ..R_1_5_0
};

// The version table's docs as data (about 20 KB of text), with the releases' data: the CLI and
// the native tests have them compiled in; the wasm builds (whose size counts) do not, and may
// install them at run time from `data/rule-docs.json` (the same docs, kept current by a test).
#[cfg(feature = "embedded-data")]
include!(concat!(env!("OUT_DIR"), "/rule_docs.rs"));
#[cfg(not(feature = "embedded-data"))]
/// Not in this build (the wasm builds): [`rule_doc`] gives what [`install_rule_docs`] installed.
pub const RULE_DOCS: &[(&str, &str)] = &[];

/// The docs installed at run time by a build without them (`data/rule-docs.json`).
static INSTALLED_DOCS: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();

/// The doc comment of the switch at `path` (`transcript`, `anthropic.native_tool_changes`);
/// `None` in a build without `embedded-data` until [`install_rule_docs`].
pub fn rule_doc(path: &str) -> Option<&'static str> {
    RULE_DOCS
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, d)| *d)
        .or_else(|| {
            INSTALLED_DOCS
                .get()?
                .iter()
                .find(|(p, _)| p == path)
                .map(|(_, d)| d.as_str())
        })
}

/// Whether this build has the version table's docs (compiled in or installed).
pub fn has_rule_docs() -> bool {
    !RULE_DOCS.is_empty() || INSTALLED_DOCS.get().is_some()
}

/// `data/rule-docs.json`'s text: `{"path": "doc", …}` in the version table's order.
pub fn rule_docs_json(docs: &[(&str, &str)]) -> String {
    let mut o = crate::js::Object::new();
    for (path, doc) in docs {
        o = o.with(*path, *doc);
    }
    let mut text = crate::js::Value::from(o).to_json_pretty(1);
    text.push('\n');
    text
}

/// Reads `data/rule-docs.json`'s text.
pub fn parse_rule_docs(json: &str) -> Result<Vec<(String, String)>, String> {
    let v = crate::js::parse(json).map_err(|e| format!("rule-docs.json: {}", e.message))?;
    let o = v.as_object().ok_or("rule-docs.json: not an object")?;
    o.iter()
        .map(|(k, d)| {
            d.as_str()
                .map(|d| (k.to_string(), d.to_string()))
                .ok_or_else(|| format!("rule-docs.json: {k} is not a text"))
        })
        .collect()
}

/// Installs the version table's docs in a build without them (the app's worker fetches
/// `rule-docs.json` for the upgrade comparison). Once; a second call changes nothing.
pub fn install_rule_docs(json: &str) -> Result<(), String> {
    let docs = parse_rule_docs(json)?;
    let _ = INSTALLED_DOCS.set(docs);
    Ok(())
}

/// 1.3.0: 1.4.0 without what 1.4.0 began (the diff of the two releases' dist; cases `pi-1.3.0/`).
const R_1_3_0: Rules = Rules {
    client_identity: ClientIdentity::OsUserAgent,
    tool_changes_fold_after_last_change: false,
    completions: CompletionsRules {
        blank_tool_result_is_empty: false,
        ..R_1_4_0.completions
    },
    responses: ResponsesRules {
        tool_change_notices: false,
        blank_tool_result_is_empty: false,
        ..R_1_4_0.responses
    },
    pi_messages: PiMessagesRules {
        identity_headers_merged: false,
    },
    google: GoogleRules {
        blank_tool_result_is_empty: false,
        ..R_1_4_0.google
    },
    bedrock: BedrockRules {
        pi_user_agent_pair: false,
        ..R_1_4_0.bedrock
    },
    ..R_1_4_0
};

/// 0.86.1: 1.3.0 without what 0.87.0 to 1.3.0 began (the diff of the two releases' dist and
/// pi's changelog; cases `pi-0.86.1/`): what 0.86.0 began (the transcript, strict-prefer tools,
/// OpenRouter affinity, Codex's off effort, per-model compaction budgets) stays.
const R_0_86_1: Rules = Rules {
    context_edits: false,
    retry_omission_stored: false,
    drop_foreign_thinking: false,
    sampling_by_thinking_level: false,
    prompt_images_normalized: false,
    prompt_template_args: PromptTemplateArgs::QuoteAnywhere,
    package_patterns_normalized: false,
    temporary_git_dir_hashes_ref: false,
    tool_loadout: false,
    entry_types: &ENTRY_TYPES_0_86,
    completions: CompletionsRules {
        strict_opt_in: false,
        drop_empty_user_text: false,
        ..R_1_3_0.completions
    },
    responses: ResponsesRules {
        configuration_update: false,
        chatgpt_sign_in: false,
        azure_provider: "azure-openai-responses",
        codex_overridable_identity: false,
        ..R_1_3_0.responses
    },
    mistral: MistralRules {
        reasoning_effort_from_level_map: false,
        ..R_1_3_0.mistral
    },
    anthropic: AnthropicRules {
        tool_additions_by_value: false,
        strict_keyword_check: false,
        strict_limit_fallback: false,
        split_error_tool_result_images: false,
        effort_models_can_be_off: false,
        ..R_1_3_0.anthropic
    },
    google: GoogleRules {
        gemini_4_thinking_level: false,
        headers_merged_case_insensitively: false,
        ..R_1_3_0.google
    },
    bedrock: BedrockRules {
        claude_haiku_5: false,
        thinking_block_binding: false,
        openai_reasoning_effort: false,
        split_error_tool_result_images: false,
        ..R_1_3_0.bedrock
    },
    model: R_0_85_1.model,
    ..R_1_3_0
};

/// 0.87.0: 0.86.1 with what 0.87.0 began (its changelog and the diff of the two releases' dist;
/// cases `pi-0.87.0/`): the session projection (`context_edit` entries, stored retry omissions),
/// the prompt's images normalized, strict tool schemas on Chat Completions only when a model
/// says so.
const R_0_87_0: Rules = Rules {
    context_edits: true,
    retry_omission_stored: true,
    prompt_images_normalized: true,
    entry_types: &ENTRY_TYPES_0_87,
    completions: CompletionsRules {
        strict_opt_in: true,
        ..R_0_86_1.completions
    },
    ..R_0_86_1
};

/// 0.87.1: 0.87.0 with what 0.87.1 began (its changelog and the diff of the two releases' dist,
/// which differ in pi-ai only in openai-completions and Claude Code's version; cases
/// `pi-0.87.1/`): empty text parts left out of a Chat Completions user message (#9797).
const R_0_87_1: Rules = Rules {
    completions: CompletionsRules {
        drop_empty_user_text: true,
        ..R_0_87_0.completions
    },
    ..R_0_87_0
};

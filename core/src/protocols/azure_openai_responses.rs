//! pi-ai `dist/api/azure-openai-responses.js` (1.6.0: the config in
//! `azure-openai-config.js`): the Azure OpenAI Responses adapter. The `AzureOpenAI` SDK client (openai 6.40.0, `azure.js`) posts to
//! `{baseUrl}/responses?api-version={apiVersion}` (`/responses` is not one of its
//! `/deployments/{model}` endpoints) with the key in an `api-key` header. The conversions are
//! [`super::openai_responses_shared`]'s.

use super::openai_prompt_cache::clamp_openai_prompt_cache_key;
use super::openai_responses_shared::{
    self as shared, compat_flag, convert_responses_messages, convert_responses_tools,
    ConvertOptions, ToolOptions,
};
use super::{body, constrained_sampling, err, AdapterError, Request, StreamOptions};
use crate::context::LlmContext;
use crate::js::{self, js_trim, number_to_string, Object, Value};
use crate::messages;
use crate::model::{self, Model};
use crate::pi::Pi;
use crate::trace::{Event, EventKind, Events};

/// `DEFAULT_AZURE_API_VERSION` (:13).
const DEFAULT_AZURE_API_VERSION: &str = "v1";

/// `AZURE_TOOL_CALL_PROVIDERS` (:14): the OpenAI providers and Azure's own provider id
/// (renamed in 1.0.3, [`crate::pi::ResponsesRules::azure_provider`]).
fn azure_tool_call_providers(pi: &Pi) -> [&'static str; 4] {
    [
        "openai",
        "openai-codex",
        "opencode",
        pi.rules.responses.azure_provider,
    ]
}

/// `OPENAI_RESPONSES_MIN_OUTPUT_TOKENS` (:16).
const OPENAI_RESPONSES_MIN_OUTPUT_TOKENS: f64 = 16.0;

/// `getProviderEnvValue(name, env)` (AI/utils/provider-env.js:38–43): a non-empty value.
fn env_value<'a>(opts: &'a StreamOptions, name: &str) -> Option<&'a str> {
    opts.env
        .get(name)
        .map(String::as_str)
        .filter(|v| !v.is_empty())
}

/// `parseDeploymentNameMap(value)` (:17–31): `id=deployment,...`, entries trimmed, incomplete
/// ones skipped, a later entry for the same id winning.
fn parse_deployment_name_map(value: Option<&str>) -> Vec<(String, String)> {
    let mut map: Vec<(String, String)> = Vec::new();
    for entry in value.unwrap_or("").split(',') {
        let trimmed = js_trim(entry);
        if trimmed.is_empty() {
            continue;
        }
        // `split("=", 2)`: at most the first two pieces.
        let mut pieces = trimmed.split('=');
        let (Some(model_id), Some(deployment)) = (pieces.next(), pieces.next()) else {
            continue;
        };
        if model_id.is_empty() || deployment.is_empty() {
            continue;
        }
        let (model_id, deployment) = (
            js_trim(model_id).to_string(),
            js_trim(deployment).to_string(),
        );
        match map.iter_mut().find(|(k, _)| *k == model_id) {
            Some(slot) => slot.1 = deployment,
            None => map.push((model_id, deployment)),
        }
    }
    map
}

/// `resolveDeploymentName(model, options)` (:32–38): the `AZURE_OPENAI_DEPLOYMENT_NAME_MAP`
/// entry for the model id, else the model id (the coding agent never sets
/// `azureDeploymentName`).
fn resolve_deployment_name(model: &Model, opts: &StreamOptions, events: &mut Events) -> String {
    let map = parse_deployment_name_map(env_value(opts, "AZURE_OPENAI_DEPLOYMENT_NAME_MAP"));
    match map
        .into_iter()
        .find(|(k, _)| k == model.id())
        .map(|(_, v)| v)
        .filter(|v| !v.is_empty())
    {
        Some(deployment) => {
            events.push(
                Event::new(EventKind::Renamed, format!("body model {} → deployment {deployment:?} (AZURE_OPENAI_DEPLOYMENT_NAME_MAP)", model.id()))
                    .at("AI/api/azure-openai-responses.js:36"),
            );
            deployment
        }
        None => model.id().to_string(),
    }
}

/// The parts of a URL that `normalizeAzureBaseUrl` looks at.
struct ParsedUrl<'a> {
    /// `scheme://authority`.
    origin: String,
    host: String,
    path: &'a str,
    /// `?query#fragment`, verbatim.
    rest: &'a str,
}

/// A minimal `new URL(text)` for http(s) URLs: lower-cased scheme and host, the default port
/// dropped, an empty path shown as `/`. Other schemes are kept as they are; text without a
/// scheme is invalid.
fn parse_url(text: &str) -> Option<ParsedUrl<'_>> {
    let (scheme, after) = text.split_once("://")?;
    if scheme.is_empty()
        || !scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    {
        return None;
    }
    let scheme = scheme.to_ascii_lowercase();
    let end = after.find(['/', '?', '#']).unwrap_or(after.len());
    let authority = &after[..end];
    let tail = &after[end..];
    let path_end = tail.find(['?', '#']).unwrap_or(tail.len());
    let (path, rest) = tail.split_at(path_end);
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if host_port.is_empty() {
        return None;
    }
    let (host, port) = match host_port.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || host_port.starts_with('[') => (h, Some(p)),
        _ => (host_port, None),
    };
    let host = host.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" => Some("80"),
        "https" => Some("443"),
        _ => None,
    };
    let port = port.filter(|p| !p.is_empty() && Some(*p) != default_port);
    let origin = match port {
        Some(p) => format!("{scheme}://{host}:{p}"),
        None => format!("{scheme}://{host}"),
    };
    Some(ParsedUrl {
        origin,
        host,
        path,
        rest,
    })
}

/// `normalizeAzureBaseUrl(baseUrl)` (:136–160): trailing slashes trimmed; on Azure hosts an
/// empty, `/openai` or `/openai/v1/responses` path becomes `/openai/v1` (query dropped).
fn normalize_azure_base_url(base_url: &str, events: &mut Events) -> Result<String, AdapterError> {
    let trimmed = js_trim(base_url).trim_end_matches('/');
    let url = parse_url(trimmed)
        .ok_or_else(|| err(format!("Invalid Azure OpenAI base URL: {base_url}")))?;
    let is_azure_host = [
        ".openai.azure.com",
        ".cognitiveservices.azure.com",
        ".ai.azure.com",
    ]
    .iter()
    .any(|s| url.host.ends_with(s));
    let normalized_path = url.path.trim_end_matches('/');
    let (path, rest) =
        if is_azure_host && matches!(normalized_path, "" | "/openai" | "/openai/v1/responses") {
            events.push(
                Event::new(
                    EventKind::Converted,
                    format!("Azure base URL path {:?} → \"/openai/v1\"", url.path),
                )
                .at("AI/api/azure-openai-responses.js:151"),
            );
            ("/openai/v1", "")
        } else {
            (if url.path.is_empty() { "/" } else { url.path }, url.rest)
        };
    let full = format!("{}{path}{rest}", url.origin);
    Ok(full.trim_end_matches('/').to_string())
}

/// `resolveAzureConfig(model, options)` (:164–184): the API version and base URL from the
/// environment (`AZURE_OPENAI_API_VERSION`, `AZURE_OPENAI_BASE_URL`,
/// `AZURE_OPENAI_RESOURCE_NAME`) or the model.
fn resolve_azure_config(
    model: &Model,
    opts: &StreamOptions,
    events: &mut Events,
) -> Result<(String, String), AdapterError> {
    let api_version = env_value(opts, "AZURE_OPENAI_API_VERSION")
        .unwrap_or(DEFAULT_AZURE_API_VERSION)
        .to_string();
    let base_url = env_value(opts, "AZURE_OPENAI_BASE_URL")
        .map(js_trim)
        .filter(|s| !s.is_empty())
        .map(String::from);
    let resource_name = env_value(opts, "AZURE_OPENAI_RESOURCE_NAME");
    let resolved = base_url
        .or_else(|| resource_name.map(|r| format!("https://{r}.openai.azure.com/openai/v1")))
        .or_else(|| Some(model.base_url().to_string()).filter(|b| !b.is_empty()))
        .ok_or_else(|| {
            err("Azure OpenAI base URL is required. Set AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME, or pass azureBaseUrl, azureResourceName, or model.baseUrl.")
        })?;
    Ok((normalize_azure_base_url(&resolved, events)?, api_version))
}

/// The SDK's `buildURL("/responses", …)` with `defaultQuery: {"api-version": apiVersion}`
/// (openai/client.js:281–295): query parameters already in the base URL come first, then
/// `api-version` (replacing one of the same name), form-encoded.
fn responses_url(base_url: &str, api_version: &str) -> String {
    let (base, query) = match base_url.split_once('?') {
        Some((b, q)) => (b, q.split('#').next().unwrap_or("")),
        None => (base_url.split('#').next().unwrap_or(base_url), ""),
    };
    let path = if base.ends_with('/') {
        format!("{base}responses")
    } else {
        format!("{base}/responses")
    };
    let mut pairs: Vec<(String, String)> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (k.to_string(), v.to_string()),
            None => (p.to_string(), String::new()),
        })
        .filter(|(k, _)| k != "api-version")
        .collect();
    pairs.push(("api-version".into(), form_encode(api_version)));
    let query = pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&");
    format!("{path}?{query}")
}

/// `encodeURIComponent`-style encoding as the SDK's `stringifyQuery` applies it.
fn form_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `streamSimple` (:120–135) → `stream` (:45–119): the key check, `createClient`, `buildParams`.
pub fn build(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    opts: &StreamOptions,
    events: &mut Events,
) -> Result<Request, AdapterError> {
    if opts.api_key.is_empty() {
        return Err(err(format!(
            "No API key for provider: {}",
            model.provider()
        )));
    }
    let model_max = messages::model_max_tokens(model);
    let max_tokens = messages::clamp_max_tokens_to_context(pi, model, ctx, model_max);
    if max_tokens != model_max && !(max_tokens.is_nan() && model_max.is_nan()) {
        events.push(
            Event::new(
                EventKind::Clamped,
                format!(
                    "maxTokens {} → {} to fit the context window",
                    number_to_string(model_max),
                    number_to_string(max_tokens)
                ),
            )
            .at("AI/api/simple-options.js:4"),
        );
    }
    let reasoning_effort = opts
        .reasoning
        .as_deref()
        .filter(|r| !r.is_empty())
        .map(|r| model::clamp_thinking_level(model, r, events))
        .filter(|level| level != "off");
    // 0.86 on: `resolveTranscript(context, model.compat?.supportsMidConvoSystemMessages)` (:25).
    let resolved;
    let ctx = if ctx.is_transcript() {
        resolved = crate::transcript::resolve_context(
            pi,
            ctx,
            compat_flag(model, "supportsMidConvoSystemMessages", false),
            "1.6.0/AI/api/azure-openai-responses.js:25",
            events,
        );
        &resolved
    } else {
        ctx
    };
    let deployment_name = resolve_deployment_name(model, opts, events);
    let (headers, url) = create_client(pi, model, opts, events)?;
    let supports_grammar = compat_flag(model, "supportsOpenAIGrammarTools", false);
    let grammar_tools = crate::transcript::declared_or_context_tools(ctx);
    let grammar_props = constrained_sampling::create_grammar_tool_input_properties(
        &grammar_tools,
        supports_grammar,
    )?;
    let params = build_params(
        pi,
        model,
        ctx,
        opts,
        max_tokens,
        reasoning_effort.as_deref(),
        &deployment_name,
        &grammar_props,
        events,
    )?;
    let (body, accounting) = body::written(&params);
    Ok(Request {
        method: "POST",
        url,
        headers,
        sent: params.clone(),
        params,
        body,
        accounting,
        url_note: None,
    })
}

/// `createClient(model, apiKey, options)` (:185–199; 1.6.0/AI/api/azure-openai-responses.js:
/// 112–126) and the `AzureOpenAI` SDK's headers (openai/azure.js `authHeaders`: `api-key`): the
/// client identity (`User-Agent`, from 1.4.0 the attribution headers), model headers,
/// configured headers. No session headers. Returns the headers and the URL.
fn create_client(
    pi: &Pi,
    model: &Model,
    opts: &StreamOptions,
    events: &mut Events,
) -> Result<(Vec<(String, String)>, String), AdapterError> {
    let mut headers = Object::new();
    for (k, v) in &opts.identity_headers {
        headers.insert(k.as_str(), Value::str(v));
    }
    if let Some(h) = model.headers() {
        headers.spread(h);
    }
    for (k, v) in &opts.headers {
        headers.insert(k.clone(), Value::str(v));
    }
    let (base_url, api_version) = resolve_azure_config(model, opts, events)?;
    Ok((
        crate::sdk::openai::request_headers(pi, "api-key", &headers, &opts.env, events),
        responses_url(&base_url, &api_version),
    ))
}

/// `buildParams(model, context, options, deploymentName)` (:200–248;
/// 1.6.0/AI/api/azure-openai-responses.js:127–191): no deferred-tool split,
/// `prompt_cache_key` whatever the retention (from 1.5.2 unless `promptCacheKeyMode` is
/// "disabled"), strict mode on by default; from 0.86 the transcript's tools by the tool support
/// mode and the sampling params of the thinking level.
#[allow(clippy::too_many_arguments)]
fn build_params(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    opts: &StreamOptions,
    max_tokens: f64,
    reasoning_effort: Option<&str>,
    deployment_name: &str,
    grammar_props: &[(String, String)],
    events: &mut Events,
) -> Result<Value, AdapterError> {
    let providers = azure_tool_call_providers(pi);
    let tool_options = ToolOptions {
        strict: None,
        supports_strict_mode: Some(compat_flag(model, "supportsStrictMode", true)),
        supports_grammar_tools: compat_flag(model, "supportsOpenAIGrammarTools", false),
        defer_loading: false,
    };
    let (input, request_tools) = if ctx.is_transcript() {
        let convert_options = ConvertOptions {
            grammar_tool_input_properties: grammar_props,
            tool_options: tool_options.clone(),
            supports_mid_convo_system_messages: compat_flag(
                model,
                "supportsMidConvoSystemMessages",
                false,
            ),
            supports_additional_tools: compat_flag(model, "supportsAdditionalTools", false),
            supports_tool_search: compat_flag(model, "supportsToolSearch", false),
            ..ConvertOptions::default()
        };
        shared::transcript_input_and_tools(pi, model, ctx, &providers, &convert_options, events)?
    } else {
        let convert_options = ConvertOptions {
            include_system_prompt: true,
            grammar_tool_input_properties: grammar_props,
            ..ConvertOptions::default()
        };
        let input =
            convert_responses_messages(pi, model, ctx, &providers, &convert_options, events)?;
        (input, ctx.tools().to_vec())
    };
    let mut params = Object::new()
        .with("model", deployment_name)
        .with("input", Value::Array(input))
        .with("stream", true);
    let key_disabled = pi.rules.responses.prompt_cache_key_mode
        && model.compat_value("promptCacheKeyMode") == Some(&Value::str("disabled"));
    let prompt_cache_key = if key_disabled {
        events.push(
            Event::new(
                EventKind::Dropped,
                "no prompt_cache_key (compat.promptCacheKeyMode \"disabled\")",
            )
            .at("1.6.0/AI/api/azure-openai-responses.js:149"),
        );
        None
    } else {
        clamp_openai_prompt_cache_key(opts.session_id.as_deref())
    };
    if let Some(key) = &prompt_cache_key {
        events.push(Event::new(EventKind::Inserted, format!("prompt_cache_key = the session id {key:?} (Azure: whatever the cache retention)")).at("AI/api/azure-openai-responses.js:208"));
    }
    params.insert_opt("prompt_cache_key", prompt_cache_key.map(Value::from));
    params.insert("store", Value::Bool(false));
    if max_tokens != 0.0 && !max_tokens.is_nan() {
        params.insert(
            "max_output_tokens",
            Value::Number(js::js_max(max_tokens, OPENAI_RESPONSES_MIN_OUTPUT_TOKENS)),
        );
    }
    if !request_tools.is_empty() {
        params.insert(
            "tools",
            Value::Array(convert_responses_tools(
                pi,
                &request_tools,
                &tool_options,
                events,
            )?),
        );
    }
    if model.reasoning() {
        let map = model.thinking_level_map();
        if let Some(effort) = reasoning_effort {
            let mapped = match map.and_then(|m| m.get(effort)) {
                None | Some(Value::Null) => Value::str(effort),
                Some(v) => v.clone(),
            };
            events.push(
                Event::new(
                    EventKind::Converted,
                    format!("thinking level {effort} → reasoning.effort {mapped:?}"),
                )
                .at("AI/api/azure-openai-responses.js:228"),
            );
            params.insert(
                "reasoning",
                Object::new()
                    .with("effort", mapped)
                    .with("summary", "auto")
                    .into(),
            );
            params.insert(
                "include",
                Value::Array(vec![Value::str("reasoning.encrypted_content")]),
            );
        } else if map.and_then(|m| m.get("off")) != Some(&Value::Null) {
            let off = match map.and_then(|m| m.get("off")) {
                None | Some(Value::Null) => Value::str("none"),
                Some(v) => v.clone(),
            };
            events.push(
                Event::new(
                    EventKind::Inserted,
                    format!("thinking off → reasoning.effort {off:?}"),
                )
                .at("AI/api/azure-openai-responses.js:237"),
            );
            params.insert("reasoning", Object::new().with("effort", off).into());
        }
    }
    // 1.0.2: `resolveSamplingParams(model, reasoningEffort ?? "off", options.samplingParams)`
    // (1.6.0/AI/api/azure-openai-responses.js:186).
    if let Some(sp) =
        messages::resolve_sampling_params(pi, model, reasoning_effort.unwrap_or("off"))
    {
        params.spread(&sp);
    }
    Ok(params.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deployment_map_is_parsed_like_pi() {
        let map = parse_deployment_name_map(Some(" gpt-5 = my-gpt5 , bad, =x, gpt-4o=a=b"));
        assert_eq!(
            map,
            vec![
                ("gpt-5".to_string(), "my-gpt5".to_string()),
                ("gpt-4o".to_string(), "a".to_string())
            ]
        );
    }

    #[test]
    fn azure_hosts_get_the_v1_path() {
        let mut ev = Events::default();
        assert_eq!(
            normalize_azure_base_url("https://res.openai.azure.com/", &mut ev)
                .ok()
                .as_deref(),
            Some("https://res.openai.azure.com/openai/v1")
        );
        assert_eq!(
            normalize_azure_base_url("http://127.0.0.1:9/openai/v1/", &mut ev)
                .ok()
                .as_deref(),
            Some("http://127.0.0.1:9/openai/v1")
        );
        assert!(normalize_azure_base_url("not a url", &mut ev).is_err());
        assert_eq!(
            responses_url("http://h/openai/v1", "v1"),
            "http://h/openai/v1/responses?api-version=v1"
        );
    }
}

//! pi-ai `dist/api/google-generative-ai.js`:
//! `streamSimple` → `stream` → `createClient` + `buildParams`, then what
//! `@google/genai` (1.52.0 in 0.85.1, 2.32.0 in 1.6.0) does with the params in
//! `models.generateContentStream` (the `generateContentParametersToMldev` converters in
//! dist/node/index.cjs), which decides the REST body: `contents, systemInstruction, tools,
//! toolConfig, generationConfig`.
//!
//! From 0.86 the context is a transcript: Google has no mid-conversation system messages, so it
//! is always collapsed (`collapseSystemMessages`, :16): the replayed prompt is
//! `systemInstruction`, the current tools are the declarations.

use super::{body, err, ev, google_shared, AdapterError, Request, StreamOptions};
use crate::context::LlmContext;
use crate::js::{self, non_nullish, sanitize_surrogates, Object, Value};
use crate::messages;
use crate::model::{self, Model};
use crate::pi::{GoogleRules, Pi};
use crate::trace::{EventKind, Events};
use crate::transcript;

/// The SDK's base URL when the model has none (`initHttpOptions.baseUrl` + `GOOGLE_AI_API_DEFAULT_VERSION`).
const DEFAULT_BASE_URL: &str = "https://generativelanguage.googleapis.com/v1beta";

/// `options.thinking` as `streamSimple` hands it to `stream`.
#[derive(Clone, Debug, PartialEq)]
enum Thinking {
    Disabled,
    /// `{enabled: true, level}` (Gemini 3 Pro/Flash, Gemma 4).
    Level(&'static str),
    /// `{enabled: true, budgetTokens}` (anything else); a custom budget may be any JSON value,
    /// `None` is `undefined`.
    Budget(Option<Value>),
}

/// `streamSimple` (google-generative-ai.js:232–263) and the request half of `stream` (:12–46):
/// the API-key check, `createClient`, `buildParams`, then the SDK's conversion and URL.
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
    // The clamp reads the transcript as it is, before the system messages collapse.
    let max_tokens =
        messages::clamp_max_tokens_to_context(pi, model, ctx, messages::model_max_tokens(model));
    let thinking = stream_simple_thinking(pi, model, opts, events)?;
    let collapsed = transcript::collapsed_context(pi, ctx);
    if let Some(what) = transcript::collapse_note(
        ctx,
        "systemInstruction",
        "the function declarations",
        "Gemini has no mid-conversation system messages",
    ) {
        ev(
            events,
            EventKind::Converted,
            what,
            "1.6.0/AI/api/google-generative-ai.js:16",
        );
    }
    let params = build_params(pi, model, &collapsed, max_tokens, &thinking, events)?;
    let sent = generate_content_parameters_to_mldev(pi, &params)?;
    let (text, accounting) = body::written(&sent);
    let url = format!(
        "{}/{}:streamGenerateContent?alt=sse",
        request_base_url(model),
        t_model(model.id())?
    );
    let headers = create_client_headers(pi, model, opts);
    Ok(Request {
        method: "POST",
        url,
        headers,
        params,
        body: text,
        accounting,
        sent,
        url_note: None,
    })
}

/// The thinking half of `streamSimple` (google-generative-ai.js:241–262, 1.6.0 :236–259):
/// off → `{enabled:false}`; otherwise the level is clamped (1.6.0: a level that clamps to off is
/// disabled too), resolved through `thinkingLevelMap`, and becomes a `thinkingLevel` for the
/// level models (0.85: Gemini 3 Pro/Flash and Gemma 4, with remaps; 1.6.0:
/// `usesGoogleThinkingLevel`, the resolved level itself), a `thinkingBudget` otherwise.
fn stream_simple_thinking(
    pi: &Pi,
    model: &Model,
    opts: &StreamOptions,
    events: &mut Events,
) -> Result<Thinking, AdapterError> {
    let Some(reasoning) = opts.reasoning.as_deref().filter(|r| !r.is_empty()) else {
        return Ok(Thinking::Disabled);
    };
    let clamped = model::clamp_thinking_level(model, reasoning, events);
    if pi.rules.google.thinking_level_from_map && clamped == "off" {
        ev(
            events,
            EventKind::Converted,
            format!("thinking level {reasoning} clamps to off: thinking disabled"),
            "1.6.0/AI/api/google-generative-ai.js:240",
        );
        return Ok(Thinking::Disabled);
    }
    let resolved = match (
        google_shared::resolve_google_thinking_level(pi, model, &clamped),
        &opts.switched_from,
    ) {
        (Ok(level), _) => level,
        (Err(e), Some(from)) => {
            // A what-if: the level map belongs to the model's own protocol. Stand in with pi's
            // `clampReasoning` (xhigh and max → high) and say so.
            let stand_in = match crate::messages::clamp_reasoning(&clamped) {
                l @ ("minimal" | "low" | "medium" | "high") => l.to_string(),
                _ => "high".to_string(),
            };
            ev(
                events,
                EventKind::Replaced,
                format!(
                    "{}; switched from {from}, thinking level {stand_in} stands in",
                    e.message
                ),
                "AI/api/google-shared.js:10",
            );
            stand_in
        }
        (Err(e), None) => return Err(e),
    };
    if pi.rules.google.thinking_level_from_map {
        if google_shared::uses_google_thinking_level(pi, model) {
            let level = google_shared::to_google_thinking_level(&resolved);
            ev(
                events,
                EventKind::Converted,
                format!("thinking level {clamped} → thinkingLevel {level}"),
                "1.6.0/AI/api/google-generative-ai.js:244",
            );
            return Ok(Thinking::Level(level));
        }
    } else if is_gemini3_pro_model(model) || is_gemini3_flash_model(model) || is_gemma4_model(model)
    {
        let level = get_thinking_level(&resolved, model);
        ev(
            events,
            EventKind::Converted,
            format!("thinking level {clamped} → thinkingLevel {level}"),
            "AI/api/google-generative-ai.js:247",
        );
        return Ok(Thinking::Level(level));
    }
    let budget = get_google_budget(pi, model, &resolved, opts.thinking_budgets.as_ref());
    let shown = budget
        .as_ref()
        .map_or_else(|| "undefined".to_string(), Value::to_json);
    ev(
        events,
        EventKind::Converted,
        format!("thinking level {clamped} → thinkingBudget {shown}"),
        "AI/api/google-generative-ai.js:256",
    );
    Ok(Thinking::Budget(budget))
}

/// The SDK's request URL base (`getRequestUrlInternal`, dist/node/index.cjs:13053): pi sets
/// `httpOptions.baseUrl = model.baseUrl` and `apiVersion = ""`; one trailing `/` is dropped.
fn request_base_url(model: &Model) -> String {
    let base = model.base_url();
    if base.is_empty() {
        return DEFAULT_BASE_URL.to_string();
    }
    base.strip_suffix('/').unwrap_or(base).to_string()
}

/// `tModel(apiClient, model)` for the Gemini API (dist/node/index.cjs:2965–2993).
fn t_model(id: &str) -> Result<String, AdapterError> {
    if id.is_empty() {
        return Err(err("model is required and must be a string"));
    }
    if id.contains("..") || id.contains('?') || id.contains('&') {
        return Err(err("invalid model parameter"));
    }
    if id.starts_with("models/") || id.starts_with("tunedModels/") {
        return Ok(id.to_string());
    }
    Ok(format!("models/{id}"))
}

/// The SDK's `x-goog-api-client` header: `LIBRARY_LABEL` of @google/genai
/// (`google-genai-sdk/<version>`, dist/node/index.cjs) and `gl-node/${process.version}`, the
/// Node that runs pi (the oracle's, `manifest.json` `extractedWithNode`).
fn x_goog_api_client(pi: &Pi) -> String {
    format!(
        "google-genai-sdk/{} gl-node/{}",
        pi.data.sdk_version("@google/genai"),
        pi.data.node_version()
    )
}

/// `createClient(model, apiKey, optionsHeaders)` (google-generative-ai.js:264–278, 1.6.0
/// :261–274) as the SDK sends the headers: its defaults `User-Agent`, `x-goog-api-client`,
/// `Content-Type` patched (`Object.assign`) with pi's record, then `x-goog-api-key`, and fetch's
/// default `accept: */*`. pi's record is `{"User-Agent": pi, ...model.headers,
/// ...options.headers}` without nulls in 0.85; from 1.4.0 `providerHeadersToRecord(identity,
/// model.headers, options.headers)` (AI/utils/headers.js:8–19): names merged case-insensitively,
/// one set again moves to the end with its last spelling, null deletes. Left out: the runtime's
/// `host`, `connection`, `accept-language`, `sec-fetch-mode`, `accept-encoding`,
/// `content-length`.
fn create_client_headers(pi: &Pi, model: &Model, opts: &StreamOptions) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = vec![
        ("User-Agent".into(), x_goog_api_client(pi)),
        ("x-goog-api-client".into(), x_goog_api_client(pi)),
        ("Content-Type".into(), "application/json".into()),
    ];
    let mut set = |name: &str, value: String| {
        // `Object.assign` replaces an identical key in place; `new Headers()` then joins
        // case-insensitive duplicates with ", ".
        if let Some(slot) = headers.iter_mut().find(|(k, _)| k == name) {
            slot.1 = value;
        } else if let Some(slot) = headers
            .iter_mut()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
        {
            slot.1 = format!("{}, {}", slot.1, value);
        } else {
            headers.push((name.to_string(), value));
        }
    };
    for (k, v) in pi_header_record(pi, model, opts) {
        set(&k, v);
    }
    if !headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("x-goog-api-key"))
    {
        headers.push(("x-goog-api-key".into(), "<redacted>".into()));
    }
    // fetch's default when the request has no Accept header.
    if !headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("accept"))
    {
        headers.push(("accept".into(), "*/*".into()));
    }
    headers
        .into_iter()
        .map(|(k, v)| (k.to_lowercase(), v))
        .collect()
}

/// The header record pi hands the SDK (`httpOptions.headers`), in its key order.
fn pi_header_record(pi: &Pi, model: &Model, opts: &StreamOptions) -> Vec<(String, String)> {
    let model_headers: Vec<(String, Option<String>)> = model
        .headers()
        .map(|h| {
            h.iter()
                .map(|(k, v)| {
                    (
                        k.to_string(),
                        (!v.is_null()).then(|| js::to_js_string(Some(v))),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let option_headers = opts
        .headers
        .iter()
        .map(|(k, v)| (k.clone(), Some(v.clone())));
    if !pi.rules.google.headers_merged_case_insensitively {
        // `{"User-Agent": ua, ...model.headers, ...optionsHeaders}`, then nulls dropped.
        let mut record: Vec<(String, Option<String>)> =
            vec![("User-Agent".into(), Some(opts.user_agent.clone()))];
        for (k, v) in model_headers.into_iter().chain(option_headers) {
            match record.iter_mut().find(|(n, _)| *n == k) {
                Some(slot) => slot.1 = v,
                None => record.push((k, v)),
            }
        }
        return record
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k, v)))
            .collect();
    }
    // `providerHeadersToRecord(getIdentityHeaders(model, identity), model.headers, optionsHeaders)`.
    let identity = opts
        .identity_headers
        .iter()
        .map(|(k, v)| (k.clone(), Some(v.clone())));
    let mut merged: Vec<(String, String)> = Vec::new();
    for (k, v) in identity.chain(model_headers).chain(option_headers) {
        merged.retain(|(n, _)| !n.eq_ignore_ascii_case(&k));
        if let Some(v) = v {
            merged.push((k, v));
        }
    }
    merged
}

/// `buildParams(model, context, options)` (google-generative-ai.js:279–329): pi's
/// `{model, contents, config}` before the SDK converts it.
fn build_params(
    pi: &Pi,
    model: &Model,
    ctx: &LlmContext,
    max_tokens: f64,
    thinking: &Thinking,
    events: &mut Events,
) -> Result<Value, AdapterError> {
    let contents = google_shared::convert_messages(pi, model, &ctx.messages, events)?;
    let mut generation_config = Object::new();
    generation_config.insert("maxOutputTokens", Value::Number(max_tokens));
    let supports_strict_mode = google_shared::supports_google_strict_tool_sampling(model.id());
    let function_calling_mode = if ctx.tools().is_empty() {
        None
    } else {
        google_shared::resolve_google_function_calling_mode(pi, ctx.tools(), supports_strict_mode)?
    };
    let mut config = Object::new();
    config.spread(&generation_config);
    if !ctx.system_prompt().is_empty() {
        config.insert(
            "systemInstruction",
            Value::String(sanitize_surrogates(ctx.system_prompt()).into_owned().into()),
        );
    }
    if !ctx.tools().is_empty() {
        // `convertTools` never returns undefined for a non-empty list.
        config.insert_opt(
            "tools",
            google_shared::convert_tools(pi, ctx.tools(), supports_strict_mode, events)?,
        );
    }
    if let Some(mode) = function_calling_mode {
        ev(
            events,
            EventKind::Inserted,
            format!("toolConfig.functionCallingConfig.mode {mode} (a strict tool on Gemini ≥ 3)"),
            "AI/api/google-generative-ai.js:299",
        );
        config.insert(
            "toolConfig",
            Value::Object(
                Object::new().with("functionCallingConfig", Object::new().with("mode", mode)),
            ),
        );
    }
    match thinking {
        Thinking::Level(level) if model.reasoning() => {
            config.insert(
                "thinkingConfig",
                Value::Object(
                    Object::new()
                        .with("includeThoughts", true)
                        .with("thinkingLevel", *level),
                ),
            );
        }
        Thinking::Budget(budget) if model.reasoning() => {
            // `budgetTokens !== undefined`: a custom budget of `null` is still sent.
            let mut tc = Object::new().with("includeThoughts", true);
            tc.insert_opt("thinkingBudget", budget.clone());
            config.insert("thinkingConfig", Value::Object(tc));
        }
        Thinking::Disabled if model.reasoning() => {
            let disabled = if pi.rules.google.thinking_level_from_map {
                google_shared::get_disabled_google_thinking_config(pi, model, events)?
            } else {
                get_disabled_thinking_config(model)
            };
            ev(
                events,
                EventKind::Inserted,
                format!(
                    "thinking off on a reasoning model: thinkingConfig {}",
                    disabled.to_json()
                ),
                "AI/api/google-generative-ai.js:315",
            );
            config.insert("thinkingConfig", disabled);
        }
        _ => {}
    }
    Ok(Value::Object(
        Object::new()
            .with("model", model.id())
            .with("contents", contents)
            .with("config", config),
    ))
}

/// `isGemma4Model(model)` (google-generative-ai.js:330–332): `/gemma-?4/`.
fn is_gemma4_model(model: &Model) -> bool {
    let id = model.id().to_lowercase();
    id.contains("gemma-4") || id.contains("gemma4")
}

/// `isGemini3ProModel(model)` (google-generative-ai.js:333–335).
fn is_gemini3_pro_model(model: &Model) -> bool {
    google_shared::matches_gemini3(&model.id().to_lowercase(), "-pro")
}

/// `isGemini3FlashModel(model)` (google-generative-ai.js:336–339).
fn is_gemini3_flash_model(model: &Model) -> bool {
    let id = model.id().to_lowercase();
    google_shared::matches_gemini3(&id, "-flash")
        || id == "gemini-flash-latest"
        || id == "gemini-flash-lite-latest"
}

/// `getDisabledThinkingConfig(model)` (google-generative-ai.js:340–355): Gemini 3 Pro cannot turn
/// thinking off (`LOW`), Gemini 3 Flash and Gemma 4 use `MINIMAL`, others `thinkingBudget: 0`.
fn get_disabled_thinking_config(model: &Model) -> Value {
    if is_gemini3_pro_model(model) {
        return Value::Object(Object::new().with("thinkingLevel", "LOW"));
    }
    if is_gemini3_flash_model(model) || is_gemma4_model(model) {
        return Value::Object(Object::new().with("thinkingLevel", "MINIMAL"));
    }
    Value::Object(Object::new().with("thinkingBudget", 0.0))
}

/// `getThinkingLevel(effort, model)` (google-generative-ai.js:356–387).
fn get_thinking_level(effort: &str, model: &Model) -> &'static str {
    if is_gemini3_pro_model(model) {
        match effort {
            "minimal" | "low" => return "LOW",
            "medium" | "high" => return "HIGH",
            _ => {}
        }
    }
    if is_gemma4_model(model) {
        match effort {
            "minimal" | "low" => return "MINIMAL",
            "medium" | "high" => return "HIGH",
            _ => {}
        }
    }
    match effort {
        "minimal" => "MINIMAL",
        "low" => "LOW",
        "medium" => "MEDIUM",
        // `resolveGoogleThinkingLevel` only lets minimal/low/medium/high through.
        _ => "HIGH",
    }
}

/// `getGoogleBudget(model, level, customBudgets)` (google-generative-ai.js:388–420): a custom
/// `thinkingBudgets[level]` first, then the per-family table (defaults.json
/// `googleGenerativeAiThinkingBudgets`, first `id.includes` rule wins), else -1.
fn get_google_budget(
    pi: &Pi,
    model: &Model,
    level: &str,
    custom: Option<&Object>,
) -> Option<Value> {
    if let Some(v) = custom.and_then(|c| c.get(level)) {
        return Some(v.clone());
    }
    let table = pi.data.defaults.get("googleGenerativeAiThinkingBudgets");
    let rules = table
        .and_then(|t| t.get("rules"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    for rule in rules {
        if rule
            .get_str("idIncludes")
            .is_some_and(|s| model.id().contains(s))
        {
            // `budgets[level]` is undefined for a level outside the table.
            return rule.get("budgets").and_then(|b| b.get(level)).cloned();
        }
    }
    Some(
        table
            .and_then(|t| t.get("fallback"))
            .cloned()
            .unwrap_or(Value::Number(-1.0)),
    )
}

// ---------------------------------------------------------------------------------------------
// @google/genai 1.52.0: generateContentParametersToMldev and the converters it calls
// (dist/node/index.cjs). Every member is copied only when `!= null`.
// ---------------------------------------------------------------------------------------------

/// `generateContentParametersToMldev(apiClient, params)` (index.cjs:10326–10346) with
/// `generateContentConfigToMldev` (:9981–10128): `contents`, then the members the config
/// moves up (`systemInstruction`, `tools`, `toolConfig`), then `generationConfig`. `_url`
/// (the model) goes into the path.
fn generate_content_parameters_to_mldev(pi: &Pi, params: &Value) -> Result<Value, AdapterError> {
    let v2 = pi.rules.google;
    let mut body = Object::new();
    if let Some(contents) = non_nullish(params.get("contents")) {
        let list = t_contents(contents)?;
        body.insert(
            "contents",
            Value::Array(list.iter().map(|c| content_to_mldev(c, v2)).collect()),
        );
    }
    if let Some(config) = non_nullish(params.get("config")) {
        let generation_config = generate_content_config_to_mldev(config, &mut body, v2)?;
        body.insert("generationConfig", generation_config);
    }
    Ok(Value::Object(body))
}

/// `tContents(origin)` (index.cjs:3126–3163) for pi's list of `Content` objects: an empty list
/// throws.
fn t_contents(origin: &Value) -> Result<Vec<Value>, AdapterError> {
    match origin {
        Value::Array(a) if a.is_empty() => Err(err("contents are required")),
        Value::Array(a) => Ok(a.clone()),
        other => Ok(vec![other.clone()]),
    }
}

/// `generateContentConfigToMldev` (index.cjs:9981–10128) for the members pi sets.
fn generate_content_config_to_mldev(
    config: &Value,
    parent: &mut Object,
    v2: GoogleRules,
) -> Result<Value, AdapterError> {
    let mut out = Object::new();
    if let Some(si) = non_nullish(config.get("systemInstruction")) {
        parent.insert("systemInstruction", content_to_mldev(&t_content(si)?, v2));
    }
    for key in [
        "temperature",
        "topP",
        "topK",
        "candidateCount",
        "maxOutputTokens",
    ] {
        if let Some(v) = non_nullish(config.get(key)) {
            out.insert(key, v.clone());
        }
    }
    if let Some(tools) = non_nullish(config.get("tools")) {
        let list = match tools {
            Value::Array(a) => a.clone(),
            _ => return Err(err("tools is required and must be an array of Tools")),
        };
        parent.insert(
            "tools",
            Value::Array(list.iter().map(tool_to_mldev).collect()),
        );
    }
    if let Some(tc) = non_nullish(config.get("toolConfig")) {
        parent.insert("toolConfig", tool_config_to_mldev(tc));
    }
    if let Some(tc) = non_nullish(config.get("thinkingConfig")) {
        out.insert("thinkingConfig", tc.clone());
    }
    Ok(Value::Object(out))
}

/// `tContent(origin)` (index.cjs:3083–3096): a string becomes `{role:"user", parts:[{text}]}`.
fn t_content(origin: &Value) -> Result<Value, AdapterError> {
    if origin.get("parts").and_then(Value::as_array).is_some() {
        return Ok(origin.clone());
    }
    let parts = match origin {
        // Only the system instruction is given as a string: its one part is the system text.
        Value::String(s) => vec![Value::Object(
            Object::new()
                .with("text", s.as_str())
                .marked(body::Tag::System.mark()),
        )],
        Value::Array(a) if a.is_empty() => return Err(err("PartListUnion is required")),
        Value::Array(a) => a.clone(),
        Value::Object(_) => vec![origin.clone()],
        _ => return Err(err("Unsupported part type")),
    };
    // Only the system instruction is made into a content here.
    Ok(Value::Object(
        Object::new()
            .with("role", "user")
            .with("parts", parts)
            .marked(body::Tag::System.mark()),
    ))
}

/// `contentToMldev$1` (index.cjs:9241–9258; 2.32.0 :9919): `{parts, role}`.
fn content_to_mldev(content: &Value, v2: GoogleRules) -> Value {
    let mut out = body::like(Object::new(), content);
    if let Some(parts) = non_nullish(content.get("parts")) {
        let parts = match parts {
            Value::Array(a) => Value::Array(a.iter().map(|p| part_to_mldev(p, v2)).collect()),
            other => other.clone(),
        };
        out.insert("parts", parts);
    }
    if let Some(role) = non_nullish(content.get("role")) {
        out.insert("role", role.clone());
    }
    Value::Object(out)
}

/// `partToMldev$1` (index.cjs:11732–11800): the members in the SDK's order; `functionCall` and
/// `inlineData` converted, `functionResponse` passed as pi wrote it. @google/genai 2.32.0
/// (:12348–12437): the members pi writes keep their relative order; `functionCall` is written
/// `args, id, name` (`functionCallToMldev$1`, :10573; 2.21.0 too) and `inlineData` and
/// `fileData` are passed on as they are (2.21.0: `blobToMldev$1`, `fileDataToMldev$1` still).
fn part_to_mldev(part: &Value, v2: GoogleRules) -> Value {
    let passthrough = v2.sdk_blob_passthrough;
    const ORDER: [&str; 14] = [
        "mediaResolution",
        "codeExecutionResult",
        "executableCode",
        "fileData",
        "functionCall",
        "functionResponse",
        "inlineData",
        "text",
        "thought",
        "thoughtSignature",
        "videoMetadata",
        "toolCall",
        "toolResponse",
        "partMetadata",
    ];
    let mut out = body::like(Object::new(), part);
    for key in ORDER {
        let Some(v) = non_nullish(part.get(key)) else {
            continue;
        };
        let converted = match key {
            "functionCall" if v2.sdk_v2_parts => reorder(v, &["args", "id", "name"]),
            "functionCall" => reorder(v, &["id", "args", "name"]),
            "inlineData" if !passthrough => reorder(v, &["data", "mimeType"]),
            "fileData" if !passthrough => reorder(v, &["fileUri", "mimeType"]),
            _ => v.clone(),
        };
        out.insert(key, converted);
    }
    Value::Object(out)
}

/// A converter that copies the listed members (`!= null`) in its own order
/// (`functionCallToMldev$1` :9906, `blobToMldev$1` :9090, `fileDataToMldev$1` :9891).
fn reorder(v: &Value, keys: &[&str]) -> Value {
    let mut out = body::like(Object::new(), v);
    for key in keys {
        if let Some(x) = non_nullish(v.get(key)) {
            out.insert(*key, x.clone());
        }
    }
    Value::Object(out)
}

/// `toolToMldev$1(tTool(item))` (index.cjs:12230–12290, 3344): pi's tools carry only
/// `functionDeclarations` (with `parametersJsonSchema`, which `tTool` leaves alone).
fn tool_to_mldev(tool: &Value) -> Value {
    const ORDER: [&str; 9] = [
        "computerUse",
        "fileSearch",
        "googleSearch",
        "googleMaps",
        "codeExecution",
        "functionDeclarations",
        "googleSearchRetrieval",
        "urlContext",
        "mcpServers",
    ];
    let mut out = Object::new();
    for key in ORDER {
        if let Some(v) = non_nullish(tool.get(key)) {
            out.insert(key, v.clone());
        }
    }
    Value::Object(out)
}

/// `toolConfigToMldev` (index.cjs:12190–12209) with `functionCallingConfigToMldev` (:9928).
fn tool_config_to_mldev(tc: &Value) -> Value {
    let mut out = Object::new();
    if let Some(v) = non_nullish(tc.get("retrievalConfig")) {
        out.insert("retrievalConfig", v.clone());
    }
    if let Some(v) = non_nullish(tc.get("functionCallingConfig")) {
        out.insert(
            "functionCallingConfig",
            reorder(v, &["allowedFunctionNames", "mode"]),
        );
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testcase::pi;

    fn model(id: &str) -> Model {
        Model {
            obj: Object::new().with("id", id),
        }
    }

    #[test]
    fn model_families() {
        assert!(is_gemini3_pro_model(&model("gemini-3.1-pro-preview")));
        assert!(is_gemini3_pro_model(&model("gemini-3-pro")));
        assert!(!is_gemini3_pro_model(&model("gemini-3.1-flash-lite")));
        assert!(is_gemini3_flash_model(&model("gemini-3.1-flash-lite")));
        assert!(is_gemini3_flash_model(&model("gemini-flash-latest")));
        assert!(!is_gemini3_flash_model(&model("gemini-2.5-flash")));
        assert!(!is_gemini3_flash_model(&model("gemini-3.-flash")));
        assert!(is_gemma4_model(&model("gemma-4-31b-it")) && is_gemma4_model(&model("Gemma4")));
    }

    #[test]
    fn header_record_merges_case_insensitively_from_1_4() {
        let mut m = model("gemini-2.5-flash");
        m.obj.insert(
            "headers",
            crate::js::parse(r#"{"X-Team":"a","user-agent":"mine","X-Gone":null}"#).unwrap(),
        );
        let opts = StreamOptions {
            user_agent: "pi/1.6.0 (linux; node/v22.23.5; x64)".into(),
            identity_headers: vec![(
                "User-Agent".into(),
                "pi/1.6.0 (linux; node/v22.23.5; x64)".into(),
            )],
            headers: vec![
                ("x-team".into(), "b".into()),
                ("X-Gone".into(), "back".into()),
            ],
            ..StreamOptions::default()
        };
        let p16 = crate::Pi::new(crate::PiVersion::V1_6_0).unwrap();
        assert_eq!(
            pi_header_record(&p16, &m, &opts),
            vec![
                ("user-agent".to_string(), "mine".to_string()),
                ("x-team".to_string(), "b".to_string()),
                ("X-Gone".to_string(), "back".to_string()),
            ]
        );
        // 0.85: one object spread; a name is only the same when spelled the same.
        assert_eq!(
            pi_header_record(&pi(), &m, &opts),
            vec![
                ("User-Agent".to_string(), opts.user_agent.clone()),
                ("X-Team".to_string(), "a".to_string()),
                ("user-agent".to_string(), "mine".to_string()),
                ("X-Gone".to_string(), "back".to_string()),
                ("x-team".to_string(), "b".to_string()),
            ]
        );
        // On the wire the SDK's own User-Agent and pi's lower-case one are joined.
        let headers = create_client_headers(&p16, &m, &opts);
        assert_eq!(
            headers[0],
            (
                "user-agent".to_string(),
                format!("{}, mine", x_goog_api_client(&p16))
            )
        );
    }

    #[test]
    fn budgets() {
        let n = |x: f64| Some(Value::Number(x));
        assert_eq!(
            get_google_budget(&pi(), &model("gemini-2.5-flash-lite"), "minimal", None),
            n(512.0)
        );
        assert_eq!(
            get_google_budget(&pi(), &model("gemini-2.5-flash"), "high", None),
            n(24576.0)
        );
        assert_eq!(
            get_google_budget(&pi(), &model("gemini-2.5-pro"), "high", None),
            n(32768.0)
        );
        assert_eq!(
            get_google_budget(&pi(), &model("other"), "high", None),
            n(-1.0)
        );
        let custom = Object::new().with("high", 99.0);
        assert_eq!(
            get_google_budget(&pi(), &model("gemini-2.5-pro"), "high", Some(&custom)),
            n(99.0)
        );
    }
}

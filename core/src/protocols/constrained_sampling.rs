//! pi-ai `dist/api/constrained-sampling.js`: the strict JSON-schema conversion and the
//! grammar-tool helpers every adapter with constrained sampling imports (openai-completions,
//! the Responses adapters, anthropic-messages, google, bedrock-converse-stream, mistral).
//!
//! `None` is JS `undefined` wherever pi returns it.

use super::{err, AdapterError};
use crate::js::{self, to_js_string, Object, Value};
use crate::tools::ToolDef;

/// A provider's keyword test: `(key, value)` of a schema node, true when unsupported.
pub type KeywordTest<'a> = &'a dyn Fn(&str, &Value) -> bool;

/// How a release converts schemas to the strict subset.
#[derive(Clone, Copy)]
pub struct Strict<'a> {
    /// 1.6.0: a node without `type`, `anyOf` and `enum` is unsupported (OpenAI strict mode
    /// rejects it).
    pub requires_type: bool,
    /// A provider's extra test of every own key of every node (`isUnsupportedKeyword`; only
    /// anthropic passes one, and only to `resolveJsonSchemaStrictSampling`).
    pub unsupported_keyword: Option<KeywordTest<'a>>,
}

impl Strict<'static> {
    /// The release's conversion, without a provider test.
    pub fn of(pi: &crate::pi::Pi) -> Strict<'static> {
        Strict {
            requires_type: pi.rules.strict_requires_type,
            unsupported_keyword: None,
        }
    }
}

/// `UnsupportedStrictJsonSchemaError` (AI/api/constrained-sampling.js:1–2): why a schema cannot
/// be made strict.
#[derive(Clone, Debug, PartialEq)]
pub struct UnsupportedStrictJsonSchema(pub String);

impl std::fmt::Display for UnsupportedStrictJsonSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn unsupported(msg: &str) -> UnsupportedStrictJsonSchema {
    UnsupportedStrictJsonSchema(msg.to_string())
}

/// `UNSUPPORTED_STRICT_SCHEMA_KEYS` (AI/api/constrained-sampling.js:3–20).
const UNSUPPORTED_STRICT_SCHEMA_KEYS: [&str; 16] = [
    "$ref",
    "$defs",
    "definitions",
    "allOf",
    "oneOf",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
    "unevaluatedProperties",
    "propertyNames",
    "contains",
    "prefixItems",
    "not",
    "if",
    "then",
    "else",
];

/// `isStructuredSchema(schema)` (AI/api/constrained-sampling.js:24–32).
fn is_structured_schema(schema: &Value) -> bool {
    let Some(s) = schema.as_object() else {
        return false;
    };
    let types: Vec<&Value> = match s.get("type") {
        Some(t @ Value::String(_)) => vec![t],
        Some(Value::Array(a)) => a.iter().collect(),
        _ => Vec::new(),
    };
    let has = |name: &str| types.iter().any(|t| t.as_str() == Some(name));
    has("object") || has("array") || s.contains_key("properties") || s.contains_key("items")
}

/// `schemaAllowsNull(schema)` (AI/api/constrained-sampling.js:33–41).
fn schema_allows_null(schema: &Value) -> bool {
    let Some(s) = schema.as_object() else {
        return false;
    };
    match s.get("type") {
        Some(Value::String(t)) if t == "null" => return true,
        Some(Value::Array(a)) if a.iter().any(|t| t.as_str() == Some("null")) => return true,
        _ => {}
    }
    if s.get("const") == Some(&Value::Null)
        || s.get_array("enum")
            .is_some_and(|e| e.iter().any(Value::is_null))
    {
        return true;
    }
    s.get_array("anyOf")
        .is_some_and(|variants| variants.iter().any(schema_allows_null))
}

/// `makeJsonSchemaNodeStrict(schema)` (AI/api/constrained-sampling.js:42–98), in place. Only an
/// existing `properties` object is rewritten (`schema.properties ?? {}` is mutated in place).
fn make_json_schema_node_strict(
    rules: &Strict,
    schema: &mut Value,
) -> Result<(), UnsupportedStrictJsonSchema> {
    let Some(s) = schema.as_object_mut() else {
        return Err(unsupported("boolean schemas are unsupported"));
    };
    for key in UNSUPPORTED_STRICT_SCHEMA_KEYS {
        if s.contains_key(key) {
            return Err(UnsupportedStrictJsonSchema(format!(
                "{key} schemas are unsupported"
            )));
        }
    }
    if let Some(test) = rules.unsupported_keyword {
        for (key, value) in s.iter() {
            if test(key, value) {
                return Err(UnsupportedStrictJsonSchema(format!(
                    "{key}: {} is unsupported",
                    value.to_json()
                )));
            }
        }
    }
    if rules.requires_type
        && !s.contains_key("type")
        && !s.contains_key("anyOf")
        && !s.contains_key("enum")
    {
        return Err(unsupported("schemas without a type are unsupported"));
    }
    if let Some(any_of) = s.get_mut("anyOf") {
        let Some(variants) = any_of.as_array_mut().filter(|v| !v.is_empty()) else {
            return Err(unsupported("anyOf must contain at least one schema"));
        };
        for variant in variants.iter_mut() {
            if is_structured_schema(variant) {
                return Err(unsupported("object and array unions are unsupported"));
            }
            make_json_schema_node_strict(rules, variant)?;
        }
    }
    if let Some(items) = s.get_mut("items") {
        if items.as_array().is_some() {
            return Err(unsupported("tuple schemas are unsupported"));
        }
        make_json_schema_node_strict(rules, items)?;
    }
    let is_object_schema = s.get_str("type") == Some("object");
    if s.contains_key("properties") && !is_object_schema {
        return Err(unsupported("properties require type object"));
    }
    if !is_object_schema {
        return Ok(());
    }
    if s.get("additionalProperties")
        .is_some_and(|v| *v != Value::Bool(false))
    {
        return Err(unsupported(
            "schema-valued or true additionalProperties is unsupported",
        ));
    }
    if s.get("properties").is_some_and(|p| p.as_object().is_none()) {
        return Err(unsupported("object properties must be a schema map"));
    }
    if let Some(req) = s.get("required") {
        if !req
            .as_array()
            .is_some_and(|r| r.iter().all(|k| k.as_str().is_some()))
        {
            return Err(unsupported("object required must be a string array"));
        }
    }
    let property_names: Vec<String> = s
        .get_object("properties")
        .map(|p| p.keys().map(|k| k.to_string()).collect())
        .unwrap_or_default();
    let required: Vec<String> = s
        .get_array("required")
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    if required.iter().any(|k| !property_names.contains(k)) {
        return Err(unsupported("required contains an unknown property"));
    }
    if let Some(Value::Object(properties)) = s.get_mut("properties") {
        for key in &property_names {
            let Some(property) = properties.get_mut(key) else {
                continue;
            };
            make_json_schema_node_strict(rules, property)?;
            if !required.contains(key) && !schema_allows_null(property) {
                let inner = std::mem::take(property);
                *property = Object::new()
                    .with(
                        "anyOf",
                        vec![inner, Object::new().with("type", "null").into()],
                    )
                    .into();
            }
        }
    }
    s.insert(
        "required",
        Value::Array(property_names.into_iter().map(Value::from).collect()),
    );
    s.insert("additionalProperties", Value::Bool(false));
    Ok(())
}

/// `makeStrictJsonSchema(schema)` (AI/api/constrained-sampling.js:100–110).
pub fn make_strict_json_schema(
    rules: &Strict,
    schema: &Value,
) -> Result<Value, UnsupportedStrictJsonSchema> {
    let mut cloned = schema.clone();
    if cloned.as_object().is_none() {
        return Err(unsupported("root schema must have type object"));
    }
    make_json_schema_node_strict(rules, &mut cloned)?;
    if cloned.get_str("type") != Some("object") {
        return Err(unsupported("root schema must have type object"));
    }
    Ok(cloned)
}

/// `getJsonSchemaToolParameters(tool, strict)` (AI/api/constrained-sampling.js:111–113): the
/// strict schema when `strict`, else the parameters as they are.
pub fn get_json_schema_tool_parameters(
    rules: &Strict,
    tool: &ToolDef,
    strict: bool,
) -> Result<Value, AdapterError> {
    if !strict {
        return Ok(tool.parameters.clone());
    }
    // Without the provider's keyword test (AI/api/constrained-sampling.js:127).
    let rules = Strict {
        unsupported_keyword: None,
        ..*rules
    };
    make_strict_json_schema(&rules, &tool.parameters).map_err(|e| err(e.0))
}

/// `getGrammarToolInput(toolName, arguments, inputProperty)` (AI/api/constrained-sampling.js:
/// 114–120); missing arguments throw the TypeError pi's property read does.
pub fn get_grammar_tool_input(
    tool_name: &str,
    arguments: Option<&Value>,
    input_property: &str,
) -> Result<String, AdapterError> {
    let Some(arguments) = arguments.filter(|a| !a.is_null()) else {
        return Err(err(format!(
            "Cannot read properties of {} (reading '{input_property}')",
            to_js_string(arguments)
        )));
    };
    match arguments.get(input_property) {
        Some(Value::String(s)) => Ok(s.to_string()),
        _ => Err(err(format!("Grammar tool call \"{tool_name}\" requires argument \"{input_property}\" to be a string."))),
    }
}

/// `inferGrammarInputProperty(tool)` (AI/api/constrained-sampling.js:146–162).
fn infer_grammar_input_property(tool: &ToolDef) -> Result<String, String> {
    let schema = &tool.parameters;
    if schema.get_str("type") != Some("object") {
        return Err("grammar constrained sampling requires an object parameter schema".into());
    }
    let input_property = match schema
        .get("required")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
    {
        Some([Value::String(p)]) => p.clone(),
        _ => {
            return Err(
                "grammar constrained sampling requires exactly one required string property".into(),
            )
        }
    };
    let property = schema
        .get("properties")
        .and_then(|p| p.get(&input_property));
    if !property.is_some_and(Value::truthy) {
        return Err(format!(
            "grammar constrained sampling requires a properties entry for {input_property}"
        ));
    }
    if property.and_then(|p| p.get_str("type")) != Some("string") {
        return Err(format!(
            "grammar constrained sampling property {input_property} must have type string"
        ));
    }
    Ok(input_property.to_string())
}

/// `resolveJsonSchemaStrictSampling(tool, supportsStrictMode)` (AI/api/constrained-sampling.js:
/// 163–184): `Some(true)` when the tool asks for JSON-schema constrained sampling, the adapter
/// supports strict mode and the schema converts; `None` (undefined) otherwise; an error when the
/// tool requires it (`strict: "require"`) and it cannot be had.
pub fn resolve_json_schema_strict_sampling(
    rules: &Strict,
    tool: &ToolDef,
    supports_strict_mode: bool,
) -> Result<Option<bool>, AdapterError> {
    let Some(config) = tool.constrained_sampling.as_ref().filter(|c| c.truthy()) else {
        return Ok(None);
    };
    if config.get_str("type") != Some("json_schema") {
        return Ok(None);
    }
    let requires = config.get_str("strict") == Some("require");
    if supports_strict_mode {
        return match make_strict_json_schema(rules, &tool.parameters) {
            Ok(_) => Ok(Some(true)),
            Err(_) if !requires => Ok(None),
            Err(e) => Err(err(format!(
                "Tool \"{}\" requires JSON-schema constrained sampling, but {}.",
                tool.name, e.0
            ))),
        };
    }
    if requires {
        return Err(err(format!("Tool \"{}\" requires JSON-schema constrained sampling, but strict tools are unsupported.", tool.name)));
    }
    Ok(None)
}

/// A resolved grammar tool (`resolveGrammarConstrainedSampling`'s result).
#[derive(Clone, Debug, PartialEq)]
pub struct Grammar {
    pub format: &'static str,
    pub definition: String,
    pub input_property: String,
}

/// `resolveGrammarConstrainedSampling(tool, supportsOpenAIGrammarTools)`
/// (AI/api/constrained-sampling.js:185–211): lark preferred over regex.
pub fn resolve_grammar_constrained_sampling(
    tool: &ToolDef,
    supports_grammar_tools: bool,
) -> Result<Option<Grammar>, AdapterError> {
    let Some(config) = tool.constrained_sampling.as_ref().filter(|c| c.truthy()) else {
        return Ok(None);
    };
    if config.get_str("type") != Some("grammar") || !supports_grammar_tools {
        return Ok(None);
    }
    let Some(variants) = config.get("variants").filter(|v| !v.is_null()) else {
        return Err(err(
            "Cannot read properties of undefined (reading 'openai_lark')",
        ));
    };
    let usable = |key: &str| {
        variants
            .get_str(key)
            .filter(|d| !js::js_trim_is_empty(d))
            .map(String::from)
    };
    let (format, definition) = match (usable("openai_lark"), usable("openai_regex")) {
        (Some(lark), _) => ("lark", lark),
        (None, Some(regex)) => ("regex", regex),
        (None, None) => {
            return Err(err(format!(
                "Tool \"{}\" cannot use grammar constrained sampling: no supported grammar variant was provided.",
                tool.name
            )))
        }
    };
    let input_property = infer_grammar_input_property(tool).map_err(|m| {
        err(format!(
            "Tool \"{}\" cannot use grammar constrained sampling: {m}.",
            tool.name
        ))
    })?;
    Ok(Some(Grammar {
        format,
        definition,
        input_property,
    }))
}

/// `createGrammarToolInputProperties(tools, supportsOpenAIGrammarTools)`
/// (AI/api/constrained-sampling.js:212–221): tool name → the argument that carries the input (a
/// later tool of the same name wins, in the first one's position).
pub fn create_grammar_tool_input_properties(
    tools: &[ToolDef],
    supports_grammar_tools: bool,
) -> Result<Vec<(String, String)>, AdapterError> {
    let mut props: Vec<(String, String)> = Vec::new();
    for tool in tools {
        if let Some(grammar) = resolve_grammar_constrained_sampling(tool, supports_grammar_tools)? {
            match props.iter_mut().find(|(name, _)| *name == tool.name) {
                Some(slot) => slot.1 = grammar.input_property,
                None => props.push((tool.name.clone(), grammar.input_property)),
            }
        }
    }
    Ok(props)
}

/// `grammarToolInputProperties.get(name)` on the map [`create_grammar_tool_input_properties`]
/// returns.
pub fn grammar_property<'a>(props: &'a [(String, String)], name: Option<&str>) -> Option<&'a str> {
    let name = name?;
    props
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, p)| p.as_str())
}

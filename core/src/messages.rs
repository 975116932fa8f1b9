//! Message conversion before the adapter: the new user message, `convertToLlm`,
//! `transformMessages`, the token estimate and the max-token clamp (INVENTORY §3, A2–A5).

use crate::js::{Object, Value};
use crate::model::Model;
use crate::protocols::LlmContext;
use crate::trace::Events;

/// The new prompt: `{role:"user", content:[{type:"text", text}, ...images], timestamp}` (S28).
pub fn user_message(text: &str, images: Vec<Value>, now_ms: f64) -> Value {
    let mut content = vec![Value::Object(Object::new().with("type", "text").with("text", text))];
    content.extend(images);
    Value::Object(Object::new().with("role", "user").with("content", Value::Array(content)).with("timestamp", now_ms))
}

/// `convertToLlm` (CA/core/messages.js:75–122) with the `images.blockImages` wrapper (M2, M3).
pub fn convert_to_llm(messages: &[Value], block_images: bool, events: &mut Events) -> Vec<Value> {
    let _ = (block_images, events);
    messages.to_vec()
}

/// An adapter's tool-call id normalizer: `(id, target model, source assistant message) → id`.
pub type NormalizeToolCallId<'a> = &'a dyn Fn(&str, &Model, &Value) -> String;

/// `transformMessages` (AI/api/transform-messages.js:44–186; M7–M15). `now_ms` stamps the
/// synthetic "No result provided" results.
pub fn transform_messages(messages: &[Value], model: &Model, normalize: Option<NormalizeToolCallId>, now_ms: f64, events: &mut Events) -> Vec<Value> {
    let _ = (model, normalize, now_ms, events);
    messages.to_vec()
}

/// `estimateContextTokens(context).tokens` (AI/utils/estimate.js:91–115; A3).
pub fn estimate_context_tokens(ctx: &LlmContext) -> f64 {
    let _ = ctx;
    0.0
}

/// `clampMaxTokensToContext(model, context, maxTokens)` (AI/api/simple-options.js:4–9; A2).
pub fn clamp_max_tokens_to_context(model: &Model, ctx: &LlmContext, max_tokens: f64) -> f64 {
    let _ = (model, ctx);
    max_tokens
}

/// `adjustMaxTokensForThinking(base, modelMax, level, budgets)` → `(maxTokens, thinkingBudget)`
/// (A5). `base` is `None` for JS `undefined`.
pub fn adjust_max_tokens_for_thinking(base: Option<f64>, model_max: f64, level: &str, budgets: Option<&Object>) -> (f64, f64) {
    let _ = (base, level, budgets);
    (model_max, 0.0)
}

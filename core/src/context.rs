//! pi's `Context`, the shared shape between the agent loop and the adapters (a leaf module: the
//! message conversion, the adapters and the analysis all read it; it depends on nothing of theirs).

use crate::js::Value;
use crate::tools::ToolDef;

/// pi's `Context`: what the agent loop hands the adapter.
#[derive(Clone, Debug, Default)]
pub struct LlmContext {
    pub system_prompt: String,
    /// LLM messages (user, assistant, toolResult) as pi holds them after `convertToLlm`.
    pub messages: Vec<Value>,
    pub tools: Vec<ToolDef>,
}

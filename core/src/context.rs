//! pi's `Context`, the shared shape between the agent loop and the adapters (a leaf module: the
//! message conversion, the adapters and the analysis all read it; it depends on nothing of theirs).
//!
//! Where the system prompt and the tools travel is the fork between pi 0.85 and 0.86 on, and it
//! is this type ([`System`]), decided once where the context is made (`assemble`'s
//! `llm_context`): 0.85 hands the adapter a prompt and tools beside the messages; 0.86 on, only
//! messages, whose system messages carry the prompt and declare the tools. The adapters ask the
//! context which it is, not the release.

use crate::js::Value;
use crate::tools::ToolDef;

/// pi's `Context`: what the agent loop hands the adapter.
#[derive(Clone, Debug)]
pub struct LlmContext {
    pub system: System,
    /// LLM messages (user, assistant, toolResult, and from 0.86 system) as pi holds them after
    /// `convertToLlm`.
    pub messages: Vec<Value>,
}

/// Where a context carries the system prompt and the tools.
#[derive(Clone, Debug)]
pub enum System {
    /// pi 0.85: `{systemPrompt, messages, tools}`.
    Prompt { text: String, tools: Vec<ToolDef> },
    /// pi 0.86 on: `{messages}` alone (`normalizeContext`): the system messages in them carry
    /// the prompt and declare the tools.
    Transcript,
}

impl Default for LlmContext {
    fn default() -> Self {
        LlmContext::prompt(String::new(), Vec::new(), Vec::new())
    }
}

impl LlmContext {
    /// 0.85's context: a prompt and tools beside the messages.
    pub fn prompt(text: String, messages: Vec<Value>, tools: Vec<ToolDef>) -> LlmContext {
        LlmContext {
            system: System::Prompt { text, tools },
            messages,
        }
    }

    /// 0.86's context: the messages alone.
    pub fn transcript(messages: Vec<Value>) -> LlmContext {
        LlmContext {
            system: System::Transcript,
            messages,
        }
    }

    /// Whether the prompt and tools are in the messages' system messages (0.86 on).
    pub fn is_transcript(&self) -> bool {
        matches!(self.system, System::Transcript)
    }

    /// `context.systemPrompt` (empty from 0.86 on, where there is none).
    pub fn system_prompt(&self) -> &str {
        match &self.system {
            System::Prompt { text, .. } => text,
            System::Transcript => "",
        }
    }

    /// `context.tools` (none from 0.86 on: the system messages declare them).
    pub fn tools(&self) -> &[ToolDef] {
        match &self.system {
            System::Prompt { tools, .. } => tools,
            System::Transcript => &[],
        }
    }
}

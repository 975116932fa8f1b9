//! The JSON of [`crate::analysis::stats`]: the accounting as the report's [`types::Stats`].

use super::types;
use super::wire::{Skip, Wire};
use crate::analysis::stats::*;
use crate::js::Value;

fn round4(x: f64) -> f64 {
    (x * 10000.0).round() / 10000.0
}

fn kinds(k: &KindStats) -> types::KindSizes {
    types::KindSizes {
        user_text: k.user_text,
        assistant_text: k.assistant_text,
        reasoning: k.reasoning,
        tool_arguments: k.tool_arguments,
        tool_results: k.tool_results,
        signatures: k.signatures,
        image_data: k.image_data,
        images: k.images,
    }
}

fn kind_tokens(k: &KindStats) -> types::KindTokens {
    types::KindTokens {
        user_text: k.user_text,
        assistant_text: k.assistant_text,
        reasoning: k.reasoning,
        tool_arguments: k.tool_arguments,
        tool_results: k.tool_results,
        signatures: k.signatures,
        image_data: k.image_data,
    }
}

/// The statistics as the report has them. With a tokenizer, `tokenizer: {name, exact}` and
/// `tokens` beside `chars` on each block (`byKindTokens` beside `byKind`); without one,
/// `tokenizer: null` and no `tokens`.
pub fn report(s: &Stats) -> types::Stats {
    let counted = s.tokenizer.is_some();
    let tok = |n: usize| Skip(counted.then_some(n));
    let (sp, tl, hi) = s.shares();
    let sections = s.sections.iter().map(|x| types::Section {
        name: x.name.clone(),
        source: x.source.clone(),
        offset: x.offset,
        chars: x.chars,
        tokens: tok(x.tokens),
        // 0.86 on: the stored system message that set it.
        stored: Skip(x.stored.clone()),
    });
    let by_tool = s.by_tool.iter().map(|t| types::ToolSize {
        name: t.name.clone(),
        chars: t.chars,
        tokens: tok(t.tokens),
        description_chars: t.description_chars,
        parameters_chars: t.parameters_chars,
        description_tokens: tok(t.description_tokens),
        parameters_tokens: tok(t.parameters_tokens),
    });
    let by_role = s.by_role.iter().map(|r| types::RoleSize {
        role: r.role.clone(),
        count: r.count,
        chars: r.chars,
        tokens: tok(r.tokens),
    });
    let by_result = s
        .tool_results_by_tool
        .iter()
        .map(|r| types::ToolResultSize {
            name: r.name.clone(),
            count: r.count,
            chars: r.chars,
            tokens: tok(r.tokens),
        });
    let by_message = s.by_message.iter().map(|m| types::MessageSize {
        path: m.path.clone(),
        role: m.role.clone(),
        messages: m.messages.clone(),
        lines: m.lines.iter().map(|&l| l as usize).collect(),
        chars: m.chars,
        tokens: tok(m.tokens),
    });
    types::Stats {
        tokenizer: s.tokenizer.clone(),
        system_prompt: types::SystemPromptStats {
            chars: s.system_prompt_chars,
            tokens: tok(s.system_prompt_tokens),
            sections: sections.collect(),
        },
        tools: types::ToolsStats {
            chars: s.tools_chars,
            tokens: tok(s.tools_tokens),
            by_tool: by_tool.collect(),
        },
        history: types::HistoryStats {
            chars: s.history_chars,
            tokens: tok(s.history_tokens),
            by_role: by_role.collect(),
            by_kind: kinds(&s.by_kind),
            by_kind_tokens: Skip(counted.then(|| kind_tokens(&s.by_kind_tokens))),
            tool_results_by_tool: by_result.collect(),
            by_message: by_message.collect(),
            messages_left: Skip(None),
        },
        parameters: types::ParametersStats {
            chars: s.parameters_chars,
            by_name: s
                .by_parameter
                .iter()
                .map(|(name, chars)| types::ParameterSize {
                    name: name.clone(),
                    chars: *chars,
                })
                .collect(),
        },
        structure: types::Chars {
            chars: s.structure_chars,
        },
        shares: types::Shares {
            system_prompt: round4(sp),
            tools: round4(tl),
            history: round4(hi),
        },
        body: types::BodySize {
            bytes: s.body_bytes,
            chars: s.body_chars,
        },
    }
}

/// The statistics as the CLI's `stats` JSON (camelCase): [`report`]'s value.
pub fn to_json(s: &Stats) -> Value {
    report(s).to_value()
}

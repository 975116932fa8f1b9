//! The seed article's accounting: how the request's characters split between the system prompt,
//! the tool definitions and the history. Lengths are UTF-16 code units (JS `.length`), counting
//! text payloads and not JSON punctuation.
//!
//! 0.86 on the system prompt is the system messages as sent (the collapsed head, or the first
//! message and the later updates kept in place: `Parts::sent_system`), the tools are the
//! transcript's declarations (`Parts::declared_tools`), and the history leaves the system
//! messages out.

use crate::context::LlmContext;
use crate::js::{utf16_len, Value};
use crate::model::Model;
use crate::prompt::SystemPrompt;
use crate::protocols::Request;
use crate::tools::ToolDef;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct SectionStat {
    pub name: String,
    pub source: String,
    pub offset: usize,
    pub chars: usize,
    /// 0.86 on: the stored system message that set it (`session line 3`, `this run`).
    pub stored: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolStat {
    pub name: String,
    /// Description + `JSON.stringify(parameters)`.
    pub chars: usize,
    pub description_chars: usize,
    pub parameters_chars: usize,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct RoleStat {
    /// The role on the wire (`tool` results are `user` messages in anthropic-messages).
    pub role: String,
    pub count: usize,
    pub chars: usize,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct KindStats {
    pub user_text: usize,
    pub assistant_text: usize,
    pub reasoning: usize,
    pub tool_arguments: usize,
    pub tool_results: usize,
    /// Images are not characters; they are counted.
    pub images: usize,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolResultStat {
    pub name: String,
    pub count: usize,
    pub chars: usize,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    pub system_prompt_chars: usize,
    pub sections: Vec<SectionStat>,
    pub tools_chars: usize,
    pub by_tool: Vec<ToolStat>,
    pub history_chars: usize,
    pub by_role: Vec<RoleStat>,
    pub by_kind: KindStats,
    pub tool_results_by_tool: Vec<ToolResultStat>,
    /// The body's size in bytes (UTF-8) and in UTF-16 units.
    pub body_bytes: usize,
    pub body_chars: usize,
    /// The release's token estimate: characters per token (`estimateCharsPerToken`, 4 in
    /// 0.85.1, 3.5 from 0.86).
    pub chars_per_token: f64,
}

impl Stats {
    pub fn total_chars(&self) -> usize {
        self.system_prompt_chars + self.tools_chars + self.history_chars
    }

    /// `chars` as tokens by the release's estimate (`ceil(chars / charsPerToken)`).
    pub fn tokens(&self, chars: usize) -> usize {
        if self.chars_per_token.is_nan() || self.chars_per_token <= 0.0 {
            return 0;
        }
        (chars as f64 / self.chars_per_token).ceil() as usize
    }

    /// Shares of (system prompt, tools, history) in the total, 0..1.
    pub fn shares(&self) -> (f64, f64, f64) {
        let t = self.total_chars().max(1) as f64;
        (
            self.system_prompt_chars as f64 / t,
            self.tools_chars as f64 / t,
            self.history_chars as f64 / t,
        )
    }
}

/// The size of one tool as the seed measures it.
pub fn tool_stat(tool: &ToolDef) -> ToolStat {
    let description_chars = utf16_len(&tool.description);
    let parameters_chars = utf16_len(&tool.parameters.to_json());
    ToolStat {
        name: tool.name.clone(),
        chars: description_chars + parameters_chars,
        description_chars,
        parameters_chars,
    }
}

fn text_of_blocks(content: Option<&Value>, kinds: &mut KindStats, into_user: bool) -> usize {
    match content {
        Some(Value::String(s)) => utf16_len(s),
        Some(Value::Array(blocks)) => {
            let mut n = 0;
            for b in blocks {
                match b.get_str("type") {
                    Some("text") => n += b.get_str("text").map_or(0, utf16_len),
                    Some("image") => kinds.images += 1,
                    _ => {}
                }
            }
            let _ = into_user;
            n
        }
        _ => 0,
    }
}

fn wire_role(api: &str, pi_role: &str) -> &'static str {
    match (api, pi_role) {
        (_, "user") => "user",
        (_, "assistant") => "assistant",
        ("anthropic-messages", "toolResult")
        | ("bedrock-converse-stream", "toolResult")
        | ("google-generative-ai", "toolResult") => "user",
        (_, "toolResult") => "tool",
        _ => "other",
    }
}

fn bump_role(roles: &mut Vec<RoleStat>, role: &str, chars: usize) {
    match roles.iter_mut().find(|r| r.role == role) {
        Some(r) => {
            r.count += 1;
            r.chars += chars;
        }
        None => roles.push(RoleStat {
            role: role.to_string(),
            count: 1,
            chars,
        }),
    }
}

/// Computes the statistics of one assembly.
pub fn compute(
    pi: &crate::pi::Pi,
    prompt: &SystemPrompt,
    tools: &[ToolDef],
    ctx: &LlmContext,
    request: &Request,
    model: Option<&Model>,
) -> Stats {
    let api = model.map(|m| m.api()).unwrap_or("");
    let mut s = Stats {
        system_prompt_chars: utf16_len(&prompt.text),
        sections: prompt
            .sections
            .iter()
            .map(|sec| SectionStat {
                name: sec.name.clone(),
                source: sec.source.clone(),
                offset: sec.start,
                chars: sec.end - sec.start,
                stored: sec.stored.as_ref().map(crate::prompt::Stored::label),
            })
            .collect(),
        by_tool: tools.iter().map(tool_stat).collect(),
        body_bytes: request.body.len(),
        body_chars: utf16_len(&request.body),
        chars_per_token: pi.data.default_number("estimateCharsPerToken"),
        ..Default::default()
    };
    s.tools_chars = s.by_tool.iter().map(|t| t.chars).sum();
    s.by_tool
        .sort_by(|a, b| b.chars.cmp(&a.chars).then(a.name.cmp(&b.name)));

    let mut kinds = KindStats::default();
    let mut roles: Vec<RoleStat> = Vec::new();
    let mut by_result_tool: Vec<ToolResultStat> = Vec::new();
    for m in &ctx.messages {
        let role = m.get_str("role").unwrap_or("");
        // 0.86 on: the system messages are the system prompt, counted above.
        if role == "system" {
            continue;
        }
        let chars = match role {
            "user" => {
                let n = text_of_blocks(m.get("content"), &mut kinds, true);
                kinds.user_text += n;
                n
            }
            "assistant" => {
                let mut n = 0;
                if let Some(Value::Array(blocks)) = m.get("content") {
                    for b in blocks {
                        match b.get_str("type") {
                            Some("text") => {
                                let c = b.get_str("text").map_or(0, utf16_len);
                                kinds.assistant_text += c;
                                n += c;
                            }
                            Some("thinking") => {
                                let c = b.get_str("thinking").map_or(0, utf16_len);
                                kinds.reasoning += c;
                                n += c;
                            }
                            Some("toolCall") => {
                                let c = b.get("arguments").map_or(0, |a| utf16_len(&a.to_json()));
                                kinds.tool_arguments += c;
                                n += c;
                            }
                            _ => {}
                        }
                    }
                }
                n
            }
            "toolResult" => {
                let n = text_of_blocks(m.get("content"), &mut kinds, false);
                kinds.tool_results += n;
                let name = m.get_str("toolName").unwrap_or("?");
                match by_result_tool.iter_mut().find(|t| t.name == name) {
                    Some(t) => {
                        t.count += 1;
                        t.chars += n;
                    }
                    None => by_result_tool.push(ToolResultStat {
                        name: name.to_string(),
                        count: 1,
                        chars: n,
                    }),
                }
                n
            }
            _ => 0,
        };
        bump_role(&mut roles, wire_role(api, role), chars);
    }
    by_result_tool.sort_by(|a, b| b.chars.cmp(&a.chars).then(a.name.cmp(&b.name)));
    s.history_chars = kinds.user_text
        + kinds.assistant_text
        + kinds.reasoning
        + kinds.tool_arguments
        + kinds.tool_results;
    s.by_kind = kinds;
    s.by_role = roles;
    s.tool_results_by_tool = by_result_tool;
    s
}

#[cfg(test)]
mod tests {
    use crate::testcase;
    use crate::trace::StageId;

    #[test]
    fn the_body_stage_and_the_statistics_count_the_body_as_js_does() {
        // Every corpus case (bodies with emoji, accents and lone surrogates among them), each
        // protocol: bytes and UTF-16 units of the body, in the stats and in the body stage.
        for name in testcase::all_cases() {
            let a = testcase::assembly(&name, None);
            let (Some(r), Some(s)) = (&a.request, &a.stats) else {
                continue;
            };
            let units = r.body.encode_utf16().count()
                - r.body
                    .chars()
                    .filter(|c| crate::js::is_lone_surrogate_char(*c).is_some())
                    .count();
            assert_eq!(s.body_chars, units, "{name}");
            assert_eq!(s.body_bytes, r.body.len(), "{name}");
            let stage = a
                .trace
                .stages
                .iter()
                .find(|st| st.id == StageId::HttpBody)
                .expect("body stage");
            let count = |k: &str| {
                stage
                    .counts
                    .iter()
                    .find(|(n, _)| n == k)
                    .map(|(_, v)| *v as usize)
            };
            assert_eq!(count("chars"), Some(units), "{name}");
            assert_eq!(count("bytes"), Some(r.body.len()), "{name}");
        }
    }
}

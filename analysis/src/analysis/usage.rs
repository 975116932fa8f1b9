//! Usage and cache: the token usage pi recorded on each assistant message of the session, call by
//! call, beside the fixed prefix (system prompt + tools) and the growing history — the seed's
//! "cache facts" for the user's own session, and where the cache likely broke.

use crate::assemble::Assembly;
use crate::js::to_number;
use crate::js::{Str, Value};
use crate::AssemblyStats;

/// One LLM call, as pi recorded it on the assistant message it produced.
#[derive(Clone, Debug, PartialEq)]
pub struct UsagePoint {
    pub entry_id: Option<Str>,
    /// 1-based line in the session file.
    pub line: u32,
    /// The entry's `timestamp` (ISO text as written by pi).
    pub timestamp: Option<Str>,
    pub provider: Option<Str>,
    pub model: Option<Str>,
    pub api: Option<Str>,
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    /// `usage.totalTokens`, or the sum of the four counts when pi recorded none.
    pub total_tokens: f64,
    pub stop_reason: Option<Str>,
    /// On the path from the root to the leaf (compacted-away calls included).
    pub on_branch: bool,
    /// Still in the context sent now (on the branch and not cut by a compaction).
    pub in_context: bool,
}

/// A call whose cacheRead dropped below the previous call of the same model on the branch.
#[derive(Clone, Debug, PartialEq)]
pub struct CacheBreak {
    /// Index into the timeline.
    pub index: usize,
    pub entry_id: Option<Str>,
    pub line: u32,
    /// The previous call of the same provider/model: its timeline index and cacheRead.
    pub previous_index: usize,
    pub previous_cache_read: f64,
    pub cache_read: f64,
    /// The call just before this one (on the branch) used another model / provider.
    pub model_changed: bool,
    pub provider_changed: bool,
    /// A compaction entry sits between the previous call of this model and this one.
    pub compaction_between: bool,
}

/// The seed's cache facts for this session and request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CacheFacts {
    pub system_prompt_chars: usize,
    pub tools_chars: usize,
    /// System prompt + tools: what every call repeats first.
    pub prefix_chars: usize,
    /// `ceil(prefix_chars / estimateCharsPerToken)`, the release's estimate (4 chars per token in
    /// 0.85.1, 3.5 from 0.86).
    pub prefix_tokens_estimate: usize,
    /// The conversation in this request.
    pub history_chars: usize,
    pub history_tokens_estimate: usize,
    /// Calls on the branch (the ones `breaks` looks at).
    pub calls: usize,
    pub total_input: f64,
    pub total_output: f64,
    pub total_cache_read: f64,
    pub total_cache_write: f64,
    /// cacheRead / (input + cacheRead + cacheWrite) over the branch, 0 when nothing was read.
    pub cache_read_share: f64,
    pub breaks: Vec<CacheBreak>,
}

fn num(o: Option<&Value>) -> f64 {
    let n = to_number(o);
    if n.is_finite() {
        n
    } else {
        0.0
    }
}

/// Every assistant message with a `usage` in the session, in file order.
pub fn usage_timeline(a: &Assembly) -> Vec<UsagePoint> {
    let Some(file) = &a.parts.session else {
        return Vec::new();
    };
    let ctx = &a.parts.session_context;
    let mut on_branch = vec![false; file.entries.len()];
    for &i in &ctx.path_indices {
        if let Some(b) = on_branch.get_mut(i) {
            *b = true;
        }
    }
    let mut in_context = vec![false; file.entries.len()];
    for &i in &ctx.context_indices {
        if let Some(b) = in_context.get_mut(i) {
            *b = true;
        }
    }
    let mut out = Vec::new();
    for (i, e) in file.entries.iter().enumerate() {
        if e.kind() != "message" {
            continue;
        }
        let Some(m) = e.value.get("message") else {
            continue;
        };
        if m.get_str("role") != Some("assistant") {
            continue;
        }
        let Some(u) = m.get("usage").filter(|u| u.as_object().is_some()) else {
            continue;
        };
        let (input, output, cache_read, cache_write) = (
            num(u.get("input")),
            num(u.get("output")),
            num(u.get("cacheRead")),
            num(u.get("cacheWrite")),
        );
        let total = u
            .get("totalTokens")
            .map(|t| num(Some(t)))
            .filter(|t| *t > 0.0)
            .unwrap_or(input + output + cache_read + cache_write);
        // The texts are the session's own strings, shared (no copies).
        let text = |v: Option<&Value>| match v {
            Some(Value::String(s)) => Some(s.clone()),
            _ => None,
        };
        out.push(UsagePoint {
            entry_id: text(e.value.get("id")),
            line: e.line,
            timestamp: text(e.value.get("timestamp")),
            provider: text(m.get("provider")),
            model: text(m.get("model")),
            api: text(m.get("api")),
            input,
            output,
            cache_read,
            cache_write,
            total_tokens: total,
            stop_reason: text(m.get("stopReason")),
            on_branch: on_branch[i],
            in_context: in_context[i],
        });
    }
    out
}

/// The fixed prefix, the history, totals and the likely cache breaks along the branch.
pub fn cache_facts(a: &Assembly) -> CacheFacts {
    cache_facts_from(a, super::derived::timeline(a))
}

/// [`cache_facts`] over a timeline already computed.
pub fn cache_facts_from(a: &Assembly, timeline: &[UsagePoint]) -> CacheFacts {
    // The release's token estimate (`estimateCharsPerToken`).
    let per_token = a.pi.as_ref().map_or(f64::NAN, |pi| {
        pi.data.default_number("estimateCharsPerToken")
    });
    let tokens = |chars: usize| {
        if per_token.is_nan() || per_token <= 0.0 {
            0
        } else {
            (chars as f64 / per_token).ceil() as usize
        }
    };
    let (sp, tools, history) = match a.stats() {
        Some(s) => (s.system_prompt_chars, s.tools_chars, s.history_chars),
        None => (
            crate::js::utf16_len(&a.parts.system_prompt.text),
            a.parts
                .tools
                .iter()
                .map(|t| crate::analysis::stats::tool_stat(t).chars)
                .sum(),
            0,
        ),
    };
    let mut f = CacheFacts {
        system_prompt_chars: sp,
        tools_chars: tools,
        prefix_chars: sp + tools,
        prefix_tokens_estimate: tokens(sp + tools),
        history_chars: history,
        history_tokens_estimate: tokens(history),
        ..Default::default()
    };
    // Compaction lines on the branch, to tell whether one sits between two calls.
    let compaction_lines: Vec<u32> = a
        .parts
        .session
        .as_ref()
        .map(|file| {
            a.parts
                .session_context
                .path_indices
                .iter()
                .filter_map(|&i| file.entries.get(i))
                .filter(|e| e.kind() == "compaction")
                .map(|e| e.line)
                .collect()
        })
        .unwrap_or_default();
    // Branch calls in branch order (the path runs root → leaf; file order is the same for a
    // well-formed session, but follow the path).
    let mut branch: Vec<usize> = timeline
        .iter()
        .enumerate()
        .filter(|(_, p)| p.on_branch)
        .map(|(i, _)| i)
        .collect();
    if let Some(file) = &a.parts.session {
        // Position on the path by line (lines are small and dense: a table, not a hash map).
        let max_line = file
            .entries
            .iter()
            .map(|e| e.line as usize)
            .max()
            .unwrap_or(0);
        let mut pos = vec![usize::MAX; max_line + 1];
        for (k, &i) in a.parts.session_context.path_indices.iter().enumerate() {
            if let Some(e) = file.entries.get(i) {
                pos[e.line as usize] = k;
            }
        }
        branch.sort_by_key(|&i| {
            pos.get(timeline[i].line as usize)
                .copied()
                .unwrap_or(usize::MAX)
        });
    }
    f.calls = branch.len();
    for (k, &i) in branch.iter().enumerate() {
        let p = &timeline[i];
        f.total_input += p.input;
        f.total_output += p.output;
        f.total_cache_read += p.cache_read;
        f.total_cache_write += p.cache_write;
        let same = |q: &UsagePoint| q.provider == p.provider && q.model == p.model;
        let Some(&prev) = branch[..k].iter().rev().find(|&&j| same(&timeline[j])) else {
            continue;
        };
        let q = &timeline[prev];
        if p.cache_read < q.cache_read {
            let before = &timeline[branch[k - 1]];
            let (lo, hi) = (q.line.min(p.line), q.line.max(p.line));
            f.breaks.push(CacheBreak {
                index: i,
                entry_id: p.entry_id.clone(),
                line: p.line,
                previous_index: prev,
                previous_cache_read: q.cache_read,
                cache_read: p.cache_read,
                model_changed: before.model != p.model || before.provider != p.provider,
                provider_changed: before.provider != p.provider,
                compaction_between: compaction_lines.iter().any(|&l| l > lo && l < hi),
            });
        }
    }
    let denom = f.total_input + f.total_cache_read + f.total_cache_write;
    f.cache_read_share = if denom > 0.0 {
        f.total_cache_read / denom
    } else {
        0.0
    };
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testcase::assembly;

    #[test]
    fn demo_has_six_calls_growing_cache() {
        let a = assembly("demo", None);
        let t = usage_timeline(&a);
        assert_eq!(t.len(), 6);
        assert!(t.iter().all(|p| p.on_branch && p.in_context));
        assert_eq!(t[0].entry_id.as_deref(), Some("c9756be4"));
        assert_eq!(t[0].line, 5);
        assert_eq!(
            (t[0].input, t[0].output, t[0].cache_read, t[0].total_tokens),
            (50.0, 20.0, 50.0, 120.0)
        );
        assert_eq!(t[5].stop_reason.as_deref(), Some("stop"));
        assert_eq!(t[5].model.as_deref(), Some("qwen3.8-flash"));
        assert_eq!(t[5].api.as_deref(), Some("openai-completions"));
        let f = cache_facts_from(&a, &t);
        assert_eq!(f.calls, 6);
        assert!(f.breaks.is_empty(), "cacheRead only grows in the demo");
        assert_eq!(f.prefix_chars, f.system_prompt_chars + f.tools_chars);
        assert_eq!(f.prefix_tokens_estimate, f.prefix_chars.div_ceil(4));
        assert_eq!(
            f.total_cache_read,
            50.0 + 100.0 + 150.0 + 200.0 + 250.0 + 300.0
        );
    }

    #[test]
    fn off_branch_calls_are_flagged() {
        let a = assembly("oc-session-leaf-other-branch", None);
        let t = usage_timeline(&a);
        assert!(t.iter().any(|p| !p.on_branch), "{t:?}");
        assert!(t.iter().any(|p| p.on_branch));
    }

    #[test]
    fn compacted_calls_stay_on_the_branch_but_leave_the_context() {
        let a = assembly("oc-session-compaction", None);
        let t = usage_timeline(&a);
        assert!(
            t.iter().any(|p| p.on_branch && !p.in_context) || t.iter().all(|p| p.in_context),
            "{t:?}"
        );
    }

    #[test]
    fn a_drop_in_cache_read_is_a_break_and_says_the_model_changed() {
        // Three calls: model A reads 100, model B reads 0, model A reads 10 → a break at the third.
        let a0 = assembly("demo", None);
        let mk = |id: &str, model: &str, cr: f64, line: u32| UsagePoint {
            entry_id: Some(id.into()),
            line,
            timestamp: None,
            provider: Some("p".into()),
            model: Some(model.into()),
            api: None,
            input: 5.0,
            output: 1.0,
            cache_read: cr,
            cache_write: 0.0,
            total_tokens: 6.0 + cr,
            stop_reason: None,
            on_branch: true,
            in_context: true,
        };
        let t = vec![
            mk("x1", "a", 100.0, 5),
            mk("x2", "b", 0.0, 7),
            mk("x3", "a", 10.0, 9),
        ];
        let mut a = a0.clone();
        a.parts.session = None;
        let f = cache_facts_from(&a, &t);
        assert_eq!(f.breaks.len(), 1);
        let b = &f.breaks[0];
        assert_eq!(
            (
                b.index,
                b.previous_index,
                b.previous_cache_read,
                b.cache_read
            ),
            (2, 0, 100.0, 10.0)
        );
        assert!(b.model_changed && !b.provider_changed && !b.compaction_between);
    }

    #[test]
    fn no_session_no_usage() {
        let a = assembly("oc-demo", None);
        assert!(usage_timeline(&a).is_empty());
        assert_eq!(cache_facts(&a).calls, 0);
    }
}

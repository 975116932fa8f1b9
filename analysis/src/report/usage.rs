//! The JSON of [`crate::analysis::usage`]: the report's [`types::SessionUsage`].

use super::types;
use super::wire::Wire;
use crate::analysis::usage::*;
use crate::assemble::Assembly;
use crate::js::Value;

/// The timeline as the report's types.
pub fn timeline(t: &[UsagePoint]) -> Vec<types::UsagePointInfo> {
    let text = |s: &Option<crate::js::Str>| s.as_deref().map(str::to_string);
    t.iter()
        .map(|p| types::UsagePointInfo {
            entry_id: text(&p.entry_id),
            line: p.line as usize,
            timestamp: text(&p.timestamp),
            provider: text(&p.provider),
            model: text(&p.model),
            api: text(&p.api),
            input: p.input,
            output: p.output,
            cache_read: p.cache_read,
            cache_write: p.cache_write,
            total_tokens: p.total_tokens,
            stop_reason: text(&p.stop_reason),
            on_branch: p.on_branch,
            in_context: p.in_context,
        })
        .collect()
}

/// The timeline as JSON (camelCase).
pub fn timeline_json(t: &[UsagePoint]) -> Value {
    timeline(t).to_value()
}

/// The cache facts as the report's type (the read share to four places).
pub fn cache_facts(f: &CacheFacts) -> types::CacheFactsInfo {
    let breaks = f.breaks.iter().map(|b| types::CacheDrop {
        index: b.index,
        entry_id: b.entry_id.as_deref().map(str::to_string),
        line: b.line as usize,
        previous_index: b.previous_index,
        previous_cache_read: b.previous_cache_read,
        cache_read: b.cache_read,
        model_changed: b.model_changed,
        provider_changed: b.provider_changed,
        compaction_between: b.compaction_between,
    });
    types::CacheFactsInfo {
        system_prompt_chars: f.system_prompt_chars,
        tools_chars: f.tools_chars,
        prefix_chars: f.prefix_chars,
        prefix_tokens_estimate: f.prefix_tokens_estimate,
        history_chars: f.history_chars,
        history_tokens_estimate: f.history_tokens_estimate,
        calls: f.calls,
        total_input: f.total_input,
        total_output: f.total_output,
        total_cache_read: f.total_cache_read,
        total_cache_write: f.total_cache_write,
        cache_read_share: (f.cache_read_share * 10000.0).round() / 10000.0,
        breaks: breaks.collect(),
    }
}

/// The cache facts as JSON (camelCase).
pub fn cache_facts_json(f: &CacheFacts) -> Value {
    cache_facts(f).to_value()
}

/// `{ "timeline": [...], "cache": {...} }`.
pub fn usage_json(a: &Assembly) -> Value {
    usage_json_with(a, true)
}

/// [`usage_json`], with `timeline` only when `timeline` is true (it is the session's alone: the
/// same under every protocol).
pub fn usage_json_with(a: &Assembly, with_timeline: bool) -> Value {
    session_usage(a, with_timeline).to_value()
}

/// [`usage_json_with`] as the report's type.
pub fn session_usage(a: &Assembly, with_timeline: bool) -> types::SessionUsage {
    let t = crate::analysis::derived::timeline(a);
    let f = cache_facts_from(a, t);
    types::SessionUsage {
        timeline: with_timeline.then(|| timeline(t)).into(),
        cache: cache_facts(&f),
    }
}

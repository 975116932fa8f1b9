//! The JSON of [`crate::analysis::usage`].

use super::opt_str;
use crate::analysis::usage::*;
use crate::assemble::Assembly;
use crate::js::{Object, Value};

/// The timeline as JSON (camelCase).
pub fn timeline_json(t: &[UsagePoint]) -> Value {
    Value::Array(
        t.iter()
            .map(|p| {
                Object::new()
                    .with("entryId", opt_str(p.entry_id.as_deref()))
                    .with("line", p.line)
                    .with("timestamp", opt_str(p.timestamp.as_deref()))
                    .with("provider", opt_str(p.provider.as_deref()))
                    .with("model", opt_str(p.model.as_deref()))
                    .with("api", opt_str(p.api.as_deref()))
                    .with("input", p.input)
                    .with("output", p.output)
                    .with("cacheRead", p.cache_read)
                    .with("cacheWrite", p.cache_write)
                    .with("totalTokens", p.total_tokens)
                    .with("stopReason", opt_str(p.stop_reason.as_deref()))
                    .with("onBranch", p.on_branch)
                    .with("inContext", p.in_context)
                    .into()
            })
            .collect(),
    )
}

/// The cache facts as JSON (camelCase).
pub fn cache_facts_json(f: &CacheFacts) -> Value {
    let breaks: Vec<Value> = f
        .breaks
        .iter()
        .map(|b| {
            Object::new()
                .with("index", b.index)
                .with("entryId", opt_str(b.entry_id.as_deref()))
                .with("line", b.line)
                .with("previousIndex", b.previous_index)
                .with("previousCacheRead", b.previous_cache_read)
                .with("cacheRead", b.cache_read)
                .with("modelChanged", b.model_changed)
                .with("providerChanged", b.provider_changed)
                .with("compactionBetween", b.compaction_between)
                .into()
        })
        .collect();
    Object::new()
        .with("systemPromptChars", f.system_prompt_chars)
        .with("toolsChars", f.tools_chars)
        .with("prefixChars", f.prefix_chars)
        .with("prefixTokensEstimate", f.prefix_tokens_estimate)
        .with("historyChars", f.history_chars)
        .with("historyTokensEstimate", f.history_tokens_estimate)
        .with("calls", f.calls)
        .with("totalInput", f.total_input)
        .with("totalOutput", f.total_output)
        .with("totalCacheRead", f.total_cache_read)
        .with("totalCacheWrite", f.total_cache_write)
        .with(
            "cacheReadShare",
            (f.cache_read_share * 10000.0).round() / 10000.0,
        )
        .with("breaks", Value::Array(breaks))
        .into()
}

/// `{ "timeline": [...], "cache": {...} }`.
pub fn usage_json(a: &Assembly) -> Value {
    usage_json_with(a, true)
}

/// [`usage_json`], with `timeline` only when `timeline` is true (it is the session's alone: the
/// same under every protocol).
pub fn usage_json_with(a: &Assembly, timeline: bool) -> Value {
    let t = usage_timeline(a);
    let f = cache_facts_from(a, &t);
    let mut o = Object::new();
    if timeline {
        o.insert("timeline", timeline_json(&t));
    }
    o.insert("cache", cache_facts_json(&f));
    o.into()
}

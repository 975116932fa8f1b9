//! Usage: likely cache breaks along the branch.

use super::*;

pub(super) fn check(cx: &Ctx, list: &mut List) {
    let a = cx.a;
    let timeline = &cx.timeline;
    let facts = crate::analysis::usage::cache_facts_from(a, timeline);
    if !facts.breaks.is_empty() {
        let b = &facts.breaks[0];
        let with_switch = facts.breaks.iter().filter(|b| b.model_changed).count();
        list.push(
            "cache-breaks",
            Severity::Notice,
            format!("cacheRead dropped at {}", plural(facts.breaks.len(), "call", "calls")),
            format!(
                "First at line {}: {} → {} cached tokens{}. {} of {} followed a model or provider switch.",
                b.line,
                thousands(b.previous_cache_read as usize),
                thousands(b.cache_read as usize),
                if b.compaction_between { " after a compaction" } else { "" },
                with_switch,
                facts.breaks.len()
            ),
            None,
            b.entry_id.as_ref().map(|id| format!("entry:{id}")),
        );
    }
}

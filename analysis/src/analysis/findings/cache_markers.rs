//! No cache markers where the protocol has them.

use super::*;

pub(super) fn check(cx: &Ctx, list: &mut List) {
    let a = cx.a;
    let model = cx.model;
    if let (Some(r), Some(m)) = (&a.request, model) {
        let explicit = matches!(m.api(), "anthropic-messages" | "bedrock-converse-stream");
        // Only the explicit-marker protocols need the (whole-body) search.
        let has_cache = explicit
            && (contains_at_anchor(&r.body, "\"cache_control\"", 6)
                || contains_at_anchor(&r.body, "\"cachePoint\"", 6));
        let gaps: Vec<&Event> = events(a, StageId::BuildParams)
            .filter(|e| e.kind == EventKind::Note && at(e, CACHE_GAPS))
            .collect();
        if explicit && !has_cache {
            list.push(
                "no-cache-markers",
                Severity::Warning,
                "No cache markers in a protocol that needs them",
                format!("{} caches only what is marked, and this request marks nothing: every call pays for the whole prompt.", m.api()),
                Some(StageId::BuildParams),
                None,
            );
        } else if !gaps.is_empty() {
            list.push(
                "no-cache-markers",
                Severity::Notice,
                "Part of the request carries no cache marker",
                gaps.iter()
                    .map(|e| e.message.as_str())
                    .collect::<Vec<_>>()
                    .join("; "),
                Some(StageId::BuildParams),
                None,
            );
        }
    }
}

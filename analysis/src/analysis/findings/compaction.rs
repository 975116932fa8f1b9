//! Compaction in effect.

use super::*;

pub(super) fn check(cx: &Ctx, list: &mut List) {
    let a = cx.a;
    let pi = cx.pi;
    let p = cx.p;
    if let (Some(cid), Some(file)) = (&p.session_context.compaction_id, &p.session) {
        let ctx = &p.session_context;
        let cut = ctx
            .path_indices
            .len()
            .saturating_sub(ctx.context_indices.len());
        let summary = ctx
            .messages
            .iter()
            .find(|m| m.get_str("role") == Some("compactionSummary"))
            .and_then(|m| m.get_str("summary"))
            .map(utf16_len)
            .unwrap_or(0);
        let line = file
            .entries
            .iter()
            .find(|e| e.id() == Some(cid.as_str()))
            .map(|e| e.line);
        list.push(
            "compaction",
            Severity::Info,
            "A compaction summary stands in for the earlier conversation",
            format!(
                "Compaction {}{}: {} on the branch not sent, replaced by a summary of {} chars.{}",
                cid,
                line.map(|l| format!(" (line {l})")).unwrap_or_default(),
                plural(cut, "entry", "entries"),
                thousands(summary),
                if pi.rules.transcript {
                    transcript::checkpoint_note(a).unwrap_or_default()
                } else {
                    String::new()
                }
            ),
            Some(StageId::SessionRead),
            Some(format!("entry:{cid}")),
        );
    }
}

//! Entries off the active branch.

use super::*;

pub(super) fn check(cx: &Ctx, list: &mut List) {
    let p = cx.p;
    let timeline = &cx.timeline;
    if let Some(file) = &p.session {
        let mut on = vec![false; file.entries.len()];
        for &i in &p.session_context.path_indices {
            if let Some(b) = on.get_mut(i) {
                *b = true;
            }
        }
        let off: Vec<usize> = (0..file.entries.len()).filter(|&i| !on[i]).collect();
        if !off.is_empty() {
            let calls = timeline.iter().filter(|t| !t.on_branch).count();
            list.push(
                "off-branch",
                Severity::Info,
                format!("{} on other branches", plural(off.len(), "entry", "entries")),
                format!(
                    "The request follows the branch to leaf {}; {} ({} of them assistant calls) are elsewhere in the tree and not sent.",
                    p.session_context.leaf_id.as_deref().unwrap_or("?"),
                    plural(off.len(), "entry", "entries"),
                    calls
                ),
                Some(StageId::SessionRead),
                off.iter().find_map(|&i| file.entries[i].id()).map(|id| format!("entry:{id}")),
            );
        }
    }
}

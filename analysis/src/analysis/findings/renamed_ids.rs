//! Tool-call ids renamed; tool names renamed.

use super::*;

pub(super) fn check(cx: &Ctx, list: &mut List) {
    let a = cx.a;
    let renames: Vec<&Event> = all_events(a)
        .filter(|(_, e)| {
            e.kind == EventKind::Renamed && !at(e, TOOL_NAME_RENAMES) && !at(e, RENAME_ECHOES)
        })
        .map(|(_, e)| e)
        .collect();
    if !renames.is_empty() {
        list.push(
            "tool-call-ids-renamed",
            Severity::Notice,
            format!("{} rewritten", plural(renames.len(), "tool-call id", "tool-call ids")),
            format!(
                "The protocol does not accept the ids other providers produced, so pi rewrites them (and their results' ids). First: {}",
                renames[0].message
            ),
            Some(StageId::TransformMessages),
            None,
        );
    }
    let name_renames = all_events(a)
        .filter(|(_, e)| e.kind == EventKind::Renamed && at(e, TOOL_NAME_RENAMES))
        .count();
    if name_renames > 0 {
        list.push(
            "tool-names-renamed",
            Severity::Notice,
            format!("{} sent under another name", plural(name_renames, "tool name", "tool names")),
            "With an OAuth token, tool names matching Claude Code's are sent in its casing, in definitions and in history.".to_string(),
            Some(StageId::BuildParams),
            None,
        );
    }
}

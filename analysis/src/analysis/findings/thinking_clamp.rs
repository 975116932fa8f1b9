//! A silent thinking clamp.

use super::*;

pub(super) fn check(cx: &Ctx, list: &mut List) {
    let a = cx.a;
    let p = cx.p;
    let model = cx.model;
    let c = &p.model_choice;
    if model.is_some() && !c.requested_level.is_empty() && c.requested_level != c.thinking_level {
        let why = events(a, StageId::AgentContext)
            .find(|e| e.kind == EventKind::Clamped && at(e, &[THINKING_CLAMP]))
            .map(|e| e.message.clone());
        list.push(
            "thinking-clamped",
            Severity::Warning,
            format!(
                "Thinking level {} was sent as {}",
                c.requested_level, c.thinking_level
            ),
            format!(
                "{} asked for {}, {} takes {}: pi clamps the level without a word.{}",
                if c.level_source.is_empty() {
                    "the default"
                } else {
                    &c.level_source
                },
                c.requested_level,
                model.map(|m| m.reference()).unwrap_or_default(),
                c.thinking_level,
                why.map(|w| format!(" ({w})")).unwrap_or_default()
            ),
            Some(StageId::AgentContext),
            None,
        );
    }
    let budget: Vec<&Event> = events(a, StageId::BuildParams)
        .filter(|e| e.kind == EventKind::Clamped && !at(e, &[MAX_TOKENS_CLAMP]))
        .collect();
    if !budget.is_empty() {
        list.push(
            "thinking-budget-clamped",
            Severity::Notice,
            "The thinking budget was cut",
            budget
                .iter()
                .map(|e| e.message.as_str())
                .collect::<Vec<_>>()
                .join("; "),
            Some(StageId::BuildParams),
            None,
        );
    }
}

//! Thinking levels (AI/models.js, CA/cli/args.js).

use crate::js::Value;
use crate::trace::{Event, EventKind, Events};

use super::Model;

/// Thinking levels in pi's order.
pub const THINKING_LEVELS: [&str; 7] = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];

/// `isValidThinkingLevel(level)` (CA/cli/args.js:6–9).
pub fn is_valid_thinking_level(level: &str) -> bool {
    THINKING_LEVELS.contains(&level)
}

/// `getSupportedThinkingLevels(model)` (AI/models.js:551–562).
pub fn supported_thinking_levels(model: &Model) -> Vec<&'static str> {
    if !model.reasoning() {
        return vec!["off"];
    }
    let map = model.obj.get("thinkingLevelMap");
    THINKING_LEVELS
        .iter()
        .copied()
        .filter(|level| {
            let mapped = map.and_then(|m| m.get(level));
            match mapped {
                Some(Value::Null) => false,
                _ if *level == "xhigh" || *level == "max" => mapped.is_some(),
                _ => true,
            }
        })
        .collect()
}

/// `clampThinkingLevel(model, level)` (AI/models.js:563–580): a supported level is kept; else the
/// nearest supported level above, else below. Records the change.
pub fn clamp_thinking_level(model: &Model, level: &str, events: &mut Events) -> String {
    let available = supported_thinking_levels(model);
    if available.contains(&level) {
        return level.to_string();
    }
    let first = available.first().copied().unwrap_or("off");
    let clamped = match THINKING_LEVELS.iter().position(|l| *l == level) {
        None => first,
        Some(requested) => THINKING_LEVELS[requested..]
            .iter()
            .chain(THINKING_LEVELS[..requested].iter().rev())
            .copied()
            .find(|l| available.contains(l))
            .unwrap_or(first),
    };
    let why = if model.reasoning() {
        format!("{} supports {}", model.reference(), available.join(", "))
    } else {
        format!("{} is not a reasoning model", model.reference())
    };
    events.push(
        Event::new(
            EventKind::Clamped,
            format!("thinking level {level} → {clamped} ({why})"),
        )
        .at("AI/models.js:563"),
    );
    clamped.to_string()
}

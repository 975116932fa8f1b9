//! The header's strip of sizes (system prompt, tools, history) of the report on screen.

use ctxlens::js::Value;
use yew::prelude::*;

use super::util::*;
use crate::shared::Shared;

#[derive(Properties, PartialEq)]
pub(super) struct StatsStripProps {
    pub(super) report: Option<Shared<Value>>,
}

/// The compact character accounting in the header (UTF-16 code units, as pi counts).
#[function_component(StatsStrip)]
pub(super) fn stats_strip(p: &StatsStripProps) -> Html {
    let stats = p
        .report
        .as_ref()
        .and_then(|r| r.get("stats").cloned())
        .filter(|s| !s.is_null());
    let Some(stats) = stats else {
        return html! { <div class="stats-strip empty" aria-label="character accounting">{"no request"}</div> };
    };
    let part = |key: &str| num(stats.get(key).and_then(|x| x.get("chars")));
    let (sp, tl, hi) = (part("systemPrompt"), part("tools"), part("history"));
    let total = (sp + tl + hi).max(1.0);
    let item = |cls: &'static str, label: &'static str, id: &'static str, n: f64| {
        html! {
            <div class={classes!("stat", cls)} title={format!("{label}: {n} characters, {:.1}% of the three", n / total * 100.0)}>
                <span class="swatch" aria-hidden="true"></span>
                <span class="stat-label">{label}</span>
                <span class="stat-num" data-testid={id}>{n}</span>
                <span class="stat-share">{format!("{:.0}%", n / total * 100.0)}</span>
            </div>
        }
    };
    html! {
        <div class="stats-strip" aria-label="where the characters go">
            <div class="share-bar" role="img" aria-label={format!("system prompt {:.0}%, tools {:.0}%, history {:.0}%", sp / total * 100.0, tl / total * 100.0, hi / total * 100.0)}>
                <span class="seg system" style={format!("width:{:.2}%", sp / total * 100.0)}></span>
                <span class="seg tools" style={format!("width:{:.2}%", tl / total * 100.0)}></span>
                <span class="seg history" style={format!("width:{:.2}%", hi / total * 100.0)}></span>
            </div>
            { item("system", "system", "stat-system-chars", sp) }
            { item("tools", "tools", "stat-tools-chars", tl) }
            { item("history", "history", "stat-history-chars", hi) }
        </div>
    }
}

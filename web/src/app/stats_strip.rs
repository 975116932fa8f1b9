//! The header's strip of sizes (system prompt, tools, history) of the report on screen.

use yew::prelude::*;

use crate::shared::Shared;

#[derive(Properties, PartialEq)]
pub(super) struct StatsStripProps {
    pub(super) report: Option<Shared<crate::report::Report>>,
    /// The report's token counts, when the worker has them.
    #[prop_or_default]
    pub(super) tokens: Option<crate::worker::TokenUpdate>,
}

/// The compact character accounting in the header (UTF-16 code units, as pi counts).
#[function_component(StatsStrip)]
pub(super) fn stats_strip(p: &StatsStripProps) -> Html {
    let Some(stats) = p.report.as_ref().and_then(|r| r.stats.as_ref()) else {
        return html! { <div class="stats-strip empty" aria-label="character accounting">{"no request"}</div> };
    };
    let (sp, tl, hi) = (
        stats.system_prompt.chars as f64,
        stats.tools.chars as f64,
        stats.history.chars as f64,
    );
    // The core's shares (`stats.shares`: of system prompt + tools + history), the denominator
    // the overview and the findings use too.
    let sh = &stats.shares;
    let (ssp, stl, shi) = (
        sh.system_prompt * 100.0,
        sh.tools * 100.0,
        sh.history * 100.0,
    );
    let counted = match &p.tokens {
        Some(crate::worker::TokenUpdate::Ready { stats, .. }) => Some(stats.clone()),
        _ => None,
    };
    let tokens_of = |cls: &str| {
        let s = counted.as_ref()?;
        let n = match cls {
            "system" => *s.system_prompt.tokens,
            "tools" => *s.tools.tokens,
            _ => *s.history.tokens,
        };
        n.map(|n| n as f64)
    };
    let estimate = counted
        .as_ref()
        .is_some_and(|s| !s.tokenizer.as_ref().is_some_and(|t| t.exact));
    let item = |cls: &'static str, label: &'static str, id: &'static str, n: f64, pct: f64| {
        let tokens = tokens_of(cls);
        html! {
            <div class={classes!("stat", cls)} title={format!("{label}: {n} characters{}, {pct:.1}% of system prompt + tools + history", tokens.map(|t| format!(" ({}{t} tokens)", if estimate { "≈ " } else { "" })).unwrap_or_default())}>
                <span class="swatch" aria-hidden="true"></span>
                <span class="stat-label">{label}</span>
                <span class="stat-num" data-testid={id}>{n}</span>
                if let Some(t) = tokens {
                    <span class="stat-tokens" data-testid={id.replace("-chars", "-tokens")}>{format!("{}{} tok", if estimate { "≈" } else { "" }, crate::views::thousands(t))}</span>
                }
                <span class="stat-share" data-testid={format!("{id}-share")}>{format!("{pct:.0}%")}</span>
            </div>
        }
    };
    html! {
        <div class="stats-strip" aria-label="where the characters go">
            <div class="share-bar" role="img" aria-label={format!("system prompt {ssp:.0}%, tools {stl:.0}%, history {shi:.0}%")}>
                <span class="seg system" style={format!("width:{ssp:.2}%")}></span>
                <span class="seg tools" style={format!("width:{stl:.2}%")}></span>
                <span class="seg history" style={format!("width:{shi:.2}%")}></span>
            </div>
            { item("system", "system", "stat-system-chars", sp, ssp) }
            { item("tools", "tools", "stat-tools-chars", tl, stl) }
            { item("history", "history", "stat-history-chars", hi, shi) }
        </div>
    }
}

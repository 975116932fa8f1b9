//! The header's strip of sizes (system prompt, tools, history) of the report on screen.

use ctxlens::js::Value;
use yew::prelude::*;

use super::util::*;
use crate::shared::Shared;

#[derive(Properties, PartialEq)]
pub(super) struct StatsStripProps {
    pub(super) report: Option<Shared<Value>>,
    /// The report's token counts, when the worker has them.
    #[prop_or_default]
    pub(super) tokens: Option<crate::worker::TokenUpdate>,
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
    // The core's shares (`stats.shares`: of system prompt + tools + history), the denominator
    // the overview and the findings use too.
    let share = |key: &str| num(stats.get("shares").and_then(|x| x.get(key))) * 100.0;
    let (ssp, stl, shi) = (share("systemPrompt"), share("tools"), share("history"));
    let counted = match &p.tokens {
        Some(crate::worker::TokenUpdate::Ready {
            stats, vocabulary, ..
        }) => Some((stats.clone(), vocabulary.clone())),
        _ => None,
    };
    let tokens_of = |key: &str| {
        counted.as_ref().and_then(|(s, _)| {
            s.get(key)
                .and_then(|x| x.get("tokens"))
                .and_then(Value::as_f64)
        })
    };
    let estimate = counted.as_ref().is_some_and(|(s, _)| {
        s.get("tokenizer")
            .and_then(|t| t.get("exact"))
            .and_then(Value::as_bool)
            != Some(true)
    });
    let item = |cls: &'static str, label: &'static str, id: &'static str, n: f64, pct: f64| {
        let key = match cls {
            "system" => "systemPrompt",
            other => other,
        };
        let tokens = tokens_of(key);
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

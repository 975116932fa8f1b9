//! The whole request at a glance: its shares, a treemap of every part, the model.

use ctxlens::report::types::EventKind;
use yew::prelude::*;

use super::components::charts::{Seg, StackedBar};
use super::components::treemap::{TmGroup, TmItem, Treemap};
use super::components::{pct, thousands};
use super::tokens::{TokenNote, Tokens};
use super::util::{base_name, not_available};
use super::ViewProps;

/// The history's kinds as the body holds them (`stats.history.byKind`); they add up to
/// `history.chars`.
pub const KIND_LABELS: [(&str, &str); 8] = [
    ("userText", "user text"),
    ("assistantText", "assistant text"),
    ("reasoning", "thinking"),
    ("signatures", "thinking signatures"),
    ("toolArguments", "tool arguments"),
    ("toolResults", "tool results"),
    ("images", "images"),
    ("imageData", "image data"),
];

/// A section's display label: `guidelines · edit`, `context-file · AGENTS.md`.
pub fn section_label(name: &str, source: &str) -> String {
    if source == "pi" || source.is_empty() {
        name.to_string()
    } else {
        format!("{name} · {}", base_name(source))
    }
}

#[function_component]
pub fn OverviewView(p: &ViewProps) -> Html {
    // The skip link moves the focus past the treemap's parts (a button, not a `#` link: the
    // hash holds the view state).
    let after = use_node_ref();
    let skip = {
        let after = after.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(el) = after.cast::<web_sys::HtmlElement>() {
                let _ = el.focus();
            }
        })
    };
    let r = &*p.report;
    let Some(stats) = r.stats.as_ref() else {
        return html! { <section class="overview">{not_available("No request was assembled, so there is nothing to measure yet (see the diagnostics).")}</section> };
    };
    let sp = stats.system_prompt.chars as f64;
    let tl = stats.tools.chars as f64;
    let hi = stats.history.chars as f64;
    let body = stats.body.chars as f64;
    let rest = (body - sp - tl - hi).max(0.0);
    // Shares of system prompt + tools + history, as the header's strip and the findings give
    // them (the core's `stats.shares`); the body's JSON structure is said apart.
    let segs = vec![
        Seg::new("System prompt", sp, "var(--system)"),
        Seg::new("Tools", tl, "var(--tools)"),
        Seg::new("History", hi, "var(--history)"),
    ];
    let shares = &stats.shares;
    let est = &r.estimate;
    let (tokens, window) = (est.tokens.unwrap_or(0.0), est.context_window.unwrap_or(0.0));
    let over = window > 0.0 && tokens > window;
    let groups = treemap_groups(stats, rest);
    let m = r.model.clone().unwrap_or_default();
    let t = Tokens::of(p);
    let (t_sp, t_tl, t_hi) = (
        t.read(|s| *s.system_prompt.tokens),
        t.read(|s| *s.tools.tokens),
        t.read(|s| *s.history.tokens),
    );
    let counted = match (t_sp, t_tl, t_hi) {
        (Some(a), Some(b), Some(c)) => Some(a + b + c),
        _ => None,
    };
    let window_m = m.context_window;
    // The request itself over the window while pi's estimate is under it (its last reported
    // usage plus what followed): its characters at pi's 4 per token, as the finding counts it.
    let body_tokens = (body / 4.0).ceil();
    let body_over = (window > 0.0 && !over && body_tokens > window).then_some(body_tokens);
    let flagged = over || body_over.is_some();
    // pi's compaction threshold (`contextWindow - reserveTokens`), when compaction is on.
    let compaction = t.compaction().map(|w| &w.compaction);
    let threshold = compaction.filter(|c| c.enabled).and_then(|c| c.threshold);
    let compaction_line = compaction.map(|c| compaction_line(c, tokens));
    let stages = &r.stages;
    let changes: usize = stages
        .iter()
        .map(|st| st.event_count() - st.count_of(EventKind::Note))
        .sum();
    html! {
        <section class="overview" data-testid="overview">
            <div class="cards">
                <div class="card"><div class="k">{"Model"}</div><div class="v mono model-name" data-testid="model-name" title={m.key()}>{format!("{}/", m.provider.as_str())}<wbr /><span class="model-id">{m.id.as_str()}</span></div><div class="sub mono">{m.api.as_str()}</div></div>
                <div class="card"><div class="k">{"Thinking"}</div><div class="v">{m.thinking.as_str()}</div>
                    <div class="sub">{ if m.thinking_requested.as_str() != m.thinking.as_str() { format!("requested {} ({})", m.thinking_requested.as_str(), m.thinking_source.as_str()) } else { m.thinking_source.as_str().to_string() } }</div></div>
                <div class="card"><div class="k">{"Body"}</div><div class="v">{format!("{} bytes", thousands(stats.body.bytes as f64))}</div>
                    <div class="sub">{format!("{} chars", thousands(body))}</div></div>
                { tokens_card(&t, counted, window_m, threshold, super::util::chars_per_token(r).map(|c| (sp + tl + hi, c))) }
                if window > 0.0 {
                    <div class={classes!("card", flagged.then_some("flag"))} data-testid="context-card" data-over={flagged.to_string()}
                        title="pi's own estimate of the context (the last reported usage plus the messages after it, else the characters at the release's chars per token) beside the model's context window; pi's auto-compaction watches this estimate">
                        <div class="k">{"Context (pi's estimate)"}</div>
                        <div class="v">{format!("≈ {} tokens", thousands(tokens))}</div>
                        <div class="sub">{ if over { format!("over the model's window of {} tokens", thousands(window)) } else { format!("{} of the model's {} token window", pct(tokens, window), thousands(window)) } }</div>
                        if let Some(n) = body_over {
                            <div class="sub" data-testid="body-over-window">{format!("but this request itself is ≈ {} tokens (its characters at 4 per token): it does not fit, and pi's compaction, which watches its estimate, would not start", thousands(n))}</div>
                        }
                        if let Some((line, to_go)) = compaction_line.clone() {
                            <div class="sub" data-testid="compaction-line" data-to-go={to_go.map(|x| x.to_string())}
                                title="pi's automatic compaction (settings.json compaction: enabled, reserveTokens, keepRecentTokens): after an answer whose context (the usage the provider reported, else pi's estimate) is past the model's window minus reserveTokens, pi summarizes the older messages and keeps about keepRecentTokens of the newest">{line}</div>
                        }
                    </div>
                }
                <div class="card"><div class="k">{"Pipeline"}</div><div class="v">{format!("{} stages", stages.len())}</div><div class="sub">{format!("{changes} changes recorded")}</div></div>
            </div>
            <TokenNote tokens={p.tokens.clone()} model={m.key()} />
            <h3>{"Where the characters go"}</h3>
            <StackedBar segs={segs} testid="overview-shares" />
            <p class="muted small" data-testid="overview-share-line">{format!("System prompt {:.1}% · tools {:.1}% · history {:.1}% of their {} characters (UTF-16 units, as JS counts them); the body adds {} characters of JSON structure and parameters ({} in all).",
                shares.system_prompt * 100.0, shares.tools * 100.0, shares.history * 100.0, thousands(sp + tl + hi), thousands(rest), thousands(body))}</p>
            if counted.is_some() {
                <p class="muted small" data-testid="overview-token-line">{format!("In tokens: system prompt {} · tools {} · history {} ({}{}).",
                    t.cell(t_sp), t.cell(t_tl), t.cell(t_hi),
                    t.phrase(counted), if t.estimate() { "" } else { ", without the chat template's framing" })}</p>
            }
            <h3>{"The whole request"}<span class="muted small">{format!(" · {} chars; click a part to select it", thousands(body))}</span></h3>
            <button class="skip-link" data-testid="skip-treemap" onclick={skip}>{"Skip past the treemap"}</button>
            <Treemap groups={groups} testid="treemap" selected={p.selection.clone()} on_select={p.on_select.clone()} />
            <div id="after-treemap" class="after-treemap" tabindex="-1" ref={after.clone()} data-testid="after-treemap"></div>
        </section>
    }
}

/// The treemap's groups: the system prompt by section, the tools, the history by kind, and
/// the body's JSON structure (`rest` characters).
fn treemap_groups(stats: &ctxlens::report::types::Stats, rest: f64) -> Vec<TmGroup> {
    vec![
        TmGroup {
            label: "System prompt".into(),
            color: "var(--system)".into(),
            items: stats
                .system_prompt
                .sections
                .iter()
                .enumerate()
                .map(|(i, x)| TmItem {
                    label: section_label(&x.name, &x.source),
                    value: x.chars as f64,
                    key: Some(format!("section:{i}")),
                })
                .collect(),
        },
        TmGroup {
            label: "Tools".into(),
            color: "var(--tools)".into(),
            items: stats
                .tools
                .by_tool
                .iter()
                .map(|t| TmItem {
                    label: t.name.clone(),
                    value: t.chars as f64,
                    key: Some(format!("tool:{}", t.name)),
                })
                .collect(),
        },
        TmGroup {
            label: "History".into(),
            color: "var(--history)".into(),
            items: KIND_LABELS
                .iter()
                .map(|(k, l)| TmItem {
                    label: (*l).into(),
                    value: stats.history.by_kind.of(k).unwrap_or(0) as f64,
                    key: Some(format!("kind:{k}")),
                })
                .collect(),
        },
        TmGroup {
            label: "Structure".into(),
            color: "var(--v-structure)".into(),
            items: vec![TmItem {
                label: "JSON syntax, keys, parameters".into(),
                value: rest,
                key: None,
            }],
        },
    ]
}

/// The compaction settings' line (`c`: the worker's `compaction`), with the tokens to go
/// before pi compacts (`tokens`: pi's estimate of the context), when it is on.
fn compaction_line(
    c: &ctxlens::report::calibration::CompactionInfo,
    tokens: f64,
) -> (String, Option<f64>) {
    let reserve = c.reserve_tokens.unwrap_or(0.0);
    if let Some(e) = &*c.error {
        (format!("pi refuses the compaction settings: {e}"), None)
    } else if !c.enabled {
        (
            "compaction is off in the settings (compaction.enabled)".to_string(),
            None,
        )
    } else {
        let th = c.threshold.unwrap_or(0.0);
        let to_go = th - tokens;
        (
            if to_go >= 0.0 {
                format!(
                    "pi compacts past {} tokens (the window − reserveTokens {}): {} to go",
                    thousands(th),
                    thousands(reserve),
                    thousands(to_go)
                )
            } else {
                format!("past pi's compaction threshold of {} tokens (the window − reserveTokens {}) by {}: pi compacts after the next answer", thousands(th), thousands(reserve), thousands(-to_go))
            },
            Some(to_go),
        )
    }
}

/// The Tokens card: the counted tokens of the three blocks (`counted`), as a share of the
/// model's window (`window`) and against pi's compaction `threshold`; without a count, pi's
/// rule of thumb (`rough`: the blocks' characters and its characters per token).
fn tokens_card(
    t: &Tokens,
    counted: Option<f64>,
    window: f64,
    threshold: Option<f64>,
    rough: Option<(f64, f64)>,
) -> Html {
    html! {
        <div class={classes!("card", "tokens-card", t.estimate().then_some("estimate"))} data-testid="tokens-card" data-tokens={counted.map(|n| n.to_string())}
            title={format!("{} {}", super::tokens::VOCABULARY_HELP, super::tokens::FRAMING_HELP)}>
            <div class="k">{ if t.estimate() { "Tokens (estimate)" } else { "Tokens" } }</div>
            <div class="v" data-testid="overview-tokens">{ match counted { Some(n) if t.estimate() => format!("≈ {}", thousands(n)), Some(n) => thousands(n), None => t.cell(None) } }</div>
            <div class="sub">
                { match (counted, window > 0.0) {
                    (Some(n), true) => format!("system prompt + tools + history: {} of the model's {} token window{}", pct(n, window), thousands(window),
                        match threshold { Some(th) if n <= th => format!(", {} below pi's compaction threshold", thousands(th - n)), Some(th) => format!(", {} past pi's compaction threshold", thousands(n - th)), None => String::new() }),
                    (Some(_), false) => "system prompt + tools + history".to_string(),
                    (None, _) => match rough {
                        // Until (or without) a count: pi's own rule of thumb, said as such.
                        Some((chars, c)) => format!("pi's rule of thumb: ≈ {} at {} chars/token", thousands((chars / c).ceil()), ctxlens::js::number_to_string(c)),
                        None => String::new(),
                    },
                } }
            </div>
        </div>
    }
}

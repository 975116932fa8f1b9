//! Usage and cache: the usage pi recorded on each assistant message (input, cache read/write,
//! output per call) as a chart, beside the fixed prefix (system prompt + tools) and the growing
//! history; where the cache broke. Reads the report's `usage` (timeline + cache facts).

use ctxlens::js::Value;
use yew::prelude::*;

use super::components::charts::{Column, Columns, Seg, StackedBar};
use super::components::{color, pct, thousands};
use super::util::{arr, at, not_available, num, s, select};
use super::ViewProps;

fn truthy(v: &Value, k: &str) -> bool {
    v.get(k).and_then(Value::as_bool) == Some(true)
}

fn break_reason(b: &Value) -> String {
    let mut why = Vec::new();
    if truthy(b, "modelChanged") {
        why.push("another model ran just before");
    }
    if truthy(b, "providerChanged") {
        why.push("the provider changed");
    }
    if truthy(b, "compactionBetween") {
        why.push("a compaction rewrote the history");
    }
    if why.is_empty() {
        why.push("the prefix changed (system prompt, tools or an earlier message) or the cache expired");
    }
    why.join("; ")
}

#[function_component]
pub fn UsageView(p: &ViewProps) -> Html {
    let r = &*p.report;
    let st = r.get("stats").cloned().unwrap_or_default();
    let sp = at(&st, &["systemPrompt", "chars"]).and_then(Value::as_f64).unwrap_or(0.0);
    let tl = at(&st, &["tools", "chars"]).and_then(Value::as_f64).unwrap_or(0.0);
    let hi = at(&st, &["history", "chars"]).and_then(Value::as_f64).unwrap_or(0.0);
    let prefix_bar = html! {
        <div class="prefix">
            <h4>{"This request: the fixed prefix and the growing history"}</h4>
            <StackedBar testid="usage-prefix" segs={vec![
                Seg::new("system prompt (fixed)", sp, "var(--system)"),
                Seg::new("tools (fixed)", tl, "var(--tools)"),
                Seg::new("history (grows every turn)", hi, "var(--history)"),
            ]} />
            <p class="muted small">{format!("Every call repeats the same {} chars prefix (≈ {} tokens) first; a provider's prompt cache can only reuse it while it stays byte-identical.", thousands(sp + tl), thousands(((sp + tl) / 4.0).ceil()))}</p>
        </div>
    };
    let Some(u) = r.get("usage").filter(|v| !v.is_null()) else {
        return html! {
            <section class="usage-view" data-testid="usage-view">
                <h3>{"Usage and cache"}</h3>
                {not_available("The per-call usage timeline is not available in this build of the core.")}
                {prefix_bar}
            </section>
        };
    };
    let timeline = arr(u, "timeline");
    let cache = u.get("cache").cloned().unwrap_or_default();
    let breaks = arr(&cache, "breaks");
    let series = vec![
        ("cache read".to_string(), color(2)),
        ("cache write".to_string(), color(1)),
        ("input (uncached)".to_string(), color(0)),
        ("output".to_string(), color(3)),
    ];
    let columns: Vec<Column> = timeline
        .iter()
        .enumerate()
        .map(|(i, t)| Column {
            label: format!("call {} · line {} · {}", i + 1, num(t, "line"), t.get_str("model").unwrap_or("")),
            values: vec![num(t, "cacheRead"), num(t, "cacheWrite"), num(t, "input"), num(t, "output")],
            mark: breaks.iter().find(|b| num(b, "index") as usize == i).map(|b| format!("cache break: {}", break_reason(b))),
        })
        .collect();
    let read_share = num(&cache, "cacheReadShare");
    html! {
        <section class="usage-view" data-testid="usage-view">
            <h3>{"Usage and cache"}<span class="muted small">{format!(" · {} calls recorded in the session", timeline.len())}</span></h3>
            <div class="cards">
                <div class="card"><div class="k">{"Prefix"}</div><div class="v">{format!("{} chars", thousands(num(&cache, "prefixChars")))}</div><div class="sub">{format!("≈ {} tokens: system prompt + tools", thousands(num(&cache, "prefixTokensEstimate")))}</div></div>
                <div class="card"><div class="k">{"History"}</div><div class="v">{format!("{} chars", thousands(num(&cache, "historyChars")))}</div><div class="sub">{format!("≈ {} tokens", thousands(num(&cache, "historyTokensEstimate")))}</div></div>
                <div class="card"><div class="k">{"Cache read"}</div><div class="v" data-testid="cache-read-share">{format!("{:.1}%", read_share * 100.0)}</div><div class="sub">{format!("{} of {} input tokens", thousands(num(&cache, "totalCacheRead")), thousands(num(&cache, "totalInput") + num(&cache, "totalCacheRead") + num(&cache, "totalCacheWrite")))}</div></div>
                <div class="card"><div class="k">{"Output"}</div><div class="v">{thousands(num(&cache, "totalOutput"))}</div><div class="sub">{format!("{} calls on the branch", thousands(num(&cache, "calls")))}</div></div>
            </div>
            if timeline.is_empty() {
                <p class="muted">{"The session records no usage (no assistant message with usage yet)."}</p>
            } else {
                <Columns series={series} columns={columns} testid="usage-chart" />
            }
            <h4>{format!("Cache breaks · {}", breaks.len())}</h4>
            if breaks.is_empty() {
                <p class="muted small">{"No call read less from the cache than the previous call of the same model."}</p>
            } else {
                <ul class="breaks" data-testid="cache-breaks">
                { for breaks.iter().map(|b| {
                    let id = b.get_str("entryId").unwrap_or("").to_string();
                    html! {
                        <li>
                            <span class="badge dropped">{format!("call {}", num(b, "index") + 1.0)}</span>
                            {format!(" line {}: cache read {} → {} ({}). ", num(b, "line"), thousands(num(b, "previousCacheRead")), thousands(num(b, "cacheRead")),
                                pct(num(b, "cacheRead"), num(b, "previousCacheRead")))}
                            <span class="muted">{break_reason(b)}</span>
                            if !id.is_empty() { {" "}<button class="link" onclick={select(&p.on_select, format!("entry:{id}"))}>{format!("→ entry {id}")}</button> }
                        </li>
                    }
                }) }
                </ul>
            }
            {prefix_bar}
            if !timeline.is_empty() {
                <details class="calls">
                    <summary>{"Every call"}</summary>
                    <table class="calls-table">
                        <thead><tr><th>{"#"}</th><th>{"line"}</th><th>{"model"}</th><th class="num">{"input"}</th><th class="num">{"cache read"}</th><th class="num">{"cache write"}</th><th class="num">{"output"}</th><th>{"stop"}</th></tr></thead>
                        <tbody>
                        { for timeline.iter().enumerate().take(2000).map(|(i, t)| html! {
                            <tr class={classes!((!truthy(t, "inContext")).then_some("muted"))}>
                                <td>{i + 1}</td><td>{num(t, "line")}</td><td class="mono">{s(t, "model")}</td>
                                <td class="num">{thousands(num(t, "input"))}</td><td class="num">{thousands(num(t, "cacheRead"))}</td>
                                <td class="num">{thousands(num(t, "cacheWrite"))}</td><td class="num">{thousands(num(t, "output"))}</td><td>{s(t, "stopReason")}</td>
                            </tr>
                        }) }
                        </tbody>
                    </table>
                </details>
            }
        </section>
    }
}

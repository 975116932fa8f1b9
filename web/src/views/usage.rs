//! Usage and cache: the usage pi recorded on each assistant message (input, cache read/write,
//! output per call) as a chart, beside the fixed prefix (system prompt + tools) and the growing
//! history; where the cache broke. Reads the report's `usage` (timeline + cache facts).

use ctxlens::calls::CallRef;
use ctxlens::report::calibration::CalibratedCall;
use ctxlens::report::types::{CacheDrop, CacheFactsInfo, Call, ModelInfo, UsagePointInfo};
use yew::prelude::*;

use super::components::charts::{Column, Columns, Seg, StackedBar};
use super::components::vlist::VList;
use super::components::{color, pct, thousands};
use super::tokens::{TokenNote, Tokens};
use super::util::{not_available, select};
use super::ViewProps;
use crate::report::Report;
use std::rc::Rc;

/// Columns drawn at most; longer timelines are bucketed.
const MAX_COLUMNS: usize = 240;
/// Rows of the call table.
const MAX_ROWS: usize = 500;
/// Up to this many calls, one chip each; past it, a number to type and a scrolled list.
const MAX_CHIPS: usize = 60;

/// Whether `c` (one of `report.calls`) is the call rebuilt.
fn is_picked(call: &Option<CallRef>, c: &Call) -> bool {
    *call == Some(CallRef::Index(c.index))
        || matches!(call, Some(CallRef::Entry(id)) if c.entry_id.as_deref() == Some(id.as_str()))
}

/// A call's tooltip: where it is and the usage pi recorded.
fn call_title(c: &Call) -> String {
    let u = c.usage.clone().unwrap_or_default();
    format!(
        "call {} · line {} · {}/{} · reported: {} input, {} cache read, {} cache write, {} output",
        c.index,
        c.line,
        c.provider.as_deref().unwrap_or(""),
        c.model.as_deref().unwrap_or(""),
        thousands(u.input),
        thousands(u.cache_read),
        thousands(u.cache_write),
        thousands(u.output)
    )
}

fn break_reason(b: &CacheDrop) -> String {
    let mut why = Vec::new();
    if b.model_changed {
        why.push("another model ran just before");
    }
    if b.provider_changed {
        why.push("the provider changed");
    }
    if b.compaction_between {
        why.push("a compaction rewrote the history");
    }
    if why.is_empty() {
        why.push(
            "the prefix changed (system prompt, tools or an earlier message) or the cache expired",
        );
    }
    why.join("; ")
}

/// Without a count: pi's own rule of thumb (the release's characters per token), said so.
fn rule_of_thumb(r: &Report, n: f64) -> String {
    match super::util::chars_per_token(r) {
        Some(c) => format!(
            "≈ {} tokens by pi's rule of thumb ({} chars/token)",
            thousands(n),
            ctxlens::js::number_to_string(c)
        ),
        None => format!("≈ {} tokens", thousands(n)),
    }
}

/// Every call with usage rebuilt, beside the tokens the provider reported for it.
fn rebuilt_html(r: &Report, tk: Tokens) -> Html {
    match tk.calibration() {
        Some(c) => {
            let calls = &c.calls;
            let framing = c.framing.as_ref();
            let with_tokens = calls.iter().any(|x| x.rebuilt_tokens.is_some());
            html! {
                <div class="rebuilt" data-testid="usage-rebuilt">
                    <h4>{format!("Rebuilt vs reported · {} calls with usage", calls.len())}</h4>
                    <p class="muted small">{ if with_tokens {
                        "Each call's request rebuilt and its texts counted with the model's vocabulary, beside the prompt tokens the provider reported (input + cache read + cache write). The difference is mostly the chat template's framing: the tokens that mark each message's start, role and end, which no public vocabulary includes."
                    } else {
                        "Each call's request rebuilt, beside the prompt tokens the provider reported (input + cache read + cache write): the session's own measure of characters per token."
                    } }</p>
                    if let Some(f) = framing {
                        <p class="small" data-testid="usage-framing">{format!("Framing: {} tokens per call on average ({} to {}){}.",
                            thousands(f.mean.round()), thousands(f.min), thousands(f.max),
                            match (f.per_call, f.per_message) {
                                (Some(a), Some(b)) => format!(", about {a:.0} per call plus {b:.1} per message"),
                                _ => String::new(),
                            })}</p>
                    }
                    <table class="calls-table" data-testid="usage-rebuilt-table">
                        <thead><tr><th>{"call"}</th><th>{"line"}</th><th>{"model"}</th><th title="the pi release each call is rebuilt by: a past call of a session a later pi continued, the release that made it">{"pi"}</th><th class="num">{"reported"}</th>
                            <th class="num">{"rebuilt chars"}</th><th class="num">{"rebuilt tokens"}</th><th class="num">{"difference"}</th><th>{"note"}</th></tr></thead>
                        <tbody>
                        { for calls.iter().take(MAX_ROWS).map(rebuilt_row) }
                        </tbody>
                    </table>
                </div>
            }
        }
        // Counted, but the calls were not rebuilt (a large session: the app's worker leaves
        // that to `ctxlens stats`).
        None if tk.stats().is_some() && !r.calls.is_empty() => html! {
            <p class="muted small" data-testid="usage-rebuilt-skipped">{"The calls are not rebuilt against their usage for a session this large (each is one more assembly of it); ctxlens stats on this session rebuilds them."}</p>
        },
        None => Html::default(),
    }
}

/// One row of the rebuilt-vs-reported table: a call's reported and rebuilt sizes.
fn rebuilt_row(x: &CalibratedCall) -> Html {
    let rebuilt = x.rebuilt_tokens.map(|t| t as f64);
    let pi = x.pi.as_ref();
    html! {
        <tr data-call={x.index.to_string()} class={classes!((!x.used).then_some("muted"))}>
            <td>{x.index}</td><td>{x.line}</td><td class="mono">{x.model.as_deref().unwrap_or("")}</td>
            <td class="mono" data-testid="call-pi-version" data-reason={pi.map(|p| p.reason.as_str().to_string())}>{pi.map(|p| p.version.as_str().to_string()).unwrap_or_default()}</td>
            <td class="num" data-testid="call-reported">{thousands(x.reported_tokens)}</td>
            <td class="num" data-testid="call-rebuilt-chars">{thousands(x.rebuilt_chars as f64)}</td>
            <td class="num" data-testid="call-rebuilt">{rebuilt.map(thousands).unwrap_or_else(|| "–".into())}</td>
            <td class="num" data-testid="call-difference">{x.difference.map(|d| format!("{}{}", if d > 0.0 { "+" } else { "" }, thousands(d))).unwrap_or_else(|| "–".into())}</td>
            <td class="small muted">{x.note.as_deref().unwrap_or("")}</td>
        </tr>
    }
}

/// This request's fixed prefix (system prompt + tools) beside the growing history, as a bar.
fn prefix_bar(r: &Report, tk: Tokens) -> Html {
    let (sp, tl, hi) = r.stats.as_ref().map_or((0.0, 0.0, 0.0), |st| {
        (
            st.system_prompt.chars as f64,
            st.tools.chars as f64,
            st.history.chars as f64,
        )
    });
    html! {
        <div class="prefix">
            <h4>{"This request: the fixed prefix and the growing history"}</h4>
            <StackedBar testid="usage-prefix" segs={vec![
                Seg::new("system prompt (fixed)", sp, "var(--system)"),
                Seg::new("tools (fixed)", tl, "var(--tools)"),
                Seg::new("history (grows every turn)", hi, "var(--history)"),
            ]} />
            <p class="muted small" data-testid="usage-prefix-line">{format!("Every call repeats the same {} chars prefix ({}) first; a provider's prompt cache can only reuse it while it stays byte-identical.", thousands(sp + tl),
                match (tk.read(|s| *s.system_prompt.tokens), tk.read(|s| *s.tools.tokens)) { (Some(a), Some(b)) => tk.phrase(Some(a + b)), _ => tk.phrase(None) })}</p>
        </div>
    }
}

/// The cards: the prefix, the history, the cache read share and the output.
fn usage_cards(r: &Report, tk: Tokens, cache: &CacheFactsInfo) -> Html {
    let read_share = cache.cache_read_share;
    html! {
        <div class="cards">
            <div class="card"><div class="k">{"Prefix"}</div><div class="v">{format!("{} chars", thousands(cache.prefix_chars as f64))}</div>
                <div class="sub" data-testid="usage-prefix-tokens">{format!("{}: system prompt + tools", match (tk.read(|s| *s.system_prompt.tokens), tk.read(|s| *s.tools.tokens)) {
                    (Some(a), Some(b)) => tk.phrase(Some(a + b)),
                    _ => rule_of_thumb(r, cache.prefix_tokens_estimate as f64),
                })}</div></div>
            <div class="card"><div class="k">{"History"}</div><div class="v">{format!("{} chars", thousands(cache.history_chars as f64))}</div>
                <div class="sub" data-testid="usage-history-tokens">{ match tk.read(|s| *s.history.tokens) { Some(h) => tk.phrase(Some(h)), None => rule_of_thumb(r, cache.history_tokens_estimate as f64) } }</div></div>
            <div class="card"><div class="k">{"Cache read"}</div><div class="v" data-testid="cache-read-share">{format!("{:.1}%", read_share * 100.0)}</div><div class="sub">{format!("{} of {} input tokens", thousands(cache.total_cache_read), thousands(cache.total_input + cache.total_cache_read + cache.total_cache_write))}</div></div>
            <div class="card"><div class="k">{"Output"}</div><div class="v">{thousands(cache.total_output)}</div><div class="sub">{format!("{} calls on the branch", thousands(cache.calls as f64))}</div></div>
        </div>
    }
}

/// One column per call; a long session is bucketed (the mean of each bucket of `per` calls).
fn usage_columns(timeline: &[UsagePointInfo], breaks: &[CacheDrop], per: usize) -> Vec<Column> {
    timeline
        .chunks(per)
        .enumerate()
        .map(|(b, chunk)| {
            let first = b * per;
            let n = chunk.len() as f64;
            let mean = |k: fn(&UsagePointInfo) -> f64| chunk.iter().map(k).sum::<f64>() / n;
            let last = first + chunk.len() - 1;
            let brk = breaks.iter().find(|x| (first..=last).contains(&x.index));
            Column {
                label: if per == 1 {
                    format!(
                        "call {} · line {} · {}",
                        first + 1,
                        chunk[0].line,
                        chunk[0].model.as_deref().unwrap_or("")
                    )
                } else {
                    format!("calls {}–{} (mean of {})", first + 1, last + 1, chunk.len())
                },
                values: vec![
                    mean(|t| t.cache_read),
                    mean(|t| t.cache_write),
                    mean(|t| t.input),
                    mean(|t| t.output),
                ],
                mark: brk
                    .map(|x| format!("cache break at call {}: {}", x.index + 1, break_reason(x))),
            }
        })
        .collect()
}

/// The usage chart, a column per call (or bucket), a column a call to rebuild.
fn usage_chart(p: &ViewProps, timeline: &[UsagePointInfo], breaks: &[CacheDrop]) -> Html {
    let r = &*p.report;
    let series = vec![
        ("cache read".to_string(), color(2)),
        ("cache write".to_string(), color(1)),
        ("input (uncached)".to_string(), color(0)),
        ("output".to_string(), color(3)),
    ];
    let per = timeline.len().div_ceil(MAX_COLUMNS).max(1);
    let columns = usage_columns(timeline, breaks, per);
    // The call picker: a column is a call (when every call has its own column), found in
    // `report.calls` by its session line.
    let lines: Vec<f64> = timeline.iter().map(|t| t.line as f64).collect();
    let pick_column = (per == 1).then(|| {
        let (on_call, report, lines) = (p.on_call.clone(), p.report.clone(), lines.clone());
        Callback::from(move |i: usize| {
            if let Some(k) = lines.get(i).and_then(|l| super::call_on_line(&report, *l)) {
                on_call.emit(Some(CallRef::Index(k)));
            }
        })
    });
    let picked_line = r
        .calls
        .iter()
        .find(|c| is_picked(&p.call, c))
        .map(|c| c.line as f64);
    let picked_column = picked_line
        .filter(|_| per == 1)
        .and_then(|l| lines.iter().position(|x| *x == l));
    html! {
        if timeline.is_empty() {
            <p class="muted">{"The session records no usage (no assistant message with usage yet)."}</p>
        } else {
            <Columns series={series} columns={columns} testid="usage-chart" on_pick={pick_column} picked={picked_column} />
            if per == 1 { <p class="muted small">{"Click a call to rebuild the request pi sent for it (its reported usage is shown in the header beside it)."}</p> }
        }
    }
}

/// A click that rebuilds call `k`.
fn pick_call(on_call: &Callback<Option<CallRef>>, k: usize) -> Callback<MouseEvent> {
    let cb = on_call.clone();
    Callback::from(move |_: MouseEvent| cb.emit(Some(CallRef::Index(k))))
}

/// The call picker: the next request, or one of the session's calls to rebuild.
fn calls_picker(p: &ViewProps) -> Html {
    let calls = &p.report.calls;
    if calls.is_empty() {
        return Html::default();
    }
    let next = {
        let cb = p.on_call.clone();
        Callback::from(move |_: MouseEvent| cb.emit(None))
    };
    // A long session: every call in a scrolled list (only the rows in view are drawn), and a
    // number to type; a short one, a chip each.
    let list = if calls.len() > MAX_CHIPS {
        call_list(p, calls)
    } else {
        call_chips(p, calls)
    };
    html! {
        <div class="call-picker" data-testid="call-picker">
            <h4>{format!("The session's calls · {}", calls.len())}<span class="muted small">{" · on the active branch; choose one to rebuild its request"}</span></h4>
            <div class="buttons">
                <button class={classes!("chip", p.call.is_none().then_some("on"))} aria-pressed={p.call.is_none().to_string()} data-testid="call-next" onclick={next}>{"next request"}</button>
            </div>
            {list}
        </div>
    }
}

/// A short session's calls: a chip each.
fn call_chips(p: &ViewProps, calls: &[Call]) -> Html {
    html! {
        <div class="buttons">
            { for calls.iter().map(|c| {
                let k = c.index;
                let on = is_picked(&p.call, c);
                html! {
                    <button class={classes!("chip", on.then_some("on"))} aria-pressed={on.to_string()} data-testid={format!("call-pick-{k}")}
                        title={call_title(c)} onclick={pick_call(&p.on_call, k)}>{format!("call {k}")}</button>
                }
            }) }
        </div>
    }
}

/// A long session's calls: a number to type, and every call in a scrolled list.
fn call_list(p: &ViewProps, calls: &[Call]) -> Html {
    let last = calls.iter().map(|c| c.index).max().unwrap_or(0);
    let cb = p.on_call.clone();
    let submit = Callback::from(move |e: SubmitEvent| {
        e.prevent_default();
        let form: web_sys::Element = e.target_unchecked_into();
        let k = form
            .query_selector("input[name=call]")
            .ok()
            .flatten()
            .and_then(|x| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlInputElement>(x).ok())
            .and_then(|i| i.value().trim().parse::<usize>().ok())
            .filter(|k| (1..=last).contains(k));
        if let Some(k) = k {
            cb.emit(Some(CallRef::Index(k)));
        }
    });
    // Each row is written when it comes into view, not every call on every render.
    let rows: Rc<Vec<Call>> = Rc::new(calls.to_vec());
    let scroll_to = rows.iter().position(|c| is_picked(&p.call, c));
    let render = {
        let (rows, on_call, call) = (rows.clone(), p.on_call.clone(), p.call.clone());
        Callback::from(move |i: usize| {
            let c = &rows[i];
            let (k, on) = (c.index, is_picked(&call, c));
            let u = c.usage.clone().unwrap_or_default();
            let line = format!(
                "line {} · {} · {} in · {} cached · {} out",
                thousands(c.line as f64),
                c.model.as_deref().unwrap_or(""),
                thousands(u.input),
                thousands(u.cache_read),
                thousands(u.output)
            );
            html! {
                <button class={classes!("call-row", on.then_some("on"))} aria-pressed={on.to_string()} data-testid={format!("call-pick-{k}")}
                    title={call_title(c)} onclick={pick_call(&on_call, k)}>
                    <span class="k">{format!("call {k}")}</span><span class="muted small">{line}</span>
                </button>
            }
        })
    };
    html! {
        <>
            <form class="call-number" data-testid="call-pick-number" onsubmit={submit}>
                <label>{"call "}<input name="call" type="number" min="1" max={last.to_string()} required=true /></label>
                <button class="button" type="submit">{"Rebuild"}</button>
                <span class="muted small">{format!(" of {}, or choose it in the list", thousands(last as f64))}</span>
            </form>
            <VList count={rows.len()} render={render} testid="call-list" row_height={28.0} height={280.0} scroll_to={scroll_to} />
        </>
    }
}

/// The cache breaks: each call that read less from the cache than the one before, and why.
fn cache_breaks(breaks: &[CacheDrop], on_select: &Callback<Option<AttrValue>>) -> Html {
    html! {
        <>
        <h4>{format!("Cache breaks · {}", breaks.len())}</h4>
        if breaks.is_empty() {
            <p class="muted small">{"No call read less from the cache than the previous call of the same model."}</p>
        } else {
            <ul class="breaks" data-testid="cache-breaks">
            { for breaks.iter().map(|b| {
                let id = b.entry_id.clone().unwrap_or_default();
                html! {
                    <li>
                        <span class="badge dropped">{format!("call {}", b.index + 1)}</span>
                        {format!(" line {}: cache read {} → {} ({}). ", b.line, thousands(b.previous_cache_read), thousands(b.cache_read),
                            pct(b.cache_read, b.previous_cache_read))}
                        <span class="muted">{break_reason(b)}</span>
                        if !id.is_empty() { {" "}<button class="link" onclick={select(on_select, format!("entry:{id}"))}>{format!("→ entry {id}")}</button> }
                    </li>
                }
            }) }
            </ul>
        }
        </>
    }
}

/// The table of every call, drawn once opened and then only the rows in view.
fn every_call_details(timeline: &[UsagePointInfo], show_calls: &UseStateHandle<bool>) -> Html {
    let rows: Rc<Vec<UsagePointInfo>> = Rc::new(timeline.to_vec());
    let every_call_row = Callback::from(move |i: usize| {
        let t = &rows[i];
        html! {
            <div class={classes!("call-grid", (!t.in_context).then_some("muted"))} role="row" data-row={(i + 1).to_string()}>
                <span>{i + 1}</span><span>{t.line}</span><span class="mono">{t.model.clone().unwrap_or_default()}</span>
                <span class="num">{thousands(t.input)}</span><span class="num">{thousands(t.cache_read)}</span>
                <span class="num">{thousands(t.cache_write)}</span><span class="num">{thousands(t.output)}</span><span>{t.stop_reason.clone().unwrap_or_default()}</span>
            </div>
        }
    });
    html! {
        <details class="calls" open={**show_calls} ontoggle={{ let s = show_calls.clone(); Callback::from(move |e: Event| s.set(super::components::dom::details_open(&e))) }}>
            <summary>{format!("Every call · {}", thousands(timeline.len() as f64))}</summary>
            if **show_calls {
                <div class="call-grid head" role="row"><span>{"#"}</span><span>{"line"}</span><span>{"model"}</span><span class="num">{"input"}</span><span class="num">{"cache read"}</span><span class="num">{"cache write"}</span><span class="num">{"output"}</span><span>{"stop"}</span></div>
                <VList count={timeline.len()} render={every_call_row} testid="every-call-table" row_height={24.0} height={480.0} />
            }
        </details>
    }
}

#[function_component]
pub fn UsageView(p: &ViewProps) -> Html {
    let show_calls = use_state(|| false);
    let r = &*p.report;
    let tk = Tokens::of(p);
    let model = r.model.as_ref().map(ModelInfo::key).unwrap_or_default();
    let Some(u) = r.usage.as_ref() else {
        return html! {
            <section class="usage-view" data-testid="usage-view">
                <h3>{"Usage and cache"}</h3>
                {not_available("The per-call usage timeline is not available in this build of the core.")}
                {prefix_bar(r, tk)}
            </section>
        };
    };
    let timeline = u.timeline.as_deref().unwrap_or(&[]);
    let cache = &u.cache;
    let breaks = cache.breaks.as_slice();
    html! {
        <section class="usage-view" data-testid="usage-view">
            <h3>{"Usage and cache"}
                if r.has_session_parts() {
                    <span class="muted small">{format!(" · {} calls recorded in the session", timeline.len())}</span>
                }
            </h3>
            <TokenNote tokens={p.tokens.clone()} model={model.clone()} />
            {usage_cards(r, tk, cache)}
            if let Some(h) = super::util::session_placeholder(r) {
                {h}
            } else {
                {usage_chart(p, timeline, breaks)}
                {calls_picker(p)}
            }
            {rebuilt_html(r, tk)}
            {cache_breaks(breaks, &p.on_select)}
            {prefix_bar(r, tk)}
            if !timeline.is_empty() {
                {every_call_details(timeline, &show_calls)}
            }
        </section>
    }
}

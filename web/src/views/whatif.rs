//! What if: switch a tool, a skill, a context file, the appended prompt, old reasoning, images
//! (all, or one entry's), a whole turn (a user message and its exchange) or a session entry off, cut a tool result to its first N lines (or
//! change the model, thinking level, protocol or pi release) and see the request pi would send
//! then. Tool results and images are listed largest first, where the session has any (the
//! report's `toolResult` / `images` sizes of its entries); a context file that shadows another
//! in its folder is a suggestion (removing it, pi reads the shadowed one in its place). The changes are `ctxlens whatif`'s specs (`tool:bash`,
//! `skill:NAME`, `model=P/ID`, …), kept in the URL hash (`whatif=tool:bash,skill:foo`); the
//! worker applies them to the scenario's inputs and answers the core's what-if
//! (`ctxlens::report::whatif::to_json`, as `ctxlens whatif --without … --set …` prints it). Shown:
//! the first changed byte and what it means for the provider's prompt cache; the request's size,
//! share of the context window and cost per call before and after; each block's characters (and
//! tokens once the model's vocabulary is loaded) before and after; the whole session rebuilt with
//! the changes made at the start (when it has calls with usage); and each change's take-home — the
//! pi flags, settings.json lines or SKILL.md frontmatter that make it for real. A change that
//! names nothing present shows the core's error. Every text from the files is rendered as text.

use ctxlens::js::Value;
use yew::prelude::*;

use super::components::thousands;
use super::{Upgrading, ViewProps, WhatIfKey};
use crate::report::Report;
use ctxlens::report::types::{
    CostPerCall, EntryNode, ImagesSize, ResourcesInfo, ToolInfo, ToolResultText, UpgradeBlock,
    WhatIf, WhatIfCache, WhatIfSession,
};
use ctxlens::report::wire::Wire;

/// The settings a spec can set (`KEY=VALUE`).
const SET_KEYS: [&str; 4] = ["model", "thinking", "api", "pi"];

/// The key of a `KEY=VALUE` spec.
fn set_key(spec: &str) -> Option<&str> {
    let (k, _) = spec.split_once('=')?;
    SET_KEYS.contains(&k).then_some(k)
}

/// `changes` with `spec` switched: removed when there, else added at the end.
pub fn toggled(changes: &[String], spec: &str) -> Vec<String> {
    if changes.iter().any(|c| c == spec) {
        changes.iter().filter(|c| *c != spec).cloned().collect()
    } else {
        let mut out = changes.to_vec();
        out.push(spec.to_string());
        out
    }
}

/// `changes` with setting `key` set to `value` (`None` or empty: the setting as it is).
pub fn with_setting(changes: &[String], key: &str, value: Option<&str>) -> Vec<String> {
    let mut out: Vec<String> = changes
        .iter()
        .filter(|c| set_key(c) != Some(key))
        .cloned()
        .collect();
    if let Some(v) = value.filter(|v| !v.is_empty()) {
        out.push(format!("{key}={v}"));
    }
    out
}

/// `changes` with every spec of `add` in it (those already there kept once).
pub fn with_all(changes: &[String], add: &[String]) -> Vec<String> {
    let mut out = changes.to_vec();
    for a in add {
        if !out.contains(a) {
            out.push(a.clone());
        }
    }
    out
}

/// The report's tools, largest first.
fn tools_by_size(r: &Report) -> Vec<&ToolInfo> {
    let mut tools: Vec<&ToolInfo> = r.tools.iter().collect();
    tools.sort_by_key(|t| std::cmp::Reverse(t.chars));
    tools
}

/// The specs that switch off the three largest extension tools, and their characters.
pub fn largest_extension_tools(r: &Report) -> (Vec<String>, f64) {
    let ext: Vec<&ToolInfo> = tools_by_size(r)
        .into_iter()
        .filter(|t| t.source == "extension")
        .take(3)
        .collect();
    (
        ext.iter().map(|t| format!("tool:{}", t.name)).collect(),
        ext.iter().map(|t| t.chars as f64).sum(),
    )
}

/// The skills the model is offered (not `disableModelInvocation`).
pub fn invocable_skills(r: &Report) -> Vec<String> {
    let skills = r.resources.skills.iter();
    skills
        .filter(|k| !k.hidden)
        .map(|k| k.name.clone())
        .collect()
}

/// The session's entries in the context, with their ids.
fn context_entries(r: &Report) -> Vec<&EntryNode> {
    let entries = r.session.as_ref().map_or(&[][..], |x| x.entries.as_slice());
    let kept = entries.iter().filter(|e| e.in_context && e.id.is_some());
    kept.collect()
}

/// The turns in the context, in order: each user message with the number of messages of its
/// exchange (the context's messages after it, up to the next user message, system messages
/// aside), what `turn:ID` removes with it.
pub fn context_turns(r: &Report) -> Vec<(&EntryNode, usize)> {
    let mut out: Vec<(&EntryNode, usize)> = Vec::new();
    for e in context_entries(r) {
        if e.entry_type != "message" {
            continue;
        }
        match e.role.as_deref() {
            Some("user") => out.push((e, 0)),
            Some("system") => {}
            _ => {
                if let Some((_, n)) = out.last_mut() {
                    *n += 1;
                }
            }
        }
    }
    out
}

/// The tool results in the context that have text to cut, largest first (`toolResult`:
/// `{toolName, chars, lines}` from the report's session entries).
pub fn tool_results_by_size(r: &Report) -> Vec<(&EntryNode, &ToolResultText)> {
    let mut out: Vec<(&EntryNode, &ToolResultText)> = context_entries(r)
        .into_iter()
        .filter_map(|e| Some((e, e.tool_result.as_ref()?)))
        .filter(|(_, t)| t.lines > 0 && t.chars > 0)
        .collect();
    out.sort_by_key(|(_, t)| std::cmp::Reverse(t.chars));
    out
}

/// The entries in the context that hold images, largest first (`images`: `{count, chars}`).
pub fn image_entries_by_size(r: &Report) -> Vec<(&EntryNode, &ImagesSize)> {
    let mut out: Vec<(&EntryNode, &ImagesSize)> = context_entries(r)
        .into_iter()
        .filter_map(|e| Some((e, e.images.as_ref()?)))
        .filter(|(_, i)| i.count > 0)
        .collect();
    out.sort_by_key(|(_, i)| std::cmp::Reverse(i.chars));
    out
}

/// `changes` with tool result `id` cut to its first `n` lines (`tool-result:ID:N`), in place of
/// any cut of it already there.
pub fn with_cut(changes: &[String], id: &str, n: usize) -> Vec<String> {
    let whole = format!("tool-result:{id}");
    let mut out: Vec<String> = changes
        .iter()
        .filter(|c| {
            let rest = c.strip_prefix(&whole);
            !(rest == Some("")
                || rest
                    .and_then(|r| r.strip_prefix(':'))
                    .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())))
        })
        .cloned()
        .collect();
    out.push(format!("{whole}:{n}"));
    out
}

/// The cut of tool result `id` among `changes` (`tool-result:ID:N`), if any.
fn cut_of(changes: &[String], id: &str) -> Option<usize> {
    let whole = format!("tool-result:{id}:");
    changes
        .iter()
        .find_map(|c| c.strip_prefix(&whole).and_then(|n| n.parse().ok()))
}

/// One suggestion per context file that shadows others in its folder (pi reads one context
/// file per folder, the first of its candidates: AGENTS.md before CLAUDE.md): the file read,
/// the what-if that removes it — pi then reads the shadowed file in its place — and the words.
pub fn shadowing_suggestions(r: &Report) -> Vec<(String, String, String)> {
    use ctxlens::js::path::{basename, dirname};
    r.resources
        .context_files
        .iter()
        .filter_map(|f| {
            let shadowed = &f.shadowed;
            let first = shadowed.first()?;
            let path = f.path.as_str();
            let read = basename(path);
            let names: Vec<&str> = shadowed.iter().map(|p| basename(p)).collect();
            let label = format!(
                "{} in {} {} shadowed by {read} — pi reads only {read} there. What if {read} ({} characters) were removed? pi would read {} in its place",
                names.join(" and "),
                dirname(path),
                if names.len() == 1 { "is" } else { "are" },
                thousands(f.chars as f64),
                basename(first),
            );
            Some((path.to_string(), format!("context:{path}"), label))
        })
        .collect()
}

/// The suggestion's words for switching off `specs` (the largest extension tools).
pub fn extension_tools_label(specs: &[String], chars: f64) -> String {
    match specs {
        [one] => format!(
            "Switch off the largest extension tool ({}: −{} characters per call)",
            one.trim_start_matches("tool:"),
            thousands(chars)
        ),
        _ => format!(
            "Switch off the {} largest extension tools (−{} characters per call)",
            specs.len(),
            thousands(chars)
        ),
    }
}

/// `+12` / `−5` / `0`, with the class of a gain or a saving.
fn delta(d: f64) -> Html {
    if d > 0.0 {
        html! { <span class="gained">{format!("+{}", thousands(d))}</span> }
    } else if d < 0.0 {
        html! { <span class="lost">{format!("−{}", thousands(-d))}</span> }
    } else {
        html! { <span class="muted">{"0"}</span> }
    }
}

/// Dollars, with enough digits for a cent's fraction.
fn dollars(x: Option<f64>) -> String {
    match x {
        Some(x) if x < 0.0 => format!("−{}", dollars(Some(-x))),
        Some(x) if x < 0.01 => format!("${x:.5}"),
        Some(x) => format!("${x:.4}"),
        None => "–".into(),
    }
}

fn share(x: Option<f64>) -> String {
    x.map_or("–".into(), |x| format!("{:.2}%", x * 100.0))
}

/// The answer on screen (`json`: the worker's, read as its type; `sessionPending`: the
/// session's part follows).
fn whatif_html(json: &Value) -> Html {
    let Some(w) = WhatIf::from_value(json) else {
        return html! { <p class="na">{"The worker's answer is not a what-if."}</p> };
    };
    let tokens_by = w.before.tokens_by.clone();
    let blocks: Vec<&UpgradeBlock> = w
        .blocks
        .iter()
        .filter(|b| b.from_chars > 0 || b.to_chars > 0)
        .collect();
    let with_tokens = blocks.iter().any(|b| b.from_tokens.is_some());
    let session = w.session.as_ref().map(session_html).or_else(|| {
        // The request's answer first; the whole session's follows (each call with usage
        // rebuilt both ways takes two assemblies).
        json.get("sessionPending").is_some_and(Value::truthy).then(|| html! {
            <div class="whatif-session" data-testid="whatif-session-pending">
                <h4>{"Over the whole session"}</h4>
                <p class="muted small">{"Rebuilding the session's calls with the changes made at the start (each call with usage, two assemblies each)…"}</p>
            </div>
        })
    });
    html! {
        <>
            { whatif_verdict(&w) }
            <h4>{"The request, per call"}</h4>
            if let Some(by) = tokens_by {
                <p class="muted small">{format!("Tokens: {by}. Prices per million tokens from pi's model catalog.")}</p>
            }
            { totals_table(&w) }
            { for w.cache.as_ref().map(cache_table) }
            <h4>{"Each block"}</h4>
            if !with_tokens {
                <p class="muted small" data-testid="whatif-chars-only">{"Characters only per block: the tokens are counted on both sides once the model's vocabulary is loaded (the Overview's Tokens card says which vocabulary)."}</p>
            }
            { blocks_table(&blocks, with_tokens) }
            <h4>{"Make it for real"}</h4>
            <p class="muted small">{"What to change in pi to get this request: the flags, settings.json lines or file edits (copy them from here)."}</p>
            { take_home(&w) }
            {for session}
        </>
    }
}

/// The verdict: the same bytes, or the first byte that changes and in which block.
fn whatif_verdict(w: &WhatIf) -> Html {
    if w.identical {
        html! {
            <p class="upgrade-verdict ok" data-testid="whatif-identical">
                <strong>{"The request is byte-identical with these changes."}</strong>
                {" Nothing pi sends changes (the change found nothing that reaches this request)."}
            </p>
        }
    } else if let Some(f) = &w.first_change {
        let byte = f.byte as f64;
        html! {
            <div class="upgrade-first-change" data-testid="whatif-first-change" data-byte={byte.to_string()}>
                <p class="upgrade-verdict"><strong>{"The request changes. "}</strong>{"First changed byte: "}
                    <strong data-testid="whatif-first-byte">{thousands(byte)}</strong>
                    {" in "}<strong data-testid="whatif-first-block">{f.block.as_deref().unwrap_or("a part ctxlens cannot name")}</strong>
                    if let Some(path) = &f.path {
                        {" (JSON path "}<code class="mono" data-testid="whatif-first-path">{path}</code>{")"}
                    }
                </p>
            </div>
        }
    } else {
        html! { <p class="upgrade-verdict" data-testid="whatif-same-body">{"The body is the same; the URL or headers differ."}</p> }
    }
}

/// What the change does to the provider's prompt cache.
fn cache_table(c: &WhatIfCache) -> Html {
    let tokens =
        |t: Option<usize>| t.map_or("–".into(), |t| format!("{} tokens", thousands(t as f64)));
    let stable = c.stable_prefix_bytes as f64;
    html! {
        <div class="whatif-cache" data-testid="whatif-cache" data-stable={stable.to_string()}>
            <h4>{"Prompt cache"}</h4>
            <p data-testid="whatif-cache-note">{&c.note}</p>
            <table class="sizes">
                <tbody>
                    <tr><th>{"byte-stable prefix"}</th><td class="num" data-testid="whatif-stable-bytes">{format!("{} bytes", thousands(stable))}</td><td class="num">{format!("{:.1}%", c.stable_share * 100.0)}</td></tr>
                    <tr><th>{"next call: read from the cache"}</th><td class="num">{tokens(c.next_call_cached_tokens)}</td><td></td></tr>
                    <tr><th>{"next call: sent and written anew"}</th><td class="num">{tokens(c.next_call_uncached_tokens)}</td><td></td></tr>
                    <tr><th>{"next call's input cost"}</th><td class="num">{dollars(c.next_call_cost)}</td><td class="muted small">{"cached part at the cache-read price, the rest at the cache-write price"}</td></tr>
                    <tr><th>{"the calls after, all cached"}</th><td class="num">{dollars(c.warm_call_cost)}</td><td></td></tr>
                </tbody>
            </table>
        </div>
    }
}

/// One of a call's three costs.
type CostOf = fn(&CostPerCall) -> Option<f64>;

/// The request's characters, tokens, share of the window and cost per call, as it is and with
/// the changes.
fn totals_table(w: &WhatIf) -> Html {
    let (before, after, d) = (&w.before, &w.after, &w.delta);
    let tokens = |t: Option<usize>| t.map_or("–".into(), |t| thousands(t as f64));
    let costs: [(&str, &str, CostOf); 3] = [
        ("input", "cost per call, uncached input", |c| c.input),
        ("cacheRead", "cost per call, all read from the cache", |c| {
            c.cache_read
        }),
        (
            "cacheWrite",
            "cost per call, all written to the cache",
            |c| c.cache_write,
        ),
    ];
    html! {
        <table class="sizes whatif-totals" data-testid="whatif-totals">
            <thead><tr><th></th><th class="num">{"as it is"}</th><th class="num">{"with the changes"}</th><th class="num">{"Δ"}</th></tr></thead>
            <tbody>
                <tr data-row="chars"><th>{"characters"}</th><td class="num">{thousands(before.chars as f64)}</td><td class="num">{thousands(after.chars as f64)}</td><td class="num">{delta(d.chars)}</td></tr>
                <tr data-row="tokens"><th>{"tokens"}</th>
                    <td class="num">{tokens(before.tokens)}</td>
                    <td class="num">{tokens(after.tokens)}</td>
                    <td class="num">{d.tokens.map(delta).unwrap_or_default()}</td></tr>
                <tr data-row="window"><th>{"share of the context window"}</th>
                    <td class="num">{share(before.window_share)}</td>
                    <td class="num">{share(after.window_share)}</td>
                    <td class="num">{d.window_share.map(|x| format!("{:+.2} points", x * 100.0)).unwrap_or_default()}</td></tr>
                if before.prices_per_million.is_none() {
                    <tr data-row="cost-none"><th>{"cost per call"}</th>
                        <td colspan="3" class="muted" data-testid="whatif-no-prices">{"unknown: this model has no prices (its catalog or models.json entry gives none)"}</td></tr>
                } else {
                { for costs.iter().map(|(k, label, of)| html! {
                    <tr data-row={format!("cost-{k}")}><th>{*label}</th>
                        <td class="num">{dollars(of(&before.cost_per_call))}</td>
                        <td class="num">{dollars(of(&after.cost_per_call))}</td>
                        <td class="num">{dollars(of(&d.cost_per_call))}</td></tr>
                }) }
                }
            </tbody>
        </table>
    }
}

/// Each block's characters (and tokens, once counted) as it is and with the changes.
fn blocks_table(blocks: &[&UpgradeBlock], with_tokens: bool) -> Html {
    html! {
        <div class="table-scroll">
        <table class="sizes upgrade-blocks" data-testid="whatif-blocks" data-tokens={with_tokens.to_string()}>
            <thead>
                <tr><th rowspan="2">{"block"}</th><th colspan="3" class="num">{"characters"}</th>
                    if with_tokens { <th colspan="3" class="num">{"tokens"}</th> }
                </tr>
                <tr><th class="num">{"as it is"}</th><th class="num">{"with the changes"}</th><th class="num">{"Δ"}</th>
                    if with_tokens { <th class="num">{"as it is"}</th><th class="num">{"with the changes"}</th><th class="num">{"Δ"}</th> }
                </tr>
            </thead>
            <tbody>
            { for blocks.iter().map(|b| {
                let changed = b.chars_delta != 0.0 || b.tokens_delta.is_some_and(|d| d != 0.0);
                let uncounted = b.from_tokens == Some(0) && b.to_tokens == Some(0);
                let tok = |n: Option<usize>| match n {
                    Some(n) if !uncounted => thousands(n as f64),
                    _ => "–".into(),
                };
                html! {
                    <tr class={classes!(changed.then_some("diff"))} data-block={b.name.clone()} data-delta={b.chars_delta.to_string()}>
                        <th>{&b.name}</th>
                        <td class="num">{thousands(b.from_chars as f64)}</td><td class="num">{thousands(b.to_chars as f64)}</td>
                        <td class="num">{delta(b.chars_delta)}</td>
                        if with_tokens {
                            <td class="num">{tok(b.from_tokens)}</td><td class="num">{tok(b.to_tokens)}</td>
                            <td class="num">{b.tokens_delta.map(delta).unwrap_or_default()}</td>
                        }
                    </tr>
                }
            }) }
            </tbody>
        </table>
        </div>
    }
}

/// What to change in pi to get this request, change by change.
fn take_home(w: &WhatIf) -> Html {
    html! {
        <ul class="whatif-takehome" data-testid="whatif-takehome">
        { for w.changes.iter().map(|c| html! {
            <li data-change={c.change.clone()} data-kind={c.take_home.kind()}>
                <code class="mono">{&c.change}</code>{": "}{&c.did}
                <pre class="mono small" data-testid="whatif-takehome-text">{&c.take_home.text}</pre>
            </li>
        }) }
        </ul>
    }
}

/// The whole session rebuilt with the changes made at the start.
fn session_html(x: &WhatIfSession) -> Html {
    let (before, after, saved) = (&x.before, &x.after, &x.saved);
    let tokens = |t: Option<f64>| t.map_or("–".into(), thousands);
    let count = |t: Option<u64>| t.map_or("–".into(), |t| thousands(t as f64));
    let rebuilt = x.calls_rebuilt as f64;
    html! {
        <div class="whatif-session" data-testid="whatif-session" data-calls={rebuilt.to_string()}>
            <h4>{"Over the whole session"}</h4>
            <p class="small">{format!("Had these changes been made at the start: {} of the session's {} calls with usage rebuilt both ways.", rebuilt, x.calls_with_usage as f64)}</p>
            <table class="sizes">
                <thead><tr><th></th><th class="num">{"as it was"}</th><th class="num">{"with the changes"}</th><th class="num">{"saved"}</th></tr></thead>
                <tbody>
                    <tr data-row="chars"><th>{"characters sent"}</th><td class="num">{thousands(before.chars as f64)}</td><td class="num">{thousands(after.chars as f64)}</td><td class="num" data-testid="whatif-session-saved-chars">{thousands(saved.chars)}</td></tr>
                    <tr data-row="tokens"><th>{"tokens (counted)"}</th><td class="num">{count(before.tokens)}</td><td class="num">{count(after.tokens)}</td><td class="num">{tokens(saved.tokens)}</td></tr>
                    <tr data-row="reported"><th>{"input tokens (the provider's usage)"}</th><td class="num">{thousands(before.reported_tokens.unwrap_or(0.0))}</td><td class="num">{tokens(after.reported_tokens)}</td><td class="num">{tokens(saved.reported_tokens)}</td></tr>
                    <tr data-row="cost"><th>{"cost"}</th><td></td><td></td><td class="num">{dollars(saved.cost)}</td></tr>
                </tbody>
            </table>
            { for x.notes.iter().map(|n| html! { <p class="muted small">{n}</p> }) }
            <details>
                <summary>{"Each call rebuilt"}</summary>
                <table class="sizes">
                    <thead><tr><th class="num">{"call"}</th><th>{"entry"}</th><th class="num">{"characters as it was"}</th><th class="num">{"with the changes"}</th><th class="num">{"input tokens (reported)"}</th><th class="num" title="the call's reported input tokens scaled by what the changes do to its request">{"with the changes (≈)"}</th><th>{"note"}</th></tr></thead>
                    <tbody>
                    { for x.calls.iter().map(|c| html! {
                        <tr><td class="num">{c.call as f64}</td><td class="mono small">{c.entry_id.clone().unwrap_or_default()}</td>
                            <td class="num">{thousands(c.before_chars as f64)}</td>
                            <td class="num">{c.after_chars.map_or("–".into(), |n| thousands(n as f64))}</td>
                            <td class="num">{tokens(c.reported_tokens)}</td>
                            <td class="num" data-testid="whatif-call-tokens-after">{c.reported_tokens_after.map_or("–".into(), |t| thousands(t.round()))}</td>
                            <td class="small">{c.note.clone().unwrap_or_default()}</td></tr>
                    }) }
                    </tbody>
                </table>
            </details>
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct CutRowProps {
    id: String,
    tool: String,
    chars: f64,
    lines: usize,
    /// The cut made now (`tool-result:ID:N`), if any.
    cut: Option<usize>,
    changes: Vec<String>,
    on_set: Callback<Vec<String>>,
}

/// One tool result: its size, and a number of lines to keep (`tool-result:ID:N`).
#[function_component]
fn CutRow(p: &CutRowProps) -> Html {
    let keep = use_state(|| p.cut.unwrap_or(p.lines / 2).to_string());
    let max = p.lines.saturating_sub(1);
    let valid = keep.trim().parse::<usize>().ok().filter(|n| *n <= max);
    let submit = {
        let (on_set, changes, id) = (p.on_set.clone(), p.changes.clone(), p.id.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            if let Some(n) = valid {
                on_set.emit(with_cut(&changes, &id, n));
            }
        })
    };
    let input = {
        let keep = keep.clone();
        Callback::from(move |e: InputEvent| {
            keep.set(
                e.target_unchecked_into::<web_sys::HtmlInputElement>()
                    .value(),
            )
        })
    };
    let id = &p.id;
    html! {
        <li data-testid={format!("whatif-tool-result-{id}")} data-chars={p.chars.to_string()} data-lines={p.lines.to_string()}
            class={classes!(p.cut.is_some().then_some("off"))}>
            <form class="whatif-cut" onsubmit={submit}>
                <code class="mono small">{id}</code>{" "}<span class="badge">{&p.tool}</span>
                <span class="muted small">{format!(" {} characters, {} line{}", thousands(p.chars), thousands(p.lines as f64), if p.lines == 1 { "" } else { "s" })}</span>
                if let Some(n) = p.cut { <span class="small">{format!(" · now cut to its first {n};")}</span> }
                {" "}
                <label class="small">{"keep the first "}
                    <input type="number" min="0" max={max.to_string()} value={(*keep).clone()} class="mono" size="4"
                        data-testid={format!("whatif-cut-{id}")} aria-label={format!("lines of tool result {id} to keep")} oninput={input} />
                    {" lines"}</label>
                {" "}<button class="button" type="submit" disabled={valid.is_none()} data-testid={format!("whatif-cut-apply-{id}")}>{"Cut"}</button>
            </form>
        </li>
    }
}

/// One checkbox: checked while the thing is on (its `spec` not among the changes).
fn switch(
    changes: &[String],
    on_set: &Callback<Vec<String>>,
    spec: String,
    label: Html,
    disabled: bool,
) -> Html {
    let on = !changes.contains(&spec);
    let next = toggled(changes, &spec);
    let cb = on_set.clone();
    html! {
        <li>
            <label class={classes!("whatif-switch", (!on).then_some("off"))}>
                <input type="checkbox" checked={on} disabled={disabled} data-testid={format!("whatif-{spec}")} data-spec={spec.clone()}
                    onchange={Callback::from(move |_: Event| cb.emit(next.clone()))} />
                {" "}{label}
            </label>
        </li>
    }
}

/// What each control of the what-if needs: the changes made and how to set others.
#[derive(Clone, Copy)]
struct Controls<'a> {
    changes: &'a [String],
    on_set: &'a Callback<Vec<String>>,
}

/// The tools group: each tool a switch (`tool:NAME`), largest first.
fn tools_group(ctl: Controls, r: &Report) -> Html {
    let tools = tools_by_size(r);
    html! {
        <fieldset class="whatif-group" data-testid="whatif-tools">
            <legend>{"Tools"}<span class="muted small">{" · pi's --tools / --exclude-tools; largest first"}</span></legend>
            if tools.is_empty() { <p class="muted small">{"This request sends no tools."}</p> }
            <ul class="whatif-list">
            { for tools.iter().map(|t| {
                let name = &t.name;
                switch(ctl.changes, ctl.on_set, format!("tool:{name}"), html! {
                    <><code class="mono">{name}</code>{" "}<span class="badge">{&t.source}</span>
                    <span class="muted small">{format!(" {} characters", thousands(t.chars as f64))}</span></>
                }, false)
            }) }
            </ul>
        </fieldset>
    }
}

/// The skills group: each skill a switch (`skill:NAME`), and its offer to the model another.
fn skills_group(ctl: Controls, resources: &ResourcesInfo) -> Html {
    let changes = ctl.changes;
    let skills = &resources.skills;
    html! {
        <fieldset class="whatif-group" data-testid="whatif-skills">
            <legend>{"Skills"}<span class="muted small">{" · listed in the system prompt for the model to load"}</span></legend>
            if skills.is_empty() { <p class="muted small">{"No skills in this request."}</p> }
            <ul class="whatif-list">
            { for skills.iter().map(|k| {
                let (name, hidden) = (&k.name, k.hidden);
                html! {
                    <>
                    {switch(changes, ctl.on_set, format!("skill:{name}"), html! {
                        <><code class="mono">{name}</code><span class="muted small">{format!(" {}", k.source)}</span></>
                    }, false)}
                    <ul class="whatif-list nested">
                    {switch(changes, ctl.on_set, format!("skill-invocation:{name}"), html! {
                        <span class="small">{if hidden { "already disable-model-invocation: not offered to the model".to_string() } else { format!("offered to the model (off: disable-model-invocation: true in its SKILL.md; /skill:{name} still works)") }}</span>
                    }, hidden || changes.contains(&format!("skill:{name}")))}
                    </ul>
                    </>
                }
            }) }
            </ul>
        </fieldset>
    }
}

/// The context group: each context file a switch (`context:PATH`), and the appended prompt.
fn context_group(ctl: Controls, resources: &ResourcesInfo) -> Html {
    let files = &resources.context_files;
    let appended = !resources.append_prompts.is_empty();
    html! {
        <fieldset class="whatif-group" data-testid="whatif-context">
            <legend>{"Context files and the appended prompt"}</legend>
            if files.is_empty() && !appended { <p class="muted small">{"No AGENTS.md / CLAUDE.md and no appended prompt in this request."}</p> }
            <ul class="whatif-list">
            { for files.iter().map(|f| {
                let path = &f.path;
                switch(ctl.changes, ctl.on_set, format!("context:{path}"), html! {
                    <><code class="mono small">{path}</code><span class="muted small">{format!(" {} characters", thousands(f.chars as f64))}</span></>
                }, false)
            }) }
            if appended {
                {switch(ctl.changes, ctl.on_set, "append-prompt".into(), html! { <>{"the appended system prompt"}<span class="muted small">{" (APPEND_SYSTEM.md, --append-system-prompt)"}</span></> }, false)}
            }
            </ul>
        </fieldset>
    }
}

/// The history group: old reasoning, each turn and each session entry in the context a switch.
fn history_group(ctl: Controls, r: &Report) -> Option<Html> {
    let (changes, on_set) = (ctl.changes, ctl.on_set);
    let session = r.session.as_ref();
    let entries = context_entries(r);
    let turns = context_turns(r);
    const ENTRIES_SHOWN: usize = 400;
    if let Some(h) = super::util::session_placeholder(r) {
        return Some(html! {
            <fieldset class="whatif-group" data-testid="whatif-history">
                <legend>{"History"}</legend>
                {h}
            </fieldset>
        });
    }
    // Nothing to switch in the history without a session (a request with no session file).
    (session.is_some() || !entries.is_empty()).then(|| html! {
        <fieldset class="whatif-group" data-testid="whatif-history">
            <legend>{"History"}</legend>
            <ul class="whatif-list">
                if session.is_some() {
                    {switch(changes, on_set, "thinking:old".into(), html! { <>{"old reasoning replayed"}<span class="muted small">{" (the thinking of the answers before the last user message)"}</span></> }, false)}
                }
            </ul>
            if !turns.is_empty() {
                <details data-testid="whatif-turns" open={turns.len() <= 12}>
                    <summary>{format!("Turns in the context ({})", turns.len())}<span class="muted small">{" · a user message and its exchange: the answers and tool results up to the next one"}</span></summary>
                    if turns.len() > ENTRIES_SHOWN {
                        <p class="muted small">{format!("The first {ENTRIES_SHOWN} shown; any other as turn:ID in the URL.")}</p>
                    }
                    <ul class="whatif-list entries">
                    { for turns.iter().take(ENTRIES_SHOWN).map(|(e, n)| {
                        let id = e.id.as_deref().unwrap_or("");
                        let preview: String = e.preview.chars().take(90).collect();
                        switch(changes, on_set, format!("turn:{id}"), html! {
                            <><code class="mono small">{id}</code>{" "}<span class="small">{preview}</span><span class="muted small">{format!(" · and {n} message{} of its exchange", if *n == 1 { "" } else { "s" })}</span></>
                        }, false)
                    }) }
                    </ul>
                </details>
            }
            if !entries.is_empty() {
                <details data-testid="whatif-entries">
                    <summary>{format!("Session entries in the context ({})", entries.len())}</summary>
                    if entries.len() > ENTRIES_SHOWN {
                        <p class="muted small">{format!("The first {ENTRIES_SHOWN} shown; any other as entry:ID in the URL.")}</p>
                    }
                    <ul class="whatif-list entries">
                    { for entries.iter().take(ENTRIES_SHOWN).map(|e| {
                        let id = e.id.as_deref().unwrap_or("");
                        let what = e.role.as_deref().unwrap_or(&e.entry_type);
                        let preview: String = e.preview.chars().take(90).collect();
                        switch(changes, on_set, format!("entry:{id}"), html! {
                            <><code class="mono small">{id}</code>{" "}<span class="badge">{what}</span>{" "}<span class="small">{preview}</span></>
                        }, false)
                    }) }
                    </ul>
                </details>
            }
        </fieldset>
    })
}

/// The tool results group, largest first: each can be cut to its first N lines.
fn results_group(ctl: Controls, r: &Report) -> Option<Html> {
    let results = tool_results_by_size(r);
    const RESULTS_SHOWN: usize = 50;
    (!results.is_empty()).then(|| html! {
        <fieldset class="whatif-group" data-testid="whatif-tool-results">
            <legend>{"Tool results"}<span class="muted small">{" · cut one to its first lines; largest first"}</span></legend>
            if results.len() > RESULTS_SHOWN {
                <p class="muted small">{format!("The {RESULTS_SHOWN} largest of {} shown; any other as tool-result:ID:N in the URL.", results.len())}</p>
            }
            <ul class="whatif-list">
            { for results.iter().take(RESULTS_SHOWN).map(|(e, t)| {
                let id = e.id.clone().unwrap_or_default();
                html! {
                    <CutRow id={id.clone()} tool={t.tool_name.clone().unwrap_or_default()} chars={t.chars as f64}
                        lines={t.lines} cut={cut_of(ctl.changes, &id)}
                        changes={ctl.changes.to_vec()} on_set={ctl.on_set.clone()} />
                }
            }) }
            </ul>
        </fieldset>
    })
}

/// The images group: all of them (pi's setting), or one entry's, largest first.
fn images_group(ctl: Controls, r: &crate::report::Report) -> Option<Html> {
    let (changes, on_set) = (ctl.changes, ctl.on_set);
    let image_entries = image_entries_by_size(r);
    let request_images = r
        .stats
        .as_ref()
        .map_or(0.0, |s| s.history.by_kind.images as f64);
    let all_off = changes.iter().any(|c| c == "image:all");
    (request_images > 0.0 || !image_entries.is_empty()).then(|| html! {
        <fieldset class="whatif-group" data-testid="whatif-images">
            <legend>{"Images"}<span class="muted small">{" · largest first"}</span></legend>
            <ul class="whatif-list">
                {switch(changes, on_set, "image:all".into(), html! { <>{format!("every image ({} in the request)", thousands(request_images))}<span class="muted small">{" (settings.json images.blockImages)"}</span></> }, false)}
                { for image_entries.iter().map(|(e, im)| {
                    let id = e.id.as_deref().unwrap_or("");
                    let n = im.count;
                    switch(changes, on_set, format!("image:{id}"), html! {
                        <><code class="mono small">{id}</code>{" "}<span class="badge">{e.role.as_deref().unwrap_or(&e.entry_type)}</span>
                        <span class="muted small">{format!(" {} image{}, {} characters of data", thousands(n as f64), if n == 1 { "" } else { "s" }, thousands(im.chars as f64))}</span></>
                    }, all_off)
                }) }
            </ul>
        </fieldset>
    })
}

/// The value setting `k` is set to among the changes (the last `k=VALUE`), if any.
fn current_setting(changes: &[String], k: &str) -> Option<String> {
    changes
        .iter()
        .rev()
        .find(|c| set_key(c) == Some(k))
        .and_then(|c| c.split_once('='))
        .map(|(_, v)| v.to_string())
}

/// A select of setting `key`'s `options`, beside "as it is".
fn setting_select(ctl: Controls, key: &'static str, label: &str, options: Vec<String>) -> Html {
    let on_set = ctl.on_set.clone();
    let changes2 = ctl.changes.to_vec();
    let cur = current_setting(ctl.changes, key).unwrap_or_default();
    html! {
        <label class="whatif-setting">{label}{" "}
            <select data-testid={format!("whatif-set-{key}")} onchange={Callback::from(move |e: Event| {
                let v = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value();
                on_set.emit(with_setting(&changes2, key, Some(&v)));
            })}>
                <option value="" selected={cur.is_empty()}>{"as it is"}</option>
                { for options.iter().map(|o| html! { <option value={o.clone()} selected={*o == cur}>{o}</option> }) }
            </select>
        </label>
    }
}

/// The settings group: thinking level, protocol and pi release to choose, a model to type.
fn settings_group(ctl: Controls, model_text: &UseStateHandle<String>) -> Html {
    let set_model = {
        let (on_set, changes2, text) =
            (ctl.on_set.clone(), ctl.changes.to_vec(), model_text.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            on_set.emit(with_setting(&changes2, "model", Some(text.trim())));
        })
    };
    html! {
        <fieldset class="whatif-group" data-testid="whatif-settings">
            <legend>{"Model, thinking, protocol, release"}</legend>
            {setting_select(ctl, "thinking", "thinking level", ctxlens::model::THINKING_LEVELS.iter().map(|s| s.to_string()).collect())}
            {setting_select(ctl, "api", "protocol", ctxlens::Api::ALL.iter().map(|a| a.as_str().to_string()).collect())}
            {setting_select(ctl, "pi", "pi release", ctxlens::PiVersion::ALL.iter().rev().map(|v| v.as_str().to_string()).collect())}
            <form class="whatif-setting" onsubmit={set_model}>
                <label>{"model "}
                    <input type="text" class="mono" placeholder={current_setting(ctl.changes, "model").unwrap_or_else(|| "provider/id".into())} data-testid="whatif-set-model"
                        oninput={{ let t = model_text.clone(); Callback::from(move |e: InputEvent| t.set(e.target_unchecked_into::<web_sys::HtmlInputElement>().value())) }} />
                </label>
                <button class="button" type="submit">{"Set"}</button>
            </form>
        </fieldset>
    }
}

/// The findings as actions: one button each that makes its changes.
fn suggestion_buttons(ctl: Controls, r: &Report) -> Vec<Html> {
    let (changes, on_set) = (ctl.changes, ctl.on_set);
    let mut out = Vec::new();
    let (specs, chars) = largest_extension_tools(r);
    if !specs.is_empty() {
        let label = extension_tools_label(&specs, chars);
        let next = with_all(changes, &specs);
        let cb = on_set.clone();
        out.push(html! { <li><button class="button" data-testid="whatif-suggest-extension-tools" onclick={Callback::from(move |_: MouseEvent| cb.emit(next.clone()))}>{label}</button></li> });
    }
    for (path, spec, label) in shadowing_suggestions(r) {
        let next = with_all(changes, std::slice::from_ref(&spec));
        let cb = on_set.clone();
        out.push(html! { <li><button class="button" data-testid="whatif-suggest-shadowed" data-file={path} data-changes={spec} onclick={Callback::from(move |_: MouseEvent| cb.emit(next.clone()))}>{label}</button></li> });
    }
    for name in invocable_skills(r) {
        let next = with_all(changes, &[format!("skill-invocation:{name}")]);
        let cb = on_set.clone();
        out.push(html! { <li><button class="button" data-testid={format!("whatif-suggest-skill-{name}")} onclick={Callback::from(move |_: MouseEvent| cb.emit(next.clone()))}>{format!("What does skill {name} cost per call? Hide it from the model")}</button></li> });
    }
    out
}

/// The result pane: the what-if of `key` (api, changes, tokens) as `shown`, or why there is none.
fn result_html(
    shown: Option<&Upgrading>,
    key: &WhatIfKey,
    on_whatif: &Callback<WhatIfKey>,
) -> Html {
    let (api, changes) = (&key.0, &key.1);
    match shown {
        _ if api.is_empty() => super::util::not_available(
            "This report names no protocol (no model): there is nothing to rebuild.",
        ),
        _ if changes.is_empty() => {
            html! { <p class="muted" data-testid="whatif-idle">{"Switch something off on the left (or pick a suggestion): the request is rebuilt with the change in the worker and compared with the one pi sends now."}</p> }
        }
        Some(Upgrading::Ready(w)) => whatif_html(w),
        Some(Upgrading::Failed(why)) => {
            let again = {
                let (cb, key) = (on_whatif.clone(), key.clone());
                Callback::from(move |_: MouseEvent| cb.emit(key.clone()))
            };
            html! {
                <div class="compare-failed" data-testid="whatif-failed" role="alert">
                    <p class="na" data-testid="whatif-error">{why}</p>
                    <button class="button" onclick={again}>{"Try again"}</button>
                </div>
            }
        }
        Some(Upgrading::Pending { stage, done }) => {
            let pct = (done.clamp(0.0, 1.0) * 100.0).round();
            html! {
                <p class="muted loading" data-testid="whatif-pending" aria-busy="true">
                    <progress class="progress" max="100" value={pct.to_string()} aria-label="what-if progress"></progress>
                    {format!(" {stage}…")}
                </p>
            }
        }
        None => {
            html! { <p class="muted loading" data-testid="whatif-pending" aria-busy="true"><span class="spinner" aria-hidden="true"></span>{"rebuilding in the worker…"}</p> }
        }
    }
}

/// The changes made, a chip each to remove it, and a button to remove them all.
fn changes_chips(ctl: Controls) -> Html {
    let (changes, on_set) = (ctl.changes, ctl.on_set);
    html! {
        <div class="whatif-changes" data-testid="whatif-changes" data-changes={changes.join(",")}>
            <span class="small">{"Changes: "}</span>
            if changes.is_empty() { <span class="muted small">{"none"}</span> }
            { for changes.iter().map(|c| {
                let (cb, next) = (on_set.clone(), toggled(changes, c));
                html! { <button class="chip on" title="remove this change" onclick={Callback::from(move |_: MouseEvent| cb.emit(next.clone()))}>{c}{" ×"}</button> }
            }) }
            if !changes.is_empty() {
                <button class="button" data-testid="whatif-reset" onclick={{ let cb = on_set.clone(); Callback::from(move |_: MouseEvent| cb.emit(Vec::new())) }}>{"Back to as it is"}</button>
            }
        </div>
    }
}

/// The request on screen beside the same inputs with the changes made.
#[function_component]
pub fn WhatIfView(p: &ViewProps) -> Html {
    let model_text = use_state(String::new);
    let api = p.api.to_string();
    let r = &*p.report;
    let changes = p.whatif.clone();
    let key: WhatIfKey = (api.clone(), changes.clone(), super::counted(&p.tokens));
    let shown = Upgrading::shown(&p.whatifs, &key, &(api.clone(), changes.clone(), false));
    {
        let on_whatif = p.on_whatif.clone();
        // What the view wants now, each time it changes (no changes: nothing); the reducer
        // sends it, keeps it waiting behind the one in flight, or has its answer already.
        let want = (!api.is_empty()).then(|| key.clone());
        use_effect_with(want, move |want| {
            if let Some(k) = want {
                on_whatif.emit(k.clone());
            }
        });
    }
    let ctl = Controls {
        changes: &changes,
        on_set: &p.on_set_whatif,
    };
    let suggestions = suggestion_buttons(ctl, r);
    let state = match &shown {
        _ if changes.is_empty() => "idle",
        Some(Upgrading::Ready(_)) => "ready",
        Some(Upgrading::Failed(_)) => "failed",
        _ => "pending",
    };
    html! {
        <section class="whatif-view" data-testid="whatif-view" data-state={state}>
            <h3>{"What if"}<span class="muted small">{format!(" · {api}")}</span></h3>
            <p class="small">{"Switch off a tool, a skill, a context file or part of the history, or change the model or thinking level, and see the request pi would send then: what it saves per call, what it does to the provider's prompt cache, and how to make the change for real in pi. Several changes at once; the link keeps them."}</p>
            {changes_chips(ctl)}
            <div class="whatif-layout">
                <div class="whatif-controls">
                    if !suggestions.is_empty() {
                        <fieldset class="whatif-group" data-testid="whatif-suggestions">
                            <legend>{"Suggestions"}</legend>
                            <ul class="whatif-list">{ for suggestions }</ul>
                        </fieldset>
                    }
                    {tools_group(ctl, r)}
                    {skills_group(ctl, &r.resources)}
                    {context_group(ctl, &r.resources)}
                    {for history_group(ctl, r)}
                    {for results_group(ctl, r)}
                    {for images_group(ctl, r)}
                    {settings_group(ctl, &model_text)}
                </div>
                <div class="whatif-result" data-testid="whatif-result">{result_html(shown.as_ref(), &key, &p.on_whatif)}</div>
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: &[&str]) -> Vec<String> {
        x.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn changes_switch_set_and_add() {
        assert_eq!(
            toggled(&v(&["tool:bash"]), "skill:a"),
            v(&["tool:bash", "skill:a"])
        );
        assert_eq!(
            toggled(&v(&["tool:bash", "skill:a"]), "tool:bash"),
            v(&["skill:a"])
        );
        assert_eq!(
            with_setting(&v(&["thinking=high", "tool:x"]), "thinking", Some("low")),
            v(&["tool:x", "thinking=low"])
        );
        assert_eq!(
            with_setting(&v(&["thinking=high"]), "thinking", Some("")),
            v(&[])
        );
        assert_eq!(
            with_all(&v(&["tool:a"]), &v(&["tool:a", "tool:b"])),
            v(&["tool:a", "tool:b"])
        );
        // A cut replaces the cut of the same result, never another's.
        assert_eq!(
            with_cut(
                &v(&["tool-result:a:3", "tool-result:ab:2", "tool-result:a"]),
                "a",
                1
            ),
            v(&["tool-result:ab:2", "tool-result:a:1"])
        );
        assert_eq!(
            cut_of(&v(&["tool-result:ab:2", "tool-result:a:1"]), "a"),
            Some(1)
        );
        assert_eq!(cut_of(&v(&["tool-result:ab:2"]), "a"), None);
    }
}

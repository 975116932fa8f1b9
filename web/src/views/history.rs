//! The history: by wire role, by kind (thinking, tool arguments, tool results, user text), and
//! the size of each tool's results.

use ctxlens::report::types::ModelInfo;
use ctxlens::report::types::{MessageSize, ToolResultSize};
use yew::prelude::*;

use super::components::charts::{BarRow, Bars, Seg, StackedBar};
use super::components::{color, thousands};
use super::overview::KIND_LABELS;
use super::tokens::{TokenNote, Tokens};
use super::util::not_available;
use super::{ViewProps, MESSAGE_ROWS};

pub fn kind_color(k: &str) -> String {
    match k {
        "userText" => color(0),
        "assistantText" => color(2),
        "reasoning" => color(3),
        "toolArguments" => color(1),
        "toolResults" => color(4),
        "signatures" => color(7),
        "imageData" => color(8),
        _ => color(6),
    }
}

#[function_component]
pub fn HistoryView(p: &ViewProps) -> Html {
    let r = &*p.report;
    let Some(h) = r.stats.as_ref().map(|st| &st.history) else {
        return html! { <section class="history-view">{not_available("No history statistics (nothing was assembled).")}</section> };
    };
    let total = h.chars as f64;
    let t = Tokens::of(p);
    let model = r.model.as_ref().map(ModelInfo::key).unwrap_or_default();
    let kind = |k: &str| h.by_kind.of(k).unwrap_or(0) as f64;
    // Each kind's characters and tokens (image data and signatures are not counted in tokens:
    // providers do not read them as text).
    let kind_rows: Vec<Html> = KIND_LABELS
        .iter()
        .filter(|(k, _)| *k != "images")
        .map(|(k, l)| {
            let tokens = if matches!(*k, "imageData" | "signatures") {
                "not text".to_string()
            } else {
                t.cell(t.read(|s| s.history.by_kind_tokens.as_ref()?.of(k)))
            };
            html! {
                <tr data-kind={*k}>
                    <th><span class="sw" style={format!("background:{}", kind_color(k))}></span>{*l}</th>
                    <td class="num">{thousands(kind(k))}</td>
                    <td class="num" data-testid="kind-tokens">{tokens}</td>
                </tr>
            }
        })
        .collect();
    // The messages of the body, largest first (the first MESSAGE_ROWS).
    let mut messages: Vec<(usize, &MessageSize)> = h.by_message.iter().enumerate().collect();
    let message_count = h.message_count();
    messages.sort_by_key(|m| std::cmp::Reverse(m.1.chars));
    messages.truncate(MESSAGE_ROWS);
    let kinds: Vec<Seg> = KIND_LABELS
        .iter()
        .map(|(k, l)| Seg::new(*l, kind(k), kind_color(k)).key(format!("kind:{k}")))
        .collect();
    let roles: Vec<BarRow> = h
        .by_role
        .iter()
        .map(|x| BarRow {
            label: x.role.clone(),
            key: Some(format!("role:{}", x.role)),
            segs: vec![Seg::new(&x.role, x.chars as f64, "var(--history)")],
            extra: vec![
                t.cell(t.read(|s| *s.history.by_role.iter().find(|y| y.role == x.role)?.tokens)),
                thousands(x.count as f64),
            ],
        })
        .collect();
    let mut results: Vec<&ToolResultSize> = h.tool_results_by_tool.iter().collect();
    results.sort_by_key(|x| std::cmp::Reverse(x.chars));
    let result_rows: Vec<BarRow> = results
        .iter()
        .map(|x| BarRow {
            label: x.name.clone(),
            key: Some(format!("tool:{}", x.name)),
            segs: vec![Seg::new(
                "results",
                x.chars as f64,
                kind_color("toolResults"),
            )],
            extra: vec![
                t.cell(t.read(|s| {
                    *s.history
                        .tool_results_by_tool
                        .iter()
                        .find(|y| y.name == x.name)?
                        .tokens
                })),
                thousands(x.count as f64),
                if x.count > 0 {
                    thousands((x.chars as f64 / x.count as f64).round())
                } else {
                    "–".into()
                },
            ],
        })
        .collect();
    html! {
        <section class="history-view" data-testid="history-view">
            <h3>{format!("History · {} chars", thousands(total))}<span class="muted small" data-testid="history-tokens">{format!(" · {}", t.phrase(t.read(|s| *s.history.tokens)))}</span></h3>
            <TokenNote tokens={p.tokens.clone()} model={model.clone()} />
            <h4>{"By kind"}</h4>
            <StackedBar segs={kinds} testid="history-kinds" selected={p.selection.clone()} on_select={p.on_select.clone()} />
            <table class="kinds small" data-testid="history-kind-table">
                <thead><tr><th>{"kind"}</th><th class="num">{"chars"}</th><th class="num" title={super::tokens::VOCABULARY_HELP}>{t.head()}</th></tr></thead>
                <tbody>{ for kind_rows }</tbody>
            </table>
            <div class="two-col">
                <div>
                    <h4>{"By wire role"}</h4>
                    if roles.is_empty() { <p class="muted small">{"No messages."}</p> } else {
                        <Bars rows={roles} testid="history-roles" extra_heads={vec![t.head(), "messages"]} selected={p.selection.clone()} on_select={p.on_select.clone()} />
                    }
                </div>
                <div>
                    <h4>{"Tool results by tool"}</h4>
                    if result_rows.is_empty() { <p class="muted small">{"No tool results."}</p> } else {
                        <Bars rows={result_rows} testid="history-results" extra_heads={vec![t.head(), "results", "avg"]} selected={p.selection.clone()} on_select={p.on_select.clone()} />
                    }
                </div>
            </div>
            <h4>{format!("By message · {message_count}")}<span class="muted small">{ if message_count > MESSAGE_ROWS { format!(" · the {MESSAGE_ROWS} largest") } else { " · largest first".to_string() } }</span></h4>
            if messages.is_empty() { <p class="muted small">{"No messages."}</p> } else {
                <table class="messages small" data-testid="history-messages">
                    <thead><tr><th>{"#"}</th><th title="where the message is in the request body">{"in the body"}</th><th>{"role"}</th><th title="the session lines it comes from (none: pi inserted it)">{"session lines"}</th><th class="num">{"chars"}</th><th class="num" title={super::tokens::VOCABULARY_HELP}>{t.head()}</th></tr></thead>
                    <tbody>
                    { for messages.iter().map(|(i, m)| {
                        let lines: Vec<String> = m.lines.iter().map(|l| l.to_string()).collect();
                        html! {
                            <tr data-path={m.path.clone()}>
                                <td class="muted">{i + 1}</td>
                                <td class="mono">{m.path.clone()}</td>
                                <td>{m.role.clone()}</td>
                                <td>{ if lines.is_empty() { "inserted by pi".to_string() } else { lines.join(", ") } }</td>
                                <td class="num">{thousands(m.chars as f64)}</td>
                                <td class="num" data-testid="message-tokens">{t.cell(t.read(|s| *s.history.by_message.get(*i)?.tokens))}</td>
                            </tr>
                        }
                    }) }
                    </tbody>
                </table>
            }
        </section>
    }
}

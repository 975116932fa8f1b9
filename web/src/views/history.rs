//! The history: by wire role, by kind (thinking, tool arguments, tool results, user text), and
//! the size of each tool's results.

use ctxlens::js::Value;
use yew::prelude::*;

use super::components::charts::{BarRow, Bars, Seg, StackedBar};
use super::components::{color, thousands};
use super::overview::KIND_LABELS;
use super::tokens::{TokenNote, Tokens};
use super::util::{at, not_available, num, s};
use super::ViewProps;

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
    let Some(h) = at(r, &["stats", "history"]).filter(|v| !v.is_null()) else {
        return html! { <section class="history-view">{not_available("No history statistics (nothing was assembled).")}</section> };
    };
    let total = num(h, "chars");
    let t = Tokens::of(p);
    let model = r
        .get("model")
        .map(|m| format!("{}/{}", s(m, "provider"), s(m, "id")))
        .unwrap_or_default();
    // Each kind's characters and tokens (image data and signatures are not counted in tokens:
    // providers do not read them as text).
    let kind_rows: Vec<Html> = KIND_LABELS
        .iter()
        .filter(|(k, _)| *k != "images")
        .map(|(k, l)| {
            let chars = at(h, &["byKind", k]).and_then(Value::as_f64).unwrap_or(0.0);
            let tokens = if matches!(*k, "imageData" | "signatures") {
                "not text".to_string()
            } else {
                t.cell(t.num(&["history", "byKindTokens", k]))
            };
            html! {
                <tr data-kind={*k}>
                    <th><span class="sw" style={format!("background:{}", kind_color(k))}></span>{*l}</th>
                    <td class="num">{thousands(chars)}</td>
                    <td class="num" data-testid="kind-tokens">{tokens}</td>
                </tr>
            }
        })
        .collect();
    // The messages of the body, largest first (the first MESSAGE_ROWS).
    let mut messages: Vec<(usize, Value)> = at(h, &["byMessage"])
        .and_then(Value::as_array)
        .map(|a| a.iter().cloned().enumerate().collect())
        .unwrap_or_default();
    let message_count = messages.len();
    messages.sort_by(|a, b| {
        num(&b.1, "chars")
            .partial_cmp(&num(&a.1, "chars"))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    messages.truncate(MESSAGE_ROWS);
    let kinds: Vec<Seg> = KIND_LABELS
        .iter()
        .map(|(k, l)| {
            Seg::new(
                *l,
                at(h, &["byKind", k]).and_then(Value::as_f64).unwrap_or(0.0),
                kind_color(k),
            )
            .key(format!("kind:{k}"))
        })
        .collect();
    let roles: Vec<BarRow> = at(h, &["byRole"])
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|x| BarRow {
                    label: s(x, "role").to_string(),
                    key: Some(format!("role:{}", s(x, "role"))),
                    segs: vec![Seg::new(s(x, "role"), num(x, "chars"), "var(--history)")],
                    extra: vec![
                        t.cell(t.find(&["history", "byRole"], "role", s(x, "role"))),
                        thousands(num(x, "count")),
                    ],
                })
                .collect()
        })
        .unwrap_or_default();
    let mut results: Vec<Value> = at(h, &["toolResultsByTool"])
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    results.sort_by(|a, b| {
        num(b, "chars")
            .partial_cmp(&num(a, "chars"))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let result_rows: Vec<BarRow> = results
        .iter()
        .map(|x| BarRow {
            label: s(x, "name").to_string(),
            key: Some(format!("tool:{}", s(x, "name"))),
            segs: vec![Seg::new(
                "results",
                num(x, "chars"),
                kind_color("toolResults"),
            )],
            extra: vec![
                t.cell(t.find(&["history", "toolResultsByTool"], "name", s(x, "name"))),
                thousands(num(x, "count")),
                if num(x, "count") > 0.0 {
                    thousands((num(x, "chars") / num(x, "count")).round())
                } else {
                    "–".into()
                },
            ],
        })
        .collect();
    html! {
        <section class="history-view" data-testid="history-view">
            <h3>{format!("History · {} chars", thousands(total))}<span class="muted small" data-testid="history-tokens">{format!(" · {}", t.phrase(t.at(&["history"])))}</span></h3>
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
                        let lines: Vec<String> = m.get("lines").and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_f64).map(|l| l.to_string()).collect()).unwrap_or_default();
                        html! {
                            <tr data-path={s(m, "path").to_string()}>
                                <td class="muted">{i + 1}</td>
                                <td class="mono">{s(m, "path")}</td>
                                <td>{s(m, "role")}</td>
                                <td>{ if lines.is_empty() { "inserted by pi".to_string() } else { lines.join(", ") } }</td>
                                <td class="num">{thousands(num(m, "chars"))}</td>
                                <td class="num" data-testid="message-tokens">{t.cell(t.index(&["history", "byMessage"], *i, "tokens"))}</td>
                            </tr>
                        }
                    }) }
                    </tbody>
                </table>
            }
        </section>
    }
}

/// Rows of the message table.
const MESSAGE_ROWS: usize = 200;

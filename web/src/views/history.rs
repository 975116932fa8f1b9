//! The history: by wire role, by kind (thinking, tool arguments, tool results, user text), and
//! the size of each tool's results.

use ctxlens::js::Value;
use yew::prelude::*;

use super::components::charts::{BarRow, Bars, Seg, StackedBar};
use super::components::{color, thousands};
use super::overview::KIND_LABELS;
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
                    extra: vec![thousands(num(x, "count"))],
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
            <h3>{format!("History · {} chars", thousands(total))}</h3>
            <h4>{"By kind"}</h4>
            <StackedBar segs={kinds} testid="history-kinds" selected={p.selection.clone()} on_select={p.on_select.clone()} />
            <div class="two-col">
                <div>
                    <h4>{"By wire role"}</h4>
                    if roles.is_empty() { <p class="muted small">{"No messages."}</p> } else {
                        <Bars rows={roles} testid="history-roles" extra_heads={vec!["messages"]} selected={p.selection.clone()} on_select={p.on_select.clone()} />
                    }
                </div>
                <div>
                    <h4>{"Tool results by tool"}</h4>
                    if result_rows.is_empty() { <p class="muted small">{"No tool results."}</p> } else {
                        <Bars rows={result_rows} testid="history-results" extra_heads={vec!["results", "avg"]} selected={p.selection.clone()} on_select={p.on_select.clone()} />
                    }
                </div>
            </div>
        </section>
    }
}

//! The active tools, sorted by size: description vs schema bars, snippet present or not, the
//! guidelines each contributes to the system prompt. 0.86 on, the tools the request sends are
//! the declarations stored in the session's system messages (`declaredTools`): the view lists
//! those, with the active tool's snippet and guidelines where it has one. Where tools come from
//! pi packages (a tool set's `sourceInfo`, or the session's tools assumed to be one package's),
//! they are grouped by package, pi's own first, with each package's total.

use ctxlens::js::Value;
use ctxlens::report::types::ModelInfo;
use yew::prelude::*;

use super::components::charts::{BarRow, Bars, Seg};
use super::components::json_tree::JsonTree;
use super::components::thousands;
use super::tokens::{TokenNote, Tokens};
use super::util::not_available;
use super::ViewProps;
use crate::report::Report;
use crate::shared::Shared;

struct Row {
    name: String,
    source: String,
    chars: f64,
    desc: f64,
    params: f64,
    snippet: Option<String>,
    guidelines: Vec<String>,
    prompt_chars: f64,
    /// 0.86 on: where the declaration sent was stored, and whether it asks for strict sampling.
    stored: Option<String>,
    strict: bool,
    /// The pi package whose extension registered it.
    package: Option<String>,
}

/// A tool the view lists: 0.86 on a declaration the request sends, else an active tool.
struct Listed<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
    chars: usize,
    /// 0.86 on: the label of the system message that declared it ("" when none did).
    stored: Option<String>,
    strict: bool,
}

/// The tools the view lists, in the report's order.
fn listed(r: &Report) -> Vec<Listed<'_>> {
    match &r.declared_tools {
        Some(declared) => declared
            .iter()
            .map(|t| Listed {
                name: &t.name,
                description: &t.description,
                parameters: &t.parameters,
                chars: t.chars,
                stored: Some(
                    t.stored
                        .as_ref()
                        .map(|s| s.label.clone())
                        .unwrap_or_default(),
                ),
                strict: t
                    .constrained_sampling
                    .as_ref()
                    .is_some_and(|c| c.get_str("type") == Some("json_schema")),
            })
            .collect(),
        None => r
            .tools
            .iter()
            .map(|t| Listed {
                name: &t.name,
                description: &t.description,
                parameters: &t.parameters,
                chars: t.chars,
                stored: None,
                strict: false,
            })
            .collect(),
    }
}

fn rows(r: &Report) -> Vec<Row> {
    let (by_tool, sections) = match &r.stats {
        Some(st) => (
            st.tools.by_tool.as_slice(),
            st.system_prompt.sections.as_slice(),
        ),
        None => (&[][..], &[][..]),
    };
    let declared = r.declared_tools.is_some();
    let mut out: Vec<Row> = listed(r)
        .into_iter()
        .map(|t| {
            let st = by_tool.iter().find(|b| b.name == t.name);
            let chars = t.chars as f64;
            // 0.86 on, the active tool of that name (its snippet, guidelines and source).
            let active = r.tools.iter().find(|a| a.name == t.name);
            Row {
                package: active.and_then(|a| a.package.clone()),
                source: match active {
                    Some(a) => a.source.clone(),
                    None if declared => "not active".to_string(),
                    None => String::new(),
                },
                desc: st.map_or(0.0, |b| b.description_chars as f64),
                params: st.map_or(chars, |b| b.parameters_chars as f64),
                chars,
                snippet: active.and_then(|a| a.prompt_snippet.clone()),
                guidelines: active
                    .map(|a| a.prompt_guidelines.clone())
                    .unwrap_or_default(),
                prompt_chars: sections
                    .iter()
                    .filter(|x| x.source == t.name)
                    .map(|x| x.chars as f64)
                    .sum(),
                name: t.name.to_string(),
                stored: t.stored,
                strict: t.strict,
            }
        })
        .collect();
    // pi's own first, then each package in the order pi resolves them; by size within each.
    let order: Vec<&str> = r.packages.iter().map(|p| p.source.as_str()).collect();
    let group = |row: &Row| match &row.package {
        None => 0,
        Some(p) => 1 + order.iter().position(|o| o == p).unwrap_or(order.len()),
    };
    out.sort_by(|a, b| {
        group(a).cmp(&group(b)).then(
            b.chars
                .partial_cmp(&a.chars)
                .unwrap_or(std::cmp::Ordering::Equal),
        )
    });
    out
}

/// Each package's tools and their size, in the rows' order (none when no tool has a package).
fn package_totals(list: &[Row]) -> Vec<(String, usize, f64)> {
    let mut out: Vec<(String, usize, f64)> = Vec::new();
    for row in list {
        let Some(p) = &row.package else { continue };
        match out.iter_mut().find(|(name, _, _)| name == p) {
            Some(slot) => {
                slot.1 += 1;
                slot.2 += row.chars;
            }
            None => out.push((p.clone(), 1, row.chars)),
        }
    }
    out
}

#[function_component]
pub fn ToolsView(p: &ViewProps) -> Html {
    let r = &*p.report;
    let list = rows(r);
    let selected = p
        .selection
        .as_deref()
        .and_then(|k| k.strip_prefix("tool:"))
        .map(str::to_string);
    let params = use_memo((p.report.clone(), selected.clone()), |(rep, sel)| {
        let v = sel.as_ref().and_then(|n| {
            listed(rep)
                .into_iter()
                .find(|t| t.name == n)
                .map(|t| t.parameters.clone())
        });
        Shared::new(v.unwrap_or(Value::Null))
    });
    if list.is_empty() {
        return html! { <section class="tools-view">{not_available("No tools are active.")}</section> };
    }
    let total: f64 = list.iter().map(|t| t.chars).sum();
    let tk = Tokens::of(p);
    let model = r.model.as_ref().map(ModelInfo::key).unwrap_or_default();
    let declared = r.declared_tools.is_some();
    let prompt_total: f64 = list.iter().map(|t| t.prompt_chars).sum();
    let by_package = package_totals(&list);
    let grouped = !by_package.is_empty();
    let bar_rows: Vec<BarRow> = list
        .iter()
        .map(|t| BarRow {
            label: t.name.clone(),
            key: Some(format!("tool:{}", t.name)),
            segs: vec![
                Seg::new("description", t.desc, "var(--v-desc)"),
                Seg::new("parameters schema", t.params, "var(--tools)"),
            ],
            extra: vec![
                tk.cell(tk.tool(&t.name)),
                match &t.package {
                    Some(p) => format!("{} · {p}", t.source),
                    None => t.source.clone(),
                },
                if t.snippet.is_some() {
                    "✓".into()
                } else {
                    "—".into()
                },
                if t.guidelines.is_empty() {
                    "—".into()
                } else {
                    format!(
                        "{} · {} ch",
                        t.guidelines.len(),
                        t.guidelines
                            .iter()
                            .map(|g| ctxlens::js::utf16_len(g))
                            .sum::<usize>()
                    )
                },
                if t.prompt_chars > 0.0 {
                    thousands(t.prompt_chars)
                } else {
                    "—".into()
                },
            ]
            .into_iter()
            .chain(t.stored.clone())
            .collect(),
        })
        .collect();
    let heads = if declared {
        vec![
            tk.head(),
            "source",
            "snippet",
            "rules",
            "in prompt",
            "declared by",
        ]
    } else {
        vec![tk.head(), "source", "snippet", "guidelines", "in prompt"]
    };
    let sel = selected
        .as_ref()
        .and_then(|n| list.iter().find(|t| &t.name == n));
    let on_json = {
        let cb = p.on_select.clone();
        let name = selected.clone().unwrap_or_default();
        Callback::from(move |path: Option<String>| {
            cb.emit(path.map(|x| AttrValue::from(format!("tool:{name}:{x}"))))
        })
    };
    html! {
        <section class="tools-view" data-testid="tools-view">
            <h3>{format!("{} tools · {} chars in the request's tool definitions", list.len(), thousands(total))}
                <span class="muted small" data-testid="tools-tokens">{format!(" · {}", tk.phrase(tk.read(|s| *s.tools.tokens)))}</span>
                <span class="muted small">{format!(" · plus {} chars of snippets and {} in the system prompt", thousands(prompt_total), if declared { "rules" } else { "guidelines" })}</span></h3>
            <TokenNote tokens={p.tokens.clone()} model={model.clone()} />
            <ul class="legend inline">
                <li><span class="sw" style="background:var(--v-desc)"></span><span class="lbl">{"description"}</span></li>
                <li><span class="sw" style="background:var(--tools)"></span><span class="lbl">{"parameters schema"}</span></li>
            </ul>
            if grouped {
                <p class="small" data-testid="tools-packages">
                    <span class="muted">{"From pi packages (listed after pi's own): "}</span>
                    { for by_package.iter().map(|(name, n, chars)| html! {
                        <span data-package={name.clone()}><span class="mono">{name}</span>{format!(" {n} tool(s) · {} chars ", thousands(*chars))}</span>
                    }) }
                </p>
            }
            <Bars rows={bar_rows} testid="tools-bars" selected={p.selection.clone()} on_select={p.on_select.clone()}
                  extra_heads={heads} />
            if declared {
                <p class="muted small" data-testid="tools-declared-note">{"The tools sent are the declarations stored in the session's system messages (\"declared by\": the line of the one that declared it, or this run), in the order pi replays them."}</p>
            }
            if let Some(t) = sel {
                <div class="detail" data-testid="tool-detail">
                    <h4 class="mono">{&t.name}<span class="muted small">{format!(" · {} · {} chars ({} description + {} schema)", t.source, thousands(t.chars), thousands(t.desc), thousands(t.params))}</span></h4>
                    <p class="small" data-testid="tool-tokens">{ match tk.stats().and_then(|s| s.tools.by_tool.iter().find(|x| x.name == t.name)) {
                        Some(x) if x.tokens.is_some() => format!("{} ({} description + {} schema)",
                            tk.phrase(x.tokens.map(|n| n as f64)),
                            thousands(x.description_tokens.unwrap_or(0) as f64),
                            thousands(x.parameters_tokens.unwrap_or(0) as f64)),
                        _ => tk.phrase(None),
                    } }</p>
                    <p class="desc">{ listed(r).into_iter().find(|x| x.name == t.name).map(|x| x.description.to_string()).unwrap_or_default() }</p>
                    <dl class="kv">
                        <dt>{"snippet"}</dt><dd>{ t.snippet.clone().unwrap_or_else(|| if declared { "none: the tool is not listed in the tools section".into() } else { "none: the tool is not listed under \"Available tools\"".into() }) }</dd>
                        if let Some(st) = &t.stored {
                            <dt title="the system message stored in the session that declared this tool as it is sent">{"declared by"}</dt><dd>{st}</dd>
                            <dt title="constrainedSampling: the tool asks for strict JSON-schema sampling; pi rewrites its schema when the model supports strict mode">{"strict sampling"}</dt><dd>{ if t.strict { "asked for (\"prefer\")" } else { "no" } }</dd>
                        }
                        <dt>{ if declared { "rules" } else { "guidelines" } }</dt>
                        <dd>if t.guidelines.is_empty() { {"none"} } else { <ul>{ for t.guidelines.iter().map(|g| html! { <li>{g}</li> }) }</ul> }</dd>
                    </dl>
                    <h4>{"Parameters"}</h4>
                    <JsonTree value={(*params).clone()} on_select={on_json} open_depth={3} testid="tool-params" />
                </div>
            } else {
                <p class="muted small">{"Select a tool for its description, guidelines and schema."}</p>
            }
        </section>
    }
}

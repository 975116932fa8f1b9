//! The compare mode: two protocols side by side — where each block of the request went (the
//! seed's mapping table) and a loss report (what one drops, renames or adds). Uses the core's
//! comparison when a report carries one (`compare`), else computes it from the two reports'
//! stats, traces and bodies.

use std::collections::{BTreeMap, BTreeSet};

use ctxlens::js::Value;
use yew::prelude::*;

use super::components::thousands;
use super::overview::KIND_LABELS;
use super::request::provenance_map;
use super::util::{arr, at, not_available, num, parsed_body, s, text_of};
use super::ViewProps;
use crate::shared::Shared;

/// Every node of a body: (generalized path with `[]` for indices, full path, value).
fn nodes<'a>(v: &'a Value, full: String, gen: String, out: &mut Vec<(String, String, &'a Value)>) {
    out.push((gen.clone(), full.clone(), v));
    let join = |p: &str, k: &str| if p.is_empty() { k.to_string() } else { format!("{p}.{k}") };
    match v {
        Value::Object(o) => {
            for (k, x) in o.iter() {
                nodes(x, join(&full, k), join(&gen, k), out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                nodes(x, join(&full, &i.to_string()), format!("{gen}[]"), out);
            }
        }
        _ => {}
    }
}

fn last_key(gen: &str) -> &str {
    gen.rsplit('.').next().unwrap_or(gen).trim_end_matches("[]")
}

/// Where each block of one report's request sits: block → generalized paths (or values).
pub fn locate(report: &Value, body: &Value) -> BTreeMap<&'static str, Vec<String>> {
    let mut all = Vec::new();
    nodes(body, String::new(), String::new(), &mut all);
    let mut out: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
    let mut add = |k: &'static str, v: String| {
        let e = out.entry(k).or_default();
        if !e.contains(&v) && e.len() < 4 {
            e.push(v);
        }
    };
    let sp = at(report, &["systemPrompt", "text"]).and_then(Value::as_str).unwrap_or("");
    let needle: String = sp.trim().chars().take(60).collect();
    let tools = arr(report, "tools");
    let tool_desc: String = tools.first().map(|t| s(t, "description").chars().take(60).collect()).unwrap_or_default();
    let tool_names: BTreeSet<&str> = tools.iter().map(|t| s(t, "name")).collect();
    let model_id = at(report, &["model", "id"]).and_then(Value::as_str).unwrap_or("");
    for (gen, _full, v) in &all {
        let key = last_key(gen).to_ascii_lowercase();
        match v {
            Value::String(x) => {
                if !needle.is_empty() && x.contains(&needle) {
                    add("1 system prompt", gen.clone());
                }
                if !tool_desc.is_empty() && x.starts_with(&tool_desc) {
                    add("2 tool descriptions", gen.clone());
                }
                if key == "name" && tool_names.contains(x.as_str()) && !gen.contains("messages") && !gen.contains("contents") && !gen.contains("input[]") {
                    add("3 tool names", gen.clone());
                }
                if !model_id.is_empty() && x == model_id {
                    add("0 model id", gen.clone());
                }
                if (key.contains("reasoning") || key.contains("thinking") || key.contains("thought") || key == "signature") && !x.is_empty() && gen.contains("[]") {
                    add("6 thinking replay", gen.clone());
                }
                if (key == "arguments" || key == "input" || key == "args") && gen.contains("[]") {
                    add("7 tool-call arguments", gen.clone());
                }
            }
            Value::Object(o) => {
                if (key == "input" || key == "args" || key == "arguments") && gen.contains("[]") && !gen.starts_with("tools") {
                    add("7 tool-call arguments", gen.clone());
                }
                if key == "parameters" || key == "input_schema" || key == "inputschema" || key == "parametersjsonschema" || (key == "json" && gen.contains("inputSchema")) {
                    if o.contains_key("properties") || o.contains_key("type") {
                        add("4 tool schemas", gen.clone());
                    }
                }
            }
            Value::Number(_) | Value::Bool(_) => {
                if key.contains("max") && key.contains("token") {
                    add("8 output limit", format!("{gen} = {}", text_of(v)));
                }
                if ["budget_tokens", "thinkingbudget", "enable_thinking", "include_thoughts", "includethoughts"].contains(&key.as_str()) {
                    add("9 thinking setting", format!("{gen} = {}", text_of(v)));
                }
            }
            _ => {}
        }
        if matches!(v, Value::String(_)) && ["reasoning_effort", "effort", "thinkinglevel", "type"].contains(&key.as_str()) && (gen.contains("thinking") || gen.contains("reasoning") || key != "type") {
            add("9 thinking setting", format!("{gen} = {}", text_of(v)));
        }
    }
    // The conversation container: top-level arrays of objects that are not the tools.
    if let Value::Object(o) = body {
        for (k, v) in o.iter() {
            if let Value::Array(a) = v {
                if k != "tools" && a.iter().any(|x| x.get("role").is_some() || x.get("parts").is_some() || x.get("content").is_some()) {
                    add("5 conversation", format!("{k}[] ({} items)", a.len()));
                }
            }
        }
    }
    out
}

fn label(k: &str) -> &str {
    k.split_once(' ').map(|(_, l)| l).unwrap_or(k)
}

/// Blocks by provenance: `kind (part)` → generalized paths.
fn by_provenance(report: &Value) -> Option<BTreeMap<String, BTreeSet<String>>> {
    let map = provenance_map(report)?;
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (path, o) in map {
        let src = o.get("source").unwrap_or(&o);
        let kind = src.get_str("kind").unwrap_or("?");
        let part = src.get_str("part").or_else(|| src.get("message").and_then(|m| m.get_str("part"))).unwrap_or("");
        let k = if part.is_empty() { kind.to_string() } else { format!("{kind} ({part})") };
        let gen: String = path.split('.').map(|c| if c.bytes().all(|b| b.is_ascii_digit()) && !c.is_empty() { "[]" } else { c }).collect::<Vec<_>>().join(".").replace(".[]", "[]");
        let e = out.entry(k).or_default();
        if e.len() < 6 {
            e.insert(gen);
        }
    }
    Some(out)
}

fn events_of(r: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for st in arr(r, "stages") {
        if !matches!(s(st, "id"), "transform-messages" | "convert-messages" | "build-params") {
            continue;
        }
        for e in arr(st, "events") {
            if s(e, "kind") != "note" {
                out.insert(format!("{}: {}", s(e, "kind"), s(e, "message")));
            }
        }
    }
    out
}

fn top_keys(body: &Value) -> BTreeSet<String> {
    body.as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default()
}

#[function_component]
pub fn ProtocolsView(p: &ViewProps) -> Html {
    let other = use_state(|| None::<String>);
    let apis: Vec<String> = p.reports.keys().cloned().collect();
    let a_api = p.api.to_string();
    let b_api = (*other).clone().filter(|x| apis.contains(x) && *x != a_api).or_else(|| apis.iter().find(|x| **x != a_api).cloned());
    let pick = |api: String| {
        let other = other.clone();
        Callback::from(move |_: MouseEvent| other.set(Some(api.clone())))
    };
    let chooser = html! {
        <div class="chooser" role="group" aria-label="compare with">
            <span class="muted small">{format!("{a_api} compared with ")}</span>
            { for apis.iter().filter(|x| **x != a_api).map(|x| html! {
                <button class={classes!("chip", (Some(x) == b_api.as_ref()).then_some("on"))} aria-pressed={(Some(x) == b_api.as_ref()).to_string()}
                        data-testid={format!("compare-b-{x}")} onclick={pick(x.clone())}>{x}</button>
            }) }
        </div>
    };
    let b_report: Option<Shared<Value>> = b_api.as_ref().and_then(|x| p.reports.get(x).cloned());
    let located = use_memo((p.report.clone(), b_report.clone()), |(a, b)| {
        let la = locate(a, &parsed_body(a));
        let lb = b.as_ref().map(|b| locate(b, &parsed_body(b))).unwrap_or_default();
        (la, lb)
    });
    let Some(b_api) = b_api else {
        return html! { <section class="protocols-view" data-testid="protocols-view"><h3>{"Compare protocols"}</h3>
            {not_available("Only one protocol has been assembled so far; the others appear here as they are assembled (open another protocol tab).")}</section> };
    };
    let a: Shared<Value> = p.report.clone();
    let b: Shared<Value> = p.reports.get(&b_api).cloned().unwrap_or_else(|| p.report.clone());
    let (ba, bb) = (parsed_body(&a), parsed_body(&b));
    let (la, lb) = (&located.0, &located.1);
    let blocks: BTreeSet<&'static str> = la.keys().chain(lb.keys()).copied().collect();
    let cell = |m: &BTreeMap<&'static str, Vec<String>>, k: &str| -> Html {
        match m.get(k) {
            Some(v) => html! { <>{ for v.iter().map(|x| html! { <div class="mono">{x}</div> }) }</> },
            None => html! { <span class="badge dropped">{"not sent"}</span> },
        }
    };
    let prov = (by_provenance(&a), by_provenance(&b));
    let stat = |r: &Value, path: &[&str]| at(r, path).and_then(Value::as_f64).unwrap_or(0.0);
    let rows_stats: Vec<(&str, f64, f64)> = vec![
        ("body bytes", stat(&a, &["stats", "body", "bytes"]), stat(&b, &["stats", "body", "bytes"])),
        ("system prompt chars", stat(&a, &["stats", "systemPrompt", "chars"]), stat(&b, &["stats", "systemPrompt", "chars"])),
        ("tools chars", stat(&a, &["stats", "tools", "chars"]), stat(&b, &["stats", "tools", "chars"])),
        ("history chars", stat(&a, &["stats", "history", "chars"]), stat(&b, &["stats", "history", "chars"])),
    ]
    .into_iter()
    .chain(KIND_LABELS.iter().map(|(k, l)| (*l, stat(&a, &["stats", "history", "byKind", k]), stat(&b, &["stats", "history", "byKind", k]))))
    .collect();
    // The loss report.
    let mut losses: Vec<(String, String)> = Vec::new();
    for (k, l) in KIND_LABELS {
        let (x, y) = (stat(&a, &["stats", "history", "byKind", k]), stat(&b, &["stats", "history", "byKind", k]));
        if x > 0.0 && y == 0.0 {
            losses.push(("dropped".into(), format!("{b_api} sends no {l} ({} chars in {a_api})", thousands(x))));
        } else if y > 0.0 && x == 0.0 {
            losses.push(("dropped".into(), format!("{a_api} sends no {l} ({} chars in {b_api})", thousands(y))));
        }
    }
    let (ka, kb) = (top_keys(&ba), top_keys(&bb));
    for k in ka.difference(&kb) {
        losses.push(("renamed".into(), format!("top-level \"{k}\" only in {a_api}")));
    }
    for k in kb.difference(&ka) {
        losses.push(("renamed".into(), format!("top-level \"{k}\" only in {b_api}")));
    }
    for blk in &blocks {
        if la.contains_key(blk) != lb.contains_key(blk) {
            let (has, lacks) = if la.contains_key(blk) { (&a_api, &b_api) } else { (&b_api, &a_api) };
            losses.push(("dropped".into(), format!("{} appears in {has} but not in {lacks}", label(blk))));
        }
    }
    let (ea, eb) = (events_of(&a), events_of(&b));
    let only_a: Vec<&String> = ea.difference(&eb).collect();
    let only_b: Vec<&String> = eb.difference(&ea).collect();
    let compare_from_core = p.report.get("compare").filter(|v| !v.is_null()).cloned();
    html! {
        <section class="protocols-view" data-testid="protocols-view">
            <h3>{"Compare protocols"}</h3>
            {chooser}
            <div class="two-col">
                <div>
                    <h4>{"Where each block went"}</h4>
                    <table class="mapping" data-testid="mapping-table">
                        <thead><tr><th>{"block"}</th><th class="mono">{&a_api}</th><th class="mono">{&b_api}</th></tr></thead>
                        <tbody>
                        { for blocks.iter().map(|k| html! { <tr><th>{label(k)}</th><td>{cell(la, k)}</td><td>{cell(lb, k)}</td></tr> }) }
                        </tbody>
                    </table>
                    if let (Some(pa), Some(pb)) = &prov {
                        <h4>{"By source (provenance)"}</h4>
                        <table class="mapping">
                            <thead><tr><th>{"source"}</th><th class="mono">{&a_api}</th><th class="mono">{&b_api}</th></tr></thead>
                            <tbody>
                            { for pa.keys().chain(pb.keys()).collect::<BTreeSet<_>>().into_iter().map(|k| html! {
                                <tr><th>{k}</th>
                                    <td>{ for pa.get(k).into_iter().flatten().map(|x| html! { <div class="mono">{x}</div> }) }</td>
                                    <td>{ for pb.get(k).into_iter().flatten().map(|x| html! { <div class="mono">{x}</div> }) }</td></tr>
                            }) }
                            </tbody>
                        </table>
                    }
                    if let Some(c) = compare_from_core {
                        <details><summary>{"The core's comparison"}</summary><pre class="mono small">{c.to_json_pretty(2)}</pre></details>
                    }
                </div>
                <div>
                    <h4>{"Sizes"}</h4>
                    <table class="sizes" data-testid="compare-sizes">
                        <thead><tr><th></th><th class="num mono">{&a_api}</th><th class="num mono">{&b_api}</th><th class="num">{"Δ"}</th></tr></thead>
                        <tbody>
                        { for rows_stats.iter().map(|(l, x, y)| html! {
                            <tr class={classes!((x != y).then_some("diff"))}><th>{*l}</th><td class="num">{thousands(*x)}</td><td class="num">{thousands(*y)}</td>
                                <td class="num">{ if x == y { "".to_string() } else { format!("{:+}", y - x) } }</td></tr>
                        }) }
                        </tbody>
                    </table>
                    <h4>{"Loss report"}</h4>
                    <ul class="losses" data-testid="loss-report">
                        if losses.is_empty() && only_a.is_empty() && only_b.is_empty() { <li class="muted">{"Nothing is lost or added between these two."}</li> }
                        { for losses.iter().map(|(k, m)| html! { <li><span class={classes!("badge", k.clone())}>{if k == "renamed" { "shape" } else { k.as_str() }}</span>{" "}{m}</li> }) }
                        { for only_a.iter().map(|m| html! { <li><span class="badge note">{format!("only {a_api}")}</span>{" "}{m.to_string()}</li> }) }
                        { for only_b.iter().map(|m| html! { <li><span class="badge note">{format!("only {b_api}")}</span>{" "}{m.to_string()}</li> }) }
                    </ul>
                    <p class="muted small">{format!("{} vs {}: {} vs {} top-level fields.", a_api, b_api, ka.len(), kb.len())}</p>
                    <p class="muted small">{format!("URLs: {} · {}", at(&a, &["request", "url"]).map(text_of).unwrap_or_default(), at(&b, &["request", "url"]).map(text_of).unwrap_or_default())}</p>
                    <p class="muted small">{format!("{} bytes in {a_api}, {} in {b_api}.", thousands(num(&at(&a, &["stats", "body"]).cloned().unwrap_or_default(), "bytes")), thousands(num(&at(&b, &["stats", "body"]).cloned().unwrap_or_default(), "bytes")))}</p>
                </div>
            </div>
        </section>
    }
}

//! The compare mode: two protocols side by side — where each block of the request went (the
//! seed's mapping table) and a loss report (what one drops, renames or adds). Uses the core's
//! comparison when a report carries one (`compare`), else computes it from the two reports'
//! stats, traces and bodies.

use std::collections::{BTreeMap, BTreeSet};

use ctxlens::js::Value;
use yew::prelude::*;

use super::components::thousands;
use super::overview::KIND_LABELS;
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
                let schema_key = key == "parameters" || key == "input_schema" || key == "inputschema" || key == "parametersjsonschema" || (key == "json" && gen.contains("inputSchema"));
                if schema_key && (o.contains_key("properties") || o.contains_key("type")) {
                    add("4 tool schemas", gen.clone());
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

/// The block kinds of the mapping table (as the core's compare names them), in display order.
pub const BLOCKS: [(&str, &str); 14] = [
    ("system-prompt", "System prompt"),
    ("tool-definitions", "Tool definitions"),
    ("user-text", "User text"),
    ("assistant-text", "Assistant text"),
    ("thinking", "Thinking"),
    ("thinking-signatures", "Thinking signatures"),
    ("tool-calls", "Tool calls"),
    ("tool-results", "Tool results"),
    ("images", "Images"),
    ("inserted", "pi's inserted text"),
    ("cache-markers", "Cache markers"),
    ("thinking-config", "Thinking level / config"),
    ("max-tokens", "Max tokens"),
    ("parameters", "Other parameters"),
];

/// Where one kind of block lives in one body.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Place {
    pub paths: Vec<String>,
    pub leaves: usize,
    pub chars: f64,
    pub values: Vec<String>,
}

/// `messages.3.content.0.text` → `messages[*].content[*].text`.
pub fn pattern(path: &str) -> String {
    let mut out = String::new();
    for c in path.split('.') {
        if !c.is_empty() && c.bytes().all(|b| b.is_ascii_digit()) {
            out.push_str("[*]");
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(c);
        }
    }
    out
}

fn value_at<'a>(body: &'a Value, path: &str) -> Option<&'a Value> {
    let mut cur = body;
    for c in path.split('.') {
        cur = match cur {
            Value::Object(o) => o.get(c)?,
            Value::Array(a) => a.get(c.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn block_of(o: &Value) -> Option<&'static str> {
    let src = o.get("source").unwrap_or(o);
    let structure = o.get_str("matched") == Some("structure");
    match src.get_str("kind")? {
        "system-prompt" if !structure => Some("system-prompt"),
        "tool" => Some("tool-definitions"),
        "inserted" => Some("inserted"),
        "message" | "messages" => {
            let (role, part) = match src.get_str("kind") {
                Some("messages") => arr(src, "messages").first().map(|m| (s(m, "role"), s(m, "part"))).unwrap_or(("", "")),
                _ => (s(src, "role"), s(src, "part")),
            };
            match part {
                "thinking" => Some("thinking"),
                "signature" => Some("thinking-signatures"),
                "tool-call" | "tool-arguments" => Some("tool-calls"),
                "tool-result" => Some("tool-results"),
                "image" => Some("images"),
                "text" if role == "toolResult" => Some("tool-results"),
                "text" if role == "assistant" => Some("assistant-text"),
                "text" => Some("user-text"),
                _ => None,
            }
        }
        "parameter" => {
            let n = s(src, "name").to_ascii_lowercase();
            if n.contains("cache") {
                Some("cache-markers")
            } else if n.contains("thinking") || n.contains("reasoning") || n.contains("effort") || n.contains("budget") {
                Some("thinking-config")
            } else if n.contains("max") && n.contains("token") {
                Some("max-tokens")
            } else if ["messages", "tools", "system", "input", "contents", "model"].contains(&n.as_str()) {
                None
            } else {
                Some("parameters")
            }
        }
        _ => None,
    }
}

/// The mapping of one body from its provenance: block kind → place.
pub fn mapping_from_provenance(report: &Value, body: &Value) -> Option<BTreeMap<&'static str, Place>> {
    let list = report.get("provenance")?.as_array()?;
    let mut out: BTreeMap<&'static str, Place> = BTreeMap::new();
    for o in list {
        let Some(block) = block_of(o) else { continue };
        let path = s(o, "path");
        let v = value_at(body, path);
        let is_leaf = !matches!(v, Some(Value::Object(_)) | Some(Value::Array(_)));
        let e = out.entry(block).or_default();
        let mut pat = pattern(path);
        if block == "tool-definitions" {
            // A schema is one block: cut its inner paths at the schema's root.
            for root in [".parameters.", ".input_schema.", ".inputSchema.", ".parametersJsonSchema.", ".parameters_json_schema."] {
                if let Some(i) = pat.find(root) {
                    pat.truncate(i + root.len() - 1);
                    break;
                }
            }
        }
        if !e.paths.contains(&pat) && e.paths.len() < 8 {
            e.paths.push(pat);
        }
        if is_leaf {
            e.leaves += 1;
            e.chars += num(o, "chars");
            if matches!(block, "thinking-config" | "max-tokens" | "parameters" | "cache-markers") && e.values.len() < 6 {
                if let Some(v) = v {
                    e.values.push(format!("{path} = {}", text_of(v)));
                }
            }
        }
    }
    Some(out)
}

/// Trace events of the adapter stages grouped by (kind, pi source): count and an example.
fn event_groups(r: &Value) -> BTreeMap<(String, String), (usize, String)> {
    let mut out: BTreeMap<(String, String), (usize, String)> = BTreeMap::new();
    for st in arr(r, "stages") {
        if !matches!(s(st, "id"), "transform-messages" | "convert-messages" | "build-params") {
            continue;
        }
        for e in arr(st, "events") {
            if s(e, "kind") == "note" {
                continue;
            }
            let x = out.entry((s(e, "kind").to_string(), e.get_str("piSource").unwrap_or("").to_string())).or_insert((0, s(e, "message").to_string()));
            x.0 += 1;
        }
    }
    out
}

fn top_keys(body: &Value) -> BTreeSet<String> {
    body.as_object().map(|o| o.keys().map(|k| k.to_string()).collect()).unwrap_or_default()
}

fn paths_cell(paths: &[Value]) -> Html {
    html! { <>{ for paths.iter().map(|x| html! { <div class="mono">{text_of(x)}</div> }) }</> }
}

fn place_cell(p: Option<&Place>) -> Html {
    match p {
        Some(p) if p.leaves > 0 || !p.paths.is_empty() => html! {
            <>
                { for p.paths.iter().map(|x| html! { <div class="mono">{x}</div> }) }
                if !p.values.is_empty() {
                    <div class="muted small">{p.values.join(" · ")}</div>
                } else if p.chars > 0.0 {
                    <div class="muted small">{format!("{} chars in {} part{}", thousands(p.chars), p.leaves, if p.leaves == 1 { "" } else { "s" })}</div>
                }
            </>
        },
        _ => html! { <span class="badge dropped">{"not sent"}</span> },
    }
}

/// The core's comparison for (current, other), when the report carries one: `compare` as one
/// comparison (checked by `b.api`) or as an object keyed by the other api.
fn core_compare(report: &Value, other: &str) -> Option<Value> {
    let c = report.get("compare")?;
    if c.get("mapping").is_some() {
        return (at(c, &["b", "api"]).and_then(Value::as_str) == Some(other)).then(|| c.clone());
    }
    c.get(other).filter(|x| x.get("mapping").is_some()).cloned()
}

#[function_component]
pub fn ProtocolsView(p: &ViewProps) -> Html {
    let other = use_state(|| None::<String>);
    let apis: Vec<String> = p.reports.keys().cloned().collect();
    let a_api = p.api.to_string();
    let b_api = (*other).clone().filter(|x| apis.contains(x) && *x != a_api).or_else(|| apis.iter().find(|x| **x != a_api).cloned());
    let b_report: Option<Shared<Value>> = b_api.as_ref().and_then(|x| p.reports.get(x).cloned());
    let computed = use_memo((p.report.clone(), b_report.clone()), |(a, b)| {
        let pa = parsed_body(a);
        let ma = mapping_from_provenance(a, &pa);
        let la = locate(a, &pa);
        let (mb, lb) = match b {
            Some(b) => {
                let pb = parsed_body(b);
                (mapping_from_provenance(b, &pb), locate(b, &pb))
            }
            None => (None, BTreeMap::new()),
        };
        (ma, mb, la, lb)
    });
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
    let (Some(b_api), Some(b)) = (b_api, b_report) else {
        return html! { <section class="protocols-view" data-testid="protocols-view"><h3>{"Compare protocols"}</h3>
            {not_available("Only one protocol has been assembled so far; the others appear here as they are assembled (open another protocol tab).")}</section> };
    };
    let a: Shared<Value> = p.report.clone();
    let (ba, bb) = (parsed_body(&a), parsed_body(&b));
    let (ma, mb, la, lb) = (&computed.0, &computed.1, &computed.2, &computed.3);
    let core = core_compare(&a, &b_api);
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

    // The mapping table: the core's, else from provenance, else located by content.
    let mapping: Html = if let Some(c) = &core {
        html! {
            <table class="mapping" data-testid="mapping-table" data-source="core">
                <thead><tr><th>{"block"}</th><th class="mono">{&a_api}</th><th class="mono">{&b_api}</th></tr></thead>
                <tbody>
                { for arr(c, "mapping").iter().filter(|m| !arr(m.get("a").unwrap_or(&Value::Null), "paths").is_empty() || !arr(m.get("b").unwrap_or(&Value::Null), "paths").is_empty()).map(|m| {
                    let side = |k: &str| {
                        let x = m.get(k).cloned().unwrap_or_default();
                        let paths = arr(&x, "paths");
                        if paths.is_empty() { html! { <span class="badge dropped">{"not sent"}</span> } } else {
                            html! { <>{paths_cell(paths)}
                                if let Some(v) = x.get_str("value") { <div class="muted small">{v}</div> }
                                else if num(&x, "chars") > 0.0 { <div class="muted small">{format!("{} chars in {} parts", thousands(num(&x, "chars")), num(&x, "leaves"))}</div> }
                            </> }
                        }
                    };
                    html! { <tr><th>{s(m, "title")}</th><td>{side("a")}</td><td>{side("b")}</td></tr> }
                }) }
                </tbody>
            </table>
        }
    } else if let (Some(ma), Some(mb)) = (ma, mb) {
        html! {
            <table class="mapping" data-testid="mapping-table" data-source="provenance">
                <thead><tr><th>{"block"}</th><th class="mono">{&a_api}</th><th class="mono">{&b_api}</th></tr></thead>
                <tbody>
                { for BLOCKS.iter().filter(|(k, _)| ma.contains_key(k) || mb.contains_key(k)).map(|(k, title)| html! {
                    <tr><th>{*title}</th><td>{place_cell(ma.get(k))}</td><td>{place_cell(mb.get(k))}</td></tr>
                }) }
                </tbody>
            </table>
        }
    } else {
        let blocks: BTreeSet<&'static str> = la.keys().chain(lb.keys()).copied().collect();
        let cell = |m: &BTreeMap<&'static str, Vec<String>>, k: &str| -> Html {
            match m.get(k) {
                Some(v) => html! { <>{ for v.iter().map(|x| html! { <div class="mono">{x}</div> }) }</> },
                None => html! { <span class="badge dropped">{"not sent"}</span> },
            }
        };
        html! {
            <table class="mapping" data-testid="mapping-table" data-source="located">
                <thead><tr><th>{"block"}</th><th class="mono">{&a_api}</th><th class="mono">{&b_api}</th></tr></thead>
                <tbody>
                { for blocks.iter().map(|k| html! { <tr><th>{label(k)}</th><td>{cell(la, k)}</td><td>{cell(lb, k)}</td></tr> }) }
                </tbody>
            </table>
        }
    };

    // The loss report: the core's, else computed here.
    let mut losses: Vec<(String, String)> = Vec::new();
    if let Some(c) = &core {
        for l in arr(c, "losses") {
            losses.push((s(l, "kind").to_string(), s(l, "detail").to_string()));
        }
    } else {
        if let (Some(ma), Some(mb)) = (ma, mb) {
            for (k, title) in BLOCKS {
                match (ma.get(k), mb.get(k)) {
                    (Some(x), None) if x.leaves > 0 => losses.push(("dropped".into(), format!("{b_api} sends no {} ({} chars in {a_api})", title.to_lowercase(), thousands(x.chars)))),
                    (None, Some(y)) if y.leaves > 0 => losses.push(("dropped".into(), format!("{a_api} sends no {} ({} chars in {b_api})", title.to_lowercase(), thousands(y.chars)))),
                    (Some(x), Some(y)) if (x.chars - y.chars).abs() > 0.0 && !matches!(k, "parameters" | "thinking-config" | "max-tokens" | "cache-markers") => {
                        losses.push(("size".into(), format!("{title}: {} chars in {a_api}, {} in {b_api}", thousands(x.chars), thousands(y.chars))))
                    }
                    _ => {}
                }
            }
            for (api, m) in [(&a_api, ma), (&b_api, mb)] {
                if let Some(th) = m.get("thinking").filter(|x| x.leaves > 0) {
                    if !th.paths.iter().any(|x| x.contains("reason") || x.contains("think") || x.contains("thought")) {
                        losses.push(("converted".into(), format!("{api} sends the thinking as plain text ({})", th.paths.join(", "))));
                    }
                }
            }
        } else {
            for (k, l) in KIND_LABELS {
                let (x, y) = (stat(&a, &["stats", "history", "byKind", k]), stat(&b, &["stats", "history", "byKind", k]));
                if x != y {
                    losses.push(("size".into(), format!("{l}: {} chars in {a_api}, {} in {b_api}", thousands(x), thousands(y))));
                }
            }
        }
        let (ka, kb) = (top_keys(&ba), top_keys(&bb));
        let only_a: Vec<&String> = ka.difference(&kb).collect();
        let only_b: Vec<&String> = kb.difference(&ka).collect();
        if !only_a.is_empty() {
            losses.push(("renamed".into(), format!("top-level fields only in {a_api}: {}", only_a.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "))));
        }
        if !only_b.is_empty() {
            losses.push(("renamed".into(), format!("top-level fields only in {b_api}: {}", only_b.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "))));
        }
    }
    let events = |r: &Value, side: &str| -> Vec<(String, usize, String, String)> {
        if let Some(c) = &core {
            return arr(c.get("events").unwrap_or(&Value::Null), side).iter().map(|e| (s(e, "kind").to_string(), num(e, "count") as usize, s(e, "example").to_string(), s(e, "piSource").to_string())).collect();
        }
        event_groups(r).into_iter().map(|((k, src), (n, ex))| (k, n, ex, src)).collect()
    };
    let (ea, eb) = (events(&a, "a"), events(&b, "b"));
    let event_list = |api: &str, list: &[(String, usize, String, String)]| html! {
        <>
            <h4>{format!("What {api}'s adapter did")}</h4>
            if list.is_empty() { <p class="muted small">{"Nothing changed the messages."}</p> }
            <ul class="losses">
            { for list.iter().map(|(k, n, ex, src)| html! {
                <li><span class={classes!("badge", k.clone())}>{format!("{k} ×{n}")}</span>{" "}{ex}{" "}<code class="pi-source">{src}</code></li>
            }) }
            </ul>
        </>
    };
    html! {
        <section class="protocols-view" data-testid="protocols-view">
            <h3>{"Compare protocols"}</h3>
            {chooser}
            <h4>{"Where each block went"}<span class="muted small">{ if core.is_some() { " · the core's comparison" } else if ma.is_some() && mb.is_some() { " · from each body's provenance" } else { " · located by content" } }</span></h4>
            {mapping}
            <div class="two-col">
                <div>
                    <h4>{"Loss report"}</h4>
                    <ul class="losses" data-testid="loss-report">
                        if losses.is_empty() { <li class="muted">{"Nothing is lost or added between these two."}</li> }
                        { for losses.iter().map(|(k, m)| html! { <li><span class={classes!("badge", k.clone())}>{if k == "renamed" { "shape" } else { k.as_str() }}</span>{" "}{m}</li> }) }
                    </ul>
                    {event_list(&a_api, &ea)}
                    {event_list(&b_api, &eb)}
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
                    <p class="muted small mono">{at(&a, &["request", "url"]).map(text_of).unwrap_or_default()}</p>
                    <p class="muted small mono">{at(&b, &["request", "url"]).map(text_of).unwrap_or_default()}</p>
                </div>
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_and_selection_views() {
        assert_eq!(pattern("messages.3.content.0.text"), "messages[*].content[*].text");
        assert_eq!(pattern("max_tokens"), "max_tokens");
        assert_eq!(crate::views::view_for_selection("tool:edit"), Some("tools"));
        assert_eq!(crate::views::view_for_selection("section:3"), Some("prompt"));
        assert_eq!(crate::views::view_for_selection("nothing"), None);
        assert_eq!(crate::views::subject_label("section:24"), "system prompt section 25");
    }
}

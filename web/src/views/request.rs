//! The request: URL, headers, the body as a collapsible JSON tree whose parts name their source
//! (from the report's `provenance` when present), Copy, Download and cURL, and the raw body.

use std::collections::BTreeMap;
use std::rc::Rc;

use ctxlens::js::Value;
use ctxlens::report::types::RequestInfo;
use yew::prelude::*;

use super::components::dom::{copy_text, scroll_into_view};
use super::components::json_tree::JsonTree;
use super::components::thousands;
use super::util::{arr, not_available, parsed_body, s, text_of};
use super::ViewProps;

/// The report's provenance as path → source. Accepts an array of `{path, ...}` or an object
/// keyed by path.
pub fn provenance_map(report: &Value) -> Option<BTreeMap<String, Value>> {
    match report.get("provenance")? {
        Value::Array(a) => Some(
            a.iter()
                .filter_map(|o| o.get_str("path").map(|p| (p.to_string(), o.clone())))
                .collect(),
        ),
        Value::Object(o) => Some(o.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()),
        _ => None,
    }
}

type ProvMap = Option<Rc<BTreeMap<String, Value>>>;

thread_local! {
    static PROV: std::cell::RefCell<Vec<(crate::shared::Shared<crate::report::Report>, ProvMap)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// [`provenance_map`] of a report, cached (revisiting the view on a large body is instant).
pub fn cached_provenance(
    report: &crate::shared::Shared<crate::report::Report>,
) -> Option<Rc<BTreeMap<String, Value>>> {
    PROV.with(|c| {
        let mut c = c.borrow_mut();
        if let Some((_, v)) = c.iter().find(|(r, _)| r == report) {
            return v.clone();
        }
        let v = provenance_map(report).map(Rc::new);
        c.push((report.clone(), v.clone()));
        if c.len() > 12 {
            c.remove(0);
        }
        v
    })
}

/// `old` is now `new` (the same report with its session parts): its origins, read, are `new`'s.
pub fn rekey_provenance(
    old: &crate::shared::Shared<crate::report::Report>,
    new: &crate::shared::Shared<crate::report::Report>,
) {
    PROV.with(|c| {
        for (r, _) in c.borrow_mut().iter_mut().filter(|(r, _)| r == old) {
            *r = new.clone();
        }
    });
}

/// Flattens the scalar fields of a source description: `source.kind = tool`, ...
fn flatten(prefix: &str, v: &Value, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(o) => {
            for (k, x) in o.iter() {
                if k == "path" && prefix.is_empty() {
                    continue;
                }
                let key = if prefix.is_empty() {
                    k.to_string()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, x, out);
            }
        }
        Value::Array(a)
            if a.iter()
                .all(|x| !matches!(x, Value::Object(_) | Value::Array(_))) =>
        {
            out.push((
                prefix.to_string(),
                a.iter().map(text_of).collect::<Vec<_>>().join(", "),
            ))
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                flatten(&format!("{prefix}.{i}"), x, out);
            }
        }
        Value::Null => {}
        other => out.push((prefix.to_string(), text_of(other))),
    }
}

/// A one-line description of a provenance record.
pub fn describe(o: &Value) -> String {
    let src = o.get("source").unwrap_or(o);
    let kind = src
        .get_str("kind")
        .or_else(|| o.get_str("kind"))
        .unwrap_or("");
    let g = |k: &str| src.get(k).map(text_of).unwrap_or_default();
    match kind {
        "system-prompt" => {
            let secs: Vec<String> = arr(src, "sections")
                .iter()
                .map(|x| {
                    if s(x, "source") == "pi" {
                        s(x, "name").to_string()
                    } else {
                        format!(
                            "{} ({})",
                            s(x, "name"),
                            super::util::base_name(s(x, "source"))
                        )
                    }
                })
                .collect();
            // 0.86 on: which stored system messages set them.
            let mut stored: Vec<String> = Vec::new();
            for x in arr(src, "sections") {
                if let Some(l) = x.get("stored").and_then(|st| st.get_str("label")) {
                    if !stored.iter().any(|y| y == l) {
                        stored.push(l.to_string());
                    }
                }
            }
            let stored = if stored.is_empty() {
                String::new()
            } else {
                format!("; stored: {}", stored.join(", "))
            };
            match secs.len() {
                0 => "the system prompt".into(),
                n if n > 4 => format!(
                    "system prompt: {} and {} more sections{stored}",
                    secs[..4].join(", "),
                    n - 4
                ),
                _ => format!("system prompt: {}{stored}", secs.join(", ")),
            }
        }
        "tool" => format!("tool {} ({})", g("name"), g("part")),
        "message" | "messages" => {
            let m = if kind == "messages" {
                arr(src, "messages").first().cloned().unwrap_or_default()
            } else {
                src.clone()
            };
            let what = format!("{} {}", s(&m, "role"), s(&m, "part"))
                .trim()
                .to_string();
            let what = if what.is_empty() {
                "a message".to_string()
            } else {
                what
            };
            let more = if kind == "messages" {
                format!(
                    " (+{} merged)",
                    arr(src, "messages").len().saturating_sub(1)
                )
            } else {
                String::new()
            };
            if m.get("thisTurn").and_then(Value::as_bool) == Some(true) {
                format!("{what}{more}: this turn's prompt")
            } else if let Some(l) = m.get("line").map(text_of) {
                format!("{what}{more}: session line {l}, entry {}", s(&m, "entryId"))
            } else {
                format!("{what}{more}")
            }
        }
        "inserted" => format!("pi's inserted string {}", g("key")),
        "parameter" => format!("parameter {}: {}", g("name"), g("rule")),
        "" => "attributed".into(),
        k => k.to_string(),
    }
}

/// Bodies from this size on start with the raw text folded (laying out megabytes of text takes
/// seconds); the text is in the page either way.
const RAW_OPEN_LIMIT: usize = 200_000;

/// Single-quotes for a POSIX shell.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// A cURL command for the request (shown, never run).
pub fn curl_command(req: &RequestInfo) -> String {
    let mut out = format!("curl {} \\\n  -X {}", shell_quote(&req.url), req.method);
    for (k, v) in &req.headers {
        out.push_str(&format!(" \\\n  -H {}", shell_quote(&format!("{k}: {v}"))));
    }
    out.push_str(&format!(" \\\n  --data-raw {}", shell_quote(&req.body)));
    out
}

/// A path → source lookup [`prov_answer`] reads: the report's provenance as a map (a small body,
/// on the page), or the assembly's own origins indexed by path (a large body, in the worker —
/// no JSON of every origin made up front).
pub trait ProvLookup {
    /// The source of exactly `path`.
    fn entry(&self, path: &str) -> Option<Value>;
    /// The sources of the paths that start with `prefix`, in path order, at most `n`.
    fn under(&self, prefix: &str, n: usize) -> Vec<Value>;
}

impl ProvLookup for BTreeMap<String, Value> {
    fn entry(&self, path: &str) -> Option<Value> {
        self.get(path).cloned()
    }
    fn under(&self, prefix: &str, n: usize) -> Vec<Value> {
        self.range(prefix.to_string()..)
            .take_while(|(k, _)| k.starts_with(prefix))
            .take(n)
            .map(|(_, v)| v.clone())
            .collect()
    }
}

/// An assembly's origins ([`ctxlens::Assembly::provenance_shared`]) sorted by path, as the worker
/// keeps them for a report that leaves the provenance out: each entry's JSON is made when asked.
pub struct OriginIndex {
    origins: std::sync::Arc<Vec<ctxlens::provenance::Origin>>,
    /// Indices into `origins`, by path (byte order, as a `BTreeMap<String, _>` sorts); for a
    /// path given twice, the last.
    order: Vec<u32>,
}

impl OriginIndex {
    pub fn new(origins: std::sync::Arc<Vec<ctxlens::provenance::Origin>>) -> Self {
        let mut order: Vec<u32> = (0..origins.len() as u32).collect();
        order.sort_by(|&a, &b| origins[a as usize].path.cmp(&origins[b as usize].path));
        // Stable sort: of equal paths the last in body order is last; keep it.
        order.reverse();
        order.dedup_by(|a, b| origins[*a as usize].path == origins[*b as usize].path);
        order.reverse();
        OriginIndex { origins, order }
    }

    fn path(&self, i: usize) -> &str {
        &self.origins[self.order[i] as usize].path
    }

    /// The first position whose path is not below `p`.
    fn lower_bound(&self, p: &str) -> usize {
        self.order
            .partition_point(|&i| self.origins[i as usize].path.as_str() < p)
    }

    fn json(&self, i: usize) -> Value {
        ctxlens::report::provenance::origin_json(&self.origins[self.order[i] as usize])
    }
}

impl ProvLookup for OriginIndex {
    fn entry(&self, path: &str) -> Option<Value> {
        let i = self.lower_bound(path);
        (i < self.order.len() && self.path(i) == path).then(|| self.json(i))
    }
    fn under(&self, prefix: &str, n: usize) -> Vec<Value> {
        (self.lower_bound(prefix)..self.order.len())
            .take_while(|&i| self.path(i).starts_with(prefix))
            .take(n)
            .map(|i| self.json(i))
            .collect()
    }
}

/// What the source panel shows for `path`, from a path → source lookup: `{found: {path, entry} |
/// null, inside: n, kinds: [[description, count]…]}`. The worker computes the same answer from its
/// own index when the report leaves the provenance out (a large body).
pub fn prov_answer(path: &str, map: &impl ProvLookup) -> Value {
    // The part itself; else, for a container, what is inside it; else its nearest attributed
    // ancestor.
    let pre = if path.is_empty() {
        String::new()
    } else {
        format!("{path}.")
    };
    let exact = map.entry(path);
    let has_inside = !map.under(&pre, 1).is_empty();
    let mut found = None;
    if exact.is_some() || !has_inside {
        let mut cur = path.to_string();
        let mut entry = exact.clone();
        loop {
            if let Some(v) = entry {
                found = Some((cur.clone(), v));
                break;
            }
            match cur.rfind('.') {
                Some(i) => cur.truncate(i),
                None => break,
            }
            entry = map.entry(&cur);
        }
    }
    let inside: Vec<Value> = if found.as_ref().is_some_and(|(p, _)| p == path) {
        Vec::new()
    } else {
        map.under(&pre, 20_000)
    };
    let mut kinds: Vec<(String, usize)> = Vec::new();
    for v in &inside {
        let d = describe(v);
        match kinds.iter_mut().find(|(k, _)| *k == d) {
            Some(x) => x.1 += 1,
            None => kinds.push((d, 1)),
        }
    }
    kinds.sort_by_key(|k| std::cmp::Reverse(k.1));
    let found = found
        .map(|(p, v)| Value::from(ctxlens::js::Object::new().with("path", p).with("entry", v)))
        .unwrap_or(Value::Null);
    let kinds: Vec<Value> = kinds
        .into_iter()
        .take(12)
        .map(|(d, n)| Value::Array(vec![Value::str(d), Value::from(n)]))
        .collect();
    ctxlens::js::Object::new()
        .with("found", found)
        .with("inside", inside.len())
        .with("kinds", Value::Array(kinds))
        .into()
}

/// Where the source of a part comes from: the report's own provenance, the worker (asked for one
/// path at a time), or nowhere.
enum ProvSource<'a> {
    Local(Option<&'a BTreeMap<String, Value>>),
    Worker(Option<&'a Value>),
}

fn source_panel(path: &str, prov: ProvSource) -> Html {
    let label = if path.is_empty() {
        "(the whole body)".to_string()
    } else {
        path.to_string()
    };
    let answer = match prov {
        ProvSource::Local(None) => {
            return html! { <div class="prov" data-testid="provenance"><div class="mono path">{label}</div><p class="na">{"Source attribution is not available in this build of the core."}</p></div> };
        }
        ProvSource::Local(Some(map)) => prov_answer(path, map),
        ProvSource::Worker(Some(a)) if !a.is_null() => a.clone(),
        ProvSource::Worker(_) => {
            return html! { <div class="prov" data-testid="provenance" aria-busy="true"><div class="mono path">{label}</div><p class="muted small"><span class="spinner" aria-hidden="true"></span>{"looking up its source…"}</p></div> };
        }
    };
    if let Some(e) = answer.get_str("error") {
        return html! { <div class="prov" data-testid="provenance"><div class="mono path">{label}</div><p class="na">{e.to_string()}</p></div> };
    }
    let found = answer.get("found").filter(|f| !f.is_null()).map(|f| {
        (
            s(f, "path").to_string(),
            f.get("entry").cloned().unwrap_or_default(),
        )
    });
    let inside = answer.get("inside").and_then(Value::as_f64).unwrap_or(0.0) as usize;
    let kinds: Vec<(String, usize)> = arr(&answer, "kinds")
        .iter()
        .filter_map(|k| {
            Some((
                k.as_array()?.first()?.as_str()?.to_string(),
                k.as_array()?.get(1)?.as_f64()? as usize,
            ))
        })
        .collect();
    html! {
        <div class="prov" data-testid="provenance">
            <div class="mono path">{label}</div>
            if let Some((p, v)) = &found {
                <p class="headline" data-testid="provenance-source">{describe(v)}</p>
                if p != path { <p class="muted small">{format!("via its enclosing part {p}")}</p> }
                <dl class="kv small">
                { for { let mut f = Vec::new(); flatten("", v, &mut f); f }.into_iter().map(|(k, x)| html! { <><dt>{k}</dt><dd>{x}</dd></> }) }
                </dl>
            }
            if inside > 0 {
                <p class="small">{format!("{inside} attributed parts inside:")}</p>
                <ul class="small">{ for kinds.iter().map(|(d, n)| html! { <li>{format!("{n} × {d}")}</li> }) }</ul>
            }
            if found.is_none() && inside == 0 { <p class="na">{"No source recorded for this part."}</p> }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct RawBodyProps {
    report: crate::shared::Shared<crate::report::Report>,
}

/// The body's exact text (`body-json`); re-rendered only when the report changes.
#[function_component]
fn RawBody(p: &RawBodyProps) -> Html {
    let body = p.report.request.as_ref().map_or("", |r| r.body.as_str());
    let big = body.len() >= RAW_OPEN_LIMIT;
    html! {
        <details class="raw-body" open={!big}>
            <summary><h4>{"Raw body"}<span class="muted small">{ if big { format!(" · exactly the bytes pi sends ({:.1} MB: open to lay it out)", body.len() as f64 / 1048576.0) } else { " · exactly the bytes pi sends".to_string() } }</span></h4></summary>
            <pre class="body raw" data-testid="body-json">{body}</pre>
        </details>
    }
}

#[function_component]
pub fn RequestView(p: &ViewProps) -> Html {
    // `None` while the body parsed is on its way from the worker (`body_ready` then flips).
    let parsed = use_memo((p.report.clone(), p.body_ready), |(r, _)| parsed_body(r));
    let prov = use_memo(p.report.clone(), cached_provenance);
    let hover = use_state(|| None::<String>);
    let show_curl = use_state(|| false);
    let copied = use_state(|| None::<&'static str>);
    // The Download link: a `blob:` URL of the body (gloo-file: its UTF-8 goes into the Blob as
    // bytes, with no round trip through a JS string; the URL is revoked when the last clone of
    // the `ObjectUrl` is dropped, i.e. when the next body's replaces it or the view goes).
    let url = use_state(|| None::<gloo_file::ObjectUrl>);
    {
        let url = url.clone();
        use_effect_with(p.report.clone(), move |r| {
            let body = r.request.as_ref().map_or("", |q| q.body.as_str());
            let blob = gloo_file::Blob::new_with_options(body, Some("application/json"));
            url.set(Some(gloo_file::ObjectUrl::from(blob)));
        });
    }
    let panel_ref = use_node_ref();
    let sel_path: Option<String> = p
        .selection
        .as_deref()
        .and_then(|k| k.strip_prefix("path:"))
        .map(str::to_string);
    {
        let tree = panel_ref.clone();
        use_effect_with(sel_path.clone(), move |sp| {
            if let Some(sp) = sp {
                let esc = sp.replace('\\', "\\\\").replace('"', "\\\"");
                scroll_into_view(&tree, &format!("[data-path=\"{esc}\"]"));
            }
        });
    }
    let Some(req) = p.report.request.as_ref() else {
        return html! { <section class="request-view">{not_available("No request: pi would not send one for these inputs (see the diagnostics).")}</section> };
    };
    let body = req.body.as_str();
    // The texts are made at click time (a body can be tens of megabytes).
    let copy = |what: &'static str, curl: bool| {
        let copied = copied.clone();
        let report = p.report.clone();
        Callback::from(move |_: MouseEvent| {
            let Some(req) = report.request.as_ref() else {
                return;
            };
            let text = if curl {
                curl_command(req)
            } else {
                req.body.to_string()
            };
            copied.set(Some(if copy_text(&text) {
                what
            } else {
                "copy refused"
            }))
        })
    };
    let on_select = {
        let cb = p.on_select.clone();
        Callback::from(move |path: Option<String>| {
            cb.emit(path.map(|x| AttrValue::from(format!("path:{x}"))))
        })
    };
    let on_hover = {
        let hover = hover.clone();
        Callback::from(move |path: Option<String>| hover.set(path))
    };
    let focus = (*hover).clone().or(sel_path.clone());
    // A large body's provenance stays in the worker: ask it for the part in focus.
    {
        let (answers, ask) = (p.prov_answers.clone(), p.on_prov.clone());
        use_effect_with((focus.clone(), answers), move |(focus, answers)| {
            if let (Some(f), Some(a)) = (focus, answers) {
                if !a.contains_key(f.as_str()) {
                    ask.emit(AttrValue::from(f.clone()));
                }
            }
        });
    }
    let curl = if *show_curl {
        curl_command(req)
    } else {
        String::new()
    };
    html! {
        <section class="request-view" data-testid="request-view">
            <div class="req-line">
                <span class="method">{&req.method}</span>
                <span class="mono url" data-testid="request-view-url">{&req.url}</span>
                if let Some(note) = req.url_note.as_deref() {
                    <p class="url-note warn" role="note" data-testid="url-note">{note}</p>
                }
            </div>
            <table class="headers" data-testid="request-headers">
                { for req.headers.iter().map(|(k, v)| html! { <tr><th class="mono">{k}</th><td class="mono">{v}</td></tr> }) }
            </table>
            <div class="actions">
                <button onclick={copy("body copied", false)} data-testid="copy-body">{"Copy body"}</button>
                if let Some(u) = &*url {
                    <a class="button" href={u.to_string()} download="request-body.json" data-testid="download-body">{"Download"}</a>
                }
                <button onclick={{ let sc = show_curl.clone(); Callback::from(move |_: MouseEvent| sc.set(!*sc)) }} data-testid="curl-toggle" aria-expanded={show_curl.to_string()}>{"cURL"}</button>
                <span class="muted small">{format!("{} bytes · {} chars", thousands(body.len() as f64), thousands(ctxlens::js::utf16_len(body) as f64))}</span>
                if let Some(c) = *copied { <span class="ok small" role="status">{c}</span> }
            </div>
            if *show_curl {
                <div class="curl">
                    <div class="actions"><button onclick={copy("command copied", true)}>{"Copy command"}</button><span class="muted small">{"shown only — nothing is sent"}</span></div>
                    <pre class="mono" data-testid="curl">{curl}</pre>
                </div>
            }
            <div class="req-grid">
                <div class="tree-col" ref={panel_ref}>
                    if let Some(parsed) = parsed.as_ref() {
                        if parsed.is_null() && !body.is_empty() {
                            <p class="na">{"The body is not JSON."}</p>
                        } else {
                            <JsonTree value={parsed.clone()} selected={sel_path.clone().map(AttrValue::from)} on_select={on_select} on_hover={on_hover} testid="json-tree" />
                        }
                    } else {
                        <p class="muted" role="status" data-testid="body-reading">{"Reading the body into its tree…"}</p>
                    }
                </div>
                <aside class="prov-col">
                    <h4>{"Where it came from"}</h4>
                    if let Some(f) = &focus {
                        { source_panel(f, match &p.prov_answers {
                            Some(a) => ProvSource::Worker(a.get(f.as_str())),
                            None => ProvSource::Local(prov.as_ref().as_ref().map(|m| &**m)),
                        }) }
                    } else {
                        <p class="muted small">{"Hover or select a part of the body to see its source."}</p>
                        if prov.is_none() && p.prov_answers.is_none() { <p class="na">{"Source attribution (provenance) is not available yet."}</p> }
                    }
                </aside>
            </div>
            <RawBody report={p.report.clone()} />
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The worker's index of a large body's origins answers every path, every container and the
    /// whole body exactly as the report's own provenance map does on the page.
    #[test]
    fn the_worker_s_origin_index_answers_as_the_report_s_map() {
        for name in [
            "demo",
            "pi-1.6.0/an-midconvo",
            "pi-1.6.0/sp-compaction-checkpoint",
        ] {
            let case = ctxlens_corpus::Case::named(name);
            let inputs = ctxlens::case::inputs_from_case(&case.files(), None).expect("a case");
            let a = ctxlens::assemble(&inputs);
            let report = ctxlens::report::assembly_json(&a);
            let map = provenance_map(&report).expect("a provenance");
            let index = OriginIndex::new(a.provenance_shared().clone());
            assert!(map.len() > 10, "{name}: {} origins", map.len());
            let mut paths: Vec<String> = vec![String::new(), "nothing.here".into()];
            for p in map.keys() {
                let mut cur = p.as_str();
                paths.push(cur.to_string());
                while let Some(i) = cur.rfind('.') {
                    cur = &cur[..i];
                    paths.push(cur.to_string());
                }
                paths.push(format!("{p}.0"));
            }
            paths.sort();
            paths.dedup();
            for p in &paths {
                assert_eq!(
                    prov_answer(p, &index).to_json(),
                    prov_answer(p, &map).to_json(),
                    "{name}: {p:?}"
                );
            }
        }
    }

    #[test]
    fn curl_quotes_for_the_shell() {
        let req = RequestInfo {
            method: "POST".into(),
            url: "https://x/v1?a=1".into(),
            headers: vec![("content-type".into(), "application/json".into())],
            body: r#"{"t":"it's"}"#.into(),
            ..Default::default()
        };
        assert_eq!(curl_command(&req), "curl 'https://x/v1?a=1' \\\n  -X POST \\\n  -H 'content-type: application/json' \\\n  --data-raw '{\"t\":\"it'\\''s\"}'");
    }
}

//! A collapsible JSON tree. Every node has a path in the provenance convention: keys joined by
//! `.`, array indices as numbers (`messages.3.content.0.text`); the root is the empty path.
//! Long arrays show their first items and a "show more" button; long strings are cut until
//! opened. All text is rendered as text.

use std::collections::{HashMap, HashSet};

use ctxlens::js::{number_to_string, Value};
use yew::prelude::*;

use crate::shared::Shared;

const CHUNK: usize = 100;
const CUT: usize = 240;

#[derive(Properties, PartialEq)]
pub struct JsonTreeProps {
    pub value: Shared<Value>,
    /// The selected path.
    #[prop_or_default]
    pub selected: Option<AttrValue>,
    pub on_select: Callback<Option<String>>,
    #[prop_or_default]
    pub on_hover: Option<Callback<Option<String>>>,
    /// Nodes shallower than this start open.
    #[prop_or(2)]
    pub open_depth: usize,
    #[prop_or_default]
    pub testid: AttrValue,
}

struct Ctx<'a> {
    toggled: &'a HashSet<String>,
    all: Option<bool>,
    more: &'a HashMap<String, usize>,
    open_depth: usize,
    selected: Option<&'a str>,
    on_toggle: Callback<String>,
    on_more: Callback<String>,
    on_select: Callback<Option<String>>,
    on_hover: Option<Callback<Option<String>>>,
}

impl Ctx<'_> {
    fn is_open(&self, path: &str, depth: usize) -> bool {
        let ancestor_of_selected = self.selected.is_some_and(|s| {
            path.is_empty()
                || (s.len() > path.len() && s.starts_with(path) && s.as_bytes()[path.len()] == b'.')
        });
        let default = ancestor_of_selected || self.all.unwrap_or(depth < self.open_depth);
        default != self.toggled.contains(path)
    }
}

fn child_path(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn json_str(s: &str) -> String {
    Value::str(s).to_json()
}

fn scalar(v: &Value, path: &str, ctx: &Ctx) -> Html {
    match v {
        Value::Null => html! { <span class="jt-null">{"null"}</span> },
        Value::Bool(b) => html! { <span class="jt-bool">{b.to_string()}</span> },
        Value::Number(n) => html! { <span class="jt-num">{number_to_string(*n)}</span> },
        Value::String(s) => {
            let n = s.chars().count();
            if n > CUT && !ctx.toggled.contains(path) {
                let cut: String = s.chars().take(CUT).collect();
                let t = ctx.on_toggle.clone();
                let p = path.to_string();
                html! { <>
                    <span class="jt-str">{json_str(&cut)}</span>
                    <button class="jt-more" onclick={Callback::from(move |e: MouseEvent| { e.stop_propagation(); t.emit(p.clone()) })}>
                        {format!("… +{} chars", ctxlens::js::utf16_len(s) - ctxlens::js::utf16_len(&cut))}
                    </button>
                </> }
            } else {
                html! { <span class="jt-str">{json_str(s)}</span> }
            }
        }
        _ => Html::default(),
    }
}

/// A collapsed object's identifying fields (`role: "user"`, `type: "function"`, `name: "read"`).
fn peek(v: &Value) -> Option<String> {
    let o = v.as_object()?;
    let parts: Vec<String> = ["role", "type", "name"]
        .iter()
        .filter_map(|k| {
            o.get_str(k)
                .map(|x| format!("{k}: {}", json_str(&x.chars().take(40).collect::<String>())))
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

fn node(
    ctx: &Ctx,
    label: Option<String>,
    path: String,
    v: &Value,
    depth: usize,
    comma: bool,
) -> Html {
    let selected = ctx.selected == Some(path.as_str());
    let onclick = {
        let cb = ctx.on_select.clone();
        let p = path.clone();
        Callback::from(move |e: MouseEvent| {
            e.stop_propagation();
            cb.emit(Some(p.clone()))
        })
    };
    let onkeydown = {
        let cb = ctx.on_select.clone();
        let p = path.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" {
                e.prevent_default();
                cb.emit(Some(p.clone()))
            }
        })
    };
    let onfocus = ctx.on_hover.clone().map(|cb| {
        let p = path.clone();
        Callback::from(move |_: FocusEvent| cb.emit(Some(p.clone())))
    });
    let onmouseenter = ctx.on_hover.clone().map(|cb| {
        let p = path.clone();
        Callback::from(move |_: MouseEvent| cb.emit(Some(p.clone())))
    });
    let key = label.map(
        |l| html! { <><span class="jt-key">{l}</span><span class="jt-colon">{": "}</span></> },
    );
    let comma_h = comma.then(|| html! { <span class="jt-punct">{","}</span> });
    let (open_b, close_b, len, kind) = match v {
        Value::Object(o) => ("{", "}", o.len(), if o.len() == 1 { "key" } else { "keys" }),
        Value::Array(a) => (
            "[",
            "]",
            a.len(),
            if a.len() == 1 { "item" } else { "items" },
        ),
        _ => {
            return html! {
                <div class={classes!("jt-row", selected.then_some("sel"))} data-path={path.clone()} onclick={onclick} onmouseenter={onmouseenter} tabindex="0" onkeydown={onkeydown.clone()} onfocus={onfocus.clone()}>
                    <span class="jt-caret-space"></span>{key}{scalar(v, &path, ctx)}{comma_h}
                </div>
            }
        }
    };
    let open = ctx.is_open(&path, depth) && len > 0;
    let toggle = {
        let t = ctx.on_toggle.clone();
        let p = path.clone();
        Callback::from(move |e: MouseEvent| {
            e.stop_propagation();
            t.emit(p.clone())
        })
    };
    let caret = if len > 0 {
        html! { <button class="jt-toggle" data-testid="jt-toggle" aria-expanded={open.to_string()} aria-label={if open { "collapse" } else { "expand" }} onclick={toggle}>{if open { "▾" } else { "▸" }}</button> }
    } else {
        html! { <span class="jt-caret-space"></span> }
    };
    if !open {
        return html! {
            <div class={classes!("jt-row", selected.then_some("sel"))} data-path={path.clone()} onclick={onclick} onmouseenter={onmouseenter} tabindex="0" onkeydown={onkeydown.clone()} onfocus={onfocus.clone()}>
                {caret}{key}<span class="jt-punct">{open_b}</span>
                if let Some(peek) = peek(v) { <span class="jt-peek">{format!(" {peek}")}</span> }
                if len > 0 { <span class="jt-summary">{format!(" {len} {kind} ")}</span> }
                <span class="jt-punct">{close_b}</span>{comma_h}
            </div>
        };
    }
    let children: Html = match v {
        Value::Object(o) => {
            let n = o.len();
            o.iter()
                .enumerate()
                .map(|(i, (k, x))| {
                    node(
                        ctx,
                        Some(json_str(k)),
                        child_path(&path, k),
                        x,
                        depth + 1,
                        i + 1 < n,
                    )
                })
                .collect()
        }
        Value::Array(a) => {
            let limit = ctx.more.get(&path).copied().unwrap_or(CHUNK).min(a.len());
            let n = a.len();
            let mut items: Vec<Html> = a
                .iter()
                .take(limit)
                .enumerate()
                .map(|(i, x)| {
                    node(
                        ctx,
                        None,
                        child_path(&path, &i.to_string()),
                        x,
                        depth + 1,
                        i + 1 < n,
                    )
                })
                .collect();
            if limit < n {
                let m = ctx.on_more.clone();
                let p = path.clone();
                items.push(html! {
                    <div class="jt-row"><button class="jt-more" onclick={Callback::from(move |e: MouseEvent| { e.stop_propagation(); m.emit(p.clone()) })}>
                        {format!("show {} more of {}", (n - limit).min(CHUNK), n - limit)}
                    </button></div>
                });
            }
            items.into_iter().collect()
        }
        _ => Html::default(),
    };
    html! {
        <div class="jt-node">
            <div class={classes!("jt-row", selected.then_some("sel"))} data-path={path.clone()} onclick={onclick} onmouseenter={onmouseenter} tabindex="0" onkeydown={onkeydown.clone()} onfocus={onfocus.clone()}>
                {caret}{key}<span class="jt-punct">{open_b}</span>
            </div>
            <div class="jt-children">{children}</div>
            <div class="jt-row jt-close"><span class="jt-caret-space"></span><span class="jt-punct">{close_b}</span>{comma_h}</div>
        </div>
    }
}

#[function_component]
pub fn JsonTree(p: &JsonTreeProps) -> Html {
    let toggled = use_state(HashSet::<String>::new);
    let more = use_state(HashMap::<String, usize>::new);
    let all = use_state(|| None::<bool>);
    // A new document starts from the default state.
    {
        let (toggled, more, all) = (toggled.clone(), more.clone(), all.clone());
        use_effect_with(p.value.clone(), move |_| {
            toggled.set(HashSet::new());
            more.set(HashMap::new());
            all.set(None);
        });
    }
    let on_toggle = {
        let toggled = toggled.clone();
        Callback::from(move |path: String| {
            let mut t = (*toggled).clone();
            if !t.remove(&path) {
                t.insert(path);
            }
            toggled.set(t);
        })
    };
    let on_more = {
        let more = more.clone();
        Callback::from(move |path: String| {
            let mut m = (*more).clone();
            *m.entry(path).or_insert(CHUNK) += CHUNK;
            more.set(m);
        })
    };
    let set_all = |v: Option<bool>| {
        let (all, toggled) = (all.clone(), toggled.clone());
        Callback::from(move |_: MouseEvent| {
            all.set(v);
            toggled.set(HashSet::new());
        })
    };
    let ctx = Ctx {
        toggled: &toggled,
        all: *all,
        more: &more,
        open_depth: p.open_depth,
        selected: p.selected.as_deref(),
        on_toggle,
        on_more,
        on_select: p.on_select.clone(),
        on_hover: p.on_hover.clone(),
    };
    let onleave = p
        .on_hover
        .clone()
        .map(|cb| Callback::from(move |_: MouseEvent| cb.emit(None)));
    html! {
        <div class="json-tree-wrap">
            <div class="jt-tools">
                <button onclick={set_all(Some(true))} data-testid="jt-expand-all">{"Expand all"}</button>
                <button onclick={set_all(Some(false))} data-testid="jt-collapse-all">{"Collapse all"}</button>
                <button onclick={set_all(None)}>{"Reset"}</button>
            </div>
            <div class="json-tree" data-testid={p.testid.clone()} onmouseleave={onleave}>
                { node(&ctx, None, String::new(), &p.value, 0, false) }
            </div>
        </div>
    }
}

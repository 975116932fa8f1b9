//! A virtualized list: fixed-height rows, only the visible ones (plus a margin) are in the DOM,
//! so tens of thousands of rows scroll smoothly.

use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::dom::{event_scroll_top, El};

#[derive(Properties, PartialEq)]
pub struct VListProps {
    pub count: usize,
    /// Row height in px (every row has it).
    #[prop_or(26.0)]
    pub row_height: f64,
    /// Viewport height in px.
    #[prop_or(480.0)]
    pub height: f64,
    /// Renders row `i`.
    pub render: Callback<usize, Html>,
    #[prop_or_default]
    pub testid: AttrValue,
    #[prop_or_default]
    pub class: Classes,
    /// Scrolls so that this row is visible when it changes.
    #[prop_or_default]
    pub scroll_to: Option<usize>,
}

#[function_component]
pub fn VList(p: &VListProps) -> Html {
    let top = use_state(|| 0.0f64);
    let node = use_node_ref();
    {
        let node = node.clone();
        let (rh, h, top) = (p.row_height, p.height, top.clone());
        use_effect_with(p.scroll_to, move |target| {
            if let (Some(i), Some(n)) = (*target, node.get()) {
                let el: El = n.unchecked_into();
                let y = i as f64 * rh;
                let cur = el.scroll_top();
                if y < cur || y + rh > cur + h {
                    let ny = (y - h / 3.0).max(0.0);
                    el.set_scroll_top(ny);
                    top.set(ny);
                }
            }
        });
    }
    let onscroll = {
        let top = top.clone();
        Callback::from(move |e: Event| top.set(event_scroll_top(&e)))
    };
    let rh = p.row_height.max(1.0);
    let overscan = 8usize;
    let first = ((*top / rh).floor() as usize)
        .saturating_sub(overscan)
        .min(p.count);
    let visible = (p.height / rh).ceil() as usize + 2 * overscan;
    let last = (first + visible).min(p.count);
    html! {
        <div class={classes!("vlist", p.class.clone())} data-testid={p.testid.clone()} data-count={p.count.to_string()}
             ref={node} onscroll={onscroll} style={format!("height:{}px", p.height.min(rh * p.count as f64 + 2.0).max(rh + 2.0))} tabindex="0">
            <div class="vlist-inner" style={format!("height:{}px", rh * p.count as f64)}>
                { for (first..last).map(|i| html! {
                    <div class="vrow" key={i} style={format!("top:{}px;height:{}px", i as f64 * rh, rh)}>{ p.render.emit(i) }</div>
                }) }
            </div>
        </div>
    }
}

//! Reusable pieces of the views: hand-written SVG charts, a treemap, a collapsible JSON tree and
//! a virtualized list. No JS libraries, nothing fetched.

pub mod charts;
pub mod dom;
pub mod json_tree;
pub mod treemap;
pub mod vlist;

use yew::prelude::*;

/// A click and an Enter/Space key handler that both select `key` (for focusable chart parts).
pub fn select_handlers(
    cb: &Callback<Option<AttrValue>>,
    key: &str,
) -> (Callback<MouseEvent>, Callback<KeyboardEvent>) {
    let k: AttrValue = AttrValue::from(key.to_string());
    let (c1, k1) = (cb.clone(), k.clone());
    let (c2, k2) = (cb.clone(), k);
    (
        Callback::from(move |_: MouseEvent| c1.emit(Some(k1.clone()))),
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" || e.key() == " " {
                e.prevent_default();
                c2.emit(Some(k2.clone()))
            }
        }),
    )
}

/// A category colour: `var(--vc-<i>)` (ten colours, light and dark variants in views.css).
pub fn color(i: usize) -> String {
    format!("var(--vc-{})", i % 10)
}

/// A stable colour index for a name.
pub fn color_of(name: &str) -> usize {
    let mut h: u32 = 2166136261;
    for b in name.bytes() {
        h ^= b as u32;
        h = h.wrapping_mul(16777619);
    }
    (h % 10) as usize
}

/// `1234567` → `1,234,567`.
pub fn thousands(n: f64) -> String {
    if !n.is_finite() {
        return "–".into();
    }
    let neg = n < 0.0;
    let s = format!("{}", n.abs().round() as u64);
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if neg {
        format!("-{out}")
    } else {
        out
    }
}

/// A share as a percentage with one decimal.
pub fn pct(part: f64, whole: f64) -> String {
    if whole <= 0.0 {
        return "–".into();
    }
    format!("{:.1}%", part / whole * 100.0)
}

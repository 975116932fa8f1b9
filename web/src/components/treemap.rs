//! A squarified treemap (Bruls, Huizing, van Wijk) of groups and their items, in SVG.

use yew::prelude::*;

use super::thousands;

#[derive(Clone, PartialEq, Debug)]
pub struct TmItem {
    pub label: String,
    pub value: f64,
    pub key: Option<String>,
}

#[derive(Clone, PartialEq, Debug)]
pub struct TmGroup {
    pub label: String,
    pub color: String,
    pub items: Vec<TmItem>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

/// Lays out `values` (any order; returned in the same order) in `r`, areas proportional.
pub fn squarify(values: &[f64], r: Rect) -> Vec<Rect> {
    let mut order: Vec<usize> = (0..values.len())
        .filter(|&i| values[i] > 0.0 && values[i].is_finite())
        .collect();
    order.sort_by(|&a, &b| {
        values[b]
            .partial_cmp(&values[a])
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let mut out = vec![
        Rect {
            x: r.x,
            y: r.y,
            w: 0.0,
            h: 0.0
        };
        values.len()
    ];
    let total: f64 = order.iter().map(|&i| values[i]).sum();
    if total <= 0.0 || r.w <= 0.0 || r.h <= 0.0 {
        return out;
    }
    let scale = r.w * r.h / total;
    let mut rest = r;
    let mut i = 0;
    while i < order.len() {
        let side = rest.w.min(rest.h);
        let mut row: Vec<usize> = vec![order[i]];
        let mut sum = values[order[i]] * scale;
        let worst = |sum: f64, min: f64, max: f64| -> f64 {
            let s2 = side * side;
            ((s2 * max) / (sum * sum)).max((sum * sum) / (s2 * min))
        };
        let (mut mn, mut mx) = (sum, sum);
        let mut j = i + 1;
        while j < order.len() {
            let a = values[order[j]] * scale;
            let (nmn, nmx) = (mn.min(a), mx.max(a));
            if worst(sum + a, nmn, nmx) > worst(sum, mn, mx) {
                break;
            }
            row.push(order[j]);
            sum += a;
            mn = nmn;
            mx = nmx;
            j += 1;
        }
        // Lay the row along the shorter side.
        if rest.w >= rest.h {
            let cw = if rest.h > 0.0 { sum / rest.h } else { 0.0 };
            let mut y = rest.y;
            for &k in &row {
                let hh = if cw > 0.0 {
                    values[k] * scale / cw
                } else {
                    0.0
                };
                out[k] = Rect {
                    x: rest.x,
                    y,
                    w: cw,
                    h: hh,
                };
                y += hh;
            }
            rest = Rect {
                x: rest.x + cw,
                y: rest.y,
                w: (rest.w - cw).max(0.0),
                h: rest.h,
            };
        } else {
            let rh = if rest.w > 0.0 { sum / rest.w } else { 0.0 };
            let mut x = rest.x;
            for &k in &row {
                let ww = if rh > 0.0 {
                    values[k] * scale / rh
                } else {
                    0.0
                };
                out[k] = Rect {
                    x,
                    y: rest.y,
                    w: ww,
                    h: rh,
                };
                x += ww;
            }
            rest = Rect {
                x: rest.x,
                y: rest.y + rh,
                w: rest.w,
                h: (rest.h - rh).max(0.0),
            };
        }
        i = j;
    }
    out
}

#[derive(Properties, PartialEq)]
pub struct TreemapProps {
    pub groups: Vec<TmGroup>,
    #[prop_or_default]
    pub testid: AttrValue,
    #[prop_or_default]
    pub selected: Option<AttrValue>,
    #[prop_or_default]
    pub on_select: Option<Callback<Option<AttrValue>>>,
    #[prop_or(1000.0)]
    pub width: f64,
    #[prop_or(440.0)]
    pub height: f64,
}

/// Groups laid out by their totals, items inside each group under a header strip.
#[function_component]
pub fn Treemap(p: &TreemapProps) -> Html {
    let (w, h) = (p.width, p.height);
    let totals: Vec<f64> = p
        .groups
        .iter()
        .map(|g| g.items.iter().map(|i| i.value.max(0.0)).sum())
        .collect();

    let rects = squarify(
        &totals,
        Rect {
            x: 0.0,
            y: 0.0,
            w,
            h,
        },
    );
    let groups = p.groups.iter().zip(&rects).zip(&totals).filter(|((_, r), _)| r.w > 0.5 && r.h > 0.5).map(|((g, r), t)| {
        let head = if r.h > 40.0 && r.w > 60.0 { 18.0 } else { 0.0 };
        let inner = Rect { x: r.x + 1.5, y: r.y + head + 1.5, w: (r.w - 3.0).max(0.0), h: (r.h - head - 3.0).max(0.0) };
        let vals: Vec<f64> = g.items.iter().map(|i| i.value.max(0.0)).collect();
        let irs = squarify(&vals, inner);
        let items = g.items.iter().zip(irs).filter(|(_, ir)| ir.w > 0.2 && ir.h > 0.2).map(|(it, ir)| {
            let sel = it.key.is_some() && it.key.as_deref() == p.selected.as_deref();
            let h = match (&p.on_select, &it.key) {
                (Some(cb), Some(k)) => Some(super::select_handlers(cb, k)),
                _ => None,
            };
            let focusable = h.is_some();
            let (onclick, onkeydown) = h.map(|(a, b)| (Some(a), Some(b))).unwrap_or((None, None));
            let fits = ir.w > 46.0 && ir.h > 15.0;
            let max_chars = ((ir.w - 8.0) / 6.6).max(0.0) as usize;
            let label = ellipsize(&it.label, max_chars);
            html! {
                <g class={classes!("tm-item", sel.then_some("sel"), focusable.then_some("clickable"))} onclick={onclick} onkeydown={onkeydown} tabindex={focusable.then_some("0")}
                   role={focusable.then_some("button")} aria-label={format!("{}: {} chars", it.label, thousands(it.value))} data-key={it.key.clone().unwrap_or_default()}>
                    <title>{format!("{} · {}: {} chars", g.label, it.label, thousands(it.value))}</title>
                    <rect x={format!("{:.1}", ir.x)} y={format!("{:.1}", ir.y)} width={format!("{:.1}", ir.w)} height={format!("{:.1}", ir.h)} fill={g.color.clone()} />
                    if fits {
                        <text x={format!("{:.1}", ir.x + 4.0)} y={format!("{:.1}", ir.y + 13.0)}>{label}</text>
                    }
                    if fits && ir.h > 30.0 {
                        <text class="v" x={format!("{:.1}", ir.x + 4.0)} y={format!("{:.1}", ir.y + 26.0)}>{thousands(it.value)}</text>
                    }
                </g>
            }
        });
        html! {
            <g class="tm-group">
                <rect class="tm-frame" x={format!("{:.1}", r.x)} y={format!("{:.1}", r.y)} width={format!("{:.1}", r.w)} height={format!("{:.1}", r.h)} />
                if head > 0.0 {
                    <text class="tm-head" x={format!("{:.1}", r.x + 5.0)} y={format!("{:.1}", r.y + 13.0)}>
                        {ellipsize(&format!("{} · {}", g.label, thousands(*t)), ((r.w - 10.0) / 6.8).max(0.0) as usize)}
                    </text>
                }
                { for items }
            </g>
        }
    });
    html! {
        <svg class="treemap" data-testid={p.testid.clone()} viewBox={format!("0 0 {w} {h}")} role="img" aria-label="treemap of the request">
            { for groups }
        </svg>
    }
}

/// At most `n` characters, with an ellipsis when cut.
pub fn ellipsize(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_string();
    }
    if n == 0 {
        return String::new();
    }
    let mut out: String = s.chars().take(n.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squarify_fills_the_rect_with_proportional_areas() {
        let vals = [6.0, 6.0, 4.0, 3.0, 2.0, 2.0, 1.0, 0.0];
        let r = Rect {
            x: 0.0,
            y: 0.0,
            w: 600.0,
            h: 400.0,
        };
        let out = squarify(&vals, r);
        let total: f64 = vals.iter().sum();
        for (v, q) in vals.iter().zip(&out) {
            assert!(
                (q.w * q.h - v / total * 240_000.0).abs() < 1e-6,
                "area of {v}"
            );
            assert!(
                q.x >= -1e-9
                    && q.y >= -1e-9
                    && q.x + q.w <= 600.0 + 1e-6
                    && q.y + q.h <= 400.0 + 1e-6
            );
        }
        assert_eq!(out[7].w * out[7].h, 0.0, "zero gets no area");
        assert_eq!(ellipsize("abcdef", 4), "abc…");
    }
}

//! Hand-written SVG charts: a stacked share bar with its legend, horizontal (stacked) bars, and
//! stacked columns with a line overlay.

use yew::prelude::*;

use super::{pct, thousands};

/// One part of a whole.
#[derive(Clone, PartialEq, Debug)]
pub struct Seg {
    pub label: String,
    pub value: f64,
    /// A CSS colour (`var(--vc-3)`).
    pub color: String,
    /// The selection key it stands for, if any.
    pub key: Option<String>,
}

impl Seg {
    pub fn new(label: impl Into<String>, value: f64, color: impl Into<String>) -> Self {
        Seg {
            label: label.into(),
            value,
            color: color.into(),
            key: None,
        }
    }
    pub fn key(mut self, k: impl Into<String>) -> Self {
        self.key = Some(k.into());
        self
    }
}

#[derive(Properties, PartialEq)]
pub struct StackedProps {
    pub segs: Vec<Seg>,
    #[prop_or_default]
    pub testid: AttrValue,
    #[prop_or_default]
    pub on_select: Option<Callback<Option<AttrValue>>>,
    #[prop_or_default]
    pub selected: Option<AttrValue>,
    /// Show the legend (label, value, share).
    #[prop_or(true)]
    pub legend: bool,
}

/// A 100 % bar split into its parts, with a legend.
#[function_component]
pub fn StackedBar(p: &StackedProps) -> Html {
    let total: f64 = p.segs.iter().map(|s| s.value.max(0.0)).sum();
    let mut x = 0.0;
    let rects = p.segs.iter().filter(|s| s.value > 0.0).map(|s| {
        let w = if total > 0.0 { s.value / total * 1000.0 } else { 0.0 };
        let r = html! {
            <rect x={format!("{x:.2}")} y="0" width={format!("{:.2}", w.max(0.0))} height="10" fill={s.color.clone()}>
                <title>{format!("{}: {} ({})", s.label, thousands(s.value), pct(s.value, total))}</title>
            </rect>
        };
        x += w;
        r
    });
    let legend = p.legend.then(|| {
        html! {
            <ul class="legend">
            { for p.segs.iter().map(|s| {
                let sel = s.key.is_some() && s.key.as_deref() == p.selected.as_deref();
                let h = match (&p.on_select, &s.key) {
                    (Some(cb), Some(k)) => Some(super::select_handlers(cb, k)),
                    _ => None,
                };
                let focusable = h.is_some();
                let (onclick, onkeydown) = h.map(|(a, b)| (Some(a), Some(b))).unwrap_or((None, None));
                html! {
                    <li class={classes!(sel.then_some("sel"), focusable.then_some("clickable"))} onclick={onclick} onkeydown={onkeydown} tabindex={focusable.then_some("0")}>
                        <span class="sw" style={format!("background:{}", s.color)}></span>
                        <span class="lbl">{&s.label}</span>
                        <span class="num">{thousands(s.value)}</span>
                        <span class="share">{pct(s.value, total)}</span>
                    </li>
                }
            }) }
            </ul>
        }
    });
    html! {
        <div class="stacked" data-testid={p.testid.clone()}>
            <svg class="stacked-bar" viewBox="0 0 1000 10" preserveAspectRatio="none" role="img"
                 aria-label={p.segs.iter().map(|s| format!("{} {}", s.label, pct(s.value, total))).collect::<Vec<_>>().join(", ")}>
                <rect x="0" y="0" width="1000" height="10" class="track" />
                { for rects }
            </svg>
            { legend.unwrap_or_default() }
        </div>
    }
}

/// One row of a bar chart: a label and one or more stacked parts.
#[derive(Clone, PartialEq, Debug)]
pub struct BarRow {
    pub label: String,
    pub key: Option<String>,
    pub segs: Vec<Seg>,
    /// Extra cells after the value (already formatted).
    pub extra: Vec<String>,
}

#[derive(Properties, PartialEq)]
pub struct BarsProps {
    pub rows: Vec<BarRow>,
    #[prop_or_default]
    pub testid: AttrValue,
    #[prop_or_default]
    pub on_select: Option<Callback<Option<AttrValue>>>,
    #[prop_or_default]
    pub selected: Option<AttrValue>,
    /// Headers of the extra cells.
    #[prop_or_default]
    pub extra_heads: Vec<&'static str>,
    #[prop_or("chars")]
    pub unit: &'static str,
}

/// Horizontal bars, scaled to the largest row, each a stack of its parts.
#[function_component]
pub fn Bars(p: &BarsProps) -> Html {
    let max = p
        .rows
        .iter()
        .map(|r| r.segs.iter().map(|s| s.value.max(0.0)).sum::<f64>())
        .fold(0.0, f64::max);
    let total: f64 = p
        .rows
        .iter()
        .map(|r| r.segs.iter().map(|s| s.value.max(0.0)).sum::<f64>())
        .sum();
    html! {
        <table class="bars" data-testid={p.testid.clone()}>
            <thead><tr>
                <th></th><th class="barcol"></th><th class="num">{p.unit}</th><th class="num">{"share"}</th>
                { for p.extra_heads.iter().map(|h| html! { <th>{*h}</th> }) }
            </tr></thead>
            <tbody>
            { for p.rows.iter().map(|r| {
                let v: f64 = r.segs.iter().map(|s| s.value.max(0.0)).sum();
                let sel = r.key.is_some() && r.key.as_deref() == p.selected.as_deref();
                let h = match (&p.on_select, &r.key) {
                    (Some(cb), Some(k)) => Some(super::select_handlers(cb, k)),
                    _ => None,
                };
                let focusable = h.is_some();
                let (onclick, onkeydown) = h.map(|(a, b)| (Some(a), Some(b))).unwrap_or((None, None));
                let mut x = 0.0;
                html! {
                    <tr class={classes!("bar-row", sel.then_some("sel"), focusable.then_some("clickable"))} onclick={onclick} onkeydown={onkeydown} tabindex={focusable.then_some("0")}
                        data-key={r.key.clone().unwrap_or_default()} data-value={format!("{v}")}>
                        <th class="lbl" title={r.label.clone()}>{&r.label}</th>
                        <td class="barcol">
                            <svg viewBox="0 0 1000 14" preserveAspectRatio="none" class="hbar" role="img" aria-label={format!("{}: {}", r.label, thousands(v))}>
                            { for r.segs.iter().map(|s| {
                                let w = if max > 0.0 { s.value.max(0.0) / max * 1000.0 } else { 0.0 };
                                let e = html! { <rect x={format!("{x:.2}")} y="0" width={format!("{w:.2}")} height="14" fill={s.color.clone()} rx="2"><title>{format!("{}: {}", s.label, thousands(s.value))}</title></rect> };
                                x += w;
                                e
                            }) }
                            </svg>
                        </td>
                        <td class="num">{thousands(v)}</td>
                        <td class="num share">{pct(v, total)}</td>
                        { for r.extra.iter().map(|e| html! { <td>{e}</td> }) }
                    </tr>
                }
            }) }
            </tbody>
        </table>
    }
}

/// One column of a stacked column chart.
#[derive(Clone, PartialEq, Debug)]
pub struct Column {
    pub label: String,
    /// Values in the order of `ColumnsProps::series`.
    pub values: Vec<f64>,
    /// Marked (a cache break): drawn with a marker above.
    pub mark: Option<String>,
}

#[derive(Properties, PartialEq)]
pub struct ColumnsProps {
    /// (name, colour) of each stacked series.
    pub series: Vec<(String, String)>,
    pub columns: Vec<Column>,
    #[prop_or_default]
    pub testid: AttrValue,
    #[prop_or("tokens")]
    pub unit: &'static str,
    /// Makes each column a button: called with the column's index.
    #[prop_or_default]
    pub on_pick: Option<Callback<usize>>,
    /// The column shown as chosen.
    #[prop_or_default]
    pub picked: Option<usize>,
    /// Label the x axis with the columns' labels (periods, groups), not their numbers.
    #[prop_or_default]
    pub labels: bool,
}

/// Stacked columns (one per call), with a y axis and markers.
#[function_component]
pub fn Columns(p: &ColumnsProps) -> Html {
    let (w, h, left, bottom, top) = (1000.0, 280.0, 64.0, 24.0, 18.0);
    let n = p.columns.len().max(1) as f64;
    let max = p
        .columns
        .iter()
        .map(|c| c.values.iter().map(|v| v.max(0.0)).sum::<f64>())
        .fold(0.0, f64::max)
        .max(1.0);
    let nice = nice_ceiling(max);
    let plot_h = h - bottom - top;
    let slot = (w - left - 8.0) / n;
    let bw = (slot * 0.72).max(1.0);
    let y = |v: f64| top + plot_h - v / nice * plot_h;
    let ticks = (0..=4).map(|i| nice * i as f64 / 4.0);
    let label_every = ((n / 16.0).ceil() as usize).max(1);
    html! {
        <div class="columns-chart" data-testid={p.testid.clone()}>
            <svg viewBox={format!("0 0 {w} {h}")} class="columns" role="img" aria-label={format!("{} columns", p.columns.len())}>
                { for ticks.map(|t| html! {
                    <g class="tick">
                        <line x1={format!("{left}")} x2={format!("{w}")} y1={format!("{:.1}", y(t))} y2={format!("{:.1}", y(t))} />
                        <text x={format!("{}", left - 6.0)} y={format!("{:.1}", y(t) + 4.0)} text-anchor="end">{short_num(t)}</text>
                    </g>
                }) }
                { for p.columns.iter().enumerate().map(|(i, c)| {
                    let x0 = left + 4.0 + slot * i as f64 + (slot - bw) / 2.0;
                    let mut acc = 0.0;
                    let total: f64 = c.values.iter().map(|v| v.max(0.0)).sum();
                    let tip = format!("{}\n{}", c.label, p.series.iter().zip(&c.values).map(|((s, _), v)| format!("{s}: {}", thousands(*v))).collect::<Vec<_>>().join("\n"));
                    let (onclick, onkeydown) = match &p.on_pick {
                        Some(cb) => {
                            let (a, b) = (cb.clone(), cb.clone());
                            (
                                Some(Callback::from(move |_: MouseEvent| a.emit(i))),
                                Some(Callback::from(move |e: KeyboardEvent| {
                                    if e.key() == "Enter" || e.key() == " " {
                                        e.prevent_default();
                                        b.emit(i);
                                    }
                                })),
                            )
                        }
                        None => (None, None),
                    };
                    let pickable = p.on_pick.is_some();
                    html! {
                        <g class={classes!("col", pickable.then_some("pickable"), (p.picked == Some(i)).then_some("picked"))} data-total={format!("{total}")} data-col={i.to_string()}
                           {onclick} {onkeydown} tabindex={pickable.then_some("0")} role={pickable.then_some("button")}
                           aria-pressed={pickable.then(|| (p.picked == Some(i)).to_string())}>
                            <title>{tip}</title>
                            if pickable {
                                <rect class="hit" x={format!("{:.2}", left + 4.0 + slot * i as f64)} y={format!("{top}")} width={format!("{slot:.2}")} height={format!("{plot_h:.2}")} fill="transparent" />
                            }
                            { for c.values.iter().zip(&p.series).map(|(v, (_, color))| {
                                let v = v.max(0.0);
                                let r = html! { <rect x={format!("{x0:.2}")} y={format!("{:.2}", y(acc + v))} width={format!("{bw:.2}")} height={format!("{:.2}", (y(acc) - y(acc + v)).max(0.0))} fill={color.clone()} /> };
                                acc += v;
                                r
                            }) }
                            if let Some(m) = &c.mark {
                                <g class="mark"><title>{m.clone()}</title>
                                    <path d={format!("M{:.1} {:.1} l5 -8 l-10 0 z", x0 + bw / 2.0, y(total) - 3.0)} />
                                </g>
                            }
                            if i % label_every == 0 {
                                <text class="xl" x={format!("{:.1}", x0 + bw / 2.0)} y={format!("{}", h - 6.0)} text-anchor="middle">{ if p.labels { c.label.clone() } else { (i + 1).to_string() } }</text>
                            }
                        </g>
                    }
                }) }
            </svg>
            <ul class="legend inline">
                { for p.series.iter().map(|(s, c)| html! { <li><span class="sw" style={format!("background:{c}")}></span><span class="lbl">{s}</span></li> }) }
            </ul>
        </div>
    }
}

fn nice_ceiling(v: f64) -> f64 {
    let e = 10f64.powf(v.log10().floor());
    for m in [1.0, 2.0, 2.5, 5.0, 10.0] {
        if m * e >= v {
            return m * e;
        }
    }
    10.0 * e
}

/// 12345 → "12.3k".
pub fn short_num(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if v >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if v >= 1e3 {
        format!("{:.1}k", v / 1e3)
    } else {
        format!("{}", v.round())
    }
}

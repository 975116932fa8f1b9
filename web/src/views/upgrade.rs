//! The Protocols view's second comparison: the same session and files rebuilt under another pi
//! release (what an upgrade, or going back, does to the request). It is the core's upgrade
//! comparison (`ctxlens::analysis::upgrade::upgrade`, the JSON of
//! `ctxlens::report::upgrade::to_json`, as `ctxlens compare --pi A --pi-with B` prints it),
//! made in the worker (`ViewProps::upgrades` / `on_upgrade`), which fetches the other release's
//! data first when the page has not used it yet. Shown: whether the request is identical; else
//! its first changed byte (the JSON path, the block, each side's value) and what that does to
//! the provider's cache; the URL and headers that differ; each block's characters (and tokens,
//! once the model's vocabulary is loaded) under both; the version table's rules that differ.
//! Each rule with its version-table entry and the changelog lines that cite the same issues, and
//! pi's release notes between the two (the worker fetches them before its first comparison).

use ctxlens::js::Value;
use yew::prelude::*;

use super::components::thousands;
use super::protocols::{default_release, mode_chooser};
use super::util::{not_available, pi_version};
use super::{Upgrading, ViewProps};
use crate::state::CompareWith;
use ctxlens::report::types::{RuleChange, Upgrade, UpgradeBlock};
use ctxlens::report::wire::Wire;

/// `+12 gained` / `−5 lost` / ``.
fn delta(d: f64) -> Html {
    if d > 0.0 {
        html! { <span class="gained">{format!("+{} gained", thousands(d))}</span> }
    } else if d < 0.0 {
        html! { <span class="lost">{format!("−{} lost", thousands(-d))}</span> }
    } else {
        Html::default()
    }
}

/// The comparison's answer on screen (`u`: the worker's JSON, read as its type).
fn upgrade_html(u: &Value, all_rules: bool, on_all: Callback<MouseEvent>) -> Html {
    let Some(u) = Upgrade::from_value(u) else {
        return not_available("The worker's answer is not an upgrade comparison.");
    };
    let (from, to) = (&u.from, &u.to);
    html! {
        <>
            { for u.not_built.iter().map(|n| html! {
                <p class="na" data-testid="upgrade-not-built">{format!("pi {} builds no request: {}", n.pi, n.why)}</p>
            }) }
            { verdict(&u) }
            if let Some(url) = &u.url {
                <div data-testid="upgrade-url">
                    <h4>{"URL"}</h4>
                    <p class="mono small">{format!("pi {from}: {}", url.from)}</p>
                    <p class="mono small">{format!("pi {to}: {}", url.to)}</p>
                </div>
            }
            if !u.headers.is_empty() {
                <h4>{"Headers that differ"}</h4>
                <table class="sizes" data-testid="upgrade-headers">
                    <thead><tr><th>{"header"}</th><th class="mono">{format!("pi {from}")}</th><th class="mono">{format!("pi {to}")}</th></tr></thead>
                    <tbody>
                    { for u.headers.iter().map(|h| html! {
                        <tr><th class="mono">{&h.name}</th>
                            <td class="mono small">{h.from.as_deref().unwrap_or("(not sent)")}</td>
                            <td class="mono small">{h.to.as_deref().unwrap_or("(not sent)")}</td></tr>
                    }) }
                    </tbody>
                </table>
            }
            { blocks_table(&u) }
            { rules_list(&u, all_rules, on_all) }
            { release_notes(&u) }
        </>
    }
}

/// The verdict: identical under both releases, the first byte that changes (and what that
/// does to the provider's cache), or the same body with other URL or headers.
fn verdict(u: &Upgrade) -> Html {
    let (from, to) = (&u.from, &u.to);
    if u.identical {
        html! {
            <p class="upgrade-verdict ok" data-testid="upgrade-identical">
                <strong>{format!("Identical under pi {from} and pi {to}.")}</strong>
                {" The same body, URL and headers, byte for byte: upgrading leaves the provider's cache as it is (the whole cached prefix is still reused)."}
            </p>
        }
    } else if let Some(f) = &u.first_change {
        let byte = f.byte as f64;
        let block = f.block.as_deref().unwrap_or("a part ctxlens cannot name");
        html! {
            <div class="upgrade-first-change" data-testid="upgrade-first-change" data-byte={byte.to_string()}>
                <p class="upgrade-verdict"><strong>{"The request changes. "}</strong>{"First changed byte: "}
                    <strong data-testid="upgrade-first-byte">{thousands(byte)}</strong>
                    {format!(" (character {} as JavaScript counts), in ", thousands(f.utf16 as f64))}
                    <strong data-testid="upgrade-first-block">{block}</strong>
                </p>
                if let Some(path) = &f.path {
                    <p class="small">{"JSON path "}<code class="mono" data-testid="upgrade-first-path">{path}</code></p>
                }
                <div class="two-col upgrade-values">
                    <div><h5>{format!("pi {from}")}</h5><pre class="mono small" data-testid="upgrade-first-from">{f.from.as_deref().unwrap_or("(nothing)")}</pre></div>
                    <div><h5>{format!("pi {to}")}</h5><pre class="mono small" data-testid="upgrade-first-to">{f.to.as_deref().unwrap_or("(nothing)")}</pre></div>
                </div>
                <p class="upgrade-cache" data-testid="upgrade-cache">
                    {format!("The first {} bytes stay the same: the cached prefix up to there is still reused on the first call after upgrading; everything after is written to the cache again.", thousands(byte))}
                </p>
            </div>
        }
    } else if u.not_built.is_empty() {
        html! { <p class="upgrade-verdict" data-testid="upgrade-same-body">{"The body is the same under both releases; the URL or headers differ (below)."}</p> }
    } else {
        Html::default()
    }
}

/// Each block's characters (and tokens, once counted) under both releases.
fn blocks_table(u: &Upgrade) -> Html {
    let (from, to) = (&u.from, &u.to);
    let blocks: Vec<&UpgradeBlock> = u
        .blocks
        .iter()
        .filter(|b| b.from_chars > 0 || b.to_chars > 0)
        .collect();
    let with_tokens = blocks.iter().any(|b| b.from_tokens.is_some());
    html! {
        <>
            <h4>{"Each block under both"}</h4>
            if !with_tokens {
                <p class="muted small" data-testid="upgrade-chars-only">{"Characters only: the tokens are counted under both once the model's vocabulary is loaded (the Overview's Tokens card says which vocabulary)."}</p>
            }
            <div class="table-scroll">
            <table class="sizes upgrade-blocks" data-testid="upgrade-blocks" data-tokens={with_tokens.to_string()}>
                <thead>
                    <tr><th rowspan="2">{"block"}</th><th colspan="3" class="num">{"characters"}</th>
                        if with_tokens { <th colspan="3" class="num">{"tokens"}</th> }
                    </tr>
                    <tr>
                        <th class="num mono">{format!("pi {from}")}</th><th class="num mono">{format!("pi {to}")}</th><th class="num">{"Δ"}</th>
                        if with_tokens {
                            <th class="num mono">{format!("pi {from}")}</th><th class="num mono">{format!("pi {to}")}</th><th class="num">{"Δ"}</th>
                        }
                    </tr>
                </thead>
                <tbody>
                { for blocks.iter().map(|b| {
                    // A block with characters and 0 tokens on both sides is one the core does
                    // not count on its own (structure, parameters, signatures): not "0 tokens".
                    let uncounted = b.from_tokens == Some(0) && b.to_tokens == Some(0);
                    let changed = b.chars_delta != 0.0 || b.tokens_delta.is_some_and(|d| d != 0.0);
                    let tok = |n: Option<usize>| match n {
                        Some(n) if !uncounted => thousands(n as f64),
                        _ => "–".into(),
                    };
                    html! {
                        <tr class={classes!(changed.then_some("diff"))} data-block={b.name.clone()}>
                            <th>{&b.name}</th>
                            <td class="num">{thousands(b.from_chars as f64)}</td><td class="num">{thousands(b.to_chars as f64)}</td>
                            <td class="num">{delta(b.chars_delta)}</td>
                            if with_tokens {
                                <td class="num" title={uncounted.then_some("not counted as a block of its own")}>{tok(b.from_tokens)}</td>
                                <td class="num" title={uncounted.then_some("not counted as a block of its own")}>{tok(b.to_tokens)}</td>
                                <td class="num">{b.tokens_delta.map(delta).unwrap_or_default()}</td>
                            }
                        </tr>
                    }
                }) }
                </tbody>
            </table>
            </div>
        </>
    }
}

/// The version table's rules that differ between the releases (those of this protocol, or
/// all), each with the changelog lines citing it.
fn rules_list(u: &Upgrade, all_rules: bool, on_all: Callback<MouseEvent>) -> Html {
    let (from, to) = (&u.from, &u.to);
    let rules = &u.rules;
    let applying = rules.iter().filter(|r| r.applies_to_this_protocol).count();
    let shown: Vec<&RuleChange> = rules
        .iter()
        .filter(|r| all_rules || r.applies_to_this_protocol)
        .collect();
    html! {
        <>
            <h4>{"The rules that differ"}<span class="muted small">{" · pi's version table in ctxlens"}</span></h4>
            <p class="muted small">
                {format!("{applying} of the {} rules that differ between pi {from} and pi {to} apply to this request's protocol. ", rules.len())}
                if applying < rules.len() {
                    <button class="button" data-testid="upgrade-rules-all" aria-pressed={all_rules.to_string()} onclick={on_all}>
                        { if all_rules { "Only this protocol's" } else { "Show all" } }
                    </button>
                }
            </p>
            if u.changelog.is_none() {
                <p class="muted small" data-testid="upgrade-no-changelog">{format!("pi's release notes did not load: the CLI (ctxlens compare --pi {from} --pi-with {to}) shows the lines of pi's changelog tied to each rule.")}</p>
            }
            <ul class="upgrade-rules" data-testid="upgrade-rules" data-count={shown.len().to_string()}>
            { for shown.iter().map(|r| html! {
                <li data-rule={r.rule.clone()} data-applies={r.applies_to_this_protocol.to_string()}>
                    <code class="mono">{&r.rule}</code>{": "}
                    <span class="mono small">{&r.from}</span>{format!(" under pi {from} → ")}<span class="mono small">{&r.to}</span>{format!(" under pi {to}")}
                    if let Some(doc) = &r.doc {
                        <div class="rule-doc small">{doc}</div>
                    }
                    if !r.changelog.is_empty() {
                        <ul class="small changelog">
                        { for r.changelog.iter().map(|l| html! { <li><span class="badge">{format!("pi {}", l.pi)}</span>{" "}{&l.text}</li> }) }
                        </ul>
                    }
                </li>
            }) }
            </ul>
        </>
    }
}

/// pi's release notes between the two releases (when they loaded).
fn release_notes(u: &Upgrade) -> Html {
    let (from, to) = (&u.from, &u.to);
    let Some(notes) = &u.changelog else {
        return Html::default();
    };
    html! {
        <details class="upgrade-changelog" data-testid="upgrade-changelog" data-releases={notes.len().to_string()}>
            <summary>{format!("pi's release notes between pi {from} and pi {to} ({} releases)", notes.len())}</summary>
            { for notes.iter().map(|r| html! {
                <section data-release={r.pi.clone()}>
                    <h5>{format!("pi {}", r.pi)}{r.date.as_ref().map(|d| format!(" · {d}")).unwrap_or_default()}</h5>
                    { for r.sections.iter().map(|sec| html! {
                        <>
                            <h6>{&sec.title}</h6>
                            <ul class="small changelog">
                            { for sec.items.iter().map(|i| html! { <li>{i}</li> }) }
                            </ul>
                        </>
                    }) }
                </section>
            }) }
        </details>
    }
}

/// The request under the release on screen beside the same inputs under another.
#[function_component]
pub fn UpgradeView(p: &ViewProps) -> Html {
    let all_rules = use_state(|| false);
    let api = p.api.to_string();
    let from = pi_version(&p.report).to_string();
    let to = match p.with.as_deref().and_then(CompareWith::parse) {
        Some(CompareWith::Pi(v)) => v,
        _ => default_release(&from),
    };
    // With tokens once the model's vocabulary has counted this report.
    let key = (
        api.clone(),
        to.as_str().to_string(),
        super::counted(&p.tokens),
    );
    let entry = p.upgrades.get(&key).cloned();
    let shown = Upgrading::shown(&p.upgrades, &key, &(key.0.clone(), key.1.clone(), false));
    {
        let on_upgrade = p.on_upgrade.clone();
        let ask = (!api.is_empty() && !from.is_empty() && entry.is_none()).then(|| key.clone());
        use_effect_with(ask, move |ask| {
            if let Some(k) = ask {
                on_upgrade.emit(k.clone());
            }
        });
    }
    let pick = |v: ctxlens::PiVersion| {
        let on_with = p.on_with.clone();
        Callback::from(move |_: MouseEvent| on_with.emit(Some(CompareWith::Pi(v).key())))
    };
    let chooser = html! {
        <div class="chooser" role="group" aria-label="compare with pi release">
            <span class="muted small">{format!("pi {from} compared with ")}</span>
            { for ctxlens::PiVersion::ALL.iter().rev().map(|v| html! {
                <button class={classes!("chip", (*v == to).then_some("on"))} aria-pressed={(*v == to).to_string()}
                        data-testid={format!("compare-pi-{v}")} onclick={pick(*v)}
                        title={format!("pi {v}, released {}{}", v.released(), if v.as_str() == from { " (the release on screen)" } else { "" })}>{format!("pi {v}")}</button>
            }) }
        </div>
    };
    let on_all = {
        let all_rules = all_rules.clone();
        Callback::from(move |_: MouseEvent| all_rules.set(!*all_rules))
    };
    let state = match &shown {
        Some(Upgrading::Ready(_)) => "ready",
        Some(Upgrading::Failed(_)) => "failed",
        _ => "pending",
    };
    let body = match &shown {
        _ if from.is_empty() || api.is_empty() => not_available(
            "This report names no pi release or protocol (no model), so there is nothing to compare it with.",
        ),
        Some(Upgrading::Ready(u)) => upgrade_html(u, *all_rules, on_all),
        Some(Upgrading::Failed(why)) => {
            let again = {
                let (on_upgrade, key) = (p.on_upgrade.clone(), key.clone());
                Callback::from(move |_: MouseEvent| on_upgrade.emit(key.clone()))
            };
            html! {
                <div class="compare-failed" data-testid="compare-failed" role="alert">
                    <p class="na">{why}</p>
                    <button class="button" data-testid="compare-again" onclick={again}>{"Compare again"}</button>
                </div>
            }
        }
        Some(Upgrading::Pending { stage, done }) => {
            let pct = (done.clamp(0.0, 1.0) * 100.0).round();
            html! {
                <p class="muted loading" data-testid="compare-pending" aria-busy="true">
                    <progress class="progress" max="100" value={pct.to_string()} aria-label="comparison progress"></progress>
                    {format!(" pi {to}: {stage}…")}
                </p>
            }
        }
        None => html! {
            <p class="muted loading" data-testid="compare-pending" aria-busy="true"><span class="spinner" aria-hidden="true"></span>{format!("comparing with pi {to} in the worker…")}</p>
        },
    };
    html! {
        <section class="protocols-view upgrade-view" data-testid="upgrade-view" data-from={from.clone()} data-to={to.as_str()} data-state={state}>
            <h3>{"Compare pi releases"}<span class="muted small">{format!(" · {api}")}</span></h3>
            {mode_chooser(p, true)}
            {chooser}
            {body}
        </section>
    }
}

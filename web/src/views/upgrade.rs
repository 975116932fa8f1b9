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
use super::util::{arr, not_available, num, pi_version, s};
use super::{Upgrading, ViewProps};
use crate::state::CompareWith;

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

/// An optional number of a JSON object (`null` → `None`).
fn opt_num(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64)
}

/// The comparison's answer on screen.
fn upgrade_html(u: &Value, all_rules: bool, on_all: Callback<MouseEvent>) -> Html {
    let (from, to) = (s(u, "from"), s(u, "to"));
    let not_built = arr(u, "notBuilt");
    let url = u.get("url").filter(|x| !x.is_null());
    let headers = arr(u, "headers");
    html! {
        <>
            { for not_built.iter().map(|n| html! {
                <p class="na" data-testid="upgrade-not-built">{format!("pi {} builds no request: {}", s(n, "pi"), s(n, "why"))}</p>
            }) }
            { verdict(u) }
            if let Some(url) = url {
                <div data-testid="upgrade-url">
                    <h4>{"URL"}</h4>
                    <p class="mono small">{format!("pi {from}: {}", s(url, "from"))}</p>
                    <p class="mono small">{format!("pi {to}: {}", s(url, "to"))}</p>
                </div>
            }
            if !headers.is_empty() {
                <h4>{"Headers that differ"}</h4>
                <table class="sizes" data-testid="upgrade-headers">
                    <thead><tr><th>{"header"}</th><th class="mono">{format!("pi {from}")}</th><th class="mono">{format!("pi {to}")}</th></tr></thead>
                    <tbody>
                    { for headers.iter().map(|h| html! {
                        <tr><th class="mono">{s(h, "name")}</th>
                            <td class="mono small">{h.get_str("from").unwrap_or("(not sent)")}</td>
                            <td class="mono small">{h.get_str("to").unwrap_or("(not sent)")}</td></tr>
                    }) }
                    </tbody>
                </table>
            }
            { blocks_table(u) }
            { rules_list(u, all_rules, on_all) }
            { release_notes(u) }
        </>
    }
}

/// The verdict: identical under both releases, the first byte that changes (and what that
/// does to the provider's cache), or the same body with other URL or headers.
fn verdict(u: &Value) -> Html {
    let (from, to) = (s(u, "from"), s(u, "to"));
    let identical = u.get("identical").and_then(Value::as_bool) == Some(true);
    let not_built = arr(u, "notBuilt");
    let first = u.get("firstChange").filter(|f| !f.is_null());
    if identical {
        html! {
            <p class="upgrade-verdict ok" data-testid="upgrade-identical">
                <strong>{format!("Identical under pi {from} and pi {to}.")}</strong>
                {" The same body, URL and headers, byte for byte: upgrading leaves the provider's cache as it is (the whole cached prefix is still reused)."}
            </p>
        }
    } else if let Some(f) = first {
        let byte = num(f, "byte");
        let block = f.get_str("block").unwrap_or("a part ctxlens cannot name");
        html! {
            <div class="upgrade-first-change" data-testid="upgrade-first-change" data-byte={byte.to_string()}>
                <p class="upgrade-verdict"><strong>{"The request changes. "}</strong>{"First changed byte: "}
                    <strong data-testid="upgrade-first-byte">{thousands(byte)}</strong>
                    {format!(" (character {} as JavaScript counts), in ", thousands(num(f, "utf16")))}
                    <strong data-testid="upgrade-first-block">{block}</strong>
                </p>
                if let Some(path) = f.get_str("path") {
                    <p class="small">{"JSON path "}<code class="mono" data-testid="upgrade-first-path">{path}</code></p>
                }
                <div class="two-col upgrade-values">
                    <div><h5>{format!("pi {from}")}</h5><pre class="mono small" data-testid="upgrade-first-from">{f.get_str("from").unwrap_or("(nothing)")}</pre></div>
                    <div><h5>{format!("pi {to}")}</h5><pre class="mono small" data-testid="upgrade-first-to">{f.get_str("to").unwrap_or("(nothing)")}</pre></div>
                </div>
                <p class="upgrade-cache" data-testid="upgrade-cache">
                    {format!("The first {} bytes stay the same: the cached prefix up to there is still reused on the first call after upgrading; everything after is written to the cache again.", thousands(byte))}
                </p>
            </div>
        }
    } else if not_built.is_empty() {
        html! { <p class="upgrade-verdict" data-testid="upgrade-same-body">{"The body is the same under both releases; the URL or headers differ (below)."}</p> }
    } else {
        Html::default()
    }
}

/// Each block's characters (and tokens, once counted) under both releases.
fn blocks_table(u: &Value) -> Html {
    let (from, to) = (s(u, "from"), s(u, "to"));
    let blocks: Vec<&Value> = arr(u, "blocks")
        .iter()
        .filter(|b| num(b, "fromChars") > 0.0 || num(b, "toChars") > 0.0)
        .collect();
    let with_tokens = blocks.iter().any(|b| opt_num(b, "fromTokens").is_some());
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
                    let uncounted = opt_num(b, "fromTokens") == Some(0.0) && opt_num(b, "toTokens") == Some(0.0);
                    let changed = num(b, "charsDelta") != 0.0 || opt_num(b, "tokensDelta").is_some_and(|d| d != 0.0);
                    let tok = |k: &str| match opt_num(b, k) {
                        Some(n) if !uncounted => thousands(n),
                        _ => "–".into(),
                    };
                    html! {
                        <tr class={classes!(changed.then_some("diff"))} data-block={s(b, "name").to_string()}>
                            <th>{s(b, "name")}</th>
                            <td class="num">{thousands(num(b, "fromChars"))}</td><td class="num">{thousands(num(b, "toChars"))}</td>
                            <td class="num">{delta(num(b, "charsDelta"))}</td>
                            if with_tokens {
                                <td class="num" title={uncounted.then_some("not counted as a block of its own")}>{tok("fromTokens")}</td>
                                <td class="num" title={uncounted.then_some("not counted as a block of its own")}>{tok("toTokens")}</td>
                                <td class="num">{opt_num(b, "tokensDelta").map(delta).unwrap_or_default()}</td>
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
fn rules_list(u: &Value, all_rules: bool, on_all: Callback<MouseEvent>) -> Html {
    let (from, to) = (s(u, "from"), s(u, "to"));
    let rules = arr(u, "rules");
    let applying = rules
        .iter()
        .filter(|r| r.get("appliesToThisProtocol").and_then(Value::as_bool) != Some(false))
        .count();
    let shown: Vec<&Value> = rules
        .iter()
        .filter(|r| {
            all_rules || r.get("appliesToThisProtocol").and_then(Value::as_bool) != Some(false)
        })
        .collect();
    let no_changelog = u.get("changelog").is_none_or(Value::is_null);
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
            if no_changelog {
                <p class="muted small" data-testid="upgrade-no-changelog">{format!("pi's release notes did not load: the CLI (ctxlens compare --pi {from} --pi-with {to}) shows the lines of pi's changelog tied to each rule.")}</p>
            }
            <ul class="upgrade-rules" data-testid="upgrade-rules" data-count={shown.len().to_string()}>
            { for shown.iter().map(|r| {
                let lines = arr(r, "changelog");
                html! {
                    <li data-rule={s(r, "rule").to_string()} data-applies={r.get("appliesToThisProtocol").and_then(Value::as_bool).unwrap_or(true).to_string()}>
                        <code class="mono">{s(r, "rule")}</code>{": "}
                        <span class="mono small">{s(r, "from")}</span>{format!(" under pi {from} → ")}<span class="mono small">{s(r, "to")}</span>{format!(" under pi {to}")}
                        if let Some(doc) = r.get_str("doc") {
                            <div class="rule-doc small">{doc}</div>
                        }
                        if !lines.is_empty() {
                            <ul class="small changelog">
                            { for lines.iter().map(|l| html! { <li><span class="badge">{format!("pi {}", s(l, "pi"))}</span>{" "}{s(l, "text")}</li> }) }
                            </ul>
                        }
                    </li>
                }
            }) }
            </ul>
        </>
    }
}

/// pi's release notes between the two releases (when they loaded).
fn release_notes(u: &Value) -> Html {
    let (from, to) = (s(u, "from"), s(u, "to"));
    let no_changelog = u.get("changelog").is_none_or(Value::is_null);
    html! {
        <>
            if !no_changelog {
                <details class="upgrade-changelog" data-testid="upgrade-changelog" data-releases={arr(u, "changelog").len().to_string()}>
                    <summary>{format!("pi's release notes between pi {from} and pi {to} ({} releases)", arr(u, "changelog").len())}</summary>
                    { for arr(u, "changelog").iter().map(|r| html! {
                        <section data-release={s(r, "pi").to_string()}>
                            <h5>{format!("pi {}", s(r, "pi"))}{r.get_str("date").map(|d| format!(" · {d}")).unwrap_or_default()}</h5>
                            { for arr(r, "sections").iter().map(|sec| html! {
                                <>
                                    <h6>{s(sec, "title")}</h6>
                                    <ul class="small changelog">
                                    { for arr(sec, "items").iter().map(|i| html! { <li>{i.as_str().unwrap_or("")}</li> }) }
                                    </ul>
                                </>
                            }) }
                        </section>
                    }) }
                </details>
            }
        </>
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

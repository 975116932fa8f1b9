//! The JSON of [`crate::analysis::whatif`] (its types: [`super::whatif_types`]).

use super::upgrade::{blocks, first_change, headers, url};
use super::whatif_types::*;
use super::wire::Wire;
use crate::analysis::whatif as w;
use crate::js::Value;

/// A number JSON can write (not NaN or infinite), else none.
fn finite(n: Option<f64>) -> Option<f64> {
    n.filter(|x| x.is_finite())
}

/// `y - x` when both are there.
fn minus(x: Option<f64>, y: Option<f64>) -> Option<f64> {
    Some(y? - x?)
}

fn side(s: &w::Side) -> WhatIfSide {
    WhatIfSide {
        chars: s.chars,
        images: s.images,
        tokens: s.tokens,
        tokens_exact: s.tokens_exact,
        tokens_by: s.tokens_by.clone(),
        context_window: finite(s.context_window),
        window_share: finite(s.window_share),
        prices_per_million: s.prices.as_ref().map(|p| PricesPerMillion {
            input: p.input,
            cache_read: p.cache_read,
            cache_write: p.cache_write,
        }),
        cost_per_call: CostPerCall {
            input: finite(s.cost(|p| p.input)),
            cache_read: finite(s.cost(|p| p.cache_read)),
            cache_write: finite(s.cost(|p| p.cache_write)),
        },
    }
}

fn delta(wi: &w::WhatIf) -> WhatIfDelta {
    let (a, b) = (&wi.before, &wi.after);
    let cost = |f: fn(&w::Prices) -> f64| minus(a.cost(f), b.cost(f));
    WhatIfDelta {
        chars: b.chars as f64 - a.chars as f64,
        tokens: minus(a.tokens.map(|t| t as f64), b.tokens.map(|t| t as f64)),
        window_share: minus(a.window_share, b.window_share),
        cost_per_call: CostPerCall {
            input: cost(|p| p.input),
            cache_read: cost(|p| p.cache_read),
            cache_write: cost(|p| p.cache_write),
        },
    }
}

fn cache(wi: &w::WhatIf, c: &w::Cache) -> WhatIfCache {
    WhatIfCache {
        first_changed_byte: wi.diff.first_change.as_ref().map(|f| f.byte),
        stable_prefix_bytes: c.stable_prefix_bytes,
        stable_share: c.stable_share,
        next_call_cached_tokens: c.next_call_cached_tokens,
        next_call_uncached_tokens: c.next_call_uncached_tokens,
        next_call_cost: finite(c.next_call_cost),
        warm_call_cost: finite(c.warm_call_cost),
        note: c.note.clone(),
    }
}

/// A change's take-home, with its words.
pub fn take_home(a: &w::Applied) -> TakeHomeText {
    TakeHomeText {
        take_home: a.take_home.clone(),
        text: a.text.clone(),
    }
}

/// The what-if as the report gives it (with the session's calls rebuilt, when they were).
pub fn report(wi: &w::WhatIf, session: Option<&w::SessionWhatIf>) -> WhatIf {
    WhatIf {
        changes: wi
            .applied
            .iter()
            .map(|a| WhatIfChange {
                change: a.change.spec(),
                did: a.did.clone(),
                take_home: take_home(a),
            })
            .collect(),
        identical: wi.diff.identical,
        first_change: wi.diff.first_change.as_ref().map(first_change),
        url: wi.diff.url.as_ref().map(url),
        headers: headers(&wi.diff.headers),
        blocks: blocks(&wi.diff.blocks),
        before: side(&wi.before),
        after: side(&wi.after),
        delta: delta(wi),
        cache: wi.cache.as_ref().map(|c| cache(wi, c)),
        session: session.map(session_report),
    }
}

/// The what-if comparison (camelCase): `{changes, identical, firstChange, url, headers, blocks,
/// before, after, delta, cache, session}`.
pub fn to_json(wi: &w::WhatIf, session: Option<&w::SessionWhatIf>) -> Value {
    report(wi, session).to_value()
}

/// The whole session rebuilt with the change: `{calls, callsWithUsage, callsRebuilt, before,
/// after, saved, notes}`.
pub fn session_report(s: &w::SessionWhatIf) -> WhatIfSession {
    let saved_tokens = match (s.before_tokens, s.after_tokens) {
        (Some(x), Some(y)) => Some(x as f64 - y as f64),
        _ => None,
    };
    WhatIfSession {
        calls: s.calls.iter().map(call).collect(),
        calls_with_usage: s.calls_with_usage,
        calls_rebuilt: s.calls.len(),
        before: WhatIfSessionSide {
            chars: s.before_chars,
            tokens: s.before_tokens,
            reported_tokens: Some(s.reported_tokens),
        },
        after: WhatIfSessionSide {
            chars: s.after_chars,
            tokens: s.after_tokens,
            reported_tokens: finite(s.reported_tokens_after),
        },
        saved: WhatIfSaved {
            chars: s.before_chars as f64 - s.after_chars as f64,
            tokens: saved_tokens,
            reported_tokens: finite(s.reported_tokens_after.map(|a| s.reported_tokens - a)),
            cost: finite(s.cost_saved),
        },
        notes: s.notes.clone(),
    }
}

fn call(c: &w::CallRow) -> WhatIfCall {
    WhatIfCall {
        call: c.index,
        entry_id: c.entry_id.clone(),
        line: c.line as usize,
        before_chars: c.before_chars,
        after_chars: c.after_chars,
        before_tokens: c.before_tokens,
        after_tokens: c.after_tokens,
        reported_tokens: finite(c.reported_tokens),
        reported_tokens_after: finite(c.reported_tokens_after),
        reported_cost: finite(c.reported_cost),
        note: c.note.clone(),
    }
}

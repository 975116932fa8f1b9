//! Small helpers for reading the report JSON.
#![allow(dead_code)]

use ctxlens::js::Value;

/// `v[key]` as an array (empty when absent).
pub fn arr<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// `v[key]` as a number (0 when absent).
pub fn num(v: &Value, key: &str) -> f64 {
    v.get(key).and_then(Value::as_f64).unwrap_or(0.0)
}

/// `v[key]` as a string ("" when absent).
pub fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get_str(key).unwrap_or("")
}

/// Follows a path of keys.
pub fn at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    let mut cur = v;
    for k in path {
        cur = cur.get(k)?;
    }
    Some(cur)
}

use yew::prelude::*;

/// A click handler selecting `key`.
pub fn select(cb: &Callback<Option<AttrValue>>, key: impl Into<String>) -> Callback<MouseEvent> {
    let cb = cb.clone();
    let key: AttrValue = AttrValue::from(key.into());
    Callback::from(move |_: MouseEvent| cb.emit(Some(key.clone())))
}

/// A short "not available" note.
pub fn not_available(what: &str) -> Html {
    html! { <p class="na" data-testid="not-available">{what}</p> }
}

/// In place of what the session's parts show while they are on their way (the worker sends a
/// scenario's first report without them: [`crate::report::Report::session_pending`]), or when
/// they did not come; `None` when the report has them (or has no session).
pub fn session_placeholder(r: &Report) -> Option<Html> {
    if r.session_pending {
        return Some(
            html! { <p class="na" data-testid="session-pending">{"Reading the session's entries and calls…"}</p> },
        );
    }
    r.unread.contains(&"session").then(|| {
        html! { <p class="na" data-testid="session-lost">{"The session's entries and calls did not reach the page: see the diagnostics. Another protocol's report brings them again."}</p> }
    })
}

/// A value as display text: strings bare, everything else as JSON.
pub fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        Value::Number(n) => ctxlens::js::number_to_string(*n),
        other => other.to_json(),
    }
}

/// The last path component of a file path.
pub fn base_name(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

/// A file path shortened for display: the last `n` components.
pub fn short_path(p: &str, n: usize) -> String {
    let parts: Vec<&str> = p.split('/').filter(|x| !x.is_empty()).collect();
    if parts.len() <= n {
        return p.to_string();
    }
    format!("…/{}", parts[parts.len() - n..].join("/"))
}

use std::cell::RefCell;
use std::rc::Rc;

use crate::report::Report;
use crate::shared::Shared;

thread_local! {
    static BODIES: RefCell<Vec<(Shared<crate::report::Report>, Shared<Value>)>> = const { RefCell::new(Vec::new()) };
    /// Reports whose body parsed is on its way from the worker.
    static PENDING: RefCell<Vec<Shared<crate::report::Report>>> = const { RefCell::new(Vec::new()) };
}

/// The parsed bodies kept: up to this many, and past the first, only while their texts add up
/// to less than [`PARSED_KEEP_BYTES`] (a protocol switch on a seed-sized session re-parses
/// nothing; a 40 MB one keeps one or two).
const PARSED_KEEP: usize = 12;
const PARSED_KEEP_BYTES: usize = 48 << 20;

fn body_len(report: &Shared<crate::report::Report>) -> usize {
    report.request.as_ref().map_or(0, |r| r.body.len())
}

fn keep(
    c: &mut Vec<(Shared<crate::report::Report>, Shared<Value>)>,
    report: Shared<crate::report::Report>,
    parsed: Shared<Value>,
) {
    c.retain(|(r, _)| *r != report);
    c.push((report, parsed));
    while c.len() > PARSED_KEEP
        || (c.len() > 1 && c.iter().map(|(r, _)| body_len(r)).sum::<usize>() > PARSED_KEEP_BYTES)
    {
        c.remove(0);
    }
}

/// Gives the views a body parsed elsewhere (the page joins it from the worker's parts in small
/// tasks), so [`parsed_body`] does not parse it again in one long task.
pub fn prime_parsed_body(report: &Shared<crate::report::Report>, parsed: Shared<Value>) {
    PENDING.with(|p| p.borrow_mut().retain(|r| r != report));
    BODIES.with(|c| keep(&mut c.borrow_mut(), report.clone(), parsed));
}

/// Says that `report`'s body parsed is on its way ([`prime_parsed_body`] will give it): until
/// then [`parsed_body`] answers `None` rather than parse it on the page in one long task.
pub fn expect_parsed_body(report: &Shared<crate::report::Report>) {
    PENDING.with(|p| {
        let mut p = p.borrow_mut();
        p.retain(|r| r != report);
        p.push(report.clone());
        // The last few reports' (a new scenario's first report clears nothing: stale entries
        // only answer `None` for reports no longer on screen).
        if p.len() > PARSED_KEEP {
            p.remove(0);
        }
    });
}

/// `report`'s body parsed is not coming after all: [`parsed_body`] parses it itself.
pub fn forget_parsed_body(report: &Shared<crate::report::Report>) {
    PENDING.with(|p| p.borrow_mut().retain(|r| r != report));
}

/// `old` is now `new` (the same report with its session parts): what is kept for `old`, its body
/// parsed or the wait for it, is `new`'s.
pub fn rekey_parsed_body(old: &Shared<Report>, new: &Shared<Report>) {
    PENDING.with(|p| {
        for r in p.borrow_mut().iter_mut().filter(|r| *r == old) {
            *r = new.clone();
        }
    });
    BODIES.with(|c| {
        for (r, _) in c.borrow_mut().iter_mut().filter(|(r, _)| r == old) {
            *r = new.clone();
        }
    });
}

/// Whether `report`'s body parsed is on its way ([`expect_parsed_body`]).
pub fn body_pending(report: &Shared<crate::report::Report>) -> bool {
    PENDING.with(|p| p.borrow().iter().any(|r| r == report))
}

/// `report.request.body` parsed (Null when absent or unparsable), cached per report so the
/// views share one parse; `None` while it is on its way from the worker.
pub fn parsed_body(report: &Shared<crate::report::Report>) -> Option<Shared<Value>> {
    BODIES.with(|c| {
        if let Some((_, v)) = c.borrow().iter().find(|(r, _)| r == report) {
            return Some(v.clone());
        }
        if body_pending(report) {
            return None;
        }
        let body = report.request.as_ref().map_or("", |r| r.body.as_str());
        let v = Shared(Rc::new(ctxlens::js::parse(body).unwrap_or(Value::Null)));
        keep(&mut c.borrow_mut(), report.clone(), v.clone());
        Some(v)
    })
}

/// What a pi source location means, for its tooltip: the package folder its prefix stands for
/// (the report's `sourcePrefixes`: `AI/` is `@earendil-works/pi-ai/dist/`) and the release.
pub fn pi_source_title(report: &Report, src: &str) -> String {
    let prefix = src.split_once('/').map_or("", |(p, _)| p);
    let dir = report.source_prefixes.get(prefix);
    let release = report
        .pi
        .as_ref()
        .map_or_else(|| "pi".into(), |p| format!("pi {}", p.version.as_str()));
    match dir {
        Some(d) => format!(
            "where this lives in {release}: {d}/{} (file:line in pi's npm package)",
            src.split_once('/').map_or("", |(_, r)| r)
        ),
        None => format!("where this lives in {release} (file:line)"),
    }
}

/// A pi source location as pi's own file path: `CA/core/sdk.js:66` →
/// `pi-coding-agent/dist/core/sdk.js:66` (the report's `sourcePrefixes`: `CA/` is
/// `@earendil-works/pi-coding-agent/dist/`, shown without the npm scope). Locations of other
/// packages (the SDKs') are shown as they are.
pub fn pi_source_path(report: &Report, src: &str) -> String {
    let Some((prefix, rest)) = src.split_once('/') else {
        return src.to_string();
    };
    match report.source_prefixes.get(prefix) {
        Some(dir) => {
            let dir = dir.strip_prefix("@earendil-works/").unwrap_or(dir);
            format!("{dir}/{rest}")
        }
        None => src.to_string(),
    }
}

/// A text of the core's for the page: worded for it ([`crate::words::for_the_page`]: no CLI
/// flag), with pi source locations in it (`… (AI/api/transform-messages.js:134)`) each
/// written as pi's file path ([`pi_source_path`]).
pub fn with_pi_paths(report: &Report, text: &str) -> String {
    let text = crate::words::for_the_page(text);
    let prefixes = &report.source_prefixes.0;
    if prefixes.is_empty() {
        return text;
    }
    let text = text.as_str();
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    'scan: while !rest.is_empty() {
        for (k, _) in prefixes {
            let key = format!("{k}/");
            let at_start = out.is_empty() || out.ends_with([' ', '(', '@', '\n', ',', ';']);
            if at_start && rest.starts_with(&key) {
                let end = rest.find([' ', ')', ',', ';', '\n']).unwrap_or(rest.len());
                out.push_str(&pi_source_path(report, &rest[..end]));
                rest = &rest[end..];
                continue 'scan;
            }
        }
        let c = rest.chars().next().unwrap_or(' ');
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The release's chars-per-token estimate (`report.estimate.charsPerToken`), when the report has
/// one.
pub fn chars_per_token(report: &Report) -> Option<f64> {
    report.estimate.chars_per_token.filter(|c| *c > 0.0)
}

/// The pi release the report rebuilt (`"1.6.0"`), or `""`.
pub fn pi_version(report: &Report) -> &str {
    report.pi.as_ref().map_or("", |p| p.version.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> Report {
        Report::new(ctxlens::js::parse(r#"{"sourcePrefixes":{"CA":"@earendil-works/pi-coding-agent/dist","AI":"@earendil-works/pi-ai/dist","CORE":"@earendil-works/pi-agent-core/dist"}}"#).unwrap())
    }

    #[test]
    fn pi_sources_as_pi_s_file_paths() {
        let r = report();
        assert_eq!(
            pi_source_path(&r, "CA/core/sdk.js:66"),
            "pi-coding-agent/dist/core/sdk.js:66"
        );
        assert_eq!(
            pi_source_path(&r, "@anthropic-ai/sdk/client.js:1"),
            "@anthropic-ai/sdk/client.js:1"
        );
        assert_eq!(
            with_pi_paths(&r, "2 × synthetic error result (AI/api/transform-messages.js:134); CORE/agent-loop.js:176"),
            "2 × synthetic error result (pi-ai/dist/api/transform-messages.js:134); pi-agent-core/dist/agent-loop.js:176"
        );
        // Only at a word's start: a path that merely contains `CA/` is left alone.
        assert_eq!(
            with_pi_paths(&r, "/tmp/CA/x and ABCA/y"),
            "/tmp/CA/x and ABCA/y"
        );
        let none = Report::new(Value::Null);
        assert_eq!(with_pi_paths(&none, "CA/x.js:1"), "CA/x.js:1");
    }
}

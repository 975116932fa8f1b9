//! The SDKs pi's adapters send through, one module each: what they add to a request (headers,
//! URLs, serialization) as they do it, shared by every adapter that uses them.

pub mod anthropic;
pub mod aws;
pub mod openai;

/// One header source for [`build_headers`]: `(name, value)`, `None` an explicit `null`.
pub type HeaderSource = Vec<(String, Option<String>)>;

/// `buildHeaders(sources)` (the Stainless SDKs' `internal/headers.js`, the same in `openai` and
/// `@anthropic-ai/sdk`) as the wire order comes out: each name a later source (or a later key of
/// the same object) sets is removed and appended last; `null` removes it. Names are held
/// lower-case, as a fetch `Headers` holds them.
pub fn build_headers(sources: Vec<HeaderSource>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for source in sources {
        for (name, value) in source {
            set_header(&mut out, &name, value);
        }
    }
    out
}

/// One step of [`build_headers`]: `name` (any case) removed, then appended with `value` unless
/// it is `null`.
pub fn set_header(out: &mut Vec<(String, String)>, name: &str, value: Option<String>) {
    let lower = name.to_ascii_lowercase();
    out.retain(|(k, _)| *k != lower);
    if let Some(v) = value {
        out.push((lower, v));
    }
}

//! Redaction of a case folder before it leaves the machine (`ctxlens export --redact`): the home
//! path, the user name, the machine's host names and every key-like string are replaced in every
//! file and every path, the same original always by the same stand-in, so the case still lays
//! out and assembles. What was replaced is reported by kind and count, never by value.
//!
//! What counts as a key: the string values of `auth.json`; `apiKey` and credential header
//! values (`Authorization`, `x-api-key`, …) in models.json that are not an environment
//! variable's name, a `$VAR` template or a `!command`; environment
//! variables whose name says key, token, secret, password or credential; and, in any file,
//! strings shaped like a provider's key (`sk-…`, `AKIA…`, `ghp_…`, `github_pat_…`, `AIza…`,
//! `xox?-…`, `glpat-…`, `hf_…`), JSON Web Tokens and `Bearer` tokens. A stand-in is as long as
//! its original in UTF-16 units (pi's token estimate and max-tokens clamp measure the context)
//! and keeps the prefix pi looks at (`sk-ant-oat` makes pi use OAuth; a ChatGPT token must stay
//! a JWT with an account id), so the redacted case builds the original's request with the same
//! replacements (`core/tests/export.rs` checks every corpus case).

use std::collections::BTreeMap;

use crate::case::CaseFiles;
use crate::js::{self, Value};

/// Who the files belong to: what the host knows about the machine (the CLI reads `$HOME`,
/// `$USER` and the host name; core reads nothing).
#[derive(Clone, Debug, Default)]
pub struct Identity {
    /// The home directory (`/home/alice`).
    pub home: Option<String>,
    /// The user name (`alice`).
    pub user: Option<String>,
    /// The machine's host names (`alice-laptop`, `alice-laptop.corp.example.com`).
    pub hosts: Vec<String>,
}

/// One kind of replacement: how many occurrences and how many distinct originals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replaced {
    pub kind: &'static str,
    pub occurrences: usize,
    pub distinct: usize,
}

/// What a redaction did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub replaced: Vec<Replaced>,
    /// What was not replaced, and why (a user name that is a common word).
    pub notes: Vec<String>,
}

impl Report {
    /// `home path ×12, API key ×3 (1 distinct), …`, or `nothing`.
    pub fn summary(&self) -> String {
        if self.replaced.is_empty() {
            return "nothing".into();
        }
        self.replaced
            .iter()
            .map(|r| {
                if r.distinct > 1 || r.distinct != r.occurrences {
                    format!("{} ×{} ({} distinct)", r.kind, r.occurrences, r.distinct)
                } else {
                    format!("{} ×{}", r.kind, r.occurrences)
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The home a redacted case has (cut or padded with `0` to the original's length).
pub const HOME: &str = "/home/user";
/// The user name and host name a redacted case has.
pub const USER: &str = "user";
pub const HOST: &str = "host";

/// Words a user or host name is too common to replace as a word (it would change the text).
const COMMON: [&str; 12] = [
    "user",
    "root",
    "home",
    "admin",
    "agent",
    "node",
    "test",
    "dev",
    "pi",
    "ubuntu",
    "host",
    "localhost",
];

/// Key-shaped strings: a prefix, then at least `min` characters of the key's alphabet.
struct Shape {
    kind: &'static str,
    prefix: &'static str,
    min: usize,
    /// The stand-in keeps this much of the original (`sk-ant-oat01-`).
    keep: fn(&str) -> usize,
}

fn keep_prefix(s: &str) -> usize {
    // Up to the last `-` or `_` within the first 16 characters: `sk-ant-oat01-`, `sk-proj-`.
    s.char_indices()
        .take(16)
        .filter(|(_, c)| *c == '-' || *c == '_')
        .map(|(i, _)| i + 1)
        .last()
        .unwrap_or(0)
}
fn keep4(_: &str) -> usize {
    4
}

const SHAPES: [Shape; 10] = [
    Shape {
        kind: "API key (sk-…)",
        prefix: "sk-",
        min: 16,
        keep: keep_prefix,
    },
    Shape {
        kind: "AWS access key",
        prefix: "AKIA",
        min: 16,
        keep: keep4,
    },
    Shape {
        kind: "AWS access key",
        prefix: "ASIA",
        min: 16,
        keep: keep4,
    },
    Shape {
        kind: "GitHub token",
        prefix: "ghp_",
        min: 30,
        keep: keep_prefix,
    },
    Shape {
        kind: "GitHub token",
        prefix: "gho_",
        min: 30,
        keep: keep_prefix,
    },
    Shape {
        kind: "GitHub token",
        prefix: "github_pat_",
        min: 30,
        keep: keep_prefix,
    },
    Shape {
        kind: "Google API key",
        prefix: "AIza",
        min: 30,
        keep: keep4,
    },
    Shape {
        kind: "Slack token",
        prefix: "xox",
        min: 20,
        keep: |_| 5,
    },
    Shape {
        kind: "GitLab token",
        prefix: "glpat-",
        min: 20,
        keep: keep_prefix,
    },
    Shape {
        kind: "Hugging Face token",
        prefix: "hf_",
        min: 30,
        keep: keep_prefix,
    },
];

fn key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

fn word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn is_env_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

fn secret_env_name(name: &str) -> bool {
    let n = name.to_ascii_uppercase();
    ["KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"]
        .iter()
        .any(|w| n.contains(w))
}

/// The key-shaped strings of `text`, with their kind.
fn scan(text: &str, found: &mut Vec<(String, &'static str)>) {
    let b = text.as_bytes();
    let boundary = |i: usize| i == 0 || !key_char(b[i - 1] as char);
    for shape in &SHAPES {
        let mut from = 0;
        while let Some(i) = text[from..].find(shape.prefix) {
            let at = from + i;
            from = at + shape.prefix.len();
            if !boundary(at) {
                continue;
            }
            let end = text[at..]
                .find(|c: char| !key_char(c))
                .map_or(text.len(), |e| at + e);
            if end - at >= shape.prefix.len() + shape.min {
                found.push((text[at..end].to_string(), shape.kind));
                from = end;
            }
        }
    }
    // JSON Web Tokens: three base64url parts, the first two JSON objects (`eyJ`).
    let mut from = 0;
    while let Some(i) = text[from..].find("eyJ") {
        let at = from + i;
        from = at + 3;
        if !boundary(at) {
            continue;
        }
        let end = text[at..]
            .find(|c: char| !(key_char(c) || c == '.'))
            .map_or(text.len(), |e| at + e);
        let token = text[at..end].trim_end_matches('.');
        let parts: Vec<&str> = token.split('.').collect();
        if parts.len() == 3 && parts[1].starts_with("eyJ") && parts.iter().all(|p| p.len() >= 2) {
            found.push((token.to_string(), "JSON Web Token"));
            from = at + token.len();
        }
    }
    // Bearer tokens.
    let mut from = 0;
    while let Some(i) = text[from..].find("Bearer ") {
        let at = from + i + "Bearer ".len();
        from = at;
        let end = text[at..]
            .find(|c: char| !(key_char(c) || c == '.' || c == '~' || c == '+' || c == '/'))
            .map_or(text.len(), |e| at + e);
        let token = text[at..end].trim_end_matches('=');
        if token.len() >= 16 && token.chars().any(|c| c.is_ascii_digit()) {
            found.push((token.to_string(), "bearer token"));
        }
    }
}

/// The string leaves of a JSON value, except `type` members (`"api_key"`, `"oauth"`).
fn string_leaves(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.to_string()),
        Value::Array(a) => a.iter().for_each(|x| string_leaves(x, out)),
        Value::Object(o) => {
            for (k, x) in o.iter() {
                if k.as_str() != "type" {
                    string_leaves(x, out);
                }
            }
        }
        _ => {}
    }
}

/// models.json's literal keys: `apiKey` and header values that are not an env var's name or a
/// `!command`.
fn models_keys(v: &Value, out: &mut Vec<String>) {
    // A literal value: not an environment variable's name, a `$VAR` template or a `!command`
    // (pi resolves those; the value they give is not in the file).
    let literal =
        |s: &str| !is_env_name(s) && !s.starts_with('!') && !s.contains('$') && s.len() >= 8;
    let Some(providers) = v.get("providers").and_then(Value::as_object) else {
        return;
    };
    // Header values of headers named like a credential (`Authorization`, `x-api-key`, …).
    let sensitive = |name: &str| {
        let n = name.to_ascii_lowercase();
        [
            "auth",
            "key",
            "token",
            "secret",
            "cookie",
            "password",
            "signature",
        ]
        .iter()
        .any(|w| n.contains(w))
    };
    let headers = |h: Option<&Value>, out: &mut Vec<String>| {
        if let Some(h) = h.and_then(Value::as_object) {
            for (name, x) in h.iter() {
                let Some(s) = x.as_str() else { continue };
                let value = s
                    .strip_prefix("Bearer ")
                    .or_else(|| s.strip_prefix("Basic "))
                    .unwrap_or(s);
                if (sensitive(name) || value.len() != s.len()) && literal(value) {
                    out.push(value.to_string());
                }
            }
        }
    };
    let each = |o: &Value, out: &mut Vec<String>| {
        if let Some(k) = o.get_str("apiKey").filter(|s| literal(s)) {
            out.push(k.to_string());
        }
        headers(o.get("headers"), out);
    };
    for (_, p) in providers.iter() {
        each(p, out);
        for m in p
            .get("models")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            each(m, out);
        }
        if let Some(o) = p.get("modelOverrides").and_then(Value::as_object) {
            for (_, m) in o.iter() {
                each(m, out);
            }
        }
    }
}

/// `stand_in` made as long as `original` in UTF-16 units (JS `.length`), so that every length
/// pi measures (its token estimate, the max-tokens clamp) stays what it was: padded with `pad`,
/// or cut (keeping its last `keep_tail` characters, which make it unique) when longer.
/// The home's stand-in: its last component (the user's folder: `alice` in `/home/alice`) made
/// `user`, cut or padded with `0` to its length (`/home/user0`); the folders above it are kept,
/// so a path that leaves the home with `..` (a settings pattern `../../extra`) still reaches
/// the same place.
fn home_stand_in(home: &str) -> String {
    match home.rsplit_once('/') {
        Some((above, last)) if !last.is_empty() => {
            format!("{above}/{}", same_length("user", last, '0', 0))
        }
        _ => same_length(HOME, home, '0', 0),
    }
}

fn same_length(stand_in: &str, original: &str, pad: char, keep_tail: usize) -> String {
    let want = original.encode_utf16().count();
    let have = stand_in.chars().count();
    if have == want {
        return stand_in.to_string();
    }
    if have < want {
        let mut s = stand_in.to_string();
        s.extend(std::iter::repeat_n(pad, want - have));
        return s;
    }
    let tail: String = stand_in.chars().skip(have - keep_tail.min(have)).collect();
    let head_len = want.saturating_sub(cols(&tail));
    let head: String = stand_in.chars().take(head_len).collect();
    let s = format!("{head}{tail}");
    s.chars().take(want.max(1)).collect()
}

/// A key's stand-in, as long as the key: its `prefix` kept, then `redacted` cut or padded with
/// `x`, then `-N` (which keeps stand-ins of different keys apart).
fn key_stand_in(prefix: &str, original: &str, n: usize) -> String {
    let want = original.encode_utf16().count();
    let tag = format!("-{n}");
    let room = want.saturating_sub(cols(prefix) + tag.len());
    if cols(prefix) + tag.len() > want {
        // Shorter than its kept prefix and the number: the number wins.
        let head: String = prefix
            .chars()
            .take(want.saturating_sub(tag.len()))
            .collect();
        return format!("{head}{tag}");
    }
    let middle: String = "redacted"
        .chars()
        .chain(std::iter::repeat('x'))
        .take(room)
        .collect();
    format!("{prefix}{middle}{tag}")
}

fn cols(s: &str) -> usize {
    s.chars().count()
}

/// A stand-in JSON Web Token: a header, a payload with a ChatGPT account id (pi reads it for
/// Codex), no signature.
fn jwt_stand_in(n: usize) -> String {
    let b64url = |s: &str| {
        crate::protocols::base64::encode(s.as_bytes())
            .trim_end_matches('=')
            .replace('+', "-")
            .replace('/', "_")
    };
    format!(
        "{}.{}.redacted{n}",
        b64url(r#"{"alg":"none","typ":"JWT"}"#),
        b64url(&format!(
            r#"{{"sub":"redacted-{n}","https://api.openai.com/auth":{{"chatgpt_account_id":"redacted-{n}"}}}}"#
        ))
    )
}

/// The stand-in numbered `n` of a key or token.
fn key_or_token_stand_in(orig: &str, kind: &str, n: usize) -> String {
    if kind == "JSON Web Token" || (orig.starts_with("eyJ") && orig.matches('.').count() == 2) {
        // The signature pads it to the original's length.
        let t = jwt_stand_in(n);
        if cols(&t) < cols(orig) {
            same_length(&t, orig, 'x', 0)
        } else {
            t
        }
    } else {
        let keep = SHAPES
            .iter()
            .find(|s| orig.starts_with(s.prefix))
            .map_or(0, |s| (s.keep)(orig).min(orig.len()));
        key_stand_in(&orig[..keep], orig, n)
    }
}

/// Redacts every file (contents and paths) of a case folder.
pub fn redact(files: &CaseFiles, who: &Identity) -> (CaseFiles, Report) {
    let mut report = Report::default();
    let secrets = find_secrets(files);
    let plan = plan_stand_ins(files, secrets);
    let (home, words) = plan_words(who, &mut report);
    let mut r = Redactor {
        plan,
        home,
        words,
        counts: BTreeMap::new(),
    };
    let mut out = CaseFiles::new();
    for (path, bytes) in files {
        let new_path = r.apply(path);
        let new_bytes = match std::str::from_utf8(bytes) {
            Ok(t) => r.apply(t).into_bytes(),
            // Not text (an image): left as it is.
            Err(_) => bytes.clone(),
        };
        out.insert(new_path, new_bytes);
    }
    report.replaced = replaced(r.counts);
    (out, report)
}

/// The secrets of every file and path: original → kind, the longest first, each once.
fn find_secrets(files: &CaseFiles) -> Vec<(String, &'static str)> {
    // original → (stand-in, kind), every secret first.
    let mut secrets: Vec<(String, &'static str)> = Vec::new();
    for (path, bytes) in files {
        let text = String::from_utf8_lossy(bytes);
        let parsed = || js::parse(&text).ok();
        if path.ends_with("auth.json") {
            let mut leaves = Vec::new();
            if let Some(v) = parsed() {
                string_leaves(&v, &mut leaves);
            }
            secrets.extend(
                leaves
                    .into_iter()
                    .filter(|s| s.len() >= 8)
                    .map(|s| (s, "API key (auth.json)")),
            );
        } else if path.ends_with("models.json") {
            let mut keys = Vec::new();
            if let Some(v) = parsed() {
                models_keys(&v, &mut keys);
            }
            secrets.extend(keys.into_iter().map(|s| (s, "API key (models.json)")));
        } else if path == "case.json" {
            if let Some(env) = parsed()
                .as_ref()
                .and_then(|v| v.get("env"))
                .and_then(Value::as_object)
            {
                for (k, v) in env.iter() {
                    if let Some(s) = v.as_str().filter(|s| s.len() >= 4 && secret_env_name(k)) {
                        secrets.push((s.to_string(), "environment variable"));
                    }
                }
            }
        }
        scan(&text, &mut secrets);
        scan(path, &mut secrets);
    }
    // The longest first, so a key inside a longer token is replaced as the token.
    secrets.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.0.cmp(&b.0)));
    secrets.dedup_by(|a, b| a.0 == b.0);
    secrets
}

/// Each secret's stand-in: (original, stand-in, kind), in the secrets' order.
fn plan_stand_ins(files: &CaseFiles, secrets: Vec<(String, &'static str)>) -> Vec<Swap> {
    // A stand-in is new: no file or path holds it and no other key has it, so two originals
    // never become one text (two paths one file), and redacting again is stable.
    let texts: Vec<std::borrow::Cow<str>> = files
        .iter()
        .flat_map(|(p, b)| [p.as_str().into(), String::from_utf8_lossy(b)])
        .collect();
    let mut taken = std::collections::BTreeSet::new();
    let mut plan: Vec<(String, String, &'static str)> = Vec::new();
    let mut n = 0;
    for (orig, kind) in secrets {
        let stand_in = loop {
            n += 1;
            let s = key_or_token_stand_in(&orig, kind, n);
            if !taken.contains(&s) && !texts.iter().any(|t| t.contains(s.as_str())) {
                break s;
            }
        };
        taken.insert(stand_in.clone());
        plan.push((orig, stand_in, kind));
    }
    plan
}

/// Who and where: the home path, and the host and user names not too common to replace.
fn plan_words(who: &Identity, report: &mut Report) -> (Option<String>, Vec<Swap>) {
    // Then who and where: the home path, the host names, the user name (whole words).
    let mut words: Vec<(String, String, &'static str)> = Vec::new();
    // The home path: where it ends a path component (not `/home/al` in `/home/alice`).
    let home = who
        .home
        .as_deref()
        .map(|h| h.trim_end_matches('/'))
        .filter(|h| !h.is_empty() && *h != HOME && *h != "/")
        .map(String::from);
    let mut hosts = who.hosts.clone();
    hosts.sort_by_key(|h| std::cmp::Reverse(h.len()));
    for h in hosts {
        if h.len() < 3 || COMMON.contains(&h.to_ascii_lowercase().as_str()) {
            if !h.is_empty() {
                report.notes.push(format!(
                    "the host name {h:?} is a common word: not replaced"
                ));
            }
            continue;
        }
        let to = same_length(HOST, &h, '0', 0);
        words.push((h, to, "host name"));
    }
    if let Some(user) = who.user.as_deref().filter(|u| !u.is_empty()) {
        if user.len() < 3 || COMMON.contains(&user.to_ascii_lowercase().as_str()) {
            if user != USER {
                report.notes.push(format!(
                    "the user name {user:?} is a common word: not replaced as a word"
                ));
            }
        } else {
            words.push((
                user.to_string(),
                same_length(USER, user, '0', 0),
                "user name",
            ));
        }
    }
    (home, words)
}

/// (original, stand-in, kind): a text [`redact`] replaces.
type Swap = (String, String, &'static str);

/// What [`redact`] replaces, and how often it has replaced each kind (and which originals).
struct Redactor {
    /// (original, stand-in, kind) of every key and token, the longest first.
    plan: Vec<Swap>,
    home: Option<String>,
    /// (original, stand-in, kind) of the host and user names.
    words: Vec<Swap>,
    counts: BTreeMap<&'static str, (usize, std::collections::BTreeSet<String>)>,
}

impl Redactor {
    /// `s` with its keys and tokens, then the home path, then the names replaced.
    fn apply(&mut self, s: &str) -> String {
        let Redactor {
            plan,
            home,
            words,
            counts,
        } = self;
        let mut out = s.to_string();
        // Every key at once: a stand-in is never read again as another key.
        let mut at: Vec<(usize, usize)> = Vec::new();
        for (i, (orig, _, _)) in plan.iter().enumerate() {
            at.extend(out.match_indices(orig.as_str()).map(|(p, _)| (p, i)));
        }
        if !at.is_empty() {
            // The longest first where two start together (the plan is longest first).
            at.sort_unstable();
            let mut joined = String::with_capacity(out.len());
            let mut from = 0;
            for (p, i) in at {
                if p < from {
                    continue;
                }
                let (orig, to, kind) = &plan[i];
                joined.push_str(&out[from..p]);
                joined.push_str(to);
                from = p + orig.len();
                let e = counts.entry(kind).or_default();
                e.0 += 1;
                e.1.insert(orig.clone());
            }
            joined.push_str(&out[from..]);
            out = joined;
        }
        if let Some(home) = home {
            let (replaced, n) = replace_bounded(&out, home, &home_stand_in(home), false);
            if n > 0 {
                out = replaced;
                let e = counts.entry("home path").or_default();
                e.0 += n;
                e.1.insert(home.clone());
            }
        }
        for (orig, to, kind) in words.iter() {
            let (replaced, n) = replace_bounded(&out, orig, to, true);
            if n > 0 {
                out = replaced;
                let e = counts.entry(kind).or_default();
                e.0 += n;
                e.1.insert(orig.clone());
            }
        }
        out
    }
}

/// The report's counts of what was replaced, in the order a reader cares about.
fn replaced(
    counts: BTreeMap<&'static str, (usize, std::collections::BTreeSet<String>)>,
) -> Vec<Replaced> {
    // In the order a reader cares about.
    let order = |k: &str| match k {
        "home path" => 0,
        "user name" => 1,
        "host name" => 2,
        _ => 3,
    };
    let mut replaced: Vec<Replaced> = counts
        .into_iter()
        .map(|(kind, (occurrences, set))| Replaced {
            kind,
            occurrences,
            distinct: set.len(),
        })
        .collect();
    replaced.sort_by_key(|r| (order(r.kind), r.kind));
    replaced
}

/// `s` with every `word` that no word character follows (and, with `before`, none precedes)
/// replaced by `to`.
fn replace_bounded(s: &str, word: &str, to: &str, before_too: bool) -> (String, usize) {
    let mut out = String::with_capacity(s.len());
    let mut n = 0;
    let mut from = 0;
    while let Some(i) = s[from..].find(word) {
        let at = from + i;
        let end = at + word.len();
        let before = s[..at].chars().next_back();
        let after = s[end..].chars().next();
        out.push_str(&s[from..at]);
        // A path (the home) also continues with `-` or `.` (`/home/al-x` is another folder).
        let after_ok = after
            .is_none_or(|c| !(word_char(c) || (word.starts_with('/') && (c == '-' || c == '.'))));
        if (!before_too || before.is_none_or(|c| !word_char(c))) && after_ok {
            out.push_str(to);
            n += 1;
        } else {
            out.push_str(word);
        }
        from = end;
    }
    out.push_str(&s[from..]);
    (out, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[(&str, &str)]) -> CaseFiles {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.as_bytes().to_vec()))
            .collect()
    }

    #[test]
    fn keys_paths_and_names_are_replaced_consistently() {
        let key = "sk-ant-oat01-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
        let aws = "AKIAIOSFODNN7EXAMPLE";
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
        let f = files(&[
            (
                "agent/auth.json",
                &format!(r#"{{"anthropic":{{"type":"api_key","key":"{key}"}}}}"#),
            ),
            (
                "agent/models.json",
                r#"{"providers":{"p":{"apiKey":"P_KEY","headers":{"x-api-key":"literal-secret-value","x-team":"not-a-secret-value"}}}}"#,
            ),
            (
                "case.json",
                &format!(
                    r#"{{"env":{{"AWS_ACCESS_KEY_ID":"{aws}","MY_TOKEN":"tok-1234","REGION":"eu"}}}}"#
                ),
            ),
            (
                "fs/home/alice/proj/AGENTS.md",
                &format!(
                    "alice's notes on alice-laptop; {key}; Authorization: Bearer {jwt}; malice"
                ),
            ),
            (
                "session.jsonl",
                &format!(
                    r#"{{"cwd":"/home/alice/proj","x":"{aws} literal-secret-value tok-1234"}}"#
                ),
            ),
        ]);
        let who = Identity {
            home: Some("/home/alice".into()),
            user: Some("alice".into()),
            hosts: vec!["alice-laptop".into()],
        };
        let (out, report) = redact(&f, &who);
        let all: String = out
            .iter()
            .map(|(k, v)| format!("{k}\n{}\n", String::from_utf8_lossy(v)))
            .collect();
        for secret in [
            key,
            aws,
            jwt,
            "literal-secret-value",
            "tok-1234",
            "/home/alice",
            "alice-laptop",
        ] {
            assert!(!all.contains(secret), "{secret} is still in:\n{all}");
        }
        assert!(!all.contains("alice's"), "{all}");
        assert!(
            all.contains("malice"),
            "a word that contains the name is kept: {all}"
        );
        assert!(
            out.contains_key("fs/home/user0/proj/AGENTS.md"),
            "{:?}",
            out.keys()
        );
        assert!(
            all.contains("sk-ant-oat01-redacted"),
            "the OAuth prefix stays: {all}"
        );
        assert!(
            all.contains("P_KEY") && all.contains("\"REGION\":\"eu\""),
            "{all}"
        );
        // The same key has the same stand-in everywhere.
        let stand_in = all
            .split(|c: char| !key_char(c))
            .find(|w| w.starts_with("sk-ant-oat01-redacted"))
            .unwrap();
        assert_eq!(all.matches(stand_in).count(), 2, "{all}");
        let s = report.summary();
        assert!(
            s.contains("home path ×2") && s.contains("user name ×1") && s.contains("host name ×1"),
            "{s}"
        );
        assert!(
            !s.contains("sk-") && !s.contains("alice"),
            "never the secret: {s}"
        );
        // The redacted models.json and auth.json are still JSON.
        for p in ["agent/auth.json", "agent/models.json", "case.json"] {
            assert!(js::parse(&String::from_utf8_lossy(&out[p])).is_ok(), "{p}");
        }
    }

    #[test]
    fn the_home_path_is_replaced_where_it_ends_a_component() {
        let f = files(&[("fs/home/al/a.md", "/home/al/x /home/alice/y /home/al")]);
        let who = Identity {
            home: Some("/home/al".into()),
            ..Identity::default()
        };
        let (out, _) = redact(&f, &who);
        assert_eq!(
            String::from_utf8_lossy(&out["fs/home/us/a.md"]),
            "/home/us/x /home/alice/y /home/us"
        );
    }

    #[test]
    fn common_user_names_are_not_replaced_as_words() {
        let f = files(&[("fs/root/a.md", "the root of the pi agent")]);
        let who = Identity {
            home: Some("/root".into()),
            user: Some("root".into()),
            hosts: vec![],
        };
        let (out, report) = redact(&f, &who);
        assert_eq!(
            String::from_utf8_lossy(&out["fs/user/a.md"]),
            "the root of the pi agent"
        );
        assert_eq!(report.notes.len(), 1, "{:?}", report.notes);
    }

    #[test]
    fn a_jwt_stand_in_is_a_jwt_with_an_account_id() {
        let t = jwt_stand_in(3);
        let payload = t.split('.').nth(1).unwrap();
        assert!(payload.starts_with("eyJ"));
        let mut found = Vec::new();
        scan(&t, &mut found);
        assert_eq!(found.len(), 1, "{found:?}");
    }

    /// Found by fuzzing (`redact`): two keys a character apart in two paths. Their stand-ins,
    /// read as keys again, were replaced one after the other, so the first one's stand-in
    /// became the second's, and two files became one.
    #[test]
    fn redacting_again_keeps_every_file_apart() {
        let a = format!("sk-{}", "_".repeat(17));
        let b = format!("sk-{}e", "_".repeat(16));
        let given = files(&[
            (&format!("x/{a}/SKILL.md"), "one"),
            (&format!("x/{b}/SKILL.md"), "two"),
            ("notes.md", &format!("{a} {b}")),
        ]);
        let who = Identity::default();
        let (once, _) = redact(&given, &who);
        let (twice, _) = redact(&once, &who);
        let (thrice, _) = redact(&twice, &who);
        for out in [&once, &twice, &thrice] {
            assert_eq!(out.len(), 3, "{:?}", out.keys().collect::<Vec<_>>());
            assert!(!out.keys().any(|p| p.contains(&a) || p.contains(&b)));
        }
    }

    /// A stand-in is new: where a file already holds the text a key's stand-in would be, the
    /// key gets the next one, and no key's stand-in is read as another key.
    #[test]
    fn a_stand_in_is_no_text_the_files_hold() {
        let key = format!("sk-{}", "a".repeat(24));
        let first = key_or_token_stand_in(&key, "API key (sk-…)", 1);
        let given = files(&[("a.md", &format!("{key} and {first}"))]);
        let (out, report) = redact(&given, &Identity::default());
        let text = String::from_utf8(out["a.md"].clone()).unwrap();
        let (x, y) = text.split_once(" and ").unwrap();
        assert_ne!(x, y, "{text}");
        assert!(!text.contains(&key), "{text}");
        assert_eq!(report.summary(), "API key (sk-…) ×2 (2 distinct)");
    }
}

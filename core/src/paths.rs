//! pi's path helpers (CA/utils/paths.js): `normalizePath` (trim, unicode spaces, a leading `@`,
//! `~`, `file://` URLs) and `resolvePath`, on POSIX.

use crate::js::path::{join_path, normalize_path, resolve_path};

/// `[\u00A0\u2000-\u200A\u202F\u205F\u3000]` (CA/utils/paths.js:6).
fn is_unicode_space(c: char) -> bool {
    matches!(
        c,
        '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}'
    )
}

/// Options of pi's `normalizePath` (CA/utils/paths.js:58).
#[derive(Clone, Copy, Debug, Default)]
pub struct PathOptions {
    pub trim: bool,
    pub normalize_unicode_spaces: bool,
    pub strip_at_prefix: bool,
}

/// `normalizePath(input, options)` (CA/utils/paths.js:58–81) on POSIX: optional trim, unicode
/// spaces to " ", one leading `@` stripped, `~` expanded with `home`, `file://` URLs decoded.
pub fn normalize_pi_path(input: &str, home: &str, opts: PathOptions) -> String {
    let mut s: String = if opts.trim {
        crate::js::js_trim(input).to_string()
    } else {
        input.to_string()
    };
    if opts.normalize_unicode_spaces {
        s = s
            .chars()
            .map(|c| if is_unicode_space(c) { ' ' } else { c })
            .collect();
    }
    if opts.strip_at_prefix {
        if let Some(rest) = s.strip_prefix('@') {
            s = rest.to_string();
        }
    }
    if s == "~" {
        return home.to_string();
    }
    if let Some(rest) = s.strip_prefix("~/") {
        return join_path(home, rest);
    }
    if let Some(rest) = s.strip_prefix("file://") {
        return percent_decode(rest);
    }
    s
}

/// `fileURLToPath` for `file:///path` (host-less) URLs: percent-decoding of the path.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (
                (bytes[i + 1] as char).to_digit(16),
                (bytes[i + 2] as char).to_digit(16),
            ) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `resolvePath(input, baseDir, options)` (CA/utils/paths.js:82–86): `normalizePath` on both,
/// then Node's `path.resolve`.
pub fn resolve_pi_path(input: &str, base: &str, home: &str, opts: PathOptions) -> String {
    let p = normalize_pi_path(input, home, opts);
    if p.starts_with('/') {
        normalize_path(&p)
    } else {
        let base = normalize_pi_path(base, home, PathOptions::default());
        resolve_path(&base, &p)
    }
}

//! The ignore files a skill walk honours (`.gitignore`, `.ignore`, `.fdignore`): pi's
//! `addIgnoreRules` and `prefixIgnorePattern` (CA/core/skills.js:16–56) over the rules of the npm
//! `ignore` package (last match wins, `!` negates, a trailing `/` matches directories only, a
//! pattern with a `/` is anchored to the directory of its file).

use crate::inputs::VirtualFs;
use crate::js::path::join_path;

/// Ignore rules from `.gitignore`, `.ignore` and `.fdignore` files met during a skill walk
/// (`addIgnoreRules`, CA/core/skills.js:37–56; the `ignore` package's last-match-wins rules).
#[derive(Clone, Debug, Default)]
pub struct IgnoreRules {
    rules: Vec<(bool, String)>,
}

const IGNORE_FILE_NAMES: [&str; 3] = [".gitignore", ".ignore", ".fdignore"];

impl IgnoreRules {
    /// `addIgnoreRules(ig, dir, rootDir)`: each file's patterns, prefixed with dir relative to root.
    pub(crate) fn add_dir(&mut self, fs: &VirtualFs, dir: &str, root: &str) {
        let rel = dir.strip_prefix(root).unwrap_or("").trim_start_matches('/');
        let prefix = if rel.is_empty() {
            String::new()
        } else {
            format!("{rel}/")
        };
        for name in IGNORE_FILE_NAMES {
            let Some(content) = fs.read_to_string(&join_path(dir, name)) else {
                continue;
            };
            for line in content.split('\n') {
                let line = line.strip_suffix('\r').unwrap_or(line);
                if let Some(rule) = prefix_ignore_pattern(line, &prefix) {
                    self.rules.push(rule);
                }
            }
        }
    }

    /// `ig.ignores(relPath)` (a trailing `/` marks a directory).
    pub fn ignores(&self, rel: &str) -> bool {
        let is_dir = rel.ends_with('/');
        let path = rel.trim_end_matches('/');
        let segs: Vec<&str> = path.split('/').collect();
        let mut ignored = false;
        for (negated, pattern) in &self.rules {
            let dir_only = pattern.ends_with('/');
            let pat = pattern.trim_end_matches('/');
            let anchored = pat.contains('/');
            let pat = pat.trim_start_matches('/');
            let matched = (1..=segs.len()).any(|n| {
                let whole = n == segs.len();
                if dir_only && whole && !is_dir {
                    return false;
                }
                if anchored {
                    glob_match(pat, &segs[..n].join("/"))
                } else {
                    glob_match(pat, segs[n - 1])
                }
            });
            if matched {
                ignored = !negated;
            }
        }
        ignored
    }
}

/// `prefixIgnorePattern(line, prefix)` (CA/core/skills.js:16–36).
fn prefix_ignore_pattern(line: &str, prefix: &str) -> Option<(bool, String)> {
    let trimmed = crate::js::js_trim(line);
    if trimmed.is_empty() || (trimmed.starts_with('#') && !trimmed.starts_with("\\#")) {
        return None;
    }
    let mut pattern = line;
    let mut negated = false;
    if let Some(p) = pattern.strip_prefix('!') {
        negated = true;
        pattern = p;
    } else if pattern.starts_with("\\!") {
        pattern = &pattern[1..];
    }
    let pattern = pattern.strip_prefix('/').unwrap_or(pattern);
    // The `ignore` package trims trailing unescaped spaces.
    let pattern = pattern.trim_end_matches(' ');
    Some((negated, format!("{prefix}{pattern}")))
}

/// Glob matching of one path: `*` and `?` within a segment, `**` across segments, `[...]` classes.
pub(crate) fn glob_match(pat: &str, text: &str) -> bool {
    fn m(p: &[char], t: &[char]) -> bool {
        match p.first() {
            None => t.is_empty(),
            Some('*') if p.get(1) == Some(&'*') => {
                let rest = if p.get(2) == Some(&'/') {
                    &p[3..]
                } else {
                    &p[2..]
                };
                (0..=t.len())
                    .any(|k| (k == 0 || t[k - 1] == '/' || rest.is_empty()) && m(rest, &t[k..]))
            }
            Some('*') => (0..=t.len())
                .take_while(|&k| k == 0 || t[k - 1] != '/')
                .any(|k| m(&p[1..], &t[k..])),
            Some('?') => t.first().is_some_and(|c| *c != '/') && m(&p[1..], &t[1..]),
            Some('[') => {
                let Some(close) = p.iter().skip(1).position(|c| *c == ']').map(|x| x + 1) else {
                    return t.first() == Some(&'[') && m(&p[1..], &t[1..]);
                };
                let Some(&c) = t.first() else { return false };
                let class = &p[1..close];
                let (neg, class) = match class.first() {
                    Some('!' | '^') => (true, &class[1..]),
                    _ => (false, class),
                };
                let mut hit = false;
                let mut k = 0;
                while k < class.len() {
                    if k + 2 < class.len() && class[k + 1] == '-' {
                        hit |= class[k] <= c && c <= class[k + 2];
                        k += 3;
                    } else {
                        hit |= class[k] == c;
                        k += 1;
                    }
                }
                hit != neg && m(&p[close + 1..], &t[1..])
            }
            Some('\\') if p.len() > 1 => t.first() == Some(&p[1]) && m(&p[2..], &t[1..]),
            Some(c) => t.first() == Some(c) && m(&p[1..], &t[1..]),
        }
    }
    let p: Vec<char> = pat.chars().collect();
    let t: Vec<char> = text.chars().collect();
    m(&p, &t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignore_rules() {
        let ig = IgnoreRules {
            rules: vec![
                (false, "*.tmp".into()),
                (false, "build/".into()),
                (true, "keep.tmp".into()),
                (false, "sub/x.md".into()),
            ],
        };
        assert!(ig.ignores("a/b.tmp"));
        assert!(!ig.ignores("keep.tmp"));
        assert!(ig.ignores("build/"));
        assert!(ig.ignores("build/SKILL.md"));
        assert!(!ig.ignores("build"));
        assert!(ig.ignores("sub/x.md"));
        assert!(!ig.ignores("other/sub/x.md"));
    }
}

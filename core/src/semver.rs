//! npm's `semver` (node-semver 7, strict mode) as pi's package manager uses it on a settings
//! entry `npm:NAME@RANGE`: `satisfies(installed, validRange(RANGE))`, with a range that is not
//! valid (a dist-tag such as `latest`) matching any version
//! (CA/core/package-manager.js `getNpmVersionRange`, `installedNpmMatchesConfiguredVersion`).
//!
//! A range is sets joined by `||`; a set is comparators (`<`, `<=`, `>`, `>=`, `=` or none)
//! that must all hold, after the sugar is rewritten as node-semver rewrites it: hyphen ranges
//! (`1.2 - 2`), `~`, `^`, x-ranges (`1.x`, `*`, a missing part). A version with a prerelease
//! tag satisfies a set only when a comparator of the set has a prerelease on the same
//! `MAJOR.MINOR.PATCH`.

// Text from the user: no string is sliced by byte range.
#![deny(clippy::string_slice)]

use std::cmp::Ordering;

/// `satisfies(version, validRange(range)) ` where the range is valid, else `true`.
pub fn satisfies(version: &str, range: &str) -> bool {
    let Some(sets) = parse_range(range) else {
        return true;
    };
    let Some(v) = Version::parse(version.trim()) else {
        return false;
    };
    sets.iter().any(|set| set_holds(set, &v))
}

/// A full version: `MAJOR.MINOR.PATCH[-PRERELEASE]`.
#[derive(Clone, Debug, PartialEq)]
struct Version {
    main: [u64; 3],
    pre: Vec<String>,
}

impl Version {
    /// node-semver's FULL: `v?` then three numbers without leading zeros, a prerelease, a build.
    fn parse(text: &str) -> Option<Version> {
        let text = text.strip_prefix('v').unwrap_or(text);
        let p = partial(text)?;
        match p.parts {
            [Some(a), Some(b), Some(c)] => Some(Version {
                main: [a, b, c],
                pre: p.pre,
            }),
            _ => None,
        }
    }

    fn with_pre(main: [u64; 3], pre: &[&str]) -> Version {
        Version {
            main,
            pre: pre.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn cmp(&self, other: &Version) -> Ordering {
        self.main
            .cmp(&other.main)
            .then_with(|| match (self.pre.is_empty(), other.pre.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => {
                    for (a, b) in self.pre.iter().zip(&other.pre) {
                        let o = match (a.parse::<u64>(), b.parse::<u64>()) {
                            (Ok(x), Ok(y)) => x.cmp(&y),
                            (Ok(_), Err(_)) => Ordering::Less,
                            (Err(_), Ok(_)) => Ordering::Greater,
                            (Err(_), Err(_)) => a.cmp(b),
                        };
                        if o != Ordering::Equal {
                            return o;
                        }
                    }
                    self.pre.len().cmp(&other.pre.len())
                }
            })
    }
}

/// An x-range's parts (`None`: `x`, `X`, `*` or missing) and its prerelease.
struct Partial {
    parts: [Option<u64>; 3],
    pre: Vec<String>,
}

/// `MAJOR[.MINOR[.PATCH[-PRE][+BUILD]]]`, each part a number or `x`/`X`/`*`.
fn partial(text: &str) -> Option<Partial> {
    let (head, build) = match text.split_once('+') {
        Some((h, b)) => (h, Some(b)),
        None => (text, None),
    };
    if let Some(b) = build {
        let ok =
            |i: &str| !i.is_empty() && i.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        if !b.split('.').all(ok) {
            return None;
        }
    }
    // The prerelease starts at the first `-` after three parts.
    let mut pieces = head.splitn(3, '.');
    let (a, b, rest) = (pieces.next()?, pieces.next(), pieces.next());
    let (c, pre) = match rest {
        Some(r) => match r.split_once('-') {
            Some((c, pre)) => (Some(c), Some(pre)),
            None => (Some(r), None),
        },
        None => (None, None),
    };
    let num = |s: &str| -> Option<Option<u64>> {
        match s {
            "x" | "X" | "*" => Some(None),
            "0" => Some(Some(0)),
            // Above `Number.MAX_SAFE_INTEGER` node-semver refuses the version.
            _ if !s.is_empty() && !s.starts_with('0') && s.chars().all(|c| c.is_ascii_digit()) => {
                s.parse::<u64>().ok().filter(|n| *n <= MAX_SAFE).map(Some)
            }
            _ => None,
        }
    };
    let parts = [
        num(a)?,
        b.map_or(Some(None), num)?,
        c.map_or(Some(None), num)?,
    ];
    if build.is_some() && c.is_none() {
        return None;
    }
    let pre = match pre {
        None => Vec::new(),
        Some(p) => {
            let ok = |i: &str| {
                !i.is_empty()
                    && i.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                    && (i == "0" || !i.starts_with('0') || !i.chars().all(|c| c.is_ascii_digit()))
            };
            if !p.split('.').all(ok) {
                return None;
            }
            p.split('.').map(String::from).collect()
        }
    };
    Some(Partial { parts, pre })
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
}

/// One comparator; `None`: any version.
type Comparator = Option<(Op, Version)>;

/// `new Range(range)`: its sets, `None` when it is not valid (`validRange` gives null).
fn parse_range(range: &str) -> Option<Vec<Vec<Comparator>>> {
    let mut sets = Vec::new();
    for set in range.split("||") {
        let set = parse_set(set.trim())?;
        // A bound past `Number.MAX_SAFE_INTEGER` (`^9007199254740991`'s upper) is no version.
        if set
            .iter()
            .flatten()
            .any(|(_, v)| v.main.iter().any(|n| *n > MAX_SAFE))
        {
            return None;
        }
        sets.push(set);
    }
    Some(sets)
}

/// `Number.MAX_SAFE_INTEGER`: node-semver's largest version number.
const MAX_SAFE: u64 = (1 << 53) - 1;

fn parse_set(text: &str) -> Option<Vec<Comparator>> {
    if let Some((from, to)) = hyphen(text) {
        let mut out = Vec::new();
        out.extend(hyphen_from(&from));
        out.extend(hyphen_to(&to));
        return Some(if out.is_empty() { vec![None] } else { out });
    }
    // An operator, `~` or `^` may be followed by spaces before its version.
    let mut tokens: Vec<String> = Vec::new();
    let mut pending = String::new();
    for word in text.split_whitespace() {
        if !pending.is_empty() || is_operator(word) {
            pending.push_str(word);
            if is_operator(&pending) {
                continue;
            }
            tokens.push(std::mem::take(&mut pending));
        } else {
            tokens.push(word.to_string());
        }
    }
    if !pending.is_empty() {
        tokens.push(pending);
    }
    if tokens.is_empty() {
        return Some(vec![None]);
    }
    let mut out = Vec::new();
    for t in tokens {
        out.extend(comparator(&t)?);
    }
    Some(out)
}

fn is_operator(w: &str) -> bool {
    matches!(w, "<" | "<=" | ">" | ">=" | "=" | "~" | "~>" | "^")
}

/// `A - B` with both sides x-ranges.
fn hyphen(text: &str) -> Option<(Partial, Partial)> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let [a, "-", b] = words.as_slice() else {
        return None;
    };
    let clean = |s: &str| s.trim_start_matches(['v', '=']).to_string();
    Some((partial(&clean(a))?, partial(&clean(b))?))
}

fn hyphen_from(p: &Partial) -> Vec<Comparator> {
    match p.parts {
        [None, _, _] => Vec::new(),
        [Some(a), None, _] => vec![Some((Op::Ge, Version::with_pre([a, 0, 0], &[])))],
        [Some(a), Some(b), None] => vec![Some((Op::Ge, Version::with_pre([a, b, 0], &[])))],
        [Some(a), Some(b), Some(c)] => vec![Some((
            Op::Ge,
            Version {
                main: [a, b, c],
                pre: p.pre.clone(),
            },
        ))],
    }
}

fn hyphen_to(p: &Partial) -> Vec<Comparator> {
    match p.parts {
        [None, _, _] => Vec::new(),
        [Some(a), None, _] => vec![Some((Op::Lt, Version::with_pre([a + 1, 0, 0], &["0"])))],
        [Some(a), Some(b), None] => {
            vec![Some((Op::Lt, Version::with_pre([a, b + 1, 0], &["0"])))]
        }
        [Some(a), Some(b), Some(c)] => vec![Some((
            Op::Le,
            Version {
                main: [a, b, c],
                pre: p.pre.clone(),
            },
        ))],
    }
}

/// One comparator token desugared (`parseComparator`: carets, tildes, x-ranges, stars).
fn comparator(token: &str) -> Option<Vec<Comparator>> {
    let lt = |v: Version| Some((Op::Lt, v));
    let ge = |v: Version| Some((Op::Ge, v));
    if let Some(rest) = token.strip_prefix("~>").or_else(|| token.strip_prefix('~')) {
        let p = partial(rest.trim_start_matches(['v', '=']))?;
        return Some(match p.parts {
            [None, _, _] => vec![None],
            [Some(a), None, _] => vec![
                ge(Version::with_pre([a, 0, 0], &[])),
                lt(Version::with_pre([a + 1, 0, 0], &["0"])),
            ],
            [Some(a), Some(b), None] => vec![
                ge(Version::with_pre([a, b, 0], &[])),
                lt(Version::with_pre([a, b + 1, 0], &["0"])),
            ],
            [Some(a), Some(b), Some(c)] => vec![
                ge(Version {
                    main: [a, b, c],
                    pre: p.pre,
                }),
                lt(Version::with_pre([a, b + 1, 0], &["0"])),
            ],
        });
    }
    if let Some(rest) = token.strip_prefix('^') {
        let p = partial(rest.trim_start_matches(['v', '=']))?;
        return Some(match p.parts {
            [None, _, _] => vec![None],
            [Some(a), None, _] => vec![
                ge(Version::with_pre([a, 0, 0], &[])),
                lt(Version::with_pre([a + 1, 0, 0], &["0"])),
            ],
            [Some(0), Some(b), None] => vec![
                ge(Version::with_pre([0, b, 0], &[])),
                lt(Version::with_pre([0, b + 1, 0], &["0"])),
            ],
            [Some(a), Some(b), None] => vec![
                ge(Version::with_pre([a, b, 0], &[])),
                lt(Version::with_pre([a + 1, 0, 0], &["0"])),
            ],
            [Some(a), Some(b), Some(c)] => {
                let upper = match (a, b) {
                    (0, 0) => [0, 0, c + 1],
                    (0, _) => [0, b + 1, 0],
                    _ => [a + 1, 0, 0],
                };
                vec![
                    ge(Version {
                        main: [a, b, c],
                        pre: p.pre,
                    }),
                    lt(Version::with_pre(upper, &["0"])),
                ]
            }
        });
    }
    let (op, rest) = [
        ("<=", Op::Le),
        (">=", Op::Ge),
        ("<", Op::Lt),
        (">", Op::Gt),
        ("=", Op::Eq),
    ]
    .iter()
    .find_map(|(s, op)| token.strip_prefix(s).map(|r| (Some(*op), r)))
    .unwrap_or((None, token));
    let p = partial(rest.trim_start_matches(['v', '=']))?;
    Some(x_range(op, p))
}

/// `replaceXRange` for `OP PARTIAL` (no operator, or `=`, with an x: a plain x-range).
fn x_range(op: Option<Op>, p: Partial) -> Vec<Comparator> {
    let [a, b, c] = p.parts;
    let any_x = a.is_none() || b.is_none() || c.is_none();
    let op = if op == Some(Op::Eq) && any_x {
        None
    } else {
        op
    };
    let Some(major) = a else {
        return match op {
            Some(Op::Lt) | Some(Op::Gt) => {
                vec![Some((Op::Lt, Version::with_pre([0, 0, 0], &["0"])))]
            }
            _ => vec![None],
        };
    };
    if !any_x {
        let v = Version {
            main: [major, b.unwrap_or(0), c.unwrap_or(0)],
            pre: p.pre,
        };
        return vec![Some((op.unwrap_or(Op::Eq), v))];
    }
    let minor_x = b.is_none();
    match op {
        Some(mut op) => {
            let (mut m, mut n, mut q) = (major, b.unwrap_or(0), 0);
            let mut pre: &[&str] = &[];
            if op == Op::Gt {
                op = Op::Ge;
                if minor_x {
                    m += 1;
                    n = 0;
                    q = 0;
                } else {
                    n += 1;
                    q = 0;
                }
            } else if op == Op::Le {
                op = Op::Lt;
                if minor_x {
                    m += 1;
                } else {
                    n += 1;
                }
            }
            if op == Op::Lt {
                pre = &["0"];
            }
            vec![Some((op, Version::with_pre([m, n, q], pre)))]
        }
        None if minor_x => vec![
            Some((Op::Ge, Version::with_pre([major, 0, 0], &[]))),
            Some((Op::Lt, Version::with_pre([major + 1, 0, 0], &["0"]))),
        ],
        None => {
            let minor = b.unwrap_or(0);
            vec![
                Some((Op::Ge, Version::with_pre([major, minor, 0], &[]))),
                Some((Op::Lt, Version::with_pre([major, minor + 1, 0], &["0"]))),
            ]
        }
    }
}

/// `testSet(set, version)`: every comparator holds, and a prerelease version needs a
/// comparator with a prerelease on its own `MAJOR.MINOR.PATCH`.
fn set_holds(set: &[Comparator], v: &Version) -> bool {
    let holds = set.iter().all(|c| match c {
        None => true,
        Some((op, w)) => {
            let o = v.cmp(w);
            match op {
                Op::Lt => o == Ordering::Less,
                Op::Le => o != Ordering::Greater,
                Op::Gt => o == Ordering::Greater,
                Op::Ge => o != Ordering::Less,
                Op::Eq => o == Ordering::Equal,
            }
        }
    });
    if !holds {
        return false;
    }
    v.pre.is_empty()
        || set
            .iter()
            .flatten()
            .any(|(_, w)| !w.pre.is_empty() && w.main == v.main)
}

#[cfg(test)]
mod tests {
    use super::satisfies;

    /// Every pair of `data/semver.json` (`[version, range, satisfies]`), as node-semver 7.8.5
    /// (pi's) answers `validRange(range) ? satisfies(version, validRange(range)) : true`.
    #[test]
    fn ranges_hold_as_node_semver_says() {
        let table = crate::js::parse(include_str!("../tests/data/semver.json")).unwrap();
        let mut wrong = Vec::new();
        assert!(table.as_array().unwrap().len() > 1000);
        for row in table.as_array().unwrap() {
            let row = row.as_array().unwrap();
            let (v, r) = (row[0].as_str().unwrap(), row[1].as_str().unwrap());
            let want = row[2] == crate::js::Value::Bool(true);
            if satisfies(v, r) != want {
                wrong.push(format!("{v} in {r:?}: node-semver says {want}"));
            }
        }
        assert!(
            wrong.is_empty(),
            "{} of {}:\n{}",
            wrong.len(),
            table.as_array().unwrap().len(),
            wrong.join("\n")
        );
    }

    /// As node-semver 7.8.5 answers them.
    #[test]
    fn huge_numbers_are_no_version_and_no_range() {
        assert!(!satisfies("99999999999999999999.0.0", "*"));
        assert!(satisfies("1.0.0", "^18446744073709551615"));
        assert!(satisfies("1.0.0", "^9007199254740991"));
        assert!(!satisfies("1.0.0", "^9007199254740990"));
    }
}

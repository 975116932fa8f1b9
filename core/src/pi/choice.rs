//! Which pi release an assembly rebuilds, and why: the one given (`--pi`, `piVersion`, the app's
//! picker), else the release that made the capture (a case's `env.json`), else the installed
//! pi's (`Inputs::installed_pi`, when ctxlens rebuilds it; otherwise that is said), else the one
//! the session proves, else the newest supported.
//!
//! What a session proves comes from what later releases write and earlier ones do not: system
//! messages (0.86.0 on, before the first prompt of every run), `context_edit` entries (0.87.0),
//! `usage` entries (0.86.0's cache warming), a compaction's system-prompt checkpoint (0.86.0),
//! the release's own section texts, and the file's timestamps against release dates. Each fact
//! is kept as evidence with its line.

// Text from the user: no string is sliced by byte range (a cut inside a character panics).
#![deny(clippy::string_slice)]

use std::fmt;

use super::fingerprints::{self, Fingerprints, MARKS};
use super::PiVersion;
use crate::inputs::{Inputs, SourceText};
use crate::js::{Object, Value};
use crate::session::Lines;

/// The pi releases after 0.85.1 that ctxlens knows of (from 1.6.0's CHANGELOG.md), with the
/// date each was released: what the detection names when a session proves "0.86.0 or later".
pub const LATER_RELEASES: [(&str, &str); 20] = [
    ("0.86.0", "2026-09-19"),
    ("0.86.1", "2026-09-20"),
    ("0.87.0", "2026-09-21"),
    ("0.87.1", "2026-09-22"),
    ("0.99.0", "2026-09-29"),
    ("0.99.1", "2026-09-29"),
    ("0.99.2", "2026-09-30"),
    ("1.0.0", "2026-10-01"),
    ("1.0.1", "2026-10-03"),
    ("1.0.2", "2026-10-04"),
    ("1.0.3", "2026-10-05"),
    ("1.0.4", "2026-10-05"),
    ("1.1.0", "2026-10-07"),
    ("1.2.0", "2026-10-12"),
    ("1.3.0", "2026-10-15"),
    ("1.4.0", "2026-10-21"),
    ("1.5.0", "2026-11-02"),
    ("1.5.1", "2026-11-09"),
    ("1.5.2", "2026-11-10"),
    ("1.6.0", "2026-11-20"),
];

/// The release date of a known release (supported or not).
pub fn release_date(version: &str) -> Option<&'static str> {
    PiVersion::ALL
        .iter()
        .find(|v| v.as_str() == version)
        .map(|v| v.released())
        .or_else(|| {
            LATER_RELEASES
                .iter()
                .find(|(v, _)| *v == version)
                .map(|(_, d)| *d)
        })
}

/// Why this release was rebuilt.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reason {
    /// Asked for (`--pi`, `piVersion`, the app's picker).
    Given,
    /// The release that made the capture (a case's `expected/env.json` `piVersion`).
    Captured,
    /// The pi installed on this machine (the `pi` on `PATH`, or `--pi-dir`).
    Installed,
    /// What the session proves.
    Detected,
    /// A past call made by another release than the session's later runs (a session continued
    /// after an upgrade): what the session proves as it stood when the call was made.
    Call,
    /// Nothing said otherwise: the newest supported release.
    #[default]
    Default,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Given => "given",
            Reason::Captured => "captured",
            Reason::Installed => "installed",
            Reason::Detected => "detected",
            Reason::Call => "call",
            Reason::Default => "default",
        }
    }
}

/// How sure a detection is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Certainty {
    /// No fact points anywhere: a guess.
    #[default]
    Assumed,
    /// The facts fit this release best, but another release could have written them.
    Likely,
    /// The facts fit this release and rule out the others ctxlens supports.
    Certain,
}

impl Certainty {
    pub fn as_str(self) -> &'static str {
        match self {
            Certainty::Assumed => "assumed",
            Certainty::Likely => "likely",
            Certainty::Certain => "certain",
        }
    }
}

/// One fact of a session about the release that wrote it.
#[derive(Clone, Debug, PartialEq)]
pub struct Evidence {
    /// The 1-based line it was seen on, when it is one line's.
    pub line: Option<u32>,
    /// What was seen, when it is something a later release writes (`a context_edit entry`).
    pub seen: Option<String>,
    /// What was seen, and what it implies.
    pub fact: String,
}

impl Evidence {
    /// Something only `since` and later releases write, seen at `line`.
    fn later(line: Option<u32>, seen: &str, since: &str) -> Evidence {
        Evidence {
            line,
            seen: Some(seen.to_string()),
            fact: format!("{seen}: written by pi {since} or later"),
        }
    }
}

/// What the session says about the release that wrote it.
#[derive(Clone, Debug, PartialEq)]
pub struct Detection {
    /// The supported release that fits best.
    pub version: PiVersion,
    pub certainty: Certainty,
    /// The oldest release that writes what the session holds (`"0.86.0"`), when a fact says so.
    pub at_least: Option<&'static str>,
    pub evidence: Vec<Evidence>,
    /// Every supported release the facts do not rule out, oldest first; `version` is the newest.
    /// More than one: the session cannot tell them apart (their sessions are alike where this
    /// one has something to show), so the choice is the user's (`--pi`, `piVersion`).
    pub candidates: Vec<PiVersion>,
    /// The session's dates show a release ctxlens does not rebuild may have written it (0.86.0,
    /// 0.99.0–1.2.0, 1.5.1; 0.99.1 and 1.0.3 cannot be installed): `version` is the nearest
    /// supported one, never certain.
    pub unsupported_writer: bool,
}

impl Detection {
    /// When several supported releases could have written the session: which, and how to pick.
    pub fn ambiguity(&self) -> Option<String> {
        if self.candidates.len() < 2 {
            return None;
        }
        let names: Vec<&str> = self.candidates.iter().map(|v| v.as_str()).collect();
        Some(format!(
            "pi {} write sessions alike: nothing in this one tells them apart; rebuilding pi {} (the newest), --pi {} for another",
            names.join(", "),
            self.version,
            names[..names.len() - 1].join(" or --pi ")
        ))
    }
}

/// The release an assembly rebuilds, with why.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    pub version: PiVersion,
    pub reason: Reason,
    /// What the session says (also when the release was given: it can contradict it).
    pub detection: Option<Detection>,
    /// The installed pi's version when ctxlens does not rebuild it (then another release is
    /// rebuilt, and [`Choice::installed_warning`] says which).
    pub unsupported_installed: Option<String>,
    /// For a past call rebuilt by its own release ([`Reason::Call`]): the last line of the
    /// session as it stood when the call was made (the line before the next run's system
    /// message), and the release the session's later runs were rebuilt with.
    pub call_run: Option<CallRun>,
}

/// Where a past call's run ends, and what came after it.
#[derive(Clone, Debug, PartialEq)]
pub struct CallRun {
    /// The last line of the session as the call's release left it.
    pub last_line: u32,
    /// The system message that begins the next run, written by a later release.
    pub next_run_line: u32,
    /// The release the rest of the session is rebuilt with, and why.
    pub later: PiVersion,
}

impl Choice {
    /// One sentence: `pi 1.6.0 (detected from the session: system messages, line 3; certain)`.
    pub fn explain(&self) -> String {
        let how = match self.reason {
            Reason::Given => "as asked".to_string(),
            Reason::Captured => "the release that made this capture (env.json)".to_string(),
            Reason::Installed => "the pi installed here".to_string(),
            Reason::Default => "the newest supported release: nothing said otherwise".to_string(),
            Reason::Detected | Reason::Call => match &self.detection {
                Some(d) => format!(
                    "{}, {}: {}",
                    match &self.call_run {
                        Some(r) => format!(
                            "the release that made this call, detected from the session as it stood then (lines 1–{})",
                            r.last_line
                        ),
                        None => "detected from the session".to_string(),
                    },
                    d.certainty.as_str(),
                    d.evidence
                        .first()
                        .map(|e| match e.line {
                            Some(l) => format!("{} (line {l})", e.fact),
                            None => e.fact.clone(),
                        })
                        .unwrap_or_default()
                ),
                None => "detected from the session".to_string(),
            },
        };
        let how = match self.detection.as_ref().and_then(Detection::ambiguity) {
            Some(a) if matches!(self.reason, Reason::Detected | Reason::Call) => {
                format!("{how}; {a}")
            }
            _ => how,
        };
        format!("pi {} ({how})", self.version)
    }

    /// When the installed pi is a release ctxlens does not rebuild: what it is and what is
    /// rebuilt instead.
    pub fn installed_warning(&self) -> Option<String> {
        let v = self.unsupported_installed.as_ref()?;
        Some(format!(
            "the pi installed here is {v}, a release ctxlens does not rebuild (supported: {}); rebuilding {} instead",
            PiVersion::ALL.map(PiVersion::as_str).join(", "),
            self.explain()
        ))
    }

    /// When the session was written by a release newer than the one rebuilt: what to say first.
    pub fn newer_session_warning(&self) -> Option<String> {
        let d = self.detection.as_ref()?;
        // Only what the session proves (a fact of a later release) counts, not a guess.
        let since = release_date(d.at_least?)?;
        if matches!(self.reason, Reason::Detected | Reason::Call)
            || self.version.released() >= since
        {
            return None;
        }
        let seen: Vec<&Evidence> = d.evidence.iter().filter(|e| e.seen.is_some()).collect();
        let what = seen
            .iter()
            .map(|e| match e.line {
                Some(l) => format!("{}, line {l}", e.seen.as_deref().unwrap_or("")),
                None => e.seen.clone().unwrap_or_default(),
            })
            .take(3)
            .collect::<Vec<_>>()
            .join("; ");
        Some(format!(
            "pi {} or later wrote this session ({what}), a newer release than pi {}, which this rebuilds: the body is what pi {} would send with it, not what the pi that wrote it sends",
            d.at_least.unwrap_or(d.version.as_str()),
            self.version,
            self.version
        ))
    }
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.explain())
    }
}

/// The release for `inputs`: given, else captured, else the installed one (when ctxlens
/// rebuilds it), else detected, else the newest.
pub fn choose(inputs: &Inputs) -> Choice {
    let detection = inputs
        .session
        .as_ref()
        .and_then(|s| detect_in(s, &crate::session::read_lines(s)));
    choose_detected(inputs, detection)
}

/// [`choose`] with the session's detection already made ([`detect_in`]; a workspace keeps it).
pub fn choose_detected(inputs: &Inputs, detection: Option<Detection>) -> Choice {
    let installed = inputs
        .installed_pi
        .as_deref()
        .map(|v| v.parse::<PiVersion>().map_err(|_| v.to_string()));
    let (version, reason) = match (inputs.pi, inputs.captured_pi, &installed, &detection) {
        (Some(v), ..) => (v, Reason::Given),
        (None, Some(v), ..) => (v, Reason::Captured),
        (None, None, Some(Ok(v)), _) => (*v, Reason::Installed),
        (None, None, _, Some(d)) => (d.version, Reason::Detected),
        (None, None, _, None) => (PiVersion::LATEST, Reason::Default),
    };
    let unsupported_installed = match (&installed, reason) {
        (Some(Err(v)), Reason::Detected | Reason::Default) => Some(v.clone()),
        _ => None,
    };
    Choice {
        version,
        reason,
        detection,
        unsupported_installed,
        call_run: None,
    }
}

/// The lines of the system messages the session holds: pi 0.86.0 and later store one before the
/// first prompt of every run (and one for each change of the system prompt), so each begins a
/// stretch of the session that one release wrote.
pub fn system_message_lines(lines: &Lines) -> Vec<u32> {
    lines
        .values()
        .filter(|(_, v)| {
            v.get_str("type") == Some("message")
                && v.get("message").and_then(|m| m.get_str("role")) == Some("system")
        })
        .map(|(n, _)| n)
        .collect()
}

/// The release for a past call answered on `call_line`, given the session's `choice`: a session
/// continued by a later release (a system message after the call, which the call's release did
/// not write) is read as it stood when the call was made, up to the line before that next run
/// (`detect_upto`, given as `detect`). Where what that part proves admits the session's release
/// (every call of its last run, a capture's, the installed pi's), the choice stands; otherwise
/// the call is rebuilt by the release that part proves ([`Reason::Call`]). A release given is
/// never overridden.
pub fn choose_for_call(
    choice: Choice,
    system_lines: &[u32],
    call_line: u32,
    detect: impl FnOnce(u32) -> Option<Detection>,
) -> Choice {
    if choice.reason == Reason::Given {
        return choice;
    }
    let Some(&next_run_line) = system_lines.iter().find(|&&l| l > call_line) else {
        return choice;
    };
    let last_line = next_run_line - 1;
    let Some(d) = detect(last_line) else {
        return choice;
    };
    if d.candidates.contains(&choice.version) {
        return choice;
    }
    Choice {
        version: d.version,
        reason: Reason::Call,
        detection: Some(d),
        unsupported_installed: None,
        call_run: Some(CallRun {
            last_line,
            next_run_line,
            later: choice.version,
        }),
    }
}

/// Whether version `v` is `at_least` or later (`x.y.z`, numerically).
fn version_at_least(v: &str, at_least: &str) -> bool {
    let parts = |s: &str| -> Vec<u32> { s.split('.').map(|p| p.parse().unwrap_or(0)).collect() };
    parts(v) >= parts(at_least)
}

/// `pi 0.86.0`, or `pi 0.99.0 to 1.0.4` for several releases in order.
fn release_span(releases: &[&str]) -> String {
    match releases {
        [] => String::new(),
        [one] => format!("pi {one}"),
        [first, .., last] => format!("pi {first} to {last}"),
    }
}

/// Whether `t` reads as a date, `YYYY-MM-DD` in digits.
fn is_date(t: &str) -> bool {
    let b = t.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            _ => c.is_ascii_digit(),
        })
}

/// Each line of `text` (split on `\n`, 1-based) with the object [`Lines`] holds for it, if any.
fn lines_with_values<'t, 'l>(
    text: &'t str,
    lines: &'l Lines,
    upto: u32,
) -> impl Iterator<Item = (u32, &'t str, Option<&'l Object>)> {
    let mut values = lines.values().peekable();
    let upto = upto as usize;
    text.split('\n')
        .take(upto)
        .enumerate()
        .map(move |(i, line)| {
            let n = i as u32 + 1;
            while values.peek().is_some_and(|(at, _)| *at < n) {
                values.next();
            }
            let v = values.next_if(|(at, _)| *at == n).map(|(_, v)| v);
            (n, line, v)
        })
}

/// What the session's text says about the release that wrote it; `None` for a session with no
/// entries (nothing to go on).
pub fn detect(session: &SourceText) -> Option<Detection> {
    detect_lines(session, &crate::session::read_lines(session), u32::MAX)
}

/// [`detect`] and [`refine`] with the session's lines already parsed
/// ([`crate::session::read_lines`] of `session`): the facts are read from the values pi's
/// loader gives (a fact is what pi reads, not how the line spells it).
pub fn detect_in(session: &SourceText, lines: &Lines) -> Option<Detection> {
    detect_upto(session, lines, u32::MAX)
}

/// [`detect_in`] of the session as it stood at line `upto` (its lines 1 to `upto`): what a past
/// call's release wrote before a later release continued the session.
pub fn detect_upto(session: &SourceText, lines: &Lines, upto: u32) -> Option<Detection> {
    let mut d = detect_lines(session, lines, upto)?;
    refine_upto(&mut d, lines, upto);
    Some(d)
}

/// Reads the session's lines up to `upto` and concludes which release wrote them.
fn detect_lines(session: &SourceText, lines: &Lines, upto: u32) -> Option<Detection> {
    let mut r = Reading::default();
    for (n, line, value) in lines_with_values(session.text.as_str(), lines, upto) {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        r.entries += 1;
        r.read_date(line, value);
        if r.prompts == 0 && line.contains("\"user\"") {
            r.prompts += 1;
        }
        if let Some(v) = value {
            r.read_entry(n, v);
        }
    }
    if r.entries == 0 {
        return None;
    }
    r.note_system_messages();
    let (version, certainty) = if let Some(a) = r.at_least {
        r.later_release(a)
    } else if r.prompts > 0 {
        r.earlier_release()
    } else {
        r.nothing_shown()
    };
    r.note_early_date();
    Some(Detection {
        version,
        certainty,
        at_least: r.at_least,
        evidence: r.evidence,
        candidates: r.candidates,
        unsupported_writer: r.unsupported_writer,
    })
}

/// The detection as it reads the session: the facts seen so far and what they conclude.
#[derive(Default)]
struct Reading {
    evidence: Vec<Evidence>,
    /// The oldest release that writes what the session holds, when a fact says so.
    at_least: Option<&'static str>,
    system_lines: Vec<u32>,
    entries: usize,
    prompts: usize,
    /// The date of the session's last entry (`2026-11-25`).
    last_time: Option<String>,
    candidates: Vec<PiVersion>,
    unsupported_writer: bool,
}

impl Reading {
    /// Makes `v` the oldest release the session needs when it is newer than the one so far.
    fn raise(&mut self, v: &'static str) {
        let newer = self
            .at_least
            .is_none_or(|a| release_date(v).unwrap_or("") > release_date(a).unwrap_or(""));
        if newer {
            self.at_least = Some(v);
        }
    }

    /// A line's timestamp (the entry's, read where the line parsed; else the last one its text
    /// names): keeps the latest date seen.
    fn read_date(&mut self, line: &str, parsed: Option<&Object>) {
        let stamp = match parsed {
            Some(v) => v.get_str("timestamp"),
            None => line
                .rsplit_once("\"timestamp\":\"")
                .and_then(|(_, rest)| rest.split_once('"'))
                .map(|(value, _)| value),
        };
        // The date part, `YYYY-MM-DD` (a timestamp may hold any text: one that is no date says
        // nothing of when the session was written).
        let Some(t) = stamp.and_then(|v| v.get(..10)).filter(|t| is_date(t)) else {
            return;
        };
        if self.last_time.as_deref().is_none_or(|l| t > l) {
            self.last_time = Some(t.to_string());
        }
    }

    /// What an entry proves by its type: a system message (0.86.0 on: its line is kept), a
    /// `context_edit` (0.87.0) or `usage` (0.86.0) entry, a compaction's system-prompt
    /// checkpoint (0.86.0).
    fn read_entry(&mut self, n: u32, v: &Object) {
        let later = match v.get_str("type") {
            Some("message") => {
                if v.get("message").and_then(|m| m.get_str("role")) == Some("system") {
                    self.system_lines.push(n);
                }
                None
            }
            Some("context_edit") => Some(("a context_edit entry", "0.87.0")),
            Some("usage") => Some(("a usage entry (cache warming)", "0.86.0")),
            Some("compaction") if v.get("systemMessage").is_some() => {
                Some(("a compaction with a system-prompt checkpoint", "0.86.0"))
            }
            _ => None,
        };
        if let Some((what, since)) = later {
            self.raise(since);
            self.evidence.push(Evidence::later(Some(n), what, since));
        }
    }

    /// The system messages seen, as the first evidence (0.86.0 on).
    fn note_system_messages(&mut self) {
        if self.system_lines.is_empty() {
            return;
        }
        self.raise("0.86.0");
        let count = self.system_lines.len();
        self.evidence.insert(
            0,
            Evidence::later(
                self.system_lines.first().copied(),
                &format!(
                    "{count} system message{} (the system prompt stored in the session)",
                    if count == 1 { "" } else { "s" }
                ),
                "0.86.0",
            ),
        );
    }

    /// A session with a fact of release `a` or later: the supported releases from `a` on that
    /// were out by its last entry's date, the newest likely.
    fn later_release(&mut self, a: &'static str) -> (PiVersion, Certainty) {
        // The supported releases that write what the session holds, and were out by the date
        // of its last entry (the newest writer wrote that one); narrowed with each release's
        // own texts ([`refine`]).
        self.candidates = PiVersion::ALL
            .into_iter()
            // By release order: releases out on the same day (0.86.1 and 0.87.0) are not
            // ordered by their dates.
            .filter(|v| version_at_least(v.as_str(), a))
            .collect();
        if let Some(t) = self.last_time.clone() {
            self.narrow_by_date(release_date(a).unwrap_or(""), &t);
        }
        if self.candidates.is_empty() {
            self.candidates.push(PiVersion::LATEST);
        }
        (*self.candidates.last().unwrap(), Certainty::Likely)
    }

    /// The candidates narrowed by the last entry's date `t` (`since`: the date of the oldest
    /// release that writes what the session holds), and a release ctxlens does not rebuild
    /// that may have written it.
    fn narrow_by_date(&mut self, since: &str, t: &str) {
        let out_by = self.out_by(t);
        // Releases ctxlens does not rebuild that were out after the newest candidate and by
        // the last entry's date (0.99.0–1.2.0 after 0.87.1, 1.5.1 after 1.5.0) may have
        // written it: the newest candidate is the nearest, not shown to behave the same.
        let newest = self
            .candidates
            .iter()
            .copied()
            .filter(|v| v.released() <= t)
            .max();
        let later_unsupported = newest.map_or(Vec::new(), |nv| unsupported_after(nv, t));
        if let (Some(nv), false) = (newest, later_unsupported.is_empty()) {
            self.written_after(t, nv, &later_unsupported);
        } else if out_by.is_empty() && !self.candidates.is_empty() {
            self.written_before(since, t);
        }
    }

    /// The candidates out by the last entry's date `t` (all of them kept when none was).
    fn out_by(&mut self, t: &str) -> Vec<PiVersion> {
        let out_by: Vec<PiVersion> = self
            .candidates
            .iter()
            .copied()
            .filter(|v| v.released() <= t)
            .collect();
        if !out_by.is_empty() && out_by.len() < self.candidates.len() {
            let newer: Vec<&str> = self
                .candidates
                .iter()
                .filter(|v| !out_by.contains(v))
                .map(|v| v.as_str())
                .collect();
            self.evidence.push(Evidence {
                line: None,
                seen: None,
                fact: format!(
                    "its last entry is dated {t}, before pi {} was released",
                    newer.join(" and ")
                ),
            });
            self.candidates = out_by.clone();
        }
        out_by
    }

    /// Written after `later_unsupported` came out, after `nv`: one of them may have written it.
    fn written_after(&mut self, t: &str, nv: PiVersion, later_unsupported: &[&str]) {
        self.evidence.push(Evidence {
            line: None,
            seen: None,
            fact: format!(
                "its last entry is dated {t}, after {} {} released, which ctxlens does not rebuild: one of them may have written it; rebuilding the nearest supported, pi {nv}, which is not shown to behave the same",
                release_span(later_unsupported),
                if later_unsupported.len() == 1 { "was" } else { "were" }
            ),
        });
        self.candidates.retain(|v| *v <= nv);
        self.unsupported_writer = true;
    }

    /// Written before any supported candidate was out: by a release ctxlens does not rebuild.
    fn written_before(&mut self, since: &str, t: &str) {
        // Written before any supported release that writes it was out: by a release
        // ctxlens does not rebuild (0.86.0–1.3.0; 0.99.1 and 1.0.3 cannot be installed).
        // The nearest supported one is the oldest; that it behaves the same is not shown.
        let nearest = self.candidates[0];
        let between: Vec<&str> = LATER_RELEASES
            .iter()
            .filter(|(v, d)| {
                *d >= since && *d <= t && !PiVersion::ALL.iter().any(|s| s.as_str() == *v)
            })
            .map(|(v, _)| *v)
            .collect();
        self.evidence.push(Evidence {
            line: None,
            seen: None,
            fact: format!(
                "its last entry is dated {t}, before pi {nearest} (the oldest supported release that writes it) was released: a release ctxlens does not rebuild wrote it ({}); rebuilding the nearest, pi {nearest}, which is not shown to behave the same",
                if between.is_empty() { "unknown".to_string() } else { release_span(&between) }
            ),
        });
        self.candidates = vec![nearest];
        self.unsupported_writer = true;
    }

    /// Prompts and no system message: pi 0.85 or earlier, certain.
    fn earlier_release(&mut self) -> (PiVersion, Certainty) {
        let first_transcript = release_date("0.86.0").unwrap_or("");
        self.evidence.push(Evidence {
            line: None,
            seen: None,
            fact: "no system message although the session has prompts: pi 0.86.0 and later store one before the first prompt of every run, so pi 0.85 or earlier wrote it".into(),
        });
        let v = PiVersion::ALL
            .into_iter()
            .rev()
            .find(|v| v.released() < first_transcript)
            .unwrap_or(PiVersion::ALL[0]);
        self.candidates = PiVersion::ALL
            .into_iter()
            .filter(|v| v.released() < first_transcript)
            .collect();
        (v, Certainty::Certain)
    }

    /// No prompt and no fact of a later release: the newest, assumed.
    fn nothing_shown(&mut self) -> (PiVersion, Certainty) {
        self.evidence.push(Evidence {
            line: None,
            seen: None,
            fact: "no prompt and no system message yet: nothing shows the release".into(),
        });
        self.candidates = PiVersion::ALL.to_vec();
        (PiVersion::LATEST, Certainty::Assumed)
    }

    /// A last entry dated before 0.86.0, when no fact of a later release was seen.
    fn note_early_date(&mut self) {
        if let Some(t) = &self.last_time {
            if self.at_least.is_none() && t.as_str() < release_date("0.86.0").unwrap_or("") {
                self.evidence.push(Evidence {
                    line: None,
                    seen: None,
                    fact: format!("its last entry is dated {t}, before pi 0.86.0 was released"),
                });
            }
        }
    }
}

/// The releases ctxlens does not rebuild that came out after `nv` and by the date `t`.
fn unsupported_after(nv: PiVersion, t: &str) -> Vec<&'static str> {
    // Later in release order than the newest candidate (npm dates of releases out on the
    // same day do not order them), and out by the last entry's date.
    let after = LATER_RELEASES
        .iter()
        .position(|(v, _)| *v == nv.as_str())
        .map_or(0, |i| i + 1);
    LATER_RELEASES[after..]
        .iter()
        .filter(|(v, d)| {
            *d >= nv.released() && *d <= t && !PiVersion::ALL.iter().any(|s| s.as_str() == *v)
        })
        .map(|(v, _)| *v)
        .collect()
}

/// Sharpens a detection with each candidate release's own texts (its fingerprints): the
/// newest stored sections must read as the release writes them (its preamble, docs or tools
/// lines), and the last stored declaration of a built-in tool (`toolsAdded`) must be the
/// release's own where it is another candidate's. A release that fails either is ruled out, unless that would rule out
/// every candidate (a custom prompt, edited tools: then nothing is concluded). One candidate
/// left: certain; several: likely, and [`Detection::ambiguity`] offers the choice.
pub fn refine(d: &mut Detection, session: &SourceText) {
    refine_in(d, &crate::session::read_lines(session));
}

/// [`refine`] with the session's lines already parsed.
pub fn refine_in(d: &mut Detection, lines: &Lines) {
    refine_upto(d, lines, u32::MAX);
}

/// [`refine`] of the session's lines 1 to `upto`.
fn refine_upto(d: &mut Detection, lines: &Lines, upto: u32) {
    if d.certainty == Certainty::Certain || d.at_least.is_none() {
        return;
    }
    // Every supported release's fingerprints are compiled in, so the conclusion is the same on
    // every host, whichever releases' data it has loaded.
    let loaded: Vec<(PiVersion, &Fingerprints)> = d
        .candidates
        .iter()
        .filter_map(|v| fingerprints::get(*v).map(|f| (*v, f)))
        .collect();
    if loaded.is_empty() {
        return;
    }
    let stored = Stored::read(lines, upto);
    let sections = newest_sections(&stored.section_maps, &loaded);
    let mut r = Refinement {
        loaded,
        ruled_out: Vec::new(),
        matched_sections: Vec::new(),
    };
    if let Some((n, texts)) = &sections {
        r.read_sections(*n, texts);
    }
    r.read_tools(&stored.tools);
    r.narrow(d);
    r.conclude(d, sections.as_ref().map(|(n, _)| *n));
}

/// What the session's system messages store: their section maps and built-in tools.
struct Stored {
    section_maps: Vec<(u32, Vec<String>)>,
    tools: Vec<(u32, Value)>,
}

impl Stored {
    /// Every stored section map and the last stored declaration of each built-in tool.
    fn read(lines: &Lines, upto: u32) -> Stored {
        // The first stored section map and every stored built-in tool declaration.
        let mut section_maps: Vec<(u32, Vec<String>)> = Vec::new();
        let mut tools: Vec<(u32, Value)> = Vec::new();
        for (n, v) in lines.values().take_while(|(n, _)| *n <= upto) {
            let m = match v.get_str("type") {
                Some("message") => v.get("message"),
                Some("compaction") => v.get("systemMessage"),
                _ => None,
            };
            let Some(m) = m.filter(|m| m.get_str("role") == Some("system")) else {
                continue;
            };
            if let Some(map) = m.get("sections").and_then(Value::as_object) {
                let texts: Vec<String> = map
                    .iter()
                    .filter_map(|(_, s)| s.as_str().map(str::to_string))
                    .collect();
                if !texts.is_empty() {
                    section_maps.push((n, texts));
                }
            }
            if let Some(added) = m.get("toolsAdded").and_then(Value::as_array) {
                for t in added {
                    // The last declaration of a name is the newest writer's.
                    let name = t.get_str("name");
                    tools.retain(|(_, old)| old.get_str("name") != name);
                    tools.push((n, t.clone()));
                }
            }
        }
        Stored {
            section_maps,
            tools,
        }
    }
}

/// The texts that mark a release: the preamble, the docs and tools lines (`docsTail`: 0.99
/// named MCP and codemode in the docs line, so it tells 0.86–0.87 from 1.x).
fn marks_of(f: &Fingerprints) -> Vec<&str> {
    f.marks.iter().map(|(_, t)| t.as_str()).collect()
}

/// The newest writer's texts: the last stored section map that reads as some candidate's
/// (a later patch may hold only sections no release marks, such as the cwd).
fn newest_sections(
    section_maps: &[(u32, Vec<String>)],
    loaded: &[(PiVersion, &Fingerprints)],
) -> Option<(u32, Vec<String>)> {
    section_maps
        .iter()
        .rev()
        .find(|(_, texts)| {
            loaded.iter().any(|(_, f)| {
                marks_of(f)
                    .iter()
                    .any(|m| texts.iter().any(|t| t.contains(m)))
            })
        })
        .or(section_maps.first())
        .cloned()
}

/// The refinement as it reads the stored texts: the candidates' fingerprints, the releases
/// ruled out (with why) and those whose sections the session holds.
struct Refinement<'f> {
    loaded: Vec<(PiVersion, &'f Fingerprints)>,
    ruled_out: Vec<(PiVersion, Evidence)>,
    matched_sections: Vec<PiVersion>,
}

impl Refinement<'_> {
    /// The sections stored on line `n`: each candidate reads as them or is ruled out.
    fn read_sections(&mut self, n: u32, texts: &[String]) {
        let has = |m: &str| texts.iter().any(|t| t.contains(m));
        // Per mark, the releases whose text of it the sections hold (none: the section is not
        // there, or is custom; that mark says nothing).
        let present: Vec<Vec<PiVersion>> = MARKS
            .iter()
            .map(|k| {
                self.loaded
                    .iter()
                    .filter(|(_, f)| f.mark(k).is_some_and(has))
                    .map(|(v, _)| *v)
                    .collect()
            })
            .collect();
        for (v, f) in &self.loaded {
            let marks = marks_of(f);
            if marks.is_empty() {
                continue;
            }
            // It reads as `v`'s when some mark is v's and no mark the sections hold is another
            // release's text where v's differs.
            let contradicted = MARKS
                .iter()
                .zip(&present)
                .any(|(k, p)| !p.is_empty() && !p.contains(v) && f.mark(k).is_some());
            if !contradicted && marks.iter().any(|m| has(m)) {
                self.matched_sections.push(*v);
            } else {
                self.ruled_out.push((
                    *v,
                    Evidence {
                        line: Some(n),
                        seen: None,
                        fact: format!("its sections do not read as pi {v} writes them"),
                    },
                ));
            }
        }
    }

    /// The stored built-in tools: a candidate whose own declaration differs is ruled out.
    fn read_tools(&mut self, tools: &[(u32, Value)]) {
        // A built-in tool's stored text: the releases whose own definition it is.
        for (n, tool) in tools {
            let Some(name) = tool.get_str("name") else {
                continue;
            };
            let stored = fingerprints::tool_digest(
                tool.get_str("description").unwrap_or(""),
                tool.get("parameters"),
            );
            let own: Vec<PiVersion> = self
                .loaded
                .iter()
                .filter(|(_, f)| f.tool(name) == Some(stored.as_str()))
                .map(|(v, _)| *v)
                .collect();
            if own.is_empty() {
                continue; // an extension's tool, or an edited one: it says nothing of the release
            }
            for (v, f) in &self.loaded {
                if !own.contains(v) && f.tool(name).is_some() {
                    self.ruled_out.push((
                        *v,
                        Evidence {
                            line: Some(*n),
                            seen: None,
                            fact: format!(
                                "its `{name}` tool reads as pi {} declare{} it, not as pi {v} does",
                                own.iter()
                                    .map(|o| o.as_str())
                                    .collect::<Vec<_>>()
                                    .join(", "),
                                if own.len() == 1 { "s" } else { "" }
                            ),
                        },
                    ));
                }
            }
        }
    }

    /// The candidates left once sections, then tools, rule theirs out; the newest is chosen.
    fn narrow(&self, d: &mut Detection) {
        // Each kind of fact narrows on its own, and only where it leaves a candidate: sections that
        // read as no release (a custom prompt) or tools as no release say nothing.
        let mut left = d.candidates.clone();
        let mut seen_facts: Vec<String> = Vec::new();
        for kind in [true, false] {
            let facts: Vec<&(PiVersion, Evidence)> = self
                .ruled_out
                .iter()
                .filter(|(_, e)| e.fact.starts_with("its sections") == kind)
                .collect();
            let narrowed: Vec<PiVersion> = left
                .iter()
                .copied()
                .filter(|v| !facts.iter().any(|(r, _)| r == v))
                .collect();
            if facts.is_empty() {
                continue;
            }
            if narrowed.is_empty() {
                d.evidence.push(Evidence {
                    line: facts[0].1.line,
                    seen: None,
                    fact: format!(
                        "its {} read as no supported release between {} and {} writes them (a custom prompt or edited tools)",
                        if kind { "sections" } else { "tools" },
                        d.at_least.unwrap_or("0.86.0"),
                        d.version
                    ),
                });
                continue;
            }
            for (_, e) in facts {
                if !seen_facts.contains(&e.fact) {
                    seen_facts.push(e.fact.clone());
                    d.evidence.push(e.clone());
                }
            }
            left = narrowed;
        }
        d.candidates = left;
        d.version = *d.candidates.last().unwrap();
    }

    /// The sections that read as the chosen release (stored on `sections_line`), and how sure.
    fn conclude(&self, d: &mut Detection, sections_line: Option<u32>) {
        if self.matched_sections.contains(&d.version) {
            d.evidence.push(Evidence {
                line: sections_line,
                seen: None,
                fact: format!("its sections read as pi {} writes them", d.version),
            });
        }
        if d.candidates.len() == 1 && !d.unsupported_writer {
            d.certainty = Certainty::Certain;
        } else if let Some(a) = d.ambiguity() {
            d.evidence.push(Evidence {
                line: None,
                seen: None,
                fact: a,
            });
        }
    }
}

/// What later releases write that an older one may not know, with the release that began it.
const LATER_ENTRY_TYPES: [(&str, &str); 2] = [("usage", "0.86.0"), ("context_edit", "0.87.0")];
const LATER_ROLES: [(&str, &str); 1] = [("system", "0.86.0")];

/// Every entry type, message role or field of the session that `pi`'s release does not know, as
/// a warning with its line, naming the release that writes it where known: the release ignores
/// them, so the rebuilt request does not have them either.
pub fn unknown_in_session(
    pi: &super::Pi,
    file: &crate::session::SessionFile,
) -> Vec<crate::diagnostics::Diagnostic> {
    use crate::diagnostics::Diagnostic;
    let since = |table: &[(&str, &'static str)], what: &str| {
        table
            .iter()
            .find(|(k, _)| *k == what)
            .map(|(_, v)| format!(" (pi {v} and later write them)"))
            .unwrap_or_default()
    };
    // (what, consequence, lines), in first-seen order.
    let mut found: Vec<(String, &'static str, Vec<u32>)> = Vec::new();
    let mut note = |what: String, consequence: &'static str, line: u32| match found
        .iter_mut()
        .find(|(w, _, _)| *w == what)
    {
        Some((_, _, lines)) => lines.push(line),
        None => found.push((what, consequence, vec![line])),
    };
    for e in &file.entries {
        let kind = e.kind();
        if kind.is_empty() {
            continue; // an untyped entry is reported by the session reader
        }
        if !pi.rules.entry_types.contains(&kind) {
            note(
                format!("`{kind}` entries{}", since(&LATER_ENTRY_TYPES, kind)),
                "it ignores them",
                e.line,
            );
            continue;
        }
        if kind == "message" {
            if let Some(role) = e.value.get("message").and_then(|m| m.get_str("role")) {
                if !pi.rules.message_roles.contains(&role) {
                    note(
                        format!("messages with role `{role}`{}", since(&LATER_ROLES, role)),
                        "it leaves them out of the context",
                        e.line,
                    );
                }
            }
        }
        if kind == "compaction" && !pi.rules.transcript && e.value.get("systemMessage").is_some() {
            note(
                "a compaction's `systemMessage` checkpoint (pi 0.86.0 and later write it)".into(),
                "it ignores the field",
                e.line,
            );
        }
    }
    found
        .into_iter()
        .map(|(what, consequence, lines)| {
            let shown: Vec<String> = lines.iter().take(5).map(u32::to_string).collect();
            let more = if lines.len() > 5 {
                format!(" and {} more", lines.len() - 5)
            } else {
                String::new()
            };
            Diagnostic::warning(
                &file.name,
                lines.first().copied(),
                format!(
                    "pi {} does not know {what}: {consequence} (line{} {}{more})",
                    pi.version,
                    if lines.len() == 1 { "" } else { "s" },
                    shown.join(", ")
                ),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(text: &str) -> SourceText {
        SourceText {
            name: "s.jsonl".into(),
            text: text.into(),
        }
    }

    const HEADER: &str = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-11-25T10:00:00.000Z","cwd":"/p"}"#;

    #[test]
    fn system_messages_prove_a_transcript_release() {
        let text = format!(
            "{HEADER}\n{}\n{}\n",
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-11-25T10:00:01.000Z","message":{"role":"system","content":"","sections":{"preamble":"You are X"},"timestamp":1}}"#,
            r#"{"type":"message","id":"b","parentId":"a","timestamp":"2026-11-25T10:00:02.000Z","message":{"role":"user","content":"hi","timestamp":2}}"#
        );
        let d = detect(&src(&text)).expect("detection");
        assert_eq!(d.version, PiVersion::V1_6_0);
        assert_eq!(d.at_least, Some("0.86.0"));
        assert_eq!(d.certainty, Certainty::Likely);
        assert_eq!(d.evidence[0].line, Some(2));
        let mut refined = d.clone();
        refine(&mut refined, &src(&text));
        // "You are X" is no supported release's text (a custom prompt): nothing is concluded.
        assert_eq!(refined.certainty, Certainty::Likely);
        assert_eq!(refined.candidates, d.candidates);
        assert!(refined
            .evidence
            .iter()
            .any(|e| e.fact.contains("read as no supported release")));
        // 1.5.2 and 1.6.0 remain: the choice is offered.
        assert!(refined.ambiguity().unwrap().contains("--pi 1.5.2"));
    }

    /// The facts are what pi reads, not how a line spells them: a system message whose role
    /// is written with an escape (`"\u0073ystem"`, JSON for "system") is one, and the date is
    /// the entry's own, not a later timestamp in its message.
    #[test]
    fn facts_are_read_from_the_parsed_entries() {
        let text = format!(
            "{HEADER}\n{}\n{}\n",
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-11-25T10:00:01.000Z","message":{"role":"\u0073ystem","content":"","sections":{"preamble":"You are X"},"timestamp":1}}"#,
            r#"{"type":"message","id":"b","parentId":"a","timestamp":"2026-11-25T10:00:02.000Z","message":{"role":"user","content":"hi","details":{"timestamp":"2027-01-01"},"timestamp":2}}"#
        );
        let d = detect(&src(&text)).expect("detection");
        assert_eq!(d.at_least, Some("0.86.0"));
        assert_eq!(d.evidence[0].line, Some(2));
        let mut r = Reading::default();
        let lines = crate::session::read_lines(&src(&text));
        for (_, line, value) in lines_with_values(&text, &lines, u32::MAX) {
            r.read_date(line, value);
        }
        assert_eq!(r.last_time.as_deref(), Some("2026-11-25"));
        // A line that does not parse: the last timestamp its text names.
        r.read_date(r#"{"timestamp":"2026-12-01T00:00:00Z", oops"#, None);
        assert_eq!(r.last_time.as_deref(), Some("2026-12-01"));
        // A timestamp that is no date says nothing.
        r.read_date(
            "",
            crate::js::parse(r#"{"timestamp":"not a date"}"#)
                .ok()
                .as_ref()
                .and_then(Value::as_object),
        );
        assert_eq!(r.last_time.as_deref(), Some("2026-12-01"));
    }

    #[test]
    fn prompts_without_system_messages_prove_0_85() {
        let text = format!(
            "{}\n{}\n",
            HEADER.replace("2026-11-25", "2026-09-01"),
            r#"{"type":"message","id":"b","parentId":null,"timestamp":"2026-09-01T10:00:02.000Z","message":{"role":"user","content":"hi","timestamp":2}}"#
        );
        let d = detect(&src(&text)).expect("detection");
        assert_eq!(d.version, PiVersion::V0_85_1);
        assert_eq!(d.certainty, Certainty::Certain);
        assert!(d
            .evidence
            .iter()
            .any(|e| e.fact.contains("before pi 0.86.0")));
        assert_eq!(detect(&src("")), None);
    }

    /// A session begun by pi 0.85 (dated 2026-09-01), continued on 2026-10-25 (after 1.4.0, before
    /// 1.5.0) and again on 2026-11-25: each run's call is its own release's.
    fn lived_through_upgrades() -> String {
        let at = |d: &str, t: u32| format!("{d}T10:00:{t:02}.000Z");
        let line = |id: &str, parent: &str, ts: String, m: &str| {
            format!(
                r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"{ts}","message":{m}}}"#
            )
        };
        let system = r#"{"role":"system","content":"","sections":{"cwd":"Current working directory: /p"},"timestamp":1}"#;
        let user = r#"{"role":"user","content":"hi","timestamp":2}"#;
        let answer = r#"{"role":"assistant","content":[{"type":"text","text":"ok"}],"provider":"p","model":"m","stopReason":"stop","timestamp":3}"#;
        [
            HEADER.replace("2026-11-25", "2026-09-01"),
            line("u1", "null", at("2026-09-01", 1), user),
            line("a1", "\"u1\"", at("2026-09-01", 2), answer),
            line("s2", "\"a1\"", at("2026-10-25", 1), system),
            line("u2", "\"s2\"", at("2026-10-25", 2), user),
            line("a2", "\"u2\"", at("2026-10-25", 3), answer),
            line("s3", "\"a2\"", at("2026-11-25", 1), system),
            line("u3", "\"s3\"", at("2026-11-25", 2), user),
            line("a3", "\"u3\"", at("2026-11-25", 3), answer),
        ]
        .join("\n")
    }

    #[test]
    fn each_past_call_is_rebuilt_by_the_release_of_its_run() {
        let text = lived_through_upgrades();
        let session = src(&text);
        let lines = crate::session::read_lines(&session);
        let system_lines = system_message_lines(&lines);
        assert_eq!(system_lines, vec![4, 7]);
        let chosen = choose(&Inputs {
            session: Some(session.clone()),
            ..Default::default()
        });
        assert_eq!(
            (chosen.version, chosen.reason),
            (PiVersion::V1_6_0, Reason::Detected)
        );
        let for_call = |line: u32, chosen: Choice| {
            choose_for_call(chosen, &system_lines, line, |upto| {
                detect_upto(&session, &lines, upto)
            })
        };
        // The first run wrote no system message: pi 0.85, certain, from lines 1–3.
        let first = for_call(3, chosen.clone());
        assert_eq!(
            (first.version, first.reason),
            (PiVersion::V0_85_1, Reason::Call)
        );
        let run = first.call_run.clone().expect("the call's run");
        assert_eq!(
            (run.last_line, run.next_run_line, run.later),
            (3, 4, PiVersion::V1_6_0)
        );
        assert!(
            first.explain().contains("as it stood then (lines 1–3)"),
            "{}",
            first.explain()
        );
        // The second run is dated before 1.5.0 was out: 1.4.0 at the latest.
        let second = for_call(6, chosen.clone());
        assert_eq!(
            (second.version, second.reason),
            (PiVersion::V1_4_0, Reason::Call)
        );
        // The last run's call is the session's choice; a release given is never overridden.
        assert_eq!(for_call(9, chosen.clone()), chosen);
        let given = Choice {
            version: PiVersion::V1_5_0,
            reason: Reason::Given,
            ..chosen
        };
        assert_eq!(for_call(3, given.clone()), given);
    }

    #[test]
    fn a_given_release_older_than_the_session_is_said_first() {
        let text = format!(
            "{HEADER}\n{}\n",
            r#"{"type":"context_edit","id":"e","parentId":null,"timestamp":"2026-11-25T10:00:02.000Z","targetId":"x","replacement":null}"#
        );
        let inputs = Inputs {
            session: Some(src(&text)),
            pi: Some(PiVersion::V0_85_1),
            ..Default::default()
        };
        let c = choose(&inputs);
        assert_eq!((c.version, c.reason), (PiVersion::V0_85_1, Reason::Given));
        let w = c.newer_session_warning().expect("a warning");
        assert!(
            w.starts_with("pi 0.87.0 or later wrote this session (a context_edit entry, line 2)"),
            "{w}"
        );
        let auto = choose(&Inputs { pi: None, ..inputs });
        assert_eq!(
            (auto.version, auto.reason),
            (PiVersion::V1_6_0, Reason::Detected)
        );
        assert_eq!(auto.newer_session_warning(), None);
    }

    #[test]
    fn a_timestamp_with_multi_byte_characters_is_read_without_a_panic() {
        // A timestamp whose tenth byte falls inside a character (here "é", two bytes at 9..11;
        // and a four-byte emoji): detection reads the first ten characters, no byte slice.
        for stamp in ["2026-09-0é1T10:00:00Z", "2026-09-😀", "é", ""] {
            let text = format!(
                "{}\n{}\n",
                HEADER.replace("2026-11-25T10:00:00.000Z", stamp),
                r#"{"type":"message","id":"b","parentId":null,"timestamp":"2026-09-01T10:00:02.000Z","message":{"role":"user","content":"hi","timestamp":2}}"#
            );
            let d = detect(&src(&text)).expect("detection");
            assert_eq!(d.version, PiVersion::V0_85_1, "{stamp}");
        }
        // An unterminated timestamp at the end of a line that is not JSON: nothing is proved.
        let d = detect(&src("{\"timestamp\":\"2026-09-0é")).expect("detection");
        assert_eq!(d.certainty, Certainty::Assumed);
    }
}

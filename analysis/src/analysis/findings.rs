//! The seed article's conclusions as automatic, numbered checks on the user's own data. Each
//! check reports only when it applies, with the user's numbers (UTF-16 units, like the stats),
//! the stage it concerns and a selection key for the view.
//!
//! Checks read the stage data (`Parts`, `Stats`) and the trace's events by kind and pi source
//! location, never by their wording. Each check is a module of its own (`findings/NAME.rs`, one
//! `check` function); [`CHECKS`] runs them in the order their findings are numbered, over what
//! several of them read ([`Ctx`]).

use crate::analysis::usage::UsagePoint;
use crate::assemble::{Assembly, Parts};
use crate::js::{utf16_len, Value};
use crate::model::Model;
use crate::pi::Pi;
use crate::trace::{Event, EventKind, StageId};
use crate::AssemblyStats;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    #[default]
    Info,
    Notice,
    Warning,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Notice => "notice",
            Severity::Warning => "warning",
        }
    }
}

crate::report::wire::wire_struct! {
    /// A notable property of the request: where the characters go, what breaks caching, ...
    pub struct Finding {
        /// Stable id (`tool-schemas`, `context-file-shadowed`, ...).
        pub id: String = "id",
        /// 1-based position in the list.
        pub number: usize = "number",
        pub severity: Severity = "severity",
        pub title: String = "title",
        /// The numbers behind it.
        pub detail: String = "detail",
        pub stage: Option<StageId> = "stage",
        /// A selection key: `tool:<name>`, `section:<i>`, `entry:<id>`, `path:<json path>`.
        pub subject: Option<String> = "subject",
    }
}

/// `12345` → `12,345`.
pub fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `hay.contains(needle)`, found by jumping to each occurrence of the needle's ASCII byte at
/// `anchor` (a rare one: the jump is a memchr) and comparing there.
fn contains_at_anchor(hay: &str, needle: &str, anchor: usize) -> bool {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    let mut from = 0;
    while let Some(i) = hay[from..].find(n[anchor] as char) {
        let at = from + i;
        if at >= anchor && h[at - anchor..].starts_with(n) {
            return true;
        }
        from = at + 1;
    }
    false
}

/// `part / whole` as a percentage with one decimal.
pub fn pct(part: usize, whole: usize) -> String {
    if whole == 0 {
        return "0%".into();
    }
    format!("{}%", fixed1(part as f64 * 100.0 / whole as f64))
}

/// A non-negative number with one decimal (`58.3`), without the float formatter (its code is
/// a good part of the wasm's size budget).
pub fn fixed1(x: f64) -> String {
    let tenths = (x * 10.0).round().max(0.0) as u64;
    format!("{}.{}", tenths / 10, tenths % 10)
}

fn events(a: &Assembly, stage: StageId) -> impl Iterator<Item = &Event> {
    a.trace
        .stage(stage)
        .into_iter()
        .flat_map(|s| s.events.iter())
}

fn all_events(a: &Assembly) -> impl Iterator<Item = (StageId, &Event)> {
    a.trace
        .stages
        .iter()
        .flat_map(|s| s.events.iter().map(move |e| (s.id, e)))
}

fn at(e: &Event, sources: &[&str]) -> bool {
    e.pi_source.is_some_and(|s| sources.contains(&s))
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

struct List {
    items: Vec<Finding>,
}

impl List {
    fn push(
        &mut self,
        id: &'static str,
        severity: Severity,
        title: impl Into<String>,
        detail: impl Into<String>,
        stage: Option<StageId>,
        subject: Option<String>,
    ) {
        let number = self.items.len() + 1;
        self.items.push(Finding {
            id: id.to_string(),
            number,
            severity,
            title: title.into(),
            detail: detail.into(),
            stage,
            subject,
        });
    }
}

/// The entry id of LLM message `i`, as a selection key.
fn entry_subject(a: &Assembly, map: &[usize], i: usize) -> Option<String> {
    match crate::provenance::message_origin(a, map, i) {
        crate::provenance::MessageOrigin::Session {
            entry_id: Some(id), ..
        } => Some(format!("entry:{id}")),
        _ => None,
    }
}

// Rule locations (pi sources) the checks look for.
pub(crate) const THINKING_TO_TEXT: &[&str] = &[
    "AI/api/transform-messages.js:87",
    "AI/api/anthropic-messages.js:1010",
    "AI/api/google-shared.js:172",
    "AI/api/openai-completions.js:983",
];
pub(crate) const THINKING_DROPPED: &[&str] = &[
    "AI/api/transform-messages.js:75",
    "AI/api/openai-completions.js:1002",
    "AI/api/openai-responses-shared.js:138",
    "AI/api/bedrock-converse-stream.js:802",
    "1.6.0/AI/api/transform-messages.js:91",
];
const SIGNATURES_STRIPPED: &[&str] = &[
    "AI/api/transform-messages.js:95",
    "AI/api/transform-messages.js:103",
];
pub(crate) const TOOL_NAME_RENAMES: &[&str] = &[
    "AI/api/anthropic-messages.js:1027",
    "AI/api/anthropic-messages.js:1127",
];
/// Renames that repeat another one (the result side of a tool-call id) or are not ids of calls.
pub(crate) const RENAME_ECHOES: &[&str] = &[
    "AI/api/transform-messages.js:60",
    "AI/api/openai-responses-shared.js:153",
];
const SYNTHETIC: &[&str] = &[
    "AI/api/transform-messages.js:134",
    "AI/api/openai-completions.js:919",
    "AI/api/openai-completions.js:1108",
    "AI/api/openai-completions.js:1132",
    "AI/api/anthropic-messages.js:1093",
    "AI/api/anthropic-messages.js:104",
    "AI/api/google-shared.js:211",
    "AI/api/google-shared.js:240",
    "AI/api/mistral-conversations.js:694",
    "AI/api/openai-responses-shared.js:43",
];
const MAX_TOKENS_CLAMP: &str = "AI/api/simple-options.js:4";
const THINKING_CLAMP: &str = "AI/models.js:563";
const ERRORED_DROPPED: &str = "AI/api/transform-messages.js:159";
const CACHE_GAPS: &[&str] = &[
    "AI/api/anthropic-messages.js:837",
    "AI/api/anthropic-messages.js:1067",
];

/// Runs every check on `a`.
/// What every check reads: the assembly and what several of them derive from it.
struct Ctx<'a> {
    a: &'a Assembly,
    pi: &'a Pi,
    p: &'a Parts,
    map: &'a [usize],
    model: Option<&'a Model>,
    /// The request's provider, protocol and model id.
    current: Option<(String, String, String)>,
    /// 0.86 on, system prompt updates kept in place come later, with the conversation: not
    /// part of the fixed prefix.
    updates: usize,
    /// The usage timeline of the session's calls.
    timeline: &'a [UsagePoint],
}

/// A check: adds its findings, numbered in the order the registry runs them.
type Check = fn(&Ctx, &mut List);

/// The checks, in the order their findings are numbered (one module each).
const CHECKS: &[Check] = &[
    tool_schemas::check,
    transcript_tools::check,
    skills::check,
    context_files::check,
    custom_prompt::check,
    transcript_system::check,
    thinking_clamp::check,
    user_text::check,
    thinking_replay::check,
    renamed_ids::check,
    synthetic::check,
    images::check,
    max_tokens::check,
    window::check,
    undefined_tools::check,
    errored_turns::check,
    cache_prefix::check,
    cache_markers::check,
    cache_breaks::check,
    compaction::check,
    off_branch::check,
];

pub fn findings(a: &Assembly) -> Vec<Finding> {
    // Without the release's data nothing was assembled.
    let Some(pi) = a.pi.as_ref() else {
        return Vec::new();
    };
    let p = &a.parts;
    let model = p.model_choice.model.as_ref();
    let cx = Ctx {
        a,
        pi,
        p,
        map: a.agent_indices(),
        model,
        current: model.map(|m| {
            (
                m.provider().to_string(),
                m.api().to_string(),
                m.id().to_string(),
            )
        }),
        updates: p
            .sent_system
            .iter()
            .flat_map(|x| x.messages.iter())
            .filter(|m| m.update)
            .map(|m| m.end - m.start)
            .sum(),
        timeline: crate::analysis::derived::timeline(a),
    };
    let mut list = List { items: Vec::new() };
    for check in CHECKS {
        check(&cx, &mut list);
    }
    list.items
}

fn takes(n: usize) -> &'static str {
    if n == 1 {
        "takes"
    } else {
        "take"
    }
}

fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

mod cache_breaks;
mod cache_markers;
mod cache_prefix;
mod compaction;
mod context_files;
mod custom_prompt;
mod errored_turns;
mod images;
mod max_tokens;
mod off_branch;
mod renamed_ids;
mod skills;
mod synthetic;
mod thinking_clamp;
mod thinking_replay;
mod tool_schemas;
mod transcript_system;
mod transcript_tools;
mod undefined_tools;
mod user_text;
mod window;

#[path = "findings_transcript.rs"]
mod transcript;

#[cfg(test)]
#[path = "findings_tests.rs"]
mod tests;

//! 0.86 on: the system messages as the adapter sent them. pi's context holds the system prompt
//! only as `role: "system"` messages; each adapter either collapses them into one leading
//! message (the replay, `collapseSystemMessages`) or keeps them where they are, the first as the
//! whole prompt (`getSystemMessageText`) and each later one as an update
//! (`renderSystemMessageUpdate`: `Updated system prompt section "x": …`). Which one a request did
//! is read from its body (the update texts are in it only when kept in place), so the analysis
//! does not depend on each adapter's flags.

use crate::js::{utf16_len, Value};
use crate::pi::Pi;
use crate::prompt::sections::{self, BuiltSection};
use crate::prompt::{Stored, SystemPrompt};

/// Where the system messages went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// One leading system message: the replay of all of them (collapsed, or there was only one
    /// to begin with).
    Leading,
    /// Kept in place: the first (when it opens the context) as the whole prompt, each later one
    /// as an update where it was stored.
    InPlace,
    /// Sent as stored (pi-messages sends the transcript itself): each system message where it
    /// is, its content and every section a string of its own.
    Raw,
}

impl Placement {
    pub fn as_str(self) -> &'static str {
        match self {
            Placement::Leading => "leading",
            Placement::InPlace => "in-place",
            Placement::Raw => "raw",
        }
    }
}

/// One system message as sent: its text's range in [`SentSystem::prompt`].
#[derive(Clone, Debug, PartialEq)]
pub struct SentMessage {
    /// The system message of `Parts.llm_messages` it renders; `None` for the collapsed head
    /// (the replay of all of them).
    pub llm_index: Option<usize>,
    /// UTF-16 range of its text in the sent prompt.
    pub start: usize,
    pub end: usize,
    /// Rendered as an update (`Updated system prompt section …`), not as a whole prompt.
    pub update: bool,
    /// Where it was stored (`None` for the collapsed head, whose spans say it per section).
    pub stored: Option<Stored>,
    /// Its text as sent.
    pub text: String,
    /// The strings of the body that carry it, `(start, end, text)` with UTF-16 ranges of the
    /// sent prompt: the whole text, or for [`Placement::Raw`] its content and each section.
    pub strings: Vec<(usize, usize, String)>,
}

/// The system prompt a request carries, as sent.
#[derive(Clone, Debug, PartialEq)]
pub struct SentSystem {
    pub placement: Placement,
    /// The texts sent, one after the other (no separator between two messages), with spans.
    pub prompt: SystemPrompt,
    pub messages: Vec<SentMessage>,
}

/// Whether the body (JSON text) holds `text` as (part of) a string, as `JSON.stringify` writes
/// it after the adapters' `sanitizeSurrogates`.
pub fn body_holds(body: &str, text: &str) -> bool {
    if text.is_empty() {
        return false;
    }
    let json = Value::str(crate::js::sanitize_surrogates(text).into_owned()).to_json();
    let inner = &json[1..json.len() - 1];
    body.contains(inner)
}

/// The system messages of `llm` (pi's messages after `convertToLlm`) as the request `body`
/// carries them. `origins[i]` says where message `i` was stored; `replay` is the collapsed
/// prompt with its spans; `fresh` the sections this run builds (to split a section into its
/// pieces).
pub fn sent_system(
    pi: &Pi,
    llm: &[Value],
    origins: &[Stored],
    replay: &SystemPrompt,
    fresh: &[BuiltSection],
    body: &str,
) -> SentSystem {
    let origin = |i: usize| origins.get(i).cloned().unwrap_or(Stored::ThisRun);
    let mut prompt = SystemPrompt::default();
    let mut messages = Vec::new();
    for (i, m) in llm.iter().enumerate() {
        if m.get_str("role") != Some("system") {
            continue;
        }
        let part = if i == 0 {
            sections::replayed(pi, &llm[..1], &[origin(0)], fresh)
        } else {
            sections::rendered_update(pi, m, &origin(i), fresh)
        };
        if part.text.is_empty() {
            continue;
        }
        let start = utf16_len(&prompt.text);
        prompt.append(&part);
        let end = utf16_len(&prompt.text);
        messages.push(SentMessage {
            llm_index: Some(i),
            start,
            end,
            update: i != 0,
            stored: Some(origin(i)),
            strings: vec![(start, end, part.text.clone())],
            text: part.text,
        });
    }
    // Kept in place, every update is in the body; collapsed, none is: one tells.
    let in_place = messages
        .iter()
        .find(|m| m.update)
        .is_some_and(|m| body_holds(body, &m.text));
    if in_place {
        return SentSystem {
            placement: Placement::InPlace,
            prompt,
            messages,
        };
    }
    // Neither the updates nor the replayed prompt: the transcript sent as it is stored?
    if !body_holds(body, &replay.text) {
        if let Some(raw) = raw(pi, llm, &origin, fresh, body) {
            return raw;
        }
    }
    let end = utf16_len(&replay.text);
    SentSystem {
        placement: Placement::Leading,
        prompt: replay.clone(),
        messages: if end > 0 {
            vec![SentMessage {
                llm_index: None,
                start: 0,
                end,
                update: false,
                stored: None,
                text: replay.text.clone(),
                strings: vec![(0, end, replay.text.clone())],
            }]
        } else {
            Vec::new()
        },
    }
}

/// The system messages sent as stored ([`Placement::Raw`]), when the body holds every string
/// of them.
fn raw(
    pi: &Pi,
    llm: &[Value],
    origin: &dyn Fn(usize) -> Stored,
    fresh: &[BuiltSection],
    body: &str,
) -> Option<SentSystem> {
    let mut prompt = SystemPrompt::default();
    let mut messages = Vec::new();
    for (i, m) in llm.iter().enumerate() {
        if m.get_str("role") != Some("system") {
            continue;
        }
        let (part, ranges) = sections::raw_message(pi, m, &origin(i), fresh);
        if part.text.is_empty() {
            continue;
        }
        let start = utf16_len(&prompt.text);
        prompt.append(&part);
        let units = crate::js::utf16_units(&part.text);
        let strings: Vec<(usize, usize, String)> = ranges
            .iter()
            .map(|&(a, b)| (a + start, b + start, crate::js::from_utf16(&units[a..b])))
            .collect();
        messages.push(SentMessage {
            llm_index: Some(i),
            start,
            end: utf16_len(&prompt.text),
            update: i != 0,
            stored: Some(origin(i)),
            text: part.text,
            strings,
        });
    }
    if messages.is_empty() {
        return None;
    }
    let held = messages
        .iter()
        .all(|m| m.strings.iter().all(|(_, _, t)| body_holds(body, t)));
    held.then_some(SentSystem {
        placement: Placement::Raw,
        prompt,
        messages,
    })
}

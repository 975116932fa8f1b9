//! The checks of releases with system messages in the transcript (0.86 on,
//! `Rules::transcript`): what the stored system messages, their replay and the tool declarations
//! cost. Each reads the stage data (`Parts`: the new system messages, where every agent message
//! is stored, the system messages as sent, the declarations) and the body, never an event's
//! wording.

use super::{pct, plural, thousands, List, Severity};
use crate::assemble::Assembly;
use crate::js::{utf16_len, Value};
use crate::pi::Pi;
use crate::prompt::Stored;
use crate::protocols::constrained_sampling::{make_strict_json_schema, Strict};
use crate::sent::Placement;
use crate::trace::{EventKind, StageId};
use crate::AssemblyStats;

/// Where the adapters record a schema made strict (`makeStrictJsonSchema`,
/// `getJsonSchemaToolParameters`: each adapter cites the line it calls).
const CONSTRAINED_SAMPLING: &str = "AI/api/constrained-sampling.js:";

fn is_system(m: &Value) -> bool {
    m.get_str("role") == Some("system")
}

/// The agent messages stored before this run (the session's, the compaction's checkpoint).
fn stored_before(a: &Assembly) -> Vec<Value> {
    let p = &a.parts;
    p.agent_messages
        .iter()
        .zip(&p.message_origins)
        .filter(|(_, o)| **o != Stored::ThisRun)
        .map(|(m, _)| m.clone())
        .collect()
}

fn names(m: &Value, key: &str) -> Vec<String> {
    m.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|t| t.get_str("name").map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// `tools`, `rules (removed)`: the sections a system message sets or removes.
fn section_changes(m: &Value) -> Vec<String> {
    m.get("sections")
        .and_then(Value::as_object)
        .map(|o| {
            o.iter()
                .map(|(k, v)| {
                    if v.is_null() {
                        format!("{k} (removed)")
                    } else {
                        k.to_string()
                    }
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `+grep −bash −edit`: a system message's tool changes.
fn tool_changes(m: &Value) -> String {
    let mut out: Vec<String> = names(m, "toolsAdded")
        .into_iter()
        .map(|n| format!("+{n}"))
        .collect();
    out.extend(
        names(m, "toolsRemoved")
            .into_iter()
            .map(|n| format!("−{n}")),
    );
    out.join(" ")
}

/// The first UTF-16 offset where `a` and `b` differ (the shorter one's length when one is a
/// prefix of the other).
fn first_difference(a: &str, b: &str) -> usize {
    let mut n = 0;
    for (x, y) in a.chars().zip(b.chars()) {
        if x != y {
            return n;
        }
        n += x.len_utf16();
    }
    n
}

/// The index of the sent prompt's span that holds UTF-16 offset `at`.
fn span_at(a: &Assembly, at: usize) -> Option<usize> {
    a.parts
        .system_prompt
        .sections
        .iter()
        .position(|s| s.start <= at && at < s.end)
}

/// The first span of section `name` in the sent prompt (its opening tag, or the preamble).
fn first_span_of(a: &Assembly, name: &str) -> Option<usize> {
    a.parts
        .system_prompt
        .sections
        .iter()
        .position(|s| s.name == name)
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn model_ref(a: &Assembly) -> String {
    a.parts
        .model_choice
        .model
        .as_ref()
        .map(|m| m.reference())
        .unwrap_or_else(|| "the model".into())
}

/// Tools sent with strict schemas, and what the rewrite costs (plain vs strict).
pub(super) fn strict_tools(a: &Assembly, pi: &Pi, list: &mut List) {
    let (Some(r), Some(s)) = (&a.request, a.stats()) else {
        return;
    };
    // The adapters record each schema they make strict: without one, nothing to measure (and
    // no body to search).
    let made_strict = a
        .trace
        .stages
        .iter()
        .flat_map(|st| st.events.iter())
        .any(|e| {
            e.kind == EventKind::Converted
                && e.pi_source
                    .is_some_and(|src| src.starts_with(CONSTRAINED_SAMPLING))
        });
    if !made_strict {
        return;
    }
    // (name, plain chars, strict chars)
    let mut strict: Vec<(String, usize, usize)> = Vec::new();
    for t in &a.parts.declared_tools {
        let wants = t
            .constrained_sampling
            .as_ref()
            .is_some_and(|c| c.get_str("type") == Some("json_schema"));
        if !wants {
            continue;
        }
        let Ok(schema) = make_strict_json_schema(&Strict::of(pi), &t.parameters) else {
            continue;
        };
        let (plain, rewritten) = (t.parameters.to_json(), schema.to_json());
        // Sent strict: the rewritten schema is in the body (and differs from the plain one).
        if plain != rewritten && r.body.contains(rewritten.as_str()) {
            strict.push((t.name.clone(), utf16_len(&plain), utf16_len(&rewritten)));
        }
    }
    if strict.is_empty() {
        return;
    }
    let plain: usize = strict.iter().map(|t| t.1).sum();
    let rewritten: usize = strict.iter().map(|t| t.2).sum();
    let extra = rewritten.saturating_sub(plain);
    strict.sort_by(|x, y| (y.2 - y.1).cmp(&(x.2 - x.1)).then(x.0.cmp(&y.0)));
    list.push(
        "strict-tools",
        Severity::Info,
        format!(
            "{} sent with strict schemas: {} chars more",
            plural(strict.len(), "tool", "tools"),
            thousands(extra)
        ),
        format!(
            "{} ask for strict sampling (constrainedSampling \"prefer\") and {} supports it, so pi rewrites their parameter schemas: every property required, each optional one as anyOf [its type, null], additionalProperties false. The schemas sent are {} chars instead of {} (+{}, ≈{} tokens at {} chars per token, on every call){}.",
            strict.iter().map(|t| t.0.as_str()).collect::<Vec<_>>().join(", "),
            model_ref(a),
            thousands(rewritten),
            thousands(plain),
            pct(extra, plain),
            thousands(s.tokens(extra)),
            crate::js::number_to_string(s.chars_per_token),
            strict
                .first()
                .map(|t| format!("; the most for {} (+{})", t.0, thousands(t.2 - t.1)))
                .unwrap_or_default()
        ),
        Some(StageId::BuildParams),
        strict.first().map(|t| format!("tool:{}", t.0)),
    );
}

/// Tools this run removes and declares again because the stored declaration differs from this
/// release's (another release's session, an edited definition).
pub(super) fn redeclared_tools(a: &Assembly, pi: &Pi, list: &mut List) {
    let p = &a.parts;
    let before = stored_before(a);
    let stored_tools = crate::transcript::current_tools(&before);
    // Where each tool was last declared.
    let declared_at = |name: &str| -> Option<String> {
        p.agent_messages
            .iter()
            .zip(&p.message_origins)
            .rfind(|(m, o)| {
                is_system(m)
                    && **o != Stored::ThisRun
                    && names(m, "toolsAdded").iter().any(|n| n == name)
            })
            .map(|(_, o)| o.label())
    };
    for m in &p.new_system_messages {
        let removed = names(m, "toolsRemoved");
        for added in m
            .get("toolsAdded")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(name) = added.get_str("name") else {
                continue;
            };
            if !removed.iter().any(|r| r == name) {
                continue;
            }
            let Some(old) = stored_tools
                .iter()
                .find(|t| t.get_str("name") == Some(name))
            else {
                continue;
            };
            let mut what = Vec::new();
            for (key, label) in [
                ("description", "description"),
                ("parameters", "parameter schema"),
                ("constrainedSampling", "constrainedSampling"),
            ] {
                let (x, y) = (old.get(key), added.get(key));
                if x.map(Value::to_json) != y.map(Value::to_json) {
                    let len = |v: Option<&Value>| match v {
                        Some(Value::String(s)) => utf16_len(s),
                        Some(v) => utf16_len(&v.to_json()),
                        None => 0,
                    };
                    what.push(format!(
                        "{label} {} → {} chars",
                        thousands(len(x)),
                        thousands(len(y))
                    ));
                }
            }
            let order: Vec<String> = p.declared_tools.iter().map(|t| t.name.clone()).collect();
            list.push(
                "tools-redeclared",
                Severity::Notice,
                format!("Tool {name} declared again: its stored definition differs"),
                format!(
                    "The session declares {name} as stored at {} and pi {} defines it differently ({}). pi removes it and declares it again in this run's system message, so it moves to the end of the tools sent ({}) and the tool part of the cached prefix changes. A session written by another pi release, whose built-in tools read differently, does this once for each such tool.",
                    declared_at(name).unwrap_or_else(|| "an earlier system message".into()),
                    pi.version,
                    what.join(", "),
                    order.join(", ")
                ),
                Some(StageId::InputAppended),
                Some(format!("tool:{name}")),
            );
        }
    }
}

/// A session without system messages (written before pi stored the prompt in the session):
/// this run declares the whole prompt and every tool at the resume point.
pub(super) fn resume_point(a: &Assembly, list: &mut List) {
    let p = &a.parts;
    let before = stored_before(a);
    if before.iter().any(is_system) {
        return;
    }
    let earlier = before.len();
    let Some(full) = p
        .new_system_messages
        .iter()
        .find(|m| m.get("sections").is_some())
    else {
        return;
    };
    if earlier == 0 {
        return;
    }
    let Some(sent) = &p.sent_system else {
        return;
    };
    let sections = full
        .get("sections")
        .and_then(Value::as_object)
        .map_or(0, |o| o.len());
    let tools = names(full, "toolsAdded").len()
        + p.new_system_messages
            .iter()
            .filter(|m| !std::ptr::eq(*m, full))
            .map(|m| names(m, "toolsAdded").len())
            .sum::<usize>();
    let chars = utf16_len(&crate::transcript::system_message_text(
        a.pi.as_ref().expect("a release"),
        full,
    ));
    let (severity, placed) = match sent.placement {
        Placement::Leading => (
            Severity::Info,
            format!(
                "{} takes no system messages mid-conversation, so pi sends it as the leading system prompt, before them.",
                model_ref(a)
            ),
        ),
        Placement::InPlace => (
            Severity::Notice,
            format!(
                "{} keeps system messages where they are, so it is sent after those {} messages, as an update (\"Updated system prompt section …\"): the model reads the old conversation with no system prompt before it.",
                model_ref(a),
                earlier
            ),
        ),
        Placement::Raw => (
            Severity::Notice,
            format!(
                "{}'s protocol sends the messages as they are stored, so it is sent after those {} messages, its sections as stored: the model reads the old conversation with no system prompt before it.",
                model_ref(a),
                earlier
            ),
        ),
    };
    list.push(
        "system-message-at-resume",
        severity,
        "The system prompt is declared at the resume point",
        format!(
            "This session has no system message: it was written before pi stored the system prompt in the session (pi 0.85 or older). pi now stores the whole prompt ({} chars, {}) and {} in a system message at the resume point, after the {} earlier messages. {placed} Every later request carries it from there.",
            thousands(chars),
            plural(sections, "section", "sections"),
            plural(tools, "tool declaration", "tool declarations"),
            thousands(earlier)
        ),
        Some(StageId::InputAppended),
        Some("section:0".into()),
    );
}

/// A patch to the system prompt: folded into the leading prompt (the cached prefix breaks where
/// it changes), or sent in place (the prefix before it holds).
pub(super) fn patched_prompt(a: &Assembly, pi: &Pi, list: &mut List) {
    let p = &a.parts;
    let Some(sent) = &p.sent_system else {
        return;
    };
    let before = stored_before(a);
    let stored: Vec<(&Value, &Stored)> = p
        .agent_messages
        .iter()
        .zip(&p.message_origins)
        .filter(|(m, o)| is_system(m) && **o != Stored::ThisRun)
        .collect();
    if stored.is_empty() {
        // A session without system messages: `system-message-at-resume`.
        return;
    }
    let ours: Vec<&Value> = p
        .new_system_messages
        .iter()
        .filter(|m| {
            m.get("sections").is_some()
                || m.get("toolsAdded").is_some()
                || m.get("toolsRemoved").is_some()
        })
        .collect();
    let patch = Patch { a, pi, list };
    match sent.placement {
        Placement::Leading => {
            if !ours.is_empty() {
                patch.folded(&before, &ours);
                return;
            }
            patch.replayed(&stored);
        }
        Placement::InPlace | Placement::Raw => patch.in_place(sent),
    }
}

/// What a system message changed: its sections and tools, `; `-separated.
fn changes(m: &Value) -> String {
    let mut parts = Vec::new();
    let s = section_changes(m);
    if !s.is_empty() {
        parts.push(format!("sections {}", s.join(", ")));
    }
    let t = tool_changes(m);
    if !t.is_empty() {
        parts.push(format!("tools {t}"));
    }
    parts.join("; ")
}

/// The assembly, pi and the findings a system prompt patch is reported against.
struct Patch<'a, 'l> {
    a: &'a Assembly,
    pi: &'a Pi,
    list: &'l mut List,
}

impl Patch<'_, '_> {
    /// This run's system messages (`ours`) folded into the leading prompt: where the prompt
    /// sent first differs from the previous request's (`before`: the replay without them).
    fn folded(self, before: &[Value], ours: &[&Value]) {
        let Patch { a, pi, list } = self;
        let p = &a.parts;
        // What the previous request sent: the replay without this run's messages.
        let previous = crate::transcript::current_system_message(pi, before)
            .map(|h| crate::transcript::system_message_text(pi, &h))
            .unwrap_or_default();
        let now = &p.system_prompt.text;
        let text_changed = previous != *now;
        let at = first_difference(&previous, now);
        let total = utf16_len(now);
        let span = (at < total).then(|| span_at(a, at)).flatten();
        let section = span.map(|i| {
            let sec = &p.system_prompt.sections[i];
            // A context file is a piece of project_context.
            if sec.name == "context-file" {
                format!("project_context ({})", sec.source)
            } else {
                sec.name.clone()
            }
        });
        let tools_changed = ours
            .iter()
            .any(|m| m.get("toolsAdded").is_some() || m.get("toolsRemoved").is_some());
        let s = a.stats();
        let tokens = |n: usize| s.map_or(0, |s| s.tokens(n));
        let mut detail = vec![format!(
            "pi stores what changed since the session's system messages as a new one ({}), and {} takes no system messages mid-conversation, so pi folds it into the one leading system prompt.",
            ours.iter().map(|m| changes(m)).collect::<Vec<_>>().join(" / "),
            model_ref(a)
        )];
        if text_changed {
            detail.push(format!(
                "The prompt sent differs from the previous request's from char {} on{}: the {} chars before it (≈{} tokens) can come from the provider's cache; {}the whole conversation cannot.",
                thousands(at),
                match &section {
                    Some(n) => format!(", in section {n}"),
                    None => ", where the previous one went on".to_string(),
                },
                thousands(at),
                thousands(tokens(at)),
                if total > at {
                    format!("the {} chars after it and ", thousands(total - at))
                } else {
                    String::new()
                }
            ));
        }
        if tools_changed {
            detail.push("The tool list sent changed too, and it is part of the prefix.".into());
        }
        list.push(
            "system-prompt-patched",
            Severity::Notice,
            if text_changed {
                format!(
                    "The system prompt changed at char {}: the cached prefix ends there",
                    thousands(at)
                )
            } else {
                "The tools changed: the cached prefix ends at the tool list".to_string()
            },
            detail.join(" "),
            Some(StageId::InputAppended),
            span.map(|i| format!("section:{i}")),
        );
    }

    /// Earlier patches among the `stored` system messages, replayed into the leading prompt:
    /// where the prompt sent differs from the session's first one.
    fn replayed(self, stored: &[(&Value, &Stored)]) {
        let Patch { a, pi, list } = self;
        let p = &a.parts;
        // Earlier patches folded into the head: the prompt sent is not the first one stored.
        let patches: Vec<&(&Value, &Stored)> = stored
            .iter()
            .skip(1)
            .filter(|(m, _)| m.get("sections").is_some())
            .collect();
        if patches.is_empty() {
            return;
        }
        let first = crate::transcript::system_message_text(pi, stored[0].0);
        let now = &p.system_prompt.text;
        if first == *now {
            return;
        }
        let at = first_difference(&first, now);
        list.push(
            "system-prompt-patched",
            Severity::Info,
            "The system prompt sent is not the session's first one",
            format!(
                "pi replays {} stored after the first ({}) into the one leading system prompt ({}): it differs from the first one ({}) from char {} on. The request that first sent each change could not reuse the cached prefix past it; this one repeats the replayed prompt, so its cache holds.",
                plural(patches.len(), "system message", "system messages"),
                patches
                    .iter()
                    .map(|(m, o)| format!("{}: {}", o.label(), changes(m)))
                    .collect::<Vec<_>>()
                    .join(" / "),
                model_ref(a),
                stored[0].1.label(),
                thousands(at)
            ),
            Some(StageId::InputAppended),
            span_at(a, at).map(|i| format!("section:{i}")),
        );
    }

    /// The system prompt updates `sent` in place (or raw, as stored) in the conversation.
    fn in_place(self, sent: &crate::sent::SentSystem) {
        let Patch { a, pi: _, list } = self;
        let updates: Vec<&crate::sent::SentMessage> =
            sent.messages.iter().filter(|m| m.update).collect();
        if updates.is_empty() {
            return;
        }
        let this_run = updates
            .iter()
            .filter(|m| m.stored.as_ref() == Some(&Stored::ThisRun))
            .count();
        let chars: usize = updates.iter().map(|m| m.end - m.start).sum();
        let k = sent
            .messages
            .iter()
            .position(|m| m.update)
            .and_then(|k| span_at(a, sent.messages[k].start));
        list.push(
            "system-prompt-patched",
            Severity::Info,
            format!(
                "{} sent where {} happened",
                plural(updates.len(), "system prompt update", "system prompt updates"),
                if updates.len() == 1 { "it" } else { "they" }
            ),
            format!(
                "{}, {} chars in all{}. The conversation before each update keeps its cached prefix; the model reads the earlier turns under the older prompt.",
                if sent.placement == Placement::Raw {
                    format!("{}'s protocol sends the system messages as they are stored: each later one at its position in the conversation, its sections as stored", model_ref(a))
                } else {
                    format!("{} keeps system messages in place: each later one is sent at its position in the conversation as \"Updated system prompt section …\" / \"Removed system prompt section …\"", model_ref(a))
                },
                thousands(chars),
                if this_run > 0 {
                    format!(", {} of them stored by this run", thousands(this_run))
                } else {
                    String::new()
                }
            ),
            Some(StageId::BuildParams),
            k.map(|i| format!("section:{i}")),
        );
    }
}

/// A section that a later system message added lands after the ones stored before it (pi's
/// replay appends it), where a fresh build would put it earlier.
pub(super) fn section_order(a: &Assembly, pi: &Pi, list: &mut List) {
    let p = &a.parts;
    if p.sent_system.as_ref().map(|s| s.placement) != Some(Placement::Leading) {
        return;
    }
    let Some(head) = crate::transcript::current_system_message(pi, &p.agent_messages) else {
        return;
    };
    let replay: Vec<String> = head
        .get("sections")
        .and_then(Value::as_object)
        .map(|o| o.keys().map(|k| k.to_string()).collect())
        .unwrap_or_default();
    let fresh: Vec<&str> = p.prompt_sections.iter().map(|b| b.name.as_str()).collect();
    let rank = |n: &str| fresh.iter().position(|f| *f == n);
    for (i, name) in replay.iter().enumerate() {
        let Some(r) = rank(name) else { continue };
        let after: Vec<&str> = replay[..i]
            .iter()
            .filter(|y| rank(y).is_some_and(|ry| ry > r))
            .map(String::as_str)
            .collect();
        if after.is_empty() {
            continue;
        }
        let span = first_span_of(a, name);
        let origin = span
            .and_then(|k| p.system_prompt.sections[k].stored.as_ref())
            .map(Stored::label)
            .unwrap_or_else(|| "a later system message".into());
        let fresh_next = fresh[r + 1..]
            .iter()
            .find(|f| replay.iter().any(|x| x == *f))
            .copied();
        list.push(
            "section-order",
            Severity::Info,
            format!("Section {name} comes after {}", and_list(&after)),
            format!(
                "{name} was added by a later system message ({origin}) and pi's replay puts a new section after every stored one, so the model reads it after {}{}. The order is stored in the session: it stays so on every later request.",
                and_list(&after),
                fresh_next
                    .map(|n| format!("; a new session would build it before {n}"))
                    .unwrap_or_default()
            ),
            Some(StageId::InputAppended),
            span.map(|k| format!("section:{k}")),
        );
    }
}

/// The compaction's checkpoint: the system message it stores stands in for the ones before it.
pub(super) fn checkpoint_note(a: &Assembly) -> Option<String> {
    let p = &a.parts;
    let (Some(cid), Some(file)) = (&p.session_context.compaction_id, &p.session) else {
        return None;
    };
    let entry = file.entries.iter().find(|e| e.id() == Some(cid.as_str()))?;
    let cp = entry.value.get("systemMessage")?;
    let sections = cp
        .get("sections")
        .and_then(Value::as_object)
        .map_or(0, |o| o.len());
    let tools = names(cp, "toolsAdded").len();
    // The system messages on the branch before the compaction.
    let at = p
        .session_context
        .path_indices
        .iter()
        .position(|&i| file.entries[i].id() == Some(cid.as_str()))?;
    let before = p.session_context.path_indices[..at]
        .iter()
        .filter(|&&i| file.entries[i].value.get("message").is_some_and(is_system))
        .count();
    Some(format!(
        " Its system-message checkpoint (the replayed prompt: {}, {}) stands in for the {} stored before it.",
        plural(sections, "section", "sections"),
        plural(tools, "tool", "tools"),
        plural(before, "system message", "system messages")
    ))
}

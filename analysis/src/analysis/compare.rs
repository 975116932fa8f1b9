//! Two assemblies of the same inputs under two protocols, side by side (the visualizer's compare
//! mode): where each kind of block lives in each body and how big it is (the seed's mapping
//! table), and what one drops, renames, converts or adds that the other does not.
//!
//! Placements come from [`crate::provenance`] (found in the actual bodies, not per protocol);
//! losses from the provenance, the LLM context and the two traces.

use crate::analysis::findings::thousands;
use crate::assemble::Assembly;
use crate::js::Value;
use crate::provenance::{param_class, Origin, Source};
use crate::trace::{EventKind, StageId};

/// The block kinds of the mapping table, in display order: (key, title).
pub const KINDS: [(&str, &str); 14] = [
    ("system-prompt", "System prompt"),
    ("tool-definitions", "Tool definitions"),
    ("user-text", "User text"),
    ("assistant-text", "Assistant text"),
    ("thinking", "Thinking"),
    ("thinking-signatures", "Thinking signatures"),
    ("tool-calls", "Tool calls"),
    ("tool-results", "Tool results"),
    ("images", "Images"),
    ("inserted", "pi's inserted text"),
    ("cache-markers", "Cache markers"),
    ("thinking-config", "Thinking level / config"),
    ("max-tokens", "Max tokens"),
    ("parameters", "Other parameters"),
];

/// Where a kind of block lives in one body.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Placement {
    /// Path patterns (`messages[*].content[*].text`; a single occurrence keeps its indices:
    /// `messages[0].content`), in order of first appearance.
    pub paths: Vec<String>,
    /// How many leaves.
    pub leaves: usize,
    /// UTF-16 units of its string leaves.
    pub chars: usize,
    /// For parameters: `path=value` of the leaves (`max_tokens=64000`).
    pub value: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MappingRow {
    pub kind: &'static str,
    pub title: &'static str,
    pub a: Placement,
    pub b: Placement,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Side {
    A,
    B,
    #[default]
    Both,
}

impl Side {
    pub fn as_str(self) -> &'static str {
        match self {
            Side::A => "a",
            Side::B => "b",
            Side::Both => "both",
        }
    }
}

/// Something one body loses, changes or adds.
#[derive(Clone, Debug, PartialEq)]
pub struct Loss {
    /// The body it happens in.
    pub side: Side,
    /// `dropped`, `converted`, `renamed`, `inserted`, `replaced`, `size`, `shape` (top-level
    /// fields one body has and the other not).
    pub kind: &'static str,
    /// What: a block kind key of [`KINDS`] or `messages`.
    pub what: &'static str,
    pub count: usize,
    pub detail: String,
}

/// Events of one side grouped by kind and rule.
pub use crate::trace::EventGroup;

#[derive(Clone, Debug, PartialEq)]
pub struct SideInfo {
    pub api: String,
    pub model: String,
    pub body_bytes: usize,
    pub body_chars: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub a: SideInfo,
    pub b: SideInfo,
    pub rows: Vec<MappingRow>,
    pub losses: Vec<Loss>,
    pub a_events: Vec<EventGroup>,
    pub b_events: Vec<EventGroup>,
}

/// The block kind of an origin (`None` for structure and other parameters).
pub fn kind_of(o: &Origin) -> Option<&'static str> {
    match &o.source {
        Source::SystemPrompt { sections } if !sections.is_empty() => Some("system-prompt"),
        Source::Tool { .. } => Some("tool-definitions"),
        Source::Message(m) => match (m.role.as_str(), m.part) {
            (_, "thinking") => Some("thinking"),
            (_, "signature") => Some("thinking-signatures"),
            (_, "tool-arguments" | "tool-call") => Some("tool-calls"),
            (_, "tool-result") => Some("tool-results"),
            (_, "image") => Some("images"),
            ("assistant", "text") => Some("assistant-text"),
            (_, "text") => Some("user-text"),
            _ => None,
        },
        Source::Inserted { .. } => Some("inserted"),
        Source::Parameter { name, .. } => match param_class(name) {
            "cache" => Some("cache-markers"),
            "thinking" => Some("thinking-config"),
            "max-tokens" => Some("max-tokens"),
            // The model id is the same on both sides; the containers are the blocks above.
            "model" => None,
            _ if matches!(
                name.as_str(),
                "messages" | "tools" | "system" | "input" | "contents"
            ) =>
            {
                None
            }
            _ => Some("parameters"),
        },
        _ => None,
    }
}

/// `messages.3.content.0.text` → `messages[*].content[*].text` (or with the indices kept).
pub fn pattern(path: &str, keep_indices: bool) -> String {
    let mut out = String::new();
    for part in path.split('.') {
        if !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()) {
            out.push('[');
            out.push_str(if keep_indices { part } else { "*" });
            out.push(']');
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(part);
        }
    }
    out
}

/// The value at a dot path.
pub fn value_at<'v>(v: &'v Value, path: &str) -> Option<&'v Value> {
    let mut cur = v;
    for part in path.split('.') {
        cur = match cur {
            Value::Object(o) => o.get(part)?,
            Value::Array(a) => a.get(part.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn placements(body: Option<&Value>, origins: &[Origin]) -> Vec<Placement> {
    let mut out = vec![Placement::default(); KINDS.len()];
    let mut concrete: Vec<Vec<String>> = vec![Vec::new(); KINDS.len()];
    let mut values: Vec<Vec<String>> = vec![Vec::new(); KINDS.len()];
    for o in origins {
        let Some(k) = kind_of(o) else { continue };
        let Some(i) = KINDS.iter().position(|x| x.0 == k) else {
            continue;
        };
        let is_leaf = body
            .and_then(|b| value_at(b, &o.path))
            .is_some_and(|v| !matches!(v, Value::Array(_) | Value::Object(_)));
        if !is_leaf {
            continue;
        }
        let p = &mut out[i];
        p.leaves += 1;
        p.chars += o.chars;
        let schema = matches!(&o.source, Source::Tool { part: "schema", .. });
        let cut = |s: String| if schema { schema_root(&s) } else { s };
        let pat = cut(pattern(&o.path, false));
        if !p.paths.contains(&pat) {
            p.paths.push(pat);
            concrete[i].push(cut(pattern(&o.path, true)));
        }
        if matches!(
            k,
            "cache-markers" | "thinking-config" | "max-tokens" | "parameters"
        ) && values[i].len() < 8
        {
            if let Some(v) = body.and_then(|b| value_at(b, &o.path)) {
                values[i].push(format!("{}={}", pattern(&o.path, true), v.to_json()));
            }
        }
    }
    for (i, p) in out.iter_mut().enumerate() {
        if p.leaves == 1 {
            p.paths = std::mem::take(&mut concrete[i]);
        }
        if !values[i].is_empty() {
            p.value = Some(values[i].join(", "));
        }
    }
    out
}

/// A tool schema leaf's pattern cut at the schema (`tools[*].input_schema.properties.x.type` →
/// `tools[*].input_schema`).
fn schema_root(p: &str) -> String {
    [
        ".properties",
        ".required",
        ".type",
        ".additionalProperties",
        ".$schema",
    ]
    .iter()
    .filter_map(|m| p.find(m))
    .min()
    .map_or_else(|| p.to_string(), |i| p[..i].to_string())
}

fn side_info(a: &Assembly) -> SideInfo {
    let m = a.parts.model_choice.model.as_ref();
    SideInfo {
        api: m.map(|m| m.api().to_string()).unwrap_or_default(),
        model: m.map(|m| m.reference()).unwrap_or_default(),
        body_bytes: a.request.as_ref().map_or(0, |r| r.body.len()),
        body_chars: a.request.as_ref().map_or(0, |r| r.accounting.body_chars),
    }
}

fn event_groups(a: &Assembly) -> Vec<EventGroup> {
    let adapter = a.trace.stages.iter().filter(|s| {
        matches!(
            s.id,
            StageId::TransformMessages | StageId::ConvertMessages | StageId::BuildParams
        )
    });
    crate::trace::group_events(
        adapter
            .flat_map(|s| &s.events)
            .filter(|e| e.kind != EventKind::Note),
    )
}

/// The LLM messages a body carries (any leaf of theirs).
fn messages_in(origins: &[Origin]) -> std::collections::BTreeSet<usize> {
    let mut set = std::collections::BTreeSet::new();
    for o in origins {
        match &o.source {
            Source::Message(m) => {
                set.insert(m.index);
            }
            Source::Messages(ms) => set.extend(ms.iter().map(|m| m.index)),
            _ => {}
        }
    }
    set
}

fn count_events(a: &Assembly, kind: EventKind, sources: &[&str]) -> usize {
    a.trace
        .stages
        .iter()
        .flat_map(|s| s.events.iter())
        .filter(|e| e.kind == kind && e.pi_source.is_some_and(|p| sources.contains(&p)))
        .count()
}

fn renamed_ids(a: &Assembly) -> usize {
    a.trace
        .stages
        .iter()
        .flat_map(|s| s.events.iter())
        .filter(|e| {
            e.kind == EventKind::Renamed
                && !e.pi_source.is_some_and(|p| {
                    crate::analysis::findings::TOOL_NAME_RENAMES.contains(&p)
                        || crate::analysis::findings::RENAME_ECHOES.contains(&p)
                })
        })
        .count()
}

/// Compares two assemblies of the same inputs (usually the same model under two protocols).
pub fn compare(a: &Assembly, b: &Assembly) -> Comparison {
    let s = Sides::new(a, b);
    let rows = s.mapping_rows();
    let mut losses: Vec<Loss> = Vec::new();
    s.dropped_messages(&mut losses);
    s.thinking_losses(&mut losses);
    s.signature_losses(&mut losses);
    s.renamed_id_losses(&mut losses);
    s.image_losses(&mut losses);
    s.inserted_text_losses(&mut losses);
    s.size_differences(&mut losses);
    s.shape_differences(&mut losses);
    s.cache_marker_losses(&mut losses);

    Comparison {
        a: s.ia,
        b: s.ib,
        rows,
        losses,
        a_events: event_groups(a),
        b_events: event_groups(b),
    }
}

/// What the steps of [`compare`] share: each side's assembly, origins, body, placements and info.
struct Sides<'x> {
    a: &'x Assembly,
    b: &'x Assembly,
    oa: &'x [Origin],
    ob: &'x [Origin],
    body_a: Option<&'x Value>,
    body_b: Option<&'x Value>,
    pa: Vec<Placement>,
    pb: Vec<Placement>,
    ia: SideInfo,
    ib: SideInfo,
}

impl<'x> Sides<'x> {
    /// Builds each side's origins, parsed body, placements and info.
    fn new(a: &'x Assembly, b: &'x Assembly) -> Self {
        let (oa, ob) = (a.provenance(), b.provenance());
        // The bodies as parsed JSON (where each origin's path leads).
        let (body_a, body_b) = (a.body_value(), b.body_value());
        let (pa, pb) = (placements(body_a, oa), placements(body_b, ob));
        let (ia, ib) = (side_info(a), side_info(b));
        Sides {
            a,
            b,
            oa,
            ob,
            body_a,
            body_b,
            pa,
            pb,
            ia,
            ib,
        }
    }

    /// The side's name in the losses' details: its API, or `both`.
    fn name(&self, s: Side) -> String {
        match s {
            Side::A => self.ia.api.clone(),
            Side::B => self.ib.api.clone(),
            Side::Both => "both".into(),
        }
    }

    /// One mapping row per kind of block: where it lives in each body.
    fn mapping_rows(&self) -> Vec<MappingRow> {
        KINDS
            .iter()
            .enumerate()
            .map(|(i, (k, t))| MappingRow {
                kind: k,
                title: t,
                a: self.pa[i].clone(),
                b: self.pb[i].clone(),
            })
            .collect()
    }

    /// The LLM messages missing from both bodies, from a only and from b only.
    fn dropped_messages(&self, losses: &mut Vec<Loss>) {
        let (a, b) = (self.a, self.b);
        // Messages of the LLM context that a body does not carry.
        let (ma, mb) = (messages_in(self.oa), messages_in(self.ob));
        let n = a.parts.llm_messages.len().max(b.parts.llm_messages.len());
        // 0.86 on, system messages are the system prompt (compared as such), not messages.
        let is_system = |i: usize| {
            a.parts
                .llm_messages
                .get(i)
                .is_some_and(|m| m.get_str("role") == Some("system"))
        };
        let missing = |set: &std::collections::BTreeSet<usize>| {
            (0..n)
                .filter(|i| !set.contains(i) && !is_system(*i))
                .collect::<Vec<_>>()
        };
        let (xa, xb) = (missing(&ma), missing(&mb));
        let both: Vec<usize> = xa.iter().copied().filter(|i| xb.contains(i)).collect();
        for (side, list) in [
            (Side::Both, both.clone()),
            (
                Side::A,
                xa.iter().copied().filter(|i| !both.contains(i)).collect(),
            ),
            (
                Side::B,
                xb.iter().copied().filter(|i| !both.contains(i)).collect(),
            ),
        ] {
            if !list.is_empty() {
                let roles: Vec<String> = list
                    .iter()
                    .map(|&i| {
                        format!(
                            "#{i} ({})",
                            a.parts
                                .llm_messages
                                .get(i)
                                .and_then(|m| m.get_str("role"))
                                .unwrap_or("?")
                        )
                    })
                    .collect();
                losses.push(Loss {
                    side,
                    kind: "dropped",
                    what: "messages",
                    count: list.len(),
                    detail: format!(
                        "{}: LLM messages {} are not in the body",
                        self.name(side),
                        roles.join(", ")
                    ),
                });
            }
        }
    }

    /// Thinking a side leaves out altogether, sends as text or drops block by block.
    fn thinking_losses(&self, losses: &mut Vec<Loss>) {
        // Thinking: kept as thinking, converted to text, dropped.
        let thinking_chars = |p: &[Placement]| p[4].chars;
        let (ta, tb) = (thinking_chars(&self.pa), thinking_chars(&self.pb));
        let conv = |x: &Assembly| {
            count_events(
                x,
                EventKind::Converted,
                crate::analysis::findings::THINKING_TO_TEXT,
            )
        };
        let drop = |x: &Assembly| {
            count_events(
                x,
                EventKind::Dropped,
                crate::analysis::findings::THINKING_DROPPED,
            )
        };
        for (side, mine, other, x) in [(Side::A, ta, tb, self.a), (Side::B, tb, ta, self.b)] {
            if mine == 0 && other > 0 {
                losses.push(Loss {
                    side,
                    kind: "dropped",
                    what: "thinking",
                    count: other,
                    detail: format!(
                        "{} carries no thinking, the other {} chars",
                        self.name(side),
                        thousands(other)
                    ),
                });
            }
            let (c, d) = (conv(x), drop(x));
            if c > 0 {
                losses.push(Loss {
                    side,
                    kind: "converted",
                    what: "thinking",
                    count: c,
                    detail: format!(
                        "{}: {c} thinking block(s) sent as plain text",
                        self.name(side)
                    ),
                });
            }
            if d > 0 {
                losses.push(Loss {
                    side,
                    kind: "dropped",
                    what: "thinking",
                    count: d,
                    detail: format!("{}: {d} thinking block(s) not sent", self.name(side)),
                });
            }
        }
    }

    /// Thinking signatures a side replays fewer of than the other.
    fn signature_losses(&self, losses: &mut Vec<Loss>) {
        let (pa, pb) = (&self.pa, &self.pb);
        // Signatures.
        for (side, mine, other) in [
            (Side::A, pa[5].leaves, pb[5].leaves),
            (Side::B, pb[5].leaves, pa[5].leaves),
        ] {
            if mine < other {
                losses.push(Loss {
                    side,
                    kind: "dropped",
                    what: "thinking-signatures",
                    count: other - mine,
                    detail: format!(
                        "{} replays {mine} signature(s), the other {other}",
                        self.name(side)
                    ),
                });
            }
        }
    }

    /// Tool call ids a side rewrites more of than the other.
    fn renamed_id_losses(&self, losses: &mut Vec<Loss>) {
        // Ids renamed.
        let (ra, rb) = (renamed_ids(self.a), renamed_ids(self.b));
        for (side, mine, other) in [(Side::A, ra, rb), (Side::B, rb, ra)] {
            if mine > other {
                losses.push(Loss {
                    side,
                    kind: "renamed",
                    what: "tool-calls",
                    count: mine,
                    detail: format!(
                        "{} rewrites {mine} id(s), the other {other}",
                        self.name(side)
                    ),
                });
            }
        }
    }

    /// Images a side sends fewer of than the other.
    fn image_losses(&self, losses: &mut Vec<Loss>) {
        let (pa, pb) = (&self.pa, &self.pb);
        // Images.
        for (side, mine, other) in [
            (Side::A, pa[8].leaves, pb[8].leaves),
            (Side::B, pb[8].leaves, pa[8].leaves),
        ] {
            if mine < other {
                losses.push(Loss {
                    side,
                    kind: "replaced",
                    what: "images",
                    count: other - mine,
                    detail: format!(
                        "{} sends {mine} image(s), the other {other}",
                        self.name(side)
                    ),
                });
            }
        }
    }

    /// Texts of pi's own a side adds more of than the other.
    fn inserted_text_losses(&self, losses: &mut Vec<Loss>) {
        let (pa, pb) = (&self.pa, &self.pb);
        // pi's inserted text.
        for (side, mine, other) in [(Side::A, &pa[9], &pb[9]), (Side::B, &pb[9], &pa[9])] {
            if mine.leaves > other.leaves {
                losses.push(Loss {
                    side,
                    kind: "inserted",
                    what: "inserted",
                    count: mine.leaves - other.leaves,
                    detail: format!(
                        "{} adds {} more text(s) of pi's own ({} chars vs {})",
                        self.name(side),
                        mine.leaves - other.leaves,
                        thousands(mine.chars),
                        thousands(other.chars)
                    ),
                });
            }
        }
    }

    /// The text kinds whose size differs between the bodies, on the smaller side.
    fn size_differences(&self, losses: &mut Vec<Loss>) {
        let (pa, pb) = (&self.pa, &self.pb);
        // Sizes per kind (text kinds).
        for (i, (k, t)) in KINDS.iter().enumerate().take(9) {
            let (x, y) = (pa[i].chars, pb[i].chars);
            if x != y && !(x == 0 && y == 0) && *k != "thinking" {
                let side = if x < y { Side::A } else { Side::B };
                losses.push(Loss {
                    side,
                    kind: "size",
                    what: k,
                    count: x.abs_diff(y),
                    detail: format!(
                        "{t}: {} chars in {}, {} in {}",
                        thousands(x),
                        self.ia.api,
                        thousands(y),
                        self.ib.api
                    ),
                });
            }
        }
    }

    /// The top-level fields only one body has.
    fn shape_differences(&self, losses: &mut Vec<Loss>) {
        // Top-level fields one body has and the other not (the shape of the two requests).
        fn top(body: Option<&Value>) -> Vec<&str> {
            body.and_then(Value::as_object)
                .map(|o| o.keys().map(|k| k.as_str()).collect())
                .unwrap_or_default()
        }
        let (ka, kb) = (top(self.body_a), top(self.body_b));
        if !ka.is_empty() && !kb.is_empty() {
            for (side, mine, other) in [(Side::A, &ka, &kb), (Side::B, &kb, &ka)] {
                let only: Vec<&str> = mine
                    .iter()
                    .filter(|k| !other.contains(k))
                    .copied()
                    .collect();
                if !only.is_empty() {
                    losses.push(Loss {
                        side,
                        kind: "shape",
                        what: "parameters",
                        count: only.len(),
                        detail: format!(
                            "top-level fields only in {}: {}",
                            self.name(side),
                            only.join(", ")
                        ),
                    });
                }
            }
        }
    }

    /// The side that sends no cache marker when the other does.
    fn cache_marker_losses(&self, losses: &mut Vec<Loss>) {
        let (pa, pb) = (&self.pa, &self.pb);
        // Cache markers present in one only.
        if (pa[10].leaves == 0) != (pb[10].leaves == 0) {
            let side = if pa[10].leaves == 0 { Side::A } else { Side::B };
            losses.push(Loss {
                side,
                kind: "dropped",
                what: "cache-markers",
                count: 1,
                detail: format!("{} sends no cache marker or key", self.name(side)),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testcase::assembly;

    fn row<'a>(c: &'a Comparison, kind: &str) -> &'a MappingRow {
        c.rows.iter().find(|r| r.kind == kind).expect("row")
    }

    #[test]
    fn system_prompt_lives_where_each_protocol_puts_it() {
        let a = assembly("an-cross-provider-history", Some("openai-completions"));
        let b = assembly("an-cross-provider-history", Some("anthropic-messages"));
        let c = compare(&a, &b);
        assert_eq!(c.a.api, "openai-completions");
        assert_eq!(c.b.api, "anthropic-messages");
        let sp = row(&c, "system-prompt");
        assert_eq!(sp.a.paths, vec!["messages[0].content"]);
        assert_eq!(sp.b.paths, vec!["system[0].text"]);
        assert_eq!(sp.a.chars, sp.b.chars);
        assert_eq!(
            sp.a.chars,
            crate::js::utf16_len(&a.parts.system_prompt.text)
        );
        let g = compare(
            &a,
            &assembly("an-cross-provider-history", Some("google-generative-ai")),
        );
        assert_eq!(
            row(&g, "system-prompt").b.paths,
            vec!["systemInstruction.parts[0].text"]
        );
        let tools = row(&c, "tool-definitions");
        assert!(
            tools.a.paths.iter().all(|p| p.starts_with("tools[")),
            "{tools:?}"
        );
        assert!(tools.b.leaves > 0);
        let mt = row(&c, "max-tokens");
        assert_eq!(mt.a.value.as_deref(), Some("max_completion_tokens=64000"));
        assert_eq!(mt.b.value.as_deref(), Some("max_tokens=64000"));
        assert!(row(&c, "cache-markers").b.leaves > 0);
        assert!(row(&c, "thinking-config")
            .b
            .value
            .as_deref()
            .is_some_and(|v| v.contains("budget_tokens")));
        // Tool results are merged into user messages in anthropic, separate messages in completions.
        assert!(row(&c, "tool-results")
            .a
            .paths
            .contains(&"messages[*].content".to_string()));
        assert!(
            row(&c, "tool-results")
                .b
                .paths
                .iter()
                .any(|p| p.contains("content[*].content")),
            "{:?}",
            row(&c, "tool-results").b
        );
    }

    #[test]
    fn losses_name_the_side() {
        // Same model, same inputs: openai-completions (qwen, thinking replayed as reasoning_content)
        // vs anthropic-messages (unsigned thinking sent as text).
        let a = assembly("demo", None);
        let b = assembly("demo", Some("anthropic-messages"));
        let c = compare(&a, &b);
        let j = crate::report::compare::to_json(&c);
        assert!(j
            .get("mapping")
            .and_then(Value::as_array)
            .is_some_and(|m| m.len() == KINDS.len()));
        // The JSON reads back as its types (the Protocols view reads it so).
        use crate::report::wire::Wire;
        let typed = crate::report::compare::report(&c);
        assert_eq!(
            crate::report::types::Comparison::from_value(&j).as_ref(),
            Some(&typed)
        );
        assert!(
            c.losses
                .iter()
                .any(|l| l.side == Side::A && l.what == "cache-markers"),
            "{:?}",
            c.losses
        );
        // Cross-provider history: both sides convert foreign thinking to text.
        let x = compare(
            &assembly("an-cross-provider-history", Some("openai-completions")),
            &assembly("an-cross-provider-history", Some("anthropic-messages")),
        );
        assert!(
            x.losses
                .iter()
                .any(|l| l.kind == "converted" && l.what == "thinking"),
            "{:?}",
            x.losses
        );
    }

    #[test]
    fn other_parameters_and_top_level_fields_differ_by_side() {
        let c = compare(
            &assembly("demo", None),
            &assembly("demo", Some("anthropic-messages")),
        );
        let row = c
            .rows
            .iter()
            .find(|r| r.kind == "parameters")
            .expect("parameters row");
        // openai-completions sends stream, store and stream_options; anthropic-messages stream.
        assert!(
            row.a.paths.iter().any(|p| p == "store") && row.a.paths.iter().any(|p| p == "stream"),
            "{:?}",
            row.a
        );
        assert_eq!(row.b.paths, vec!["stream".to_string()]);
        assert!(
            row.a
                .value
                .as_deref()
                .is_some_and(|v| v.contains("store=false")),
            "{:?}",
            row.a.value
        );
        let shape = |side: Side| {
            c.losses
                .iter()
                .find(|l| l.kind == "shape" && l.side == side)
                .map(|l| l.detail.clone())
        };
        let a = shape(Side::A).expect("fields only in openai-completions");
        assert!(
            a.contains("store") && a.contains("max_completion_tokens") && !a.contains("messages"),
            "{a}"
        );
        let b = shape(Side::B).expect("fields only in anthropic-messages");
        assert!(
            b.contains("system") && b.contains("max_tokens") && !b.contains("stream"),
            "{b}"
        );
    }

    #[test]
    fn errored_turns_are_missing_from_both() {
        let a = assembly("oc-session-errored-aborted", None);
        let b = assembly("oc-session-errored-aborted", Some("anthropic-messages"));
        let c = compare(&a, &b);
        let l = c
            .losses
            .iter()
            .find(|l| l.what == "messages" && l.side == Side::Both)
            .expect("both drop");
        assert_eq!(l.count, 2, "{l:?}");
    }

    #[test]
    fn patterns() {
        assert_eq!(
            pattern("messages.3.content.0.text", false),
            "messages[*].content[*].text"
        );
        assert_eq!(pattern("system.0.text", true), "system[0].text");
        assert_eq!(pattern("instructions", false), "instructions");
    }
}

//! The protocol comparison's types (`compareWith: api`, `ctxlens compare`, the Protocols view;
//! see [`super::wire`]: `npm/report.d.ts` declares them). [`super::compare::report`] makes one
//! from a [`Comparison`](crate::analysis::compare::Comparison).

use super::wire::{wire_enum, wire_struct};
use crate::trace::EventKind;

wire_struct! {
    /// One body of a {@link Comparison}.
    pub struct ComparisonSide {
        pub api: String = "api",
        /// `provider/id`.
        pub model: String = "model",
        pub body_bytes: usize = "bodyBytes",
        pub body_chars: usize = "bodyChars",
    }
}

wire_struct! {
    /// Where one kind of block lives in one body.
    pub struct Placement {
        /// JSON paths (`messages[*].content[*].text`), in order of first appearance.
        pub paths: Vec<String> = "paths",
        /// How many leaves.
        pub leaves: usize = "leaves",
        /// UTF-16 units of its string leaves.
        pub chars: usize = "chars",
        /// For parameters: `path=value` (`max_tokens=64000`).
        pub value: Option<String> = "value",
    }
}

wire_struct! {
    /// The mapping table's row for one kind of block (system prompt, tool definitions, thinking, ...).
    pub struct MappingRow {
        pub kind: String = "kind",
        pub title: String = "title",
        pub a: Placement = "a",
        pub b: Placement = "b",
    }
}

wire_enum! {
    /// The body a loss happens in.
    crate::analysis::compare::Side as "LossSide" {
        A = "a",
        B = "b",
        Both = "both",
    }
}

wire_struct! {
    /// Something one body drops, converts, renames or adds that the other does not.
    pub struct Loss {
        /// The body it happens in.
        pub side: crate::analysis::compare::Side = "side",
        pub kind: String = "kind" as "\"dropped\" | \"converted\" | \"renamed\" | \"inserted\" | \"replaced\" | \"size\" | \"shape\" | (string & {})",
        /// A mapping row's `kind`, or `messages`.
        pub what: String = "what",
        pub count: usize = "count",
        pub detail: String = "detail",
    }
}

wire_struct! {
    /// Trace events of one body, grouped.
    pub struct EventGroup {
        pub kind: EventKind = "kind",
        pub pi_source: Option<String> = "piSource",
        pub count: usize = "count",
        pub example: String = "example",
    }
}

wire_struct! {
    /// Each body's trace events, grouped.
    pub struct ComparisonEvents {
        pub a: Vec<EventGroup> = "a",
        pub b: Vec<EventGroup> = "b",
    }
}

wire_struct! {
    /// The same inputs under two protocols side by side (`compareWith`): `a` is the result's own body.
    pub struct Comparison {
        pub a: ComparisonSide = "a",
        pub b: ComparisonSide = "b",
        pub mapping: Vec<MappingRow> = "mapping",
        pub losses: Vec<Loss> = "losses",
        pub events: ComparisonEvents = "events",
    }
}

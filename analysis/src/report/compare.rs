//! The JSON of [`crate::analysis::compare`] (its types: [`super::compare_types`]).

use crate::analysis::compare as c;
use crate::js::Value;
use crate::report::compare_types::*;
use crate::report::wire::Wire;

fn placement(p: &c::Placement) -> Placement {
    Placement {
        paths: p.paths.clone(),
        leaves: p.leaves,
        chars: p.chars,
        value: p.value.clone(),
    }
}

fn events(gs: &[c::EventGroup]) -> Vec<EventGroup> {
    gs.iter()
        .map(|g| EventGroup {
            kind: g.kind,
            pi_source: g.pi_source.map(str::to_string),
            count: g.count,
            example: g.example.clone(),
        })
        .collect()
}

fn side(s: &c::SideInfo) -> ComparisonSide {
    ComparisonSide {
        api: s.api.clone(),
        model: s.model.clone(),
        body_bytes: s.body_bytes,
        body_chars: s.body_chars,
    }
}

/// The comparison as the report gives it.
pub fn report(cmp: &c::Comparison) -> Comparison {
    Comparison {
        a: side(&cmp.a),
        b: side(&cmp.b),
        mapping: cmp
            .rows
            .iter()
            .map(|r| MappingRow {
                kind: r.kind.to_string(),
                title: r.title.to_string(),
                a: placement(&r.a),
                b: placement(&r.b),
            })
            .collect(),
        losses: cmp
            .losses
            .iter()
            .map(|l| Loss {
                side: l.side,
                kind: l.kind.to_string(),
                what: l.what.to_string(),
                count: l.count,
                detail: l.detail.clone(),
            })
            .collect(),
        events: ComparisonEvents {
            a: events(&cmp.a_events),
            b: events(&cmp.b_events),
        },
    }
}

/// The comparison as JSON (camelCase).
pub fn to_json(cmp: &c::Comparison) -> Value {
    report(cmp).to_value()
}

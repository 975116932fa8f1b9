//! What the analysis derives from one assembly, kept with it ([`Assembly::analysis`]): each part
//! made when first asked for. A report reads some parts in more than one place (the findings and
//! the report's own sections both read the usage timeline, pi's context estimate and the tool
//! calls to undefined tools); each is made once per assembly.

use std::sync::OnceLock;

use super::checks::{ContextSize, UndefinedToolCall};
use super::stats::Stats;
use super::usage::UsagePoint;
use crate::assemble::Assembly;

/// The analysis layer's slot in an [`Assembly`]: the one type it keeps there.
#[derive(Default)]
pub struct Derived {
    stats: OnceLock<Option<Stats>>,
    timeline: OnceLock<Vec<UsagePoint>>,
    context_size: OnceLock<Option<ContextSize>>,
    undefined_tool_calls: OnceLock<Vec<UndefinedToolCall>>,
}

impl Derived {
    /// A slot whose statistics are `stats` (a host's, with tokens counted), the rest made when
    /// asked for.
    pub fn with_stats(stats: Option<Stats>) -> Derived {
        Derived {
            stats: OnceLock::from(stats),
            ..Derived::default()
        }
    }
}

/// `a`'s slot, made empty when first asked for.
fn of(a: &Assembly) -> &Derived {
    // The analysis layer keeps only `Derived` in the slot ([`Derived::with_stats`] is the only
    // value it puts there), so the slot always reads as one.
    a.analysis(|_| Derived::default())
        .expect("the analysis slot holds a Derived")
}

/// The statistics ([`super::stats::compute`]), kept.
pub fn stats(a: &Assembly) -> Option<&Stats> {
    of(a)
        .stats
        .get_or_init(|| super::stats::compute(a))
        .as_ref()
}

/// The usage timeline ([`super::usage::usage_timeline`]), kept.
pub fn timeline(a: &Assembly) -> &[UsagePoint] {
    of(a)
        .timeline
        .get_or_init(|| super::usage::usage_timeline(a))
}

/// pi's estimate of the context beside the model's window ([`super::checks::context_size`]),
/// kept.
pub fn context_size(a: &Assembly) -> Option<ContextSize> {
    *of(a)
        .context_size
        .get_or_init(|| super::checks::context_size(a))
}

/// The tool calls to tools the request does not define
/// ([`super::checks::undefined_tool_calls`]), kept.
pub fn undefined_tool_calls(a: &Assembly) -> &[UndefinedToolCall] {
    of(a)
        .undefined_tool_calls
        .get_or_init(|| super::checks::undefined_tool_calls(a))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testcase::{all_cases, assembly};
    use crate::AssemblyStats;

    /// Each kept part is the one its own function makes, on every corpus case; statistics a
    /// host puts in place are the ones read, and the other parts are still made.
    #[test]
    fn the_kept_parts_are_what_their_functions_make() {
        let mut undefined = 0;
        for name in all_cases() {
            let a = assembly(&name, None);
            assert_eq!(
                timeline(&a),
                super::super::usage::usage_timeline(&a),
                "{name}"
            );
            assert_eq!(
                context_size(&a),
                super::super::checks::context_size(&a),
                "{name}"
            );
            let calls = super::super::checks::undefined_tool_calls(&a);
            assert_eq!(undefined_tool_calls(&a), calls, "{name}");
            undefined += calls.len();
            assert_eq!(
                stats(&a),
                super::super::stats::compute(&a).as_ref(),
                "{name}"
            );

            let mut b = assembly(&name, None);
            let mut set = super::super::stats::compute(&b);
            if let Some(s) = set.as_mut() {
                s.body_chars += 1;
            }
            b.set_stats(set.clone());
            assert_eq!(
                b.stats(),
                set.as_ref(),
                "{name}: the statistics put in place"
            );
            assert_eq!(timeline(&b), timeline(&a), "{name}");
        }
        assert!(undefined > 0, "some case calls a tool it does not define");
    }
}

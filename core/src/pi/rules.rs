//! What each pi release does differently: the one place that maps a version to behaviour.
//!
//! Every switch names the release that introduced it and the captured cases that prove it.
//! Small differences are `if pi.rules.x` at the rule's site; a rewrite of a whole pi function
//! is a second port beside the first, chosen by one `match` on a rule.

use super::PiVersion;

/// The behaviour switches of one pi release.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rules {
    /// `CURRENT_SESSION_VERSION`: the session format pi writes and migrates older files to
    /// (CA/core/session-manager.js). 3 in every supported release (0.85.1 … 1.6.0: no new
    /// migration). Cases: `oc-session-v1`, `an-session-v1-migration`, `ss-v1-forward-index`.
    pub session_version: u32,
    /// The deepest `messages` array (the array itself is level 1) that pi's extension runner
    /// can copy before the `context` hook: `emitContext` always runs `structuredClone(messages)`
    /// (CA/core/extensions/runner.js:793), and V8's serializer recurses, so a message nested
    /// deeper throws `RangeError: Maximum call stack size exceeded` and pi sends nothing. A
    /// property of V8's stack at that call, measured by capture with the oracle's Node 22.23.5:
    /// 1,579 levels copy, 1,580 throw (cases `ss-deep-nesting-kept`, `ss-deep-nesting-refused`).
    pub max_context_depth: usize,
    /// Whether ctxlens has ported this release's own rules. A release whose rules are not
    /// ported yet is rebuilt with the nearest ported release's rules and its own data, and
    /// every assembly says so in a diagnostic.
    pub ported: bool,
}

impl PiVersion {
    /// The rules of this release.
    pub fn rules(self) -> &'static Rules {
        static V0_85_1: Rules = Rules {
            session_version: 3,
            max_context_depth: 1579,
            ported: true,
        };
        static V1_6_0: Rules = Rules {
            session_version: 3,
            max_context_depth: 1579,
            ported: false,
        };
        match self {
            PiVersion::V0_85_1 => &V0_85_1,
            PiVersion::V1_6_0 => &V1_6_0,
        }
    }
}

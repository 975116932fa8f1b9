//! 0.86 on: strict schemas and tools declared again.

use super::*;

pub(super) fn check(cx: &Ctx, list: &mut List) {
    let a = cx.a;
    let pi = cx.pi;
    if pi.rules.transcript {
        transcript::strict_tools(a, pi, list);
        transcript::redeclared_tools(a, pi, list);
    }
}

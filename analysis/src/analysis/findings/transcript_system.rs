//! 0.86 on: the system messages: declared at a resume point, patched, sections out of
//! a fresh build's order.

use super::*;

pub(super) fn check(cx: &Ctx, list: &mut List) {
    let a = cx.a;
    let pi = cx.pi;
    if pi.rules.transcript {
        transcript::resume_point(a, list);
        transcript::patched_prompt(a, pi, list);
        transcript::section_order(a, pi, list);
    }
}

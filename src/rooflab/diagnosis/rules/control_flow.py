"""Control flow in the loop: a branch the compiler could not turn into a select keeps the loop scalar, and a
data-dependent branch mispredicts on data it cannot predict."""

from __future__ import annotations

from rooflab.diagnosis.rules.facts import Facts, errno_calls, finding
from rooflab.i18n import msg

ID = "control_flow"
TEST = None


def WORD():
    return msg("control flow in the loop")


def applies(f: Facts) -> bool:
    loop = f.loop
    # branches to a call's cold path (errno, complex NaN recovery) are the call's finding; exits are no branch
    # within an iteration
    if not loop.get("branches") or f.vb >= f.isa_vb or errno_calls(f.code) or loop.get("calls") or \
            loop.get("side_calls"):
        return False
    # the compiler names the branch, or says nothing else that would keep this scalar loop scalar
    return "control_flow" in f.causes or not (f.vb or {"aliasing", "call", "stride", "reduction"} & set(f.causes))


def find(f: Facts) -> list[dict]:
    if not applies(f):
        return []
    ev = [msg("the hot loop has {n} conditional branch(es) besides the one that closes it, and {width}",
              n=f.loop["branches"], width=msg("runs on {bits}-bit vectors", bits=f.vb) if f.vb else msg("is scalar"))]
    ev += f.cause_remarks("control_flow")
    return [finding(
        ID, f.lanes, ev,
        msg("control flow in the loop body: the compiler could not if-convert the branch, so the loop stays scalar, "
            "and a data-dependent branch costs a misprediction each time the data changes direction"),
        msg("compute both sides and select (x = c ? a : b, with no store or call inside the condition), move a "
            "test that does not change out of the loop, or sort the data so that the branch is predictable"))]

"""Possible aliasing: the compiler cannot prove that the arrays do not overlap, so the loop stays scalar (or is
checked at run time). Tested by restrict on every pointer parameter, in a copy of the source."""

from __future__ import annotations

from rooflab.diagnosis.rules import control_flow, vectors
from rooflab.diagnosis.rules.facts import Facts, finding
from rooflab.i18n import msg

ID = "aliasing"
TEST = "restrict"


def WORD():
    return msg("possible aliasing")


def find(f: Facts) -> list[dict]:
    if not vectors.unused_lanes(f) or "aliasing" not in f.causes:
        return []
    ev = vectors.width_evidence(f) + f.cause_remarks("aliasing")
    for b in f.pragmas.loaded_bounds:
        ev.append(msg("the loop's bound {bound} is read from memory: a store in the loop could change it, so the "
                      "compiler reads it again at each iteration and cannot count the iterations", bound=b["bound"]))
    return [finding(ID, f.lanes, ev,
                    msg("the compiler cannot prove that the arrays do not overlap, so it keeps the loop scalar (or "
                        "checks at run time)"),
                    msg("declare the pointer parameters restrict (double *restrict y) when the arrays never overlap, "
                        "and copy a bound or a scalar passed by address into a local variable before the loop"),
                    ("restrict",),
                    # an address a condition chose keeps the loop scalar whatever the pointers say: that comes first
                    after=("control_flow",) if control_flow.chosen_addresses(f) else ())]

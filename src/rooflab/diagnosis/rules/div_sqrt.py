"""Divisions and square roots that set a loop's pace: many cycles each, issued rarely. Found where the kernel is
compute-bound, or where the in-core analyzer predicts the loop far faster with them made multiplications while the
loop runs at its in-core pace (a memory-bound average divided by a constant: the divider, not the memory, is the
limit). Tested by a build that multiplies by the reciprocal of a divisor the loop does not change, computed once
(-funsafe-math-optimizations, its sums kept in order)."""

from __future__ import annotations

from rooflab.diagnosis.rules.facts import Facts, finding
from rooflab.i18n import msg

ID = "div_sqrt"
TEST = "reciprocal"
DIVIDER_BOUND = 1.5  # the loop predicted this many times slower with its divisions than with multiplications
# measured at most this many times the in-core prediction: the loop runs at its in-core pace, give or take the L2
# latency its loads add (Gaussian elimination in L2 divided at every element: 24.6 cycles against 16.1 predicted,
# 5 without the divisions, on a core clocked at 4 GHz)
IN_CORE = 2.0


def WORD():
    return msg("divisions")


def find(f: Facts) -> list[dict]:
    n = f.loop.get("div_sqrt") or 0
    if not n:
        return []
    pred = f.prediction
    cpi, measured = pred.get("cycles_per_iteration"), f.row.get("cycles_per_iteration")
    plain = pred.get("cycles_without_div")
    paced = bool(cpi and plain and cpi >= DIVIDER_BOUND * plain and (not measured or measured <= IN_CORE * cpi))
    # a scalar loop that also carries a chain: -ffast-math, the chain's test, makes its divisions multiplications
    # too, so the divisions are tested beside it and what each build gains is told apart (a running box filter:
    # its division, not its sum, set its pace, reciprocal 1.95x; the in-core model gave both 4 cycles)
    beside_chain = f.chained and not f.vb and not f.loop.get("feedback")
    if not paced and f.row.get("bound") != "compute" and not beside_chain:
        return []
    ev = [msg("{n} division(s) or square root(s) per iteration of the hot loop", n=n)]
    if beside_chain and not paced:
        ev.append(msg("the loop also carries a chain, whose test (-ffast-math) would make the divisions "
                      "multiplications too: the reciprocal build tells the two apart"))
    if paced:
        ev.append(msg("{tool} predicts {c:.1f} cycles per iteration, and {p:.1f} with the divisions made "
                      "multiplications: the divider sets the pace", tool=pred.get("tool") or "llvm-mca", c=cpi,
                      p=plain))
        if measured:
            ev.append(msg("measured {c:.1f} cycles per iteration of the hot loop", c=measured))
    return [finding(
        ID, cpi / plain if paced else 2.0, ev,
        msg("divisions and square roots take many cycles and issue rarely"),
        msg("multiply by a reciprocal computed once outside the loop where the divisor does not change (x * (1.0f / "
            "3) for x / 3; -freciprocal-math lets the compiler do it)"),
        ("reciprocal",))]

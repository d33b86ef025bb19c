"""Integer division or modulo in the loop: slow, unpipelined, and never vectorized on x86 (an index wrapped with
%, a division by a variable). No flag tests it; the source fix is a counter that wraps."""

from __future__ import annotations

from rooflab.diagnosis.rules.facts import Facts, finding, measured_cycles
from rooflab.i18n import msg

ID = "int_div"
TEST = None
INT_DIV_CYCLES = 12  # a 64-bit integer division on the cores rooflab knows: about 10 to 18 cycles, not pipelined


def WORD():
    return msg("integer division")


def find(f: Facts) -> list[dict]:
    n = f.loop.get("int_div") or 0
    if not n:
        return []
    cyc = f.row.get("cycles_per_iteration")
    ev = [msg("the hot loop runs {n} integer division(s) per iteration (div/idiv: about {c} cycles each, one at a "
              "time)", n=n, c=INT_DIV_CYCLES)]
    factor = f.lanes if f.vb == 0 else 1.0
    if cyc:
        ev.append(measured_cycles(f.row))
        share = min(cyc * 0.9, INT_DIV_CYCLES * n)
        factor = max(factor, cyc / (cyc - share))
    return [finding(
        ID, factor, ev,
        msg("an integer division or modulo in the loop (an index wrapped with %, a division by a variable) takes "
            "many cycles, does not pipeline, and keeps the loop from vectorizing"),
        msg("move it out of the loop: keep a counter that wraps instead of i % m, multiply by a reciprocal or shift "
            "for a power of two, or make the divisor a compile-time constant (the compiler then multiplies)"))]

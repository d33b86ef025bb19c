"""A chain of dependent loads (pointer chasing): the hot loop loads the next index or pointer from the one it just
loaded (``i = next[i]``, ``p = p->next``), so each load waits for the previous one, and the loop runs at the latency
of the level holding the data, one step at a time, whatever the execution units could do. No rebuild changes that;
the source must."""

from __future__ import annotations

from rooflab.diagnosis.rules.facts import Facts, finding, measured_cycles
from rooflab.i18n import msg

ID = "pointer_chase"
TEST = None
STEPS = 4.0  # independent chains walked at once overlap their latencies: what interleaving a few of them can gain


def WORD():
    return msg("a chain of dependent loads")


def find(f: Facts) -> list[dict]:
    n = f.loop.get("pointer_chains") or 0
    if not n:
        return []
    ev = [msg("the hot loop loads the next index or pointer from the one it just loaded ({n} such load(s) per "
              "iteration): each load waits for the previous one to arrive", n=n)]
    if f.row.get("cycles_per_iteration"):
        ev.append(measured_cycles(f.row))
    ev += f.prediction_evidence()
    return [finding(
        ID, STEPS, ev,
        msg("the loop walks a chain of addresses one load at a time: it runs at the latency of the memory level "
            "holding the data, and out-of-order execution cannot start a load whose address is not known yet"),
        msg("walk several independent chains at once (interleave a few lists or start points), lay the data out in "
            "the order it is visited (an array instead of a linked structure), or prefetch ahead where later "
            "addresses are known earlier"))]

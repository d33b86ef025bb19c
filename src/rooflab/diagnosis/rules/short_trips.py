"""Short trip counts: most of the kernel's time, sampled, falls outside its innermost loops (in loop set-up, the
remainder iterations and the outer loops), as when an inner loop runs a handful of iterations per entry."""

from __future__ import annotations

from rooflab.diagnosis.rules.facts import Facts, finding
from rooflab.i18n import msg
from rooflab.units import pct

ID = "short_trips"
TEST = None
INNER_SHARE = 0.5  # under this share of the samples inside an innermost loop: the loops around it cost the time


def WORD():
    return msg("short trip counts")


def find(f: Facts) -> list[dict]:
    how = f.code.get("hot_loop") or {}
    share = how.get("in_inner_loops")
    if how.get("by") != "samples" or share is None or share >= INNER_SHARE:
        return []
    return [finding(
        ID, 1 / max(share, 0.1),
        [msg("{share} of its time (of {n} samples) falls inside an innermost loop; the rest goes to the loops around "
             "them", share=pct(share), n=how.get("samples", 0))],
        msg("the inner loops run few iterations per entry: their set-up, the remainder iterations a vector loop "
            "leaves and the outer loops cost more than the work"),
        msg("make the long dimension the innermost loop, let the compiler unroll a short loop of known count "
            "completely (a constant bound), or batch several small problems into one loop"))]

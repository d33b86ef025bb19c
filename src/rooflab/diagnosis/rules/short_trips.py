"""Short trip counts: most of the kernel's time, sampled, falls outside its innermost loops (in loop set-up, the
remainder iterations and the outer loops), as when an inner loop runs a handful of iterations per entry."""

from __future__ import annotations

import re

from rooflab.diagnosis.rules.facts import Facts, finding, measured_cycles
from rooflab.i18n import msg
from rooflab.units import pct

ID = "short_trips"
TEST = None
INNER_SHARE = 0.5  # under this share of the samples inside an innermost loop: the loops around it cost the time


def WORD():
    return msg("short trip counts")


_VECTORIZED = re.compile(r"loop vectori[sz]ed", re.I)


def scalar_copy(f: Facts) -> bool:
    """The samples fall in the scalar copy of a loop the compiler vectorized (its remainder, or the fallback its
    runtime checks choose): the vector loop is seldom entered. Where no overlap of two arrays sends it there (an
    aliasing cause), the iterations per entry are fewer than the checks and the vector loop ask for (fannkuch's flip
    of a prefix of two to four elements, versioned for its in-place overlap)."""
    how = f.code.get("hot_loop") or {}
    # the remarks on the loop's own lines (where they are unknown, the function's, which may be another loop's)
    return bool(how.get("by") == "samples" and not f.vb and "aliasing" not in f.causes and f.code.get("loop_lines")
                and any(r.get("kind") == "vectorized" and _VECTORIZED.search(r.get("text") or "")
                        for r in f.code.get("remarks") or []))


def find(f: Facts) -> list[dict]:
    how = f.code.get("hot_loop") or {}
    share = how.get("in_inner_loops")
    if scalar_copy(f) and not (share is not None and share < INNER_SHARE):
        return [finding(
            # what the copy's entries cost beside its work, as the time outside the innermost loops says (at least
            # a quarter of it where the share is not known)
            ID, 1 / max(min(share if share is not None else 1.0, 0.75), 0.1),
            [msg("the compiler vectorized the hot loop, but {n} samples fall in its scalar copy: the vector loop is "
                 "seldom entered", n=how.get("samples", 0))] + f.remarks_matching(_VECTORIZED),
            msg("the inner loops run few iterations per entry, fewer than the vector loop and its checks need: the "
                "scalar remainder runs instead"),
            msg("make the long dimension the innermost loop, or batch several small problems into one loop (one "
                "element of each per lane)"))]
    if how.get("by") != "samples" or share is None or share >= INNER_SHARE:
        return few_vectors(f)
    return [finding(
        ID, 1 / max(share, 0.1),
        [msg("{share} of its time (of {n} samples) falls inside an innermost loop; the rest goes to the loops around "
             "them", share=pct(share), n=how.get("samples", 0))],
        msg("the inner loops run few iterations per entry: their set-up, the remainder iterations a vector loop "
            "leaves and the outer loops cost more than the work"),
        msg("make the long dimension the innermost loop, let the compiler unroll a short loop of known count "
            "completely (a constant bound), or batch several small problems into one loop"))]


# an innermost vector loop entered for fewer of its vector iterations than this: its set-up (the alias checks of a
# versioned loop), its remainder and its exit, some tens of cycles an entry, weigh as much as its body (a few cycles
# an iteration); with more, they cannot make it the twice slower that SLOWER_THAN_EXPECTED asks (a 3-D stencil's
# rows of 15.8 vector iterations, twice slower on huge pages than on small ones, for another reason)
FEW_VECTOR_ITERATIONS = 8
# a loop measured this much slower than its body's prediction and its roof allow pays for something else (a 3-D
# stencil of 64-point rows at 60% of its L3 roof: 16.4 cycles where its body needs 4.2 and L3's bandwidth 9.8)
SLOWER_THAN_EXPECTED = 2.0


def few_vectors(f: Facts) -> list[dict]:
    """A vectorized hot loop whose source loops run a handful of vector iterations per entry (their bounds
    evaluated with the call's sizes: a 64-point rod stepped 10,000 times), measured well slower than both the
    in-core prediction for its body and its roof allow: what it pays besides the body is the entry, the remainder
    and the exit, at every entry."""
    trips = f.ctx.get("inner_trips") or []
    elem = f.loop.get("element_bits") or 0
    pred, cpi = f.prediction.get("cycles_per_iteration"), f.row.get("cycles_per_iteration")
    if not (trips and f.vb and elem and pred and cpi):
        return []
    expected = max(pred, cpi * (f.of_roof or 0))  # the body's cycles, or the roof's, whichever is more
    if cpi < SLOWER_THAN_EXPECTED * expected:
        return []
    lanes = f.vb // elem
    if max(trips) >= FEW_VECTOR_ITERATIONS * lanes:
        return []
    return [finding(
        ID, min(cpi / expected, 4.0),
        [msg("its innermost loops run {k} iteration(s) per entry at this size: {v:.1f} iterations of its "
             "{lanes}-lane vector loop", k=max(trips), v=max(trips) / lanes, lanes=lanes),
         measured_cycles(f.row)] + f.prediction_evidence(),
        msg("the inner loops run few iterations per entry: their set-up, the remainder iterations a vector loop "
            "leaves and the outer loops cost more than the work"),
        msg("make the long dimension the innermost loop, batch several small problems into one loop, or, across "
            "repetitions of a short loop (time steps), swap the arrays instead of copying one into the other and "
            "give the compiler the length as a constant"))]

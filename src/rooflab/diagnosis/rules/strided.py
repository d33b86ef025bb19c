"""Strided access: the traffic out of the level that holds the working set far exceeds the model (lines brought in
and used in part), or the compiler names the access pattern where the traffic was not counted.
Extra traffic into L1 alone is data reused from L2, not stride."""

from __future__ import annotations

from rooflab.diagnosis.rules import reuse
from rooflab.diagnosis.rules.facts import EXCESS, Facts, finding
from rooflab.i18n import msg

ID = "strided"
TEST = None


def WORD():
    return msg("strided access")


def find(f: Facts) -> list[dict]:
    excess, loop = f.excess, f.loop
    counted_clean = excess is not None and excess < EXCESS
    if reuse.applies(f) or loop.get("gathers"):
        return []  # operands re-fetched by a compute-bound kernel, or gathers: their own findings say so
    if not ((excess or 0) >= EXCESS or ("stride" in f.causes and f.vb < f.isa_vb and not counted_clean)):
        return []
    ev = []
    if (excess or 0) >= EXCESS:
        ev.append(f.traffic_evidence())
    ev += f.cause_remarks("stride")
    return [finding(
        ID, max(excess or 0, 1.5), ev,
        msg("strided or column-wise access: each cache line brought in is used for only part of its bytes"),
        msg("make the inner loop walk memory contiguously (interchange the loops, or store the matrix "
            "transposed), or block the loops so that each line is reused before it is evicted"))]

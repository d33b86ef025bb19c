"""Strided access: the traffic out of the level that holds the working set far exceeds the model (lines brought in
and used in part), or the compiler names the access pattern and L1 brought in far more than the model (or nothing
was counted).
Extra traffic into L1 alone is data reused from L2, not stride."""

from __future__ import annotations

from rooflab.diagnosis.rules import reuse
from rooflab.diagnosis.rules.facts import EXCESS, Facts, finding
from rooflab.i18n import msg

ID = "strided"
TEST = None
# L1 bringing in this many times the bytes used: lines used for a fraction of their bytes (a column walk over
# doubles brings in 8x); rows or a vector reused out of L2 (a stencil's rows, bicg's s[]) bring in 2-3x
L1_STRIDE = 4.0


def WORD():
    return msg("strided access")


def find(f: Facts) -> list[dict]:
    excess, loop = f.excess, f.loop
    if reuse.applies(f) or loop.get("gathers"):
        return []  # operands re-fetched by a compute-bound kernel, or gathers: their own findings say so
    l1 = f.traffic.get("l1_ratio")
    counted = excess is not None or l1 is not None
    # the compiler names the access pattern: strided where L1 brings in several times the bytes used (each line used
    # in part), or where nothing was counted and the loop is not vectorized to full width; a stride remark with
    # traffic at the model (atax, trisolv: 1.00x) or with rows reused out of L2 (bicg: 3x) is no evidence
    named = "stride" in f.causes and ((l1 or 0) >= L1_STRIDE if counted else f.vb < f.isa_vb)
    if not ((excess or 0) >= EXCESS or named):
        return []
    ev = []
    if (excess or 0) >= EXCESS:
        ev.append(f.traffic_evidence())
    elif l1:
        ev.append(msg("{method}: L1 brought in {r:.1f}x the bytes the model counts, while {level}, where the working "
                      "set lives, delivered them about once: each line brought into L1 was used only in part",
                      method=f.traffic["method"], r=l1, level=f.traffic.get("holding_level") or "?"))
    ev += f.cause_remarks("stride")
    return [finding(
        ID, max(excess or 0, l1 if named and l1 else 0, 1.5), ev,
        msg("strided or column-wise access: each cache line brought in is used for only part of its bytes"),
        msg("make the inner loop walk memory contiguously (interchange the loops, or store the matrix "
            "transposed), or block the loops so that each line is reused before it is evicted"))]

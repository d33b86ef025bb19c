"""Indirect access: the loop gathers its elements through an index array (x[idx[i]]). Each element may bring in a
line of its own, and a gather issues element by element. Tested by the same build with the values of its integer
input arrays sorted: a probe of what the scattered order costs (the values, and so every address, stay valid; the
results differ and are not checked)."""

from __future__ import annotations

from rooflab.diagnosis.rules.facts import EXCESS, WAITS, Facts, finding
from rooflab.i18n import msg

ID = "indirect"
TEST = None


def WORD():
    return msg("indirect access (gathers)")


def find(f: Facts) -> list[dict]:
    n = f.loop.get("gathers") or 0
    # a lookup whose index the previous iteration's value gives (a CRC's table) is a step of a chain, not a gather
    k = max(0, (f.loop.get("indexed_loads") or 0) - (f.loop.get("lookup_chains") or 0))
    if not n and not k:
        return []
    ev = []
    if n:
        ev.append(msg("the hot loop gathers: {n} gather instruction(s) per iteration", n=n))
    if k:
        ev.append(msg("the hot loop reads {n} element(s) per iteration at an address made from a value it loaded "
                      "in the same iteration (x[idx[i]])", n=k))
    excess = f.excess
    if (excess or 0) >= EXCESS:
        ev.append(f.traffic_evidence())
    # the time the loop spends beyond what its instructions need (the in-core prediction) is the time its
    # scattered loads wait for memory
    # (atomic updates shared between threads wait for their lines, not for the loads: false_sharing's finding)
    waits = None if f.loop.get("atomics") and f.ctx.get("openmp") else f.waits
    if waits:
        pred = f.prediction
        ev.append(msg("measured {m:.1f} cycles per iteration where {tool} predicts {p:.1f} from the instructions "
                      "alone: {w:.1f}x, the loop waits for its loads", m=f.row["cycles_per_iteration"],
                      tool=pred.get("tool") or "llvm-mca", p=pred["cycles_per_iteration"], w=waits))
    ev += f.cause_remarks("stride")
    if f.loop.get("indexed_updates") and not n:
        # h[k] += ...: an update through an index (a histogram, a scatter-add) stays scalar whatever the flags
        ev.insert(1, msg("{n} of them update memory through the index (h[k] += ...): two elements may update the "
                         "same place, so no compiler vectorizes it", n=f.loop["indexed_updates"]))
        return [finding(
            ID, max(excess or 0, waits or 0, 2.0), ev,
            msg("the loop updates memory through an index (a histogram's bins, a scatter-add): it stays scalar, "
                "each update waits for the one before it to the same place, and scattered ones bring in a cache "
                "line each"),
            msg("keep several copies of the bins and add them up after the loop (one per thread with OpenMP, or "
                "two to four in one loop, taken in turn), sort or block the indices so that neighbouring updates "
                "touch neighbouring data, or make the bins smaller (narrower counters) so that they stay in L1"))]
    out = finding(
        ID, max(excess or 0, waits or 0, 2.0), ev,
        msg("elements are fetched through an index: where the indices scatter, each element brings in a cache "
            "line of its own, and a gather loads its lanes one by one"),
        msg("sort or block the indices so that neighbouring iterations touch neighbouring data, or gather the "
            "values into a contiguous array once when they are used more than once"),
        # the probe keeps the instructions: it tests the order of scalar loads, not a gather's own cost
        () if n else ("sorted",), test=None if n else "sorted")
    pred, cpi = (f.prediction or {}).get("cycles_per_iteration"), f.row.get("cycles_per_iteration")
    in_core = bool(pred and cpi and cpi < WAITS * pred)
    if not n and waits is None and ((excess or 0) < EXCESS or in_core):
        # no traffic beyond the model, or none the loop waits for (its instructions alone account for the cycles
        # measured: SRAD's scalar loop, 24.9 against 25.0 predicted), and no cycles beyond what the instructions
        # need: the loads' order is all the finding stands on, and the sorted probe, their best order, measures
        # what it is worth (a CSR product whose rows two threads share unequally: sorted 1.11x, where the even
        # schedule gains 1.5x)
        out["probe_bounds"] = True
    return [out]

"""Indirect access: the loop gathers its elements through an index array (x[idx[i]]). Each element may bring in a
line of its own, and a gather issues element by element."""

from __future__ import annotations

from rooflab.diagnosis.rules.facts import EXCESS, Facts, finding
from rooflab.i18n import msg

ID = "indirect"
TEST = None


def WORD():
    return msg("indirect access (gathers)")


def find(f: Facts) -> list[dict]:
    n = f.loop.get("gathers") or 0
    if not n:
        return []
    ev = [msg("the hot loop gathers: {n} gather instruction(s) per iteration", n=n)]
    excess = f.excess
    if (excess or 0) >= EXCESS:
        ev.append(f.traffic_evidence())
    ev += f.cause_remarks("stride")
    return [finding(
        ID, max(excess or 0, 2.0), ev,
        msg("elements are fetched through an index: where the indices scatter, each element brings in a cache "
            "line of its own, and a gather loads its lanes one by one"),
        msg("sort or block the indices so that neighbouring iterations touch neighbouring data, or gather the "
            "values into a contiguous array once when they are used more than once"))]

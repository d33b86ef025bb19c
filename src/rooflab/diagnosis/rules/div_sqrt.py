"""Divisions and square roots in a compute-bound loop: many cycles each, issued rarely."""

from __future__ import annotations

from rooflab.diagnosis.rules.facts import Facts, finding
from rooflab.i18n import msg

ID = "div_sqrt"
TEST = None


def WORD():
    return msg("divisions")


def find(f: Facts) -> list[dict]:
    n = f.loop.get("div_sqrt") or 0
    if not n or f.row.get("bound") != "compute":
        return []
    return [finding(
        ID, 2.0, [msg("{n} division(s) or square root(s) per iteration of the hot loop", n=n)],
        msg("divisions and square roots take many cycles and issue rarely"),
        msg("multiply by a reciprocal computed once outside the loop where the divisor does not change"))]

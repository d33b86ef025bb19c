"""Register spills: the loop stores and reloads values from the stack because it keeps more live than there are
registers."""

from __future__ import annotations

from rooflab.diagnosis.rules.facts import Facts, finding
from rooflab.i18n import msg

ID = "spills"
TEST = None


def WORD():
    return msg("register spills")


def find(f: Facts) -> list[dict]:
    n = f.loop.get("spills") or 0
    if not n:
        return []
    audit = f.code.get("audit") or {}
    return [finding(
        ID, 1 + n / max(1, audit.get("loads", 0) + audit.get("stores", 0)),
        [msg("the hot loop stores and reloads {n} value(s) from the stack per iteration", n=n)],
        msg("the loop keeps more values live than there are registers"),
        msg("use fewer accumulators or a smaller unroll, so that every value stays in a register"))]

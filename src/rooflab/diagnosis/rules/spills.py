"""Register spills: the loop stores and reloads values from the stack because it keeps more live than there are
registers."""

from __future__ import annotations

from rooflab.diagnosis.rules.facts import Facts, finding
from rooflab.i18n import msg

ID = "spills"
TEST = None


def WORD():
    return msg("register spills")


# spilled values this share of the loop's loads and stores or more: fewer cost nothing a user would measure (one
# value reloaded in a vector loop of 40 loads and stores: LCALS's 2-D hydrodynamics)
MATERIAL_SHARE = 0.05


def find(f: Facts) -> list[dict]:
    n = f.loop.get("spills") or 0
    audit = f.code.get("audit") or {}
    share = n / max(1, audit.get("loads", 0) + audit.get("stores", 0))
    # a spill costs about a cycle (a store and a load on ports that take two loads and a store a cycle): against
    # the cycles an iteration was measured to take, one in a loop of 36 is under 3% of its time (LCALS's 2-D
    # hydrodynamics at 44,217, its division nest: one value reloaded among 19 loads and stores)
    cpi = f.row.get("cycles_per_iteration")
    if not n or share < MATERIAL_SHARE or (cpi and n / cpi < MATERIAL_SHARE):
        return []
    return [finding(
        ID, 1 + share,
        [msg("the hot loop stores and reloads {n} value(s) from the stack per iteration", n=n)],
        msg("the loop keeps more values live than there are registers"),
        msg("use fewer accumulators or a smaller unroll, so that every value stays in a register"))]

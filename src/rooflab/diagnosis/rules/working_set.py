"""A working set past a cache level: a memory-bound kernel that reads its data several times per call from a level
slower than one its data could be blocked for. Tested by a size whose arrays fit the faster level."""

from __future__ import annotations

from rooflab.diagnosis.rules.facts import EXCESS, Facts, faster_level, finding
from rooflab.documents.common import Roofs, read
from rooflab.i18n import msg
from rooflab.units import binary_bytes, si

ID = "working_set"
TEST = "smaller"
AGAIN = 2.5  # the model's bytes over the arrays' size from which the data is read more than once a call


def WORD():
    return msg("a working set past a cache level")


def find(f: Facts) -> list[dict]:
    if (f.excess or 0) >= EXCESS:
        return []  # the traffic says lines are wasted: that is stride, not a working set to block
    got = at_roof_of_a_slower_level(f.row, f.ctx)
    return [got] if got else []


def at_roof_of_a_slower_level(row: dict, ctx: dict) -> dict | None:
    """The finding for a memory-bound kernel that reads its data more than once per call (the model counts AGAIN
    times the bytes of its arrays or more) from a level slower than one its data could be blocked for."""
    level = row.get("level")
    mem = {m.level: m.value for m in read(Roofs, ctx.get("roofs")).memory}
    again = row["bytes"] / row["working_set_bytes"] if row.get("working_set_bytes") else 0
    up = faster_level(row, ctx.get("roofs") or {})
    # one pass that reads every array and writes each back (an update in place) moves twice its arrays: reading the
    # data again takes more than that
    if row.get("bound") != "memory" or up is None or again < AGAIN:
        return None
    faster, cap = up
    gain = mem[faster] / mem[level] if mem[level] else 1.0
    if gain < 1.3 or (row.get("of_roof") or 0) < 0.4:
        return None
    return finding(
        ID, gain / min(1.0, row["of_roof"]),  # from where it runs to the faster level's roof
        [msg("its working set ({ws}) lives in {level}; {faster} holds {cap}", ws=binary_bytes(row["working_set_bytes"]),
             level=level, faster=faster, cap=binary_bytes(cap)),
         msg("each call moves {r:.0f}x its working set (the model's bytes over the arrays' size): the same data is "
             "read again and again", r=again),
         msg("the {level} roof is {bw}, the {faster} roof {bw2} ({g:.1f}x)", level=level, bw=si(mem[level], "B/s"),
             faster=faster, bw2=si(mem[faster], "B/s"), g=gain)],
        msg("the data does not fit {faster}: every pass streams it from {level}", faster=faster, level=level),
        msg("block the computation so that each block's data (under {cap}) is reused while it is in {faster}",
            cap=binary_bytes(cap), faster=faster), ("smaller",))

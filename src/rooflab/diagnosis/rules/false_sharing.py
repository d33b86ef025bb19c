"""False sharing: the threads of a parallel region each update their own element of one array in a loop
(``sum[tid] += ...``). Neighbouring elements share a cache line, so the line moves from one core's cache to the
other's at every write. Tested by a copy of the source in which each thread's element lies on a line of its own."""

from __future__ import annotations

from rooflab.diagnosis.rules.facts import Facts, finding
from rooflab.i18n import msg
from rooflab.units import pct

ID = "false_sharing"
TEST = "unshared"
LINE_TRIP = 4.0  # a write that waits for its line to come back from another core costs several ordinary ones


def WORD():
    return msg("false sharing between threads")


def find(f: Facts) -> list[dict]:
    slots = (f.code.get("pragmas") or {}).get("thread_slots") or []
    threads = min(f.ctx.get("threads") or 1, f.ctx.get("cpus") or 1)
    if not slots or not f.ctx.get("openmp") or threads < 2:
        return []
    ev = [msg("in its parallel region each thread updates element `{array}[{index}]` inside a loop: the elements of "
              "the threads lie side by side, on one cache line", array=s["array"], index=s["index"])
          for s in slots[:2]]
    busy = f.row.get("cpus_busy")
    if busy is not None and f.of_roof is not None:
        ev.append(msg("it kept {busy:.1f} CPUs busy and reached {frac} of its roof", busy=busy, frac=pct(f.of_roof)))
    return [finding(
        ID, LINE_TRIP, ev,
        msg("each write by one thread takes the line from the other threads' caches: the threads wait for the line "
            "to move between cores at every iteration, though they never touch the same element"),
        msg("accumulate in a variable local to each thread and write its element once at the end (or use a "
            "reduction clause), or give each thread's element a cache line of its own (pad it to 64 bytes)"),
        ("unshared",))]

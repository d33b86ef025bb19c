"""Load imbalance: an OpenMP kernel whose threads are idle part of the call (its CPU time over its wall time is
well under the threads it runs), as with a static schedule over iterations of unequal work (a triangle). Tested by
a copy of the source whose parallel loops get a dynamic schedule."""

from __future__ import annotations

import re

from rooflab.diagnosis.rules.facts import MIN_PARALLEL_S, Facts, finding
from rooflab.timing.checks import COMPETING_CORES
from rooflab.i18n import msg

ID = "imbalance"
TEST = "dynamic"
BUSY_SHARE = 0.8  # CPUs kept busy under this share of the threads: they waited for each other


def WORD():
    return msg("load imbalance")


def idle_threads(f: Facts) -> bool:
    """An OpenMP kernel whose threads were measured idle part of the call (its CPU time over its wall time well
    under its threads), with no other process taking CPU time meanwhile (which reads as idle threads)."""
    threads = min(f.ctx.get("threads") or 1, f.ctx.get("cpus") or 1)
    busy = f.row.get("cpus_busy")
    shared = (f.row.get("others_cores") or 0.0) >= COMPETING_CORES
    return bool(f.ctx.get("openmp") and threads >= 2 and busy is not None and busy < BUSY_SHARE * threads
                and not shared)


def find(f: Facts) -> list[dict]:
    threads = min(f.ctx.get("threads") or 1, f.ctx.get("cpus") or 1)
    busy = f.row.get("cpus_busy")
    if not f.ctx.get("openmp") or threads < 2 or f.row["time_s"] < 5 * MIN_PARALLEL_S:
        return []
    pragmas = f.code.get("pragmas") or {}
    if re.search(r"schedule\s*\(\s*(dynamic|guided)", pragmas.get("omp_text") or ""):
        return []  # already scheduled dynamically: the idle time has another cause
    # CPU time others took (processes, the host's steal) reads as idle threads: then only the source can say
    idle = idle_threads(f)
    # an OpenMP runtime's waiting threads spin for a while, and spinning is CPU time: the source says more
    uneven = pragmas.get("uneven_loop")
    if not (idle or uneven):
        return []
    ev = []
    if idle:
        ev.append(msg("it kept {busy:.1f} of its {n} threads' CPUs busy while timed (its CPU time over the wall "
                      "time): the threads wait for each other {idle} of the time", busy=busy, n=threads,
                      idle=f"{1 - busy / threads:.0%}"))
    if uneven:
        ev.append(msg("its parallel loop over {var} holds a loop whose bound depends on {var} (`{bound}`): the "
                      "iterations differ in work, and a static schedule gives each thread a block of them",
                      var=uneven["var"], bound=uneven["bound"]))
    factor = threads / max(busy, 1.0) if idle else (2 * threads - 1) / threads
    return [finding(
        ID, factor, ev,
        msg("the threads get unequal work (a static schedule over iterations that differ in cost): the call lasts "
            "as long as the slowest thread while the others wait at the barrier"),
        msg("schedule the loop dynamically in small chunks (schedule(dynamic, chunk); guided hands its first large "
            "chunks out as a static schedule would), or split the iterations so that each thread gets the same work"),
        ("dynamic",))]

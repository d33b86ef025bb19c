"""Load imbalance: an OpenMP kernel whose threads are idle part of the call (its CPU time over its wall time is
well under the threads it runs), as with a static schedule over iterations of unequal work (a triangle). Tested by
a copy of the source whose parallel loops get a dynamic schedule (where the work is unknown, or read from the data:
a sparse row's length), or, where the work grows or shrinks along the loop (a triangle), one whose iterations are
dealt to the threads in turn (schedule(static, 1)), which also keeps each thread's rows in its cache from call to
call."""

from __future__ import annotations

import re

from rooflab.diagnosis.rules.facts import MIN_PARALLEL_S, Facts, finding
from rooflab.timing.checks import COMPETING_CORES
from rooflab.i18n import msg

ID = "imbalance"
TEST = "dynamic"
BUSY_SHARE = 0.8  # CPUs kept busy under this share of the threads: they waited for each other
# a call this long or longer loses to unequal work written in its source (a triangle under a static schedule): a
# dynamic schedule's chunks cost a fraction of a microsecond each (a 600-row triangle, 21 us a call: 1.23x)
UNEVEN_MIN_S = 5e-6


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


def uneven_static(f: Facts) -> bool:
    """An OpenMP build whose worksharing loop holds a loop with a bound on the shared loop's variable (a triangle)
    under a static schedule: its threads get unequal work, whatever roof the stored ceilings put it near (a
    triangle scaled in L2 by two threads read 98% of a stored two-CPU roof, and its dynamic schedule ran 1.23x)."""
    pragmas = f.pragmas
    return bool(f.ctx.get("openmp") and min(f.ctx.get("threads") or 1, f.ctx.get("cpus") or 1) >= 2
                and pragmas.uneven_loop
                and not re.search(r"schedule\s*\(\s*(dynamic|guided)", pragmas.omp_text))


def find(f: Facts) -> list[dict]:
    threads = min(f.ctx.get("threads") or 1, f.ctx.get("cpus") or 1)
    busy = f.row.get("cpus_busy")
    pragmas = f.pragmas
    # idle threads in a short call are its fork and join; unequal work written in the source costs in any call
    # long enough to share at all
    if not f.ctx.get("openmp") or threads < 2 or \
            f.row["time_s"] < (UNEVEN_MIN_S if uneven_static(f) else 5 * MIN_PARALLEL_S):
        return []
    if re.search(r"schedule\s*\(\s*(dynamic|guided)", pragmas.omp_text):
        return []  # already scheduled dynamically: the idle time has another cause
    # CPU time others took (processes, the host's steal) reads as idle threads: then only the source can say
    idle = f.row["time_s"] >= 5 * MIN_PARALLEL_S and idle_threads(f)
    # an OpenMP runtime's waiting threads spin for a while, and spinning is CPU time: the source says more
    uneven = pragmas.uneven_loop
    if not (idle or uneven):
        return []
    ev = []
    if idle:
        ev.append(msg("it kept {busy:.1f} of its {n} threads' CPUs busy while timed (its CPU time over the wall "
                      "time): the threads wait for each other {idle} of the time", busy=busy, n=threads,
                      idle=f"{1 - busy / threads:.0%}"))
    if uneven and uneven.get("read"):
        ev.append(msg("its parallel loop over {var} holds a loop whose bound is read from memory at {var} "
                      "(`{bound}`): each iteration's work follows the data, and a static schedule gives each thread "
                      "a block of them", var=uneven["var"], bound=uneven["bound"]))
    elif uneven:
        ev.append(msg("its parallel loop over {var} holds a loop whose bound depends on {var} (`{bound}`): the "
                      "iterations differ in work, and a static schedule gives each thread a block of them",
                      var=uneven["var"], bound=uneven["bound"]))
    factor = threads / max(busy, 1.0) if idle else (2 * threads - 1) / threads
    why = msg("the threads get unequal work (a static schedule over iterations that differ in cost): the call lasts "
              "as long as the slowest thread while the others wait at the barrier")
    if uneven and not uneven.get("read"):
        # work that grows or shrinks with the shared loop's variable (a triangle): dealt in turn, each thread gets
        # the same share, and the same iterations at every call, so their data stay in its cache
        return [finding(
            ID, factor, ev, why,
            msg("deal the iterations to the threads in turn ({cyclic}): with work that grows along the loop each "
                "thread gets the same share, and the same rows at every call, so their data stay in its cache; or "
                "schedule the loop dynamically in small chunks (schedule(dynamic, chunk)) where the work has no "
                "pattern", cyclic="schedule(static, 1)"),
            ("cyclic",), test="cyclic")]
    # work the data decide (a sparse row's length) has no pattern to deal in turn: rows dealt one at a time share
    # their lines, and the outputs written beside each other, between the threads (a CSR product whose rows shrink
    # along the matrix: schedule(static, 1) 1.15x, dynamic chunks 1.35x-1.40x in a C check)
    return [finding(
        ID, factor, ev, why,
        msg("schedule the loop dynamically in small chunks (schedule(dynamic, chunk); guided hands its first large "
            "chunks out as a static schedule would), or split the iterations so that each thread gets the same work"),
        ("dynamic",))]

"""OpenMP overhead at a small size: a parallel region whose call lasts a few fork-joins of the thread team, or whose
threads spend a large share of their sampled time in the OpenMP runtime (many small regions per call), where
starting and joining the threads costs as much as the work; or a loop handed out a few iterations at a time
(``schedule(dynamic)``, whose chunk is one iteration unless it says otherwise), each chunk a call into the runtime.
Tested by the same source built without OpenMP, and a loop scheduled in small chunks by the same loop in large
ones."""

from __future__ import annotations

import re

from rooflab.diagnosis.rules.facts import Facts, finding
from rooflab.i18n import msg
from rooflab.units import pct, seconds

ID = "omp_overhead"
TEST = "serial"
SMALL_S = 50e-6  # a parallel call this short or shorter is within a few fork-joins (each a few microseconds)
# this share of the threads' sampled time in the OpenMP runtime or more: regions too small for their team (many
# short regions in one call, as a parallel loop inside a time-step loop makes)
RUNTIME_SHARE = 0.25
# schedule(dynamic), schedule(dynamic, 1) ... schedule(dynamic, 64): chunks so small that asking the runtime for each
# costs about as much as running it (an atomic on the shared loop counter, tens to hundreds of cycles)
SMALL_CHUNK = 64
_DYNAMIC = re.compile(r"schedule\s*\(\s*(?:nonmonotonic\s*:\s*|monotonic\s*:\s*)?dynamic\s*(?:,\s*(\w+)\s*)?\)")


def small_chunks(omp_text: str) -> str | None:
    """The schedule clause that hands a loop out in chunks of at most SMALL_CHUNK iterations, as written; None."""
    for m in _DYNAMIC.finditer(omp_text or ""):
        chunk = m.group(1)
        if chunk is None or (chunk.isdigit() and int(chunk) <= SMALL_CHUNK):
            return m.group(0)
    return None


def WORD():
    return msg("OpenMP overhead at this size")


def find(f: Facts) -> list[dict]:
    threads = f.ctx.get("threads") or 1
    if not f.ctx.get("openmp") or threads < 2:
        return []
    share = f.hot_loop.runtime_share
    regions = f.ctx.get("regions_per_call") or 1
    per_region = f.row["time_s"] / max(1, regions)
    short = per_region <= SMALL_S
    if not short and (share or 0) < RUNTIME_SHARE:
        return []
    ev = []
    if short and regions > 1:
        ev.append(msg("one call enters its parallel region {k} times (it is inside a loop): {t} per region on {n} "
                      "threads, a few times what a fork-join of the team costs", k=regions, t=seconds(per_region),
                      n=threads))
    elif short:
        ev.append(msg("one call lasts {t} on {n} threads: a few times what a fork-join of the team costs",
                      t=seconds(f.row["time_s"]), n=threads))
    if share is not None and share >= RUNTIME_SHARE:
        ev.append(msg("{share} of its threads' time, sampled, was spent in the OpenMP runtime and the operating "
                      "system (starting, scheduling and joining parallel regions, waiting at their barriers, waking "
                      "each other), not in its own code", share=pct(share)))
    clause = small_chunks(f.pragmas.omp_text)
    if clause and share is not None and share >= RUNTIME_SHARE:
        ev.append(msg("its loop is handed out in chunks of a few iterations ({clause}): each chunk asks the runtime "
                      "for the next, on a counter all the threads share", clause=clause))
        return [finding(
            ID, 1 / max(1e-3, 1 - share), ev,
            msg("the threads spend their time asking the OpenMP runtime for work: each chunk of a few iterations "
                "costs a call and an atomic update of the shared loop counter, more than the iterations themselves"),
            msg("hand the loop out in large chunks: schedule(static), or schedule(dynamic, N) with N iterations "
                "worth some microseconds of work each (thousands for a simple loop)"), ("dynamic", "serial"),
            test="dynamic")]
    return [finding(
        ID, max(2.0 if short else 1.0, 1 / max(1e-3, 1 - (share or 0))), ev,
        msg("at this size the threads cost about as much as the work: starting, scheduling and joining the team "
            "takes microseconds per call"),
        msg("run small sizes on one thread (an if clause: #pragma omp parallel for if(n > N)), give each region "
            "more work, or open the parallel region once outside an outer loop (#pragma omp parallel around it, "
            "#pragma omp for inside)"), ("serial",))]

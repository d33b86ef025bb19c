"""OpenMP overhead at a small size: a parallel region whose call lasts a few fork-joins of the thread team, or whose
threads spend a large share of their sampled time in the OpenMP runtime (many small regions per call), where
starting and joining the threads costs as much as the work. Tested by the same source built without OpenMP."""

from __future__ import annotations

from rooflab.diagnosis.rules.facts import Facts, finding
from rooflab.i18n import msg
from rooflab.units import pct, seconds

ID = "omp_overhead"
TEST = "serial"
SMALL_S = 50e-6  # a parallel call this short or shorter is within a few fork-joins (each a few microseconds)
# this share of the threads' sampled time in the OpenMP runtime or more: regions too small for their team (many
# short regions in one call, as a parallel loop inside a time-step loop makes)
RUNTIME_SHARE = 0.25


def WORD():
    return msg("OpenMP overhead at this size")


def find(f: Facts) -> list[dict]:
    threads = f.ctx.get("threads") or 1
    if not f.ctx.get("openmp") or threads < 2:
        return []
    share = (f.code.get("hot_loop") or {}).get("runtime_share")
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
    return [finding(
        ID, max(2.0 if short else 1.0, 1 / max(1e-3, 1 - (share or 0))), ev,
        msg("at this size the threads cost about as much as the work: starting, scheduling and joining the team "
            "takes microseconds per call"),
        msg("run small sizes on one thread (an if clause: #pragma omp parallel for if(n > N)), give each region "
            "more work, or open the parallel region once outside an outer loop (#pragma omp parallel around it, "
            "#pragma omp for inside)"), ("serial",))]

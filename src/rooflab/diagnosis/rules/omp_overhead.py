"""OpenMP overhead at a small size: a parallel region whose call lasts a few fork-joins of the thread team, where
starting and joining the threads costs as much as the work. Tested by the same source built without OpenMP."""

from __future__ import annotations

from rooflab.diagnosis.rules.facts import Facts, finding
from rooflab.i18n import msg
from rooflab.units import seconds

ID = "omp_overhead"
TEST = "serial"
SMALL_S = 50e-6  # a parallel call this short or shorter is within a few fork-joins (each a few microseconds)


def WORD():
    return msg("OpenMP overhead at this size")


def find(f: Facts) -> list[dict]:
    threads = f.ctx.get("threads") or 1
    if not f.ctx.get("openmp") or threads < 2 or f.row["time_s"] > SMALL_S:
        return []
    return [finding(
        ID, 2.0, [msg("one call lasts {t} on {n} threads: a few times what a fork-join of the team costs",
                      t=seconds(f.row["time_s"]), n=threads)],
        msg("at this size the threads cost about as much as the work: starting, scheduling and joining the team "
            "takes microseconds per call"),
        msg("run small sizes on one thread (an if clause: #pragma omp parallel for if(n > N)), or give each call "
            "more work"), ("serial",))]

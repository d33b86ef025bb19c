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
    slots = f.pragmas.thread_slots
    threads = min(f.ctx.get("threads") or 1, f.ctx.get("cpus") or 1)
    if not f.ctx.get("openmp") or threads < 2:
        return []
    if f.loop.get("atomics"):
        return shared_atomics(f)
    if not slots:
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


def shared_atomics(f: Facts) -> list[dict]:
    """Atomic updates in the hot loop of an OpenMP build (``#pragma omp atomic`` on a histogram's bins): every
    thread writes the same lines, each update taking its line from the other core's cache. The lines are truly
    shared, and cost as falsely shared ones do. Tested by the build without OpenMP: where one thread is faster, the
    sharing costs more than the threads give."""
    ev = [msg("its hot loop makes {n} atomic update(s) of memory per iteration ({what}), in a parallel region: "
              "the threads update the same lines", n=f.loop["atomics"], what="#pragma omp atomic, lock")]
    waits = f.waits
    if waits:
        ev.append(msg("measured {m:.1f} cycles per iteration on each thread where {tool} predicts {p:.1f} from the "
                      "instructions alone: {w:.1f}x, the updates wait for their lines", m=f.row["cycles_per_iteration"],
                      tool=f.prediction.get("tool") or "llvm-mca", p=f.prediction["cycles_per_iteration"], w=waits))
    return [finding(
        ID, max(LINE_TRIP, waits or 0), ev,
        msg("each atomic update by one thread takes the line from the other threads' caches: the updates wait for "
            "the line to move between cores, one at a time, however many threads share the loop"),
        msg("give each thread its own copy to update without atomics (a private array, or reduction(+:h[:n]) with "
            "OpenMP 4.5) and add the copies once at the end; at the least, keep the copies' lines apart"),
        ("serial",), test="serial")]

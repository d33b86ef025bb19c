"""At its roof: within a fifth of it, or of the reference alternated with it (rooflab's bandwidth kernel at DRAM;
bound by compute, the machine's BLAS GEMM on the same threads). Then nothing is left to gain in the kernel itself,
and this finding stands alone; unless a faster level could hold its working set, or streaming stores would lift
the roof of the arrays it only writes. Subnormal numbers in its arrays are named beside it, to be tested."""

from __future__ import annotations

from rooflab.diagnosis.rules import denormals, threads, working_set, write_allocate
from rooflab.diagnosis.rules.imbalance import UNEVEN_MIN_S, idle_threads, uneven_static
from rooflab.diagnosis.rules.facts import AT_ROOF, MIN_PARALLEL_S, Facts, blas_roof, finding, reference_evidence
from rooflab.i18n import msg
from rooflab.units import binary_bytes, pct, si

ID = "at_roof"
TEST = None


def WORD():
    return msg("at its roof")


def _roofs_used(f: Facts) -> dict | None:
    return f.ctx.get("roofs_all") if f.eff.get("threads") else f.ctx.get("roofs")


def at_roof(f: Facts) -> bool:
    """Within a fifth of its roof (at the fast end of the interval, where the time is noisy), or within a fifth of
    the reference alternated with it. Without that GEMM, as fast as the BLAS GEMM stored with the roofline."""
    row, eff = f.row, f.eff
    if eff.get("of_roof") is None or f.alone or (f.row["time_s"] >= 5 * MIN_PARALLEL_S and idle_threads(f)):
        return False  # threads measured idle part of the call: not all of its roof is in use
    # (a reference slowed itself measures nothing against: the stored roofs judge)
    live = f.live
    if f.row["time_s"] >= UNEVEN_MIN_S and uneven_static(f) and f.live_high < AT_ROOF:
        return False  # threads given unequal work by the source: only a reference measured beside it says more
    top = max(eff.get("of_roof") or 0, eff.get("of_roof_hi") or 0, f.live_high)
    if top >= AT_ROOF:
        return True
    if live is not None and live.kind == "blas_gemm" and live.ratio:
        return False  # the GEMM measured alongside it says more than one stored at another moment
    blas = blas_roof(_roofs_used(f))
    fast = row["flops_per_s"] * row["time_s"] / row["time_ci95"][0] if row.get("time_ci95") else row["flops_per_s"]
    return bool(row.get("bound") == "compute" and blas and fast >= 0.95 * blas)


def alone_at_own_roof(f: Facts) -> bool:
    """One thread of several CPUs (see Facts.alone), at its own one-thread roof: nothing in the loop holds it back,
    only the CPUs it leaves idle."""
    top = max(f.eff.get("of_roof") or 0, f.eff.get("of_roof_hi") or 0, f.live_high)
    return f.alone and top >= AT_ROOF


def find(f: Facts) -> list[dict] | None:
    """None when the kernel is not at its roof (the other rules then speak); else its only finding(s). One thread
    at its own roof while other CPUs idle is told to use them, and nothing about its loop (a row scan at 99% of
    its L3 roof was also told its chain, which an unrolled build left as it was)."""
    if not at_roof(f):
        if not alone_at_own_roof(f):
            return None
        ws = working_set.at_roof_of_a_slower_level(f.row, f.ctx)
        return [*threads.find(f), *([ws] if ws else []), *write_allocate.find(f)]
    row, eff, of_roof = f.row, dict(f.eff), f.of_roof
    ws = working_set.at_roof_of_a_slower_level(row, f.ctx)
    if ws is not None:  # at the roof of a level its data could be kept above
        return [ws]
    wa = write_allocate.find(f)
    if wa:  # at the roof of ordinary stores, which the streaming-store roof is above
        return wa
    live = f.live
    if live is not None and live.ratio and (f.live_high >= AT_ROOF or live.ratio > of_roof):
        of_roof = live.ratio  # the same moment's bandwidth says more than a stored roof
        eff["live"] = (msg("the rate of this machine's BLAS GEMM measured alongside it") if live.kind == "blas_gemm"
                       else msg("the bandwidth of rooflab's {kind} kernel measured alongside it", kind=live.kind))
    roof = eff.get("live") or (msg("the {level} bandwidth roof", level=eff["level"] or row.get("level"))
                               if row.get("bound") == "memory" else msg("the compute roof"))
    if row.get("bound") == "memory":
        words = msg("at {frac} of {roof}: nothing left to gain in this kernel; reduce its traffic instead "
                    "(fewer passes over the data, narrower types, blocking that keeps data in a faster level)",
                    frac=pct(of_roof), roof=roof)
    else:
        words = msg("at {frac} of {roof}, as fast as the best real code gets there: nothing left to gain in this "
                    "kernel; only fewer operations would make it faster", frac=pct(of_roof), roof=roof)
    moved = not row.get("flops") and row.get("roof_bytes_per_s")  # it moves data and computes nothing
    ev = [msg("{rate} against a roof of {roof} at its working set ({ws} in {level})",
              rate=si(row["bytes_per_s"], "B/s") if moved else si(row["flops_per_s"], "FLOP/s"),
              roof=si(row["roof_bytes_per_s"], "B/s") if moved else si(eff["roof_flops_per_s"], "FLOP/s"),
              ws=binary_bytes(row["working_set_bytes"]), level=eff["level"])]
    if live is not None and live.ratio:
        ev.append(reference_evidence(live))
    blas = blas_roof(_roofs_used(f))
    if row.get("bound") == "compute" and blas and (live is None or live.kind != "blas_gemm"):
        ev.append(msg("this machine's BLAS GEMM reaches {blas} on the same threads", blas=si(blas, "FLOP/s")))
    # subnormal numbers can hold a kernel at what looks like its roof (the slow path takes the time, not the
    # memory; a kernel 93% of the way to its L2 roof ran 1.41x faster with them flushed): beside it, with
    # flush-to-zero as its test, which refutes it where the core handles them at full speed
    return [finding(ID, 1.0, ev, words), *denormals.find(f)]

"""`rooflab measure`: this machine's cache-aware roofline.

Compute ceilings from audited FMA-chain kernels (scalar, SIMD without FMA, SIMD FMA; fp64 and fp32; one thread and
all), each paired round by round with a clock measurement to give its fraction of the theoretical peak; BLAS GEMM
as the achievable ceiling. Bandwidth ceilings from a working-set sweep of read, copy and triad (one thread and all)
whose plateaus are found from the curve, then measured again well inside each plateau. GEMV and a NumPy copy beside
them. Then the batch sweep X[B,D]·W[D,F] against the roofline. The lab returns a document; it never prints.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import statistics
import time
from dataclasses import dataclass

import numpy as np

from rooflab.commands.measure.common import ceiling_tables, rename_above_limit, sweep_notes, sweep_roofline, sweep_table
from rooflab.contract import Command, Hooks, Mpi, Outputs, Report, option, quick_option, threads_option
from rooflab.documents.common import Roofs, Theoretical, read
from rooflab.documents.measure import ceilings
from rooflab.errors import RooflabError, StoreError
from rooflab.i18n import msg, tr
from rooflab.interpret.machine import machine_table
from rooflab.interpret.measure import measure_observations
from rooflab.kernels import tasks
from rooflab.kernels.builders import (KLASS_LABEL, PREC_DTYPE, PeakVariant, audit_peak, audit_stream, build_clock,
                                      build_peak, build_stream, default_chains, vector_bytes)
from rooflab.machine.env import usable_cpus
from rooflab.model.bounds import check_bandwidth_bound
from rooflab.model.caches import cache_capacities
from rooflab.model.plateaus import (confirm_edge, edge_suspect, edge_window, find_plateaus, name_plateaus,
                                    refine_boundaries, refinement_sizes, sweep_sizes)
from rooflab.model.roofline import best_bandwidth, best_compute, matmul_counts, measure_roofs, sweep_point, trust
from rooflab.mpi.jobs import aggregate_measure_job
from rooflab.results.history import measure_history
from rooflab.session import Session
from rooflab.timing import policy
from rooflab.timing.checks import check_clock_stability, check_level_order, check_physical_limit, check_thread_scaling
from rooflab.timing.harness import HarnessConfig, Timing
from rooflab.timing.policy import CV_LIMIT, OTHERS_LIMIT, RUNNING_MIN, assess, mark_disturbed
from rooflab.toolchain.asm import audit_function

KLASSES = ("scalar", "simd", "simd_fma")
STREAM_KINDS = tasks.STREAM_KINDS
NT_KINDS = tasks.NT_KINDS
DRAM_KINDS = STREAM_KINDS + NT_KINDS
TRAFFIC_MODEL = {
    "read": "8 B/element: one load",
    "copy": "16 B/element: one load + one store (write-allocate not counted, as STREAM: the store first reads its "
            "line, so DRAM moves 24 B)",
    "triad": "24 B/element: two loads + one store (write-allocate not counted, as STREAM: the store first reads its "
             "line, so DRAM moves 32 B)",
    "read_nt": "8 B/element: one non-temporal load",
    "copy_nt": "16 B/element: one load + one streaming store (no write-allocate: DRAM moves the 16 B counted)",
    "triad_nt": "24 B/element: two loads + one streaming store (no write-allocate: DRAM moves the 24 B counted)",
}


@dataclass(frozen=True)
class MeasureOptions:
    quick: bool = quick_option("A first look in about 15 s: fewer samples, smaller sizes.")
    threads: int | None = threads_option("Thread count for the 'all threads' ceilings (default: every CPU this "
                                         "process may use).")
    precision: str = option("both", choices=("fp32", "fp64", "both"), help="Precision of the compute ceilings.")
    batch_sweep: bool = option(True, help="Run the X[B,D]·W[D,F] sweep against the roofline.",
                               negate_help="Skip the X[B,D]·W[D,F] sweep.")
    mpi: bool = option(False, help="Run as one rank of an MPI job (mpirun -n N rooflab measure --mpi): ranks measure "
                                   "together, rank 0 aggregates and stores.")
    device: str = option("cpu", choices=("cpu", "cuda"), help="What to measure: this machine's CPUs, or its NVIDIA "
                                                               "GPU (needs CuPy: pip install 'rooflab[gpu]').")
    gpu: int = option(0, min=0, help="Which CUDA device, with --device cuda.")
    # when a ceiling's CPUs were not ours, wait up to this long in all (seconds) for other load to stop before
    # measuring it again; 0: measure again at once and mark it disturbed if that does not help
    wait_quiet_s: float = option(0.0, flag="--wait-quiet", min=0, max=3600, metavar="SECONDS",
                                 help="When other processes disturb a ceiling, wait up to SECONDS in all for them to "
                                      "stop before measuring it again (0: mark it disturbed at once).")

    @property
    def precisions(self) -> tuple[str, ...]:
        return ("fp64", "fp32") if self.precision == "both" else (self.precision,)

    def all_threads(self) -> int:
        return self.threads or usable_cpus()


@dataclass(frozen=True)
class Plan:
    # max_sample_s caps how far a count may grow to dwarf a call overhead: under load a thread's wake-up can take
    # milliseconds, and a measurement that cannot shed it within the cap fails (it is disturbed anyway) instead of
    # running for minutes
    peak: HarnessConfig
    gemm: HarnessConfig
    sweep: HarnessConfig
    ceiling: HarnessConfig
    batch: HarnessConfig
    gemm_n: int
    gemv_d: int
    copy_bytes: int
    ws_min: int
    ws_max: int
    points_per_octave: int
    batch_d: int
    batches: tuple[int, ...]
    attempts: int  # measurements of one compute ceiling at most, while the machine is not quiet (disturbance())
    bw_attempts: int  # the same for a bandwidth ceiling (each attempt of a DRAM-sized set costs more)
    edge_step: float | None  # spacing (a factor) of extra sweep points around each plateau edge; None: none


# harness settings per measurement, (quick, full): min_sample_s, samples, warmup, min_samples, budget_s, max_sample_s
_CONFIGS = {
    "peak": ((0.005, 5, 1, 5, 0.4, 2.0), (0.01, 11, 2, 7, 1.0, 2.0)),
    "gemm": ((0.02, 5, 1, 3, 0.6, 2.0), (0.05, 7, 1, 5, 1.2, 2.0)),
    "sweep": ((0.002, 3, 1, 3, 0.2, 0.05), (0.003, 5, 1, 3, 0.3, 0.1)),
    "ceiling": ((0.005, 5, 1, 5, 0.4, 0.25), (0.01, 11, 2, 7, 1.0, 0.5)),
    "batch": ((0.01, 5, 1, 3, 0.3, 2.0), (0.02, 7, 1, 3, 1.0, 2.0)),
}


def make_plan(opts: MeasureOptions, machine: dict) -> Plan:
    caches = machine.get("cache_details") or []
    llc = max((c["size"] * c.get("instances", 1) for c in caches if c["type"] in ("Data", "Unified")),
              default=32 << 20)
    mem = machine.get("memory_bytes") or (8 << 30)
    full = not opts.quick
    configs = {k: HarnessConfig(*v[full][:5], max_sample_s=v[full][5]) for k, v in _CONFIGS.items()}
    if opts.quick:
        sizes = dict(gemm_n=1024, gemv_d=4096, copy_bytes=64 << 20, ws_max=min(max(4 * llc, 64 << 20), mem // 8),
                     points_per_octave=1, batch_d=4096, batches=(1, 2, 4, 8, 16, 32, 64, 128, 256),
                     edge_step=None)
    else:
        sizes = dict(gemm_n=2048, gemv_d=8192, copy_bytes=256 << 20, ws_max=min(max(8 * llc, 256 << 20), mem // 6),
                     points_per_octave=2, batch_d=8192, batches=tuple(2 ** i for i in range(10)),
                     edge_step=2 ** (1 / 4))
    return Plan(**configs, **sizes, ws_min=8 << 10, attempts=2, bw_attempts=2)


def working_sets(plan: Plan) -> list[int]:
    return sweep_sizes(plan.ws_min, plan.ws_max, plan.points_per_octave)


def elements_for(kind: str, ws: float) -> int:
    n = int(ws / (8 * tasks.STREAM_ARRAYS[kind]))
    return max(64, n - n % 64)


# A ceiling is measured again (up to Plan.attempts times) when its samples show that the machine was not quiet: a
# spread above the ceiling limit, a clock that dipped beside it, a fraction of the peak above the physical limit, all
# threads running far slower than one thread times their number, its threads running only part of the time (their
# CPU time against the call's wall time), or other processes busy on the CPUs that matter to it. The attempt kept is
# the least disturbed one, not the fastest, and every attempt is recorded. When even that one shows that the CPUs
# were not ours, the ceiling is marked `disturbed`: shown with its reason, never a roof.
# a one-thread compute ceiling on a virtual machine under this fraction of the theoretical peak, while other
# processes kept another vCPU busy, was sharing a physical core (quiet here: 96-99%; beside a burst on the other vCPU:
# 0.47x its quiet rate, with clean signals of its own)
VM_SHARED_CORE_FRACTION = 0.8
# a one-thread private-cache ceiling measured again only for the load on the other vCPUs: this many more tries,
# this far apart (bursts come and go within a second)
BESIDE_EXTRA_ATTEMPTS = 2
BESIDE_SPACING_S = 0.3


def _peak_attempt(res: dict, flops: float, th: dict | None, prec: str, klass: str, threads: int,
                  rate_1: float | None, others: float | None = None, beside: float | None = None) -> dict:
    """One attempt at a compute ceiling, judged (see assess). ``beside``: on a virtual machine, the cores other
    processes used on every CPU while the kernel was confined to one; a host may run two vCPUs on one physical core,
    and the kernel then reaches about half the peak with clean signals of its own, so a fraction of the
    theoretical peak below VM_SHARED_CORE_FRACTION while others were busy beside it is not a ceiling."""
    tp, tc = Timing.from_dict(res["peak"]), Timing.from_dict(res["clock"])
    wall_hz = [res["adds_per_rep"] / t for t in tc.samples]
    dip = 1.0 - min(wall_hz) / max(wall_hz) if wall_hz and max(wall_hz) > 0 else 0.0
    frac = frac_ci = flops_per_cycle = frac_run = None
    if th:
        flops_per_cycle = th["per_core"][prec][klass] / th["clock_hz"] * min(threads, th["cores"])
        frac, frac_ci = tasks.per_round_fraction(flops, tp.samples, res["clock_hz_running"], flops_per_cycle)
        # while the threads ran: both the kernel and the clock from their median chunks, which the host's taking a
        # core away does not touch, so this is the code's own share of the peak
        frac_run, _ = tasks.per_round_fraction(flops, res["peak_running_s"], res["clock_hz_running"], flops_per_cycle)
    # the share of the kernel's time its threads were away (interrupts, other tenants): wall against running time,
    # for the kernel and for the clock chain beside it (medians: one slow sample is not the host's habit)
    lost = max(0.0, 1.0 - float(np.median(res["peak_running_s"])) / tp.summary.median)
    clock_lost = (max(0.0, 1.0 - float(np.median(wall_hz)) / float(np.median(res["clock_hz_running"])))
                  if wall_hz else 0.0)
    eff = None
    if th and threads > 1:
        # one thread in the same rounds where the task has it; else the one-thread ceiling measured before
        eff = tasks.same_moment_efficiency(tp.samples, res.get("one_thread_s"), flops, flops / threads,
                                           min(threads, th["cores"]))
        if eff is None and rate_1:
            eff = (flops / tp.summary.median) / (rate_1 * min(threads, th["cores"]))
    worst = max((f for f in (frac, frac_run) if f is not None), default=None)
    score, reasons = assess(tp.summary.cv, clock_dip=dip, lost=max(lost, clock_lost), fraction=worst, efficiency=eff,
                            running=tp.running_fraction, others=others, balance=res.get("thread_balance"))
    if beside is not None and beside >= OTHERS_LIMIT and frac is not None and frac < VM_SHARED_CORE_FRACTION:
        score = max(score, VM_SHARED_CORE_FRACTION / max(frac, 1e-9))
        reasons.append(msg("{frac:.0%} of the theoretical peak while other processes used {cores:.2f} core(s) on the "
                           "other vCPUs: the host may run two vCPUs on one physical core", frac=frac, cores=beside))
    return {"res": res, "tp": tp, "tc": tc, "frac": frac, "frac_ci": frac_ci, "frac_running": frac_run,
            "flops_per_cycle": flops_per_cycle,
            "clock_dip": dip, "time_lost": lost, "efficiency": eff, "rate": flops / tp.summary.median,
            "thread_balance": res.get("thread_balance"),
            "running": tp.running_fraction, "others": others, "beside": beside, "disturbance": score,
            "reasons": reasons}


def _attempt_log(attempts: list[dict], kept: dict) -> list[dict]:
    return [{"rate": a["rate"], "cv": a["tp"].summary.cv, "clock_dip": a.get("clock_dip"),
             "of_theoretical": a.get("frac"), "of_theoretical_running": a.get("frac_running"),
             "time_lost": a.get("time_lost"), "efficiency": a.get("efficiency"), "running": a.get("running"),
             "thread_balance": a.get("thread_balance"),
             "others_cores": a.get("others"), "beside_cores": a.get("beside"), "disturbance": a["disturbance"],
             "disturbed_by": a.get("reasons", []),
             "kept": a is kept} for a in attempts]


def _rate(work: float, t: Timing) -> tuple[float, list[float], list[float]]:
    s = t.summary
    return (*s.rate(work), [work / x for x in t.samples])


# ------------------------------------------------------------------------------------------------- compute


def _compute_ceilings(session: Session, opts: MeasureOptions, plan: Plan, machine: dict, threads_all: int) -> list[dict]:
    isa = machine["isa"]
    th = machine.get("theoretical")
    clock_lib = str(build_clock().path)
    out = []
    vb = vector_bytes(isa)
    for prec in opts.precisions:
        for klass in KLASSES:
            v = PeakVariant(prec, klass, default_chains(isa), 0 if klass == "scalar" else vb)
            session.progress(f"compute: {prec} {KLASS_LABEL[klass]}")
            lib = build_peak(v)
            try:
                a = audit_function(lib.path, "rl_peak_chain")
                audit = a.to_dict() if a else None
                refusal = audit_peak(audit, v)
            except RooflabError as exc:
                audit, refusal = None, msg("the assembly could not be read: {error}", error=str(exc))
            for threads in sorted({1, threads_all}):
                name = f"{prec} {KLASS_LABEL[klass]}" + (f" {v.vbytes * 8}-bit" if v.vbytes else "")
                entry = {"name": name, "precision": prec, "klass": klass,
                         "isa": "scalar" if klass == "scalar" else isa["name"],
                         "vector_bits": v.vbytes * 8, "chains": v.chains, "threads": threads, "audit": audit,
                         "library": lib.to_dict()}
                one = best_compute(out, prec, klass, 1) if threads > 1 else None
                attempts: list[dict] = []

                def once() -> dict:
                    m0 = session.mark()
                    res = session.call(f"peak {name} x{threads}", tasks.peak_task, str(lib.path), clock_lib,
                                       dtype=PREC_DTYPE[prec], chains=v.chains, lanes=v.lanes,
                                       threads=threads, config=plan.peak, on_quiet_cpus=threads)
                    m1 = session.mark()
                    others = session.others_for(m0, m1, shared=False)
                    # on a virtual machine, the load on the other vCPUs too (see _peak_attempt)
                    beside = (session.others_for(m0, m1, shared=True) if session.last_cpus and
                              machine.get("virtualized") else None)
                    attempts.append(_peak_attempt(res, v.flops_per_rep * threads, th, prec, klass, threads,
                                                  one["flops_per_s"] if one else None, others, beside))
                    return attempts[-1]

                try:
                    policy.until_quiet(session, once, plan.attempts)
                except RooflabError as exc:
                    if not attempts:
                        entry.update(status="failed", reason=str(exc), flops_per_s=None, ci95=None)
                        out.append(entry)
                        session.record(f"peak {name} x{threads}", entry)
                        continue
                    entry["retry_error"] = str(exc)  # a later attempt failed: the earlier ones stand
                kept = policy.kept(attempts)
                res, tp, tc = kept["res"], kept["tp"], kept["tc"]
                rate, ci, _ = _rate(v.flops_per_rep * threads, tp)
                entry.update(flops_per_s=rate, ci95=ci, samples=tp.summary.n, cv=tp.summary.cv,
                             rel_error=res["rel_error"], seconds=tp.samples, clock_seconds=tc.samples,
                             clock_hz_running=res["clock_hz_running"],
                             clock_hz_during=float(np.median(tasks.round_clocks(res["clock_hz_running"]))),
                             time_lost=kept["time_lost"], thread_balance=kept["thread_balance"], status="ok",
                             reason=None,
                             attempts=_attempt_log(attempts, kept))
                session.warn(check_clock_stability([res["adds_per_rep"] / t for t in tc.samples],
                                                   subject=f"{name} x{threads}"))
                if th:
                    entry.update(of_theoretical=kept["frac"], of_theoretical_ci95=list(kept["frac_ci"]),
                                 of_theoretical_running=kept["frac_running"],
                                 theoretical_flops_per_s=kept["flops_per_cycle"] * entry["clock_hz_during"])
                    w = check_physical_limit(kept["frac"], 1.0, unit="", subject=f"{name} x{threads}",
                                             what=msg("theoretical peak at the clock measured beside it"))
                    if w:
                        entry.update(status="impossible", reason=w.msg)
                        session.warn(w)
                else:
                    entry.update(of_theoretical=None, of_theoretical_ci95=None, theoretical_flops_per_s=None)
                if refusal and entry["status"] == "ok":
                    entry.update(status="refused", reason=refusal)
                mark_disturbed(entry, kept)
                session.check_timing(f"{name} x{threads}", tp, spread_threshold=CV_LIMIT)
                out.append(entry)
                session.record(f"peak {name} x{threads}", entry)
    if threads_all > 1:
        for prec in opts.precisions:
            for klass in KLASSES:
                one = best_compute(out, prec, klass, 1)
                many = best_compute(out, prec, klass, threads_all)
                if one and many:
                    session.warn(check_thread_scaling(one["flops_per_s"], many["flops_per_s"], min(threads_all, machine[
                        "physical_cores"]), subject=f"{prec} {KLASS_LABEL[klass]}"))
    # the achievable ceiling: BLAS GEMM
    for prec in opts.precisions:
        for threads in sorted({1, threads_all}):
            name = f"{prec} BLAS GEMM n={plan.gemm_n}"
            session.progress(f"compute: {name} x{threads}")
            entry = {"name": name, "precision": prec, "klass": "blas_gemm", "isa": "blas", "vector_bits": None,
                     "chains": None, "threads": threads, "audit": None}
            try:
                m0 = session.mark()
                res = session.call(name, tasks.blas_gemm_task, plan.gemm_n, PREC_DTYPE[prec], threads, plan.gemm,
                                   on_quiet_cpus=threads)
                m1 = session.mark()
                others = session.others_for(m0, m1, shared=False)
                # on a virtual machine, the load on the other vCPUs too: judged against the stored quiet figure
                # (judge_beside), as a one-thread GEMM has no fixed share of the peak to hold it to
                beside = (session.others_for(m0, m1, shared=True) if threads == 1 and session.last_cpus and
                          machine.get("virtualized") else None)
            except RooflabError as exc:
                entry.update(status="failed", reason=str(exc), flops_per_s=None, ci95=None)
                out.append(entry)
                continue
            everything = Timing.from_dict(res["timing"])
            t, touched = everything.rounds_kept(RUNNING_MIN)
            session.check_timing(f"{name} x{threads}", t, spread_threshold=CV_LIMIT)
            rate, ci, _ = _rate(2.0 * plan.gemm_n ** 3, t)
            entry.update(flops_per_s=rate, ci95=ci, samples=t.summary.n, cv=t.summary.cv, rel_error=res["rel_error"],
                         seconds=everything.samples, disturbed_rounds=touched, running=t.running_fraction,
                         status="ok", reason=None)
            if th:
                lim = th["per_core"][prec]["simd_fma"] * min(threads, th["cores"])
                entry.update(of_theoretical=rate / lim, of_theoretical_ci95=[ci[0] / lim, ci[1] / lim],
                             theoretical_flops_per_s=lim)
                w = check_physical_limit(rate, lim, what=msg("{prec} peak", prec=prec), subject=f"{name} x{threads}")
                if w:
                    entry.update(status="impossible", reason=w.msg)
                    session.warn(w)
            eff = tasks.same_moment_efficiency(everything.samples, res.get("one_thread_s"), 2.0 * plan.gemm_n ** 3,
                                               2.0 * plan.gemm_n ** 3, min(threads, machine.get("physical_cores") or
                                                                            threads))
            _, reasons = assess(0.0, others=others, running=t.running_fraction, efficiency=eff)
            entry.update(others_cores=others, efficiency=eff, beside_cores=beside)
            mark_disturbed(entry, {"reasons": reasons})
            out.append(entry)
            session.record(f"{name} x{threads}", entry)
    return out


# ----------------------------------------------------------------------------------------------- bandwidth


def bound_clock(machine: dict, compute: list[dict]) -> float:
    """The clock a bandwidth bound is computed at: the fastest this run measured (at the start, or beside a
    compute ceiling), so that a core that turbo-boosted later is not taken for an impossible one."""
    seen = [machine.get("clock_hz") or 0.0] + [c.get("clock_hz_during") or 0.0 for c in compute]
    return max(seen)


def _bandwidth(session: Session, plan: Plan, machine: dict, threads_all: int,
               clock_hz: float) -> tuple[list[dict], list[dict]]:
    vb = vector_bytes(machine["isa"])
    lib = build_stream(vb)
    audits = {}
    has_nt = tasks.stream_has_nt(str(lib.path))
    for kind in DRAM_KINDS if has_nt else STREAM_KINDS:
        try:
            a = audit_function(lib.path, f"rl_{kind}_pass")
            audits[kind] = (a.to_dict() if a else None)
        except RooflabError:
            audits[kind] = None
    sweeps, ceilings = [], []
    wss = working_sets(plan)
    for kind in STREAM_KINDS:
        refusal = audit_stream(kind, audits[kind], vb)
        for threads in sorted({1, threads_all}):
            session.progress(f"bandwidth sweep: {kind} x{threads}")
            sizes = [elements_for(kind, ws) for ws in wss]
            sizes = sorted(set(sizes))
            try:
                pts = session.call(f"sweep {kind} x{threads}", tasks.stream_task, str(lib.path), kind, sizes, threads,
                                   plan.sweep, timeout_s=600, on_quiet_cpus=threads)
            except RooflabError as exc:
                sweeps.append({"kernel": kind, "threads": threads, "error": str(exc), "points": [], "plateaus": []})
                continue
            points = _sweep_points(pts, kind, machine, threads, clock_hz)
            plats = _plateaus(points)
            # the edges between plateaus, measured again on a finer grid: one noisy sample of the coarse sweep
            # next to an edge would otherwise move it by a whole step
            extra = sorted({elements_for(kind, ws) for ws in refinement_sizes(
                plats, plan.edge_step, existing=[p["working_set_bytes"] for p in _usable(points)])} - set(sizes)
                           ) if plan.edge_step else []
            edge_error = None
            if session.agree(bool(extra)) and not extra:
                session.skip_call(f"sweep edges {kind} x{threads}")
            if extra:
                session.progress(f"bandwidth sweep: {kind} x{threads}, plateau edges")
                try:
                    more = _sweep_points(session.call(f"sweep edges {kind} x{threads}", tasks.stream_task,
                                                      str(lib.path), kind, extra, threads, plan.sweep, timeout_s=600,
                                                      on_quiet_cpus=threads),
                                         kind, machine, threads, clock_hz)
                except RooflabError as exc:
                    more, edge_error = [], str(exc)
                for p in more:
                    p["edge"] = True
                points = sorted(points + more, key=lambda p: p["working_set_bytes"])
                usable = _usable(points)
                refine_boundaries(plats, [p["working_set_bytes"] for p in usable], [p["bytes_per_s"] for p in usable])
            name_plateaus(plats, cache_capacities(machine, threads))
            edges_error = _confirm_edges(session, plan, machine, lib, kind, threads, plats, clock_hz)
            sweep = {"kernel": kind, "threads": threads, "library": lib.to_dict(), "points": points,
                     "plateaus": [p.to_dict() for p in plats],
                     "traffic_model": TRAFFIC_MODEL[kind], "audit": audits[kind], "refused": refusal,
                     "rel_error": pts[0]["rel_error"] if pts else None, "edge_points_error": edge_error,
                     "edge_check_error": edges_error,
                     "impossible_points": sum(1 for p in points if p.get("impossible"))}
            sweeps.append(sweep)
            session.record(f"sweep {kind} x{threads}", sweep)
            # ceilings: measure again, precisely, well inside each named plateau (DRAM: the largest set)
            targets = []
            for p in plats:
                if p.level == "?":
                    continue
                ws = p.end_bytes if p.level == "DRAM" else p.ceiling_bytes
                targets.append((p.level, elements_for(kind, ws)))
            if not session.agree(bool(targets)):
                continue
            session.progress(f"bandwidth ceilings: {kind} x{threads}")
            expect = _private_scaling(ceilings, machine, kind, threads, targets)
            ceilings += _bandwidth_ceilings(session, plan, machine, lib, kind, threads, targets, expect, refusal,
                                            clock_hz)
    # the DRAM roof is what the machine can attain: streaming stores skip the write-allocate read, and
    # non-temporal loads may skip cache allocation; measured at the largest working set, beside the regular kernels
    if has_nt:
        for kind in NT_KINDS:
            refusal = audit_stream(kind, audits[kind], vb)
            for threads in sorted({1, threads_all}):
                if not session.agree(True):
                    continue
                session.progress(f"bandwidth ceilings: {kind} x{threads} in DRAM")
                ceilings += _bandwidth_ceilings(session, plan, machine, lib, kind, threads,
                                                [("DRAM", elements_for(kind, plan.ws_max))], {}, refusal, clock_hz)
    else:
        session.progress("no non-temporal kernels for this ISA: the DRAM roof is the regular-store figure")
    ceilings = _revisit_dram(session, plan, machine, lib, ceilings, clock_hz)
    for w in level_order_warnings(ceilings):
        session.warn(w)
    return sweeps, ceilings


# DRAM is shared with the host's other tenants, whom no signal of ours sees: quiet here, the same DRAM triad on both
# vCPUs came out 1.23x apart in two runs a minute apart, each with clean signals (its threads running 99% of the
# time, no other process busy). Each DRAM ceiling is therefore measured at a second moment, after all the others; of
# the moments whose own signals are clean, the faster is what the machine attains, and every moment is kept.
DRAM_MOMENTS = 2


def _revisit_dram(session: Session, plan: Plan, machine: dict, lib, ceilings: list[dict],
                  clock_hz: float) -> list[dict]:
    """Each DRAM ceiling measured once more, later in the run; the entry kept is the faster of the moments that are
    ``ok`` (a clean later moment also stands in for a disturbed first one). ``moments`` lists each moment's rate and
    status. Every rank of an MPI job revisits the same ceilings, in the same order."""
    out = list(ceilings)
    # the second moment is itself the measurement made again, with as many samples as --quick takes
    cfg = plan.ceiling
    once = dataclasses.replace(plan, bw_attempts=1, ceiling=dataclasses.replace(
        cfg, samples=min(cfg.samples, 5), min_samples=min(cfg.min_samples, 5), warmup=min(cfg.warmup, 1),
        budget_s=min(cfg.budget_s, 0.4)))
    for i, c in enumerate(ceilings):
        if c.get("level") != "DRAM" or c.get("status") in ("failed", "refused") or not c.get("working_set_bytes"):
            continue
        n = c["working_set_bytes"] // (8 * tasks.STREAM_ARRAYS[c["kernel"]])
        session.progress(f"bandwidth ceilings: {c['kernel']} x{c['threads']} in DRAM, a second moment")
        for _ in range(DRAM_MOMENTS - 1):
            # the repetitions the first moment calibrated: the second costs only its samples
            later = _bandwidth_ceilings(session, once, machine, lib, c["kernel"], c["threads"], [("DRAM", n)], {},
                                        None, clock_hz, fixed_reps={n: c["reps"]} if c.get("reps") else None,
                                        revisited=False)[0]
            out[i] = later_moment(out[i], later)
    return out


def later_moment(first: dict, later: dict) -> dict:
    """Of two measurements of one DRAM ceiling at different moments, the one to keep: the later one when it is
    ``ok`` and the first is not, or both are and it is faster; the kept entry lists every moment (``moments``) and
    every attempt of both."""
    moments = (first.get("moments") or [_moment(first)]) + [_moment(later)]
    better = (later.get("status") == "ok" and later.get("bytes_per_s") and
              (first.get("status") != "ok" or later["bytes_per_s"] > (first.get("bytes_per_s") or 0.0)))
    kept, other = (later, first) if better and first.get("status") in ("ok", "disturbed") else (first, later)
    attempts = [{**a, "kept": False} for a in other.get("attempts") or []]
    return {**kept, "moments": moments, "attempts": (kept.get("attempts") or []) + attempts}


def _moment(c: dict) -> dict:
    return {"bytes_per_s": c.get("bytes_per_s"), "status": c.get("status"), "others_cores": c.get("others_cores"),
            "running": c.get("running")}


def _confirm_edges(session: Session, plan: Plan, machine: dict, lib, kind: str, threads: int, plats,
                   clock_hz: float) -> str | None:
    """Measure again, in one more sweep, around every edge that lies more than EDGE_FACTOR from the capacity the
    OS reports (a burst of other work during the sweep can make one): an edge two sweeps agree on is reported, one
    they do not gives way to the OS's size, marked unconfirmed (model.plateaus.confirm_edge). Returns why the
    second sweep failed, if it did (then the suspect edges give way too)."""
    pairs = [(p, q) for p, q in zip(plats, plats[1:]) if edge_suspect(p)]
    sizes = sorted({elements_for(kind, ws) for p, _ in pairs for ws in sweep_sizes(*edge_window(p), 2)})
    if session.agree(bool(sizes)) and not sizes:  # under MPI, another rank checks an edge: keep in step
        session.skip_call(f"sweep edge check {kind} x{threads}")
    if not sizes:
        return None
    session.progress(f"bandwidth sweep: {kind} x{threads}, an edge far from the cache size, measured again")
    error = None
    try:
        again = _usable(_sweep_points(session.call(f"sweep edge check {kind} x{threads}", tasks.stream_task,
                                                   str(lib.path), kind, sizes, threads, plan.sweep, timeout_s=600,
                                                   on_quiet_cpus=threads), kind, machine, threads, clock_hz))
    except RooflabError as exc:
        again, error = [], str(exc)
    for p, q in pairs:
        lo, hi = edge_window(p)
        inside = [x for x in again if lo <= x["working_set_bytes"] <= hi]
        confirm_edge(p, q, [x["working_set_bytes"] for x in inside], [x["bytes_per_s"] for x in inside])
    return error


def _usable(points: list[dict]) -> list[dict]:
    """Sweep points the plateau search may use: measured, and within the physical bound."""
    return [p for p in points if not p.get("impossible") and not p.get("failed")]


def _plateaus(points: list[dict]):
    usable = _usable(points)
    return find_plateaus([p["working_set_bytes"] for p in usable], [p["bytes_per_s"] for p in usable])


def _shared_level(machine: dict, level: str) -> bool:
    """Whether a memory level is shared between cores (DRAM always; a cache when the OS says so)."""
    if level == "DRAM":
        return True
    for c in machine.get("cache_details") or []:
        if f"L{c['level']}" == level and c["type"] in ("Data", "Unified"):
            return c.get("shared_by", 1) > 1
    return True


def _bandwidth_ceilings(session: Session, plan: Plan, machine: dict, lib, kind: str, threads: int,
                        targets: list[tuple[str, int]], expect: dict[int, float], refusal: dict | None,
                        clock_hz: float, fixed_reps: dict[int, int] | None = None, revisited: bool = True
                        ) -> list[dict]:
    """Measure each (level, elements) target of one kernel and thread count, again while the machine is not
    quiet, and return one ceiling entry per target: ok, or failed, impossible, refused or disturbed with why."""
    bpe = tasks.STREAM_BYTES_PER_ELEM[kind]
    tries: dict[int, list[dict]] = {n: [] for _, n in targets}
    level_of = {n: lv for lv, n in targets}
    failure = None
    todo = [n for _, n in targets]
    try:
        attempt, limit = 0, plan.bw_attempts
        while attempt < limit:
            attempt += 1
            if not todo:  # another rank of an MPI job has ceilings to measure, this one none
                session.skip_call(f"ceilings {kind} x{threads}")
            m0 = session.mark()
            got = (session.call(f"ceilings {kind} x{threads}", tasks.stream_task, str(lib.path), kind, todo, threads,
                                plan.ceiling, timeout_s=600, on_quiet_cpus=threads, fixed_reps=fixed_reps)
                   if todo else [])
            m1 = session.mark()
            for r in got:
                if r.get("timing") is None:
                    failure = r.get("error")
                    continue
                everything = Timing.from_dict(r["timing"])
                t, touched = everything.rounds_kept(RUNNING_MIN)  # rounds a burst touched are left out
                rate = bpe * r["n"] / t.summary.median
                eff = rate / expect[r["n"]] if expect.get(r["n"]) else None
                others = session.others_for(m0, m1, shared=_shared_level(machine, level_of[r["n"]]))
                score, reasons = assess(t.summary.cv, efficiency=eff, running=t.running_fraction, others=others,
                                        balance=r.get("thread_balance"))
                # one thread in a cache private to its core, on a virtual machine: the host may run the other vCPU
                # on the same physical core, which halves what this one gets with no signal of its own (beside a
                # burst on the other vCPU an L2 copy ran at 0.60x). Load beside it is a reason to measure again and
                # to prefer a quieter attempt, not proof enough to mark it disturbed.
                beside = (session.others_for(m0, m1, shared=True)
                          if threads == 1 and machine.get("virtualized") and session.last_cpus
                          and not _shared_level(machine, level_of[r["n"]]) else None)
                beside_only = beside is not None and score <= 1.0 < beside / OTHERS_LIMIT
                if beside is not None:
                    score = max(score, beside / OTHERS_LIMIT)
                tries[r["n"]].append({"r": r, "tp": t, "all": everything, "touched": touched, "rate": rate,
                                      "efficiency": eff, "running": t.running_fraction,
                                      "thread_balance": r.get("thread_balance"), "beside": beside,
                                      "beside_only": beside_only, "others": others, "disturbance": score,
                                      "reasons": reasons})
            # a DRAM set is measured again at a second moment later in the run (_revisit_dram), not here
            todo = [n for n in todo if not tries[n] or (tries[n][-1]["disturbance"] > 1.0
                                                          and not (revisited and level_of[n] == "DRAM"))]
            worst = max((tries[n][-1] for n in todo if tries[n]), key=lambda a: a["disturbance"], default=None)
            if not session.agree(bool(todo)):
                break
            # only load beside a one-thread private-cache ceiling (bursts on the other vCPU come and go within a
            # second): a few more short tries, spaced, to find a moment without it; the job agrees on the number
            beside_only = bool(todo) and all(tries[n][-1].get("beside_only") for n in todo if tries[n])
            if session.agree(beside_only) and limit == plan.bw_attempts:
                limit += BESIDE_EXTRA_ATTEMPTS
            if beside_only:
                time.sleep(BESIDE_SPACING_S)
            if worst is not None and worst["reasons"] and session.wait_quiet_left > 0:
                session.wait_for_quiet(OTHERS_LIMIT)
            # under MPI another rank measures again: so does this one, to keep the load the same
            todo = todo or [n for _, n in targets]
    except RooflabError as exc:
        failure = str(exc)
    out = []
    for level, n in targets:
        base = {"level": level, "kernel": kind, "threads": threads}
        if not tries[n]:
            out.append({**base, "status": "failed", "reason": failure, "bytes_per_s": None, "ci95": None})
            continue
        kept = policy.kept(tries[n])
        r, t = kept["r"], kept["tp"]
        rate, ci, _ = _rate(bpe * n, t)
        entry = {**base, "bytes_per_s": rate, "ci95": ci, "samples": t.summary.n, "cv": t.summary.cv, "reps": t.reps,
                 "working_set_bytes": 8 * tasks.STREAM_ARRAYS[kind] * n, "traffic_model": TRAFFIC_MODEL[kind],
                 "rel_error": r["rel_error"], "seconds": kept["all"].samples, "disturbed_rounds": kept["touched"],
                 "running": kept["running"], "thread_balance": kept["thread_balance"],
                 "others_cores": kept["others"], "status": "ok", "reason": None,
                 "attempts": _attempt_log(tries[n], kept)}
        impossible = check_bandwidth_bound(machine, level, kind, threads, rate, clock_hz)
        if impossible:
            entry.update(status="impossible", reason=impossible)
        elif refusal:
            entry.update(status="refused", reason=refusal)
        mark_disturbed(entry, kept)
        session.check_timing(f"{level} {kind} x{threads}", t, spread_threshold=CV_LIMIT)
        out.append(entry)
        session.record(f"ceiling {level} {kind} x{threads}", entry)
    return out


# a one-thread private-cache ceiling kept from attempts all made beside load on the other vCPUs (no quieter moment
# came) is compared with this machine's stored quiet figure for it: under this fraction of it, the host was running
# the two vCPUs on one physical core (beside a memory hog on the other vCPU, an L2 copy with clean signals of its own
# came out at 0.58x the quiet run made minutes before; quiet runs of it here differ by under 1.2x)
BESIDE_REFERENCE_MIN = 0.75


def _ceiling_key(c: dict) -> tuple:
    """What identifies a ceiling across runs: (precision, class, threads) or (level, kernel, threads)."""
    return ((c.get("precision"), c.get("klass"), c.get("threads")) if "klass" in c else
            (c.get("level"), c.get("kernel"), c.get("threads")))


def _stored_figures(docs: list[dict], key: tuple, kind: str, keep):
    """Per stored run, newest first, its figure of one ceiling (``kind``: compute or bandwidth) that ``keep``
    accepts, with the run's id: a positive finite number only (a damaged or edited store offers nothing else)."""
    rate = "flops_per_s" if kind == "compute" else "bytes_per_s"
    for d in docs:
        for c in ceilings(d, kind):
            v = c.get(rate)
            if (_ceiling_key(c) == key and isinstance(v, (int, float)) and not isinstance(v, bool)
                    and math.isfinite(v) and v > 0 and keep(c)):
                yield float(v), d.get("run_id")
                break


def _stored_quiet(docs: list[dict], key: tuple, kind: str) -> tuple[float, object] | None:
    """The best of one ceiling's last TYPICAL_RUNS stored figures (``kind``: compute or bandwidth) that were
    ``ok``, or ``disturbed`` only by this comparison, with its run id. The best, not the newest: a run made beside
    load whose figure was lowered, but not below the limit, must not lower the yardstick of the next one (under a
    one-core hog, a one-thread BLAS GEMM at 0.75x of the quiet run passed, judged against the newest figure, itself
    made beside load);
    and the figures this comparison marked count, so that a machine that really became slower is judged by its new
    figure within a few runs."""
    figures = list(itertools.islice(_stored_figures(
        docs, key, kind, lambda c: not c.get("reference") and (
            c.get("status") == "ok" or (c.get("status") == "disturbed" and c.get("quiet_reference")))),
        TYPICAL_RUNS))
    return max(figures, key=lambda f: f[0]) if figures else None


def _beside(c: dict) -> float | None:
    kept = next((a for a in c.get("attempts") or [] if a.get("kept")), None)
    return kept.get("beside_cores") if kept else c.get("beside_cores")


def judge_beside(ceilings: list[dict], machine: dict, history: list[dict], kind: str = "bandwidth") -> list[dict]:
    """Each one-thread ceiling still ``ok`` although it was measured beside load on the other vCPUs (every attempt,
    where there were several) is marked ``disturbed`` when it is under BESIDE_REFERENCE_MIN of this machine's
    stored quiet figure for it (see _stored_quiet), with both figures in its reason: a private cache level or a core's compute, which
    the host's other vCPU shares when it runs two vCPUs on one physical core. Without a stored figure it stays as
    it was measured."""
    rate = "flops_per_s" if kind == "compute" else "bytes_per_s"
    out = []
    for c in ceilings:
        beside = _beside(c)
        private = kind == "compute" or not _shared_level(machine, c.get("level"))
        quiet = (_stored_quiet(history, _ceiling_key(c), kind)
                 if c.get("status") == "ok" and c.get("threads") == 1 and beside is not None
                 and beside >= OTHERS_LIMIT and c.get(rate) and private else None)
        if quiet is not None and c[rate] < BESIDE_REFERENCE_MIN * quiet[0]:
            c = {**c, "status": "disturbed", "quiet_reference": {rate: quiet[0], "run_id": quiet[1]},
                 "reason": msg("{ratio:.2f}x this machine's quiet figure (run {run}) while other processes used "
                               "{cores:.2f} core(s) on the other vCPUs: the host may run two vCPUs on one physical "
                               "core", ratio=c[rate] / quiet[0], run=quiet[1], cores=beside)}
        out.append(c)
    return out


# a ceiling of a memory level the host shares with its other tenants (DRAM, and a cache the OS says is shared) whose
# own signals are clean, at the faster of two moments of the run, is compared with what this machine typically
# attains there: the median of its last stored figures (ok ones, and ones marked here before). Under this fraction
# of it, the moment's figure is the host's load, not the machine (quiet here, the same 2-thread DRAM copy came out
# 1.65x apart in two runs a minute apart, with no other process busy in either). A machine that really changed
# moves the median within a few runs and is judged by its new figure.
TYPICAL_MIN = 0.85
TYPICAL_RUNS = 5


def _typical(docs: list[dict], key: tuple) -> tuple[float, list] | None:
    """The median of one bandwidth ceiling's last TYPICAL_RUNS stored figures with clean signals of their own (ok,
    or disturbed only by this comparison), with the runs it comes from."""
    clean = _stored_figures(docs, key, "bandwidth", lambda c: c.get("status") == "ok" or (
        c.get("status") == "disturbed" and c.get("typical_reference")))
    figures = list(itertools.islice(clean, TYPICAL_RUNS))
    if not figures:
        return None
    return statistics.median(r for r, _ in figures), [run for _, run in figures]


def judge_shared(ceilings: list[dict], machine: dict, history: list[dict]) -> list[dict]:
    """Each ``ok`` ceiling of a level shared with the host's other tenants under TYPICAL_MIN of this machine's
    typical figure for it (see _typical) is marked ``disturbed``, with both figures in its reason and the runs of
    the typical one (``typical_reference``). Without stored figures it stays as it was measured."""
    out = []
    for c in ceilings:
        typical = (_typical(history, _ceiling_key(c)) if c.get("status") == "ok" and c.get("bytes_per_s")
                   and _shared_level(machine, c.get("level")) else None)
        if typical is not None and c["bytes_per_s"] < TYPICAL_MIN * typical[0]:
            moments = len(c.get("moments") or []) or 1
            c = {**c, "status": "disturbed", "typical_reference": {"bytes_per_s": typical[0], "runs": typical[1]},
                 "reason": msg("{ratio:.2f}x this machine's typical figure (the median of {n} stored run(s): {runs}) "
                               "at the best of {moments} moment(s), with its own signals clean: the host's other "
                               "tenants were using this memory", ratio=c["bytes_per_s"] / typical[0],
                               n=len(typical[1]), runs=", ".join(str(r) for r in typical[1]), moments=moments)}
        out.append(c)
    return out


LEVEL_ORDER = ("L1", "L2", "L3", "DRAM")


def level_order_warnings(ceilings: list[dict]):
    """A level measured faster than the level above it (nearer the core), by more than both CIs allow, gets a
    warning: the plateaus were misread, or one of the two was disturbed."""
    ok = {(c["kernel"], c["threads"], c["level"]): c for c in ceilings
          if c.get("status") == "ok" and c.get("bytes_per_s") and c.get("ci95")}
    for (kind, threads, level), c in sorted(ok.items(), key=lambda kv: (kv[0][0], kv[0][1],
                                                                         LEVEL_ORDER.index(kv[0][2])
                                                                         if kv[0][2] in LEVEL_ORDER else 9)):
        if level not in LEVEL_ORDER:
            continue
        for upper in LEVEL_ORDER[:LEVEL_ORDER.index(level)][::-1]:
            u = ok.get((kind, threads, upper))
            if u is None:
                continue
            w = check_level_order(level, c["bytes_per_s"], c["ci95"], upper, u["bytes_per_s"], u["ci95"],
                                  subject=f"{kind} x{threads}")
            if w:
                yield w
            break


def _private_scaling(ceilings: list[dict], machine: dict, kind: str, threads: int,
                     targets: list[tuple[str, int]]) -> dict[int, float]:
    """For each target in a cache private to a core: the one-thread ceiling times the cores the threads have. All
    threads reading their own L1 or L2 far below that were sharing cores while measured (see assess())."""
    if threads < 2:
        return {}
    private = {f"L{c['level']}" for c in machine.get("cache_details") or []
               if c["type"] in ("Data", "Unified") and c.get("shared_by", 1) == 1}
    cores = min(threads, machine.get("physical_cores") or threads)
    one = {c["level"]: c["bytes_per_s"] for c in ceilings
           if c["kernel"] == kind and c["threads"] == 1 and c.get("bytes_per_s")}
    return {n: cores * one[level] for level, n in targets if level in private and one.get(level)}


def _sweep_points(pts: list[dict], kind: str, machine: dict | None = None, threads: int = 1,
                  clock_hz: float = 0.0) -> list[dict]:
    """Sweep points with their rates; a point above the L1 bound (which holds at every level) is marked
    impossible and kept out of the plateau search."""
    bpe = tasks.STREAM_BYTES_PER_ELEM[kind]
    out = []
    for p in pts:
        if p.get("timing") is None:  # this size could not be measured (the reason says why)
            out.append({"working_set_bytes": 8 * tasks.STREAM_ARRAYS[kind] * p["n"], "n": p["n"], "bytes_per_s": None,
                        "failed": True, "reason": p.get("error")})
            continue
        t = Timing.from_dict(p["timing"])
        rate, ci, _ = _rate(bpe * p["n"], t)
        point = {"working_set_bytes": 8 * tasks.STREAM_ARRAYS[kind] * p["n"], "n": p["n"],
                 "bytes_per_s": rate, "ci95": ci, "cv": t.summary.cv, "samples": t.summary.n,
                 "running": t.running_fraction}
        if machine is not None:
            why = check_bandwidth_bound(machine, "L1", kind, threads, rate, clock_hz)
            if why:
                point.update(impossible=True, reason=why)
        out.append(point)
    return out


def _numpy_bandwidth(session: Session, plan: Plan, machine: dict, threads_all: int, clock_hz: float) -> list[dict]:
    out = []
    session.progress("bandwidth: BLAS GEMV")
    d = plan.gemv_d
    nbytes = 4.0 * (d * d + 2 * d)
    for threads in sorted({1, threads_all}):
        try:
            m0 = session.mark()
            res = session.call(f"gemv x{threads}", tasks.gemv_task, d, threads, plan.ceiling, on_quiet_cpus=threads)
            others = session.others_for(m0, session.mark(), shared=True)
        except RooflabError as exc:
            out.append({"level": "DRAM", "kernel": "BLAS GEMV", "threads": threads, "status": "failed",
                        "reference": "gemv", "reason": str(exc), "bytes_per_s": None, "ci95": None})
            continue
        t = Timing.from_dict(res["timing"])
        rate, ci, _ = _rate(nbytes, t)
        out.append(_reference_entry("gemv", f"BLAS GEMV {d}x{d} fp32", threads, rate, ci, t, nbytes,
                                    "W read once + x + y (4 B/element)", res["rel_error"], others,
                                    check_bandwidth_bound(machine, "DRAM", "read", threads, rate, clock_hz)))
    session.progress("bandwidth: NumPy copy")
    n = plan.copy_bytes // 4
    try:
        m0 = session.mark()
        res = session.call("numpy copy", tasks.numpy_copy_task, n, plan.ceiling, on_quiet_cpus=1)
        others = session.others_for(m0, session.mark(), shared=True)
        t = Timing.from_dict(res["timing"])
        rate, ci, _ = _rate(8.0 * n, t)
        out.append(_reference_entry("numpy_copy", "NumPy copyto", 1, rate, ci, t, 8.0 * n,
                                    "2 x array bytes: read + write (write-allocate not counted)", res["rel_error"],
                                    others, check_bandwidth_bound(machine, "DRAM", "copy", 1, rate, clock_hz)))
    except RooflabError as exc:
        out.append({"level": "DRAM", "kernel": "NumPy copyto", "threads": 1, "status": "failed", "reason": str(exc),
                    "bytes_per_s": None, "ci95": None, "reference": "numpy_copy"})
    for e in out:
        session.record(e["kernel"], e)
    return out


def _reference_entry(source: str, kernel: str, threads: int, rate: float, ci, t: Timing, nbytes: float, model: str,
                     rel_error: float, others: float | None, impossible: dict | None) -> dict:
    """A library's figure beside the DRAM ceilings (``source``: "gemv" or "numpy_copy"); never a roof."""
    e = {"level": "DRAM", "kernel": kernel, "threads": threads, "bytes_per_s": rate, "ci95": ci,
         "samples": t.summary.n, "cv": t.summary.cv, "working_set_bytes": nbytes, "traffic_model": model,
         "rel_error": rel_error, "seconds": t.samples, "others_cores": others, "running": t.running_fraction,
         "status": "ok", "reason": None, "reference": source}
    if impossible:
        e.update(status="impossible", reason=impossible)
    mark_disturbed(e, {"reasons": assess(0.0, others=others, running=t.running_fraction)[1]})
    return e


# ------------------------------------------------------------------------------------------------- roofs


# ------------------------------------------------------------------------------------------------ sweep


def _batch_sweep(session: Session, plan: Plan, doc: dict, threads_all: int) -> tuple[list[dict], dict]:
    cc = ceilings(doc, "compute")
    # the roofs of the prediction are the machine's: the fp32 FMA ceiling and the DRAM ceiling (all threads); when
    # the measured FMA ceiling was refused or flagged, the theoretical peak at the measured clock stands in
    peak = best_compute(cc, "fp32", "simd_fma", threads_all)
    th = read(Theoretical, session.machine.get("theoretical"))
    if peak is None and th.core_flops("fp32", "simd_fma") and th.cores:
        peak = {"name": "fp32 theoretical peak (the measured FMA ceiling was not usable)",
                "flops_per_s": th.core_flops("fp32", "simd_fma") * min(threads_all, th.cores)}
    blas = best_compute(cc, "fp32", "blas_gemm", threads_all)
    dram = (best_bandwidth(ceilings(doc, "bandwidth"), "DRAM", threads_all) or
            best_bandwidth(ceilings(doc, "bandwidth"), "DRAM", 1))
    info = {"D": plan.batch_d, "F": plan.batch_d, "dtype": "fp32", "threads": threads_all,
            "compute_roof": {"name": peak["name"], "flops_per_s": peak["flops_per_s"]} if peak else None,
            "achievable_roof": {"name": blas["name"], "flops_per_s": blas["flops_per_s"]} if blas else None,
            "memory_roof": {"name": f"DRAM {dram['kernel']}", "bytes_per_s": dram["bytes_per_s"]} if dram else None}
    if not (peak and dram):
        info["skipped"] = msg("no fp32 FMA or DRAM ceiling to predict from")
        return [], info
    session.progress(f"batch sweep X[B,{plan.batch_d}]·W[{plan.batch_d},{plan.batch_d}]")
    res = session.call("batch sweep", tasks.batch_sweep_task, plan.batch_d, plan.batch_d, list(plan.batches), threads_all,
                       plan.batch, timeout_s=900)
    out = []
    for r in res:
        t = Timing.from_dict(r["timing"])
        flops, nbytes = matmul_counts(r["B"], plan.batch_d, plan.batch_d, 4)
        p = sweep_point(r["B"], flops, nbytes, t.summary.median, t.summary.ci95, peak, dram)
        p.update(of_blas=p["flops_per_s"] / blas["flops_per_s"] if blas else None, rel_error=r["rel_error"],
                 samples=t.summary.n)
        out.append(p)
        if p["above_roof"]:
            session.warn(check_physical_limit(p["flops_per_s"], p["predicted_flops_per_s"],
                                              what=msg("roofline prediction"), subject=f"batch B={r['B']}"))
    session.record("batch sweep", {"points": out, **info})
    return out, info


# ----------------------------------------------------------------------------------------------- entry


def run(session: Session, opts: MeasureOptions) -> dict:
    machine = session.machine
    threads_all = opts.all_threads()
    plan = make_plan(opts, machine)
    session.wait_quiet_left = max(session.wait_quiet_left, float(opts.wait_quiet_s))
    doc = {"quick": opts.quick, "threads_all": threads_all, "precisions": list(opts.precisions),
           "plan": {"working_set_bytes": [plan.ws_min, plan.ws_max], "points_per_octave": plan.points_per_octave,
                    "gemm_n": plan.gemm_n, "batch_D": plan.batch_d, "batches": list(plan.batches)}}
    compute = _compute_ceilings(session, opts, plan, machine, threads_all)
    clock_hz = bound_clock(machine, compute)
    sweeps, bw = _bandwidth(session, plan, machine, threads_all, clock_hz)
    bw += _numpy_bandwidth(session, plan, machine, threads_all, clock_hz)
    try:
        history = measure_history(session.store, machine.get("key"), limit=10)
    except StoreError:  # a store that cannot be read has no quiet figures to offer
        history = []
    bw = judge_shared(judge_beside(bw, machine, history), machine, history)
    compute = judge_beside(compute, machine, history, "compute")
    doc["ceilings"] = {"compute": compute, "bandwidth": bw}
    doc["bandwidth_sweeps"] = sweeps
    if opts.batch_sweep and "fp32" in opts.precisions:
        doc["sweep"], doc["sweep_info"] = _batch_sweep(session, plan, doc, threads_all)
    else:
        doc["sweep"], doc["sweep_info"] = [], {"skipped": msg("disabled") if not opts.batch_sweep else msg("needs fp32")}
    doc["roofs"] = measure_roofs(doc)
    verdict = trust(doc)
    if opts.wait_quiet_s:
        verdict["waited_for_quiet_s"] = session.waited_s
    doc["trust"] = verdict
    doc["machine"] = machine
    doc["environment"] = session.environment
    return doc


def route(opts: MeasureOptions):
    """``--device cuda``: the GPU measure runs instead, with the options that apply to it."""
    if opts.device != "cuda":
        return None
    if opts.mpi or opts.threads or opts.precision != "both" or opts.wait_quiet_s:
        raise RooflabError("--device cuda measures the whole GPU in every precision it has: --threads, --precision, "
                           "--wait-quiet and --mpi apply to the CPU")
    return "measure_gpu", {"quick": opts.quick, "batch_sweep": opts.batch_sweep, "index": opts.gpu}


def measure_1_to_2(doc: dict) -> dict:
    """A measure run stored before bandwidth had bounds: statuses renamed, every bandwidth ceiling held against the
    bound of its level (at the run's own clock), and the roofs drawn again from what is left. An old run whose
    figures break a bound stops being drawn as a roof, as a new one would."""
    doc = rename_above_limit(doc)
    for c in ceilings(doc, "bandwidth"):
        if c.get("reference") is True:  # /1 told the library references apart by their names only
            c["reference"] = "gemv" if str(c.get("kernel", "")).startswith("BLAS GEMV") else "numpy_copy"
    m = doc.get("machine") or {}
    clock = bound_clock(m, ceilings(doc, "compute"))
    for c in ceilings(doc, "bandwidth"):
        rate = c.get("bytes_per_s")
        if c.get("status") != "ok" or not rate or c.get("reference"):
            continue
        why = check_bandwidth_bound(m, c.get("level", "DRAM"), c.get("kernel"), c.get("threads", 1), rate, clock)
        if why:
            c.update(status="impossible", reason=why)
    if "threads_all" in doc and "ceilings" in doc:
        doc["roofs"] = measure_roofs(doc)
        doc["trust"] = trust(doc)
    return doc


def _sweep_title(doc: dict) -> str:
    info = doc.get("sweep_info") or {}
    return (tr("Batch sweep X[B,{d}]·W[{d},{d}] fp32 on {t} thread(s)", d=info.get("D"), t=info.get("threads"))
            + (tr(" — quick mode: smaller D than the full 8192") if doc.get("quick") else ""))


COMMAND = Command(
    name="measure", order=1, options=MeasureOptions, run=run, version=2, migrations={1: measure_1_to_2},
    mpi=Mpi(aggregate=aggregate_measure_job),
    summary=msg("measure this machine's cache-aware roofline: compute and bandwidth ceilings, the batch sweep, the "
                "plot"),
    report=Report(interpret=measure_observations, headline=lambda d: tr("all threads = {n}", n=d["threads_all"]),
                  tables=(machine_table(lambda d: d.get("machine")), *ceiling_tables("cpu"), sweep_table(_sweep_title)),
                  notes=sweep_notes, roofline=sweep_roofline(
                      lambda d: tr("Roofline of this machine ({n} threads)",
                                   n=read(Roofs, d.get("roofs")).threads or d["threads_all"]))),
    outputs=Outputs(files=("html", "csv", "plot")), hooks=Hooks(route=route))

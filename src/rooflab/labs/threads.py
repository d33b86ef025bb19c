"""The threads lab: scaling from one thread to all of a compute-bound kernel (the ladder's packed GEMM) and a
bandwidth-bound one (the triad in DRAM): speed-up, efficiency, and where bandwidth saturates."""

from __future__ import annotations

from dataclasses import dataclass

from rooflab.contract import Column, Lab, Report, Table, quick_option, threads_option
from rooflab.errors import RooflabError
from rooflab.i18n import msg, tr
from rooflab.interpret.common import disturbed_rows, load_caveat
from rooflab.kernels import tasks
from rooflab.kernels.builders import OPENMP_QUIET_ENV, build_gemm, build_stream, gemm_params, vector_bytes
from rooflab.kernels.gemmrun import measure_gemm
from rooflab.machine.env import usable_cpus
from rooflab.session import Session
from rooflab.timing.harness import HarnessConfig, Timing
from rooflab.units import binary_bytes, pct, si


@dataclass(frozen=True)
class Options:
    threads: int | None = threads_option("Up to this many threads (default: all).")
    quick: bool = quick_option()


def thread_counts(n: int) -> list[int]:
    out, t = [], 1
    while t < n:
        out.append(t)
        t *= 2
    return out + [n]


def run(session: Session, opts: Options) -> dict:
    quick = opts.quick
    m = session.machine
    threads_all = opts.threads or usable_cpus()
    counts = thread_counts(threads_all)
    gp = gemm_params(m["isa"])
    glib = str(build_gemm(gp).path)
    slib = str(build_stream(vector_bytes(m["isa"])).path)
    llc = max((m.get("caches") or {"L3": 32 << 20}).values())
    n_triad = int(max(8 * llc, 128 << 20) // 24)
    n_gemm = 512 if quick else 1024
    cfg = (HarnessConfig(min_sample_s=0.01, samples=5, warmup=1, min_samples=3, budget_s=0.6) if quick else
           HarnessConfig(min_sample_s=0.03, samples=9, warmup=1, min_samples=5, budget_s=2.0))
    gemm, triad = [], []
    for t in counts:
        gemm.append(measure_gemm(session, f"gemm x{t}", glib, "rl_gemm_packed", (n_gemm,) * 3, cfg, (("int", t),),
                                 threads=t))
        session.progress(f"threads: triad x{t}")
        try:
            (p,), judged = session.call_until_quiet(f"triad x{t}", tasks.stream_task, slib, "triad", [n_triad], t,
                                                    cfg, timeout_s=600,
                                                    timing_of=lambda r: Timing.from_dict(r[0]["timing"]))
            tm = Timing.from_dict(p["timing"])
            rate, ci = tm.summary.rate(24 * n_triad)
            triad.append({"name": f"triad x{t}", "threads": t, "bytes_per_s": rate, "ci95": ci,
                          "rel_error": p["rel_error"], "seconds": tm.samples})
            judged.judge(triad[-1])
            session.check_timing(f"triad x{t}", tm)
        except RooflabError as exc:
            triad.append({"name": f"triad x{t}", "threads": t, "error": str(exc), "bytes_per_s": None})
        session.record(f"triad x{t}", triad[-1])
    for rows, key in ((gemm, "flops_per_s"), (triad, "bytes_per_s")):
        base = rows[0].get(key)
        for r in rows:
            if base and r.get(key):
                r["speedup"] = r[key] / base
                r["efficiency"] = r["speedup"] / r["threads"]
    return {"lab": "threads", "quick": quick, "counts": counts, "gemm_n": n_gemm, "triad_bytes": 24 * n_triad,
            "gemm": gemm, "triad": triad, "physical_cores": m.get("physical_cores")}


# ------------------------------------------------------------------------------------ observations


def threads_observations(doc: dict) -> list[dict]:
    out = load_caveat(doc)
    g = [r for r in doc["gemm"] if r.get("speedup")]
    tr_ = [r for r in doc["triad"] if r.get("speedup")]
    if len(g) > 1:
        last = g[-1]
        why = (msg("each core brings its own FMA units") if last["efficiency"] >= 0.75 else
               msg("far from linear: the threads shared execution units or were disturbed (see the warnings)"))
        out.append(msg("Compute-bound GEMM (n = {n}): {s:.2f}x on {t} threads, {eff} efficiency — {why}.",
                       n=doc["gemm_n"], s=last["speedup"], t=last["threads"], eff=pct(last["efficiency"]), why=why))
    if len(tr_) > 1:
        last = tr_[-1]
        out.append(msg("Bandwidth-bound triad ({ws}): {s:.2f}x on {t} threads, {eff} efficiency — the cores share one "
                       "memory system.", ws=binary_bytes(doc["triad_bytes"]), s=last["speedup"], t=last["threads"],
                       eff=pct(last["efficiency"])))
        sat = next((r for r in tr_[1:] if r["speedup"] / tr_[tr_.index(r) - 1]["speedup"] < 1.1), None)
        if sat:
            out.append(msg("Bandwidth saturates by {t} threads: adding threads there gained under 10% ({bw}).",
                           t=sat["threads"], bw=si(sat["bytes_per_s"], "B/s")))
        else:
            out.append(msg("Bandwidth had not saturated at {t} threads ({bw}).", t=last["threads"],
                           bw=si(last["bytes_per_s"], "B/s")))
    if len(g) > 1 and len(tr_) > 1:
        r = g[-1]["speedup"] / tr_[-1]["speedup"]
        out.append(msg("Threads gave the compute-bound kernel {r:.2f}x the speed-up of the memory-bound one: bandwidth, "
                       "not arithmetic, is what the cores share.", r=r) if r > 1.05 else
                   msg("Threads gave the compute-bound kernel {r:.2f}x the speed-up of the memory-bound one.", r=r))
    return out



def _scaling(doc: dict) -> list[dict]:
    """One row per thread count: the GEMM's and the triad's rate, speed-up and efficiency side by side."""
    out = []
    for g, t in zip(doc["gemm"], doc["triad"]):
        out.append({"threads": g["threads"], "gemm_flops": g.get("flops_per_s"), "gemm_speedup": g.get("speedup"),
                    "gemm_efficiency": g.get("efficiency"), "triad_bytes_per_s": t.get("bytes_per_s"),
                    "triad_speedup": t.get("speedup"), "triad_efficiency": t.get("efficiency")})
    return out


def _speedup_columns(kernel: str, label: str, fmt: str) -> tuple[Column, ...]:
    """A kernel's rate, speed-up over one thread and parallel efficiency."""
    return (Column(f"{kernel}_{fmt}", label, fmt), Column(f"{kernel}_speedup", "speed-up", "x"),
            Column(f"{kernel}_efficiency", "eff.", "pct"))


LAB = Lab(
    name="threads", order=7, options=Options, run=run, worker_env=OPENMP_QUIET_ENV,
    summary=msg("scaling of a compute-bound and a bandwidth-bound kernel from 1 thread to all"),
    report=Report(
        interpret=lambda d: disturbed_rows((d.get("gemm") or []) + (d.get("triad") or [])) + threads_observations(d),
        headline=lambda d: tr("scaling to {n} threads", n=d["counts"][-1]),
        tables=(Table("threads_scaling", "GEMM n = {n} (compute-bound) and triad in DRAM (bandwidth-bound)",
                      rows=_scaling, title_args=lambda d: {"n": d["gemm_n"]},
                      columns=(Column("threads", "threads", "int"), *_speedup_columns("gemm", "GEMM", "flops"),
                               *_speedup_columns("triad", "triad", "bytes_per_s"))),)))

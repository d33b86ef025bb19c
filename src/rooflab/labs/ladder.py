"""The GEMM ladder: C = A·B in fp32, rung by rung from the naive triple loop to BLAS speed.

Each rung changes one thing, and its measured factor over the previous rung is the lesson: the loop order (ijk ->
ikj: the inner loop streams a row of B instead of striding down a column), cache blocking, a register tile,
packing into the GotoBLAS/BLIS loop structure with a portable 128-bit microkernel, the microkernel built for this
ISA's vector width and register file, then all threads. Every rung is checked against float64 NumPy first and timed
against BLAS at the same thread count in interleaved rounds; the ratio is the median of the per-round ratios.

While the two alternate, neither may keep spinning threads between calls (they would steal the other's cores):
the worker limits spinning (OPENMP_QUIET_ENV) and the run records it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rooflab.contract import Column, Lab, Report, Table, n_option, quick_option, threads_option
from rooflab.documents.common import cache_sizes, read
from rooflab.documents.labs import Peaks, Rung
from rooflab.errors import RooflabError
from rooflab.i18n import join, msg, text, tr
from rooflab.interpret.common import disturbed_rows, load_caveat
from rooflab.kernels import tasks
from rooflab.kernels.builders import (OPENMP_QUIET_ENV, PORTABLE_GEMM, PREC_DTYPE, PeakVariant, audit_microkernel,
                                      build_clock, build_gemm, build_peak, default_chains, gemm_params, vector_bytes)
from rooflab.machine.env import usable_cpus
from rooflab.model.caches import block_size
from rooflab.model.reference import roofs_at
from rooflab.results.history import measure_history
from rooflab.session import Session
from rooflab.timing.harness import HarnessConfig, Timing
from rooflab.timing.stats import order_statistic_median_ci
from rooflab.toolchain.asm import audit_function
from rooflab.units import binary_bytes, pct


@dataclass(frozen=True)
class Options:
    n: int | None = n_option("default 1024; --quick: 512")
    quick: bool = quick_option()
    threads: int | None = threads_option("Threads of the multi-threaded rungs.")


def rungs(isa: dict, l2_bytes: int, threads_all: int) -> list[dict]:
    """The ladder for this machine: name, what it changes, library parameters, entry and arguments."""
    native = gemm_params(isa)
    bs = block_size(l2_bytes)
    out = [
        {"name": "naive ijk", "step_id": "baseline", "step": "baseline: the inner loop walks down a column of B (stride N)",
         "symbol": "rl_gemm_ijk", "params": native, "threads": 1, "extra": ()},
        {"name": "ikj", "step_id": "loop_order", "step": "loop order: the inner loop streams a row of B and C (unit stride, vectorizable)",
         "symbol": "rl_gemm_ikj", "params": native, "threads": 1, "extra": ()},
        {"name": f"blocked {bs}", "step_id": "blocking", "step": f"cache blocking: {bs}x{bs} tiles, 3 of them fit L2",
         "symbol": "rl_gemm_blocked", "params": native, "threads": 1, "extra": (("long", bs),)},
        {"name": f"register tile {native.mr}x{native.nr}", "step_id": "register_reuse",
         "step": "register reuse: C tile held in registers "
         "across k, A broadcast, B loaded as vectors (no packing)",
         "symbol": "rl_gemm_regtile", "params": native, "threads": 1, "extra": ()},
        {"name": f"packed {PORTABLE_GEMM.mr}x{PORTABLE_GEMM.nr} portable", "step_id": "packing",
         "step": "packing: GotoBLAS/BLIS loops "
         "with A and B copied into contiguous panels; portable 128-bit microkernel",
         "symbol": "rl_gemm_packed", "params": PORTABLE_GEMM, "threads": 1, "extra": (("int", 1),)},
        {"name": f"packed {native.mr}x{native.nr} {isa.get('name', '')}", "step_id": "simd_microkernel",
         "step": f"SIMD microkernel for this ISA: "
         f"{native.vbytes * 8}-bit FMA, {native.accumulators} accumulators of {isa.get('vector_registers')} registers",
         "symbol": "rl_gemm_packed", "params": native, "threads": 1, "extra": (("int", 1),), "best_single": True},
    ]
    if threads_all > 1:
        out.append({"name": f"packed {native.mr}x{native.nr} x{threads_all} threads", "step_id": "threads",
                    "step": "threads: rows of C "
                    "split between threads, one shared packed B panel", "symbol": "rl_gemm_packed",
                    "params": native, "threads": threads_all, "extra": (("int", threads_all),)})
    out.append({"name": "numpy/BLAS x1", "step_id": "reference", "step": "reference", "symbol": None, "params": None, "threads": 1,
                "extra": ()})
    if threads_all > 1:
        out.append({"name": f"numpy/BLAS x{threads_all}", "step_id": "reference", "step": "reference", "symbol": None, "params": None,
                    "threads": threads_all, "extra": ()})
    return out


def fma_peaks(session: Session, threads_all: int) -> dict:
    """fp32 FMA ceilings for 1 and all threads: each from the newest stored `measure` of this machine that holds it
    as a roof, else measured."""
    docs = measure_history(session.store, session.machine.get("key"))
    found = {}
    for t in sorted({1, threads_all}):
        r = roofs_at(docs, t, "fp32") if docs else None
        fma = next((c for c in (r or {}).get("compute", []) if c.get("klass") == "simd_fma" and r["threads"] == t),
                   None)
        if fma:
            found[t] = (fma["value"], fma["run_id"])
    if len(found) == len({1, threads_all}):
        ids = sorted({rid for _, rid in found.values()})
        return {"flops_per_s": {t: v for t, (v, _) in found.items()},
                "source": msg("stored measure run {id}", id=", ".join(str(i) for i in ids))}
    out = {}
    isa = session.machine["isa"]
    v = PeakVariant("fp32", "simd_fma", default_chains(isa), vector_bytes(isa))
    lib, clock = str(build_peak(v).path), str(build_clock().path)
    cfg = HarnessConfig(min_sample_s=0.005, samples=5, warmup=1, min_samples=5, budget_s=0.3)
    unmeasured = []
    for t in sorted({1, threads_all}):
        session.progress(f"ladder: fp32 FMA peak x{t}")
        try:
            res, _ = session.call_until_quiet(f"peak x{t}", tasks.peak_task, lib, clock, dtype=PREC_DTYPE["fp32"],
                                              chains=v.chains, lanes=v.lanes, threads=t, config=cfg,
                                              timing_of=lambda x: Timing.from_dict(x["peak"]))
        except RooflabError as exc:
            # a peak that cannot be measured now (under load, a thread kept from starting for longer than the work
            # takes) leaves its rungs without a share of it, and says why; the rungs are still measured
            unmeasured.append(msg("{t} thread(s): {why}", t=t, why=str(exc)))
            continue
        out[t] = v.flops_per_rep * t / Timing.from_dict(res["peak"]).summary.median
    source = msg("measured now (no stored measure run of this machine)")
    if unmeasured:
        source = join([source, msg("not measured for {which}", which=join(unmeasured, "; "))], "; ")
    return {"flops_per_s": out, "source": source}


def run(session: Session, opts: Options) -> dict:
    n, quick, threads = opts.n, opts.quick, opts.threads
    machine = session.machine
    isa = machine["isa"]
    threads_all = threads or usable_cpus()
    n = n or (512 if quick else 1024)
    l2 = cache_sizes(machine).get("L2") or (1 << 20)
    cfg = (HarnessConfig(min_sample_s=0.01, samples=7, warmup=1, min_samples=3, budget_s=1.0) if quick else
           HarnessConfig(min_sample_s=0.02, samples=11, warmup=1, min_samples=3, budget_s=4.0))
    peaks = fma_peaks(session, threads_all)
    flops = 2.0 * n ** 3
    out = []
    for r in rungs(isa, l2, threads_all):
        session.progress(f"ladder: {r['name']}")
        entry = {"name": r["name"], "step_id": r["step_id"], "step": r["step"], "own": r["symbol"] is not None, "n": n,
                 "threads": r["threads"], "params": r["params"].to_dict() if r["params"] else None,
                 "best_single": r.get("best_single", False)}
        lib = None
        if r["symbol"]:
            try:
                built = build_gemm(r["params"])
                lib = str(built.path)
                entry["library"] = built.to_dict()
                if r["symbol"] == "rl_gemm_packed":
                    try:
                        a = audit_function(built.path, "rl_micro_packed")
                        entry["audit"] = a.to_dict() if a else None
                        entry["audit_problem"] = audit_microkernel(entry["audit"], r["params"])
                    except RooflabError as exc:
                        entry["audit"], entry["audit_problem"] = None, str(exc)
            except RooflabError as exc:
                entry.update(error=str(exc), flops_per_s=None)
                out.append(entry)
                continue
        try:
            res, judged = session.call_until_quiet(r["name"], tasks.ladder_task, lib, r["symbol"], n, r["threads"],
                                                   cfg, r["extra"], timeout_s=900,
                                                   timing_of=lambda x: Timing.from_dict(x["own"]))
        except RooflabError as exc:
            entry.update(error=str(exc), flops_per_s=None, rel_error=getattr(exc, "rel_error", None))
            out.append(entry)
            session.record(r["name"], entry)
            continue
        t = Timing.from_dict(res["own"])
        s = t.summary
        ratios = res["ratios"]
        peak = peaks["flops_per_s"].get(r["threads"])
        rate, ci = s.rate(flops)
        entry.update(time_s=s.median, flops_per_s=rate, ci95=ci,
                     samples=s.n, cv=s.cv, rel_error=res["rel_error"], seconds=t.samples,
                     of_peak=(rate / peak) if peak else None,
                     ratio_to_blas=float(np.median(ratios)),
                     ratio_to_blas_ci95=list(order_statistic_median_ci(ratios)),
                     blas_flops_per_s=flops / Timing.from_dict(res["blas"]).summary.median)
        judged.judge(entry)
        session.check_timing(r["name"], t)
        out.append(entry)
        session.record(r["name"], entry)
    return {"lab": "ladder", "quick": quick, "n": n, "threads_all": threads_all, "peaks": peaks, "rungs": out,
            "gemm_params": gemm_params(isa).to_dict(), "caches": machine.get("caches")}


# ------------------------------------------------------------------------------------ observations


# what each rung changes, by its structured id (never read back from the rung's English description)
STEPS = {
    "baseline": lambda: msg("baseline"),
    "loop_order": lambda: msg("loop order"),
    "blocking": lambda: msg("cache blocking"),
    "register_reuse": lambda: msg("register reuse"),
    "packing": lambda: msg("packing"),
    "simd_microkernel": lambda: msg("SIMD microkernel for this ISA"),
    "threads": lambda: msg("threads"),
}
def _step(rung: dict):
    f = STEPS.get(rung.get("step_id", ""))
    return f() if f else rung.get("step", "")


def ladder_observations(doc: dict) -> list[dict]:
    rungs = [r for r in doc["rungs"] if r.get("flops_per_s")]
    out = load_caveat(doc)
    own = [r for r in rungs if r["own"]]
    prev = None
    for r in own:
        if prev is not None:
            f = r["flops_per_s"] / prev["flops_per_s"]
            what = r.get("step_id")
            note = ""
            caches = doc.get("caches") or {}
            ws = 3 * 4 * doc["n"] ** 2
            if what == "blocking" and f < 1.05 and caches.get("L3") and ws <= caches["L3"]:
                note = msg("; at n = {n} the three matrices ({ws}) already fit the {l3} L3, so blocking has little to "
                           "save and its loop overhead shows", n=doc["n"], ws=binary_bytes(ws),
                           l3=binary_bytes(caches["L3"]))
            rung = read(Rung, r)
            if what == "packing" and rung.params and rung.params.profile == "portable":
                note = (msg("; this rung's microkernel is built for the baseline ISA (128-bit), which the next rung "
                            "lifts") if rung.audit and rung.audit.fma else
                        msg("; this rung's microkernel is built for the baseline ISA (128-bit, no FMA), which the next "
                            "rung lifts"))
            out.append(msg("{name} vs {prev}: {f:.2f}x ({what}){note}.", name=r["name"], prev=prev["name"], f=f,
                           what=_step(r), note=note))
        prev = r
    for r in doc["rungs"]:
        if r.get("error"):
            out.append(msg("{name}: not timed — {error}.", name=r["name"], error=r["error"]))
        if r.get("audit_problem"):
            out.append(msg("{name}: the microkernel's loop does not match its tile — {problem}.", name=r["name"],
                           problem=r["audit_problem"]))
    for t in sorted({r["threads"] for r in own}):
        mine = [r for r in own if r["threads"] == t]
        blas = next((r for r in rungs if not r["own"] and r["threads"] == t), None)
        if not mine:
            continue
        best = max(mine, key=lambda r: r["ratio_to_blas"])
        lo, hi = best["ratio_to_blas_ci95"]
        extra = []
        if best.get("of_peak"):
            extra.append(msg(", {frac} of the fp32 FMA peak", frac=pct(best["of_peak"])))
        if blas and blas.get("of_peak"):
            extra.append(msg("; BLAS itself reaches {frac}", frac=pct(blas["of_peak"])))
        out.append(msg("On {t} thread(s) the best own rung, {name}, runs at {r:.2f}x BLAS (median of per-round ratios, "
                       "95% CI {lo:.2f}–{hi:.2f}){extra}.", t=t, name=best["name"], r=best["ratio_to_blas"], lo=lo,
                       hi=hi, extra=join(extra, "")))
    first, last = (own[0], max(own, key=lambda r: r["flops_per_s"])) if own else (None, None)
    if first and last and last is not first:
        out.append(msg("From {first} to {last}: {f:.0f}x, with the same arithmetic — only the order of memory accesses, "
                       "reuse and instructions changed.", first=first["name"], last=last["name"],
                       f=last["flops_per_s"] / first["flops_per_s"]))
    return out



_LADDER_STEPS = {"baseline": "baseline", "loop order": "loop_order", "cache blocking": "blocking",
                 "register reuse": "register_reuse", "packing": "packing",
                 "SIMD microkernel for this ISA": "simd_microkernel", "threads": "threads", "reference": "reference"}


def ladder_1_to_2(doc: dict) -> dict:
    """Rungs of /1 named their step only in an English description: its first words become the step's id."""
    for r in doc.get("rungs") or []:
        if isinstance(r, dict) and "step_id" not in r:
            r["step_id"] = _LADDER_STEPS.get(str(r.get("step", "")).split(":")[0], "")
    return doc


def _check_cell(r: dict, doc: dict):
    if r.get("audit_problem"):
        return text(r["audit_problem"])
    return tr("ok") if r.get("own", True) else tr("reference")


def _headline(doc: dict) -> str:
    gp = doc.get("gemm_params") or {}
    return f"C = A·B fp32, n = {doc['n']} · " + tr("microkernel {mr}x{nr} at {bits} bits · peaks: {source}",
                                                     mr=gp.get("MR"), nr=gp.get("NR"), bits=gp.get("vector_bits"),
                                                     source=text(read(Peaks, doc.get("peaks")).source))


LAB = Lab(
    name="ladder", order=2, options=Options, run=run, worker_env=OPENMP_QUIET_ENV,
    summary=msg("GEMM from naive loops to BLAS speed: loop order, blocking, register tile, packing, SIMD, threads"),
    version=2, migrations={1: ladder_1_to_2},
    report=Report(
        interpret=lambda d: disturbed_rows(d.get("rungs") or []) + ladder_observations(d), headline=_headline,
        tables=(Table("ladder_rungs",
                      "GEMM ladder (median; ratio to BLAS at the same thread count, paired rounds, 95% CI)",
                      rows="rungs", error_column="check", columns=(
                          Column("name", "rung"),
                          Column("threads", "threads", "int"),
                          Column("time_s", "time", "seconds"),
                          Column("flops_per_s", "FLOP/s", "flops"),
                          Column("of_peak", "of peak", "pct"),
                          Column("ratio_to_blas", "vs BLAS", "x", ci="ratio_to_blas_ci95"),
                          Column("rel_error", "rel. error", "sci"),
                          Column("check", "check", value=_check_cell, csv=False),
                          Column("audit_problem", "", "msg", report=False))),)))

"""The FMA lab: GFLOP/s against the number of independent FMA chains, and Little's law.

One chain is latency-bound: each FMA waits for the previous one. More independent chains fill the pipeline until
the FMA units are busy every cycle; past the register file the accumulators spill to the stack and the rate falls.
Little's law ties the three together: chains needed = latency (cycles) x throughput (FMAs per cycle). Every variant
is compiled on its own and its loop audited, so a fall is attributed to spills when the assembly shows them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rooflab.contract import Column, Lab, Report, Table, option, quick_option
from rooflab.documents.common import Isa, Uarch, read
from rooflab.errors import RooflabError
from rooflab.i18n import msg, tr
from rooflab.interpret.common import disturbed_rows, load_caveat
from rooflab.kernels import tasks
from rooflab.kernels.builders import PREC_DTYPE, PeakVariant, build_clock, build_peak, vector_bytes
from rooflab.session import Session
from rooflab.timing.harness import HarnessConfig, Timing
from rooflab.toolchain.asm import audit_function
from rooflab.units import pct, si


@dataclass(frozen=True)
class Options:
    precision: str = option("fp32", choices=("fp32", "fp64"), help="Precision of the FMA chains.")
    quick: bool = quick_option()


def chain_counts(registers: int, quick: bool) -> list[int]:
    """1 .. beyond the register file: every count up to 8, then steps, ending past the registers."""
    top = min(registers + 8, 40)  # rl_chains.h writes out at most 40 chains
    counts = list(range(1, 9)) + list(range(10, top, 2 if registers <= 16 else 4)) + [top]
    if quick:
        counts = [c for c in counts if c in (1, 2, 4, 6, 8) or c % 8 == 0 or c == counts[-1]]
    return sorted(set(counts))


def run(session: Session, opts: Options) -> dict:
    precision, quick = opts.precision, opts.quick
    machine = session.machine
    isa = machine["isa"]
    th = machine.get("theoretical")
    vb = vector_bytes(isa)
    clock_lib = str(build_clock().path)
    cfg = (HarnessConfig(min_sample_s=0.004, samples=5, warmup=1, min_samples=5, budget_s=0.3) if quick else
           HarnessConfig(min_sample_s=0.01, samples=9, warmup=1, min_samples=7, budget_s=0.8))
    flops_per_cycle_core = th["per_core"][precision]["simd_fma"] / th["clock_hz"] if th else None
    points = []
    for n in chain_counts(int(isa["vector_registers"]), quick):
        v = PeakVariant(precision, "simd_fma", n, vb)
        session.progress(f"fma: {n} chain(s)")
        lib = build_peak(v)
        try:
            a = audit_function(lib.path, "rl_peak_chain")
            audit = a.to_dict() if a else None
        except RooflabError as exc:
            audit = {"error": str(exc)}
        p = {"chains": n, "vector_bits": vb * 8, "lanes": v.lanes, "audit": audit,
             "spills": (audit or {}).get("spills"), "fma_in_loop": (audit or {}).get("fma")}
        try:
            res, judged = session.call_until_quiet(f"fma x{n}", tasks.peak_task, str(lib.path), clock_lib,
                                                   dtype=PREC_DTYPE[precision], chains=n, lanes=v.lanes, threads=1,
                                                   config=cfg, timing_of=lambda r: Timing.from_dict(r["peak"]))
        except RooflabError as exc:
            p.update(error=str(exc), flops_per_s=None)
            points.append(p)
            session.record(f"fma x{n}", p)
            continue
        tp, tc = Timing.from_dict(res["peak"]), Timing.from_dict(res["clock"])
        clocks = tasks.round_clocks(res["clock_hz_running"])
        # vector FMA instructions per cycle, both timed in short chunks while the core ran (an interrupt or another
        # tenant would otherwise count as cycles the FMAs took)
        fma_per_cycle = [n / (t * hz) for t, hz in zip(res["peak_running_s"], clocks)]
        s = tp.summary
        rate, ci = s.rate(v.flops_per_rep)
        p.update(flops_per_s=rate, ci95=ci, samples=s.n, cv=s.cv, fma_per_cycle=float(np.median(fma_per_cycle)),
                 clock_hz=float(np.median(clocks)), rel_error=res["rel_error"],
                 of_peak=(float(np.median(fma_per_cycle)) * v.lanes * 2 / flops_per_cycle_core
                          if flops_per_cycle_core else None),
                 seconds=tp.samples, clock_seconds=tc.samples,
                 clock_hz_running=res["clock_hz_running"])
        judged.judge(p)
        session.check_timing(f"fma x{n}", tp)
        points.append(p)
        session.record(f"fma x{n}", p)
    doc = {"lab": "fma", "quick": quick, "precision": precision,
           "vector_bits": vb * 8, "vector_registers": isa["vector_registers"], "points": points}
    doc["analysis"] = analyse(points, machine)
    return doc


def analyse(points: list[dict], machine: dict) -> dict:
    """Latency, throughput, Little's law and the saturation and spill points, from the measured curve (pure)."""
    ok = [p for p in points if p.get("fma_per_cycle")]
    if not ok:
        return {}
    one = next((p for p in ok if p["chains"] == 1), None)
    clean = [p for p in ok if not p.get("spills")]
    best = max(clean or ok, key=lambda p: p["fma_per_cycle"])
    latency = 1.0 / one["fma_per_cycle"] if one else None
    throughput = best["fma_per_cycle"]
    sat = next((p for p in ok if p["fma_per_cycle"] >= 0.95 * throughput), None)
    first_spill = next((p for p in points if p.get("spills")), None)
    u = read(Uarch, machine.get("uarch"))
    isa_bits = read(Isa, machine.get("isa")).vector_bits or u.fma_bits or 0
    pipes_equiv = (u.fma_pipes or 0) * ((u.fma_bits or 0) / isa_bits) if isa_bits else None
    return {
        "latency_cycles": latency,
        "throughput_fma_per_cycle": throughput,
        "littles_law_chains": latency * throughput if latency else None,
        "saturation_chains": sat["chains"] if sat else None,
        "best_chains": best["chains"],
        "best_flops_per_s": best["flops_per_s"],
        "best_of_peak": best.get("of_peak"),
        "first_spill_chains": first_spill["chains"] if first_spill else None,
        "expected_fma_per_cycle": pipes_equiv,
    }


# ------------------------------------------------------------------------------------ observations


def fma_observations(doc: dict) -> list[dict]:
    a = doc.get("analysis") or {}
    pts = [p for p in doc["points"] if p.get("flops_per_s")]
    if not a or not pts:
        return [msg("No FMA variant could be measured.")]
    out = load_caveat(doc)
    lat, thr = a.get("latency_cycles"), a["throughput_fma_per_cycle"]
    bits = doc["vector_bits"]
    one = next((p for p in pts if p["chains"] == 1), None)
    if one and lat:
        out.append(msg("One chain: {rate}, one {bits}-bit FMA every {lat:.1f} cycles — the FMA latency; the units sit "
                       "idle waiting for the previous result.", rate=si(one["flops_per_s"], "FLOP/s"), bits=bits,
                       lat=lat))
    peak = (msg(", {frac} of one core's theoretical peak", frac=pct(a["best_of_peak"], 1))
            if a.get("best_of_peak") else "")
    out.append(msg("The best clean variant ({chains} chains) issues {thr:.2f} {bits}-bit FMAs per cycle, {rate}{peak}.",
                   chains=a["best_chains"], thr=thr, bits=bits, rate=si(a["best_flops_per_s"], "FLOP/s"), peak=peak))
    exp = a.get("expected_fma_per_cycle")
    if exp:
        out.append(msg("The micro-architecture table expects {exp:g} such FMAs per cycle; measured {thr:.2f}.",
                       exp=exp, thr=thr))
    if lat:
        out.append(msg("Little's law: chains in flight = latency x throughput = {lat:.1f} x {thr:.2f} = {need:.1f}; the "
                       "measured curve reaches 95% of its best at {sat} chains.", lat=lat, thr=thr,
                       need=a["littles_law_chains"], sat=a.get("saturation_chains")))
    sp = a.get("first_spill_chains")
    if sp:
        after = [p for p in pts if p["chains"] >= sp]
        worst = min(after, key=lambda p: p["fma_per_cycle"]) if after else None
        if worst and worst["fma_per_cycle"] < 0.9 * thr:
            tail = msg(", and the rate drops to {rate:.2f} FMAs per cycle at {chains} chains. That fall is the compiler "
                       "running out of registers, not the FMA units.", rate=worst["fma_per_cycle"],
                       chains=worst["chains"])
        else:
            tail = msg("; the loads and stores still fit beside the FMAs here, so the rate holds.")
        out.append(msg("From {sp} chains on the accumulators no longer fit in the {regs} vector registers: the "
                       "assembly shows stack loads and stores in the loop (spills){tail}", sp=sp,
                       regs=doc["vector_registers"], tail=tail))
    else:
        out.append(msg("No variant spilled up to {chains} chains.", chains=pts[-1]["chains"]))
    return out



def _audit_cell(p: dict, doc: dict) -> str | None:
    a = p.get("audit") or {}
    if not a:
        return None
    return tr("{fma} FMA, {spills} spill", fma=a.get("fma", "?"), spills=a.get("spills", "?")) + (
        " " + tr("(spills)") if a.get("spills") else "")


LAB = Lab(
    name="fma", order=1, options=Options, run=run,
    summary=msg("GFLOP/s vs independent FMA chains: latency, throughput and Little's law"),
    report=Report(
        interpret=lambda d: (disturbed_rows(d.get("points") or [], lambda p: tr("{n} chain(s)", n=p["chains"]))
                             + fma_observations(d)),
        headline=lambda d: f"{d['precision']} · " + tr("{bits}-bit vectors · {n} vector registers",
                                                       bits=d["vector_bits"], n=d["vector_registers"]),
        tables=(Table("fma_points", "FMA chains on one core (median; FMAs per cycle at the clock measured beside each)",
                      rows="points", error_column="bar", columns=(
                          Column("chains", "chains", "int"),
                          Column("flops_per_s", "FLOP/s", "flops"),
                          Column("fma_per_cycle", "FMA/cycle", "f2"),
                          Column("of_peak", "of peak", "pct1"),
                          Column("audit", "loop audit", value=_audit_cell, csv=False),
                          Column("spills", "spills", "int", report=False),
                          Column("rel_error", "rel. error", "sci", report=False),
                          Column("bar", "", "bar", value=lambda p, d: p.get("flops_per_s"), csv=False))),)))

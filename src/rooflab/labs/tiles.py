"""The tiles lab: the microkernel's register tile MR x NR against the ISA's vector register file.

Each tile needs MR·NR/lanes accumulator registers, NR/lanes for the row of B and one for the broadcast of A; it
performs MR·NR/lanes FMAs per MR + NR/lanes loads. Larger tiles load less per FMA until the registers run out and
the compiler spills; the assembly of every variant is read to say which."""

from __future__ import annotations

from dataclasses import dataclass

from rooflab.contract import Column, Lab, Report, Table, n_option, quick_option
from rooflab.errors import RooflabError
from rooflab.i18n import msg, tr
from rooflab.interpret.common import disturbed_rows, load_caveat, ok_rows
from rooflab.kernels.builders import GemmParams, build_gemm, gemm_params
from rooflab.kernels.gemmrun import measure_gemm
from rooflab.session import Session
from rooflab.timing.harness import HarnessConfig
from rooflab.toolchain.asm import audit_function
from rooflab.units import pct, si


@dataclass(frozen=True)
class Options:
    n: int | None = n_option("default 768; --quick: 384")
    quick: bool = quick_option()


def tiles(isa: dict, quick: bool) -> list[GemmParams]:
    native = gemm_params(isa)
    vb = native.vbytes
    lanes = vb // 4
    regs = int(isa.get("vector_registers") or 16)
    out = []
    mrs = [1, 2, 4, 6, 8, 12, 16] if not quick else [2, 4, 8, 12]
    for nv in (1, 2, 3, 4):
        for mr in mrs:
            need = mr * nv + nv + 1
            if need > regs + 12:  # far past the register file: nothing new to learn
                continue
            mc = max(mr, (96 // mr) * mr)
            out.append(GemmParams(vbytes=vb, mr=mr, nr=nv * lanes, kc=256, mc=mc))  # not unrolled: clean counts
    if quick:
        out = [p for p in out if p.nr // lanes in (1, 2, 3)]
    return out


def run(session: Session, opts: Options) -> dict:
    n, quick = opts.n, opts.quick
    isa = session.machine["isa"]
    regs = int(isa.get("vector_registers") or 16)
    n = n or (384 if quick else 768)
    cfg = (HarnessConfig(min_sample_s=0.01, samples=3, warmup=0, min_samples=3, budget_s=0.3) if quick else
           HarnessConfig(min_sample_s=0.02, samples=5, warmup=1, min_samples=3, budget_s=1.0))
    rows = []
    for p in tiles(isa, quick):
        lanes = p.vbytes // 4
        nv = p.nr // lanes
        name = f"{p.mr}x{p.nr}"
        base = {"MR": p.mr, "NR": p.nr, "accumulators": p.accumulators, "registers_needed": p.accumulators + nv + 1,
                "registers": regs, "loads_per_fma": (p.mr + nv) / p.accumulators, "params": p.to_dict()}
        try:
            lib = build_gemm(p)
            a = audit_function(lib.path, "rl_micro_packed")
            audit = a.to_dict() if a else None
        except RooflabError as exc:
            rows.append({"name": name, **base, "error": str(exc), "flops_per_s": None})
            continue
        rows.append(measure_gemm(session, name, str(lib.path), "rl_gemm_packed", (n, n, n), cfg, (("int", 1),),
                                 **base, audit=audit, spills=(audit or {}).get("spills"),
                                 fma_in_loop=(audit or {}).get("fma")))
    return {"lab": "tiles", "quick": quick, "n": n, "isa": isa.get("name"), "vector_bits": isa.get("vector_bits"),
            "vector_registers": regs, "tiles": rows}


# ------------------------------------------------------------------------------------ observations


def tiles_observations(doc: dict) -> list[dict]:
    rows = ok_rows(doc["tiles"])
    if not rows:
        return [msg("No tile could be measured.")]
    out = load_caveat(doc)
    regs = doc["vector_registers"]
    clean = [r for r in rows if not r.get("spills")]
    best = max(rows, key=lambda r: r["flops_per_s"])
    out.append(msg("Best tile: {name} at {rate}, {acc} accumulators + {other} other registers of {regs} ({bits}-bit), "
                   "{lpf:.2f} loads per FMA.", name=best["name"], rate=si(best["flops_per_s"], "FLOP/s"),
                   acc=best["accumulators"], other=best["registers_needed"] - best["accumulators"], regs=regs,
                   bits=doc["vector_bits"], lpf=best["loads_per_fma"]))
    spilled = [r for r in rows if r.get("spills")]
    if spilled:
        first = min(spilled, key=lambda r: r["registers_needed"])
        args = dict(need=first["registers_needed"], name=first["name"], regs=regs)
        if not best.get("spills"):
            out.append(msg("Spills appear from {need} registers needed ({name}): more accumulators than the {regs} "
                           "registers can hold; the best tile stays below that.", **args))
        else:
            out.append(msg("Spills appear from {need} registers needed ({name}): more accumulators than the {regs} "
                           "registers can hold; here a spilling tile still measured best, so the spills sit off the "
                           "critical path.", **args))
    else:
        out.append(msg("No tile in this sweep spilled ({regs} registers).", regs=regs))
    if clean:
        small = min(clean, key=lambda r: r["accumulators"])
        out.append(msg("Smallest tile {name}: {lpf:.2f} loads per FMA, {frac} of the best — too few accumulators to "
                       "hide the FMA latency and too many loads per FMA.", name=small["name"],
                       lpf=small["loads_per_fma"], frac=pct(small["flops_per_s"] / best["flops_per_s"])))
    return out



LAB = Lab(
    name="tiles", order=3, options=Options, run=run,
    summary=msg("microkernel register tile MR x NR vs the vector register file, spills read from the assembly"),
    report=Report(
        interpret=lambda d: disturbed_rows(d.get("tiles") or []) + tiles_observations(d),
        headline=lambda d: tr("register tiles, {n} x {bits}-bit registers", n=d["vector_registers"],
                              bits=d["vector_bits"]) + f" · n = {d['n']}",
        tables=(Table("tiles_tiles", "Microkernel tiles MR x NR (packed GEMM, one thread)", rows="tiles",
                      error_column="rel_error", columns=(
                          Column("name", "tile"),
                          Column("accumulators", "accumulators", "int"),
                          Column("registers", "registers",
                                 value=lambda r, d: f"{r['registers_needed']}/{r['registers']}"),
                          Column("loads_per_fma", "loads/FMA", "f2"),
                          Column("spills", "spills", "int"),
                          Column("flops_per_s", "FLOP/s", "flops"),
                          Column("rel_error", "rel. error", "sci"))),)))

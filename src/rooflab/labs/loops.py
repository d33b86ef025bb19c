"""The loops lab: all six loop orders of the naive GEMM, grouped by what the inner loop streams through."""

from __future__ import annotations

from dataclasses import dataclass

from rooflab.contract import Column, Lab, Report, Table, n_option, quick_option
from rooflab.errors import RooflabError
from rooflab.i18n import join, msg, tr
from rooflab.interpret.common import disturbed_rows, load_caveat, ok_rows
from rooflab.kernels.gemmrun import measure_gemm
from rooflab.session import Session
from rooflab.timing.harness import HarnessConfig
from rooflab.toolchain.asm import audit_function
from rooflab.toolchain.compiler import build_kernel
from rooflab.units import si

ORDERS = {
    "ijk": "k", "jik": "k", "ikj": "j", "kij": "j", "jki": "i", "kji": "i",
}
GROUPS = {
    "j": msg("inner j: a row of B and a row of C, unit stride (vectorizable)"),
    "k": msg("inner k: a row of A (unit stride) and a column of B (stride N), a reduction"),
    "i": msg("inner i: a column of A and a column of C (strides K and N)"),
}


@dataclass(frozen=True)
class Options:
    n: int | None = n_option("default 512; --quick: 256")
    quick: bool = quick_option()


def run(session: Session, opts: Options) -> dict:
    quick = opts.quick
    n = opts.n or (256 if quick else 512)
    lib = build_kernel("loops", openmp=False)
    cfg = (HarnessConfig(min_sample_s=0.01, samples=5, warmup=1, min_samples=3, budget_s=0.5) if quick else
           HarnessConfig(min_sample_s=0.02, samples=7, warmup=1, min_samples=3, budget_s=2.0))
    rows = []
    for order, inner in ORDERS.items():
        try:
            a = audit_function(lib.path, f"gemm_{order}")
            audit = a.to_dict() if a else None
        except RooflabError:
            audit = None
        rows.append(measure_gemm(session, order, str(lib.path), f"rl_loop_{order}", (n, n, n), cfg, order=order,
                                 inner=inner, group=GROUPS[inner], audit=audit,
                                 vector_bits=(audit or {}).get("vector_bits")))
    return {"lab": "loops", "quick": quick, "n": n, "orders": rows, "library": lib.to_dict(),
            "counters": "cache counters come with `rooflab profile` (not part of this run)"}


# ------------------------------------------------------------------------------------ observations


def loops_observations(doc: dict) -> list[dict]:
    rows = ok_rows(doc["orders"])
    if not rows:
        return [msg("No loop order could be measured.")]
    out = load_caveat(doc)
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(r["inner"], []).append(r)
    for inner in ("j", "k", "i"):
        g = groups.get(inner)
        if not g:
            continue
        vb = sorted(x for x in {r.get("vector_bits") for r in g} if x is not None)
        code = ""
        if vb:
            code = msg(" — compiled to {widths} code", widths=join(
                [msg("{b}-bit", b=b) if b else msg("scalar") for b in vb], "/"))
        out.append(msg("{names} ({group}): {rates}{code}.", names=join([r["order"] for r in g], " and "),
                       group=g[0]["group"], rates=join([si(r["flops_per_s"], "FLOP/s") for r in g], ", "), code=code))
    best = max(rows, key=lambda r: r["flops_per_s"])
    worst = min(rows, key=lambda r: r["flops_per_s"])
    out.append(msg("Same arithmetic, {f:.0f}x apart: {best} is the fastest, {worst} the slowest at n = {n} — the order "
                   "decides whether each cache line brought in is used whole or for one element.",
                   f=best["flops_per_s"] / worst["flops_per_s"], best=best["order"], worst=worst["order"], n=doc["n"]))
    return out



LAB = Lab(
    name="loops", order=4, options=Options, run=run,
    summary=msg("the six loop orders of the naive GEMM, grouped by what the inner loop streams"),
    report=Report(
        interpret=lambda d: disturbed_rows(d.get("orders") or []) + loops_observations(d),
        headline=lambda d: tr("six loop orders, n = {n}", n=d["n"]),
        tables=(Table("loops_orders", "Loop orders, grouped by the innermost loop",
                      rows=lambda d: sorted(d["orders"], key=lambda r: r["inner"]), error_column="rel_error", columns=(
                          Column("name", "order"),
                          Column("group", "inner loop streams", "msg"),
                          Column("flops_per_s", "FLOP/s", "flops"),
                          Column("vector_bits", "inner loop code", "bits",
                                 value=lambda r, d: None if r.get("error") else r.get("vector_bits") or 0),
                          Column("rel_error", "rel. error", "sci"))),)))

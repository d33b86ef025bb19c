"""The loops lab: all six loop orders of the naive GEMM, grouped by what the inner loop streams through."""

from __future__ import annotations

from rooflab.toolchain.asm import audit_function
from rooflab.toolchain.compiler import build_kernel
from rooflab.errors import RooflabError
from rooflab.i18n import msg
from rooflab.results.schema import schema_id
from rooflab.session import Session
from rooflab.timing.harness import HarnessConfig
from rooflab.kernels.gemmrun import measure_gemm

ORDERS = {
    "ijk": "k", "jik": "k", "ikj": "j", "kij": "j", "jki": "i", "kji": "i",
}
GROUPS = {
    "j": msg("inner j: a row of B and a row of C, unit stride (vectorizable)"),
    "k": msg("inner k: a row of A (unit stride) and a column of B (stride N), a reduction"),
    "i": msg("inner i: a column of A and a column of C (strides K and N)"),
}


def run(session: Session, *, n: int | None = None, quick: bool = False) -> dict:
    n = n or (256 if quick else 512)
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
    doc = {"schema": schema_id("lab.loops"), "lab": "loops", "quick": quick, "n": n, "orders": rows,
           "library": lib.to_dict(), "counters": "cache counters come with `rooflab profile` (not part of this run)"}
    from rooflab.interpret.observations import loops_observations

    return session.finish(doc, observe=loops_observations)

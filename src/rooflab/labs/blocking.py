"""The blocking lab: block-size sweep of the blocked GEMM, with the sizes the caches predict beside the best
measured, for a matrix size whose operands fit the last-level cache and one whose do not."""

from __future__ import annotations

import math

from rooflab.contract import Column, Lab, QuickOptions, Report, Table
from rooflab.i18n import join, msg, tr
from rooflab.interpret.common import disturbed_rows, load_caveat, ok_rows
from rooflab.kernels.builders import build_gemm, gemm_params
from rooflab.kernels.gemmrun import measure_gemm
from rooflab.model.caches import block_size
from rooflab.session import Session
from rooflab.timing.harness import HarnessConfig
from rooflab.units import binary_bytes, pct, si


def sizes_around_llc(llc_bytes: int, quick: bool) -> list[dict]:
    """N with A and B (8·N² bytes in fp32) well inside the LLC, and N with them well beyond it."""
    below = int(math.sqrt(llc_bytes / 2 / 8))
    below -= below % 64
    above = int(math.sqrt(2 * llc_bytes / 8)) + 64
    above -= above % 64
    out = [{"n": min(below, 512 if quick else 1024), "fits_llc": True}]
    if not quick:
        out.append({"n": above, "fits_llc": False})
    return out


def block_sizes(predicted: int, quick: bool) -> list[int]:
    base = [16, 64, 256] if quick else [16, 32, 64, 128, 256, 512]
    return sorted(set(base + [predicted]))


Options = QuickOptions


def run(session: Session, opts: QuickOptions) -> dict:
    quick = opts.quick
    m = session.machine
    caches = m.get("caches") or {}
    l2 = caches.get("L2") or (1 << 20)
    llc = max(caches.values()) if caches else (8 << 20)
    predicted = block_size(l2)
    lib = str(build_gemm(gemm_params(m["isa"])).path)
    cfg = (HarnessConfig(min_sample_s=0.01, samples=3, warmup=0, min_samples=3, budget_s=0.5) if quick else
           HarnessConfig(min_sample_s=0.02, samples=5, warmup=1, min_samples=3, budget_s=3.0))
    cases = []
    for case in sizes_around_llc(llc, quick):
        n = case["n"]
        rows = [measure_gemm(session, f"n={n} ikj (unblocked)", lib, "rl_gemm_ikj", (n, n, n), cfg, bs=None)]
        for bs in block_sizes(predicted, quick):
            rows.append(measure_gemm(session, f"n={n} BS={bs}", lib, "rl_gemm_blocked", (n, n, n), cfg,
                                     (("long", bs),), bs=bs, footprint_bytes=3 * bs * bs * 4))
        cases.append({**case, "operands_bytes": 8 * n * n, "rows": rows})
    return {"lab": "blocking", "quick": quick, "L2": l2, "LLC": llc, "predicted_bs": predicted,
            "rule": msg("3·BS²·4 B <= L2 (three fp32 blocks stay in L2)"), "cases": cases}


# ------------------------------------------------------------------------------------ observations


def blocking_observations(doc: dict) -> list[dict]:
    out = load_caveat(doc)
    out.append(msg("Predicted block size from the caches: BS = {bs} ({rule}, L2 = {l2}).", bs=doc["predicted_bs"],
                   rule=doc["rule"], l2=binary_bytes(doc["L2"])))
    for case in doc["cases"]:
        rows = ok_rows(case["rows"])
        blocked = [r for r in rows if r.get("bs")]
        base = next((r for r in rows if r.get("bs") is None), None)
        if not blocked:
            continue
        best = max(blocked, key=lambda r: r["flops_per_s"])
        extra = []
        pred = next((r for r in blocked if r["bs"] == doc["predicted_bs"]), None)
        if pred and pred is not best:
            extra.append(msg("; the predicted BS = {bs} reaches {frac} of it", bs=pred["bs"],
                             frac=pct(pred["flops_per_s"] / best["flops_per_s"])))
        if base:
            extra.append(msg("; unblocked ikj: {rate} ({f:.2f}x)", rate=si(base["flops_per_s"], "FLOP/s"),
                             f=best["flops_per_s"] / base["flops_per_s"]))
        args = dict(n=case["n"], ab=binary_bytes(case["operands_bytes"]), llc=binary_bytes(doc["LLC"]), bs=best["bs"],
                    rate=si(best["flops_per_s"], "FLOP/s"), extra=join(extra, ""))
        if case["fits_llc"]:
            out.append(msg("n = {n} (A and B: {ab}, they fit the {llc} last-level cache): best BS = {bs} at "
                           "{rate}{extra}.", **args))
        else:
            out.append(msg("n = {n} (A and B: {ab}, they do not fit the {llc} last-level cache): best BS = {bs} at "
                           "{rate}{extra}.", **args))
        small = min(blocked, key=lambda r: r["bs"])
        if small is not best:
            out.append(msg("n = {n}: BS = {bs} runs at {frac} of the best — tiny blocks spend their time in loop "
                           "overhead and short vector loops.", n=case["n"], bs=small["bs"],
                           frac=pct(small["flops_per_s"] / best["flops_per_s"])))
    return out



def _cases(doc: dict) -> list[tuple[str, dict, list[dict]]]:
    return [(f"n{c['n']}", {"n": c["n"], "where": tr("A and B fit the last-level cache") if c["fits_llc"] else
                            tr("A and B exceed the last-level cache")}, c["rows"]) for c in doc["cases"]]


LAB = Lab(
    name="blocking", order=5, options=Options, run=run,
    summary=msg("block-size sweep of the blocked GEMM against the cache-predicted size"),
    report=Report(
        interpret=lambda d: (disturbed_rows([r for c in d.get("cases") or [] for r in c.get("rows") or []])
                             + blocking_observations(d)),
        headline=lambda d: tr("blocked GEMM, predicted BS = {bs}", bs=d["predicted_bs"]),
        tables=(Table("blocking", "n = {n}: {where}", groups=_cases, error_column="rel_error", columns=(
               Column("name", "variant"),
               Column("bs", "BS", "int"),
               Column("flops_per_s", "FLOP/s", "flops"),
               Column("predicted", "", value=lambda r, d: tr("predicted") if r.get("bs") == d["predicted_bs"] else ""),
               Column("rel_error", "rel. error", "sci"))),)))

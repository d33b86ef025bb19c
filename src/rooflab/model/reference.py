"""This machine's reference roofline for a thread count and precision, from its stored `measure` runs (pure: the
documents in, the roofs out; reading them from the store is ``results.history``).

Each roof is taken from the newest run in which that ceiling was measured and is a roof (status ``ok``): a ceiling
that was disturbed (the CPUs were not all ours), impossible (above a physical bound), refused or failed in a newer run
leaves the older figure in place. Every roof says which run it comes from, and which newer runs it skipped and why.
"""

from __future__ import annotations

from rooflab.documents.measure import ceilings
from rooflab.i18n import join, msg
from rooflab.model.roofline import LEVELS, best_bandwidth, best_compute


def _pick(docs: list[dict], find):
    """The first doc (newest first) where ``find(doc)`` gives a ceiling, with the newer runs that had the same
    ceiling but not as a roof (their run ids and statuses)."""
    skipped = []
    for d in docs:
        got = find(d, True)
        if got is not None:
            return got, d, skipped
        bad = find(d, False)
        if bad is not None:
            skipped.append({"run_id": d.get("run_id"), "status": bad.get("status")})
    return None, None, skipped


def roofs_at(docs: list[dict] | dict, threads: int, precision: str, kernels: tuple[str, ...] | None = None) -> dict:
    """Compute roof (the FMA ceiling, and BLAS GEMM) and one memory roof per level for the nearest measured thread
    count, each from the newest run that holds it as a roof (``docs``: measure results, newest first). ``kernels``:
    the memory roofs from these bandwidth kernels only (a read-only loop against the read ceilings)."""
    docs = [docs] if isinstance(docs, dict) else [d for d in docs if d]
    counts = sorted({c["threads"] for d in docs[:1] for c in ceilings(d, "compute")}) or \
        sorted({c["threads"] for d in docs for c in ceilings(d, "compute")})
    t = min(counts, key=lambda c: abs(c - threads)) if counts else threads

    def compute(klass):
        def find(d, ok):
            if ok:
                return best_compute(ceilings(d, "compute"), precision, klass, t)
            return next((c for c in ceilings(d, "compute") if c["precision"] == precision and c["klass"] == klass
                         and c["threads"] == t), None)
        return find

    def memory(level):
        def find(d, ok):
            if ok:
                return (best_bandwidth(ceilings(d, "bandwidth"), level, t, kernels) if kernels else
                        best_bandwidth(ceilings(d, "bandwidth"), level, t))
            return next((c for c in ceilings(d, "bandwidth") if c["level"] == level and c["threads"] == t
                         and not c.get("reference") and (not kernels or c.get("kernel") in kernels)), None)
        return find

    out_c, out_m, used = [], [], []
    for klass, label in (("simd_fma", "FMA"), ("blas_gemm", "BLAS GEMM")):
        c, d, skipped = _pick(docs, compute(klass))
        if c is not None:
            rid = d.get("run_id")
            out_c.append({"name": f"{precision} {label} x{t}" + (f" · run {rid}" if rid is not None else ""),
                          "label": f"{precision} {label} x{t}", "precision": precision, "klass": klass,
                          "value": c["flops_per_s"], "run_id": rid, "skipped": skipped})
            used.append((rid, f"{precision} {label}"))
    for lv in LEVELS:
        b, d, skipped = _pick(docs, memory(lv))
        if b is not None:
            rid = d.get("run_id")
            out_m.append({"name": f"{lv} x{t}" + (f" · run {rid}" if rid is not None else ""), "label": f"{lv} x{t}",
                          "level": lv,
                          "value": b["bytes_per_s"], "kernel": b["kernel"], "run_id": rid, "skipped": skipped})
            used.append((rid, lv))
    ids = sorted({rid for rid, _ in used if rid is not None})
    return {"threads": t, "precision": precision, "compute": out_c, "memory": out_m,
            "run_id": max(ids) if ids else (docs[0].get("run_id") if docs else None), "run_ids": ids,
            "source": source_message(used, out_c + out_m)}


def source_message(used: list[tuple], roofs: list[dict]) -> dict:
    """Which run each roof comes from, and which newer runs were passed over and why (a message)."""
    if not used:
        return msg("no stored measure run of this machine holds a usable roof")
    by_run: dict = {}
    for rid, what in used:
        by_run.setdefault(rid, []).append(what)
    parts = [msg("run {id} ({what})", id=rid if rid is not None else "(unstored)", what=join(whats, ", "))
             for rid, whats in sorted(by_run.items(), key=lambda kv: -(kv[0] or 0))]
    words = {"disturbed": msg("disturbed"), "impossible": msg("impossible"), "refused": msg("refused"),
             "failed": msg("failed")}
    notes = []
    for r in roofs:
        for s in r.get("skipped", []):
            notes.append(msg("{roof}: run {id} had it {status}", roof=r["label"], id=s["run_id"],
                             status=words.get(s["status"], s["status"] or "")))
    if notes:
        parts.append(msg("not taken from newer runs: {why}", why=join(notes, ", ")))
    return msg("the newest measure runs holding each roof: {runs}", runs=join(parts, "; "))

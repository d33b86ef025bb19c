"""This machine's roofline for a given thread count and precision, from its latest stored `measure` run (or a
quick measurement, stored too, when there is none)."""

from __future__ import annotations

from ..session import Session
from .measure import best_bandwidth, best_compute

LEVELS = ("L1", "L2", "L3", "DRAM")


def latest_measure(session: Session) -> dict | None:
    """The result of the newest complete `measure` run of this machine in the session's store."""
    return latest_measure_in(session.store, session.machine.get("key"))


def latest_measure_in(st, key: str | None) -> dict | None:
    if st is None:
        return None
    for r in st.runs(kind="measure", limit=50):
        if r["status"] == "complete" and (not key or r["machine"] == key):
            return st.get(r["run_id"])["result"]
    return None


def roofs_at(doc: dict, threads: int, precision: str) -> dict:
    """Compute roof (the FMA ceiling) and one memory roof per level, for the nearest measured thread count."""
    counts = sorted({c["threads"] for c in doc["ceilings"]["compute"]})
    t = min(counts, key=lambda c: abs(c - threads)) if counts else threads
    fma = best_compute(doc["ceilings"]["compute"], precision, "simd_fma", t)
    blas = best_compute(doc["ceilings"]["compute"], precision, "blas_gemm", t)
    mem = {}
    for lv in LEVELS:
        b = best_bandwidth(doc["ceilings"]["bandwidth"], lv, t)
        if b:
            mem[lv] = b["bytes_per_s"]
    compute = [{"name": f"{precision} FMA x{t}", "value": fma["flops_per_s"]}] if fma else []
    if blas:
        compute.append({"name": f"{precision} BLAS GEMM x{t}", "value": blas["flops_per_s"]})
    return {"threads": t, "precision": precision, "compute": compute,
            "memory": [{"name": f"{lv} x{t}", "level": lv, "value": v} for lv, v in mem.items()],
            "run_id": doc.get("run_id")}


def level_for(working_set: float, capacities: dict[str, float]) -> str:
    """The memory level a working set lives in: the smallest cache that holds it, else DRAM."""
    for lv in ("L1", "L2", "L3"):
        cap = capacities.get(lv)
        if cap and working_set <= cap:
            return lv
    return "DRAM"


def ensure_measure(session: Session, precision: str) -> dict:
    """The stored roofline of this machine, measuring a quick one (and storing it) when there is none."""
    doc = latest_measure(session)
    if doc is not None:
        return doc
    from .measure import MeasureOptions, run

    session.progress("no stored roofline of this machine: measuring a quick one")
    with Session("measure", store=session.store, machine=session.machine, environment=session.environment,
                 progress=session.progress) as s:
        return run(MeasureOptions(quick=True, batch_sweep=False, precisions=(precision,)), s)

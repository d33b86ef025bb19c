"""This machine's stored measure runs, newest first: what the reference roofline is chosen from."""

from __future__ import annotations

from rooflab.documents.measure import ceilings
from rooflab.errors import StoreError

def measure_history(st, key: str | None, limit: int = 50) -> list[dict]:
    """The results of the complete `measure` runs of this machine in a store, newest first."""
    if st is None:
        return []
    out = []
    for r in st.runs(kind="measure", limit=limit):
        if r["kind"] == "measure" and r["status"] == "complete" and (not key or r["machine"] == key):
            try:
                res = st.result(r["run_id"])
            except StoreError:  # a damaged run is passed over; the others still give roofs
                continue
            if res and isinstance(res.get("ceilings"), dict):
                out.append(res)
    return out


def latest_measure_in(st, key: str | None) -> dict | None:
    runs = measure_history(st, key, limit=1)
    return runs[0] if runs else None


def roofline_or_measure(ctx, key: str | None, precision: str) -> list[dict]:
    """This machine's stored rooflines, newest first; when none of them has a compute roof in ``precision``, a quick
    one is measured first through ``ctx.run`` (and stored with the run when that one is) and put first. A store that
    cannot be read counts as none."""
    try:
        docs = measure_history(ctx.store, key)
    except StoreError:
        docs = []
    if not any(c.get("precision") == precision and c.get("status") == "ok"
               for d in docs for c in ceilings(d, "compute")):
        ctx.progress(f"no stored {precision} roofline of this machine: measuring a quick one")
        docs = [ctx.run("measure", quick=True, batch_sweep=False, precision=precision), *docs]
    return list(docs)

"""This machine's stored measure runs, newest first: what the reference roofline is chosen from."""

from __future__ import annotations

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

"""What the CPU and the GPU measure share beyond the model (:mod:`rooflab.model.roofline` and
:mod:`rooflab.model.plateaus` hold their plan, plateau and roof arithmetic): the tables of their ceilings and
batch sweep, and the migration both documents took when "above-limit" became "impossible"."""

from __future__ import annotations

from rooflab.contract import Column, Roofline, RoofPoint, Table
from rooflab.interpret.common import bound_word, status_word
from rooflab.units import drawable


def rename_above_limit(doc: dict) -> dict:
    for group in (doc.get("ceilings") or {}).values():
        for c in group if isinstance(group, list) else []:
            if isinstance(c, dict) and c.get("status") == "above-limit":
                c["status"] = "impossible"
    return doc


_STATUS = Column("status", "status", value=lambda c, d: status_word(c.get("status", "ok")))
_REASON = Column("reason", "reason", "msg")

CEILING_TABLES = (
    Table("compute_ceilings", "Compute ceilings", rows=lambda d: (d.get("ceilings") or {}).get("compute") or [],
          columns=(Column("kernel", "kernel", value=lambda c, d: c["name"]),
                   Column("precision", "precision"),
                   Column("threads", "threads", "int"),
                   Column("flops_per_s", "FLOP/s", "flops", ci="ci95"),
                   Column("of_theoretical", "of theor.", "pct1"),
                   _STATUS, _REASON)),
    Table("bandwidth_ceilings", "Bandwidth ceilings", rows=lambda d: (d.get("ceilings") or {}).get("bandwidth") or [],
          columns=(Column("level", "level"),
                   Column("kernel", "kernel"),
                   Column("threads", "threads", "int"),
                   Column("bytes_per_s", "bytes/s", "bytes_per_s", ci="ci95"),
                   Column("working_set_bytes", "working set", "bytes"),
                   _STATUS, _REASON)),
)

SWEEP_TABLE = Table("batch_sweep", "Batch sweep", rows="sweep", columns=(
    Column("B", "B", "int"),
    Column("intensity", "FLOP/B", "g"),
    Column("flops_per_s", "FLOP/s", "flops"),
    Column("predicted_flops_per_s", "roofline", "flops"),
    Column("of_predicted", "of roofline", "pct1"),
    Column("bytes_per_s", "bytes/s", "bytes_per_s"),
    Column("bound", "bound", value=lambda p, d: bound_word(p.get("bound")) if p.get("bound") else None, csv=False)))


def sweep_points(doc: dict) -> list[RoofPoint]:
    """The batch sweep's points (none where the roofline drawn is a one-thread one standing in for the all-thread
    roofline the sweep ran on)."""
    if (doc.get("roofs") or {}).get("instead_of"):
        return []
    return [RoofPoint(f"B={p['B']}", p["intensity"], p["flops_per_s"], p.get("bytes_per_s"), p.get("of_predicted"),
                      p.get("ci95"), bool(p.get("above_roof")))
            for p in doc.get("sweep") or [] if drawable(p.get("intensity")) and drawable(p.get("flops_per_s"))]


SWEEP_ROOFLINE = Roofline(points=sweep_points)

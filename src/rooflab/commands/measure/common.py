"""What the CPU and the GPU measure share beyond the model (:mod:`rooflab.model.roofline` and
:mod:`rooflab.model.plateaus` hold their plan, plateau and roof arithmetic): the tables of their ceilings and
batch sweep, and the migration both documents took when "above-limit" became "impossible"."""

from __future__ import annotations

from typing import Callable

from rooflab.contract import Column, Roofline, RoofPoint, Table
from rooflab.documents.common import Roofs, cache_sizes, read
from rooflab.documents.measure import ceilings
from rooflab.i18n import text, tr
from rooflab.interpret.common import bound_word, status_word
from rooflab.units import binary_bytes, drawable


def rename_above_limit(doc: dict) -> dict:
    for group in (ceilings(doc, "compute"), ceilings(doc, "bandwidth")):
        for c in group if isinstance(group, list) else []:
            if isinstance(c, dict) and c.get("status") == "above-limit":
                c["status"] = "impossible"
    return doc


# a ceiling's status in one short word; its reason numbered under the table (and whole in the CSV)
_STATUS = Column("status", "status", value=lambda c, d: status_word(c.get("status", "ok")), note="reason")
_REASON = Column("reason", "reason", "msg", report=False)
_SAMPLES = Column("samples", "n", "int")


def _ceilings(part: str):
    return lambda d: ceilings(d, part)


def _audit(c: dict, d: dict) -> str | None:
    a = c.get("audit")
    return tr("{fma} FMA/{mul}M/{add}A, {spills} spill", fma=a["fma"], mul=a["fp_mul"], add=a["fp_add"],
              spills=a["spills"]) if a else None


def _plateaus(doc: dict) -> list[dict]:
    """Every plateau of the working-set sweeps, one row each, with the capacity it stands against."""
    caches = cache_sizes(doc.get("machine"))
    return [{**p, "kernel": sw["kernel"], "threads": sw.get("threads"),
             "capacity_bytes": p.get("expected_bytes") or caches.get(p["level"])}
            for sw in doc.get("bandwidth_sweeps") or [] for p in sw.get("plateaus") or []]


def _working_sets(p: dict, d: dict) -> str:
    return f"{binary_bytes(p['start_bytes'])} – {binary_bytes(p['end_bytes'])}"


def _sweep_bound(p: dict, d: dict) -> str | None:
    if p.get("above_roof"):
        return tr("above roof")
    return bound_word(p["bound"]) if p.get("bound") else None


def ceiling_tables(device: str) -> tuple[Table, ...]:
    """The compute and bandwidth ceilings and the plateaus they stand on, for the CPU (``device="cpu"``: per thread
    count, with the loop audit) or the GPU (with the SM clock during each, and HBM against its theoretical rate)."""
    cpu = device == "cpu"
    threads = (Column("threads", "threads", "int"),) if cpu else ()
    compute = (Column("kernel", "kernel", value=lambda c, d: c["name"]), Column("precision", "precision", report=False),
               *threads, Column("flops_per_s", "FLOP/s", "flops", ci="ci95"), _SAMPLES,
               *(() if cpu else (Column("clock_hz_during", "SM clock", "ghz"),)),
               Column("of_theoretical", "of theor.", "pct1"),
               *((Column("audit", "loop audit", value=_audit, csv=False),) if cpu else ()), _STATUS, _REASON)
    bandwidth = (Column("level", "level"), Column("kernel", "kernel"), *threads,
                 Column("bytes_per_s", "bytes/s", "bytes_per_s", ci="ci95"), _SAMPLES,
                 Column("working_set_bytes", "working set", "bytes"),
                 *(() if cpu else (Column("of_theoretical", "of theor.", "pct1"),)), _STATUS, _REASON)
    return (
        Table("compute_ceilings", (lambda d: tr("Compute ceilings (median, 95% CI; % of theoretical at the clock "
                                                "measured beside each)")) if cpu else
              (lambda d: tr("Compute ceilings (median, 95% CI; % of theoretical at the SM clock during each)")),
              rows=_ceilings("compute"), columns=compute),
        Table("bandwidth_ceilings", (lambda d: tr("Bandwidth ceilings (re-measured well inside each plateau; STREAM "
                                                  "byte counts)")) if cpu else
              (lambda d: tr("Bandwidth ceilings (STREAM byte counts; HBM against 2 x memory clock x bus width)")),
              rows=_ceilings("bandwidth"), columns=bandwidth),
        Table("plateaus", (lambda d: tr("Plateaus found in the working-set sweeps (vs capacity the threads see)"))
              if cpu else (lambda d: tr("Plateaus found in the working-set sweeps")), rows=_plateaus, columns=(
                  Column("kernel", "kernel"), *threads, Column("level", "level"),
                  Column("working_sets", "working sets", value=_working_sets, csv=False),
                  Column("start_bytes", "from", "bytes", report=False),
                  Column("end_bytes", "to", "bytes", report=False),
                  Column("capacity_bytes", "cache capacity", "bytes"), Column("median", "median", "bytes_per_s"),
                  Column("points", "points", "int"))),
    )


def sweep_table(title: Callable[[dict], str]) -> Table:
    """The batch sweep's table, each point marked as on the ASCII roofline; ``title(doc)`` in the reader's
    language."""
    return Table("batch_sweep", title, rows="sweep", columns=(
        Column("point", "pt", "mark", value=lambda p, d: f"B={p['B']}"),
        Column("B", "B", "int"),
        Column("intensity", "FLOP/B", "f1"),
        Column("time_s", "time", "seconds"),
        Column("flops_per_s", "achieved", "flops"),
        Column("predicted_flops_per_s", "roofline", "flops"),
        Column("of_predicted", "of roofline", "pct"),
        Column("of_peak", "of peak", "pct"),
        Column("bytes_per_s", "eff. bytes/s", "bytes_per_s"),
        Column("bound", "bound", value=_sweep_bound)))


def sweep_notes(doc: dict) -> list[str]:
    """Why there is no sweep, and each bandwidth sweep the loop audit refused."""
    out = [tr("{kernel} loop audit", kernel=sw["kernel"]) + ": " + text(sw["refused"])
           for sw in doc.get("bandwidth_sweeps") or [] if sw.get("refused")]
    info = doc.get("sweep_info") or {}
    if not doc.get("sweep") and info.get("skipped"):
        out.append(tr("batch sweep skipped: {why}", why=text(info["skipped"])))
    return out


def sweep_points(doc: dict) -> list[RoofPoint]:
    """The batch sweep's points (none where the roofline drawn is a one-thread one standing in for the all-thread
    roofline the sweep ran on)."""
    if read(Roofs, doc.get("roofs")).instead_of:
        return []
    return [RoofPoint(f"B={p['B']}", p["intensity"], p["flops_per_s"], p.get("bytes_per_s"), p.get("of_predicted"),
                      p.get("ci95"), bool(p.get("above_roof")))
            for p in doc.get("sweep") or [] if drawable(p.get("intensity")) and drawable(p.get("flops_per_s"))]


def sweep_roofline(title: Callable[[dict], str]) -> Roofline:
    return Roofline(points=sweep_points, title=title)

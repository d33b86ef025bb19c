"""What the observations of every kind share (pure: a document in, messages out).

Every sentence quotes what was measured; rules only decide which sentences apply. A run with a competing-load
warning says first that its figures may be low. Each observation is an ``i18n.msg``: stored with the run and
rendered in the reader's language.
"""

from __future__ import annotations

from typing import Callable

from rooflab.documents.common import read
from rooflab.documents.measure import SweepInfo
from rooflab.contract import RoofPoint
from rooflab.i18n import join, msg, tr
from rooflab.units import drawable, pct


def find_entry(items, **kw):
    for x in items:
        if all(x.get(k) == v for k, v in kw.items()) and x.get("status") == "ok":
            return x
    return None


def nothing_measured(doc: dict) -> bool:
    """Whether every kernel of a bench or explain document failed (to build, or at every size)."""
    rows = [r for k in doc.get("kernels", []) for r in (k.get("sizes") or [{"error": k.get("error")}])]
    return bool(rows) and all(r.get("error") for r in rows)


def load_caveat(doc: dict) -> list[dict]:
    for w in doc.get("warnings", []):
        if w.get("code") == "competing-load":
            return [msg("Other work was running during this measurement ({cores:.2f} core(s) on average): the "
                        "figures below may be low, and the observations with them. Rerun on a quiet machine.",
                        cores=w["seen"])]
    return []


def ok_rows(rows: list[dict]) -> list[dict]:
    return [r for r in rows if r.get("flops_per_s")]


def sweep_roofs(doc: dict) -> tuple[list[dict], dict, float, float, float] | None:
    """The batch sweep's points, its info, the compute and memory roofs it was predicted from and their ridge point
    (FLOP/byte); None without."""
    pts = doc.get("sweep") or []
    info = doc.get("sweep_info") or {}
    roofs = read(SweepInfo, info)
    if not pts or not roofs.compute_roof or not roofs.memory_roof:
        return None
    peak, bw = roofs.compute_roof.flops_per_s, roofs.memory_roof.bytes_per_s
    return pts, info, peak, bw, peak / bw


def above_roof(pts: list[dict]) -> list[dict]:
    bad = [p for p in pts if p["above_roof"]]
    if not bad:
        return []
    return [msg("Above their roof (a measurement problem, not a discovery; drawn as x): {points}.",
                points=join([msg("B = {b} at {frac}", b=p["B"], frac=pct(p["of_predicted"])) for p in bad], ", "))]


def status_word(st: str) -> str:
    """A ceiling's or a kernel's status, in the current language."""
    return {"ok": tr("ok"), "refused": tr("refused"), "impossible": tr("impossible"), "disturbed": tr("disturbed"),
            "failed": tr("failed"), "out-of-bounds": tr("out of bounds"), "crash": tr("crash"),
            "timeout": tr("timeout"), "error": tr("error"),
            "wrong": tr("wrong"), "unsupported": tr("unsupported")}.get(st, st)


def bound_word(b: str) -> str:
    return {"memory": tr("memory"), "compute": tr("compute")}.get(b, b)


def kernel_points(kernels: list[dict] | None) -> list[RoofPoint]:
    """Each measured size of each kernel (bench, explain), as a point of the roofline."""
    return [RoofPoint(r["label"], r["intensity"], r["flops_per_s"], r.get("bytes_per_s"), r.get("of_roof"),
                      r.get("ci95"), bool(r.get("above_roof")), kernel=True)
            for k in kernels or [] for r in k.get("sizes") or []
            if drawable(r.get("flops_per_s")) and drawable(r.get("intensity"))]


def disturbed_rows(rows: list[dict], label: Callable[[dict], str] = lambda r: r.get("name") or "?") -> list[dict]:
    """A lab's rows the measurement policy marked disturbed (the CPUs were not theirs even in the attempt kept): one
    observation each, first, so that no reading of the numbers below is taken as a quiet one."""
    return [msg("{label}: {why}; its figures may be low.", label=label(r), why=r.get("reason") or "")
            for r in rows if r.get("status") == "disturbed"]

"""What any format draws of a document's roofline: the roofs and points its command declares (``Report.roofline``),
read the same way by the ASCII roofline, the plot and the HTML page."""

from __future__ import annotations

from rooflab import registry
from rooflab.contract import Roofline, RoofPoint
from rooflab.errors import RooflabError
from rooflab.render.ascii import MARKS, Point
from rooflab.results.schema import parse_schema
from rooflab.units import drawable


def roofline_of(doc: dict, kind: str | None = None) -> tuple[list[dict], list[dict], list[RoofPoint]]:
    """(compute roofs, memory roofs, points) of a document: the roofs ``{name, value}`` that can be drawn, and the
    points its command declares (none for a kind that declares no roofline). ``kind``: the run's, for a document
    that does not name its own (an overlay made of several names none: its roofs only)."""
    try:
        kind = parse_schema(doc.get("schema"))[0]
    except RooflabError:
        pass
    cmd = registry.for_kind(kind) if kind else None
    decl = cmd.report.roofline if cmd is not None else None
    roofs = (decl.roofs(doc) if decl is not None else doc.get("roofs")) or {}
    comp = [c for c in roofs.get("compute", []) if drawable(c.get("value"))]
    mem = [m for m in roofs.get("memory", []) if drawable(m.get("value"))]
    return comp, mem, decl.points(doc) if decl is not None else []


def _declared(doc: dict, kind: str | None = None) -> Roofline | None:
    try:
        kind = parse_schema(doc.get("schema"))[0]
    except RooflabError:
        pass
    cmd = registry.for_kind(kind) if kind else None
    return cmd.report.roofline if cmd is not None else None


def is_path(doc: dict, kind: str | None = None) -> bool:
    """Whether the roofline a document's command declares joins its points in order (a trajectory)."""
    decl = _declared(doc, kind)
    return bool(decl is not None and decl.path)



def marked(points: list[RoofPoint]) -> list[Point]:
    """Each point with its mark on the ASCII roofline (the same mark labels its row in a table)."""
    return [Point(MARKS[i % len(MARKS)], p.intensity, p.flops_per_s, p.flagged) for i, p in enumerate(points)]

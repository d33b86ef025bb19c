"""A report declared as data is drawn from the declaration alone: its tables and its roofline, in the terminal."""

import io

from rich.console import Console

from rooflab.contract import Column, Command, NoOptions, Report, RoofPoint, Roofline, Table
from rooflab.i18n import msg
from rooflab.render.tables import render_generic


def _points(doc):
    return [RoofPoint(f"n={r['n']}", r["intensity"], r["flops_per_s"], flagged=r.get("above", False))
            for r in doc["rows"]]


CMD = Command(name="steps", summary=msg("squares of the first steps"), options=NoOptions, run=lambda s, o: {},
              report=Report(tables=(Table("steps_rows", "Steps", rows="rows", columns=(
                  Column("n", "n", "int"), Column("flops_per_s", "FLOP/s", "flops"))),),
                  roofline=Roofline(points=_points)))

DOC = {"schema": "rooflab.steps/1",
       "roofs": {"compute": [{"name": "FMA", "value": 1e11}], "memory": [{"name": "DRAM", "value": 1e10}]},
       "rows": [{"n": 1, "intensity": 0.5, "flops_per_s": 4e9}, {"n": 2, "intensity": 8.0, "flops_per_s": 9e10},
                {"n": 3, "intensity": 20.0, "flops_per_s": 2e11, "above": True}]}


def test_the_terminal_report_draws_the_declared_roofline(monkeypatch):
    from rooflab import registry

    monkeypatch.setattr(registry, "for_kind", lambda kind: CMD if kind == "steps" else None)
    out = io.StringIO()
    render_generic(CMD, DOC, Console(file=out, width=120, color_system=None))
    page = out.getvalue()
    assert "Steps" in page and "FMA" in page and "DRAM" in page
    legend = next(line for line in page.splitlines() if "points:" in line)
    assert "n=1" in legend and "n=2" in legend and "n=3" in legend
    # without roofs there is no roofline to draw, and nothing breaks
    out = io.StringIO()
    render_generic(CMD, {**DOC, "roofs": {}}, Console(file=out, width=120, color_system=None))
    assert "points:" not in out.getvalue() and "Steps" in out.getvalue()

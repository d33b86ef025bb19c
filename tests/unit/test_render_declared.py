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


def _report_cmd():
    from rooflab.contract import Line

    def status_rows(doc):
        return doc["rows"]

    return Command(
        name="steps2", summary=msg("squares of the first steps"), options=NoOptions, run=lambda s, o: {},
        report=Report(
            title="rooflab steps", headline=lambda d: "two kinds",
            tables=(Table("steps2_rows", "Steps", rows=status_rows, footer=lambda d, a, rows: ["built with -O3"],
                          columns=(Column("pt", "pt", "mark", value=lambda r, d: f"n={r['n']}"),
                                   Column("n", "n", "int"),
                                   Column("flops_per_s", "FLOP/s", "flops", ci="ci95"),
                                   Column("status", "status", note="reason"),
                                   Column("reason", "reason", "msg", report=False))),
                    Table("steps2_machine", "Machine", rows=lambda d: [{"what": "CPU", "value": "<b>x</b>"}],
                          columns=(Column("what", "item"), Column("value", "value")), keyed=True,
                          formats=("text", "html")),
                    Table("steps2_hidden", "Hidden in the terminal", rows="rows", formats=("html", "csv"),
                          columns=(Column("n", "n", "int"),))),
            notes=lambda d: ["the sweep was skipped: disabled"],
            outline=lambda d: [Line("kernel k", strong=True, aside="scalar"), Line("why: a chain", 4)],
            roofline=Roofline(points=_points, title=lambda d: "Roofline of the steps")))


def test_every_part_a_report_declares_is_drawn_in_the_terminal_the_page_and_the_csv(monkeypatch, tmp_path):
    from rooflab import registry
    from rooflab.render.csvfiles import tables_of
    from rooflab.render.html import render_html, run_from_doc
    from rooflab.render.report import render

    cmd = _report_cmd()
    monkeypatch.setattr(registry, "for_kind", lambda kind: cmd if kind == "steps2" else None)
    why = msg("measured while the CPUs were not all ours: {why}", why="x")
    rows = [{"n": 1, "intensity": 0.5, "flops_per_s": 4e9, "ci95": [3.9e9, 4.1e9], "status": "ok"},
            {"n": 2, "intensity": 8.0, "flops_per_s": 9e10, "status": "disturbed", "reason": why},
            {"n": 3, "intensity": 20.0, "flops_per_s": 2e11, "status": "disturbed", "reason": why, "above": True}]
    doc = {**DOC, "schema": "rooflab.steps2/1", "rows": rows}
    out = io.StringIO()
    render(doc, Console(file=out, width=160, color_system=None))
    page = out.getvalue()
    assert page.startswith("rooflab steps · two kinds")
    assert "3.9 G–4.1 GFLOP/s" in page  # the interval, its unit once
    # one reason, numbered once under the table, for both rows it explains
    assert page.count("[1]") == 3 and "  [1] measured while the CPUs were not all ours: x" in page
    assert "built with -O3" in page and "the sweep was skipped: disabled" in page
    assert "Hidden in the terminal" not in page and "Roofline of the steps" in page
    # the mark of each row is its point's mark on the ASCII roofline, named under it
    legend = next(line for line in page.splitlines() if "points:" in line)
    assert "1: n=1" in legend and "3: n=3 (above roof)" in legend
    assert page.index("Roofline of the steps") < page.index("kernel k") < page.index("    why: a chain")
    html = render_html([run_from_doc("steps2", doc)])
    assert "Hidden in the terminal" in html and "&lt;b&gt;x&lt;/b&gt;" in html and "<b>x</b>" not in html
    assert "<ol class='notes'><li>measured while the CPUs were not all ours: x</li></ol>" in html
    assert "kernel k" in html and "the sweep was skipped" in html
    csv = tables_of(doc)
    assert set(csv) == {"steps2_rows", "steps2_hidden"}  # the machine is for people; no mark in a CSV
    heads, body = csv["steps2_rows"]
    assert heads == ["n", "flops_per_s", "flops_per_s_lo", "flops_per_s_hi", "status", "reason"]
    assert body[1][-1] == "measured while the CPUs were not all ours: x"


def test_a_long_table_shows_its_ends_and_counts_the_rest():
    from rooflab.render.tables import formatted
    from rooflab.render.text import SHOWN_AT_EACH_END

    t = Table("long", "Long", rows="rows", columns=(Column("n", "n", "int"),))
    (d,) = formatted(t, {"rows": [{"n": i} for i in range(1000)]})
    assert len(d.rows) == 2 * SHOWN_AT_EACH_END + 1 and d.rows[SHOWN_AT_EACH_END] == ["…"]
    assert d.rows[0] == ["0"] and d.rows[-1] == ["999"]
    assert d.footer == [f"{1000 - 2 * SHOWN_AT_EACH_END} more rows (all in --csv and --json)"]

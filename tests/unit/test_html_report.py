import re

from rooflab.render.html import render_html


def _run(doc, kind="measure", label_extra=""):
    return {"run_id": 7, "kind": kind, "created": "2026-01-01T00:00:00+00:00", "status": "complete",
            "header": {"machine": {"model_name": "CPU <b>x</b>"}, "environment": {"python": "3.11"}, "command": ["x"]},
            "result": doc}


MEASURE = {
    "schema": "rooflab.measure/2",
    "roofs": {"compute": [{"name": "fp32 FMA x2", "value": 2e11}, {"name": "fp32 BLAS x2", "value": 1.6e11}],
              "memory": [{"name": "L1 x2", "value": 4e11}, {"name": "DRAM x2", "value": 3e10}]},
    "sweep": [{"B": b, "intensity": i, "flops_per_s": f, "bytes_per_s": 1e10, "predicted_flops_per_s": 1e11,
               "of_predicted": 0.5, "ci95": [f * 0.9, f * 1.1], "above_roof": b == 4}
              for b, i, f in ((1, 0.5, 1.2e10), (2, 1.0, 2e10), (4, 2.0, 9e10))],
    "ceilings": {"compute": [{"name": "fp32 FMA", "threads": 2, "flops_per_s": 2e11, "of_theoretical": 0.99,
                              "status": "ok"}], "bandwidth": []},
    "observations": ["Ridge point <script>alert(1)</script>"],
    "warnings": [{"message": "high spread", "remedy": "rerun"}],
}


def test_page_is_self_contained_and_draws_every_ceiling_and_point():
    page = render_html([_run(MEASURE)])
    assert page.startswith("<!DOCTYPE html>") and "</html>" in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)  # nothing fetched when viewed
    assert page.count('class="ceiling ') == 4
    assert page.count('<circle class="point') == 3 and page.count('class="point flagged"') == 1
    assert page.count('type="checkbox"') == 4  # every ceiling can be switched off
    assert "B=2: 20 GFLOP/s" in page and "of roof" in page  # tooltips
    assert "Machine and environment record" in page and "high spread" in page


def test_run_strings_are_escaped():
    page = render_html([_run(MEASURE)])
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "CPU <b>x</b>" not in page and "CPU &lt;b&gt;x&lt;/b&gt;" in page


def test_several_runs_and_runs_without_a_roofline():
    lab = {"lab": "ladder", "rungs": [{"name": "ikj", "threads": 1, "flops_per_s": 3e10, "rel_error": 1e-7,
                                       "ratio_to_blas": 0.3}], "observations": ["x"]}
    page = render_html([_run(MEASURE), _run(lab, kind="lab.ladder")])
    assert page.count("<section>") == 2 and "(no roofline in this run)" in page and "vs BLAS" in page


def _measure_run(rid, fma, dram):
    doc = {"schema": "rooflab.measure/2", "roofs": {"compute": [{"name": "FMA", "value": fma}], "memory": [{"name": "DRAM", "value": dram}]},
           "ceilings": {"compute": [{"name": "FMA", "threads": 2, "flops_per_s": fma, "status": "ok"}],
                        "bandwidth": [{"level": "DRAM", "kernel": "read", "threads": 2, "bytes_per_s": dram,
                                       "status": "ok"}]}}
    run = _run(doc)
    run["run_id"] = rid
    return run


def test_two_machines_overlaid_with_ratios(tmp_path):
    from rooflab.render.csvfiles import write_csv
    from rooflab.render.html import ceiling_comparison

    laptop, server = _measure_run(1, 1e11, 2e10), _measure_run(2, 4e11, 1e11)
    cols, rows = ceiling_comparison([laptop, server])
    assert cols == ["ceiling", "threads", "run 1", "run 2", "run 2 / run 1"]
    assert rows == [["FMA", 2, 1e11, 4e11, 4.0], ["DRAM read", 2, 2e10, 1e11, 5.0]]
    page = render_html([laptop, server])
    assert "Overlay of 2 runs" in page and page.count("run 2: FMA") >= 2
    assert ceiling_comparison([laptop]) is None
    paths = write_csv(server["result"], tmp_path / "csv", prefix="run2_")
    names = sorted(p.name for p in paths)
    assert names == ["run2_bandwidth_ceilings.csv", "run2_compute_ceilings.csv"]
    assert (tmp_path / "csv" / "run2_compute_ceilings.csv").read_text().splitlines()[1].startswith("FMA,,2,400000000000.0")


def test_labels_of_close_ceilings_are_moved_apart_and_kernel_points_are_named():
    from rooflab.render.html import LABEL_H, spread

    got = spread([100.0, 102.0, 300.0, 101.0], 20, 460)
    assert got[0] == 100.0 and sorted(got) == [100.0, 100.0 + LABEL_H, 100.0 + 2 * LABEL_H, 300.0]
    assert got[2] == 300.0  # a label far from the others stays by its line
    bottom = spread([455.0, 457.0, 459.0], 20, 460)  # a stack pushed past the bottom goes back up
    assert max(bottom) <= 460 and min(b - a for a, b in zip(sorted(bottom), sorted(bottom)[1:])) >= LABEL_H
    close = {**MEASURE, "roofs": {**MEASURE["roofs"], "compute": [{"name": "fp32 FMA", "value": 2.0e11},
                                                                  {"name": "fp32 mul+add", "value": 1.97e11}]}}
    page = render_html([_run(close)])
    ys = sorted(float(y) for y in re.findall(r'class="label" text-anchor="end">.*?</text>|y="([\d.]+)" '
                                             r'class="label" text-anchor="end"', page) if y)
    assert len(ys) == 2 and ys[1] - ys[0] >= LABEL_H
    bench = {"schema": "rooflab.bench/1", "roofs": MEASURE["roofs"], "kernels": [{"name": "k", "sizes": [
        {"label": "k n=64", "intensity": 0.25, "flops_per_s": 1e9, "bytes_per_s": 4e9, "of_roof": 0.1},
        {"label": "k n=<4096>", "intensity": 0.25, "flops_per_s": 2e9, "bytes_per_s": 8e9, "of_roof": 0.2}]}]}
    page = render_html([_run(bench, kind="bench")])
    assert page.count('class="point-label"') == 2
    # two points drawn close together: their numbers do not cover each other
    from rooflab.render.html import free_spot

    taken = []
    a, b = free_spot(100, 100, 6.5, taken), free_spot(101, 101, 6.5, taken)
    assert a != b and not (taken[0][0] < taken[1][2] and taken[1][0] < taken[0][2] and taken[0][1] < taken[1][3]
                           and taken[1][1] < taken[0][3])
    assert '<ol class="legend"><li>k n=64</li><li>k n=&lt;4096&gt;</li></ol>' in page


def test_every_format_draws_the_roofline_its_command_declares():
    from rooflab.render.roofs import roofline_of

    comp, mem, pts = roofline_of(MEASURE)  # measure declares its batch sweep's points
    assert [p.label for p in pts] == ["B=1", "B=2", "B=4"] and [p.flagged for p in pts] == [False, False, True]
    assert len(comp) == 2 and len(mem) == 2
    # a one-thread roofline standing in for the all-thread one the sweep ran on: no sweep points on it
    assert roofline_of({**MEASURE, "roofs": {**MEASURE["roofs"], "instead_of": 2}})[2] == []
    # a kind that declares no roofline: its roofs, no points; a document of no kind: the same
    ladder = {"schema": "rooflab.lab.ladder/2", "roofs": MEASURE["roofs"], "sweep": MEASURE["sweep"]}
    assert roofline_of(ladder)[2] == [] and len(roofline_of(ladder)[0]) == 2
    assert roofline_of({"roofs": MEASURE["roofs"]})[2] == []

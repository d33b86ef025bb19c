"""`rooflab measure --quick` end to end: structure and correctness of the document, never its speed."""

import json

import pytest

from rooflab import registry
from rooflab.cli import main

pytestmark = pytest.mark.cc


@pytest.fixture(scope="module")
def quick_run(quick_measure):
    """The session's one `rooflab measure --quick --lang zh --plot roof.svg` (conftest.quick_measure)."""
    return quick_measure


def test_measure_quick_lang_zh_prints_chinese_throughout(quick_run):
    from conftest import CJK, english_prose

    doc, _, _, zh = quick_run
    assert CJK.search(zh) and "观察" in zh and "计算上限" in zh
    assert english_prose(zh, doc) == []


def test_json_has_the_documented_keys(quick_run):
    doc, _, _, _ = quick_run
    assert doc["schema"] == "rooflab.measure/2" and doc["quick"] is True
    m = doc["machine"]
    assert m["clock_hz"] > 0
    assert m["theoretical"]["fp32_flops"] > 0 and m["theoretical"]["fp64_flops"] > 0
    assert set(m["caches"]) >= {"L1", "L2"} and all(v > 0 for v in m["caches"].values())
    for c in doc["ceilings"]["compute"]:
        for k in ("name", "precision", "isa", "threads", "flops_per_s", "ci95", "of_theoretical"):
            assert k in c, k
    for b in doc["ceilings"]["bandwidth"]:
        for k in ("level", "kernel", "threads", "bytes_per_s", "ci95", "working_set_bytes"):
            assert k in b, k
    for p in doc["sweep"]:
        for k in ("B", "intensity", "flops_per_s", "predicted_flops_per_s"):
            assert k in p, k
    assert isinstance(doc["warnings"], list) and doc["observations"]
    assert doc["run_id"] >= 1


def test_every_ceiling_is_checked_and_audited(quick_run):
    doc, _, _, _ = quick_run
    comp = doc["ceilings"]["compute"]
    classes = {(c["precision"], c["klass"]) for c in comp}
    for prec in ("fp32", "fp64"):
        for klass in ("scalar", "simd", "simd_fma", "blas_gemm"):
            assert (prec, klass) in classes
    threads = {c["threads"] for c in comp}
    assert 1 in threads and doc["threads_all"] in threads
    for c in comp:
        assert c["status"] != "failed", c.get("reason")
        assert c["rel_error"] is not None and c["rel_error"] < 1e-3
        assert c["ci95"][0] <= c["flops_per_s"] <= c["ci95"][1]
        if c["klass"] != "blas_gemm":
            # the compiled loop matched the model (FMA count, width, no spills)
            assert c["status"] != "refused", c["reason"]
            assert c["audit"]["spills"] == 0
    levels = {b["level"] for b in doc["ceilings"]["bandwidth"]}
    assert "L1" in levels and "DRAM" in levels
    for sw in doc["bandwidth_sweeps"]:
        assert sw["refused"] is None and sw["rel_error"] == 0.0 and len(sw["points"]) >= 10
    for p in doc["sweep"]:
        assert p["rel_error"] < 1e-3
        assert p["predicted_flops_per_s"] > 0
        assert p["above_roof"] == (p["flops_per_s"] > 1.02 * p["predicted_flops_per_s"])


def test_stored_and_redrawn_without_measuring(quick_run, capsys):
    doc, store, svg, zh = quick_run
    roofs = doc["roofs"]
    if roofs["compute"] and roofs["memory"]:  # the roofline of all threads, or of one when a CPU was not ours
        assert svg.exists() and svg.read_text().lstrip().startswith("<?xml")
        assert roofs["threads"] == (1 if roofs.get("instead_of") else doc["threads_all"])
    else:  # every CPU was busy with others: the run is shown all the same, and says why nothing was drawn
        assert not svg.exists() and "未写入屋顶线图" in zh
    code = main(["show", str(doc["run_id"]), "--store", str(store)])
    out = capsys.readouterr().out
    assert code == 0
    for s in (" · quick · ", "Compute ceilings", "Bandwidth ceilings", "Plateaus found",
              "Roofline of this machine", "Observations"):
        assert s in out, s
    if doc["sweep"]:
        assert "Batch sweep" in out and "quick mode" in out
    else:  # no fp32 FMA or DRAM roof to predict from (a busy machine): skipped, and said
        assert "batch sweep skipped" in out
    code = main(["show", "latest", "--store", str(store), "--json"])
    stored = json.loads(capsys.readouterr().out)
    assert stored["status"] == "complete" and stored["result"]["ceilings"] == json.loads(json.dumps(doc["ceilings"]))
    code = main(["history", "--store", str(store), "--kind", "measure", "--json"])
    assert json.loads(capsys.readouterr().out)["runs"][0]["kind"] == "measure"


def test_bad_plot_path_fails_before_measuring(capsys, tmp_path):
    code = main(["measure", "--quick", "--plot", str(tmp_path / "roof.gif"), "--store", str(tmp_path / "s.sqlite")])
    err = capsys.readouterr().err
    assert code == 2 and ".png, .svg or .pdf" in err
    code = main(["history", "--store", str(tmp_path / "s.sqlite"), "--json"])
    assert json.loads(capsys.readouterr().out)["runs"] == []


def test_library_api_measure_without_store():
    import rooflab

    doc = rooflab.measure(quick=True, threads=1, precision="fp64", batch_sweep=False, store=False)
    assert doc["schema"] == "rooflab.measure/2" and "run_id" not in doc
    assert {c["precision"] for c in doc["ceilings"]["compute"]} == {"fp64"}
    assert {c["threads"] for c in doc["ceilings"]["compute"]} == {1}
    assert doc["sweep"] == [] and doc["sweep_info"]["skipped"]["text"] == "disabled"


def test_lab_list_and_fma_quick(capsys, tmp_path):
    assert main(["lab"]) == 0
    assert "fma" in capsys.readouterr().out
    code = main(["lab", "fma", "--quick", "--json", "--store", str(tmp_path / "s.sqlite")])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["schema"] == "rooflab.lab.fma/1"
    chains = [p["chains"] for p in doc["points"]]
    assert chains[0] == 1 and chains[-1] > doc["vector_registers"]
    for p in doc["points"]:
        assert {"chains", "flops_per_s", "spills"} <= set(p)
        assert p["rel_error"] < 1e-3
        # each variant has exactly its number of FMA chains in the loop
        assert p["fma_in_loop"] == p["chains"]
    assert doc["points"][0]["spills"] == 0
    assert doc["analysis"]["latency_cycles"] > 0 and doc["observations"]
    assert main(["show", "latest", "--store", str(tmp_path / "s.sqlite")]) == 0
    assert "Little's law" in capsys.readouterr().out


def test_lab_ladder_quick_json(capsys, tmp_path):
    code = main(["lab", "ladder", "--quick", "--n", "200", "--json", "--store", str(tmp_path / "s.sqlite")])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["schema"] == "rooflab.lab.ladder/2" and doc["n"] == 200
    assert doc["worker_env"]["OPENBLAS_THREAD_TIMEOUT"] == "4" and "GOMP_SPINCOUNT" in doc["worker_env"]
    for r in doc["rungs"]:
        assert {"name", "own", "n", "threads", "flops_per_s", "rel_error", "ratio_to_blas"} <= set(r), r
        assert r["rel_error"] < 1e-4 and r["flops_per_s"] > 0
        assert not r.get("audit_problem"), r["audit_problem"]
    assert [r["own"] for r in doc["rungs"]].count(False) >= 1
    assert doc["observations"]


@pytest.mark.parametrize("name,key", [("loops", "orders"), ("blocking", "cases"), ("vectorize", "flags"),
                                      ("tiles", "tiles")])
def test_other_labs_quick_json(capsys, tmp_path, name, key):
    args = ["lab", name, "--quick", "--json", "--store", str(tmp_path / "s.sqlite")]
    if name in ("loops", "vectorize", "tiles"):
        args += ["--n", "96"]
    code = main(args)
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["schema"] == registry.lab(name).schema and doc["observations"]
    rows = doc[key] if name != "blocking" else [r for c in doc["cases"] for r in c["rows"]]
    assert rows
    for r in rows:
        assert r.get("flops_per_s"), r.get("error")
        assert r["rel_error"] < 1e-4
    if name == "tiles":
        assert all(r["fma_in_loop"] == r["accumulators"] for r in rows if not r["spills"])
    assert main(["show", "latest", "--store", str(tmp_path / "s.sqlite")]) == 0


def test_library_api_lab():
    import rooflab

    doc = rooflab.lab("loops", quick=True, n=64, store=False)
    assert doc["schema"] == "rooflab.lab.loops/1" and len(doc["orders"]) == 6
    with pytest.raises(rooflab.RooflabError, match="no lab 'nope'"):
        rooflab.lab("nope")


def test_html_report_of_stored_runs_and_after_a_lab(quick_run, capsys, tmp_path):
    doc, store, _, _ = quick_run
    page = tmp_path / "r.html"
    assert main(["report", str(doc["run_id"]), "--store", str(store), "--html", str(page)]) == 0
    text = page.read_text()
    assert text.count('class="ceiling ') == len(doc["roofs"]["compute"]) + len(doc["roofs"]["memory"])
    # the batch sweep ran on every thread: its points are drawn on an all-thread roofline only
    assert text.count('<circle class="point') == (0 if doc["roofs"].get("instead_of") else len(doc["sweep"]))
    lab_page = tmp_path / "lab.html"
    assert main(["lab", "loops", "--quick", "--n", "64", "--no-store", "--html", str(lab_page), "--csv",
                 str(tmp_path / "csv")]) == 0
    assert "orders" in lab_page.read_text() and "loop_" not in capsys.readouterr().err
    rows = (tmp_path / "csv" / "loops_orders.csv").read_text().splitlines()
    assert rows[0].startswith("name,group,flops_per_s") and len(rows) == 7


def test_show_two_runs_side_by_side_with_csv_and_overlay(quick_run, capsys, tmp_path):
    import copy

    from conftest import store_with_quick_measure

    from rooflab.results.store import Store

    doc, _, _, _ = quick_run
    store = store_with_quick_measure(quick_run, tmp_path)  # the other run is this test's own
    later = copy.deepcopy(doc)  # the same machine on another date, twice as fast everywhere
    for c in later["ceilings"]["compute"] + later["ceilings"]["bandwidth"]:
        for k in ("flops_per_s", "bytes_per_s"):
            if c.get(k):
                c[k] *= 2
    with Store(store) as st:
        other = st.save("measure", {"machine": doc["machine"], "environment": doc["environment"]}, later)
    code = main(["show", str(doc["run_id"]), str(other), "--store", str(store), "--csv", str(tmp_path / "csv"),
                 "--plot", str(tmp_path / "both.svg")])
    out = capsys.readouterr().out
    assert code == 0 and "Ceilings side by side" in out and f"run {other} / run {doc['run_id']}" in out
    assert (tmp_path / "csv" / f"run{doc['run_id']}_compute_ceilings.csv").exists()
    assert (tmp_path / "both.svg").read_text().lstrip().startswith("<?xml")
    assert "2.00x" in out

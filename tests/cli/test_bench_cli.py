"""`rooflab bench` and `rooflab compare` end to end: errors per size and kernel, the record, the verdicts."""

import json
from pathlib import Path

import pytest

from rooflab.cli import main
from conftest import fake_measure
from rooflab.results.store import Store

pytestmark = pytest.mark.cc
DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture(scope="module")
def bench_run(tmp_path_factory):
    store = tmp_path_factory.mktemp("bench") / "s.sqlite"
    fake_measure(store)
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["bench", str(DATA / "user_kernels.toml"), "--quick", "--json", "--store", str(store)])
    return code, json.loads(out.getvalue()), store


def test_bench_measures_places_and_reports_each_failure(bench_run):
    code, doc, store = bench_run
    assert code == 0 and doc["schema"] == "rooflab.bench/1"
    k = {x["name"]: x for x in doc["kernels"]}
    for r in k["scale"]["sizes"]:
        assert r["rel_error"] == 0.0 and r["flops_per_s"] > 0 and r["bytes_per_s"] > 0
        assert r["intensity"] == pytest.approx(1 / 8) and r["bound"] == "memory" and 0 < r["of_roof"]
        assert r["level"] in ("L1", "L2", "L3", "DRAM") and r["time_ci95"][0] <= r["time_s"] <= r["time_ci95"][1]
    assert all(r["error_kind"] == "wrong" and "wrong result" in r["error"] for r in k["scale_wrong"]["sizes"])
    crash = k["scale_crash"]["sizes"]
    assert crash[0].get("flops_per_s") and crash[1]["error_kind"] == "crash" and "SIGSEGV" in crash[1]["error"]
    hang = k["scale_hang"]["sizes"]
    assert hang[0].get("flops_per_s") and hang[1]["error_kind"] == "timeout" and "3 s" in hang[1]["error"]
    assert len(doc["points"]) == 4  # only the measured sizes are drawn
    assert any("wrong" in o["text"] for o in doc["observations"])
    with Store(store) as st:
        stored = st.get(doc["run_id"])
    # a record per attempt: a size measured while the CPUs were not its own is measured again (a busy machine)
    attempts = sum(r.get("attempts", 1) for kk in doc["kernels"] for r in kk["sizes"])
    assert stored["status"] == "complete" and len(stored["records"]) == attempts >= 8
    assert stored["header"]["environment"]["python"]  # the record of what ran where
    assert "git" in doc["kernels"][0]  # the state of the work tree holding the kernel's source


def test_bench_text_output_and_plot(bench_run, capsys, tmp_path):
    _, doc, store = bench_run
    assert main(["show", str(doc["run_id"]), "--store", str(store), "--plot", str(tmp_path / "b.png")]) == 0
    out = capsys.readouterr().out
    assert "scale (median time" in out and "Your kernels on this machine" in out and "timeout" in out
    assert (tmp_path / "b.png").stat().st_size > 1000


def test_bad_specs_fail_before_running(capsys, tmp_path):
    code = main(["bench", str(DATA / "broken_kernel.toml"), "--store", str(tmp_path / "s.sqlite")])
    err = capsys.readouterr().err
    assert code == 2 and "broken_kernel.toml" in err and "args and the prototype" in err
    code = main(["bench", str(tmp_path / "none.toml"), "--store", str(tmp_path / "s.sqlite")])
    assert code == 2 and "not found" in capsys.readouterr().err
    code = main(["bench", str(DATA / "user_kernels.toml"), "--kernel", "nope", "--store", str(tmp_path / "s.sqlite")])
    assert code == 2 and "no kernel named nope" in capsys.readouterr().err
    with Store(tmp_path / "s.sqlite") as st:
        assert st.runs() == []


def test_compile_error_shows_file_and_line(capsys, tmp_path):
    (tmp_path / "bad.c").write_text("void f(long n, float *y) {\n  y[0] = undefined_thing;\n}\n")
    (tmp_path / "bad.toml").write_text('source = "bad.c"\nfunction = "f"\nflops = "n"\nbytes = "4*n"\n'
                                       'sizes = {n = [4]}\n[args]\nn = "n"\ny = {shape = ["n"], dtype = "float32"}\n')
    fake_measure(tmp_path / "s.sqlite")
    code = main(["bench", str(tmp_path / "bad.toml"), "--quick", "--json", "--store", str(tmp_path / "s.sqlite")])
    doc = json.loads(capsys.readouterr().out)
    assert code == 3  # nothing of the spec could be measured: a CI job sees it
    k = doc["kernels"][0]
    assert "bad.c:2:" in k["error"] and "undefined_thing" in k["error"]
    assert k["diagnostics"][0]["line"] == 2 and k["diagnostics"][0]["file"].endswith("bad.c")


def test_compare_kernels_and_runs(bench_run, capsys):
    _, doc, store = bench_run
    a = f"{DATA / 'user_kernels.toml'}:scale"
    code = main(["compare", a, a, "--quick", "--json", "--store", str(store)])
    cmp = json.loads(capsys.readouterr().out)
    assert code == 0 and cmp["schema"] == "rooflab.compare/1" and cmp["mode"] == "kernels"
    for r in cmp["rows"]:
        assert r["verdict"] in ("faster", "slower", "no difference") and r["rounds"] == 10
        assert r["speedup_ci95"][0] <= r["speedup"] <= r["speedup_ci95"][1]
    code = main(["compare", str(doc["run_id"]), str(doc["run_id"]), "--json", "--store", str(store)])
    runs = json.loads(capsys.readouterr().out)
    assert code == 0 and runs["mode"] == "runs" and runs["record_differences"] == []
    assert all(r["verdict"] == "no difference" and r["speedup"] == 1.0 for r in runs["rows"])
    code = main(["compare", a, str(doc["run_id"]), "--store", str(store)])
    assert code == 2 and "not one of each" in capsys.readouterr().err
    code = main(["compare", str(DATA / "user_kernels.toml"), a, "--store", str(store)])
    assert code == 2 and "several kernels" in capsys.readouterr().err


def test_python_callable_bench(tmp_path):
    import numpy as np

    import rooflab

    fake_measure(tmp_path / "s.sqlite")

    def setup(n):
        return np.ones(n), np.full(n, 2.0)

    def broken(x, y):
        if len(x) > 1000:
            raise ValueError("too big")
        return x + y

    doc = rooflab.bench(lambda x, y: x + y, sizes=[{"n": 1000}, {"n": 100000}], setup=setup, flops="n",
                        bytes="24*n", expected=lambda x, y: np.full(len(x), 3.0), name="add", quick=True,
                        store=str(tmp_path / "s.sqlite"))
    rows = doc["kernels"][0]["sizes"]
    assert [r["rel_error"] for r in rows] == [0.0, 0.0] and all(r["flops_per_s"] > 0 for r in rows)
    assert rows[1]["working_set_bytes"] == 1_600_000 and rows[1]["bound"] == "memory"
    doc = rooflab.bench(broken, sizes=[{"n": 10}, {"n": 5000}], setup=setup, flops="n", bytes="24*n", quick=True,
                        store=str(tmp_path / "s.sqlite"))
    rows = doc["kernels"][0]["sizes"]
    assert rows[0].get("flops_per_s") and rows[1]["error_kind"] == "error" and "too big" in rows[1]["error"]
    wrong = rooflab.bench(lambda x, y: x - y, sizes=[{"n": 10}], setup=setup, flops="n", bytes="24*n",
                          expected=lambda x, y: x + y, quick=True, store=str(tmp_path / "s.sqlite"))
    assert wrong["kernels"][0]["sizes"][0]["error_kind"] == "wrong"

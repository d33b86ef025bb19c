"""`rooflab explain` and `bench --explain` end to end, on a roofline no machine reaches (so that no finding depends
on how fast this machine is): the evidence, the findings, an experiment with its paired verdict, the outputs, the
store, and bad input."""

import contextlib
import io
import json
import math
from pathlib import Path

import pytest

import rooflab
from conftest import CJK
from rooflab.cli import main
from rooflab.results.store import Store

pytestmark = pytest.mark.cc
DATA = Path(__file__).resolve().parents[1] / "data"
SPEC = str(DATA / "explain_kernels.toml")


def unreachable_roofline(store_path) -> int:
    """A stored roofline far above what a core reaches in practice, yet within the physical bounds rooflab checks
    stored figures against: every kernel of these tests is far below its roof."""
    from rooflab.machine import describe

    comp = [{"precision": p, "klass": "simd_fma", "threads": t, "status": "ok", "flops_per_s": 9e10 * t,
             "name": f"{p} FMA"} for p in ("fp32", "fp64") for t in (1, 2)]
    bw = [{"level": lv, "kernel": k, "threads": t, "status": "ok", "bytes_per_s": v * t}
          for lv, v in (("L1", 1e12), ("L2", 6e11), ("L3", 4e11), ("DRAM", 1.5e11))
          for k in ("read", "copy", "triad") for t in (1, 2)]
    with Store(store_path) as st:
        rid = st.begin("measure", {"machine": {"key": describe()["key"]}, "environment": {"hostname": "h"}})
        st.finish(rid, {"schema": "rooflab.measure/1", "ceilings": {"compute": comp, "bandwidth": bw},
                        "run_id": rid})
    return rid


def run_json(*args) -> tuple[int, dict]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([*args, "--json"])
    return code, json.loads(out.getvalue())


@pytest.fixture(scope="module")
def explained(tmp_path_factory):
    store = tmp_path_factory.mktemp("explain") / "s.sqlite"
    unreachable_roofline(store)
    code, doc = run_json("explain", SPEC, "--size", "n=20000", "--quick", "--store", str(store))
    return code, doc, store


def test_explain_finds_the_in_order_sum_and_tests_it(explained):
    code, doc, store = explained
    assert code == 0 and doc["schema"] == "rooflab.explain/1"
    k = doc["kernels"][0]
    loop = k["code"]["loop"]
    assert loop["accumulators"] >= 1 and "add" in loop["chain_op"]  # the running sum, read from the compiled loop
    assert k["code"]["remarks"] and k["code"]["isa_vector_bits"] > 0
    r = k["sizes"][0]
    assert r["size"] == {"n": 20000} and r["rel_error"] <= 1e-9 and 0 < r["of_roof"]
    assert "reduction_chain" in [f["id"] for f in r["findings"]]  # (its rank depends on the CPUs there are)
    assert all(f["saving_s"] <= r["time_s"] for f in r["findings"])
    exp = {e["id"]: e for e in r["experiments"]}
    e = exp["fast_math"]  # the finding's test, run by rooflab itself
    assert "-ffast-math" in e["flags"] and e["verdict"] in ("faster", "no difference", "slower") and e["rounds"] >= 10
    lo, hi = e["speedup_ci95"]
    assert lo <= e["speedup"] <= hi and math.isfinite(e["rel_error"]) and e["rel_error"] <= 1e-9
    if e["verdict"] == "faster":  # never called faster when the interval reaches the threshold
        assert lo > 1 + e["threshold"]
    assert len(r["experiments"]) <= 3
    with Store(store) as st:
        stored = st.get(doc["run_id"])
    assert stored["status"] == "complete" and stored["kind"] == "explain"


def test_explain_text_html_csv_and_chinese(explained, capsys, tmp_path):
    _, doc, store = explained
    html, csv = tmp_path / "e.html", tmp_path / "csv"
    assert main(["show", str(doc["run_id"]), "--store", str(store), "--csv", str(csv)]) == 0
    out = capsys.readouterr().out
    assert main(["report", str(doc["run_id"]), "--store", str(store), "--html", str(html)]) == 0
    assert "an in-order reduction" in out and "experiment: a build with -ffast-math" in out
    assert "partial sums" in out  # what to change
    page = html.read_text()
    assert "an in-order reduction" in page and "Findings at dot n=20000" in page
    names = sorted(p.name for p in csv.iterdir())
    assert any("findings" in n for n in names) and any("experiments" in n for n in names)
    assert main(["show", str(doc["run_id"]), "--store", str(store), "--lang", "zh"]) == 0
    assert CJK.search(capsys.readouterr().out)


def test_no_experiments_and_the_python_api(tmp_path):
    store = tmp_path / "s.sqlite"
    unreachable_roofline(store)
    res = rooflab.explain(SPEC, kernel="dot", size={"n": 4096}, experiments=False, quick=True, store=store)
    assert res["experiments_run"] is False and res["kernels"][0]["sizes"][0]["experiments"] == []
    assert res["kernels"][0]["sizes"][0]["findings"]


def test_bench_explain_explains_each_kernel_at_its_worst_size(tmp_path):
    store = tmp_path / "s.sqlite"
    unreachable_roofline(store)
    code, doc = run_json("bench", SPEC, "--quick", "--explain", "--store", str(store))
    assert code == 0 and doc["schema"] == "rooflab.bench/1" and doc["kernels"][0]["sizes"][0]["flops_per_s"] > 0
    (k,) = doc["explain"]
    assert k["name"] == "dot" and "reduction_chain" in [f["id"] for f in k["sizes"][0]["findings"]]
    assert any(o["id"] == "{where}: {what}{saving} — {hypothesis}." for o in doc["observations"])
    assert main(["bench", SPEC, "--explain", "--mpi", "--store", str(store)]) == 2


def test_bad_input_is_refused_before_anything_runs(tmp_path, capsys):
    store = tmp_path / "s.sqlite"
    assert main(["explain", SPEC, "--size", "m=3", "--store", str(store)]) == 2
    assert "--size must give n" in capsys.readouterr().err
    assert main(["explain", SPEC, "--size", "n=nan", "--store", str(store)]) == 2
    assert main(["explain", SPEC, "--size", "n=1.5", "--store", str(store)]) == 2  # an array of 1.5 elements
    assert "not a size" in capsys.readouterr().err
    assert main(["explain", SPEC, "--size", "n=0", "--store", str(store)]) == 2
    assert "does no work" in capsys.readouterr().err
    assert main(["explain", SPEC, "--kernel", "nope", "--store", str(store)]) == 2
    assert main(["explain", "lab:no_such_kernel", "--store", str(store)]) == 2
    with Store(store) as st:
        assert st.runs() == []


def test_a_kernel_that_does_not_compile_is_reported_with_file_and_line(tmp_path, capsys):
    (tmp_path / "bad.c").write_text("double f(const double *x, long n) {\n  return undefined_thing;\n}\n")
    (tmp_path / "bad.toml").write_text('source = "bad.c"\nfunction = "f"\nflops = "n"\nbytes = "8*n"\n'
                                       'sizes = {n = [4]}\n[args]\nn = "n"\nx = {shape = ["n"]}\n')
    unreachable_roofline(tmp_path / "s.sqlite")
    code, doc = run_json("explain", str(tmp_path / "bad.toml"), "--store", str(tmp_path / "s.sqlite"))
    assert code == 3 and "bad.c:2:" in doc["kernels"][0]["error"]
    assert doc["kernels"][0]["diagnostics"][0]["line"] == 2


def test_the_live_reference_is_alternated_with_the_kernel(monkeypatch):
    """A memory-bound kernel is measured against rooflab's own bandwidth kernel in alternated rounds (explain does
    this where the DRAM roof decides); here at a small size, for its structure only."""
    from rooflab.diagnosis.experiments import reference_run
    from rooflab.kernels.user import build_spec, specs_named
    from rooflab.machine import describe
    from rooflab.session import Session

    monkeypatch.setattr(Session, "others_for", lambda self, a, b, shared: 0.0)  # (its own test below)
    spec = specs_named(SPEC)[0]
    with Session("explain", store=None, machine=describe(), environment={"hostname": "h"}) as s:
        r = reference_run(s, spec, build_spec(spec), {"n": 65536}, "read", rounds=6)
    assert r["kind"] == "read"
    if "error" in r:
        # a real measurement: on a host whose clock ran above the one measured at the start (and its 10% headroom),
        # the reference is refused as beyond what the core can move, with why, never kept as a figure
        assert "the most" in str(r["error"]) and "B/cycle" in str(r["error"]), r["error"]
        return
    assert r["n"] == 2 * 65536 and r["rounds"] == 6  # as many bytes as x and y together
    assert r["ci95"][0] <= r["ratio"] <= r["ci95"][1] and r["ratio"] > 0
    assert r["bytes_per_s"] > 0 and r["reference_bytes_per_s"] > 0


def test_a_compute_bound_kernel_is_alternated_with_blas_gemm(monkeypatch):
    """Explain measures a compute-bound kernel against the machine's BLAS GEMM in alternated rounds, on the same
    threads and in its precision; here at a small size, for its structure only (the kernel is checked first)."""
    from rooflab.diagnosis.experiments import BLAS_N, blas_reference_run
    from rooflab.kernels.user import build_spec, specs_named
    from rooflab.machine import describe
    from rooflab.session import Session
    from rooflab.userkernel.spec import ArrayArg

    monkeypatch.setattr(Session, "others_for", lambda self, a, b, shared: 0.0)  # (its own test below)
    spec = specs_named(SPEC)[0]
    # (the session measures the clock, which the GEMM's physical bound is taken at)
    with Session("explain", store=None, environment={"hostname": "h"}) as s:
        # on as many threads as the kernel kept busy, which explain passes (here as if it had kept two)
        r = blas_reference_run(s, spec, build_spec(spec), {"n": 4096}, rounds=5, threads=2)
    assert r["kind"] == "blas_gemm" and r["n"] == BLAS_N[0] and r["rounds"] == 5 and r["threads"] == 2
    assert r["ci95"][0] <= r["ratio"] <= r["ci95"][1] and r["ratio"] > 0
    assert r["flops_per_s"] > 0 and r["reference_flops_per_s"] > 0
    # no BLAS GEMM in a precision BLAS has none for
    import dataclasses

    with Session("explain", store=None, machine=describe(), environment={"hostname": "h"}) as s:
        assert blas_reference_run(s, dataclasses.replace(spec, precision="int32"), None, {"n": 4096}, rounds=5) is None
        # nor for a kernel of integer arrays only, whatever precision it defaults to
        ints = {k: dataclasses.replace(a, dtype="int32") if isinstance(a, ArrayArg) else a
                for k, a in spec.args.items()}
        assert spec.floating and not dataclasses.replace(spec, args=ints).floating
        assert blas_reference_run(s, dataclasses.replace(spec, args=ints), None, {"n": 4096}, rounds=5) is None


def test_a_wrong_kernel_is_never_compared_with_blas(tmp_path):
    from rooflab.diagnosis.experiments import blas_reference_run
    from rooflab.kernels.user import build_spec, specs_named
    from rooflab.machine import describe
    from rooflab.session import Session

    (tmp_path / "k.c").write_text("double dot(const double *x, const double *y, long n) { return 1.0; }\n")
    (tmp_path / "k.toml").write_text('source = "k.c"\nfunction = "dot"\nflops = "2*n"\nbytes = "16*n"\n'
                                     'sizes = {n = [4096]}\ncheck = {return = "np.dot(x, y)"}\n'
                                     '[args]\nx = {shape = ["n"]}\ny = {shape = ["n"]}\nn = "n"\n')
    spec = specs_named(str(tmp_path / "k.toml"))[0]
    with Session("explain", store=None, machine=describe(), environment={"hostname": "h"}) as s:
        r = blas_reference_run(s, spec, build_spec(spec), {"n": 4096}, rounds=3)
    assert r["kind"] == "blas_gemm" and "ratio" not in r and "dot" in r["error"]


def test_a_reference_taken_while_others_kept_the_cpus_busy_is_no_reference(monkeypatch):
    """Both live references pass the disturbance check: a reading during which other processes or the host's steal
    took a quarter of a core or more is reported, not used."""
    from rooflab.diagnosis.experiments import blas_reference_run, reference_run
    from rooflab.kernels.user import build_spec, specs_named
    from rooflab.session import Session

    monkeypatch.setattr(Session, "others_for", lambda self, a, b, shared: 0.8)
    spec = specs_named(SPEC)[0]
    with Session("explain", store=None, environment={"hostname": "h"}) as s:
        lib = build_spec(spec)
        g = blas_reference_run(s, spec, lib, {"n": 4096}, rounds=3)
        d = reference_run(s, spec, lib, {"n": 65536}, "read", rounds=3)
    for r in (g, d):
        assert "ratio" not in r and "0.80 core(s) meanwhile: no reference" in r["error"]

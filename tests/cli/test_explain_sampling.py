"""explain finds the hot loop where its time goes: perf samples the worker (the cpu-clock software event, no
hardware counters) and the loop where the samples fall is the one explained. Without perf it says why, and falls
back to the loop doing the most work per iteration."""

from pathlib import Path

import pytest

import rooflab
from test_explain_cli import unreachable_roofline

pytestmark = pytest.mark.cc

# a vectorized update beside a scalar in-order sum over the same rows (PolyBench's atax): by the work per
# iteration the vector loop looks busiest; by the time, the sum is where it goes
SOURCE = """
void atax(long n, const double *A, const double *x, double *y, double *tmp)
{
    for (long i = 0; i < n; i++) y[i] = 0.0;
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long j = 0; j < n; j++) s += A[i * n + j] * x[j];
        tmp[i] = s;
        for (long j = 0; j < n; j++) y[j] += A[i * n + j] * s;
    }
}
"""
SPEC = """
[[kernel]]
name = "atax"
source = "atax.c"
function = "atax"
flops = "4*n*n"
bytes = "8*(n*n + 3*n)"
sizes = {n = [300]}
args = {n = "n", A = {shape = ["n", "n"]}, x = {shape = ["n"]}, y = {shape = ["n"], output = true}, tmp = {shape = ["n"], output = true}}
check = {tmp = "A @ x", y = "A.T @ (A @ x)", tolerance = 1e-9}
"""


@pytest.fixture(scope="module")
def spec(tmp_path_factory):
    d = tmp_path_factory.mktemp("sampling")
    (d / "atax.c").write_text(SOURCE)
    (d / "k.toml").write_text(SPEC)
    store = d / "s.sqlite"
    unreachable_roofline(store)
    return d / "k.toml", store


def test_the_explained_loop_is_where_the_samples_fall(spec):
    path, store = spec
    doc = rooflab.explain(str(path), quick=True, experiments=False, store=str(store), save=False)
    code = doc["kernels"][0]["code"]
    how = code["hot_loop"]
    assert how["by"] in ("samples", "work")
    if how["by"] == "work":  # perf could not sample here: it says why
        assert how["why"]
        pytest.skip(f"perf could not sample on this machine: {how['why']}")
    assert how["samples"] > 0
    # the in-order sum, not the vector update: one accumulator extended by adds, in scalar code
    assert code["loop"]["longest_chain"] >= 1 and "add" in code["loop"]["chain_op"]
    # (its rank against "one thread on several CPUs" depends on what this machine measured)
    assert "reduction_chain" in [f["id"] for f in doc["kernels"][0]["sizes"][0]["findings"]]


def test_without_perf_the_busiest_looking_loop_is_explained_and_the_reason_is_given(spec, monkeypatch):
    from rooflab.diagnosis import sampling

    path, store = spec
    monkeypatch.setattr(sampling, "perf_path", lambda: None)
    doc = rooflab.explain(str(path), quick=True, experiments=False, store=str(store), save=False)
    code = doc["kernels"][0]["code"]
    assert code["hot_loop"] == {"by": "work", "why": "perf is not installed"}
    assert code["loop"] and doc["kernels"][0]["sizes"][0]["findings"]

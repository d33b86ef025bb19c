import pytest

from rooflab.mpi.jobs import aggregate, aggregate_bench, aggregate_measure, lag_warnings
from rooflab.mpi.session import launched_ranks


def test_launcher_detection():
    assert launched_ranks({}) is None
    assert launched_ranks({"OMPI_COMM_WORLD_SIZE": "4"}) == 4
    assert launched_ranks({"PMI_SIZE": "1"}) is None
    assert launched_ranks({"SLURM_PROCID": "0", "SLURM_NTASKS": "8"}) == 8
    assert launched_ranks({"SLURM_NTASKS": "8"}) is None  # an allocation, not a launched rank


def test_aggregate_is_all_work_over_the_slowest_time():
    # two ranks on host a, one on host b: rate, per-rep time (work per rep = rate * time = 10 each)
    items = [(0, "a", 100.0, 0.1), (1, "a", 50.0, 0.2), (2, "b", 100.0, 0.1)]
    a = aggregate(items)
    assert a["time_max_s"] == 0.2
    assert a["job"] == pytest.approx(30 / 0.2)
    assert a["nodes"] == {"a": pytest.approx(20 / 0.2), "b": pytest.approx(10 / 0.1)}
    assert a["slowest"] == {"rank": 1, "host": "a", "rate": 50.0} and a["spread"] == 0.5


def test_equal_ranks_sum_exactly():
    a = aggregate([(r, "h", 7.0, 2.0) for r in range(4)])
    assert a["job"] == pytest.approx(28.0) and a["spread"] == 1.0


def _measure_doc(rate, t):
    return {"ceilings": {"compute": [{"name": "fma", "threads": 1, "flops_per_s": rate, "seconds": [t, t, t]}],
                         "bandwidth": [{"level": "DRAM", "kernel": "triad", "threads": 1, "bytes_per_s": rate,
                                        "seconds": [t]}]}}


def test_measure_and_bench_aggregation_and_lag_warning():
    recs = [{"rank": 0, "host": "a"}, {"rank": 1, "host": "a"}, {"rank": 2, "host": "a"}]
    aggs = aggregate_measure([_measure_doc(100.0, 1.0), _measure_doc(60.0, 1.0), None], recs)
    c = aggs["compute"][0]
    assert c["ranks"] == 2 and c["job"] == pytest.approx(160.0)
    w = lag_warnings(aggs)
    assert len(w) == 2 and w[0]["code"] == "rank-lags" and "rank 1 on a reached only 60%" in w[0]["message"]
    bench = [{"kernels": [{"name": "k", "sizes": [{"label": "k n=1", "flops_per_s": 10.0, "time_s": 1.0}]}]}] * 2
    b = aggregate_bench(bench, recs[:2])
    assert b[0]["job"] == pytest.approx(20.0) and b[0]["kernel"] == "k"


def test_job_roofline_placement():
    from rooflab.mpi.jobs import place_on_job_roofline

    measure = {"mpi": {"size": 4, "aggregates": {
        "compute": [{"name": "fp32 SIMD FMA 256-bit", "precision": "fp32", "klass": "simd_fma", "threads": 1, "job": 400.0,
                     "ranks": 4}],
        "bandwidth": [{"level": "DRAM", "kernel": "read", "threads": 1, "job": 100.0, "ranks": 4}]}}}
    results = [{"kernels": [{"name": "k", "spec": {"name": "k", "precision": "fp32"},
                             "sizes": [{"label": "k n=1", "intensity": 0.5}]}]}]
    aggs = [{"kernel": "k", "label": "k n=1", "job": 25.0}]
    out = place_on_job_roofline(aggs, results, measure)
    assert out["available"] and out["points"][0]["job_roof_flops_per_s"] == 50.0
    assert out["points"][0]["of_job_roof"] == 0.5
    none = place_on_job_roofline(aggs, results, {"ceilings": {}})
    assert not none["available"] and "measure --mpi" in none["note"]["text"]


def test_mpi_without_mpi4py_says_what_to_install(monkeypatch):
    import sys

    from rooflab.errors import RooflabError
    from rooflab.mpi.session import world

    monkeypatch.setitem(sys.modules, "mpi4py", None)
    with pytest.raises(RooflabError, match=r"pip install 'rooflab\[mpi\]'"):
        world()

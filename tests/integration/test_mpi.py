"""Real MPI jobs of 2 and 4 ranks on this machine (oversubscribed where needed). Never a timing."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from rooflab.results.store import Store

pytestmark = [pytest.mark.mpi, pytest.mark.cc]
DATA = Path(__file__).resolve().parents[1] / "data"


def mpirun(n, *args, timeout=600):
    cmd = ["mpirun", "-n", str(n), "--oversubscribe"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    return subprocess.run(cmd + list(args), capture_output=True, text=True, timeout=timeout)


def test_measure_mpi_two_ranks(tmp_path):
    db = tmp_path / "s.sqlite"
    r = mpirun(2, sys.executable, "-m", "rooflab", "measure", "--mpi", "--quick", "--threads", "1", "--precision",
               "fp64", "--no-batch-sweep", "--json", "--store", str(db))
    assert r.returncode == 0, r.stderr[-3000:]
    doc = json.loads(r.stdout)  # only rank 0 prints
    mpi = doc["mpi"]
    assert mpi["size"] == 2 and [x["rank"] for x in mpi["ranks"]] == [0, 1]
    assert all(x["status"] == "ok" and x["host"] and x["cpus"] for x in mpi["ranks"])
    per = {p["rank"]: p["result"] for p in mpi["per_rank"]}
    for agg in mpi["aggregates"]["compute"]:
        items = []
        for rank, res in per.items():
            c = next(c for c in res["ceilings"]["compute"] if c["name"] == agg["name"] and c["threads"] == agg["threads"])
            t = sorted(c["seconds"])[len(c["seconds"]) // 2] if len(c["seconds"]) % 2 else \
                sum(sorted(c["seconds"])[len(c["seconds"]) // 2 - 1:len(c["seconds"]) // 2 + 1]) / 2
            items.append((c["flops_per_s"], t))
        tmax = max(t for _, t in items)
        assert agg["time_max_s"] == pytest.approx(tmax)
        assert agg["job"] == pytest.approx(sum(rate * t for rate, t in items) / tmax)
        assert agg["job"] <= sum(rate for rate, _ in items) * (1 + 1e-9)  # never more than the sum of the ranks
    with Store(db) as st:
        runs = st.runs()
    assert len(runs) == 1 and runs[0]["label"] == "mpi x2" and runs[0]["records"] == 2
    # a bench job on the same store is placed on that job roofline
    r = mpirun(2, sys.executable, "-m", "rooflab", "bench", str(DATA / "user_kernels_fp64.toml"), "--mpi", "--quick",
               "--json", "--store", str(db))
    assert r.returncode == 0, r.stderr[-3000:]
    jr = json.loads(r.stdout)["mpi"]["job_roofline"]
    assert jr["available"] and jr["roofs"]["ranks"] == 2
    assert all(p["job_roof_flops_per_s"] > 0 and p["of_job_roof"] > 0 for p in jr["points"])


def test_bench_mpi_four_ranks(tmp_path):
    from conftest import fake_measure

    db = tmp_path / "s.sqlite"
    fake_measure(db)
    r = mpirun(4, sys.executable, "-m", "rooflab", "bench", str(DATA / "user_kernels.toml"), "--kernel", "scale",
               "--mpi", "--quick", "--json", "--store", str(db))
    assert r.returncode == 0, r.stderr[-3000:]
    doc = json.loads(r.stdout)
    assert doc["mpi"]["size"] == 4 and len(doc["mpi"]["aggregates"]) == 2  # one per size
    for a in doc["mpi"]["aggregates"]:
        assert a["ranks"] == 4 and a["job"] > 0 and 0 < a["spread"] <= 1
    assert doc["mpi"]["job_roofline"]["available"] is False  # the stored roofline is not an MPI job
    with Store(db) as st:
        assert [x["kind"] for x in st.runs()] == ["bench", "measure"]


FAILING = textwrap.dedent("""
    import json
    from rooflab.mpi.session import RankSession, run_job, world
    comm = world()
    def work(rank):
        with RankSession("bench", comm, machine={"key": "t", "isa": {}}, environment={"hostname": "h"}) as s:
            s.call("first", sum, [1, 2])
            if rank == 1:
                raise ValueError("rank one gives up")
            s.call("second", sum, [3, 4])
            s.call("third", sum, [5, 6])
            return {"ok": rank}
    results, records = run_job(comm, work)
    if comm.Get_rank() == 0:
        print(json.dumps({"results": results, "records": records}))
""")


def test_a_rank_that_raises_is_reported_and_the_job_finishes():
    r = mpirun(2, sys.executable, "-c", FAILING, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout)
    rec = {x["rank"]: x for x in out["records"]}
    assert rec[0]["status"] == "ok" and out["results"][0] == {"ok": 0}
    assert rec[1]["status"] == "failed" and "rank one gives up" in rec[1]["error"] and rec[1]["host"]


def test_without_mpi_flag_under_a_launcher_it_says_how():
    r = mpirun(2, sys.executable, "-m", "rooflab", "measure", "--quick", "--no-store")
    assert r.returncode != 0
    assert r.stderr.count("one of 2 MPI ranks") == 1 and "--mpi" in r.stderr


def test_bench_job_without_a_stored_roofline_says_what_to_run_first(tmp_path):
    # the ranks would measure each other if each measured a roofline of its own first: a stored one is needed
    r = mpirun(2, sys.executable, "-m", "rooflab", "bench", str(DATA / "user_kernels.toml"), "--mpi", "--quick",
               "--store", str(tmp_path / "empty.sqlite"))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "run `rooflab measure`" in r.stderr and r.stderr.count("rooflab: error") >= 1

"""threads, imbalance and numa labs: structure and correctness, never speed."""

import json
import os
import stat

import pytest

from rooflab.api import run_in_session
from rooflab.cli import main
from rooflab.kernels import tasks
from rooflab.labs import numa
from rooflab.labs.threads import thread_counts
from rooflab.labs.imbalance import imbalance_observations
from rooflab.labs.numa import numa_observations
from rooflab.session import Session

pytestmark = pytest.mark.cc


def _json(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr().out
    assert code == 0
    return json.loads(out)


def test_thread_counts():
    assert thread_counts(1) == [1] and thread_counts(2) == [1, 2] and thread_counts(6) == [1, 2, 4, 6]


def test_imbalance_reference_matches_iteration():
    m, c = 0.999999, 1e-6
    acc = sum(s + j for s in range(3) for j in range(8))
    vals = [float(s + j) for s in range(3) for j in range(8)]
    for _ in range(10):
        vals = [v * m + c for v in vals]
    assert tasks.imbalance_reference(3, 10) == pytest.approx(sum(vals), rel=1e-12) and acc > 0


def test_threads_and_imbalance_quick(capsys, tmp_path):
    doc = _json(capsys, "lab", "threads", "--quick", "--json", "--no-store")
    assert doc["schema"] == "rooflab.lab.threads/1" and doc["counts"][0] == 1
    assert all(r["rel_error"] < 1e-4 for r in doc["gemm"] + doc["triad"])
    assert doc["gemm"][0]["speedup"] == 1.0 and doc["observations"]
    doc = _json(capsys, "lab", "imbalance", "--quick", "--json", "--threads", "2", "--no-store")
    assert doc["schema"] == "rooflab.lab.imbalance/1"
    coarse, fine = doc["cases"]
    assert coarse["strips"] == 3 and len(coarse["busy_s"]) == 2 and 0 <= coarse["idle_fraction"] < 1
    assert doc["predicted_coarse_over_fine"] == pytest.approx(4 / 3)


def test_imbalance_observation_from_numbers():
    doc = {"threads": 2, "predicted_coarse_over_fine": 4 / 3, "warnings": [], "cases": [
        {"name": "coarse", "what": "3 strips", "wall_s": 1.33, "busy_s": [1.33, 0.67], "idle_fraction": 0.25},
        {"name": "fine", "what": "rows", "wall_s": 1.0, "busy_s": [1.0, 0.99], "idle_fraction": 0.005}]}
    text = "\n".join(o["text"] for o in imbalance_observations(doc))
    assert "Coarse takes 1.33x the time of fine" in text and "25% of the thread time" in text


def test_numa_single_node_says_why():
    obs = [o["text"] for o in numa_observations({"single_node": True, "topology": {"0": [0, 1]}, "memory_bytes": 8 << 30,
                                                       "pairs": []})]
    assert "one NUMA node (node 0: CPUs 0,1; 8 GiB" in obs[0] and "no local and remote memory to compare" in obs[0]


FAKE_NUMACTL = """#!/bin/sh
# stands in for numactl on a one-node machine: drop the binding options, run the command
while [ "${1#--}" != "$1" ]; do shift; done
exec "$@"
"""


def test_numa_two_node_path_with_a_stand_in_numactl(tmp_path, monkeypatch):
    fake = tmp_path / "bin" / "numactl"
    fake.parent.mkdir()
    fake.write_text(FAKE_NUMACTL)
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    from rooflab.machine import describe

    machine = describe()
    machine["numa_nodes"] = {"0": [0], "1": [1]}
    machine["caches"] = {"L1": 32768, "L2": 1 << 18}  # keeps the arrays small
    with Session("lab.numa", machine=machine, environment={"hostname": "h"}) as s:
        doc = run_in_session(numa.LAB, s, numa.Options(quick=True))
    assert doc["single_node"] is False and [p["memory_node"] for p in doc["pairs"]] == [0, 1]
    assert doc["pairs"][0]["local"] and not doc["pairs"][1]["local"]
    assert all(p["latency_s"] > 0 and p["bandwidth_bytes_per_s"] > 0 for p in doc["pairs"])
    assert any("local latency" in o["text"] for o in doc["observations"])

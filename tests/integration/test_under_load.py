"""Numbers you can trust on a busy machine: the suite starts its own bounded load (a CPU hog pinned to one CPU, then
a memory hog) during small real measurements, and checks properties that must hold on any machine. No timing is
asserted: only that no figure breaks its physical bound, that every figure taken under load is either close to the
quiet one or marked disturbed (or impossible), and that the stored reference roofline stays the quiet one."""

import os
import sys
from pathlib import Path

import pytest

import rooflab
from rooflab.commands.measure.cpu import bound_clock
from rooflab.model.reference import roofs_at
from rooflab.results.history import measure_history
from rooflab.model.bounds import KERNEL_ACCESS, bandwidth_bound
from rooflab.results.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "targets"))
from loadgen import Hog, cpu_hog, memory_hog  # noqa: E402
from conftest import store_with_quick_measure  # noqa: E402

pytestmark = [pytest.mark.cc, pytest.mark.slow]

CPUS = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
# every hog ends by itself after this long, whatever happens to the test; far longer than a quick measure under
# load takes (a hog that ended early would leave the last ceilings measured quiet)
HOG_S = 600
CPU_HOG, MEM_HOG = cpu_hog(HOG_S), memory_hog(HOG_S)


def _measure(store_path):
    return rooflab.measure(quick=True, precision="fp32", batch_sweep=False, store=str(store_path))


@pytest.fixture(scope="module")
def runs(tmp_path_factory, quick_measure):
    """The session's quick measure (made without a load of the suite's own), then one under each hog."""
    if len(CPUS) < 2:
        pytest.skip("needs two CPUs: one for the hog, one at least for rooflab")
    store = store_with_quick_measure(quick_measure, tmp_path_factory.mktemp("load"))
    quiet = quick_measure[0]
    with Hog(CPU_HOG, CPUS[-1]):
        cpu = _measure(store)
    with Hog(MEM_HOG, CPUS[-1]):
        mem = _measure(store)
    return store, quiet, {"cpu hog": cpu, "memory hog": mem}


def _bw_bound(doc, c, level=None):
    m = doc["machine"]
    loads, stores = KERNEL_ACCESS.get(c["kernel"], (8.0, 0.0))
    return bandwidth_bound(m["uarch"], level or c["level"], loads, stores, c["threads"], m["physical_cores"],
                           bound_clock(m, doc["ceilings"]["compute"]))[0]


def _all(runs):
    _, quiet, loaded = runs
    return [("quiet", quiet)] + list(loaded.items())


def test_no_figure_above_its_physical_bound_is_shown_as_valid(runs):
    for label, doc in _all(runs):
        for c in doc["ceilings"]["compute"]:
            if c["status"] == "ok" and c.get("of_theoretical") is not None:
                assert c["of_theoretical"] <= 1.02, (label, c["name"], c["threads"], c["of_theoretical"])
        for c in doc["ceilings"]["bandwidth"]:
            if c["status"] == "ok" and c.get("bytes_per_s"):
                assert c["bytes_per_s"] <= 1.02 * _bw_bound(doc, c), (label, c["level"], c["kernel"], c["threads"])
        for sw in doc["bandwidth_sweeps"]:
            for p in sw.get("points", []):
                if p.get("bytes_per_s") and not p.get("impossible"):
                    c = {"kernel": sw["kernel"], "threads": sw["threads"]}
                    assert p["bytes_per_s"] <= 1.02 * _bw_bound(doc, c, "L1"), (label, sw["kernel"], p)
        # and nothing else drawn: every roof is an ok ceiling of this run
        ok_rates = {c.get("bytes_per_s") for c in doc["ceilings"]["bandwidth"] if c["status"] == "ok"} | \
                   {c.get("flops_per_s") for c in doc["ceilings"]["compute"] if c["status"] == "ok"}
        for r in doc["roofs"]["compute"] + doc["roofs"]["memory"]:
            assert r["value"] in ok_rates, (label, r)


def _key(c):
    if "klass" in c:
        return ("compute", c["precision"], c["klass"], c["threads"])
    return ("bandwidth", c["level"], c["kernel"], c["threads"])


def _rate(c):
    return c.get("flops_per_s") or c.get("bytes_per_s")


def test_every_figure_under_load_is_close_to_quiet_or_marked(runs):
    _, quiet, loaded = runs
    base = {_key(c): c for c in quiet["ceilings"]["compute"] + quiet["ceilings"]["bandwidth"]
            if c["status"] == "ok" and _rate(c)}
    for label, doc in loaded.items():
        statuses = {c["status"] for c in doc["ceilings"]["compute"] + doc["ceilings"]["bandwidth"]}
        assert statuses <= {"ok", "disturbed", "impossible", "failed", "refused"}, statuses
        for c in doc["ceilings"]["compute"] + doc["ceilings"]["bandwidth"]:
            q = base.get(_key(c))
            if c["status"] != "ok" or q is None:
                continue
            # the host's DRAM swings by a third within seconds even when quiet, and on this kind of VM a one-thread
            # L1 copy ceiling ran 166-231 GB/s in quiet runs whose own signals were clean (1.39x): a wider band for
            # bandwidth, which still catches a figure halved by load (an L2 copy at 2.1x was seen)
            lo = 0.67 if "level" in c else 0.75
            r = _rate(c) / _rate(q)
            # a loaded figure far above the quiet one says the quiet one was low, not that the load went unseen: on
            # a shared Xeon host, quiet runs whose own signals were clean (running 1.00, no other process, CV 3%)
            # read an L1 copy at 1/2.2 and an fp32 SIMD mul+add at 1/1.44 of a run made a minute later, which no
            # guest can see (another tenant on the host core's other hardware thread). What load must never do is
            # pass a figure it lowered as ok; a figure above the quiet one must still be below its physical bound
            if c.get("of_theoretical") is not None:
                assert c["of_theoretical"] <= 1.05, (label, _key(c), c["of_theoretical"])
            assert lo <= r, (f"{label}: {_key(c)} is {r:.2f}x quiet and still marked ok; "
                                   + "; ".join(f"{what}: working set {x.get('working_set_bytes')}, running "
                                               f"{x.get('running')}, others {x.get('others_cores')}, dropped rounds "
                                               f"{x.get('disturbed_rounds')}, cv {x.get('cv')}"
                                               for what, x in (("loaded", c), ("quiet", q))))
        # the other work was seen, and said
        assert any(w["code"] == "competing-load" for w in doc["warnings"]), label
        assert doc["trust"]["disturbed"], label


def test_all_thread_ceilings_under_load_are_not_roofs(runs):
    """With every CPU in use, another process necessarily shared rooflab's CPUs: the all-thread compute and the
    shared-level ceilings must say so."""
    _, _, loaded = runs
    tall = max(CPUS)
    for label, doc in loaded.items():
        tall = doc["threads_all"]
        fma = [c for c in doc["ceilings"]["compute"] if c["klass"] == "simd_fma" and c["threads"] == tall]
        dram = [c for c in doc["ceilings"]["bandwidth"] if c["level"] == "DRAM" and c["threads"] == tall]
        assert fma and all(c["status"] != "ok" for c in fma), (label, [(c["status"], c.get("reason")) for c in fma])
        assert dram and all(c["status"] != "ok" for c in dram), (label, [(c["kernel"], c["status"]) for c in dram])


def test_the_stored_reference_roofline_stays_the_quiet_one(runs):
    """Each roof of the machine's reference roofline comes from the newest run that measured it as a roof: a roof
    that a loaded run had disturbed stays the quiet run's, and the source says which runs were passed over. (When the
    machine was busy during the "quiet" run too, its disturbed ceilings are no roofs either; what holds is that no
    roof is a figure that run itself did not call a roof.)"""
    store, quiet, loaded = runs
    with Store(store) as st:
        history = measure_history(st, quiet["machine"]["key"])
    assert [d["run_id"] for d in history] == [loaded["memory hog"]["run_id"], loaded["cpu hog"]["run_id"],
                                             quiet["run_id"]]
    tall = quiet["threads_all"]
    ref = roofs_at(history, tall, "fp32")
    by_id = {d["run_id"]: d for d in history}
    base = {_key(c): c for c in quiet["ceilings"]["compute"] + quiet["ceilings"]["bandwidth"] if c["status"] == "ok"}
    skipped_any = False
    for roof in ref["compute"] + ref["memory"]:
        doc = by_id[roof["run_id"]]
        match = [c for c in doc["ceilings"]["compute"] + doc["ceilings"]["bandwidth"]
                 if c["status"] == "ok" and _rate(c) == roof["value"]]
        assert match, roof  # a roof is a figure its run measured as a roof
        # every newer run that measured it (a compute class, or any kernel at a memory level) had it, but not as a
        # roof
        def same(c, roof=roof):
            if "klass" in roof:
                return c.get("klass") == roof["klass"] and c.get("precision") == roof["precision"] and \
                    c["threads"] == ref["threads"]
            return c.get("level") == roof["level"] and c["threads"] == ref["threads"] and not c.get("reference")

        newer = [d["run_id"] for d in history if d["run_id"] > roof["run_id"]]
        assert sorted(s["run_id"] for s in roof["skipped"]) == sorted(
            r for r in newer if any(same(c) for c in
                                    by_id[r]["ceilings"]["compute"] + by_id[r]["ceilings"]["bandwidth"])), roof
        assert all(s["status"] != "ok" for s in roof["skipped"]), roof
        skipped_any |= bool(roof["skipped"])
        q = base.get(_key(match[0]))
        if roof["run_id"] != quiet["run_id"] and q is not None:  # taken from a loaded run: close to quiet
            assert 0.67 <= roof["value"] / _rate(q) <= 1.5, roof
    fma_q = base.get(("compute", "fp32", "simd_fma", tall))
    if fma_q is not None:  # the quiet run had this roof: no loaded run may have replaced it
        fma = next(c for c in ref["compute"] if " FMA " in f" {c['name']} ")
        assert fma["run_id"] == quiet["run_id"] and fma["value"] == fma_q["flops_per_s"]
    if skipped_any:
        assert "not taken from newer runs" in ref["source"]["text"]

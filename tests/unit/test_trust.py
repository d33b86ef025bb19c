"""No figure above its physical bound, no disturbed ceiling drawn as a roof, every roof with the run it comes from
(pure: documents in, documents out)."""

import pytest

from rooflab.errors import OverheadDominates
from rooflab.commands.measure.cpu import level_order_warnings
from rooflab.model.reference import roofs_at
from rooflab.kernels.tasks import call_overhead
from rooflab.machine.uarch import identify
from rooflab.model.bounds import bandwidth_bound, check_bandwidth_bound
from rooflab.model.roofline import measure_roofs, trust
from rooflab.results.schema import migrate
from rooflab.timing.clock import FakeClock
from rooflab.timing.harness import HarnessConfig, net_per_rep, run_samples

ZEN4 = identify(arch="x86_64", vendor="AuthenticAMD", family=0x19, model=0x11).to_dict()
MACHINE = {"uarch": ZEN4, "physical_cores": 2, "clock_hz": 3.6e9,
           "cache_details": [{"level": 1, "type": "Data", "size": 32768, "shared_by": 1},
                             {"level": 2, "type": "Unified", "size": 1 << 20, "shared_by": 1},
                             {"level": 3, "type": "Unified", "size": 32 << 20, "shared_by": 2}]}


# ------------------------------------------------------------------------------------------------- bounds


def test_the_l1_bound_is_the_load_and_store_ports_times_clock_and_cores():
    # Zen 4: 64 B/cycle of loads, 32 of stores; a read moves 8 B per element, all loads
    b, why = bandwidth_bound(ZEN4, "L1", 8, 0, 1, 2, 3.0e9)
    assert b == pytest.approx(64 * 3.0e9 * 1.1)
    # a triad (16 B loaded, 8 stored per element) is limited by both paths at once: 4 elements a cycle
    b3, _ = bandwidth_bound(ZEN4, "L1", 16, 8, 2, 2, 3.0e9)
    assert b3 == pytest.approx(24 * 4 * 3.0e9 * 1.1 * 2)
    assert "64 B/cycle load" in why["text"] and "3.00 GHz" in why["text"]


def test_outer_levels_are_bounded_by_their_documented_paths_and_never_above_l1():
    l1, _ = bandwidth_bound(ZEN4, "L1", 8, 0, 1, 2, 3.0e9)
    l2, why = bandwidth_bound(ZEN4, "L2", 8, 0, 1, 2, 3.0e9)
    dram, _ = bandwidth_bound(ZEN4, "DRAM", 8, 0, 1, 2, 3.0e9)
    assert l2 == pytest.approx(32 * 3.0e9 * 1.1) and dram <= l2 < l1 and "L2 32 B/cycle" in why["text"]
    # threads beyond the cores add nothing
    assert bandwidth_bound(ZEN4, "L1", 8, 0, 8, 2, 3.0e9)[0] == pytest.approx(2 * l1)


def test_a_cpu_not_in_the_table_gets_a_generous_generic_bound():
    b, why = bandwidth_bound({}, "L1", 8, 0, 1, 1, 0.0)  # nothing known, not even the clock
    assert b == pytest.approx(192 * 6.0e9 * 1.1) and "generic" in why["text"]


def test_the_figures_of_the_issue_are_impossible_and_real_ones_are_not():
    for rate, level, kind, threads in ((3.9e19, "L1", "read", 2), (1.0e22, "L3", "read", 2),
                                       (1.3e23, "DRAM", "copy", 2), (8.8e20, "L2", "read", 2)):
        why = check_bandwidth_bound(MACHINE, level, kind, threads, rate, 3.6e9)
        assert why is not None and "the most" in why["text"], (rate, level)
    # what this kind of machine really does (quiet runs): all within their bounds
    for rate, level, kind, threads in ((1.94e11, "L1", "read", 1), (5.2e11, "L1", "triad", 2), (1.07e11, "L2", "read", 1),
                                       (9.0e10, "L3", "read", 1), (8.7e10, "DRAM", "copy_nt", 2)):
        assert check_bandwidth_bound(MACHINE, level, kind, threads, rate, 3.6e9) is None, (rate, level)


# ------------------------------------------------------------------------------------------ overhead edge


def test_an_overhead_as_long_as_the_sample_is_refused_not_subtracted():
    assert net_per_rep(1e-3, 10, overhead_per_call=1e-3) is None
    assert net_per_rep(1e-3, 10, overhead_per_call=2e-3) is None
    assert net_per_rep(1e-3, 10, overhead_per_call=1e-4) == pytest.approx(9e-5)
    assert net_per_rep(0.0, 10) is None


def test_a_sample_that_stays_mostly_overhead_fails_with_the_reason():
    clk = FakeClock()

    def kernel(reps):  # 1 ns of work per repetition behind a fixed 1 ms wake-up, on a fake clock
        clk.advance(1e-3 + 1e-9 * reps)
        return 1e-3 + 1e-9 * reps

    cfg = HarnessConfig(min_sample_s=1e-3, samples=3, warmup=0, min_samples=3, max_sample_s=1e-3)
    with pytest.raises(OverheadDominates, match="more than a tenth of a sample"):
        run_samples(kernel, cfg, overhead_per_call=1e-3, name="k")


def test_a_large_overhead_raises_the_repetition_count_until_it_is_small():
    def kernel(reps):
        return 1e-3 + 1e-6 * reps  # 1 ms per call, 1 us per repetition

    t = run_samples(kernel, HarnessConfig(min_sample_s=1e-3, samples=3, warmup=0, min_samples=3), reps=1,
                    overhead_per_call=1e-3)
    assert t.reps > 1 and all(s == pytest.approx(1e-6) for s in t.samples)


def test_an_overhead_inflated_in_some_samples_only_makes_those_slower_never_faster():
    calls = []

    def kernel(reps):  # the second and fifth samples wait 5 ms for a thread; the others do not
        calls.append(reps)
        return 1e-6 * reps + 2e-6 + (5e-3 if len(calls) in (2, 5) else 0.0)

    t = run_samples(kernel, HarnessConfig(min_sample_s=1e-3, samples=5, warmup=0, min_samples=5), reps=2000,
                    overhead_per_call=2e-6)
    assert min(t.samples) == pytest.approx(1e-6) and t.summary.median == pytest.approx(1e-6)
    assert max(t.samples) > 2e-6  # the two slow samples stay slow, for the spread check to see


def test_an_overhead_measured_while_a_thread_could_not_start_is_measured_again():
    """Under a hog, every empty call that measured the overhead waited 4 ms for a thread; the samples did not. A whole
    sample shorter than that overhead refutes it: it is measured again, the lower figure kept, and the samples hold
    the work's own time."""
    def kernel(reps):
        return 2e-6 + 5e-8 * reps  # 2 us per call, 50 ns per repetition

    empties = iter([4e-3, 2e-6])
    t = run_samples(kernel, HarnessConfig(min_sample_s=2e-3, samples=3, warmup=0, min_samples=3), reps=100,
                    overhead_per_call=4e-3, remeasure_overhead=lambda: next(empties))
    assert all(s == pytest.approx(5e-8) for s in t.samples)


def test_the_count_grows_as_far_as_a_sample_may_last_before_giving_up():
    """A 4 ms wake-up in every call behind 50 ns of work needs millions of repetitions: the count keeps growing while
    a sample may last longer (here up to 2 s), instead of stopping after a fixed few tries."""
    def kernel(reps):
        return 4e-3 + 5e-8 * reps

    cfg = HarnessConfig(min_sample_s=2e-3, samples=3, warmup=0, min_samples=3, max_sample_s=2.0)
    t = run_samples(kernel, cfg, reps=1, overhead_per_call=4e-3)
    assert t.reps >= 10 ** 5 and all(s == pytest.approx(5e-8) for s in t.samples)
    with pytest.raises(OverheadDominates):  # where a sample may not last that long, it fails with the reason
        run_samples(kernel, HarnessConfig(min_sample_s=2e-3, samples=3, warmup=0, min_samples=3, max_sample_s=0.05),
                    reps=1, overhead_per_call=4e-3)


def test_the_call_overhead_is_the_least_of_several_empty_calls():
    seq = iter([4e-3, 2e-6, 6e-3, 3e-6, 5e-3, 2.5e-6, 7e-3])
    assert call_overhead(lambda reps: next(seq)) == pytest.approx(2e-6)


# ------------------------------------------------------------------------------------------------- trust


def _ceil(level, kernel, threads, rate, status="ok", ci=None):
    return {"level": level, "kernel": kernel, "threads": threads, "bytes_per_s": rate, "status": status,
            "ci95": ci or [0.97 * rate, 1.03 * rate]}


def _doc(run_id, fma2=2.0e11, fma_status="ok", dram=3.0e10, dram_status="ok"):
    comp = [{"name": "fp32 SIMD FMA", "precision": "fp32", "klass": "simd_fma", "threads": t, "status": s,
             "flops_per_s": v} for t, v, s in ((1, 1.0e11, "ok"), (2, fma2, fma_status))]
    bw = [_ceil("L1", "read", 2, 3.5e11), _ceil("DRAM", "triad", 2, dram, dram_status),
          _ceil("DRAM", "triad_nt", 2, 1.3 * dram, dram_status), _ceil("L1", "read", 1, 1.9e11)]
    return {"run_id": run_id, "threads_all": 2, "ceilings": {"compute": comp, "bandwidth": bw}}


def test_the_dram_roof_is_the_best_attainable_with_the_regular_figure_beside_it():
    mem = {m["level"]: m for m in measure_roofs(_doc(1))["memory"]}
    assert mem["DRAM"]["kernel"] == "triad_nt" and mem["DRAM"]["value"] == pytest.approx(3.9e10)
    assert mem["DRAM"]["regular_kernel"] == "triad" and mem["DRAM"]["regular_value"] == pytest.approx(3.0e10)


def test_disturbed_and_impossible_ceilings_are_never_roofs():
    d = _doc(1, fma_status="disturbed", dram_status="impossible")
    r = measure_roofs(d)
    assert not [c for c in r["compute"] if "x2" in c["name"] and "FMA" in c["name"]]
    assert "DRAM" not in {m["level"] for m in r["memory"]}
    t = trust(d)
    assert t["reference"] is False and t["disturbed"] == ["fp32 SIMD FMA x2"]
    assert t["impossible"] == ["DRAM triad x2", "DRAM triad_nt x2"]
    assert trust(_doc(2))["reference"] is True


def test_each_roof_comes_from_the_newest_run_that_holds_it_as_a_roof_and_says_so():
    quiet = _doc(7)
    loaded = _doc(9, fma2=0.9e11, fma_status="disturbed", dram=1.5e10, dram_status="disturbed")
    r = roofs_at([loaded, quiet], 2, "fp32")
    fma = next(c for c in r["compute"] if "FMA" in c["name"])
    dram = next(m for m in r["memory"] if m["level"] == "DRAM")
    l1 = next(m for m in r["memory"] if m["level"] == "L1")
    assert fma["value"] == 2.0e11 and fma["run_id"] == 7 and fma["skipped"] == [{"run_id": 9, "status": "disturbed"}]
    assert dram["run_id"] == 7 and dram["value"] == pytest.approx(3.9e10)
    assert l1["run_id"] == 9  # the loaded run's L1 was a roof: the newest is used
    assert "run 7" in fma["name"] and r["run_ids"] == [7, 9]
    src = r["source"]["text"]
    assert "run 9 (L1)" in src and "run 7 (fp32 FMA, DRAM)" in src
    assert "run 9 had it disturbed" in src


def test_a_level_faster_than_the_one_above_it_gets_a_warning_beyond_the_noise():
    cs = [_ceil("L2", "copy", 2, 1.10e11), _ceil("L3", "copy", 2, 1.49e11), _ceil("L1", "copy", 2, 3.3e11)]
    w = list(level_order_warnings(cs))
    assert len(w) == 1 and w[0].code == "level-order" and "L3 measured faster than L2" in w[0].message
    # overlapping intervals are noise, not a finding
    close = [_ceil("L2", "copy", 2, 1.10e11, ci=[1.0e11, 1.2e11]), _ceil("L3", "copy", 2, 1.15e11, ci=[1.05e11, 1.25e11])]
    assert list(level_order_warnings(close)) == []


def test_stored_runs_from_before_the_bounds_are_checked_when_read():
    old = {"schema": "rooflab.measure/1", "threads_all": 2, "machine": MACHINE,
           "ceilings": {"compute": [{"name": "fp32 SIMD FMA", "precision": "fp32", "klass": "simd_fma", "threads": 2,
                                     "status": "above-limit", "flops_per_s": 3e11}],
                        "bandwidth": [_ceil("L1", "read", 2, 3.9e19), _ceil("L2", "read", 2, 1.9e11),
                                      _ceil("DRAM", "copy", 2, 3.0e10)]},
           "roofs": {"compute": [], "memory": [{"name": "L1 (read) x2", "value": 3.9e19, "level": "L1"}]}}
    doc = migrate(old)
    assert doc["schema"] == "rooflab.measure/2"
    assert doc["ceilings"]["compute"][0]["status"] == "impossible"
    l1 = doc["ceilings"]["bandwidth"][0]
    assert l1["status"] == "impossible" and "the most L1 can deliver" in l1["reason"]["text"]
    assert {m["level"] for m in doc["roofs"]["memory"]} == {"L2", "DRAM"}
    assert doc["trust"]["impossible"] == ["fp32 SIMD FMA x2", "L1 read x2"]


def test_with_no_all_thread_roof_the_one_thread_roofline_is_drawn_and_says_so():
    # a CPU busy with another process: every all-thread ceiling disturbed, the one-thread ones measured beside it
    d = _doc(1, fma_status="disturbed", dram_status="disturbed")
    for c in d["ceilings"]["bandwidth"]:
        if c["threads"] == 2:
            c["status"] = "disturbed"
    r = measure_roofs(d)
    assert r["threads"] == 1 and r["instead_of"] == 2
    assert [c["name"] for c in r["compute"]] == ["fp32 SIMD FMA x1"] and [m["level"] for m in r["memory"]] == ["L1"]
    # the all-thread roofline whenever it has a compute and a memory roof
    full = measure_roofs(_doc(2))
    assert full["threads"] == 2 and "instead_of" not in full
    # neither: nothing is drawn, and nothing pretends otherwise
    for c in d["ceilings"]["compute"] + d["ceilings"]["bandwidth"]:
        c["status"] = "disturbed"
    none = measure_roofs(d)
    assert none["compute"] == [] and none["memory"] == [] and "instead_of" not in none

"""A ceiling measured while the machine was not quiet is measured again; the least disturbed attempt is kept."""

import dataclasses

import pytest

from rooflab.errors import RooflabError
from rooflab.commands.measure import cpu as measure
from rooflab.kernels.builders import PeakVariant, default_chains, vector_bytes
from rooflab.commands.measure.cpu import MeasureOptions, make_plan
from rooflab.timing.policy import disturbance
from rooflab.machine import describe_cpu
from rooflab.timing.harness import Timing

HZ = 2.0e9  # the clock of the synthetic machine
FPC = {"scalar": 4.0, "simd": 32.0, "simd_fma": 32.0}  # fp32 FLOP per cycle per core


def timing(samples):
    return Timing(reps=1, samples=list(samples), raw=list(samples)).to_dict()


def peak_result(flops_per_rep, fpc, *, fraction, clock_dip=0.0, cv_hit=False, n=7, adds=1024, running=None,
                lost=0.0):
    """What tasks.peak_task returns, for a kernel running at ``fraction`` of one core's peak (fpc FLOP per cycle)
    at HZ; ``lost``: the share of every sample the host kept the core (wall time longer than running time)."""
    t = flops_per_rep / (fraction * fpc * HZ)
    peak = [t * (1.0 + 0.04 * i if cv_hit else 1.0) / (1.0 - lost) for i in range(n)]  # cv_hit: a CV near 10%
    wall = [adds / (HZ * (1.0 - lost))] * (n + 1)
    if clock_dip:
        wall[3] = adds / (HZ * (1.0 - clock_dip))
    # while running, every sample is the undisturbed one (the spread of cv_hit is the host's)
    p = timing(peak)
    if running is not None:  # the slowest thread's CPU time over the call's wall time, per sample
        p["running"] = [running] * n
    return {"peak": p, "clock": timing(wall), "peak_running_s": [t] * n, "clock_hz_running": [HZ] * (n + 1),
            "adds_per_rep": adds, "rel_error": 0.0}


class FakeSession:
    """Scripted peak_task results, per kernel name: one per attempt."""

    def __init__(self, script, others_disturbed=False, wait_quiet_s=0.0):
        self.script = {k: list(v) for k, v in script.items()}
        self.calls, self.warnings = [], []
        self.others_disturbed = others_disturbed  # as if another rank of an MPI job were never quiet
        self.wait_quiet_left = wait_quiet_s
        self.waits = 0
        self.last_cpus = None  # the CPUs the last call was confined to (Session.last_cpus)

    def mark(self):
        return None

    def others_for(self, a, b, *, shared):
        return None

    def wait_for_quiet(self, threshold=0.25):
        self.waits += 1
        self.wait_quiet_left = 0.0
        return True

    def agree(self, flag):
        return flag or self.others_disturbed

    def progress(self, _m):
        pass

    def call(self, name, fn, *args, **kwargs):
        self.calls.append(name)
        if name.startswith("peak "):
            got = self.script[name[len("peak "):]].pop(0)
            if isinstance(got, Exception):
                raise got
            return got
        raise RooflabError("not scripted")

    def warn(self, w):
        if w:
            self.warnings.append(w)

    def record(self, *_a):
        pass

    def check_timing(self, subject, t, spread_threshold=0.05):
        pass


@pytest.fixture(scope="module")
def machine():
    cpu = describe_cpu()
    isa = cpu.isa.to_dict()
    per_core = {"fp32": {k: v * HZ for k, v in FPC.items()}, "fp64": {k: v * HZ / 2 for k, v in FPC.items()}}
    return {"isa": isa, "physical_cores": 2,
            "theoretical": {"clock_hz": HZ, "cores": 2, "per_core": per_core}}


def run_script(machine, behaviour, others_disturbed=False, wait_quiet_s=0.0):
    """behaviour(klass, threads) -> list of attempt kwargs; returns the compute entries."""
    vb = vector_bytes(machine["isa"])
    script = {}
    for klass, label in measure.KLASS_LABEL.items():
        v = PeakVariant("fp32", klass, default_chains(machine["isa"]), 0 if klass == "scalar" else vb)
        for threads in (1, 2):
            name = f"fp32 {label}" + (f" {v.vbytes * 8}-bit" if v.vbytes else "") + f" x{threads}"
            script[name] = [kw if isinstance(kw, Exception) else peak_result(v.flops_per_rep, FPC[klass], **kw)
                            for kw in behaviour(klass, threads)]
    s = FakeSession(script, others_disturbed, wait_quiet_s)
    plan = dataclasses.replace(make_plan(MeasureOptions(), machine), attempts=3)
    out = measure._compute_ceilings(s, MeasureOptions(precision="fp32"), plan, machine, 2)
    return [e for e in out if e["klass"] != "blas_gemm"], s


def test_disturbance_is_the_worst_ratio_to_its_limit():
    assert disturbance(0.015) == pytest.approx(0.5)
    assert disturbance(0.01, clock_dip=0.10) == pytest.approx(2.0)
    assert disturbance(0.0, fraction=1.05) > 10  # above the physical limit: never preferred
    assert disturbance(0.0, fraction=1.01) == 0.0
    assert disturbance(0.0, efficiency=0.5) == pytest.approx(1.5)
    assert disturbance(0.0, efficiency=0.9) < 1.0


def test_a_disturbed_attempt_is_measured_again_and_the_quiet_one_kept(machine):
    def behaviour(klass, threads):
        if klass == "simd_fma" and threads == 1:  # clock dipped 20%, then the spread was high, then quiet
            return [dict(fraction=0.98, clock_dip=0.2), dict(fraction=0.97, cv_hit=True), dict(fraction=0.99)]
        return [dict(fraction=0.98)]

    out, s = run_script(machine, behaviour)
    fma = next(e for e in out if e["klass"] == "simd_fma" and e["threads"] == 1)
    assert [a["kept"] for a in fma["attempts"]] == [False, False, True]
    assert fma["attempts"][0]["clock_dip"] == pytest.approx(0.2)
    assert fma["of_theoretical"] == pytest.approx(0.99)
    # the spread attempt: its median sample took 1.12x the undisturbed one, which the running time tells apart
    hit = fma["attempts"][1]
    assert hit["time_lost"] == pytest.approx(1 - 1 / 1.12) and hit["of_theoretical_running"] == pytest.approx(0.97)
    assert hit["of_theoretical"] == pytest.approx(0.97 / 1.12)
    assert fma["time_lost"] == 0.0 and fma["of_theoretical_running"] == pytest.approx(0.99)
    # the others were quiet at once: one attempt each
    assert all(len(e["attempts"]) == 1 for e in out if e is not fma)
    # the clock warning speaks of the kept attempt only, which was quiet
    assert not [w for w in s.warnings if w.code == "unstable-clock"]


def test_after_the_last_attempt_the_least_disturbed_is_kept_not_the_fastest(machine):
    def behaviour(klass, threads):
        if klass == "simd" and threads == 1:  # always disturbed; the fastest attempt is above the limit
            return [dict(fraction=0.95, clock_dip=0.3), dict(fraction=1.10), dict(fraction=0.96, clock_dip=0.08)]
        return [dict(fraction=0.98)]

    out, s = run_script(machine, behaviour)
    e = next(e for e in out if e["klass"] == "simd" and e["threads"] == 1)
    assert [a["kept"] for a in e["attempts"]] == [False, False, True]
    # one clock sample 8% low is the host's passing noise, said in a warning; the ceiling stands
    assert e["of_theoretical"] == pytest.approx(0.96) and e["status"] == "ok"
    assert [w for w in s.warnings if w.code == "unstable-clock"]  # still said: the machine was never quiet


def test_a_ceiling_whose_every_attempt_lost_its_core_to_the_host_is_disturbed(machine):
    def behaviour(klass, threads):
        if klass == "simd" and threads == 1:  # the host kept the core 40%, then 30% of the time: not ours
            return [dict(fraction=0.98, lost=0.4), dict(fraction=0.98, lost=0.3), dict(fraction=0.98, lost=0.35)]
        return [dict(fraction=0.98, lost=0.03)]  # 3% is a quiet host's usual share

    out, _ = run_script(machine, behaviour)
    e = next(e for e in out if e["klass"] == "simd" and e["threads"] == 1)
    assert [a["kept"] for a in e["attempts"]] == [False, True, False]
    assert e["status"] == "disturbed" and "kept the core from it 30%" in e["reason"]["text"]
    assert e["attempts"][1]["disturbed_by"]
    assert all(x["status"] == "ok" and len(x["attempts"]) == 1 for x in out if x is not e)


def test_threads_that_ran_only_part_of_the_time_are_measured_again_and_then_disturbed(machine):
    def behaviour(klass, threads):
        if klass == "simd_fma" and threads == 2:  # another process shared a CPU: each sample ran 55% of the time
            return [dict(fraction=0.55, running=0.55)] * 3
        if klass == "simd_fma" and threads == 1:  # a little host noise: 97% running is quiet enough
            return [dict(fraction=0.97, running=0.97)]
        return [dict(fraction=0.98, running=1.0)]

    out, _ = run_script(machine, behaviour)
    two = next(e for e in out if e["klass"] == "simd_fma" and e["threads"] == 2)
    one = next(e for e in out if e["klass"] == "simd_fma" and e["threads"] == 1)
    assert len(two["attempts"]) == 3 and two["status"] == "disturbed"
    assert "waited for a CPU 45% of the time" in two["reason"]["text"]
    assert one["status"] == "ok" and len(one["attempts"]) == 1


def test_a_disturbed_attempt_waits_for_quiet_when_the_session_may_wait(machine):
    def behaviour(klass, threads):
        if klass == "scalar" and threads == 2:
            return [dict(fraction=0.5, running=0.5), dict(fraction=0.98, running=1.0)]
        return [dict(fraction=0.98)]

    out, s = run_script(machine, behaviour, wait_quiet_s=30.0)
    e = next(e for e in out if e["klass"] == "scalar" and e["threads"] == 2)
    assert s.waits == 1 and e["status"] == "ok" and [a["kept"] for a in e["attempts"]] == [False, True]
    # a spread alone (no sign that the CPUs were shared) is measured again without waiting
    out, s = run_script(machine, lambda k, t: [dict(fraction=0.98, cv_hit=True), dict(fraction=0.98)],
                        wait_quiet_s=30.0)
    assert s.waits == 0 and all(e["status"] == "ok" for e in out)


def test_all_threads_far_below_one_thread_times_their_number_is_measured_again(machine):
    def behaviour(klass, threads):
        if klass == "simd_fma" and threads == 2:  # the two threads shared one core, then did not
            return [dict(fraction=0.49), dict(fraction=0.98)]
        return [dict(fraction=0.98)]

    out, _ = run_script(machine, behaviour)
    e = next(e for e in out if e["klass"] == "simd_fma" and e["threads"] == 2)
    assert len(e["attempts"]) == 2 and e["attempts"][0]["efficiency"] == pytest.approx(0.5)
    assert e["of_theoretical"] == pytest.approx(0.98)


def test_the_decision_to_measure_again_is_the_jobs_not_one_ranks(machine):
    # this rank is quiet, another rank of the job is not: every rank measures again, together, each keeping its own
    # least disturbed attempt
    out, s = run_script(machine, lambda klass, threads: [dict(fraction=0.98)] * 3, others_disturbed=True)
    assert all(len(e["attempts"]) == 3 and e["attempts"][0]["kept"] for e in out)
    assert len([c for c in s.calls if c.startswith("peak ")]) == 3 * len(out)


def test_private_cache_ceilings_expect_one_thread_times_the_cores():
    m = {"physical_cores": 2, "cache_details": [
        {"level": 1, "type": "Data", "size": 32768, "shared_by": 1},
        {"level": 1, "type": "Instruction", "size": 32768, "shared_by": 1},
        {"level": 2, "type": "Unified", "size": 1 << 20, "shared_by": 1},
        {"level": 3, "type": "Unified", "size": 32 << 20, "shared_by": 2}]}
    one = [{"level": lv, "kernel": "read", "threads": 1, "bytes_per_s": bw}
           for lv, bw in (("L1", 200e9), ("L2", 100e9), ("L3", 90e9), ("DRAM", 25e9))]
    targets = [("L1", 100), ("L2", 200), ("L3", 300), ("DRAM", 400)]
    # L3 and DRAM are shared: no expectation; one thread: none at all; another kernel's one-thread ceilings: none
    assert measure._private_scaling(one, m, "read", 2, targets) == {100: 400e9, 200: 200e9}
    assert measure._private_scaling(one, m, "read", 1, targets) == {}
    assert measure._private_scaling(one, m, "copy", 2, targets) == {}
    # more threads than cores: the cores are the limit
    assert measure._private_scaling(one, {**m, "physical_cores": 1}, "read", 2, targets) == {100: 200e9, 200: 100e9}


def test_an_attempt_that_fails_after_one_that_ran_keeps_the_one_that_ran(machine):
    def behaviour(klass, threads):
        if klass == "scalar" and threads == 1:
            return [dict(fraction=0.9, clock_dip=0.3), RooflabError("killed by signal 9")]
        if klass == "scalar" and threads == 2:
            return [RooflabError("timed out")]
        return [dict(fraction=0.98)]

    out, _ = run_script(machine, behaviour)
    ran = next(e for e in out if e["klass"] == "scalar" and e["threads"] == 1)
    assert ran["status"] == "ok" and ran["of_theoretical"] == pytest.approx(0.9)
    assert ran["retry_error"] == "killed by signal 9" and len(ran["attempts"]) == 1
    failed = next(e for e in out if e["klass"] == "scalar" and e["threads"] == 2)
    assert failed["status"] == "failed" and failed["reason"] == "timed out" and failed["flops_per_s"] is None


def test_a_thread_slower_than_its_sibling_for_the_same_work_names_its_cpu():
    from rooflab.timing.policy import assess
    from rooflab.kernels.tasks import thread_balance

    # the host gave CPU 1 half a core: its thread took twice as long for the same share of the work, in every sample
    slow = thread_balance([[(1.0e-3, 0), (2.0e-3, 1)], [(1.0e-3, 0), (1.9e-3, 1)], [(1.1e-3, 0), (2.1e-3, 1)]])
    assert slow["ratio"] == pytest.approx(1.9, rel=0.05) and slow["slow_cpu"] == 1 and slow["samples"] == 3
    assert [t["cpu"] for t in slow["threads"]] == [0, 1]
    score, reasons = assess(0.01, running=0.99, others=0.0, balance=slow)
    assert score > 1.0 and any("CPU 1" in r["text"] and "1.91x" in r["text"] for r in reasons)
    # threads within the noise of each other: nothing to say
    even = thread_balance([[(1.0e-3, 0), (1.05e-3, 1)]] * 3)
    score, reasons = assess(0.01, running=0.99, others=0.0, balance=even)
    assert score <= 1.0 and reasons == []
    # one thread, or no report: no balance to judge
    assert thread_balance([[(1e-3, 0)]]) is None and thread_balance([]) is None
    unknown = thread_balance([[(1.0e-3, -1), (2.0e-3, -1)]])
    assert any("slowest thread" in r["text"] for r in assess(0.01, balance=unknown)[1])


def test_the_all_thread_rate_is_judged_against_one_thread_in_the_same_rounds():
    from rooflab.kernels.tasks import same_moment_efficiency

    # rounds of 2 threads (10 units of work in 1 s) beside 1 thread (5 units in 1 s): full scaling on 2 cores
    assert same_moment_efficiency([1.0, 1.0, 1.0], [1.0, 1.0, 1.0], 10.0, 5.0, 2) == pytest.approx(1.0)
    # the host lends the second vCPU away in every round: the pair runs at one thread's rate
    assert same_moment_efficiency([2.0, 2.0, 2.1], [1.0, 1.0, 1.0], 10.0, 5.0, 2) == pytest.approx(0.5)
    # a round-by-round ratio: a slow moment that slowed both alike is no scaling problem
    assert same_moment_efficiency([1.0, 3.0, 1.0], [1.0, 3.0, 1.0], 10.0, 5.0, 2) == pytest.approx(1.0)
    assert same_moment_efficiency([1.0], None, 10.0, 5.0, 2) is None


def test_on_a_vm_a_one_thread_peak_far_below_theoretical_beside_a_busy_vcpu_is_not_a_ceiling():
    from rooflab.commands.measure.cpu import _peak_attempt

    def res(chunk_s):  # per repetition 1 FLOP at a 1 Hz clock with 1 FLOP/cycle: the fraction is 1 / chunk_s
        timing = {"reps": 1, "samples": [chunk_s] * 5, "raw": [chunk_s] * 5, "running": [1.0] * 5}
        clock = {"reps": 1, "samples": [1.0] * 6, "raw": [1.0] * 6}
        return {"peak": timing, "clock": clock, "peak_running_s": [chunk_s] * 5, "clock_hz_running": [1.0] * 6,
                "adds_per_rep": 1.0, "rel_error": 0.0}

    th = {"per_core": {"fp32": {"simd_fma": 1.0}}, "clock_hz": 1.0, "cores": 2}
    half = _peak_attempt(res(2.0), 1.0, th, "fp32", "simd_fma", 1, None, others=0.0, beside=0.95)
    assert half["frac"] == pytest.approx(0.5) and half["disturbance"] > 1.0
    assert any("two vCPUs on one physical core" in r["text"] for r in half["reasons"])
    # the same fraction with nothing beside it, or a full fraction beside a busy vCPU: no such reason
    alone = _peak_attempt(res(2.0), 1.0, th, "fp32", "simd_fma", 1, None, others=0.0, beside=0.0)
    full = _peak_attempt(res(1.02), 1.0, th, "fp32", "simd_fma", 1, None, others=0.0, beside=0.95)
    assert not any("physical core" in r["text"] for a in (alone, full) for r in a["reasons"])


class FakeBandwidthSession(FakeSession):
    """Scripted stream_task results, one list of per-size seconds per call, and the load others put beside each call
    (``beside``: cores busy on the other CPUs, per call)."""

    def __init__(self, per_call_seconds, beside):
        super().__init__({})
        self.per_call, self.beside, self.n_calls = list(per_call_seconds), list(beside), 0
        self.last_cpus = [0]

    def mark(self):
        return self.n_calls

    def others_for(self, a, b, *, shared):
        return self.beside[a] if shared else 0.0

    def call(self, name, fn, lib, kind, sizes, threads, *args, **kwargs):
        self.calls.append(name)
        s = self.per_call[self.n_calls]
        self.n_calls += 1
        return [{"n": n, "rel_error": 0.0, "thread_balance": None,
                 "timing": {**Timing(reps=1, samples=[s] * 5, raw=[s] * 5).to_dict(), "running": [1.0] * 5}}
                for n in sizes]


def test_one_thread_in_a_private_cache_beside_a_busy_vcpu_is_measured_again_and_the_quieter_attempt_kept(
        machine, monkeypatch):
    monkeypatch.setattr(measure, "BESIDE_SPACING_S", 0.0)
    m = {**machine, "virtualized": True, "cache_details": [
        {"level": 1, "type": "Data", "size": 32768, "shared_by": 1},
        {"level": 2, "type": "Unified", "size": 1 << 20, "shared_by": 1}]}
    plan = make_plan(MeasureOptions(), m)
    # beside a burst on the other vCPU: 0.6x; then quiet
    s = FakeBandwidthSession([1.0 / 0.6e6, 1.0e-6], beside=[0.9, 0.0])
    (e,) = measure._bandwidth_ceilings(s, plan, m, type("L", (), {"path": "x"}), "read", 1, [("L1", 1000)], {}, None,
                                       1e9)
    assert len(s.calls) == 2 and e["status"] == "ok"
    assert e["bytes_per_s"] == pytest.approx(8000 / 1e-6)
    assert [a["beside_cores"] for a in e["attempts"]] == [0.9, 0.0] and e["attempts"][1]["kept"]
    # load beside that does not go away: two more spaced tries, then the least loaded moment is kept, still ok
    s = FakeBandwidthSession([1.0e-6, 1.1e-6, 1.2e-6, 1.3e-6], beside=[0.9, 0.6, 0.8, 0.7])
    (e,) = measure._bandwidth_ceilings(s, plan, m, type("L", (), {"path": "x"}), "read", 1, [("L1", 1000)], {}, None,
                                       1e9)
    assert len(s.calls) == plan.bw_attempts + measure.BESIDE_EXTRA_ATTEMPTS and e["status"] == "ok"
    assert e["bytes_per_s"] == pytest.approx(8000 / 1.1e-6)
    # on two threads, or on a machine that is not virtual, load beside is no reason to measure again
    for threads, mm in ((2, m), (1, {**m, "virtualized": False})):
        s = FakeBandwidthSession([1.0e-6, 1.0e-6], beside=[0.9, 0.9])
        measure._bandwidth_ceilings(s, plan, mm, type("L", (), {"path": "x"}), "read", threads, [("L1", 1000)], {},
                                    None, 1e9)
        assert len(s.calls) == 1


def test_a_dram_ceiling_keeps_the_faster_of_two_clean_moments_and_lists_both():
    def entry(rate, status="ok"):
        return {"level": "DRAM", "kernel": "triad", "threads": 2, "bytes_per_s": rate, "status": status,
                "attempts": [{"rate": rate, "kept": True}], "others_cores": 0.0, "running": 0.99}

    kept = measure.later_moment(entry(20e9), entry(25e9))
    assert kept["bytes_per_s"] == 25e9 and [m["bytes_per_s"] for m in kept["moments"]] == [20e9, 25e9]
    assert [a["kept"] for a in kept["attempts"]] == [True, False]
    # a slower or a disturbed later moment keeps the first; a clean later moment stands in for a disturbed first
    assert measure.later_moment(entry(20e9), entry(15e9))["bytes_per_s"] == 20e9
    assert measure.later_moment(entry(20e9), entry(30e9, "disturbed"))["bytes_per_s"] == 20e9
    assert measure.later_moment(entry(30e9, "disturbed"), entry(20e9))["status"] == "ok"
    # an impossible figure is never hidden by a later one
    assert measure.later_moment(entry(90e9, "impossible"), entry(20e9))["status"] == "impossible"


def test_dram_moments_far_apart_are_named_in_an_observation():
    from rooflab.interpret.measure import _dram_moments_obs

    def doc(a, b):
        return {"ceilings": {"bandwidth": [{"level": "DRAM", "kernel": "triad", "threads": 2, "moments": [
            {"bytes_per_s": a, "status": "ok"}, {"bytes_per_s": b, "status": "ok"}]}]}}

    (o,) = _dram_moments_obs(doc(20e9, 25e9))
    assert "triad x2" in o["text"] and "faster moment" in o["text"]
    assert _dram_moments_obs(doc(20e9, 21e9)) == []


def test_a_dram_set_is_not_measured_again_in_its_pass_but_at_its_second_moment(machine):
    m = {**machine, "virtualized": False}
    plan = make_plan(MeasureOptions(), m)
    # a spread far above the limit: an L2 set would be measured again at once; a DRAM set waits for its revisit
    noisy = [1e-3, 1.3e-3, 0.8e-3, 1.2e-3, 0.9e-3]

    class Noisy(FakeBandwidthSession):
        def call(self, name, fn, lib, kind, sizes, threads, *args, **kwargs):
            self.calls.append(name)
            self.n_calls += 1
            return [{"n": n, "rel_error": 0.0, "thread_balance": None,
                     "timing": {**Timing(reps=1, samples=noisy, raw=noisy).to_dict(), "running": [1.0] * 5}}
                    for n in sizes]

    s = Noisy([], beside=[0.0] * 8)
    measure._bandwidth_ceilings(s, plan, m, type("L", (), {"path": "x"}), "read", 1, [("DRAM", 1 << 24)], {}, None,
                                1e9)
    assert len(s.calls) == 1
    s = Noisy([], beside=[0.0] * 8)
    measure._bandwidth_ceilings(s, plan, m, type("L", (), {"path": "x"}), "read", 1, [("L2", 1 << 14)], {}, None,
                                1e9)
    assert len(s.calls) == plan.bw_attempts


def test_a_one_thread_private_cache_figure_beside_constant_load_is_judged_by_the_stored_quiet_one(machine):
    m = {**machine, "virtualized": True, "cache_details": [
        {"level": 2, "type": "Unified", "size": 1 << 20, "shared_by": 1},
        {"level": 3, "type": "Unified", "size": 32 << 20, "shared_by": 2}]}

    def ceiling(level, rate, beside, threads=1, status="ok"):
        return {"level": level, "kernel": "copy", "threads": threads, "bytes_per_s": rate, "status": status,
                "reason": None, "attempts": [{"rate": rate, "beside_cores": beside, "kept": True}]}

    history = [{"run_id": 7, "ceilings": {"bandwidth": [
        {"level": "L2", "kernel": "copy", "threads": 1, "bytes_per_s": 100e9, "status": "disturbed"},
        {"level": "L3", "kernel": "copy", "threads": 1, "bytes_per_s": 60e9, "status": "ok"}]}},
        {"run_id": 3, "ceilings": {"bandwidth": [
            {"level": "L2", "kernel": "copy", "threads": 1, "bytes_per_s": 90e9, "status": "ok"}]}}]
    got = measure.judge_beside([ceiling("L2", 52e9, 0.95), ceiling("L2", 80e9, 0.95), ceiling("L2", 52e9, 0.1),
                                ceiling("L2", 52e9, 0.95, threads=2), ceiling("L3", 30e9, 0.95)], m, history)
    # the newest ok stored figure is the yardstick (run 3: run 7's was disturbed); 52/90 = 0.58x
    assert got[0]["status"] == "disturbed" and got[0]["quiet_reference"] == {"bytes_per_s": 90e9, "run_id": 3}
    assert "0.58x" in got[0]["reason"]["text"] and "run 3" in got[0]["reason"]["text"]
    # near the quiet figure, kept from a quiet moment, on two threads, or in a shared cache: as measured
    assert [c["status"] for c in got[1:]] == ["ok"] * 4
    # with no stored quiet figure for it, nothing to judge by: as measured
    assert measure.judge_beside([ceiling("L2", 52e9, 0.95)], m, [])[0]["status"] == "ok"
    # the best of the last runs, not the newest: a newer ok figure lowered by load does not lower the yardstick
    lowered = [{"run_id": 9, "ceilings": {"bandwidth": [
        {"level": "L2", "kernel": "copy", "threads": 1, "bytes_per_s": 70e9, "status": "ok"}]}}] + history
    got = measure.judge_beside([ceiling("L2", 60e9, 0.95)], m, lowered)[0]
    assert got["status"] == "disturbed" and got["quiet_reference"] == {"bytes_per_s": 90e9, "run_id": 3}
    # a machine that really became slower: the figures this comparison marked count, and after TYPICAL_RUNS of
    # them the old quiet figure is no longer the yardstick
    slower = [{"run_id": 20 - i, "ceilings": {"bandwidth": [
        {"level": "L2", "kernel": "copy", "threads": 1, "bytes_per_s": 52e9, "status": "disturbed",
         "quiet_reference": {"bytes_per_s": 90e9, "run_id": 3}}]}} for i in range(measure.TYPICAL_RUNS)] + history
    assert measure.judge_beside([ceiling("L2", 50e9, 0.95)], m, slower)[0]["status"] == "ok"
    assert measure.judge_beside([ceiling("L2", 50e9, 0.95)], m, slower[1:])[0]["status"] == "disturbed"


def test_a_one_thread_gemm_beside_load_on_the_other_vcpu_is_judged_by_the_stored_quiet_one(machine):
    m = {**machine, "virtualized": True}
    history = [{"run_id": 4, "ceilings": {"compute": [
        {"precision": "fp32", "klass": "blas_gemm", "threads": 1, "flops_per_s": 100e9, "status": "ok"},
        {"precision": "fp32", "klass": "blas_gemm", "threads": 2, "flops_per_s": 190e9, "status": "ok"}]}}]

    def gemm(rate, beside, threads=1):
        return {"precision": "fp32", "klass": "blas_gemm", "threads": threads, "flops_per_s": rate, "status": "ok",
                "reason": None, "beside_cores": beside}

    got = measure.judge_beside([gemm(71e9, 0.97), gemm(95e9, 0.97), gemm(71e9, None), gemm(71e9, 0.97, 2),
                                {**gemm(71e9, 0.97), "precision": "fp64"}], m, history, "compute")
    assert got[0]["status"] == "disturbed" and "0.71x" in got[0]["reason"]["text"]
    assert got[0]["quiet_reference"] == {"flops_per_s": 100e9, "run_id": 4}
    # near quiet, no load measured beside it, two threads, or no stored figure for its precision: as measured
    assert [c["status"] for c in got[1:]] == ["ok"] * 4


def test_a_shared_level_figure_far_below_this_machines_typical_one_is_disturbed(machine):
    m = {**machine, "cache_details": [{"level": 2, "type": "Unified", "size": 1 << 20, "shared_by": 1},
                                      {"level": 3, "type": "Unified", "size": 32 << 20, "shared_by": 2}]}

    def run(rid, rate, status="ok", **more):
        return {"run_id": rid, "ceilings": {"bandwidth": [
            {"level": "DRAM", "kernel": "copy", "threads": 2, "bytes_per_s": rate, "status": status, **more}]}}

    def ceiling(level, rate, status="ok"):
        return {"level": level, "kernel": "copy", "threads": 2, "bytes_per_s": rate, "status": status,
                "reason": None, "moments": [{"bytes_per_s": rate}, {"bytes_per_s": 0.9 * rate}]}

    # newest first: one lucky high and one low moment do not move the median (40), a plain disturbed run is no
    # figure of the machine, and only the newest TYPICAL_RUNS clean figures count
    history = [run(9, 60e9), run(8, 10e9, "disturbed"), run(7, 30e9, "disturbed", typical_reference={"bytes_per_s": 40e9, "runs": [6]}),
               run(6, 40e9), run(5, 42e9), run(4, 39e9), run(3, 5e9)]
    got = measure.judge_shared([ceiling("DRAM", 30e9), ceiling("DRAM", 35e9), ceiling("DRAM", 30e9, "refused"),
                                {**ceiling("L2", 30e9), "level": "L2"}], m, history)
    assert got[0]["status"] == "disturbed"
    assert got[0]["typical_reference"] == {"bytes_per_s": 40e9, "runs": [9, 7, 6, 5, 4]}
    text = got[0]["reason"]["text"]
    assert "0.75x" in text and "9, 7, 6, 5, 4" in text and "2 moment" in text
    # within TYPICAL_MIN of it, not ok to begin with, or a private cache (no history for it): as measured
    assert [c["status"] for c in got[1:]] == ["ok", "refused", "ok"]
    # the L3 the OS says is shared is judged the same way; without stored figures nothing changes
    l3 = measure.judge_shared([ceiling("L3", 30e9)], m, [{"run_id": 2, "ceilings": {"bandwidth": [
        {"level": "L3", "kernel": "copy", "threads": 2, "bytes_per_s": 50e9, "status": "ok"}]}}])
    assert l3[0]["status"] == "disturbed" and "0.60x" in l3[0]["reason"]["text"]
    assert measure.judge_shared([ceiling("DRAM", 30e9)], m, [])[0]["status"] == "ok"


def test_a_machine_that_really_slowed_is_judged_by_its_new_figure_within_a_few_runs(machine):
    # each run of a machine now at 30 GB/s after years at 50: disturbed while the old figures are the median, then
    # ok once its own (disturbed-by-comparison) figures are
    history = [{"run_id": i, "ceilings": {"bandwidth": [
        {"level": "DRAM", "kernel": "read", "threads": 1, "bytes_per_s": 50e9, "status": "ok"}]}} for i in (4, 3, 2, 1)]
    statuses = []
    for rid in range(5, 10):
        (c,) = measure.judge_shared([{"level": "DRAM", "kernel": "read", "threads": 1, "bytes_per_s": 30e9,
                                      "status": "ok", "reason": None}], machine, history)
        statuses.append(c["status"])
        history.insert(0, {"run_id": rid, "ceilings": {"bandwidth": [c]}})
    assert statuses == ["disturbed", "disturbed", "disturbed", "ok", "ok"]


def test_stored_figures_that_are_not_positive_finite_numbers_are_passed_over(machine):
    bad = [{"run_id": i, "ceilings": {"bandwidth": [{"level": "DRAM", "kernel": "read", "threads": 1,
                                                     "bytes_per_s": v, "status": "ok"}]}}
           for i, v in enumerate(("fast", float("nan"), float("inf"), -5e10, True, 0))]
    c = {"level": "DRAM", "kernel": "read", "threads": 1, "bytes_per_s": 3e10, "status": "ok", "reason": None}
    assert measure.judge_shared([dict(c)], machine, bad)[0]["status"] == "ok"
    # a good figure among them is the one judged by
    good = bad + [{"run_id": 9, "ceilings": {"bandwidth": [{**c, "bytes_per_s": 5e10}]}}]
    assert measure.judge_shared([dict(c)], machine, good)[0]["typical_reference"]["runs"] == [9]

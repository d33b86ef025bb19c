import pytest

from rooflab.errors import OverheadDominates

from rooflab.timing.clock import FakeClock, measured_resolution
from rooflab.timing.harness import HarnessConfig, calibrate, python_timed, run_interleaved, run_samples


class FakeKernel:
    """A kernel whose every repetition takes exactly `cost` seconds of fake time."""

    def __init__(self, clock, cost):
        self.clock, self.cost, self.calls = clock, cost, []

    def __call__(self, reps):
        self.calls.append(reps)
        self.clock.advance(self.cost * reps)
        return self.cost * reps


def test_calibration_reaches_min_sample_time_exactly():
    clk = FakeClock()
    k = FakeKernel(clk, 1e-3)
    # 1 rep -> 1 ms; aim 20% above 10 ms -> 12 reps
    assert calibrate(k, 0.010) == 12
    assert k.calls == [1, 12, 12, 12]  # the count is confirmed by two more samples


def test_calibration_grows_geometrically_from_zero_time():
    calls = []

    def kernel(reps):
        calls.append(reps)
        return 0.0 if reps < 100 else reps * 1e-4

    assert calibrate(kernel, 0.01) == 100
    assert calls == [1, 10, 100, 100, 100]


def test_calibration_is_not_fooled_by_one_slow_call():
    # each repetition takes 1 us, but the first call waits 5 ms for its threads to wake: without a second sample
    # the count would stay at 1, and every sample would be call overhead
    calls = []

    def kernel(reps):
        calls.append(reps)
        return reps * 1e-6 + (5e-3 if len(calls) == 1 else 0.0)

    reps = calibrate(kernel, 0.002)
    assert reps * 1e-6 >= 0.002 and calls[:2] == [1, 1]


def test_calibration_grows_from_the_fastest_of_its_confirming_calls():
    # another process holds one thread's CPU: most calls wait ~4 ms for it, one in three does not; the count must
    # come from the fast calls, or every sample would be mostly waiting
    calls = []

    def kernel(reps):
        calls.append(reps)
        return reps * 1e-6 + (0.0 if len(calls) % 3 == 0 else 4e-3)

    reps = calibrate(kernel, 0.002)
    assert reps * 1e-6 >= 0.002 * 0.5


def test_python_timed_with_fake_clock_gives_exact_samples():
    clk = FakeClock()
    fn = python_timed(lambda: clk.advance(2e-3), clk)
    cfg = HarnessConfig(min_sample_s=0.01, samples=5, warmup=1, min_samples=3)
    t = run_samples(fn, cfg)
    assert t.reps == 6  # 1 rep = 2 ms -> ceil(1.2 * 10 / 2) = 6
    assert t.samples == pytest.approx([2e-3] * 5)
    assert t.summary.median == pytest.approx(2e-3)
    assert t.summary.cv == 0.0


def test_overhead_is_subtracted_from_samples_not_raw():
    clk = FakeClock()
    k = FakeKernel(clk, 1e-3)
    t = run_samples(k, HarnessConfig(min_sample_s=0.01, samples=4, warmup=0, min_samples=2), overhead_per_rep=1e-4)
    assert t.raw == pytest.approx([1e-3] * 4)
    assert t.samples == pytest.approx([9e-4] * 4)


def test_budget_reduces_samples_but_not_below_minimum():
    clk = FakeClock()
    k = FakeKernel(clk, 1.0)  # one second per rep
    t = run_samples(k, HarnessConfig(min_sample_s=0.5, samples=50, warmup=0, min_samples=4, budget_s=2.0))
    assert len(t.samples) == 4


def test_warmup_samples_are_discarded():
    seq = iter([5.0, 5.0, 1.0, 1.0, 1.0])

    def kernel(reps):
        return next(seq)

    t = run_samples(kernel, HarnessConfig(min_sample_s=0.5, samples=3, warmup=2, min_samples=1), reps=1)
    assert t.raw == [1.0, 1.0, 1.0]


def test_interleaved_rounds_rotate_order_and_keep_own_reps():
    clk = FakeClock()
    order = []

    def make(name, cost):
        def k(reps):
            order.append(name)
            clk.advance(cost * reps)
            return cost * reps
        return k

    cfg = HarnessConfig(min_sample_s=0.01, samples=4, warmup=0)
    res = run_interleaved({"A": make("A", 1e-3), "B": make("B", 2e-3)}, cfg)
    timed_order = order[-8:]
    assert timed_order == ["A", "B", "B", "A", "A", "B", "B", "A"]
    assert res["A"].samples == pytest.approx([1e-3] * 4)
    assert res["B"].samples == pytest.approx([2e-3] * 4)
    assert res["A"].reps == 12 and res["B"].reps == 6


def test_fake_clock_never_goes_backwards_and_resolution_is_measured():
    clk = FakeClock()
    with pytest.raises(ValueError):
        clk.advance(-1)

    class Ticking:
        def __init__(self):
            self.t = 0.0

        def now(self):
            self.t += 1e-7
            return self.t

    assert measured_resolution(Ticking(), tries=5) == pytest.approx(1e-7)


def test_invalid_config_rejected():
    with pytest.raises(ValueError):
        HarnessConfig(min_sample_s=0)


def _scripted(order, costs, overhead=0.0):
    """Timed functions that log their calls and cost ``cost * reps`` (+ a fixed ``overhead`` per call)."""
    def make(name):
        def k(reps):
            order.append((name, reps))
            return costs[name] * reps + overhead
        return k
    return {name: make(name) for name in costs}


def test_bracket_surrounds_every_sample_and_after_sees_only_kept_samples():
    order, seen = [], []
    fns = _scripted(order, {"peak": 1e-3, "clock": 5e-4})
    cfg = HarnessConfig(min_sample_s=0.01, samples=3, warmup=1)
    res = run_interleaved(fns, cfg, rotate=False, bracket="clock", after={"peak": lambda i: seen.append(("p", i)),
                                                                          "clock": lambda i: seen.append(("c", i))})
    kept = [n for n, _ in order[-7:]]
    assert kept == ["clock", "peak", "clock", "peak", "clock", "peak", "clock"]
    assert seen == [("c", 0), ("p", 0), ("c", 1), ("p", 1), ("c", 2), ("p", 2), ("c", 3)]
    assert len(res["clock"].samples) == 4 and len(res["peak"].samples) == 3


def test_budget_cuts_rounds_but_never_below_min_samples():
    order = []
    fns = _scripted(order, {"A": 1e-3, "B": 1e-3})
    cfg = HarnessConfig(min_sample_s=0.1, samples=50, warmup=0, min_samples=4, budget_s=0.5)
    res = run_interleaved(fns, cfg, budget=True)
    assert len(res["A"].samples) == 4  # a round lasts ~0.24 s: 0.5 s of budget would allow 2
    res = run_interleaved(fns, cfg)  # without the budget, every round asked for
    assert len(res["A"].samples) == 50


def test_per_call_overhead_raises_reps_and_grows_once_when_samples_are_mostly_overhead():
    order = []
    # a fixed 5 ms per call: calibrated for 10 ms samples, half of every sample would be the call's own cost
    fns = _scripted(order, {"A": 1e-4}, overhead=5e-3)
    cfg = HarnessConfig(min_sample_s=0.01, samples=3, warmup=0, max_sample_s=2.0)
    res = run_interleaved(fns, cfg, call_overheads={"A": 5e-3})
    assert res["A"].reps * 1e-4 >= 0.9 * 5e-3 / 0.02  # overhead at most ~2% of a sample
    assert res["A"].samples == pytest.approx([1e-4] * 3)
    # counts fixed too short: the overhead swallows the samples; grow_once retries at 16 times the count
    res = run_interleaved(fns, cfg, call_overheads={"A": 5e-3}, reps={"A": 100}, grow_once=True)
    assert res["A"].reps == 1600
    with pytest.raises(OverheadDominates):
        run_interleaved(fns, cfg, call_overheads={"A": 5e-3}, reps={"A": 100})


def test_rounds_a_burst_touched_are_left_out_while_enough_remain():
    from rooflab.timing.harness import Timing

    t = Timing(reps=10, samples=[1.0, 2.0, 1.0, 1.1, 3.0, 1.0], raw=[1.0, 2.0, 1.0, 1.1, 3.0, 1.0],
               running=[1.0, 0.6, 0.99, 0.97, 0.5, 1.0])
    kept, touched = t.rounds_kept(0.9)
    assert touched == [1, 4] and kept.samples == [1.0, 1.0, 1.1, 1.0] and kept.running == [1.0, 0.99, 0.97, 1.0]
    assert kept.summary.median == 1.0 and t.summary.median > kept.summary.median
    # too few untouched rounds: all are kept, and their running fraction says the CPUs were not ours
    few = Timing(reps=1, samples=[1.0, 2.0, 2.0], raw=[1.0, 2.0, 2.0], running=[1.0, 0.5, 0.5])
    kept, touched = few.rounds_kept(0.9)
    assert kept is few and touched == [1, 2] and few.running_fraction == 0.5
    # without running fractions nothing can be told apart
    bare = Timing(reps=1, samples=[1.0, 2.0, 3.0], raw=[1.0, 2.0, 3.0])
    assert bare.rounds_kept(0.9) == (bare, [])


def test_a_python_timed_call_logs_the_share_of_its_wall_time_it_ran():
    import time

    from rooflab.timing.harness import python_timed_running

    def spin():
        end = time.perf_counter() + 0.002
        while time.perf_counter() < end:
            pass

    fn = python_timed_running(spin, threads=1)
    assert fn(3) > 0.005 and fn(0) >= 0 and len(fn.log) == 1  # a call with no repetitions logs nothing
    assert 0.0 <= fn.log[0] <= 1.0
    # asleep, not running: the CPU time covers little of the wall time. This thread's CPU time: the process's also
    # counts threads a library started at import (OpenBLAS's spin for a while after numpy loads)
    sleepy = python_timed_running(lambda: time.sleep(0.003), threads=1, cpu_clock=time.thread_time)
    sleepy(2)
    assert sleepy.log[0] < 0.5


def test_the_running_share_of_a_python_call_comes_from_its_two_clocks():
    from rooflab.timing.clock import FakeClock
    from rooflab.timing.harness import python_timed_running

    wall, cpu = FakeClock(), FakeClock()

    def call():  # 1 ms of wall time, of which another process held the CPU for 0.4 ms
        wall.advance(1e-3)
        cpu.advance(0.6e-3)

    fn = python_timed_running(call, threads=1, clock=wall, cpu_clock=cpu.now)
    assert fn(5) == pytest.approx(5e-3) and fn.log == [pytest.approx(0.6)]
    two = python_timed_running(call, threads=2, clock=wall, cpu_clock=cpu.now)
    two(1)
    assert two.log == [pytest.approx(0.3)]


def test_a_long_checked_call_makes_one_repetition_a_sample_without_calibrating():
    from rooflab.kernels.runner import LONG_CALL_S, _reps

    clk = FakeClock()
    cfg = HarnessConfig(min_sample_s=0.02)
    slow = FakeKernel(clk, 0.4)
    assert _reps(slow, 0.4, cfg) == 1
    assert slow.calls == []  # no call spent on calibration
    # a checked call just short of the bound, or of five sample targets, is calibrated as before
    fast = FakeKernel(clk, 1e-3)
    assert _reps(fast, LONG_CALL_S * 0.99, cfg) == 24
    assert fast.calls[0] == 1 and len(fast.calls) >= 3
    long_target = HarnessConfig(min_sample_s=0.05)
    mid = FakeKernel(clk, 0.2)
    assert _reps(mid, 0.2, long_target) == 1 and len(mid.calls) == 3  # 0.2 s is under 5 targets of 0.05 s

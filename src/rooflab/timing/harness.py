"""Warm-up, loop calibration, repeated samples, interleaved rounds and overhead subtraction.

A *timed function* takes a repetition count and returns the elapsed seconds for that many repetitions. C kernels
time themselves inside C (a monotonic clock read around the repetition loop); Python callables are wrapped by
:func:`python_timed` with an injected clock. The harness never reads a clock itself, so tests drive it with a
:class:`~rooflab.timing.clock.FakeClock` and get exact samples.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Mapping

from .clock import Clock, MonotonicClock
from .stats import Summary, summarize

TimedFn = Callable[[int], float]


@dataclass(frozen=True)
class HarnessConfig:
    min_sample_s: float = 0.02  # one sample must last this long (far above timer resolution)
    samples: int = 15
    warmup: int = 2  # samples taken and discarded (caches, page faults, clock ramp-up)
    min_samples: int = 5  # never fewer, even when the time budget is short
    budget_s: float = 20.0  # target total time for one measurement; reduces samples, never below min_samples
    max_reps: int = 1 << 40

    def __post_init__(self):
        if self.min_sample_s <= 0 or self.samples < 1 or self.min_samples < 1 or self.warmup < 0:
            raise ValueError("invalid harness configuration")


@dataclass
class Timing:
    """Per-repetition times of one kernel: ``samples`` have the measured overhead removed, ``raw`` do not."""

    reps: int
    samples: list[float]
    raw: list[float]
    overhead_per_rep: float = 0.0
    summary: Summary = field(init=False)

    def __post_init__(self):
        self.summary = summarize(self.samples)

    def to_dict(self) -> dict:
        return {"reps": self.reps, "samples": self.samples, "raw": self.raw,
                "overhead_per_rep": self.overhead_per_rep, "summary": self.summary.to_dict()}

    @classmethod
    def from_dict(cls, d: Mapping) -> "Timing":
        return cls(reps=int(d["reps"]), samples=list(d["samples"]), raw=list(d["raw"]),
                   overhead_per_rep=float(d.get("overhead_per_rep", 0.0)))


def python_timed(fn: Callable[[], object], clock: Clock | None = None) -> TimedFn:
    """Wrap a zero-argument callable as a timed function (for calls that last well above ~1 µs)."""
    clk = clock or MonotonicClock()

    def run(reps: int) -> float:
        t0 = clk.now()
        for _ in range(reps):
            fn()
        return clk.now() - t0

    return run


def calibrate(fn: TimedFn, min_sample_s: float, *, start_reps: int = 1, max_reps: int = 1 << 40) -> int:
    """Smallest repetition count (found by geometric growth) whose sample lasts at least ``min_sample_s``.

    A count is only accepted when a second sample with it lasts at least half the target: one call slowed by
    something else (threads woken from sleep, a core taken away by the host) would otherwise fix a count whose
    samples last microseconds, all call overhead."""
    reps = max(1, start_reps)
    while True:
        t = fn(reps)
        if reps >= max_reps:
            return reps
        if t >= min_sample_s:
            again = fn(reps)
            if again >= 0.5 * min_sample_s:
                return reps
            t = again  # the first sample was an outlier: grow from the second
        if t <= 0:
            grow = reps * 10
        else:
            # aim 20% above the target so that noise does not leave the sample just short of it
            grow = math.ceil(reps * 1.2 * min_sample_s / t)
        reps = min(max_reps, max(reps * 2, grow))


def _per_rep(t: float, reps: int, overhead: float) -> float:
    return max(t / reps - overhead, 1e-15)


def run_samples(fn: TimedFn, config: HarnessConfig = HarnessConfig(), *, overhead_per_rep: float = 0.0,
                reps: int | None = None) -> Timing:
    """Calibrate (unless ``reps`` is given), warm up, then take samples of one timed function."""
    warmup = config.warmup
    if reps is None:
        reps = calibrate(fn, config.min_sample_s, max_reps=config.max_reps)
        warmup = max(0, warmup - 1)  # the calibration runs already warmed caches, pages and the clock
    raw_total: list[float] = []
    for _ in range(warmup):
        fn(reps)
    n = config.samples
    first = fn(reps)
    raw_total.append(first)
    if first > 0:
        fit = int(config.budget_s / first)
        n = max(config.min_samples, min(n, fit))
    for _ in range(n - 1):
        raw_total.append(fn(reps))
    raw = [t / reps for t in raw_total]
    return Timing(reps=reps, samples=[_per_rep(t, reps, overhead_per_rep) for t in raw_total], raw=raw,
                  overhead_per_rep=overhead_per_rep)


def run_interleaved(fns: Mapping[str, TimedFn], config: HarnessConfig = HarnessConfig(), *, rounds: int | None = None,
                    overheads: Mapping[str, float] | None = None) -> dict[str, Timing]:
    """Time alternatives in interleaved rounds (A B A B ...), rotating the order each round.

    Round i holds one sample of every alternative, taken close together in time, so per-round ratios cancel the
    machine's slow drift (frequency, other tenants). Each alternative keeps its own calibrated repetition count.
    """
    names = list(fns)
    if not names:
        raise ValueError("nothing to time")
    overheads = dict(overheads or {})
    reps = {k: calibrate(fns[k], config.min_sample_s, max_reps=config.max_reps) for k in names}
    for _ in range(config.warmup):
        for k in names:
            fns[k](reps[k])
    n = rounds or config.samples
    totals: dict[str, list[float]] = {k: [] for k in names}
    for r in range(n):
        shift = r % len(names)
        for k in names[shift:] + names[:shift]:
            totals[k].append(fns[k](reps[k]))
    return {
        k: Timing(reps=reps[k], samples=[_per_rep(t, reps[k], overheads.get(k, 0.0)) for t in totals[k]],
                  raw=[t / reps[k] for t in totals[k]], overhead_per_rep=overheads.get(k, 0.0))
        for k in names
    }


_OVERHEAD: dict[int, float] = {}


def python_overhead(clock: Clock | None = None, config: HarnessConfig = HarnessConfig(min_sample_s=0.005,
                                                                                      samples=7, warmup=1)) -> float:
    """Per-call cost of the Python timing loop itself (an empty callable), to subtract from Python samples.
    Measured once per process and clock."""
    key = id(clock)
    if key not in _OVERHEAD:
        _OVERHEAD[key] = run_samples(python_timed(lambda: None, clock), config).summary.median
    return _OVERHEAD[key]


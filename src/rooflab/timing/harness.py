"""Warm-up, loop calibration, repeated samples, interleaved rounds and overhead subtraction.

A *timed function* takes a repetition count and returns the elapsed seconds for that many repetitions. C kernels
time themselves inside C (a monotonic clock read around the repetition loop); Python callables are wrapped by
:func:`python_timed` with an injected clock. The harness never reads a clock itself, so tests drive it with a
:class:`~rooflab.timing.clock.FakeClock` and get exact samples.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable, Mapping

from rooflab.errors import OverheadDominates
from rooflab.timing.clock import Clock, MonotonicClock
from rooflab.timing.stats import Summary, summarize

TimedFn = Callable[[int], float]


@dataclass(frozen=True)
class HarnessConfig:
    min_sample_s: float = 0.02  # one sample must last this long (far above timer resolution)
    samples: int = 15
    warmup: int = 2  # samples taken and discarded (caches, page faults, clock ramp-up)
    min_samples: int = 5  # never fewer, even when the time budget is short
    budget_s: float = 20.0  # target total time for one measurement; reduces samples, never below min_samples
    max_reps: int = 1 << 40
    max_sample_s: float = 2.0  # a sample grown to dwarf the call overhead never lasts longer than this

    def __post_init__(self):
        bad = [k for k in ("min_sample_s", "budget_s", "max_sample_s")
               if not (isinstance(getattr(self, k), (int, float)) and math.isfinite(getattr(self, k)))]
        if bad or self.min_sample_s <= 0 or self.samples < 1 or self.min_samples < 1 or self.warmup < 0 \
                or self.max_reps < 1:
            raise ValueError("invalid harness configuration")


# Subtracting a measured overhead must never manufacture a tiny time: a sample whose fixed per-call overhead is more
# than this fraction of it is invalid, and the repetition count is raised until the overhead is below the target
# fraction. A per-repetition cost (a Python loop's own iteration) does not shrink with more repetitions; it is
# steady, so it may be up to half of a call before the call is too short to time this way.
MAX_OVERHEAD_FRACTION = 0.10
TARGET_OVERHEAD_FRACTION = 0.02
MAX_REP_OVERHEAD_FRACTION = 0.5


@dataclass
class Timing:
    """Per-repetition times of one kernel: ``samples`` have the measured overhead removed, ``raw`` do not.

    ``running`` (optional, one per sample) is the fraction of each sample's wall time the kernel's slowest thread was
    running its work (its CPU time over the call's wall time): well below 1 when the CPUs were shared."""

    reps: int
    samples: list[float]
    raw: list[float]
    overhead_per_rep: float = 0.0
    running: list[float] | None = None
    summary: Summary = field(init=False)

    def __post_init__(self):
        self.summary = summarize(self.samples)

    def to_dict(self) -> dict:
        d = {"reps": self.reps, "samples": self.samples, "raw": self.raw,
             "overhead_per_rep": self.overhead_per_rep, "summary": self.summary.to_dict()}
        if self.running is not None:
            d["running"] = self.running
        return d

    @classmethod
    def from_dict(cls, d: Mapping) -> "Timing":
        run = d.get("running")
        return cls(reps=int(d["reps"]), samples=list(d["samples"]), raw=list(d["raw"]),
                   overhead_per_rep=float(d.get("overhead_per_rep", 0.0)),
                   running=list(run) if run is not None else None)

    @property
    def running_fraction(self) -> float | None:
        """The median running fraction over the samples (None when the kernel does not report it): another process
        sharing a CPU lowers every sample, a passing preemption (a kernel thread, rooflab's own bookkeeping) one."""
        if not self.running:
            return None
        r = sorted(self.running)
        n = len(r)
        return float(r[n // 2] if n % 2 else 0.5 * (r[n // 2 - 1] + r[n // 2]))

    def rounds_kept(self, min_running: float, keep_at_least: int = 3) -> tuple["Timing", list[int]]:
        """The samples no burst of other work touched, and the indices of those one did (a sample whose running
        fraction is below ``min_running``: its threads waited for a CPU). The touched samples are dropped when at
        least ``keep_at_least`` others remain; otherwise all are kept (and the median running fraction says the CPUs
        were not ours). Without running fractions, every sample is kept."""
        if not self.running:
            return self, []
        touched = [i for i, r in enumerate(self.running) if r < min_running]
        if not touched or len(self.samples) - len(touched) < keep_at_least:
            return self, touched
        keep = [i for i in range(len(self.samples)) if i not in touched]
        return Timing(reps=self.reps, samples=[self.samples[i] for i in keep], raw=[self.raw[i] for i in keep],
                      overhead_per_rep=self.overhead_per_rep, running=[self.running[i] for i in keep]), touched


def python_timed(fn: Callable[[], object], clock: Clock | None = None) -> TimedFn:
    """Wrap a zero-argument callable as a timed function (for calls that last well above ~1 µs)."""
    clk = clock or MonotonicClock()

    def run(reps: int) -> float:
        t0 = clk.now()
        for _ in range(reps):
            fn()
        return clk.now() - t0

    return run


def python_timed_running(fn: Callable[[], object], threads: int = 1, clock: Clock | None = None,
                         cpu_clock: Callable[[], float] = time.process_time) -> TimedFn:
    """:func:`python_timed` that also logs, per call with repetitions, the share of its wall time the process's CPU
    time (``cpu_clock``) covered over ``threads`` threads (``run.log``): well below 1 when another process kept one
    of the threads from its CPU (a library's own threads, BLAS, are in the process's CPU time)."""
    clk = clock or MonotonicClock()
    log: list[float] = []

    def run(reps: int) -> float:
        c0, t0 = cpu_clock(), clk.now()
        for _ in range(reps):
            fn()
        wall = clk.now() - t0
        if reps and wall > 0:
            log.append(min(1.0, (cpu_clock() - c0) / (wall * max(1, threads))))
        return wall

    run.log = log
    return run


def calibrate(fn: TimedFn, min_sample_s: float, *, start_reps: int = 1, max_reps: int = 1 << 40) -> int:
    """Smallest repetition count (found by geometric growth) whose sample lasts at least ``min_sample_s``.

    A count is only accepted when two more samples with it last at least half the target: calls slowed by something
    else (threads woken from sleep, a core taken away by the host, another process holding a thread's CPU) would
    otherwise fix a count whose samples last microseconds, all call overhead. Growth goes on from the fastest of
    the three."""
    reps = max(1, start_reps)
    while True:
        t = fn(reps)
        if reps >= max_reps:
            return reps
        if t >= min_sample_s:
            for _ in range(2):
                t = min(t, fn(reps))
                if t < 0.5 * min_sample_s:
                    break
            else:
                return reps
        if t <= 0:
            grow = reps * 10
        else:
            # aim 20% above the target so that noise does not leave the sample just short of it
            grow = math.ceil(reps * 1.2 * min_sample_s / t)
        reps = min(max_reps, max(reps * 2, grow))


def net_per_rep(total_s: float, reps: int, overhead_per_call: float = 0.0,
                overhead_per_rep: float = 0.0) -> float | None:
    """Seconds per repetition of one sample with the measured overhead removed, or None when that overhead is too
    large a part of the sample (MAX_OVERHEAD_FRACTION per call, MAX_REP_OVERHEAD_FRACTION per repetition): what
    would be left is not a measurement."""
    if not (total_s > 0) or overhead_per_call > MAX_OVERHEAD_FRACTION * total_s \
            or overhead_per_rep * reps > MAX_REP_OVERHEAD_FRACTION * total_s:
        return None
    return (total_s - overhead_per_call - overhead_per_rep * reps) / reps


def reps_for_overhead(reps: int, total_s: float, overhead_per_call: float, config: HarnessConfig) -> int:
    """A repetition count at which a fixed per-call overhead is at most TARGET_OVERHEAD_FRACTION of a sample,
    without a sample growing past ``config.max_sample_s`` (``total_s``: a sample at ``reps``)."""
    work = max(total_s - overhead_per_call, 0.0)
    if overhead_per_call <= TARGET_OVERHEAD_FRACTION * max(total_s, 1e-300):
        return reps
    want = reps * 10 if work <= 0 else math.ceil(reps * overhead_per_call / (TARGET_OVERHEAD_FRACTION * work))
    per_rep = max(total_s, 1e-12) / reps
    cap = max(reps, int(config.max_sample_s / per_rep))
    return max(reps, min(want, cap, config.max_reps))


def _take(fn: TimedFn, reps: int, n: int, config: HarnessConfig) -> list[float]:
    """``n`` samples (fewer when the budget is short, never below ``min_samples``), totals in seconds."""
    first = fn(reps)
    totals = [first]
    if first > 0:
        n = max(config.min_samples, min(n, int(config.budget_s / first)))
    for _ in range(n - 1):
        totals.append(fn(reps))
    return totals


GROW_ATTEMPTS = 6  # times the samples are taken again at a larger count before a measurement is given up


def run_samples(fn: TimedFn, config: HarnessConfig = HarnessConfig(), *, overhead_per_rep: float = 0.0,
                overhead_per_call: float = 0.0, reps: int | None = None, name: str = "",
                remeasure_overhead: Callable[[], float] | None = None) -> Timing:
    """Calibrate (unless ``reps`` is given), warm up, then take samples of one timed function.

    ``overhead_per_call`` is a fixed cost of every timed call (clock reads, waking threads), ``overhead_per_rep`` a
    cost of every repetition (a Python loop); both are subtracted. When the per-call cost is more than a small part
    of a sample the count is raised (up to ``config.max_sample_s`` a sample) and the samples taken again; when a
    sample is still mostly overhead the measurement fails (:class:`~rooflab.errors.OverheadDominates`) instead of
    dividing work by a tiny difference. A whole sample shorter than the per-call cost it paid shows that cost was
    measured while the threads were kept from starting (another process on their CPU): with
    ``remeasure_overhead`` it is measured again, and the lower figure kept.
    """
    warmup = config.warmup
    if reps is None:
        reps = calibrate(fn, config.min_sample_s, max_reps=config.max_reps)
        warmup = max(0, warmup - 1)  # the calibration runs already warmed caches, pages and the clock
    for _ in range(warmup):
        fn(reps)
    totals = _take(fn, reps, config.samples, config)
    last = GROW_ATTEMPTS - 1
    for attempt in range(GROW_ATTEMPTS):
        net = [net_per_rep(t, reps, overhead_per_call, overhead_per_rep) for t in totals]
        if all(x is not None for x in net):
            break
        lowered = False
        if remeasure_overhead is not None and min(totals) < overhead_per_call:
            again = remeasure_overhead()
            lowered = again < overhead_per_call
            overhead_per_call = min(overhead_per_call, again)
        grown = reps_for_overhead(reps, min(totals), overhead_per_call, config)
        if attempt == last or (grown == reps and not lowered):
            if overhead_per_rep * reps > MAX_REP_OVERHEAD_FRACTION * min(totals):
                raise OverheadDominates(name, overhead_per_rep, min(totals) / reps, 1, per_rep=True)
            raise OverheadDominates(name, overhead_per_call, min(totals), reps)
        reps = grown
        totals = _take(fn, reps, config.samples, config)
    return Timing(reps=reps, samples=net, raw=[t / reps for t in totals],
                  overhead_per_rep=overhead_per_rep + overhead_per_call / reps)


def run_interleaved(fns: Mapping[str, TimedFn], config: HarnessConfig = HarnessConfig(), *, rounds: int | None = None,
                    overheads: Mapping[str, float] | None = None, call_overheads: Mapping[str, float] | None = None,
                    min_sample_s: Mapping[str, float] | None = None, reps: Mapping[str, int] | None = None,
                    rotate: bool = True, bracket: str | None = None, budget: bool = False,
                    after: Mapping[str, Callable[[int], None]] | None = None, grow_once: bool = False
                    ) -> dict[str, Timing]:
    """Time alternatives in interleaved rounds, each round one sample of every alternative taken close together in
    time, so that per-round ratios cancel the machine's slow drift (frequency, other tenants). The one engine every
    paired measurement uses (two kernels compared, a GEMM rung against BLAS, the FMA peak against the clock chain).

    - Each alternative keeps its own calibrated repetition count (``reps`` fixes them; ``min_sample_s`` sets a
      target per alternative); a count whose fixed per-call cost (``call_overheads``) is more than a small part of a
      sample is raised first.
    - ``rotate``: the order turns every round (A B, B A, ...); otherwise it stays as given.
    - ``bracket``: this alternative is sampled once more, before the first round, and last in every round, so every
      sample of the others has one of it on each side (the clock around a peak sample); it returns rounds + 1
      samples.
    - ``budget``: the number of rounds is cut so that they last about ``config.budget_s`` (never below
      ``config.min_samples``); otherwise it is ``rounds`` or ``config.samples``.
    - ``after[name](i)`` is called right after the i-th kept sample of ``name`` (to read what the kernel reported
      about that call); calls made to calibrate or warm up are not reported.
    - ``overheads`` are costs per repetition, ``call_overheads`` per call; both are subtracted, and a sample that
      would be mostly overhead fails the measurement (:class:`~rooflab.errors.OverheadDominates`) or, with
      ``grow_once``, is taken once more at 16 times the repetitions.
    """
    names = list(fns)
    if not names:
        raise ValueError("nothing to time")
    if bracket is not None and bracket not in fns:
        raise ValueError(f"bracket {bracket!r} is not one of the alternatives")
    per_rep = dict(overheads or {})
    per_call = dict(call_overheads or {})
    targets = dict(min_sample_s or {})
    after = dict(after or {})
    if reps is not None:
        counts = {k: int(reps[k]) for k in names}
    else:
        counts = {k: calibrate(fns[k], targets.get(k, config.min_sample_s), max_reps=config.max_reps) for k in names}
        for k in names:
            if per_call.get(k):
                counts[k] = reps_for_overhead(counts[k], fns[k](counts[k]), per_call[k], config)
    order = [k for k in names if k != bracket] + ([bracket] if bracket is not None else [])
    for _ in range(config.warmup):
        for k in order:
            fns[k](counts[k])
    totals: dict[str, list[float]] = {k: [] for k in names}

    def sample(k: str) -> float:
        t = fns[k](counts[k])
        totals[k].append(t)
        if k in after:
            after[k](len(totals[k]) - 1)
        return t

    if bracket is not None:
        sample(bracket)
    n = rounds or config.samples
    r = 0
    while r < n:
        shift = r % len(order) if rotate else 0
        spent = sum(sample(k) for k in order[shift:] + order[:shift])
        if budget and r == 0 and spent > 0:
            n = max(config.min_samples, min(n, int(config.budget_s / spent)))
        r += 1
    out = {}
    for k in names:
        net = [net_per_rep(t, counts[k], per_call.get(k, 0.0), per_rep.get(k, 0.0)) for t in totals[k]]
        if any(x is None for x in net):
            if grow_once:  # the counts were calibrated on slow calls: once more, longer
                return run_interleaved(fns, config, rounds=rounds, overheads=overheads, call_overheads=call_overheads,
                                       reps={j: counts[j] * 16 for j in names}, rotate=rotate, bracket=bracket,
                                       budget=budget, after=after)
            if per_rep.get(k, 0.0) * counts[k] > MAX_REP_OVERHEAD_FRACTION * min(totals[k]):
                raise OverheadDominates(k, per_rep.get(k, 0.0), min(totals[k]) / counts[k], 1, per_rep=True)
            raise OverheadDominates(k, per_call.get(k, 0.0), min(totals[k]), counts[k])
        out[k] = Timing(reps=counts[k], samples=net, raw=[t / counts[k] for t in totals[k]],
                        overhead_per_rep=per_rep.get(k, 0.0) + per_call.get(k, 0.0) / counts[k])
    return out


_OVERHEAD: dict[int, float] = {}


def python_overhead(clock: Clock | None = None, config: HarnessConfig = HarnessConfig(min_sample_s=0.005,
                                                                                      samples=7, warmup=1)) -> float:
    """Per-call cost of the Python timing loop itself (an empty callable), to subtract from Python samples.
    Measured once per process and clock."""
    key = id(clock)
    if key not in _OVERHEAD:
        _OVERHEAD[key] = run_samples(python_timed(lambda: None, clock), config).summary.median
    return _OVERHEAD[key]


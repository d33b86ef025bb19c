"""Clocks, injectable so that timing code can be tested with exact, synthetic time."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float: ...


class MonotonicClock:
    """The real clock: ``time.perf_counter`` (monotonic, highest resolution available)."""

    def now(self) -> float:
        return time.perf_counter()

    def resolution(self) -> float:
        return time.get_clock_info("perf_counter").resolution


class FakeClock:
    """A clock that moves only when told to: tests drive it and can assert exact samples."""

    def __init__(self, start: float = 0.0):
        self.t = float(start)

    def now(self) -> float:
        return self.t

    def advance(self, dt: float) -> None:
        if dt < 0:
            raise ValueError("a clock does not go backwards")
        self.t += dt

    def resolution(self) -> float:
        return 0.0


def measured_resolution(clock: Clock, tries: int = 200) -> float:
    """Smallest non-zero step seen between consecutive readings (what a sample can actually resolve)."""
    best = float("inf")
    for _ in range(tries):
        t0 = clock.now()
        t1 = clock.now()
        while t1 == t0:
            t1 = clock.now()
        best = min(best, t1 - t0)
    return best

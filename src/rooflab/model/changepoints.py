"""Change points of a kernel's series across commits, each point weighted by its own uncertainty.

The search is ruptures' PELT (exact, linear in the series' length for a penalty like this one); the cost of a
segment is the weighted sum of squares of its points around their weighted mean, each point weighted by the inverse
of its variance, so that a point measured on a noisy runner moves a boundary less than a tight one. With the
weights in units of each point's own spread, a segment of one level costs about its length in chi-square terms,
and the penalty per change point is the number of such units a change must save: ``PENALTY`` was chosen so that
series without a change show one in well under 1% of cases. Instruction counts go through the same search with
their near-zero spread."""

from __future__ import annotations

import math

import numpy as np

# the penalty per change point, in chi-square units of the standardized series: at 18, 3 of 2,000 synthetic series of
# 30 points without a change showed one (0.15%), and a 5% step over a per-point spread of 1% in a series of 32 was
# found at its point in 979 of 1,000 (tests/unit/test_changepoints.py checks both on fewer series)
PENALTY = 18.0
MIN_SIGMA = 1e-12


def _cost_class():
    # ruptures (and the SciPy it imports) only when a history is read: `rooflab --help` stays fast
    import ruptures as rpt

    class WeightedL2(rpt.base.BaseCost):
        """Weighted sum of squares around the segment's weighted mean (O(1) per segment from prefix sums)."""

        model = "weighted_l2"
        min_size = 1

        def fit(self, signal):  # signal: (n, 2) of value and weight
            self.signal = signal
            y, w = signal[:, 0], signal[:, 1]
            self.sw = np.concatenate([[0.0], np.cumsum(w)])
            self.swy = np.concatenate([[0.0], np.cumsum(w * y)])
            self.swyy = np.concatenate([[0.0], np.cumsum(w * y * y)])
            return self

        def error(self, start, end):
            sw = self.sw[end] - self.sw[start]
            swy = self.swy[end] - self.swy[start]
            swyy = self.swyy[end] - self.swyy[start]
            return float(max(0.0, swyy - swy * swy / sw)) if sw > 0 else 0.0

    return rpt, WeightedL2


def change_points(values: list[float], sigmas: list[float], *, penalty: float = PENALTY) -> list[int]:
    """The indices at which a new level starts (none: one level throughout), for ``values`` each known to within
    its ``sigmas`` (standard deviations)."""
    n = len(values)
    if n < 2:
        return []
    y = np.asarray(values, dtype=float)
    s = np.maximum(np.asarray(sigmas, dtype=float), MIN_SIGMA)
    if not (np.all(np.isfinite(y)) and np.all(np.isfinite(s))):
        raise ValueError("change points need finite values and spreads")
    rpt, cost = _cost_class()
    algo = rpt.Pelt(custom_cost=cost(), min_size=1, jump=1).fit(np.column_stack([y, 1.0 / (s * s)]))
    return [b for b in algo.predict(pen=penalty) if b < n]


def log_spread(time_s: float, ci95: list[float] | None) -> float:
    """The standard deviation of log(time) a point's 95% interval implies (0 without one)."""
    if not ci95 or not (ci95[0] > 0 and ci95[1] > 0) or not time_s:
        return 0.0
    return (math.log(ci95[1]) - math.log(ci95[0])) / (2 * 1.96)


def between_runs_spread(logs: list[float]) -> float:
    """The spread of log(time) between points measured at different moments, from the series itself: the median
    absolute difference of neighbours (robust to the steps being looked for), as a standard deviation of one point."""
    if len(logs) < 3:
        return 0.0
    d = np.abs(np.diff(np.asarray(logs, dtype=float)))
    return float(np.median(d) / (0.6745 * math.sqrt(2)))

"""Change points of a series, each point weighted by its own spread (ruptures' PELT with a weighted cost): synthetic
series, so that what is found is known."""

import math

import numpy as np
import pytest

from rooflab.model.changepoints import PENALTY, between_runs_spread, change_points, log_spread


def _series(n: int, step_at: int | None, step: float, sigma: float, seed: int) -> list[float]:
    rng = np.random.default_rng(seed)
    y = rng.normal(0.0, sigma, n)
    if step_at is not None:
        y[step_at:] += step
    return list(y)


def test_a_series_without_a_change_rarely_shows_one():
    # 400 series of 30 points with a spread of 1%: the penalty keeps false alarms near 1% or under
    alarms = sum(bool(change_points(_series(30, None, 0.0, 0.01, seed), [0.01] * 30)) for seed in range(400))
    assert alarms <= 8, alarms


def test_a_step_of_five_spreads_is_found_where_it_is():
    hits = 0
    for seed in range(100):
        found = change_points(_series(32, 17, math.log(1.05), 0.01, seed), [0.01] * 32)
        hits += found == [17]
    assert hits >= 90, hits


def test_each_point_is_weighted_by_its_own_spread():
    # one wild point, known to be wild (its spread is 30 times the others'): no change point for it; the same
    # point given the others' spread is one
    y = [0.0] * 20
    y[10] = 0.3
    sig = [0.01] * 20
    assert change_points(y, sig) != []
    sig[10] = 0.3
    assert change_points(y, sig) == []


def test_counts_with_their_near_zero_spread_show_any_change():
    counts = [1000.0] * 10 + [1001.0] * 10  # one instruction more per call: real, and found
    assert change_points(counts, [max(1e-4 * c, 1e-3) for c in counts]) == [10]
    assert change_points([5.0] * 12, [1e-4] * 12) == []


def test_edges_and_bad_input():
    assert change_points([], []) == [] and change_points([1.0], [0.1]) == []
    with pytest.raises(ValueError):
        change_points([1.0, float("nan")], [0.1, 0.1])
    assert log_spread(1.0, [math.exp(-1.96 * 0.05), math.exp(1.96 * 0.05)]) == pytest.approx(0.05)
    assert log_spread(1.0, None) == 0.0 and log_spread(1.0, [0.0, 1.0]) == 0.0
    # the spread between runs, robust to the steps it sits among
    y = _series(200, 100, 1.0, 0.02, 1)
    assert 0.015 < between_runs_spread(y) < 0.03
    assert PENALTY > 0

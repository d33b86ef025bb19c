"""Find the bandwidth plateaus (L1, L2, L3, DRAM) in a working-set sweep (pure).

The curve log(bandwidth) vs log(size) is cut into piecewise-constant segments by least squares (dynamic
programming), the number of segments chosen by a BIC-style penalty; neighbours that differ by less than
``merge_ratio`` are joined (by less than half of it when both are long). Short transition segments between two
plateaus are dropped. Each plateau is then named by comparing the size where it ends with the caches the OS reports:
the plateau that ends near a level's capacity is that level; the one past the last cache is DRAM. The cache sizes
only name the plateaus, they do not place them; each edge is placed on the curve (see :func:`refine_boundaries`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np


@dataclass
class Plateau:
    first: int  # index of the first point (in the sorted sweep)
    last: int  # index of the last point
    sizes: list[float]
    values: list[float]
    level: str = "?"
    expected_bytes: float | None = None  # the capacity it was matched to
    faster_bytes: float | None = None  # the capacity of the level just faster than that one (none for L1)
    boundary_bytes: float | None = None  # where the curve leaves this plateau (None for the last one)
    edge_check: dict | None = None  # a second sweep's verdict on an edge far from the OS's size (confirm_edge)

    @property
    def median(self) -> float:
        return float(np.median(self.values))

    @property
    def start_bytes(self) -> float:
        return self.sizes[0]

    @property
    def end_bytes(self) -> float:
        return self.sizes[-1]

    @property
    def edge_bytes(self) -> float:
        """Where this level's capacity runs out: the transition to the next plateau, else the last point."""
        return self.boundary_bytes or self.end_bytes

    @property
    def center_bytes(self) -> float:
        return math.sqrt(self.sizes[0] * self.sizes[-1])

    @property
    def inner_bytes(self) -> float:
        """Where to measure this level's ceiling: three quarters of the way up the plateau (in log size), past the
        small sets whose per-pass overheads weigh (an L1 triad at 10 KiB ran 0.7x its rate at 15 KiB), clear of the
        edge to the next level."""
        return math.sqrt(self.center_bytes * self.sizes[-1])

    @property
    def ceiling_bytes(self) -> float:
        """The working set this level's ceiling is measured at: :attr:`inner_bytes`; for L1, kept between 0.6 and 0.7
        of the edge where the curve leaves the plateau (or of the capacity, when that is smaller). The plateau's own points are a coarse sweep's (an octave
        apart), so where it ends moves by a whole step from run to run, while the edge is interpolated on the curve.
        That matters in L1 only, where a pass over the set lasts tens of nanoseconds and its loop start weighs: an L1
        copy ceiling taken at 13 KiB (a plateau that ended at 16 KiB) ran 0.65x one taken at 22 KiB (one that ended at
        32 KiB). Further out, a pass lasts microseconds, and sets nearer the edge ran slower (an L3 copy at 12-18 MiB:
        0.65-0.85x its rate at 5 MiB): in L2 and L3 the ceiling stays within a quarter of the capacity (and in the
        plateau)."""
        if self.level == "DRAM" or self.level == "?":
            return self.inner_bytes
        if self.level != "L1":
            # never past a quarter of the level's capacity: a plateau a burst stretched towards the edge (a 1-thread
            # L3 plateau read to 23 MiB of 32, where the rate falls: 0.64x) must not carry its ceiling with it; nor
            # under twice the faster level's, where part of the set is still served by it: a plateau a burst started
            # early (a 2-thread L3 copy taken at 2.4 MiB, beside 2 MiB of L2, ran 0.81x the quiet runs' at 5.7-8 MiB)
            at = self.inner_bytes
            if self.expected_bytes:
                at = min(at, max(self.start_bytes, self.expected_bytes / 4))
                if self.faster_bytes and 2 * self.faster_bytes < self.expected_bytes / 4:
                    at = max(at, 2 * self.faster_bytes)
            return at
        edge = self.boundary_bytes or self.end_bytes
        inside = min(edge, self.expected_bytes or edge)  # the edge, or the capacity when that is smaller
        return min(max(self.inner_bytes, 0.6 * inside), 0.7 * inside)

    def to_dict(self) -> dict:
        d = {"level": self.level, "start_bytes": self.start_bytes, "end_bytes": self.end_bytes,
             "center_bytes": self.center_bytes, "boundary_bytes": self.boundary_bytes, "median": self.median,
             "points": len(self.values), "expected_bytes": self.expected_bytes}
        if self.edge_check is not None:
            d["edge_check"] = self.edge_check
        return d


def _segment_cost(prefix: np.ndarray, prefix2: np.ndarray, i: int, j: int) -> float:
    """Sum of squared deviations from the mean of y[i:j]."""
    n = j - i
    s = prefix[j] - prefix[i]
    s2 = prefix2[j] - prefix2[i]
    return max(0.0, s2 - s * s / n)


def segment(y: Sequence[float], k: int) -> tuple[float, list[tuple[int, int]]]:
    """Best split of y into k contiguous segments (least squares); returns (cost, [(start, end_exclusive), ...])."""
    y = np.asarray(y, float)
    n = len(y)
    if k < 1 or k > n:
        raise ValueError("need 1 <= k <= len(y)")
    prefix = np.concatenate([[0.0], np.cumsum(y)])
    prefix2 = np.concatenate([[0.0], np.cumsum(y * y)])
    inf = float("inf")
    cost = np.full((k + 1, n + 1), inf)
    back = np.zeros((k + 1, n + 1), int)
    cost[0, 0] = 0.0
    for m in range(1, k + 1):
        for j in range(m, n + 1):
            best, arg = inf, 0
            for i in range(m - 1, j):
                c = cost[m - 1, i] + _segment_cost(prefix, prefix2, i, j)
                if c < best:
                    best, arg = c, i
            cost[m, j], back[m, j] = best, arg
    segs = []
    j = n
    for m in range(k, 0, -1):
        i = back[m, j]
        segs.append((i, j))
        j = i
    return float(cost[k, n]), segs[::-1]


def find_plateaus(sizes: Sequence[float], bandwidths: Sequence[float], *, max_segments: int = 7,
                  merge_ratio: float = 0.12, noise_floor: float = 0.03, long_points: int = 4) -> list[Plateau]:
    """Plateaus of a sweep, smallest working set first (not yet named; see :func:`name_plateaus`)."""
    order = np.argsort(sizes)
    xs = np.asarray(sizes, float)[order]
    bw = np.asarray(bandwidths, float)[order]
    if len(xs) == 0:
        return []
    y = np.log(bw)
    n = len(y)
    best = None
    for k in range(1, min(max_segments, n) + 1):
        c, segs = segment(y, k)
        # BIC with a floor on the residual variance, so that noise below ~3% never buys an extra segment
        var = max(c / n, noise_floor ** 2)
        score = n * math.log(var) + 3.0 * k * math.log(n)
        if best is None or score < best[0]:
            best = (score, segs)
    segs = best[1]
    # merge neighbours whose levels differ by less than merge_ratio; two long segments (each of at least
    # long_points points) keep apart down to half of it, as an L2 and an L3 only ~10% apart do (Zen 4 read)
    merged: list[list[int]] = []
    for a, b in segs:
        if merged:
            pa, pb = merged[-1]
            gap = abs(np.median(y[pa:pb]) - np.median(y[a:b]))
            both_long = pb - pa >= long_points and b - a >= long_points
            if gap < math.log1p(merge_ratio / 2 if both_long else merge_ratio):
                merged[-1][1] = b
                continue
        merged.append([a, b])
    # a short segment (under 3 points) whose level lies between its neighbours' is the slope from one plateau
    # down to the next, not a plateau of its own
    def transitional(idx: int) -> bool:
        if idx == 0 or idx == len(merged) - 1 or merged[idx][1] - merged[idx][0] >= 3:
            return False
        lv = [float(np.median(y[a:b])) for a, b in merged[idx - 1:idx + 2]]
        return min(lv[0], lv[2]) <= lv[1] <= max(lv[0], lv[2])

    keep = [s for idx, s in enumerate(merged) if not transitional(idx)]
    out = []
    for a, b in keep:
        out.append(Plateau(first=a, last=b - 1, sizes=[float(v) for v in xs[a:b]], values=[float(v) for v in bw[a:b]]))
    refine_boundaries(out, xs, bw)
    return out


def refinement_sizes(plateaus: list[Plateau], step: float, *, max_per_edge: int = 4,
                     existing: Sequence[float] = ()) -> list[float]:
    """Extra working sets around each edge between two plateaus, from one coarse step (a factor sqrt(2)) below the
    end of the first plateau to one above the start of the next, where the coarse sweep has a single noisy sample
    to place the edge with.

    With the ``existing`` sizes, each interval between two of them in that range is cut into parts about ``step``
    (a factor) wide, the intervals nearest the edge first; without, a grid ``step`` apart covers the range. An edge
    gets at most ``max_per_edge`` points."""
    out: set[float] = set()
    have = sorted(float(x) for x in existing)
    for p, q in zip(plateaus, plateaus[1:]):
        lo, hi = p.end_bytes / math.sqrt(2.0) * (1 - 1e-9), q.start_bytes * math.sqrt(2.0) * (1 + 1e-9)
        pairs = [(a, b) for a, b in zip(have, have[1:]) if a >= lo and b <= hi]
        if pairs:
            split = math.log(p.end_bytes * q.start_bytes) / 2
            budget = max_per_edge
            for a, b in sorted(pairs, key=lambda ab: abs(math.log(ab[0] * ab[1]) / 2 - split)):
                m = max(1, round(math.log(b / a) / math.log(step)))
                take = min(m - 1, budget)
                out.update(a * (b / a) ** (i / m) for i in range(1, take + 1))
                budget -= take
            continue
        st = max(step, (hi / lo) ** (1.0 / max(1, max_per_edge - 1)))
        k = int(math.floor(math.log(hi / lo) / math.log(st) + 1e-9))
        out.update(lo * st ** i for i in range(k + 1))
    return sorted(out)


def refine_boundaries(plateaus: list[Plateau], sizes: Sequence[float], bandwidths: Sequence[float]) -> None:
    """Place each plateau's edge on a sweep that may hold more points than the one the plateaus were cut from
    (the coarse sweep plus :func:`refinement_sizes`)."""
    order = np.argsort(sizes)
    xs = np.asarray(sizes, float)[order]
    smooth = _median3(np.asarray(bandwidths, float)[order])
    for p, q in zip(plateaus, plateaus[1:]):
        p.boundary_bytes = _crossing(xs, smooth, p, q)


def _median3(v: np.ndarray) -> np.ndarray:
    """Running median of three (ends kept): one sample hit by noise next to an edge would otherwise move the edge
    by a whole sweep step, while a real, monotone drop passes through unchanged."""
    out = np.array(v, float)
    if len(out) >= 3:
        out[1:-1] = np.median(np.stack([v[:-2], v[1:-1], v[2:]]), axis=0)
    return out


def _crossing(xs: np.ndarray, bw: np.ndarray, p: Plateau, q: Plateau) -> float:
    """The working set where the (smoothed) curve passes the geometric mean of two neighbouring plateaus (log-log
    interpolation between the sweep points around it).

    The crossing is looked for across both plateaus, not only between them: a noisy point can be counted into the
    wrong plateau, and the curve then crosses one step further. Where noise makes it cross more than once, the
    crossing nearest the split between the plateaus is taken."""
    split = math.log(math.sqrt(p.end_bytes * q.start_bytes))
    got = _crossing_near(xs, bw, p.median, q.median, p.start_bytes, q.end_bytes, split)
    return float(math.exp(split)) if got is None else got


# An edge this far (a factor) from the capacity the OS reports is measured again before it is reported: a burst of
# other work during the sweep can make one; two sweeps agree when their edges are within EDGE_AGREE of each other.
EDGE_FACTOR = 1.5
EDGE_AGREE = 1.4


def edge_suspect(p: Plateau) -> bool:
    """Whether a named plateau's edge is too far from its cache's capacity to report on one sweep's word."""
    if p.level in ("?", "DRAM") or not p.expected_bytes or not p.boundary_bytes:
        return False
    return abs(math.log(p.boundary_bytes / p.expected_bytes)) > math.log(EDGE_FACTOR)


def edge_window(p: Plateau) -> tuple[float, float]:
    """The working sets a second sweep covers for a suspect edge: from below the lower of the edge and the capacity
    to above the higher."""
    a, b = sorted((p.boundary_bytes, p.expected_bytes))
    return a / EDGE_FACTOR, b * EDGE_FACTOR


def confirm_edge(p: Plateau, q: Plateau, sizes: Sequence[float], bandwidths: Sequence[float]) -> dict:
    """Judge a suspect edge between ``p`` and the next plateau ``q`` by a second sweep around it (``sizes``,
    ``bandwidths``): where the second sweep crosses between the two plateaus' levels within EDGE_AGREE of the
    first edge, the edge is confirmed and placed on the second, denser sweep; otherwise the capacity the OS reports
    stands in for it, marked unconfirmed. Returns the verdict (also kept in ``p.edge_check``)."""
    first = p.boundary_bytes
    order = np.argsort(sizes)
    xs = np.asarray(sizes, float)[order]
    bw = _median3(np.asarray(bandwidths, float)[order])
    second = (_crossing_near(xs, bw, p.median, q.median, float(xs[0]), float(xs[-1]), math.log(first))
              if len(xs) >= 2 else None)
    confirmed = second is not None and abs(math.log(second / first)) <= math.log(EDGE_AGREE)
    p.edge_check = {"first_bytes": first, "second_bytes": second, "os_bytes": p.expected_bytes,
                    "confirmed": confirmed}
    p.boundary_bytes = second if confirmed else p.expected_bytes
    return p.edge_check


def _crossing_near(xs: np.ndarray, bw: np.ndarray, high: float, low: float, start: float, end: float,
                   near: float) -> float | None:
    """Where the curve passes between two levels (their geometric mean) for working sets from ``start`` to
    ``end``, the crossing nearest ``near`` (a log size) when there are several; None when it never does."""
    mid = math.sqrt(high * low)
    falling = low < high
    split = near
    lo = int(np.searchsorted(xs, start, side="left"))
    hi = int(np.searchsorted(xs, end, side="right")) - 1
    found = []
    for i in range(lo, hi):
        y0, y1 = bw[i], bw[i + 1]
        if (falling and y0 >= mid >= y1) or (not falling and y0 <= mid <= y1):
            if y0 == y1:
                x = math.log(math.sqrt(xs[i] * xs[i + 1]))
            else:
                f = (math.log(mid) - math.log(y0)) / (math.log(y1) - math.log(y0))
                x = math.log(xs[i]) + f * (math.log(xs[i + 1]) - math.log(xs[i]))
            found.append(x)
    if not found:
        return None
    return float(math.exp(min(found, key=lambda x: abs(x - split))))


def name_plateaus(plateaus: list[Plateau], caches: dict[str, float], *, max_factor: float = 4.0) -> list[Plateau]:
    """Name plateaus L1, L2, L3 ... DRAM from where each one ends, compared with the cache capacities.

    ``caches`` maps level names ("L1", "L2", "L3") to the capacity the sweep's threads see together (private caches
    multiplied by the thread count). A plateau ending within ``max_factor`` of a capacity (and before the next one)
    is that level; the last plateau, when it reaches twice the largest cache, is DRAM; anything else is "?".
    """
    levels = sorted(caches.items(), key=lambda kv: kv[1])
    used: set[str] = set()
    for i, p in enumerate(plateaus):
        is_last = i == len(plateaus) - 1
        # the last plateau, reaching well past the largest cache, is served by memory
        if is_last and len(plateaus) > 1 and (not levels or p.end_bytes >= 2 * levels[-1][1]):
            p.level = "DRAM"
            continue
        # the capacity closest (in log space) to where this plateau ends
        best = None
        for name, cap in levels:
            if name in used:
                continue
            dist = abs(math.log(p.edge_bytes / cap))
            if dist <= math.log(max_factor) and (best is None or dist < best[0]):
                best = (dist, name, cap)
        if best is not None:
            p.level, p.expected_bytes = best[1], best[2]
            p.faster_bytes = max((cap for _, cap in levels if cap < best[2]), default=None)
            used.add(best[1])
    return plateaus


def sweep_sizes(lo: float, hi: float, points_per_octave: float) -> list[int]:
    """Working sets from ``lo`` to ``hi`` spaced evenly on a log scale (a CPU's and a GPU's sweep alike)."""
    k = int(round(math.log2(hi / lo) * points_per_octave))
    return sorted({int(lo * 2 ** (i / points_per_octave)) for i in range(k + 1)})


def named_plateaus(sizes: Sequence[float], bandwidths: Sequence[float], caches: dict[str, float]) -> list[Plateau]:
    """The plateaus of a bandwidth sweep, each named after the memory level whose capacity its edge matches."""
    return name_plateaus(find_plateaus(sizes, bandwidths), caches)

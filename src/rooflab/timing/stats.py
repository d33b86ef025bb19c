"""Pure statistics on timing samples: no clock, no I/O.

Timing samples on a shared machine are skewed to the right (interruptions only ever add time), so rooflab reports
medians with distribution-free confidence intervals (order statistics: exact coverage at any n, where a bootstrap
of 3 samples, called 95%, covers about 77%) rather than means with normal-theory intervals. With fewer than 6
samples no interval reaches 95%: the full range is given with its true coverage (``ci_level``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

DEFAULT_SEED = 20240607


@dataclass(frozen=True)
class Summary:
    n: int
    median: float
    mean: float
    min: float
    max: float
    mad: float  # median absolute deviation (unscaled)
    iqr: float
    ci95: tuple[float, float]  # distribution-free CI of the median (order statistics)
    cv: float  # robust coefficient of variation: 1.4826 * MAD / median
    ci_level: float = 0.95  # the interval's exact coverage: below 0.95 when there are too few samples for 95%

    def rate(self, work: float) -> tuple[float, list[float]]:
        """``work`` per second at the median time, and its interval (the time's interval, inverted)."""
        return work / self.median, [work / self.ci95[1], work / self.ci95[0]]

    def to_dict(self) -> dict:
        return {
            "n": self.n, "median": self.median, "mean": self.mean, "min": self.min, "max": self.max,
            "mad": self.mad, "iqr": self.iqr, "ci95": list(self.ci95), "cv": self.cv, "ci_level": self.ci_level,
        }


def _arr(samples: Sequence[float]) -> np.ndarray:
    a = np.asarray(samples, dtype=float)
    if a.ndim != 1 or a.size == 0:
        raise ValueError("need a non-empty 1-D sequence of samples")
    if not np.all(np.isfinite(a)):
        raise ValueError("samples must be finite")
    return a


def median(samples: Sequence[float]) -> float:
    return float(np.median(_arr(samples)))


def mad(samples: Sequence[float]) -> float:
    """Median absolute deviation from the median, unscaled (scipy's ``median_abs_deviation`` default)."""
    a = _arr(samples)
    return float(np.median(np.abs(a - np.median(a))))


def iqr(samples: Sequence[float]) -> float:
    a = _arr(samples)
    q75, q25 = np.percentile(a, [75, 25])
    return float(q75 - q25)


def bootstrap_median_ci(samples: Sequence[float], *, confidence: float = 0.95, resamples: int = 2000,
                        seed: int = DEFAULT_SEED) -> tuple[float, float]:
    """Percentile bootstrap confidence interval of the median (seeded, so reports are reproducible)."""
    a = _arr(samples)
    if a.size == 1:
        return (float(a[0]), float(a[0]))
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, a.size, size=(resamples, a.size))
    meds = np.median(a[idx], axis=1)
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(meds, [alpha, 1.0 - alpha])
    return (float(lo), float(hi))


def _binom_half_pmf(n: int, j: int) -> float:
    """P(Binom(n, 1/2) = j), in log space (no overflow for thousands of rounds)."""
    return math.exp(math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1) - n * math.log(2.0))


def _order_k(n: int, confidence: float) -> int:
    """Largest k with P(Binom(n, 1/2) <= k-1) <= alpha/2: the interval [x_(k), x_(n-k+1)] (1-based); 0: none."""
    alpha = 1.0 - confidence
    cdf, k = 0.0, 0
    for j in range(n + 1):
        p = _binom_half_pmf(n, j)
        if cdf + p > alpha / 2.0:
            break
        cdf += p
        k = j + 1
    return k


def median_ci_level(n: int, confidence: float = 0.95) -> float:
    """The exact coverage of :func:`order_statistic_median_ci` for n samples: at least ``confidence`` when n is large
    enough (6 for 95%), else the coverage of the full range, 1 - 2 / 2^n (75% for 3 samples)."""
    k = _order_k(n, confidence)
    if k == 0:
        return 1.0 - 2.0 * 0.5 ** n if n > 0 else 0.0
    return 1.0 - 2.0 * sum(_binom_half_pmf(n, j) for j in range(k))


def order_statistic_median_ci(samples: Sequence[float], confidence: float = 0.95) -> tuple[float, float]:
    """Distribution-free CI of the median from order statistics (binomial; coverage >= ``confidence``).

    For n < 6 no pair of order statistics reaches 95%; the full range is returned then, and
    :func:`median_ci_level` says how much it covers.
    """
    a = np.sort(_arr(samples))
    n = a.size
    k = _order_k(n, confidence)
    if k == 0:
        return (float(a[0]), float(a[-1]))
    return (float(a[k - 1]), float(a[n - k]))


def summarize(samples: Sequence[float], *, seed: int = DEFAULT_SEED) -> Summary:
    a = _arr(samples)
    med = float(np.median(a))
    m = mad(a)
    return Summary(
        n=int(a.size), median=med, mean=float(a.mean()), min=float(a.min()), max=float(a.max()), mad=m,
        iqr=iqr(a), ci95=order_statistic_median_ci(a), ci_level=min(0.95, median_ci_level(int(a.size))),
        cv=(1.4826 * m / med) if med > 0 else float("inf"),
    )


@dataclass(frozen=True)
class Comparison:
    """B relative to A from paired, interleaved rounds. ``ratio`` > 1 means B takes longer than A."""

    rounds: int
    ratio: float  # median of per-round time ratios t_B / t_A
    ci95: tuple[float, float]
    threshold: float  # smallest relative change called a difference
    verdict: str  # "faster", "slower" or "no difference" (B against A)

    @property
    def speedup(self) -> float:
        """How many times faster B is than A (A's time / B's time)."""
        return 1.0 / self.ratio

    def to_dict(self) -> dict:
        return {"rounds": self.rounds, "ratio": self.ratio, "ci95": list(self.ci95), "threshold": self.threshold,
                "verdict": self.verdict, "speedup": self.speedup,
                "speedup_ci95": [1.0 / self.ci95[1], 1.0 / self.ci95[0]]}


def paired_ratio(times_a: Sequence[float], times_b: Sequence[float], *, threshold: float = 0.02,
                 confidence: float = 0.95) -> Comparison:
    """Compare two alternatives timed in interleaved rounds (A B A B ...).

    Each round gives a ratio t_B/t_A, so slow drift of the machine cancels out. The CI of the median ratio comes from
    order statistics (exact coverage, no normality assumed). B is called different from A only when the whole CI
    lies beyond ``threshold`` (a relative change, 2% by default): identical code then reads "no difference" far more
    often than 95% of the time, while a real change larger than the threshold and the noise is still found.
    """
    a = _arr(times_a)
    b = _arr(times_b)
    if a.size != b.size:
        raise ValueError(f"paired comparison needs the same number of rounds ({a.size} vs {b.size})")
    if np.any(a <= 0) or np.any(b <= 0):
        raise ValueError("times must be positive")
    r = b / a
    med = float(np.median(r))
    lo, hi = order_statistic_median_ci(r, confidence)
    return Comparison(rounds=int(a.size), ratio=med, ci95=(lo, hi), threshold=threshold,
                      verdict=verdict(lo, hi, threshold))


def verdict(lo: float, hi: float, threshold: float) -> str:
    """B against A from the CI [lo, hi] of time ratio B/A: a difference only when the whole CI lies beyond the
    threshold (slower: above 1 + threshold; faster: below 1 / (1 + threshold))."""
    if lo > 1.0 + threshold:
        return "slower"
    if hi < 1.0 / (1.0 + threshold):
        return "faster"
    return "no difference"


def unpaired_ratio(times_a: Sequence[float], times_b: Sequence[float], *, threshold: float = 0.02,
                   confidence: float = 0.95, resamples: int = 4000, seed: int = DEFAULT_SEED) -> Comparison:
    """Compare samples that were not taken in alternation (e.g. two stored runs): the ratio of medians
    median(B)/median(A) with a bootstrap CI that resamples each side independently. The verdict rule is the one of
    :func:`paired_ratio`; without pairing, drift between the runs is not cancelled, so the CI is wider."""
    a = _arr(times_a)
    b = _arr(times_b)
    if np.any(a <= 0) or np.any(b <= 0):
        raise ValueError("times must be positive")
    rng = np.random.default_rng(seed)
    ma = np.median(a[rng.integers(0, a.size, (resamples, a.size))], axis=1)
    mb = np.median(b[rng.integers(0, b.size, (resamples, b.size))], axis=1)
    alpha = (1.0 - confidence) / 2.0
    lo, hi = (float(x) for x in np.quantile(mb / ma, [alpha, 1.0 - alpha]))
    med = float(np.median(b) / np.median(a))
    return Comparison(rounds=int(min(a.size, b.size)), ratio=med, ci95=(lo, hi), threshold=threshold,
                      verdict=verdict(lo, hi, threshold))

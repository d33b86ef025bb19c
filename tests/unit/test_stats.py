import numpy as np
import pytest
from scipy import stats as sps

from rooflab.timing import stats


def test_median_mad_iqr_match_scipy():
    rng = np.random.default_rng(1)
    x = rng.lognormal(0.0, 0.3, 101)
    assert stats.median(x) == pytest.approx(np.median(x))
    assert stats.mad(x) == pytest.approx(sps.median_abs_deviation(x))
    assert stats.iqr(x) == pytest.approx(sps.iqr(x))


def test_bootstrap_ci_close_to_scipy_percentile_bootstrap():
    rng = np.random.default_rng(2)
    x = rng.normal(10.0, 1.0, 200)
    lo, hi = stats.bootstrap_median_ci(x, resamples=4000)
    ref = sps.bootstrap((x,), np.median, confidence_level=0.95, n_resamples=4000, method="percentile",
                        random_state=np.random.default_rng(3)).confidence_interval
    assert lo < np.median(x) < hi
    assert lo == pytest.approx(ref.low, abs=0.06)
    assert hi == pytest.approx(ref.high, abs=0.06)


def test_bootstrap_is_reproducible_and_handles_one_sample():
    x = [3.0, 1.0, 2.0, 5.0, 4.0]
    assert stats.bootstrap_median_ci(x) == stats.bootstrap_median_ci(x)
    assert stats.bootstrap_median_ci([7.0]) == (7.0, 7.0)


def test_order_statistic_ci_indices_for_n20():
    # n = 20: the classic distribution-free 95% interval of the median is [x(6), x(15)]
    x = np.arange(1.0, 21.0)
    assert stats.order_statistic_median_ci(x) == (6.0, 15.0)
    # too few samples for 95%: the full range
    assert stats.order_statistic_median_ci([1.0, 2.0, 3.0]) == (1.0, 3.0)


def test_order_statistic_ci_coverage_at_least_nominal():
    rng = np.random.default_rng(4)
    true_median = np.exp(0.0)  # lognormal(0, s) has median 1
    hits = 0
    trials = 2000
    for _ in range(trials):
        lo, hi = stats.order_statistic_median_ci(rng.lognormal(0.0, 0.5, 15))
        hits += lo <= true_median <= hi
    assert hits / trials >= 0.95


def test_summary_fields():
    s = stats.summarize([1.0, 2.0, 3.0, 4.0, 100.0])
    assert s.n == 5 and s.median == 3.0 and s.min == 1.0 and s.max == 100.0
    assert s.mad == 1.0
    assert s.cv == pytest.approx(1.4826 / 3.0)
    assert s.ci95[0] <= s.median <= s.ci95[1]


def test_invalid_samples_rejected():
    with pytest.raises(ValueError):
        stats.summarize([])
    with pytest.raises(ValueError):
        stats.summarize([1.0, float("nan")])


def _noisy_pair(rng, n, shift=1.0, drift=True):
    base = 1e-3 * (1 + (0.2 * np.sin(np.arange(n) / 3.0) if drift else 0))  # machine drift, shared by A and B
    a = base * rng.lognormal(0.0, 0.03, n)
    b = base * shift * rng.lognormal(0.0, 0.03, n)
    return a, b


def test_identical_code_is_called_no_difference_at_least_19_of_20():
    rng = np.random.default_rng(5)
    verdicts = [stats.paired_ratio(*_noisy_pair(rng, 20)).verdict for _ in range(20)]
    assert verdicts.count("no difference") >= 19
    # and over many more A/A trials, at least 95%
    many = [stats.paired_ratio(*_noisy_pair(rng, 20)).verdict for _ in range(1000)]
    assert many.count("no difference") / len(many) >= 0.95


@pytest.mark.parametrize("shift,expected", [(1.10, "slower"), (1 / 1.10, "faster")])
def test_known_shift_is_detected(shift, expected):
    rng = np.random.default_rng(6)
    verdicts = [stats.paired_ratio(*_noisy_pair(rng, 30, shift)).verdict for _ in range(50)]
    assert verdicts.count(expected) >= 48


def test_paired_ratio_reports_speedup_and_ci():
    a = [2.0] * 10
    b = [1.0] * 10
    c = stats.paired_ratio(a, b)
    assert c.ratio == 0.5 and c.speedup == 2.0 and c.verdict == "faster"
    d = c.to_dict()
    assert d["speedup_ci95"] == [2.0, 2.0]


def test_paired_ratio_rejects_mismatched_rounds():
    with pytest.raises(ValueError):
        stats.paired_ratio([1.0, 2.0], [1.0])
    with pytest.raises(ValueError):
        stats.paired_ratio([1.0, 0.0], [1.0, 1.0])


def test_the_median_interval_covers_what_it_says_even_with_three_samples():
    """Coverage on synthetic samples (a skewed distribution, as timings are): the interval contains the true
    median at least as often as its stated level, at every n the quick settings allow."""
    from rooflab.timing.stats import summarize

    rng = np.random.default_rng(7)
    true_median = float(np.log(2.0))  # of the exponential distribution with rate 1
    for n in (3, 4, 5, 6, 7, 11):
        hits = 0
        trials = 3000
        level = None
        for _ in range(trials):
            s = summarize(rng.exponential(1.0, n))
            level = s.ci_level
            hits += s.ci95[0] <= true_median <= s.ci95[1]
        assert hits / trials >= level - 0.02, (n, hits / trials, level)
        assert (level < 0.95) == (n < 6)


def test_order_statistics_do_not_overflow_with_thousands_of_rounds():
    from rooflab.timing.stats import order_statistic_median_ci, paired_ratio

    r = np.random.default_rng(3).random(5000) + 1.0
    lo, hi = order_statistic_median_ci(r)
    assert lo < float(np.median(r)) < hi
    assert paired_ratio(r, r).verdict == "no difference" and paired_ratio(r, 1.5 * r).verdict == "slower"


def test_a_rate_and_its_interval_come_from_the_times_inverted():
    s = stats.summarize([1.0, 2.0, 2.0, 2.0, 4.0, 2.0, 2.0, 2.0, 2.0, 2.0])
    rate, ci = s.rate(10.0)
    assert rate == pytest.approx(10.0 / s.median) and ci == [pytest.approx(10.0 / s.ci95[1]),
                                                             pytest.approx(10.0 / s.ci95[0])]
    assert ci[0] <= rate <= ci[1]  # the slow end of the time is the low end of the rate

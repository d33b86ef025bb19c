from rooflab.timing import checks


def test_spread_warning_names_seen_threshold_and_remedy():
    assert checks.check_spread(0.01, 15) is None
    w = checks.check_spread(0.081, 15, subject="triad")
    assert w.code == "high-spread" and w.seen == 0.081 and w.threshold == 0.05
    assert "8.1%" in w.message and "15 samples" in w.message and "5%" in w.message
    assert "taskset" in w.remedy


def test_competing_load_from_cpu_accounting_and_steal():
    assert checks.check_competing_load(0.05, 2) is None
    w = checks.check_competing_load(0.9, 2)
    assert w.code == "competing-load" and "0.90 core" in w.message and "quiet" in w.remedy
    assert "1.8x" in w.message  # 2 / (2 - 0.9)
    s = checks.check_competing_load(0.0, 2, steal_cores=0.5)
    assert s is not None and "steal" in s.message


def test_load_average_alone_does_not_warn_but_is_reported():
    # the 1-minute average lags: high right after our own heavy run, with nothing else running
    assert checks.check_competing_load(0.0, 2, loadavg1=2.5, own_threads=1) is None
    w = checks.check_competing_load(0.8, 2, loadavg1=2.5, own_threads=1)
    assert w is not None and "load average 2.50 with 1 thread(s) of ours" in w.message


def test_timer_resolution_check():
    assert checks.check_timer_resolution(1e-9, 0.01) is None
    w = checks.check_timer_resolution(1e-6, 1e-4)
    assert w.code == "coarse-timer" and abs(w.seen - 0.01) < 1e-12 and "--min-sample" in w.remedy


def test_physical_limit_check():
    assert checks.check_physical_limit(101.0, 100.0, what="fp32 peak") is None
    w = checks.check_physical_limit(110.0, 100.0, what="fp32 peak")
    assert w.code == "above-limit" and "110.0%" in w.message and "not used as a roof" in w.remedy


def test_thread_scaling_and_clock_stability():
    assert checks.check_thread_scaling(100.0, 195.0, 2) is None
    w = checks.check_thread_scaling(100.0, 101.0, 2, subject="fp32 FMA")
    assert w.code == "shared-cores" and "1.01x one thread" in w.message and "50% efficiency" in w.message
    assert checks.check_clock_stability([3.5e9, 3.49e9, 3.52e9]) is None
    c = checks.check_clock_stability([3.6e9, 1.8e9], subject="k")
    assert c.code == "unstable-clock" and "1.80–3.60 GHz" in c.message and "50%" in c.message

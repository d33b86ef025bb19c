"""Measurement tasks that run inside the worker process (picklable functions of plain arguments).

Each task allocates its own data, checks the kernel's result against a reference before timing it, and returns
plain dicts of per-repetition samples. Nothing here prints or touches the store.
"""

from __future__ import annotations

import ctypes
import dataclasses
import math
import time
from typing import Callable

import numpy as np
from threadpoolctl import ThreadpoolController, threadpool_limits

from rooflab.errors import OverheadDominates, RooflabError, WrongResult
from rooflab.timing.harness import (HarnessConfig, Timing, calibrate, python_overhead, python_timed,
                                    python_timed_running, run_interleaved, run_samples)
from rooflab.timing.memory import aligned_array
from rooflab.timing.stats import order_statistic_median_ci


def _fn(lib: str, symbol: str, argtypes: list) -> ctypes._CFuncPtr:
    f = getattr(ctypes.CDLL(lib), symbol)
    f.restype = ctypes.c_double
    f.argtypes = argtypes
    return f


def _checked(name: str, f):
    def run(*a):
        t = f(*a)
        if t < 0:
            raise RooflabError(f"{name} reported error code {t:g} (threads could not be started?)")
        return t
    return run


def running_reader(lib: str):
    """A function returning the running fraction of the library's last parallel call (``rl_parallel.h``)."""
    f = ctypes.CDLL(lib).rl_running_fraction
    f.restype, f.argtypes = ctypes.c_double, []
    return f


def thread_reader(lib: str, most: int):
    """A function returning, for the library's last parallel call, each thread's (span in seconds, CPU it ran on)
    (``rl_thread_report`` in ``rl_parallel.h``); an empty list where the library has no such report."""
    try:
        f = ctypes.CDLL(lib).rl_thread_report
    except AttributeError:
        return lambda: []
    f.restype, f.argtypes = ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
    span, cpu_s, cpu = np.zeros(most), np.zeros(most), np.zeros(most, np.int32)

    def read() -> list[tuple[float, int]]:
        k = min(most, int(f(span.ctypes.data, cpu_s.ctypes.data, cpu.ctypes.data, most)))
        return [(float(span[i]), int(cpu[i])) for i in range(k)]

    return read


def with_running(fn, lib: str, threads: int = 1):
    """``fn`` (a timed function) that also records, per call with repetitions, the library's running fraction
    (``run.log``) and, on several threads, each thread's span and CPU (``run.threads_log``)."""
    read = running_reader(lib)
    per_thread = thread_reader(lib, threads) if threads > 1 else (lambda: [])
    log: list[float] = []
    threads_log: list[list[tuple[float, int]]] = []

    def run(reps: int) -> float:
        t = fn(reps)
        if reps:
            log.append(float(read()))
            threads_log.append(per_thread())
        return t

    run.log, run.threads_log = log, threads_log
    return run


def thread_balance(samples: list[list[tuple[float, int]]]) -> dict | None:
    """Each thread's own time against its siblings', over the samples of a kernel that gives every thread the same
    work (``samples``: per sample, each thread's (time, CPU)): the median over samples of the slowest thread's time
    over the fastest's (``ratio``), the CPU the slowest thread ran on most often (``slow_cpu``, -1 unknown), and
    each thread's median time with its CPU. None on one thread."""
    rows = [s for s in samples if len(s) >= 2 and min(t for t, _ in s) > 0]
    if not rows:
        return None
    ratios = [max(t for t, _ in s) / min(t for t, _ in s) for s in rows]
    slow = [max(s)[1] for s in rows]
    n = min(len(s) for s in rows)
    return {"ratio": float(np.median(ratios)), "slow_cpu": max(set(slow), key=slow.count), "samples": len(rows),
            "threads": [{"time_s": float(np.median([s[k][0] for s in rows])),
                         "cpu": max(set(c := [s[k][1] for s in rows]), key=c.count)} for k in range(n)]}


def sampled_running(log: list[float], n: int) -> list[float]:
    """The running fractions of the last ``n`` calls: those of the samples a harness kept (it takes them last)."""
    return [min(1.0, max(0.0, x)) for x in log[-n:]]


# --------------------------------------------------------------------------------------------- compute peak


def peak_reference(seed: np.ndarray, chains: int, lanes: int, reps: int, threads: int) -> float:
    """Closed form of the checksum after ``reps`` steps of acc = acc*m + c, summed over chains, lanes, threads."""
    s = seed.astype(np.float64)
    m, c = s[chains], s[chains + 1]
    fix = c / (1.0 - m)
    acc = (m ** reps) * (s[:chains] - fix) + fix
    return float(acc.sum() * lanes * threads)


def peak_task(lib: str, clock_lib: str, *, dtype: str, chains: int, lanes: int, threads: int,
              config: HarnessConfig) -> dict:
    """Interleave the FMA-chain kernel with the clock chain, round by round, on ``threads`` threads.

    Pairing each peak sample with clock samples taken on either side of it lets the fraction of the theoretical peak
    be computed per round, at the clock the cores ran at just then. Each sample, of the peak kernel and of the clock
    chain, gives both its wall time (longer when a core is taken away) and the time per repetition while the
    threads ran (median of short chunks, which is not): ``peak_running_s`` is the time per repetition of all threads
    together, ``clock_hz_running`` the clock.
    """
    dt = np.dtype(dtype)
    peak = _checked("peak kernel", _fn(lib, "rl_peak", [ctypes.c_long, ctypes.c_int, ctypes.c_void_p,
                                                         ctypes.c_void_p]))
    chunked = _checked("peak kernel", _fn(lib, "rl_peak_chunked", [ctypes.c_long, ctypes.c_int, ctypes.c_void_p,
                                                                   ctypes.c_void_p, ctypes.c_void_p]))
    clock = _checked("clock kernel", _fn(clock_lib, "rl_clock_chain_chunked", [ctypes.c_long, ctypes.c_int,
                                                                               ctypes.c_void_p]))
    adds = ctypes.CDLL(clock_lib).rl_clock_adds_per_rep()
    seed = np.array([1.0 + 0.01 * i for i in range(chains)] + [0.999, 0.001], dtype=dt)
    out = np.zeros(max(threads, 1), dt)
    hz = np.zeros(max(threads, 1))
    # correctness first: the checksum after a known number of steps
    check_reps = 1000
    peak(check_reps, threads, out.ctypes.data, seed.ctypes.data)
    got = float(out[:threads].astype(np.float64).sum())
    ref = peak_reference(seed, chains, lanes, check_reps, threads)
    rel = abs(got - ref) / abs(ref)
    tol = 1e-3 if dt == np.float32 else 1e-9
    if not math.isfinite(rel) or rel > tol:
        raise WrongResult(f"peak {dtype} x{chains}", rel, tol)

    run = np.zeros(max(threads, 1))
    read_running = running_reader(lib)

    def p(reps):
        return chunked(reps, threads, out.ctypes.data, seed.ctypes.data, run.ctypes.data)

    def c(reps):
        return clock(reps, threads, hz.ctypes.data)

    where = thread_reader(lib, threads) if threads > 1 else (lambda: [])
    busy: dict[int, float] = {}
    tp_running: dict[int, float] = {}
    running: dict[int, float] = {}
    per_thread: dict[int, list[tuple[float, int]]] = {}

    def after_peak(i: int) -> None:
        busy[i] = min(1.0, max(0.0, float(read_running())))
        # all threads together while they ran: as many repetitions as threads, at the sum of their rates
        tp_running[i] = threads / float(np.sum(1.0 / run[:threads]))
        # each thread's own time per repetition while it ran (median chunk), with the CPU it ran on: the same
        # work on every thread, so one markedly slower than its sibling ran on a CPU the host gave it less of
        per_thread[i] = [(float(run[k]), cpu) for k, (_, cpu) in enumerate(where()[:threads])]

    def after_clock(i: int) -> None:
        running[i] = float(np.mean(hz[:threads]))

    fns, overheads = {"peak": p, "clock": c}, {"peak": call_overhead(p), "clock": call_overhead(c)}
    if threads > 1:
        # one thread in the same rounds: the all-thread rate is judged against one thread at the same moment, not
        # against a figure taken minutes earlier (a host that lends a vCPU away for a while shows here)
        out1, run1 = np.zeros(1, dt), np.zeros(1)

        def one(reps):
            return chunked(reps, 1, out1.ctypes.data, seed.ctypes.data, run1.ctypes.data)

        fns["one"], overheads["one"] = one, call_overhead(one)
    # c0 p0 [o0] c1 p1 [o1] ... cn: every peak sample has a clock sample on each side. A fixed call cost (waking
    # threads) that is a large part of a sample is dwarfed by more repetitions, never subtracted from a sample it
    # could swallow.
    t = run_interleaved(fns, config, rotate=False, bracket="clock", grow_once=True,
                        min_sample_s={"clock": config.min_sample_s / 2}, call_overheads=overheads,
                        after={"peak": after_peak, "clock": after_clock})
    tpeak = t["peak"]
    tpeak.running = [busy[i] for i in range(len(tpeak.samples))]
    return {"peak": tpeak.to_dict(), "clock": t["clock"].to_dict(),
            "one_thread_s": t["one"].samples if "one" in t else None,
            "peak_running_s": [tp_running[i] for i in range(len(tpeak.samples))],
            "thread_balance": thread_balance([per_thread.get(i, []) for i in range(len(tpeak.samples))]),
            "clock_hz_running": [running[i] for i in range(len(t["clock"].samples))], "adds_per_rep": adds,
            "rel_error": rel}


def round_clocks(clock_hz: list[float]) -> list[float]:
    """The clock (Hz) of each round: the faster of the two clock samples around its peak sample.

    ``clock_hz`` is the clock the cores ran at while they ran, one sample more than there are rounds. A frequency
    change seen on both sides of a round counts; a clock sample that still reads low (most of its chunks were hit)
    does not pull its round's clock down and so cannot inflate the round's fraction of the peak.
    """
    return [max(a, b) for a, b in zip(clock_hz, clock_hz[1:])]


def per_round_fraction(flops_per_rep: float, peak_s: list[float], clock_hz: list[float],
                       flops_per_cycle: float) -> tuple[float, tuple[float, float]]:
    """Median and order-statistic CI of achieved / theoretical, each round at its own measured clock
    (``clock_hz`` has one more sample than ``peak_s``: they alternate, clock first and last)."""
    fr = [(flops_per_rep / tp) / (flops_per_cycle * hz) for tp, hz in zip(peak_s, round_clocks(clock_hz))]
    return float(np.median(fr)), order_statistic_median_ci(fr)


# ------------------------------------------------------------------------------------------------- stream

STREAM_KINDS = ("read", "copy", "triad")
NT_KINDS = ("read_nt", "copy_nt", "triad_nt")  # non-temporal loads (read) or streaming stores (copy, triad)
STREAM_ARRAYS = {"read": 1, "copy": 2, "triad": 3, "read_nt": 1, "copy_nt": 2, "triad_nt": 3}
STREAM_BYTES_PER_ELEM = {"read": 8, "copy": 16, "triad": 24, "read_nt": 8, "copy_nt": 16, "triad_nt": 24}


def stream_has_nt(lib: str) -> bool:
    f = ctypes.CDLL(lib).rl_stream_has_nt
    f.restype, f.argtypes = ctypes.c_int, []
    return bool(f())


def stream_task(lib: str, kind: str, sizes: list[int], threads: int, config: HarnessConfig,
                fixed_reps: dict | None = None) -> list[dict]:
    """Time one bandwidth kernel at several array lengths (elements), on prefixes of one allocation."""
    if kind in NT_KINDS and not stream_has_nt(lib):
        raise RooflabError(f"{kind}: this build has no non-temporal kernels for this ISA")
    nmax = max(sizes)
    base = kind.removesuffix("_nt")
    # only the arrays the kernel uses: touching the pages of one it does not costs a DRAM-sized sweep ~0.3 s each
    b = aligned_array(nmax, np.float64, 1.0, skew=1088)  # 17 lines apart
    a = aligned_array(nmax, np.float64, 0.0, skew=0) if base in ("copy", "triad") else None
    c = aligned_array(nmax, np.float64, 2.0, skew=2176) if base == "triad" else None
    b[: min(nmax, 1 << 16)] = np.linspace(0.5, 1.5, min(nmax, 1 << 16))
    s = 3.0
    total = np.zeros(1)
    symbol = f"rl_{kind}"
    if base == "read":
        f = _checked(kind, _fn(lib, symbol, [ctypes.c_long, ctypes.c_int, ctypes.c_void_p, ctypes.c_long,
                                              ctypes.c_void_p]))
        call = lambda reps, n: f(reps, threads, b.ctypes.data, n, total.ctypes.data)  # noqa: E731
    elif base == "copy":
        f = _checked(kind, _fn(lib, symbol, [ctypes.c_long, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                                              ctypes.c_long]))
        call = lambda reps, n: f(reps, threads, a.ctypes.data, b.ctypes.data, n)  # noqa: E731
    elif base == "triad":
        f = _checked(kind, _fn(lib, symbol, [ctypes.c_long, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                                              ctypes.c_void_p, ctypes.c_double, ctypes.c_long]))
        call = lambda reps, n: f(reps, threads, a.ctypes.data, b.ctypes.data, c.ctypes.data, s, n)  # noqa: E731
    else:
        raise RooflabError(f"unknown bandwidth kernel {kind!r}")
    # correctness at the smallest and largest length
    worst = 0.0
    for n in sorted({min(sizes), nmax}):
        if a is not None:
            a[:n] = 0.0
        call(2, n)
        if base == "read":
            ref = 2.0 * float(b[:n].sum())
            err = abs(total[0] - ref) / abs(ref)
        elif base == "copy":
            err = float(np.max(np.abs(a[:n] - b[:n]) / np.abs(b[:n])))
        else:
            ref = b[:n] + s * c[:n]
            err = float(np.max(np.abs(a[:n] - ref) / np.abs(ref)))
        worst = max(worst, err)
    if not math.isfinite(worst) or worst > 1e-12:
        raise WrongResult(kind, worst, 1e-12)
    out = []
    for n in sizes:
        fn = with_running(lambda reps, n=n: call(reps, n), lib, threads)
        try:
            reps = (fixed_reps or {}).get(n)
            cfg = config
            if not reps:
                reps = calibrate(fn, config.min_sample_s, max_reps=config.max_reps)
                # the calibration's calls already warmed the caches, the pages and the clock (as run_samples does)
                cfg = dataclasses.replace(config, warmup=max(0, config.warmup - 1))
            t = run_samples(fn, cfg, reps=reps, overhead_per_call=call_overhead(fn), name=f"{kind} n={n}",
                            remeasure_overhead=lambda fn=fn: call_overhead(fn))
        except OverheadDominates as exc:  # this size is lost, not the others
            out.append({"n": n, "timing": None, "error": str(exc), "rel_error": worst})
            continue
        t.running = sampled_running(fn.log, len(t.samples))
        out.append({"n": n, "timing": t.to_dict(), "rel_error": worst,
                    "thread_balance": thread_balance(fn.threads_log[-len(t.samples):])})
    return out


def call_overhead(fn, tries: int = 7) -> float:
    """The fixed cost of one call of a C-timed kernel: the same call with zero repetitions (clock reads, thread
    start and join), to subtract from each sample. The least of several calls: a sample always pays at least that
    much, so subtracting it can never take away time the work itself took (a median inflated by one slow wake-up
    could)."""
    return float(min(fn(0) for _ in range(tries)))


# ------------------------------------------------------------------------------------------------- NumPy


def _limit(threads: int):
    return threadpool_limits(limits=threads, user_api="blas")


def rel_err(got: np.ndarray, ref: np.ndarray) -> float:
    """Max absolute difference over the largest reference magnitude (0 for empty arrays)."""
    if ref.size == 0:
        return 0.0
    scale = float(np.max(np.abs(ref))) or 1.0
    return float(np.max(np.abs(got.astype(np.float64) - ref)) / scale)


def checked_blas_gemm(n: int, dtype: str) -> tuple[Callable[[], object], float, float]:
    """NumPy's (BLAS) GEMM on n x n matrices of ``dtype``, called once and checked on its first rows: (the call,
    the time of that first call, its relative error). Call it under the BLAS thread limit it is to be timed with."""
    rng = np.random.default_rng(0)
    A = rng.random((n, n), dtype=np.float64).astype(dtype)
    B = rng.random((n, n), dtype=np.float64).astype(dtype)
    C = np.empty((n, n), dtype)
    t0 = time.perf_counter()
    np.matmul(A, B, out=C)
    first = time.perf_counter() - t0
    rows = slice(0, min(n, 16))
    err = rel_err(C[rows], A[rows].astype(np.float64) @ B.astype(np.float64))
    tol = 1e-4 if np.dtype(dtype) == np.float32 else 1e-12
    if not math.isfinite(err) or err > tol:
        raise WrongResult(f"BLAS {dtype} GEMM", err, tol)
    return (lambda: np.matmul(A, B, out=C)), first, err


def blas_gemm_task(n: int, dtype: str, threads: int, config: HarnessConfig) -> dict:
    """BLAS GEMM on ``threads`` threads, checked, with each sample's running fraction; on several threads, one-thread
    samples in the same rounds (``one_thread_s``), to judge the scaling at the same moment."""
    with _limit(threads):
        call, first, err = checked_blas_gemm(n, dtype)
        if threads == 1:
            return {"timing": samples_after_check(call, first, config, 1).to_dict(), "rel_error": err}

        blas = ThreadpoolController().select(user_api="blas")
        many, alone = python_timed_running(call, threads), python_timed_running(call, 1)

        def one(reps: int) -> float:
            with blas.limit(limits=1):  # switched outside the timed loop
                return alone(reps)

        t = run_interleaved({"all": many, "one": one}, config, budget=True,
                            overheads={"all": python_overhead(), "one": python_overhead()})
    tall = t["all"]
    tall.running = sampled_running(many.log, len(tall.samples))
    return {"timing": tall.to_dict(), "one_thread_s": t["one"].samples, "rel_error": err}


def same_moment_efficiency(all_s: list[float], one_s: list[float] | None, work_all: float, work_one: float,
                           cores: int) -> float | None:
    """The all-thread rate over one thread's rate times the cores, round by round (the two sampled in the same
    rounds), median over the rounds; None without one-thread samples."""
    if not one_s or not all_s:
        return None
    eff = [(work_all / a) / (cores * work_one / o) for a, o in zip(all_s, one_s) if a > 0 and o > 0]
    return float(np.median(eff)) if eff else None


def samples_after_check(call, first_s: float, config: HarnessConfig, threads: int = 1) -> Timing:
    """Samples of a Python-timed call already made once, for its correctness check (which warmed it up), with the
    running fraction of each over ``threads`` threads. A call that lasted a whole sample is one repetition per
    sample, with no calibration and no further warm-up."""
    long_call = first_s >= config.min_sample_s
    return _running_samples(call, dataclasses.replace(config, warmup=0) if long_call else config, threads,
                            reps=1 if long_call else None)


def _running_samples(call, config: HarnessConfig, threads: int, reps: int | None = None) -> Timing:
    """Samples of a Python-timed call with each one's running fraction (harness.python_timed_running)."""
    fn = python_timed_running(call, threads)
    t = run_samples(fn, config, reps=reps, overhead_per_rep=python_overhead())
    t.running = sampled_running(fn.log, len(t.samples))
    return t


def gemv_task(d: int, threads: int, config: HarnessConfig) -> dict:
    rng = np.random.default_rng(1)
    W = rng.random((d, d), dtype=np.float32)
    x = rng.random(d, dtype=np.float32)
    y = np.empty(d, np.float32)
    with _limit(threads):
        np.matmul(W, x, out=y)
        err = rel_err(y[:64], W[:64].astype(np.float64) @ x.astype(np.float64))
        if err > 1e-4:
            raise WrongResult("BLAS GEMV", err, 1e-4)
        t = _running_samples(lambda: np.matmul(W, x, out=y), config, threads)
    return {"timing": t.to_dict(), "rel_error": err}


def numpy_copy_task(n: int, config: HarnessConfig) -> dict:
    src = aligned_array(n, np.float32, 1.0, skew=0)
    dst = aligned_array(n, np.float32, 0.0, skew=1088)
    np.copyto(dst, src)
    err = 0.0 if np.array_equal(dst, src) else 1.0
    if err:
        raise WrongResult("numpy copy", err, 0.0)
    t = _running_samples(lambda: np.copyto(dst, src), config, 1)
    return {"timing": t.to_dict(), "rel_error": err}


def batch_sweep_task(d: int, f: int, batches: list[int], threads: int, config: HarnessConfig) -> list[dict]:
    """X[B,D] @ W[D,F] in fp32 for each B, with a correctness check of a few output columns."""
    rng = np.random.default_rng(2)
    W = rng.random((d, f), dtype=np.float32) - np.float32(0.5)
    out = []
    with _limit(threads):
        for b in batches:
            X = rng.random((b, d), dtype=np.float32) - np.float32(0.5)
            Y = np.empty((b, f), np.float32)
            t0 = time.perf_counter()
            np.matmul(X, W, out=Y)
            first = time.perf_counter() - t0
            cols = slice(0, 8)
            ref = X.astype(np.float64) @ W[:, cols].astype(np.float64)
            err = float(np.max(np.abs(Y[:, cols] - ref)) / (np.max(np.abs(ref)) or 1.0))
            if err > 1e-3:
                raise WrongResult(f"batch B={b}", err, 1e-3)
            t = samples_after_check(lambda X=X, Y=Y: np.matmul(X, W, out=Y), first, config, threads)
            out.append({"B": b, "timing": t.to_dict(), "rel_error": err})
    return out


# ------------------------------------------------------------------------------------------------- GEMM ladder

GEMM_ARGS = [ctypes.c_long, ctypes.c_long, ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p,
             ctypes.c_void_p]


def gemm_operands(m: int, n: int, k: int, seed: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    A = np.ascontiguousarray(rng.random((m, k), dtype=np.float32) - np.float32(0.5))
    B = np.ascontiguousarray(rng.random((k, n), dtype=np.float32) - np.float32(0.5))
    return A, B, np.zeros((m, n), np.float32)


def gemm_rel_error(C: np.ndarray, A: np.ndarray, B: np.ndarray) -> float:
    return rel_err(C, A.astype(np.float64) @ B.astype(np.float64))


_EXTRA_TYPES = {"int": ctypes.c_int, "long": ctypes.c_long}


def gemm_call(lib: str, symbol: str, extra: tuple = ()):
    """``f(reps, A, B, C)`` for a C GEMM entry; ``extra`` = ((c_type_name, value), ...) after C."""
    f = getattr(ctypes.CDLL(lib), symbol)
    f.restype = ctypes.c_double
    f.argtypes = GEMM_ARGS + [_EXTRA_TYPES[t] for t, _ in extra]
    values = [v for _, v in extra]

    def run(reps: int, A: np.ndarray, B: np.ndarray, C: np.ndarray) -> float:
        t = f(reps, A.shape[0], B.shape[1], A.shape[1], A.ctypes.data, B.ctypes.data, C.ctypes.data, *values)
        if t < 0:
            raise RooflabError(f"{symbol} reported an error ({t:g})")
        return t
    return run


def gemm_check_task(lib: str, symbol: str, shape: tuple[int, int, int], extra: tuple = ()) -> float:
    """Run one C GEMM once on a shape and return its max relative error against float64 NumPy."""
    A, B, C = gemm_operands(*shape)
    C.fill(np.nan)
    gemm_call(lib, symbol, extra)(1, A, B, C)
    return gemm_rel_error(C, A, B)


def ladder_task(lib: str | None, symbol: str | None, n: int, threads: int, config: HarnessConfig,
                extra: tuple = (), tolerance: float = 1e-4) -> dict:
    """One rung against BLAS at the same thread count, in interleaved rounds (own, BLAS, own, BLAS ...).

    ``lib`` None times NumPy's matmul itself (the BLAS rungs). Returns both timings and the per-round ratios of
    BLAS time to own time (> 1: the rung is faster than BLAS).
    """
    A, B, C = gemm_operands(n, n, n)
    Cb = np.empty_like(C)
    with _limit(threads):
        blas = python_timed(lambda: np.matmul(A, B, out=Cb))
        if lib is None:
            np.matmul(A, B, out=C)
            own = blas
        else:
            call = gemm_call(lib, symbol, extra)
            call(1, A, B, C)
            own = lambda reps: call(reps, A, B, C)  # noqa: E731
        err = gemm_rel_error(C, A, B)
        if not math.isfinite(err) or err > tolerance:
            raise WrongResult(symbol or "numpy", err, tolerance)
        if lib is None:
            t = run_samples(own, config, overhead_per_rep=python_overhead())
            return {"own": t.to_dict(), "blas": t.to_dict(), "ratios": [1.0] * len(t.samples), "rel_error": err}
        t = run_interleaved({"own": own, "blas": blas}, config, budget=True, overheads={"blas": python_overhead()})
    return {"own": t["own"].to_dict(), "blas": t["blas"].to_dict(),
            "ratios": [b / o for b, o in zip(t["blas"].samples, t["own"].samples)], "rel_error": err}


def gemm_time_task(lib: str, symbol: str, shape: tuple[int, int, int], config: HarnessConfig, extra: tuple = (),
                   tolerance: float = 1e-4) -> dict:
    """Check one C GEMM on ``shape``, then time it (no BLAS pairing)."""
    A, B, C = gemm_operands(*shape)
    C.fill(np.nan)
    call = gemm_call(lib, symbol, extra)
    call(1, A, B, C)
    err = gemm_rel_error(C, A, B)
    if not math.isfinite(err) or err > tolerance:
        raise WrongResult(symbol, err, tolerance)
    fn = lambda reps: call(reps, A, B, C)  # noqa: E731
    reps = calibrate(fn, config.min_sample_s, max_reps=config.max_reps)
    t = run_samples(fn, config, reps=reps, overhead_per_call=call_overhead(fn), name=symbol,
                    remeasure_overhead=lambda: call_overhead(fn))
    return {"timing": t.to_dict(), "rel_error": err}


# ------------------------------------------------------------------------------------------------- imbalance


def imbalance_reference(rows: int, work: int) -> float:
    """Checksum of all rows for one repetition (the same recurrence, in NumPy, closed form)."""
    m, c = 0.999999, 1e-6
    fix = c / (1 - m)
    seeds = np.arange(rows, dtype=np.float64)[:, None] + np.arange(8)[None, :]
    return float(((m ** work) * (seeds - fix) + fix).sum())


def imbalance_task(lib: str, threads: int, rows: int, work: int, strips: int, fine: bool,
                   config: HarnessConfig) -> dict:
    f = _checked("imbalance", _fn(lib, "rl_imbalance", [ctypes.c_long, ctypes.c_int, ctypes.c_long, ctypes.c_long,
                                                         ctypes.c_int, ctypes.c_int, ctypes.c_void_p,
                                                         ctypes.c_void_p]))
    busy = np.zeros(threads)
    chk = np.zeros(1)
    f(1, threads, rows, work, strips, int(fine), busy.ctypes.data, chk.ctypes.data)
    ref = imbalance_reference(rows, work)
    err = abs(chk[0] - ref) / abs(ref)
    if err > 1e-9:
        raise WrongResult("imbalance", err, 1e-9)
    per_sample = []

    def call(reps):
        t = f(reps, threads, rows, work, strips, int(fine), busy.ctypes.data, chk.ctypes.data)
        per_sample.append(busy.copy() / max(reps, 1))
        return t

    reps = calibrate(call, config.min_sample_s)
    per_sample.clear()
    t = run_samples(call, config, reps=reps)
    busy_runs = per_sample[-len(t.samples):]
    return {"timing": t.to_dict(), "busy": [b.tolist() for b in busy_runs], "rel_error": err}


# ------------------------------------------------------------------------------------------------- NUMA


def chase_task(lib: str, nbytes: int, config: HarnessConfig, seed: int = 5) -> dict:
    """Latency of a random pointer chain over ``nbytes`` (one 64-byte line per element)."""
    stride = 8  # longs per 64-byte line: one element per line
    n = max(16, nbytes // 64)
    order = np.random.default_rng(seed).permutation(n)
    nxt = aligned_array(n * stride, np.int64, 0)
    # a single cycle through all lines in random order
    nxt[order * stride] = np.roll(order, -1) * stride
    f = _fn(lib, "rl_chase", [ctypes.c_long, ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p])
    sink = np.zeros(1, np.int64)
    f(1, nxt.ctypes.data, n, sink.ctypes.data)
    if sink[0] != 0:  # n steps around one cycle come back to the start
        raise WrongResult("pointer chase", 1.0, 0.0)
    t = run_samples(lambda reps: f(reps, nxt.ctypes.data, n, sink.ctypes.data), config)
    return {"timing": t.to_dict(), "steps": n}

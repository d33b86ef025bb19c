"""Real kernels in the worker process: one works, one segfaults, one hangs, one is wrong; the run goes on."""

from functools import partial
from pathlib import Path

import numpy as np
import pytest

from rooflab.toolchain.compiler import build, build_kernel
from rooflab.errors import KernelFailed, RooflabError
from rooflab.results.store import Store
from rooflab.session import Session
from rooflab.timing.harness import HarnessConfig
from rooflab.kernels.runner import ArraySpec, CKernel
from rooflab.timing.worker import Worker

pytestmark = pytest.mark.cc
DATA = Path(__file__).resolve().parents[1] / "data"
FAST = HarnessConfig(min_sample_s=0.002, samples=5, warmup=1, min_samples=3, budget_s=1.0)


def scale_error(arrays):
    y, x = arrays
    return float(np.max(np.abs(y - 2.0 * x) / np.abs(2.0 * x)))


def _boom():
    raise ValueError("bad input 42")


@pytest.fixture(scope="module")
def lib():
    return str(build([DATA / "kernels.c"], name="testkernels").path)


def _kernel(lib, symbol, n=4096, verify=True):
    return CKernel(name=symbol, library=lib, symbol=symbol, argtypes=("double*", "double*", "long"),
                   args=(ArraySpec((n,), "float64", "zeros"), ArraySpec((n,), "float64", "random", seed=1), n),
                   verify=scale_error if verify else None, tolerance=1e-12,
                   empty_library=str(build_kernel("clock").path), params={"n": n})


def test_session_reports_crash_hang_and_wrong_and_keeps_the_rest(lib, tmp_path):
    with Store(tmp_path / "s.sqlite") as st:
        with Session("bench", store=st, machine={"key": "test"}, environment={"hostname": "h"}) as s:
            good = s.run(_kernel(lib, "good_scale"), FAST)
            crash = s.run(CKernel(name="crash", library=lib, symbol="crash"), FAST)
            hang = s.run(CKernel(name="hang", library=lib, symbol="hang"), FAST, timeout_s=2.0)
            wrong = s.run(_kernel(lib, "wrong_scale"), FAST)
            after = s.run(_kernel(lib, "good_scale"), FAST)
            doc = s.finish({"schema": "rooflab.bench/1", "kernels": []})
        assert good.ok and after.ok
        assert good.rel_error == 0.0
        assert good.timing.summary.n >= 3 and all(t > 0 for t in good.timing.samples)
        assert good.timing.overhead_per_rep >= 0
        assert crash.error_kind == "crash" and "SIGSEGV" in crash.error and "'crash'" in crash.error
        assert hang.error_kind == "timeout" and "2 s" in hang.error and "'hang'" in hang.error
        assert wrong.error_kind == "wrong" and wrong.timing is None and wrong.rel_error > 1e-12
        assert "wrong result" in wrong.error
        stored = st.get(doc["run_id"])
        assert stored["status"] == "complete"
        assert [r["name"] for r in stored["records"]] == ["good_scale", "crash", "hang", "wrong_scale", "good_scale"]
        assert stored["records"][0]["params"] == {"n": 4096}
        assert "load" in stored["result"]


def test_worker_reports_python_exceptions_and_survives():
    with Worker() as w:
        with pytest.raises(KernelFailed, match="raised ValueError: bad input 42"):
            w.call("boom", _boom)
        assert w.call("sum", sum, [1, 2, 3]) == 6


def test_worker_passes_rooflab_errors_through(lib):
    from rooflab.kernels.runner import run_c_kernel

    k = CKernel(name="missing", library=lib, symbol="no_such_symbol")
    with Worker() as w:
        with pytest.raises(RooflabError, match="no_such_symbol"):
            w.call("missing", run_c_kernel, k, FAST)


def test_interrupted_session_marks_run_and_keeps_records(lib, tmp_path):
    with Store(tmp_path / "s.sqlite") as st:
        with pytest.raises(KeyboardInterrupt):
            with Session("bench", store=st, machine={"key": "t"}, environment={"hostname": "h"}) as s:
                s.run(_kernel(lib, "good_scale"), FAST)
                raise KeyboardInterrupt
        doc = st.get("latest")
        assert doc["status"] == "interrupted" and len(doc["records"]) == 1 and doc["records"][0]["timing"]


def test_timing_fixed_reps_and_partial_args(lib):
    from rooflab.kernels.runner import run_c_kernel

    k = _kernel(lib, "good_scale", n=1000)
    res = run_c_kernel(k, FAST, reps=200)
    assert res["timing"]["reps"] == 200 and res["rel_error"] == 0.0
    # verify functions may be partials: they travel to the worker by pickle
    k2 = CKernel(name="p", library=lib, symbol="good_scale", argtypes=k.argtypes, args=k.args,
                 verify=partial(scale_error), tolerance=1e-12)
    with Worker() as w:
        out = w.call("p", run_c_kernel, k2, FAST)
    assert out["rel_error"] == 0.0



def test_competing_load_is_detected_and_named():
    """Another process burning a CPU while the session measures shows up as a competing-load warning."""
    import subprocess
    import sys
    import time

    with Session("bench", store=None, machine={"key": "t"}, environment={"hostname": "h"}) as s:
        burner = subprocess.Popen([sys.executable, "-c", "import time\nend = time.time() + 2.5\n"
                                   "while time.time() < end: pass"])
        try:
            time.sleep(2.0)
            doc = s.finish({"schema": "rooflab.bench/1", "kernels": []})
        finally:
            burner.kill()
            burner.wait()
    assert doc["load"]["other_cores"] >= 0.5
    w = [x for x in doc["warnings"] if x["code"] == "competing-load"]
    assert w and "other processes used" in w[0]["message"] and w[0]["remedy"]


def _getenv(name):
    import os

    return os.environ.get(name)


def test_worker_env_reaches_the_child_only():
    import os

    with Worker(env={"ROOFLAB_TEST_VAR": "42"}) as w:
        assert w.call("env", _getenv, "ROOFLAB_TEST_VAR") == "42"
    assert "ROOFLAB_TEST_VAR" not in os.environ


def test_a_block_of_a_session_runs_in_a_worker_with_more_environment():
    """bench --explain alternates threaded kernels: that part runs in a worker of its own whose idle threads sleep
    at once; the rest of the run keeps the command's worker, and the run records what the block added."""
    with Session("bench", store=None, machine={"key": "m"}, environment={"hostname": "h"},
                 worker_env={"ROOFLAB_A": "1"}) as s:
        before = s.call("env", _getenv, "ROOFLAB_B")
        with s.worker_env_for({"ROOFLAB_A": "1", "ROOFLAB_B": "2"}):
            inside = (s.call("env", _getenv, "ROOFLAB_A"), s.call("env", _getenv, "ROOFLAB_B"))
        after = s.call("env", _getenv, "ROOFLAB_B")
        doc = s.finish({})
    assert (before, inside, after) == (None, ("1", "2"), None)
    assert doc["worker_env"] == {"ROOFLAB_A": "1"} and doc["extra_worker_env"] == {"ROOFLAB_B": "2"}


def _affinity_with_a_new_thread() -> tuple[list[int], list[int]]:
    """The calling thread's CPUs, and those of a thread it starts (which inherits them) and leaves waiting."""
    import os
    import threading

    seen, go = [], threading.Event()
    t = threading.Thread(target=lambda: (seen.append(sorted(os.sched_getaffinity(0))), go.wait(5)), daemon=True)
    t.start()
    while not seen:
        pass
    _LEFT.append((t, go))
    return sorted(os.sched_getaffinity(0)), seen[0]


_LEFT: list = []


def _affinity_of_every_thread() -> list[list[int]]:
    import os

    out = [sorted(os.sched_getaffinity(int(tid))) for tid in os.listdir("/proc/self/task")]
    for _, go in _LEFT:
        go.set()
    return out


@pytest.mark.skipif(not hasattr(__import__("os"), "sched_setaffinity") or len(__import__("os").sched_getaffinity(0))
                    < 2, reason="needs two CPUs and CPU affinity")
def test_a_call_confined_to_one_cpu_gives_every_thread_its_cpus_back():
    """A one-thread measurement runs on one CPU; a thread pool a library started meanwhile inherited that one CPU and
    must not keep it for the all-thread measurements that follow."""
    import os

    from rooflab.timing.worker import on_cpus

    every = sorted(os.sched_getaffinity(0))
    with Worker() as w:
        mine, child = w.call("pinned", on_cpus, [every[-1]], _affinity_with_a_new_thread)
        assert mine == child == [every[-1]]
        assert all(cpus == every for cpus in w.call("after", _affinity_of_every_thread))


def _ftz_seen_by(a: CKernel, b: CKernel) -> tuple[float, float, float]:
    """In the worker: bind A, then B (loading B may set flush-to-zero), then run A, B, A."""
    from rooflab.kernels.runner import _bind

    ta, arrays_a = _bind(a)
    tb, arrays_b = _bind(b)
    ta(1)
    first_a = float(arrays_a[0][0])
    tb(1)
    b_seen = float(arrays_b[0][0])
    ta(1)
    return first_a, b_seen, float(arrays_a[0][0])


def test_a_fast_math_library_keeps_its_flush_to_zero_to_itself(tmp_path):
    """gcc links crtfastmath.o into a -ffast-math library, which sets flush-to-zero for the whole process when it is
    loaded; in one task (explain's experiment times both builds together) the original must not run with it, the
    variant runs as it would alone, and the next task starts clean."""
    plain = str(build([DATA / "kernels.c"], name="ftzplain").path)
    fast = str(build([DATA / "kernels.c"], name="ftzfast", flags=["-ffast-math"]).path)
    mk = lambda lib: CKernel(name="ftz", library=lib, symbol="ftz_seen", argtypes=("double*",),  # noqa: E731
                             args=(ArraySpec((1,), "float64", "zeros"),))
    with Worker() as w:
        a_before, b_seen, a_after = w.call("ftz", _ftz_seen_by, mk(plain), mk(fast))
        again, _, _ = w.call("ftz", _ftz_seen_by, mk(plain), mk(plain))
    assert (a_before, a_after) == (0.0, 0.0)
    assert again == 0.0
    import platform

    if platform.machine() in ("x86_64", "AMD64"):  # crtfastmath's FTZ is an x86 (and some Arm) link-time effect
        assert b_seen == 1.0


def _ftz_seen_when_bound_again(b: CKernel) -> float:
    """In the worker: bind B once (its library loads), then again on the same arrays, as a paired comparison of two
    kernels with the same inputs does; run the second binding."""
    from rooflab.kernels.runner import _bind

    _, arrays = _bind(b)
    tb, _ = _bind(b, arrays)
    tb(1)
    return float(arrays[0][0])


def test_a_librarys_load_time_environment_stays_its_own_when_bound_again():
    """A library's constructors run at its first load only: the flush-to-zero the ftz experiment's build sets then
    (``-include rl_ftz.h``) must hold for its calls through a second binding as well."""
    import platform

    from rooflab.paths import CSRC

    if platform.machine() not in ("x86_64", "AMD64", "aarch64", "arm64"):
        pytest.skip("rl_ftz.h sets flush-to-zero on x86 and AArch64")
    lib = str(build([DATA / "kernels.c"], name="ftzinclude", flags=[f"-include{CSRC / 'rl_ftz.h'}"]).path)
    k = CKernel(name="ftz", library=lib, symbol="ftz_seen", argtypes=("double*",),
                args=(ArraySpec((1,), "float64", "zeros"),))
    with Worker() as w:
        assert w.call("ftz again", _ftz_seen_when_bound_again, k) == 1.0

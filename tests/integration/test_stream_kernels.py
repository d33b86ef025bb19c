"""The bandwidth kernels, regular and non-temporal: correct results, loops that match their traffic model, and the
running fraction every call reports."""

import ctypes

import numpy as np
import pytest

from rooflab.toolchain.asm import audit_function
from rooflab.kernels import tasks
from rooflab.kernels.builders import audit_stream, build_stream, vector_bytes
from rooflab.machine import describe_cpu
from rooflab.timing.harness import HarnessConfig
from rooflab.timing.memory import aligned_array

pytestmark = pytest.mark.cc
VB = vector_bytes(describe_cpu().isa.to_dict())
FAST = HarnessConfig(min_sample_s=0.002, samples=3, warmup=0, min_samples=3, budget_s=0.2)


@pytest.fixture(scope="module")
def lib():
    return build_stream(VB)


@pytest.fixture(scope="module")
def has_nt(lib):
    return tasks.stream_has_nt(str(lib.path))


def test_non_temporal_kernels_exist_where_the_isa_has_them(lib, has_nt):
    import platform

    if platform.machine() in ("x86_64", "aarch64"):
        assert has_nt


@pytest.mark.parametrize("kind", tasks.STREAM_KINDS + tasks.NT_KINDS)
@pytest.mark.parametrize("threads", [1, 2])
def test_each_kernel_is_checked_timed_and_reports_its_running_fraction(lib, has_nt, kind, threads):
    if kind in tasks.NT_KINDS and not has_nt:
        pytest.skip("no non-temporal kernels for this ISA")
    out = tasks.stream_task(str(lib.path), kind, [1000, 4096 + 64], threads, FAST)
    assert [r["n"] for r in out] == [1000, 4160]
    for r in out:
        assert r["rel_error"] <= 1e-12
        if r["timing"] is None:
            # a size whose samples stayed mostly the cost of starting its threads (another process held one of
            # their CPUs through every try) is not measured, and says why; one thread has nothing to wait for
            assert threads > 1 and "call overhead" in r["error"] and "not measured" in r["error"], r
            continue
        assert r["timing"]["reps"] >= 1
        assert len(r["timing"]["running"]) == len(r["timing"]["samples"])
        assert all(0.0 <= x <= 1.0 for x in r["timing"]["running"])
        assert all(s > 0 for s in r["timing"]["samples"])


@pytest.mark.parametrize("kind", tasks.STREAM_KINDS + tasks.NT_KINDS)
def test_each_pass_matches_its_traffic_model(lib, has_nt, kind):
    if kind in tasks.NT_KINDS and not has_nt:
        pytest.skip("no non-temporal kernels for this ISA")
    a = audit_function(lib.path, f"rl_{kind}_pass")
    assert a is not None and audit_stream(kind, a.to_dict(), VB) is None, a.to_dict()
    if kind in ("copy_nt", "triad_nt"):
        assert a.nt_stores == a.stores > 0
    if kind == "read_nt":
        assert a.nt_loads == a.loads > 0


def test_the_audit_refuses_a_non_temporal_kernel_that_lost_its_streaming_stores(lib):
    plain = audit_function(lib.path, "rl_copy_pass").to_dict()
    why = audit_stream("copy_nt", plain, VB)
    assert why is not None and "streaming stores" in why["text"]
    why = audit_stream("read_nt", audit_function(lib.path, "rl_read_pass").to_dict(), VB)
    assert why is not None and "non-temporal" in why["text"]


def test_streaming_stores_handle_unaligned_starts_and_odd_lengths(lib, has_nt):
    if not has_nt:
        pytest.skip("no non-temporal kernels for this ISA")
    L = ctypes.CDLL(str(lib.path))
    f = L.rl_triad_nt
    f.restype = ctypes.c_double
    f.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_double,
                  ctypes.c_long]
    base = aligned_array(5000, np.float64, 0.0)
    b = np.linspace(0.5, 1.5, 5000)
    c = np.linspace(2.0, 1.0, 5000)
    for off in (0, 1, 3):
        for n in (1, 7, 999, 4001):
            base.fill(-1.0)
            a = base[off:off + n]
            assert f(2, 2, a.ctypes.data, b.ctypes.data, c.ctypes.data, 3.0, n) >= 0
            np.testing.assert_allclose(a, b[:n] + 3.0 * c[:n], rtol=1e-15)
            assert (base[off + n:] == -1.0).all()  # nothing written past the end


def test_a_kernel_asked_for_no_threads_or_too_many_says_so(lib):
    L = ctypes.CDLL(str(lib.path))
    f = L.rl_copy
    f.restype = ctypes.c_double
    f.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]
    a = np.zeros(64)
    for bad in (0, 257, -1):
        assert f(1, bad, a.ctypes.data, a.ctypes.data, 64) < 0

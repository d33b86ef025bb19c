"""Every GEMM rung and microkernel against NumPy on odd shapes, one and two threads."""

import pytest

from rooflab.kernels import tasks
from rooflab.kernels.builders import PORTABLE_GEMM, GemmParams, audit_microkernel, build_gemm, gemm_params
from rooflab.machine.cpu import describe_cpu
from rooflab.toolchain.asm import audit_function

pytestmark = pytest.mark.cc

NATIVE = gemm_params(describe_cpu().isa.to_dict())
AVX2_TILE = GemmParams(vbytes=32, mr=6, nr=16, kc=256, mc=120)
SHAPES = [(1, 1, 1), (7, 13, 5), (517, 389, 263)]


def _edges(p):
    # around the tile and the cache blocks: one below, exact, one above
    return [(p.mr - 1, p.nr + 1, p.kc + 1), (p.mr, p.nr, p.kc), (p.mc + 1, 2 * p.nr - 1, 2 * p.kc + 3)]


@pytest.fixture(scope="module", params=[NATIVE, PORTABLE_GEMM, AVX2_TILE] if NATIVE != AVX2_TILE else
                [NATIVE, PORTABLE_GEMM], ids=lambda p: f"{p.vbytes * 8}b-{p.mr}x{p.nr}-{p.profile}")
def lib(request):
    return request.param, str(build_gemm(request.param).path)


@pytest.mark.parametrize("symbol,extra", [("rl_gemm_ijk", ()), ("rl_gemm_ikj", ()), ("rl_gemm_blocked", (("long", 32),)),
                                          ("rl_gemm_regtile", ()), ("rl_gemm_packed", (("int", 1),)),
                                          ("rl_gemm_packed", (("int", 2),))])
def test_rungs_match_numpy_on_odd_shapes(lib, symbol, extra):
    p, path = lib
    for shape in SHAPES + _edges(p):
        err = tasks.gemm_check_task(path, symbol, shape, extra)
        assert err < 1e-5, (symbol, shape, err)


def test_microkernel_audit_on_each_variant(lib):
    p, path = lib
    a = audit_function(path, "rl_micro_packed")
    assert a is not None
    assert audit_microkernel(a.to_dict(), p) is None, a.to_dict()
    assert a.spills == 0


def test_blocked_rejects_bad_block_size(lib):
    from rooflab.errors import RooflabError

    _, path = lib
    with pytest.raises(RooflabError):
        tasks.gemm_check_task(path, "rl_gemm_blocked", (8, 8, 8), (("long", 0),))

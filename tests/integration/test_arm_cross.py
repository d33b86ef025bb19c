"""Arm without an Arm machine: the NEON and portable GEMM kernels built with the aarch64 cross compiler, run for
correctness under qemu-user, and their assembly audited. Timings under emulation mean nothing and are not taken."""

import shutil
import subprocess
from pathlib import Path

import pytest

from rooflab.toolchain.asm import audit_function
from rooflab.toolchain.compiler import build, build_kernel, probe_compiler
from rooflab.kernels.builders import PORTABLE_GEMM, audit_microkernel, gemm_params
from rooflab.paths import CSRC

CROSS = shutil.which("aarch64-linux-gnu-gcc")
QEMU = shutil.which("qemu-aarch64") or shutil.which("qemu-aarch64-static")
pytestmark = pytest.mark.skipif(not (CROSS and QEMU), reason="needs gcc-aarch64-linux-gnu and qemu-user")
DATA = Path(__file__).resolve().parents[1] / "data"
NEON = gemm_params({"arch": "aarch64", "name": "neon", "vector_bits": 128, "vector_registers": 32})


@pytest.fixture(scope="module")
def cc():
    c = probe_compiler(CROSS)
    assert c.arch == "aarch64" and c.cross
    return c


@pytest.mark.parametrize("params", [NEON, PORTABLE_GEMM], ids=["neon-7x12", "portable-4x8"])
def test_gemm_rungs_correct_under_qemu(cc, params):
    exe = build([CSRC / "gemm.c", DATA / "arm_kernels_check.c"], name="arm_gemm_check", compiler=cc,
                profile=params.profile, defines=params.defines(), flags=["-static", "-pthread"], executable=True)
    r = subprocess.run([QEMU, str(exe.path)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "all checks passed" in r.stdout and r.stdout.count("rel.error") == 30


@pytest.mark.parametrize("params", [NEON, PORTABLE_GEMM], ids=["neon-7x12", "portable-4x8"])
def test_neon_microkernel_audit(cc, params):
    lib = build_kernel("gemm", name="gemm_a64", compiler=cc, profile=params.profile, defines=params.defines())
    a = audit_function(lib.path, "rl_micro_packed", objdump=cc.tool("objdump"))
    assert a is not None and a.arch == "aarch64"
    assert audit_microkernel(a.to_dict(), params) is None, a.to_dict()
    assert a.fma in (params.accumulators, params.accumulators * params.unroll) and a.fma_bits == 128 and a.spills == 0


def test_neon_fma_chains_audit(cc):
    lib = build_kernel("peak", name="peak_a64", compiler=cc, flags=["-ffp-contract=fast"],
                       defines={"RL_T": "float", "RL_VBYTES": 16, "RL_CHAINS": 24})
    a = audit_function(lib.path, "rl_peak_chain", objdump=cc.tool("objdump"))
    assert a.fma == 24 and a.fma_bits == 128 and a.spills == 0
    # beyond 32 registers the chains spill, and the audit sees it
    lib = build_kernel("peak", name="peak_a64", compiler=cc, flags=["-ffp-contract=fast"],
                       defines={"RL_T": "float", "RL_VBYTES": 16, "RL_CHAINS": 40})
    assert audit_function(lib.path, "rl_peak_chain", objdump=cc.tool("objdump")).spills > 0


def test_non_temporal_stream_kernels_correct_under_qemu(cc):
    exe = build([CSRC / "stream.c", DATA / "arm_stream_check.c"], name="arm_stream_check", compiler=cc,
                defines={"RL_VBYTES": 16}, flags=["-static", "-pthread", "-fno-tree-vectorize", "-lm"],
                executable=True)
    r = subprocess.run([QEMU, str(exe.path)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "all checks passed" in r.stdout and "30 cases" in r.stdout


def test_non_temporal_stream_kernels_audit_as_ldnp_and_stnp(cc):
    from rooflab.kernels.builders import audit_stream

    lib = build_kernel("stream", name="stream_a64", compiler=cc, flags=["-fno-tree-vectorize"],
                       defines={"RL_VBYTES": 16})
    for kind in ("read", "copy", "triad", "read_nt", "copy_nt", "triad_nt"):
        a = audit_function(lib.path, f"rl_{kind}_pass", objdump=cc.tool("objdump"))
        assert a is not None and audit_stream(kind, a.to_dict(), 16) is None, (kind, a.to_dict())
    nt = audit_function(lib.path, "rl_copy_nt_pass", objdump=cc.tool("objdump"))
    assert nt.nt_stores == nt.stores == 2  # one STNP of two q registers per iteration

"""explain on kernels of the Parboil benchmarks' CPU versions, cut out of a checkout of Parboil (code written outside
this project).

Parboil (University of Illinois) pairs each GPU benchmark with a plain C version for the CPU; these are those
versions' kernels, as written:

- ``stencil``: ``cpu_stencil`` (``benchmarks/stencil/src/cpu/kernels.c``), a 7-point Jacobi step over a 3-D grid,
  indexed ``i + nx*(j + ny*k)`` with the ``k`` loop innermost;
- ``mri_q`` and ``mri_phimag``: ``ComputeQCPU`` and ``ComputePhiMagCPU`` (``benchmarks/mri-q/src/cpu/computeQ.cc``,
  C in a C++ file's name: written out as C), the MRI reconstruction's Q matrix (a sum over the k-space samples of
  ``cosf`` and ``sinf`` terms for each voxel) and the samples' magnitudes;
- ``sad4`` and ``larger_sads``: ``sad4_cpu`` with the ``sad4_one_macroblock`` it calls, and ``larger_sads``
  (``benchmarks/sad/src/base/sad_cpu.c``), the H.264 motion search's sums of absolute differences of 4x4 blocks over
  a +-16 pixel window, and the sums of larger blocks built from them.

Each file's own header (``common.h``, ``sad.h``) is put at its head; ``static`` and ``inline`` are taken off the
kernels themselves (rooflab calls them from outside the file). The answers (the finding that should come first;
"a|b" takes either) and the work (operations and bytes per call, counted from the source) are this project's, in
CASES below, written down before explain first ran on them.

    git clone --depth 1 https://github.com/abduld/Parboil /tmp/parboil
    python targets/parboil_cases.py /tmp/parboil [--quick] [--case NAME ...] [--write-only DIR]

Run it on a quiet machine, alone.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from testsuite_cases import _function, cut_main, write_table  # noqa: E402  (cutting, writing, running)
from tsvc_cases import _strip_comments  # noqa: E402  (cutting)

STENCIL = Path("benchmarks/stencil/src/cpu/kernels.c")
STENCIL_H = Path("benchmarks/stencil/src/cpu/common.h")
MRIQ = Path("benchmarks/mri-q/src/cpu/computeQ.cc")
SAD = Path("benchmarks/sad/src/base/sad_cpu.c")
SAD_H = Path("benchmarks/sad/src/base/sad.h")

CASES: dict[str, dict] = {
    # the innermost loop is k, and k is the slowest index of i + nx*(j + ny*k): every element read and written lies a
    # plane (64 KiB) from the last, a line and a page each
    "stencil": {"answer": "strided", "flops": "8*(nx-2)*(ny-2)*(nz-2)", "bytes": "8*nx*ny*nz"},
    # per voxel and sample a cosf and a sinf: the libm calls, scalar, are the time
    "mri_q": {"answer": "calls", "flops": "12*numK*numX", "bytes": "16*numK*numX + 20*numX"},
    # a stream of two arrays into a third, 48 MiB in all: written down as "as fast as DRAM gives it" ("clean" or one
    # thread); at its first run it ran at 108% of the roof of ordinary stores, and streaming stores measured 1.28x
    # (95% CI 1.20-1.37): every line of phiMag is read before it is written, so its answer is write-allocate
    "mri_phimag": {"answer": "write_allocate", "flops": "3*numK", "bytes": "12*numK"},
    # the search prints a line for every block and position (a debugging printf left in the loop): the call is the
    # time, ahead of the 4x4 loops and their clamps
    "sad4": {"answer": "calls", "flops": "0", "bytes": "2*2*256*1089*mbw*mbh"},
    # sums of rows of 1,089 shorts into other rows of the same array: vector adds streaming from L3
    "larger_sads": {"answer": "clean|single_thread", "flops": "0", "bytes": "6*1089*36*mbs"},
}


def _header(path: Path) -> str:
    return _strip_comments(path.read_text()) + "\n"


def _exported(src: str) -> str:
    """The source with its ``static inline`` functions made plain ones (rooflab calls them from outside the file)."""
    return re.sub(r"^static\s+inline\s+(void|float|double|int)\s+(\w+)\s*\(", r"\1 \2(", src, flags=re.M)


def stencil_case(root: Path, case: dict) -> tuple[str, dict, dict]:
    src = _strip_comments((root / STENCIL).read_text())
    code = _header(root / STENCIL_H) + _function(src, "cpu_stencil") + "\n"
    grid = {"shape": ["nx * ny * nz"], "dtype": "float32"}
    args = {"c0": 1.0 / 6.0, "c1": 1.0 / 6.0 / 6.0, "A0": grid, "Anext": {**grid, "fill": "zeros", "output": True},
            "nx": "nx", "ny": "ny", "nz": "nz"}
    return code, args, {"nx": [128], "ny": [128], "nz": [64]}


def mriq_case(root: Path, case: dict) -> tuple[str, dict, dict]:
    src = _exported(_strip_comments((root / MRIQ).read_text()))
    defines = "".join(m.group(0) + "\n" for m in re.finditer(r"^#define\s+\w+.*$", src, re.M))
    kvalues = re.search(r"struct kValues\s*\{.*?\};", src, re.S).group(0)
    head = "#include <math.h>\n" + defines + kvalues + "\n"
    if case is CASES["mri_q"]:
        code = head + _function(src, "ComputeQCPU") + "\n"
        coords = {"shape": ["numX"], "dtype": "float32", "fill": "rng.uniform(-0.5, 0.5, numX)"}
        args = {"numK": "numK", "numX": "numX",
                "kVals": {"shape": ["numK", 4], "dtype": "float32", "fill": "rng.uniform(-0.5, 0.5, (numK, 4))"},
                "x": coords, "y": coords, "z": coords,
                "Qr": {"shape": ["numX"], "dtype": "float32", "fill": "zeros", "output": True},
                "Qi": {"shape": ["numX"], "dtype": "float32", "fill": "zeros", "output": True}}
        return code, args, {"numK": [2048], "numX": [2048]}
    code = head + _function(src, "ComputePhiMagCPU") + "\n"
    part = {"shape": ["numK"], "dtype": "float32"}
    args = {"numK": "numK", "phiR": part, "phiI": part,
            "phiMag": {**part, "fill": "zeros", "output": True}}
    return code, args, {"numK": [1 << 22]}


def sad_case(root: Path, case: dict) -> tuple[str, dict, dict]:
    src = _strip_comments((root / SAD).read_text())
    src = re.sub(r'^\s*#\s*include\s+"sad\.h"\s*$', "", src, flags=re.M)
    code = _header(root / SAD_H) + src + "\n"
    sads = "41 * 1092 * mbw * mbh"
    if case is CASES["sad4"]:
        frame = {"shape": ["256 * mbw * mbh"], "dtype": "uint16", "fill": "rng.integers(0, 256, 256 * mbw * mbh)"}
        args = {"blk_sad": {"shape": [sads], "dtype": "uint16", "fill": "zeros", "output": True},
                "frame": frame, "ref": frame, "mb_width": "mbw", "mb_height": "mbh"}
        return code, args, {"mbw": [2], "mbh": [2]}
    args = {"sads": {"shape": ["41 * 1092 * mbs"], "dtype": "uint16", "fill": "rng.integers(0, 2000, 41 * 1092 * mbs)",
                     "output": True}, "mbs": "mbs"}
    return code, args, {"mbs": [99]}


_CUT = {"stencil": (stencil_case, "cpu_stencil"), "mri_q": (mriq_case, "ComputeQCPU"),
        "mri_phimag": (mriq_case, "ComputePhiMagCPU"), "sad4": (sad_case, "sad4_cpu"),
        "larger_sads": (sad_case, "larger_sads")}


def write(root: Path, out: Path, names: list[str] | None) -> tuple[Path, dict[str, str], list[str]]:
    """Each case's C file and one spec in ``out``; returns the spec's path, per case left out why, and the cases."""
    return write_table(root, out, "parboil", CASES, names, _CUT)


def main() -> int:
    return cut_main(__doc__, "Parboil", STENCIL, "stencil", "parboil", CASES,
                    lambda args, out: write(args.root, out, args.case))


if __name__ == "__main__":
    sys.exit(main())

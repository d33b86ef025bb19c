"""rooflab explain on C kernels of the Rodinia benchmark suite's OpenMP programs, written outside this project: LU
factorization, the HotSpot and HotSpot3D thermal stencils, Needleman-Wunsch alignment and SRAD speckle reduction;
with the double-accumulated dot product of LLVM's test suite (``SingleSource/Benchmarks/Misc/fp-convert.c``).

Rodinia (https://github.com/yuhc/gpu-rodinia, its ``openmp`` folder) is the heterogeneous-computing suite of the
University of Virginia; its OpenMP programs are C, or C written in C++ files. This script does not hold their code.
Given a checkout, it cuts each kernel out as its authors wrote it and writes it as a C file of its own:

- ``lud/base/lud_base.c``: the whole file (unblocked LU in place, i-j-k);
- ``hotspot3D/3D.c``: ``computeTempCPU`` (a 7-point stencil whose neighbours are picked by conditionals at the
  borders, one time step) and ``accuracy`` (a float sum of squared differences), with the file's globals;
- ``hotspot/hotspot_openmp.cpp``: ``single_iteration`` (the 2-D stencil over 16 x 16 chunks, border chunks through
  a chain of conditionals, inner chunks in an ``omp simd`` loop), with the file's macros and globals and
  ``num_omp_threads`` = 2;
- ``nw/needle.cpp``: ``nw_optimized`` (the alignment matrix in 16 x 16 blocks along anti-diagonals, each block
  copied in, swept and copied back), with ``maximum`` before it as a ``static`` function (an executable may inline
  it; a shared library's interposable global function may not be);
- ``srad/srad_v2/srad.cpp``: its ``main`` holds the kernel, two OpenMP loop nests (the diffusion coefficient from
  four neighbours read through index arrays, then the update); they are put, as written, in a function whose
  parameters are the variables they use, with ``main``'s declarations of its locals.

The arrays are filled as the programs fill them where that matters (SRAD's index arrays, its image exp() of random
values; LU's matrix diagonally dominant as Rodinia's generator makes it), else with rooflab's random fill; scalar
parameters get the values the programs compute from their default inputs. The answers (the finding that should
come first; "a|b" takes either) and the work (operations and bytes per call, counted from the source) are this
project's, in CASES below, written down before explain first ran on them (commit 63ce8d2); RELABELED lists the
one changed after that first run, on a measurement of its own.

    git clone --depth 1 https://github.com/yuhc/gpu-rodinia /tmp/rodinia
    git clone --depth 1 https://github.com/llvm/llvm-test-suite /tmp/llvm-test-suite
    python targets/rodinia_cases.py /tmp/rodinia [--llvm /tmp/llvm-test-suite] [--quick] [--case NAME ...]
                                    [--write-only DIR]

Run it on a quiet machine, alone.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from testsuite_cases import _function, cut_main, write_cut  # noqa: E402  (cutting, writing, running)
from tsvc_cases import _strip_comments  # noqa: E402  (cutting)

OMP = Path("openmp")
LUD = OMP / "lud/base/lud_base.c"
HOT3D = OMP / "hotspot3D/3D.c"
HOT2D = OMP / "hotspot/hotspot_openmp.cpp"
NW = OMP / "nw/needle.cpp"
SRAD = OMP / "srad/srad_v2/srad.cpp"
FP_CONVERT = Path("SingleSource/Benchmarks/Misc/fp-convert.c")

# HotSpot3D's constants for its 512 x 512 x 8 input (3D.c's main): chip 0.016 m square, 0.0005 m thick
_DX, _DY, _DZ = 0.016 / 512, 0.016 / 512, 0.0005 / 8
_CAP3 = 0.5 * 1.75e6 * 0.0005 * _DX * _DY
_DT3 = 0.001 / (3.0e6 / (0.5 * 0.0005 * 1.75e6))
HOT3D_ARGS = {"Cap": _CAP3, "Rx": _DY / (2.0 * 100 * 0.0005 * _DX), "Ry": _DX / (2.0 * 100 * 0.0005 * _DY),
              "Rz": _DZ / (100 * _DX * _DY), "dt": _DT3, "numiter": 1}
# HotSpot's for a 1024 x 1024 grid (compute_tran_temp): the reciprocals it passes to single_iteration
_GH = _GW = 0.016 / 1024
_CAP2 = 0.5 * 1.75e6 * 0.0005 * _GW * _GH
_RX2, _RY2 = _GW / (2.0 * 100 * 0.0005 * _GH), _GH / (2.0 * 100 * 0.0005 * _GW)
_RZ2 = 0.0005 / (100 * _GH * _GW)
_STEP2 = 0.001 / (3.0e6 / (0.5 * 0.0005 * 1.75e6)) / 1000.0
HOT2D_ARGS = {"Cap_1": _STEP2 / _CAP2, "Rx_1": 1 / _RX2, "Ry_1": 1 / _RY2, "Rz_1": 1 / _RZ2, "step": _STEP2}

# case -> how it is cut, and (answer, operations per call, bytes per call). An int or float is 4 bytes, each element
# used read or written once per call; "clean": nothing wrong (at its roof, or only "use the other CPUs").
CASES: dict[str, dict] = {
    # a[k*size + j] walked down a column in the innermost k loop, summed in order into one float; at 512 the
    # column's lines are 2 KiB apart (a power of two)
    "lud_512": {"cut": "lud", "n": 512, "answer": "strided|conflicts|reduction_chain",
                "flops": "2*size*size*size/3", "bytes": "4*size*size"},
    "lud_600": {"cut": "lud", "n": 600, "answer": "strided|reduction_chain", "flops": "2*size*size*size/3",
                "bytes": "4*size*size"},
    # neighbours picked by six conditionals on the borders: indices the vectorizer cannot follow
    "hotspot3d": {"cut": "hot3d", "answer": "control_flow|indirect", "flops": "16*nx*ny*nz",
                  "bytes": "12*nx*ny*nz"},
    # a float sum of squares, added in order
    "hotspot3d_accuracy": {"cut": "accuracy", "answer": "reduction_chain", "flops": "3*len", "bytes": "8*len"},
    # 16-wide rows of 16 x 16 chunks (one vector an iteration), border chunks through ten branches per cell
    "hotspot": {"cut": "hot2d", "answer": "short_trips|control_flow", "flops": "15*row*col",
                "bytes": "12*row*col"},
    # each cell the max of three neighbours, its left one just computed: a chain along each row of a block
    "nw": {"cut": "nw", "answer": "dependency_chain", "flops": "4*max_rows*max_cols",
           "bytes": "12*max_rows*max_cols"},
    # float images, double literals (0.5, 1.0 / 16.0, .25, 1.0): the arithmetic done in double, with two double
    # divisions a pixel
    "srad": {"cut": "srad", "answer": "conversions|div_sqrt", "flops": "45*rows*cols", "bytes": "44*rows*cols"},
    # a dot product of floats accumulated in one double, in order
    "fp_convert": {"cut": "fp_convert", "answer": "reduction_chain", "flops": "2*length", "bytes": "8*length"},
}


# answers changed after the first run, each on a measurement of its own (the answer written down first, then why):
# the report judges by the new one; the first run's figure (6 of 8) was judged by the old
RELABELED: dict[str, tuple[str, str]] = {
    # the samples fall mostly outside innermost loops, in the 16 x 16 blocks' copies (unrolled) and their set-up;
    # the same source with BLOCK_SIZE 64 (a quarter of the parallel regions, four times the trips) ran 1.38x
    # (`rooflab compare`, 95% CI 1.35-1.42): the short blocks, not the chain within a row, come first
    "nw": ("dependency_chain", "short_trips|omp_overhead"),
}
for _name, (_first, _now) in RELABELED.items():
    assert CASES[_name]["answer"] == _first
    CASES[_name]["answer"] = _now


def _includes(*names: str) -> str:
    return "".join(f"#include <{n}>\n" for n in names)


def _float_array(n: str, **extra) -> dict:
    return {"shape": [n], "dtype": "float32", **extra}


def lud_case(root: Path, case: dict) -> tuple[str, dict, dict]:
    src = _strip_comments((root / LUD).read_text())
    # Rodinia's input generator: a diagonally dominant matrix (no pivoting needed)
    fill = "rng.random((size, size)) + np.eye(size) * size"
    args = {"a": {"shape": ["size * size"], "dtype": "float32", "fill": f"({fill}).ravel()", "output": True},
            "size": "size"}
    return src, args, {"size": [case["n"]]}


def _globals(src: str, names: list[str]) -> str:
    """The lines of a source that declare its globals ``names`` (``float t_chip = 0.0005;``)."""
    out = []
    for line in src.splitlines():
        if re.match(r"^(?:const\s+)?\w+\s+\w+\s*=", line) and any(re.search(rf"\b{n}\b", line) for n in names):
            out.append(line.strip())
    return "\n".join(out) + "\n"


def hot3d_case(root: Path, case: dict) -> tuple[str, dict, dict]:
    src = _strip_comments((root / HOT3D).read_text())
    head = _includes("math.h") + _globals(src, ["t_chip", "chip_height", "amb_temp"])
    if case["cut"] == "accuracy":
        args = {"arr1": _float_array("len"), "arr2": _float_array("len"), "len": "len"}
        return head + _function(src, "accuracy") + "\n", args, {"len": [1 << 20]}
    n = "nx * ny * nz"
    args = {"pIn": _float_array(n), "tIn": _float_array(n, fill="rng.uniform(320.0, 340.0, nx * ny * nz)"),
            "tOut": _float_array(n, fill="zeros", output=True), "nx": "nx", "ny": "ny", "nz": "nz",
            **HOT3D_ARGS}
    return head + _function(src, "computeTempCPU") + "\n", args, {"nx": [512], "ny": [512], "nz": [8]}


def hot2d_case(root: Path, case: dict) -> tuple[str, dict, dict]:
    src = _strip_comments((root / HOT2D).read_text())
    defines = "".join(line.strip() + "\n" for line in src.splitlines()
                      if re.match(r"^\s*#\s*define\s+(BLOCK_SIZE\w*|OPEN)\b", line))
    typedef = re.search(r"^\s*typedef\s+float\s+FLOAT\s*;", src, flags=re.M).group(0).strip()
    consts = _globals(src, ["amb_temp"])
    head = _includes("omp.h") + defines + typedef + "\n" + consts + "int num_omp_threads = 2;\n"
    n = "row * col"
    args = {"result": _float_array(n, fill="zeros", output=True),
            "temp": _float_array(n, fill="rng.uniform(320.0, 340.0, row * col)"), "power": _float_array(n),
            "row": "row", "col": "col", **HOT2D_ARGS}
    return head + _function(src, "single_iteration") + "\n", args, {"row": [1024], "col": [1024]}


def nw_case(root: Path, case: dict) -> tuple[str, dict, dict]:
    src = _strip_comments((root / NW).read_text())
    src = re.sub(r"^\s*#\s*ifdef\s+OMP_OFFLOAD.*?^\s*#\s*endif\s*$", "", src, flags=re.M | re.S)
    defines = "".join(line.strip() + "\n" for line in src.splitlines()
                      if re.match(r"^\s*#\s*define\s+(BLOCK_SIZE|OPENMP|LIMIT)\b", line))
    head = _includes("stdio.h", "stdlib.h", "omp.h") + defines
    code = "static " + _function(src, "maximum") + "\n" + _function(src, "nw_optimized") + "\n"
    n = "max_rows * max_cols"
    # needle.cpp's main: the first row and column -i * penalty, the reference scores from BLOSUM62 (-4 to 11)
    first = "np.where((np.arange(max_rows)[:, None] == 0) | (np.arange(max_cols)[None, :] == 0), " \
            "-np.add.outer(np.arange(max_rows), np.arange(max_cols)) * 10, 0).ravel()"
    args = {"input_itemsets": {"shape": [n], "dtype": "int32", "fill": first, "output": True},
            "output_itemsets": {"shape": [n], "dtype": "int32", "fill": "zeros"},
            "referrence": {"shape": [n], "dtype": "int32", "fill": "rng.integers(-4, 12, max_rows * max_cols)"},
            "max_rows": "max_rows", "max_cols": "max_cols", "penalty": 10}
    return head + code, args, {"max_rows": [2049], "max_cols": [2049]}


_SRAD_PARAMS = ("float *J, float *c, float *dN, float *dS, float *dW, float *dE, int *iN, int *iS, int *jW, "
                "int *jE, int rows, int cols, float q0sqr, float lambda, int nthreads")


def srad_case(root: Path, case: dict) -> tuple[str, dict, dict]:
    src = _strip_comments((root / SRAD).read_text())
    main = _function(src, "main")
    start = main.index("#ifdef OPEN", main.index("q0sqr   ="))
    end = main.index("#ifdef ITERATION", start)
    nests = main[start:end]
    # main's declarations of the locals the nests use
    decls = ["int k;", "float Jc, G2, L, num, den, qsqr;", "float cN,cS,cW,cE;", "float D;", "int i, j;"]
    code = (_includes("omp.h", "stdio.h") + "#define OPEN\n" + f"void srad_kernel({_SRAD_PARAMS})\n{{\n"
            + "\n".join(decls) + "\n" + nests + "}\n")
    n = "rows * cols"
    ints = {"dtype": "int32"}
    args = {"J": _float_array(n, fill="np.exp(rng.random(rows * cols))", output=True),
            "c": _float_array(n, fill="zeros", output=True),
            **{d: _float_array(n, fill="zeros", output=True) for d in ("dN", "dS", "dW", "dE")},
            "iN": {"shape": ["rows"], **ints, "fill": "np.maximum(np.arange(rows) - 1, 0)"},
            "iS": {"shape": ["rows"], **ints, "fill": "np.minimum(np.arange(rows) + 1, rows - 1)"},
            "jW": {"shape": ["cols"], **ints, "fill": "np.maximum(np.arange(cols) - 1, 0)"},
            "jE": {"shape": ["cols"], **ints, "fill": "np.minimum(np.arange(cols) + 1, cols - 1)"},
            "rows": "rows", "cols": "cols", "q0sqr": 0.05, "lambda": 0.5, "nthreads": 2}
    return code, args, {"rows": [512], "cols": [512]}


def fp_convert_case(llvm: Path, case: dict) -> tuple[str, dict, dict]:
    src = _strip_comments((llvm / FP_CONVERT).read_text())
    args = {"x": _float_array("length"), "y": _float_array("length"), "length": "length"}
    return _function(src, "loop") + "\n", args, {"length": [2048]}


_CUT = {"lud": lud_case, "hot3d": hot3d_case, "accuracy": hot3d_case, "hot2d": hot2d_case, "nw": nw_case,
        "srad": srad_case}
_FUNCTION = {"lud": "lud_base", "hot3d": "computeTempCPU", "accuracy": "accuracy", "hot2d": "single_iteration",
             "nw": "nw_optimized", "srad": "srad_kernel", "fp_convert": "loop"}


def write(root: Path, llvm: Path | None, out: Path, names: list[str] | None) -> tuple[Path, dict[str, str], list[str]]:
    """Each case's C file and one spec in ``out``; returns the spec's path, per case left out why, and the cases."""
    def cut(case: dict) -> tuple:
        if case["cut"] == "fp_convert":
            if llvm is None:
                raise ValueError("needs --llvm (a checkout of llvm-test-suite)")
            code, args, sizes = fp_convert_case(llvm, case)
        else:
            code, args, sizes = _CUT[case["cut"]](root, case)
        return code, args, sizes, _FUNCTION[case["cut"]], "threads = 2\n" if "omp.h" in code else ""

    return write_cut(out, "rodinia", CASES, names, cut)


def main() -> int:
    def llvm(ap: argparse.ArgumentParser) -> None:
        ap.add_argument("--llvm", type=Path, help="a checkout of llvm-test-suite (for fp_convert)")

    return cut_main(__doc__, "Rodinia (with its openmp folder)", LUD, "lud_512", "rodinia", CASES,
                    lambda args, out: write(args.root, args.llvm, out, args.case), llvm)

if __name__ == "__main__":
    sys.exit(main())

"""rooflab explain on C kernels of the NAS Parallel Benchmarks (their OpenMP C version, NPB 3.0), written outside
this project: CG's conjugate-gradient iteration, EP's Gaussian pairs and the random-number generator they come from,
LU's norm, and MG's residual, smoother and restriction over grids allocated plane by plane (``double ***``).

The NAS Parallel Benchmarks are NASA's; their OpenMP C translation (https://github.com/edeiana/NPB3.0-omp-C, a copy of
the Omni compiler project's) is C with OpenMP. This script does not hold their code. Given a checkout, it cuts each
kernel out as its authors wrote it and writes it as a C file of its own:

- ``CG/cg.c``: ``conj_grad`` (25 iterations of conjugate gradients on a sparse matrix in compressed rows: the
  matrix-vector product, dot products and updates, in OpenMP regions), with the file's globals (the row and column
  ranges ``main`` sets, given here for the matrix below);
- ``common/c_randdp.c``: ``vranlc`` (NPB's linear congruential generator in double precision, x = a x mod 2^46);
- ``EP/ep.c``: its ``main``'s parallel region (for each batch: seed, ``vranlc``, then Gaussian pairs by
  acceptance-rejection with ``log`` and ``sqrt``, counted in annuli), put as written in a function whose parameters
  are the variables it uses, with the file's globals and the generator;
- ``LU/lu.c``: ``l2norm`` (five sums of squares over the grid of 5-vectors, an OpenMP region);
- ``MG/mg.c``: ``resid`` (the residual's 27-point stencil), ``psinv`` (the smoother's) and ``rprj3`` (the
  restriction to the grid half as fine), each with ``comm3`` (the periodic borders) and the reporting functions they
  call when debugging, with the file's globals.

``npb-C.h`` (the suite's macros and ``dcomplex``) is put at the head of each; the class parameters that NPB's
``setparams`` writes into ``npbparams.h`` are given by this script (LU's and MG's grid sizes, EP's M), as the
benchmark's class W or A sets them. The arrays are filled as the programs fill them where that matters (CG's
sparse rows with sorted columns, the generator's odd seed), else with rooflab's random fill. The answers (the finding
that should come first; "a|b" takes either) and the work (operations and bytes per call, counted from the source) are
this project's, in CASES below, written down before explain first ran on them.

    git clone --depth 1 https://github.com/edeiana/NPB3.0-omp-C /tmp/npb
    python targets/npb_cases.py /tmp/npb [--quick] [--case NAME ...] [--write-only DIR]

Run it on a quiet machine, alone.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from testsuite_cases import _function, cut_main, write_cut  # noqa: E402  (cutting, writing, running)
from tsvc_cases import _strip_comments  # noqa: E402  (cutting)

HEADER = Path("common/npb-C.h")
RAND = Path("common/c_randdp.c")
CG = Path("CG/cg.c")
EP = Path("EP/ep.c")
LU = Path("LU/lu.c")
MG = Path("MG/mg.c")
MG_GLOBALS = Path("MG/globals.h")

# CG's matrix: NA rows of PER nonzeros each (class W's order of magnitude), columns sorted within a row
CG_NA, CG_PER = 7000, 64
# EP: 2^16 pairs a batch (MK = 16), 8 batches a call; AN = A^(2^17) mod 2^46, as EP's main computes it
EP_MK, EP_BATCHES = 16, 8
EP_A = 1220703125
EP_AN = float(pow(EP_A, 2 ** (EP_MK + 1), 2 ** 46))
# LU: class A (a 64^3 grid; ISIZ2/2*2+1 pads the second and third dimensions to 65)
LU_N = 64
# MG: class W's finest grid, 64^3 plus its borders
MG_N = 66

# case -> how it is cut, and (answer, operations per call, bytes per call); an element is read or written once per
# touch counted
CASES: dict[str, dict] = {
    # the product's inner loop: sum = sum + a[k]*p[colidx[k]], an in-order sum through a gather, 64 terms a row
    "cg": {"cut": "cg", "answer": "reduction_chain|indirect", "flops": "26*2*na*per + 25*10*na",
           "bytes": "26*12*na*per + 25*88*na"},
    # each number from the one before through multiplies and double -> int -> double truncations
    "vranlc": {"cut": "vranlc", "answer": "dependency_chain|conversions", "flops": "16*n", "bytes": "8*n"},
    # per batch the generator's chain (2^17 numbers), then log and sqrt calls for three pairs in four
    "ep": {"cut": "ep", "answer": "calls|dependency_chain", "flops": "batches*44*65536",
           "bytes": "batches*32*65536"},
    # five in-order sums of squares, one per component of the 5-vectors
    "lu_l2norm": {"cut": "l2norm", "answer": "reduction_chain", "flops": "10*(n-2)*(n-2)*(n-2)",
                  "bytes": "40*(n-2)*(n-2)*(n-2)"},
    # 27-point stencils over 66^3 grids (2.3 MB each, in L3): vectorized rows, as fast as the cache delivers
    "mg_resid": {"cut": "resid", "answer": "clean", "flops": "23*(n-2)*(n-2)*(n-2)", "bytes": "24*n*n*n"},
    "mg_psinv": {"cut": "psinv", "answer": "clean", "flops": "20*(n-2)*(n-2)*(n-2)", "bytes": "24*n*n*n"},
    # the fine grid read every other element (i1 = 2*j1 - d1) into the coarse one
    "mg_rprj3": {"cut": "rprj3", "answer": "strided", "flops": "31*(n/2-1)*(n/2-1)*(n/2-1)",
                 "bytes": "8*n*n*n + 8*(n/2+1)*(n/2+1)*(n/2+1)"},
}


def _header(root: Path) -> str:
    """npb-C.h as the kernels see it: its includes, types and macros (its declarations of the timers and the
    report, which the cut kernels do not call, left out)."""
    src = _strip_comments((root / HEADER).read_text())
    src = re.sub(r"^extern\s+void\s+(timer_\w+|c_print_results)\b.*?;\s*$", "", src, flags=re.M | re.S)
    src = re.sub(r"^extern\s+double\s+timer_read\b.*?;\s*$", "", src, flags=re.M)
    return src + "\n"


def _rand(root: Path, names: tuple[str, ...] = ("randlc", "vranlc")) -> str:
    src = _strip_comments((root / RAND).read_text())
    macros = "".join(m.group(0) + "\n" for m in re.finditer(r"^#if defined\(USE_POW\).*?^#endif", src, re.M | re.S))
    return macros + "".join(_function(src, n) + "\n" for n in names)


def _globals(src: str, names: list[str]) -> str:
    """The declarations of a file's globals ``names`` (``static int naa;``), as lines."""
    out = []
    for line in src.splitlines():
        if re.match(r"^\s*static\s+\w+\s+[^()]*;", line) and any(re.search(rf"\b{n}\b", line) for n in names):
            out.append(line.strip())
    return "\n".join(out) + "\n"


def cg_case(root: Path, case: dict) -> tuple[str, dict, dict]:
    src = _strip_comments((root / CG).read_text())
    # main sets the ranges from the order NA: all rows and columns, 1-based
    ranges = (f"static int naa = {CG_NA};\nstatic int firstrow = 1;\nstatic int lastrow = {CG_NA};\n"
              f"static int firstcol = 1;\nstatic int lastcol = {CG_NA};\n")
    code = _header(root) + ranges + _function(src, "conj_grad") + "\n"
    code = code.replace("static void conj_grad", "void conj_grad", 1)
    nnz1 = "na * per + 1"
    vec = {"shape": ["na + 3"], "dtype": "float64"}
    args = {"colidx": {"shape": [nnz1], "dtype": "int32",
                       "fill": "np.concatenate(([0], np.sort(rng.integers(1, na + 1, (na, per)), axis=1).ravel()))"},
            "rowstr": {"shape": ["na + 2"], "dtype": "int32",
                       "fill": "np.concatenate(([0], 1 + np.arange(na + 1) * per))"},
            "x": {**vec, "fill": "np.ones(na + 3)"}, "z": {**vec, "fill": "zeros", "output": True},
            "a": {"shape": [nnz1], "dtype": "float64", "fill": "rng.uniform(-0.01, 0.01, na * per + 1)"},
            "p": {**vec, "fill": "zeros", "output": True}, "q": {**vec, "fill": "zeros", "output": True},
            "r": {**vec, "fill": "zeros", "output": True},
            "rnorm": {"shape": [1], "dtype": "float64", "fill": "zeros", "output": True}}
    return code, args, {"na": [CG_NA], "per": [CG_PER]}


def vranlc_case(root: Path, case: dict) -> tuple[str, dict, dict]:
    code = _header(root) + _rand(root, ("vranlc",))
    args = {"n": "n", "x_seed": {"shape": [1], "dtype": "float64", "fill": "np.full(1, 314159265.0)", "output": True},
            "a": float(EP_A), "y": {"shape": ["n + 1"], "dtype": "float64", "fill": "zeros", "output": True}}
    return code, args, {"n": [1 << 16]}


def ep_case(root: Path, case: dict) -> tuple[str, dict, dict]:
    src = _strip_comments((root / EP).read_text())
    main = _function(src, "main")
    start = main.index("#pragma omp parallel copyin(x)")
    end = main.index("}", main.index("nthreads = omp_get_num_threads();")) + 1
    region = main[start:end]
    region = re.sub(r"^\s*if \(TIMERS_ENABLED == TRUE\).*$", "", region, flags=re.M)  # timers off, as EP has them
    defines = "".join(line.strip() + "\n" for line in src.splitlines()
                      if re.match(r"^\s*#\s*define\s+(MK|NK|NQ|A|S)\b", line))
    glob = _globals(src, ["x", "q"]) + "#pragma omp threadprivate(x)\nstatic int nthreads;\n"
    code = (_header(root) + _rand(root) + defines + glob
            + "void ep_kernel(int np, double an, double *sums)\n{\n"
            + "    double sx = 0.0, sy = 0.0;\n    int k, k_offset = -1;\n"
            + region + "\n    sums[0] = sx;\n    sums[1] = sy;\n}\n")
    args = {"np": "batches", "an": EP_AN, "sums": {"shape": [2], "dtype": "float64", "fill": "zeros",
                                                    "output": True}}
    return code, args, {"batches": [EP_BATCHES]}


def l2norm_case(root: Path, case: dict) -> tuple[str, dict, dict]:
    src = _strip_comments((root / LU).read_text())
    params = f"#define ISIZ1 {LU_N}\n#define ISIZ2 {LU_N}\n#define ISIZ3 {LU_N}\n"
    code = _header(root) + params + _function(src, "l2norm").replace("static void", "void", 1) + "\n"
    pad = "n / 2 * 2 + 1"
    args = {"nx0": "n", "ny0": "n", "nz0": "n", "ist": 1, "iend": "n - 2", "jst": 1, "jend": "n - 2",
            "v": {"shape": ["n", pad, pad, 5], "dtype": "float64"},
            "sum": {"shape": [5], "dtype": "float64", "fill": "zeros", "output": True}}
    return code, args, {"n": [LU_N]}


def _mg(root: Path, name: str) -> str:
    src = _strip_comments((root / MG).read_text())
    glob = _strip_comments((root / MG_GLOBALS).read_text())
    glob = re.sub(r'^\s*#\s*include\s+"npbparams.h"\s*$', "#define LM 7\n#define NDIM1 6\n#define NDIM2 6\n"
                  "#define NDIM3 6\n", glob, flags=re.M)
    helpers = "".join(_function(src, f) + "\n" for f in ("norm2u3", "rep_nrm", "comm3", "showall"))
    protos = "".join(re.search(rf"^static void {f}\(.*?\);", src, re.M | re.S).group(0) + "\n"
                     for f in ("norm2u3", "rep_nrm", "comm3", "showall"))
    return (_header(root) + glob + protos + _function(src, name).replace("static void", "void", 1) + "\n"
            + helpers)


def _grid(n: str, **extra) -> dict:
    return {"shape": [n, n, n], "dtype": "float64", **extra}


def mg_case(root: Path, case: dict) -> tuple[str, dict, dict]:
    cut = case["cut"]
    code = _mg(root, cut)
    # MG's coefficients for classes S, W and A (main): a for the residual, c for the smoother
    a = {"shape": [4], "dtype": "float64", "fill": "np.array([-8.0 / 3.0, 0.0, 1.0 / 6.0, 1.0 / 12.0])"}
    c = {"shape": [4], "dtype": "float64", "fill": "np.array([-3.0 / 8.0, 1.0 / 32.0, -1.0 / 64.0, 0.0])"}
    if cut == "resid":
        args = {"u": _grid("n"), "v": _grid("n"), "r": _grid("n", fill="zeros", output=True),
                "n1": "n", "n2": "n", "n3": "n", "a": a, "k": 6}
    elif cut == "psinv":
        args = {"r": _grid("n"), "u": _grid("n", output=True), "n1": "n", "n2": "n", "n3": "n", "c": c, "k": 6}
    else:  # the restriction from the n^3 grid to the (n/2 + 1)^3 one
        half = "n / 2 + 1"
        args = {"r": _grid("n"), "m1k": "n", "m2k": "n", "m3k": "n", "s": _grid(half, fill="zeros", output=True),
                "m1j": half, "m2j": half, "m3j": half, "k": 6}
    return code, args, {"n": [MG_N]}


_CUT = {"cg": cg_case, "vranlc": vranlc_case, "ep": ep_case, "l2norm": l2norm_case, "resid": mg_case,
        "psinv": mg_case, "rprj3": mg_case}
_FUNCTION = {"cg": "conj_grad", "vranlc": "vranlc", "ep": "ep_kernel", "l2norm": "l2norm", "resid": "resid",
             "psinv": "psinv", "rprj3": "rprj3"}


def write(root: Path, out: Path, names: list[str] | None) -> tuple[Path, dict[str, str], list[str]]:
    """Each case's C file and one spec in ``out``; returns the spec's path, per case left out why, and the cases."""
    def cut(case: dict) -> tuple:
        code, args, sizes = _CUT[case["cut"]](root, case)
        return code, args, sizes, _FUNCTION[case["cut"]], "threads = 2\n" if "#pragma omp" in code else ""

    return write_cut(out, "npb", CASES, names, cut)


def main() -> int:
    return cut_main(__doc__, "NPB3.0-omp-C", CG, "cg", "npb", CASES, lambda args, out: write(args.root, out, args.case))

if __name__ == "__main__":
    sys.exit(main())

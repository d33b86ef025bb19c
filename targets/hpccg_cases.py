"""explain on the vector kernels of HPCCG, cut out of a checkout of HPCCG (code written outside this project).

HPCCG (Mantevo's conjugate-gradient mini-application, the ancestor of HPCG) spends what its sparse product leaves in
two vector kernels, as written in ``ddot.cpp`` and ``waxpby.cpp``:

- ``ddot``: the dot product of two vectors (a sum of squares where they are the same vector), one thread (its OpenMP
  pragmas are under ``USING_OMP``, off as HPCCG builds by default), at 200,000 elements (3.2 MB: L3);
- ``waxpby``: w = alpha x + beta y, with its two shortcuts (alpha = 1, beta = 1), called as the solver calls it to
  update the iterate (alpha = 1), at 2,000,000 elements (48 MB: DRAM).

The files are C++ only in their ``ddot``'s last parameter, a reference (``double & time_allreduce``, used under
``USING_MPI`` only), written as the pointer C has instead; the ``#include`` of each file's own header is left out.
The answers (the finding that should come first; "a|b" takes either) and the work (operations and bytes per call,
counted from the source) are this project's, in CASES below, written down before explain first ran on them.

    git clone --depth 1 https://github.com/Mantevo/HPCCG /tmp/hpccg
    python targets/hpccg_cases.py /tmp/hpccg [--quick] [--case NAME ...] [--write-only DIR]

Run it on a quiet machine, alone.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from testsuite_cases import _function, cut_main, write_table  # noqa: E402  (cutting, writing, running)
from tsvc_cases import _strip_comments  # noqa: E402  (cutting)

DDOT = Path("ddot.cpp")
WAXPBY = Path("waxpby.cpp")

CASES: dict[str, dict] = {
    # one sum added in order (no -ffast-math): each add waits for the last, slower than L3 gives the data
    "ddot": {"answer": "reduction_chain", "flops": "2*n", "bytes": "16*n"},
    # a stream of two arrays into a third from DRAM, vectorized: written down as "as fast as the memory gives it"
    # ("clean" or one thread); at its first run it ran at 86% of the roof of ordinary stores and streaming stores
    # measured 1.41x (95% CI 1.31-1.59): every line of w is read before it is written, so its answer is
    # write-allocate
    "waxpby": {"answer": "write_allocate", "flops": "2*n", "bytes": "24*n"},
}


def _c(path: Path) -> str:
    """A C++-named file as C: its own header's #include left out, a reference parameter made a pointer."""
    src = _strip_comments(path.read_text())
    src = re.sub(r'^\s*#\s*include\s+"[^"]+"\s*$', "", src, flags=re.M)
    return re.sub(r"\bdouble\s*&\s*(\w+)", r"double *\1", src)


def ddot_case(root: Path, case: dict) -> tuple[str, dict, dict]:
    code = _function(_c(root / DDOT), "ddot") + "\n"
    vec = {"shape": ["n"], "dtype": "float64"}
    args = {"n": "n", "x": vec, "y": vec, "result": {"shape": [1], "dtype": "float64", "fill": "zeros",
                                                      "output": True},
            "time_allreduce": {"shape": [1], "dtype": "float64", "fill": "zeros"}}
    return code, args, {"n": [200000]}


def waxpby_case(root: Path, case: dict) -> tuple[str, dict, dict]:
    code = _function(_c(root / WAXPBY), "waxpby") + "\n"
    vec = {"shape": ["n"], "dtype": "float64"}
    args = {"n": "n", "alpha": 1.0, "x": vec, "beta": 0.5, "y": vec, "w": {**vec, "fill": "zeros", "output": True}}
    return code, args, {"n": [2000000]}


_CUT = {"ddot": (ddot_case, "ddot"), "waxpby": (waxpby_case, "waxpby")}


def write(root: Path, out: Path, names: list[str] | None) -> tuple[Path, dict[str, str], list[str]]:
    """Each case's C file and one spec in ``out``; returns the spec's path, per case left out why, and the cases."""
    return write_table(root, out, "hpccg", CASES, names, _CUT)


def main() -> int:
    return cut_main(__doc__, "HPCCG", DDOT, "ddot", "hpccg", CASES, lambda args, out: write(args.root, out, args.case))


if __name__ == "__main__":
    sys.exit(main())

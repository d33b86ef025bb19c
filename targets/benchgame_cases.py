"""explain on C programs of the Computer Language Benchmarks Game, cut out of a checkout of its sources (code written
outside this project).

The Benchmarks Game compares languages on small programs; their plain C versions (the ``*.gcc`` files of ``bench/``)
are loops written the way a programmer first writes them. These cases are their functions, as written:

- ``spectral_a`` and ``spectral_at``: ``eval_A_times_u`` and ``eval_At_times_u`` of ``spectralnorm.gcc`` (a product
  with the infinite matrix A(i, j) = 1 / ((i + j)(i + j + 1) / 2 + i + 1), its entries computed as they are used),
  at the program's N = 2000;
- ``nbody_advance`` and ``nbody_energy``: ``advance`` and ``energy`` of ``nbody.gcc`` (the five planets' pairwise
  forces, one time step; their energy), on an array of ``struct planet``;
- ``fannkuch``: ``fannkuchredux`` of ``fannkuchredux.gcc`` (every permutation of 1..n, each flipped until its first
  element is 1), at n = 9.

Each function is taken with what it uses from its file (the struct, the macros, ``eval_A``, ``max``); the programs'
``main`` is left out. Inputs are the programs' own (``u`` all ones; dt = 0.01) except the planets' positions and
velocities, random in [0.5, 1.5). The answers (the finding that should come first; "a|b" takes either) and the work
(operations and bytes per call, counted from the source) are this project's, in CASES below, written down before
explain first ran on them.

    git clone --depth 1 https://github.com/Byron/benchmarksgame-cvs-mirror /tmp/benchgame
    python targets/benchgame_cases.py /tmp/benchgame [--quick] [--case NAME ...] [--write-only DIR]

Run it on a quiet machine, alone.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from testsuite_cases import _function, cut_main, write_table  # noqa: E402  (cutting, writing, running)
from tsvc_cases import _strip_comments  # noqa: E402  (cutting)

SPECTRAL = Path("bench/spectralnorm/spectralnorm.gcc")
NBODY = Path("bench/nbody/nbody.gcc")
FANNKUCH = Path("bench/fannkuchredux/fannkuchredux.gcc")

CASES: dict[str, dict] = {
    # Au[i] += A(i, j) * u[j]: gcc keeps the sum in a register (storing it every iteration, Au and u may overlap) and
    # divides once per element, scalar: a C driver measured 1.24 ns an element (4.6 cycles, the divider's pace, above
    # the add's 3); a local sum under -ffast-math, vectorized, 0.31 ns
    "spectral_a": {"answer": "div_sqrt", "flops": "3*N*N", "bytes": "16*N"},
    "spectral_at": {"answer": "div_sqrt", "flops": "3*N*N", "bytes": "16*N"},
    # ten pairs of five bodies; gcc keeps sqrt's errno path (a branch to the call): a C driver measured 104 ns a call,
    # 55 ns with -fno-math-errno
    "nbody_advance": {"answer": "calls", "flops": "330", "bytes": "560"},
    # the same pairs, a square root and a division each, summed into one energy in loops of four iterations down to
    # none (37 ns a call with or without -fno-math-errno or -ffast-math)
    "nbody_energy": {"answer": "div_sqrt|short_trips", "flops": "155", "bytes": "280"},
    # each flip reverses a prefix of a few elements, as long as the first one says: loops of a handful of
    # iterations, their counts data-dependent
    "fannkuch": {"answer": "short_trips|control_flow", "flops": "0", "bytes": "12*n"},
}


def spectral_case(root: Path, case: dict) -> tuple[str, dict, dict]:
    src = _strip_comments((root / SPECTRAL).read_text())
    name = "eval_A_times_u" if case is CASES["spectral_a"] else "eval_At_times_u"
    code = "#include <math.h>\n\n" + _function(src, "eval_A") + "\n\n" + _function(src, name) + "\n"
    args = {"N": "N", "u": {"shape": ["N"], "dtype": "float64", "fill": "ones"},
            "Au": {"shape": ["N"], "dtype": "float64", "fill": "zeros", "output": True}}
    return code, args, {"N": [2000]}


def nbody_case(root: Path, case: dict) -> tuple[str, dict, dict]:
    src = _strip_comments((root / NBODY).read_text())
    planet = re.search(r"struct planet\s*\{.*?\};", src, re.S)
    if planet is None:
        raise ValueError(f"no struct planet in {NBODY}")
    defines = "".join(m.group(0) + "\n" for m in re.finditer(r"^#define\s+(?:pi|solar_mass|days_per_year)\b.*$",
                                                             src, re.M))
    head = "#include <math.h>\n" + defines + "\n" + planet.group(0) + "\n\n"
    bodies = {"shape": ["nbodies", 7], "dtype": "float64"}
    if case is CASES["nbody_advance"]:
        code = head + _function(src, "advance") + "\n"
        args = {"nbodies": "nbodies", "bodies": {**bodies, "output": True}, "dt": 0.01}
    else:
        code = head + _function(src, "energy") + "\n"
        args = {"nbodies": "nbodies", "bodies": bodies}
    return code, args, {"nbodies": [5]}


def fannkuch_case(root: Path, case: dict) -> tuple[str, dict, dict]:
    src = _strip_comments((root / FANNKUCH).read_text())
    code = "#include <stdio.h>\n\n" + _function(src, "max") + "\n\n" + _function(src, "fannkuchredux") + "\n"
    return code, {"n": "n"}, {"n": [9]}


_CUT = {"spectral_a": (spectral_case, "eval_A_times_u"), "spectral_at": (spectral_case, "eval_At_times_u"),
        "nbody_advance": (nbody_case, "advance"), "nbody_energy": (nbody_case, "energy"),
        "fannkuch": (fannkuch_case, "fannkuchredux")}


def write(root: Path, out: Path, names: list[str] | None) -> tuple[Path, dict[str, str], list[str]]:
    """Each case's C file and one spec in ``out``; returns the spec's path, per case left out why, and the cases."""
    return write_table(root, out, "benchgame", CASES, names, _CUT)


def main() -> int:
    return cut_main(__doc__, "the Benchmarks Game's sources", SPECTRAL, "nbody_advance", "benchgame", CASES,
                    lambda args, out: write(args.root, out, args.case))


if __name__ == "__main__":
    sys.exit(main())

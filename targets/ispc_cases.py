"""explain on the serial C versions of ispc's examples, cut out of a checkout of ispc (code written outside this
project).

Intel's SPMD compiler ships each of its CPU examples with the plain C++ its vector version is measured against (the
``*_serial.cpp`` files of ``examples/cpu``): the loops people write before they reach for vectors. These cases are
those loops, as written:

- ``mandelbrot``: ``mandelbrot_serial`` with the ``mandel`` it calls (the escape-time iteration per pixel);
- ``black_scholes`` and ``binomial_put``: ``options_serial.cpp``'s two option pricers (a closed formula with
  ``logf``, ``expf`` and ``sqrtf`` per option; a 64-step binomial tree per option, ``powf`` per leaf and a
  triangular backward sweep);
- ``stencil``: ``loop_stencil_serial``, a radius-3 star stencil on a 3-D grid (the wave equation's step), two steps;
- ``noise``: ``noise_serial``, eight octaves of Perlin noise per pixel (hashed gradients from a permutation table);
- ``xyz_sum_aos`` and ``xyz_sum_soa``: ``perfbench_serial.cpp``'s sums of points' coordinates, laid out as an array
  of structures and in blocks of eight.

The files are C++ only in name, and are compiled as C with what C needs instead: ``inline`` functions made
``static inline`` (in C an ``inline`` definition alone defines no symbol), ``std::max`` written as the function
``std::max`` is (``a < b ? b : a``), and ``options_defs.h``'s one line put in place of its ``#include``. Inputs are
the examples' own (the options' S = 100, X = 98, T = 2, r = 0.02, v = 5; the images' windows; perfbench's
``i / 2^20``), except the stencil's grid and velocities, random in [0.5, 1.5), and the sizes, cut to run a call
in tens of milliseconds. The answers (the finding that should come first; "a|b" takes either) and the work
(operations and bytes per call, counted from the source) are this project's, in CASES below, written down before
explain first ran on them.

    git clone --depth 1 https://github.com/ispc/ispc /tmp/ispc
    python targets/ispc_cases.py /tmp/ispc [--quick] [--case NAME ...] [--write-only DIR]

Run it on a quiet machine, alone.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from testsuite_cases import cut_main, write_table  # noqa: E402  (cutting, writing, running)
from tsvc_cases import _strip_comments  # noqa: E402  (cutting)

EXAMPLES = Path("examples/cpu")
MANDEL = EXAMPLES / "mandelbrot/mandelbrot_serial.cpp"
OPTIONS = EXAMPLES / "options/options_serial.cpp"
OPTIONS_H = EXAMPLES / "options/options_defs.h"
STENCIL = EXAMPLES / "stencil/stencil_serial.cpp"
NOISE = EXAMPLES / "noise/noise_serial.cpp"
PERF = EXAMPLES / "perfbench/perfbench_serial.cpp"

MANDEL_SIZE = {"width": 384, "height": 256, "maxIterations": 256}
MANDEL_WINDOW = (-2.0, -1.0, 1.0, 1.0)  # x0, y0, x1, y1: the example's

CASES: dict[str, dict] = {
    # each pixel iterates z = z^2 + c until it escapes: every iteration waits for the last one's multiply and add,
    # and the loop leaves on a test of its data (gcc: "control flow in loop"), so no pixel runs beside another
    "mandelbrot": {"answer": "dependency_chain|control_flow", "flops": None, "bytes": "4*width*height"},
    # per option a logf, three expf and two sqrtf, called one at a time (gcc: "statement clobbers memory" on each)
    "black_scholes": {"answer": "calls", "flops": "60*count", "bytes": "24*count"},
    # per option 64 powf calls, then 63 backward sweeps of 63 down to 1 elements (vectorized, a division each):
    # measured outside rooflab before its first run (a C driver, 4,096 options), the division made a multiply saved
    # 18% and the powf calls taken out 25%; the rest is the sweeps, two 16-lane iterations and a remainder each
    "binomial_put": {"answer": "short_trips|calls|div_sqrt", "flops": "8266*count", "bytes": "24*count"},
    # gcc leaves the x loop scalar: the four coefficients are loaded in the loop, since a store to Aout might change
    # them (const float coef[] may alias float Aout[]); with restrict on the pointers gcc vectorizes it
    "stencil": {"answer": "aliasing", "flops": "26*steps*(Nx-8)*(Ny-8)*(Nz-8)",
                "bytes": "16*steps*(Nx-8)*(Ny-8)*(Nz-8)"},
    # the gradient picks (h < 8 || h == 12 ..., h & 1, h & 2 of a hashed h) are compiled as branches (52 je in
    # noise_serial), taken at random from cell to cell
    "noise": {"answer": "control_flow", "flops": "642*width*height", "bytes": "4*width*height"},
    # three float sums kept in order (no -ffast-math): gcc adds the lanes it loads one after another, so each sum
    # is a chain of adds
    "xyz_sum_aos": {"answer": "reduction_chain", "flops": "count", "bytes": "4*count"},
    # the same three sums, scalar (gcc cannot follow p = a + (i >> 3) * 24 + (i & 7))
    "xyz_sum_soa": {"answer": "reduction_chain", "flops": "count", "bytes": "4*count"},
}


def mandel_iterations(width: int, height: int, max_iterations: int) -> int:
    """The iterations ``mandel`` runs over the whole image, in single precision as the kernel computes them (to
    within the pixels on the set's edge, where a fused multiply-add may decide one iteration differently)."""
    x0, y0, x1, y1 = (np.float32(v) for v in MANDEL_WINDOW)
    dx, dy = (x1 - x0) / np.float32(width), (y1 - y0) / np.float32(height)
    j, i = np.mgrid[0:height, 0:width].astype(np.float32)
    c_re, c_im = x0 + i * dx, y0 + j * dy
    z_re, z_im = c_re.copy(), c_im.copy()
    count = np.zeros(c_re.shape, np.int64)
    live = np.ones(c_re.shape, bool)
    for _ in range(max_iterations):
        live &= z_re * z_re + z_im * z_im <= np.float32(4.0)
        if not live.any():
            break
        count += live
        new_re, new_im = z_re * z_re - z_im * z_im, np.float32(2.0) * z_re * z_im
        z_re = np.where(live, c_re + new_re, z_re)
        z_im = np.where(live, c_im + new_im, z_im)
    return int(count.sum())


def _c(src: str) -> str:
    """A C++-named file as C: its ``inline`` functions ``static inline``."""
    return re.sub(r"^inline\s", "static inline ", src, flags=re.M)


def mandel_case(root: Path, case: dict) -> tuple[str, dict, dict]:
    code = _strip_comments((root / MANDEL).read_text())
    x0, y0, x1, y1 = MANDEL_WINDOW
    args = {"x0": x0, "y0": y0, "x1": x1, "y1": y1, "width": "width", "height": "height",
            "maxIterations": "maxIterations",
            "output": {"shape": ["width * height"], "dtype": "int32", "fill": "zeros", "output": True}}
    return code, args, {k: [v] for k, v in MANDEL_SIZE.items()}


def options_case(root: Path, case: dict) -> tuple[str, dict, dict]:
    src = _strip_comments((root / OPTIONS).read_text())
    defs = "".join(m.group(0) + "\n" for m in re.finditer(r"^#define\s+BINOMIAL_NUM.*$",
                                                           (root / OPTIONS_H).read_text(), re.M))
    if not defs:
        raise ValueError(f"no BINOMIAL_NUM in {OPTIONS_H}")
    src = re.sub(r'^\s*#\s*include\s+"options_defs\.h"\s*$', defs.rstrip(), src, flags=re.M)
    src = re.sub(r"^\s*#\s*include\s+<algorithm>\s*$", "", src, flags=re.M)
    src = src.replace("std::max", "std_max")
    head = "static inline float std_max(float a, float b) { return (a < b) ? b : a; }\n"
    first = re.search(r"^static inline float CND", src, re.M)
    if first is None:
        raise ValueError(f"no CND in {OPTIONS}")
    code = src[:first.start()] + head + src[first.start():]
    def value(v: float) -> dict:
        return {"shape": ["count"], "dtype": "float32", "fill": repr(v)}
    args = {"Sa": value(100.0), "Xa": value(98.0), "Ta": value(2.0), "ra": value(0.02), "va": value(5.0),
            "result": {"shape": ["count"], "dtype": "float32", "fill": "zeros", "output": True}, "count": "count"}
    count = 128 * 1024 if case is CASES["black_scholes"] else 4096
    return code, args, {"count": [count]}


def stencil_case(root: Path, case: dict) -> tuple[str, dict, dict]:
    code = _strip_comments((root / STENCIL).read_text())
    grid = {"shape": ["Nx * Ny * Nz"], "dtype": "float32"}
    args = {"t0": 0, "t1": "steps", "x0": 4, "x1": "Nx - 4", "y0": 4, "y1": "Ny - 4", "z0": 4, "z1": "Nz - 4",
            "Nx": "Nx", "Ny": "Ny", "Nz": "Nz",
            "coef": {"shape": [4], "dtype": "float32", "fill": "np.array([0.5, -0.25, 0.125, -0.0625])"},
            "vsq": grid, "Aeven": {**grid, "output": True}, "Aodd": {**grid, "output": True}}
    return code, args, {"Nx": [256], "Ny": [256], "Nz": [64], "steps": [2]}


def noise_case(root: Path, case: dict) -> tuple[str, dict, dict]:
    code = _c(_strip_comments((root / NOISE).read_text()))
    args = {"x0": -10.0, "y0": -10.0, "x1": 10.0, "y1": 10.0, "width": "width", "height": "height",
            "output": {"shape": ["width * height"], "dtype": "float32", "fill": "zeros", "output": True}}
    return code, args, {"width": [256], "height": [256]}


def perf_case(root: Path, case: dict) -> tuple[str, dict, dict]:
    code = _strip_comments((root / PERF).read_text())
    args = {"a": {"shape": ["count"], "dtype": "float32", "fill": "np.arange(count) / (1024.0 * 1024.0)"},
            "count": "count", "zeros": {"shape": [32], "dtype": "float32", "fill": "zeros"},
            "result": {"shape": [3], "dtype": "float32", "fill": "zeros", "output": True}}
    return code, args, {"count": [3 * 64 * 1024]}


_CUT = {"mandelbrot": (mandel_case, "mandelbrot_serial"), "black_scholes": (options_case, "black_scholes_serial"),
        "binomial_put": (options_case, "binomial_put_serial"), "stencil": (stencil_case, "loop_stencil_serial"),
        "noise": (noise_case, "noise_serial"), "xyz_sum_aos": (perf_case, "xyzSumAOS"),
        "xyz_sum_soa": (perf_case, "xyzSumSOA")}


def write(root: Path, out: Path, names: list[str] | None) -> tuple[Path, dict[str, str], list[str]]:
    """Each case's C file and one spec in ``out``; returns the spec's path, per case left out why, and the cases."""
    # per iteration: two squares and their sum (the test), their difference, 2 * z_re * z_im, and the two adds of c
    CASES["mandelbrot"]["flops"] = str(8 * mandel_iterations(MANDEL_SIZE["width"], MANDEL_SIZE["height"],
                                                             MANDEL_SIZE["maxIterations"]))
    return write_table(root, out, "ispc", CASES, names, _CUT)


def main() -> int:
    return cut_main(__doc__, "ispc", MANDEL, "noise", "ispc", CASES, lambda args, out: write(args.root, out, args.case))


if __name__ == "__main__":
    sys.exit(main())

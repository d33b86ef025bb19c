"""explain on CloverLeaf's hydrodynamics kernels, cut out of a checkout of CloverLeaf_ref (code written outside this
project).

CloverLeaf (the UK Mini-App Consortium's 2-D Lagrangian-Eulerian hydrodynamics proxy) steps a structured grid through
a dozen kernels, each in Fortran and in C (``kernels/*_kernel_c.c``, called from Fortran: every scalar passed by
pointer, every field a flat array indexed through the ``FTNREF`` macros of ``kernels/ftocmacros.h``, each loop nest an
OpenMP work-share). The cases are eight of the C kernels, each file as it is (comments left out, the macros' header
put in place of its ``#include``), on a 1920 x 1920 grid, CloverLeaf's ``bm4`` size (29.6 MB a field: DRAM), its
fields filled at random:

- ``ideal_gas``: the equation of state, pressure and sound speed per cell (a division, a ``sqrt``);
- ``viscosity``: the artificial viscosity, with a ``sqrt`` and divisions where the cell is compressed and the limiter
  negative;
- ``calc_dt``: the time-step control, a ``sqrt`` and six divisions per cell, then the minimum over the grid (its
  ``dtmin`` set below every cell's so that it prints nothing);
- ``field_summary``: five sums over the grid (volume, mass, internal and kinetic energy, pressure);
- ``revert``: two copies of one field into another;
- ``accelerate``: the nodes' velocities from the pressure and viscosity gradients;
- ``flux_calc``: the volume fluxes through the faces;
- ``pdv``: the predictor's change of energy and density (``predict`` = 0).

The answers (the finding that should come first; "a|b" takes either) and the work (operations and bytes per call,
counted from the source, each field read or written once) are this project's, in CASES below, written down before
explain first ran on them.

    git clone --depth 1 https://github.com/UK-MAC/CloverLeaf_ref /tmp/cloverleaf
    python targets/cloverleaf_cases.py /tmp/cloverleaf [--quick] [--case NAME ...] [--write-only DIR]

Run it on a quiet machine, alone.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from testsuite_cases import cut_main, write_table  # noqa: E402  (cutting, writing, running)
from tsvc_cases import _strip_comments  # noqa: E402  (cutting)

KERNELS = Path("kernels")
MACROS = KERNELS / "ftocmacros.h"
N = 1920
CELLS = "nx*ny"

# Where an answer was uncertain, a C driver timed the fix before explain first ran (2 threads, 1920 x 1920, the best
# of 15 calls, -O3 -march=native -fopenmp; ratios of one run): noted beside the case.
CASES: dict[str, dict] = {
    # sqrt with errno keeps the loop scalar (gcc: "control flow in loop"); -fno-math-errno 1.92x
    "ideal_gas": {"file": "ideal_gas_kernel_c.c", "answer": "calls", "flops": f"10*{CELLS}",
                  "bytes": f"32*{CELLS}"},
    # the same errno sqrt, inside the branch of compressed cells, which random fields take half the time;
    # -fno-math-errno 3.98x
    "viscosity": {"file": "viscosity_kernel_c.c", "answer": "calls|control_flow", "flops": f"41*{CELLS}",
                  "bytes": f"40*{CELLS}"},
    # scalar (gcc: "complicated access pattern", with or without errno, restrict or -ffast-math) with six divisions
    # and a sqrt per cell: 10.7 GB/s, a fifth of what the copy below moves; -fno-math-errno and -ffast-math 1.0x
    "calc_dt": {"file": "calc_dt_kernel_c.c", "answer": "div_sqrt|narrow_vectors", "flops": f"46*{CELLS}",
                "bytes": f"80*{CELLS}"},
    # six fields streamed from DRAM into five sums; the sums in order cost little beside the memory (-ffast-math
    # 1.19x in one run)
    "field_summary": {"file": "field_summary_kernel_c.c", "answer": "clean|reduction_chain", "flops": f"30*{CELLS}",
                      "bytes": f"48*{CELLS}"},
    # two copies from DRAM: every line written is read first
    "revert": {"file": "revert_kernel_c.c", "answer": "write_allocate", "flops": "0", "bytes": f"32*{CELLS}"},
    # vectorized streams from DRAM (eight fields read, two written)
    "accelerate": {"file": "accelerate_kernel_c.c", "answer": "clean|write_allocate", "flops": f"38*{CELLS}",
                   "bytes": f"80*{CELLS}"},
    "flux_calc": {"file": "flux_calc_kernel_c.c", "answer": "clean|write_allocate", "flops": f"12*{CELLS}",
                  "bytes": f"64*{CELLS}"},
    "pdv": {"file": "PdV_kernel_c.c", "answer": "clean|write_allocate", "flops": f"50*{CELLS}",
            "bytes": f"96*{CELLS}"},
}


def _scalar(value, dtype: str = "float64", output: bool = False) -> dict:
    """A scalar passed by pointer, as Fortran passes it."""
    return {"shape": [1], "dtype": dtype, "fill": value, **({"output": True} if output else {})}


_CELL = {"shape": ["(nx+4)*(ny+4)"], "dtype": "float64"}
_NODE = {"shape": ["(nx+5)*(ny+5)"], "dtype": "float64"}  # nodes and faces (the larger of the two face grids)
_OUT = {"fill": "zeros", "output": True}
_BOUNDS = {"xmin": _scalar(1, "int32"), "xmax": _scalar("nx", "int32"), "ymin": _scalar(1, "int32"),
           "ymax": _scalar("ny", "int32")}
_ROW = {"shape": ["nx+4"], "dtype": "float64"}  # per column of cells (celldx, cellx)
_COLUMN = {"shape": ["ny+4"], "dtype": "float64"}  # per row of cells (celldy, celly)

_ARGS: dict[str, dict] = {
    "ideal_gas": {"density": _CELL, "energy": _CELL, "pressure": {**_CELL, **_OUT}, "soundspeed": {**_CELL, **_OUT}},
    "viscosity": {"celldx": _ROW, "celldy": _COLUMN, "density0": _CELL, "pressure": _CELL,
                  "viscosity": {**_CELL, **_OUT}, "xvel0": _NODE, "yvel0": _NODE},
    "calc_dt": {"gsmall": _scalar(1e-16), "gbig": _scalar(1e21), "mindt": _scalar(1e-7), "dtcsafe": _scalar(0.7),
                "dtusafe": _scalar(0.5), "dtvsafe": _scalar(0.5), "dtdivsafe": _scalar(0.7), "xarea": _NODE,
                "yarea": _NODE, "cellx": _ROW, "celly": _COLUMN, "celldx": _ROW, "celldy": _COLUMN, "volume": _CELL,
                "density0": _CELL, "energy0": _CELL, "pressure": _CELL, "viscosity": _CELL, "soundspeed": _CELL,
                "xvel0": _NODE, "yvel0": _NODE, "dt_min": {**_NODE, **_OUT}, "dtminval": _scalar(0, output=True),
                "dtlcontrol": _scalar(0, "int32", True), "xlpos": _scalar(0, output=True),
                "ylpos": _scalar(0, output=True), "jldt": _scalar(0, "int32", True),
                "kldt": _scalar(0, "int32", True), "smll": _scalar(0, "int32")},
    "field_summary": {"volume": _CELL, "density0": _CELL, "energy0": _CELL, "pressure": _CELL, "xvel0": _NODE,
                      "yvel0": _NODE, "vl": _scalar(0, output=True), "mss": _scalar(0, output=True),
                      "ien": _scalar(0, output=True), "ken": _scalar(0, output=True),
                      "prss": _scalar(0, output=True)},
    "revert": {"density0": _CELL, "density1": {**_CELL, **_OUT}, "energy0": _CELL, "energy1": {**_CELL, **_OUT}},
    "accelerate": {"dbyt": _scalar(0.04), "xarea": _NODE, "yarea": _NODE, "volume": _CELL, "density0": _CELL,
                   "pressure": _CELL, "viscosity": _CELL, "xvel0": _NODE, "yvel0": _NODE,
                   "xvel1": {**_NODE, **_OUT}, "yvel1": {**_NODE, **_OUT}},
    "flux_calc": {"dbyt": _scalar(0.04), "xarea": _NODE, "yarea": _NODE, "xvel0": _NODE, "yvel0": _NODE,
                  "xvel1": _NODE, "yvel1": _NODE, "vol_flux_x": {**_NODE, **_OUT}, "vol_flux_y": {**_NODE, **_OUT}},
    "pdv": {"prdct": _scalar(0, "int32"), "dtbyt": _scalar(0.04), "xarea": _NODE, "yarea": _NODE, "volume": _CELL,
            "density0": _CELL, "density1": {**_CELL, **_OUT}, "energy0": _CELL, "energy1": {**_CELL, **_OUT},
            "pressure": _CELL, "viscosity": _CELL, "xvel0": _NODE, "xvel1": _NODE, "yvel0": _NODE, "yvel1": _NODE,
            "volume_change": {**_NODE, **_OUT}},
}


def _function_name(src: str) -> str:
    """The file's one kernel: the function whose name ends in ``_kernel_c_`` (Fortran's binding)."""
    m = re.search(r"^void\s+(\w+_kernel_c_)\s*\(", src, flags=re.M)
    if not m:
        raise ValueError("no *_kernel_c_ function")
    return m.group(1)


def _source(root: Path, case: dict) -> str:
    """The kernel's file without comments, the macros' header in place of its #include."""
    macros = _strip_comments((root / MACROS).read_text())
    src = _strip_comments((root / KERNELS / case["file"]).read_text())
    src, n = re.subn(r'^\s*#\s*include\s+"ftocmacros\.h"\s*$', lambda _: macros, src, flags=re.M)
    if n != 1:
        raise ValueError(f"{case['file']}: no #include \"ftocmacros.h\"")
    return src


def _make(name: str):
    def make(root: Path, case: dict) -> tuple[str, dict, dict]:
        return _source(root, case), {**_BOUNDS, **_ARGS[name]}, {"nx": [N], "ny": [N]}
    return make


def _table(root: Path) -> dict[str, tuple]:
    """Per case, how it is made and its function's name (read from its file)."""
    table = {}
    for name, case in CASES.items():
        try:
            function = _function_name(_strip_comments((root / KERNELS / case["file"]).read_text()))
        except (OSError, ValueError):
            function = "?"  # write_table's cut then says what is missing
        table[name] = (_make(name), function)
    return table


def write(root: Path, out: Path, names: list[str] | None) -> tuple[Path, dict[str, str], list[str]]:
    """Each case's C file and one spec in ``out``; returns the spec's path, per case left out why, and the cases."""
    return write_table(root, out, "cloverleaf", CASES, names, _table(root))


def main() -> int:
    return cut_main(__doc__, "CloverLeaf_ref", MACROS, "ideal_gas", "cloverleaf", CASES,
                    lambda args, out: write(args.root, out, args.case))


if __name__ == "__main__":
    sys.exit(main())

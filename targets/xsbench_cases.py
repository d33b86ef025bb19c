"""explain on XSBench's cross-section lookups, cut out of a checkout of XSBench (code written outside this project).

XSBench (Argonne's proxy of the Monte Carlo neutron transport in OpenMC) spends its time looking up cross sections:
each lookup draws an energy and a material, finds the energy on a grid, and for each nuclide of the material reads
two neighbouring grid points from a large table and interpolates them. The cases are its OpenMP event loop
(``run_event_based_simulation`` in ``openmp-threading/Simulation.c``) with the functions it calls, as written; the
loop's body is kept as it is, the fields of its ``Inputs in`` and ``SimulationData SD`` arguments (structs passed by
value, which rooflab cannot build) passed as arguments of their own (``in.lookups`` is ``in_lookups``). One case per
lookup method XSBench offers (``-G``):

- ``xs_unionized``: one binary search on the unionized energy grid per lookup, then an index grid row gives each
  nuclide's grid point;
- ``xs_nuclide``: a binary search on each nuclide's own grid;
- ``xs_hash``: a hash of the energy gives a bin, whose row bounds a short search in each nuclide's grid.

The grids are made as XSBench's ``grid_init`` makes them (random energies, sorted per nuclide; the unionized grid
their sorted union; the index grids by search), with the H-M small problem's 68 nuclides and materials (12, the fuel
with 34 nuclides); the nuclides of each material are drawn at random (which ones they are does not change the
work). The answers (the finding that should come first; "a|b" takes either) and the work (operations and bytes per
call, counted from the source) are this project's, in CASES below, written down before explain first ran on them.

    git clone --depth 1 https://github.com/ANL-CESAR/XSBench /tmp/xsbench
    python targets/xsbench_cases.py /tmp/xsbench [--quick] [--case NAME ...] [--write-only DIR]

Run it on a quiet machine, alone.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from testsuite_cases import _function, cut_main, write_cut  # noqa: E402  (cutting, writing, running)
from tsvc_cases import _strip_comments  # noqa: E402  (cutting)

HEADER = Path("openmp-threading/XSbench_header.h")
SIMULATION = Path("openmp-threading/Simulation.c")

# H-M small: 68 nuclides; its fuel has 34, the most of any material
ISOTOPES, MAX_NUCS = 68, 34
NUM_NUCS = [34, 5, 4, 4, 27, 21, 21, 21, 21, 21, 9, 9]
GRIDPOINTS = 4000  # per nuclide (XSBench's default is 11303: the index grid would be 209 MB)
LOOKUPS = 20000
HASH_BINS = 10000

# per lookup, on average 15.5 nuclides (pick_mat's distribution over the materials' nuclide counts); per nuclide
# the interpolation's 3 + 5 x 3 operations and the 5 x 2 of the sum; the bytes read: the index (4), two grid points
# (2 x 48), the nuclide's id and concentration (12), and the search's steps (8 bytes each)
CASES: dict[str, dict] = {
    # each nuclide's two grid points lie where the energy picks at random in a 13 MB table, found through a row of
    # the 74 MB index grid: loads at loaded indices, missing the caches and the TLB
    "xs_unionized": {"grid": 0, "answer": "indirect|tlb", "flops": "434*lookups",
                     "bytes": "(15.5*112 + 8*19)*lookups"},
    # a binary search per nuclide: each step's address hangs on the last step's load, at random places of the
    # nuclide's grid
    "xs_nuclide": {"grid": 1, "answer": "indirect|dependency_chain|tlb", "flops": "434*lookups",
                   "bytes": "15.5*(108 + 8*12)*lookups"},
    # the hash bin's row bounds the search to a few steps: the loads at loaded indices remain
    "xs_hash": {"grid": 2, "answer": "indirect|tlb", "flops": "434*lookups",
                "bytes": "15.5*(120 + 8*3)*lookups"},
}

# the nuclides' energies, sorted per nuclide: one expression every array that needs them repeats (a fill has no
# variables), made the same each time by its own seeded generator
_ENERGIES = "np.sort(np.random.default_rng(1070).random((n_isotopes, n_gridpoints)), axis=1)"


def _header(root: Path) -> str:
    """XSBench's header up to its prototypes: the includes, the grid types and seed, the structures."""
    src = _strip_comments((root / HEADER).read_text())
    return src.split("void logo(")[0].replace("#ifndef __XSBENCH_HEADER_H__", "").replace(
        "#define __XSBENCH_HEADER_H__", "") + "\n"


def _event_loop(src: str) -> str:
    """run_event_based_simulation's loop as written, its struct arguments' fields as arguments of their own."""
    fn = _function(src, "run_event_based_simulation")
    body = fn[fn.index("{") + 1:fn.rindex("}")]
    body = re.sub(r"if\s*\(\s*mype\s*==\s*0\s*\)\s*printf\([^;]*\);", "", body)
    body = re.sub(r"#ifdef AML.*?#else(.*?)#endif", r"\1", body, flags=re.S)
    body = re.sub(r"\b(in|SD)\.(\w+)", r"\1_\2", body)
    params = ("int in_lookups, long in_n_isotopes, long in_n_gridpoints, int in_grid_type, int in_hash_bins, "
              "int SD_max_num_nucs, int * SD_num_nucs, double * SD_concs, int * SD_mats, "
              "double * SD_unionized_energy_array, int * SD_index_grid, NuclideGridPoint * SD_nuclide_grid")
    return f"unsigned long long xs_event({params})\n{{{body}}}\n"


def xs_case(root: Path, case: dict) -> tuple[str, dict, dict]:
    src = _strip_comments((root / SIMULATION).read_text())
    used = ("LCG_random_double", "fast_forward_LCG", "pick_mat", "grid_search", "grid_search_nuclide",
            "calculate_micro_xs", "calculate_macro_xs")  # callees first: no prototypes needed
    code = _header(root) + "".join(_function(src, n) + "\n\n" for n in used) + _event_loop(src)
    grid = case["grid"]
    ints = {"dtype": "int32"}
    union = f"np.sort({_ENERGIES}.ravel())"
    # each nuclide's grid index at each unionized energy (or hash bin's lower energy): the last point at or below
    at = {0: union, 1: "np.zeros(1)", 2: "np.arange(hash_bins) / hash_bins"}[grid]
    rows = {0: "n_isotopes * n_gridpoints", 1: "1", 2: "hash_bins"}[grid]
    index = f"np.clip(np.apply_along_axis(np.searchsorted, 1, {_ENERGIES}, {at}).T - 1, 0, n_gridpoints - 1)"
    args = {
        "in_lookups": "lookups", "in_n_isotopes": "n_isotopes", "in_n_gridpoints": "n_gridpoints",
        "in_grid_type": grid, "in_hash_bins": "hash_bins", "SD_max_num_nucs": MAX_NUCS,
        "SD_num_nucs": {"shape": [12], **ints, "fill": f"np.array({NUM_NUCS})"},
        "SD_concs": {"shape": [12 * MAX_NUCS], "dtype": "float64", "fill": "rng.random(12 * 34)"},
        "SD_mats": {"shape": [12 * MAX_NUCS], **ints, "fill": "rng.integers(0, n_isotopes, 12 * 34)"},
        "SD_unionized_energy_array": {"shape": ["n_isotopes * n_gridpoints" if grid == 0 else "1"],
                                      "dtype": "float64", "fill": union if grid == 0 else "zeros"},
        "SD_index_grid": {"shape": [rows, "n_isotopes"], **ints, "fill": index if grid != 1 else "zeros"},
        "SD_nuclide_grid": {"shape": ["n_isotopes * n_gridpoints", 6], "dtype": "float64",
                            "fill": f"np.column_stack(({_ENERGIES}.ravel(), "
                                    "1 + rng.random((n_isotopes * n_gridpoints, 5))))"},
    }
    sizes = {"lookups": [LOOKUPS], "n_isotopes": [ISOTOPES], "n_gridpoints": [GRIDPOINTS], "hash_bins": [HASH_BINS]}
    return code, args, sizes


def write(root: Path, out: Path, names: list[str] | None) -> tuple[Path, dict[str, str], list[str]]:
    """Each case's C file and one spec in ``out``; returns the spec's path, per case left out why, and the cases."""
    def cut(case: dict) -> tuple:
        code, args, sizes = xs_case(root, case)
        return code, args, sizes, "xs_event", "threads = 2\n" if "#pragma omp" in code else ""

    return write_cut(out, "xsbench", CASES, names, cut)


def main() -> int:
    return cut_main(__doc__, "XSBench", SIMULATION, "xs_unionized", "xsbench", CASES,
                    lambda args, out: write(args.root, out, args.case))


if __name__ == "__main__":
    sys.exit(main())

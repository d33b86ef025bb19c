"""rooflab explain on the raw loops of LCALS, the Livermore Compiler Analysis Loop Suite, written outside this project.

LCALS (Rich Hornung, LLNL; LLNL-CODE-638939) holds the 24 Livermore Fortran Kernels in C++ beside loops taken from
LLNL's hydrodynamics codes. Its "raw" variants, plain loops timed by Google Benchmark, ship in LLVM's test suite
(https://github.com/llvm/llvm-test-suite, ``MicroBenchmarks/LCALS/Subset{A,B,C}RawLoops``). This script does not
hold their code. Given a checkout of the test suite, it cuts each benchmark's loop out as its authors wrote it and
writes it as a C kernel of its own:

- each array the benchmark takes from LCALS's loop data becomes the kernel's parameter (no ``restrict``), shaped as
  LCALS allocates it: every array for the longest length, 44217, rounded up as LCALS rounds it; the arrays of row
  pointers as C arrays of rows (``double px[][25]``, ``double za[][NPAD]``, ``double u1[][NPAD][4]``);
- each array and scalar is filled as LCALS's ``initData`` fills it (``factor * (j + 1.1) / (j + 1.12345)``, with
  0.1 or 0.2 as the array's number is odd or even; index arrays 0);
- what the benchmark does before its timing loop stays in the kernel, the timing loop (``for (auto _ : state)``)
  is left to rooflab, ``state.range(0)`` is the size ``n``, and a value kept alive with
  ``benchmark::DoNotOptimize`` is the kernel's return value;
- LCALS's types become C's (``Real_type`` double, ``Index_type`` int) and its inline helpers static functions.

Each loop runs at two of LCALS's three lengths, 5001 (its data in L2) and 44217 (in L3), as two cases. The answer for
each (the finding that should come first, or "clean") and its work (flops and bytes per call) are this project's,
in ANSWERS below, written down before explain first ran on them. Benchmarks the conversion cannot take (LCALS's
domain objects, complex numbers) are listed and left out.

    git clone --depth 1 https://github.com/llvm/llvm-test-suite /tmp/llvm-test-suite
    python targets/lcals_cases.py /tmp/llvm-test-suite [--quick] [--case hydro_1d_long ...] [--write-only DIR]

Run it on a quiet machine, alone.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tsvc_cases import _match, _strip_comments, _toml_value, run_answered  # noqa: E402  (cutting, judging)

LCALS = Path("MicroBenchmarks/LCALS")
SOURCES = ("SubsetARawLoops/RawSubsetAbenchmarks.cxx", "SubsetBRawLoops/RawSubsetBbenchmarks.cxx",
           "SubsetCRawLoops/RawSubsetCbenchmarks.cxx")
HELPER_HEADERS = ("SubsetDataA.hxx", "SubsetDataB.hxx")
LENGTHS = {"medium": 5001, "long": 44217}
ALIGN = 32  # LCALS_DATA_ALIGN: LCALS rounds each array up to whole segments of it, 20 past the longest length
NPAD = ((LENGTHS["long"] + 20) // ALIGN + 1) * ALIGN

# LoopData's arrays: C parameter, shape, numpy dtype (LCALS's Index_type is int)
FAMILIES = {
    "array_1D_Real": ("double *{v}", [NPAD], "float64"),
    "array_1D_Nx4_Real": ("double *{v}", [4 * NPAD], "float64"),
    "array_1D_Indx": ("int *{v}", [NPAD], "int32"),
    "array_2D_Nx25_Real": ("double {v}[][25]", [NPAD, 25], "float64"),
    "array_2D_7xN_Real": ("double {v}[][NPAD]", [7, NPAD], "float64"),
    "array_2D_64x64_Real": ("double {v}[][64]", [64, 64], "float64"),
    "array_3D_2xNx4_Real": ("double {v}[][NPAD][4]", [2, NPAD, 4], "float64"),
}

# loop -> (the finding right first, flops per call, bytes per call), at each length. "a|b" takes either, where both
# are the reason a loop falls short and the machine says which weighs more; "clean": nothing wrong (told only that it
# is at its roof, or to use the other CPUs). A backed 4 KiB aliasing finding is right for any loop (as in
# tsvc_cases.py). The work: counted from the source in n; one double = 8 bytes, each element the loop uses read or
# written once per call (reused from a cache, it is not counted again).
_BOTH: dict[str, tuple[str, str, str]] = {
    "pressure_calc": ("clean", "3*n", "40*n"),
    "energy_calc": ("calls|aliasing", "26*n", "72*n"),
    "fir": ("reduction_chain", "32*(n-16)", "16*n"),
    "init3": ("clean", "n", "40*n"),
    "muladdsub": ("clean", "3*n", "40*n"),
    "if_quad": ("calls|control_flow", "11*n", "40*n"),
    "trap_int": ("calls|div_sqrt", "10*n", "4"),
    "hydro_1d": ("clean", "5*n", "24*n"),
    "iccg": ("clean|strided", "4*n", "32*n"),
    "inner_prod": ("reduction_chain", "2*n", "16*n"),
    "band_lin_eq": ("reduction_chain", "1.2*n", "1.6*n + 8*(n/5 + 994)"),
    "tridiag_elim": ("dependency_chain", "2*n", "24*n"),
    "eos": ("clean", "16*n", "32*n"),
    "adi": ("aliasing|narrow_vectors", "72*n", "168*n"),
    "int_predict": ("strided|narrow_vectors", "17*n", "88*n"),
    "diff_predict": ("strided|narrow_vectors", "9*n", "88*n"),
    "first_sum": ("dependency_chain", "n", "16*n"),
    "first_diff": ("clean", "n", "16*n"),
    "pic_2d": ("indirect|dependency_chain", "7*n", "32*n"),
    "pic_1d": ("dependency_chain|indirect", "11*n", "60*n"),
    "hydro_2d": ("clean|div_sqrt", "230*n", "504*n"),
    "gen_lin_recur": ("dependency_chain", "6*n", "24*n"),
    "disc_ord": ("dependency_chain", "14*n", "72*n"),
    "mat_x_mat": ("strided", "1250*n", "400*n"),
    "planckian": ("calls", "4*n", "40*n"),
    "imp_hydro_2d": ("dependency_chain", "55*n", "256*n"),
    "find_first_min": ("control_flow|narrow_vectors", "0", "8*n"),
}
# the same answer at both lengths: the loops' faults do not depend on whether their data sit in L2 or L3
ANSWERS: dict[str, tuple[str, str, str]] = {f"{loop}_{length}": a for loop, a in _BOTH.items() for length in LENGTHS}


def _scalar(k: int) -> float:
    """LCALS's scalar_Real[k]: initData on the scalars' array, whose number (21) is odd."""
    return 0.1 * (k + 1.1) / (k + 1.12345)


def _fill(family: str, k: int) -> str | int:
    """initData of array ``k`` of a family, as a numpy expression (its number is k + 1; index arrays hold 0)."""
    _, shape, dtype = FAMILIES[family]
    if dtype == "int32":
        return 0
    total = 1
    for d in shape:
        total *= d
    factor = 0.1 if (k + 1) % 2 else 0.2
    j = f"np.arange({total})"
    flat = f"{factor} * ({j} + 1.1) / ({j} + 1.12345)"
    return f"({flat}).reshape({', '.join(map(str, shape))})" if len(shape) > 1 else f"({flat})"


def benchmarks(root: Path) -> dict[str, str]:
    """The raw loops' benchmarks by name (``hydro_1d``): the text of each body, without comments."""
    out = {}
    for rel in SOURCES:
        src = _strip_comments((root / LCALS / rel).read_text())
        for m in re.finditer(r"static void BM_(\w+)_RAW\(benchmark::State& state\)\s*\{", src):
            end = _match(src, m.end() - 1)
            out[m.group(1).lower()] = src[m.end():end - 1]
    return out


def helpers(root: Path) -> str:
    """LCALS's inline functions the loops call (trap_int_func), as static functions in C."""
    out = []
    for rel in HELPER_HEADERS:
        src = _strip_comments((root / LCALS / rel).read_text())
        for m in re.finditer(r"LCALS_INLINE\s+Real_type\s+(\w+)\s*\(([^)]*)\)\s*\{", src):
            body = src[m.end():_match(src, m.end() - 1) - 1]
            out.append(f"static inline double {m.group(1)}({_ctypes(m.group(2))})\n{{{_ctypes(body)}}}\n")
    return "\n".join(out)


def _ctypes(code: str) -> str:
    return re.sub(r"\bIndex_type\b", "int", re.sub(r"\bReal_type\b", "double", code))


_DECL = re.compile(r"(?:const\s+)?(Real_ptr\s*\**|Index_type\s*\*|Real_type|Complex_ptr)\s*(\w+)\s*=\s*"
                   r"loop_data\.(\w+)\[(\d+)\]\s*;")
_INLINE = re.compile(r"loop_data\.(\w+)\[(\d+)\]")


def convert(name: str, body: str) -> tuple[str, dict] | str:
    """One benchmark as a kernel's C source and its spec's args; or why it cannot be converted."""
    for construct, why in (("ADomain", "LCALS's domain objects"), ("Complex", "complex numbers"),
                           ("NDPTRSET", "LCALS's domain objects")):
        if construct in body:
            return why
    loop = re.search(r"for\s*\(\s*auto\s+_\s*:\s*state\s*\)\s*\{", body)
    if not loop:
        return "no timing loop"
    end = _match(body, loop.end() - 1)
    before, inner, after = body[:loop.start()], body[loop.end():end - 1], body[end:]
    if after.strip():
        return "code after the timing loop"
    before = re.sub(r"LoopData&\s*loop_data\s*=\s*getLoopData\(\)\s*;|loopInit\(\w+\)\s*;", "", before)
    params, args = ["int n"], {"n": "n"}
    for m in list(_DECL.finditer(before)):
        var, family, k = m.group(2), m.group(3), int(m.group(4))
        if family == "scalar_Real":
            params.append(f"double {var}")
            args[var] = _scalar(k)
        elif family in FAMILIES:
            params.append(FAMILIES[family][0].format(v=var))
            args[var] = {"shape": FAMILIES[family][1], "dtype": FAMILIES[family][2], "fill": _fill(family, k)}
        else:
            return f"loop data the conversion does not know ({family})"
        before = before.replace(m.group(0), "")
    code = before + "\n" + inner

    def inline(m: re.Match) -> str:  # loop data used in place (trap_int's array_1D_Indx[0][0]): a parameter too
        family, k = m.group(1), int(m.group(2))
        var = f"{family.lower()}_{k}"
        if var not in args:
            params.append(FAMILIES[family][0].format(v=var))
            args[var] = {"shape": FAMILIES[family][1], "dtype": FAMILIES[family][2], "fill": _fill(family, k)}
        return var
    if any(m.group(1) not in FAMILIES for m in _INLINE.finditer(code)):
        return "loop data the conversion does not know"
    code = _INLINE.sub(inline, code)
    for var, spec in args.items():  # an array assigned somewhere (x[i] = ..., px[i][0] += ..., a = b[i] = ...)
        if isinstance(spec, dict) and re.search(rf"\b{var}\s*(\[[^][]*(\[[^][]*\][^][]*)*\]\s*)+[-+*/]?=(?!=)", code):
            spec["output"] = True
    if "loop_data" in code or "benchmark::" in code.replace("benchmark::DoNotOptimize", ""):
        return "another use of the benchmark's state"
    kept = re.findall(r"benchmark::DoNotOptimize\(\s*(\w+)\s*[-+*/]?=", code)
    code = code.replace("benchmark::DoNotOptimize", "")
    code = re.sub(r"state\.range\(0\)", "n", code)
    if "state" in re.sub(r"\w+state|state\w+", "", code):
        return "another use of the benchmark's state"
    # a constant length (fir's coefflen) sizes an initialised array: C wants it a constant expression
    code = re.sub(r"const\s+Index_type\s+(\w+)\s*=\s*(\d+)\s*;", r"enum { \1 = \2 };", code)
    code = _ctypes(code)
    ret = f"    return (double) {kept[-1]};\n" if kept else "    return 0.0;\n"
    src = f"double lcals_{name}({', '.join(params)})\n{{\n{code}\n{ret}}}\n"
    return src, args


HEADER = f"""/* Raw loops of LCALS (LLNL-CODE-638939), from LLVM's test suite (MicroBenchmarks/LCALS), each cut out
   as its own kernel by targets/lcals_cases.py: its loop data as parameters, its timing loop left to rooflab. */
#include <math.h>
#define NPAD {NPAD}
"""


def write(root: Path, out: Path, names: list[str]) -> tuple[Path, dict[str, str]]:
    """The kernels' C file and spec in ``out``; returns the spec's path and, per benchmark left out, why."""
    found = benchmarks(root)
    out.mkdir(parents=True, exist_ok=True)
    c_parts, toml_parts, skipped = [HEADER + helpers(root)], [], {}
    for loop in dict.fromkeys(_loop(c) for c in names):
        if loop not in found:
            skipped[loop] = "not among LCALS's raw loops"
            continue
        got = convert(loop, found[loop])
        if isinstance(got, str):
            skipped[loop] = got
            continue
        code, args = got
        c_parts.append(code)
        for length, n in LENGTHS.items():
            case = f"{loop}_{length}"
            if case not in names:
                continue
            _, flops, nbytes = ANSWERS.get(case, ("?", "0", "0"))
            toml_parts.append(f'[[kernel]]\nname = "{case}"\nsource = "lcals_kernels.c"\nfunction = "lcals_{loop}"\n'
                              f'flops = "{flops}"\nbytes = "{nbytes}"\nsizes = {{n = [{n}]}}\n'
                              f"args = {_toml_value(args)}\n")
    (out / "lcals_kernels.c").write_text("\n".join(c_parts))
    spec = out / "lcals.toml"
    spec.write_text("\n".join(toml_parts))
    return spec, skipped


def _loop(case: str) -> str:
    return case.rsplit("_", 1)[0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("suite", type=Path, help="a checkout of https://github.com/llvm/llvm-test-suite")
    ap.add_argument("--quick", action="store_true", help="explain --quick (fewer samples and rounds)")
    ap.add_argument("--case", action="append", help="only this loop and length, e.g. hydro_1d_long (repeatable)")
    ap.add_argument("--write-only", type=Path, metavar="DIR", help="write the kernels and their spec to DIR and stop")
    args = ap.parse_args()
    if not (args.suite / LCALS / SOURCES[2]).is_file():
        print(f"{args.suite}: no {LCALS / SOURCES[2]} (a checkout of llvm-test-suite is needed)", file=sys.stderr)
        return 2
    every = [f"{loop}_{length}" for loop in benchmarks(args.suite) for length in LENGTHS]
    unknown = [c for c in args.case or () if c not in ANSWERS and not args.write_only]
    if unknown:
        print(f"no answer for {', '.join(unknown)} (the cases with one: {', '.join(ANSWERS)})", file=sys.stderr)
        return 2
    names = args.case or (every if args.write_only else list(ANSWERS))
    out = args.write_only or Path(tempfile.mkdtemp(prefix="rooflab-lcals-"))
    spec, skipped = write(args.suite, out, names)
    for loop, why in skipped.items():
        print(f"left out {loop}: {why}", file=sys.stderr)
    if args.write_only:
        print(spec)
        return 0
    return run_answered(spec, [n for n in names if _loop(n) not in skipped], ANSWERS, args.quick)


if __name__ == "__main__":
    sys.exit(main())

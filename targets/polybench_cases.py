"""rooflab explain on the kernels of PolyBench/C 4.2.1, a public benchmark suite written outside this project.

PolyBench/C (Louis-Noel Pouchet and Tomofumi Yuki, The Ohio State University; http://polybench.sourceforge.net)
holds 30 loop nests of linear algebra, data mining, image processing and stencils, each in a file of its own with
its sizes in a header beside it. This script does not hold their code. Given PolyBench/C 4.2.1, it cuts each
benchmark's ``kernel_*`` function out as its authors wrote it and writes it as a kernel of its own:

- PolyBench's macros are read as its default build reads them: each array parameter
  (``DATA_TYPE POLYBENCH_2D(A,N,N,n,n)``) is a C array of the dataset's fixed sizes (``double A[400][400]``), each
  loop bound (``_PB_N``) the size parameter (``n``), ``DATA_TYPE``, ``SCALAR_VAL`` and the maths functions those of
  the benchmark's default data type (double; float for deriche; int for floyd-warshall and nussinov), the
  benchmark's own macros (nussinov's ``match`` and ``max_score``) kept before its kernel;
- each array is filled as the benchmark's ``init_array`` fills it, and each scalar (alpha, beta, float_n) given
  the value it sets, as NumPy expressions written in FILLS below (arrays it does not set are zeros);
- rooflab calls the kernel as PolyBench's ``main`` does, and times its calls; the arrays are not set again between
  calls (as TSVC's and LCALS's loops repeat on their arrays).

Each benchmark runs at PolyBench's MEDIUM dataset (its data in L2 or L3 here) and, where one call of it does at most
1e8 operations, at its LARGE dataset too (in L3 or memory): one case each. The answer for each (the finding that
should come first, or "clean") and its work (operations and bytes per call) are this project's, in
ANSWERS_BY_BENCHMARK below, written down before explain first ran on them (commit 34e871f).

    # PolyBench/C 4.2.1 (polybench-c-4.2.1-beta.tar.gz from http://polybench.sourceforge.net, unpacked; or a git
    # copy: the first commit of https://github.com/shinawy/PolyBenchC-4.2.1, 3e87254, is the one used here)
    python targets/polybench_cases.py /tmp/PolyBenchC [--quick] [--case gemm_medium ...] [--write-only DIR]

Run it on a quiet machine, alone.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rooflab.userkernel.expr import arith  # noqa: E402  (the work, as rooflab reads it)
from tsvc_cases import _match, _strip_comments, _toml_value, finish_written  # noqa: E402  (cutting, judging)

DATASETS = ("MEDIUM", "LARGE")
LARGE_UP_TO = 1e8  # operations in one call, by the work below, for a benchmark to run at LARGE too

# benchmark -> (the finding right first, operations per call, bytes per call), at each dataset. "a|b" takes
# either, where both are the reason a benchmark falls short and the machine says which weighs more; "clean": nothing
# wrong (told only that it is at its roof, or to use the other CPUs). A backed 4 KiB aliasing finding is right for
# any benchmark (as in tsvc_cases.py). The work: counted from the source in the sizes (each size named as its
# parameter: n, ni, tsteps...); one double = 8 bytes (float, int = 4; nussinov's seq, char = 1), each element the
# benchmark uses read or written once per call (reused from a cache, it is not counted again); a triangle of a square
# matrix counts half of it.
ANSWERS_BY_BENCHMARK: dict[str, tuple[str, str, str]] = {
    # data mining: the m x m products walk two columns of data with the sum kept in corr[i][j] / cov[i][j]
    "correlation": ("reduction_chain|strided", "n*m*(m-1) + 6*n*m", "8*n*m + 8*m*m + 16*m"),
    "covariance": ("reduction_chain|strided", "n*m*(m+1) + 2*n*m", "8*n*m + 8*m*m + 8*m"),
    # BLAS: gemm in PolyBench's i-k-j order vectorizes, unblocked; the others walk columns or sum in order
    "gemm": ("reuse", "2*ni*nj*nk + ni*nj", "8*(ni*nj + ni*nk + nk*nj)"),
    "gemver": ("reduction_chain|strided", "10*n*n + n", "8*n*n + 64*n"),
    "gesummv": ("reduction_chain|aliasing", "4*n*n + 3*n", "16*n*n + 24*n"),
    "symm": ("strided|reduction_chain", "2.5*n*m*(m-1) + 6*m*n", "16*m*n + 4*m*(m+1)"),
    "syr2k": ("strided", "3*m*n*(n+1) + n*(n+1)/2", "16*n*m + 4*n*(n+1)"),
    "syrk": ("strided", "1.5*m*n*(n+1) + n*(n+1)/2", "8*n*m + 4*n*(n+1)"),
    "trmm": ("reduction_chain|strided", "n*m*(m-1) + m*n", "8*m*n + 4*m*(m+1)"),
    # kernels: 2mm and 3mm in the i-j-k order (a column of B under an in-order sum); atax, bicg, mvt: a sum kept in
    # memory across the row
    "2mm": ("reduction_chain|strided", "3*ni*nj*nk + 2*ni*nl*nj + ni*nl",
            "8*(ni*nk + nk*nj + ni*nj + nj*nl + ni*nl)"),
    "3mm": ("reduction_chain|strided", "2*(ni*nj*nk + nj*nl*nm + ni*nl*nj)",
            "8*(ni*nk + nk*nj + ni*nj + nj*nm + nm*nl + nj*nl + ni*nl)"),
    "atax": ("reduction_chain", "4*m*n", "8*(m*n + 2*n + m)"),
    "bicg": ("reduction_chain|aliasing", "4*n*m", "8*(n*m + 2*m + 2*n)"),
    "doitgen": ("reduction_chain|strided", "2*nr*nq*np*np", "8*(nr*nq*np + np*np + np)"),
    "mvt": ("reduction_chain|strided", "4*n*n", "8*(n*n + 4*n)"),
    # solvers: in-order sums along rows (cholesky, durbin, trisolv) or down columns (lu, ludcmp, gramschmidt)
    "cholesky": ("reduction_chain", "(n*n*n - n)/3 + 2*n*n", "4*n*(n+1)"),
    "durbin": ("reduction_chain", "2*n*n", "24*n"),
    "gramschmidt": ("strided|reduction_chain", "2*m*n*(n-1) + 3*m*n", "8*(2*m*n + n*n)"),
    "lu": ("reduction_chain|strided", "2*n*n*n/3", "8*n*n"),
    "ludcmp": ("reduction_chain|strided", "2*n*n*n/3 + 2*n*n", "8*(n*n + 3*n)"),
    "trisolv": ("reduction_chain", "n*n + n", "4*n*(n+1) + 16*n"),
    # medley: recursive filters along rows and down columns; a min over k with path[i][k] written in the loop;
    # a max kept in memory with a column walk
    "deriche": ("dependency_chain|strided", "32*w*h", "16*w*h"),
    "floyd_warshall": ("narrow_vectors|scalar_build", "2*n*n*n", "4*n*n"),
    "nussinov": ("reduction_chain|dependency_chain|strided", "n*n*n/3", "4*n*n + n"),
    # stencils: adi's and seidel's recurrences run through a division; the others stream
    "adi": ("dependency_chain|div_sqrt", "26*tsteps*(n-2)*(n-2)", "32*n*n"),
    "fdtd_2d": ("clean", "11*tmax*nx*ny", "24*nx*ny + 8*tmax"),
    "heat_3d": ("clean", "30*tsteps*(n-2)*(n-2)*(n-2)", "16*n*n*n"),
    "jacobi_1d": ("clean|short_trips", "6*tsteps*(n-2)", "16*n"),
    "jacobi_2d": ("clean", "10*tsteps*(n-2)*(n-2)", "16*n*n"),
    "seidel_2d": ("dependency_chain|div_sqrt", "10*tsteps*(n-2)*(n-2)", "8*n*n"),
}

# i, j, k in a fill: the indices of the array's first, second and third dimension; N, NI...: the dataset's sizes
_L = "np.tril(1 - np.arange(N) / N * np.ones((N, 1)), -1) + np.eye(N)"  # init_array's lower triangle
_SPD = f"np.dot({_L}, ({_L}).T)"  # cholesky's, lu's and ludcmp's "positive semi-definite" matrix
FILLS: dict[str, dict[str, str | float]] = {
    "correlation": {"float_n": "N", "data": "i * j / M + i"},
    "covariance": {"float_n": "N", "data": "i * j / M"},
    "gemm": {"alpha": 1.5, "beta": 1.2, "C": "((i * j + 1) % NI) / NI", "A": "(i * (j + 1) % NK) / NK",
             "B": "(i * (j + 2) % NJ) / NJ"},
    "gemver": {"alpha": 1.5, "beta": 1.2, "u1": "i", "u2": "(i + 1) / N / 2.0", "v1": "(i + 1) / N / 4.0",
               "v2": "(i + 1) / N / 6.0", "y": "(i + 1) / N / 8.0", "z": "(i + 1) / N / 9.0",
               "A": "(i * j % N) / N"},
    "gesummv": {"alpha": 1.5, "beta": 1.2, "x": "(i % N) / N", "A": "((i * j + 1) % N) / N",
                "B": "((i * j + 2) % N) / N"},
    "symm": {"alpha": 1.5, "beta": 1.2, "C": "((i + j) % 100) / M", "B": "((N + i - j) % 100) / M",
             "A": "np.where(j <= i, ((i + j) % 100) / M, -999)"},
    "syr2k": {"alpha": 1.5, "beta": 1.2, "A": "((i * j + 1) % N) / N", "B": "((i * j + 2) % M) / M",
              "C": "((i * j + 3) % N) / M"},
    "syrk": {"alpha": 1.5, "beta": 1.2, "A": "((i * j + 1) % N) / N", "C": "((i * j + 2) % M) / M"},
    "trmm": {"alpha": 1.5, "A": "np.where(j < i, ((i + j) % M) / M, np.where(j == i, 1.0, 0.0))",
             "B": "((N + (i - j)) % N) / N"},
    "2mm": {"alpha": 1.5, "beta": 1.2, "A": "((i * j + 1) % NI) / NI", "B": "(i * (j + 1) % NJ) / NJ",
            "C": "((i * (j + 3) + 1) % NL) / NL", "D": "(i * (j + 2) % NK) / NK"},
    "3mm": {"A": "((i * j + 1) % NI) / (5 * NI)", "B": "((i * (j + 1) + 2) % NJ) / (5 * NJ)",
            "C": "(i * (j + 3) % NL) / (5 * NL)", "D": "((i * (j + 2) + 2) % NK) / (5 * NK)"},
    "atax": {"x": "1 + i / N", "A": "((i + j) % N) / (5 * M)"},
    "bicg": {"p": "(i % M) / M", "r": "(i % N) / N", "A": "(i * (j + 1) % N) / N"},
    "doitgen": {"A": "((i * j + k) % NP) / NP", "C4": "(i * j % NP) / NP"},
    "mvt": {"x1": "(i % N) / N", "x2": "((i + 1) % N) / N", "y_1": "((i + 3) % N) / N", "y_2": "((i + 4) % N) / N",
            "A": "(i * j % N) / N"},
    "cholesky": {"A": _SPD},
    "durbin": {"r": "N + 1 - i"},
    "gramschmidt": {"A": "((i * j) % M) / M * 100 + 10"},
    "lu": {"A": _SPD},
    "ludcmp": {"b": "(i + 1) / N / 2.0 + 4", "A": _SPD},
    "trisolv": {"x": "-999 + 0 * i", "b": "i", "L": "np.where(j <= i, (i + N - j + 1) * 2 / N, 0.0)"},
    "deriche": {"alpha": 0.25, "imgIn": "((313 * i + 991 * j) % 65536) / 65535.0"},
    "floyd_warshall": {"path": "np.where(((i + j) % 13 == 0) | ((i + j) % 7 == 0) | ((i + j) % 11 == 0), 999, "
                               "i * j % 7 + 1)"},
    "nussinov": {"seq": "(i + 1) % 4"},
    "adi": {"u": "(i + N - j) / N"},
    "fdtd_2d": {"_fict_": "i", "ex": "i * (j + 1) / NX", "ey": "i * (j + 2) / NY", "hz": "i * (j + 3) / NX"},
    "heat_3d": {"A": "(i + j + (N - k)) * 10 / N", "B": "(i + j + (N - k)) * 10 / N"},
    "jacobi_1d": {"A": "(i + 2) / N", "B": "(i + 3) / N"},
    "jacobi_2d": {"A": "(i * (j + 2) + 2) / N", "B": "(i * (j + 3) + 3) / N"},
    "seidel_2d": {"A": "(i * (j + 2) + 2) / N"},
}

TYPES = {"DOUBLE": ("double", "float64", "", "sqrt", "exp", "pow"),
         "FLOAT": ("float", "float32", "f", "sqrtf", "expf", "powf"),
         "INT": ("int", "int32", "", "sqrt", "exp", "pow")}
_NUMPY = {"double": "float64", "float": "float32", "int": "int32", "char": "int8"}


def sources(root: Path) -> dict[str, Path]:
    """PolyBench's benchmarks by name (``floyd_warshall``): the path of each one's C file."""
    out = {}
    for path in sorted(root.glob("**/*.c")):
        if path.parent.name == "utilities" or path.stem.endswith(".orig") or not path.with_suffix(".h").is_file():
            continue
        out[path.stem.replace("-", "_")] = path
    return out


def sizes(header: str, dataset: str) -> dict[str, int]:
    """The dataset's sizes in a benchmark's header (``{"NI": 200, ...}``)."""
    m = re.search(rf"#\s*ifdef\s+{dataset}_DATASET\b(.*?)#\s*endif", header, flags=re.S)
    if not m:
        return {}
    return {k: int(v) for k, v in re.findall(r"#\s*define\s+(\w+)\s+(\d+)", m.group(1))}


def data_type(header: str) -> str:
    m = re.search(r"#\s*if\s+!defined\(DATA_TYPE_IS_INT\).*?#\s*define\s+DATA_TYPE_IS_(\w+)", header, flags=re.S)
    return m.group(1) if m else "DOUBLE"


def convert(name: str, path: Path, dataset: str) -> tuple[str, dict, dict[str, int]] | str:
    """One benchmark at one dataset as a kernel's C source, its spec's args and its sizes; or why it cannot be."""
    header = path.with_suffix(".h").read_text()
    dims = sizes(header, dataset)
    if not dims:
        return f"no {dataset} dataset in {path.with_suffix('.h').name}"
    bounds = dict(re.findall(r"#\s*define\s+_PB_(\w+)\s+POLYBENCH_LOOP_BOUND\(\s*\w+\s*,\s*(\w+)\s*\)", header))
    ctype, _, suffix, sqrt_fn, exp_fn, pow_fn = TYPES[data_type(header)]
    src = _strip_comments(path.read_text())
    m = re.search(r"(?:static\s+)?void\s+kernel_(\w+)\s*\(", src)
    if not m:
        return "no kernel_ function"
    close = _match(src, m.end() - 1, "(", ")")
    open_body = src.index("{", close)
    params_text, body = src[m.end():close - 1], src[open_body:_match(src, open_body)]
    macros = "".join(line + "\n" for line in re.findall(r"^\s*(?:#\s*define\s+(?!_)\w+\(.*|typedef\s+.*;)\s*$",
                                                         src[:m.start()], flags=re.M))

    def expand(code: str) -> str:
        code = re.sub(r"#\s*pragma\s+(?:end)?scop", "", code)
        code = re.sub(r"SCALAR_VAL\(\s*([^()]*?)\s*\)", lambda v: v.group(1) + suffix, code)
        code = re.sub(r"\bSQRT_FUN\b", sqrt_fn, re.sub(r"\bEXP_FUN\b", exp_fn, re.sub(r"\bPOW_FUN\b", pow_fn, code)))
        code = re.sub(r"\b_PB_(\w+)\b", lambda v: bounds.get(v.group(1), v.group(0)), code)
        code = re.sub(r"\bDATA_TYPE\b", ctype, code)
        return re.sub(r"\b[A-Z][A-Z0-9_]*\b", lambda v: str(dims.get(v.group(0), v.group(0))), code)

    params, args = [], {}
    for raw in _split(params_text):
        decl = re.match(r"(\w+)\s+POLYBENCH_(\d)D\(\s*(\w+)\s*,(.*)\)$", raw)
        if decl:
            base, rank, var = decl.group(1), int(decl.group(2)), decl.group(3)
            shape = [dims[d.strip()] for d in decl.group(4).split(",")[:rank]]
            ptype = ctype if base == "DATA_TYPE" else _base_type(base, src)
            params.append(f"{ptype} {var}" + "".join(f"[{d}]" for d in shape))
            args[var] = {"shape": shape, "dtype": _NUMPY[ptype], "fill": _fill(name, var, shape, dims)}
            continue
        scalar = re.match(r"(int|DATA_TYPE)\s+(\w+)$", raw)
        if not scalar:
            return f"a parameter the conversion does not know ({raw})"
        var = scalar.group(2)
        if scalar.group(1) == "int":
            if var.upper() not in dims:
                return f"a size parameter without a dataset size ({var})"
            args[var] = var
        else:
            value = FILLS.get(name, {}).get(var)
            if value is None:
                return f"no value for {var}"
            args[var] = value if isinstance(value, float) else float(dims[value])  # float_n = N
        params.append(f"{ctype if scalar.group(1) == 'DATA_TYPE' else 'int'} {var}")
    code = expand(body)
    for var, spec in args.items():  # an array assigned somewhere (A[i][j] = ..., C[i][j] += ..., y[i] = z[i])
        if isinstance(spec, dict) and re.search(rf"\b{var}\s*(\[[^][]*(\[[^][]*\][^][]*)*\]\s*)+[-+*/]?=(?!=)", code):
            spec["output"] = True
    source = f"{macros}void pb_{name}_{dataset.lower()}({', '.join(params)})\n{code}\n"
    return source, args, {k.lower(): v for k, v in dims.items() if k.lower() in args}


def _split(params: str) -> list[str]:
    """A parameter list split at its top-level commas."""
    out, depth, cur = [], 0, ""
    for ch in params:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return [p for p in out + [cur.strip()] if p]


def _base_type(base: str, src: str) -> str:
    """A type the benchmark defines (nussinov's ``typedef char base;``) as its C type."""
    m = re.search(rf"typedef\s+(\w+)\s+{base}\s*;", src)
    return m.group(1) if m else base


def _fill(name: str, var: str, shape: list[int], dims: dict[str, int]) -> str:
    """An array's fill: FILLS' expression with i, j, k its indices and N, NI... their dataset's values."""
    text = FILLS.get(name, {}).get(var)
    if text is None:
        return "zeros"
    rank = len(shape)
    for axis, index in enumerate("ijk"[:rank]):
        form = [1] * rank
        form[axis] = shape[axis]
        text = re.sub(rf"\b{index}\b", f"np.arange({shape[axis]}).reshape({', '.join(map(str, form))})", text)
    return _sizes_in(text, dims)


def _sizes_in(text: str, dims: dict[str, int]) -> str:
    return re.sub(r"(?<![.\w])[A-Z]\w*\b", lambda m: str(dims.get(m.group(0), m.group(0))), text)


def work(answer: tuple[str, str, str], size: dict[str, int]) -> float:
    """Operations in one call, from the answer's work (to choose the datasets), with rooflab's own evaluator."""
    return float(arith(answer[1], dict(size)))


HEADER = """/* Kernels of PolyBench/C 4.2.1, each cut out with its dataset's sizes by targets/polybench_cases.py. */
#include <math.h>
"""


def write(root: Path, out: Path, names: list[str] | None) -> tuple[Path, dict[str, str], list[str]]:
    """The kernels' C file and spec in ``out``; returns the spec's path, per case left out why, and the cases (all
    the benchmarks' where ``names`` is None)."""
    found = sources(root)
    out.mkdir(parents=True, exist_ok=True)
    c_parts, toml_parts, skipped, cases = [HEADER], [], {}, []
    for bench, path in found.items():
        for dataset in DATASETS:
            case = f"{bench}_{dataset.lower()}"
            if names is not None and case not in names:
                continue
            got = convert(bench, path, dataset)
            if isinstance(got, str):
                skipped[case] = got
                continue
            code, args, size = got
            answer = ANSWERS_BY_BENCHMARK.get(bench, ("?", "0", "0"))
            if names is None and dataset != DATASETS[0] and work(answer, size) > LARGE_UP_TO:
                continue
            cases.append(case)
            c_parts.append(code)
            toml_parts.append(f'[[kernel]]\nname = "{case}"\nsource = "polybench_kernels.c"\n'
                              f'function = "pb_{bench}_{dataset.lower()}"\nflops = "{answer[1]}"\n'
                              f'bytes = "{answer[2]}"\nsizes = {_toml_value({k: [v] for k, v in size.items()})}\n'
                              f"args = {_toml_value(args)}\n")
    for case in names or ():
        if case not in cases and case not in skipped:
            skipped[case] = "not among PolyBench's benchmarks and datasets"
    (out / "polybench_kernels.c").write_text("\n".join(c_parts))
    spec = out / "polybench.toml"
    spec.write_text("\n".join(toml_parts))
    return spec, skipped, cases


def answers(cases: list[str]) -> dict[str, tuple[str, str, str]]:
    return {c: ANSWERS_BY_BENCHMARK[c.rsplit("_", 1)[0]] for c in cases
            if c.rsplit("_", 1)[0] in ANSWERS_BY_BENCHMARK}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("polybench", type=Path, help="PolyBench/C 4.2.1, unpacked")
    ap.add_argument("--quick", action="store_true", help="explain --quick (fewer samples and rounds)")
    ap.add_argument("--case", action="append", help="only this benchmark and dataset, e.g. gemm_medium (repeatable)")
    ap.add_argument("--write-only", type=Path, metavar="DIR", help="write the kernels and their spec to DIR and stop")
    args = ap.parse_args()
    if not sources(args.polybench):
        print(f"{args.polybench}: no PolyBench/C benchmark found (PolyBench/C 4.2.1, unpacked, is needed)",
              file=sys.stderr)
        return 2
    out = args.write_only or Path(tempfile.mkdtemp(prefix="rooflab-polybench-"))
    spec, skipped, cases = write(args.polybench, out, args.case)
    return finish_written(spec, skipped, cases, answers(cases), args.quick, bool(args.write_only))


if __name__ == "__main__":
    sys.exit(main())

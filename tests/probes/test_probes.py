"""Bad input never crashes rooflab and never makes it lie.

Each probe is one line of data: what goes in (a spec edit, a kernel, command-line arguments, the environment) and
what must come out (the exit status and a fragment of the message). Every probe runs the installed `rooflab`
command in a process of its own and also checks that no Python traceback reached the user. Adding a probe is
adding a line.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest

pytestmark = pytest.mark.cc

HERE = Path(__file__).resolve().parent
ROOFLAB = str(Path(sys.executable).with_name("rooflab"))

GOOD = """\
source = "kernels.c"
function = "scale"
flops = "n"
bytes = "8*n"
sizes = {n = [64, 1000]}
min_sample = 0.001
samples = 3
timeout = 20
[args]
n = "n"
a = 3.0
x = {shape = ["n"], dtype = "float32"}
y = {shape = ["n"], dtype = "float32", output = true}
[check]
y = "a * x"
tolerance = 1e-6
"""


def kernel(function: str, args: str, check: str = "", *, sizes: str = "{n = [64, 1000]}", extra: str = "",
           flops: str = '"n"', nbytes: str = '"8*n"') -> str:
    """A spec for one kernel of kernels.c."""
    return (f'source = "kernels.c"\nfunction = "{function}"\nflops = {flops}\nbytes = {nbytes}\nsizes = {sizes}\n'
            f"min_sample = 0.001\nsamples = 3\ntimeout = 20\n{extra}\n[args]\n{args}\n"
            + (f"[check]\n{check}\n" if check else ""))


def edit(old: str, new: str) -> str:
    assert old in GOOD, old
    return GOOD.replace(old, new)


ARR = 'x = {shape = ["n"], dtype = "float32"}\ny = {shape = ["n"], dtype = "float32", output = true}'


@dataclass
class Probe:
    id: str
    spec: str | None  # the spec file's text (None: no spec)
    argv: list[str]  # after `rooflab`; SPEC stands for the spec's path
    code: int  # the exit status expected
    says: str = ""  # a regular expression the output (stdout + stderr) must contain
    env: dict = field(default_factory=dict)
    setup: Callable | None = None  # fn(workdir) before the run; may return a dict of extra env
    check: Callable | None = None  # fn(result, workdir) after the run, for what a message cannot show
    raw: bytes | None = None  # the spec file's bytes, when they are not text


def bench(quick: bool = True, *more: str) -> list[str]:
    return ["bench", "SPEC", *(["--quick"] if quick else []), *more]


# ------------------------------------------------------------------------------------------ spec fields
SPEC_PROBES = [
    Probe("threads-string", edit("timeout = 20", 'timeout = 20\nthreads = "4"'), bench(), 2, r"threads: .*integer.*'4'"),
    Probe("threads-zero", edit("timeout = 20", "timeout = 20\nthreads = 0"), bench(), 2, r"threads: .*greater than or equal to 1"),
    Probe("threads-huge", edit("timeout = 20", "timeout = 20\nthreads = 100000"), bench(), 2, r"threads: .*less than or equal to 256"),
    Probe("timeout-string", edit("timeout = 20", 'timeout = "20"'), bench(), 2, r"timeout: .*number"),
    Probe("timeout-nan", edit("timeout = 20", "timeout = nan"), bench(), 2, r"timeout: .*finite"),
    Probe("timeout-inf", edit("timeout = 20", "timeout = inf"), bench(), 2, r"timeout: .*finite"),
    Probe("timeout-negative", edit("timeout = 20", "timeout = -1"), bench(), 2, r"timeout: .*greater than 0"),
    Probe("seed-string", edit('x = {shape = ["n"], dtype = "float32"}', 'x = {shape = ["n"], dtype = "float32", seed = "x"}'), bench(), 2, r"args\.x\.seed"),
    Probe("tolerance-nan", edit("tolerance = 1e-6", "tolerance = nan"), bench(), 2, r"check: tolerance: .*finite"),
    Probe("tolerance-string", edit("tolerance = 1e-6", 'tolerance = "1e-6"'), bench(), 2, r"check: tolerance: .*number"),
    Probe("tolerance-negative", edit("tolerance = 1e-6", "tolerance = -1"), bench(), 2, r"check: tolerance"),
    Probe("check-string", edit('[check]\ny = "a * x"\ntolerance = 1e-6\n', 'check = "y"\n').replace('check = "y"\n', "").replace("timeout = 20", 'timeout = 20\ncheck = "y"'), bench(), 2, r"check: .*dictionary"),
    Probe("kernel-list-of-strings", "kernel = [\"a\"]\n" + GOOD, bench(), 2, r"\[\[kernel\]\] must be a list of tables"),
    Probe("source-number", edit('source = "kernels.c"', "source = 3"), bench(), 2, r"source: .*string"),
    Probe("function-number", edit('function = "scale"', "function = 3"), bench(), 2, r"function: .*string"),
    Probe("function-not-an-identifier", edit('function = "scale"', 'function = "scale me"'), bench(), 2, r"function: .*pattern"),
    Probe("size-inf", edit("sizes = {n = [64, 1000]}", "sizes = {n = [inf]}"), bench(), 2, r"sizes.*not a size"),
    Probe("size-nan", edit("sizes = {n = [64, 1000]}", "sizes = {n = [nan]}"), bench(), 2, r"sizes.*not a size"),
    Probe("size-negative", edit("sizes = {n = [64, 1000]}", "sizes = {n = [-5]}"), bench(), 2, r"sizes.*not a size"),
    Probe("size-string", edit("sizes = {n = [64, 1000]}", 'sizes = {n = ["big"]}'), bench(), 2, r"sizes.*not a number"),
    Probe("sizes-empty", edit("sizes = {n = [64, 1000]}", "sizes = {n = []}"), bench(), 2, r"sizes: no size to run"),
    Probe("sizes-too-big", edit("sizes = {n = [64, 1000]}", "sizes = {n = [100000000000]}"), bench(), 2, r"GiB of arrays"),
    Probe("expr-sqrt-negative", edit('flops = "n"', 'flops = "sqrt(-1)"'), bench(), 2, r"flops: 'sqrt\(-1\)' cannot be computed .*math domain"),
    Probe("expr-min-empty", edit('flops = "n"', 'flops = "min()"'), bench(), 2, r"flops: 'min\(\)' cannot be computed"),
    Probe("expr-float-overflow", edit('flops = "n"', 'flops = "(1e300)**2"'), bench(), 2, r"flops: .*beyond"),
    Probe("expr-int-overflow", edit('flops = "n"', 'flops = "(10**64)**7"'), bench(), 2, r"flops: .*beyond"),
    Probe("expr-long", edit('flops = "n"', 'flops = "' + "-" * 5000 + 'n"'), bench(), 2, r"flops: the expression is 5001 characters long"),
    Probe("expr-deep", edit('flops = "n"', 'flops = "' + "-" * 1500 + 'n"'), bench(), 2, r"flops: the expression .*(nested|deep)"),
    Probe("expr-division-by-zero", edit('bytes = "8*n"', 'bytes = "n/0"'), bench(), 2, r"bytes: division by zero"),
    Probe("expr-negative-work", edit('flops = "n"', 'flops = "-n"'), bench(), 2, r"flops: .*cannot be negative"),
    Probe("expr-python", edit('flops = "n"', 'flops = "__import__(\'os\')"'), bench(), 2, r"not allowed"),
    Probe("expr-unknown-name", edit('bytes = "8*n"', 'bytes = "8*m"'), bench(), 2, r"bytes: unknown name 'm'"),
    Probe("profile-unknown", edit("timeout = 20", 'timeout = 20\nprofile = "fast"'), bench(), 2, r"profile: .*'native' or 'portable'"),
    Probe("samples-zero", edit("samples = 3", "samples = 0"), bench(), 2, r"samples: .*greater than or equal to 1"),
    Probe("samples-string", edit("samples = 3", 'samples = "many"'), bench(), 2, r"samples: .*integer"),
    Probe("flags-number", edit("timeout = 20", "timeout = 20\nflags = [2]"), bench(), 2, r"flags\[0\]: .*string"),
    Probe("flags-not-a-list", edit("timeout = 20", 'timeout = 20\nflags = "-O2"'), bench(), 2, r"flags: .*list"),
    Probe("min-sample-nan", edit("min_sample = 0.001", "min_sample = nan"), bench(), 2, r"min_sample: .*finite"),
    Probe("min-sample-zero", edit("min_sample = 0.001", "min_sample = 0"), bench(), 2, r"min_sample: .*greater than 0"),
    Probe("openmp-string", edit("timeout = 20", 'timeout = 20\nopenmp = "yes"'), bench(), 2, r"openmp: .*boolean"),
    Probe("precision-unknown", edit("timeout = 20", 'timeout = 20\nprecision = "fp16"'), bench(), 2, r"precision: .*'fp32' or 'fp64'"),
    Probe("name-empty", edit("timeout = 20", 'timeout = 20\nname = ""'), bench(), 2, r"name: .*at least 1 character"),
    Probe("dtype-mismatch", edit('x = {shape = ["n"], dtype = "float32"}', 'x = {shape = ["n"], dtype = "float64"}'), bench(), 2, r"args\.x: dtype float64 does not match"),
    Probe("dtype-unknown", edit('x = {shape = ["n"], dtype = "float32"}', 'x = {shape = ["n"], dtype = "quaternion"}'), bench(), 2, r"args\.x: unknown dtype"),
    Probe("fill-unknown", edit('x = {shape = ["n"], dtype = "float32"}', 'x = {shape = ["n"], dtype = "float32", fill = "sometimes"}'), bench(), 2, r"args\.x\.fill"),
    Probe("fill-nan", edit('x = {shape = ["n"], dtype = "float32"}', 'x = {shape = ["n"], dtype = "float32", fill = nan}'), bench(), 2, r"args\.x\.fill"),
    Probe("shape-negative", edit('x = {shape = ["n"], dtype = "float32"}', 'x = {shape = ["n - 100"], dtype = "float32"}'), bench(), 2, r"args\.x\.shape: .*not a size"),
    Probe("output-string", edit('output = true', 'output = "yes"'), bench(), 2, r"args\.y\.output: .*boolean"),
    Probe("unknown-field", "colour = 1\n" + GOOD, bench(), 2, r"unknown field 'colour'"),
    Probe("unknown-array-key", edit('output = true}', 'output = true, size = 3}'), bench(), 2, r"unknown field 'size'"),
    Probe("missing-flops", edit('flops = "n"\n', ""), bench(), 2, r"missing field `flops`"),
    Probe("args-not-a-table", GOOD.split("[args]")[0] + "args = 3\n", bench(), 2, r"args: .*dictionary"),
    Probe("scalar-nan", edit("a = 3.0", "a = nan"), bench(), 2, r"args\.a: .*finite"),
    Probe("scalar-inf", edit("a = 3.0", "a = -inf"), bench(), 2, r"args\.a: .*finite"),
    Probe("scalar-is-array", edit("a = 3.0", "a = {shape = [1]}"), bench(), 2, r"args\.a: parameter .* is a scalar"),
    Probe("pointer-is-scalar", edit('x = {shape = ["n"], dtype = "float32"}', "x = 4"), bench(), 2, r"args\.x: parameter .* is a pointer"),
    Probe("check-not-a-string", edit('y = "a * x"', "y = 5"), bench(), 2, r"check\.y: give the expected value as an expression"),
    Probe("check-not-an-array", edit('y = "a * x"', 'n = "n"'), bench(), 2, r"check\.n: not an array argument"),
    Probe("check-unknown-name", edit('y = "a * x"', 'y = "a * w"'), bench(), 2, r"check\.y: unknown name"),
    Probe("not-utf8", None, bench(), 2, r"not UTF-8 text \(byte 0xff", raw=GOOD.encode() + b"# \xff\xfe\n"),
    Probe("not-toml", edit("[args]", "[args]\n= 1"), bench(), 2, r"not valid TOML"),
    Probe("toml-nested-deep", "x = " + "[" * 5000 + "]" * 5000 + "\n", bench(), 2, r"not valid TOML|unknown field"),
    Probe("spec-missing", None, ["bench", "nothing.toml"], 2, r"spec file nothing\.toml not found"),
    Probe("spec-is-a-folder", None, ["bench", "."], 2, r"'\.' is a directory"),
    Probe("source-missing", edit('source = "kernels.c"', 'source = "missing.c"'), bench(), 2, r"source: file .*missing\.c not found"),
    Probe("function-missing", edit('function = "scale"', 'function = "nope"'), bench(), 2, r"function: no function 'nope'"),
    Probe("function-main", edit('function = "scale"', 'function = "main"\nprototype = "int main(void)"'), bench(), 2, r"a kernel cannot be `main`"),
    Probe("reserved-function", kernel("rooflab_mine", 'n = "n"\ny = {shape = ["n"], dtype = "float32"}'), bench(), 2, r"function 'rooflab_mine': names starting with 'rooflab_' are reserved"),
    Probe("reserved-parameter", kernel("reserved", 'rooflab_n = "n"\ny = {shape = ["n"], dtype = "float32"}'), bench(), 2, r"parameter 'rooflab_n': names starting with 'rooflab_' are reserved"),
    Probe("pointer-to-pointer-one-dimension", edit('function = "scale"', 'function = "scale"\nprototype = "void scale(long n, float a, const float **x, float *y)"'), bench(), 2, r"takes row pointers: give the rows and their length"),
    Probe("duplicate-names", GOOD.replace('function = "scale"\n', "") + '[[kernel]]\nfunction = "scale"\n[[kernel]]\nfunction = "scale"\n', bench(), 2, r"kernel names must differ"),
]

# ------------------------------------------------------------------- names that collide with generated code


def _json_rows(result, _):
    doc = json.loads(result.stdout)
    return [r for k in doc["kernels"] for r in k["sizes"]]


def _all_right(result, wd):
    rows = _json_rows(result, wd)
    assert rows and all(r.get("rel_error") == 0.0 and r.get("flops_per_s") for r in rows), rows


def _rows_error(kind):
    def check(result, wd):
        rows = _json_rows(result, wd)
        assert rows and all(r.get("error_kind") == kind and "flops_per_s" not in r for r in rows), rows
    return check


def _all_rows_measured(result, wd):
    rows = _json_rows(result, wd)
    assert rows and all(r.get("error") is None and r.get("rel_error") == 0.0 and r.get("flops_per_s") for r in rows), rows


def _checked_return(result, wd):
    """A kernel that returns its result (a dot product) is checked on the value it returns."""
    rows = _json_rows(result, wd)
    assert rows and all(r["checked"] and r.get("rel_error") is not None and r["rel_error"] < 1e-12
                        and r.get("flops_per_s") for r in rows), rows


NAME_PROBES = [
    Probe("param-named-r", kernel("scale_r", f'n = "n"\nr = 3.0\n{ARR}', 'y = "r * x"\ntolerance = 0'), bench(True, "--json"), 0, r'"schema": "rooflab.bench/1"', check=_all_right),
    Probe("output-named-r", kernel("out_r", 'n = "n"\nx = {shape = ["n"], dtype = "float32"}\nr = {shape = ["n"], dtype = "float32", output = true}', 'r = "2 * x"\ntolerance = 0'), bench(True, "--json"), 0, r"bench", check=_all_right),
    Probe("params-reps-t0-sink-i", kernel("names", 'reps = "n"\nt0 = 2.0\nrl_sink = {shape = ["n"], dtype = "float32"}\ni = {shape = ["n"], dtype = "float32", output = true}', 'i = "t0 * rl_sink"\ntolerance = 0'), bench(True, "--json"), 0, r"bench", check=_all_right),
    Probe("param-named-like-function", kernel("self", f'n = "n"\nself = 3.0\n{ARR}', 'y = "self * x"\ntolerance = 0'), bench(True, "--json"), 0, r"bench", check=_all_right),
    Probe("function-named-like-libc", kernel("advance", f'n = "n"\na = 3.0\n{ARR}', 'y = "a * x"\ntolerance = 0'), bench(True, "--json"), 0, r"bench", check=_all_right),
    Probe("function-named-like-libc-step", kernel("step", f'n = "n"\na = 3.0\n{ARR}', 'y = "x - a"\ntolerance = 0'), bench(True, "--json"), 0, r"bench", check=_all_right),
    Probe("params-named-like-python-keywords", kernel("kw", 'n = "n"\nin = {shape = ["n"], dtype = "float32"}\nlambda = {shape = ["n"], dtype = "float32", output = true}', 'lambda = "in + 1"\ntolerance = 0'), bench(True, "--json"), 0, r"bench", check=_all_right),
    Probe("check-return", kernel("dot", 'n = "n"\na = {shape = ["n"]}\nb = {shape = ["n"]}', 'return = "np.dot(a, b)"\ntolerance = 1e-12', flops='"2*n"', nbytes='"16*n"'), bench(True, "--json"), 0, r"bench", check=_checked_return),
    Probe("check-return-wrong", kernel("dot", 'n = "n"\na = {shape = ["n"]}\nb = {shape = ["n"]}', 'return = "np.dot(a, b) + 1"', flops='"2*n"', nbytes='"16*n"'), bench(True, "--json"), 3, r"bench", check=_rows_error("wrong")),
    Probe("check-return-of-void", edit('y = "a * x"', 'return = "a * x"'), bench(), 2, r"check\.return: .*returns nothing"),
    Probe("cc-keeps-its-flags", kernel("flagged", 'n = "n"\ny = {shape = ["n"], dtype = "float32", output = true}', 'y = "np.full(n, 7.0)"\ntolerance = 0'), bench(True, "--json"), 0, r"bench", env={"CC": "gcc -DPROBE_FLAG=7"}, check=_all_right),
]

# ------------------------------------------------------------------------------- kernels that misbehave


def _printed_apart(result, wd):
    doc = json.loads(result.stdout)  # stdout is the JSON document, nothing else
    out = doc["kernels"][0]["sizes"][0]["output"]
    assert "hello from the kernel" in out["stdout"] and "a warning of the kernel" in out["stderr"]
    assert "hello from the kernel" not in result.stderr


def _one_crashed_one_measured(result, wd):
    doc = json.loads(result.stdout)
    kinds = {k["name"]: [r.get("error_kind") for r in k["sizes"]] for k in doc["kernels"]}
    assert kinds["crashes"] == ["crash"] and kinds["scale"] == [None, None], kinds


def _no_nan_in_json(result, wd):
    assert "NaN" not in result.stdout and "Infinity" not in result.stdout
    doc = json.loads(result.stdout)
    row = doc["kernels"][0]["sizes"][0]
    assert row["intensity"] is None and row["flops_per_s"] > 0


KERNEL_PROBES = [
    Probe("printf-goes-apart", kernel("talks", f'n = "n"\n{ARR}', 'y = "x"\ntolerance = 0', sizes="{n = [64]}"), bench(True, "--json"), 0, r"bench", check=_printed_apart),
    Probe("int-param-past-its-type", kernel("add_int", f'n = "n"\nk = "2147483648 + 7"\nu = 1\n{ARR}'), bench(), 2, r"args\.k: .* gives 2147483655 .* does not fit the kernel's int parameter \(-2147483648 to 2147483647\)"),
    Probe("unsigned-param-negative", kernel("add_int", f'n = "n"\nk = 1\nu = "-n"\n{ARR}'), bench(), 2, r"args\.u: .* gives -64 .* does not fit the kernel's unsigned int parameter \(0 to 4294967295\)"),
    Probe("int-param-not-whole", kernel("add_int", f'n = "n"\nk = "n / 3"\nu = 1\n{ARR}'), bench(), 2, r"args\.k: .* not a whole number for the kernel's int parameter"),
    Probe("int-param-in-range", kernel("add_int", f'n = "n"\nk = "2147483647"\nu = "4294967295"\n{ARR}', 'y = "x + 1 + 0"\ntolerance = 1e-6'), bench(), 0, r"add_int"),
    Probe("printf-not-utf8-bench", kernel("talks_bytes", f'n = "n"\n{ARR}', 'y = "x"\ntolerance = 0', sizes="{n = [64]}"), bench(), 0, r"printed (on stdout:|[\d.]+ \w+ on stdout; the last lines:)\s+bytes that are not UTF-8: \ufffd"),
    Probe("printf-not-utf8-profile", kernel("talks_bytes", f'n = "n"\n{ARR}', 'y = "x"\ntolerance = 0', sizes="{n = [64]}"), ["profile", "SPEC"], 0, r"talks_bytes"),
    Probe("printf-shown-in-report", kernel("talks", f'n = "n"\n{ARR}', 'y = "x"\ntolerance = 0', sizes="{n = [64]}"), bench(), 0, r"printed (on stdout:|[\d.]+ \w+ on stdout; the last lines:)\s+hello from the kernel"),
    Probe("write-past-the-end", kernel("past_end", f'n = "n"\n{ARR}', sizes="{n = [64]}"), bench(True, "--json"), 3, r"wrote past the end of `y`", check=_rows_error("out-of-bounds")),
    Probe("write-before-start", kernel("before_start", f'n = "n"\n{ARR}', sizes="{n = [64]}"), bench(), 3, r"wrote before the start of `y`"),
    Probe("crash-and-go-on", GOOD.replace('function = "scale"\n', "") + '[[kernel]]\nfunction = "scale"\n[[kernel]]\nfunction = "crashes"\nsizes = {n = [64]}\nargs = {n = "n", x = {shape = ["n"], dtype = "float32"}, y = {shape = ["n"], dtype = "float32"}}\ncheck = {}\n', bench(True, "--json"), 0, r"SIGSEGV", check=_one_crashed_one_measured),
    Probe("hang-is-stopped", kernel("hangs", f'n = "n"\n{ARR}', sizes="{n = [64]}").replace("timeout = 20", "timeout = 2"), bench(), 3, r"did not finish within 2 s"),
    Probe("wrong-is-not-timed", kernel("wrong", f'n = "n"\n{ARR}', 'y = "x"\ntolerance = 1e-6'), bench(True, "--json"), 3, r"wrong result", check=_rows_error("wrong")),
    Probe("compile-error-file-line", kernel("broken", 'n = "n"\ny = {shape = ["n"], dtype = "float32"}').replace("kernels.c", "broken.c"), bench(), 3, r"broken\.c:2:\d+: error: .*undeclared_thing"),
    Probe("no-bytes-json", kernel("touch", 'n = "n"\ny = {shape = ["n"], dtype = "float32", output = true}', nbytes="0", sizes="{n = [64]}"), bench(True, "--json"), 0, r"bench", check=_no_nan_in_json),
    Probe("no-bytes-report", kernel("touch", 'n = "n"\ny = {shape = ["n"], dtype = "float32", output = true}', nbytes="0", sizes="{n = [64]}"), bench(), 0, r"touch"),
    Probe("kernel-name-with-markup", edit("timeout = 20", 'timeout = 20\nname = "scale[/x] [bold]"'), bench(), 0, r"scale\[/x\] \[bold\]"),
    Probe("kernel-name-with-dollars-plot", edit("timeout = 20", 'timeout = 20\nname = "cost$1 $x"'), bench(True, "--plot", "p.png"), 0, r"roofline written to p\.png"),
    Probe("kernel-name-with-slash-csv", edit("timeout = 20", 'timeout = 20\nname = "../a/b"'), bench(True, "--csv", "tables"), 0, r"table", check=lambda r, wd: _csv_stays_inside(wd)),
]


def _csv_stays_inside(wd: Path):
    files = list((wd / "tables").iterdir())
    assert files and all(f.parent == wd / "tables" and f.suffix == ".csv" for f in files), files
    assert not (wd / "a").exists()


# ------------------------------------------------------------------------------------------ the command line

def _a_file(wd: Path) -> dict:
    (wd / "afile").write_text("not a folder")
    return {}


def _latin1_source(wd: Path) -> dict:
    # a source saved in Latin-1 (a comment with an accented word): the compiler quotes the line back in those bytes
    (wd / "latin1.c").write_bytes(b"/* a kernel */\nvoid broken(long n, float *y) { y[0] = undeclared_thing; /* r\xe9sum\xe9 */ }\n")
    return {}



def _undefined_call_source(wd: Path) -> dict:
    # a kernel file whose other function calls something no library linked defines (a helper from another file)
    (wd / "undef.c").write_text("double helper_elsewhere(double);\n"
                                "void scale(long n, float a, const float *x, float *y)\n"
                                "{ for (long i = 0; i < n; i++) y[i] = a * x[i]; }\n"
                                "double uses_helper(double v) { return helper_elsewhere(v); }\n")
    return {}


def _omp_caller_source(wd: Path) -> dict:
    # one kernel file for an OpenMP kernel and a plain one: the plain one is built without OpenMP, yet the file
    # calls the runtime (which a compiler without OpenMP cannot link)
    from rooflab.toolchain.compiler import find_compiler, openmp_flags

    if openmp_flags(find_compiler()) is None:
        pytest.skip("the compiler has no OpenMP")
    (wd / "ompfile.c").write_text("#include <omp.h>\n"
                                  "void scale(long n, float a, const float *x, float *y)\n"
                                  "{ for (long i = 0; i < n; i++) y[i] = a * x[i]; }\n"
                                  "int team(void) { int t = 0;\n#pragma omp parallel\n"
                                  "{\n#pragma omp single\nt = omp_get_num_threads(); }\nreturn t; }\n")
    return {}


CLI_PROBES = [
    Probe("csv-under-a-file", GOOD, bench(True, "--csv", "afile/tables"), 2, r"--csv afile/tables: .*is a file, not a folder", setup=_a_file),
    Probe("html-under-a-file", GOOD, bench(True, "--html", "afile/r.html"), 2, r"--html afile/r\.html: the folder afile does not exist \(it is a file\)", setup=_a_file),
    Probe("html-is-a-folder", GOOD, bench(True, "--html", "."), 2, r"--html.*is a directory", setup=_a_file),
    Probe("undefined-symbol-named", GOOD.replace("kernels.c", "undef.c"), bench(), 3, r"scale n=64: its library calls helper_elsewhere, which nothing it was linked with defines", setup=_undefined_call_source),
    Probe("plain-kernel-beside-openmp-calls", GOOD.replace("kernels.c", "ompfile.c"), bench(True, "--json"), 0, r'"rel_error": 0\.0,', setup=_omp_caller_source, check=_all_rows_measured),
    Probe("compile-error-latin1-source", kernel("broken", 'n = "n"\ny = {shape = ["n"], dtype = "float32"}').replace("kernels.c", "latin1.c"), bench(), 3, r"latin1\.c:2:\d+: error: .*undeclared_thing", setup=_latin1_source),
    Probe("columns-not-a-number", None, ["history"], 0, r"Runs in", env={"COLUMNS": "abc"}),
    Probe("columns-negative", None, ["history"], 0, r"Runs in", env={"COLUMNS": "-5"}),
    Probe("threshold-nan", None, ["compare", "a.toml", "b.toml", "--threshold", "nan"], 2, r"'nan' is not a finite number"),
    Probe("wait-quiet-inf", None, ["measure", "--wait-quiet", "inf"], 2, r"not a finite number|not in the range"),
    Probe("rounds-zero", None, ["compare", "a.toml", "b.toml", "--rounds", "0"], 2, r"--rounds"),
    Probe("cli-size-nan", GOOD, ["profile", "SPEC", "--size", "n=nan"], 2, r"--size 'n=nan': nan is not a size"),
    Probe("size-garbage", GOOD, ["profile", "SPEC", "--size", "n"], 2, r"--size 'n': write NAME=NUMBER"),
    Probe("lab-unknown", None, ["lab", "nosuch"], 2, r"nosuch"),
    Probe("lang-unknown", None, ["--lang", "xx", "history"], 2, r"xx"),
    Probe("lang-zh-on-ascii-stdout", None, ["--lang", "zh", "info"], 0, r"Machine.*cannot show Chinese; writing in English", env={"PYTHONIOENCODING": "ascii"}),
    Probe("latin1-stdout", None, ["info"], 0, r"Machine", env={"PYTHONIOENCODING": "latin-1"}),
    Probe("show-nothing", None, ["show"], 2, r"Missing argument"),
    Probe("unknown-command", None, ["frobnicate"], 2, r"No such command"),
    Probe("bench-all-wrong-exit-3", kernel("wrong", f'n = "n"\n{ARR}', 'y = "x"\ntolerance = 1e-6'), bench(), 3, r"no kernel of the spec could be measured"),
    Probe("compare-gate", GOOD, ["compare", "SPEC:scale", "SPEC:scale", "--quick", "--fail-if-slower", "--no-store"], 0, r"no (measurable )?difference"),
    Probe("compare-gate-fails-when-slower", GOOD.replace('function = "scale"\n', "") + '[[kernel]]\nfunction = "scale"\n[[kernel]]\nfunction = "scale_slow"\n', ["compare", "SPEC:scale", "SPEC:scale_slow", "--quick", "--fail-if-slower", "--no-store"], 1, r"B is slower than A .*fail-if-slower"),
    Probe("profile-hang-times-out", kernel("hangs", f'n = "n"\n{ARR}', sizes="{n = [64]}").replace("timeout = 20", "timeout = 0.05"), ["profile", "SPEC", "--cachegrind", "--no-store"], 2, r"cachegrind did not finish within 2\.5 s"),
    Probe("compare-many-rounds", GOOD.replace("sizes = {n = [64, 1000]}", "sizes = {n = [64]}"), ["compare", "SPEC:scale", "SPEC:scale", "--rounds", "1024", "--no-store"], 0, r"1024|no (measurable )?difference"),
]

# ---------------------------------------------------------------------------------------------- the store


def _stored_doc(kind: str, result: dict) -> Callable:
    """Store a crafted run of ``kind`` in the probe's own store; its id goes into RUN."""
    def setup(wd: Path) -> dict:
        from rooflab.results.store import Store

        with Store(wd / "s.sqlite") as st:
            rid = st.begin(kind, {"machine": {"key": "probe"}, "environment": {"hostname": "probe"}})
            st.finish(rid, {**result, "run_id": rid})
        return {"RUN": str(rid)}
    return setup


def _bench_doc(name: str, **row) -> dict:
    r = {"size": {"n": 64}, "label": f"{name} n=64", "time_s": 1e-6, "time_ci95": [9e-7, 1.1e-6], "samples": 3,
         "flops_per_s": 1e9, "bytes_per_s": 1e9, "intensity": 1.0, "working_set_bytes": 512, "rel_error": 0.0,
         **row}
    return {"schema": "rooflab.bench/1", "quick": True, "roofline_source": "measure run 1",
            "kernels": [{"name": name, "spec": {"name": name, "prototype": "void f(long n)"}, "sizes": [r],
                         "roofs": {}}],
            "points": [{"label": r["label"], "intensity": r["intensity"], "flops_per_s": r["flops_per_s"]}],
            "roofs": {"compute": [{"name": "fp32 FMA x2", "value": 2e11}],
                      "memory": [{"name": "DRAM x2", "level": "DRAM", "value": 3e10}]}, "warnings": [],
            "observations": []}


def _damaged_row(wd: Path) -> dict:
    out = _stored_doc("bench", _bench_doc("ok"))(wd)
    con = sqlite3.connect(wd / "s.sqlite")
    with con:
        con.execute("UPDATE runs SET result = ? WHERE id = ?", ("{not json", int(out["RUN"])))
    con.close()
    return out


def _locked_store(wd: Path) -> dict:
    """Another process holds the store locked for writing while the probe runs."""
    from rooflab.results.store import Store

    Store(wd / "s.sqlite").close()
    holder = subprocess.Popen([sys.executable, "-c", "import sqlite3, sys, time\n"
                               f"c = sqlite3.connect({str(wd / 's.sqlite')!r}, isolation_level=None)\n"
                               "c.execute('BEGIN EXCLUSIVE'); print('locked', flush=True); time.sleep(60)"],
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "locked"
    _HOLDERS.append(holder)
    return {"ROOFLAB_STORE_TIMEOUT": "1"}


_HOLDERS: list[subprocess.Popen] = []


def _read_only_store(wd: Path) -> dict:
    """A store on a read-only file system (a bind mount remounted read-only; needs the privilege to mount)."""
    from rooflab.results.store import Store

    d = wd / "ro"
    d.mkdir()
    with Store(d / "s.sqlite") as st:
        rid = st.begin("bench", {"machine": {"key": "probe"}, "environment": {"hostname": "probe"}})
        st.finish(rid, {**_bench_doc("kept"), "run_id": rid})
    ok = subprocess.run(["mount", "--bind", str(d), str(d)], capture_output=True).returncode == 0 and \
        subprocess.run(["mount", "-o", "remount,bind,ro", str(d)], capture_output=True).returncode == 0
    if not ok:
        pytest.skip("mounting a read-only folder needs privileges this machine does not give")
    _MOUNTS.append(d)
    return {"RUN": str(rid)}


_MOUNTS: list[Path] = []


STORE_PROBES = [
    Probe("show-superscript", None, ["show", "²", "--store", "s.sqlite"], 2, r"'²' is not a run id"),
    Probe("show-huge-id", None, ["show", "99999999999999999999", "--store", "s.sqlite"], 2, r"is not a run of this store"),
    Probe("show-negative", None, ["show", "-1", "--store", "s.sqlite"], 2, r"No such option '-1'"),
    Probe("show-word", None, ["show", "yesterday", "--store", "s.sqlite"], 2, r"'yesterday' is not a run id"),
    Probe("show-latest-empty", None, ["show", "latest", "--store", "s.sqlite"], 2, r"holds no run"),
    Probe("show-damaged-row", None, ["show", "RUN", "--store", "s.sqlite"], 2, r"run \d+ in .* is damaged: its result is not valid JSON", setup=_damaged_row),
    Probe("history-despite-damaged-row", None, ["history", "--store", "s.sqlite"], 0, r"bench", setup=_damaged_row),
    Probe("store-locked-reads", None, ["history", "--store", "s.sqlite"], 0, r"Runs in", setup=_locked_store),
    Probe("store-locked-write-waits-then-says-so", GOOD, ["bench", "SPEC", "--quick", "--store", "s.sqlite"], 2, r"database is locked .*another process holds the store locked", setup=_locked_store),
    Probe("store-not-a-database", None, ["history", "--store", "junk.sqlite"], 2, r"not a rooflab store or is damaged", setup=lambda wd: (wd / "junk.sqlite").write_bytes(b"junk" * 400) and {}),
    Probe("store-folder-is-a-file", None, ["history", "--store", "afile/s.sqlite"], 2, r"cannot create the folder of the results store", setup=lambda wd: (wd / "afile").write_text("x") and {}),
    Probe("rooflab-home-unwritable", None, ["history"], 2, r"cannot create the folder of the results store", env={"ROOFLAB_HOME": "/proc/rooflab-probe"}),
    Probe("read-only-store-reads", None, ["show", "RUN", "--store", "ro/s.sqlite"], 0, r"kept", setup=_read_only_store),
    Probe("read-only-store-refuses-writes", GOOD, ["bench", "SPEC", "--quick", "--store", "ro/s.sqlite"], 2, r"readonly|read-only", setup=_read_only_store),
    Probe("render-infinite-intensity", None, ["show", "RUN", "--store", "s.sqlite"], 0, r"inf", setup=_stored_doc("bench", _bench_doc("k", intensity=float("inf"), bytes_per_s=0.0))),
    Probe("render-negative-flops-html", None, ["report", "RUN", "--html", "r.html", "--store", "s.sqlite"], 0, r"report written", setup=_stored_doc("bench", _bench_doc("k", flops_per_s=-5e9, intensity=-5.0))),
    Probe("render-markup-name", None, ["show", "RUN", "--store", "s.sqlite"], 0, r"scale\[/x\]", setup=_stored_doc("bench", _bench_doc("scale[/x]"))),
    Probe("render-dollar-name-plot", None, ["show", "RUN", "--plot", "p.png", "--store", "s.sqlite"], 0, r"roofline written", setup=_stored_doc("bench", _bench_doc("cost$1"))),
    Probe("render-slash-name-csv", None, ["show", "RUN", "--csv", "t", "--store", "s.sqlite"], 0, r"table\(s\) written", setup=_stored_doc("bench", _bench_doc("../etc/x"))),
    Probe("show-json-nonfinite", None, ["show", "RUN", "--json", "--store", "s.sqlite"], 0, r'"nonfinite"', setup=_stored_doc("bench", _bench_doc("k", intensity=float("inf")))),
]

# ------------------------------------------------------------------ damaged, hand-edited and hostile documents


def _without(key: str) -> dict:
    return {k: v for k, v in _bench_doc("k").items() if k != key}


def _saved_file(result: dict, header: dict | None = None) -> Callable:
    """A run saved beside an unwritable store (rooflab-unsaved-*.json), as a user could edit it; RUN is its path."""
    def setup(wd: Path) -> dict:
        doc = {"schema": "rooflab.run/1", "kind": "bench", "status": "complete",
               "header": header if header is not None else {"machine": {"key": "probe"}}, "records": [],
               "result": result}
        (wd / "saved.json").write_text(json.dumps(doc))
        return {"RUN": "saved.json"}
    return setup


def _deep_saved(wd: Path) -> dict:
    text = '{"schema": "rooflab.run/1", "kind": "bench", "header": {}, "result": ' + "[" * 100000 + "]" * 100000 + "}"
    (wd / "saved.json").write_text(text)
    return {"RUN": "saved.json"}


def _nested_doc(depth: int) -> dict:
    d = _bench_doc("k")
    x: list = []
    cur = x
    for _ in range(depth):
        cur.append([])
        cur = cur[0]
    d["kernels"][0]["spec"]["deep"] = x
    return d


def _many_rows(n: int) -> dict:
    d = _bench_doc("k")
    row = d["kernels"][0]["sizes"][0]
    d["kernels"][0]["sizes"] = [dict(row, size={"n": i}, label=f"k n={i}") for i in range(1, n + 1)]
    d["points"] = [dict(d["points"][0], label=f"k n={i}") for i in range(1, n + 1)]
    return d


def _short_report(result, _):
    lines = result.stdout.splitlines()
    assert len(lines) < 300, len(lines)


def _small_file(path: Path) -> None:
    html = path.read_text()
    assert len(html) < 2_000_000 and "more rows (all in --csv and --json)" in html, len(html)


def _two_runs_zero_samples(wd: Path) -> dict:
    a = _stored_doc("bench", _bench_doc("k", seconds=[1e-6, 1.1e-6, 0.9e-6]))(wd)["RUN"]
    b = _stored_doc("bench", _bench_doc("k", seconds=[0.0, 0.0, 0.0]))(wd)["RUN"]
    return {"RUN": f"{a}", "RUNB": b}


def _no_raw_control(result, wd: Path):
    assert "\x1b" not in result.stdout + result.stderr and "\x07" not in result.stdout  # never raw to the terminal
    for f in [*wd.glob("*.html"), *wd.glob("t/*.csv")]:
        body = f.read_text()
        assert "\x1b" not in body and "\x07" not in body, f


CTRL = _stored_doc("bench", _bench_doc("evil\x1b[31mred\x07"))


DOC_PROBES = [
    Probe("show-missing-kernels", None, ["show", "RUN", "--store", "s.sqlite"], 2, r"damaged or was edited by hand: result\.kernels: Field required", setup=_stored_doc("bench", _without("kernels"))),
    Probe("show-missing-machine", None, ["show", "RUN"], 0, r"kept", setup=_saved_file(_bench_doc("kept"), header={"environment": {}})),
    Probe("show-huge-number", None, ["show", "RUN", "--store", "s.sqlite"], 2, r"intensity: 1e\+308 is not a figure rooflab could have measured", setup=_stored_doc("bench", _bench_doc("k", intensity=1e308))),
    Probe("show-wrong-type", None, ["show", "RUN", "--store", "s.sqlite"], 2, r"sizes\[0\]\.time_s: Input should be a valid number", setup=_stored_doc("bench", _bench_doc("k", time_s="fast"))),
    Probe("show-nested-deep-store", None, ["show", "RUN", "--store", "s.sqlite"], 2, r"nested more than 64 levels deep", setup=_stored_doc("bench", _nested_doc(200))),
    Probe("show-nested-100000-saved", None, ["show", "RUN"], 2, r"cannot read a saved run", setup=_deep_saved),
    Probe("show-million-rows-summarized", None, ["show", "RUN", "--store", "s.sqlite"], 0, r"\d+ more rows \(all in --csv and --json\)", setup=_stored_doc("bench", _many_rows(20000)), check=_short_report),
    Probe("many-rows-plot-thinned", None, ["show", "RUN", "--plot", "p.png", "--store", "s.sqlite"], 0, r"roofline written", setup=_stored_doc("bench", _many_rows(20000)), check=lambda r, wd: _short_report(r, wd)),
    Probe("many-rows-html-summarized", None, ["report", "RUN", "--html", "r.html", "--store", "s.sqlite"], 0, r"report written", setup=_stored_doc("bench", _many_rows(20000)), check=lambda r, wd: _small_file(wd / "r.html")),
    Probe("compare-zero-samples", None, ["compare", "RUN", "RUNB", "--store", "s.sqlite"], 2, r"seconds: samples must be positive, finite seconds", setup=_two_runs_zero_samples),
    Probe("name-control-characters-text", None, ["show", "RUN", "--store", "s.sqlite"], 0, r"evil\\x1b\[31mred", setup=CTRL, check=_no_raw_control),
    Probe("name-control-characters-html", None, ["report", "RUN", "--html", "r.html", "--store", "s.sqlite"], 0, r"report written", setup=CTRL, check=_no_raw_control),
    Probe("name-control-characters-csv", None, ["show", "RUN", "--csv", "t", "--store", "s.sqlite"], 0, r"table\(s\) written", setup=CTRL, check=_no_raw_control),
]

ALL = SPEC_PROBES + NAME_PROBES + KERNEL_PROBES + CLI_PROBES + STORE_PROBES + DOC_PROBES


@pytest.fixture(scope="module", autouse=True)
def roofline_in_store():
    """bench places kernels on this machine's stored roofline: one made up in the session's store, so that no probe
    measures one."""
    sys.path.insert(0, str(HERE.parent))
    from conftest import fake_measure

    from rooflab.paths import default_store_path

    fake_measure(default_store_path())
    yield
    for h in _HOLDERS:
        h.kill()
    for d in _MOUNTS:
        subprocess.run(["umount", str(d)], capture_output=True)


def run_probe(p: Probe, wd: Path) -> subprocess.CompletedProcess:
    shutil.copy(HERE / "kernels.c", wd / "kernels.c")
    shutil.copy(HERE / "broken.c", wd / "broken.c")
    if p.raw is not None:
        (wd / "spec.toml").write_bytes(p.raw)
    elif p.spec is not None:
        (wd / "spec.toml").write_text(p.spec)
    env = {**os.environ, **p.env}
    extra = p.setup(wd) if p.setup else {}
    run_id = (extra or {}).pop("RUN", None)
    run_b = (extra or {}).pop("RUNB", None)
    env.update(extra or {})
    argv = [run_id if a == "RUN" else run_b if a == "RUNB" else a.replace("SPEC", "spec.toml") for a in p.argv]
    try:
        return subprocess.run([ROOFLAB, *argv], cwd=wd, env=env, capture_output=True, text=True, timeout=240)
    finally:
        for h in _HOLDERS:
            h.kill()
        _HOLDERS.clear()


def _pure(p: Probe) -> bool:
    """A probe whose outcome depends on its input alone: a user error (exit 2) found without any state prepared
    beside it (no store, no lock, no mount). Nothing is timed in such a run, so these run side by side."""
    return p.code == 2 and p.setup is None


@pytest.fixture(scope="module")
def pure_results(request, tmp_path_factory, roofline_in_store):
    """The selected pure probes, run before the others on every CPU at once (each in a folder of its own): most
    probes are refused input, and their time is all process start-up that one CPU at a time would serialise."""
    from concurrent.futures import ThreadPoolExecutor

    wanted = [item.callspec.params["probe"] for item in request.session.items
              if getattr(item, "originalname", "") == "test_probe" and _pure(item.callspec.params["probe"])]

    def one(p: Probe):
        wd = tmp_path_factory.mktemp("probe")
        return p.id, (run_probe(p, wd), wd)

    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 1)) as pool:
        return dict(pool.map(one, wanted))


@pytest.mark.parametrize("probe", ALL, ids=[p.id for p in ALL])
def test_probe(probe: Probe, tmp_path, pure_results):
    if probe.id in pure_results:
        r, tmp_path = pure_results[probe.id]
    else:
        r = run_probe(probe, tmp_path)
    out = r.stdout + r.stderr
    assert "Traceback" not in out, out
    assert r.returncode == probe.code, f"exit {r.returncode}, expected {probe.code}\n{out[-3000:]}"
    assert re.search(probe.says, out, re.S), f"{probe.says!r} not in:\n{out[-3000:]}"
    if probe.code == 2:  # a user error is one line saying so
        assert re.search(r"^rooflab: error: ", r.stderr, re.M), r.stderr
    if probe.check:
        probe.check(r, tmp_path)


def test_probe_ids_are_unique():
    ids = [p.id for p in ALL]
    assert len(ids) == len(set(ids)) and len(ids) >= 100

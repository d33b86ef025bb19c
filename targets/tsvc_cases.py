"""rooflab explain on the loops of TSVC, a public test suite for vectorizing compilers written outside this project.

TSVC (Callahan, Dongarra and Levine; its C version TSVC_2, https://github.com/UoB-HPC/TSVC_2) holds 151 short loops,
each a test of what a compiler can vectorize: recurrences, reductions, conditionals, gathers, strides, loop
interchange... This script does not hold their code. Given a checkout of TSVC_2, it cuts each loop out of
``src/tsvc.c`` as its authors wrote it, and writes it as a kernel of its own:

- TSVC's global arrays become the kernel's parameters (no ``restrict``: the form of a user's kernel), the
  two-dimensional ones as ``float aa[LEN_2D][LEN_2D]``;
- the repetition loop around each test (``for (int nl = 0; ...)``) is left out: rooflab repeats the call;
- ``dummy(...)``, which keeps a result alive, becomes the kernel's return value (its last argument);
- a loop's argument (``func_args->arg_info``) becomes a parameter with the value TSVC's ``main`` gives it;
- each array is filled as TSVC's ``initialise_arrays`` fills it for that loop where that is a whole-array pattern
  (a constant, ``1/(i+1)``, ``1/(i+1)^2``), with rooflab's random fill otherwise.

The answer for each loop (the finding that should come first, or "clean") and its work (flops and bytes per call)
are this project's, in ANSWERS below, written down before explain first ran on them. Loops the conversion cannot take
(no repetition loop, code after it, no array) are listed and left out. The loops first converted (127; answers in
commit 0795cf3) and those converted after (struct arguments, TSVC's global pointers ``xx``/``yy`` as locals, its
helper functions as static functions of the kernels' file; answers in EXTRA, written down before explain first ran
on them) are run together.

    git clone https://github.com/UoB-HPC/TSVC_2 /tmp/TSVC_2
    python targets/tsvc_cases.py /tmp/TSVC_2 [--quick] [--case s000 ...] [--write-only DIR]

Run it on a quiet machine, alone.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import explain_cases  # noqa: E402  (the case runner and its report)

LEN_1D, LEN_2D = 32000, 256
ARRAYS_1D = ("a", "b", "c", "d", "e", "x", "flat_2d_array")
ARRAYS_2D = ("aa", "bb", "cc", "tt")
HELPERS = ("s151s", "s152s", "test", "s471s", "f")  # TSVC's own functions that some tests call

# loop -> (the finding right first, flops per call, bytes per call). The finding: where two causes are both the
# reason a loop falls short and which one weighs more is for the machine to say (a column walk that also carries a
# recurrence; a stride-2 loop that may or may not run at its roof; a gather the compiler keeps scalar for possible
# aliasing), "a|b" takes either; "clean": nothing wrong (told only that it is at its roof, or to use the other CPUs).
# A 4 KiB aliasing finding whose experiment backed it (the arrays staggered in their pages measured faster, beyond
# its interval) is right for any loop: the loop, placed as rooflab places arrays, does wait on it.
# The work: counted from the source, in the sizes n1 = LEN_1D and n2 = LEN_2D * LEN_2D; one float = 4 bytes, each
# element the loop uses read or written once per call (reused from a cache, it is not counted again).
ANSWERS: dict[str, tuple[str, str, str]] = {
    "s000": ("clean", "n1", "8*n1"),
    "s111": ("strided|clean", "n1/2", "6*n1"),
    "s1111": ("strided|clean", "4.5*n1", "8*n1"),
    "s112": ("clean", "n1", "12*n1"),
    "s1112": ("clean", "n1", "8*n1"),
    "s113": ("clean", "n1", "8*n1"),
    "s1113": ("narrow_vectors|aliasing", "n1", "8*n1"),
    "s114": ("strided", "n2/2", "6*n2"),
    "s115": ("clean|short_trips", "n2", "2*n2"),
    "s1115": ("strided", "2*n2", "16*n2"),
    "s116": ("narrow_vectors", "n1", "8*n1"),
    "s118": ("reduction_chain|strided", "n2", "2*n2"),
    "s119": ("clean", "n2", "12*n2"),
    "s1119": ("clean", "n2", "12*n2"),
    "s121": ("clean", "n1", "12*n1"),
    "s123": ("control_flow", "2*n1", "12*n1"),
    "s124": ("clean", "2*n1", "20*n1"),
    "s125": ("clean", "2*n2", "16*n2"),
    "s126": ("strided|dependency_chain", "2*n2", "16*n2"),
    "s127": ("clean", "2*n1", "12*n1"),
    "s128": ("strided|clean", "n1", "10*n1"),
    "s131": ("clean", "n1", "12*n1"),
    "s132": ("clean", "512", "3072"),
    "s141": ("strided", "n2/2", "6*n2"),
    "s161": ("clean", "2*n1", "20*n1"),
    "s1161": ("clean", "2*n1", "20*n1"),
    "s162": ("clean", "2*n1", "16*n1"),
    "s171": ("clean", "n1", "12*n1"),
    "s173": ("clean", "n1/2", "6*n1"),
    "s175": ("clean", "n1", "12*n1"),
    "s176": ("reuse", "n1*n1/2", "10*n1"),
    "s211": ("narrow_vectors", "4*n1", "24*n1"),
    "s212": ("narrow_vectors", "3*n1", "24*n1"),
    "s1213": ("narrow_vectors", "2*n1", "20*n1"),
    "s221": ("dependency_chain", "4*n1", "20*n1"),
    "s1221": ("dependency_chain|narrow_vectors", "n1", "12*n1"),
    "s222": ("dependency_chain", "5*n1", "24*n1"),
    "s231": ("strided|dependency_chain", "n2", "12*n2"),
    "s232": ("dependency_chain", "n2", "6*n2"),
    "s1232": ("strided", "n2/2", "6*n2"),
    "s233": ("strided|dependency_chain", "2*n2", "20*n2"),
    "s2233": ("strided|dependency_chain", "2*n2", "20*n2"),
    "s235": ("strided|dependency_chain", "2*n2", "12*n2"),
    "s241": ("narrow_vectors", "4*n1", "24*n1"),
    "s243": ("narrow_vectors", "6*n1", "28*n1"),
    "s244": ("narrow_vectors", "5*n1", "24*n1"),
    "s1244": ("narrow_vectors", "6*n1", "20*n1"),
    "s2244": ("clean", "2*n1", "16*n1"),
    "s251": ("clean", "3*n1", "16*n1"),
    "s1251": ("clean", "3*n1", "28*n1"),
    "s2251": ("narrow_vectors", "3*n1", "24*n1"),
    "s3251": ("clean", "3*n1", "28*n1"),
    "s252": ("narrow_vectors", "2*n1", "12*n1"),
    "s253": ("clean", "3*n1", "24*n1"),
    "s254": ("narrow_vectors", "2*n1", "8*n1"),
    "s255": ("narrow_vectors", "3*n1", "8*n1"),
    "s256": ("dependency_chain|strided", "3*n2", "8*n2"),
    "s257": ("strided", "2*n2", "12*n2"),
    "s258": ("control_flow|narrow_vectors", "1280", "6144"),
    "s261": ("narrow_vectors", "3*n1", "24*n1"),
    "s271": ("clean", "2*n1", "16*n1"),
    "s272": ("clean", "4*n1", "28*n1"),
    "s273": ("clean", "6*n1", "32*n1"),
    "s274": ("clean", "4*n1", "24*n1"),
    "s275": ("strided|dependency_chain", "2*n2", "16*n2"),
    "s2275": ("strided", "2*n2", "16*n2"),
    "s276": ("clean", "2*n1", "16*n1"),
    "s277": ("control_flow", "0", "4*n1"),
    "s278": ("clean", "4*n1", "24*n1"),
    "s279": ("clean", "4*n1", "24*n1"),
    "s1279": ("clean", "0", "4*n1"),
    "s2710": ("control_flow", "4*n1", "24*n1"),
    "s2711": ("clean", "2*n1", "16*n1"),
    "s2712": ("clean", "2*n1", "16*n1"),
    "s281": ("narrow_vectors", "3*n1", "20*n1"),
    "s1281": ("clean", "6*n1", "28*n1"),
    "s291": ("narrow_vectors", "2*n1", "8*n1"),
    "s292": ("narrow_vectors", "3*n1", "8*n1"),
    "s293": ("narrow_vectors", "0", "4*n1"),
    "s2101": ("strided", "512", "4096"),
    "s2102": ("strided", "0", "4*n2"),
    "s2111": ("dependency_chain", "2*n2", "8*n2"),
    "s311": ("reduction_chain", "n1", "4*n1"),
    "s312": ("reduction_chain", "n1", "4*n1"),
    "s313": ("reduction_chain", "2*n1", "8*n1"),
    "s314": ("reduction_chain", "n1", "4*n1"),
    "s316": ("reduction_chain", "n1", "4*n1"),
    "s319": ("reduction_chain", "4*n1", "20*n1"),
    "s3111": ("reduction_chain", "n1", "4*n1"),
    "s3112": ("dependency_chain", "n1", "8*n1"),
    "s3113": ("reduction_chain", "n1", "4*n1"),
    "s321": ("dependency_chain", "2*n1", "12*n1"),
    "s322": ("dependency_chain", "4*n1", "16*n1"),
    "s323": ("dependency_chain", "4*n1", "24*n1"),
    "s332": ("control_flow", "n1", "4*n1"),
    "s341": ("control_flow", "0", "8*n1"),
    "s342": ("control_flow", "0", "12*n1"),
    "s343": ("strided|control_flow", "0", "12*n2"),
    "s351": ("clean", "2*n1", "12*n1"),
    "s352": ("reduction_chain", "2*n1", "8*n1"),
    "s353": ("indirect|aliasing", "2*n1", "16*n1"),
    "s431": ("clean", "n1", "12*n1"),
    "s441": ("clean", "2*n1", "20*n1"),
    "s442": ("control_flow", "2*n1", "16*n1"),
    "s443": ("clean", "2*n1", "20*n1"),
    "s451": ("calls", "2*n1", "12*n1"),
    "s452": ("clean", "2*n1", "12*n1"),
    "s453": ("dependency_chain|reduction_chain", "2*n1", "8*n1"),
    "s481": ("control_flow", "2*n1", "20*n1"),
    "s482": ("control_flow", "2*n1", "16*n1"),
    "s491": ("indirect|aliasing", "2*n1", "20*n1"),
    "s4113": ("indirect|aliasing", "n1", "16*n1"),
    "s4115": ("reduction_chain|indirect", "2*n1", "12*n1"),
    "s4117": ("aliasing|narrow_vectors", "2*n1", "14*n1"),
    "va": ("clean", "0", "8*n1"),
    "vag": ("indirect|aliasing", "0", "12*n1"),
    "vas": ("indirect|aliasing", "0", "12*n1"),
    "vif": ("clean", "0", "8*n1"),
    "vpv": ("clean", "n1", "12*n1"),
    "vtv": ("clean", "n1", "12*n1"),
    "vpvtv": ("clean", "2*n1", "16*n1"),
    "vpvts": ("clean", "2*n1", "12*n1"),
    "vpvpv": ("clean", "2*n1", "16*n1"),
    "vtvtv": ("clean", "2*n1", "16*n1"),
    "vsumr": ("reduction_chain", "n1", "4*n1"),
    "vdotr": ("reduction_chain", "2*n1", "8*n1"),
    "vbor": ("clean", "59*256", "28*256"),
}

# the loops converted once struct arguments, xx/yy and TSVC's helper functions were: answers written down before
# explain first ran on them (s424 writes flat[i + 64] from flat[i], a distance gcc sees as xx = flat_2d_array + 63)
EXTRA: dict[str, tuple[str, str, str]] = {
    "s122": ("clean", "n1", "12*n1"),
    "s151": ("clean", "n1", "12*n1"),
    "s152": ("clean", "3*n1", "24*n1"),
    "s172": ("clean", "n1", "12*n1"),
    "s174": ("clean", "n1/2", "6*n1"),
    "s242": ("dependency_chain", "5*n1", "16*n1"),
    "s31111": ("reduction_chain", "32", "128"),
    "s1351": ("clean", "n1", "12*n1"),
    "s421": ("clean", "n1", "12*n1"),
    "s1421": ("clean", "n1/2", "6*n1"),
    "s422": ("clean", "n1", "12*n1"),
    "s423": ("clean", "n1", "12*n1"),
    "s424": ("clean", "n1", "12*n1"),
    "s471": ("clean", "4*n1", "24*n1"),
    "s4112": ("indirect|aliasing", "2*n1", "16*n1"),
    "s4114": ("indirect|aliasing", "2*n1", "20*n1"),
    "s4116": ("reduction_chain|indirect", "510", "3060"),
    "s4121": ("clean", "2*n1", "16*n1"),
}
ANSWERS.update(EXTRA)


def _match(text: str, start: int, open_: str = "{", close: str = "}") -> int:
    """The index just after the bracket that closes the one at ``start``."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == open_:
            depth += 1
        elif text[i] == close:
            depth -= 1
            if depth == 0:
                return i + 1
    raise ValueError("unbalanced brackets")


def _strip_comments(src: str) -> str:
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    return re.sub(r"//[^\n]*", "", src)


def functions(src: str) -> dict[str, str]:
    """TSVC's test functions by name: the text of each body, without comments."""
    src = _strip_comments(src)
    out = {}
    for m in re.finditer(r"^real_t (\w+)\(struct args_t \* func_args\)\s*\{", src, flags=re.M):
        end = _match(src, m.end() - 1)
        out[m.group(1)] = src[m.end():end - 1]
    return out


def helpers(src: str) -> str:
    """TSVC's functions that tests call (s151s, test, f...), as static functions of the kernels' file."""
    src = _strip_comments(src)
    out = []
    for name in HELPERS:
        m = re.search(rf"^(?:void|int|real_t) {name}\([^)]*\)\s*\{{", src, flags=re.M)
        if m:
            out.append("static " + src[m.start():_match(src, m.end() - 1)] + "\n")
    return "\n".join(out)


def _call_args(src: str) -> dict[str, str]:
    """What TSVC's main passes each test as its argument (``NULL``, ``&n1``, ``ip``...)."""
    return dict(re.findall(r"time_function\(&(\w+),\s*(.+?)\);", src))


INIT_VALUES = {"any": 0.0, "zero": 0.0, "half": 0.5, "one": 1.0, "two": 2.0, "small": 0.000001}


# set_1d_array(a, LEN_1D, one, unit), set_2d_array(aa, any, frac): (array, value, stride)
_SET_ARRAY = re.compile(r"set_[12]d_array\(\s*(\w+),\s*(?:LEN_\w+(?:\*LEN_\w+)?,\s*)?([\w.]+),\s*(\w+)\)")


def init_fills(common: str) -> dict[str, dict]:
    """Per test, the fill of each array TSVC's initialise_arrays sets as one whole-array pattern."""
    common = _strip_comments(common)
    out: dict[str, dict] = {}
    for m in re.finditer(r'strcmp\(name, "(\w+)"\)\)\s*\{', common):
        if m.group(1) in out:
            continue  # calc_checksum's branch, after initialise_arrays'
        body = common[m.end():_match(common, m.end() - 1) - 1]
        fills = {}
        for arr, value, stride in _SET_ARRAY.findall(body):
            if value in INIT_VALUES:
                value = INIT_VALUES[value]
            elif re.fullmatch(r"\d+\.\d*", value):
                value = float(value)
            else:
                continue
            n = "n2" if arr in ARRAYS_2D else "n1" if arr != "flat_2d_array" else "n2"
            shaped = f".reshape({LEN_2D}, {LEN_2D})" if arr in ARRAYS_2D else ""
            if stride == "frac":
                fills[arr] = f"(1.0 / (np.arange({n}) % {LEN_2D if arr in ARRAYS_2D else n} + 1)){shaped}"
            elif stride == "frac2":
                fills[arr] = f"(1.0 / (np.arange({n}) % {LEN_2D if arr in ARRAYS_2D else n} + 1) ** 2){shaped}"
            elif stride == "unit":
                fills[arr] = value
        out[m.group(1)] = fills
    return out


# the values TSVC's main passes its tests, by name
VALUES = {"n1": 1, "n3": 1, "s1": 1.0, "s2": 2.0, "LEN_1D/2": LEN_1D // 2, "LEN_2D/2": LEN_2D // 2}
# TSVC's init(): ip, a permutation of each five consecutive indices
IP = {"shape": [LEN_1D], "dtype": "int32",
      "fill": "(np.arange(n1) // 5) * 5 + np.tile(np.array([4, 2, 0, 3, 1]), n1 // 5)"}


def _literal(arg: str) -> list[str]:
    """The values of the compound literal TSVC's main passes (``&(struct{int a;int b;}){n1, n3}``), or of a plain
    address (``&n1``)."""
    m = re.search(r"\)\{(.*)\}$", arg)
    return [v.strip() for v in m.group(1).split(",")] if m else [arg.lstrip("&")]


def _param(ctype: str, var: str, value: str, params: list, args: dict) -> str | None:
    """A value TSVC passes as a kernel's parameter; why not, where it cannot be."""
    if value == "ip":
        params.append(f"int *{var}")
        args[var] = dict(IP)
        return None
    if value not in VALUES:
        return f"an argument the conversion does not know ({value})"
    real = "real_t" in ctype
    params.append(f"{'float' if real else 'int'} {var}")
    args[var] = float(VALUES[value]) if real else int(VALUES[value])
    return None


def convert(name: str, body: str, arg: str) -> tuple[str, dict] | str:
    """One test as a kernel's C source and its spec's args; or why it cannot be converted."""
    nl = re.search(r"for \(int nl = 0;.*?nl\+\+\)\s*\{", body)
    if not nl:
        return "no repetition loop"
    inner_end = _match(body, nl.end() - 1)
    inner = body[nl.end():inner_end - 1]
    before = body[:nl.start()]
    after = body[inner_end:]
    before = re.sub(r"initialise_arrays\(__func__\);|gettimeofday\(&func_args->t1, NULL\);", "", before)
    after = re.sub(r"gettimeofday\(&func_args->t2, NULL\);|return calc_checksum\(__func__\);", "", after)
    returned = re.fullmatch(r"\s*return (\w+);\s*", after)  # a result returned instead of checksummed
    if returned:
        after = ""
    if after.strip():
        return "code after the repetition loop"
    params, args = [], {}
    m = re.search(r"(\w+(?: \w+)?) (\w+) = \*\((\w+)\*\)func_args->arg_info;", before)
    if m:
        why = _param(m.group(1), m.group(2), _literal(arg)[0], params, args)
        if why:
            return why
        before = before.replace(m.group(0), "")
    m = re.search(r"int \* __restrict__ ip = func_args->arg_info;", before)
    if m:
        _param("int *", "ip", "ip", params, args)
        before = before.replace(m.group(0), "")
    m = re.search(r"struct\s*\{([^}]*)\}\s*\*\s*x = func_args->arg_info;", before)
    if m:  # a struct of arguments: each field read into a local becomes a parameter of that name
        fields = re.findall(r"(\w+)\s*;", m.group(1))
        values = dict(zip(fields, _literal(arg)))
        before = before.replace(m.group(0), "")
        for d in re.finditer(r"((?:int|real_t)\s*\*?\s*(?:__restrict__\s*)?)(\w+) = x->(\w+);", before):
            why = _param(d.group(1), d.group(2), values.get(d.group(3), "?"), params, args)
            if why:
                return why
            before = before.replace(d.group(0), "")
    if "func_args" in before + inner:
        return "another use of its argument"
    for taken in ("n1", "n2"):  # the spec's size names: a test's own n1 (an argument) is renamed
        if taken in args:
            args[f"tsvc_{taken}"] = args.pop(taken)
            params = [re.sub(rf"\b{taken}\b", f"tsvc_{taken}", q) for q in params]
            before, inner = (re.sub(rf"\b{taken}\b", f"tsvc_{taken}", t) for t in (before, inner))
    d = re.search(r"dummy\(", inner)
    if not d:
        return "no dummy call"
    call_end = _match(inner, d.end() - 1, "(", ")")
    call = inner[d.end():call_end - 1]
    last = call.rsplit(",", 1)[1].strip()
    if returned and not re.fullmatch(r"\w+", last):
        last = returned.group(1)
    inner = inner[:d.start()] + f"ret = {last}" + inner[call_end:]
    # an array indexed, or passed whole (to a helper, or into xx); x only indexed (a local scalar of some tests)
    used = [a for a in ARRAYS_1D + ARRAYS_2D + ("indx",)
            if re.search(rf"\b{a}\s*\[" if a == "x" else rf"\b{a}\b", before + inner)]

    def written(a: str) -> bool:  # assigned somewhere in the loop (a[i] = ..., a[i] += ..., aa[i][j] *= ...)
        return bool(re.search(rf"\b{a}\s*(\[[^][]*(\[[^][]*\][^][]*)*\]\s*)+[-+*/]?=(?!=)", before + inner))
    for a in used:
        if a in ARRAYS_2D:
            params.append(f"float {a}[LEN_2D][LEN_2D]")
            args[a] = {"shape": [LEN_2D, LEN_2D], "dtype": "float32", "output": written(a)}
        elif a == "indx":
            params.append("int *indx")
            args["indx"] = {"shape": [LEN_1D], "dtype": "int32", "fill": "(np.arange(n1) + 1) % 4 + 1"}
        else:
            params.append(f"float *{a}")
            n = LEN_2D * LEN_2D if a == "flat_2d_array" else LEN_1D
            args[a] = {"shape": [n], "dtype": "float32", "output": written(a)}
    if not used:
        return "no array"
    # TSVC's global pointers into the arrays (xx, yy), set by the tests that use them: locals of the kernel
    local = "".join(f"    real_t *{p};\n" for p in ("xx", "yy") if re.search(rf"\b{p}\b", before + inner))
    src = f"float {name}({', '.join(params)})\n{{\n    real_t ret = 0;\n{local}{before}\n{inner}\n    return ret;\n}}\n"
    return src, args


HEADER = f"""/* Loops of TSVC_2 (https://github.com/UoB-HPC/TSVC_2, src/tsvc.c), each cut out as its own kernel by
   targets/tsvc_cases.py: its global arrays as parameters, its repetition loop left to rooflab. */
#include <math.h>
#include <stdlib.h>
typedef float real_t;
#define LEN_1D {LEN_1D}
#define LEN_2D {LEN_2D}
#define iterations 100000
#define ABS fabsf
"""


def _toml_value(v) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(v)


def write(tsvc: Path, out: Path, names: list[str]) -> tuple[Path, dict[str, str]]:
    """The kernels' C file and spec in ``out``; returns the spec's path and, per loop left out, why."""
    src = (tsvc / "src" / "tsvc.c").read_text()
    fills = init_fills((tsvc / "src" / "common.c").read_text())
    funcs, calls = functions(src), _call_args(src)
    out.mkdir(parents=True, exist_ok=True)
    c_parts, toml_parts, skipped = [HEADER + helpers(src)], [], {}
    for name in names:
        if name not in funcs:
            skipped[name] = "not in tsvc.c"
            continue
        got = convert(name, funcs[name], calls.get(name, "NULL"))
        if isinstance(got, str):
            skipped[name] = got
            continue
        code, args = got
        for arr, fill in fills.get(name, {}).items():
            if arr in args:
                args[arr]["fill"] = fill
        want, flops, nbytes = ANSWERS.get(name, ("?", "0", "0"))
        c_parts.append(code)
        toml_parts.append(f'[[kernel]]\nname = "{name}"\nsource = "tsvc_kernels.c"\nfunction = "{name}"\n'
                          f'flops = "{flops}"\nbytes = "{nbytes}"\n'
                          f'sizes = {{n1 = [{LEN_1D}], n2 = [{LEN_2D * LEN_2D}]}}\n'
                          f"args = {_toml_value(args)}\n")
    (out / "tsvc_kernels.c").write_text("\n".join(c_parts))
    spec = out / "tsvc.toml"
    spec.write_text("\n".join(toml_parts))
    return spec, skipped


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tsvc", type=Path, help="a checkout of https://github.com/UoB-HPC/TSVC_2")
    ap.add_argument("--quick", action="store_true", help="explain --quick (fewer samples and rounds)")
    ap.add_argument("--case", action="append", help="only this loop (repeatable)")
    ap.add_argument("--all", action="store_true", help="convert every loop, with or without an answer")
    ap.add_argument("--write-only", type=Path, metavar="DIR", help="write the kernels and their spec to DIR and stop")
    args = ap.parse_args()
    if not (args.tsvc / "src" / "tsvc.c").is_file():
        print(f"{args.tsvc}: no src/tsvc.c (a checkout of TSVC_2 is needed)", file=sys.stderr)
        return 2
    src = (args.tsvc / "src" / "tsvc.c").read_text()
    unknown = [c for c in args.case or () if c not in ANSWERS and not args.write_only]
    if unknown:
        print(f"no answer for {', '.join(unknown)} (the loops with one: {', '.join(ANSWERS)})", file=sys.stderr)
        return 2
    names = args.case or (list(functions(src)) if args.all or args.write_only else list(ANSWERS))
    out = args.write_only or Path(tempfile.mkdtemp(prefix="rooflab-tsvc-"))
    spec, skipped = write(args.tsvc, out, names)
    for name, why in skipped.items():
        print(f"left out {name}: {why}", file=sys.stderr)
    if args.write_only:
        print(spec)
        return 0
    return run_answered(spec, [n for n in names if n not in skipped], ANSWERS, args.quick)


def finish_written(spec: Path, skipped: dict[str, str], cases: list[str], answers: dict[str, tuple], quick: bool,
                   write_only: bool) -> int:
    """What a conversion script does once its cases are written: say which were left out and why, then stop (with
    --write-only, printing the spec's path) or run the cases it wrote; its exit status."""
    for case, why in skipped.items():
        print(f"left out {case}: {why}", file=sys.stderr)
    if write_only:
        print(spec)
        return 0
    if not cases:
        print("no case to run", file=sys.stderr)
        return 2
    return run_answered(spec, cases, answers, quick)


def run_answered(spec: Path, names: list[str], answers: dict[str, tuple], quick: bool) -> int:
    """Explain each of ``names`` that has an answer, kernel by kernel of ``spec``, judge it against its answer (the
    first field of ``answers[name]``) and print explain_cases' report; its exit status."""
    explain_cases.CASES.clear()
    for name in names:
        if name in answers:
            explain_cases.CASES[name] = (spec, name, answers[name][0], None, None)
    results = []
    for name in explain_cases.CASES:
        print(f"... {name}", file=sys.stderr, flush=True)
        results.append(judge(explain_cases.run_case(name, quick), answers[name][0]))
    return explain_cases.report(results)


def judge(r: dict, answer: str) -> dict:
    """A case's result judged against its answer, which may name two findings ("a|b")."""
    if r.get("error"):
        return r
    ids = ([r["top"]] if r["top"] else []) + r["others"]
    backed_4k = any(e.get("id") == "placement" and explain_cases.backed(e) for e in r["experiments"])
    r["right"] = any(ids in explain_cases.CLEAN if a == "clean" else r["top"] == a for a in answer.split("|")) \
        or (r["top"] == "aliasing_4k" and backed_4k)
    r["want"] = answer
    return r


if __name__ == "__main__":
    sys.exit(main())

"""Kernel spec files (TOML): what to compile, how to call it, what it computes, how much work it does.

Everything is validated before anything runs, and every mistake is reported once, naming the field::

    name = "saxpy"
    source = "saxpy.c"                  # relative to this file
    function = "saxpy"                  # the entry; its prototype is read from the source
    flops = "2*n"                       # per call, in the size variables
    bytes = "12*n"
    sizes = {n = [1000, 100000, 10000000]}

    [args]                               # one entry per parameter, by name
    n = "n"                              # a scalar: a number or an expression of the sizes
    a = 2.0
    x = {shape = ["n"], dtype = "float32"}                 # an array, filled with random values
    y = {shape = ["n"], dtype = "float32", output = true}

    [check]                              # optional: the expected outputs as NumPy expressions of the inputs
    y = "a * x + y"
    tolerance = 1e-5

Several kernels in one file: ``[[kernel]]`` tables, each with its own keys; top-level keys are their defaults.
"""

from __future__ import annotations

import itertools
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, PlainValidator, StrictBool, StrictInt, StrictStr, ValidationError

from rooflab.errors import RooflabError
from rooflab.machine.env import cgroup_memory_left, usable_cpus
from rooflab.paths import MAX_THREADS
from rooflab.timing.memory import address_space_left
from rooflab.toolchain.compiler import preprocess
from rooflab.toolchain.remarks import blank_comments, function_lines
from rooflab.userkernel.expr import ExprError, arith, bare_names, names_in, numpy_expr
from rooflab.userkernel.proto import POINTEE_DTYPE, Prototype, int_range, parse_prototype, prototype_from_source

try:  # Python >= 3.11
    import tomllib
except ImportError:  # pragma: no cover - Python 3.10
    import tomli as tomllib


class SpecError(RooflabError):
    pass


KERNEL_KEYS = {"name", "source", "function", "prototype", "flags", "profile", "openmp", "threads", "sizes", "flops",
               "bytes", "args", "check", "timeout", "min_sample", "samples", "precision", "huge_pages",
               "placement"}
ARRAY_KEYS = {"shape", "dtype", "fill", "output", "seed"}
FILLS = ("random", "zeros", "ones", "arange")
CXX_SUFFIXES = (".cpp", ".cc", ".cxx", ".c++", ".cp", ".hpp", ".C")  # what compilers build as C++
# names that generated code uses: a kernel or parameter of the user's may not take them
RESERVED_PREFIX = "rooflab_"
MAX_SIZE = 1e15
STAGGER = 1088  # bytes each array lies further into its pages than the one before, when staggered (17 lines)
C_IDENT = r"^[A-Za-z_][A-Za-z0-9_]*$"


# ------------------------------------------------------------------------------------------- the typed schema
# Every field of a spec is typed, finite and in range before anything runs (pydantic, strict: "4" is not a number,
# nan and inf are refused). Expressions are checked afterwards, on every size, by the safe evaluator.


def _expr(v):
    """A number (finite) or an expression in quotes."""
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        raise ValueError(f"expected a number or an expression in quotes, got {v!r}")
    if isinstance(v, float) and not math.isfinite(v):
        raise ValueError(f"expected a finite number, got {v!r}")
    if isinstance(v, str) and not v.strip():
        raise ValueError("the expression is empty")
    return v


def _size_value(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"{v!r} is not a number")
    if not math.isfinite(v) or v < 0 or v > MAX_SIZE:
        raise ValueError(f"{v!r} is not a size (a finite number from 0 to {MAX_SIZE:g})")
    return v


Expr = Annotated[Any, PlainValidator(_expr)]
SizeValue = Annotated[Any, PlainValidator(_size_value)]
Finite = Annotated[float, Field(allow_inf_nan=False)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ArrayModel(_Model):
    shape: Union[list[Expr], Expr]
    dtype: Optional[StrictStr] = None
    fill: Union[Literal["random", "zeros", "ones", "arange"], StrictInt, Finite,
                Annotated[StrictStr, Field(min_length=1, max_length=2000)]] = "random"
    output: StrictBool = False
    seed: Annotated[int, Field(ge=0, le=2 ** 32 - 1)] = 0
    nonfinite: StrictBool = False  # a fill may give NaN and infinities (a kernel that handles them)


class KernelModel(_Model):
    name: Optional[Annotated[str, Field(min_length=1, max_length=200)]] = None
    source: Annotated[str, Field(min_length=1)]
    function: Annotated[str, Field(pattern=C_IDENT, max_length=200)]
    prototype: Optional[Annotated[str, Field(min_length=1, max_length=4000)]] = None
    flags: list[Annotated[str, Field(min_length=1)]] = []
    profile: Literal["native", "portable"] = "native"
    openmp: Optional[StrictBool] = None  # absent: on where the function holds an OpenMP directive
    threads: Optional[Annotated[int, Field(ge=1, le=MAX_THREADS)]] = None
    sizes: Union[dict[str, Union[list[SizeValue], SizeValue]], list[dict[str, SizeValue]]]
    flops: Expr
    bytes: Expr
    args: dict[str, Union[ArrayModel, Expr]]
    check: dict[str, Any] = {}
    timeout: Annotated[float, Field(gt=0, le=86400, allow_inf_nan=False)] = 60.0
    min_sample: Annotated[float, Field(gt=0, le=60, allow_inf_nan=False)] = 0.01
    samples: Annotated[int, Field(ge=1, le=100000)] = 11
    precision: Optional[Literal["fp32", "fp64"]] = None
    huge_pages: StrictBool = True
    placement: Literal["aligned", "staggered"] = "aligned"


class CheckModel(_Model):
    model_config = ConfigDict(extra="allow", strict=True)
    tolerance: Annotated[float, Field(ge=0, le=1e6, allow_inf_nan=False)] = 1e-5


def _loc(loc: tuple) -> str:
    """A pydantic error location as the field path a user wrote (``args.x.shape``), without union member names."""
    out = []
    for part in loc:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif part in ("ArrayModel", "function-plain[_expr()]", "function-plain[_size_value()]", "list[...]", "dict[...]",
                      "str", "int", "float", "literal['random','zeros','ones','arange']", "constrained-str"):
            continue
        elif str(part).startswith(("list[", "dict[", "union[", "function-")):
            continue
        else:
            out.append(("." if out else "") + str(part))
    return "".join(out)


def _schema_error(where: str, exc: ValidationError) -> SpecError:
    """One line per field, naming it: pydantic's errors, grouped so a union of choices reads as one (our own
    messages, which say what was expected, win over the generic ones of the other choices)."""
    by_path: dict[str, list[dict]] = {}
    for e in exc.errors():
        by_path.setdefault(_loc(e["loc"]) or "(spec)", []).append(e)
    lines = []
    for path, errs in by_path.items():
        e = next((x for x in errs if x["type"] == "value_error"), errs[0])
        if e["type"] == "extra_forbidden":
            field_name = path.split(".")[-1]
            known = ARRAY_KEYS if path.startswith("args.") else KERNEL_KEYS
            text = f"unknown field {field_name!r} (known: {', '.join(sorted(known))})"
            path = ".".join(path.split(".")[:-1]) or "(spec)"
        elif e["type"] == "missing":
            text = f"missing field `{path.split('.')[-1]}`"
            path = ".".join(path.split(".")[:-1]) or "(spec)"
        else:
            msg = e["msg"].removeprefix("Value error, ").replace("Input should be", "should be")
            text = f"{msg} (got {e.get('input')!r})" if "got" not in msg else msg
        lines.append(f"{where}: {path}: {text}" if path != "(spec)" else f"{where}: {text}")
    return SpecError("\n".join(dict.fromkeys(lines)))


RETURN = "return"  # check.return: the value a kernel returns (a dot product, a norm)


@dataclass(frozen=True)
class ArrayArg:
    shape: tuple  # expressions
    dtype: str
    fill: str | float = "random"
    output: bool = False
    seed: int = 0
    nonfinite: bool = False  # its fill may give NaN and infinities
    ordered: bool = False  # its values sorted (explain's probe of an index array's access pattern, never a spec's)


@dataclass
class KernelSpec:
    name: str
    source: Path
    function: str
    prototype: Prototype
    flops: str | float
    bytes: str | float
    sizes: list[dict]
    args: dict  # name -> number, expression string, or ArrayArg
    flags: list[str] = field(default_factory=list)
    profile: str = "native"
    openmp: bool = False
    threads: int = 1
    check: dict = field(default_factory=dict)  # output name -> NumPy expression
    tolerance: float = 1e-5
    timeout: float = 60.0
    min_sample: float = 0.01
    samples: int = 11
    precision: str = "fp64"
    spec_path: Path | None = None
    huge_pages: bool = True  # arrays of 256 KiB and more on transparent huge pages where the OS allows (as NumPy's)
    # where its arrays start in their 4 KiB pages: "aligned", all at the start of a page, as a program's arrays
    # usually lie (posix_memalign(4096) and mmap place them there, malloc large arrays 16 bytes in); "staggered",
    # 1088 bytes (17 lines) further for each array, as rooflab's bandwidth kernels place theirs so that no load
    # aliases a store to another array 4 KiB away
    placement: str = "aligned"
    stagger: int = STAGGER  # an experiment's other offsets (explain's control of 4 KiB aliasing)
    audit_function: str | None = None  # where the hot loop is, when not in `function` itself (the labs' kernels)
    # its calls run with subnormal numbers flushed to zero (an experiment's build): a result that differs from the
    # check's by no more than the smallest normal number of its type is the flushed value, not a wrong one
    flushed: bool = False

    def scalars(self, size: dict) -> dict:
        env = dict(size)
        for k, v in self.args.items():
            if not isinstance(v, ArrayArg):
                env[k] = arith(v, size, f"{self.name}: args.{k}")
        return env

    def arrays_bytes(self, size: dict) -> dict[str, int]:
        """Each array argument's bytes at ``size``."""
        out = {}
        for k, v in self.args.items():
            if isinstance(v, ArrayArg):
                shape = [int(arith(d, size, f"{self.name}: args.{k}.shape")) for d in v.shape]
                out[k] = math.prod(shape) * np.dtype(v.dtype).itemsize
        return out

    def array_bytes(self, size: dict) -> int:
        return sum(self.arrays_bytes(size).values())

    @property
    def floating(self) -> bool:
        """Whether any of its arrays holds floating-point (or complex) numbers: an integer kernel's work is no
        floating-point GEMM's kind."""
        return any(isinstance(a, ArrayArg) and np.dtype(a.dtype).kind in "fc" for a in self.args.values())

    def work(self, size: dict) -> tuple[float, float]:
        env = self.scalars(size)
        return (float(arith(self.flops, env, f"{self.name}: flops")),
                float(arith(self.bytes, env, f"{self.name}: bytes")))

    def to_dict(self) -> dict:
        return {"name": self.name, "source": str(self.source), "function": self.function,
                "prototype": self.prototype.declaration(), "flops": self.flops, "bytes": self.bytes,
                "sizes": self.sizes, "flags": self.flags, "profile": self.profile, "openmp": self.openmp,
                "threads": self.threads, "check": self.check, "tolerance": self.tolerance,
                "precision": self.precision, "huge_pages": self.huge_pages,
                "placement": self.placement, "spec": str(self.spec_path) if self.spec_path else None}


def _sizes(raw, where: str) -> list[dict]:
    if isinstance(raw, dict):
        keys = list(raw)
        vals = [v if isinstance(v, list) else [v] for v in raw.values()]
        return [dict(zip(keys, combo)) for combo in itertools.product(*vals)]
    return [dict(x) for x in raw]


def _available_memory() -> int:
    """Bytes of memory this process may still use: the smaller of what the machine has free and what its cgroup
    (a container, a batch job) still allows."""
    avail = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    avail = int(line.split()[1]) * 1024
    except OSError:
        pass
    if avail is None:
        try:
            avail = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
        except (ValueError, OSError):
            avail = 8 << 30

    left = cgroup_memory_left()
    return min(avail, left) if left is not None else avail


# a directive that needs the OpenMP runtime (a team, a loop shared out, tasks); `omp simd` alone needs none
_OMP_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+omp[ \t]+(?!simd\b|declare\b)(\w+)[^\n]*", re.M)


def omp_directive(source: str, function: str) -> str | None:
    """The first OpenMP directive in the definition of ``function`` that needs the runtime (``#pragma omp parallel
    for``, ``task``...), or None: a spec that does not say `openmp` is built with OpenMP where its function has one,
    as the code's author meant it to run."""
    span = function_lines(source, function)
    if not span:
        return None
    m = _OMP_DIRECTIVE.search("\n".join(blank_comments(source).splitlines()[span[0] - 1:span[1]]))
    return m.group(0).strip() if m else None


def omp_directive_built(src: Path, text: str, function: str, flags: list[str]) -> str | None:
    """omp_directive of the source as an OpenMP build of it reads it: a directive under a conditional its build does
    not take (HPCCG's ``#ifdef USING_OMP``, off by default) is not one, one under ``#ifdef _OPENMP`` is."""
    found = omp_directive(text, function)
    if found is None or not re.search(r"^[ \t]*#[ \t]*if", text, flags=re.M):
        return found
    expanded = preprocess(src, [*flags, "-D_OPENMP=201511"])
    return found if expanded is None else omp_directive(expanded, function)


def omp_team() -> int:
    """The threads an OpenMP region gets here by default: OMP_NUM_THREADS's first number where it is set, else the
    CPUs this process may use."""
    m = re.match(r"\s*(\d+)", os.environ.get("OMP_NUM_THREADS", ""))
    n = int(m.group(1)) if m and int(m.group(1)) > 0 else usable_cpus()
    return max(1, min(n, MAX_THREADS))


def _check_name(name: str, what: str, where: str) -> None:
    if name.startswith(RESERVED_PREFIX):
        raise SpecError(f"{where}: {what} {name!r}: names starting with {RESERVED_PREFIX!r} are reserved for the code "
                        "rooflab generates around a kernel; rename it")


def _prototype(src: Path, text: str, function: str, flags: list[str], where: str) -> Prototype:
    """The entry's prototype as written; where its types or bounds are the source's macros (``REAL dx[]`` with
    ``#define REAL float`` under ``#ifdef SP``), as the C preprocessor reads it with the kernel's flags."""
    try:
        return prototype_from_source(text, function, where)
    except RooflabError as first:
        if not re.search(r"^[ \t]*#[ \t]*(define|if)", text, flags=re.M):
            raise
        expanded = preprocess(src, flags)
        if expanded is None:
            raise
        try:
            return prototype_from_source(expanded, function, where)
        except RooflabError:
            raise first from None


def _kernel(raw: dict, base: Path, where: str, spec_path: Path) -> KernelSpec:
    try:
        m = KernelModel.model_validate(raw)
    except ValidationError as exc:
        name = raw.get("name") or raw.get("function")
        raise _schema_error(f"{where} ({name})" if isinstance(name, str) else where, exc) from None
    try:
        chk = CheckModel.model_validate(m.check)
    except ValidationError as exc:
        raise _schema_error(f"{where}: check", exc) from None
    name = m.name or m.function
    where = f"{where} ({name})"
    if m.function == "main":
        raise SpecError(f"{where}: function: a kernel cannot be `main` (rooflab builds a program around it)")
    _check_name(m.function, "function", where)
    src = (base / m.source).resolve()
    if not src.is_file():
        raise SpecError(f"{where}: source: file {src} not found")
    if src.suffix in CXX_SUFFIXES or src.suffix.lower() in CXX_SUFFIXES:
        raise SpecError(f"{where}: source: {src.name} is C++; rooflab builds and reads kernels as C (cc -std=gnu11): "
                        "put the kernel in a .c file (C has no templates, references, namespaces or extern \"C\")")
    try:
        text = src.read_bytes().decode("utf-8", errors="replace")
        if m.prototype is not None:
            proto = parse_prototype(m.prototype, f"{where}: prototype")
        else:
            proto = _prototype(src, text, m.function, list(m.flags), f"{where}: function")
    except RooflabError as exc:
        raise SpecError(str(exc)) from None
    except OSError as exc:
        raise SpecError(f"{where}: source: cannot read {src}: {exc.strerror}") from None
    openmp, threads = m.openmp, m.threads
    if openmp is None:
        openmp = omp_directive_built(src, text, m.function, list(m.flags)) is not None
        if openmp and threads is None:
            threads = omp_team()
    if proto.name != m.function:
        raise SpecError(f"{where}: prototype names {proto.name!r} but function is {m.function!r}")
    for p in proto.params:
        _check_name(p.name, "parameter", where)
    sizes = _sizes(m.sizes, f"{where}: sizes")
    if not sizes or not sizes[0]:
        raise SpecError(f"{where}: sizes: no size to run")
    size_names = set(sizes[0])
    for s_ in sizes:
        if set(s_) != size_names:
            raise SpecError(f"{where}: sizes: every size needs the same variables ({', '.join(sorted(size_names))})")
    for k in size_names:
        if not re.match(C_IDENT, k):
            raise SpecError(f"{where}: sizes: {k!r} is not a name an expression can use")
    params = {p.name: p for p in proto.params}
    missing = [p for p in params if p not in m.args]
    extra = [a for a in m.args if a not in params]
    if missing or extra:
        msg = []
        if missing:
            msg.append(f"no value for parameter(s) {', '.join(missing)}")
        if extra:
            msg.append(f"{', '.join(extra)} not in the prototype")
        raise SpecError(f"{where}: args and the prototype `{proto.declaration()}` disagree: {'; '.join(msg)}")
    args: dict = {}
    for pname, p in params.items():
        v = m.args[pname]
        fld = f"{where}: args.{pname}"
        if p.pointer:
            if not isinstance(v, ArrayModel):
                raise SpecError(f"{fld}: parameter `{p.c_decl}` is a pointer: give an array "
                                "{shape = [...], dtype = ...}")
            want = POINTEE_DTYPE.get(p.base) or (p.fields[0] if p.fields else None)
            dtype = v.dtype or want
            if dtype is None:
                raise SpecError(f"{fld}: `{p.c_decl}` points to {p.base}: give its dtype (for an array of structs, "
                                "the type of their fields, with one more dimension for the fields)")
            try:
                dtype = np.dtype(dtype).name
            except TypeError:
                raise SpecError(f"{fld}: unknown dtype {v.dtype!r}") from None
            if np.dtype(dtype).kind not in "fiuc":
                raise SpecError(f"{fld}: dtype {dtype} is not a number type")
            if want and dtype != want:
                if p.fields:
                    raise SpecError(f"{fld}: dtype {dtype} does not match the fields of {p.base} ({p.fields[1]} "
                                    f"{want})")
                raise SpecError(f"{fld}: dtype {dtype} does not match the prototype's {p.base} * ({want})")
            if p.const and v.output:
                raise SpecError(f"{fld}: a const pointer cannot be an output")
            shape = tuple(v.shape) if isinstance(v.shape, list) else (v.shape,)
            if not shape:
                raise SpecError(f"{fld}: shape: empty; give at least one dimension")
            if p.rows and len(shape) < 1 + p.tables:
                if p.tables == 1:
                    raise SpecError(f"{fld}: `{p.c_decl}` takes row pointers: give the rows and their length (shape "
                                    "= [rows, columns]); rooflab makes one buffer and a table of its rows' addresses")
                dims = "planes, rows, columns" if p.tables == 2 else "..., planes, rows, columns"
                raise SpecError(f"{fld}: `{p.c_decl}` takes {p.tables} levels of pointers: give a shape of "
                                f"{1 + p.tables} dimensions or more (shape = [{dims}]); rooflab makes one buffer and the "
                                "tables of its planes' and rows' addresses")
            if p.fields and shape[-1] != p.fields[1]:
                raise SpecError(f"{fld}: {p.base} has {p.fields[1]} fields of {p.fields[0]}: give them as the last "
                                f"dimension (shape = [..., {p.fields[1]}]), not {shape[-1]!r}")
            if v.nonfinite and np.dtype(dtype).kind not in "fc":
                raise SpecError(f"{fld}: nonfinite: an array of {dtype} holds no NaN or infinity")
            args[pname] = ArrayArg(shape, dtype, v.fill, v.output, v.seed, v.nonfinite)
        else:
            if isinstance(v, ArrayModel):
                raise SpecError(f"{fld}: parameter `{p.c_decl}` is a scalar: give a number or an expression")
            args[pname] = v
    check = dict(chk.model_extra or {})
    for out, text in check.items():
        if out == RETURN:
            if proto.returns == "void" or proto.returns not in POINTEE_DTYPE:
                raise SpecError(f"{where}: check.return: `{proto.declaration()}` returns "
                                f"{'nothing' if proto.returns == 'void' else proto.returns + ', not a number'}")
        elif out not in args or not isinstance(args[out], ArrayArg):
            raise SpecError(f"{where}: check.{out}: not an array argument of the kernel (or `return` for the value "
                            "the function returns)")
        if not isinstance(text, str) or not text.strip():
            raise SpecError(f"{where}: check.{out}: give the expected value as an expression in quotes, got {text!r}")
    spec = KernelSpec(name=name, source=src, function=m.function, prototype=proto, flops=m.flops, bytes=m.bytes,
                      sizes=sizes, args=args, flags=list(m.flags), profile=m.profile, openmp=openmp,
                      threads=threads or 1, check=check, tolerance=chk.tolerance, timeout=m.timeout,
                      min_sample=m.min_sample, samples=m.samples, precision=m.precision or _precision(args),
                      spec_path=spec_path, huge_pages=m.huge_pages, placement=m.placement)
    _validate_expressions(spec, where)
    return spec


def _precision(args: dict) -> str:
    dts = {a.dtype for a in args.values() if isinstance(a, ArrayArg)}
    single, double = {"float32", "complex64"} & dts, {"float64", "complex128"} & dts
    return "fp32" if single and not double else "fp64"


def _validate_expressions(spec: KernelSpec, where: str) -> None:
    """Evaluate every expression on every size now, so a typo fails before anything runs."""
    avail = _available_memory()
    for size in spec.sizes:
        check_size(spec, size, where, avail)


def check_size(spec: KernelSpec, size: dict, where: str, avail: int | None = None) -> None:
    """One size of a kernel checked as the spec's own sizes are: every expression evaluates, work is not negative,
    every array dimension is a whole number, the check names known names, the arrays fit in memory."""
    avail = _available_memory() if avail is None else avail
    try:
        env = spec.scalars(size)
        flops, nbytes = spec.work(size)
        if flops < 0 or nbytes < 0:
            raise SpecError(f"{where}: {'flops' if flops < 0 else 'bytes'}: {flops if flops < 0 else nbytes:g} "
                            f"at {size}: work cannot be negative")
        params = {p.name: p for p in spec.prototype.params}
        for k, v in spec.args.items():
            if isinstance(v, ArrayArg):
                for d in v.shape:
                    n = arith(d, size, f"{where}: args.{k}.shape")
                    if n < 0 or int(n) != n:
                        raise SpecError(f"{where}: args.{k}.shape: {d!r} gives {n}, not a size")
                if isinstance(v.fill, str) and v.fill not in FILLS:
                    # in a fill, np is NumPy and rng the generator, whatever else bears the name (PolyBench's
                    # doitgen has a size parameter np): a size or parameter of that name is refused where the
                    # expression uses the name as a value, which would be read as the size
                    hidden = sorted({"rng", "np"} & set(env) & bare_names(v.fill, f"{where}: args.{k}.fill", env))
                    if hidden:
                        what = {"np": "np is NumPy", "rng": "rng is the random generator"}
                        raise SpecError(f"{where}: args.{k}.fill: in a fill, {' and '.join(what[h] for h in hidden)}"
                                        ", not the size or parameter of that name: write its value in the "
                                        "expression")
                    known = set(env) | {"rng", "np"}
                    unknown = names_in(v.fill, f"{where}: args.{k}.fill", known) - known
                    if unknown:
                        raise SpecError(f"{where}: args.{k}.fill: unknown name(s) {', '.join(sorted(unknown))} in "
                                        f"{v.fill!r} (a fill is random, zeros, ones, arange, a number, or a NumPy "
                                        f"expression over {', '.join(sorted(known))})")
                continue
            p = params.get(k)
            rng = int_range(p.base) if p is not None and not p.pointer else None
            val = env.get(k)
            if rng is not None and isinstance(val, (int, float)):
                if not math.isfinite(val) or int(val) != val:
                    raise SpecError(f"{where}: args.{k}: {v!r} gives {val} at {size}, not a whole number for the "
                                    f"kernel's {p.base} parameter")
                if not rng[0] <= int(val) <= rng[1]:
                    raise SpecError(f"{where}: args.{k}: {v!r} gives {int(val)} at {size}, which does not fit the "
                                    f"kernel's {p.base} parameter ({rng[0]} to {rng[1]}): it would be passed "
                                    "truncated")
        for out, text in spec.check.items():
            known = set(env) | set(spec.args)
            unknown = names_in(text, f"{where}: check.{out}", known) - known - {"np"}
            if unknown:
                raise SpecError(f"{where}: check.{out}: unknown name(s) {', '.join(sorted(unknown))} in {text!r}")
    except ExprError as exc:
        raise SpecError(str(exc)) from None
    need = spec.array_bytes(size)
    if need > avail // 2:
        raise SpecError(f"{where}: sizes: {size} needs {need / 2**30:.1f} GiB of arrays, more than half of the "
                        f"{avail / 2**30:.1f} GiB of memory available")

    mappable = address_space_left()
    if mappable is not None and need > mappable * 0.8:
        raise SpecError(f"{where}: sizes: {size} needs {need / 2**30:.2f} GiB of arrays, more than the "
                        f"{mappable / 2**30:.2f} GiB of address space a process may still map under this shell's "
                        "limit (RLIMIT_AS, `ulimit -v`)")


def load_spec(path: str | Path, only: tuple[str, ...] = ()) -> list[KernelSpec]:
    """The kernels of a spec file, each validated; with ``only`` (names), just those: a kernel the run does not
    use is not read further than its name, so one with a prototype rooflab cannot take does not stop the others."""
    path = Path(path)
    try:
        if not path.is_file():
            raise SpecError(f"spec file {path} not found")
        data = path.read_bytes()
    except OSError as exc:
        raise SpecError(f"spec file {path}: cannot read it: {exc.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(f"{path}: not UTF-8 text (byte {data[exc.start]:#04x} at offset {exc.start}): save the spec "
                        "as UTF-8") from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise SpecError(f"{path}: not valid TOML: nested too deeply") from None
    base = path.resolve().parent
    kernels = raw.pop("kernel", None)
    if kernels is None:
        return [_kernel(raw, base, str(path), path)]
    if not isinstance(kernels, list) or not kernels or not all(isinstance(k, dict) for k in kernels):
        raise SpecError(f"{path}: kernel: [[kernel]] must be a list of tables")
    if only:
        # a kernel is named by its name, else by its function (either may be shared by all the kernels)
        names = [{**raw, **k}.get("name") or {**raw, **k}.get("function") for k in kernels]
        written = [n for n in names if isinstance(n, str)]
        missing = [n for n in only if n not in written]
        if missing:
            raise SpecError(f"no kernel named {', '.join(missing)} in the spec (it has: {', '.join(written)})")
        kernels_at = [(i, k) for i, (k, n) in enumerate(zip(kernels, names)) if n in only]
    else:
        kernels_at = list(enumerate(kernels))
    out = [_kernel({**raw, **k}, base, f"{path}: kernel {i + 1}", path) for i, k in kernels_at]
    names = [k.name for k in out]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise SpecError(f"{path}: kernel names must differ ({', '.join(sorted(dup))} repeated)")
    return out


@dataclass(frozen=True)
class Checker:
    """Picklable correctness check: rebuild the inputs, evaluate the expected outputs, compare (max rel. error)."""

    arrays: tuple  # (name, ArraySpec) in parameter order
    scalars: tuple  # (name, value)
    expected: tuple  # (name, expression)
    flushed: bool = False  # differences up to the smallest normal number of the output's type are flushed values

    def __call__(self, outputs: list[np.ndarray]) -> float:
        env = dict(self.scalars)
        env.update({n: spec.make() for n, spec in self.arrays})
        got = dict(zip([n for n, _ in self.arrays], outputs))
        worst = 0.0
        for name, text in self.expected:
            # complex outputs are compared as complex numbers (the difference's modulus)
            as_type = np.complex128 if got[name].dtype.kind == "c" else np.float64
            ref = np.asarray(numpy_expr(text, env, f"check.{name}"), dtype=as_type)
            out = got[name].astype(as_type)
            if ref.shape != out.shape:
                try:
                    ref = np.broadcast_to(ref, out.shape)
                except ValueError:
                    raise ExprError(f"check.{name}: expected shape {ref.shape}, the output has {out.shape}") from None
            with np.errstate(invalid="ignore"):
                # equal where both are the same number, the same infinity or both NaN; a NaN or an infinity on one
                # side only is as wrong as a result can be (a NaN would otherwise compare as no difference at all)
                same = (out == ref) | (np.isnan(out) & np.isnan(ref))
                diff = np.where(same, 0.0, np.abs(out - ref))
            if diff.size and not np.isfinite(diff).all():
                return float("inf")
            if self.flushed and got[name].dtype.kind == "f":
                tiny = float(np.finfo(got[name].dtype).tiny)
                diff[diff <= tiny] = 0.0
                ref = np.where(np.abs(ref) < tiny, 0.0, ref)
            finite = np.abs(ref[np.isfinite(ref)])
            scale = float(np.max(finite)) if finite.size else 1.0
            worst = max(worst, float(np.max(diff)) / (scale or 1.0) if diff.size else 0.0)
        return worst


def select(specs: list[KernelSpec], names: tuple[str, ...]) -> list[KernelSpec]:
    """The kernels of a spec named in ``names`` (all of them when it is empty)."""
    if not names:
        return specs
    known = {s.name: s for s in specs}
    bad = [n for n in names if n not in known]
    if bad:
        raise RooflabError(f"no kernel named {', '.join(bad)} in the spec (it has: {', '.join(known)})")
    return [known[n] for n in names]


def one_kernel(specs: list[KernelSpec], name: str | None) -> KernelSpec:
    """The kernel named ``name``, or the spec's only one (track and bisect follow one kernel)."""
    if name is None:
        if len(specs) > 1:
            raise RooflabError(f"the spec has several kernels ({', '.join(s.name for s in specs)}): choose one with "
                               "--kernel")
        return specs[0]
    return select(specs, (name,))[0]


def parse_size_values(values) -> dict | None:
    """``--size NAME=NUMBER`` (repeated) as a dict; a dict (from Python) is checked the same way."""
    given = ([(f"{k}={v}", k, v) for k, v in values.items()] if isinstance(values, dict) else
             [(str(v), *str(v).partition("=")[::2]) for v in values or ()])
    out = {}
    for raw, name, num in given:
        if isinstance(num, str):
            if not raw.count("=") or not name.strip():
                raise RooflabError(f"--size {raw!r}: write NAME=NUMBER, e.g. --size n=4096")
            try:
                num = int(num) if num.strip().lstrip("-").isdigit() else float(num)
            except ValueError:
                raise RooflabError(f"--size {raw!r}: write NAME=NUMBER, e.g. --size n=4096") from None
        if isinstance(num, bool) or not isinstance(num, (int, float)) or not math.isfinite(num) or \
                not 0 <= num <= 1e15:
            raise RooflabError(f"--size {raw!r}: {raw.partition('=')[2].strip()} is not a size (a finite number "
                               "from 0 to 1e15)")
        out[name.strip()] = num
    return out or None


def size_for(spec: KernelSpec, given: dict) -> dict:
    """The size of ``spec`` that ``--size`` values give (its own size variables, each one required), checked as the
    spec's sizes are."""
    missing = set(spec.sizes[0]) - set(given)
    if missing:
        raise RooflabError(f"--size must give {', '.join(sorted(missing))} too (the size variables of {spec.name})")
    size = {k: given[k] for k in spec.sizes[0]}
    check_size(spec, size, "--size")
    return size

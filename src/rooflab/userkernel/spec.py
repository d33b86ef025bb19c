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
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import RooflabError
from .expr import ExprError, arith, names_in, numpy_expr
from .proto import POINTEE_DTYPE, Prototype, parse_prototype, prototype_from_source

try:  # Python >= 3.11
    import tomllib
except ImportError:  # pragma: no cover - Python 3.10
    import tomli as tomllib


class SpecError(RooflabError):
    pass


KERNEL_KEYS = {"name", "source", "function", "prototype", "flags", "profile", "openmp", "threads", "sizes", "flops",
               "bytes", "args", "check", "timeout", "min_sample", "samples", "precision"}
ARRAY_KEYS = {"shape", "dtype", "fill", "output", "seed"}
FILLS = ("random", "zeros", "ones", "arange")


@dataclass(frozen=True)
class ArrayArg:
    shape: tuple  # expressions
    dtype: str
    fill: str | float = "random"
    output: bool = False
    seed: int = 0


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

    def scalars(self, size: dict) -> dict:
        env = dict(size)
        for k, v in self.args.items():
            if not isinstance(v, ArrayArg):
                env[k] = arith(v, size, f"{self.name}: args.{k}")
        return env

    def array_bytes(self, size: dict) -> int:
        total = 0
        for k, v in self.args.items():
            if isinstance(v, ArrayArg):
                shape = [int(arith(d, size, f"{self.name}: args.{k}.shape")) for d in v.shape]
                total += math.prod(shape) * np.dtype(v.dtype).itemsize
        return total

    def work(self, size: dict) -> tuple[float, float]:
        env = self.scalars(size)
        return (float(arith(self.flops, env, f"{self.name}: flops")),
                float(arith(self.bytes, env, f"{self.name}: bytes")))

    def to_dict(self) -> dict:
        return {"name": self.name, "source": str(self.source), "function": self.function,
                "prototype": self.prototype.declaration(), "flops": self.flops, "bytes": self.bytes,
                "sizes": self.sizes, "flags": self.flags, "profile": self.profile, "openmp": self.openmp,
                "threads": self.threads, "check": self.check, "tolerance": self.tolerance,
                "precision": self.precision, "spec": str(self.spec_path) if self.spec_path else None}


def _sizes(raw, where: str) -> list[dict]:
    if isinstance(raw, dict):
        keys = list(raw)
        vals = [v if isinstance(v, list) else [v] for v in raw.values()]
        return [dict(zip(keys, combo)) for combo in itertools.product(*vals)]
    if isinstance(raw, list) and all(isinstance(x, dict) for x in raw):
        return [dict(x) for x in raw]
    raise SpecError(f"{where}: sizes must be a table of lists (sizes = {{n = [1000, 10000]}}) or a list of tables")


def _available_memory() -> int:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
    except (ValueError, OSError):
        return 8 << 30


def _kernel(raw: dict, base: Path, where: str, spec_path: Path) -> KernelSpec:
    unknown = set(raw) - KERNEL_KEYS
    if unknown:
        raise SpecError(f"{where}: unknown field(s) {', '.join(sorted(unknown))} (known: {', '.join(sorted(KERNEL_KEYS))})")
    for req in ("source", "function", "flops", "bytes", "sizes", "args"):
        if req not in raw:
            raise SpecError(f"{where}: missing field `{req}`")
    name = str(raw.get("name") or raw["function"])
    where = f"{where} ({name})"
    src = (base / raw["source"]).resolve()
    if not src.is_file():
        raise SpecError(f"{where}: source: file {src} not found")
    try:
        if "prototype" in raw:
            proto = parse_prototype(raw["prototype"], f"{where}: prototype")
        else:
            proto = prototype_from_source(src.read_text(errors="replace"), raw["function"], f"{where}: function")
    except RooflabError as exc:
        raise SpecError(str(exc)) from None
    if proto.name != raw["function"]:
        raise SpecError(f"{where}: prototype names {proto.name!r} but function is {raw['function']!r}")
    sizes = _sizes(raw["sizes"], f"{where}: sizes")
    if not sizes:
        raise SpecError(f"{where}: sizes: no size to run")
    size_names = set(sizes[0])
    for s in sizes:
        if set(s) != size_names:
            raise SpecError(f"{where}: sizes: every size needs the same variables ({', '.join(sorted(size_names))})")
        for k, v in s.items():
            if not isinstance(v, (int, float)) or isinstance(v, bool):
                raise SpecError(f"{where}: sizes.{k}: {v!r} is not a number")
    rargs = raw["args"]
    if not isinstance(rargs, dict):
        raise SpecError(f"{where}: args must be a table, one entry per parameter")
    params = {p.name: p for p in proto.params}
    missing = [p for p in params if p not in rargs]
    extra = [a for a in rargs if a not in params]
    if missing or extra:
        msg = []
        if missing:
            msg.append(f"no value for parameter(s) {', '.join(missing)}")
        if extra:
            msg.append(f"{', '.join(extra)} not in the prototype")
        raise SpecError(f"{where}: args and the prototype `{proto.declaration()}` disagree: {'; '.join(msg)}")
    args: dict = {}
    for pname, p in params.items():
        v = rargs[pname]
        fld = f"{where}: args.{pname}"
        if p.pointer:
            if not isinstance(v, dict):
                raise SpecError(f"{fld}: parameter `{p.c_decl}` is a pointer: give an array "
                                "{shape = [...], dtype = ...}")
            bad = set(v) - ARRAY_KEYS
            if bad:
                raise SpecError(f"{fld}: unknown key(s) {', '.join(sorted(bad))} (known: {', '.join(sorted(ARRAY_KEYS))})")
            if "shape" not in v:
                raise SpecError(f"{fld}: missing `shape`")
            want = POINTEE_DTYPE.get(p.base)
            dtype = v.get("dtype", want)
            try:
                dtype = np.dtype(dtype).name
            except TypeError:
                raise SpecError(f"{fld}: unknown dtype {v.get('dtype')!r}") from None
            if want and dtype != want:
                raise SpecError(f"{fld}: dtype {dtype} does not match the prototype's {p.base} * ({want})")
            fill = v.get("fill", "random")
            if not (fill in FILLS or isinstance(fill, (int, float))):
                raise SpecError(f"{fld}: fill must be one of {', '.join(FILLS)} or a number")
            if p.const and v.get("output"):
                raise SpecError(f"{fld}: a const pointer cannot be an output")
            shape = tuple(v["shape"]) if isinstance(v["shape"], list) else (v["shape"],)
            args[pname] = ArrayArg(shape, dtype, fill, bool(v.get("output", False)), int(v.get("seed", 0)))
        else:
            if isinstance(v, dict):
                raise SpecError(f"{fld}: parameter `{p.c_decl}` is a scalar: give a number or an expression")
            args[pname] = v
    check = dict(raw.get("check") or {})
    tol = float(check.pop("tolerance", 1e-5))
    for out in check:
        if out not in args or not isinstance(args[out], ArrayArg):
            raise SpecError(f"{where}: check.{out}: not an array argument of the kernel")
    spec = KernelSpec(name=name, source=src, function=raw["function"], prototype=proto, flops=raw["flops"],
                      bytes=raw["bytes"], sizes=sizes, args=args, flags=list(raw.get("flags", [])),
                      profile=str(raw.get("profile", "native")), openmp=bool(raw.get("openmp", False)),
                      threads=int(raw.get("threads", 1)), check=check, tolerance=tol,
                      timeout=float(raw.get("timeout", 60.0)), min_sample=float(raw.get("min_sample", 0.01)),
                      samples=int(raw.get("samples", 11)), precision=str(raw.get("precision", _precision(args))),
                      spec_path=spec_path)
    _validate_expressions(spec, where)
    return spec


def _precision(args: dict) -> str:
    dts = {a.dtype for a in args.values() if isinstance(a, ArrayArg)}
    return "fp32" if "float32" in dts and "float64" not in dts else "fp64"


def _validate_expressions(spec: KernelSpec, where: str) -> None:
    """Evaluate every expression on every size now, so a typo fails before anything runs."""
    avail = _available_memory()
    for size in spec.sizes:
        try:
            env = spec.scalars(size)
            spec.work(size)
            for k, v in spec.args.items():
                if isinstance(v, ArrayArg):
                    for d in v.shape:
                        n = arith(d, size, f"{where}: args.{k}.shape")
                        if n < 0 or int(n) != n:
                            raise SpecError(f"{where}: args.{k}.shape: {d!r} gives {n}, not a size")
            for out, text in spec.check.items():
                unknown = names_in(text, f"{where}: check.{out}") - set(env) - set(spec.args) - {"np"}
                if unknown:
                    raise SpecError(f"{where}: check.{out}: unknown name(s) {', '.join(sorted(unknown))} in {text!r}")
        except ExprError as exc:
            raise SpecError(str(exc)) from None
        need = spec.array_bytes(size)
        if need > avail // 2:
            raise SpecError(f"{where}: sizes: {size} needs {need / 2**30:.1f} GiB of arrays, more than half of the "
                            f"{avail / 2**30:.1f} GiB of memory available")


def load_spec(path: str | Path) -> list[KernelSpec]:
    path = Path(path)
    if not path.is_file():
        raise SpecError(f"spec file {path} not found")
    try:
        raw = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{path}: not valid TOML: {exc}") from None
    base = path.resolve().parent
    kernels = raw.pop("kernel", None)
    if kernels is None:
        return [_kernel(raw, base, str(path), path)]
    if not isinstance(kernels, list) or not kernels:
        raise SpecError(f"{path}: [[kernel]] must be a list of tables")
    out = [_kernel({**raw, **k}, base, f"{path}: kernel {i + 1}", path) for i, k in enumerate(kernels)]
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

    def __call__(self, outputs: list[np.ndarray]) -> float:
        env = dict(self.scalars)
        env.update({n: spec.make() for n, spec in self.arrays})
        got = dict(zip([n for n, _ in self.arrays], outputs))
        worst = 0.0
        for name, text in self.expected:
            ref = np.asarray(numpy_expr(text, env, f"check.{name}"), dtype=np.float64)
            out = got[name].astype(np.float64)
            if ref.shape != out.shape:
                try:
                    ref = np.broadcast_to(ref, out.shape)
                except ValueError:
                    raise ExprError(f"check.{name}: expected shape {ref.shape}, the output has {out.shape}") from None
            scale = float(np.max(np.abs(ref))) or 1.0
            worst = max(worst, float(np.max(np.abs(out - ref))) / scale)
        return worst

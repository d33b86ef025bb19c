"""Kernel tasks that run inside the worker process: allocate the data there, check the result, then time.

Tasks are plain picklable data. :func:`run_c_kernel` executes in the child; the parent only sees a result or a
:class:`~rooflab.errors.KernelFailed` / :class:`~rooflab.errors.WrongResult`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import re
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
from threadpoolctl import threadpool_limits

from rooflab.errors import OutOfBounds, RooflabError, WrongResult
from rooflab.i18n import tr
from rooflab.kernels.tasks import checked_blas_gemm
from rooflab.timing.harness import HarnessConfig, calibrate, python_overhead, python_timed, run_interleaved, run_samples
from rooflab.timing.isolation import fp_control, report_fp_at_load, report_fp_change
from rooflab.timing.memory import address_space_left, aligned_array
from rooflab.userkernel.expr import numpy_expr

GUARD = 4096  # bytes of a known pattern before and after every array a kernel gets
GUARD_BYTE = 0xA5


@dataclass(frozen=True)
class ArraySpec:
    shape: tuple[int, ...]
    dtype: str = "float64"
    # "random" (uniform in [0.5, 1.5); integers in [0, 100)), "zeros", "ones", "arange", a constant, or a NumPy
    # expression over ``env`` (the sizes and scalar arguments), ``rng`` (a generator seeded with ``seed``) and ``np``
    fill: str | float = "random"
    seed: int = 0
    # bytes past a 4 KiB boundary (arrays of one kernel given different skews do not 4K-alias); None: 64-byte aligned
    skew: int | None = None
    name: str = field(default="", compare=False)  # the parameter it is passed as (to name an array written outside of)
    huge: bool = True  # large arrays on transparent huge pages where the OS allows; False: 4 KiB pages
    env: tuple = ()  # (name, value) pairs an expression fill may use
    nonfinite: bool = False  # an expression fill may give NaN and infinities (the spec says so)
    ordered: bool = False  # its values sorted ascending (explain's probe of an index array's access pattern)

    def make_guarded(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The array (as :meth:`make`) with GUARD bytes of a pattern before and after it: (array, before, after).
        A kernel that writes past either end changes them, which :func:`check_guards` reports."""
        src = self.make()
        buf = aligned_array(self.nbytes + 2 * GUARD, np.uint8, skew=self.skew, huge=self.huge)
        buf.fill(GUARD_BYTE)
        a = buf[GUARD:GUARD + self.nbytes].view(np.dtype(self.dtype)).reshape(self.shape)
        a[...] = src
        return a, buf[:GUARD], buf[GUARD + self.nbytes:]

    def make(self) -> np.ndarray:
        """The same contents and the same memory layout every time, in every process."""
        dt = np.dtype(self.dtype)
        if self.fill == "random":
            rng = np.random.default_rng(self.seed)
            if dt.kind == "c":
                src = (rng.random(self.shape) + 0.5 + 1j * (rng.random(self.shape) - 0.5)).astype(dt)
            elif dt.kind == "f":
                src = (rng.random(self.shape) + 0.5).astype(dt)
            else:
                src = rng.integers(0, 100, self.shape, dtype=dt)
        elif self.fill == "zeros":
            src = np.zeros(self.shape, dt)
        elif self.fill == "ones":
            src = np.ones(self.shape, dt)
        elif self.fill == "arange":
            src = np.arange(math.prod(self.shape), dtype=dt).reshape(self.shape)
        elif isinstance(self.fill, str):
            src = fill_values(self.fill, self.shape, dt, dict(self.env), self.seed, self.name, self.nonfinite)
        else:
            src = np.full(self.shape, self.fill, dt)
        if self.ordered:
            src = np.sort(np.broadcast_to(src, self.shape), axis=None).reshape(self.shape)
        a = aligned_array(math.prod(self.shape), dt, skew=self.skew, huge=self.huge).reshape(self.shape)
        a[...] = src
        return a

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * np.dtype(self.dtype).itemsize


def fill_values(text: str, shape: tuple, dt: np.dtype, env: dict, seed: int = 0, name: str = "",
                nonfinite: bool = False) -> np.ndarray:
    """An array's contents from a NumPy expression (a spec's ``fill``): over the sizes and scalar arguments in
    ``env``, ``rng`` (seeded with ``seed``, so every process makes the same contents) and ``np``. What it gives must
    broadcast to ``shape`` and be finite (unless the spec allows NaN and infinities: ``nonfinite``) and, for an
    integer array, whole and within the dtype's range: values that would wrap or truncate when stored are an error,
    never stored."""
    where = f"args.{name}.fill" if name else "fill"
    with np.errstate(all="ignore"):  # what a division by zero gives is refused below, with the expression named
        got = np.asarray(numpy_expr(text, {**env, "rng": np.random.default_rng(seed)}, where))
    if got.dtype.kind not in ("biufc" if dt.kind == "c" else "biuf"):
        kind = "numbers" if dt.kind == "c" else "real numbers"
        raise RooflabError(f"{where}: {text!r} gave {got.dtype} values, not {kind}")
    try:
        got = np.broadcast_to(got, shape)
    except ValueError:
        raise RooflabError(f"{where}: {text!r} gave shape {got.shape}, which does not fit the array's "
                           f"{tuple(shape)}") from None
    if got.dtype.kind in "fc" and got.size and not nonfinite and not np.isfinite(got).all():
        raise RooflabError(f"{where}: {text!r} gave values that are not finite (NaN or infinity); say "
                           "nonfinite = true in the array's spec where the kernel is meant to handle them")
    if dt.kind in "iu" and got.size:
        info = np.iinfo(dt)
        lo, hi = got.min(), got.max()
        if lo < info.min or hi > info.max:
            raise RooflabError(f"{where}: {text!r} gave values from {lo} to {hi}, outside {dt.name}'s range "
                               f"({info.min} to {info.max})")
        if got.dtype.kind == "f" and not (got == np.round(got)).all():
            raise RooflabError(f"{where}: {text!r} gave fractions for an integer array ({dt.name})")
    return got.astype(dt)


_SCALARS = {"double": ctypes.c_double, "float": ctypes.c_float, "long": ctypes.c_long, "int": ctypes.c_int,
            "size_t": ctypes.c_size_t, "int64_t": ctypes.c_int64, "int32_t": ctypes.c_int32, "uint": ctypes.c_uint,
            "ulong": ctypes.c_ulong, "int64": ctypes.c_int64, "int32": ctypes.c_int32, "uint64": ctypes.c_uint64,
            "uint32": ctypes.c_uint32, "int16": ctypes.c_int16, "uint16": ctypes.c_uint16, "int8": ctypes.c_int8,
            "uint8": ctypes.c_uint8}


@dataclass(frozen=True)
class CKernel:
    """A C entry ``double symbol(long reps, ...)`` that runs ``reps`` repetitions and returns elapsed seconds.

    ``argtypes`` are the C types of the arguments after ``reps`` (pointers as ``T*``); ``args`` hold scalars or
    :class:`ArraySpec` for arrays allocated in the worker. ``verify`` (picklable) receives the arrays after one
    repetition and returns the max relative error against a reference; above ``tolerance`` the kernel is wrong and
    is not timed.
    """

    name: str
    library: str
    symbol: str
    argtypes: tuple[str, ...] = ()
    args: tuple = ()
    verify: Callable[[list[np.ndarray]], float] | None = None
    tolerance: float = 1e-5
    empty_library: str | None = None  # a library with rl_empty(reps), to measure the timing scaffolding
    params: dict = field(default_factory=dict)


def check_guards(kernel: str, guards: list[tuple[str, np.ndarray, np.ndarray]]) -> None:
    """Raise OutOfBounds when a guard pattern around an array changed."""
    for name, before, after in guards:
        for where, g in (("past the end of", after), ("before the start of", before)):
            changed = int(np.count_nonzero(g != GUARD_BYTE))
            if changed:
                raise OutOfBounds(kernel, name or "an array", where, changed)


def _address(argtype: str, arr: np.ndarray, keep: list[np.ndarray]) -> int:
    """What a pointer argument is passed as: the array's address, or for ``T**`` (row pointers) the address of a
    table holding the address of each of its rows (its first dimension); for ``T***`` a table of its planes, each
    the address of that plane's row addresses in one table below it, and so on. The tables are made here and kept
    in ``keep``."""
    tables = argtype.count("*") - 1
    if tables <= 0:
        return arr.ctypes.data
    if arr.ndim < tables + 1:
        raise RooflabError(f"a {argtype} argument needs an array of {tables + 1} dimensions or more, not {arr.shape}")
    # the deepest table: the address of each row, over the first `tables` dimensions
    count = int(np.prod(arr.shape[:tables]))
    below = (arr.ctypes.data + np.arange(count, dtype=np.uintp) * np.uintp(arr.strides[tables - 1])).astype(np.uintp)
    keep.append(below)
    for level in range(tables - 1, 0, -1):  # each table above: the address of its entries' part of the one below
        count = int(np.prod(arr.shape[:level]))
        step = np.uintp(arr.shape[level] * below.itemsize)
        table = (below.ctypes.data + np.arange(count, dtype=np.uintp) * step).astype(np.uintp)
        keep.append(table)
        below = table
    return below.ctypes.data


def _ctypes_args(argtypes: Sequence[str], args: Sequence, guards: list | None = None,
                 keep: list | None = None) -> tuple[list, list, list[np.ndarray]]:
    """ctypes types and values of a kernel's arguments, and the arrays made for them (guarded, when ``guards`` is
    a list to fill); ``keep`` receives what must live as long as the values are used (tables of row addresses)."""
    if len(argtypes) != len(args):
        raise RooflabError(f"{len(argtypes)} argument types but {len(args)} arguments")
    ct, vals, arrays = [], [], []
    keep = [] if keep is None else keep
    for t, a in zip(argtypes, args):
        t = t.replace(" ", "")
        if t.endswith("*"):
            if isinstance(a, ArraySpec) and guards is not None:
                arr, before, after = a.make_guarded()
                guards.append((a.name, before, after))
            else:
                arr = a.make() if isinstance(a, ArraySpec) else np.ascontiguousarray(a)
            arrays.append(arr)
            ct.append(ctypes.c_void_p)
            vals.append(_address(t, arr, keep))
        else:
            if t not in _SCALARS:
                raise RooflabError(f"unsupported argument type {t!r}")
            ct.append(_SCALARS[t])
            vals.append(a)
    return ct, vals, arrays


class _FpEnv:
    """The C floating-point environment (rounding, flush-to-zero, traps) as an opaque ``fenv_t``, through libm."""

    _libm = None

    @classmethod
    def libm(cls):
        if cls._libm is None:
            try:
                cls._libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
            except OSError:
                cls._libm = False
        return cls._libm

    @classmethod
    def get(cls):
        m = cls.libm()
        if not m:
            return None
        buf = ctypes.create_string_buffer(128)  # larger than any libc's fenv_t
        return buf if m.fegetenv(buf) == 0 else None

    @classmethod
    def set(cls, env) -> None:
        if env is not None:
            cls.libm().fesetenv(env)


_LOAD_ENV: dict[str, tuple] = {}  # library path -> the FP environment (and control state) it left at its first load


def _check_mappable(k: CKernel) -> None:
    """Refuse, before allocating anything, arrays this process cannot map under its RLIMIT_AS (``ulimit -v``): the
    bytes needed (each array is made once and copied into its guarded buffer) against the bytes left."""
    left = address_space_left()
    if left is None:
        return
    need = _array_bytes(k)
    if need > left:
        raise RooflabError(f"kernel {k.name!r}: its arrays need {need / 2**30:.2f} GiB, more than the "
                           f"{left / 2**30:.2f} GiB this process may still map under its limit (RLIMIT_AS, "
                           "`ulimit -v`): give smaller sizes or raise the limit")


def _array_bytes(k: CKernel) -> int:
    arrays = [a for a in k.args if isinstance(a, ArraySpec)]
    return sum(a.nbytes + 2 * GUARD for a in arrays) + max((a.nbytes for a in arrays), default=0)


_UNDEFINED = re.compile(r"undefined symbol: (\S+)")


def load_library(path: str, kernel: str) -> ctypes.CDLL:
    """A kernel's built library, loaded; one that cannot be (a function it calls that nothing linked defines) is a
    clear error naming what is missing."""
    try:
        return ctypes.CDLL(path)
    except OSError as exc:
        missing = _UNDEFINED.search(str(exc))
        if missing:
            raise RooflabError(tr("{kernel}: its library calls {symbol}, which nothing it was linked with defines: "
                                   "add the library that has it to the spec's flags (e.g. \"-lNAME\")",
                                   kernel=kernel, symbol=missing.group(1))) from None
        raise RooflabError(tr("{kernel}: its library cannot be loaded: {error}", kernel=kernel,
                               error=str(exc))) from None


def _bind(k: CKernel, arrays: list[np.ndarray] | None = None, guards: list | None = None):
    """The timed function of a kernel over fresh arrays (guarded, when ``guards`` is a list to fill), or over
    ``arrays`` (same order and kinds) when given.

    Loading a library can change the FP environment of the whole process: gcc links ``crtfastmath.o`` into a
    ``-ffast-math`` library, whose constructor sets flush-to-zero. The environment a library left is kept as that
    kernel's own, the process's is put back at once, and each call runs under its kernel's own environment: when an
    experiment times a ``-ffast-math`` build against the original in one process, the original does not run with
    flush-to-zero, and the variant runs as it would in a program of its own."""
    clean, clean_ctl = _FpEnv.get(), fp_control()
    lib = load_library(k.library, k.name)
    if k.library not in _LOAD_ENV:  # a library's constructors run at its first load only: what they left is kept
        _LOAD_ENV[k.library] = (_FpEnv.get(), fp_control())
    own, own_ctl = _LOAD_ENV[k.library]
    _FpEnv.set(clean)
    if own_ctl != clean_ctl:
        report_fp_at_load(clean_ctl, own_ctl)
    try:
        fn = getattr(lib, k.symbol)
    except AttributeError:
        raise RooflabError(f"symbol {k.symbol!r} not found in {k.library}") from None
    tables: list[np.ndarray] = []
    if arrays is None:
        _check_mappable(k)
        try:
            ct, vals, arrays = _ctypes_args(k.argtypes, k.args, guards, tables)
        except MemoryError:
            left = address_space_left()
            raise RooflabError(f"kernel {k.name!r}: its arrays ({_array_bytes(k) / 2**30:.2f} GiB) could not be "
                               "allocated: the process ran out of memory" +
                               (f" under its address-space limit ({left / 2**30:.2f} GiB left; RLIMIT_AS, "
                                "`ulimit -v`)" if left is not None else "") + "; give smaller sizes") from None
    else:
        ct, vals, _ = _ctypes_args(tuple(t.rstrip("* ") + "*" if "*" in t else t for t in k.argtypes),
                                   tuple(a if not isinstance(a, ArraySpec) else np.empty(0) for a in k.args))
        it = iter(arrays)
        vals = [_address(t.replace(" ", ""), next(it), tables) if isinstance(a, ArraySpec) else v
                for t, a, v in zip(k.argtypes, k.args, vals)]
    fn.restype = ctypes.c_double
    fn.argtypes = [ctypes.c_long, *ct]

    def timed(r: int) -> float:
        _FpEnv.set(own)
        before = fp_control()
        try:
            t = fn(r, *vals)
        finally:
            after = fp_control()
            _FpEnv.set(clean)
            if after != before:  # what the call changed is put back before anything else runs; and said
                report_fp_change(before, after)
        if t < 0:
            raise RooflabError(f"kernel {k.name!r} reported an error code ({t:g})")
        return t

    timed.row_tables = tables  # the row addresses T** arguments point to: alive as long as the function is
    return timed, arrays


def _prepare(k: CKernel):
    """Load, allocate and check a kernel once; returns (timed function, rel. error, the arrays it uses, which the
    caller keeps alive while timing, and their guards, the checked call's seconds). A kernel that writes outside an
    array is reported as such, checked or not."""
    guards: list = []
    timed, arrays = _bind(k, guards=guards)
    rel_error = None
    first_s = timed(1)
    check_guards(k.name, guards)
    if k.verify is not None:
        # the reference on one BLAS thread: a threaded BLAS keeps its threads spinning for a while after a call,
        # on the CPUs the kernel is about to be timed on

        with threadpool_limits(limits=1, user_api="blas"):
            rel_error = float(k.verify(arrays))
        if not math.isfinite(rel_error) or rel_error > k.tolerance:
            raise WrongResult(k.name, rel_error, k.tolerance)
    return timed, rel_error, (arrays, guards), first_s


# a checked call this long (and this many sample targets) makes one repetition a sample: calibrating would spend three
# more calls to find it (a 0.4 s call: 1.2 s an alternative, each experiment of a slow kernel). The checked call ran
# on data just written, cold in the caches, which costs a call milliseconds at most
LONG_CALL_S = 0.1
LONG_CALL_TARGETS = 5


def _reps(timed: Callable[[int], float], first_s: float, config: HarnessConfig) -> int:
    """Repetitions per sample of a kernel whose checked call took ``first_s``: one for a long call, else calibrated."""
    if first_s >= max(LONG_CALL_S, LONG_CALL_TARGETS * config.min_sample_s):
        return 1
    return calibrate(timed, config.min_sample_s, max_reps=config.max_reps)


def _empty_overhead(k: CKernel) -> tuple[float, float]:
    """(per call, per repetition) cost of the generated timing loop itself, from its empty twin: the least of a few
    calls without repetitions, and the growth over many. The least, so that the cost subtracted is one every
    sample surely paid."""
    if not k.empty_library:
        return 0.0, 0.0
    empty = ctypes.CDLL(k.empty_library).rl_empty
    empty.restype, empty.argtypes = ctypes.c_double, [ctypes.c_long]
    per_call = min(empty(0) for _ in range(5))
    many = 1 << 16
    per_rep = max(0.0, min(empty(many) for _ in range(5)) - per_call) / many
    return float(per_call), float(per_rep)


def run_c_kernel(k: CKernel, config: HarnessConfig, reps: int | None = None) -> dict:
    """Runs in the worker: allocate, check once, calibrate, sample; returns the timing and the error."""
    timed, rel_error, (_arrays, guards), first_s = _prepare(k)
    if reps is None:
        reps = _reps(timed, first_s, config)
    per_call, per_rep = _empty_overhead(k)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    t = run_samples(timed, config, overhead_per_call=per_call, overhead_per_rep=per_rep, reps=reps, name=k.name)
    # the CPUs the kernel kept busy: the worker's CPU time (all its threads) over the wall time of the samples
    busy = (time.process_time() - cpu0) / max(time.perf_counter() - wall0, 1e-9)
    check_guards(k.name, guards)  # once more: a write outside may depend on the repetition
    out = {"timing": t.to_dict(), "rel_error": rel_error, "cpus_busy": busy}
    sub = subnormals(k, _arrays)
    if sub:
        out["subnormals"] = sub
    return out


SCAN_CHUNK = 1 << 20  # elements per slice when arrays are scanned after timing


def subnormals(k: CKernel, arrays: list[np.ndarray]) -> dict | None:
    """The share of subnormal values (non-zero, smaller than the type's smallest normal number) in each
    floating-point array the kernel worked on, after its calls; None when there are none. Arithmetic on such values
    takes a slow path on many cores, which flush-to-zero avoids."""
    specs = [a for a in k.args if isinstance(a, ArraySpec)]
    shares, total, count = {}, 0, 0
    for spec, a in zip(specs, arrays):
        if a.dtype.kind != "f" or a.size == 0:
            continue
        tiny = np.finfo(a.dtype).tiny
        flat = a.reshape(-1)
        n = 0
        for lo in range(0, flat.size, SCAN_CHUNK):  # in slices: no temporary the size of a large array
            part = flat[lo:lo + SCAN_CHUNK]
            n += int(np.count_nonzero((np.abs(part) < tiny) & (part != 0)))
        total, count = total + n, count + a.size
        if n:
            shares[spec.name or f"array {len(shares) + 1}"] = n / a.size
    return {"share": total / count, "arrays": shares} if total else None


def outputs_differ(a: list[np.ndarray], b: list[np.ndarray]) -> float:
    """The largest relative difference between two kernels' arrays after the same call on the same inputs: per
    array, the largest absolute difference over the largest magnitude of the first (NaN in the same places agrees;
    anywhere else, or a shape that differs, is infinitely different)."""
    worst = 0.0
    for x, y in zip(a, b):
        if x.shape != y.shape:
            return math.inf
        if x.dtype.kind not in "fc":
            if not np.array_equal(x, y):
                worst = max(worst, float(np.max(np.abs(x.astype(np.float64) - y.astype(np.float64)))) /
                            max(1.0, float(np.max(np.abs(x.astype(np.float64))))))
            continue
        nx, ny = np.isnan(x), np.isnan(y)
        if not np.array_equal(nx, ny):
            return math.inf
        xs, ys = x[~nx], y[~ny]
        if xs.size == 0:
            continue
        fin = np.isfinite(xs) & np.isfinite(ys)
        if not np.array_equal(xs[~fin], ys[~fin]):
            return math.inf  # an infinity in one only, or of the other sign
        if fin.any():
            scale = float(np.max(np.abs(xs[fin])))
            diff = float(np.max(np.abs(xs[fin].astype(np.float64) - ys[fin].astype(np.float64))))
            worst = max(worst, diff / scale if scale > 0 else diff)
    return worst


def compare_c_kernels(a: CKernel, b: CKernel, config: HarnessConfig, rounds: int,
                      same_output: float | None = None) -> dict:
    """Runs in the worker: check both, then time them in interleaved rounds (A B, B A, ...). With ``same_output`` (a
    tolerance), B is a rewrite of A that must leave the same arrays after the same call on the same inputs (a loop
    nest reordered): one that does not is wrong, whatever its own check says."""
    ta, ea, (shared, guards_a), first_a = _prepare(a)
    tb, eb, (own_b, guards_b), first_b = _prepare(b)
    if same_output is not None:
        diff = outputs_differ(shared, own_b)
        if not diff <= same_output:
            raise WrongResult(b.name, diff, same_output)
        eb = diff if eb is None else max(eb, diff)
    if [x for x in a.args if isinstance(x, ArraySpec)] == [x for x in b.args if isinstance(x, ArraySpec)]:
        # the same inputs: time B on A's very arrays, so that neither gets the better memory placement
        tb, _ = _bind(b, shared)
        guards_b = guards_a
    res = run_interleaved({"A": ta, "B": tb}, config, rounds=rounds,
                          reps={"A": _reps(ta, first_a, config), "B": _reps(tb, first_b, config)})
    check_guards(a.name, guards_a)
    check_guards(b.name, guards_b)
    return {"A": res["A"].to_dict(), "B": res["B"].to_dict(), "rel_error": [ea, eb]}


def compare_with_blas(a: CKernel, n: int, dtype: str, threads: int, config: HarnessConfig, rounds: int) -> dict:
    """Runs in the worker: check the kernel, then time it in interleaved rounds against this machine's BLAS GEMM on
    n x n matrices of ``dtype`` on ``threads`` BLAS threads (itself checked on its first rows)."""
    ta, ea, (_arrays, guards), first_a = _prepare(a)
    with threadpool_limits(limits=threads, user_api="blas"):
        call, _, eb = checked_blas_gemm(n, dtype)
        gemm = python_timed(call)
        res = run_interleaved({"A": ta, "B": gemm}, config, rounds=rounds, overheads={"B": python_overhead()},
                              reps={"A": _reps(ta, first_a, config),
                                    "B": calibrate(gemm, config.min_sample_s, max_reps=config.max_reps)})
    check_guards(a.name, guards)
    return {"A": res["A"].to_dict(), "B": res["B"].to_dict(), "rel_error": [ea, eb]}


def interleave_c_kernels(kernels: dict[str, CKernel], config: HarnessConfig, rounds: int) -> dict:
    """Runs in the worker: check each kernel, then time them all in interleaved rounds (each round one sample of
    every kernel, the order turning), so that ratios between any two are paired. Kernels whose arrays are declared
    alike run on the first one's very arrays, so that none gets the better memory placement. The caller has
    checked each one in a worker of its own already: one that crashes is left out before it gets here."""
    prepared, first = {}, None
    for label, k in kernels.items():
        timed, rel_error, (arrays, guards), _first = _prepare(k)
        specs = [x for x in k.args if isinstance(x, ArraySpec)]
        if first is None:
            first = (specs, arrays, guards)
        elif specs == first[0]:
            timed, _ = _bind(k, first[1])
            guards = first[2]
        prepared[label] = (timed, rel_error, arrays, guards)
    res = run_interleaved({label: p[0] for label, p in prepared.items()}, config, rounds=rounds)
    for label, p in prepared.items():
        check_guards(label, p[3])
    return {label: {"timing": res[label].to_dict(), "rel_error": prepared[label][1]} for label in prepared}

"""Kernel tasks that run inside the worker process: allocate the data there, check the result, then time.

Tasks are plain picklable data. :func:`run_c_kernel` executes in the child; the parent only sees a result or a
:class:`~rooflab.errors.KernelFailed` / :class:`~rooflab.errors.WrongResult`.
"""

from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from ..errors import RooflabError, WrongResult
from .harness import HarnessConfig, calibrate, run_samples


@dataclass(frozen=True)
class ArraySpec:
    shape: tuple[int, ...]
    dtype: str = "float64"
    fill: str | float = "random"  # "random" (uniform in [0.5, 1.5)), "zeros", "ones", "arange", or a constant
    seed: int = 0

    def make(self) -> np.ndarray:
        dt = np.dtype(self.dtype)
        if self.fill == "random":
            rng = np.random.default_rng(self.seed)
            a = (rng.random(self.shape) + 0.5).astype(dt) if dt.kind == "f" else rng.integers(0, 100, self.shape,
                                                                                            dtype=dt)
        elif self.fill == "zeros":
            a = np.zeros(self.shape, dt)
        elif self.fill == "ones":
            a = np.ones(self.shape, dt)
        elif self.fill == "arange":
            a = np.arange(math.prod(self.shape), dtype=dt).reshape(self.shape)
        else:
            a = np.full(self.shape, self.fill, dt)
        return np.ascontiguousarray(a)

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * np.dtype(self.dtype).itemsize


_SCALARS = {"double": ctypes.c_double, "float": ctypes.c_float, "long": ctypes.c_long, "int": ctypes.c_int,
            "size_t": ctypes.c_size_t, "int64_t": ctypes.c_int64, "int32_t": ctypes.c_int32}


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


def _ctypes_args(argtypes: Sequence[str], args: Sequence) -> tuple[list, list, list[np.ndarray]]:
    if len(argtypes) != len(args):
        raise RooflabError(f"{len(argtypes)} argument types but {len(args)} arguments")
    ct, vals, arrays = [], [], []
    for t, a in zip(argtypes, args):
        t = t.replace(" ", "")
        if t.endswith("*"):
            arr = a.make() if isinstance(a, ArraySpec) else np.ascontiguousarray(a)
            arrays.append(arr)
            ct.append(ctypes.c_void_p)
            vals.append(arr.ctypes.data)
        else:
            if t not in _SCALARS:
                raise RooflabError(f"unsupported argument type {t!r}")
            ct.append(_SCALARS[t])
            vals.append(a)
    return ct, vals, arrays


def run_c_kernel(k: CKernel, config: HarnessConfig, reps: int | None = None) -> dict:
    """Runs in the worker: allocate, check once, calibrate, sample; returns the timing and the error."""
    lib = ctypes.CDLL(k.library)
    try:
        fn = getattr(lib, k.symbol)
    except AttributeError:
        raise RooflabError(f"symbol {k.symbol!r} not found in {k.library}") from None
    ct, vals, arrays = _ctypes_args(k.argtypes, k.args)
    fn.restype = ctypes.c_double
    fn.argtypes = [ctypes.c_long, *ct]

    def timed(r: int) -> float:
        t = fn(r, *vals)
        if t < 0:
            raise RooflabError(f"kernel {k.name!r} reported an error code ({t:g})")
        return t

    rel_error = None
    if k.verify is not None:
        timed(1)
        rel_error = float(k.verify(arrays))
        if not math.isfinite(rel_error) or rel_error > k.tolerance:
            raise WrongResult(k.name, rel_error, k.tolerance)
    if reps is None:
        reps = calibrate(timed, config.min_sample_s, max_reps=config.max_reps)
    overhead = 0.0
    if k.empty_library:
        empty = getattr(ctypes.CDLL(k.empty_library), "rl_empty")
        empty.restype, empty.argtypes = ctypes.c_double, [ctypes.c_long]
        overhead = float(np.median([empty(reps) for _ in range(5)])) / reps
    t = run_samples(timed, config, overhead_per_rep=overhead, reps=reps)
    return {"timing": t.to_dict(), "rel_error": rel_error}


"""ctypes access to built libraries: timed entry points and NumPy pointers."""

from __future__ import annotations

import ctypes
import functools
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ..errors import RooflabError

c_float_p = ctypes.POINTER(ctypes.c_float)
c_double_p = ctypes.POINTER(ctypes.c_double)

CTYPES = {
    "double": ctypes.c_double, "float": ctypes.c_float, "long": ctypes.c_long, "int": ctypes.c_int,
    "size_t": ctypes.c_size_t, "int64_t": ctypes.c_int64, "int32_t": ctypes.c_int32,
    "double*": ctypes.c_void_p, "float*": ctypes.c_void_p, "void*": ctypes.c_void_p,
    "int*": ctypes.c_void_p, "long*": ctypes.c_void_p,
}


@functools.lru_cache(maxsize=128)
def load(path: str | Path) -> ctypes.CDLL:
    return ctypes.CDLL(str(path))


def function(path: str | Path, symbol: str, restype, argtypes: Sequence) -> Callable:
    lib = load(str(path))
    try:
        fn = getattr(lib, symbol)
    except AttributeError:
        raise RooflabError(f"symbol {symbol!r} not found in {path}") from None
    fn.restype = restype
    fn.argtypes = list(argtypes)
    return fn


def ptr(a: np.ndarray) -> int:
    """Address of a C-contiguous array's data (kept alive by the caller)."""
    if not a.flags["C_CONTIGUOUS"]:
        raise ValueError("array must be C-contiguous")
    return a.ctypes.data


def timed(path: str | Path, symbol: str, argtypes: Sequence = (), args: Sequence = ()) -> Callable[[int], float]:
    """A timed function ``f(reps) -> seconds`` for a C entry ``double symbol(long reps, ...)`` that times itself.

    A negative return value is the kernel's way of saying it cannot run here (e.g. no chain for this ISA).
    """
    fn = function(path, symbol, ctypes.c_double, [ctypes.c_long, *argtypes])

    def run(reps: int) -> float:
        t = fn(reps, *args)
        if t < 0:
            raise RooflabError(f"{symbol} reported an error ({t:g})")
        return t

    return run

"""ctypes access to built libraries: functions and timed entry points."""

from __future__ import annotations

import ctypes
import functools
from pathlib import Path
from typing import Callable, Sequence

from rooflab.errors import RooflabError


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

"""Number formatting for reports (pure)."""

from __future__ import annotations

import math

_PREFIX = [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")]


def _digits(v: float, digits: int = 3) -> str:
    """``v`` to ``digits`` significant digits, never in exponent form: 999.7 is '1000', not '1e+03' (a size just
    under the next unit, a rate just under the next prefix)."""
    s = f"{v:.{digits}g}"
    return f"{v:.0f}" if "e" in s and abs(v) >= 1 else s


def si(x: float | None, unit: str = "", digits: int = 3) -> str:
    """1.23e11 -> '123 G' + unit (decimal prefixes, as FLOP/s and GB/s are quoted)."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "—"
    ax = abs(x)
    for f, p in _PREFIX:
        if ax >= f:
            return f"{_digits(x / f, digits)} {p}{unit}"
    return f"{_digits(x, digits)} {unit}".rstrip()


def binary_bytes(n: float | None) -> str:
    """Sizes in binary units: 32768 -> '32 KiB'."""
    if n is None:
        return "—"
    for f, p in ((1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if n >= f:
            v = n / f
            return f"{v:.0f} {p}" if v == int(v) else f"{_digits(v)} {p}"
    return f"{n:.0f} B"


def seconds(t: float | None) -> str:
    if t is None or not math.isfinite(t):
        return "—"
    if t >= 1:
        return f"{_digits(t)} s"
    if t >= 1e-3:
        return f"{_digits(t * 1e3)} ms"
    if t >= 1e-6:
        return f"{_digits(t * 1e6)} µs"
    return f"{_digits(t * 1e9)} ns"


def pct(x: float | None, digits: int = 0) -> str:
    return "—" if x is None or not math.isfinite(x) else f"{x * 100:.{digits}f}%"



def drawable(x) -> bool:
    """Whether a value can be placed on a log-log plot: a finite number above zero (a stored run may hold an
    infinite intensity, a zero or a negative count; those are left out of a plot, never drawn or crashed on)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0

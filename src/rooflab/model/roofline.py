"""The roofline model (pure): attainable performance, ridge point, bound classification, work counts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence


def attainable(intensity: float, peak_flops: float, bandwidth: float) -> float:
    """min(peak, intensity x bandwidth): the roof over a kernel of this arithmetic intensity (FLOP/byte)."""
    if intensity < 0 or peak_flops <= 0 or bandwidth <= 0:
        raise ValueError("intensity must be >= 0 and the roofs positive")
    return min(peak_flops, intensity * bandwidth)


def ridge(peak_flops: float, bandwidth: float) -> float:
    """The intensity where the memory roof meets the compute roof."""
    return peak_flops / bandwidth


def bound(intensity: float, peak_flops: float, bandwidth: float) -> str:
    return "memory" if intensity < ridge(peak_flops, bandwidth) else "compute"


@dataclass(frozen=True)
class Roof:
    name: str
    kind: str  # "compute" (FLOP/s) or "memory" (bytes/s)
    value: float


def attainable_multi(intensity: float, roofs: Sequence[Roof]) -> tuple[float, str]:
    """The lowest roof over a kernel among several ceilings, and which one it is."""
    best = None
    for r in roofs:
        v = r.value if r.kind == "compute" else intensity * r.value
        if best is None or v < best[0]:
            best = (v, r.name)
    if best is None:
        raise ValueError("no roofs")
    return best


def matmul_counts(b: int, d: int, f: int, elem_bytes: int = 4) -> tuple[float, float]:
    """FLOP and minimal bytes of X[b,d] @ W[d,f] -> Y[b,f]: 2bdf FLOP; each matrix read or written once."""
    flops = 2.0 * b * d * f
    nbytes = float(elem_bytes) * (b * d + d * f + b * f)
    return flops, nbytes

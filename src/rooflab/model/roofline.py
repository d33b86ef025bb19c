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


# ------------------------------------------------------------------------------------ roofs of a measure run
# A ceiling is a roof only with status "ok": never when it failed, was refused by its loop audit, is impossible (above
# a physical bound) or was disturbed (measured while the CPUs were not all ours).

STREAM_KINDS = ("read", "copy", "triad")
NT_KINDS = ("read_nt", "copy_nt", "triad_nt")
BANDWIDTH_KINDS = STREAM_KINDS + NT_KINDS
LEVELS = ("L1", "L2", "L3", "DRAM")
NOT_A_ROOF = ("failed", "refused", "impossible", "disturbed", "wrong", "unsupported")


def best_compute(ceilings: list[dict], precision: str, klass: str, threads: int) -> dict | None:
    c = [x for x in ceilings if x["precision"] == precision and x["klass"] == klass and x["threads"] == threads
         and x.get("status") == "ok" and x.get("flops_per_s")]
    return max(c, key=lambda x: x["flops_per_s"]) if c else None


def best_bandwidth(ceilings: list[dict], level: str, threads: int, kernels=BANDWIDTH_KINDS) -> dict | None:
    c = [x for x in ceilings if x["level"] == level and x["threads"] == threads and x["kernel"] in kernels
         and x.get("status") == "ok" and x.get("bytes_per_s")]
    return max(c, key=lambda x: x["bytes_per_s"]) if c else None


def measure_roofs(doc: dict) -> dict:
    """The ceilings drawn on the roofline: every memory level and compute class at all threads. The DRAM roof is
    the best the machine attains (streaming stores where they exist), with the regular-store figure beside it."""
    tall = doc["threads_all"]
    comp, mem = [], []
    cc = doc["ceilings"]["compute"]
    for prec in ("fp32", "fp64"):
        for klass in ("simd_fma", "simd", "scalar", "blas_gemm"):
            c = best_compute(cc, prec, klass, tall)
            if c and (prec == "fp32" or klass in ("simd_fma", "blas_gemm")):
                comp.append({"name": f"{c['name']} x{tall}", "value": c["flops_per_s"], "precision": prec,
                             "klass": klass})
    for level in LEVELS:
        b = best_bandwidth(doc["ceilings"]["bandwidth"], level, tall)
        if b:
            roof = {"name": f"{level} ({b['kernel']}) x{tall}", "value": b["bytes_per_s"], "level": level,
                    "kernel": b["kernel"]}
            if level == "DRAM":
                reg = best_bandwidth(doc["ceilings"]["bandwidth"], level, tall, STREAM_KINDS)
                if reg:
                    roof.update(regular_value=reg["bytes_per_s"], regular_kernel=reg["kernel"])
            mem.append(roof)
    return {"compute": comp, "memory": mem}


def trust(doc: dict) -> dict:
    """Which ceilings of a measure run are not roofs, by status; ``reference`` says whether the run can be the
    machine's reference roofline (none of its ceilings was disturbed)."""
    out: dict = {"disturbed": [], "impossible": [], "refused": [], "failed": []}
    for c in doc["ceilings"]["compute"]:
        if c.get("status") in out:
            out[c["status"]].append(f"{c['name']} x{c['threads']}")
    for c in doc["ceilings"]["bandwidth"]:
        if c.get("status") in out:
            out[c["status"]].append(f"{c['level']} {c['kernel']} x{c['threads']}")
    out["reference"] = not out["disturbed"]
    return out

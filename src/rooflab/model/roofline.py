"""The roofline model (pure): attainable performance, ridge point, bound classification, work counts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from rooflab.documents.measure import ceilings
from rooflab.i18n import msg
from rooflab.model.caches import LEVELS, level_for


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


def matmul_counts(b: int, d: int, f: int, elem_bytes: int = 4, out_bytes: int | None = None) -> tuple[float, float]:
    """FLOP and minimal bytes of X[b,d] @ W[d,f] -> Y[b,f]: 2bdf FLOP; each matrix read or written once (the
    output in ``out_bytes`` per element when it differs: bf16 inputs, fp32 output)."""
    flops = 2.0 * b * d * f
    nbytes = float(elem_bytes) * (b * d + d * f) + float(elem_bytes if out_bytes is None else out_bytes) * b * f
    return flops, nbytes


# ------------------------------------------------------------------------------------ roofs of a measure run
# A ceiling is a roof only with status "ok": never when it failed, was refused by its loop audit, is impossible (above
# a physical bound) or was disturbed (measured while the CPUs were not all ours).

STREAM_KINDS = ("read", "copy", "triad")
NT_KINDS = ("read_nt", "copy_nt", "triad_nt")
BANDWIDTH_KINDS = STREAM_KINDS + NT_KINDS
ABOVE_ROOF = 1.02  # a rate this far over its roof is above it (the roofs' own noise is within)
# A working set up to this many times a cache's capacity still has part of it served from that cache (adaptive
# and victim caches keep part of a set larger than themselves; L2s add their capacity to a victim L3): the next
# level's roof does not bound it. measure takes the DRAM roof at 4x the last level or more, beyond this zone.
PARTLY_FACTOR = 4.0
NOT_A_ROOF = ("failed", "refused", "impossible", "disturbed", "wrong", "unsupported")


def best(ceilings: list[dict], key: str, kernels=None, **match) -> dict | None:
    """The ceiling with the highest ``key`` among those that are roofs (status ok, a value) and match every field
    given (``kernels``: one of these kernels) — of a CPU or a GPU run alike."""
    c = [x for x in ceilings if x.get("status") == "ok" and x.get(key) and all(x.get(k) == v for k, v in match.items())
         and (kernels is None or x.get("kernel") in kernels)]
    return max(c, key=lambda x: x[key]) if c else None


def best_compute(ceilings: list[dict], precision: str, klass: str, threads: int) -> dict | None:
    return best(ceilings, "flops_per_s", precision=precision, klass=klass, threads=threads)


def best_bandwidth(ceilings: list[dict], level: str, threads: int, kernels=BANDWIDTH_KINDS) -> dict | None:
    return best(ceilings, "bytes_per_s", kernels, level=level, threads=threads)


def memory_roofs(bandwidth: list[dict], levels, threads: int | None = None, suffix: str = "") -> list[dict]:
    """One memory roof per level: its best ceiling (at ``threads``, when given)."""
    out = []
    match = {} if threads is None else {"threads": threads}
    for level in levels:
        b = best(bandwidth, "bytes_per_s", None if threads is None else BANDWIDTH_KINDS, level=level, **match)
        if b:
            out.append({"name": f"{level} ({b['kernel']}){suffix}", "value": b["bytes_per_s"], "level": level,
                        "kernel": b["kernel"]})
    return out


def sweep_point(b: int, flops: float, nbytes: float, time_s: float, time_ci95, peak: dict, memory: dict,
                limit: float = ABOVE_ROOF) -> dict:
    """One point of the batch sweep X[B,D]·W[D,F] placed against its roofline prediction (the compute roof
    ``peak`` and the memory roof ``memory``): rate, interval, prediction, the share of it reached, the bound, and
    whether it lies above the roof (which no kernel can)."""
    rate = flops / time_s
    inten = flops / nbytes
    pred = attainable(inten, peak["flops_per_s"], memory["bytes_per_s"])
    return {"B": b, "intensity": inten, "flops": flops, "bytes": nbytes, "time_s": time_s,
            "time_ci95": list(time_ci95), "flops_per_s": rate, "ci95": [flops / time_ci95[1], flops / time_ci95[0]],
            "predicted_flops_per_s": pred, "of_predicted": rate / pred, "of_peak": rate / peak["flops_per_s"],
            "bytes_per_s": nbytes / time_s, "above_roof": rate > limit * pred,
            "bound": bound(inten, peak["flops_per_s"], memory["bytes_per_s"])}


def measure_roofs(doc: dict) -> dict:
    """The ceilings drawn on the roofline: every memory level and compute class at all threads. The DRAM roof is
    the best the machine attains (streaming stores where they exist), with the regular-store figure beside it.

    When the all-thread ceilings hold no compute or no memory roof (other processes kept a CPU busy, so each of
    them was disturbed) but the one-thread ceilings hold both, the one-thread roofline is drawn instead: what could
    be measured honestly. ``threads`` says which, and ``instead_of`` the thread count that could not be drawn."""
    threads_all = doc["threads_all"]
    roofs = roofs_of(doc, threads_all)
    if threads_all > 1 and not (roofs["compute"] and roofs["memory"]):
        one = roofs_of(doc, 1)
        if one["compute"] and one["memory"]:
            return {**one, "instead_of": threads_all}
    return roofs


def roofs_of(doc: dict, threads: int) -> dict:
    """The roofs of a measure run at one thread count (see measure_roofs)."""
    comp, mem = [], []
    cc = ceilings(doc, "compute")
    for prec in ("fp32", "fp64"):
        for klass in ("simd_fma", "simd", "scalar", "blas_gemm"):
            c = best_compute(cc, prec, klass, threads)
            if c and (prec == "fp32" or klass in ("simd_fma", "blas_gemm")):
                comp.append({"name": f"{c['name']} x{threads}", "value": c["flops_per_s"], "precision": prec,
                             "klass": klass})
    for roof in memory_roofs(ceilings(doc, "bandwidth"), LEVELS, threads, f" x{threads}"):
        if roof["level"] == "DRAM":
            reg = best_bandwidth(ceilings(doc, "bandwidth"), "DRAM", threads, STREAM_KINDS)
            if reg:
                roof.update(regular_value=reg["bytes_per_s"], regular_kernel=reg["kernel"])
        mem.append(roof)
    return {"threads": threads, "compute": comp, "memory": mem}


def trust(doc: dict) -> dict:
    """Which ceilings of a measure run are not roofs, by status; ``reference`` says whether the run can be the
    machine's reference roofline (none of its ceilings was disturbed)."""
    out: dict = {"disturbed": [], "impossible": [], "refused": [], "failed": []}
    for c in ceilings(doc, "compute"):
        if c.get("status") in out:
            out[c["status"]].append(f"{c['name']} x{c['threads']}")
    for c in ceilings(doc, "bandwidth"):
        if c.get("status") in out:
            out[c["status"]].append(f"{c['level']} {c['kernel']} x{c['threads']}")
    out["reference"] = not out["disturbed"]
    return out


def place(flops: float, nbytes: float, seconds: float, working_set: float, roofs: dict,
          capacities: dict[str, float]) -> dict:
    """A kernel's point: rates, intensity, the roof over it (at the level its working set lives in) and the fraction
    of that roof it reached."""
    fl = flops / seconds
    by = nbytes / seconds
    # no bytes: no intensity (the point has no place on the roofline, rather than an infinite one)
    inten = flops / nbytes if nbytes else None
    out = {"flops_per_s": fl, "bytes_per_s": by, "intensity": inten}
    comp = roofs["compute"][0]["value"] if roofs.get("compute") else None
    mem = {m["level"]: m["value"] for m in roofs.get("memory", [])}
    level = level_for(working_set, capacities)
    roof_level = roof_level_for(level, mem)
    bw = mem.get(roof_level)
    if comp and bw and nbytes and flops:
        roof = attainable(inten, comp, bw)
        out.update(level=level, roof_flops_per_s=roof, of_roof=fl / roof,
                   bound=("memory" if inten * bw < comp else "compute"),
                   bound_by=(msg("{level} bandwidth", level=roof_level) if inten * bw < comp else
                             roofs["compute"][0]["name"]))
    elif bw and nbytes and not flops:
        # it moves data and computes nothing (a copy, a transpose, a packing): judged by its bandwidth alone, with
        # no point on the roofline (an intensity of zero has no place on its log axis)
        out.update(level=level, roof_flops_per_s=0.0, roof_bytes_per_s=bw, of_roof=by / bw, bound="memory",
                   bound_by=msg("{level} bandwidth", level=roof_level))
    if out.get("of_roof") is not None:
        if roof_level != level:
            out["roof_level"] = roof_level
        if out["of_roof"] > ABOVE_ROOF and out["bound"] == "memory" and roof_level == level:
            faster = partly_in(working_set, by, roof_level, mem, capacities)
            if faster:
                out.update(partly_in=faster, partly_capacity=capacities[faster])
    return out


def partly_in(working_set: float, bytes_per_s: float, level: str, memory: dict, capacities: dict) -> str | None:
    """The faster level a kernel above the ``level`` roof is partly served from: the next faster one, when its
    working set is within PARTLY_FACTOR of that level's capacity and its rate is within that level's roof; None
    otherwise (then nothing explains the figure, and it is above its roof)."""
    faster = next_faster(level)
    cap, roof = capacities.get(faster), memory.get(faster)
    if cap and roof and working_set <= PARTLY_FACTOR * cap and bytes_per_s <= ABOVE_ROOF * roof:
        return faster
    return None


def roof_level_for(level: str, memory: dict) -> str | None:
    """The level whose bandwidth roof stands over a working set in ``level``: that level's own, or where it has
    none (its ceiling was disturbed or impossible) the nearest faster level's, which is never lower, so that the
    share of the roof reached is never overstated; None when no level at or above it has a roof."""
    if level in memory:
        return level
    if level not in LEVELS:
        return "DRAM" if "DRAM" in memory else None
    return next((lv for lv in reversed(LEVELS[:LEVELS.index(level)]) if lv in memory), None)


def next_faster(level: str, among=LEVELS) -> str | None:
    """The level just faster than ``level`` among ``among`` (in the order of LEVELS); None at the fastest or for a
    level not among them."""
    if level not in among or among.index(level) == 0:
        return None
    return among[among.index(level) - 1]

"""Count what a kernel does at one size, in a process of its own (a driver program that calls it a few times):
hardware counters with perf where the machine exposes them, simulated caches with cachegrind otherwise. `rooflab
profile` shows these counts; `rooflab explain` reads the memory traffic they imply against the spec's byte model."""

from __future__ import annotations

import tempfile
from pathlib import Path

from rooflab.counters import cachegrind, perf
from rooflab.documents.common import Isa, Uarch, read
from rooflab.i18n import msg
from rooflab.kernels.user import build_driver, write_driver_data
from rooflab.machine.env import perf_probe
from rooflab.userkernel.spec import KernelSpec


def count_kernel(spec: KernelSpec, size: dict, calls: int, machine: dict, *, force_cachegrind: bool = False,
                 hotspots: bool = True, progress=None, last_level: int | None = None,
                 timeout_s: float | None = None) -> dict:
    """``method`` (perf or cachegrind), ``counters`` (per call for cachegrind, for the kernel function only; for the
    whole driver run with perf), what was derived from them, and how the driver was built. ``last_level``: the
    cache level cachegrind simulates as its last level (2: its misses are what L2 fetches from the levels below),
    instead of the machine's last. ``timeout_s``: the most the profiler may run (by default the spec's timeout,
    times 50 under cachegrind)."""
    progress = progress or (lambda message: None)
    caches = machine.get("cache_details") or []
    if last_level is not None:
        caches = [c for c in caches if c["level"] <= last_level]
    line = next((c.get("line", 64) for c in caches if c["level"] == 1), 64)
    probe = perf_probe()
    use_perf = probe["hardware"] and not force_cachegrind
    # valgrind (3.19 and older) cannot execute AVX-512: its driver is built for the same CPU without it
    extra = () if use_perf or "avx512f" not in read(Isa, machine.get("isa")).features else ("-mno-avx512f",)
    progress(f"counting: building a driver for {spec.name}")
    exe = build_driver(spec, size, calls, extra)
    out = {"perf": probe, "driver": exe.to_dict(), "line_bytes": line}
    if extra:
        out["driver_note"] = ("built with -mno-avx512f because valgrind cannot run AVX-512 code: instruction counts "
                              "are those of the AVX2 build; memory traffic is comparable")
    # the profiler may run the kernel far slower than native (cachegrind: 20-100x); the spec's timeout bounds one
    # size's whole measurement, so here it bounds the driver's run, with that slowdown allowed for
    limit = timeout_s or spec.timeout * (1 if use_perf else 50)
    with tempfile.TemporaryDirectory(prefix="rooflab-count-") as d:
        data = write_driver_data(spec, size, Path(d))
        if use_perf:
            progress("counting: perf stat")
            st = perf.perf_stat(exe.path, timeout=limit, args=data)
            c = st["counters"]
            out["method"] = "perf"
            out["counters"] = c
            cyc, ins = c.get("cycles"), c.get("instructions")
            out["derived"] = {
                "ipc": ins / cyc if cyc and ins else None, "issue_width": read(Uarch, machine.get("uarch")).issue_width,
                "cache_miss_rate": (c["cache-misses"] / c["cache-references"]) if c.get("cache-references") and
                c.get("cache-misses") is not None else None,
                "branch_miss_rate": (c["branch-misses"] / c["branches"]) if c.get("branches") and
                c.get("branch-misses") is not None else None,
                "miss_traffic_bytes_per_call": c["cache-misses"] * line / calls if c.get("cache-misses") else None,
            }
            if hotspots:
                progress("counting: perf record")
                spots = perf.perf_hotspots(exe.path, Path(d), timeout=limit, args=data)
                out["hotspots"], out["hot_lines"] = spots["functions"], spots["lines"]
        else:
            out["method"] = "cachegrind"
            out["fallback_reason"] = (msg("asked for cachegrind") if force_cachegrind else
                                      msg("perf hardware counters are not available: {reason}", reason=probe["reason"]))
            progress("counting: cachegrind (simulated caches)")
            cg = cachegrind.run_cachegrind(exe.path, caches, Path(d), timeout=limit, args=data)
            out["cachegrind"] = {"geometry": cg["geometry"], "simulated": cg["simulated"], "command": cg["command"]}
            out["counters"] = cachegrind.cachegrind_summary(cg["functions"], spec.function, calls, line)
    return out

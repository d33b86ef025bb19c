"""Cache arithmetic (pure): the capacity each level offers a number of threads, the level a working set lives in,
and the block size that keeps three square blocks of a GEMM in a cache."""

from __future__ import annotations

import math

LEVELS = ("L1", "L2", "L3", "DRAM")


def cache_capacities(machine: dict, threads: int) -> dict[str, float]:
    """Data capacity of each level seen by `threads` threads placed compactly (private caches add up)."""
    out = {}
    for c in machine.get("cache_details") or []:
        if c["type"] not in ("Data", "Unified"):
            continue
        shared = max(1, c.get("shared_by", 1))
        inst = min(c.get("instances", 1), math.ceil(threads / shared))
        out[f"L{c['level']}"] = float(c["size"] * max(1, inst))
    return out


def level_for(working_set: float, capacities: dict[str, float]) -> str:
    """The memory level a working set lives in: the smallest cache that holds it, else DRAM."""
    for lv in ("L1", "L2", "L3"):
        cap = capacities.get(lv)
        if cap and working_set <= cap:
            return lv
    return "DRAM"


def block_size(cache_bytes: int, elem: int = 4) -> int:
    """Largest multiple of 16 with three BS x BS blocks in the cache (3·BS²·elem <= capacity)."""
    bs = int(math.sqrt(cache_bytes / (3 * elem)))
    return max(16, bs - bs % 16)

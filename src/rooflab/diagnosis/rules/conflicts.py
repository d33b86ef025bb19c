"""Conflict misses: rows a power of two of bytes apart (a leading dimension of 512 or 1024 doubles) map to the
same few cache sets, so a column walk keeps only as many lines as the cache has ways. Tested by the same kernel at a
size one cache line larger in that dimension (per unit of work). Where the walk is strided access that a loop interchange
makes contiguous, that finding goes first: a contiguous walk has no conflicts either, and gains more (a column scale
at n = 1024: padded 0.59 ms, interchanged 0.12 ms; a j-k-i GEMM at n = 512: 122 ms and 20.6 ms)."""

from __future__ import annotations

from rooflab.diagnosis.rules.facts import Facts, finding
from rooflab.i18n import msg

ID = "conflicts"
TEST = "padded"


def WORD():
    return msg("conflict misses (power-of-two rows)")


def find(f: Facts) -> list[dict]:
    rows = f.ctx.get("pow2_rows") or []
    if not rows or not ("stride" in f.causes or (f.excess or 0) >= 1.5 or f.row.get("level") in ("L3", "DRAM")):
        return []
    ev = [msg("array {name}: rows of {bytes} bytes, a power of two: a column walk maps its elements to the same "
              "few cache sets", name=name, bytes=row_bytes) for name, row_bytes in rows[:2]]
    return [finding(
        ID, 1.5, ev,
        msg("with rows a power of two of bytes apart, the lines of a column compete for a few sets of each cache "
            "and evict each other long before the cache is full"),
        msg("pad the leading dimension by a cache line (allocate n + 8 doubles per row), or block the loops so that "
            "a column walk touches fewer rows at a time"), ("padded",), after=("strided",))]

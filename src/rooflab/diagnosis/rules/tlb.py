"""TLB misses from page strides: arrays on 4 KiB pages, a working set spanning more pages than the TLB holds, and
rows a page or more apart, so that a walk down a column or a panel steps to a new page at every access and each
step waits for its address translation. Tested by the same kernel with its arrays on 2 MiB pages."""

from __future__ import annotations

from rooflab.diagnosis.rules.facts import Facts, finding
from rooflab.i18n import msg
from rooflab.units import binary_bytes

ID = "tlb"
TEST = "huge_pages"
PAGE = 4096
ASSUMED_ENTRIES = 1536  # a last-level data TLB of many x86 cores, where the OS does not say
MIN_BELOW = 0.6  # under this share of its roof: time to explain


def WORD():
    return msg("TLB misses (page strides)")


def find(f: Facts) -> list[dict]:
    ctx, row = f.ctx, f.row
    rows = ctx.get("page_rows") or []
    if not ctx.get("small_pages") or not rows or row.get("level") not in ("L3", "DRAM") or \
            (f.of_roof or 0) >= MIN_BELOW:
        return []
    entries = ctx.get("tlb_entries")
    pages = int(row["working_set_bytes"] // PAGE)
    if pages <= (entries or ASSUMED_ENTRIES):
        return []
    ev = [msg("its arrays are on 4 KiB pages ({why}): its working set of {ws} spans {pages} pages", why=ctx["small_pages"],
              ws=binary_bytes(row["working_set_bytes"]), pages=pages),
          (msg("the core's TLB holds {n} translations of 4 KiB pages (the OS says so): {reach}", n=entries,
               reach=binary_bytes(entries * PAGE)) if entries else
           msg("the core's TLB size is not told by the OS; many hold about {n} translations of 4 KiB pages ({reach})",
               n=ASSUMED_ENTRIES, reach=binary_bytes(ASSUMED_ENTRIES * PAGE)))]
    ev += [msg("array {name}: rows of {bytes} bytes, a page or more: a walk down a column or a panel steps to a new "
               "page at every access", name=name, bytes=row_bytes) for name, row_bytes in rows[:2]]
    return [finding(
        ID, 1.5, ev,
        msg("each step to a page whose translation is not in the TLB waits for a walk of the page tables (tens of "
            "cycles) before its data can come"),
        msg("put the arrays on huge pages (allocate them 2 MiB-aligned and madvise(MADV_HUGEPAGE), or use a "
            "huge-page allocator), or reorder or block the loops so that consecutive accesses stay within a page"),
        ("huge_pages",))]

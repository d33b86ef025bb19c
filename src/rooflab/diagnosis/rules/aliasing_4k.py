"""4 KiB aliasing: a load whose address has the same lowest 12 bits as an older store still in flight, to another
array, is held back until the store's whole address is known, as if it depended on it. Arrays that start at the same
offset in their pages (as posix_memalign(4096) and mmap place them, and malloc large arrays within 16 bytes) put a
stencil's loads of one array right behind its stores into the other; other offsets put other loads there. Nothing in
the code alone says which offsets a loop's walk trips on, so the finding stands only where its experiment, the same
build with its arrays placed otherwise, measured a large gain, and its control, the arrays parted by other offsets,
gained too: it is ``tentative`` (tested first, dropped otherwise)."""

from __future__ import annotations

from rooflab.diagnosis.rules.facts import AT_ROOF, Facts, finding
from rooflab.i18n import join, msg
from rooflab.userkernel.spec import STAGGER

ID = "aliasing_4k"
TEST = "placement"
STAGGER_ALT = 576  # the control's offsets (9 lines), beside the staggered placement's: the gain must hold there too


def WORD():
    return msg("4 KiB aliasing")


def find(f: Facts) -> list[dict]:
    arrays = f.ctx.get("array_args") or []
    outs = [name for name, out in arrays if out]
    ins = [name for name, out in arrays if not out]
    # another array's place is what the experiment changes: one array alone keeps its rows' distances
    if len(arrays) < 2 or (f.of_roof or 0) >= AT_ROOF or (f.loop and not f.loop.get("bytes")):
        return []
    staggered = f.ctx.get("placement") == "staggered"
    ev = [msg("its arrays start {bytes} bytes apart in their 4 KiB pages (placement = \"staggered\")", bytes=STAGGER)
          if staggered else
          msg("its arrays all start at the same offset in their 4 KiB pages (placement = \"aligned\", as "
              "posix_memalign(4096) and mmap place them, and malloc large arrays within 16 bytes)"),
          msg("it stores into {outs} while it loads from {ins}", outs=join(outs), ins=join(ins or outs)) if outs else
          msg("its arrays: {names}", names=join([name for name, _ in arrays]))]
    return [finding(
        ID, 1.0, ev,
        msg("a load whose address has the same lowest 12 bits as an older store still in flight, into another array "
            "or row, waits until that store's whole address is known: the loop waits on stores it does not depend "
            "on"),
        msg("start the arrays at other offsets in their pages: allocate each a few cache lines larger and start the "
            "k-th one 1088 k bytes (17 lines) further in, mod 4096, or pad rows whose length is a multiple of 4 KiB")
        if not staggered else
        msg("start the arrays at other offsets in their pages: here, all at the start of a page (as posix_memalign "
            "and mmap place them) ran faster; the offsets that trip this loop follow from its rows' lengths"),
        (TEST, "placement_alt"), tentative=True)]

"""Write-allocate traffic: a kernel streaming from DRAM near the roof of ordinary stores that writes arrays it never
reads, with ordinary stores. A cache reads each line from memory before it writes it, so every byte written crosses
the memory bus twice; a streaming (non-temporal) store writes whole lines without reading them. Far below that roof,
something else holds the kernel back, and streaming stores would not help. The evidence is this machine's own
roofline: its streaming-store bandwidth kernels against the ordinary ones. Tested by rooflab's bandwidth kernel
with streaming stores against the same kernel with ordinary ones over as many bytes, alternated."""

from __future__ import annotations

from rooflab.diagnosis.rules.facts import Facts, finding
from rooflab.i18n import msg
from rooflab.units import si

ID = "write_allocate"
TEST = "streaming_stores"
MIN_GAIN = 1.15  # the streaming-store roof this much above the ordinary one: worth the change
NEAR_ROOF = 0.6  # the roof of ordinary stores is what holds it back only once it runs near that roof


def WORD():
    return msg("write-allocate traffic")


def find(f: Facts) -> list[dict]:
    audit = f.code.get("audit") or {}
    only = (f.code.get("pragmas") or {}).get("write_only") or []
    if f.row.get("level") != "DRAM" or f.row.get("bound") != "memory" or not only or not audit.get("stores") \
            or audit.get("nt_stores"):
        return []
    plain = _dram(f.ctx.get("roofs"))
    nt = _dram(f.ctx.get("roofs_nt"))
    live = f.row.get("reference") or {}
    near = max(f.of_roof or 0.0, f.eff.get("of_roof_hi") or 0.0, (live.get("ci95") or [0, 0])[1])
    if not (plain and nt) or nt[0] < MIN_GAIN * plain[0] or near < NEAR_ROOF:
        return []  # far below the roof of ordinary stores, something else holds it back
    gain = nt[0] / plain[0]
    return [finding(
        # what the saved reads give at most: the traffic falls by the roofs' ratio; the rest of its distance to the
        # roof is other findings' to close
        ID, gain,
        [msg("it writes {arrays} without reading them, with ordinary stores: its working set is in DRAM",
             arrays=", ".join(f"`{a}`" for a in only[:3])),
         msg("on this machine the DRAM roof with streaming stores ({nt}, the {nk} kernel) is {g:.2f}x the roof with "
             "ordinary stores ({plain}, the {pk} kernel)", nt=si(nt[0], "B/s"), nk=nt[1], g=gain,
             plain=si(plain[0], "B/s"), pk=plain[1])],
        msg("each line it writes is first read from memory into the cache (write-allocate), then written back: the "
            "written arrays cross the memory bus twice"),
        msg("write the arrays it only writes with streaming stores (`_mm512_stream_pd` / `_mm256_stream_pd` on "
            "aligned data, or a compiler's nontemporal pragma where it honours one), so that whole lines go to "
            "memory without being read first"), ("streaming_stores",))]


def _dram(roofs: dict | None) -> tuple[float, str] | None:
    m = next((m for m in (roofs or {}).get("memory", []) if m["level"] == "DRAM"), None)
    return (m["value"], m.get("kernel") or "?") if m else None

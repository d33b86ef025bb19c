"""Write-allocate traffic: a kernel streaming from DRAM near the roof of ordinary stores that writes arrays it never
reads, with ordinary stores. A cache reads each line from memory before it writes it, so every byte written crosses
the memory bus twice; a streaming (non-temporal) store writes whole lines without reading them. Far below that roof,
something else holds the kernel back, and streaming stores would not help. The evidence is this machine's own
roofline: its streaming-store bandwidth kernels against the ordinary ones. Tested by rooflab's bandwidth kernel
with streaming stores against the same kernel with ordinary ones over as many bytes, alternated."""

from __future__ import annotations

from rooflab.diagnosis.rules.facts import Facts, finding, ratio_high
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
    only = f.pragmas.write_only
    if f.row.get("level") != "DRAM" or f.row.get("bound") != "memory" or not only or not audit.get("stores") \
            or audit.get("nt_stores"):
        return []
    plain = _dram(f.ctx.get("roofs"))
    nt = _dram(f.ctx.get("roofs_nt"))
    near = max(f.of_roof or 0.0, f.eff.get("of_roof_hi") or 0.0, ratio_high(f.reference))
    if not (plain and nt) or nt[0] < MIN_GAIN * plain[0] or near < NEAR_ROOF:
        return []  # far below the roof of ordinary stores, something else holds it back
    gain = scaled_gain(nt[0] / plain[0], plain[1], f.row, only, f.traffic.get("holding_ratio"))
    if gain < MIN_GAIN:
        return []  # the arrays it only writes are a small part of what it moves
    return [finding(
        # what the saved reads give at most: the roofs' ratio, scaled to the share of its traffic that the arrays it
        # only writes are; the rest of its distance to the roof is other findings' to close
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


# the bytes written over all the bytes moved (write-allocate aside) by the bandwidth kernels of the roofs
REFERENCE_WRITE_SHARE = {"copy": 1 / 2, "scale": 1 / 2, "add": 1 / 3, "triad": 1 / 3}


def scaled_gain(roofs_gain: float, plain_kernel: str, row: dict, written: list[str],
                holding_ratio: float | None) -> float:
    """What streaming stores gain on this kernel: the roofs' ratio was measured on a kernel that writes a given share
    of the bytes it moves (a copy: half); write-allocate adds a read for each byte written, so the gain grows with
    the kernel's own share: the bytes of the arrays it only writes over all it moves. At most the larger of the
    roofs' ratio and 2 (a kernel that only writes: every line read once for nothing)."""
    ref = REFERENCE_WRITE_SHARE.get(plain_kernel.removesuffix("_nt"), 1 / 2)
    sizes = row.get("arrays_bytes") or {}
    w = float(sum(sizes.get(a, 0) for a in written))
    # what it moves: its byte model, or more where the traffic counted out of DRAM was more (as a ratio: it may have
    # been counted at a smaller size); a count under the model (a cache simulation keeping part of the data) is not
    # taken to shrink what the arrays it writes stream
    model = row.get("bytes") or row.get("working_set_bytes") or 0.0
    ratio = holding_ratio or 0.0
    t = model * max(1.0, ratio)
    if not (w and t):
        return roofs_gain  # its arrays' sizes are not known: the roofs' own ratio
    share = min(1.0, w / max(t, w))
    return min(1 + (roofs_gain - 1) * share / ref, max(roofs_gain, 2.0))


def _dram(roofs: dict | None) -> tuple[float, str] | None:
    m = next((m for m in (roofs or {}).get("memory", []) if m["level"] == "DRAM"), None)
    return (m["value"], m.get("kernel") or "?") if m else None

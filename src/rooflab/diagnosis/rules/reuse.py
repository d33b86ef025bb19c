"""Missing reuse (blocking): enough work per byte for the compute roof by the spec's own counts, yet far below the
FLOP rate the machine's BLAS reaches, with each operand fetched again from the level holding it. Tested, for a
matrix product, by the same product blocked in tiles sized for L2."""

from __future__ import annotations

from rooflab.diagnosis.rules.facts import EXCESS, LINE_BYTES, Facts, finding, reference_evidence
from rooflab.documents.common import Roofs, read
from rooflab.i18n import msg

ID = "reuse"
TEST = "blocked"
IN_CORE = 1.3  # measured at most this many times the in-core prediction: the loop runs at its in-core pace
AS_FAST_AS_BLAS = 0.6  # at this share of the BLAS GEMM measured alongside it or more, blocking is not what is missing


def WORD():
    return msg("missing reuse (blocking)")


def tile_sizes(row: dict, elem_bytes: int) -> dict[str, int]:
    """Per cache level, the side b of square tiles whose three operand blocks (b x b elements each) fill about
    half the level, rounded down to a multiple of 8."""
    out = {}
    for level, cap in (row.get("caches") or {}).items():
        b = int((cap / 2 / (3 * elem_bytes)) ** 0.5) // 8 * 8
        if b >= 8:
            out[level] = b
    return out


def applies(f: Facts) -> bool:
    """Bound by compute by its own counts, under AS_FAST_AS_BLAS of the BLAS GEMM measured alongside, with no
    innermost loop walking a column in its source, and either re-fetching its operands by the counted traffic (out
    of the level holding them, or into L1 far beyond what a stride would bring: a last level as large as the whole
    working set delivers each byte about once, while L2 hands the same lines to L1 again and again) or,
    where the traffic could not be counted, a matrix product by its shapes (whose gap to the BLAS is blocking's to
    close)."""
    live = f.reference
    ratio = live.ratio if live is not None and live.kind == "blas_gemm" else None
    if f.row.get("bound") != "compute" or not (ratio is None or ratio < AS_FAST_AS_BLAS):
        return False
    if f.pragmas.column_walks:
        return False  # an innermost loop walking a column comes first (loop order before blocking): strided says so
    if repeated_sweeps(f):
        return False
    if not ((f.excess or 0) >= EXCESS or f.refetched or _uncounted_product(f, ratio) or
            (f.excess is None and register_traffic(f))):
        return False
    return traffic_may_pace(f)


# an outer loop repeating over the same data (time steps) brings its arrays in again at each repetition, each
# needing the last one's results: the traffic beyond the model up to this many passes over them a repetition is the
# sweeps' own (PolyBench's jacobi-2d: 100 steps of two sweeps, 199x its model out of L2; fdtd-2d: 100 steps, 64.5x
# out of L3), which the tiles this finding sizes cannot keep in a cache; tiling in time (time skewing) can
SWEEP_PASSES = 4


def repeated_sweeps(f: Facts) -> bool:
    """Whether the kernel's source repeats over the same data (an outer loop of time steps) and the traffic beyond
    its model is no more than its arrays streamed again at each repetition (or was not counted)."""
    reps = f.ctx.get("repeats")
    return bool(reps and reps >= 2 and (f.excess is None or f.excess <= SWEEP_PASSES * reps))


# the counted traffic, moved at the roof of the slowest level it can come from, takes at least this share of the
# measured time where it can be what paces the loop: under it, something in the core does (an n-body loop whose
# 84 KB of arrays come back from L2 38 times a call would take 0.2% of its time doing so at L2's roof: it divides
# and takes square roots the rest)
PACES = 0.25


def traffic_may_pace(f: Facts) -> bool:
    """Whether the counted traffic can be what paces the loop: its share of the time PACES or more, or unknown."""
    share = traffic_share(f)
    return share is None or share >= PACES


def traffic_share(f: Facts) -> float | None:
    """The share of a call's measured time that the bytes L1 fetched (scaled by the FLOPs from the size counted to
    the size measured) take at the roof of the level holding the working set, or L2's where the data is in L2: at
    most that slow a source, so that a share under PACES rules the traffic out as what paces the loop. None where
    the traffic, the time or the roof is not known."""
    t, row = f.traffic, f.row
    roofs = {m.level: m.value for m in read(Roofs, f.ctx.get("roofs")).memory if m.value}
    level = t.get("holding_level") or row.get("level")
    source = roofs.get("L2" if level in (None, "L1", "L2") else level)
    flops, time_s = t.get("flops"), row.get("time_s")
    if not (flops and row.get("flops") and time_s and source and t.get("l1_bytes")):
        return None
    return t["l1_bytes"] * row["flops"] / flops / source / time_s


# a vectorized hot loop whose own loads and stores move this many bytes per FLOP or more, where the kernel's model
# (its intensity) needs a tenth of that or less (REGISTER_REUSE): each result goes back to memory and returns at
# every step of an outer loop instead of staying in a register (TSVC's s176, a convolution: a[i] += b[...] * c[j]
# over j outside i, 6 bytes a FLOP in its loop, 0.0006 in its model; cachegrind could not finish at its size)
LOOP_BYTES_PER_FLOP = 1.0
REGISTER_REUSE = 10.0


def register_traffic(f: Facts) -> float | None:
    """The bytes per FLOP the hot loop's own loads and stores move, where that is what keeps a kernel its model
    calls compute-bound from its roof (see LOOP_BYTES_PER_FLOP); None otherwise."""
    loop, intensity = f.loop, f.row.get("intensity")
    stores = f.audit.stores
    if not (f.vb and loop.get("vector_fp") and loop.get("flops") and loop.get("bytes") and stores and intensity):
        return None  # (a loop that stores nothing keeps its results in registers: its loads are its inputs)
    if loop.get("calls"):
        # a loop calling a function an element (log, a user's own): the callee's arithmetic is not in the count,
        # and what the loop stores and reloads around the call is the call's cost (EP's Gaussian pairs: 13.9 bytes
        # a counted FLOP, its log and sqrt the time)
        return None
    per_flop = loop["bytes"] / loop["flops"]
    return per_flop if per_flop >= LOOP_BYTES_PER_FLOP and per_flop * intensity >= REGISTER_REUSE else None


def _uncounted_product(f: Facts, ratio: float | None) -> bool:
    return bool(f.ctx.get("gemm_like") and ratio is not None and f.excess is None and
                (f.traffic.get("skipped") or f.traffic.get("error")))


def find(f: Facts) -> list[dict]:
    if not applies(f):
        return []
    row, t, excess = f.row, f.traffic, f.excess
    live = f.reference
    ref_ratio = live.ratio if live is not None and live.kind == "blas_gemm" else None
    flops = t.get("flops") or row["flops"]
    elem = 4 if f.ctx.get("precision") == "fp32" else 8
    tiles = tile_sizes(row, elem)
    in_loop = register_traffic(f) if excess is None else None
    audit = f.code.get("audit") or {}
    if in_loop:  # the hot loop's own loads and stores: what it moves per FLOP against what the model needs
        ev = [msg("its hot loop loads and stores {b:.3g} bytes per FLOP ({loads} load(s) and {stores} store(s) a "
                  "vector FMA), where the kernel's model needs {m:.3g}: each result goes back to memory and comes "
                  "back for the next step instead of staying in a register", b=in_loop,
                  loads=audit.get("loads", "?"), stores=audit.get("stores", "?"),
                  m=1 / row["intensity"])]
        if t.get("skipped") or t.get("error"):
            ev.append(msg("its traffic was not counted ({why})", why=t.get("skipped") or t.get("error")))
    elif excess is None:  # a matrix product whose traffic was not counted: the BLAS measured alongside is the gap
        ev = [msg("a matrix product by its shapes and FLOP count; its traffic was not counted ({why})",
                  why=t.get("skipped") or t.get("error"))]
    else:
        ev = [f.traffic_evidence(),
              msg("bytes per FLOP: {model:.3g} in the model; {held:.3g} out of {level}{l1}",
                  model=t["model_bytes"] / flops, held=excess * t["model_bytes"] / flops,
                  level=t.get("holding_level") or "?",
                  l1=msg("; {b:.3g} into L1", b=t["l1_bytes"] / flops) if t.get("l1_bytes") else "")]
    if ref_ratio is not None:
        ev.append(reference_evidence(live))
    if tiles:
        ev.append(msg("tiles that would fit: {tiles} (three b x b blocks of {e}-byte elements in half the level)",
                      tiles=", ".join(f"b ≈ {b} for {lv}" for lv, b in tiles.items()), e=elem))
    # without the BLAS: what the counted traffic says, out of the holding level or into L1 beyond any stride
    beyond = (t.get("l1_ratio") or 0) * elem / LINE_BYTES
    factor = 1 / ref_ratio if ref_ratio else min(max(excess or 0, beyond), 1 / max(row.get("of_roof") or 1.0, 1e-9))
    # a hot loop that runs at the pace of its own dependency chain (the in-core prediction explains the time) is
    # not waiting for memory: blocking gains only what the memory adds to that pace until the chain is broken
    pred, measured = f.code.get("prediction") or {}, row.get("cycles_per_iteration")
    if f.chained and f.dependency_bound and pred.get("cycles_per_iteration") and measured and \
            measured <= IN_CORE * pred["cycles_per_iteration"]:
        factor = min(factor, max(1.0, measured / pred["cycles_per_iteration"]))
        ev.append(msg("the hot loop runs at the pace of its dependency chain ({m:.1f} cycles per iteration measured, "
                      "{p:.1f} predicted in-core): reuse pays once the chain no longer sets the pace",
                      m=measured, p=pred["cycles_per_iteration"]))
    level = t.get("holding_level") or row.get("level") or "?"
    if in_loop and not f.ctx.get("gemm_like"):
        return [finding(
            ID, factor, ev,
            msg("it does enough work per byte to be bound by compute, but its inner loop reads and writes its "
                "results in memory at every step of the loop around it, so loads and stores, not arithmetic, set "
                "its pace"),
            msg("keep several results in registers across the outer loop: unroll the outer loop by 4 to 8 and fuse "
                "the copies into one inner loop (unroll and jam: a register tile, as a GEMM's micro-kernel keeps its "
                "block of C), then block the loops for the cache"))]
    return [finding(
        ID, factor, ev,
        msg("it does enough work per byte to be bound by compute, but each operand is fetched again from {level} "
            "for every use instead of being reused while it is in a faster cache", level=level),
        msg("block (tile) the loops so that each tile of the operands is reused while it is in cache (see the tile "
            "sizes above), with the innermost loop walking memory contiguously; a tuned library (BLAS) does this "
            "for a matrix product"), ("blocked",) if f.ctx.get("gemm_like") else ())]

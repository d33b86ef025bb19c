"""Strided access: the traffic out of the level that holds the working set far exceeds the model (lines brought in and
used in part), or the compiler names the access pattern and L1 brought in far more than the model (or nothing was
counted), or the source's innermost loop steps by a row at each iteration while the loop takes far more cycles than
its instructions need (it waits for memory, or carries an in-order sum that the interchange would make independent)
and, where the traffic was counted, L1 brought in more than the model.
Extra traffic into L1 alone is data reused from L2, not stride. Tested by the loops reordered (see TEST)."""

from __future__ import annotations

from rooflab.diagnosis.rules import reuse
from rooflab.diagnosis.rules.facts import EXCESS, Facts, finding
from rooflab.i18n import msg

ID = "strided"
# the loops of a rectangular nest reordered in a copy of the source, so that the innermost walks memory
# contiguously (diagnosis/interchange.py): the fix itself where the nest allows it; it does not apply to a walk that
# no order makes contiguous (a transpose, an array of records)
TEST = "interchange"
# L1 bringing in this many times the bytes used: lines used for a fraction of their bytes (a column walk over
# doubles brings in 8x); rows or a vector reused out of L2 (a stencil's rows, bicg's s[]) bring in 2-3x, and operands
# fetched again for every use far more than any stride (Facts.refetched: reuse's finding)
L1_STRIDE = 4.0
WAITING = 2.0  # measured cycles per iteration this many times the in-core prediction: the loop waits for memory
L1_REFETCHED = 1.5  # L1 bringing in this many times the model's bytes: lines fetched again
FAR_BELOW = 0.25  # without a prediction: this share of its roof or less
RECORD_TRAFFIC = 1.3  # an array of records read in part: counted traffic this many times the model confirms it


def WORD():
    return msg("strided access")


def find(f: Facts) -> list[dict]:
    excess, loop = f.excess, f.loop
    if reuse.applies(f) or loop.get("gathers") or \
            (loop.get("indexed_loads") or 0) > (loop.get("lookup_chains") or 0):
        # operands re-fetched by a compute-bound kernel, or elements fetched through an index (a gather, or one
        # written out a lane at a time: a bitmap probed at random positions fetched 4.4x its model): their own
        # findings say so
        return []
    records = partial_lines(f)
    if records:
        return [records]
    built = lane_built(f)
    if built:
        return [built]
    l1 = f.traffic.get("l1_ratio")
    counted = excess is not None or l1 is not None
    # counted or not, an innermost loop of the source walking a column while the loop waits for memory or carries an
    # in-order sum (evidence of its own, whatever the traffic costs: LU's k loop, 1.67x reordered); counted, it also
    # needs L1 to have brought in more than the model (its lines fetched again from L2 at each step), unless the walk
    # carries an in-order sum: then the interchange makes the sums independent whatever the lines cost (a sum over
    # a 3-D array's middle index, its lines reused from L1 by the next element: reordered 1.75x, partial sums 1.4x)
    walked = _walks(f) if not counted or (l1 or 0) >= L1_REFETCHED or (f.reduction and _summing_walk(f)) else None
    if not reuse.traffic_may_pace(f) or reuse.repeated_sweeps(f):
        # lines brought in again or in part, but moving them takes a small part of the time: they pace nothing; or
        # the bytes beyond the model are the arrays streamed again at each time step (PolyBench's heat-3d: 100
        # steps, 366x out of L2, 3.7x a step), which says nothing of how each step walks them
        excess = l1 = None
    # the compiler names the access pattern: strided where L1 brings in several times the bytes used (each line used
    # in part), or where nothing was counted and the loop is not vectorized to full width; a stride remark with
    # traffic at the model (atax, trisolv: 1.00x) or with rows reused out of L2 (bicg: 3x) is no evidence
    # lines fetched again and again are reuse's to tell, except where the source's innermost loop walks a column:
    # reuse leaves those to this finding, loop order before blocking (PolyBench's syr2k: two columns walked under
    # the vectorized j loop, L1 bringing in 148x the model)
    walks = bool(f.pragmas.column_walks)
    # uncounted, the remark stands where the loop is not vectorized to full width, unless every address the hot loop
    # walks moves an element at a time: the pattern gcc could not follow is then no stride (PolyBench's
    # floyd-warshall: path[i][k], read at one address and written by the loop at j = k)
    # counted, the same holds: contiguous streams use each line whole, so L1's excess is lines fetched again (a
    # window's rows a power of two apart evicting each other: LLVM's box blur, 9.8x), not lines used in part
    named = "stride" in f.causes and not one_pace(loop) and \
        ((l1 or 0) >= L1_STRIDE and (walks or not f.refetched) if counted else f.vb < f.isa_vb)
    if (excess or 0) >= EXCESS and not (named or walked) and one_pace(f.loop):
        # the hot loop walks every array it touches at one pace, a few vectors' width at most: each line it brings
        # in is used whole, so the bytes beyond the model come from elsewhere (arrays streamed again out of the level
        # that holds them by each of several loops: LCALS's energy update, six loops over nine arrays in L3, 2.5x),
        # not from a stride
        excess = None
    if not ((excess or 0) >= EXCESS or named or walked):
        return []
    if walked and not ((excess or 0) >= EXCESS or named):
        ev, factor = walked
        if l1:
            ev.append(msg("{method}: L1 brought in {r:.1f}x the bytes the model counts", method=f.traffic["method"],
                          r=l1))
        return [_finding(ev, factor)]
    ev = []
    if (excess or 0) >= EXCESS:
        ev.append(f.traffic_evidence())
    elif l1 and f.refetched:
        ev.append(msg("{method}: L1 brought in {r:.1f}x the bytes the model counts: the lines of the columns it walks "
                      "come in again at each step of an outer loop", method=f.traffic["method"], r=l1))
    elif l1:
        ev.append(msg("{method}: L1 brought in {r:.1f}x the bytes the model counts, while {level}, where the working "
                      "set lives, delivered them about once: each line brought into L1 was used only in part",
                      method=f.traffic["method"], r=l1, level=f.traffic.get("holding_level") or "?"))
    ev += f.cause_remarks("stride")
    factor = max(excess or 0, l1 if named and l1 else 0, 1.5)
    if walked:
        # the walk in the source too: its own factor where larger (a column walk carrying an in-order sum, which
        # the interchange makes independent sums: covariance's dot products down two columns)
        walk_ev, walk_factor = walked
        ev += walk_ev
        factor = max(factor, walk_factor)
    else:
        ev += _walk_lines(f.pragmas.column_walks)
    return [_finding(ev, factor)]


# a vectorized loop loading this share of its vectors' lanes one element at a time, with the source's innermost loop
# walking a column: each vector is put together from elements a row apart
LANE_BUILT_SHARE = 0.5


def lane_built(f: Facts) -> dict | None:
    """A vectorized hot loop that builds its vectors an element at a time from addresses a row apart (the
    source's innermost loop walks a column: gcc loads each lane with vmovsd / vmovhpd and joins them), far below its
    roof: however the lines come (from L1, when the column's lines stay there), each vector costs a load a lane and
    the shuffles joining them, where a contiguous walk loads it whole (PolyBench's syrk: 8 loads and 3 inserts for
    8 FMAs, 5.1 cycles an iteration as predicted, at 20% of its roof)."""
    loop = f.loop
    walks = f.pragmas.column_walks
    lanes = (f.vb or 0) // max(8, loop.get("element_bits") or 64)
    loaded = loop.get("lane_loads") or 0
    if not (walks and lanes >= 2 and loaded >= LANE_BUILT_SHARE * lanes and (f.of_roof or 1.0) <= FAR_BELOW):
        return None
    ev = [msg("its hot loop builds each {bits}-bit vector from {n} loads of one element (elements a row apart: the "
              "source's innermost loop walks a column), where a contiguous walk loads a vector at once",
              bits=f.vb, n=loaded)] + _walk_lines(walks)
    return _finding(ev, min(1 / max(f.of_roof or 1.0, 1e-3), max(1.5, loaded / 2)))


def _finding(ev: list, factor: float) -> dict:
    return finding(
        ID, factor, ev,
        msg("strided or column-wise access: each cache line brought in is used for only part of its bytes"),
        msg("make the inner loop walk memory contiguously (interchange the loops, or store the matrix "
            "transposed), or block the loops so that each line is reused before it is evicted"),
        experiments=(TEST,))


def partial_lines(f: Facts) -> dict | None:
    """An array of records (structs) that the innermost loop walks while it reads only some fields of each, or an
    array it reads at a small stride using only some elements between, beyond L1, where the traffic (where counted)
    shows the unused bytes being fetched, or the kernel is bound by memory."""
    pragmas = f.pragmas
    recs, strides = pragmas.partial_records, pragmas.partial_strides
    if not (recs or strides) or f.row.get("level") in (None, "L1"):
        return None
    excess = f.excess
    if (excess is not None and excess < RECORD_TRAFFIC) or (excess is None and f.row.get("bound") != "memory"):
        return None
    if not reuse.traffic_may_pace(f):
        # the unused bytes are fetched, but moving all the lines takes a small part of the time: something else
        # paces the loop (LFK 4's stride-5 sum: 24 cycles an iteration, its eight adds in order)
        return None
    if recs:
        r = recs[0]
        unused = r["record_bytes"] / r["used_bytes"]
        ev = [msg("in its innermost loop over {var}, each `{array}[{var}]` is a {record} of {rb} bytes, of which it "
                  "uses {fields} ({ub} bytes): the rest of each line it brings in goes unused", var=r["var"],
                  array=r["array"], record=r["record"], rb=r["record_bytes"], fields=", ".join(r["used"]),
                  ub=r["used_bytes"])]
        why = msg("an array of records read for a few of their fields: every cache line brought in carries fields "
                  "the loop does not use")
        change = msg("keep the fields this loop reads in arrays of their own (a structure of arrays), or split the "
                     "record into the fields used together and the rest")
    else:
        r = strides[0]
        unused = r["stride"] / r["used"]
        ev = [msg("in its innermost loop over {var}, `{array}{index}` uses {used} of every {k} elements: the rest of "
                  "each line it brings in goes unused", var=r["var"], array=r["array"], index=r["index"],
                  used=r["used"], k=r["stride"])]
        why = msg("strided or column-wise access: each cache line brought in is used for only part of its bytes")
        change = msg("keep the elements the loop reads next to each other (a separate array of them), or do the "
                     "work of the elements it skips in the same pass")
    if excess is not None:
        ev.append(f.traffic_evidence())
    return finding(ID, min(unused, excess) if excess is not None else unused, ev, why, change)


# how many of the loop's widest accesses an address may move per iteration and still be read whole (an unrolled
# loop's x[i] and x[i + 8] are one address moving by two vectors)
ONE_PACE_ACCESSES = 4


def one_pace(loop: dict) -> bool:
    """Whether the hot loop walks two or more addresses, all moving by the same step per iteration, a few of its
    accesses wide at most (a vector's bytes where its arithmetic, floating point or integer, is in vectors, an
    element's where it is scalar): contiguous streams. A stride, a record's field or a row walked moves an address
    by more (LFK 10's rows of 25 doubles: 200 bytes an iteration, scalar code)."""
    streams = loop.get("streams") or []
    vector = loop.get("vector_fp") or loop.get("int_ops")  # arithmetic in vectors, floating point or integer
    width = (loop.get("vector_bits") if vector else loop.get("element_bits")) or 64
    return len(streams) >= 2 and len(set(streams)) == 1 and 0 < streams[0] <= ONE_PACE_ACCESSES * width // 8


def _walks(f: Facts) -> tuple[list, float] | None:
    """An innermost loop of the source that steps by a row at each iteration, while
    the loop waits for memory (measured cycles per iteration far above the in-core prediction; without one, the
    kernel far below its roof, beyond L1). (evidence, factor) or None."""
    walks = f.pragmas.column_walks
    if not walks or f.row.get("level") in (None, "L1"):
        return None
    measured = f.row.get("cycles_per_iteration")
    pred = (f.prediction or {}).get("cycles_per_iteration")
    if measured and pred and f.reduction and any(w.get("sum") for w in walks):
        # the walking loop also carries an in-order sum, whose latency hides part of the wait for memory: the
        # interchange that makes the walk contiguous also makes the sums independent (one per element of the new
        # inner loop, vectorizable), so it gains what partial sums would and what the wait costs
        factor = f.chain_factor() * max(1.0, measured / pred)
        why = msg("its innermost loop also carries an in-order sum: interchanging the loops makes the sums "
                  "independent, one per element of the new inner loop, and the walk contiguous")
    elif measured and pred:
        if measured < WAITING * pred:
            return None
        factor = measured / pred
        why = msg("measured {m:.1f} cycles per iteration of the hot loop against {p:.1f} predicted for its "
                  "instructions alone: the rest is waiting for memory", m=measured, p=pred)
    elif (f.of_roof or 1.0) <= FAR_BELOW:
        factor = min(8.0, 1 / max(f.of_roof, 1e-3))
        why = None
    else:
        return None
    return _walk_lines(walks) + ([why] if why else []), factor


def column_walk(f: Facts) -> bool:
    """Whether the source's innermost loop steps by a row at each iteration while the loop waits for memory (or is
    far below its roof): vector lanes would wait on a line each, so the walk, not the width, is what to change."""
    return _walks(f) is not None


def _summing_walk(f: Facts) -> bool:
    """Whether a column walk of the source is in a loop that also accumulates a scalar (the walk carries the sum):
    a walk elsewhere in the function (a transpose into a scratch buffer before the products) says nothing of the
    sum in the hot loop."""
    return any(w.get("sum") for w in f.pragmas.column_walks)


def _walk_lines(walks: list[dict]) -> list[dict]:
    return [msg("in its innermost loop over {var}, `{array}{index}` steps by {stride} elements at each iteration: "
                "every access touches another cache line", var=w["var"], array=w["array"], index=w["index"],
                stride=w["stride"]) if w["stride"] else
            msg("in its innermost loop over {var}, `{array}{index}` steps by a row at each iteration: every access "
                "touches another cache line", var=w["var"], array=w["array"], index=w["index"]) for w in walks[:2]]

"""What the vectorization findings (aliasing, a scalar build, narrow vectors) share: whether the loop leaves vector
lanes unused, the evidence that says so, and which other finding already names the reason."""

from __future__ import annotations

from rooflab.diagnosis.rules import control_flow, dependency, short_trips, strided
from rooflab.diagnosis.rules.calls import INSTRUCTIONS
from rooflab.diagnosis.rules.facts import EXCESS, Facts, errno_calls
from rooflab.i18n import msg


# a loop streaming from L3 or DRAM at this share of its roof or more: its vectors' width is not what paces it (a few
# bytes a cycle come from there, which scalar loads keep up with)
STREAMS_NEAR_ROOF = 0.5


def other_walk(f: Facts) -> bool:
    """The loop walks memory along a path another finding names: an index loaded (a gather), a column walk in the
    source (a transpose), a stride the compiler names."""
    loop = f.loop
    return bool(loop.get("indexed_loads") or loop.get("gathers") or f.pragmas.column_walks
                or ("stride" in f.causes and not strided.one_pace(loop)))


def plain_copy(f: Facts) -> bool:
    """A scalar loop that moves data without computing on it, along no walk another finding names: no column walk
    in the source (a transpose: strided access), no index loaded (a gather: indirect access), no stride the
    compiler names."""
    return bool(f.loop.get("moves_only") and not f.vb and not other_walk(f))


def unused_lanes(f: Facts) -> bool:
    """The loop computes (in floating point, or on integers in vector registers) or copies data it computes nothing
    on, element by element (a 2x upsampling through ``in[j / 2]``), the core has wider vectors than it uses, no
    chain is what keeps it scalar, and it is not a stream from L3 or DRAM already near its roof."""
    streaming = f.row.get("bound") == "memory" and f.row.get("level") in ("L3", "DRAM") and \
        (f.of_roof or 0) >= STREAMS_NEAR_ROOF
    works = f.loop.get("flops") or f.loop.get("int_ops") or plain_copy(f)
    return bool(works and f.isa_vb and f.vb < f.isa_vb and not f.chained and not streaming)


def errno_only(f: Facts) -> bool:
    """The loop's only calls are square roots kept for errno (a branch to the library on a cold path), which
    -fno-math-errno makes instructions: whether the loop then vectorizes is that build's to say (CloverLeaf's
    time-step control stays scalar without them: gcc then finds its access pattern too complicated)."""
    loop = f.loop
    calls = list(loop.get("side_calls") or []) + errno_calls(f.code)
    return bool(calls) and not loop.get("calls") and all(c.rstrip("f").lower() in INSTRUCTIONS for c in calls)


def explained_elsewhere(f: Facts, errno: bool = True) -> bool:
    """Another finding names why the loop is not vectorized: its vector copy seldom entered (short trips), a call
    (or errno, or a call on a cold path; ``errno`` False: not a square root kept for errno alone), strided
    access that the traffic shows (a stride the compiler names, or a column walk of the source: TSVC's s141, whose
    traffic out of L2 was 5.9x the model) or a column walk while the loop waits, an integer division, a
    branch, or a chain carried from one iteration to the next in a scalar loop (its lanes can only come from
    independent chains: the chain's finding says so), an update through an index (a histogram's), or records read
    for a few of their fields (each lane would wait on lines mostly unused)."""
    loop, causes = f.loop, f.causes
    calls = "call" in causes or loop.get("calls") or loop.get("side_calls") or errno_calls(f.code)
    # (``errno`` False: a square root kept for errno does not count, see errno_only)
    return bool(short_trips.scalar_copy(f) or (calls and (errno or not errno_only(f)))
                or (("stride" in causes or f.pragmas.column_walks)
                    and (f.excess or 0) >= EXCESS) or strided.partial_lines(f)
                or strided.column_walk(f)
                or (f.vb == 0 and (loop.get("int_div") or loop.get("indexed_updates")
                                   or control_flow.applies(f, beside_aliasing=True)
                                   or dependency.find(f))))


def width_evidence(f: Facts) -> list:
    ev = [msg("the hot loop uses {width}; this ISA has {isa}-bit vectors",
              width=msg("{bits}-bit vectors", bits=f.vb) if f.vb else msg("scalar code only"), isa=f.isa_vb)]
    remark = next((r["text"] for r in f.code.get("remarks") or [] if r["kind"] == "missed"), None)
    if remark:
        ev.append(msg("the compiler says: {said}", said=remark))
    return ev


def build_flags(f: Facts) -> list[str]:
    return f.build.flags or []


def scalar_build(f: Facts) -> bool:
    """The build's own flags keep the compiler from vectorizing."""
    return f.vb == 0 and any(x in build_flags(f) for x in ("-O0", "-O1", "-O2", "-fno-tree-vectorize",
                                                           "-fno-vectorize"))


def leftover(f: Facts) -> bool:
    """Unused lanes that neither aliasing nor another finding explains: the build's doing, or narrow vectors."""
    return unused_lanes(f) and "aliasing" not in f.causes and not explained_elsewhere(f)

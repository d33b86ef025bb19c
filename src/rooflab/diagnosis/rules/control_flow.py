"""Control flow in the loop: a branch the compiler could not turn into a select keeps the loop scalar, and a
data-dependent branch mispredicts on data it cannot predict."""

from __future__ import annotations

import re

from rooflab.diagnosis.rules.facts import Facts, errno_calls, finding, measured_cycles
from rooflab.i18n import msg

ID = "control_flow"
# a scalar loop with a branch measured at this many times the cycles its instructions need, with nothing else to
# wait for (no load through an index, no column walk, no chain, no call, its traffic near the model): the branch
# mispredicts (LLVM's ordered dither: a pixel against a threshold table, random data, 22 cycles against 3.25)
MISPREDICT_WAIT = 3.0
_MOVING_STORE = re.compile(r"unsupported use in stmt", re.I)  # gcc, on the index that advances under the test
_DATA_REF = re.compile(r"data ref analysis failed", re.I)  # gcc, on a load whose address it cannot follow
TEST = None


def WORD():
    return msg("control flow in the loop")


def _early_exit(loop: dict) -> bool:
    """A loop that can stop early on its data (a search) and carries nothing from one iteration to the next but its
    index: its iterations could be tested a vector at a time. (An exit from a recurrence, the escape test of an
    iteration z = z*z + c, is the recurrence's finding: its iterations cannot run side by side.)"""
    return bool(loop.get("exits")) and not (loop.get("accumulators") or loop.get("memory_chains")
                                            or loop.get("pointer_chains"))


def mispredicts(f: Facts) -> float | None:
    """How many times the cycles its instructions need a scalar loop with a branch takes, where only the branch
    can account for the wait; None where it does not, or something else can (a load through an index, a column
    walk, a carried chain in registers or memory, a call, an early exit, a line shared by threads, traffic beyond
    the model)."""
    loop, m = f.loop, f.row.get("cycles_per_iteration")
    p = (f.prediction or {}).get("cycles_per_iteration")
    if not (m and p and m >= MISPREDICT_WAIT * p) or f.vb or not loop.get("branches") or f.chained:
        return None
    if any(loop.get(k) for k in ("calls", "side_calls", "gathers", "indexed_loads", "pointer_chains", "lookup_chains",
                                 "memory_recurrences", "memory_chains", "exits", "div_sqrt", "int_div", "atomics")):
        return None
    pragmas = f.pragmas
    # a column walk waits for lines; threads writing one element each of an array wait for a line that moves
    # between their caches (false sharing: a count per thread kept in memory)
    if pragmas.column_walks or pragmas.thread_slots or (f.traffic.get("holding_ratio") or 1.0) > 2.0:
        return None
    return m / p


def chosen_addresses(f: Facts) -> int:
    """Loads or stores of a scalar loop at an address a conditional move chose (a grid's neighbour picked at its
    borders: ``w = (x == 0) ? c : c - 1``, then ``t[w]``): the compiler if-converted the condition, and the
    vectorizer cannot follow the address it picks (gcc: "data ref analysis failed"). 0 where there are none, the
    loop is vectorized, or calls keep it scalar anyway."""
    loop = f.loop
    if f.vb or loop.get("calls") or loop.get("side_calls") or errno_calls(f.code):
        return 0
    return int(loop.get("select_addresses") or 0)


def applies(f: Facts, beside_aliasing: bool = False) -> bool:
    """Whether a branch in the loop keeps it scalar; ``beside_aliasing``: or would, where the compiler also names
    a possible overlap of the arrays (restrict's experiment says which of the two it was)."""
    loop = f.loop
    if f.packed_stores and not (loop.get("calls") or loop.get("side_calls") or errno_calls(f.code)):
        return True  # where each element goes depends on the tests before it: scalar, branch or no branch
    if mispredicts(f) and not errno_calls(f.code):
        return True  # whatever else the compiler says keeps it scalar, the time goes to the branch
    if chosen_addresses(f):
        return True  # an address a condition picks keeps it scalar, whatever the pointers may overlap
    # branches to a call's cold path (errno, complex NaN recovery) are the call's finding
    # the branch of a running maximum is the reduction's finding
    # an update through an index (a histogram's bins) stays scalar with or without the branch that guards it
    if not (loop.get("branches") or _early_exit(loop)) or f.vb >= f.isa_vb or errno_calls(f.code) or \
            loop.get("calls") or loop.get("side_calls") or any(not s.get("with") for s in f.select_reduction) or \
            loop.get("indexed_updates"):
        return False
    if _with_position(f):
        return True  # the branch keeps a maximum and its position: no flag if-converts that
    # the compiler names the branch, or says nothing else that would keep this scalar loop scalar (an address it
    # cannot follow, "data ref analysis failed", is such a reason: SRAD's neighbours read through index arrays)
    blockers = {"call", "stride", "reduction"} | (set() if beside_aliasing else {"aliasing"})
    if "control_flow" not in f.causes and f.remarks_matching(_DATA_REF):
        return False
    return "control_flow" in f.causes or not (f.vb or blockers & set(f.causes))


def _with_position(f: Facts) -> dict | None:
    """A running maximum or minimum whose branch also sets another scalar (its position: an argmax)."""
    return next((s for s in f.select_reduction if s.get("with")), None)


def find(f: Facts) -> list[dict]:
    if f.loop.get("halving_search"):
        return []  # a binary search's branch is a step of its chain (dependency_chain's finding)
    # where the compiler also names a possible overlap, the branch stands only if restrict leaves the loop scalar
    # (TSVC's s277: its tests and a store to b[i + 1] between them kept it scalar with restrict too)
    alone = applies(f)
    if not alone and not ("aliasing" in f.causes and applies(f, beside_aliasing=True)):
        return []
    width = msg("runs on {bits}-bit vectors", bits=f.vb) if f.vb else msg("is scalar")
    sel = _with_position(f)
    wait = mispredicts(f)
    if sel:
        ev = [msg("the hot loop's branch keeps a running {op} in {var} and sets {other} with it, and it {width}",
                  op=msg("maximum") if sel["op"] == "max" else msg("minimum"), var=sel["var"], other=sel["with"],
                  width=width)]
        if f.row.get("cycles_per_iteration"):
            ev.append(measured_cycles(f.row))
        why = msg("a branch that updates two values together (a maximum and where it is): compilers if-convert and "
                  "vectorize neither, whatever the flags, so the loop compares one element at a time")
        change = msg("find the {op} first (a reduction the compiler vectorizes: {pragma}), then its position in a "
                     "second pass; or keep a {op} and a position per vector lane and combine them after the loop",
                     op=msg("maximum") if sel["op"] == "max" else msg("minimum"),
                     pragma=f"#pragma omp simd reduction({sel['op']}:{sel['var']})")
        return [finding(ID, f.lanes, ev + f.cause_remarks("control_flow"), why, change)]
    if f.packed_stores:
        st = f.packed_stores[0]
        ev = [msg("the loop stores {array}[{index}] at a place that advances only where its test holds (it packs "
                  "the elements that pass to the front), and it {width}", array=st["array"], index=st["index"],
                  width=width)]
        ev += f.remarks_matching(_MOVING_STORE)
        if f.row.get("cycles_per_iteration"):
            ev.append(measured_cycles(f.row))
        why = msg("a compaction: where each element goes depends on every test before it, so compilers keep the loop "
                  "scalar, and a test on the data mispredicts wherever its outcome follows no pattern")
        change = msg("write it without a branch ({branchless}), which ends the mispredictions, and pack a vector at "
                     "a time: a compress store of the lanes that pass (AVX-512's {intrinsic} with the comparison's "
                     "mask), or on narrower vectors a table of permutations indexed by the mask",
                     branchless=f"{st['array']}[{st['index']}] = v; {st['index']} += (test);",
                     intrinsic="_mm512_mask_compressstoreu_pd")
    elif f.loop.get("branches"):
        ev = [msg("the hot loop has {n} conditional branch(es) besides the one that closes it, and {width}",
                  n=f.loop["branches"], width=width)]
        if wait:
            ev.append(msg("measured {m:.1f} cycles per iteration of the hot loop against {p:.1f} predicted for its "
                          "instructions alone, with no load through an index, no chain and no call to wait for: "
                          "the branch mispredicts", m=f.row["cycles_per_iteration"],
                          p=f.prediction["cycles_per_iteration"]))
        why = msg("control flow in the loop body: the compiler could not if-convert the branch, so the loop stays "
                  "scalar, and a data-dependent branch costs a misprediction each time the data changes direction")
        change = msg("compute both sides and select (x = c ? a : b, with no store or call inside the condition), "
                     "move a test that does not change out of the loop, or sort the data so that the branch is "
                     "predictable")
    elif chosen_addresses(f) and not f.loop.get("exits"):
        ev = [msg("the hot loop reads or writes {n} element(s) per iteration at an address a condition chose (a "
                  "conditional move picks the index, as `x == 0 ? c : c - 1` does), and it {width}",
                  n=chosen_addresses(f), width=width)]
        ev += f.remarks_matching(_DATA_REF)
        why = msg("a condition in the loop picks which element to read (a grid's neighbours at its borders): the "
                  "compiler made it a select of the index, and the vectorizer cannot follow an address a condition "
                  "chooses, so the whole loop stays scalar for the sake of its first and last iterations")
        change = msg("take the border cases out of the loop (the first and last iterations on their own, or a halo "
                     "of copied cells around the grid), so that the loop reads its neighbours at fixed offsets "
                     "(c - 1, c + 1) without a condition and vectorizes")
    else:
        ev = [msg("the hot loop can stop early: {n} exit(s) that depend on the data, and it {width}",
                  n=f.loop["exits"], width=width)]
        why = msg("a loop that stops on its data: the compiler vectorizes a loop only when its trip count is known "
                  "as it starts, so this search tests one element at a time")
        change = msg("test a vector of elements at once and find the first that ends the search, count instead of "
                     "stopping where the data allow it (in a sorted table, the number of elements below the key), "
                     "or search by halves")
    ev += f.cause_remarks("control_flow")
    gain = max(f.lanes, wait or 0.0) if f.loop.get("branches") and not (sel or f.packed_stores) else f.lanes
    return [finding(ID, gain, ev, why, change, after=() if alone else ("aliasing",),
                    unless_vectorized_by=None if alone else "restrict")]

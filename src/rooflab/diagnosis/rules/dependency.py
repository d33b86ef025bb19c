"""A dependency chain: each iteration waits for the previous one's result (a recurrence, a scan). Unrolling is its
control: it does not shorten a chain, so no gain from it is what the hypothesis predicts."""

from __future__ import annotations

from rooflab.diagnosis.rules.facts import Facts, finding, measured_cycles
from rooflab.i18n import msg

ID = "dependency_chain"
TEST = None


def WORD():
    return msg("a dependency chain")


def find(f: Facts) -> list[dict]:
    if f.scan:
        return [finding(
            ID, f.chain_gain(),
            f.chain_evidence() + [msg("the running value is stored at every element: a scan (prefix sum)")],
            msg("each element's value is the previous one's plus this one: the loop runs at the latency of that "
                "chain, and a scan cannot be split into partial sums as a reduction can"),
            msg("scan in blocks: the prefix of each block on its own (independent chains: in SIMD lanes or on "
                "threads), then a second pass adds each block's offset; unrolling alone does not shorten the chain"),
            ("unroll",))]
    if f.recurrence:
        return [finding(
            ID, f.chain_gain(),
            f.chain_evidence() + [msg("the running value is stored at every element: each output is computed from "
                                      "the one before")],
            msg("each iteration waits for the result of the previous one: the loop runs at the latency of its "
                "dependency chain"),
            msg("work on several independent chains at once (interleave independent problems, or restructure the "
                "recurrence, e.g. by recursive doubling); unrolling alone does not shorten a chain"), ("unroll",))]
    if f.loop.get("memory_recurrences") and not (f.reduction or f.in_memory):
        # S[j] computed from S[j-1] kept in memory: the chain runs through a store and the next iteration's load
        pred, cpi = f.prediction.get("cycles_per_iteration"), f.row.get("cycles_per_iteration")
        ev = [msg("each iteration loads {n} value(s) that the iteration before it stored (at the next element's "
                  "address): a dependency chain through memory, a store forwarded to a load on every element",
                  n=f.loop["memory_recurrences"])]
        if cpi:
            ev.append(measured_cycles(f.row))
        if cpi and pred:
            ev.append(msg("{tool} predicts {p:.1f} cycles per iteration from the instructions alone, not counting "
                          "the wait for the store", tool=f.prediction.get("tool") or "llvm-mca", p=pred))
        return [finding(
            ID, max(2.0, cpi / pred) if cpi and pred else 2.0, ev,
            msg("each element is computed from the one stored just before it: the loop waits at every element for "
                "the previous store to reach its load, then for the arithmetic, and stays scalar"),
            msg("keep the running value in a local variable instead of reading it back from the array, split the "
                "work into passes whose inner loops carry nothing (a running sum over a 2-D array: along each row "
                "first, then down the columns, vectorized across the row), or work on several independent rows or "
                "problems at once"), ("unroll",))]
    fma_chain = f.chain >= 1 and "fma" in (f.loop.get("chain_op") or "") and f.vb == 0
    # the analyzer's latency bound alone is no carried chain where the loop gathers: a gather's own latency, within
    # one iteration, overlaps with the next iteration's
    predicted = f.dependency_bound and not f.loop.get("gathers")
    if not f.reduction and (predicted or fma_chain):
        return [finding(
            ID, f.chain_gain(), f.chain_evidence(),
            msg("each iteration waits for the result of the previous one: the loop runs at the latency of its "
                "dependency chain"),
            msg("work on several independent chains at once (interleave independent problems, or restructure the "
                "recurrence, e.g. by recursive doubling); unrolling alone does not shorten a chain"), ("unroll",))]
    return []

"""A dependency chain: each iteration waits for the previous one's result (a recurrence, a scan). Unrolling is its
control: it does not shorten a chain, so no gain from it is what the hypothesis predicts."""

from __future__ import annotations

import math

from rooflab.diagnosis.rules.facts import Facts, finding, measured_cycles
from rooflab.i18n import msg

ID = "dependency_chain"
TEST = None


def WORD():
    return msg("a dependency chain")


def find(f: Facts) -> list[dict]:
    if f.loop.get("halving_search"):
        return [_search(f)]
    if f.scan:
        ev = f.chain_evidence() + [msg("the running value is stored at every element: a scan (prefix sum)")]
        gain = f.chain_gain()
        if f.loop.get("int_scans") and not f.chain:
            # an integer scan runs at one element a cycle, its ports' pace for scalar code: what a scan in vector
            # lanes gains (log2(lanes) shifted adds per vector, and the carry) is the gain
            lanes = max(2, (f.isa_vb or 128) // 64)
            ev = [msg("the hot loop carries {n} integer running value(s), updates each with every element and "
                      "stores it at every element: a scan (a prefix sum of counts, a running OR)",
                      n=f.loop["int_scans"])] + f.chain_evidence()
            gain = max(gain, 2.0, lanes / (math.log2(lanes) + 1))
        return [finding(
            ID, gain, ev,
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
    if f.loop.get("feedback") and not f.scan and not f.recurrence:
        # mean += (x[i] - mean) / k: what is added depends on the running value itself
        return [finding(
            ID, f.chain_gain(),
            [msg("{n} running value(s) of the hot loop are updated with a term computed from themselves in the same "
                 "iteration (x - mean, then added back): a recurrence, not a sum", n=f.loop["feedback"])]
            + f.chain_evidence(),
            msg("each iteration's update needs the value the previous one produced, through every operation between "
                "(a subtraction, a division, an add): the loop runs at the latency of that whole chain, and neither "
                "partial sums nor -ffast-math can split it"),
            msg("carry only sums (Σx and Σx², or sums about a fixed shift), which partial sums and vectors split, "
                "and derive the result after the loop; or run the recurrence on independent blocks and combine "
                "them (for a running mean and variance, the pairwise formula of Chan et al.)"), ("unroll",))]
    if f.loop.get("lookup_chains") and not f.reduction:
        # crc = table[(crc ^ b) & 0xff] ^ (crc >> 8): each lookup's index is the last one's result
        ev = [msg("each iteration looks a table up at an index computed from the value the previous iteration's "
                  "lookup gave ({n} such load(s) per iteration): every step waits for a load and the arithmetic "
                  "on it", n=f.loop["lookup_chains"])]
        ev += f.chain_evidence()
        return [finding(
            ID, max(2.0, f.chain_gain()), ev,
            msg("table-driven state (a CRC, a finite automaton, a hash chain): the next index needs this lookup's "
                "result, so the loop runs at a load's latency plus its arithmetic per step, however many ports "
                "are free"),
            msg("run several independent chains at once: split the input into parts with a state each and combine "
                "them after (CRC parts combine by shifting; an automaton runs ahead from every possible state), "
                "consume more input per lookup with wider tables (CRC's slicing-by-8), or use the instruction the "
                "ISA has for it (a carry-less multiply fold, crc32 for CRC-32C)"), ("unroll",))]
    fma_chain = f.chain >= 1 and "fma" in (f.loop.get("chain_op") or "") and f.vb == 0
    # the analyzer's latency bound alone is no carried chain where the loop gathers: a gather's own latency, within
    # one iteration, overlaps with the next iteration's
    predicted = f.dependency_bound and not f.loop.get("gathers")
    # a vectorized loop without an accumulator carries nothing but its counters (a compiler vectorizes no other
    # carried value): the latency the analyzer counts is within an iteration, which the next one overlaps (a
    # multiplicative hash, 75% "waiting on dependencies", at 70% of its L3 roof)
    predicted = predicted and not (f.vb and not f.chain)
    if not f.reduction and (predicted or fma_chain):
        return [finding(
            ID, f.chain_gain(), f.chain_evidence(),
            msg("each iteration waits for the result of the previous one: the loop runs at the latency of its "
                "dependency chain"),
            msg("work on several independent chains at once (interleave independent problems, or restructure the "
                "recurrence, e.g. by recursive doubling); unrolling alone does not shorten a chain"), ("unroll",))]
    return []


def _search(f: Facts) -> dict:
    """A binary search: each step's address hangs on the value the step before it loaded (through the branch that
    picks the half). Making the branch a conditional move does not help: it turns the wait for a misprediction
    into the wait for the load (XSBench's nuclide grid, a table in L3: 0.68x)."""
    pred, cpi = f.prediction.get("cycles_per_iteration"), f.row.get("cycles_per_iteration")
    ev = [msg("the hot loop is a binary search: it halves an interval, loads at its middle and branches on the value "
              "it loaded, so the next step's address hangs on this step's load")]
    if cpi:
        ev.append(measured_cycles(f.row))
    if cpi and pred:
        ev.append(msg("{tool} predicts {p:.1f} cycles per iteration from the instructions alone: the rest is the wait "
                      "for each step's load and for the branch that goes the other way half the time",
                      tool=f.prediction.get("tool") or "llvm-mca", p=pred))
    return finding(
        ID, max(2.0, cpi / pred) if cpi and pred else 2.0, ev,
        msg("each step of the search waits for the value the step before it loaded: the steps run one after another, "
            "at the latency of a load from where the table lies and of a mispredicted branch, whatever the ports "
            "allow"),
        msg("search less: narrow each search with a coarse index or a hash of the key (where each range of keys "
            "begins), search several keys at once so that their loads overlap, or lay the table out so that the "
            "first steps stay in the cache (an Eytzinger order); a conditional move instead of the branch alone "
            "trades the wait for the branch for the wait for the load"))

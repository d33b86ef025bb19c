"""An in-order reduction: a sum carried from one iteration to the next, in a register (each add waits for the
previous one) or kept in memory (each load waits for the previous iteration's store: PolyBench's bicg), or a running
maximum or minimum that the compiler keeps in order (NaN and signed zeros)."""

from __future__ import annotations

from rooflab.diagnosis.rules import vectors
from rooflab.diagnosis.rules.facts import FP_LATENCY, Facts, finding, measured_cycles
from rooflab.i18n import msg

ID = "reduction_chain"
TEST = "fast_math"


def WORD():
    return msg("an in-order reduction")


def find(f: Facts) -> list[dict]:
    out = []
    if f.in_memory:
        loop, row = f.loop, f.row
        ev = [msg("the hot loop loads {n} value(s) from one address, updates and stores them back there on every "
                  "iteration: a running value kept in memory, each load waiting for the previous store",
                  n=loop["memory_chains"])]
        if row.get("cycles_per_iteration"):
            ev.append(measured_cycles(row))
        ev += f.cause_remarks("aliasing")
        out.append(finding(
            ID, max(f.chain_gain(), f.lanes / 2), ev,
            msg("a sum or update is carried from one iteration to the next through memory, in order: the compiler "
                "keeps it in memory because the pointers may overlap, so the loop runs at the latency of a "
                "store, a load and an add, and stays scalar"),
            msg("accumulate in a local variable (double acc = q[i]; ... q[i] = acc;) with several partial sums, "
                "declare the pointers restrict, or split the loop so that the sum is a loop of its own"),
            ("restrict", "fast_math"), test="restrict"))
    # a running maximum computed by a call (m = fmax(m, x[i])) is first a call per element: calls' finding says so,
    # with the same test and the same flags
    minmax_call = any(c.rstrip("fl") in ("fmin", "fmax") for c in f.loop.get("calls") or ())
    # one whose branch also keeps its position (an argmax) no flag vectorizes: control flow's finding says so
    plain = [s for s in f.select_reduction if not s.get("with")]
    if plain and not (f.reduction or f.in_memory or f.loop.get("pointer_chains") or minmax_call):
        sel = plain[0]
        ev = [msg("the loop keeps a running {op} in {var} and stays scalar: each comparison waits for the result "
                  "of the last one", op=msg("maximum") if sel["op"] == "max" else msg("minimum"), var=sel["var"])]
        if f.row.get("cycles_per_iteration"):
            ev.append(measured_cycles(f.row))
        ev += f.prediction_evidence() + f.simd_ignored_evidence()
        out.append(finding(
            ID, f.lanes, ev,
            msg("a maximum or minimum carried from one iteration to the next in order: the compiler vectorizes it "
                "only where NaN and the sign of zero need not be kept in order (-ffinite-math-only, "
                "-fno-signed-zeros), so the loop compares one element at a time"),
            _simd_advice(f) or
            msg("let the compiler reorder it ({pragma}, or -ffinite-math-only -fno-signed-zeros; -ffast-math "
                "includes both), or keep several running values (4 to 8) and combine them after the loop",
                pragma=f"#pragma omp simd reduction({sel['op']}:{sel['var']})"), *_simd_tests(f)))
    if f.inner_sum and not (f.in_memory or f.scan or f.recurrence or f.loop.get("pointer_chains")):
        k = f.inner_sum
        ev = [msg("each iteration adds {k} values one after another into one register, then starts afresh: a sum "
                  "the compiler unrolled (an inner loop of fixed length) and keeps in source order", k=k)]
        if f.row.get("cycles_per_iteration"):
            ev.append(measured_cycles(f.row))
        ev += f.prediction_evidence()
        fp = (f.loop.get("scalar_fp") or 0) + (f.loop.get("vector_fp") or 0)
        gain = f.chain_gain() if f.prediction.get("block_rthroughput") else k * FP_LATENCY / max(1, fp)
        out.append(finding(
            ID, gain, ev,
            msg("the sum each iteration computes is added in order: its {k} adds wait one for another, {k} times an "
                "add's latency, however wide the vectors its products are computed in", k=k),
            _simd_advice(f) or
            msg("let the compiler reassociate the inner sum ({pragma} on the inner loop, or {flag}), keep several "
                "partial sums, or compute several outputs at once across the outer loop (a filter: y[i..i+15] += "
                "w[j] * x[i+j..i+j+15] for each j), which needs no reordering at all",
                pragma="#pragma omp simd reduction(+:s)", flag="-fassociative-math"), *_simd_tests(f)))
    if f.reduction and not f.loop.get("pointer_chains"):
        # beside a chain of dependent loads, the sum's adds wait less than the loads do: that chain sets the pace;
        # a sum down a column goes after the walk's finding, whose interchange makes the sums independent too
        walks = any(w.get("sum") for w in f.pragmas.column_walks)
        if f.product:
            why = msg("the product is kept in one register and multiplied in order: each multiply waits for the "
                      "previous one, so a loop-carried dependency chain bounds the loop, not the memory or the FP "
                      "units")
            advice = msg("keep several partial products (4 to 8) and multiply them after the loop, or let the "
                         "compiler reassociate this loop ({pragma}, or {flag})",
                         pragma="#pragma omp simd reduction(*:p)", flag="-fassociative-math")
        else:
            why = msg("the sum is kept in one register and added in order: each add waits for the previous one, so "
                      "a loop-carried dependency chain bounds the loop, not the memory or the FP units")
            advice = msg("keep several partial sums (4 to 8) and add them after the loop, or let the compiler "
                         "reassociate this loop ({pragma}, or {flag})", pragma="#pragma omp simd reduction(+:sum)",
                         flag="-fassociative-math")
        # a sum kept in order also keeps the loop from using the core's vector lanes (narrow vectors' finding
        # leaves them to the chain's): reassociated, the partial sums can be lanes too, so its fix can reach half
        # the lanes left unused, as a sum kept in memory's can (ispc's perfbench: three float sums of points in
        # blocks of eight, scalar at 3 cycles an iteration, both the chain's latency and the ports' bound); not
        # where the loop walks memory along a path another finding names (a gather's lanes wait on their loads)
        gain = f.chain_gain() if vectors.other_walk(f) else max(f.chain_gain(), f.lanes / 2)
        out.append(finding(
            ID, gain, f.chain_evidence() + f.simd_ignored_evidence(), why, _simd_advice(f) or advice,
            *_simd_tests(f), after=("strided",) if walks else ()))
    return out


def _simd_advice(f: Facts) -> dict | None:
    """Where the source already asks for SIMD and the build ignores it: build it so that the pragma counts."""
    if not f.simd_ignored:
        return None
    return msg("build it with {flag} (flags = [\"{flag}\"] in the spec, or openmp = true): the source's {pragma} "
               "then lets the compiler split the chain across vector lanes", flag="-fopenmp-simd",
               pragma="#pragma omp simd")


def _simd_tests(f: Facts) -> tuple:
    """(experiments, test): the build that obeys the source's pragma where it is ignored, else -ffast-math."""
    if f.simd_ignored:
        return ("openmp_simd", "fast_math"), "openmp_simd"
    return ("fast_math",), None

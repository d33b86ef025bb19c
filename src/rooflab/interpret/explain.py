"""Reading the evidence about a kernel (pure: evidence in, findings and observations out).

Each finding names its evidence (numbers that were measured or read from the compiled code), a hypothesis in plain
words, what to change in the source, and the experiments rooflab can run to test it without editing the source.
Findings are ranked by the time they could save: the time at one size times (1 - 1/f), where f is the speed-up the
finding's own evidence allows, never more than the distance to the roof. A kernel at its roof gets that finding
alone; a kernel below its roof for which no rule found evidence is told so, with no advice.
"""

from __future__ import annotations

import re

from typing import Callable

from rooflab.contract import Column, Table
from rooflab.i18n import join, msg
from rooflab.model.roofline import LEVELS, next_faster
from rooflab.units import binary_bytes, pct, si

AT_ROOF = 0.8  # this share of its roof or more: at the roof
FP_LATENCY = 4  # cycles of an FP add or FMA on the cores rooflab knows (3 to 4), when no analyzer says more
MIN_PARALLEL_S = 20e-6  # a call this long or longer can gain from threads (an OpenMP fork-join costs microseconds)
LIBM = ("sqrt", "exp", "log", "sin", "cos", "tan", "pow", "atan", "erf", "cbrt", "hypot", "fmod")


def _finding(fid: str, factor: float, evidence: list, hypothesis: dict, advice: dict | None = None,
             experiments: tuple[str, ...] = ()) -> dict:
    return {"id": fid, "factor": max(1.0, float(factor)), "evidence": evidence, "hypothesis": hypothesis,
            "advice": advice, "experiments": list(experiments)}


def effective_roof(row: dict) -> dict:
    """The placement a kernel is judged by: on the roof of all CPUs when it kept several busy, else on the roof of
    the threads it was declared for; ``of_roof_hi`` from the fast end of the time's confidence interval."""
    every = row.get("all_threads")
    if every and (row.get("cpus_busy") or 0) >= 1.5:
        eff = {"of_roof": every["of_roof"], "roof_flops_per_s": every["roof_flops_per_s"], "level": every["level"],
               "threads": every["threads"]}
    else:
        eff = {"of_roof": row.get("of_roof"), "roof_flops_per_s": row.get("roof_flops_per_s"),
               "level": row.get("level"), "threads": None}
    ci = row.get("time_ci95")
    if eff["of_roof"] and ci and ci[0] > 0:
        eff["of_roof_hi"] = eff["of_roof"] * row["time_s"] / ci[0]
    return eff


def _at_roof(row: dict, eff: dict, ctx: dict) -> bool:
    """At its roof: within a fifth of it (at the fast end of the interval, where the time is noisy), or within a
    fifth of the reference alternated with it (rooflab's bandwidth kernel at DRAM; bound by compute, the machine's
    BLAS GEMM on the same threads: what the best real code reaches at that moment). Without that GEMM, as fast as
    the BLAS GEMM stored with the roofline."""
    live = row.get("reference") or {}
    top = max(eff.get("of_roof") or 0, eff.get("of_roof_hi") or 0, (live.get("ci95") or [0, 0])[1])
    if top >= AT_ROOF:
        return True
    if live.get("kind") == "blas_gemm" and live.get("ratio"):
        return False  # the GEMM measured alongside it says more than one stored at another moment
    blas = _blas(ctx.get("roofs_used"))
    fast = row["flops_per_s"] * row["time_s"] / row["time_ci95"][0] if row.get("time_ci95") else row["flops_per_s"]
    return bool(row.get("bound") == "compute" and blas and fast >= 0.95 * blas)


def _blas(roofs: dict | None) -> float | None:
    """The BLAS GEMM rate among the compute roofs (what the best real code reaches), if measured."""
    return next((c["value"] for c in (roofs or {}).get("compute", []) if c.get("klass") == "blas_gemm"), None)


def _reference_evidence(live: dict) -> dict:
    if live["kind"] == "blas_gemm":
        return msg("alternated with this machine's BLAS GEMM (n={size}) on {t} thread(s), as many as it kept busy: "
                   "{r:.2f}x its FLOP rate (95% CI {lo:.2f}–{hi:.2f}x over {n} rounds, while it reached {ref})",
                   size=live["n"], t=live.get("threads", 1),
                   r=live["ratio"], lo=live["ci95"][0], hi=live["ci95"][1], n=live["rounds"],
                   ref=si(live["reference_flops_per_s"], "FLOP/s"))
    return msg("alternated with rooflab's {kind} kernel over as many bytes of arrays on {t} thread(s), as many as it "
               "kept busy: {r:.2f}x its bandwidth (95% CI {lo:.2f}–{hi:.2f}x over {n} rounds, while it reached {ref})",
               kind=live["kind"], t=live.get("threads", 1), r=live["ratio"], lo=live["ci95"][0], hi=live["ci95"][1], n=live["rounds"],
               ref=si(live["reference_bytes_per_s"], "B/s"))


def _roof_words(row: dict, eff: dict) -> dict:
    if eff.get("live"):
        return eff["live"]
    if row.get("bound") == "memory":
        return msg("the {level} bandwidth roof", level=eff["level"] or row.get("level"))
    return msg("the compute roof")


def _chain_evidence(code: dict, row: dict) -> list:
    loop = code.get("loop") or {}
    ev = [msg("the hot loop keeps {n} accumulator(s); the longest takes {k} dependent {op} per iteration",
              n=loop.get("accumulators"), k=loop.get("longest_chain"), op=loop.get("chain_op") or "add")]
    if row.get("cycles_per_iteration"):
        ev.append(msg("measured {c:.1f} cycles per iteration of the hot loop", c=row["cycles_per_iteration"]))
    ev += _prediction_evidence(code, row)
    return ev


def _prediction_evidence(code: dict, row: dict) -> list:
    pred = code.get("prediction") or {}
    if pred.get("cycles_per_iteration"):
        return [msg("{tool} ({model}) predicts {c:.1f} cycles per iteration, {dep} of them waiting on register "
                    "dependencies; the execution ports alone would allow {r:.1f}", tool=pred["tool"],
                    model=pred["model"], c=pred["cycles_per_iteration"], dep=pct(pred.get("dependency_share")),
                    r=pred.get("block_rthroughput") or 0.0)]
    sib = code.get("sibling") or {}
    if sib.get("cycles_per_iteration"):
        return [msg("for the same loop built without AVX-512 (which {tool} can read), it predicts {c:.1f} cycles per "
                    "iteration and {m:.1f} were measured; the ports alone would allow {r:.1f}", tool=sib["tool"],
                    c=sib["cycles_per_iteration"], m=sib.get("measured_cycles_per_iteration") or 0.0,
                    r=sib.get("block_rthroughput") or 0.0)]
    if pred.get("error"):
        return [msg("no in-core prediction: {why}", why=pred["error"])]
    return []


def _chain_factor(code: dict, loop: dict) -> float:
    """How much faster the loop could run without its chain: the analyzer's cycles over its port bound, else the
    chain's latency over one cycle per FP op."""
    for pred in (code.get("prediction") or {}, code.get("sibling") or {}):
        if pred.get("cycles_per_iteration") and pred.get("block_rthroughput"):
            return pred["cycles_per_iteration"] / pred["block_rthroughput"]
    fp = (loop.get("scalar_fp") or 0) + (loop.get("vector_fp") or 0)
    return loop.get("longest_chain", 1) * FP_LATENCY / max(1, fp)


def diagnose(code: dict, row: dict, ctx: dict) -> list[dict]:
    """The findings about one kernel at one size, most time to save first. ``code``: code_evidence; ``row``: the
    measured size; ``ctx``: cpus (usable), threads (declared), isa_vector_bits, profile, openmp."""
    if row.get("error") or not row.get("time_s"):
        return []
    loop = code.get("loop") or {}
    eff = effective_roof(row)
    of_roof = eff.get("of_roof")
    every = row.get("all_threads") or {}
    busy = row.get("cpus_busy")
    cpus = ctx.get("cpus") or 1
    # (a call shorter than a few fork-joins of a thread team gains nothing from threads)
    alone = (cpus >= 2 and busy is not None and busy < 1.5 and every and every.get("of_roof", 1) < AT_ROOF
             and row["time_s"] >= MIN_PARALLEL_S)
    roofs_used = ctx.get("roofs_all") if eff.get("threads") else ctx.get("roofs")
    if of_roof is not None and _at_roof(row, eff, {**ctx, "roofs_used": roofs_used}) and not alone:
        ws = _working_set(row, ctx)
        if ws is not None:  # at the roof of a level its data could be kept above
            return _ranked(row, eff, [ws])
        live = row.get("reference") or {}
        if live.get("ratio") and (live["ci95"][1] >= AT_ROOF or live["ratio"] > of_roof):
            of_roof = live["ratio"]  # the same moment's bandwidth says more than a stored roof
            eff = {**eff, "live": msg("the rate of this machine's BLAS GEMM measured alongside it")
                   if live["kind"] == "blas_gemm" else msg("the bandwidth of rooflab's {kind} kernel measured "
                                                           "alongside it", kind=live["kind"])}
        if row.get("bound") == "memory":
            words = msg("at {frac} of {roof}: nothing left to gain in this kernel; reduce its traffic instead "
                        "(fewer passes over the data, narrower types, blocking that keeps data in a faster level)",
                        frac=pct(of_roof), roof=_roof_words(row, eff))
        else:
            words = msg("at {frac} of {roof}, as fast as the best real code gets there: nothing left to gain in this "
                        "kernel; only fewer operations would make it faster", frac=pct(of_roof),
                        roof=_roof_words(row, eff))
        ev = [msg("{rate} against a roof of {roof} at its working set ({ws} in {level})",
                  rate=si(row["flops_per_s"], "FLOP/s"), roof=si(eff["roof_flops_per_s"], "FLOP/s"),
                  ws=binary_bytes(row["working_set_bytes"]), level=eff["level"])]
        if live.get("ratio"):
            ev.append(_reference_evidence(live))
        blas = _blas(roofs_used)
        if row.get("bound") == "compute" and blas and live.get("kind") != "blas_gemm":
            ev.append(msg("this machine's BLAS GEMM reaches {blas} on the same threads", blas=si(blas, "FLOP/s")))
        return _ranked(row, eff, [_finding("at_roof", 1.0, ev, words)])
    out = []
    # threads: one CPU busy of several, far below what all of them allow
    if alone:
        ev = [msg("it kept {busy:.1f} of the {cpus} CPUs busy while timed (its CPU time over the wall time)",
                  busy=busy, cpus=cpus),
              msg("on all {cpus} CPUs the roof is {roof}; it reaches {frac} of that",
                  cpus=cpus, roof=si(every["roof_flops_per_s"], "FLOP/s"), frac=pct(every["of_roof"]))]
        exps = ()
        if code.get("pragmas", {}).get("omp") and not ctx.get("openmp"):
            ev.append(msg("its source has `{pragma}` but the spec builds it without OpenMP", pragma="#pragma omp parallel"))
            advice = msg("build it with OpenMP (openmp = true in the spec, and threads = {cpus} to place it on the "
                         "roof of all CPUs)", cpus=cpus)
            exps = ("openmp",)
        else:
            advice = msg("split the outer loop between threads ({pragma}, {flag} in the spec)", pragma="#pragma omp parallel for",
                         flag="openmp = true")
        out.append(_finding("single_thread", min(cpus / max(busy, 1.0), 1 / every["of_roof"]), ev,
                            msg("one thread does all the work while {idle} CPU(s) wait", idle=cpus - 1), advice,
                            exps))
    vb, isa_vb = loop.get("vector_bits") or 0, code.get("isa_vector_bits") or 0
    causes = code.get("causes") or []
    chain = loop.get("longest_chain") or 0
    # a sum carried from one iteration to the next in scalar adds: in source order, each add waits for the last
    reduction = chain >= 1 and "add" in (loop.get("chain_op") or "") and (loop.get("scalar_fp") or 0) >= chain
    reduction = reduction or (vb == 0 and loop.get("accumulators") and "reduction" in causes)
    # a running sum stored at every element is a scan (a prefix sum), not a reduction: partial sums do not split it
    scan = chain >= 1 and bool(loop.get("stored_chain")) and (loop.get("chain_op") or "") == "add"
    reduction = reduction and not scan
    in_memory = bool(loop.get("memory_chains")) and vb == 0 and not reduction and not scan
    if in_memory:
        # the running value lives in memory (the compiler could not keep it in a register: another pointer may
        # alias it): each iteration's load waits for the previous iteration's store
        ev = [msg("the hot loop loads {n} value(s) from one address, updates and stores them back there on every "
                  "iteration: a running value kept in memory, each load waiting for the previous store",
                  n=loop["memory_chains"])]
        if row.get("cycles_per_iteration"):
            ev.append(msg("measured {c:.1f} cycles per iteration of the hot loop", c=row["cycles_per_iteration"]))
        ev += _cause_remarks(code, "aliasing")
        out.append(_finding(
            "reduction_chain", max(_chain_factor(code, loop), _lanes(isa_vb, vb, loop) / 2), ev,
            msg("a sum or update is carried from one iteration to the next through memory, in order: the compiler "
                "keeps it in memory because the pointers may overlap, so the loop runs at the latency of a "
                "store, a load and an add, and stays scalar"),
            msg("accumulate in a local variable (double acc = q[i]; ... q[i] = acc;) with several partial sums, "
                "declare the pointers restrict, or split the loop so that the sum is a loop of its own"),
            ("restrict", "fast_math")))
        out[-1]["test"] = "restrict"
    if reduction:
        out.append(_finding(
            "reduction_chain", _chain_factor(code, loop), _chain_evidence(code, row),
            msg("the sum is kept in one register and added in order: each add waits for the previous one, so a "
                "loop-carried dependency chain bounds the loop, not the memory or the FP units"),
            msg("keep several partial sums (4 to 8) and add them after the loop, or let the compiler reassociate "
                "this loop ({pragma}, or {flag})", pragma="#pragma omp simd reduction(+:sum)",
                flag="-fassociative-math"), ("fast_math",)))
    pred = code.get("prediction") or code.get("sibling") or {}
    dep_bound = (pred.get("bound") == "dependencies" and (pred.get("dependency_share") or 0) >= 0.5 and
                 pred.get("block_rthroughput") and pred["cycles_per_iteration"] >= 1.5 * pred["block_rthroughput"])
    if scan:
        out.append(_finding(
            "dependency_chain", _chain_factor(code, loop),
            _chain_evidence(code, row) + [msg("the running value is stored at every element: a scan (prefix sum)")],
            msg("each element's value is the previous one's plus this one: the loop runs at the latency of that "
                "chain, and a scan cannot be split into partial sums as a reduction can"),
            msg("scan in blocks: the prefix of each block on its own (independent chains: in SIMD lanes or on "
                "threads), then a second pass adds each block's offset; unrolling alone does not shorten the chain"),
            ("unroll",)))
    elif not reduction and (dep_bound or (chain >= 1 and "fma" in (loop.get("chain_op") or "") and vb == 0)):
        out.append(_finding(
            "dependency_chain", _chain_factor(code, loop), _chain_evidence(code, row),
            msg("each iteration waits for the result of the previous one: the loop runs at the latency of its "
                "dependency chain"),
            msg("work on several independent chains at once (interleave independent problems, or restructure the "
                "recurrence, e.g. by recursive doubling); unrolling alone does not shorten a chain"), ("unroll",)))
    # vectorization
    if loop.get("flops") and isa_vb and vb < isa_vb and not reduction and not scan and not in_memory:
        lanes = isa_vb / max(vb, loop.get("element_bits") or 64)
        remark = next((r["text"] for r in code.get("remarks") or [] if r["kind"] == "missed"), None)
        ev = [msg("the hot loop uses {width}; this ISA has {isa}-bit vectors",
                  width=msg("{bits}-bit vectors", bits=vb) if vb else msg("scalar code only"), isa=isa_vb)]
        if remark:
            ev.append(msg("the compiler says: {said}", said=remark))
        if "aliasing" in causes:
            out.append(_finding("aliasing", lanes, ev + _cause_remarks(code, "aliasing"),
                                msg("the compiler cannot prove that the arrays do not overlap, so it keeps the loop "
                                    "scalar (or checks at run time)"),
                                msg("declare the pointer parameters restrict (double *restrict y) when the arrays "
                                    "never overlap"), ("restrict",)))
        elif "call" in causes or loop.get("calls") or errno_calls(code):
            pass  # the call finding below says why
        elif "stride" in causes and (excess_traffic(row) or 0) >= EXCESS:
            pass  # the access pattern keeps it scalar, and the traffic shows it: the strided finding says so
        elif vb == 0 and (loop.get("int_div") or _control_flow(code, loop, isa_vb, vb, causes)):
            pass  # the division or the branch keeps it scalar: their findings below say so
        else:
            flags = code.get("build", {}).get("flags") or []
            scalar_build = vb == 0 and any(f in flags for f in ("-O0", "-O1", "-O2", "-fno-tree-vectorize",
                                                                 "-fno-vectorize"))
            narrow = ctx.get("profile") == "portable" or not any(f.startswith(("-march", "-mcpu")) for f in flags)
            exps = ("vectorize",) if scalar_build else ("native",) if narrow else ()
            ev.append(msg("built with: {flags}", flags=" ".join(f for f in flags if not f.startswith("-I"))))
            out.append(_finding(
                "scalar_build" if scalar_build else "narrow_vectors", lanes, ev,
                msg("the build does not let the compiler vectorize this loop") if scalar_build else
                msg("the loop runs on narrower vectors than the core has"),
                msg("build with -O3 (which vectorizes) and -march=native, or profile = 'native' in the spec")
                if scalar_build or narrow else None, exps))
    traffic = row.get("traffic") or {}
    excess = excess_traffic(row)
    counted_clean = excess is not None and excess < EXCESS
    reuse = _reuse(code, row, ctx, excess) if row.get("bound") == "compute" else None
    if reuse is not None:
        out.append(reuse)
    elif ((excess or 0) >= EXCESS or loop.get("gathers")
          or ("stride" in causes and vb < isa_vb and not counted_clean)):
        ev = []
        if (excess or 0) >= EXCESS:
            ev.append(_traffic_evidence(traffic, excess))
        if loop.get("gathers"):
            ev.append(msg("the hot loop gathers: {n} gather instruction(s) per iteration", n=loop["gathers"]))
        ev += _cause_remarks(code, "stride")
        out.append(_finding(
            "strided", max(excess or 0, 2.0 if loop.get("gathers") else 1.5), ev,
            msg("strided or column-wise access: each cache line brought in is used for only part of its bytes"),
            msg("make the inner loop walk memory contiguously (interchange the loops, or store the matrix "
                "transposed), or block the loops so that each line is reused before it is evicted")))
    ratio = excess or 0
    ws = _working_set(row, ctx)
    if ws is not None and ratio < EXCESS:
        out.append(ws)
    errno = errno_calls(code)
    if errno and not loop.get("calls"):
        # gcc keeps the library call on a cold path (for a negative input, to set errno): the hot loop shows the
        # instruction, but the call's possible side effect still keeps the loop scalar
        names = ", ".join(errno)
        lanes = isa_vb / max(vb, loop.get("element_bits") or 64) if isa_vb and vb < isa_vb else 2.0
        out.append(_finding(
            "calls", lanes, [msg("the compiler keeps a call to {names} in the loop, for the inputs where it must set "
                                 "errno", names=names)] + _errno_remarks(code),
            msg("{names} may set errno: the compiler keeps a branch to the library call in the loop, and a call "
                "that may write memory keeps the loop from vectorizing", names=names),
            msg("build with -fno-math-errno (the C library's errno is not read after the loop), or test the input "
                "before the loop"), ("no_math_errno",)))
    if loop.get("calls"):
        names = ", ".join(dict.fromkeys(loop["calls"]))
        libm = any(c.rstrip("f").lower() in LIBM for c in loop["calls"])
        out.append(_finding(
            "calls", 2.0, [msg("the hot loop calls {names}", names=names)] + _cause_remarks(code, "call"),
            msg("a function call in the loop: it blocks vectorization and costs a call per iteration"),
            msg("let the compiler use the instruction instead of the library call (-fno-math-errno for sqrt), or "
                "move the call out of the loop") if libm else msg("inline the called function or move the call "
                                                                   "out of the loop"),
            ("no_math_errno",) if libm else ()))
    out += _int_div(loop, row, isa_vb, vb)
    out += _control_flow(code, loop, isa_vb, vb, causes)
    out += _conversions(code, loop)
    if loop.get("spills"):
        out.append(_finding(
            "spills", 1 + loop["spills"] / max(1, (code.get("audit") or {}).get("loads", 0) +
                                                 (code.get("audit") or {}).get("stores", 0)),
            [msg("the hot loop stores and reloads {n} value(s) from the stack per iteration", n=loop["spills"])],
            msg("the loop keeps more values live than there are registers"),
            msg("use fewer accumulators or a smaller unroll, so that every value stays in a register")))
    if loop.get("div_sqrt") and row.get("bound") == "compute":
        out.append(_finding(
            "div_sqrt", 2.0, [msg("{n} division(s) or square root(s) per iteration of the hot loop",
                                  n=loop["div_sqrt"])],
            msg("divisions and square roots take many cycles and issue rarely"),
            msg("multiply by a reciprocal computed once outside the loop where the divisor does not change")))
    if not out:
        checked = [msg("checked: the hot loop ({width}, {acc} accumulator(s)), the compiler's remarks, the CPUs in "
                       "use, the working set against the caches{traffic}", width=msg("{bits}-bit vectors", bits=vb)
                       if vb else msg("scalar code only"), acc=loop.get("accumulators", 0),
                       traffic=msg(", the traffic against the model") if traffic.get("method") else "")]
        if (row.get("reference") or {}).get("ratio"):
            checked.append(_reference_evidence(row["reference"]))
        out.append(_finding("unexplained", 1.0, [msg("at {frac} of its roof", frac=pct(of_roof))] + checked
                            if of_roof else checked,
                            msg("below its roof, and none of rooflab's rules found why: no advice without evidence")))
    return _ranked(row, eff, out)


# the experiment that tests each finding directly: when it makes no difference, the finding is refuted
TESTS = {"aliasing": "restrict", "reduction_chain": "fast_math", "single_thread": "openmp",
         "scalar_build": "vectorize", "narrow_vectors": "native", "working_set": "smaller", "calls": "no_math_errno",
         "reuse": "blocked", "conversions": "single_constants"}


def weigh(findings: list[dict], experiments: list[dict]) -> list[dict]:
    """The findings once their experiments were run: one whose direct test made it faster is ``confirmed`` (with
    the measured speed-up); one whose test excluded any gain (the fast end of its interval under the threshold) is
    ``refuted``: it can save nothing and goes last. A test whose interval still allows a gain refutes nothing (a
    noisy moment, another tenant on the CPUs), nor does one during which others kept CPUs busy (other processes, the
    host's steal): the finding is marked ``inconclusive``, and can save no more than the fast end of its test's
    interval allows (a disturbed test bounds nothing). Nor does a rebuild that left the hot loop as it was (the
    same vector width, FMAs, adds, loads and stores: -ffast-math on a loop the compiler still cannot vectorize): it
    is inconclusive, never a refutation, and like any test that saw no gain it bounds what the finding can claim."""
    by_id = {e["id"]: e for e in experiments if not e.get("error")}
    for f in findings:
        # the experiment that tests it directly: its own where it names one (a chain kept in memory: restrict),
        # else the usual test of its kind (unrolling beside a dependency chain is a control, not a test)
        e = by_id.get(f.get("test") or TESTS.get(f["id"], ""))
        if e is None:
            continue
        if e["verdict"] == "faster":
            f["confirmed"] = {"experiment": e["id"], "speedup": e["speedup"]}
        elif e.get("loop_unchanged"):  # the build left the hot loop as it was: it tested nothing, refutes nothing
            f["inconclusive"] = {"experiment": e["id"], "speedup_ci95": e["speedup_ci95"], "loop_unchanged": True}
            if not e.get("disturbed_cores") and e.get("a_time_s"):  # but no gain was seen: it claims no more
                f["saving_s"] = min(f["saving_s"], e["a_time_s"] * max(0.0, 1 - 1 / e["speedup_ci95"][1]))
        elif e["speedup_ci95"][1] > 1 + e["threshold"] or e.get("disturbed_cores"):
            f["inconclusive"] = {"experiment": e["id"], "speedup_ci95": e["speedup_ci95"]}
            if not e.get("disturbed_cores") and e.get("a_time_s"):  # the most its test allows: the interval's end
                f["saving_s"] = min(f["saving_s"], e["a_time_s"] * max(0.0, 1 - 1 / e["speedup_ci95"][1]))
        else:
            f["refuted"] = {"experiment": e["id"], "verdict": e["verdict"], "speedup": e["speedup"]}
            f["saving_s"] = 0.0
    return sorted(findings, key=lambda f: (bool(f.get("refuted")), -f["saving_s"]))


def faster_level(row: dict, roofs: dict) -> tuple[str, float] | None:
    """The memory level just faster than the one holding the working set (among those with a roof), with its
    capacity; None at the fastest level or where the capacity is unknown."""
    faster = next_faster(row.get("level"), [lv for lv in LEVELS if lv in {m["level"] for m in roofs.get("memory", [])}])
    if faster is None:
        return None
    cap = (row.get("caches") or {}).get(faster)
    return (faster, cap) if cap else None


def _working_set(row: dict, ctx: dict) -> dict | None:
    """A memory-bound kernel that reads its data more than once per call (the model counts at least twice the bytes
    of its arrays) from a level slower than one its data could be blocked for."""
    level = row.get("level")
    mem = {m["level"]: m["value"] for m in (ctx.get("roofs") or {}).get("memory", [])}
    reuse = row["bytes"] / row["working_set_bytes"] if row.get("working_set_bytes") else 0
    up = faster_level(row, ctx.get("roofs") or {})
    if row.get("bound") != "memory" or up is None or reuse < 2:
        return None
    faster, cap = up
    gain = mem[faster] / mem[level] if mem[level] else 1.0
    if gain < 1.3 or (row.get("of_roof") or 0) < 0.4:
        return None
    return _finding(
        "working_set", gain / min(1.0, row["of_roof"]),  # from where it runs to the faster level's roof
        [msg("its working set ({ws}) lives in {level}; {faster} holds {cap}", ws=binary_bytes(row["working_set_bytes"]),
             level=level, faster=faster, cap=binary_bytes(cap)),
         msg("each call moves {r:.0f}x its working set (the model's bytes over the arrays' size): the same data is "
             "read again and again", r=reuse),
         msg("the {level} roof is {bw}, the {faster} roof {bw2} ({g:.1f}x)", level=level, bw=si(mem[level], "B/s"),
             faster=faster, bw2=si(mem[faster], "B/s"), g=gain)],
        msg("the data does not fit {faster}: every pass streams it from {level}", faster=faster, level=level),
        msg("block the computation so that each block's data (under {cap}) is reused while it is in {faster}",
            cap=binary_bytes(cap), faster=faster), ("smaller",))


INT_DIV_CYCLES = 12  # a 64-bit integer division on the cores rooflab knows: about 10 to 18 cycles, not pipelined


def _lanes(isa_vb: int, vb: int, loop: dict) -> float:
    return isa_vb / max(vb, loop.get("element_bits") or 64) if isa_vb and vb < isa_vb else 1.0


def _int_div(loop: dict, row: dict, isa_vb: int, vb: int) -> list[dict]:
    """Integer division or modulo in the hot loop: slow, unpipelined, and never vectorized on x86."""
    n = loop.get("int_div") or 0
    if not n:
        return []
    cyc = row.get("cycles_per_iteration")
    ev = [msg("the hot loop runs {n} integer division(s) per iteration (div/idiv: about {c} cycles each, one at a "
              "time)", n=n, c=INT_DIV_CYCLES)]
    factor = _lanes(isa_vb, vb, loop) if vb == 0 else 1.0
    if cyc:
        ev.append(msg("measured {c:.1f} cycles per iteration of the hot loop", c=cyc))
        share = min(cyc * 0.9, INT_DIV_CYCLES * n)
        factor = max(factor, cyc / (cyc - share))
    return [_finding(
        "int_div", factor, ev,
        msg("an integer division or modulo in the loop (an index wrapped with %, a division by a variable) takes "
            "many cycles, does not pipeline, and keeps the loop from vectorizing"),
        msg("move it out of the loop: keep a counter that wraps instead of i % m, multiply by a reciprocal or shift "
            "for a power of two, or make the divisor a compile-time constant (the compiler then multiplies)"))]


def _control_flow(code: dict, loop: dict, isa_vb: int, vb: int, causes: list) -> list[dict]:
    """A branch the compiler could not turn into a select keeps the loop scalar (and mispredicts on data it cannot
    predict)."""
    if not loop.get("branches") or vb >= isa_vb or errno_calls(code) or loop.get("calls"):
        return []
    # the compiler names the branch, or says nothing else that would keep this scalar loop scalar
    if "control_flow" not in causes and (vb or {"aliasing", "call", "stride", "reduction"} & set(causes)):
        return []
    ev = [msg("the hot loop has {n} conditional branch(es) besides the one that closes it, and {width}",
              n=loop["branches"], width=msg("runs on {bits}-bit vectors", bits=vb) if vb else msg("is scalar"))]
    ev += _cause_remarks(code, "control_flow")
    return [_finding(
        "control_flow", _lanes(isa_vb, vb, loop), ev,
        msg("control flow in the loop body: the compiler could not if-convert the branch, so the loop stays scalar, "
            "and a data-dependent branch costs a misprediction each time the data changes direction"),
        msg("compute both sides and select (x = c ? a : b, with no store or call inside the condition), move a "
            "test that does not change out of the loop, or sort the data so that the branch is predictable"))]


def _conversions(code: dict, loop: dict) -> list[dict]:
    """float <-> double conversions in the hot loop: a double constant or function in a float loop."""
    n = loop.get("conversions") or 0
    if not n:
        return []
    return [_finding(
        "conversions", 2.0, [msg("the hot loop converts between float and double {n} time(s) per iteration", n=n)],
        msg("a double constant (0.1 rather than 0.1f) or a double function (sqrt rather than sqrtf) in a float loop: "
            "each element is widened to double and narrowed back, and the vectors hold half as many elements"),
        msg("write float constants with an f suffix (0.1f) and call the float functions (sqrtf, expf), or build "
            "with -fsingle-precision-constant"), ("single_constants",))]


EXCESS = 2.0  # traffic out of the level holding the data this many times the model: lines or operands fetched again


def excess_traffic(row: dict) -> float | None:
    """The traffic out of the level that holds the working set over the spec's byte model (1: each byte the model
    counts came from there once); None when it was not counted. Extra traffic between faster levels (rows of a
    stencil, a vector re-read from L2 for each row of a matrix) is reuse, not excess."""
    t = row.get("traffic") or {}
    if t.get("holding_ratio") is not None:
        return t["holding_ratio"]
    if row.get("level") == "L2" and t.get("l1_ratio") is not None:
        return t["l1_ratio"]
    if row.get("level") == "DRAM" and t.get("dram_ratio") is not None:
        return t["dram_ratio"]
    return None


def _traffic_evidence(t: dict, excess: float) -> dict:
    held = t.get("holding_level") or "?"
    ev = msg("{method}: the traffic out of {level}, where the working set lives, is {r:.1f}x the bytes the model "
             "counts ({got} per call against {model})", method=t["method"], level=held, r=excess,
             got=binary_bytes(excess * t["model_bytes"]), model=binary_bytes(t["model_bytes"]))
    if t.get("reduced"):
        ev = join([ev, msg(" — {why}", why=t["reduced"])], "")
    return ev


def tile_sizes(row: dict, elem_bytes: int) -> dict[str, int]:
    """Per cache level, the side b of square tiles whose three operand blocks (b x b elements each) fill about
    half the level, rounded down to a multiple of 8."""
    out = {}
    for level, cap in (row.get("caches") or {}).items():
        b = int((cap / 2 / (3 * elem_bytes)) ** 0.5) // 8 * 8
        if b >= 8:
            out[level] = b
    return out


def _reuse(code: dict, row: dict, ctx: dict, excess: float | None) -> dict | None:
    """Missing reuse: enough work per byte for the compute roof (the spec's own counts), yet far below the FLOP
    rate the machine's BLAS reaches, and operands fetched again and again from the level holding them."""
    if excess is None or excess < EXCESS:
        return None
    t = row["traffic"]
    live = row.get("reference") or {}
    ref_ratio = live.get("ratio") if live.get("kind") == "blas_gemm" else None
    if ref_ratio is not None and ref_ratio >= 0.6:
        return None
    flops = t.get("flops") or row["flops"]
    elem = 4 if ctx.get("precision") == "fp32" else 8
    tiles = tile_sizes(row, elem)
    ev = [_traffic_evidence(t, excess),
          msg("bytes per FLOP: {model:.3g} in the model; {held:.3g} out of {level}{l1}", model=t["model_bytes"] / flops,
              held=excess * t["model_bytes"] / flops, level=t.get("holding_level") or "?",
              l1=msg("; {b:.3g} into L1", b=t["l1_bytes"] / flops) if t.get("l1_bytes") else "")]
    if ref_ratio is not None:
        ev.append(_reference_evidence(live))
    if tiles:
        ev.append(msg("tiles that would fit: {tiles} (three b x b blocks of {e}-byte elements in half the level)",
                      tiles=", ".join(f"b ≈ {b} for {lv}" for lv, b in tiles.items()), e=elem))
    factor = 1 / ref_ratio if ref_ratio else min(excess, 1 / max(row.get("of_roof") or 1.0, 1e-9))
    return _finding(
        "reuse", factor, ev,
        msg("it does enough work per byte to be bound by compute, but each operand is fetched again from {level} "
            "for every use instead of being reused while it is in a faster cache", level=t.get("holding_level") or "?"),
        msg("block (tile) the loops so that each tile of the operands is reused while it is in cache (see the tile "
            "sizes above), with the innermost loop walking memory contiguously; a tuned library (BLAS) does this "
            "for a matrix product"), ("blocked",) if ctx.get("gemm_like") else ())


_CLOBBER = re.compile(r"clobbers memory:.*?=\s*(?:__builtin_)?(\w+)\s*\(")


def errno_calls(code: dict) -> list[str]:
    """The libm functions the compiler's remarks name as calls that may write memory in this loop (gcc: "statement
    clobbers memory: _18 = sqrt (_4);"): errno kept them."""
    out = []
    for r in code.get("remarks") or []:
        m = _CLOBBER.search(r.get("text", ""))
        if m and m.group(1).rstrip("f").lower() in LIBM and m.group(1) not in out:
            out.append(m.group(1))
    return out


def _errno_remarks(code: dict) -> list:
    return _remarks_matching(code, _CLOBBER)


def _cause_remarks(code: dict, cause: str) -> list:
    from rooflab.toolchain.remarks import CAUSES  # (the same patterns that named the cause)

    return _remarks_matching(code, dict(CAUSES)[cause])


def _remarks_matching(code: dict, pat: re.Pattern) -> list:
    """The compiler's first two remarks that ``pat`` finds, as evidence."""
    return [msg("the compiler says (line {line}): {said}", line=r["line"], said=r["text"])
            for r in (code.get("remarks") or []) if pat.search(r.get("text", ""))][:2]


def _ranked(row: dict, eff: dict, findings: list) -> list[dict]:
    """Each finding's possible saving (its speed-up, capped by the distance to the roof), most first."""
    t = row["time_s"]
    gap = 1 / eff["of_roof"] if eff.get("of_roof") else None
    every = row.get("all_threads") or {}
    for f in findings:
        cap = 1 / every["of_roof"] if f["id"] == "single_thread" and every.get("of_roof") else gap
        if f["id"] == "working_set":
            cap = None  # its roof is the faster level's: its factor says how far that is
        g = min(f["factor"], cap) if cap else f["factor"]
        f["saving_s"] = t * (1 - 1 / g) if g > 1 else 0.0
    return sorted(findings, key=lambda f: -f["saving_s"])


# ------------------------------------------------------------------------------------------------ observations

FINDING_WORDS = {
    "at_roof": lambda: msg("at its roof"), "single_thread": lambda: msg("one thread on several CPUs"),
    "reduction_chain": lambda: msg("an in-order reduction"), "dependency_chain": lambda: msg("a dependency chain"),
    "aliasing": lambda: msg("possible aliasing"), "scalar_build": lambda: msg("a build that does not vectorize"),
    "narrow_vectors": lambda: msg("narrow vectors"), "strided": lambda: msg("strided access"),
    "working_set": lambda: msg("a working set past a cache level"), "calls": lambda: msg("calls in the loop"),
    "spills": lambda: msg("register spills"), "div_sqrt": lambda: msg("divisions"),
    "reuse": lambda: msg("missing reuse (blocking)"), "int_div": lambda: msg("integer division"),
    "control_flow": lambda: msg("control flow in the loop"), "conversions": lambda: msg("float/double conversions"),
    "unexplained": lambda: msg("no finding"),
}


def finding_word(fid: str):
    f = FINDING_WORDS.get(fid)
    return f() if f else fid


def experiment_sentence(e: dict) -> dict:
    """One experiment's outcome as a sentence: the verdict with its interval, or why there is none."""
    if e.get("error_kind") == "wrong":
        return msg("{what}: its result is wrong (relative error {err:.2g} above the tolerance): the change is not "
                   "safe for this kernel as it stands", what=e["what"], err=e.get("rel_error") or 0.0)
    if e.get("error"):
        return msg("{what}: not measured — {error}", what=e.get("what") or e["id"], error=e["error"])
    if e["verdict"] == "faster":
        head = msg("{s:.2f}x faster", s=e["speedup"])
    elif e["verdict"] == "slower":
        head = msg("{s:.2f}x slower", s=1 / e["speedup"])
    else:
        head = msg("no difference")
    rel = e.get("rel_error")
    err = msg(", relative error {err:.2g}", err=rel) if rel is not None else ""
    if e.get("disturbed_cores"):
        err = join([err, msg("; others (processes, the host's steal) used {cores:.2f} core(s) meanwhile, so it "
                             "refutes nothing", cores=e["disturbed_cores"])], "")
    if e.get("loop_unchanged") and e["verdict"] != "faster":
        err = join([err, msg("; the build left the hot loop as it was (the same vector width, FMAs, adds, loads and "
                             "stores), so it tests nothing")], "")
    return msg("{what}: {head} (95% CI {lo:.2f}–{hi:.2f}x over {n} paired rounds; differences under {th:.0%} are not "
               "called){err}", what=e["what"], head=head, lo=e["speedup_ci95"][0], hi=e["speedup_ci95"][1],
               n=e["rounds"], th=e["threshold"], err=err)


def explain_observations(doc: dict) -> list[dict]:
    """The load caveat, then per kernel and size the leading finding and what each experiment measured."""
    from rooflab.interpret.common import load_caveat

    return load_caveat(doc) + kernel_observations(doc.get("kernels") or [])


def kernel_observations(kernels: list[dict]) -> list[dict]:
    """Per kernel and size: the leading finding with its hypothesis, and what each experiment measured."""
    out = []
    for k in kernels:
        if k.get("error"):
            out.append(msg("{name}: not explained — {error}", name=k["name"], error=k["error"]))
            continue
        for r in k["sizes"]:
            where = r["label"]
            if r.get("error"):
                out.append(msg("{where}: not measured — {error}", where=where, error=r["error"]))
                continue
            fs = r.get("findings") or []
            if not fs:
                continue
            top = fs[0]
            if top.get("refuted"):
                out.append(msg("{where}: below its roof; the experiments refuted every finding rooflab had evidence "
                               "for.", where=where))
                continue
            saving = (msg(" (up to {t} of its {total} per call)", t=_seconds(top["saving_s"]),
                          total=_seconds(r["time_s"])) if top.get("saving_s") else "")
            out.append(msg("{where}: {what}{saving} — {hypothesis}.", where=where, what=finding_word(top["id"]),
                           saving=saving, hypothesis=top["hypothesis"]))
            for e in r.get("experiments") or []:
                out.append(msg("{where}: {sentence}.", where=where, sentence=experiment_sentence(e)))
    return out


def _seconds(s: float) -> str:
    from rooflab.units import seconds

    return seconds(s)


# ------------------------------------------------------------------------------------------------------ tables

def explain_tables(kernels_of: Callable[[dict], list | None], prefix: str = "explain") -> tuple[Table, ...]:
    """The tables of explained kernels (measured, findings, experiments), read from ``kernels_of(doc)``: the
    document's own kernels for `explain`, its ``explain`` part for `bench --explain`."""
    def groups(key: str):
        def rows(doc: dict) -> list[tuple[str, dict, list[dict]]]:
            out = []
            for k in kernels_of(doc) or []:
                for r in k.get("sizes") or []:
                    items = [{**x, "rank": i + 1, "where": r["label"]} for i, x in enumerate(r.get(key) or [])]
                    if items:
                        out.append((f"{k['name']}_{'_'.join(f'{a}{b}' for a, b in r['size'].items())}",
                                    {"where": r["label"]}, items))
            return out
        return rows

    def measured(doc: dict) -> list[dict]:
        rows = []
        for k in kernels_of(doc) or []:
            pred = ((k.get("code") or {}).get("prediction") or {}).get("cycles_per_iteration")
            for r in k.get("sizes") or []:
                rows.append({**r, "predicted_cycles_per_iteration": pred,
                             "l1_ratio": excess_traffic(r),
                             "of_roof_all": (r.get("all_threads") or {}).get("of_roof")})
        return rows

    return (
        Table(f"{prefix}_measured", "Measured, per kernel and size", rows=measured, error_column="level", columns=(
            Column("label", "kernel and size"),
            Column("time_s", "time", "seconds", ci="time_ci95"),
            Column("flops_per_s", "FLOP/s", "flops"),
            Column("of_roof", "of roof", "pct"),
            Column("of_roof_all", "of the all-CPU roof", "pct"),
            Column("level", "working set in"),
            Column("cpus_busy", "CPUs busy", "f1"),
            Column("cycles_per_iteration", "cycles/iter.", "f1"),
            Column("predicted_cycles_per_iteration", "predicted", "f1"),
            Column("l1_ratio", "traffic / model", "f1"))),  # out of the level holding the data
        Table(f"{prefix}_findings", "Findings at {where}, most time to save first", groups=groups("findings"),
              columns=(
                  Column("rank", "#", "int"),
                  Column("finding", "finding", value=lambda f, d: finding_word(f["id"]), csv=False),
                  Column("id", "", report=False),
                  Column("saving_s", "could save", "seconds"),
                  Column("hypothesis", "hypothesis", "msg"),
                  Column("advice", "what to change", "msg"))),
        Table(f"{prefix}_experiments", "Experiments at {where}", groups=groups("experiments"),
              error_column="result", columns=(
                  Column("what", "experiment", "msg"),
                  Column("verdict", "verdict", report=False),
                  Column("speedup", "speed-up", "x", ci="speedup_ci95"),
                  Column("rel_error", "rel. error", "sci"),
                  Column("result", "result", value=lambda e, d: experiment_sentence(e), csv=False))),
    )

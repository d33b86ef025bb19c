"""What every rule reads: the evidence about one kernel at one size, with the facts several rules share worked out
once (the vector widths, the compiler's causes, the loop's chains, the traffic out of the level holding the data),
and the helpers that word evidence the same way in every rule.

A rule is a module of this package with ``ID`` (the finding it makes), ``WORD`` (its name in tables), ``TEST``
(the experiment that tests it directly, if any) and ``find(facts) -> list[dict]``. Each finding names its evidence,
a hypothesis in plain words, what to change in the source, and the experiments that test it; its ``factor`` is the
speed-up its own evidence allows (the ranking caps it by the distance to the roof)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from rooflab.documents.common import read
from rooflab.documents.kernels import Audit, Build, HotLoop, Pragmas, Reference
from rooflab.i18n import join, msg
from rooflab.model.roofline import LEVELS, next_faster
from rooflab.toolchain.remarks import CAUSES
from rooflab.units import binary_bytes, pct, si

AT_ROOF = 0.8  # this share of its roof or more: at the roof
FP_LATENCY = 4  # cycles of an FP add or FMA on the cores rooflab knows (3 to 4), when no analyzer says more
INNER_SUM = 8  # dependent adds one after another within an iteration, this many or more: a sum kept in order
WAITS = 1.5  # a loop measured this many times its in-core prediction or more waits for something besides its ports
MIN_PARALLEL_S = 20e-6  # a call this long or longer can gain from threads (an OpenMP fork-join costs microseconds)
# libm functions computed with an instruction (sqrt) or by a vector math library (glibc's libmvec has each of the
# others since 2.35), and fmod, which neither computes
LIBM = ("sqrt", "exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "sincos",
        "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "pow", "erf", "erfc",
        "cbrt", "hypot", "fmod")
EXCESS = 2.0  # traffic out of the level holding the data this many times the model: lines or operands fetched again
LINE_BYTES = 64
REFETCH_BEYOND_STRIDE = 1.5


def finding(fid: str, factor: float, evidence: list, hypothesis: dict, advice: dict | None = None,
            experiments: tuple[str, ...] = (), test: str | None = None, after: tuple[str, ...] = (),
            tentative: bool = False, unless_vectorized_by: str | None = None) -> dict:
    out = {"id": fid, "factor": max(1.0, float(factor)), "evidence": evidence, "hypothesis": hypothesis,
           "advice": advice, "experiments": list(experiments)}
    if test:
        out["test"] = test  # the experiment that tests it, where it is not the usual one of its kind
    if after:
        out["after"] = list(after)  # findings whose fix removes this one's cause too: it goes after them
    if unless_vectorized_by:
        # a reason a loop stays scalar beside another finding's (a possible overlap): it stands where that finding's
        # experiment left the loop scalar, and goes where it vectorized it
        out["unless_vectorized_by"] = unless_vectorized_by
    if tentative:
        # its evidence is its experiment alone: run before the others, and dropped unless it measured a gain
        out["tentative"] = True
    return out


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


def faster_level(row: dict, roofs: dict) -> tuple[str, float] | None:
    """The memory level just faster than the one holding the working set (among those with a roof), with its
    capacity; None at the fastest level or where the capacity is unknown."""
    faster = next_faster(row.get("level"), [lv for lv in LEVELS if lv in {m["level"] for m in roofs.get("memory", [])}])
    if faster is None:
        return None
    cap = (row.get("caches") or {}).get(faster)
    return (faster, cap) if cap else None


# under this share of a kernel's samples inside its innermost loops, the loop audited is not where the time goes
COLD_SHARE = 0.1


def cold(hot_loop: dict | None) -> bool:
    """Whether the samples show the time spent outside every innermost loop (under COLD_SHARE of them inside): the
    audited loop, a vector loop a short trip count never enters say, tells nothing of where it goes."""
    share = (hot_loop or {}).get("in_inner_loops")
    return (hot_loop or {}).get("by") == "samples" and share is not None and share < COLD_SHARE


def unrolled_sum(loop: dict) -> int:
    """The dependent scalar adds one after another within an iteration of a vectorized loop, where INNER_SUM or more
    and more than the chain it carries (a sum the compiler unrolled and adds lane by lane); else 0."""
    k = loop.get("inner_chain") or 0
    return k if loop.get("vector_bits") and k >= INNER_SUM and k > (loop.get("longest_chain") or 0) else 0


@dataclass
class Facts:
    """One kernel at one size: ``code`` (code_evidence), ``row`` (the measured size), ``ctx`` (cpus, threads,
    isa_vector_bits, profile, openmp, precision, gemm_like, caches, roofs, roofs_all), and what follows from them."""

    code: dict
    row: dict
    ctx: dict
    loop: dict = field(init=False)
    eff: dict = field(init=False)

    def __post_init__(self):
        self.loop = {} if self.cold_loop else self.code.get("loop") or {}
        self.eff = effective_roof(self.row)

    @functools.cached_property
    def pragmas(self) -> Pragmas:
        """What the source says of the hot loop's nest (``code.pragmas``), typed."""
        return read(Pragmas, self.code.get("pragmas"))

    @functools.cached_property
    def build(self) -> Build:
        """How the kernel was built (``code.build``), typed."""
        return read(Build, self.code.get("build"))

    @functools.cached_property
    def hot_loop(self) -> HotLoop:
        """How the hot loop was chosen (``code.hot_loop``), typed."""
        return read(HotLoop, self.code.get("hot_loop"))

    @functools.cached_property
    def audit(self) -> Audit:
        """The hot loop's instructions counted (``code.audit``), typed."""
        return read(Audit, self.code.get("audit"))

    @property
    def reference(self) -> Reference | None:
        """The same-moment reference alternated with the kernel (``row.reference``), typed; None where none ran."""
        found = self.row.get("reference")
        return read(Reference, found) if found else None

    @property
    def live(self) -> Reference | None:
        """The reference, where it ran at its usual speed: a BLAS slowed meanwhile is no yardstick."""
        ref = self.reference
        return ref if ref is not None and ref.slow is None else None

    @property
    def live_high(self) -> float:
        """The fast end of the kernel's rate over the live reference (0 without one)."""
        return ratio_high(self.live)

    @property
    def cold_loop(self) -> bool:
        return cold(self.code.get("hot_loop"))

    # ---------------------------------------------------------------------------------------- the placement
    @property
    def of_roof(self) -> float | None:
        return self.eff.get("of_roof")

    @property
    def alone(self) -> bool:
        """One thread of several CPUs, far below the all-CPU roof, in a call long enough to gain from threads."""
        every = self.row.get("all_threads") or {}
        busy = self.row.get("cpus_busy")
        # an outer loop over the same data (time steps) leaves threads the loops inside each repetition: too short
        # a repetition is no more worth sharing than too short a call
        step = self.row["time_s"] / self.ctx["repeats"] if self.ctx.get("repeats") else self.row["time_s"]
        return bool((self.ctx.get("cpus") or 1) >= 2 and busy is not None and busy < 1.5 and every
                    and every.get("of_roof", 1) < AT_ROOF and min(step, self.row["time_s"]) >= MIN_PARALLEL_S)

    # ---------------------------------------------------------------------------------------- the compiled loop
    @property
    def vb(self) -> int:
        return self.loop.get("vector_bits") or 0

    @property
    def isa_vb(self) -> int:
        return self.code.get("isa_vector_bits") or 0

    @property
    def causes(self) -> list[str]:
        return self.code.get("causes") or []

    @property
    def lanes(self) -> float:
        """How many times wider the core's vectors are than the loop's (1 when it uses them all)."""
        return self.isa_vb / max(self.vb, self.loop.get("element_bits") or 64) if self.isa_vb and \
            self.vb < self.isa_vb else 1.0

    @property
    def chain(self) -> int:
        return self.loop.get("longest_chain") or 0

    @property
    def scan(self) -> bool:
        """A running sum stored at every element: a scan (a prefix sum), which partial sums do not split."""
        return (self.chain >= 1 and bool(self.loop.get("stored_chain")) and (self.loop.get("chain_op") or "") == "add"
                ) or bool(self.loop.get("int_scans"))

    @property
    def recurrence(self) -> bool:
        """A running value of more than adds stored at every element: each output is computed from the one before
        (an in-place smoother reading the point it just wrote, a filter), which partial sums do not split either."""
        return self.chain >= 1 and bool(self.loop.get("stored_chain")) and not self.scan

    @property
    def reduction(self) -> bool:
        """A sum (or a product) carried from one iteration to the next in scalar adds, in register: each add waits
        for the last; or several dependent adds into one register per iteration, scalar or not (gcc's in-order
        "fold-left" of a vectorized loop: a complex sum's (re, im) pairs added one by one to a 2-lane
        accumulator)."""
        loop = self.loop
        red = self.chain >= 1 and (self.product or "add" in self.chain_ops and "mul" not in self.chain_ops) and (
            (loop.get("scalar_fp") or 0) >= self.chain or self.chain >= 2)
        red = red or bool(self.vb == 0 and loop.get("accumulators") and "reduction" in self.causes)
        # a carried value whose addend is computed from itself (a running mean) is a recurrence, not a sum
        return red and not self.scan and not self.recurrence and not loop.get("feedback")

    @property
    def inner_sum(self) -> int:
        """The dependent scalar adds of a sum each iteration of a vectorized loop computes afresh and adds in order
        (an inner loop of fixed length the compiler unrolled: a 64-tap filter's products computed in vectors, then
        added one lane at a time, 64 vaddss): INNER_SUM or more, and more than any chain the loop carries; else 0.
        (A vectorized stencil's sum is vector adds, each lane its own output: no such chain.)"""
        return 0 if self.reduction else unrolled_sum(self.loop)

    @property
    def chain_ops(self) -> set[str]:
        """What extends the longest chain: {"add"} (a sum), {"mul"} (a product), {"add", "mul"} (each value
        multiplied, then added to: a recurrence), {"fma"} ..."""
        return set(filter(None, (self.loop.get("chain_op") or "").split("+")))

    @property
    def product(self) -> bool:
        """A running product carried in a register (``p *= x[i]``): reordered into partial products as a sum is."""
        return self.chain >= 1 and self.chain_ops == {"mul"} and not self.loop.get("stored_chain")

    @property
    def select_reduction(self) -> list[dict]:
        """Running maxima or minima (the source's ``if (x[i] > m) m = x[i];``) of a loop that stayed scalar: each
        comparison waits for the last one's result. [{var, op}]"""
        if self.vb or not self.loop:
            return []
        return self.pragmas.select_reductions

    @property
    def packed_stores(self) -> list[dict]:
        """Stores of a loop that stayed scalar at a place that advances where a test holds (a compaction:
        ``if (x[i] > t) out[k++] = x[i];``). [{index, array}]"""
        if self.vb or not self.loop:
            return []
        return self.pragmas.packed_stores

    @property
    def simd_ignored(self) -> bool:
        """The source asks for SIMD (``#pragma omp simd``) but the build has neither -fopenmp nor -fopenmp-simd:
        the compiler ignores the pragma without a word."""
        return self.pragmas.omp_simd and not self.build.openmp and \
            not any(x.startswith("-fopenmp") for x in self.build.flags)

    def simd_ignored_evidence(self) -> list:
        return [msg("its source has `{pragma}`, but the spec builds it without {flag}: the compiler ignores the "
                    "pragma", pragma="#pragma omp simd", flag="-fopenmp-simd")] if self.simd_ignored else []

    @property
    def in_memory(self) -> bool:
        """A running value kept in memory (loaded, updated and stored at one address every iteration)."""
        return (bool(self.loop.get("memory_chains")) and self.vb == 0 and not self.reduction and not self.scan
                and not self.recurrence)

    @property
    def chained(self) -> bool:
        """A chain that a vectorization finding must not be made over (it is the chain that keeps it scalar)."""
        return self.reduction or self.scan or self.recurrence or self.in_memory or bool(self.select_reduction) or \
            bool(self.inner_sum) or \
            bool(self.loop.get("memory_recurrences")) or bool(self.loop.get("lookup_chains")) or \
            bool(self.loop.get("feedback"))

    @property
    def prediction(self) -> dict:
        if self.cold_loop:
            return {}
        return self.code.get("prediction") or self.code.get("sibling") or {}

    @property
    def waits(self) -> float | None:
        """How many times slower the hot loop was measured than the in-core prediction for its instructions, where
        that is WAITS or more (the time beyond it is spent waiting: for scattered loads, for lines other cores
        hold); None otherwise, and None for a loop that calls a function: the time beyond the prediction is then
        the callee's, which the prediction does not see (see ``beyond_prediction``)."""
        return None if self.loop.get("calls") else self.beyond_prediction

    @property
    def beyond_prediction(self) -> float | None:
        """The measured cycles per iteration over the in-core prediction for the loop's own instructions, where that
        is WAITS or more; None otherwise."""
        pred, cpi = self.prediction.get("cycles_per_iteration"), self.row.get("cycles_per_iteration")
        return cpi / pred if cpi and pred and cpi >= WAITS * pred else None

    @property
    def dependency_bound(self) -> bool:
        pred = self.prediction
        return bool(pred.get("bound") == "dependencies" and (pred.get("dependency_share") or 0) >= 0.5 and
                    pred.get("block_rthroughput") and pred["cycles_per_iteration"] >= 1.5 * pred["block_rthroughput"])

    # ---------------------------------------------------------------------------------------- the traffic
    @property
    def excess(self) -> float | None:
        return excess_traffic(self.row)

    @property
    def traffic(self) -> dict:
        return self.row.get("traffic") or {}

    @property
    def refetched(self) -> bool:
        """L1 brought in more bytes than any stride could make it (a line per element used: the line's elements
        times the model's bytes), by REFETCH_BEYOND_STRIDE: the same lines brought in again and again from L2 or
        further, operands not kept in a cache between their uses (a product in k-i-j order past L2: 136x)."""
        l1 = self.traffic.get("l1_ratio")
        elem = max(1, (self.loop.get("element_bits") or 64) // 8)
        return bool(l1 and l1 > REFETCH_BEYOND_STRIDE * LINE_BYTES / elem)

    # ---------------------------------------------------------------------------------------- wording helpers
    def cause_remarks(self, cause: str) -> list:
        return self.remarks_matching(dict(CAUSES)[cause])

    def remarks_matching(self, pat: re.Pattern) -> list:
        """The compiler's first two remarks that ``pat`` finds, as evidence."""
        return [msg("the compiler says (line {line}): {said}", line=r["line"], said=r["text"])
                for r in (self.code.get("remarks") or []) if pat.search(r.get("text", ""))][:2]

    def errno_remarks(self) -> list:
        return self.remarks_matching(_CLOBBER)

    def chain_evidence(self) -> list:
        loop, row = self.loop, self.row
        # the audit's register chain, where it found one (a chain through a multiply it does not follow is shown by
        # the cycles and the prediction alone, never as "0 accumulators")
        ev = [msg("the hot loop keeps {n} accumulator(s); the longest takes {k} dependent {op} per iteration",
                  n=loop.get("accumulators"), k=loop.get("longest_chain"), op=loop.get("chain_op") or "add")
              ] if loop.get("longest_chain") else []
        if row.get("cycles_per_iteration"):
            ev.append(measured_cycles(row))
        return ev + self.prediction_evidence()

    def prediction_evidence(self) -> list:
        code = self.code
        pred = code.get("prediction") or {}
        if pred.get("cycles_per_iteration") and pred.get("dependency_share") is None:
            return [msg("{tool} ({model}) predicts {c:.1f} cycles per iteration; the execution ports alone would "
                        "allow {r:.1f}", tool=pred["tool"], model=pred["model"], c=pred["cycles_per_iteration"],
                        r=pred.get("block_rthroughput") or 0.0)]
        if pred.get("cycles_per_iteration"):
            return [msg("{tool} ({model}) predicts {c:.1f} cycles per iteration, {dep} of them waiting on register "
                        "dependencies; the execution ports alone would allow {r:.1f}", tool=pred["tool"],
                        model=pred["model"], c=pred["cycles_per_iteration"], dep=pct(pred.get("dependency_share")),
                        r=pred.get("block_rthroughput") or 0.0)]
        sib = code.get("sibling") or {}
        if sib.get("cycles_per_iteration"):
            return [msg("for the same loop built without AVX-512 (which {tool} can read), it predicts {c:.1f} cycles "
                        "per iteration and {m:.1f} were measured; the ports alone would allow {r:.1f}",
                        tool=sib["tool"], c=sib["cycles_per_iteration"], m=sib.get("measured_cycles_per_iteration")
                        or 0.0, r=sib.get("block_rthroughput") or 0.0)]
        if pred.get("error"):
            return [msg("no in-core prediction: {why}", why=pred["error"])]
        return []

    def chain_gain(self) -> float:
        """How much faster the loop as measured could run without its chain: where it runs slower than the analyzer
        predicts (it also waits for memory: an indexed load, lines from L2), the chain accounts for no more than
        the predicted cycles above the port bound, so the measured cycles less those; else chain_factor()."""
        m = self.row.get("cycles_per_iteration")
        for pred in (self.prediction, self.code.get("sibling") or {}):
            c, r = pred.get("cycles_per_iteration"), pred.get("block_rthroughput")
            if c and r and m and m > c:
                return m / max(m - (c - r), r)
        return self.chain_factor()

    def chain_factor(self) -> float:
        """How much faster the loop could run without its chain: the analyzer's cycles over its port bound, else the
        chain's latency over one cycle per FP op."""
        for pred in (self.code.get("prediction") or {}, self.code.get("sibling") or {}):
            if pred.get("cycles_per_iteration") and pred.get("block_rthroughput"):
                return pred["cycles_per_iteration"] / pred["block_rthroughput"]
        fp = (self.loop.get("scalar_fp") or 0) + (self.loop.get("vector_fp") or 0)
        return self.loop.get("longest_chain", 1) * FP_LATENCY / max(1, fp)

    def traffic_evidence(self) -> dict:
        t, excess = self.traffic, self.excess or 0.0
        ev = msg("{method}: the traffic out of {level}, where the working set lives, is {r:.1f}x the bytes the model "
                 "counts ({got} per call against {model})", method=t["method"], level=t.get("holding_level") or "?",
                 r=excess, got=binary_bytes(excess * t["model_bytes"]), model=binary_bytes(t["model_bytes"]))
        if t.get("reduced"):
            ev = join([ev, msg(" — {why}", why=t["reduced"])], "")
        return ev


def blas_roof(roofs: dict | None) -> float | None:
    """The BLAS GEMM rate among the compute roofs (what the best real code reaches), if measured."""
    return next((c["value"] for c in (roofs or {}).get("compute", []) if c.get("klass") == "blas_gemm"), None)


def measured_cycles(row: dict) -> dict:
    return msg("measured {c:.1f} cycles per iteration of the hot loop", c=row["cycles_per_iteration"])


def ratio_high(ref: Reference | None) -> float:
    """The fast end of a kernel's rate over a reference alternated with it (0 without one)."""
    return ref.ci95[1] if ref is not None and ref.ci95 else 0.0


def reference_evidence(found: dict | Reference) -> dict:
    live = read(Reference, found)
    lo, hi = live.ci95 or (None, None)
    if live.kind == "blas_gemm" and live.slow:
        return msg("alternated with this machine's BLAS GEMM (n={size}) on {t} thread(s): {r:.2f}x its FLOP rate, "
                   "but the GEMM itself reached only {ref}, {share} of the {stored} stored for it (slowed meanwhile): "
                   "no yardstick", size=live.n, t=live.threads, r=live.ratio,
                   ref=si(live.reference_flops_per_s, "FLOP/s"), share=pct(live.slow.share),
                   stored=si(live.slow.stored_flops_per_s, "FLOP/s"))
    if live.kind == "blas_gemm":
        return msg("alternated with this machine's BLAS GEMM (n={size}) on {t} thread(s), as many as it kept busy: "
                   "{r:.2f}x its FLOP rate (95% CI {lo:.2f}–{hi:.2f}x over {n} rounds, while it reached {ref})",
                   size=live.n, t=live.threads, r=live.ratio, lo=lo, hi=hi, n=live.rounds,
                   ref=si(live.reference_flops_per_s, "FLOP/s"))
    return msg("alternated with rooflab's {kind} kernel over as many bytes of arrays on {t} thread(s), as many as it "
               "kept busy: {r:.2f}x its bandwidth (95% CI {lo:.2f}–{hi:.2f}x over {n} rounds, while it reached {ref})",
               kind=live.kind, t=live.threads, r=live.ratio, lo=lo, hi=hi, n=live.rounds,
               ref=si(live.reference_bytes_per_s, "B/s"))

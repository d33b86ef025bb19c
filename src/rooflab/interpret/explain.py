"""Reading the evidence about a kernel (pure: evidence in, findings and observations out).

The rules that make findings are :mod:`rooflab.diagnosis.rules`, one module per finding. This module runs them,
ranks their findings by the time each could save (the time at one size times (1 - 1/f), where f is the speed-up the
finding's own evidence allows, never more than the distance to the roof), weighs them against the experiments that
tested them, and words the observations and tables. A kernel at its roof gets that finding alone; a kernel below
its roof for which no rule found evidence is told so, with no advice.
"""

from __future__ import annotations

from typing import Callable

from rooflab.contract import Column, Table
from rooflab.diagnosis import rules
from rooflab.diagnosis.rules import at_roof, unexplained
from rooflab.diagnosis.rules.facts import (AT_ROOF, MIN_PARALLEL_S, Facts, effective_roof, errno_calls,  # noqa: F401
                                           excess_traffic, faster_level)
from rooflab.documents.common import plain, read
from rooflab.documents.kernels import AllThreads, Code, TrialSize, Verdict
from rooflab.i18n import join, msg
from rooflab.interpret.common import load_caveat
from rooflab.timing.stats import verdict
from rooflab.units import seconds


def diagnose(code: dict, row: dict, ctx: dict) -> list[dict]:
    """The findings about one kernel at one size, most time to save first. ``code``: code_evidence; ``row``: the
    measured size; ``ctx``: cpus (usable), threads (declared), isa_vector_bits, profile, openmp, precision,
    gemm_like, caches, roofs, roofs_all."""
    if row.get("error") or not row.get("time_s"):
        return []
    facts = Facts(code, row, ctx)
    alone = at_roof.find(facts)
    if alone is not None:
        return _ranked(row, facts.eff, alone)
    out = [x for rule in rules.RULES for x in rule.find(facts)]
    # a tentative finding (its experiment is its only evidence) does not stand for the rules' silence
    return _ranked(row, facts.eff, out + ([] if any(not f.get("tentative") for f in out) else unexplained.find(facts)))


# the experiment that tests each finding directly (each rule's TEST): when it makes no difference, it is refuted
TESTS = rules.TESTS
# experiments that are the advice itself, applied (restrict on the pointers, the flag, the schedule, the padding,
# flush-to-zero, a cache line per thread's element, the loops reordered): one that left the loop as it was still
# refutes its finding; the others only approach the fix (-ffast-math for partial sums, blocking alone for a tuned GEMM, float constants for
# float functions, streaming stores in rooflab's own bandwidth kernel)
# a test that gained less than this share, or found no difference and allows no more, refutes its finding: a fix
# worth a few percent is not why a kernel is slow (flush-to-zero on a gain at its roof, whose subnormal inputs this
# core handles almost at full speed: 1.02x to 1.04x in three runs)
MATERIAL = 0.05
EXACT_FIXES = {"restrict", "no_math_errno", "cx_limited_range", "native", "vectorize", "openmp", "serial", "dynamic",
               "cyclic", "padded", "smaller", "ftz", "unshared", "huge_pages", "interchange", "vector_math", "openmp_simd",
               "no_trapping_math", "placement"}
# a build that is the fix of one finding where it changed the loop: -ffast-math lets the compiler split an in-order
# sum into partial sums and vectorize it, so where its hot loop is not the original's, what it gained is what the
# partial sums give (a GEMV walking a column-major matrix by rows: 1.18x, with the chain split; the rest of its gap
# to the roof was the column walk's, which the sum's bound had hidden)
EXACT_WHEN_CHANGED = {("fast_math", "reduction_chain")}
# fixes themselves only where their build vectorized the loop: a vector math library is called from a vectorized
# loop alone, so a build that left the loop as it was (an in-order sum beside the call, exp's results added into a
# double: the sum keeps the loop scalar) tested nothing about the calls
VECTORIZING = {"vector_math"}
# probes of one part of a finding (the order of an index array's values, not the indirect loads' own cost): a gain
# confirms the finding; no gain leaves it as it was, inconclusive about the rest (a table in L1 read at bytes' indices
# gained nothing from sorted indices, and its loads one element at a time still set its pace)
PROBES = {"sorted"}
# a gain a tentative finding's test and each of its controls must measure for it to stand: two sets of arrays of the
# same sizes can differ by more than their placement does where a walk crosses a page at every access (a column-major
# row sum: the second set, whichever its placement, 1.0x to 1.26x faster in six paired runs, and 1.48x in one explain)
TENTATIVE_GAIN = 1.5
# (where the finding stands on the order alone, no traffic or waits beyond the model, a probe's gain is what it saves)


def weigh(findings: list[dict], experiments: list[dict], time_s: float | None = None) -> list[dict]:
    """The findings once their experiments were run: one whose direct test made it faster is ``confirmed`` (with
    the measured speed-up); one whose test excluded any gain (the fast end of its interval under the threshold) is
    ``refuted``: it can save nothing and goes last (so does one whose test gained under MATERIAL, ``immaterial``,
    or found no difference and allows no more). A test whose interval still allows a material gain refutes nothing (a
    noisy moment, another tenant on the CPUs), nor does one during which others kept CPUs busy (other processes, the
    host's steal): the finding is marked ``inconclusive``, and can save no more than the fast end of its test's
    interval allows (a disturbed test bounds nothing). Nor does a rebuild that left the hot loop as it was (the
    same vector width, FMAs, adds, loads and stores: -ffast-math on a loop the compiler still cannot vectorize): it
    tested nothing, so it is inconclusive, never a refutation, and bounds nothing (PolyBench's atax: -ffast-math
    cannot vectorize a row sum the output may alias, yet partial sums in the source would)."""
    ran = {e["id"]: e for e in experiments if not e.get("error")}
    by_id = _beyond_included(ran)
    findings = _scalar_after(findings, ran)
    for f in findings:
        # the experiment that tests it directly: its own where it names one (a chain kept in memory: restrict),
        # else the usual test of its kind (unrolling beside a dependency chain is a control, not a test)
        e = by_id.get(f.get("test") or TESTS.get(f["id"], ""))
        if e is None:
            continue
        exact = (e["id"] in EXACT_FIXES and not e.get("approaches") and not (
            e["id"] in VECTORIZING and e.get("loop_unchanged"))) or (
            (e["id"], f["id"]) in EXACT_WHEN_CHANGED and e.get("loop_unchanged") is False and not e.get("beyond")) or (
            e["id"] in PROBES and bool(f.get("probe_bounds")))
        small = e["verdict"] == "faster" and e["speedup"] < 1 + MATERIAL and not e.get("surrogate")
        if e.get("loop_unchanged") and not exact and (small or e["verdict"] != "faster"):
            # the build left the hot loop as it was and could not make the change the source fix would (-ffast-math
            # on a sum the output may alias): no difference, or a few percent (PolyBench's cholesky: 1.04x on a sum
            # kept in memory it cannot vectorize), tests nothing, refutes nothing and bounds nothing
            f["inconclusive"] = {"experiment": e["id"], "speedup_ci95": e["speedup_ci95"], "loop_unchanged": True}
        elif small:
            # faster, but by a few percent: measured, and not why the kernel is slow
            f["refuted"] = {"experiment": e["id"], "verdict": e["verdict"], "speedup": e["speedup"],
                            "immaterial": True}
            f["saving_s"] = 0.0
        elif e["verdict"] == "faster":
            confirmed = f["confirmed"] = {"experiment": e["id"], "speedup": e["speedup"]}
            if e.get("surrogate"):  # run on rooflab's own kernel (streaming stores in its bandwidth kernel): it
                # confirms the effect on this machine, but its speed-up is that kernel's, so the finding keeps the
                # saving its own model gives (the gain scaled to the kernel's traffic) and ranks as a bound does
                confirmed["surrogate"] = True
            elif time_s or e.get("a_time_s"):  # a confirmed finding ranks by the gain measured (per unit of work),
                measured = (time_s or e["a_time_s"]) * (1 - 1 / e["speedup"])  # a share of the time measured
                # an experiment that only approaches the fix (blocking alone, for a kernel BLAS runs far faster)
                # shows at least that much; where its model allows more, the saving stays a bound, and ranks as one
                if not exact and f["saving_s"] > measured:
                    confirmed["bound"] = True
                else:
                    f["saving_s"] = measured
        elif exact and e.get("loop_unchanged") and e["verdict"] != "faster" and not e.get("disturbed_cores"):
            # the advice itself, applied, and the compiler built the very same hot loop: no interval, however wide
            # a noisy moment made it, leaves a gain to the same instructions (restrict on a[i] = a[0], whose one
            # array overlaps itself whatever the pointers say)
            f["refuted"] = {"experiment": e["id"], "verdict": e["verdict"], "speedup": e["speedup"],
                            "loop_unchanged": True}
            f["saving_s"] = 0.0
        elif e["id"] in PROBES:
            f["inconclusive"] = {"experiment": e["id"], "speedup_ci95": e["speedup_ci95"], "probe": True}
            if exact and e.get("a_time_s") and not e.get("disturbed_cores"):
                # the probe is all the finding stands on: the best order of the indices gained nothing material,
                # and the most its interval allows is what the order can be worth (SRAD's neighbour indices, in
                # order already: 1.00x, CI to 1.06x, under a float/double fix measured at 1.25x)
                f["saving_s"] = min(f["saving_s"], e["a_time_s"] * max(0.0, 1 - 1 / e["speedup_ci95"][1]))
        elif e.get("approaches") and e["verdict"] != "faster":
            # loops reordered so that the new innermost sums into one element, in order, where the original's walk
            # was vectorized: the chain of adds the reordering brought in, which the fix would split, is what it
            # measured, not the walk (PolyBench's syrk: a column of A re-read 75x its model's bytes, reordered into
            # dot products summed in order 0.48x): it tests nothing and bounds nothing
            f["inconclusive"] = {"experiment": e["id"], "speedup_ci95": e["speedup_ci95"], "in_order": True}
        elif e["speedup_ci95"][1] > 1 + max(e["threshold"], MATERIAL) or e.get("disturbed_cores"):
            f["inconclusive"] = {"experiment": e["id"], "speedup_ci95": e["speedup_ci95"]}
            # the most its test allows, the interval's fast end, bounds the finding where the test is the fix
            # itself; a test that only approaches the fix (rooflab's blocked GEMM for a user's product) bounds
            # nothing, as its confirmation would not have either
            if exact and not e.get("disturbed_cores") and e.get("a_time_s"):
                f["saving_s"] = min(f["saving_s"], e["a_time_s"] * max(0.0, 1 - 1 / e["speedup_ci95"][1]))
        else:
            f["refuted"] = {"experiment": e["id"], "verdict": e["verdict"], "speedup": e["speedup"],
                            **({"beyond": e["beyond"]} if e.get("beyond") else {})}
            f["saving_s"] = 0.0
    # a tentative finding whose experiment did not measure its gain has no evidence left: it goes
    findings = [f for f in findings if not f.get("tentative") or _corroborated(f, ran)]
    if any(f.get("tentative") for f in findings):  # a cause measured: the rules' silence no longer stands alone
        findings = [f for f in findings if f["id"] != unexplained.ID]
    _joint(findings, by_id, ran, time_s)
    return _sorted(findings)


def _scalar_after(findings: list[dict], ran: dict[str, dict]) -> list[dict]:
    """The findings that name another reason a loop stays scalar beside a possible overlap of its arrays: where
    restrict's build vectorized the loop, the overlap was the reason and they go; where it left the loop scalar,
    they stand on their own, no longer ranked after the overlap's finding (whose gain, if any, was something else:
    loads the compiler no longer repeats)."""
    out = []
    for f in findings:
        e = ran.get(f.get("unless_vectorized_by") or "")
        bits = (e or {}).get("vector_bits")
        if bits and bits[1] > bits[0]:
            continue
        if bits:
            f = {k: v for k, v in f.items() if k != "after"}
        out.append(f)
    return out


def _corroborated(f: dict, ran: dict[str, dict]) -> bool:
    """A tentative finding stands where its test gained TENTATIVE_GAIN or more and each control it names ran and
    gained too, by MATERIAL at least: other offsets free loads held behind stores as well, if not all of them (a
    7-point stencil over planes: 3.06x with its arrays 1088 bytes apart, 1.18x 576 bytes apart), where a walk that
    hangs on the cache sets its arrays share loses from one of them (a matrix sum walked by columns: 3.95x, 0.34x)."""
    confirmed = read(Verdict, f["confirmed"]) if f.get("confirmed") else None
    return confirmed is not None and (confirmed.speedup or 0) >= TENTATIVE_GAIN and all(
        x in ran and ran[x].get("verdict") == "faster" and ran[x]["speedup"] >= 1 + MATERIAL
        for x in f["experiments"] if x != confirmed.experiment)


def _joint(findings: list[dict], by_id: dict[str, dict], whole: dict[str, dict], time_s: float | None) -> None:
    """Two findings confirmed by nested builds (-fno-math-errno for a call, -ffast-math beyond it for the sums)
    each hold a share of the whole build's gain: together they save what that build measured, which they rank by
    beside advice whose saving is a bound (more CPUs: an n-body loop, 1.48x from errno and 2.10x from -ffast-math
    in all, against two CPUs' 2x at best); between them, the narrower build's finding goes first, whichever share
    came out larger (the wider build's is marked ``beyond``)."""
    for eid, e in by_id.items():
        full = whole.get(eid) or {}
        if not e.get("beyond") or full.get("verdict") != "faster" or not (time_s or full.get("a_time_s")):
            continue
        joint = (time_s or full["a_time_s"]) * (1 - 1 / full["speedup"])
        for f in findings:
            c = f.get("confirmed") or {}
            if c.get("experiment") in (eid, e["beyond"]) and not (c.get("surrogate") or c.get("bound")):
                c["joint_saving_s"] = max(c.get("joint_saving_s") or 0.0, joint)
                if c["experiment"] == eid:
                    c["beyond"] = e["beyond"]  # the wider build's share: after the narrower one's


# builds whose flags include another experiment's: -ffast-math also drops errno (-fno-math-errno) and the C99
# complex checks (-fcx-limited-range), and calls a vector math library as it does without reordering sums
INCLUDES = {"fast_math": ("no_math_errno", "cx_limited_range", "vector_math", "reciprocal", "no_trapping_math")}


def _beyond_included(by_id: dict[str, dict]) -> dict[str, dict]:
    """An experiment whose build includes another that ran and made the kernel faster tests its own finding by what
    it gains beyond that one: -ffast-math at 4.39x beside -fno-math-errno at 3.19x (all-pairs forces with sqrt and
    two running sums) says 1.38x for the sums, not 4.39x; the rest is the errno finding's."""
    out = dict(by_id)
    for eid, subs in INCLUDES.items():
        e = by_id.get(eid)
        done = [by_id[x] for x in subs if x in by_id and by_id[x].get("verdict") == "faster"]
        if e is None or not done or not e.get("speedup"):
            continue
        sub = max(done, key=lambda x: x["speedup"])
        k = sub["speedup"]
        lo, hi = (v / k for v in e["speedup_ci95"])
        out[eid] = {**e, "speedup": e["speedup"] / k, "speedup_ci95": [lo, hi], "beyond": sub["id"],
                    "verdict": verdict(1 / hi, 1 / lo, e["threshold"]), "a_time_s": None}
    return out


def _ranked(row: dict, eff: dict, findings: list) -> list[dict]:
    """Each finding's possible saving (its speed-up, capped by the distance to the roof), most first."""
    t = row["time_s"]
    gap = 1 / eff["of_roof"] if eff.get("of_roof") else None
    every = row.get("all_threads") or {}
    for f in findings:
        cap = 1 / every["of_roof"] if f["id"] == "single_thread" and every.get("of_roof") else gap
        if f["id"] in ("working_set", "write_allocate"):
            cap = None  # its roof is another (the faster level's, streaming stores'): its factor says how far
        g = min(f["factor"], cap) if cap else f["factor"]
        f["saving_s"] = t * (1 - 1 / g) if g > 1 else 0.0
    return _sorted(findings)


# advice any kernel gets: a finding about the code goes before it unless it saves this many times more. Perfect
# scaling over the idle CPUs is the bound of every one-thread kernel below the all-CPU roof, while a finding about the
# code says why the kernel falls short of its own roof: a search at 63% of its L3 roof, whose early exit keeps it
# scalar (36% to save), went after two CPUs' 50%; so did a CSR product's scattered updates (41%), a struct walk's
# stride (44%), an every-other-element copy (33%); of the 527 cases of a whole run, none told "one thread" rightly
# first had a finding about the code beside it that saved 15% or more
GENERIC = {"single_thread": 0.5}
# any finding whose saving is a model's bound (not tested, or its test inconclusive) beside one whose experiment
# measured its gain: what was measured goes first unless the bound is two thirds larger. A bound assumes its fix
# works perfectly (every chain interleaved, every lane used); a measured gain is one the user gets (a per-thread
# histogram: its padding measured 2.50x, while the restrict test of a possible alias was disturbed; an escape-time
# image: its dynamic schedule measured 1.8x beside the 3.4x bound of interleaving its recurrences)
UNMEASURED_BESIDE_MEASURED = 0.6
# the advice to use more CPUs is such a bound too (perfect scaling up to the all-CPU roof) until its own experiment
# measures it, and beside an untested finding about the code it still goes after it when the two are alike: a
# particle deposit whose restrict test measured 1.21x kept its scattered updates (a 2x bound) ahead of two CPUs' 2x
GENERIC_BESIDE_MEASURED = {k: UNMEASURED_BESIDE_MEASURED * w for k, w in GENERIC.items()}


def _sorted(findings: list[dict]) -> list[dict]:
    """Refuted findings last; then the most time to save first, a finding about the code before the generic advice
    to use more CPUs when the two could save about as much."""
    def gain_measured(f: dict) -> bool:
        c = f.get("confirmed") or {}
        return bool(c) and not (c.get("surrogate") or c.get("bound"))

    measured = any(gain_measured(f) for f in findings if f["id"] not in GENERIC)

    def key(f: dict) -> tuple:
        weight = 1.0 if gain_measured(f) else (GENERIC_BESIDE_MEASURED if measured else GENERIC).get(
            f["id"], UNMEASURED_BESIDE_MEASURED if measured else 1.0)
        # two bounds alike (both the distance to the roof) go in the order of what stands behind them: a finding
        # whose test left the loop as it was (-ffast-math on a sum walking a column it cannot vectorize) tested
        # nothing, so it goes after one whose own evidence stands (the column walk's traffic, counted)
        untested = bool(f.get("inconclusive")) and read(Verdict, f["inconclusive"]).loop_unchanged
        # findings confirmed together by nested builds rank by what they measured together, the narrower build's
        # first (-fno-math-errno before -ffast-math: the first step, and one that changes no result)
        c = f.get("confirmed") or {}
        joint = c.get("joint_saving_s") or 0.0
        return bool(f.get("refuted")), -max(f["saving_s"], joint) * weight, bool(c.get("beyond")), -f["saving_s"], \
            untested

    # a finding whose cause another's fix removes too (conflict misses of a column walk that an interchange makes
    # contiguous) goes right after that one, which can then save at least as much
    live = {f["id"]: f for f in findings if not f.get("refuted")}
    deferred = [(f, next(live[a] for a in f["after"] if a in live)) for f in findings
                if not f.get("refuted") and any(a in live for a in f.get("after") or ())]
    for f, first in deferred:
        if not first.get("confirmed"):  # a gain measured stays what was measured
            first["saving_s"] = max(first["saving_s"], f["saving_s"])
    order = sorted(findings, key=key)
    for f, first in deferred:
        order.remove(f)
        order.insert(order.index(first) + 1, f)
    return order


# ------------------------------------------------------------------------------------------------ observations

def finding_word(fid: str):
    f = rules.WORDS.get(fid)
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
    if e.get("loop_unchanged") and e["verdict"] != "faster" and e["id"] in EXACT_FIXES - VECTORIZING:
        # the advice itself, applied: a loop the compiler still builds as before says the advice is not what it lacks
        err = join([err, msg("; with the change made, the compiler still built the hot loop as before (the same "
                             "vector width, FMAs, adds, loads and stores): it is not what the loop lacks")], "")
    elif e.get("loop_unchanged") and e["verdict"] != "faster":
        err = join([err, msg("; the build left the hot loop as it was (the same vector width, FMAs, adds, loads and "
                             "stores), so it tests nothing")], "")
    return msg("{what}: {head} (95% CI {lo:.2f}–{hi:.2f}x over {n} paired rounds; differences under {th:.0%} are not "
               "called){err}", what=e["what"], head=head, lo=e["speedup_ci95"][0], hi=e["speedup_ci95"][1],
               n=e["rounds"], th=e["threshold"], err=err)


def explain_observations(doc: dict) -> list[dict]:
    """The load caveat, then per kernel and size the leading finding and what each experiment measured."""
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
            if r.get("status") == "disturbed":
                out.append(msg("{label}: {why}; its figures may be low.", label=where, why=r["reason"]))
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
            trial = read(TrialSize, r.get("trial_size"))
            if trial.text and r.get("experiments"):
                out.append(msg("{where}: {sentence}.", where=where, sentence=plain(trial.text)))
            for e in r.get("experiments") or []:
                out.append(msg("{where}: {sentence}.", where=where, sentence=experiment_sentence(e)))
            swing = placement_swing(r.get("experiments") or [])
            if swing:
                out.append(msg("{where}: its time hangs on where its arrays lie in their pages ({hi:.2f}x at one "
                               "placement, {lo:.2f}x at another), which no single placement frees as it would 4 KiB "
                               "aliasing: compare its versions at one placement, and expect a program's time to vary "
                               "as much.", where=where, hi=swing[0], lo=swing[1]))
    return out


def placement_swing(experiments: list[dict]) -> tuple[float, float] | None:
    """(fastest, slowest) speed-up of the placement test and its control where they part by TENTATIVE_GAIN or more
    each way from one another: the arrays' offsets matter, but not as aliasing does (a matrix sum walked by columns:
    3.95x with the arrays 1088 bytes apart, 0.34x with them 576 bytes apart)."""
    got = [e["speedup"] for e in experiments if e.get("id") in ("placement", "placement_alt") and not e.get("error")
           and e.get("verdict") in ("faster", "slower") and e.get("speedup")]
    if len(got) < 2:
        return None
    hi, lo = max(got), min(got)
    return (hi, lo) if hi >= TENTATIVE_GAIN and lo <= 1 / TENTATIVE_GAIN else None


def _seconds(s: float) -> str:
    return seconds(s)


# ------------------------------------------------------------------------------------------------------ tables

def explain_tables(kernels_of: Callable[[dict], list | None], prefix: str = "explain") -> tuple[Table, ...]:
    """The tables of explained kernels (measured, findings, experiments), read from ``kernels_of(doc)``: the
    document's own kernels for `explain`, its ``explain`` part for `bench --explain`. The HTML page and the CSV
    files hold them; the terminal shows the same as an outline (:mod:`rooflab.interpret.outline`)."""
    shown = ("html", "csv")
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
            prediction = read(Code, k.get("code")).prediction
            pred = prediction.cycles_per_iteration if prediction else None
            for r in k.get("sizes") or []:
                every = read(AllThreads, r["all_threads"]) if r.get("all_threads") else None
                rows.append({**r, "predicted_cycles_per_iteration": pred,
                             "l1_ratio": excess_traffic(r),
                             "of_roof_all": every.of_roof if every else None})
        return rows

    return (
        Table(f"{prefix}_measured", "Measured, per kernel and size", rows=measured, error_column="level", formats=shown,
              columns=(
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
              formats=shown, columns=(
                  Column("rank", "#", "int"),
                  Column("finding", "finding", value=lambda f, d: finding_word(f["id"]), csv=False),
                  Column("id", "", report=False),
                  Column("saving_s", "could save", "seconds"),
                  Column("hypothesis", "hypothesis", "msg"),
                  Column("advice", "what to change", "msg"))),
        Table(f"{prefix}_experiments", "Experiments at {where}", groups=groups("experiments"),
              error_column="result", formats=shown, columns=(
                  Column("what", "experiment", "msg"),
                  Column("verdict", "verdict", report=False),
                  Column("speedup", "speed-up", "x", ci="speedup_ci95"),
                  Column("rel_error", "rel. error", "sci"),
                  Column("result", "result", value=lambda e, d: experiment_sentence(e), csv=False))),
    )

"""Explain kernels: for each, the evidence of its code once, then per size the measurement, the traffic, the
findings (:func:`rooflab.interpret.explain.diagnose`) and the experiments that test the leading ones."""

from __future__ import annotations

import time

from rooflab.diagnosis import evidence
from rooflab.diagnosis.experiments import (blas_reference_run, gemm_dims, page_rows, pow2_rows, reference_run,
                                           run_experiment)
from rooflab.diagnosis.rules.facts import blas_roof, cold
from rooflab.diagnosis.sampling import sample_offsets
from rooflab.documents.common import Isa, read
from rooflab.documents.kernels import HotLoop, Loop, Pragmas, Prediction
from rooflab.errors import RooflabError
from rooflab.i18n import msg
from rooflab.interpret.explain import TENTATIVE_GAIN, diagnose, faster_level, weigh
from rooflab.kernels.user import build_spec, config_for, task
from rooflab.machine.env import tlb_entries, usable_cpus
from rooflab.model.reference import roofs_at
from rooflab.timing.memory import thp_mode
from rooflab.toolchain.asm import loop_counts
from rooflab.toolchain.compiler import CompileError
from rooflab.units import seconds
from rooflab.userkernel.spec import ArrayArg, KernelSpec, size_for

# per kernel and size: the leading findings' experiments, each once (a CSR product shared unequally between
# threads had four findings with one each, the schedule's fourth), the kernel's time budget permitting
MAX_EXPERIMENTS = 4


def _sibling(session, spec: KernelSpec, size: dict, quick: bool, where: str | None = None) -> dict | None:
    """The AVX-512-free twin of the kernel, predicted and measured, where the analyzer cannot read the original
    (its loop in ``where``, the function the hot loop is in)."""
    found = evidence.sibling_prediction(spec, session.machine, where)
    if found is None:
        return None
    twin, lib, pred = found
    out = session.run(task(twin, lib, size, f"{spec.name} without AVX-512"), config_for(spec, True),
                      timeout_s=spec.timeout)
    if out.ok:
        flops, nbytes = spec.work(size)
        pred["measured_cycles_per_iteration"], _ = evidence.cycles_per_iteration(
            out.timing.summary.median * _threads_each(spec, usable_cpus()), session.machine.get("clock_hz"),
            pred["loop"], flops, nbytes)
    return pred


def _loop_trips(heads: list[dict], scalars: dict) -> dict:
    """From the source's counted loops, at one size: ``repeats``, how many times an outer loop over the same data
    (time steps) runs per call, and ``inner_trips``, the iterations of each innermost loop per entry."""
    step = evidence.repeat_loop(heads)
    return {"repeats": evidence.trips(step, scalars), "repeat_var": (step or {}).get("var"),
            "inner_trips": evidence.inner_trips(heads, scalars)}


def _threads_each(spec: KernelSpec, cpus: int) -> int:
    """The threads that share an OpenMP build's iterations (1 otherwise): each runs its share of them in the time
    measured, so a cycle count per iteration of one thread's loop is the time times this over the iterations."""
    return min(spec.threads, cpus) if spec.openmp else 1


def _walked_arrays(spec: KernelSpec, size: dict, code: dict) -> list[int] | None:
    """The bytes of each array of a function whose hot loop is its only loop (no loop nested in another, and the
    hot loop the one that runs): the arrays that loop's addresses walk from end to end; None otherwise."""
    if read(Pragmas, code.get("pragmas")).nested_loops or read(HotLoop, code.get("hot_loop")).moved:
        return None
    try:
        return [b for b in spec.arrays_bytes(size).values() if b > 0]
    except (RooflabError, ValueError):
        return None


def _where_the_time_goes(session, spec: KernelSpec, lib, size: dict, code: dict, call_s: float | None = None) -> dict:
    """The hot loop by where the samples fall (perf on the worker), when that is another loop than the one that
    does the most work per iteration: its audit, detail and prediction replace the guess. ``hot_loop`` says how it
    was chosen."""
    try:
        inner, loops = loop_counts(lib.path, spec.audit_function or spec.function)
    except RooflabError:
        inner = loops = 2
    one = inner <= 1
    # an OpenMP kernel is sampled anyway (how much time its runtime takes), and so is one whose single innermost loop
    # sits in others (whether the time is spent in it at all)
    if loops <= 1 and not spec.openmp:
        return {"hot_loop": {"by": "only loop"}}
    session.progress(f"explain: {spec.name}: sampling where its time goes")
    samples, why, runtime = sample_offsets(session, spec, lib, size, call_s=call_s)
    shares = {"runtime_share": runtime[1] / runtime[0]} if runtime and runtime[0] else {}
    if samples is None or (one and not samples):
        return {"hot_loop": {"by": "only loop" if one else "work", **({} if one else {"why": why}), **shares}}
    total = sum(sum(v.values()) for v in samples.values())
    by_samples = evidence.loop_evidence(lib, spec.audit_function or spec.function, session.machine, samples)
    same = by_samples.get("loop_at") == code.get("loop_at")
    info = {"by": "samples", "samples": total, "moved": not same,
            "in_inner_loops": evidence.inner_loop_share(lib, samples), **shares}
    if same or not by_samples.get("loop"):
        return {"hot_loop": info}
    return {**{k: by_samples[k] for k in ("audit", "loop", "loop_at", "prediction", "loop_function")},
            "hot_loop": info}


def _roofs(roofline: list[dict] | None, spec: KernelSpec, cpus: int, code: dict) -> dict:
    """The roofs that bound the hot loop as it accesses memory (``code["access"]`` is set from it), on the threads
    declared and on all CPUs, and those its stores would have as streaming stores (write-allocate avoided)."""
    code["access"] = evidence.access_kinds(code)
    one, every = evidence.roofs_for(roofline, spec, cpus, code["access"], code)
    nt = roofs_at(roofline, spec.threads, spec.precision, ("copy_nt", "triad_nt")) \
        if roofline and code["access"] and code["access"][0] in ("copy", "triad") else None
    return {"roofs": one, "roofs_all": every, "roofs_nt": nt, "stream_kind": evidence.reference_kind(code)}


# the BLAS GEMM alternated with a kernel under this share of the machine's stored BLAS roof was itself slowed (a
# second vCPU the host lent away meanwhile): a yardstick that short says nothing about the kernel's distance to
# what the machine does
SLOW_REFERENCE = 0.7


def _against_stored(ref: dict | None, roofs: dict | None) -> dict | None:
    """The BLAS GEMM reference, marked ``slow`` (with the stored rate) when it ran under SLOW_REFERENCE of the
    stored BLAS roof for those threads."""
    stored = blas_roof(roofs)
    if ref and ref.get("reference_flops_per_s") and stored and ref["reference_flops_per_s"] < SLOW_REFERENCE * stored:
        ref = {**ref, "slow": {"stored_flops_per_s": stored, "share": ref["reference_flops_per_s"] / stored}}
    return ref


def _pages(spec: KernelSpec) -> dict:
    """The pages the kernel's arrays are on: ``small_pages`` says why they are 4 KiB pages (the spec's huge_pages =
    false, or no transparent huge pages on this machine), None when they are huge; with the TLB's size."""
    thp = thp_mode()
    why = (msg("huge_pages = false in the spec") if not spec.huge_pages else
           msg("this machine gives no transparent huge pages") if thp == "never" else None)
    return {"small_pages": why, "thp": thp, "tlb_entries": tlb_entries(), "placement": spec.placement,
            "array_args": [(k, v.output) for k, v in spec.args.items() if isinstance(v, ArrayArg)]}


def explain_kernel(session, spec: KernelSpec, sizes: list[dict], roofline: list[dict] | None, *,
                   experiments: bool = True, quick: bool = False) -> dict:
    begun = time.monotonic()
    cpus = usable_cpus()
    entry = {"name": spec.name, "spec": spec.to_dict(), "roofs": None, "sizes": []}
    try:
        session.progress(f"explain: compiling {spec.name}")
        lib = build_spec(spec)
    except CompileError as exc:
        entry["error"] = str(exc)
        entry["diagnostics"] = [{"file": d.file, "line": d.line, "col": d.col, "kind": d.kind, "text": d.text}
                                for d in exc.diagnostics]
        session.record(spec.name, entry)
        return entry
    entry["library"] = lib.to_dict()
    session.progress(f"explain: reading the code of {spec.name}")
    code = evidence.code_evidence(spec, lib, session.machine)
    entry["code"] = code
    ctx = {"cpus": cpus, "threads": spec.threads, "isa_vector_bits": code["isa_vector_bits"],
           "profile": spec.profile, "openmp": spec.openmp, "arch": read(Isa, session.machine.get("isa")).arch,
           "precision": spec.precision, **_roofs(roofline, spec, cpus, code), **_pages(spec)}
    roofs_one, roofs_all = ctx["roofs"], ctx["roofs_all"]
    entry["roofs"] = roofs_one
    for i, size in enumerate(sizes):
        started = begun if i == 0 else time.monotonic()  # the first size's budget includes the build
        row = evidence.measure_size(session, spec, lib, size, roofs_one, roofs_all, quick)
        if i == 0 and not row.get("error") and code.get("loop"):
            code.update(_where_the_time_goes(session, spec, lib, size, code, row.get("time_s")))
            if read(HotLoop, code.get("hot_loop")).moved:  # what the source and compiler say of the loop that runs
                # (read in the function the loop is in: a body outlined from the kernel, a helper it calls)
                code.update(evidence.scoped_evidence(
                    spec, lib, code.get("loop_function") or spec.audit_function or spec.function, code.get("loop_at")))
            before = code["access"]
            ctx.update(_roofs(roofline, spec, cpus, code))
            if code["access"] != before:  # the loop the time goes to accesses memory otherwise: its roofs
                roofs_one, roofs_all = ctx["roofs"], ctx["roofs_all"]
                entry["roofs"] = roofs_one
                evidence.place_row(session, row, roofs_one, roofs_all)
        if not row.get("error"):
            # the twin's prediction tells a dependency chain from port pressure: worth its run where a chain shows
            # or the kernel is bound by compute
            if (i == 0 and read(Prediction, code.get("prediction")).error and code.get("loop")
                    and (read(Loop, code["loop"]).longest_chain or row.get("bound") == "compute")):
                code["sibling"] = _sibling(session, spec, size, quick, code.get("loop_function"))
            # per iteration of a loop the samples show cold, a figure would describe code that hardly runs
            row["cycles_per_iteration"], row["iterations"] = (None, None) if cold(code.get("hot_loop")) else \
                evidence.cycles_per_iteration(row["time_s"] * _threads_each(spec, cpus),
                                              session.machine.get("clock_hz"), code.get("loop"), row["flops"],
                                              row["bytes"], _walked_arrays(spec, size, code))
            kind = evidence.reference_kind(code)
            # a call too long for paired rounds within the budget: the reference and the experiments run at a
            # smaller size whose arrays stay in the same level
            size_at, call_s = size, row["time_s"]
            trial = trial_size(spec, size, row, quick)
            if trial is not None:
                size_at, call_s = trial
                row["trial_size"] = {
                    "size": size_at, "call_s": call_s, "level": row.get("level"),
                    "text": msg("the reference and the experiments ran at {size}, their arrays still in {level} (a "
                                "call about {t}; those on how the arrays lie in memory at the size measured): at the "
                                "size measured a call takes {t0}",
                                size=" ".join(f"{k}={v}" for k, v in size_at.items()), level=row.get("level") or "?",
                                t=seconds(call_s), t0=seconds(row["time_s"]))}
            rounds = paired_rounds(call_s, quick)
            # the reference runs on the CPUs the kernel kept busy: an OpenMP kernel declared for one thread may
            # take them all
            busy = max(spec.threads, min(cpus, round(row.get("cpus_busy") or 1)))
            if row.get("bound") == "memory" and row.get("level") == "DRAM" and kind:
                row["reference"] = reference_run(session, spec, lib, size_at, kind, rounds=rounds, threads=busy)
            elif row.get("bound") == "compute":
                row["reference"] = _against_stored(
                    blas_reference_run(session, spec, lib, size_at, rounds=rounds, threads=busy),
                    ctx["roofs_all"] if busy > 1 else ctx["roofs"])
            if evidence.traffic_tells(row):
                # within the kernel's budget, leaving the leading experiment its rounds
                left = KERNEL_BUDGET_S[quick] - (time.monotonic() - started) - least_experiment_s(call_s)
                if left >= evidence.TRAFFIC_MIN_S:
                    session.progress(f"explain: {row['label']}: counting its memory traffic")
                    row["traffic"] = evidence.traffic(spec, size, session.machine, session.progress, row,
                                                      timeout_s=min(evidence.TRAFFIC_TIMEOUT_S, left))
                else:
                    row["traffic"] = {"skipped": msg("not counted: the kernel's time budget ({b}) is spent",
                                                     b=seconds(KERNEL_BUDGET_S[quick]))}
            pragmas = read(Pragmas, code.get("pragmas"))
            rctx = {**ctx, "gemm_like": gemm_dims(spec, size) is not None, "caches": row.get("caches"),
                    "pow2_rows": pow2_rows(spec, size), "page_rows": page_rows(spec, size), "busy_threads": busy,
                    "thread_slots": pragmas.thread_slots, "loop_function": code.get("loop_function"),
                    "regions_per_call": evidence.regions_per_call(pragmas.regions_in_loops, spec.scalars(size)),
                    **_loop_trips(pragmas.loop_heads, spec.scalars(size))}
            row["findings"] = diagnose(code, row, rctx)
            row["experiments"] = []
            if experiments:
                done: set[str] = set()
                ectx = {**rctx, "fits": faster_level(row, roofs_one)}
                # a tentative finding's experiment is its only evidence: it runs first
                # (they take the fewest rounds, and are not counted among the MAX_EXPERIMENTS)
                probes = {x for f in row["findings"] if f.get("tentative") for x in f["experiments"]}
                for f in sorted(row["findings"], key=lambda f: not f.get("tentative")):
                    for exp in f["experiments"]:
                        if exp in done or (not f.get("tentative") and len(done - probes) >= MAX_EXPERIMENTS):
                            continue
                        done.add(exp)
                        # see AT_MEASURED_SIZE
                        at = size if exp in AT_MEASURED_SIZE else size_at
                        at_s = row["time_s"] if at is size else call_s
                        # the leading finding's test may run past the budget, not a tentative one's before it
                        lead = not f.get("tentative") and all(e["id"] in probes for e in row["experiments"])
                        n = within_budget(time.monotonic() - started, at_s,
                                          paired_rounds(at_s, quick) if at is size else rounds, lead, quick)
                        if n is not None and f.get("tentative"):
                            # it stands only on a large gain (TENTATIVE_GAIN), which the fewest rounds show
                            n = min(n, MIN_ROUNDS)
                        if n is None:
                            row["experiments"].append({
                                "id": exp, "what": msg("experiment {id}", id=exp), "finding": f["id"],
                                "error_kind": "budget",
                                "error": msg("its paired rounds (about {t}) would take this kernel past its budget "
                                             "of {b}", t=seconds(least_experiment_s(at_s)),
                                             b=seconds(KERNEL_BUDGET_S[quick]))})
                            continue
                        try:
                            r = run_experiment(session, exp, spec, lib, at, ectx, rounds=n)
                        except RooflabError as exc:
                            r = {"id": exp, "error": str(exc), "error_kind": "error"}
                        if r is not None:
                            r["finding"] = f["id"]
                            row["experiments"].append(r)
                        if f.get("tentative") and not (r and r.get("verdict") == "faster"
                                                       and r["speedup"] >= TENTATIVE_GAIN):
                            break  # its test did not gain enough: its control cannot make it stand
                row["findings"] = weigh(row["findings"], row["experiments"], row["time_s"])
        row.pop("timing", None)
        entry["sizes"].append(row)
        session.record(row["label"], {k: v for k, v in row.items() if k != "caches"})
    return entry


# paired rounds of a reference or an experiment: 10 (--quick) or 20, fewer for a call so long that they would take
# more than PAIRED_BUDGET_S (a j-k-i GEMM at n = 512 takes 2 s a call), never under MIN_ROUNDS
PAIRED_BUDGET_S = {True: 8.0, False: 30.0}
MIN_ROUNDS = 5


def paired_rounds(time_s: float, quick: bool) -> int:
    most = 10 if quick else 20
    return max(MIN_ROUNDS, min(most, int(PAIRED_BUDGET_S[quick] / max(2 * time_s, 1e-9))))


# the time one kernel at one size may take, experiments included: the leading finding's experiment always runs (with
# fewer rounds, never under MIN_ROUNDS, where its full rounds would overrun); a later one only where its rounds fit
KERNEL_BUDGET_S = {True: 30.0, False: 120.0}


def least_experiment_s(call_s: float) -> float:
    """The least an experiment takes, a call of the original taking ``call_s`` (the variant's taken as long):
    MIN_ROUNDS paired rounds, a warm-up and the check."""
    return 2 * max(call_s, 0.0) * (MIN_ROUNDS + 2)


def within_budget(elapsed_s: float, call_s: float, rounds: int, first: bool, quick: bool) -> int | None:
    """The paired rounds an experiment may take after ``elapsed_s`` of its kernel's budget, a call of the original
    taking ``call_s`` (the variant's is taken as long: not known before it runs; each round times both, plus a
    warm-up and the check): ``rounds`` or fewer, None when even MIN_ROUNDS would overrun and it is not the first."""
    per_round = 2 * max(call_s, 0.0)
    if per_round <= 0:
        return rounds
    fit = int((KERNEL_BUDGET_S[quick] - elapsed_s) / per_round) - 2
    if fit >= rounds:
        return rounds
    if fit >= MIN_ROUNDS:
        return fit
    return MIN_ROUNDS if first else None


# a call longer than twice this makes paired rounds of the reference and the experiments take most of a kernel's
# half minute (a j-k-i GEMM at n = 512: 2 s a call, 92 s in all): they run at a smaller size, calls of about this
TRIAL_CALL_S = {True: 0.1, False: 0.25}
IN_LEVEL = 1.25  # arrays this many times the faster cache or more are served from the level beyond it
# experiments that run at the size measured, not a smaller trial size: how the arrays lie in memory (rows a power of
# two apart, pages), and blocking, whose gain depends on each operand against each cache (a product at n = 1000 on a
# 2 MiB L2: blocked 2.4x faster; at the trial size its B fitted L2 and blocking gained nothing, 0.95x)
AT_MEASURED_SIZE = {"padded", "huge_pages", "smaller", "blocked", "placement"}


def trial_size(spec: KernelSpec, size: dict, row: dict, quick: bool) -> tuple[dict, float] | None:
    """(size, its estimated call time) for the reference and the experiments when a call at ``size`` is longer than
    twice TRIAL_CALL_S: every size variable halved, then quartered, ... (a power of two stays one: a leading
    dimension keeps its conflicts), while the arrays stay more than IN_LEVEL times the cache just faster than the
    level that holds them (the data still lives where it did), until a call is estimated (work scaled) at
    TRIAL_CALL_S or less. None when no smaller size keeps the level or saves half the time."""
    target = TRIAL_CALL_S[quick]
    t = row.get("time_s") or 0.0
    if t <= 2 * target or not size or not all(isinstance(v, int) and v > 1 for v in size.values()):
        return None
    floor = IN_LEVEL * evidence.faster_cache_bytes(row)
    try:
        flops, nbytes = spec.work(size)
        work = flops or nbytes
        best = None
        for k in range(1, 20):
            small = {name: v >> k for name, v in size.items()}
            if min(small.values()) < 1 or spec.array_bytes(small) <= floor:
                break
            f, b = spec.work(small)
            est = t * (f or b) / work if work else t
            best = (small, est)
            if est <= target:
                break
    except RooflabError:
        return None
    return best if best is not None and best[1] <= t / 2 else None


def explain_kernels(session, specs: list[KernelSpec], *, sizes: dict | None, roofline: list[dict] | None,
                    experiments: bool = True, quick: bool = False) -> list[dict]:
    """Each kernel at the sizes asked (``sizes``: one size for every kernel; None: each spec's own sizes)."""
    out = []
    for spec in specs:
        todo = [size_for(spec, sizes)] if sizes else list(spec.sizes)
        out.append(explain_kernel(session, spec, todo, roofline, experiments=experiments, quick=quick))
    return out

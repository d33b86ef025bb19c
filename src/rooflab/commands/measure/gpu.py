"""`rooflab measure --device cuda`: the GPU's roofline, measured on the GPU in front of the user.

Order of a run: warm the GPU up until its clock settles (an idle GPU clocks low, and a roofline measured before the
boost is wrong); FMA chains on the CUDA cores (fp64, fp32), each sample with the SM clock its own kernel measured
(clock64 over the global timer, block by block), set against the theoretical peak at that clock; the tensor-core
ceilings from large cuBLAS GEMMs, sampled once the GEMM has run long enough for the clock to settle at what the
GPU's power cap sustains (the faster first burst is kept beside it), with the clock NVML saw during the samples; a working-set sweep of read, copy and triad that finds the L2 plateau and HBM; a
device-to-device memcpy as the bandwidth reference; the batch sweep X[B,D]·W[D,F] in bf16. The GPU's state
(clocks, power, temperature, throttle reasons, other processes) is read before, during and after.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import threading
import time
from dataclasses import dataclass

from rooflab.commands.measure.common import ceiling_tables, rename_above_limit, sweep_notes, sweep_roofline, sweep_table
from rooflab.contract import Command, Hooks, Outputs, Report, option, quick_option
from rooflab.documents.common import read
from rooflab.documents.measure import GpuTheoretical, ceilings
from rooflab.errors import RooflabError
from rooflab.gpu import backend as gpu_backend
from rooflab.gpu import specs
from rooflab.gpu.backend import SLOWING, Timed, Unsupported
from rooflab.i18n import msg, tr
from rooflab.interpret.gpu import GPU_TABLE, PEAKS_TABLE, gpu_observations, reference_notes
from rooflab.model.plateaus import named_plateaus, sweep_sizes
from rooflab.model.roofline import best, matmul_counts, memory_roofs, sweep_point
from rooflab.session import Session
from rooflab.timing.checks import MeasurementWarning, check_clock_stability, check_physical_limit
from rooflab.timing.stats import median, summarize

KINDS = ("read", "copy", "triad")
LIMIT = 1.02  # above this fraction of its theoretical value a ceiling is flagged, never used as a roof
GEMM_TOL = {"fp64_tensor": 1e-9, "tf32": 5e-3, "fp16": 5e-3, "bf16": 2e-2, "fp8": 0.1}


@dataclass(frozen=True)
class GpuOptions:
    quick: bool = quick_option("A first look: fewer samples, smaller sizes.")
    batch_sweep: bool = option(True, help="Run the X[B,D]·W[D,F] sweep in bf16 against the roofline.")
    index: int = option(0, min=0, help="Which CUDA device.")
    backend: object = option(None, where="api", help="The backend to measure through (default: CuPy on the device "
                                                     "``index``; tests pass a simulated one).")


@dataclass(frozen=True)
class GpuPlan:
    sample_s: float
    samples: int
    warmup_s: float
    sustain_s: float  # how long a GEMM runs before its samples, so that they see the clock the GPU sustains
    gemm_sample_s: float  # one GEMM sample: long enough to average the clock a power cap moves every few ms
    sweep: tuple[int, ...]
    hbm_bytes: int
    gemm_n: int
    batch_d: int
    batches: tuple[int, ...]


def make_plan(quick: bool, dev: specs.DeviceInfo) -> GpuPlan:
    """Sizes for this device: the sweep runs from 1 MiB to well past the L2 (at least 16 x L2, at most an eighth
    of the memory); the HBM ceiling is measured at a set of at least 16 x L2."""
    l2 = dev.l2_bytes or 64 << 20
    cap = max(64 << 20, dev.memory_bytes // 8) if dev.memory_bytes else 4 << 30
    top = min(cap, (1 << 30) if quick else (4 << 30))
    top = max(top, min(cap, 16 * l2))
    sweep = sweep_sizes(1 << 20, top, 0.5 if quick else 1)
    hbm = min(cap, max(16 * l2, (1 << 30) if quick else (2 << 30)))
    d = 4096 if quick else 8192
    batches = (1, 4, 16, 64, 256, 1024, 4096) if quick else tuple(2 ** i for i in range(14))
    return GpuPlan(sample_s=0.005 if quick else 0.02, samples=5 if quick else 9, warmup_s=0.5 if quick else 2.0,
                   sustain_s=0.5 if quick else 1.5, gemm_sample_s=0.03 if quick else 0.1,
                   sweep=tuple(sweep), hbm_bytes=int(hbm), gemm_n=4096 if quick else 8192, batch_d=d,
                   batches=batches)


# ------------------------------------------------------------------------------------------------- timing


def calibrate(t: Timed, min_s: float, max_reps: int = 1 << 16) -> int:
    """Launches per sample so that one sample lasts at least ``min_s`` (device time)."""
    t.run(1)  # first launch: compile, allocate, warm the caches
    reps = 1
    while reps < max_reps:
        s = t.run(reps)
        if s >= min_s:
            return reps
        reps = min(max_reps, max(reps * 2, int(reps * 1.2 * min_s / max(s, 1e-9)) + 1))
    return reps


def sample(t: Timed, plan: GpuPlan, *, samples: int | None = None, reps: int | None = None) -> tuple[list[float], int]:
    """Seconds per launch, one value per sample."""
    reps = reps or calibrate(t, plan.sample_s)
    return [t.run(reps) / reps for _ in range(samples or plan.samples)], reps


def sustained_samples(t: Timed, plan: GpuPlan, seconds: float, samples: int | None = None,
                      during=contextlib.nullcontext) -> tuple[list[float], int, dict]:
    """A GEMM's samples at the rate the GPU sustains: short chunks for ``seconds`` first (their fastest is the burst),
    then samples of ``plan.gemm_sample_s`` each, inside ``during()`` (a StateSampler reads the clock there). Under a
    power cap the clock moves every few milliseconds: 20 ms samples of one bf16 GEMM spread by 10% (CV)."""
    reps = calibrate(t, plan.sample_s)
    held = sustain(t, reps, seconds)
    long_reps = reps * max(1, round(plan.gemm_sample_s / plan.sample_s))
    with during():
        secs, _ = sample(t, plan, samples=samples, reps=long_reps)
    return secs, long_reps, held


def sustain(t: Timed, reps: int, seconds: float, tol: float = 0.03) -> dict:
    """Run ``reps``-launch chunks back to back until the rate holds (the last three chunks within ``tol``) after at
    least half of ``seconds``, or for ``seconds`` (device time). A GPU at its power or thermal cap runs its first tens of
    milliseconds of a heavy kernel faster than it can keep up: samples taken then are a burst, not a ceiling. The
    fastest chunk is kept as the burst rate."""
    rates, spent = [], 0.0
    while True:
        s = t.run(reps)
        rates.append(t.work * reps / s)
        spent += s  # device time
        last = rates[-3:]
        settled = len(last) == 3 and max(last) <= (1 + tol) * min(last)
        if spent >= seconds or (settled and spent >= seconds / 2):
            break
    return {"seconds": spent, "chunks": len(rates), "settled": settled, "burst_flops_per_s": max(rates),
            "first_flops_per_s": rates[0], "last_flops_per_s": rates[-1]}


class StateSampler:
    """Reads the GPU's state (NVML or nvidia-smi) every ``period`` seconds in a thread while a block runs."""

    def __init__(self, backend, period: float = 0.1):
        self.backend, self.period, self.states = backend, period, []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self):
        first = self.backend.state()
        if first:
            self.states.append(first)
            self._thread = threading.Thread(target=self._loop, daemon=True)
            self._thread.start()
        return self

    def _loop(self):
        while not self._stop.wait(self.period):
            s = self.backend.state()
            if s:
                self.states.append(s)

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def clocks(self) -> list[float]:
        return [s["sm_clock_hz"] for s in self.states if s.get("sm_clock_hz")]

    def reasons(self) -> set[str]:
        return {r for s in self.states for r in s.get("event_reasons", []) if r in SLOWING}


def _ci_rate(work: float, secs: list[float]) -> tuple[float, list[float], float, int]:
    s = summarize(secs)
    return (*s.rate(work), s.cv, s.n)


# ------------------------------------------------------------------------------------------------ ceilings


def _warmup(session: Session, backend, plan: GpuPlan) -> dict:
    """Run the fp32 FMA kernel (launches of about 10 ms) until the SM clock it measures has settled: the last five
    launches within 3% of each other after at least half of ``plan.warmup_s``, or ``plan.warmup_s`` at most (a boost
    moves the clock by 10-40%)."""
    session.progress("GPU: warming up until the clock settles")
    iters = 1 << 12
    t = backend.fma("fp32", iters)
    while t.run(1) < 0.01 and iters < 1 << 24:
        iters *= 2
        t = backend.fma("fp32", iters)
    clocks, start = [], time.monotonic()
    while True:
        t.run(1)
        c = t.clock_hz() if t.clock_hz else None
        if c:
            clocks.append(c)
        spent = time.monotonic() - start
        last = clocks[-5:]
        settled = len(last) == 5 and max(last) <= 1.03 * min(last)
        if spent >= plan.warmup_s or (settled and spent >= plan.warmup_s / 2) or len(clocks) >= 1000:
            break
    return {"seconds": time.monotonic() - start, "launches": len(clocks), "iters": iters,
            "first_clock_hz": clocks[0] if clocks else None, "last_clock_hz": clocks[-1] if clocks else None,
            "settled": len(clocks) >= 5 and max(clocks[-5:]) <= 1.03 * min(clocks[-5:])}


def _fma_ceilings(session: Session, backend, plan: GpuPlan, dev: specs.DeviceInfo) -> tuple[list[dict], list[float]]:
    out, all_clocks = [], []
    for prec in ("fp64", "fp32"):
        name = f"{prec} FMA (CUDA cores)"
        session.progress(f"GPU: {name}")
        entry = {"name": name, "precision": prec, "unit": "cuda_cores", "kernel": "fma chains"}
        iters = 1 << 12
        t = backend.fma(prec, iters)
        s = t.run(1)
        while s < plan.sample_s and iters < 1 << 26:  # one launch per sample, long enough for its clock to be exact
            iters *= 2
            t = backend.fma(prec, iters)
            s = t.run(1)
        flops_per_cycle = specs.flops_per_clock(dev.cc, prec)
        secs, clocks, fracs = [], [], []
        with StateSampler(backend) as st:
            for _ in range(plan.samples):
                s = t.run(1)
                secs.append(s)
                c = t.clock_hz() if t.clock_hz else None
                if c:  # each sample against the clock its own launch ran at
                    clocks.append(c)
                    if flops_per_cycle:
                        fracs.append(t.work / s / (flops_per_cycle * dev.sms * c))
        err = t.check()
        rate, ci, cv, n = _ci_rate(t.work, secs)
        nvml = st.clocks()
        source = "clock64/globaltimer" if clocks else None
        if not clocks and nvml:  # no in-kernel clock: the clock the driver reported meanwhile
            clocks, source = nvml, "nvml"
            if flops_per_cycle:
                fracs = [t.work / sec / (flops_per_cycle * dev.sms * median(nvml)) for sec in secs]
        clock = median(clocks) if clocks else None
        frac = summarize(fracs).median if fracs else None
        entry.update(flops_per_s=rate, ci95=ci, samples=n, cv=cv, rel_error=err, iters=iters,
                     clock_hz_during=clock, clock_source=source, clock_hz_nvml=median(nvml) if nvml else None,
                     theoretical_flops_per_s=flops_per_cycle * dev.sms * clock if flops_per_cycle and clock else None,
                     of_theoretical=frac,
                     status="ok", reason=None)
        if err > 1e-3:
            entry.update(status="wrong", reason=msg("relative error {err:.2g} against a higher-precision reference", err=err))
        elif frac is not None:
            w = check_physical_limit(frac, 1.0, unit="", subject=f"GPU {name}",
                                     what=msg("theoretical peak at the clock measured beside it"))
            if w:
                entry.update(status="impossible", reason=w.msg)
                session.warn(w)
        session.warn(check_clock_stability(clocks, subject=f"GPU {name}"))
        all_clocks += clocks
        session.record(f"gpu {name}", entry)
        out.append(entry)
    return out, all_clocks


def _tensor_ceilings(session: Session, backend, plan: GpuPlan, dev: specs.DeviceInfo, fallback_clock: float | None,
                     slowed: set[str]) -> list[dict]:
    out = []
    for prec in specs.gemm_precisions(dev.cc):
        n = plan.gemm_n // 2 if prec == "fp64_tensor" else plan.gemm_n
        name = f"{prec} tensor GEMM n={n}"
        session.progress(f"GPU: {name}")
        entry = {"name": name, "precision": prec, "unit": "tensor_cores", "kernel": "cuBLAS GEMM", "n": n}
        try:
            t = backend.gemm(prec, n, n, n)
            st = StateSampler(backend, period=0.05)
            secs, reps, held = sustained_samples(t, plan, plan.sustain_s, during=lambda: st)
            err = t.check()
        except Unsupported as exc:
            entry.update(status="unsupported", reason=exc.msg, flops_per_s=None, ci95=None)
            out.append(entry)
            continue
        except RooflabError:
            raise
        except Exception as exc:  # a cuBLAS or driver error for this one precision: report it, go on
            entry.update(status="failed", reason=f"{type(exc).__name__}: {exc}", flops_per_s=None, ci95=None)
            out.append(entry)
            session.record(f"gpu {name}", entry)
            continue
        finally:
            backend.release()
        rate, ci, cv, ns = _ci_rate(t.work, secs)
        clocks = st.clocks()
        slowed |= st.reasons()
        clock = median(clocks) if clocks else fallback_clock
        peak = specs.peak_flops(dev, prec, clock) if clock else None
        entry.update(flops_per_s=rate, ci95=ci, samples=ns, cv=cv, rel_error=err, reps=reps, note=t.note or None,
                     burst_flops_per_s=max(held["burst_flops_per_s"], t.work / min(secs)),
                     sustained={k: held[k] for k in ("seconds", "chunks", "settled")},
                     clock_hz_during=clock, clock_source=("nvml" if clocks else "clock64 of the FMA kernel")
                     if clock else None, theoretical_flops_per_s=peak,
                     of_theoretical=rate / peak if peak else None, status="ok", reason=None)
        if err > GEMM_TOL.get(prec, 1e-2):
            entry.update(status="wrong", reason=msg("relative error {err:.2g} against a higher-precision reference", err=err))
        elif peak:
            # impossible only above the peak at the highest clock the SM could have run at: NVML reads the clock a
            # few times during the samples, and under a power cap the clock moves between those readings
            top = max([clock, *clocks, dev.max_sm_clock_hz or 0.0])
            w = check_physical_limit(rate, specs.peak_flops(dev, prec, top), subject=f"GPU {name}",
                                     what=msg("{prec} peak at the highest SM clock ({ghz:.2f} GHz)", prec=prec,
                                              ghz=top / 1e9))
            if w:
                entry.update(status="impossible", reason=w.msg)
                session.warn(w)
            elif check_physical_limit(entry["burst_flops_per_s"], specs.peak_flops(dev, prec, top),
                                      what=msg("{prec} peak", prec=prec)):
                entry["burst_flops_per_s"] = None  # a burst above any clock's peak is a timing fault, not a burst
        session.record(f"gpu {name}", entry)
        out.append(entry)
    return out


def _bandwidth(session: Session, backend, plan: GpuPlan, dev: specs.DeviceInfo) -> tuple[list[dict], list[dict]]:
    sweeps, ceilings = [], []
    hbm_th = specs.hbm_bandwidth(dev)
    l2 = dev.l2_bytes or None
    quick_plan = dataclasses.replace(plan, samples=3)
    for kind in KINDS:
        pts = []
        for ws in plan.sweep:
            session.progress(f"GPU: {kind} sweep, {ws >> 10} KiB")
            t = backend.stream(kind, ws)
            secs, _ = sample(t, quick_plan)
            backend.release()
            pts.append({"bytes": ws, "bytes_per_s": t.work / summarize(secs).median})
        plateaus = named_plateaus([p["bytes"] for p in pts], [p["bytes_per_s"] for p in pts], {"L2": l2} if l2 else {})
        named = []
        for p in plateaus:
            level = "HBM" if p.level == "DRAM" else p.level
            named.append({"level": level, "start_bytes": p.sizes[0], "end_bytes": p.sizes[-1],
                          "boundary_bytes": p.boundary_bytes, "expected_bytes": l2 if level == "L2" else None,
                          "median": p.median, "points": len(p.sizes)})
        sweeps.append({"kernel": kind, "points": pts, "plateaus": named})
        # the ceilings: L2 at its plateau's centre, HBM at a set far past the L2
        l2p = next((p for p in named if p["level"] == "L2"), None)
        targets = []
        if l2p:
            targets.append(("L2", int(math.sqrt(l2p["start_bytes"] * l2p["end_bytes"])), True))
        elif l2:
            targets.append(("L2", l2 // 4, False))
        targets.append(("HBM", plan.hbm_bytes, True))
        for level, ws, found in targets:
            session.progress(f"GPU: {level} {kind}")
            t = backend.stream(kind, ws)
            secs, reps = sample(t, plan)
            err = t.check()
            backend.release()
            rate, ci, cv, n = _ci_rate(t.work, secs)
            entry = {"level": level, "kernel": kind, "bytes_per_s": rate, "ci95": ci, "samples": n, "cv": cv,
                     "working_set_bytes": ws, "rel_error": err, "plateau_found": found, "status": "ok",
                     "reason": None, "theoretical_bytes_per_s": hbm_th if level == "HBM" else None,
                     "of_theoretical": rate / hbm_th if level == "HBM" and hbm_th else None}
            if err > 1e-5:
                entry.update(status="wrong", reason=msg("relative error {err:.2g} against a higher-precision reference", err=err))
            elif level == "HBM" and hbm_th:
                w = check_physical_limit(rate, hbm_th, what=msg("HBM bandwidth from the memory clock and bus width"),
                                         unit="B/s", subject=f"GPU HBM {kind}")
                if w:
                    entry.update(status="impossible", reason=w.msg)
                    session.warn(w)
            session.record(f"gpu {level} {kind}", entry)
            ceilings.append(entry)
    return sweeps, ceilings


def _reference(session: Session, backend, plan: GpuPlan, ceilings: list[dict]) -> dict:
    """cudaMemcpy device to device over the HBM set, timed the same way: what the driver's own copy reaches."""
    session.progress("GPU: device-to-device memcpy")
    t = backend.d2d_copy(plan.hbm_bytes)
    secs, _ = sample(t, plan)
    err = t.check()
    backend.release()
    rate, ci, cv, n = _ci_rate(t.work, secs)
    copy = next((c for c in ceilings if c["level"] == "HBM" and c["kernel"] == "copy" and c["status"] == "ok"), None)
    ref = {"name": "cudaMemcpy device to device", "bytes_per_s": rate, "ci95": ci, "samples": n, "cv": cv,
           "working_set_bytes": plan.hbm_bytes, "rel_error": err,
           "copy_over_d2d": copy["bytes_per_s"] / rate if copy else None}
    session.record("gpu d2d memcpy", ref)
    return ref


def roofs(doc: dict) -> dict:
    comp = [{"name": c["name"], "value": c["flops_per_s"], "precision": c["precision"], "unit": c["unit"]}
            for c in ceilings(doc, "compute") if c.get("status") == "ok" and c.get("flops_per_s")]
    return {"compute": comp, "memory": memory_roofs(ceilings(doc, "bandwidth"), ("L2", "HBM"))}


def _batch_sweep(session: Session, backend, plan: GpuPlan, doc: dict) -> tuple[list[dict], dict]:
    cc = ceilings(doc, "compute")
    prec = next((p for p in ("bf16", "fp16") if best(cc, "flops_per_s", precision=p)), None)
    peak = best(cc, "flops_per_s", precision=prec) if prec else None
    hbm = best(ceilings(doc, "bandwidth"), "bytes_per_s", level="HBM")
    d = plan.batch_d
    info = {"D": d, "F": d, "dtype": prec, "output": "fp32",
            "compute_roof": {"name": peak["name"], "flops_per_s": peak["flops_per_s"]} if peak else None,
            "memory_roof": {"name": f"HBM {hbm['kernel']}", "bytes_per_s": hbm["bytes_per_s"]} if hbm else None}
    if not (peak and hbm):
        info["skipped"] = msg("no bf16 (or fp16) GEMM or HBM ceiling to predict from")
        return [], info
    limits = read(GpuTheoretical, doc.get("theoretical"))
    th, hth = limits.flops.get(prec), limits.hbm_bytes_per_s
    if th and hth:
        info["theoretical_ridge"] = th / hth
    out = []
    for b in plan.batches:
        session.progress(f"GPU: batch sweep B={b}")
        try:
            t = backend.gemm(prec, b, d, d)
            # the rate the GPU sustains, as for the ceiling it is set against; each point follows a sustained one,
            # so a third of the ceilings' settling time is enough
            secs, reps, _ = sustained_samples(t, plan, plan.sustain_s / 3, samples=max(3, plan.samples // 2))
            err = t.check()
        except Unsupported as exc:
            info["skipped"] = exc.msg
            return [], info
        finally:
            backend.release()
        flops, nbytes = matmul_counts(b, d, d, 2, 4)  # X and W in bf16, C in fp32
        s = summarize(secs)
        p = sweep_point(b, flops, nbytes, s.median, s.ci95, peak, hbm, LIMIT)
        p.update(rel_error=err, samples=s.n)
        if p["above_roof"]:
            session.warn(check_physical_limit(p["flops_per_s"], p["predicted_flops_per_s"],
                                              what=msg("roofline prediction"), subject=f"GPU batch B={b}"))
        out.append(p)
    session.record("gpu batch sweep", {"points": out, **info})
    return out, info


# ------------------------------------------------------------------------------------------------ warnings


def state_warnings(before: dict, slowed: set[str], own_pid: int) -> list[MeasurementWarning]:
    """A GPU busy before the run began (utilization; other processes only where utilization is unknown: in a
    container NVML reports host PIDs, so a process list alone cannot tell ours from others), and any power or
    thermal slowdown seen during the run."""
    out = []
    others = [p for p in before.get("processes", []) if p.get("pid") != own_pid]
    util = before.get("utilization")
    if (util is not None and util > 0.05) or (util is None and others):
        out.append(MeasurementWarning("gpu-shared", msg("the GPU was not idle when the run began: {n} other process(es) on it, "
                                              "utilization {util}", n=len(others),
                                              util="—" if util is None else f"{util:.0%}"),
                            util if util is not None else float(len(others)), 0.05,
                            msg("run when nothing else uses the GPU (check nvidia-smi); a shared GPU measures low"),
                            "GPU"))
    if slowed:
        out.append(MeasurementWarning("gpu-throttled", msg("the GPU slowed itself during the measurements: {reasons}",
                                                 reasons=", ".join(sorted(slowed))),
                            float(len(slowed)), 0.0, msg("the ceilings are what this GPU sustains under its current "
                                                         "power and cooling; check power limits and temperatures "
                                                         "(nvidia-smi -q -d PERFORMANCE)"), "GPU"))
    return out


# ------------------------------------------------------------------------------------------------ entry


def prepare(opts: GpuOptions) -> GpuOptions:
    """No CuPy, driver or device: said before a run is opened in the store."""
    return opts if opts.backend is not None else dataclasses.replace(opts, backend=gpu_backend.select_backend("cuda", opts.index))


def run(session: Session, opts: GpuOptions) -> dict:
    backend = opts.backend
    dev = backend.device()
    plan = make_plan(opts.quick, dev)
    before = backend.state()
    warm = _warmup(session, backend, plan)
    slowed: set[str] = set()
    with StateSampler(backend, period=0.5) as during:
        compute, clocks = _fma_ceilings(session, backend, plan, dev)
    slowed |= during.reasons()
    clock = median(clocks) if clocks else (warm.get("last_clock_hz") or dev.max_sm_clock_hz)
    compute += _tensor_ceilings(session, backend, plan, dev, clock, slowed)
    sweeps, bandwidth = _bandwidth(session, backend, plan, dev)
    doc = {"device": "cuda", "backend": backend.name, "quick": opts.quick,
           "gpu": dev.to_dict(), "plan": {**plan.__dict__}, "warmup": warm,
           "theoretical": specs.theoretical(dev, clock or 0.0),
           "ceilings": {"compute": compute, "bandwidth": bandwidth}, "bandwidth_sweeps": sweeps}
    doc["reference"] = _reference(session, backend, plan, bandwidth)
    doc["roofs"] = roofs(doc)
    if opts.batch_sweep:
        doc["sweep"], doc["sweep_info"] = _batch_sweep(session, backend, plan, doc)
    else:
        doc["sweep"], doc["sweep_info"] = [], {"skipped": msg("disabled")}
    after = backend.state()
    doc["state"] = {"before": before, "after": after, "slowing_reasons": sorted(slowed)}
    if not specs.per_sm(dev.cc):
        session.warn(MeasurementWarning("gpu-unknown", msg("compute capability {cc} is not in rooflab's table: the compute "
                                                 "ceilings cannot be checked against a theoretical peak",
                                                 cc=f"{dev.cc[0]}.{dev.cc[1]}"), 0.0, 0.0,
                              msg("the measured ceilings stand on their own; add the device's per-SM rates to "
                                  "rooflab.gpu.specs.PER_SM"), "GPU"))
    for w in state_warnings(before, slowed, os.getpid()):
        session.warn(w)
    return doc


def _sweep_title(doc: dict) -> str:
    info = doc.get("sweep_info") or {}
    return tr("Batch sweep X[B,{d}]·W[{d},{d}] {dtype} on the GPU", d=info.get("D"), dtype=info.get("dtype"))


COMMAND = Command(
    name="measure_gpu", kind="measure.gpu", order=2, options=GpuOptions, run=run, cli=False, version=2,
    migrations={1: rename_above_limit},
    summary=msg("measure an NVIDIA GPU's roofline (rooflab measure --device cuda); needs CuPy"),
    report=Report(title="rooflab measure --device cuda", interpret=gpu_observations,
                  tables=(GPU_TABLE, PEAKS_TABLE, *ceiling_tables("gpu"), sweep_table(_sweep_title)),
                  notes=lambda d: reference_notes(d) + sweep_notes(d),
                  roofline=sweep_roofline(lambda d: tr("Roofline of this GPU"))),
    outputs=Outputs(files=("html", "csv", "plot")), hooks=Hooks(prepare=prepare))

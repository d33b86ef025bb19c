"""Noise and sanity checks. Pure: they take numbers and return warnings; each warning names what was seen, the
threshold, and what to do about it (as ``i18n`` messages, rendered in the reader's language)."""

from __future__ import annotations

from dataclasses import dataclass

from rooflab.i18n import join, msg, text


@dataclass(frozen=True)
class MeasurementWarning:
    """What a check saw about a measurement (spread, competing load, a figure past its bound ...): ``code``, the
    value ``seen`` against its ``threshold``, the message and the remedy."""

    code: str
    msg: dict
    seen: float
    threshold: float
    remedy_msg: dict
    subject: str = ""

    @property
    def message(self) -> str:
        return text(self.msg, "en")

    @property
    def remedy(self) -> str:
        return text(self.remedy_msg, "en")

    def to_dict(self) -> dict:
        """English ``message`` and ``remedy`` for tools reading the JSON; ``msg`` and ``remedy_msg`` to render them
        in another language."""
        return {"code": self.code, "subject": self.subject, "message": self.message, "seen": self.seen,
                "threshold": self.threshold, "remedy": self.remedy, "msg": self.msg, "remedy_msg": self.remedy_msg}

    def __str__(self) -> str:
        return f"{self.message} — {self.remedy}"


def _who(subject: str):
    return msg("{subject}: ", subject=subject) if subject else ""


def check_spread(cv: float, n: int, *, threshold: float = 0.05, subject: str = "") -> MeasurementWarning | None:
    """Robust coefficient of variation (1.4826 MAD / median) of the samples of one measurement."""
    if cv <= threshold:
        return None
    return MeasurementWarning("high-spread", msg("{who}high spread: robust CV {cv:.1%} over {n} samples (threshold {th:.0%})",
                                       who=_who(subject), cv=cv, n=n, th=threshold),
                    cv, threshold, msg("close other programs, pin the run (taskset -c N), or take more samples"),
                    subject)


COMPETING_CORES = 0.25  # cores used by others (processes, the host's steal) meanwhile: a measurement not ours alone


def check_competing_load(other_cores: float, ncpu: int, *, steal_cores: float = 0.0, loadavg1: float | None = None,
                         own_threads: int = 1, threshold: float = COMPETING_CORES,
                         per_cpu: dict | None = None) -> MeasurementWarning | None:
    """CPU time used by others during the run, in cores on average: other processes (``/proc/stat`` minus our own)
    plus steal time (the hypervisor running other guests on our CPUs).

    The CPU accounting decides; the 1-minute load average only adds to the message (it lags by a minute, so right
    after a heavy run of our own it is still high with nothing else running).
    """
    seen = other_cores + steal_cores
    if seen < threshold:
        return None
    parts = []
    if other_cores >= threshold / 2:
        parts.append(msg("other processes used {cores:.2f} core(s)", cores=other_cores))
    if steal_cores >= threshold / 2:
        parts.append(msg("the hypervisor took {cores:.2f} core(s) (steal time)", cores=steal_cores))
    busy = sorted(((c, v) for c, v in (per_cpu or {}).items() if v >= 0.05), key=lambda cv: -cv[1])
    if busy:
        parts.append(msg("by CPU: {cpus}", cpus=join([msg("CPU {cpu} {frac:.0%} busy", cpu=c, frac=v)
                                                      for c, v in busy], ", ")))
    if not parts:
        parts.append(msg("others used {cores:.2f} core(s)", cores=seen))
    if loadavg1 is not None:
        parts.append(msg("load average {la:.2f} with {t} thread(s) of ours", la=loadavg1, t=own_threads))
    low = ncpu / max(ncpu - seen, 0.5) if ncpu else 2.0
    return MeasurementWarning("competing-load",
                    msg("competing load on this {ncpu}-CPU machine: {parts} on average during the run (threshold "
                        "{th:.2f} core); figures may be low by up to {low:.1f}x", ncpu=ncpu, parts=join(parts),
                        th=threshold, low=low), seen, threshold,
                    msg("rerun when the machine is quiet (check `top`), or stop the other work"), "machine")


def check_timer_resolution(resolution_s: float, sample_s: float, *, max_fraction: float = 1e-3,
                           subject: str = "") -> MeasurementWarning | None:
    if sample_s <= 0 or resolution_s / sample_s <= max_fraction:
        return None
    frac = resolution_s / sample_s
    return MeasurementWarning("coarse-timer", msg("{who}the timer resolution ({ns:.0f} ns) is {frac:.2%} of one sample "
                                        "({ms:.3f} ms; threshold {th:.1%})", who=_who(subject), ns=resolution_s * 1e9,
                                        frac=frac, ms=sample_s * 1e3, th=max_fraction), frac, max_fraction,
                    msg("raise the minimum sample time (--min-sample) so each sample lasts longer"), subject)


def check_physical_limit(value: float, limit: float, *, what, unit: str = "FLOP/s", tolerance: float = 1.02,
                         subject: str = "") -> MeasurementWarning | None:
    """A measured rate above the hardware's theoretical limit is a bug or noise, never a discovery.

    ``what`` names the limit (an ``i18n.msg``, or a plain name). With ``unit=""`` the value is already a fraction
    of the limit (e.g. measured per round at its own clock).
    """
    if limit <= 0 or value <= limit * tolerance:
        return None
    frac = value / limit
    if unit:
        m = msg("{subject}: measured {value:.4g} {unit}, {frac:.1%} of the {what} ({limit:.4g} {unit}); threshold "
                "{tol:.0%}", subject=subject or what, value=value, unit=unit, frac=frac, what=what, limit=limit,
                tol=tolerance)
    else:
        m = msg("{subject}: measured {frac:.1%} of the {what}; threshold {tol:.0%}", subject=subject or what,
                frac=frac, what=what, tol=tolerance)
    return MeasurementWarning("above-limit", m, frac, tolerance,
                    msg("the work model or the clock is wrong, or the compiler skipped work: check the audit and the "
                        "clock; this figure is not used as a roof"), subject)


def check_clock_stability(clock_hz: list[float], *, threshold: float = 0.05, subject: str = "") -> MeasurementWarning | None:
    """Clock samples taken beside a kernel: a slowest sample far below the fastest means the core was taken
    away part of the time (another tenant on a shared host, throttling), even where no steal time is reported."""
    if len(clock_hz) < 2:
        return None
    hi, lo = max(clock_hz), min(clock_hz)
    drop = 1.0 - lo / hi
    if drop <= threshold:
        return None
    return MeasurementWarning("unstable-clock", msg("{subject}: the core clock measured beside it ranged {lo:.2f}–{hi:.2f} GHz "
                                          "({drop:.0%} dips; threshold {th:.0%}): the core was not fully ours",
                                          subject=subject, lo=lo / 1e9, hi=hi / 1e9, drop=drop, th=threshold),
                    drop, threshold, msg("the host is shared or throttling: rerun at a quieter time, or on a dedicated "
                                         "machine; rooflab pairs each round with its own clock to limit the damage"),
                    subject)


def check_thread_scaling(rate_1: float, rate_n: float, threads: int, *, min_efficiency: float = 0.75,
                         subject: str = "") -> MeasurementWarning | None:
    """A compute-bound kernel with no shared resource should scale almost linearly with threads on separate cores.

    Far less, while each thread's clock holds, means the threads share cores: SMT siblings, or virtual CPUs that
    the host placed on one physical core (a VM's topology need not say so).
    """
    if threads < 2 or rate_1 <= 0:
        return None
    speedup = rate_n / rate_1
    eff = speedup / threads
    if eff >= min_efficiency:
        return None
    return MeasurementWarning("shared-cores", msg("{subject}: {t} threads ran {sp:.2f}x one thread ({eff:.0%} efficiency; "
                                        "threshold {th:.0%}) although the clock held: the CPUs share execution units "
                                        "(SMT siblings, or virtual CPUs on one host core)", subject=subject, t=threads,
                                        sp=speedup, eff=eff, th=min_efficiency), eff, min_efficiency,
                    msg("the all-threads compute ceiling is what these CPUs can do together right now; pin to distinct "
                        "physical cores, or rerun (a VM's placement can change)"), subject)


def check_level_order(level: str, rate: float, ci: list[float], upper: str, upper_rate: float,
                      upper_ci: list[float], *, subject: str = "") -> MeasurementWarning | None:
    """A memory level farther from the core measured faster than the level nearer to it, beyond what the two
    confidence intervals allow (the lower end of one above the upper end of the other)."""
    if not (ci and upper_ci) or ci[0] <= upper_ci[1]:
        return None
    return MeasurementWarning("level-order", msg("{subject}: {level} measured faster than {upper} ({rate:.3g} against "
                                       "{urate:.3g} B/s; the 95% CIs do not overlap): a level farther from the core "
                                       "cannot feed it faster", subject=subject, level=level, upper=upper, rate=rate,
                                       urate=upper_rate),
                    rate / upper_rate, 1.0,
                    msg("the plateaus were misread or one of the two ceilings was disturbed: check the sweep table "
                        "and rerun on a quiet machine"), subject)

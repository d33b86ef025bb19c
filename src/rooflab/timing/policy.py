"""One policy for measuring on CPUs that may not be ours alone: each attempt at a figure is judged, a disturbed one
is measured again (after waiting for quiet while the session's budget lasts), the least disturbed attempt is kept
and every attempt recorded, and a figure whose kept attempt still shows that the CPUs were not ours is marked
``disturbed`` with the reasons: shown, never taken as quiet.

What judges an attempt (:func:`assess`): the spread of its samples and a dip of the clock measured beside it (reasons
to measure again, not proof: on a shared host they come and go), and the proof that the CPUs were not ours: the
time the host kept from its threads, threads waiting for a CPU, all threads far below one thread's rate times the
cores, one thread far slower than its siblings for the same work, and other processes busy where it matters.

Several ranks of an MPI job decide together: ``session.agree(flag)`` is the job's decision (every rank measures again
when one must, so that the load stays the same), a plain session's is its own. measure (its ceilings), bench (each
kernel and size), explain (each kernel and size, its experiments and references), the labs (each timed task), track
and bisect measure through it (``Session.run_until_quiet``, ``Session.until_quiet``)."""

from __future__ import annotations

from collections.abc import Callable

from rooflab.i18n import join, msg
from rooflab.timing.checks import COMPETING_CORES

CV_LIMIT = 0.03  # a ceiling's robust spread above this: measured again
CLOCK_DIP_LIMIT = 0.05  # one clock sample this far below the best: measured again (a host interrupt, often)
LOST_LIMIT = 0.15  # the host kept this share of the time from the threads (median, not one sample): not ours
SCALING_MIN_EFFICIENCY = 0.75
RUNNING_MIN = 0.90  # the threads waited for a CPU at most this share of each call (late start + preemption)
# the slowest thread of an evenly split kernel took at most this many times the fastest one's time (median over the
# samples); quiet, the stream kernels' threads differ by up to ~1.2x on L1-sized sets and the peak's by under 4%, while
# a vCPU the host gives another tenant's work runs its thread about half as fast
IMBALANCE_LIMIT = 1.4
OTHERS_LIMIT = COMPETING_CORES  # cores used by others, meanwhile, on the CPUs that matter to the figure


def assess(cv: float, *, clock_dip: float = 0.0, lost: float | None = None, fraction: float | None = None,
           efficiency: float | None = None, running: float | None = None,
           others: float | None = None, balance: dict | None = None,
           cv_limit: float = CV_LIMIT) -> tuple[float, list[dict]]:
    """How far an attempt is from a quiet measurement (<= 1 is quiet: the largest of the ratios to each limit), and
    the reasons, as messages, to believe the CPUs were not ours. A high spread (over ``cv_limit``) or one dipped
    clock sample is measured again but is no such reason: on a shared host they come and go; the time the host took
    over the whole attempt (``lost``), threads waiting for a CPU, all threads far below one thread's rate times the
    cores, and other processes busy where it matters are."""
    parts = [cv / cv_limit, clock_dip / CLOCK_DIP_LIMIT]
    reasons = []
    if lost is not None:
        parts.append(lost / LOST_LIMIT)
        if lost > LOST_LIMIT:
            reasons.append(msg("the host kept the core from it {lost:.0%} of the time", lost=lost))
    if fraction is not None and fraction > 1.02:
        parts.append(10.0 * fraction)
    if efficiency is not None and efficiency > 0:
        parts.append(SCALING_MIN_EFFICIENCY / efficiency)
        if efficiency < SCALING_MIN_EFFICIENCY:
            reasons.append(msg("all threads ran at {eff:.0%} of one thread's rate times the cores", eff=efficiency))
    if running is not None:
        parts.append((1.0 - running) / (1.0 - RUNNING_MIN))
        if running < RUNNING_MIN:
            reasons.append(msg("its threads waited for a CPU {wait:.0%} of the time", wait=1.0 - running))
    if others is not None:
        parts.append(others / OTHERS_LIMIT)
        if others >= OTHERS_LIMIT:
            reasons.append(msg("other processes used {cores:.2f} core(s) meanwhile", cores=others))
    if balance is not None:
        ratio = balance["ratio"]
        parts.append((ratio - 1.0) / (IMBALANCE_LIMIT - 1.0))
        if ratio > IMBALANCE_LIMIT:
            reasons.append(msg("its thread on CPU {cpu} took {r:.2f}x as long as its sibling's for the same work: that "
                               "CPU was not all its own", cpu=balance["slow_cpu"], r=ratio)
                           if balance.get("slow_cpu", -1) >= 0 else
                           msg("its slowest thread took {r:.2f}x as long as the fastest for the same work: its CPU was "
                               "not all its own", r=ratio))
    return float(max(parts)), reasons


def disturbance(cv: float, **kw) -> float:
    """How far an attempt is from a quiet measurement: <= 1 is quiet; the largest of the ratios to each limit."""
    return assess(cv, **kw)[0]


def again(session, attempt: dict) -> bool:
    """Whether to measure again after ``attempt`` (a dict with ``disturbance`` and ``reasons``; the job's decision
    under MPI); when the CPUs were not ours, first wait for quiet while the session's waiting budget lasts."""
    more = session.agree(attempt["disturbance"] > 1.0)
    if more and attempt["reasons"] and session.wait_quiet_left > 0:
        session.wait_for_quiet(OTHERS_LIMIT)
    return more


def until_quiet(session, once: Callable[[], dict], attempts: int) -> list[dict]:
    """Up to ``attempts`` attempts, ``once()`` each (a judged attempt: ``disturbance``, ``reasons`` and what it
    measured), measuring again while :func:`again` says so; every attempt made. An error propagates: a caller whose
    ``once`` also keeps each attempt (measure's ceilings) lets the earlier ones stand when a later one fails."""
    made: list[dict] = []
    for _ in range(max(1, attempts)):
        made.append(once())
        if len(made) == attempts or not again(session, made[-1]):
            break
    return made


def kept(attempts: list[dict]) -> dict:
    """The least disturbed attempt (not the fastest)."""
    return min(attempts, key=lambda a: a["disturbance"])


def mark_disturbed(entry: dict, kept_attempt: dict) -> None:
    """A figure whose least disturbed attempt still shows that the CPUs were not ours is not a quiet figure: its
    status says so, with the reasons."""
    if kept_attempt.get("reasons") and entry.get("status", "ok") == "ok":
        entry.update(status="disturbed", reason=msg("measured while the CPUs were not all ours: {why}",
                                                    why=join(kept_attempt["reasons"])))

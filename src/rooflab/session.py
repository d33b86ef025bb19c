"""A measuring session: the worker process, the load monitor, warnings, and the run in the store.

Labs measure through a Session and return plain data. The Session records each finished measurement in the store
as it arrives, so an interrupted run (Ctrl-C, SIGTERM) keeps everything already measured, and adds the noise
checks (competing load) when it closes.
"""

from __future__ import annotations

import datetime
import json
import os
import signal
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

from rooflab.errors import KernelFailed, OutOfBounds, RooflabError, StoreError, WrongResult
from rooflab.kernels.runner import CKernel, run_c_kernel
from rooflab.machine import describe
from rooflab.machine.env import environment
from rooflab.machine.limits import measure_clock
from rooflab.results.store import Store, to_jsonable
from rooflab.timing import policy
from rooflab.timing.checks import MeasurementWarning, check_competing_load, check_spread, check_timer_resolution
from rooflab.timing.clock import MonotonicClock, measured_resolution
from rooflab.timing.harness import HarnessConfig, Timing
from rooflab.timing.load import CpuSampler, LoadMonitor, Mark, Window
from rooflab.timing.worker import Worker, on_cpus

ProgressFn = Callable[[str], None]


class Interrupted(KeyboardInterrupt):
    """The run was stopped by a signal (SIGTERM: `timeout`, systemd, a batch scheduler); what it had finished is
    stored. Like Ctrl-C, it is no error of the measurement: no handler of measuring errors may swallow it and go
    on with a half-finished step, so it derives from KeyboardInterrupt, not from RooflabError."""


def _raise_interrupted(signum, frame):  # pragma: no cover - exercised through a subprocess test
    raise Interrupted(f"stopped by {signal.Signals(signum).name}; the measurements finished so far are stored")


class Judged:
    """What the measurement policy (:mod:`rooflab.timing.policy`) made of a measurement taken in attempts: how many
    were made, the cores others used meanwhile, and why the CPUs were not its own even in the attempt kept."""

    def __init__(self, attempts: int = 1, others_cores: float | None = None, disturbed: list | None = None):
        self.attempts, self.others_cores, self.disturbed = attempts, others_cores, disturbed or []

    def judge(self, row: dict) -> None:
        """A measured row as the policy judged it: its attempts, the cores others used meanwhile, and ``status``
        ``disturbed`` with the reasons when the CPUs were not its own even in the attempt kept."""
        row.update(attempts=self.attempts, others_cores=self.others_cores, status="ok")
        policy.mark_disturbed(row, {"reasons": self.disturbed})


class Outcome(Judged):
    """A kernel's result or its failure: ``timing`` is None when it crashed, hung or was wrong."""

    def __init__(self, name: str, timing: Timing | None = None, rel_error: float | None = None,
                 error: str | None = None, error_kind: str | None = None, output: dict | None = None,
                 cpus_busy: float | None = None, subnormals: dict | None = None):
        self.name, self.timing, self.rel_error, self.error, self.error_kind = name, timing, rel_error, error, error_kind
        self.output = output or {}  # what the kernel printed: {"stdout": ..., "stderr": ...}
        self.cpus_busy = cpus_busy  # CPUs the kernel kept busy while it was timed (its CPU time over wall time)
        self.subnormals = subnormals  # the share of subnormal values in its arrays after its calls, where any
        super().__init__()  # measured once until run_until_quiet says otherwise

    @property
    def ok(self) -> bool:
        return self.timing is not None

    def to_dict(self) -> dict:
        d = {"name": self.name, "timing": self.timing.to_dict() if self.timing else None,
             "rel_error": self.rel_error, "error": self.error, "error_kind": self.error_kind}
        if self.output:
            d["output"] = self.output
        return d


class Session:
    def __init__(self, kind: str, *, store: Store | None = None, machine: dict | None = None,
                 environment: dict | None = None, label: str | None = None, timeout_s: float = 120.0,
                 progress: ProgressFn | None = None, worker_env: dict[str, str] | None = None,
                 wait_quiet_s: float = 0.0):
        self.kind = kind
        self.store = store
        self.label = label
        self.timeout_s = timeout_s
        self.progress = progress or (lambda msg: None)
        self.warnings: list[MeasurementWarning] = []
        self.run_id: int | None = None
        self._machine = machine
        self._environment = environment
        self.worker_env = dict(worker_env or {})
        self._worker = Worker(default_timeout_s=timeout_s, env=self.worker_env)
        self.extra_worker_env: dict[str, str] = {}  # what a part of the run added (see worker_env_for)
        self._monitor: LoadMonitor | None = None
        self._sampler: CpuSampler | None = None
        self._run_mark: Mark | None = None
        # how long, in all, the session may wait for other load to stop before measuring a disturbed ceiling again
        self.wait_quiet_left = max(0.0, float(wait_quiet_s))
        self.waited_s = 0.0
        self._old_term = None
        self.timer_resolution: float | None = None  # measured when the session starts
        self.last_cpus: list[int] | None = None  # the CPUs the last call was confined to (None: any)
        self._records: list[tuple[str, dict]] = []
        self.unsaved: str | None = None  # why the store could not take this run (then it goes to saved_to)
        self.saved_to: str | None = None

    # ------------------------------------------------------------------------------------------- lifecycle
    @property
    def machine(self) -> dict:
        if self._machine is None:
            self._machine = describe(clock=lambda: self.call("measuring the core clock", measure_clock))
        return self._machine

    @property
    def environment(self) -> dict:
        if self._environment is None:
            self._environment = environment()
        return self._environment

    def header(self) -> dict:
        return {"machine": self.machine, "environment": self.environment, "command": list(sys.argv),
                "worker_env": self.worker_env}

    def __enter__(self) -> "Session":
        if self.store is not None:
            self.run_id = self.store.begin(self.kind, self.header(), label=self.label)
        if os.name == "posix":
            try:
                self._old_term = signal.signal(signal.SIGTERM, _raise_interrupted)
            except ValueError:  # not the main thread
                self._old_term = None
        own = lambda: [p for p in (self._worker.pid,) if p]  # noqa: E731
        self._monitor = LoadMonitor(own)
        self._sampler = CpuSampler(own).start()
        self._run_mark = self._sampler.mark()
        self.timer_resolution = measured_resolution(MonotonicClock())
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if self._sampler is not None:
            self._sampler.stop()
        self._worker.close()
        if self._old_term is not None:
            signal.signal(signal.SIGTERM, self._old_term)
        if exc_type is not None and self.store is not None and self.run_id is not None:
            status = "interrupted" if issubclass(exc_type, (KeyboardInterrupt, Interrupted)) else "failed"
            try:
                self.store.mark(self.run_id, status)
            except StoreError as err:
                self._store_failed(err)
            if self.unsaved is not None:
                self._save_beside({"status": status}, status)

    # ----------------------------------------------------------------------------------------- measuring
    def record(self, name: str, data: dict) -> None:
        self._records.append((name, data))
        if self.store is not None and self.run_id is not None and self.unsaved is None:
            try:
                self.store.add_record(self.run_id, name, data)
            except StoreError as exc:  # the disk filled, the store was locked or made read-only mid-run
                self._store_failed(exc)

    def _store_failed(self, exc: StoreError) -> None:
        """From now on the run is kept in memory and written, whole, to a file beside the store when it ends:
        nothing measured is lost because the store cannot take it."""
        self.unsaved = str(exc)
        self.progress(f"the store cannot be written ({exc}); the run will be saved to a file beside it")

    def warn(self, w: MeasurementWarning | None) -> None:
        if w is not None and all(w.message != x.message for x in self.warnings):
            self.warnings.append(w)

    @property
    def worker_pid(self) -> int | None:
        """The worker process's id (None before it starts): what a profiler attaches to."""
        return self._worker.pid

    def run(self, kernel: CKernel, config: HarnessConfig = HarnessConfig(), *, reps: int | None = None,
            timeout_s: float | None = None) -> Outcome:
        """Run one kernel in the worker; a crash, hang or wrong result becomes an Outcome with an error."""
        self.progress(kernel.name)
        self.last_cpus = None
        try:
            res = self._worker.call(kernel.name, run_c_kernel, kernel, config, reps, timeout_s=timeout_s)
        except WrongResult as exc:
            out = Outcome(kernel.name, rel_error=exc.rel_error, error=str(exc),
                          error_kind="out-of-bounds" if isinstance(exc, OutOfBounds) else "wrong",
                          output=self._worker.last_output)
        except KernelFailed as exc:
            kind = "timeout" if exc.timeout_s else ("crash" if exc.signal else "error")
            out = Outcome(kernel.name, error=str(exc), error_kind=kind, output=self._worker.last_output)
        except RooflabError as exc:  # measured, but not measurable (e.g. its samples are mostly call overhead)
            out = Outcome(kernel.name, error=str(exc), error_kind="error", output=self._worker.last_output)
        else:
            t = Timing.from_dict(res["timing"])
            out = Outcome(kernel.name, timing=t, rel_error=res["rel_error"], output=self._worker.last_output,
                          cpus_busy=res.get("cpus_busy"), subnormals=res.get("subnormals"))
            self.check_timing(kernel.name, t)
        self.record(kernel.name, {**out.to_dict(), "params": kernel.params})
        return out

    def run_until_quiet(self, kernel: CKernel, config: HarnessConfig = HarnessConfig(), *, attempts: int = 2,
                        timeout_s: float | None = None) -> Outcome:
        """:meth:`run` under the measurement policy (:mod:`rooflab.timing.policy`): measured again, up to
        ``attempts`` times, while its threads waited for a CPU or other processes were busy (anywhere: the kernel is
        not pinned); the least disturbed attempt is kept. The outcome says how many attempts were made, the cores
        others used meanwhile, and why the CPUs were not its own if even the kept attempt shows it."""
        def once() -> dict:
            m0 = self.mark()
            out = self.run(kernel, config, timeout_s=timeout_s)
            out.others_cores = self.others_for(m0, self.mark(), shared=True)
            if not out.ok:  # a crash, a hang or a wrong result is reported, not measured again
                return {"out": out, "disturbance": 0.0, "reasons": []}
            score, reasons = policy.assess(0.0, running=out.timing.running_fraction, others=out.others_cores)
            return {"out": out, "disturbance": score, "reasons": reasons}

        made = policy.until_quiet(self, once, attempts)
        kept = policy.kept(made)
        out = kept["out"]
        out.attempts, out.disturbed = len(made), kept["reasons"]
        # what the kernel printed, and what the worker put back after it, may show in the first attempt only (a
        # kernel that prints once, a state restored once): kept from whichever attempt has it
        out.output = out.output or next((a["out"].output for a in made if a["out"].output), {})
        return out

    def call_until_quiet(self, name: str, fn, *args, timing_of: Callable[[object], Timing | None],
                         attempts: int = 2, **kwargs) -> tuple[object, Judged]:
        """:meth:`call` under the measurement policy: a task that times something (``timing_of(result)`` its
        timing) measured again, up to ``attempts`` times, while its threads waited for a CPU or other processes were
        busy; the least disturbed attempt's result is returned with the policy's judgement. An error propagates
        (a failure is reported, not measured again)."""
        return self.until_quiet(lambda: self.call(name, fn, *args, **kwargs), timing_of=timing_of, attempts=attempts)

    def until_quiet(self, measure: Callable[[], object], *, timing_of: Callable[[object], Timing | None],
                    attempts: int = 2) -> tuple[object, Judged]:
        """``measure()`` under the measurement policy, however it measures (a task in the session's worker, or in a
        worker of its own under numactl): judged by the running fraction of its timing and the cores others used
        meanwhile, measured again while disturbed, the least disturbed attempt kept."""
        def once() -> dict:
            m0 = self.mark()
            res = measure()
            others = self.others_for(m0, self.mark(), shared=True)
            t = timing_of(res)
            score, reasons = policy.assess(0.0, running=t.running_fraction if t is not None else None, others=others)
            return {"res": res, "others": others, "disturbance": score, "reasons": reasons}

        made = policy.until_quiet(self, once, attempts)
        kept = policy.kept(made)
        return kept["res"], Judged(len(made), kept["others"], kept["reasons"])

    def check_timing(self, subject: str, t: Timing, *, spread_threshold: float = 0.05) -> None:
        """The noise checks every timing gets: spread of its samples, and timer resolution against one sample."""
        self.warn(check_spread(t.summary.cv, t.summary.n, threshold=spread_threshold, subject=subject))
        if self.timer_resolution:
            self.warn(check_timer_resolution(self.timer_resolution, min(t.raw) * t.reps, subject=subject))

    def call(self, name: str, fn, *args, timeout_s: float | None = None, on_quiet_cpus: int | None = None, **kwargs):
        """Run any picklable task in the worker (e.g. a NumPy reference); errors propagate as KernelFailed.
        ``on_quiet_cpus=n``: a measurement on ``n`` threads, run on the ``n`` CPUs other processes used least over
        the last second (see :meth:`quiet_cpus`)."""
        self.progress(name)
        cpus = self.quiet_cpus(on_quiet_cpus) if on_quiet_cpus else None
        self.last_cpus = cpus
        if cpus:
            return self._worker.call(name, on_cpus, cpus, fn, *args, timeout_s=timeout_s, **kwargs)
        return self._worker.call(name, fn, *args, timeout_s=timeout_s, **kwargs)

    def quiet_cpus(self, n: int) -> list[int] | None:
        """The ``n`` CPUs of this process's set that other processes used least over about the last second, or None
        when ``n`` takes them all or the OS does not tell: a one-thread ceiling measured on the CPU a busy
        neighbour leaves alone is a ceiling (its own signals still judge it), one measured beside it is not."""
        allowed = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        if self._sampler is None or not self._sampler.available or n >= len(allowed):
            return None
        w = self._sampler.recent(1.0)
        if w is None:  # no history yet: a short look
            a = self.mark()
            time.sleep(0.2)
            w = self.window(a, self.mark())
        if w is None:
            return None
        load = {c: w.others.get(c, 0.0) + w.steal.get(c, 0.0) for c in allowed}
        return sorted(sorted(allowed, key=lambda c: (load[c], c))[:n])

    @contextmanager
    def worker_env_for(self, env: dict[str, str]):
        """Run the tasks of a block in a worker of its own whose environment adds ``env`` (a part of a run that needs
        what the command's worker was not started with, e.g. bench's explanations, which alternate threaded
        kernels); it is closed after the block, and ``extra_worker_env`` keeps what it had."""
        extra = {k: v for k, v in env.items() if self.worker_env.get(k) != v}
        if not extra:
            yield
            return
        main = self._worker
        self._worker = Worker(default_timeout_s=self.timeout_s, env={**self.worker_env, **extra})
        self.extra_worker_env.update(extra)
        try:
            yield
        finally:
            self._worker.close()
            self._worker = main

    def agree(self, flag: bool) -> bool:
        """Whether any process of the job says ``flag`` (alone, this one): a decision to measure again must be the
        same on every rank of an MPI job, whose measurements start and end together."""
        return bool(flag)

    def skip_call(self, name: str) -> None:
        """Take part in a step of the job without measuring anything (alone: nothing to do)."""

    # ------------------------------------------------------------------------------------ competing load
    def mark(self) -> Mark | None:
        """A point in the per-CPU account of other processes' CPU use (None where the OS does not tell)."""
        return self._sampler.mark() if self._sampler is not None else None

    def others_between(self, a: Mark | None, b: Mark | None, cpus=None) -> float | None:
        """Cores other processes used between two marks, on ``cpus`` (all when None); None when unknown."""
        w = CpuSampler.between(a, b)
        return w.others_cores(cpus) if w is not None else None

    def window(self, a: Mark | None, b: Mark | None) -> Window | None:
        return CpuSampler.between(a, b)

    def others_for(self, a: Mark | None, b: Mark | None, *, shared: bool) -> float | None:
        """Cores other processes used between two marks where that can slow a measurement: anywhere for a resource
        all cores share (the last-level cache, DRAM) or for a measurement free to run on any CPU; for one the last
        call confined to some CPUs (:meth:`quiet_cpus`), on those CPUs and their SMT siblings. On a virtual machine
        the host may make two vCPUs one physical core whatever the topology says: what that costs shows in the
        measurement's own signals (its threads' running time, the clock and the fraction of the theoretical peak
        measured beside it), which judge it as well. None when the OS does not tell."""
        w = self.window(a, b)
        if w is None:
            return None
        m = self.machine
        if shared or not self.last_cpus:
            return w.others_cores()
        ours = set(self.last_cpus)
        sib = m.get("smt_siblings") or {}
        near = set(ours)
        for c in ours:
            near |= set(sib.get(str(c), sib.get(c, [])))
        return w.others_cores(near)

    def wait_for_quiet(self, threshold: float = 0.25, *, step_s: float = 0.5) -> bool:
        """Wait, at most what is left of the session's waiting budget, until other processes use less than
        ``threshold`` cores; True when the machine is quiet now. Progress says what is running meanwhile."""
        while True:
            a = self.mark()
            time.sleep(step_s)
            b = self.mark()
            others = self.others_between(a, b)
            if others is None or others < threshold:
                return True
            spent = step_s
            self.waited_s += spent
            self.wait_quiet_left -= spent
            if self.wait_quiet_left <= 0:
                return False
            w = self.window(a, b)
            busy = ", ".join(f"CPU {c} {v:.0%}" for c, v in sorted(w.others.items()) if v >= 0.05) if w else ""
            self.progress(f"waiting for the machine to be quiet: others use {others:.2f} core(s) ({busy}); "
                          f"{self.wait_quiet_left:.0f} s left")

    def load_warnings(self) -> dict:
        """Read the load monitor and add a competing-load warning when others used the CPUs, naming the CPUs the
        other work ran on and how busy each was."""
        if self._monitor is None:
            return {}
        load = self._monitor.read()
        w = self.window(self._run_mark, self.mark())
        if w is not None:
            load["per_cpu"] = w.to_dict()["per_cpu"]
        if self.waited_s:
            load["waited_for_quiet_s"] = self.waited_s
        ncpu = os.cpu_count() or 1
        if load.get("other_cores") is not None:
            self.warn(check_competing_load(load["other_cores"], ncpu, steal_cores=load.get("steal_cores", 0.0),
                                           loadavg1=load.get("loadavg1_end"),
                                           own_threads=max(1, round(load.get("own_cores", 1.0))),
                                           per_cpu=w.others if w is not None else None))
        return load

    def finish(self, result: dict, observe: Callable[[dict], list[str]] | None = None) -> dict:
        """Complete the document (load, warnings, observations, run id) and store it.

        ``observe`` writes the observations from the finished numbers, after the load check, so that a run on a
        loaded machine never reads as confident.
        """
        load = self.load_warnings()
        result.setdefault("warnings", [])
        result["warnings"] = result["warnings"] + [w.to_dict() for w in self.warnings]
        result["load"] = load
        if "machine" not in result:  # (the property measures the clock: only when the document has no machine)
            result["machine"] = self.machine
        if "environment" not in result:
            result["environment"] = self.environment
        if self.worker_env:
            result["worker_env"] = self.worker_env
        if self.extra_worker_env:
            result["extra_worker_env"] = self.extra_worker_env
        if observe is not None:
            result["observations"] = observe(result)
        if self.store is not None and self.run_id is not None:
            result["run_id"] = self.run_id
            if self.unsaved is None:
                try:
                    self.store.finish(self.run_id, result)
                except StoreError as exc:
                    self._store_failed(exc)
            if self.unsaved is not None:
                result["saved_to"] = self._save_beside(result, "complete")
        return result

    def _save_beside(self, result: dict, status: str) -> str | None:
        """The whole run (header, every finished measurement, the result) as one JSON file beside the store, or in
        the current or temporary folder when that one cannot be written either; returns where."""
        doc = {"schema": "rooflab.run/1", "kind": self.kind, "status": status, "store_error": self.unsaved,
               "header": self.header(), "records": [{"name": n, **d} for n, d in self._records], "result": result}
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        name = f"rooflab-unsaved-{self.kind}-{stamp}-{os.getpid()}.json"
        folders = [Path(self.store.path).parent if self.store is not None else None, Path.cwd(),
                   Path(tempfile.gettempdir())]
        for folder in folders:
            if folder is None:
                continue
            try:
                path = folder / name
                path.write_text(json.dumps(doc, default=to_jsonable, allow_nan=True))
            except OSError:
                continue
            self.saved_to = str(path)
            self.progress(f"saved to {path}")
            return self.saved_to
        return None

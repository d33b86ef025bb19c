"""Competing load: how much CPU other processes used while rooflab measured, in total and CPU by CPU.

Two instruments:

- :class:`LoadMonitor` reads the whole machine's busy time (``/proc/stat``) and rooflab's own CPU time at the start
  and end of a run: other processes' use in cores on average, plus steal time.
- :class:`CpuSampler` keeps a running account per CPU: a background thread reads each CPU's busy time and the CPU
  time of rooflab's own threads (with the CPU each ran on) a few times a second, and attributes the difference to
  other processes on that CPU. A measurement takes a :meth:`~CpuSampler.mark` before and after itself and asks what
  others did in between, on which CPUs.

The parsers are pure functions of the files' text, tested on recorded samples.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Callable, Iterable

from rooflab.timing.worker import pid_cpu_seconds

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def parse_proc_stat(text: str) -> dict:
    """Busy and steal seconds since boot from ``/proc/stat``: ``{"all": (busy, steal), 0: (busy, steal), ...}``.

    Busy is everything but idle, iowait and steal (guest time is already inside user time)."""
    out: dict = {}
    for line in text.splitlines():
        parts = line.split()
        if not parts or not parts[0].startswith("cpu"):
            continue
        name = parts[0][3:]
        try:
            vals = [int(x) for x in parts[1:]]
        except ValueError:
            continue
        if len(vals) < 4:
            continue
        idle = vals[3] + (vals[4] if len(vals) > 4 else 0)
        steal = vals[7] if len(vals) > 7 else 0
        guest = sum(vals[8:10]) if len(vals) > 9 else 0
        busy = (sum(vals) - idle - guest - steal) / _TICK
        key = "all" if name == "" else (int(name) if name.isdigit() else None)
        if key is not None:
            out[key] = (busy, steal / _TICK)
    return out


def parse_task_stat(text: str) -> tuple[float, int] | None:
    """(CPU seconds, last CPU) of one thread from ``/proc/PID/task/TID/stat``."""
    try:
        rest = text[text.rindex(")") + 2:].split()
        return (int(rest[11]) + int(rest[12])) / _TICK, int(rest[36])
    except (ValueError, IndexError):
        return None


def _read(path: str) -> str | None:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def _busy_seconds() -> float | None:
    """Busy CPU seconds of the whole machine since boot (all CPUs), from /proc/stat."""
    text = _read("/proc/stat")
    got = parse_proc_stat(text) if text else {}
    return got["all"][0] if "all" in got else None


def _steal_seconds() -> float:
    text = _read("/proc/stat")
    got = parse_proc_stat(text) if text else {}
    return got["all"][1] if "all" in got else 0.0


def _own_seconds(pids: Iterable[int]) -> float:
    t = os.times()
    return pid_cpu_seconds(os.getpid()) + t.children_user + t.children_system + sum(pid_cpu_seconds(p) for p in pids)


class LoadMonitor:
    """Start it before measuring, read it after: other processes' CPU use in cores on average, and steal time."""

    def __init__(self, own_pids: Callable[[], Iterable[int]] = lambda: ()):
        self._own_pids = own_pids
        self.start()

    def start(self) -> None:
        self._t0 = time.monotonic()
        self._busy0 = _busy_seconds()
        self._own0 = _own_seconds(self._own_pids())
        self._steal0 = _steal_seconds()
        self._load0 = os.getloadavg()[0] if hasattr(os, "getloadavg") else None

    def read(self) -> dict:
        wall = max(time.monotonic() - self._t0, 1e-9)
        busy1 = _busy_seconds()
        own1 = _own_seconds(self._own_pids())
        out = {"wall_s": wall, "loadavg1_start": self._load0,
               "loadavg1_end": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
               "steal_cores": (_steal_seconds() - self._steal0) / wall}
        if busy1 is None or self._busy0 is None:
            out["other_cores"] = None
        else:
            others = (busy1 - self._busy0) - (own1 - self._own0)
            out["other_cores"] = max(0.0, others / wall)
        out["own_cores"] = (own1 - self._own0) / wall
        return out


@dataclass(frozen=True)
class Mark:
    """The sampler's running totals at one moment (seconds since boot, per CPU)."""

    t: float
    others: dict  # cpu -> CPU seconds used by other processes (not rooflab's threads)
    own: dict  # cpu -> CPU seconds used by rooflab's threads
    steal: dict  # cpu -> steal seconds


@dataclass(frozen=True)
class Window:
    """What happened between two marks: per-CPU cores used by others and by rooflab, on average."""

    wall_s: float
    others: dict  # cpu -> cores (0..1)
    own: dict
    steal: dict
    # others over all CPUs, summed before any CPU's share is clipped at 0: the time of rooflab's threads that ended
    # between samples is known per process, not per CPU, so one CPU's share may be read too high and another's
    # below 0; their sum is right
    others_all: float | None = None

    def others_cores(self, cpus: Iterable[int] | None = None) -> float:
        """Cores used by others on ``cpus`` (all CPUs when None), steal time included."""
        if cpus is None and self.others_all is not None:
            return float(self.others_all + sum(self.steal.values()))
        keys = self.others.keys() if cpus is None else [c for c in cpus if c in self.others]
        return float(sum(self.others[c] + self.steal.get(c, 0.0) for c in keys))

    def to_dict(self) -> dict:
        return {"wall_s": self.wall_s,
                "per_cpu": [{"cpu": c, "others": round(self.others[c], 4), "own": round(self.own.get(c, 0.0), 4),
                             "steal": round(self.steal.get(c, 0.0), 4)} for c in sorted(self.others)]}


class CpuSampler:
    """Per-CPU accounting of other processes' CPU use, sampled in a background thread.

    Each sample takes the busy seconds of every CPU and the CPU seconds of every thread of rooflab's processes
    (the parent and its worker), attributing a thread's new CPU time to the CPU it was last seen on. What a CPU was
    busy beyond rooflab's threads is other processes' work. ``available`` is False where ``/proc`` has none of it
    (macOS); then every window is None.
    """

    def __init__(self, own_pids: Callable[[], Iterable[int]] = lambda: (), interval_s: float = 0.5,
                 read: Callable[[str], str | None] = _read, clock: Callable[[], float] = time.monotonic,
                 list_tasks: Callable[[int], list[str]] | None = None):
        self._own_pids = own_pids
        self._list_tasks = list_tasks or (lambda pid: os.listdir(f"/proc/{pid}/task"))
        self._interval = interval_s
        self._read = read
        self._clock = clock
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._tasks: dict[tuple[int, int], float] = {}
        self._procs: dict[int, float] = {}  # each own process's CPU seconds, its ended threads' included
        first = self._read("/proc/stat")
        stat = parse_proc_stat(first) if first else {}
        self.available = any(isinstance(k, int) for k in stat)
        self._busy = {k: v[0] for k, v in stat.items() if isinstance(k, int)}
        self._steal_prev = {k: v[1] for k, v in stat.items() if isinstance(k, int)}
        self._others = {k: 0.0 for k in self._busy}
        self._own = {k: 0.0 for k in self._busy}
        self._steal = {k: 0.0 for k in self._busy}
        self._history: deque = deque(maxlen=16)  # the last samples' running totals, for recent()
        if self.available:
            self._own_delta()  # the threads' CPU time so far is not this sampler's to attribute

    # ------------------------------------------------------------------------------------------- sampling
    def _own_delta(self) -> dict:
        """New CPU seconds of rooflab's threads since the last sample, by the CPU each was last seen on. Threads that
        ended since (a pthreads kernel starts and joins its threads on every call) are seen in their process's total
        only: that remainder goes to the CPUs its live threads ran on in this interval, or evenly to all."""
        out: dict = {}
        seen = set()
        pids = set()
        for pid in {os.getpid(), *[p for p in self._own_pids() if p]}:
            try:
                tids = self._list_tasks(pid)
            except OSError:
                continue
            pids.add(pid)
            mine: dict = {}
            for tid in tids:
                text = self._read(f"/proc/{pid}/task/{tid}/stat")
                got = parse_task_stat(text) if text else None
                if got is None:
                    continue
                secs, cpu = got
                key = (pid, int(tid))
                seen.add(key)
                prev = self._tasks.get(key)
                self._tasks[key] = secs
                # a thread first seen now was started since the last sample: all its time is new
                d = secs - (prev if prev is not None else 0.0)
                if d > 0:
                    mine[cpu] = mine.get(cpu, 0.0) + d
            text = self._read(f"/proc/{pid}/stat")
            total = parse_task_stat(text) if text else None
            if total is not None:
                prev_total = self._procs.get(pid, 0.0)
                self._procs[pid] = total[0]
                ended = total[0] - prev_total - sum(mine.values())
                if ended > 0:
                    where = mine or {c: 1.0 for c in self._busy}
                    weight = sum(where.values()) or 1.0
                    for c, v in where.items():
                        mine[c] = mine.get(c, 0.0) + ended * v / weight
            for c, v in mine.items():
                out[c] = out.get(c, 0.0) + v
        for key in list(self._tasks):
            if key not in seen:
                del self._tasks[key]
        for pid in list(self._procs):
            if pid not in pids:
                del self._procs[pid]
        return out

    def sample(self) -> None:
        if not self.available:
            return
        with self._lock:
            text = self._read("/proc/stat")
            stat = parse_proc_stat(text) if text else {}
            own = self._own_delta()
            for cpu, (busy, steal) in stat.items():
                if not isinstance(cpu, int):
                    continue
                d_busy = busy - self._busy.get(cpu, busy)
                self._busy[cpu] = busy
                d_steal = steal - self._steal_prev.get(cpu, steal)
                self._steal_prev[cpu] = steal
                mine = own.get(cpu, 0.0)
                self._own[cpu] = self._own.get(cpu, 0.0) + mine
                self._others[cpu] = self._others.get(cpu, 0.0) + d_busy - mine
                self._steal[cpu] = self._steal.get(cpu, 0.0) + max(0.0, d_steal)
            self._history.append(Mark(self._clock(), dict(self._others), dict(self._own), dict(self._steal)))

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            self.sample()

    def start(self) -> "CpuSampler":
        if self.available and self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="rooflab-cpu-sampler", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2 * self._interval + 1.0)
            self._thread = None

    # ------------------------------------------------------------------------------------------- reading
    def mark(self) -> Mark | None:
        """The running totals now (a sample is taken first, so a window's ends are exact)."""
        if not self.available:
            return None
        self.sample()
        with self._lock:
            return Mark(self._clock(), dict(self._others), dict(self._own), dict(self._steal))

    def recent(self, seconds: float = 1.0) -> Window | None:
        """What happened over about the last ``seconds`` (from the newest kept sample at least that old, or the
        oldest kept; a fresh sample ends it); None when the OS does not tell."""
        end = self.mark()
        if end is None:
            return None
        with self._lock:
            older = [m for m in self._history if end.t - m.t >= seconds] or list(self._history)[:1]
        start = older[-1] if older else None
        if start is None or end.t - start.t <= 0:
            return None
        return self.between(start, end)

    @staticmethod
    def between(a: Mark | None, b: Mark | None) -> Window | None:
        if a is None or b is None:
            return None
        wall = max(b.t - a.t, 1e-9)

        def per(x: dict, y: dict) -> dict:
            return {c: max(0.0, (y.get(c, 0.0) - x.get(c, 0.0)) / wall) for c in y}

        total = sum(b.others.get(c, 0.0) - a.others.get(c, 0.0) for c in b.others) / wall
        return Window(wall, per(a.others, b.others), per(a.own, b.own), per(a.steal, b.steal), max(0.0, total))

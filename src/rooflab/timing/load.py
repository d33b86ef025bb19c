"""Competing load: how much CPU other processes used while rooflab measured."""

from __future__ import annotations

import os
import time
from typing import Callable, Iterable

from .worker import pid_cpu_seconds


def _busy_seconds() -> float | None:
    """Busy CPU seconds of the whole machine since boot (all CPUs), from /proc/stat."""
    try:
        with open("/proc/stat") as f:
            parts = f.readline().split()
    except OSError:
        return None
    if not parts or parts[0] != "cpu":
        return None
    vals = [int(x) for x in parts[1:]]
    idle = vals[3] + (vals[4] if len(vals) > 4 else 0)  # idle + iowait
    steal = vals[7] if len(vals) > 7 else 0  # time the hypervisor gave to other guests is not ours either
    guest = sum(vals[8:10]) if len(vals) > 9 else 0  # already counted in user/nice
    return (sum(vals) - idle - guest - steal) / os.sysconf("SC_CLK_TCK")


def _steal_seconds() -> float:
    try:
        with open("/proc/stat") as f:
            parts = f.readline().split()
        return int(parts[8]) / os.sysconf("SC_CLK_TCK") if len(parts) > 8 else 0.0
    except (OSError, ValueError):
        return 0.0


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

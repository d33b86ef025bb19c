"""What the machine is and what it can do in theory."""

from __future__ import annotations

import hashlib
import socket
from typing import Callable

from rooflab.i18n import msg
from rooflab.machine.cpu import CPU, describe_cpu
from rooflab.machine.limits import ClockMeasurement, Theoretical, measure_clock, theoretical


def machine_key(cpu: CPU, hostname: str) -> str:
    """A short stable name for 'this machine': host, CPU model, core count."""
    raw = f"{hostname}|{cpu.model_name}|{cpu.physical_cores}|{cpu.logical_cpus}|{cpu.arch}"
    return f"{hostname}-{hashlib.sha1(raw.encode('utf-8', 'surrogateescape')).hexdigest()[:8]}"


_CLOCK: dict[str, ClockMeasurement | None] = {}  # the clock measured once per process


def describe(*, clock: Callable[[], ClockMeasurement | None] | None = None, cpu: CPU | None = None) -> dict:
    """The machine record stored with every run: CPU, caches, measured clock and theoretical peaks.

    ``clock`` measures the core clock (a session passes one that runs :func:`measure_clock` in its crash-isolated
    worker, like every other kernel); it is called once per process. Without it the nominal MHz stands in."""
    cpu = cpu or describe_cpu()
    host = socket.gethostname()
    doc = {"key": machine_key(cpu, host), "hostname": host, **cpu.to_dict()}
    # caches: bytes of one instance per data/unified level; cache_details: every cache with its sharing
    doc["cache_details"] = doc.pop("caches")
    doc["caches"] = {c.name.rstrip("d"): c.size for c in cpu.caches if c.type in ("Data", "Unified")}
    if clock is not None and "hz" not in _CLOCK:
        _CLOCK["hz"] = clock()
    cm = _CLOCK.get("hz") if clock is not None else None
    if cm is not None:
        hz, source = cm.hz, msg("measured")
        doc["clock"] = cm.to_dict()
    elif cpu.nominal_mhz:
        hz, source = cpu.nominal_mhz * 1e6, msg("nominal MHz from /proc/cpuinfo (not measured)")
        doc["clock"] = None
    else:
        hz, source = 0.0, msg("unknown")
        doc["clock"] = None
    doc["clock_hz"] = hz
    th = theoretical(cpu, hz, source) if hz else None
    doc["theoretical"] = th.to_dict() if th else None
    return doc


__all__ = ["CPU", "ClockMeasurement", "Theoretical", "describe", "describe_cpu", "machine_key", "measure_clock",
           "theoretical"]

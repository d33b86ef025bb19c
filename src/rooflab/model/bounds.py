"""Physical bounds on bandwidth (pure): what the load and store ports and the cache paths of a core can move.

A figure above its bound is a measurement problem (an overhead subtracted from a sample it swallowed, a wrong level,
a disturbed clock), never a discovery: rooflab marks it ``impossible`` and never draws it as a roof. The per-cycle
figures come from the micro-architecture table (``machine.uarch``), with its sources.
"""

from __future__ import annotations

from rooflab.i18n import join, msg
from rooflab.model.caches import LEVELS as _LEVELS

# The bytes each bandwidth kernel loads and stores per element, as counted (STREAM counts): the bound checks the
# loads against the load path and the stores against the store path.
KERNEL_ACCESS = {"read": (8, 0), "copy": (8, 8), "triad": (16, 8), "read_nt": (8, 0), "copy_nt": (8, 8),
                 "triad_nt": (16, 8)}
# The bound lets the clock run this much above the one measured at the start (turbo varies with load and
# temperature) before it calls a figure impossible; a figure must then exceed it by the usual 2% as well.
BOUND_CLOCK_HEADROOM = 1.10
# Where the CPU's table gives nothing (older records): what no current core exceeds, per cycle and core.
GENERIC_L1_BYTES = (192, 128)
GENERIC_CLOCK_HZ = 6.0e9


def bandwidth_bound(uarch: dict | None, level: str, loads: float, stores: float, threads: int, cores: int,
                    clock_hz: float) -> tuple[float, dict]:
    """The most bytes per second (loads + stores, as counted) a kernel moving ``loads`` and ``stores`` bytes per
    element can reach at memory ``level`` on ``threads`` threads, and what the figure rests on.

    Every byte passes through the L1's load or store ports, so the L1 bound holds at every level: per element,
    max(loads / load bytes per cycle, stores / store bytes per cycle) cycles. An L2 or L3 with a documented
    per-cycle figure (per core and direction) bounds its level and those below it; DRAM is bounded by the
    levels it passes through. Times the clock (with headroom) and the cores the threads occupy."""
    u = uarch or {}
    ld = u.get("l1_load_bytes") or GENERIC_L1_BYTES[0]
    st = u.get("l1_store_bytes") or GENERIC_L1_BYTES[1]
    generic = not u.get("l1_load_bytes")
    per_elem = loads + stores
    cycles = max(loads / ld, stores / st if stores else 0.0)
    parts = [msg("L1 ports {ld} B/cycle load, {st} B/cycle store", ld=ld, st=st)]
    idx = _LEVELS.index(level) if level in _LEVELS else len(_LEVELS) - 1
    for lv, key in (("L2", "l2_bytes"), ("L3", "l3_bytes")):
        bpc = u.get(key)
        if bpc and _LEVELS.index(lv) <= idx:
            cycles = max(cycles, loads / bpc, stores / bpc)
            parts.append(msg("{lv} {b} B/cycle", lv=lv, b=bpc))
    n = max(1, min(threads, cores or threads))
    hz = clock_hz if clock_hz and clock_hz > 0 else GENERIC_CLOCK_HZ
    bound = per_elem / cycles * hz * BOUND_CLOCK_HEADROOM * n if cycles > 0 else float("inf")
    basis = msg("{parts} per core, x {ghz:.2f} GHz (+{head:.0%}) x {n} core(s){generic}", parts=join(parts, ", "),
                ghz=hz / 1e9, head=BOUND_CLOCK_HEADROOM - 1, n=n,
                generic=msg(" (a generic bound: this CPU's ports are not in rooflab's table)") if generic else "")
    return bound, basis


def check_bandwidth_bound(machine: dict, level: str, kind: str, threads: int, rate: float,
                          clock_hz: float) -> dict | None:
    """None, or the reason (a message) why ``rate`` is more than any core of this machine can move at ``level``."""
    loads, stores = KERNEL_ACCESS.get(kind, (8.0, 0.0))
    bound, basis = bandwidth_bound(machine.get("uarch"), level, loads, stores, threads,
                                   machine.get("physical_cores") or threads, clock_hz)
    if rate <= 1.02 * bound:
        return None
    return msg("{rate:.3g} B/s is {r:.3g}x the most {level} can deliver to this kernel ({bound:.3g} B/s: {basis})",
               rate=rate, r=rate / bound, level=level, bound=bound, basis=basis)

"""Documents of a machine measured: ``rooflab measure`` (the CPU's cache-aware roofline) and its GPU form."""

from __future__ import annotations

from typing import Any, Optional, Union

from pydantic import Field

from rooflab.documents.common import Document, Interval, Library, Message, Model, Number, Roofs


class ComputeCeiling(Model):
    """A compute ceiling: the FLOP rate one kernel reached (median, 95% CI, samples), against the theoretical peak,
    with its status (ok, or why not)."""

    name: str = ""
    precision: str
    klass: Optional[str] = None
    threads: Optional[int] = None
    flops_per_s: Number = None
    ci95: Interval = None
    samples: Optional[int] = None
    cv: Number = None
    status: str = "ok"
    reason: Optional[Message] = None
    of_theoretical: Number = None
    theoretical_flops_per_s: Number = None
    library: Optional[Library] = None


class BandwidthCeiling(Model):
    """A bandwidth ceiling: the rate one kernel reached at a working set inside one level of the memory hierarchy."""

    level: str
    kernel: str = ""
    threads: Optional[int] = None
    bytes_per_s: Number = None
    ci95: Interval = None
    samples: Optional[int] = None
    cv: Number = None
    working_set_bytes: Number = None
    status: str = "ok"
    reason: Optional[Message] = None


class Ceilings(Model):
    compute: list[ComputeCeiling] = []
    bandwidth: list[BandwidthCeiling] = []


class Plateau(Model):
    level: str
    start_bytes: float
    end_bytes: float
    median: float
    points: int
    boundary_bytes: Number = None
    expected_bytes: Number = None


class Sweep(Model):
    """A bandwidth sweep over working-set sizes, and the plateaus found in it."""

    kernel: str
    threads: Optional[int] = None
    points: list[dict[str, Any]] = []
    plateaus: list[Plateau] = []


class BatchPoint(Model):
    """A point of the batch sweep: B reuses of each loaded element, its intensity, rate and what bounds it."""

    B: int
    intensity: float
    flops_per_s: Number = None
    ci95: Interval = None
    predicted_flops_per_s: Number = None
    bound: Optional[str] = None


class ComputeRoof(Model):
    name: str = ""
    flops_per_s: float


class MemoryRoof(Model):
    name: str = ""
    bytes_per_s: float


class SweepInfo(Model):
    """The batch sweep's kernel (D x F weights, its data type, threads) and the roofs it is predicted from; or why
    it was skipped."""

    D: Optional[int] = None
    F: Optional[int] = None
    dtype: Optional[str] = None
    threads: Optional[int] = None
    compute_roof: Optional[ComputeRoof] = None
    memory_roof: Optional[MemoryRoof] = None
    theoretical_ridge: Number = None
    skipped: Optional[Message] = None


class Measure(Document):
    """``rooflab measure``: compute ceilings per precision and instruction set, bandwidth per level, one thread and
    all threads, the batch sweep, and the roofs drawn from them."""

    ceilings: Union[Ceilings, list[dict[str, Any]]]
    """The compute ceilings (per precision, instruction set and thread count) and bandwidth ceilings (per level)."""
    threads_all: Optional[int] = None
    """The thread count of the all-CPU ceilings."""
    precisions: list[str] = []
    """The precisions measured."""
    plan: Optional[dict[str, Any]] = None
    """The sizes it chose for this machine's caches."""
    bandwidth_sweeps: list[Sweep] = []
    """Bandwidth against working-set size, with the plateaus found (one per cache level)."""
    sweep: list[BatchPoint] = []
    """The batch sweep: intensity raised step by step from memory-bound to compute-bound."""
    sweep_info: Optional[SweepInfo] = None
    """The batch sweep's kernel and the roofs it is predicted from."""
    roofs: Optional[Roofs] = None
    """The roofs a roofline is drawn from."""


class Gpu(Model):
    name: str
    compute_capability: Optional[str] = None
    sms: Optional[int] = None
    l2_bytes: Optional[int] = None
    memory_bytes: Optional[int] = None


class GpuTheoretical(Model):
    """The GPU's theoretical peaks at an SM clock: FLOP/s per precision and HBM bytes per second, and where the
    per-SM figures come from (``known``: the device is in rooflab's table)."""

    sm_clock_hz: Number = None
    flops: dict[str, float] = {}
    hbm_bytes_per_s: Number = None
    known: bool = False
    arch: Optional[str] = None
    source: Optional[str] = None


class GpuMeasure(Document):
    """``rooflab measure --device gpu``: the GPU's ceilings (FLOP/s per precision and unit, HBM and L2 bandwidth),
    against its theoretical peaks, with the device's state before and after."""

    device: str
    backend: str
    gpu: Gpu
    ceilings: Ceilings = Field(default_factory=Ceilings)
    theoretical: Optional[GpuTheoretical] = None
    plan: Optional[dict[str, Any]] = None
    bandwidth_sweeps: list[Sweep] = []
    sweep: list[BatchPoint] = []
    sweep_info: Optional[SweepInfo] = None
    roofs: Optional[Roofs] = None
    state: Optional[dict[str, Any]] = None


def ceilings(doc: dict, kind: str) -> list[dict]:
    """A measure document's ceilings of one kind, ``compute`` or ``bandwidth`` (a CPU's or a GPU's), as its JSON
    holds them: the one place that knows where they are; [] where it has none."""
    held = doc.get("ceilings") if isinstance(doc, dict) else None
    found = held.get(kind) if isinstance(held, dict) else None
    return found if isinstance(found, list) else []

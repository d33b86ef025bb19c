"""The labs' documents: each lab's measured cases, with the analysis its observations are written from."""

from __future__ import annotations

from typing import Any, Optional

from pydantic import Field

from rooflab.documents.kernels import Audit
from rooflab.documents.common import Compiler, Document, Interval, Library, Message, Model, Number


class Timed(Model):
    """A case a lab timed: its rate (median), the 95% CI, the samples and the check of its result."""

    name: str = ""
    time_s: Number = None
    flops_per_s: Number = None
    ci95: Interval = None
    samples: Optional[int] = None
    cv: Number = None
    rel_error: Number = None


class Lab(Document):
    """A lab's document: the envelope, and the lab's name."""

    lab: str
    """The lab that ran."""


class FmaPoint(Timed):
    chains: int
    vector_bits: int
    fma_per_cycle: Number = None
    of_peak: Number = None
    spills: Optional[int] = None


class Fma(Lab):
    """GFLOP/s against independent FMA chains: latency, throughput and Little's law."""

    precision: str
    vector_bits: int
    points: list[FmaPoint]
    analysis: dict[str, Any] = {}


class GemmParams(Model):
    """A GEMM build's register tile and cache blocks, and the flag profile it was built with."""

    vector_bits: Optional[int] = None
    MR: Optional[int] = None
    NR: Optional[int] = None
    KC: Optional[int] = None
    MC: Optional[int] = None
    NC: Optional[int] = None
    unroll: Optional[int] = None
    accumulator_registers: Optional[int] = None
    profile: str = ""


class Rung(Timed):
    step: str = ""
    n: Optional[int] = None
    threads: Optional[int] = None
    of_peak: Number = None
    ratio_to_blas: Number = None
    ratio_to_blas_ci95: Interval = None
    library: Optional[Library] = None
    params: Optional[GemmParams] = None
    audit: Optional[Audit] = None


class Peaks(Model):
    """The FMA peaks the rungs are read against, per thread count, and where they come from."""

    flops_per_s: dict[Any, float] = {}
    """FLOP/s by thread count."""
    source: Optional[Message] = None


class Ladder(Lab):
    """The GEMM ladder from naive loops to BLAS speed."""

    n: int
    rungs: list[Rung]
    peaks: Peaks = Field(default_factory=Peaks)
    caches: dict[str, int] = {}


class Tile(Timed):
    MR: int
    NR: int
    accumulators: Optional[int] = None
    registers_needed: Optional[int] = None
    spills: Optional[int] = None


class Tiles(Lab):
    """Micro-kernel register tiles: accumulators against the register file."""

    n: int
    tiles: list[Tile]
    vector_registers: Optional[int] = None


class Order(Timed):
    order: str
    inner: str = ""
    group: Optional[Message] = None
    vector_bits: Optional[int] = None


class Loops(Lab):
    """The six loop orders of a matrix product."""

    n: int
    orders: list[Order]


class BlockingCase(Model):
    n: int
    fits_llc: Optional[bool] = None
    rows: list[Timed] = []


class Blocking(Lab):
    """Cache blocking: block sizes against the cache that holds the tiles."""

    cases: list[BlockingCase]
    predicted_bs: Optional[int] = None
    rule: Optional[Message] = None


class Flags(Timed):
    flags: list[str] = []
    label: str = ""
    vector_bits: Optional[int] = None


class Contribution(Timed):
    """What one change contributes beside the flags matrix: the loop order (``layout``) or threads."""

    role: Optional[str] = None
    threads: Optional[int] = None


class Vectorize(Lab):
    """What vectorization and the other build flags each contribute."""

    n: int
    flags: list[Flags]
    contributions: list[Contribution] = []
    compiler: Optional[Compiler] = None


class ThreadsGemm(Timed):
    threads: int
    speedup: Number = None
    efficiency: Number = None


class ThreadsTriad(Model):
    name: str = ""
    threads: int
    bytes_per_s: Number = None
    ci95: Interval = None
    speedup: Number = None
    efficiency: Number = None


class Threads(Lab):
    """Scaling with threads: a compute-bound GEMM against a memory-bound triad."""

    counts: list[int]
    gemm: list[ThreadsGemm] = []
    triad: list[ThreadsTriad] = []


class ImbalanceCase(Model):
    name: str
    strips: Optional[int] = None
    threads: Optional[int] = None
    wall_s: Number = None
    wall_ci95: Interval = None
    busy_s: list[float] = []
    idle_fraction: Number = None


class Imbalance(Lab):
    """Load imbalance: uneven work split statically, then in finer chunks."""

    cases: list[ImbalanceCase]
    threads: Optional[int] = None


class Numa(Lab):
    """Where memory lies against where threads run."""

    topology: dict[str, list[int]] = {}
    single_node: Optional[bool] = None
    pairs: list[dict[str, Any]] = []


MODELS = {"lab.fma": Fma, "lab.ladder": Ladder, "lab.tiles": Tiles, "lab.loops": Loops, "lab.blocking": Blocking,
          "lab.vectorize": Vectorize, "lab.threads": Threads, "lab.imbalance": Imbalance, "lab.numa": Numa}

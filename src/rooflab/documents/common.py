"""What every rooflab document shares: messages (a template, its arguments and its English text), warnings, the
machine and the environment a run saw, the load on the CPUs meanwhile, roofs, and the envelope around each kind.

The models accept what rooflab writes and name, in one line, the first field that is not: a stored run edited by
hand, or cut short, is refused before a report reads it. Fields rooflab adds later are allowed (``extra``), so a
document keeps validating as it grows; what the readers rely on is typed."""

from __future__ import annotations

from typing import Any, Optional, Union

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_PATTERN = r"^rooflab\.[a-z][a-z0-9_.]*/[0-9]+$"


class Model(BaseModel):
    """A part of a document: typed where readers rely on it, open to fields added later."""

    model_config = ConfigDict(extra="allow", strict=True, populate_by_name=True, defer_build=True,
                              use_attribute_docstrings=True)


def read(model: type[BaseModel], data: Any) -> Any:
    """A part of a document as its model reads it: attributes instead of keys, an absent optional field its
    default. The document itself stays the plain JSON it is in flight and on disk; readers outside ``documents/``
    take the parts they read through here (or a named accessor), so where a field lies is known in one place."""
    return model.model_validate(data if data is not None else {}, strict=False)


def cache_sizes(machine: Any) -> dict[str, int]:
    """A machine's cache sizes by level (``L1``, ``L2``, ``L3``: one instance's bytes), from a machine record;
    {} where it has none."""
    found = machine.get("caches") if isinstance(machine, dict) else None
    return found if isinstance(found, dict) else {}


def plain(part: Any) -> Any:
    """A typed part back as the plain JSON a document holds (a message read through its model, put in another)."""
    return part.model_dump(by_alias=True) if isinstance(part, BaseModel) else part


Number = Optional[float]
Interval = Optional[list[float]]  # a 95% confidence interval: [low, high]


class Template(Model):
    """A message: its English template (``id``), the arguments it was filled with, and the English text."""

    id: str
    args: dict[str, Any] = {}
    text: str


class Joined(Model):
    """Messages joined by a separator, each rendered in the reader's language."""

    join: list[Union[Template, "Joined", str]]
    sep: str = ", "


Message = Union[Template, Joined, str]


class Warning(Model):  # noqa: A001 - the document's word
    """A measurement warning: what was seen, against which threshold, and what to do."""

    code: str
    subject: str = ""
    message: str
    seen: Number = None
    threshold: Number = None
    remedy: str = ""
    msg: Optional[Message] = None
    remedy_msg: Optional[Message] = None


class Cache(Model):
    name: str = ""
    level: int
    type: str = ""
    size: int
    line: Optional[int] = None
    ways: Optional[int] = None
    instances: int = 1


class Isa(Model):
    """The instruction set: the architecture, its extensions, the widest vector registers and how many."""

    arch: str = ""
    features: list[str] = []
    vector_bits: Optional[int] = None
    vector_registers: Optional[int] = None
    fma: Optional[bool] = None
    name: str = ""


class Uarch(Model):
    """The core's execution resources as rooflab's table (or its guess from the ISA) gives them."""

    name: str = ""
    fma_pipes: Optional[int] = None
    fma_bits: Optional[int] = None
    add_pipes: int = 0
    issue_width: Optional[int] = None
    source: str = ""
    assumed: bool = False
    l1_load_bytes: int = 0
    l1_store_bytes: int = 0
    l2_bytes: Optional[int] = None
    l3_bytes: Optional[int] = None


class Theoretical(Model):
    """The machine's theoretical limits at a clock: FLOP/s per core for each precision and kind of instruction, and
    the whole machine's FMA peaks."""

    clock_hz: Number = None
    clock_source: Optional[Message] = None
    cores: Optional[int] = None
    fp64_flops: Number = None
    fp32_flops: Number = None
    per_core: dict[str, dict[str, float]] = {}
    assumptions: list[Message] = []

    def core_flops(self, precision: str, klass: str) -> float | None:
        """One core's theoretical FLOP/s for a precision and a kind of instruction (``simd_fma``...)."""
        return (self.per_core.get(precision) or {}).get(klass)


class Clock(Model):
    """The core clock as measured: its median, 95% CI, samples and how."""

    hz: float
    ci95: Interval = None
    samples: Optional[int] = None
    method: Optional[Message] = None


class Machine(Model):
    """The machine a run measured: its key (what roofs are looked up by), CPU, caches and theoretical limits."""

    key: str
    hostname: str = ""
    model_name: str = ""
    arch: str = ""
    logical_cpus: Optional[int] = None
    physical_cores: Optional[int] = None
    caches: dict[str, int] = {}
    cache_details: list[Cache] = []
    sockets: Optional[int] = None
    memory_bytes: Optional[int] = None
    numa_nodes: dict[str, list[int]] = {}
    isa: Isa = Field(default_factory=Isa)
    uarch: Optional[Uarch] = None
    clock: Optional[Clock] = None
    clock_hz: Number = None
    theoretical: Optional[Theoretical] = None


class Environment(Model):
    """The software a run measured with: OS, Python, NumPy, the BLAS and its threads, the git revision."""

    hostname: str = ""
    os: str = ""
    python: str = ""
    numpy: str = ""
    blas: list[dict[str, Any]] = []
    thread_env: dict[str, Any] = {}
    git: Optional[dict[str, Any]] = None
    argv: list[str] = []


class CpuLoad(Model):
    cpu: int
    others: float
    own: float
    steal: float = 0.0


class Load(Model):
    """What else ran on the CPUs while rooflab measured: other processes, the host's steal, rooflab's own work."""

    wall_s: Number = None
    loadavg1_start: Number = None
    loadavg1_end: Number = None
    steal_cores: Number = None
    other_cores: Number = None
    own_cores: Number = None
    per_cpu: list[CpuLoad] = []


class Roof(Model):
    """One roof: its value (FLOP/s for a compute roof, B/s for a memory roof), name, level and precision."""

    name: str = ""
    value: float = Field(ge=0)
    label: Optional[str] = None
    level: Optional[str] = None
    precision: Optional[str] = None


class Roofs(Model):
    """The ceilings a roofline is drawn from: compute (FLOP/s) and memory (B/s); the thread count they were measured
    on, and (``instead_of``) the roofline they stand in for where that one could not be drawn."""

    compute: list[Roof] = []
    memory: list[Roof] = []
    threads: Optional[int] = None
    instead_of: Optional[Any] = None


class Compiler(Model):
    """The C compiler a kernel was built with: where it is, which (gcc, clang), its version and target."""

    path: str = ""
    kind: str = ""
    version: str = ""
    target: str = ""
    arch: str = ""
    extra: list[str] = []


class Library(Model):
    """A compiled kernel library: where it is, its sources, the flags and the compiler."""

    path: str
    sources: list[str] = []
    flags: list[str] = []
    compiler: Optional[Compiler] = None
    key: str = ""


class RankRecord(Model):
    """One rank of an MPI job: where it ran (host, CPUs, process), whether it finished, and its error."""

    rank: int
    host: str = ""
    cpus: Optional[list[int]] = None
    pid: Optional[int] = None
    status: str = "ok"
    error: Optional[str] = None
    traceback: Optional[str] = None


class RankResult(RankRecord):
    result: Optional[dict[str, Any]] = None
    """The rank's own document (None where it failed)."""


class RankRate(Model):
    rank: int
    host: str = ""
    rate: Number = None


class Aggregate(Model):
    """One measurement over the ranks of a job: all ranks' work over the slowest rank's time, per node as well,
    the slowest and fastest rank and their ratio. ``name``/``level``/``kernel``/``label`` say which measurement."""

    job: Number = None
    nodes: dict[str, float] = {}
    time_max_s: Number = None
    ranks: int = 0
    slowest: Optional[RankRate] = None
    fastest: Optional[RankRate] = None
    spread: Number = None
    name: Optional[str] = None
    level: Optional[str] = None
    kernel: Optional[str] = None
    label: Optional[str] = None
    threads: Optional[int] = None
    precision: Optional[str] = None
    klass: Optional[str] = None


class MeasureAggregates(Model):
    compute: list[Aggregate] = []
    bandwidth: list[Aggregate] = []


class JobRoofs(Model):
    flops_per_s: float
    bytes_per_s: float
    ranks: int


class JobPoint(Model):
    kernel: str
    label: str
    intensity: float
    job_flops_per_s: float
    job_roof_flops_per_s: float
    of_job_roof: float


class JobRoofline(Model):
    """A bench job's kernels on the job's roofline (the FMA and DRAM ceilings aggregated over a stored MPI measure
    run), or why there is none."""

    available: bool
    note: Optional[Message] = None
    roofs: Optional[JobRoofs] = None
    points: list[JobPoint] = []


class MpiJob(Model):
    """An MPI job: its size, every rank's record and result, the hosts, and the job's aggregates (per ceiling for
    measure, per kernel and size for bench)."""

    size: int
    ranks: list[RankRecord] = []
    hosts: list[str] = []
    per_rank: list[RankResult] = []
    aggregates: Union[MeasureAggregates, list[Aggregate], None] = None
    job_roofline: Optional[JobRoofline] = None


class Document(Model):
    """The envelope of every document: its schema (``rooflab.<kind>/<version>``), the warnings, the load meanwhile,
    the machine and environment, the observations written from the numbers, and the run it is stored as."""

    schema_: str = Field(alias="schema", pattern=SCHEMA_PATTERN)
    """The kind and version of this document: rooflab.<kind>/<version>."""
    warnings: list[Warning] = []
    """What may make a figure less than it seems: spread, competing load, a figure above its physical limit."""
    load: Optional[Load] = None
    """The CPU time others took while it ran (processes, the host's steal), per CPU."""
    machine: Optional[Machine] = None
    """The machine it ran on."""
    environment: Optional[Environment] = None
    """The software it ran with."""
    observations: list[Message] = []
    """Sentences written from the numbers measured."""
    run_id: Optional[int] = None
    """The run it is stored as (`rooflab show ID`)."""
    quick: Optional[bool] = None
    """Whether it ran with --quick (fewer samples)."""
    mpi: Optional[MpiJob] = None
    """An MPI job's ranks and aggregates (``mpirun -n N rooflab ... --mpi``)."""

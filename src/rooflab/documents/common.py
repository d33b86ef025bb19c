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
    isa: dict[str, Any] = {}
    clock_hz: Number = None
    theoretical: dict[str, Any] = {}


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
    name: str
    value: float = Field(ge=0)
    label: Optional[str] = None
    level: Optional[str] = None
    precision: Optional[str] = None


class Roofs(Model):
    """The ceilings a roofline is drawn from: compute (FLOP/s) and memory (B/s)."""

    compute: list[Roof] = []
    memory: list[Roof] = []


class Library(Model):
    """A compiled kernel library: where it is, its sources, the flags and the compiler."""

    path: str
    sources: list[str] = []
    flags: list[str] = []
    compiler: dict[str, Any] = {}
    key: str = ""


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

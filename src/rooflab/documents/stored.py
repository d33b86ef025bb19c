"""Documents about the store and the machine: info, history, a stored run (and several), the list of labs."""

from __future__ import annotations

from typing import Any, Optional, Union

from pydantic import Field

from rooflab.documents.common import SCHEMA_PATTERN, Document, Environment, Machine, Message, Model


class Tool(Model):
    """A tool rooflab can use here: whether it is, where it is, and the flags that enable it (OpenMP)."""

    available: bool = False
    path: Optional[str] = None
    flags: Optional[list[str]] = None


class Perf(Model):
    """perf on this machine: whether it runs, with hardware counters or software events only, and why not."""

    available: bool = False
    hardware: bool = False
    software: bool = False
    reason: Optional[Message] = None


class Capabilities(Model):
    """What this machine can do for rooflab: its C compiler (or why none), OpenMP, perf, valgrind, numactl and
    objdump."""

    compiler: Optional[dict[str, Any]] = None
    compiler_error: Optional[str] = None
    openmp: Tool = Field(default_factory=Tool)
    perf: Perf = Field(default_factory=Perf)
    valgrind: Tool = Field(default_factory=Tool)
    numactl: Tool = Field(default_factory=Tool)
    objdump: Tool = Field(default_factory=Tool)


class Info(Document):
    """``rooflab info``: the machine, the environment and what this machine can do (compiler, OpenMP, perf,
    valgrind, numactl, BLAS)."""

    machine: Machine
    environment: Environment
    capabilities: Capabilities


class RunSummary(Model):
    run_id: int
    created: str
    kind: str
    status: str
    hostname: Optional[str] = None
    machine: Optional[str] = None
    label: Optional[str] = None
    records: int = 0


class History(Model):
    """``rooflab history``: the stored runs, newest first."""

    schema_: str = Field(alias="schema", pattern=SCHEMA_PATTERN)
    store: str
    runs: list[RunSummary]


def run_identity(header: Any) -> tuple[str | None, str | None]:
    """The machine key and the host name a run's header names (None for either it lacks): what the store files a
    run under."""
    machine = header.get("machine") if isinstance(header, dict) else None
    env = header.get("environment") if isinstance(header, dict) else None
    return (machine.get("key") if isinstance(machine, dict) else None,
            env.get("hostname") if isinstance(env, dict) else None)


class Stored(Model):
    """A run as the store gives it back: its id, when, its kind and status, its header (machine and environment)
    and its result (the document of its kind)."""

    run_id: Union[int, str]
    created: str = ""
    kind: str = ""
    status: str = ""
    header: dict[str, Any] = {}
    result: Optional[dict[str, Any]] = None


class Run(Model):
    """A stored run as ``rooflab show --json`` prints it: when and where it ran, its header (machine and
    environment), its records, and its result (the document of its kind)."""

    schema_: str = Field(alias="schema", pattern=SCHEMA_PATTERN)
    run_id: Union[int, str]
    created: str
    finished: Optional[str] = None
    kind: str
    status: str
    label: Optional[str] = None
    header: dict[str, Any]
    records: list[dict[str, Any]] = []
    result: Optional[dict[str, Any]] = None


class Runs(Model):
    """Several stored runs (``rooflab show A B``, ``rooflab report``)."""

    schema_: str = Field(alias="schema", pattern=SCHEMA_PATTERN)
    runs: list[Run]


class LabEntry(Model):
    name: str
    description: str


class Labs(Model):
    """``rooflab lab``: the labs, each with what it shows."""

    schema_: str = Field(alias="schema", pattern=SCHEMA_PATTERN)
    labs: list[LabEntry]


class KindEntry(Model):
    kind: str
    id: str
    about: str = ""


class FieldEntry(Model):
    field: str
    type: str
    required: bool
    about: str = ""


class Schema(Model):
    """``rooflab schema``: the document kinds, or one kind's fields and its JSON Schema."""

    schema_: str = Field(alias="schema", pattern=SCHEMA_PATTERN)
    kinds: Optional[list[KindEntry]] = None
    """Every kind, with its identifier (without KIND)."""
    kind: Optional[str] = None
    """The kind asked for."""
    id: Optional[str] = None
    """Its identifier: rooflab.<kind>/<version>."""
    fields: Optional[list[FieldEntry]] = None
    """Its top-level fields."""
    json_schema: Optional[dict[str, Any]] = None
    """Its JSON Schema (draft 2020-12)."""

"""Documents about the store and the machine: info, history, a stored run (and several), the list of labs."""

from __future__ import annotations

from typing import Any, Optional, Union

from pydantic import Field

from rooflab.documents.common import SCHEMA_PATTERN, Document, Environment, Machine, Model


class Info(Document):
    """``rooflab info``: the machine, the environment and what this machine can do (compiler, OpenMP, perf,
    valgrind, numactl, BLAS)."""

    machine: Machine
    environment: Environment
    capabilities: dict[str, Any]


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

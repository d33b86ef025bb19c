"""The library's entry points; the CLI calls these and renders what they return."""

from __future__ import annotations

from .results.schema import schema_id


def info(*, clock: bool = True) -> dict:
    """Machine, environment and capabilities as one document (``rooflab.info/1``)."""
    from .machine import describe
    from .machine.env import capabilities, environment

    return {"schema": schema_id("info"), "machine": describe(clock=clock), "environment": environment(),
            "capabilities": capabilities()}

"""The library's entry points; the CLI calls these and renders what they return."""

from __future__ import annotations

from .results.schema import schema_id


def info(*, clock: bool = True) -> dict:
    """Machine, environment and capabilities as one document (``rooflab.info/1``)."""
    from .machine import describe
    from .machine.env import capabilities, environment

    return {"schema": schema_id("info"), "machine": describe(clock=clock), "environment": environment(),
            "capabilities": capabilities()}


def measure(*, quick: bool = False, threads: int | None = None, precisions: tuple[str, ...] = ("fp64", "fp32"),
            batch_sweep: bool = True, store=None, progress=None) -> dict:
    """Measure this machine's roofline (the `rooflab measure` document, ``rooflab.measure/1``).

    ``store``: a :class:`~rooflab.results.store.Store`, a path, or None for the default store; False keeps the run
    out of the store.
    """
    from .labs.measure import MeasureOptions, run
    from .results.store import Store
    from .session import Session

    own = store is None or isinstance(store, (str, bytes)) or hasattr(store, "__fspath__")
    st = None if store is False else (Store(store if store else None) if own else store)
    try:
        with Session("measure", store=st, progress=progress) as s:
            return run(MeasureOptions(quick=quick, threads=threads, precisions=precisions, batch_sweep=batch_sweep), s)
    finally:
        if own and st is not None:
            st.close()

"""The library's entry points; the CLI calls these and renders what they return."""

from __future__ import annotations

import contextlib
import functools

from rooflab.render.notebook import Result
from rooflab.results.schema import schema_id


def _as_result(fn):
    """The documents the library returns display themselves in Jupyter (and stay plain dicts)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return Result(fn(*args, **kwargs))
    return wrapper


@contextlib.contextmanager
def _store(store):
    """A Store given as an object (left open), a path or None (opened and closed here), or False (no store)."""
    from rooflab.results.store import Store

    if store is False:
        yield None
    elif store is None or isinstance(store, (str, bytes)) or hasattr(store, "__fspath__"):
        with Store(store or None) as st:
            yield st
    else:
        yield store


@_as_result
def info(*, clock: bool = True) -> dict:
    """Machine, environment and capabilities as one document (``rooflab.info/1``)."""
    from rooflab.machine import describe
    from rooflab.machine.env import capabilities, environment

    return {"schema": schema_id("info"), "machine": describe(clock=clock), "environment": environment(),
            "capabilities": capabilities()}


@_as_result
def measure(*, quick: bool = False, threads: int | None = None, precisions: tuple[str, ...] = ("fp64", "fp32"),
            batch_sweep: bool = True, wait_quiet_s: float = 0.0, store=None, progress=None) -> dict:
    """Measure this machine's roofline (the `rooflab measure` document, ``rooflab.measure/2``).

    ``store``: a :class:`~rooflab.results.store.Store`, a path, or None for the default store; False keeps the run
    out of the store.
    """
    from rooflab.commands.measure import MeasureOptions, run
    from rooflab.session import Session

    with _store(store) as st, Session("measure", store=st, progress=progress) as s:
        return run(MeasureOptions(quick=quick, threads=threads, precisions=precisions, batch_sweep=batch_sweep,
                                  wait_quiet_s=wait_quiet_s), s)


@_as_result
def measure_gpu(*, quick: bool = False, batch_sweep: bool = True, index: int = 0, store=None, progress=None,
                backend=None) -> dict:
    """Measure an NVIDIA GPU's roofline (the `rooflab measure --device cuda` document, ``rooflab.measure.gpu/2``).
    Needs CuPy (``pip install 'rooflab[gpu]'``); says so, and why, when there is no usable GPU."""
    from rooflab.gpu.backend import select_backend
    from rooflab.commands.measure_gpu import GpuOptions, run
    from rooflab.session import Session

    backend = backend or select_backend("cuda", index)
    with _store(store) as st, Session("measure.gpu", store=st, progress=progress) as s:
        return run(GpuOptions(quick=quick, batch_sweep=batch_sweep, index=index), s, backend)


@_as_result
def lab(name: str, *, store=None, progress=None, **options) -> dict:
    """Run one lab (``rooflab lab NAME``) and return its document; ``options`` are the lab's (quick, n, ...).

    ``store``: a Store, a path, None for the default store, or False to keep the run out of the store.
    """
    import importlib

    from rooflab.errors import RooflabError
    from rooflab.labs import LABS
    from rooflab.session import Session

    if name not in LABS:
        raise RooflabError(f"no lab {name!r}; the labs are: {', '.join(LABS)}")
    mod = importlib.import_module(LABS[name][0])
    with _store(store) as st, Session(f"lab.{name}", store=st, progress=progress,
                                      worker_env=getattr(mod, "WORKER_ENV", None)) as s:
        return mod.run(s, **options)


@_as_result
def bench(target, *, kernels: tuple[str, ...] = (), quick: bool = False, store=None, progress=None, **callable_opts):
    """Bench kernels and place them on this machine's roofline (the `rooflab bench` document).

    ``target``: a spec file (``kernels`` picks some of its kernels), or a Python callable with ``sizes``,
    ``setup``, ``flops``, ``bytes`` and optionally ``expected``, ``name``, ``tolerance``, ``threads`` and
    ``precision`` (see :func:`rooflab.commands.bench.run_callable`).
    """
    from rooflab.commands import bench as bench_lab
    from rooflab.session import Session
    from rooflab.userkernel.spec import load_spec

    with _store(store) as st, Session("bench", store=st, progress=progress) as s:
        if callable(target):
            return bench_lab.run_callable(s, target, quick=quick, **callable_opts)
        specs = bench_lab.select(load_spec(target), tuple(kernels))
        return bench_lab.run(s, specs, quick=quick)


@_as_result
def compare(a: str, b: str, *, threshold: float = 0.02, rounds: int | None = None, quick: bool = False, store=None,
            progress=None) -> dict:
    """Did B really get faster than A? Two kernels (``spec.toml[:NAME]``) or two stored bench runs (ids)."""
    from rooflab.commands import compare as cmp
    from rooflab.session import Session

    with _store(store) as st, Session("compare", store=st, progress=progress) as s:
        return cmp.run(s, a, b, threshold=threshold, rounds=rounds, quick=quick)

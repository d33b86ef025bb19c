"""Shared by the GEMM labs: time one C GEMM in the worker and turn the result into a table row."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rooflab.errors import RooflabError
from rooflab.kernels import tasks
from rooflab.timing.harness import HarnessConfig, Timing

if TYPE_CHECKING:  # a session is passed in; the kernels layer never opens one
    from rooflab.session import Session


def measure_gemm(session: Session, name: str, lib: str, symbol: str, shape: tuple[int, int, int],
                 config: HarnessConfig, extra: tuple = (), **fields) -> dict:
    """A row {name, shape, flops_per_s, ci95, rel_error, ...}; ``error`` instead when it failed or was wrong."""
    m, n, k = shape
    flops = 2.0 * m * n * k
    row = {"name": name, "shape": list(shape), **fields}
    session.progress(name)
    try:
        res, judged = session.call_until_quiet(name, tasks.gemm_time_task, lib, symbol, tuple(shape), config, extra,
                                               timeout_s=900, timing_of=lambda r: Timing.from_dict(r["timing"]))
    except RooflabError as exc:
        row.update(error=str(exc), flops_per_s=None, rel_error=getattr(exc, "rel_error", None))
        session.record(name, row)
        return row
    t = Timing.from_dict(res["timing"])
    s = t.summary
    rate, ci = s.rate(flops)
    row.update(time_s=s.median, flops_per_s=rate, ci95=ci, samples=s.n, cv=s.cv, rel_error=res["rel_error"], seconds=t.samples)
    judged.judge(row)
    session.check_timing(name, t)
    session.record(name, row)
    return row

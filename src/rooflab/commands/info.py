"""`rooflab info`: the machine (CPU, caches, the clock measured in the worker, theoretical peaks), the environment
(Python, NumPy, BLAS and its settings, affinity, git) and what this machine offers rooflab (compiler, OpenMP, perf
counters, valgrind, numactl, objdump)."""

from __future__ import annotations

from dataclasses import dataclass

from rooflab.contract import Command, Outputs, option
from rooflab.i18n import msg
from rooflab.machine import describe
from rooflab.machine.env import capabilities
from rooflab.session import Session


@dataclass(frozen=True)
class Options:
    clock: bool = option(True, negate="--no-clock", help="Measure the core clock (in the worker, like every kernel).",
                         negate_help="Skip the clock measurement (theoretical peaks then use the nominal MHz).")


def run(session: Session, opts: Options) -> dict:
    session.progress("measuring the core clock" if opts.clock else "reading the machine")
    machine = session.machine if opts.clock else describe()  # the session's machine has its clock measured
    return {"machine": machine, "environment": session.environment, "capabilities": capabilities()}


COMMAND = Command(
    name="info", order=5, options=Options, run=run,
    summary=msg("machine, environment and capabilities (compiler, OpenMP, perf counters, valgrind, "
                "numactl, BLAS)"),
    outputs=Outputs(stored=False, files=()))

"""`rooflab info`: the machine (CPU, caches, the clock measured in the worker, theoretical peaks), the environment
(Python, NumPy, BLAS and its settings, affinity, git) and what this machine offers rooflab (compiler, OpenMP, perf
counters, valgrind, numactl, objdump)."""

from __future__ import annotations

from dataclasses import dataclass

from rooflab.contract import Column, Command, Outputs, Report, Table, option
from rooflab.i18n import msg
from rooflab.interpret.machine import ITEM_COLUMNS as _ITEM
from rooflab.interpret.machine import assumptions, capability_rows, environment_rows, machine_rows
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




def _assumptions(doc: dict) -> list[dict]:
    return [{"assumption": a} for a in assumptions(doc["machine"])]


COMMAND = Command(
    name="info", order=5, options=Options, run=run,
    summary=msg("machine, environment and capabilities (compiler, OpenMP, perf counters, valgrind, "
                "numactl, BLAS)"),
    outputs=Outputs(stored=False, files=()),
    report=Report(tables=(
        Table("info_machine", "Machine", rows=lambda d: machine_rows(d["machine"]), columns=_ITEM),
        Table("info_assumptions", "What the theoretical peaks assume", rows=_assumptions,
              columns=(Column("assumption", "assumption"),)),
        Table("info_environment", "Environment", rows=lambda d: environment_rows(d["environment"]), columns=_ITEM),
        Table("info_capabilities", "Capabilities", rows=lambda d: capability_rows(d["capabilities"]),
              columns=_ITEM))))

"""`rooflab explain`: why a kernel runs as it does — the evidence, the findings ranked by the time they could save,
and the experiments rooflab runs itself to test them (:mod:`rooflab.diagnosis`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from rooflab.contract import (EXIT_NOTHING_MEASURED, Command, Hooks, Outputs, Report, Roofline, internal, option,
                              quick_option)
from rooflab.diagnosis.engine import explain_kernels
from rooflab.errors import RooflabError
from rooflab.i18n import msg, text, tr
from rooflab.interpret.common import kernel_points, nothing_measured
from rooflab.interpret.explain import explain_observations, explain_tables
from rooflab.interpret.outline import kernels_outline
from rooflab.kernels.builders import OPENMP_QUIET_ENV
from rooflab.kernels.user import specs_named
from rooflab.machine import describe
from rooflab.results.history import roofline_or_measure
from rooflab.session import Session
from rooflab.userkernel.spec import parse_size_values, size_for


@dataclass(frozen=True)
class Options:
    spec: str = option(argument=True, help="A kernel spec file, or lab:NAME for one of the labs' own kernels "
                                           "(lab:gemm_ikj, lab:stream_triad, ...).")
    kernel: str | None = option(None, help="Only this kernel of the spec (default: every kernel).")
    size: tuple[str, ...] = option((), many=True, help="NAME=NUMBER for each size variable (default: each size of "
                                                       "the spec); from Python, a dict.")
    experiments: bool = option(True, negate="--no-experiments", help="Run the experiments that test the findings.",
                               negate_help="Gather the evidence and the findings; run no experiment.")
    quick: bool = quick_option("Fewer samples and rounds: a first look.")
    specs: tuple | None = internal()  # the kernels, read from their spec
    roofline: list | None = internal()  # this machine's stored measure runs, newest first


def prepare(opts: Options) -> Options:
    """Every mistake in the spec or the sizes is reported before anything runs."""
    specs = specs_named(opts.spec, opts.kernel)
    size = parse_size_values(opts.size)
    for s in specs:
        for one in [size_for(s, size)] if size else s.sizes:
            if s.work(one) == (0.0, 0.0):
                raise RooflabError(f"{s.name} does no work at {one} (0 FLOPs and 0 bytes by its spec): nothing to "
                                   "explain there")
    return dataclasses.replace(opts, specs=tuple(specs))


def before(opts: Options, ctx) -> Options:
    return dataclasses.replace(opts, roofline=roofline_or_measure(ctx, describe()["key"], opts.specs[0].precision))


def run(session: Session, opts: Options) -> dict:
    kernels = explain_kernels(session, list(opts.specs), sizes=parse_size_values(opts.size), roofline=opts.roofline,
                              experiments=opts.experiments, quick=opts.quick)
    first = next((k["roofs"] for k in kernels if k.get("roofs")), None) or {"compute": [], "memory": [],
                                                                           "source": None}
    return {"quick": opts.quick, "experiments_run": opts.experiments, "kernels": kernels,
            "roofs": {"compute": first["compute"], "memory": first["memory"]}, "roofline_source": first["source"]}


def exit_status(doc: dict, opts: Options) -> tuple[int, str] | None:
    if nothing_measured(doc):
        return EXIT_NOTHING_MEASURED, ("no kernel could be explained (every one failed to build, crashed, hung or "
                                       "was wrong); see above")
    return None


def _headline(doc: dict) -> str:
    return (tr("roofline from {source}", source=text(doc.get("roofline_source") or "—"))
            + ("" if doc.get("experiments_run", True) else " · " + tr("no experiments")))


COMMAND = Command(
    name="explain", order=4, options=Options, run=run, worker_env=OPENMP_QUIET_ENV,
    summary=msg("why is this kernel slow? the evidence, the findings ranked by the time they could save, and the "
                "experiments that test them"),
    report=Report(interpret=explain_observations, headline=_headline,
                  tables=explain_tables(lambda d: d.get("kernels")),
                  outline=lambda d: kernels_outline(d.get("kernels") or []),
                  roofline=Roofline(points=lambda d: kernel_points(d.get("kernels")))),
    outputs=Outputs(files=("html", "csv")), hooks=Hooks(prepare=prepare, before=before, exit_status=exit_status))

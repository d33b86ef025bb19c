"""`rooflab profile`: why a kernel runs as it does.

Where perf can count hardware events: cycles, instructions and IPC against the core's dispatch width, cache
references and misses, branch misses, and hotspots (perf record). Where it cannot (virtual machines such as this
one), the run says so and falls back to cachegrind with this machine's real cache geometry: instructions, D1 and
last-level misses of the kernel function, and the traffic they imply (misses x line size) beside the spec's byte
model, so the model can be checked.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from rooflab.contract import Column, Command, Hooks, Outputs, Report, Table, internal, option
from rooflab.counters.count import count_kernel
from rooflab.documents import kernels
from rooflab.documents.common import read
from rooflab.errors import RooflabError
from rooflab.i18n import msg, tr
from rooflab.interpret.profile import profile_observations
from rooflab.kernels.user import specs_named
from rooflab.session import Session
from rooflab.userkernel.spec import KernelSpec, parse_size_values, size_for


def pick_size(spec: KernelSpec, given: dict | None) -> dict:
    if given:
        return size_for(spec, given)
    # profilers under simulation run ~50x slower: the smallest size of the spec
    return min(spec.sizes, key=spec.array_bytes)


@dataclass(frozen=True)
class Options:
    spec: str = option(argument=True, help="A kernel spec file, or lab:NAME for one of the labs' own kernels "
                                           "(lab:gemm_ikj, lab:loop_kji, lab:stream_triad, ...).")
    kernel: str | None = option(None, help="The kernel of the spec to profile (needed when it has several).")
    size: tuple[str, ...] = option((), many=True, help="NAME=NUMBER for each size variable (default: the spec's "
                                                       "smallest size); from Python, a dict.")
    calls: int = option(3, min=1, help="Calls of the kernel.")
    cachegrind: bool = option(False, help="Use cachegrind even where perf counts.")
    resolved: KernelSpec | None = internal()


def prepare(opts: Options) -> Options:
    """The kernel read from its spec (or the labs' own kernels) and every mistake reported before anything runs."""
    specs = specs_named(opts.spec, opts.kernel)
    if len(specs) > 1:
        raise RooflabError(f"{opts.spec} has several kernels ({', '.join(s.name for s in specs)}): choose one "
                           "with --kernel")
    pick_size(specs[0], parse_size_values(opts.size))
    return dataclasses.replace(opts, resolved=specs[0])


def run(session: Session, opts: Options) -> dict:
    return profile(session, opts.resolved, size=parse_size_values(opts.size), calls=opts.calls,
                   force_cachegrind=opts.cachegrind)


def profile(session: Session, spec: KernelSpec, *, size: dict | None = None, calls: int = 3,
            force_cachegrind: bool = False) -> dict:
    size = pick_size(spec, size)
    flops, nbytes = spec.work(size)
    doc = {"kernel": spec.to_dict(), "size": size, "calls": calls, "model": {"flops": flops, "bytes": nbytes},
           **count_kernel(spec, size, calls, session.machine, force_cachegrind=force_cachegrind,
                          progress=session.progress)}
    session.record(spec.name, {"method": doc["method"], "counters": doc["counters"]})
    return doc


def _counters(doc: dict) -> list[dict]:
    return [{"event": k, "value": v} for k, v in doc["counters"].items()]


def _counters_title(doc: dict) -> str:
    return (tr("Counters (per call, kernel function only)") if doc["method"] == "cachegrind" else
            tr("Counters (whole driver run)"))


_SPOT_COLUMNS = (Column("symbol", "where"), Column("percent", "% of samples", "f1"))

COMMAND = Command(
    name="profile", order=4, options=Options, run=run,
    summary=msg("why: hardware counters (perf) where the machine exposes them, simulated caches (cachegrind) "
                "otherwise"),
    report=Report(
        interpret=profile_observations,
        headline=lambda d: tr("{name} at {size} · {calls} call(s) · method: {method}",
                              name=read(kernels.KernelSpec, d["kernel"]).name,
                              size=" ".join(f"{k}={v}" for k, v in d["size"].items()), calls=d["calls"],
                              method=d["method"]),
        tables=(Table("profile_counters", _counters_title, rows=_counters, columns=(
                    Column("event", "event"),
                    Column("value", "value", "g6", value=lambda r, d: r["value"] if isinstance(r["value"], (int, float))
                           else tr("not counted")))),
                Table("profile_hotspots", "Hot functions (perf record)", rows="hotspots", columns=_SPOT_COLUMNS),
                Table("profile_hot_lines", "Hot source lines (perf record)", rows="hot_lines", columns=_SPOT_COLUMNS))),
    outputs=Outputs(files=()), hooks=Hooks(prepare=prepare))

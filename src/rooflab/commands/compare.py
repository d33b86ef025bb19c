"""`rooflab compare A B`: did it really get faster?

Two kernels (``spec.toml:name``, or a spec with one kernel) are checked, then timed in interleaved rounds at each
size; the verdict comes from the per-round ratios (:func:`~rooflab.timing.stats.paired_ratio`). Two stored bench
runs are compared kernel by kernel and size by size from their raw samples, unpaired
(:func:`~rooflab.timing.stats.unpaired_ratio`), with what differed between the two records.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from rooflab.contract import EXIT_SLOWER, Column, Command, Hooks, Outputs, Report, Table, internal, option, quick_option
from rooflab.documents.common import read
from rooflab.documents.kernels import BenchResult
from rooflab.documents.stored import Stored
from rooflab.errors import RooflabError
from rooflab.i18n import msg, tr
from rooflab.interpret.compare import compare_observations
from rooflab.kernels.runner import compare_c_kernels
from rooflab.kernels.user import build_spec, task
from rooflab.session import Session
from rooflab.timing.harness import HarnessConfig, Timing
from rooflab.timing.stats import paired_ratio, unpaired_ratio
from rooflab.userkernel.spec import KernelSpec, load_spec


def is_run_ref(text: str) -> bool:
    return text.isdigit() or text.startswith(("latest", "last"))


def kernel_from(text: str) -> KernelSpec:
    path, _, name = text.partition(":") if ":" in text and not text.endswith(".toml") else (text, "", "")
    specs = load_spec(path)
    if name:
        for s in specs:
            if s.name == name:
                return s
        raise RooflabError(f"{text}: no kernel {name!r} in {path} (it has: {', '.join(s.name for s in specs)})")
    if len(specs) > 1:
        raise RooflabError(f"{text}: {path} has several kernels ({', '.join(s.name for s in specs)}); "
                           f"name one as {path}:NAME")
    return specs[0]


def compare_kernels(session: Session, a: KernelSpec, b: KernelSpec, *, threshold: float, rounds: int,
                    quick: bool) -> dict:
    if set(a.sizes[0]) != set(b.sizes[0]):
        raise RooflabError(f"{a.name} and {b.name} take different size variables ({', '.join(a.sizes[0])} vs "
                           f"{', '.join(b.sizes[0])}): they cannot be run at the same sizes")
    libs = {s.name: build_spec(s) for s in (a, b)}  # a CompileError stops here, with the compiler's message
    cfg = HarnessConfig(min_sample_s=0.005 if quick else max(a.min_sample, b.min_sample), samples=rounds, warmup=1)
    rows = []
    for size in a.sizes:
        label = " ".join(f"{k}={v}" for k, v in size.items())
        session.progress(f"compare at {label}")
        ka = task(a, libs[a.name], size, f"A {a.name} {label}")
        kb = task(b, libs[b.name], size, f"B {b.name} {label}")
        row = {"size": size}
        try:
            res = session.call(f"compare {label}", compare_c_kernels, ka, kb, cfg, rounds,
                               timeout_s=max(a.timeout, b.timeout) * 4)
        except RooflabError as exc:
            row["error"] = str(exc)
            rows.append(row)
            session.record(f"compare {label}", row)
            continue
        ta, tb = Timing.from_dict(res["A"]), Timing.from_dict(res["B"])
        c = paired_ratio(ta.samples, tb.samples, threshold=threshold)
        row.update(a_time_s=ta.summary.median, b_time_s=tb.summary.median, rel_error=res["rel_error"],
                   a_seconds=ta.samples, b_seconds=tb.samples, **c.to_dict())
        session.check_timing(ka.name, ta)
        session.check_timing(kb.name, tb)
        rows.append(row)
        session.record(f"compare {label}", row)
    return {"mode": "kernels", "a": a.to_dict(), "b": b.to_dict(), "rows": rows}


def _diff(x, y, path="") -> list[str]:
    """Fields that differ between two records (machine, environment, compiler, flags)."""
    if isinstance(x, dict) and isinstance(y, dict):
        out = []
        for k in sorted(set(x) | set(y)):
            if k in ("loadavg", "argv", "hostname") and path.endswith("environment"):
                continue
            out += _diff(x.get(k), y.get(k), f"{path}.{k}" if path else k)
        return out
    return [] if x == y else [f"{path}: {x!r} -> {y!r}"]


def stored_runs(store, ra: str, rb: str) -> tuple[dict, dict]:
    """The two stored bench runs to compare, each checked to be one."""
    if store is None:
        raise RooflabError("comparing stored runs needs the store")
    da, db = store.get(ra), store.get(rb)
    for d in (da, db):
        if d["kind"] != "bench" or not d.get("result"):
            raise RooflabError(f"run {d['run_id']} is a {d['kind']} run ({d['status']}); compare takes two finished "
                               "bench runs")
    return da, db


def compare_runs(da: dict, db: dict, *, threshold: float) -> dict:
    a, b = read(Stored, da), read(Stored, db)
    ka, kb = read(BenchResult, a.result).kernels, read(BenchResult, b.result).kernels
    rows = []
    by_name = {k.name: k for k in kb}
    for k in ka:
        other = by_name.get(k.name)
        if other is None:
            continue
        bsizes = {str(r.size): r for r in other.sizes}
        for r in k.sizes:
            o = bsizes.get(str(r.size))
            if not o or not r.seconds or not o.seconds:
                continue
            c = unpaired_ratio(r.seconds, o.seconds, threshold=threshold)
            rows.append({"kernel": k.name, "size": r.size, "a_time_s": r.time_s, "b_time_s": o.time_s,
                         **c.to_dict()})
    if not rows:
        raise RooflabError(f"runs {a.run_id} and {b.run_id} have no kernel and size in common")
    differs = _diff(a.header.get("machine", {}), b.header.get("machine", {}), "machine") + \
        _diff(a.header.get("environment", {}), b.header.get("environment", {}), "environment") + \
        _diff([k.library.flags if k.library else None for k in ka],
              [k.library.flags if k.library else None for k in kb], "flags") + \
        _diff([k.git for k in ka], [k.git for k in kb], "git")
    return {"mode": "runs", "a": {"run_id": a.run_id, "created": a.created},
            "b": {"run_id": b.run_id, "created": b.created}, "rows": rows, "record_differences": differs}


@dataclass(frozen=True)
class Options:
    a: str = option(argument=True, help="A: a kernel (spec.toml[:NAME]) or a stored bench run (an id, latest).")
    b: str = option(argument=True, help="B: the same kind of thing as A.")
    threshold: float = option(0.02, min=0, max=1, help="Smallest relative change called a difference.")
    rounds: int | None = option(None, min=5, max=100000, help="Interleaved rounds (default 30; --quick: 10).")
    quick: bool = quick_option("Fewer rounds: a first look.")
    fail_if_slower: bool = option(False, where="cli", help="Exit with status 1 when B is slower than A at any size (a "
                                                           "performance gate for CI).")
    kernels: tuple | None = internal()  # (spec A, spec B) read from their files
    runs: tuple | None = internal()  # (run A, run B) read from the store


def prepare(opts: Options) -> Options:
    """Every mistake in the two kernels' specs is reported before anything runs."""
    ra, rb = is_run_ref(opts.a), is_run_ref(opts.b)
    if ra and rb:
        return opts
    if ra or rb:
        raise RooflabError("compare two kernels (spec.toml[:NAME]) or two stored runs, not one of each")
    return dataclasses.replace(opts, kernels=(kernel_from(opts.a), kernel_from(opts.b)))


def before(opts: Options, ctx) -> Options:
    if opts.kernels is None:
        return dataclasses.replace(opts, runs=stored_runs(ctx.store, opts.a, opts.b))
    return opts


def run(session: Session, opts: Options) -> dict:
    if opts.runs is not None:
        body = compare_runs(*opts.runs, threshold=opts.threshold)
    else:
        body = compare_kernels(session, *opts.kernels, threshold=opts.threshold,
                               rounds=opts.rounds or (10 if opts.quick else 30), quick=opts.quick)
    return {"threshold": opts.threshold, **body}


def exit_status(doc: dict, opts: Options) -> tuple[int, str] | None:
    slower = [r for r in doc.get("rows", []) if r.get("verdict") == "slower"]
    if not (opts.fail_if_slower and slower):
        return None
    sizes = ", ".join(" ".join(f"{k}={v}" for k, v in r["size"].items()) or r.get("kernel", "") for r in slower)
    return EXIT_SLOWER, f"B is slower than A ({sizes}): failing as --fail-if-slower asks"


def _name(side: dict) -> str:
    return side.get("name", f"run {side.get('run_id')}")


def _where(r: dict, doc: dict) -> str:
    where = " ".join(f"{k}={v}" for k, v in r["size"].items())
    return f"{r['kernel']} {where}" if doc["mode"] == "runs" else where


def _verdict(r: dict, doc: dict) -> str | None:
    return {"faster": tr("faster"), "slower": tr("slower"), "no difference": tr("no difference")}.get(r.get("verdict"))


COMMAND = Command(
    name="compare", order=3, options=Options, run=run,
    summary=msg("did it really get faster? A and B: two kernels (spec.toml[:NAME]) or two stored bench runs (ids)"),
    report=Report(
        interpret=compare_observations,
        headline=lambda d: f"A = {_name(d['a'])} · B = {_name(d['b'])} · " + tr("threshold {th:.0%}",
                                                                                th=d["threshold"]),
        tables=(Table("compare_rows", "B against A (speed-up = time of A / time of B)", rows="rows",
                      error_column="verdict", columns=(
                          Column("size", "size", value=_where),
                          Column("a_time_s", "A", "seconds"),
                          Column("b_time_s", "B", "seconds"),
                          Column("speedup", "speed-up", "x3"),
                          Column("speedup_ci95", "95% CI", csv=False,
                                 value=lambda r, d: "{:.3f}–{:.3f}".format(*r["speedup_ci95"])
                                 if r.get("speedup_ci95") else None),
                          Column("verdict", "verdict", value=_verdict))),)),
    outputs=Outputs(files=()), hooks=Hooks(prepare=prepare, before=before, exit_status=exit_status))

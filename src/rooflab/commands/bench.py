"""`rooflab bench`: the user's kernels at each size, checked, timed, and placed on this machine's roofline."""

from __future__ import annotations

from rooflab.toolchain.compiler import CompileError
from rooflab.errors import RooflabError
from rooflab.i18n import msg
from rooflab.machine.env import git_state
from rooflab.model.roofline import attainable
from rooflab.results.schema import schema_id
from rooflab.session import Session
from rooflab.timing.harness import HarnessConfig
from rooflab.kernels.user import build_spec, task
from rooflab.userkernel.spec import KernelSpec
from rooflab.model.caches import cache_capacities, level_for
from rooflab.model.reference import roofs_at
from rooflab.results.history import measure_history


def config_for(spec: KernelSpec, quick: bool) -> HarnessConfig:
    if quick:
        return HarnessConfig(min_sample_s=min(spec.min_sample, 0.005), samples=5, warmup=1, min_samples=3,
                             budget_s=1.0)
    return HarnessConfig(min_sample_s=spec.min_sample, samples=spec.samples, warmup=1, min_samples=5, budget_s=5.0)


def place(flops: float, nbytes: float, seconds: float, working_set: float, roofs: dict,
          capacities: dict[str, float]) -> dict:
    """Rates, intensity, the roof over the point (the level its working set lives in) and the fraction reached."""
    fl = flops / seconds
    by = nbytes / seconds
    # no bytes: no intensity (the point has no place on the roofline, rather than an infinite one)
    inten = flops / nbytes if nbytes else None
    out = {"flops_per_s": fl, "bytes_per_s": by, "intensity": inten}
    comp = roofs["compute"][0]["value"] if roofs.get("compute") else None
    mem = {m["level"]: m["value"] for m in roofs.get("memory", [])}
    level = level_for(working_set, capacities)
    bw = mem.get(level) or mem.get("DRAM")
    if comp and bw and nbytes and flops:
        roof = attainable(inten, comp, bw)
        out.update(level=level, roof_flops_per_s=roof, of_roof=fl / roof,
                   bound=("memory" if inten * bw < comp else "compute"),
                   bound_by=(msg("{level} bandwidth", level=level) if inten * bw < comp else roofs["compute"][0]["name"]))
    return out


def run(session: Session, specs: list[KernelSpec], *, quick: bool = False,
        measure_doc: dict | list[dict] | None = None) -> dict:
    prec = specs[0].precision
    measure_doc = measure_doc or ensure_measure(session, prec)
    kernels = []
    points = []
    for spec in specs:
        roofs = roofs_at(measure_doc, spec.threads, spec.precision)
        caps = cache_capacities(session.machine, spec.threads)
        entry = {"name": spec.name, "spec": spec.to_dict(), "roofs": roofs, "sizes": [],
                 "git": git_state(spec.source.parent)}  # the user's work tree, to tell two records apart later
        try:
            session.progress(f"bench: compiling {spec.name}")
            lib = build_spec(spec)
            entry["library"] = lib.to_dict()
        except CompileError as exc:
            entry["error"] = str(exc)
            entry["diagnostics"] = [{"file": d.file, "line": d.line, "col": d.col, "kind": d.kind, "text": d.text}
                                    for d in exc.diagnostics]
            kernels.append(entry)
            session.record(spec.name, entry)
            continue
        for size in spec.sizes:
            label = f"{spec.name} " + " ".join(f"{k}={v}" for k, v in size.items())
            out = session.run(task(spec, lib, size, label), config_for(spec, quick), timeout_s=spec.timeout)
            flops, nbytes = spec.work(size)
            row = {"size": size, "label": label, "flops": flops, "bytes": nbytes,
                   "working_set_bytes": spec.array_bytes(size), "rel_error": out.rel_error,
                   "checked": bool(spec.check)}
            if out.output:  # what the kernel printed, kept apart from rooflab's own output
                row["output"] = out.output
            if not out.ok:
                row.update(error=out.error, error_kind=out.error_kind)
            else:
                s = out.timing.summary
                row.update(time_s=s.median, time_ci95=list(s.ci95), ci_level=s.ci_level, samples=s.n, cv=s.cv,
                           seconds=out.timing.samples,
                           **place(flops, nbytes, s.median, row["working_set_bytes"], roofs, caps))
                if flops:
                    row["ci95"] = [flops / s.ci95[1], flops / s.ci95[0]]
                if row.get("of_roof", 0) > 1.02:
                    row["above_roof"] = True
                if row["intensity"] and row["flops_per_s"]:
                    points.append({"label": label, "intensity": row["intensity"], "flops_per_s": row["flops_per_s"],
                                   "above_roof": row.get("above_roof", False)})
            entry["sizes"].append(row)
        kernels.append(entry)
    first = kernels[0]["roofs"] if kernels else roofs_at(measure_doc, 1, prec)
    doc = {"schema": schema_id("bench"), "quick": quick, "kernels": kernels, "points": points,
           "roofs": {"compute": first["compute"], "memory": first["memory"]},
           "roofline_source": first["source"]}
    from rooflab.interpret.bench import bench_observations

    return session.finish(doc, observe=bench_observations)


def select(specs: list[KernelSpec], names: tuple[str, ...]) -> list[KernelSpec]:
    if not names:
        return specs
    known = {s.name: s for s in specs}
    bad = [n for n in names if n not in known]
    if bad:
        raise RooflabError(f"no kernel named {', '.join(bad)} in the spec (it has: {', '.join(known)})")
    return [known[n] for n in names]


def _rel_error(got, ref) -> float:
    import numpy as np

    from rooflab.kernels.tasks import rel_err

    g = np.asarray(got, dtype=np.float64)
    r = np.asarray(ref, dtype=np.float64)
    if g.shape != r.shape:
        raise RooflabError(f"the result has shape {g.shape}, the expected value {r.shape}")
    return rel_err(g, r)


def run_callable(session: Session, fn, *, sizes: list[dict], setup, flops, bytes, expected=None,
                 name: str | None = None, tolerance: float = 1e-5, threads: int = 1, precision: str = "fp64",
                 quick: bool = False) -> dict:
    """A Python callable (e.g. a NumPy expression) at each size: ``setup(**size)`` returns its arguments,
    ``flops``/``bytes`` are numbers, expressions of the sizes, or callables of them; ``expected(*args)`` the
    reference result. It runs in this process (a Python exception is reported for its size, the others go on)."""
    from rooflab.timing.harness import python_overhead, python_timed, run_samples
    from rooflab.userkernel.expr import arith

    name = name or getattr(fn, "__name__", "callable")
    measure_doc = ensure_measure(session, precision)
    roofs = roofs_at(measure_doc, threads, precision)
    caps = cache_capacities(session.machine, threads)
    cfg = HarnessConfig(min_sample_s=0.005 if quick else 0.02, samples=5 if quick else 11, warmup=1, min_samples=3,
                        budget_s=1.0 if quick else 5.0)

    def amount(v, size):
        return float(v(**size) if callable(v) else arith(v, size, f"{name}: flops/bytes"))

    rows, points = [], []
    for size in sizes:
        label = f"{name} " + " ".join(f"{k}={v}" for k, v in size.items())
        session.progress(f"bench: {label}")
        row = {"size": size, "label": label, "checked": expected is not None}
        try:
            args = setup(**size)
            args = args if isinstance(args, tuple) else (args,)
            fl, by = amount(flops, size), amount(bytes, size)
            ws = float(sum(getattr(a, "nbytes", 0) for a in args))
            row.update(flops=fl, bytes=by, working_set_bytes=ws)
            if expected is not None:
                err = _rel_error(fn(*args), expected(*args))
                row["rel_error"] = err
                if err > tolerance:
                    row.update(error=f"wrong result: max relative error {err:.3g} > tolerance {tolerance:.3g}",
                               error_kind="wrong")
                    rows.append(row)
                    session.record(label, row)
                    continue
            t = run_samples(python_timed(lambda args=args: fn(*args)), cfg, overhead_per_rep=python_overhead())
        except Exception as exc:  # the user's code: report it for this size and go on
            row.update(error=f"raised {type(exc).__name__}: {exc}", error_kind="error")
            rows.append(row)
            session.record(label, row)
            continue
        s = t.summary
        row.update(time_s=s.median, time_ci95=list(s.ci95), ci_level=s.ci_level, samples=s.n, cv=s.cv,
                   seconds=t.samples,
                   **place(fl, by, s.median, ws, roofs, caps))
        if row.get("of_roof", 0) > 1.02:
            row["above_roof"] = True
        session.check_timing(label, t)
        if row["intensity"] and row["flops_per_s"]:
            points.append({"label": label, "intensity": row["intensity"], "flops_per_s": row["flops_per_s"],
                           "above_roof": row.get("above_roof", False)})
        rows.append(row)
        session.record(label, row)
    spec = {"name": name, "prototype": f"Python callable {getattr(fn, '__qualname__', name)}", "threads": threads,
            "precision": precision}
    doc = {"schema": schema_id("bench"), "quick": quick,
           "kernels": [{"name": name, "spec": spec, "roofs": roofs, "sizes": rows}], "points": points,
           "roofs": {"compute": roofs["compute"], "memory": roofs["memory"]},
           "roofline_source": roofs["source"]}
    from rooflab.interpret.bench import bench_observations

    return session.finish(doc, observe=bench_observations)


def ensure_measure(session: Session, precision: str) -> list[dict]:
    """This machine's stored measure runs, newest first; a quick one is measured (and stored) when there is none."""
    docs = measure_history(session.store, session.machine.get("key"))
    if docs:
        return docs
    from rooflab.commands.measure import MeasureOptions, run

    session.progress("no stored roofline of this machine: measuring a quick one")
    with Session("measure", store=session.store, machine=session.machine, environment=session.environment,
                 progress=session.progress) as s:
        return [run(MeasureOptions(quick=True, batch_sweep=False, precisions=(precision,)), s)]

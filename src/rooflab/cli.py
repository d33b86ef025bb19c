"""The command line: parse arguments, make one library call, render. No measuring logic lives here."""

from __future__ import annotations

import contextlib
import json
import os
import math
import sys

import click

from rooflab import __version__
from rooflab.errors import RooflabError
from rooflab.i18n import LANGS, set_lang, text, tr, using


def _console(stderr: bool = False):
    import os

    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    # a pipe or file gets wide lines (tables and the ASCII roofline stay unbroken); a terminal its own width
    width = None if stream.isatty() else columns(os.environ.get("COLUMNS"))
    return Console(stderr=stderr, highlight=False, width=width, emoji=False)


def columns(value: str | None, default: int = 140) -> int:
    """$COLUMNS as a width: a number from 40 to 1000; anything else (abc, -5, 1e9) gives the default."""
    try:
        n = int(str(value).strip())
    except (TypeError, ValueError):
        return default
    return n if 40 <= n <= 1000 else default


class FiniteFloat(click.FloatRange):
    """A float option in a range that also refuses nan and inf (a plain FloatRange lets nan through: every
    comparison with it is false)."""

    name = "finite float"

    def convert(self, value, param, ctx):
        v = super().convert(value, param, ctx)
        if not math.isfinite(v):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return v


def _finite_json(doc):
    """The document with every nan and infinity replaced by null (they are not JSON), and the places they were,
    with why, in ``nonfinite``."""
    where: list[dict] = []

    def walk(x, path):
        if isinstance(x, float) and not math.isfinite(x):
            where.append({"path": path or "/", "value": "nan" if x != x else ("inf" if x > 0 else "-inf")})
            return None
        if isinstance(x, dict):
            return {k: walk(v, f"{path}/{k}") for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [walk(v, f"{path}/{i}") for i, v in enumerate(x)]
        return x

    out = walk(doc, "")
    if where and isinstance(out, dict):
        out["nonfinite"] = {"reason": "JSON has no nan or infinity: these values are null here (an infinite "
                                      "intensity has no bytes, a nan comes from an undefined ratio)", "at": where}
    return out


def _emit_json(doc: dict) -> None:
    from rooflab.results.store import to_jsonable

    plain = json.loads(json.dumps(doc, default=to_jsonable, allow_nan=True))
    click.echo(json.dumps(_finite_json(plain), indent=2, allow_nan=False, ensure_ascii=False))


def _store(path):
    from rooflab.results.store import Store

    return Store(path)


@contextlib.contextmanager
def progress_bar(enabled: bool = True):
    """A spinner with the current step on stderr, only when stderr is a terminal; yields a callback."""
    if not enabled or not sys.stderr.isatty():
        yield lambda msg: None
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=_console(stderr=True), transient=True) as p:
        task = p.add_task("starting", total=None)
        yield lambda msg: p.update(task, description=msg)


json_option = click.option("--json", "as_json", is_flag=True, help="Print a machine-readable JSON document.")
html_option = click.option("--html", "html_path", type=click.Path(dir_okay=False), default=None,
                           help="Also write the run as one self-contained HTML page to FILE.")


no_store_option = click.option("--no-store", is_flag=True, help="Do not save the run in the results store.")
csv_option = click.option("--csv", "csv_dir", type=click.Path(file_okay=False), default=None,
                          help="Also write every table of the run as CSV files into DIR.")


def _write_html(kind: str, doc: dict, html_path, as_json: bool, csv_dir=None) -> None:
    if html_path:
        from rooflab.render.html import run_from_doc, write_html

        write_html([run_from_doc(kind, doc)], html_path)
        click.echo(tr("report written to {path}", path=html_path), err=as_json)
    if csv_dir:
        from rooflab.render.html import write_csv

        n = len(write_csv(doc, csv_dir))
        click.echo(tr("{n} table(s) written to {dir}", n=n, dir=csv_dir), err=as_json)
store_option = click.option("--store", "store_path", type=click.Path(dir_okay=False), default=None,
                            help="Results store (SQLite file). Default: $ROOFLAB_HOME/store.sqlite or the user "
                                 "data directory.")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="rooflab")
def cli():
    """rooflab: your machine's cache-aware roofline, your kernels on it, and timing you can trust."""


@cli.command()
@json_option
@click.option("--no-clock", is_flag=True, help="Skip the clock measurement (theoretical peaks then use the nominal MHz).")
def info(as_json, no_clock):
    """Machine, environment and capabilities (compiler, OpenMP, perf counters, valgrind, numactl, BLAS)."""
    from rooflab.api import info as get_info
    from rooflab.render.text import render_info

    with progress_bar(not as_json) as prog:
        prog("measuring the core clock")
        doc = get_info(clock=not no_clock)
    if as_json:
        _emit_json(doc)
    else:
        render_info(doc, _console())


@cli.command()
@json_option
@store_option
@click.option("--kind", default=None, help="Only runs of this kind (measure, lab.ladder, bench, ...).")
@click.option("--machine", default=None, help="Only runs whose host or machine key contains this text.")
@click.option("--since", default=None, help="Only runs created on or after this date (YYYY-MM-DD).")
@click.option("--until", default=None, help="Only runs created on or before this date (YYYY-MM-DD).")
@click.option("--limit", default=50, show_default=True, type=click.IntRange(1))
def history(as_json, store_path, kind, machine, since, until, limit):
    """List stored runs, newest first."""
    from rooflab.render.text import render_history
    from rooflab.results.schema import schema_id

    with _store(store_path) as st:
        runs = st.runs(kind=kind, machine=machine, since=since, until=until + "T99" if until else None, limit=limit)
        doc = {"schema": schema_id("history"), "store": str(st.path), "runs": runs}
    if as_json:
        _emit_json(doc)
    else:
        render_history(doc, _console())


@cli.command()
@json_option
@store_option
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), default=None,
              help="Also draw the runs' rooflines (overlaid when several) to FILE (.png, .svg or .pdf).")
@click.option("--csv", "csv_dir", type=click.Path(file_okay=False), default=None,
              help="Also write every table of the runs as CSV files into DIR.")
@click.argument("runs", nargs=-1, required=True)
def show(as_json, store_path, plot_path, csv_dir, runs):
    """Draw stored runs again, without measuring anything (RUN: an id from `rooflab history`, 'latest', or a run
    saved to a .json file when the store could not be written)."""
    from rooflab.render import labs as _lab_renderers  # noqa: F401  (registers the renderers)
    from rooflab.render import gpu as _gpu_renderer  # noqa: F401
    from rooflab.render import measure as _measure_renderer  # noqa: F401
    from rooflab.render.text import render_run

    from rooflab.results.store import read_run_file

    if all(r.endswith(".json") and os.path.isfile(r) for r in runs):  # runs saved beside an unwritable store
        docs = [read_run_file(r) for r in runs]
    else:
        with _store(store_path) as st:
            docs = [read_run_file(r) if r.endswith(".json") and os.path.isfile(r) else st.get(r) for r in runs]
    if plot_path:
        from rooflab.render.plot import plot_roofline

        drawn = [d for d in docs if d.get("result")]
        if not drawn:
            raise RooflabError(f"run {docs[0]['run_id']} has no finished result to draw")
        if len(drawn) == 1:
            plot_roofline(drawn[0]["result"], plot_path)
        else:
            plot_roofline([(f"run {d['run_id']}", d["result"]) for d in drawn], plot_path)
        click.echo(tr("roofline written to {path}", path=plot_path), err=True)
    if csv_dir:
        from rooflab.render.html import write_csv

        n = sum(len(write_csv(d["result"], csv_dir, prefix=f"run{d['run_id']}_")) for d in docs if d.get("result"))
        click.echo(tr("{n} table(s) written to {dir}", n=n, dir=csv_dir), err=True)
    if as_json:
        from rooflab.results.schema import schema_id

        _emit_json(docs[0] if len(docs) == 1 else {"schema": schema_id("runs"), "runs": docs})
        return
    con = _console()
    for d in docs:
        render_run(d, con)
    _render_comparison(docs, con)


@cli.command()
@json_option
@store_option
@click.option("--quick", is_flag=True, help="A first look in about 15 s: fewer samples, smaller sizes.")
@click.option("--threads", type=click.IntRange(1), default=None,
              help="Thread count for the 'all threads' ceilings (default: every CPU this process may use).")
@click.option("--precision", type=click.Choice(["fp32", "fp64", "both"]), default="both", show_default=True)
@click.option("--no-batch-sweep", is_flag=True, help="Skip the X[B,D]·W[D,F] sweep.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), default=None,
              help="Also write the roofline to FILE (.png, .svg or .pdf; needs matplotlib).")
@no_store_option
@click.option("--mpi", "use_mpi", is_flag=True, help="Run as one rank of an MPI job (mpirun -n N rooflab measure "
                                                    "--mpi): ranks measure together, rank 0 aggregates and stores.")
@html_option
@csv_option
@click.option("--device", type=click.Choice(["cpu", "cuda"]), default="cpu", show_default=True,
              help="What to measure: this machine's CPUs, or its NVIDIA GPU (needs CuPy: pip install 'rooflab[gpu]').")
@click.option("--gpu", "gpu_index", type=click.IntRange(0), default=0, show_default=True,
              help="Which CUDA device, with --device cuda.")
@click.option("--wait-quiet", "wait_quiet", type=FiniteFloat(0, 3600), default=0.0, show_default=True,
              metavar="SECONDS", help="When other processes disturb a ceiling, wait up to SECONDS in all for them to "
                                      "stop before measuring it again (0: mark it disturbed at once).")
def measure(as_json, store_path, quick, threads, precision, no_batch_sweep, plot_path, no_store, use_mpi, html_path,
            csv_dir, device, gpu_index, wait_quiet):
    """Measure this machine's cache-aware roofline: compute and bandwidth ceilings, the batch sweep, the plot."""
    from rooflab.commands.measure import MeasureOptions, run
    from rooflab.render.measure import render_measure

    precs = ("fp64", "fp32") if precision == "both" else (precision,)
    opts = MeasureOptions(quick=quick, threads=threads, precisions=precs, batch_sweep=not no_batch_sweep,
                          wait_quiet_s=wait_quiet)
    if plot_path:
        from rooflab.render.plot import check_plot_path

        check_plot_path(plot_path)
    if device == "cuda":
        if use_mpi or threads or precision != "both":
            raise RooflabError("--device cuda measures the whole GPU in every precision it has: --threads, "
                               "--precision and --mpi apply to the CPU")
        _measure_gpu(quick, not no_batch_sweep, gpu_index, as_json, store_path, no_store, plot_path, html_path,
                     csv_dir)
        return
    if use_mpi:
        from rooflab.mpi.jobs import measure_job

        doc = _mpi_job(lambda store, prog: measure_job(opts, store, prog), as_json, store_path, no_store)
        if doc is None:
            return
    else:
        _refuse_under_launcher("measure")
        doc = _in_session("measure", lambda s: run(opts, s), as_json, store_path, no_store)
    _show_measure("measure", doc, render_measure, as_json, plot_path, html_path, csv_dir)


def _show_measure(kind: str, doc: dict, render, as_json: bool, plot_path, html_path, csv_dir) -> None:
    """A finished roofline (CPU or GPU): the JSON or the report, then the plot, HTML page and CSV asked for."""
    if as_json:
        _emit_json(doc)
    else:
        render(doc, _console())
    if plot_path:
        from rooflab.render.plot import plot_roofline

        plot_roofline(doc, plot_path)
        click.echo(tr("roofline written to {path}", path=plot_path), err=as_json)
    _write_html(kind, doc, html_path, as_json, csv_dir)


def _measure_gpu(quick, batch_sweep, index, as_json, store_path, no_store, plot_path, html_path, csv_dir) -> None:
    from rooflab.gpu.backend import select_backend
    from rooflab.commands.measure_gpu import GpuOptions, run
    from rooflab.render.gpu import render_gpu

    backend = select_backend("cuda", index)  # no CuPy, driver or device: said before a run is opened in the store
    _refuse_under_launcher("measure")
    doc = _in_session("measure.gpu", lambda s: run(GpuOptions(quick=quick, batch_sweep=batch_sweep, index=index), s,
                                                   backend), as_json, store_path, no_store)
    _show_measure("measure.gpu", doc, render_gpu, as_json, plot_path, html_path, csv_dir)


@cli.group(invoke_without_command=True)
@json_option
@click.pass_context
def lab(ctx, as_json):
    """The labs that show why: `rooflab lab` lists them, `rooflab lab NAME` runs one."""
    if ctx.invoked_subcommand is not None:
        return
    from rooflab.labs import LABS

    if as_json:
        from rooflab.results.schema import schema_id

        _emit_json({"schema": schema_id("labs"), "labs": [{"name": k, "description": d["text"]} for k, (_, d) in LABS.items()]})
        return
    for name, (_, desc) in LABS.items():
        click.echo(f"  {name:<12} {text(desc)}")


def _refuse_under_launcher(command: str) -> None:
    """Under mpirun without --mpi, N copies would fight over the same cores and the same store: say so."""
    import os

    from rooflab.mpi.session import launched_ranks

    n = launched_ranks()
    if n:
        rank = os.environ.get("OMPI_COMM_WORLD_RANK") or os.environ.get("PMI_RANK") or os.environ.get("PMIX_RANK")
        msg = (f"this process is one of {n} MPI ranks: run `mpirun -n {n} rooflab {command} --mpi` to measure with "
               f"all of them together, or run rooflab without a launcher")
        raise RooflabError(msg if rank in (None, "0") else "")


def _mpi_job(job, as_json: bool, store_path, no_store: bool) -> dict | None:
    """Run an MPI job; rank 0 gets the document (and stores it), the other ranks None."""
    store = None
    try:
        from rooflab.mpi.session import world

        rank = world().Get_rank()
        store = None if (no_store or rank != 0) else _store(store_path)
        with progress_bar(not as_json and rank == 0) as prog:
            return job(store, prog)
    finally:
        if store is not None:
            store.close()


def _in_session(kind: str, fn, as_json: bool, store_path, no_store: bool, worker_env=None) -> dict:
    """Run ``fn(session)`` in a measuring session with a progress spinner, storing the run unless told not to."""
    from rooflab.session import Session

    store = None if no_store else _store(store_path)
    try:
        with progress_bar(not as_json) as prog:
            with Session(kind, store=store, progress=prog, worker_env=worker_env) as s:
                return fn(s)
    finally:
        if store is not None:
            store.close()


def _run_lab(kind: str, fn, as_json: bool, store_path, no_store: bool, worker_env=None, **kw) -> dict:
    from rooflab.render import labs as _lab_renderers  # noqa: F401  (registers the renderers)
    from rooflab.render.text import RENDERERS

    doc = _in_session(kind, lambda s: fn(s, **kw), as_json, store_path, no_store, worker_env)
    if as_json:
        _emit_json(doc)
    else:
        RENDERERS[kind](doc, _console())
    return doc


lab_options = [
    json_option, store_option, html_option, csv_option,
    click.option("--quick", is_flag=True, help="Fewer variants and samples: a first look."),
    no_store_option,
]


def _with(options):
    def deco(f):
        for o in reversed(options):
            f = o(f)
        return f
    return deco


def _n_option(default: str):
    return click.option("--n", "n", type=click.IntRange(1), default=None, help=f"Matrix size ({default}).")


def _threads_option(minimum: int = 1, what: str = "Threads (default: all the CPUs this process may use)."):
    return click.option("--threads", type=click.IntRange(minimum), default=None, help=what)


# each lab's own options, beyond --quick, --json, --store and --no-store; their names are the lab's run() keywords
LAB_OPTIONS = {
    "fma": [click.option("--precision", type=click.Choice(["fp32", "fp64"]), default="fp32", show_default=True)],
    "ladder": [_n_option("default 1024; --quick: 512"), _threads_option(what="Threads of the multi-threaded rungs.")],
    "tiles": [_n_option("default 768; --quick: 384")],
    "loops": [_n_option("default 512; --quick: 256")],
    "blocking": [],
    "vectorize": [_n_option("default 512; --quick: 256"), _threads_option()],
    "threads": [_threads_option(what="Up to this many threads (default: all).")],
    "imbalance": [_threads_option(2)],
    "numa": [],
}


def _lab_command(name: str, module: str, description: str):
    def command(as_json, store_path, html_path, csv_dir, quick, no_store, **options):
        import importlib

        mod = importlib.import_module(module)
        doc = _run_lab(f"lab.{name}", mod.run, as_json, store_path, no_store,
                       worker_env=getattr(mod, "WORKER_ENV", None), quick=quick, **options)
        _write_html(f"lab.{name}", doc, html_path, as_json, csv_dir)

    command.__doc__ = description["text"][0].upper() + description["text"][1:] + "."
    return lab.command(name)(_with(lab_options + LAB_OPTIONS.get(name, []))(command))


def _register_labs() -> None:
    from rooflab.labs import LABS

    for name, (module, description) in LABS.items():
        _lab_command(name, module, description)


_register_labs()


@cli.command()
@json_option
@store_option
@click.argument("spec", type=click.Path(dir_okay=False))
@click.option("--kernel", "kernels", multiple=True, help="Only this kernel of the spec (repeatable).")
@click.option("--quick", is_flag=True, help="Fewer samples: a first look.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), default=None,
              help="Also draw the kernels on the roofline to FILE (.png, .svg or .pdf).")
@no_store_option
@click.option("--mpi", "use_mpi", is_flag=True, help="Run as one rank of an MPI job: every rank runs the kernels on "
                                                    "its own data at the same moment; rank 0 aggregates and stores.")
@html_option
@csv_option
def bench(as_json, store_path, spec, kernels, quick, plot_path, no_store, use_mpi, html_path, csv_dir):
    """Your kernels from a spec file (TOML): checked, timed, and placed on this machine's roofline."""
    from rooflab.commands import bench as bench_lab
    from rooflab.userkernel.spec import load_spec

    specs = bench_lab.select(load_spec(spec), kernels)  # every mistake in the spec is reported before running
    if plot_path:
        from rooflab.render.plot import check_plot_path

        check_plot_path(plot_path)
    if use_mpi:
        from rooflab.mpi.jobs import bench_job
        from rooflab.render import labs as _lab_renderers  # noqa: F401
        from rooflab.render.text import RENDERERS

        doc = _mpi_job(lambda store, prog: bench_job(specs, quick, store, prog), as_json, store_path, no_store)
        if doc is None:
            return
        if as_json:
            _emit_json(doc)
        else:
            RENDERERS["bench"](doc, _console())
    else:
        _refuse_under_launcher("bench")
        doc = _run_lab("bench", lambda s: bench_lab.run(s, specs, quick=quick), as_json, store_path, no_store)
    if plot_path:
        from rooflab.render.plot import plot_roofline

        plot_roofline(doc, plot_path, title=tr("Your kernels on this machine"))
        click.echo(tr("roofline written to {path}", path=plot_path), err=as_json)
    _write_html("bench", doc, html_path, as_json, csv_dir)
    rows = [r for k in doc.get("kernels", []) for r in (k.get("sizes") or [{"error": k.get("error")}])]
    if rows and all(r.get("error") for r in rows):
        click.echo("rooflab: no kernel of the spec could be measured (every one failed to build, crashed, hung or "
                   "was wrong); see above", err=True)
        raise click.exceptions.Exit(EXIT_NOTHING_MEASURED)


@cli.command()
@json_option
@store_option
@click.argument("a")
@click.argument("b")
@click.option("--threshold", type=FiniteFloat(0, 1), default=0.02, show_default=True,
              help="Smallest relative change called a difference.")
@click.option("--rounds", type=click.IntRange(5, 100000), default=None,
              help="Interleaved rounds (default 30; --quick: 10).")
@click.option("--quick", is_flag=True, help="Fewer rounds: a first look.")
@click.option("--fail-if-slower", is_flag=True, help="Exit with status 1 when B is slower than A at any size (a "
                                                     "performance gate for CI).")
@no_store_option
def compare(as_json, store_path, a, b, threshold, rounds, quick, fail_if_slower, no_store):
    """Did it really get faster? A and B: two kernels (spec.toml[:NAME]) or two stored bench runs (ids)."""
    from rooflab.commands import compare as cmp

    doc = _run_lab("compare", lambda s: cmp.run(s, a, b, threshold=threshold, rounds=rounds, quick=quick), as_json,
                   store_path, no_store and not (cmp.is_run_ref(a) and cmp.is_run_ref(b)))
    slower = [r for r in doc.get("rows", []) if r.get("verdict") == "slower"]
    if fail_if_slower and slower:
        sizes = ", ".join(" ".join(f"{k}={v}" for k, v in r["size"].items()) or r.get("kernel", "") for r in slower)
        click.echo(f"rooflab: B is slower than A ({sizes}): failing as --fail-if-slower asks", err=True)
        raise click.exceptions.Exit(EXIT_SLOWER)


@cli.command()
@store_option
@click.argument("runs", nargs=-1, required=True)
@click.option("--html", "html_path", type=click.Path(dir_okay=False), required=True,
              help="Write one self-contained page (opens offline) to FILE.")
def report(store_path, runs, html_path):
    """A report of stored runs: an interactive roofline, the tables, observations, warnings and the full record."""
    from rooflab.render.html import write_html

    with _store(store_path) as st:
        docs = [st.get(r) for r in runs]
    write_html(docs, html_path)
    click.echo(tr("report written to {path}", path=html_path))


def _size_option(values: tuple[str, ...]) -> dict | None:
    out = {}
    for v in values:
        name, eq, num = v.partition("=")
        try:
            val = int(num) if num.strip().lstrip("-").isdigit() else float(num)
        except ValueError:
            raise RooflabError(f"--size {v!r}: write NAME=NUMBER, e.g. --size n=4096") from None
        if not eq or not name.strip():
            raise RooflabError(f"--size {v!r}: write NAME=NUMBER, e.g. --size n=4096")
        if not math.isfinite(val) or val < 0 or val > 1e15:
            raise RooflabError(f"--size {v!r}: {num.strip()} is not a size (a finite number from 0 to 1e15)")
        out[name.strip()] = val
    return out or None


@cli.command()
@json_option
@store_option
@click.argument("spec")
@click.option("--kernel", default=None, help="The kernel of the spec to profile (needed when it has several).")
@click.option("--size", "sizes", multiple=True, help="NAME=NUMBER for each size variable (default: the spec's "
                                                      "smallest size).")
@click.option("--calls", type=click.IntRange(1), default=3, show_default=True, help="Calls of the kernel.")
@click.option("--cachegrind", "force_cachegrind", is_flag=True, help="Use cachegrind even where perf counts.")
@no_store_option
def profile(as_json, store_path, spec, kernel, sizes, calls, force_cachegrind, no_store):
    """Why: hardware counters (perf) where the machine exposes them, simulated caches (cachegrind) otherwise.

    SPEC is a kernel spec file, or lab:NAME for one of the labs' own kernels (lab:gemm_ikj, lab:loop_kji,
    lab:stream_triad, ...)."""
    from rooflab.commands import bench as bench_lab
    from rooflab.commands import profile as prof
    from rooflab.userkernel.spec import load_spec

    if spec.startswith("lab:"):
        from rooflab.kernels.labkernels import spec_for
        from rooflab.machine import describe

        specs = [spec_for(spec[4:], describe(clock=False))]
    else:
        specs = bench_lab.select(load_spec(spec), (kernel,) if kernel else ())
    if len(specs) > 1:
        raise RooflabError(f"{spec} has several kernels ({', '.join(s.name for s in specs)}): choose one with --kernel")
    size = _size_option(sizes)
    _run_lab("profile", lambda s: prof.run(s, specs[0], size=size, calls=calls, force_cachegrind=force_cachegrind),
             as_json, store_path, no_store)


def _render_comparison(docs: list[dict], con) -> None:
    """Several runs with ceilings (two machines, two dates): their ceilings in one table with ratios."""
    from rooflab.render.html import ceiling_comparison, column_label
    from rooflab.render.text import table

    cmp = ceiling_comparison(docs)
    if not cmp:
        return
    cols, rows = cmp
    nruns = len(cols) - 2 - (len(cols) - 2) // 2

    def cell(i, v):
        if v is None:
            return "—"
        if i >= 2 + nruns:
            return f"{v:.2f}x"
        return f"{v / 1e9:.3g} G" if isinstance(v, float) else str(v)

    con.print(table(tr("Ceilings side by side (FLOP/s or bytes/s)"), [column_label(c) for c in cols],
                    [[cell(i, v) for i, v in enumerate(r)] for r in rows]))


def _set_lang(ctx, param, value):
    if value:
        set_lang(value)
    return value


def _add_lang_option(cmd: click.Command) -> None:
    """``--lang en|zh`` on the group and on every command (``rooflab measure --lang zh`` and ``rooflab --lang zh
    measure`` both work)."""
    cmd.params.append(click.Option(["--lang"], type=click.Choice(LANGS), default=None, expose_value=False,
                                   is_eager=True, callback=_set_lang,
                                   help="Language of the output: en or zh (default: from the locale, LC_ALL / "
                                        "LC_MESSAGES / LANG)."))
    for sub in getattr(cmd, "commands", {}).values():
        _add_lang_option(sub)


_add_lang_option(cli)


# exit statuses beyond 0 (done) and 2 (a user error, with one line saying what)
EXIT_SLOWER = 1  # compare --fail-if-slower: B was slower than A
EXIT_NOTHING_MEASURED = 3  # bench: every kernel failed to build, crashed, hung or was wrong


def _stdout_usable() -> bool:
    """False when standard output is closed (no stream, or a descriptor that is not open); a stream without a
    descriptor of its own (a notebook's, a test's capture) is usable."""
    import io

    if sys.stdout is None:
        return False
    try:
        fd = sys.stdout.fileno()
    except (io.UnsupportedOperation, AttributeError):
        return True
    except (OSError, ValueError):
        return False
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def main(argv=None) -> int:
    from rooflab.session import Interrupted

    if not _stdout_usable():
        # `rooflab measure >&-`: nothing could be printed, and a run that cannot show its result is not started
        try:
            sys.stderr.write("rooflab: error: standard output is closed; give it a file or a pipe (or /dev/null)\n")
        except (OSError, ValueError, AttributeError):
            pass
        return 2
    try:
        with using(None):  # --lang sets the language for this command only
            rc = cli.main(args=argv, prog_name="rooflab", standalone_mode=False)
        sys.stdout.flush()  # here, where a reader that went away is caught, not at exit
        if isinstance(rc, int) and rc:  # a command's own exit status (click returns it without standalone mode)
            return rc
    except Interrupted as exc:
        click.echo(f"rooflab: {exc}", err=True)
        return 143
    except RooflabError as exc:
        if str(exc):  # an empty message: another MPI rank already said it
            click.echo(f"rooflab: error: {exc}", err=True)
        return 2
    except click.exceptions.UsageError as exc:
        click.echo(f"rooflab: error: {exc.format_message()}", err=True)
        if exc.ctx is not None:
            click.echo(f"  see `{exc.ctx.command_path} --help`", err=True)
        return 2
    except click.exceptions.Abort as exc:
        if isinstance(exc.__cause__, Interrupted):  # SIGTERM (click turns every KeyboardInterrupt into Abort)
            click.echo(f"rooflab: {exc.__cause__}", err=True)
            return 143
        click.echo("rooflab: interrupted; finished measurements are stored", err=True)
        return 130
    except KeyboardInterrupt:
        click.echo("rooflab: interrupted; finished measurements are stored", err=True)
        return 130
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.ClickException as exc:
        exc.show()
        return 2
    except BrokenPipeError:
        # the reader went away (`rooflab history | head -1`): stop quietly, as command-line tools do
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 141
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

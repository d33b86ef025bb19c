"""The command line, generated from the registry of commands and labs: each command parses its options, makes one
call to the same function the Python API uses (:func:`rooflab.api.call`) and renders what it returns. No measuring
logic lives here."""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import sys
import time
import traceback

import click
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from rooflab import __version__, api, registry
from rooflab.contract import MISSING, option_fields
from rooflab.errors import RooflabError
from rooflab.paths import default_store_path
from rooflab.i18n import LANGS, set_lang, text, using
from rooflab.render.report import render
from rooflab.render.text import no_surrogates, safe_console, visible
from rooflab.results.store import Store, to_jsonable
from rooflab.session import Interrupted


def _console(stderr: bool = False):
    stream = sys.stderr if stderr else sys.stdout
    # a pipe or file gets wide lines (tables and the ASCII roofline stay unbroken); a terminal its own width
    width = None if stream.isatty() else columns(os.environ.get("COLUMNS"))
    return safe_console(stderr=stderr, highlight=False, width=width, emoji=False)


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
            return {no_surrogates(str(k)): walk(v, f"{path}/{k}") for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [walk(v, f"{path}/{i}") for i, v in enumerate(x)]
        if isinstance(x, str):  # a file name that is not UTF-8: its bytes as \xNN, so that the JSON can be written
            return no_surrogates(x)
        return x

    out = walk(doc, "")
    if where and isinstance(out, dict):
        out["nonfinite"] = {"reason": "JSON has no nan or infinity: these values are null here (an infinite "
                                      "intensity has no bytes, a nan comes from an undefined ratio)", "at": where}
    return out


def _emit_json(doc: dict) -> None:
    plain = json.loads(json.dumps(doc, default=to_jsonable, allow_nan=True))
    click.echo(json.dumps(_finite_json(plain), indent=2, allow_nan=False, ensure_ascii=False))


def _store(path):
    return Store(path)


@contextlib.contextmanager
def progress_bar(enabled: bool = True):
    """A spinner with the current step on stderr, only when stderr is a terminal; yields a callback."""
    if not enabled or not sys.stderr.isatty():
        yield lambda msg: None
        return

    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=_console(stderr=True), transient=True) as p:
        task = p.add_task("starting", total=None)
        yield lambda msg: p.update(task, description=msg)


# ------------------------------------------------------------------------------------------ generated commands


def _param(f) -> click.Parameter:
    """The click parameter of one field of a command's options (see :class:`rooflab.contract.Opt`)."""
    o, base = f.opt, f.base
    if o.path:
        ptype = click.Path(dir_okay=o.path == "dir", file_okay=o.path == "file")
    elif o.choices is not None:
        ptype = click.Choice([str(c) for c in o.choices])
    elif base is int:
        ptype = click.IntRange(None if o.min is None else int(o.min), None if o.max is None else int(o.max))
    elif base is float:
        ptype = FiniteFloat(o.min, o.max)
    else:
        ptype = click.STRING
    if o.argument:
        required = o.required or (f.default is MISSING)
        return click.Argument([f.name], nargs=-1 if o.many else 1, required=required, type=ptype)
    if base is bool:
        if f.default is True:
            return click.Option([f.cli_flag, f.name], is_flag=True, flag_value=False, default=True,
                                help=o.negate_help or o.help)
        return click.Option([f.cli_flag, f.name], is_flag=True, default=False, help=o.help)
    show = f.default not in (None, (), MISSING, False)
    return click.Option([f.cli_flag, f.name], type=ptype, multiple=o.many, default=None if f.default is MISSING
                        else f.default, required=f.default is MISSING, show_default=show, metavar=o.metavar,
                        help=o.help)


def _help(cmd) -> str:
    summary = text(cmd.summary, "en")
    lines = [summary[:1].upper() + summary[1:] + "."]
    for f in option_fields(cmd.options, ("both", "cli")):
        if f.opt.argument and f.opt.help:
            lines += ["", f"{f.name.upper()}: {f.opt.help}"]
    return "\n".join(lines)


def command_of(cmd) -> click.Command:
    """The click command of a registered command or lab: its options, then --json, the store options and the
    files it can write; it calls :func:`rooflab.api.call` and renders what comes back."""
    params = [_param(f) for f in option_fields(cmd.options, ("both", "cli"))]
    params.append(click.Option(["--json", "as_json"], is_flag=True, help="Print a machine-readable JSON document."))
    if cmd.needs != "none":
        params.append(click.Option(["--store", "store_path"], type=click.Path(dir_okay=False), default=None,
                                   help="Results store (SQLite file). Default: $ROOFLAB_HOME/store.sqlite or the user "
                                        "data directory."))
    if cmd.needs == "session" and cmd.outputs.stored:
        params.append(click.Option(["--no-store"], is_flag=True, help="Do not save the run in the results store."))
    files = {"html": ("--html", click.Path(dir_okay=False), "Also write the run as one self-contained HTML page to "
                                                           "FILE."),
             "csv": ("--csv", click.Path(file_okay=False), "Also write every table of the run as CSV files into DIR."),
             "plot": ("--plot", click.Path(dir_okay=False), "Also draw the roofline to FILE (.png, .svg or .pdf; "
                                                           "needs matplotlib).")}
    for what in cmd.outputs.files:
        flag, ptype, helptext = files[what]
        params.append(click.Option([flag, f"{what}_path"], type=ptype, default=None,
                                   required=what in cmd.outputs.required,
                                   help=helptext))

    def callback(as_json=False, store_path=None, no_store=False, html_path=None, csv_path=None, plot_path=None,
                 **values):
        with progress_bar(not as_json) as prog:
            doc = api.call(cmd, values, store=store_path, save=not no_store, progress=prog, html=html_path,
                           csv=csv_path, plot=plot_path, cli=True)
        if doc is None:  # an MPI rank other than 0: rank 0 reports the job
            return None
        if as_json:
            _emit_json(doc)
        elif cmd.report.shows:
            render(doc, _console())
        for line in getattr(doc, "written", []):
            click.echo(visible(str(line)), err=as_json or not cmd.report.shows)
        ran = getattr(doc, "command", cmd)  # the command that ran: another when this one routed its options there
        status = ran.hooks.exit_status(doc, doc.options) if ran.hooks.exit_status is not None else None
        if status:
            code, message = status
            click.echo(visible(f"rooflab: {message}"), err=True)
            raise click.exceptions.Exit(code)
        return None

    params.append(_lang_option())
    return click.Command(cmd.name, params=params, callback=callback, help=_help(cmd),
                         short_help=_help(cmd).split("\n")[0],
                         context_settings={"help_option_names": ["-h", "--help"]})


class _Registered(click.Group):
    """A group whose commands come from the registry, each made when it is asked for: `rooflab bench` imports the
    bench command alone, and only a listing (`rooflab --help`) imports them all."""

    def __init__(self, *args, registered: str = "command", **kwargs):
        super().__init__(*args, **kwargs)
        self.registered = registered

    def _declared(self) -> dict:
        found = registry.labs() if self.registered == "lab" else registry.commands()
        return {n: c for n, c in found.items() if c.cli}

    def list_commands(self, ctx):
        return sorted({*self.commands, *self._declared()})

    def get_command(self, ctx, name):
        if name in self.commands:
            return self.commands[name]

        try:
            c = registry.lab(name) if self.registered == "lab" else registry.command(name)
        except RooflabError:
            return None
        if not c.cli:
            return None
        made = command_of(c)
        self.add_command(made)
        return made


@click.group(cls=_Registered, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="rooflab")
def cli():
    """rooflab: your machine's cache-aware roofline, your kernels on it, and timing you can trust."""


@cli.group(cls=_Registered, registered="lab", invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable JSON document.")
@click.pass_context
def lab(ctx, as_json):
    """The labs that show why: `rooflab lab` lists them, `rooflab lab NAME` runs one."""
    if ctx.invoked_subcommand is not None:
        return

    if as_json:
        _emit_json(api.list_labs())
        return
    for name, c in registry.labs().items():
        click.echo(f"  {name:<12} {text(c.summary)}")


_STREAMS = {"chinese": True}  # whether standard output can show Chinese (see _safe_streams)


def _safe_streams() -> None:
    """Standard output and error that never fail on a character: a stream whose encoding cannot write what rooflab
    prints (`PYTHONIOENCODING=ascii`, a Latin-1 terminal) writes such characters as escapes, and Chinese is asked for
    only where it can be shown."""
    for stream in (sys.stdout, sys.stderr):
        enc = getattr(stream, "encoding", None)  # None: a text buffer (StringIO) that takes any character
        try:
            "µ–·".encode(enc or "utf-8")
        except (UnicodeEncodeError, LookupError):
            try:
                stream.reconfigure(errors="backslashreplace")
            except (AttributeError, ValueError, OSError):
                pass
    try:
        "中文".encode(getattr(sys.stdout, "encoding", None) or "utf-8")
        _STREAMS["chinese"] = True
    except (UnicodeEncodeError, LookupError):
        _STREAMS["chinese"] = False


def _set_lang(ctx, param, value):
    if value == "zh" and not _STREAMS["chinese"]:
        click.echo(f"rooflab: standard output ({getattr(sys.stdout, 'encoding', '?')}) cannot show Chinese; writing "
                   "in English (use a UTF-8 locale or PYTHONIOENCODING=utf-8 for --lang zh)", err=True)
        value = "en"
    if value:
        set_lang(value)
    return value


def _lang_option() -> click.Option:
    return click.Option(["--lang"], type=click.Choice(LANGS), default=None, expose_value=False, is_eager=True,
                        callback=_set_lang, help="Language of the output: en or zh (default: from the locale, LC_ALL "
                                                 "/ LC_MESSAGES / LANG).")


def _add_lang_option(cmd: click.Command) -> None:
    """``--lang en|zh`` on the group and on every command (``rooflab measure --lang zh`` and ``rooflab --lang zh
    measure`` both work); the generated commands have it already."""
    if not any(p.name == "lang" for p in cmd.params):
        cmd.params.append(_lang_option())
    for sub in getattr(cmd, "commands", {}).values():
        _add_lang_option(sub)


_add_lang_option(cli)


def _stdout_usable() -> bool:
    """False when standard output is closed (no stream, or a descriptor that is not open); a stream without a
    descriptor of its own (a notebook's, a test's capture) is usable."""
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
    if not _stdout_usable():
        # `rooflab measure >&-`: nothing could be printed, and a run that cannot show its result is not started
        try:
            sys.stderr.write("rooflab: error: standard output is closed; give it a file or a pipe (or /dev/null)\n")
        except (OSError, ValueError, AttributeError):
            pass
        return 2
    _safe_streams()
    try:
        with using(None if _STREAMS["chinese"] else "en"):  # --lang sets the language for this command only
            rc = cli.main(args=argv, prog_name="rooflab", standalone_mode=False)
        sys.stdout.flush()  # here, where a reader that went away is caught, not at exit
        if isinstance(rc, int) and rc:  # a command's own exit status (click returns it without standalone mode)
            return rc
    except Interrupted as exc:
        click.echo(f"rooflab: {exc}", err=True)
        return 143
    except RooflabError as exc:
        if str(exc):  # an empty message: another MPI rank already said it
            click.echo(visible(f"rooflab: error: {exc}"), err=True)
        return 2
    except click.exceptions.UsageError as exc:
        click.echo(visible(f"rooflab: error: {exc.format_message()}"), err=True)
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
    except Exception as exc:  # noqa: BLE001 - a bug of rooflab's own: one line here, the traceback in a file
        if os.environ.get("ROOFLAB_DEBUG"):
            raise
        where = _crash_report(exc)
        click.echo(visible(f"rooflab: internal error ({type(exc).__name__}: {exc}). This is a fault in rooflab, not "
                           "in what you gave it; what was measured is stored" +
                           (f"; the details are in {where}" if where else "")), err=True)
        return 70
    return 0


def _crash_report(exc: BaseException) -> str | None:
    """The traceback of an internal error, written to a file in rooflab's home (None when it cannot be)."""
    try:
        d = default_store_path().parent / "crashes"
        d.mkdir(parents=True, exist_ok=True)
        path = d / f"crash-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.txt"
        path.write_text(visible("rooflab " + __version__ + " " + " ".join(sys.argv) + "\n" +
                                "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))),
                        encoding="utf-8")
        return str(path)
    except Exception:  # noqa: BLE001 - nowhere to write it: the one line says what happened
        return None


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

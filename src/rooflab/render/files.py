"""The files a run can also be written to, for the commands that declare them (``outputs``): one self-contained
HTML page, every table as CSV, the roofline drawn (PNG, SVG, PDF). A document of stored runs (``show``,
``report``) writes each of its runs."""

from __future__ import annotations

from pathlib import Path

from rooflab.contract import Command
from rooflab.errors import NothingToDraw, RooflabError
from rooflab.i18n import tr
from rooflab.render.csvfiles import write_csv
from rooflab.render.html import run_from_doc, write_html
from rooflab.render.plot import plot_roofline


def _runs(doc: dict) -> list[dict] | None:
    """The stored runs a document holds (a `show` or `report` document), or None for a result document."""
    schema = str(doc.get("schema", ""))
    if schema.startswith("rooflab.runs/"):
        return list(doc["runs"])
    if schema.startswith("rooflab.run/"):
        return [doc]
    return None


def check_destinations(*, html=None, csv=None) -> None:
    """Refuse, before anything is measured, an HTML file or a CSV folder that could not be written: the folder of
    the file, or the nearest existing folder above the CSV folder, must be a folder (a path through a regular file
    is refused with the reason, not met as an error after the run)."""
    if html:
        parent = Path(html).parent.resolve()
        if not parent.is_dir():
            raise RooflabError(f"--html {html}: the folder {Path(html).parent} does not exist"
                               + (" (it is a file)" if parent.exists() else ""))
        if Path(html).is_dir():
            raise RooflabError(f"--html {html}: that is a folder; name a file")
    if csv:
        p = Path(csv).resolve()
        while not p.exists() and p != p.parent:
            p = p.parent
        if not p.is_dir():
            raise RooflabError(f"--csv {csv}: {p} is a file, not a folder")


def write(cmd: Command, doc: dict, *, html=None, csv=None, plot=None) -> list[str]:
    """Write the files asked for; returns one line per file saying where it went. A file that cannot be written
    (the disk filled, a folder made read-only meanwhile) is said in its line; the run is stored and shown."""
    try:
        return _write(cmd, doc, html=html, csv=csv, plot=plot)
    except OSError as exc:
        raise RooflabError(f"the run is finished and stored, but a file asked for could not be written: "
                           f"{exc.strerror or exc}: {exc.filename or ''}") from None


def _write(cmd: Command, doc: dict, *, html=None, csv=None, plot=None) -> list[str]:
    runs = _runs(doc)
    said = []
    if plot:
        try:
            if runs is None:
                plot_roofline(doc, plot, title=tr("Your kernels on this machine") if cmd.kind == "bench" else None)
            else:
                drawn = [d for d in runs if d.get("result")]
                if not drawn:
                    raise RooflabError(f"run {runs[0]['run_id']} has no finished result to draw")
                plot_roofline(drawn[0]["result"] if len(drawn) == 1 else
                              [(f"run {d['run_id']}", d["result"]) for d in drawn], plot)
            said.append(tr("roofline written to {path}", path=plot))
        except NothingToDraw as exc:  # the run is finished and shown; only the drawing is left out, with why
            said.append(tr("no roofline written to {path}: {why}", path=plot, why=str(exc)))
    if html:
        write_html(runs if runs is not None else [run_from_doc(cmd.kind, doc)], html)
        said.append(tr("report written to {path}", path=html))
    if csv:
        if runs is None:
            n = len(write_csv(doc, csv))
        else:
            n = sum(len(write_csv(d["result"], csv, prefix=f"run{d['run_id']}_")) for d in runs if d.get("result"))
        said.append(tr("{n} table(s) written to {dir}", n=n, dir=csv))
    return said

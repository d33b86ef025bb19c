"""The terminal report of any document: the report its command or lab declares (:class:`rooflab.contract.Report`),
and stored runs with their record around it."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape as esc

from rooflab import registry
from rooflab.documents.common import read
from rooflab.documents.stored import Stored
from rooflab.i18n import tr
from rooflab.render.html import ceiling_comparison, column_label
from rooflab.render.tables import render_generic
from rooflab.render.text import render_machine, render_records, render_warnings, table
from rooflab.results.schema import parse_schema
from rooflab.results.validate import DocumentError


def kind_of(doc: dict) -> str:
    return parse_schema(doc.get("schema"))[0]


def render(doc: dict, console: Console) -> None:
    """A document's terminal report: a stored run (or several) with its record around its kind's report; any
    other document as its command or lab declares it."""
    kind = kind_of(doc)
    if kind in ("run", "runs"):
        render_runs(doc, console)
        return
    cmd = registry.for_kind(kind)
    if cmd is None:
        console.print(tr("(no report for documents of kind {kind}: see --json)", kind=kind), markup=False)
        return
    render_generic(cmd, doc, console)


def render_run(doc: dict, console: Console) -> None:
    """A stored run: its kind's report when the run completed, else what it had finished."""
    result = doc.get("result")
    console.print(f"[bold]{esc(tr('run {id}', id=doc['run_id']))}[/] · "
                  + esc(f"{doc['kind']} · {doc['created']} · {doc['status']}"))
    try:
        if result is not None and result.get("schema"):
            render(result, console)
            return
        if doc["status"] != "complete":
            console.print("[yellow]" + esc(tr("this run did not complete ({status}); showing the {n} measurement(s) "
                                              "it finished", status=doc["status"], n=len(doc["records"]))) + "[/]")
        render_machine(read(Stored, doc).header.get("machine") or {}, console)
        render_records(doc["records"], console)
        if result:
            render_warnings(result.get("warnings", []), console)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError, ZeroDivisionError,
            RecursionError) as exc:  # a document the checks let through that a report still cannot read
        what = f"the field {exc.args[0]!r} is missing" if isinstance(exc, KeyError) and exc.args else \
            f"{type(exc).__name__}: {exc}"
        raise DocumentError(f"run {doc['run_id']} ({doc['kind']}) cannot be drawn: its document is damaged or was "
                            f"edited by hand ({what})") from None


def render_runs(doc: dict, console: Console) -> None:
    """One stored run, or several with their ceilings side by side."""
    runs = doc["runs"] if kind_of(doc) == "runs" else [doc]
    for d in runs:
        render_run(d, console)
    render_comparison(runs, console)


def render_comparison(docs: list[dict], console: Console) -> None:
    """Several runs with ceilings (two machines, two dates): their ceilings in one table with ratios."""
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

    console.print(table(tr("Ceilings side by side (FLOP/s or bytes/s)"), [column_label(c) for c in cols],
                        [[cell(i, v) for i, v in enumerate(r)] for r in rows]))

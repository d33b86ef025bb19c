"""The commands that read the results store and measure nothing: `rooflab history` (the runs, newest first),
`rooflab show` (runs drawn again, with their ceilings side by side) and `rooflab report` (one self-contained HTML
page of runs)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from rooflab.contract import Column, Command, Outputs, Report, Table, option
from rooflab.errors import RooflabError
from rooflab.i18n import msg, tr
from rooflab.results.schema import schema_id
from rooflab.results.store import read_run_file


@dataclass(frozen=True)
class HistoryOptions:
    kind: str | None = option(None, help="Only runs of this kind (measure, lab.ladder, bench, ...).")
    machine: str | None = option(None, help="Only runs whose host or machine key contains this text.")
    since: str | None = option(None, help="Only runs created on or after this date (YYYY-MM-DD).")
    until: str | None = option(None, help="Only runs created on or before this date (YYYY-MM-DD).")
    limit: int = option(50, min=1, help="At most this many runs.")


def history(store, opts: HistoryOptions) -> dict:
    runs = store.runs(kind=opts.kind, machine=opts.machine, since=opts.since,
                      until=opts.until + "T99" if opts.until else None, limit=opts.limit)
    return {"store": str(store.path), "runs": runs}


@dataclass(frozen=True)
class RunsOptions:
    runs: tuple[str, ...] = option(argument=True, many=True, required=True,
                                   help="RUN: an id from `rooflab history`, 'latest', or a run saved to a .json file "
                                        "when the store could not be written.")


def stored_runs(store, refs) -> list[dict]:
    """The runs named: from the store, or from the .json files runs were saved to beside an unwritable store."""
    refs = [str(r) for r in refs]
    if not refs:
        raise RooflabError("name at least one run (an id from `rooflab history`, or latest)")
    return [read_run_file(r) if r.endswith(".json") and os.path.isfile(r) else store.get(r) for r in refs]


def show(store, opts: RunsOptions) -> dict:
    docs = stored_runs(store, opts.runs)
    return docs[0] if len(docs) == 1 else {"schema": schema_id("runs"), "runs": docs}


def report(store, opts: RunsOptions) -> dict:
    return {"schema": schema_id("runs"), "runs": stored_runs(store, opts.runs)}


def files_only(refs) -> bool:
    """Whether every run named is a saved .json file (then the store is not opened)."""
    return all(str(r).endswith(".json") and os.path.isfile(str(r)) for r in refs)


def _history_headline(doc: dict) -> str:
    where = tr("Runs in {store}", store=doc["store"])
    return where if doc["runs"] else where + " · " + tr("no runs yet: `rooflab measure` makes the first")


HISTORY = Command(
    name="history", kind="history", order=6, options=HistoryOptions, run=history, needs="store",
    summary=msg("list stored runs, newest first"), outputs=Outputs(files=()),
    report=Report(headline=_history_headline, tables=(
        Table("history_runs", "Stored runs, newest first", rows="runs", columns=(
            Column("run_id", "id", "int"), Column("created", "created (UTC)"), Column("kind", "kind"),
            Column("status", "status"), Column("hostname", "host"), Column("records", "records", "int"),
            Column("label", "label"))),)))
SHOW = Command(
    name="show", kind="run", order=7, options=RunsOptions, run=show, needs="store",
    summary=msg("draw stored runs again, without measuring anything (several: their ceilings side by "
                "side)"),
    outputs=Outputs(files=("csv", "plot")))
REPORT = Command(
    name="report", kind="runs", order=8, options=RunsOptions, run=report, needs="store",
    summary=msg("a report of stored runs: an interactive roofline, the tables, observations, warnings "
                "and the full record"),
    report=Report(shows=False), outputs=Outputs(files=("html",), required=("html",)))
COMMANDS = (HISTORY, SHOW, REPORT)

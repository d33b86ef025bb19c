"""The tables a command or lab declares (:class:`rooflab.contract.Table`), made into cells: formatted for the
terminal and the HTML page, raw for the CSV files. One report for every kind that needs nothing more: its heading,
its tables, its observations and its warnings."""

from __future__ import annotations

from rich.console import Console

from rooflab import registry
from rooflab.contract import Column, Command, Table
from rooflab.errors import RooflabError
from rooflab.i18n import text, tr
from rooflab.render.ascii import ascii_roofline
from rooflab.render.roofs import marked, roofline_of
from rooflab.render.text import heading, render_observations, render_warnings
from rooflab.render.text import table as rich_table
from rooflab.results.schema import parse_schema
from rooflab.units import binary_bytes, pct, seconds, si


def _fmt(fmt: str, v) -> str:
    if fmt in ("text", "msg"):
        # a message (a finding's name, an experiment's sentence) is rendered in the reader's language, never shown as
        # the dict it is stored as
        return text(v) if isinstance(v, (dict, list)) and (fmt == "msg" or _is_message(v)) else str(v)
    if fmt == "size":
        return " ".join(f"{k}={x}" for k, x in v.items()) if isinstance(v, dict) else str(v)
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return text(v) if isinstance(v, dict) else str(v)
    return {
        "int": lambda: str(int(v)),
        "g": lambda: f"{v:.4g}",
        "g6": lambda: f"{v:.6g}",
        "f1": lambda: f"{v:.1f}",
        "f2": lambda: f"{v:.2f}",
        "flops": lambda: si(v, "FLOP/s"),
        "bytes_per_s": lambda: si(v, "B/s"),
        "bytes": lambda: binary_bytes(v),
        "seconds": lambda: seconds(v),
        "pct": lambda: pct(v),
        "pct1": lambda: pct(v, 1),
        "x": lambda: f"{v:.2f}x",
        "x3": lambda: f"{v:.3f}x",
        "sci": lambda: f"{v:.1e}",
        "bits": lambda: tr("{bits}-bit", bits=v) if v else tr("scalar"),
        "ns": lambda: f"{v * 1e9:.0f} ns",
        "bar": lambda: str(v),
    }[fmt]()


def _is_message(v) -> bool:
    return isinstance(v, dict) and ("join" in v or ("id" in v and "args" in v)) or (
        isinstance(v, list) and bool(v) and all(_is_message(x) or isinstance(x, str) for x in v))


def _ci(fmt: str, lo, hi) -> str:
    if fmt in ("x", "x3"):
        digits = 3 if fmt == "x3" else 2
        return f"{lo:.{digits}f}–{hi:.{digits}f}"
    return f"{_fmt(fmt, lo)}–{_fmt(fmt, hi)}"


def cell(col: Column, row: dict, doc: dict, top: float | None = None) -> str:
    """One cell as a report shows it: "—" for a missing value, the interval beside a value that has one."""
    v = col.get(row, doc)
    if v is None or v == "":
        return "—" if v is None else ""
    if col.fmt == "bar":
        return "#" * max(1, round(30 * v / top)) if top and isinstance(v, (int, float)) and v > 0 else ""
    out = _fmt(col.fmt, v)
    ci = row.get(col.ci) if col.ci else None
    if ci and len(ci) == 2 and all(isinstance(x, (int, float)) for x in ci):
        out += f" ({_ci(col.fmt, *ci)})"
    return out


def title(template, args: dict, doc: dict) -> str:
    return template(doc) if callable(template) else tr(template, **args)


def formatted(table: Table, doc: dict) -> list[tuple[str, str, list[str], list[list[str]]]]:
    """Each table the declaration makes of ``doc``: (name, title, column headers, formatted rows)."""
    out = []
    cols = [c for c in table.columns if c.report]
    for name, tmpl, args, rows in table.instances(doc):
        tops = {c.key: max((c.get(r, doc) or 0 for r in rows if isinstance(c.get(r, doc), (int, float))),
                           default=0) for c in cols if c.fmt == "bar"}
        body = []
        for r in rows:
            line = []
            for c in cols:
                if r.get("error") and c.key == table.error_column:
                    line.append(text(r["error"]))
                elif r.get("error") and c.get(r, doc) in (None, ""):
                    line.append("—")
                else:
                    line.append(cell(c, r, doc, tops.get(c.key)))
            body.append(line)
        out.append((name, title(tmpl, args, doc), [tr(c.label) if c.label else "" for c in cols], body))
    return out


def _raw(v):
    if isinstance(v, dict) and "id" in v and "args" in v:
        return text(v, "en")  # a message: in English, as the JSON's text is
    if isinstance(v, dict):
        return " ".join(f"{k}={x}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return " ".join(str(x) for x in v)
    return v


def raw(table: Table, doc: dict) -> list[tuple[str, list[str], list[list]]]:
    """Each table the declaration makes of ``doc`` as raw values (the CSV files): (name, headers, rows). A column
    with an interval gets two more, ``KEY_lo`` and ``KEY_hi``."""
    out = []
    cols = [c for c in table.columns if c.csv]
    for name, _tmpl, _args, rows in table.instances(doc):
        heads = []
        for c in cols:
            heads.append(c.key)
            if c.ci:
                heads += [f"{c.key}_lo", f"{c.key}_hi"]
        body = []
        for r in rows:
            line = []
            for c in cols:
                # the row's own field where it has one (a verdict in English, not its translation)
                line.append(_raw(r[c.key] if c.key in r else c.get(r, doc)))
                if c.ci:
                    ci = r.get(c.ci) or [None, None]
                    line += [ci[0], ci[1]]
            body.append(line)
        if table.error_column and any(r.get("error") for r in rows) and "error" not in heads:
            heads.append("error")
            for line, r in zip(body, rows):
                line.append(_raw(r.get("error")) or "")
        out.append((name, heads, body))
    return out


def headline(cmd: Command, doc: dict) -> str:
    """The rest of a report's first line: what ran, quick or not, and the run's id."""
    parts = [cmd.report.headline(doc)] if cmd.report.headline is not None else []
    line = "".join(f" · {p}" for p in parts if p)
    # only what a command measures is a run of the store (a listing of the store is none)
    stored = cmd.needs == "session" and cmd.outputs.stored
    run = " · " + tr("run {id}", id=doc.get("run_id", "—")) if stored else ""
    return line + (tr(" · quick") if doc.get("quick") else "") + run


def render_generic(cmd: Command, doc: dict, console: Console) -> None:
    """A report from the declarations alone: heading, tables, observations, warnings."""
    console.print(heading(cmd.title, headline(cmd, doc)))
    for t in cmd.report.tables:
        align = ["left" if i == 0 or c.fmt in ("text", "msg", "bar") else "right"
                 for i, c in enumerate(c for c in t.columns if c.report)]
        for _name, ttl, heads, rows in formatted(t, doc):
            console.print(rich_table(ttl, heads, rows, align=align))
    if cmd.report.roofline is not None:
        render_roofline(doc, console)
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)


def render_roofline(doc: dict, console: Console) -> None:
    """The ASCII roofline a document's command declares: each point marked, and the marks named under it."""
    comp, mem, pts = roofline_of(doc)
    if not (comp and mem):
        return
    marks = marked(pts)
    for line in ascii_roofline([(c["name"], c["value"]) for c in comp], [(m["name"], m["value"]) for m in mem], marks,
                               width=max(40, min(100, console.width - 12))):
        console.print(line, markup=False, highlight=False)
    if marks:
        console.print(tr("  points: ") + ", ".join(f"{m.label}: {p.label}" for m, p in zip(marks, pts)), markup=False,
                      highlight=False)


def declared_tables(doc: dict, kind: str | None = None):
    """The tables the command or lab of the document's kind (its schema's, when not given) declares."""
    if kind is None:
        try:
            kind = parse_schema(doc.get("schema"))[0]
        except RooflabError:  # a document without a schema has no declared tables
            return ()
    cmd = registry.for_kind(kind)
    return cmd.report.tables if cmd is not None else ()

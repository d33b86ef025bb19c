"""The tables a command or lab declares (:class:`rooflab.contract.Table`), made into cells: formatted for the
terminal and the HTML page, raw for the CSV files. One report for every kind that needs nothing more: its heading,
its tables, its observations and its warnings."""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.console import Console
from rich.text import Text

from rooflab import registry
from rooflab.contract import Column, Command, Line, Report, Table
from rooflab.errors import RooflabError
from rooflab.i18n import text, tr
from rooflab.render.ascii import MARKS, ascii_roofline
from rooflab.render.roofs import marked, roofline_of
from rooflab.render.text import SHOWN_AT_EACH_END, heading, kv_table, render_mpi, render_observations, render_warnings
from rooflab.render.text import table as rich_table
from rooflab.render.text import thinned
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
        "ghz": lambda: f"{v / 1e9:.3f} GHz",
        "count": lambda: si(v, "").strip(),  # 105 k, 1.66 k: a count as a reader compares them
        "bar": lambda: str(v),
    }[fmt]()


def _is_message(v) -> bool:
    return isinstance(v, dict) and ("join" in v or ("id" in v and "args" in v)) or (
        isinstance(v, list) and bool(v) and all(_is_message(x) or isinstance(x, str) for x in v))


def _ci(fmt: str, lo, hi) -> str:
    if fmt in ("x", "x3"):
        digits = 3 if fmt == "x3" else 2
        return f"{lo:.{digits}f}–{hi:.{digits}f}"
    unit = {"flops": "FLOP/s", "bytes_per_s": "B/s"}.get(fmt)
    if unit:  # the unit once: 14.3 G–14.5 GFLOP/s
        return f"{si(lo, '')}–{si(hi, unit)}"
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
        level = row.get("ci_level", 0.95)  # too few samples for a 95% interval: the level it has, said
        note = tr(", {level:.0%} only: {n} samples", level=level, n=row.get("samples")) if level < 0.95 else ""
        out += f" ({_ci(col.fmt, *ci)}{note})"
    return out


def title(template, args: dict, doc: dict) -> str:
    return template(doc) if callable(template) else tr(template, **args)


@dataclass
class Drawn:
    """One table as a report draws it: its file ``name``, ``title``, column ``heads`` and ``align``ment, formatted
    ``rows`` (a long table's ends and a row counting the rest), the ``notes`` its cells number (a status's reason,
    once each) and its ``footer`` lines."""

    name: str
    title: str
    heads: list[str]
    align: list[str]
    rows: list[list[str]]
    notes: list[str] = field(default_factory=list)
    footer: list[str] = field(default_factory=list)
    keyed: bool = False


def abridged(rows: list, width: int) -> tuple[list, int]:
    """The rows a report draws of a long table: the first and last SHOWN_AT_EACH_END, with a row of "…" between (a
    run of a million sizes is drawn in seconds; every row stays in --json and --csv), and how many were left out."""
    n = SHOWN_AT_EACH_END
    if len(rows) <= 2 * n + 1:
        return rows, 0
    return [*rows[:n], ["…"] * width, *rows[-n:]], len(rows) - 2 * n


def left_out(n: int) -> list[str]:
    return [tr("{n} more rows (all in --csv and --json)", n=n)] if n else []


def shown_columns(table: Table, marks: dict | None) -> list[Column]:
    """The columns a report shows: a roofline mark's column only where the report draws marks (the terminal)."""
    return [c for c in table.columns if c.report and (c.fmt != "mark" or marks is not None)]


def formatted(table: Table, doc: dict, marks: dict[str, str] | None = None) -> list[Drawn]:
    """Each table the declaration makes of ``doc``, formatted; ``marks``: the mark of each roofline point's label
    (for the columns of format "mark")."""
    out = []
    cols = shown_columns(table, marks)
    align = ["left" if i == 0 or c.fmt in ("text", "msg", "bar", "mark", "size") else "right"
             for i, c in enumerate(cols)]
    for name, tmpl, args, rows in table.instances(doc):
        tops = {c.key: max((c.get(r, doc) or 0 for r in rows if isinstance(c.get(r, doc), (int, float))),
                           default=0) for c in cols if c.fmt == "bar"}
        notes: list[str] = []
        body = []
        for r in rows:
            line = []
            for c in cols:
                if c.fmt == "mark":
                    line.append(marks.get(c.get(r, doc), "") if marks else "")
                elif r.get("error") and c.key == table.error_column:
                    line.append(text(r["error"]))
                elif r.get("error") and c.get(r, doc) in (None, ""):
                    line.append("—")
                else:
                    line.append(cell(c, r, doc, tops.get(c.key)) + _numbered(r.get(c.note) if c.note else None,
                                                                            notes))
            body.append(line)
        body, more = abridged(body, len(cols))
        footer = left_out(more) + ([str(x) for x in table.footer(doc, args, rows)] if table.footer else [])
        out.append(Drawn(name, title(tmpl, args, doc), [tr(c.label) if c.label else "" for c in cols], align,
                         body, notes, footer, table.keyed))
    return out


def _numbered(reason, notes: list[str]) -> str:
    """`` [k]``: the number of a cell's reason among the table's notes (added once), or nothing."""
    why = text(reason) if reason else ""
    if not why:
        return ""
    if why not in notes:
        notes.append(why)
    return f" [{notes.index(why) + 1}]"


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
    cols = [c for c in table.columns if c.csv and c.fmt != "mark"]
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
    """A document's terminal report, drawn from its command's declarations alone (:class:`rooflab.contract.Report`):
    heading, tables, notes, roofline, outline, observations, warnings."""
    rep = cmd.report
    console.print(heading(rep.title or cmd.title, headline(cmd, doc)))
    points = roofline_of(doc)[2] if rep.roofline is not None else []
    marks = {p.label: m.label for p, m in zip(points, marked(points))}
    for t in rep.tables:
        if "text" in t.formats:
            for d in formatted(t, doc, marks):
                render_drawn(d, console)
    for line in rep.notes(doc) if rep.notes is not None else ():
        console.print(text(line), markup=False, highlight=False)
    if rep.roofline is not None:
        render_roofline(doc, console, rep.roofline.title(doc) if rep.roofline.title is not None else None)
    render_mpi(doc, console)
    render_outline(rep.outline(doc) if rep.outline is not None else [], console)
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)


def render_drawn(d: Drawn, console: Console) -> None:
    """One formatted table in the terminal, its numbered notes and its footer under it."""
    if d.keyed:
        console.print(kv_table(d.title, [r[:2] for r in d.rows]))
    else:
        console.print(rich_table(d.title, d.heads, d.rows, align=d.align))
    for i, why in enumerate(d.notes, 1):
        console.print(f"  [{i}] {why}", markup=False, highlight=False)
    for line in d.footer:
        console.print("  " + line, markup=False, highlight=False)


def render_outline(lines: list[Line], console: Console) -> None:
    for ln in lines:
        t = Text(" " * ln.indent)
        t.append(ln.text, "bold" if ln.strong else "")
        if ln.aside:
            t.append("  ")
            t.append(ln.aside, "dim")
        console.print(t, highlight=False, soft_wrap=not ln.strong and not ln.aside)


def render_roofline(doc: dict, console: Console, title: str | None = None) -> None:
    """The ASCII roofline a document's command declares: each point marked, and the marks named under it."""
    comp, mem, pts = roofline_of(doc)
    if not (comp and mem):
        return
    pts = thinned(pts)  # a run of a million sizes: an even sample of its points (the tables mark each row)
    marks = marked(pts)
    console.print("")
    for line in ascii_roofline([(c["name"], c["value"]) for c in comp], [(m["name"], m["value"]) for m in mem], marks,
                               width=max(40, min(100, console.width - 12)), title=title or ""):
        console.print(line, markup=False, highlight=False)
    if marks and len(marks) <= len(MARKS):  # named where each mark is one point
        console.print(tr("  points: ") + ", ".join(f"{m.label}: {p.label}" + (tr(" (above roof)") if p.flagged else "")
                                                   for m, p in zip(marks, pts)), markup=False, highlight=False)


def report_of(doc: dict, kind: str | None = None) -> Report | None:
    """The report the command or lab of the document's kind (its schema's, when not given) declares."""
    if kind is None:
        try:
            kind = parse_schema(doc.get("schema"))[0]
        except RooflabError:  # a document without a schema has no declared report
            return None
    cmd = registry.for_kind(kind)
    return cmd.report if cmd is not None else None


def declared_tables(doc: dict, kind: str | None = None, shown_in: str | None = None) -> tuple[Table, ...]:
    """The tables the document's command or lab declares (those ``shown_in`` one format, when given)."""
    rep = report_of(doc, kind)
    return tuple(t for t in rep.tables if shown_in is None or shown_in in t.formats) if rep is not None else ()

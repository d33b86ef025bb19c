"""Terminal rendering with rich. Renderers read result documents; they never measure."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape as esc
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from rooflab.documents.common import MeasureAggregates, MpiJob, read
from rooflab.i18n import sep, text, tr
from rooflab.interpret.machine import assumptions, machine_rows
from rooflab.units import pct, seconds, si


class Styled(str):
    """A table cell written in rich markup on purpose (its data parts escaped with ``esc``); every other cell is
    shown as the literal text it is, so a kernel called ``scale[/x]`` is a name, not a markup tag."""


def styled(markup: str) -> Styled:
    return Styled(markup)


def _cell(x) -> Text:
    if isinstance(x, Text):
        return x
    if isinstance(x, Styled):
        return Text.from_markup(str(x))
    return Text(str(x))


def heading(bold: str, rest: str = "") -> Text:
    """A report's first line: the command in bold, then its details as literal text (names are data)."""
    return Text.assemble((bold, "bold"), rest)


def table(title: str, columns: list[str], rows: list[list], *, justify_numbers: bool = True,
          align: list[str] | None = None) -> Table:
    """A table; its columns are right-aligned after the first (numbers), or as ``align`` says ("left"/"right")."""
    t = Table(title=Text(str(title)), title_justify="left", header_style="bold")
    for i, c in enumerate(columns):
        how = align[i] if align else ("right" if (justify_numbers and i > 0) else "left")
        t.add_column(Text(str(c)), justify=how)
    for r in rows:
        t.add_row(*[_cell(x) for x in r])
    return t


def kv_table(title: str, rows: list[list]) -> Table:
    t = Table(title=Text(str(title)), title_justify="left", show_header=False)
    t.add_column(style="bold")
    t.add_column()
    for k, v in rows:
        t.add_row(_cell(k), _cell(v))
    return t


def render_warnings(warnings: list[dict], console: Console) -> None:
    """One line per warning; several of the same kind (e.g. spread) are gathered into one line."""
    by_code: dict[str, list[dict]] = {}
    for w in warnings:
        by_code.setdefault(w["code"], []).append(w)
    label = tr("warning")
    for code, ws in by_code.items():
        if len(ws) == 1 or code not in ("high-spread", "unstable-clock"):
            for w in ws:
                console.print(f"[yellow]{esc(label)}[/]: {esc(warning_text(w))}", highlight=False)
            continue
        worst = max(ws, key=lambda w: w["seen"])
        subjects = sep(", ").join(f"{w['subject']} ({w['seen']:.1%})" for w in ws)
        if code == "high-spread":
            line = tr("high spread (robust CV above {th:.0%}) in {n} measurements: {subjects}",
                      th=worst["threshold"], n=len(ws), subjects=subjects)
        else:
            line = tr("the clock beside the kernel dipped by more than {th:.0%} in {n} measurements: {subjects}",
                      th=worst["threshold"], n=len(ws), subjects=subjects)
        console.print(f"[yellow]{esc(label)}[/]: {esc(line)} — {esc(text(worst.get('remedy_msg') or worst['remedy']))}",
                      highlight=False)


def warning_text(w: dict) -> str:
    """A stored warning in the current language (``msg``/``remedy_msg``; runs stored before them have English)."""
    return f"{text(w.get('msg') or w['message'])} — {text(w.get('remedy_msg') or w['remedy'])}"


def render_observations(obs: list, console: Console) -> None:
    if obs:
        console.print(f"[bold]{esc(tr('Observations'))}[/]")
        for o in obs:
            console.print(f"  • {text(o)}", highlight=False, markup=False)


def render_machine(m: dict, console: Console) -> None:
    console.print(kv_table(tr("Machine"), [[r["what"], r["value"]] for r in machine_rows(m)]))
    for a in assumptions(m):
        console.print(f"  [dim]{esc(a)}[/]", highlight=False)


def render_records(records: list[dict], console: Console) -> None:
    rows = []
    for r in records:
        t = r.get("timing")
        if t:
            s = t["summary"]
            rows.append([r["name"], seconds(s["median"]), f"{seconds(s['ci95'][0])} – {seconds(s['ci95'][1])}",
                         s["n"], pct(s["cv"], 1), f"{r['rel_error']:.2g}" if r.get("rel_error") is not None else "—",
                         tr("ok")])
        else:
            rows.append([r["name"], "—", "—", "—", "—", "—", text(r.get("error") or tr("no timing"))])
    console.print(table(tr("Measurements"), [tr("kernel"), tr("median/rep"), tr("95% CI"), "n", "CV", tr("rel. error"),
                                             tr("status")], rows))


def render_mpi(doc: dict, console: Console) -> None:
    """The ranks of an MPI job, where each ran, and the job's aggregates with the spread between ranks."""
    if not doc.get("mpi"):
        return
    mpi = read(MpiJob, doc["mpi"])
    rows = [[r.rank, r.host, ",".join(map(str, r.cpus or [])) or "?", r.status, r.error or ""] for r in mpi.ranks]
    console.print(table(tr("MPI job: {n} ranks on {h} host(s)", n=mpi.size, h=len(mpi.hosts)),
                        [tr("rank"), tr("host"), tr("cpus"), tr("status"), tr("error")], rows, justify_numbers=False))
    aggs = mpi.aggregates
    parts = ([("compute", aggs.compute), ("bandwidth", aggs.bandwidth)] if isinstance(aggs, MeasureAggregates) else
             [("bench", aggs or [])])
    for part, items in parts:
        unit = "B/s" if part == "bandwidth" else "FLOP/s"
        rows = []
        for a in items:
            what = a.name or a.label or f"{a.level} {a.kernel}"
            rows.append([what, a.threads if a.threads is not None else "", si(a.job, unit),
                         "; ".join(f"{h} {si(v, unit)}" for h, v in a.nodes.items()),
                         tr("{spread:.0%} (rank {rank})", spread=a.spread, rank=a.slowest.rank)
                         if a.spread and a.slowest else "—"])
        if rows:
            title = {"compute": tr("Job aggregates (compute): all ranks' work over the slowest rank's time"),
                     "bandwidth": tr("Job aggregates (bandwidth): all ranks' work over the slowest rank's time")}.get(
                part, tr("Job aggregates (bench): all ranks' work over the slowest rank's time"))
            console.print(table(title, [tr("ceiling"), tr("threads"), tr("job"), tr("per node"),
                                        tr("slowest / fastest")], rows))
    jr = mpi.job_roofline
    if jr and jr.available and jr.roofs:
        rows = [[p.label, f"{p.intensity:.3g}", si(p.job_flops_per_s, "FLOP/s"), si(p.job_roof_flops_per_s, "FLOP/s"),
                 pct(p.of_job_roof)] for p in jr.points]
        console.print(table(tr("On the job's roofline ({flops}, {bw} over {n} ranks)",
                               flops=si(jr.roofs.flops_per_s, "FLOP/s"), bw=si(jr.roofs.bytes_per_s, "B/s"),
                               n=jr.roofs.ranks),
                            [tr("kernel and size"), "FLOP/B", tr("job"), tr("job roof"), tr("of roof")], rows))
    elif jr:
        console.print(f"[dim]{esc(text(jr.note))}[/]")


# control characters (C0 but tab and newline, DEL, C1) shown as escapes: a kernel name or a kernel's output holding
# ESC [ ... must not drive the user's terminal, nor sit raw in a CSV or HTML file
_CONTROL = {c: f"\\x{c:02x}" for c in (*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0D, 0x20), 0x7F, *range(0x80, 0xA0))}


def no_surrogates(s: str) -> str:
    """``s`` encodable as UTF-8: a byte that was not UTF-8 in a file name (Python holds it as a lone surrogate)
    written as ``\\xNN``."""
    if s.isascii():
        return s
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        return "".join(f"\\x{ord(c) - 0xDC00:02x}" if 0xDC80 <= ord(c) <= 0xDCFF else
                       ("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c) for c in s)


def visible(s: str) -> str:
    """``s`` with its control characters (but tab and newline) and undecodable bytes written as ``\\xNN``."""
    return no_surrogates(s).translate(_CONTROL)


def safe_console(**kw):
    """A rich Console that writes every piece of text it was given with its control characters escaped; the
    escape sequences of its own styles are added after, so colour still works."""
    class SafeConsole(Console):
        def _render_buffer(self, buffer):
            return super()._render_buffer(s if s.control else Segment(visible(s.text), s.style, s.control)
                                          for s in buffer)

    return SafeConsole(**kw)


MAX_POINTS = 300  # points a drawn roofline holds: more are thinned evenly (the first and last always kept)
SHOWN_AT_EACH_END = 50  # rows of a long table a report shows at its start and at its end (all in --csv and --json)


def thinned(points: list, limit: int = MAX_POINTS) -> list:
    """At most ``limit`` of ``points``, evenly spread over the list (a run of a million sizes is drawn in seconds;
    its every row stays in --json and --csv)."""
    n = len(points)
    if n <= limit:
        return list(points)
    step = (n - 1) / (limit - 1)
    return [points[round(i * step)] for i in range(limit)]

"""One self-contained HTML page for stored runs: an interactive roofline (inline SVG: every ceiling labelled and
switchable, every point with a tooltip), the tables, the observations, the warnings and the full machine and
environment record. Nothing is fetched when the page is viewed; every string from a run is escaped."""

from __future__ import annotations

import datetime as _dt
import html
import json
import math
import sys
from pathlib import Path

from rooflab.documents.common import read
from rooflab.documents.stored import Stored
from rooflab.documents.measure import ceilings
from rooflab.i18n import get_lang, text, tr
from rooflab.render.roofs import is_path, roofline_of
from rooflab.render.tables import Drawn, abridged, formatted, left_out, report_of
from rooflab.render.text import SHOWN_AT_EACH_END, thinned, visible, warning_text
from rooflab.units import pct, si

W, H, PAD_L, PAD_B, PAD_T, PAD_R = 820, 520, 70, 50, 20, 20


def _e(x) -> str:
    return html.escape(visible(str(x)), quote=True)


def _roof_data(doc: dict, kind: str | None = None) -> tuple[list[dict], list[dict], list[dict]]:
    """(compute roofs, memory roofs, points) of a document, as its command declares its roofline."""
    comp, mem, declared = roofline_of(doc, kind)
    pts = [{"label": p.label, "intensity": p.intensity, "flops": p.flops_per_s, "bytes": p.bytes_per_s,
            "of_roof": p.of_roof, "ci": p.ci, "flagged": p.flagged, **({"kernel": True} if p.kernel else {})}
           for p in declared]
    return ([{"name": c["name"], "value": c["value"]} for c in comp],
            [{"name": m["name"], "value": m["value"]} for m in mem], thinned(pts))


LABEL_H = 15  # px between the baselines of two labels (11 px text: its box is about 14 px high)
CHAR_W = 6.5  # px, about the width of a character of 11 px text


def spread(ys: list[float], lo: float, hi: float, gap: float = LABEL_H) -> list[float]:
    """Baselines for labels wanted at ``ys``, moved apart so that any two are at least ``gap`` apart and all lie
    within [lo, hi], each as near its own line as that allows (ceilings a few percent apart would be drawn on top of
    each other); returned in the order given."""
    order = sorted(range(len(ys)), key=lambda i: ys[i])
    placed = [min(max(ys[i], lo), hi) for i in order]
    for k in range(1, len(placed)):  # top to bottom: each at least a gap below the one above
        placed[k] = max(placed[k], placed[k - 1] + gap)
    if placed and placed[-1] > hi:  # past the bottom: push the stack back up
        placed[-1] = hi
        for k in range(len(placed) - 2, -1, -1):
            placed[k] = min(placed[k], placed[k + 1] - gap)
    out = [0.0] * len(ys)
    for k, i in enumerate(order):
        out[i] = placed[k]
    return out


def free_spot(px: float, py: float, width: float, taken: list[tuple]) -> tuple[float, float]:
    """Where the label of a point at (px, py) goes (its baseline's left end): the first place around the point whose
    box, ``width`` wide, overlaps none of ``taken`` (which it joins); further out where all of those are taken."""
    def box(x, y):
        return (x, y - LABEL_H + 2, x + width, y + 3)

    ring = [(7, -6), (7, 14), (-7 - width, -6), (-7 - width, 14), (-width / 2, -10), (-width / 2, 22)]
    tries = ring + [(dx, dy + k * sign * LABEL_H) for k in range(1, 12) for sign in (-1, 1) for dx, dy in ring[:2]]
    for dx, dy in tries:
        b = box(px + dx, py + dy)
        if not any(b[0] < t[2] and t[0] < b[2] and b[1] < t[3] and t[1] < b[3] for t in taken):
            taken.append(b)
            return px + dx, py + dy
    taken.append(box(px + 7, py - 6))
    return px + 7, py - 6


def roofline_svg(doc: dict | list[tuple[str, dict]], uid: str, kind: str | None = None) -> str:
    """The roofline of one run, or of several overlaid (a list of (tag, document): each ceiling named by its tag)."""
    if isinstance(doc, list):
        comp, mem, pts = [], [], []
        for tag, d in doc:
            c, m, p = _roof_data(d)
            comp += [{**x, "name": f"{tag}: {x['name']}"} for x in c]
            mem += [{**x, "name": f"{tag}: {x['name']}"} for x in m]
            pts += [{**x, "label": f"{tag}: {x['label']}"} for x in p]
    else:
        comp, mem, pts = _roof_data(doc, kind)
    if not comp or not mem:
        return f"<p>{_e(tr('(no roofline in this run)'))}</p>"
    top = max(c["value"] for c in comp)
    xs = [top / m["value"] for m in mem] + [p["intensity"] for p in pts if p["intensity"] > 0]
    x0, x1 = 2 ** math.floor(math.log2(min(xs) / 4)), 2 ** math.ceil(math.log2(max(xs) * 4))
    ys = [p["flops"] for p in pts] + [m["value"] * x0 for m in mem] + [c["value"] for c in comp]
    y0, y1 = 10 ** math.floor(math.log10(min(ys) / 2)), 10 ** math.ceil(math.log10(top * 1.5))

    def X(v):
        return PAD_L + (math.log10(v) - math.log10(x0)) / (math.log10(x1) - math.log10(x0)) * (W - PAD_L - PAD_R)

    def Y(v):
        return H - PAD_B - (math.log10(v) - math.log10(y0)) / (math.log10(y1) - math.log10(y0)) * (H - PAD_B - PAD_T)

    out = [f'<svg id="{uid}" class="roofline" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img">',
           f'<rect x="{PAD_L}" y="{PAD_T}" width="{W - PAD_L - PAD_R}" height="{H - PAD_B - PAD_T}" class="frame"/>']
    d = 10 ** math.ceil(math.log10(x0))
    while d <= x1:
        out.append(f'<line x1="{X(d):.1f}" x2="{X(d):.1f}" y1="{PAD_T}" y2="{H - PAD_B}" class="grid"/>'
                   f'<text x="{X(d):.1f}" y="{H - PAD_B + 16}" class="tick">{d:g}</text>')
        d *= 10
    d = y0
    while d <= y1:
        out.append(f'<line x1="{PAD_L}" x2="{W - PAD_R}" y1="{Y(d):.1f}" y2="{Y(d):.1f}" class="grid"/>'
                   f'<text x="{PAD_L - 6}" y="{Y(d) + 4:.1f}" class="tick" text-anchor="end">{_e(si(d, ""))}</text>')
        d *= 10
    out.append(f'<text x="{(W + PAD_L) / 2}" y="{H - 8}" class="axis">{_e(tr("arithmetic intensity (FLOP/byte)"))}'
               '</text>')
    out.append(f'<text x="16" y="{H / 2}" class="axis" transform="rotate(-90 16 {H / 2})">FLOP/s</text>')
    mem = sorted(mem, key=lambda m: -m["value"])
    comp = sorted(comp, key=lambda c: -c["value"])
    # the labels of each group (memory at the left end of its slope, compute at the right end of its line) are moved
    # apart where their lines lie close together
    mem_y = spread([Y(m["value"] * x0) - 4 for m in mem], PAD_T + LABEL_H, H - PAD_B - 4)
    comp_y = spread([Y(c["value"]) - 4 for c in comp], PAD_T + LABEL_H, H - PAD_B - 4)
    for i, (m, ly) in enumerate(zip(mem, mem_y)):
        xr = min(top / m["value"], x1)
        pts_line = [(x0, m["value"] * x0), (xr, m["value"] * xr), (x1, top)]
        path = " ".join(f"{X(a):.1f},{Y(min(b, top)):.1f}" for a, b in pts_line)
        out.append(f'<g class="ceiling memory" data-name="{_e(m["name"])}"><polyline points="{path}" '
                   f'class="c{i % 6}"/><text x="{X(x0) + 4:.1f}" y="{ly:.1f}" class="label">'
                   f'{_e(m["name"])} {_e(si(m["value"], "B/s"))}</text></g>')
    for j, (c, ly) in enumerate(zip(comp, comp_y)):
        out.append(f'<g class="ceiling compute" data-name="{_e(c["name"])}"><line x1="{PAD_L}" x2="{W - PAD_R}" '
                   f'y1="{Y(c["value"]):.1f}" y2="{Y(c["value"]):.1f}" class="h{j % 4}"/><text x="{W - PAD_R - 4}" '
                   f'y="{ly:.1f}" class="label" text-anchor="end">{_e(c["name"])} '
                   f'{_e(si(c["value"], "FLOP/s"))}</text></g>')
    legend = []
    # the boxes labels take (left, top, right, bottom): a kernel's number goes where it covers none of them
    taken = [(X(x0) + 4, ly - LABEL_H + 2, X(x0) + 4 + CHAR_W * len(f'{m["name"]} {si(m["value"], "B/s")}'), ly + 3)
             for m, ly in zip(mem, mem_y)]
    taken += [(W - PAD_R - 4 - CHAR_W * len(f'{c["name"]} {si(c["value"], "FLOP/s")}'), ly - LABEL_H + 2,
               W - PAD_R - 4, ly + 3) for c, ly in zip(comp, comp_y)]
    if len(pts) > 1 and not isinstance(doc, list) and is_path(doc, kind):  # steps of one path, joined in order
        out.append('<defs><marker id="arrow-' + uid + '" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
                   'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#888"/></marker></defs>')
        for a, b in zip(pts, pts[1:]):
            out.append(f'<line class="step" x1="{X(a["intensity"]):.1f}" y1="{Y(a["flops"]):.1f}" '
                       f'x2="{X(b["intensity"]):.1f}" y2="{Y(b["flops"]):.1f}" stroke="#888" stroke-width="1.5" '
                       f'marker-end="url(#arrow-{uid})"/>')
    for p in pts:
        tip = tr("{label}: {flops}, {bytes}, {i:.3g} FLOP/B, {frac} of roof", label=p["label"],
                 flops=si(p["flops"], "FLOP/s"), bytes=si(p["bytes"], "B/s"), i=p["intensity"], frac=pct(p["of_roof"]))
        if p.get("ci"):
            tip += tr(", CI {lo}–{hi}", lo=si(p["ci"][0], ""), hi=si(p["ci"][1], "FLOP/s"))
        if p["flagged"]:
            tip += tr(" — above its roof")
        shape = "flagged" if p["flagged"] else ""
        out.append(f'<circle class="point {shape}" cx="{X(p["intensity"]):.1f}" cy="{Y(p["flops"]):.1f}" r="5" '
                   f'data-tip="{_e(tip)}"><title>{_e(tip)}</title></circle>')
        if p.get("kernel"):  # a kernel's point: its number beside it, its name in the legend under the plot
            legend.append(p)
            lx, ly = free_spot(X(p["intensity"]), Y(p["flops"]), len(str(len(legend))) * CHAR_W, taken)
            out.append(f'<text class="point-label" x="{lx:.1f}" y="{ly:.1f}">{len(legend)}</text>')
    out.append("</svg>")
    toggles = "".join(f'<label><input type="checkbox" checked data-svg="{uid}" data-name="{_e(x["name"])}"> '
                      f'{_e(x["name"])}</label> ' for x in mem + comp)
    keys = "".join(f'<li>{_e(p["label"])}{_e(tr(" — above its roof")) if p["flagged"] else ""}</li>'
                   for p in legend)
    return (f'<div class="toggles">{toggles}</div>' + "".join(out) +
            (f'<ol class="legend">{keys}</ol>' if keys else "") + '<div class="tip" hidden></div>')


def _table(columns: list[str], rows: list[list]) -> str:
    head = "".join(f"<th>{_e(c)}</th>" for c in columns)
    rows, more = abridged(rows, len(columns))
    if more:  # the count of the rows left out, in the row between the ends
        rows[SHOWN_AT_EACH_END] = left_out(more) + [""] * (len(columns) - 1)
    body = "".join("<tr>" + "".join(f"<td>{_e(v)}</td>" for v in r) + "</tr>" for r in rows)
    return f"<table>{f'<thead><tr>{head}</tr></thead>' if head else ''}<tbody>{body}</tbody></table>"


def _fmt(col: str, v) -> str:
    if isinstance(v, float):
        return si(v, "FLOP/s") if v > 1e6 else f"{v:.4g}"
    return "" if v is None else str(v)


def column_label(col: str) -> str:
    """A column of the side-by-side ceilings table (``ceiling_comparison``) as the page shows it."""
    return {"ceiling": tr("ceiling"), "threads": tr("threads")}.get(col, col)


def _drawn(d: Drawn) -> str:
    """One declared table: its title, its rows (a keyed table without a header), its numbered notes and footer."""
    notes = "".join(f"<li>{_e(n)}</li>" for n in d.notes)
    footer = "".join(f"<p class='note'>{_e(x)}</p>" for x in d.footer)
    return (f"<h3>{_e(d.title)}</h3>" + _table([] if d.keyed else d.heads, d.rows)
            + (f"<ol class='notes'>{notes}</ol>" if notes else "") + footer)


def _declared(doc: dict, kind: str | None = None) -> str:
    """What the document's command declares besides its roofline: tables, notes and outline."""
    rep = report_of(doc, kind)
    if rep is None:
        return ""
    tables = "".join(_drawn(d) for t in rep.tables if "html" in t.formats for d in formatted(t, doc))
    notes = "".join(f"<p class='note'>{_e(text(x))}</p>" for x in (rep.notes(doc) if rep.notes else []))
    outline = "".join(f"<p class='line{' strong' if ln.strong else ''}' style='margin-left:{ln.indent}ch'>"
                      f"{_e(ln.text)}" + (f" <span class='aside'>{_e(ln.aside)}</span>" if ln.aside else "") + "</p>"
                      for ln in (rep.outline(doc) if rep.outline else []))
    return tables + notes + (f"<div class='outline'>{outline}</div>" if outline else "")


CSS = """body{font:14px system-ui,sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:8px 0 16px}
td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f3f3f3}td:first-child{text-align:left}
.frame{fill:#fff;stroke:#888}.grid{stroke:#eee}.tick{font-size:11px;fill:#555}.axis{font-size:12px;fill:#333}
.label{font-size:11px;fill:#333}polyline,line.h0,line.h1,line.h2,line.h3{fill:none;stroke-width:2}
.c0{stroke:#1f77b4}.c1{stroke:#2ca02c}.c2{stroke:#9467bd}.c3{stroke:#8c564b}.c4{stroke:#17becf}.c5{stroke:#7f7f7f}
.h0{stroke:#d62728}.h1{stroke:#ff7f0e;stroke-dasharray:6 3}.h2{stroke:#bcbd22;stroke-dasharray:2 3}.h3{stroke:#e377c2}
.point{fill:#d62728;stroke:#fff}.point-label{font-size:10px;fill:#a01c1c}
ol.legend{font-size:12px;color:#333;margin:4px 0 12px;columns:2}.point.flagged{fill:#fff;stroke:#d62728;stroke-width:2}.hidden{display:none}
.tip{position:fixed;background:#333;color:#fff;padding:4px 8px;border-radius:4px;font-size:12px;pointer-events:none}
.warn{color:#8a5a00}.note{font-size:12px;color:#555;margin:2px 0}.outline p{margin:2px 0}.strong{font-weight:bold}
.aside{color:#777;font-weight:normal}details pre{background:#f7f7f7;padding:8px;overflow:auto;max-height:400px}"""

JS = """document.querySelectorAll('.toggles input').forEach(function(b){b.addEventListener('change',function(){
var s=document.getElementById(b.dataset.svg);s.querySelectorAll('.ceiling').forEach(function(g){
if(g.dataset.name===b.dataset.name){g.classList.toggle('hidden',!b.checked);}});});});
var tip=document.querySelector('.tip');document.querySelectorAll('.point').forEach(function(p){
p.addEventListener('mouseenter',function(e){tip.textContent=p.dataset.tip;tip.hidden=false;
tip.style.left=(e.clientX+12)+'px';tip.style.top=(e.clientY+12)+'px';});
p.addEventListener('mouseleave',function(){tip.hidden=true;});});"""


def run_from_doc(kind: str, doc: dict) -> dict:
    """A just-finished document in the shape of a stored run (for --html right after measuring)."""
    return {"run_id": doc.get("run_id", "(not stored)"), "kind": kind, "status": "complete",
            "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "header": {"machine": doc.get("machine"), "environment": doc.get("environment"), "command": sys.argv},
            "result": doc}


def write_html(runs: list[dict], path) -> None:
    Path(path).write_text(render_html(runs), encoding="utf-8")


def _result(run: dict) -> dict:
    """A stored run's document ({} for a run without one)."""
    return read(Stored, run).result or {}


def ceiling_comparison(runs: list[dict]) -> tuple[list[str], list[list]] | None:
    """One table of the ceilings of several measure runs, with each run's ratio to the first."""
    withc = [r for r in runs if _result(r).get("ceilings")]
    if len(withc) < 2:
        return None
    keys, vals = [], []
    for r in withc:
        v = {}
        for c in ceilings(r["result"], "compute"):
            v[(c["name"], c.get("threads", "—"))] = c.get("flops_per_s")
        for b in ceilings(r["result"], "bandwidth"):
            v[(f"{b['level']} {b['kernel']}", b.get("threads", "—"))] = b.get("bytes_per_s")
        vals.append(v)
        keys += [k for k in v if k not in keys]
    cols = ["ceiling", "threads"] + [tr("run {id}", id=r["run_id"]) for r in withc] + \
        [tr("run {a} / run {b}", a=r["run_id"], b=withc[0]["run_id"]) for r in withc[1:]]
    rows = []
    for k in keys:
        base = vals[0].get(k)
        row = [k[0], k[1]] + [v.get(k) for v in vals]
        row += [(v.get(k) / base) if base and v.get(k) else None for v in vals[1:]]
        rows.append(row)
    return cols, rows


def section_html(run: dict, uid: str) -> str:
    """One run as an HTML section: roofline, tables, observations, warnings and the record."""
    doc = run.get("result") or {}

    title = f"{tr('run {id}', id=run['run_id'])} · {run['kind']} · {run['created']} · {run['status']}"
    obs = "".join(f"<li>{_e(text(o))}</li>" for o in doc.get("observations", []))
    warns = "".join(f"<li class='warn'>{_e(warning_text(w))}</li>" for w in doc.get("warnings", []))
    header = run.get("header", {})
    record = {"machine": header.get("machine"), "environment": header.get("environment"),
              "command": header.get("command")}
    return (f"<section><h2>{_e(title)}</h2>{roofline_svg(doc, uid, run.get('kind'))}{_declared(doc, run.get('kind'))}"
            f"<h3>{_e(tr('Observations'))}</h3><ul>{obs}</ul>" +
            (f"<h3>{_e(tr('Warnings'))}</h3><ul>{warns}</ul>" if warns else "") +
            f"<details><summary>{_e(tr('Machine and environment record'))}</summary><pre>"
            f"{_e(json.dumps(record, indent=2, default=str))}</pre></details></section>")


def render_html(runs: list[dict]) -> str:
    """Stored runs (as `Store.get` returns them) -> one self-contained page; two `measure` runs or more are also
    overlaid, with their ceilings side by side."""
    parts = []
    # machines or dates side by side: the measure runs (a bench run's roofs are a measure's, at one thread count)
    overlay = [(f"run {r['run_id']}", r["result"]) for r in runs
               if r.get("kind") in ("measure", "measure.gpu") and _result(r).get("roofs")]
    if len(overlay) >= 2:
        cmp = ceiling_comparison(runs)
        table = ""
        if cmp:
            cols, rows = cmp
            table = _table([column_label(c) for c in cols], [[_fmt("", v) for v in r] for r in rows])
        parts.append(f"<section><h2>{_e(tr('Overlay of {n} runs', n=len(overlay)))}</h2>"
                     f"{roofline_svg(overlay, 'overlay')}{table}</section>")
    for i, run in enumerate(runs):
        parts.append(section_html(run, f"roof{i}"))
    title = _e(tr("rooflab report"))
    return (f"<!DOCTYPE html><html lang='{get_lang()}'><head><meta charset='utf-8'><title>{title}</title>"
            f"<style>{CSS}</style></head><body><h1>{title}</h1>{''.join(parts)}<script>{JS}</script>"
            "</body></html>")

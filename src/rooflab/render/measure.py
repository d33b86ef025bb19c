"""Terminal report of a `measure` document: ceilings, plateaus, sweep, the ASCII roofline, observations."""

from __future__ import annotations

from rich.console import Console

from rooflab.i18n import text, tr
from rooflab.interpret.common import bound_word, status_word
from rooflab.render.ascii import MARKS, ascii_roofline
from rooflab.render.roofs import marked, roofline_of
from rooflab.render.text import (esc, heading, render_machine, render_mpi, render_observations, render_warnings, styled,
                                 table)
from rooflab.units import binary_bytes, pct, seconds, si


def ci_range(c, unit):
    return f"{si(c[0], '')}–{si(c[1], unit)}" if c else "—"


class Notes:
    """The reasons behind a table's statuses, numbered once each and printed under the table: a status cell stays
    one short word and a number, however long its reason."""

    def __init__(self):
        self.reasons: list[str] = []

    def cell(self, x: dict) -> str:
        st = x.get("status", "ok")
        if st == "ok":
            return tr("ok")
        color = "yellow" if st == "disturbed" else "red"
        why = text(x.get("reason") or "")
        if not why:
            return styled(f"[{color}]{esc(status_word(st))}[/]")
        if why not in self.reasons:
            self.reasons.append(why)
        return styled(f"[{color}]{esc(status_word(st))}[/] [{self.reasons.index(why) + 1}]")

    def print(self, console: Console) -> None:
        for i, why in enumerate(self.reasons, 1):
            console.print(f"  [{i}] {why}", markup=False, highlight=False)


def render_sweep(pts: list[dict], title: str, console: Console) -> None:
    """The batch sweep's table (CPU or GPU): each point marked as on the ASCII roofline."""
    rows = []
    for i, p in enumerate(pts):
        rows.append([MARKS[i % len(MARKS)], p["B"], f"{p['intensity']:.1f}", seconds(p["time_s"]),
                     si(p["flops_per_s"], "FLOP/s"), si(p["predicted_flops_per_s"], "FLOP/s"),
                     pct(p["of_predicted"]), pct(p["of_peak"]), si(p["bytes_per_s"], "B/s"),
                     styled(f"[red]{esc(tr('above roof'))}[/]") if p["above_roof"] else bound_word(p["bound"])])
    console.print(table(title, [tr("pt"), "B", "FLOP/B", tr("time"), tr("achieved"), tr("roofline"), tr("of roofline"),
                                tr("of peak"), tr("eff. bytes/s"), tr("bound")], rows))


def render_measure(doc: dict, console: Console) -> None:
    m = doc["machine"]
    info = doc.get("sweep_info") or {}
    mode = tr("quick (a first look: fewer samples, smaller sizes)") if doc.get("quick") else tr("full")
    console.print(heading("rooflab measure", f" · {mode} · " + tr("all threads = {n}", n=doc["threads_all"]) + " · "
                          + tr("run {id}", id=doc.get("run_id", "—"))))
    render_machine(m, console)
    rows, notes = [], Notes()
    for c in doc["ceilings"]["compute"]:
        rows.append([c["name"], c["threads"], si(c.get("flops_per_s"), "FLOP/s"),
                     ci_range(c.get("ci95"), "FLOP/s"),
                     c.get("samples", "—"), pct(c.get("of_theoretical"), 1),
                     tr("{fma} FMA/{mul}M/{add}A, {spills} spill", fma=c["audit"]["fma"], mul=c["audit"]["fp_mul"],
                        add=c["audit"]["fp_add"], spills=c["audit"]["spills"]) if c.get("audit") else "—",
                     notes.cell(c)])
    console.print(table(tr("Compute ceilings (median, 95% CI; % of theoretical at the clock measured beside each)"),
                        [tr("kernel"), tr("threads"), "FLOP/s", tr("95% CI"), "n", tr("of theor."), tr("loop audit"),
                         tr("status")], rows))
    notes.print(console)
    rows, notes = [], Notes()
    for b in doc["ceilings"]["bandwidth"]:
        rows.append([b["level"], b["kernel"], b["threads"], si(b.get("bytes_per_s"), "B/s"),
                     ci_range(b.get("ci95"), "B/s"), b.get("samples", "—"), binary_bytes(b.get("working_set_bytes")),
                     notes.cell(b)])
    console.print(table(tr("Bandwidth ceilings (re-measured well inside each plateau; STREAM byte counts)"),
                        [tr("level"), tr("kernel"), tr("threads"), tr("bytes/s"), tr("95% CI"), "n", tr("working set"),
                         tr("status")], rows))
    notes.print(console)
    caches = m.get("caches") or {}
    rows = []
    for sw in doc.get("bandwidth_sweeps", []):
        for p in sw["plateaus"]:
            exp = p.get("expected_bytes")
            rows.append([sw["kernel"], sw["threads"], p["level"], f"{binary_bytes(p['start_bytes'])} – "
                         f"{binary_bytes(p['end_bytes'])}", binary_bytes(exp) if exp else
                         (binary_bytes(caches.get(p["level"])) if p["level"] in caches else "—"),
                         si(p["median"], "B/s"), p["points"]])
    console.print(table(tr("Plateaus found in the working-set sweeps (vs capacity the threads see)"),
                        [tr("kernel"), tr("threads"), tr("level"), tr("working sets"), tr("cache capacity"), tr("median"),
                         tr("points")], rows))
    for sw in doc.get("bandwidth_sweeps", []):
        if sw.get("refused"):
            console.print(f"[red]{esc(tr('{kernel} loop audit', kernel=sw['kernel']))}[/]: {esc(text(sw['refused']))}")
    pts = doc.get("sweep") or []
    if pts:
        d = info.get("D")
        render_sweep(pts, tr("Batch sweep X[B,{d}]·W[{d},{d}] fp32 on {t} thread(s)", d=d, t=info.get("threads"))
                     + (tr(" — quick mode: smaller D than the full 8192") if doc.get("quick") else ""), console)
    elif info.get("skipped"):
        console.print(tr("batch sweep skipped: {why}", why=text(info["skipped"])), markup=False)
    r = doc.get("roofs") or {}
    comp = [(c["name"], c["value"]) for c in r.get("compute", [])]
    mem = [(x["name"], x["value"]) for x in r.get("memory", [])]
    declared = roofline_of(doc)[2]
    pp = marked(declared)
    console.print("")
    width = max(40, min(100, console.width - 12))
    for line in ascii_roofline(comp, mem, pp, width=width,
                               title=tr("Roofline of this machine ({n} threads)", n=r.get("threads", doc["threads_all"]))):
        console.print(line, markup=False, highlight=False)
    if pp:
        console.print(tr("  points: ") + ", ".join(f"{p.label}: {q.label}" + (tr(" (above roof)") if p.flagged else "")
                                                   for p, q in zip(pp, declared)), markup=False)
    render_mpi(doc, console)
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)

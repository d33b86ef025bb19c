"""Terminal report of a `measure` document: ceilings, plateaus, sweep, the ASCII roofline, observations."""

from __future__ import annotations

from rich.console import Console

from .ascii import MARKS, Point, ascii_roofline
from .format import binary_bytes, pct, seconds, si
from .text import render_machine, render_mpi, render_observations, render_warnings, renderer, table


def _ci(c, unit):
    return f"{si(c[0], '')}–{si(c[1], unit)}" if c else "—"


def _status(x: dict) -> str:
    st = x.get("status", "ok")
    return "ok" if st == "ok" else f"[red]{st}[/]: {x.get('reason') or ''}"


def roof_points(doc: dict) -> list[Point]:
    return [Point(MARKS[i % len(MARKS)], p["intensity"], p["flops_per_s"], p["above_roof"])
            for i, p in enumerate(doc.get("sweep") or [])]


@renderer("measure")
def render_measure(doc: dict, console: Console) -> None:
    m = doc["machine"]
    info = doc.get("sweep_info") or {}
    mode = "quick (a first look: fewer samples, smaller sizes)" if doc.get("quick") else "full"
    console.print(f"[bold]rooflab measure[/] · {mode} · all threads = {doc['threads_all']} · "
                  f"run {doc.get('run_id', '—')}")
    render_machine(m, console)
    rows = []
    for c in doc["ceilings"]["compute"]:
        rows.append([c["name"], c["threads"], si(c.get("flops_per_s"), "FLOP/s"), _ci(c.get("ci95"), "FLOP/s"),
                     c.get("samples", "—"), pct(c.get("of_theoretical"), 1),
                     f"{c['audit']['fma']} FMA/{c['audit']['fp_mul']}M/{c['audit']['fp_add']}A, "
                     f"{c['audit']['spills']} spill" if c.get("audit") else "—", _status(c)])
    console.print(table("Compute ceilings (median, 95% CI; % of theoretical at the clock measured beside each)",
                        ["kernel", "threads", "FLOP/s", "95% CI", "n", "of theor.", "loop audit", "status"], rows))
    rows = []
    for b in doc["ceilings"]["bandwidth"]:
        rows.append([b["level"], b["kernel"], b["threads"], si(b.get("bytes_per_s"), "B/s"),
                     _ci(b.get("ci95"), "B/s"), b.get("samples", "—"), binary_bytes(b.get("working_set_bytes")),
                     _status(b)])
    console.print(table("Bandwidth ceilings (re-measured at each plateau's centre; STREAM byte counts)",
                        ["level", "kernel", "threads", "bytes/s", "95% CI", "n", "working set", "status"], rows))
    caches = m.get("caches") or {}
    rows = []
    for sw in doc.get("bandwidth_sweeps", []):
        for p in sw["plateaus"]:
            exp = p.get("expected_bytes")
            rows.append([sw["kernel"], sw["threads"], p["level"], f"{binary_bytes(p['start_bytes'])} – "
                         f"{binary_bytes(p['end_bytes'])}", binary_bytes(exp) if exp else
                         (binary_bytes(caches.get(p["level"])) if p["level"] in caches else "—"),
                         si(p["median"], "B/s"), p["points"]])
    console.print(table("Plateaus found in the working-set sweeps (vs capacity the threads see)",
                        ["kernel", "threads", "level", "working sets", "cache capacity", "median", "points"], rows))
    for sw in doc.get("bandwidth_sweeps", []):
        if sw.get("refused"):
            console.print(f"[red]{sw['kernel']} loop audit[/]: {sw['refused']}")
    pts = doc.get("sweep") or []
    if pts:
        rows = []
        for i, p in enumerate(pts):
            rows.append([MARKS[i % len(MARKS)], p["B"], f"{p['intensity']:.1f}", seconds(p["time_s"]),
                         si(p["flops_per_s"], "FLOP/s"), si(p["predicted_flops_per_s"], "FLOP/s"),
                         pct(p["of_predicted"]), pct(p["of_peak"]), si(p["bytes_per_s"], "B/s"),
                         "[red]above roof[/]" if p["above_roof"] else p["bound"]])
        d = info.get("D")
        console.print(table(f"Batch sweep X[B,{d}]·W[{d},{d}] fp32 on {info.get('threads')} thread(s)"
                            + (" — quick mode: smaller D than the full 8192" if doc.get("quick") else ""),
                            ["pt", "B", "FLOP/B", "time", "achieved", "roofline", "of roofline", "of peak",
                             "eff. bytes/s", "bound"], rows))
    elif info.get("skipped"):
        console.print(f"batch sweep skipped: {info['skipped']}")
    r = doc.get("roofs") or {}
    comp = [(c["name"], c["value"]) for c in r.get("compute", [])]
    mem = [(x["name"], x["value"]) for x in r.get("memory", [])]
    pp = roof_points(doc)
    console.print("")
    width = max(40, min(100, console.width - 12))
    for line in ascii_roofline(comp, mem, pp, width=width,
                               title=f"Roofline of this machine ({doc['threads_all']} threads)"):
        console.print(line, markup=False, highlight=False)
    if pp:
        console.print("  points: " + ", ".join(f"{p.label}: B={q['B']}" + (" (above roof)" if p.flagged else "")
                                               for p, q in zip(pp, pts)), markup=False)
    render_mpi(doc, console)
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)

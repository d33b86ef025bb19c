"""Terminal report of `measure --device cuda`: the GPU, its ceilings against theory, the sweeps, the roofline."""

from __future__ import annotations

from rich.console import Console

from rooflab.i18n import text, tr
from rooflab.render.ascii import ascii_roofline
from rooflab.render.measure import Notes, ci_range, render_sweep
from rooflab.render.roofs import marked, roofline_of
from rooflab.render.text import esc, heading, kv_table, render_observations, render_warnings, table
from rooflab.units import binary_bytes, pct, si


def _ghz(hz) -> str:
    return f"{hz / 1e9:.3f} GHz" if hz else "—"


def render_gpu(doc: dict, console: Console) -> None:
    g = doc["gpu"]
    mode = tr("quick (a first look: fewer samples, smaller sizes)") if doc.get("quick") else tr("full")
    console.print(heading("rooflab measure --device cuda", f" · {mode} · " + tr("run {id}", id=doc.get("run_id", "—"))))
    th = doc["theoretical"]
    rows = [[tr("GPU"), g["name"]], [tr("compute capability"), g["compute_capability"]],
            [tr("architecture"), th.get("arch") or tr("not in rooflab's table")],
            ["SM", str(g["sms"])], ["L2", binary_bytes(g.get("l2_bytes"))],
            [tr("memory"), binary_bytes(g.get("memory_bytes"))],
            [tr("memory bus"), tr("{bits} bits at {ghz} (memory clock)", bits=g.get("bus_width_bits") or "?",
                                  ghz=_ghz(g.get("memory_clock_hz")))],
            [tr("SM clock"), tr("{now} measured during the run; maximum {max}", now=_ghz(th.get("sm_clock_hz")),
                                max=_ghz(g.get("max_sm_clock_hz")))],
            [tr("driver / runtime"), f"{g.get('driver') or '?'} / {g.get('runtime') or '?'}"]]
    console.print(kv_table(tr("GPU"), rows))
    if th.get("flops") or th.get("hbm_bytes_per_s"):
        rows = [[p, si(v, "FLOP/s")] for p, v in th["flops"].items()]
        rows.append(["HBM", si(th.get("hbm_bytes_per_s"), "B/s")])
        console.print(table(tr("Theoretical peaks at the measured SM clock ({ghz})", ghz=_ghz(th.get("sm_clock_hz"))),
                            [tr("precision"), tr("peak")], rows))
        if th.get("source"):
            console.print(f"  [dim]{esc(str(th['source']))}[/]", highlight=False)
    rows, notes = [], Notes()
    for c in doc["ceilings"]["compute"]:
        rows.append([c["name"], si(c.get("flops_per_s"), "FLOP/s"), ci_range(c.get("ci95"), "FLOP/s"),
                     c.get("samples", "—"), _ghz(c.get("clock_hz_during")), pct(c.get("of_theoretical"), 1),
                     notes.cell(c)])
    console.print(table(tr("Compute ceilings (median, 95% CI; % of theoretical at the SM clock during each)"),
                        [tr("kernel"), "FLOP/s", tr("95% CI"), "n", tr("SM clock"), tr("of theor."), tr("status")],
                        rows))
    notes.print(console)
    rows, notes = [], Notes()
    for b in doc["ceilings"]["bandwidth"]:
        rows.append([b["level"], b["kernel"], si(b.get("bytes_per_s"), "B/s"), ci_range(b.get("ci95"), "B/s"),
                     b.get("samples", "—"), binary_bytes(b.get("working_set_bytes")), pct(b.get("of_theoretical"), 1),
                     notes.cell(b)])
    console.print(table(tr("Bandwidth ceilings (STREAM byte counts; HBM against 2 x memory clock x bus width)"),
                        [tr("level"), tr("kernel"), tr("bytes/s"), tr("95% CI"), "n", tr("working set"),
                         tr("of theor."), tr("status")], rows))
    notes.print(console)
    ref = doc.get("reference") or {}
    if ref.get("bytes_per_s"):
        console.print(tr("reference: cudaMemcpy device to device {bw} over {ws}; HBM copy / memcpy = {r}",
                         bw=si(ref["bytes_per_s"], "B/s"), ws=binary_bytes(ref["working_set_bytes"]),
                         r=f"{ref['copy_over_d2d']:.3f}" if ref.get("copy_over_d2d") else "—"))
    rows = []
    for sw in doc.get("bandwidth_sweeps", []):
        for p in sw["plateaus"]:
            rows.append([sw["kernel"], p["level"], f"{binary_bytes(p['start_bytes'])} – {binary_bytes(p['end_bytes'])}",
                         binary_bytes(p.get("expected_bytes")), si(p["median"], "B/s"), p["points"]])
    console.print(table(tr("Plateaus found in the working-set sweeps"),
                        [tr("kernel"), tr("level"), tr("working sets"), tr("cache capacity"), tr("median"),
                         tr("points")], rows))
    pts = doc.get("sweep") or []
    info = doc.get("sweep_info") or {}
    if pts:
        render_sweep(pts, tr("Batch sweep X[B,{d}]·W[{d},{d}] {dtype} on the GPU", d=info["D"], dtype=info["dtype"]),
                     console)
    elif info.get("skipped"):
        console.print(tr("batch sweep skipped: {why}", why=text(info["skipped"])), markup=False)
    r = doc.get("roofs") or {}
    console.print("")
    for line in ascii_roofline([(c["name"], c["value"]) for c in r.get("compute", [])],
                               [(m["name"], m["value"]) for m in r.get("memory", [])], marked(roofline_of(doc)[2]),
                               width=max(40, min(100, console.width - 12)), title=tr("Roofline of this GPU")):
        console.print(line, markup=False, highlight=False)
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)

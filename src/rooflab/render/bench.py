"""Terminal report of a `bench` document: each kernel's sizes, what its code printed, and the kernels on the
roofline."""

from __future__ import annotations

from rich.console import Console

from rooflab.i18n import text, tr
from rooflab.interpret.common import bound_word, status_word
from rooflab.render.ascii import ascii_roofline
from rooflab.render.explain import render_kernels
from rooflab.render.roofs import marked, roofline_of
from rooflab.render.text import (SHOWN_AT_EACH_END, esc, heading, render_mpi, render_observations, render_row_output,
                                 render_warnings, styled, table)
from rooflab.units import pct, seconds, si


def render_bench(doc: dict, console: Console) -> None:
    console.print(heading("rooflab bench", " · " + tr("roofline from {source}", source=text(doc["roofline_source"]))
                          + (tr(" · quick") if doc.get("quick") else "") + " · " + tr("run {id}", id=doc.get("run_id", "—"))))
    # the points its report declares, each marked in its row and on the ASCII roofline
    declared = roofline_of(doc)[2]
    pts = marked(declared)
    marks = {p.label: m.label for p, m in zip(declared, pts)}
    for k in doc["kernels"]:
        if k.get("error"):
            console.print(f"{k['name']}: {text(k['error'])}", markup=False, highlight=False)
            continue
        lib = k.get("library") or {}
        console.print(f"{esc(k['name'])}: {esc(k['spec']['prototype'])}  [dim]{esc(' '.join(lib.get('flags', [])))}[/]")
        rows = []
        sizes, left_out = shown_rows(k["sizes"])
        for r in sizes:
            if r is None:  # the middle of a long table
                rows.append(["…", tr("{n} more sizes (all in --json and --csv)", n=left_out), "", "", "", "", "", ""])
                continue
            size = " ".join(f"{a}={b}" for a, b in r["size"].items())
            if r.get("error"):
                rows.append([size, "—", "—", "—", "—", "—", "—", styled(f"[red]{esc(status_word(r['error_kind']))}[/]: "
                                                                        f"{esc(text(r['error']))}")])
                continue
            mark = marks.get(r["label"], " ")  # " ": no place on the roofline (no bytes, or no FLOPs)
            ci = r.get("time_ci95")
            level = r.get("ci_level", 0.95)
            note = tr(", {level:.0%} only: {n} samples", level=level, n=r.get("samples")) if level < 0.95 else ""
            rows.append([f"{mark} {size}", f"{seconds(r['time_s'])} ({seconds(ci[0])}–{seconds(ci[1])}{note})",
                         si(r["flops_per_s"], "FLOP/s"), si(r["bytes_per_s"], "B/s"),
                         f"{r['intensity']:.3g}" if isinstance(r.get("intensity"), (int, float)) else "—",
                         bound_word(r.get("bound", "—")) + (f" ({r['level']})" if r.get("level") else ""),
                         pct(r.get("of_roof")),
                         (tr("wrong") if r.get("error_kind") == "wrong" else
                          (tr("ok ({err:.1e})", err=r["rel_error"]) if r.get("rel_error") is not None else
                           tr("not checked")))])
        console.print(table(tr("{name} (median time and 95% CI per call)", name=k["name"]),
                            [tr("size"), tr("time"), "FLOP/s", tr("bytes/s"), "FLOP/B", tr("bound"), tr("of roof"),
                             tr("correct")], rows))
        for r in sizes:
            if r is not None:
                render_row_output(r, console)
    r = doc.get("roofs") or {}
    if pts and r.get("compute") and r.get("memory"):
        for line in ascii_roofline([(c["name"], c["value"]) for c in r["compute"]],
                                   [(m["name"], m["value"]) for m in r["memory"]], pts,
                                   width=max(40, min(100, console.width - 12)), title=tr("Your kernels on this machine")):
            console.print(line, markup=False, highlight=False)
    render_mpi(doc, console)
    if doc.get("explain"):
        console.print(heading(tr("Why: each kernel at the size furthest below its roof"), ""))
        render_kernels(doc["explain"], console)
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)




def shown_rows(sizes: list[dict]) -> tuple[list, int]:
    """The rows a report draws of one kernel's sizes: all of them, or the first and last SHOWN_AT_EACH_END with None
    between (a saved run of a million sizes is drawn in seconds), and how many were left out."""
    n = SHOWN_AT_EACH_END
    if len(sizes) <= 2 * n + 1:
        return list(sizes), 0
    return [*sizes[:n], None, *sizes[-n:]], len(sizes) - 2 * n



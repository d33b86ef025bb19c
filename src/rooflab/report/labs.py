"""Terminal reports of the labs."""

from __future__ import annotations

from rich.console import Console

from .format import pct, seconds, si
from .text import render_mpi, render_observations, render_warnings, renderer, table


@renderer("lab.fma")
def render_fma(doc: dict, console: Console) -> None:
    console.print(f"[bold]rooflab lab fma[/] · {doc['precision']} · {doc['vector_bits']}-bit vectors · "
                  f"{doc['vector_registers']} vector registers" + (" · quick" if doc.get("quick") else "")
                  + f" · run {doc.get('run_id', '—')}")
    rows = []
    best = max((p.get("flops_per_s") or 0 for p in doc["points"]), default=0) or 1
    for p in doc["points"]:
        if not p.get("flops_per_s"):
            rows.append([p["chains"], "—", "—", "—", "—", p.get("error", "")])
            continue
        bar = "#" * max(1, round(30 * p["flops_per_s"] / best))
        a = p.get("audit") or {}
        rows.append([p["chains"], si(p["flops_per_s"], "FLOP/s"), f"{p['fma_per_cycle']:.2f}", pct(p.get("of_peak"), 1),
                     f"{a.get('fma', '?')} FMA, {a.get('spills', '?')} spill" + (" [red](spills)[/]"
                                                                                 if a.get("spills") else ""), bar])
    console.print(table("FMA chains on one core (median; FMAs per cycle at the clock measured beside each)",
                        ["chains", "FLOP/s", "FMA/cycle", "of peak", "loop audit", ""], rows))
    a = doc.get("analysis") or {}
    if a.get("latency_cycles"):
        console.print(f"latency {a['latency_cycles']:.2f} cycles × throughput {a['throughput_fma_per_cycle']:.2f} "
                      f"FMA/cycle = {a['littles_law_chains']:.1f} chains needed (Little's law); measured saturation at "
                      f"{a['saturation_chains']} chains")
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)


@renderer("lab.ladder")
def render_ladder(doc: dict, console: Console) -> None:
    gp = doc.get("gemm_params") or {}
    console.print(f"[bold]rooflab lab ladder[/] · C = A·B fp32, n = {doc['n']} · microkernel {gp.get('MR')}x"
                  f"{gp.get('NR')} at {gp.get('vector_bits')} bits · peaks: {doc['peaks']['source']}"
                  + (" · quick" if doc.get("quick") else "") + f" · run {doc.get('run_id', '—')}")
    rows = []
    for r in doc["rungs"]:
        if not r.get("flops_per_s"):
            rows.append([r["name"], r["threads"], "—", "—", "—", "—", "—", r.get("error", "")])
            continue
        lo, hi = r["ratio_to_blas_ci95"]
        rows.append([r["name"], r["threads"], seconds(r["time_s"]), si(r["flops_per_s"], "FLOP/s"), pct(r.get("of_peak")),
                     f"{r['ratio_to_blas']:.2f}x ({lo:.2f}–{hi:.2f})", f"{r['rel_error']:.1e}",
                     r.get("audit_problem") or ("ok" if r["own"] else "reference")])
    console.print(table("GEMM ladder (median; ratio to BLAS at the same thread count, paired rounds, 95% CI)",
                        ["rung", "threads", "time", "FLOP/s", "of peak", "vs BLAS", "rel. error", "check"], rows))
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)


def _gemm_rows(rows: list[dict], cols) -> list[list]:
    out = []
    for r in rows:
        if not r.get("flops_per_s"):
            out.append([r["name"]] + ["—"] * (len(cols) - 2) + [r.get("error", "")])
            continue
        out.append([r["name"]] + [c(r) for c in cols[1:-1]] + [f"{r['rel_error']:.1e}"])
    return out


def _head(doc: dict, title: str, extra: str = "") -> str:
    return (f"[bold]rooflab lab {doc['lab']}[/] · {title}" + (f" · {extra}" if extra else "")
            + (" · quick" if doc.get("quick") else "") + f" · run {doc.get('run_id', '—')}")


@renderer("lab.loops")
def render_loops(doc: dict, console: Console) -> None:
    console.print(_head(doc, f"six loop orders, n = {doc['n']}"))
    cols = [None, lambda r: r["group"], lambda r: si(r["flops_per_s"], "FLOP/s"),
            lambda r: f"{r['vector_bits']}-bit" if r.get("vector_bits") else "scalar", None]
    rows = sorted(doc["orders"], key=lambda r: r["inner"])
    console.print(table("Loop orders, grouped by the innermost loop", ["order", "inner loop streams", "FLOP/s",
                                                                       "inner loop code", "rel. error"],
                        _gemm_rows(rows, cols)))
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)


@renderer("lab.blocking")
def render_blocking(doc: dict, console: Console) -> None:
    console.print(_head(doc, f"blocked GEMM, predicted BS = {doc['predicted_bs']}"))
    for case in doc["cases"]:
        cols = [None, lambda r: r["bs"] or "—", lambda r: si(r["flops_per_s"], "FLOP/s"),
                lambda r: "predicted" if r.get("bs") == doc["predicted_bs"] else "", None]
        fits = "fit" if case["fits_llc"] else "exceed"
        console.print(table(f"n = {case['n']}: A and B {fits} the last-level cache",
                            ["variant", "BS", "FLOP/s", "", "rel. error"], _gemm_rows(case["rows"], cols)))
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)


@renderer("lab.vectorize")
def render_vectorize(doc: dict, console: Console) -> None:
    console.print(_head(doc, f"{doc['kernel']}, n = {doc['n']}", doc["compiler"]["version"]))
    cols = [None, lambda r: si(r["flops_per_s"], "FLOP/s"),
            lambda r: f"{r['vector_bits']}-bit" if r.get("vector_bits") else "scalar",
            lambda r: (r.get("report") or ["(no message)"])[0][:60], None]
    console.print(table("Flags matrix", ["flags", "FLOP/s", "inner loop", "compiler's report", "rel. error"],
                        _gemm_rows(doc["flags"], cols)))
    if doc.get("contributions"):
        cols = [None, lambda r: si(r["flops_per_s"], "FLOP/s"), None]
        console.print(table("Layout and threads", ["variant", "FLOP/s", "rel. error"],
                            _gemm_rows(doc["contributions"], cols)))
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)


@renderer("lab.tiles")
def render_tiles(doc: dict, console: Console) -> None:
    console.print(_head(doc, f"register tiles, {doc['vector_registers']} x {doc['vector_bits']}-bit registers",
                        f"n = {doc['n']}"))
    cols = [None, lambda r: r["accumulators"], lambda r: f"{r['registers_needed']}/{r['registers']}",
            lambda r: f"{r['loads_per_fma']:.2f}", lambda r: r.get("spills", "?"),
            lambda r: si(r["flops_per_s"], "FLOP/s"), None]
    console.print(table("Microkernel tiles MR x NR (packed GEMM, one thread)",
                        ["tile", "accumulators", "registers", "loads/FMA", "spills", "FLOP/s", "rel. error"],
                        _gemm_rows(doc["tiles"], cols)))
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)


@renderer("bench")
def render_bench(doc: dict, console: Console) -> None:
    from .ascii import MARKS, Point, ascii_roofline

    console.print(f"[bold]rooflab bench[/] · roofline from {doc['roofline_source']}" + (" · quick" if doc.get("quick")
                                                                                       else "")
                  + f" · run {doc.get('run_id', '—')}")
    pts = []
    for k in doc["kernels"]:
        if k.get("error"):
            console.print(f"[red]{k['name']}[/]: {k['error']}", markup=False, highlight=False)
            continue
        lib = k.get("library") or {}
        console.print(f"{k['name']}: {k['spec']['prototype']}  [dim]{' '.join(lib.get('flags', []))}[/]")
        rows = []
        for r in k["sizes"]:
            size = " ".join(f"{a}={b}" for a, b in r["size"].items())
            if r.get("error"):
                rows.append([size, "—", "—", "—", "—", "—", "—", f"[red]{r['error_kind']}[/]: {r['error']}"])
                continue
            mark = MARKS[len(pts) % len(MARKS)]
            pts.append(Point(mark, r["intensity"], r["flops_per_s"], r.get("above_roof", False)))
            ci = r.get("time_ci95")
            rows.append([f"{mark} {size}", f"{seconds(r['time_s'])} ({seconds(ci[0])}–{seconds(ci[1])})",
                         si(r["flops_per_s"], "FLOP/s"), si(r["bytes_per_s"], "B/s"), f"{r['intensity']:.3g}",
                         f"{r.get('bound', '—')}" + (f" ({r['level']})" if r.get("level") else ""),
                         pct(r.get("of_roof")),
                         ("wrong" if r.get("error_kind") == "wrong" else
                          (f"ok ({r['rel_error']:.1e})" if r.get("rel_error") is not None else "not checked"))])
        console.print(table(f"{k['name']} (median time and 95% CI per call)",
                            ["size", "time", "FLOP/s", "bytes/s", "FLOP/B", "bound", "of roof", "correct"], rows))
    r = doc.get("roofs") or {}
    if pts and r.get("compute") and r.get("memory"):
        for line in ascii_roofline([(c["name"], c["value"]) for c in r["compute"]],
                                   [(m["name"], m["value"]) for m in r["memory"]], pts,
                                   width=max(40, min(100, console.width - 12)), title="Your kernels on this machine"):
            console.print(line, markup=False, highlight=False)
    render_mpi(doc, console)
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)


@renderer("compare")
def render_compare(doc: dict, console: Console) -> None:
    a = doc["a"].get("name", f"run {doc['a'].get('run_id')}")
    b = doc["b"].get("name", f"run {doc['b'].get('run_id')}")
    console.print(f"[bold]rooflab compare[/] · A = {a} · B = {b} · threshold {doc['threshold']:.0%} · "
                  f"run {doc.get('run_id', '—')}")
    rows = []
    for r in doc["rows"]:
        where = " ".join(f"{k}={v}" for k, v in r["size"].items())
        if doc["mode"] == "runs":
            where = f"{r['kernel']} {where}"
        if r.get("error"):
            rows.append([where, "—", "—", "—", "—", r["error"]])
            continue
        lo, hi = r["speedup_ci95"]
        rows.append([where, seconds(r["a_time_s"]), seconds(r["b_time_s"]), f"{r['speedup']:.3f}x",
                     f"{lo:.3f}–{hi:.3f}", r["verdict"]])
    console.print(table("B against A (speed-up = time of A / time of B)",
                        ["size", "A", "B", "speed-up", "95% CI", "verdict"], rows))
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)


@renderer("profile")
def render_profile(doc: dict, console: Console) -> None:
    size = " ".join(f"{k}={v}" for k, v in doc["size"].items())
    console.print(f"[bold]rooflab profile[/] · {doc['kernel']['name']} at {size} · {doc['calls']} call(s) · method: "
                  f"{doc['method']} · run {doc.get('run_id', '—')}")
    c = doc["counters"]
    rows = [[k, f"{v:.6g}" if isinstance(v, (int, float)) else "not counted"] for k, v in c.items()]
    console.print(table("Counters" + (" (per call, kernel function only)" if doc["method"] == "cachegrind" else
                                      " (whole driver run)"), ["event", "value"], rows))
    for key, title in (("hotspots", "Hot functions (perf record)"), ("hot_lines", "Hot source lines (perf record)")):
        if doc.get(key):
            console.print(table(title, ["where", "% of samples"],
                                [[h["symbol"], f"{h['percent']:.1f}"] for h in doc[key]]))
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)


@renderer("lab.threads")
def render_threads(doc: dict, console: Console) -> None:
    console.print(_head(doc, f"scaling to {doc['counts'][-1]} threads"))
    rows = []
    for g, t in zip(doc["gemm"], doc["triad"]):
        rows.append([g["threads"], si(g.get("flops_per_s"), "FLOP/s"),
                     f"{g['speedup']:.2f}x" if g.get("speedup") else "—", pct(g.get("efficiency")),
                     si(t.get("bytes_per_s"), "B/s"), f"{t['speedup']:.2f}x" if t.get("speedup") else "—",
                     pct(t.get("efficiency"))])
    console.print(table(f"GEMM n = {doc['gemm_n']} (compute-bound) and triad in DRAM (bandwidth-bound)",
                        ["threads", "GEMM", "speed-up", "eff.", "triad", "speed-up", "eff."], rows))
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)


@renderer("lab.imbalance")
def render_imbalance(doc: dict, console: Console) -> None:
    console.print(_head(doc, f"{doc['rows']} rows on {doc['threads']} threads"))
    rows = []
    for c in doc["cases"]:
        if c.get("error"):
            rows.append([c["name"], "—", "—", "—", c["error"]])
            continue
        rows.append([c["name"], seconds(c["wall_s"]), " / ".join(seconds(b) for b in c["busy_s"]),
                     pct(c["idle_fraction"]), c["what"]])
    console.print(table("Work split", ["split", "wall", "busy per thread", "idle at barrier", ""], rows))
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)


@renderer("lab.numa")
def render_numa(doc: dict, console: Console) -> None:
    console.print(_head(doc, f"{len(doc['topology'])} NUMA node(s)"))
    if doc["pairs"]:
        rows = [[p["cpu_node"], p["memory_node"], "local" if p["local"] else "remote",
                 f"{p['latency_s'] * 1e9:.0f} ns", si(p["bandwidth_bytes_per_s"], "B/s")] for p in doc["pairs"]]
        console.print(table("Local and remote memory", ["CPU node", "memory node", "", "latency", "triad"], rows))
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)

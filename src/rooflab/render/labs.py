"""Terminal reports of the labs."""

from __future__ import annotations

from rich.console import Console

from rooflab.i18n import text, tr
from rooflab.units import drawable, pct, seconds, si
from rooflab.render.measure import bound_word, status_word
from rooflab.render.text import esc, heading, render_mpi, render_observations, render_warnings, renderer, styled, table


@renderer("lab.fma")
def render_fma(doc: dict, console: Console) -> None:
    console.print(heading("rooflab lab fma", f" · {doc['precision']} · "
                          + tr("{bits}-bit vectors · {n} vector registers", bits=doc["vector_bits"],
                               n=doc["vector_registers"])
                          + (tr(" · quick") if doc.get("quick") else "") + " · " + tr("run {id}", id=doc.get("run_id", "—"))))
    rows = []
    best = max((p.get("flops_per_s") or 0 for p in doc["points"]), default=0) or 1
    for p in doc["points"]:
        if not p.get("flops_per_s"):
            rows.append([p["chains"], "—", "—", "—", "—", text(p.get("error", ""))])
            continue
        bar = "#" * max(1, round(30 * p["flops_per_s"] / best))
        a = p.get("audit") or {}
        rows.append([p["chains"], si(p["flops_per_s"], "FLOP/s"), f"{p['fma_per_cycle']:.2f}", pct(p.get("of_peak"), 1),
                     styled(esc(tr("{fma} FMA, {spills} spill", fma=a.get("fma", "?"), spills=a.get("spills", "?")))
                            + (f" [red]{esc(tr('(spills)'))}[/]" if a.get("spills") else "")), bar])
    console.print(table(tr("FMA chains on one core (median; FMAs per cycle at the clock measured beside each)"),
                        [tr("chains"), "FLOP/s", tr("FMA/cycle"), tr("of peak"), tr("loop audit"), ""], rows))
    a = doc.get("analysis") or {}
    if a.get("latency_cycles"):
        console.print(tr("latency {lat:.2f} cycles × throughput {thr:.2f} FMA/cycle = {need:.1f} chains needed "
                         "(Little's law); measured saturation at {sat} chains", lat=a["latency_cycles"],
                         thr=a["throughput_fma_per_cycle"], need=a["littles_law_chains"], sat=a["saturation_chains"]),
                      markup=False)
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)


@renderer("lab.ladder")
def render_ladder(doc: dict, console: Console) -> None:
    gp = doc.get("gemm_params") or {}
    console.print(heading("rooflab lab ladder", f" · C = A·B fp32, n = {doc['n']} · "
                          + tr("microkernel {mr}x{nr} at {bits} bits · peaks: {source}", mr=gp.get("MR"),
                               nr=gp.get("NR"), bits=gp.get("vector_bits"), source=text(doc["peaks"]["source"]))
                          + (tr(" · quick") if doc.get("quick") else "") + " · " + tr("run {id}", id=doc.get("run_id", "—"))))
    rows = []
    for r in doc["rungs"]:
        if not r.get("flops_per_s"):
            rows.append([r["name"], r["threads"], "—", "—", "—", "—", "—", text(r.get("error", ""))])
            continue
        lo, hi = r["ratio_to_blas_ci95"]
        rows.append([r["name"], r["threads"], seconds(r["time_s"]), si(r["flops_per_s"], "FLOP/s"), pct(r.get("of_peak")),
                     f"{r['ratio_to_blas']:.2f}x ({lo:.2f}–{hi:.2f})", f"{r['rel_error']:.1e}",
                     text(r["audit_problem"]) if r.get("audit_problem") else (tr("ok") if r["own"] else
                                                                              tr("reference"))])
    console.print(table(tr("GEMM ladder (median; ratio to BLAS at the same thread count, paired rounds, 95% CI)"),
                        [tr("rung"), tr("threads"), tr("time"), "FLOP/s", tr("of peak"), tr("vs BLAS"), tr("rel. error"),
                         tr("check")], rows))
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)


def _gemm_rows(rows: list[dict], cols) -> list[list]:
    out = []
    for r in rows:
        if not r.get("flops_per_s"):
            out.append([r["name"]] + ["—"] * (len(cols) - 2) + [text(r.get("error", ""))])
            continue
        out.append([r["name"]] + [c(r) for c in cols[1:-1]] + [f"{r['rel_error']:.1e}"])
    return out


def _head(doc: dict, title: str, extra: str = ""):
    return heading(f"rooflab lab {doc['lab']}", f" · {title}" + (f" · {extra}" if extra else "")
                   + (tr(" · quick") if doc.get("quick") else "") + " · " + tr("run {id}", id=doc.get("run_id", "—")))


@renderer("lab.loops")
def render_loops(doc: dict, console: Console) -> None:
    console.print(_head(doc, tr("six loop orders, n = {n}", n=doc["n"])))
    cols = [None, lambda r: text(r["group"]), lambda r: si(r["flops_per_s"], "FLOP/s"),
            lambda r: tr("{bits}-bit", bits=r["vector_bits"]) if r.get("vector_bits") else tr("scalar"), None]
    rows = sorted(doc["orders"], key=lambda r: r["inner"])
    console.print(table(tr("Loop orders, grouped by the innermost loop"),
                        [tr("order"), tr("inner loop streams"), "FLOP/s", tr("inner loop code"), tr("rel. error")],
                        _gemm_rows(rows, cols)))
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)


@renderer("lab.blocking")
def render_blocking(doc: dict, console: Console) -> None:
    console.print(_head(doc, tr("blocked GEMM, predicted BS = {bs}", bs=doc["predicted_bs"])))
    for case in doc["cases"]:
        cols = [None, lambda r: r["bs"] or "—", lambda r: si(r["flops_per_s"], "FLOP/s"),
                lambda r: tr("predicted") if r.get("bs") == doc["predicted_bs"] else "", None]
        title = (tr("n = {n}: A and B fit the last-level cache", n=case["n"]) if case["fits_llc"] else
                 tr("n = {n}: A and B exceed the last-level cache", n=case["n"]))
        console.print(table(title, [tr("variant"), "BS", "FLOP/s", "", tr("rel. error")],
                            _gemm_rows(case["rows"], cols)))
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)


@renderer("lab.vectorize")
def render_vectorize(doc: dict, console: Console) -> None:
    console.print(_head(doc, f"{doc['kernel']}, n = {doc['n']}", doc["compiler"]["version"]))
    cols = [None, lambda r: si(r["flops_per_s"], "FLOP/s"),
            lambda r: tr("{bits}-bit", bits=r["vector_bits"]) if r.get("vector_bits") else tr("scalar"),
            lambda r: (r.get("report") or [tr("(no message)")])[0][:60], None]
    console.print(table(tr("Flags matrix"), [tr("flags"), "FLOP/s", tr("inner loop"), tr("compiler's report"),
                                             tr("rel. error")], _gemm_rows(doc["flags"], cols)))
    if doc.get("contributions"):
        cols = [None, lambda r: si(r["flops_per_s"], "FLOP/s"), None]
        console.print(table(tr("Layout and threads"), [tr("variant"), "FLOP/s", tr("rel. error")],
                            _gemm_rows(doc["contributions"], cols)))
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)


@renderer("lab.tiles")
def render_tiles(doc: dict, console: Console) -> None:
    console.print(_head(doc, tr("register tiles, {n} x {bits}-bit registers", n=doc["vector_registers"],
                                bits=doc["vector_bits"]), f"n = {doc['n']}"))
    cols = [None, lambda r: r["accumulators"], lambda r: f"{r['registers_needed']}/{r['registers']}",
            lambda r: f"{r['loads_per_fma']:.2f}", lambda r: r.get("spills", "?"),
            lambda r: si(r["flops_per_s"], "FLOP/s"), None]
    console.print(table(tr("Microkernel tiles MR x NR (packed GEMM, one thread)"),
                        [tr("tile"), tr("accumulators"), tr("registers"), tr("loads/FMA"), tr("spills"), "FLOP/s",
                         tr("rel. error")], _gemm_rows(doc["tiles"], cols)))
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)


@renderer("bench")
def render_bench(doc: dict, console: Console) -> None:
    from rooflab.render.ascii import MARKS, Point, ascii_roofline

    console.print(heading("rooflab bench", " · " + tr("roofline from {source}", source=text(doc["roofline_source"]))
                          + (tr(" · quick") if doc.get("quick") else "") + " · " + tr("run {id}", id=doc.get("run_id", "—"))))
    pts = []
    for k in doc["kernels"]:
        if k.get("error"):
            console.print(f"{k['name']}: {text(k['error'])}", markup=False, highlight=False)
            continue
        lib = k.get("library") or {}
        console.print(f"{esc(k['name'])}: {esc(k['spec']['prototype'])}  [dim]{esc(' '.join(lib.get('flags', [])))}[/]")
        rows = []
        for r in k["sizes"]:
            size = " ".join(f"{a}={b}" for a, b in r["size"].items())
            if r.get("error"):
                rows.append([size, "—", "—", "—", "—", "—", "—", styled(f"[red]{esc(status_word(r['error_kind']))}[/]: "
                                                                        f"{esc(text(r['error']))}")])
                continue
            if drawable(r.get("intensity")) and drawable(r.get("flops_per_s")):
                mark = MARKS[len(pts) % len(MARKS)]
                pts.append(Point(mark, r["intensity"], r["flops_per_s"], r.get("above_roof", False)))
            else:
                mark = " "  # no place on the roofline (no bytes, or no FLOPs)
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
        for r in k["sizes"]:
            for stream in ("stdout", "stderr"):
                said = (r.get("output") or {}).get(stream)
                if said:
                    console.print(tr("{label} printed on {stream}:", label=r["label"], stream=stream), markup=False,
                                  highlight=False)
                    for line in printed_lines(said):
                        console.print("  " + line, markup=False, highlight=False)
    r = doc.get("roofs") or {}
    if pts and r.get("compute") and r.get("memory"):
        for line in ascii_roofline([(c["name"], c["value"]) for c in r["compute"]],
                                   [(m["name"], m["value"]) for m in r["memory"]], pts,
                                   width=max(40, min(100, console.width - 12)), title=tr("Your kernels on this machine")):
            console.print(line, markup=False, highlight=False)
    render_mpi(doc, console)
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)


def printed_lines(text: str, limit: int = 8) -> list[str]:
    """What a kernel printed, as a report shows it: runs of the same line gathered (a kernel printing in its loop
    prints it once per call), at most ``limit`` lines, and how many more the JSON holds."""
    runs: list[list] = []
    for line in text.rstrip("\n").split("\n"):
        if runs and runs[-1][0] == line:
            runs[-1][1] += 1
        else:
            runs.append([line, 1])
    out = [line if n == 1 else tr("{line}   (x{n})", line=line, n=n) for line, n in runs[:limit]]
    if len(runs) > limit:
        out.append(tr("... {n} more line(s): the whole output is in --json", n=sum(n for _, n in runs[limit:])))
    return out


def verdict_word(v: str) -> str:
    return {"faster": tr("faster"), "slower": tr("slower"), "no difference": tr("no difference")}.get(v, v)


@renderer("compare")
def render_compare(doc: dict, console: Console) -> None:
    a = doc["a"].get("name", f"run {doc['a'].get('run_id')}")
    b = doc["b"].get("name", f"run {doc['b'].get('run_id')}")
    console.print(heading("rooflab compare", f" · A = {a} · B = {b} · " + tr("threshold {th:.0%}", th=doc["threshold"])
                          + " · " + tr("run {id}", id=doc.get("run_id", "—"))))
    rows = []
    for r in doc["rows"]:
        where = " ".join(f"{k}={v}" for k, v in r["size"].items())
        if doc["mode"] == "runs":
            where = f"{r['kernel']} {where}"
        if r.get("error"):
            rows.append([where, "—", "—", "—", "—", text(r["error"])])
            continue
        lo, hi = r["speedup_ci95"]
        rows.append([where, seconds(r["a_time_s"]), seconds(r["b_time_s"]), f"{r['speedup']:.3f}x",
                     f"{lo:.3f}–{hi:.3f}", verdict_word(r["verdict"])])
    console.print(table(tr("B against A (speed-up = time of A / time of B)"),
                        [tr("size"), "A", "B", tr("speed-up"), tr("95% CI"), tr("verdict")], rows))
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)


@renderer("profile")
def render_profile(doc: dict, console: Console) -> None:
    size = " ".join(f"{k}={v}" for k, v in doc["size"].items())
    console.print(heading("rooflab profile", " · " + tr("{name} at {size} · {calls} call(s) · method: {method}",
                                                          name=doc["kernel"]["name"], size=size, calls=doc["calls"],
                                                          method=doc["method"])
                          + " · " + tr("run {id}", id=doc.get("run_id", "—"))))
    c = doc["counters"]
    rows = [[k, f"{v:.6g}" if isinstance(v, (int, float)) else tr("not counted")] for k, v in c.items()]
    console.print(table(tr("Counters (per call, kernel function only)") if doc["method"] == "cachegrind" else
                        tr("Counters (whole driver run)"), [tr("event"), tr("value")], rows))
    for key, title in (("hotspots", tr("Hot functions (perf record)")),
                       ("hot_lines", tr("Hot source lines (perf record)"))):
        if doc.get(key):
            console.print(table(title, [tr("where"), tr("% of samples")],
                                [[h["symbol"], f"{h['percent']:.1f}"] for h in doc[key]]))
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)


@renderer("lab.threads")
def render_threads(doc: dict, console: Console) -> None:
    console.print(_head(doc, tr("scaling to {n} threads", n=doc["counts"][-1])))
    rows = []
    for g, t in zip(doc["gemm"], doc["triad"]):
        rows.append([g["threads"], si(g.get("flops_per_s"), "FLOP/s"),
                     f"{g['speedup']:.2f}x" if g.get("speedup") else "—", pct(g.get("efficiency")),
                     si(t.get("bytes_per_s"), "B/s"), f"{t['speedup']:.2f}x" if t.get("speedup") else "—",
                     pct(t.get("efficiency"))])
    console.print(table(tr("GEMM n = {n} (compute-bound) and triad in DRAM (bandwidth-bound)", n=doc["gemm_n"]),
                        [tr("threads"), "GEMM", tr("speed-up"), tr("eff."), "triad", tr("speed-up"), tr("eff.")], rows))
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)


@renderer("lab.imbalance")
def render_imbalance(doc: dict, console: Console) -> None:
    console.print(_head(doc, tr("{rows} rows on {t} threads", rows=doc["rows"], t=doc["threads"])))
    rows = []
    for c in doc["cases"]:
        if c.get("error"):
            rows.append([c["name"], "—", "—", "—", text(c["error"])])
            continue
        rows.append([c["name"], seconds(c["wall_s"]), " / ".join(seconds(b) for b in c["busy_s"]),
                     pct(c["idle_fraction"]), text(c["what"])])
    console.print(table(tr("Work split"), [tr("split"), tr("wall"), tr("busy per thread"), tr("idle at barrier"), ""],
                        rows))
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)


@renderer("lab.numa")
def render_numa(doc: dict, console: Console) -> None:
    console.print(_head(doc, tr("{n} NUMA node(s)", n=len(doc["topology"]))))
    if doc["pairs"]:
        rows = [[p["cpu_node"], p["memory_node"], tr("local") if p["local"] else tr("remote"),
                 f"{p['latency_s'] * 1e9:.0f} ns", si(p["bandwidth_bytes_per_s"], "B/s")] for p in doc["pairs"]]
        console.print(table(tr("Local and remote memory"), [tr("CPU node"), tr("memory node"), "", tr("latency"),
                                                            "triad"], rows))
    render_observations(doc.get("observations", []), console)
    render_warnings(doc.get("warnings", []), console)

"""Terminal rendering with rich. Renderers read result documents; they never measure."""

from __future__ import annotations

from typing import Callable

from rich.console import Console
from rich.table import Table

from .format import binary_bytes, pct, seconds, si

Renderer = Callable[[dict, Console], None]
RENDERERS: dict[str, Renderer] = {}


def renderer(kind: str):
    def deco(fn: Renderer) -> Renderer:
        RENDERERS[kind] = fn
        return fn
    return deco


def table(title: str, columns: list[str], rows: list[list], *, justify_numbers: bool = True) -> Table:
    t = Table(title=title, title_justify="left", header_style="bold")
    for i, c in enumerate(columns):
        t.add_column(c, justify="right" if (justify_numbers and i > 0) else "left")
    for r in rows:
        t.add_row(*[str(x) for x in r])
    return t


def kv_table(title: str, rows: list[list]) -> Table:
    t = Table(title=title, title_justify="left", show_header=False)
    t.add_column(style="bold")
    t.add_column()
    for k, v in rows:
        t.add_row(str(k), str(v))
    return t


def render_warnings(warnings: list[dict], console: Console) -> None:
    """One line per warning; several of the same kind (e.g. spread) are gathered into one line."""
    by_code: dict[str, list[dict]] = {}
    for w in warnings:
        by_code.setdefault(w["code"], []).append(w)
    for code, ws in by_code.items():
        if len(ws) == 1 or code not in ("high-spread", "unstable-clock"):
            for w in ws:
                console.print(f"[yellow]warning[/]: {w['message']} — {w['remedy']}")
            continue
        worst = max(ws, key=lambda w: w["seen"])
        subjects = ", ".join(f"{w['subject']} ({w['seen']:.1%})" for w in ws)
        what = (f"high spread (robust CV above {worst['threshold']:.0%})" if code == "high-spread" else
                f"the clock beside the kernel dipped by more than {worst['threshold']:.0%}")
        console.print(f"[yellow]warning[/]: {what} in {len(ws)} measurements: {subjects} — {worst['remedy']}")


def render_observations(obs: list[str], console: Console) -> None:
    if obs:
        console.print("[bold]Observations[/]")
        for o in obs:
            console.print(f"  • {o}")


def render_machine(m: dict, console: Console) -> None:
    isa, u = m["isa"], m["uarch"]
    rows = [
        ["CPU", m["model_name"]],
        ["micro-architecture", f"{u['name']}{' (assumed)' if u.get('assumed') else ''}"],
        ["cores", f"{m['physical_cores']} physical, {m['logical_cpus']} logical, {m['sockets']} socket(s)"],
        ["ISA", f"{isa['name']} ({', '.join(isa['features'])}); {isa['vector_registers']} x {isa['vector_bits']}-bit "
                "vector registers"],
        ["FMA", f"{u['fma_pipes']} pipe(s) x {u['fma_bits']}-bit" + (f", {u['add_pipes']} FP add pipe(s)"
                                                                      if u.get("add_pipes") else "")],
        ["caches", ", ".join(f"{c['name']} {binary_bytes(c['size'])}" + (f" x{c['instances']}" if c['instances'] > 1
                                                                         else "") for c in m.get("cache_details", [])) or "unknown"],
        ["NUMA nodes", str(len(m.get("numa_nodes") or {}) or 1)],
        ["memory", binary_bytes(m.get("memory_bytes"))],
    ]
    clk = m.get("clock")
    if clk:
        rows.append(["clock (measured)", f"{clk['hz'] / 1e9:.3f} GHz (95% CI {clk['ci95'][0] / 1e9:.3f}–"
                                         f"{clk['ci95'][1] / 1e9:.3f}; {clk['method']})"])
    else:
        rows.append(["clock", f"{m['clock_hz'] / 1e9:.3f} GHz (not measured)" if m.get("clock_hz") else "unknown"])
    th = m.get("theoretical")
    if th:
        rows.append(["peak fp64 (all cores)", si(th["fp64_flops"], "FLOP/s")])
        rows.append(["peak fp32 (all cores)", si(th["fp32_flops"], "FLOP/s")])
    console.print(kv_table("Machine", rows))
    if th:
        for a in th["assumptions"]:
            console.print(f"  [dim]{a}[/]")


def render_environment(env: dict, console: Console) -> None:
    rows = [["OS", env.get("os")], ["Python", env.get("python")], ["NumPy", env.get("numpy")]]
    for b in env.get("blas") or []:
        rows.append([f"{b.get('user_api')}", f"{b.get('internal_api')} {b.get('version')} "
                     f"({b.get('architecture') or '?'}), {b.get('num_threads')} thread(s)"])
    if env.get("thread_env"):
        rows.append(["thread settings", ", ".join(f"{k}={v}" for k, v in env["thread_env"].items())])
    aff = env.get("affinity")
    if aff is not None:
        rows.append(["CPU affinity", ",".join(map(str, aff))])
    rows.append(["governor", env.get("governor") or "not readable"])
    rows.append(["ASLR", env.get("aslr") or "not readable"])
    la = env.get("loadavg")
    rows.append(["load average", " ".join(f"{x:.2f}" for x in la) if la else "—"])
    g = env.get("git")
    rows.append(["git", f"{g['revision'][:12]}{' (dirty)' if g['dirty'] else ''}" if g else "not a git work tree"])
    console.print(kv_table("Environment", rows))


@renderer("info")
def render_info(doc: dict, console: Console) -> None:
    render_machine(doc["machine"], console)
    render_environment(doc["environment"], console)
    caps = doc["capabilities"]
    cc = caps.get("compiler")
    rows = [
        ["C compiler", f"{cc['version']} ({cc['path']}, {cc['target']})" if cc else caps.get("compiler_error", "none")],
        ["OpenMP", " ".join(caps["openmp"]["flags"]) if caps["openmp"]["available"] else "not available"],
        ["perf counters", "hardware + software" if caps["perf"]["hardware"] else
         (caps["perf"].get("reason") or "not available")],
        ["valgrind (cachegrind)", caps["valgrind"]["path"] or "not installed"],
        ["numactl", caps["numactl"]["path"] or "not installed"],
        ["objdump (assembly audit)", "yes" if caps["objdump"]["available"] else "not installed"],
    ]
    console.print(kv_table("Capabilities", rows))


def render_history(doc: dict, console: Console) -> None:
    rows = [[r["run_id"], r["created"], r["kind"], r["status"], r["hostname"] or "", r["records"], r["label"] or ""]
            for r in doc["runs"]]
    console.print(table(f"Runs in {doc['store']}", ["id", "created (UTC)", "kind", "status", "host", "records",
                                                     "label"], rows, justify_numbers=False))
    if not rows:
        console.print("  (no runs yet: `rooflab measure` makes the first)")


def render_records(records: list[dict], console: Console) -> None:
    rows = []
    for r in records:
        t = r.get("timing")
        if t:
            s = t["summary"]
            rows.append([r["name"], seconds(s["median"]), f"{seconds(s['ci95'][0])} – {seconds(s['ci95'][1])}",
                         s["n"], pct(s["cv"], 1), f"{r['rel_error']:.2g}" if r.get("rel_error") is not None else "—",
                         "ok"])
        else:
            rows.append([r["name"], "—", "—", "—", "—", "—", r.get("error") or "no timing"])
    console.print(table("Measurements", ["kernel", "median/rep", "95% CI", "n", "CV", "rel. error", "status"], rows))


def render_run(doc: dict, console: Console) -> None:
    """A stored run: the kind's own renderer when the run completed, else what it had finished."""
    result = doc.get("result")
    console.print(f"[bold]run {doc['run_id']}[/] · {doc['kind']} · {doc['created']} · {doc['status']}")
    if result is not None and doc["kind"] in RENDERERS:
        RENDERERS[doc["kind"]](result, console)
        return
    if doc["status"] != "complete":
        console.print(f"[yellow]this run did not complete ({doc['status']}); showing the "
                      f"{len(doc['records'])} measurement(s) it finished[/]")
    render_machine(doc["header"]["machine"], console)
    render_records(doc["records"], console)
    if result:
        render_warnings(result.get("warnings", []), console)


def render_mpi(doc: dict, console: Console) -> None:
    """The ranks of an MPI job, where each ran, and the job's aggregates with the spread between ranks."""
    mpi = doc.get("mpi")
    if not mpi:
        return
    rows = [[r["rank"], r["host"], ",".join(map(str, r["cpus"] or [])) or "?", r["status"], r.get("error") or ""]
            for r in mpi["ranks"]]
    console.print(table(f"MPI job: {mpi['size']} ranks on {len(mpi['hosts'])} host(s)",
                        ["rank", "host", "cpus", "status", "error"], rows, justify_numbers=False))
    aggs = mpi.get("aggregates") or {}
    parts = aggs.items() if isinstance(aggs, dict) else [("bench", aggs)]
    for part, items in parts:
        unit = "B/s" if part == "bandwidth" else "FLOP/s"
        rows = []
        for a in items:
            what = a.get("name") or a.get("label") or f"{a.get('level')} {a.get('kernel')}"
            rows.append([what, a.get("threads", ""), si(a["job"], unit),
                         "; ".join(f"{h} {si(v, unit)}" for h, v in a["nodes"].items()),
                         f"{a['spread']:.0%} (rank {a['slowest']['rank']})" if a.get("spread") else "—"])
        if rows:
            console.print(table(f"Job aggregates ({part}): all ranks' work over the slowest rank's time",
                                ["ceiling", "threads", "job", "per node", "slowest / fastest"], rows))
    jr = mpi.get("job_roofline")
    if jr and jr.get("available"):
        rows = [[p["label"], f"{p['intensity']:.3g}", si(p["job_flops_per_s"], "FLOP/s"),
                 si(p["job_roof_flops_per_s"], "FLOP/s"), pct(p["of_job_roof"])] for p in jr["points"]]
        console.print(table(f"On the job's roofline ({si(jr['roofs']['flops_per_s'], 'FLOP/s')}, "
                            f"{si(jr['roofs']['bytes_per_s'], 'B/s')} over {jr['roofs']['ranks']} ranks)",
                            ["kernel and size", "FLOP/B", "job", "job roof", "of roof"], rows))
    elif jr:
        console.print(f"[dim]{jr['note']}[/]")

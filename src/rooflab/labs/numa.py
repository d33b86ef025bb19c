"""The NUMA lab: the same kernels with memory on the local node and on a remote one (numactl), latency (pointer
chase) and bandwidth (triad) side by side. On a machine with one node there is nothing to compare; the lab says so
and shows the topology it found."""

from __future__ import annotations

import shutil

from rooflab.contract import Column, Lab, QuickOptions, Report, Table
from rooflab.errors import RooflabError
from rooflab.i18n import join, msg, tr
from rooflab.interpret.common import disturbed_rows
from rooflab.kernels import tasks
from rooflab.kernels.builders import build_stream, vector_bytes
from rooflab.session import Session
from rooflab.timing.harness import HarnessConfig, Timing
from rooflab.timing.worker import Worker
from rooflab.toolchain.compiler import build_kernel
from rooflab.units import binary_bytes, pct, si

Options = QuickOptions


def run(session: Session, opts: QuickOptions) -> dict:
    quick = opts.quick
    m = session.machine
    nodes = {int(k): v for k, v in (m.get("numa_nodes") or {}).items()} or {0: list(range(m["logical_cpus"]))}
    doc = {"lab": "numa", "quick": quick,
           "topology": {str(k): v for k, v in nodes.items()}, "memory_bytes": m.get("memory_bytes")}
    if len(nodes) < 2:
        doc.update(single_node=True, pairs=[])
    else:
        numactl = shutil.which("numactl")
        if not numactl:
            raise RooflabError(f"this machine has {len(nodes)} NUMA nodes; measuring them needs numactl "
                               "(apt-get install numactl)")
        llc = max((m.get("caches") or {"L3": 32 << 20}).values())
        # far past the last-level cache, so every access goes to the node's memory (quick: 4x, at least 64 MiB)
        size = int(max(4 * llc, 64 << 20) if quick else max(8 * llc, 256 << 20))
        n = size // 24
        slib = str(build_stream(vector_bytes(m["isa"])).path)
        clib = str(build_kernel("chase").path)
        cfg = HarnessConfig(min_sample_s=0.05, samples=5 if quick else 9, warmup=1, min_samples=3, budget_s=3.0)
        first = sorted(nodes)[0]
        pairs = []
        for mem in sorted(nodes):
            prefix = (numactl, f"--cpunodebind={first}", f"--membind={mem}")
            threads = len(nodes[first])
            session.progress(f"numa: CPUs of node {first}, memory on node {mem}")
            def both(prefix=prefix, threads=threads):
                with Worker(default_timeout_s=900, prefix=prefix) as w:
                    return (w.call("chase", tasks.chase_task, clib, size, cfg),
                            w.call("triad", tasks.stream_task, slib, "triad", [n], threads, cfg)[0])

            (lat, tri), judged = session.until_quiet(both, timing_of=lambda r: Timing.from_dict(r[1]["timing"]))
            lt = Timing.from_dict(lat["timing"])
            tt = Timing.from_dict(tri["timing"])
            pairs.append({"cpu_node": first, "memory_node": mem, "local": mem == first,
                          "latency_s": lt.summary.median / lat["steps"],
                          "bandwidth_bytes_per_s": 24 * n / tt.summary.median, "threads": threads,
                          "working_set_bytes": size})
            judged.judge(pairs[-1])
            session.record(f"cpu {first} mem {mem}", pairs[-1])
        doc.update(single_node=False, pairs=pairs)
    return doc


# ------------------------------------------------------------------------------------ observations


def numa_observations(doc: dict) -> list[dict]:
    topo = join([msg("node {k}: CPUs {cpus}", k=k, cpus=",".join(map(str, v))) for k, v in doc["topology"].items()])
    if doc["single_node"]:
        return [msg("This machine has one NUMA node ({topo}; {mem} of memory): every core reaches all of memory "
                    "through the same controller at the same distance, so there is no local and remote memory to "
                    "compare. On a machine with several nodes (two-socket servers, some large single-socket parts) "
                    "this lab binds the threads to one node with numactl and places the memory on each node in turn.",
                    topo=topo, mem=binary_bytes(doc.get("memory_bytes")))]
    out = [msg("Topology: {topo}.", topo=topo)]
    local = next((p for p in doc["pairs"] if p["local"]), None)
    for p in doc["pairs"]:
        if p["local"]:
            continue
        args = dict(mem=p["memory_node"], cpu=p["cpu_node"], lat=p["latency_s"] * 1e9,
                    bw=si(p["bandwidth_bytes_per_s"], "B/s"))
        if local:
            out.append(msg("Memory on node {mem} seen from node {cpu}: latency {lat:.0f} ns, triad {bw} — {lr:.2f}x the "
                           "local latency ({llat:.0f} ns) and {bfrac} of the local bandwidth ({lbw}).", **args,
                           lr=p["latency_s"] / local["latency_s"], llat=local["latency_s"] * 1e9,
                           bfrac=pct(p["bandwidth_bytes_per_s"] / local["bandwidth_bytes_per_s"]),
                           lbw=si(local["bandwidth_bytes_per_s"], "B/s")))
        else:
            out.append(msg("Memory on node {mem} seen from node {cpu}: latency {lat:.0f} ns, triad {bw}.", **args))
    return out



LAB = Lab(
    name="numa", order=9, options=Options, run=run,
    summary=msg("local vs remote memory latency and bandwidth (numactl); on one node, the topology and why there is "
                "nothing to compare"),
    report=Report(
        interpret=lambda d: (disturbed_rows(d.get("pairs") or [],
                                            lambda p: tr("CPUs of node {a}, memory on node {b}", a=p["cpu_node"],
                                                         b=p["memory_node"]))
                             + numa_observations(d)),
        headline=lambda d: tr("{n} NUMA node(s)", n=len(d["topology"])),
        tables=(Table("numa_pairs", "Local and remote memory", rows="pairs", columns=(
               Column("cpu_node", "CPU node", "int"),
               Column("memory_node", "memory node", "int"),
               Column("local", "", value=lambda p, d: tr("local") if p["local"] else tr("remote")),
               Column("latency_s", "latency", "ns"),
               Column("bandwidth_bytes_per_s", "triad", "bytes_per_s"))),)))

"""The NUMA lab: the same kernels with memory on the local node and on a remote one (numactl), latency (pointer
chase) and bandwidth (triad) side by side. On a machine with one node there is nothing to compare; the lab says so
and shows the topology it found."""

from __future__ import annotations

import shutil

from rooflab.toolchain.compiler import build_kernel
from rooflab.errors import RooflabError
from rooflab.results.schema import schema_id
from rooflab.session import Session
from rooflab.timing.harness import HarnessConfig, Timing
from rooflab.timing.worker import Worker
from rooflab.kernels import tasks
from rooflab.kernels.builders import build_stream, vector_bytes


def run(session: Session, *, quick: bool = False) -> dict:
    m = session.machine
    nodes = {int(k): v for k, v in (m.get("numa_nodes") or {}).items()} or {0: list(range(m["logical_cpus"]))}
    doc = {"schema": schema_id("lab.numa"), "lab": "numa", "quick": quick,
           "topology": {str(k): v for k, v in nodes.items()}, "memory_bytes": m.get("memory_bytes")}
    if len(nodes) < 2:
        doc.update(single_node=True, pairs=[])
    else:
        numactl = shutil.which("numactl")
        if not numactl:
            raise RooflabError(f"this machine has {len(nodes)} NUMA nodes; measuring them needs numactl "
                               "(apt-get install numactl)")
        llc = max((m.get("caches") or {"L3": 32 << 20}).values())
        size = int(max(8 * llc, 256 << 20))
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
            with Worker(default_timeout_s=900, prefix=prefix) as w:
                lat = w.call("chase", tasks.chase_task, clib, size, cfg)
                (tri,) = w.call("triad", tasks.stream_task, slib, "triad", [n], threads, cfg)
            lt = Timing.from_dict(lat["timing"])
            tt = Timing.from_dict(tri["timing"])
            pairs.append({"cpu_node": first, "memory_node": mem, "local": mem == first,
                          "latency_s": lt.summary.median / lat["steps"],
                          "bandwidth_bytes_per_s": 24 * n / tt.summary.median, "threads": threads,
                          "working_set_bytes": size})
            session.record(f"cpu {first} mem {mem}", pairs[-1])
        doc.update(single_node=False, pairs=pairs)
    from rooflab.interpret.observations import numa_observations

    return session.finish(doc, observe=numa_observations)

"""Observations of a `profile` run."""

from __future__ import annotations

from rooflab.documents.common import read
from rooflab.documents.kernels import Cachegrind, KernelSpec
from rooflab.i18n import join, msg
from rooflab.units import binary_bytes, pct


def profile_observations(doc: dict) -> list[dict]:
    out = []
    c = doc["counters"]
    model = doc["model"]
    size = " ".join(f"{k}={v}" for k, v in doc["size"].items())
    if doc["method"] == "cachegrind":
        out.append(msg("{reason}; the counts below are simulated by cachegrind with this machine's cache geometry "
                       "({geometry}).", reason=doc["fallback_reason"],
                       geometry=join([f"{k} {v}" for k, v in read(Cachegrind, doc.get("cachegrind")).geometry.items()],
                                     ", ")))
        out.append(msg("{name} at {size}: {ins:.4g} instructions, {d1:.4g} D1 misses and {ll:.4g} last-level misses "
                       "per call.", name=read(KernelSpec, doc["kernel"]).name, size=size, ins=c["instructions"],
                       d1=c["d1_misses"],
                       ll=c["ll_misses"]))
        if model["bytes"]:
            l1 = c["l1_traffic_bytes"] / model["bytes"]
            verdict = (msg("; the model undercounts the traffic (strided or conflicting access, write-allocate).")
                       if l1 > 1.5 else msg("; the model holds.") if l1 > 0.67 else
                       msg("; most accesses hit L1 (the data is reused or already cached)."))
            out.append(msg("Traffic past L1 (D1 misses x line) is {t} per call, {r:.2f}x the spec's byte model "
                           "({model}){verdict}", t=binary_bytes(c["l1_traffic_bytes"]), r=l1,
                           model=binary_bytes(model["bytes"]), verdict=verdict))
            out.append(msg("Traffic past the last level (LL misses x line) is {t} per call, {r:.2f}x the byte model.",
                           t=binary_bytes(c["dram_traffic_bytes"]), r=c["dram_traffic_bytes"] / model["bytes"]))
        if model["flops"] and c["instructions"]:
            out.append(msg("{r:.2f} instructions per FLOP of the model.", r=c["instructions"] / model["flops"]))
    else:
        d = doc["derived"]
        if d.get("ipc") is not None:
            w = d.get("issue_width")
            out.append(msg("IPC {ipc:.2f} against a dispatch width of {w}.", ipc=d["ipc"], w=w) if w else
                       msg("IPC {ipc:.2f}.", ipc=d["ipc"]))
        if d.get("cache_miss_rate") is not None:
            out.append(msg("Cache miss rate {rate}; misses x line = {t} per call against the model's {model}.",
                           rate=pct(d["cache_miss_rate"], 1), t=binary_bytes(d["miss_traffic_bytes_per_call"]),
                           model=binary_bytes(model["bytes"])))
        if d.get("branch_miss_rate") is not None:
            out.append(msg("Branch miss rate {rate}.", rate=pct(d["branch_miss_rate"], 2)))
        for h in doc.get("hotspots", [])[:3]:
            out.append(msg("Hotspot: {sym} ({p:.1f}% of samples).", sym=h["symbol"], p=h["percent"]))
        for h in doc.get("hot_lines", [])[:3]:
            out.append(msg("Hot line: {sym} ({p:.1f}% of samples).", sym=h["symbol"], p=h["percent"]))
    return out

"""Observations of a `measure --device cuda` run, and the tables of the GPU it ran on."""

from __future__ import annotations

from rooflab.contract import Column, Table
from rooflab.documents.common import read
from rooflab.documents.measure import GpuTheoretical, ceilings
from rooflab.i18n import msg, tr
from rooflab.interpret.common import above_roof, sweep_roofs
from rooflab.units import binary_bytes, pct, si


def gpu_observations(doc: dict) -> list[dict]:
    """`measure --device cuda`: what the GPU's ceilings, clock, bandwidth and batch sweep say."""
    out = []
    g = doc["gpu"]
    w = doc.get("warmup") or {}
    if w.get("first_clock_hz") and w.get("last_clock_hz") and w["last_clock_hz"] > 1.05 * w["first_clock_hz"]:
        out.append(msg("The SM clock rose from {a:.2f} to {b:.2f} GHz while the GPU warmed up ({s:.1f} s): a roofline "
                       "measured before the boost would be that much too low.", a=w["first_clock_hz"] / 1e9,
                       b=w["last_clock_hz"] / 1e9, s=w["seconds"]))
    cc = ceilings(doc, "compute")
    f32 = next((c for c in cc if c["precision"] == "fp32" and c["unit"] == "cuda_cores" and c.get("status") == "ok"),
               None)
    for c in cc:
        if c.get("status") != "ok":
            if c.get("status") in ("impossible", "wrong", "unsupported", "failed"):
                out.append(msg("Not used as a roof: {name} — {reason}.", name=c["name"], reason=c.get("reason") or ""))
            continue
        if c["unit"] == "cuda_cores" and c.get("of_theoretical") is not None:
            out.append(msg("{prec} FMA on the CUDA cores: {rate}, {frac} of the theoretical peak at the SM clock the "
                           "kernel measured itself ({ghz:.2f} GHz x {sms} SMs).", prec=c["precision"],
                           rate=si(c["flops_per_s"], "FLOP/s"), frac=pct(c["of_theoretical"], 1),
                           ghz=c["clock_hz_during"] / 1e9, sms=g["sms"]))
        elif c["unit"] == "tensor_cores" and f32:
            frac = (msg(", {frac} of its theoretical peak at {ghz:.2f} GHz", frac=pct(c["of_theoretical"], 1),
                        ghz=c["clock_hz_during"] / 1e9) if c.get("of_theoretical") is not None else "")
            out.append(msg("{prec} tensor-core GEMM: {rate}, {r:.1f}x the fp32 CUDA-core ceiling{frac}.",
                           prec=c["precision"], rate=si(c["flops_per_s"], "FLOP/s"),
                           r=c["flops_per_s"] / f32["flops_per_s"], frac=frac))
    bursts = [c for c in cc if c.get("status") == "ok" and c.get("burst_flops_per_s")
              and c["burst_flops_per_s"] > 1.05 * c["flops_per_s"]]
    if bursts:
        top = max(bursts, key=lambda c: c["burst_flops_per_s"] / c["flops_per_s"])
        out.append(msg("Bursts: the first tens of milliseconds of a GEMM ran faster than the GPU then sustained "
                       "({items}). The ceilings are the sustained rates; a short kernel after an idle spell may see "
                       "up to {r:.2f}x.",
                       items="; ".join(f"{c['precision']} {si(c['burst_flops_per_s'], 'FLOP/s')} → "
                                       f"{si(c['flops_per_s'], 'FLOP/s')}" for c in bursts),
                       r=top["burst_flops_per_s"] / top["flops_per_s"]))
    bw = ceilings(doc, "bandwidth")
    copy = next((b for b in bw if b["level"] == "HBM" and b["kernel"] == "copy" and b.get("status") == "ok"), None)
    ref = doc.get("reference") or {}
    if copy:
        th = (msg(", {frac} of the theoretical {th} (2 x memory clock x bus width)", frac=pct(copy["of_theoretical"]),
                  th=si(copy["theoretical_bytes_per_s"], "B/s")) if copy.get("of_theoretical") else "")
        d2d = (msg("; cudaMemcpy device to device reaches {bw}, so rooflab's copy runs at {frac} of it",
                   bw=si(ref["bytes_per_s"], "B/s"), frac=pct(ref["copy_over_d2d"]))
               if ref.get("copy_over_d2d") else "")
        out.append(msg("HBM copy: {bw}{th}{d2d}.", bw=si(copy["bytes_per_s"], "B/s"), th=th, d2d=d2d))
    for sw in doc.get("bandwidth_sweeps", []):
        if sw["kernel"] != "read":
            continue
        l2p = next((p for p in sw["plateaus"] if p["level"] == "L2"), None)
        if l2p and g.get("l2_bytes"):
            edge = l2p.get("boundary_bytes") or l2p["end_bytes"]
            out.append(msg("The read sweep holds an L2 plateau until about {edge} (the device reports {l2}; {r:.2g}x).",
                           edge=binary_bytes(edge), l2=binary_bytes(g["l2_bytes"]), r=edge / g["l2_bytes"]))
        elif g.get("l2_bytes"):
            out.append(msg("No separate L2 plateau in the read sweep: here the L2 is not measurably faster than HBM "
                           "for a streaming read."))
    l2r = next((b for b in bw if b["level"] == "L2" and b["kernel"] == "read" and b.get("status") == "ok"), None)
    hr = next((b for b in bw if b["level"] == "HBM" and b["kernel"] == "read" and b.get("status") == "ok"), None)
    if l2r and hr and l2r.get("plateau_found"):
        out.append(msg("Reading from L2 ({l2}) is {r:.1f}x reading from HBM ({hbm}): a kernel that reuses data while "
                       "it is in L2 gets that much more bandwidth.", l2=si(l2r["bytes_per_s"], "B/s"),
                       hbm=si(hr["bytes_per_s"], "B/s"), r=l2r["bytes_per_s"] / hr["bytes_per_s"]))
    out += _gpu_sweep_obs(*roofs) if (roofs := sweep_roofs(doc)) else []
    return out


def _gpu_sweep_obs(pts: list[dict], info: dict, peak: float, bw: float, rp: float) -> list[dict]:
    """The batch sweep read against its roofs (see ``sweep_roofs``)."""
    out = []
    tr_ = info.get("theoretical_ridge")
    th = msg("; from the datasheet-style theoretical peaks it would be {t:.0f}", t=tr_) if tr_ else ""
    out.append(msg("Ridge point of this GPU: {peak} / {bw} = {rp:.0f} FLOP/byte (the measured {prec} GEMM ceiling "
                   "over the HBM ceiling){th}.", peak=si(peak, "FLOP/s"), bw=si(bw, "B/s"), rp=rp, prec=info["dtype"],
                   th=th))
    cross = next((p for p in pts if p["intensity"] >= rp), None)
    if cross:
        out.append(msg("X[B,{d}]·W[{d},{d}] crosses the ridge at B = {b} (intensity {i:.0f} FLOP/byte): below it the "
                       "time is the time to read W from HBM, above it the tensor cores are the limit.", d=info["D"],
                       b=cross["B"], i=cross["intensity"]))
    else:
        out.append(msg("Up to B = {b} X·W stays below the ridge (intensity {i:.0f} FLOP/byte): memory-bound "
                       "throughout.", b=pts[-1]["B"], i=pts[-1]["intensity"]))
    mem = [p for p in pts if p["intensity"] < rp / 2 and not p["above_roof"]]
    if len(mem) >= 2:
        a, b = mem[0], mem[-1]
        out.append(msg("Memory-bound region (B = {b0}..{b1}): FLOP/s grew {fg:.1f}x while B grew {bg:.0f}x, at "
                       "{lo}–{hi} of the roofline prediction.", b0=a["B"], b1=b["B"],
                       fg=b["flops_per_s"] / a["flops_per_s"], bg=b["B"] / a["B"],
                       lo=pct(min(p["of_predicted"] for p in mem)), hi=pct(max(p["of_predicted"] for p in mem))))
    half = next((p for p in pts if p["flops_per_s"] >= 0.5 * peak and not p["above_roof"]), None)
    if half:
        out.append(msg("The first B reaching half of the GEMM ceiling is B = {b}.", b=half["B"]))
    return out + above_roof(pts)


def _ghz(hz) -> str:
    return f"{hz / 1e9:.3f} GHz" if hz else "—"


def gpu_rows(doc: dict) -> list[dict]:
    """The GPU a report opens with: its name, architecture, SMs, memory, clocks and software."""
    g, th = doc["gpu"], doc.get("theoretical") or {}
    return [{"what": k, "value": str(v)} for k, v in (
        (tr("GPU"), g["name"]), (tr("compute capability"), g["compute_capability"]),
        (tr("architecture"), th.get("arch") or tr("not in rooflab's table")),
        ("SM", g["sms"]), ("L2", binary_bytes(g.get("l2_bytes"))), (tr("memory"), binary_bytes(g.get("memory_bytes"))),
        (tr("memory bus"), tr("{bits} bits at {ghz} (memory clock)", bits=g.get("bus_width_bits") or "?",
                              ghz=_ghz(g.get("memory_clock_hz")))),
        (tr("SM clock"), tr("{now} measured during the run; maximum {max}", now=_ghz(th.get("sm_clock_hz")),
                            max=_ghz(g.get("max_sm_clock_hz")))),
        (tr("driver / runtime"), f"{g.get('driver') or '?'} / {g.get('runtime') or '?'}"))]


def _peaks(doc: dict) -> list[dict]:
    th = doc.get("theoretical") or {}
    if not (th.get("flops") or th.get("hbm_bytes_per_s")):
        return []
    return ([{"precision": p, "peak": si(v, "FLOP/s")} for p, v in (th.get("flops") or {}).items()]
            + [{"precision": "HBM", "peak": si(th.get("hbm_bytes_per_s"), "B/s")}])


def _theoretical(doc: dict) -> GpuTheoretical:
    return read(GpuTheoretical, doc.get("theoretical"))


GPU_TABLE = Table("gpu", "GPU", rows=gpu_rows, columns=(Column("what", "item"), Column("value", "value")), keyed=True,
                  formats=("text", "html"))
PEAKS_TABLE = Table("theoretical_peaks", lambda d: tr("Theoretical peaks at the measured SM clock ({ghz})",
                                                        ghz=_ghz(_theoretical(d).sm_clock_hz)),
                    rows=_peaks, columns=(Column("precision", "precision"), Column("peak", "peak")),
                    footer=lambda d, args, rows: [str(s)] if (s := _theoretical(d).source) else [])


def reference_notes(doc: dict) -> list[str]:
    """The device-to-device copy the HBM ceiling is checked against."""
    ref = doc.get("reference") or {}
    if not ref.get("bytes_per_s"):
        return []
    return [tr("reference: cudaMemcpy device to device {bw} over {ws}; HBM copy / memcpy = {r}",
               bw=si(ref["bytes_per_s"], "B/s"), ws=binary_bytes(ref["working_set_bytes"]),
               r=f"{ref['copy_over_d2d']:.3f}" if ref.get("copy_over_d2d") else "—")]

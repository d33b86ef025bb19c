"""Observations of a `measure` run."""

from __future__ import annotations

from rooflab.documents.common import Uarch, cache_sizes, read
from rooflab.documents.measure import ceilings
from rooflab.i18n import join, msg
from rooflab.units import binary_bytes, pct, si
from rooflab.interpret.common import above_roof, find_entry, load_caveat, sweep_roofs


def _compute_obs(doc: dict) -> list[dict]:
    obs = []
    cc = ceilings(doc, "compute")
    threads_all = doc["threads_all"]
    m = doc["machine"]
    uarch = read(Uarch, m.get("uarch"))
    for prec in ("fp32", "fp64"):
        fma1 = find_entry(cc, precision=prec, klass="simd_fma", threads=1)
        fman = find_entry(cc, precision=prec, klass="simd_fma", threads=threads_all)
        if fma1 and fma1.get("of_theoretical") is not None:
            obs.append(msg("{prec} SIMD FMA on one thread: {rate}, {frac} of the theoretical peak at the clock "
                           "measured beside it ({ghz:.2f} GHz, {pipes} FMA pipes x {bits} bits).", prec=prec,
                           rate=si(fma1["flops_per_s"], "FLOP/s"), frac=pct(fma1["of_theoretical"], 1),
                           ghz=fma1["clock_hz_during"] / 1e9, pipes=uarch.fma_pipes,
                           bits=uarch.fma_bits))
            lost, run = fma1.get("time_lost"), fma1.get("of_theoretical_running")
            if lost is not None and run is not None and lost >= 0.005:
                obs.append(msg("Its threads were away {lost} of the time (interrupts, other tenants): timed in short "
                               "chunks while it ran, the {prec} FMA kernel reached {run} of the peak; the rest of the "
                               "gap is the host's, not the code's.", lost=pct(lost, 1), prec=prec, run=pct(run, 1)))
        if fma1 and fman and threads_all > 1:
            sp = fman["flops_per_s"] / fma1["flops_per_s"]
            cores = min(threads_all, m["physical_cores"])
            if sp >= 0.75 * cores:
                obs.append(msg("{prec} FMA scales {sp:.2f}x from 1 to {tall} threads: compute shares nothing between "
                               "cores, so close to {cores}x is expected.", prec=prec, sp=sp, tall=threads_all, cores=cores))
            else:
                obs.append(msg("{prec} FMA scales only {sp:.2f}x from 1 to {tall} threads, while each thread's clock "
                               "held: these CPUs share FMA units (SMT siblings, or virtual CPUs placed on one host "
                               "core).", prec=prec, sp=sp, tall=threads_all))
        scal = find_entry(cc, precision=prec, klass="scalar", threads=1)
        simd = find_entry(cc, precision=prec, klass="simd", threads=1)
        if fma1 and scal:
            ebits = 32 if prec == "fp32" else 64
            lanes = fma1["vector_bits"] // ebits
            pipes = (msg("; the {pbits}-bit pipes run {plane} per cycle each", pbits=uarch.fma_bits,
                         plane=uarch.fma_bits // ebits)
                     if uarch.fma_bits and uarch.fma_bits < fma1["vector_bits"] else "")
            obs.append(msg("{prec}: SIMD FMA is {r:.1f}x scalar FMA ({bits}-bit registers hold {lanes} lanes{pipes}).",
                           prec=prec, r=fma1["flops_per_s"] / scal["flops_per_s"], bits=fma1["vector_bits"],
                           lanes=lanes, pipes=pipes))
        if fma1 and simd:
            r = fma1["flops_per_s"] / simd["flops_per_s"]
            why = (msg("this core has separate FP add pipes, so multiplies and adds issued apart keep up with FMA")
                   if uarch.add_pipes else
                   msg("without FMA, a multiply and an add take two issue slots"))
            obs.append(msg("{prec}: FMA gives {r:.2f}x the FLOP rate of separate multiply and add ({why}).",
                           prec=prec, r=r, why=why))
        blas = find_entry(cc, precision=prec, klass="blas_gemm", threads=threads_all)
        if blas and fman:
            obs.append(msg("{prec} BLAS GEMM on {tall} thread(s) reaches {frac} of the FMA-chain ceiling: the "
                           "achievable roof for real code.", prec=prec, tall=threads_all,
                           frac=pct(blas["flops_per_s"] / fman["flops_per_s"])))
    for c in cc:
        if c.get("status") in ("refused", "impossible"):
            obs.append(msg("Not used as a roof: {name} x{threads} — {reason}.", name=c["name"], threads=c["threads"],
                           reason=c["reason"]))
    return obs


def _bandwidth_obs(doc: dict) -> list[dict]:
    obs = []
    threads_all = doc["threads_all"]
    caches = cache_sizes(doc.get("machine"))
    for sw in doc.get("bandwidth_sweeps", []):
        if sw["kernel"] != "read" or sw["threads"] != 1 or not sw["plateaus"]:
            continue
        parts = []
        for p in sw["plateaus"]:
            if p["level"] in ("?", "DRAM"):
                continue
            rep = caches.get(p["level"])
            edge = p.get("boundary_bytes") or p["end_bytes"]
            check = p.get("edge_check") if isinstance(p.get("edge_check"), dict) else None
            if check and not check.get("confirmed") and check.get("first_bytes") and rep:
                parts.append(msg("{level} taken at the OS's {rep}: the sweep put its edge at {first}, and a second "
                                 "sweep around it did not confirm that", level=p["level"],
                                 rep=binary_bytes(rep), first=binary_bytes(check["first_bytes"])))
            elif check and check.get("confirmed") and rep:
                parts.append(msg("{level} until about {edge} (the OS reports {rep}; {ratio:.2g}x; a second sweep "
                                 "confirmed it)", level=p["level"], edge=binary_bytes(edge), rep=binary_bytes(rep),
                                 ratio=edge / rep))
            elif rep:
                parts.append(msg("{level} until about {edge} (the OS reports {rep}; {ratio:.2g}x)", level=p["level"],
                                 edge=binary_bytes(edge), rep=binary_bytes(rep), ratio=edge / rep))
            else:
                parts.append(msg("{level} until about {edge}", level=p["level"], edge=binary_bytes(edge)))
        if parts:
            obs.append(msg("One-thread read plateaus found from the curve: {parts}.", parts=join(parts)))
        missing = [lv for lv in caches if lv not in {p["level"] for p in sw["plateaus"]}]
        if missing:
            obs.append(msg("No separate plateau for {levels} in the one-thread read sweep: its bandwidth is not "
                           "distinguishable from its neighbour's here.", levels=join(missing, ", ")))
    bw = ceilings(doc, "bandwidth")
    d1 = find_entry(bw, level="DRAM", kernel="triad", threads=1)
    dn = find_entry(bw, level="DRAM", kernel="triad", threads=threads_all)
    if d1 and dn and threads_all > 1:
        obs.append(msg("DRAM triad: {one} on one thread, {all} on {tall} ({r:.2f}x). One core cannot keep enough cache "
                       "misses in flight to fill the memory system (Little's law: bandwidth = misses in flight x line "
                       "size / latency).", one=si(d1["bytes_per_s"], "B/s"), all=si(dn["bytes_per_s"], "B/s"),
                       tall=threads_all, r=dn["bytes_per_s"] / d1["bytes_per_s"]))
    l1 = find_entry(bw, level="L1", kernel="read", threads=1)
    dr = find_entry(bw, level="DRAM", kernel="read", threads=1)
    if l1 and dr:
        obs.append(msg("One thread reads {r:.0f}x faster from L1 ({l1}) than from DRAM ({dram}): blocking for cache is "
                       "worth that much to a memory-bound kernel.", r=l1["bytes_per_s"] / dr["bytes_per_s"],
                       l1=si(l1["bytes_per_s"], "B/s"), dram=si(dr["bytes_per_s"], "B/s")))
    gemv = next((x for x in bw if x.get("reference") == "gemv" and x["threads"] == threads_all and
                 x.get("status") == "ok"), None)
    if gemv and dn:
        obs.append(msg("BLAS GEMV streams {bw} on {tall} thread(s), {frac} of the C triad's DRAM ceiling.",
                       bw=si(gemv["bytes_per_s"], "B/s"), tall=threads_all, frac=pct(gemv["bytes_per_s"] / dn["bytes_per_s"])))
    return obs


def _sweep_obs(pts: list[dict], info: dict, peak: float, bw: float, rp: float) -> list[dict]:
    """The batch sweep read against its roofs (see ``sweep_roofs``)."""
    obs = [msg("Ridge point of this machine: {peak} / {bw} = {rp:.1f} FLOP/byte (fp32 FMA roof over the DRAM roof): "
               "below it a kernel waits for memory, above it for arithmetic.", peak=si(peak, "FLOP/s"),
               bw=si(bw, "B/s"), rp=rp)]
    mem = [p for p in pts if p["intensity"] < rp / 2 and not p["above_roof"]]
    if len(mem) >= 2:
        lo, hi = min(p["of_predicted"] for p in mem), max(p["of_predicted"] for p in mem)
        b0, b1 = mem[0], mem[-1]
        args = dict(b0=b0["B"], b1=b1["B"], lo=pct(lo), hi=pct(hi), bgrow=b1["B"] / b0["B"],
                    tgrow=b1["time_s"] / b0["time_s"])
        if args["tgrow"] < args["bgrow"] / 2:
            obs.append(msg("Memory-bound region (B = {b0}..{b1}): {lo}–{hi} of the roofline prediction; B grew "
                           "{bgrow:.0f}x and the time {tgrow:.1f}x — FLOP/s rise almost linearly with B because the "
                           "time goes into reading W once.", **args))
        else:
            obs.append(msg("Memory-bound region (B = {b0}..{b1}): {lo}–{hi} of the roofline prediction; B grew "
                           "{bgrow:.0f}x and the time {tgrow:.1f}x — the BLAS does not turn the extra rows into nearly "
                           "free work here, so this region falls short of the linear rise the roofline predicts.",
                           **args))
    comp = [p for p in pts if p["intensity"] > 2 * rp and not p["above_roof"]]
    if comp:
        lo = min(comp, key=lambda p: p["of_peak"])
        hi = max(comp, key=lambda p: p["of_peak"])
        if hi["of_peak"] - lo["of_peak"] < 0.15 * hi["of_peak"]:
            obs.append(msg("Compute-bound region (B >= {b}): {lo}–{hi} of the FMA peak; the curve is flat and the time "
                           "grows in proportion to B.", b=comp[0]["B"], lo=pct(lo["of_peak"]), hi=pct(hi["of_peak"])))
        else:
            obs.append(msg("Past the ridge (B >= {b}) the curve keeps climbing, from {lo} of the FMA peak (B = {blo}) "
                           "to {hi} (B = {bhi}): the BLAS needs far more rows than the ridge point to amortize its "
                           "packing and blocking; the roofline gives the bound, not the shape.", b=comp[0]["B"],
                           lo=pct(lo["of_peak"]), blo=lo["B"], hi=pct(hi["of_peak"]), bhi=hi["B"]))
    half = next((p for p in pts if p["flops_per_s"] >= 0.5 * peak and not p["above_roof"]), None)
    if half:
        obs.append(msg("The first B reaching half of the peak is B = {b} (intensity {i:.0f} FLOP/byte).", b=half["B"],
                       i=half["intensity"]))
    g = next((p for p in pts if p["B"] == 1), None)
    skinny = [p for p in pts if 2 <= p["B"] <= 16]
    if g and skinny:
        worst = min(skinny, key=lambda p: p["bytes_per_s"])
        if g["bytes_per_s"] > 1.5 * max(p["bytes_per_s"] for p in skinny):
            obs.append(msg("GEMV vs skinny GEMM: B = 1 streams {g}, but B = 2..16 only {w} at worst (B = {b}): NumPy "
                           "sends B = 1 to GEMV and B >= 2 to a GEMM that does not use the bandwidth for very thin "
                           "inputs. The roofline is an upper bound; how close a kernel gets depends on how it is "
                           "written.", g=si(g["bytes_per_s"], "B/s"), w=si(worst["bytes_per_s"], "B/s"), b=worst["B"]))
        else:
            obs.append(msg("No GEMV vs skinny-GEMM gap here: B = 2..16 stream at least {w}, against {g} for GEMV at "
                           "B = 1.", w=si(worst["bytes_per_s"], "B/s"), g=si(g["bytes_per_s"], "B/s")))
    return obs + above_roof(pts)


def _trust_obs(doc: dict) -> list[dict]:
    """What this run's roofline leaves out, and whether it can be the machine's reference."""
    t = doc.get("trust")
    if not t:
        return []
    out = []
    if t.get("disturbed"):
        out.append(msg("{n} ceiling(s) were measured while the CPUs were not all ours ({names}): they are shown with "
                       "the reason but are not roofs, and this run does not replace the roofs of this machine's "
                       "earlier undisturbed runs; bench and the labs keep using those. Rerun on a quiet machine, or "
                       "with --wait-quiet SECONDS.", n=len(t["disturbed"]), names=join(t["disturbed"], ", ")))
    roofs = doc.get("roofs") or {}
    if roofs.get("instead_of"):
        out.append(msg("The roofline drawn is the one-thread roofline: on {tall} threads no compute or no memory "
                       "ceiling could be a roof (other processes kept a CPU busy), while the one-thread ceilings were "
                       "measured on the CPU they left alone.", tall=roofs["instead_of"]))
    elif not (roofs.get("compute") and roofs.get("memory")):
        out.append(msg("No roofline could be drawn: neither on {tall} threads nor on one did a compute and a memory "
                       "ceiling both pass their checks.", tall=doc["threads_all"]))
    if t.get("impossible"):
        out.append(msg("{n} figure(s) broke a physical bound ({names}): impossible, a measurement problem, never a "
                       "roof.", n=len(t["impossible"]), names=join(t["impossible"], ", ")))
    return out


def _dram_roof_obs(doc: dict) -> list[dict]:
    """The DRAM roof against the regular-store figure: the write-allocate traffic the STREAM count leaves out."""
    roofs = doc.get("roofs") or {}
    threads_all = roofs.get("threads", doc["threads_all"])
    roof = next((m for m in roofs.get("memory", []) if m.get("level") == "DRAM"), None)
    if not roof or not roof.get("regular_value"):
        return []
    bw = ceilings(doc, "bandwidth")
    reg_t = find_entry(bw, level="DRAM", kernel="triad", threads=threads_all)
    nt_t = find_entry(bw, level="DRAM", kernel="triad_nt", threads=threads_all)
    out = []
    if roof["kernel"] != roof.get("regular_kernel"):
        out.append(msg("DRAM roof on {tall} thread(s): {roof} ({kernel}); the best regular-store kernel reaches {reg} "
                       "({rkernel}), {r:.2f}x less.", tall=threads_all, roof=si(roof["value"], "B/s"), kernel=roof["kernel"],
                       reg=si(roof["regular_value"], "B/s"), rkernel=roof["regular_kernel"],
                       r=roof["value"] / roof["regular_value"]))
    if reg_t and nt_t:
        out.append(msg("Write-allocate: an ordinary store first reads the line it writes, so the triad moves 32 bytes "
                       "per element where STREAM counts 24; streaming stores skip that read. Triad in DRAM: {nt} with "
                       "streaming stores, {reg} without ({r:.2f}x; up to 1.33x if the read of each written line were "
                       "all that differs).", nt=si(nt_t["bytes_per_s"], "B/s"), reg=si(reg_t["bytes_per_s"], "B/s"),
                       r=nt_t["bytes_per_s"] / reg_t["bytes_per_s"]))
    return out


DRAM_MOMENTS_APART = 1.10  # two clean moments of one DRAM ceiling further apart than this are named


def _dram_moments_obs(doc: dict) -> list[dict]:
    """DRAM ceilings whose two moments, both with clean signals, came out far apart: the host's DRAM is shared with
    tenants no signal of ours sees, and the faster moment is the one kept."""
    apart = []
    for c in ceilings(doc, "bandwidth"):
        rates = [m["bytes_per_s"] for m in c.get("moments") or [] if m.get("status") == "ok" and m.get("bytes_per_s")]
        if len(rates) >= 2 and max(rates) > DRAM_MOMENTS_APART * min(rates):
            apart.append(msg("{kernel} x{threads}: {lo} and {hi}", kernel=c["kernel"], threads=c["threads"],
                             lo=si(min(rates), "B/s"), hi=si(max(rates), "B/s")))
    if not apart:
        return []
    return [msg("DRAM bandwidth moved during the run with nothing of ours to show for it (measured at two moments, "
                "each with clean signals: {which}): the host shares its memory with tenants this machine cannot see. "
                "Each DRAM ceiling is the faster moment.", which=join(apart, "; "))]


def _bandwidth_not_roofs(doc: dict) -> list[dict]:
    return [msg("Not used as a roof: {level} {kernel} x{threads} — {reason}.", level=c["level"], kernel=c["kernel"],
                threads=c["threads"], reason=c["reason"])
            for c in ceilings(doc, "bandwidth") if c.get("status") in ("refused", "impossible") and c.get("reason")]


def measure_observations(doc: dict) -> list[dict]:
    out = load_caveat(doc)
    out += _trust_obs(doc)
    out += _compute_obs(doc)
    out += _bandwidth_obs(doc)
    out += _dram_roof_obs(doc)
    out += _dram_moments_obs(doc)
    out += _bandwidth_not_roofs(doc)
    out += _sweep_obs(*roofs) if (roofs := sweep_roofs(doc)) else []
    return out

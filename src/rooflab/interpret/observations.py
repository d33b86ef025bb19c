"""Observations written from the numbers a run just measured (pure: a document in, messages out).

Every sentence quotes what was measured; rules only decide which sentences apply. A run with a competing-load
warning says first that its figures may be low. Each observation is an ``i18n.msg``: stored with the run and
rendered in the reader's language.
"""

from __future__ import annotations

from rooflab.i18n import join, msg
from rooflab.units import binary_bytes, pct, seconds, si


def _find(items, **kw):
    for x in items:
        if all(x.get(k) == v for k, v in kw.items()) and x.get("status") == "ok":
            return x
    return None


def _load_caveat(doc: dict) -> list[dict]:
    for w in doc.get("warnings", []):
        if w.get("code") == "competing-load":
            return [msg("Other work was running during this measurement ({cores:.2f} core(s) on average): the "
                        "figures below may be low, and the observations with them. Rerun on a quiet machine.",
                        cores=w["seen"])]
    return []


def _compute_obs(doc: dict) -> list[dict]:
    obs = []
    cc = doc["ceilings"]["compute"]
    tall = doc["threads_all"]
    m = doc["machine"]
    for prec in ("fp32", "fp64"):
        fma1 = _find(cc, precision=prec, klass="simd_fma", threads=1)
        fman = _find(cc, precision=prec, klass="simd_fma", threads=tall)
        if fma1 and fma1.get("of_theoretical") is not None:
            obs.append(msg("{prec} SIMD FMA on one thread: {rate}, {frac} of the theoretical peak at the clock "
                           "measured beside it ({ghz:.2f} GHz, {pipes} FMA pipes x {bits} bits).", prec=prec,
                           rate=si(fma1["flops_per_s"], "FLOP/s"), frac=pct(fma1["of_theoretical"], 1),
                           ghz=fma1["clock_hz_during"] / 1e9, pipes=m["uarch"]["fma_pipes"],
                           bits=m["uarch"]["fma_bits"]))
            lost, run = fma1.get("time_lost"), fma1.get("of_theoretical_running")
            if lost is not None and run is not None and lost >= 0.005:
                obs.append(msg("Its threads were away {lost} of the time (interrupts, other tenants): timed in short "
                               "chunks while it ran, the {prec} FMA kernel reached {run} of the peak; the rest of the "
                               "gap is the host's, not the code's.", lost=pct(lost, 1), prec=prec, run=pct(run, 1)))
        if fma1 and fman and tall > 1:
            sp = fman["flops_per_s"] / fma1["flops_per_s"]
            cores = min(tall, m["physical_cores"])
            if sp >= 0.75 * cores:
                obs.append(msg("{prec} FMA scales {sp:.2f}x from 1 to {tall} threads: compute shares nothing between "
                               "cores, so close to {cores}x is expected.", prec=prec, sp=sp, tall=tall, cores=cores))
            else:
                obs.append(msg("{prec} FMA scales only {sp:.2f}x from 1 to {tall} threads, while each thread's clock "
                               "held: these CPUs share FMA units (SMT siblings, or virtual CPUs placed on one host "
                               "core).", prec=prec, sp=sp, tall=tall))
        scal = _find(cc, precision=prec, klass="scalar", threads=1)
        simd = _find(cc, precision=prec, klass="simd", threads=1)
        if fma1 and scal:
            ebits = 32 if prec == "fp32" else 64
            lanes = fma1["vector_bits"] // ebits
            pipes = (msg("; the {pbits}-bit pipes run {plane} per cycle each", pbits=m["uarch"]["fma_bits"],
                         plane=m["uarch"]["fma_bits"] // ebits)
                     if m["uarch"]["fma_bits"] < fma1["vector_bits"] else "")
            obs.append(msg("{prec}: SIMD FMA is {r:.1f}x scalar FMA ({bits}-bit registers hold {lanes} lanes{pipes}).",
                           prec=prec, r=fma1["flops_per_s"] / scal["flops_per_s"], bits=fma1["vector_bits"],
                           lanes=lanes, pipes=pipes))
        if fma1 and simd:
            r = fma1["flops_per_s"] / simd["flops_per_s"]
            why = (msg("this core has separate FP add pipes, so multiplies and adds issued apart keep up with FMA")
                   if m["uarch"].get("add_pipes") else
                   msg("without FMA, a multiply and an add take two issue slots"))
            obs.append(msg("{prec}: FMA gives {r:.2f}x the FLOP rate of separate multiply and add ({why}).",
                           prec=prec, r=r, why=why))
        blas = _find(cc, precision=prec, klass="blas_gemm", threads=tall)
        if blas and fman:
            obs.append(msg("{prec} BLAS GEMM on {tall} thread(s) reaches {frac} of the FMA-chain ceiling: the "
                           "achievable roof for real code.", prec=prec, tall=tall,
                           frac=pct(blas["flops_per_s"] / fman["flops_per_s"])))
    for c in cc:
        if c.get("status") in ("refused", "impossible"):
            obs.append(msg("Not used as a roof: {name} x{threads} — {reason}.", name=c["name"], threads=c["threads"],
                           reason=c["reason"]))
    return obs


def _bandwidth_obs(doc: dict) -> list[dict]:
    obs = []
    tall = doc["threads_all"]
    caches = doc["machine"].get("caches") or {}
    for sw in doc.get("bandwidth_sweeps", []):
        if sw["kernel"] != "read" or sw["threads"] != 1 or not sw["plateaus"]:
            continue
        parts = []
        for p in sw["plateaus"]:
            if p["level"] in ("?", "DRAM"):
                continue
            rep = caches.get(p["level"])
            edge = p.get("boundary_bytes") or p["end_bytes"]
            if rep:
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
    bw = doc["ceilings"]["bandwidth"]
    d1 = _find(bw, level="DRAM", kernel="triad", threads=1)
    dn = _find(bw, level="DRAM", kernel="triad", threads=tall)
    if d1 and dn and tall > 1:
        obs.append(msg("DRAM triad: {one} on one thread, {all} on {tall} ({r:.2f}x). One core cannot keep enough cache "
                       "misses in flight to fill the memory system (Little's law: bandwidth = misses in flight x line "
                       "size / latency).", one=si(d1["bytes_per_s"], "B/s"), all=si(dn["bytes_per_s"], "B/s"),
                       tall=tall, r=dn["bytes_per_s"] / d1["bytes_per_s"]))
    l1 = _find(bw, level="L1", kernel="read", threads=1)
    dr = _find(bw, level="DRAM", kernel="read", threads=1)
    if l1 and dr:
        obs.append(msg("One thread reads {r:.0f}x faster from L1 ({l1}) than from DRAM ({dram}): blocking for cache is "
                       "worth that much to a memory-bound kernel.", r=l1["bytes_per_s"] / dr["bytes_per_s"],
                       l1=si(l1["bytes_per_s"], "B/s"), dram=si(dr["bytes_per_s"], "B/s")))
    gemv = next((x for x in bw if x["kernel"].startswith("BLAS GEMV") and x["threads"] == tall and
                 x.get("status") == "ok"), None)
    if gemv and dn:
        obs.append(msg("BLAS GEMV streams {bw} on {tall} thread(s), {frac} of the C triad's DRAM ceiling.",
                       bw=si(gemv["bytes_per_s"], "B/s"), tall=tall, frac=pct(gemv["bytes_per_s"] / dn["bytes_per_s"])))
    return obs


def _sweep_roofs(doc: dict) -> tuple[list[dict], dict, float, float] | None:
    """The batch sweep's points, its info, and the compute and memory roofs it was predicted from (None without)."""
    pts = doc.get("sweep") or []
    info = doc.get("sweep_info") or {}
    if not pts or not info.get("compute_roof") or not info.get("memory_roof"):
        return None
    return pts, info, info["compute_roof"]["flops_per_s"], info["memory_roof"]["bytes_per_s"]


def _above_roof(pts: list[dict]) -> list[dict]:
    bad = [p for p in pts if p["above_roof"]]
    if not bad:
        return []
    return [msg("Above their roof (a measurement problem, not a discovery; drawn as x): {points}.",
                points=join([msg("B = {b} at {frac}", b=p["B"], frac=pct(p["of_predicted"])) for p in bad], ", "))]


def _sweep_obs(doc: dict) -> list[dict]:
    roofs = _sweep_roofs(doc)
    if roofs is None:
        return []
    pts, info, peak, bw = roofs
    rp = peak / bw
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
    return obs + _above_roof(pts)


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
    if t.get("impossible"):
        out.append(msg("{n} figure(s) broke a physical bound ({names}): impossible, a measurement problem, never a "
                       "roof.", n=len(t["impossible"]), names=join(t["impossible"], ", ")))
    return out


def _dram_roof_obs(doc: dict) -> list[dict]:
    """The DRAM roof against the regular-store figure: the write-allocate traffic the STREAM count leaves out."""
    tall = doc["threads_all"]
    roof = next((m for m in (doc.get("roofs") or {}).get("memory", []) if m.get("level") == "DRAM"), None)
    if not roof or not roof.get("regular_value"):
        return []
    bw = doc["ceilings"]["bandwidth"]
    reg_t = _find(bw, level="DRAM", kernel="triad", threads=tall)
    nt_t = _find(bw, level="DRAM", kernel="triad_nt", threads=tall)
    out = []
    if roof["kernel"] != roof.get("regular_kernel"):
        out.append(msg("DRAM roof on {tall} thread(s): {roof} ({kernel}); the best regular-store kernel reaches {reg} "
                       "({rkernel}), {r:.2f}x less.", tall=tall, roof=si(roof["value"], "B/s"), kernel=roof["kernel"],
                       reg=si(roof["regular_value"], "B/s"), rkernel=roof["regular_kernel"],
                       r=roof["value"] / roof["regular_value"]))
    if reg_t and nt_t:
        out.append(msg("Write-allocate: an ordinary store first reads the line it writes, so the triad moves 32 bytes "
                       "per element where STREAM counts 24; streaming stores skip that read. Triad in DRAM: {nt} with "
                       "streaming stores, {reg} without ({r:.2f}x; up to 1.33x if the read of each written line were "
                       "all that differs).", nt=si(nt_t["bytes_per_s"], "B/s"), reg=si(reg_t["bytes_per_s"], "B/s"),
                       r=nt_t["bytes_per_s"] / reg_t["bytes_per_s"]))
    return out


def _bandwidth_not_roofs(doc: dict) -> list[dict]:
    return [msg("Not used as a roof: {level} {kernel} x{threads} — {reason}.", level=c["level"], kernel=c["kernel"],
                threads=c["threads"], reason=c["reason"])
            for c in doc["ceilings"]["bandwidth"] if c.get("status") in ("refused", "impossible") and c.get("reason")]


def measure_observations(doc: dict) -> list[dict]:
    out = _load_caveat(doc)
    out += _trust_obs(doc)
    out += _compute_obs(doc)
    out += _bandwidth_obs(doc)
    out += _dram_roof_obs(doc)
    out += _bandwidth_not_roofs(doc)
    out += _sweep_obs(doc)
    return out


def fma_observations(doc: dict) -> list[dict]:
    a = doc.get("analysis") or {}
    pts = [p for p in doc["points"] if p.get("flops_per_s")]
    if not a or not pts:
        return [msg("No FMA variant could be measured.")]
    out = _load_caveat(doc)
    lat, thr = a.get("latency_cycles"), a["throughput_fma_per_cycle"]
    bits = doc["vector_bits"]
    one = next((p for p in pts if p["chains"] == 1), None)
    if one and lat:
        out.append(msg("One chain: {rate}, one {bits}-bit FMA every {lat:.1f} cycles — the FMA latency; the units sit "
                       "idle waiting for the previous result.", rate=si(one["flops_per_s"], "FLOP/s"), bits=bits,
                       lat=lat))
    peak = (msg(", {frac} of one core's theoretical peak", frac=pct(a["best_of_peak"], 1))
            if a.get("best_of_peak") else "")
    out.append(msg("The best clean variant ({chains} chains) issues {thr:.2f} {bits}-bit FMAs per cycle, {rate}{peak}.",
                   chains=a["best_chains"], thr=thr, bits=bits, rate=si(a["best_flops_per_s"], "FLOP/s"), peak=peak))
    exp = a.get("expected_fma_per_cycle")
    if exp:
        out.append(msg("The micro-architecture table expects {exp:g} such FMAs per cycle; measured {thr:.2f}.",
                       exp=exp, thr=thr))
    if lat:
        out.append(msg("Little's law: chains in flight = latency x throughput = {lat:.1f} x {thr:.2f} = {need:.1f}; the "
                       "measured curve reaches 95% of its best at {sat} chains.", lat=lat, thr=thr,
                       need=a["littles_law_chains"], sat=a.get("saturation_chains")))
    sp = a.get("first_spill_chains")
    if sp:
        after = [p for p in pts if p["chains"] >= sp]
        worst = min(after, key=lambda p: p["fma_per_cycle"]) if after else None
        if worst and worst["fma_per_cycle"] < 0.9 * thr:
            tail = msg(", and the rate drops to {rate:.2f} FMAs per cycle at {chains} chains. That fall is the compiler "
                       "running out of registers, not the FMA units.", rate=worst["fma_per_cycle"],
                       chains=worst["chains"])
        else:
            tail = msg("; the loads and stores still fit beside the FMAs here, so the rate holds.")
        out.append(msg("From {sp} chains on the accumulators no longer fit in the {regs} vector registers: the "
                       "assembly shows stack loads and stores in the loop (spills){tail}", sp=sp,
                       regs=doc["vector_registers"], tail=tail))
    else:
        out.append(msg("No variant spilled up to {chains} chains.", chains=pts[-1]["chains"]))
    return out


# the step each rung adds, as the ladder records it ("cache blocking: ..."): its short name, translatable
_STEPS = {
    "baseline": lambda: msg("baseline"),
    "loop order": lambda: msg("loop order"),
    "cache blocking": lambda: msg("cache blocking"),
    "register reuse": lambda: msg("register reuse"),
    "packing": lambda: msg("packing"),
    "SIMD microkernel for this ISA": lambda: msg("SIMD microkernel for this ISA"),
    "threads": lambda: msg("threads"),
}


def _step(step: str):
    what = step.split(":")[0]
    f = _STEPS.get(what)
    return f() if f else what


def ladder_observations(doc: dict) -> list[dict]:
    rungs = [r for r in doc["rungs"] if r.get("flops_per_s")]
    out = _load_caveat(doc)
    own = [r for r in rungs if r["own"]]
    prev = None
    for r in own:
        if prev is not None:
            f = r["flops_per_s"] / prev["flops_per_s"]
            what = r["step"].split(":")[0]
            note = ""
            caches = doc.get("caches") or {}
            ws = 3 * 4 * doc["n"] ** 2
            if what == "cache blocking" and f < 1.05 and caches.get("L3") and ws <= caches["L3"]:
                note = msg("; at n = {n} the three matrices ({ws}) already fit the {l3} L3, so blocking has little to "
                           "save and its loop overhead shows", n=doc["n"], ws=binary_bytes(ws),
                           l3=binary_bytes(caches["L3"]))
            if what == "packing" and (r.get("params") or {}).get("profile") == "portable":
                note = (msg("; this rung's microkernel is built for the baseline ISA (128-bit), which the next rung "
                            "lifts") if (r.get("audit") or {}).get("fma") else
                        msg("; this rung's microkernel is built for the baseline ISA (128-bit, no FMA), which the next "
                            "rung lifts"))
            out.append(msg("{name} vs {prev}: {f:.2f}x ({what}){note}.", name=r["name"], prev=prev["name"], f=f,
                           what=_step(r["step"]), note=note))
        prev = r
    for r in doc["rungs"]:
        if r.get("error"):
            out.append(msg("{name}: not timed — {error}.", name=r["name"], error=r["error"]))
        if r.get("audit_problem"):
            out.append(msg("{name}: the microkernel's loop does not match its tile — {problem}.", name=r["name"],
                           problem=r["audit_problem"]))
    for t in sorted({r["threads"] for r in own}):
        mine = [r for r in own if r["threads"] == t]
        blas = next((r for r in rungs if not r["own"] and r["threads"] == t), None)
        if not mine:
            continue
        best = max(mine, key=lambda r: r["ratio_to_blas"])
        lo, hi = best["ratio_to_blas_ci95"]
        extra = []
        if best.get("of_peak"):
            extra.append(msg(", {frac} of the fp32 FMA peak", frac=pct(best["of_peak"])))
        if blas and blas.get("of_peak"):
            extra.append(msg("; BLAS itself reaches {frac}", frac=pct(blas["of_peak"])))
        out.append(msg("On {t} thread(s) the best own rung, {name}, runs at {r:.2f}x BLAS (median of per-round ratios, "
                       "95% CI {lo:.2f}–{hi:.2f}){extra}.", t=t, name=best["name"], r=best["ratio_to_blas"], lo=lo,
                       hi=hi, extra=join(extra, "")))
    first, last = (own[0], max(own, key=lambda r: r["flops_per_s"])) if own else (None, None)
    if first and last and last is not first:
        out.append(msg("From {first} to {last}: {f:.0f}x, with the same arithmetic — only the order of memory accesses, "
                       "reuse and instructions changed.", first=first["name"], last=last["name"],
                       f=last["flops_per_s"] / first["flops_per_s"]))
    return out


def _ok(rows: list[dict]) -> list[dict]:
    return [r for r in rows if r.get("flops_per_s")]


def loops_observations(doc: dict) -> list[dict]:
    rows = _ok(doc["orders"])
    if not rows:
        return [msg("No loop order could be measured.")]
    out = _load_caveat(doc)
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(r["inner"], []).append(r)
    for inner in ("j", "k", "i"):
        g = groups.get(inner)
        if not g:
            continue
        vb = sorted(x for x in {r.get("vector_bits") for r in g} if x is not None)
        code = ""
        if vb:
            code = msg(" — compiled to {widths} code", widths=join(
                [msg("{b}-bit", b=b) if b else msg("scalar") for b in vb], "/"))
        out.append(msg("{names} ({group}): {rates}{code}.", names=join([r["order"] for r in g], " and "),
                       group=g[0]["group"], rates=join([si(r["flops_per_s"], "FLOP/s") for r in g], ", "), code=code))
    best = max(rows, key=lambda r: r["flops_per_s"])
    worst = min(rows, key=lambda r: r["flops_per_s"])
    out.append(msg("Same arithmetic, {f:.0f}x apart: {best} is the fastest, {worst} the slowest at n = {n} — the order "
                   "decides whether each cache line brought in is used whole or for one element.",
                   f=best["flops_per_s"] / worst["flops_per_s"], best=best["order"], worst=worst["order"], n=doc["n"]))
    return out


def blocking_observations(doc: dict) -> list[dict]:
    out = _load_caveat(doc)
    out.append(msg("Predicted block size from the caches: BS = {bs} ({rule}, L2 = {l2}).", bs=doc["predicted_bs"],
                   rule=doc["rule"], l2=binary_bytes(doc["L2"])))
    for case in doc["cases"]:
        rows = _ok(case["rows"])
        blocked = [r for r in rows if r.get("bs")]
        base = next((r for r in rows if r.get("bs") is None), None)
        if not blocked:
            continue
        best = max(blocked, key=lambda r: r["flops_per_s"])
        extra = []
        pred = next((r for r in blocked if r["bs"] == doc["predicted_bs"]), None)
        if pred and pred is not best:
            extra.append(msg("; the predicted BS = {bs} reaches {frac} of it", bs=pred["bs"],
                             frac=pct(pred["flops_per_s"] / best["flops_per_s"])))
        if base:
            extra.append(msg("; unblocked ikj: {rate} ({f:.2f}x)", rate=si(base["flops_per_s"], "FLOP/s"),
                             f=best["flops_per_s"] / base["flops_per_s"]))
        args = dict(n=case["n"], ab=binary_bytes(case["operands_bytes"]), llc=binary_bytes(doc["LLC"]), bs=best["bs"],
                    rate=si(best["flops_per_s"], "FLOP/s"), extra=join(extra, ""))
        if case["fits_llc"]:
            out.append(msg("n = {n} (A and B: {ab}, they fit the {llc} last-level cache): best BS = {bs} at "
                           "{rate}{extra}.", **args))
        else:
            out.append(msg("n = {n} (A and B: {ab}, they do not fit the {llc} last-level cache): best BS = {bs} at "
                           "{rate}{extra}.", **args))
        small = min(blocked, key=lambda r: r["bs"])
        if small is not best:
            out.append(msg("n = {n}: BS = {bs} runs at {frac} of the best — tiny blocks spend their time in loop "
                           "overhead and short vector loops.", n=case["n"], bs=small["bs"],
                           frac=pct(small["flops_per_s"] / best["flops_per_s"])))
    return out


def vectorize_observations(doc: dict) -> list[dict]:
    rows = _ok(doc["flags"])
    if not rows:
        return [msg("No flag combination could be measured.")]
    out = _load_caveat(doc)
    for r in rows:
        vb = r.get("vector_bits")
        width = msg("{bits}-bit vectors", bits=vb) if vb else msg("scalar code")
        rep = r.get("report") or []
        said = msg("; the compiler says: {said}", said=rep[0]) if rep else ""
        out.append(msg("{label}: {rate} with {width} in the inner loop{said}.", label=r["label"],
                       rate=si(r["flops_per_s"], "FLOP/s"), width=width, said=said))
    worst = min(rows, key=lambda r: r["flops_per_s"])
    best = max(rows, key=lambda r: r["flops_per_s"])
    out.append(msg("Compiler contribution: {f:.1f}x from {worst} to {best} on the same source.",
                   f=best["flops_per_s"] / worst["flops_per_s"], worst=worst["label"], best=best["label"]))
    c = {r.get("role"): r for r in _ok(doc.get("contributions", []))}
    nat = next((r for r in rows if r["label"].startswith("-O3 -m") and "fast" not in r["label"]), None)
    if nat and "layout" in c:
        out.append(msg("Layout contribution: ikj runs {f:.1f}x ijk with the same flags — the inner loop must walk "
                       "memory contiguously before any vector unit can help.",
                       f=nat["flops_per_s"] / c["layout"]["flops_per_s"]))
    if nat and "threads" in c:
        out.append(msg("Threads contribution: {f:.2f}x on {t} threads.", f=c["threads"]["flops_per_s"] /
                       nat["flops_per_s"], t=c["threads"]["threads"]))
    return out


def tiles_observations(doc: dict) -> list[dict]:
    rows = _ok(doc["tiles"])
    if not rows:
        return [msg("No tile could be measured.")]
    out = _load_caveat(doc)
    regs = doc["vector_registers"]
    clean = [r for r in rows if not r.get("spills")]
    best = max(rows, key=lambda r: r["flops_per_s"])
    out.append(msg("Best tile: {name} at {rate}, {acc} accumulators + {other} other registers of {regs} ({bits}-bit), "
                   "{lpf:.2f} loads per FMA.", name=best["name"], rate=si(best["flops_per_s"], "FLOP/s"),
                   acc=best["accumulators"], other=best["registers_needed"] - best["accumulators"], regs=regs,
                   bits=doc["vector_bits"], lpf=best["loads_per_fma"]))
    spilled = [r for r in rows if r.get("spills")]
    if spilled:
        first = min(spilled, key=lambda r: r["registers_needed"])
        args = dict(need=first["registers_needed"], name=first["name"], regs=regs)
        if not best.get("spills"):
            out.append(msg("Spills appear from {need} registers needed ({name}): more accumulators than the {regs} "
                           "registers can hold; the best tile stays below that.", **args))
        else:
            out.append(msg("Spills appear from {need} registers needed ({name}): more accumulators than the {regs} "
                           "registers can hold; here a spilling tile still measured best, so the spills sit off the "
                           "critical path.", **args))
    else:
        out.append(msg("No tile in this sweep spilled ({regs} registers).", regs=regs))
    if clean:
        small = min(clean, key=lambda r: r["accumulators"])
        out.append(msg("Smallest tile {name}: {lpf:.2f} loads per FMA, {frac} of the best — too few accumulators to "
                       "hide the FMA latency and too many loads per FMA.", name=small["name"],
                       lpf=small["loads_per_fma"], frac=pct(small["flops_per_s"] / best["flops_per_s"])))
    return out


def bench_observations(doc: dict) -> list[dict]:
    out = _load_caveat(doc)
    for k in doc["kernels"]:
        if k.get("error"):
            out.append(msg("{name}: did not compile — see the compiler's message above.", name=k["name"]))
            continue
        ok = [r for r in k["sizes"] if r.get("flops_per_s") is not None]
        for r in k["sizes"]:
            if r.get("error"):
                out.append(msg("{label}: {kind} — {error}.", label=r["label"], kind=r["error_kind"], error=r["error"]))
        if not ok:
            continue
        if not k["sizes"][0].get("checked"):
            out.append(msg("{name}: no [check] in the spec, so its results were not verified.", name=k["name"]))
        for r in ok:
            if r.get("of_roof") is None:
                continue
            above = (msg(" — above its roof, which is impossible: the FLOP or byte count in the spec and the "
                         "roofline's traffic model disagree (the ceilings count bytes as STREAM does, without "
                         "write-allocate traffic), or the measurement was disturbed") if r.get("above_roof") else "")
            bound = msg("memory") if r["bound"] == "memory" else msg("compute") if r["bound"] == "compute" else r["bound"]
            out.append(msg("{label}: {rate} at {i:.3g} FLOP/byte, {frac} of its roof ({bound}-bound by {by}; working "
                           "set {ws} in {level}){above}.", label=r["label"], rate=si(r["flops_per_s"], "FLOP/s"),
                           i=r["intensity"], frac=pct(r["of_roof"]), bound=bound, by=r["bound_by"],
                           ws=binary_bytes(r["working_set_bytes"]), level=r["level"], above=above))
        if len(ok) >= 2:
            best = max(ok, key=lambda r: r.get("of_roof") or 0)
            worst = min(ok, key=lambda r: r.get("of_roof") or 0)
            if best is not worst and best.get("of_roof") and worst.get("of_roof"):
                out.append(msg("{name}: closest to its roof at {best} ({bfrac}), farthest at {worst} ({wfrac}).",
                               name=k["name"], best=best["label"].split(" ", 1)[1], bfrac=pct(best["of_roof"]),
                               worst=worst["label"].split(" ", 1)[1], wfrac=pct(worst["of_roof"])))
    return out


def compare_observations(doc: dict) -> list[dict]:
    out = _load_caveat(doc)
    a = doc["a"].get("name", f"run {doc['a'].get('run_id')}")
    b = doc["b"].get("name", f"run {doc['b'].get('run_id')}")
    how = (msg("paired per-round ratios of interleaved rounds") if doc["mode"] == "kernels" else
           msg("ratio of medians of two separate runs (unpaired, bootstrap CI)"))
    for r in doc["rows"]:
        where = " ".join(f"{k}={v}" for k, v in r["size"].items())
        if doc["mode"] == "runs":
            where = f"{r['kernel']} {where}"
        if r.get("error"):
            out.append(msg("{where}: not compared — {error}.", where=where, error=r["error"]))
            continue
        lo, hi = r["speedup_ci95"]
        verdict = {"faster": lambda: msg("{b} is faster", b=b), "slower": lambda: msg("{b} is slower", b=b),
                   "no difference": lambda: msg("no measurable difference")}[r["verdict"]]()
        out.append(msg("{where}: {verdict} — {b} runs {s:.3f}x the speed of {a} (95% CI {lo:.3f}–{hi:.3f}; {how}; "
                       "differences under {th:.0%} are not called).", where=where, verdict=verdict, b=b,
                       s=r["speedup"], a=a, lo=lo, hi=hi, how=how, th=doc["threshold"]))
    for d in doc.get("record_differences", [])[:12]:
        out.append(msg("The two records differ: {d}.", d=d))
    return out


def profile_observations(doc: dict) -> list[dict]:
    out = []
    c = doc["counters"]
    model = doc["model"]
    size = " ".join(f"{k}={v}" for k, v in doc["size"].items())
    if doc["method"] == "cachegrind":
        out.append(msg("{reason}; the counts below are simulated by cachegrind with this machine's cache geometry "
                       "({geometry}).", reason=doc["fallback_reason"],
                       geometry=join([f"{k} {v}" for k, v in doc["cachegrind"]["geometry"].items()], ", ")))
        out.append(msg("{name} at {size}: {ins:.4g} instructions, {d1:.4g} D1 misses and {ll:.4g} last-level misses "
                       "per call.", name=doc["kernel"]["name"], size=size, ins=c["instructions"], d1=c["d1_misses"],
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


def threads_observations(doc: dict) -> list[dict]:
    out = _load_caveat(doc)
    g = [r for r in doc["gemm"] if r.get("speedup")]
    tr_ = [r for r in doc["triad"] if r.get("speedup")]
    if len(g) > 1:
        last = g[-1]
        why = (msg("each core brings its own FMA units") if last["efficiency"] >= 0.75 else
               msg("far from linear: the threads shared execution units or were disturbed (see the warnings)"))
        out.append(msg("Compute-bound GEMM (n = {n}): {s:.2f}x on {t} threads, {eff} efficiency — {why}.",
                       n=doc["gemm_n"], s=last["speedup"], t=last["threads"], eff=pct(last["efficiency"]), why=why))
    if len(tr_) > 1:
        last = tr_[-1]
        out.append(msg("Bandwidth-bound triad ({ws}): {s:.2f}x on {t} threads, {eff} efficiency — the cores share one "
                       "memory system.", ws=binary_bytes(doc["triad_bytes"]), s=last["speedup"], t=last["threads"],
                       eff=pct(last["efficiency"])))
        sat = next((r for r in tr_[1:] if r["speedup"] / tr_[tr_.index(r) - 1]["speedup"] < 1.1), None)
        if sat:
            out.append(msg("Bandwidth saturates by {t} threads: adding threads there gained under 10% ({bw}).",
                           t=sat["threads"], bw=si(sat["bytes_per_s"], "B/s")))
        else:
            out.append(msg("Bandwidth had not saturated at {t} threads ({bw}).", t=last["threads"],
                           bw=si(last["bytes_per_s"], "B/s")))
    if len(g) > 1 and len(tr_) > 1:
        r = g[-1]["speedup"] / tr_[-1]["speedup"]
        out.append(msg("Threads gave the compute-bound kernel {r:.2f}x the speed-up of the memory-bound one: bandwidth, "
                       "not arithmetic, is what the cores share.", r=r) if r > 1.05 else
                   msg("Threads gave the compute-bound kernel {r:.2f}x the speed-up of the memory-bound one.", r=r))
    return out


def imbalance_observations(doc: dict) -> list[dict]:
    out = _load_caveat(doc)
    c = {x["name"]: x for x in doc["cases"] if not x.get("error")}
    for name in ("coarse", "fine"):
        x = c.get(name)
        if x:
            args = dict(what=x["what"], wall=seconds(x["wall_s"]), busy=join([seconds(b) for b in x["busy_s"]], ", "),
                        idle=pct(x["idle_fraction"]))
            out.append(msg("coarse ({what}): wall {wall}; busy per thread {busy}; {idle} of the thread time is spent "
                           "waiting at the barrier.", **args) if name == "coarse" else
                       msg("fine ({what}): wall {wall}; busy per thread {busy}; {idle} of the thread time is spent "
                           "waiting at the barrier.", **args))
    if "coarse" in c and "fine" in c:
        r = c["coarse"]["wall_s"] / c["fine"]["wall_s"]
        out.append(msg("Coarse takes {r:.2f}x the time of fine, where the strip count predicts {p:.2f}x: the job lasts as "
                       "long as its slowest thread. With {strips} strips on {t} threads one thread works twice while "
                       "the others idle; at 49 strips on 48 threads that is almost 2x.", r=r,
                       p=doc["predicted_coarse_over_fine"], strips=doc["threads"] + 1, t=doc["threads"]))
    return out


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


def gpu_observations(doc: dict) -> list[dict]:
    """`measure --device cuda`: what the GPU's ceilings, clock, bandwidth and batch sweep say."""
    out = []
    g = doc["gpu"]
    w = doc.get("warmup") or {}
    if w.get("first_clock_hz") and w.get("last_clock_hz") and w["last_clock_hz"] > 1.05 * w["first_clock_hz"]:
        out.append(msg("The SM clock rose from {a:.2f} to {b:.2f} GHz while the GPU warmed up ({s:.1f} s): a roofline "
                       "measured before the boost would be that much too low.", a=w["first_clock_hz"] / 1e9,
                       b=w["last_clock_hz"] / 1e9, s=w["seconds"]))
    cc = doc["ceilings"]["compute"]
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
    bw = doc["ceilings"]["bandwidth"]
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
    out += _gpu_sweep_obs(doc)
    return out


def _gpu_sweep_obs(doc: dict) -> list[dict]:
    roofs = _sweep_roofs(doc)
    if roofs is None:
        return []
    pts, info, peak, bw = roofs
    rp = peak / bw
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
    return out + _above_roof(pts)

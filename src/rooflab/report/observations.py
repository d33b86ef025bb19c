"""Observations written from the numbers a run just measured (pure: a document in, sentences out).

Every sentence quotes what was measured; rules only decide which sentences apply. A run with a competing-load
warning says first that its figures may be low.
"""

from __future__ import annotations

from .format import binary_bytes, pct, seconds, si


def _find(items, **kw):
    for x in items:
        if all(x.get(k) == v for k, v in kw.items()) and x.get("status") == "ok":
            return x
    return None


def _load_caveat(doc: dict) -> list[str]:
    for w in doc.get("warnings", []):
        if w.get("code") == "competing-load":
            return [f"Other work was running during this measurement ({w['seen']:.2f} core(s) on average): the "
                    "figures below may be low, and the observations with them. Rerun on a quiet machine."]
    return []


def _compute_obs(doc: dict) -> list[str]:
    obs = []
    cc = doc["ceilings"]["compute"]
    tall = doc["threads_all"]
    m = doc["machine"]
    for prec in ("fp32", "fp64"):
        fma1 = _find(cc, precision=prec, klass="simd_fma", threads=1)
        fman = _find(cc, precision=prec, klass="simd_fma", threads=tall)
        if fma1 and fma1.get("of_theoretical") is not None:
            obs.append(f"{prec} SIMD FMA on one thread: {si(fma1['flops_per_s'], 'FLOP/s')}, "
                       f"{pct(fma1['of_theoretical'], 1)} of the theoretical peak at the clock measured beside it "
                       f"({fma1['clock_hz_during'] / 1e9:.2f} GHz, {m['uarch']['fma_pipes']} FMA pipes x "
                       f"{m['uarch']['fma_bits']} bits).")
        if fma1 and fman and tall > 1:
            sp = fman["flops_per_s"] / fma1["flops_per_s"]
            cores = min(tall, m["physical_cores"])
            if sp >= 0.75 * cores:
                obs.append(f"{prec} FMA scales {sp:.2f}x from 1 to {tall} threads: compute shares nothing between "
                           f"cores, so close to {cores}x is expected.")
            else:
                obs.append(f"{prec} FMA scales only {sp:.2f}x from 1 to {tall} threads, while each thread's clock "
                           "held: these CPUs share FMA units (SMT siblings, or virtual CPUs placed on one host core).")
        scal = _find(cc, precision=prec, klass="scalar", threads=1)
        simd = _find(cc, precision=prec, klass="simd", threads=1)
        if fma1 and scal:
            lanes = fma1["vector_bits"] // (32 if prec == "fp32" else 64)
            obs.append(f"{prec}: SIMD FMA is {fma1['flops_per_s'] / scal['flops_per_s']:.1f}x scalar FMA "
                       f"({fma1['vector_bits']}-bit registers hold {lanes} lanes"
                       + (f"; the {m['uarch']['fma_bits']}-bit pipes run {m['uarch']['fma_bits'] // (32 if prec == 'fp32' else 64)} per cycle each"
                          if m['uarch']['fma_bits'] < fma1['vector_bits'] else "") + ").")
        if fma1 and simd:
            r = fma1["flops_per_s"] / simd["flops_per_s"]
            why = ("this core has separate FP add pipes, so multiplies and adds issued apart keep up with FMA"
                   if m["uarch"].get("add_pipes") else "without FMA, a multiply and an add take two issue slots")
            obs.append(f"{prec}: FMA gives {r:.2f}x the FLOP rate of separate multiply and add ({why}).")
        blas = _find(cc, precision=prec, klass="blas_gemm", threads=tall)
        if blas and fman:
            obs.append(f"{prec} BLAS GEMM on {tall} thread(s) reaches {pct(blas['flops_per_s'] / fman['flops_per_s'])} "
                       "of the FMA-chain ceiling: the achievable roof for real code.")
    for c in cc:
        if c.get("status") in ("refused", "above-limit"):
            obs.append(f"Not used as a roof: {c['name']} x{c['threads']} — {c['reason']}.")
    return obs


def _bandwidth_obs(doc: dict) -> list[str]:
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
            ratio = (p.get("boundary_bytes") or p["end_bytes"]) / rep if rep else None
            edge = p.get("boundary_bytes") or p["end_bytes"]
            parts.append(f"{p['level']} until about {binary_bytes(edge)}" +
                         (f" (the OS reports {binary_bytes(rep)}; {ratio:.2g}x)" if rep else ""))
        if parts:
            obs.append("One-thread read plateaus found from the curve: " + "; ".join(parts) + ".")
        missing = [lv for lv in caches if lv not in {p["level"] for p in sw["plateaus"]}]
        if missing:
            obs.append(f"No separate plateau for {', '.join(missing)} in the one-thread read sweep: its bandwidth "
                       "is not distinguishable from its neighbour's here.")
    bw = doc["ceilings"]["bandwidth"]
    d1 = _find(bw, level="DRAM", kernel="triad", threads=1)
    dn = _find(bw, level="DRAM", kernel="triad", threads=tall)
    if d1 and dn and tall > 1:
        obs.append(f"DRAM triad: {si(d1['bytes_per_s'], 'B/s')} on one thread, {si(dn['bytes_per_s'], 'B/s')} on {tall} "
                   f"({dn['bytes_per_s'] / d1['bytes_per_s']:.2f}x). One core cannot keep enough cache misses in flight "
                   "to fill the memory system (Little's law: bandwidth = misses in flight x line size / latency).")
    l1 = _find(bw, level="L1", kernel="read", threads=1)
    dr = _find(bw, level="DRAM", kernel="read", threads=1)
    if l1 and dr:
        obs.append(f"One thread reads {l1['bytes_per_s'] / dr['bytes_per_s']:.0f}x faster from L1 "
                   f"({si(l1['bytes_per_s'], 'B/s')}) than from DRAM ({si(dr['bytes_per_s'], 'B/s')}): blocking for "
                   "cache is worth that much to a memory-bound kernel.")
    gemv = next((x for x in bw if x["kernel"].startswith("BLAS GEMV") and x["threads"] == tall and
                 x.get("status") == "ok"), None)
    if gemv and dn:
        obs.append(f"BLAS GEMV streams {si(gemv['bytes_per_s'], 'B/s')} on {tall} thread(s), "
                   f"{pct(gemv['bytes_per_s'] / dn['bytes_per_s'])} of the C triad's DRAM ceiling.")
    return obs


def _sweep_obs(doc: dict) -> list[str]:
    pts = doc.get("sweep") or []
    info = doc.get("sweep_info") or {}
    if not pts or not info.get("compute_roof") or not info.get("memory_roof"):
        return []
    peak = info["compute_roof"]["flops_per_s"]
    bw = info["memory_roof"]["bytes_per_s"]
    rp = peak / bw
    obs = [f"Ridge point of this machine: {si(peak, 'FLOP/s')} / {si(bw, 'B/s')} = {rp:.1f} FLOP/byte (fp32 FMA "
           "roof over the DRAM roof): below it a kernel waits for memory, above it for arithmetic."]
    mem = [p for p in pts if p["intensity"] < rp / 2 and not p["above_roof"]]
    if len(mem) >= 2:
        lo, hi = min(p["of_predicted"] for p in mem), max(p["of_predicted"] for p in mem)
        b0, b1 = mem[0], mem[-1]
        tgrow = b1["time_s"] / b0["time_s"]
        bgrow = b1["B"] / b0["B"]
        head = (f"Memory-bound region (B = {b0['B']}..{b1['B']}): {pct(lo)}–{pct(hi)} of the roofline prediction; "
                f"B grew {bgrow:.0f}x and the time {tgrow:.1f}x")
        if tgrow < bgrow / 2:
            obs.append(head + " — FLOP/s rise almost linearly with B because the time goes into reading W once.")
        else:
            obs.append(head + " — the BLAS does not turn the extra rows into nearly free work here, so this region "
                       "falls short of the linear rise the roofline predicts.")
    comp = [p for p in pts if p["intensity"] > 2 * rp and not p["above_roof"]]
    if comp:
        lo = min(comp, key=lambda p: p["of_peak"])
        hi = max(comp, key=lambda p: p["of_peak"])
        if hi["of_peak"] - lo["of_peak"] < 0.15 * hi["of_peak"]:
            obs.append(f"Compute-bound region (B >= {comp[0]['B']}): {pct(lo['of_peak'])}–{pct(hi['of_peak'])} of the "
                       "FMA peak; the curve is flat and the time grows in proportion to B.")
        else:
            obs.append(f"Past the ridge (B >= {comp[0]['B']}) the curve keeps climbing, from {pct(lo['of_peak'])} of "
                       f"the FMA peak (B = {lo['B']}) to {pct(hi['of_peak'])} (B = {hi['B']}): the BLAS needs far more "
                       "rows than the ridge point to amortize its packing and blocking; the roofline gives the "
                       "bound, not the shape.")
    half = next((p for p in pts if p["flops_per_s"] >= 0.5 * peak and not p["above_roof"]), None)
    if half:
        obs.append(f"The first B reaching half of the peak is B = {half['B']} (intensity {half['intensity']:.0f} "
                   "FLOP/byte).")
    g = next((p for p in pts if p["B"] == 1), None)
    skinny = [p for p in pts if 2 <= p["B"] <= 16]
    if g and skinny:
        worst = min(skinny, key=lambda p: p["bytes_per_s"])
        if g["bytes_per_s"] > 1.5 * max(p["bytes_per_s"] for p in skinny):
            obs.append(f"GEMV vs skinny GEMM: B = 1 streams {si(g['bytes_per_s'], 'B/s')}, but B = 2..16 only "
                       f"{si(worst['bytes_per_s'], 'B/s')} at worst (B = {worst['B']}): NumPy sends B = 1 to GEMV and "
                       "B >= 2 to a GEMM that does not use the bandwidth for very thin inputs. The roofline is an "
                       "upper bound; how close a kernel gets depends on how it is written.")
        else:
            obs.append(f"No GEMV vs skinny-GEMM gap here: B = 2..16 stream at least {si(worst['bytes_per_s'], 'B/s')}, "
                       f"against {si(g['bytes_per_s'], 'B/s')} for GEMV at B = 1.")
    bad = [p for p in pts if p["above_roof"]]
    if bad:
        obs.append("Above their roof (a measurement problem, not a discovery; drawn as x): " +
                   ", ".join(f"B = {p['B']} at {pct(p['of_predicted'])}" for p in bad) + ".")
    return obs


def measure_observations(doc: dict) -> list[str]:
    out = _load_caveat(doc)
    out += _compute_obs(doc)
    out += _bandwidth_obs(doc)
    out += _sweep_obs(doc)
    return out


def fma_observations(doc: dict) -> list[str]:
    a = doc.get("analysis") or {}
    pts = [p for p in doc["points"] if p.get("flops_per_s")]
    if not a or not pts:
        return ["No FMA variant could be measured."]
    out = _load_caveat(doc)
    lat, thr = a.get("latency_cycles"), a["throughput_fma_per_cycle"]
    one = next((p for p in pts if p["chains"] == 1), None)
    if one and lat:
        out.append(f"One chain: {si(one['flops_per_s'], 'FLOP/s')}, one {doc['vector_bits']}-bit FMA every "
                   f"{lat:.1f} cycles — the FMA latency; the units sit idle waiting for the previous result.")
    out.append(f"The best clean variant ({a['best_chains']} chains) issues {thr:.2f} {doc['vector_bits']}-bit FMAs per "
               f"cycle, {si(a['best_flops_per_s'], 'FLOP/s')}"
               + (f", {pct(a['best_of_peak'], 1)} of one core's theoretical peak" if a.get("best_of_peak") else "")
               + ".")
    exp = a.get("expected_fma_per_cycle")
    if exp:
        out.append(f"The micro-architecture table expects {exp:g} such FMAs per cycle; measured {thr:.2f}.")
    if lat:
        need = a["littles_law_chains"]
        sat = a.get("saturation_chains")
        out.append(f"Little's law: chains in flight = latency x throughput = {lat:.1f} x {thr:.2f} = {need:.1f}; the "
                   f"measured curve reaches 95% of its best at {sat} chains.")
    sp = a.get("first_spill_chains")
    if sp:
        after = [p for p in pts if p["chains"] >= sp]
        worst = min(after, key=lambda p: p["fma_per_cycle"]) if after else None
        out.append(f"From {sp} chains on the accumulators no longer fit in the {doc['vector_registers']} vector "
                   "registers: the assembly shows stack loads and stores in the loop (spills)"
                   + (f", and the rate drops to {worst['fma_per_cycle']:.2f} FMAs per cycle at {worst['chains']} "
                      "chains. That fall is the compiler running out of registers, not the FMA units."
                      if worst and worst["fma_per_cycle"] < 0.9 * thr else
                      "; the loads and stores still fit beside the FMAs here, so the rate holds."))
    else:
        out.append(f"No variant spilled up to {pts[-1]['chains']} chains.")
    return out


def ladder_observations(doc: dict) -> list[str]:
    rungs = [r for r in doc["rungs"] if r.get("flops_per_s")]
    out = _load_caveat(doc)
    own = [r for r in rungs if r["own"]]
    prev = None
    for r in own:
        if prev is not None:
            f = r["flops_per_s"] / prev["flops_per_s"]
            what = r["step"].split(":")[0]
            line = f"{r['name']} vs {prev['name']}: {f:.2f}x ({what})"
            caches = doc.get("caches") or {}
            ws = 3 * 4 * doc["n"] ** 2
            if what == "cache blocking" and f < 1.05 and caches.get("L3") and ws <= caches["L3"]:
                line += (f"; at n = {doc['n']} the three matrices ({binary_bytes(ws)}) already fit the "
                         f"{binary_bytes(caches['L3'])} L3, so blocking has little to save and its loop overhead shows")
            if what == "packing" and (r.get("params") or {}).get("profile") == "portable":
                line += ("; this rung's microkernel is built for the baseline ISA (128-bit"
                         + (", no FMA" if not (r.get("audit") or {}).get("fma") else "") + "), which the next rung lifts")
            out.append(line + ".")
        prev = r
    for r in doc["rungs"]:
        if r.get("error"):
            out.append(f"{r['name']}: not timed — {r['error']}.")
        if r.get("audit_problem"):
            out.append(f"{r['name']}: the microkernel's loop does not match its tile — {r['audit_problem']}.")
    for t in sorted({r["threads"] for r in own}):
        mine = [r for r in own if r["threads"] == t]
        blas = next((r for r in rungs if not r["own"] and r["threads"] == t), None)
        if not mine:
            continue
        best = max(mine, key=lambda r: r["ratio_to_blas"])
        lo, hi = best["ratio_to_blas_ci95"]
        line = (f"On {t} thread(s) the best own rung, {best['name']}, runs at {best['ratio_to_blas']:.2f}x BLAS "
                f"(median of per-round ratios, 95% CI {lo:.2f}–{hi:.2f})")
        if best.get("of_peak"):
            line += f", {pct(best['of_peak'])} of the fp32 FMA peak"
        if blas and blas.get("of_peak"):
            line += f"; BLAS itself reaches {pct(blas['of_peak'])}"
        out.append(line + ".")
    first, last = (own[0], max(own, key=lambda r: r["flops_per_s"])) if own else (None, None)
    if first and last and last is not first:
        out.append(f"From {first['name']} to {last['name']}: {last['flops_per_s'] / first['flops_per_s']:.0f}x, "
                   "with the same arithmetic — only the order of memory accesses, reuse and instructions changed.")
    return out


def _ok(rows: list[dict]) -> list[dict]:
    return [r for r in rows if r.get("flops_per_s")]


def loops_observations(doc: dict) -> list[str]:
    rows = _ok(doc["orders"])
    if not rows:
        return ["No loop order could be measured."]
    out = _load_caveat(doc)
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(r["inner"], []).append(r)
    for inner in ("j", "k", "i"):
        g = groups.get(inner)
        if not g:
            continue
        names = " and ".join(r["order"] for r in g)
        rates = ", ".join(si(r["flops_per_s"], "FLOP/s") for r in g)
        vb = {r.get("vector_bits") for r in g}
        vec = "" if vb == {None} else (" — compiled to " + "/".join(f"{b}-bit" if b else "scalar" for b in sorted(
            x for x in vb if x is not None)) + " code")
        out.append(f"{names} ({g[0]['group']}): {rates}{vec}.")
    best = max(rows, key=lambda r: r["flops_per_s"])
    worst = min(rows, key=lambda r: r["flops_per_s"])
    out.append(f"Same arithmetic, {best['flops_per_s'] / worst['flops_per_s']:.0f}x apart: {best['order']} is the "
               f"fastest, {worst['order']} the slowest at n = {doc['n']} — the order decides whether each cache line "
               "brought in is used whole or for one element.")
    return out


def blocking_observations(doc: dict) -> list[str]:
    out = _load_caveat(doc)
    out.append(f"Predicted block size from the caches: BS = {doc['predicted_bs']} ({doc['rule']}, "
               f"L2 = {binary_bytes(doc['L2'])}).")
    for case in doc["cases"]:
        rows = _ok(case["rows"])
        blocked = [r for r in rows if r.get("bs")]
        base = next((r for r in rows if r.get("bs") is None), None)
        if not blocked:
            continue
        best = max(blocked, key=lambda r: r["flops_per_s"])
        fits = "fit" if case["fits_llc"] else "do not fit"
        line = (f"n = {case['n']} (A and B: {binary_bytes(case['operands_bytes'])}, they {fits} the "
                f"{binary_bytes(doc['LLC'])} last-level cache): best BS = {best['bs']} at "
                f"{si(best['flops_per_s'], 'FLOP/s')}")
        pred = next((r for r in blocked if r["bs"] == doc["predicted_bs"]), None)
        if pred and pred is not best:
            line += f"; the predicted BS = {pred['bs']} reaches {pct(pred['flops_per_s'] / best['flops_per_s'])} of it"
        if base:
            line += f"; unblocked ikj: {si(base['flops_per_s'], 'FLOP/s')} ({best['flops_per_s'] / base['flops_per_s']:.2f}x)"
        out.append(line + ".")
        small = min(blocked, key=lambda r: r["bs"])
        if small is not best:
            out.append(f"n = {case['n']}: BS = {small['bs']} runs at {pct(small['flops_per_s'] / best['flops_per_s'])} "
                       "of the best — tiny blocks spend their time in loop overhead and short vector loops.")
    return out


def vectorize_observations(doc: dict) -> list[str]:
    rows = _ok(doc["flags"])
    if not rows:
        return ["No flag combination could be measured."]
    out = _load_caveat(doc)
    for r in rows:
        vb = r.get("vector_bits")
        width = f"{vb}-bit vectors" if vb else "scalar code"
        rep = r.get("report") or []
        said = f"; the compiler says: {rep[0]}" if rep else ""
        out.append(f"{r['label']}: {si(r['flops_per_s'], 'FLOP/s')} with {width} in the inner loop{said}.")
    worst = min(rows, key=lambda r: r["flops_per_s"])
    best = max(rows, key=lambda r: r["flops_per_s"])
    out.append(f"Compiler contribution: {best['flops_per_s'] / worst['flops_per_s']:.1f}x from {worst['label']} to "
               f"{best['label']} on the same source.")
    c = {r.get("role"): r for r in _ok(doc.get("contributions", []))}
    nat = next((r for r in rows if r["label"].startswith("-O3 -m") and "fast" not in r["label"]), None)
    if nat and "layout" in c:
        out.append(f"Layout contribution: ikj runs {nat['flops_per_s'] / c['layout']['flops_per_s']:.1f}x ijk with the "
                   "same flags — the inner loop must walk memory contiguously before any vector unit can help.")
    if nat and "threads" in c:
        out.append(f"Threads contribution: {c['threads']['flops_per_s'] / nat['flops_per_s']:.2f}x on "
                   f"{c['threads']['threads']} threads.")
    return out


def tiles_observations(doc: dict) -> list[str]:
    rows = _ok(doc["tiles"])
    if not rows:
        return ["No tile could be measured."]
    out = _load_caveat(doc)
    regs = doc["vector_registers"]
    clean = [r for r in rows if not r.get("spills")]
    best = max(rows, key=lambda r: r["flops_per_s"])
    out.append(f"Best tile: {best['name']} at {si(best['flops_per_s'], 'FLOP/s')}, {best['accumulators']} accumulators "
               f"+ {best['registers_needed'] - best['accumulators']} other registers of {regs} "
               f"({doc['vector_bits']}-bit), {best['loads_per_fma']:.2f} loads per FMA.")
    spilled = [r for r in rows if r.get("spills")]
    if spilled:
        first = min(spilled, key=lambda r: r["registers_needed"])
        out.append(f"Spills appear from {first['registers_needed']} registers needed ({first['name']}): more "
                   f"accumulators than the {regs} registers can hold; "
                   + ("the best tile stays below that." if not best.get("spills") else
                      "here a spilling tile still measured best, so the spills sit off the critical path."))
    else:
        out.append(f"No tile in this sweep spilled ({regs} registers).")
    if clean:
        small = min(clean, key=lambda r: r["accumulators"])
        out.append(f"Smallest tile {small['name']}: {small['loads_per_fma']:.2f} loads per FMA, "
                   f"{pct(small['flops_per_s'] / best['flops_per_s'])} of the best — too few accumulators to hide the "
                   "FMA latency and too many loads per FMA.")
    return out


def bench_observations(doc: dict) -> list[str]:
    out = _load_caveat(doc)
    for k in doc["kernels"]:
        if k.get("error"):
            out.append(f"{k['name']}: did not compile — see the compiler's message above.")
            continue
        ok = [r for r in k["sizes"] if r.get("flops_per_s") is not None]
        for r in k["sizes"]:
            if r.get("error"):
                out.append(f"{r['label']}: {r['error_kind']} — {r['error']}.")
        if not ok:
            continue
        if not k["sizes"][0].get("checked"):
            out.append(f"{k['name']}: no [check] in the spec, so its results were not verified.")
        for r in ok:
            if r.get("of_roof") is None:
                continue
            line = (f"{r['label']}: {si(r['flops_per_s'], 'FLOP/s')} at {r['intensity']:.3g} FLOP/byte, "
                    f"{pct(r['of_roof'])} of its roof ({r['bound']}-bound by {r['bound_by']}; working set "
                    f"{binary_bytes(r['working_set_bytes'])} in {r['level']})")
            if r.get("above_roof"):
                line += (" — above its roof, which is impossible: the FLOP or byte count in the spec and the roofline's "
                         "traffic model disagree (the ceilings count bytes as STREAM does, without write-allocate "
                         "traffic), or the measurement was disturbed")
            out.append(line + ".")
        if len(ok) >= 2:
            best = max(ok, key=lambda r: r.get("of_roof") or 0)
            worst = min(ok, key=lambda r: r.get("of_roof") or 0)
            if best is not worst and best.get("of_roof") and worst.get("of_roof"):
                out.append(f"{k['name']}: closest to its roof at {best['label'].split(' ', 1)[1]} "
                           f"({pct(best['of_roof'])}), farthest at {worst['label'].split(' ', 1)[1]} "
                           f"({pct(worst['of_roof'])}).")
    return out


def compare_observations(doc: dict) -> list[str]:
    out = _load_caveat(doc)
    a = doc["a"].get("name", f"run {doc['a'].get('run_id')}")
    b = doc["b"].get("name", f"run {doc['b'].get('run_id')}")
    how = ("paired per-round ratios of interleaved rounds" if doc["mode"] == "kernels" else
           "ratio of medians of two separate runs (unpaired, bootstrap CI)")
    for r in doc["rows"]:
        where = " ".join(f"{k}={v}" for k, v in r["size"].items())
        if doc["mode"] == "runs":
            where = f"{r['kernel']} {where}"
        if r.get("error"):
            out.append(f"{where}: not compared — {r['error']}.")
            continue
        lo, hi = r["speedup_ci95"]
        verdict = {"faster": f"{b} is faster", "slower": f"{b} is slower",
                   "no difference": "no measurable difference"}[r["verdict"]]
        out.append(f"{where}: {verdict} — {b} runs {r['speedup']:.3f}x the speed of {a} (95% CI {lo:.3f}–{hi:.3f}; "
                   f"{how}; differences under {doc['threshold']:.0%} are not called).")
    for d in doc.get("record_differences", [])[:12]:
        out.append(f"The two records differ: {d}.")
    return out


def profile_observations(doc: dict) -> list[str]:
    out = []
    c = doc["counters"]
    model = doc["model"]
    size = " ".join(f"{k}={v}" for k, v in doc["size"].items())
    if doc["method"] == "cachegrind":
        out.append(f"{doc['fallback_reason']}; the counts below are simulated by cachegrind with this machine's "
                   f"cache geometry ({', '.join(f'{k} {v}' for k, v in doc['cachegrind']['geometry'].items())}).")
        out.append(f"{doc['kernel']['name']} at {size}: {c['instructions']:.4g} instructions, "
                   f"{c['d1_misses']:.4g} D1 misses and {c['ll_misses']:.4g} last-level misses per call.")
        if model["bytes"]:
            l1 = c["l1_traffic_bytes"] / model["bytes"]
            out.append(f"Traffic past L1 (D1 misses x line) is {binary_bytes(c['l1_traffic_bytes'])} per call, "
                       f"{l1:.2f}x the spec's byte model ({binary_bytes(model['bytes'])})"
                       + ("; the model undercounts the traffic (strided or conflicting access, write-allocate)."
                          if l1 > 1.5 else "; the model holds." if l1 > 0.67 else
                          "; most accesses hit L1 (the data is reused or already cached)."))
            out.append(f"Traffic past the last level (LL misses x line) is {binary_bytes(c['dram_traffic_bytes'])} "
                       f"per call, {c['dram_traffic_bytes'] / model['bytes']:.2f}x the byte model.")
        if model["flops"] and c["instructions"]:
            out.append(f"{c['instructions'] / model['flops']:.2f} instructions per FLOP of the model.")
    else:
        d = doc["derived"]
        if d.get("ipc") is not None:
            w = d.get("issue_width")
            out.append(f"IPC {d['ipc']:.2f}" + (f" against a dispatch width of {w}" if w else "") + ".")
        if d.get("cache_miss_rate") is not None:
            out.append(f"Cache miss rate {pct(d['cache_miss_rate'], 1)}; misses x line = "
                       f"{binary_bytes(d['miss_traffic_bytes_per_call'])} per call against the model's "
                       f"{binary_bytes(model['bytes'])}.")
        if d.get("branch_miss_rate") is not None:
            out.append(f"Branch miss rate {pct(d['branch_miss_rate'], 2)}.")
        for h in doc.get("hotspots", [])[:3]:
            out.append(f"Hotspot: {h['symbol']} ({h['percent']:.1f}% of samples).")
        for h in doc.get("hot_lines", [])[:3]:
            out.append(f"Hot line: {h['symbol']} ({h['percent']:.1f}% of samples).")
    return out


def threads_observations(doc: dict) -> list[str]:
    out = _load_caveat(doc)
    g = [r for r in doc["gemm"] if r.get("speedup")]
    tr = [r for r in doc["triad"] if r.get("speedup")]
    if len(g) > 1:
        last = g[-1]
        why = ("each core brings its own FMA units" if last["efficiency"] >= 0.75 else
               "far from linear: the threads shared execution units or were disturbed (see the warnings)")
        out.append(f"Compute-bound GEMM (n = {doc['gemm_n']}): {last['speedup']:.2f}x on {last['threads']} threads, "
                   f"{pct(last['efficiency'])} efficiency — {why}.")
    if len(tr) > 1:
        last = tr[-1]
        out.append(f"Bandwidth-bound triad ({binary_bytes(doc['triad_bytes'])}): {last['speedup']:.2f}x on "
                   f"{last['threads']} threads, {pct(last['efficiency'])} efficiency — the cores share one memory "
                   "system.")
        sat = next((r for r in tr[1:] if r["speedup"] / tr[tr.index(r) - 1]["speedup"] < 1.1), None)
        if sat:
            out.append(f"Bandwidth saturates by {sat['threads']} threads: adding threads there gained under 10% "
                       f"({si(sat['bytes_per_s'], 'B/s')}).")
        else:
            out.append(f"Bandwidth had not saturated at {last['threads']} threads ({si(last['bytes_per_s'], 'B/s')}).")
    if len(g) > 1 and len(tr) > 1:
        r = g[-1]["speedup"] / tr[-1]["speedup"]
        out.append(f"Threads gave the compute-bound kernel {r:.2f}x the speed-up of the memory-bound one"
                   + (": bandwidth, not arithmetic, is what the cores share." if r > 1.05 else "."))
    return out


def imbalance_observations(doc: dict) -> list[str]:
    out = _load_caveat(doc)
    c = {x["name"]: x for x in doc["cases"] if not x.get("error")}
    for name in ("coarse", "fine"):
        x = c.get(name)
        if x:
            busy = ", ".join(seconds(b) for b in x["busy_s"])
            out.append(f"{name} ({x['what']}): wall {seconds(x['wall_s'])}; busy per thread {busy}; "
                       f"{pct(x['idle_fraction'])} of the thread time is spent waiting at the barrier.")
    if "coarse" in c and "fine" in c:
        r = c["coarse"]["wall_s"] / c["fine"]["wall_s"]
        out.append(f"Coarse takes {r:.2f}x the time of fine, where the strip count predicts "
                   f"{doc['predicted_coarse_over_fine']:.2f}x: the job lasts as long as its slowest thread. "
                   f"With {doc['threads'] + 1} strips on {doc['threads']} threads one thread works twice while the "
                   "others idle; at 49 strips on 48 threads that is almost 2x.")
    return out


def numa_observations(doc: dict) -> list[str]:
    topo = "; ".join(f"node {k}: CPUs {','.join(map(str, v))}" for k, v in doc["topology"].items())
    if doc["single_node"]:
        return [f"This machine has one NUMA node ({topo}; {binary_bytes(doc.get('memory_bytes'))} of memory): every "
                "core reaches all of memory through the same controller at the same distance, so there is no local "
                "and remote memory to compare. On a machine with several nodes (two-socket servers, some large "
                "single-socket parts) this lab binds the threads to one node with numactl and places the memory on "
                "each node in turn."]
    out = [f"Topology: {topo}."]
    local = next((p for p in doc["pairs"] if p["local"]), None)
    for p in doc["pairs"]:
        if p["local"]:
            continue
        line = (f"Memory on node {p['memory_node']} seen from node {p['cpu_node']}: latency "
                f"{p['latency_s'] * 1e9:.0f} ns, triad {si(p['bandwidth_bytes_per_s'], 'B/s')}")
        if local:
            line += (f" — {p['latency_s'] / local['latency_s']:.2f}x the local latency "
                     f"({local['latency_s'] * 1e9:.0f} ns) and {pct(p['bandwidth_bytes_per_s'] / local['bandwidth_bytes_per_s'])}"
                     f" of the local bandwidth ({si(local['bandwidth_bytes_per_s'], 'B/s')})")
        out.append(line + ".")
    return out

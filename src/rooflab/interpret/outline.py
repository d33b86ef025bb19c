"""Explained kernels as a report's outline (:class:`rooflab.contract.Line`): per kernel what its code shows, then per
size the findings first — each with what it could save, its hypothesis, its evidence, what to change and the
experiments' verdicts — and what the kernel printed. The terminal and the HTML page draw the same lines."""

from __future__ import annotations

from rooflab.contract import Line
from rooflab.diagnosis.rules.facts import cold, unrolled_sum
from rooflab.documents.common import read
from rooflab.documents.kernels import ExplainRow, Finding
from rooflab.i18n import text, tr
from rooflab.interpret.explain import experiment_sentence, finding_word
from rooflab.units import binary_bytes, pct, seconds, si


def line_ranges(lines: list[int]) -> str:
    """Line numbers as runs: [7, 8, 9, 12] is "7-9, 12"."""
    runs: list[list[int]] = []
    for n in sorted(set(lines)):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def code_line(code: dict) -> str:
    """What the audit of a kernel's hot loop found, on one line."""
    loop = code.get("loop") or {}
    if not loop:
        return tr("hot loop: {why}", why=text(code.get("audit_error") or tr("not found")))
    width = tr("{bits}-bit vectors", bits=loop["vector_bits"]) if loop.get("vector_bits") else tr("scalar code only")
    parts = [tr("hot loop: {width} (the ISA has {isa} bits)", width=width, isa=code.get("isa_vector_bits")),
             *([tr("source lines {lines}", lines=line_ranges(code["loop_lines"]))] if code.get("loop_lines") else []),
             tr("{v} vector and {s} scalar FP instruction(s)", v=loop.get("vector_fp", 0), s=loop.get("scalar_fp", 0)),
             tr("{n} accumulator(s), longest chain {k}", n=loop.get("accumulators", 0), k=loop.get("longest_chain", 0))]
    for key, label in (("gathers", tr("gathers")), ("masked", tr("masked")), ("spills", tr("spills")),
                       ("int_div", tr("integer divisions")), ("conversions", tr("float/double conversions")),
                       ("branches", tr("branches")), ("memory_chains", tr("sums kept in memory"))):
        if loop.get(key):
            parts.append(f"{label} {loop[key]}")
    if unrolled_sum(loop):
        parts.append(tr("{k} dependent scalar adds within an iteration", k=loop["inner_chain"]))
    if loop.get("calls"):
        parts.append(tr("calls {names}", names=", ".join(dict.fromkeys(loop["calls"]))))
    how = code.get("hot_loop") or {}
    if cold(how):
        parts.append(tr("only {share} of {n} samples of its time fell in an innermost loop",
                        share=pct(how["in_inner_loops"]), n=how["samples"]))
    elif how.get("by") == "samples":
        parts.append(tr("chosen where {n} samples of its time fell", n=how["samples"]) if how.get("moved") else
                     tr("where {n} samples of its time fell", n=how["samples"]))
    elif how.get("by") == "only loop":
        parts.append(tr("its only loop"))
    elif how.get("by") == "work":
        parts.append(tr("chosen by its work per iteration (no samples: {why})", why=how.get("why") or "?"))
    return "; ".join(parts)


def kernels_outline(kernels: list[dict]) -> list[Line]:
    """Every explained kernel: what its code shows, then each size measured."""
    out: list[Line] = []
    for k in kernels:
        if k.get("error"):
            out.append(Line(f"{k['name']}: {text(k['error'])}"))
            continue
        code = k.get("code") or {}
        out.append(Line(k["name"], strong=True, aside=code_line(code)))
        for r in [r for r in code.get("remarks") or [] if r["kind"] != "note"][:2]:
            out.append(Line(tr("compiler, line {line}: {text}", line=r["line"], text=r["text"]), 2))
        pred = code.get("prediction") or {}
        if pred.get("cycles_per_iteration"):
            out.append(Line(tr("{tool} ({model}): {c:.1f} cycles per iteration predicted, bound by {bound}",
                               tool=pred["tool"], model=pred["model"], c=pred["cycles_per_iteration"],
                               bound=tr("its dependencies") if pred["bound"] == "dependencies" else
                               tr("port pressure")), 2))
        elif pred.get("error"):
            out.append(Line(tr("no in-core prediction: {why}", why=pred["error"]), 2))
        for r in k["sizes"]:
            out += size_outline(r)
            out += [Line(x) for x in output_lines(r)]
    return out


def size_facts(r: ExplainRow) -> str:
    """One size as measured: its rate, its share of its roof, its working set, the CPUs it kept busy."""
    facts = [si(r.flops_per_s, "FLOP/s") if r.flops else si(r.bytes_per_s, "B/s")]
    if r.of_roof is not None:
        extra = r.model_extra or {}
        facts.append(tr("{frac} of its roof", frac=pct(r.of_roof)) +
                     (tr(" (above it: part of its working set is still served from {faster})",
                         faster=extra["partly_in"])
                      if extra.get("partly_in") else
                      tr(" (above it: the stored roof was measured at another moment, or the spec's counts disagree "
                         "with the roofline's byte model)") if extra.get("above_roof") else ""))
    if r.all_threads:
        facts.append(tr("{frac} of the roof of {n} CPUs", frac=pct(r.all_threads.of_roof), n=r.all_threads.threads))
    facts.append(tr("working set {ws} in {level}", ws=binary_bytes(r.working_set_bytes), level=r.level or "?"))
    if r.cpus_busy is not None:
        facts.append(tr("{n:.1f} CPU(s) busy", n=r.cpus_busy))
    if r.cycles_per_iteration:
        facts.append(tr("{c:.1f} cycles per iteration", c=r.cycles_per_iteration))
    return ", ".join(facts)


def _standing(found: dict, r: dict) -> str:
    """What a finding could save, or what its experiment said of it."""
    f = read(Finding, found)
    save = (tr(" — could save up to {t} of {total} per call", t=seconds(f.saving_s), total=seconds(r.get("time_s")))
            if f.saving_s else "")
    if f.refuted and f.refuted.immaterial:
        return " — " + tr("its experiment gained {s:.2f}x: too little to be why it is slow", s=f.refuted.speedup)
    if f.refuted and f.refuted.beyond:
        return " — " + tr("refuted: its experiment gained nothing beyond what the {other} build gained ({s:.2f}x)",
                          other=f.refuted.beyond, s=f.refuted.speedup)
    if f.refuted:
        return " — " + tr("refuted: its experiment made no difference")
    if f.inconclusive:
        why = f.inconclusive
        save += " — " + (tr("its experiment was inconclusive: the build left the hot loop as it was")
                         if why.loop_unchanged else
                         tr("its experiment was inconclusive: the reordered loop sums into one element in order, "
                            "which the fix would split")
                         if why.in_order else
                         tr("its probe found no cost in the order of the indices; the indirect loads' own cost "
                            "is not tested") if why.probe else
                         tr("its experiment was inconclusive"))
    return save


def size_outline(r: dict) -> list[Line]:
    """One size: its measurement, then each finding with its hypothesis, evidence, advice and experiments."""
    row = read(ExplainRow, r)
    if row.error:
        return [Line(f"{row.label}: {text(row.error)}", 2)]
    out = [Line(f"{row.label}: {size_facts(row)}", 2, strong=True)]
    if row.trial_size and row.trial_size.text:
        out.append(Line(text(row.trial_size.text), 4))
    exps: dict = {}
    for e in r.get("experiments") or []:
        exps.setdefault(e.get("finding"), []).append(e)
    for i, (f, found) in enumerate(zip(row.findings, r.get("findings") or []), 1):
        out.append(Line(f"{i}. {text(finding_word(f.id))}{_standing(found, r)}", 4, strong=True))
        out.append(Line(tr("why: {text}", text=text(f.hypothesis)), 7))
        out += [Line("• " + text(ev), 7) for ev in f.evidence]
        if f.advice:
            out.append(Line(tr("change: {text}", text=text(f.advice)), 7))
        out += [Line(tr("experiment: {text}", text=text(experiment_sentence(e))), 7) for e in exps.get(f.id, [])]
    traffic = r.get("traffic") or {}
    if traffic.get("skipped"):
        out.append(Line(text(traffic["skipped"]), 4))
    return out


def printed_lines(printed: str, limit: int = 8) -> list[str]:
    """What a kernel printed, as a report shows it: runs of the same line gathered (a kernel printing in its loop
    prints it once per call), at most ``limit`` lines, and how many more the JSON holds."""
    runs: list[list] = []
    for line in printed.rstrip("\n").split("\n"):
        if runs and runs[-1][0] == line:
            runs[-1][1] += 1
        else:
            runs.append([line, 1])
    out = [line if n == 1 else tr("{line}   (x{n})", line=line, n=n) for line, n in runs[:limit]]
    if len(runs) > limit:
        out.append(tr("... {n} more line(s): the whole output is in --json", n=sum(n for _, n in runs[limit:])))
    return out


def output_lines(r: dict) -> list[str]:
    """What a kernel printed at one size, and what the worker had to put back after it."""
    out = []
    output = r.get("output") or {}
    for stream in ("stdout", "stderr"):
        said = output.get(stream)
        if said:
            size = output.get(f"{stream}_bytes")
            out.append(tr("{label} printed {size} on {stream}; the last lines:", label=r["label"], stream=stream,
                          size=binary_bytes(size)) if isinstance(size, (int, float)) else
                       tr("{label} printed on {stream}:", label=r["label"], stream=stream))
            out += ["  " + line for line in printed_lines(said)]
    put_back = [x for x in output.get("isolation") or [] if isinstance(x, str)]
    if put_back:
        out.append(tr("{label} changed the worker process:", label=r["label"]))
        out += ["  " + line for line in put_back]
    return out

"""Terminal report of `rooflab explain` (and of `bench --explain`): per kernel and size, the findings first — each
with what it could save, its hypothesis, its evidence, what to change and the experiments' verdicts — then what the
code shows and the measurements."""

from __future__ import annotations

from rich.console import Console

from rooflab.diagnosis.rules.facts import cold
from rooflab.i18n import text, tr
from rooflab.interpret.explain import experiment_sentence, finding_word
from rooflab.render.tables import render_roofline
from rooflab.render.text import esc, heading, render_row_output, render_warnings
from rooflab.units import binary_bytes, pct, seconds, si


def _p(console: Console, line: str, indent: int = 0) -> None:
    console.print(" " * indent + line, markup=False, highlight=False, soft_wrap=True)


def _code_line(code: dict) -> str:
    loop = code.get("loop") or {}
    if not loop:
        return tr("hot loop: {why}", why=text(code.get("audit_error") or tr("not found")))
    width = tr("{bits}-bit vectors", bits=loop["vector_bits"]) if loop.get("vector_bits") else tr("scalar code only")
    parts = [tr("hot loop: {width} (the ISA has {isa} bits)", width=width, isa=code.get("isa_vector_bits")),
             tr("{v} vector and {s} scalar FP instruction(s)", v=loop.get("vector_fp", 0), s=loop.get("scalar_fp", 0)),
             tr("{n} accumulator(s), longest chain {k}", n=loop.get("accumulators", 0), k=loop.get("longest_chain", 0))]
    for key, label in (("gathers", tr("gathers")), ("masked", tr("masked")), ("spills", tr("spills"))):
        if loop.get(key):
            parts.append(f"{label} {loop[key]}")
    for key, label in (("int_div", tr("integer divisions")), ("conversions", tr("float/double conversions")),
                       ("branches", tr("branches")), ("memory_chains", tr("sums kept in memory"))):
        if loop.get(key):
            parts.append(f"{label} {loop[key]}")
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


def render_kernels(kernels: list[dict], console: Console) -> None:
    for k in kernels:
        if k.get("error"):
            _p(console, f"{k['name']}: {text(k['error'])}")
            continue
        code = k.get("code") or {}
        console.print(f"[bold]{esc(k['name'])}[/]  [dim]{esc(_code_line(code))}[/]", highlight=False)
        said = [r for r in code.get("remarks") or [] if r["kind"] != "note"][:2]
        for r in said:
            _p(console, tr("compiler, line {line}: {text}", line=r["line"], text=r["text"]), 2)
        pred = code.get("prediction") or {}
        if pred.get("cycles_per_iteration"):
            _p(console, tr("{tool} ({model}): {c:.1f} cycles per iteration predicted, bound by {bound}",
                           tool=pred["tool"], model=pred["model"], c=pred["cycles_per_iteration"],
                           bound=tr("its dependencies") if pred["bound"] == "dependencies" else tr("port pressure")),
               2)
        elif pred.get("error"):
            _p(console, tr("no in-core prediction: {why}", why=pred["error"]), 2)
        for r in k["sizes"]:
            _render_size(r, console)
            render_row_output(r, console)


def _render_size(r: dict, console: Console) -> None:
    if r.get("error"):
        _p(console, f"{r['label']}: {text(r['error'])}", 2)
        return
    facts = [si(r["flops_per_s"], "FLOP/s") if r.get("flops") else si(r["bytes_per_s"], "B/s")]
    if r.get("of_roof") is not None:
        facts.append(tr("{frac} of its roof", frac=pct(r["of_roof"])) +
                     (tr(" (above it: part of its working set is still served from {faster})", faster=r["partly_in"])
                      if r.get("partly_in") else
                      tr(" (above it: the stored roof was measured at another moment, or the spec's counts disagree "
                         "with the roofline's byte model)") if r.get("above_roof") else ""))
    if r.get("all_threads"):
        facts.append(tr("{frac} of the roof of {n} CPUs", frac=pct(r["all_threads"]["of_roof"]),
                        n=r["all_threads"]["threads"]))
    facts.append(tr("working set {ws} in {level}", ws=binary_bytes(r["working_set_bytes"]), level=r.get("level", "?")))
    if r.get("cpus_busy") is not None:
        facts.append(tr("{n:.1f} CPU(s) busy", n=r["cpus_busy"]))
    if r.get("cycles_per_iteration"):
        facts.append(tr("{c:.1f} cycles per iteration", c=r["cycles_per_iteration"]))
    console.print(f"  [bold]{esc(r['label'])}[/]: " + esc(", ".join(facts)), highlight=False)
    if (r.get("trial_size") or {}).get("text"):
        _p(console, text(r["trial_size"]["text"]), 4)
    exps = {}
    for e in r.get("experiments") or []:
        exps.setdefault(e.get("finding"), []).append(e)
    for i, f in enumerate(r.get("findings") or [], 1):
        save = (tr(" — could save up to {t} of {total} per call", t=seconds(f["saving_s"]), total=seconds(r["time_s"]))
                if f.get("saving_s") else "")
        if (f.get("refuted") or {}).get("immaterial"):
            save = " — " + tr("its experiment gained {s:.2f}x: too little to be why it is slow", s=f["refuted"]["speedup"])
        elif f.get("refuted"):
            save = " — " + tr("refuted: its experiment made no difference")
        elif f.get("inconclusive"):
            save += " — " + (tr("its experiment was inconclusive: the build left the hot loop as it was")
                             if f["inconclusive"].get("loop_unchanged") else tr("its experiment was inconclusive"))
        console.print(f"    [bold]{i}. {esc(text(finding_word(f['id'])))}[/]{esc(save)}", highlight=False)
        _p(console, tr("why: {text}", text=text(f["hypothesis"])), 7)
        for ev in f.get("evidence") or []:
            _p(console, "• " + text(ev), 7)
        if f.get("advice"):
            _p(console, tr("change: {text}", text=text(f["advice"])), 7)
        for e in exps.get(f["id"], []):
            _p(console, tr("experiment: {text}", text=text(experiment_sentence(e))), 7)
    traffic = r.get("traffic") or {}
    if traffic.get("skipped"):
        _p(console, text(traffic["skipped"]), 4)


def render_explain(doc: dict, console: Console) -> None:
    console.print(heading("rooflab explain", " · " + tr("roofline from {source}", source=text(doc.get("roofline_source") or "—"))
                          + (tr(" · quick") if doc.get("quick") else "") + " · " + tr("run {id}",
                                                                                      id=doc.get("run_id", "—"))))
    render_kernels(doc.get("kernels") or [], console)
    render_roofline(doc, console)
    render_warnings(doc.get("warnings", []), console)

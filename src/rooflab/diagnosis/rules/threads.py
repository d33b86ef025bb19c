"""One thread of several CPUs: the kernel kept one CPU busy while the roof of all of them is far above it."""

from __future__ import annotations

from rooflab.diagnosis.rules.facts import Facts, finding
from rooflab.i18n import msg
from rooflab.units import pct, seconds, si

ID = "single_thread"
TEST = "openmp"


def WORD():
    return msg("one thread on several CPUs")


def find(f: Facts) -> list[dict]:
    if not f.alone:
        return []
    row, ctx = f.row, f.ctx
    every, busy, cpus = row["all_threads"], row["cpus_busy"], ctx.get("cpus") or 1
    ev = [msg("it kept {busy:.1f} of the {cpus} CPUs busy while timed (its CPU time over the wall time)",
              busy=busy, cpus=cpus),
          msg("on all {cpus} CPUs the roof is {roof}; it reaches {frac} of that",
              cpus=cpus, roof=si(every["roof_flops_per_s"], "FLOP/s"), frac=pct(every["of_roof"]))]
    exps = ()
    if f.pragmas.omp and not ctx.get("openmp"):
        ev.append(msg("its source has `{pragma}` but the spec builds it without OpenMP", pragma="#pragma omp parallel"))
        advice = msg("build it with OpenMP (openmp = true in the spec, and threads = {cpus} to place it on the "
                     "roof of all CPUs)", cpus=cpus)
        exps = ("openmp",)
    elif (f.scan or f.recurrence) and f.pragmas.nested_loops is False:
        # its only loop carries each element's value to the next (a running sum stored at every element): there is
        # no outer loop to share, and sharing this one's iterations as they are gives wrong results
        ev.append(msg("its loop carries a value from each element to the next, and no loop is around it to share"))
        advice = msg("split the loop into one block per thread, scan each block on its own, then add to each block "
                     "what the blocks before it sum to (a blocked scan: the dependency chain's fix, on threads)")
        return [finding(ID, min(cpus / max(busy, 1.0), 1 / every["of_roof"]), ev,
                        msg("one thread does all the work while {idle} CPU(s) wait", idle=cpus - 1), advice, exps,
                        after=("dependency_chain",))]
    elif ctx.get("repeats") and ctx.get("repeat_var"):
        # time steps: each needs the last one's data, so the loops inside each step are the ones to share
        ev.append(msg("its outer loop over {var} repeats over the same data ({k} times a call, {t} each): each "
                      "repetition needs the last one's results, so only the loops inside it can be shared",
                      var=ctx["repeat_var"], k=ctx["repeats"], t=seconds(row["time_s"] / ctx["repeats"])))
        advice = msg("share the loops inside each repetition between threads: one parallel region around the "
                     "{var} loop ({region}), {pragma} on the loops inside it ({flag} in the spec)",
                     var=ctx["repeat_var"], region="#pragma omp parallel", pragma="#pragma omp for",
                     flag="openmp = true")
    else:
        advice = msg("split the outer loop between threads ({pragma}, {flag} in the spec)",
                     pragma="#pragma omp parallel for", flag="openmp = true")
    # at most the CPUs it left idle, and no further than the all-CPU roof of the level holding its data; for a
    # kernel bound by memory, what it really moves counts against that roof (traffic counted above its byte model:
    # strided or re-read lines, which more threads fetch as well)
    share = every["of_roof"] * (max(1.0, f.excess or 1.0) if row.get("bound") == "memory" else 1.0)
    if share != every["of_roof"]:
        ev.append(msg("counting the {r:.1f}x of its bytes it really moves, it already uses {frac} of the bandwidth "
                      "of all {cpus} CPUs", r=f.excess, frac=pct(min(share, 1.0)), cpus=cpus))
    return [finding(ID, min(cpus / max(busy, 1.0), 1 / share), ev,
                    msg("one thread does all the work while {idle} CPU(s) wait", idle=cpus - 1), advice, exps)]

"""Observations of a `track` run: each step's paired verdict, the path as a whole, the steps that moved the kernel
to another bound or level, and what the deterministic counts say beside the times."""

from __future__ import annotations

from rooflab.documents.common import read
from rooflab.documents.kernels import Counts
from rooflab.i18n import msg
from rooflab.interpret.common import disturbed_rows, load_caveat
from rooflab.units import seconds

COUNT_CHANGE = 0.01  # a step whose instructions per call changed by more than this is said to have changed its work


def _verdict(row: dict, key: str) -> dict:
    s, (lo, hi) = row[f"{key}_speedup"], row[f"{key}_ci95"]
    v = row[f"{key}_verdict"]
    if v == "faster":
        return msg("{s:.2f}x faster (95% CI {lo:.2f}-{hi:.2f}x)", s=s, lo=lo, hi=hi)
    if v == "slower":
        return msg("{s:.2f}x slower (95% CI {lo:.2f}-{hi:.2f}x)", s=1 / s, lo=1 / hi, hi=1 / lo)
    return msg("no difference (95% CI {lo:.2f}-{hi:.2f}x)", lo=lo, hi=hi)


def track_observations(doc: dict) -> list[dict]:
    out = load_caveat(doc)
    several = len(doc.get("sizes") or []) > 1
    for s in doc.get("sizes") or []:
        rows = s["rows"]
        where = msg(" at {label}", label=s["label"]) if several else ""
        out += disturbed_rows(rows, lambda r: r["label"])
        for r in rows:
            if r.get("error"):
                out.append(msg("{rev} ({subject}){where}: not measured — {error}", rev=r["short"],
                               subject=r["subject"], where=where, error=r["error"]))
        timed = [r for r in rows if r.get("step_speedup")]
        for r in timed:
            a = rows[r["step_from"]]
            out.append(msg("{b} ({subject}) against {a}{where}: {verdict}.", b=r["short"], subject=r["subject"],
                           a=a["short"], where=where, verdict=_verdict(r, "step")))
            if r.get("moved"):
                out.append(msg("{b} moved the kernel {moved}.", b=r["short"], moved=r["moved"]))
            ia, ib = read(Counts, a.get("counts")).instructions, read(Counts, r.get("counts")).instructions
            if ia and ib and abs(ib / ia - 1.0) > COUNT_CHANGE:
                out.append(msg("{b} executes {r:.1%} more instructions per call than {a} (cachegrind: a count does "
                               "not depend on the machine's noise).", b=r["short"], a=a["short"], r=ib / ia - 1.0)
                           if ib > ia else
                           msg("{b} executes {r:.1%} fewer instructions per call than {a} (cachegrind: a count does "
                               "not depend on the machine's noise).", b=r["short"], a=a["short"], r=1.0 - ib / ia))
        if len(timed) >= 2 and timed[-1].get("cumulative_speedup"):
            first, last = rows[timed[-1]["cumulative_from"]], timed[-1]
            out.append(msg("From {a} to {b}{where}, in all: {verdict}.", a=first["short"], b=last["short"],
                           where=where, verdict=_verdict(last, "cumulative")))
    return out


def history_observations(doc: dict) -> list[dict]:
    """Each change point of each series, or that there is none; the commits off the first-parent line."""
    out = []
    for s in doc.get("sizes") or []:
        n = len(s["points"])
        if not s["changes"]:
            out.append(msg("{label}: no change point in {n} commits measured.", label=s["label"], n=n))
        for c in s["changes"]:
            if c["by"] == "time":
                out.append(msg("{label}: from {short} ({subject}) on, the time changed {r:.3f}x ({a} to {b} per "
                               "call): a change point of the series, weighed against each point's spread.",
                               label=s["label"], short=c["short"], subject=c["subject"], r=c["ratio"],
                               a=seconds(c["before"]), b=seconds(c["after"])))
            else:
                out.append(msg("{label}: from {short} ({subject}) on, the instructions per call changed by {r:+.2%} "
                               "(cachegrind's counts do not depend on the machine's noise).", label=s["label"],
                               short=c["short"], subject=c["subject"], r=c["ratio"] - 1.0))
        for c in s.get("not_confirmed") or []:
            out.append(msg("{label}: the separate medians suggested a change at {short}, not kept: timed in the same "
                           "rounds as the commit before it, the paired step there found no difference.",
                           label=s["label"], short=c["short"]))
    if doc.get("off_line"):
        out.append(msg("{n} measured commit(s) are not on the first-parent line of HEAD and are left out.",
                       n=len(doc["off_line"])))
    return out

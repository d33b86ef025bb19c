"""Observations of a `compare` run."""

from __future__ import annotations

from rooflab.documents.common import read
from rooflab.documents.kernels import Side
from rooflab.i18n import msg
from rooflab.interpret.common import load_caveat


def compare_observations(doc: dict) -> list[dict]:
    out = load_caveat(doc)
    a, b = read(Side, doc["a"]).label, read(Side, doc["b"]).label
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

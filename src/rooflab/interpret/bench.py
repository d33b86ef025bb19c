"""Observations of a `bench` run."""

from __future__ import annotations

from rooflab.i18n import msg
from rooflab.units import binary_bytes, pct, si
from rooflab.interpret.common import load_caveat
from rooflab.model.roofline import PARTLY_FACTOR


def bench_observations(doc: dict) -> list[dict]:
    out = load_caveat(doc)
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
            if r.get("status") == "disturbed":
                out.append(msg("{label}: {why}; its figures may be low.", label=r["label"], why=r["reason"]))
            if r.get("of_roof") is None:
                continue
            above = (msg(" — above its roof, which is impossible: the FLOP or byte count in the spec and the "
                         "roofline's traffic model disagree (the ceilings count bytes as STREAM does, without "
                         "write-allocate traffic), or the measurement was disturbed") if r.get("above_roof") else
                     partly_words(r) if r.get("partly_in") else "")
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
                               name=k["name"], best=_size(best), bfrac=pct(best["of_roof"]), worst=_size(worst),
                               wfrac=pct(worst["of_roof"])))
    return out


def partly_words(r: dict) -> dict:
    """Why a kernel stands above the roof of the level its working set is in (as a clause)."""
    return msg(" — above the {level} roof: its working set is within {k:g}x the {faster} ({cap}), so part of it is "
               "still served from there", level=r["level"], k=PARTLY_FACTOR, faster=r["partly_in"],
               cap=binary_bytes(r["partly_capacity"]))


def _size(row: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in row["size"].items())

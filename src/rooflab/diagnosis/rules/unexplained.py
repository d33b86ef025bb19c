"""No finding: below its roof, and none of the rules found why. No advice without evidence; the evidence lists what
was checked."""

from __future__ import annotations

from rooflab.diagnosis.rules.facts import Facts, finding, reference_evidence
from rooflab.i18n import msg
from rooflab.units import pct

ID = "unexplained"
TEST = None


def WORD():
    return msg("no finding")


def find(f: Facts) -> list[dict]:
    loop = f.loop
    checked = [msg("checked: the hot loop ({width}, {acc} accumulator(s)), the compiler's remarks, the CPUs in "
                   "use, the working set against the caches{traffic}", width=msg("{bits}-bit vectors", bits=f.vb)
                   if f.vb else msg("scalar code only"), acc=loop.get("accumulators", 0),
                   traffic=msg(", the traffic against the model") if f.traffic.get("method") else "")]
    if f.reference is not None and f.reference.ratio:
        checked.append(reference_evidence(f.reference))
    ev = [msg("at {frac} of its roof", frac=pct(f.of_roof))] + checked if f.of_roof else checked
    return [finding(ID, 1.0, ev, msg("below its roof, and none of rooflab's rules found why: no advice without "
                                     "evidence"))]

"""Subnormal numbers: values below the smallest normal number of their type, found in the kernel's arrays after its
calls. Many cores take a slow path (a microcode assist of about a hundred cycles on many x86 cores) for each
operation that reads or makes one; others handle them at full speed. Tested by the same kernel with flush-to-zero
and denormals-are-zero set for its calls."""

from __future__ import annotations

from rooflab.diagnosis.rules.facts import Facts, finding
from rooflab.i18n import msg
from rooflab.units import pct

ID = "denormals"
TEST = "ftz"
MIN_SHARE = 0.01  # this share of the values or more: enough operations on them to matter
ASSIST_CYCLES = 100  # what one assisted operation costs where the core takes the slow path


def WORD():
    return msg("subnormal numbers")


def find(f: Facts) -> list[dict]:
    sub = f.row.get("subnormals") or {}
    share = sub.get("share") or 0.0
    top = max((sub.get("arrays") or {}).items(), key=lambda kv: kv[1], default=None)
    if share < MIN_SHARE and not (top and top[1] >= 5 * MIN_SHARE):
        return []
    ev = [msg("after its calls, {share} of the values in its arrays are subnormal (non-zero and below the smallest "
              "normal number of their type)", share=pct(share))]
    ev += [msg("array {name}: {share} subnormal", name=name, share=pct(v))
           for name, v in sorted((sub.get("arrays") or {}).items(), key=lambda kv: -kv[1])[:2]]
    # where the core takes the slow path, each operation on one costs about ASSIST_CYCLES; the experiment says
    # whether this one does
    return [finding(
        ID, 1 + max(share, top[1] if top else 0) * ASSIST_CYCLES / 4, ev,
        msg("arithmetic on subnormal numbers may take a slow path in the core (a microcode assist on many x86 "
            "cores), many times the cost of an ordinary operation"),
        msg("set flush-to-zero and denormals-are-zero for this code (on x86 `_mm_setcsr(_mm_getcsr() | 0x8040)`; "
            "-ffast-math sets them in a program's start-up code), or keep values out of the subnormal range "
            "(rescale them, or set what decays below a threshold to zero)"), ("ftz",))]

"""float/double conversions in a float loop: a double constant (0.1 rather than 0.1f) or a double function widens
every element and narrows it back, and halves the lanes. Tested by a build with -fsingle-precision-constant."""

from __future__ import annotations

from rooflab.diagnosis.rules.facts import Facts, finding
from rooflab.i18n import msg

ID = "conversions"
TEST = "single_constants"


def WORD():
    return msg("float/double conversions")


def find(f: Facts) -> list[dict]:
    n = f.loop.get("conversions") or 0
    if not n:
        return []
    return [finding(
        ID, 2.0, [msg("the hot loop converts between float and double {n} time(s) per iteration", n=n)],
        msg("a double constant (0.1 rather than 0.1f) or a double function (sqrt rather than sqrtf) in a float loop: "
            "each element is widened to double and narrowed back, and the vectors hold half as many elements"),
        msg("write float constants with an f suffix (0.1f) and call the float functions (sqrtf, expf), or build "
            "with -fsingle-precision-constant"), ("single_constants",))]

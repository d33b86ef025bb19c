"""A build that does not vectorize: the spec's own flags (-O2 and older, -fno-tree-vectorize) keep the loop scalar.
Tested by a build with -O3 for this CPU."""

from __future__ import annotations

from rooflab.diagnosis.rules import vectors
from rooflab.diagnosis.rules.facts import Facts, finding
from rooflab.i18n import msg

ID = "scalar_build"
TEST = "vectorize"


def WORD():
    return msg("a build that does not vectorize")


def find(f: Facts) -> list[dict]:
    if not vectors.leftover(f) or not vectors.scalar_build(f):
        return []
    ev = vectors.width_evidence(f) + [msg("built with: {flags}", flags=" ".join(
        x for x in vectors.build_flags(f) if not x.startswith("-I")))]
    return [finding(ID, f.lanes, ev, msg("the build does not let the compiler vectorize this loop"),
                    msg("build with -O3 (which vectorizes) and -march=native, or profile = 'native' in the spec"),
                    ("vectorize",))]

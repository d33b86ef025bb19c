"""Narrow vectors: the loop uses narrower vectors than the core has, for no reason another finding names. Tested by
a build for this CPU where the spec's build is a portable one."""

from __future__ import annotations

from rooflab.diagnosis.rules import vectors
from rooflab.diagnosis.rules.facts import Facts, finding
from rooflab.i18n import msg

ID = "narrow_vectors"
TEST = "native"


def WORD():
    return msg("narrow vectors")


def find(f: Facts) -> list[dict]:
    if not vectors.leftover(f) or vectors.scalar_build(f):
        return []
    flags = vectors.build_flags(f)
    narrow = f.ctx.get("profile") == "portable" or not any(x.startswith(("-march", "-mcpu")) for x in flags)
    ev = vectors.width_evidence(f) + [msg("built with: {flags}", flags=" ".join(
        x for x in flags if not x.startswith("-I")))]
    return [finding(ID, f.lanes, ev, msg("the loop runs on narrower vectors than the core has"),
                    msg("build with -O3 (which vectorizes) and -march=native, or profile = 'native' in the spec")
                    if narrow else None, ("native",) if narrow else ())]

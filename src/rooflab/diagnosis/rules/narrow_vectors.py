"""Narrow vectors: the loop uses narrower vectors than the core has, for no reason another finding names. Tested by
a build for this CPU where the spec's build is a portable one."""

from __future__ import annotations

from rooflab.diagnosis.rules import vectors
from rooflab.diagnosis.rules.facts import Facts, finding
from rooflab.i18n import join, msg

ID = "narrow_vectors"
TEST = "native"


def WORD():
    return msg("narrow vectors")


def find(f: Facts) -> list[dict]:
    # where the compiler named aliasing, that finding goes first with its test (restrict); this one follows it, and
    # stands alone where restrict left the loop as it was (a 2x upsampling through in[j / 2], which gcc calls a
    # "bad data dependence", stays scalar with restrict: its index, not the pointers, keeps it so). In a loop that
    # computes, it stands only where restrict left the loop scalar: TSVC's s211 (a[i] = b[i - 1] + ...; b[i] =
    # b[i + 1] - ...) gained 1.59x from restrict and stayed scalar, its statements' order being what keeps it so
    aliased = "aliasing" in f.causes
    # a square root kept for errno is the calls finding's reason for a scalar loop, and its test (-fno-math-errno)
    # says whether it was the only one: this finding follows it, goes where that build vectorizes the loop, and
    # stands alone where the loop stays scalar (CloverLeaf's time-step control: 1.00x, scalar still)
    elsewhere = vectors.explained_elsewhere(f)
    behind_errno = elsewhere and vectors.errno_only(f) and not vectors.explained_elsewhere(f, errno=False)
    if not (vectors.unused_lanes(f) and (behind_errno or not elsewhere)) or vectors.scalar_build(f):
        return []
    computes = aliased and not vectors.plain_copy(f)
    if computes and vectors.other_walk(f):
        return []  # a gather, a column walk or a stride the compiler names is the reason beside the overlap
    flags = vectors.build_flags(f)
    narrow = f.ctx.get("profile") == "portable" or not any(x.startswith(("-march", "-mcpu")) for x in flags)
    ev = vectors.width_evidence(f) + [msg("built with: {flags}", flags=" ".join(
        x for x in flags if not x.startswith("-I")))]
    if narrow:
        advice = msg("build with -O3 (which vectorizes) and -march=native, or profile = 'native' in the spec")
    elif not f.vb:
        # built for this core and still scalar: the loop's form is what the compiler could not vectorize
        advice = msg("write the loop in a form the compiler vectorizes: every array indexed by the loop variable "
                     "plus a constant (an index such as j / 2 is not: loop over the inputs and write each one's "
                     "outputs), no call and no early exit; where the iterations are independent, say so with {p}",
                     p="#pragma omp simd")
    else:
        advice = None
    if computes and not f.vb and not narrow:
        ev += f.cause_remarks("aliasing")
        advice = join([advice, msg("where the compiler names a dependence between the loop's statements (an element "
                                   "one statement writes and another reads an iteration later), reorder the "
                                   "statements or split the loop in two, so that each reads only what is already "
                                   "written")], "; ")
    return [finding(ID, f.lanes, ev, msg("the loop runs on narrower vectors than the core has"), advice,
                    ("native",) if narrow else (),
                    after=("aliasing",) if aliased else ("calls",) if behind_errno else (),
                    unless_vectorized_by="restrict" if computes else "no_math_errno" if behind_errno else None)]

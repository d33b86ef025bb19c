"""Calls in the loop: a function called per iteration, or a libm function kept as a call for the inputs where it
must set errno (gcc keeps the branch to sqrt on a cold path: the loop stays scalar). Tested, for sqrt, by a build
with -fno-math-errno; for the functions no instruction computes (exp, log, sin, ...), which a vector math library
computes several lanes at a time (glibc's libmvec, which gcc calls under -ffast-math), by a build with
-ffast-math -fno-associative-math (the calls vectorized, any sum in the loop kept in order: -ffast-math's gain beyond
it is the sum's). Complex multiplication and division as C99 defines them (a branch to __muldc3 for NaN results) are
tested by a build with -fcx-limited-range."""

from __future__ import annotations

from rooflab.diagnosis.rules.facts import LIBM, Facts, errno_calls, finding
from rooflab.i18n import msg

ID = "calls"
TEST = "no_math_errno"
INSTRUCTIONS = ("sqrt",)  # libm functions an instruction computes once errno is off
MINMAX = ("fmin", "fmax")  # and those min and max instructions compute once NaN and signed zeros are not ordered
# libm functions with neither an instruction nor a vector version in glibc's libmvec: no flag vectorizes the call
# (under -ffast-math gcc computes fmod with the x87's fprem, a loop of its own: a periodic wrap ran 0.56x as fast)
NO_VECTOR = ("fmod", "remainder", "drem")
# flags under which gcc vectorizes floor, ceil and trunc (no exact floating-point exceptions to keep)
TRAPS_OFF = ("-fno-trapping-math", "-ffast-math", "-funsafe-math-optimizations", "-Ofast")
# rounding functions gcc calls in the library unless a flag lets it round inline: round (to nearest, halves away from
# zero) under -fno-trapping-math, lrint under -fno-math-errno, lround under -ffast-math (checked with gcc 12)
ROUNDING = {"round": ("no_trapping_math", "-fno-trapping-math"), "lrint": ("no_math_errno", "-fno-math-errno"),
            "llrint": ("no_math_errno", "-fno-math-errno"), "lround": ("fast_math", "-ffast-math"),
            "llround": ("fast_math", "-ffast-math")}


def WORD():
    return msg("calls in the loop")


def _lanes(f: Facts) -> int:
    """The elements of the loop's type one of the core's vectors holds (2 where the ISA's width is unknown)."""
    return f.isa_vb // (f.loop.get("element_bits") or 64) if f.isa_vb else 2


# libgcc's complex multiplication and division with C99's (Annex G) recovery of NaN and infinite results
COMPLEX = {"__mulsc3": "multiplication", "__muldc3": "multiplication", "__mulxc3": "multiplication",
           "__multc3": "multiplication", "__divsc3": "division", "__divdc3": "division", "__divxc3": "division",
           "__divtc3": "division"}


def find(f: Facts) -> list[dict]:
    out = []
    loop = f.loop
    side = loop.get("side_calls") or []
    cx = [c for c in dict.fromkeys((loop.get("calls") or []) + side) if c in COMPLEX]
    if cx:
        kinds = {COMPLEX[c] for c in cx}
        ops = msg("multiplication and division") if len(kinds) == 2 else \
            msg("multiplication") if "multiplication" in kinds else msg("division")
        out.append(finding(
            ID, f.lanes if f.lanes > 1 else 2.0,
            [msg("each iteration tests its complex {ops} for a NaN result and may call {names} (C99's recovery of "
                 "infinite results)", ops=ops, names=", ".join(cx))] + f.cause_remarks("call"),
            msg("complex {ops} as C99 defines it checks every result and calls a library routine when it is NaN: "
                "the branch and the call keep the loop scalar", ops=ops),
            msg("build with -fcx-limited-range (the textbook formulas; -ffast-math implies it) where no input is "
                "infinite or NaN, or write the real and imaginary parts out"),
            ("cx_limited_range",), test="cx_limited_range"))
        return out
    rounds = loop.get("scalar_rounds") or 0
    flags = f.build.flags or []
    if rounds and f.vb == 0 and not loop.get("calls") and not any(x in TRAPS_OFF for x in flags):
        lanes = _lanes(f)
        out.append(finding(
            ID, max(2.0, lanes / 2),
            [msg("the hot loop rounds {n} value(s) per iteration with a scalar instruction (floor, ceil or trunc) "
                 "and stays scalar; the build keeps floating-point exceptions exact (no -fno-trapping-math)", n=rounds)]
            + f.cause_remarks("call"),
            msg("gcc vectorizes floor, ceil and trunc only where floating-point exceptions need not be raised as "
                "the scalar code would: under the default -ftrapping-math the rounding keeps the loop scalar"),
            msg("build with -fno-trapping-math (-ffast-math includes it) where the loop's floating-point exception "
                "flags are not read, or round by converting to an integer type where the values fit"),
            ("no_trapping_math",), test="no_trapping_math"))
        return out
    errno = errno_calls(f.code) or [c for c in side if c.rstrip("f").lower() in LIBM]
    # a loop already on the widest vectors loses nothing to a call kept for errno elsewhere in the function (a sqrt
    # of the sum after the loop that sums)
    if errno and not loop.get("calls") and f.vb < f.isa_vb:
        # the hot loop shows the instruction, but the call's possible side effect still keeps the loop scalar
        names = ", ".join(errno)
        out.append(finding(
            ID, f.lanes if f.lanes > 1 else 2.0,
            [msg("the compiler keeps a call to {names} in the loop, for the inputs where it must set errno",
                 names=names)] + f.errno_remarks(),
            msg("{names} may set errno: the compiler keeps a branch to the library call in the loop, and a call "
                "that may write memory keeps the loop from vectorizing", names=names),
            msg("build with -fno-math-errno (the C library's errno is not read after the loop), or test the input "
                "before the loop"), ("no_math_errno",)))
    if loop.get("calls"):
        names = ", ".join(dict.fromkeys(loop["calls"]))
        libm = any(c.rstrip("f").lower() in LIBM for c in loop["calls"])
        vector = [c for c in dict.fromkeys(loop["calls"]) if c.rstrip("f").lower() in LIBM and
                  c.rstrip("f").lower() not in INSTRUCTIONS]
        minmax = [c for c in dict.fromkeys(loop["calls"]) if c.rstrip("fl") in MINMAX]
        if minmax and f.vb < f.isa_vb:
            lanes = _lanes(f)
            out.append(finding(
                ID, max(2.0, lanes / 2), [msg("the hot loop calls {names}", names=", ".join(minmax))]
                + f.cause_remarks("call"),
                msg("{names} is a library call per element: the compiler computes it with a min or max instruction "
                    "only where NaN and the sign of zero need not be kept (-ffinite-math-only, -fno-signed-zeros), and "
                    "the call keeps the loop from vectorizing", names=", ".join(minmax)),
                msg("build with -ffinite-math-only -fno-signed-zeros (-ffast-math includes both), or write the "
                    "comparison itself (x < lo ? lo : x), which the compiler turns into vector min and max"),
                ("fast_math",), test="fast_math"))
            return out
        rounding = [c for c in dict.fromkeys(loop["calls"]) if c.rstrip("fl") in ROUNDING]
        if rounding and f.vb < f.isa_vb:
            test, flag = ROUNDING[rounding[0].rstrip("fl")]
            out.append(finding(
                ID, max(2.0, _lanes(f) / 2), [msg("the hot loop calls {names} one element at a time",
                                                  names=", ".join(rounding))] + f.cause_remarks("call"),
                msg("{names} is a library call per element: the compiler rounds inline only under {flag}, and the "
                    "call keeps the loop scalar", names=", ".join(rounding), flag=flag),
                msg("build with {flag} (-ffast-math includes it) where the loop does not read the floating-point "
                    "exception flags or errno, or round with rint or nearbyint, which round in the current mode "
                    "(halves to even) with one instruction", flag=flag),
                (test,), test=test))
            return out
        novec = [c for c in dict.fromkeys(loop["calls"]) if c.rstrip("f").lower() in NO_VECTOR]
        if novec and f.vb < f.isa_vb:
            lanes = _lanes(f)
            out.append(finding(
                ID, max(2.0, lanes / 2), [msg("the hot loop calls {names} one element at a time",
                                              names=", ".join(novec))] + f.cause_remarks("call"),
                msg("{names} is a library call per element that no instruction and no vector math library computes: "
                    "no compiler flag vectorizes it, and the call keeps the loop scalar", names=", ".join(novec)),
                msg("write the remainder out where the loop allows: x - L * floor(x / L) (floor is an instruction: "
                    "the loop vectorizes, with -fno-trapping-math for gcc), or, for values that stay within a period "
                    "of the range, subtract the period in a select (x >= L ? x - L : x)")))
            return out
        if vector and f.vb < f.isa_vb:
            lanes = _lanes(f)
            out.append(finding(
                ID, max(2.0, lanes / 2), [msg("the hot loop calls {names} one element at a time",
                                              names=", ".join(vector))] + f.cause_remarks("call"),
                msg("{names} is computed by a library call per element: no instruction computes it, and the scalar "
                    "call keeps the loop from vectorizing", names=", ".join(vector)),
                msg("let the compiler call a vector math library, which computes {lanes} elements per call (glibc's "
                    "libmvec: gcc uses it under -ffast-math, or -fno-math-errno with #pragma omp simd and "
                    "-fopenmp-simd), or use one directly (SLEEF)", lanes=lanes),
                ("vector_math",), test="vector_math"))
            return out
        # what the call costs shows beside the loop's own instructions: the prediction does not see the callee, so
        # the cycles measured beyond it are the call's (Parboil's motion search printing a line per block: 344x)
        beyond = f.beyond_prediction
        took = [msg("measured {m:.1f} cycles per iteration where {tool} predicts {p:.1f} for the loop's own "
                    "instructions: the call takes the rest ({r:.0f}x)", m=f.row["cycles_per_iteration"],
                    tool=f.prediction.get("tool") or "llvm-mca", p=f.prediction["cycles_per_iteration"], r=beyond)
                ] if beyond else []
        out.append(finding(
            ID, max(2.0, beyond or 0.0), [msg("the hot loop calls {names}", names=names)] + took
            + f.cause_remarks("call"),
            msg("a function call in the loop: it blocks vectorization and costs a call per iteration"),
            msg("let the compiler use the instruction instead of the library call (-fno-math-errno for sqrt), or "
                "move the call out of the loop") if libm else msg("inline the called function or move the call "
                                                                   "out of the loop"),
            ("no_math_errno",) if libm else ()))
    return out

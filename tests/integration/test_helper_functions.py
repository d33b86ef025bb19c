"""A kernel whose source calls functions of its own: they are built as the author's program builds them (inlined
where the compiler would, not called through the PLT as a shared library's exported functions are), and where the
time goes to one the kernel calls, that function's loop is the hot loop."""

import os

import pytest

from rooflab.toolchain import asm
from rooflab.toolchain.compiler import CompilerNotFound, build, find_compiler, profile_flags

pytestmark = [pytest.mark.cc,
              pytest.mark.skipif(os.uname().machine != "x86_64", reason="reads x86 assembly")]

SOURCE = """
double weight(double x) { return 0.5 * x + 1.0; }

__attribute__((noinline)) double total(const double *a, long n) {
    double s = 0.0;
    for (long i = 0; i < n; i++) s += a[i] * a[i];
    return s;
}

void kernel(double *y, const double *x, long n, long m) {
    for (long i = 0; i < n; i++) y[i] = weight(x[i]);
    for (long j = 0; j < m; j++) y[j] += total(x, n);
}
"""


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    try:
        cc = find_compiler()
    except CompilerNotFound:
        pytest.skip("no C compiler")
    src = tmp_path_factory.mktemp("helpers") / "k.c"
    src.write_text(SOURCE)
    return build([src], name="helpers", profile="native"), cc


def test_a_function_the_kernel_calls_is_inlined_as_in_the_authors_program(lib):
    built, cc = lib
    assert "-fno-semantic-interposition" in profile_flags("native", cc)
    operands = " ".join(i.operands for i in asm.disassemble(built.path, "kernel") if i.mnemonic.startswith("call"))
    # weight() is inlined into the first loop (a shared library's default calls it through the PLT); total()
    # (noinline) is called directly, never through the PLT
    assert "weight" not in operands and "@plt" not in operands and "total" in operands, operands


def test_where_the_samples_fall_in_a_called_function_its_loop_is_the_hot_loop(lib):
    built, _ = lib
    helper = asm.disassemble(built.path, "total")
    loops = asm.find_loops(helper)
    assert loops, "total() has its loop"
    inside = loops[0].start - helper[0].addr  # an offset in the function, as perf gives it
    samples = {"total": {inside: 90}, "kernel": {0: 5}, "rooflab_bench_entry": {0: 3}}
    name, _insns, audit, _detail = asm.hot_loop_in(built.path, "kernel", samples=samples)
    assert name == "total" and audit.start == loops[0].start
    # without samples, the kernel's own busiest loop
    assert asm.hot_loop_in(built.path, "kernel")[0] == "kernel"


STEPPED = """
__attribute__((noinline)) static void step(int n, const float *in, float *out)
{
    for (int i = 1; i < n - 1; i++) out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
}

void run(int n, int t, float *a, float *b)
{
    for (int s = 0; s < t; s++) { if (s & 1) step(n, b, a); else step(n, a, b); }
}
"""


def test_a_loop_around_calls_of_a_helper_with_loops_is_not_the_only_loop(tmp_path):
    """A time-step loop calling the step (kept out of line, as gcc keeps a large step called twice) is the kernel's
    only loop, but the work is in the step's loops: they are counted (so the kernel is sampled) and, without
    samples, the step's loop is the hot loop, not the loop of calls around it."""
    try:
        find_compiler()
    except CompilerNotFound:
        pytest.skip("no C compiler")
    src = tmp_path / "s.c"
    src.write_text(STEPPED)
    built = build([src], name="stepped", profile="native")
    callees = asm.local_callees(asm.disassemble(built.path, "run"))
    own = asm.find_loops(asm.disassemble(built.path, "run"))
    assert any(c.startswith("step") for c in callees), callees
    inner, total = asm.loop_counts(built.path, "run")
    assert total > len(own) and inner >= 1
    name, _insns, _audit, detail = asm.hot_loop_in(built.path, "run")
    assert name.startswith("step") and not any(c.startswith("step") for c in detail.calls)
    assert all("@" not in c for c in callees)


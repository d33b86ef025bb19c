"""A rebuild tests a finding only when it changed the hot loop: two builds are compared instruction class by class."""

import pytest

from rooflab.diagnosis.evidence import remark_evidence
from rooflab.diagnosis.experiments import SAME_OUTPUT_TOLERANCE, same_hot_loop, variant
from rooflab.errors import WrongResult
from rooflab.kernels.runner import compare_c_kernels
from rooflab.kernels.user import build_spec, task
from rooflab.timing.harness import HarnessConfig
from rooflab.toolchain.asm import disassemble, find_loops, innermost, line_table, loop_lines
from rooflab.toolchain.compiler import build
from rooflab.toolchain.remarks import remarks_and_object
from rooflab.userkernel.spec import load_spec

pytestmark = pytest.mark.cc

SRC = """
void prefix(long n, const double *x, double *y) {
    double s = 0.0;
    for (long i = 0; i < n; i++) { s += x[i]; y[i] = s; }
}
"""
SPEC = """
source = "k.c"
function = "prefix"
flops = "n"
bytes = "16*n"
sizes = {n = [1000]}
[args]
n = "n"
x = {shape = ["n"], dtype = "float64"}
y = {shape = ["n"], dtype = "float64", output = true}
"""


def test_same_hot_loop_tells_a_rebuild_that_changed_nothing_from_one_that_did(tmp_path):
    (tmp_path / "k.c").write_text(SRC)
    (tmp_path / "spec.toml").write_text(SPEC)
    (spec,) = load_spec(tmp_path / "spec.toml")
    o3 = build([tmp_path / "k.c"], name="p_o3", flags=["-O3"])
    o3_again = build([tmp_path / "k.c"], name="p_o3_def", flags=["-O3", "-DNOT_USED=1"])  # a flag that changes nothing
    o0 = build([tmp_path / "k.c"], name="p_o0", flags=["-O0"])  # every value through memory: another loop
    assert same_hot_loop(spec, o3, o3_again) is True
    assert same_hot_loop(spec, o3, o0) is False


NESTS = """
void mm_jki(long n, const double *A, const double *B, double *C)
{
    for (long j = 0; j < n; j++)
        for (long k = 0; k < n; k++)
            for (long i = 0; i < n; i++)
                C[i * n + j] += A[i * n + k] * B[k * n + j];
}

/* each element reads its upper-right neighbour before (j outer) or after (i outer) that one is updated */
void skewed(long n, double *X)
{
    for (long j = 0; j < n - 1; j++)
        for (long i = 1; i < n; i++)
            X[i * n + j] = 0.5 * X[(i - 1) * n + j + 1] + X[i * n + j];
}
"""
NEST_SPECS = """
[[kernel]]
name = "jki"
source = "n.c"
function = "mm_jki"
flops = "2*n**3"
bytes = "24*n*n"
sizes = {n = [48]}
args = {n = "n", A = {shape = ["n", "n"]}, B = {shape = ["n", "n"]}, C = {shape = ["n", "n"], output = true}}

[[kernel]]
name = "skewed"
source = "n.c"
function = "skewed"
flops = "2*n*n"
bytes = "16*n*n"
sizes = {n = [48]}
args = {n = "n", X = {shape = ["n", "n"], output = true}}
"""


def test_a_reordered_nest_is_timed_only_when_it_leaves_the_very_arrays_the_original_leaves(tmp_path):
    """The interchange experiment compares the copy's arrays with the original's after the same call: the product
    reordered to i-k-j agrees to the last bit, a nest reordered across a dependence is reported wrong, not timed."""
    (tmp_path / "n.c").write_text(NESTS)
    (tmp_path / "spec.toml").write_text(NEST_SPECS)
    jki, skewed = load_spec(tmp_path / "spec.toml")
    cfg = HarnessConfig(min_sample_s=0.001, samples=2, warmup=0, min_samples=1, budget_s=1.0)
    for spec in (jki, skewed):
        size = spec.sizes[0]
        v = variant("interchange", spec, size, {})
        assert v is not None and v[0].source != spec.source and spec.source.read_text() == NESTS
        a = task(spec, build_spec(spec), size, "A")
        b = task(v[0], build_spec(v[0]), size, "B")
        if spec is jki:
            res = compare_c_kernels(a, b, cfg, 2, same_output=SAME_OUTPUT_TOLERANCE)
            assert res["rel_error"][1] <= 1e-15 and len(res["B"]["samples"]) >= 1
        else:
            with pytest.raises(WrongResult) as got:
                compare_c_kernels(a, b, cfg, 2, same_output=SAME_OUTPUT_TOLERANCE)
            assert got.value.rel_error > SAME_OUTPUT_TOLERANCE


SOFTMAX = """
#include <math.h>
void expsum(long n, const float *x, float *y, float *out)
{
    float s = 0.0f;
    for (long i = 0; i < n; i++) {
        y[i] = expf(x[i]);
        s += y[i];
    }
    out[0] = s;
}
"""
SOFTMAX_SPEC = """
source = "s.c"
function = "expsum"
flops = "2*n"
bytes = "8*n"
sizes = {n = [1000]}
args = {n = "n", x = {shape = ["n"], dtype = "float32"}, y = {shape = ["n"], dtype = "float32", output = true}, out = {shape = [1], dtype = "float32", output = true}}
"""


def test_the_vector_math_build_changes_a_loop_of_calls_that_also_sums(tmp_path):
    """-ffast-math -fno-associative-math calls the vector math library for expf while the sum stays in order: the
    hot loop is another one, so the calls' finding is tested apart from the sum's."""
    (tmp_path / "s.c").write_text(SOFTMAX)
    (tmp_path / "s.toml").write_text(SOFTMAX_SPEC)
    (spec,) = load_spec(tmp_path / "s.toml")
    vspec = variant("vector_math", spec, spec.sizes[0], {})[0]
    assert same_hot_loop(spec, build_spec(spec), build_spec(vspec)) is False


TWO_LOOPS = """#include <math.h>
void two(long n, double *restrict a, const double *restrict b, const int *restrict idx)
{
    for (long i = 0; i < n; i++)
        a[i] += b[idx[i]] * 2.0;
    for (long i = 0; i < n; i++)
        a[i] = sqrt(a[i]);
}
"""
TWO_SPEC = """
source = "k.c"
function = "two"
flops = "2*n"
bytes = "28*n"
sizes = {n = [1000]}
[args]
n = "n"
a = {shape = ["n"], output = true}
b = {shape = ["n"]}
idx = {shape = ["n"], dtype = "int32", fill = "zeros"}
"""


def test_the_remarks_of_a_loop_are_those_on_the_source_lines_its_instructions_come_from(tmp_path):
    (tmp_path / "k.c").write_text(TWO_LOOPS)
    (tmp_path / "spec.toml").write_text(TWO_SPEC)
    (spec,) = load_spec(tmp_path / "spec.toml")
    lib = build_spec(spec)
    insns = disassemble(lib.path, "two")
    loops = innermost(find_loops(insns))
    flags = [f for f in lib.flags if not f.startswith("-I")]
    assert remarks_and_object(lib.compiler, spec.source, flags, [tmp_path], tmp_path / "k.o") is not None
    table = line_table(tmp_path / "k.o", lib.path, ["two"], "k.c")
    assert table and set(table.values()) <= set(range(1, 9))  # only the source's own lines, by address
    by_lines = {tuple(loop_lines(table, lp.start, lp.end)): lp for lp in loops}
    sqrt_loop = next(lp for lines, lp in by_lines.items() if 7 in lines and 5 not in lines)
    gather_loop = next(lp for lines, lp in by_lines.items() if 5 in lines and 7 not in lines)
    # the sqrt loop: gcc's words about errno and control flow are about it, not about the loop before it
    on_sqrt = remark_evidence(spec, lib, "two", [sqrt_loop.start, sqrt_loop.end], [])
    assert set(on_sqrt["loop_lines"]) <= {6, 7} and on_sqrt["remarks"]
    assert all(r["line"] in (6, 7) for r in on_sqrt["remarks"])
    assert any("sqrt" in r["text"] or "control flow" in r["text"] for r in on_sqrt["remarks"])
    on_gather = remark_evidence(spec, lib, "two", [gather_loop.start, gather_loop.end], [])
    assert all(r["line"] in (4, 5) for r in on_gather["remarks"]) and on_gather["remarks_elsewhere"] >= 1
    assert "control_flow" not in on_gather["causes"] and "call" not in on_gather["causes"]
    # where no line is known, the whole function's remarks stand, as before
    whole = {r["line"] for r in remark_evidence(spec, lib, "two", None, [])["remarks"]}
    assert whole & {4, 5} and whole & {6, 7}


OMP_TWO = """void two_regions(long n, double *restrict a, const double *restrict b)
{
#pragma omp parallel for
    for (long i = 0; i < n; i++)
        a[i] = b[i] * 2.0;
#pragma omp parallel for
    for (long i = 0; i < n; i++)
        a[i] += b[i] / (a[i] + 1.0);
}
"""


def test_the_bodies_outlined_for_openmp_regions_have_their_lines_too(tmp_path):
    # an object's listing runs on over the padding after each function; the library's stops at its size
    (tmp_path / "k.c").write_text(OMP_TWO)
    lib = build([tmp_path / "k.c"], name="omp_two", flags=["-O3", "-fopenmp"])
    assert remarks_and_object(lib.compiler, tmp_path / "k.c", list(lib.flags), [tmp_path], tmp_path / "k.o")
    names = ["two_regions._omp_fn.0", "two_regions._omp_fn.1"]
    table = line_table(tmp_path / "k.o", lib.path, ["two_regions", *names], "k.c")
    lines = {name: {table[i.addr] for i in disassemble(lib.path, name) if i.addr in table} for name in names}
    assert 5 in lines["two_regions._omp_fn.0"] and 8 in lines["two_regions._omp_fn.1"]
    assert 8 not in lines["two_regions._omp_fn.0"] and 5 not in lines["two_regions._omp_fn.1"]

import os
import textwrap

import numpy as np
import pytest

from rooflab.errors import RooflabError
from rooflab.kernels.runner import ArraySpec
from rooflab.timing.stats import unpaired_ratio
from rooflab.kernels.user import wrapper_source
from rooflab.userkernel.expr import ExprError, arith, numpy_expr
from rooflab.userkernel.proto import find_prototype_text, parse_prototype, prototype_from_source, source_types
from rooflab.userkernel.spec import Checker, SpecError, load_spec

SRC = """
#include <stddef.h>
// a comment mentioning scale(
static inline float twice(float v) { return 2 * v; }
void scale(long n, float a, const float *restrict x, float *restrict y) {
    for (long i = 0; i < n; i++) y[i] = a * x[i];
}
double dot(size_t n, const double *a, const double *b) { double s = 0; for (size_t i = 0; i < n; i++) s += a[i] * b[i]; return s; }
"""

GOOD = """
source = "k.c"
function = "scale"
flops = "n"
bytes = "8*n"
sizes = {n = [16, 1000]}
[args]
n = "n"
a = 3.0
x = {shape = ["n"], dtype = "float32"}
y = {shape = ["n"], dtype = "float32", output = true}
[check]
y = "a * x"
tolerance = 1e-6
"""


def write(tmp_path, spec, src=SRC):
    (tmp_path / "k.c").write_text(src)
    p = tmp_path / "k.toml"
    p.write_text(textwrap.dedent(spec))
    return p


def test_arith_evaluator_is_safe_and_clear():
    assert arith("2*n + m // 2", {"n": 10, "m": 5}) == 22
    assert arith("max(n, 4) ** 2", {"n": 3}) == 16
    assert arith(7, {}) == 7
    for bad, msg in [("__import__('os')", "not allowed"), ("n.bit_length()", "not allowed"), ("q + 1", "unknown name"),
                     ("2 +", "does not parse"), ("1/0", "division by zero"), ("2 ** 1000", "too large")]:
        with pytest.raises(ExprError, match=msg):
            arith(bad, {"n": 1})


def test_numpy_expressions_allow_numpy_not_python():
    x = np.arange(4.0)
    assert np.array_equal(numpy_expr("np.cumsum(x)[1:]", {"x": x}), np.cumsum(x)[1:])
    assert numpy_expr("x.sum(axis=0) * 2", {"x": x}) == 12.0
    with pytest.raises(ExprError, match="not allowed"):
        numpy_expr("x.__class__", {"x": x})
    with pytest.raises(ExprError, match="not allowed"):
        numpy_expr("[v for v in x]", {"x": x})
    with pytest.raises(ExprError, match="failed"):
        numpy_expr("x @ np.ones(3)", {"x": x})
    assert numpy_expr("[x @ x, x[0]]", {"x": x}) == [14.0, 0.0]  # a list: the value of a one-element output
    # comparisons, one at a time, and bitwise operators: what checks of counting and hashing kernels need
    assert numpy_expr("np.sum(x > t)", {"x": x, "t": 1.5}) == 2
    assert numpy_expr("np.where(x <= 1, 0, x)", {"x": x}).tolist() == [0, 0, 2, 3]
    h = np.arange(6, dtype=np.uint32)
    assert numpy_expr("((h << 3) ^ ~h) & 255 | (h >> 1)", {"h": h}).tolist() == \
        (((h << 3) ^ ~h) & 255 | (h >> 1)).tolist()
    with pytest.raises(ExprError, match="not allowed"):
        numpy_expr("0 < x < 2", {"x": x})
    with pytest.raises(ExprError, match="not allowed"):
        numpy_expr("x in x", {"x": x})
    with pytest.raises(ExprError, match="not allowed"):  # arith stays arithmetic
        arith("n > 2", {"n": 3})


def test_a_word_is_allowed_only_as_an_options_value_so_no_function_gets_a_file_name():
    k = np.array([7, 2, 9, 4, 3], dtype=np.uint32)
    got = numpy_expr("k[np.argsort(k & 1, kind='stable')]", {"k": k})
    assert got.tolist() == [2, 4, 7, 9, 3]  # even keys first, each group in its order
    assert numpy_expr("np.ravel(np.reshape(k[:4], (2, 2)), order='F')", {"k": k}).tolist() == [7, 9, 2, 4]
    for text in ("np.save(file='k.npy', arr=k)", "np.load('k.npy')", "np.fromfile(file='k')", "'a' * 3",
                 "np.argsort(k, kind='s' * 40)"):
        with pytest.raises(ExprError, match="not allowed"):
            numpy_expr(text, {"k": k})


def test_prototypes_from_source_and_text():
    assert find_prototype_text(SRC, "scale").startswith("void scale(long n")
    p = prototype_from_source(SRC, "scale", "spec")
    assert [(q.name, q.base, q.pointer, q.const) for q in p.params] == [
        ("n", "long", False, False), ("a", "float", False, False), ("x", "float", True, True),
        ("y", "float", True, False)]
    d = prototype_from_source(SRC, "dot", "spec")
    assert d.returns == "double" and d.params[0].base == "size_t"
    with pytest.raises(RooflabError, match="no function 'nope'"):
        prototype_from_source(SRC, "nope", "spec")
    (m,) = parse_prototype("void f(float **m)").params  # row pointers: a buffer and a table of its rows
    assert m.pointer and m.rows and m.c_decl == "float **m" and m.stars == "**"
    assert not parse_prototype("void f(const float *m)").params[0].rows
    (u,) = parse_prototype("void f(double ***u)").params  # planes of row pointers: two tables above the buffer
    assert u.tables == 2 and u.stars == "***" and u.c_decl == "double ***u"
    with pytest.raises(RooflabError, match="pointers to pointers to arrays"):
        parse_prototype("void f(float (**m)[4])")
    with pytest.raises(RooflabError, match="row pointers to 'struct p'"):
        parse_prototype("struct p; void f(struct p **m)")
    with pytest.raises(RooflabError, match="cannot parse"):
        parse_prototype("void f(int n")


def test_a_definition_is_read_before_an_earlier_declaration_without_names():
    src = ("extern void vranlc(int, double *, double, double *);\n"
           "void vranlc(int n, double *x_seed, double a, double y[]) { y[0] = a * *x_seed + n; }\n")
    p = prototype_from_source(src, "vranlc", "spec")
    assert [q.name for q in p.params] == ["n", "x_seed", "a", "y"]
    # declared only: the declaration is what there is
    assert find_prototype_text("double f(double x);\n", "f") == "double f(double x)"


def test_array_parameters_are_pointers_to_their_first_element():
    # C99 variable-length and fixed array parameters, as PolyBench-style kernels declare them
    p = parse_prototype("void g(int ni, int nj, double alpha, double C[ni][nj], const double A[restrict ni][nj], "
                        "float x[], double t[4][8])")
    assert [(q.name, q.base, q.pointer, q.const) for q in p.params][3:] == [
        ("C", "double", True, False), ("A", "double", True, True), ("x", "float", True, False),
        ("t", "double", True, False)]
    assert "double *C" in p.declaration()
    with pytest.raises(RooflabError, match="arrays of pointers"):
        parse_prototype("void f(double *rows[4])")
    # a pointer to rows of m elements is the first row of the same row-major buffer
    q = parse_prototype("void h(int n, int m, double (*restrict A)[m], const float (*B)[256])")
    assert [(x.name, x.base, x.pointer, x.const) for x in q.params][2:] == [
        ("A", "double", True, False), ("B", "float", True, True)]
    assert "double *A" in q.declaration()
    with pytest.raises(RooflabError, match="arrays of pointers"):
        parse_prototype("void f(double *(*rows)[4])")


def test_wrapper_calls_the_kernel_reps_times_with_names_no_user_can_take():
    w = wrapper_source(prototype_from_source(SRC, "dot", "spec"))
    assert ("double rooflab_bench_entry(long rooflab_reps, size_t rooflab_a0, const double *rooflab_a1, "
            "const double *rooflab_a2, double *rooflab_ret)") in w
    assert "rooflab_sink = dot(rooflab_a0, rooflab_a1, rooflab_a2);" in w and "volatile double rooflab_sink" in w
    assert "if (rooflab_ret) *rooflab_ret = rooflab_sink;" in w  # the value of the last call, for check.return
    assert "typedef __SIZE_TYPE__ size_t;" in w and "#include" not in w
    assert "double dot(size_t, const double *, const double *);" in w


def test_good_spec_loads(tmp_path):
    (k,) = load_spec(write(tmp_path, GOOD))
    assert k.name == "scale" and k.precision == "fp32" and k.tolerance == 1e-6
    assert k.sizes == [{"n": 16}, {"n": 1000}]
    assert k.work({"n": 1000}) == (1000.0, 8000.0) and k.array_bytes({"n": 1000}) == 8000
    # its arrays at the start of a page unless the spec staggers them
    assert k.placement == "aligned" and k.to_dict()["placement"] == "aligned"
    (s,) = load_spec(write(tmp_path, 'placement = "staggered"\n' + GOOD))
    assert s.placement == "staggered"


@pytest.mark.parametrize("edit,msg", [
    (lambda s: s.replace('source = "k.c"', 'source = "missing.c"'), "source: file .* not found"),
    (lambda s: s.replace('function = "scale"', 'function = "nope"'), "function: no function 'nope'"),
    (lambda s: s.replace('a = 3.0\n', ''), "disagree: no value for parameter\\(s\\) a"),
    (lambda s: s.replace('a = 3.0\n', 'a = 3.0\nz = 1\n'), "z not in the prototype"),
    (lambda s: s.replace('flops = "n"', 'flops = "n *"'), "flops: 'n \\*' does not parse"),
    (lambda s: s.replace('bytes = "8*n"', 'bytes = "8*m"'), "bytes: unknown name 'm'"),
    (lambda s: s.replace('dtype = "float32"}\ny', 'dtype = "float64"}\ny'), "args.x: dtype float64 does not match"),
    (lambda s: s.replace('x = {shape = ["n"], dtype = "float32"}', 'x = 4'), "args.x: parameter .* is a pointer"),
    (lambda s: s.replace('a = 3.0', 'a = {shape = [1]}'), "args.a: parameter .* is a scalar"),
    (lambda s: s.replace('sizes = {n = [16, 1000]}', 'sizes = {n = [100000000000]}'), "sizes: .* GiB"),
    (lambda s: s.replace('y = "a * x"', 'y = "a * w"'), "check.y: unknown name"),
    (lambda s: "colour = 1\n" + s, "unknown field"),
    (lambda s: 'placement = "apart"\n' + s, "placement: .*'aligned' or 'staggered'"),
    (lambda s: s.replace('flops = "n"\n', ''), "missing field `flops`"),
    (lambda s: s.replace('[args]', '[args]\n= 1'), "not valid TOML"),
])
def test_every_bad_spec_gets_one_message_naming_the_field(tmp_path, edit, msg):
    with pytest.raises(SpecError, match=msg):
        load_spec(write(tmp_path, edit(GOOD)))


def test_a_function_with_an_openmp_directive_is_built_with_openmp_unless_the_spec_says_not(tmp_path, monkeypatch):
    par = SRC.replace("    for (long i = 0; i < n; i++) y[i] = a * x[i];",
                      "    #pragma omp parallel for schedule(static)\n    for (long i = 0; i < n; i++) y[i] = a * x[i];")
    monkeypatch.setenv("OMP_NUM_THREADS", "3,2")
    (k,) = load_spec(write(tmp_path, GOOD, par))
    assert k.openmp and k.threads == 3  # the team OpenMP gives it by default: OMP_NUM_THREADS's first level
    monkeypatch.delenv("OMP_NUM_THREADS")
    (k,) = load_spec(write(tmp_path, GOOD, par))
    assert k.openmp and 1 <= k.threads <= (os.cpu_count() or 1)
    (k,) = load_spec(write(tmp_path, GOOD.replace('function = "scale"', 'function = "scale"\nthreads = 1'), par))
    assert k.openmp and k.threads == 1
    (k,) = load_spec(write(tmp_path, GOOD.replace('function = "scale"', 'function = "scale"\nopenmp = false'), par))
    assert not k.openmp and k.threads == 1
    # `omp simd` needs no runtime, and a directive in another function of the file is not this kernel's
    simd = SRC.replace("    for (long i = 0;", "    #pragma omp simd\n    for (long i = 0;", 1)
    assert not load_spec(write(tmp_path, GOOD, simd))[0].openmp
    other = SRC + "void fill(long n, double *y) {\n#pragma omp parallel for\n for (long i = 0; i < n; i++) y[i] = 1; }"
    assert not load_spec(write(tmp_path, GOOD, other))[0].openmp
    hidden = SRC.replace("    for (long i = 0;", "    /* tried:\n#pragma omp parallel for\n    */\n    for (long i = 0;", 1)
    assert not load_spec(write(tmp_path, GOOD, hidden))[0].openmp  # a directive in a comment is none


@pytest.mark.cc
def test_an_openmp_directive_counts_as_an_openmp_build_of_the_source_reads_it(tmp_path):
    """A directive under a conditional an OpenMP build does not take (HPCCG's #ifdef USING_OMP, off by default) is
    none; under #ifdef _OPENMP it is one, and the kernel's own -D flags count."""
    def guarded(macro: str) -> str:
        return SRC.replace("    for (long i = 0;", f"#ifdef {macro}\n    #pragma omp parallel for\n#endif\n"
                                                   "    for (long i = 0;", 1)
    assert not load_spec(write(tmp_path, GOOD, guarded("USING_OMP")))[0].openmp
    assert load_spec(write(tmp_path, GOOD, guarded("_OPENMP")))[0].openmp
    flagged = GOOD.replace('function = "scale"', 'function = "scale"\nflags = ["-DUSING_OMP"]')
    assert load_spec(write(tmp_path, flagged, guarded("USING_OMP")))[0].openmp
    # explain's experiment that turns the pragmas on has nothing to build where an OpenMP build has none
    from rooflab.diagnosis.experiments import variant
    (off,) = load_spec(write(tmp_path, GOOD, guarded("USING_OMP")))
    assert variant("openmp", off, {"n": 64}, {"cpus": 2}) is None
    (on,) = load_spec(write(tmp_path, GOOD.replace('function = "scale"', 'function = "scale"\nopenmp = false'),
                            guarded("_OPENMP")))
    assert variant("openmp", on, {"n": 64}, {"cpus": 2})[0].openmp


def test_spec_with_several_kernels_and_defaults(tmp_path):
    spec = GOOD.replace('function = "scale"\n', "") + '\n[[kernel]]\nfunction = "scale"\n[[kernel]]\nfunction = ' \
        '"scale"\nname = "scale2"\nflags = ["-O1"]\n'
    ks = load_spec(write(tmp_path, spec))
    assert [k.name for k in ks] == ["scale", "scale2"] and ks[1].flags == ["-O1"]
    with pytest.raises(SpecError, match="must differ"):
        load_spec(write(tmp_path, spec.replace('name = "scale2"', "")))


def test_checker_rebuilds_inputs_and_measures_error():
    x = ArraySpec((5,), "float32", "random", seed=1)
    y = ArraySpec((5,), "float32", "zeros", seed=2)
    chk = Checker((("x", x), ("y", y)), (("a", 2.0),), (("y", "a * x"),))
    good = [x.make(), 2.0 * x.make()]
    assert chk(good) == 0.0
    bad = [x.make(), 2.0 * x.make() + 1.0]
    assert chk(bad) > 0.1


def test_unpaired_ratio_verdicts():
    rng = np.random.default_rng(1)
    a = 1e-3 * rng.lognormal(0, 0.02, 30)
    same = [unpaired_ratio(a, 1e-3 * rng.lognormal(0, 0.02, 30)).verdict for _ in range(50)]
    assert same.count("no difference") >= 48
    assert unpaired_ratio(a, 1.1 * a).verdict == "slower" and unpaired_ratio(a, a / 1.1).verdict == "faster"


def test_an_expression_fill_gives_index_arrays_their_structure_the_same_in_every_process():
    env = (("n", 5), ("k", 3))
    ptr = ArraySpec((6,), "int64", "np.arange(n + 1) * k", env=env, name="ptr")
    assert ptr.make().tolist() == [0, 3, 6, 9, 12, 15]
    col = ArraySpec((15,), "int32", "rng.integers(0, n, n * k)", seed=7, env=env, name="col")
    a, b = col.make(), col.make()
    assert a.dtype == np.int32 and np.array_equal(a, b) and a.min() >= 0 and a.max() < 5
    assert not np.array_equal(a, ArraySpec((15,), "int32", col.fill, seed=8, env=env).make())
    # a scalar or a row broadcasts; floats keep their values
    assert ArraySpec((2, 3), "float64", "np.arange(3) / n", env=env).make().tolist() == [[0, 0.2, 0.4]] * 2
    refused = [("np.arange(n)", "int64", "does not fit"), ("np.arange(16) - 1", "uint8", "range"),
               ("np.arange(16) * 1e3", "int8", "range"), ("np.arange(16) / 2", "int64", "fractions"),
               ("np.full(16, np.nan)", "float64", "not finite"), ("1 / np.zeros(16)", "float32", "not finite"),
               ("q + 1", "float64", "unknown name"), ("np.arange(16) * 1j", "float64", "not real numbers"),
               ("np.__class__", "float64", "not allowed"), ("__import__('os')", "float64", "unknown name")]
    for fill, dtype, why in refused:
        with pytest.raises(RooflabError, match=why):
            ArraySpec((16,), dtype, fill, env=env, name="x").make()


def test_nan_and_infinity_fill_an_array_only_where_the_spec_says_the_kernel_handles_them(tmp_path):
    nan_last = ArraySpec((4,), "float64", "np.array([1.0, 2.0, np.inf, np.nan])", name="x", nonfinite=True)
    got = nan_last.make()
    assert got[:2].tolist() == [1.0, 2.0] and np.isinf(got[2]) and np.isnan(got[3])
    with pytest.raises(RooflabError, match="nonfinite = true"):
        ArraySpec((4,), "float64", nan_last.fill, name="x").make()
    spec = GOOD.replace('x = {shape = ["n"], dtype = "float32"}',
                        'x = {shape = ["n"], dtype = "float32", fill = "np.full(n, np.nan)", nonfinite = true}')
    (s,) = load_spec(write(tmp_path, spec))
    assert s.args["x"].nonfinite
    (tmp_path / "i.c").write_text("void inc(long n, int *k) { for (long i = 0; i < n; i++) k[i]++; }\n")
    (tmp_path / "i.toml").write_text('source = "i.c"\nfunction = "inc"\nflops = "n"\nbytes = "8*n"\n'
                                     'sizes = {n = [16]}\nargs = {n = "n", k = {shape = ["n"], dtype = "int32", '
                                     'output = true, nonfinite = true}}\n')
    with pytest.raises(SpecError, match="holds no NaN"):
        load_spec(tmp_path / "i.toml")


def test_a_nan_where_the_check_expects_a_number_is_a_wrong_result():
    """max() of a NaN difference is no difference at all: a NaN or an infinity on one side only must be wrong,
    and NaN where NaN is expected (a kernel that propagates it) right."""
    ones = Checker(arrays=(("y", ArraySpec((4,), "float64", "zeros")),), scalars=(), expected=(("y", "np.ones(4)"),))
    assert ones([np.array([1.0, np.nan, 1.0, 1.0])]) == float("inf")
    assert ones([np.array([1.0, -np.inf, 1.0, 1.0])]) == float("inf")
    assert ones([np.array([1.0, 1.0, 1.0, 1.0 + 1e-9])]) == pytest.approx(1e-9)
    special = Checker(arrays=(("y", ArraySpec((3,), "float64", "zeros")),), scalars=(),
                      expected=(("y", "np.array([np.nan, np.inf, 2.0])"),))
    assert special([np.array([np.nan, np.inf, 2.0])]) == 0.0
    assert special([np.array([np.nan, -np.inf, 2.0])]) == float("inf")
    assert special([np.array([1.0, np.inf, 2.0])]) == float("inf")
    cx = Checker(arrays=(("z", ArraySpec((2,), "complex128", "zeros")),), scalars=(), expected=(("z", "np.ones(2)"),))
    assert cx([np.array([1.0, complex(np.nan, 0.0)])]) == float("inf")


def test_a_fill_expression_names_only_what_the_spec_knows(tmp_path):
    spec = GOOD.replace('x = {shape = ["n"], dtype = "float32"}',
                        'x = {shape = ["n"], dtype = "float32", fill = "np.linspace(0, a, n) + rng.random(n)"}')
    (s,) = load_spec(write(tmp_path, spec))
    assert s.args["x"].fill.startswith("np.linspace")
    with pytest.raises(SpecError, match=r"args.x.fill: unknown name\(s\) m"):
        load_spec(write(tmp_path, spec.replace("np.linspace(0, a, n)", "np.linspace(0, a, m)")))
    with pytest.raises(SpecError, match="fill"):
        load_spec(write(tmp_path, spec.replace('fill = "np.linspace(0, a, n) + rng.random(n)"', 'fill = ""')))
    # in a fill, np is NumPy and rng the generator: a size of that name (PolyBench's doitgen has a parameter np)
    # is refused only where the fill uses the name as a value, which would be read as the size
    with_rng = spec.replace("sizes = {n = [16, 1000]}", "sizes = {n = [16, 1000], rng = [1]}")
    (s,) = load_spec(write(tmp_path, with_rng))
    assert "rng.random" in s.args["x"].fill
    with pytest.raises(SpecError, match="in a fill, rng is the random generator, not the size"):
        load_spec(write(tmp_path, with_rng.replace("+ rng.random(n)", "* rng")))
    with pytest.raises(SpecError, match="np is NumPy and rng is the random generator"):
        load_spec(write(tmp_path, with_rng.replace("sizes = {n = [16, 1000], rng = [1]}",
                                                   "sizes = {n = [16, 1000], rng = [1], np = [2]}")
                        .replace("+ rng.random(n)", "* rng * np")))


def test_integer_types_written_any_way_c_allows_are_one_type():
    p = parse_prototype("void f(long unsigned n, const unsigned *x, unsigned short *y, signed char *z, "
                        "long long int m, short int s);", "t")
    assert [q.base for q in p.params] == ["unsigned long", "unsigned int", "unsigned short", "signed char",
                                          "long long", "short"]
    from rooflab.userkernel.proto import POINTEE_DTYPE, int_range
    assert [POINTEE_DTYPE[q.base] for q in p.params[1:4]] == ["uint32", "uint16", "int8"]
    assert int_range("unsigned long") == (0, 2 ** 64 - 1) and int_range("short") == (-2 ** 15, 2 ** 15 - 1)
    with pytest.raises(RooflabError, match="long double"):
        parse_prototype("void f(long double q);", "t")


def test_an_array_of_structs_is_a_buffer_of_the_dtype_the_spec_gives():
    from rooflab.kernels.user import wrapper_source
    from rooflab.userkernel.proto import parse_prototype

    proto = parse_prototype("void drift(long n, double dt, struct particle *p)")
    assert proto.params[2].base == "struct particle" and proto.params[2].pointer
    src = wrapper_source(proto)
    assert "struct particle;\n" in src and "struct particle *rooflab_a2" in src  # declared, never defined
    with pytest.raises(RooflabError, match="unsupported parameter type"):
        parse_prototype("void f(struct particle p)")  # a struct by value is no buffer
    with pytest.raises(RooflabError, match="unsupported parameter type"):
        parse_prototype("void f(struct { double x; } *p)")  # an anonymous struct cannot be declared again


def test_a_spec_names_the_dtype_of_an_array_of_structs_whose_fields_differ(tmp_path):
    (tmp_path / "k.c").write_text("struct particle { double x, vx; int id; };\n"
                                  "void drift(long n, double dt, struct particle *p)\n"
                                  "{ for (long i = 0; i < n; i++) p[i].x += p[i].vx * dt; }\n")
    spec = tmp_path / "k.toml"
    base = 'source = "k.c"\nfunction = "drift"\nflops = "2*n"\nbytes = "24*n"\nsizes = {n = [100]}\n'
    spec.write_text(base + 'args = {n = "n", dt = 0.5, p = {shape = ["n", 3], output = true}}\n')
    with pytest.raises(SpecError, match="points to struct particle: give its dtype"):
        load_spec(spec)
    spec.write_text(base + 'args = {n = "n", dt = 0.5, p = {shape = ["n", 3], dtype = "float64", output = true}}\n')
    (k,) = load_spec(spec)
    assert k.prototype.params[2].base == "struct particle" and k.prototype.params[2].fields is None


def test_the_sources_typedefs_and_records_of_one_field_type_need_no_dtype(tmp_path):
    """Types as real code names them: a typedef of a number type, a typedef'd struct (anonymous or tagged), a
    struct defined with fields of one type (arrays of them counted). The dtype and the field count come from the
    definition; a last dimension that disagrees with it, or a dtype, is refused with why."""
    (tmp_path / "k.c").write_text(textwrap.dedent("""
        #include <stddef.h>
        typedef double real;
        typedef real real_t;   /* a typedef of a typedef */
        typedef struct { real_t x, y, z; } vec3;
        typedef struct body { float pos[3]; float m; } body_t;
        typedef double *dptr;
        struct pair { int a; double b; };
        /* struct decoy { char c; } would be a comment */
        void norm3(long n, const vec3 *v, real *r)
        { for (long i = 0; i < n; i++) r[i] = v[i].x * v[i].x + v[i].y * v[i].y + v[i].z * v[i].z; }
        float mass(long n, const body_t *b)
        { float s = 0; for (long i = 0; i < n; i++) s += b[i].m; return s; }
        void viaptr(long n, dptr x) { for (long i = 0; i < n; i++) x[i] = 0; }
        void pairs(long n, struct pair *p) { for (long i = 0; i < n; i++) p[i].b = p[i].a; }
        """))
    types = source_types((tmp_path / "k.c").read_text())
    assert types.typedefs["real_t"] == "double" and types.typedefs["vec3"] == "struct vec3"
    assert types.typedefs["body_t"] == "struct body" and types.typedefs["dptr"] is None
    assert types.records == {"struct vec3": ("float64", 3), "struct body": ("float32", 4), "struct pair": None}
    spec = tmp_path / "k.toml"
    spec.write_text(textwrap.dedent("""
        [[kernel]]
        source = "k.c"
        function = "norm3"
        flops = "5*n"
        bytes = "32*n"
        sizes = {n = [100]}
        args = {n = "n", v = {shape = ["n", 3]}, r = {shape = ["n"], output = true}}
        check = {r = "np.sum(v * v, axis=1)", tolerance = 1e-12}

        [[kernel]]
        source = "k.c"
        function = "mass"
        flops = "n"
        bytes = "16*n"
        sizes = {n = [100]}
        args = {n = "n", b = {shape = ["n", 4]}}
        check = {return = "np.sum(b[:, 3].astype(np.float64))", tolerance = 1e-5}
        """))
    norm3, mass = load_spec(spec)
    assert [p.base for p in norm3.prototype.params] == ["long", "struct vec3", "double"]
    assert norm3.args["v"].dtype == "float64" and norm3.args["r"].dtype == "float64"
    assert mass.args["b"].dtype == "float32" and mass.prototype.returns == "float"
    assert "struct vec3;" in wrapper_source(norm3.prototype)  # declared, never defined
    text = spec.read_text()
    spec.write_text(text.replace('v = {shape = ["n", 3]}', 'v = {shape = ["n", 4]}'))
    with pytest.raises(SpecError, match=r"struct vec3 has 3 fields of float64: give them as the last dimension"):
        load_spec(spec, only=["norm3"])
    spec.write_text(text.replace('v = {shape = ["n", 3]}', 'v = {shape = ["n", 3], dtype = "float32"}'))
    with pytest.raises(SpecError, match=r"dtype float32 does not match the fields of struct vec3 \(3 float64\)"):
        load_spec(spec, only=["norm3"])
    spec.write_text(text.replace('function = "mass"', 'function = "viaptr"'))
    with pytest.raises(SpecError, match="typedef of a pointer"):
        load_spec(spec, only=["viaptr"])


def test_c99_complex_pointers_are_arrays_of_numpys_complex_numbers_and_by_value_is_refused():
    p = parse_prototype("void zaxpy(long n, double ar, const double complex *x, _Complex double *y, "
                        "complex float *z, float _Complex *w)")
    assert [q.base for q in p.params[2:]] == ["double _Complex"] * 2 + ["float _Complex"] * 2
    assert "const double _Complex *" in wrapper_source(p)  # spelled so that no header is needed
    with pytest.raises(RooflabError, match="complex number passed by value"):
        parse_prototype("void f(long n, double complex a, double complex *y)")


def test_half_precision_pointers_are_arrays_of_numpys_float16_and_by_value_is_refused():
    from rooflab.userkernel.proto import POINTEE_DTYPE

    p = parse_prototype("void to_half(long n, const float *x, _Float16 *y)")
    assert p.params[2].base == "_Float16" and POINTEE_DTYPE[p.params[2].base] == "float16"
    assert "_Float16 *);" in wrapper_source(p)
    with pytest.raises(RooflabError, match="not a supported scalar"):
        parse_prototype("void f(long n, _Float16 a, _Float16 *y)")


def test_a_complex_kernel_is_checked_as_complex_numbers(tmp_path):
    (tmp_path / "z.c").write_text(textwrap.dedent("""
        #include <complex.h>
        void zscale(long n, double ar, double ai, const double complex *x, double complex *y)
        {
            for (long i = 0; i < n; i++)
                y[i] = (ar + ai * I) * x[i];
        }
    """))
    (tmp_path / "z.toml").write_text(textwrap.dedent("""
        source = "z.c"
        function = "zscale"
        flops = "6*n"
        bytes = "32*n"
        sizes = {n = [1000]}
        args = {n = "n", ar = 0.5, ai = -1.5, x = {shape = ["n"]}, y = {shape = ["n"], output = true}}
        check = {y = "(0.5 - 1.5j) * x", tolerance = 1e-12}
    """))
    spec = load_spec(tmp_path / "z.toml")[0]
    x, y = spec.args["x"], spec.args["y"]
    assert x.dtype == y.dtype == "complex128" and spec.precision == "fp64"
    xa = ArraySpec((1000,), "complex128", "random", seed=1)
    assert np.abs(xa.make().imag).max() > 0  # random complex inputs, not real ones cast
    chk = Checker((("x", xa), ("y", ArraySpec((1000,), "complex128", "zeros", seed=2))), (),
                  (("y", spec.check["y"]),))
    good = (0.5 - 1.5j) * xa.make()
    assert chk([xa.make(), good]) < 1e-15
    # the imaginary part dropped is wrong, not rounded away
    assert chk([xa.make(), good.real.astype(np.complex128)]) > 0.1


def test_a_spec_loaded_for_some_kernels_reads_the_others_no_further_than_their_names(tmp_path):
    (tmp_path / "k.c").write_text("void good(long n, double *x) { for (long i = 0; i < n; i++) x[i] += 1.0; }\n"
                                  "void odd(long n, double complex a, double *x) { }\n")
    (tmp_path / "k.toml").write_text(textwrap.dedent("""
        source = "k.c"
        [[kernel]]
        name = "good"
        function = "good"
        flops = "n"
        bytes = "16*n"
        sizes = {n = [100]}
        args = {n = "n", x = {shape = ["n"], output = true}}
        [[kernel]]
        name = "odd"
        function = "odd"
        flops = "n"
        bytes = "8*n"
        sizes = {n = [100]}
        args = {n = "n", a = 1.0, x = {shape = ["n"]}}
    """))
    with pytest.raises(SpecError, match="kernel 2.*passed by value"):
        load_spec(tmp_path / "k.toml")
    assert [k.name for k in load_spec(tmp_path / "k.toml", ("good",))] == ["good"]
    with pytest.raises(SpecError, match=r"no kernel named nope in the spec \(it has: good, odd\)"):
        load_spec(tmp_path / "k.toml", ("nope",))
    # a kernel without a name is named by its function
    text = (tmp_path / "k.toml").read_text().replace('name = "good"\n', "").replace('name = "odd"\n', "")
    (tmp_path / "k.toml").write_text(text)
    assert [k.name for k in load_spec(tmp_path / "k.toml", ("good",))] == ["good"]


def test_prototype_types_from_the_sources_macros(tmp_path):
    """A prototype whose types are the source's macros, chosen by its conditionals (LINPACK's ``REAL``), is read as
    the preprocessor reads it with the kernel's flags; a source whose prototype cannot be read at all still says so."""
    src = ("#ifdef SP\n#define REAL float\n#endif\n#ifdef DP\n#define REAL double\n#endif\n"
           "void scale(int n, REAL a, REAL x[], REAL y[]) { for (int i = 0; i < n; i++) y[i] = a * x[i]; }\n")
    (k,) = load_spec(write(tmp_path, 'flags = ["-DSP"]\n' + GOOD, src))
    assert [p.base for p in k.prototype.params] == ["int", "float", "float", "float"]
    (k,) = load_spec(write(tmp_path, 'flags = ["-DDP"]\n' + GOOD.replace("float32", "float64"), src))
    assert [p.base for p in k.prototype.params] == ["int", "double", "double", "double"]
    with pytest.raises(SpecError, match="cannot parse"):
        load_spec(write(tmp_path, GOOD, src))  # neither defined: REAL is no type


def test_a_cxx_source_is_refused_saying_that_kernels_are_c(tmp_path):
    for name in ("k.cpp", "k.C"):
        (tmp_path / name).write_text('extern "C" void f(int n, double *x) { for (int i = 0; i < n; i++) x[i] = 0; }\n')
        (tmp_path / "k.toml").write_text(f'source = "{name}"\nfunction = "f"\nflops = "n"\nbytes = "8*n"\n'
                                         'sizes = {n = [8]}\nargs = {n = "n", x = {shape = ["n"]}}\n')
        with pytest.raises(SpecError, match=rf"{name} is C\+\+; rooflab builds and reads kernels as C"):
            load_spec(tmp_path / "k.toml")

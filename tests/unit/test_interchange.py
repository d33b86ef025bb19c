"""Loop interchange in a copy of the source (explain's experiment for strided access): which nests are reordered,
into which order, and which are left alone."""

import re

from rooflab.diagnosis.interchange import interchanged, stride_scores


def _fn(src: str, name: str) -> str:
    start = src.index(f"void {name}(")
    end = src.find("\nvoid ", start)
    return re.sub(r"\s+", " ", src[start:end if end > 0 else None])


def _order(text: str) -> list[str]:
    return re.findall(r"for \(long (\w+) =", text)


JKI = """
/* C += A B in j-k-i order */
void mm_jki(long n, const double *A, const double *B, double *C)
{
    for (long j = 0; j < n; j++)
        for (long k = 0; k < n; k++) {
            double b = B[k * n + j];  // held in a register
            for (long i = 0; i < n; i++)
                C[i * n + j] += A[i * n + k] * b;
        }
}
"""


def test_a_product_in_jki_order_becomes_ikj_with_its_scalar_moved_inside():
    out, nests = interchanged(JKI, "mm_jki")
    assert nests == [{"from": ["j", "k", "i"], "to": ["i", "k", "j"], "reduces": False}]
    body = _fn(out, "mm_jki")
    assert _order(body) == ["i", "k", "j"]
    # the declaration runs where its variables are all defined: inside the new innermost loop
    assert "for (long j = 0; j < n; j++) { double b = B[k * n + j]; C[i * n + j] += A[i * n + k] * b; }" in body
    assert out.startswith("\n/* C += A B in j-k-i order */")  # the rest of the file as it was


def test_statements_between_the_loops_are_distributed_and_an_accumulator_becomes_its_element():
    src = """
void gemm(long n, double beta, double *C, const double *A, const double *B)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            C[i * n + j] *= beta;
            for (long k = 0; k < n; k++)
                C[i * n + j] += A[i * n + k] * B[k * n + j];
        }
}
void gemv_t(long n, const double *A, const double *x, double *y)
{
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long j = 0; j < n; j++)
            s += A[j * n + i] * x[j];
        y[i] = s;
    }
}
"""
    out, nests = interchanged(src, "gemm")
    body = _fn(out, "gemm")
    assert nests[0]["to"] == ["i", "k", "j"]
    # the scaling first, over the loops around it; then the product
    assert body.index("C[i * n + j] *= beta;") < body.index("for (long k")
    assert _order(body) == ["i", "j", "i", "k", "j"]
    out, nests = interchanged(src, "gemv_t")
    body = _fn(out, "gemv_t")
    assert nests == [{"from": ["i", "j"], "to": ["j", "i"], "reduces": False}]
    assert "y[i] = 0.0;" in body and "y[i] += A[j * n + i] * x[j];" in body and " s " not in body


def test_a_nest_that_would_sum_into_one_element_says_so():
    src = """
void syrk(long n, long m, double C[n][n], double A[n][m])
{
    for (long i = 0; i < n; i++)
        for (long k = 0; k < m; k++)
            for (long j = 0; j < n; j++)
                C[i][j] += A[i][k] * A[j][k];
}
"""
    _, nests = interchanged(src, "syrk")
    assert nests == [{"from": ["i", "k", "j"], "to": ["i", "j", "k"], "reduces": True}]


def test_nests_that_cannot_be_reordered_by_moving_headers_are_left_alone():
    cases = {
        # already contiguous innermost
        "for (long i = 0; i < n; i++) for (long j = 0; j < n; j++) b[i * n + j] = a[i * n + j];",
        # a transpose: every order walks one array by rows
        "for (long i = 0; i < n; i++) for (long j = 0; j < n; j++) b[j * n + i] = a[i * n + j];",
        # triangular bounds
        "for (long j = 0; j < n; j++) for (long i = j; i < n; i++) b[i * n + j] += 1.0;",
        # a statement after the inner loop that is no accumulator's store
        "for (long j = 0; j < n; j++) { for (long i = 0; i < n; i++) b[i * n + j] += 1.0; b[j] *= 2.0; }",
        # control flow leaving the loops
        "for (long j = 0; j < n; j++) for (long i = 0; i < n; i++) { if (b[i * n + j] < 0) break; b[i * n + j] = 0; }",
        # a loop variable changed in the body
        "for (long j = 0; j < n; j++) for (long i = 0; i < n; i++) { b[i * n + j] = 0; i += 1; }",
        # an OpenMP pragma on the nest: the work sharing would change
        "#pragma omp parallel for\n    for (long j = 0; j < n; j++) for (long i = 0; i < n; i++) b[i * n + j] = 0;",
        # bounds computed between the loops from the outer variable (a matrix's anti-diagonals)
        "for (long d = 0; d < 2 * n - 1; d++) { double t = 0.0; long i0 = d < n ? 0 : d - n + 1; "
        "long i1 = d < n ? d : n - 1; for (long i = i0; i <= i1; i++) t += a[i * n + (d - i)]; b[d] = t; }",
    }
    for body in cases:
        src = f"void f(long n, double *b, const double *a)\n{{\n    {body}\n}}\n"
        assert interchanged(src, "f") is None, body
    assert interchanged(JKI, "no_such_function") is None


def test_stride_scores_count_unit_steps_against_row_steps():
    got = stride_scores("C[i * n + j] += A[i * n + k] * B[k * n + j]; D[k][j] = E[j][k];", ["i", "j", "k"])
    assert got == {"i": -2, "j": 2 + 1 - 1, "k": 1 - 1 - 1 + 1}


def test_damaged_or_hostile_source_is_left_alone_never_raises():
    """The source is the user's: cut anywhere, unbalanced, or full of odd tokens, it gives None or a reordering."""
    for cut in range(0, len(JKI), 3):
        got = interchanged(JKI[:cut], "mm_jki")
        assert got is None or isinstance(got[0], str)
    odd = ["void mm_jki(long n) { for (long j = 0; j < n; j++) for ( ; ; ) ; }",
           "void mm_jki(long n) { for (long j = 0; j < n; j++) for (long i = 0; i < n; i++) a[i*n+j] = \"}{\"; }",
           "void mm_jki(long n) { for (long j = 0; j < n; j++) } } for (long i = 0; i < n; i++) a[i*n+j]++; }",
           "void mm_jki(long n) {" + "for (long i = 0; i < n; i++) {" * 200 + "}" * 200 + "}",
           "void mm_jki(long n) { for (long j = 0; j < n; j++) for (long j = 0; j < n; j++) a[j*n+j] = 0; }"]
    for src in odd:
        got = interchanged(src, "mm_jki")
        assert got is None or isinstance(got[0], str), src

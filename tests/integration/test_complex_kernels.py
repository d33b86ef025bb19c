"""Kernels over C99 complex numbers: their arrays are NumPy's complex dtypes, their results checked as complex."""

import pytest

from rooflab.errors import WrongResult
from rooflab.kernels.runner import run_c_kernel
from rooflab.kernels.user import build_spec, task
from rooflab.timing.harness import HarnessConfig
from rooflab.userkernel.spec import load_spec

pytestmark = pytest.mark.cc

SRC = """
#include <complex.h>
void zaxpy(long n, double ar, double ai, const double complex *x, double complex *y)
{
    double complex a = ar + ai * I;
    for (long i = 0; i < n; i++)
        y[i] += a * x[i];
}

/* the same with the conjugate of a: the real parts agree, the imaginary ones do not */
void zaxpy_conj(long n, double ar, double ai, const double complex *x, double complex *y)
{
    double complex a = ar - ai * I;
    for (long i = 0; i < n; i++)
        y[i] += a * x[i];
}
"""
SPEC = """
source = "z.c"
flops = "8*n"
bytes = "48*n"
sizes = {n = [2000]}
args = {n = "n", ar = 0.5, ai = -1.5, x = {shape = ["n"]}, y = {shape = ["n"], output = true}}
check = {y = "y + (0.5 - 1.5j) * x", tolerance = 1e-12}
[[kernel]]
name = "right"
function = "zaxpy"
[[kernel]]
name = "conjugated"
function = "zaxpy_conj"
"""


def test_a_complex_kernel_is_run_on_complex_arrays_and_a_wrong_imaginary_part_is_caught(tmp_path):
    (tmp_path / "z.c").write_text(SRC)
    (tmp_path / "z.toml").write_text(SPEC)
    right, conj = load_spec(tmp_path / "z.toml")
    cfg = HarnessConfig(min_sample_s=0.001, samples=2, warmup=0, min_samples=1, budget_s=1.0)
    res = run_c_kernel(task(right, build_spec(right), right.sizes[0], "right"), cfg)
    assert res["rel_error"] <= 1e-15
    with pytest.raises(WrongResult) as got:
        run_c_kernel(task(conj, build_spec(conj), conj.sizes[0], "conjugated"), cfg)
    assert got.value.rel_error > 0.1

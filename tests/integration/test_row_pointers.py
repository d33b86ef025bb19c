"""Kernels that take row pointers (``double **A``, as C code that allocates a matrix row by row has them): rooflab
makes one row-major buffer and a table of its rows' addresses, in the worker and in the profiling driver."""

import subprocess

import pytest

from rooflab.errors import WrongResult
from rooflab.kernels.runner import run_c_kernel
from rooflab.kernels.user import build_driver, build_spec, driver_source, task, write_driver_data
from rooflab.timing.harness import HarnessConfig
from rooflab.userkernel.spec import load_spec

pytestmark = pytest.mark.cc

SRC = """
void rowsum(int n, int m, double **A, double *s)
{
    for (int i = 0; i < n; i++) {
        double t = 0.0;
        for (int j = 0; j < m; j++)
            t += A[i][j];
        s[i] = t;
    }
}

/* reads row i + 1 for row i (the last row wraps to the first): the check must see it */
void rowsum_shifted(int n, int m, double **A, double *s)
{
    for (int i = 0; i < n; i++) {
        double t = 0.0;
        for (int j = 0; j < m; j++)
            t += A[(i + 1) % n][j];
        s[i] = t;
    }
}
"""
SPEC = """
source = "r.c"
flops = "n*m"
bytes = "8*n*m"
sizes = {n = [37], m = [53]}
args = {n = "n", m = "m", A = {shape = ["n", "m"]}, s = {shape = ["n"], output = true}}
check = {s = "A.sum(axis=1)", tolerance = 1e-12}
[[kernel]]
name = "right"
function = "rowsum"
[[kernel]]
name = "shifted"
function = "rowsum_shifted"
"""


def test_row_pointers_address_the_rows_of_one_buffer_in_the_worker(tmp_path):
    (tmp_path / "r.c").write_text(SRC)
    (tmp_path / "r.toml").write_text(SPEC)
    right, shifted = load_spec(tmp_path / "r.toml")
    assert right.prototype.params[2].rows
    cfg = HarnessConfig(min_sample_s=0.001, samples=2, warmup=0, min_samples=1, budget_s=1.0)
    res = run_c_kernel(task(right, build_spec(right), right.sizes[0], "right"), cfg)
    assert res["rel_error"] <= 1e-12
    with pytest.raises(WrongResult):  # row i + 1 read for row i: another row's sum
        run_c_kernel(task(shifted, build_spec(shifted), shifted.sizes[0], "shifted"), cfg)


def test_the_profiling_driver_makes_the_same_table_of_rows(tmp_path):
    (tmp_path / "r.c").write_text(SRC)
    (tmp_path / "r.toml").write_text(SPEC)
    right, _ = load_spec(tmp_path / "r.toml")
    size = right.sizes[0]
    exe = build_driver(right, size, calls=3)
    data = write_driver_data(right, size, tmp_path)
    r = subprocess.run([str(exe.path), *data], capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    text = driver_source(right, size, 3)
    assert "double **rooflab_a2 = (double **)rooflab_alloc(37UL * sizeof(void *));" in text
    assert "rooflab_a2[rooflab_i] = rooflab_a2_data + rooflab_i * 53UL;" in text

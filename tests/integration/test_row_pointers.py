"""Kernels that take row pointers (``double **A``, as C code that allocates a matrix row by row has them) or
planes of them (``double ***u``, a 3-D grid allocated plane by plane): rooflab makes one row-major buffer and the
tables of its rows' (and planes') addresses, in the worker and in the profiling driver."""

import subprocess

import pytest

from rooflab.errors import WrongResult
from rooflab.kernels.runner import run_c_kernel
from rooflab.kernels.user import build_driver, build_spec, driver_source, task, write_driver_data
from rooflab.timing.harness import HarnessConfig
from rooflab.userkernel.spec import SpecError, load_spec

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


GRID = """
/* the sum over each plane's interior, and a copy one plane on (the last plane's copy left alone) */
void planes(int n3, int n2, int n1, double ***u, double ***v, double *s)
{
    for (int i3 = 0; i3 < n3; i3++) {
        double t = 0.0;
        for (int i2 = 0; i2 < n2; i2++)
            for (int i1 = 0; i1 < n1; i1++) {
                t += u[i3][i2][i1] * (1 + i1 % 3);
                if (i3 + 1 < n3) v[i3 + 1][i2][i1] = u[i3][i2][i1];
            }
        s[i3] = t;
    }
}

/* reads plane i3 - 1 for plane i3 */
void planes_behind(int n3, int n2, int n1, double ***u, double ***v, double *s)
{
    for (int i3 = 0; i3 < n3; i3++) {
        double t = 0.0;
        for (int i2 = 0; i2 < n2; i2++)
            for (int i1 = 0; i1 < n1; i1++)
                t += u[(i3 + n3 - 1) % n3][i2][i1] * (1 + i1 % 3);
        s[i3] = t;
    }
}
"""
GRID_SPEC = """
source = "g.c"
flops = "2*n3*n2*n1"
bytes = "16*n3*n2*n1"
sizes = {n3 = [5], n2 = [7], n1 = [11]}
[args]
n3 = "n3"
n2 = "n2"
n1 = "n1"
u = {shape = ["n3", "n2", "n1"]}
v = {shape = ["n3", "n2", "n1"], fill = "zeros", output = true}
s = {shape = ["n3"], output = true}
[check]
s = "(u * (1 + np.arange(n1) % 3)).sum(axis=(1, 2))"
v = "np.concatenate([np.zeros((1, n2, n1)), u[:-1]])"
tolerance = 1e-12
[[kernel]]
name = "right"
function = "planes"
[[kernel]]
name = "behind"
function = "planes_behind"
"""


def test_planes_of_row_pointers_address_one_buffer(tmp_path):
    (tmp_path / "g.c").write_text(GRID)
    (tmp_path / "g.toml").write_text(GRID_SPEC)
    right, behind = load_spec(tmp_path / "g.toml")
    assert right.prototype.params[3].tables == 2
    cfg = HarnessConfig(min_sample_s=0.001, samples=2, warmup=0, min_samples=1, budget_s=1.0)
    res = run_c_kernel(task(right, build_spec(right), right.sizes[0], "right"), cfg)
    assert res["rel_error"] <= 1e-12
    with pytest.raises(WrongResult):  # plane i3 - 1 read for plane i3
        run_c_kernel(task(behind, build_spec(behind), behind.sizes[0], "behind"), cfg)
    size = right.sizes[0]
    exe = build_driver(right, size, calls=2)
    r = subprocess.run([str(exe.path), *write_driver_data(right, size, tmp_path)], capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    text = driver_source(right, size, 2)
    assert "double **rooflab_a3_t2 = (double **)rooflab_alloc(35UL * sizeof(void *));" in text
    assert "rooflab_a3_t2[rooflab_i] = rooflab_a3_data + rooflab_i * 11UL;" in text
    assert "rooflab_a3[rooflab_i] = rooflab_a3_t2 + rooflab_i * 7UL;" in text


def test_a_grid_of_pointer_planes_needs_three_dimensions(tmp_path):
    (tmp_path / "g.c").write_text(GRID)
    (tmp_path / "g.toml").write_text(GRID_SPEC.replace('u = {shape = ["n3", "n2", "n1"]}', 'u = {shape = ["n3", "n2"]}'))
    with pytest.raises(SpecError, match=r"2 levels of pointers: give a shape of 3 dimensions"):
        load_spec(tmp_path / "g.toml")

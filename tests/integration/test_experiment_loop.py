"""A rebuild tests a finding only when it changed the hot loop: two builds are compared instruction class by class."""

import pytest

from rooflab.diagnosis.experiments import same_hot_loop
from rooflab.toolchain.compiler import build
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

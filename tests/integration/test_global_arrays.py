"""A kernel that works on arrays of its own (globals and statics, as teaching code often has them: ``double
A[N][N];`` at file scope, no arrays passed): its working set counts them, so it is placed against the level that
holds them, not against L1 as if it touched nothing."""

import pytest

import rooflab
from rooflab.kernels.user import build_spec, working_set
from rooflab.userkernel.spec import load_spec

pytestmark = pytest.mark.cc

SRC = """
#define N 256
double ga[N][N], gb[N][N];

void add_transposed(void)
{
    static double seen[N];  /* a static array of the function: its data too */
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < N; j++)
            ga[i][j] += gb[j][i];
        ga[i][0] += seen[i];  /* the last call's value */
        seen[i] = ga[i][1];
    }
}
"""
SPEC = """
source = "g.c"
function = "add_transposed"
flops = "n*n"
bytes = "24*n*n"
sizes = {n = [256]}
args = {}
"""


def test_the_working_set_counts_the_kernels_own_arrays(tmp_path):
    (tmp_path / "g.c").write_text(SRC)
    (tmp_path / "g.toml").write_text(SPEC)
    (spec,) = load_spec(tmp_path / "g.toml")
    assert spec.array_bytes({"n": 256}) == 0  # no array is passed to it
    assert working_set(spec, build_spec(spec), {"n": 256}) == 2 * 256 * 256 * 8 + 256 * 8
    doc = rooflab.bench(tmp_path / "g.toml", quick=True, store=False)
    (row,) = doc["kernels"][0]["sizes"]
    assert row["working_set_bytes"] == 2 * 256 * 256 * 8 + 256 * 8

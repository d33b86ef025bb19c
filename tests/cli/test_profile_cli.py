"""`rooflab profile` on both paths: cachegrind for real (valgrind), and perf through a stand-in `perf` that replays
output recorded on a machine with counters (this VM has none)."""

import json
import os
import stat
from pathlib import Path

import pytest

from rooflab.cli import main

from conftest import fake_measure

DATA = Path(__file__).resolve().parents[1] / "data"
SPEC = str(DATA / "user_kernels.toml")

FAKE_PERF = r"""#!/bin/sh
# replays perf output recorded on a machine with hardware counters
case "$1" in
  stat)
    shift
    while [ "$#" -gt 0 ] && [ "${1#-}" != "$1" ]; do [ "$1" = "-e" ] && shift; shift; done
    "$@" >/dev/null
    cat >&2 "@RECORDING@"
    ;;
  record) while [ "$#" -gt 0 ]; do [ "$1" = "-o" ] && touch "$2"; shift; done ;;
  report)
    case "$*" in
      *srcline*) printf '# Overhead  Source:Line\n    80.00%%  user_kernels.c:3\n    20.00%%  user_kernels.c:2\n' ;;
      *) printf '# Overhead  Symbol\n    88.00%%  [.] scale\n    12.00%%  [.] main\n' ;;
    esac ;;
esac
exit 0
"""


@pytest.mark.cc
@pytest.mark.valgrind
def test_cachegrind_fallback_runs_for_real(capsys, tmp_path):
    code = main(["profile", SPEC, "--kernel", "scale", "--cachegrind", "--json", "--store", str(tmp_path / "s.sqlite")])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["schema"] == "rooflab.profile/1" and doc["method"] == "cachegrind"
    c = doc["counters"]
    # n = 64 floats: x is read and y written, 256 bytes each, in references of at most 64 bytes
    assert c["instructions"] > 8 and c["data_reads"] >= 4 and c["data_writes"] >= 4
    assert any("LL cache" in d for d in doc["cachegrind"]["simulated"])
    assert any("simulated by cachegrind" in o["text"] for o in doc["observations"])
    assert doc["size"] == {"n": 64}


@pytest.mark.cc
def test_perf_path_with_recorded_counters(capsys, tmp_path, monkeypatch):
    perf = tmp_path / "bin" / "perf"
    perf.parent.mkdir()
    perf.write_text(FAKE_PERF.replace("@RECORDING@", str(DATA / "perf_stat_hw.csv")))
    perf.chmod(perf.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{perf.parent}{os.pathsep}{os.environ['PATH']}")
    code = main(["profile", SPEC, "--kernel", "scale", "--json", "--store", str(tmp_path / "s.sqlite")])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["method"] == "perf" and doc["perf"]["hardware"] is True
    assert doc["derived"]["ipc"] == pytest.approx(2.0, rel=1e-3)
    assert doc["derived"]["cache_miss_rate"] == pytest.approx(0.25)
    assert doc["hotspots"][0] == {"percent": 88.0, "symbol": "scale"}
    assert doc["hot_lines"][0] == {"percent": 80.0, "symbol": "user_kernels.c:3"}
    assert any(o["text"].startswith("IPC 2.00") for o in doc["observations"])


def test_profile_needs_one_kernel(capsys, tmp_path):
    code = main(["profile", SPEC, "--store", str(tmp_path / "s.sqlite")])
    assert code == 2 and "choose one with --kernel" in capsys.readouterr().err
    code = main(["profile", SPEC, "--kernel", "scale", "--size", "n", "--store", str(tmp_path / "s.sqlite")])
    assert code == 2 and "NAME=NUMBER" in capsys.readouterr().err


@pytest.mark.cc
@pytest.mark.valgrind
def test_profile_lab_kernels_show_the_loop_order_in_the_misses(capsys):
    docs = {}
    for name in ("loop_ikj", "loop_kji"):
        code = main(["profile", f"lab:{name}", "--cachegrind", "--size", "n=128", "--calls", "1", "--json",
                     "--no-store"])
        assert code == 0
        docs[name] = json.loads(capsys.readouterr().out)
    # simulated counts, not timings: the column-walking order misses L1 far more often
    assert docs["loop_kji"]["counters"]["d1_misses"] > 4 * docs["loop_ikj"]["counters"]["d1_misses"]
    code = main(["profile", "lab:nope", "--no-store"])
    assert code == 2 and "the lab kernels are" in capsys.readouterr().err


CSR_SRC = """
void spmv(long n, const long *ptr, const int *col, const double *val, const double *x, double *y)
{
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long j = ptr[i]; j < ptr[i + 1]; j++)
            s += val[j] * x[col[j]];
        y[i] = s;
    }
}
"""

CSR_SPEC = """
source = "csr.c"
function = "spmv"
flops = "2*n*k"
bytes = "n*k*12 + 16*n"
sizes = {n = [3000], k = [5]}
[args]
n = "n"
ptr = {shape = ["n + 1"], dtype = "int64", fill = "np.arange(n + 1) * k"}
col = {shape = ["n * k"], dtype = "int32", fill = "rng.integers(0, n, n * k)"}
val = {shape = ["n * k"]}
x = {shape = ["n"]}
y = {shape = ["n"], output = true}
[check]
y = "np.add.reduceat(val * x[col], ptr[:-1])"
tolerance = 1e-9
"""


@pytest.mark.cc
@pytest.mark.valgrind
def test_index_arrays_filled_by_expression_are_what_the_kernel_is_timed_and_profiled_on(capsys, tmp_path):
    (tmp_path / "csr.c").write_text(CSR_SRC)
    (tmp_path / "csr.toml").write_text(CSR_SPEC)
    store = str(tmp_path / "s.sqlite")
    fake_measure(store)  # a stored roofline: bench places the kernel without measuring one
    code = main(["bench", str(tmp_path / "csr.toml"), "--quick", "--json", "--store", store])
    doc = json.loads(capsys.readouterr().out)
    (row,) = doc["kernels"][0]["sizes"]
    # the check passed: the row pointers and columns were those the expressions give (random ones in [0, 100)
    # would run past the arrays, which the guards report)
    assert code == 0 and row.get("error") is None and row["time_s"] > 0, row
    assert row["rel_error"] <= 1e-9
    # the profiling driver reads the same contents: per call, two row pointers per row and a value, a column and
    # an element of x per nonzero (51,000 loads; row pointers made up in [0, 100) would run rows of any length)
    code = main(["profile", str(tmp_path / "csr.toml"), "--cachegrind", "--json", "--store", store])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["method"] == "cachegrind", doc
    assert 3000 * (5 * 3 + 1) <= doc["counters"]["data_reads"] <= 3000 * (5 * 3 + 2) + 100
    assert doc["counters"]["data_writes"] <= 3000 + 100

"""One kernel never changes what the next one measures: each hostile kernel of isolation/hostile.c runs, then a correct
kernel whose result depends on the state the hostile one changed (subnormal products: flush-to-zero or another
rounding mode makes them wrong), in the same bench run and so the same worker. The correct kernel must come out
correct every time, and the hostile one must carry a note saying what was put back (or an error, for a fork)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from test_probes import ROOFLAB

pytestmark = pytest.mark.cc

HERE = Path(__file__).resolve().parent / "isolation"

HOSTILE = {  # function -> what its note (or error) must say
    "round_up": r"floating-point environment \(rounding mode\)",
    "flush_to_zero": r"floating-point environment \(.*flush-to-zero on",
    "fast_math_zero": r"library changes the floating-point environment when loaded \(flush-to-zero on",
    "leaves_alarm": r"ITIMER_REAL \(alarm\)",
    "takes_sigusr1": r"the SIGUSR1 handler",
    "few_files": r"RLIMIT_NOFILE",
    "stray_thread": r"left 1 thread\(s\) running",
    "forks": r"called fork\(\) 1 time",
    "moves": r"working directory.*|umask|environment",
    "closes_stdout": r"file descriptor 1",
    "lowers_priority": r"scheduling priority to nice",
    "keeps_memory": r"kept \d+ MiB of memory in use",
}
if os.path.exists(f"/proc/{os.getpid()}/wchan"):  # where the OS says what a sleeping thread waits on
    HOSTILE["sleeper_thread"] = r"left 1 thread\(s\) asleep on a timer"
if len(os.sched_getaffinity(0)) > 1:  # on one CPU, pinning to CPU 0 changes nothing
    HOSTILE["pins_itself"] = r"pinned the worker to CPUs \[0\]"
if __import__("locale").setlocale(__import__("locale").LC_ALL) != "C":  # the worker starts in this same locale
    HOSTILE["switches_locale"] = r"changed the C locale to C"
OTHERS = ["chatty"]  # no state to put back: checked on their own below

SENSITIVE = """
[[kernel]]
name = "after {h}"
function = "sensitive"
flops = "2*n"
bytes = "16*n"
[kernel.args]
n = "n"
x = {{shape = ["n"], dtype = "float64"}}
y = {{shape = ["n"], dtype = "float64", output = true}}
[kernel.check]
y = "x * 1e-300 * 1e-10"
tolerance = 1e-15
"""

HOSTILE_SPEC = """
[[kernel]]
name = "{h}"
function = "{f}"
flops = "n"
bytes = "8*n"
{flags}
[kernel.args]
n = "n"
y = {{shape = ["n"], dtype = "float64", output = true}}
"""


def spec_text() -> str:
    head = 'source = "hostile.c"\nsizes = {n = [4096]}\nmin_sample = 0.001\nsamples = 3\ntimeout = 60\n'
    parts = [head]
    for h in HOSTILE:
        # fast_math_zero is a plain zeroing kernel built with -ffast-math, as explain's experiment builds one: gcc
        # links crtfastmath.o into it, which sets flush-to-zero when the library is loaded
        parts.append(HOSTILE_SPEC.format(h=h, f=h, flags='flags = ["-ffast-math"]' if h == "fast_math_zero" else ""))
        parts.append(SENSITIVE.format(h=h))
    for h in OTHERS:
        parts.append(HOSTILE_SPEC.format(h=h, f=h, flags=""))
        parts.append(SENSITIVE.format(h=h))
    return "".join(parts)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    wd = tmp_path_factory.mktemp("isolation")
    src = (HERE / "hostile.c").read_text()
    src += "\nvoid fast_math_zero(long n, double *y) {\n    for (long i = 0; i < n; i++) y[i] = 0.0;\n}\n"
    (wd / "hostile.c").write_text(src)
    (wd / "spec.toml").write_text(spec_text())
    from conftest import fake_measure

    fake_measure(wd / "s.sqlite")  # the roofline bench places kernels on: made up, so that none is measured here
    r = subprocess.run([ROOFLAB, "bench", "spec.toml", "--quick", "--json", "--store", "s.sqlite"], cwd=wd,
                       capture_output=True, text=True, timeout=900)
    return r, wd


def _row(doc: dict, name: str) -> dict:
    (k,) = [k for k in doc["kernels"] if k["name"] == name]
    (row,) = k["sizes"]
    return row


def test_no_traceback_and_the_run_finishes(run):
    r, _ = run
    assert "Traceback" not in r.stdout + r.stderr, r.stderr[-3000:]
    assert r.returncode in (0, 1), r.stderr[-3000:]
    doc = json.loads(r.stdout)
    assert len(doc["kernels"]) == 2 * (len(HOSTILE) + len(OTHERS))


@pytest.mark.parametrize("hostile", list(HOSTILE) + OTHERS)
def test_a_correct_kernel_after_a_hostile_one_is_correct(run, hostile):
    r, _ = run
    doc = json.loads(r.stdout)
    row = _row(doc, f"after {hostile}")
    assert not row.get("error"), (hostile, row.get("error"))
    assert row["rel_error"] is not None and row["rel_error"] <= 1e-15, (hostile, row["rel_error"])
    assert row.get("time_s", 0) > 0
    assert not (row.get("output") or {}).get("isolation"), row["output"]  # nothing of its own to put back


@pytest.mark.parametrize("hostile", list(HOSTILE))
def test_the_hostile_kernel_is_told_what_was_put_back(run, hostile):
    r, _ = run
    doc = json.loads(r.stdout)
    row = _row(doc, hostile)
    said = " ".join((row.get("output") or {}).get("isolation", [])) + " " + str(row.get("error") or "")
    assert re.search(HOSTILE[hostile], said), (hostile, said)
    if hostile == "forks":  # the program timed is not the one written: no times
        assert row.get("error_kind") == "error" and "time_s" not in row


def test_a_kernel_printing_megabytes_is_measured_and_its_output_kept_short(run):
    r, _ = run
    row = _row(json.loads(r.stdout), "chatty")
    out = row["output"]
    assert not row.get("error") and row.get("time_s", 0) > 0
    assert out["stdout_bytes"] >= 8192 * 1023 and out.get("truncated")  # counted, not kept
    assert 0 < len(out["stdout"]) <= 8000 and set(out["stdout"]) <= {"z", "\n"}


def test_the_report_shows_the_notes(run):
    r, wd = run
    shown = subprocess.run([ROOFLAB, "show", "latest", "--store", "s.sqlite"], cwd=wd, capture_output=True,
                           text=True, timeout=900)  # the report of the same run
    assert "Traceback" not in shown.stdout + shown.stderr
    assert "rooflab put it back" in shown.stdout and "called fork()" in shown.stdout, shown.stdout[-3000:]
    assert re.search(r"chatty n=4096 printed [\d.]+ MiB on stdout; the last lines:", shown.stdout)


def test_nothing_the_hostile_kernels_started_outlives_the_run(run):
    _, wd = run
    # no worker of the run is left: the forked copy ended at once, the one with the stray thread was replaced and
    # the last one closed with the run
    left = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                cmd = open(f"/proc/{d}/cmdline", "rb").read()
                cwd = os.readlink(f"/proc/{d}/cwd")
            except OSError:
                continue
            if b"rooflab.timing.worker" in cmd and cwd == str(wd):
                left.append(int(d))
    assert not left


@pytest.mark.mpi
def test_under_mpi_every_rank_starts_each_kernel_clean(tmp_path):
    from conftest import fake_measure

    db = tmp_path / "s.sqlite"
    fake_measure(db)  # bench --mpi places its kernels on a stored roofline
    src = (HERE / "hostile.c").read_text()
    (tmp_path / "hostile.c").write_text(src)
    head = 'source = "hostile.c"\nsizes = {n = [4096]}\nmin_sample = 0.001\nsamples = 3\ntimeout = 60\n'
    pairs = ["flush_to_zero", "leaves_alarm", "few_files", "round_up"]
    (tmp_path / "spec.toml").write_text(head + "".join(HOSTILE_SPEC.format(h=h, f=h, flags="") + SENSITIVE.format(h=h)
                                                       for h in pairs))
    cmd = ["mpirun", "-n", "2", "--oversubscribe", *(["--allow-run-as-root"] if os.geteuid() == 0 else []),
           ROOFLAB, "bench", "spec.toml", "--mpi", "--quick", "--json", "--store", str(db)]
    r = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert "Traceback" not in r.stdout + r.stderr and r.returncode == 0, r.stderr[-3000:]
    doc = json.loads(r.stdout)
    per = doc["mpi"]["per_rank"]
    assert len(per) == 2
    for rank in per:
        kernels = {k["name"]: k for k in rank["result"]["kernels"]}
        for h in pairs:
            (row,) = kernels[f"after {h}"]["sizes"]
            assert not row.get("error") and row["rel_error"] <= 1e-15, (rank["rank"], h, row)
            assert not (row.get("output") or {}).get("isolation"), (rank["rank"], h, row["output"])
            (hrow,) = kernels[h]["sizes"]
            assert re.search(HOSTILE[h], " ".join((hrow.get("output") or {}).get("isolation", []))), (h, hrow)


def test_explain_measures_a_correct_kernel_correctly_after_hostile_ones(tmp_path):
    """explain runs each kernel, then its experiments (rebuilds such as -ffast-math, timed against the original in
    the same worker): after kernels that set flush-to-zero or the rounding mode, the correct kernel's own measurement
    is still correct and carries nothing of theirs."""
    from conftest import fake_measure

    (tmp_path / "hostile.c").write_text((HERE / "hostile.c").read_text())
    head = 'source = "hostile.c"\nsizes = {n = [4096]}\nmin_sample = 0.001\nsamples = 3\ntimeout = 60\n'
    pairs = ["flush_to_zero", "round_up"]
    (tmp_path / "spec.toml").write_text(head + "".join(HOSTILE_SPEC.format(h=h, f=h, flags="") + SENSITIVE.format(h=h)
                                                       for h in pairs))
    fake_measure(tmp_path / "s.sqlite")
    r = subprocess.run([ROOFLAB, "explain", "spec.toml", "--quick", "--json", "--store", "s.sqlite"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=900)
    assert "Traceback" not in r.stdout + r.stderr and r.returncode == 0, r.stderr[-3000:]
    kernels = {k["name"]: k for k in json.loads(r.stdout)["kernels"]}
    for h in pairs:
        (row,) = kernels[f"after {h}"]["sizes"]
        assert not row.get("error") and row["rel_error"] <= 1e-15, (h, row)
        assert not (row.get("output") or {}).get("isolation"), (h, row["output"])
        (hrow,) = kernels[h]["sizes"]
        assert re.search(HOSTILE[h], " ".join((hrow.get("output") or {}).get("isolation", []))), (h, hrow)

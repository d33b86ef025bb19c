"""Bad conditions around a run rather than in its input: signals, a parent killed outright, a store that stops
taking writes mid-run, a work tree whose git configuration runs programs, a module that would shadow the standard
library, limits set by a cgroup. Each is a real process here, as a user would meet it."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import time

import pytest

from test_probes import GOOD, HERE, ROOFLAB, kernel

pytestmark = pytest.mark.cc


def _children(pid: int) -> list[int]:
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(d))
            except (OSError, ValueError, IndexError):
                pass
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_sigterm_is_an_interruption_like_ctrl_c(tmp_path):
    store = tmp_path / "s.sqlite"
    p = subprocess.Popen([ROOFLAB, "measure", "--quick", "--store", str(store)], cwd=tmp_path,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(4)
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=60)
    assert "Traceback" not in out + err, err
    assert p.returncode == 143 and "stopped by SIGTERM" in err, (p.returncode, err)
    from rooflab.results.store import Store

    with Store(store) as st:
        (run,) = st.runs()
    assert run["status"] == "interrupted" and run["records"] >= 1  # what finished is kept


def test_a_hung_kernel_dies_with_a_rooflab_killed_outright(tmp_path):
    (tmp_path / "kernels.c").write_text((HERE / "kernels.c").read_text())
    (tmp_path / "spec.toml").write_text(kernel("hangs", 'n = "n"\nx = {shape = ["n"], dtype = "float32"}\n'
                                                        'y = {shape = ["n"], dtype = "float32"}', sizes="{n = [64]}")
                                        .replace("timeout = 20", "timeout = 600"))
    p = subprocess.Popen([ROOFLAB, "bench", "spec.toml", "--quick", "--no-store"], cwd=tmp_path,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not workers:  # until the worker is running the kernel
        time.sleep(0.5)
        workers = [c for c in _children(p.pid) if "rooflab" in open(f"/proc/{c}/cmdline").read()]
    assert workers, "the worker never started"
    time.sleep(1.5)
    p.kill()  # SIGKILL: no handler runs in rooflab
    p.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.2)
    assert not any(_alive(w) for w in workers), "the hung kernel outlived rooflab"


def test_a_store_that_stops_taking_writes_mid_run_loses_nothing(tmp_path):
    """The store file may not grow past its size at the start (RLIMIT_FSIZE, as a full disk): the run goes on, is
    saved whole to a file, and `rooflab show` reads that file."""
    from conftest import fake_measure

    store = tmp_path / "s.sqlite"
    fake_measure(store)
    (tmp_path / "kernels.c").write_text((HERE / "kernels.c").read_text())
    (tmp_path / "spec.toml").write_text(GOOD)
    size = store.stat().st_size + (store.with_name("s.sqlite-wal").stat().st_size
                                   if store.with_name("s.sqlite-wal").exists() else 0)
    limit = max(size, 1) + 8192

    def cap():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    # build the kernel first, so that the cap meets the store and not the compiler
    subprocess.run([ROOFLAB, "bench", "spec.toml", "--quick", "--no-store"], cwd=tmp_path, capture_output=True)
    r = subprocess.run([ROOFLAB, "bench", "spec.toml", "--quick", "--store", str(store)], cwd=tmp_path,
                       capture_output=True, text=True, preexec_fn=cap, timeout=300)
    out = r.stdout + r.stderr
    assert "Traceback" not in out, out
    saved = list(tmp_path.glob("rooflab-unsaved-bench-*.json"))
    assert r.returncode == 0 and saved, out[-2000:]
    show = subprocess.run([ROOFLAB, "show", str(saved[0])], cwd=tmp_path, capture_output=True, text=True)
    assert show.returncode == 0 and "scale" in show.stdout and "Traceback" not in show.stderr, show.stderr


def test_git_state_runs_nothing_the_work_tree_configures(tmp_path):
    from rooflab.machine.env import git_state

    repo = tmp_path / "repo"
    repo.mkdir()
    run = lambda *a: subprocess.run(["git", *a], cwd=repo, capture_output=True, check=True)  # noqa: E731
    run("init", "-q")
    run("config", "user.email", "a@b.c")
    run("config", "user.name", "a")
    (repo / "f.txt").write_text("x\n")
    run("add", "f.txt")
    run("commit", "-qm", "first")
    hook = repo / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {tmp_path / 'RAN-FSMONITOR'}\n")
    hook.chmod(0o755)
    run("config", "core.fsmonitor", str(hook))
    (repo / ".gitattributes").write_text("*.txt filter=evil\n")
    run("config", "filter.evil.clean", f"sh -c 'touch {tmp_path / 'RAN-FILTER'}; cat'")
    (repo / "f.txt").write_text("x\ny\n")
    st = git_state(repo)
    assert st["dirty"] is True and len(st["revision"]) == 40
    assert not (tmp_path / "RAN-FSMONITOR").exists() and not (tmp_path / "RAN-FILTER").exists()


def test_a_module_in_the_current_folder_cannot_shadow_the_standard_library_in_the_worker(tmp_path):
    (tmp_path / "kernels.c").write_text((HERE / "kernels.c").read_text())
    (tmp_path / "spec.toml").write_text(GOOD)
    # a file named like a module of the standard library, as a user's script folder may hold
    (tmp_path / "pickle.py").write_text("raise SystemExit('the wrong pickle was imported')\n")
    from conftest import fake_measure

    fake_measure(tmp_path / "s.sqlite")
    r = subprocess.run([ROOFLAB, "bench", "spec.toml", "--quick", "--store", "s.sqlite"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "wrong pickle" not in r.stdout + r.stderr, r.stdout + r.stderr


def test_history_by_machine_matches_the_machine_not_any_text(tmp_path):
    from rooflab.results.store import Store

    with Store(tmp_path / "s.sqlite") as st:
        st.begin("bench", {"machine": {"key": "alpha-1234"}, "environment": {"hostname": "alpha"},
                           "note": "mentions beta somewhere"})
        st.begin("bench", {"machine": {"key": "beta-5678"}, "environment": {"hostname": "beta"}})
        assert [r["machine"] for r in st.runs(machine="beta")] == ["beta-5678"]
        assert [r["machine"] for r in st.runs(machine="alpha")] == ["alpha-1234"]


def test_limits_of_a_cgroup_are_read(tmp_path):
    from rooflab.machine.env import cgroup_cpu_limit, cgroup_memory_left

    root = tmp_path / "cg"
    (root / "job").mkdir(parents=True)
    (root / "job" / "memory.max").write_text("1073741824\n")
    (root / "job" / "memory.current").write_text("268435456\n")
    (root / "job" / "cpu.max").write_text("150000 100000\n")
    proc = tmp_path / "cgroup"
    proc.write_text("0::/job\n")
    assert cgroup_memory_left(str(root), str(proc)) == 768 << 20
    assert cgroup_cpu_limit(str(root), str(proc)) == pytest.approx(1.5)
    (root / "job" / "memory.max").write_text("max\n")
    (root / "job" / "cpu.max").write_text("max 100000\n")
    assert cgroup_memory_left(str(root), str(proc)) is None and cgroup_cpu_limit(str(root), str(proc)) is None
    # cgroup v1
    v1 = tmp_path / "v1"
    (v1 / "memory" / "b").mkdir(parents=True)
    (v1 / "memory" / "b" / "memory.limit_in_bytes").write_text(str(2 << 30))
    (v1 / "memory" / "b" / "memory.usage_in_bytes").write_text(str(1 << 30))
    proc.write_text("5:memory:/b\n")
    assert cgroup_memory_left(str(v1), str(proc)) == 1 << 30


def test_a_closed_standard_output_is_refused_before_anything_runs(tmp_path):
    r = subprocess.run(f"{ROOFLAB} info >&-", shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "standard output is closed" in r.stderr and "Traceback" not in r.stderr


def test_a_spec_in_a_folder_whose_name_is_not_utf8_gives_valid_json(tmp_path):
    """File names are bytes: one that is not UTF-8 is written as \\xNN in the JSON and the report, and the JSON is
    still JSON (before: UnicodeEncodeError, and a traceback on stdout)."""
    import json

    d = os.fsencode(tmp_path) + b"/caf\xe9"
    os.mkdir(d)
    with open(d + b"/kernels.c", "w") as f:
        f.write((HERE / "kernels.c").read_text())
    with open(d + b"/spec.toml", "w") as f:
        f.write(GOOD)
    from conftest import fake_measure

    fake_measure(os.fsdecode(d + b"/s.sqlite"))  # a made-up roofline: none is measured here
    r = subprocess.run([ROOFLAB, "bench", "spec.toml", "--quick", "--json", "--store", "s.sqlite"], cwd=d,
                       capture_output=True, timeout=300)
    assert b"Traceback" not in r.stdout + r.stderr, r.stderr[-2000:]
    assert r.returncode == 0, r.stderr[-2000:]
    doc = json.loads(r.stdout)
    (k,) = doc["kernels"]
    assert any("caf\\xe9" in s for s in k["library"]["sources"]), k["library"]["sources"]
    shown = subprocess.run([ROOFLAB, "show", "latest", "--store", "s.sqlite"], cwd=d, capture_output=True, timeout=300)
    assert shown.returncode == 0 and b"Traceback" not in shown.stdout + shown.stderr


@pytest.mark.parametrize("n, code, says", [
    (1_000_000_000, 2, r"GiB of arrays, more than the [\d.]+ GiB of address space .*RLIMIT_AS"),  # refused at once
    (100_000_000, 3, r"ran out of memory|this process may still map"),  # fits the estimate, not the process
])
def test_sizes_beyond_an_address_space_limit_are_refused_or_reported(tmp_path, n, code, says):
    import re

    (tmp_path / "kernels.c").write_text((HERE / "kernels.c").read_text())
    (tmp_path / "spec.toml").write_text(GOOD.replace("sizes = {n = [64, 1000]}", f"sizes = {{n = [{n}]}}"))

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    r = subprocess.run([ROOFLAB, "bench", "spec.toml", "--quick", "--no-store"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300, preexec_fn=limit)
    out = r.stdout + r.stderr
    assert "Traceback" not in out and r.returncode == code, (r.returncode, out[-2000:])
    assert re.search(says, out, re.S), out[-2000:]

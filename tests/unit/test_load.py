"""Per-CPU accounting of other processes' CPU use, from recorded /proc texts (no real load, no clock)."""

import os

import pytest

from rooflab.timing import load
from rooflab.timing.checks import check_competing_load
from rooflab.timing.load import CpuSampler, parse_proc_stat, parse_task_stat

TICK = load._TICK

STAT = """cpu  1000 0 500 8000 100 0 0 20 0 0
cpu0 600 0 300 4000 50 0 0 10 0 0
cpu1 400 0 200 4000 50 0 0 10 0 0
intr 12345
"""


def test_proc_stat_is_read_per_cpu_busy_and_steal():
    got = parse_proc_stat(STAT)
    assert got["all"] == (pytest.approx(1500 / TICK), pytest.approx(20 / TICK))
    assert got[0] == (pytest.approx(900 / TICK), pytest.approx(10 / TICK)) and set(got) == {"all", 0, 1}
    assert parse_proc_stat("garbage\ncpu0 x y z\n") == {}


def test_a_thread_stat_gives_its_cpu_seconds_and_last_cpu():
    # the name may hold spaces and parentheses; fields are counted from the last ')'
    rest = " ".join(["S"] + ["0"] * 10 + ["250", "50"] + ["0"] * 23 + ["1"] + ["0"] * 10)
    assert parse_task_stat(f"123 (python (w) x) {rest}") == (pytest.approx(300 / TICK), 1)
    assert parse_task_stat("123 (short) S 1 2") is None


class FakeProc:
    """/proc of a 2-CPU machine: one thread of ours and a stream of per-CPU busy ticks."""

    def __init__(self):
        self.busy = [0, 0]  # ticks per CPU
        self.ours = 0  # our thread's ticks
        self.our_cpu = 0
        self.t = 0.0

    def stat(self) -> str:
        lines = [f"cpu {sum(self.busy)} 0 0 1000 0 0 0 0 0 0"]
        lines += [f"cpu{i} {b} 0 0 1000 0 0 0 0 0 0" for i, b in enumerate(self.busy)]
        return "\n".join(lines) + "\n"

    def read(self, path: str):
        if path == "/proc/stat":
            return self.stat()
        if path.endswith("/stat"):
            fields = ["S"] + ["0"] * 10 + [str(self.ours), "0"] + ["0"] * 23 + [str(self.our_cpu)] + ["0"] * 10
            return "1 (rooflab) " + " ".join(fields)
        return None

    def run(self, seconds: float, ours_on: int | None, others: dict[int, float]):
        """Advance time: our thread busy on one CPU (or idle), other processes busy on CPUs (fraction of a core)."""
        ticks = int(round(seconds * TICK))
        if ours_on is not None:
            self.ours += ticks
            self.busy[ours_on] += ticks
            self.our_cpu = ours_on
        for cpu, frac in others.items():
            self.busy[cpu] += int(round(frac * ticks))
        self.t += seconds


def sampler(proc: FakeProc) -> CpuSampler:
    return CpuSampler(read=proc.read, clock=lambda: proc.t, list_tasks=lambda pid: ["1"] if pid == os.getpid() else [])


def test_others_are_what_each_cpu_was_busy_beyond_our_threads():
    p = FakeProc()
    s = sampler(p)
    assert s.available
    a = s.mark()
    p.run(2.0, ours_on=0, others={1: 1.0})  # we ran on CPU 0, a hog on CPU 1
    w = s.between(a, s.mark())
    assert w.others == {0: pytest.approx(0.0), 1: pytest.approx(1.0)}
    assert w.own == {0: pytest.approx(1.0), 1: pytest.approx(0.0)}
    assert w.others_cores() == pytest.approx(1.0) and w.others_cores([0]) == pytest.approx(0.0)
    # the next window starts where this one ended: a quiet second shows nothing
    b = s.mark()
    p.run(1.0, ours_on=0, others={})
    assert s.between(b, s.mark()).others_cores() == pytest.approx(0.0)


class FakeProcEnded(FakeProc):
    """The same, with threads of ours that start and end between samples (a pthreads kernel joins its threads on
    every call): their ticks are in the process's total only, never in a thread's own stat."""

    def __init__(self):
        super().__init__()
        self.ended = 0

    def read(self, path: str):
        if path == f"/proc/{os.getpid()}/stat":
            fields = ["S"] + ["0"] * 10 + [str(self.ours + self.ended), "0"] + ["0"] * 23 + ["0"] + ["0"] * 10
            return "1 (rooflab) " + " ".join(fields)
        return super().read(path)

    def run_ended(self, seconds: float, cpu: int):
        ticks = int(round(seconds * TICK))
        self.ended += ticks
        self.busy[cpu] += ticks
        self.t += seconds


def test_threads_that_ended_between_samples_are_ours_not_others():
    p = FakeProcEnded()
    s = sampler(p)
    a = s.mark()
    p.run(1.0, ours_on=0, others={})
    p.run_ended(1.0, cpu=1)  # a thread of ours on CPU 1, started and joined within the window
    w = s.between(a, s.mark())
    assert w.others_cores() == pytest.approx(0.0, abs=1e-9)
    assert sum(w.own.values()) == pytest.approx(1.0)  # 2 s of ours over the 2 s window
    # with a real hog beside them, the hog is still seen whole
    b = s.mark()
    p.run_ended(1.0, cpu=1)
    p.run(1.0, ours_on=0, others={1: 0.5})
    assert s.between(b, s.mark()).others_cores() == pytest.approx(0.25)  # 0.5 core for 1 s of the 2 s


def test_a_window_without_proc_is_unknown_not_quiet():
    s = CpuSampler(read=lambda path: None)
    assert not s.available and s.mark() is None and CpuSampler.between(None, None) is None


def test_the_warning_names_the_busy_cpus():
    w = check_competing_load(0.98, 2, per_cpu={0: 0.01, 1: 0.97})
    assert w is not None and "CPU 1 97% busy" in w.message and "CPU 0" not in w.message
    assert check_competing_load(0.1, 2, per_cpu={1: 0.1}) is None


def test_recent_covers_about_the_last_second_of_samples():
    p = FakeProc()
    s = sampler(p)
    p.run(3.0, ours_on=0, others={1: 1.0})  # a hog on CPU 1, long ago
    s.sample()
    for _ in range(4):  # then four quarter-second samples: the hog moved to CPU 0
        p.run(0.25, ours_on=None, others={0: 1.0})
        s.sample()
    w = s.recent(1.0)
    assert w.wall_s == pytest.approx(1.0)
    assert w.others[0] == pytest.approx(1.0) and w.others[1] == pytest.approx(0.0)
    assert CpuSampler(read=lambda path: None).recent() is None


def _session_on(proc: FakeProc, **machine):
    from rooflab.session import Session

    s = Session("measure", machine={"key": "t", **machine}, environment={"hostname": "h"})
    s._sampler = sampler(proc)
    return s


def test_a_one_thread_measurement_goes_to_the_cpu_others_left_alone(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    p = FakeProc()
    s = _session_on(p)
    s._sampler.sample()
    p.run(1.0, ours_on=None, others={0: 0.9, 1: 0.05})
    assert s.quiet_cpus(1) == [1]
    p.run(1.5, ours_on=None, others={0: 0.0, 1: 1.0})
    assert s.quiet_cpus(1) == [0]
    assert s.quiet_cpus(2) is None  # every CPU: nothing to choose


def test_on_a_vm_a_private_resource_is_judged_by_its_own_cpus_a_shared_one_by_all():
    p = FakeProc()
    s = _session_on(p, virtualized=True)
    a = s.mark()
    p.run(2.0, ours_on=0, others={1: 1.0})  # we ran on CPU 0, a hog on CPU 1
    b = s.mark()
    assert s.others_for(a, b, shared=False) == pytest.approx(1.0)  # free to run anywhere: it met the hog
    s.last_cpus = [0]  # confined to CPU 0 (quiet_cpus)
    assert s.others_for(a, b, shared=False) == pytest.approx(0.0)
    assert s.others_for(a, b, shared=True) == pytest.approx(1.0)
    c = s.mark()
    p.run(2.0, ours_on=0, others={0: 0.5})  # the other process shared our CPU
    assert s.others_for(c, s.mark(), shared=False) == pytest.approx(0.5)


def test_waiting_for_quiet_is_bounded_and_ends_when_the_load_does(monkeypatch):
    """A session waits while another process keeps a CPU busy, gives up when its budget is spent, and stops waiting
    as soon as the other process ends (the clock and /proc are fakes: the steps are exact)."""
    import rooflab.session as session_mod

    p = FakeProc()
    s = _session_on(p, virtualized=True)
    said = []
    s.progress = said.append
    hog_steps = [10 ** 6]  # how many more sleeps the hog on CPU 1 lasts

    def sleep(seconds):
        p.run(seconds, ours_on=None, others={1: 1.0} if hog_steps[0] > 0 else {})
        hog_steps[0] -= 1

    monkeypatch.setattr(session_mod.time, "sleep", sleep)
    s.wait_quiet_left = 1.0
    assert s.wait_for_quiet(step_s=0.5) is False
    assert s.wait_quiet_left <= 0 and s.waited_s == pytest.approx(1.0)
    assert any("waiting for the machine to be quiet" in m and "CPU 1" in m and "CPU 0" not in m for m in said), said
    s.wait_quiet_left, s.waited_s, hog_steps[0] = 20.0, 0.0, 3
    assert s.wait_for_quiet(step_s=0.5) is True
    assert s.waited_s == pytest.approx(1.5) and s.wait_quiet_left == pytest.approx(18.5)

"""The measurement policy every command measures through (rooflab.timing.policy): judged attempts, measured again
while the CPUs were not ours, the least disturbed kept, and a figure marked disturbed with its reasons."""

from rooflab.i18n import text
from rooflab.session import Outcome
from rooflab.timing import policy


class FakeSession:
    """agree() as a plain session (its own decision) or as a job where another rank wants more; a waiting budget."""

    def __init__(self, job_wants_more: bool = False, wait_s: float = 0.0):
        self.job_wants_more, self.wait_quiet_left, self.waited = job_wants_more, wait_s, 0

    def agree(self, flag: bool) -> bool:
        return flag or self.job_wants_more

    def wait_for_quiet(self, threshold: float) -> bool:
        self.waited += 1
        self.wait_quiet_left = 0.0
        return True


def attempts_of(scores_reasons):
    it = iter(scores_reasons)
    return lambda: dict(zip(("disturbance", "reasons"), next(it)))


def test_a_quiet_attempt_is_measured_once():
    made = policy.until_quiet(FakeSession(), attempts_of([(0.4, [])]), 3)
    assert len(made) == 1


def test_a_disturbed_attempt_is_measured_again_and_the_least_disturbed_kept():
    busy = policy.assess(0.0, others=1.0)
    assert busy[0] > 1 and "1.00 core(s)" in text(busy[1][0])
    s = FakeSession(wait_s=5.0)
    made = policy.until_quiet(s, attempts_of([busy, (0.6, []), (0.1, [])]), 3)
    assert len(made) == 2 and policy.kept(made)["disturbance"] == 0.6  # stopped once quiet
    assert s.waited == 1  # the CPUs were not ours: it waited for quiet first, while the budget lasted
    # never more than asked; the least disturbed, not the last, is kept
    made = policy.until_quiet(FakeSession(), attempts_of([(3.0, ["x"]), (2.0, ["y"]), (2.5, ["z"])]), 3)
    assert len(made) == 3 and policy.kept(made)["reasons"] == ["y"]


def test_spread_alone_is_measured_again_but_is_no_reason():
    score, reasons = policy.assess(0.09)  # 9% spread against a 3% limit
    assert score == 3.0 and reasons == []
    assert policy.assess(0.09, cv_limit=float("inf"))[0] == 0.0


def test_under_mpi_every_rank_measures_again_when_one_must():
    made = policy.until_quiet(FakeSession(job_wants_more=True), attempts_of([(0.2, []), (0.3, [])]), 2)
    assert len(made) == 2


def test_a_kept_attempt_that_was_not_quiet_marks_the_figure_disturbed():
    row = {"label": "k n=1", "status": "ok"}
    policy.mark_disturbed(row, {"reasons": [policy.assess(0.0, running=0.5)[1][0]]})
    assert row["status"] == "disturbed" and "waited for a CPU 50% of the time" in text(row["reason"])
    failed = {"status": "failed"}
    policy.mark_disturbed(failed, {"reasons": ["x"]})
    assert failed["status"] == "failed"  # a failure stays a failure


def test_a_bench_row_says_what_the_policy_made_of_it():
    out = Outcome("k n=1")
    out.attempts, out.others_cores = 2, 0.9
    out.disturbed = policy.assess(0.0, others=0.9)[1]
    row = {"label": "k n=1"}
    out.judge(row)
    assert row["attempts"] == 2 and row["others_cores"] == 0.9 and row["status"] == "disturbed"
    quiet = Outcome("k n=2")
    row = {"label": "k n=2"}
    quiet.judge(row)
    assert row["status"] == "ok" and row["attempts"] == 1


def test_a_kernel_measured_again_keeps_what_it_printed_in_any_attempt():
    from rooflab.session import Session
    from rooflab.timing.harness import Timing

    def outcome(running: float, output: dict) -> Outcome:
        t = Timing(reps=1, samples=[1e-3] * 5, raw=[1e-3] * 5, running=[running] * 5)
        return Outcome("k n=1", timing=t, rel_error=0.0, output=output)

    printed = {"stdout": "hello", "notes": ["the kernel changed the rounding mode: rooflab put it back"]}
    outs = iter([outcome(0.5, printed), outcome(0.99, {})])  # waited for a CPU, then quiet; printed only the first time
    s = Session.__new__(Session)  # the policy's view of a session, without a worker
    s.run = lambda kernel, config, timeout_s=None: next(outs)
    s.mark = lambda: None
    s.others_for = lambda a, b, shared: 0.0
    s.agree = lambda flag: flag
    s.wait_quiet_left = 0.0
    out = Session.run_until_quiet(s, None, None)
    assert out.attempts == 2 and out.disturbed == [] and out.timing.running_fraction == 0.99
    assert out.output == printed


def _policy_session(calls):
    from rooflab.session import Session

    s = Session.__new__(Session)  # the policy's view of a session, without a worker
    s.call = lambda name, fn, *args, **kw: next(calls)
    s.mark = lambda: None
    s.others_for = lambda a, b, shared: 0.0
    s.agree = lambda flag: flag
    s.wait_quiet_left = 0.0
    return s


def test_a_lab_task_is_measured_again_while_its_threads_wait_and_its_row_says_so():
    from rooflab.session import Session
    from rooflab.timing.harness import Timing

    def result(running: float) -> dict:
        return {"timing": Timing(reps=1, samples=[1e-3] * 5, raw=[1e-3] * 5, running=[running] * 5).to_dict()}

    def timing_of(r):
        return Timing.from_dict(r["timing"])

    # waited for a CPU half the time, then quiet: the quiet attempt is kept, and the row is ok
    s = _policy_session(iter([result(0.5), result(0.99)]))
    res, judged = Session.call_until_quiet(s, "gemm", None, timing_of=timing_of)
    row = {"name": "gemm"}
    judged.judge(row)
    assert judged.attempts == 2 and timing_of(res).running_fraction == 0.99 and row["status"] == "ok"
    # disturbed in every attempt: the least disturbed is kept, and the row is marked disturbed with the reason
    s = _policy_session(iter([result(0.5), result(0.7)]))
    res, judged = Session.call_until_quiet(s, "gemm", None, timing_of=timing_of)
    row = {"name": "gemm"}
    judged.judge(row)
    assert timing_of(res).running_fraction == 0.7 and row["status"] == "disturbed" and row["attempts"] == 2
    assert "waited for a CPU" in text(row["reason"])
    from rooflab.interpret.common import disturbed_rows
    (note,) = disturbed_rows([row, {"name": "quiet", "status": "ok"}])
    assert text(note).startswith("gemm: ") and "may be low" in text(note)
    # a quiet first attempt is measured once
    s = _policy_session(iter([result(1.0)]))
    _, judged = Session.call_until_quiet(s, "gemm", None, timing_of=timing_of)
    assert judged.attempts == 1 and judged.disturbed == []

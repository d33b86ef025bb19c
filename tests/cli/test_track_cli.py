"""`rooflab track`: a kernel across the revisions of a throw-away git repository, each built from its own tree, the
good ones timed in the same rounds, the broken ones reported in their rows; the user's checkout never touched."""

import json
import subprocess
from pathlib import Path

import pytest

from conftest import fake_measure
from rooflab.cli import main
from rooflab.commands.track import newest_step
from rooflab.errors import RooflabError
from rooflab.i18n import text
from rooflab.toolchain.revisions import WORKTREE, resolve, tree_at

SPEC = """source = "k.c"
function = "scale"
flops = "n"
bytes = "16*n"
sizes = {n = [20000]}
args = {n = "n", a = 2.0, x = {shape = ["n"]}, y = {shape = ["n"], output = true}}
check = {y = "2.0 * x", tolerance = 1e-12}
"""

GOOD = "void scale(long n, double a, const double *x, double *y) { for (long i = 0; i < n; i++) y[i] = a * x[i]; }\n"
# the same result with more work per element
SLOWER = ("void scale(long n, double a, const double *x, double *y)\n{ for (long i = 0; i < n; i++) { double v = x[i];"
          " for (int k = 0; k < 8; k++) v = v * 1.0000001 / 1.0000001; y[i] = a * v; } }\n")
WRONG = "void scale(long n, double a, const double *x, double *y) { for (long i = 0; i < n; i++) y[i] = a + x[i]; }\n"
BROKEN = "void scale(long n, double a, const double *x, double *y) { for (long i = 0; i < n; i++) y[i] = a * x[i] }\n"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


def _commit(repo: Path, source: str, subject: str) -> str:
    (repo / "k.c").write_text(source)
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", subject)
    return _git(repo, "rev-parse", "--short", "HEAD")


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    r = tmp_path_factory.mktemp("repo")
    _git(r, "init", "-q")
    (r / "k.toml").write_text(SPEC)
    _commit(r, GOOD, "the plain loop")
    _commit(r, BROKEN, "a semicolon lost")
    _commit(r, WRONG, "a wrong operator")
    _commit(r, SLOWER, "more work per element")
    return r


def test_revisions_are_named_as_git_names_them_and_read_without_touching_the_checkout(repo, tmp_path):
    revs = resolve(repo, "HEAD~3..HEAD")
    assert [r.subject for r in revs] == ["the plain loop", "a semicolon lost", "a wrong operator",
                                         "more work per element"]
    assert [r.ref for r in resolve(repo, f"HEAD~1,HEAD,{WORKTREE}")][-1] == WORKTREE
    status = _git(repo, "status", "--porcelain")
    tree = tree_at(repo, revs[0], tmp_path / "t")
    assert (tree / "k.c").read_text() == GOOD and (repo / "k.c").read_text() == SLOWER
    assert _git(repo, "status", "--porcelain") == status  # the checkout, index and branches as they were
    for bad, says in (("nosuchref", "nosuchref"), ("HEAD..", "both ends"), ("", "empty"), ("HEAD,,HEAD", "empty"),
                      ("--output=/tmp/x", "is no revision"), ("HEAD~1..--all", "is no revision"),
                      (f"HEAD..{WORKTREE}", "in a list")):
        with pytest.raises(RooflabError, match=says):
            resolve(repo, bad)


def test_each_revision_is_built_from_its_own_tree_and_the_broken_ones_are_reported_in_their_rows(repo, tmp_path,
                                                                                               capsys):
    fake_measure(str(tmp_path / "s.sqlite"))  # a stored roofline: track places the revisions on it, measuring none
    code = main(["track", str(repo / "k.toml"), "--revs", "HEAD~3..HEAD", "--quick", "--json",
                 "--store", str(tmp_path / "s.sqlite")])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["schema"] == "rooflab.track/1"
    (size,) = doc["sizes"]
    rows = size["rows"]
    assert [r["subject"] for r in rows] == ["the plain loop", "a semicolon lost", "a wrong operator",
                                            "more work per element"]
    plain, broken, wrong, slower = rows
    assert broken["error_kind"] == "build" and "k.c:1" in broken["error"]  # the compiler's file and line
    assert wrong["error_kind"] == "wrong" and "time_s" not in wrong  # reported as wrong, never timed
    for r in (plain, slower):
        assert r["time_s"] > 0 and r["time_ci95"][0] <= r["time_s"] <= r["time_ci95"][1]
        assert r["status"] in ("ok", "disturbed") and len(r["seconds"]) == doc["rounds"]  # the same rounds
    # the step is paired against the revision before it that was measured: the broken ones are passed over
    assert slower["step_from"] == plain["revision"] == 0
    lo, hi = slower["step_ci95"]
    assert lo <= slower["step_speedup"] <= hi and slower["step_verdict"] in ("faster", "slower", "no difference")
    assert slower["cumulative_from"] == 0
    # the counts do not depend on the noise: the loop with eight more multiplies and divides per element executes
    # more instructions, whatever the clock did
    if "instructions" in (plain.get("counts") or {}):
        assert slower["counts"]["instructions"] > 2 * plain["counts"]["instructions"]
        observed = " ".join(text(o) for o in doc["observations"])
        assert "instructions per call" in observed
    else:  # valgrind absent: said, not hidden
        assert plain["counts"]["skipped"]
    assert main(["show", "latest", "--store", str(tmp_path / "s.sqlite")]) == 0
    page = capsys.readouterr().out
    assert "more work per element" in page and "a semicolon lost" in page and "The kernel's path" in page


def test_fail_if_slower_exits_1_on_a_slower_newest_step_by_time_or_by_instructions():
    def doc(step_ci, counts):
        rows = [{"revision": 0, "short": "a", "time_s": 1.0, "counts": {"instructions": counts[0]}},
                {"revision": 1, "short": "b", "time_s": 1.2, "step_speedup": 1 / 1.2, "step_ci95": step_ci,
                 "counts": {"instructions": counts[1]}}]
        return {"revisions": [{}, {}], "sizes": [{"label": "n=1", "rows": rows}]}

    # the whole interval of the time ratio beyond 5%: slower
    why = newest_step(doc([1 / 1.25, 1 / 1.15], (100, 100)), 0.05, 0.01)
    assert len(why) == 1 and "slower" in text(why[0])
    # an interval that allows no change is no failure, however slow the median
    assert newest_step(doc([1 / 1.3, 1 / 0.99], (100, 100)), 0.05, 0.01) == []
    # more instructions beyond their threshold is, even within the time's noise
    why = newest_step(doc([1 / 1.3, 1 / 0.99], (100, 102)), 0.05, 0.01)
    assert len(why) == 1 and "2.00% more instructions" in text(why[0])


def test_track_refuses_what_it_cannot_follow(tmp_path, capsys):
    (tmp_path / "k.toml").write_text(SPEC)
    (tmp_path / "k.c").write_text(GOOD)
    assert main(["track", str(tmp_path / "k.toml"), "--revs", "HEAD~1..HEAD"]) == 2
    assert "not in a git repository" in capsys.readouterr().err


def test_history_reads_the_stored_series_in_commit_order_and_finds_its_change_points(repo, tmp_path, capsys):
    store = str(tmp_path / "s.sqlite")
    fake_measure(store)
    assert main(["track", str(repo / "k.toml"), "--revs", "HEAD~3..HEAD", "--quick", "--json", "--store", store]) == 0
    capsys.readouterr()
    assert main(["track", "--history", str(repo / "k.toml"), "--json", "--store", store]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "rooflab.track.history/1"
    (size,) = doc["sizes"]
    # the two revisions that built and were right, oldest first; the broken and the wrong ones have no figure
    assert [p["subject"] for p in size["points"]] == ["the plain loop", "more work per element"]
    assert all(p["time_ci95"][0] <= p["time_s"] <= p["time_ci95"][1] for p in size["points"])
    by_count = [c for c in size["changes"] if c["by"] == "instructions"]
    if size["points"][0].get("instructions"):  # counted (valgrind here): eight more operations per element
        assert [c["short"] for c in by_count] == [size["points"][1]["short"]] and by_count[0]["ratio"] > 2
    for c in size["changes"]:  # any change point starts at a measured commit, with the levels it separates
        assert c["index"] == 1 and c["before"] > 0 and c["after"] > 0
    assert main(["track", "--history", str(repo / "k.toml"), "--store", store]) == 0
    page = capsys.readouterr().out
    assert "more work per element" in page and "change point" in page
    # --history measures nothing, and takes no revisions
    assert main(["track", "--history", str(repo / "k.toml"), "--revs", "HEAD", "--store", store]) == 2
    assert "leave out --revs" in capsys.readouterr().err


@pytest.fixture(scope="module")
def line(tmp_path_factory) -> tuple[Path, list[str]]:
    """Nine commits: four good, a slowdown (eight more operations per element), then four more changing comments."""
    r = tmp_path_factory.mktemp("line")
    _git(r, "init", "-q")
    (r / "k.toml").write_text(SPEC)
    shorts = [_commit(r, GOOD + f"/* {i} */\n", f"comment {i}") for i in range(4)]
    shorts.append(_commit(r, SLOWER, "the slowdown"))
    shorts += [_commit(r, SLOWER + f"/* {i} */\n", f"later comment {i}") for i in range(4)]
    return r, shorts


def test_bisect_finds_the_first_slower_commit_measuring_a_few_builds(line, tmp_path, capsys):
    repo, shorts = line
    code = main(["bisect", str(repo / "k.toml"), "--good", "HEAD~8", "--bad", "HEAD", "--quick", "--json",
                 "--no-store"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["schema"] == "rooflab.bisect/1" and doc["commits"] == 8
    # the slowdown is about 4x: every probe's interval is far from the 5% threshold, whatever the machine does
    assert doc["verdict"] == "found" and doc["first_bad"]["short"] == shorts[4]
    assert doc["last_good"]["short"] == shorts[3]
    assert doc["builds"] <= 3 + 2  # ceil(log2 8) + 2
    probes = doc["probes"]
    assert all(p["verdict"] in ("good", "bad", "unclear") and p["ratio_ci95"][0] <= p["ratio"] <= p["ratio_ci95"][1]
               for p in probes)
    # a probe whose interval straddles the threshold (a noisy moment) is measured again, with twice the rounds
    for i, p in enumerate(probes):
        if p["verdict"] == "unclear":
            again = probes[i + 1]
            assert again["index"] == p["index"] and again["rounds"] == 2 * p["rounds"]
    # between two commits that differ in a comment only: within the noise, and it stops there
    code = main(["bisect", str(repo / "k.toml"), "--good", "HEAD~3", "--bad", "HEAD", "--quick", "--json",
                 "--no-store"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["verdict"] in ("within noise", "found")
    if doc["verdict"] == "within noise":
        assert len(doc["probes"]) == 1 and doc["first_bad"] is None
    for bad, says in ((["--good", "HEAD", "--bad", "HEAD~1"], "not after"),):
        assert main(["bisect", str(repo / "k.toml"), *bad]) == 2
        assert says in capsys.readouterr().err

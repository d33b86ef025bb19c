"""The targets of `rooflab track` and `rooflab bisect`, on throw-away git repositories this script makes itself.

- No false alarms: a kernel committed N times with comment-only changes; each repetition runs `track` over all of
  them and counts a false alarm when any step is called slower (or faster) or `--fail-if-slower` fails, and
  `track --history` over the stored runs when it finds any change point.
- Power: the same line with one commit that adds work to the loop (a 5% slowdown, calibrated here); a repetition is
  right when the step at that commit, and only it, is called slower. A slowdown that adds instructions is found by
  the instruction count at the right commit every time.
- Bisection: `bisect` over 64 commits with one slowdown of about 10% finds it, measuring at most
  ceil(log2 64) + 2 = 8 builds.
- Synthetic series with the spread this machine's runs show: the share of series without a change in which
  the change-point search finds one.

    python targets/track_targets.py [--reps 20] [--commits 30] [--power-commits 32] [--quick]

Run it alone on a quiet machine: it measures for several minutes.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from rooflab.cli import main
from rooflab.model.changepoints import change_points

SPEC = """source = "k.c"
function = "work"
flops = "2*n*{reps}"
bytes = "8*n"
sizes = {{n = [4096]}}
args = {{n = "n", x = {{shape = ["n"]}}, y = {{shape = ["n"], output = true}}}}
"""

# a loop of a fixed number of dependent multiply-adds per element; EXTRA more of them make it slower by a known share
KERNEL = """void work(long n, const double *x, double *y)
{{
    for (long i = 0; i < n; i++) {{
        double v = x[i];
        for (int k = 0; k < {reps}; k++) v = v * 0.999999 + 1e-9;
        y[i] = v;
    }}
}}
/* {note} */
"""
REPS = 40


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


def make_line(root: Path, commits: int, slow_at: int | None, extra: int) -> tuple[Path, list[str]]:
    """A repository of ``commits`` commits of the kernel; from ``slow_at`` on it does ``extra`` more operations."""
    repo = Path(tempfile.mkdtemp(dir=root))
    git(repo, "init", "-q")
    (repo / "k.toml").write_text(SPEC.format(reps=REPS))
    shorts = []
    for i in range(commits):
        reps = REPS + (extra if slow_at is not None and i >= slow_at else 0)
        (repo / "k.c").write_text(KERNEL.format(reps=reps, note=f"revision {i}"))
        git(repo, "add", "-A")
        git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", f"revision {i}")
        shorts.append(git(repo, "rev-parse", "--short", "HEAD"))
    return repo, shorts


def run(argv: list[str]) -> tuple[int, dict | None]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    try:
        return code, json.loads(out.getvalue())
    except ValueError:
        return code, None


def track(repo: Path, commits: int, store: Path, quick: bool, fail: bool = False) -> tuple[int, dict]:
    argv = ["track", str(repo / "k.toml"), "--revs", f"HEAD~{commits - 1}..HEAD", "--json", "--store", str(store)]
    return run(argv + (["--quick"] if quick else []) + (["--fail-if-slower"] if fail else []))


def steps(doc: dict) -> list[tuple[int, str]]:
    return [(r["revision"], r["step_verdict"]) for r in doc["sizes"][0]["rows"] if r.get("step_verdict")]


def seeded(base: Path, path: Path) -> Path:
    """A store for one repetition holding the machine's roofline (a copy of ``base``): a store without one would
    measure the machine first, at every repetition."""
    shutil.copyfile(base, path)
    return path


def main_(args) -> int:
    root = Path(tempfile.mkdtemp(prefix="rooflab-track-targets-"))
    results = {}
    t0 = time.time()
    base = root / "base.sqlite"
    code, _ = run(["measure", "--quick", "--json", "--store", str(base)])
    if code not in (0, None):
        print(f"the roofline could not be measured (exit {code})", file=sys.stderr)
        return 1

    # no false alarms: comment-only commits
    alarms, fails, history_alarms = 0, 0, 0
    for rep in range(args.reps):
        repo, _ = make_line(root, args.commits, None, 0)
        s = seeded(base, root / f"quiet{rep}.sqlite")
        code, doc = track(repo, args.commits, s, args.quick, fail=True)
        called = [v for _, v in steps(doc) if v != "no difference"]
        alarms += bool(called)
        fails += code == 1
        code, hist = run(["track", "--history", str(repo / "k.toml"), "--json", "--store", str(s)])
        history_alarms += any(c["by"] == "time" for c in hist["sizes"][0]["changes"])
        print(f"quiet line {rep + 1}/{args.reps}: steps called {len(called)}, --fail-if-slower exit {code}",
              flush=True)
    results["false_alarms"] = {"repetitions": args.reps, "with_a_step_called": alarms, "fail_if_slower": fails,
                               "history_change_points": history_alarms}

    # power: one commit of the line 5% slower (40 -> 42 operations per element)
    extra = max(1, round(REPS * 0.05))
    right, by_count = 0, 0
    slow_at = args.power_commits // 2
    for rep in range(args.reps):
        repo, _ = make_line(root, args.power_commits, slow_at, extra)
        code, doc = track(repo, args.power_commits, seeded(base, root / f"power{rep}.sqlite"), args.quick)
        called = [(i, v) for i, v in steps(doc) if v != "no difference"]
        right += called == [(slow_at, "slower")]
        rows = doc["sizes"][0]["rows"]
        counts = [(r.get("counts") or {}).get("instructions") for r in rows]
        jumps = [i for i in range(1, len(counts)) if counts[i] and counts[i - 1] and counts[i] > counts[i - 1] * 1.001]
        by_count += jumps == [slow_at]
        print(f"slow line {rep + 1}/{args.reps}: called {called}, instruction jumps at {jumps}", flush=True)
    results["power"] = {"repetitions": args.reps, "commits": args.power_commits, "slowdown": extra / REPS,
                        "found_at_the_commit": right,
                        "found_by_instructions": by_count}

    # bisection over 64 commits, one ~10% slowdown
    repo, shorts = make_line(root, 65, 41, max(1, round(REPS * 0.10)))
    code, doc = run(["bisect", str(repo / "k.toml"), "--good", "HEAD~64", "--bad", "HEAD", "--json", "--no-store"]
                    + (["--quick"] if args.quick else []))
    results["bisect"] = {"commits": 64, "found": doc.get("first_bad", {}).get("short") == shorts[41],
                         "builds": doc.get("builds"), "limit": math.ceil(math.log2(64)) + 2}

    # synthetic series with this machine's spread between runs
    rng = np.random.default_rng(1)
    sigma = 0.01
    n_series = 2000
    false = sum(bool(change_points(list(rng.normal(0, sigma, 30)), [sigma] * 30)) for _ in range(n_series))
    results["synthetic"] = {"series": n_series, "points": 30, "false_alarm_share": false / n_series}
    results["seconds"] = round(time.time() - t0)
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--commits", type=int, default=30, help="commits of the unchanged line")
    ap.add_argument("--power-commits", type=int, default=32, help="commits of the line with one slower commit")
    ap.add_argument("--quick", action="store_true")
    sys.exit(main_(ap.parse_args()))

"""`rooflab bisect SPEC.toml --good REV --bad REV`: the first commit at which a kernel became slower.

As `git bisect` does, it halves the commits between a good and a bad revision along the first-parent line, but each
probe is measured, not judged by hand: the probe's build and the good one's are timed in the same interleaved rounds
of one worker, and the probe is bad when the whole 95% interval of its time ratio lies beyond ``--threshold``, good
when the interval excludes a slowdown that large, and measured again with twice the rounds when it does neither.
First, the bad revision itself is compared with the good one: when the difference is within the noise, bisect stops
there and says so. A revision that does not build, crashes or is wrong is skipped (as `git bisect skip`), and the
search goes on with its neighbours. Every build measured is listed."""

from __future__ import annotations

import dataclasses
import tempfile
from dataclasses import dataclass
from pathlib import Path

from rooflab.contract import Column, Command, Hooks, Outputs, Report, Table, internal, option, quick_option
from rooflab.documents.common import read
from rooflab.documents.kernels import Probe, TrackRevision
from rooflab.errors import RooflabError
from rooflab.i18n import msg, tr
from rooflab.kernels.runner import interleave_c_kernels
from rooflab.kernels.user import build_spec, config_for, task
from rooflab.session import Session
from rooflab.timing.harness import HarnessConfig, Timing
from rooflab.timing.stats import paired_ratio
from rooflab.toolchain.compiler import CompileError
from rooflab.toolchain.revisions import Revision, first_parent_line, repository_of, tree_at
from rooflab.userkernel.spec import load_spec, one_kernel, parse_size_values, size_for


@dataclass(frozen=True)
class Options:
    spec: str = option(argument=True, path="file", help="The kernel spec file (TOML), in a git repository; read at "
                                                        "each revision as it was then.")
    good: str = option(help="A revision at which the kernel was fast (any git ref).")
    bad: str = option(help="A later revision at which it is slower (any git ref, on good's first-parent line).")
    kernel: str | None = option(None, help="The kernel of the spec (needed when it has several).")
    size: tuple[str, ...] = option((), many=True, help="NAME=NUMBER for each size variable (default: the bad "
                                                       "revision's first size).")
    threshold: float = option(0.05, min=0.001, max=10.0, help="A probe is bad when it is slower than the good "
                                                               "revision by more than this (a relative change of "
                                                               "its time, its whole 95% CI beyond it).")
    rounds: int = option(21, min=5, max=1000, help="Interleaved rounds of each probe against the good revision.")
    quick: bool = quick_option("Shorter samples: a first look.")
    repository: str | None = internal()
    spec_path: str | None = internal()
    line: tuple | None = internal()


def prepare(opts: Options) -> Options:
    spec = Path(opts.spec).resolve()
    if not spec.is_file():
        raise RooflabError(f"{opts.spec}: no such spec file")
    repo = repository_of(spec)
    line = first_parent_line(repo, opts.good, opts.bad)
    parse_size_values(opts.size)
    return dataclasses.replace(opts, repository=str(repo), spec_path=str(spec.relative_to(repo)), line=tuple(line))


class _Bisection:
    def __init__(self, session: Session, opts: Options, workdir: Path):
        self.session, self.opts, self.workdir = session, opts, workdir
        self.builds: dict[int, dict] = {}
        self.probes: list[dict] = []
        self.size: dict | None = None

    def build(self, i: int) -> dict:
        """Revision ``i`` of the line read and built once: {spec, lib} or {error}."""
        if i in self.builds:
            return self.builds[i]
        rev: Revision = self.opts.line[i]
        entry = {**rev.to_dict()}
        try:
            tree = tree_at(Path(self.opts.repository), rev, self.workdir / rev.commit)
            spec = one_kernel(load_spec(tree / self.opts.spec_path, (self.opts.kernel,) if self.opts.kernel else ()),
                              self.opts.kernel)
            if self.size is None:
                given = parse_size_values(self.opts.size)
                self.size = size_for(spec, given) if given else spec.sizes[0]
            self.session.progress(f"bisect: building {rev.short}")
            entry.update(spec=spec, lib=build_spec(spec))
        except (CompileError, RooflabError) as exc:
            entry.update(error=str(exc).splitlines()[0], error_kind="build" if isinstance(exc, CompileError)
                         else "spec")
        self.builds[i] = entry
        return entry

    def probe(self, i: int, rounds: int) -> dict:
        """Revision ``i`` against the good one (index 0), timed in the same rounds."""
        good, this = self.build(0), self.build(i)
        rev = self.opts.line[i]
        out = {"index": i, "commit": rev.commit, "short": rev.short, "subject": rev.subject, "rounds": rounds}
        if "error" in this:
            self.probes.append({**out, "verdict": "skip", "error": this["error"]})
            return self.probes[-1]
        label = " ".join(f"{k}={v}" for k, v in self.size.items())
        kernels = {}
        for key, b in (("good", good), ("probe", this)):
            k = task(b["spec"], b["lib"], size_for(b["spec"], self.size), f"{b['short']} {label}")
            checked = self.session.run(k, HarnessConfig(min_sample_s=0.001, samples=1, warmup=0, min_samples=1,
                                                        budget_s=0.5), timeout_s=b["spec"].timeout)
            if not checked.ok:
                if key == "good":
                    raise RooflabError(f"the good revision {good['short']} cannot be measured: {checked.error}")
                self.probes.append({**out, "verdict": "skip", "error": checked.error})
                return self.probes[-1]
            kernels[key] = k
        cfg = config_for(this["spec"], self.opts.quick)
        res, judged = self.session.call_until_quiet(
            f"bisect {rev.short}", interleave_c_kernels, kernels, cfg, rounds,
            timing_of=lambda x: _timings(x)["probe"], timeout_s=4 * this["spec"].timeout)
        timings = _timings(res)
        tg, tp = timings["good"], timings["probe"]
        c = paired_ratio(tg.samples, tp.samples, threshold=self.opts.threshold)
        lo, hi = c.ci95
        verdict = ("bad" if lo > 1.0 + self.opts.threshold else "good" if hi < 1.0 + self.opts.threshold
                   else "unclear")
        out.update(ratio=c.ratio, ratio_ci95=[lo, hi], verdict=verdict, good_time_s=tg.summary.median,
                   time_s=tp.summary.median)
        judged.judge(out)
        self.probes.append(out)
        return out

    def judged(self, i: int) -> str:
        """good, bad or skip for revision ``i``: an unclear probe measured once more with twice the rounds, then
        taken as bad when its median lies beyond the threshold."""
        p = self.probe(i, self.opts.rounds)
        if p["verdict"] == "unclear":
            p = self.probe(i, 2 * self.opts.rounds)
            if p["verdict"] == "unclear":
                p["verdict"] = "bad" if p["ratio"] > 1.0 + self.opts.threshold else "good"
                p["decided_by"] = "median"
        return p["verdict"]


def run(session: Session, opts: Options) -> dict:
    with tempfile.TemporaryDirectory(prefix="rooflab-bisect-") as d:
        b = _Bisection(session, opts, Path(d))
        line = opts.line
        doc = {"repository": opts.repository, "spec": opts.spec_path, "kernel": opts.kernel,
               "good": line[0].to_dict(), "bad": line[-1].to_dict(), "commits": len(line) - 1,
               "threshold": opts.threshold, "probes": b.probes, "quick": opts.quick}
        good = b.build(0)
        if "error" in good:
            raise RooflabError(f"the good revision {good['short']} cannot be built: {good['error']}")
        first = b.judged(len(line) - 1)
        doc["size"] = b.size
        if first == "skip":
            raise RooflabError(f"the bad revision {line[-1].short} cannot be measured: {b.probes[-1]['error']}")
        if first == "good":
            doc.update(verdict="within noise", first_bad=None)
            return doc
        lo, hi = 0, len(line) - 1  # lo: good, hi: bad
        skipped: set[int] = set()
        while hi - lo > 1:
            candidates = [i for i in range(lo + 1, hi) if i not in skipped]
            if not candidates:
                break
            mid = min(candidates, key=lambda i: abs(i - (lo + hi) / 2))
            v = b.judged(mid)
            if v == "skip":
                skipped.add(mid)
            elif v == "bad":
                hi = mid
            else:
                lo = mid
        between = [line[i].to_dict() for i in range(lo + 1, hi) if i in skipped]
        doc.update(verdict="found" if not between else "among skipped", first_bad=line[hi].to_dict(),
                   last_good=line[lo].to_dict(), skipped_between=between,
                   builds=len({p["index"] for p in b.probes}) + 1)
        return doc


_VERDICTS = {"good": lambda: tr("good"), "bad": lambda: tr("bad"), "skip": lambda: tr("skipped"),
             "unclear": lambda: tr("unclear")}


def _timings(res: dict) -> dict[str, Timing]:
    """The timings of the kernels timed in one interleaved call, by name."""
    return {name: Timing.from_dict(part["timing"]) for name, part in res.items()}


def _headline(doc: dict) -> str:
    good, bad = read(TrackRevision, doc["good"]), read(TrackRevision, doc["bad"])
    return tr("{good}..{bad}: {n} commits, {m} builds measured", good=good.short, bad=bad.short,
              n=doc["commits"], m=len({p["index"] for p in doc.get("probes") or []}) + 1)


def bisect_observations(doc: dict) -> list[dict]:
    good, bad = read(TrackRevision, doc["good"]), read(TrackRevision, doc["bad"])
    if doc.get("verdict") == "within noise":
        p = read(Probe, doc["probes"][-1]) if doc.get("probes") else None
        lo, hi = (p.ratio_ci95 if p and p.ratio_ci95 else (0.0, 0.0))
        return [msg("{bad} is not slower than {good} by more than {th:.0%}: its time ratio is {r:.3f}x (95% CI "
                    "{lo:.3f}-{hi:.3f}x), within the noise; nothing to bisect.", bad=bad.short,
                    good=good.short, th=doc["threshold"], r=(p.ratio if p else None) or 0.0, lo=lo, hi=hi)]
    if not doc.get("first_bad"):
        return []
    f = read(TrackRevision, doc["first_bad"])
    out = [msg("{short} is the first bad commit: {subject} (slower than {good} by more than {th:.0%}).",
               short=f.short, subject=f.subject, good=good.short, th=doc["threshold"])]
    if doc.get("skipped_between"):
        out.append(msg("Commits that could not be measured lie between the last good one and it: {commits}.",
                       commits=", ".join(read(TrackRevision, c).short for c in doc["skipped_between"])))
    return out


COMMAND = Command(
    name="bisect", order=8, options=Options, run=run,
    summary=msg("the first commit at which a kernel became slower: a git bisect whose every probe is a paired "
                "measurement"),
    report=Report(
        interpret=bisect_observations, headline=_headline,
        tables=(Table("bisect_probes", "Builds measured, in the order measured (time ratio to the good revision, "
                                       "95% CI)", rows="probes", error_column="ratio", columns=(
                          Column("short", "revision"),
                          Column("subject", "subject"),
                          Column("ratio", "time ratio", "x3", ci="ratio_ci95"),
                          Column("rounds", "rounds", "int"),
                          Column("verdict", "verdict", value=lambda p, d: _VERDICTS.get(p["verdict"], p["verdict"])()
                                 if p["verdict"] in _VERDICTS else p["verdict"], csv=False),
                          Column("verdict_id", "verdict", report=False, value=lambda p, d: p["verdict"]))),)),
    outputs=Outputs(files=("html", "csv")),
    hooks=Hooks(prepare=prepare))

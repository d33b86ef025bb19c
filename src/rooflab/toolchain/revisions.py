"""Git revisions of a kernel's sources, read without touching the user's work tree: the revisions a range names,
their subjects, and the tree of one revision written to a folder of its own (``git archive``)."""

from __future__ import annotations

import io
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

from rooflab.errors import RooflabError

WORKTREE = "WORKTREE"  # the working tree as it is, uncommitted changes included
MAX_REVISIONS = 200


@dataclass(frozen=True)
class Revision:
    """One revision: what the user named (``ref``), its full commit id (None for the working tree), its short id
    and its subject (the commit's first line)."""

    ref: str
    commit: str | None
    short: str
    subject: str

    def to_dict(self) -> dict:
        return {"ref": self.ref, "commit": self.commit, "short": self.short, "subject": self.subject}


def _git(repo: Path, *args: str, binary: bool = False, timeout: float = 120):
    try:
        r = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, timeout=timeout)
    except FileNotFoundError:
        raise RooflabError("git is not installed: revisions cannot be read") from None
    except subprocess.TimeoutExpired:
        raise RooflabError(f"git {args[0]} did not finish within {timeout:.0f} s") from None
    if r.returncode != 0:
        said = r.stderr.decode(errors="replace").strip().splitlines()
        raise RooflabError(f"git {' '.join(args[:2])}: {said[-1] if said else f'exit status {r.returncode}'}")
    return r.stdout if binary else r.stdout.decode(errors="replace")


def repository_of(path: Path) -> Path:
    """The top of the git repository that holds ``path``."""
    folder = path if path.is_dir() else path.parent
    try:
        return Path(_git(folder, "rev-parse", "--show-toplevel").strip())
    except RooflabError:
        raise RooflabError(f"{path} is not in a git repository: track and bisect read its history") from None


def _revision(repo: Path, ref: str) -> Revision:
    if ref == WORKTREE:
        dirty = _git(repo, "status", "--porcelain", "--untracked-files=no").strip()
        return Revision(WORKTREE, None, WORKTREE, "the working tree" + (", with uncommitted changes" if dirty else ""))
    if ref.startswith("-") or any(c.isspace() or ord(c) < 32 for c in ref):
        raise RooflabError(f"{ref!r} is no revision: a revision is a branch, tag, commit id, HEAD~N or {WORKTREE}")
    try:
        commit = _git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").strip()
    except RooflabError:
        raise RooflabError(f"{ref!r} is no commit of the repository at {repo} (a branch, tag, commit id, HEAD~N or "
                           f"{WORKTREE})") from None
    short, subject = _git(repo, "log", "-1", "--format=%h%x00%s", commit).rstrip("\n").split("\0", 1)
    return Revision(ref, commit, short, subject)


def resolve(repo: Path, revs: str) -> list[Revision]:
    """The revisions ``revs`` names, oldest first as given: ``A,B,C`` (any refs git knows, and ``WORKTREE``), or
    ``A..B`` (A, then each commit after it up to B along the first-parent line, as ``git log --first-parent``
    walks it)."""
    revs = revs.strip()
    if not revs:
        raise RooflabError("--revs is empty: name revisions as A,B,C or a range A..B")
    if ".." in revs and "," not in revs:
        a, _, b = revs.partition("..")
        if not a or not b or b.startswith("."):
            raise RooflabError(f"--revs {revs!r}: a range is A..B (both ends named)")
        base, end = _revision(repo, a), _revision(repo, b)
        if base.commit is None or end.commit is None:
            raise RooflabError(f"--revs {revs}: a range is between commits; name {WORKTREE} in a list (A,{WORKTREE})")
        out = _git(repo, "rev-list", "--reverse", "--first-parent", f"{base.commit}..{end.commit}").split()
        if len(out) + 1 > MAX_REVISIONS:
            raise RooflabError(f"--revs {revs}: {len(out) + 1} revisions, more than {MAX_REVISIONS}: name fewer")
        return [base] + [_revision(repo, c) for c in out]
    refs = [r.strip() for r in revs.split(",")]
    if any(not r for r in refs):
        raise RooflabError(f"--revs {revs!r}: an empty revision between commas")
    if len(refs) > MAX_REVISIONS:
        raise RooflabError(f"--revs: {len(refs)} revisions, more than {MAX_REVISIONS}")
    return [_revision(repo, r) for r in refs]


def first_parent_line(repo: Path, good: str, bad: str) -> list[Revision]:
    """The commits from ``good`` (first) to ``bad`` (last) along the first-parent line, for a bisection."""
    line = resolve(repo, f"{good}..{bad}")
    if len(line) < 2:
        raise RooflabError(f"{bad} is not after {good}: nothing to bisect")
    return line


def tree_at(repo: Path, rev: Revision, dest: Path) -> Path:
    """The repository's files at ``rev`` written under ``dest`` (the working tree itself for WORKTREE): never a
    change to the user's checkout, index or branches."""
    if rev.commit is None:
        return repo
    data = _git(repo, "archive", "--format=tar", rev.commit, binary=True, timeout=600)
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(dest, filter="data")  # no member may leave dest
    return dest


def first_parent_order(repo: Path, limit: int = 100_000) -> dict[str, dict]:
    """Every commit of HEAD's first-parent line: commit -> {index (0 the oldest), short, subject}."""
    text = _git(repo, "log", "--first-parent", f"--max-count={limit}", "--format=%H%x00%h%x00%s", "HEAD")
    lines = [line.split("\0", 2) for line in text.splitlines() if line.count("\0") >= 2]
    return {c: {"index": i, "short": short, "subject": subject}
            for i, (c, short, subject) in enumerate(reversed(lines))}

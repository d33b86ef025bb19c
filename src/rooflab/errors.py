"""The one family of errors meant for users.

The CLI catches :class:`RooflabError` in one place, prints its message and exits with code 2. Anything else is a
bug and keeps its traceback.
"""

from __future__ import annotations

import re


class RooflabError(Exception):
    """An error the user can act on: the message says what happened and what to do."""


class NothingToDraw(RooflabError):
    """A run holds no roofline to draw (no compute or no memory roof passed its checks): a finished run still shows
    its report, and the plot asked for is left out with this reason."""


class CompilerNotFound(RooflabError):
    pass


class CompileError(RooflabError):
    """A C source did not compile. ``diagnostics`` holds the compiler's messages as (file, line, col, kind, text)."""

    def __init__(self, source: str, command: list[str], output: str):
        self.source = source
        self.command = command
        self.output = output
        self.diagnostics = parse_diagnostics(output)
        lines = [f"compiling {source} failed:"]
        if self.diagnostics:
            for d in self.diagnostics:
                lines.append(f"  {d.file}:{d.line}:{d.col}: {d.kind}: {d.text}")
        else:
            lines.append("  " + (output.strip() or "(the compiler printed nothing)").replace("\n", "\n  "))
        lines.append("  command: " + " ".join(command))
        super().__init__("\n".join(lines))

    def __reduce__(self):
        return (type(self), (self.source, self.command, self.output))


class KernelFailed(RooflabError):
    """A kernel crashed, hung or raised inside the worker process."""

    def __init__(self, kernel: str, reason: str, signal: str | None = None, timeout_s: float | None = None):
        self.kernel = kernel
        self.reason = reason
        self.signal = signal
        self.timeout_s = timeout_s
        super().__init__(f"kernel {kernel!r} {reason}")

    def __reduce__(self):
        return (type(self), (self.kernel, self.reason, self.signal, self.timeout_s))


class WrongResult(RooflabError):
    """A kernel ran but its output disagrees with the reference: its speed is not a result."""

    def __init__(self, kernel: str, rel_error: float, tolerance: float):
        self.kernel = kernel
        self.rel_error = rel_error
        self.tolerance = tolerance
        super().__init__(
            f"kernel {kernel!r} gave a wrong result: max relative error {rel_error:.3g} > tolerance {tolerance:.3g}"
        )

    def __reduce__(self):
        return (type(self), (self.kernel, self.rel_error, self.tolerance))


class OutOfBounds(WrongResult):
    """A kernel wrote outside one of its arrays (the guard bytes around it changed): its result cannot be trusted,
    and neither can its speed."""

    def __init__(self, kernel: str, array: str, where: str, changed: int):
        self.array, self.where, self.changed = array, where, changed
        RooflabError.__init__(self, f"kernel {kernel!r} wrote {where} `{array}` ({changed} guard byte(s) changed): "
                                    "check its loop bounds and the array shapes in the spec")
        self.kernel, self.rel_error, self.tolerance = kernel, None, 0.0

    def __reduce__(self):
        return (_out_of_bounds, (self.kernel, self.array, self.where, self.changed))


def _out_of_bounds(kernel, array, where, changed):
    return OutOfBounds(kernel, array, where, changed)


class OverheadDominates(RooflabError):
    """The measured fixed cost of a timed call is too large a part of its samples to subtract: what is left would be
    a small difference of two noisy numbers (under load, waking a thread can take longer than the work itself)."""

    def __init__(self, kernel: str, overhead_s: float, sample_s: float, reps: int, per_rep: bool = False):
        self.kernel, self.overhead_s, self.sample_s, self.reps, self.per_rep = kernel, overhead_s, sample_s, reps, per_rep
        who = kernel or "the kernel"
        if per_rep:
            text = (f"{who}: the timing loop's own cost ({overhead_s * 1e9:.3g} ns a call) is more than half of a call "
                    f"({sample_s * 1e9:.3g} ns): too short to time from Python; time a larger size, or a C kernel")
        else:
            text = (f"{who}: the measured call overhead ({overhead_s * 1e6:.3g} us) is more than a tenth of a sample "
                    f"({sample_s * 1e6:.3g} us) even at {reps} repetition(s): the time of the work itself cannot be "
                    f"separated from it (another process keeping a thread from starting?); not measured")
        super().__init__(text)

    def __reduce__(self):
        return (type(self), (self.kernel, self.overhead_s, self.sample_s, self.reps, self.per_rep))


class StoreError(RooflabError):
    pass


class RunNotFound(StoreError):
    pass


class Diagnostic:
    __slots__ = ("file", "line", "col", "kind", "text")

    def __init__(self, file: str, line: int, col: int, kind: str, text: str):
        self.file, self.line, self.col, self.kind, self.text = file, line, col, kind, text

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Diagnostic({self.file}:{self.line}:{self.col} {self.kind}: {self.text})"


def parse_diagnostics(output: str) -> list[Diagnostic]:
    """Pick ``file:line:col: error|warning|note: text`` lines out of gcc/clang output."""
    pat = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:(?P<col>\d+):)?\s*(?P<kind>fatal error|error|warning|note):\s*(?P<text>.*)$")
    out = []
    for raw in output.splitlines():
        m = pat.match(raw.strip())
        if m:
            out.append(Diagnostic(m["file"], int(m["line"]), int(m["col"] or 0), m["kind"], m["text"]))
    return out

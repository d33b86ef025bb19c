"""Run kernels in a child process, so that a crash or a hang becomes a clear error and the run goes on.

The worker is a long-lived child interpreter started fresh (``python -m rooflab.timing.worker``: no inherited BLAS
thread pools or locks, and unlike multiprocessing's spawn it never re-imports the caller's main script, so a plain
script or a notebook can use rooflab without a ``__main__`` guard). Tasks are picklable callables (module-level
functions with their arguments), sent over a pipe. When a task kills the child (SIGSEGV, SIGABRT, ...) or runs past its
timeout, the caller gets a :class:`~rooflab.errors.KernelFailed` naming the kernel and the signal or the timeout; the
next task starts a fresh child.
"""

from __future__ import annotations

import ctypes
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from multiprocessing.connection import Connection
from typing import Any, Callable

from rooflab.errors import KernelFailed, RooflabError
from rooflab.timing.isolation import Guard

_POLL_S = 0.05
OUTPUT_LIMIT = 8000  # characters of a kernel's printed output kept per call
OUTPUT_FILE_LIMIT = 1 << 20  # bytes of output after which the capture file is emptied once read (a kernel that
# prints gigabytes costs disk only for one call)
_GUARD: list = []  # the guard library's path, built once per process (None where it cannot be built)


def guard_library() -> str | None:
    """``csrc/guard.c`` built (and cached) for the worker; None without a working C compiler (then the worker
    restores what Python can reach, and a forked copy of it still never replies)."""
    if not _GUARD:
        try:
            from rooflab.toolchain.compiler import build_kernel

            _GUARD.append(str(build_kernel("guard").path))
        except Exception:  # noqa: BLE001 - no compiler, or one that cannot build it: the guard runs without it
            _GUARD.append(None)
    return _GUARD[0]


def _die_with_parent(parent: int) -> None:
    """Linux: the kernel kills this process when its parent dies, so a kernel hung in C never outlives a rooflab that
    was killed outright (SIGKILL, a crashed terminal)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the request: nobody will kill us
        os._exit(1)


def _line_buffered_stdio():
    """C stdout line-buffered (a kernel's printf reaches the capture file line by line, even before a crash), and
    a function that flushes every C stream (after each task)."""
    try:
        libc = ctypes.CDLL(None)
        for name in ("stdout", "stderr"):
            try:
                stream = ctypes.c_void_p.in_dll(libc, name)
                libc.setvbuf(stream, None, 1, 0)  # _IOLBF
            except ValueError:
                pass
        libc.fflush.argtypes = [ctypes.c_void_p]
        return lambda: libc.fflush(None)
    except (OSError, AttributeError):  # pragma: no cover - no C library to talk to
        return lambda: None


def _child_main(conn, parent: int | None = None, guard_lib: str | None = None) -> None:
    # A kernel may be interrupted from the terminal: the parent handles Ctrl-C, the child ignores it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if parent is not None:
        _die_with_parent(parent)
    flush = _line_buffered_stdio()

    try:  # what every task imports, imported first: their import-time changes (threadpoolctl sets an environment
        import numpy  # noqa: F401 - variable) belong to the clean state, not to the first task that imports them
        import threadpoolctl  # noqa: F401
    except ImportError:  # pragma: no cover - both are dependencies
        pass
    guard = Guard(guard_lib)  # the state every task starts from (see rooflab.timing.isolation)
    while True:
        try:
            raw = conn.recv_bytes()
        except (EOFError, OSError):
            return
        try:
            msg = pickle.loads(raw)
        except Exception as exc:  # a task the child cannot import (e.g. defined in a script's __main__)
            conn.send(("err-text", f"{type(exc).__name__}: {exc} (tasks must be importable functions; one defined "
                                   "in a script's __main__ cannot be sent to the worker)", ""))
            continue
        if msg is None:
            return
        fn, args, kwargs = msg
        guard.before()
        try:
            result = fn(*args, **kwargs)
            notes = guard.after()
            flush()
            sys.stdout.flush()
            conn.send(("ok", result, notes))
        except BaseException as exc:  # noqa: BLE001 - everything is reported to the parent
            notes = guard.after()
            flush()
            tb = traceback.format_exc()
            try:
                payload = pickle.dumps(exc)
                conn.send(("err", payload, tb, notes))
            except Exception:  # an exception that does not pickle is sent as text
                conn.send(("err-text", f"{type(exc).__name__}: {exc}", tb, notes))


def on_cpus(cpus: list[int], fn: Callable[..., Any], *args, **kwargs) -> Any:
    """``fn(*args, **kwargs)`` with the calling thread confined to ``cpus`` (a one-thread measurement kept on the
    CPU others left alone). Afterwards every thread of the process gets the CPUs it had before the call back: a
    thread pool that a library started during the call inherited the narrow set and would otherwise keep it."""
    if not hasattr(os, "sched_setaffinity") or not cpus:
        return fn(*args, **kwargs)
    before = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, cpus)
    except OSError:  # a CPU that went away since it was chosen: run where the thread may run
        return fn(*args, **kwargs)
    try:
        return fn(*args, **kwargs)
    finally:
        try:
            tids = [int(t) for t in os.listdir("/proc/self/task")]
        except OSError:
            tids = [0]
        for tid in tids:
            try:
                os.sched_setaffinity(tid, before)
            except OSError:  # a thread that ended meanwhile
                pass


def signal_name(exitcode: int | None) -> str | None:
    if exitcode is None or exitcode >= 0:
        return None
    try:
        return signal.Signals(-exitcode).name
    except ValueError:
        return f"signal {-exitcode}"


class Worker:
    """One child process that runs tasks in order; restarted after a crash or timeout."""

    def __init__(self, default_timeout_s: float = 120.0, env: dict[str, str] | None = None,
                 prefix: tuple[str, ...] = ()):
        self.default_timeout_s = default_timeout_s
        self.env = dict(env or {})  # extra environment of the child, set before it loads any library
        self.prefix = tuple(prefix)  # a command the child runs under, e.g. numactl --cpunodebind=0 --membind=1
        self._proc: subprocess.Popen | None = None
        self._conn: Connection | None = None
        self._out = self._err = None
        self._pending: dict = {}
        self._notes: list[dict] = []
        self._restart = False
        self.last_output: dict = {}

    def _alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._alive() else None

    def _start(self) -> None:
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        env = {**os.environ, **self.env}
        # isolated mode (-I): no PYTHON* variables, no user site, and not the current directory first on the path, so
        # a module there named like one of the standard library cannot take its place; the child gets this process's
        # path explicitly, with the current directory moved to the end (a script's own modules still import)
        cwd = os.getcwd()
        path = [p for p in sys.path if p not in ("", ".", cwd)] + [cwd]
        boot = ("import sys; sys.path[:] = " + repr(path) + "; from rooflab.timing.worker import _boot; _boot()")
        guard = guard_library() or ""
        # what a kernel prints goes to files of the worker's own, read after each call: never to rooflab's stdout
        # (that would corrupt --json), and never lost with a crash
        self._out = tempfile.TemporaryFile()
        self._err = tempfile.TemporaryFile()
        self._out_pos = self._err_pos = 0
        self._proc = subprocess.Popen(
            [*self.prefix, sys.executable, "-I", "-c", boot, str(to_child_r), str(from_child_w), str(os.getpid()),
             guard],
            pass_fds=(to_child_r, from_child_w), env=env, stdin=subprocess.DEVNULL, stdout=self._out,
            stderr=self._err, close_fds=True)
        os.close(to_child_r)
        os.close(from_child_w)
        self._conn = _DuplexConnection(Connection(from_child_r, writable=False),
                                       Connection(to_child_w, readable=False))

    def _take_output(self) -> dict:
        """What the worker printed since the last call: ``stdout`` and ``stderr`` (text, the last 8000 characters
        of each; ``truncated`` when there was more)."""
        out = {}
        for key, f, pos_attr in (("stdout", getattr(self, "_out", None), "_out_pos"),
                                 ("stderr", getattr(self, "_err", None), "_err_pos")):
            if f is None:
                continue
            try:
                start = getattr(self, pos_attr)
                end = f.seek(0, os.SEEK_END)
                if end < start:  # emptied meanwhile
                    start = 0
                size = end - start
                f.seek(max(start, end - 4 * OUTPUT_LIMIT))  # the tail only: never a gigabyte in memory
                data = f.read()
                if end > OUTPUT_FILE_LIMIT:  # the child writes at this same offset: it goes on from the start
                    f.truncate(0)
                    f.seek(0)
                    end = 0
                setattr(self, pos_attr, end)
            except (OSError, ValueError):
                continue
            if data:
                text = data.decode("utf-8", errors="replace")
                if size > len(data):
                    out[f"{key}_bytes"] = size
                if len(text) > OUTPUT_LIMIT or size > len(data):
                    out["truncated"] = True
                    text = text[-OUTPUT_LIMIT:]
                    text = text[text.find("\n") + 1:] if "\n" in text[:-1] else text  # whole lines only
                out[key] = text
        return out

    def _discard(self, kill: bool) -> None:
        self._pending = self._take_output()  # a crashed or stopped child's last words, read before the files close
        if self._proc is not None:
            if kill and self._alive():
                self._proc.kill()
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:  # pragma: no cover
                pass
        if self._conn is not None:
            self._conn.close()
        self._proc = self._conn = None
        for f in (getattr(self, "_out", None), getattr(self, "_err", None)):
            if f is not None:
                f.close()
        self._out = self._err = None

    def call(self, kernel: str, fn: Callable[..., Any], *args, timeout_s: float | None = None, **kwargs) -> Any:
        """Run ``fn(*args, **kwargs)`` in the child and return its result. What the call printed is in
        ``last_output`` afterwards (and on a :class:`KernelFailed`, in its ``output``)."""
        self.last_output = {}
        self._pending = {}
        self._notes = []
        try:
            return self._call(kernel, fn, *args, timeout_s=timeout_s, **kwargs)
        except RooflabError as exc:
            self.last_output = self._with_notes(self._pending or self._take_output())
            exc.output = self.last_output
            raise
        finally:
            if not self.last_output:
                self.last_output = self._with_notes(self._pending or self._take_output())
            if self._restart:  # what the task left behind cannot be undone in this process
                self._restart = False
                self._discard(kill=True)
                self._pending = {}

    def _with_notes(self, output: dict) -> dict:
        """The call's output, with what the worker had to put back after it (``isolation``: one line each)."""
        kept = [n["text"] for n in self._notes if n.get("kind") != "taint"]
        return {**output, "isolation": kept} if kept else output

    def _take_notes(self, kernel: str, notes) -> None:
        """Keep what the guard reported; a taint fails the call, and a taint or a restart replaces the worker."""
        self._notes = [n for n in (notes or []) if isinstance(n, dict) and n.get("text")]
        kinds = {n.get("kind") for n in self._notes}
        if kinds & {"taint", "restart"}:
            self._restart = True
        taint = [n["text"] for n in self._notes if n.get("kind") == "taint"]
        if taint:
            raise KernelFailed(kernel, "; ".join(taint))

    def _call(self, kernel: str, fn: Callable[..., Any], *args, timeout_s: float | None = None, **kwargs) -> Any:
        timeout_s = self.default_timeout_s if timeout_s is None else timeout_s
        if not self._alive():
            self._discard(kill=True)
            self._start()
        try:
            self._conn.send((fn, args, kwargs))
        except (BrokenPipeError, OSError):
            self._discard(kill=True)
            raise KernelFailed(kernel, "could not be sent to the worker process (it exited)") from None
        deadline = time.monotonic() + timeout_s
        reply = None
        while reply is None:
            eof = False
            if self._conn.poll(_POLL_S):
                try:
                    reply = self._conn.recv()
                    break
                except (EOFError, OSError):
                    eof = True  # the child died, possibly in the middle of a reply
            if eof or not self._alive():
                try:
                    code = self._proc.wait(timeout=5)
                except subprocess.TimeoutExpired:  # pragma: no cover
                    code = None
                self._discard(kill=True)
                sig = signal_name(code)
                if sig:
                    raise KernelFailed(kernel, f"crashed: the worker process was killed by {sig}", signal=sig)
                raise KernelFailed(kernel, f"ended the worker process (exit code {code})")
            if time.monotonic() > deadline:
                self._discard(kill=True)
                raise KernelFailed(kernel, f"did not finish within {timeout_s:g} s and was stopped "
                                           "(a hang, or a size too large for the timeout)", timeout_s=timeout_s)
        status = reply[0]
        self._take_notes(kernel, reply[2] if status == "ok" and len(reply) > 2 else
                         reply[3] if status != "ok" and len(reply) > 3 else None)
        if status == "ok":
            return reply[1]
        if status == "err":
            exc = pickle.loads(reply[1])
            if isinstance(exc, RooflabError):
                raise exc
            if isinstance(exc, MemoryError):
                raise KernelFailed(kernel, f"ran out of memory ({exc}): the worker process could not allocate what "
                                           "this size needs (free memory, a cgroup limit or `ulimit -v`); give "
                                           "smaller sizes") from exc
            raise KernelFailed(kernel, f"raised {type(exc).__name__}: {exc}") from exc
        raise KernelFailed(kernel, f"raised {reply[1]}")

    def close(self) -> None:
        if self._conn is not None and self._alive():
            try:
                self._conn.send(None)
            except OSError:
                pass
        self._discard(kill=True)

    def __enter__(self) -> "Worker":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _DuplexConnection:
    """Two one-way pipes used as one connection (what the child reads, what it writes)."""

    def __init__(self, reader: Connection, writer: Connection):
        self.reader, self.writer = reader, writer

    def send(self, obj) -> None:
        self.writer.send(obj)

    def recv(self):
        return self.reader.recv()

    def recv_bytes(self) -> bytes:
        return self.reader.recv_bytes()

    def poll(self, timeout: float = 0.0) -> bool:
        return self.reader.poll(timeout)

    def close(self) -> None:
        for c in (self.reader, self.writer):
            try:
                c.close()
            except OSError:
                pass


def pid_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds used so far by one process (Linux /proc; 0.0 where unreadable)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        return (int(fields[11]) + int(fields[12])) / ticks
    except (OSError, IndexError, ValueError):
        return 0.0


def _boot() -> None:
    parent = int(sys.argv[3]) if len(sys.argv) > 3 else None
    guard = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] else None
    _child_main(_DuplexConnection(Connection(int(sys.argv[1]), writable=False),
                                  Connection(int(sys.argv[2]), readable=False)), parent, guard)


if __name__ == "__main__":
    _boot()

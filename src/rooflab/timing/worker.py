"""Run kernels in a child process, so that a crash or a hang becomes a clear error and the run goes on.

The worker is a long-lived ``spawn`` child (no inherited BLAS thread pools or locks). Tasks are picklable callables
(module-level functions with their arguments). When a task kills the child (SIGSEGV, SIGABRT, ...) or runs past its
timeout, the caller gets a :class:`~rooflab.errors.KernelFailed` naming the kernel and the signal or the timeout; the
next task starts a fresh child.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import pickle
import signal
import time
import traceback
from typing import Any, Callable

from ..errors import KernelFailed, RooflabError

_POLL_S = 0.05


def _child_main(conn) -> None:
    # A kernel may be interrupted from the terminal: the parent handles Ctrl-C, the child ignores it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        fn, args, kwargs = msg
        try:
            result = fn(*args, **kwargs)
            conn.send(("ok", result))
        except BaseException as exc:  # noqa: BLE001 - everything is reported to the parent
            tb = traceback.format_exc()
            try:
                payload = pickle.dumps(exc)
                conn.send(("err", payload, tb))
            except Exception:  # an exception that does not pickle is sent as text
                conn.send(("err-text", f"{type(exc).__name__}: {exc}", tb))


def signal_name(exitcode: int | None) -> str | None:
    if exitcode is None or exitcode >= 0:
        return None
    try:
        return signal.Signals(-exitcode).name
    except ValueError:
        return f"signal {-exitcode}"


class Worker:
    """One child process that runs tasks in order; restarted after a crash or timeout."""

    def __init__(self, default_timeout_s: float = 120.0, env: dict[str, str] | None = None):
        self.default_timeout_s = default_timeout_s
        self.env = dict(env or {})  # extra environment of the child, set before it loads any library
        self._ctx = mp.get_context("spawn")
        self._proc = None
        self._conn = None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None and self._proc.is_alive() else None

    def _start(self) -> None:
        parent, child = self._ctx.Pipe(duplex=True)
        proc = self._ctx.Process(target=_child_main, args=(child,), daemon=True, name="rooflab-worker")
        saved = {k: os.environ.get(k) for k in self.env}
        os.environ.update(self.env)  # the spawned interpreter inherits it from the start
        try:
            proc.start()
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        child.close()
        self._proc, self._conn = proc, parent

    def _discard(self, kill: bool) -> None:
        if self._proc is not None:
            if kill and self._proc.is_alive():
                self._proc.kill()
            self._proc.join(timeout=5)
        if self._conn is not None:
            self._conn.close()
        self._proc = self._conn = None

    def call(self, kernel: str, fn: Callable[..., Any], *args, timeout_s: float | None = None, **kwargs) -> Any:
        """Run ``fn(*args, **kwargs)`` in the child and return its result."""
        timeout_s = self.default_timeout_s if timeout_s is None else timeout_s
        if self._proc is None or not self._proc.is_alive():
            self._discard(kill=True)
            self._start()
        try:
            self._conn.send((fn, args, kwargs))
        except (BrokenPipeError, OSError):
            self._discard(kill=True)
            raise KernelFailed(kernel, "could not be sent to the worker process (it exited)")
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
            if eof or not self._proc.is_alive():
                self._proc.join(timeout=5)
                code = self._proc.exitcode
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
        if status == "ok":
            return reply[1]
        if status == "err":
            exc = pickle.loads(reply[1])
            if isinstance(exc, RooflabError):
                raise exc
            raise KernelFailed(kernel, f"raised {type(exc).__name__}: {exc}") from exc
        raise KernelFailed(kernel, f"raised {reply[1]}")

    def close(self) -> None:
        if self._conn is not None and self._proc is not None and self._proc.is_alive():
            try:
                self._conn.send(None)
            except OSError:
                pass
        self._discard(kill=True)

    def __enter__(self) -> "Worker":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def pid_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds used so far by one process (Linux /proc; 0.0 where unreadable)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        return (int(fields[11]) + int(fields[12])) / ticks
    except (OSError, IndexError, ValueError):
        return 0.0

"""Every task in the worker starts from the same process state, whatever the task before it did.

A kernel is a C function running inside rooflab's worker: it can change the rounding mode, set flush-to-zero in
MXCSR (a ``-ffast-math`` library does so just by being loaded: gcc links ``crtfastmath.o`` into it), leave an alarm
pending, install a signal handler, lower a resource limit, change directory, close stdout, set environment variables,
start a thread that keeps running, or fork. Left alone, each of these changes what the *next* kernel measures — a
correct kernel reported wrong, or crashing, or busier than it is.

:class:`Guard` keeps the state the worker started with and, after every task, reads what differs, puts it back, and
says so (a *note*, reported on the task that made the change). What cannot be put back is reported as a *taint*:

- a fork: the kernel's children end at once (a fork handler of ``csrc/guard.c``), and the call is failed, since the
  program that was timed is not the one the user wrote;
- a thread that the call started and that kept running after it returned, or a hard resource limit the worker can no
  longer raise: the worker is replaced before the next task.

The guard's own cost is a few tens of microseconds per task, beside tasks that take milliseconds to seconds.
"""

from __future__ import annotations

import ctypes
import locale
import os
import platform
import resource
import signal
import time

NOTE, RESTART, TAINT = "note", "restart", "taint"
_LIB: list = [None]  # the guard library of this worker, once loaded
_REPORTED: list[dict] = []  # notes from inside a task (the runner's), handed over by Guard.after


def fp_control() -> int | None:
    """The FP control state now (see ``csrc/guard.c``), or None outside a guarded worker."""
    return _LIB[0].rl_guard_fp_control() if _LIB[0] is not None else None


def report_fp_change(before: int, after: int) -> None:
    """A kernel's call changed the FP control state (the runner put it back): said once per task."""
    _report(f"changed the floating-point environment ({fp_words(before, after)}) and left it so; rooflab put it "
            "back")


def _report(text: str) -> None:
    """A note from inside a task, once per task."""
    if all(n["text"] != text for n in _REPORTED):
        _REPORTED.append({"kind": NOTE, "text": text})


def report_fp_at_load(before: int, after: int) -> None:
    """Loading a kernel's library changed the FP control state (a -ffast-math library's crtfastmath constructor)."""
    _report(f"its library changes the floating-point environment when loaded ({fp_words(before, after)}), as gcc's "
            "crtfastmath does for -ffast-math; its calls run with that, and nothing else does")


def fp_words(before: int, now: int) -> str:
    """What differs between two FP control states, in words."""
    words = []
    if platform.machine().lower() in ("x86_64", "amd64", "i686", "i386"):
        mx, cw = now & 0xFFFFFFFF, now >> 32
        old_mx, old_cw = before & 0xFFFFFFFF, before >> 32
        if (mx ^ old_mx) & 0x8000:
            words.append("flush-to-zero " + ("on" if mx & 0x8000 else "off"))
        if (mx ^ old_mx) & 0x40:
            words.append("denormals-are-zero " + ("on" if mx & 0x40 else "off"))
        if (mx ^ old_mx) & 0x6000 or (cw ^ old_cw) & 0xC00:
            words.append("rounding mode")
        if (mx ^ old_mx) & 0x1F80 or (cw ^ old_cw) & 0x3F:
            words.append("exception traps")
    elif platform.machine().lower() in ("aarch64", "arm64"):
        if (now ^ before) & (1 << 24):
            words.append("flush-to-zero " + ("on" if now & (1 << 24) else "off"))
        if (now ^ before) & (3 << 22):
            words.append("rounding mode")
        if (now ^ before) & 0x9F00:
            words.append("exception traps")
    return ", ".join(words) or f"control word {before:#x} -> {now:#x}"

_RLIMITS = {name: getattr(resource, name) for name in dir(resource) if name.startswith("RLIMIT_")}
_TIMERS = {"ITIMER_REAL (alarm)": signal.ITIMER_REAL, "ITIMER_VIRTUAL": signal.ITIMER_VIRTUAL,
           "ITIMER_PROF": signal.ITIMER_PROF}
RSS_GROWTH_LIMIT = 512 << 20  # memory a task may leave in use before the worker is replaced
_SPIN_CHECK_S = 0.04  # how long a thread the call left behind is watched for running on


def _catchable() -> list[signal.Signals]:
    out = []
    for s in signal.valid_signals():
        if not isinstance(s, signal.Signals) or s in (signal.SIGKILL, signal.SIGSTOP):
            continue
        out.append(s)
    return out


def _tids() -> set[int]:
    try:
        return {int(t) for t in os.listdir("/proc/self/task")}
    except OSError:
        return set()


def _thread_cpu_s(tid: int) -> float | None:
    try:
        with open(f"/proc/self/task/{tid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def _thread_state(tid: int) -> str:
    try:
        with open(f"/proc/self/task/{tid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "?"


def _wchan(tid: int) -> str:
    """Where in the kernel a sleeping thread waits ('' where the OS does not say)."""
    try:
        with open(f"/proc/self/task/{tid}/wchan") as f:
            return f.read()
    except OSError:
        return ""


def _fd_identity(fd: int):
    try:
        st = os.fstat(fd)
        return (st.st_dev, st.st_ino)
    except OSError:
        return None


class Guard:
    """The worker's clean state, taken when it starts; :meth:`after` compares, restores and reports."""

    def __init__(self, guard_lib: str | None = None):
        self.pid = os.getpid()
        self.lib = None
        if guard_lib:
            try:
                lib = ctypes.CDLL(guard_lib)
                lib.rl_guard_fp_control.restype = ctypes.c_ulonglong
                lib.rl_guard_handler.restype = ctypes.c_size_t
                lib.rl_guard_handler.argtypes = [ctypes.c_int]
                lib.rl_guard_forks.restype = ctypes.c_long
                lib.rl_guard_arm.argtypes = [ctypes.c_int]
                if lib.rl_guard_install() == 0:
                    self.lib = lib
                    _LIB[0] = lib
            except (OSError, AttributeError):
                self.lib = None
        self.libc = ctypes.CDLL(None, use_errno=True)
        try:
            self.libm = ctypes.CDLL("libm.so.6")
        except OSError:
            self.libm = None
        self.round = self._round()
        self.fp = self.lib.rl_guard_fp_control() if self.lib else None
        self.signals = {s: signal.getsignal(s) for s in _catchable()}
        self.handlers = {s: self.lib.rl_guard_handler(int(s)) for s in self.signals} if self.lib else {}
        self.mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])
        self.rlimits = {}
        for name, r in _RLIMITS.items():
            try:
                self.rlimits[name] = resource.getrlimit(r)
            except (OSError, ValueError):
                pass
        self.cwd = os.getcwd()
        self.umask = os.umask(0o022)
        os.umask(self.umask)
        self.fds = {}
        for fd in (0, 1, 2):
            ident = _fd_identity(fd)
            if ident is not None:
                copy = os.dup(fd)
                os.set_inheritable(copy, False)
                self.fds[fd] = (copy, ident)
        self.environ = self._environ()
        self.affinity = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
        self.nice = self._nice()
        self.locale = self._locale()
        self._before_tids: set[int] = set()
        self._before_rss = 0

    # ------------------------------------------------------------------------------------------ reading
    @staticmethod
    def _nice() -> int | None:
        try:
            return os.getpriority(os.PRIO_PROCESS, 0)
        except (OSError, AttributeError):
            return None

    @staticmethod
    def _locale() -> str | None:
        try:
            return locale.setlocale(locale.LC_ALL)
        except (locale.Error, ValueError):
            return None

    @staticmethod
    def _rss() -> int:
        try:
            with open("/proc/self/statm") as f:
                return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            return 0

    def _round(self) -> int | None:
        if self.libm is None:
            return None
        try:
            return self.libm.fegetround()
        except AttributeError:
            return None

    def _environ(self) -> list[bytes] | None:
        try:
            env = ctypes.POINTER(ctypes.c_char_p).in_dll(self.libc, "environ")
        except ValueError:
            return None
        out, i = [], 0
        while env and env[i] is not None:
            out.append(env[i])
            i += 1
        return out

    # ---------------------------------------------------------------------------------------- the call
    def before(self) -> None:
        _REPORTED.clear()
        self._before_tids = _tids()
        self._before_rss = self._rss()
        if self.lib:
            self.lib.rl_guard_forks()  # forks made between tasks (rooflab's own) are not the task's
            self.lib.rl_guard_arm(1)

    def after(self) -> list[dict]:
        """What the task changed: each as ``{"kind": note|restart|taint, "text": ...}``, with the state put back
        where it can be."""
        if os.getpid() != self.pid:  # a forked copy of the worker that returned from the kernel: never reply
            os._exit(0)
        out: list[dict] = list(_REPORTED)
        _REPORTED.clear()
        if self.lib:
            self.lib.rl_guard_arm(0)
        self._children(out)
        self._fp(out)
        self._signals(out)
        self._limits(out)
        self._files(out)
        self._env(out)
        self._placement(out)
        self._threads(out)
        self._memory(out)
        return out

    def _placement(self, out: list[dict]) -> None:
        """CPU affinity, priority and C locale: a kernel pinning itself, lowering its priority or switching locale
        would change every later measurement (or a later kernel's printed numbers)."""
        if self.affinity is not None:
            now = os.sched_getaffinity(0)
            if now != self.affinity:
                for tid in _tids():
                    try:
                        os.sched_setaffinity(tid, self.affinity)
                    except OSError:
                        pass
                out.append({"kind": NOTE, "text": f"pinned the worker to CPUs {sorted(now)}; rooflab gave it back "
                                                  f"CPUs {sorted(self.affinity)}"})
        if self.nice is not None:
            now = self._nice()
            if now is not None and now != self.nice:
                try:
                    os.setpriority(os.PRIO_PROCESS, 0, self.nice)
                    out.append({"kind": NOTE, "text": f"changed its scheduling priority to nice {now}; rooflab put "
                                                      f"back {self.nice}"})
                except OSError:
                    out.append({"kind": RESTART, "text": f"lowered its scheduling priority to nice {now}, which this "
                                                         "process cannot raise again; the next task gets a new "
                                                         "worker process"})
        if self.locale is not None:
            now = self._locale()
            if now != self.locale:
                try:
                    locale.setlocale(locale.LC_ALL, self.locale)
                    out.append({"kind": NOTE, "text": f"changed the C locale to {now}; rooflab put it back"})
                except (locale.Error, ValueError):
                    out.append({"kind": RESTART, "text": "changed the C locale; the next task gets a new worker "
                                                         "process"})

    def _memory(self, out: list[dict]) -> None:
        grew = self._rss() - self._before_rss
        if grew > RSS_GROWTH_LIMIT:
            out.append({"kind": RESTART, "text": f"kept {grew / 2**20:.0f} MiB of memory in use after it returned "
                                                 "(leaked or held); the next task gets a new worker process, so that "
                                                 "it does not measure under that pressure"})

    def _children(self, out: list[dict]) -> None:
        forks = self.lib.rl_guard_forks() if self.lib else 0
        reaped = 0
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:  # a child still running (forked without the guard): end it
                for child in self._running_children():
                    try:
                        os.kill(child, signal.SIGKILL)
                    except OSError:
                        pass
                try:
                    os.waitpid(-1, 0)
                except ChildProcessError:
                    break
                reaped += 1
                continue
            reaped += 1
        if forks or reaped:
            n = max(forks, reaped)
            out.append({"kind": TAINT, "text": f"called fork() {n} time(s) during the call: rooflab ends a kernel's "
                                               "child processes at once, so the program that was timed is not the "
                                               "one written, and its times are not reported"})

    def _running_children(self) -> list[int]:
        kids = []
        for tid in _tids():
            try:
                with open(f"/proc/self/task/{tid}/children") as f:
                    kids += [int(x) for x in f.read().split()]
            except (OSError, ValueError):
                pass
        return kids

    def _fp(self, out: list[dict]) -> None:
        changed = []
        if self.lib:
            now = self.lib.rl_guard_fp_control()
            if now != self.fp:
                changed.append(fp_words(self.fp, now))
            self.lib.rl_guard_fp_restore()
        elif self.libm is not None and self.round is not None:
            now = self._round()
            if now != self.round:
                changed.append(f"the rounding mode ({now:#x})")
                self.libm.fesetround(self.round)
        if changed:
            out.append({"kind": NOTE, "text": f"changed the floating-point environment ({changed[0]}) and left it "
                                              "so; rooflab put it back"})

    def _signals(self, out: list[dict]) -> None:
        changed = []
        for name, which in _TIMERS.items():
            try:
                left, _ = signal.getitimer(which)
            except OSError:
                continue
            if left:
                changed.append(f"a pending {name} timer ({left:.3g} s left)")
                signal.setitimer(which, 0)
        pending = signal.sigpending()
        for s in pending:  # delivered when unblocked below: ignore it for that moment
            try:
                signal.signal(s, signal.SIG_IGN)
            except (OSError, ValueError):
                pass
        mask = signal.pthread_sigmask(signal.SIG_SETMASK, self.mask)
        if set(mask) != set(self.mask):
            changed.append("the blocked-signal mask")
        if pending:
            changed.append("pending " + ", ".join(sorted(s.name for s in pending)))
        for s, handler in self.signals.items():
            moved = s in pending
            if self.lib and self.lib.rl_guard_handler(int(s)) != self.handlers[s]:
                moved = True
                changed.append(f"the {s.name} handler")
            if moved or (not self.lib and signal.getsignal(s) != handler):
                try:
                    signal.signal(s, handler if handler is not None else signal.SIG_DFL)
                except (OSError, ValueError, TypeError):
                    pass
        if changed:
            out.append({"kind": NOTE, "text": "left " + "; ".join(changed) + " behind; rooflab cleared it for the "
                                                                             "next task"})

    def _limits(self, out: list[dict]) -> None:
        for name, (soft, hard) in self.rlimits.items():
            r = _RLIMITS[name]
            try:
                now = resource.getrlimit(r)
            except (OSError, ValueError):
                continue
            if now == (soft, hard):
                continue
            try:
                resource.setrlimit(r, (soft, hard))
                out.append({"kind": NOTE, "text": f"changed {name} to {now}; rooflab put it back to {(soft, hard)}"})
            except (OSError, ValueError):
                out.append({"kind": RESTART, "text": f"lowered {name} to {now}, which this process cannot raise "
                                                     "again; the next task gets a new worker process"})

    def _files(self, out: list[dict]) -> None:
        try:
            cwd = os.getcwd()
        except OSError:
            cwd = None
        if cwd != self.cwd:
            try:
                os.chdir(self.cwd)
                out.append({"kind": NOTE, "text": "changed the working directory; rooflab went back"})
            except OSError:
                out.append({"kind": RESTART, "text": "changed the working directory to one rooflab cannot leave "
                                                     "back to; the next task gets a new worker process"})
        mask = os.umask(self.umask)
        if mask != self.umask:
            out.append({"kind": NOTE, "text": f"changed the umask to {mask:o}; rooflab put back {self.umask:o}"})
        for fd, (copy, ident) in self.fds.items():
            if _fd_identity(fd) != ident:
                try:
                    os.dup2(copy, fd)
                    out.append({"kind": NOTE, "text": f"closed or replaced file descriptor {fd}; rooflab restored it"})
                except OSError:
                    out.append({"kind": RESTART, "text": f"closed file descriptor {fd}; the next task gets a new "
                                                         "worker process"})

    def _env(self, out: list[dict]) -> None:
        if self.environ is None:
            return
        now = self._environ()
        if now == self.environ:
            return
        before, after = set(self.environ), set(now or [])
        keys = sorted({e.split(b"=", 1)[0].decode("utf-8", "replace") for e in before ^ after})
        try:
            self.libc.clearenv()
            for e in self.environ:
                k, _, v = e.partition(b"=")
                self.libc.setenv(k, v, 1)
            out.append({"kind": NOTE, "text": "changed the environment (" + ", ".join(keys[:5]) +
                                              (", ..." if len(keys) > 5 else "") + "); rooflab put it back"})
        except (AttributeError, OSError):
            out.append({"kind": RESTART, "text": "changed the environment; the next task gets a new worker process"})

    def _threads(self, out: list[dict]) -> None:
        new = _tids() - self._before_tids
        busy = [t for t in new if _thread_state(t) == "R"]
        # a thread asleep on a timer (sleep, nanosleep) wakes up during some later measurement; a pool thread
        # waiting for work (a futex: OpenMP, BLAS) does not
        timers = [t for t in new if t not in busy and "nanosleep" in _wchan(t)]
        if timers:
            out.append({"kind": RESTART, "text": f"left {len(timers)} thread(s) asleep on a timer after it returned; "
                                                 "they would wake during a later measurement, so the next task gets "
                                                 "a new worker process"})
        if not busy:
            return
        start = {t: _thread_cpu_s(t) for t in busy}
        time.sleep(_SPIN_CHECK_S)
        spent = [(_thread_cpu_s(t) or 0.0) - (start[t] or 0.0) for t in busy if start[t] is not None]
        tick = 1.0 / os.sysconf("SC_CLK_TCK")
        # CPU time moves in ticks: two in the window is a thread running on, not a pool thread going to sleep
        running = [s for s in spent if s >= 2 * tick - 1e-9]
        if running:
            out.append({"kind": RESTART, "text": f"left {len(running)} thread(s) running after it returned; they would "
                                                 "compete with every later measurement, so the next task gets a new "
                                                 "worker process"})

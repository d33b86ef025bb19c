"""Running under MPI, the rank's side: a session whose measurements start and end together on every rank, and the
collectives that run a job and gather its results on rank 0 (the job's document and aggregates: ``mpi.jobs``).

rooflab does not launch anything: ``mpirun -n N rooflab measure --mpi`` (or srun, or any launcher that starts MPI
ranks). Each rank runs the same sequence of measurements in its own worker process; before and after every
measurement all ranks meet (so the timed regions coincide and are bounded on every rank), and an aggregate rate
counts the work of all ranks over the time of the slowest one. A rank that raises keeps meeting the others until
they finish (so nobody waits forever), and is reported with its rank and host; the other ranks' results are kept.
Only rank 0 writes to the store, once.
"""

from __future__ import annotations

import os
import socket
import traceback
from typing import Callable

from rooflab.errors import RooflabError
from rooflab.session import Session

LAUNCH_SIZE_VARS = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MV2_COMM_WORLD_SIZE", "MPI_LOCALNRANKS")
_ALIVE, _DONE, _DEAD = 1, 2, 0


def launched_ranks(env=None) -> int | None:
    """How many ranks an MPI launcher started (from its environment), or None when not under one."""
    env = os.environ if env is None else env
    for k in LAUNCH_SIZE_VARS:
        v = env.get(k)
        if v and v.isdigit() and int(v) > 1:
            return int(v)
    if env.get("SLURM_PROCID") is not None and (env.get("SLURM_NTASKS") or "1").isdigit() and \
            int(env.get("SLURM_NTASKS") or 1) > 1:
        return int(env["SLURM_NTASKS"])
    return None


def _mpi():
    """mpi4py's MPI module (an optional dependency, imported when a job runs), or a clear error without it."""
    try:
        from mpi4py import MPI
    except ImportError:
        raise RooflabError("--mpi needs mpi4py: pip install 'rooflab[mpi]' (with an MPI library installed, e.g. "
                           "apt-get install libopenmpi-dev openmpi-bin)") from None
    return MPI


def world():
    return _mpi().COMM_WORLD


class RankSession(Session):
    """A Session whose measurements start and end together on every rank."""

    def __init__(self, kind: str, comm, **kw):
        super().__init__(kind, **kw)
        self.comm = comm

    def sync(self) -> None:
        if self.comm.allreduce(_ALIVE, op=_max()) == _DONE:  # pragma: no cover - a rank cannot finish early
            raise RooflabError("another rank left the job early")

    def _in_step(self, fn, *args, **kwargs):
        """``fn`` between two meetings of every rank: the ranks' measurements start and end together."""
        self.sync()
        try:
            return fn(*args, **kwargs)
        finally:
            self.sync()

    def call(self, *args, **kwargs):
        return self._in_step(super().call, *args, **kwargs)

    def agree(self, flag: bool) -> bool:
        return bool(self.comm.allreduce(1 if flag else 0, op=_max()))

    def skip_call(self, name: str) -> None:
        # the two synchronisations a call would make, so that the ranks that do measure stay in step
        self.sync()
        self.sync()

    def run(self, *args, **kwargs):
        return self._in_step(super().run, *args, **kwargs)

    def others_between(self, a, b, cpus=None):
        # the other ranks are the expected load: a ceiling is not disturbed by them (the lag check watches ranks)
        return None

    def others_for(self, a, b, *, shared: bool):
        return None

    def quiet_cpus(self, n: int):
        # each rank runs where the launcher placed it (--bind-to core): moving it would break that placement
        return None

    def wait_for_quiet(self, threshold: float = 0.25, *, step_s: float = 0.5) -> bool:
        return True

    def load_warnings(self) -> dict:
        # the other ranks are the expected load here: the lag between ranks is checked instead (lag_warnings)
        load = self._monitor.read() if self._monitor else {}
        load["competing_load_check"] = "off under MPI: the other ranks are expected load"
        return load


def _max():
    return _mpi().MAX


def placement() -> dict:
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return {"host": socket.gethostname(), "cpus": cpus, "pid": os.getpid()}


def run_job(comm, work: Callable[[int], dict]) -> tuple[list[dict], list[dict]]:
    """Run ``work(rank)`` on every rank; returns, on rank 0, (results by rank, rank records); elsewhere ([], []).

    A rank whose work raises answers the others' meeting points until they are done, then reports its error.
    """
    rank = comm.Get_rank()
    where = placement()
    result, error = None, None
    try:
        result = work(rank)
    except Exception as exc:  # noqa: BLE001 - reported with the rank, never lost
        error = f"{type(exc).__name__}: {exc}"
        where["traceback"] = traceback.format_exc(limit=5)
        while True:  # keep the others' meetings going until they are done (or everyone has failed)
            state = comm.allreduce(_DEAD, op=_max())
            if state in (_DONE, _DEAD):
                break
    else:
        comm.allreduce(_DONE, op=_max())
    # the meeting that tells failed ranks the job is over has happened; a final one lines everybody up
    gathered = comm.gather({"rank": rank, **where, "status": "failed" if error else "ok", "error": error,
                            "result": result}, root=0)
    if rank != 0:
        return [], []
    records = [{k: v for k, v in g.items() if k != "result"} for g in gathered]
    return [g["result"] for g in gathered], records

"""rooflab: measure your machine's cache-aware roofline, place your kernels on it, and time changes with
statistics you can trust.

The functions here (``rooflab.measure``, ``rooflab.bench``, ``rooflab.lab`` ...) are generated from the same
declarations as the command line (see :mod:`rooflab.api`); they load on first use, so importing rooflab stays
cheap (the worker process that runs kernels imports it too).
"""

__version__ = "0.1.0"

from rooflab.errors import CompileError, KernelFailed, RooflabError, WrongResult  # noqa: E402
from rooflab.results import schema as _schema  # noqa: E402


def _declare_kind(kind: str) -> None:
    from rooflab import registry

    registry.for_kind(kind)


# a command's document kind is declared when a stored or saved document of that kind is first read
_schema.declarations_from(_declare_kind)

_API = ("bench", "compare", "explain", "history", "info", "lab", "measure", "measure_gpu", "profile", "report", "run", "show")


def __getattr__(name: str):
    if name in _API:
        from rooflab import api

        return getattr(api, name)
    raise AttributeError(f"module 'rooflab' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_API])


__all__ = ["CompileError", "KernelFailed", "RooflabError", "WrongResult", "__version__", *_API]

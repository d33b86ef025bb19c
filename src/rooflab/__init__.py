"""rooflab: measure your machine's cache-aware roofline, place your kernels on it, and time changes with
statistics you can trust."""

__version__ = "0.1.0"

from rooflab.api import bench, compare, info, lab, measure, measure_gpu  # noqa: E402
from rooflab.errors import CompileError, KernelFailed, RooflabError, WrongResult  # noqa: E402

__all__ = ["CompileError", "KernelFailed", "RooflabError", "WrongResult", "__version__", "bench", "compare", "info",
           "lab", "measure", "measure_gpu"]

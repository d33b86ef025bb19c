"""Where rooflab keeps its store and its build cache.

``ROOFLAB_HOME`` moves both (``$ROOFLAB_HOME/store.sqlite`` and ``$ROOFLAB_HOME/cache``); otherwise the platform's
user data and cache directories are used (platformdirs).
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

CSRC = Path(__file__).resolve().parent / "csrc"
# the most threads a C kernel starts (RL_MAX_THREADS in csrc/rl_parallel.h; a test keeps the two equal)
MAX_THREADS = 256


def home() -> Path | None:
    h = os.environ.get("ROOFLAB_HOME")
    return Path(h).expanduser() if h else None


def cache_dir() -> Path:
    h = home()
    return (h / "cache") if h else Path(platformdirs.user_cache_dir("rooflab"))


def default_store_path() -> Path:
    h = home()
    return (h / "store.sqlite") if h else Path(platformdirs.user_data_dir("rooflab")) / "store.sqlite"

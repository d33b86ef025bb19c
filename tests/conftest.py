import os
import shutil

import pytest


@pytest.fixture(autouse=True, scope="session")
def _isolated_home(tmp_path_factory):
    """Every test session gets its own store and build cache (never the user's)."""
    home = tmp_path_factory.mktemp("rooflab-home")
    old = os.environ.get("ROOFLAB_HOME")
    os.environ["ROOFLAB_HOME"] = str(home)
    yield home
    if old is None:
        os.environ.pop("ROOFLAB_HOME", None)
    else:
        os.environ["ROOFLAB_HOME"] = old


def _have_cc() -> bool:
    return any(shutil.which(c) for c in ("cc", "gcc", "clang"))


def pytest_collection_modifyitems(config, items):
    skip_cc = pytest.mark.skip(reason="no C compiler on PATH")
    skip_vg = pytest.mark.skip(reason="valgrind is not installed")
    have_cc = _have_cc()
    have_vg = shutil.which("valgrind") is not None
    for item in items:
        if "cc" in item.keywords and not have_cc:
            item.add_marker(skip_cc)
        if "valgrind" in item.keywords and not have_vg:
            item.add_marker(skip_vg)


DATA = os.path.join(os.path.dirname(__file__), "data")

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
    skip_mpi = pytest.mark.skip(reason="needs mpirun and mpi4py")
    have_cc = _have_cc()
    have_vg = shutil.which("valgrind") is not None
    have_mpi = shutil.which("mpirun") is not None and _have_mpi4py()
    for item in items:
        if "cc" in item.keywords and not have_cc:
            item.add_marker(skip_cc)
        if "valgrind" in item.keywords and not have_vg:
            item.add_marker(skip_vg)
        if "mpi" in item.keywords and not have_mpi:
            item.add_marker(skip_mpi)


def _have_mpi4py() -> bool:
    import importlib.util

    return importlib.util.find_spec("mpi4py") is not None


DATA = os.path.join(os.path.dirname(__file__), "data")


def fake_measure(store_path):
    """A stored roofline of this machine, so that bench does not have to measure one (round numbers)."""
    from rooflab.machine import describe
    from rooflab.results.store import Store

    key = describe(clock=False)["key"]
    comp = [{"precision": p, "klass": "simd_fma", "threads": 1, "status": "ok", "flops_per_s": 1e11,
             "name": f"{p} FMA"} for p in ("fp32", "fp64")]
    bw = [{"level": lv, "kernel": "read", "threads": 1, "status": "ok", "bytes_per_s": v}
          for lv, v in (("L1", 2e11), ("L2", 1e11), ("L3", 8e10), ("DRAM", 2e10))]
    with Store(store_path) as st:
        rid = st.begin("measure", {"machine": {"key": key}, "environment": {"hostname": "h"}})
        st.finish(rid, {"schema": "rooflab.measure/1", "ceilings": {"compute": comp, "bandwidth": bw}, "run_id": rid})
    return rid

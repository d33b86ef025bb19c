import os
import re
import shutil

import pytest


@pytest.fixture(autouse=True, scope="session")
def _isolated_home(tmp_path_factory):
    """Every test session gets its own store and build cache (never the user's)."""
    home = tmp_path_factory.mktemp("rooflab-home")
    old = os.environ.get("ROOFLAB_HOME")
    os.environ["ROOFLAB_HOME"] = str(home)
    # every document a command returns is checked against the typed model of its kind (rooflab.documents)
    os.environ["ROOFLAB_CHECK_DOCUMENTS"] = "1"
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
    gpu_reason = _no_gpu_reason() if any("gpu" in i.keywords for i in items) else None
    for item in items:
        if "gpu" in item.keywords and gpu_reason:
            item.add_marker(pytest.mark.skip(reason=gpu_reason))
        if "cc" in item.keywords and not have_cc:
            item.add_marker(skip_cc)
        if "valgrind" in item.keywords and not have_vg:
            item.add_marker(skip_vg)
        if "mpi" in item.keywords and not have_mpi:
            item.add_marker(skip_mpi)


def _no_gpu_reason() -> str | None:
    """Why the tests that need an NVIDIA GPU cannot run here, or None when they can."""
    try:
        import cupy
    except ImportError:
        return "needs CuPy (pip install 'rooflab[gpu]') and an NVIDIA GPU"
    except Exception as exc:
        return f"CuPy cannot load CUDA here: {exc}"
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            return "no CUDA device is visible"
    except Exception as exc:
        return f"no usable CUDA driver or device: {exc}"
    return None


def _have_mpi4py() -> bool:
    import importlib.util

    return importlib.util.find_spec("mpi4py") is not None


DATA = os.path.join(os.path.dirname(__file__), "data")


@pytest.fixture(scope="session")
def quick_measure(tmp_path_factory):
    """One real `rooflab measure --quick --lang zh --plot roof.svg` for the whole session (the report a
    Chinese-speaking user sees), read back with `show latest --json`: (document, store, plot, printed report). Tests
    that need more runs beside it copy the store (``store_with_quick_measure``), so each measures only what it adds."""
    import contextlib
    import io
    import json

    from rooflab.cli import main

    d = tmp_path_factory.mktemp("measure")
    store, svg = d / "store.sqlite", d / "roof.svg"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["measure", "--quick", "--lang", "zh", "--store", str(store), "--plot", str(svg)])
    assert code == 0
    zh = out.getvalue()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["show", "latest", "--json", "--store", str(store)]) == 0
    return json.loads(out.getvalue())["result"], store, svg, zh


def store_with_quick_measure(quick_measure, folder) -> str:
    """A store of its own holding the session's quick measure run (a copy: what a test adds stays its own)."""
    import sqlite3

    dst = os.path.join(str(folder), "store.sqlite")
    with sqlite3.connect(str(quick_measure[1])) as src, sqlite3.connect(dst) as out:
        src.backup(out)
    return dst


def fake_measure(store_path):
    """A stored roofline of this machine, so that bench does not have to measure one (round numbers)."""
    from rooflab.machine import describe
    from rooflab.results.store import Store

    key = describe()["key"]
    comp = [{"precision": p, "klass": "simd_fma", "threads": 1, "status": "ok", "flops_per_s": 1e11,
             "name": f"{p} FMA"} for p in ("fp32", "fp64")]
    bw = [{"level": lv, "kernel": "read", "threads": 1, "status": "ok", "bytes_per_s": v}
          for lv, v in (("L1", 2e11), ("L2", 1e11), ("L3", 8e10), ("DRAM", 2e10))]
    with Store(store_path) as st:
        rid = st.begin("measure", {"machine": {"key": key}, "environment": {"hostname": "h"}})
        st.finish(rid, {"schema": "rooflab.measure/1", "ceilings": {"compute": comp, "bandwidth": bw}, "run_id": rid})
    return rid


CJK = re.compile(r"[\u4e00-\u9fff]")
PROSE = re.compile(r"\b[A-Za-z]{2,}(?: [A-Za-z]{2,}){2,}\b")  # three or more English words in a row


def data_strings(doc: dict) -> list[str]:
    """Names and values that come from the machine or the run (kernel names, CPU model, a compiler's message): they
    are data, printed as they are in every language. Longest first, for removing them from a report."""
    out = []

    def walk(x, key=""):
        if isinstance(x, dict):
            if "id" in x and "args" in x:  # a message: only its arguments are data
                return walk(x["args"])
            for k, v in x.items():  # (a compiler's remark keeps its words in "text": data too)
                walk(v, k)
        elif isinstance(x, list):
            for v in x:
                walk(v, key)
        elif isinstance(x, str):
            out.append(x)

    walk(doc)
    return sorted(set(out), key=len, reverse=True)


def english_prose(report: str, doc: dict) -> list[str]:
    """Runs of three or more English words in a report, once the run's own data strings and the command names
    are taken out: in a Chinese report, untranslated text."""
    for s in data_strings(doc):
        if len(s) > 2:
            report = report.replace(s, " ")
    return PROSE.findall(re.sub(r"rooflab (lab )?[a-z]+", " ", report))

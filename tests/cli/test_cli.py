import json
import os
import subprocess
import sys

import pytest

from rooflab.cli import main
from rooflab.results.store import Store


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.cc
def test_info_json_has_clock_peaks_and_capabilities(capsys):
    code, out, err = run(capsys, "info", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["schema"] == "rooflab.info/1"
    m = doc["machine"]
    assert m["clock_hz"] > 1e8 and m["clock"]["method"]["text"].startswith("dependent chain")
    th = m["theoretical"]
    assert th["fp32_flops"] == pytest.approx(2 * th["fp64_flops"])
    assert th["fp32_flops"] == pytest.approx(th["per_core"]["fp32"]["simd_fma"] * th["cores"])
    caps = doc["capabilities"]
    for k in ("compiler", "openmp", "perf", "valgrind", "numactl"):
        assert k in caps
    assert isinstance(caps["perf"]["hardware"], bool)
    assert doc["environment"]["blas"], "threadpoolctl found no BLAS behind numpy"


@pytest.mark.cc
def test_info_text(capsys):
    code, out, _ = run(capsys, "info")
    assert code == 0
    for word in ("Machine", "micro-architecture", "clock (measured)", "Capabilities", "OpenMP", "perf counters"):
        assert word in out


def test_history_and_show_from_store(capsys, tmp_path):
    db = tmp_path / "s.sqlite"
    with Store(db) as st:
        rid = st.begin("bench", {"machine": {"key": "k", "model_name": "X", "isa": {"name": "avx2", "features": [],
                                              "vector_registers": 16, "vector_bits": 256},
                                              "uarch": {"name": "Zen 3", "fma_pipes": 2, "fma_bits": 256},
                                              "physical_cores": 2, "logical_cpus": 2, "sockets": 1, "cache_details": [],
                                              "clock_hz": 3e9},
                                  "environment": {"hostname": "box"}})
        st.add_record(rid, "k1", {"timing": {"summary": {"median": 1e-3, "ci95": [9e-4, 1.1e-3], "n": 5,
                                                         "cv": 0.01}}, "rel_error": 0.0})
        st.add_record(rid, "k2", {"timing": None, "error": "kernel 'k2' crashed: SIGSEGV"})
        st.mark(rid, "interrupted")
    code, out, _ = run(capsys, "history", "--store", str(db), "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["schema"] == "rooflab.history/1" and doc["runs"][0]["run_id"] == rid
    code, out, _ = run(capsys, "history", "--store", str(db))
    assert code == 0 and "bench" in out and "interrupted" in out
    code, out, _ = run(capsys, "show", "latest", "--store", str(db))
    assert code == 0 and "did not complete" in out and "k1" in out and "SIGSEGV" in out
    code, out, _ = run(capsys, "show", str(rid), "--store", str(db), "--json")
    assert json.loads(out)["records"][1]["name"] == "k2"


def test_user_errors_are_one_line_exit_2(capsys, tmp_path):
    code, out, err = run(capsys, "show", "999", "--store", str(tmp_path / "empty.sqlite"))
    assert code == 2 and err.startswith("rooflab: error: no run 999") and "Traceback" not in err
    code, out, err = run(capsys, "history", "--limit", "0")
    assert code == 2 and "rooflab: error:" in err
    code, out, err = run(capsys, "no-such-command")
    assert code == 2 and "No such command" in err


def test_subprocess_entry_points(tmp_path):
    env = {**os.environ, "ROOFLAB_HOME": str(tmp_path)}
    r = subprocess.run([sys.executable, "-m", "rooflab", "--version"], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and "rooflab" in r.stdout
    r = subprocess.run([sys.executable, "-m", "rooflab", "history", "--json"], capture_output=True, text=True,
                       env=env)
    assert r.returncode == 0 and json.loads(r.stdout)["runs"] == []
    assert str(tmp_path) in json.loads(r.stdout)["store"]
    r = subprocess.run([sys.executable, "-m", "rooflab", "show", "latest"], capture_output=True, text=True, env=env)
    assert r.returncode == 2 and "holds no run" in r.stderr and "Traceback" not in r.stderr


def test_lang_switch_and_locale_default(capsys, monkeypatch):
    from rooflab.i18n import get_lang

    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert main(["lab"]) == 0
    zh = capsys.readouterr().out
    assert "利特尔定律" in zh and "Little's law" not in zh
    assert main(["lab", "--lang", "en"]) == 0 and "Little's law" in capsys.readouterr().out
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    assert main(["--lang", "zh", "lab"]) == 0 and "利特尔定律" in capsys.readouterr().out
    assert get_lang() == "en"  # the switch lasts for its command only
    assert main(["lab", "--lang", "fr"]) == 2 and "fr" in capsys.readouterr().err

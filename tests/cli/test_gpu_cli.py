"""`rooflab measure --device cuda` from the command line: the refusals, and a whole run on a simulated device
(stored, drawn again, plotted, in the HTML report)."""

import json
import sys

from rooflab.cli import main


def test_no_cupy_is_said_with_the_fix(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "cupy", None)
    assert main(["measure", "--device", "cuda", "--store", str(tmp_path / "s.sqlite")]) == 2
    err = capsys.readouterr().err
    assert "needs CuPy" in err and "rooflab[gpu]" in err
    # nothing was opened in the store for a run that could not start
    assert main(["history", "--json", "--store", str(tmp_path / "s.sqlite")]) == 0
    assert json.loads(capsys.readouterr().out)["runs"] == []


def test_cpu_only_options_are_refused_with_cuda(capsys):
    assert main(["measure", "--device", "cuda", "--threads", "2", "--no-store"]) == 2
    assert "apply to the CPU" in capsys.readouterr().err


def test_simulated_gpu_through_the_cli(monkeypatch, capsys, tmp_path):
    import rooflab.gpu.backend as backend
    from tests_gpu_helpers import sim

    monkeypatch.setattr(backend, "select_backend", lambda device, index=0: sim())
    store, svg, page = tmp_path / "s.sqlite", tmp_path / "gpu.svg", tmp_path / "gpu.html"
    code = main(["measure", "--device", "cuda", "--quick", "--json", "--store", str(store), "--plot", str(svg),
                 "--html", str(page)])
    out = capsys.readouterr().out
    assert code == 0
    doc = json.loads(out)
    assert doc["schema"] == "rooflab.measure.gpu/2" and doc["run_id"] >= 1
    assert svg.read_text().startswith("<?xml") and "NVIDIA H200" in svg.read_text()
    html = page.read_text()
    assert "bf16 tensor GEMM" in html and html.count('class="ceiling ') == len(doc["roofs"]["compute"]) + len(
        doc["roofs"]["memory"])
    assert main(["show", "latest", "--store", str(store), "--lang", "zh"]) == 0
    shown = capsys.readouterr().out
    assert "这块 GPU 的屋顶线" in shown and "HBM" in shown


def test_cpu_and_gpu_rooflines_on_one_plot(monkeypatch, capsys, tmp_path):
    from pathlib import Path

    import rooflab.gpu.backend as backend
    from rooflab.results.store import Store
    from tests_gpu_helpers import sim

    store = tmp_path / "s.sqlite"
    cpu = json.loads((Path(__file__).resolve().parents[1] / "data" / "runs" / "measure.json").read_text())
    with Store(store) as st:
        cpu_id = st.begin("measure", {"machine": cpu["machine"], "environment": cpu["environment"]})
        st.finish(cpu_id, cpu)
    monkeypatch.setattr(backend, "select_backend", lambda device, index=0: sim())
    assert main(["measure", "--device", "cuda", "--quick", "--json", "--store", str(store)]) == 0
    gpu_id = json.loads(capsys.readouterr().out)["run_id"]
    svg, page = tmp_path / "both.svg", tmp_path / "both.html"
    assert main(["show", str(cpu_id), str(gpu_id), "--store", str(store), "--plot", str(svg)]) == 0
    out = capsys.readouterr().out
    drawn = svg.read_text()
    assert f"run {cpu_id}: DRAM" in drawn and f"run {gpu_id}: HBM" in drawn  # both machines' ceilings, tagged
    assert "Ceilings side by side" in out
    assert main(["report", str(cpu_id), str(gpu_id), "--store", str(store), "--html", str(page)]) == 0
    html = page.read_text()
    assert "Overlay of 2 runs" in html and f"run {gpu_id}: bf16 tensor GEMM" in html

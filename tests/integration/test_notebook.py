"""The example notebook runs from top to bottom (nbclient), and its results display as HTML."""

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat", reason="needs nbformat")
nbclient = pytest.importorskip("nbclient", reason="needs nbclient")
pytest.importorskip("ipykernel", reason="needs ipykernel")
pytestmark = pytest.mark.cc

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "notebook.ipynb"


def test_example_notebook_executes_and_displays_results(tmp_path, monkeypatch, quick_measure):
    # a home of its own holding the session's roofline, as a user's holds theirs: the bench cell (store=False keeps
    # its run out of the store) reads the roofline from there instead of measuring one
    from conftest import store_with_quick_measure

    store_with_quick_measure(quick_measure, tmp_path)
    monkeypatch.setenv("ROOFLAB_HOME", str(tmp_path))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOK.parent.parent)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    html = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert any("<svg" in h or "<table>" in h for h in html)  # the lab's result displayed itself
    assert any("orders" in h for h in html)

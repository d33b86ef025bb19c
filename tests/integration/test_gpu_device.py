"""`rooflab measure --device cuda` on a real NVIDIA GPU (skipped, with the reason, where there is none).

Structure and correctness only, never speed: every kernel's result checked, every ceiling set against its
theoretical value and never above 102% of it while used as a roof. The speed targets live in targets/gpu_targets.py.
"""

import io
import json
from contextlib import redirect_stdout

import pytest

from rooflab.cli import main

pytestmark = pytest.mark.gpu


def test_measure_device_cuda_quick():
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["measure", "--device", "cuda", "--quick", "--json", "--no-store"]) == 0
    doc = json.loads(out.getvalue())
    assert doc["schema"] == "rooflab.measure.gpu/2" and doc["backend"] == "cupy"
    cc = {c["precision"]: c for c in doc["ceilings"]["compute"]}
    assert cc["fp32"]["status"] == "ok" and cc["fp32"]["rel_error"] < 1e-3 and cc["fp32"]["clock_hz_during"] > 1e8
    for c in doc["ceilings"]["compute"]:
        if c["status"] == "ok" and c.get("of_theoretical") is not None:
            assert c["of_theoretical"] <= 1.02, c
    for b in doc["ceilings"]["bandwidth"]:
        assert b["status"] in ("ok", "impossible") and b["rel_error"] < 1e-5, b
    assert {m["level"] for m in doc["roofs"]["memory"]} >= {"HBM"}
    assert doc["reference"]["bytes_per_s"] > 0 and doc["sweep"] and doc["observations"]

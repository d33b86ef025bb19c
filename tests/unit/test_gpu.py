"""`measure --device cuda` without a GPU: the theoretical-peak tables, backend selection and its messages, the
nvidia-smi parser, the CUDA source (syntax), and the whole measurement driven through a simulated device."""

import io
import json
import os
import re
import shutil
import subprocess
import sys
import types
from collections import Counter
from pathlib import Path

import pytest
from rich.console import Console

from rooflab.gpu import specs
from rooflab.gpu.backend import (GpuUnavailable, SimulatedBackend, block_clock_hz, decode_reasons, kernel_source, parse_smi,
                                 passes, select_backend)
from rooflab.commands.measure.gpu import GpuOptions, make_plan
from rooflab.i18n import using
from rooflab.api import run_in_session
from rooflab.registry import command
from rooflab.render.report import render
from rooflab.results.store import Store
from rooflab.session import Session
from tests_gpu_helpers import CLK, H200, sim

DATA = Path(__file__).resolve().parents[1] / "data"
def measure(backend, store=None, quick=True):
    with Session("measure.gpu", store=store, machine={"key": "sim"}, environment={}) as s:
        return run_in_session(command("measure_gpu"), s, GpuOptions(quick=quick, backend=backend))


# ------------------------------------------------------------------------------------------- the tables


def test_theoretical_peaks_match_the_datasheets():
    h100 = specs.DeviceInfo(name="H100 SXM", cc=(9, 0), sms=132, l2_bytes=50 << 20, memory_bytes=80 << 30,
                            bus_width_bits=5120, memory_clock_hz=2.619e9)
    assert specs.peak_flops(h100, "bf16", 1.83e9) == pytest.approx(989.4e12, rel=2e-3)
    assert specs.peak_flops(h100, "fp32", 1.98e9) == pytest.approx(66.9e12, rel=2e-3)
    assert specs.peak_flops(h100, "fp64", 1.98e9) == pytest.approx(33.5e12, rel=2e-3)
    assert specs.peak_flops(h100, "fp8", 1.83e9) == pytest.approx(1978.9e12, rel=2e-3)
    assert specs.hbm_bandwidth(h100) == pytest.approx(3.35e12, rel=2e-3)
    a100 = specs.DeviceInfo(name="A100", cc=(8, 0), sms=108, l2_bytes=40 << 20, memory_bytes=40 << 30)
    assert specs.peak_flops(a100, "fp16", 1.41e9) == pytest.approx(312e12, rel=2e-3)
    assert specs.peak_flops(a100, "tf32", 1.41e9) == pytest.approx(156e12, rel=2e-3)
    assert specs.peak_flops(a100, "fp32", 1.41e9) == pytest.approx(19.5e12, rel=2e-3)
    assert specs.peak_flops(a100, "fp8", 1.41e9) is None  # no fp8 units on Ampere
    assert specs.hbm_bandwidth(a100) is None  # no memory clock known: no theoretical bandwidth
    assert specs.precisions((9, 0)) == ["fp64", "fp32", "fp64_tensor", "tf32", "fp16", "bf16", "fp8"]
    assert specs.per_sm((12, 0)) is None and specs.theoretical(
        specs.DeviceInfo(name="x", cc=(12, 0), sms=1, l2_bytes=0, memory_bytes=0), 1e9)["known"] is False


def test_plan_scales_with_the_device():
    p = make_plan(False, H200)
    assert p.sweep[0] == 1 << 20 and p.sweep[-1] >= 16 * H200.l2_bytes and p.hbm_bytes >= 16 * H200.l2_bytes
    assert p.gemm_n == 8192 and p.batch_d == 8192 and p.batches[-1] == 8192
    q = make_plan(True, H200)
    assert q.gemm_n == 4096 and len(q.sweep) < len(p.sweep)
    small = specs.DeviceInfo(name="small", cc=(8, 9), sms=58, l2_bytes=48 << 20, memory_bytes=1 << 30)
    assert make_plan(False, small).sweep[-1] <= (1 << 30) // 8 * 2  # never past an eighth of the memory (x2 step)
    assert passes(1 << 20) == 256 and passes(1 << 30) == 1


def test_nvidia_smi_state_is_read():
    q = "1755, 2619, 1980, 650.31, 700.00, 61, 100, 0x0000000000000004\n"
    apps = "1234, 2048\n4321, 512\n"
    s = parse_smi(q, apps)
    assert s["sm_clock_hz"] == 1755e6 and s["max_sm_clock_hz"] == 1980e6 and s["power_w"] == 650.31
    assert s["utilization"] == 1.0 and s["event_reasons"] == ["software power cap"]
    assert [p["pid"] for p in s["processes"]] == [1234, 4321] and s["processes"][0]["memory_bytes"] == 2048 * 2 ** 20
    assert parse_smi("garbage") == {} and decode_reasons(0x1 | 0x40) == ["idle", "hardware thermal slowdown"]


# ------------------------------------------------------------------------------------ backend selection


def test_without_cupy_the_message_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy -> ImportError
    with pytest.raises(GpuUnavailable, match=r"needs CuPy.*pip install 'rooflab\[gpu\]'"):
        select_backend("cuda")
    with pytest.raises(GpuUnavailable, match="unknown device"):
        select_backend("tpu")


def _fake_cupy(count=1, raises=None, hip=False):
    def get_count():
        if raises:
            raise raises
        return count

    rt = types.SimpleNamespace(getDeviceCount=get_count, is_hip=hip)
    cuda = types.SimpleNamespace(runtime=rt, Device=lambda i: types.SimpleNamespace(use=lambda: None))
    return types.SimpleNamespace(cuda=cuda)


@pytest.mark.parametrize("fake,expected", [
    (_fake_cupy(count=0), "no CUDA device is visible"),
    (_fake_cupy(raises=RuntimeError("cudaErrorInsufficientDriver")), "no usable CUDA driver"),
    (_fake_cupy(hip=True), "ROCm"),
    (_fake_cupy(count=1), None),
])
def test_a_cupy_without_a_usable_gpu_is_named(monkeypatch, fake, expected):
    monkeypatch.setitem(sys.modules, "cupy", fake)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    if expected is None:
        with pytest.raises(GpuUnavailable, match=r"CUDA device 3 does not exist \(1 visible\)"):
            select_backend("cuda", 3)
        assert select_backend("cuda", 0).index == 0
    else:
        with pytest.raises(GpuUnavailable, match=expected):
            select_backend("cuda")


@pytest.mark.cc
@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ for the syntax check of the CUDA source")
def test_cuda_source_is_valid_cxx_syntax(tmp_path):
    src = tmp_path / "gpu.cpp"
    src.write_text(kernel_source())
    r = subprocess.run(["g++", "-fsyntax-only", "-std=c++14", "-include", str(DATA / "cuda_shim.h"), str(src)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    for name in ("fma_f32", "fma_f64", "bw_read", "bw_copy", "bw_triad"):
        assert re.search(rf"__global__ void {name}\(", kernel_source())


# ------------------------------------------------------------------------------- a whole simulated run


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    store_path = tmp_path_factory.mktemp("gpu") / "s.sqlite"
    be = sim()
    with Store(store_path) as st:
        doc = measure(be, st)
    return doc, store_path, be


def test_simulated_run_has_every_ceiling_checked_against_theory(simulated):
    doc, _, be = simulated
    assert doc["schema"] == "rooflab.measure.gpu/2" and doc["gpu"]["compute_capability"] == "9.0"
    cc = {c["precision"]: c for c in doc["ceilings"]["compute"]}
    assert set(cc) == {"fp64", "fp32", "fp64_tensor", "tf32", "fp16", "bf16", "fp8"}
    # the kernel measured its own clock (each block's cycles over its nanoseconds), and the fraction is against it
    assert cc["fp32"]["clock_hz_during"] == pytest.approx(CLK, rel=0.03)
    assert cc["fp32"]["clock_source"] == "clock64/globaltimer" and cc["fp32"]["clock_hz_nvml"] == CLK
    assert cc["fp32"]["of_theoretical"] == pytest.approx(0.98, abs=0.02)
    assert cc["bf16"]["status"] == "ok" and 0.8 < cc["bf16"]["of_theoretical"] < 1.0
    assert cc["fp8"]["status"] == "unsupported" and "fp8" in cc["fp8"]["reason"]["text"]
    for c in doc["ceilings"]["compute"]:
        if c["status"] == "ok":
            assert c["ci95"][0] <= c["flops_per_s"] <= c["ci95"][1] and c["samples"] >= 3
    assert be.launches and all(reps >= 1 for _, reps in be.launches)


def test_simulated_run_finds_l2_and_hbm_and_compares_with_memcpy(simulated):
    doc, _, _ = simulated
    read = next(s for s in doc["bandwidth_sweeps"] if s["kernel"] == "read")
    levels = [p["level"] for p in read["plateaus"]]
    assert levels[0] == "L2" and levels[-1] == "HBM"
    l2 = next(p for p in read["plateaus"] if p["level"] == "L2")
    assert 0.25 < l2["boundary_bytes"] / H200.l2_bytes < 2
    bw = {(b["level"], b["kernel"]): b for b in doc["ceilings"]["bandwidth"]}
    assert bw[("HBM", "copy")]["bytes_per_s"] == pytest.approx(4.3e12, rel=0.05)
    assert bw[("HBM", "copy")]["of_theoretical"] == pytest.approx(4.3e12 / 4.9152e12, rel=0.05)
    assert bw[("L2", "read")]["bytes_per_s"] > 1.8 * bw[("HBM", "read")]["bytes_per_s"]
    assert doc["reference"]["copy_over_d2d"] == pytest.approx(4.3 / 4.4, rel=0.05)
    names = [m["name"] for m in doc["roofs"]["memory"]]
    assert names[0].startswith("L2") and names[1].startswith("HBM")


def test_simulated_batch_sweep_turns_compute_bound_past_the_ridge(simulated):
    doc, _, _ = simulated
    pts, info = doc["sweep"], doc["sweep_info"]
    assert info["dtype"] == "bf16" and [p["B"] for p in pts] == list(make_plan(True, H200).batches)
    ridge = info["compute_roof"]["flops_per_s"] / info["memory_roof"]["bytes_per_s"]
    assert pts[0]["bound"] == "memory" and pts[-1]["bound"] == "compute"
    assert all((p["bound"] == "compute") == (p["intensity"] > ridge) for p in pts)
    assert not any(p["above_roof"] for p in pts)
    text = " ".join(o["text"] for o in doc["observations"])
    assert "crosses the ridge at B = 256" in text and "Ridge point of this GPU" in text


def test_simulated_run_is_stored_and_drawn_in_both_languages(simulated):
    doc, store_path, _ = simulated
    with Store(store_path) as st:
        stored = st.get("latest")
    assert stored["kind"] == "measure.gpu" and stored["result"]["roofs"] == json.loads(json.dumps(doc["roofs"]))

    def draw(lang):
        out = io.StringIO()
        with using(lang):
            render(stored["result"], Console(file=out, width=4000, color_system=None))
        return out.getvalue()

    en, zh = draw("en"), draw("zh")
    num = re.compile(r"(?<![A-Za-z_\d.])\d+(?:\.\d+)?")
    assert Counter(num.findall(en)) == Counter(num.findall(zh))
    from conftest import english_prose

    assert english_prose(zh, stored["result"]) == [] and "Roofline of this GPU" in en


def test_a_ceiling_above_its_theoretical_peak_is_flagged_not_drawn():
    doc = measure(sim(fp32_frac=1.10))
    f32 = next(c for c in doc["ceilings"]["compute"] if c["precision"] == "fp32" and c["unit"] == "cuda_cores")
    assert f32["status"] == "impossible" and f32["of_theoretical"] > 1.02
    assert not any(r["name"] == f32["name"] for r in doc["roofs"]["compute"])
    assert any(w["code"] == "above-limit" for w in doc["warnings"])


def test_a_wrong_gemm_is_reported_and_the_sweep_falls_back_to_fp16():
    doc = measure(sim(wrong=("gemm bf16",)))
    bf16 = next(c for c in doc["ceilings"]["compute"] if c["precision"] == "bf16")
    assert bf16["status"] == "wrong" and "relative error" in bf16["reason"]["text"]
    assert doc["sweep_info"]["dtype"] == "fp16"


def test_shared_and_throttled_gpus_are_named():
    state = {"source": "nvml", "sm_clock_hz": CLK, "utilization": 0.4, "event_reasons": ["software power cap"],
             "processes": [{"pid": os.getpid()}, {"pid": 1, "memory_bytes": 1 << 30}]}
    doc = measure(sim(state=state))
    codes = {w["code"]: w for w in doc["warnings"]}
    assert "gpu-shared" in codes and "1 other process" in codes["gpu-shared"]["message"]
    assert "gpu-throttled" in codes and "software power cap" in codes["gpu-throttled"]["message"]


def test_an_unknown_gpu_is_measured_but_not_checked():
    dev = specs.DeviceInfo(name="future", cc=(12, 0), sms=100, l2_bytes=64 << 20, memory_bytes=64 << 30)
    flops = {"fp64": 1e13, "fp32": 5e13, "bf16": 5e14}
    be = SimulatedBackend(dev, sm_clock_hz=2e9, l2_bytes_per_s=8e12, hbm_bytes_per_s=3e12, flops=flops)
    doc = measure(be)
    # no table: the GEMMs its compute capability implies are measured (where they run), none is checked
    assert [c["precision"] for c in doc["ceilings"]["compute"]] == ["fp64", "fp32", "tf32", "fp16", "bf16", "fp8"]
    assert [c["status"] for c in doc["ceilings"]["compute"]] == ["ok", "ok", "unsupported", "unsupported", "ok",
                                                                 "unsupported"]
    assert all(c.get("of_theoretical") is None for c in doc["ceilings"]["compute"])
    assert any(w["code"] == "gpu-unknown" for w in doc["warnings"])


def test_a_process_list_alone_does_not_call_the_gpu_shared():
    from rooflab.commands.measure.gpu import state_warnings

    idle = {"utilization": 0.0, "processes": [{"pid": 99999}]}  # a container's view: host PIDs, ours among them
    assert state_warnings(idle, set(), own_pid=1) == []
    unknown = {"processes": [{"pid": 99999}]}
    assert [w.code for w in state_warnings(unknown, set(), own_pid=1)] == ["gpu-shared"]


def test_warm_up_runs_until_the_clock_settles():
    doc = measure(sim(noise=0.002))
    w = doc["warmup"]
    assert w["settled"] and w["launches"] >= 5 and w["iters"] >= 1 << 12


def test_block_clock_is_the_median_of_each_blocks_cycles_over_its_own_nanoseconds():
    # blocks that started late or ended early still give the clock: each is judged over its own span
    per_block = [1_980_000, 1_000_000, 990_000, 500_000, 5_000_000, 1_000_000]  # one block's timer misread
    assert block_clock_hz(per_block) == pytest.approx(1.98e9)
    assert block_clock_hz([1000, 0, 0, 5]) is None  # a global timer that did not advance: no clock, not infinity
    assert block_clock_hz([]) is None


def test_without_an_in_kernel_clock_the_fma_ceilings_use_the_clock_the_driver_reported():
    doc = measure(sim(kernel_clock=False))
    fp32 = next(c for c in doc["ceilings"]["compute"] if c["precision"] == "fp32")
    assert fp32["clock_source"] == "nvml" and fp32["clock_hz_during"] == CLK
    assert fp32["of_theoretical"] == pytest.approx(0.98, abs=0.02) and fp32["status"] == "ok"


def test_tensor_ceilings_are_the_rate_the_gpu_sustains_not_its_first_burst():
    # a GPU at its power cap: each GEMM runs 20% faster for its first 50 ms; the quick plan's samples (5 x 5 ms)
    # would all fall inside that burst if they were taken first
    doc = measure(sim(burst=0.2))
    bf16 = next(c for c in doc["ceilings"]["compute"] if c["precision"] == "bf16")
    sustained = 0.92 * 4096 * H200.sms * CLK
    assert bf16["status"] == "ok" and bf16["flops_per_s"] == pytest.approx(sustained, rel=0.04)
    assert bf16["burst_flops_per_s"] > 1.1 * bf16["flops_per_s"]
    # a "burst" faster than the tensor cores could run at any clock is not kept
    huge = next(c for c in measure(sim(burst=3.0))["ceilings"]["compute"] if c["precision"] == "bf16")
    assert huge["status"] == "ok" and huge["burst_flops_per_s"] is None
    assert bf16["sustained"]["seconds"] > 0 and bf16["sustained"]["chunks"] >= 3
    texts = [o["text"] for o in doc["observations"]]
    assert any(t.startswith("Bursts:") and "bf16" in t for t in texts)
    # without a burst there is nothing to say
    plain = measure(sim())
    assert not any(o["text"].startswith("Bursts:") for o in plain["observations"])


def test_a_tensor_ceiling_is_impossible_only_above_the_peak_at_the_highest_clock():
    # NVML read a clock lower than the one the GEMM ran at: above the peak at that reading, below the peak at the
    # device's highest clock -> the figure stands, its fraction says what the reading implies
    low = {"source": "nvml", "sm_clock_hz": 0.8 * CLK, "event_reasons": [], "processes": [], "utilization": 0.0}
    bf16 = next(c for c in measure(sim(state=low))["ceilings"]["compute"] if c["precision"] == "bf16")
    assert bf16["status"] == "ok" and bf16["of_theoretical"] > 1.02
    # a GEMM faster than the tensor cores could run even at the highest clock is impossible
    be = sim()
    be.flops["bf16"] = 4096 * H200.sms * 2.4e9  # x 0.92 in the simulated GEMM: 2.2 GHz worth, above 1.98 GHz
    bf16 = next(c for c in measure(be)["ceilings"]["compute"] if c["precision"] == "bf16")
    assert bf16["status"] == "impossible" and "1.98 GHz" in bf16["reason"]["text"]

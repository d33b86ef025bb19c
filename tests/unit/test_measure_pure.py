import os

import numpy as np
import pytest

from rooflab.kernels import tasks
from rooflab.commands.measure.cpu import MeasureOptions, elements_for, make_plan, working_sets
from rooflab.model.caches import cache_capacities
from rooflab.model.roofline import measure_roofs as roofs
from rooflab.render.ascii import Point, ascii_roofline

MACHINE = {"cache_details": [
    {"name": "L1d", "level": 1, "type": "Data", "size": 32768, "shared_by": 1, "instances": 2},
    {"name": "L1i", "level": 1, "type": "Instruction", "size": 32768, "shared_by": 1, "instances": 2},
    {"name": "L2", "level": 2, "type": "Unified", "size": 1 << 20, "shared_by": 1, "instances": 2},
    {"name": "L3", "level": 3, "type": "Unified", "size": 32 << 20, "shared_by": 2, "instances": 1}],
    "memory_bytes": 24 << 30}


def test_cache_capacities_add_private_caches_per_thread():
    assert cache_capacities(MACHINE, 1) == {"L1": 32768, "L2": 1 << 20, "L3": 32 << 20}
    assert cache_capacities(MACHINE, 2) == {"L1": 65536, "L2": 2 << 20, "L3": 32 << 20}


def test_plans_cover_several_times_the_llc():
    quick = make_plan(MeasureOptions(quick=True), MACHINE)
    full = make_plan(MeasureOptions(), MACHINE)
    assert quick.ws_max >= 4 * (32 << 20) and full.ws_max >= 8 * (32 << 20)
    assert full.batch_d == 8192 and max(full.batches) == 512 and quick.batch_d < 8192
    ws = working_sets(full)
    assert ws[0] == 8 << 10 and ws[-1] == full.ws_max and len(ws) == 2 * 15 + 1


def test_elements_for_respects_array_count():
    assert elements_for("read", 8 << 20) == (8 << 20) // 8
    assert elements_for("triad", 24 * 1024) == 1024
    assert elements_for("copy", 10) == 64  # never below one block


def test_round_clocks_take_the_faster_neighbour_and_fraction_is_exact():
    # running-clock samples: 1 GHz, then a sample that still read low (0.5 GHz), then 1 GHz again
    clock_hz = [1e9, 0.5e9, 1e9]
    assert tasks.round_clocks(clock_hz) == [1e9, 1e9]
    # 32 FLOP per rep in 1e-8 s = 3.2 GFLOP/s; at 1 GHz and 4 FLOP/cycle the peak is 4 GFLOP/s
    med, ci = tasks.per_round_fraction(32, [1e-8, 1e-8], clock_hz, 4)
    assert med == pytest.approx(0.8) and ci == (pytest.approx(0.8), pytest.approx(0.8))
    # a real frequency change, seen on both sides of a round, moves that round's clock
    assert tasks.round_clocks([1e9, 2e9, 2e9]) == [2e9, 2e9]
    med, _ = tasks.per_round_fraction(32, [1e-8, 1e-8], [1e9, 2e9, 2e9], 4)
    assert med == pytest.approx(0.4)


def test_peak_reference_closed_form_matches_iteration():
    seed = np.array([1.0, 1.5, 0.999, 0.001])
    a = seed[:2].copy()
    for _ in range(100):
        a = a * seed[2] + seed[3]
    assert tasks.peak_reference(seed, 2, 4, 100, 3) == pytest.approx(a.sum() * 4 * 3, rel=1e-12)


def test_aligned_array_alignment_and_skew():
    a = tasks.aligned_array(1000, np.float64, 1.0)
    assert a.ctypes.data % 64 == 0 and a.shape == (1000,) and a[0] == 1.0
    b = tasks.aligned_array(1000, np.float64, skew=1088)
    assert b.ctypes.data % 4096 == 1088


def _mapping_of(addr: int) -> dict:
    """The /proc/self/smaps entry (fields and VmFlags) of the mapping holding ``addr``."""
    entry = None
    for line in open("/proc/self/smaps"):
        head = line.split()
        if "-" in head[0] and ":" not in head[0]:
            lo, hi = (int(x, 16) for x in head[0].split("-"))
            entry = {"path": head[5] if len(head) > 5 else "", "hit": lo <= addr < hi}
        elif entry is not None and entry["hit"]:
            key, _, val = line.partition(":")
            entry[key] = val.split()
            if key == "VmFlags":
                return entry
    raise AssertionError("no mapping holds the array")


@pytest.mark.skipif(not os.path.exists("/proc/self/smaps"), reason="needs Linux /proc/self/smaps")
def test_large_arrays_are_private_memory_advised_for_huge_pages():
    a = tasks.aligned_array(4 << 20, np.float64, 1.0, skew=1088)  # 32 MiB, touched by the fill
    assert a.ctypes.data % (2 << 20) == 1088
    m = _mapping_of(a.ctypes.data)
    # private anonymous memory (a shared anonymous mapping is shmem, where huge pages are normally off)
    assert "sh" not in m["VmFlags"] and m["path"] == ""
    thp = open("/sys/kernel/mm/transparent_hugepage/enabled").read()
    if "[never]" not in thp:
        assert "hg" in m["VmFlags"]  # madvise(MADV_HUGEPAGE) took
        assert int(m["AnonHugePages"][0]) > 0  # and the kernel backed part of it with huge pages


def _doc():
    comp = [{"name": "fp32 SIMD FMA", "precision": "fp32", "klass": "simd_fma", "threads": 2, "status": "ok",
             "flops_per_s": 200e9},
            {"name": "fp32 BLAS", "precision": "fp32", "klass": "blas_gemm", "threads": 2, "status": "ok",
             "flops_per_s": 160e9},
            {"name": "refused", "precision": "fp32", "klass": "scalar", "threads": 2, "status": "refused",
             "flops_per_s": 999e9}]
    bw = [{"level": "L1", "kernel": "read", "threads": 2, "status": "ok", "bytes_per_s": 400e9},
          {"level": "L1", "kernel": "triad", "threads": 2, "status": "ok", "bytes_per_s": 420e9},
          {"level": "DRAM", "kernel": "read", "threads": 2, "status": "ok", "bytes_per_s": 30e9},
          {"level": "DRAM", "kernel": "BLAS GEMV", "threads": 2, "status": "ok", "bytes_per_s": 99e9}]
    return {"threads_all": 2, "ceilings": {"compute": comp, "bandwidth": bw}}


def test_roofs_use_best_ok_ceiling_per_level_and_skip_refused():
    r = roofs(_doc())
    assert [c["name"] for c in r["compute"]] == ["fp32 SIMD FMA x2", "fp32 BLAS x2"]
    mem = {m["level"]: m for m in r["memory"]}
    assert mem["L1"]["value"] == 420e9 and mem["L1"]["kernel"] == "triad"
    assert mem["DRAM"]["value"] == 30e9  # reference kernels (GEMV) are not roofs


def test_ascii_roofline_draws_every_roof_and_point():
    lines = ascii_roofline([("FMA", 200e9), ("BLAS", 160e9)], [("L1", 400e9), ("DRAM", 30e9)],
                           [Point("1", 0.5, 14e9), Point("2", 100, 150e9), Point("3", 50, 300e9, flagged=True)])
    text = "\n".join(lines)
    assert "FMA: 200 GFLOP/s" in text and "BLAS: 160 GFLOP/s" in text
    assert "L1: 400 GB/s" in text and "DRAM: 30 GB/s" in text
    grid = "\n".join(line for line in lines if "|" in line)
    assert "1" in grid and "2" in grid and "x" in grid
    assert ascii_roofline([], [("DRAM", 1e9)], [])[0].startswith("(no roofline")

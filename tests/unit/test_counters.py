from pathlib import Path

from rooflab.counters.cachegrind import cachegrind_summary, geometry, parse_out_file
from rooflab.counters.perf import parse_perf_report, parse_perf_stat
from rooflab.machine.env import parse_perf_probe

# perf stat -x, on a machine with counters, and in a VM without them (recorded outputs)
PERF_HW = (Path(__file__).resolve().parents[1] / "data" / "perf_stat_hw.csv").read_text()
PERF_VM = """<not supported>,,instructions,0,100.00,,
<not supported>,,cycles,0,100.00,,
0.33,msec,task-clock,330000,100.00,0.412,CPUs utilized
"""
PERF_REPORT = """# Overhead  Symbol
# ........  ..................
#
    91.20%  [.] saxpy_strided
     5.10%  [k] clear_page_erms
     3.70%  [.] main
"""
CG_OUT = """desc: I1 cache:         32768 B, 64 B, 8-way associative
desc: D1 cache:         32768 B, 64 B, 8-way associative
desc: LL cache:         33554432 B, 64 B, 16-way associative
cmd: ./driver
events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw
fl=/src/saxpy.c
fn=saxpy
5 30 1 1 0 0 0 0 0 0
6 3000 0 0 2000 100 90 1000 60 50
fl=driver.c
fn=main
10 500 2 2 100 10 10 50 5 5
summary: 3530 3 3 2100 110 100 1050 65 55
"""


def test_perf_stat_parser_both_kinds_of_machine():
    hw = parse_perf_stat(PERF_HW)
    assert hw["cycles"] == 1234567 and hw["instructions"] == 2469134 and hw["cache-misses"] == 2500
    vm = parse_perf_stat(PERF_VM)
    assert vm["instructions"] is None and vm["task-clock"] == 0.33


def test_perf_probe_both_paths():
    assert parse_perf_probe(0, PERF_HW)["hardware"] is True
    vm = parse_perf_probe(0, PERF_VM)
    assert vm["hardware"] is False and vm["software"] is True and "not exposed" in vm["reason"]["text"]
    gone = parse_perf_probe(1, "perf_event_open failed: permission denied\n")
    assert gone["available"] is False and "permission denied" in gone["reason"]["text"]


def test_perf_report_hotspots():
    rows = parse_perf_report(PERF_REPORT)
    assert rows[0] == {"percent": 91.2, "symbol": "saxpy_strided"} and len(rows) == 3


def test_cachegrind_out_file_and_kernel_summary():
    events, per_fn = parse_out_file(CG_OUT)
    assert events[:3] == ["Ir", "I1mr", "ILmr"]
    assert per_fn["saxpy"]["Ir"] == 3030 and per_fn["saxpy"]["D1mr"] == 100 and per_fn["main"]["Ir"] == 500
    s = cachegrind_summary(per_fn, "saxpy", calls=2, line=64)
    assert s["instructions"] == 1515 and s["d1_misses"] == 80 and s["ll_misses"] == 70
    assert s["l1_traffic_bytes"] == 80 * 64 and s["dram_traffic_bytes"] == 70 * 64


def test_cache_geometry_uses_the_real_caches():
    caches = [{"level": 1, "type": "Data", "size": 49152, "ways": 12, "line": 64},
              {"level": 1, "type": "Instruction", "size": 32768, "ways": 8, "line": 64},
              {"level": 2, "type": "Unified", "size": 2097152, "ways": 16, "line": 64},
              {"level": 3, "type": "Unified", "size": 31457280, "ways": 12, "line": 64}]
    assert geometry(caches) == {"D1": "49152,12,64", "I1": "32768,8,64", "LL": "31457280,15,64"}  # 30 MiB at 12 ways has 40960 sets: 15 ways, 32768


def test_a_cache_whose_sets_are_no_power_of_two_is_simulated_as_close_as_cachegrind_allows():
    from rooflab.counters.cachegrind import simulable

    # a 300 MiB, 20-way L3 (a Xeon's): 245760 sets, which cachegrind refuses; the same size at 75 ways has 65536
    size, ways, line = simulable(300 << 20, 20, 64)
    assert (size, ways, line) == (300 << 20, 75, 64)
    for size0, ways0 in ((300 << 20, 20), (100_000, 7), (48 << 10, 12), (32 << 20, 16), (3 << 20, 3)):
        size, ways, line = simulable(size0, ways0, 64)
        sets = size // (ways * line)
        assert sets * ways * line == size and sets & (sets - 1) == 0  # a power of two, whole sets
        assert size <= size0 and size > size0 // 2  # never more than the real cache, never less than half
    assert simulable(48 << 10, 12, 64) == (48 << 10, 12, 64)  # a cache cachegrind accepts is left as it is

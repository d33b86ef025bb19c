from rooflab.labs.fma import analyse, chain_counts
from rooflab.labs.fma import fma_observations

MACHINE = {"uarch": {"fma_pipes": 2, "fma_bits": 256}, "isa": {"vector_bits": 256}}


def test_chain_counts_go_past_the_register_file():
    c16 = chain_counts(16, quick=False)
    assert c16[0] == 1 and c16[-1] == 24 and {1, 2, 3, 4, 5, 6, 7, 8} <= set(c16)
    c32 = chain_counts(32, quick=False)
    assert c32[-1] == 40 and max(c32) > 32
    q = chain_counts(16, quick=True)
    assert q[0] == 1 and q[-1] == 24 and len(q) < len(c16)


def _points():
    # latency 4 cycles, 2 FMAs per cycle: saturates at 8 chains; spills from 16 chains on
    pts = []
    for n in (1, 2, 4, 6, 8, 12, 16, 20):
        fpc = min(n / 4.0, 2.0) if n < 16 else 1.2
        pts.append({"chains": n, "fma_per_cycle": fpc, "flops_per_s": fpc * 3e9 * 16, "spills": 4 if n >= 16 else 0,
                    "of_peak": fpc / 2.0})
    return pts


def test_analysis_finds_latency_throughput_littles_law_and_spills():
    a = analyse(_points(), MACHINE)
    assert a["latency_cycles"] == 4.0
    assert a["throughput_fma_per_cycle"] == 2.0
    assert a["littles_law_chains"] == 8.0
    assert a["saturation_chains"] == 8
    assert a["first_spill_chains"] == 16
    assert a["expected_fma_per_cycle"] == 2.0


def test_observations_blame_spills_not_hardware():
    doc = {"points": _points(), "vector_bits": 256, "vector_registers": 16, "warnings": []}
    doc["analysis"] = analyse(doc["points"], MACHINE)
    text = "\n".join(o["text"] for o in fma_observations(doc))
    assert "every 4.0 cycles" in text
    assert "4.0 x 2.00 = 8.0" in text and "at 8 chains" in text
    assert "From 16 chains on" in text and "not the FMA units" in text

import pytest

from rooflab.model.roofline import Roof, attainable, attainable_multi, bound, matmul_counts, ridge


def test_attainable_and_ridge():
    assert attainable(0.5, 100e9, 20e9) == 10e9
    assert attainable(100, 100e9, 20e9) == 100e9
    assert ridge(100e9, 20e9) == 5.0
    assert bound(4.9, 100e9, 20e9) == "memory" and bound(5.0, 100e9, 20e9) == "compute"
    with pytest.raises(ValueError):
        attainable(-1, 1, 1)


def test_attainable_multi_picks_the_lowest_roof():
    roofs = [Roof("fma", "compute", 200e9), Roof("L1", "memory", 400e9), Roof("DRAM", "memory", 20e9)]
    assert attainable_multi(1.0, roofs) == (20e9, "DRAM")
    assert attainable_multi(100.0, roofs) == (200e9, "fma")


def test_matmul_counts():
    flops, nbytes = matmul_counts(1, 8192, 8192, 4)
    assert flops == 2 * 8192 * 8192
    assert nbytes == 4 * (8192 + 8192 * 8192 + 8192)
    assert flops / nbytes == pytest.approx(0.5, rel=1e-3)  # GEMV in fp32: 0.5 FLOP/byte


def test_a_level_without_a_roof_takes_the_nearest_faster_ones_never_a_slower_one():
    from rooflab.model.roofline import place, roof_level_for

    mem = {"L1": 2e11, "L3": 8e10, "DRAM": 2e10}  # the L2 ceiling was disturbed: no L2 roof
    assert roof_level_for("L2", mem) == "L1" and roof_level_for("L3", mem) == "L3"
    assert roof_level_for("L2", {"L3": 8e10, "DRAM": 2e10}) is None  # DRAM's roof would overstate the share
    roofs = {"compute": [{"name": "FMA", "value": 1e12}], "memory": [{"level": k, "value": v} for k, v in mem.items()]}
    caps = {"L1": 32 << 10, "L2": 1 << 20, "L3": 32 << 20}
    p = place(1e6, 8e6, 1e-3, 512 << 10, roofs, caps)  # 8 GB/s from L2
    assert p["level"] == "L2" and p["roof_level"] == "L1" and p["of_roof"] == pytest.approx(8e9 / 2e11)
    p = place(1e6, 8e6, 1e-3, 512 << 10, {**roofs, "memory": roofs["memory"][1:]}, caps)
    assert "of_roof" not in p and p["flops_per_s"] == pytest.approx(1e9)


def test_above_the_roof_of_its_level_is_partly_served_from_the_faster_level_only_where_it_can_be():
    """A working set a little larger than the L3 still has part of it served from there: above the DRAM roof, yet
    a real figure; far larger, or faster than even the L3 roof, nothing explains it and it is above its roof."""
    from rooflab.kernels.user import timed_row
    from rooflab.model.roofline import PARTLY_FACTOR, place
    from rooflab.timing.harness import Timing

    mem = {"L1": 2e11, "L2": 1e11, "L3": 8e10, "DRAM": 2e10}
    roofs = {"compute": [{"name": "FMA", "value": 1e12}], "memory": [{"level": k, "value": v} for k, v in mem.items()]}
    caps = {"L1": 32 << 10, "L2": 1 << 20, "L3": 32 << 20}
    p = place(1e6, 30e6, 1e-3, 61 << 20, roofs, caps)  # 30 GB/s with 61 MiB: 1.5x the DRAM roof
    assert p["level"] == "DRAM" and p["of_roof"] == pytest.approx(1.5)
    assert p["partly_in"] == "L3" and p["partly_capacity"] == 32 << 20
    assert "partly_in" not in place(1e6, 30e6, 1e-3, (PARTLY_FACTOR * 32 + 1) * 2 ** 20, roofs, caps)
    assert "partly_in" not in place(1e6, 90e6, 1e-3, 61 << 20, roofs, caps)  # above the L3 roof too
    assert "partly_in" not in place(1e6, 10e6, 1e-3, 61 << 20, roofs, caps)  # under its roof: nothing to explain

    def row_at(nbytes, ws):
        t = Timing(samples=[1e-3] * 5, raw=[1e-3] * 5, reps=1)
        row = {"label": "k", "working_set_bytes": ws}
        timed_row(row, 1e6, nbytes, t, roofs, caps, [])
        return row

    assert not row_at(30e6, 61 << 20).get("above_roof")
    assert row_at(30e6, 200 << 20)["above_roof"]

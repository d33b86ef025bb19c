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

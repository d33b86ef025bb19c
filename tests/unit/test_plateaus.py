import numpy as np
import pytest

from rooflab.model.plateaus import find_plateaus, name_plateaus, segment

KiB, MiB = 1024, 1024 * 1024
CACHES = {"L1": 32 * KiB, "L2": 1 * MiB, "L3": 32 * MiB}


def sweep(levels, noise=0.03, seed=0, ppo=3, lo=8 * KiB, hi=512 * MiB, soft=True):
    """Synthetic bandwidth curve: each level's value up to its capacity, a smooth drop after it."""
    rng = np.random.default_rng(seed)
    n = int(np.log2(hi / lo) * ppo) + 1
    sizes = [lo * 2 ** (i / ppo) for i in range(n)]
    vals = []
    for s in sizes:
        v = levels[-1][1]
        for cap, bw in reversed(levels[:-1]):
            if s <= cap:
                v = bw
            elif soft and s <= cap * 1.6:  # a gradual step, as real caches show
                v = min(v, bw) if False else np.exp(np.interp(np.log(s), [np.log(cap), np.log(cap * 1.6)],
                                                              [np.log(bw), np.log(v)]))
        vals.append(v * rng.lognormal(0, noise))
    return sizes, vals


FOUR = [(32 * KiB, 200e9), (1 * MiB, 100e9), (32 * MiB, 60e9), (None, 20e9)]


@pytest.mark.parametrize("seed", range(5))
def test_four_levels_found_and_named_with_noise(seed):
    sizes, vals = sweep(FOUR, seed=seed)
    ps = name_plateaus(find_plateaus(sizes, vals), CACHES)
    assert [p.level for p in ps] == ["L1", "L2", "L3", "DRAM"]
    for p, (cap, bw) in zip(ps, FOUR):
        assert p.median == pytest.approx(bw, rel=0.06)
        if cap:
            assert cap / 2 <= p.edge_bytes <= cap * 2  # boundary within a factor 2 of the reported size


def test_missing_level_is_not_invented():
    # a machine whose L3 is no faster than DRAM (or has none): three plateaus, L3 absent
    levels = [(32 * KiB, 200e9), (1 * MiB, 100e9), (None, 20e9)]
    sizes, vals = sweep(levels, seed=3)
    ps = name_plateaus(find_plateaus(sizes, vals), CACHES)
    assert [p.level for p in ps] == ["L1", "L2", "DRAM"]


def test_machine_without_l3_entry():
    sizes, vals = sweep([(48 * KiB, 300e9), (2 * MiB, 120e9), (None, 30e9)], seed=4)
    ps = name_plateaus(find_plateaus(sizes, vals), {"L1": 48 * KiB, "L2": 2 * MiB})
    assert [p.level for p in ps] == ["L1", "L2", "DRAM"]


def test_flat_curve_is_one_plateau():
    sizes = [8 * KiB * 2 ** i for i in range(12)]
    rng = np.random.default_rng(1)
    ps = find_plateaus(sizes, [50e9 * rng.lognormal(0, 0.03) for _ in sizes])
    assert len(ps) == 1 and ps[0].boundary_bytes is None


def test_sizes_need_not_be_sorted():
    sizes, vals = sweep(FOUR, seed=1)
    order = np.random.default_rng(0).permutation(len(sizes))
    ps = find_plateaus([sizes[i] for i in order], [vals[i] for i in order])
    assert len(ps) == 4 and ps[0].start_bytes == sizes[0]


def test_segment_exact_split():
    cost, segs = segment([1, 1, 1, 5, 5, 5], 2)
    assert segs == [(0, 3), (3, 6)] and cost == pytest.approx(0.0)
    with pytest.raises(ValueError):
        segment([1, 2], 3)


def test_boundary_is_where_the_curve_crosses_halfway():
    sizes = [1, 2, 4, 8, 16, 32, 64, 128]
    vals = [100, 100, 100, 100, 10, 10, 10, 10]
    ps = find_plateaus(sizes, vals)
    assert len(ps) == 2
    # geometric mean of 100 and 10 is ~31.6, crossed between 8 and 16
    assert 8 < ps[0].boundary_bytes < 16

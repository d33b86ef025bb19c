import numpy as np
import pytest

from rooflab.model.plateaus import Plateau, find_plateaus, name_plateaus, refine_boundaries, refinement_sizes, segment

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


def shallow_l2(size):
    """A shallow L2 -> L3 step as a read sweep shows on Zen 4: 117 GB/s, falling log-linearly from 640 KiB to
    98 GB/s at 1.25 MiB; it passes the geometric mean of the two (107 GB/s) at about 900 KiB."""
    a, b = np.log(640 * KiB), np.log(1.25 * MiB)
    f = np.clip((np.log(size) - a) / (b - a), 0.0, 1.0)
    return float(np.exp(np.log(117e9) + f * (np.log(98e9) - np.log(117e9))))


def test_refinement_places_a_shallow_edge_that_one_noisy_point_moved():
    true_edge = np.exp(np.log(640 * KiB) + np.log(np.sqrt(117 * 98) / 117) / np.log(98 / 117)
                       * (np.log(1.25 * MiB) - np.log(640 * KiB)))
    sizes = [KiB * 2 ** (i / 2) for i in range(12, 26)]  # 64 KiB .. 8 MiB, two points per octave
    vals = [shallow_l2(x) for x in sizes]
    vals[sizes.index(512 * KiB)] *= 0.88  # one sample hit by noise, just before the edge
    ps = find_plateaus(sizes, vals)
    assert len(ps) == 2
    coarse = ps[0].boundary_bytes
    assert not 0.9 * true_edge < coarse < 1.1 * true_edge  # the noisy point moved it
    extra = refinement_sizes(ps, 2 ** (1 / 6), max_per_edge=16)
    # the extra points run from one coarse step below the first plateau's end to one above the next one's start
    assert extra[0] == pytest.approx(ps[0].end_bytes / np.sqrt(2))
    assert extra[-1] <= ps[1].start_bytes * np.sqrt(2) * (1 + 1e-9)
    assert all(b / a == pytest.approx(2 ** (1 / 6)) for a, b in zip(extra, extra[1:]))
    # never more than max_per_edge points for one edge (a wider step instead), none on top of a measured size
    wide = refinement_sizes(ps, 2 ** (1 / 64), max_per_edge=5)
    assert len(wide) == 5 and wide[-1] == pytest.approx(ps[1].start_bytes * np.sqrt(2))
    assert not set(refinement_sizes(ps, 2 ** (1 / 6), existing=sizes)) & set(sizes)
    kept = refinement_sizes(ps, 2 ** (1 / 6), existing=sizes)
    assert len(kept) < len(extra) and all(min(abs(np.log(k / x)) for x in sizes) >= np.log(2) / 24 for k in kept)
    refine_boundaries(ps, sizes + extra, vals + [shallow_l2(x) for x in extra])
    assert 0.9 * true_edge < ps[0].boundary_bytes < 1.1 * true_edge


def test_a_lone_outlier_inside_a_plateau_does_not_make_a_crossing():
    sizes = [2.0 ** i for i in range(12)]
    vals = [100.0] * 6 + [10.0] * 6
    ps = find_plateaus(sizes, vals)
    assert 32 < ps[0].boundary_bytes < 64
    # refined with points where one, deep inside the first plateau, fell below the halfway level (31.6)
    extra = [2.0 ** (i + 0.5) for i in range(11)]
    more = [100.0] * 5 + [10.0] * 6
    more[1] = 20.0
    refine_boundaries(ps, sizes + extra, vals + more)
    assert 32 < ps[0].boundary_bytes < 2 ** 5.5


def test_refinement_splits_the_sweep_steps_nearest_each_edge():
    sizes = [KiB * 2 ** (i / 2) for i in range(12, 36)]  # 64 KiB .. 128 MiB, two points per octave
    l2, l3, dram = (Plateau(0, 0, [64 * KiB, 724 * KiB], [1.0, 1.0]), Plateau(0, 0, [MiB, 8 * MiB], [1.0, 1.0]),
                    Plateau(0, 0, [64 * MiB, 128 * MiB], [1.0, 1.0]))
    extra = refinement_sizes([l2, l3, dram], 2 ** (1 / 4), max_per_edge=4, existing=sizes)
    near_l2 = [x for x in extra if x < 2 * MiB]
    # one point in the middle of each sweep step from 512 KiB to 1.41 MiB: three steps, three points
    assert [round(x / KiB) for x in near_l2] == [609, 861, 1218]
    # the L3 -> DRAM edge spans eight sweep steps: only the four nearest the split (between 8 and 64 MiB) get one
    far = [x for x in extra if x > 2 * MiB]
    assert len(far) == 4 and all(8 * MiB < x < 64 * MiB for x in far)
    assert all(min(abs(np.log(x / s)) for s in sizes) > 0.1 for x in extra)  # none on top of a measured size


def test_a_ceiling_is_measured_three_quarters_up_its_plateau():
    p = Plateau(0, 4, [8 * KiB, 11 * KiB, 16 * KiB, 23 * KiB, 32 * KiB], [1.0] * 5)
    assert p.center_bytes == pytest.approx(16 * KiB)
    assert p.inner_bytes == pytest.approx(8 * KiB * 4 ** 0.75)  # 22.6 KiB: inside, past the smallest sets
    assert p.start_bytes < p.center_bytes < p.inner_bytes < p.end_bytes


def test_close_l2_and_l3_levels_stay_two_plateaus():
    # L2 and L3 only 12% apart (a read sweep on Zen 4 shows ~10-20%), two points per octave, 3% noise: the two long
    # segments are kept apart although their levels differ by less than the merge ratio
    levels = [(32 * KiB, 200e9), (1 * MiB, 112e9), (32 * MiB, 100e9), (None, 25e9)]
    found = 0
    for seed in range(40):
        sizes, vals = sweep(levels, seed=seed, ppo=2, noise=0.03)
        found += [p.level for p in name_plateaus(find_plateaus(sizes, vals), CACHES)] == ["L1", "L2", "L3", "DRAM"]
    assert found >= 36  # 24 of 40 when any two levels under 12% apart were merged


def test_an_edge_far_from_the_os_size_is_reported_only_when_a_second_sweep_agrees():
    from rooflab.model.plateaus import Plateau, confirm_edge, edge_suspect, edge_window

    def pair(edge):
        p = Plateau(0, 2, [8e3, 16e3, 32e3], [2e11] * 3, level="L1", expected_bytes=32768, boundary_bytes=edge)
        q = Plateau(3, 5, [64e3, 128e3, 256e3], [1e11] * 3, level="L2", expected_bytes=1 << 20)
        return p, q

    # a burst made the first sweep fall at 77 KiB (2.4x the OS's 32 KiB): suspect, and measured again around it
    p, q = pair(77 * 1024)
    assert edge_suspect(p) and edge_window(p) == pytest.approx((32768 / 1.5, 77 * 1024 * 1.5))
    sizes = [22e3, 28e3, 36e3, 45e3, 56e3, 70e3, 90e3, 115e3]
    quiet = [2e11, 2e11, 1.9e11, 1.2e11, 1e11, 1e11, 1e11, 1e11]  # the second sweep falls near 40 KiB
    check = confirm_edge(p, q, sizes, quiet)
    assert not check["confirmed"] and p.boundary_bytes == 32768 and check["first_bytes"] == 77 * 1024
    assert 36e3 < check["second_bytes"] < 45e3
    # the same edge in both sweeps: confirmed, and placed on the second, denser sweep
    p, q = pair(77 * 1024)
    again = [2e11, 2e11, 2e11, 2e11, 2e11, 1.5e11, 1e11, 1e11]
    check = confirm_edge(p, q, sizes, again)
    assert check["confirmed"] and 56e3 < p.boundary_bytes < 90e3
    # a second sweep that never crosses between the two levels confirms nothing
    p, q = pair(77 * 1024)
    assert not confirm_edge(p, q, sizes, [1e11] * len(sizes))["confirmed"] and p.boundary_bytes == 32768
    # an edge near its cache is not measured again; nor are unnamed plateaus or DRAM
    assert not edge_suspect(pair(40 * 1024)[0])
    assert not edge_suspect(Plateau(0, 0, [1e9], [3e10], level="DRAM", expected_bytes=None, boundary_bytes=None))


def test_a_ceiling_is_measured_at_a_working_set_that_follows_the_edge_not_the_last_sweep_point():
    from rooflab.model.plateaus import Plateau

    # the same L1 in two runs: one sweep's plateau ended at its 16 KiB point, the other's at 32 KiB; the curve left
    # the plateau near 40 KiB in both
    short = Plateau(0, 1, [8192, 16384], [2e11, 2e11], level="L1", boundary_bytes=40e3)
    long = Plateau(0, 2, [8192, 16384, 32768], [2e11] * 3, level="L1", boundary_bytes=40e3)
    assert short.inner_bytes == pytest.approx(13777, rel=1e-3) and long.inner_bytes == pytest.approx(23170, rel=1e-3)
    assert short.ceiling_bytes == pytest.approx(24e3) and long.ceiling_bytes == pytest.approx(24e3)
    # never past 0.7 of the edge, or of the capacity when that is smaller
    near = Plateau(0, 2, [8192, 16384, 32768], [2e11] * 3, level="L1", boundary_bytes=30e3)
    assert near.ceiling_bytes == pytest.approx(21e3)
    small = Plateau(0, 2, [8192, 16384, 32768], [2e11] * 3, level="L1", boundary_bytes=45e3, expected_bytes=32768)
    assert small.ceiling_bytes == pytest.approx(0.7 * 32768)
    # further out a pass lasts microseconds: the plateau's own point three quarters up stands
    l3 = Plateau(0, 2, [1e6, 2e6, 8e6], [1e11] * 3, level="L3", boundary_bytes=28e6)
    assert l3.ceiling_bytes == l3.inner_bytes


def test_an_l2_or_l3_ceiling_stays_within_a_quarter_of_the_capacity_and_in_its_plateau():
    from rooflab.model.plateaus import Plateau

    MiB = 1 << 20
    # a burst stretched the 1-thread L3 plateau to 32 MiB: its three-quarter point would be 13.5 MiB, where the
    # rate already falls; the ceiling stays at 8 MiB, a quarter of the 32 MiB the level holds
    stretched = Plateau(0, 5, [1 * MiB, 2 * MiB, 4 * MiB, 8 * MiB, 16 * MiB, 32 * MiB], [1e11] * 6, level="L3",
                        expected_bytes=32 * MiB)
    assert stretched.inner_bytes == pytest.approx(2 ** 3.75 * MiB)
    assert stretched.ceiling_bytes == pytest.approx(8 * MiB)
    # a plateau that starts past a quarter of the capacity is measured at its start, never outside it
    late = Plateau(0, 1, [12 * MiB, 20 * MiB], [1e11] * 2, level="L3", expected_bytes=32 * MiB)
    assert late.ceiling_bytes == pytest.approx(12 * MiB)
    # a quiet plateau well inside keeps its own point; without a capacity, as before
    quiet = Plateau(0, 3, [1 * MiB, 2 * MiB, 4 * MiB, 8 * MiB], [1e11] * 4, level="L3", expected_bytes=32 * MiB)
    assert quiet.ceiling_bytes == quiet.inner_bytes
    assert Plateau(0, 5, stretched.sizes, [1e11] * 6, level="L3").ceiling_bytes == stretched.inner_bytes


def test_an_l2_or_l3_ceiling_is_measured_clear_of_the_faster_level():
    from rooflab.model.plateaus import Plateau, name_plateaus

    MiB = 1 << 20
    # a burst started the 2-thread L3 plateau early, beside the 2 MiB the two L2s hold: its point would be 2.4 MiB,
    # where part of the set is still served by L2; the ceiling goes to twice that capacity
    early = Plateau(0, 3, [1.2 * MiB, 2 * MiB, 3 * MiB, 4 * MiB], [8e10] * 4, level="L3", expected_bytes=32 * MiB,
                    faster_bytes=2 * MiB)
    assert early.inner_bytes < 4 * MiB and early.ceiling_bytes == pytest.approx(4 * MiB)
    # naming the plateaus gives each the capacity of the level just faster than its own
    caches = {"L1": 64 << 10, "L2": 2 * MiB, "L3": 32 * MiB}
    ps = name_plateaus([Plateau(0, 1, [16e3, 48e3], [3e11] * 2), Plateau(2, 3, [0.5 * MiB, 1.5 * MiB], [1e11] * 2),
                        Plateau(4, 5, [6 * MiB, 24 * MiB], [6e10] * 2)], caches)
    assert [(p.level, p.faster_bytes) for p in ps] == [("L1", None), ("L2", 64 << 10), ("L3", 2 * MiB)]

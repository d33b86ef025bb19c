from rooflab.toolchain.compiler import Compiler
from rooflab.labs.blocking import block_sizes, sizes_around_llc
from rooflab.labs.tiles import tiles
from rooflab.labs.vectorize import flag_matrix
from rooflab.toolchain.remarks import report_flags
from rooflab.labs.blocking import blocking_observations
from rooflab.labs.loops import loops_observations
from rooflab.labs.tiles import tiles_observations
from rooflab.labs.vectorize import vectorize_observations

AVX2 = {"arch": "x86_64", "name": "avx2", "vector_bits": 256, "vector_registers": 16}
GCC = Compiler("/usr/bin/gcc", "gcc", "gcc 12", "x86_64-linux-gnu", "x86_64")
CLANG = Compiler("/usr/bin/clang", "clang", "clang 16", "aarch64-linux-gnu", "aarch64")


def test_tiles_sweep_crosses_the_register_file():
    ts = tiles(AVX2, quick=False)
    need = [p.accumulators + p.nr // 8 + 1 for p in ts]
    assert min(need) <= 16 < max(need)  # some fit, some must spill
    assert all(p.nr % 8 == 0 and p.mc % p.mr == 0 for p in ts)
    assert len(tiles(AVX2, quick=True)) < len(ts)


def test_blocking_sizes_straddle_the_llc():
    cases = sizes_around_llc(32 << 20, quick=False)
    assert cases[0]["fits_llc"] and 8 * cases[0]["n"] ** 2 <= 32 << 20
    assert not cases[1]["fits_llc"] and 8 * cases[1]["n"] ** 2 > 32 << 20
    assert len(sizes_around_llc(32 << 20, quick=True)) == 1
    assert 288 in block_sizes(288, False) and block_sizes(64, True) == [16, 64, 256]


def test_flag_matrix_and_reports_per_compiler():
    g = flag_matrix(GCC)
    assert [x[1] for x in g][:3] == ["-O2", "-O3 vectorizer off", "-O3"] and "-fno-tree-vectorize" in g[1][2]
    assert any("-march=native" in f for _, _, f in g) and [x[0] for x in g][3] == "O3_native"
    c = flag_matrix(CLANG)
    assert "-fno-vectorize" in c[1][2] and any("-mcpu=native" in f for _, _, f in c)
    assert report_flags(GCC)[0].startswith("-fopt-info-vec") and report_flags(CLANG)[0] == "-Rpass=loop-vectorize"


def _r(name, gf, **kw):
    return {"name": name, "flops_per_s": gf * 1e9, "rel_error": 1e-7, **kw}


def test_lab_observations_from_numbers():
    loops = {"n": 256, "warnings": [], "orders": [
        _r("ikj", 30, order="ikj", inner="j", group="inner j", vector_bits=256),
        _r("ijk", 2, order="ijk", inner="k", group="inner k", vector_bits=0),
        _r("jki", 1, order="jki", inner="i", group="inner i", vector_bits=0)]}
    text = "\n".join(o["text"] for o in loops_observations(loops))
    assert "30x apart: ikj is the fastest, jki the slowest" in text and "256-bit code" in text
    blocking = {"predicted_bs": 288, "rule": "3·BS²·4 B <= L2", "L2": 1 << 20, "LLC": 32 << 20, "warnings": [],
                "cases": [{"n": 1024, "fits_llc": True, "operands_bytes": 8 << 20, "rows": [
                    _r("ikj", 20, bs=None), _r("16", 8, bs=16), _r("256", 30, bs=256), _r("288", 27, bs=288)]}]}
    text = "\n".join(o["text"] for o in blocking_observations(blocking))
    assert "best BS = 256" in text and "predicted BS = 288 reaches 90%" in text and "(1.50x)" in text
    vec = {"warnings": [], "flags": [_r("a", 4, label="-O2", vector_bits=0, report=["couldn't vectorize loop"]),
                                     _r("b", 24, label="-O3 -march=native", id="O3_native", vector_bits=256,
                                       report=[])],
           "contributions": [_r("l", 2, role="layout"), _r("t", 46, role="threads", threads=2)]}
    text = "\n".join(o["text"] for o in vectorize_observations(vec))
    assert "Compiler contribution: 6.0x" in text and "ikj runs 12.0x ijk" in text and "1.92x on 2 threads" in text
    tl = {"vector_registers": 16, "vector_bits": 256, "warnings": [], "tiles": [
        _r("2x8", 20, accumulators=2, registers_needed=4, loads_per_fma=1.5, spills=0),
        _r("6x16", 90, accumulators=12, registers_needed=15, loads_per_fma=0.67, spills=0),
        _r("8x24", 60, accumulators=24, registers_needed=28, loads_per_fma=0.46, spills=12)]}
    text = "\n".join(o["text"] for o in tiles_observations(tl))
    assert "Best tile: 6x16" in text and "Spills appear from 28 registers needed (8x24)" in text

from rooflab.kernels.builders import GemmParams, audit_microkernel, gemm_params
from rooflab.labs.ladder import rungs
from rooflab.model.caches import block_size
from rooflab.labs.ladder import ladder_observations

AVX2 = {"arch": "x86_64", "name": "avx2", "vector_bits": 256, "vector_registers": 16}
AVX512 = {"arch": "x86_64", "name": "avx512", "vector_bits": 512, "vector_registers": 32}
NEON = {"arch": "aarch64", "name": "neon", "vector_bits": 128, "vector_registers": 32}


def test_tiles_fit_the_register_file():
    for isa in (AVX2, AVX512, NEON):
        p = gemm_params(isa)
        lanes = p.vbytes // 4
        assert p.nr % lanes == 0
        # accumulators + one row of B + one broadcast must fit
        assert p.accumulators + p.nr // lanes + 1 <= isa["vector_registers"]
    assert (gemm_params(AVX2).mr, gemm_params(AVX2).nr) == (6, 16)
    assert gemm_params(NEON).vbytes == 16


def test_block_size_from_l2():
    bs = block_size(1 << 20)
    assert bs % 16 == 0 and 3 * bs * bs * 4 <= 1 << 20 and 3 * (bs + 16) ** 2 * 4 > 1 << 20


def test_rungs_cover_the_ladder():
    r = rungs(AVX2, 1 << 20, 4)
    names = [x["name"] for x in r]
    assert names[0] == "naive ijk" and names[1] == "ikj" and names[2].startswith("blocked")
    assert any(n.startswith("register tile 6x16") for n in names)
    assert any("portable" in n for n in names) and any("x4 threads" in n for n in names)
    assert names[-2:] == ["numpy/BLAS x1", "numpy/BLAS x4"]
    assert [x["name"] for x in rungs(AVX2, 1 << 20, 1)][-1] == "numpy/BLAS x1"


def test_microkernel_audit():
    p = GemmParams(vbytes=32, mr=6, nr=16, kc=256, mc=120)
    ok = {"fma": 12, "fma_bits": 256, "fp_mul": 0, "fp_add": 0, "vector_bits": 256, "spills": 0}
    assert audit_microkernel(ok, p) is None
    assert "tile needs 12" in audit_microkernel({**ok, "fma": 6}, p)["text"]
    unrolled = GemmParams(vbytes=32, mr=6, nr=16, kc=256, mc=120, unroll=2)
    assert audit_microkernel({**ok, "fma": 24}, unrolled) is None and audit_microkernel(ok, unrolled) is None
    assert "unrolled x2" in audit_microkernel({**ok, "fma": 18}, unrolled)["text"]
    assert "does not fit" in audit_microkernel({**ok, "spills": 3}, p)["text"]
    port = GemmParams(vbytes=16, mr=4, nr=8, kc=256, mc=128, profile="portable")
    assert audit_microkernel({"fma": 0, "fp_mul": 8, "fp_add": 8, "vector_bits": 128, "fma_bits": 0, "spills": 0},
                             port) is None


def _rung(name, own, threads, gf, ratio, step_id="", **kw):
    # the description is prose for people; the observations read only the step's id
    return {"name": name, "own": own, "threads": threads, "flops_per_s": gf * 1e9, "ratio_to_blas": ratio,
            "ratio_to_blas_ci95": [ratio * 0.9, ratio * 1.1], "of_peak": gf / 100, "step_id": step_id,
            "step": "words that may change", **kw}


def test_ladder_observations_give_each_step_its_factor():
    doc = {"n": 512, "caches": {"L2": 1 << 20, "L3": 32 << 20}, "warnings": [], "rungs": [
        _rung("naive ijk", True, 1, 1.0, 0.01, "baseline"),
        _rung("ikj", True, 1, 30.0, 0.3, "loop_order"),
        _rung("blocked", True, 1, 24.0, 0.25, "blocking"),
        _rung("packed", True, 1, 90.0, 1.02, "simd_microkernel"),
        _rung("packed x2", True, 2, 170.0, 0.97, "threads"),
        _rung("numpy/BLAS x1", False, 1, 88.0, 1.0, "reference"),
        {"name": "broken", "own": True, "threads": 1, "error": "kernel 'broken' crashed: SIGSEGV", "step": "x"},
    ]}
    text = "\n".join(o["text"] for o in ladder_observations(doc))
    assert "ikj vs naive ijk: 30.00x (loop order)" in text
    assert "blocked vs ikj: 0.80x (cache blocking); at n = 512 the three matrices (3 MiB) already fit" in text
    assert "best own rung, packed, runs at 1.02x BLAS" in text and "BLAS itself reaches 88%" in text
    assert "On 2 thread(s) the best own rung, packed x2, runs at 0.97x" in text
    assert "broken: not timed — kernel 'broken' crashed: SIGSEGV" in text
    assert "From naive ijk to packed x2: 170x" in text


def test_a_ladder_stored_before_step_ids_reads_the_same():
    from rooflab.results.schema import migrate

    old = {"schema": "rooflab.lab.ladder/1", "rungs": [{"name": "ikj", "step": "loop order: the inner loop ..."},
                                                      {"name": "b", "step": "cache blocking: 64x64 tiles"}]}
    doc = migrate(old)
    assert doc["schema"] == "rooflab.lab.ladder/2" and [r["step_id"] for r in doc["rungs"]] == ["loop_order", "blocking"]


def test_a_peak_that_cannot_be_measured_under_load_leaves_the_ladder_running(monkeypatch):
    """Under load a thread may be kept from starting for longer than the peak's work takes (its call overhead then
    dominates): that peak is left out, with why, and the lab goes on to its rungs instead of stopping."""
    from types import SimpleNamespace

    from rooflab.errors import OverheadDominates
    from rooflab.i18n import text
    from rooflab.labs import ladder

    monkeypatch.setattr(ladder, "measure_history", lambda store, key: [])
    monkeypatch.setattr(ladder, "build_peak", lambda v: SimpleNamespace(path="peak.so"))
    monkeypatch.setattr(ladder, "build_clock", lambda: SimpleNamespace(path="clock.so"))
    timing = {"samples": [1e-3] * 5, "reps": 1}
    monkeypatch.setattr(ladder.Timing, "from_dict", staticmethod(
        lambda d: SimpleNamespace(summary=SimpleNamespace(median=1e-3))))

    class Busy:
        store, machine = None, {"key": "k", "isa": AVX512}

        def progress(self, what):
            pass

        def call_until_quiet(self, name, *args, threads=1, **kw):
            if threads > 1:
                raise OverheadDominates("peak x2", 1.47e-3, 1.74e-3, 1760)
            return {"peak": timing}, None

    peaks = ladder.fma_peaks(Busy(), 2)
    assert list(peaks["flops_per_s"]) == [1] and peaks["flops_per_s"][1] > 0
    said = text(peaks["source"])
    assert "measured now" in said and "not measured for 2 thread(s)" in said and "call overhead" in said

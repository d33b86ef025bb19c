from rooflab.kernels.builders import PeakVariant, audit_peak, audit_stream, default_chains


def loop(**kw):
    base = dict(fma=0, fp_add=0, fp_mul=0, vector_bits=0, fma_bits=0, loads=0, stores=0, spills=0)
    base.update(kw)
    return base


def test_peak_audit_accepts_matching_fma_loop():
    v = PeakVariant("fp32", "simd_fma", 12, 32)
    assert v.lanes == 8 and v.flops_per_rep == 12 * 8 * 2
    assert audit_peak(loop(fma=12, fma_bits=256, vector_bits=256), v) is None


def test_peak_audit_refuses_missing_fma_merged_chains_spills_and_narrow_vectors():
    v = PeakVariant("fp32", "simd_fma", 12, 32)
    assert "FMA instruction(s) per iteration" in audit_peak(loop(fp_mul=12, fp_add=12, vector_bits=128), v)["text"]
    assert "model counts 12" in audit_peak(loop(fma=1, fma_bits=256, vector_bits=256), v)["text"]
    assert "spilled" in audit_peak(loop(fma=12, fma_bits=256, vector_bits=256, spills=4), v)["text"]
    assert "128 bits" in audit_peak(loop(fma=12, fma_bits=128, vector_bits=128), v)["text"]
    assert "no loop" in audit_peak(None, v)["text"]


def test_peak_audit_no_fma_and_scalar():
    nofma = PeakVariant("fp64", "simd", 12, 64)
    assert audit_peak(loop(fp_mul=12, fp_add=12, vector_bits=512), nofma) is None
    assert "meant to have none" in audit_peak(loop(fma=12, fma_bits=512, vector_bits=512), nofma)["text"]
    scalar = PeakVariant("fp64", "scalar", 12, 0)
    assert scalar.lanes == 1
    assert audit_peak(loop(fma=12), scalar) is None
    assert "vectorized" in audit_peak(loop(fma=12, vector_bits=256, fma_bits=256), scalar)["text"]


def test_stream_audit_catches_merged_passes():
    assert audit_stream("read", loop(loads=8, fp_add=8, vector_bits=256), 32) is None
    msg = audit_stream("read", loop(loads=4, fp_add=8, vector_bits=256), 32)["text"]
    assert "merged" in msg and "2 times" in msg
    assert audit_stream("copy", loop(loads=2, stores=2, vector_bits=512), 64) is None
    assert "one for one" in audit_stream("copy", loop(loads=2, stores=1, vector_bits=512), 64)["text"]
    assert audit_stream("triad", loop(loads=4, stores=2, fma=2, vector_bits=256), 32) is None
    assert "merged" in audit_stream("triad", loop(loads=4, stores=2, fma=4, vector_bits=256), 32)["text"]
    assert "vector width 128" in audit_stream("copy", loop(loads=2, stores=2, vector_bits=128), 32)["text"]


def test_default_chains_follow_register_file():
    assert default_chains({"vector_registers": 16}) == 12
    assert default_chains({"vector_registers": 32}) == 24

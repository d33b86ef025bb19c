from rooflab.interpret.measure import measure_observations


def _doc(gemv_bw=30e9, skinny_bw=8e9, load=False):
    m = {"uarch": {"fma_pipes": 2, "fma_bits": 256, "add_pipes": 2}, "physical_cores": 2,
         "caches": {"L1": 32768, "L2": 1 << 20, "L3": 32 << 20}}
    comp = [
        {"name": "fp32 SIMD FMA", "precision": "fp32", "klass": "simd_fma", "threads": 1, "status": "ok",
         "flops_per_s": 110e9, "of_theoretical": 0.98, "clock_hz_during": 3.5e9, "vector_bits": 256},
        {"name": "fp32 SIMD FMA", "precision": "fp32", "klass": "simd_fma", "threads": 2, "status": "ok",
         "flops_per_s": 220e9, "of_theoretical": 0.98, "clock_hz_during": 3.5e9, "vector_bits": 256},
        {"name": "fp32 scalar", "precision": "fp32", "klass": "scalar", "threads": 1, "status": "ok",
         "flops_per_s": 13.75e9, "vector_bits": 0},
        {"name": "fp32 nofma", "precision": "fp32", "klass": "simd", "threads": 1, "status": "ok",
         "flops_per_s": 110e9, "vector_bits": 256},
        {"name": "fp32 BLAS", "precision": "fp32", "klass": "blas_gemm", "threads": 2, "status": "ok",
         "flops_per_s": 176e9},
        {"name": "fp64 scalar", "precision": "fp64", "klass": "scalar", "threads": 2, "status": "impossible",
         "flops_per_s": 30e9, "reason": "measured 105% of the theoretical peak"},
    ]
    bw = [{"level": "DRAM", "kernel": "triad", "threads": 1, "status": "ok", "bytes_per_s": 20e9},
          {"level": "DRAM", "kernel": "triad", "threads": 2, "status": "ok", "bytes_per_s": 30e9},
          {"level": "L1", "kernel": "read", "threads": 1, "status": "ok", "bytes_per_s": 200e9},
          {"level": "DRAM", "kernel": "read", "threads": 1, "status": "ok", "bytes_per_s": 25e9}]
    sweeps = [{"kernel": "read", "threads": 1, "plateaus": [
        {"level": "L1", "end_bytes": 32768, "boundary_bytes": 40000},
        {"level": "L2", "end_bytes": 700000, "boundary_bytes": 900000},
        {"level": "DRAM", "end_bytes": 1 << 28, "boundary_bytes": None}]}]
    pts = []
    for b, t, f, eff in [(1, 0.01, 13e9, gemv_bw), (2, 0.01, 26e9, skinny_bw), (4, 0.011, 48e9, skinny_bw),
                         (64, 0.07, 120e9, 4e9), (512, 0.5, 170e9, 1e9), (2048, 2.0, 172e9, 0.3e9)]:
        inten = {1: 0.5, 2: 1.0, 4: 2.0, 64: 31.5, 512: 227.6, 2048: 682.7}[b]
        pts.append({"B": b, "intensity": inten, "time_s": t, "flops_per_s": f, "bytes_per_s": eff,
                    "predicted_flops_per_s": min(220e9, inten * 30e9), "of_predicted": f / min(220e9, inten * 30e9),
                    "of_peak": f / 220e9, "above_roof": False})
    warnings = [{"code": "competing-load", "seen": 0.8}] if load else []
    return {"threads_all": 2, "machine": m, "ceilings": {"compute": comp, "bandwidth": bw},
            "bandwidth_sweeps": sweeps, "sweep": pts, "warnings": warnings,
            "sweep_info": {"compute_roof": {"flops_per_s": 220e9}, "memory_roof": {"bytes_per_s": 30e9}}}


def test_observations_quote_the_measured_numbers():
    obs = "\n".join(o["text"] for o in measure_observations(_doc()))
    assert "98.0% of the theoretical peak" in obs and "3.50 GHz" in obs
    assert "scales 2.00x from 1 to 2 threads" in obs
    assert "SIMD FMA is 8.0x scalar FMA" in obs
    assert "FMA gives 1.00x" in obs and "separate FP add pipes" in obs
    assert "BLAS GEMM on 2 thread(s) reaches 80%" in obs
    assert "Not used as a roof: fp64 scalar x2" in obs
    assert "L1 until about 39.1 KiB" in obs and "L2 until about 879 KiB" in obs
    assert "No separate plateau for L3" in obs
    assert "DRAM triad: 20 GB/s on one thread, 30 GB/s on 2 (1.50x)" in obs
    assert "reads 8x faster from L1" in obs
    assert "Ridge point of this machine: 220 GFLOP/s / 30 GB/s = 7.3 FLOP/byte" in obs
    assert "The first B reaching half of the peak is B = 64" in obs


def test_gemv_anomaly_only_when_it_shows():
    assert "GEMV vs skinny GEMM: B = 1 streams 30 GB/s" in "\n".join(o["text"] for o in measure_observations(_doc()))
    calm = "\n".join(o["text"] for o in measure_observations(_doc(gemv_bw=30e9, skinny_bw=29e9)))
    assert "No GEMV vs skinny-GEMM gap" in calm


def test_competing_load_is_said_first():
    obs = [o["text"] for o in measure_observations(_doc(load=True))]
    assert obs[0].startswith("Other work was running") and "0.80 core" in obs[0]


def test_time_the_host_took_is_told_apart_from_the_code():
    doc = _doc()
    fma1 = doc["ceilings"]["compute"][0]
    fma1.update(of_theoretical=0.97, of_theoretical_running=0.995, time_lost=0.025)
    obs = "\n".join(o["text"] for o in measure_observations(doc))
    assert "were away 2.5% of the time" in obs and "reached 99.5% of the peak" in obs
    fma1.update(time_lost=0.002)  # below half a percent: nothing to say
    assert "were away" not in "\n".join(o["text"] for o in measure_observations(doc))


def test_a_kernel_above_its_levels_roof_is_explained_or_called_impossible():
    from rooflab.i18n import text
    from rooflab.interpret.bench import bench_observations

    base = {"label": "k n=8000000", "size": {"n": 8000000}, "flops_per_s": 4e9, "intensity": 0.125, "of_roof": 1.36,
            "bound": "memory", "bound_by": "DRAM bandwidth", "working_set_bytes": 61 << 20, "level": "DRAM",
            "checked": True}
    partly = {**base, "partly_in": "L3", "partly_capacity": 32 << 20}
    above = {**base, "above_roof": True}
    doc = {"kernels": [{"name": "k", "sizes": [partly]}, {"name": "j", "sizes": [above]}]}
    lines = [text(m) for m in bench_observations(doc)]
    assert "above the DRAM roof: its working set is within 4x the L3 (32 MiB)" in lines[0]
    assert "impossible" not in lines[0] and "136%" in lines[0]
    assert "above its roof, which is impossible" in lines[1]

"""A simulated H200 for the GPU tests (unit and CLI)."""

from rooflab.gpu import specs
from rooflab.gpu.backend import SimulatedBackend

CLK = 1.755e9
H200 = specs.DeviceInfo(name="NVIDIA H200 (simulated)", cc=(9, 0), sms=132, l2_bytes=50 << 20,
                        memory_bytes=141 << 30, bus_width_bits=6144, memory_clock_hz=3.2e9, max_sm_clock_hz=1.98e9)


def sim(dev=H200, fp32_frac=0.98, state=None, wrong=(), **kw):
    flops = {"fp64": 128 * dev.sms * CLK * 0.97, "fp32": 256 * dev.sms * CLK * fp32_frac,
             "fp64_tensor": 256 * dev.sms * CLK, "tf32": 2048 * dev.sms * CLK, "fp16": 4096 * dev.sms * CLK,
             "bf16": 4096 * dev.sms * CLK}
    return SimulatedBackend(dev, sm_clock_hz=CLK, l2_bytes_per_s=10e12, hbm_bytes_per_s=4.3e12, flops=flops,
                            d2d_bytes_per_s=4.4e12, state=state if state is not None else
                            {"source": "nvml", "sm_clock_hz": CLK, "event_reasons": [], "processes": [],
                             "utilization": 0.0}, wrong=wrong, **kw)
